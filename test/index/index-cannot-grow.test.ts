/**
 * An index that cannot grow (tester report after session 10): an import
 * under a file-size limit (`ulimit -f`, EFBIG: SQLite says SQLITE_FULL or
 * SQLITE_IOERR_WRITE) read as "cannot rollback - no transaction is active"
 * or "I/O error". It is `STORE_UNAVAILABLE` (exit 6, DESIGN.md "Errors"), its
 * message says the index file could not grow (file-size limit or full disk)
 * and names the file; the index stays consistent: the next import, without
 * the limit, converges to what an import from scratch holds.
 *
 * Any limit size, any phase (tester31c F1, F2): the write the limit refuses
 * may be of a file gone by the time the failure is told (SQLite's temporary
 * statement journal in /var/tmp, the index's `.new-…` file made before it is
 * linked into place, a rollback journal SQLite deleted when it rolled back):
 * at 4 and 8 KiB (the first page refused) the import said "I/O error ...
 * check the disk", between ~100 and ~200 KiB (the schema's creation) "cannot
 * rollback - no transaction is active" with a remedy about the file's owner.
 * Each names the limit, its bytes, and the remedy: raise it, run the same
 * command again.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { tmpfs } from "../support/tmpfs.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const root = (): { dir: string; claude: string } => {
  const dir = tempDir("si-cannot-grow-")
  const claude = nodePath.join(dir, "cr")
  fs.mkdirSync(nodePath.join(claude, "-w"), { recursive: true })
  for (let s = 0; s < 4; s++) {
    const sid = `4c4c4c4c-0000-4000-8000-00000000000${s}`
    const rows = Array.from({ length: 800 }, (_, i) =>
      JSON.stringify({ type: "user", sessionId: sid, uuid: `u${i}`, cwd: "/w", timestamp: `2026-05-0${s + 1}T00:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z`, message: { role: "user", content: `prompt ${i} word${i} ${"lorem ipsum ".repeat(20)}` } }))
    fs.writeFileSync(nodePath.join(claude, "-w", `${sid}.jsonl`), rows.join("\n") + "\n")
  }
  return { dir, claude }
}

const importArgs = (dir: string, claude: string, index: string) =>
  ["import", "--index", index, "--claude-root", claude, "--workspace", dir, "--muse-root", nodePath.join(dir, "none"), "--agents-root", nodePath.join(dir, "none")]

/**
 * The CLI under a file-size limit of `kib` KiB (bash's `ulimit -f` counts 1024-byte blocks). Run without blocking
 * the test's worker (the file's CLI runs take over a minute in all; a worker blocked that long misses vitest's RPC).
 */
