/**
 * The SQLite layer of {@link Index}: one embedded database file through
 * `@effect/sql-sqlite-node`, schema migrations through `@effect/sql`'s
 * migrator, and every batch committed in one transaction with its checkpoint,
 * so a process killed at any point leaves the index consistent.
 *
 * @module
 */
import { randomInt } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { StoreUnavailable, UnsupportedOperation } from "../../domain/errors.js"
import { compileQuery } from "../../domain/search/query.js"
import { searchableText } from "../../domain/search/text.js"
import { upgradeEvent } from "../../domain/contract-upgrade.js"
import { checkpointColumns, type CheckpointRow, searchHitOf, type SessionDbRow, toCheckpoint, toSessionRow } from "./rows.js"
import { eventUid, sessionUid, sourceKey } from "../../domain/index/ids.js"
import { checkOwnedSqlite, guardStore, INDEX_APPLICATION_ID, type Ownership } from "../owned-sqlite.js"
import { type StoreRole, storeFailureFields } from "../store-failure.js"
import type { ProviderId, SessionEvent } from "../../domain/model.js"
import { groupRows, type UsageGroup, type UsageRow, usageRowOf, usageRows } from "../../domain/usage.js"
import {
  DEFAULT_SEARCH_LIMIT,
  Index,
  type IndexShape,
  type SearchHit,
  type SourceInfo,
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
  run_seq: r.runSeq ?? null
})

/** The stored events that may carry usage or a stated cost (any contract: 1.0.0 kept Claude Code's in its provenance). */
const MAY_CARRY_USAGE = `(kind = 'result' OR instr(event_json, '"usage":{') > 0)`

/**
 * Rebuild the usage rows of one session generation from its stored events
 * (upgraded to the current contract): what migration 0005 does for an index
 * imported before it, and what a rollback does for the sessions whose
 * events it removed. Reads only that session's events that may carry usage.
 */
const rebuildUsage = (sql: SqlClient.SqlClient, sourceKey: string, generation: number, uid: string) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM usage WHERE source_key = ${sourceKey} AND generation = ${generation} AND session_uid = ${uid}`
    const stored = yield* sql<{ event_json: string; provider: string }>`
      SELECT event_json, provider FROM events
      WHERE session_uid = ${uid} AND generation = ${generation} AND source_key = ${sourceKey} AND ${sql.unsafe(MAY_CARRY_USAGE)}
      ORDER BY sequence, event_uid`
    if (stored.length === 0) return
    const events = stored.map((r) => upgradeEvent(JSON.parse(r.event_json) as SessionEvent))
    const rows = usageRows(events).map((r) => usageDbRow(r, sourceKey, generation, uid, r.provider))
    for (let i = 0; i < rows.length; i += USAGE_CHUNK) yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}`
  })

/** Usage rows per INSERT statement (16 columns each: well under SQLite's bound-parameter limit). */
const USAGE_CHUNK = 500

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
        sql.unsafe(`CREATE VIRTUAL TABLE search USING fts5(text, input, tokenize = '${SEARCH_TOKENIZER}', content = '', contentless_delete = 1)`),
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
      for (const c of current) yield* indexGeneration(sql, c.source_key, c.generation)
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
      for (const s of sessions) yield* rebuildUsage(sql, s.source_key, s.generation, s.session_uid)
    }))
})

/**
 * The FTS5 tokenizer of the search index: `unicode61` with its default
 * separators, so `_`, `.`, `/`, `-` and `:` split words (a word in the
 * middle of `parse_config_file` or `app.config.json` is found), and a quoted
 * query word with punctuation is a phrase of its parts (a path, a UUID);
 * accents are folded. Chosen and measured against `trigram`: README, "Search".
 */
export const SEARCH_TOKENIZER = "unicode61 remove_diacritics 2"

/**
 * Matches a search ranks at most: the newest (last imported) this many that
 * pass the filters. A query with fewer matches is ranked whole (exact BM25);
 * one matching more (a word in most events) is ranked among its newest
 * matches, so its cost stays bounded however large the index grows.
 */
export const RANK_WINDOW = 5000

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
    text: t.text,
    input: t.input
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

/**
 * (Re)make the search documents of one generation of a source from what the
 * index stores (its events, upgraded to the current contract, and its
 * sessions' titles): the migration, and a rollback that makes a superseded
 * generation current again. Inside the caller's transaction.
 */
const indexGeneration = (sql: SqlClient.SqlClient, key: string, generation: number) =>
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
  text: title,
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

const unavailable = (file: string, cause: unknown) => new StoreUnavailable(storeFailureFields(indexRole(file), cause))

const now = () => new Date().toISOString()

/** The checkpoint columns an attempt restores when it is rolled back (`sources` row as it was when the attempt began). */
const BASE_COLUMNS = [
  "generation",
  "cursor",
  "fingerprint",
  "status",
  "event_count",
  "source_id",
  "prefix",
  "parts_json",
  "diagnostics_json",
  "error_code",
  "error_message"
] as const
type BaseRow = { readonly [K in (typeof BASE_COLUMNS)[number]]: string | number | null }

