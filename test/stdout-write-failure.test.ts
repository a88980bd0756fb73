/**
 * Every command's stdout is written through one path that checks each
 * write (src/cli/output.ts, writeStdout): a stdout redirected to a file that
 * cannot take the whole output (the file-size limit of `ulimit -f`, a disk
 * that fills up midway) ends in `OUTPUT_WRITE_FAILED` on stderr with the
 * errno, exit 7 (README, exit codes), never in an output cut short with exit
 * 0. Whole documents (ATIF, Markdown, HTML, transcripts, every `--json`
 * envelope), streamed ones (NDJSON), and @effect/cli's own and the cached
 * help's output.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { BIG_SESSION_ID, bigSessionIndex, canMount } from "./support/big-session.js"
import { repoRoot, tempDir } from "./support/paths.js"
import { tmpfs } from "./support/tmpfs.js"

const BIN = path.join(repoRoot, "bin", "session-ingest.mjs")

/** Run the CLI with stdout redirected to `out` by a shell, under `ulimit -f blocks` (512-byte blocks) when given. */
const runTo = (args: ReadonlyArray<string>, out: string, blocks?: number) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; size: number }>((resolve, reject) => {
    const script = `${blocks !== undefined ? `ulimit -f ${blocks}; ` : ""}exec "$0" "$@" > "$SI_OUT"`
    // Spawned (not spawnSync): the test worker's event loop stays free while the CLI runs.
    const child = spawn("sh", ["-c", script, process.execPath, BIN, ...args], {
      cwd: repoRoot,
      env: { ...process.env, SI_OUT: out },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stderr, size: fs.statSync(out, { throwIfNoEntry: false })?.size ?? -1 }))
  })

let index = ""
let log = ""
let claudeRoot = ""
beforeAll(() => {
  const b = bigSessionIndex(2000)
  index = b.index
  log = b.file
  claudeRoot = b.root
}, 120_000)

/** The command kinds of the issue: whole documents, envelopes, streamed NDJSON, help and version. */
const commands = (): Array<ReadonlyArray<string>> => [
  ["export", BIG_SESSION_ID, "--format", "atif", "--index", index],
  ["export", BIG_SESSION_ID, "--format", "ndjson", "--index", index],
  ["export", BIG_SESSION_ID, "--json", "--index", index],
  ["export", BIG_SESSION_ID, "--format", "ndjson", "--json", "--index", index],
  ["show", BIG_SESSION_ID, "--format", "markdown", "--index", index],
  ["show", BIG_SESSION_ID, "--format", "events", "--index", index],
  ["show", BIG_SESSION_ID, "--json", "--index", index],
  ["replay", BIG_SESSION_ID, "--index", index],
  ["transcript", "claude-code", log, "--claude-root", claudeRoot],
  ["transcript", "claude-code", log, "--claude-root", claudeRoot, "--json"],
  ["stream", "claude-code", log, "--claude-root", claudeRoot],
  ["sessions", "--json", "--index", index],
  ["search", "rounding", "--json", "--index", index],
  ["search", "rounding", "--index", index],
  ["usage", "--index", index],
  ["--help"],
  ["export", "--help"]
]

/**
 * Each command run once with stdout to a file of its own (the whole output, exit code and size): a deterministic run
 * over a read-only index and log, so the cases below share it instead of running it again.
 */
const wholeRuns = new Map<string, ReturnType<typeof runTo>>()
const whole = (args: ReadonlyArray<string>) => {
  const key = JSON.stringify(args)
  let run = wholeRuns.get(key)
  if (run === undefined) {
    run = runTo(args, path.join(tempDir(), "whole"))
    wholeRuns.set(key, run)
  }
  return run
}

const FAILED = /^session-ingest: OUTPUT_WRITE_FAILED: Cannot write to standard output: ([^\n]+)\n  remedy: [^\n]+\n$/

