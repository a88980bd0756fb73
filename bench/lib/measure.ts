/**
 * Running one measurement in a child process: wall time around the child,
 * its peak RSS from `/usr/bin/time -f %M` (KiB; the child's own, not ours),
 * its stdout (or /dev/null for big outputs) and exit code.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"

export interface RunResult {
  /** Wall time of the child, ms. */
  readonly ms: number
  /** Peak RSS of the child, KiB (null when /usr/bin/time is missing). */
  readonly rssKiB: number | null
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const TIME = "/usr/bin/time"
const hasTime = fs.existsSync(TIME)
let seq = 0

/** Run `cmd args` in a child; `discardStdout` sends stdout to /dev/null (it is not read). */
export const run = (
  cmd: string,
  args: ReadonlyArray<string>,
  opts: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly discardStdout?: boolean } = {}
): Promise<RunResult> =>
  new Promise((resolve, reject) => {
    const rssFile = nodePath.join(os.tmpdir(), `bench-rss-${process.pid}-${seq++}`)
    const argv = hasTime ? [TIME, "-f", "%M", "-o", rssFile, cmd, ...args] : [cmd, ...args]
    const devnull = opts.discardStdout === true ? fs.openSync("/dev/null", "w") : undefined
    const t0 = process.hrtime.bigint()
    const child = spawn(argv[0], argv.slice(1), {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ["ignore", devnull ?? "pipe", "pipe"]
    })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout?.on("data", (b: Buffer) => out.push(b))
    child.stderr?.on("data", (b: Buffer) => err.push(b))
    child.on("error", reject)
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6
      if (devnull !== undefined) fs.closeSync(devnull)
      let rssKiB: number | null = null
      if (hasTime) {
        try {
          const lines = fs.readFileSync(rssFile, "utf8").trim().split("\n")
          rssKiB = Number(lines[lines.length - 1])
          fs.rmSync(rssFile, { force: true })
        } catch {
          rssKiB = null
        }
      }
      resolve({ ms, rssKiB, code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })
    })
  })

/** The median of numbers (the lower middle of an even count is averaged with the upper). */
export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** The last line of a child's stdout, parsed as JSON (what floors and probes report). */
export const lastJson = (r: RunResult): Record<string, unknown> => {
  const lines = r.stdout.trim().split("\n")
  try {
    return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>
  } catch {
    throw new Error(`child printed no JSON report (exit ${r.code}): ${r.stderr.slice(0, 500)}`)
  }
}

/** Fail loudly when a child did not exit with one of `ok` codes. */
export const check = (what: string, r: RunResult, ok: ReadonlyArray<number> = [0]): RunResult => {
  if (r.code === null || !ok.includes(r.code)) {
    throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(0, 800)}${r.stdout.slice(0, 400)}`)
  }
  return r
}