/** `sources.attempt_json`: the attempt in progress (its id in `events.attempt`) and the row it began from (null: none). */
interface AttemptState {
  readonly attempt: number
  readonly base: BaseRow | null
}

interface InsertedRow {
  readonly event_uid: string
  readonly session_uid: string
  readonly occurred_at: string | null
}

/** Per-session count and time range of the rows a batch inserted, with the identity columns of the session. */
const aggregate = (
  added: ReadonlyArray<InsertedRow>,
  rows: ReadonlyArray<{ session_uid: string; provider: string; session_id: string; source_id: string }>
) => {
  const bySession = new Map<string, { event_count: number; first_at: string | null; last_at: string | null }>()
  for (const r of added) {
    const a = bySession.get(r.session_uid) ?? { event_count: 0, first_at: null, last_at: null }
    a.event_count++
    if (r.occurred_at !== null) {
      if (a.first_at === null || r.occurred_at < a.first_at) a.first_at = r.occurred_at
      if (a.last_at === null || r.occurred_at > a.last_at) a.last_at = r.occurred_at
    }
    bySession.set(r.session_uid, a)
  }
  return [...bySession].map(([session_uid, a]) => {
    const row = rows.find((r) => r.session_uid === session_uid)!
    return { session_uid, provider: row.provider, session_id: row.session_id, source_id: row.source_id, ...a }
  })
}

/**
 * The index over the connection in context. `mode`: `write` sets the file up
 * (id, WAL, migrations) for an import; `read` only reads (a query command:
 * the file may be read-only), and its writes fail with `StoreUnavailable`.
 */