describe("stdout that cannot take the whole output: OUTPUT_WRITE_FAILED, exit 7, naming the errno", () => {
  it("the file-size limit (ulimit -f): EFBIG, said as the file-size limit (not a full disk), the file stops at the limit", async () => {
    const dir = tempDir()
    for (const [i, args] of commands().entries()) {
      const all = await whole(args)
      expect({ args, code: all.code }).toEqual({ args, code: 0 })
      // The limit (512-byte blocks) is below the output's size, so that the write must fail; none for a small one.
      const blocks = all.size > 1024 ? Math.min(8, Math.floor(all.size / 512) - 1) : 0
      expect({ args, fits: all.size > blocks * 512 }).toEqual({ args, fits: true })
      const r = await runTo(args, path.join(dir, `cut-${i}`), blocks)
      expect({ args, code: r.code, signal: r.signal }).toEqual({ args, code: 7, signal: null })
      expect({ args, stderr: r.stderr }).toEqual({ args, stderr: expect.stringMatching(FAILED) })
      expect(r.stderr).toMatch(/the file-size limit was reached \(EFBIG/)
      expect(r.stderr).not.toMatch(/disk is full/)
      expect(r.stderr).toMatch(/ulimit -f/)
      expect(r.size).toBe(blocks * 512)
    }
  }, 300_000)

  it("--version under a limit of no block is no exception", async () => {
    const dir = tempDir()
    const r = await runTo(["--version"], path.join(dir, "v"), 0)
    expect(r.code).toBe(7)
    expect(r.stderr).toMatch(FAILED)
    expect(r.stderr).toMatch(/EFBIG/)
  })

  it("a disk that fills up midway (a tmpfs): ENOSPC, the disk is full, for every command kind", async () => {
    expect(canMount()).toBe(true)
    for (const args of commands()) {
      const all = await whole(args)
      expect(all.code).toBe(0)
      // A disk with room for part of the output only (a tmpfs holds whole 4 KiB pages).
      const disk = tmpfs(all.size > 64 * 1024 ? "48k" : "4k")
      // A small output: the disk's one page taken already.
      if (all.size <= 64 * 1024) fs.writeFileSync(path.join(disk, "pad"), "x")
      const r = await runTo(args, path.join(disk, "o"))
      expect({ args, code: r.code }).toEqual({ args, code: 7 })
      expect(r.stderr).toMatch(FAILED)
      expect(r.stderr).toMatch(/the disk is full \(ENOSPC/)
      expect(r.size).toBeLessThan(all.size)
    }
  }, 300_000)

  it("export --out under the file-size limit: EFBIG said as the limit, nothing left at the path nor beside it", () => {
    const dir = tempDir()
    const out = path.join(dir, "out")
    fs.mkdirSync(out)
    const script = `ulimit -f 4; exec "$0" "$@"`
    const r = spawnSync("sh", ["-c", script, process.execPath, BIN, "export", BIG_SESSION_ID, "--out", path.join(out, "t.json"), "--index", index], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    expect(r.status).toBe(7)
    expect(r.stderr).toMatch(/^session-ingest: OUTPUT_WRITE_FAILED: Cannot write [^\n]*t\.json: the file-size limit was reached \(EFBIG/)
    expect(fs.readdirSync(out)).toEqual([])
  })

  it("stdout open read-only (1<file): EBADF, exit 7", () => {
    const dir = tempDir()
    const file = path.join(dir, "ro")
    fs.writeFileSync(file, "")
    const fd = fs.openSync(file, "r")
    try {
      const r = spawnSync(process.execPath, [BIN, "sessions", "--json", "--index", index], { cwd: repoRoot, stdio: ["ignore", fd, "pipe"], encoding: "utf8" })
      expect(r.status).toBe(7)
      expect(r.stderr).toMatch(FAILED)
      expect(r.stderr).toMatch(/EBADF/)
    } finally {
      fs.closeSync(fd)
    }
  })

  it("a pipe whose reader goes away (| head) still ends quietly, exit 0", async () => {
    const child = spawn(process.execPath, [BIN, "export", BIG_SESSION_ID, "--index", index], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    child.stdout.once("data", () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)))
    expect(code).toBe(0)
    expect(stderr).toBe("")
  })
})
