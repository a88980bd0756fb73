/**
 * Figure (m): migration 0006 (the lean record, issue 13 item 2) on an index
 * of the bench's size: the native root of figures (c)/(e) imported, the index
 * rewritten to the layout before 0006 (`probes/migrate-lean.ts legacy`),
 * then, each on a fresh copy, the migration (what the next import of a
 * user's old index runs) against a floor that copies the same `events` rows
 * with one `INSERT … SELECT` in one transaction. Median of 3, interleaved.
 * Information (no target in the issue): what a user with an old index waits
 * for once.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { AddInfoMsRow } from "./info-row.js"
import { check, lastJson, median, type RunResult } from "../lib/measure.js"

/** What the figure needs of the bench's runner. */
export interface MigrateLeanDeps {
  readonly tmp: string
  readonly repo: string
  /** `import` through the CLI (its envelope checked by the caller's `check`). */
  readonly cli: (args: ReadonlyArray<string>, discardStdout?: boolean) => Promise<RunResult>
  /** Run `node` with these arguments. */
  readonly node: (args: ReadonlyArray<string>) => Promise<RunResult>
  readonly add: AddInfoMsRow
}

/** Build the pre-0006 index from `nativeRoot` and add the figure. */
export const migrateLeanFigure = async (deps: MigrateLeanDeps, nativeRoot: string, workspace: string): Promise<Record<string, unknown>> => {
  const probe = nodePath.join(deps.repo, "bench", "probes", "migrate-lean.ts")
  const tsx = (mode: string, file: string) => deps.node(["--import", "tsx", probe, mode, file])
  const base = nodePath.join(deps.tmp, "migrate-lean-base.db")
  fs.rmSync(base, { force: true })
  // Exit 8 (partial: the bench names no other provider's root) is a complete import of the native root.
  const imported = await deps.cli(["import", "--muse-root", nativeRoot, "--workspace", workspace, "--index", base, "--json"], true)
  if (imported.code !== 0 && imported.code !== 8) throw new Error(`import for m exited ${imported.code}: ${imported.stderr.slice(0, 2000)}`)
  const made = check("legacy layout", await tsx("legacy", base))
  const events = (lastJson(made) as { events: number }).events
  const bytes = fs.statSync(base).size
  const runs: Array<RunResult> = []
  const floors: Array<RunResult> = []
  for (let i = 0; i < 3; i++) {
    for (const [mode, into] of [["floor", floors], ["migrate", runs]] as const) {
      const copy = nodePath.join(deps.tmp, `migrate-lean-${mode}.db`)
      fs.copyFileSync(base, copy)
      into.push(check(`m ${mode}`, await tsx(mode, copy)))
      fs.rmSync(copy, { force: true })
    }
  }
  const step = (r: RunResult) => (lastJson(r) as { stepMs: number }).stepMs
  const measured = median(runs.map(step))
  const floor = median(floors.map(step))
  const rss = (rs: ReadonlyArray<RunResult>) => {
    const k = rs.map((r) => r.rssKiB).filter((x): x is number => x !== null)
    return k.length === 0 ? null : Math.max(...k) / 1024
  }
  deps.add({
    id: "m",
    figure: `(m) migration 0006 (lean records) of a pre-0006 index, ${events} events (${(bytes / 1e6).toFixed(0)} MB)`,
    measured,
    unit: "ms",
    floor,
    floorWhat: "the same events rows copied with one INSERT ... SELECT in one transaction (better-sqlite3)",
    ratio: measured / floor,
    target: "information (a user's old index, migrated once by the next import)",
    pass: null,
    peakRssMiB: rss(runs),
    floorPeakRssMiB: rss(floors),
    samples: { measured: runs.map(step), floor: floors.map(step) },
    note: `median of 3, interleaved; the migration also re-encodes each event (lean body, shapes, streams) and rebuilds its search words; ${
      Math.round(events / (measured / 1000))
    } events/s`
  })
  return { events, bytes }
}