const make = (
  file: string,
  ownership: Ownership,
  mode: "write" | "read"
): Effect.Effect<IndexShape, StoreUnavailable, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fail = guardStore(indexRole(file))
    if (mode === "write") {
      // Mark the file as ours before WAL mode, so the id lands in the main file's header.
      if (ownership === "new") {
        yield* fail(sql`PRAGMA page_size = 16384`)
        yield* fail(sql`PRAGMA application_id = ${sql.unsafe(String(INDEX_APPLICATION_ID))}`)
      }
      yield* fail(sql`PRAGMA journal_mode = WAL`)
      yield* fail(sql`PRAGMA synchronous = NORMAL`)
      yield* Migrator.make({})({ loader: migrations, table: "si_migrations" }).pipe(
        Effect.catchAllCause((cause) => Effect.fail(unavailable(file, Cause.squash(cause))))
      )
    } else {
      // The first read opens the file (and, for a WAL index, its -shm): fail here, typed, if it cannot be read.
      yield* fail(sql`SELECT count(*) AS n FROM sqlite_master`)
    }

    // An index read (not migrated) from before migration 0003 has no overview column: its sources read as legacy.
    const hasOverview = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('sources') WHERE name = 'overview_json'`))[0].n > 0
    const overviewColumn = hasOverview ? "overview_json" : "NULL AS overview_json"
    // An index read (not migrated) from before migration 0004 has no search tables: search says to import once.
    const hasSearch = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'search_docs'`))[0].n > 0
    const joinedOverviewColumn = hasOverview ? "s.overview_json" : "NULL AS overview_json"

    const upsertSource = (s: SourceInfo, generation: number, status: string) =>
      sql`INSERT INTO sources (source_key, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
          VALUES (${s.sourceKey}, ${s.provider}, ${JSON.stringify(s.locator)}, ${JSON.stringify(s.summary)}, ${JSON.stringify(s.overview)},
                  ${generation}, ${status}, ${now()})
          ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
            overview_json = excluded.overview_json, updated_at = excluded.updated_at`

    /** A session's events of its sources' current generations, in source order, a page (`pageSize` events) per query. */
    const eventsStream = (uid: string, pageSize = 1000): Stream.Stream<SessionEvent, StoreUnavailable> =>
      Stream.paginateChunkEffect(
        null as { readonly sequence: number; readonly eventUid: string } | null,
        (after) =>
          fail(sql<{ event_json: string; sequence: number; event_uid: string }>`
            SELECT e.event_json, e.sequence, e.event_uid FROM events e
              JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
            WHERE e.session_uid = ${uid}
              ${after === null ? sql`` : sql`AND (e.sequence > ${after.sequence} OR (e.sequence = ${after.sequence} AND e.event_uid > ${after.eventUid}))`}
            ORDER BY e.sequence, e.event_uid LIMIT ${pageSize}`).pipe(
              Effect.map((rows) => {
                const last = rows[rows.length - 1]
                return [
                  Chunk.unsafeFromArray(rows.map((r) => upgradeEvent(JSON.parse(r.event_json) as SessionEvent))),
                  rows.length < pageSize ? Option.none() : Option.some({ sequence: last.sequence, eventUid: last.event_uid })
                ] as const
              })
            )
      )

    // An index read (not migrated) from before migration 0005 has no usage table: its usage is derived from its events.
    const hasUsage = (yield* fail(sql<{ readonly n: number }>`
      SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'usage'`))[0].n > 0

    /**
     * Keep the usage rows of a batch's events (inside its transaction): per
     * session and response the row of the latest event by sequence wins
     * (`excluded.sequence >= usage.sequence`: a response split across
     * batches counts once, with its last usage), and each `result` row ends
     * the run of the session's earlier responses not yet ended.
     */
    const upsertUsage = (key: string, generation: number, events: ReadonlyArray<SessionEvent>, uidOf: (e: SessionEvent) => string) =>
      Effect.gen(function*() {
        const latest = new Map<string, UsageDbRow>()
        for (const e of events) {
          const r = usageRowOf(e)
          if (r === null) continue
          const row = usageDbRow(r, key, generation, uidOf(e), e.provider)
          const id = `${row.session_uid}\u0000${row.response_key}`
          const before = latest.get(id)
          if (before === undefined || before.sequence <= row.sequence) latest.set(id, row)
        }
        if (latest.size === 0) return
        const rows = [...latest.values()]
        for (let i = 0; i < rows.length; i += USAGE_CHUNK) {
          yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}
            ON CONFLICT (source_key, generation, session_uid, response_key) DO UPDATE SET
              kind = excluded.kind, provider = excluded.provider, event_uid = excluded.event_uid, sequence = excluded.sequence,
              occurred_at = excluded.occurred_at, model = excluded.model, input_tokens = excluded.input_tokens,
              output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
              cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd
            WHERE excluded.sequence >= usage.sequence`
        }
        for (const run of rows.filter((r) => r.kind === "run").sort((a, b) => a.sequence - b.sequence)) {
          yield* sql`UPDATE usage SET run_seq = ${run.sequence}
                     WHERE session_uid = ${run.session_uid} AND generation = ${generation} AND source_key = ${key}
                       AND kind = 'response' AND run_seq IS NULL AND sequence < ${run.sequence}`
        }
      })

    /** The SQL of a usage row's group key for `by` (`u`: the usage row, `ss`: its session). */
    const groupKeyOf = (by: UsageFilter["by"]) =>
      by === "session"
        ? "u.session_uid"
        : by === "day"
        ? "substr(u.occurred_at, 1, 10)"
        : by === "model"
        ? "u.model"
        : by === "provider"
        ? "u.provider"
        : "ss.workspace"

    const workspaceClause = (workspace: string) =>
      sql`AND (ss.workspace = ${workspace} OR ss.workspace LIKE ${workspace.replace(/[\\%_]/g, "\\$&") + "/%"} ESCAPE '\\')`

    const usageGroups = (filter: UsageFilter): Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable> =>
      fail(sql<{
        group_key: string | null
        kind: "response" | "run"
        model: string | null
        covered: number
        has_responses: number
        stated: number
        n: number
        input_tokens: number | null
        output_tokens: number | null
        cache_read_tokens: number | null
        cache_write_tokens: number | null
        cost_usd: number | null
      }>`
        SELECT ${sql.unsafe(groupKeyOf(filter.by))} AS group_key, u.kind, u.model,
          CASE WHEN u.kind = 'response' AND u.run_seq IS NOT NULL THEN coalesce((
            SELECT r.cost_usd IS NOT NULL FROM usage r
            WHERE r.session_uid = u.session_uid AND r.generation = u.generation AND r.kind = 'run' AND r.sequence = u.run_seq
              AND r.source_key = u.source_key LIMIT 1), 0) ELSE 0 END AS covered,
          CASE WHEN u.kind = 'run' THEN EXISTS (
            SELECT 1 FROM usage x
            WHERE x.session_uid = u.session_uid AND x.generation = u.generation AND x.kind = 'response' AND x.run_seq = u.sequence
              AND x.source_key = u.source_key) ELSE 0 END AS has_responses,
          u.cost_usd IS NOT NULL AS stated,
          count(*) AS n, sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
          sum(u.cache_read_tokens) AS cache_read_tokens, sum(u.cache_write_tokens) AS cache_write_tokens, sum(u.cost_usd) AS cost_usd
        FROM usage u
          JOIN sources s ON s.source_key = u.source_key AND s.generation = u.generation
          JOIN sessions ss ON ss.session_uid = u.session_uid AND ss.generation = u.generation
        WHERE s.status != 'rejected'
          ${filter.sessionUids !== undefined ? sql`AND u.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
          ${filter.provider !== undefined ? sql`AND u.provider = ${filter.provider}` : sql``}
          ${filter.since !== undefined ? sql`AND u.occurred_at >= ${filter.since}` : sql``}
          ${filter.until !== undefined ? sql`AND u.occurred_at <= ${filter.until}` : sql``}
          ${filter.workspace !== undefined ? workspaceClause(filter.workspace) : sql``}
        GROUP BY group_key, u.kind, u.model, covered, has_responses, stated`).pipe(
        Effect.map((rows) =>
          rows.map((r): UsageGroup => ({
            group: r.group_key,
            kind: r.kind,
            model: r.model,
            covered: r.covered === 1,
            hasResponses: r.has_responses === 1,
            stated: r.stated === 1,
            rows: r.n,
            inputTokens: r.input_tokens,
            outputTokens: r.output_tokens,
            cacheReadTokens: r.cache_read_tokens,
            cacheWriteTokens: r.cache_write_tokens,
            costUsd: r.cost_usd
          }))
        )
      )

    /** {@link usageGroups} for an index without the usage table: the rows derived from the stored events (a scan). */
    const usageGroupsFromEvents = (filter: UsageFilter): Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable> =>
      Effect.gen(function*() {
        const sessions = yield* fail(sql<{ session_uid: string; generation: number; source_key: string; workspace: string | null }>`
          SELECT ss.session_uid, ss.generation, ss.source_key, ss.workspace
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE s.status != 'rejected'
            ${filter.sessionUids !== undefined ? sql`AND ss.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
            ${filter.provider !== undefined ? sql`AND ss.provider = ${filter.provider}` : sql``}
            ${filter.workspace !== undefined ? workspaceClause(filter.workspace) : sql``}`)
        const out: Array<UsageRow & { readonly group: string | null }> = []
        for (const ss of sessions) {
          const stored = yield* fail(sql<{ event_json: string }>`
            SELECT event_json FROM events
            WHERE session_uid = ${ss.session_uid} AND generation = ${ss.generation} AND source_key = ${ss.source_key}
              AND ${sql.unsafe(MAY_CARRY_USAGE)}
            ORDER BY sequence, event_uid`)
          for (const r of usageRows(stored.map((e) => upgradeEvent(JSON.parse(e.event_json) as SessionEvent)))) {
            if (filter.since !== undefined && (r.occurredAt === null || r.occurredAt < filter.since)) continue
            if (filter.until !== undefined && (r.occurredAt === null || r.occurredAt > filter.until)) continue
            const group = filter.by === "session"
              ? ss.session_uid
              : filter.by === "day"
              ? r.occurredAt?.slice(0, 10) ?? null
              : filter.by === "model"
              ? r.model
              : filter.by === "provider"
              ? r.provider
              : ss.workspace
            out.push({ ...r, group })
          }
        }
        return groupRows(out, (r) => (r as UsageRow & { readonly group: string | null }).group)
      })

    const shape: IndexShape = {
      // One machine's file: keys without a machine, as every earlier build made them (see `sourceKey`).
      sourceKey: (provider, locator) => sourceKey(provider, locator),

      checkpoint: (key) =>
        fail(sql<CheckpointRow>`SELECT ${sql.unsafe(checkpointColumns(overviewColumn))} FROM sources WHERE source_key = ${key}`).pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCheckpoint))
        ),

      checkpoints: fail(sql<CheckpointRow>`SELECT ${sql.unsafe(checkpointColumns(overviewColumn))} FROM sources`).pipe(
        Effect.map((rows) => new Map(rows.map((r) => [r.source_key, toCheckpoint(r)])))
      ),

      beginGeneration: (source, generation, reason) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          yield* upsertSource(source, generation, "importing")
          yield* sql`UPDATE generations SET superseded_at = ${now()}, superseded_reason = ${reason}
                     WHERE source_key = ${source.sourceKey} AND generation < ${generation} AND superseded_at IS NULL`
          yield* sql`INSERT OR IGNORE INTO generations (source_key, generation, started_at) VALUES (${source.sourceKey}, ${generation}, ${now()})`
          // A superseded generation's events leave the search results.
          if (hasSearch) yield* sql`DELETE FROM search_docs WHERE source_key = ${source.sourceKey} AND generation < ${generation}`
          yield* sql`UPDATE sources SET generation = ${generation}, cursor = NULL, fingerprint = NULL, status = 'importing',
                       error_code = NULL, error_message = NULL, event_count = 0, updated_at = ${now()}
                     WHERE source_key = ${source.sourceKey}`
        }))),

      beginAttempt: (source) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<BaseRow & { attempt_json: string | null }>`
            SELECT ${sql.unsafe(BASE_COLUMNS.join(", "))}, attempt_json FROM sources WHERE source_key = ${source.sourceKey}`
          if (row?.attempt_json != null) return (JSON.parse(row.attempt_json) as AttemptState).attempt
          const base: BaseRow | null = row === undefined
            ? null
            : Object.fromEntries(BASE_COLUMNS.map((c) => [c, row[c]])) as BaseRow
          const state: AttemptState = { attempt: randomInt(1, 2 ** 47), base }
          if (row === undefined) yield* upsertSource(source, 0, "importing")
          yield* sql`UPDATE sources SET attempt_json = ${JSON.stringify(state)} WHERE source_key = ${source.sourceKey}`
          return state.attempt
        }))),

      commitBatch: (batch, onPoint) =>
        Effect.gen(function*() {
          const { events, generation, source } = batch
          if (events.length === 0) return { events: 0, sessions: 0 }
          const key = source.sourceKey
          const sessionUids = new Map<string, string>()
          const sessionUidOf = (e: SessionEvent) => {
            const k = `${e.sourceId}\u0000${e.sessionId}`
            let uid = sessionUids.get(k)
            if (uid === undefined) sessionUids.set(k, uid = sessionUid(e.provider, e.sourceId, e.sessionId))
            return uid
          }
          const rows = events.map((e: SessionEvent) => ({
            source_key: key,
            generation,
            event_uid: eventUid(e.provider, e.sourceId, e.sessionId, e.eventId),
            session_uid: sessionUidOf(e),
            provider: e.provider,
            source_id: e.sourceId,
            session_id: e.sessionId,
            sequence: e.sequence,
            kind: e.kind,
            occurred_at: e.occurredAt,
            event_json: JSON.stringify(e),
            attempt: batch.attempt ?? null
          }))
          const half = Math.ceil(rows.length / 2)
          // The source's title is its own session's (a subagent's or sidechain's session in the same file is not
          // titled by its parent's prompt); the workspace is every session's of the source.
          const { workspace } = source.overview
          const titleOf = (sessionId: string) =>
            source.overview.sessionId === null || source.overview.sessionId === sessionId ? source.overview.title : null
          return yield* sql.withTransaction(Effect.gen(function*() {
            // RETURNING yields only the rows actually inserted (existing ids are ignored),
            // so the session aggregates below grow by exactly what this batch added.
            const added = [
              ...(yield* sql<InsertedRow>`INSERT OR IGNORE INTO events ${sql.insert(rows.slice(0, half))}
                                          RETURNING event_uid, session_uid, occurred_at`)
            ]
            yield* onPoint("mid-batch")
            if (half < rows.length) {
              added.push(
                ...(yield* sql<InsertedRow>`INSERT OR IGNORE INTO events ${sql.insert(rows.slice(half))}
                                            RETURNING event_uid, session_uid, occurred_at`)
              )
            }
            let sessionsAdded = 0
            const docs: Array<DocRow> = []
            if (hasSearch) {
              // The search documents of the events this batch added, and of the titles it changed: same transaction.
              const inserted = new Set(added.map((a) => a.event_uid))
              for (let i = 0; i < rows.length; i++) {
                if (inserted.has(rows[i].event_uid)) docs.push(eventDoc(key, generation, rows[i].event_uid, rows[i].session_uid, events[i]))
              }
            }
            for (const agg of aggregate(added, rows)) {
              const title = titleOf(agg.session_id)
              if (hasSearch) {
                const [before] = yield* sql<{ title: string | null }>`
                  SELECT title FROM sessions WHERE session_uid = ${agg.session_uid} AND generation = ${generation}`
                if (before === undefined || before.title !== title) {
                  yield* sql`DELETE FROM search_docs WHERE source_key = ${key} AND generation = ${generation} AND event_uid = ''
                               AND session_uid = ${agg.session_uid}`
                  if (title !== null) docs.push(titleDoc(key, generation, agg.session_uid, agg.provider, title))
                }
              }
              // A row this batch created holds exactly this batch's count; an updated one holds more.
              const [after] = yield* sql<{ event_count: number }>`INSERT INTO sessions ${sql.insert({ ...agg, generation, source_key: key, title, workspace })}
                ON CONFLICT (session_uid, generation) DO UPDATE SET
                  event_count = sessions.event_count + excluded.event_count,
                  first_at = CASE WHEN sessions.first_at IS NULL THEN excluded.first_at
                                  WHEN excluded.first_at IS NULL THEN sessions.first_at
                                  ELSE min(sessions.first_at, excluded.first_at) END,
                  last_at = CASE WHEN sessions.last_at IS NULL THEN excluded.last_at
                                 WHEN excluded.last_at IS NULL THEN sessions.last_at
                                 ELSE max(sessions.last_at, excluded.last_at) END,
                  title = excluded.title, workspace = excluded.workspace
                RETURNING event_count`
              if (after !== undefined && after.event_count === agg.event_count) sessionsAdded++
            }
            yield* upsertUsage(key, generation, events, sessionUidOf)
            const cursor = batch.resumeCursor === undefined ? events[events.length - 1].cursor : batch.resumeCursor
            yield* insertDocs(sql, docs)
            yield* sql`UPDATE sources SET cursor = coalesce(${cursor}, cursor), source_id = coalesce(source_id, ${events[0].sourceId}),
                         prefix = ${batch.prefix === undefined ? sql`prefix` : sql`${batch.prefix}`},
                         event_count = event_count + ${added.length}, updated_at = ${now()}
                       WHERE source_key = ${key}`
            yield* onPoint("before-commit")
            return { events: added.length, sessions: sessionsAdded }
          })).pipe(
            fail,
            Effect.tap(() => onPoint("after-commit"))
          )
        }),

      completeSource: (source, fingerprint, read) =>
        fail(sql`UPDATE sources SET fingerprint = ${fingerprint}, status = 'complete', error_code = NULL, error_message = NULL,
                   parts_json = ${read?.parts === undefined || Object.keys(read.parts).length === 0 ? null : JSON.stringify(read.parts)},
                   diagnostics_json = ${read?.diagnostics === undefined || read.diagnostics.length === 0 ? null : JSON.stringify(read.diagnostics)},
                   attempt_json = NULL, summary_json = ${JSON.stringify(source.summary)},
                   overview_json = ${JSON.stringify(source.overview)}, updated_at = ${now()}
                 WHERE source_key = ${source.sourceKey}`).pipe(Effect.asVoid),

      rejectSource: (source, code, message) =>
        fail(sql.withTransaction(Effect.gen(function*() {
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
          if (base === undefined || base === null) {
            // Never imported before this attempt: nothing of it stays.
            yield* sql`DELETE FROM events WHERE source_key = ${key}`
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
          yield* sql`DELETE FROM events WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM generations WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`UPDATE generations SET superseded_at = NULL, superseded_reason = NULL WHERE source_key = ${key} AND generation = ${gen}`
          const removed = yield* sql<{ session_uid: string }>`
            DELETE FROM events WHERE source_key = ${key} AND generation = ${gen} AND attempt = ${state!.attempt} RETURNING session_uid`
          for (const uid of new Set(removed.map((r) => r.session_uid))) {
            yield* sql`UPDATE sessions SET
                         event_count = (SELECT count(*) FROM events e WHERE e.session_uid = sessions.session_uid AND e.generation = sessions.generation),
                         first_at = (SELECT min(occurred_at) FROM events e WHERE e.session_uid = sessions.session_uid AND e.generation = sessions.generation),
                         last_at = (SELECT max(occurred_at) FROM events e WHERE e.session_uid = sessions.session_uid AND e.generation = sessions.generation)
                       WHERE session_uid = ${uid} AND generation = ${gen}`
            yield* sql`DELETE FROM sessions WHERE session_uid = ${uid} AND generation = ${gen} AND event_count = 0`
            // The usage rows as the events that stay make them (a response's last usage may have been one the attempt added).
            yield* rebuildUsage(sql, key, gen, uid)
          }
          yield* sql`UPDATE sources SET ${sql.update({ ...base, error_code: code, error_message: message }, [])},
                       attempt_json = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
          // The generation the attempt had superseded is current again: its search documents come back.
          if (hasSearch && base.status !== "rejected" && base.status !== "superseded") {
            const [{ n }] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM search_docs WHERE source_key = ${key} AND generation = ${gen}`
            if (n === 0) yield* indexGeneration(sql, key, gen)
          }
        }))),

      supersedeSource: (key, reason) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ generation: number }>`SELECT generation FROM sources WHERE source_key = ${key}`
          if (row === undefined) return
          yield* sql`UPDATE generations SET superseded_at = ${now()}, superseded_reason = ${reason}
                     WHERE source_key = ${key} AND generation <= ${row.generation} AND superseded_at IS NULL`
          if (hasSearch) yield* sql`DELETE FROM search_docs WHERE source_key = ${key} AND generation <= ${row.generation}`
          yield* sql`UPDATE sources SET generation = ${row.generation + 1}, cursor = NULL, fingerprint = NULL, status = 'superseded',
                       event_count = 0, source_id = NULL, prefix = NULL, parts_json = NULL, diagnostics_json = NULL, attempt_json = NULL,
                       error_code = NULL, error_message = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
        }))),

      sessions: (filter) =>
        fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE s.status != 'rejected'
            ${filter.provider !== undefined ? sql`AND ss.provider = ${filter.provider}` : sql``}
            ${filter.since !== undefined ? sql`AND ss.last_at >= ${filter.since}` : sql``}
            ${filter.until !== undefined ? sql`AND ss.first_at <= ${filter.until}` : sql``}
            ${
          filter.workspace !== undefined
            ? sql`AND (ss.workspace = ${filter.workspace} OR ss.workspace LIKE ${filter.workspace.replace(/[\\%_]/g, "\\$&") + "/%"} ESCAPE '\\')`
            : sql``
        }
          ORDER BY ss.last_at IS NULL, ss.last_at DESC, ss.session_uid
          ${filter.limit !== undefined ? sql`LIMIT ${filter.limit}` : sql``}`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      findSessions: (id) =>
        fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE (ss.session_uid = ${id} OR ss.session_id = ${id}) AND s.status != 'rejected'
          ORDER BY ss.last_at DESC`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      findSessionsByPrefix: (prefix, max) =>
        prefix.length === 0
          ? Effect.succeed([])
          : fail(sql<SessionDbRow>`
          SELECT ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.locator_json, s.summary_json, ${sql.unsafe(joinedOverviewColumn)}, ss.generation,
                 ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE substr(ss.session_uid, 1, length(${prefix})) = ${prefix} OR substr(ss.session_id, 1, length(${prefix})) = ${prefix}
          ORDER BY ss.last_at IS NULL, ss.last_at DESC, ss.session_uid
          LIMIT ${max}`).pipe(Effect.map((rows) => rows.map(toSessionRow))),

      events: (uid) => Effect.map(Stream.runCollect(eventsStream(uid, 10_000)), Chunk.toArray),

      sessionBytes: (uid) =>
        fail(sql<{ bytes: number }>`
          SELECT total(length(e.event_json)) AS bytes FROM events e
            JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
          WHERE e.session_uid = ${uid}`).pipe(Effect.map((rows) => rows[0]?.bytes ?? 0)),

      eventsStream,

      search: (query, filter) =>
        Effect.gen(function*() {
          const compiled = yield* compileQuery(query)
          if (!hasSearch) {
            return yield* new UnsupportedOperation({
              message: `The index ${file} was made before search existed, and is read here read-only: it has no search index yet.`,
              remediation: `Run \`session-ingest import --index ${file}\` once where the index can be written: it adds search from the events it holds, without reading any source again.`,
              details: { reason: "index-without-search", migration: "0004_search" }
            })
          }
          const limit = Math.max(1, Math.min(filter.limit ?? DEFAULT_SEARCH_LIMIT, 10_000))
          const workspace = filter.workspace
          // Ranked among the newest RANK_WINDOW matches (all of them when fewer): a word in every event costs what a rare one does.
          const ranked = yield* fail(sql<{ doc: number; score: number }>`
            SELECT doc, score FROM (
            SELECT d.doc, search.rank AS score FROM search JOIN search_docs d ON d.doc = search.rowid
            WHERE search MATCH ${compiled.match}
              ${filter.provider !== undefined ? sql`AND d.provider = ${filter.provider}` : sql``}
              ${filter.kind !== undefined ? sql`AND d.kind = ${filter.kind}` : sql``}
              ${filter.role !== undefined ? sql`AND d.role = ${filter.role}` : sql``}
              ${filter.since !== undefined ? sql`AND d.occurred_at >= ${filter.since}` : sql``}
              ${filter.until !== undefined ? sql`AND d.occurred_at <= ${filter.until}` : sql``}
              ${
            filter.session !== undefined
              ? sql`AND d.session_uid IN (SELECT session_uid FROM sessions WHERE session_uid = ${filter.session} OR session_id = ${filter.session})`
              : sql``
          }
              ${
            workspace !== undefined
              ? sql`AND d.session_uid IN (SELECT session_uid FROM sessions WHERE workspace = ${workspace}
                      OR workspace LIKE ${workspace.replace(/[\\%_]/g, "\\$&") + "/%"} ESCAPE '\\')`
              : sql``
          }
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
          }>`
            SELECT d.doc, d.session_uid, d.provider, d.event_uid, ss.session_id, ss.title, ss.workspace, e.event_json
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
              score: r.score
            }
            hits.push(searchHitOf(compiled.tree, base, d.event_uid === "" ? null : d.event_uid, d.event_json))
          }
          return hits
        }),

      eventsAround: (uid, id, before, after) =>
        Effect.gen(function*() {
          const current = sql`JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation`
          const [session] = yield* fail(sql<{ provider: string; source_id: string; session_id: string }>`
            SELECT provider, source_id, session_id FROM sessions WHERE session_uid = ${uid} LIMIT 1`)
          if (session === undefined) return Option.none()
          const candidates = [id, eventUid(session.provider as ProviderId, session.source_id, session.session_id, id)]
          const [hit] = yield* fail(sql<{ sequence: number; event_uid: string; event_json: string }>`
            SELECT e.sequence, e.event_uid, e.event_json FROM events e ${current}
            WHERE e.session_uid = ${uid} AND e.event_uid IN ${sql.in(candidates)} LIMIT 1`)
          if (hit === undefined) return Option.none()
          const earlier = before <= 0 ? [] : yield* fail(sql<{ event_json: string }>`
            SELECT e.event_json FROM events e ${current}
            WHERE e.session_uid = ${uid} AND (e.sequence < ${hit.sequence} OR (e.sequence = ${hit.sequence} AND e.event_uid < ${hit.event_uid}))
            ORDER BY e.sequence DESC, e.event_uid DESC LIMIT ${before}`)
          const later = after <= 0 ? [] : yield* fail(sql<{ event_json: string }>`
            SELECT e.event_json FROM events e ${current}
            WHERE e.session_uid = ${uid} AND (e.sequence > ${hit.sequence} OR (e.sequence = ${hit.sequence} AND e.event_uid > ${hit.event_uid}))
            ORDER BY e.sequence, e.event_uid LIMIT ${after}`)
          const read = (r: { event_json: string }) => upgradeEvent(JSON.parse(r.event_json) as SessionEvent)
          const events = [...[...earlier].reverse().map(read), read(hit), ...later.map(read)]
          return Option.some({ events, at: earlier.length })
        }),

      usage: (filter) =>
        filter.sessionUids !== undefined && filter.sessionUids.length === 0
          ? Effect.succeed([])
          : hasUsage
          ? usageGroups(filter)
          : usageGroupsFromEvents(filter),

      counts: fail(
        sql<{ sources: number; sessions: number; events: number }>`
          SELECT (SELECT COUNT(*) FROM sources) AS sources, (SELECT COUNT(*) FROM sessions) AS sessions,
                 (SELECT COUNT(*) FROM events) AS events`
      ).pipe(Effect.map((r) => r[0])),

      dump: fail(Effect.all({
        sources: sql`SELECT source_key, provider, locator_json, source_id, generation, cursor, fingerprint, status, error_code, event_count,
                            prefix, parts_json, diagnostics_json
                     FROM sources ORDER BY source_key`,
        generations: sql`SELECT source_key, generation, superseded_at IS NOT NULL AS superseded FROM generations ORDER BY source_key, generation`,
        events: sql`SELECT source_key, generation, event_uid, session_uid, sequence, kind, occurred_at, event_json
                    FROM events ORDER BY source_key, generation, event_uid`,
        sessions: sql`SELECT * FROM sessions ORDER BY session_uid, generation`
      }))
    }
    return shape
  })

