/**
 * Probe and floor of figure (m), migration 0006 (the lean record) on a large
 * index: `node --import tsx migrate-lean.ts legacy|migrate|floor FILE`.
 * - `legacy`: rewrite the current-layout index FILE into the layout before
 *   0006 (every event a row of `events` with its whole JSON; search and usage
 *   as migrations 0004-0005 made them), as `test/support/legacy-index.ts`
 *   does for the tests;
 * - `migrate`: run the migrations after 0005 on FILE (what the next import
 *   of a user's old index does), timed;
 * - `floor`: copy the same `events` rows into a new table with one
 *   `INSERT … SELECT` in one transaction (raw better-sqlite3), timed.
 *
 * Prints `{ms, maxRssKiB, stepMs, events}`: `stepMs` the timed step, `events`
 * the rows of `events` before it.
 */
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [mode, file] = process.argv.slice(2)
if (file === undefined || !["legacy", "migrate", "floor"].includes(mode)) {
  process.stderr.write("usage: migrate-lean.ts legacy|migrate|floor FILE\n")
  process.exit(2)
}

const countEvents = (f: string): number => {
  const db = new Database(f, { readonly: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n
  } finally {
    db.close()
  }
}

const legacy = Effect.gen(function*() {
  const dump = yield* Effect.flatMap(Index, (i) => i.dump).pipe(Effect.provide(IndexSqlite.layer(file)))
  const events = dump.events as ReadonlyArray<{
    source_key: string
    generation: number
    event_uid: string
    session_uid: string
    sequence: number
    kind: string
    occurred_at: string | null
    event_json: string
  }>
  const db = new Database(file)
  db.exec(`CREATE TABLE events (
      source_key TEXT NOT NULL, generation INTEGER NOT NULL, event_uid TEXT NOT NULL, session_uid TEXT NOT NULL,
      provider TEXT NOT NULL, source_id TEXT NOT NULL, session_id TEXT NOT NULL, sequence INTEGER NOT NULL, kind TEXT NOT NULL,
      occurred_at TEXT, event_json TEXT NOT NULL, attempt INTEGER, PRIMARY KEY (source_key, generation, event_uid))`)
  db.exec("CREATE INDEX events_by_session ON events (session_uid, generation, sequence)")
  const put = db.prepare(`INSERT INTO events (source_key, generation, event_uid, session_uid, provider, source_id, session_id, sequence, kind,
    occurred_at, event_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    for (const r of events) {
      const e = JSON.parse(r.event_json) as { provider: string; sourceId: string; sessionId: string }
      put.run(r.source_key, r.generation, r.event_uid, r.session_uid, e.provider, e.sourceId, e.sessionId, r.sequence, r.kind, r.occurred_at, r.event_json)
    }
  })()
  db.exec(`DROP TRIGGER records_search_gone; DROP TRIGGER streams_search_gone; DROP TRIGGER sessions_search_gone;
           DROP TABLE search; DROP TABLE records; DROP TABLE streams; DROP TABLE shapes; DROP TABLE usage;
           DELETE FROM si_migrations WHERE migration_id >= 4;`)
  db.exec("VACUUM")
  db.close()
  yield* IndexSqlite.migrateThrough(file, 5)
  return events.length
})

const main = async () => {
  if (mode === "legacy") {
    const events = await Effect.runPromise(legacy)
    report(t0, { stepMs: performance.now() - t0, events })
    return
  }
  const events = countEvents(file)
  const s = performance.now()
  if (mode === "migrate") await Effect.runPromise(IndexSqlite.migrateThrough(file, 99))
  else {
    const db = new Database(file)
    db.transaction(() => {
      db.exec("CREATE TABLE events_copy AS SELECT * FROM events WHERE 0")
      db.exec("INSERT INTO events_copy SELECT * FROM events")
    })()
    db.close()
  }
  report(t0, { stepMs: performance.now() - s, events })
}
main().catch((e) => {
  process.stderr.write(`${String(e)}\n`)
  process.exit(1)
})
