/**
 * Probe of figure b-rescan-warm-<mode> (issue 13, item 4), in process: the
 * AgentMux rescan in a process that keeps running, as `import --watch` and
 * the MCP server do (AgentMux, a running program, rescans from its own
 * process). One runtime (the layer built once); then `rounds` times:
 * 1 MiB appended through a writer this process keeps open (as a running
 * AgentMux keeps its store), and the library's discover() timed from its
 * call to its report, with the CPU time of that window. The first rescan
 * warms the code (it is b-rescan's cold case) and is reported apart; a rescan
 * that followed a checkpoint of a WAL store (its main file changed: it is
 * copied again) is reported apart too. Prints one JSON line:
 * `{ ms (median warm), warm: [...], warmCpu: [...], cold, afterCheckpoint: [...] }`.
 * `node agentmux-warm.mjs STORE STATE UID SEED ROUNDS APPEND_BYTES`.
 */
import * as fs from "node:fs"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { appendToAgentMuxStore } from "../generate/agentmux.js"

const [store, state, uid, seedS, roundsS, bytesS] = process.argv.slice(2)
await import("../../src/layers/agentmux/adapter.js")
const runtime = ManagedRuntime.make(App.layer({ workspaceRoots: [process.cwd()], agentmuxStore: store, stateFile: state }))
const discover = Effect.gen(function*() {
  const adapter = yield* (yield* SessionSources).get("agentmux")
  return yield* adapter.discover({ agentId: uid })
})
const mainFile = () => {
  const st = fs.statSync(store)
  return `${st.ino}-${st.size}-${st.mtimeMs}`
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? null
const writer = new Database(store)
const warm: Array<number> = []
const warmCpu: Array<number> = []
const afterCheckpoint: Array<number> = []
let cold: { ms: number; cpuMs: number } | undefined
const statuses = new Set<string>()
let lastMain = mainFile()
for (let i = 0; i < Number(roundsS); i++) {
  appendToAgentMuxStore(store, uid, Number(bytesS), Number(seedS) + i, writer)
  // A rollback-journal store's main file changes with every append; a WAL store's only when a checkpoint wrote it.
  const checkpointed = fs.existsSync(`${store}-wal`) && mainFile() !== lastMain
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const r = await runtime.runPromise(discover)
  const cpu = process.cpuUsage(cpu0)
  const ms = performance.now() - t0
  const cpuMs = (cpu.user + cpu.system) / 1000
  statuses.add(r.status)
  if (i === 0) cold = { ms, cpuMs }
  else if (checkpointed) afterCheckpoint.push(ms)
  else (warm.push(ms), warmCpu.push(cpuMs))
  lastMain = mainFile()
  // A running process idles between appends: its timers and GC tasks run there, not in the next rescan.
  await new Promise((resolve) => setTimeout(resolve, 50))
}
writer.close()
await runtime.dispose()
process.stdout.write(JSON.stringify({ ms: median(warm), cpuMs: median(warmCpu), warm, warmCpu, cold, afterCheckpoint, statuses: [...statuses], maxRssKiB: process.resourceUsage().maxRSS }) + "\n")
