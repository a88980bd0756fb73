/**
 * An import killed (kill -9) while it created a new index (tester19 F10):
 * its stamp (`application_id`) was written into the file's first page, and
 * its rollback journal (`<index>-journal`, the database empty before) was
 * left hot. The next import rolls the journal back (an empty file) and must
 * stamp it again, so that every later command takes the file as the index
 * (docs/index.md: "Crash-safe: … a killed import leaves the index consistent and
 * the next run completes it"); before that, a read command names the killed
 * run's journal, not a read-only folder. A foreign database with a hot
 * journal is still refused, untouched (docs/index.md: "Never into someone else's
 * file").
 *
 * The killed state is built as SQLite leaves it (file format, section 4.1):
 * the stamped page 1 of 16 KiB, and a journal of one 512-byte sector
 * (magic, 0 records, initial size 0 pages, page size 16384) — the pair the
 * tester saved from a real kill.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import Sqlite from "better-sqlite3"
import { describe, expect, it } from "vitest"
import { createOwnedSqlite, INDEX_APPLICATION_ID, STATE_APPLICATION_ID } from "../../src/layers/owned-sqlite.js"
import { cli } from "../support/run.js"
import { applicationIdOf, isolatedEnv as env } from "../support/owned-file.js"
import { emptyFolder, fixturesDir, hashFile, repoRoot, tempDir } from "../support/paths.js"

/** A 512-byte hot journal of a transaction on a database of `initialPages` pages (16 KiB), holding no page. */
const emptyJournal = (initialPages: number) => {
  const j = Buffer.alloc(512)
  Buffer.from("d9d505f920a163d7", "hex").copy(j, 0)
  j.writeUInt32BE(0, 8) // records
  j.writeUInt32BE(0x232c468a, 12) // nonce
  j.writeUInt32BE(initialPages, 16)
  j.writeUInt32BE(512, 20) // sector size
  j.writeUInt32BE(16384, 24) // page size
  return j
}

/** `file`, a database of one 16 KiB page stamped `applicationId` (and `table`, if given), with `journal` beside it. */
const killedState = (file: string, applicationId: number, journal: Buffer, table = false) => {
  const db = new Sqlite(file)
  db.pragma("page_size = 16384")
  db.pragma(`application_id = ${applicationId}`)
  if (table) db.exec("CREATE TABLE t (x)")
  db.close()
  fs.writeFileSync(`${file}-journal`, journal)
}

/**
 * Each read command on `index` (an index whose creation stopped before its tables: docs/index.md, "Never into
 * someone else's file") says there is no index yet and to run the import, never "no such table" nor "made before
 * search existed"; then the import completes it (the 8 sessions of the Claude Code fixtures).
 */
