/**
 * The SQLite layer of {@link Index}: one embedded database file on
 * better-sqlite3 (`./sqlite-connection.ts`), schema migrations and queries
 * through `@effect/sql`, the import's writes through prepared statements
 * (`./sqlite-writer.ts`), each batch with its checkpoint, in transactions
 * shared across sources, so a process killed at any point leaves the index
 * consistent. Events are stored lean and read back whole (`eventOfRow` in
 * `./rows.ts`), in the layout of migration 0006, or, read without
 * migrating, in an older index's.
 *
 * @module
 */
import { LONG_CONTEXT_THRESHOLD } from "../../domain/prices.js"
import { RANK_WINDOW } from "../../domain/search/limits.js"
import { randomInt } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { StoreUnavailable, UnsupportedOperation } from "../../domain/errors.js"
import { compileQuery, type CompiledQuery, ftsFold0012, ftsFold0013, type QueryNode, type SearchFold } from "../../domain/search/query.js"
import { ftsText, searchableText } from "../../domain/search/text.js"
import { upgradeEvent } from "../../domain/contract-upgrade.js"
import { sortKey } from "../../domain/timestamps.js"
import {
  checkpointColumns,
  type CheckpointRow,
  eventOfRow,
  INDEX_LEAN,
  leanEvent,
  searchFilterSql,
  workspaceSql,
  bookedModel,
  countedElsewhereUsage,
  firstSeenUsageOf,
  countedSource,
  searchHitOf,
  searchHitOfEvent,
  type SessionDbRow,
  type ShapePlan,
  shapePlan,
  toCheckpoint,
  leanCheckpointColumns,
  sourceCheckpointColumns,
  toLeanCheckpointOfValues,
  toSourceCheckpoint,
  toSourceCheckpointOfValues,
  nextGenerationOf,
  inTimeRange,
  sortKeySql,
  statusSql,
  timeRangeSql,
  toSessionRow
} from "./rows.js"
import { type Driver, openConnection } from "./sqlite-connection.js"
import { type ImportLock, importLock, type ImportLockOptions } from "./import-lock.js"
import { type AttemptState, BASE_COLUMNS, type BaseRow, IndexWriter, uidBytes, uidText } from "./sqlite-writer.js"
import { eventUid, sourceKey } from "../../domain/index/ids.js"
import { checkOwnedSqlite, createOwnedSqlite, guardStore, INDEX_APPLICATION_ID, journaledHeader, type Ownership, ownershipWhenOpen } from "../owned-sqlite.js"
import { failStore, isUndecodableData, primaryFailure, type StoreRole, storeFailureFields, tryStore, undecodableRowFields } from "../store-failure.js"
import { CONTRACT_VERSION, type ProviderId, type SessionEvent } from "../../domain/model.js"
import { bookedModelOf, groupRows, type UsageGroup, type UsageRow, usageRows } from "../../domain/usage.js"
import { newShownKey, SHOWN_KEY_NAME } from "../../domain/shown-ids.js"
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  sessionStatusOf,
  type EventsFrom,
  Index,
  type IndexShape,
  type SearchFilter,
  type SearchHit,
  type SourceCheckpoint,
  type StoredEvent,
  type SourceInfo,
  type UsageElsewhere,
  type UsageFilter
} from "../../services/Index.js"

/** A row of the `usage` table (see `domain/usage.ts`, {@link UsageRow}). */
type UsageDbRow = {
  readonly source_key: string
  readonly generation: number
  readonly session_uid: string
  readonly response_key: string
  readonly kind: "response" | "run"
  readonly provider: string
  readonly event_uid: string
  readonly sequence: number
  readonly occurred_at: string | null
  readonly model: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly cache_read_tokens: number | null
  readonly cache_write_tokens: number | null
  readonly cost_usd: number | null
  readonly run_seq: number | null
  /** The 1-hour part of `cache_write_tokens` (migration 0010; NULL: not said, priced at the 5-minute rate). */
  readonly cache_write_1h_tokens: number | null
  /** The speed the response ran at as its source wrote it (migration 0015; NULL: not said, or imported before it). */
  readonly speed: string | null
}

const usageDbRow = (
  r: Omit<UsageRow, "runSeq"> & { readonly runSeq?: number | null },
  sourceKey: string,
  generation: number,
  uid: string,
  provider: string
): UsageDbRow => ({
  source_key: sourceKey,
  generation,
  session_uid: uid,
  response_key: r.key,
  kind: r.kind,
  provider,
  event_uid: eventUid(provider as ProviderId, r.sourceId, r.sessionId, r.eventId),
  sequence: r.sequence,
  occurred_at: r.occurredAt,
  model: r.model,
  input_tokens: r.usage.inputTokens,
  output_tokens: r.usage.outputTokens,
  cache_read_tokens: r.usage.cacheReadTokens,
  cache_write_tokens: r.usage.cacheWriteTokens,
  cost_usd: r.costUsd,
  run_seq: r.runSeq ?? null,
  cache_write_1h_tokens: r.usage.cacheWrite1hTokens,
  speed: r.usage.speed ?? null
})

/** The stored events that may carry usage or a stated cost (any contract: 1.0.0 kept Claude Code's in its provenance). */
/**
 * The token sums of a usage group (the four counts and the 1-hour part of
 * the cache writes), each null when no row reports the count: `total()` (a
 * double) rather than `sum()`, which throws "integer overflow" past 2^63.
 * Each count is a non-negative safe integer, so a total that is still a safe
 * integer is exact, and one past 2^53 - 1 is flagged as not exact by
 * `summarizeGroups`. `oneHour`: whether the usage table has
 * `cache_write_1h_tokens` (an index read without migrating from before
 * migration 0010 has not: NULL, every cache write at the 5-minute rate).
 */
const tokenSums = (oneHour: boolean) =>
  ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", ...(oneHour ? ["cache_write_1h_tokens"] : [])]
    .map((c) => `CASE WHEN count(u.${c}) > 0 THEN total(u.${c}) END AS ${c}`).join(", ") +
  (oneHour ? "" : ", NULL AS cache_write_1h_tokens")

const MAY_CARRY_USAGE = `(kind = 'result' OR instr(event_json, '"usage":{') > 0)`

/**
 * Rebuild the usage rows of one session generation from its stored events
 * (upgraded to the current contract): what migration 0005 does for an index
 * imported before it, and what a rollback does for the sessions whose
 * events it removed. Reads only that session's events that may carry usage.
 */
const rebuildUsageLegacy = (sql: SqlClient.SqlClient, sourceKey: string, generation: number, uid: string) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM usage WHERE source_key = ${sourceKey} AND generation = ${generation} AND session_uid = ${uid}`
    const stored = yield* sql<{ event_json: string; provider: string }>`
      SELECT event_json, provider FROM events
      WHERE session_uid = ${uid} AND generation = ${generation} AND source_key = ${sourceKey} AND ${sql.unsafe(MAY_CARRY_USAGE)}
      ORDER BY sequence, event_uid`
    if (stored.length === 0) return
    const events = stored.map((r) => upgradeEvent(JSON.parse(r.event_json) as SessionEvent))
    // Migration 0005's table, before 0010 added the 1-hour column (filled by the import that next reads the source).
    const rows = usageRows(events).map((r) => {
      const { cache_write_1h_tokens: _, speed: _speed, ...row } = usageDbRow(r, sourceKey, generation, uid, r.provider)
      return row
    })
    for (let i = 0; i < rows.length; i += USAGE_CHUNK) yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}`
  })

/**
 * What makes a Claude response's row in AgentMux's record and in Claude
 * Code's log copies of one (firstSeenUsage's second window): the session id
 * and the `message.id` of its key; null for a row that is neither provider's
 * response with a message id.
 */
const mirrorIdOf = (r: UsageRow, sessionId: string): string | null =>
  r.kind === "response" && (r.provider === "claude-code" || r.provider === "agentmux") && r.key.startsWith("r:")
    ? `${sessionId}\u0000${r.key.slice(2).split(":")[0]}`
    : null

/** What makes two usage rows copies of one response (firstSeenUsage's first window): provider, key, tokens and stated cost. */
const usageIdOf = (r: UsageRow): string =>
  [r.provider, r.key, r.usage.inputTokens, r.usage.outputTokens, r.usage.cacheReadTokens, r.usage.cacheWriteTokens, r.costUsd].join("\u0000")

/** Usage rows per INSERT statement (16 columns each: well under SQLite's bound-parameter limit). */
const USAGE_CHUNK = 500

/** The columns of `sources` whose change a push must see (all but `updated_at`): migration 0007's journal. */
const JOURNALED_COLUMNS = [
  "source_key", "provider", "locator_json", "summary_json", "overview_json", "source_id", "generation", "cursor", "fingerprint",
  "status", "error_code", "error_message", "event_count", "prefix", "parts_json", "diagnostics_json", "attempt_json"
]

/**
 * A trigger's statements: the source (`new` or `old` row) takes the next journal number, one above every number
 * given so far (its row is updated in place, never deleted: the highest number never goes down).
 */
const JOURNAL_NOTE = (row: "new" | "old") =>
  `UPDATE push_journal SET seq = (SELECT max(seq) FROM push_journal) + 1 WHERE source_key = ${row}.source_key;
   INSERT INTO push_journal (source_key, seq)
     SELECT ${row}.source_key, coalesce((SELECT max(seq) FROM push_journal), 0) + 1
     WHERE NOT EXISTS (SELECT 1 FROM push_journal WHERE source_key = ${row}.source_key);`

/**
 * How many of the latest journal changes keep their id (migration 0008's `push_changes`): a push whose marker's
 * number is older than that reads every local checkpoint (as a first push does), so the table stays bounded.
 */
export const JOURNAL_CHANGES_KEPT = 100_000

/**
 * Migration 0008's trigger statements: {@link JOURNAL_NOTE}'s, then the change's number gets a random id of its own
 * (`push_changes`), and the ids of changes older than the last {@link JOURNAL_CHANGES_KEPT} go.
 */
const JOURNAL_CHANGE_NOTE = (row: "new" | "old") =>
  `${JOURNAL_NOTE(row)}
   INSERT OR REPLACE INTO push_changes (seq, id) SELECT max(seq), lower(hex(randomblob(8))) FROM push_journal;
   DELETE FROM push_changes WHERE seq <= (SELECT max(seq) FROM push_journal) - ${JOURNAL_CHANGES_KEPT};`

/**
 * The index's shown-id key (`IndexShape.shownIdKey`): migration 0011's row of `meta`; null without it (an index from
 * before it, read without migrating).
 */
