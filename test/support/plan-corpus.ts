/**
 * The corpus of the session-events plan tests (test/index/*-session-events-plan30): sessions of the Muse agents
 * provider written straight through the `Index` service, one source each (`plan30-<n>`), a generation at a time.
 */
import * as Effect from "effect/Effect"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "./events.js"

/** The source of session `n`. */
export const sourceOf = (n: number): SourceInfo => ({
  sourceKey: `plan30-${n}`,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: `/plan30/${n}.jsonl` },
  summary: {},
  overview: emptySourceSummary(`plan30-${n}`)
})

/** `count` events of session `n`, their text naming the generation they are written in. */
export const eventsOf = (n: number, count: number, generation: number): Array<SessionEvent> => {
  const e = mk("muse-agents", `plan30-${n}`)
  return Array.from({ length: count }, (_, i) => e("message", { role: "assistant", text: `g${generation} event ${i}` }))
}

/** Generation `generation` of session `n`'s source, written whole (batches of 1,000) and completed. */
export const importGeneration = (n: number, generation: number, events: ReadonlyArray<SessionEvent>) =>
  Effect.gen(function*() {
    const index = yield* Index
    const source = sourceOf(n)
    yield* index.beginGeneration(source, generation, "rewritten")
    for (let i = 0; i < events.length; i += 1000) {
      yield* index.commitBatch({ source, generation, events: events.slice(i, i + 1000) }, () => Effect.void)
    }
    yield* index.completeSource(source, null)
  })
