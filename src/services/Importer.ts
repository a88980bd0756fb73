/**
 * The importer: brings every authorized source into the {@link Index},
 * resumably and idempotently, and reports coverage. Live layer:
 * `src/layers/index/importer.ts`.
 *
 * Source: issue "The index" (checkpoints, generations, crash safety, coverage).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StoreUnavailable } from "../domain/errors.js"
import type { Hash } from "node:crypto"
import type { DiscoveryReport, Locator, ProviderId, SourceSummary } from "../domain/model.js"
import { isFileWarningKind } from "../domain/warning-kinds.js"
import type { DiscoverRequest } from "./SessionSource.js"
import type { CommitPoint } from "./Index.js"

/** What to import: providers to discover (with their requests) and explicit sources. */
export interface ImportPlan {
  readonly discover: ReadonlyArray<{
    readonly provider: ProviderId
    readonly request: DiscoverRequest
    /** The operator named this provider's root or store: finding it unavailable makes coverage partial. */
    readonly configured?: boolean | undefined
    /** Finding no source at all makes coverage partial (an agent UID that is not in the store). */
    readonly expectSources?: boolean | undefined
  }>
  readonly explicit: ReadonlyArray<{
    readonly provider: ProviderId
    readonly locator: Locator
    /**
     * What an earlier discovery said of it (a watch's targeted round; default:
     * none). Given, the source is checkpointed as not yet seen by discovery
     * (its fingerprint marked `+summary:earlier`), so the next run with
     * discovery takes it again and stores the summary of the file as it is then.
     */
    readonly summary?: Record<string, unknown> | undefined
    /**
     * What an earlier discovery said of it (a watch's targeted round): given,
     * its `parseWarnings` count the file's lines up to `linesCounted`
     * (default: its `counts.lines`, the lines that discovery read), and the
     * import adds those of the lines it reads after that line to them (its
     * report's `parseWarnings`: a bad line appended since is counted in the
     * run that read it, once). Absent: the source is read as it is, its
     * warnings as its read tells them.
     */
    readonly overview?: SourceSummary | undefined
    /** The line (1-based) up to which `overview.parseWarnings` counts the file's lines (see `overview`). */
    readonly linesCounted?: number | undefined
  }>
  /** Providers the operator did not authorize, with the remediation that would include them. */
  readonly skipped: ReadonlyArray<{ readonly provider: ProviderId; readonly remediation: string }>
  /**
   * Events per batch (default 500): what a source's stream is cut into, each
   * with its checkpoint (cursor), and a parse worker answers in.
   */
  readonly batchSize?: number | undefined
  /**
   * Events per transaction: the import commits once this many events of any
   * sources are pending (SQLite; PostgreSQL commits every batch), and at the
   * end of the run. Default: `batchSize` when the plan sets it, else 5000
   * (`DEFAULT_COMMIT_EVENTS` in `layers/index/importer.ts`). A killed import
   * loses at most what was not committed; the next run resumes from the
   * checkpoints committed.
   */
  readonly commitEvents?: number | undefined
  /**
   * Threads that read and parse new sources (`import --jobs`): 2 or more
   * start that many worker threads while this one writes; 1, none. Default:
   * the machine's cores, at most 4 (`defaultJobs` in `layers/index/parse-pool.ts`).
   */
  readonly jobs?: number | undefined
}

/**
 * Coverage of one provider in a run: the head of its discovery report (its
 * explicit files counted in), made partial by any rejected source, with the
 * discovery diagnostics when it is not complete, and the candidates its spec
 * leaves out (`omitted`, by reason; they do not make it partial) with the
 * discovery `notes` that say so for people.
 */
export type ProviderCoverage = Pick<
  DiscoveryReport,
  "provider" | "status" | "coverage" | "sourceCount" | "reasonCode" | "remediation" | "diagnostics" | "omitted" | "notes"
>

/** A source the run could not import. */
export interface RejectedSource {
  readonly provider: ProviderId
  readonly path: string
  readonly code: string
  readonly message: string
  readonly remediation: string | null
}

/** One cause of partial coverage: what went wrong, and what to do about it. */
export interface PartialCause {
  readonly provider: ProviderId
  /** The error or reason code (`SOURCE_NOT_FOUND`, `AGENTS_ROOT_NOT_FOUND`, `NO_SOURCES`, …). */
  readonly code: string
  /** The source it concerns, for a rejected source; else null. */
  readonly path: string | null
  /** What went wrong. */
  readonly problem: string
  /** What to do about it, when something can be. */
  readonly remedy: string | null
}

/** A {@link PartialCause} on one line: `provider: [path: ]CODE: problem Remedy: remedy` (the report's `remediations`). */
export const causeLine = (c: PartialCause): string =>
  `${c.provider}: ${c.path !== null ? `${c.path}: ` : ""}${c.code}: ${c.problem}${c.remedy !== null ? ` Remedy: ${c.remedy}` : ""}`