const shownIdKey = (
  sql: SqlClient.SqlClient,
  fail: <A, R>(e: Effect.Effect<A, SqlError, R>) => Effect.Effect<A, StoreUnavailable, R>
): Effect.Effect<Uint8Array | null, StoreUnavailable> =>
  Effect.gen(function*() {
    const [{ n }] = yield* fail(sql<{ readonly n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`)
    if (n === 0) return null
    const [row] = yield* fail(sql<{ readonly value: Uint8Array }>`SELECT value FROM meta WHERE key = ${SHOWN_KEY_NAME}`)
    return row === undefined ? null : new Uint8Array(row.value)
  })

/** The schema, one migration per entry (ids are the numeric prefixes). */
const migrations = Migrator.fromRecord({
  "0001_initial": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE sources (
        source_key TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        locator_json TEXT NOT NULL,
        summary_json TEXT NOT NULL,
        source_id TEXT,
        generation INTEGER NOT NULL,
        cursor TEXT,
        fingerprint TEXT,
        status TEXT NOT NULL,
        error_code TEXT,
        error_message TEXT,
        event_count INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
      )`,
      sql`CREATE TABLE generations (
        source_key TEXT NOT NULL,
        generation INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        superseded_at TEXT,
        superseded_reason TEXT,
        PRIMARY KEY (source_key, generation)
      )`,
      sql`CREATE TABLE events (
        source_key TEXT NOT NULL,
        generation INTEGER NOT NULL,
        event_uid TEXT NOT NULL,
        session_uid TEXT NOT NULL,
        provider TEXT NOT NULL,
        source_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        kind TEXT NOT NULL,
        occurred_at TEXT,
        event_json TEXT NOT NULL,
        PRIMARY KEY (source_key, generation, event_uid)
      )`,
      sql`CREATE INDEX events_by_session ON events (session_uid, generation, sequence)`,
      sql`CREATE TABLE sessions (
        session_uid TEXT NOT NULL,
        generation INTEGER NOT NULL,
        source_key TEXT NOT NULL,
        provider TEXT NOT NULL,
        session_id TEXT NOT NULL,
        source_id TEXT NOT NULL,
        first_at TEXT,
        last_at TEXT,
        event_count INTEGER NOT NULL,
        title TEXT,
        workspace TEXT,
        PRIMARY KEY (session_uid, generation)
      )`,
      sql`CREATE INDEX sessions_by_id ON sessions (session_id)`
    ], { discard: true })),
  // Prefix bindings (the imported prefix's digest, and each nested log's), the
  // diagnostics of the last complete read, and the attempt in progress: the
  // checkpoint it started from, and the events it added (`events.attempt`),
  // so a rejected source is rolled back whole, also after a kill.
  "0002_prefix_attempts": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE sources ADD COLUMN prefix TEXT`,
      sql`ALTER TABLE sources ADD COLUMN parts_json TEXT`,
      sql`ALTER TABLE sources ADD COLUMN diagnostics_json TEXT`,
      sql`ALTER TABLE sources ADD COLUMN attempt_json TEXT`,
      sql`ALTER TABLE events ADD COLUMN attempt INTEGER`
    ], { discard: true })),
  // The typed discovery summary of each source (contract 1.1.0); NULL for
  // sources imported before it, read through `legacySourceSummary`.
  "0003_source_overview": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE sources ADD COLUMN overview_json TEXT`.pipe(Effect.asVoid)),
  // Full-text search (issue 14): one document per event of a current generation, and one per session title
  // (`event_uid = ''`), in `search_docs`; their words in the contentless FTS5 table `search` (rowid = doc).
  // Deleting an event or a session deletes its document, and deleting a document its words (triggers), so every
  // path that removes events (a rejected attempt's rollback) keeps search consistent; a superseded generation's
  // documents are deleted when it is superseded. Filled here from the stored events, no source is read again.
  "0004_search": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* Effect.all([
        sql`CREATE TABLE search_docs (
          doc INTEGER PRIMARY KEY,
          source_key TEXT NOT NULL,
          generation INTEGER NOT NULL,
          session_uid TEXT NOT NULL,
          event_uid TEXT NOT NULL,
          provider TEXT NOT NULL,
          kind TEXT,
          role TEXT,
          occurred_at TEXT
        )`,
        sql`CREATE INDEX search_docs_by_event ON search_docs (source_key, generation, event_uid)`,
        sql.unsafe(SEARCH_TABLE),
        sql`CREATE TRIGGER search_docs_gone AFTER DELETE ON search_docs BEGIN DELETE FROM search WHERE rowid = old.doc; END`,
        sql`CREATE TRIGGER events_search_gone AFTER DELETE ON events BEGIN
              DELETE FROM search_docs WHERE source_key = old.source_key AND generation = old.generation AND event_uid = old.event_uid;
            END`,
        sql`CREATE TRIGGER sessions_search_gone AFTER DELETE ON sessions BEGIN
              DELETE FROM search_docs WHERE source_key = old.source_key AND generation = old.generation AND event_uid = ''
                AND session_uid = old.session_uid;
            END`
      ], { discard: true })
      const current = yield* sql<{ source_key: string; generation: number }>`
        SELECT source_key, generation FROM sources WHERE status != 'rejected'`
      for (const c of current) yield* indexGenerationLegacy(sql, c.source_key, c.generation)
    })),
  // Per-response usage (issue 18): one row per model response (or `result`
  // run total) of each session generation, last usage wins, kept at import
  // with the events; an existing index gets its rows from its stored events.
  "0005_usage": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* sql`CREATE TABLE usage (
        source_key TEXT NOT NULL,
        generation INTEGER NOT NULL,
        session_uid TEXT NOT NULL,
        response_key TEXT NOT NULL,
        kind TEXT NOT NULL,
        provider TEXT NOT NULL,
        event_uid TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        occurred_at TEXT,
        model TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        cost_usd REAL,
        run_seq INTEGER,
        PRIMARY KEY (source_key, generation, session_uid, response_key)
      )`
      yield* sql`CREATE INDEX usage_by_session ON usage (session_uid, generation, kind, sequence)`
      const sessions = yield* sql<{ source_key: string; generation: number; session_uid: string }>`
        SELECT DISTINCT source_key, generation, session_uid FROM events WHERE ${sql.unsafe(MAY_CARRY_USAGE)}`
      for (const s of sessions) yield* rebuildUsageLegacy(sql, s.source_key, s.generation, s.session_uid)
    })),
  // The lean record (issue 13, item 2). What every event restated is kept once: the ids of its session and
  // source generation in `streams`, the keys of its JSON (and where its typed fields restate the provider's
  // record) in `shapes`; each event is a `records` row: its uid (16 bytes), the columns the queries filter and
  // order on, and a body of values only (`leanEvent` / `eventOfRow` in rows.ts). Search words are keyed by the
  // record's id (a session title by minus its stream's id), without a table of documents. Every stored event is
  // rewritten here, its search words made again; nothing is read from a source.
  //
  // One pass over `events`: each event is parsed once, and its record and (for a current generation) its search
  // words are made from it, written in batches of MIGRATE_ROWS rows, so that every full batch runs the one
  // statement the client has prepared (the client's statement cache is keyed by the SQL text: a batch of another
  // size is another statement to prepare). Ids are given as SQLite would give them (each table starts empty and
  // takes its rows in this order: a stream, a shape, a record is the next integer), so search words can be keyed
  // before their record is written. Measured: bench figure m.
  "0006_lean_records": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* Effect.all([
        sql`CREATE TABLE shapes (shape INTEGER PRIMARY KEY, def TEXT NOT NULL UNIQUE)`,
        sql`CREATE TABLE streams (
          stream INTEGER PRIMARY KEY,
          source_key TEXT NOT NULL,
          generation INTEGER NOT NULL,
          session_uid TEXT NOT NULL,
          provider TEXT NOT NULL,
          source_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          UNIQUE (source_key, generation, session_uid)
        )`,
        sql`CREATE INDEX streams_by_session ON streams (session_uid, generation)`,
        sql`CREATE TABLE records (
          id INTEGER PRIMARY KEY,
          stream INTEGER NOT NULL,
          uid BLOB NOT NULL,
          sequence INTEGER NOT NULL,
          kind TEXT NOT NULL,
          role TEXT,
          occurred_at TEXT,
          attempt INTEGER,
          shape INTEGER,
          body TEXT NOT NULL
        )`,
        sql`DROP TRIGGER IF EXISTS search_docs_gone`,
        sql`DROP TRIGGER IF EXISTS events_search_gone`,
        sql`DROP TRIGGER IF EXISTS sessions_search_gone`,
        sql`DROP TABLE IF EXISTS search_docs`,
        sql`DROP TABLE IF EXISTS search`,
        sql.unsafe(SEARCH_TABLE)
      ], { discard: true })
      // The generation of each source that is searched (as indexGeneration makes it: every source not rejected).
      const current = new Map<string, number>()
      for (const c of yield* sql<{ source_key: string; generation: number }>`SELECT source_key, generation FROM sources WHERE status != 'rejected'`) {
        current.set(c.source_key, c.generation)
      }
      // A record's id is known before it is written only when no row can be ignored as a duplicate (stream, uid):
      // every uid is `evt_` and 32 hex digits (16 distinct bytes; `events` holds each once per source generation).
      // Else (an index no build wrote) the records take their ids as written, and their words are made after.
      const [odd] = yield* sql<{ n: number }>`
        SELECT count(*) AS n FROM events WHERE length(event_uid) != 36 OR event_uid NOT GLOB ${`evt_${"[0-9a-f]".repeat(32)}`}`
      const wordsNow = odd.n === 0
      // The records' indexes: made after the records when no row can be a duplicate (one sort, not a b-tree
      // grown row by row), else before them (`INSERT OR IGNORE` leaves a duplicate out by the unique one).
      const recordIndexes = Effect.all([
        sql`CREATE UNIQUE INDEX records_by_uid ON records (stream, uid)`,
        sql`CREATE INDEX records_in_order ON records (stream, sequence, uid)`
      ], { discard: true })
      if (!wordsNow) yield* recordIndexes
      const shapes = new Map<string, number>()
      const streams = new Map<string, number>()
      const newShapes = batchedInsert(sql, "INSERT INTO shapes", ["shape", "def"])
      const newStreams = batchedInsert(sql, "INSERT INTO streams", ["stream", "source_key", "generation", "session_uid", "provider", "source_id", "session_id"])
      const records = batchedInsert(sql, "INSERT OR IGNORE INTO records", ["id", "stream", "uid", "sequence", "kind", "role", "occurred_at", "attempt", "shape", "body"])
      const words = batchedInsert(sql, "INSERT INTO search", ["rowid", "text", "input"])
      // Writes the rows held (`all`: the last, smaller batches too). (The tables have no foreign keys: a record
      // may be written before the stream and shape it names, which have their ids already.)
      const flush = (all: boolean) => Effect.all([newStreams.flush(all), newShapes.flush(all), records.flush(all), words.flush(all)], { discard: true })
      let nextRecord = 1
      let after = 0
      for (;;) {
        const rows = yield* sql<{
          rid: number
          source_key: string
          generation: number
          session_uid: string
          event_uid: string
          attempt: number | null
          event_json: string
        }>`SELECT rowid AS rid, source_key, generation, session_uid, event_uid, attempt, event_json FROM events
           WHERE rowid > ${after} ORDER BY rowid LIMIT ${REINDEX_PAGE}`
        if (rows.length === 0) break
        for (const r of rows) {
          const e = upgradeEvent(JSON.parse(r.event_json) as SessionEvent)
          const sk = `${r.source_key}\u0000${r.generation}\u0000${r.session_uid}`
          let stream = streams.get(sk)
          if (stream === undefined) {
            streams.set(sk, stream = streams.size + 1)
            newStreams.params.push(stream, r.source_key, r.generation, r.session_uid, e.provider, e.sourceId, e.sessionId)
          }
          const lean = leanEvent(e, INDEX_LEAN)
          let shape: number | null = null
          if (lean !== null) {
            shape = shapes.get(lean.shape) ?? null
            if (shape === null) {
              shapes.set(lean.shape, shape = shapes.size + 1)
              newShapes.params.push(shape, lean.shape)
            }
          }
          const id = wordsNow ? nextRecord++ : null
          records.params.push(
            id,
            stream,
            uidBytes(r.event_uid),
            e.sequence,
            e.kind,
            e.role,
            e.occurredAt,
            r.attempt,
            shape,
            lean === null ? JSON.stringify(e) : lean.body
          )
          if (id !== null && current.get(r.source_key) === r.generation) {
            const t = searchableText(e)
            words.params.push(id, ftsText(t.text), ftsText(t.input))
          }
        }
        yield* flush(false)
        after = rows[rows.length - 1].rid
      }
      yield* flush(true)
      if (wordsNow) yield* recordIndexes
      // Sessions whose events a rollback removed keep no stream; a title needs one (its search words' key).
      yield* sql`INSERT OR IGNORE INTO streams (source_key, generation, session_uid, provider, source_id, session_id)
                 SELECT source_key, generation, session_uid, provider, source_id, session_id FROM sessions`
      yield* Effect.all([
        sql`DROP TABLE events`,
        // Every path that removes records or streams (a rejected attempt's rollback) removes their search words.
        sql`CREATE TRIGGER records_search_gone AFTER DELETE ON records BEGIN DELETE FROM search WHERE rowid = old.id; END`,
        sql`CREATE TRIGGER streams_search_gone AFTER DELETE ON streams BEGIN DELETE FROM search WHERE rowid = -old.stream; END`,
        sql`CREATE TRIGGER sessions_search_gone AFTER DELETE ON sessions BEGIN
              DELETE FROM search WHERE rowid IN (SELECT -stream FROM streams
                WHERE source_key = old.source_key AND generation = old.generation AND session_uid = old.session_uid);
            END`
      ], { discard: true })
      if (!wordsNow) {
        for (const [key, generation] of current) yield* indexGeneration(sql, key, generation)
        return
      }
      // The titles of the searched generations' sessions (what indexGeneration adds after their records' words), their
      // words as FTS5 is given them (`ftsText`).
      const titled = yield* sql<{ rowid: number; title: string }>`
        SELECT -st.stream AS rowid, ss.title FROM sessions ss
          JOIN streams st ON st.source_key = ss.source_key AND st.generation = ss.generation AND st.session_uid = ss.session_uid
          JOIN sources so ON so.source_key = ss.source_key AND so.generation = ss.generation AND so.status != 'rejected'
        WHERE ss.title IS NOT NULL`
      const titles = titled.map((t) => ({ rowid: t.rowid, text: ftsText(t.title), input: "" }))
      for (let i = 0; i < titles.length; i += MIGRATE_ROWS) yield* sql`INSERT INTO search ${sql.insert(titles.slice(i, i + MIGRATE_ROWS))}`
    })),
  // The push journal (issue 17, `./push.ts`): each source's row carries the sequence number of its last change of
  // what a push compares or copies (checkpoint, status, generation, attempt, summary), written by triggers in the
  // transaction of the change itself, from a counter that only goes up; `push_origin` names this index file's
  // journal (a random id), so a team index's marker (the highest number a push brought over) is never taken for
  // another file's. A push reads only the sources changed since its marker.
  "0007_push_journal": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      // (Written to run again over its own tables: a test's "older index" may keep them while forgetting the migration.)
      sql`CREATE TABLE IF NOT EXISTS push_origin (id TEXT NOT NULL)`,
      sql`INSERT INTO push_origin (id) SELECT lower(hex(randomblob(16))) WHERE NOT EXISTS (SELECT 1 FROM push_origin)`,
      sql`CREATE TABLE IF NOT EXISTS push_journal (source_key TEXT PRIMARY KEY, seq INTEGER NOT NULL)`,
      sql`INSERT OR IGNORE INTO push_journal (source_key, seq)
          SELECT source_key, coalesce((SELECT max(seq) FROM push_journal), 0) + row_number() OVER (ORDER BY source_key) FROM sources`,
      sql`CREATE INDEX IF NOT EXISTS push_journal_by_seq ON push_journal (seq)`,
      sql`DROP TRIGGER IF EXISTS push_journal_insert`,
      sql`DROP TRIGGER IF EXISTS push_journal_update`,
      sql`DROP TRIGGER IF EXISTS push_journal_delete`,
      sql.unsafe(`CREATE TRIGGER push_journal_insert AFTER INSERT ON sources BEGIN ${JOURNAL_NOTE("new")} END`),
      sql.unsafe(`CREATE TRIGGER push_journal_update AFTER UPDATE ON sources
        WHEN ${JOURNALED_COLUMNS.map((c) => `old.${c} IS NOT new.${c}`).join(" OR ")} BEGIN ${JOURNAL_NOTE("new")} END`),
      sql.unsafe(`CREATE TRIGGER push_journal_delete AFTER DELETE ON sources BEGIN ${JOURNAL_NOTE("old")} END`)
    ], { discard: true })),
  // Each journal change's own random id (issue 17, `./push.ts`): a copy of this file restored from a backup numbers
  // its later changes as the original did, so a number alone does not tell the two apart. The team index's marker
  // keeps the id of the change at its number; a push whose change of that number has another id (or none kept)
  // reads every local checkpoint. The journal's current numbers get ids now; the triggers write one per change.
  "0008_push_changes": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS push_changes (seq INTEGER PRIMARY KEY, id TEXT NOT NULL)`,
      sql`INSERT OR IGNORE INTO push_changes (seq, id) SELECT seq, lower(hex(randomblob(8))) FROM push_journal`,
      sql`DROP TRIGGER IF EXISTS push_journal_insert`,
      sql`DROP TRIGGER IF EXISTS push_journal_update`,
      sql`DROP TRIGGER IF EXISTS push_journal_delete`,
      sql.unsafe(`CREATE TRIGGER push_journal_insert AFTER INSERT ON sources BEGIN ${JOURNAL_CHANGE_NOTE("new")} END`),
      sql.unsafe(`CREATE TRIGGER push_journal_update AFTER UPDATE ON sources
        WHEN ${JOURNALED_COLUMNS.map((c) => `old.${c} IS NOT new.${c}`).join(" OR ")} BEGIN ${JOURNAL_CHANGE_NOTE("new")} END`),
      sql.unsafe(`CREATE TRIGGER push_journal_delete AFTER DELETE ON sources BEGIN ${JOURNAL_CHANGE_NOTE("old")} END`)
    ], { discard: true })),
  // No table changes: from here on a lean record's shape may hold a reference of mode `j` (a tool call's text made
  // of its input, `LeanOptions` in rows.ts). A build before this one reads such a shape wrong (it knows `=` and `~`
  // only); this id makes it see the index as written by a newer build (it neither writes it nor trusts it quietly).
  "0009_tool_input_text_refs": Effect.void,
  // The part of each response's cache writes written to the 1-hour cache (Claude's
  // `cache_creation.ephemeral_1h_input_tokens`, contract 1.3.0), priced at its own rate. The rows already kept stay
  // NULL (not said: priced at the 5-minute rate, as before): their stored events (contract 1.2.0 or older) never
  // kept the split; an import that reads a source again writes it.
  // (Written to run again over its own column: a test's "older index" may keep it while forgetting the migration.)
  "0010_usage_cache_write_1h": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      const [{ n }] = yield* sql<{ readonly n: number }>`
        SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'cache_write_1h_tokens'`
      if (n === 0) yield* sql`ALTER TABLE usage ADD COLUMN cache_write_1h_tokens INTEGER`
    })),
  // The index's own settings, a key/value table: `shown-id-key`, the 32 random bytes that key the ids a redacted
  // output shows (`src/domain/shown-ids.ts`, tester23c F3: a source id and a session uid are digests of the path on
  // disk). Made here once, in the migration's transaction (two first imports that race wait for each other's
  // migrations: `migrateShared`); `INSERT OR IGNORE` keeps the first key if the row is there already.
  "0011_meta": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL)`,
      sql`INSERT OR IGNORE INTO meta (key, value) VALUES (${SHOWN_KEY_NAME}, ${newShownKey()})`
    ], { discard: true })),
  // Search folds as the PostgreSQL index does (case and accents in every script: `σισυφος` finds `σίσυφος`, `елка`
  // finds `ёлка`): the words are folded in the domain (`ftsText`) and FTS5's `ascii` tokenizer splits them, where
  // `unicode61 remove_diacritics 2` kept the accents of other scripts than Latin. The search table is made again and
  // filled from the stored records and titles of every current generation (no source is read). An index whose table
  // has the new tokenizer already (made by 0004/0006 of this build) is left as it is.
  "0012_search_folded": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      if (yield* searchIsFolded(sql)) return
      yield* sql`DROP TABLE IF EXISTS search`
      yield* sql.unsafe(SEARCH_TABLE)
      const current = yield* sql<{ source_key: string; generation: number }>`
        SELECT source_key, generation FROM sources WHERE status != 'rejected'`
      for (const c of current) yield* indexGeneration(sql, c.source_key, c.generation)
    })),
  // Search keeps the vowel signs, viramas and tone marks of the Brahmic and Southeast Asian scripts, and spacing marks
  // no longer split a word (session 30, tester30b F5: 0012's fold removed every nonspacing mark, so Hindi `\u0915\u0941\u0932`
  // found `\u0915\u0932` and Thai tone marks were lost). Only the fields whose words the new fold changes are given to
  // FTS5 again (read from the stored records and titles; no source is read), then the index says it is folded so.
  "0013_search_marks": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* refold(sql, MAY_FOLD_APART, ftsFold0012)
      yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES (${SEARCH_FOLD_KEY}, ${SEARCH_FOLD_0013})`
    })),
  // A Hangul syllable is one unit of a word (session 31, tester30c F4: 0013's fold split it into its letters, so
  // `\ud558*` found `\ud55c\uad6d\uc5b4`): the fields holding Hangul (a syllable or a conjoining letter) are given to FTS5
  // again, from the stored records and titles (no source is read); the others' words are the same under both folds.
  "0014_search_syllables": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* refold(sql, HANGUL, ftsFold0013)
      yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES (${SEARCH_FOLD_KEY}, ${SEARCH_FOLD})`
    })),
  // The speed each response ran at (Claude's `usage.speed`: a `"fast"` response is billed at its model's fast-mode
  // rates, session 33, tester33b F1). The rows already kept stay NULL (their stored events, imported before, never
  // kept it: priced at the standard rates, as before); an import that reads a source again writes it.
  // (Written to run again over its own column, as 0010.)
  "0015_usage_speed": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      const [{ n }] = yield* sql<{ readonly n: number }>`
        SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'speed'`
      if (n === 0) yield* sql`ALTER TABLE usage ADD COLUMN speed TEXT`
    }))
})

/**
 * The `meta` key that says how the search words are folded; its value since migration 0014 (`foldWord`), and from
 * 0013 to 0014 (`foldWord0013`, Hangul syllables as their letters).
 */
const SEARCH_FOLD_KEY = "search-fold"
const SEARCH_FOLD = "syllables-kept"
const SEARCH_FOLD_0013 = "marks-kept"
/** The fold each value of {@link SEARCH_FOLD_KEY} says; an index with no such value (or another) is at 0012's. */
const FOLD_OF_META = new Map<string, SearchFold>([[SEARCH_FOLD, "current"], [SEARCH_FOLD_0013, "jamo"]])

/** Hangul: conjoining letters (U+1100-11FF) and syllables (U+AC00-D7A3), what `foldWord` composes and 0013's split. */
const HANGUL = /[\u1100-\u11ff\uac00-\ud7a3]/

/**
 * A stored record that may hold a word {@link ftsFold0012} and `ftsText` fold apart: a character from U+0700 up but
 * for the general punctuation (curly quotes, dashes, `\u2026`). Below U+0700 every mark is one both folds remove.
 */
const MAY_FOLD_APART = /[\u0700-\u1fff\u2070-\uffff]/

