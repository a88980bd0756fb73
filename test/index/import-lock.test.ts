/**
 * Two `session-ingest import` processes on the same SQLite index at the same
 * time (finding F9 of session 13): the reports must be true. A run takes the
 * index's import lock (`<index>.lock`, a file beside it: nothing is written
 * to the index) at its first write; a second run with something to write
 * waits for it (saying so on stderr) or, if it read before the first one's
 * commit, starts again holding it, and finds the first one's sources
 * unchanged: every source is reported imported once in all. A killed holder
 * (kill -9) leaves a lock whose process is gone: the next import takes it
 * over. A run with nothing to write takes no lock (never waits, writes
 * nothing). A live holder that outlasts the wait
 * (`SESSION_INGEST_IMPORT_WAIT_SECONDS`) fails the import
 * `STORE_UNAVAILABLE` (exit 6) naming it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { repoRoot, tempDir } from "../support/paths.js"

const bin = path.join(repoRoot, "bin", "session-ingest.mjs")

/** No Claude Code root of the machine's own is read (the default one, missing under a temporary HOME, is not partial). */
const home = tempDir("si-lock-home-")
const baseEnv = { NO_COLOR: "1", HOME: home, CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }

const importAsync = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const p = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: { ...process.env, ...baseEnv, ...env } })
  let stdout = "", stderr = ""
  p.stdout.on("data", (d) => (stdout += d))
  p.stderr.on("data", (d) => (stderr += d))
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    p.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  return { child: p, done }
}

/** A Muse agents root of `n` agents, each with one transcript of `items` messages. */
const agentsRoot = (dir: string, n: number, items: number) => {
  const root = path.join(dir, "agents")
  for (let a = 0; a < n; a++) {
    const id = `agent${a}`
    fs.mkdirSync(path.join(root, id, "sessions"), { recursive: true })
    let text = JSON.stringify({ type: "session_header", session_id: `s-${a}`, agent_id: id, created_at: "2025-04-01T10:00:00Z" }) + "\n"
    for (let i = 1; i <= items; i++) {
      text += JSON.stringify({
        type: "item",
        seq: i,
        source: "runtime",
        item: { type: "message", role: i % 2 ? "user" : "assistant", text: `message ${i} of ${a} ${"x".repeat(200)}` },
        created_at: "2025-04-01T10:00:01Z"
      }) + "\n"
    }
    fs.writeFileSync(path.join(root, id, "sessions", `${id}.jsonl`), text)
  }
  return root
}

const sourcesOf = (stdout: string) => JSON.parse(stdout).data.sources as { accepted: number; unchanged: number; discovered: number }

/** The lock file's holder, undefined when there is none. */
const lockOf = (index: string): { pid: number; watch: boolean } | undefined => {
  try {
    return JSON.parse(fs.readFileSync(`${index}.lock`, "utf8"))
  } catch {
    return undefined
  }
}

/** The index file's bytes and modification time, and every file beside it. */
const fileState = (index: string) => ({
  digest: createHash("sha256").update(fs.readFileSync(index)).digest("hex"),
  mtimeMs: fs.statSync(index).mtimeMs,
  beside: fs.readdirSync(path.dirname(index)).filter((f) => f !== path.basename(index)).sort()
})

const waitFor = async (pred: () => boolean, ms: number) => {
  const t0 = Date.now()
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** A live process (as a long import would be), killed and reaped by `stop`. */
const sleeper = () => {
  const p: ChildProcess = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })
  return {
    pid: p.pid!,
    stop: async () => {
      if (p.exitCode !== null || p.signalCode !== null) return
      const gone = new Promise((resolve) => p.on("exit", resolve))
      p.kill("SIGKILL")
      await gone // reaped: no zombie that would still answer kill(pid, 0)
    }
  }
}

/** An import of 300 agents' transcripts into a new index, answered once it holds the lock (it is writing). */
const writing = async () => {
  const dir = tempDir("si-lock-")
  const root = agentsRoot(dir, 300, 40)
  const index = path.join(dir, "i.db")
  const args = ["import", "--agents-root", root, "--workspace", dir, "--index", index, "--json"]
  const first = importAsync(args)
  await waitFor(() => lockOf(index)?.pid === first.child.pid, 60_000)
  return { root, index, args, first }
}

