/**
 * Small native logs share transactions (issue 13, first import): a new
 * small source is read whole and written in one operation of the index
 * (`IndexShape.importWhole`), and several sources' batches sit in one
 * transaction until a batch's worth of events is pending. What must hold:
 * - killed at any commit point of any batch, the next run reaches the
 *   content of a clean import, row by row, and what the killed run left
 *   committed is consistent (each source's checkpoint counts the events it
 *   has, and no source is complete without all of them);
 * - a source that fails among others sharing its transaction is rejected
 *   with its code, holds no events, and its neighbours are complete with all
 *   theirs; the report's counts say so.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { DEFAULT_COMMIT_EVENTS, planFromPolicy, type PlanOptions } from "../../src/layers/index/importer.js"
import { end, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { crashAt, dumpIndex, importOnce } from "../support/index.js"
import { museWorkspace } from "../support/source-roots.js"

/** Session ids of the logs: `0e0e0e0e-0000-4000-8000-00000000000<k>`. */
const idOf = (k: number) => `0e0e0e0e-0000-4000-8000-0000000000${String(k).padStart(2, "0")}`

/**
 * A muse root with `sizes.length` small native logs; log `k` has `sizes[k]` events (metadata, records, end).
 * `batch`: the plan's batch size (and so its events per transaction), or its options.
 */
const root = (sizes: ReadonlyArray<number>, batch: number | PlanOptions) => {
  const { dir, ws, root: muse, policy } = museWorkspace()
  const logs = sizes.map((n, k) => {
    const id = idOf(k)
    const p = path.join(muse, "2026", "11", "0" + (1 + (k % 3)), id, "session.jsonl")
    fs.mkdirSync(path.dirname(p), { recursive: true })
    const body = Array.from({ length: n - 2 }, (_, i) => record(2 + i, "runtime.session", { event: { kind: "started", prompt: `log ${k} step ${i}` } }, id))
    fs.writeFileSync(p, jsonl([metadata(1, ws, id), ...body, end(n, id)]))
    return p
  })
  return { dir, ws, policy, logs, plan: planFromPolicy(policy, typeof batch === "number" ? { batchSize: batch } : batch), index: path.join(dir, "index.db"), reference: path.join(dir, "reference.db") }
}

type Dump = { sources: Array<any>; generations: Array<any>; events: Array<any>; sessions: Array<any> }

/** Each source's stored event count agrees with the events it has; a complete source has all of its log's events. */
const consistent = (d: Dump, sizes: ReadonlyMap<string, number>) => {
  for (const s of d.sources) {
    const has = d.events.filter((e) => e.source_key === s.source_key && e.generation === s.generation).length
    expect(s.event_count, s.source_key).toBe(has)
    if (s.status === "complete") expect(has, s.source_key).toBe(sizes.get(JSON.parse(s.locator_json).path))
  }
}

describe("events per transaction (issue 13: fewer commits)", () => {
  /** Killed right after the first commit: the events that commit held, consistent, and the next run converges. */
  const firstCommit = (sizes: ReadonlyArray<number>, options: PlanOptions) =>
    Effect.gen(function*() {
      const s = root(sizes, options)
      const total = sizes.reduce((a, b) => a + b, 0)
      yield* importOnce(s.policy, s.reference, s.plan)
      const crashed = yield* Effect.exit(importOnce(s.policy, s.index, s.plan, crashAt("after-commit", 1)))
      expect(Exit.isFailure(crashed)).toBe(true)
      const mid = (yield* dumpIndex(s.index)) as Dump
      consistent(mid, new Map(s.logs.map((p, k) => [p, sizes[k]])))
      const resumed = yield* importOnce(s.policy, s.index, s.plan)
      expect(resumed.eventsAdded).toBe(total - mid.events.length)
      expect(((yield* dumpIndex(s.index)) as Dump).events).toEqual(((yield* dumpIndex(s.reference)) as Dump).events)
      return mid.events.length
    })

  it.effect("by default a transaction holds 5000 events of any sources, not one batch of 500", () =>
    Effect.gen(function*() {
      expect(DEFAULT_COMMIT_EVENTS).toBe(5000)
      // 13 logs of 450 events: 5850 in all; batches of 500 would commit after the second log
      const committed = yield* firstCommit(Array.from({ length: 13 }, () => 450), {})
      expect(committed).toBeGreaterThanOrEqual(5000)
      expect(committed).toBeLessThan(5850)
    }))

  it.effect("commitEvents sets it apart from the batch size", () =>
    Effect.gen(function*() {
      const committed = yield* firstCommit([5, 3, 9, 4, 6, 3, 7], { batchSize: 4, commitEvents: 12 })
      expect(committed).toBeGreaterThanOrEqual(12)
      expect(committed).toBeLessThan(12 + 9)
    }))
})