/**
 * Migrations 0013's and 0014's work: the search words of each event and title of the current generations whose fields
 * `before` (what the migration before gave FTS5: {@link ftsFold0012}, {@link ftsFold0013}) and `ftsText` fold apart,
 * given to FTS5 again, a page of records at a time; only the records whose stored body matches `may` (the characters
 * the two folds can tell apart) are decoded.
 */
const refold = (sql: SqlClient.SqlClient, may: RegExp, before: (s: string) => string) =>
  Effect.gen(function*() {
    const hasSearch = (yield* sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'search'`)[0].n > 0
    if (!hasSearch) return
    const reader = yield* eventReader(sql, (e) => e)
    const apart = (t: string) => may.test(t) && before(t) !== ftsText(t)
    let after = 0
    for (;;) {
      const rows = yield* sql<StoredEventRow & { rid: number }>`
        SELECT e.rid, ${sql.unsafe(STORED)} FROM ${sql.unsafe(reader.from)} e
          JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
        WHERE s.status != 'rejected' AND e.rid > ${after}
        ORDER BY e.rid LIMIT ${REINDEX_PAGE}`
      if (rows.length === 0) break
      after = rows[rows.length - 1].rid
      const maybe = rows.filter((r) => may.test(r.body))
      if (maybe.length === 0) continue
      const events = yield* reader.decode(maybe)
      const words = events.flatMap((e, i) => {
        const t = searchableText(e)
        return apart(t.text) || apart(t.input) ? [{ rowid: maybe[i].rid, text: ftsText(t.text), input: ftsText(t.input) }] : []
      })
      for (const w of words) yield* sql`DELETE FROM search WHERE rowid = ${w.rowid}`
      for (let i = 0; i < words.length; i += MIGRATE_ROWS) yield* sql`INSERT INTO search ${sql.insert(words.slice(i, i + MIGRATE_ROWS))}`
    }
    const titled = yield* sql<{ stream: number; title: string }>`
      SELECT st.stream, ss.title FROM sessions ss
        JOIN streams st ON st.source_key = ss.source_key AND st.generation = ss.generation AND st.session_uid = ss.session_uid
        JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
      WHERE s.status != 'rejected' AND ss.title IS NOT NULL`
    for (const t of titled) {
      if (!apart(t.title)) continue
      yield* sql`DELETE FROM search WHERE rowid = ${-t.stream}`
      yield* sql`INSERT INTO search (rowid, text, input) VALUES (${-t.stream}, ${ftsText(t.title)}, '')`
    }
  })

/**
 * How the search words of the index behind `sql` are folded: `current` (migration 0014, or an index made after it:
 * `foldWord`), `jamo` (0013, not 0014: Hangul syllables as their letters: {@link ftsFold0013}), `all-marks` (0012, not
 * 0013: every nonspacing mark removed, spacing marks splitting words: {@link ftsFold0012}), or `unfolded` (before
 * 0012: {@link UNFOLDED_SEARCH_TOKENIZER}, or no search table).
 */
const searchFoldOf = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    if (!(yield* searchIsFolded(sql))) return "unfolded" as const
    const hasMeta = (yield* sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'meta'`)[0].n > 0
    if (!hasMeta) return "all-marks" as const
    const fold = yield* sql<{ readonly value: unknown }>`SELECT value FROM meta WHERE key = ${SEARCH_FOLD_KEY}`
    return (fold.length > 0 ? FOLD_OF_META.get(String(fold[0].value)) : undefined) ?? "all-marks" as const
  })

/**
 * Where the stored events are, as one set of columns, in either layout: the
 * lean records with their streams (migration 0006), or the `events` table of
 * an index before it (read without migrating: a query command), whose rows
 * are the events' whole JSON (`shape` NULL). Columns: source_key,
 * generation, session_uid, provider, source_id, session_id, rid (the row's
 * id), event_uid (16 bytes, or the uid's text), sequence, kind, role,
 * occurred_at, attempt, shape, body.
 */
const LEAN_ROWS = `(SELECT st.source_key, st.generation, st.session_uid, st.provider, st.source_id, st.session_id, r.id AS rid,
  r.uid AS event_uid, r.sequence, r.kind, r.role, r.occurred_at, r.attempt, r.shape, r.body FROM records r JOIN streams st ON st.stream = r.stream)`
/** The lean rows with the columns {@link STORED} reads and their stream (`WHERE e.stream = …`: in index order, no sort). */
const ONE_STREAM_ROWS = `(SELECT st.provider, st.source_id, st.session_id, r.stream, r.uid AS event_uid, r.sequence, r.kind,
  r.occurred_at, r.shape, r.body FROM records r JOIN streams st ON st.stream = r.stream)`
const LEGACY_ROWS = `(SELECT source_key, generation, session_uid, provider, source_id, session_id, rowid AS rid, event_uid,
  sequence, kind, NULL AS role, occurred_at, attempt, NULL AS shape, event_json AS body FROM events)`

/** A stored event row as {@link EventReader.decode} reads it (the columns of `from`). */
export interface StoredEventRow {
  readonly shape: number | null
  readonly body: string
  readonly provider: string
  readonly source_id: string
  readonly session_id: string
  readonly sequence: number
  readonly kind: string
  readonly occurred_at: string | null
}

/** How a connection's stored events are read (see {@link eventReader}). */
export interface EventReader<G = StoreUnavailable> {
  /** Whether the index has the lean layout (migration 0006). */
  readonly lean: boolean
  /** The rows, as an SQL table expression (see `LEAN_ROWS`). */
  readonly from: string
  /** The stored form of an event uid (`evt_…`), to compare with `event_uid`. */
  readonly uidParam: (uid: string) => unknown
  /** The events of stored rows (`eventOfRow`), in their order. */
  readonly decode: (rows: ReadonlyArray<StoredEventRow>) => Effect.Effect<Array<SessionEvent>, G>
  /**
   * Stored rows as {@link StoredEvent}s, in their order, each decoded when asked: its texts are its shape's
   * definition's strings (the names of its fields and its constant values, but those of the fields in `kept`:
   * {@link defStrings}) and its body (the values, as `JSON.stringify` wrote them); a row of the layout before the
   * lean one (no shape), of a shape that restates a field from another (`refs`) or of an earlier contract (upgraded
   * when decoded), says none (null).
   */
  readonly stored: (rows: ReadonlyArray<StoredEventRow>, kept: ReadonlySet<string>) => Effect.Effect<Array<StoredEvent>, G>
}

/**
 * The reader of the stored events of the index behind `sql` (`guard` turns
 * its failures into `StoreUnavailable`): every query that reads events goes
 * through its `from` and `decode`, so every reader (the service's queries,
 * `push`) rebuilds them in the one place, `eventOfRow`.
 */
