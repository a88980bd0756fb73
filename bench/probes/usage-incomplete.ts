/**
 * Probe: the usage report (`usageReport`, what `usage` and MCP run) on an index of many sessions, a few of them
 * incomplete, in process:
 * - `node usage-incomplete.mjs build ENGINE TARGET SESSIONS`: a fresh index (ENGINE `sqlite`: the file TARGET;
 *   `postgres`: the migrated empty database at URL TARGET) of SESSIONS complete sessions of 3 events each and 3
 *   incomplete ones (their import stopped part-way), through `Index.commitBatch`.
 * - `node usage-incomplete.mjs report ENGINE TARGET [ROUNDS]`: `usageReport({ by: "day" })` ROUNDS times (default 5)
 *   after one warm-up; answers each round's wall and CPU time (user + system of this process) and the
 *   sessions-incomplete note.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CONTRACT_VERSION, emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { bundledPrices } from "../../src/domain/prices.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { usageReport } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"

const [mode, engine, target, a] = process.argv.slice(2)

const layerOf = (write: boolean) =>
  engine === "postgres" ? IndexPostgres.layer({ url: target, ...(write ? { machine: "bench" } : {}) }) : IndexSqlite.layer(target)

const eventOf = (s: number, j: number): SessionEvent => ({
  contractVersion: CONTRACT_VERSION, provider: "muse-agents", sourceId: `sha256:usage-${s}`, sessionId: `usage-${s}`, eventId: `e${j}`,
  sequence: j, kind: "message", role: "assistant", toolName: null, toolCallId: null, model: null,
  occurredAt: new Date(Date.UTC(2025, 0, 1 + (s % 300), 10, 0, j)).toISOString(), text: `event ${j}`, cursor: `c${j}`,
  rawReference: { locatorClass: "muse-agent-transcript", sequence: j }, extensions: {}, toolInput: null, isError: null,
  compaction: null, parent: null, child: null, usage: null, responseId: null, costUsd: null
})

const build = async (sessions: number) => {
  if (engine === "postgres") await Effect.runPromise(IndexPostgres.migrate(target))
  const program = Effect.gen(function*() {
    const index = yield* Index
    for (let s = 0; s < sessions + 3; s++) {
      const source: SourceInfo = {
        sourceKey: `usage-${s}`, provider: "muse-agents",
        locator: { locatorClass: "muse-agent-transcript", path: `/bench/usage-${s}.jsonl` }, summary: {},
        overview: { ...emptySourceSummary(`usage-${s}`), title: `session ${s}`, workspace: "/work/p" }
      }
      yield* index.beginGeneration(source, 1, "bench")
      yield* index.commitBatch({ source, generation: 1, events: [0, 1, 2].map((j) => eventOf(s, j)) }, () => Effect.void)
      if (s < sessions) yield* index.completeSource(source, null)
    }
  })
  await Effect.runPromise(Effect.provide(program, layerOf(true)))
  process.stdout.write(JSON.stringify({ sessions }) + "\n")
}

const report = async (rounds: number) => {
  const program = Effect.scoped(Effect.gen(function*() {
    const index = Context.get(yield* Layer.build(layerOf(false)), Index)
    const run = usageReport({ by: "day" }, bundledPrices).pipe(Effect.provideService(Index, index))
    yield* run
    const out: Array<{ wallMs: number; cpuMs: number; note: unknown }> = []
    for (let r = 0; r < rounds; r++) {
      const c0 = process.cpuUsage(), t0 = performance.now()
      const rep = yield* run
      const wallMs = performance.now() - t0, c = process.cpuUsage(c0)
      out.push({ wallMs, cpuMs: (c.user + c.system) / 1000, note: rep.notes.find((n) => n.kind === "sessions-incomplete") })
    }
    return out
  }))
  process.stdout.write(JSON.stringify({ engine, runs: await Effect.runPromise(program) }) + "\n")
}

await (mode === "build" ? build(Number(a)) : report(Number(a ?? 5)))
