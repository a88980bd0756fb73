/**
 * The usage report counts the incomplete sessions (their shown generation's
 * source still `importing`: docs/index.md, "Incomplete sessions") by asking
 * the index for those only (`SessionFilter.status`, filtered in the query on
 * both engines), not by reading every session of the index (session 30,
 * fix30a). The `sessions-incomplete` note keeps its numbers: many complete
 * sessions and a few incomplete ones, under the report's filters.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import { bundledPrices } from "../../src/domain/prices.js"
import { usageReport } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { engines } from "../support/pg.js"
import { tempDir } from "../support/paths.js"

const COMPLETE = 40

const sourceOf = (n: number, provider: ProviderId): SourceInfo => ({
  sourceKey: `usage30-${n}`,
  provider,
  locator: { locatorClass: "muse-agent-transcript", path: `/usage30/${n}.jsonl` },
  summary: {},
  overview: emptySourceSummary(`usage30-${n}`)
})

const eventsOf = (n: number, provider: ProviderId, count: number): Array<SessionEvent> => {
  const e = mk(provider, `usage30-${n}`)
  return Array.from({ length: count }, (_, i) =>
    e("message", { role: "assistant", text: `event ${i}`, occurredAt: new Date(Date.UTC(2025, 2, 1 + (n % 20), 10, 0, i)).toISOString() }))
}

/** Session `n` of `count` events; left `importing` (its import stopped part-way) unless `complete`. */
const importSession = (n: number, provider: ProviderId, count: number, complete: boolean) =>
  Effect.gen(function*() {
    const index = yield* Index
    const source = sourceOf(n, provider)
    yield* index.beginGeneration(source, 1, "new")
    yield* index.commitBatch({ source, generation: 1, events: eventsOf(n, provider, count) }, () => Effect.void)
    if (complete) yield* index.completeSource(source, null)
  })

describe.each(engines)("usage: the incomplete sessions counted in the query ($engine)", ({ newIndex }) => {
  it.effect("sessions({ status }) lists only those sessions; the sessions-incomplete note counts them and their events", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-usage30-"))
      const layer = indexLayer(target)
      // Many complete sessions, and three incomplete ones: two of muse-agents (5 and 7 events), one of claude-code (11).
      yield* Effect.gen(function*() {
        for (let n = 1; n <= COMPLETE; n++) yield* importSession(n, n % 2 === 0 ? "claude-code" : "muse-agents", 3, true)
        yield* importSession(101, "muse-agents", 5, false)
        yield* importSession(102, "muse-agents", 7, false)
        yield* importSession(103, "claude-code", 11, false)
      }).pipe(Effect.provide(layer))

      const r = yield* Effect.gen(function*() {
        const index = yield* Index
        return {
          all: yield* index.sessions({}),
          incomplete: yield* index.sessions({ status: "incomplete" }),
          complete: yield* index.sessions({ status: "complete" }),
          incompleteAgents: yield* index.sessions({ status: "incomplete", provider: "muse-agents" }),
          report: yield* usageReport({ by: "day" }, bundledPrices),
          agentsReport: yield* usageReport({ by: "day", provider: "muse-agents" }, bundledPrices)
        }
      }).pipe(Effect.provide(layer))

      expect(r.all.length).toBe(COMPLETE + 3)
      expect(r.incomplete.map((s) => s.sessionId).sort()).toEqual(["usage30-101", "usage30-102", "usage30-103"])
      expect(r.incomplete.every((s) => s.status === "incomplete")).toBe(true)
      expect(r.complete.length).toBe(COMPLETE)
      expect(r.complete.every((s) => s.status === "complete")).toBe(true)
      expect(r.incompleteAgents.map((s) => s.sessionId).sort()).toEqual(["usage30-101", "usage30-102"])
      const note = (report: typeof r.report) => report.notes.filter((n) => n.kind === "sessions-incomplete")
      expect(note(r.report)).toEqual([expect.objectContaining({ kind: "sessions-incomplete", sessions: 3, events: 5 + 7 + 11 })])
      expect(note(r.agentsReport)).toEqual([expect.objectContaining({ kind: "sessions-incomplete", sessions: 2, events: 5 + 7 })])
    }), 120_000)
})