export const eventReader = <G>(
  sql: SqlClient.SqlClient,
  guard: <A, R>(effect: Effect.Effect<A, SqlError, R>) => Effect.Effect<A, G, R>
): Effect.Effect<EventReader<G>, G> =>
  Effect.gen(function*() {
    const lean = (yield* guard(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'records'`))[0].n > 0
    const plans = new Map<number, ShapePlan>()
    // the shapes' definitions as stored (a StoredEvent's first text)
    const defs = new Map<number, string>()
    const planRows = (rows: ReadonlyArray<StoredEventRow>) =>
      Effect.gen(function*() {
        const missing = new Set<number>()
        for (const r of rows) if (r.shape !== null && !plans.has(r.shape)) missing.add(r.shape)
        if (missing.size > 0) {
          const got = yield* guard(sql<{ shape: number; def: string }>`SELECT shape, def FROM shapes WHERE shape IN ${sql.in([...missing])}`)
          for (const g of got) {
            plans.set(g.shape, shapePlan(g.def))
            defs.set(g.shape, g.def)
          }
        }
      })
    const eventOf = (r: StoredEventRow) =>
      eventOfRow(
        r.shape === null ? null : plans.get(r.shape)!,
        r.body,
        { provider: r.provider, sourceId: r.source_id, sessionId: r.session_id },
        { sequence: r.sequence, kind: r.kind, occurredAt: r.occurred_at }
      )
    // the definitions' strings, by the `kept` fields they were read for and shape
    const defTexts = new WeakMap<ReadonlySet<string>, Map<number, string>>()
    const defText = (shape: number, kept: ReadonlySet<string>): string => {
      let byShape = defTexts.get(kept)
      if (byShape === undefined) defTexts.set(kept, byShape = new Map())
      let t = byShape.get(shape)
      if (t === undefined) byShape.set(shape, t = defStrings(defs.get(shape)!, kept))
      return t
    }
    const stored = (rows: ReadonlyArray<StoredEventRow>, kept: ReadonlySet<string>) =>
      Effect.map(planRows(rows), () =>
        rows.map((r): StoredEvent => ({
          kind: r.kind,
          // a field a shape restates from another (`refs`: the text of a tool call's input, a payload's one line) is
          // a string no text holds as it stands: such rows say none
          // (nor does one of an earlier contract, upgraded as it is decoded)
          texts: r.shape === null || !defs.has(r.shape) || plans.get(r.shape)!.refs.length > 0 ||
              plans.get(r.shape)!.contract !== CONTRACT_VERSION
            ? null
            : [defText(r.shape, kept), r.body],
          event: () => eventOf(r)
        })))
    const decode = (rows: ReadonlyArray<StoredEventRow>) =>
      Effect.gen(function*() {
        yield* planRows(rows)
        return rows.map((r) =>
          eventOfRow(
            r.shape === null ? null : plans.get(r.shape)!,
            r.body,
            { provider: r.provider, sourceId: r.source_id, sessionId: r.session_id },
            { sequence: r.sequence, kind: r.kind, occurredAt: r.occurred_at }
          )
        )
      })
    return {
      lean,
      from: lean ? LEAN_ROWS : LEGACY_ROWS,
      uidParam: (uid: string) => (lean ? (/^evt_[0-9a-f]{32}$/.test(uid) ? uidBytes(uid) : Buffer.alloc(0)) : uid),
      decode,
      stored
    }
  })

/**
 * The strings of a shape's definition (`shapeOf` in rows.ts: `c` the contract version, `k`/`n` the fields' names,
 * `o` an object field's keys and constant values, `x` the extensions' namespaces and keys, `v` the fields' constant
 * values), each JSON-escaped, joined by NUL (no escaped string holds one, so nothing is found across two): a
 * StoredEvent's text without the definition's JSON syntax. Left out: the constant value of a field in `kept` (the
 * contract version as `contractVersion`, a `v` value by its field, an `o` pair's value as `field.key`), which a
 * reader asked not to be given. The columns' values (provider, ids, sequence, kind, time) are no text of it: fields
 * a redaction keeps (`EVENT_STRUCTURAL_FIELDS`); a reader that needs them decodes the event.
 */
const NONE_KEPT: ReadonlySet<string> = new Set()

const defStrings = (def: string, kept: ReadonlySet<string>): string => {
  const out: Array<string> = []
  const add = (v: string) => out.push(JSON.stringify(v).slice(1, -1))
  const walk = (v: unknown): void => {
    if (typeof v === "string") add(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        add(k)
        walk(x)
      }
    }
  }
  const d = JSON.parse(def) as Record<string, unknown>
  for (const [top, v] of Object.entries(d)) {
    add(top)
    if (top === "c" && kept.has("contractVersion")) continue
    if (top === "v" && typeof v === "object" && v !== null && !Array.isArray(v)) {
      for (const [field, x] of Object.entries(v)) {
        add(field)
        if (!kept.has(field)) walk(x)
      }
    } else if (top === "o" && typeof v === "object" && v !== null && !Array.isArray(v)) {
      for (const [field, keys] of Object.entries(v)) {
        add(field)
        for (const k of Array.isArray(keys) ? keys : [keys]) {
          // a key, or a [key, constant value] pair
          if (Array.isArray(k) && k.length === 2 && typeof k[0] === "string") {
            add(k[0])
            if (!kept.has(`${field}.${k[0]}`)) walk(k[1])
          } else walk(k)
        }
      }
    } else walk(v)
  }
  return out.join("\u0000")
}

/** The columns {@link EventReader.decode} reads, of the rows alias `e`. */
const STORED = "e.shape, e.body, e.provider, e.source_id, e.session_id, e.sequence, e.kind, e.occurred_at"

/**
 * Rebuild the usage rows of one session generation from its stored events
 * (lean layout): what a rollback does for the sessions whose events it
 * removed.
 */
const rebuildUsage = <G>(sql: SqlClient.SqlClient, reader: EventReader<G>, sourceKey: string, generation: number, uid: string) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM usage WHERE source_key = ${sourceKey} AND generation = ${generation} AND session_uid = ${uid}`
    const stored = yield* sql<StoredEventRow>`
      SELECT ${sql.unsafe(STORED)} FROM ${sql.unsafe(reader.from)} e
      WHERE e.session_uid = ${uid} AND e.generation = ${generation} AND e.source_key = ${sourceKey}
      ORDER BY e.sequence, e.event_uid`
    if (stored.length === 0) return
    const events = yield* reader.decode(stored)
    const rows = usageRows(events).map((r) => usageDbRow(r, sourceKey, generation, uid, r.provider))
    for (let i = 0; i < rows.length; i += USAGE_CHUNK) yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}`
  })

/**
 * (Re)make the search words of one generation of a source from its stored
 * records and its sessions' titles (lean layout): migration 0006, and a
 * rollback that makes a superseded generation current again. Inside the
 * caller's transaction.
 */
const indexGeneration = (sql: SqlClient.SqlClient, key: string, generation: number) =>
  Effect.gen(function*() {
    const reader = yield* eventReader(sql, (e) => e)
    yield* sql`DELETE FROM search WHERE rowid IN (
      SELECT r.id FROM streams st JOIN records r ON r.stream = st.stream WHERE st.source_key = ${key} AND st.generation = ${generation})`
    yield* sql`DELETE FROM search WHERE rowid IN (SELECT -stream FROM streams WHERE source_key = ${key} AND generation = ${generation})`
    let after = 0
    for (;;) {
      const rows = yield* sql<StoredEventRow & { rid: number }>`
        SELECT e.rid, ${sql.unsafe(STORED)} FROM ${sql.unsafe(reader.from)} e
        WHERE e.source_key = ${key} AND e.generation = ${generation} AND e.rid > ${after}
        ORDER BY e.rid LIMIT ${REINDEX_PAGE}`
      if (rows.length === 0) break
      const events = yield* reader.decode(rows)
      const words = events.map((e, i) => {
        const t = searchableText(e)
        return { rowid: rows[i].rid, text: ftsText(t.text), input: ftsText(t.input) }
      })
      for (let i = 0; i < words.length; i += MIGRATE_ROWS) {
        yield* sql`INSERT INTO search ${sql.insert(words.slice(i, i + MIGRATE_ROWS))}`
      }
      after = rows[rows.length - 1].rid
    }
    const titled = yield* sql<{ stream: number; title: string }>`
      SELECT st.stream, ss.title FROM sessions ss
        JOIN streams st ON st.source_key = ss.source_key AND st.generation = ss.generation AND st.session_uid = ss.session_uid
      WHERE ss.source_key = ${key} AND ss.generation = ${generation} AND ss.title IS NOT NULL`
    for (const t of titled) yield* sql`INSERT INTO search (rowid, text, input) VALUES (${-t.stream}, ${ftsText(t.title)}, '')`
  })

/**
 * Put the sessions of a source generation that a rolled-back attempt found
 * back as it found them (`AttemptState.sessions`: uid, title, workspace): a
 * batch of the attempt wrote them as its read gave them. A session whose
 * title changes has its title's search words made again (none for no
 * title, nor when `searched` is false: a generation not searched; nothing
 * of search in an index without it, `hasSearch` false). Sessions
 * gone since (their events all the attempt's), or not in `before` (none
 * recorded: an attempt of an earlier build), are left alone. Inside the
 * caller's transaction.
 */
const restoreSessions = (
  sql: SqlClient.SqlClient,
  key: string,
  generation: number,
  before: AttemptState["sessions"],
  hasSearch: boolean,
  searched: boolean
) =>
  Effect.gen(function*() {
    if (before === undefined || before.length === 0) return
    const now = yield* sql<{ stream: number; session_uid: string; title: string | null; workspace: string | null }>`
      SELECT st.stream, ss.session_uid, ss.title, ss.workspace FROM streams st
        JOIN sessions ss ON ss.session_uid = st.session_uid AND ss.generation = st.generation
      WHERE st.source_key = ${key} AND st.generation = ${generation}`
    const current = new Map(now.map((r) => [r.session_uid, r]))
    for (const [uid, title, workspace] of before) {
      const r = current.get(uid)
      if (r === undefined || (r.title === title && r.workspace === workspace)) continue
      yield* sql`UPDATE sessions SET title = ${title}, workspace = ${workspace} WHERE session_uid = ${uid} AND generation = ${generation}`
      if (r.title === title || !hasSearch) continue
      yield* sql`DELETE FROM search WHERE rowid = ${-r.stream}`
      if (searched && title !== null) yield* sql`INSERT INTO search (rowid, text, input) VALUES (${-r.stream}, ${ftsText(title)}, '')`
    }
  })

/**
 * The FTS5 tokenizer of the search index: `ascii`, given each text as
 * `ftsText` (`ftsFold`) makes it: the words `searchWords` splits, folded in
 * the domain as the PostgreSQL index folds them (case and accents in every
 * script). Every ASCII character but a letter or digit separates words, so
 * `_`, `.`, `/`, `-` and `:` split words (a word in the middle of
 * `parse_config_file` or `app.config.json` is found), and a quoted query
 * word with punctuation is a phrase of its parts (a path, a UUID). For ASCII
 * text it makes the words `unicode61` makes. Chosen and measured against
 * `trigram`: docs/search.md. (Indexes before migration 0012:
 * {@link UNFOLDED_SEARCH_TOKENIZER}.)
 */
export const SEARCH_TOKENIZER = "ascii"

/**
 * The tokenizer of the search index made before migration 0012, given the
 * text unfolded: `unicode61` folded case in every script but accents of
 * Latin letters only. Read (not migrated) with the query's words as written.
 */
export const UNFOLDED_SEARCH_TOKENIZER = "unicode61 remove_diacritics 2"

/** The FTS5 table of the search words (contentless: snippets are cut from the stored events). */
const SEARCH_TABLE = `CREATE VIRTUAL TABLE search USING fts5(text, input, tokenize = '${SEARCH_TOKENIZER}', content = '', contentless_delete = 1)`

/**
 * Whether the search table of the index behind `sql` holds folded words
 * ({@link SEARCH_TOKENIZER}, migration 0012 or an index made after it):
 * false for an index before it, or with no search table.
 */
const searchIsFolded = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ readonly sql: string | null }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search'`,
    (rows) => rows.length > 0 && (rows[0].sql ?? "").includes(`tokenize = '${SEARCH_TOKENIZER}'`)
  )

/**
 * Matches a search ranks at most: the newest (last imported) this many that
 * pass the filters. A query with fewer matches is ranked whole (exact BM25);
 * one matching more (a word in most events) is ranked among its newest
 * matches, so its cost stays bounded however large the index grows.
 */
export { RANK_WINDOW }

/** Rows per INSERT of search documents (9 columns: under SQLite's 32,766 variables). */
const DOC_CHUNK = 2000

/** One search document: the event's (or title's) filter columns and its searchable text. */
interface DocRow {
  readonly source_key: string
  readonly generation: number
  readonly session_uid: string
  readonly event_uid: string
  readonly provider: string
  readonly kind: string | null
  readonly role: string | null
  readonly occurred_at: string | null
  readonly text: string
  readonly input: string
}

/** The search document of an event. */
const eventDoc = (key: string, generation: number, eventUidValue: string, sessionUidValue: string, e: SessionEvent): DocRow => {
  const t = searchableText(e)
  return {
    source_key: key,
    generation,
    session_uid: sessionUidValue,
    event_uid: eventUidValue,
    provider: e.provider,
    kind: e.kind,
    role: e.role,
    occurred_at: e.occurredAt,
    text: ftsText(t.text),
    input: ftsText(t.input)
  }
}

/** Insert search documents (ids after the largest one), their filter columns and their words. Inside the caller's transaction. */
const insertDocs = (sql: SqlClient.SqlClient, docs: ReadonlyArray<DocRow>) =>
  Effect.gen(function*() {
    if (docs.length === 0) return
    const [{ top }] = yield* sql<{ top: number }>`SELECT coalesce(max(doc), 0) AS top FROM search_docs`
    for (let i = 0; i < docs.length; i += DOC_CHUNK) {
      const chunk = docs.slice(i, i + DOC_CHUNK)
      const base = top + i + 1
      yield* sql`INSERT INTO search_docs ${
        sql.insert(chunk.map(({ input: _i, text: _t, ...d }, j) => ({ doc: base + j, ...d })))
      }`
      yield* sql`INSERT INTO search ${sql.insert(chunk.map((d, j) => ({ rowid: base + j, text: d.text, input: d.input })))}`
    }
  })

/** Events read per query when documents are made from stored events. */
const REINDEX_PAGE = 5000
/** Rows per multi-row INSERT of migration 0006 and of a generation's search words (10 columns: far under SQLite's 32,766 parameters). */
const MIGRATE_ROWS = 500

/**
 * Rows of one table held as flat parameters (`params`, the columns' values
 * row after row) and written by `flush`, {@link MIGRATE_ROWS} rows a
 * statement (`all`: the rest too). Every full batch runs the same SQL text
 * through `sql.unsafe`: the client compiles no fragments, and its statement
 * cache keeps the one prepared statement (migration 0006).
 */
const batchedInsert = (sql: SqlClient.SqlClient, verb: string, columns: ReadonlyArray<string>) => {
  const width = columns.length
  const text = (rows: number) =>
    `${verb} (${columns.join(", ")}) VALUES ${Array.from({ length: rows }, () => `(${columns.map(() => "?").join(", ")})`).join(", ")}`
  const full = text(MIGRATE_ROWS)
  const params: Array<unknown> = []
  const flush = (all: boolean): Effect.Effect<void, SqlError> =>
    Effect.suspend(() => {
      const rows = params.length / width
      const n = all ? rows : rows - (rows % MIGRATE_ROWS)
      if (n === 0) return Effect.void
      const batches: Array<readonly [string, ReadonlyArray<unknown>]> = []
      for (let i = 0; i < n; i += MIGRATE_ROWS) {
        const k = Math.min(MIGRATE_ROWS, n - i)
        batches.push([k === MIGRATE_ROWS ? full : text(k), params.slice(i * width, (i + k) * width)])
      }
      params.splice(0, n * width)
      return Effect.forEach(batches, ([statement, values]) => sql.unsafe(statement, values as ReadonlyArray<any>), { discard: true })
    })
  return { params, flush }
}

/**
 * (Re)make the search documents of one generation of a source from what an
 * index before migration 0006 stores (its events, upgraded to the current
 * contract, and its sessions' titles): migration 0004. Inside the caller's
 * transaction.
 */
const indexGenerationLegacy = (sql: SqlClient.SqlClient, key: string, generation: number) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM search_docs WHERE source_key = ${key} AND generation = ${generation}`
    let after = ""
    for (;;) {
      const rows = yield* sql<{ event_uid: string; session_uid: string; event_json: string }>`
        SELECT event_uid, session_uid, event_json FROM events
        WHERE source_key = ${key} AND generation = ${generation} AND event_uid > ${after}
        ORDER BY event_uid LIMIT ${REINDEX_PAGE}`
      if (rows.length === 0) break
      yield* insertDocs(sql, rows.map((r) => eventDoc(key, generation, r.event_uid, r.session_uid, upgradeEvent(JSON.parse(r.event_json) as SessionEvent))))
      after = rows[rows.length - 1].event_uid
    }
    const titled = yield* sql<{ session_uid: string; provider: string; title: string }>`
      SELECT session_uid, provider, title FROM sessions WHERE source_key = ${key} AND generation = ${generation} AND title IS NOT NULL`
    yield* insertDocs(sql, titled.map((t) => titleDoc(key, generation, t.session_uid, t.provider, t.title)))
  })

/** The search document of a session's title. */
const titleDoc = (key: string, generation: number, session: string, provider: string, title: string): DocRow => ({
  source_key: key,
  generation,
  session_uid: session,
  event_uid: "",
  provider,
  kind: null,
  role: null,
  occurred_at: null,
  text: ftsText(title),
  input: ""
})

/** The index as a store whose failures are told to the user (see `../store-failure.ts`). */
const indexRole = (file: string): StoreRole => ({
  file,
  label: "The index",
  option: "--index FILE",
  readOnlyRemedy:
    "Import into an index in a folder you can write to (pass --index FILE); sessions, show and export read a read-only index as it is."
})

/** The index open read-only (a query command): a write failure there is of SQLite's temporary files (see `../store-failure.ts`). */
const readerRole = (file: string): StoreRole => ({ ...indexRole(file), readsOnly: true })

/** The index's page size, in bytes. */
const PAGE_SIZE = 16384

/** How long an import waits for another process that creates or migrates the same index (then: "locked"). */
const MIGRATION_WAIT = Duration.seconds(30)

/** A lock on the index (`SQLITE_BUSY` / `SQLITE_LOCKED`, or the migrations another process is running). */
const isLockCause = (e: unknown): boolean => {
  const code = (e as { cause?: { code?: unknown }; code?: unknown } | null)?.cause?.code ?? (e as { code?: unknown } | null)?.code
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)
}

/**
 * Run the migrations, waiting for another process that runs them at the same
 * time (concurrent first imports into a new index). `Migrator` takes a failed
 * claim on a migration as "already running" and returns as if done, while the
 * other process has not committed the schema yet: so the applied migrations
 * are read back after it, and while they are short of the last one (or the
 * file is busy), it is run again (every 50 ms, for {@link MIGRATION_WAIT});
 * after that the failure reads as a lock (`SQLITE_BUSY`). Answers the migrations this process applied (`[id, name]`).
 */
const migrateShared = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const last = Math.max(...(yield* migrations).map(([id]) => id))
    // what this process's runs applied (a run that waited for another process's, or lost its claim, applied none:
    // tester30c F6, two `index migrate` at once both said they had applied them)
    const applied: Array<readonly [number, string]> = []
    yield* Migrator.make({})({ loader: migrations, table: "si_migrations" }).pipe(
      Effect.tap((done) => Effect.sync(() => applied.push(...done))),
      Effect.zipRight(sql<{ readonly n: number | null }>`SELECT max(migration_id) AS n FROM si_migrations`),
      Effect.filterOrFail(
        (rows) => (rows[0]?.n ?? 0) >= last,
        () =>
          Object.assign(new Error("another process is creating or migrating the index"), {
            code: "SQLITE_BUSY_MIGRATING"
          })
      ),
      Effect.retry({
        schedule: Schedule.spaced(Duration.millis(50)).pipe(Schedule.upTo(MIGRATION_WAIT)),
        while: isLockCause
      })
    )
    return applied
  })

/**
 * An index migrated by a newer session-ingest (a migration id in
 * `si_migrations` above this build's last) is not written: its schema may
 * hold tables or columns this build would leave out of step.
 * `StoreUnavailable` with `details.reason` `schema-newer` (`have`, `want`),
 * as the PostgreSQL index says it (`./postgres.ts`); reading commands open
 * it read-only and are not stopped.
 */
const refuseNewerSchema = (sql: SqlClient.SqlClient, file: string): Effect.Effect<{ readonly have: number; readonly want: number }, StoreUnavailable> =>
  Effect.gen(function*() {
    const want = Math.max(...(yield* migrations).map(([id]) => id))
    const table = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'si_migrations'`
    if (table[0].n === 0) return { have: 0, want }
    const have = Number((yield* sql<{ readonly n: number | null }>`SELECT max(migration_id) AS n FROM si_migrations`)[0]?.n ?? 0)
    if (have <= want) return { have, want }
    return yield* Effect.fail(
      new StoreUnavailable({
        message: `The index ${file} has schema version ${have}, newer than this session-ingest knows (${want}): it was written by a newer session-ingest, and this one does not write to it.`,
        remediation: "Upgrade session-ingest on this machine to the version that wrote the index (sessions, search and show still read it).",
        details: { index: file, reason: "schema-newer", have, want }
      })
    )
  }).pipe(Effect.catchIf((e): e is Exclude<typeof e, StoreUnavailable> => !(e instanceof StoreUnavailable), (e) => failIndex(file, e)))

/** What a commit point's hook failed with, carried out of a synchronous writer step (`importWhole`). */
class PointFailed {
  constructor(readonly cause: Cause.Cause<unknown>) {}
}

const unavailable = (file: string, cause: unknown) => new StoreUnavailable(storeFailureFields(indexRole(file), cause))

/** Fail with {@link unavailable}, once a write the file-size limit refused can be told as such (`failStore`). */
const failIndex = (file: string, cause: unknown) => failStore(cause, (e) => unavailable(file, e))

/** `f()` on the index; what it throws fails with {@link unavailable} (`tryStore`). */
const tryIndex = <A>(file: string, f: () => A) => tryStore(f, (e) => unavailable(file, e))

/**
 * `effect` with a defect of decoding a stored row (`isUndecodableData`: a
 * body, shape or summary that is not the JSON the index wrote) failed as
 * `StoreUnavailable` (the index is damaged, exit 6): never a stack trace for
 * a damaged file (tester15, finding 4). Other defects pass through.
 */
