/**
 * An index that cannot grow (tester report after session 10): an import
 * under a file-size limit (`ulimit -f`, EFBIG: SQLite says SQLITE_FULL or
 * SQLITE_IOERR_WRITE) read as "cannot rollback - no transaction is active"
 * or "I/O error". It is `STORE_UNAVAILABLE` (exit 6, DESIGN.md "Errors"), its
 * message says the index file could not grow (file-size limit or full disk)
 * and names the file; the index stays consistent: the next import, without
 * the limit, converges to what an import from scratch holds.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { repoRoot, tempDir } from "../support/paths.js"

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

/** The CLI under a file-size limit of `kib` KiB (bash's `ulimit -f` counts 1024-byte blocks). */
const limited = (kib: number, args: ReadonlyArray<string>) => {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
  const r = spawnSync("bash", ["-c", `ulimit -f ${kib}; exec '${process.execPath}' '${nodePath.join(repoRoot, "bin", "session-ingest.mjs")}' ${quoted}`], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr }
}

describe("an index that cannot grow", () => {
  for (const kib of [64, 600]) {
    it(`file-size limit ${kib} KiB: STORE_UNAVAILABLE (exit 6) saying the index could not grow; the next import converges`, () => {
      const { dir, claude } = root()
      const index = nodePath.join(dir, "idx.db")
      const r = limited(kib, [...importArgs(dir, claude, index), "--json"])
      expect(r.signal).toBeNull()
      expect(r.code, r.stderr + r.stdout).toBe(6)
      const err = JSON.parse(r.stdout).error as { code: string; message: string; remediation: string; details: { file: string; reason: string } }
      expect(err.code).toBe("STORE_UNAVAILABLE")
      expect(err.message).toContain(index)
      expect(err.message).toMatch(/could not grow/)
      expect(err.message).toMatch(/file-size limit/)
      expect(err.message).not.toMatch(/rollback|no transaction/)
      expect(err.remediation).toMatch(/ulimit -f/)
      expect(err.details.reason).toBe("disk-full")
      const text = limited(kib, importArgs(dir, claude, index))
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
