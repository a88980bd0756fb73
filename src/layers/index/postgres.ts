/**
 * The PostgreSQL layer of {@link Index}: a team's index on one server,
 * through `@effect/sql-pg`, holding the sessions of many machines. Same
 * shape and guarantees as the SQLite layer (`./sqlite.ts`): idempotent
 * re-import (stable ids, `ON CONFLICT DO NOTHING`), generations, a checkpoint
 * per source committed in the transaction of each batch, the attempt a
 * rejected source is rolled back to (also after a kill), coverage.
 *
 * What differs, and why:
 * - Sources are keyed by machine as well (`sourceKey(…, machine)`), as are
 *   session and event uids: the same path on two machines is two sources.
 *   `checkpoints` lists the layer's machine's sources only, so an import on
 *   one machine never supersedes another's.
 * - Imports may run at once (from several machines, or the same one): events
 *   go in with `ON CONFLICT DO NOTHING` and sessions grow by what each
 *   transaction actually inserted (`RETURNING`), so nothing is lost or
 *   counted twice; the cursor only moves forward within a generation
 *   (`cursor_seq`), and a generation another import already began is not
 *   begun again. A deadlock or serialization failure retries the transaction.
 * - Bulk loading: a batch's events and their search documents go in with
 *   `INSERT … SELECT FROM unnest(…)`, each column bound as one array (a
 *   dozen parameters a statement, in slices of 4,000 rows, each slice's
 *   events and documents one statement), its sessions, their title documents
 *   and the checkpoint one more statement; a new generation begins with one
 *   statement after its row is locked. Round trips, not the server's work,
 *   bound a first import on a busy machine (15 statements a small source,
 *   from 23). The schema check is one query and the checkpoints of all
 *   sources one more.
 * - Usage (`usage`, migration `0003_usage`): one row per model response, as
 *   the SQLite layer keeps them, written in each batch's transaction and
 *   grouped in SQL.
 * - Search (`search_docs`, migration `0002_search`): a `tsvector` per event and
 *   per session title under a GIN index, its words the ones SQLite's FTS5
 *   makes (`tsvectorOf`), the query the same parsed tree as a `tsquery`
 *   (`compileTsQuery`), ranked by `ts_rank_cd`. Written with the events,
 *   removed with them (foreign keys) and with superseded generations. The
 *   hashes of each document's word pairs (`pairs`, migration
 *   `0007_search_pairs`, made by the server from `words`) answer phrases
 *   through their own GIN index; a search looks among the newest documents
 *   first ({@link SEARCH_FIRST_WINDOW}). The words' GIN index holds each
 *   document's provider, kind and role too (`0008_search_facets`,
 *   {@link SEARCH_FACETS}): a filtered search reads only its filter's rows.
 * - Migrations run only through `session-ingest index migrate` ({@link migrate});
 *   the layer checks the schema version and fails with `StoreUnavailable`
 *   (reason `schema-outdated`, the remedy naming the command) instead of
 *   running DDL, so an import never blocks readers with a schema change.
 * - A server that cannot be reached, or lost mid-operation, is
 *   `StoreUnavailable` naming host and port (reason `unreachable`); a role
 *   lacking a privilege is reason `permission-denied`, naming the role. The
 *   password of the URL is never printed. A process that outlives an outage
 *   (`mcp`, `import --watch`) connects again once the server is back
 *   ({@link connect}).
 *
 * @module
 */
import { LONG_CONTEXT_THRESHOLD } from "../../domain/prices.js"
import { randomInt } from "node:crypto"
import * as net from "node:net"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { StoreUnavailable } from "../../domain/errors.js"
import { upgradeEvent } from "../../domain/contract-upgrade.js"
import { earliestOf, latestOf } from "../../domain/timestamps.js"
import { compileTsQuery, type PairsNeed } from "../../domain/search/query.js"
import { searchableText, tsvectorOf } from "../../domain/search/text.js"
import { bookedModel, checkpointColumns, type CheckpointRow, countedElsewhereUsage, firstSeenUsageOf, extremeTimeSql, searchFilterSql, searchHitOf, sortKeySql, statusSql, timeRangeSql, workspaceSql, type NextGeneration, nextAfterBatch, nextGenerationOf, type SessionDbRow, sourceCheckpointColumns, toCheckpoint, toSessionRow, toSourceCheckpointOfValues } from "./rows.js"
import { type UsageGroup, type UsageRow, usageRowOf, usageRows } from "../../domain/usage.js"
import { eventUid, sessionUid, sourceKey } from "../../domain/index/ids.js"
import type { ProviderId, SessionEvent, SourceSummary } from "../../domain/model.js"
import { connectionUrl, type PgTarget, targetOf } from "./pg-target.js"
import { fromPg, pgHolds, toPg } from "./pg-text.js"
import { DEFAULT_SEARCH_LIMIT, type EventsFrom, Index, MAX_SEARCH_LIMIT, sessionStatusOf, type IndexShape, type SearchFilter, type SearchHit, type SourceCheckpoint, type SourceInfo, type UsageElsewhere, type UsageFilter } from "../../services/Index.js"
import { RANK_WINDOW } from "./sqlite.js"
import { newShownKey, SHOWN_KEY_NAME } from "../../domain/shown-ids.js"

/** The table the migrator records applied migrations in. */
const MIGRATIONS_TABLE = "si_migrations"

/**
 * A search document's facets, the filters a search may name (migration
 * `0008_search_facets`): its provider, kind and role as one text array,
 * each after a letter of its own (`p<provider>`, `k<kind>`, `r<role>`; a
 * missing kind or role is the letter alone). Its columns unqualified, as the
 * index's expression is; a search names them the same way ({@link facetsNeed}).
 * SQL text (a constant, spliced into statements: it holds no input), of
 * type `text[]` over `search_docs`' columns.
 */
export const SEARCH_FACETS = "ARRAY['p' || provider, 'k' || coalesce(kind, ''), 'r' || coalesce(role, '')]"

/**
 * The facets a filtered search's documents must hold (`@>` of
 * {@link SEARCH_FACETS}, which the words' GIN index answers with the words), or
 * null when the filter names no provider, kind nor role. A condition the
 * filter's own already implies (a document of kind `x` has facet `kx`):
 * it narrows what the index finds, never the answer.
 */
const facetsNeed = (sql: SqlClient.SqlClient, filter: SearchFilter): Statement.Fragment | null => {
  const need = [
    ...(filter.provider !== undefined ? [`p${filter.provider}`] : []),
    ...(filter.kind !== undefined ? [`k${filter.kind}`] : []),
    ...(filter.role !== undefined ? [`r${filter.role}`] : [])
  ]
  return need.length === 0 ? null : sql`AND ${sql.unsafe(SEARCH_FACETS)} @> ${need}::text[]`
}

