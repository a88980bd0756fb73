/**
 * Figure (a-small): the fixed cost of reading one small source (issue 13,
 * "about 1.1–1.4 ms per source"), in process, through `probes/read-small.ts`
 * over the native root of figure (c)/(e): per source, what the importer asks
 * of the Muse Code adapter (`parts`, then `streamAtOnce` or `stream`, with `includeSubagents`
 * and an `onRead`) against the same file read whole, split and `JSON.parse`d.
 * Information only (no target): the per-event work of a source is in it too.
 */
import type { AddInfoMsRow } from "./info-row.js"
import { check, lastJson, type RunResult } from "../lib/measure.js"

/** What the figure needs of the bench's runner. */
export interface SmallSourceDeps {
  readonly nodeChild: (name: string, args: ReadonlyArray<string>) => Promise<RunResult>
  readonly add: AddInfoMsRow
}

/** Run the probe over `root` (a native root of small logs) and add the figure. */
export const smallSourceFigure = async (deps: SmallSourceDeps, root: string, workspace: string): Promise<Record<string, unknown>> => {
  const r = check("probe read-small", await deps.nodeChild("read-small", [root, workspace]))
  const j = lastJson(r) as {
    sources: number
    events: number
    usPerSource: number
    floorUsPerSource: number
    cpuUsPerSource: number
    floorCpuUsPerSource: number
    samplesMs: { product: Array<number>; floor: Array<number> }
  }
  deps.add({
    id: "a-small",
    figure: `(a-small) read one small native source (${j.sources} sources, ${Math.round(j.events / j.sources)} events each), per source`,
    measured: j.usPerSource / 1000,
    unit: "ms",
    floor: j.floorUsPerSource / 1000,
    floorWhat: "readFileSync + split lines + JSON.parse, plain Node, in process",
    ratio: j.usPerSource / j.floorUsPerSource,
    target: "information (issue 13: the fixed cost per source)",
    pass: null,
    peakRssMiB: r.rssKiB === null ? null : r.rssKiB / 1024,
    floorPeakRssMiB: null,
    samples: { measured: j.samplesMs.product, floor: j.samplesMs.floor },
    note: `CPU time per source ${(j.cpuUsPerSource / 1000).toFixed(2)} ms vs ${(j.floorCpuUsPerSource / 1000).toFixed(2)} ms (user + system; steadier on a loaded machine)`
  })
  return j
}
