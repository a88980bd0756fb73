/**
 * Probe (issue 13 item 1): a parse worker's per-source work (`parseWhole`, see
 * `src/layers/index/parse-worker-work.ts`) over every `session.jsonl` of a
 * native root, in this one thread, as the pool's workers do it (16 sources per
 * shape table), and, with `--clone`, the structured clone of each answer the
 * message to the main thread costs. Prints the CPU time (user + system) of
 * the loop and the events; run with `node --cpu-prof` to see where it goes.
 * With `--step N`, also the CPU time of each N sources in turn (`msPerStep`,
 * ms): how the cost falls while the thread warms up (issue 13: a worker's
 * first ~6,000 sources cost about twice the later ones), round by round.
 * `npx tsx bench/probes/parse-worker-cpu.ts ROOT WORKSPACE [--rounds N] [--clone] [--step N]`.
 */
import * as Effect from "effect/Effect"
import * as App from "../../src/layers/app.js"
import { parseWhole } from "../../src/layers/index/parse-worker-work.js"
import { ShapeTable, StringTable } from "../../src/layers/index/parse-pool.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { SourceAccess } from "../../src/services/SourceAccess.js"
import type { ProviderId } from "../../src/domain/model.js"
import { nativeLogsUnder } from "../lib/native-logs.js"

const [root, workspace, ...rest] = process.argv.slice(2)
const rounds = rest.includes("--rounds") ? Number(rest[rest.indexOf("--rounds") + 1]) : 1
const clone = rest.includes("--clone")
/** Sources per `msPerStep` entry (0: none); a multiple of 16 keeps each entry to whole requests. */
const step = rest.includes("--step") ? Number(rest[rest.indexOf("--step") + 1]) : 0
const logs = nativeLogsUnder(root).sort()

const program = Effect.gen(function*() {
  const registry = yield* SessionSources
  const access = yield* SourceAccess
  for (let round = 0; round < rounds; round++) {
    const c0 = process.cpuUsage()
    let events = 0
    let whole = 0
    let cloneUs = 0
    const msPerStep: Array<number> = []
    let stepAt = process.cpuUsage()
    let stepSources = 0
    for (let i = 0; i < logs.length; i += 16) {
      // One shape table and one word table per request of 16 sources, as the worker has.
      const shapes = new ShapeTable()
      const words = new StringTable()
      const answers = []
      for (const path of logs.slice(i, i + 16)) {
        const a = yield* parseWhole(registry, access, {
          provider: "muse-code" as ProviderId,
          locator: { locatorClass: "muse-native-session-log", path },
          batchSize: 500
        }, shapes, words)
        if (a._tag === "whole") {
          whole++
          for (const b of a.batches) events += b.events.eventIds.length
        }
        answers.push(a)
      }
      if (clone) {
        const t0 = process.cpuUsage()
        structuredClone(answers)
        const t = process.cpuUsage(t0)
        cloneUs += t.user + t.system
      }
      stepSources += Math.min(16, logs.length - i)
      if (step > 0 && (stepSources >= step || i + 16 >= logs.length)) {
        const d = process.cpuUsage(stepAt)
        msPerStep.push(Math.round((d.user + d.system) / 1000))
        stepAt = process.cpuUsage()
        stepSources = 0
      }
    }
    const c = process.cpuUsage(c0)
    process.stdout.write(JSON.stringify({ round, sources: logs.length, whole, events, cpuMs: Math.round((c.user + c.system) / 1000), cloneMs: Math.round(cloneUs / 1000), ...(step > 0 ? { msPerStep } : {}) }) + "\n")
  }
})
await Effect.runPromise(program.pipe(Effect.provide(App.layer({ museRoots: [root], workspaceRoots: [workspace] }))))
