/**
 * A SQLite index migrated by a newer session-ingest (a migration id this
 * build does not know in `si_migrations`) is not written: `import` and
 * `index migrate` fail `STORE_UNAVAILABLE` (exit 6) with `details.reason`
 * `schema-newer` and say to upgrade, as the PostgreSQL team index does
 * (docs/index.md "Migrations are explicit"); the file is left as it was. Reading
 * commands still read it (they write nothing).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"

const sid = "11111111-aaaa-4bbb-8ccc-000000000001"
const line = (text: string, uuid: string) =>
  JSON.stringify({ type: "user", sessionId: sid, cwd: "/tmp/p", uuid, parentUuid: null, timestamp: "2026-09-03T00:00:00Z", message: { role: "user", content: text } }) + "\n"

/** The index's schema, migrations and source rows (what a write would change). */
const contentOf = (index: string) => {
  const db = new Database(index, { readonly: true })
  try {
    return {
      schema: db.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY name").all(),
      migrations: db.prepare("SELECT * FROM si_migrations ORDER BY migration_id").all(),
      sources: db.prepare("SELECT * FROM sources ORDER BY source_key").all(),
      records: db.prepare("SELECT count(*) AS n FROM records").get()
    }
  } finally {
    db.close()
  }
}

/** A Claude Code root of one session, imported once into a new index: the import's arguments (`--json`). */
const importedOnce = () => {
  const dir = tempDir("si-newer-schema-")
  const root = nodePath.join(dir, "projects")
  const log = nodePath.join(root, "-tmp-p", `${sid}.jsonl`)
  fs.mkdirSync(nodePath.dirname(log), { recursive: true })
  fs.writeFileSync(log, line("first prompt", "u1"))
  const index = nodePath.join(dir, "index.db")
  const args = ["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--json"]
  expect([0, 8]).toContain(cli(args, { cwd: dir }).code)
  return { dir, log, index, args }
}

describe("a SQLite index of a newer schema", () => {
  it("import and index migrate refuse to write it (schema-newer, exit 6); sessions still reads it", () => {
    const { dir, log, index, args } = importedOnce()
    const db = new Database(index)
    const known = (db.prepare("SELECT max(migration_id) AS n FROM si_migrations").get() as { n: number }).n
    db.prepare("INSERT INTO si_migrations (migration_id, name) VALUES (?, ?)").run(known + 1, "from_a_newer_build")
    db.close()
    const before = contentOf(index)
    fs.appendFileSync(log, line("second prompt", "u2"))
    for (const run of [args, ["index", "migrate", "--index", index, "--json"]]) {
      const r = cli(run, { cwd: dir })
      expect(r.code, r.stderr).toBe(6)
      const err = JSON.parse(r.stdout.trim().split("\n").pop()!).error
      expect(err.code).toBe("STORE_UNAVAILABLE")
      expect(err.details.reason).toBe("schema-newer")
      expect(err.details.have).toBe(known + 1)
      expect(err.details.want).toBe(known)
      expect(err.message).toContain("newer")
      expect(err.remediation ?? err.remedy).toMatch(/[Uu]pgrade session-ingest/)
    }
    expect(contentOf(index)).toEqual(before)
    // Each read command reads it, and says once on stderr that it is newer (tester15 F11: they said nothing):
    // what it shows may leave out what the newer build added; stdout stays the command's own answer.
    const note = `session-ingest: note: the index ${index} has schema version ${known + 1}, newer than this session-ingest knows (${known})`
    for (const read of [["sessions"], ["search", "prompt"], ["show", sid], ["usage"]]) {
      for (const json of [["--json"], []]) {
        const r = cli([...read, "--index", index, ...json], { cwd: dir })
        const what = `${read.join(" ")} ${json.join(" ")}: ${r.stderr}`
        expect(r.code, what).toBe(0)
        expect(r.stdout, what).not.toContain("newer than this")
        expect(r.stderr.split(note).length - 1, what).toBe(1)
        expect(r.stderr, what).toMatch(/[Uu]pgrade session-ingest/)
      }
    }
    expect(cli(["sessions", "--index", index, "--json"], { cwd: dir }).stdout).toContain(sid)
    expect(contentOf(index)).toEqual(before)
  })

  it("an index at this build's schema: read commands say nothing of its schema", () => {
    const { dir, index } = importedOnce()
    const r = cli(["sessions", "--index", index], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain("schema version")
  })
})
