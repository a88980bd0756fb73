/**
 * tester33a F7 (session 34): a Claude Code session whose first prompt is 13.8 MB holding 300,000 caught passwords
 * (`user<i> pass Zx<i>qW! mysql -pS3cr<i> `, tester33a's repro). Its redaction ran in synchronous pieces of many
 * seconds each, so:
 * - `replay --out` busy on it did not stop on SIGTERM (docs/cli-output.md: exit 130 "at any moment"); now it exits
 *   130 within seconds and leaves nothing at `--out` (nor a temporary file beside it);
 * The deadlines are hang guards (generous on a loaded machine), not timings: before the fix each took well over a
 * minute of processor time.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const SID = "15150000-0000-4000-8000-000000000001"

/** The index of one Claude Code session whose first prompt holds `n` caught passwords (tester33a's repro). */
const hugeIndex = (n: number): { dir: string; index: string; env: Record<string, string> } => {
  const dir = tempDir("si-huge34-")
  const proj = path.join(dir, "claude", "-srv-h")
  fs.mkdirSync(proj, { recursive: true })
  const parts: Array<string> = []
  for (let i = 0; i < n; i++) parts.push(`user${i} pass Zx${String(i).padStart(5, "0")}qW! mysql -pS3cr${String(i).padStart(5, "0")} `)
  const prompt = "Fix the Deploy: password is Zx0001qWpA1 and token " + parts.join("")
  const base = { parentUuid: null, isSidechain: false, userType: "external", cwd: "/srv/h", sessionId: SID, version: "2" }
  const lines = [
    { ...base, uuid: "u-1", timestamp: "2026-11-30T13:00:00.000Z", type: "user", message: { role: "user", content: prompt } },
    {
      ...base, uuid: "a-1", timestamp: "2026-11-30T13:00:01.000Z", type: "assistant", requestId: "rq1",
      message: { model: "claude-sonnet-4-5-20250929", id: "m1", role: "assistant", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1, output_tokens: 1 } }
    }
  ]
  fs.writeFileSync(path.join(proj, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const index = path.join(dir, "i.db")
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude"), "--agents-root", path.join(dir, "none")], { env })
  // (8: the absent Muse agents root is partial coverage, as in test/mcp/long-run32.test.ts)
  expect([0, 8], r.stderr).toContain(r.code)
  return { dir, index, env }
}

/** `session-ingest args…` started; its exit (code, signal, when) as a promise; killed with SIGKILL 30 s after `arm()`. */
const start = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
  let stdout = ""
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
  let killer: NodeJS.Timeout | undefined
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => {
      clearTimeout(killer)
      resolve({ code, signal, at: Date.now() })
    }))
  return { child, exited, stderr: () => stderr, stdout: () => stdout, arm: () => (killer = setTimeout(() => child.kill("SIGKILL"), 30_000)) }
}

/**
 * How long the process is left to get busy on the prompt's redaction before it is told to stop (start-up and reading
 * the 13.8 MB event take a few seconds; before the fix, a SIGTERM at 12 s was acted on 94 s later).
 */
const BUSY_AFTER_MS = 12_000

describe("a huge first prompt full of caught passwords: replay told to stop while busy stops (tester33a F7)", () => {
  const { dir, index, env } = hugeIndex(300_000)

  it("replay --out: SIGTERM while busy -> exit 130 within seconds, nothing at --out", async () => {
    const outDir = path.join(dir, "out")
    fs.mkdirSync(outDir)
    const p = start(["replay", SID.slice(0, 8), "--index", index, "--out", path.join(outDir, "r.html")], env)
    await new Promise((r) => setTimeout(r, BUSY_AFTER_MS))
    // still busy (before the fix it ran for minutes)
    expect(p.child.exitCode).toBe(null)
    const sent = Date.now()
    p.child.kill("SIGTERM")
    p.arm()
    const { code, at } = await p.exited
    expect({ code, stderr: p.stderr() }).toEqual({ code: 130, stderr: expect.stringContaining("INTERRUPTED") })
    expect(at - sent).toBeLessThan(15_000)
    expect(fs.readdirSync(outDir)).toEqual([])
  }, 300_000)
})
