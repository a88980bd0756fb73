/**
 * The import engine: discover the authorized sources, and for each one
 * resume from its checkpoint.
 *
 * - An unchanged source (same size, mtime and file identity as when its
 *   current generation was read to the end) costs a stat.
 * - A changed one has its imported prefix checked first (the digest of the
 *   bytes up to its cursor, and of each nested log, see `./prefix.ts`): any
 *   change there makes it a new generation, the old one marked superseded,
 *   never mixed, when the new one is read to its end (until then readers keep
 *   the old one; a killed run's new generation is resumed by the next, and
 *   discarded when the file is gone by then). Otherwise it is streamed from its checkpoint cursor (the
 *   adapter still refuses a cursor whose line or head changed:
 *   `INVALID_CURSOR`, also a new generation).
 * - Events go in batches, each written with the cursor of its last event and
 *   the prefix digest there. An index may keep several sources' batches in one
 *   transaction until a batch's worth of events is pending
 *   (`Batch.groupCommit`; the run ends with `Index.flush`): a killed process
 *   loses only what was not committed, and resumes from the checkpoints that
 *   were, which are those of the events committed.
 * - A source that fails is counted as rejected with its error code, and what
 *   its attempt added is rolled back (also the batches of a killed run it
 *   continued): an index never holds events of a rejected source. The run goes on.
 * - What a stream reports without failing (a bound nested log that is
 *   missing) is a diagnostic that makes its provider's coverage partial, kept
 *   with the checkpoint and reported again while the source is unchanged.
 *
 * Source: issue "The index"; issue 11 (items 4 and 5).
 *
 * @module
 */
import type { Hash } from "node:crypto"
import { NOT_READ_AGAIN, type SkippedSources } from "../../domain/skipped-unchanged.js"
import * as nodePath from "node:path"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Mutable } from "effect/Types"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type IngestError, isIngestError, type SourceAccessError, StoreUnavailable } from "../../domain/errors.js"
import { SOURCE_UNREADABLE, unreadableCause, type UnreadableDetails, unreadableOf } from "../../domain/unreadable.js"
import { type FingerprintStat, fingerprintOfStat, partEntry, partNameOf } from "../../domain/fingerprint.js"
import { peekCursor } from "../../domain/cursor.js"
import { isRecord, NUMBER_NOT_EXACT } from "../../domain/json.js"
import { RECORD_UUID_REUSED } from "../../domain/claude-code/record-ids.js"
import { REPEATED_RECORDS_SKIPPED, SEQUENCE_DECREASES } from "../../domain/muse-code/record-names.js"
import { PARSE_WARNING } from "../../domain/warning-kinds.js"
import { VANISHED_REMEDY } from "../../domain/vanished.js"
import { type Damaged, damagedCode, damagedSource, emptiedCause, garbledSource } from "./emptied.js"
import { rewrittenDiagnostic, type RewrittenEvents, rewrittenSource, SOURCE_REWRITTEN } from "./rewritten.js"
import { shorterThanImported, SOURCE_TRUNCATED, truncatedSource } from "./truncated.js"
import { type Diagnostic, type DiscoveredSource, emptySourceSummary, type Locator, type ParseWarning, type ProviderId, type SessionEvent, type SourceSummary } from "../../domain/model.js"
import type { AccessPolicyInput } from "../../services/AccessPolicy.js"
import { type SourceCheckpoint, type CommittedBatch, Index, type SourceInfo } from "../../services/Index.js"
import {
  causeLine,
  ImportFaults,
  ImportHooks,
  Importer,
  type ImportPlan,
  ImportProgress,
  type ImportReport,
  PARSE_WORKERS_UNAVAILABLE,
  type ParseWorkersFailed,
  type ParseWarningsReport,
  type PartialCause,
  type ProviderCoverage,
  type RejectedSource,
  type SeenSource,
  type SessionNoLongerShownBy,
  type SupersededSource,
  tallyParseWarnings
} from "../../services/Importer.js"
import { type KnownSource, type SessionSourceAdapter, SessionSources, type SourceRead } from "../../services/SessionSource.js"
import { planOf } from "../provider.js"
import { type ProviderPlanInputs, providers } from "../registry.js"
import { SourceAccess, type SourceAccessShape } from "../../services/SourceAccess.js"
import { bindingLength, PrefixDigests, verifyPrefix } from "./prefix.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import { sourceAccessNode } from "../SourceAccessNode.js"
import * as Fiber from "effect/Fiber"
import { defaultJobs, headsOf, makeParsePool, MIN_SOURCES_FOR_WORKERS, parseWorkerEntry, type ParseAnswer, preparedRowsOf, type ReadTitle, SOURCES_PER_REQUEST, workerStats } from "./parse-pool.js"
import { sinceDiscovery, stillAsBefore } from "./source-drift.js"


/**
 * The name a nested log goes by in fingerprints and prefix bindings: its file
 * name (Claude Code: `agent-<id>.jsonl`), or, for a file named
 * `session.jsonl` (Muse Code: `subagent/<name>/session.jsonl`), its folder's.
 * Unique among one source's parts.
 */
const partName = partNameOf

/**
 * A source's fingerprint: size, mtime and identity of its file (and of a
 * SQLite `-wal` beside it, where appends land first, and of the other files
 * the adapter says the source is read from: `parts`). Null when the source is
 * not a plain path (the adapter keeps its own incremental state) or cannot be
 * stat-ed (the stream will then report the real error). Options:
 * - `stat`: the own file's stat when the caller already took it (discovery's,
 *   `DiscoveredSource.stat`): not taken again;
 * - `wal: false`: the provider's files are never SQLite databases
 *   (`SessionSourceAdapter.noWal`): no `-wal` is looked for.
 */
export const fingerprintOf = (
  access: SourceAccessShape,
  locator: Locator,
  parts: ReadonlyArray<string> = [],
  options: { readonly stat?: FingerprintStat | undefined; readonly wal?: boolean | undefined } = {}
): Effect.Effect<string | null> => {
  const taken = options.stat
  if (locator.path === "") return Effect.succeed(null)
  // The common case of a settle pass (discovery's stat, no `-wal`, no parts): no I/O, no effect chain.
  if (taken !== undefined && options.wal === false && parts.length === 0) return Effect.succeed(fingerprintOfStat(taken))
  /** A file's stat entry, null when it is not there (a part's `<name>=<stat>`: its content is bound by the checkpoint's `parts`). */
  const stat = (p: string) => Effect.map(access.probe(p), (o) => (Option.isSome(o) ? fingerprintOfStat(o.value.stat) : null))
  // Plain combinators, no generator: the re-import of unchanged sources runs this once per source.
  const own = taken !== undefined ? Effect.succeed(fingerprintOfStat(taken)) : stat(locator.path)
  return Effect.flatMap(own, (main) => {
    if (main === null) return Effect.succeed(null)
    const withWal = options.wal === false
      ? Effect.succeed(main)
      : Effect.map(stat(`${locator.path}-wal`), (wal) => (wal === null ? main : `${main}+wal:${wal}`))
    return parts.length === 0
      ? withWal
      : Effect.flatMap(withWal, (fingerprint) =>
        Effect.reduce(parts, fingerprint, (acc, p) => Effect.map(stat(p), (st) => acc + partEntry(p, st))))
  }).pipe(Effect.orElseSucceed(() => null))
}

/**
 * A source's weight for progress by bytes: its file's size (one `stat`
 * through `access`); 0 for a source that is not a plain file or cannot be
 * stat-ed.
 */
const weightOf = (access: SourceAccessShape, locator: Locator): Effect.Effect<number> =>
  locator.path === ""
    ? Effect.succeed(0)
    : access.probe(nodePath.resolve(locator.path)).pipe(
      Effect.map((o) => (Option.isSome(o) && o.value.kind === "file" ? o.value.stat.size : 0)),
      Effect.orElseSucceed(() => 0)
    )

/** The stat of a fingerprint's own file, and of each part by name. */
const fingerprintFields = (fingerprint: string | null) => {
  const [main, ...rest] = (fingerprint ?? "").split("+part:")
  return {
    main: fingerprint === null ? null : main,
    parts: new Map(rest.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]))
  }
}

/** A stat fingerprint's (`size:mtimeMs:ino:birthtimeMs:ctimeMs`) size alone, wherever one is in a source's fingerprint. */
const sizesOnly = (fingerprint: string): string => fingerprint.replace(/(\d+):[\d.e+-]+:\d+:[\d.e+-]+:[\d.e+-]+/g, "$1")

/**
 * Whether a source's fingerprint differs from its checkpoint's but not in a size (its own file's and its nested
 * logs'), in the same form (an earlier build's fingerprint, without change times, has fewer fields: read as changed
 * once): the times moved (a `touch`, a `chmod` and back), or the file was put in place anew at the same size (a new
 * inode and birth time: `cp` and `mv`, `sed -i` that matched nothing, an rsync; tester39 F9). Whether its bytes are
 * the ones imported is then for a hash of them to tell.
 */
const sizesUnchanged = (checkpoint: SourceCheckpoint, fingerprint: string | null): fingerprint is string => {
  if (fingerprint === null || checkpoint.fingerprint === null || checkpoint.fingerprint === fingerprint) return false
  const fields = (f: string) => f.split(":").length
  return fields(checkpoint.fingerprint) === fields(fingerprint) && sizesOnly(checkpoint.fingerprint) === sizesOnly(fingerprint)
}

/**
 * Whether a source's fingerprint differs from its complete checkpoint's but
 * not in a size (its own file's and its nested logs': a `touch`, a `chmod` and
 * back, the file put in place anew with the same size: {@link sizesUnchanged}), and the
 * checkpoint imported every byte of each file (its own prefix and each
 * nested log's binding end at the file's size; an empty nested log has none):
 * then hashing the imported bytes tells whether anything changed. A file with
 * bytes past what was imported (an unterminated last line) is not such a case
 * (those bytes could have changed with the mtime set back).
 */
const wholeImportedChangeTimeOnly = (checkpoint: SourceCheckpoint, fingerprint: string | null): boolean => {
  if (checkpoint.prefix === null || !sizesUnchanged(checkpoint, fingerprint)) return false
  const now = fingerprintFields(fingerprint)
  if (now.main === null || bindingLength(checkpoint.prefix) !== Number(now.main.split(":")[0])) return false
  for (const [name, stat] of now.parts) {
    const size = stat === "gone" ? 0 : Number(stat.split(":")[0])
    const binding = checkpoint.parts[name]
    if (size !== 0 && (binding === undefined || bindingLength(binding) !== size)) return false
  }
  return true
}

/** The discovery diagnostics that name (`details.path`) a symlink, fifo, socket or folder in a source file's place. */
const NOT_REGULAR_CODES: ReadonlySet<string> = new Set(["SOURCE_NOT_REGULAR_FILE", "SYMLINK_SKIPPED", "NOT_A_FILE"])

/** The mark of a checkpoint whose summary is of an earlier state of its file than its fingerprint (see `importSource`). */
const SUMMARY_EARLIER = "+summary:earlier"

/**
 * Whether a source is taken again only to store its discovery summary: its
 * complete checkpoint's fingerprint is the file's now but for the
 * {@link SUMMARY_EARLIER} mark (a watch's targeted round imported it with an
 * earlier discovery's summary, `ImportPlan.explicit[].summary`; or the file
 * grew between discovery and read), and this run checkpoints it unmarked
 * (`checkpointed`: its summary describes the file as it is).
 */
const summaryOnly = (checkpoint: SourceCheckpoint | undefined, fingerprint: string | null, checkpointed: string | null): boolean =>
  checkpoint?.status === "complete" && fingerprint !== null && checkpointed === fingerprint && checkpoint.fingerprint !== null &&
  checkpoint.fingerprint.includes(SUMMARY_EARLIER) && checkpoint.fingerprint.replace(SUMMARY_EARLIER, "") === fingerprint

/**
 * Whether the prefix a checkpoint imported is still there, byte for byte:
 * the source's own file up to its cursor, and each nested log up to the end
 * of its last imported line (their bindings, see `./prefix.ts`). A file whose
 * stat is the same as at the checkpoint is taken as unchanged, as an
 * unchanged source is; any other is hashed again. Answers why the prefix
 * changed, or undefined; a verified own prefix seeds `digests`, so the
 * stream continues its digest instead of reading the prefix once more. The
 * files are read through `access`. `trusted` (a watch's
 * `ImportHooks.trustedPrefix`) may vouch for the own prefix instead: its
 * answer seeds `digests` and nothing is read. Fails, with the access
 * error, when a file is there but cannot be read (permission denied, an I/O
 * error: `UnreadableDetails`): a read that failed is never a changed prefix.
 */
