/**
 * Figures b-first-workers-N (issue 13, information): how AgentMux's first
 * scan scales with the scan workers (`src/layers/agentmux/parallel-scan.ts`:
 * the zone cut at line boundaries, the pieces scanned by worker threads).
 * The CLI's `discover agentmux` with a fresh `--state` (its folder shared, so
 * the store's cached main file is reused: no copy in these runs) and
 * `SESSION_INGEST_SCAN_WORKERS=N`, N = 0 (scanned in the main thread), 1 and
 * 2, two runs each in alternating order (a zone under the scan's threshold,
 * 64 MiB, as at a small BENCH_SCALE, is scanned in the main thread whatever N is); wall time (median) and the process's
 * CPU time (user + system, in the note: what the workers add), against
 * b-first's floor (the newline scan of the zone's blobs, same run).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { median } from "../lib/measure.js"

/** What the figures need from the bench run. */
export interface WorkersContext {
  readonly node: string
  readonly bin: string
  readonly env: NodeJS.ProcessEnv
  readonly tmp: string
  readonly store: string
  readonly uid: string
  /** b-first's floor (ms) and its samples. */
  readonly floor: number
  readonly floorSamples: ReadonlyArray<number>
  readonly log: (s: string) => void
}

const TIME = "/usr/bin/time"

/** One first scan through the CLI: wall ms, CPU ms (user + system), peak RSS (MiB). */
const firstScan = (c: WorkersContext, workers: number, i: number) => {
  const dir = nodePath.join(c.tmp, "first-workers")
  fs.mkdirSync(dir, { recursive: true })
  const state = nodePath.join(dir, `state-${workers}-${i}.db`)
  const stats = nodePath.join(dir, `time-${workers}-${i}`)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(TIME, [
    "-f",
    "%U %S %M",
    "-o",
    stats,
    c.node,
    c.bin,
    "discover",
    "agentmux",
    "--agent",
    c.uid,
    "--store",
    c.store,
    "--state",
    state,
    "--json"
  ], { env: { ...c.env, SESSION_INGEST_SCAN_WORKERS: String(workers) }, cwd: c.tmp, stdio: ["ignore", "ignore", "pipe"] })
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`first scan with ${workers} worker(s) failed: ${r.stderr}`)
  const [user, sys, rss] = fs.readFileSync(stats, "utf8").trim().split("\n").pop()!.split(" ").map(Number)
  return { ms, cpuMs: (user + sys) * 1000, rssMiB: rss / 1024 }
}

/** The figures' rows (the bench's `Figure` shape), one per worker count. */
export const firstScanWorkers = (c: WorkersContext) => {
  const counts = [0, 1, 2]
  const runs = new Map<number, Array<ReturnType<typeof firstScan>>>(counts.map((n) => [n, []]))
  for (const [i, order] of [counts, [...counts].reverse()].entries()) {
    for (const n of order) runs.get(n)!.push(firstScan(c, n, i))
  }
  const rows = counts.map((n) => {
    const rs = runs.get(n)!
    const measured = median(rs.map((r) => r.ms))
    return {
      id: `b-first-workers-${n}`,
      figure: `(b) AgentMux first scan (discover) with ${n} scan worker(s)${n === 0 ? " (the main thread scans)" : ""}, WAL store, cached copy`,
      measured,
      unit: "ms" as const,
      floor: c.floor,
      floorWhat: "b-first's floor: newline scan of the zone's output blobs (better-sqlite3, 4 MiB queries), plain Node",
      ratio: measured / c.floor,
      target: "info (scaling of b-first with the workers)",
      pass: null,
      peakRssMiB: Math.max(...rs.map((r) => r.rssMiB)),
      floorPeakRssMiB: null,
      samples: { measured: rs.map((r) => r.ms), floor: [...c.floorSamples] },
      note: `median of 2 (alternating order); CPU of the process ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms (median; samples ${
        rs.map((r) => r.cpuMs.toFixed(0)).join(", ")
      })`
    }
  })
  c.log(`b-first-workers: ${rows.map((r) => `${r.id} ${r.measured.toFixed(0)} ms`).join(", ")}`)
  return rows
}
