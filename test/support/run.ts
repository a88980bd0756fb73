/** Helpers to run library effects and the CLI in tests. */
import { spawn, spawnSync, type StdioOptions } from "node:child_process"
import * as path from "node:path"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { repoRoot } from "./paths.js"

/** Collect a stream into an array. */
export const collect = <A, E, R>(s: Stream.Stream<A, E, R>): Effect.Effect<Array<A>, E, R> =>
  Effect.map(Stream.runCollect(s), Chunk.toArray)

/**
 * Run the CLI as users do (`bin/session-ingest.mjs`, the bundle built by the
 * global setup) and capture its output; `uid`: as that user (and group), when
 * the tests run as root.
 */
export const cli = (args: ReadonlyArray<string>, options: { cwd?: string; env?: Record<string, string>; uid?: number } = {}) => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 1024 * 1024 * 1024,
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {})
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/**
 * {@link cli} without blocking the test worker: the CLI runs as a child process the test awaits, so the worker's
 * event loop stays free (a file of many synchronous spawns blocks vitest's worker RPC, whose 60 s timeout then fails
 * the run with "Timeout calling onTaskUpdate"). Same result shape; `stdout` given: the child's standard output (a
 * file descriptor, e.g. `/dev/full`), and `stdout` in the result is "".
 */
export const cliAsync = (
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: Record<string, string>; uid?: number; stdout?: number } = {}
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const stdio: StdioOptions = ["pipe", options.stdout ?? "pipe", "pipe"]
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio,
      timeout: 60_000,
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {})
    })
    child.stdin?.end() // as spawnSync: standard input an empty pipe
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout?.on("data", (b: Buffer) => out.push(b))
    child.stderr?.on("data", (b: Buffer) => err.push(b))
    child.on("error", reject)
    child.on("close", (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") })
    )
  })

/**
 * {@link cli} of `args` with `--json`: its exit code and stderr, and the
 * envelope on the last line of stdout (`{status, data, error}`) parsed.
 */
export const cliJson = (args: ReadonlyArray<string>, env?: Record<string, string>) => {
  const r = cli([...args, "--json"], env !== undefined ? { env } : {})
  const last = r.stdout.trim().split("\n").pop() ?? ""
  return { code: r.code, stderr: r.stderr, ...(JSON.parse(last) as { status: string; data: any; error: any }) }
}
