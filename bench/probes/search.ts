/**
 * Probe of figure (g), search (issue 14), in process:
 * - `node search.mjs build FILE EVENTS search|nosearch`: synthesize EVENTS
 *   events (`../generate/search-corpus.ts`, 1,000 a session) straight into
 *   the index through `Index.commitBatch` (1,000 events a batch, as the
 *   importer commits them), with its search maintenance, or without it (the
 *   same index with its search table made a view that keeps nothing before
 *   the first batch);
 *   reports the time, the events' NDJSON bytes (the "source") and the index
 *   file's bytes.
 * - `node search.mjs query FILE EVENTS`: the 100 queries of mixed kinds
 *   through `Index.search`, each timed from the call to its hits (snippets
 *   included); and, as the floor, each query's FTS5 MATCH alone (`ORDER BY
 *   rank LIMIT 20`, no filter, no join, no snippet) through better-sqlite3.
 */
import * as fs from "node:fs"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { emptySourceSummary } from "../../src/domain/model.js"
import { compileQuery } from "../../src/domain/search/query.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { benchQueries, corpusEvent, PROVIDERS, SESSION_EVENTS, titleOf } from "../generate/search-corpus.js"

const [mode, file, eventsArg, variant] = process.argv.slice(2)
const total = Number(eventsArg)

const sizeOf = (f: string) => [f, `${f}-wal`].reduce((n, p) => n + (fs.existsSync(p) ? fs.statSync(p).size : 0), 0)

const build = async () => {
  if (variant === "nosearch") {
    // The index as this build makes it, then without its search table: in its place a view that takes the
    // writes and keeps nothing, so commitBatch maintains no search words.
    await Effect.runPromise(Effect.asVoid(Effect.provide(Index, IndexSqlite.layer(file))))
    const db = new Database(file)
    db.exec(`DROP TRIGGER records_search_gone; DROP TRIGGER streams_search_gone; DROP TRIGGER sessions_search_gone; DROP TABLE search;
             CREATE VIEW search AS SELECT 0 AS rowid, '' AS text, '' AS input WHERE 0;
             CREATE TRIGGER search_in INSTEAD OF INSERT ON search BEGIN SELECT 1; END;
             CREATE TRIGGER search_out INSTEAD OF DELETE ON search BEGIN SELECT 1; END;`)
    db.close()
  }
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
  await Effect.runPromise(Effect.provide(program, IndexSqlite.layer(file)))
  const ms = performance.now() - t0
  process.stdout.write(JSON.stringify({ ms, events: total, sourceBytes, indexBytes: sizeOf(file) }) + "\n")
}

const query = async () => {
  const queries = benchQueries(total)
  const samples: Array<{ kind: string; query: string; ms: number; hits: number; floorMs: number }> = []
  const db = new Database(file, { readonly: true })
  const raw = db.prepare("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 20")
  const program = Effect.gen(function*() {
    const index = yield* Index
    // One warm-up query (the first read of the file's pages).
    yield* index.search("warmup", {})
    for (const q of queries) {
      const t0 = performance.now()
      const hits = yield* index.search(q.query, q.filter)
      const ms = performance.now() - t0
      const match = Either.getOrThrow(compileQuery(q.query)).match
      const t1 = performance.now()
      raw.all(match)
      const floorMs = performance.now() - t1
      samples.push({ kind: q.kind, query: q.query, ms, hits: hits.length, floorMs })
    }
  })
  await Effect.runPromise(Effect.provide(program, IndexSqlite.layerReadonly(file)))
  db.close()
  process.stdout.write(JSON.stringify({ samples }) + "\n")
}

await (mode === "build" ? build() : query())
