/**
 * Probe of figure (s-latency-pg), search (issues 14 and 17) on PostgreSQL, in process:
 * - `node search-pg.mjs build URL EVENTS`: migrate the (empty) database at
 *   URL, then synthesize EVENTS events (`../generate/search-corpus.ts`, the
 *   corpus of figure (s), 1,000 a session) into it through the PostgreSQL
 *   layer's `Index.commitBatch` (1,000 events a batch), search maintenance
 *   included; reports the time and the events' NDJSON bytes.
 * - `node search-pg.mjs query URL EVENTS`: the 100 queries of figure (s)
 *   through `Index.search`, each timed from the call to its hits (snippets
 *   included); and, as the floor, each query's bare match on the same
 *   server: `SELECT doc FROM search_docs WHERE words @@ $1::tsquery ORDER BY
 *   doc DESC LIMIT 20` (the GIN index, no ranking, filter, join or
 *   snippet), the query compiled as `Index.search` compiles it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import pg from "pg"
import { emptySourceSummary } from "../../src/domain/model.js"
import { compileTsQuery } from "../../src/domain/search/query.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { benchQueries, corpusEvent, PROVIDERS, SESSION_EVENTS, titleOf } from "../generate/search-corpus.js"

const [mode, url, eventsArg] = process.argv.slice(2)
const total = Number(eventsArg)

const build = async () => {
  await Effect.runPromise(IndexPostgres.migrate(url))
  let sourceBytes = 0
  const program = Effect.gen(function*() {
    const index = yield* Index
    for (let s = 0; s * SESSION_EVENTS < total; s++) {
      const source: SourceInfo = {
        sourceKey: `bench-${s}`,
        provider: PROVIDERS[s % PROVIDERS.length],
        locator: { locatorClass: "muse-agent-transcript", path: `/bench/${s}.jsonl` },
        summary: {},
        overview: { ...emptySourceSummary(`bench-session-${s}`), title: titleOf(s), workspace: `/work/project-${s % 20}` }
      }
      yield* index.beginGeneration(source, 1, "bench")
      const n = Math.min(SESSION_EVENTS, total - s * SESSION_EVENTS)
      const events = Array.from({ length: n }, (_, j) => corpusEvent(s, j))
      for (const e of events) sourceBytes += Buffer.byteLength(JSON.stringify(e)) + 1
      yield* index.commitBatch({ source, generation: 1, events }, () => Effect.void)
      yield* index.completeSource(source, null)
    }
  })
  const t0 = performance.now()
  await Effect.runPromise(Effect.provide(program, IndexPostgres.layer({ url, machine: "bench" })))
  const ms = performance.now() - t0
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query("VACUUM ANALYZE")
  await client.end()
  process.stdout.write(JSON.stringify({ ms, events: total, sourceBytes }) + "\n")
}

const query = async () => {
  const queries = benchQueries(total)
  const samples: Array<{ kind: string; query: string; ms: number; hits: number; floorMs: number }> = []
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const program = Effect.scoped(Effect.gen(function*() {
    const index = Context.get(yield* Layer.build(IndexPostgres.layer({ url })), Index)
    // One warm-up query each way (connections opened, the index's pages read once).
    yield* index.search("warmup", {})
    yield* Effect.promise(() => client.query("SELECT doc FROM search_docs WHERE words @@ $1::tsquery ORDER BY doc DESC LIMIT 20", ["'warmup'"]))
    for (const q of queries) {
      const t0 = performance.now()
      const hits = yield* index.search(q.query, q.filter)
      const ms = performance.now() - t0
      const compiled = Either.getOrThrow(compileTsQuery(q.query))
      const t1 = performance.now()
      yield* Effect.promise(() => client.query("SELECT doc FROM search_docs WHERE words @@ $1::tsquery ORDER BY doc DESC LIMIT 20", [compiled.tsquery]))
      const floorMs = performance.now() - t1
      samples.push({ kind: q.kind, query: q.query, ms, hits: hits.length, floorMs })
    }
  }))
  await Effect.runPromise(program)
  await client.end()
  process.stdout.write(JSON.stringify({ samples }) + "\n")
}

await (mode === "build" ? build() : query())