/** The parse warnings of an import run's sources (see {@link ImportReport.parseWarnings}). */
export interface ParseWarningsReport {
  /** The lines counted (skipped, or kept with a part dropped): every kind but the file kinds. */
  readonly lines: number
  /** The files, or parts of a file, left out counted (`FILE_WARNING_KINDS`: Claude Code's subagent files that are not their agent's transcript, AgentMux's `output.tsidx` parts missing). */
  readonly files: number
  readonly sources: number
  readonly byKind: Record<string, number>
  readonly items: ReadonlyArray<{
    readonly provider: ProviderId
    readonly path: string
    readonly kind: string
    readonly count: number
    /** 1-based; null when the source does not say. */
    readonly firstLine: number | null
  }>
}

/**
 * A run's {@link ParseWarningsReport} from each source's warnings (a source's
 * provider, path and counted warnings: a discovery overview's
 * `parseWarnings`, and what its read added): lines summed (files apart, for
 * the kinds that count files: `FILE_WARNING_KINDS`), sources with any
 * counted, lines by kind, one item per source and kind. Kinds counted 0 are
 * left out. What `import` reports and `discover` prints, summed the same way.
 */
export const tallyParseWarnings = (
  sources: Iterable<{
    readonly provider: ProviderId
    readonly path: string
    readonly warnings: ReadonlyArray<{ readonly kind: string; readonly count: number; readonly firstLine: number | null }>
  }>
): ParseWarningsReport => {
  const items: Array<ParseWarningsReport["items"][number]> = []
  const byKind: Record<string, number> = {}
  let lines = 0, files = 0, withAny = 0
  for (const s of sources) {
    let any = false
    for (const p of s.warnings) {
      if (p.count <= 0) continue
      any = true
      if (isFileWarningKind(p.kind)) files += p.count
      else lines += p.count
      byKind[p.kind] = (byKind[p.kind] ?? 0) + p.count
      items.push({ provider: s.provider, path: s.path, kind: p.kind, count: p.count, firstLine: p.firstLine })
    }
    if (any) withAny++
  }
  return { lines, files, sources: withAny, byKind, items }
}

/** The code of {@link ParseWorkersFailed}. */
export const PARSE_WORKERS_UNAVAILABLE = "PARSE_WORKERS_UNAVAILABLE"

/** Parse workers that could not start (see {@link ImportReport.parseWorkers}). */
export interface ParseWorkersFailed {
  readonly code: typeof PARSE_WORKERS_UNAVAILABLE
  /** What went wrong, one line (the worker's error, its exit code, or the time it was given). */
  readonly problem: string
  /** The new sources read in the run's own thread instead. */
  readonly sources: number
}

