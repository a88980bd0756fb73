/**
 * A source that fails part-way never leaves anything in the index (issue 11,
 * item 5): the run's batches for it are rolled back and its checkpoint is left
 * where it was at the start of the run, also across a kill between batches;
 * and a native log whose nested subagent log is missing imports with a
 * diagnostic that makes coverage partial, instead of being rejected under a
 * path the user never gave. `sessions`, `show`/`export` (the index's session
 * and event queries) and the report's counts agree.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import Database from "better-sqlite3"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { Index } from "../../src/services/Index.js"
import type { ImportReport } from "../../src/services/Importer.js"
import { bound, end, filler, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { crashAt, dumpIndex, importOnce, indexLayer } from "../support/index.js"
import { engines } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { museWorkspace } from "../support/source-roots.js"

const PARENT = "0d0d0d0d-0000-4000-8000-000000000001"
const CHILD = "0d0d0d0d-0000-4000-8000-000000000002"
const OTHER = "0d0d0d0d-0000-4000-8000-000000000003"

/** A muse root under a temp dir, with helpers to write logs and import them in batches of 2. */
const museRoot = (batchSize = 2, indexAt?: string) => {
  // an agents root with an agent folder but no transcript: checked, nothing found, so coverage is complete
  // unless a muse-code source says otherwise (a named root without any agent folder would be partial)
  const { dir, ws, root, policy } = museWorkspace()
  const index = indexAt ?? path.join(dir, "index.db")
  const plan = planFromPolicy(policy, { batchSize })
  const logPath = (id: string) => path.join(root, "2026", "10", "04", id, "session.jsonl")
  const write = (id: string, text: string) => {
    fs.mkdirSync(path.dirname(logPath(id)), { recursive: true })
    fs.writeFileSync(logPath(id), text)
    return logPath(id)
  }
  return { dir, ws, root, policy, index, plan, logPath, write, run: (faults?: Parameters<typeof importOnce>[3]) => importOnce(policy, index, plan, faults) }
}

/** What the query commands see: `sessions` (listed), and `show` / `export` (found by id, with their events). */
const visible = (index: string, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const i = yield* Index
    const listed = (yield* i.sessions({})).map((s) => s.sessionId).sort()
    const found: Record<string, number> = {}
    for (const id of ids) {
      for (const s of yield* i.findSessions(id)) found[s.sessionId] = (yield* i.events(s.sessionUid)).length
    }
    return { listed, found }
  }).pipe(Effect.provide(indexLayer(index)))

/** The index's content without the times it was written at. */
const content = (index: string) =>
  Effect.map(dumpIndex(index), (d) => ({
    sources: d.sources,
    generations: d.generations,
    events: d.events,
    sessions: d.sessions
  }))

/**
 * `n` records of about 2 KiB from sequence `from`: 200 of them pass a read step
 * (256 KiB), so a bad line after them is read after some batches committed.
 */
const lines = (n: number, from = 2, streamId = OTHER) =>
  Array.from({ length: n }, (_, i) => record(from + i, "runtime.session", { event: { kind: "started", prompt: `step ${from + i} ${"x".repeat(2000)}` } }, streamId))

