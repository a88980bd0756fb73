/**
 * `import --jobs N` with Muse Code logs that are titled (docs/providers.md, "Muse Code session titles"; docs/import.md):
 * a parse worker's answer carries the title its read reports, so a titled log is read by a worker like any other (no
 * fallback to the main thread: the bench's first import is 10,000 such logs), and the index holds the same titles
 * as with `--jobs 1`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { MIN_SOURCES_FOR_WORKERS, workerStats } from "../../src/layers/index/parse-pool.js"
import { end, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { importOnce } from "../support/index.js"
import { museWorkspace } from "../support/source-roots.js"

const idOf = (k: number) => `0f0f0f0f-0000-4000-8000-${String(k).padStart(12, "0")}`
const intake = (seq: number, prompt: string, stream: string) =>
  record(seq, "runtime.command_intake.received", { kind: "command_intake", record: { kind: "received", command: { kind: "turn_submit", prompt } } }, stream)

const titlesOf = (file: string): Record<string, string | null> => {
  const db = new Database(file, { readonly: true })
  try {
    const rows = db.prepare("SELECT session_id, title FROM sessions").all() as Array<{ session_id: string; title: string | null }>
    return Object.fromEntries(rows.map((r) => [r.session_id, r.title]))
  } finally {
    db.close()
  }
}

describe("import --jobs: titled Muse Code logs", () => {
  it.effect("workers read every titled log and carry its title: no fallback, the titles --jobs 1 writes", () =>
    Effect.gen(function*() {
      const { dir, ws, root, policy } = museWorkspace()
      const count = MIN_SOURCES_FOR_WORKERS + 6
      const want: Record<string, string | null> = {}
      for (let k = 0; k < count; k++) {
        const id = idOf(k)
        const p = path.join(root, "2026", "11", String(1 + (k % 5)).padStart(2, "0"), id, "session.jsonl")
        fs.mkdirSync(path.dirname(p), { recursive: true })
        // every third log has no prompt; the others a prompt over two lines, then a second one
        const prompts = k % 3 === 2 ? [] : [intake(2, `log ${k}:\n  fix   the tests`, id), intake(3, `log ${k} again`, id)]
        fs.writeFileSync(p, jsonl([metadata(1, ws, id), ...prompts, end(4, id)]))
        want[id] = k % 3 === 2 ? null : `log ${k}: fix the tests`
      }
      const plan = planFromPolicy(policy, { batchSize: 8 })
      const before = { ...workerStats }
      yield* importOnce(policy, path.join(dir, "one.db"), { ...plan, jobs: 1 })
      expect(workerStats).toEqual(before)
      const two = yield* importOnce(policy, path.join(dir, "two.db"), { ...plan, jobs: 2 })
      expect(two.sources.accepted).toBe(count)
      expect(workerStats.whole - before.whole).toBe(count)
      expect(workerStats.fallback - before.fallback).toBe(0)
      expect(titlesOf(path.join(dir, "one.db"))).toEqual(want)
      expect(titlesOf(path.join(dir, "two.db"))).toEqual(want)
    }), 120_000)
})
