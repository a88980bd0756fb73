/**
 * Probe of figure (b), in process: the library's AgentMux discovery (the
 * incremental scan of the agent's zones through the state database), timed
 * from the call to its report, without Node's and the modules' start-up.
 * `node agentmux-discover.mjs STORE STATE UID`.
 */
import * as Effect from "effect/Effect"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { report } from "../floors/report.js"

const [store, state, uid] = process.argv.slice(2)
const program = Effect.gen(function*() {
  const adapter = yield* (yield* SessionSources).get("agentmux")
  return yield* adapter.discover({ agentId: uid })
}).pipe(Effect.provide(App.layer({ workspaceRoots: [process.cwd()], agentmuxStore: store, stateFile: state })))

const t0 = performance.now()
const r = await Effect.runPromise(program)
report(t0, { sources: r.sourceCount, status: r.status })