export const changedPrefix = (
  access: SourceAccessShape,
  checkpoint: SourceCheckpoint,
  locator: Locator,
  fingerprint: string | null,
  parts: ReadonlyArray<string>,
  digests: PrefixDigests,
  trusted: (path: string, binding: string) => Effect.Effect<Hash | null> = ImportHooks.none.trustedPrefix
): Effect.Effect<string | undefined, SourceAccessError> =>
  Effect.gen(function*() {
    const before = fingerprintFields(checkpoint.fingerprint)
    const now = fingerprintFields(fingerprint)
    if (checkpoint.prefix !== null && checkpoint.sourceId !== null && (before.main === null || before.main !== now.main)) {
      const hash = (yield* trusted(locator.path, checkpoint.prefix)) ?? (yield* verifyPrefix(access, locator.path, checkpoint.prefix))
      if (hash === null) {
        // Shorter than what was imported (and not cut back to a prefix of it, `./truncated.ts`): said so, not "changed".
        const shorter = yield* Effect.orElseSucceed(shorterThanImported(access, locator.path, checkpoint.prefix), () => undefined)
        return shorter !== undefined
          ? `the file is now ${shorter.size} bytes, shorter than the ${shorter.imported} bytes imported, and not found to be a prefix of them`
          : `the imported prefix (${bindingLength(checkpoint.prefix)} bytes) changed`
      }
      digests.seed(checkpoint.sourceId, locator.path, bindingLength(checkpoint.prefix), hash)
    }
    const byName = new Map(parts.map((p) => [partName(p), p]))
    for (const [name, binding] of Object.entries(checkpoint.parts)) {
      const path = byName.get(name)
      if (path === undefined) return `the nested log ${name} is gone`
      const stat = before.parts.get(name)
      if (stat !== undefined && stat === now.parts.get(name)) continue
      if ((yield* verifyPrefix(access, path, binding)) === null) return `the nested log ${name} was rewritten`
    }
    return undefined
  })

/** A segment `nodePath.resolve` would fold on POSIX: an empty one (`//`), `.` or `..`. */
const FOLDED_SEGMENT = /\/\/|\/\.\.?(?:\/|$)/

/**
 * Whether `path` is what `nodePath.resolve` makes of it, told without
 * resolving: on POSIX, an absolute path with no empty, `.` or `..` segment
 * and no trailing separator (discovery's real paths). Elsewhere never.
 */
export const isResolvedPath = (path: string): boolean =>
  nodePath.sep === "/" && path.charCodeAt(0) === 47 &&
  (path.length === 1 || (path.charCodeAt(path.length - 1) !== 47 && !FOLDED_SEGMENT.test(path)))

const resolveLocator = (locator: Locator): Locator => {
  if (locator.path === "" || isResolvedPath(locator.path)) return locator
  const path = nodePath.resolve(locator.path)
  // Discovery's locators are real paths already: the same object, no copy per source.
  return path === locator.path ? locator : { ...locator, path }
}

/** No nested logs (shared). */
const NO_PARTS: ReadonlyArray<string> = Object.freeze([])

/** The import plan's inputs besides the policy: each provider's plan settings (`agents`, `exports`, …) and the batch size. */
export type PlanOptions = { readonly [K in keyof ProviderPlanInputs]?: ProviderPlanInputs[K] | undefined } & {
  readonly batchSize?: number | undefined
  readonly commitEvents?: number | undefined
}

/** Events per batch of a plan that sets none ({@link ImportPlan.batchSize}). */
export const DEFAULT_BATCH_EVENTS = 500

/**
 * Events per transaction of a plan that sets neither `commitEvents` nor
 * `batchSize` ({@link ImportPlan.commitEvents}). Issue 13: the first import of
 * 10,000 small native sources committed every 500 events (735 commits), and
 * each commit rewrote the leaf pages its sources touched in the index's
 * tables keyed by hash (sessions, sources, generations, streams, the push
 * journal): ten times fewer commits write those pages ten times less.
 */
export const DEFAULT_COMMIT_EVENTS = 5000

/** How a plan cuts its events: `events` per batch (a stream's read, a worker's answer), `commit` per transaction. */
interface BatchSizes {
  readonly events: number
  readonly commit: number
}

const batchSizesOf = (plan: Pick<ImportPlan, "batchSize" | "commitEvents">): BatchSizes => ({
  events: plan.batchSize ?? DEFAULT_BATCH_EVENTS,
  commit: plan.commitEvents ?? plan.batchSize ?? DEFAULT_COMMIT_EVENTS
})

/**
 * The plan an access policy implies: each registered provider's entries
 * (`ProviderModule.plan`, in registry order) from its policy fields and its
 * plan inputs in `options`. With the current providers: Muse Code native
 * discovery when a `--muse-root` is authorized, Muse agents always (their
 * root has a default), AgentMux for each `agents` UID, plus explicit export
 * files.
 */
export const planFromPolicy = (policy: AccessPolicyInput, options: PlanOptions): ImportPlan => ({
  ...(planOf(providers, policy, options) as Pick<ImportPlan, "discover" | "explicit" | "skipped">),
  batchSize: options.batchSize,
  commitEvents: options.commitEvents
})

type SourceOutcome =
  | { readonly _tag: "unchanged"; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | {
    readonly _tag: "accepted"
    readonly events: number
    readonly sessions: number
    readonly newGeneration: boolean
    readonly bytes: number
    readonly diagnostics: ReadonlyArray<Diagnostic>
    /** What a rewritten file no longer holds of what was imported (`./rewritten.ts`), when it dropped imported events. */
    readonly rewritten?: RewrittenEvents | undefined
    /**
     * A carried overview's parse warnings with those of the lines this read took that it did not count
     * ({@link CarriedLines}): the source's warnings now. Absent for an overview discovery made this run.
     */
    readonly parseWarnings?: ReadonlyArray<ParseWarning> | undefined
  }
  | { readonly _tag: "rejected"; readonly error: IngestError }
  /** Imported before, and cannot be read now: what was imported is kept as it was (this attempt rolled back). */
  | { readonly _tag: "unreadable"; readonly details: UnreadableDetails }
  /** Imported before, and its file now holds nothing where it held that (`./emptied.ts`): what was imported is kept as it was. */
  | { readonly _tag: "emptied"; readonly damaged: Damaged }

/** The byte offset a cursor resumes at (line sources); undefined for sources without one. */
export const offsetOf = (cursor: string): number | undefined => {
  const state = peekCursor(cursor)
  return state._tag === "Right" ? state.right.off : undefined
}

/** What a source's stream gives at once (`SessionSourceAdapter.streamAtOnce`). */
type Whole = { readonly events: ReadonlyArray<SessionEvent>; readonly then: Stream.Stream<SessionEvent, IngestError> | undefined }

/**
 * Where a batch of a source's events ends: the cursor its own log resumes at
 * (its own last event's; null: none of its events is the log's own), that
 * cursor's byte offset, and each nested log's last cursor (by source id).
 */
export const batchEnds = (own: string, events: ReadonlyArray<SessionEvent>) => {
  let resumeCursor: string | null = null
  const nested = new Map<string, string>()
  for (const e of events) {
    if (e.sourceId === own) resumeCursor = e.cursor
    else nested.set(e.sourceId, e.cursor)
  }
  return { resumeCursor, resumeAt: resumeCursor === null ? undefined : offsetOf(resumeCursor), nested }
}

/**
 * The prefix binding of a batch's own log at `resumeAt` (undefined: none to
 * move, null: it cannot be had), noting each nested log's binding at its last
 * cursor in `partBindings`.
 */
export const bindBatch = (
  digests: PrefixDigests,
  own: string,
  resumeAt: number | undefined,
  nested: ReadonlyMap<string, string>,
  partBindings: Map<string, string | undefined>
): Effect.Effect<string | null | undefined> =>
  nested.size === 0
    ? resumeAt === undefined ? Effect.succeed(undefined) : Effect.map(digests.at(own, resumeAt), (p) => p ?? null)
    : Effect.gen(function*() {
      const prefix = resumeAt === undefined ? undefined : (yield* digests.at(own, resumeAt)) ?? null
      for (const [sourceId, c] of nested) {
        const off = offsetOf(c)
        if (off !== undefined) partBindings.set(sourceId, yield* digests.at(sourceId, off))
      }
      return prefix
    })

/** `events` cut into batches of `size` (the last one shorter), as `Stream.grouped` cuts a stream. */
export const batchesOf = <A>(events: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size))
  return out
}

/**
 * Diagnostics of a source's read that leave its coverage complete: every
 * event is in the index, and the diagnostic says how one was read, not that
 * anything is missing. `NUMBER_NOT_EXACT`: a number JSON does not carry
 * exactly keeps its parsed value in the event and its exact text in the
 * source (docs/stream-and-cursors.md, "Numbers JSON does not carry exactly"); partial coverage
 * would ask for a remedy no import can apply, run after run. `SOURCE_REWRITTEN`
 * (`./rewritten.ts`): the file was read whole into a new generation, so
 * nothing of the source is missing from the index; what it says is that
 * events imported before are no longer in the file (they stay in the
 * superseded generation). It is listed in the report (human and `--json`),
 * and the run's exit stays 0, as for any rewritten source (docs/index.md,
 * "Generations"). `REPEATED_RECORDS_SKIPPED` (Muse Code, Claude Code): a
 * record repeated as it is was kept once, nothing of it is missing.
 * `RECORD_UUID_REUSED` (Claude Code): both records under one uuid were kept
 * (real logs do that: `src/domain/claude-code/record-ids.ts`). Session 29:
 * both had made the import partial (exit 8) with no remedy to apply.
 * `SEQUENCE_DECREASES` (Muse Code exports): every record kept, in document
 * order; said, not a gap.
 */
const COMPLETE_DIAGNOSTICS: ReadonlySet<string> = new Set([NUMBER_NOT_EXACT, SOURCE_REWRITTEN, REPEATED_RECORDS_SKIPPED, RECORD_UUID_REUSED, SEQUENCE_DECREASES])

/** A source imported before (its file `path`), kept because a file of it now holds nothing where it held that (`./emptied.ts`). */
interface Emptied {
  readonly provider: ProviderId
  readonly path: string
  readonly damaged: Damaged
  /** Found so by an earlier run of this importer, the file unchanged since: not read again (`keptDamaged`). */
  readonly notReadAgain?: boolean | undefined
}

/**
 * The parse warnings of the lines a read took (`StreamOptions.onLineWarning`)
 * that a carried overview does not count: an earlier discovery's (a watch's
 * targeted round: the last full round's), counting the file's lines up to
 * `after`. A read from the file's start (`after` undefined: a new
 * generation, a first import) counts every line, and its warnings replace
 * the overview's. Per kind, the count and first line; and the last line
 * counted, so that the overview merged with these ({@link mergedWarnings})
 * counts the lines up to `linesCounted` (a line re-read after its cursor's
 * is not counted twice).
 */
class CarriedLines {
  readonly byKind = new Map<string, { count: number; firstLine: number }>()
  lastLine: number
  constructor(readonly after: number | undefined) {
    this.lastLine = after ?? 0
  }
  readonly onLineWarning = (kind: string, lineNumber: number): void => {
    if (this.after !== undefined && lineNumber <= this.after) return
    const w = this.byKind.get(kind)
    if (w === undefined) this.byKind.set(kind, { count: 1, firstLine: lineNumber })
    else {
      w.count++
      if (lineNumber < w.firstLine) w.firstLine = lineNumber
    }
    if (lineNumber > this.lastLine) this.lastLine = lineNumber
  }
  /** Nothing counted (a read begun again from the same place). */
  reset(): void {
    this.byKind.clear()
    this.lastLine = this.after ?? 0
  }
  /**
   * `overview`'s warnings with these: replaced by them after a read from the start; else, per kind, the counts
   * summed and the first line the smaller (the overview's kinds first, in their order).
   */
  mergedWarnings(overview: ReadonlyArray<ParseWarning>): ReadonlyArray<ParseWarning> {
    const read = [...this.byKind].map(([kind, w]) => ({ kind, count: w.count, firstLine: w.firstLine }))
    if (this.after === undefined) return read
    if (read.length === 0) return overview
    const out = overview.map((o) => {
      const r = this.byKind.get(o.kind)
      if (r === undefined) return o
      return { kind: o.kind, count: o.count + r.count, firstLine: o.firstLine === null ? r.firstLine : Math.min(o.firstLine, r.firstLine) }
    })
    for (const r of read) if (!overview.some((o) => o.kind === r.kind)) out.push(r)
    return out
  }
}

