/**
 * The import's write path into the SQLite index, on prepared better-sqlite3
 * statements (why not `@effect/sql`: `./sqlite-connection.ts`), and the
 * transaction it keeps open across sources.
 *
 * - The index's write operations of an import (`beginAttempt`,
 *   `beginGeneration`, `commitBatch`, `completeSource`) join one open
 *   transaction, whichever source they are for. It commits once a batch's
 *   worth of events is pending (`Batch.groupCommit`, the import's batch
 *   size), on `flush` (the end of a run), before any operation that takes a
 *   transaction of its own (a rejection, a supersession), and when the
 *   layer closes. So 10,000 small sources make one transaction per batch of
 *   events, not three per source.
 * - Each operation is whole or absent: one that fails part-way (a crash, an
 *   interruption, a full disk) rolls the open transaction back, with the
 *   operations of other sources it held, which the next run imports again.
 *   A killed process likewise loses only what was not committed; the
 *   checkpoints committed are those of the events committed, so the next run
 *   resumes from them and converges.
 * - A new generation of a source whose row holds a complete one is begun
 *   beside it (`NextGeneration` in `./rows.ts`): its checkpoint is kept in
 *   the attempt, the row (which readers join) left as it is until the new
 *   generation completes, when `complete` switches the row to it.
 * - A new small source read whole is written by one call (`whole`, for
 *   `IndexShape.importWhole`): the same operations, with the same commit
 *   points, in one synchronous step; when all its batches fit in the open
 *   transaction, its `sources` row is inserted once, in the state the steps
 *   would leave it (`wholeInOne`), at the transaction's end with the other
 *   sources' rows (`settle`: FTS5 writes its pending words at each
 *   statement savepoint, which a row's push-journal triggers open).
 * - An event is stored lean (see `leanEvent` in `./rows.ts`): its stream
 *   (source, generation, session: the ids every event restates) once in
 *   `streams`, its shape once in `shapes`, its columns and its body in
 *   `records`. Its search words go into `search` under the record's id (a
 *   session title under minus its stream's id).
 *
 * @module
 */
import { eventUid, eventUidBytes, sessionUid } from "../../domain/index/ids.js"
import { sessionTitleIn, type SessionEvent } from "../../domain/model.js"
import { ftsText, searchableText } from "../../domain/search/text.js"
import { usageRowOf } from "../../domain/usage.js"
import type { Batch, CommitPoint, CommittedBatch, EventHead, PreparedRow, SourceInfo, WholeSource } from "../../services/Index.js"
import { extremeTimeSql, INDEX_LEAN, leanEvent, type NextGeneration, nextAfterBatch, nextGenerationOf } from "./rows.js"
import { earliestOf, latestOf } from "../../domain/timestamps.js"
import type { Driver, DriverStatement } from "./sqlite-connection.js"

/** The 16 bytes an event uid (`evt_` + 32 hex) is stored as. */
export const uidBytes = (uid: string): Buffer => Buffer.from(uid.slice(4), "hex")

/** An event uid as the service gives it, from its stored form (16 bytes, or the text of an index before the lean record). */
export const uidText = (stored: unknown): string =>
  typeof stored === "string" ? stored : `evt_${Buffer.from(stored as Uint8Array).toString("hex")}`

