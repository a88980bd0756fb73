/**
 * A/B comparison of figure (b)'s in-process rescan between builds (issue 13:
 * "alternate old and new builds in the same conditions"), for a bisect or a
 * before/after on a loaded machine. Each build is a checkout (a worktree with
 * `node_modules`); its `bench/probes/agentmux-discover.ts` is bundled to
 * `bench/tmp/ab/<n>/` and run against one shared AgentMux store, each build
 * with its own scan state. Every round appends 1 MiB as AgentMux does (through
 * a writer kept open on a WAL store), then runs every build once, the order
 * alternating; rounds that followed a checkpoint (the main file copied again)
 * are left out. Prints per round and the medians of wall time and of CPU time
 * of the window (the steadier figure when other work shares the cores).
 *
 * `npx tsx bench/ab-agentmux.ts DIR CHECKOUT...` with `ROUNDS` (default 12),
 * `MODE=WAL|rollback-journal` (default WAL), `BYTES` (the store's zone, default
 * 800,000,000; the store is generated in DIR once and reused). Not part of
 * `npm run bench`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import { build } from "esbuild"
import { PROBE_BUILD } from "./lib/probe-build.js"
import { appendToAgentMuxStore, writeAgentMuxStore } from "./generate/agentmux.js"
import { median } from "./lib/measure.js"

const REPO = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..")
const [dir, ...checkouts] = process.argv.slice(2)
if (dir === undefined || checkouts.length === 0) throw new Error("usage: ab-agentmux.ts DIR CHECKOUT...")
const rounds = Number(process.env.ROUNDS ?? 12)
const mode = process.env.MODE ?? "WAL"
const UID = "bench-u1"
const store = nodePath.join(dir, "store", "filestore.db")

if (!fs.existsSync(store)) {
  fs.mkdirSync(nodePath.dirname(store), { recursive: true })
  console.log("store", JSON.stringify(writeAgentMuxStore(store, UID, Number(process.env.BYTES ?? 800_000_000))))
}
const probes = await Promise.all(checkouts.map(async (c, i) => {
  const out = nodePath.join(REPO, "bench", "tmp", "ab", String(i))
  await build({
    entryPoints: { probe: nodePath.join(nodePath.resolve(c), "bench", "probes", "agentmux-discover.ts") },
    outdir: out,
    outExtension: { ".js": ".mjs" },
    ...PROBE_BUILD
  })
  return { name: `${i}:${nodePath.basename(c)}`, file: nodePath.join(out, "probe.mjs"), state: nodePath.join(dir, `state-${i}.db`) }
}))
const probe = (p: (typeof probes)[number]) => {
  const r = spawnSync(process.execPath, [p.file, store, p.state, UID], { cwd: dir, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${p.name}: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as { ms: number; cpuMs: number; sources: number }
}
{
  const db = new Database(store)
  db.pragma(mode === "WAL" ? "journal_mode = WAL" : "journal_mode = DELETE")
  db.close()
}
for (const p of probes) if (!fs.existsSync(p.state)) console.log(p.name, "first scan", JSON.stringify(probe(p)))
const writer = mode === "WAL" ? new Database(store) : undefined
const mainFile = () => {
  const st = fs.statSync(store)
  return `${st.ino}-${st.size}-${st.mtimeMs}`
}
const wall = new Map<string, Array<number>>()
const cpu = new Map<string, Array<number>>()
try {
  // One scan each first, so that no build pays for a main file copied by an earlier checkpoint.
  for (const p of probes) probe(p)
  for (let i = 0; i < rounds; i++) {
    const before = mainFile()
    appendToAgentMuxStore(store, UID, 1024 * 1024, 90_000 + i, writer)
    // In rollback-journal mode every append writes the main file, which is read in place (nothing to leave out).
    const checkpointed = mode === "WAL" && mainFile() !== before
    const line: Array<string> = []
    for (const p of i % 2 === 0 ? probes : [...probes].reverse()) {
      const r = probe(p)
      if (!checkpointed) {
        wall.set(p.name, [...(wall.get(p.name) ?? []), r.ms])
        cpu.set(p.name, [...(cpu.get(p.name) ?? []), r.cpuMs])
      }
      line.push(`${p.name} ${r.ms.toFixed(1)} ms (cpu ${r.cpuMs.toFixed(0)})`)
    }
    console.log(`round ${i}${checkpointed ? " (after a checkpoint, left out)" : ""}: ${line.join(", ")}`)
  }
} finally {
  writer?.close()
}
for (const p of probes) {
  const w = wall.get(p.name) ?? []
  console.log(`${p.name}: median ${median(w).toFixed(1)} ms, CPU ${median(cpu.get(p.name) ?? []).toFixed(1)} ms (${w.length} rounds, ${mode})`)
}