/** The coverage report printed at the end of every run (and in `--json`). */
export interface ImportReport {
  readonly coverage: "complete" | "partial"
  readonly providers: ReadonlyArray<ProviderCoverage>
  /** Providers the operator did not authorize, with what would include them. */
  readonly notIncluded: ReadonlyArray<{ readonly provider: ProviderId; readonly remediation: string }>
  readonly sources: {
    readonly discovered: number
    readonly accepted: number
    readonly unchanged: number
    readonly rejected: number
    readonly rejectedByCode: Record<string, number>
    readonly newGenerations: number
    /**
     * Candidates the providers' specs leave out (e.g. a Muse agents transcript
     * without a `session_header`, seed 000): not sources, not missed, so
     * coverage stays complete; counted here so nothing disappears unsaid.
     */
    readonly omitted: number
    /** {@link ImportReport.sources.omitted} by reason (`no-session-header`, `no-prompts-or-tool-calls`, …). */
    readonly omittedByReason: Record<string, number>
    /**
     * Sources imported before whose generation this run superseded without
     * importing them again (see {@link ImportReport.superseded}): their
     * sessions are no longer listed, as a fresh import would not list them.
     */
    readonly superseded: number
    /**
     * Sources imported before from below a root discovery went through, not
     * listed this time because their file is gone: kept in the index as they
     * were (the index is an archive), not read; not a coverage problem.
     */
    readonly gone: number
    /**
     * Sources that could not be read this run: imported before, or listed by
     * discovery but never read (a Claude Code session log) (permission
     * denied, an I/O error, a folder that cannot be listed or searched):
     * kept in the index as they were (never superseded, never a new
     * generation), each a `SOURCE_UNREADABLE` cause of partial coverage
     * (docs/import.md "Unreadable sources"). A source never imported that cannot be
     * read is `rejected` instead (nothing of it is in the index).
     */
    readonly unreadable: number
  }
  /**
   * Sessions new to the index: a session a source's new generation holds again (a rewritten or rolled-back log)
   * is not counted, its events are (`eventsAdded`: the events the run wrote, a new generation's all of them).
   */
  readonly sessionsAdded: number
  readonly eventsAdded: number
  /**
   * Of {@link ImportReport.eventsAdded}, the events written into the new generations of sources imported before
   * ({@link ImportReport.sources.newGenerations}: a file changed in its imported part, read again whole): re-read, not
   * new. The text report's `added:` line counts `eventsAdded` less these, and says them `re-imported`.
   */
  readonly eventsReimported: number
  /**
   * The sessions no command shows any more after this run: each a session of a source read again as a new
   * generation (`SOURCE_REWRITTEN`) whose file no longer names it (a session left out of a Muse Code export, a file
   * now another session's), with the events imported of it. The index keeps them in the superseded generation, which
   * no command shows (docs/import.md, "Sources rewritten after a prefix of what was imported"). Said in this run only.
   */
  readonly sessionsNoLongerShown: ReadonlyArray<SessionNoLongerShownBy>
  /**
   * The lines the sources' parse warnings skipped (tolerant providers skip a
   * bad line and count it; `overview.parseWarnings` of each source the run
   * discovered, imported or not): `lines` in all, the subagent `files` left
   * out apart, in how many `sources`, `byKind` (e.g. `not-json`), and one
   * item per source and kind with its first line (1-based).
   */
  readonly parseWarnings: ParseWarningsReport
  /**
   * Present when parse workers were asked for (`import --jobs` 2 or more,
   * enough new sources) and could not start: their entry exists but does
   * not load (a truncated or damaged build). The run read those sources in
   * its own thread, as with `--jobs 1` (same index, same report otherwise);
   * not a coverage problem.
   */
  readonly parseWorkers?: ParseWorkersFailed | undefined
  /**
   * The workspaces (absolute paths, as discovery gave each source's `overview.workspace`) of the sources this run
   * discovered, rejected ones included: what tells a `--workspace` missing on this machine whose sessions were found
   * (native Muse Code logs naming it: the agent ran in a container) from a mistyped one (tester36a F7). Read by the
   * CLI's `WORKSPACE_NOT_FOUND` check, which leaves it out of what it prints.
   */
  readonly workspacesFound?: ReadonlyArray<string> | undefined
  readonly rejected: ReadonlyArray<RejectedSource>
  /** Each source counted in {@link ImportReport.sources.superseded}, with why. */
  readonly superseded: ReadonlyArray<SupersededSource>
  /** One line per cause of partial coverage, saying what to do ({@link causeLine} of each of `causes`). */
  readonly remediations: ReadonlyArray<string>
  /** The causes of partial coverage, problem and remedy apart. */
  readonly causes: ReadonlyArray<PartialCause>
}

/** A session no longer shown ({@link ImportReport.sessionsNoLongerShown}): its provider, its source's file, its native id and events. */
export interface SessionNoLongerShownBy {
  readonly provider: ProviderId
  readonly path: string
  readonly sessionId: string
  /** The events imported of it from that file (those of the file's own source id). */
  readonly events: number
}

/**
 * A source whose imported generation an import superseded without importing
 * it again: its file is now read as another source (`reason` says which ids
 * changed), or discovery no longer selects it and what was imported is no
 * longer in its file (`reason` says what changed).
 */
export interface SupersededSource {
  readonly provider: ProviderId
  readonly path: string
  readonly reason: string
}

/** The importer's operation. */
export interface ImporterShape {
  /** Run a plan to its end. Per-source failures are counted in the report; only the index failing fails the run. */
  readonly run: (plan: ImportPlan) => Effect.Effect<ImportReport, StoreUnavailable>
}

/** The importer service. */
export class Importer extends Context.Tag("session-ingest/Importer")<Importer, ImporterShape>() {}

/**
 * Where a run is (issue 13, item 7): sent when a source is done and after
 * each batch of events a source commits.
 */
export interface ImportProgressUpdate {
  readonly sourcesDone: number
  readonly totalSources: number
  /** Events added so far. */
  readonly events: number
  /** Bytes of the sources accepted so far (their size when imported). */
  readonly bytes: number
  /**
   * How far the run is through its sources' bytes: each source done counts
   * its whole weight, the source being read up to the end of its own file's
   * last read (capped at its weight). Never decreases; equals
   * {@link bytesTotal} once every source is done. 0 when the run did not
   * weigh its sources ({@link ImportProgressShape.weighsBytes}).
   */
  readonly bytesDone: number
  /**
   * The sources' weight: the sum of their files' sizes, one `stat` each
   * before the run (0 for a source that is not a plain file, such as an
   * AgentMux session, or that cannot be stat-ed). 0 when not weighed.
   */
  readonly bytesTotal: number
}

