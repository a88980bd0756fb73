/**
 * tester33a F7, tester34c F3 (sessions 34-35): a Claude Code session whose first prompt is 13.8 MB holding 300,000
 * caught passwords (`user<i> pass Zx<i>qW! mysql -pS3cr<i> `, tester33a's repro). Its redaction ran in synchronous
 * pieces of seconds each (~9 s of processor time in all), during which nothing else ran: a signal was acted on only
 * once the piece was over.
 * - `replay --out` told to stop (SIGTERM) while it redacts: exit 130, `INTERRUPTED`, nothing at `--out` (nor a
 *   temporary file beside it), having spent at most a fraction of the redaction's processor time after the signal
 *   (docs/cli-output.md: "ends the run within a fraction of a second, exit 130").
 * - `mcp` busy on `list_sessions` (its title may state a secret: the session read whole for its secrets), its client
 *   closing as the official SDK's stdio client does (`close()`: stdin ended, 2 s later SIGTERM, 2 s later SIGKILL):
 *   the server ends by itself (exit 130 on the SIGTERM), never by the SIGKILL, having spent at most a fraction of the
 *   redaction's processor time after the SIGTERM (docs/mcp.md: "a signal, a cancellation or the end of input is acted
 *   on within a fraction of a second of work"; tester33a: the server outlived its client).
 * The process is told to stop once it is busy: its processor time (`/proc/<pid>/stat`) past {@link BUSY_CPU_MS}, in
 * the redaction (start-up and reading the event take about a second of it). What it does after the signal is
 * measured in processor time, not wall time (the machine running the tests may be loaded): {@link AFTER_CPU_MS} is a
 * hang guard, far under the several seconds the unpaused redaction had left; a 120 s wall guard kills a hung process.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/paths.js"
import { importedClaudeIndex } from "./support/claude-import.js"

const SID = "15150000-0000-4000-8000-000000000001"

/** The index of one Claude Code session whose first prompt holds `n` caught passwords (tester33a's repro). */
const hugeIndex = (n: number): { dir: string; index: string; env: Record<string, string> } => {
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
  // (the import ends 0 or 8: the absent Muse agents root is partial coverage, as in test/mcp/long-run32.test.ts)
  const { dir, index, env } = importedClaudeIndex("si-huge35-", { [SID]: lines })
  return { dir, index, env }
}

/** The processor time (user + system, ms) process `pid` has used, or undefined once it is gone. */
const cpuMs = (pid: number): number | undefined => {
  let stat: string
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // the fields after the command's name (in parentheses, which may hold spaces): utime and stime are 14 and 15
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  if (f[0] === "Z") return undefined
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS
}
/** Clock ticks per second of `/proc/<pid>/stat`'s times (USER_HZ: 100 on Linux). */
const TICKS = 100

/** Processor time past which the process is busy redacting the prompt (its whole redaction takes ~9 s of it). */
const BUSY_CPU_MS = 3_000
/** The most processor time the process may use after it is told to stop (the hang guard; see the module doc). */
const AFTER_CPU_MS = 1_500

/**
 * `session-ingest args…` started, with: its exit (code, signal) and the last processor time read of it while it ran
 * (`/proc` polled every 20 ms); `busy()` resolves once its processor time passed {@link BUSY_CPU_MS}. A 120 s wall
 * guard SIGKILLs it.
 */
const start = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
  child.stdout.on("data", () => undefined)
  let lastCpu = 0
  const poll = setInterval(() => {
    const c = cpuMs(child.pid!)
    if (c !== undefined) lastCpu = c
  }, 20)
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      clearInterval(poll)
      clearTimeout(guard)
      resolve({ code, signal })
    }))
  const busy = async (): Promise<number> => {
    for (;;) {
      const c = cpuMs(child.pid!)
      if (c === undefined) throw new Error(`exited before it was busy: ${stderr}`)
      if (c >= BUSY_CPU_MS) return c
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return { child, exited, busy, stderr: () => stderr, lastCpu: () => lastCpu }
}

describe("a huge first prompt full of caught passwords: told to stop while it is redacted, the process stops (tester33a F7)", () => {
  const { dir, index, env } = hugeIndex(300_000)

  it("replay --out: SIGTERM while busy -> exit 130 with a fraction of a second of work after it, nothing at --out", async () => {
    const outDir = path.join(dir, "out")
    fs.mkdirSync(outDir)
    const p = start(["replay", SID.slice(0, 8), "--index", index, "--out", path.join(outDir, "r.html")], env)
    const at = await p.busy()
    p.child.kill("SIGTERM")
    const { code, signal } = await p.exited
    expect({ code, signal, stderr: p.stderr() }).toEqual({ code: 130, signal: null, stderr: expect.stringContaining("INTERRUPTED") })
    expect(p.lastCpu() - at).toBeLessThan(AFTER_CPU_MS)
    expect(fs.readdirSync(outDir)).toEqual([])
  }, 300_000)

  it("mcp busy on list_sessions, its client closing as the SDK's does (stdin ended, SIGTERM 2 s later): it ends by itself, promptly", async () => {
    const p = start(["mcp", "--index", index], env)
    const line = (m: unknown) => JSON.stringify(m) + "\n"
    p.child.stdin.write(
      line({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) +
        line({ jsonrpc: "2.0", method: "notifications/initialized" }) +
        line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_sessions", arguments: {} } })
    )
    await p.busy()
    // @modelcontextprotocol/sdk's StdioClientTransport.close(): stdin ended, then SIGTERM after 2 s, SIGKILL 2 s later
    p.child.stdin.end()
    await new Promise((r) => setTimeout(r, 2_000))
    const running = p.child.exitCode === null && p.child.signalCode === null
    const at = running ? p.lastCpu() : 0
    if (running) p.child.kill("SIGTERM")
    const { code, signal } = await p.exited
    // ended by itself: 0 (the answer written, then the end of input) or 130 (the SIGTERM), never killed
    expect({ signal, code: code === 0 || code === 130 ? "0 or 130" : code, stderr: p.stderr() }).toEqual({ signal: null, code: "0 or 130", stderr: expect.any(String) })
    if (running) expect(p.lastCpu() - at).toBeLessThan(AFTER_CPU_MS)
  }, 300_000)
})
