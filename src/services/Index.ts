/**
 * The index: session-ingest's own record of every imported event, with a
 * checkpoint per source. Behind a service so another engine can be swapped
 * in as a layer: `src/layers/index/sqlite.ts` (one machine's embedded file)
 * and `src/layers/index/postgres.ts` (a team's server, many machines). The
 * importer, the queries and the CLI use only this shape.
 *
 * Source: issue "The index: import every authorized source into one embedded
 * SQLite record".
 *
 * @module
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { InvalidSearchQuery, StoreUnavailable, UnsupportedOperation } from "../domain/errors.js"
import type { Diagnostic, Locator, ProviderId, Role, SessionEvent, SourceSummary } from "../domain/model.js"
import type { SearchFold } from "../domain/search/query.js"
import type { Snippet } from "../domain/search/text.js"
import type { UsageGroup, UsageRow } from "../domain/usage.js"

/** A source's checkpoint: where its current generation stands. */
export interface Checkpoint {
  readonly sourceKey: string
  readonly provider: ProviderId
  /** Current generation (1 on first import; +1 each time the source's imported prefix changed). */
  readonly generation: number
  /** Cursor of the last committed event of the current generation (null: none yet). */
  readonly cursor: string | null
  /** Fingerprint (size, mtime, change time, identity) taken before the last read that reached the source's end; null while incomplete. */
  readonly fingerprint: string | null
  /**
   * `superseded`: the source's last generation is superseded and no current one
   * replaces it (its file is now read under another key, or was not selected
   * and its imported prefix changed): none of its sessions are listed.
   */
  readonly status: "importing" | "complete" | "rejected" | "superseded"
  readonly eventCount: number
  /** Source id of the source's own events (its first committed event's); null before any. */
  readonly sourceId: string | null
  /**
   * Binding of the imported prefix of the source's own file: `<bytes>:<sha256 hex>`
   * of its first `<bytes>` bytes, up to the cursor (see `src/layers/index/prefix.ts`); null when none.
   */
  readonly prefix: string | null
  /** Bindings of the nested logs read with the source (Muse Code native), by folder name, as `prefix`. */
  readonly parts: Readonly<Record<string, string>>
  /** Diagnostics of the last read to the end (a missing nested log, …), reported again while the source is unchanged. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /**
   * Set while a new generation (this checkpoint's, status `importing`) is imported over a complete one: the complete
   * generation every reader is shown until the new one is read to its end ({@link IndexShape.completeSource} switches
   * them). Undefined otherwise.
   */
  readonly shownGeneration?: number | undefined
}

/** A checkpoint with the source it belongs to, as an import reads them all ({@link IndexShape.checkpoints}). */
export interface SourceCheckpoint extends Checkpoint {
  readonly locator: Locator
  /** The provider's own discovery summary, handed back to its next discovery (`known`). */
  readonly summary: Record<string, unknown>
  /**
   * The typed discovery summary the index keeps for the source (what its
   * discovery said when it was imported), when the index read it with the
   * checkpoint (a SQLite index an import writes), handed back to its next
   * discovery (`known`); undefined otherwise.
   */
  readonly keptOverview?: SourceSummary | undefined
}

/** A checkpoint with the source it belongs to and its typed discovery summary. */
export interface CheckpointedSource extends SourceCheckpoint {
  /** The typed discovery summary. */
  readonly overview: SourceSummary
}

/** What a source is, for the sources table. */
export interface SourceInfo {
  readonly sourceKey: string
  readonly provider: ProviderId
  readonly locator: Locator
  /** The provider's own discovery summary (kept for its next discovery; never read by key here). */
  readonly summary: Record<string, unknown>
  /** The typed discovery summary: title, workspace, times, model, counts, warnings. */
  readonly overview: SourceSummary
}