/** The checkpoint columns an attempt restores when it is rolled back (`sources` row as it was when the attempt began). */
export const BASE_COLUMNS = [
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
export type BaseRow = { readonly [K in (typeof BASE_COLUMNS)[number]]: string | number | null }

/**
 * `sources.attempt_json`: the attempt in progress (its id in `records.attempt`) and the row it began from (null: none),
 * and the new generation it imports over the row's complete one, until that one is read to its end (see `NextGeneration`).
 */
export interface AttemptState {
  readonly attempt: number
  readonly base: BaseRow | null
  readonly next?: NextGeneration | undefined
  /**
   * The sessions of the base row's generation as the attempt found them: `[session uid, title, workspace]` each
   * (absent: none, or an attempt of a build before session 39). A batch of the attempt writes a session's title and
   * workspace as the source's read gives them (a title first read in the appended part); a rollback puts these back.
   */
  readonly sessions?: ReadonlyArray<SessionBefore> | undefined
}

/** A session's uid, title and workspace as an attempt found them (see {@link AttemptState.sessions}). */
export type SessionBefore = readonly [uid: string, title: string | null, workspace: string | null]

const now = () => new Date().toISOString()

/** The rows of one batch, ready to insert: the events with their stream, uid, shape and body. */
interface Prepared {
  readonly event: SessionEvent
  readonly stream: number
  readonly sessionUid: string
  /** The event uid's 16 bytes (see {@link uidBytes}). */
  readonly uid: Buffer
  readonly shape: number | null
  readonly body: string
  /** Computed already (see {@link PreparedRow}): the search words and the usage row; else computed from `event`. */
  readonly pre?: PreparedRow | undefined
}

/**
 * What the writer computes of one event before it inserts it, as a
 * {@link PreparedRow} (the same functions: `leanEvent`, `eventUidBytes`,
 * `searchableText`, `usageRowOf`), so that a parse worker can compute it and
 * hand the writer only the event's {@link EventHead} with it.
 */
export const preparedRowOf = (e: SessionEvent): PreparedRow => {
  const lean = leanEvent(e, INDEX_LEAN)
  const t = searchableText(e)
  return {
    uid: eventUidBytes(e.provider, e.sourceId, e.sessionId, e.eventId),
    shape: lean === null ? null : lean.shape,
    body: lean === null ? JSON.stringify(e) : lean.body,
    text: ftsText(t.text),
    input: ftsText(t.input),
    usage: usageRowOf(e)
  }
}

/** The fields of `e` the writer reads besides its {@link PreparedRow}. */
export const eventHeadOf = (e: SessionEvent): EventHead => ({
  provider: e.provider,
  sourceId: e.sourceId,
  sessionId: e.sessionId,
  eventId: e.eventId,
  sequence: e.sequence,
  kind: e.kind,
  role: e.role,
  occurredAt: e.occurredAt,
  cursor: e.cursor
})

/** What a batch inserted of one session: for its `sessions` row. */
interface Added {
  readonly stream: number
  readonly sessionUid: string
  readonly event: SessionEvent
}

/**
 * The write path over one connection (see the module). Not safe for
 * concurrent use: one import writes at a time, as the importer does.
 */
export class IndexWriter {
  private open = false
  private pending = 0
  /**
   * The sources with a new generation in progress over their complete one (see `NextGeneration`), with their attempt:
   * known from `beginAttempt` and `beginGeneration`, which an import runs before a source's batches.
   */
  private readonly nexts = new Map<string, AttemptState & { readonly next: NextGeneration }>()
  private readonly streams = new Map<string, number>()
  private readonly shapes = new Map<string, number>()
  private readonly st: Record<string, DriverStatement>

  /**
   * @param toWal switches the index to WAL mode before its first write
   *   (the first transaction, or {@link commitToWal}); run once. Undefined:
   *   the index is in WAL mode already (or stays as it is).
   */
  constructor(private readonly db: Driver, private toWal?: (() => void) | undefined) {
    const p = (sql: string) => db.prepare(sql)
    this.st = {
      upsertSource: p(`INSERT INTO sources (source_key, provider, locator_json, summary_json, overview_json, generation, status, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
          overview_json = excluded.overview_json, updated_at = excluded.updated_at`),
      // A new source's row with its attempt: `upsertSource` then `setAttempt` in one statement (one write of the row).
      insertSourceWithAttempt: p(`INSERT INTO sources (source_key, provider, locator_json, summary_json, overview_json, generation, status, updated_at, attempt_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (source_key) DO UPDATE SET locator_json = excluded.locator_json, summary_json = excluded.summary_json,
          overview_json = excluded.overview_json, updated_at = excluded.updated_at, attempt_json = excluded.attempt_json`),
      // A new source's row in its final state (`wholeInOne`): generation 1, complete, no attempt.
      insertComplete: p(`INSERT INTO sources (source_key, provider, locator_json, summary_json, overview_json, source_id, generation, cursor,
          fingerprint, status, error_code, error_message, event_count, updated_at, prefix, parts_json, diagnostics_json, attempt_json)
        VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 'complete', NULL, NULL, ?, ?, ?, ?, ?, NULL)`),
      base: p(`SELECT ${BASE_COLUMNS.join(", ")}, attempt_json FROM sources WHERE source_key = ?`),
      setAttempt: p(`UPDATE sources SET attempt_json = ? WHERE source_key = ?`),
      supersedeOlder: p(`UPDATE generations SET superseded_at = ?, superseded_reason = ?
        WHERE source_key = ? AND generation < ? AND superseded_at IS NULL`),
      insertGeneration: p(`INSERT OR IGNORE INTO generations (source_key, generation, started_at) VALUES (?, ?, ?)`),
      dropOlderEventDocs: p(`DELETE FROM search WHERE rowid IN (
        SELECT r.id FROM streams s JOIN records r ON r.stream = s.stream WHERE s.source_key = ? AND s.generation < ?)`),
      dropOlderTitleDocs: p(`DELETE FROM search WHERE rowid IN (SELECT -stream FROM streams WHERE source_key = ? AND generation < ?)`),
      resetSource: p(`UPDATE sources SET generation = ?, cursor = NULL, fingerprint = NULL, status = 'importing',
        error_code = NULL, error_message = NULL, event_count = 0, updated_at = ? WHERE source_key = ?`),
      insertStream: p(`INSERT INTO streams (source_key, generation, session_uid, provider, source_id, session_id) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING`),
      stream: p(`SELECT stream FROM streams WHERE source_key = ? AND generation = ? AND session_uid = ?`),
      insertShape: p(`INSERT INTO shapes (def) VALUES (?) ON CONFLICT DO NOTHING`),
      shape: p(`SELECT shape FROM shapes WHERE def = ?`),
      insertRecord: p(`INSERT OR IGNORE INTO records (stream, uid, sequence, kind, role, occurred_at, attempt, shape, body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertDoc: p(`INSERT INTO search (rowid, text, input) VALUES (?, ?, ?)`),
      deleteDoc: p(`DELETE FROM search WHERE rowid = ?`),
      title: p(`SELECT title FROM sessions WHERE session_uid = ? AND generation = ?`),
      // The sessions of a source's current generation, with their title and stream (whose negative is the rowid of the title's search document).
      currentSessions: p(`SELECT t.stream, s.session_uid, s.generation, s.session_id, s.title FROM sources o
        JOIN streams t ON t.source_key = o.source_key AND t.generation = o.generation
        JOIN sessions s ON s.session_uid = t.session_uid AND s.generation = t.generation
        WHERE o.source_key = ?`),
      setTitle: p(`UPDATE sessions SET title = ? WHERE session_uid = ? AND generation = ?`),
      // The sessions of a source generation: uid, title, workspace (by the streams' unique index; see `AttemptState.sessions`).
      sessionsBefore: p(`SELECT s.session_uid, s.title, s.workspace FROM streams t
        JOIN sessions s ON s.session_uid = t.session_uid AND s.generation = t.generation
        WHERE t.source_key = ? AND t.generation = ? ORDER BY s.session_uid`).raw(true),
      // A session of another generation (a new generation of a session the index holds: not a session added).
      otherGeneration: p(`SELECT 1 FROM sessions WHERE session_uid = ? AND generation <> ? LIMIT 1`),
      upsertSession: p(`INSERT INTO sessions (session_uid, generation, source_key, provider, session_id, source_id, first_at, last_at, event_count, title, workspace)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (session_uid, generation) DO UPDATE SET
          event_count = sessions.event_count + excluded.event_count,
          first_at = ${extremeTimeSql("sessions.first_at", "excluded.first_at", "earliest")},
          last_at = ${extremeTimeSql("sessions.last_at", "excluded.last_at", "latest")},
          title = excluded.title, workspace = excluded.workspace`),
      upsertUsage: p(`INSERT INTO usage (source_key, generation, session_uid, response_key, kind, provider, event_uid, sequence, occurred_at, model,
          input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, run_seq, cache_write_1h_tokens, speed)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
        ON CONFLICT (source_key, generation, session_uid, response_key) DO UPDATE SET
          kind = excluded.kind, provider = excluded.provider, event_uid = excluded.event_uid, sequence = excluded.sequence,
          occurred_at = excluded.occurred_at, model = excluded.model, input_tokens = excluded.input_tokens,
          output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
          cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd,
          cache_write_1h_tokens = excluded.cache_write_1h_tokens, speed = excluded.speed
        WHERE excluded.sequence >= usage.sequence`),
      // A run ends the responses since its first event (`runFrom`: its process's `init`), not those of a killed run before it.
      endRun: p(`UPDATE usage SET run_seq = ?
        WHERE session_uid = ? AND generation = ? AND source_key = ? AND kind = 'response' AND run_seq IS NULL AND sequence < ? AND sequence >= ?`),
      supersedeOne: p(`UPDATE generations SET superseded_at = ?, superseded_reason = ?
        WHERE source_key = ? AND generation = ? AND superseded_at IS NULL`),
      dropEventDocsOf: p(`DELETE FROM search WHERE rowid IN (
        SELECT r.id FROM streams s JOIN records r ON r.stream = s.stream WHERE s.source_key = ? AND s.generation = ?)`),
      dropTitleDocsOf: p(`DELETE FROM search WHERE rowid IN (SELECT -stream FROM streams WHERE source_key = ? AND generation = ?)`),
      // The switch to a new generation read to its end (see `NextGeneration`): its checkpoint becomes the row's.
      switchTo: p(`UPDATE sources SET generation = ?, cursor = ?, source_id = ?, prefix = ?, event_count = ?, error_code = NULL, error_message = NULL
        WHERE source_key = ?`),
      afterBatch: p(`UPDATE sources SET cursor = coalesce(?, cursor), source_id = coalesce(source_id, ?),
          prefix = CASE WHEN ? THEN ? ELSE prefix END, event_count = event_count + ?, updated_at = ?
        WHERE source_key = ?`),
      complete: p(`UPDATE sources SET fingerprint = ?, status = 'complete', error_code = NULL, error_message = NULL,
          parts_json = ?, diagnostics_json = ?, attempt_json = NULL, summary_json = ?, overview_json = ?, updated_at = ?
        WHERE source_key = ?`)
    }
  }

  /** Whether a transaction is open with operations not yet committed. */
  get isOpen(): boolean {
    return this.open
  }

  /** Switch to WAL mode now if it is still to do (never inside a transaction: SQLite refuses it there). */
  private walNow(): void {
    const toWal = this.toWal
    if (toWal === undefined) return
    this.toWal = undefined
    toWal()
  }

  /** Commit what is pending, then switch to WAL mode if it is still to do: before a write of the index's own (not the writer's). */
  commitToWal(): void {
    this.commit()
    this.walNow()
  }

  private begin(): void {
    if (!this.open) {
      this.walNow()
      this.db.exec("BEGIN")
      this.open = true
    }
  }

  /**
   * The `sources` rows of sources {@link IndexWriter.wholeInOne} wrote, kept back until the transaction's end (or the
   * next operation of another kind: {@link IndexWriter.settle}), their values as they were when each source ended.
   * Why: the row's insert fires the push-journal triggers, so SQLite opens a statement savepoint for it, and FTS5
   * writes its pending words to disk at every savepoint (a segment per source: about 150 µs a source, and more
   * segments to merge). Inserted together before the commit, the words go to disk once per transaction, as they
   * would with no trigger. Nobody sees the rows' absence: it never reaches a commit (nor another statement).
   */
  private readonly completed: Array<ReadonlyArray<unknown>> = []
  private readonly completedKeys = new Set<string>()

  /**
   * Insert the `sources` rows kept back (see {@link IndexWriter.completed}), in their order. One that fails (a full
   * disk) rolls the open transaction back, as a failed operation does, before the error goes on: the transaction never
   * holds a source's events without its row.
   */
  settle(): void {
    if (this.completed.length === 0) return
    try {
      for (const row of this.completed) this.st.insertComplete.run(...row)
    } catch (e) {
      this.rollback()
      throw e
    }
    this.completed.length = 0
    this.completedKeys.clear()
  }

  /** Commit what is pending (nothing when no transaction is open). */
  commit(): void {
    if (!this.open) return
    this.settle()
    this.db.exec("COMMIT")
    this.open = false
    this.pending = 0
  }

  /** Roll back what is pending: the ids of streams and shapes it made are forgotten with it. */
  rollback(): void {
    if (this.open && this.db.inTransaction) this.db.exec("ROLLBACK")
    this.open = false
    this.pending = 0
    this.completed.length = 0
    this.completedKeys.clear()
    this.nexts.clear()
    this.forget()
  }

  /** Forget that `key` has a new generation in progress (another path rolled it back, superseded or discarded it). */
  forgetNext(key: string): void {
    this.nexts.delete(key)
  }

  /** Forget the ids of streams and shapes (after another path deleted or rolled back rows). */
  forget(): void {
    this.inserted = null
    this.streams.clear()
    this.shapes.clear()
  }

  /** The JSON columns of a source (locator, summary, overview), made once per `SourceInfo` (an import writes them up to three times). */
  private readonly sourceJson = new WeakMap<SourceInfo, { readonly locator: string; readonly summary: string; readonly overview: string }>()

  private jsonOf(s: SourceInfo): { readonly locator: string; readonly summary: string; readonly overview: string } {
    let j = this.sourceJson.get(s)
    if (j === undefined) {
      j = { locator: JSON.stringify(s.locator), summary: JSON.stringify(s.summary), overview: JSON.stringify(s.overview) }
      this.sourceJson.set(s, j)
    }
    return j
  }

  /**
   * The source `beginAttempt` inserted in the open transaction (its row as
   * `upsertSource` leaves it), until another operation: `beginGeneration`
   * right after it need not upsert the same row again.
   */
  private inserted: SourceInfo | null = null

  private upsertSource(s: SourceInfo, generation: number, status: string): void {
    const j = this.jsonOf(s)
    this.st.upsertSource.run(s.sourceKey, s.provider, j.locator, j.summary, j.overview, generation, status, now())
  }

  /** See `IndexShape.beginAttempt`: answers the attempt's id. */
  beginAttempt(source: SourceInfo, newAttempt: () => number): number {
    this.settle()
    this.begin()
    const row = this.st.base.get(source.sourceKey) as (BaseRow & { attempt_json: string | null }) | undefined
    this.nexts.delete(source.sourceKey)
    if (row?.attempt_json != null) {
      const state = JSON.parse(row.attempt_json) as AttemptState
      const next = nextGenerationOf(row.attempt_json, row.generation as number)
      if (next !== undefined) this.nexts.set(source.sourceKey, { ...state, next })
      return state.attempt
    }
    const base: BaseRow | null = row === undefined ? null : Object.fromEntries(BASE_COLUMNS.map((c) => [c, row[c]])) as BaseRow
    // The base generation's sessions as they are now, for a rollback to put back what a batch of the attempt rewrites.
    const sessions = row === undefined || (row.generation as number) === 0
      ? []
      : (this.st.sessionsBefore.all(source.sourceKey, row.generation) as Array<SessionBefore>)
    const state: AttemptState = sessions.length === 0 ? { attempt: newAttempt(), base } : { attempt: newAttempt(), base, sessions }
    if (row === undefined) {
      const j = this.jsonOf(source)
      this.st.insertSourceWithAttempt.run(
        source.sourceKey, source.provider, j.locator, j.summary, j.overview, 0, "importing", now(), JSON.stringify(state)
      )
      this.inserted = source
    } else {
      this.st.setAttempt.run(JSON.stringify(state), source.sourceKey)
    }
    return state.attempt
  }

  /** See `IndexShape.beginGeneration`. */
  beginGeneration(source: SourceInfo, generation: number, reason: string): void {
    this.settle()
    this.begin()
    const key = source.sourceKey
    if (this.inserted !== source && this.beginNext(key, generation, reason)) return
    // Right after `beginAttempt` inserted this very source, the upsert would rewrite its columns with the
    // same values (its conflict branch leaves generation and status alone; `resetSource` below sets them).
    if (this.inserted !== source) this.upsertSource(source, generation, "importing")
    this.inserted = null
    const at = now()
    this.st.supersedeOlder.run(at, reason, key, generation)
    this.st.insertGeneration.run(key, generation, at)
    if (generation > 1) {
      // A superseded generation's events leave the search results.
      this.st.dropOlderEventDocs.run(key, generation)
      this.st.dropOlderTitleDocs.run(key, generation)
    }
    this.st.resetSource.run(generation, at, key)
  }

  /**
   * `beginGeneration` of a source whose row holds a complete generation, within an attempt: the new generation is
   * begun beside it (`NextGeneration`), the row and what readers see left as they are; one begun before it and not
   * completed (never shown) is superseded, its search words gone. False (nothing done): no complete generation.
   */
  private beginNext(key: string, generation: number, reason: string): boolean {
    const row = this.st.base.get(key) as (BaseRow & { attempt_json: string | null }) | undefined
    if (row === undefined || row.attempt_json === null || row.status !== "complete" || generation <= (row.generation as number)) return false
    const state = JSON.parse(row.attempt_json) as AttemptState
    const prior = nextGenerationOf(row.attempt_json, row.generation as number)
    const at = now()
    if (prior !== undefined && prior.generation < generation) {
      this.st.supersedeOne.run(at, reason, key, prior.generation)
      this.st.dropEventDocsOf.run(key, prior.generation)
      this.st.dropTitleDocsOf.run(key, prior.generation)
    }
    this.st.insertGeneration.run(key, generation, at)
    // As a row is reset for a new generation: no cursor nor events yet; the source id and prefix binding kept until a batch moves them.
    const next: NextGeneration = {
      generation,
      reason,
      cursor: null,
      cursorSeq: null,
      prefix: prior?.prefix ?? (row.prefix as string | null),
      sourceId: prior?.sourceId ?? (row.source_id as string | null),
      eventCount: 0
    }
    const moved = { ...state, next }
    this.st.setAttempt.run(JSON.stringify(moved), key)
    this.nexts.set(key, moved)
    this.inserted = null
    return true
  }

  /** The stream id of a session of a source generation (made on first use). */
  private streamOf(key: string, generation: number, e: SessionEvent, uid: string): number {
    const k = `${key}\u0000${generation}\u0000${uid}`
    let id = this.streams.get(k)
    if (id === undefined) {
      this.st.insertStream.run(key, generation, uid, e.provider, e.sourceId, e.sessionId)
      id = (this.st.stream.get(key, generation, uid) as { stream: number }).stream
      this.streams.set(k, id)
    }
    return id
  }

  /** The id of a shape (made on first use). */
  private shapeOf(def: string): number {
    let id = this.shapes.get(def)
    if (id === undefined) {
      this.st.insertShape.run(def)
      id = (this.st.shape.get(def) as { shape: number }).shape
      this.shapes.set(def, id)
    }
    return id
  }

  /** A batch's rows: each event's stream, uid and lean body (or its whole JSON). Makes the streams and shapes. */
  prepare(batch: Batch): ReadonlyArray<Prepared> {
    this.settle()
    return this.rowsOf(batch)
  }

  /** {@link IndexWriter.prepare} without settling first (within {@link IndexWriter.whole}). */
  private rowsOf(batch: Batch): ReadonlyArray<Prepared> {
    this.begin()
    const key = batch.source.sourceKey
    const uids = new Map<string, string>()
    // Events of one session come in runs: the previous event's session uid and stream, when its ids are the same.
    let last: SessionEvent | undefined
    let su = ""
    let stream = 0
    const prepared = batch.prepared
    return batch.events.map((e, i) => {
      if (last === undefined || e.sourceId !== last.sourceId || e.sessionId !== last.sessionId || e.provider !== last.provider) {
        const ids = `${e.sourceId}\u0000${e.sessionId}`
        const known = uids.get(ids)
        if (known === undefined) uids.set(ids, su = sessionUid(e.provider, e.sourceId, e.sessionId))
        else su = known
        stream = this.streamOf(key, batch.generation, e, su)
        last = e
      }
      const pre = prepared?.[i]
      if (pre !== undefined) {
        const uid = Buffer.isBuffer(pre.uid) ? pre.uid : Buffer.from(pre.uid.buffer, pre.uid.byteOffset, pre.uid.byteLength)
        return { event: e, stream, sessionUid: su, uid, shape: pre.shape === null ? null : this.shapeOf(pre.shape), body: pre.body, pre }
      }
      const lean = leanEvent(e, INDEX_LEAN)
      return {
        event: e,
        stream,
        sessionUid: su,
        uid: eventUidBytes(e.provider, e.sourceId, e.sessionId, e.eventId),
        shape: lean === null ? null : this.shapeOf(lean.shape),
        body: lean === null ? JSON.stringify(e) : lean.body
      }
    })
  }

  /** Insert rows (existing ids are left alone) and their search words; answers those actually inserted. */
  insert(rows: ReadonlyArray<Prepared>, attempt: number | null): Array<Added> {
    const added: Array<Added> = []
    for (const r of rows) {
      const e = r.event
      const info = this.st.insertRecord.run(r.stream, r.uid, e.sequence, e.kind, e.role, e.occurredAt, attempt, r.shape, r.body)
      if (info.changes === 0) continue
      // A worker's prepared row holds the FTS text already (`preparedRowOf`: ftsText of each field).
      const t = r.pre ?? searchableText(e)
      this.st.insertDoc.run(info.lastInsertRowid, r.pre !== undefined ? t.text : ftsText(t.text), r.pre !== undefined ? t.input : ftsText(t.input))
      added.push({ stream: r.stream, sessionUid: r.sessionUid, event: e })
    }
    return added
  }

  /**
   * The rest of a batch after its rows: the sessions it added to (counts,
   * times, title and its search words, workspace), the usage rows of its
   * events, and the source's checkpoint (not with `checkpoint` false: the
   * caller writes the source's row itself). Answers the sessions it created.
   */
  finish(batch: Batch, rows: ReadonlyArray<Prepared>, added: ReadonlyArray<Added>, checkpoint = true): number {
    const { events, generation, source } = batch
    const key = source.sourceKey
    // The source's title is its own session's (a subagent's or sidechain's session in the same file is not
    // titled by its parent's prompt); the workspace is every session's of the source.
    const { workspace } = source.overview
    const titleOf = (sessionId: string) => sessionTitleIn(source.overview, sessionId)
    const bySession = new Map<string, { stream: number; e: SessionEvent; n: number; first: string | null; last: string | null }>()
    for (const a of added) {
      let s = bySession.get(a.sessionUid)
      if (s === undefined) bySession.set(a.sessionUid, s = { stream: a.stream, e: a.event, n: 0, first: null, last: null })
      s.n++
      const at = a.event.occurredAt
      if (at !== null) {
        s.first = earliestOf(s.first, at)
        s.last = latestOf(s.last, at)
      }
    }
    let sessionsAdded = 0
    for (const [uid, s] of bySession) {
      const title = titleOf(s.e.sessionId)
      const before = this.st.title.get(uid, generation) as { title: string | null } | undefined
      if (before === undefined || before.title !== title) {
        this.st.deleteDoc.run(-s.stream)
        if (title !== null) this.st.insertDoc.run(-s.stream, ftsText(title), "")
      }
      this.st.upsertSession.run(uid, generation, key, s.e.provider, s.e.sessionId, s.e.sourceId, s.first, s.last, s.n, title, workspace)
      // No row before: this batch created it (a session row with no events left is deleted, never kept at 0). Read
      // off the title lookup above, not a RETURNING clause: on the bench's first import (10,000 sessions)
      // the upsert's RETURNING cost about as much again as the upsert. A session another generation of the source
      // holds (a new generation of a session in the index) is no session added (tester32a F1).
      if (before === undefined && this.st.otherGeneration.get(uid, generation) === undefined) sessionsAdded++
    }
    this.usage(key, generation, rows)
    if (checkpoint) {
      const cursor = batch.resumeCursor === undefined ? events[events.length - 1].cursor : batch.resumeCursor
      const state = this.nexts.get(key)
      if (state !== undefined && state.next.generation === generation) {
        // A new generation in progress: its checkpoint moves, in the attempt; the row stays the complete generation's.
        const next = nextAfterBatch(state.next, { cursor, cursorSeq: null, sourceId: events[0].sourceId, prefix: batch.prefix, added: added.length })
        const moved = { ...state, next }
        this.st.setAttempt.run(JSON.stringify(moved), key)
        this.nexts.set(key, moved)
      } else {
        this.st.afterBatch.run(cursor, events[0].sourceId, batch.prefix === undefined ? 0 : 1, batch.prefix ?? null, added.length, now(), key)
      }
    }
    this.pending += events.length
    return sessionsAdded
  }

  /**
   * Keep the usage rows of a batch's events: per session and response the
   * row of the latest event by sequence wins (a response split across
   * batches counts once, with its last usage), and each `result` row ends
   * the run of the session's earlier responses not yet ended.
   */
  private usage(key: string, generation: number, rows: ReadonlyArray<Prepared>): void {
    const latest = new Map<string, { r: NonNullable<ReturnType<typeof usageRowOf>>; uid: string; e: SessionEvent }>()
    for (const p of rows) {
      const r = p.pre !== undefined ? p.pre.usage : usageRowOf(p.event)
      if (r === null) continue
      const id = `${p.sessionUid}\u0000${r.key}`
      const before = latest.get(id)
      if (before === undefined || before.r.sequence <= r.sequence) latest.set(id, { r, uid: p.sessionUid, e: p.event })
    }
    if (latest.size === 0) return
    const runs: Array<{ uid: string; sequence: number; from: number }> = []
    for (const { e, r, uid } of latest.values()) {
      this.st.upsertUsage.run(
        key,
        generation,
        uid,
        r.key,
        r.kind,
        e.provider,
        eventUid(e.provider, r.sourceId, r.sessionId, r.eventId),
        r.sequence,
        r.occurredAt,
        r.model,
        r.usage.inputTokens,
        r.usage.outputTokens,
        r.usage.cacheReadTokens,
        r.usage.cacheWriteTokens,
        r.costUsd,
        r.usage.cacheWrite1hTokens,
        r.usage.speed ?? null
      )
      if (r.kind === "run") runs.push({ uid, sequence: r.sequence, from: r.runFrom ?? 0 })
    }
    for (const run of runs.sort((a, b) => a.sequence - b.sequence)) this.st.endRun.run(run.sequence, run.uid, generation, key, run.sequence, run.from)
  }

  /**
   * A new source read whole, in one synchronous step (see
   * `IndexShape.importWhole`): its attempt, generation 1, each batch as
   * `commitBatch` writes it (`point` is called at the same commit points, and
   * may throw to stop there), and its completion. Answers what each batch
   * added.
   */
  whole(w: WholeSource, newAttempt: () => number, point: (p: CommitPoint) => void): Array<CommittedBatch> {
    const { source } = w
    this.begin()
    const last = w.batches.length - 1
    const beforeLast = w.batches.reduce((n, b, i) => (i < last ? n + b.events.length : n), 0)
    // A row kept back (`completed`) is there for this test: the source is not new (beginAttempt settles it).
    if (this.pending + beforeLast < w.groupCommit && !this.completedKeys.has(source.sourceKey) && this.st.base.get(source.sourceKey) === undefined) {
      return this.wholeInOne(w, newAttempt(), point)
    }
    const attempt = this.beginAttempt(source, newAttempt)
    this.beginGeneration(source, 1, "first import")
    const out: Array<CommittedBatch> = []
    for (const b of w.batches) {
      const batch: Batch = { source, generation: 1, events: b.events, resumeCursor: b.resumeCursor, prefix: b.prefix, prepared: b.prepared, attempt, groupCommit: w.groupCommit }
      const { rows, added } = this.insertWithMidPoint(batch, attempt, point)
      const sessions = this.finish(batch, rows, added)
      if (this.due(w.groupCommit)) {
        point("before-commit")
        this.commit()
        point("after-commit")
      }
      out.push({ events: added.length, sessions })
    }
    this.complete(source, w.fingerprint, { parts: w.parts, diagnostics: w.diagnostics })
    return out
  }

  /**
   * A batch of {@link IndexWriter.whole}: its rows prepared and inserted in two halves, with the `mid-batch`
   * commit point between them (where a kill leaves half a batch in the open transaction, as `commitBatch` does).
   */
  private insertWithMidPoint(batch: Batch, attempt: number, point: (p: CommitPoint) => void) {
    const rows = this.rowsOf(batch)
    const half = Math.ceil(rows.length / 2)
    const added = this.insert(rows.slice(0, half), attempt)
    point("mid-batch")
    if (half < rows.length) added.push(...this.insert(rows.slice(half), attempt))
    return { rows, added }
  }

  /**
   * {@link IndexWriter.whole} of a source without a row yet whose batches
   * all go into the open transaction (no commit falls before its last
   * batch): its `sources` row is written once, at the end, as the attempt,
   * its batches and its completion would leave it. Nobody sees the states in
   * between (they never reach a commit), so a kill at any point leaves the
   * same committed state as the steps one by one, with one row write (and
   * one push-journal change) per source instead of one per step.
   */
  private wholeInOne(w: WholeSource, attempt: number, point: (p: CommitPoint) => void): Array<CommittedBatch> {
    const { source } = w
    const key = source.sourceKey
    this.st.insertGeneration.run(key, 1, now())
    const out: Array<CommittedBatch> = []
    let cursor: string | null = null, sourceId: string | null = null, prefix: string | null = null, count = 0
    for (const [i, b] of w.batches.entries()) {
      const batch: Batch = { source, generation: 1, events: b.events, resumeCursor: b.resumeCursor, prefix: b.prefix, prepared: b.prepared, attempt, groupCommit: w.groupCommit }
      const { rows, added } = this.insertWithMidPoint(batch, attempt, point)
      const sessions = this.finish(batch, rows, added, false)
      // As `afterBatch` moves the checkpoint.
      cursor = (b.resumeCursor === undefined ? b.events[b.events.length - 1].cursor : b.resumeCursor) ?? cursor
      sourceId ??= b.events[0].sourceId
      if (b.prefix !== undefined) prefix = b.prefix
      count += added.length
      out.push({ events: added.length, sessions })
      if (i === w.batches.length - 1) this.insertComplete(w, { cursor, sourceId, prefix, count })
      if (this.due(w.groupCommit)) {
        point("before-commit")
        this.commit()
        point("after-commit")
      }
    }
    if (w.batches.length === 0) this.insertComplete(w, { cursor, sourceId, prefix, count })
    return out
  }

  /** A source's row as `beginAttempt`, `beginGeneration` (1), its batches and `complete` leave it (inserted by {@link IndexWriter.settle}). */
  private insertComplete(
    w: WholeSource,
    at: { readonly cursor: string | null; readonly sourceId: string | null; readonly prefix: string | null; readonly count: number }
  ): void {
    const { source } = w
    const j = this.jsonOf(source)
    // Kept back until the transaction's end (see `completed`).
    this.completed.push([
      source.sourceKey, source.provider, j.locator, j.summary, j.overview, at.sourceId, at.cursor, w.fingerprint, at.count, now(), at.prefix,
      Object.keys(w.parts).length === 0 ? null : JSON.stringify(w.parts),
      w.diagnostics.length === 0 ? null : JSON.stringify(w.diagnostics)
    ])
    this.completedKeys.add(source.sourceKey)
  }

  /** Whether the open transaction holds at least `events` events: time to commit. */
  due(events: number | undefined): boolean {
    return this.open && (events === undefined || this.pending >= events)
  }

  /**
   * A new generation read to its end (see `NextGeneration`): it becomes the source's current one in this transaction
   * (the one `complete` commits in), the older ones superseded with its reason and their search words gone.
   */
  private switchToNext(key: string): void {
    this.nexts.delete(key)
    const row = this.st.base.get(key) as (BaseRow & { attempt_json: string | null }) | undefined
    const next = row === undefined ? undefined : nextGenerationOf(row.attempt_json, row.generation as number)
    if (next === undefined) return
    this.st.supersedeOlder.run(now(), next.reason, key, next.generation)
    this.st.dropOlderEventDocs.run(key, next.generation)
    this.st.dropOlderTitleDocs.run(key, next.generation)
    this.st.switchTo.run(next.generation, next.cursor, next.sourceId, next.prefix, next.eventCount, key)
  }

  /**
   * The titles of a source's current sessions as its completed read gives them (tester33a F3): a title can change by
   * an append that adds no event (a Claude Code `/rename`, a `summary`), which no batch writes; each session whose
   * title the source's summary gives and differs from the stored one takes it, and its title's search words. A title
   * the summary does not give (none read) leaves the stored one as it is, never erased.
   */
  private retitle(source: SourceInfo): void {
    const o = source.overview
    if (o.title === null && o.sessionTitles === undefined) return
    const rows = this.st.currentSessions.all(source.sourceKey) as Array<
      { stream: number; session_uid: string; generation: number; session_id: string; title: string | null }
    >
    for (const r of rows) {
      const title = sessionTitleIn(o, r.session_id)
      if (title === null || title === r.title) continue
      this.st.setTitle.run(title, r.session_uid, r.generation)
      this.st.deleteDoc.run(-r.stream)
      this.st.insertDoc.run(-r.stream, ftsText(title), "")
    }
  }

  /** See `IndexShape.completeSource`. */
  complete(
    source: SourceInfo,
    fingerprint: string | null,
    read?: { readonly parts?: Readonly<Record<string, string>>; readonly diagnostics?: ReadonlyArray<unknown> }
  ): void {
    this.settle()
    this.begin()
    if (this.nexts.has(source.sourceKey)) this.switchToNext(source.sourceKey)
    this.retitle(source)
    const j = this.jsonOf(source)
    this.st.complete.run(
      fingerprint,
      read?.parts === undefined || Object.keys(read.parts).length === 0 ? null : JSON.stringify(read.parts),
      read?.diagnostics === undefined || read.diagnostics.length === 0 ? null : JSON.stringify(read.diagnostics),
      j.summary,
      j.overview,
      now(),
      source.sourceKey
    )
  }
}