const decodedOrDamaged = (file: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
  Effect.catchSomeDefect(effect, (d) =>
    isUndecodableData(d) ? Option.some(Effect.fail(new StoreUnavailable(undecodableRowFields(indexRole(file), d)))) : Option.none())

/** {@link decodedOrDamaged} of a stream. */
const decodedOrDamagedStream = (file: string) => <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E | StoreUnavailable, R> =>
  Stream.catchAllCause(stream, (cause): Stream.Stream<never, E | StoreUnavailable> => {
    const d = Cause.dieOption(cause)
    return Option.isSome(d) && isUndecodableData(d.value)
      ? Stream.fail(new StoreUnavailable(undecodableRowFields(indexRole(file), d.value)))
      : Stream.failCause(cause)
  })

/**
 * The index's reads with {@link decodedOrDamaged}: each method that decodes
 * stored rows (checkpoints, sessions, events, search hits, usage, the dump).
 */
const guardReads = (file: string, shape: IndexShape): IndexShape => {
  const guard = decodedOrDamaged(file)
  return {
    ...shape,
    checkpoint: (key) => guard(shape.checkpoint(key)),
    checkpoints: guard(shape.checkpoints),
    ...(shape.importCheckpoints !== undefined ? { importCheckpoints: guard(shape.importCheckpoints) } : {}),
    sessions: (filter) => guard(shape.sessions(filter)),
    findSessions: (id) => guard(shape.findSessions(id)),
    findSessionsByPrefix: (prefix, max) => guard(shape.findSessionsByPrefix(prefix, max)),
    events: (uid) => guard(shape.events(uid)),
    sessionBytes: (uid) => guard(shape.sessionBytes(uid)),
    eventsStream: (uid, pageSize, from) => decodedOrDamagedStream(file)(shape.eventsStream(uid, pageSize, from)),
    ...(shape.forEachStoredEvent !== undefined ? { forEachStoredEvent: (uid, f, pageSize, kept) => guard(shape.forEachStoredEvent!(uid, f, pageSize, kept)) } : {}),
    search: (query, filter) => guard(shape.search(query, filter)),
    eventsAround: (uid, id, before, after) => guard(shape.eventsAround(uid, id, before, after)),
    usage: (filter) => guard(shape.usage(filter)),
    usageElsewhere: (filter) => guard(shape.usageElsewhere(filter)),
    shownIdKey: guard(shape.shownIdKey),
    counts: guard(shape.counts),
    dump: guard(shape.dump)
  }
}

/** The error of a failed write's cause that says what went wrong (never SQLite's "cannot rollback" that followed it). */
const causeError = (cause: Cause.Cause<unknown>): unknown =>
  primaryFailure([...Chunk.toArray(Cause.failures(cause)), ...Chunk.toArray(Cause.defects(cause))]) ?? Cause.squash(cause)

const now = () => new Date().toISOString()

/**
 * The index over the connection in context. `mode`: `write` sets the file up
 * (id, WAL, migrations) for an import; `read` only reads (a query command:
 * the file may be read-only), and its writes fail with `StoreUnavailable`.
 */
/** A run read its checkpoints before another process's commit, found at its first write: it starts again (`importRun`). */
class ReadBeforeAnotherRun {
  readonly _tag = "ReadBeforeAnotherRun"
}

const make = (
  file: string,
  ownership: Ownership,
  mode: "write" | "read",
  db: Driver | null = null,
  exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> = (e) => e,
  lock: ImportLock | null = null,
  beforeStatements: (before: () => void) => void = () => {},
  onMigrated: (applied: ReadonlyArray<readonly [number, string]>) => void = () => {}
): Effect.Effect<IndexShape, StoreUnavailable, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fail = guardStore(mode === "read" ? readerRole(file) : indexRole(file))
    /**
     * The switch of an existing index in rollback-journal mode to WAL, left
     * until its first write (`IndexWriter`'s first transaction, or a write of
     * its own below): an import that finds every source unchanged writes
     * nothing, so it leaves the file as it was (no header rewritten there
     * and back, no journal, no fsync). Null once in WAL mode (or never to
     * switch: a read).
     */
    let toWal: (() => void) | null = null
    if (mode === "write") {
      // What the file is, as SQLite reads it once open (the first read rolls a hot journal back): a creation
      // killed part-way is new again, and stamped here (tester19 F10).
      const [{ application_id: id }] = yield* fail(sql<{ readonly application_id: number }>`PRAGMA application_id`)
      const [{ n: objects }] = yield* fail(sql<{ readonly n: number }>`SELECT count(*) AS n FROM sqlite_master`)
      const owned = file === ":memory:"
        ? "new" as const
        : yield* ownershipWhenOpen(path.resolve(file), INDEX_APPLICATION_ID, "index", "--index FILE", { id, objects })
      // Mark the file as ours before WAL mode, so the id lands in the main file's header.
      if (owned === "new") {
        yield* fail(sql`PRAGMA page_size = ${sql.unsafe(String(PAGE_SIZE))}`)
        yield* fail(sql`PRAGMA application_id = ${sql.unsafe(String(INDEX_APPLICATION_ID))}`)
      }
      const schema = yield* refuseNewerSchema(sql, file)
      const wal = () => fail(sql`PRAGMA journal_mode = WAL`).pipe(Effect.zipRight(fail(sql`PRAGMA synchronous = NORMAL`)))
      if (owned === "new" || schema.have < schema.want || db === null) {
        // A new index, or one with migrations to apply: written now, in WAL mode as every import's writes.
        yield* wal()
      } else {
        const [current] = yield* fail(sql<{ readonly journal_mode: string }>`PRAGMA journal_mode`)
        if (current?.journal_mode === "wal") yield* fail(sql`PRAGMA synchronous = NORMAL`)
        else {
          // In WAL mode before the first write; NORMAL sync only once there (a rollback journal keeps the default, FULL).
          toWal = () => {
            const [row] = db.prepare("PRAGMA journal_mode = WAL").raw(true).all() as Array<[string]>
            if (row?.[0] === "wal") db.exec("PRAGMA synchronous = NORMAL")
          }
        }
      }
      onMigrated(yield* migrateShared(sql).pipe(Effect.catchAllCause((cause) => failIndex(file, causeError(cause)))))
    } else {
      // The first read opens the file (and, for a WAL index, its -shm): fail here, typed, if it cannot be read.
      yield* fail(sql`SELECT count(*) AS n FROM sqlite_master`)
    }

    // An index read (not migrated) from before migration 0003 has no overview column: its sources read as legacy.
    const hasOverview = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('sources') WHERE name = 'overview_json'`))[0].n > 0
    const overviewColumn = hasOverview ? "overview_json" : "NULL AS overview_json"
    // The stored events, in the lean layout (migration 0006) or, read without migrating, as an index before it kept them.
    const reader = yield* eventReader<StoreUnavailable>(sql, fail)
    // An index read (not migrated) from before migration 0004 has no search tables: search says to import once.
    const hasSearch = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${reader.lean ? "search" : "search_docs"}`))[0].n > 0
    // An index read (not migrated) from before migration 0012 holds its words unfolded: searched with the words as written.
    // One from before migration 0013 holds them with every nonspacing mark removed: searched with the words folded so;
    // one from before 0014 with Hangul syllables as their letters: the same.
    const fold = yield* fail(searchFoldOf(sql))
    const joinedOverviewColumn = hasOverview ? "s.overview_json" : "NULL AS overview_json"
    const EV = sql.unsafe(reader.from)
    const STORED_COLUMNS = sql.unsafe(STORED)

    const upsertSource = (s: SourceInfo, generation: number, status: string) =>
      sql`INSERT INTO sources (source_key, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
          VALUES (${s.sourceKey}, ${s.provider}, ${JSON.stringify(s.locator)}, ${JSON.stringify(s.summary)}, ${JSON.stringify(s.overview)},
                  ${generation}, ${status}, ${now()})
          ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
            overview_json = excluded.overview_json, updated_at = excluded.updated_at`

    type PageRow = StoredEventRow & { event_uid: unknown }
    /**
     * The (source, generation) pairs whose stream of `uid` is shown now: each source's current generation that holds
     * the session (lean layout; `streams_by_session`). Null on an index from before migration 0006 (no streams).
     */
    const shownStreams = (uid: string) =>
      reader.lean
        ? fail(sql<{ source_key: string; generation: number }>`
            SELECT st.source_key, st.generation FROM streams st JOIN sources s ON s.source_key = st.source_key AND s.generation = st.generation
            WHERE st.session_uid = ${uid} ORDER BY st.source_key, st.generation`)
        : Effect.succeed(null)

    /**
     * At most `limit` events of session `uid` in source order `(sequence, event_uid)` (`"after"`: ascending from after
     * `from`; `"before"`: descending from before it), of its sources' current generations. Given its shown streams
     * ({@link shownStreams}), each is one range of `records_in_order` that stops at `limit`: asked by the session uid
     * alone, SQLite could not know one stream's rows come in order (a session may have several) and read every later
     * row of the session into a temporary B-tree to sort it, each page. Several streams: each one's page, merged.
     */
    const orderedPage = (
      uid: string,
      streams: ReadonlyArray<{ readonly source_key: string; readonly generation: number }> | null,
      from: { readonly sequence: number; readonly eventUid: unknown } | EventsFrom | null,
      direction: "after" | "before",
      limit: number
    ): Effect.Effect<ReadonlyArray<PageRow>, StoreUnavailable> => {
      const order = sql.unsafe(direction === "after" ? "sequence, event_uid" : "sequence DESC, event_uid DESC")
      const branch = (stream: { readonly source_key: string; readonly generation: number } | null) =>
        sql<PageRow>`SELECT ${STORED_COLUMNS}, e.event_uid FROM ${EV} e
            JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
          WHERE ${stream === null ? sql`` : sql`e.source_key = ${stream.source_key} AND e.generation = ${stream.generation} AND`} e.session_uid = ${uid}
            ${
          from === null
            ? sql``
            : !("eventUid" in from)
            ? sql`AND e.sequence ${sql.unsafe(direction === "after" ? ">=" : "<")} ${from.sequence}`
            : sql`AND (e.sequence, e.event_uid) ${sql.unsafe(direction === "after" ? ">" : "<")} (${from.sequence}, ${from.eventUid})`
        }
          ORDER BY ${sql.unsafe(direction === "after" ? "e.sequence, e.event_uid" : "e.sequence DESC, e.event_uid DESC")} LIMIT ${limit}`
      if (streams === null) return fail(branch(null))
      if (streams.length === 0) return Effect.succeed([])
      if (streams.length === 1) return fail(branch(streams[0]))
      const union = streams.slice(1).reduce((acc, st) => sql`${acc} UNION ALL SELECT * FROM (${branch(st)})`, sql`SELECT * FROM (${branch(streams[0])})`)
      return fail(sql<PageRow>`${union} ORDER BY ${order} LIMIT ${limit}`)
    }

    /**
     * A session's events of its sources' current generations, in source order, a page (`pageSize` events) per query.
     * A page starts after the row value `(sequence, event_uid)` of the last one, in the session's shown streams
     * ({@link orderedPage}): one walk of `records_in_order` from there, where `sequence > x OR (sequence = x AND …)`
     * read and sorted every later row of the session for each page (quadratic: ~0.8 s CPU to stream 30,000 events).
     * With `start`, the first page is the range of the rows whose `sequence` is `start.sequence` or more.
     */
    const eventsStream = (uid: string, pageSize = 1000, start?: EventsFrom): Stream.Stream<SessionEvent, StoreUnavailable> =>
      Stream.paginateChunkEffect(
        (start === undefined ? null : { sequence: start.sequence }) as { readonly sequence: number; readonly eventUid: unknown } | EventsFrom | null,
        (after) =>
          Effect.gen(function*() {
            const rows = yield* orderedPage(uid, yield* shownStreams(uid), after, "after", pageSize)
            const events = yield* reader.decode(rows)
            const last = rows[rows.length - 1]
            return [
              Chunk.unsafeFromArray(events),
              rows.length < pageSize ? Option.none() : Option.some({ sequence: last.sequence, eventUid: last.event_uid })
            ] as const
          })
      )

    /** {@link eventsStream}'s pages, each row given to `f` as stored, decoded when `f` asks (`IndexShape.forEachStoredEvent`). */
    const forEachStoredEvent = (uid: string, f: (e: StoredEvent) => void | Effect.Effect<void>, pageSize = 1000, kept: ReadonlySet<string> = NONE_KEPT): Effect.Effect<void, StoreUnavailable> =>
      Effect.gen(function*() {
        // A session held by one current stream (most): its rows read in the order of `records_in_order`, with no
        // sort (the query over the session's streams sorts every row it reads, bodies included: ~0.6 s CPU of the
        // ~1 s that reading a 120,000-event session took).
        const streams = reader.lean
          ? yield* fail(sql<{ readonly stream: number }>`
              SELECT st.stream FROM streams st JOIN sources s ON s.source_key = st.source_key AND s.generation = st.generation
              WHERE st.session_uid = ${uid} LIMIT 2`)
          : []
        const one = streams.length === 1 ? streams[0].stream : undefined
        let after: { readonly sequence: number; readonly eventUid: unknown } | null = null
        for (;;) {
          const page = after === null ? sql`` : sql`AND (e.sequence, e.event_uid) > (${after.sequence}, ${after.eventUid})`
          const rows: ReadonlyArray<StoredEventRow & { event_uid: unknown }> = yield* fail(
            one !== undefined
              ? sql<StoredEventRow & { event_uid: unknown }>`
                SELECT ${STORED_COLUMNS}, e.event_uid FROM ${sql.unsafe(ONE_STREAM_ROWS)} e
                WHERE e.stream = ${one} ${page}
                ORDER BY e.sequence, e.event_uid LIMIT ${pageSize}`
              : sql<StoredEventRow & { event_uid: unknown }>`
                SELECT ${STORED_COLUMNS}, e.event_uid FROM ${EV} e
                  JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
                WHERE e.session_uid = ${uid} ${page}
                ORDER BY e.sequence, e.event_uid LIMIT ${pageSize}`
          )
          const events = yield* reader.stored(rows, kept)
          for (const e of events) {
            // (an Effect: what `f` does for `e` pauses, a huge text's redaction: `src/domain/redaction/pausable.ts`)
            const more = f(e)
            if (more !== undefined) yield* more
          }
          if (rows.length < pageSize) return
          const last = rows[rows.length - 1]
          after = { sequence: last.sequence, eventUid: last.event_uid }
        }
      })

    // An index read (not migrated) from before migration 0005 has no usage table: its usage is derived from its events.
    const hasUsage = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'usage'`))[0].n > 0
    // An index read (not migrated) from before migration 0010 keeps no 1-hour part of the cache writes: NULL.
    const hasUsage1h = hasUsage && (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'cache_write_1h_tokens'`))[0].n > 0
    // An index read (not migrated) from before migration 0015 keeps no speed: every response at the standard rates.
    const hasUsageSpeed = hasUsage && (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'speed'`))[0].n > 0

    // The import's writes (write mode): prepared statements in a transaction kept open across sources.
    const writer = mode === "write" && db !== null ? new IndexWriter(db, toWal ?? undefined) : null
    // A query on this connection first writes what the writer kept back of the open transaction (`IndexWriter.settle`).
    if (writer !== null) beforeStatements(() => writer.settle())
    const readOnly = () =>
      new StoreUnavailable({
        message: `The index ${file} is open read-only here.`,
        remediation: "Run `session-ingest import` to write to it."
      })
    /**
     * Run a write step of the writer holding the connection; a failure or an
     * interruption part-way rolls the open transaction back, so it never
     * holds half an operation.
     */
    const unlocked = <A, E, R>(step: (w: IndexWriter) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      writer === null
        ? Effect.fail(readOnly())
        : exclusive(step(writer)).pipe(
          Effect.onExit((exit) => (exit._tag === "Failure" ? Effect.sync(() => writer.rollback()) : Effect.void))
        )
    /**
     * `PRAGMA data_version` of the writing connection when the run read its checkpoints without the import lock
     * (`importCheckpoints`): another process's commit since then changes it. Null: not read, or read holding the lock.
     */
    let readAt: number | null = null
    const dataVersion = () => (db!.prepare("PRAGMA data_version").raw(true).get() as [number])[0]
    /**
     * Before a run's first write: the import lock (`./import-lock.ts`), waited for if another run holds it. Taken
     * after another process committed since this run read its checkpoints (it wrote while this one read, or while
     * it waited): what this run read is stale, so the run starts again, holding the lock (`importRun`).
     */
    const gate: Effect.Effect<void, StoreUnavailable> = lock === null
      ? Effect.void
      : Effect.flatMap(lock.acquire, (now) =>
        now && readAt !== null && db !== null && dataVersion() !== readAt ? Effect.die(new ReadBeforeAnotherRun()) : Effect.void)
    /**
     * Run a write step of the writer holding the connection (and the import lock); a failure or an interruption
     * part-way rolls the open transaction back, so it never holds half an operation.
     */
    const write = <A, E, R>(step: (w: IndexWriter) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
      writer === null ? Effect.fail(readOnly()) : Effect.zipRight(gate, unlocked(step))
    /** Run a synchronous step of the writer; what the driver throws becomes `StoreUnavailable`. */
    const writeSync = <A>(step: (w: IndexWriter) => A) =>
      write((w) => tryIndex(file, () => step(w)))
    /** Commit what the writer has pending (before an operation that takes a transaction of its own); pending writes mean the lock is held. */
    const flush = unlocked((w) => tryIndex(file, () => w.commit()))
    /** Run an `@effect/sql` write after committing what is pending, and forget the ids it may delete. */
    const atRest = <A, E, R>(effect: Effect.Effect<A, E, R>, key?: string) =>
      writer === null
        ? effect
        : Effect.zipRight(writeSync((w) => w.commitToWal()), effect).pipe(Effect.ensuring(Effect.sync(() => {
          writer.forget()
          // The source's new generation in progress, if any, is no longer (rolled back, superseded or discarded).
          if (key !== undefined) writer.forgetNext(key)
        })))
    if (writer !== null) {
      // Closing the layer commits what the last operations left pending (each was whole: see `write`).
      yield* Effect.addFinalizer(() => flush.pipe(Effect.ignore, Effect.zipRight(lock?.release ?? Effect.void)))
    }

    /** The SQL of a usage row's group key for `by` (`u`: the usage row of {@link firstSeenUsage}, with its session's workspace). */
    const groupKeyOf = (by: UsageFilter["by"]) =>
      by === "session"
        ? "u.session_uid"
        : by === "day"
        ? "substr(u.occurred_at, 1, 10)"
        : by === "model"
        ? bookedModel("sqlite")
        : by === "provider"
        ? "u.provider"
        : by === "response"
        ? "u.session_uid || ' ' || u.response_key"
        : by === "machine"
        ? "NULL" // one machine's index: it names none
        : "u.session_workspace"

    const workspaceClause = (workspace: string, column = "ss.workspace") =>
      workspaceSql(sql, column, workspace)

    const usageGroups = (filter: UsageFilter): Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable> =>
      fail(sql<{
        group_key: string | null
        kind: "response" | "run"
        model: string | null
        covered: number
        has_responses: number
        stated: number
        long_context: number
        fast: number
        set_aside: number
        n: number
        token_rows: number
        input_tokens: number | null
        output_tokens: number | null
        cache_read_tokens: number | null
        cache_write_tokens: number | null
        cache_write_1h_tokens: number | null
        cost_usd: number | null
      }>`
        SELECT ${sql.unsafe(groupKeyOf(filter.by))} AS group_key, u.kind, u.model,
          CASE WHEN u.kind = 'response' AND u.run_seq IS NOT NULL AND u.run_set_aside = 0 THEN coalesce((
            SELECT r.cost_usd IS NOT NULL FROM usage r
            WHERE r.session_uid = u.session_uid AND r.generation = u.generation AND r.kind = 'run' AND r.sequence = u.run_seq
              AND r.source_key = u.source_key LIMIT 1), 0) ELSE 0 END AS covered,
          CASE WHEN u.kind = 'run' THEN EXISTS (
            SELECT 1 FROM usage x
            WHERE x.session_uid = u.session_uid AND x.generation = u.generation AND x.kind = 'response' AND x.run_seq = u.sequence
              AND x.source_key = u.source_key) ELSE 0 END AS has_responses,
          u.cost_usd IS NOT NULL AS stated,
          (u.kind = 'response' AND coalesce(u.input_tokens, 0) + coalesce(u.cache_read_tokens, 0) + coalesce(u.cache_write_tokens, 0) > ${sql.unsafe(String(LONG_CONTEXT_THRESHOLD))}) AS long_context,
          ${sql.unsafe(hasUsageSpeed ? "coalesce(u.kind = 'response' AND u.speed = 'fast', 0)" : "0")} AS fast,
          (u.kind = 'run' AND u.run_set_aside = 1) AS set_aside,
          count(*) AS n, sum((coalesce(u.input_tokens, 0) > 0 OR coalesce(u.output_tokens, 0) > 0 OR coalesce(u.cache_read_tokens, 0) > 0 OR coalesce(u.cache_write_tokens, 0) > 0)) AS token_rows, ${sql.unsafe(tokenSums(hasUsage1h))}, sum(u.cost_usd) AS cost_usd
        FROM (${firstSeenUsageOf(sql, "sqlite", filter.sessionUids)}) u
        WHERE (u.first_seen = 1 OR (u.kind = 'run' AND u.run_set_aside = 1))
          ${filter.sessionUids !== undefined ? sql`AND u.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
          ${filter.provider !== undefined ? sql`AND u.provider = ${filter.provider}` : sql``}
          ${timeRangeSql(sql, "u.occurred_at", filter)}
          ${filter.workspace !== undefined ? workspaceClause(filter.workspace, "u.session_workspace") : sql``}
        GROUP BY group_key, u.kind, u.model, covered, has_responses, stated, long_context, fast, set_aside`).pipe(
        Effect.map((rows) =>
          rows.map((r): UsageGroup => ({
            group: r.group_key,
            kind: r.kind,
            model: r.model,
            covered: r.covered === 1,
            hasResponses: r.has_responses === 1,
            stated: r.stated === 1,
            longContext: r.long_context === 1,
            fast: r.fast === 1,
            setAside: r.set_aside === 1,
            rows: r.n,
            tokenRows: r.token_rows,
            inputTokens: r.input_tokens,
            outputTokens: r.output_tokens,
            cacheReadTokens: r.cache_read_tokens,
            cacheWriteTokens: r.cache_write_tokens,
            cacheWrite1hTokens: r.cache_write_1h_tokens,
            costUsd: r.cost_usd
          }))
        )
      )

    /**
     * The usage rows of an index without the usage table, derived from the stored events (a scan), each with whether
     * it counts and, for a copy that does not, the session it counts in (as firstSeenUsage and
     * countedElsewhereUsage decide), and whether its session passes the filters but the times.
     */
    const usageRowsFromEvents = (filter: Omit<UsageFilter, "by">) =>
      Effect.gen(function*() {
        // Every session is read (a response's first session may be outside the filters); the filters apply after.
        const sessions = yield* fail(sql<{ session_uid: string; generation: number; source_key: string; session_id: string; source_id: string; workspace: string | null; first_at: string | null; last_at: string | null; wanted: number }>`
          SELECT ss.session_uid, ss.generation, ss.source_key, ss.session_id, ss.source_id, ss.workspace, ss.first_at, ss.last_at,
            (1 ${filter.sessionUids !== undefined ? sql`AND ss.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
              ${filter.provider !== undefined ? sql`AND ss.provider = ${filter.provider}` : sql``}
              ${filter.workspace !== undefined ? workspaceClause(filter.workspace) : sql``}) AS wanted
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE ${sql.unsafe(countedSource("s"))}`)
        type Session = (typeof sessions)[number]
        // `model`: what `--by model` books the row under (bookedModelOf: a run's stated total where its responses are).
        type Counted = { row: UsageRow; readonly ss: Session; readonly model: string | null; counted: boolean; countedIn: Counted | null }
        const all: Array<Counted> = []
        // A response counts once across sessions, where it was seen first (the order of FIRST_SEEN_USAGE),
        // decided before the time filters, as there.
        const firstSeen = new Map<string, { readonly at: ReadonlyArray<string | number>; readonly c: Counted }>()
        // A Claude response in AgentMux's record and in Claude Code's log: the same session id and message id (the
        // second window of firstSeenUsage), Claude Code's copy first.
        const mirrorFirst = new Map<string, { readonly at: ReadonlyArray<string | number>; readonly c: Counted }>()
        const before = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>) => {
          for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] < b[k]
          return false
        }
        const earliest = (map: typeof firstSeen, id: string, at: ReadonlyArray<string | number>, c: Counted) => {
          const seen = map.get(id)
          if (seen === undefined || before(at, seen.at)) map.set(id, { at, c })
        }
        for (const ss of sessions) {
          const stored = yield* fail(sql<StoredEventRow>`
            SELECT ${STORED_COLUMNS} FROM ${EV} e
            WHERE e.session_uid = ${ss.session_uid} AND e.generation = ${ss.generation} AND e.source_key = ${ss.source_key}
              ${reader.lean ? sql`` : sql`AND ${sql.unsafe(MAY_CARRY_USAGE.replaceAll("event_json", "e.body").replace("kind", "e.kind"))}`}
            ORDER BY e.sequence, e.event_uid`)
          const rows = usageRows(yield* reader.decode(stored))
          const booked = bookedModelOf(rows)
          for (const r of rows) {
            const c: Counted = { row: r, ss, model: booked(r), counted: true, countedIn: null }
            all.push(c)
            const at = [
              // the times by instant (sortKey, as FIRST_SEEN_ORDER's sortKeySql), not as text
              ss.first_at === null ? 1 : 0, ss.first_at === null ? "" : sortKey(ss.first_at), ss.last_at === null ? 1 : 0,
              ss.last_at === null ? "" : sortKey(ss.last_at), r.occurredAt === null ? 1 : 0, r.occurredAt === null ? "" : sortKey(r.occurredAt),
              ss.session_id, ss.source_id, ss.source_key, ss.session_uid
            ]
            const mirror = mirrorIdOf(r, ss.session_id)
            if (mirror !== null) earliest(mirrorFirst, mirror, [r.provider === "agentmux" ? 1 : 0, ...at], c)
            if (r.provider === "claude-code" && r.kind === "response" && r.key.startsWith("r:")) earliest(firstSeen, usageIdOf(r), at, c)
          }
        }
        for (const c of all) {
          const r = c.row
          const first = r.provider === "claude-code" && r.kind === "response" && r.key.startsWith("r:")
            ? firstSeen.get(usageIdOf(r))!.c
            : r.provider === "agentmux"
            ? mirrorFirst.get(mirrorIdOf(r, c.ss.session_id) ?? "")?.c
            : undefined
          if (first !== undefined && first !== c) {
            c.counted = false
            c.countedIn = first
          }
        }
        // An AgentMux run whose every response counts elsewhere counts elsewhere too (its stated cost covers them);
        // one some of whose responses count in Claude Code's log is set aside (its stated total overlaps them): it
        // counts nowhere, and its other responses are priced from the table (tester27a F8), as firstSeenUsage.
        const runCounts = new Map<string, boolean>()
        const inClaude = new Set<string>()
        const runOf = (c: Counted, seq: number) => `${c.ss.session_uid}\u0000${c.ss.source_key}\u0000${seq}`
        for (const c of all) {
          if (c.row.provider !== "agentmux" || c.row.kind !== "response" || c.row.runSeq === null) continue
          const k = runOf(c, c.row.runSeq)
          runCounts.set(k, (runCounts.get(k) ?? false) || c.counted)
          if (c.countedIn?.row.provider === "claude-code") inClaude.add(k)
        }
        for (const c of all) {
          if (c.row.provider !== "agentmux" || c.row.kind !== "run") continue
          const k = runOf(c, c.row.sequence)
          if (inClaude.has(k)) {
            c.counted = false
            c.row = { ...c.row, setAside: true }
          } else if (runCounts.get(k) === false) c.counted = false
        }
        return all.filter((c) => c.ss.wanted === 1 && inTimeRange(c.row.occurredAt, filter))
      })

    /** {@link usageGroups} for an index without the usage table: the rows derived from the stored events (a scan). */
    const usageGroupsFromEvents = (filter: UsageFilter): Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable> =>
      Effect.gen(function*() {
        const out: Array<UsageRow & { readonly group: string | null }> = []
        for (const { counted, model, row: r, ss } of yield* usageRowsFromEvents(filter)) {
          if (!counted && r.setAside !== true) continue
          const group = filter.by === "session"
            ? ss.session_uid
            : filter.by === "day"
            ? r.occurredAt?.slice(0, 10) ?? null
            : filter.by === "model"
            ? model
            : filter.by === "provider"
            ? r.provider
            : filter.by === "response"
            ? `${ss.session_uid} ${r.key}`
            : filter.by === "machine"
            ? null
            : ss.workspace
          out.push({ ...r, group })
        }
        return groupRows(out, (r) => (r as UsageRow & { readonly group: string | null }).group)
      })

    /** {@link IndexShape.usageElsewhere}: the copies {@link countedElsewhereUsage} finds, by session and where they count. */
    /**
     * A usage query: nothing for an empty list of sessions; else from the `usage` table, or, on an index read
     * without migrating from before it (no such table), from the stored events.
     */
    const fromUsage = <F extends Omit<UsageFilter, "by">, A>(
      fromTable: (filter: F) => Effect.Effect<ReadonlyArray<A>, StoreUnavailable>,
      fromEvents: (filter: F) => Effect.Effect<ReadonlyArray<A>, StoreUnavailable>
    ) =>
    (filter: F): Effect.Effect<ReadonlyArray<A>, StoreUnavailable> =>
      // (a machine named: this index names none, so none of its rows is that machine's)
      (filter.sessionUids !== undefined && filter.sessionUids.length === 0) || filter.machine !== undefined
        ? Effect.succeed([])
        : hasUsage
        ? fromTable(filter)
        : fromEvents(filter)

    const usageElsewhere = (filter: Omit<UsageFilter, "by">): Effect.Effect<ReadonlyArray<UsageElsewhere>, StoreUnavailable> =>
      fail(sql<{ session_uid: string; counted_in: string; counted_in_id: string; counted_in_provider: ProviderId; n: number }>`
        SELECT c.session_uid, c.counted_in, c.counted_in_id, min(c.counted_in_provider) AS counted_in_provider, count(*) AS n
        FROM (${countedElsewhereUsage(sql, "sqlite", filter.sessionUids)}) c
        WHERE 1
          ${filter.sessionUids !== undefined ? sql`AND c.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
          ${filter.provider !== undefined ? sql`AND c.provider = ${filter.provider}` : sql``}
          ${timeRangeSql(sql, "c.occurred_at", filter)}
          ${filter.workspace !== undefined ? workspaceSql(sql, "c.session_workspace", filter.workspace) : sql``}
        GROUP BY c.session_uid, c.counted_in, c.counted_in_id
        ORDER BY c.session_uid, c.counted_in`).pipe(
        Effect.map((rows) => rows.map((r) => ({ sessionUid: r.session_uid, countedInUid: r.counted_in, countedInId: r.counted_in_id, countedInProvider: r.counted_in_provider, responses: r.n })))
      )

    /** {@link usageElsewhere} for an index without the usage table: from the rows derived from the stored events. */
    const usageElsewhereFromEvents = (filter: Omit<UsageFilter, "by">): Effect.Effect<ReadonlyArray<UsageElsewhere>, StoreUnavailable> =>
      Effect.map(usageRowsFromEvents(filter), (rows) => {
        const out = new Map<string, { -readonly [K in keyof UsageElsewhere]: UsageElsewhere[K] }>()
        for (const { countedIn, ss } of rows) {
          if (countedIn === null) continue
          const k = `${ss.session_uid} ${countedIn.ss.session_uid}`
          const e = out.get(k) ?? {
            sessionUid: ss.session_uid,
            countedInUid: countedIn.ss.session_uid,
            countedInId: countedIn.ss.session_id,
            countedInProvider: countedIn.row.provider as ProviderId,
            responses: 0
          }
          e.responses++
          out.set(k, e)
        }
        return [...out.values()].sort((a, b) => (a.sessionUid < b.sessionUid ? -1 : a.sessionUid > b.sessionUid ? 1 : a.countedInUid < b.countedInUid ? -1 : 1))
      })

    /** {@link IndexShape.search} of an index before migration 0006 read without migrating it (its `search_docs`). */
    const legacySearch = (compiled: CompiledQuery, filter: SearchFilter, limit: number) =>
      Effect.gen(function*() {
          // Ranked among the newest RANK_WINDOW matches (all of them when fewer): a word in every event costs what a rare one does.
          const ranked = yield* fail(sql<{ doc: number; score: number }>`
            SELECT doc, score FROM (
            SELECT d.doc, search.rank AS score FROM search JOIN search_docs d ON d.doc = search.rowid
            WHERE search MATCH ${compiled.matchIn(fold)}
              ${searchFilterSql(sql, filter, { provider: "d.provider", kind: "d.kind", role: "d.role", occurredAt: "d.occurred_at", sessionUid: "d.session_uid" })}
            ORDER BY search.rowid DESC LIMIT ${Math.max(RANK_WINDOW, limit)})
            ORDER BY score, doc DESC LIMIT ${limit}`)
          if (ranked.length === 0) return []
          const details = yield* fail(sql<{
            doc: number
            session_uid: string
            provider: string
            event_uid: string
            session_id: string
            title: string | null
            workspace: string | null
            event_json: string | null
            source_status: string
          }>`
            SELECT d.doc, d.session_uid, d.provider, d.event_uid, ss.session_id, ss.title, ss.workspace, e.event_json, s.status AS source_status
            FROM search_docs d
              JOIN sources s ON s.source_key = d.source_key AND s.generation = d.generation AND s.status != 'rejected'
              JOIN sessions ss ON ss.session_uid = d.session_uid AND ss.generation = d.generation
              LEFT JOIN events e ON e.source_key = d.source_key AND e.generation = d.generation AND e.event_uid = d.event_uid
            WHERE d.doc IN ${sql.in(ranked.map((r) => r.doc))}`)
          const byDoc = new Map(details.map((d) => [d.doc, d]))
          const hits: Array<SearchHit> = []
          for (const r of ranked) {
            const d = byDoc.get(r.doc)
            if (d === undefined) continue
            const base = {
              sessionUid: d.session_uid,
              sessionId: d.session_id,
              title: d.title,
              provider: d.provider as ProviderId,
              workspace: d.workspace,
              machine: null,
              score: r.score,
              sessionStatus: sessionStatusOf(d.source_status)
            }
            hits.push(searchHitOf(compiled.tree, base, d.event_uid === "" ? null : d.event_uid, d.event_json))
          }
          return hits
        })


    const shape: IndexShape = {
      // One machine's file: keys without a machine, as every earlier build made them (see `sourceKey`); rows name
      // none (`machine` null), and a machine filter matches nothing.
      namesMachines: false,
      searchFold: fold,
      machines: Effect.succeed([]),
      sourceKey: (provider, locator) => sourceKey(provider, locator),

      // One import run at a time writes to the file (`./import-lock.ts`): the lock is taken at the run's first
      // write, a run that read before another's commit starts again holding it, and it is let go when the run ends.
      importRun: lock === null ? undefined : <A, E, R>(run: Effect.Effect<A, E, R>) =>
        Effect.suspend(() => {
          readAt = null
          return run.pipe(
            Effect.catchSomeDefect((d) => (d instanceof ReadBeforeAnotherRun ? Option.some(run) : Option.none())),
            Effect.ensuring(flush.pipe(Effect.ignore, Effect.zipRight(lock.release), Effect.zipRight(Effect.sync(() => (readAt = null)))))
          )
        }),

      checkpoint: (key) =>
        fail(sql<CheckpointRow>`SELECT ${sql.unsafe(checkpointColumns(overviewColumn))} FROM sources WHERE source_key = ${key}`).pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCheckpoint))
        ),

      rejectionOf: (key) =>
        fail(sql<{ code: string | null; message: string | null }>`SELECT error_code AS code, error_message AS message FROM sources WHERE source_key = ${key}`).pipe(
          Effect.map(([r]) => r === undefined || r.code === null ? undefined : { code: r.code, message: r.message ?? "" })
        ),

      // Every checkpoint: on the writing connection, the driver's rows as arrays of values, one map entry each (no
      // row object, no fiber per row); a read-only index through `@effect/sql`.
      checkpoints: db !== null
        ? exclusive(tryIndex(file, () => {
          writer?.settle()
          const out = new Map<string, SourceCheckpoint>()
          const statement = db.prepare(`SELECT ${sourceCheckpointColumns} FROM sources`).raw(true)
          for (const v of statement.iterate() as Iterable<ReadonlyArray<unknown>>) out.set(v[0] as string, toSourceCheckpointOfValues(v))
          return out as ReadonlyMap<string, SourceCheckpoint>
        }))
        : fail(sql<Omit<CheckpointRow, "overview_json">>`SELECT ${sql.unsafe(sourceCheckpointColumns)} FROM sources`).pipe(
          Effect.map((rows) => new Map(rows.map((r) => [r.source_key, toSourceCheckpoint(r)])))
        ),

      // As an import reads them (on the writing connection): the summaries (the largest column: most of the bytes
      // read) all at once when one is first asked for (a discovery that lists unchanged sources from their kept
      // overviews asks for none), while the index is open; the kept overviews with the rest.
      importCheckpoints: db === null ? undefined : exclusive(tryIndex(file, () => {
        writer?.settle()
        if (lock !== null) readAt = lock.held() ? null : dataVersion()
        const out = new Map<string, SourceCheckpoint>()
        let summaries: Map<string, string> | undefined
        const summaryOf = (key: string): Record<string, unknown> => {
          summaries ??= new Map(db.prepare("SELECT source_key, summary_json FROM sources").raw(true).all() as Array<[string, string]>)
          const json = summaries.get(key)
          return json === undefined ? {} : JSON.parse(json) as Record<string, unknown>
        }
        const statement = db.prepare(`SELECT ${leanCheckpointColumns(overviewColumn)} FROM sources`).raw(true)
        for (const v of statement.iterate() as Iterable<ReadonlyArray<unknown>>) out.set(v[0] as string, toLeanCheckpointOfValues(v, summaryOf))
        return out as ReadonlyMap<string, SourceCheckpoint>
      })),

      beginGeneration: (source, generation, reason) => writeSync((w) => w.beginGeneration(source, generation, reason)),

      beginAttempt: (source) => writeSync((w) => w.beginAttempt(source, () => randomInt(1, 2 ** 47))),

      commitBatch: (batch, onPoint) =>
        batch.events.length === 0
          ? Effect.succeed({ events: 0, sessions: 0 })
          : write((w) =>
            Effect.gen(function*() {
              const sync = <A>(f: () => A) => tryIndex(file, f)
              const rows = yield* sync(() => w.prepare(batch))
              const half = Math.ceil(rows.length / 2)
              const attempt = batch.attempt ?? null
              const added = yield* sync(() => w.insert(rows.slice(0, half), attempt))
              yield* onPoint("mid-batch")
              if (half < rows.length) added.push(...yield* sync(() => w.insert(rows.slice(half), attempt)))
              const sessions = yield* sync(() => w.finish(batch, rows, added))
              if (w.due(batch.groupCommit)) {
                yield* onPoint("before-commit")
                yield* sync(() => w.commit())
                yield* onPoint("after-commit")
              }
              return { events: added.length, sessions }
            })
          ),

      flush,

      // A new small source in one synchronous step of the writer (no effect per statement or per batch): the
      // commit points run `onPoint` there, and a failure it raises stops the step as it would stop `commitBatch`.
      importWhole: (whole, onPoint) =>
        write((w) =>
          Effect.suspend(() => {
            try {
              return Effect.succeed(w.whole(whole, () => randomInt(1, 2 ** 47), (point) => {
                const hook = onPoint(point)
                // No hook at this point (`ImportFaults.none`): no fiber run for it (one per batch of every source).
                if (hook === Effect.void) return
                const exit = Effect.runSyncExit(hook)
                if (exit._tag === "Failure") throw new PointFailed(exit.cause)
              }))
            } catch (e) {
              return e instanceof PointFailed ? Effect.failCause(e.cause as Cause.Cause<never>) : failIndex(file, e)
            }
          })
        ),

      completeSource: (source, fingerprint, read) => writeSync((w) => w.complete(source, fingerprint, read)),

      // A source never imported and rejected before with the same error, read again unchanged (a rejected source is
      // retried every run, so that a fixed file imports): its row already says all this run would write, so nothing
      // is written (an unchanged run leaves the index's bytes as they were, and works on a read-only index).
      rejectSource: (source, code, message) =>
        Effect.flatMap(fail(sql<{ readonly n: number }>`
          SELECT count(*) AS n FROM sources WHERE source_key = ${source.sourceKey} AND status = 'rejected' AND generation = 0
            AND event_count = 0 AND attempt_json IS NULL AND fingerprint IS NULL AND cursor IS NULL
            AND error_code = ${code} AND error_message = ${message} AND provider = ${source.provider}
            AND locator_json = ${JSON.stringify(source.locator)} AND summary_json = ${JSON.stringify(source.summary)}
            AND overview_json = ${JSON.stringify(source.overview)}`), ([same]) => same !== undefined && same.n === 1 ? Effect.void :
        atRest(fail(sql.withTransaction(Effect.gen(function*() {
          const key = source.sourceKey
          const [row] = yield* sql<{ attempt_json: string | null }>`SELECT attempt_json FROM sources WHERE source_key = ${key}`
          const state = row?.attempt_json != null ? JSON.parse(row.attempt_json) as AttemptState : undefined
          const base = state === undefined ? undefined : state.base
          if (base === undefined && row !== undefined) {
            // No attempt recorded (an index of an earlier build): nothing this run added is known; note the error.
            yield* sql`UPDATE sources SET status = CASE WHEN event_count = 0 THEN 'rejected' ELSE status END, fingerprint = NULL,
                         error_code = ${code}, error_message = ${message}, updated_at = ${now()} WHERE source_key = ${key}`
            return
          }
          const streamsOf = (cmp: "all" | "after", gen = 0) =>
            cmp === "all"
              ? sql`SELECT stream FROM streams WHERE source_key = ${key}`
              : sql`SELECT stream FROM streams WHERE source_key = ${key} AND generation > ${gen}`
          if (base === undefined || base === null) {
            // Never imported before this attempt: nothing of it stays.
            yield* sql`DELETE FROM records WHERE stream IN (${streamsOf("all")})`
            yield* sql`DELETE FROM streams WHERE source_key = ${key}`
            yield* sql`DELETE FROM usage WHERE source_key = ${key}`
            yield* sql`DELETE FROM sessions WHERE source_key = ${key}`
            yield* sql`DELETE FROM generations WHERE source_key = ${key}`
            yield* upsertSource(source, 0, "rejected")
            yield* sql`UPDATE sources SET generation = 0, cursor = NULL, fingerprint = NULL, status = 'rejected', event_count = 0,
                         source_id = NULL, prefix = NULL, parts_json = NULL, diagnostics_json = NULL, attempt_json = NULL,
                         error_code = ${code}, error_message = ${message}, updated_at = ${now()}
                       WHERE source_key = ${key}`
            return
          }
          // Back to the checkpoint the attempt began from: generations it began go, the one it superseded is current again,
          // and the events it added to that one go, with the session counts they made.
          const gen = base.generation as number
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM records WHERE stream IN (${streamsOf("after", gen)})`
          yield* sql`DELETE FROM streams WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM generations WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`UPDATE generations SET superseded_at = NULL, superseded_reason = NULL WHERE source_key = ${key} AND generation = ${gen}`
          const removed = yield* sql<{ stream: number }>`
            DELETE FROM records WHERE attempt = ${state!.attempt}
              AND stream IN (SELECT stream FROM streams WHERE source_key = ${key} AND generation = ${gen})
            RETURNING stream`
          const streams = [...new Set(removed.map((r) => r.stream))]
          const touched = streams.length === 0
            ? []
            : yield* sql<{ session_uid: string }>`SELECT DISTINCT session_uid FROM streams WHERE stream IN ${sql.in(streams)}`
          for (const { session_uid: uid } of touched) {
            const inSession = sql`(SELECT r.id, r.occurred_at FROM records r JOIN streams st ON st.stream = r.stream
                                    WHERE st.session_uid = ${uid} AND st.generation = ${gen})`
            yield* sql`UPDATE sessions SET
                         event_count = (SELECT count(*) FROM ${inSession}),
                         first_at = (SELECT occurred_at FROM ${inSession} WHERE occurred_at IS NOT NULL ORDER BY ${sql.unsafe(sortKeySql("occurred_at"))} LIMIT 1),
                         last_at = (SELECT occurred_at FROM ${inSession} WHERE occurred_at IS NOT NULL ORDER BY ${sql.unsafe(sortKeySql("occurred_at"))} DESC LIMIT 1)
                       WHERE session_uid = ${uid} AND generation = ${gen}`
            yield* sql`DELETE FROM sessions WHERE session_uid = ${uid} AND generation = ${gen} AND event_count = 0`
            // The usage rows as the events that stay make them (a response's last usage may have been one the attempt added).
            yield* rebuildUsage(sql, reader, key, gen, uid)
          }
          // The sessions that stay take back the title and workspace the attempt found (a batch writes them as the read
          // gives them: a title first read in the part now rejected), the title's search words with it.
          yield* restoreSessions(sql, key, gen, state!.sessions, hasSearch, base.status !== "rejected" && base.status !== "superseded")
          yield* sql`UPDATE sources SET ${sql.update({ ...base, error_code: code, error_message: message }, [])},
                       attempt_json = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
          // The generation the attempt had superseded is current again: its search words come back (a new generation
          // begun beside it, `NextGeneration`, superseded nothing: its words are there).
          if (hasSearch && base.status !== "rejected" && base.status !== "superseded" && state!.next === undefined) yield* indexGeneration(sql, key, gen)
        }))), source.sourceKey)),

      discardGeneration: (key) =>
        atRest(fail(sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ generation: number; attempt_json: string | null }>`
            SELECT generation, attempt_json FROM sources WHERE source_key = ${key}`
          if (row === undefined || nextGenerationOf(row.attempt_json, row.generation) === undefined) return
          // What the new generations begun beside the complete one hold goes (the search words with their records and
          // streams, by the triggers); the complete one, never superseded, stays as it is.
          const gen = row.generation
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM records WHERE stream IN (SELECT stream FROM streams WHERE source_key = ${key} AND generation > ${gen})`
          yield* sql`DELETE FROM streams WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM generations WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`UPDATE sources SET attempt_json = NULL, updated_at = ${now()} WHERE source_key = ${key}`
        }))), key),

      supersedeSource: (key, reason) =>
        atRest(fail(sql.withTransaction(Effect.gen(function*() {
          const [found] = yield* sql<{ generation: number; attempt_json: string | null }>`SELECT generation, attempt_json FROM sources WHERE source_key = ${key}`
          if (found === undefined) return
          // Past a new generation in progress too (`NextGeneration`): superseded with the rest, the empty one after it.
          const row = { generation: nextGenerationOf(found.attempt_json, found.generation)?.generation ?? found.generation }
          yield* sql`UPDATE generations SET superseded_at = ${now()}, superseded_reason = ${reason}
                     WHERE source_key = ${key} AND generation <= ${row.generation} AND superseded_at IS NULL`
          if (hasSearch) {
            yield* sql`DELETE FROM search WHERE rowid IN (
              SELECT r.id FROM streams st JOIN records r ON r.stream = st.stream WHERE st.source_key = ${key} AND st.generation <= ${row.generation})`
            yield* sql`DELETE FROM search WHERE rowid IN (SELECT -stream FROM streams WHERE source_key = ${key} AND generation <= ${row.generation})`
          }
          yield* sql`UPDATE sources SET generation = ${row.generation + 1}, cursor = NULL, fingerprint = NULL, status = 'superseded',
                       event_count = 0, source_id = NULL, prefix = NULL, parts_json = NULL, diagnostics_json = NULL, attempt_json = NULL,
                       error_code = NULL, error_message = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
        }))), key),

      sessions: (filter) =>
        filter.machine !== undefined ? Effect.succeed([]) : fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count, s.status AS source_status
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE s.status != 'rejected'
            ${filter.provider !== undefined ? sql`AND ss.provider = ${filter.provider}` : sql``}
            ${filter.sourceKey !== undefined ? sql`AND ss.source_key = ${filter.sourceKey}` : sql``}
            ${timeRangeSql(sql, "ss.last_at", { since: filter.since })}
            ${timeRangeSql(sql, "ss.first_at", { until: filter.until })}
            ${statusSql(sql, filter.status)}
            ${
          filter.workspace !== undefined
            ? workspaceSql(sql, "ss.workspace", filter.workspace)
            : sql``
        }
          ORDER BY ss.last_at IS NULL, ${sql.unsafe(sortKeySql("ss.last_at"))} DESC, ss.session_uid
          ${filter.limit !== undefined ? sql`LIMIT ${filter.limit}` : sql``}`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      findSessions: (id) =>
        fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count, s.status AS source_status
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE (ss.session_uid = ${id} OR ss.session_id = ${id}) AND s.status != 'rejected'
          ORDER BY ss.last_at IS NULL, ${sql.unsafe(sortKeySql("ss.last_at"))} DESC, ss.session_uid`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      // Compared as UTF-8 bytes (a BLOB): SQLite's text functions (`length`, `substr`) stop at a U+0000, which a
      // session id may hold (a Muse agents one is free text), and a prefix of the bytes is a prefix of the text.
      findSessionsByPrefix: (prefix, max) =>
        prefix.length === 0
          ? Effect.succeed([])
          : fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count, s.status AS source_status
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE substr(CAST(ss.session_uid AS BLOB), 1, ${Buffer.byteLength(prefix)}) = CAST(${prefix} AS BLOB)
             OR substr(CAST(ss.session_id AS BLOB), 1, ${Buffer.byteLength(prefix)}) = CAST(${prefix} AS BLOB)
          ORDER BY ss.last_at IS NULL, ${sql.unsafe(sortKeySql("ss.last_at"))} DESC, ss.session_uid
          LIMIT ${max}`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      // Pages of 2,000: each decoded in one synchronous step, kept short so that an interruption lands between pages.
      events: (uid) => Effect.map(Stream.runCollect(eventsStream(uid, 2_000)), Chunk.toArray),

      // A lean body is counted with what its event restates (its shape's keys and words, its stream's ids, its columns),
      // so the figure stays about the size of the events' JSON, what holding them whole costs.
      sessionBytes: (uid) =>
        fail(sql<{ bytes: number }>`
          SELECT total(length(e.body) + ${
          reader.lean
            ? sql`CASE WHEN e.shape IS NULL THEN 0 ELSE length(sh.def) + length(e.provider) + length(e.source_id) + length(e.session_id)
                    + length(e.kind) + coalesce(length(e.occurred_at), 4) + 64 END`
            : sql`0`
        }) AS bytes FROM ${EV} e
            JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
            ${reader.lean ? sql`LEFT JOIN shapes sh ON sh.shape = e.shape` : sql``}
          WHERE e.session_uid = ${uid}`).pipe(Effect.map((rows) => rows[0]?.bytes ?? 0)),

      eventsStream,
      forEachStoredEvent,

      search: (query, filter) =>
        Effect.gen(function*() {
          const compiled = yield* compileQuery(query)
          if (filter.machine !== undefined) return []
          if (!hasSearch) {
            return yield* new UnsupportedOperation({
              message: `The index ${file} was made before search existed, and is read here read-only: it has no search index yet.`,
              remediation: `Run \`session-ingest import --index ${file}\` once where the index can be written: it adds search from the events it holds, without reading any source again.`,
              details: { reason: "index-without-search", migration: "0004_search" }
            })
          }
          const limit = Math.max(1, Math.min(filter.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT))
          if (!reader.lean) return yield* legacySearch(compiled, filter, limit)
          // Ranked among the newest RANK_WINDOW matches (all of them when fewer): a word in every event costs what a rare one does.
          // A document is a record (rowid = its id) or a session's title (rowid = minus its stream's id).
          const ranked = yield* fail(sql<{ doc: number; score: number }>`
            SELECT doc, score FROM (
            SELECT search.rowid AS doc, search.rank AS score FROM search
              LEFT JOIN records r ON r.id = search.rowid
              JOIN streams st ON st.stream = (CASE WHEN search.rowid < 0 THEN -search.rowid ELSE r.stream END)
            WHERE search MATCH ${compiled.matchIn(fold)}
              ${searchFilterSql(sql, filter, { provider: "st.provider", kind: "r.kind", role: "r.role", occurredAt: "r.occurred_at", sessionUid: "st.session_uid" })}
            ORDER BY search.rowid DESC LIMIT ${Math.max(RANK_WINDOW, limit)})
            ORDER BY score, doc DESC LIMIT ${limit}`)
          if (ranked.length === 0) return []
          type Detail = StoredEventRow & {
            doc: number
            session_uid: string
            event_uid: unknown
            title: string | null
            workspace: string | null
            source_status: string
          }
          const session = sql`JOIN sources s ON s.source_key = st.source_key AND s.generation = st.generation AND s.status != 'rejected'
            JOIN sessions ss ON ss.session_uid = st.session_uid AND ss.generation = st.generation`
          const recordDocs = ranked.filter((r) => r.doc > 0).map((r) => r.doc)
          const titleDocs = ranked.filter((r) => r.doc < 0).map((r) => -r.doc)
          const events = recordDocs.length === 0 ? [] : yield* fail(sql<Detail>`
            SELECT r.id AS doc, st.session_uid, st.provider, st.source_id, st.session_id, r.uid AS event_uid, ss.title, ss.workspace,
                   r.shape, r.body, r.sequence, r.kind, r.occurred_at, s.status AS source_status
            FROM records r JOIN streams st ON st.stream = r.stream ${session}
            WHERE r.id IN ${sql.in(recordDocs)}`)
          const titles = titleDocs.length === 0 ? [] : yield* fail(sql<Detail>`
            SELECT -st.stream AS doc, st.session_uid, st.provider, st.source_id, st.session_id, NULL AS event_uid, ss.title, ss.workspace,
                   NULL AS shape, NULL AS body, NULL AS sequence, NULL AS kind, NULL AS occurred_at, s.status AS source_status
            FROM streams st ${session}
            WHERE st.stream IN ${sql.in(titleDocs)}`)
          const decoded = yield* reader.decode(events)
          const byDoc = new Map<number, { d: Detail; e: SessionEvent | null }>()
          events.forEach((d, i) => byDoc.set(d.doc, { d, e: decoded[i] }))
          for (const d of titles) byDoc.set(d.doc, { d, e: null })
          const hits: Array<SearchHit> = []
          for (const r of ranked) {
            const got = byDoc.get(r.doc)
            if (got === undefined) continue
            const { d, e } = got
            const base = {
              sessionUid: d.session_uid,
              sessionId: d.session_id,
              title: d.title,
              provider: d.provider as ProviderId,
              workspace: d.workspace,
              machine: null,
              score: r.score,
              sessionStatus: sessionStatusOf(d.source_status)
            }
            hits.push(searchHitOfEvent(compiled.tree, base, e === null ? null : uidText(d.event_uid), e))
          }
          return hits
        }),

      eventsAround: (uid, id, before, after) =>
        Effect.gen(function*() {
          const current = sql`JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation`
          const [session] = yield* fail(sql<{ provider: string; source_id: string; session_id: string }>`
            SELECT provider, source_id, session_id FROM sessions WHERE session_uid = ${uid} LIMIT 1`)
          if (session === undefined) return Option.none()
          const candidates = [id, eventUid(session.provider as ProviderId, session.source_id, session.session_id, id)].map(reader.uidParam)
          type Row = StoredEventRow & { event_uid: unknown }
          // The neighbours by a row value `(sequence, event_uid)`, not `sequence < x OR (sequence = x AND …)`: SQLite then
          // walks the index `records_in_order` from the hit, where for the OR it read and sorted every earlier (or later)
          // row of the session, bodies included (~10-40 ms a call at 30,000 events; MCP search_sessions asks once a hit).
          const [hit] = yield* fail(sql<Row>`
            SELECT ${STORED_COLUMNS}, e.event_uid FROM ${EV} e ${current}
            WHERE e.session_uid = ${uid} AND e.event_uid IN ${sql.in(candidates)} LIMIT 1`)
          if (hit === undefined) return Option.none()
          const streams = yield* shownStreams(uid)
          const from = { sequence: hit.sequence, eventUid: hit.event_uid }
          const earlier = before <= 0 ? [] : yield* orderedPage(uid, streams, from, "before", before)
          const later = after <= 0 ? [] : yield* orderedPage(uid, streams, from, "after", after)
          const events = yield* reader.decode([...[...earlier].reverse(), hit, ...later])
          return Option.some({ events, at: earlier.length })
        }),

      usage: fromUsage(usageGroups, usageGroupsFromEvents),

      usageElsewhere: fromUsage(usageElsewhere, usageElsewhereFromEvents),

      shownIdKey: shownIdKey(sql, fail),

      counts: fail(
        sql<{ sources: number; sessions: number; events: number }>`
          SELECT (SELECT COUNT(*) FROM sources) AS sources, (SELECT COUNT(*) FROM sessions) AS sessions,
                 (SELECT COUNT(*) FROM ${EV}) AS events`
      ).pipe(Effect.map((r) => r[0])),

      dump: fail(Effect.all({
        sources: sql`SELECT source_key, provider, locator_json, source_id, generation, cursor, fingerprint, status, error_code, event_count,
                            prefix, parts_json, diagnostics_json
                     FROM sources ORDER BY source_key`,
        generations: sql`SELECT source_key, generation, superseded_at IS NOT NULL AS superseded FROM generations ORDER BY source_key, generation`,
        events: Effect.flatMap(
          sql<StoredEventRow & { source_key: string; generation: number; event_uid: unknown; session_uid: string }>`
            SELECT e.source_key, e.generation, e.event_uid, e.session_uid, ${STORED_COLUMNS} FROM ${EV} e
            ORDER BY e.source_key, e.generation, e.event_uid`,
          (rows) =>
            Effect.map(reader.decode(rows), (events) =>
              rows.map((r, i) => ({
                source_key: r.source_key,
                generation: r.generation,
                event_uid: uidText(r.event_uid),
                session_uid: r.session_uid,
                sequence: r.sequence,
                kind: r.kind,
                occurred_at: r.occurred_at,
                event_json: JSON.stringify(events[i])
              })))
        ),
        sessions: sql`SELECT * FROM sessions ORDER BY session_uid, generation`
      }))
    }
    return guardReads(file, shape)
  })

