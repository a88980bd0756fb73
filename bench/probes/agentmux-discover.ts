/**
 * Probe of figure (b), in process: the library's AgentMux discovery (the
 * incremental scan of the agent's zones through the state database), timed
 * from the call to its report, without Node's and the modules' start-up
 * (also the CPU time of that window, `cpuMs`). The window holds the layer's
 * start-up, the adapter's making and the whole discovery (store open, state
 * load, scan, state commit, report); the AgentMux adapter's module is loaded
 * before it, as the registry loads it on first use (module loading is
 * start-up, as Node's is: a running program, as AgentMux is when it rescans,
 * has it loaded). `node agentmux-discover.mjs STORE STATE UID`.
 */
import * as Effect from "effect/Effect"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { report } from "../floors/report.js"

const [store, state, uid] = process.argv.slice(2)
await import("../../src/layers/agentmux/adapter.js")
const program = Effect.gen(function*() {
  const adapter = yield* (yield* SessionSources).get("agentmux")
  return yield* adapter.discover({ agentId: uid })
}).pipe(Effect.provide(App.layer({ workspaceRoots: [process.cwd()], agentmuxStore: store, stateFile: state })))

const t0 = performance.now()
const cpu0 = process.cpuUsage()
const r = await Effect.runPromise(program)
const cpu = process.cpuUsage(cpu0)
// CPU time of the same window (user + system, ms): what the scan itself cost, less sensitive to a loaded machine.
report(t0, { cpuMs: (cpu.user + cpu.system) / 1000, sources: r.sourceCount, status: r.status })
