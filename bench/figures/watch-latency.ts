/**
 * Figure (w): append-to-indexed latency of `import --watch` (issue 13, item 8).
 *
 * A Muse Code native log (64 MiB × scale, so that re-reading its prefix would
 * show) is imported by `bin/session-ingest.mjs import --watch --json` running
 * as a child. Then 100 times: one turn is appended to the log in one write
 * (`appendNativeTurns`, a few lines), and the time is taken until the index
 * has it: its source row's fingerprint starts with the log's new size (the
 * checkpoint the importer writes after the turn's events are committed),
 * polled every 1 ms through a read-only better-sqlite3 connection.
 *
 * Floor: the same append seen by a plain `fs.watch` callback on the log's
 * folder in the bench's own process (what any watcher waits for at least).
 * Ratio = median latency / median floor. Target: median and p95 < 1 s.
 * Peak RSS: the watcher's, from the `rssBytes` of its rounds.
 *
 * @module
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import Database from "better-sqlite3"
import { appendNativeTurns, writeNativeLog } from "../generate/native.js"

const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

/** What the figure reports (the fields of run.ts's figures). */
export interface WatchLatency {
  readonly measured: number
  readonly p95: number
  readonly floor: number
  readonly floorP95: number
  readonly samples: ReadonlyArray<number>
  readonly floorSamples: ReadonlyArray<number>
  readonly peakRssMiB: number
  readonly logBytes: number
}

/** Run the figure in `tmp` with the CLI at `bin`, `appends` times (100). */
export const watchLatency = async (
  opts: { readonly tmp: string; readonly bin: string; readonly env: NodeJS.ProcessEnv; readonly logBytes: number; readonly appends?: number; readonly log: (s: string) => void }
): Promise<WatchLatency> => {
  const root = nodePath.join(opts.tmp, "watch-root")
  const workspace = nodePath.join(opts.tmp, "watch-workspace")
  const empty = nodePath.join(opts.tmp, "watch-empty")
  fs.mkdirSync(workspace, { recursive: true })
  fs.mkdirSync(empty, { recursive: true })
  const file = nodePath.join(root, "2026", "09", "25", "00000001-0000-4000-8000-000000000b16", "session.jsonl")
  let { lastSequence } = writeNativeLog(file, opts.logBytes, workspace)
  const index = nodePath.join(opts.tmp, "index-w.db")
  const args = [opts.bin, "import", "--watch", "--json", "--index", index, "--workspace", workspace, "--muse-root", root, "--agents-root", empty, "--claude-root", empty]
  // stderr is kept, not inherited: the watch's own line at Ctrl-C (INTERRUPTED, exit 130) is what it should say and
  // went to the bench's output after the bench had ended; anything else it says is shown.
  const child = spawn(process.execPath, args, { env: opts.env, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString("utf8")
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let rounds = 0
  let peakRss = 0
  let buffer = ""
  child.stdout.on("data", (b: Buffer) => {
    buffer += b.toString("utf8")
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const e = JSON.parse(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
      if (e.status !== "ok" && e.error?.code !== "INTERRUPTED") throw new Error(`watch: ${JSON.stringify(e).slice(0, 400)}`)
      if (e.status !== "ok") continue
      rounds++
      peakRss = Math.max(peakRss, e.data.rssBytes)
    }
  })
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
  try {
    while (rounds < 1) await sleep(10)
    opts.log(`w: first import of the ${(opts.logBytes / 2 ** 20).toFixed(0)} MiB log done; 100 appends…`)
    await sleep(1500) // the follow-up round once the folders are watched
    const db = new Database(index, { readonly: true })
    const fingerprint = db.prepare("SELECT fingerprint FROM sources WHERE locator_json LIKE ?")
    const like = `%${file}%`
    let floorAt = 0
    const watcher = fs.watch(nodePath.dirname(file), () => {
      if (floorAt === 0) floorAt = performance.now()
    })
    const samples: Array<number> = []
    const floors: Array<number> = []
    for (let i = 0; i < (opts.appends ?? 100); i++) {
      floorAt = 0
      const t0 = performance.now()
      lastSequence = appendNativeTurns(file, 1, lastSequence, 100 + i)
      const size = fs.statSync(file).size
      for (;;) {
        const fp = (fingerprint.get(like) as { fingerprint: string | null } | undefined)?.fingerprint
        if (typeof fp === "string" && fp.startsWith(`${size}:`)) break
        if (performance.now() - t0 > 30_000) throw new Error(`w: append ${i} not indexed after 30 s (fingerprint ${fp})`)
        await sleep(1)
      }
      samples.push(performance.now() - t0)
      while (floorAt === 0) await sleep(1)
      floors.push(floorAt - t0)
      await sleep(20)
    }
    watcher.close()
    db.close()
    return {
      measured: median(samples),
      p95: quantile(samples, 0.95),
      floor: median(floors),
      floorP95: quantile(floors, 0.95),
      samples,
      floorSamples: floors,
      peakRssMiB: peakRss / 2 ** 20,
      logBytes: fs.statSync(file).size
    }
  } finally {
    child.kill("SIGINT")
    const code = await exited
    const said = stderr.split("\n").filter((l) => l.trim() !== "" && !/INTERRUPTED|^\s*remedy: Run the same command again/.test(l))
    if (code !== 130 || said.length > 0) opts.log(`w: the watch ended with exit ${code}${said.length > 0 ? `, saying:\n${said.join("\n")}` : ""}`)
  }
}