/** Open a SQLite connection for the scope; what better-sqlite3 throws (a defect) becomes `StoreUnavailable`. */
const connect = (file: string, filename: string, readonly: boolean) =>
  openConnection(filename, readonly).pipe(Effect.catchAllDefect((d) => failIndex(file, d)))

/** The migrations applied to the index file at `abs` (`[id, name]`), read-only; none when it cannot be read (no file, no table). */
const appliedMigrations = (abs: string): Effect.Effect<ReadonlyArray<readonly [number, string]>> =>
  Effect.scoped(
    Effect.flatMap(openConnection(abs, true), (conn) =>
      conn.client<{ readonly id: number; readonly name: string }>`SELECT migration_id AS id, name FROM si_migrations ORDER BY migration_id`
        .pipe(Effect.map((rows) => rows.map((r) => [Number(r.id), r.name] as const))))
  ).pipe(Effect.catchAllCause(() => Effect.succeed([])))

/**
 * `session-ingest index migrate` on the SQLite index file `file`: open it
 * for writing as {@link layer} does, which creates it (and its folders) when
 * it is missing or empty and applies the migrations it lacks. Answers
 * whether it was created, the migrations this run applied (`[id, name]`:
 * none when another process's run at the same time applied them while this
 * one waited) and the schema version reached (the last migration's id).
 * `StoreUnavailable` as {@link layer}.
 */
