/**
 * Figure (e-claude): `import` run again over N unchanged Claude Code sessions
 * (one-line logs in one project folder, the first import not timed), the
 * Claude Code counterpart of (e): docs/import.md "Re-import of unchanged sources"
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

/**
 * Write `n` sessions under `root/-tmp-bench`: one-line logs, or, with
 * `subagents` > 0, logs of 40 prompts (~24 KB) each with that many nested
 * subagent files (`<sid>/subagents/agent-*.jsonl`, 10 prompts each).
 */
const writeRoot = (root: string, n: number, subagents = 0) => {
  const dir = nodePath.join(root, "-tmp-bench")
  fs.mkdirSync(dir, { recursive: true })
  const pad = "lorem ipsum dolor sit amet ".repeat(20)
  for (let i = 0; i < n; i++) {
    const sid = `${i.toString(16).padStart(8, "0")}-0000-4000-8000-${String(i).padStart(12, "0")}`
    const line = (uuid: string, content: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ type: "user", sessionId: sid, cwd: "/tmp/bench", uuid, parentUuid: null, timestamp: "2026-09-03T00:00:00Z", message: { role: "user", content }, ...extra }) + "\n"
    if (subagents === 0) {
      fs.writeFileSync(nodePath.join(dir, `${sid}.jsonl`), line("u", `tiny ${i}`))
      continue
    }
    fs.writeFileSync(nodePath.join(dir, `${sid}.jsonl`), Array.from({ length: 40 }, (_, j) => line(`u${j}`, `prompt ${j} ${pad}`)).join(""))
    const sub = nodePath.join(dir, sid, "subagents")
    fs.mkdirSync(sub, { recursive: true })
    for (let a = 0; a < subagents; a++) {
      const agentId = `a${a}x${i}`
      fs.writeFileSync(
        nodePath.join(sub, `agent-${agentId}.jsonl`),
        Array.from({ length: 10 }, (_, j) => line(`s${a}-${j}`, `sub ${j} ${pad}`, { isSidechain: true, agentId })).join("")
      )
    }
  }
}

/** The bytes of every file under `dir`. */
const sourceBytes = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + fs.statSync(nodePath.join(e.parentPath, e.name)).size, 0)

/**
 * Generate the root under `tmp`, import it once, then time 3 re-imports
 * against the floor; answers the inputs. With `subagents` > 0 the figure is
 * `e-claude-subagents`: every session has that many nested subagent files,
 * which an unchanged re-import stats and does not read.
 */
export const reimportClaudeFigure = async (
  deps: ReimportClaudeDeps,
  tmp: string,
  sessions: number,
  subagents = 0
): Promise<Record<string, unknown>> => {
  const id = subagents === 0 ? "e-claude" : "e-claude-subagents"
  const root = nodePath.join(tmp, `${id}-projects`)
  const agents = nodePath.join(tmp, "claude-agents")
  fs.rmSync(root, { recursive: true, force: true })
  fs.mkdirSync(nodePath.join(agents, "nobody"), { recursive: true })
  writeRoot(root, sessions, subagents)
  const index = nodePath.join(tmp, `index-${id}.db`)
  fs.rmSync(index, { force: true })
  const args = ["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"]
  deps.log(`${id}: first import of ${sessions} Claude Code sessions (not timed)…`)
  const first = check("first import", await deps.cli(args), [0, 8])
  if (lastJson(first).data.sources.accepted !== sessions) throw new Error(`${id}: first import: ${first.stdout.slice(0, 600)}`)
  // The project folder settles (its listing of flat agent files is kept once it has not changed for 2 s).
  await new Promise((r) => setTimeout(r, 2_100))
  const floors: Array<RunResult> = []
  const runs: Array<RunResult> = []
  for (let i = 0; i < 3; i++) {
    floors.push(check("floor claude-walk", await deps.nodeChild("claude-walk", [root])))
    const r = check("re-import", await deps.cli(args), [0, 8])
    const unchanged = lastJson(r).data.sources.unchanged
    if (unchanged !== sessions) throw new Error(`${id}: re-import: ${unchanged} unchanged of ${sessions}`)
    runs.push(r)
    deps.log(`${id}: floor ${floors[i].ms.toFixed(0)} ms, re-import ${r.ms.toFixed(0)} ms`)
  }
  const measured = median(runs.map((r) => r.ms))
  const floor = median(floors.map((r) => r.ms))
  deps.add({
    id,
    figure: subagents === 0
      ? `(e-claude) re-import of ${sessions} unchanged Claude Code sessions`
      : `(e-claude-subagents) re-import of ${sessions} unchanged Claude Code sessions with ${subagents} subagent files each`,
    measured,
    unit: "ms",
    floor,
    floorWhat: subagents === 0 ? "walk the root and stat each session log, plain Node" : "walk the root and stat each session log and subagent file, plain Node",
    ratio: measured / floor,
    target: `< 1000 ms per 10,000 sessions (as e)`,
    pass: measured < 1000 * Math.max(1, sessions / 10_000),
    peakRssMiB: rss(runs),
    floorPeakRssMiB: rss(floors),
    samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
    note: "median of 3; wall time of the whole process (discovery from the kept summaries, parts listing, checkpoints)" +
      (subagents === 0 ? "" : `; ${(sourceBytes(root) / 1e6).toFixed(1)} MB of logs not read again`)
  })
  return { sessions, subagents, firstImportMs: first.ms, root }
}
