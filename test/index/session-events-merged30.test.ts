/**
 * One `ses_…` uid held by two sources at different generations (the same
 * provider, source id and session id in both): a read of its events in order
 * (`eventsStream`, `eventsAround`) merges both sources' shown generations by
 * `(sequence, event_uid)`, as one query over the session did, and leaves out a
 * generation its source no longer shows (session 30, fix30a: the reads are per
 * shown generation, several merged). Both engines.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { engines } from "../support/pg.js"
import { tempDir } from "../support/paths.js"

const sourceOf = (key: string): SourceInfo => ({
  sourceKey: key,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: `/merged30/${key}.jsonl` },
  summary: {},
  overview: emptySourceSummary("merged30")
})

/** Events of the one session, sequences `from`, `from + 2`, …, their text naming `tag`. */
const eventsOf = (tag: string, from: number, count: number): Array<SessionEvent> => {
  const e = mk("muse-agents", "merged30")
  return Array.from({ length: count }, (_, i) =>
    e("message", { role: "assistant", text: `${tag} ${from + 2 * i}`, sequence: from + 2 * i, eventId: `${tag}-${i}` }))
}

const importGeneration = (key: string, generation: number, events: ReadonlyArray<SessionEvent>) =>
  Effect.gen(function*() {
    const index = yield* Index
    const source = sourceOf(key)
    yield* index.beginGeneration(source, generation, "rewritten")
    yield* index.commitBatch({ source, generation, events }, () => Effect.void)
    yield* index.completeSource(source, null)
  })

describe.each(engines)("a session two sources hold ($engine)", ({ newIndex }) => {
  it.effect("its events of both sources' shown generations, merged in order; a superseded generation left out", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-merged30-"))
      const layer = indexLayer(target)
      const a = eventsOf("a", 0, 30) // source A, generation 1: sequences 0, 2, …, 58
      const b = eventsOf("b", 1, 30) // source B, generation 2: sequences 1, 3, …, 59
      yield* Effect.gen(function*() {
        yield* importGeneration("merged30-a", 1, a)
        yield* importGeneration("merged30-b", 1, eventsOf("old", 1, 30))
        yield* importGeneration("merged30-b", 2, b)
      }).pipe(Effect.provide(layer))
      const r = yield* Effect.gen(function*() {
        const index = yield* Index
        const [row] = (yield* index.sessions({})).filter((s) => s.sessionId === "merged30")
        const read = Chunk.toArray(yield* Stream.runCollect(index.eventsStream(row.sessionUid, 7)))
        const around = yield* index.eventsAround(row.sessionUid, "a-10", 3, 4)
        return { read, around }
      }).pipe(Effect.provide(layer))
      const expected = Array.from({ length: 60 }, (_, s) => `${s % 2 === 0 ? "a" : "b"} ${s}`)
      expect(r.read.map((e) => e.text)).toEqual(expected)
      const around = Option.getOrThrow(r.around)
      expect(around.at).toBe(3)
      expect(around.events.map((e) => e.text)).toEqual(["b 17", "a 18", "b 19", "a 20", "b 21", "a 22", "b 23", "a 24"])
    }), 120_000)
})