export const migrateFile = (file: string): Effect.Effect<
  { readonly created: boolean; readonly applied: ReadonlyArray<readonly [number, string]>; readonly version: number },
  StoreUnavailable
> =>
  Effect.gen(function*() {
    const abs = path.resolve(file)
    // Refused before anything opens it, as import refuses it (tester30c F2: a fifo blocked the open for ever, and
    // Ctrl-C could not end it; F3: a dangling link was written through).
    yield* checkOwnedSqlite(abs, INDEX_APPLICATION_ID, "index", "--index FILE")
    const st = fs.statSync(abs, { throwIfNoEntry: false })
    const created = st === undefined || (st.isFile() && st.size === 0)
    // What this run applied, as its migrator says: not the file's migrations before and after it, which another
    // `index migrate` (or import) running at once may have applied while this one waited (tester30c F6).
    let applied: ReadonlyArray<readonly [number, string]> = []
    yield* Effect.scoped(Layer.build(layer(abs, { onMigrated: (done) => (applied = done) })))
    const after = yield* appliedMigrations(abs)
    // created by another run at once (this one found it made, or applied nothing to it): not said to be made here
    return { created: created && applied.length > 0, applied, version: Math.max(0, ...after.map(([id]) => id)) }
  })

/**
 * Layer: the index in the SQLite file `file` (created with its folder when
 * missing), for an import. Fails with `StoreUnavailable` when the file cannot
 * be opened or written (a full disk, a read-only folder: see
 * `../store-failure.ts`) or is not a session-ingest index. Writes in WAL
 * mode; when the layer closes, the file is switched back to a rollback
 * journal (best effort: not while another connection uses it), so that a
 * finished index can be read where nothing can be written beside it (a
 * read-only mount), which SQLite cannot do for a WAL file without its `-shm`.
 * `options.lock`: import runs take the index's import lock (`<file>.lock`,
 * `./import-lock.ts`, `IndexShape.importRun`) at their first write, waiting
 * for another process's run; absent: no lock (runs of this layer only).
 */
