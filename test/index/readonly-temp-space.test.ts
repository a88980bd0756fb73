/**
 * The query commands open the index read-only and write nothing anywhere,
 * not even SQLite's temporary files (docs/index.md, "Read-only queries and temporary
 * space"): `show` and `export` of a session with a 20 MB message work with a
 * tiny file-size limit (`ulimit -f`, which binds root too) and with TMPDIR on
 * a full file system. A write failure on a read-only connection is told as
 * what it is, SQLite's temporary space (its folder and the variable that
 * moves it), never as the index's disk.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sqliteTempDir, storeFailureFields, type StoreRole } from "../../src/layers/store-failure.js"
import { emptyClaudeRoot, repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { tmpfs } from "../support/tmpfs.js"

const BIG = 20_000_000

/** Run `args` of the CLI under `sh` with the file-size limit `blocks` (of 1 KiB), stdout piped (pipes have no size limit). */
const limited = (blocks: number, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const r = spawnSync("sh", ["-c", `ulimit -f ${blocks} && exec "$@"`, "sh", process.execPath, path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

let dir = ""
let index = ""

beforeAll(() => {
  dir = tempDir("si-ro-temp-")
  const sessions = path.join(dir, "agents", "big", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(
    path.join(sessions, "big.jsonl"),
    [
      { type: "session_header", session_id: "sess-big", agent_id: "big", created_at: "2025-04-01T08:00:00Z" },
      { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "A".repeat(BIG) }, created_at: "2025-04-01T08:00:01Z" },
      { type: "item", seq: 2, source: "runtime", item: { type: "message", role: "assistant", text: "ok" }, created_at: "2025-04-01T08:00:02Z" }
    ].map((l) => JSON.stringify(l)).join("\n") + "\n"
  )
  index = path.join(dir, "idx.db")
  const r = cli(["import", "--agents-root", path.join(dir, "agents"), "--claude-root", emptyClaudeRoot(dir), "--index", index])
  expect(r.code, r.stderr).toBe(0)
}, 120_000)

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const READS = [
  ["show", "sess-big", "--format", "events"],
  ["show", "sess-big"],
  ["export", "sess-big", "--format", "ndjson"],
  ["export", "sess-big", "--format", "atif"]
] as const

describe("read-only commands need no temporary files", () => {
  it.each(READS.map((a) => [a.join(" "), a] as const))("%s of a 20 MB message under `ulimit -f 100`: answers in full, exit 0", (_, args) => {
    const r = limited(100, [...args, "--index", index])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
    expect(r.stdout.length).toBeGreaterThan(BIG)
  }, 120_000)

  it("show with TMPDIR and SQLITE_TMPDIR on a full file system: answers in full, exit 0", () => {
    const full = tmpfs("1m")
    try {
      fs.writeFileSync(path.join(full, "fill"), Buffer.alloc(2 * 1024 * 1024))
    } catch {
      // full, as meant
    }
    const r = cli(["show", "sess-big", "--index", index, "--format", "events"], { env: { TMPDIR: full, SQLITE_TMPDIR: full } })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.length).toBeGreaterThan(BIG)
  }, 120_000)
})

/** A script: the index read-only (as `push` reads it), temporary files forced back on, a sort that spills; prints the error. */
const spillScript = (file: string) => `
import * as Effect from "effect/Effect"
import { readonlySql } from ${JSON.stringify(path.join(repoRoot, "src", "layers", "index", "sqlite.ts"))}
const program = Effect.scoped(Effect.gen(function*() {
  const { sql, guard } = yield* readonlySql(${JSON.stringify(file)})
  yield* guard(sql.unsafe("PRAGMA temp_store = FILE"))
  return yield* Effect.flip(guard(sql.unsafe("SELECT n.i, r.* FROM (SELECT 1 AS i UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) n, records r ORDER BY random()")))
}))
Effect.runPromise(program).then((e) => process.stdout.write(JSON.stringify({ message: e.message, remediation: e.remediation, details: e.details })))
`

describe("a write failure on a read-only connection is told as temporary space", () => {
  it("a spilling sort under a file-size limit: names SQLite's temporary folder and SQLITE_TMPDIR, not the index's disk", () => {
    const tmp = tempDir("si-sqlite-tmp-")
    const r = spawnSync("sh", ["-c", `ulimit -f 100 && exec "$@"`, "sh", path.join(repoRoot, "node_modules", ".bin", "tsx"), "--eval", spillScript(index)], {
      encoding: "utf8",
      cwd: repoRoot,
      env: { ...process.env, SQLITE_TMPDIR: tmp },
      timeout: 60_000
    })
    expect(r.status, r.stderr).toBe(0)
    const e = JSON.parse(r.stdout) as { message: string; remediation: string; details: Record<string, unknown> }
    expect(e.details).toMatchObject({ reason: "temp-space", tempDir: tmp, file: index })
    expect(String(e.details.code)).toMatch(/^SQLITE_(FULL|IOERR)/)
    expect(e.message).toContain(tmp)
    expect(e.message).toContain("temporary")
    expect(e.remediation).toContain(tmp)
    expect(e.remediation).toContain("SQLITE_TMPDIR")
    expect(e.message + e.remediation).not.toContain(path.dirname(index) + " ")
    expect(e.remediation).not.toContain("--index")
    fs.rmSync(tmp, { recursive: true, force: true })
  }, 60_000)

  const role = (readsOnly: boolean): StoreRole => ({
    file: "/data/idx.db",
    label: "The index",
    option: "--index FILE",
    readOnlyRemedy: "(read-only remedy)",
    readsOnly
  })
  const err = (code: string) => Object.assign(new Error(`${code}: failed`), { code })

  it.each(["SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "ENOSPC", "EFBIG", "EDQUOT"])("%s on a read-only connection: temporary space; on a writing one: the index's disk", (code) => {
    const reader = storeFailureFields(role(true), err(code))
    expect(reader.details.reason).toBe("temp-space")
    expect(reader.message).toContain(sqliteTempDir())
    expect(reader.remediation).toContain("SQLITE_TMPDIR")
    expect(reader.remediation).not.toContain("/data")
    expect(reader.message).not.toMatch(/disk is full|I\/O error/)
    const writer = storeFailureFields(role(false), err(code))
    expect(writer.details.reason).not.toBe("temp-space")
    expect(writer.message + writer.remediation).toContain("/data")
  })

  it.each(["SQLITE_CORRUPT", "SQLITE_BUSY", "SQLITE_READONLY", "SQLITE_IOERR_READ"])("%s on a read-only connection: told as before (the index's own problem)", (code) => {
    expect(storeFailureFields(role(true), err(code))).toEqual(storeFailureFields(role(false), err(code)))
  })

  it("SQLite's temporary folder: SQLITE_TMPDIR, then TMPDIR, then /var/tmp, skipping what is missing", () => {
    const a = tempDir("si-a-")
    const b = tempDir("si-b-")
    expect(sqliteTempDir({ SQLITE_TMPDIR: a, TMPDIR: b })).toBe(a)
    expect(sqliteTempDir({ SQLITE_TMPDIR: path.join(a, "missing"), TMPDIR: b })).toBe(b)
    expect(sqliteTempDir({ TMPDIR: path.join(b, "missing") })).toBe(fs.existsSync("/var/tmp") ? "/var/tmp" : "/usr/tmp")
  })
})