describe("small sources sharing transactions (first import)", () => {
  // 7 logs of 3 to 9 events, batches of 4: a transaction holds parts of several sources, and a source's batches
  // are split across transactions.
  const sizes = [5, 3, 9, 4, 6, 3, 7]
  const total = sizes.reduce((a, b) => a + b, 0)

  it.effect("a clean import: every log complete with all its events, counted once", () =>
    Effect.gen(function*() {
      const s = root(sizes, 4)
      const r = yield* importOnce(s.policy, s.index, s.plan)
      expect(r.sources).toMatchObject({ discovered: sizes.length, accepted: sizes.length, rejected: 0, newGenerations: 0 })
      expect(r.eventsAdded).toBe(total)
      expect(r.sessionsAdded).toBe(sizes.length)
      const d = (yield* dumpIndex(s.index)) as Dump
      expect(d.sources.map((x) => x.status)).toEqual(sizes.map(() => "complete"))
      expect(d.generations.map((g) => [g.generation, g.superseded])).toEqual(sizes.map(() => [1, 0]))
      consistent(d, new Map(s.logs.map((p, k) => [p, sizes[k]])))
      // and again: nothing added, nothing changed
      const again = yield* importOnce(s.policy, s.index, s.plan)
      expect(again.sources).toMatchObject({ unchanged: sizes.length, accepted: 0 })
      expect(again.eventsAdded).toBe(0)
      expect(((yield* dumpIndex(s.index)) as Dump).events).toEqual(d.events)
    }))

  for (const point of ["mid-batch", "before-commit", "after-commit"] as const) {
    for (const n of [1, 2, 4]) {
      it.effect(`killed at ${point} #${n}: what was committed is consistent, and the next run reaches a clean import's content`, () =>
        Effect.gen(function*() {
          const s = root(sizes, 4)
          yield* importOnce(s.policy, s.reference, s.plan)
          const want = (yield* dumpIndex(s.reference)) as Dump
          const crashed = yield* Effect.exit(importOnce(s.policy, s.index, s.plan, crashAt(point, n)))
          expect(Exit.isFailure(crashed)).toBe(true)
          const mid = (yield* dumpIndex(s.index)) as Dump
          const byPath = new Map(s.logs.map((p, k) => [p, sizes[k]]))
          consistent(mid, byPath)
          // a kill loses what was pending: never everything before it (the `n`-th point comes after n - 1 commits
          // at the earliest), never more than what reached a commit
          expect(mid.events.length).toBeLessThan(total)
          if (point === "after-commit") expect(mid.events.length).toBeGreaterThanOrEqual(4 * n)
          const resumed = yield* importOnce(s.policy, s.index, s.plan)
          expect(resumed.sources.rejected).toBe(0)
          expect(resumed.eventsAdded).toBe(total - mid.events.length)
          const got = (yield* dumpIndex(s.index)) as Dump
          expect(got.events).toEqual(want.events)
          expect(got.sessions).toEqual(want.sessions)
          expect(got.sources).toEqual(want.sources)
          expect(got.generations).toEqual(want.generations)
        }))
    }
  }

  it.effect("a log that fails among others in its transaction: rejected with its code, no events; its neighbours complete", () =>
    Effect.gen(function*() {
      const s = root(sizes, 100)
      const bad = s.logs[3]
      fs.writeFileSync(bad, fs.readFileSync(bad, "utf8").replace(/\n/, "\n{not json\n"))
      const r = yield* importOnce(s.policy, s.index, s.plan)
      expect(r.sources).toMatchObject({ discovered: sizes.length, accepted: sizes.length - 1, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      expect(r.rejected.map((x) => x.path)).toEqual([bad])
      expect(r.coverage).toBe("partial")
      expect(r.eventsAdded).toBe(total - sizes[3])
      const d = (yield* dumpIndex(s.index)) as Dump
      const badRow = d.sources.find((x) => JSON.parse(x.locator_json).path === bad)
      expect(badRow).toMatchObject({ status: "rejected", error_code: "MALFORMED_SOURCE", event_count: 0 })
      expect(d.events.filter((e) => e.source_key === badRow.source_key)).toEqual([])
      expect(d.sources.filter((x) => x !== badRow).map((x) => x.status)).toEqual(sizes.slice(1).map(() => "complete"))
      consistent(d, new Map(s.logs.map((p, k) => [p, sizes[k]])))
      // repaired, it imports alone; the others are unchanged
      fs.writeFileSync(bad, fs.readFileSync(bad, "utf8").replace("{not json\n", ""))
      const again = yield* importOnce(s.policy, s.index, s.plan)
      expect(again.sources).toMatchObject({ accepted: 1, unchanged: sizes.length - 1, rejected: 0 })
      expect(again.eventsAdded).toBe(sizes[3])
      yield* importOnce(s.policy, s.reference, s.plan)
      const want = (yield* dumpIndex(s.reference)) as Dump
      const got = (yield* dumpIndex(s.index)) as Dump
      expect(got.events).toEqual(want.events)
      expect(got.sessions).toEqual(want.sessions)
    }))
})
