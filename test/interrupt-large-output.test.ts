/**
 * Ctrl-C / SIGTERM during a large output ends the run as interrupted (exit
 * 130, docs/cli-output.md "Exit codes": "at any moment once Node has started the CLI"),
 * soon, instead of being seen only once everything was written: the CLI's
 * fibers let the event loop in every few milliseconds (src/cli/scheduler.ts)
 * and the long loops of these outputs work in parts. With `--out`, nothing is
 * left at the path nor beside it. A liveness check (a generous bound), not a
 * timing benchmark.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { BIG_SESSION_ID, bigSessionIndex } from "./support/big-session.js"
import { repoRoot, tempDir } from "./support/paths.js"

const BIN = path.join(repoRoot, "bin", "session-ingest.mjs")

let index = ""
let log = ""
let claudeRoot = ""
beforeAll(() => {
  const b = bigSessionIndex(40_000)
  index = b.index
  log = b.file
  claudeRoot = b.root
}, 240_000)

/**
 * Run the CLI (stdout to a file), send `signal` once it has started writing
 * to stdout (a streamed output) or has worked for `after` ms (a whole
 * document, written at its end), and answer its exit code, how long after
 * the signal it ended, and its stderr.
 */
const interrupted = (args: ReadonlyArray<string>, signal: NodeJS.Signals, after = 1000, ready: () => boolean = () => false) =>
  new Promise<{ code: number | null; ms: number; stderr: string }>((resolve, reject) => {
    const stdout = path.join(tempDir(), "stdout")
    const out = fs.openSync(stdout, "w")
    const child = spawn(process.execPath, [BIN, ...args], { cwd: repoRoot, stdio: ["ignore", out, "pipe"] })
    fs.closeSync(out)
    let stderr = ""
    let sent = 0
    child.stderr?.on("data", (d) => (stderr += d))
    child.on("error", reject)
    const t0 = Date.now()
    const poll = setInterval(() => {
      if (sent === 0 && (Date.now() - t0 >= after || fs.statSync(stdout).size > 0 || ready())) {
        sent = Date.now()
        child.kill(signal)
      }
    }, 2)
    child.on("close", (code) => {
      clearInterval(poll)
      resolve({ code, ms: sent === 0 ? -1 : Date.now() - sent, stderr })
    })
  })

/**
 * How long `args` takes when left to its end (ms, exit 0 checked): a whole
 * document is signalled at half of it, so the signal lands while it works
 * however fast the command has become (the transcript of 40,000 events came
 * down to about a second, and a fixed 1,000 ms then landed after its end).
 */
const uninterruptedMs = (args: ReadonlyArray<string>) =>
  new Promise<number>((resolve, reject) => {
    const t0 = Date.now()
    const child = spawn(process.execPath, [BIN, ...args], { cwd: repoRoot, stdio: ["ignore", "ignore", "ignore"] })
    child.on("error", reject)
    child.on("close", (code) => code === 0 ? resolve(Date.now() - t0) : reject(new Error(`${args.join(" ")}: exit ${code}`)))
  })

const INTERRUPTED = /^session-ingest: INTERRUPTED: Interrupted; whatever was committed is consistent\.\n  remedy: Run the same command again to finish\.\n$/

describe("SIGINT / SIGTERM during a large output (a 40,000-event session): exit 130, soon", () => {
  const cases = (): Array<[ReadonlyArray<string>, NodeJS.Signals]> => [
    [["export", BIG_SESSION_ID, "--format", "atif", "--index", index], "SIGINT"],
    [["export", BIG_SESSION_ID, "--format", "atif", "--index", index], "SIGTERM"],
    [["export", BIG_SESSION_ID, "--format", "ndjson", "--index", index], "SIGINT"],
    [["show", BIG_SESSION_ID, "--format", "markdown", "--index", index], "SIGINT"],
    [["show", BIG_SESSION_ID, "--format", "events", "--index", index], "SIGTERM"],
    [["replay", BIG_SESSION_ID, "--index", index], "SIGTERM"],
    // the terminal closed (tester39 F12: Node's default action, exit 129, silent)
    [["export", BIG_SESSION_ID, "--format", "atif", "--index", index], "SIGHUP"],
    [["transcript", "claude-code", log, "--claude-root", claudeRoot], "SIGINT"],
    [["stream", "claude-code", log, "--claude-root", claudeRoot], "SIGINT"]
  ]

  it("each command: ended by the signal (not run to its end), exit 130 within a few seconds, the interrupted lines", async () => {
    for (const [args, signal] of cases()) {
      const whole = await uninterruptedMs(args)
      const r = await interrupted(args, signal, Math.min(1000, Math.floor(whole / 2)))
      expect({ args, signal, sent: r.ms >= 0 }).toEqual({ args, signal, sent: true })
      expect({ args, signal, code: r.code }).toEqual({ args, signal, code: 130 })
      expect({ args, signal, prompt: r.ms < 3000 }).toEqual({ args, signal, prompt: true })
      expect(r.stderr).toMatch(INTERRUPTED)
    }
  }, 300_000)

  it("export --out and replay --out: interrupted midway, nothing at the path nor beside it", async () => {
    // export --format ndjson --out (tester16 F1): its pages are few, heavy fiber steps (a page of rows read, decoded
    // and encoded, one synchronous write): the event loop got no turn in the whole export, so the signal was seen
    // only once the complete file was in place. Signalled once its temporary file holds bytes (it is writing).
    const cases = [["export", "atif", "SIGINT"], ["export", "atif", "SIGTERM"], ["replay", undefined, "SIGINT"], ["export", "ndjson", "SIGINT"], ["export", "ndjson", "SIGTERM"], ["export", "atif", "SIGHUP"]] as const
    for (const [command, format, signal] of cases) {
      const dir = tempDir()
      const out = path.join(dir, "t.out")
      const writing = () => fs.readdirSync(dir).some((f) => f.endsWith(".tmp") && fs.statSync(path.join(dir, f)).size > 0)
      const r = await interrupted([command, BIG_SESSION_ID, ...(format !== undefined ? ["--format", format] : []), "--out", out, "--index", index], signal, 1000, writing)
      expect({ command, format, sent: r.ms >= 0, code: r.code }).toEqual({ command, format, sent: true, code: 130 })
      expect(r.ms).toBeLessThan(3000)
      expect(fs.readdirSync(dir)).toEqual([])
    }
  }, 300_000)
})
