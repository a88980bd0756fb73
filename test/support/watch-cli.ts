/**
 * `import --watch` through the CLI bundle, as the tests run it
 * (`test/index/watch-cli.test.ts`, the team index's outage in
 * `test/index/pg-outage-recovery.test.ts`): a Muse agents transcript to
 * append to, and the watch's rounds as it prints them.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { repoRoot, tempDir } from "./paths.js"

/** A Muse agents transcript line: a user message. */
export const item = (seq: number, text: string) =>
  JSON.stringify({ type: "item", seq, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2025-04-01T10:00:00Z" }) + "\n"

/** A Muse agents root with one transcript of `n` messages (and an empty Claude Code root); `args(index)`: an import of them. */
export const setup = (n: number) => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  const claude = path.join(dir, "claude") // an empty Claude Code root: nothing of the machine's own is watched
  fs.mkdirSync(path.join(root, "a1", "sessions"), { recursive: true })
  fs.mkdirSync(claude)
  const file = path.join(root, "a1", "sessions", "a1.jsonl")
  let text = JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"
  for (let i = 1; i <= n; i++) text += item(i, `message ${i}`)
  fs.writeFileSync(file, text)
  const args = (index: string) => ["import", "--index", index, "--agents-root", root, "--claude-root", claude, "--workspace", dir, "--json"]
  return { dir, root, file, args, index: path.join(dir, "index.db") }
}

/** A round as `import --watch --json` prints it. */
export interface Round {
  readonly round: number
  readonly scope: string
  readonly rssBytes: number
  readonly eventsAdded: number
  readonly unwatched: number
  readonly coverage: string
  /** The codes of the round's causes of partial coverage. */
  readonly causes: ReadonlyArray<string>
}

/** The CLI's `import --watch`, with its rounds as they are printed; `uid`: run as that user (and group), as root can. */
export const startWatch = (args: ReadonlyArray<string>, env: Record<string, string> = {}, uid?: number) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args, "--watch"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
    ...(uid !== undefined ? { uid, gid: uid } : {})
  })
  const rounds: Array<Round> = []
  const errors: Array<{ readonly code: string; readonly message: string }> = []
  let buffer = ""
  let stdout = ""
  child.stdout!.on("data", (b: Buffer) => {
    stdout += b.toString("utf8")
    buffer += b.toString("utf8")
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i)
      buffer = buffer.slice(i + 1)
      // Without --json a round is a line of text (kept in stdout()).
      if (!line.startsWith("{")) continue
      const e = JSON.parse(line)
      if (e.status === "ok") rounds.push({ round: e.data.round, scope: e.data.scope, rssBytes: e.data.rssBytes, eventsAdded: e.data.report.eventsAdded, unwatched: e.data.watching.unwatched, coverage: e.data.report.coverage, causes: e.data.report.causes.map((c: { code: string }) => c.code) })
      else errors.push(e.error)
    }
  })
  let stderr = ""
  child.stderr!.on("data", (b: Buffer) => (stderr += b.toString("utf8")))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { child, rounds, errors, exited, stderr: () => stderr, stdout: () => stdout }
}

/** Wait until `pred` holds (polled every 10 ms); fails after `ms`. */
export const until = (pred: () => boolean, ms = 30_000) =>
  Effect.promise(async () => {
    const t0 = Date.now()
    while (!pred()) {
      if (Date.now() - t0 > ms) throw new Error("timed out")
      await new Promise((r) => setTimeout(r, 10))
    }
  })

/** Signal the watch and answer its exit code. */
export const stop = (child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals = "SIGINT") =>
  Effect.promise(() => {
    child.kill(signal)
    return exited
  })