const limited = (kib: number, args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
    const child = spawn("bash", ["-c", `ulimit -f ${kib}; exec '${process.execPath}' '${nodePath.join(repoRoot, "bin", "session-ingest.mjs")}' ${quoted}`], {
      env: { ...process.env, ...env },
      timeout: 60_000
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

/** What every refusal by the file-size limit of `kib` KiB says (`--json` error envelope). */
const expectLimitNamed = (kib: number, index: string, r: Awaited<ReturnType<typeof limited>>) => {
  expect(r.signal).toBeNull()
  expect(r.code, r.stderr + r.stdout).toBe(6)
  const err = JSON.parse(r.stdout).error as { code: string; message: string; remediation: string; details: Record<string, unknown> }
  expect(err.code).toBe("STORE_UNAVAILABLE")
  expect(err.message).toContain(index)
  expect(err.message).toContain(`could not grow: the file-size limit (\`ulimit -f\`, ${kib * 1024} bytes) was reached`)
  expect(err.message).not.toMatch(/cannot be read or written|cannot be opened or used|rollback|no transaction/)
  expect(err.remediation).toMatch(/^Raise the file-size limit \(`ulimit -f`/)
  expect(err.remediation).toContain("run the same command again")
  expect(err.remediation).not.toMatch(/Check that --index|Check the disk|Free space/)
  expect(err.details).toMatchObject({ file: index, reason: "disk-full", fileSizeLimit: kib * 1024 })
}

/** After a refused creation: no index yet (no file: exit 4; a file without its tables: exit 6), never a SQL error. */
const expectNoIndexYet = (index: string) => {
  const r = cli(["sessions", "--index", index], { env })
  expect([4, 6], r.stderr).toContain(r.code)
  expect(r.stderr).toContain(`There is no index at ${index} yet`)
}

describe("the file-size limit is named at any size, in any phase (tester31c F1, F2)", () => {
  // 4, 8: the first page of the index refused; 128-200: the schema's creation (a statement journal in /var/tmp).
  for (const kib of [4, 8, 128, 160, 200]) {
    it(`import into a fresh index under ${kib} KiB: the limit named with its bytes; no index yet; completed by a run without the limit`, async () => {
      const { dir, claude } = root()
      const index = nodePath.join(dir, "idx.db")
      expectLimitNamed(kib, index, await limited(kib, [...importArgs(dir, claude, index), "--json"]))
      expectNoIndexYet(index)
      expect([0, 8]).toContain(cli(importArgs(dir, claude, index), { env }).code)
      const list = JSON.parse(cli(["sessions", "--index", index, "--json"], { env }).stdout).data as Array<{ eventCount: number }>
      expect(list.map((s) => s.eventCount)).toEqual([800, 800, 800, 800])
    }, 120_000)
  }

  for (const kib of [4, 8, 128, 200]) {
    it(`index migrate of a fresh index under ${kib} KiB: the limit named with its bytes; no index yet; migrated by a run without the limit`, async () => {
      const dir = tempDir("si-cannot-grow-migrate-")
      const index = nodePath.join(dir, "idx.db")
      expectLimitNamed(kib, index, await limited(kib, ["index", "migrate", "--index", index, "--json"]))
      expectNoIndexYet(index)
      const again = cli(["index", "migrate", "--index", index], { env })
      expect(again.code, again.stderr).toBe(0)
      const list = cli(["sessions", "--index", index, "--json"], { env })
      expect(list.code, list.stderr).toBe(0)
      expect(JSON.parse(list.stdout).data).toEqual([])
    }, 120_000)
  }
})

describe("a limit that is set but not reached is not named", () => {
  it("import onto a full 256 KiB disk under `ulimit -f` of 1 GiB: the disk is full, not the file-size limit", async () => {
    const { dir, claude } = root()
    const index = nodePath.join(tmpfs("256k"), "idx.db")
    const r = await limited(1024 * 1024, [...importArgs(dir, claude, index), "--json"])
    expect(r.code, r.stderr + r.stdout).toBe(6)
    const err = JSON.parse(r.stdout).error as { message: string; remediation: string; details: Record<string, unknown> }
    expect(err.message).toContain(`${index} could not grow: the disk is full`)
    expect(err.message).not.toMatch(/file-size limit/)
    expect(err.remediation).toMatch(/^Free space on the disk/)
    expect(err.details).toMatchObject({ file: index, reason: "disk-full" })
    expect(err.details).not.toHaveProperty("fileSizeLimit")
  })
})

describe("an index that cannot grow", () => {
  for (const kib of [64, 600]) {
    it(`file-size limit ${kib} KiB: STORE_UNAVAILABLE (exit 6) saying the index could not grow; the next import converges`, async () => {
      const { dir, claude } = root()
      const index = nodePath.join(dir, "idx.db")
      expectLimitNamed(kib, index, await limited(kib, [...importArgs(dir, claude, index), "--json"]))
      const text = await limited(kib, importArgs(dir, claude, index))
      expect(text.code).toBe(6)
      expect(text.stderr).toMatch(/could not grow/)
      // without the limit: the import completes and the index holds what a fresh import holds
      const again = cli(importArgs(dir, claude, index), { env })
      expect([0, 8], again.stderr).toContain(again.code)
      const fresh = nodePath.join(dir, "fresh.db")
      expect([0, 8]).toContain(cli(importArgs(dir, claude, fresh), { env }).code)
      const list = (db: string) => (JSON.parse(cli(["sessions", "--index", db, "--json"], { env }).stdout).data as Array<{ sessionId: string; eventCount: number }>)
        .map((s) => [s.sessionId, s.eventCount]).sort()
      expect(list(index)).toEqual(list(fresh))
      expect(list(index)).toHaveLength(4)
      const hit = cli(["search", "word799", "--index", index, "--json"], { env })
      expect((JSON.parse(hit.stdout).data.hits as Array<unknown>).length).toBe(4)
    }, 180_000) // eight CLI runs
  }
})
