/**
 * `push`: bring a machine's local SQLite index into a team's PostgreSQL
 * index, incrementally by the index's own checkpoints (local first: import
 * offline into SQLite, push when online).
 *
 * - Which sources changed is told from the checkpoints alone: one query on
 *   each side (the local `sources`, the team index's sources of this
 *   machine), compared in memory. An unchanged source costs nothing more.
 * - A changed source at the generation the team index has gets only the
 *   events after the last one pushed (per source id: a native log's nested
 *   logs have sequences of their own), found with one query for all
 *   changed sources; a source at a newer generation starts that generation
 *   in the team index (the older ones marked superseded, with the local
 *   reason), and one superseded without a successor is superseded there too.
 *   Events go through the index's `commitBatch` (multi-row inserts, sessions
 *   counted from what was actually inserted), a page at a time.
 * - The team index's checkpoint then takes the local one (cursor,
 *   fingerprint, prefix bindings, status), so an `import --index postgres://…`
 *   on the same machine afterwards finds the same sources unchanged, and a
 *   push after such an import finds nothing to do: the two ways in are
 *   interchangeable. Keys and uids are the team index's (machine-qualified).
 * - A source whose import is in progress locally (an attempt not ended) is
 *   left for the next push, and the events of an attempt that began while
 *   the push reads are left out, so nothing a rollback could take back is
 *   pushed.
 * - Sources in the team index that the local index no longer has stay there
 *   (the index is an archive).
 * - Changed sources are pushed four at a time (the connection pool's size).
 *
 * Source: issue 17 ("Local first, then push").
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { Locator, ProviderId, SessionEvent, SourceSummary } from "../../domain/model.js"
import { legacySourceSummary } from "../../domain/contract-upgrade.js"
import type { CheckpointedSource, SourceInfo } from "../../services/Index.js"
import { openWriter } from "./postgres.js"
import { eventReader, readonlySql, type StoredEventRow } from "./sqlite.js"

/** What a push did. Counts of sources; `events` / `sessions`: rows added to the team index. */
export interface PushReport {
  readonly from: string
  readonly to: string
  readonly machine: string
  readonly sources: {
    /** Sources in the local index. */
    readonly local: number
    /** Same checkpoint on both sides: nothing read or written. */
    readonly unchanged: number
    /** Events or checkpoint brought over. */
    readonly pushed: number
    /** Of the pushed: a new generation started in the team index (the older one superseded). */
    readonly newGenerations: number
    /** Superseded locally without a successor, and now in the team index. */
    readonly superseded: number
    /** Being imported locally (an attempt not ended): left for the next push. */
    readonly inProgress: number
    /** Rejected before anything of them was imported: nothing to push. */
    readonly rejected: number
  }
  readonly eventsAdded: number
  readonly sessionsAdded: number
}

interface LocalRow {
  readonly source_key: string
  readonly provider: string
  readonly locator_json: string
  readonly summary_json: string
  readonly overview_json: string | null
  readonly source_id: string | null
  readonly generation: number
  readonly cursor: string | null
  readonly fingerprint: string | null
  readonly status: string
  readonly error_code: string | null
  readonly error_message: string | null
  readonly event_count: number
  readonly prefix: string | null
  readonly parts_json: string | null
  readonly diagnostics_json: string | null
  readonly attempt_json: string | null
}

/** The local sources' columns; `overview` is `overview_json`, or NULL in a local index from before its migration 0003. */
const localColumns = (overview: string) =>
  `source_key, provider, locator_json, summary_json, ${overview}, source_id, generation, cursor, fingerprint, status, error_code, error_message, event_count, prefix, parts_json, diagnostics_json, attempt_json`

/** Events read from the local index per page (and committed to the team index per batch). */
const PAGE = 2000

/** Whether the team index holds the local checkpoint as it is. */
const sameCheckpoint = (l: LocalRow, r: CheckpointedSource | undefined): boolean =>
  r !== undefined &&
  r.generation === l.generation &&
  r.status === l.status &&
  r.eventCount === l.event_count &&
  r.cursor === l.cursor &&
  r.fingerprint === l.fingerprint &&
  r.prefix === l.prefix &&
  r.sourceId === l.source_id &&
  JSON.stringify(r.parts) === JSON.stringify(l.parts_json === null ? {} : JSON.parse(l.parts_json)) &&
  JSON.stringify(r.diagnostics) === JSON.stringify(l.diagnostics_json === null ? [] : JSON.parse(l.diagnostics_json))

