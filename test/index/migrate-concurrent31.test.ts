/**
 * Two `index migrate` at once on one SQLite index (tester30c F6): one applies the migrations, the other waits for
 * it and applies none, and says so as a second run after it does (`… is at the current schema (version N); nothing
 * to apply`), not "applied …" too. Made to run at once: a write transaction held on the index while both start (each
 * waits for it, having read the index as it was), then let go.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import Database from "better-sqlite3"
import { describe, expect, it } from "vitest"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"

/** Whether process `pid` has `file` open (Linux `/proc`; undefined where there is none). */
const holds = (pid: number, file: string): boolean | undefined => {
  const dir = `/proc/${pid}/fd`
  if (!fs.existsSync("/proc/self/fd")) return undefined
  try {
    return fs.readdirSync(dir).some((fd) => {
      try {
        return fs.readlinkSync(path.join(dir, fd)) === file
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

const migrate = (file: string) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "index", "migrate", "--index", file], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = "", stderr = ""
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })))
  return { pid: child.pid!, done }
}

describe("index migrate twice at once on one SQLite index (tester30c F6)", () => {
  it("one says it applied the migrations, the other that there was nothing to apply", async () => {
    const file = path.join(tempDir("si-migrate-race31-"), "index.db")
    fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(fixturesDir, "index-base29", "index.db.gz"))))
    const holder = new Database(file)
    holder.pragma("journal_mode = WAL")
    holder.exec("BEGIN IMMEDIATE")
    const runs = [migrate(file), migrate(file)]
    // both started and opened the index (each waits for the held transaction); where /proc is missing, a while
    for (let waited = 0; waited < 20_000; waited += 100) {
      const open = runs.map((r) => holds(r.pid, file))
      if (open.includes(undefined) ? waited >= 8_000 : open.every((o) => o === true)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    await new Promise((r) => setTimeout(r, 300))
    holder.exec("COMMIT")
    holder.close()
    const results = await Promise.all(runs.map((r) => r.done))
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const lines = results.map((r) => r.stdout.trim()).sort()
    expect(lines).toEqual([
      `${file} is at the current schema (version 15); nothing to apply`,
      `migrated ${file}: applied 0012_search_folded, 0013_search_marks, 0014_search_syllables, 0015_usage_speed; schema version 15`
    ].sort())
    // and the migrations are in the index once each
    const db = new Database(file, { readonly: true })
    try {
      expect(db.prepare("SELECT migration_id FROM si_migrations WHERE migration_id >= 12 ORDER BY 1").all()).toEqual([{ migration_id: 12 }, { migration_id: 13 }, { migration_id: 14 }, { migration_id: 15 }])
    } finally {
      db.close()
    }
  }, 90_000)
})
