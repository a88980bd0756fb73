/**
 * Probe: reading one big session's events in order, a page at a time
 * (`Index.eventsStream`, what `show`, `export`, `replay` and MCP's
 * `get_session`/`get_events` run), on SQLite or PostgreSQL, in process:
 * - `node session-events.mjs build ENGINE TARGET BIG OTHERS`: a fresh index
 *   (ENGINE `sqlite`: the file TARGET; `postgres`: the migrated empty database
 *   at URL TARGET) holding one session of BIG events imported twice (generation
 *   1, then a rewrite: generation 2; the superseded one stays in the table, as
 *   it does after a source is rewritten) and OTHERS sessions of 1,000 events
 *   each, through `Index.commitBatch` (1,000 events a batch); then ANALYZE.
 * - `node session-events.mjs read ENGINE TARGET [ROUNDS]`: the big session
 *   streamed whole by `Index.eventsStream` (its default page, 1,000 events),
 *   ROUNDS times (default 3) after one warm-up page; answers the events read
 *   and each round's wall and CPU time (user + system of this process).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import pg from "pg"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { sessionUid } from "../../src/domain/index/ids.js"
import { corpusEvent, PROVIDERS } from "../generate/search-corpus.js"

const [mode, engine, target, a, b] = process.argv.slice(2)
const MACHINE = "bench"

const layerOf = (write: boolean) =>
  engine === "postgres"
    ? IndexPostgres.layer({ url: target, ...(write ? { machine: MACHINE } : {}) })
    : IndexSqlite.layer(target)

/** Event `j` of session `s` (the search corpus's events, the session's ids its own). */
const eventOf = (s: number, j: number): SessionEvent => ({
  ...corpusEvent(s, j),
  provider: PROVIDERS[0],
  sourceId: `sha256:session-events-${s}`,
  sessionId: `session-events-${s}`
})

const sourceOf = (s: number): SourceInfo => ({
  sourceKey: `session-events-${s}`,
  provider: PROVIDERS[0],
  locator: { locatorClass: "muse-agent-transcript", path: `/bench/session-events-${s}.jsonl` },
  summary: {},
  overview: { ...emptySourceSummary(`session-events-${s}`), title: `session ${s}`, workspace: "/work/p" }
})

const build = async (big: number, others: number) => {
  if (engine === "postgres") await Effect.runPromise(IndexPostgres.migrate(target))
  const program = Effect.gen(function*() {
    const index = yield* Index
    const importSession = (s: number, n: number, generation: number) =>
      Effect.gen(function*() {
        const source = sourceOf(s)
        yield* index.beginGeneration(source, generation, "bench")
        for (let j = 0; j < n; j += 1000) {
          const events = Array.from({ length: Math.min(1000, n - j) }, (_, k) => eventOf(s, j + k))
          yield* index.commitBatch({ source, generation, events }, () => Effect.void)
        }
        yield* index.completeSource(source, null)
      })
    for (let s = 1; s <= others; s++) yield* importSession(s, 1000, 1)
    yield* importSession(0, big, 1)
    yield* importSession(0, big, 2)
  })
  const t0 = performance.now()
  await Effect.runPromise(Effect.provide(program, layerOf(true)))
  const ms = performance.now() - t0
  if (engine === "postgres") {
    const client = new pg.Client({ connectionString: target })
    await client.connect()
    await client.query("VACUUM ANALYZE")
    await client.end()
  }
  process.stdout.write(JSON.stringify({ ms, big, others }) + "\n")
}

const read = async (rounds: number) => {
  const uid = sessionUid(PROVIDERS[0], `sha256:session-events-0`, `session-events-0`, engine === "postgres" ? MACHINE : undefined)
  const program = Effect.scoped(Effect.gen(function*() {
    const index = Context.get(yield* Layer.build(layerOf(false)), Index)
    yield* Stream.runDrain(Stream.take(index.eventsStream(uid), 1))
    const out: Array<{ events: number; wallMs: number; cpuMs: number }> = []
    for (let r = 0; r < rounds; r++) {
      const c0 = process.cpuUsage(), t0 = performance.now()
      const events = yield* Stream.runCount(index.eventsStream(uid))
      const wallMs = performance.now() - t0, c = process.cpuUsage(c0)
      out.push({ events, wallMs, cpuMs: (c.user + c.system) / 1000 })
    }
    return out
  }))
  const runs = await Effect.runPromise(program)
  process.stdout.write(JSON.stringify({ engine, runs }) + "\n")
}

await (mode === "build" ? build(Number(a), Number(b)) : read(Number(a ?? 3)))