/** One batch: events of one source generation, committed together with the checkpoint. */
export interface Batch {
  readonly source: SourceInfo
  readonly generation: number
  readonly events: ReadonlyArray<SessionEvent>
  /**
   * The cursor to resume the source from once this batch is in: by default
   * the last event's; `null` keeps the one stored (a batch of a Muse Code
   * native log's nested logs only: the log resumes after its own last event
   * and streams its nested logs again, whose events the index already has).
   */
  readonly resumeCursor?: string | null | undefined
  /** The prefix binding at the resume cursor (see {@link Checkpoint.prefix}); undefined keeps the one stored. */
  readonly prefix?: string | null | undefined
  /** Each event's rows computed already ({@link WholeSource.batches}; SQLite only, within `importWhole`). */
  readonly prepared?: ReadonlyArray<PreparedRow> | undefined
  /** The attempt the batch belongs to ({@link IndexShape.beginAttempt}): what a rejection rolls back. */
  readonly attempt?: number | undefined
  /**
   * Commit once this many events (of any sources) are pending, not at every
   * batch: the batch stays in the transaction the next operations join, so
   * small sources share one transaction (the import passes its batch size).
   * {@link IndexShape.flush} commits the rest. Undefined: this batch commits.
   * An index that commits every batch anyway (PostgreSQL) ignores it.
   */
  readonly groupCommit?: number | undefined
}

/** The fields of an event the SQLite writer reads besides its {@link PreparedRow} (a parse worker sends only these). */
export type EventHead = Pick<SessionEvent, "provider" | "sourceId" | "sessionId" | "eventId" | "sequence" | "kind" | "role" | "occurredAt" | "cursor">

/**
 * What the SQLite writer computes of an event before it inserts it, computed
 * elsewhere (a parse worker, `import --jobs`): its uid's 16 bytes, its lean
 * shape (null: stored whole) and body (`leanEvent`, else its JSON), its
 * search words as FTS5 is given them (`ftsText` of each `searchableText`
 * field), and its usage row (`usageRowOf`).
 */
export interface PreparedRow {
  readonly uid: Uint8Array
  readonly shape: string | null
  readonly body: string
  readonly text: string
  readonly input: string
  readonly usage: Omit<UsageRow, "runSeq"> | null
}

/**
 * What {@link IndexShape.importWhole} writes: a new source's batches (each
 * with its resume cursor and prefix binding, as {@link Batch} has them; its
 * generation is 1), then its completion as
 * {@link IndexShape.completeSource} takes it.
 */