/** Text columns compare byte-wise (`COLLATE "C"`), as SQLite's do: the same order of ids and RFC 3339 times on any server locale. */
const migrations = Migrator.fromRecord({
  "0001_initial": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE sources (
        source_key TEXT COLLATE "C" PRIMARY KEY,
        machine TEXT COLLATE "C" NOT NULL,
        provider TEXT COLLATE "C" NOT NULL,
        locator_json TEXT NOT NULL,
        summary_json TEXT NOT NULL,
        overview_json TEXT,
        source_id TEXT COLLATE "C",
        generation INTEGER NOT NULL,
        cursor TEXT,
        cursor_seq INTEGER,
        fingerprint TEXT,
        status TEXT COLLATE "C" NOT NULL,
        error_code TEXT,
        error_message TEXT,
        event_count INTEGER NOT NULL DEFAULT 0,
        prefix TEXT,
        parts_json TEXT,
        diagnostics_json TEXT,
        attempt_json TEXT,
        updated_at TEXT NOT NULL
      )`,
      sql`CREATE INDEX sources_by_machine ON sources (machine)`,
      sql`CREATE TABLE generations (
        source_key TEXT COLLATE "C" NOT NULL,
        generation INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        superseded_at TEXT,
        superseded_reason TEXT,
        PRIMARY KEY (source_key, generation)
      )`,
      sql`CREATE TABLE events (
        source_key TEXT COLLATE "C" NOT NULL,
        generation INTEGER NOT NULL,
        event_uid TEXT COLLATE "C" NOT NULL,
        session_uid TEXT COLLATE "C" NOT NULL,
        provider TEXT COLLATE "C" NOT NULL,
        source_id TEXT COLLATE "C" NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        sequence INTEGER NOT NULL,
        kind TEXT NOT NULL,
        occurred_at TEXT COLLATE "C",
        event_json TEXT NOT NULL,
        attempt INTEGER,
        PRIMARY KEY (source_key, generation, event_uid)
      )`,
      sql`CREATE INDEX events_by_session ON events (session_uid, generation, sequence, event_uid)`,
      sql`CREATE TABLE sessions (
        session_uid TEXT COLLATE "C" NOT NULL,
        generation INTEGER NOT NULL,
        source_key TEXT COLLATE "C" NOT NULL,
        provider TEXT COLLATE "C" NOT NULL,
        session_id TEXT COLLATE "C" NOT NULL,
        source_id TEXT COLLATE "C" NOT NULL,
        first_at TEXT COLLATE "C",
        last_at TEXT COLLATE "C",
        event_count INTEGER NOT NULL,
        title TEXT,
        workspace TEXT COLLATE "C",
        PRIMARY KEY (session_uid, generation)
      )`,
      sql`CREATE INDEX sessions_by_id ON sessions (session_id)`,
      sql`CREATE INDEX sessions_by_source ON sessions (source_key, generation)`
    ], { discard: true })),
  // Full-text search (issue 17): one document per event of a current generation, and one per session title, in
  // `search_docs`, its words a `tsvector` (GIN index) made by the domain's tokenizer (the words FTS5 makes: see
  // `tsvectorOf`). An event's document goes with its event and a title's with its session (foreign keys, ON DELETE
  // CASCADE), so every path that removes events (a rejected attempt's rollback) keeps search consistent; a
  // superseded generation's documents are deleted when it is superseded. Filled here from the stored events.
  "0002_search": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* Effect.all([
        sql`CREATE TABLE search_docs (
          doc BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          source_key TEXT COLLATE "C" NOT NULL,
          generation INTEGER NOT NULL,
          session_uid TEXT COLLATE "C" NOT NULL,
          event_uid TEXT COLLATE "C",
          title_of TEXT COLLATE "C",
          provider TEXT COLLATE "C" NOT NULL,
          kind TEXT,
          role TEXT,
          occurred_at TEXT COLLATE "C",
          words TSVECTOR NOT NULL,
          CHECK ((event_uid IS NULL) <> (title_of IS NULL)),
          FOREIGN KEY (source_key, generation, event_uid) REFERENCES events (source_key, generation, event_uid) ON DELETE CASCADE,
          FOREIGN KEY (title_of, generation) REFERENCES sessions (session_uid, generation) ON DELETE CASCADE
        )`,
        sql`CREATE UNIQUE INDEX search_docs_by_event ON search_docs (source_key, generation, event_uid)`,
        sql`CREATE UNIQUE INDEX search_docs_by_title ON search_docs (title_of, generation)`,
        sql`CREATE INDEX search_docs_by_session ON search_docs (session_uid)`,
        sql`CREATE INDEX search_docs_words ON search_docs USING GIN (words)`
      ], { discard: true })
      yield* indexDocs(sql, null)
    })),
  // Per-response usage (issue 18), as the SQLite layer keeps it (its migration 0005): one row per model response (or
  // `result` run total) of each session generation, the last usage winning; kept in the transaction of each batch and
  // grouped in SQL at query time. Filled here from the events the database already holds (no source is read).
  "0003_usage": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function*() {
      yield* sql`CREATE TABLE usage (
        source_key TEXT COLLATE "C" NOT NULL,
        generation INTEGER NOT NULL,
        session_uid TEXT COLLATE "C" NOT NULL,
        response_key TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL,
        provider TEXT COLLATE "C" NOT NULL,
        event_uid TEXT COLLATE "C" NOT NULL,
        sequence INTEGER NOT NULL,
        occurred_at TEXT COLLATE "C",
        model TEXT COLLATE "C",
        input_tokens BIGINT,
        output_tokens BIGINT,
        cache_read_tokens BIGINT,
        cache_write_tokens BIGINT,
        cost_usd DOUBLE PRECISION,
        run_seq INTEGER,
        PRIMARY KEY (source_key, generation, session_uid, response_key)
      )`
      yield* sql`CREATE INDEX usage_by_session ON usage (session_uid, generation, kind, sequence)`
      const sessions = yield* sql<{ source_key: string; generation: number; session_uid: string }>`
        SELECT DISTINCT source_key, generation, session_uid FROM events WHERE ${sql.unsafe(MAY_CARRY_USAGE)}`
      for (const s of sessions) yield* rebuildUsage(sql, s.source_key, s.generation, s.session_uid, false)
    })),
  // What each machine's last push left the team index holding (`./push.ts`): a digest per bucket of the local
  // index's checkpoints, so a push reads the team side only for the buckets that changed since.
  "0004_push_marks": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE push_marks (
      machine TEXT COLLATE "C" NOT NULL,
      origin TEXT COLLATE "C" NOT NULL,
      buckets TEXT NOT NULL,
      pushed_at TEXT NOT NULL,
      PRIMARY KEY (machine, origin)
    )`),
  // A push marker by the local index's journal (its SQLite migration 0007): the journal's id and the highest change
  // number the last push from it brought over, so a push reads only the local sources changed since. `buckets` stays
  // for a local index from before its journal (NULL in a journal marker). `sources.origin`: the local generation a
  // push filled the source's current generation from (`<journal>#<local generation>#<its start>`; NULL when an import
  // began it), so a push goes on appending only to a generation of the same local lineage (generation numbers are
  // local to an index file).
  "0005_push_journal": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE push_marks ALTER COLUMN buckets DROP NOT NULL, ADD COLUMN IF NOT EXISTS journal TEXT COLLATE "C",
          ADD COLUMN IF NOT EXISTS seq BIGINT`,
      sql`ALTER TABLE sources ADD COLUMN IF NOT EXISTS origin TEXT COLLATE "C"`
    ], { discard: true })),
  // The id of the local journal's change at the marker's number (its SQLite migration 0008): a copy of the local index
  // restored from a backup numbers its changes as the original did, so the number alone is not enough. A push whose
  // local change of that number has another id (or none) reads every local checkpoint. NULL: a marker from before.
  "0006_push_change": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE push_marks ADD COLUMN IF NOT EXISTS change_id TEXT COLLATE "C"`),
  // Word pairs for phrases (search p95, issue 17): `search_docs.pairs`, the hashes (`hashtext`) of each two words at
  // adjacent positions of `words` (`pairLexeme` in `domain/search/query.ts`: ` first second`), with their own GIN
  // index. `words`' GIN index cannot answer a phrase: it finds the documents holding all its words and PostgreSQL reads
  // each one's row to check their positions (tens of thousands of rows for two common words); the pairs' index finds
  // the documents where they are adjacent (a hash shared by two pairs only adds a candidate, which `<->` then drops).
  // Made by the server from `words` (a generated column), so every path that writes a document (import, push,
  // rollback, a title) writes its pairs, from the very positions `<->` reads: a phrase `<->` can match always has
  // its pairs. Hashes (4 bytes a pair, not the pair's text): the rows every search reads stay narrow. A column of its
  // own, not more lexemes in `words`: ranking (`ts_rank_cd` divides by the document's length) and word prefixes
  // (`word:*`) stay as they were. Filled here by the table's rewrite (`ADD COLUMN … STORED`).
  "0007_search_pairs": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE OR REPLACE FUNCTION si_word_pairs(words TSVECTOR) RETURNS INT4[]
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
              SELECT coalesce(array_agg(DISTINCT hashtext(' ' || a.lexeme || ' ' || b.lexeme)), '{}'::int4[])
              FROM (SELECT u.lexeme, unnest(u.positions) AS p FROM unnest(words) AS u) AS a
                JOIN (SELECT u.lexeme, unnest(u.positions) AS p FROM unnest(words) AS u) AS b ON b.p = a.p + 1
            $$`,
      sql`ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS pairs INT4[] GENERATED ALWAYS AS (si_word_pairs(words)) STORED`,
      sql`CREATE INDEX IF NOT EXISTS search_docs_pairs ON search_docs USING GIN (pairs)`,
      // The planner's statistics of the new column now, not at autovacuum's next pass: a phrase's pairs are estimated
      // from them.
      sql`ANALYZE search_docs`
    ], { discard: true })),
  // A search's filters in the words' GIN index (search p95, issue 13, bench figure s-latency-pg): the index on `words`
  // becomes one on `words` and the document's facets ({@link SEARCH_FACETS}: its provider, kind and role, each one string),
  // so a filtered search (`--provider`, `--kind`, `--role`) reads only the rows of its provider, kind or role that
  // hold its words. With `words` alone the index found every document holding them and PostgreSQL read each one's
  // row to check the filter: 46,000 rows (34,000 pages) for "(fabex OR fabexkabex) -fix" of one provider among
  // 1,000,000 documents, to keep 15,000. A search without filters reads the index's `words` entries as before (a GIN
  // index's columns are searched apart). An index on an expression, not a column: no table rewrite, and every path
  // that writes a document keeps it.
  "0008_search_facets": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE INDEX IF NOT EXISTS search_docs_words_facets ON search_docs USING GIN (words, (${sql.unsafe(SEARCH_FACETS)}))`,
      sql`DROP INDEX IF EXISTS search_docs_words`,
      sql`ANALYZE search_docs`
    ], { discard: true })),
  // The part of each response's cache writes written to the 1-hour cache (contract 1.3.0; the SQLite layer's migration
  // 0010), priced at its own rate. The rows already kept stay NULL (not said: the 5-minute rate, as before): their
  // stored events never kept the split; an import or push that writes a source again writes it.
  "0009_usage_cache_write_1h": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE usage ADD COLUMN IF NOT EXISTS cache_write_1h_tokens BIGINT`),
  // The index's own settings, a key/value table (the SQLite layer's migration 0011): `shown-id-key`, the 32 random
  // bytes that key the ids a redacted output shows (`src/domain/shown-ids.ts`, tester23c F3). Made here once (a
  // second migrate that races this one keeps the first key: ON CONFLICT DO NOTHING); `push` never copies it.
  "0010_meta": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BYTEA NOT NULL)`,
      sql`INSERT INTO meta (key, value) VALUES (${SHOWN_KEY_NAME}, ${newShownKey()}) ON CONFLICT (key) DO NOTHING`
    ], { discard: true })),
  // Search keeps the vowel signs, viramas and tone marks of the Brahmic and Southeast Asian scripts, and spacing marks
  // no longer split a word (session 30, tester30b F5; the SQLite layer's migration 0013): the words of the documents
  // whose text holds a character from U+0700 up (but for the general punctuation) are made again from the stored
  // events and titles, a page at a time; the others' words are the same under both folds.
  "0011_search_marks": Effect.flatMap(SqlClient.SqlClient, (sql) => refold(sql, MAY_FOLD_APART)),
  // A Hangul syllable is one unit of a word (session 31, tester30c F4; the SQLite layer's migration 0014: 0011's fold
  // split it into its letters, so a Korean prefix found the syllables that only begin with it): the words of the
  // documents whose text holds Hangul (a syllable or a conjoining letter) are made again from the stored events and
  // titles, a page at a time; the others' words are the same under both folds.
  "0012_search_syllables": Effect.flatMap(SqlClient.SqlClient, (sql) => refold(sql, HANGUL)),
  // The speed each response ran at (Claude's `usage.speed`; the SQLite layer's migration 0015, session 33, tester33b
  // F1): a `"fast"` response is billed at its model's fast-mode rates. The rows already kept stay NULL (their stored
  // events never kept it: the standard rates, as before); an import or push that writes a source again writes it.
  "0013_usage_speed": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE usage ADD COLUMN IF NOT EXISTS speed TEXT`)
})

/** A document's text that may fold apart under session 29's and session 30's folds (see `0011_search_marks`). */
const MAY_FOLD_APART = "[^\\u0001-\\u06ff\\u2000-\\u206f]"

/** A document's text that may fold apart under session 30's and session 31's folds (see `0012_search_syllables`). */
const HANGUL = "[\\u1100-\\u11ff\\uac00-\\ud7a3]"

/**
 * Migrations 0011's and 0012's work: the words of the event and title documents whose text matches `may` (a
 * PostgreSQL regular expression: the characters the folds before and after tell apart), made again.
 */
const refold = (sql: SqlClient.SqlClient, may: string) =>
  Effect.gen(function*() {
    let after: { key: string; generation: number; uid: string } | null = null
    for (;;) {
      const rows: ReadonlyArray<{ source_key: string; generation: number; event_uid: string; session_uid: string; event_json: string }> =
        yield* sql<{ source_key: string; generation: number; event_uid: string; session_uid: string; event_json: string }>`
          SELECT e.source_key, e.generation, e.event_uid, e.session_uid, e.event_json FROM events e
            JOIN search_docs d ON d.source_key = e.source_key AND d.generation = e.generation AND d.event_uid = e.event_uid
          WHERE e.event_json ~ ${may}
            ${after === null ? sql`` : sql`AND (e.source_key, e.generation, e.event_uid) > (${after.key}, ${after.generation}::int, ${after.uid})`}
          ORDER BY e.source_key, e.generation, e.event_uid LIMIT ${REINDEX_PAGE}`
      if (rows.length === 0) break
      const docs = rows.map((r) => eventDoc(r.source_key, r.generation, r.event_uid, r.session_uid, upgradeEvent(JSON.parse(r.event_json) as SessionEvent)))
      yield* sql`UPDATE search_docs d SET words = v.words::tsvector
        FROM unnest(${docs.map((d) => d.source_key)}::text[], ${docs.map((d) => d.generation)}::int[], ${docs.map((d) => d.event_uid)}::text[],
          ${docs.map((d) => d.words)}::text[]) AS v(source_key, generation, event_uid, words)
        WHERE d.source_key = v.source_key AND d.generation = v.generation AND d.event_uid = v.event_uid
          AND d.words IS DISTINCT FROM v.words::tsvector`
      const last = rows[rows.length - 1]
      after = { key: last.source_key, generation: last.generation, uid: last.event_uid }
    }
    const titled = yield* sql<{ source_key: string; generation: number; session_uid: string; provider: string; title: string }>`
      SELECT ss.source_key, ss.generation, ss.session_uid, ss.provider, ss.title FROM sessions ss
        JOIN search_docs d ON d.title_of = ss.session_uid AND d.generation = ss.generation
      WHERE ss.title ~ ${may}`
    yield* upsertTitleDocs(sql, titled.map((t) => titleDoc(t.source_key, t.generation, t.session_uid, t.provider, fromPg(t.title))))
  })

export { isPostgresUrl, type PgTarget, targetOf } from "./pg-target.js"

/** The newest migration this build knows: the schema an index must be at. */
export const SCHEMA_VERSION = 13

/** One search document: an event's (`event_uid`) or a session title's (`title_of`), its filter columns and its words. */
interface DocRow {
  readonly source_key: string
  readonly generation: number
  readonly session_uid: string
  readonly event_uid: string | null
  readonly title_of: string | null
  readonly provider: string
  readonly kind: string | null
  readonly role: string | null
  readonly occurred_at: string | null
  /** `tsvector` input ({@link tsvectorOf}). */
  readonly words: string
}

/** The search document of an event: its text and its tool input, in that order. */
const eventDoc = (key: string, generation: number, eventUidValue: string, sessionUidValue: string, e: SessionEvent): DocRow => {
  const t = searchableText(e)
  return {
    source_key: key,
    generation,
    session_uid: sessionUidValue,
    event_uid: eventUidValue,
    title_of: null,
    provider: e.provider,
    kind: e.kind,
    role: e.role,
    occurred_at: e.occurredAt,
    words: tsvectorOf([t.text, t.input])
  }
}

/** The search document of a session's title. */
const titleDoc = (key: string, generation: number, session: string, provider: string, title: string): DocRow => ({
  source_key: key,
  generation,
  session_uid: session,
  event_uid: null,
  title_of: session,
  provider,
  kind: null,
  role: null,
  occurred_at: null,
  words: tsvectorOf([title])
})

/** Rows per multi-row `INSERT` of search documents (10 parameters a row), and characters of their words at most (one statement stays small). */
const DOC_ROWS_PER_INSERT = 4000
const DOC_CHARS_PER_INSERT = 16 * 1024 * 1024

/** `docs` in slices of at most {@link DOC_ROWS_PER_INSERT} rows and about {@link DOC_CHARS_PER_INSERT} characters of words. */
const docSlices = (docs: ReadonlyArray<DocRow>): Array<ReadonlyArray<DocRow>> => {
  const out: Array<Array<DocRow>> = []
  let current: Array<DocRow> = []
  let chars = 0
  for (const d of docs) {
    if (current.length > 0 && (current.length >= DOC_ROWS_PER_INSERT || chars + d.words.length > DOC_CHARS_PER_INSERT)) {
      out.push(current)
      current = []
      chars = 0
    }
    current.push(d)
    chars += d.words.length
  }
  if (current.length > 0) out.push(current)
  return out
}

/** The rows of `docs` as `INSERT … VALUES` rows, their words cast to `tsvector` (bound, never spliced). */
const docValues = (sql: SqlClient.SqlClient, docs: ReadonlyArray<DocRow>) =>
  sql.join(", ", false)(docs.map((d) =>
    sql`(${d.source_key}, ${d.generation}, ${d.session_uid}, ${d.event_uid}::text, ${d.title_of}::text, ${d.provider},
         ${d.kind}::text, ${d.role}::text, ${d.occurred_at}::text, ${d.words}::tsvector)`
  ))

const DOC_COLUMNS = "source_key, generation, session_uid, event_uid, title_of, provider, kind, role, occurred_at, words"

/**
 * Insert search documents of events (one already there is left alone), a
 * slice per statement: each column bound as one array and the rows made by
 * `unnest` on the server, so a statement has ten parameters however many
 * rows it carries (no per-row placeholders to send, parse and plan). Inside
 * the caller's transaction.
 */
const insertEventDocs = (sql: SqlClient.SqlClient, docs: ReadonlyArray<DocRow>) =>
  Effect.gen(function*() {
    for (const slice of docSlices(docs)) {
      const col = <K extends keyof DocRow>(k: K) => slice.map((d) => d[k])
      yield* sql`INSERT INTO search_docs (${sql.unsafe(DOC_COLUMNS)})
        SELECT * FROM unnest(${col("source_key")}::text[], ${col("generation")}::int[], ${col("session_uid")}::text[],
          ${col("event_uid")}::text[], ${col("title_of")}::text[], ${col("provider")}::text[], ${col("kind")}::text[],
          ${col("role")}::text[], ${col("occurred_at")}::text[], ${col("words")}::tsvector[])
        ON CONFLICT DO NOTHING`
    }
  })

/**
 * The generations a session's events are read from: that of each `sessions` row of `uid` whose source holds that
 * generation now (its shown generation; a session several sources hold may have more than one), ascending. The
 * `sessions` primary key `(session_uid, generation)` answers it. Knowing the generation, a read of the session's
 * events in order is one range of `events_by_session (session_uid, generation, sequence, event_uid)`; joined to
 * `sources` for it instead, PostgreSQL read the session's every row (or the whole table) and sorted them, each page.
 */
export const shownGenerationsSql = (sql: SqlClient.SqlClient, uid: string) =>
  sql<{ generation: number }>`
    SELECT DISTINCT ss.generation FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
    WHERE ss.session_uid = ${uid} ORDER BY ss.generation`

/** A row of {@link sessionEventsPageSql}: `event_json` null for an event of a generation its source no longer holds. */
export interface SessionEventsPageRow {
  readonly sequence: number
  readonly event_uid: string
  readonly event_json: string | null
}

/**
 * One page of the events of session `uid` in `generations` (from {@link shownGenerationsSql}), in source order
 * `(sequence, event_uid)` (`"after"`: ascending from after `from`, or from its `sequence` on when it names no event
 * uid ({@link EventsFrom}); `"before"`: descending from before it), at most
 * `limit` rows: for each generation one index range scan of `events_by_session` that stops at `limit` (never a sort
 * of the session's rows), several generations merged. A row whose source holds another generation now (a superseded
 * one, kept for a rollback) comes with a null `event_json`, not left out, so that the next page starts after the
 * last row read: the caller drops it. `generations` must not be empty.
 */
export const sessionEventsPageSql = (
  sql: SqlClient.SqlClient,
  uid: string,
  generations: ReadonlyArray<number>,
  from: { readonly sequence: number; readonly eventUid: string } | EventsFrom | null,
  direction: "after" | "before",
  limit: number
) => {
  const order = (alias: string) =>
    sql.unsafe(direction === "after" ? `${alias}.sequence, ${alias}.event_uid` : `${alias}.sequence DESC, ${alias}.event_uid DESC`)
  const branch = (generation: number) =>
    sql<SessionEventsPageRow>`SELECT e.sequence, e.event_uid,
          CASE WHEN EXISTS (SELECT 1 FROM sources s WHERE s.source_key = e.source_key AND s.generation = e.generation)
            THEN e.event_json END AS event_json
        FROM events e
        WHERE e.session_uid = ${uid} AND e.generation = ${generation}
          ${
    from === null
      ? sql``
      : !("eventUid" in from)
      ? sql`AND e.sequence ${sql.unsafe(direction === "after" ? ">=" : "<")} ${from.sequence}`
      : sql`AND (e.sequence, e.event_uid) ${sql.unsafe(direction === "after" ? ">" : "<")} (${from.sequence}, ${from.eventUid})`
  }
        ORDER BY ${order("e")} LIMIT ${limit}`
  if (generations.length === 1) return branch(generations[0])
  const union = generations.slice(1).reduce((acc, g) => sql`${acc} UNION ALL (${branch(g)})`, sql`(${branch(generations[0])})`)
  return sql<SessionEventsPageRow>`SELECT p.sequence, p.event_uid, p.event_json FROM (${union}) p ORDER BY ${order("p")} LIMIT ${limit}`
}

/**
 * Re-title the sessions of sources' current generations as their summaries give them (tester33a F3): a title can
 * change by an append that adds no event (a Claude Code `/rename`, a `summary`), which no batch writes. Each session
 * whose title a source's summary gives (`sessionTitleIn` of domain/model.ts: its own session, or every one when it names none; another
 * one's by `sessionTitles`) and differs from the stored one takes it, with its title's search words; a title the
 * summary does not give is left as it is, never erased. A `WITH …` prefix for the statement it goes before, so it
 * costs no round trip of its own; undefined when no summary gives a title.
 */
const retitleCte = (sql: SqlClient.SqlClient, sources: ReadonlyArray<{ readonly key: string; readonly overview: SourceSummary }>) => {
  const given: Array<{ readonly key: string; readonly id: string | null; readonly title: string }> = []
  for (const { key, overview: o } of sources) {
    if (o.title !== null) given.push({ key, id: o.sessionId, title: o.title })
    if (o.sessionId !== null) {
      for (const [id, title] of Object.entries(o.sessionTitles ?? {})) if (id !== o.sessionId) given.push({ key, id, title })
    }
  }
  if (given.length === 0) return undefined
  return sql`WITH given AS (
      SELECT * FROM unnest(${given.map((g) => g.key)}::text[], ${given.map((g) => g.id === null ? null : toPg(g.id))}::text[],
                           ${given.map((g) => toPg(g.title))}::text[], ${given.map((g) => tsvectorOf([g.title]))}::tsvector[])
        AS g(source_key, session_id, title, words)
    ), retitled AS (
      UPDATE sessions ss SET title = g.title FROM sources c, given g
      WHERE c.source_key = g.source_key AND ss.source_key = c.source_key AND ss.generation = c.generation
        AND (g.session_id IS NULL OR ss.session_id = g.session_id) AND ss.title IS DISTINCT FROM g.title
      RETURNING ss.source_key, ss.session_uid, ss.generation, ss.provider, g.words
    ), retitled_docs AS (
      INSERT INTO search_docs (${sql.unsafe(DOC_COLUMNS)})
      SELECT r.source_key, r.generation, r.session_uid, NULL, r.session_uid, r.provider, NULL, NULL, NULL, r.words FROM retitled r
      ON CONFLICT (title_of, generation) DO UPDATE SET words = excluded.words, provider = excluded.provider
    )
    `
}

/**
 * Put the sessions of a source generation that a rolled-back attempt found back as it found them
 * (`AttemptState.sessions`: uid, title, workspace, as stored): a batch of the attempt wrote them as its read gave
 * them. A session whose title changes has its title's search document made again (none for no title, nor when
 * `searched` is false: a generation not searched). Sessions gone since (their events all the attempt's), or not in
 * `before` (none recorded: an attempt of an earlier build), are left alone. Inside the caller's transaction.
 */
const restoreSessions = (
  sql: SqlClient.SqlClient,
  key: string,
  generation: number,
  before: AttemptState["sessions"],
  searched: boolean
) =>
  Effect.gen(function*() {
    if (before === undefined || before === null || before.length === 0) return
    const now = yield* sql<{ session_uid: string; provider: string; title: string | null; workspace: string | null }>`
      SELECT session_uid, provider, title, workspace FROM sessions WHERE source_key = ${key} AND generation = ${generation}`
    const current = new Map(now.map((r) => [r.session_uid, r]))
    const titled: Array<DocRow> = []
    for (const [uid, title, workspace] of before) {
      const r = current.get(uid)
      if (r === undefined || (r.title === title && r.workspace === workspace)) continue
      yield* sql`UPDATE sessions SET title = ${title}, workspace = ${workspace} WHERE session_uid = ${uid} AND generation = ${generation}`
      if (r.title === title) continue
      yield* sql`DELETE FROM search_docs WHERE title_of = ${uid} AND generation = ${generation}`
      if (searched && title !== null) titled.push(titleDoc(key, generation, uid, r.provider, fromPg(title)))
    }
    yield* upsertTitleDocs(sql, titled)
  })

/** Insert or replace the title documents of sessions (the words of a changed title replace the old ones). */
const upsertTitleDocs = (sql: SqlClient.SqlClient, docs: ReadonlyArray<DocRow>) =>
  Effect.gen(function*() {
    for (const slice of docSlices(docs)) {
      yield* sql`INSERT INTO search_docs (${sql.unsafe(DOC_COLUMNS)}) VALUES ${docValues(sql, slice)}
                 ON CONFLICT (title_of, generation) DO UPDATE SET words = excluded.words, provider = excluded.provider
                   WHERE search_docs.words IS DISTINCT FROM excluded.words OR search_docs.provider IS DISTINCT FROM excluded.provider`
    }
  })

/** A row of the `usage` table (see `domain/usage.ts`, {@link UsageRow}); the same columns as the SQLite layer's. */
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
  /** The 1-hour part of `cache_write_tokens` (migration 0009; NULL: not said, priced at the 5-minute rate). */
  readonly cache_write_1h_tokens: number | null
  /** The speed the response ran at as its source wrote it (migration 0013; NULL: not said, or kept before it). */
  readonly speed: string | null
}

const usageDbRow = (
  r: Omit<UsageRow, "runSeq"> & { readonly runSeq?: number | null },
  key: string,
  generation: number,
  uid: string,
  eventUidValue: string
): UsageDbRow => ({
  source_key: key,
  generation,
  session_uid: uid,
  response_key: toPg(r.key),
  kind: r.kind,
  provider: r.provider,
  event_uid: eventUidValue,
  sequence: r.sequence,
  occurred_at: r.occurredAt,
  model: toPg(r.model),
  input_tokens: r.usage.inputTokens,
  output_tokens: r.usage.outputTokens,
  cache_read_tokens: r.usage.cacheReadTokens,
  cache_write_tokens: r.usage.cacheWriteTokens,
  cost_usd: r.costUsd,
  run_seq: r.runSeq ?? null,
  cache_write_1h_tokens: r.usage.cacheWrite1hTokens,
  speed: r.usage.speed === undefined ? null : toPg(r.usage.speed)
})

/** The stored events that may carry usage or a stated cost (any contract: 1.0.0 kept Claude Code's in its provenance). */
const MAY_CARRY_USAGE = `(kind = 'result' OR strpos(event_json, '"usage":{') > 0)`

/** Usage rows per `INSERT` (16 parameters each). */
const USAGE_CHUNK = 2000

/**
 * Rebuild the usage rows of one session generation from its stored events
 * (upgraded to the current contract): what migration 0003 does for an index
 * imported before it (`oneHour` false: its table has no
 * `cache_write_1h_tokens` before migration 0009), and what a rollback does
 * for the sessions whose events it removed. Inside the caller's transaction.
 */
const rebuildUsage = (sql: SqlClient.SqlClient, key: string, generation: number, uid: string, oneHour = true) =>
  Effect.gen(function*() {
    yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation = ${generation} AND session_uid = ${uid}`
    const stored = yield* sql<{ event_json: string; event_uid: string }>`
      SELECT event_json, event_uid FROM events
      WHERE session_uid = ${uid} AND generation = ${generation} AND source_key = ${key} AND ${sql.unsafe(MAY_CARRY_USAGE)}
      ORDER BY sequence, event_uid`
    if (stored.length === 0) return
    const uidOfEvent = new Map<string, string>()
    const events = stored.map((r) => {
      const e = upgradeEvent(JSON.parse(r.event_json) as SessionEvent)
      uidOfEvent.set(`${e.sourceId}\u0000${e.sessionId}\u0000${e.eventId}`, r.event_uid)
      return e
    })
    const rows = usageRows(events).map((r) => {
      const row = usageDbRow(r, key, generation, uid, uidOfEvent.get(`${r.sourceId}\u0000${r.sessionId}\u0000${r.eventId}`)!)
      if (oneHour) return row
      // Migration 0003's table: neither 0009's 1-hour column nor 0013's speed.
      const { cache_write_1h_tokens: _, speed: _speed, ...before } = row
      return before
    })
    for (let i = 0; i < rows.length; i += USAGE_CHUNK) yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}`
  })

/**
 * Keep the usage rows of a batch's events (inside its transaction): per
 * session and response the row of the latest event by sequence wins (a
 * response split across batches counts once, with its last usage), and each
 * `result` row ends the run of the session's earlier responses not yet
 * ended. Idempotent: an import running at once with the same events writes
 * the same rows.
 */
const upsertUsage = (
  sql: SqlClient.SqlClient,
  key: string,
  generation: number,
  events: ReadonlyArray<SessionEvent>,
  uidOf: (e: SessionEvent) => string,
  eventUidOf: (e: SessionEvent) => string
) => writeUsage(sql, latestUsage(events.map((e) => ({ key, generation, event: e, uid: uidOf(e), eventUid: eventUidOf(e) }))))

/**
 * The usage rows of a batch (see {@link latestUsage}) and, for each run row, the sequence of its run's first event
 * (`runFrom`, not stored: it bounds the responses the run ends).
 */
interface LatestUsage {
  readonly rows: ReadonlyArray<UsageDbRow>
  readonly runFrom: ReadonlyMap<UsageDbRow, number>
}

/** The usage rows of events (each with its source key, generation, session uid and event uid): per session generation and response, the latest by sequence. */
const latestUsage = (
  events: ReadonlyArray<{ readonly key: string; readonly generation: number; readonly event: SessionEvent; readonly uid: string; readonly eventUid: string }>
): LatestUsage => {
  const latest = new Map<string, UsageDbRow>()
  const runFrom = new Map<UsageDbRow, number>()
  for (const x of events) {
    const r = usageRowOf(x.event)
    if (r === null) continue
    const row = usageDbRow(r, x.key, x.generation, x.uid, x.eventUid)
    const id = `${row.source_key}\u0000${row.generation}\u0000${row.session_uid}\u0000${row.response_key}`
    const before = latest.get(id)
    if (before === undefined || before.sequence <= row.sequence) latest.set(id, row)
    if (r.runFrom !== undefined && r.runFrom !== null) runFrom.set(row, r.runFrom)
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const rows = [...latest.values()].sort((a, b) =>
    cmp(a.source_key, b.source_key) || a.generation - b.generation || cmp(a.session_uid, b.session_uid) || cmp(a.response_key, b.response_key)
  )
  return { rows, runFrom }
}

/**
 * Write usage rows (of any sources and generations; one per session
 * generation and response) inside the caller's transaction: a row stored
 * with a later sequence stands; then each `result` row ends the run of its
 * session's earlier responses not yet ended, and not before the run's first
 * event (`runFrom`: its `init`) — every such response takes the first run
 * after it whose process it is in, one statement for all runs (what ending
 * the runs one after another in sequence order does).
 */
const writeUsage = (sql: SqlClient.SqlClient, { rows, runFrom }: LatestUsage) =>
  Effect.gen(function*() {
    if (rows.length === 0) return
    for (let i = 0; i < rows.length; i += USAGE_CHUNK) {
      yield* sql`INSERT INTO usage ${sql.insert(rows.slice(i, i + USAGE_CHUNK))}
        ON CONFLICT (source_key, generation, session_uid, response_key) DO UPDATE SET
          kind = excluded.kind, provider = excluded.provider, event_uid = excluded.event_uid, sequence = excluded.sequence,
          occurred_at = excluded.occurred_at, model = excluded.model, input_tokens = excluded.input_tokens,
          output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
          cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd,
          cache_write_1h_tokens = excluded.cache_write_1h_tokens, speed = excluded.speed
        WHERE excluded.sequence >= usage.sequence`
    }
    const runs = rows.filter((r) => r.kind === "run")
    if (runs.length === 0) return
    const col = <K extends keyof UsageDbRow>(k: K) => runs.map((r) => r[k])
    yield* sql`
      WITH r(k, g, s, q, f) AS (SELECT * FROM unnest(${col("source_key")}::text[], ${col("generation")}::int[], ${col("session_uid")}::text[],
                                                 ${col("sequence")}::int[], ${runs.map((r) => runFrom.get(r) ?? 0)}::int[])),
      m AS (
        SELECT u.source_key, u.generation, u.session_uid, u.response_key, min(r.q) AS q FROM usage u
          JOIN r ON r.k = u.source_key AND r.g = u.generation AND r.s = u.session_uid AND r.q > u.sequence AND u.sequence >= r.f
        WHERE u.kind = 'response' AND u.run_seq IS NULL
        GROUP BY u.source_key, u.generation, u.session_uid, u.response_key
      )
      UPDATE usage u SET run_seq = m.q FROM m
      WHERE u.source_key = m.source_key AND u.generation = m.generation AND u.session_uid = m.session_uid AND u.response_key = m.response_key`
  })

/** Events read per query when documents are made from stored events. */
const REINDEX_PAGE = 2000

/**
 * (Re)make the search documents of the current, not rejected generations
 * (`scope` null: all of them, the migration) or of one generation of one
 * source (a rollback that makes a superseded generation current again) from
 * what the index stores: its events, upgraded to the current contract, and
 * its sessions' titles. No source is read. Inside the caller's transaction.
 */
const indexDocs = (sql: SqlClient.SqlClient, scope: { readonly key: string; readonly generation: number } | null) =>
  Effect.gen(function*() {
    const where = scope === null
      ? sql`s.status <> 'rejected'`
      : sql`e.source_key = ${scope.key} AND e.generation = ${scope.generation}`
    if (scope !== null) yield* sql`DELETE FROM search_docs WHERE source_key = ${scope.key} AND generation = ${scope.generation}`
    let after: { key: string; generation: number; uid: string } | null = null
    for (;;) {
      const rows: ReadonlyArray<{ source_key: string; generation: number; event_uid: string; session_uid: string; event_json: string }> =
        yield* sql<{ source_key: string; generation: number; event_uid: string; session_uid: string; event_json: string }>`
          SELECT e.source_key, e.generation, e.event_uid, e.session_uid, e.event_json FROM events e
            JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
          WHERE ${where}
            ${after === null ? sql`` : sql`AND (e.source_key, e.generation, e.event_uid) > (${after.key}, ${after.generation}::int, ${after.uid})`}
          ORDER BY e.source_key, e.generation, e.event_uid LIMIT ${REINDEX_PAGE}`
      if (rows.length === 0) break
      yield* insertEventDocs(
        sql,
        rows.map((r) => eventDoc(r.source_key, r.generation, r.event_uid, r.session_uid, upgradeEvent(JSON.parse(r.event_json) as SessionEvent)))
      )
      const last = rows[rows.length - 1]
      after = { key: last.source_key, generation: last.generation, uid: last.event_uid }
    }
    const titled = yield* sql<{ source_key: string; generation: number; session_uid: string; provider: string; title: string }>`
      SELECT ss.source_key, ss.generation, ss.session_uid, ss.provider, ss.title FROM sessions ss
        JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
      WHERE ss.title IS NOT NULL AND ${
      scope === null ? sql`s.status <> 'rejected'` : sql`ss.source_key = ${scope.key} AND ss.generation = ${scope.generation}`
    }`
    yield* upsertTitleDocs(sql, titled.map((t) => titleDoc(t.source_key, t.generation, t.session_uid, t.provider, t.title)))
  })

/** A session row as read, its plain text decoded ({@link fromPg}: see `./pg-text.ts`). */
const sessionRowOf = (r: SessionDbRow) =>
  toSessionRow({ ...r, session_id: fromPg(r.session_id), source_id: fromPg(r.source_id), title: fromPg(r.title), workspace: fromPg(r.workspace) })

/** A checkpoint row as read, its plain text decoded ({@link fromPg}: see `./pg-text.ts`): what `push` compares with the local one. */
export const fromPgCheckpoint = <R extends CheckpointRow>(r: R): R => ({
  ...r,
  cursor: fromPg(r.cursor),
  fingerprint: fromPg(r.fingerprint),
  source_id: fromPg(r.source_id),
  prefix: fromPg(r.prefix)
})

const codeOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && typeof (u as { code?: unknown }).code === "string" ? (u as { code: string }).code : undefined

/** The errors along `u`'s `cause` chain (an `SqlError` carries `pg`'s error), and an `AggregateError`'s first. */
const chain = (u: unknown): Array<unknown> => {
  const out: Array<unknown> = []
  for (let e = u, i = 0; e !== undefined && e !== null && i < 8; i++) {
    out.push(e)
    const inner = e instanceof AggregateError && e.errors.length > 0 ? e.errors[0] : undefined
    e = typeof e === "object" && "cause" in e && (e as { cause: unknown }).cause !== undefined ? (e as { cause: unknown }).cause : inner
  }
  return out
}

/** SQLSTATE classes / errno codes that mean the server could not be reached or went away. */
const UNREACHABLE = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|57P01|57P02|57P03|08\w{3})$/

/**
 * What `pg` (and {@link connect}) say of a connection that went away with no
 * SQLSTATE nor errno: the server stopped or was killed mid-operation, or its
 * socket was destroyed (an abandoned pool).
 */
const CONNECTION_LOST = /Connection terminated|encountered a connection error and is not queryable|the connection to the server was abandoned/i

/**
 * Errno codes and SQLSTATEs of a connection the server (or the network) ended
 * after it was made: a reset or broken pipe, an administrator's or a crash's
 * shutdown. `pg` gives one of these, or no code at all ({@link CONNECTION_LOST}),
 * for the same event (a postmaster killed mid-transaction gave either, run to
 * run), so both read "the connection to the server was lost".
 */
const LOST_CODES = /^(ECONNRESET|EPIPE|57P01|57P02)$/

/**
 * Text from outside the product (a server's or driver's error message) as it
 * may be shown, or `undefined` when it must be withheld: when it holds any
 * form of the password (see `PgTarget.secrets`; compared ignoring case). It
 * is withheld whole, never masked in place: masking every occurrence of a
 * short password garbles words and shows, by the gaps, which letters the
 * password is made of. What withholding tells is only that a text the reader
 * does not see held it. The product's own words are never examined.
 */
export const outsideText = (target: PgTarget, text: string): string | undefined => {
  const lower = text.toLowerCase()
  return target.secrets.some((secret) => lower.includes(secret.toLowerCase())) ? undefined : text
}

/** What stands for a server's or driver's message that {@link outsideText} withheld. */
export const WITHHELD_TEXT = "the server's message is withheld because it may contain the password"

/**
 * The `StoreUnavailable` of a failure of the PostgreSQL index at `target`:
 * unreachable (host and port named), refused login, missing database, or
 * another server error (its SQLSTATE). The message and remedy are the
 * product's own words, built from the URL's parts without its password, and
 * never altered; the server's or driver's own message is added only when it
 * holds no form of the password, else it is said to be withheld (see
 * {@link outsideText}).
 */
export const pgFailure = (target: PgTarget, cause: unknown): StoreUnavailable => {
  const errors = chain(cause)
  const coded = errors.find((e) => codeOf(e) !== undefined)
  const code = codeOf(coded)
  const detailOf = (e: unknown) => (e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e))
  const timedOut = errors.some((e) => /timed out|timeout/i.test(detailOf(e)))
  const raw = detailOf(coded ?? errors[errors.length - 1] ?? cause)
  const detail = outsideText(target, raw) ?? WITHHELD_TEXT
  const at = `${target.host}:${target.port}`
  const fields = (reason: string, message: string, remediation: string) =>
    new StoreUnavailable({
      message,
      remediation,
      details: { index: target.shown, host: target.host, port: target.port, database: target.database, reason, ...(code !== undefined ? { code } : {}) }
    })
  const unreachableRemedy =
    `Check that a PostgreSQL server runs at ${at} and accepts connections from this machine (network, firewall, listen_addresses), or fix the postgres:// URL (--index; push's --to); then run the same command again (what was committed is kept).`
  // `pg`'s query_timeout: the server took the connection and the query, and gave no answer in time. A busy server
  // or a slow plan as well as a frozen one (tester22a F4: a healthy server's slow query read "cannot be reached",
  // with a remedy about the network only).
  if (code === undefined && errors.some((e) => /query read timeout/i.test(detailOf(e)))) {
    return fields(
      "unreachable",
      `The PostgreSQL index at ${at} (database ${target.database}) stopped answering: no answer to a query in the time allowed (${detail}).`,
      `Check that the PostgreSQL server at ${at} runs and is not overloaded (its load, its log), then run the same command again (what was committed is kept). ` +
        `A server that is only slow can be given longer: ${TIMEOUT_ENV}=<seconds> (default ${DEFAULT_TIMEOUT_SECONDS}).`
    )
  }
  if (code !== undefined && LOST_CODES.test(code)) {
    return fields(
      "unreachable",
      `The PostgreSQL index at ${at} (database ${target.database}) cannot be reached: the connection to the server was lost (${code}${raw !== "" && !raw.includes(code) ? `: ${detail}` : ""}).`,
      unreachableRemedy
    )
  }
  if ((code !== undefined && UNREACHABLE.test(code)) || (code === undefined && timedOut)) {
    return fields(
      "unreachable",
      `The PostgreSQL index at ${at} (database ${target.database}) cannot be reached: ${code ?? "timed out"}${raw !== "" && !raw.includes(code ?? "\u0000") ? ` (${detail})` : ""}.`,
      unreachableRemedy
    )
  }
  if (code === undefined && errors.some((e) => CONNECTION_LOST.test(detailOf(e)))) {
    return fields(
      "unreachable",
      `The PostgreSQL index at ${at} (database ${target.database}) cannot be reached: the connection to the server was lost (${detail}).`,
      unreachableRemedy
    )
  }
  if (code === "28P01" || code === "28000") {
    return fields(
      "login-refused",
      `The PostgreSQL server at ${at} refused the login to database ${target.database}: ${code}: ${detail}.`,
      "Check the user and password in the postgres:// URL (--index, or the config file's index; push's --to), or PGPASSWORD / ~/.pgpass, and the server's pg_hba.conf."
    )
  }
  if (code === "3D000") {
    return fields(
      "no-database",
      `The PostgreSQL server at ${at} has no database ${target.database}.`,
      `Create it (\`createdb -h ${target.host} -p ${target.port} ${target.database}\`), then run \`session-ingest index migrate --index ${target.shown}\`.`
    )
  }
  if (code === "42501") {
    const role = target.user !== "" ? target.user : "the URL's default role (PGUSER, else your OS user name)"
    const named = target.user !== "" ? target.user : "<role>"
    return fields(
      "permission-denied",
      `The PostgreSQL role ${role} lacks a privilege this command needs in database ${target.database} at ${at}: ${code}: ${detail}.`,
      `Running it again will not help. Use the role that ran \`session-ingest index migrate\` (it owns the tables), or have it (or a superuser) grant this one what the command needs: ` +
        `\`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${named}\` to import and push, ` +
        `\`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${named}\` to read (sessions, search, show, usage, export, mcp); ` +
        "`index migrate` needs the tables' owner (or a superuser)."
    )
  }
  // An sslmode that asks for SSL, of a server that has none (tester28a F9): the same answer however often it is tried.
  if (code === undefined && errors.some((e) => /does not support SSL/i.test(detailOf(e)))) {
    return fields(
      "ssl-not-supported",
      `The PostgreSQL index at ${at} (database ${target.database}) failed: ${detail}.`,
      `Running it again will not help: the postgres:// URL (--index; push's --to) asks for SSL (its sslmode) and the server at ${at} offers none. Enable SSL on the server (ssl = on, with a certificate, in postgresql.conf), ` +
        "or connect without it: sslmode=disable in the URL (or no sslmode) where the network is trusted."
    )
  }
  return fields(
    "server-error",
    `The PostgreSQL index at ${at} (database ${target.database}) failed: ${code !== undefined ? `${code}: ` : ""}${detail}.`,
    "Run the same command again (what was committed is kept); if it fails again, check the server's log."
  )
}

