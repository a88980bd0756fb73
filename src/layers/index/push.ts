/**
 * `push`: bring a machine's local SQLite index into a team's PostgreSQL
 * index, incrementally by the index's own checkpoints (local first: import
 * offline into SQLite, push when online).
 *
 * - Which sources changed is told by the local index's push journal
 *   (its migration 0007: a change number per source, from a counter that
 *   only goes up, written by triggers in the change's own transaction): the
 *   team index's marker (`push_marks`, by machine and local file) holds the
 *   journal's id and the highest number the last push brought over, and a
 *   push reads only the local sources changed after it (`sources.read`).
 *   A marker missing, of another journal, or ahead of it (a restored file)
 *   makes every local checkpoint read and compared. So does a marker whose
 *   change id (the local journal's migration 0008: a random id per change;
 *   the team index's migration 0006: the id of the change at the marker's
 *   number) is not the local change's of that number: a copy restored from a
 *   backup and changed otherwise numbers its changes as the original did, and
 *   its journal may reach the marker before its first push.
 * - A local index from before its journal (read as it is) is told apart by
 *   its checkpoints alone, with work on the team side
 *   proportional to the change: the local checkpoints (a few small columns)
 *   fall into {@link BUCKETS} buckets by key, each with a digest; the team
 *   index keeps the digests the last push from this local index left
 *   (`push_marks`, by machine and local file). Only the sources of buckets
 *   whose digest changed are read whole locally and compared with the team
 *   index's checkpoints of them (one query); the others cost nothing. A push
 *   with nothing changed reads one marker row of the team index.
 * - Generation numbers are local to an index file (a recreated local index,
 *   another file at the path, a restored copy and a direct import each number
 *   theirs), so they are never matched: a changed source goes on in the
 *   team's current generation only when it holds the same content
 *   ({@link sameContent}: prefix bindings, cursor, event count) or a push
 *   filled it from this very local generation (`sources.origin`: journal id,
 *   local generation, its start time); otherwise a new team generation starts
 *   after the team's own numbers, and the local generation is copied whole.
 * - A changed source continuing the team's generation gets only the
 *   events after the last one pushed (per source id: a native log's nested
 *   logs have sequences of their own), found with one query for all
 *   changed sources; another starts a new generation in the team index (the
 *   older ones marked superseded, with the local reason), and one superseded
 *   without a successor is superseded there too.
 *   Events go in as the index's `commitBatch` puts them (`unnest` inserts,
 *   `ON CONFLICT DO NOTHING`, sessions counted from what was actually
 *   inserted), without an attempt or a cursor of their own.
 * - The team index's checkpoint then takes the local one (cursor,
 *   fingerprint, prefix bindings, status), so an `import --index postgres://…`
 *   on the same machine afterwards finds the same sources unchanged, and a
 *   push after such an import finds nothing to do: the two ways in are
 *   interchangeable. Keys and uids are the team index's (machine-qualified).
 * - A source whose import is in progress locally (an attempt not ended) is
 *   left for the next push, and the events of an attempt that began while
 *   the push reads are left out, so nothing a rollback could take back is
 *   pushed. Such a source (or one whose generation is not read to its end)
 *   is read on every push until its import ends: `inProgress` while an
 *   import holds the local index's lock (`liveImport`), else `stopped` (a
 *   killed import: only `import` again finishes it), never `unchanged`.
 * - Sources in the team index that the local index no longer has stay there
 *   (the index is an archive).
 * - Changed sources go in together, set-based (`pushWriter` of
 *   `./postgres.ts`): the new generations of up to {@link SOURCES_PER_COMMIT}
 *   sources start in one transaction, and their events are committed up to
 *   {@link PAGE} a transaction, from as many sources as fit, with each
 *   finished source's checkpoint in the same transaction; every table is
 *   written by one statement a transaction, so the round trips grow with the
 *   events pushed, not with the sources changed. A source whose event count
 *   in the team index is then not the local one (events not appended in
 *   sequence order) has its whole generation copied again before its
 *   checkpoint is taken. Sources superseded without a successor (few) go one
 *   by one, four at a time.
 * - The marker is written when every changed source is in the team index,
 *   with the digests taken before anything was read: a source changed
 *   locally while the push ran is compared again by the next one.
 *
 * Source: issue 17 ("Local first, then push").
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { Locator, ProviderId, SessionEvent, SourceSummary } from "../../domain/model.js"
import { legacySourceSummary } from "../../domain/contract-upgrade.js"
import type { CheckpointedSource, SourceInfo } from "../../services/Index.js"
import { classify, isStorageError } from "../store-failure.js"
import { type CheckpointTake, fromPgCheckpoint, openWriter, pgFailure, refreshStatistics, type SourceEvents, targetOf } from "./postgres.js"
import { fromPg } from "./pg-text.js"
import { liveImport } from "./import-lock.js"
import { checkpointColumns, type CheckpointRow, toCheckpoint } from "./rows.js"
import { type EventReader, eventReader, readonlySql, type StoredEventRow } from "./sqlite.js"

/** What a push did. Counts of sources; `events` / `sessions`: rows added to the team index. */
export interface PushReport {
  readonly from: string
  readonly to: string
  readonly machine: string
  readonly sources: {
    /** Sources in the local index. */
    readonly local: number
    /**
     * Local checkpoints read: those changed since the last push from this
     * local index to this team index (its journal, migration 0007), or all of
     * them (a first push, a marker lost or of another file, an index from
     * before the journal).
     */
    readonly read: number
    /** Same checkpoint on both sides (or not changed since the last push): nothing read or written. */
    readonly unchanged: number
    /**
     * Of the local sources, those whose team-side checkpoint was read: the
     * sources of the marker's buckets that changed since the last push from
     * this local index (all of them on a first push). The rest cost nothing.
     */
    readonly compared: number
    /** Events or checkpoint brought over. */
    readonly pushed: number
    /** Of the pushed: a new generation started in the team index (the older one superseded). */
    readonly newGenerations: number
    /** Superseded locally without a successor, and now in the team index. */
    readonly superseded: number
    /**
     * Of the read: being imported locally (an attempt not ended, or a generation not read to its end, while an
     * import holds the local index's lock), left for the next push.
     */
    readonly inProgress: number
    /**
     * Of the read: their local import stopped part-way (an attempt not ended, or a generation not read to its end,
     * and no import running: killed, crashed), so nothing of them is pushed until `import` is run again and
     * finishes them. Read (and counted here) on every push until then, never among the unchanged.
     */
    readonly stopped: number
    /** Of the read: rejected before anything of them was imported, nothing to push. */
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

/**
 * Whether the team index's current generation holds what the local one does:
 * the same content imported (the same prefix binding, `<bytes>:<sha256>` of
 * the imported bytes, and nested logs' bindings; without a binding, the same
 * file stat), to the same cursor and event count. Generation numbers are not
 * compared: they are local to an index file (a recreated local index starts
 * again at 1), so the team index tells a generation by its content.
 */
const sameContent = (l: LocalRow, r: CheckpointedSource): boolean =>
  r.status !== "superseded" &&
  r.generation > 0 &&
  r.eventCount === l.event_count &&
  r.cursor === l.cursor &&
  r.prefix === l.prefix &&
  (l.prefix !== null || r.fingerprint === l.fingerprint) &&
  r.sourceId === l.source_id &&
  JSON.stringify(r.parts) === JSON.stringify(l.parts_json === null ? {} : JSON.parse(l.parts_json))

/** Whether the team index holds the local checkpoint as it is (its generation's number aside: see {@link sameContent}). */
const sameCheckpoint = (l: LocalRow, r: CheckpointedSource | undefined): boolean =>
  r !== undefined &&
  r.status === l.status &&
  (l.status === "superseded" || sameContent(l, r)) &&
  r.fingerprint === l.fingerprint &&
  JSON.stringify(r.diagnostics) === JSON.stringify(l.diagnostics_json === null ? [] : JSON.parse(l.diagnostics_json))

/**
 * Buckets of the push marker: each local source falls in one by its key, and
 * a bucket's digest covers the checkpoints of its sources. A push compares
 * the team index's side only for the buckets whose digest changed since the
 * last push from this local index (`push_marks`).
 */
const BUCKETS = 1024

/** A local checkpoint as a push compares it (what {@link sameCheckpoint} looks at), small enough to read for every source. */
interface LocalMark {
  readonly source_key: string
  readonly generation: number
  readonly status: string
  readonly event_count: number
  readonly cursor: string | null
  readonly fingerprint: string | null
  readonly prefix: string | null
  readonly source_id: string | null
  readonly parts_json: string | null
  readonly diagnostics_json: string | null
  readonly busy: number
}

/** The bucket of a local source key (FNV-1a). */
const bucketOf = (key: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return (h >>> 0) % BUCKETS
}

/** The digest of each bucket of `marks` (sorted by key): 16 hex digits each, joined by commas. */
const bucketDigests = (marks: ReadonlyArray<LocalMark>): Array<string> => {
  const hashes = Array.from({ length: BUCKETS }, () => createHash("sha256"))
  for (const m of marks) {
    hashes[bucketOf(m.source_key)].update(
      JSON.stringify([m.source_key, m.generation, m.status, m.event_count, m.cursor, m.fingerprint, m.prefix, m.source_id, m.parts_json, m.diagnostics_json, m.busy])
    )
  }
  return hashes.map((h) => h.digest("hex").slice(0, 16))
}

/** A local event as a push reads it, with its place in its generation's order. */
interface LocalEvent {
  readonly event: SessionEvent
  readonly sequence: number
  readonly eventUid: unknown
}

/**
 * The local read of a source's events (the one place a push reads local
 * events: the local layout may change): the events of `row`'s generation
 * after `after` (per source id) and after `page` (sequence, event uid),
 * leaving out those of an attempt in progress, at most `limit`, in order.
 */
const readLocalEvents = (
  local: Effect.Effect.Success<ReturnType<typeof readonlySql>>,
  reader: EventReader<StoreUnavailable>,
  row: { readonly source_key: string; readonly generation: number },
  after: ReadonlyArray<readonly [string, number]>,
  page: { readonly sequence: number; readonly eventUid: unknown } | null,
  limit: number
): Effect.Effect<ReadonlyArray<LocalEvent>, StoreUnavailable> =>
  Effect.gen(function*() {
    const lsql = local.sql
    // The local events as the index keeps them (lean, or whole in an index before migration 0006), rebuilt by `eventOfRow`.
    const got = yield* local.guard(lsql<StoredEventRow & { event_uid: unknown }>`
      SELECT e.shape, e.body, e.provider, e.source_id, e.session_id, e.sequence, e.kind, e.occurred_at, e.event_uid FROM ${lsql.unsafe(reader.from)} e
      WHERE e.source_key = ${row.source_key} AND e.generation = ${row.generation}
        AND (e.attempt IS NULL OR e.attempt NOT IN (
          SELECT json_extract(attempt_json, '$.attempt') FROM sources WHERE source_key = ${row.source_key} AND attempt_json IS NOT NULL))
        ${after.length === 0 ? lsql`` : lsql`AND NOT (${lsql.or(after.map(([id, seq]) => lsql`(e.source_id = ${id} AND e.sequence <= ${seq})`))})`}
        ${page === null ? lsql`` : lsql`AND (e.sequence > ${page.sequence} OR (e.sequence = ${page.sequence} AND e.event_uid > ${page.eventUid}))`}
      ORDER BY e.sequence, e.event_uid LIMIT ${limit}`)
    const events = yield* reader.decode(got)
    return got.map((r, i) => ({ event: events[i], sequence: r.sequence, eventUid: r.event_uid }))
  })

/** Sources superseded locally without a successor pushed at once (each on its own connection: their round trips overlap). */
const PUSH_CONCURRENCY = 4

/** Sources per transaction of a push (their generations started, their events and checkpoints committed). */
const SOURCES_PER_COMMIT = 1000

/** Local keys per `IN (…)` list (under SQLite's bound-parameter limit). */
const KEYS_PER_QUERY = 5000

/**
 * Push the SQLite index `from` into the PostgreSQL index `to` (migrated:
 * see `session-ingest index migrate`) as machine `machine`. Many sources a
 * transaction (see the module's comment); a push that is stopped part-way is
 * completed by the next one. `StoreUnavailable` when
 * either index cannot be read or written (the server unreachable, the schema
 * not current, no local index).
 */
export const push = (from: string, to: string, machine: string): Effect.Effect<PushReport, StoreUnavailable> =>
  teamFailuresNamed(to, Effect.scoped(Effect.gen(function*() {
    const local = yield* readonlySql(from, "--from")
    const team = yield* openWriter(to, machine, PUSH_CONCURRENCY)
    const lsql = local.sql
    // The local events as the index keeps them (lean, or whole in an index before migration 0006), rebuilt by `eventOfRow`.
    const reader = yield* eventReader<StoreUnavailable>(lsql, local.guard)
    const hasColumn = (table: string, column: string) =>
      Effect.map(
        local.guard(lsql<{ readonly n: number }>`SELECT count(*) AS n FROM pragma_table_info(${table}) WHERE name = ${column}`),
        (r) => r[0].n > 0
      )
    const hasOverview = yield* hasColumn("sources", "overview_json")
    // The local journal (migration 0007; none in an index from before it, read here as it is): its id and its highest
    // change number, read before any source (a change made while the push reads has a higher one: the next push's).
    // With its migration 0008, each change's own id (`push_changes`): the id of the change at that number too.
    const hasChanges = yield* hasColumn("push_changes", "id")
    const journal = (yield* hasColumn("push_journal", "seq"))
      ? yield* Effect.map(
        local.guard(lsql<{ id: string; high: number | null; change: string | null }>`
          SELECT (SELECT id FROM push_origin LIMIT 1) AS id, (SELECT max(seq) FROM push_journal) AS high,
            ${hasChanges ? lsql`(SELECT id FROM push_changes WHERE seq = (SELECT max(seq) FROM push_journal))` : lsql`NULL`} AS change`),
        (r) => ({ id: r[0].id, high: r[0].high ?? 0, change: r[0].change })
      )
      : null
    const tsql = team.sql
    // What the last push from this local index left the team index holding.
    const [mark] = yield* team.fail(tsql<{ buckets: string | null; journal: string | null; seq: string | number | null; change_id: string | null }>`
      SELECT buckets, journal, seq, change_id FROM push_marks WHERE machine = ${machine} AND origin = ${local.file}`)
    const ours = journal !== null && mark !== undefined && mark.journal === journal.id && mark.seq !== null
    // The local change of the marker's number is the one the marker counted: the same id (migration 0008). A copy of
    // this file restored from a backup, then changed, numbers its changes as the original did, with other ids. Without
    // ids on either side (a local index or a marker from before them), the number alone; with them on one side only, no.
    const sameChange = !ours || Number(mark.seq) > journal.high
      ? false
      : !hasChanges
      ? mark.change_id === null
      : mark.change_id !== null && (yield* Effect.map(
        local.guard(lsql<{ id: string }>`SELECT id FROM push_changes WHERE seq = ${Number(mark.seq)}`),
        (r) => r[0]?.id === mark.change_id
      ))
    // The journal's number the marker holds, when it is this file's journal, not ahead of it (a file restored from an
    // older copy) and its change there the marker's: only the sources changed after it are read. Otherwise every source
    // is read and compared (as a first push does).
    const since = sameChange ? Number(mark.seq) : null
    // The marker of this file's journal, but ahead of it or of another change at its number: the file was restored
    // from an older copy. The numbers after its own are not the ones the marker counted, so the marker then takes
    // this journal's number and change, not the higher ones it held.
    const restored = ours && !sameChange
    const markColumns = lsql.unsafe(`s.source_key, s.generation, s.status, s.event_count, s.cursor, s.fingerprint, s.prefix, s.source_id,
      s.parts_json, s.diagnostics_json, (s.attempt_json IS NOT NULL) AS busy`)
    // The local checkpoints to look at, small: those changed since the marker, or all of them.
    // A source whose import has not ended (an attempt open, or a generation not read to its end) is read on every push,
    // changed or not: it was left out of the pushes since, so the marker's number may be past its last change, and it
    // is never among the unchanged (tester33b F5: a killed import's source was "unchanged" on the next push).
    const marks = since !== null
      ? yield* local.guard(lsql<LocalMark>`
          SELECT ${markColumns} FROM sources s
          WHERE s.source_key IN (SELECT source_key FROM push_journal WHERE seq > ${since})
            OR s.attempt_json IS NOT NULL OR s.status = 'importing'
          ORDER BY s.source_key`)
      : yield* local.guard(lsql<LocalMark>`SELECT ${markColumns} FROM sources s ORDER BY s.source_key`)
    const localCount = since === null
      ? marks.length
      : (yield* local.guard(lsql<{ n: number }>`SELECT count(*) AS n FROM sources`))[0].n
    // Without a journal: the marker's bucket digests tell which sources to compare.
    const digests = journal === null ? bucketDigests(marks) : null
    const marked = digests === null || mark === undefined || mark.buckets === null ? [] : mark.buckets.split(",")
    // Whether an import runs on the local index now (its import lock held by a live process): a source whose import has
    // not ended is then being imported; otherwise its import stopped part-way (killed, crashed) and only running
    // `import` again finishes it. Read after the checkpoints: an import that ends meanwhile is read as stopped, and
    // its source is pushed by the next push.
    const running = liveImport(local.file) !== null
    let unchanged = localCount - marks.length, inProgress = 0, stopped = 0, rejected = 0, pushed = 0, newGenerations = 0, superseded = 0, eventsAdded = 0,
      sessionsAdded = 0
    const candidates: Array<string> = []
    for (const m of marks) {
      if (m.status === "rejected" && m.generation === 0) rejected++
      else if (m.busy !== 0 || m.status === "importing") running ? inProgress++ : stopped++
      else if (digests !== null && marked.length === BUCKETS && marked[bucketOf(m.source_key)] === digests[bucketOf(m.source_key)]) unchanged++
      else candidates.push(m.source_key)
    }
    // The candidates' whole local rows, and the team index's checkpoints of them only (one query).
    const columns = lsql.unsafe(localColumns(hasOverview ? "overview_json" : "NULL AS overview_json"))
    const rows: Array<LocalRow> = []
    if (since === null && candidates.length === marks.length - rejected - inProgress - stopped && candidates.length > KEYS_PER_QUERY) {
      const wanted = new Set(candidates)
      for (const r of yield* local.guard(lsql<LocalRow>`SELECT ${columns} FROM sources`)) if (wanted.has(r.source_key)) rows.push(r)
    } else {
      for (let i = 0; i < candidates.length; i += KEYS_PER_QUERY) {
        rows.push(...(yield* local.guard(lsql<LocalRow>`SELECT ${columns} FROM sources WHERE source_key IN ${lsql.in(candidates.slice(i, i + KEYS_PER_QUERY))}`)))
      }
    }
    const keyed = rows.map((row) => {
      const locator = JSON.parse(row.locator_json) as Locator
      const provider = row.provider as ProviderId
      return { row, locator, provider, key: team.index.sourceKey(provider, locator) }
    })
    const remote = new Map<string, CheckpointedSource>()
    const originOf = new Map<string, string | null>()
    if (keyed.length > 0) {
      const found = yield* team.fail(tsql<CheckpointRow & { origin: string | null }>`
        SELECT ${tsql.unsafe(checkpointColumns("overview_json"))}, origin FROM sources WHERE source_key = ANY(${keyed.map((k) => k.key)}::text[])`)
      for (const f of found) {
        remote.set(f.source_key, toCheckpoint(fromPgCheckpoint(f)))
        originOf.set(f.source_key, f.origin)
      }
    }
    // Each local generation's tag (`sources.origin` in the team index): the journal (or, before it, the file), the
    // generation's number and when it started (a file restored from an older copy numbers its generations again).
    const startedAt = new Map<string, string>()
    for (let i = 0; i < keyed.length; i += KEYS_PER_QUERY) {
      const found = yield* local.guard(lsql<{ source_key: string; generation: number; started_at: string }>`
        SELECT source_key, generation, started_at FROM generations
        WHERE source_key IN ${lsql.in(keyed.slice(i, i + KEYS_PER_QUERY).map((k) => k.row.source_key))}`)
      for (const f of found) startedAt.set(`${f.source_key}\u0000${f.generation}`, f.started_at)
    }
    const lineage = journal !== null ? `journal:${journal.id}` : `file:${local.file}`
    const originTag = (row: LocalRow) => `${lineage}#${row.generation}#${startedAt.get(`${row.source_key}\u0000${row.generation}`) ?? ""}`
    // Unchanged, but the team's generation was filled from another local generation (another file, a direct import):
    // it takes this one's tag, so what this file appends to it goes on in the same team generation.
    const adopt: Array<{ key: string; generation: number; origin: string }> = []
    /** The changed sources, each with the team generation its events go to and whether the push starts it. */
    const changed: Array<{ row: LocalRow; source: SourceInfo; remote: CheckpointedSource | undefined; teamGeneration: number; starts: boolean; origin: string }> = []
    for (const { key, locator, provider, row } of keyed) {
      const r = remote.get(key)
      const origin = originTag(row)
      if (sameCheckpoint(row, r)) {
        unchanged++
        if (row.status !== "superseded" && originOf.get(key) !== origin) adopt.push({ key, generation: r!.generation, origin })
        continue
      }
      const overview: SourceSummary = row.overview_json !== null
        ? JSON.parse(row.overview_json)
        : legacySourceSummary(JSON.parse(row.summary_json) as Record<string, unknown>)
      // The team's current generation is this local generation when the push filled it from it (its tag), or when it
      // holds the same content; otherwise a new team generation starts (after the team's own numbers), the old one
      // superseded. Generation numbers are never matched: they are local to an index file.
      const same = r !== undefined && r.status !== "superseded" && r.generation > 0 && (originOf.get(key) === origin || sameContent(row, r))
      const teamGeneration = same ? r!.generation : r === undefined ? row.generation : Math.max(row.generation, r.status === "superseded" ? r.generation : r.generation + 1)
      changed.push({
        row,
        source: { sourceKey: key, provider, locator, summary: JSON.parse(row.summary_json), overview },
        remote: r,
        teamGeneration,
        starts: !same,
        origin
      })
    }
    if (adopt.length > 0) {
      yield* team.fail(tsql`UPDATE sources s SET origin = u.o
        FROM unnest(${adopt.map((a) => a.key)}::text[], ${adopt.map((a) => a.generation)}::int[], ${adopt.map((a) => a.origin)}::text[]) AS u(k, g, o)
        WHERE s.source_key = u.k AND s.generation = u.g`)
    }
    // The last event pushed of each source id, for the changed sources the team index has at the same generation: one query.
    const continuing = changed.filter((c) => !c.starts)
    const lastPushed = new Map<string, Map<string, number>>()
    if (continuing.length > 0) {
      const found = yield* team.fail(tsql<{ source_key: string; source_id: string; seq: number }>`
        SELECT e.source_key, e.source_id, max(e.sequence)::int AS seq FROM events e
          JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation
        WHERE e.source_key IN ${tsql.in(continuing.map((c) => c.source.sourceKey))}
        GROUP BY e.source_key, e.source_id`)
      for (const f of found) {
        const m = lastPushed.get(f.source_key) ?? new Map<string, number>()
        m.set(fromPg(f.source_id), f.seq)
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
    /** The local reasons of generation `generation - 1` of many rows, by local key (a query per {@link KEYS_PER_QUERY} rows). */
    const reasonsOf = (rows: ReadonlyArray<LocalRow>) =>
      Effect.gen(function*() {
        const out = new Map<string, string>()
        const wanted = new Map(rows.map((r) => [r.source_key, r.generation - 1]))
        const keys = [...wanted.keys()]
        for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
          const found = yield* local.guard(lsql<{ source_key: string; generation: number; superseded_reason: string | null }>`
            SELECT source_key, generation, superseded_reason FROM generations WHERE source_key IN ${lsql.in(keys.slice(i, i + KEYS_PER_QUERY))}`)
          for (const f of found) if (wanted.get(f.source_key) === f.generation && f.superseded_reason !== null) out.set(f.source_key, f.superseded_reason)
        }
        return (key: string) => out.get(key) ?? `superseded on ${machine}`
      })
    type Live = (typeof changed)[number]
    /** The team index's checkpoint of a source becomes the local one, in its team generation (when it holds `eventCount` events; null: whatever it holds). */
    const takeOf = ({ row, ...c }: Live, eventCount: number | null): CheckpointTake => ({
      sourceKey: c.source.sourceKey,
      generation: c.teamGeneration,
      origin: c.origin,
      cursor: row.cursor,
      fingerprint: row.fingerprint,
      status: row.status,
      sourceId: row.source_id,
      prefix: row.prefix,
      partsJson: row.parts_json,
      diagnosticsJson: row.diagnostics_json,
      summaryJson: row.summary_json,
      overviewJson: row.overview_json,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      eventCount
    })
    // Superseded locally without a successor (few): the team's current generation superseded too, with the local reason
    // (a source the team index never had gets the generation first, empty).
    const gone = changed.filter((c) => c.row.status === "superseded")
    yield* Effect.forEach(gone, ({ remote: r, row, source }) =>
      Effect.gen(function*() {
        const g = Math.max(1, row.generation - 1)
        if (r === undefined) yield* team.index.beginGeneration(source, g, "pushed after it was superseded")
        if (r === undefined || r.status !== "superseded") yield* team.index.supersedeSource(source.sourceKey, yield* reasonOf(row.source_key, row.generation - 1))
      }), { concurrency: PUSH_CONCURRENCY, discard: true })
    pushed += gone.length
    superseded += gone.length
    // The others: those not of the team's current generation start a new one, many per transaction.
    const live = changed.filter((c) => c.row.status !== "superseded")
    const starting = live.filter((c) => c.starts)
    const reason = yield* reasonsOf(starting.map((c) => c.row))
    for (let i = 0; i < starting.length; i += SOURCES_PER_COMMIT) {
      yield* team.fail(team.bulk.beginGenerations(
        starting.slice(i, i + SOURCES_PER_COMMIT).map((c) => ({
          source: c.source,
          generation: c.teamGeneration,
          reason: reason(c.row.source_key),
          origin: c.origin
        }))
      ))
    }
    newGenerations += starting.filter((c) => c.remote !== undefined && c.remote.generation > 0).length
    // Their events after the last one pushed, read a page at a time locally and committed many sources per transaction
    // (at most PAGE events and SOURCES_PER_COMMIT sources), each source's checkpoint in the transaction of its last events.
    let parts: Array<SourceEvents> = [], takes: Array<CheckpointTake> = [], held = 0
    const again: Array<Live> = []
    const flush = Effect.gen(function*() {
      if (parts.length === 0 && takes.length === 0) return
      const wanted = takes.filter((t) => t.eventCount !== null)
      const done = yield* team.fail(team.bulk.commit(parts, takes))
      eventsAdded += done.events
      sessionsAdded += done.sessions
      // Not what the local index holds (events not appended in sequence order): the whole generation again, below.
      for (const t of wanted) if (!done.taken.has(t.sourceKey)) again.push(byKey.get(t.sourceKey)!)
      parts = []
      takes = []
      held = 0
    })
    const byKey = new Map(live.map((c) => [c.source.sourceKey, c]))
    /**
     * Copy the local events of the row's generation after `after` (per source id) into its team generation, then take
     * its checkpoint.
     */
    const copy = (c: Live, after: ReadonlyMap<string, number>, eventCount: number | null) =>
      Effect.gen(function*() {
        const skip = [...after]
        let page: { sequence: number; eventUid: unknown } | null = null
        for (;;) {
          const room = Math.max(1, PAGE - held)
          const got: ReadonlyArray<LocalEvent> = yield* readLocalEvents(local, reader, c.row, skip, page, room)
          if (got.length > 0) {
            parts.push({ source: c.source, generation: c.teamGeneration, events: got.map((g) => g.event) })
            held += got.length
          }
          if (got.length < room) break
          const last = got[got.length - 1]
          page = { sequence: last.sequence, eventUid: last.eventUid }
          yield* flush
        }
        takes.push(takeOf(c, eventCount))
        if (held >= PAGE || takes.length >= SOURCES_PER_COMMIT) yield* flush
      })
    for (const c of live) yield* copy(c, c.starts ? new Map() : lastPushed.get(c.source.sourceKey) ?? new Map(), c.row.event_count)
    yield* flush
    for (const c of again.splice(0)) yield* copy(c, new Map(), null)
    yield* flush
    pushed += live.length
    // Every changed source is in the team index now: the marker takes this push's digests (taken before anything was
    // read, so what changed locally since is compared again next time).
    // With a journal: its number read before the sources (two pushes at once from the same file keep the higher one:
    // each writes it only when all it read is in).
    // The change id goes with its number (a marker keeps the pair of one push).
    yield* team.fail(tsql`INSERT INTO push_marks (machine, origin, buckets, journal, seq, change_id, pushed_at)
      VALUES (${machine}, ${local.file}, ${digests === null ? null : digests.join(",")}, ${journal?.id ?? null}, ${journal?.high ?? null},
              ${journal?.change ?? null}, ${new Date().toISOString()})
      ON CONFLICT (machine, origin) DO UPDATE SET buckets = excluded.buckets, journal = excluded.journal, pushed_at = excluded.pushed_at,
        seq = CASE WHEN ${restored}::boolean THEN excluded.seq
                   WHEN push_marks.journal = excluded.journal AND push_marks.seq > excluded.seq THEN push_marks.seq ELSE excluded.seq END,
        change_id = CASE WHEN ${restored}::boolean THEN excluded.change_id
                   WHEN push_marks.journal = excluded.journal AND push_marks.seq > excluded.seq THEN push_marks.change_id ELSE excluded.change_id END`)
    // Many events pushed into a team index: the planner's statistics refreshed, as after an import into it.
    yield* refreshStatistics(team.sql, eventsAdded)
    return {
      from: local.file,
      to: team.target.shown,
      machine,
      sources: { local: localCount, read: marks.length, unchanged, compared: keyed.length, pushed, newGenerations, superseded, inProgress, stopped, rejected },
      eventsAdded,
      sessionsAdded
    }
  })))

/**
 * A PostgreSQL error that escaped the team index's guard as a defect (the
 * server stopped or killed mid-push: the pool's client "has encountered a
 * connection error", "Connection terminated unexpectedly") fails the push as
 * the team index's `StoreUnavailable` (`pgFailure`: host, port, database,
 * reason; "run the same command again"), as `import --index postgres://…`
 * says, not as a failure of a local file. A SQLite error (the local index's
 * own, `SQLITE_*`) is left to the local guard and the CLI's last guard.
 */
const teamFailuresNamed = <A, R>(to: string, effect: Effect.Effect<A, StoreUnavailable, R>): Effect.Effect<A, StoreUnavailable, R> =>
  Effect.catchSomeDefect(effect, (d) =>
    isStorageError(d) && classify(d).code?.startsWith("SQLITE") !== true
      ? Option.some(Effect.fail(pgFailure(targetOf(to), d)))
      : Option.none())
