/**
 * Figure (d), the commands that run against an index (issue 13, item 5:
 * "every other command's start-up reported"): the wall time of a whole CLI
 * process for `sessions`, `search`, `show`, `usage` and an `import` that finds
 * its sources unchanged, each on a tiny index (3 native sessions), so that
 * what is measured is the start-up of the command (loading the CLI, building
 * its layers, opening the index) and not its work. Each is run 7 times
 * interleaved with `node -e 0` (the floor), median; information rows (no
 * target). Called from `bench/run.ts` (`BENCH_ONLY=d`).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { writeNativeRoot } from "../generate/native.js"
import { check, median, type RunResult } from "../lib/measure.js"
import type { InfoMsRow } from "./info-row.js"

/** What the figure needs from the bench run. */
export interface StartupContext {
  /** The temporary folder of the run. */
  readonly tmp: string
  /** Run the CLI (`bin/session-ingest.mjs`) with these arguments. */
  readonly cli: (args: ReadonlyArray<string>) => Promise<RunResult>
  /** Run `node -e 0`. */
  readonly nodeNoop: () => Promise<RunResult>
  /** Report a figure row (the bench's `Figure`). */
  readonly add: (row: StartupRow) => void
  readonly rssMiB: (runs: ReadonlyArray<RunResult>) => number | null
}

/** One row, in the shape of the bench's `Figure` (an information row in milliseconds, `./info-row.ts`). */
export type StartupRow = InfoMsRow

const RUNS = 7

/** Build the tiny index, then measure each command's start-up against `node -e 0`. */
export const startupFigures = async (ctx: StartupContext): Promise<void> => {
  const dir = nodePath.join(ctx.tmp, "startup")
  const workspace = nodePath.join(dir, "workspace")
  const root = nodePath.join(dir, "muse-root")
  const noAgents = nodePath.join(dir, "no-agents")
  const index = nodePath.join(dir, "index.db")
  for (const d of [workspace, noAgents]) fs.mkdirSync(d, { recursive: true })
  writeNativeRoot(root, 3, workspace, 17)
  const importArgs = ["import", "--index", index, "--workspace", workspace, "--muse-root", root, "--agents-root", noAgents, "--json"]
  // An empty agents root the user named is partial coverage (exit 8); the native sessions are imported.
  check("startup: import of the tiny index", await ctx.cli(importArgs), [0, 8])
  const sessions = JSON.parse(check("startup: sessions", await ctx.cli(["sessions", "--index", index, "--json"])).stdout) as {
    data: Array<{ sessionId: string }>
  }
  if (sessions.data.length !== 3) throw new Error(`startup: the tiny index lists ${sessions.data.length} sessions, not 3`)
  const sessionId = sessions.data[0].sessionId
  // A word of the generator's text pool that the tiny index holds.
  let term: string | undefined
  for (const word of ["error", "workspace", "promise", "buffer", "session"]) {
    const r = JSON.parse(check("startup: search", await ctx.cli(["search", word, "--index", index, "--json"])).stdout) as {
      data: { hits: Array<unknown> }
    }
    if (r.data.hits.length > 0) {
      term = word
      break
    }
  }
  if (term === undefined) throw new Error("startup: search found none of its words in the tiny index")

  const cases: ReadonlyArray<{ id: string; args: ReadonlyArray<string>; what: string; ok?: ReadonlyArray<number> }> = [
    { id: "d-sessions", args: ["sessions", "--index", index, "--json"], what: "sessions --json" },
    { id: "d-search", args: ["search", term, "--index", index, "--json"], what: `search ${term} --json` },
    { id: "d-show", args: ["show", sessionId, "--index", index, "--json"], what: "show <session> --json" },
    { id: "d-usage", args: ["usage", "--index", index, "--json"], what: "usage --json" },
    { id: "d-import-unchanged", args: importArgs, what: "import (3 sources, all unchanged) --json", ok: [0, 8] }
  ]
  for (const c of cases) {
    const runs: Array<RunResult> = []
    const floors: Array<RunResult> = []
    for (let i = 0; i < RUNS; i++) {
      floors.push(check("node -e 0", await ctx.nodeNoop()))
      runs.push(check(c.what, await ctx.cli(c.args), c.ok))
    }
    const measured = median(runs.map((r) => r.ms))
    const floor = median(floors.map((r) => r.ms))
    ctx.add({
      id: c.id,
      figure: `(d) CLI start-up of a command on a 3-session index: ${c.what}`,
      measured,
      unit: "ms",
      floor,
      floorWhat: "node -e 0",
      ratio: measured / floor,
      target: "information (start-up of a command against an index)",
      pass: null,
      peakRssMiB: ctx.rssMiB(runs),
      floorPeakRssMiB: ctx.rssMiB(floors),
      samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
      note: `median of ${RUNS}, interleaved; wall time of the whole process`
    })
  }
}