describe("the import lock of a SQLite index (F9)", () => {
  it("two imports at the same time: the sources are reported imported once in all, the other run finds them unchanged", async () => {
    const dir = tempDir("si-lock-")
    const root = agentsRoot(dir, 200, 20)
    const index = path.join(dir, "idx", "i.db")
    const args = ["import", "--agents-root", root, "--workspace", dir, "--index", index, "--json"]
    const [a, b] = await Promise.all([importAsync(args).done, importAsync(args).done])
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    const sa = sourcesOf(a.stdout), sb = sourcesOf(b.stdout)
    expect(sa.discovered).toBe(200)
    expect(sb.discovered).toBe(200)
    // Each source imported by exactly one of the two runs; each run accounts for every source.
    expect(sa.accepted + sb.accepted).toBe(200)
    expect(sa.accepted + sa.unchanged).toBe(200)
    expect(sb.accepted + sb.unchanged).toBe(200)
    // No lock left behind, nothing else beside the index but what SQLite leaves (nothing once closed).
    expect(fileState(index).beside).toEqual([])
  }, 120_000)

  it("a second import started while the first writes reports 0 imported, every source unchanged", async () => {
    const { index, args, first } = await writing()
    const second = await importAsync(args).done
    const a = await first.done
    expect(a.code, a.stderr).toBe(0)
    expect(second.code, second.stderr).toBe(0)
    expect(sourcesOf(a.stdout).accepted).toBe(300)
    expect(sourcesOf(second.stdout)).toMatchObject({ accepted: 0, unchanged: 300 })
    // (Whether it waited, said on stderr, or started after the first's last commit depends on timing: the message of
    // a wait is checked with a holder that stays, below.)
    expect(lockOf(index)).toBeUndefined()
  }, 120_000)

  it("a killed import (kill -9) leaves a lock that is taken over by the next one; SIGTERM removes it", async () => {
    const { root, index, args, first } = await writing()
    first.child.kill("SIGKILL")
    await first.done
    expect(lockOf(index)?.pid).toBe(first.child.pid) // the dead process's lock is still there
    const next = cli(args, { env: { ...baseEnv, SESSION_INGEST_IMPORT_WAIT_SECONDS: "5" } })
    expect(next.code, next.stderr).toBe(0)
    expect(next.stderr).not.toMatch(/waiting/)
    const s = sourcesOf(next.stdout)
    expect(s.accepted + s.unchanged).toBe(300)
    expect(s.accepted).toBeGreaterThan(0)
    expect(lockOf(index)).toBeUndefined()
    expect(sourcesOf(cli(args, { env: baseEnv }).stdout).unchanged).toBe(300)

    // A run stopped by SIGTERM (exit 130) removes its lock.
    const dir2 = tempDir("si-lock-")
    const index2 = path.join(dir2, "i.db")
    const args2 = ["import", "--agents-root", root, "--workspace", dir2, "--index", index2, "--json"]
    const stopped = importAsync(args2)
    await waitFor(() => lockOf(index2)?.pid === stopped.child.pid, 60_000)
    stopped.child.kill("SIGTERM")
    const r = await stopped.done
    expect(r.code).toBe(130)
    expect(lockOf(index2)).toBeUndefined()
  }, 120_000)

  it("a run with nothing to write takes no lock: it does not wait for a live holder and writes nothing; one with something to write waits, then fails naming it", async () => {
    const dir = tempDir("si-lock-")
    const root = agentsRoot(dir, 3, 2)
    const index = path.join(dir, "i.db")
    const args = ["import", "--agents-root", root, "--workspace", dir, "--index", index, "--json"]
    expect(cli(args, { env: baseEnv }).code).toBe(0)
    const holder = sleeper()
    try {
      // A live `import --watch` holds the lock (taken after its process started: one started after `since` would be
      // another process with a reused pid, tester19 F4).
      const since = new Date().toISOString()
      fs.writeFileSync(`${index}.lock`, JSON.stringify({ pid: holder.pid, host: os.hostname(), since, watch: true }))
      const before = fileState(index)
      const unchanged = cli(args, { env: { ...baseEnv, SESSION_INGEST_IMPORT_WAIT_SECONDS: "600" } })
      expect(unchanged.code, unchanged.stderr).toBe(0)
      expect(sourcesOf(unchanged.stdout)).toMatchObject({ accepted: 0, unchanged: 3 })
      expect(unchanged.stderr).not.toMatch(/waiting/)
      expect(fileState(index)).toEqual(before)

      fs.appendFileSync(
        path.join(root, "agent0", "sessions", "agent0.jsonl"),
        JSON.stringify({ type: "item", seq: 9, source: "runtime", item: { type: "message", role: "user", text: "more" }, created_at: "2025-04-01T10:00:02Z" }) + "\n"
      )
      const r = cli(args, { env: { ...baseEnv, SESSION_INGEST_IMPORT_WAIT_SECONDS: "1" } })
      expect(r.code, r.stderr).toBe(6)
      expect(r.stderr).toContain(`an \`import --watch\` (pid ${holder.pid} on ${os.hostname()}, since ${since}) is writing to this index; waiting for it to finish`)
      const e = JSON.parse(r.stdout).error
      expect(e.code).toBe("STORE_UNAVAILABLE")
      expect(e.message).toContain(`pid ${holder.pid}`)
      expect(e.details).toMatchObject({ reason: "import-running", pid: holder.pid, watch: true })
      expect(r.stderr).not.toMatch(/\n\s+at /)
      expect(fileState(index).digest).toBe(before.digest)
    } finally {
      await holder.stop()
    }
    // The holder gone: the append is imported, its stale lock taken over and removed.
    const after = cli(args, { env: { ...baseEnv, SESSION_INGEST_IMPORT_WAIT_SECONDS: "5" } })
    expect(after.code, after.stderr).toBe(0)
    expect(sourcesOf(after.stdout).accepted).toBe(1)
    expect(lockOf(index)).toBeUndefined()
  }, 120_000)
})
