/**
 * Figure (e-claude): `import` run again over N unchanged Claude Code sessions
 * (one-line logs in one project folder, the first import not timed), the
 * Claude Code counterpart of (e): README "Re-import of unchanged sources"
 * promises a stat per unchanged source, no read. Floor: `floors/claude-walk.ts`
 * (walk the root, stat each log, plain Node). Median of 3, interleaved.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { check, median, type RunResult } from "../lib/measure.js"
import type { InfoMsRow } from "./info-row.js"

/** What the figure needs of the bench's runner. */
export interface ReimportClaudeDeps {
  readonly cli: (args: ReadonlyArray<string>) => Promise<RunResult>
  readonly nodeChild: (name: string, args: ReadonlyArray<string>) => Promise<RunResult>
  readonly add: (row: Omit<InfoMsRow, "pass"> & { readonly pass: boolean }) => void
  readonly log: (s: string) => void
}

const lastJson = (r: RunResult) => JSON.parse(r.stdout.trim().split("\n").pop()!) as { data: any }
const rss = (xs: ReadonlyArray<RunResult>) => {
  const v = xs.map((r) => r.rssKiB).filter((x): x is number => x !== null)
  return v.length === 0 ? null : Math.max(...v) / 1024
}

/** Write `n` one-line sessions under `root/-tmp-bench`. */
const writeRoot = (root: string, n: number) => {
  const dir = nodePath.join(root, "-tmp-bench")
  fs.mkdirSync(dir, { recursive: true })
  for (let i = 0; i < n; i++) {
    const sid = `${i.toString(16).padStart(8, "0")}-0000-4000-8000-${String(i).padStart(12, "0")}`
    const line = { type: "user", sessionId: sid, cwd: "/tmp/bench", uuid: "u", parentUuid: null, timestamp: "2026-09-03T00:00:00Z", message: { role: "user", content: `tiny ${i}` } }
    fs.writeFileSync(nodePath.join(dir, `${sid}.jsonl`), JSON.stringify(line) + "\n")
  }
}

/** Generate the root under `tmp`, import it once, then time 3 re-imports against the floor; answers the inputs. */
export const reimportClaudeFigure = async (deps: ReimportClaudeDeps, tmp: string, sessions: number): Promise<Record<string, unknown>> => {
  const root = nodePath.join(tmp, "claude-projects")
  const agents = nodePath.join(tmp, "claude-agents")
  fs.rmSync(root, { recursive: true, force: true })
  fs.mkdirSync(nodePath.join(agents, "nobody"), { recursive: true })
  writeRoot(root, sessions)
  const index = nodePath.join(tmp, "index-e-claude.db")
  fs.rmSync(index, { force: true })
  const args = ["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"]
  deps.log(`e-claude: first import of ${sessions} Claude Code sessions (not timed)…`)
  const first = check("first import", await deps.cli(args), [0, 8])
  if (lastJson(first).data.sources.accepted !== sessions) throw new Error(`e-claude: first import: ${first.stdout.slice(0, 600)}`)
  // The project folder settles (its listing of flat agent files is kept once it has not changed for 2 s).
  await new Promise((r) => setTimeout(r, 2_100))
  const floors: Array<RunResult> = []
  const runs: Array<RunResult> = []
  for (let i = 0; i < 3; i++) {
    floors.push(check("floor claude-walk", await deps.nodeChild("claude-walk", [root])))
    const r = check("re-import", await deps.cli(args), [0, 8])
    const unchanged = lastJson(r).data.sources.unchanged
    if (unchanged !== sessions) throw new Error(`e-claude: re-import: ${unchanged} unchanged of ${sessions}`)
    runs.push(r)
    deps.log(`e-claude: floor ${floors[i].ms.toFixed(0)} ms, re-import ${r.ms.toFixed(0)} ms`)
  }
  const measured = median(runs.map((r) => r.ms))
  const floor = median(floors.map((r) => r.ms))
  deps.add({
    id: "e-claude",
    figure: `(e-claude) re-import of ${sessions} unchanged Claude Code sessions`,
    measured,
    unit: "ms",
    floor,
    floorWhat: "walk the root and stat each session log, plain Node",
    ratio: measured / floor,
    target: `< 1000 ms per 10,000 sessions (as e)`,
    pass: measured < 1000 * Math.max(1, sessions / 10_000),
    peakRssMiB: rss(runs),
    floorPeakRssMiB: rss(floors),
    samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
    note: "median of 3; wall time of the whole process (discovery from the kept summaries, parts listing, checkpoints)"
  })
  return { sessions, firstImportMs: first.ms, root }
}
