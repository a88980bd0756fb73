/**
 * An index as the build before the lean record (migration 0006) left it:
 * every event a row of `events` holding its whole JSON, search documents in
 * `search_docs`. Made from an index of this build (its events read back,
 * all generations), so tests can check that such an index reads, and
 * migrates, to the very same events. Used by the tests and by bench figure
 * (m) (`bench/probes/migrate-lean.ts`), so it imports no test framework.
 */
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"

/**
 * Rewrite the current-layout index `file` into the layout of migrations 0001-0005 (what the build before 0006 made).
 * Succeeds with the number of rows written to `events`.
 */
export const toLegacyLayout = (file: string) =>
  Effect.gen(function*() {
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
             DROP TRIGGER push_journal_insert; DROP TRIGGER push_journal_update; DROP TRIGGER push_journal_delete;
             DROP TABLE push_journal; DROP TABLE push_origin; DROP TABLE push_changes;
             DELETE FROM si_migrations WHERE migration_id >= 4;`)
    db.close()
    // Search and usage as migrations 0004 and 0005 made them from the stored events.
    yield* IndexSqlite.migrateThrough(file, 5)
    return events.length
  })
