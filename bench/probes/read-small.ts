/**
 * Probe of the fixed cost of reading one small source (issue 13, "fixed cost
 * per source"), in process: for each native log of a root written by
 * `generate/native.ts` `writeNativeRoot`, what the importer asks of the
 * adapter before and while it reads a source (`parts`, then `streamAtOnce`,
 * or `stream` when the adapter does not read the source at once, with
 * `includeSubagents` and an `onRead`), run to its last event, one source at a
 * time; against a floor of the same file read whole with `readFileSync`, split
 * into lines and `JSON.parse`d. Both passes run twice, interleaved, and the
 * faster of each is reported (µs per source), in wall time and in the
 * process's CPU time (user + system: steadier than wall time on a loaded machine).
 * `node read-small.mjs ROOT [WORKSPACE]` (the root must exist).
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { report } from "../floors/report.js"
import { nativeLogsUnder } from "../lib/native-logs.js"

const [root, workspace] = process.argv.slice(2)

const logsUnder = (dir: string): Array<string> => nativeLogsUnder(dir).sort()

const logs = logsUnder(root)

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

const floorPass = (): { ms: number; cpu: number; lines: number } => {
  const t = performance.now()
  const c = cpuMs()
  let lines = 0
  for (const p of logs) {
    const text = fs.readFileSync(p, "utf8")
    for (const l of text.split("\n")) {
      if (l.length === 0) continue
      JSON.parse(l)
      lines++
    }
  }
  return { ms: performance.now() - t, cpu: cpuMs() - c, lines }
}

const productPass = Effect.gen(function*() {
  const adapter = yield* (yield* SessionSources).get("muse-code")
  const t = performance.now()
  const c = cpuMs()
  let events = 0
  let bytes = 0
  for (const path of logs) {
    const locator = { path, locatorClass: "muse-native-session-log" as const }
    if (adapter.parts !== undefined) yield* adapter.parts(locator)
    const options = {
      includeSubagents: true,
      onDiagnostic: () => {},
      onRead: (r: { readonly bytes: Uint8Array }) => {
        bytes += r.bytes.length
      }
    }
    const streamed = (s: Stream.Stream<{ readonly sourceId: string }, unknown>) =>
      Stream.runForEachChunk(s, (c) =>
        Effect.sync(() => {
          events += c.length
        }))
    // As the importer: a source the adapter reads at once, else its stream.
    const whole = adapter.streamAtOnce === undefined ? undefined : yield* adapter.streamAtOnce(locator, options)
    if (whole === undefined) yield* streamed(adapter.stream(locator, options))
    else {
      events += whole.events.length
      if (whole.then !== undefined) yield* streamed(whole.then)
    }
  }
  return { ms: performance.now() - t, cpu: cpuMs() - c, events, bytes }
}).pipe(Effect.provide(App.layer({ museRoots: [root], workspaceRoots: [workspace ?? root] })))

const t0 = performance.now()
const floors: Array<number> = []
const products: Array<number> = []
const floorCpu: Array<number> = []
const productCpu: Array<number> = []
let events = 0
let lines = 0
for (let i = 0; i < 2; i++) {
  const f = floorPass()
  floors.push(f.ms)
  floorCpu.push(f.cpu)
  lines = f.lines
  const p = await Effect.runPromise(productPass)
  products.push(p.ms)
  productCpu.push(p.cpu)
  events = p.events
}
const usPerSource = (ms: number) => (ms * 1000) / logs.length
report(t0, {
  sources: logs.length,
  lines,
  events,
  usPerSource: usPerSource(Math.min(...products)),
  floorUsPerSource: usPerSource(Math.min(...floors)),
  cpuUsPerSource: usPerSource(Math.min(...productCpu)),
  floorCpuUsPerSource: usPerSource(Math.min(...floorCpu)),
  samplesMs: { product: products, floor: floors }
})
