/**
 * A source imported before and rejected since (its append torn, its file
 * rewritten and broken, emptied): every later run reads it again (so that a
 * fixed file imports), and when it is rejected again the same way the run
 * writes nothing (tester14's leftover: each run began an attempt, maybe a
 * generation, and rolled them back, rewriting the source's `updated_at`).
 * An unchanged run leaves the index as it was: every column of `sources` and
 * `generations` (times included), and for SQLite the file's bytes and mtime.
 * Another error is written; a fixed file imports.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { end, filler, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { importOnce } from "../support/index.js"
import { engines, pgQuery } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { museWorkspace } from "../support/source-roots.js"

const SID = "0e0e0e0e-0000-4000-8000-000000000001"

const lines = (n: number, from = 2) =>
  Array.from({ length: n }, (_, i) => record(from + i, "runtime.session", { event: { kind: "started", prompt: `step ${from + i} ${"x".repeat(2000)}` } }, SID))

/** Every row of `sources` and `generations`, every column (times too), as the engine stores them. */
const rowsOf = (target: string) =>
  Effect.promise(async () => {
    if (/^postgres(ql)?:/.test(target)) {
      return {
        sources: await pgQuery(target, "SELECT * FROM sources ORDER BY source_key"),
        generations: await pgQuery(target, "SELECT * FROM generations ORDER BY source_key, generation")
      }
    }
    const db = new Database(target, { readonly: true })
    try {
      return {
        sources: db.prepare("SELECT * FROM sources ORDER BY source_key").all(),
        generations: db.prepare("SELECT * FROM generations ORDER BY source_key, generation").all()
      }
    } finally {
      db.close()
    }
  })

/** A SQLite index file's bytes and mtime (null for PostgreSQL). */
const fileOf = (target: string) =>
  /^postgres(ql)?:/.test(target)
    ? null
    : { digest: createHash("sha256").update(fs.readFileSync(target)).digest("hex"), mtimeMs: fs.statSync(target).mtimeMs }

const setup = (index: string) => {
  const { ws, root, policy } = museWorkspace()
  const plan = planFromPolicy(policy, { batchSize: 50 })
  const log = path.join(root, "2026", "10", "04", SID, "session.jsonl")
  fs.mkdirSync(path.dirname(log), { recursive: true })
  const head = jsonl([metadata(1, ws, SID), ...lines(3)])
  fs.writeFileSync(log, head)
  return { ws, log, head, run: () => importOnce(policy, index, plan) }
}

/** Past the file system's time granularity, so that a write would move an mtime or a time column. */
const tick = Effect.promise(() => new Promise((r) => setTimeout(r, 30)))

describe.each(engines)("($engine) a source rejected after it was imported, read again unchanged", ({ newIndex }) => {
  const breakages: ReadonlyArray<{ readonly name: string; readonly code: string; readonly apply: (s: ReturnType<typeof setup>) => void }> = [
    // 200 records of ~2 KiB, then a torn line: read from the cursor, some batches of 50 committed before the failure.
    { name: "an append torn after many records", code: "MALFORMED_SOURCE", apply: (s) => fs.appendFileSync(s.log, jsonl(lines(200, 5)) + "{torn json\n") },
    // Another first record (a new generation would begin), broken further on.
    {
      name: "rewritten and broken",
      code: "MALFORMED_SOURCE",
      apply: (s) => fs.writeFileSync(s.log, jsonl([metadata(1, s.ws, SID), filler(2, SID), ...lines(60, 3)]).replace("step 3", "STEP 3") + "{bad\n")
    },
    // Emptied: kept as it was, reported SOURCE_EMPTIED.
    { name: "emptied", code: "SOURCE_EMPTIED", apply: (s) => fs.writeFileSync(s.log, "") },
    // Re-saved as UTF-16 (Windows PowerShell's `>`; tester23a F2): the same session in bytes the reader does not
    // decode, kept as it was, reported SOURCE_NOT_UTF8 (not superseded as "no longer listed by discovery").
    {
      name: "re-saved as UTF-16",
      code: "SOURCE_NOT_UTF8",
      apply: (s) => fs.writeFileSync(s.log, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s.head, "utf16le")]))
    }
  ]
  /** The breakages that keep what was imported as it was (reported as a cause, not a rejected source). */
  const kept = new Set(["SOURCE_EMPTIED", "SOURCE_NOT_UTF8"])

  for (const b of breakages) {
    it.effect(`${b.name}: rejected again with ${b.code}, nothing written; fixed, it imports`, () =>
      Effect.gen(function*() {
        const index = yield* newIndex(tempDir())
        const s = setup(index)
        const first = yield* s.run()
        expect([first.sessionsAdded, first.eventsAdded]).toEqual([1, 4])
        b.apply(s)
        const broken = yield* s.run()
        expect(broken.sources).toMatchObject({ accepted: 0, rejected: kept.has(b.code) ? 0 : 1, superseded: 0 })
        expect(broken.causes.map((c) => c.code).concat(broken.rejected.map((r) => r.code))).toContain(b.code)
        const rows = yield* rowsOf(index)
        const file = fileOf(index)
        yield* tick
        for (const round of [1, 2]) {
          const again = yield* s.run()
          expect(again.sources, `round ${round}`).toMatchObject({ accepted: 0, unchanged: 0, rejected: broken.sources.rejected })
          expect(again.causes.map((c) => c.code).concat(again.rejected.map((r) => r.code)), `round ${round}`).toContain(b.code)
          expect(again.eventsAdded).toBe(0)
          expect(yield* rowsOf(index), `round ${round}`).toEqual(rows)
          expect(fileOf(index), `round ${round}`).toEqual(file)
        }
        // Fixed by the writer: the whole log (the first 3 records, 60 more, an end) imports.
        fs.writeFileSync(s.log, s.head + jsonl([...lines(60, 5), end(70, SID)]))
        const fixed = yield* s.run()
        expect(fixed.sources).toMatchObject({ accepted: 1, rejected: 0 })
        expect(fixed.eventsAdded).toBe(61)
      }))
  }

  it.effect("rejected again with another error: the row says the new one", () =>
    Effect.gen(function*() {
      const index = yield* newIndex(tempDir())
      const s = setup(index)
      yield* s.run()
      fs.appendFileSync(s.log, "{torn json\n")
      const broken = yield* s.run()
      expect(broken.rejected.map((r) => r.code)).toEqual(["MALFORMED_SOURCE"])
      const before = (yield* rowsOf(index)).sources as Array<{ error_message: string }>
      fs.writeFileSync(s.log, s.head + "[1, 2]\n")
      const again = yield* s.run()
      expect(again.rejected.map((r) => r.code)).toEqual(["MALFORMED_SOURCE"])
      const after = (yield* rowsOf(index)).sources as Array<{ error_message: string }>
      expect(after[0].error_message).not.toBe(before[0].error_message)
      expect(after[0].error_message).toBe(again.rejected[0].message)
    }))
})
