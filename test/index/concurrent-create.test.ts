/**
 * Concurrent first imports into a NEW index (docs/index.md "Idempotent"): the runs
 * serialize on creating and migrating the index, so each exits 0 (or, at
 * worst, with the documented "locked by another process" error), never with
 * a half-created schema (`no such table`), and the index then holds what a
 * single import makes.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"

const importAsync = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], { cwd: repoRoot })
    let stdout = "", stderr = ""
    p.stdout.on("data", (d) => (stdout += d))
    p.stderr.on("data", (d) => (stderr += d))
    p.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const view = (index: string) => {
  const r = cli(["sessions", "--index", index, "--json"])
  expect(r.code, r.stderr).toBe(0)
  const data = JSON.parse(r.stdout).data
  const rows: Array<Record<string, unknown>> = Array.isArray(data) ? data : data.sessions
  return rows
    .map(({ generation: _g, importedAt: _i, ...row }) => row)
    .sort((a, b) => String(a.sessionUid).localeCompare(String(b.sessionUid)))
}

describe("concurrent first imports into a new index", () => {
  it("serialize on creating the index: all exit 0 (or locked), with a single import's content", async () => {
    const dir = tempDir()
    const root = path.join(dir, "projects")
    fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), root, { recursive: true })
    const single = path.join(dir, "single.db")
    expect(cli(["import", "--claude-root", root, "--index", single, "--json"]).code).toBe(0)
    for (let trial = 0; trial < 3; trial++) {
      const index = path.join(dir, `c${trial}.db`)
      const runs = await Promise.all([1, 2, 3].map(() => importAsync(["import", "--claude-root", root, "--index", index, "--json"])))
      for (const r of runs) {
        expect(r.stderr).not.toMatch(/no such table/)
        if (r.code !== 0) {
          expect(r.code, r.stderr + r.stdout).toBe(6)
          expect(r.stdout + r.stderr).toMatch(/locked by another process/)
        }
      }
      expect(runs.some((r) => r.code === 0)).toBe(true)
      expect(view(index)).toEqual(view(single))
    }
  }, 120_000)
})