export const layer = (
  file: string,
  options: {
    readonly lock?: ImportLockOptions | undefined
    /** Told the migrations this opening applied (`[id, name]`; none when the file was current or another process applied them). */
    readonly onMigrated?: ((applied: ReadonlyArray<readonly [number, string]>) => void) | undefined
  } = {}
): Layer.Layer<Index, StoreUnavailable> =>
  Layer.scoped(
    Index,
    Effect.gen(function*() {
      const check = checkOwnedSqlite(path.resolve(file), INDEX_APPLICATION_ID, "index", "--index FILE")
      let ownership = file === ":memory:" ? "new" as const : yield* check
      if (file !== ":memory:" && !fs.existsSync(file)) {
        // Made whole, stamped, then checked again (another process may have made it meanwhile).
        yield* tryIndex(file, () => {
          fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
          createOwnedSqlite(path.resolve(file), INDEX_APPLICATION_ID, PAGE_SIZE)
        })
        ownership = yield* check
      }
      const conn = yield* connect(file, file, false)
      const client = conn.client
      if (file !== ":memory:") {
        // Runs before the connection closes (finalizers run in reverse order).
        yield* Effect.addFinalizer(() =>
          client.unsafe("PRAGMA busy_timeout = 0").pipe(
            Effect.zipRight(client.unsafe("PRAGMA journal_mode = DELETE")),
            Effect.ignore,
            Effect.catchAllDefect(() => Effect.void)
          )
        )
      }
      const lock = options.lock !== undefined && file !== ":memory:" ? importLock(path.resolve(file), options.lock) : null
      return yield* make(file, ownership, "write", conn.db, conn.exclusive, lock, conn.beforeStatements, options.onMigrated).pipe(
        Effect.provideService(SqlClient.SqlClient, client)
      )
    })
  )

/** Whether `file`'s header says WAL mode (its read and write versions are 2). */
const isWalFile = (file: string): boolean => {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY)
    try {
      const h = Buffer.alloc(20)
      return fs.readSync(fd, h, 0, 20, 0) === 20 && (h[18] === 2 || h[19] === 2)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

/**
 * A private copy of a WAL index (and its `-wal`) in a temporary folder,
 * removed with the scope: how a WAL index is read where SQLite cannot create
 * its `-shm` (a read-only mount or folder).
 */
const privateCopy = (file: string) =>
  Effect.gen(function*() {
    /** A failure to make the copy: it names the temporary folder, where nothing of the index's own was written. */
    const copyFailed = (at: string) => (e: unknown) =>
      new StoreUnavailable({
        ...storeFailureFields({ ...indexRole(file), file: at, label: "A temporary copy of the read-only index" }, e),
        remediation: `The WAL index ${file} lies in a read-only folder, so it is read from a copy in ${os.tmpdir()}: make room there or set TMPDIR to a folder you can write, or run \`session-ingest import --index ${file}\` once where it can be written (a finished import leaves it readable in place).`
      })
    const dir = yield* Effect.acquireRelease(
      Effect.try({
        try: () => fs.mkdtempSync(path.join(os.tmpdir(), "session-ingest-index-")),
        catch: copyFailed(os.tmpdir())
      }),
      (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
    )
    const copy = path.join(dir, "index.db")
    yield* Effect.try({
      try: () => {
        fs.copyFileSync(file, copy)
        if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`)
      },
      catch: copyFailed(copy)
    })
    return copy
  })

/**
 * Layer: the index in `file`, read-only, for the query commands (`sessions`,
 * `show`, `export`): nothing is created, migrated or written, so it works on
 * a read-only mount or a file and folder without write permission. A file
 * that does not exist or is empty, or is not a session-ingest index, fails
 * with `StoreUnavailable`, as does a read SQLite refuses (damaged file, I/O
 * error). A WAL-mode index (one an unfinished or older import left) in a
 * folder where SQLite cannot create its `-shm` is read from a private copy.
 * Writes through this layer fail with `StoreUnavailable`.
 */
export const layerReadonly = (file: string, options: ReadonlyOptions = {}): Layer.Layer<Index, StoreUnavailable> =>
  Layer.scoped(
    Index,
    Effect.flatMap(openReadonly(file), ({ abs, client, ownership }) =>
      Effect.zipRight(
        options.onNewerSchema === undefined ? Effect.void : newerSchemaNoted(client, abs, options.onNewerSchema),
        make(abs, ownership, "read")
      ).pipe(Effect.provideService(SqlClient.SqlClient, client)))
  )

/** Options of {@link layerReadonly}. */
export interface ReadonlyOptions {
  /**
   * Called once when the index was migrated by a newer session-ingest
   * (`schema-newer`: `have` above this build's `want`), which this layer
   * still reads (docs/index.md: read commands read it): the CLI says so on stderr,
   * as what it shows may leave out what the newer build added.
   */
  readonly onNewerSchema?: ((schema: { readonly index: string; readonly have: number; readonly want: number }) => Effect.Effect<void>) | undefined
}

/** {@link ReadonlyOptions.onNewerSchema} called when `file`'s schema is newer than this build's (see {@link refuseNewerSchema}). */
const newerSchemaNoted = (sql: SqlClient.SqlClient, file: string, onNewer: NonNullable<ReadonlyOptions["onNewerSchema"]>): Effect.Effect<void, StoreUnavailable> =>
  refuseNewerSchema(sql, file).pipe(
    Effect.asVoid,
    Effect.catchIf(
      (e) => (e.details as { reason?: string } | undefined)?.reason === "schema-newer",
      (e) => {
        const d = e.details as { readonly have: number; readonly want: number }
        return onNewer({ index: file, have: d.have, want: d.want })
      }
    )
  )

/** Whether this process may write to `file` (a file or a folder). */
const canWrite = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The failure of a read of `abs`, an index file of ours with no table: an
 * import stopped while it created it (docs/index.md, "Never into someone else's
 * file": read commands say so; the next import completes the index).
 */
const halfCreated = (abs: string) =>
  new StoreUnavailable({
    message: `There is no index at ${abs} yet: an import was stopped while it created it (the file is there, its tables are not).`,
    remediation: `Run \`session-ingest import --index ${abs}\`: it completes the index.`,
    details: { index: abs, reason: "half-created" }
  })

/** A read-only connection to an existing index file for the scope (a private copy of a WAL index in a read-only folder). */
const openReadonly = (file: string, option = "--index") =>
  Effect.gen(function*() {
    const abs = path.resolve(file)
    const ownership = yield* checkOwnedSqlite(abs, INDEX_APPLICATION_ID, "index", `${option} FILE`, true)
    const journal = journaledHeader(abs)
    if (ownership === "new") {
      // Not empty, yet new: our stamp over a journal of an empty file (`checkOwnedSqlite`), a creation killed part-way.
      const killed = journal !== null && (fs.statSync(abs, { throwIfNoEntry: false })?.size ?? 0) > 0
      return yield* new StoreUnavailable({
        message: !killed
          ? `There is no index at ${abs}.`
          : `There is no index at ${abs} yet: an import was killed while it created it (its journal ${abs}-journal is left).`,
        remediation: !killed
          ? `Run \`session-ingest import\` first (or pass ${option} FILE).`
          : `Run \`session-ingest import --index ${abs}\`: it rolls the killed run's journal back and creates the index.`
      })
    }
    // The objects besides the migrations' own table, and whether a migration was ever recorded: the migrator makes
    // `si_migrations` (committed on its own) before the first migration's transaction, so a creation stopped in
    // that transaction (killed, or a write refused: the file-size limit, a full disk; tester31a F2) leaves that
    // table alone and empty.
    const direct = Effect.flatMap(connect(abs, abs, true), ({ client }) =>
      Effect.flatMap(
        guardStore(readerRole(abs))(client<{ readonly n: number; readonly m: number }>`SELECT
          (SELECT count(*) FROM sqlite_master WHERE name <> 'si_migrations') AS n,
          (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'si_migrations') AS m`),
        (rows) => {
          const objects = rows[0]?.n ?? 0
          if (objects > 0 || (rows[0]?.m ?? 0) === 0) return Effect.succeed({ client, objects })
          return Effect.map(
            guardStore(readerRole(abs))(client<{ readonly r: number }>`SELECT count(*) AS r FROM si_migrations`),
            (recorded) => ({ client, objects: (recorded[0]?.r ?? 0) > 0 ? 1 : 0 })
          )
        }
      ))
    const opened = yield* Effect.either(direct)
    if (opened._tag === "Right") {
      // Ours and readable, with no table at all (or only the migrations' table, empty): a creation stopped after
      // the file was made whole and stamped (`createOwnedSqlite`), before its first migration committed (a kill -9
      // then, tester20 F5; a write refused, tester31a F2). No journal is left when the migration had not begun or
      // was rolled back; either way the next import completes it.
      if (opened.right.objects === 0) return yield* halfCreated(abs)
      return { abs, ownership, client: opened.right.client }
    }
    if (journal !== null && (opened.left.details as { reason?: string } | undefined)?.reason === "read-only") {
      // A hot journal (SQLITE_READONLY_ROLLBACK): a read-only opening cannot roll it back; an import can, where it can write.
      const writable = canWrite(path.dirname(abs)) && canWrite(abs)
      return yield* new StoreUnavailable({
        message: `The index ${abs} cannot be read until the journal ${abs}-journal, left by an import killed while it wrote, is rolled back${
          writable ? "" : " (which needs write access to the index and its folder)"
        }.`,
        remediation: writable
          ? `Run \`session-ingest import --index ${abs}\`: it rolls the killed run's journal back and completes the index.`
          : `Run \`session-ingest import --index ${abs}\` once as a user who can write to ${path.dirname(abs)}: it rolls the killed run's journal back.`,
        details: { index: abs, reason: "hot-journal" }
      })
    }
    if (!isWalFile(abs) || fs.existsSync(`${abs}-shm`)) return yield* opened.left
    const details = opened.left.details as { reason?: string } | undefined
    if (details?.reason !== "read-only") return yield* opened.left
    const { client } = yield* connect(abs, yield* privateCopy(abs), true)
    return { abs, ownership, client }
  })

/**
 * A read-only SQL connection to the existing index file `file` for the
 * scope, with `guard`, which turns its SQL failures into `StoreUnavailable`
 * naming the file: how `push` reads a local index's rows (`./push.ts`).
 * Fails as {@link layerReadonly} does.
 */
export const readonlySql = (file: string, option = "--index") =>
  Effect.map(openReadonly(file, option), ({ abs, client }) => ({ file: abs, sql: client as SqlClient.SqlClient, guard: guardStore(readerRole(abs)) }))

/** Layer: an in-memory index (tests, dry runs). */
export const layerMemory: Layer.Layer<Index, StoreUnavailable> = layer(":memory:")

/**
 * Migrate the index file `file` through migration `last` only, as the build
 * whose last migration that was would: how tests make an index of an earlier
 * build (with the layout it had) to check that it still reads, and migrates,
 * as the current one. Fails with `StoreUnavailable`.
 */
export const migrateThrough = (file: string, last: number): Effect.Effect<void, StoreUnavailable> =>
  Effect.scoped(Effect.gen(function*() {
    const { client } = yield* connect(file, file, false)
    yield* Migrator.make({})({ loader: Effect.map(migrations, (ms) => ms.filter(([id]) => id <= last)), table: "si_migrations" }).pipe(
      Effect.provideService(SqlClient.SqlClient, client),
      Effect.catchAllCause((cause) => failIndex(file, causeError(cause)))
    )
  }))