/** Open a SQLite connection for the scope; what better-sqlite3 throws (a defect) becomes `StoreUnavailable`. */
const connect = (file: string, filename: string, readonly: boolean) =>
  SqliteClient.make({ filename, readonly, disableWAL: true }).pipe(
    Effect.provide(Reactivity.layer),
    Effect.catchAllDefect((d) => Effect.fail(unavailable(file, d)))
  )

/**
 * Layer: the index in the SQLite file `file` (created with its folder when
 * missing), for an import. Fails with `StoreUnavailable` when the file cannot
 * be opened or written (a full disk, a read-only folder: see
 * `../store-failure.ts`) or is not a session-ingest index. Writes in WAL
 * mode; when the layer closes, the file is switched back to a rollback
 * journal (best effort: not while another connection uses it), so that a
 * finished index can be read where nothing can be written beside it (a
 * read-only mount), which SQLite cannot do for a WAL file without its `-shm`.
 */
export const layer = (file: string): Layer.Layer<Index, StoreUnavailable> =>
  Layer.scoped(
    Index,
    Effect.gen(function*() {
      const ownership = file === ":memory:"
        ? "new" as const
        : yield* checkOwnedSqlite(path.resolve(file), INDEX_APPLICATION_ID, "index", "--index FILE")
      yield* Effect.try({
        try: () => fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true }),
        catch: (e) => unavailable(file, e)
      })
      const client = yield* connect(file, file, false)
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
      return yield* make(file, ownership, "write").pipe(Effect.provideService(SqlClient.SqlClient, client))
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
export const layerReadonly = (file: string): Layer.Layer<Index, StoreUnavailable> =>
  Layer.scoped(
    Index,
    Effect.flatMap(openReadonly(file), ({ abs, client, ownership }) =>
      make(abs, ownership, "read").pipe(Effect.provideService(SqlClient.SqlClient, client)))
  )

/** A read-only connection to an existing index file for the scope (a private copy of a WAL index in a read-only folder). */
const openReadonly = (file: string) =>
  Effect.gen(function*() {
    const abs = path.resolve(file)
    const ownership = yield* checkOwnedSqlite(abs, INDEX_APPLICATION_ID, "index", "--index FILE")
    if (ownership === "new") {
      return yield* new StoreUnavailable({
        message: `There is no index at ${abs}.`,
        remediation: "Run `session-ingest import` first (or pass --index FILE)."
      })
    }
    const direct = Effect.flatMap(connect(abs, abs, true), (client) =>
      Effect.as(guardStore(indexRole(abs))(client`SELECT count(*) AS n FROM sqlite_master`), client))
    const opened = yield* Effect.either(direct)
    if (opened._tag === "Right") return { abs, ownership, client: opened.right }
    if (!isWalFile(abs) || fs.existsSync(`${abs}-shm`)) return yield* opened.left
    const details = opened.left.details as { reason?: string } | undefined
    if (details?.reason !== "read-only") return yield* opened.left
    const client = yield* connect(abs, yield* privateCopy(abs), true)
    return { abs, ownership, client }
  })

/**
 * A read-only SQL connection to the existing index file `file` for the
 * scope, with `guard`, which turns its SQL failures into `StoreUnavailable`
 * naming the file: how `push` reads a local index's rows (`./push.ts`).
 * Fails as {@link layerReadonly} does.
 */
export const readonlySql = (file: string) =>
  Effect.map(openReadonly(file), ({ abs, client }) => ({ file: abs, sql: client as SqlClient.SqlClient, guard: guardStore(indexRole(abs)) }))

/** Layer: an in-memory index (tests, dry runs). */
export const layerMemory: Layer.Layer<Index, StoreUnavailable> = layer(":memory:")