/** A source's parse warnings as its provider's read gave them (`PARSE_WARNING` diagnostics), by the source's place in the run. */
type ReadWarnings = Map<number, ReadonlyArray<SourceSummary["parseWarnings"][number]>>

/**
 * A `PARSE_WARNING` diagnostic's warning (its `details`: `{kind, count,
 * firstLine}`), or undefined when its details are not of that shape.
 */
/**
 * The source file a discovery diagnostic says could not be read, with what
 * failed: its `details` carry the access layer's {@link UnreadableDetails}
 * (`unreadable`, `path` the path that failed, `errno`) and `source`, the
 * source's file; else undefined.
 */
const unreadableSourceOf = (d: Diagnostic): { readonly path: string; readonly details: UnreadableDetails } | undefined => {
  const u = unreadableOf(d)
  const source = (d.details as { source?: unknown } | undefined)?.source
  return u !== undefined && typeof source === "string" ? { path: source, details: u } : undefined
}

/** A diagnostic's identity in a provider's list: its code and message (what a reader of the report tells apart). */
const diagnosticKey = (d: Diagnostic): string => `${d.code}\u0000${d.message}`

const warningOfDiagnostic = (d: Diagnostic): SourceSummary["parseWarnings"][number] | undefined => {
  const w = d.details as { kind?: unknown; count?: unknown; firstLine?: unknown } | undefined
  return w !== undefined && typeof w.kind === "string" && typeof w.count === "number" &&
      (w.firstLine === null || typeof w.firstLine === "number")
    ? { kind: w.kind, count: w.count, firstLine: w.firstLine }
    : undefined
}

/**
 * The parse warnings of the sources of a run (see `ImportReport.parseWarnings`),
 * from their discovery overviews, and from what their read (this run's or,
 * unchanged, the one its checkpoint kept) gave as `PARSE_WARNING` diagnostics
 * of kinds the overview does not count (AgentMux: its discovery reads no
 * session's lines; Claude Code: a subagent's `agent-<id>.meta.json` not valid).
 * A carried overview (a watch's targeted round) counts, in its place, with
 * the warnings of the lines this run read after it (`merged`, see
 * {@link CarriedLines}).
 */
const parseWarningsOf = (
  work: ReadonlyArray<{ readonly provider: ProviderId; readonly locator: Locator; readonly overview: SourceSummary }>,
  read: ReadWarnings,
  /** A carried overview's warnings merged with those of the lines this run read (`CarriedLines`), by the source's place. */
  merged: ReadonlyMap<number, ReadonlyArray<SourceSummary["parseWarnings"][number]>> = new Map()
): ParseWarningsReport =>
  tallyParseWarnings(work.map((w, k) => {
    // Most sources have none (an unchanged one's overview is discovery's): no list made for them. The read's
    // warnings of kinds the overview does not count (a Claude Code subagent's meta.json) are added to its.
    const fromRead = read.get(k)
    const overview = merged.get(k) ?? w.overview.parseWarnings
    const warnings = fromRead === undefined || fromRead.length === 0
      ? overview
      : overview.length === 0
      ? fromRead
      : [...overview, ...fromRead.filter((r) => !overview.some((o) => o.kind === r.kind))]
    return { provider: w.provider, path: w.locator.path, warnings }
  }))

/** The update of a batch without a display. */
const noUpdate = (): Effect.Effect<void> => Effect.void

/** Each batch `Index.importWhole` committed handed to `onBatch` in order, and their events and sessions summed. */
const tellCommitted = (
  committed: ReadonlyArray<CommittedBatch>,
  onBatch: (committed: CommittedBatch) => Effect.Effect<void>
): Effect.Effect<{ readonly events: number; readonly sessions: number }> => {
  let events = 0, sessions = 0
  // Only the updates that do something are run (none without a display: `Effect.void`), in order.
  const updates: Array<Effect.Effect<void>> = []
  for (const c of committed) {
    events += c.events
    sessions += c.sessions
    const update = onBatch(c)
    if (update !== Effect.void) updates.push(update)
  }
  const sums = { events, sessions }
  return updates.length === 0 ? Effect.succeed(sums) : Effect.as(Effect.all(updates, { discard: true }), sums)
}

/**
 * A source the index holds, as its provider's next discovery is told of it
 * (`KnownSource`): its checkpoint's fingerprint, and its summary and kept
 * overview read from the checkpoint only when the provider asks (both are
 * parsed lazily there). A class, not a literal with getters: one is made per
 * held source on every import (see `StoredCheckpoint` in `./rows.ts`).
 */
class KnownOfCheckpoint implements KnownSource {
  readonly #checkpoint: SourceCheckpoint
  constructor(readonly fingerprint: string, checkpoint: SourceCheckpoint) {
    this.#checkpoint = checkpoint
  }
  get summary(): Record<string, unknown> {
    return this.#checkpoint.summary
  }
  get overview(): SourceSummary | undefined {
    return this.#checkpoint.keptOverview
  }
}

/**
 * A discovered source as a run's work item: its summary read from the
 * discovered source only when asked for (a source listed from its kept
 * overview makes it lazily). A class, not a literal with a getter: one per
 * source of every run.
 */
class DiscoveredWork {
  readonly locator: Locator
  readonly overview: SourceSummary
  readonly stat: FingerprintStat | undefined
  readonly parts: ReadonlyArray<string> | undefined
  readonly fingerprint: string | undefined
  readonly #source: DiscoveredSource
  constructor(readonly provider: ProviderId, source: DiscoveredSource) {
    this.#source = source
    this.locator = source.locator
    this.overview = source.overview
    this.stat = source.stat
    this.parts = source.parts
    this.fingerprint = source.fingerprint
  }
  get summary(): Record<string, unknown> {
    return this.#source.summary
  }
}

/** The sources of `provider` the index holds complete (with a fingerprint), by their locator's path: its discovery's `known`. */
const knownOf = (checkpoints: ReadonlyMap<string, SourceCheckpoint>, provider: ProviderId): Map<string, KnownSource> => {
  const known = new Map<string, KnownSource>()
  for (const c of checkpoints.values()) {
    if (c.provider === provider && c.status === "complete" && c.fingerprint !== null) known.set(c.locator.path, new KnownOfCheckpoint(c.fingerprint, c))
  }
  return known
}

