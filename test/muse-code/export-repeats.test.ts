/**
 * A `muse export` names each record of a session by its `envelope.sequence`
 * (an event's `eventId` is `muse-seq-<sequence>`), so two records of one
 * session with the same sequence would be two events under one id, and the
 * index keeps one of them: an event lost without a word. The adapter fails
 * closed instead (seed 001: unknown or malformed input is refused):
 * - a record repeated as it is (an export duplicated whole, a record copied)
 *   is the same event: the repeat is skipped and counted
 *   (`REPEATED_RECORDS_SKIPPED`, like gap markers: nothing fabricated, nothing
 *   lost);
 * - a record with another content under a sequence already taken is
 *   `MALFORMED_SOURCE` naming both places;
 * - the same sequence in two sessions (another `envelope.stream.id`) is two
 *   events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Locator } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { importOnce, indexView } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { collect } from "../support/run.js"

const orderlyPath = path.join(fixturesDir, "muse-code", "export", "orderly.json")
const orderly = JSON.parse(fs.readFileSync(orderlyPath, "utf8")) as { events: Array<Record<string, any>> }
const RECORDS = orderly.events.filter((e) => e.envelope !== null && e.kind !== "retained_frame").length
const scratch = tempDir()
let n = 0
const write = (doc: unknown): Locator => {
  const p = path.join(scratch, `doc-${n++}.json`)
  fs.writeFileSync(p, JSON.stringify(doc))
  return { locatorClass: "manual-export", path: p }
}
const clone = <A>(a: A): A => JSON.parse(JSON.stringify(a))
const museCode = Effect.flatMap(SessionSources, (r) => r.get("muse-code"))

layer(App.layer({ workspaceRoots: [fixturesDir, scratch] }))("muse-code export: a record sequence taken twice", (it) => {
  it.effect("an export duplicated whole streams and inspects as the original, its repeats counted", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      const doubled = write({ ...orderly, events: [...orderly.events, ...clone(orderly.events)] })
      const events = yield* collect(a.stream(doubled, {}))
      const original = yield* collect(a.stream({ locatorClass: "manual-export", path: orderlyPath }, {}))
      expect(events.map((e) => e.eventId)).toEqual(original.map((e) => e.eventId))
      expect(new Set(events.map((e) => `${e.sessionId}/${e.eventId}`)).size).toBe(events.length)
      const inspection = yield* a.inspect(doubled)
      expect(inspection.eventCount).toBe(RECORDS)
      const d = inspection.diagnostics.find((x) => x.code === "REPEATED_RECORDS_SKIPPED")
      expect(d?.details).toEqual({ count: RECORDS })
    }))

  it.effect("one record copied to the end is one event; the copy is counted", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      const doc = { ...orderly, events: [...orderly.events, clone(orderly.events[3])] }
      const loc = write(doc)
      const events = yield* collect(a.stream(loc, {}))
      expect(events.length).toBe(RECORDS)
      expect(events.filter((e) => e.eventId === "muse-seq-3").length).toBe(1)
      const inspection = yield* a.inspect(loc)
      expect(inspection.diagnostics.find((x) => x.code === "REPEATED_RECORDS_SKIPPED")?.details).toEqual({ count: 1 })
    }))

  it.effect("another record under a sequence already taken is MALFORMED_SOURCE naming both places", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      for (const edit of [
        (e: Record<string, any>) => { e.envelope.id = "env-other" },
        (e: Record<string, any>) => { e.envelope.payload = { ...e.envelope.payload, task: "SECONDVERSION" } },
        (e: Record<string, any>) => { e.envelope.recorded_at = "2026-10-01T13:00:00Z" }
      ]) {
        const copy = clone(orderly.events[0])
        edit(copy)
        const loc = write({ ...orderly, events: [...orderly.events, copy] })
        const last = orderly.events.length
        for (const run of [collect(a.stream(loc, {})), a.inspect(loc)] as const) {
          const err = yield* Effect.flip(run as Effect.Effect<unknown, { readonly code: string; readonly message: string }>)
          expect(err.code).toBe("MALFORMED_SOURCE")
          expect(err.message).toContain(`events[${last}]`)
          expect(err.message).toContain("events[0]")
          expect(err.message).toContain("sequence 0")
        }
      }
    }))

  it.effect("the same sequence in another session is another event", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      const copy = clone(orderly.events[0])
      copy.envelope.stream = { ...copy.envelope.stream, id: "5f1e0c2a-0000-4000-8000-00000000cccc" }
      const events = yield* collect(a.stream(write({ ...orderly, events: [...orderly.events, copy] }), {}))
      expect(events.length).toBe(RECORDS + 1)
      expect(events.filter((e) => e.eventId === "muse-seq-0").map((e) => e.sessionId).sort())
        .toEqual(["5f1e0c2a-0000-4000-8000-00000000aaaa", "5f1e0c2a-0000-4000-8000-00000000cccc"])
    }))
})

describe("muse-code export: nothing lost on import", () => {
  it.effect("an export duplicated whole imports every event once and eventsAdded says so", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      const doubled = path.join(ws, "doubled.json")
      fs.writeFileSync(doubled, JSON.stringify({ ...orderly, events: [...orderly.events, ...clone(orderly.events)] }))
      const policy = { workspaceRoots: [ws], museRoots: [], agentsRoot: path.join(dir, "no-agents") }
      const report = yield* importOnce(policy, path.join(dir, "i.db"), planFromPolicy(policy, { exports: [doubled], batchSize: 3 }))
      expect(report.sources).toMatchObject({ accepted: 1, rejected: 0 })
      expect(report.eventsAdded).toBe(RECORDS)
      const view = yield* indexView(path.join(dir, "i.db"))
      expect(view.flatMap((s: any) => s.events).length).toBe(RECORDS)
    }))
})
