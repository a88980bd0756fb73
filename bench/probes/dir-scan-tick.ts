/**
 * Probe of the cost of `import --watch`'s folder scan on a very large root
 * (`src/layers/index/dir-scan.ts`, one {@link DirScan.tick} every 250 ms):
 * `node dir-scan-tick.mjs PARENT [FOLDERS] [TICKS]`. Writes under PARENT (a
 * fresh folder) a Muse Code-like native root of FOLDERS folders (default
 * 50,000: `YYYY/MM/DD/<session>/`, each session folder holding one
 * `session.jsonl`), then, in process:
 * - `walkMs`: `setRoots` (the silent first walk);
 * - `fresh`: TICKS ticks (default 20) with every folder changed within the
 *   last 24 h (all "hot": the bound of 4,000 folders per tick applies);
 * - `aged`: the same after every folder's mtime is set two days back and
 *   one whole rotation of ticks (not timed) has seen it: the steady state of
 *   an old root (the hot folders are the root's first two levels, then a
 *   rotating slice of 4,000);
 * - `newSession`: one new session folder and file made before each of TICKS
 *   ticks in the aged root (its day folder, three levels down, is cold):
 *   `sessionsFound`, how many of them the TICKS ticks found (their folder or
 *   their file; the others wait for the rotation to reach their day folder),
 *   `filesFound`, how many with their `session.jsonl` (a new folder is walked
 *   only while the scan remembers fewer than its bound of 50,000 folders),
 *   and the ticks' cost.
 * Each tick's CPU time (user + system of the process, steadier than wall
 * time on a loaded machine) and wall time; medians and p95 in ms. PARENT's
 * root is removed at the end.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { DirScan } from "../../src/layers/index/dir-scan.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [parent, foldersArg, ticksArg] = process.argv.slice(2)
if (parent === undefined) {
  process.stderr.write("usage: dir-scan-tick.mjs PARENT [FOLDERS] [TICKS]\n")
  process.exit(2)
}
const folders = Number(foldersArg ?? 50_000)
const ticks = Number(ticksArg ?? 20)
const root = fs.mkdtempSync(nodePath.join(parent, "dir-scan-root-"))

// YYYY/MM/DD/<session>/session.jsonl: the root, 1 year, 12 months, 28 days each, the rest session folders spread over the days
const days: Array<string> = []
for (let m = 1; m <= 12; m++) for (let d = 1; d <= 28; d++) days.push(nodePath.join(root, "2026", String(m).padStart(2, "0"), String(d).padStart(2, "0")))
const sessions = Math.max(0, folders - 2 - 12 - days.length)
const t1 = performance.now()
for (const d of days) fs.mkdirSync(d, { recursive: true })
const sessionDirs: Array<string> = []
for (let i = 0; i < sessions; i++) {
  const dir = nodePath.join(days[i % days.length], `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`)
  fs.mkdirSync(dir)
  fs.writeFileSync(nodePath.join(dir, "session.jsonl"), "")
  sessionDirs.push(dir)
}
const buildMs = performance.now() - t1

const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}
const summary = (cpuMs: ReadonlyArray<number>, wallMs: ReadonlyArray<number>) => ({
  cpuMsMedian: quantile(cpuMs, 0.5),
  cpuMsP95: quantile(cpuMs, 0.95),
  wallMsMedian: quantile(wallMs, 0.5),
  wallMsP95: quantile(wallMs, 0.95)
})

const scan = new DirScan()
let w = performance.now()
scan.setRoots([root])
const walkMs = performance.now() - w
const remembered = scan.size

/** `ticks` ticks timed (`before` runs first, untimed); `found`: the paths they answered, in all. */
const timeTicks = (before?: (i: number) => void, seen?: Set<string>) => {
  const c: Array<number> = []
  const wall: Array<number> = []
  let found = 0
  for (let i = 0; i < ticks; i++) {
    before?.(i)
    const c0 = cpu()
    const w0 = performance.now()
    const paths = scan.tick()
    wall.push(performance.now() - w0)
    c.push(cpu() - c0)
    found += paths.length
    for (const p of paths) seen?.add(p)
  }
  return { ...summary(c, wall), found }
}

const fresh = timeTicks()

// every folder two days old
w = performance.now()
const old = new Date(Date.now() - 2 * 24 * 3600_000)
for (const d of sessionDirs) fs.utimesSync(d, old, old)
for (const d of days) fs.utimesSync(d, old, old)
for (let m = 1; m <= 12; m++) fs.utimesSync(nodePath.join(root, "2026", String(m).padStart(2, "0")), old, old)
fs.utimesSync(nodePath.join(root, "2026"), old, old)
fs.utimesSync(root, old, old)
const ageMs = performance.now() - w
// the looks after the change of mtimes list the folders again (not news): a whole rotation, not timed
for (let i = 0; i < Math.ceil(remembered / 4000) + 2; i++) scan.tick()
const aged = timeTicks()

const made: Array<string> = []
const seen = new Set<string>()
const newSession = timeTicks((i) => {
  const dir = nodePath.join(days[(i * 37) % days.length], `new-${i}`)
  fs.mkdirSync(dir)
  fs.writeFileSync(nodePath.join(dir, "session.jsonl"), "")
  made.push(dir)
}, seen)

fs.rmSync(root, { recursive: true, force: true })
report(t0, { folders: remembered, sessions, buildMs, walkMs, ageMs, ticks, fresh, aged, newSession: { ...newSession, made: made.length, sessionsFound: made.filter((d) => seen.has(d) || seen.has(nodePath.join(d, "session.jsonl"))).length, filesFound: made.filter((d) => seen.has(nodePath.join(d, "session.jsonl"))).length } })