/**
 * Push the SQLite index `from` into the PostgreSQL index `to` (migrated:
 * see `session-ingest index migrate`) as machine `machine`. Sources one after
 * another, each page of events in its own transaction; a push that is
 * stopped part-way is completed by the next one. `StoreUnavailable` when
 * either index cannot be read or written (the server unreachable, the schema
 * not current, no local index).
 */
export const push = (from: string, to: string, machine: string): Effect.Effect<PushReport, StoreUnavailable> =>
  Effect.scoped(Effect.gen(function*() {
    const local = yield* readonlySql(from)
    const team = yield* openWriter(to, machine)
    const lsql = local.sql
    // The local events as the index keeps them (lean, or whole in an index before migration 0006), rebuilt by `eventOfRow`.
    const reader = yield* eventReader<StoreUnavailable>(lsql, local.guard)
    const EV = lsql.unsafe(reader.from)
    const hasOverview = (yield* local.guard(lsql<{ readonly n: number }>`
      SELECT count(*) AS n FROM pragma_table_info('sources') WHERE name = 'overview_json'`))[0].n > 0
    const rows = yield* local.guard(lsql<LocalRow>`SELECT ${lsql.unsafe(localColumns(hasOverview ? "overview_json" : "NULL AS overview_json"))} FROM sources`)
    const remote = yield* team.index.checkpoints
    let unchanged = 0, inProgress = 0, rejected = 0, pushed = 0, newGenerations = 0, superseded = 0, eventsAdded = 0, sessionsAdded = 0
    const changed: Array<{ row: LocalRow; source: SourceInfo; remote: CheckpointedSource | undefined }> = []
    for (const row of rows) {
      if (row.status === "rejected" && row.generation === 0) {
        rejected++
        continue
      }
      if (row.attempt_json !== null || row.status === "importing") {
        inProgress++
        continue
      }
      const locator = JSON.parse(row.locator_json) as Locator
      const provider = row.provider as ProviderId
      const key = team.index.sourceKey(provider, locator)
      const r = remote.get(key)
      if (sameCheckpoint(row, r)) {
        unchanged++
        continue
      }
      const overview: SourceSummary = row.overview_json !== null
        ? JSON.parse(row.overview_json)
        : legacySourceSummary(JSON.parse(row.summary_json) as Record<string, unknown>)
      changed.push({ row, source: { sourceKey: key, provider, locator, summary: JSON.parse(row.summary_json), overview }, remote: r })
    }
    // The last event pushed of each source id, for the changed sources the team index has at the same generation: one query.
    const continuing = changed.filter((c) => c.remote !== undefined && c.remote.generation === c.row.generation && c.remote.status !== "superseded")
    const lastPushed = new Map<string, Map<string, number>>()
    if (continuing.length > 0) {
      const tsql = team.sql
      const found = yield* team.fail(tsql<{ source_key: string; source_id: string; seq: number }>`
        SELECT e.source_key, e.source_id, max(e.sequence)::int AS seq FROM events e
          JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
        WHERE e.source_key IN ${tsql.in(continuing.map((c) => c.source.sourceKey))}
        GROUP BY e.source_key, e.source_id`)
      for (const f of found) {
        const m = lastPushed.get(f.source_key) ?? new Map<string, number>()
        m.set(f.source_id, f.seq)
        lastPushed.set(f.source_key, m)
      }
    }
    /** The local reason generation `generation` of `key` was superseded with, if it was. */
    const reasonOf = (key: string, generation: number) =>
      Effect.map(
        local.guard(lsql<{ superseded_reason: string | null }>`
          SELECT superseded_reason FROM generations WHERE source_key = ${key} AND generation = ${generation}`),
        (r) => r[0]?.superseded_reason ?? `superseded on ${machine}`
      )
    /** Copy the local events of the row's generation after `after` (per source id) into the team index, a page at a time. */
    const copyEvents = (row: LocalRow, source: SourceInfo, after: ReadonlyMap<string, number>) =>
      Effect.gen(function*() {
        let added = 0, sessions = 0
        const skip = [...after]
        let page: { sequence: number; eventUid: unknown } | null = null
        for (;;) {
          const got: ReadonlyArray<StoredEventRow & { event_uid: unknown }> = yield* local.guard(lsql<StoredEventRow & { event_uid: unknown }>`
            SELECT e.shape, e.body, e.provider, e.source_id, e.session_id, e.sequence, e.kind, e.occurred_at, e.event_uid FROM ${EV} e
            WHERE e.source_key = ${row.source_key} AND e.generation = ${row.generation}
              AND (e.attempt IS NULL OR e.attempt NOT IN (
                SELECT json_extract(attempt_json, '$.attempt') FROM sources WHERE source_key = ${row.source_key} AND attempt_json IS NOT NULL))
              ${
            skip.length === 0
              ? lsql``
              : lsql`AND NOT (${lsql.or(skip.map(([id, seq]) => lsql`(e.source_id = ${id} AND e.sequence <= ${seq})`))})`
          }
              ${page === null ? lsql`` : lsql`AND (e.sequence > ${page.sequence} OR (e.sequence = ${page.sequence} AND e.event_uid > ${page.eventUid}))`}
            ORDER BY e.sequence, e.event_uid LIMIT ${PAGE}`)
          if (got.length === 0) break
          const events: ReadonlyArray<SessionEvent> = yield* reader.decode(got)
          const committed = yield* team.index.commitBatch({ source, generation: row.generation, events, resumeCursor: null }, () => Effect.void)
          added += committed.events
          sessions += committed.sessions
          if (got.length < PAGE) break
          const last = got[got.length - 1]
          page = { sequence: last.sequence, eventUid: last.event_uid }
        }
        return { added, sessions }
      })
    const tsql = team.sql
    /** The team index's checkpoint of `source` becomes the local one. */
    const takeCheckpoint = (row: LocalRow, source: SourceInfo) =>
      team.fail(tsql`
        UPDATE sources SET cursor = ${row.cursor}, fingerprint = ${row.fingerprint}, status = ${row.status},
          cursor_seq = (SELECT max(sequence) FROM events WHERE source_key = ${source.sourceKey} AND generation = ${row.generation}
                          AND source_id = ${row.source_id}),
          source_id = ${row.source_id}, prefix = ${row.prefix}, parts_json = ${row.parts_json}, diagnostics_json = ${row.diagnostics_json},
          summary_json = ${row.summary_json}, overview_json = ${row.overview_json}, error_code = ${row.error_code}, error_message = ${row.error_message}, attempt_json = NULL,
          updated_at = ${new Date().toISOString()}
        WHERE source_key = ${source.sourceKey} AND generation = ${row.generation}`)
    // A few sources at a time: their round trips to the server overlap (each source's pages stay in order).
    yield* Effect.forEach(changed, ({ remote: r, row, source }) =>
      Effect.gen(function*() {
        pushed++
        const g = row.generation
        if (row.status === "superseded") {
          // Superseded without a successor: its last generation (g - 1) superseded in the team index too, with the local reason.
          if (r === undefined || r.generation < g - 1) yield* team.index.beginGeneration(source, g - 1, "pushed after it was superseded")
          if (r === undefined || r.generation < g || r.status !== "superseded") yield* team.index.supersedeSource(source.sourceKey, yield* reasonOf(row.source_key, g - 1))
          superseded++
          return
        }
        let after: ReadonlyMap<string, number> = lastPushed.get(source.sourceKey) ?? new Map()
        if (r === undefined || r.generation < g || r.status === "superseded") {
          yield* team.index.beginGeneration(source, g, yield* reasonOf(row.source_key, g - 1))
          if (r !== undefined) newGenerations++
          after = new Map()
        }
        const copied = yield* copyEvents(row, source, after)
        eventsAdded += copied.added
        sessionsAdded += copied.sessions
        const count = Option.match(yield* team.index.checkpoint(source.sourceKey), { onNone: () => 0, onSome: (c) => c.eventCount })
        if (count !== row.event_count) {
          // Not what the local index holds (events not appended in sequence order): the whole generation again (existing ids are left alone).
          const again = yield* copyEvents(row, source, new Map())
          eventsAdded += again.added
          sessionsAdded += again.sessions
        }
        yield* takeCheckpoint(row, source)
      }), { concurrency: 4, discard: true })
    return {
      from: local.file,
      to: team.target.shown,
      machine,
      sources: { local: rows.length, unchanged, pushed, newGenerations, superseded, inProgress, rejected },
      eventsAdded,
      sessionsAdded
    }
  }))
