/**
 * Figure b-rescan-after-checkpoint (issue 13): the in-process rescan right
 * after AgentMux's store was checkpointed. A WAL store is read from a cached
 * copy of its main file plus a fresh copy of its `-wal`; a checkpoint writes
 * the `-wal` into the main file, so the next rescan copies the main file
 * whole again (`src/layers/agentmux/store-cache.ts`). Three times: 1 MiB is
 * appended through AgentMux's open writer, the writer checkpoints
 * (`PRAGMA wal_checkpoint(PASSIVE)`, what SQLite's auto-checkpoint runs every
 * ~1000 pages), and the library's discover() rescans in process
 * (`probes/agentmux-discover.ts`). Floor: `floors/copy-and-scan.ts`, a copy
 * of the store's main file plus a newline scan of the appended blobs.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type Database from "better-sqlite3"
import { appendToAgentMuxStore } from "../generate/agentmux.js"
import { check, lastJson, median, type RunResult } from "../lib/measure.js"

/** What the figure needs from the bench run. */
export interface CheckpointContext {
  readonly store: string
  readonly state: string
  readonly uid: string
  readonly zone: string
  readonly tmp: string
  readonly appendBytes: number
  readonly seed: number
  /** AgentMux's open writer connection to the store (WAL mode). */
  readonly writer: Database.Database
  readonly nodeChild: (name: string, args: ReadonlyArray<string>) => Promise<RunResult>
  readonly rssMiB: (xs: ReadonlyArray<RunResult>) => number | null
  readonly log: (s: string) => void
}

/** The figure's row (the bench's `Figure` shape). */
export const rescanAfterCheckpoint = async (c: CheckpointContext) => {
  const runs: Array<RunResult> = []
  const floors: Array<RunResult> = []
  const inProc: Array<number> = []
  const cpu: Array<number> = []
  const flIn: Array<number> = []
  for (let i = 0; i < 3; i++) {
    const before = (c.writer.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = 'output'").get(c.zone) as {
      size: number
    }).size
    appendToAgentMuxStore(c.store, c.uid, c.appendBytes, c.seed + i, c.writer)
    c.writer.pragma("wal_checkpoint(PASSIVE)")
    const dest = nodePath.join(c.tmp, `checkpoint-floor-copy-${i}.db`)
    const f = check("floor copy-and-scan", await c.nodeChild("copy-and-scan", [c.store, c.zone, String(before), dest]))
    floors.push(f)
    flIn.push(lastJson(f).ms as number)
    const r = check("probe agentmux-discover (after a checkpoint)", await c.nodeChild("agentmux-discover", [c.store, c.state, c.uid]))
    runs.push(r)
    inProc.push(lastJson(r).ms as number)
    cpu.push(lastJson(r).cpuMs as number)
  }
  c.log(`rescans after a checkpoint (in process): ${inProc.map((x) => x.toFixed(0)).join(", ")} ms; floor ${flIn.map((x) => x.toFixed(0)).join(", ")} ms`)
  const measured = median(inProc)
  const floor = median(flIn)
  const storeMiB = fs.statSync(c.store).size / 1024 / 1024
  return {
    id: "b-rescan-after-checkpoint",
    figure: `(b) AgentMux rescan after a 1 MiB append and a checkpoint, WAL store (${storeMiB.toFixed(0)} MiB), library discover() in process`,
    measured,
    unit: "ms" as const,
    floor,
    floorWhat: "copy of the store's main file + newline scan of the appended blobs, in process",
    ratio: measured / floor,
    target: "info (the main file is copied again)",
    pass: null,
    peakRssMiB: c.rssMiB(runs),
    floorPeakRssMiB: c.rssMiB(floors),
    samples: { measured: inProc, floor: flIn },
    note: `median of 3; CPU of the window ${median(cpu).toFixed(0)} ms (median)`
  }
}
