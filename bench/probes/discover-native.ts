/**
 * In-process probe of figure (c)'s library part: `discover()` of the Muse Code
 * adapter over a native root, run `PASSES` times in one process (the first
 * pass pays the compilation of its code), each timed (wall and CPU of the
 * process), without the CLI's start-up and output. `npx tsx
 * bench/probes/discover-native.ts ROOT WORKSPACE [PASSES]`.
 */
import * as Effect from "effect/Effect"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"

const [root, workspace, passesArg] = process.argv.slice(2)
const passes = Number(passesArg ?? 5)

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const sysMs = () => process.cpuUsage().system / 1000

const program = Effect.gen(function*() {
  const adapter = yield* (yield* SessionSources).get("muse-code")
  for (let i = 0; i < passes; i++) {
    const t = performance.now()
    const c = cpuMs()
    const sy = sysMs()
    const r = yield* adapter.discover({})
    process.stdout.write(`pass ${i}: ${(performance.now() - t).toFixed(0)} ms wall, ${(cpuMs() - c).toFixed(0)} ms CPU (${(sysMs() - sy).toFixed(0)} ms system), ${r.sourceCount} sources, coverage ${r.coverage}\n`)
  }
}).pipe(Effect.provide(App.layer({ museRoots: [root], workspaceRoots: [workspace] })))

Effect.runPromise(program).catch((e) => {
  process.stderr.write(`${String(e)}\n`)
  process.exit(1)
})