/** Progress of a run (for a display on stderr). */
export interface ImportProgressShape {
  /**
   * When true, the importer weighs the run's sources by their size before
   * starting (one `stat` each) and reports `bytesDone` of `bytesTotal`, so
   * that one big source moves a display as it is read. The silent default
   * does not: a run without a display costs no extra `stat`.
   */
  readonly weighsBytes?: boolean | undefined
  /** A run starts: its sources, and their weight in bytes (0 when not weighed). */
  readonly start: (totalSources: number, bytesTotal?: number) => Effect.Effect<void>
  readonly update: (p: ImportProgressUpdate) => Effect.Effect<void>
  readonly end: Effect.Effect<void>
}

/**
 * How far a run is, from 0 to 1: by bytes when it weighed its sources and
 * they weigh anything, else by sources done (1 for a run without sources).
 */
export const progressFraction = (p: ImportProgressUpdate): number =>
  p.bytesTotal > 0
    ? Math.min(1, p.bytesDone / p.bytesTotal)
    : p.totalSources > 0
    ? p.sourcesDone / p.totalSources
    : 1

/** Where progress goes. Default: nowhere ({@link ImportProgress.silent}). */
export class ImportProgress extends Context.Tag("session-ingest/ImportProgress")<ImportProgress, ImportProgressShape>() {
  /** No display: the service {@link ImportProgress.silent} provides (an importer may skip its updates altogether). */
  static none: ImportProgressShape = {
    start: () => Effect.void,
    update: () => Effect.void,
    end: Effect.void
  }
  /** No display. */
  static silent: Layer.Layer<ImportProgress> = Layer.succeed(ImportProgress, ImportProgress.none)
}

/**
 * Fault injection at the commit points of a batch (tests kill the import
 * there). Default: none ({@link ImportFaults.none}).
 */
export class ImportFaults extends Context.Tag("session-ingest/ImportFaults")<
  ImportFaults,
  { readonly at: (point: CommitPoint) => Effect.Effect<void> }
>() {
  /** No faults. */
  static none: Layer.Layer<ImportFaults> = Layer.succeed(ImportFaults, { at: () => Effect.void })
}

/** A source a run looked at ({@link ImportHooksShape.source}). */
export interface SeenSource {
  readonly provider: ProviderId
  /** Its locator, the path made absolute. */
  readonly locator: Locator
  readonly summary: Record<string, unknown>
  readonly overview: SourceSummary
  /** The other files its stream reads (nested logs), absolute. */
  readonly parts: ReadonlyArray<string>
  /** Its provider reads one source per file (`SessionSourceAdapter.sourcePerFile`). */
  readonly perFile: boolean
  /**
   * Given, `overview` is an earlier discovery's (a watch's targeted round) and its `parseWarnings` count the file's
   * lines up to this one (1-based), those of the lines read since included: what the watch's next targeted round
   * passes as `ImportPlan.explicit[].linesCounted`. The importer tells the source again, with these, once a read
   * added to them.
   */
  readonly linesCounted?: number | undefined
}

/** What {@link ImportHooks} is told and asked; every member may be a no-op. */
export interface ImportHooksShape {
  /** A provider's discovery went through these roots (real paths). */
  readonly roots: (provider: ProviderId, roots: ReadonlyArray<string>) => Effect.Effect<void>
  /** A source the run looked at, imported or unchanged (before it is read). */
  readonly source: (source: SeenSource) => Effect.Effect<void>
  /**
   * Asked before the importer hashes the imported prefix of `path` again
   * (its stat changed since the checkpoint): answer the sha256 state over
   * exactly the checkpoint's `binding` (`<n>:<hex>`, see
   * `src/layers/index/prefix.ts`) when the caller has verified, in this
   * process, that the first n bytes are still those (e.g. `watch.ts`: same
   * file, never shorter, the bytes before the cursor unchanged), else null:
   * the importer then reads and hashes the prefix, as without hooks.
   */
  readonly trustedPrefix: (path: string, binding: string) => Effect.Effect<Hash | null>
  /** A source's own file was committed up to `binding`; `state` is the sha256 state there (the caller's copy). */
  readonly imported: (path: string, binding: string, state: Hash) => Effect.Effect<void>
}

/**
 * Optional hooks of a long-running importer (the `import --watch` loop,
 * `src/layers/index/watch.ts`): what the importer saw, and a verified prefix
 * it need not hash again. Absent from the context: none (a plain import).
 */
export class ImportHooks extends Context.Tag("session-ingest/ImportHooks")<ImportHooks, ImportHooksShape>() {
  /** Hooks that do nothing and trust nothing. */
  static readonly none: ImportHooksShape = {
    roots: () => Effect.void,
    source: () => Effect.void,
    trustedPrefix: () => Effect.succeed(null),
    imported: () => Effect.void
  }
}