const readsAsHalfCreatedThenImports = (dir: string, index: string, reads: ReadonlyArray<ReadonlyArray<string>>) => {
  for (const read of reads) {
    const r = cli([...read, "--index", index], { env: env(dir) })
    expect(r.code, read[0]).toBe(6)
    expect(r.stderr, read[0]).toContain(`There is no index at ${index} yet: an import was stopped while it created it`)
    expect(r.stderr, read[0]).toContain(`session-ingest import --index ${index}`)
    expect(r.stderr, read[0]).not.toContain("no such table")
    expect(r.stderr, read[0]).not.toContain("before search existed")
  }
  const imp = ["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)]
  expect(cli(imp, { env: env(dir) }).stdout).toContain("added:    8 sessions")
  const after = cli(["sessions", "--index", index, "--json"], { env: env(dir) })
  expect(JSON.parse(after.stdout).data).toHaveLength(8)
}

describe("an import killed while it created the index (tester19 F10)", () => {
  it("the next import rolls the journal back, stamps the file and completes it; every command then reads it", () => {
    const dir = tempDir("si-killed-create-")
    const index = path.join(dir, "km.db")
    killedState(index, INDEX_APPLICATION_ID, emptyJournal(0))
    const imp = ["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)]

    // Before the rerun: a read names the killed run's journal and the import that recovers it.
    const before = cli(["sessions", "--index", index], { env: env(dir) })
    expect(before.code).toBe(6)
    expect(before.stderr).toContain(`${index}-journal`)
    expect(before.stderr).toContain("killed")
    expect(before.stderr).not.toContain("read-only")

    const first = cli(imp, { env: env(dir) })
    expect(first.stderr).not.toContain("STORE_UNAVAILABLE")
    expect(first.stdout).toContain("added:    8 sessions")
    expect(fs.existsSync(`${index}-journal`)).toBe(false)
    expect(applicationIdOf(index)).toBe(INDEX_APPLICATION_ID)

    const sessions = cli(["sessions", "--index", index, "--json"], { env: env(dir) })
    expect(sessions.code).toBe(0)
    expect(JSON.parse(sessions.stdout).data).toHaveLength(8)
    const again = cli(imp, { env: env(dir) })
    expect(again.stderr).not.toContain("STORE_UNAVAILABLE")
    expect(again.stdout).toContain("0 imported, 6 unchanged")
  })

  it("killed after the file was made and stamped, before its tables (no journal left): read commands say so; the next import completes it (tester20 F5)", () => {
    const dir = tempDir("si-killed-migrate-")
    const index = path.join(dir, "km.db")
    createOwnedSqlite(index, INDEX_APPLICATION_ID, 16384)
    expect(fs.existsSync(`${index}-journal`)).toBe(false)
    readsAsHalfCreatedThenImports(dir, index, [["sessions"], ["usage"], ["search", "invoice"], ["show", "3f2b8c1e"]])
  })

  // tester31a F2: an import stopped by the file-size limit (EFBIG) in its first migration's transaction left the
  // migrator's own table, made and committed before it, empty: read commands said "no such table: sessions".
  it("stopped after the migrations' table was made, before any migration committed: read commands say so; the next import completes it (tester31a F2)", () => {
    const dir = tempDir("si-stopped-migrate-")
    const index = path.join(dir, "km.db")
    createOwnedSqlite(index, INDEX_APPLICATION_ID, 16384)
    const db = new Sqlite(index)
    // As @effect/sql's Migrator makes it before the first migration.
    db.exec(`CREATE TABLE "si_migrations" (migration_id integer PRIMARY KEY NOT NULL, created_at datetime NOT NULL DEFAULT current_timestamp, name VARCHAR(255) NOT NULL)`)
    db.close()
    readsAsHalfCreatedThenImports(dir, index, [["sessions"], ["usage"], ["search", "invoice"], ["show", "3f2b8c1e"], ["export", "3f2b8c1e"]])
  })

  it("an index whose migrations were recorded is read as an index, even with no session yet", () => {
    const dir = tempDir("si-empty-index-")
    const index = path.join(dir, "e.db")
    const imp = cli(["import", "--index", index, "--claude-root", emptyFolder(dir), "--agents-root", emptyFolder(dir)], { env: env(dir) })
    expect(imp.stderr).not.toContain("STORE_UNAVAILABLE")
    const r = cli(["sessions", "--index", index, "--json"], { env: env(dir) })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).data).toEqual([])
  })

  it("an index with a hot journal of a killed write: a read names the journal (not a read-only folder); the next import recovers it", () => {
    const dir = tempDir("si-killed-write-")
    const index = path.join(dir, "i.db")
    const imp = ["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)]
    expect(cli(imp, { env: env(dir) }).stdout).toContain("added:    8 sessions")
    // A process killed (SIGKILL) in a transaction whose pages spilled into the file: its journal is left hot.
    const killed = spawnSync(process.execPath, ["-e", `
      const db = new (require("better-sqlite3"))(${JSON.stringify(index)}); db.pragma("cache_size = 2"); db.exec("BEGIN; CREATE TABLE junk (x)")
      const st = db.prepare("INSERT INTO junk VALUES (?)"); for (let i = 0; i < 20000; i++) st.run("x".repeat(200))
      process.kill(process.pid, "SIGKILL")`], { cwd: repoRoot })
    expect(killed.signal).toBe("SIGKILL")
    expect(fs.statSync(`${index}-journal`).size).toBeGreaterThan(0)
    const before = cli(["sessions", "--index", index], { env: env(dir) })
    expect(before.code).toBe(6)
    expect(before.stderr).toContain(`cannot be read until the journal ${index}-journal, left by an import killed while it wrote, is rolled back`)
    expect(before.stderr).not.toContain("read-only")
    expect(cli(imp, { env: env(dir) }).stdout).toContain("0 imported, 6 unchanged")
    expect(fs.existsSync(`${index}-journal`)).toBe(false)
    const after = cli(["sessions", "--index", index, "--json"], { env: env(dir) })
    expect(JSON.parse(after.stdout).data).toHaveLength(8)
  })

  it("the same for a scan state killed while it was created", () => {
    const dir = tempDir("si-killed-state-")
    const state = path.join(dir, "state.db")
    killedState(state, STATE_APPLICATION_ID, emptyJournal(0))
    const args = ["discover", "agentmux", "--agent", "u1", "--store", path.join(fixturesDir, "agentmux", "filestore.db"), "--state", state]
    const r = cli(args, { env: env(dir) })
    expect(r.stderr).not.toContain("STORE_UNAVAILABLE")
    expect(applicationIdOf(state)).toBe(STATE_APPLICATION_ID)
    expect(cli(args, { env: env(dir) }).stderr).not.toContain("STORE_UNAVAILABLE")
  })

  it("a foreign database with a hot journal is still refused, and neither it nor its journal is touched", () => {
    const dir = tempDir("si-killed-foreign-")
    const imp = (index: string) =>
      cli(["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)], { env: env(dir) })
    // Another program creating its database (its id in the header, the file empty before).
    const creating = path.join(dir, "other.db")
    killedState(creating, 0x12345678, emptyJournal(0))
    // Another program mid-transaction on its database of one page.
    const theirs = path.join(dir, "theirs.db")
    killedState(theirs, 0x12345678, emptyJournal(1), true)
    for (const file of [creating, theirs]) {
      const hashes = [hashFile(file), hashFile(`${file}-journal`)]
      const r = imp(file)
      expect(r.code).toBe(6)
      expect(r.stderr).toContain("a SQLite database that session-ingest did not create")
      expect([hashFile(file), hashFile(`${file}-journal`)]).toEqual(hashes)
      expect(fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(file))).sort()).toEqual([path.basename(file), `${path.basename(file)}-journal`])
    }
  })
})