const make = Effect.gen(function*() {
  const registry = yield* SessionSources
  const index = yield* Index
  const faults = yield* ImportFaults
  const progress = yield* ImportProgress
  const access = yield* SourceAccess
  const hooks = Option.getOrElse(yield* Effect.serviceOption(ImportHooks), () => ImportHooks.none)
  // What parse workers are built with (`--jobs`): the same policy and limits as the providers here.
  const policy = yield* Effect.serviceOption(AccessPolicy)
  const limits = yield* Effect.serviceOption(ImportLimits)
  /**
   * Line logs each provider's discovery skipped whole (`RESOURCE_LIMIT_EXCEEDED`, `SOURCE_GARBLED`), kept for this
   * importer's lifetime (every round of a watch): one unchanged since is said again without being read again
   * (`src/domain/skipped-unchanged.ts`; a 20 GB sparse log was read whole at every full round, fix39e "Left").
   */
  const skippedByProvider = new Map<ProviderId, SkippedSources>()
  /**
   * Sources imported before, no longer listed and kept as damaged (`Emptied`: emptied, zeroed, cut back, garbled), by
   * source key: the fingerprint of their files then and their checkpoint's; for this importer's lifetime. One whose
   * fingerprint and checkpoint are the same again is kept as damaged again without reading it again (its imported
   * prefix hashed, its bytes looked through: a whole 20 GB file at every full round of a watch).
   */
  const keptDamaged = new Map<string, { readonly fingerprint: string; readonly checkpoint: string | null; readonly emptied: Emptied }>()
  const skippedOf = (provider: ProviderId): SkippedSources => {
    let m = skippedByProvider.get(provider)
    if (m === undefined) skippedByProvider.set(provider, m = new Map())
    return m
  }

  const importSource = (
    provider: ProviderId,
    rawLocator: Locator,
    summary: Record<string, unknown>,
    overview: SourceSummary,
    sizes: BatchSizes,
    checkpoints: ReadonlyMap<string, SourceCheckpoint>,
    onBatch: (committed: CommittedBatch) => Effect.Effect<void>,
    earlierSummary = false,
    /** Each read of the stream (progress by bytes). */
    onRead?: (read: SourceRead) => void,
    /** A parse worker's answer for this new source (`--jobs`): written as it is when whole. */
    parsed?: Effect.Effect<ParseAnswer>,
    /** The stat discovery took of the file (what `summary` describes): see `./source-drift.ts`. */
    discovered?: FingerprintStat | undefined,
    /** `overview` is an earlier discovery's, counting the file's lines up to this one (see {@link CarriedLines}); undefined: this run's. */
    linesCounted?: number | undefined
  ): Effect.Effect<SourceOutcome, StoreUnavailable> =>
    Effect.gen(function*() {
      const locator = resolveLocator(rawLocator)
      const source: SourceInfo = { sourceKey: index.sourceKey(provider, locator), provider, locator, summary, overview }
      /**
       * The title the read of this generation reported (`StreamOptions.onTitle`: AgentMux's discovery reads no
       * session's lines, Muse Code's no more of a native log than its budget), if any.
       */
      let readTitle: ReadTitle | null = null
      /**
       * `source` with the title a read gave when discovery gave none (tester31a F4), and the session it titles when
       * discovery named none (an explicit Muse Code export: its own session, not every stream of the document): what
       * the batches and the completed checkpoint are written with (the session's title and its search words, the kept
       * overview a push copies).
       */
      const titled = (t: ReadTitle | null): SourceInfo =>
        t === null || overview.title !== null
          ? source
          : { ...source, overview: { ...overview, title: t.title, ...(overview.sessionId === null && t.sessionId !== null ? { sessionId: t.sessionId } : {}) } }
      /** {@link titled} by this generation's read. A rejection is written with `source` as discovered. */
      const sourceRead = (): SourceInfo => titled(readTitle)
      const checkpoint = checkpoints.get(source.sourceKey)
      const answer = parsed === undefined ? undefined : yield* parsed
      // A worker's read is written only when the file is as discovery saw it and still as the worker's fingerprint
      // says once read (`./source-drift.ts`); else the path below reads it again and says what changed.
      const workerRead = answer?._tag === "whole" && checkpoint === undefined && index.importWhole !== undefined &&
        sinceDiscovery(discovered, answer.fingerprint) === "same" &&
        (yield* Effect.either(stillAsBefore(access, locator.path, answer.fingerprint)))._tag === "Right"
      if (workerRead && answer?._tag === "whole" && index.importWhole !== undefined) {
        // Read, parsed and bound by a worker, as the path below reads a new small source (its nested-log
        // listing, fingerprint and read at once, in that order): written here in one operation of the index.
        workerStats.whole++
        const committed = yield* index.importWhole(
          {
            // With the title the worker's read reported (as this thread's read would report it).
            source: titled(answer.title),
            // Heads only: with `prepared`, the writer reads no other field of an event (`WholeSource.batches`).
            batches: answer.batches.map((b) => ({
              ...b,
              events: headsOf(b.events, answer.words) as ReadonlyArray<unknown> as ReadonlyArray<SessionEvent>,
              prepared: preparedRowsOf(b.prepared, answer.shapes)
            })),
            groupCommit: sizes.commit, fingerprint: answer.fingerprint, parts: {}, diagnostics: answer.diagnostics },
          faults.at
        )
        const { events, sessions } = yield* tellCommitted(committed, onBatch)
        const bytes = answer.fingerprint !== null ? Number(answer.fingerprint.split(":")[0]) : 0
        return { _tag: "accepted", events, sessions, newGeneration: false, bytes, diagnostics: answer.diagnostics } as const
      }
      if (answer !== undefined) workerStats.fallback++
      // Looked up here, past a worker's answer (whose provider the run looked up before it asked: `parseAhead`).
      const adapter = yield* registry.get(provider)
      const listed = adapter.parts !== undefined ? yield* Effect.either(adapter.parts(locator)) : undefined
      if (listed?._tag === "Left") {
        // Its nested logs' folder cannot be listed: imported before, it is kept as it is (none of its
        // nested logs is taken as gone); never imported, it is read without them, as before.
        const details = unreadableOf(listed.left)
        if (details !== undefined && checkpoint !== undefined && checkpoint.status !== "rejected" && checkpoint.status !== "superseded") {
          return { _tag: "unreadable", details } as const
        }
      }
      const parts = listed?._tag === "Right" ? listed.right : []
      const seen: SeenSource = { provider, locator, summary, overview, parts, perFile: adapter.sourcePerFile === true }
      yield* hooks.source(linesCounted === undefined ? seen : { ...seen, linesCounted })
      const fingerprint = yield* fingerprintOf(access, locator, parts, { wal: adapter.noWal !== true })
      if (checkpoint?.status === "complete" && fingerprint !== null && checkpoint.fingerprint === fingerprint) {
        return { _tag: "unchanged", diagnostics: checkpoint.diagnostics } as const
      }
      if (checkpoint?.status === "complete" && wholeImportedChangeTimeOnly(checkpoint, fingerprint)) {
        // Only times moved (a touch, a chmod and back), or the files were put in place anew at their sizes (a cp and mv:
        // tester39 F9): the files are as imported when their imported bytes, which are
        // all their bytes, hash as before; then nothing is written (the checkpoint keeps its fingerprint, so a later
        // run hashes them again). Any other answer (a byte changed, a read failed) takes the path below.
        const same = yield* Effect.either(changedPrefix(access, checkpoint, locator, fingerprint, parts, new PrefixDigests(access), hooks.trustedPrefix))
        if (same._tag === "Right" && same.right === undefined) return { _tag: "unchanged", diagnostics: checkpoint.diagnostics } as const
      }
      if (
        checkpoint?.status === "complete" && checkpoint.prefix === null && checkpoint.cursor !== null && adapter.unchangedSince !== undefined &&
        sizesUnchanged(checkpoint, fingerprint)
      ) {
        // No imported prefix to hash (a Muse Code export, one JSON document): the digest of the whole document its
        // cursor binds tells, without a write (session 28). Any other answer (other bytes, a read failed) takes the path below.
        const same = yield* Effect.either(adapter.unchangedSince(locator, checkpoint.cursor))
        if (same._tag === "Right" && same.right) return { _tag: "unchanged", diagnostics: checkpoint.diagnostics } as const
      }
      // Shorter since discovery (same inode): rejected (below, as a failed read); grown or replaced: the next run takes it again.
      const drift = sinceDiscovery(discovered, fingerprint)
      // A summary from an earlier discovery (`ImportPlan.explicit[].summary`): the next run with discovery takes the source again.
      const checkpointed = fingerprint !== null && (earlierSummary || drift === "grew")
        ? fingerprint.replace(/^([^+]*(?:\+wal:[^+]*)?)/, `$1${SUMMARY_EARLIER}`) // in the own file's part: a stat change, not a part's
        : fingerprint
      if (checkpoint?.status === "complete" && checkpointed !== null && checkpoint.fingerprint === checkpointed) {
        // The checkpoint is already what this run would write: another run (a second `import --watch` on the index,
        // whose targeted round took this growth while this one waited for the lock) imported the file as it is now,
        // with an earlier summary too. Nothing to add: unchanged, not "1 imported, 0 events" (tester34a F2).
        return { _tag: "unchanged", diagnostics: checkpoint.diagnostics } as const
      }
      /** Once read: the same file not shorter than at the fingerprint (`./source-drift.ts`). */
      const readIntact = stillAsBefore(access, locator.path, fingerprint)
      /**
       * A read of the source from `from` as an import does it, whatever it does with the events (`read`): a cursor
       * the source no longer has (`INVALID_CURSOR`) is read from the start after `restart`; the file shorter than
       * at discovery fails with that (`drift`), and still as fingerprinted once read (`readIntact`). Shared by the
       * import below and the read without writing of a source rejected since it was imported.
       */
      const checkedRead = <A>(
        read: (from: string | undefined) => Effect.Effect<A, IngestError>,
        from: string | undefined,
        restart: (e: IngestError) => Effect.Effect<void, IngestError | StoreUnavailable>
      ) =>
        read(from).pipe(
          Effect.catchIf(
            (e): e is IngestError => isIngestError(e) && e.code === "INVALID_CURSOR" && from !== undefined,
            (e) => Effect.zipRight(restart(e), read(undefined))
          ),
          (r) => (typeof drift !== "string" ? Effect.fail(drift) : Effect.zipLeft(r, readIntact)),
          Effect.either
        )
      const rejection = checkpoint?.status === "complete" && checkpoint.fingerprint !== fingerprint ? yield* index.rejectionOf(source.sourceKey) : undefined
      if (checkpoint !== undefined && rejection !== undefined) {
        // Imported before and rejected since: read again (so that a fixed file imports), first without writing
        // anything, as the path below would read it; rejected again the same way (code and message), the row already
        // says all this run would write, so nothing is (no attempt begun and rolled back each run, `updated_at` kept).
        const same = (e: IngestError) => e._tag !== "StoreUnavailable" && e.code === rejection.code && e.message === rejection.message
        const againAs = (e: IngestError) => {
          const details = unreadableOf(e)
          return details !== undefined ? { _tag: "unreadable", details } as const : { _tag: "rejected", error: e } as const
        }
        const changed = yield* Effect.either(changedPrefix(access, checkpoint, locator, fingerprint, parts, new PrefixDigests(access), hooks.trustedPrefix))
        if (changed._tag === "Left" && same(changed.left)) return againAs(changed.left)
        if (changed._tag === "Right") {
          const from = changed.right === undefined ? checkpoint.cursor ?? undefined : undefined
          const dry = yield* checkedRead((cursor) => Stream.runDrain(adapter.stream(locator, { cursor, includeSubagents: true })), from, () => Effect.void)
          if (dry._tag === "Left" && same(dry.left)) return againAs(dry.left)
        }
      }
      let digests = new PrefixDigests(access)
      const diagnostics: Array<Diagnostic> = []
      /** The parse warnings of the lines read that the carried overview does not count (none for this run's overview). */
      let carried = linesCounted === undefined ? undefined : new CarriedLines(linesCounted)
      /** Bindings of the nested logs read (by source id): the end of each one's last imported line. */
      const partBindings = new Map<string, string | undefined>()
      const readOptions = (from: string | undefined) => ({
        cursor: from,
        includeSubagents: true,
        onDiagnostic: (d: Diagnostic) => diagnostics.push(d),
        onWarning: (d: Diagnostic) => diagnostics.push(d),
        // Counted from the line after the carried overview's, or all of them when the read begins at the file's start.
        onLineWarning: carried === undefined ? undefined : (carried = new CarriedLines(from === undefined ? undefined : linesCounted!)).onLineWarning,
        onTitle: (title: string, sessionId?: string) => {
          readTitle = { title, sessionId: sessionId ?? null }
        },
        onRead: onRead === undefined ? digests.onRead : (read: SourceRead) => {
          digests.onRead(read)
          onRead(read)
        }
      })
      /** The nested logs' bindings the checkpoint keeps, by part name. */
      const boundParts = () => {
        const out: Record<string, string> = {}
        for (const [sourceId, binding] of partBindings) {
          const path = digests.pathOf(sourceId)
          if (binding !== undefined && path !== undefined) out[partName(path)] = binding
        }
        return out
      }
      const bytes = fingerprint !== null ? Number(fingerprint.split(":")[0]) : 0
      /** Tell a watch the hash state at the checkpoint's own binding, so the next growth need not hash the prefix. */
      const tellImported = (ownSourceId: string | null, lastPrefix: string | null) =>
        hooks === ImportHooks.none || lastPrefix === null || ownSourceId === null || digests.pathOf(ownSourceId) !== locator.path
          ? Effect.void
          : Effect.flatMap(digests.stateAt(ownSourceId, bindingLength(lastPrefix)), (state) =>
            state === undefined ? Effect.void : hooks.imported(locator.path, lastPrefix, state))
      /** What the source's first read at once gave (null: not read yet), for the path below when it is not written whole. */
      let preRead: Whole | undefined | null = null
      // Never imported: no checkpoint, or only a rejection (a rejected source is read again every run, so that a fixed
      // file imports; read whole first, so that one rejected again the same way writes nothing: see `rejectSource`).
      const neverImported = checkpoint === undefined || (checkpoint.status === "rejected" && checkpoint.generation === 0)
      if (neverImported && index.importWhole !== undefined && adapter.streamAtOnce !== undefined && typeof drift === "string") {
        // Never imported and small: read whole, then written in one operation of the index (`importWhole`).
        const read = yield* Effect.either(Effect.zipLeft(adapter.streamAtOnce(locator, readOptions(undefined)), readIntact))
        if (read._tag === "Left") {
          const error = read.left
          if (error._tag === "StoreUnavailable") return yield* error
          // As the path below leaves it: the attempt and its first generation began, then the rejection. A source
          // rejected before has its row: the rejection alone says what changed (its error), or nothing.
          if (checkpoint === undefined) {
            yield* index.beginAttempt(source)
            yield* index.beginGeneration(source, 1, "first import")
          }
          yield* index.rejectSource(source, error.code, error.message)
          return { _tag: "rejected", error } as const
        }
        const whole = read.right
        if (whole !== undefined && whole.then === undefined) {
          const own = whole.events.length === 0 ? null : whole.events[0].sourceId
          let lastPrefix: string | null = null
          const batches = yield* Effect.forEach(batchesOf(whole.events, sizes.events), (events) => {
            const { resumeCursor, resumeAt, nested } = batchEnds(own!, events)
            return bindBatch(digests, own!, resumeAt, nested, partBindings).pipe(Effect.map((prefix) => {
              if (prefix !== undefined) lastPrefix = prefix
              return { events, resumeCursor, prefix }
            }))
          })
          const committed = yield* index.importWhole(
            { source: sourceRead(), batches, groupCommit: sizes.commit, fingerprint: checkpointed, parts: boundParts(), diagnostics },
            faults.at
          )
          const { events, sessions } = yield* tellCommitted(committed, onBatch)
          yield* tellImported(own, lastPrefix)
          return { _tag: "accepted", events, sessions, newGeneration: false, bytes, diagnostics } as const
        }
        preRead = whole
      }
      // From here on, what this run adds is one attempt: a rejection takes it all back.
      const attempt = yield* index.beginAttempt(source)
      let generation = checkpoint?.generation ?? 0
      let cursor = checkpoint?.cursor ?? undefined
      let newGeneration = false
      // The source's own events are those of its first event's source id; a
      // Muse Code native log's nested logs follow with their own. The source
      // resumes after its own last event, and its nested logs are streamed
      // again from their start (the index ignores the events it has), so an
      // append to the log or to any nested log is never skipped.
      let ownSourceId = checkpoint?.sourceId ?? null
      /** What the file no longer holds of the imported events, when it was rewritten after a prefix of them (`./rewritten.ts`). */
      let rewritten: RewrittenEvents | undefined
      /** The own file's binding the checkpoint will hold (for `hooks.imported`). */
      let lastPrefix = checkpoint?.status === "complete" ? checkpoint.prefix : null
      const startOver = (reason: string) =>
        Effect.suspend(() => {
          generation += 1
          newGeneration = true
          cursor = undefined
          ownSourceId = null
          lastPrefix = null
          // The new generation's read says its title (a rewritten log may begin with another prompt, or none).
          readTitle = null
          digests = new PrefixDigests(access)
          return index.beginGeneration(source, generation, reason)
        })
      if (generation === 0) {
        generation = 1
        yield* index.beginGeneration(source, generation, "first import")
      } else if (checkpoint?.status === "superseded") {
        // Superseded without a successor (see `supersedeStale`): read again into the empty generation it was left at.
        newGeneration = true
        yield* index.beginGeneration(source, generation, "read again after its last generation was superseded")
      } else if (checkpoint !== undefined) {
        // A change anywhere in what was imported (not only an append) makes a new generation.
        const changed = yield* Effect.either(changedPrefix(access, checkpoint, locator, fingerprint, parts, digests, hooks.trustedPrefix))
        if (changed._tag === "Left") {
          // The prefix could not be read (permission, I/O error): nothing is known of it, so nothing changes.
          yield* index.rejectSource(source, changed.left.code, changed.left.message)
          const details = unreadableOf(changed.left)
          return details !== undefined ? { _tag: "unreadable", details } as const : { _tag: "rejected", error: changed.left } as const
        }
        if (changed.right !== undefined) {
          // A file that now holds nothing where it held what was imported (emptied, zeroed whole, a zeroed tail or
          // block) is damaged, not a new version: kept as it was.
          const damaged = yield* Effect.either(damagedSource(access, locator.path, checkpoint, parts))
          if (damaged._tag === "Right" && damaged.right !== undefined) {
            yield* index.rejectSource(source, damagedCode(damaged.right.lost), emptiedCause(damaged.right.path, damaged.right.lost).problem)
            return { _tag: "emptied", damaged: damaged.right } as const
          }
          // Cut back to a prefix of what was imported (a backup restored, `head`, `truncate`): damage too, kept.
          const cut = yield* Effect.either(truncatedSource(access, adapter, index, source.sourceKey, checkpoint, locator))
          if (cut._tag === "Right" && cut.right !== undefined) {
            const lost = { _tag: "truncated", ...cut.right } as const
            yield* index.rejectSource(source, SOURCE_TRUNCATED, emptiedCause(locator.path, lost).problem)
            return { _tag: "emptied", damaged: { path: locator.path, lost } } as const
          }
          // Begins with what was imported and then no longer holds some of it (cut back and written on): read again
          // as a new generation, as any change, but those events leave the views: reported, never silently.
          rewritten = yield* rewrittenSource(adapter, index, source.sourceKey, checkpoint, locator)
          yield* startOver(changed.right)
        }
      }
      let sessions = 0
      /** Commit one batch of the source's events (in order); `n`: the events committed so far. */
      const commitEvents = (n: number, events: ReadonlyArray<SessionEvent>) => {
        const own = ownSourceId ??= events[0].sourceId
        const { resumeCursor, resumeAt, nested } = batchEnds(own, events)
        return bindBatch(digests, own, resumeAt, nested, partBindings).pipe(
          Effect.flatMap((prefix) =>
            Effect.tap(index.commitBatch({ source: sourceRead(), generation, events, resumeCursor, prefix, attempt, groupCommit: sizes.commit }, faults.at), () => {
              if (prefix !== undefined) lastPrefix = prefix
            })
          ),
          Effect.tap((committed) => {
            sessions += committed.sessions
            return onBatch(committed)
          }),
          Effect.map((committed) => n + committed.events)
        )
      }
      const commitStream = (events: Stream.Stream<SessionEvent, IngestError>) =>
        events.pipe(
          Stream.grouped(sizes.events),
          Stream.runFoldEffect(0, (n, chunk) => commitEvents(n, Chunk.toReadonlyArray(chunk)))
        )
      const run = (from: string | undefined) =>
        Effect.suspend(() => {
          // (A read at once above, `taken`, was a Muse Code source's: it counts no line warnings, `carried` starts anew.)
          const options = readOptions(from)
          const taken = preRead
          preRead = null
          const readAtOnce: Effect.Effect<Whole | undefined, IngestError> | undefined = taken !== null && from === undefined
            // Read at once above already (with its diagnostics): not read again.
            ? Effect.succeed(taken)
            : adapter.streamAtOnce === undefined
            ? undefined
            : Effect.suspend(() => {
              diagnostics.length = 0
              carried?.reset()
              partBindings.clear()
              return adapter.streamAtOnce!(locator, options)
            })
          if (readAtOnce === undefined) {
            diagnostics.length = 0
            carried?.reset()
            partBindings.clear()
            return commitStream(adapter.stream(locator, options))
          }
          // A small source read at once: its events in the same batches, without a stream.
          return Effect.flatMap(readAtOnce, (whole) =>
            whole === undefined
              ? Effect.suspend(() => {
                // Not small: streamed from its start (what the read at once noted is noted again).
                diagnostics.length = 0
                carried?.reset()
                partBindings.clear()
                return commitStream(adapter.stream(locator, options))
              })
              : whole.then !== undefined
              ? commitStream(Stream.concat(Stream.fromIterable(whole.events), whole.then))
              : Effect.reduce(batchesOf(whole.events, sizes.events), 0, commitEvents))
        })
      // The cursor's check found the imported part changed (a Muse Code export replaced by another document: its
      // prefix binding is not compared before the read): what it no longer holds of the imported events is counted,
      // as above, before the new generation begins (tester38 F7: an older export restored dropped events silently).
      const rereadAfter = (e: { readonly message: string }) =>
        Effect.gen(function*() {
          if (checkpoint !== undefined && checkpoint.status === "complete" && rewritten === undefined) {
            rewritten = yield* rewrittenSource(adapter, index, source.sourceKey, checkpoint, locator)
          }
          return yield* startOver(`the imported prefix changed: ${e.message}`)
        })
      const inserted = yield* checkedRead(run, cursor, rereadAfter)
      if (inserted._tag === "Left") {
        const error = inserted.left
        if (error._tag === "StoreUnavailable") return yield* error
        yield* index.rejectSource(source, error.code, error.message)
        // Imported before and unreadable now (permission, I/O error mid-file): the rollback kept what was imported.
        const details = unreadableOf(error)
        if (details !== undefined && checkpoint !== undefined && checkpoint.status !== "rejected" && checkpoint.status !== "superseded") {
          return { _tag: "unreadable", details } as const
        }
        return { _tag: "rejected", error } as const
      }
      yield* index.completeSource(sourceRead(), checkpointed, { parts: boundParts(), diagnostics })
      yield* tellImported(ownSourceId, lastPrefix)
      // Taken again only to store its discovery summary (a watch's targeted round imported it with an earlier one,
      // and no full round followed: the watch was stopped), the file as that round left it and nothing read: the
      // source is unchanged, and said so (tester18 F14), its summary now stored.
      if (summaryOnly(checkpoint, fingerprint, checkpointed) && inserted.right === 0 && !newGeneration) {
        return { _tag: "unchanged", diagnostics } as const
      }
      // A session of a store that holds many (AgentMux: every session of an agent in one filestore.db, whose size and
      // mtime move when any of them grows) read from its cursor to nothing new: its own record did not change, so it is
      // unchanged, not "imported, 0 events" (tester36a F3: one session grew and every session of the agent was
      // reported imported). A file of its own that grew without a whole new event stays "accepted": its bytes changed.
      if (
        adapter.sourcePerFile !== true && checkpoint?.status === "complete" && inserted.right === 0 && !newGeneration &&
        rewritten === undefined
      ) {
        return { _tag: "unchanged", diagnostics } as const
      }
      // A rewrite that dropped imported events (`./rewritten.ts`) is said in this run's report, not stored with the
      // checkpoint: what the index holds for the source is what a fresh import of the file holds, so a recreated
      // index and a push see the same checkpoint (test/index/push-identity.test.ts).
      const reported = rewritten === undefined ? diagnostics : [...diagnostics, rewrittenDiagnostic(locator.path, rewritten)]
      if (carried === undefined) {
        return { _tag: "accepted", events: inserted.right, sessions, newGeneration, bytes, diagnostics: reported, rewritten } as const
      }
      // A carried overview (a watch's targeted round): its warnings with those of the lines read that it did not
      // count, for this run's report, and for the watch's next targeted round (the lines it counts now with them).
      const parseWarnings = carried.mergedWarnings(overview.parseWarnings)
      if (parseWarnings !== overview.parseWarnings || carried.lastLine !== linesCounted) {
        yield* hooks.source({ ...seen, overview: { ...overview, parseWarnings }, linesCounted: carried.lastLine })
      }
      return { _tag: "accepted", events: inserted.right, sessions, newGeneration, bytes, diagnostics: reported, rewritten, parseWarnings } as const
    }).pipe(
      Effect.catchIf(
        (e): e is Exclude<typeof e, StoreUnavailable> => !(e instanceof StoreUnavailable),
        (error) => Effect.succeed({ _tag: "rejected", error } as const)
      )
    )

  /**
   * Before anything is imported: supersede the generations of checkpointed
   * sources that this run's sources replace or that are no longer what was
   * imported, each in its own transaction (before the first batch of the
   * source that replaces it, so a kill leaves no mix):
   * - a source of a one-source-per-file provider (`sourcePerFile`) now read
   *   under another key (same provider, locator class and path; the key also
   *   carries ids read from the file, such as a Muse agents session id): the
   *   old key's generation is superseded, the reason naming what changed;
   * - a checkpointed source from below a root discovery went through this run
   *   that it did not list (no longer selected, no longer a source): when its
   *   file changed since its checkpoint (fingerprint: a stat, plus its nested
   *   logs'), its imported prefix is checked (`changedPrefix`, one read), and
   *   a changed prefix supersedes its generation. An unchanged file costs a
   *   stat and is kept; so is one whose prefix is intact (the file was only
   *   appended to). A file that is gone, or is no longer a regular file (a
   *   symlink, fifo or folder in its place: never read), is kept as it was
   *   (the index is an archive) and counted as `gone`. One that cannot be
   *   read (its folder cannot be searched, its prefix cannot be read:
   *   permission denied, an I/O error) is kept as it was too, and answered
   *   in `unreadable` (never taken as changed).
   */
  const supersedeStale = (
    work: ReadonlyArray<{ readonly provider: ProviderId; readonly locator: Locator }>,
    checkpoints: ReadonlyMap<string, SourceCheckpoint>,
    covered: ReadonlyMap<ProviderId, ReadonlyArray<string>>,
    /** Each work item's resolved locator (`resolveLocator`) and its `index.sourceKey`, when the caller has them. */
    pre?: { readonly resolved: ReadonlyArray<Locator>; readonly keys: ReadonlyArray<string> },
    /** The paths discovery reported as no regular file (a symlink, fifo or folder in a source's place): gone, as discovery saw them. */
    notRegular: ReadonlySet<string> = new Set(),
    /** The source files discovery listed but could not read: counted unreadable from discovery's report, not looked at again. */
    discoveryUnreadable: ReadonlySet<string> = new Set()
  ): Effect.Effect<
    {
      superseded: Array<SupersededSource>
      gone: number
      unreadable: Array<{ provider: ProviderId; path: string; details: UnreadableDetails }>
      emptied: Array<Emptied>
    },
    StoreUnavailable
  > =>
    Effect.gen(function*() {
      const superseded: Array<SupersededSource> = []
      const unreadable: Array<{ provider: ProviderId; path: string; details: UnreadableDetails }> = []
      const emptied: Array<Emptied> = []
      let gone = 0
      const live = (c: SourceCheckpoint) => c.status !== "superseded" && c.status !== "rejected"
      const fileKey = (provider: string, l: Locator) => `${provider}\u0000${l.locatorClass}\u0000${l.path}`
      const inWork = new Map<string, Locator>()
      const resolvedAt = (k: number) => pre?.resolved[k] ?? resolveLocator(work[k].locator)
      work.forEach((w, k) => {
        const locator = resolvedAt(k)
        inWork.set(pre?.keys[k] ?? index.sourceKey(w.provider, locator), locator)
      })
      const done = new Set<string>()
      const supersede = (c: SourceCheckpoint, reason: string) =>
        Effect.suspend(() => {
          done.add(c.sourceKey)
          superseded.push({ provider: c.provider, path: c.locator.path, reason })
          return index.supersedeSource(c.sourceKey, reason)
        })
      const perFile = new Map<ProviderId, boolean>()
      const sourcePerFile = (provider: ProviderId) =>
        Effect.suspend(() => {
          const known = perFile.get(provider)
          if (known !== undefined) return Effect.succeed(known)
          return registry.get(provider).pipe(
            Effect.map((a) => a.sourcePerFile === true),
            Effect.orElseSucceed(() => false),
            Effect.tap((b) => Effect.sync(() => perFile.set(provider, b)))
          )
        })
      // Read under another key: the checkpoints at each file of this run's one-source-per-file sources.
      const byFile = new Map<string, Array<SourceCheckpoint>>()
      for (const c of checkpoints.values()) {
        if (!live(c) || inWork.has(c.sourceKey) || c.locator.path === "") continue
        const k = fileKey(c.provider, c.locator)
        byFile.set(k, [...(byFile.get(k) ?? []), c])
      }
      // (None in the common case: then no key per source.)
      for (let k = 0; k < (byFile.size === 0 ? 0 : work.length); k++) {
        const w = work[k]
        const locator = resolvedAt(k)
        const olds = byFile.get(fileKey(w.provider, locator))
        if (olds === undefined || !(yield* sourcePerFile(w.provider))) continue
        for (const c of olds) {
          if (done.has(c.sourceKey)) continue
          const changed = (["agentId", "sessionId"] as const)
            .filter((f) => (c.locator[f] ?? "") !== (locator[f] ?? ""))
            .map((f) => `${f === "agentId" ? "agent id" : "session id"} ${c.locator[f] ?? "(none)"} → ${locator[f] ?? "(none)"}`)
          yield* supersede(c, `the file is now read as another source${changed.length > 0 ? ` (${changed.join(", ")})` : ""}`)
        }
      }
      // Not listed by the discovery of a root it lies below.
      const under = (p: string, roots: ReadonlyArray<string>) =>
        roots.some((r) => p.startsWith(r.endsWith(nodePath.sep) ? r : r + nodePath.sep))
      for (const c of checkpoints.values()) {
        if (!live(c) || inWork.has(c.sourceKey) || done.has(c.sourceKey) || c.locator.path === "") continue
        const roots = covered.get(c.provider)
        if (roots === undefined || !under(c.locator.path, roots) || !(yield* sourcePerFile(c.provider))) continue
        // Discovery could not read it (e.g. a Muse Code log replaced between its probe and its head read): counted
        // unreadable as discovery reported it; looked at again here, what is there now could count it a second time
        // (superseded, gone) or, its prefix intact, nowhere.
        if (discoveryUnreadable.has(c.locator.path)) continue
        // Reported by discovery as no regular file: gone, as it reported it (a file put back since is the next run's;
        // probed again here, it would be kept and counted nowhere).
        const reportedNotRegular = notRegular.has(c.locator.path)
        const st = reportedNotRegular ? undefined : yield* Effect.either(access.probe(c.locator.path))
        if (st === undefined) {
          gone++
          if (c.shownGeneration !== undefined) yield* index.discardGeneration(c.sourceKey)
          continue
        }
        if (st._tag === "Left") {
          // Cannot be told (a folder that cannot be searched): kept as it is.
          const details = unreadableOf(st.left)
          if (details !== undefined) unreadable.push({ provider: c.provider, path: c.locator.path, details })
          continue
        }
        const at = st.right
        // Gone, or no longer a regular file (a symlink, fifo, folder put in its place): kept as it was, never
        // read (a fifo would block); discovery reports what is there now.
        if (Option.isNone(at) || at.value.kind !== "file") {
          gone++
          // A new generation begun beside the complete one and not completed: it cannot be any more (docs/index.md, "Crash-safe").
          if (c.shownGeneration !== undefined) yield* index.discardGeneration(c.sourceKey)
          continue
        }
        const adapter = yield* registry.get(c.provider).pipe(Effect.option)
        if (Option.isNone(adapter)) continue
        const listed = adapter.value.parts !== undefined ? yield* Effect.either(adapter.value.parts(c.locator)) : undefined
        if (listed?._tag === "Left") {
          // Its nested logs' folder cannot be listed: none of them is taken as gone, the source is kept as it is.
          const details = unreadableOf(listed.left)
          if (details !== undefined) unreadable.push({ provider: c.provider, path: c.locator.path, details })
          continue
        }
        const parts = listed?._tag === "Right" ? listed.right : []
        const fingerprint = yield* fingerprintOf(access, c.locator, parts, { wal: adapter.value.noWal !== true })
        if (fingerprint !== null && fingerprint === c.fingerprint) continue
        // Kept as damaged by an earlier run of this importer, and unchanged since (its file, its checkpoint): again, unread.
        const before = keptDamaged.get(c.sourceKey)
        if (before !== undefined && fingerprint !== null && before.fingerprint === fingerprint && before.checkpoint === c.fingerprint) {
          emptied.push({ ...before.emptied, notReadAgain: true })
          continue
        }
        keptDamaged.delete(c.sourceKey)
        /** Kept as damaged: said, and remembered by the fingerprint taken before the file was read. */
        const keep = (e: Emptied) => {
          emptied.push(e)
          if (fingerprint !== null) keptDamaged.set(c.sourceKey, { fingerprint, checkpoint: c.fingerprint, emptied: e })
        }
        const changed = yield* Effect.either(changedPrefix(access, c, c.locator, fingerprint, parts, new PrefixDigests(access)))
        if (changed._tag === "Left") {
          // Its prefix could not be read: nothing is known of it, so it is kept as it is (fail closed).
          const details = unreadableOf(changed.left)
          if (details !== undefined) unreadable.push({ provider: c.provider, path: c.locator.path, details })
          continue
        }
        if (changed.right !== undefined) {
          // A file that now holds nothing where it held what was imported (emptied, zeroed whole, a zeroed tail or
          // block) is damaged, not a new version: kept as it was (`./emptied.ts`).
          const damaged = yield* Effect.either(damagedSource(access, c.locator.path, c, parts))
          if (damaged._tag === "Left") {
            const details = unreadableOf(damaged.left)
            if (details !== undefined) unreadable.push({ provider: c.provider, path: c.locator.path, details })
            continue
          }
          if (damaged.right !== undefined) {
            keep({ provider: c.provider, path: c.locator.path, damaged: damaged.right })
            continue
          }
          // Cut back to a prefix of what was imported, too short now for discovery to list it as a session (a
          // transcript cut before its first prompt): damage, kept as it was, as when it is listed (`./truncated.ts`).
          const cut = yield* Effect.either(truncatedSource(access, adapter.value, index, c.sourceKey, c, c.locator))
          if (cut._tag === "Right" && cut.right !== undefined) {
            keep({ provider: c.provider, path: c.locator.path, damaged: { path: c.locator.path, lost: { _tag: "truncated", ...cut.right } } })
            continue
          }
          // Overwritten in place with lines none of which reads as JSON (garbage where the session was): no longer
          // listed as a session, but damage, not a new version: kept as it was (`garbledSource`, tester37 F1). A line
          // log only: a store (AgentMux) is no line log.
          if (adapter.value.sourcePerFile === true) {
            const garbled = yield* Effect.either(garbledSource(access, c.locator.path, c))
            if (garbled._tag === "Right" && garbled.right !== undefined) {
              keep({ provider: c.provider, path: c.locator.path, damaged: garbled.right })
              continue
            }
          }
          yield* supersede(c, `no longer listed by discovery, and ${changed.right}`)
        }
      }
      return { superseded, gone, unreadable, emptied }
    })

  /**
   * The unchanged check of every source of a run, in one pass before any is
   * imported: a source whose checkpoint is complete and whose fingerprint
   * (the stat discovery took of its file, else one stat; its `-wal`'s and its
   * parts', as `fingerprintOf` makes it) is the checkpoint's is unchanged, as
   * `importSource` would find it; its `hooks.source` is told here. Answers,
   * per work item, the checkpoint of an unchanged source, else null (the
   * source is imported: `importSource` checks it again, with a fresh stat).
   * No query: the checkpoints are those the run read, all in one query.
   */
  const unchangedSources = (
    work: ReadonlyArray<{
      readonly provider: ProviderId
      readonly locator: Locator
      readonly summary: Record<string, unknown>
      readonly overview: SourceSummary
      readonly stat?: FingerprintStat | undefined
      readonly parts?: ReadonlyArray<string> | undefined
      readonly fingerprint?: string | undefined
    }>,
    /** Each work item's resolved locator (`resolveLocator`) and its `index.sourceKey`. */
    resolved: ReadonlyArray<Locator>,
    keys: ReadonlyArray<string>,
    checkpoints: ReadonlyMap<string, SourceCheckpoint>
  ): Effect.Effect<ReadonlyArray<SourceCheckpoint | null>> => {
    const tellHooks = hooks !== ImportHooks.none
    // Each provider's adapter, looked up once before the pass (a plain lookup per source after).
    const providersOf = [...new Set(work.map((w) => w.provider))]
    return Effect.flatMap(
      Effect.forEach(providersOf, (p) => Effect.option(registry.get(p))),
      (found) => {
        const adapters = new Map(providersOf.map((p, i) => [p, Option.getOrUndefined(found[i])]))
        const out: Array<SourceCheckpoint | null> = new Array(work.length).fill(null)
        // The sources that may be unchanged (a complete checkpoint with a fingerprint, a known provider), in plain code.
        const maybe: Array<number> = []
        for (let k = 0; k < work.length; k++) {
          const checkpoint = checkpoints.get(keys[k])
          if (checkpoint === undefined || checkpoint.status !== "complete" || checkpoint.fingerprint === null) continue
          if (adapters.get(work[k].provider) !== undefined) maybe.push(k)
        }
        // Their nested logs: those discovery looked for (`DiscoveredSource.parts`), else listed by their adapters
        // (through SourceAccess): one effect each, nothing chained to it. A parts folder that cannot be listed: not
        // settled here (`importSource` says what it is).
        const listed: Array<Either.Either<ReadonlyArray<string>, unknown>> = new Array(maybe.length)
        const toList: Array<number> = []
        for (let i = 0; i < maybe.length; i++) {
          const k = maybe[i]
          const known = work[k].parts
          if (known !== undefined) listed[i] = Either.right(known)
          else if (adapters.get(work[k].provider)!.parts === undefined) listed[i] = Either.right(NO_PARTS)
          else toList.push(i)
        }
        const listing = toList.length === 0
          ? Effect.void
          : Effect.map(
            Effect.forEach(toList, (i) => Effect.either(adapters.get(work[maybe[i]].provider)!.parts!(resolved[maybe[i]]))),
            (ls) => {
              for (let j = 0; j < toList.length; j++) listed[toList[j]] = ls[j]
            }
          )
        return Effect.flatMap(listing, () => {
          /** Sources whose fingerprint needs a stat (no stat from discovery, a `-wal` to look for, or parts). */
          const withIo: Array<{ readonly k: number; readonly parts: ReadonlyArray<string> }> = []
          /** Sources found unchanged, with their parts (for `hooks.source`). */
          const same: Array<{ readonly k: number; readonly parts: ReadonlyArray<string> }> = []
          for (let i = 0; i < maybe.length; i++) {
            const l = listed[i]
            if (l._tag === "Left") continue
            const k = maybe[i]
            const w = work[k]
            const adapter = adapters.get(w.provider)!
            if (w.stat !== undefined && adapter.noWal === true && l.right.length === 0 && resolved[k].path !== "") {
              // The common case: discovery's stat, no `-wal`, no parts: as `fingerprintOf` makes it, without an effect.
              if (fingerprintOfStat(w.stat) === checkpoints.get(keys[k])!.fingerprint) same.push({ k, parts: l.right })
            } else if (w.fingerprint !== undefined && w.parts !== undefined && adapter.noWal === true && resolved[k].path !== "") {
              // Parts too, discovery's fingerprint of its own stats of the file and of those parts: no stat again.
              if (w.fingerprint === checkpoints.get(keys[k])!.fingerprint) same.push({ k, parts: l.right })
            } else withIo.push({ k, parts: l.right })
          }
          const settled = withIo.length === 0 ? Effect.void : Effect.forEach(withIo, ({ k, parts }) => {
            const w = work[k]
            const wal = adapters.get(w.provider)!.noWal !== true
            return Effect.map(fingerprintOf(access, resolved[k], parts, { stat: w.stat, wal }), (fingerprint) => {
              if (fingerprint !== null && fingerprint === checkpoints.get(keys[k])!.fingerprint) same.push({ k, parts })
            })
          }, { discard: true })
          return Effect.flatMap(settled, () => {
            for (const { k } of same) out[k] = checkpoints.get(keys[k])!
            if (!tellHooks) return Effect.succeed(out)
            return Effect.as(
              Effect.forEach(same.sort((a, b) => a.k - b.k), ({ k, parts }) => {
                const w = work[k]
                return hooks.source({
                  provider: w.provider,
                  locator: resolved[k],
                  summary: w.summary,
                  overview: w.overview,
                  parts,
                  perFile: adapters.get(w.provider)!.sourcePerFile === true
                })
              }, { discard: true }),
              out
            )
          })
        })
      }
    )
  }

  /**
   * The parse workers of a run (`ImportPlan.jobs`, see `./parse-pool.ts`):
   * with 2 or more jobs, the new sources that `importSource` would read at
   * once and write whole are read, parsed and bound by that many worker
   * threads, in the run's order, `SOURCES_PER_REQUEST` per request, at most `2 × jobs` requests ahead of the one
   * being written (bounded memory); this thread writes each answer in turn.
   * None without a worker entry (`parseWorkerEntry`), without the Node source access (a test's own), with import hooks (a
   * watch keeps hash states of what it read), or for fewer than
   * `MIN_SOURCES_FOR_WORKERS` such sources; none either when the workers
   * cannot start (their entry does not load: `onFailed` is told, with how
   * many sources this thread then reads). Answers, per work item, the
   * effect that waits for its worker's answer (undefined: read here).
   */
  const parseAhead = (
    plan: ImportPlan,
    work: ReadonlyArray<{ readonly provider: ProviderId; readonly locator: Locator; readonly earlier?: boolean | undefined }>,
    keys: ReadonlyArray<string>,
    unchangedAt: ReadonlyArray<SourceCheckpoint | null>,
    checkpoints: ReadonlyMap<string, SourceCheckpoint>,
    onFailed: (failed: ParseWorkersFailed) => void
  ): Effect.Effect<(k: number) => Effect.Effect<ParseAnswer> | undefined, never, Scope.Scope> =>
    Effect.gen(function*() {
      const none = () => undefined
      const jobs = plan.jobs ?? defaultJobs()
      if (
        jobs < 2 || hooks !== ImportHooks.none || index.importWhole === undefined || access !== sourceAccessNode ||
        Option.isNone(policy) || Option.isNone(limits)
      ) return none
      const atOnce = new Map<ProviderId, boolean>()
      for (const p of new Set(work.map((w) => w.provider))) {
        const adapter = yield* Effect.option(registry.get(p))
        atOnce.set(p, Option.isSome(adapter) && adapter.value.streamAtOnce !== undefined)
      }
      const ahead: Array<number> = []
      for (const [k, w] of work.entries()) {
        if (unchangedAt[k] === null && w.earlier !== true && w.locator.path !== "" && !checkpoints.has(keys[k]) && atOnce.get(w.provider) === true) {
          ahead.push(k)
        }
      }
      if (ahead.length < MIN_SOURCES_FOR_WORKERS) return none
      // No worker entry beside this code (a bundle without its worker): every source is read here, as with --jobs 1.
      const entry = parseWorkerEntry()
      if (entry === null) return none
      const start = yield* Effect.orDie(makeParsePool(jobs, { policy: policy.value, limits: limits.value }, entry))
      // A worker entry that cannot load (a truncated bundle, a top level that throws): every source is read here, as
      // with --jobs 1, and the report says so (`ImportReport.parseWorkers`).
      if (start._tag === "failed") {
        onFailed({ code: PARSE_WORKERS_UNAVAILABLE, problem: start.problem, sources: ahead.length })
        return none
      }
      const pool = start.pool
      const batchSize = batchSizesOf(plan).events
      const positionOf = new Map(ahead.map((k, i) => [k, i]))
      // Requests of SOURCES_PER_REQUEST sources in the run's order: request r holds ahead[r * per ...].
      const per = SOURCES_PER_REQUEST
      const requests = Math.ceil(ahead.length / per)
      const fibers = new Map<number, Fiber.RuntimeFiber<ReadonlyArray<ParseAnswer>>>()
      // Two requests per job ahead of the one being written (each worker answers 2 at a time): bounded memory.
      const window = 2 * jobs
      let started = 0
      const scope = yield* Effect.scope
      /**
       * A request's answers once its first source waited for them: its other sources take theirs without a fiber
       * operation each (the first source of a request starts the requests of the window, so these start none).
       */
      const arrived = new Map<number, ReadonlyArray<ParseAnswer>>()
      return (k: number) => {
        const at = positionOf.get(k)
        if (at === undefined) return undefined
        const r = Math.floor(at / per)
        const take = (answers: ReadonlyArray<ParseAnswer>) => {
          // The request's last source written: its answers are let go.
          if (at % per === per - 1 || at === ahead.length - 1) {
            fibers.delete(r)
            arrived.delete(r)
          }
          return answers[at % per]
        }
        const known = arrived.get(r)
        if (known !== undefined) return Effect.sync(() => take(known))
        return Effect.gen(function*() {
          while (started < requests && started <= r + window) {
            const sources = ahead.slice(started * per, (started + 1) * per).map((j) => ({ provider: work[j].provider, locator: resolveLocator(work[j].locator) }))
            // A worker that cannot start or died: a defect (the build's worker entry is broken), never a silent fallback.
            fibers.set(started, yield* Effect.forkIn(Effect.orDie(pool.executeEffect({ sources, batchSize })), scope))
            started++
          }
          // Its exit, not `Fiber.join`: a join merges the request fiber's FiberRefs into this one's, a cost per
          // source on the writing thread (issue 13, first import), and that fiber sets none this one needs.
          const answers = yield* Effect.flatten(Fiber.await(fibers.get(r)!))
          arrived.set(r, answers)
          return take(answers)
        })
      }
    })

  const run = (plan: ImportPlan): Effect.Effect<ImportReport, StoreUnavailable> =>
    Effect.gen(function*() {
      const sizes = batchSizesOf(plan)
      const providers = new Map<ProviderId, Mutable<ProviderCoverage>>()
      const work: Array<{
        provider: ProviderId
        locator: Locator
        summary: Record<string, unknown>
        overview: SourceSummary
        earlier?: boolean
        /** The overview is an earlier discovery's, counting the file's lines up to this one (`ImportPlan.explicit[].linesCounted`). */
        linesCounted?: number | undefined
        /** The stat discovery took of the source's file (`DiscoveredSource.stat`). */
        stat?: FingerprintStat | undefined
        /** The parts discovery looked for (`DiscoveredSource.parts`). */
        parts?: ReadonlyArray<string> | undefined
        /** The fingerprint discovery made of its stats of the file and parts (`DiscoveredSource.fingerprint`). */
        fingerprint?: string | undefined
      }> = []
      const omittedByReason: Record<string, number> = {}
      /** Source files discovery could not read (`unreadableSourceOf`): counted as unreadable once the stale ones are known. */
      const discoveredUnreadable: Array<{ readonly provider: ProviderId; readonly path: string; readonly details: UnreadableDetails }> = []
      const causes: Array<PartialCause> = []
      const partialProvider = (
        p: Mutable<ProviderCoverage>,
        code: string,
        problem: string,
        remedy: string | null,
        path: string | null = null
      ) => {
        p.coverage = "partial"
        p.reasonCode ??= code
        causes.push({ provider: p.provider, code, path, problem, remedy })
      }
      /** What a discovery's diagnostics say of `code` (the problem behind a reason code), else `fallback`. */
      const problemOf = (diagnostics: ReadonlyArray<{ readonly code: string; readonly message: string }>, code: string | null, fallback: string) =>
        diagnostics.find((d) => d.code === code)?.message ?? fallback

      const checkpoints = yield* (index.importCheckpoints ?? index.checkpoints)
      /** The paths discovery reported as no regular file ({@link NOT_REGULAR_CODES}): gone for `supersedeStale`. */
      const notRegularPaths = new Set<string>()
      /** The roots each provider's discovery went through this run (real paths). */
      const covered = new Map<ProviderId, Array<string>>()
      for (const entry of plan.discover) {
        const { provider, request } = entry
        const adapter = yield* Effect.either(registry.get(provider))
        if (adapter._tag === "Left") continue
        const known = knownOf(checkpoints, provider)
        const report = yield* Effect.either(adapter.right.discover({ ...request, known, skipped: skippedOf(provider) }))
        if (report._tag === "Left") {
          // Discovery failed (an AgentMux store locked by a writer, damaged, ...): nothing is listed, so nothing is
          // read or counted in a bucket; what was imported from it is kept as it was. The cause names the file the
          // error names (its `details.store` / `path` / `root`), and the provider carries the error as its
          // diagnostic, with how many sources imported before are kept (tester34a F3).
          const e = report.left
          const d = (e as { readonly details?: unknown }).details
          const named = isRecord(d) ? [d.store, d.path, d.root].find((x): x is string => typeof x === "string") ?? null : null
          let kept = 0
          for (const c of checkpoints.values()) if (c.provider === provider && c.status === "complete") kept++
          const p = providers.get(provider) ?? { provider, status: "unavailable", coverage: "complete", sourceCount: 0, reasonCode: null, remediation: null, diagnostics: [] }
          p.status = "unavailable"
          p.remediation = e.remediation ?? null
          p.diagnostics = [...p.diagnostics, {
            code: e.code,
            message: kept === 0
              ? e.message
              : `${e.message} Not listed this run: the ${kept} source(s) imported from it before are kept as they were.`,
            details: { ...(named !== null ? { path: named } : {}), kept }
          }]
          providers.set(provider, p)
          partialProvider(p, e.code, e.message, e.remediation ?? null, named)
          continue
        }
        const r = report.right
        if (r.roots !== undefined) {
          covered.set(provider, [...(covered.get(provider) ?? []), ...r.roots])
          yield* hooks.roots(provider, r.roots)
        }
        const prior = providers.get(provider)
        const p: Mutable<ProviderCoverage> = prior ?? {
          provider,
          status: r.status,
          coverage: r.coverage,
          sourceCount: 0,
          reasonCode: r.reasonCode,
          remediation: r.remediation,
          diagnostics: []
        }
        providers.set(provider, p)
        if (prior !== undefined && r.status !== "checked") p.status = r.status
        p.sourceCount += r.sourceCount
        for (const [reason, n] of Object.entries(r.omitted ?? {})) {
          if (n <= 0) continue
          const omitted: Record<string, number> = { ...p.omitted }
          omitted[reason] = (omitted[reason] ?? 0) + n
          p.omitted = omitted
          omittedByReason[reason] = (omittedByReason[reason] ?? 0) + n
        }
        if (r.notes !== undefined && r.notes.length > 0) p.notes = [...(p.notes ?? []), ...r.notes]
        // A source file discovery listed but could not read (details: the access layer's unreadable mark and the
        // file, `source`): counted as unreadable with its SOURCE_UNREADABLE cause (below), not as a discovery skip.
        for (const d of r.diagnostics) {
          if (NOT_REGULAR_CODES.has(d.code) && typeof d.details?.path === "string") notRegularPaths.add(d.details.path)
        }
        const unreadableHere = r.diagnostics.filter((d) => unreadableSourceOf(d) !== undefined)
        for (const d of unreadableHere) discoveredUnreadable.push({ provider, ...unreadableSourceOf(d)! })
        const rest = unreadableHere.length === 0 ? r.diagnostics : r.diagnostics.filter((d) => unreadableSourceOf(d) === undefined)
        const kept = r.coverage === "partial" || r.status !== "checked" ? rest : []
        p.diagnostics = [...p.diagnostics, ...kept]
        if (r.coverage === "partial" && unreadableHere.length > 0 && rest.length === 0) {
          // Partial only for the files it could not read: said by their SOURCE_UNREADABLE causes.
        } else if (r.coverage === "partial") {
          partialProvider(p, r.reasonCode ?? "PARTIAL", problemOf(r.diagnostics, r.reasonCode, "Discovery covered only part of the sources."), r.remediation)
        } else if (entry.configured === true && r.status === "unavailable") {
          // A root or store the operator named explicitly is missing: a typo must not read as "complete".
          partialProvider(p, r.reasonCode ?? "UNAVAILABLE", problemOf(r.diagnostics, r.reasonCode, "What was named is unavailable."), r.remediation)
        } else if (entry.expectSources === true && r.sourceCount === 0) {
          partialProvider(
            p,
            "NO_SOURCES",
            `Nothing found for ${request.agentId !== undefined ? `agent ${request.agentId}` : "the request"}.`,
            "Check the id (and --store)."
          )
        }
        // The summary is read from the source when needed (a source listed from its kept overview makes it lazily).
        for (const s of r.sources) work.push(new DiscoveredWork(provider, s))
      }
      for (const e of plan.explicit) {
        work.push({
          provider: e.provider,
          locator: e.locator,
          summary: e.summary ?? {},
          overview: e.overview ?? emptySourceSummary(e.locator.sessionId ?? null),
          earlier: e.summary !== undefined,
          // An earlier discovery's overview (a watch's targeted round): the read adds the lines it did not count.
          linesCounted: e.overview === undefined ? undefined : e.linesCounted ?? e.overview.counts.lines ?? 0
        })
        const p = providers.get(e.provider) ?? {
          provider: e.provider,
          status: "checked",
          coverage: "complete",
          sourceCount: 0,
          reasonCode: null,
          remediation: null,
          diagnostics: []
        }
        p.sourceCount++
        providers.set(e.provider, p)
      }
      const notIncluded = plan.skipped
      const resolved = work.map((w) => resolveLocator(w.locator))
      const keys = work.map((w, k) => index.sourceKey(w.provider, resolved[k]))
      const stale = yield* supersedeStale(work, checkpoints, covered, { resolved, keys }, notRegularPaths, new Set(discoveredUnreadable.map((u) => u.path)))
      let unreadable = 0
      /** A source imported before that cannot be read now: kept as it is, counted, and a cause of partial coverage. */
      const noteUnreadable = (provider: ProviderId, path: string, details: UnreadableDetails) => {
        unreadable++
        const p = providers.get(provider) ?? { provider, status: "checked", coverage: "complete", sourceCount: 0, reasonCode: null, remediation: null, diagnostics: [] }
        providers.set(provider, p)
        const { problem, remedy } = unreadableCause(path, details)
        p.diagnostics = [...p.diagnostics, { code: SOURCE_UNREADABLE, message: problem, remediation: remedy, details: { path, errno: details.errno, failedPath: details.path } }]
        partialProvider(p, SOURCE_UNREADABLE, problem, remedy, path)
      }
      for (const u of stale.unreadable) noteUnreadable(u.provider, u.path, u.details)
      const notedUnreadable = new Set(stale.unreadable.map((u) => u.path))
      for (const u of discoveredUnreadable) {
        if (notedUnreadable.has(u.path)) continue
        notedUnreadable.add(u.path)
        noteUnreadable(u.provider, u.path, u.details)
      }
      /** A source kept because a file of it now holds nothing where it held that (`./emptied.ts`): a diagnostic and a cause, coverage partial. */
      const noteEmptied = (e: Emptied) => {
        const p = providers.get(e.provider) ?? { provider: e.provider, status: "checked", coverage: "complete", sourceCount: 0, reasonCode: null, remediation: null, diagnostics: [] }
        providers.set(e.provider, p)
        const { lost } = e.damaged
        const cause = emptiedCause(e.damaged.path, lost)
        const { remedy } = cause
        // Not read again (unchanged since an earlier run found it so): said, in the cause too (said once with it).
        const problem = e.notReadAgain === true ? `${cause.problem} ${NOT_READ_AGAIN}` : cause.problem
        const found = lost._tag === "zeroed"
          ? { path: e.path, file: e.damaged.path, size: lost.size, zeroedFrom: lost.from, zeroedBytes: lost.length }
          : lost._tag === "not-utf8"
          ? { path: e.path, file: e.damaged.path, size: lost.size, encoding: lost.encoding.encoding, byteOrderMark: lost.encoding.byteOrderMark }
          : lost._tag === "truncated"
          ? { path: e.path, file: e.damaged.path, size: lost.size, importedBytes: lost.imported, ...(lost.matched !== undefined ? { matchedBytes: lost.matched } : {}) }
          : lost._tag === "garbled"
          ? { path: e.path, file: e.damaged.path, size: lost.size, linesNotJson: lost.lines }
          : { path: e.path, size: lost.size }
        const details = e.notReadAgain === true ? { ...found, notReadAgain: "unchanged-since-skipped" } : found
        const code = damagedCode(lost)
        p.diagnostics = [...p.diagnostics, { code, message: problem, remediation: remedy, details }]
        partialProvider(p, code, problem, remedy, e.path)
      }
      // Files below a root discovery went through and did not list (too damaged to be a session: torn, zeroed, cut
      // back), kept as they were: discovered, and skipped (tester38b F3: "0 discovered" hid the file the report names).
      for (const e of stale.emptied) {
        noteEmptied(e)
        providers.get(e.provider)!.sourceCount++
      }
      const unchangedAt = yield* unchangedSources(work, resolved, keys, checkpoints)
      let parseWorkers: ParseWorkersFailed | undefined
      const parsedOf = yield* parseAhead(plan, work, keys, unchangedAt, checkpoints, (failed) => {
        parseWorkers = failed
      })

      // Progress by bytes (a display asks for it): each source weighs its file's size; the one being
      // read counts up to the end of its own file's last read, so one big source moves the display.
      const weights = progress.weighsBytes === true ? yield* Effect.forEach(work, (w) => weightOf(access, w.locator)) : []
      const bytesTotal = weights.reduce((a, b) => a + b, 0)
      let bytesDone = 0, position = 0
      yield* progress.start(work.length, bytesTotal)
      let accepted = 0, unchanged = 0, eventsAdded = 0, eventsReimported = 0, sessionsAdded = 0, newGenerations = 0, bytes = 0, done = 0
      const sessionsNoLongerShown: Array<SessionNoLongerShownBy> = []
      const rejected: Array<RejectedSource> = []
      const update = (events: number) =>
        progress.update({ sourcesDone: done, totalSources: work.length, events, bytes, bytesDone: bytesDone + position, bytesTotal })
      const silent = progress === ImportProgress.none
      const onBatch = (inserted: number) => Effect.suspend(() => update(eventsAdded + inserted))
      /**
       * Diagnostics of a source read in full (a missing nested log, …): each makes its provider's coverage partial,
       * except those that say how the events were read, none left out ({@link COMPLETE_DIAGNOSTICS}): listed only.
       */
      const readWarnings: ReadWarnings = new Map()
      /** A carried overview's warnings with those of the lines read this run (a watch's targeted round), by the source's place. */
      const carriedWarnings = new Map<number, ReadonlyArray<SourceSummary["parseWarnings"][number]>>()
      /** The `code` and `message` of each diagnostic a provider's coverage holds, once the read has added to it. */
      const saidDiagnostics = new Map<ProviderCoverage, Set<string>>()
      const noteDiagnostics = (k: number, w: (typeof work)[number], given: ReadonlyArray<Diagnostic>) => {
        const p = providers.get(w.provider)
        if (p === undefined || given.length === 0) return
        // Parse warnings go to the report's `parseWarnings` (`parseWarningsOf`), not to the provider's diagnostics.
        const warnings = given.filter((d) => d.code === PARSE_WARNING)
        const diagnostics = warnings.length === 0 ? given : given.filter((d) => d.code !== PARSE_WARNING)
        if (warnings.length > 0) readWarnings.set(k, warnings.flatMap((d) => warningOfDiagnostic(d) ?? []))
        if (diagnostics.length === 0) return
        // One diagnostic said once: the read restates what discovery said of the source (a Claude Code subagent file
        // that is a symlink or no regular file), with fewer details (tester37 F4: each was listed twice).
        let said = saidDiagnostics.get(p)
        if (said === undefined) {
          said = new Set(p.diagnostics.map(diagnosticKey))
          saidDiagnostics.set(p, said)
        }
        const fresh = diagnostics.filter((d) => !said!.has(diagnosticKey(d)))
        for (const d of fresh) said.add(diagnosticKey(d))
        if (fresh.length > 0) p.diagnostics = [...p.diagnostics, ...fresh]
        for (const d of diagnostics) {
          if (COMPLETE_DIAGNOSTICS.has(d.code)) continue
          const remedy = d.remediation ?? null
          const path = w.locator.path === "" ? null : w.locator.path
          partialProvider(p, d.code, d.message, remedy, path)
        }
      }
      for (const [k, w] of work.entries()) {
        const weight = weights[k] ?? 0
        const same = unchangedAt[k]
        if (same !== null) {
          // Settled by the pass above: counted whole, no attempt.
          unchanged++
          noteDiagnostics(k, w, same.diagnostics)
          done++
          bytesDone += weight
          // No display (`ImportProgress.none`): no effect per unchanged source (a daily re-import settles thousands here).
          if (!silent) yield* update(eventsAdded)
          continue
        }
        let inSource = 0
        const own = resolveLocator(w.locator).path
        position = 0
        const onRead = weight > 0
          ? (read: SourceRead) => {
            if (read.path === own) position = Math.min(weight, Math.max(position, read.offset + read.bytes.length))
          }
          : undefined
        // No display: no update per batch (`tellCommitted` runs none).
        const outcome = yield* importSource(w.provider, w.locator, w.summary, w.overview, sizes, checkpoints, silent ? noUpdate : (committed) => {
          inSource += committed.events
          return onBatch(inSource)
        }, w.earlier === true, onRead, parsedOf(k), w.stat, w.linesCounted)
        switch (outcome._tag) {
          case "unchanged":
            unchanged++
            noteDiagnostics(k, w, outcome.diagnostics)
            break
          case "accepted":
            accepted++
            eventsAdded += outcome.events
            // Counted once the source is in: a rejected source's batches are rolled back.
            sessionsAdded += outcome.sessions
            bytes += outcome.bytes
            if (outcome.newGeneration) {
              newGenerations++
              eventsReimported += outcome.events
            }
            if (outcome.parseWarnings !== undefined) carriedWarnings.set(k, outcome.parseWarnings)
            for (const g of outcome.rewritten?.sessionsNoLongerShown ?? []) {
              sessionsNoLongerShown.push({ provider: w.provider, path: resolveLocator(w.locator).path, ...g })
            }
            noteDiagnostics(k, w, outcome.diagnostics)
            break
          case "unreadable":
            noteUnreadable(w.provider, resolveLocator(w.locator).path, outcome.details)
            break
          case "emptied":
            noteEmptied({ provider: w.provider, path: resolveLocator(w.locator).path, damaged: outcome.damaged })
            break
          case "rejected": {
            // A source discovery listed that is gone now was deleted or moved during the run (a nested log missing is
            // a diagnostic, never this rejection): its remedy is to import again, not to check a path no one typed.
            const vanished = outcome.error.code === "SOURCE_NOT_FOUND" && w instanceof DiscoveredWork
            const r: RejectedSource = {
              provider: w.provider,
              path: w.locator.path,
              code: outcome.error.code,
              message: outcome.error.message,
              remediation: vanished ? VANISHED_REMEDY : outcome.error.remediation ?? null
            }
            rejected.push(r)
            const p = providers.get(w.provider)
            if (p !== undefined) {
              p.reasonCode ??= "SOURCES_REJECTED"
              partialProvider(p, r.code, r.message, r.remediation, r.path)
            }
          }
        }
        done++
        bytesDone += weight
        position = 0
        if (!silent) yield* update(eventsAdded)
      }
      // What the last sources left pending (their batches share transactions: `Batch.groupCommit`) is committed now.
      if (index.flush !== undefined) yield* index.flush
      yield* progress.end
      const rejectedByCode: Record<string, number> = {}
      for (const r of rejected) rejectedByCode[r.code] = (rejectedByCode[r.code] ?? 0) + 1
      const list = [...providers.values()]
      const parseWarnings = parseWarningsOf(work, readWarnings, carriedWarnings)
      const partial = rejected.length > 0 || list.some((p) => p.coverage === "partial")
      return {
        coverage: partial ? "partial" as const : "complete" as const,
        providers: list,
        notIncluded,
        sources: {
          discovered: work.length + stale.emptied.length,
          accepted,
          unchanged,
          rejected: rejected.length,
          rejectedByCode,
          newGenerations,
          omitted: Object.values(omittedByReason).reduce((a, b) => a + b, 0),
          omittedByReason,
          superseded: stale.superseded.length,
          gone: stale.gone,
          unreadable
        },
        sessionsAdded,
        eventsAdded,
        eventsReimported,
        sessionsNoLongerShown,
        parseWarnings,
        ...(parseWorkers !== undefined ? { parseWorkers } : {}),
        workspacesFound: [...new Set(work.flatMap((w) => (w.overview.workspace !== null ? [w.overview.workspace] : [])))],
        rejected,
        superseded: stale.superseded,
        remediations: causes.map(causeLine),
        causes
      }
    }).pipe(Effect.scoped)

  // One writer of the index among processes (its import lock, taken at the first write: `IndexShape.importRun`).
  return { run: index.importRun === undefined ? run : (plan: ImportPlan) => index.importRun!(run(plan)) }
})

/** Layer: the importer over the registry and the index in context. */
export const layer: Layer.Layer<Importer, never, SessionSources | Index | ImportFaults | ImportProgress | SourceAccess> = Layer.effect(
  Importer,
  make
)

