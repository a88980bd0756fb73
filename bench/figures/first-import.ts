/**
 * Figure (i), issue 13 items 1 and 2: the first import of the bench's native
 * sessions root (`import --index I --workspace W --muse-root R`, a fresh
 * index each time), against `floors/import-rows.ts` (parse every line, then
 * insert the rows that import wrote, with raw better-sqlite3, 500 per
 * transaction), alternated, 3 of each, medians. With `BENCH_BASELINE_BIN`
 * (the `bin/session-ingest.mjs` of another checkout, built), that build's
 * first import is alternated with them too, for a before/after at the same
 * scale. Also figure (i-bytes): the index's bytes per source byte, and
 * rows (i-jobs-N, information: issue 13 item 1 asks how the import scales with
 * `--jobs`) for `--jobs` 1, 2 and 3, one run each, against the same floor.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as os from "node:os"
import { lastJson, median, type RunResult } from "../lib/measure.js"

/** What run.ts hands a figure: its runners and its table. */
export interface FigureContext {
  readonly tmp: string
  readonly nativeRoot: string
  readonly workspace: string
  readonly sources: number
  readonly sourceBytes: number
  readonly noAgents: string
  readonly cli: (args: ReadonlyArray<string>) => Promise<RunResult>
  readonly cliOf: (bin: string, args: ReadonlyArray<string>) => Promise<RunResult>
  readonly nodeChild: (name: string, args: ReadonlyArray<string>) => Promise<RunResult>
  readonly check: (what: string, r: RunResult, ok?: ReadonlyArray<number>) => RunResult
  readonly add: (f: any) => void
  readonly log: (s: string) => void
  readonly rssMiB: (xs: ReadonlyArray<RunResult>) => number | null
  readonly inputs: Record<string, unknown>
}

const envelope = (r: RunResult) => JSON.parse(r.stdout.trim().split("\n").pop()!) as { data: any }

export const firstImportFigures = async (c: FigureContext): Promise<void> => {
  // BENCH_IMPORT_JOBS=N: this build's import runs with `--jobs N` (default: the CLI's default); the baseline's never.
  const jobs = process.env.BENCH_IMPORT_JOBS
  const base = (index: string) =>
    ["import", "--index", index, "--workspace", c.workspace, "--muse-root", c.nativeRoot, "--agents-root", c.noAgents, "--json"]
  const args = (index: string) => (jobs !== undefined ? [...base(index), "--jobs", jobs] : base(index))
  const baseline = process.env.BENCH_BASELINE_BIN
  const runs: Array<RunResult> = []
  const floors: Array<RunResult> = []
  const before: Array<RunResult> = []
  const sizes: Array<number> = []
  let events = 0
  for (let i = 0; i < 3; i++) {
    if (baseline !== undefined) {
      const index = nodePath.join(c.tmp, `i-before-${i}.db`)
      before.push(c.check("first import (baseline)", await c.cliOf(baseline, base(index)), [0, 8]))
      fs.rmSync(index, { force: true })
    }
    const index = nodePath.join(c.tmp, `i-${i}.db`)
    const r = c.check("first import", await c.cli(args(index)), [0, 8])
    const e = envelope(r)
    if (e.data.sources.accepted !== c.sources) throw new Error(`first import accepted ${e.data.sources.accepted} of ${c.sources}`)
    events = e.data.eventsAdded
    runs.push(r)
    sizes.push(fs.statSync(index).size)
    const f = c.check("floor import-rows", await c.nodeChild("import-rows", [c.nativeRoot, index, nodePath.join(c.tmp, "i-floor.db")]))
    floors.push({ ...f, ms: lastJson(f).ms as number })
    c.log(`i: import ${r.ms.toFixed(0)} ms, floor ${floors[i].ms.toFixed(0)} ms (${JSON.stringify(lastJson(f))})` +
      (baseline !== undefined ? `, baseline ${before[i].ms.toFixed(0)} ms` : ""))
    fs.rmSync(index, { force: true })
  }
  const measured = median(runs.map((r) => r.ms))
  const floor = median(floors.map((r) => r.ms))
  const was = baseline !== undefined ? median(before.map((r) => r.ms)) : null
  c.inputs.firstImportFigure = { events, ms: runs.map((r) => r.ms), floorMs: floors.map((r) => r.ms), baselineMs: before.map((r) => r.ms), floorParts: floors.map((f) => lastJson(f)) }
  c.add({
    id: "i",
    figure: `(i) first import of the ${c.sources} native sources (${events} events)`,
    measured,
    unit: "ms",
    floor,
    floorWhat: "parse every line + the import's own rows inserted with raw better-sqlite3, 500 per transaction (floors/import-rows.ts)",
    ratio: measured / floor,
    target: "<= 1.5x floor; >= 3x faster than before",
    pass: measured / floor <= 1.5 && (was === null || was / measured >= 3),
    peakRssMiB: c.rssMiB(runs),
    floorPeakRssMiB: c.rssMiB(floors),
    samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
    note: `median of 3, alternated with the floor; wall time of the whole process; ${jobs !== undefined ? `--jobs ${jobs}` : "default --jobs"}` +
      (was !== null ? `; baseline build (BENCH_BASELINE_BIN) ${was.toFixed(0)} ms, ${(was / measured).toFixed(2)}x slower` : "; no baseline build given")
  })
  // How the first import scales with its parse workers (`--jobs 1`: none, all in the main thread).
  for (const n of [1, 2, 3]) {
    const index = nodePath.join(c.tmp, `i-jobs-${n}.db`)
    const r = c.check(`first import --jobs ${n}`, await c.cli([...base(index), "--jobs", String(n)]), [0, 8])
    fs.rmSync(index, { force: true })
    c.log(`i-jobs-${n}: ${r.ms.toFixed(0)} ms`)
    c.add({
      id: `i-jobs-${n}`,
      figure: `(i-jobs-${n}) first import of the ${c.sources} native sources with --jobs ${n}`,
      measured: r.ms,
      unit: "ms",
      floor,
      floorWhat: "the floor of (i), same run",
      ratio: r.ms / floor,
      target: `information (issue 13 item 1: scaling with --jobs on ${os.availableParallelism()} cores)`,
      pass: null,
      peakRssMiB: c.rssMiB([r]),
      floorPeakRssMiB: c.rssMiB(floors),
      samples: { measured: [r.ms], floor: floors.map((f) => f.ms) },
      note: `one run; ${n === 1 ? "no worker thread: the main thread reads, parses and writes" : `${n} parse workers, the main thread writes`}`
    })
  }
  const bytes = median(sizes)
  c.add({
    id: "i-bytes",
    figure: `(i-bytes) index bytes per source byte, first import of the ${c.sources} native sources`,
    measured: bytes / c.sourceBytes,
    unit: "x",
    floor: 1,
    floorWhat: "the source bytes (session.jsonl files)",
    ratio: bytes / c.sourceBytes,
    target: "<= 1.5",
    pass: bytes / c.sourceBytes <= 1.5,
    peakRssMiB: null,
    floorPeakRssMiB: null,
    samples: { measured: sizes, floor: [c.sourceBytes] },
    note: `${(bytes / 1e6).toFixed(1)} MB index for ${(c.sourceBytes / 1e6).toFixed(1)} MB of logs`
  })
}