export interface WholeSource {
  readonly source: SourceInfo
  readonly batches: ReadonlyArray<{
    readonly events: ReadonlyArray<SessionEvent>
    readonly resumeCursor?: string | null | undefined
    readonly prefix?: string | null | undefined
    /** Each event's rows computed already (see {@link PreparedRow}); then `events` need only hold {@link EventHead}s. */
    readonly prepared?: ReadonlyArray<PreparedRow> | undefined
  }>
  /** Commit once this many events of any sources are pending ({@link Batch.groupCommit}). */
  readonly groupCommit: number
  readonly fingerprint: string | null
  readonly parts: Readonly<Record<string, string>>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** What one {@link IndexShape.commitBatch} added. */
export interface CommittedBatch {
  readonly events: number
  /** Sessions the batch put in the index: a new generation of a session it holds (another generation's row) is none. */
  readonly sessions: number
}

/** A session as the index lists it. */
export interface SessionRow {
  readonly sessionUid: string
  readonly provider: ProviderId
  readonly sessionId: string
  readonly sourceId: string
  readonly sourceKey: string
  /**
   * The machine the session's source is on (`import --machine` / `push --machine`, default the host's name) on a
   * PostgreSQL team index; null on a SQLite index, which is one machine's and names none (see {@link IndexShape.namesMachines}).
   */
  readonly machine: string | null
  readonly locator: Locator
  /** The provider's own discovery summary of the session's source (shown, never read by key). */
  readonly summary: Record<string, unknown>
  /** The typed discovery summary of the session's source (its `sessionId` says which session it is about). */
  readonly overview: SourceSummary
  readonly generation: number
  readonly title: string | null
  readonly workspace: string | null
  readonly firstAt: string | null
  readonly lastAt: string | null
  readonly eventCount: number
  /**
   * `incomplete` when the generation of the session's source that readers are shown is not read to its end yet
   * (`sources.status` `importing`): the source's first generation (or one begun with no complete generation to keep
   * showing) whose import or push was killed, stopped part-way or is still running, so `eventCount` events are a
   * prefix of the session. `complete` otherwise, also while a newer generation is read beside a complete one (readers
   * are shown the complete one). See {@link sessionStatusOf} and docs/index.md, "Incomplete sessions".
   */
  readonly status: SessionStatus
}

/**
 * Whether a listed session is whole ({@link SessionRow.status}): `incomplete` while the generation of its source that
 * readers are shown is still `importing`.
 */
export type SessionStatus = "complete" | "incomplete"

/**
 * The {@link SessionStatus} of a session from its source's `sources.status` at the generation shown: `importing`
 * (a first generation, or one begun with no complete one beside it, not read to its end) is `incomplete`; every other
 * status a reader lists (`complete`) is `complete`.
 */
export const sessionStatusOf = (sourceStatus: string): SessionStatus => (sourceStatus === "importing" ? "incomplete" : "complete")

/** Filters of {@link IndexShape.sessions}. Times are RFC 3339; `workspace` is a real path prefix. */
export interface SessionFilter {
  readonly provider?: ProviderId | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly workspace?: string | undefined
  /**
   * Only sessions of this machine's sources (exact; {@link SessionRow.machine}), or of any of these machines' (none
   * for an empty list: the MCP server's `machine` argument names the machines whose name as shown is the one asked
   * for). An index that names no machines (SQLite) matches none: callers refuse the filter there
   * ({@link IndexShape.namesMachines}).
   */
  readonly machine?: string | ReadonlyArray<string> | undefined
  /**
   * Only sessions of this {@link SessionRow.status} (`incomplete`: their shown generation's source is still
   * `importing`), filtered in the query: the usage report counts the incomplete ones without reading every session.
   */
  readonly status?: SessionStatus | undefined
  /** At most this many sessions (the latest ones); all when absent. */
  readonly limit?: number | undefined
  /**
   * Only sessions of this source ({@link SessionRow.sourceKey}, exact): those its shown generation holds, as the
   * other filters see them (in the same one query). What a rewritten source's report names the sessions its file no
   * longer holds with (`src/layers/index/rewritten.ts`).
   */
  readonly sourceKey?: string | undefined
}

/**
 * Filters of {@link IndexShape.search}. Times are RFC 3339 and bound the
 * event's `occurredAt` (events without a time, and session titles, are left
 * out when one is given); `session` is a session's `ses_…` uid or native id
 * (exact); `workspace` a real path prefix, as {@link SessionFilter}'s.
 */
export interface SearchFilter {
  readonly provider?: ProviderId | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly session?: string | undefined
  /**
   * Only hits of these sessions, by their `ses_…` uid (exact): what `searchSessionFilter` in
   * `layers/index/queries.ts` resolves a `--session` to, so a uid never also takes in a session whose native id
   * happens to be that string (tester32a F9). With `session` too, a hit passes both.
   */
  readonly sessionUids?: ReadonlyArray<string> | undefined
  readonly workspace?: string | undefined
  /** Only events of this role (titles are left out). */
  readonly role?: Exclude<Role, null> | undefined
  /** Only events of this kind (`message`, `tool-call`, `tool-result`, …; titles are left out). */
  readonly kind?: string | undefined
  /** Only hits of sessions of this machine's sources (or of any of these machines'), as {@link SessionFilter.machine}. */
  readonly machine?: string | ReadonlyArray<string> | undefined
  /** At most this many hits (default {@link DEFAULT_SEARCH_LIMIT}). */
  readonly limit?: number | undefined
}

/** Hits {@link IndexShape.search} answers when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 20

export { MAX_SEARCH_LIMIT } from "../domain/search/limits.js"

/**
 * One search hit: the session, the event (all null for a hit on the
 * session's title), the snippet and the score (lower is better): SQLite's
 * `bm25()`, or on PostgreSQL minus `ts_rank_cd` (not comparable across
 * engines).
 */
export interface SearchHit {
  readonly sessionUid: string
  readonly sessionId: string
  readonly title: string | null
  readonly provider: ProviderId
  readonly workspace: string | null
  /** The machine of the session's source, as {@link SessionRow.machine} (null on SQLite). */
  readonly machine: string | null
  readonly eventUid: string | null
  readonly eventId: string | null
  readonly kind: string | null
  readonly role: Role
  readonly occurredAt: string | null
  readonly sequence: number | null
  /** The event's cursor: `stream --cursor` resumes right after it; `show <session> --around <eventId>` shows it in context. */
  readonly cursor: string | null
  /** The matched field's window and its matches' `marks`, offsets in UTF-16 code units (see {@link Snippet}). */
  readonly snippet: Snippet
  readonly score: number
  /** The hit's session's {@link SessionRow.status}: `incomplete` marks a hit of a session not imported whole yet. */
  readonly sessionStatus: SessionStatus
}

/**
 * How {@link IndexShape.usage} groups: by session (its uid), day (UTC
 * `YYYY-MM-DD`), model, provider, workspace or machine (a team index's
 * machine name, as `import --machine` / `push` wrote the session's source;
 * null on a SQLite index, which names no machines); or by response (`response`:
 * each counted usage row on its own, keyed `<session uid> <response key>`,
 * the key of `domain/usage.ts`'s `UsageRow`), what an export of a session
 * places on its events (`sessionUsage` in `layers/index/queries.ts`).
 */
export type UsageBy = "session" | "day" | "model" | "provider" | "workspace" | "machine" | "response"

/**
 * What {@link IndexShape.usage} reads: the grouping, and filters on the
 * usage rows (a response's time: RFC 3339 `since` / `until`, inclusive; a
 * row without a time is left out by either), the session's provider and
 * workspace (a real path prefix), its machine (a team index's exact machine
 * name; on a SQLite index, which names none, nothing matches one), or the
 * given sessions (uids) only.
 */
export interface UsageFilter {
  readonly by: UsageBy
  readonly sessionUids?: ReadonlyArray<string> | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly provider?: ProviderId | undefined
  readonly workspace?: string | undefined
  readonly machine?: string | undefined
}

/**
 * Copies of responses that count in another session ({@link IndexShape.usageElsewhere}):
 * `responses` usage rows of the session `sessionUid` that repeat responses
 * counted in the session `countedInUid` (native id `countedInId`, the same as
 * the session's own for a log copied to a second place; provider
 * `countedInProvider`): the Claude Code session for an AgentMux copy of a
 * Claude Code run, else the session that began first (docs/usage-and-cost.md
 * "Tokens and cost", "Copies of a response").
 */
export interface UsageElsewhere {
  readonly sessionUid: string
  readonly countedInUid: string
  readonly countedInId: string
  readonly countedInProvider: ProviderId
  readonly responses: number
}

/** Named points inside a batch commit, for crash-injection tests. */
export type CommitPoint = "mid-batch" | "before-commit" | "after-commit"

/**
 * An event as the index stores it ({@link IndexShape.forEachStoredEvent}): its `kind`, the JSON texts its strings
 * are stored in, and the event itself, decoded on demand.
 */
export interface StoredEvent {
  readonly kind: string
  /**
   * Texts that together hold every string of the event (its keys too), each string whole and JSON-escaped (as
   * `JSON.stringify` writes it) in one of them, but the values of its structural fields (provider, source and
   * session ids, sequence, kind, time) and of the fields the reader said it keeps (`kept` of
   * {@link IndexShape.forEachStoredEvent}); null when the stored form does not say (the event must be decoded to be
   * read).
   */
  readonly texts: ReadonlyArray<string> | null
  /** The event, decoded (each call decodes it again). */
  readonly event: () => SessionEvent
}

/** Where {@link IndexShape.eventsStream} starts: at the first event whose `sequence` is this one or more. */
export interface EventsFrom {
  readonly sequence: number
}

/** The index's operations. Every one fails only with `StoreUnavailable`, but `search` (see there). */
export interface IndexShape {
  /**
   * True when the index holds several machines' sources and names each row's machine ({@link SessionRow.machine}:
   * a PostgreSQL team index); false for a SQLite index, one machine's, whose rows name none (`machine` null), where
   * a `machine` filter is refused by the CLI and the MCP server (`machineFilter` in `layers/index/queries.ts`).
   */
  readonly namesMachines: boolean
  /**
   * How the index's search words are folded: `current` but for a SQLite index made by an older build and read without
   * migrating it (`unfolded` before migration 0012, `all-marks` before 0013, `jamo` before 0014), whose `search` then
   * folds the query's words as that build did until the next `import` or `index migrate` folds the index's words
   * again (docs/search.md, "Case and accents"; what it misses: `searchFoldNote`). A PostgreSQL index: `current`.
   */
  readonly searchFold: SearchFold
  /**
   * The machine names of the index's sources (each once, in no set order; not the rejected sources'): a team
   * (PostgreSQL) index's, as `import --machine` / `push --machine` wrote them; none on a SQLite index, which names
   * no machines ({@link IndexShape.namesMachines}). One query.
   */
  readonly machines: Effect.Effect<ReadonlyArray<string>, StoreUnavailable>
  /**
   * The key this index keeps a source under (see `sourceKey` in
   * `src/domain/index/ids.ts`): SQLite's keys name no machine (the file is
   * one machine's); PostgreSQL's carry the machine the layer writes for.
   */
  readonly sourceKey: (provider: ProviderId, locator: Locator) => string
  /**
   * Run an import run (`Importer.run`) as one writer of the index among
   * processes: a SQLite file opened with an import lock takes it at the run's
   * first write (waiting for another process's run, which may fail the write
   * `StoreUnavailable` `import-running`), runs again from the start (holding
   * it) when another process committed after this run read its checkpoints,
   * and lets it go when the run ends. A PostgreSQL index does not keep runs
   * apart (each machine's sources are its own): it refreshes the planner's
   * statistics after a run that wrote many events (`refreshStatistics` in
   * `src/layers/index/postgres.ts`). Absent: runs are not kept apart (a layer
   * opened without the lock).
   */
  readonly importRun?: (<A, E, R>(run: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) | undefined
  /** The checkpoint of a source, if it was ever imported. */
  readonly checkpoint: (sourceKey: string) => Effect.Effect<Option.Option<Checkpoint>, StoreUnavailable>
  /**
   * The error a source's last read was rejected with, as {@link IndexShape.rejectSource}
   * noted it (`sources.error_code`, `error_message`), when its row holds one:
   * a source imported before and rejected since keeps its checkpoint (status
   * `complete`) with the error beside it. Undefined: no row, or no error
   * noted. One point query (an import asks it only of a source imported
   * before whose file changed).
   */
  readonly rejectionOf: (sourceKey: string) => Effect.Effect<{ readonly code: string; readonly message: string } | undefined, StoreUnavailable>
  /**
   * Every source's checkpoint with its locator and discovery summary, by
   * source key (one query): of this index's machine only, in an index that
   * holds several machines' sources (the sources an import may supersede).
   * Without the typed summary (`overview`), which an import never reads of a
   * checkpoint: one column less to fetch for every source.
   */
  readonly checkpoints: Effect.Effect<ReadonlyMap<string, SourceCheckpoint>, StoreUnavailable>
  /**
   * {@link checkpoints} as an import reads them, when the index has a
   * cheaper way (a SQLite index an import writes): each with its
   * `keptOverview`, and its `summary` read when first asked for (all
   * summaries at once, the largest column by far), which must be while the
   * index is open (the import's discovery). Absent: the import reads
   * {@link checkpoints}.
   */
  readonly importCheckpoints?: Effect.Effect<ReadonlyMap<string, SourceCheckpoint>, StoreUnavailable> | undefined
  /**
   * Start generation `generation` of a source: marks every older generation
   * superseded (with `reason`) and resets the cursor. Whole or not at all
   * (one transaction, or SQLite's shared one: see {@link Batch.groupCommit}).
   * Within an attempt ({@link IndexShape.beginAttempt}) over a complete
   * generation, the new one is begun beside it instead: readers keep the
   * complete one until {@link IndexShape.completeSource} switches them, and
   * the checkpoint read back is the new one's, with
   * {@link Checkpoint.shownGeneration} (docs/index.md, "Generations").
   */
  readonly beginGeneration: (
    source: SourceInfo,
    generation: number,
    reason: string
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Begin (or, after a kill, continue) an import attempt of a source: keeps
   * the checkpoint as it is now, the state {@link IndexShape.rejectSource}
   * rolls back to, until {@link IndexShape.completeSource} ends the attempt.
   * Answers the attempt's id for {@link Batch.attempt}. Whole or not at all,
   * as {@link IndexShape.beginGeneration}.
   */
  readonly beginAttempt: (source: SourceInfo) => Effect.Effect<number, StoreUnavailable>
  /**
   * Insert a batch of events (existing ids are left alone) and move the
   * checkpoint to the batch's last cursor, in one transaction (with other
   * batches, see {@link Batch.groupCommit}). `onPoint` is
   * called at the commit points (tests inject crashes there). Answers how
   * many events were actually inserted, and how many sessions this batch
   * added to the index (counted inside the transaction, so imports running at
   * once each count only their own).
   */
  readonly commitBatch: <E, R>(
    batch: Batch,
    onPoint: (point: CommitPoint) => Effect.Effect<void, E, R>
  ) => Effect.Effect<CommittedBatch, StoreUnavailable | E, R>
  /**
   * Commit what the write operations left pending ({@link Batch.groupCommit});
   * the importer calls it at the end of a run. Absent: every operation
   * commits on its own.
   */
  readonly flush?: Effect.Effect<void, StoreUnavailable> | undefined
  /**
   * A source never imported before, read whole already (a small log), written
   * as one operation: {@link IndexShape.beginAttempt}, generation 1
   * ({@link IndexShape.beginGeneration}, reason "first import"), each of its
   * batches as {@link IndexShape.commitBatch} writes them (same fault points,
   * same group commits: `groupCommit` events of any sources per transaction),
   * then {@link IndexShape.completeSource}, in one synchronous step instead of
   * a chain of effects per source. The checkpoints committed are the same as
   * with those calls one by one; a failure part-way rolls back the open
   * transaction as any write operation does. `onPoint` is run at each commit
   * point, synchronously (it must need no service and not wait: a failure it
   * gives stops the step there, as at {@link IndexShape.commitBatch}'s points). Answers, per batch, what it added.
   * Absent: the importer makes the calls one by one.
   */
  readonly importWhole?: <E>(
    whole: WholeSource,
    onPoint: (point: CommitPoint) => Effect.Effect<void, E>
  ) => Effect.Effect<ReadonlyArray<CommittedBatch>, StoreUnavailable | E>
  /**
   * Mark the current generation read to its end, with the fingerprint taken
   * before reading, the nested logs' prefix bindings and the read's
   * diagnostics; ends the attempt. A new generation begun beside a complete
   * one ({@link IndexShape.beginGeneration}) becomes current here, in the
   * same transaction: the older ones superseded with its reason.
   */
  readonly completeSource: (
    source: SourceInfo,
    fingerprint: string | null,
    read?: { readonly parts?: Readonly<Record<string, string>>; readonly diagnostics?: ReadonlyArray<Diagnostic> }
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Reject a source with an error code, in one transaction: everything its
   * attempt added (events, sessions, generations, also those of a killed run
   * it continued) is removed, and its checkpoint is put back as the attempt
   * found it, with the error noted; a source never imported before is left
   * as `rejected` with no events. An index never holds events of a rejected
   * source.
   */
  readonly rejectSource: (
    source: SourceInfo,
    code: string,
    message: string
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Supersede a source's current generation without a new one replacing it
   * (what it imported is no longer what its file holds, or the file is now
   * read as another source): the generation is marked superseded with
   * `reason`, and the checkpoint moves to an empty generation after it
   * (status `superseded`, no cursor, fingerprint or bindings), so none of its
   * sessions or events are listed any more; they stay in the file, as every
   * superseded generation's do. One transaction. Reading the source again
   * later starts a new generation.
   */
  readonly supersedeSource: (sourceKey: string, reason: string) => Effect.Effect<void, StoreUnavailable>
  /**
   * A source with a new generation begun beside its complete one and not
   * read to its end ({@link Checkpoint.shownGeneration}) whose file is gone:
   * what the new generation holds is removed and the attempt ended, the
   * complete generation staying current as it was (the index is an
   * archive). Nothing when the source has no such generation. One
   * transaction.
   */
  readonly discardGeneration: (sourceKey: string) => Effect.Effect<void, StoreUnavailable>
  /** The sessions of current, non-rejected generations, latest activity first. */
  readonly sessions: (filter: SessionFilter) => Effect.Effect<ReadonlyArray<SessionRow>, StoreUnavailable>
  /**
   * Sessions whose uid or native session id is `id` (current generations of sources not rejected, as
   * {@link IndexShape.sessions} lists them), in its order: latest activity first (none last), then by uid.
   */
  readonly findSessions: (id: string) => Effect.Effect<ReadonlyArray<SessionRow>, StoreUnavailable>
  /**
   * Sessions whose uid or native session id starts with `prefix` (current
   * generations; case-sensitive; an empty prefix matches none), latest
   * activity first, at most `max` of them. What `findSession` in
   * `layers/index/queries.ts` resolves an abbreviated id with.
   */
  readonly findSessionsByPrefix: (prefix: string, max: number) => Effect.Effect<ReadonlyArray<SessionRow>, StoreUnavailable>
  /** The events of a session (current generation), in source order. */
  readonly events: (sessionUid: string) => Effect.Effect<ReadonlyArray<SessionEvent>, StoreUnavailable>
  /**
   * Bytes of a session's events' JSON, about (SQLite: a lean row counted with
   * what its event restates): what holding them whole costs, roughly.
   */
  readonly sessionBytes: (sessionUid: string) => Effect.Effect<number, StoreUnavailable>
  /**
   * {@link IndexShape.events} a page at a time (`pageSize` events per query,
   * in the same order): memory stays bounded however long the session.
   * `from`: only the events whose `sequence` is `from.sequence` or more (the
   * order is `(sequence, event uid)`), the first page one index range from
   * there (session 31, tester30c F5: MCP `get_events` resumes at its cursor's
   * event without reading the session from its start).
   */
  readonly eventsStream: (sessionUid: string, pageSize?: number, from?: EventsFrom) => Stream.Stream<SessionEvent, StoreUnavailable>
  /**
   * The events of {@link IndexShape.eventsStream}, in the same order and pages, each given to `f` as it is stored
   * ({@link StoredEvent}): decoded only when `f` asks (`event()`), so a reader that needs few of a session's events
   * (the secrets a session's events note: `sessionSecretsKept` in `src/layers/mcp/answers.ts`) does not parse the
   * others. Optional: an index without it (PostgreSQL) is read through `eventsStream`. A row that cannot be decoded
   * is `StoreUnavailable`, as in `eventsStream`. `kept`: fields (`field`, or `field.key` of an object field) whose
   * values the texts may leave out (those a redaction keeps as they are: `EVENT_STRUCTURAL_FIELDS`). When `f` answers
   * an Effect (work on a huge text that pauses), it is run before the next event.
   */
  readonly forEachStoredEvent?: (
    sessionUid: string,
    f: (e: StoredEvent) => void | Effect.Effect<void>,
    pageSize?: number,
    kept?: ReadonlySet<string>
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Full-text search over every event of current generations: message text,
   * thinking, tool inputs (every string leaf) and results, runtime fact and
   * compaction summaries, and session titles; best first (SQLite: BM25;
   * PostgreSQL: `ts_rank_cd` over the same words). Query syntax:
   * `src/domain/search/query.ts`. Fails with `InvalidSearchQuery` (bad
   * syntax, exit 2), and with `UnsupportedOperation` on a SQLite index read
   * read-only from before search existed (migration `0004_search`): an
   * `import` into it once adds search (a PostgreSQL index gets it from
   * `index migrate`, migration `0002_search`).
   */
  readonly search: (
    query: string,
    filter: SearchFilter
  ) => Effect.Effect<ReadonlyArray<SearchHit>, InvalidSearchQuery | UnsupportedOperation | StoreUnavailable>
  /**
   * The events of a session around one of its events (`eventId`: its native
   * id or its index uid): up to `before` events before it and `after` after
   * it, in source order, with the event's position in the answer (`at`).
   * `Option.none()` when the session holds no such event.
   */
  readonly eventsAround: (
    sessionUid: string,
    eventId: string,
    before: number,
    after: number
  ) => Effect.Effect<Option.Option<{ readonly events: ReadonlyArray<SessionEvent>; readonly at: number }>, StoreUnavailable>
  /**
   * The usage rows of current generations (one per model response, kept at
   * import: see `domain/usage.ts`), grouped by `filter.by` and by how they
   * count, for `summarizeGroups`: no scan of events. An index of an earlier
   * build, read without migrating it, derives the rows from its events.
   */
  readonly usage: (filter: UsageFilter) => Effect.Effect<ReadonlyArray<UsageGroup>, StoreUnavailable>
  /**
   * The usage rows that {@link usage} leaves out because they are copies of
   * a response counted in another session, by session and by the session
   * they count in, with the same filters (a copy's own time, its session's
   * provider and workspace, the given sessions). Ordered by session uid, then
   * the uid they count in. Empty when no session holds such a copy.
   */
  readonly usageElsewhere: (filter: Omit<UsageFilter, "by">) => Effect.Effect<ReadonlyArray<UsageElsewhere>, StoreUnavailable>
  /**
   * The index's shown-id key (32 random bytes made once per index by its migration, SQLite 0011 / PostgreSQL 0010,
   * in its `meta` table): what keys the ids a redacted output shows (`src/domain/shown-ids.ts`). Null for a SQLite
   * index from before that migration, read without migrating it.
   */
  readonly shownIdKey: Effect.Effect<Uint8Array | null, StoreUnavailable>
  /** Row counts, for reports and tests. */
  readonly counts: Effect.Effect<{ readonly sources: number; readonly sessions: number; readonly events: number }, StoreUnavailable>
  /** Every row of every table, ordered, for consistency checks in tests. */
  readonly dump: Effect.Effect<Record<string, ReadonlyArray<unknown>>, StoreUnavailable>
}

/** The index service. */
export class Index extends Context.Tag("session-ingest/Index")<Index, IndexShape>() {}