describe.each(engines)("($engine) a source rejected part-way leaves nothing behind", ({ newIndex }) => {
  it.effect("first import: batches committed before the bad line are rolled back; no session is listed, found or counted", () =>
    Effect.gen(function*() {
      const m = museRoot(50, yield* newIndex(tempDir()))
      m.write(OTHER, jsonl([metadata(1, m.ws, OTHER), ...lines(200)], "") + "{not json\n" + jsonl([end(300, OTHER)]))
      const r = yield* m.run()
      expect(r.sources).toMatchObject({ discovered: 1, accepted: 0, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      expect([r.sessionsAdded, r.eventsAdded]).toEqual([0, 0])
      expect(yield* visible(m.index, [OTHER])).toEqual({ listed: [], found: {} })
      const d = yield* dumpIndex(m.index)
      expect([d.events.length, d.sessions.length]).toEqual([0, 0])
      expect(d.sources).toMatchObject([{ status: "rejected", cursor: null, event_count: 0, error_code: "MALFORMED_SOURCE" }])
    }))

  it.effect("re-import: an append that fails after some batches leaves the index exactly as before the run", () =>
    Effect.gen(function*() {
      const m = museRoot(50, yield* newIndex(tempDir()))
      const p = m.write(OTHER, jsonl([metadata(1, m.ws, OTHER), ...lines(3)]))
      const first = yield* m.run()
      expect([first.sessionsAdded, first.eventsAdded]).toEqual([1, 4])
      const before = yield* content(m.index)
      fs.appendFileSync(p, jsonl(lines(200, 5)) + "{torn json\n")
      const r = yield* m.run()
      expect(r.sources).toMatchObject({ accepted: 0, rejected: 1 })
      expect([r.sessionsAdded, r.eventsAdded]).toEqual([0, 0])
      const after = yield* content(m.index)
      expect(after.events).toEqual(before.events)
      expect(after.sessions).toEqual(before.sessions)
      expect(after.generations).toEqual(before.generations)
      // the checkpoint is where it was (cursor, generation, fingerprint, status); only the error is noted
      expect((after.sources as Array<any>).map(({ error_code, ...rest }) => rest)).toEqual(
        (before.sources as Array<any>).map(({ error_code, ...rest }) => rest)
      )
      expect(yield* visible(m.index, [OTHER])).toEqual({ listed: [OTHER], found: { [OTHER]: 4 } })
      // fixed by the writer: the next run imports the rest
      fs.writeFileSync(p, jsonl([metadata(1, m.ws, OTHER), ...lines(3), ...lines(200, 5), end(205, OTHER)]))
      const fixed = yield* m.run()
      expect(fixed.sources).toMatchObject({ accepted: 1, rejected: 0, newGenerations: 0 })
      expect(fixed.eventsAdded).toBe(201)
      expect(yield* visible(m.index, [OTHER])).toEqual({ listed: [OTHER], found: { [OTHER]: 205 } })
    }))

  it.effect("a new generation that fails is rolled back too: the old generation stays current, not superseded", () =>
    Effect.gen(function*() {
      const m = museRoot(50, yield* newIndex(tempDir()))
      const p = m.write(OTHER, jsonl([metadata(1, m.ws, OTHER), ...lines(3)]))
      yield* m.run()
      const before = yield* content(m.index)
      // rewritten (another first record), and broken further on
      fs.writeFileSync(p, jsonl([metadata(1, m.ws, OTHER), filler(2, OTHER), ...lines(200, 3)]).replace("step 2", "STEP 2") + "{bad\n")
      const r = yield* m.run()
      expect(r.sources).toMatchObject({ rejected: 1, newGenerations: 0 })
      const after = yield* content(m.index)
      expect(after.events).toEqual(before.events)
      expect(after.sessions).toEqual(before.sessions)
      expect(after.generations).toEqual(before.generations)
    }))

  it.effect("a kill between batches of a run that then fails: the next run rolls back both, to the state before the killed run", () =>
    Effect.gen(function*() {
      const m = museRoot(50, yield* newIndex(tempDir()))
      const p = m.write(OTHER, jsonl([metadata(1, m.ws, OTHER), ...lines(3)]))
      yield* m.run()
      const before = yield* content(m.index)
      fs.appendFileSync(p, jsonl(lines(200, 5)) + "{bad\n")
      // killed after the first batch of the run committed
      const killed = yield* Effect.exit(m.run(crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      expect((yield* dumpIndex(m.index)).events.length).toBe(before.events.length + 50)
      const r = yield* m.run()
      expect(r.sources).toMatchObject({ rejected: 1 })
      const after = yield* content(m.index)
      expect(after.events).toEqual(before.events)
      expect(after.sessions).toEqual(before.sessions)
      // and a run over the repaired log reaches the content of a clean import
      fs.writeFileSync(p, jsonl([metadata(1, m.ws, OTHER), ...lines(3), ...lines(200, 5)]))
      yield* m.run()
      const fresh = yield* newIndex(m.dir)
      yield* importOnce(m.policy, fresh, m.plan)
      const got = yield* content(m.index)
      const want = yield* content(fresh)
      expect(got.events).toEqual(want.events)
      expect(got.sessions).toEqual(want.sessions)
    }))
})

describe("a native log whose nested subagent log is missing", () => {
  const family = () => {
    const m = museRoot()
    const parent = m.write(PARENT, jsonl([metadata(1, m.ws, PARENT), bound(2, CHILD, "sub-1", PARENT), filler(3, PARENT), end(4, PARENT)]))
    const childLog = path.join(path.dirname(parent), "subagent", CHILD, "session.jsonl")
    return { ...m, parent, childLog }
  }
  const codes = (r: ImportReport) => r.providers.flatMap((p) => p.diagnostics.map((d) => d.code))

  it.effect("imports the parent's own events; the missing log is a diagnostic that makes coverage partial, with a remediation", () =>
    Effect.gen(function*() {
      const f = family()
      const r = yield* f.run()
      expect(r.sources).toMatchObject({ discovered: 1, accepted: 1, rejected: 0 })
      expect(r.coverage).toBe("partial")
      expect([r.sessionsAdded, r.eventsAdded]).toEqual([1, 4])
      expect(codes(r)).toEqual(["NESTED_LOG_MISSING"])
      const d = r.providers[0].diagnostics[0]
      expect(d.message).toContain(CHILD)
      expect(d.message).toContain("nested")
      expect(r.remediations.filter((l) => l.includes("NESTED_LOG_MISSING"))).toHaveLength(1)
      // The diagnostic's own remedy (a typed field of the diagnostic, not a key of its details).
      expect(r.remediations.find((l) => l.includes("NESTED_LOG_MISSING"))).toContain("Restore the nested log")
      expect(d.remediation).toContain("Restore the nested log")
      expect(r.rejected).toEqual([])
      expect(yield* visible(f.index, [PARENT, CHILD])).toEqual({ listed: [PARENT], found: { [PARENT]: 4 } })
    }))

  it.effect("a nested log that is malformed rejects the log, with an error that names the nested log; nothing stays", () =>
    Effect.gen(function*() {
      const f = family()
      fs.mkdirSync(path.dirname(f.childLog), { recursive: true })
      fs.writeFileSync(f.childLog, jsonl([filler(1, CHILD)]) + "{not json\n")
      const r = yield* f.run()
      expect(r.sources).toMatchObject({ accepted: 0, rejected: 1 })
      expect(r.rejected[0].path).toBe(f.parent)
      expect(r.rejected[0].message).toMatch(new RegExp(`^In the nested subagent log of child session ${CHILD} \\(subagent/`))
      expect([r.sessionsAdded, r.eventsAdded]).toEqual([0, 0])
      expect(yield* visible(f.index, [PARENT, CHILD])).toEqual({ listed: [], found: {} })
    }))

  it.effect("an unchanged re-import reports it again; once the nested log appears, its events import and coverage is complete", () =>
    Effect.gen(function*() {
      const f = family()
      yield* f.run()
      const again = yield* f.run()
      expect(again.sources).toMatchObject({ unchanged: 1 })
      expect(again.coverage).toBe("partial")
      expect(codes(again)).toEqual(["NESTED_LOG_MISSING"])
      fs.mkdirSync(path.dirname(f.childLog), { recursive: true })
      fs.writeFileSync(f.childLog, jsonl([filler(1, CHILD), filler(2, CHILD)]))
      const found = yield* f.run()
      expect(found.coverage).toBe("complete")
      expect(codes(found)).toEqual([])
      expect([found.sessionsAdded, found.eventsAdded]).toEqual([1, 2])
      expect(yield* visible(f.index, [PARENT, CHILD])).toEqual({ listed: [CHILD, PARENT].sort(), found: { [PARENT]: 4, [CHILD]: 2 } })
    }))
})

/** The index file's bytes (hex digest) and modification time, and the files SQLite leaves beside it. */
const fileState = (index: string) => ({
  digest: createHash("sha256").update(fs.readFileSync(index)).digest("hex"),
  mtimeMs: fs.statSync(index).mtimeMs,
  beside: fs.readdirSync(path.dirname(index)).filter((f) => f.startsWith(path.basename(index)) && f !== path.basename(index))
})

describe("a rejected source read again (SQLite)", () => {
  it.effect("unchanged, it is rejected again with the same error and nothing is written: the index's bytes and mtime stay", () =>
    Effect.gen(function*() {
      const m = museRoot(50)
      m.write(OTHER, jsonl([metadata(1, m.ws, OTHER), ...lines(3)], "") + "{not json\n")
      const first = yield* m.run()
      expect(first.sources).toMatchObject({ discovered: 1, accepted: 0, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      const before = fileState(m.index)
      expect(before.beside).toEqual([])
      // A write in the same clock tick would not move the mtime: wait past the file system's granularity.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 30)))
      const again = yield* m.run()
      expect(again.sources).toMatchObject({ discovered: 1, accepted: 0, unchanged: 0, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      expect(fileState(m.index)).toEqual(before)
      expect((yield* dumpIndex(m.index)).sources).toMatchObject([{ status: "rejected", event_count: 0, error_code: "MALFORMED_SOURCE" }])
    }))

  it.effect("rejected again with another error, the row says the new one; fixed, the source imports", () =>
    Effect.gen(function*() {
      const m = museRoot(50)
      const head = jsonl([metadata(1, m.ws, OTHER), ...lines(3)], "")
      m.write(OTHER, head + "{not json\n")
      yield* m.run()
      const errorOf = () => {
        const db = new Database(m.index, { readonly: true })
        try {
          return db.prepare("SELECT status, error_code, error_message FROM sources").all() as Array<{ status: string; error_code: string; error_message: string }>
        } finally {
          db.close()
        }
      }
      const [firstRow] = errorOf()
      m.write(OTHER, head + "[1, 2]\n" + "{not json\n")
      const again = yield* m.run()
      expect(again.sources).toMatchObject({ rejected: 1 })
      const [row] = errorOf()
      expect(row).toMatchObject({ status: "rejected", error_code: "MALFORMED_SOURCE" })
      expect(row.error_message).not.toBe(firstRow.error_message)
      m.write(OTHER, head + jsonl([end(10, OTHER)]))
      const fixed = yield* m.run()
      expect(fixed.sources).toMatchObject({ accepted: 1, rejected: 0 })
      expect((yield* dumpIndex(m.index)).sources).toMatchObject([{ status: "complete", error_code: null }])
    }))
})