/** Whether a failure is worth retrying the transaction for: a deadlock or a serialization failure. */
const retryable = (e: unknown): boolean => chain(e).some((x) => codeOf(x) === "40P01" || codeOf(x) === "40001")

const now = () => new Date().toISOString()


/** The checkpoint columns an attempt restores when it is rolled back. */
const BASE_COLUMNS = [
  "generation",
  "cursor",
  "cursor_seq",
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

/**
 * `sources.attempt_json`: the attempt in progress (its id in `events.attempt`) and the row it began from (null: none),
 * and the new generation it imports beside the row's complete one (see `NextGeneration` in `./rows.ts`).
 */
interface AttemptState {
  readonly attempt: number
  readonly base: BaseRow | null
  readonly next?: NextGeneration | undefined
  /**
   * The sessions of the base row's generation as the attempt found them, `[session uid, title, workspace]` as stored
   * (null or absent: none, or an attempt of a build before session 39): a batch of the attempt writes a session's title
   * and workspace as the source's read gives them; a rollback puts these back (as the SQLite layer's `AttemptState`).
   */
  readonly sessions?: ReadonlyArray<readonly [uid: string, title: string | null, workspace: string | null]> | null | undefined
}

/** Rows per `INSERT` of events (each column one array parameter: a bound on the statement's size, not on parameters). */
const EVENT_ROWS_PER_INSERT = 4000

/**
 * Where the schema of the index at the connection stands: the newest
 * migration applied (0: none, no schema). One round trip: the migrations
 * table is read, and its absence (`undefined_table`, 42P01) is version 0.
 */
const schemaVersion = (sql: SqlClient.SqlClient) =>
  sql<{ v: number | null }>`SELECT max(migration_id)::int AS v FROM ${sql(MIGRATIONS_TABLE)}`.pipe(
    Effect.map((rows) => rows[0]?.v ?? 0),
    Effect.catchIf((e) => chain(e).some((x) => codeOf(x) === "42P01"), () => Effect.succeed(0))
  )

/** `StoreUnavailable` for a schema that is not the one this build knows (older, missing, or newer). */
const schemaMismatch = (target: PgTarget, have: number): StoreUnavailable =>
  have > SCHEMA_VERSION
    ? new StoreUnavailable({
      message: `The PostgreSQL index at ${target.host}:${target.port} (database ${target.database}) has schema version ${have}, newer than this session-ingest knows (${SCHEMA_VERSION}).`,
      remediation: "Upgrade session-ingest on this machine to the version the index was migrated with.",
      details: { index: target.shown, host: target.host, port: target.port, database: target.database, reason: "schema-newer", have, want: SCHEMA_VERSION }
    })
    : new StoreUnavailable({
      message: have === 0
        ? `The PostgreSQL database ${target.database} at ${target.host}:${target.port} holds no session-ingest index yet (no schema).`
        : `The PostgreSQL index at ${target.host}:${target.port} (database ${target.database}) has schema version ${have}; this session-ingest needs ${SCHEMA_VERSION}.`,
      remediation:
        `Run \`session-ingest index migrate --index ${target.shown}\` once (it changes the schema; imports never do), then run the same command again.`,
      details: { index: target.shown, host: target.host, port: target.port, database: target.database, reason: "schema-outdated", have, want: SCHEMA_VERSION }
    })

/**
 * The server's failures as `StoreUnavailable` naming `target` (see
 * {@link pgFailure}); a deadlock or serialization failure is retried first
 * (the transaction again, with jittered backoff, up to 8 times).
 *
 * With the connection `conn` ({@link connect}), an operation is also never
 * left waiting on a server that stopped answering (a frozen or partitioned
 * server still accepts TCP and never answers), nor does it hold up an
 * interruption (Ctrl-C / SIGTERM):
 * - each statement has the client's own `query_timeout` (`pg`'s setting,
 *   given through the URL handed to `@effect/sql-pg`: see {@link connect});
 *   but inside a transaction, the `ROLLBACK` that follows a timed-out
 *   statement queues behind it on the same connection and would wait as
 *   long again, and `@effect/sql` runs it uninterruptibly. So the operation
 *   as a whole is given the same time (and a second: the statement's own
 *   timeout comes first when it can), after which it is interrupted and
 *   fails with `StoreUnavailable` (reason `unreachable`, host and port named);
 * - an interrupted operation returns at once (`Effect.disconnect`), and the
 *   connection is abandoned (`conn.abandon`: every socket of the pool
 *   destroyed, none opened again while an operation begun before runs: see
 *   {@link connect}), so what still waits in the background (a
 *   query's cancel request, the transaction's `ROLLBACK`) fails at once
 *   instead of waiting for the server. The server rolls back an open
 *   transaction when its connection goes: what was committed stays
 *   consistent, and the next run converges;
 * - a server found unreachable is abandoned likewise: the run's other
 *   operations under way fail at once rather than each waiting out its own
 *   timeout. An operation begun later connects again (a long-running
 *   process recovers once the server is back).
 */
export const guard = (target: PgTarget, conn?: Pick<Connection, "abandon" | "operation" | "timeout">) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, R> => {
  const base = effect.pipe(
    Effect.retry({ while: retryable, schedule: Schedule.exponential("20 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(8))) }),
    Effect.catchIf((e): e is Extract<E, SqlError> => e instanceof SqlError, (e) => Effect.fail(pgFailure(target, e))),
    // `@effect/sql` makes a failed COMMIT or ROLLBACK a defect (`Effect.orDie`): the server gone mid-transaction. Its
    // `SqlError` is the server's failure all the same (tester18 F2: it reached the CLI's last guard as "a file
    // session-ingest uses cannot be used").
    Effect.catchSomeDefect((d) => (d instanceof SqlError ? Option.some(Effect.fail(pgFailure(target, d))) : Option.none()))
  ) as Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, R>
  if (conn === undefined) return base
  return base.pipe(
    Effect.tapError((e) => (e instanceof StoreUnavailable && (e.details as { readonly reason?: unknown } | undefined)?.reason === "unreachable" ? conn.abandon : Effect.void)),
    conn.operation,
    Effect.disconnect,
    Effect.onInterrupt(() => conn.abandon),
    Effect.timeoutFail({ duration: Duration.millis(conn.timeout + 1000), onTimeout: () => notAnswering(target, conn.timeout) })
  )
}

/** `StoreUnavailable` of a server that did not answer an operation within `timeout` ms (see {@link guard}). */
const notAnswering = (target: PgTarget, timeout: number): StoreUnavailable =>
  new StoreUnavailable({
    message: `The PostgreSQL index at ${target.host}:${target.port} (database ${target.database}) stopped answering: no answer within ${timeout / 1000} s.`,
    remediation: `Check that the PostgreSQL server at ${target.host}:${target.port} runs and is reachable from this machine, then run the same command again (what was committed is kept). ` +
      `A server that is only slow can be given longer: ${TIMEOUT_ENV}=<seconds> (default ${DEFAULT_TIMEOUT_SECONDS}).`,
    details: { index: target.shown, host: target.host, port: target.port, database: target.database, reason: "unreachable", timeoutSeconds: timeout / 1000 }
  })

/** The environment variable that sets, in seconds, how long a statement (and an operation) waits for the server's answer. */
export const TIMEOUT_ENV = "SESSION_INGEST_PG_TIMEOUT"

/** Seconds a statement waits for the server's answer unless {@link TIMEOUT_ENV} says otherwise (`index migrate`: {@link MIGRATE_TIMEOUT_SECONDS}). */
export const DEFAULT_TIMEOUT_SECONDS = 60

/** Seconds a statement of `index migrate` waits unless {@link TIMEOUT_ENV} says otherwise: a migration rewrites tables (minutes for 1,000,000 events). */
export const MIGRATE_TIMEOUT_SECONDS = 3600

/** Milliseconds a statement waits for an answer: {@link TIMEOUT_ENV} (seconds, > 0), else `fallbackSeconds`. */
const answerTimeout = (fallbackSeconds: number): number => {
  const given = Number(process.env[TIMEOUT_ENV] ?? "")
  return Math.round((Number.isFinite(given) && given > 0 ? given : fallbackSeconds) * 1000)
}

/** `url` with `pg`'s `query_timeout` (milliseconds) unless it names one itself. */
const withQueryTimeout = (url: string, timeout: number): string => {
  if (/[?&]query_timeout=/i.test(url)) return url
  const hash = url.indexOf("#")
  const [head, tail] = hash < 0 ? [url, ""] : [url.slice(0, hash), url.slice(hash)]
  return `${head}${head.includes("?") ? "&" : "?"}query_timeout=${timeout}${tail}`
}

/** Options of {@link layer}. */
export interface PgIndexOptions {
  /** `postgres://user:password@host:port/database` (its password is never printed). */
  readonly url: string
  /** The machine this index writes for: it keys the sources an import reads (default: none, a reader's layer). */
  readonly machine?: string | undefined
  /** Connections at most (default 4). */
  readonly maxConnections?: number | undefined
  /** Documents a search looks among first, newest first (default {@link SEARCH_FIRST_WINDOW}; the answer is the same whatever it is). */
  readonly searchWindow?: number | undefined
}

/** Documents (ids) a search looks among first, newest first (see {@link searchRounds}); {@link PgIndexOptions.searchWindow}. */
export const SEARCH_FIRST_WINDOW = 100_000

/**
 * The rounds of a search, newest documents first: `round(after)` matches
 * among the documents with an id above `after` (null: all of them) and
 * answers its rows, each with `found`, the matches it took (at most
 * `window`). A round that found `window` matches is the answer: every
 * document it did not look at is older than all of them. Else the next
 * round looks among as many documents as the matches found say it takes
 * (a quarter more than that, at least twice as many), and the third
 * among all: at most three queries, and one over all documents when the
 * newest `first` held no match (a rare word: the GIN index alone is quick).
 * `top` is the highest document id.
 */
const searchRounds = <R extends { readonly found: number }, E>(
  round: (after: number | null) => Effect.Effect<ReadonlyArray<R>, E>,
  window: number,
  first: number,
  top: number
): Effect.Effect<ReadonlyArray<R>, E> =>
  Effect.gen(function*() {
    let span = first
    for (let tried = 0; tried < 2 && span < top; tried++) {
      const rows = yield* round(top - span)
      const found = rows[0]?.found ?? 0
      if (found >= window) return rows
      if (found === 0) break
      span = Math.max(span * 2, Math.ceil((span * window / found) * 1.25))
    }
    return yield* round(null)
  })

/**
 * The SQL condition of the word pairs a match must hold (`d.pairs`, migration
 * 0007): `@>` of their hashes, made by the server (`hashtext`, as the column's
 * are), each pair a bound parameter; ANDs and ORs as the query's.
 */
const pairsSql = (sql: SqlClient.SqlClient, need: PairsNeed): Statement.Fragment =>
  need._tag === "All"
    ? sql`d.pairs @> ARRAY[${sql.join(", ", false)(need.pairs.map((p) => sql`hashtext(${p})`))}]::int4[]`
    : sql`(${sql.join(need._tag === "And" ? " AND " : " OR ", false)(need.children.map((c) => pairsSql(sql, c)))})`

/** A connection pool to the index ({@link connect}): its client, how to abandon it, and how long a statement waits (ms). */
export interface Connection {
  readonly client: PgClient.PgClient
  /**
   * Destroy every socket of the pool, and open none again while an operation
   * that began before runs (see {@link connect}): whatever waits on the server
   * fails at once (see {@link guard}).
   */
  readonly abandon: Effect.Effect<void>
  /** `effect` as an operation of the pool (what {@link abandon} waits for before the pool connects again). */
  readonly operation: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly timeout: number
}

/**
 * A `PgClient` for `url` for the scope, its failure to connect a
 * `StoreUnavailable`. Its sockets are made here (`@effect/sql-pg`'s `stream`
 * option), so that {@link Connection.abandon} can destroy them; each
 * statement waits `timeout` ms for its answer (`pg`'s `query_timeout`, in
 * the URL given to the client, unless the URL names one). Interrupted while
 * it connects, it returns at once and abandons the pool.
 *
 * An abandonment holds only while the operations ({@link Connection.operation})
 * that began before it still run: a socket asked for meanwhile is destroyed
 * at once, so they (and what they left waiting in the background) fail at
 * once rather than each connecting again to a server found gone. Once they
 * have all ended, the pool connects again as it needs to (`pg`'s pool drops
 * the clients whose sockets were destroyed and opens new ones): a process
 * that outlives an outage (`mcp`, `import --watch`) works again once the
 * server is back (tester18 F1: an abandonment for good left it failing with
 * "the connection to the server was abandoned" until restarted).
 */
const connect = (url: string, target: PgTarget, maxConnections = 4, timeout = answerTimeout(DEFAULT_TIMEOUT_SECONDS)) =>
  Effect.gen(function*() {
    const sockets = new Set<net.Socket>()
    // Operations running, by the epoch they began in (an abandonment begins a new epoch); the pool is abandoned while
    // one of an epoch up to `abandonedUpTo` runs.
    let epoch = 0
    let abandonedUpTo = -1
    const running = new Map<number, number>()
    const abandoned = () => {
      for (const e of running.keys()) if (e <= abandonedUpTo) return true
      return false
    }
    const stream = () => {
      const socket = new net.Socket()
      if (abandoned()) process.nextTick(() => socket.destroy(new Error("the connection to the server was abandoned")))
      else {
        sockets.add(socket)
        socket.once("close", () => sockets.delete(socket))
      }
      return socket
    }
    const abandon = Effect.sync(() => {
      abandonedUpTo = epoch++
      for (const socket of sockets) socket.destroy()
      sockets.clear()
    })
    const operation = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const e = epoch
          running.set(e, (running.get(e) ?? 0) + 1)
          return e
        }),
        () => effect,
        (e) =>
          Effect.sync(() => {
            const n = (running.get(e) ?? 1) - 1
            if (n === 0) running.delete(e)
            else running.set(e, n)
          })
      )
    const client = yield* PgClient.make({
      url: Redacted.make(withQueryTimeout(connectionUrl(url), timeout)),
      connectTimeout: Duration.seconds(10),
      maxConnections,
      applicationName: "session-ingest",
      stream
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.catchAllCause((cause) => Effect.fail(pgFailure(target, Cause.squash(cause)))),
      operation,
      Effect.disconnect,
      Effect.onInterrupt(() => abandon)
    )
    return { client, abandon, operation, timeout } satisfies Connection
  })

/**
 * `AND <column> = machine`, or for a list `AND <column> IN (…)` (`AND FALSE` for an empty one): a
 * {@link SessionFilter.machine} as SQL.
 */
const machineSql = (sql: SqlClient.SqlClient, column: string, machine: string | ReadonlyArray<string>) => {
  // A machine is named at push by printable text only (docs/index.md), never a U+0000 or a lone surrogate, which
  // PostgreSQL's text cannot take as a parameter (`22021`, a store failure): a filter holding one names no machine.
  const names = (typeof machine === "string" ? [machine] : machine).filter(pgHolds)
  return names.length === 0
    ? sql`AND FALSE`
    : names.length === 1
    ? sql`AND ${sql.unsafe(column)} = ${names[0]}`
    : sql`AND ${sql.unsafe(column)} IN ${sql.in(names)}`
}

/**
 * The index over the PostgreSQL connection in context, keyed for `machine`
 * (`undefined`: a reader, whose writes name no machine). Fails with
 * `StoreUnavailable` when the schema is not at {@link SCHEMA_VERSION}.
 */
const make = (
  target: PgTarget,
  conn: Connection,
  machine: string | undefined,
  firstWindow = SEARCH_FIRST_WINDOW
): Effect.Effect<IndexShape, StoreUnavailable> =>
  Effect.gen(function*() {
    const sql: SqlClient.SqlClient = conn.client
    const fail = guard(target, conn)
    const have = yield* fail(schemaVersion(sql))
    if (have !== SCHEMA_VERSION) return yield* schemaMismatch(target, have)
    const writer = machine ?? ""
    /** Events this layer inserted since the last {@link refreshStatistics} (`importRun`). */
    let written = 0

    const upsertSource = (s: SourceInfo, generation: number, status: string) =>
      sql`INSERT INTO sources (source_key, machine, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
          VALUES (${s.sourceKey}, ${writer}, ${s.provider}, ${JSON.stringify(s.locator)}, ${JSON.stringify(s.summary)}, ${JSON.stringify(s.overview)},
                  ${generation}, ${status}, ${now()})
          ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
            overview_json = excluded.overview_json, updated_at = excluded.updated_at`

    const SESSION_COLUMNS = sql.unsafe(`ss.session_uid, ss.provider, ss.session_id, ss.source_id, ss.source_key, s.machine, s.locator_json, s.summary_json,
      s.overview_json, ss.generation, ss.title, ss.workspace, ss.first_at, ss.last_at, ss.event_count, s.status AS source_status`)

    /** The generations `uid`'s events are read from now ({@link shownGenerationsSql}). */
    const shownGenerations = (uid: string) =>
      fail(shownGenerationsSql(sql, uid)).pipe(Effect.map((rows) => rows.map((r) => r.generation)))

    /**
     * A session's events of its sources' current generations, in source order, a page (`pageSize` rows) per query: its
     * shown generations first (each page: a generation a rewrite makes current meanwhile is read from then on), then
     * one index range from after the last row read ({@link sessionEventsPageSql}); with `start`, the first page from
     * the rows whose `sequence` is `start.sequence` or more.
     */
    const eventsStream = (uid: string, pageSize = 1000, start?: EventsFrom): Stream.Stream<SessionEvent, StoreUnavailable> =>
      Stream.paginateChunkEffect(
        (start === undefined ? null : { sequence: start.sequence }) as { readonly sequence: number; readonly eventUid: string } | EventsFrom | null,
        (after) =>
          Effect.gen(function*() {
            const generations = yield* shownGenerations(uid)
            const rows = generations.length === 0 ? [] : yield* fail(sessionEventsPageSql(sql, uid, generations, after, "after", pageSize))
            const last = rows[rows.length - 1]
            const events: Array<SessionEvent> = []
            for (const r of rows) if (r.event_json !== null) events.push(upgradeEvent(JSON.parse(r.event_json) as SessionEvent))
            return [
              Chunk.unsafeFromArray(events),
              rows.length < pageSize ? Option.none() : Option.some({ sequence: last.sequence, eventUid: last.event_uid })
            ] as const
          })
      )

    /** The SQL of a usage row's group key for `by` (`u`: the usage row of {@link firstSeenUsage}, with its session's workspace and source's machine). */
    const groupKeyOf = (by: UsageFilter["by"]) =>
      by === "session"
        ? "u.session_uid"
        : by === "day"
        ? "substr(u.occurred_at, 1, 10)"
        : by === "model"
        ? bookedModel("pg")
        : by === "provider"
        ? "u.provider"
        : by === "response"
        ? "u.session_uid || ' ' || u.response_key"
        : by === "machine"
        ? "u.source_machine"
        : "u.session_workspace"

    /** The usage groups of the rows `filter` selects (current generations of sources not rejected): as the SQLite layer's. */
    const usageGroups = (filter: UsageFilter): Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable> =>
      fail(sql<{
        group_key: string | null
        kind: "response" | "run"
        model: string | null
        covered: boolean
        has_responses: boolean
        stated: boolean
        long_context: boolean
        fast: boolean
        set_aside: boolean
        n: number
        token_rows: number
        input_tokens: number | null
        output_tokens: number | null
        cache_read_tokens: number | null
        cache_write_tokens: number | null
        cache_write_1h_tokens: number | null
        cost_usd: number | null
      }>`
        SELECT group_key, kind, model, covered, has_responses, stated, long_context, fast, set_aside, count(*)::int AS n,
          (count(*) FILTER (WHERE (coalesce(input_tokens, 0) > 0 OR coalesce(output_tokens, 0) > 0 OR coalesce(cache_read_tokens, 0) > 0 OR coalesce(cache_write_tokens, 0) > 0)))::int AS token_rows,
          sum(input_tokens)::float8 AS input_tokens, sum(output_tokens)::float8 AS output_tokens,
          sum(cache_read_tokens)::float8 AS cache_read_tokens, sum(cache_write_tokens)::float8 AS cache_write_tokens,
          sum(cache_write_1h_tokens)::float8 AS cache_write_1h_tokens, sum(cost_usd)::float8 AS cost_usd
        FROM (
          SELECT ${sql.unsafe(groupKeyOf(filter.by))} AS group_key, u.kind, u.model,
            CASE WHEN u.kind = 'response' AND u.run_seq IS NOT NULL AND u.run_set_aside = 0 THEN coalesce((
              SELECT r.cost_usd IS NOT NULL FROM usage r
              WHERE r.session_uid = u.session_uid AND r.generation = u.generation AND r.kind = 'run' AND r.sequence = u.run_seq
                AND r.source_key = u.source_key LIMIT 1), false) ELSE false END AS covered,
            CASE WHEN u.kind = 'run' THEN EXISTS (
              SELECT 1 FROM usage x
              WHERE x.session_uid = u.session_uid AND x.generation = u.generation AND x.kind = 'response' AND x.run_seq = u.sequence
                AND x.source_key = u.source_key) ELSE false END AS has_responses,
            u.cost_usd IS NOT NULL AS stated,
            (u.kind = 'response' AND coalesce(u.input_tokens, 0) + coalesce(u.cache_read_tokens, 0) + coalesce(u.cache_write_tokens, 0) > ${sql.unsafe(String(LONG_CONTEXT_THRESHOLD))}) AS long_context,
            coalesce(u.kind = 'response' AND u.speed = 'fast', false) AS fast,
            (u.kind = 'run' AND u.run_set_aside = 1) AS set_aside,
            u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.cache_write_1h_tokens, u.cost_usd
          FROM (${firstSeenUsageOf(sql, "pg", filter.sessionUids)}) u
          WHERE (u.first_seen = 1 OR (u.kind = 'run' AND u.run_set_aside = 1))
            ${filter.sessionUids !== undefined ? sql`AND u.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
            ${filter.provider !== undefined ? sql`AND u.provider = ${filter.provider}` : sql``}
            ${filter.machine !== undefined ? sql`AND u.source_machine = ${filter.machine}` : sql``}
            ${timeRangeSql(sql, "u.occurred_at", filter)}
            ${
        filter.workspace !== undefined
          ? workspaceSql(sql, "u.session_workspace", toPg(filter.workspace))
          : sql``
      }
        ) g
        GROUP BY group_key, kind, model, covered, has_responses, stated, long_context, fast, set_aside`).pipe(
        Effect.map((rows) =>
          rows.map((r): UsageGroup => ({
            group: filter.by === "model" || filter.by === "workspace" || filter.by === "response" || filter.by === "machine" ? fromPg(r.group_key) : r.group_key,
            kind: r.kind,
            model: fromPg(r.model),
            covered: r.covered,
            hasResponses: r.has_responses,
            stated: r.stated,
            longContext: r.long_context,
            fast: r.fast,
            setAside: r.set_aside,
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

    /** {@link IndexShape.usageElsewhere}: the copies {@link countedElsewhereUsage} finds, as the SQLite layer's. */
    const usageElsewhere = (filter: Omit<UsageFilter, "by">): Effect.Effect<ReadonlyArray<UsageElsewhere>, StoreUnavailable> =>
      fail(sql<{ session_uid: string; counted_in: string; counted_in_id: string; counted_in_provider: ProviderId; n: number }>`
        SELECT c.session_uid, c.counted_in, c.counted_in_id, min(c.counted_in_provider) AS counted_in_provider, count(*)::int AS n
        FROM (${countedElsewhereUsage(sql, "pg", filter.sessionUids)}) c
        WHERE TRUE
          ${filter.sessionUids !== undefined ? sql`AND c.session_uid IN ${sql.in(filter.sessionUids)}` : sql``}
          ${filter.provider !== undefined ? sql`AND c.provider = ${filter.provider}` : sql``}
          ${timeRangeSql(sql, "c.occurred_at", filter)}
          ${filter.workspace !== undefined ? workspaceSql(sql, "c.session_workspace", toPg(filter.workspace)) : sql``}
          ${
        filter.machine !== undefined
          ? sql`AND EXISTS (SELECT 1 FROM sessions ms JOIN sources mss ON mss.source_key = ms.source_key AND mss.generation = ms.generation
              WHERE ms.session_uid = c.session_uid AND mss.machine = ${filter.machine})`
          : sql``
      }
        GROUP BY c.session_uid, c.counted_in, c.counted_in_id
        ORDER BY c.session_uid, c.counted_in`).pipe(
        Effect.map((rows) => rows.map((r) => ({ sessionUid: r.session_uid, countedInUid: r.counted_in, countedInId: fromPg(r.counted_in_id), countedInProvider: r.counted_in_provider, responses: r.n })))
      )

    /**
     * The sources this layer imports a new generation of beside their complete one (`NextGeneration`): known from
     * `beginAttempt` and `beginGeneration`, which an import runs before a source's batches; its batches and its
     * completion then read and write the attempt (in their transaction, the row locked).
     */
    const nexts = new Set<string>()
    /** The source's row locked, with the new generation in progress beside it, if any. */
    const lockedNext = (key: string) =>
      Effect.map(
        sql<{ generation: number; attempt_json: string | null }>`SELECT generation, attempt_json FROM sources WHERE source_key = ${key} FOR UPDATE`,
        ([row]) => {
          const next = row === undefined ? undefined : nextGenerationOf(row.attempt_json, row.generation)
          return next === undefined ? undefined : { row, state: JSON.parse(row.attempt_json!) as AttemptState, next }
        }
      )

    const shape: IndexShape = {
      namesMachines: true,
      // always at the newest migration (a search reads only an index at it): its words are folded as this build folds
      searchFold: "current",
      machines: fail(sql<{ machine: string }>`SELECT DISTINCT machine FROM sources WHERE status <> 'rejected'`).pipe(
        Effect.map((rows) => rows.map((r) => r.machine))
      ),
      // Runs are not kept apart (each machine's sources are its own); a run that wrote many events refreshes the
      // planner's statistics when it ends ({@link refreshStatistics}).
      importRun: <A, E, R>(run: Effect.Effect<A, E, R>) =>
        Effect.tap(run, () =>
          Effect.suspend(() => {
            const n = written
            written = 0
            return refreshStatistics(sql, n)
          })),
      sourceKey: (provider, locator) => sourceKey(provider, locator, writer),

      // Full-text search (issue 17): the same query language as SQLite's, compiled to a `tsquery` over the words the
      // domain's tokenizer made of each document; ranked by ts_rank_cd among the newest RANK_WINDOW matches. The
      // `tsquery` is a bound parameter of the match itself (not a CTE's column): the planner then sees its words and
      // their frequency (the column's statistics), and for a common word walks the newest documents backwards until
      // the window is full, rather than fetching every match through the GIN index and sorting them (4 s for a word
      // in 60 % of 1,000,000 documents, against 30-60 ms); a rare word still goes through the GIN index. The query's
      // sieve (its phrases as words, its NOTs left out) tells the planner how few documents a phrase or a NOT can match;
      // its pairs (migration 0007) find a phrase's documents through the pairs' GIN index. With pairs, the words are
      // matched as a function (`ts_match_vq`, what `@@` is), which the planner cannot answer from the words' GIN index:
      // it would otherwise read that index for the phrase's common words too (100,000 entries, 180 ms for "value
      // file", whose pairs are in 9,000 documents) and AND it with the pairs'.
      //
      // Newest documents first (see `searchRounds`): the match is tried among the newest `firstWindow` documents, then
      // among as many as the matches found there say it takes, then among all; a round that finds the whole window of
      // matches is the answer (every document outside it is older than all of them), so the answer is the one query
      // over all documents would give. The GIN index reads the rows of every document it matches (to order and rank
      // them): 180,000 rows for two common words, against a few thousand among the newest.
      search: (query, filter) =>
        Effect.gen(function*() {
          const compiled = yield* compileTsQuery(query)
          const limit = Math.max(1, Math.min(filter.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT))
          const window = Math.max(RANK_WINDOW, limit)
          const facets = facetsNeed(sql, filter)
          const round = (after: number | null) =>
            fail(sql<{
              doc: number
              score: number
              found: number
              session_uid: string
              provider: string
              event_uid: string | null
              session_id: string
              title: string | null
              workspace: string | null
              machine: string | null
              event_json: string | null
              source_status: string
            }>`
            WITH matched AS (
              SELECT d.doc, d.words FROM search_docs d
              WHERE ${
              compiled.pairs === null
                ? sql`d.words @@ ${compiled.tsquery}::tsquery ${compiled.sieve === null ? sql`` : sql`AND d.words @@ ${compiled.sieve}::tsquery`}`
                : sql`${pairsSql(sql, compiled.pairs)} AND ts_match_vq(d.words, ${compiled.tsquery}::tsquery)`
            }
                ${after === null ? sql`` : sql`AND d.doc > ${after}`}
                ${facets ?? sql``}
                ${filter.machine !== undefined ? sql`AND d.source_key IN (SELECT source_key FROM sources WHERE TRUE ${machineSql(sql, "machine", filter.machine)})` : sql``}
                ${searchFilterSql(sql, { ...filter, session: toPg(filter.session), workspace: toPg(filter.workspace) }, { provider: "d.provider", kind: "d.kind", role: "d.role", occurredAt: "d.occurred_at", sessionUid: "d.session_uid" })}
              ORDER BY d.doc DESC LIMIT ${window}
            ),
            ranked AS (
              SELECT m.doc, -ts_rank_cd(m.words, ${compiled.tsquery}::tsquery, 1)::float8 AS score FROM matched m
              ORDER BY score, m.doc DESC LIMIT ${limit}
            ),
            found AS (SELECT count(*)::int AS found FROM matched)
            SELECT r.doc::float8 AS doc, r.score, f.found,
              d.session_uid, d.provider, d.event_uid, ss.session_id, ss.title, ss.workspace, s.machine, e.event_json, s.status AS source_status
            FROM found f
              LEFT JOIN (ranked r
                JOIN search_docs d ON d.doc = r.doc
                JOIN sources s ON s.source_key = d.source_key AND s.generation = d.generation AND s.status <> 'rejected'
                JOIN sessions ss ON ss.session_uid = d.session_uid AND ss.generation = d.generation
                LEFT JOIN events e ON e.source_key = d.source_key AND e.generation = d.generation AND e.event_uid = d.event_uid
              ) ON TRUE
            ORDER BY r.score, r.doc DESC`)
          const [newest] = yield* fail(sql<{ top: number | null }>`SELECT max(doc)::float8 AS top FROM search_docs`)
          const rows = yield* searchRounds(round, window, firstWindow, newest?.top ?? 0)
          const hits: Array<SearchHit> = []
          for (const d of rows) {
            if (d.session_uid === null) continue // the one row of a round that matched nothing
            const base = {
              sessionUid: d.session_uid,
              sessionId: fromPg(d.session_id),
              title: fromPg(d.title),
              provider: d.provider as ProviderId,
              workspace: fromPg(d.workspace),
              machine: d.machine,
              score: d.score,
              sessionStatus: sessionStatusOf(d.source_status)
            }
            hits.push(searchHitOf(compiled.tree, base, d.event_uid, d.event_json))
          }
          return hits
        }),

      // Tokens and cost (issue 18): the usage rows kept at import, grouped in SQL as the SQLite layer groups them.
      usage: (filter) =>
        filter.sessionUids !== undefined && filter.sessionUids.length === 0 ? Effect.succeed([]) : usageGroups(filter),

      usageElsewhere: (filter) =>
        filter.sessionUids !== undefined && filter.sessionUids.length === 0 ? Effect.succeed([]) : usageElsewhere(filter),

      eventsAround: (uid, id, before, after) =>
        Effect.gen(function*() {
          const current = sql`JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation`
          // The event by its index uid, else by its native event id within the session: that id's uid, computed here as the
          // import made it (from the session's provider, source id, native id and machine), as the SQLite layer does. Never
          // by casting the stored JSON to json/jsonb in SQL: it refuses a `\u0000` or a lone surrogate's escape, which
          // the event may hold (see `./pg-text.ts`).
          const [session] = yield* fail(sql<{ provider: string; source_id: string; session_id: string; machine: string }>`
            SELECT ss.provider, ss.source_id, ss.session_id, s.machine FROM sessions ss JOIN sources s ON s.source_key = ss.source_key
            WHERE ss.session_uid = ${uid} LIMIT 1`)
          if (session === undefined) return Option.none()
          const native = eventUid(session.provider as ProviderId, fromPg(session.source_id), fromPg(session.session_id), id, session.machine)
          const generations = yield* shownGenerations(uid)
          if (generations.length === 0) return Option.none()
          const [hit] = yield* fail(sql<{ sequence: number; event_uid: string; event_json: string }>`
            SELECT e.sequence, e.event_uid, e.event_json FROM events e ${current}
            WHERE e.session_uid = ${uid} AND e.generation IN ${sql.in(generations)} AND e.event_uid IN (${toPg(id)}, ${native})
            ORDER BY (e.event_uid = ${toPg(id)}) DESC LIMIT 1`)
          if (hit === undefined) return Option.none()
          // The neighbours by the row value (sequence, event_uid), as the SQLite layer asks: index ranges from the hit
          // in its generations (pages of the shown ones until `count` are read: a superseded generation's rows are skipped).
          const neighbours = (direction: "after" | "before", count: number) =>
            Effect.gen(function*() {
              const out: Array<{ event_json: string }> = []
              let from = { sequence: hit.sequence, eventUid: hit.event_uid }
              while (out.length < count) {
                const want = count - out.length
                const rows = yield* fail(sessionEventsPageSql(sql, uid, generations, from, direction, want))
                for (const r of rows) if (r.event_json !== null && out.length < count) out.push({ event_json: r.event_json })
                if (rows.length < want) break
                from = { sequence: rows[rows.length - 1].sequence, eventUid: rows[rows.length - 1].event_uid }
              }
              return out
            })
          const earlier = before <= 0 ? [] : yield* neighbours("before", before)
          const later = after <= 0 ? [] : yield* neighbours("after", after)
          const read = (r: { event_json: string }) => upgradeEvent(JSON.parse(r.event_json) as SessionEvent)
          const events = [...[...earlier].reverse().map(read), read(hit), ...later.map(read)]
          return Option.some({ events, at: earlier.length })
        }),

      checkpoint: (key) =>
        fail(sql<CheckpointRow>`SELECT ${sql.unsafe(checkpointColumns("overview_json"))} FROM sources WHERE source_key = ${key}`).pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => toCheckpoint(fromPgCheckpoint(r))))
        ),

      rejectionOf: (key) =>
        fail(sql<{ code: string | null; message: string | null }>`SELECT error_code AS code, error_message AS message FROM sources WHERE source_key = ${key}`).pipe(
          Effect.map(([r]) => r === undefined || r.code === null ? undefined : { code: fromPg(r.code), message: fromPg(r.message ?? "") })
        ),

      // One query for every checkpoint of this machine, its rows as arrays of values (the driver's array mode: no
      // object per row; an import reads them all).
      checkpoints: fail(sql`SELECT ${sql.unsafe(sourceCheckpointColumns)} FROM sources WHERE machine = ${writer}`.values).pipe(
        Effect.map((rows) => {
          const out = new Map<string, SourceCheckpoint>()
          for (const v of rows) {
            // cursor, fingerprint, source_id, prefix: plain text as written (see `./pg-text.ts`); a row without any as it is.
            const decoded = [3, 4, 9, 10].some((i) => typeof v[i] === "string" && (v[i] as string).includes("\uffff"))
              ? v.map((x, i) => (i === 3 || i === 4 || i === 9 || i === 10 ? fromPg(x as string | null) : x))
              : v
            out.set(v[0] as string, toSourceCheckpointOfValues(decoded))
          }
          return out as ReadonlyMap<string, SourceCheckpoint>
        })
      ),

      beginGeneration: (source, generation, reason) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          // A row holding a complete generation, within an attempt: the new generation is begun beside it (`NextGeneration`),
          // the row and what readers see left as they are; one begun before it and not completed (never shown) is superseded.
          const [held] = yield* sql<
            { generation: number; begun: boolean; status: string; attempt_json: string | null; prefix: string | null; source_id: string | null }
          >`
            SELECT s.generation, EXISTS (SELECT 1 FROM generations g WHERE g.source_key = s.source_key AND g.generation = ${generation}
                                         AND g.superseded_at IS NULL) AS begun, s.status, s.attempt_json, s.prefix, s.source_id
            FROM sources s WHERE s.source_key = ${source.sourceKey} FOR UPDATE`
          if (held !== undefined && held.attempt_json !== null && held.status === "complete" && generation > held.generation) {
            const state = JSON.parse(held.attempt_json) as AttemptState
            const prior = nextGenerationOf(held.attempt_json, held.generation)
            // Another import began this generation (or a later one) since this one read the checkpoints: it stands.
            if (prior !== undefined && prior.generation >= generation) return
            const at = now()
            if (prior !== undefined) {
              yield* sql`UPDATE generations SET superseded_at = ${at}, superseded_reason = ${toPg(reason)}
                         WHERE source_key = ${source.sourceKey} AND generation = ${prior.generation} AND superseded_at IS NULL`
              yield* sql`DELETE FROM search_docs WHERE source_key = ${source.sourceKey} AND generation = ${prior.generation}`
            }
            yield* sql`INSERT INTO generations (source_key, generation, started_at) VALUES (${source.sourceKey}, ${generation}, ${at})
                       ON CONFLICT DO NOTHING`
            const next: NextGeneration = {
              generation,
              reason,
              cursor: null,
              cursorSeq: null,
              prefix: prior !== undefined ? prior.prefix : held.prefix === null ? null : fromPg(held.prefix),
              sourceId: prior !== undefined ? prior.sourceId : held.source_id === null ? null : fromPg(held.source_id),
              eventCount: 0
            }
            yield* sql`UPDATE sources SET attempt_json = ${JSON.stringify({ ...state, next })}
                       WHERE source_key = ${source.sourceKey}`
            nexts.add(source.sourceKey)
            return
          }
          yield* upsertSource(source, generation, "importing")
          // The row as locked above (none: the upsert made it, at this generation).
          const row = held ?? { generation, begun: false }
          // Another import began this generation (or a later one) since this one read the checkpoints: it stands.
          if (row.generation > generation || (row.generation === generation && row.begun)) return
          // One statement (one round trip): the older generations superseded, their search documents gone (a superseded
          // generation's events leave the search results), the new generation begun and the checkpoint reset. Its parts
          // touch rows disjoint from each other's, so running them on one snapshot is running them in turn.
          const at = now()
          yield* sql`WITH superseded AS (
                       UPDATE generations SET superseded_at = ${at}, superseded_reason = ${toPg(reason)}
                       WHERE source_key = ${source.sourceKey} AND generation < ${generation} AND superseded_at IS NULL
                     ), unsearched AS (
                       DELETE FROM search_docs WHERE source_key = ${source.sourceKey} AND generation < ${generation}
                     ), begun AS (
                       INSERT INTO generations (source_key, generation, started_at) VALUES (${source.sourceKey}, ${generation}, ${at})
                       ON CONFLICT DO NOTHING
                     )
                     UPDATE sources SET generation = ${generation}, cursor = NULL, cursor_seq = NULL, fingerprint = NULL, status = 'importing',
                       error_code = NULL, error_message = NULL, event_count = 0, origin = NULL, updated_at = ${at}
                     WHERE source_key = ${source.sourceKey}`
        }))),

      beginAttempt: (source) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO sources (source_key, machine, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
                     VALUES (${source.sourceKey}, ${writer}, ${source.provider}, ${JSON.stringify(source.locator)}, ${JSON.stringify(source.summary)},
                             ${JSON.stringify(source.overview)}, 0, 'importing', ${now()})
                     ON CONFLICT (source_key) DO NOTHING`
          // The attempt recorded with the row it began from, in one statement (one round trip) that locks the row: an
          // attempt already in progress (a killed run's) is kept; a source this attempt created has no row to go back to.
          // With it the base generation's sessions as they are now (`AttemptState.sessions`), for a rollback to put back
          // the titles and workspaces a batch of the attempt rewrites.
          const [row] = yield* sql<{ attempt_json: string; generation: number }>`
            UPDATE sources SET attempt_json = coalesce(attempt_json, json_build_object(
              'attempt', ${randomInt(1, 2 ** 31 - 1)}::int,
              'base', CASE WHEN generation = 0 AND status = 'importing' AND event_count = 0
                             AND NOT EXISTS (SELECT 1 FROM generations g WHERE g.source_key = sources.source_key)
                        THEN NULL
                        ELSE json_build_object(${sql.unsafe(BASE_COLUMNS.map((c) => `'${c}', ${c}`).join(", "))}) END,
              'sessions', (SELECT json_agg(json_build_array(ss.session_uid, ss.title, ss.workspace) ORDER BY ss.session_uid)
                           FROM sessions ss WHERE ss.source_key = sources.source_key AND ss.generation = sources.generation)
            )::text)
            WHERE source_key = ${source.sourceKey}
            RETURNING attempt_json, generation`
          if (nextGenerationOf(row.attempt_json, row.generation) !== undefined) nexts.add(source.sourceKey)
          else nexts.delete(source.sourceKey)
          return (JSON.parse(row.attempt_json) as AttemptState).attempt
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
            if (uid === undefined) sessionUids.set(k, uid = sessionUid(e.provider, e.sourceId, e.sessionId, writer))
            return uid
          }
          const rows = events.map((e: SessionEvent) => ({
            source_key: key,
            generation,
            event_uid: eventUid(e.provider, e.sourceId, e.sessionId, e.eventId, writer),
            session_uid: sessionUidOf(e),
            provider: e.provider,
            source_id: toPg(e.sourceId),
            session_id: toPg(e.sessionId),
            sequence: e.sequence,
            kind: e.kind,
            occurred_at: e.occurredAt,
            event_json: JSON.stringify(e),
            attempt: batch.attempt ?? null
          }))
          const identity = new Map(rows.map((r) => [r.session_uid, r]))
          const eventOf = new Map(rows.map((r, i) => [r.event_uid, events[i]]))
          const half = Math.ceil(rows.length / 2)
          // The source's title is its own session's (not a subagent's in the same file); the workspace is every session's.
          const { workspace } = source.overview
          const titleOf = (sessionId: string) =>
            source.overview.sessionId === null || source.overview.sessionId === sessionId
        ? source.overview.title
        : source.overview.sessionTitles?.[sessionId] ?? null
          const cursorEvent = batch.resumeCursor === undefined
            ? events[events.length - 1]
            : batch.resumeCursor === null
            ? undefined
            : events.find((e) => e.cursor === batch.resumeCursor)
          const cursor = batch.resumeCursor === undefined ? events[events.length - 1].cursor : batch.resumeCursor
          const cursorSeq = cursorEvent?.sequence ?? null
          const insertEvents = (slice: typeof rows) =>
            Effect.gen(function*() {
              const added: Array<{ event_uid: string; session_uid: string; occurred_at: string | null }> = []
              for (let i = 0; i < slice.length; i += EVENT_ROWS_PER_INSERT) {
                // Each column one array parameter, the rows made by `unnest` (see `insertEventDocs`); key, generation and attempt
                // are the batch's. The search documents go in by the same statement (one round trip), for the events it
                // actually inserted only (another import's are its own): the words of every row are sent, the documents of
                // the rows `RETURNING` names are kept.
                const part = slice.slice(i, i + EVENT_ROWS_PER_INSERT)
                const col = <K extends keyof (typeof part)[number]>(k: K) => part.map((r) => r[k])
                const docs = part.map((r) => eventDoc(key, generation, r.event_uid, r.session_uid, eventOf.get(r.event_uid)!))
                added.push(
                  ...(yield* sql<{ event_uid: string; session_uid: string; occurred_at: string | null }>`
                    WITH ins AS (
                      INSERT INTO events (source_key, generation, event_uid, session_uid, provider, source_id, session_id, sequence, kind,
                                          occurred_at, event_json, attempt)
                      SELECT ${key}, ${generation}::int, u.*, ${batch.attempt ?? null}::int
                      FROM unnest(${col("event_uid")}::text[], ${col("session_uid")}::text[], ${col("provider")}::text[],
                                  ${col("source_id")}::text[], ${col("session_id")}::text[], ${col("sequence")}::int[], ${col("kind")}::text[],
                                  ${col("occurred_at")}::text[], ${col("event_json")}::text[])
                        AS u(event_uid, session_uid, provider, source_id, session_id, sequence, kind, occurred_at, event_json)
                      ON CONFLICT DO NOTHING RETURNING event_uid, session_uid, occurred_at
                    ), docs AS (
                      INSERT INTO search_docs (${sql.unsafe(DOC_COLUMNS)})
                      SELECT ${key}, ${generation}::int, ins.session_uid, ins.event_uid, NULL, w.provider, w.kind, w.role, ins.occurred_at, w.words
                      FROM ins JOIN unnest(${docs.map((d) => d.event_uid)}::text[], ${docs.map((d) => d.provider)}::text[],
                                           ${docs.map((d) => d.kind)}::text[], ${docs.map((d) => d.role)}::text[], ${docs.map((d) => d.words)}::tsvector[])
                        AS w(event_uid, provider, kind, role, words) ON w.event_uid = ins.event_uid
                      ON CONFLICT DO NOTHING
                    )
                    SELECT event_uid, session_uid, occurred_at FROM ins`)
                )
              }
              return added
            })
          return yield* sql.withTransaction(Effect.gen(function*() {
            // RETURNING yields only the rows actually inserted (another import may hold the rest),
            // so the sessions below grow by exactly what this transaction added.
            const added = yield* insertEvents(rows.slice(0, half))
            yield* onPoint("mid-batch")
            if (half < rows.length) added.push(...(yield* insertEvents(rows.slice(half))))
            const bySession = new Map<string, { event_count: number; first_at: string | null; last_at: string | null }>()
            for (const r of added) {
              const a = bySession.get(r.session_uid) ?? { event_count: 0, first_at: null, last_at: null }
              a.event_count++
              if (r.occurred_at !== null) {
                a.first_at = earliestOf(a.first_at, r.occurred_at)
                a.last_at = latestOf(a.last_at, r.occurred_at)
              }
              bySession.set(r.session_uid, a)
            }
            const sessionRows = [...bySession].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([uid, a]) => {
              const id = identity.get(uid)!
              return {
                session_uid: uid,
                generation,
                source_key: key,
                provider: id.provider,
                session_id: id.session_id,
                source_id: id.source_id,
                ...a,
                title: titleOf(fromPg(id.session_id)),
                workspace: toPg(workspace)
              }
            })
            // The batch's usage rows (all its events: a row another import wrote is written alike).
            const eventUids = new Map(rows.map((r, i) => [events[i], r.event_uid]))
            yield* upsertUsage(sql, key, generation, events, sessionUidOf, (e) => eventUids.get(e)!)
            // The checkpoint moves only forward within its generation (imports running at once each move it).
            const forward = sql`(generation = ${generation} AND ${cursor}::text IS NOT NULL
                                 AND (cursor_seq IS NULL OR ${cursorSeq}::int IS NULL OR ${cursorSeq}::int >= cursor_seq))`
            const checkpoint = sql`UPDATE sources SET
                         cursor = CASE WHEN ${forward} THEN ${toPg(cursor)} ELSE cursor END,
                         cursor_seq = CASE WHEN ${forward} THEN ${cursorSeq}::int ELSE cursor_seq END,
                         source_id = coalesce(source_id, ${toPg(events[0].sourceId)}),
                         prefix = ${batch.prefix === undefined ? sql`prefix` : sql`CASE WHEN ${forward} THEN ${toPg(batch.prefix)}::text ELSE prefix END`},
                         event_count = event_count + CASE WHEN generation = ${generation} THEN ${added.length}::int ELSE 0 END,
                         updated_at = ${now()}
                       WHERE source_key = ${key}`
            let sessionsAdded = 0
            if (sessionRows.length === 0) {
              yield* checkpoint
            } else {
              // One statement (one round trip) for the batch's sessions, their titles' search documents (a changed title's
              // words replace the old ones, a title gone takes its document) and the checkpoint: its parts write rows
              // disjoint from each other's, and a title's document finds its session row, inserted by the same
              // statement, when its foreign key is checked at the statement's end. A session row this transaction
              // created holds exactly its count.
              const titled = sessionRows.filter((r) => r.title !== null).map((r) => titleDoc(key, generation, r.session_uid, r.provider, r.title!))
              const untitled = sessionRows.filter((r) => r.title === null).map((r) => r.session_uid)
              const after = yield* sql<{ session_uid: string; event_count: number; known: boolean }>`
                WITH upserted AS (
                  INSERT INTO sessions ${sql.insert(sessionRows.map((r) => ({ ...r, title: toPg(r.title) })))}
                  ON CONFLICT (session_uid, generation) DO UPDATE SET
                    event_count = sessions.event_count + excluded.event_count,
                    first_at = ${sql.unsafe(extremeTimeSql("sessions.first_at", "excluded.first_at", "earliest"))},
                    last_at = ${sql.unsafe(extremeTimeSql("sessions.last_at", "excluded.last_at", "latest"))},
                    title = excluded.title, workspace = excluded.workspace
                  RETURNING session_uid, event_count
                ), titles AS (
                  INSERT INTO search_docs (${sql.unsafe(DOC_COLUMNS)})
                  SELECT ${key}, ${generation}::int, t.uid, NULL, t.uid, t.provider, NULL, NULL, NULL, t.words
                  FROM unnest(${titled.map((d) => d.title_of)}::text[], ${titled.map((d) => d.provider)}::text[],
                              ${titled.map((d) => d.words)}::tsvector[]) AS t(uid, provider, words)
                  ON CONFLICT (title_of, generation) DO UPDATE SET words = excluded.words, provider = excluded.provider
                    WHERE search_docs.words IS DISTINCT FROM excluded.words OR search_docs.provider IS DISTINCT FROM excluded.provider
                ), untitled AS (
                  DELETE FROM search_docs WHERE title_of = ANY(${untitled}::text[]) AND generation = ${generation}
                ), checkpoint AS (${checkpoint})
                SELECT u.session_uid, u.event_count,
                       EXISTS (SELECT 1 FROM sessions s WHERE s.session_uid = u.session_uid AND s.generation <> ${generation}::int) AS known
                FROM upserted u`
              // A session another generation holds (a new generation of a session in the index) is no session added
              // (tester32a F1); asked in the same statement, as the batch's round trips are budgeted (pg-reimport-queries:
              // at most 15 a source). The statement's snapshot is the one before it: the other generations' rows.
              sessionsAdded = after.filter((r) => r.event_count === bySession.get(r.session_uid)?.event_count && !r.known).length
            }
            if (nexts.has(key)) {
              // A new generation in progress beside the complete one: its checkpoint moves, in the attempt.
              const held = yield* lockedNext(key)
              if (held !== undefined && held.next.generation === generation) {
                const next = nextAfterBatch(held.next, { cursor, cursorSeq, sourceId: events[0].sourceId, prefix: batch.prefix, added: added.length })
                yield* sql`UPDATE sources SET attempt_json = ${JSON.stringify({ ...held.state, next })}, updated_at = ${now()} WHERE source_key = ${key}`
              }
            }
            yield* onPoint("before-commit")
            return { events: added.length, sessions: sessionsAdded }
          })).pipe(
            fail,
            Effect.tap((r) => {
              written += r.events
            }),
            Effect.tap(() => onPoint("after-commit"))
          )
        }),

      completeSource: (source, fingerprint, read) => {
        const key = source.sourceKey
        // The titles of the source's current sessions as its completed read gives them (tester33a F3), in the same statement.
        const retitle = retitleCte(sql, [{ key, overview: source.overview }])
        const complete = sql`${retitle ?? sql``}UPDATE sources SET fingerprint = ${fingerprint}, status = 'complete', error_code = NULL, error_message = NULL,
                   parts_json = ${read?.parts === undefined || Object.keys(read.parts).length === 0 ? null : JSON.stringify(read.parts)},
                   diagnostics_json = ${read?.diagnostics === undefined || read.diagnostics.length === 0 ? null : JSON.stringify(read.diagnostics)},
                   attempt_json = NULL, summary_json = ${JSON.stringify(source.summary)},
                   overview_json = ${JSON.stringify(source.overview)}, updated_at = ${now()}
                 WHERE source_key = ${key}`
        // The common case: one statement (one round trip).
        if (!nexts.delete(key)) return fail(complete).pipe(Effect.asVoid)
        return fail(sql.withTransaction(Effect.gen(function*() {
          // A new generation read to its end (`NextGeneration`): it becomes current in this transaction, the older ones
          // superseded with its reason and their search documents gone.
          const held = yield* lockedNext(key)
          if (held !== undefined) {
            const { next } = held
            yield* sql`UPDATE generations SET superseded_at = ${now()}, superseded_reason = ${toPg(next.reason)}
                       WHERE source_key = ${key} AND generation < ${next.generation} AND superseded_at IS NULL`
            yield* sql`DELETE FROM search_docs WHERE source_key = ${key} AND generation < ${next.generation}`
            yield* sql`UPDATE sources SET generation = ${next.generation}, cursor = ${toPg(next.cursor)}, cursor_seq = ${next.cursorSeq}::int,
                         source_id = ${toPg(next.sourceId)}, prefix = ${toPg(next.prefix)}, event_count = ${next.eventCount}::int, origin = NULL
                       WHERE source_key = ${key}`
          }
          yield* complete
        })))
      },

      rejectSource: (source, code, message) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          const key = source.sourceKey
          nexts.delete(key)
          const [row] = yield* sql<{ attempt_json: string | null }>`SELECT attempt_json FROM sources WHERE source_key = ${key} FOR UPDATE`
          const state = row?.attempt_json != null ? JSON.parse(row.attempt_json) as AttemptState : undefined
          const base = state === undefined ? undefined : state.base
          if (base === undefined && row !== undefined) {
            yield* sql`UPDATE sources SET status = CASE WHEN event_count = 0 THEN 'rejected' ELSE status END, fingerprint = NULL,
                         error_code = ${toPg(code)}, error_message = ${toPg(message)}, updated_at = ${now()} WHERE source_key = ${key}`
            return
          }
          if (base === undefined || base === null) {
            // Never imported before this attempt: nothing of it stays.
            yield* sql`DELETE FROM events WHERE source_key = ${key}`
            yield* sql`DELETE FROM usage WHERE source_key = ${key}`
            yield* sql`DELETE FROM sessions WHERE source_key = ${key}`
            yield* sql`DELETE FROM generations WHERE source_key = ${key}`
            yield* upsertSource(source, 0, "rejected")
            yield* sql`UPDATE sources SET generation = 0, cursor = NULL, cursor_seq = NULL, fingerprint = NULL, status = 'rejected', event_count = 0,
                         source_id = NULL, prefix = NULL, parts_json = NULL, diagnostics_json = NULL, attempt_json = NULL, origin = NULL,
                         error_code = ${toPg(code)}, error_message = ${toPg(message)}, updated_at = ${now()}
                       WHERE source_key = ${key}`
            return
          }
          // Back to the checkpoint the attempt began from (as the SQLite layer), the session aggregates recounted in one statement.
          const gen = base.generation as number
          yield* sql`DELETE FROM events WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM generations WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`UPDATE generations SET superseded_at = NULL, superseded_reason = NULL WHERE source_key = ${key} AND generation = ${gen}`
          const touched = yield* sql<{ session_uid: string }>`
            WITH removed AS (
              DELETE FROM events WHERE source_key = ${key} AND generation = ${gen} AND attempt = ${state!.attempt} RETURNING session_uid
            ), touched AS (SELECT DISTINCT session_uid FROM removed)
            UPDATE sessions ss SET event_count = ss.event_count - (SELECT count(*)::int FROM removed r WHERE r.session_uid = ss.session_uid)
            FROM touched t WHERE ss.session_uid = t.session_uid AND ss.generation = ${gen}
            RETURNING ss.session_uid`
          // The usage rows as the events that stay make them (a response's last usage may have been one the attempt added).
          for (const t of touched) yield* rebuildUsage(sql, key, gen, t.session_uid)
          yield* sql`
            UPDATE sessions ss SET
              first_at = (SELECT occurred_at FROM events e WHERE e.session_uid = ss.session_uid AND e.generation = ss.generation
                            AND occurred_at IS NOT NULL ORDER BY ${sql.unsafe(sortKeySql("occurred_at"))} LIMIT 1),
              last_at = (SELECT occurred_at FROM events e WHERE e.session_uid = ss.session_uid AND e.generation = ss.generation
                           AND occurred_at IS NOT NULL ORDER BY ${sql.unsafe(sortKeySql("occurred_at"))} DESC LIMIT 1)
            WHERE ss.source_key = ${key} AND ss.generation = ${gen}`
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation = ${gen} AND event_count <= 0`
          yield* sql`UPDATE sources SET generation = ${base.generation}, cursor = ${base.cursor}, cursor_seq = ${base.cursor_seq}::int,
                       fingerprint = ${base.fingerprint}, status = ${base.status}, event_count = ${base.event_count}::int,
                       source_id = ${base.source_id}, prefix = ${base.prefix}, parts_json = ${base.parts_json},
                       diagnostics_json = ${base.diagnostics_json}, error_code = ${toPg(code)}, error_message = ${toPg(message)},
                       attempt_json = NULL, origin = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
          // The generation the attempt had superseded is current again: its search documents come back
          // (the attempt's own went with its events and sessions, by the foreign keys).
          if (base.status !== "rejected" && base.status !== "superseded") {
            const [kept] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM search_docs WHERE source_key = ${key} AND generation = ${gen}`
            if (kept.n === 0) yield* indexDocs(sql, { key, generation: gen })
          }
          // The sessions that stay take back the title and workspace the attempt found (a batch writes them as the read
          // gives them: a title first read in the part now rejected), the title's search document with it.
          yield* restoreSessions(sql, key, gen, state!.sessions, base.status !== "rejected" && base.status !== "superseded")
        }))),

      discardGeneration: (key) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          nexts.delete(key)
          const held = yield* lockedNext(key)
          if (held === undefined) return
          // What the new generations begun beside the complete one hold goes (their search documents with their events
          // and sessions, by the foreign keys); the complete one, never superseded, stays as it is.
          const gen = held.row.generation
          yield* sql`DELETE FROM events WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM usage WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM sessions WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`DELETE FROM generations WHERE source_key = ${key} AND generation > ${gen}`
          yield* sql`UPDATE sources SET attempt_json = NULL, updated_at = ${now()} WHERE source_key = ${key}`
        }))),

      supersedeSource: (key, reason) =>
        fail(sql.withTransaction(Effect.gen(function*() {
          nexts.delete(key)
          const [found] = yield* sql<{ generation: number; attempt_json: string | null }>`
            SELECT generation, attempt_json FROM sources WHERE source_key = ${key} FOR UPDATE`
          if (found === undefined) return
          // Past a new generation in progress too (`NextGeneration`): superseded with the rest, the empty one after it.
          const row = { generation: nextGenerationOf(found.attempt_json, found.generation)?.generation ?? found.generation }
          yield* sql`UPDATE generations SET superseded_at = ${now()}, superseded_reason = ${toPg(reason)}
                     WHERE source_key = ${key} AND generation <= ${row.generation} AND superseded_at IS NULL`
          yield* sql`DELETE FROM search_docs WHERE source_key = ${key} AND generation <= ${row.generation}`
          yield* sql`UPDATE sources SET generation = ${row.generation + 1}, cursor = NULL, cursor_seq = NULL, fingerprint = NULL,
                       status = 'superseded', event_count = 0, source_id = NULL, prefix = NULL, parts_json = NULL, diagnostics_json = NULL,
                       attempt_json = NULL, error_code = NULL, error_message = NULL, origin = NULL, updated_at = ${now()}
                     WHERE source_key = ${key}`
        }))),

      sessions: (filter) =>
        fail(sql<SessionDbRow>`
          SELECT ${SESSION_COLUMNS}
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE s.status <> 'rejected'
            ${filter.provider !== undefined ? sql`AND ss.provider = ${filter.provider}` : sql``}
            ${filter.sourceKey !== undefined ? sql`AND ss.source_key = ${filter.sourceKey}` : sql``}
            ${timeRangeSql(sql, "ss.last_at", { since: filter.since })}
            ${timeRangeSql(sql, "ss.first_at", { until: filter.until })}
            ${statusSql(sql, filter.status)}
            ${filter.machine !== undefined ? machineSql(sql, "s.machine", filter.machine) : sql``}
            ${
          filter.workspace !== undefined
            ? workspaceSql(sql, "ss.workspace", toPg(filter.workspace))
            : sql``
        }
          ORDER BY ss.last_at IS NULL, ${sql.unsafe(sortKeySql("ss.last_at"))} DESC, ss.session_uid
          ${filter.limit !== undefined ? sql`LIMIT ${filter.limit}` : sql``}`).pipe(Effect.map((rows) => rows.map(sessionRowOf))),

      findSessions: (id) =>
        fail(sql<SessionDbRow>`
          SELECT ${SESSION_COLUMNS}
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE (ss.session_uid = ${toPg(id)} OR ss.session_id = ${toPg(id)}) AND s.status <> 'rejected'
          ORDER BY ${sql.unsafe(sortKeySql("ss.last_at"))} DESC NULLS LAST, ss.session_uid`).pipe(Effect.map((rows) => rows.map(sessionRowOf))),

      findSessionsByPrefix: (prefix, max) =>
        prefix.length === 0
          ? Effect.succeed([])
          : fail(sql<SessionDbRow>`
          SELECT ${SESSION_COLUMNS}
          FROM sessions ss JOIN sources s ON s.source_key = ss.source_key AND s.generation = ss.generation
          WHERE left(ss.session_uid, ${[...toPg(prefix)].length}) = ${toPg(prefix)} OR left(ss.session_id, ${[...toPg(prefix)].length}) = ${toPg(prefix)}
          ORDER BY ss.last_at IS NULL, ${sql.unsafe(sortKeySql("ss.last_at"))} DESC, ss.session_uid
          LIMIT ${max}`).pipe(Effect.map((rows) => rows.map(sessionRowOf))),

      events: (uid) => Effect.map(Stream.runCollect(eventsStream(uid, 10_000)), Chunk.toArray),

      sessionBytes: (uid) =>
        fail(sql<{ bytes: number }>`
          SELECT coalesce(sum(length(e.event_json)), 0)::float8 AS bytes FROM events e
            JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
          WHERE e.session_uid = ${uid}`).pipe(Effect.map((rows) => rows[0]?.bytes ?? 0)),

      eventsStream,

      shownIdKey: fail(sql<{ value: Uint8Array }>`SELECT value FROM meta WHERE key = ${SHOWN_KEY_NAME}`).pipe(
        Effect.map((rows) => (rows[0] === undefined ? null : new Uint8Array(rows[0].value)))
      ),

      counts: fail(
        sql<{ sources: number; sessions: number; events: number }>`
          SELECT (SELECT count(*)::int FROM sources) AS sources, (SELECT count(*)::int FROM sessions) AS sessions,
                 (SELECT count(*)::int FROM events) AS events`
      ).pipe(Effect.map((r) => r[0])),

      dump: fail(Effect.all({
        sources: sql`SELECT source_key, provider, locator_json, source_id, generation, cursor, fingerprint, status, error_code, event_count,
                            prefix, parts_json, diagnostics_json
                     FROM sources ORDER BY source_key`,
        generations: sql`SELECT source_key, generation, (superseded_at IS NOT NULL)::int AS superseded FROM generations ORDER BY source_key, generation`,
        events: sql`SELECT source_key, generation, event_uid, session_uid, sequence, kind, occurred_at, event_json
                    FROM events ORDER BY source_key, generation, event_uid`,
        sessions: sql`SELECT session_uid, generation, source_key, provider, session_id, source_id, first_at, last_at, event_count, title, workspace
                      FROM sessions ORDER BY session_uid, generation`
      }))
    }
    return shape
  })

/**
 * Layer: the index in the PostgreSQL database at `options.url`, writing for
 * `options.machine` (an import's sources are keyed by it). Never changes the
 * schema: fails with `StoreUnavailable` when the server cannot be reached
 * (host and port named; reason `unreachable`), refuses the login, has no such
 * database, or when the schema is missing or not this build's (reason
 * `schema-outdated` / `schema-newer`; remedy: `session-ingest index migrate`).
 */
export const layer = (options: PgIndexOptions): Layer.Layer<Index, StoreUnavailable> =>
  Layer.scoped(
    Index,
    Effect.gen(function*() {
      const target = targetOf(options.url)
      const conn = yield* connect(options.url, target, options.maxConnections)
      return yield* make(target, conn, options.machine, options.searchWindow)
    })
  )

/** A generation a push starts in the team index ({@link pushWriter}'s `beginGenerations`). */
export interface GenerationStart {
  readonly source: SourceInfo
  readonly generation: number
  /** Why the older generations are superseded. */
  readonly reason: string
  /** The local generation it is filled from (`sources.origin`, migration 0005). */
  readonly origin: string
}

/** Events of one source generation a push commits ({@link pushWriter}'s `commit`). */
export interface SourceEvents {
  readonly source: SourceInfo
  readonly generation: number
  readonly events: ReadonlyArray<SessionEvent>
}

/** A checkpoint a push gives a team index source ({@link pushWriter}'s `commit`): the local index's columns as they are. */
export interface CheckpointTake {
  readonly sourceKey: string
  readonly generation: number
  readonly cursor: string | null
  readonly fingerprint: string | null
  readonly status: string
  readonly sourceId: string | null
  readonly prefix: string | null
  readonly partsJson: string | null
  readonly diagnosticsJson: string | null
  readonly summaryJson: string
  readonly overviewJson: string | null
  readonly errorCode: string | null
  readonly errorMessage: string | null
  /** Taken only when the team index holds this many events of the generation (null: whatever it holds). */
  readonly eventCount: number | null
  /** The local generation the team's generation now holds (`sources.origin`, migration 0005). */
  readonly origin: string
}

/**
 * Set-based writes of many sources at once, for `push` (`./push.ts`): the
 * round trips of a call do not grow with its number of sources. Each call is
 * one transaction (retried whole by {@link guard} on a deadlock); rows are
 * locked in source key order. Same rows as the {@link Index} operations one
 * source at a time (`beginGeneration`, `commitBatch` with no cursor, the
 * checkpoint update a push makes), and the same rules under imports running
 * at once: a generation another import began stands, events go in with
 * `ON CONFLICT DO NOTHING`, sessions grow by what was actually inserted.
 */
export const pushWriter = (sql: SqlClient.SqlClient, writer: string) => {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  /**
   * Start generations (each source's older ones superseded with its reason,
   * their search documents removed), unless another import began that
   * generation or a later one since the caller read the checkpoints.
   */
  const beginGenerations = (starts: ReadonlyArray<GenerationStart>) =>
    starts.length === 0 ? Effect.void : sql.withTransaction(Effect.gen(function*() {
      const sorted = [...starts].sort((a, b) => cmp(a.source.sourceKey, b.source.sourceKey))
      const col = <A>(f: (s: GenerationStart) => A) => sorted.map(f)
      const at = now()
      yield* sql`INSERT INTO sources (source_key, machine, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
        SELECT u.k, ${writer}, u.p, u.l, u.s, u.o, u.g, 'importing', ${at}
        FROM unnest(${col((s) => s.source.sourceKey)}::text[], ${col((s) => s.source.provider)}::text[],
                    ${col((s) => JSON.stringify(s.source.locator))}::text[], ${col((s) => JSON.stringify(s.source.summary))}::text[],
                    ${col((s) => JSON.stringify(s.source.overview))}::text[], ${col((s) => s.generation)}::int[]) AS u(k, p, l, s, o, g)
        ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
          overview_json = excluded.overview_json, updated_at = excluded.updated_at`
      const rows = yield* sql<{ source_key: string; generation: number; begun: boolean }>`
        SELECT s.source_key, s.generation, EXISTS (SELECT 1 FROM generations g WHERE g.source_key = s.source_key AND g.generation = u.g
                                                   AND g.superseded_at IS NULL) AS begun
        FROM sources s JOIN unnest(${col((s) => s.source.sourceKey)}::text[], ${col((s) => s.generation)}::int[]) AS u(k, g) ON s.source_key = u.k
        ORDER BY s.source_key FOR UPDATE OF s`
      const found = new Map(rows.map((r) => [r.source_key, r]))
      // Another import began this generation (or a later one) since the push read the checkpoints: it stands.
      const todo = sorted.filter((s) => {
        const r = found.get(s.source.sourceKey)
        return r !== undefined && !(r.generation > s.generation || (r.generation === s.generation && r.begun))
      })
      if (todo.length === 0) return
      const keys = todo.map((s) => s.source.sourceKey), gens = todo.map((s) => s.generation), reasons = todo.map((s) => toPg(s.reason))
      const origins = todo.map((s) => s.origin)
      yield* sql`UPDATE generations g SET superseded_at = ${at}, superseded_reason = u.r
                 FROM unnest(${keys}::text[], ${gens}::int[], ${reasons}::text[]) AS u(k, n, r)
                 WHERE g.source_key = u.k AND g.generation < u.n AND g.superseded_at IS NULL`
      // A superseded generation's events leave the search results.
      yield* sql`DELETE FROM search_docs d USING unnest(${keys}::text[], ${gens}::int[]) AS u(k, n)
                 WHERE d.source_key = u.k AND d.generation < u.n`
      yield* sql`INSERT INTO generations (source_key, generation, started_at)
                 SELECT u.k, u.n, ${at} FROM unnest(${keys}::text[], ${gens}::int[]) AS u(k, n) ON CONFLICT DO NOTHING`
      yield* sql`UPDATE sources s SET generation = u.n, cursor = NULL, cursor_seq = NULL, fingerprint = NULL, status = 'importing',
                   error_code = NULL, error_message = NULL, event_count = 0, origin = u.o, updated_at = ${at}
                 FROM unnest(${keys}::text[], ${gens}::int[], ${origins}::text[]) AS u(k, n, o) WHERE s.source_key = u.k`
    }))

  /**
   * Commit the events of many source generations and give sources their
   * checkpoints, in one transaction: events and their search documents by
   * `unnest` (slices of {@link EVENT_ROWS_PER_INSERT} rows, whatever their
   * sources), sessions, titles, usage, event counts and checkpoints each one
   * statement. Answers the events and sessions added, and the keys whose
   * checkpoint was taken (one whose `eventCount` the team index does not hold
   * is not).
   */
  const commit = (parts: ReadonlyArray<SourceEvents>, takes: ReadonlyArray<CheckpointTake>) =>
    sql.withTransaction(Effect.gen(function*() {
      type Row = {
        source_key: string
        generation: number
        event_uid: string
        session_uid: string
        provider: string
        source_id: string
        session_id: string
        sequence: number
        kind: string
        occurred_at: string | null
        event_json: string
      }
      const sorted = [...parts].filter((p) => p.events.length > 0).sort((a, b) => cmp(a.source.sourceKey, b.source.sourceKey))
      const rows: Array<Row> = []
      const eventOf: Array<SessionEvent> = []
      const partOf: Array<SourceEvents> = []
      for (const p of sorted) {
        for (const e of p.events) {
          rows.push({
            source_key: p.source.sourceKey,
            generation: p.generation,
            event_uid: eventUid(e.provider, e.sourceId, e.sessionId, e.eventId, writer),
            session_uid: sessionUid(e.provider, e.sourceId, e.sessionId, writer),
            provider: e.provider,
            source_id: toPg(e.sourceId),
            session_id: toPg(e.sessionId),
            sequence: e.sequence,
            kind: e.kind,
            occurred_at: e.occurredAt,
            event_json: JSON.stringify(e)
          })
          eventOf.push(e)
          partOf.push(p)
        }
      }
      const rowKey = (k: string, g: number, uid: string) => `${k}\u0000${g}\u0000${uid}`
      const index = new Map(rows.map((r, i) => [rowKey(r.source_key, r.generation, r.event_uid), i]))
      const added: Array<{ source_key: string; generation: number; event_uid: string; session_uid: string; occurred_at: string | null }> = []
      for (let i = 0; i < rows.length; i += EVENT_ROWS_PER_INSERT) {
        const part = rows.slice(i, i + EVENT_ROWS_PER_INSERT)
        const col = <K extends keyof Row>(k: K) => part.map((r) => r[k])
        const got = yield* sql<{ source_key: string; generation: number; event_uid: string; session_uid: string; occurred_at: string | null }>`
          INSERT INTO events (source_key, generation, event_uid, session_uid, provider, source_id, session_id, sequence, kind,
                              occurred_at, event_json, attempt)
          SELECT u.*, NULL::int
          FROM unnest(${col("source_key")}::text[], ${col("generation")}::int[], ${col("event_uid")}::text[], ${col("session_uid")}::text[],
                      ${col("provider")}::text[], ${col("source_id")}::text[], ${col("session_id")}::text[], ${col("sequence")}::int[],
                      ${col("kind")}::text[], ${col("occurred_at")}::text[], ${col("event_json")}::text[])
            AS u(source_key, generation, event_uid, session_uid, provider, source_id, session_id, sequence, kind, occurred_at, event_json)
          ON CONFLICT DO NOTHING RETURNING source_key, generation, event_uid, session_uid, occurred_at`
        added.push(...got)
      }
      // The search documents of the events inserted here (another import's are its own).
      yield* insertEventDocs(
        sql,
        added.map((a) => {
          const i = index.get(rowKey(a.source_key, a.generation, a.event_uid))!
          return eventDoc(a.source_key, a.generation, a.event_uid, a.session_uid, eventOf[i])
        })
      )
      // Sessions: each grows by the events inserted here.
      const bySession = new Map<string, { i: number; event_count: number; first_at: string | null; last_at: string | null }>()
      const addedBySource = new Map<string, number>()
      for (const a of added) {
        addedBySource.set(a.source_key, (addedBySource.get(a.source_key) ?? 0) + 1)
        const id = `${a.session_uid}\u0000${a.generation}`
        const s = bySession.get(id) ?? { i: index.get(rowKey(a.source_key, a.generation, a.event_uid))!, event_count: 0, first_at: null, last_at: null }
        s.event_count++
        if (a.occurred_at !== null) {
          s.first_at = earliestOf(s.first_at, a.occurred_at)
          s.last_at = latestOf(s.last_at, a.occurred_at)
        }
        bySession.set(id, s)
      }
      const sessionRows = [...bySession.values()].map(({ i, ...a }) => {
        const r = rows[i], overview = partOf[i].source.overview
        // The source's title is its own session's (not a subagent's in the same file); the workspace is every session's.
        const sessionId = eventOf[i].sessionId
        const title = overview.sessionId === null || overview.sessionId === sessionId ? overview.title : overview.sessionTitles?.[sessionId] ?? null
        return {
          session_uid: r.session_uid,
          generation: r.generation,
          source_key: r.source_key,
          provider: r.provider,
          session_id: r.session_id,
          source_id: r.source_id,
          ...a,
          title,
          workspace: toPg(overview.workspace)
        }
      }).sort((a, b) => cmp(a.session_uid, b.session_uid) || a.generation - b.generation)
      let sessionsAdded = 0
      if (sessionRows.length > 0) {
        const counts = new Map(sessionRows.map((r) => [`${r.session_uid}\u0000${r.generation}`, r.event_count]))
        const after = yield* sql<{ session_uid: string; generation: number; event_count: number }>`
          INSERT INTO sessions ${sql.insert(sessionRows.map((r) => ({ ...r, title: toPg(r.title) })))}
          ON CONFLICT (session_uid, generation) DO UPDATE SET
            event_count = sessions.event_count + excluded.event_count,
            first_at = ${sql.unsafe(extremeTimeSql("sessions.first_at", "excluded.first_at", "earliest"))},
            last_at = ${sql.unsafe(extremeTimeSql("sessions.last_at", "excluded.last_at", "latest"))},
            title = excluded.title, workspace = excluded.workspace
          RETURNING session_uid, generation, event_count`
        // A row this statement created holds exactly its count.
        for (const r of after) if (r.event_count === counts.get(`${r.session_uid}\u0000${r.generation}`)) sessionsAdded++
        const titled = sessionRows.filter((r) => r.title !== null)
        yield* upsertTitleDocs(sql, titled.map((r) => titleDoc(r.source_key, r.generation, r.session_uid, r.provider, r.title!)))
        const untitled = sessionRows.filter((r) => r.title === null)
        if (untitled.length > 0) {
          yield* sql`DELETE FROM search_docs d USING unnest(${untitled.map((r) => r.session_uid)}::text[], ${untitled.map((r) => r.generation)}::int[]) AS u(t, g)
                     WHERE d.title_of = u.t AND d.generation = u.g`
        }
      }
      // Usage rows of all the events (a row another import wrote is written alike).
      yield* writeUsage(sql, latestUsage(rows.map((r, i) => ({ key: r.source_key, generation: r.generation, event: eventOf[i], uid: r.session_uid, eventUid: r.event_uid }))))
      // Event counts grow by what was inserted (within the generation the source is at).
      if (sorted.length > 0) {
        const keys = sorted.map((p) => p.source.sourceKey)
        yield* sql`UPDATE sources s SET source_id = coalesce(s.source_id, u.sid),
                     event_count = s.event_count + CASE WHEN s.generation = u.g THEN u.n ELSE 0 END, updated_at = ${now()}
                   FROM unnest(${keys}::text[], ${sorted.map((p) => p.generation)}::int[], ${sorted.map((p) => toPg(p.events[0].sourceId))}::text[],
                               ${keys.map((k) => addedBySource.get(k) ?? 0)}::int[]) AS u(k, g, sid, n)
                   WHERE s.source_key = u.k`
      }
      // The checkpoints: the local ones as they are, the cursor's sequence the last event's of the cursor's source id.
      const taken = new Set<string>()
      if (takes.length > 0) {
        const ts = [...takes].sort((a, b) => cmp(a.sourceKey, b.sourceKey))
        const col = <A>(f: (t: CheckpointTake) => A) => ts.map(f)
        const got = yield* sql<{ source_key: string }>`
          UPDATE sources s SET cursor = u.cursor, fingerprint = u.fingerprint, status = u.status,
            cursor_seq = (SELECT max(e.sequence) FROM events e WHERE e.source_key = u.k AND e.generation = u.g AND e.source_id = u.sid),
            source_id = u.sid, prefix = u.prefix, parts_json = u.parts, diagnostics_json = u.diags, summary_json = u.summary,
            overview_json = u.overview, error_code = u.code, error_message = u.message, attempt_json = NULL, origin = u.origin, updated_at = ${now()}
          FROM unnest(${col((t) => t.sourceKey)}::text[], ${col((t) => t.generation)}::int[], ${col((t) => toPg(t.cursor))}::text[],
                      ${col((t) => toPg(t.fingerprint))}::text[], ${col((t) => t.status)}::text[], ${col((t) => toPg(t.sourceId))}::text[],
                      ${col((t) => toPg(t.prefix))}::text[], ${col((t) => t.partsJson)}::text[], ${col((t) => t.diagnosticsJson)}::text[],
                      ${col((t) => t.summaryJson)}::text[], ${col((t) => t.overviewJson)}::text[], ${col((t) => toPg(t.errorCode))}::text[],
                      ${col((t) => toPg(t.errorMessage))}::text[], ${col((t) => t.eventCount)}::int[], ${col((t) => t.origin)}::text[])
            AS u(k, g, cursor, fingerprint, status, sid, prefix, parts, diags, summary, overview, code, message, n, origin)
          WHERE s.source_key = u.k AND s.generation = u.g AND (u.n IS NULL OR s.event_count = u.n)
          RETURNING s.source_key`
        for (const r of got) taken.add(r.source_key)
        // The taken sources' session titles as their local checkpoints give them: a title changed by an append with no
        // event (tester33a F3) reaches the team index as the local import wrote it.
        const retitle = retitleCte(sql, ts.filter((t) => taken.has(t.sourceKey) && t.overviewJson !== null)
          .map((t) => ({ key: t.sourceKey, overview: JSON.parse(t.overviewJson!) as SourceSummary })))
        if (retitle !== undefined) yield* sql`${retitle}SELECT 1`
      }
      return { events: added.length, sessions: sessionsAdded, taken }
    }))

  return { beginGenerations, commit }
}

/**
 * The index at `url` writing for `machine`, with its SQL connection and
 * {@link guard}, for the scope: what `push` (`./push.ts`) writes through.
 * Fails as {@link layer}.
 */
export const openWriter = (url: string, machine: string, maxConnections?: number) =>
  Effect.gen(function*() {
    const target = targetOf(url)
    const conn = yield* connect(url, target, maxConnections)
    const index = yield* make(target, conn, machine)
    return { index, sql: conn.client as SqlClient.SqlClient, target, fail: guard(target, conn), bulk: pushWriter(conn.client, machine) }
  })

/**
 * The planner's statistics of the index's tables refreshed (`ANALYZE`) after a
 * run that inserted `written` events, when that is more than PostgreSQL's own
 * autovacuum would take before analyzing `events` (its defaults: 50 rows +
 * 10 % of the rows the table was last counted with; never counted: any).
 * A new database's tables have no statistics until autovacuum gets to them
 * (a busy server, or one where it lags or is off, may not for minutes), and
 * without them the planner chose plans that took `usage` 60-110 s on 36
 * sessions right after their import, where 1 s is the rule (tester22a F4).
 * A failure here (a timeout, the server gone) is ignored: statistics only
 * make queries faster, what was written is committed.
 */
export const refreshStatistics = (sql: SqlClient.SqlClient, written: number): Effect.Effect<void> =>
  written <= 0 ? Effect.void : Effect.gen(function*() {
    const rows = yield* sql<{ readonly n: number | null }>`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass('events')`
    const counted = rows[0]?.n ?? -1
    if (counted >= 0 && written <= 50 + 0.1 * counted) return
    yield* sql`ANALYZE events, sessions, sources, generations, usage, search_docs`
  }).pipe(Effect.ignore)

/**
 * Make the migrator's table (`si_migrations`, as `@effect/sql`'s migrator
 * makes it) when there is none, under a transaction-level advisory lock
 * (`pg_advisory_xact_lock`): `index migrate`s run at once on a new database
 * create it one after another. The migrator's own check-then-create is not
 * atomic: two at once both created it, and one failed with 23505 (a
 * duplicate `pg_type` row; tester18 F11). Once the table is there, the
 * migrator's `LOCK TABLE` serializes the migrations themselves: one applies
 * them, the others find them applied.
 */
const migrationsTable = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(${"session-ingest index migrate"}))`
    const [{ present }] = yield* sql<{ present: boolean }>`SELECT to_regclass(${MIGRATIONS_TABLE}) IS NOT NULL AS present`
    if (!present) {
      yield* sql`CREATE TABLE ${sql(MIGRATIONS_TABLE)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
    }
  }))

/**
 * Bring the schema of the PostgreSQL index at `url` to this build's
 * ({@link SCHEMA_VERSION}), through `@effect/sql`'s migrator (table
 * `si_migrations`, locked while it runs, so two at once apply each migration
 * once). Answers the migrations applied (`[id, name]`, empty when it was
 * current) and the version reached. A current schema is only read (a role
 * that may only read gets "current"); migrations run at once are serialized
 * ({@link migrationsTable}, then the migrator's lock). `StoreUnavailable` as
 * {@link layer} (reason `permission-denied` for a role that lacks a
 * privilege), or for a schema newer than this build.
 */
export const migrate = (url: string): Effect.Effect<
  { readonly applied: ReadonlyArray<readonly [number, string]>; readonly version: number; readonly index: string },
  StoreUnavailable
> =>
  Effect.scoped(Effect.gen(function*() {
    const target = targetOf(url)
    const conn = yield* connect(url, target, 1, answerTimeout(MIGRATE_TIMEOUT_SECONDS))
    const client = conn.client
    const run = Effect.gen(function*() {
      const have = yield* schemaVersion(client)
      if (have > SCHEMA_VERSION) return yield* schemaMismatch(target, have)
      // Current: nothing to apply, and nothing written or locked (a read-only role may ask; tester18 F4).
      if (have === SCHEMA_VERSION) return { applied: [], version: have, index: target.shown }
      yield* migrationsTable(client)
      const applied = yield* Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE }).pipe(
        Effect.provideService(SqlClient.SqlClient, client)
      )
      return { applied, version: yield* schemaVersion(client), index: target.shown }
    })
    return yield* run.pipe(
      Effect.catchIf((e): e is SqlError => e instanceof SqlError, (e) => Effect.fail(pgFailure(target, e))),
      Effect.catchTag("MigrationError", (e) => Effect.fail(pgFailure(target, e))),
      Effect.catchAllDefect((d) => Effect.fail(pgFailure(target, d))),
      conn.operation,
      // Each statement waits at most the connection's timeout (pg's query_timeout); interrupted, the migration returns at
      // once and its connection is abandoned (the server rolls back what the migrator's transaction had not committed).
      Effect.disconnect,
      Effect.onInterrupt(() => conn.abandon)
    ) as Effect.Effect<{ applied: ReadonlyArray<readonly [number, string]>; version: number; index: string }, StoreUnavailable>
  }))
