/**
 * Evidence-gated native discovery of Muse Code session logs (seed `001_…`,
 * "Native discovery"; issue 3).
 *
 * - Only under explicitly authorized `--muse-root`s; enumerates exactly
 *   `<muse-root>/YYYY/MM/DD/<session-id>/session.jsonl`, following no symlink
 *   (folder or file), skipping junk, wrong-depth files, folders that do not
 *   fit the layout, and never descending into a session folder (so nested
 *   `subagent/<child>/session.jsonl` logs are never candidates). A symlinked
 *   `session.jsonl`, and a symlink named as a layout folder (year, month, day
 *   or session) that leads to a folder outside the root, are reported
 *   (`SYMLINK_SKIPPED`, coverage `partial`); a link into the root (walked
 *   there) or to nothing (a loop) is only tallied.
 * - Logs whose whole evidence names another workspace (`mismatch`) are not
 *   selected and, by seed 001, do not make coverage partial; they are counted
 *   in `omitted` (`other-workspace`) and said in a `MUSE_OTHER_WORKSPACE`
 *   diagnostic and a note (how many, the first workspaces seen).
 * - Each candidate is read incrementally under the {@link DiscoveryBudgetShape}
 *   until matching workspace evidence (then `matched`), the end of the source
 *   (evidence seen without a match: `mismatch`; none: `inconclusive`
 *   `NO_WORKSPACE_EVIDENCE`), or a stop: a budget that ran out, malformed or
 *   truncated input, an unreadable source (`inconclusive`).
 * - Evidence and workspaces are compared as real paths: evidence matches a
 *   workspace when its real path is the workspace's real path or lies inside
 *   it. A relative evidence path never matches.
 * - Every candidate gets a content-free receipt in
 *   `receipts.museSourceInspections`; any inconclusive candidate (or an
 *   unreadable folder) makes the provider `not-checked` with coverage
 *   `partial`, with an explicit diagnostic, even when other sources matched.
 * - A root without a single candidate, where nothing was skipped either
 *   (`MUSE_ROOT_EMPTY`), makes coverage `partial` too: every muse root is one
 *   the user named. The remedy names each cause present.
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type IngestError, isIngestError, type SourceAccessError, SourceNotRegularFile } from "../../domain/errors.js"
import { type Diagnostic, type DiscoveredSource, type DiscoveryReport, type Locator, type SourceSummary } from "../../domain/model.js"
import {
  type EvidenceHit,
  EvidenceScanner,
  type InspectionReason,
  type ScanCounts
} from "../../domain/muse-code/evidence-scan.js"
import { DAY_DIR, MONTH_DIR, SESSION_ID_DIR, SESSION_LOG_NAME, YEAR_DIR } from "../../domain/muse-code/native.js"
import { isNotAFolder, notAFolderOf } from "../../domain/not-a-folder.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import { isReplaced, REPLACED, unreadableDetails } from "../../domain/unreadable.js"
import type { DiscoveryBudgetShape } from "../../services/DiscoveryBudget.js"
import type { AuthorizedFile, FileStat, Head, ListedHead, ListedPath } from "../../services/SourceAccess.js"
import type { KnownSource } from "../../services/SessionSource.js"
import { fingerprintOfStat } from "../../domain/fingerprint.js"
import { notUtf8Source } from "../jsonl/encoding.js"
import { type Line, LineSplitter, readSize } from "../jsonl/lines.js"
import { NATIVE_CLASS, type NativeDeps, nestedLogPathsProbed, nestedLogsFolderOf } from "./native-source.js"

/** Outcome of one candidate's inspection (seed 001). */
export type InspectionOutcome = "matched" | "mismatch" | "inconclusive"

/**
 * A content-free `museSourceInspections` receipt: which source (id and
 * redacted locator, never the folders above it), the outcome and reason code,
 * how much was inspected (outer lines, decoded retained children, bytes), and
 * whether inspection reached the end of the source.
 */
export interface MuseSourceInspection {
  readonly sourceId: string
  readonly locator: string
  readonly outcome: InspectionOutcome
  readonly reasonCode: InspectionReason
  readonly recordsInspected: number
  readonly childrenInspected: number
  readonly bytesInspected: number
  readonly reachedEof: boolean
  /** Selected again without reading: unchanged since a discovery that matched it (see `DiscoverRequest.known`). */
  readonly unchangedSinceLastInspection?: boolean
}

/** What enumeration skipped, by kind (content-free counts). */
export interface EnumerationTally {
  roots: number
  candidates: number
  symlinksSkipped: number
  junkSkipped: number
  foldersSkipped: number
  unreadableFolders: number
}

/**
 * A `session.jsonl` that is not a regular file (a symlink, folder, fifo,
 * socket or device), or a symlink named as a folder of the layout
 * (`folder`): skipped, reported.
 */
interface NotRegularLog {
  readonly path: string
  readonly kind: "symlink" | "directory" | "other"
  readonly folder?: boolean
}

/** A candidate log found by enumeration. */
interface Candidate {
  readonly root: string
  readonly path: string
  readonly date: string
  readonly folder: string
  /**
   * The log's stat from enumeration (no symlink followed), for a log the index knows (probed, so that an unchanged
   * one is settled without a read); undefined for any other listed log: what is there is told when its head is read
   * (`SourceAccessShape.readListedHeads`: no `lstat` per log), and it may then turn out to be no candidate at all.
   */
  readonly stat: FileStat | undefined
}

/** What enumeration answers: the candidates, and the layout-named folder links that lead out of the root (reported). */
interface Enumerated {
  readonly candidates: Array<Candidate>
  readonly folderLinks: Array<NotRegularLog>
}

/** The services of a discovery run. */
export interface DiscoveryDeps extends NativeDeps {
  readonly budget: DiscoveryBudgetShape
}

const REASON_TEXT: Record<InspectionReason, string> = {
  WORKSPACE_MATCHED: "workspace evidence matched",
  WORKSPACE_MISMATCH: "the whole log was inspected and its workspace evidence names another workspace",
  NO_WORKSPACE_EVIDENCE: "the log carries no workspace evidence (workspace_root / cwd); nothing is guessed from its path",
  BUDGET_OUTER_RECORDS: "the outer-record budget ran out before matching evidence",
  BUDGET_RETAINED_CHILDREN: "the retained-children budget ran out before matching evidence",
  BUDGET_RECORD_BYTES: "a record or retained child is larger than the per-record byte budget",
  BUDGET_SOURCE_BYTES: "the source-byte budget ran out before matching evidence",
  BUDGET_NESTING_DEPTH: "a record nests deeper than the nesting budget",
  MALFORMED: "a line is malformed before any matching evidence",
  TRUNCATED: "the log ends in a torn line before any matching evidence",
  UNREADABLE: "the log could not be read",
  NOT_UTF8: "the log is not UTF-8"
}

/** A normalized folder path with its trailing separator (one already there, as a root's `/`, is not doubled). */
const under = (dir: string): string => (dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep)

/**
 * The path of the log of session folder `name` in day folder `dir` (with its
 * trailing separator): as `nodePath.join(dir, name, SESSION_LOG_NAME)`, as
 * `dir` is a normalized real path and `name` a listed name, without a
 * normalizing pass per log.
 */
const logPathOf = (dir: string, name: string): string => dir + name + SEP_LOG_NAME

/** A separator and the log's name. */
const SEP_LOG_NAME = nodePath.sep + SESSION_LOG_NAME

/**
 * Append to `out` the candidates of a day folder's session folders (`dir`
 * with its trailing separator), each as listed (none known to the index, so
 * none probed: see {@link Candidate}), in their order. Plain code: one pass
 * over the sessions of a day, not a step of the enumeration's effect.
 */
const listedCandidates = (
  out: Array<Candidate>,
  root: string,
  dir: string,
  date: string,
  sessions: ReadonlyArray<{ readonly name: string }>
): void => {
  for (let i = 0; i < sessions.length; i++) {
    const folder = sessions[i].name
    out.push({ root, path: logPathOf(dir, folder), date, folder, stat: undefined })
  }
}

/**
 * Enumerate candidate logs under one real root (see the module doc for the
 * layout). Folder listing errors below the root are tallied, not raised.
 * Only the logs `known` holds (by path) are probed here; the others are
 * candidates as listed (`stat` undefined), told apart when read.
 */
const enumerate = (
  deps: NativeDeps,
  root: string,
  tally: EnumerationTally,
  notRegular: Array<NotRegularLog>,
  known: ReadonlyMap<string, KnownSource>
): Effect.Effect<Enumerated> =>
  Effect.gen(function*() {
    const out: Array<Candidate> = []
    const folderLinks: Array<string> = []
    const list = (dir: string) =>
      deps.access.listDirectory(dir).pipe(
        Effect.catchAll(() => Effect.sync(() => {
          tally.unreadableFolders++
          return []
        }))
      )
    const dirs = (parent: string, entries: ReadonlyArray<{ name: string; kind: string }>, re: RegExp) =>
      entries.filter((e) => {
        if (e.kind === "symlink") {
          tally.symlinksSkipped++
          // A link named as the layout's folder at this level (a year, month, day or session folder) may hold logs
          // that were not read: resolved below. Any other link is junk, as a file of another name.
          if (re.test(e.name)) folderLinks.push(nodePath.join(parent, e.name))
          return false
        }
        if (e.kind !== "directory") {
          tally.junkSkipped++
          return false
        }
        if (!re.test(e.name)) {
          tally.foldersSkipped++
          return false
        }
        return true
      })
    for (const y of dirs(root, yield* list(root), YEAR_DIR)) {
      const yp = nodePath.join(root, y.name)
      for (const m of dirs(yp, yield* list(yp), MONTH_DIR)) {
        const mp = nodePath.join(yp, m.name)
        for (const d of dirs(mp, yield* list(mp), DAY_DIR)) {
          const dp = nodePath.join(mp, d.name)
          // The date of every log of this day folder (one string for all of them).
          const date = `${y.name}-${m.name}-${d.name}`
          const sessions = dirs(dp, yield* list(dp), SESSION_ID_DIR)
          const dir = under(dp)
          // No log known to the index (a discovery without one, a first import): every log listed, none probed.
          if (known.size === 0) {
            listedCandidates(out, root, dir, date, sessions)
            continue
          }
          const paths = sessions.map((s) => logPathOf(dir, s.name))
          // The day's logs the index knows probed in one pass (one effect for all of them); the others are not.
          const probedAt: Array<number> = []
          for (let i = 0; i < paths.length; i++) if (known.has(paths[i])) probedAt.push(i)
          const probes = probedAt.length === 0 ? [] : yield* deps.access.probeAll(probedAt.map((i) => paths[i]))
          for (let i = 0, p = 0; i < sessions.length; i++) {
            const s = sessions[i], path = paths[i]
            if (probedAt[p] !== i) {
              out.push({ root, path, date, folder: s.name, stat: undefined })
              continue
            }
            const probed = probes[p++]
            if (probed._tag === "Left") {
              tally.unreadableFolders++
              continue
            }
            if (Option.isNone(probed.right)) continue
            const log = probed.right.value
            if (log.kind === "symlink") {
              tally.symlinksSkipped++
              notRegular.push({ path, kind: "symlink" })
              continue
            }
            if (log.kind !== "file") {
              // A fifo, socket, device or folder under the log's name: never opened (a fifo would block), reported.
              tally.junkSkipped++
              notRegular.push({ path, kind: log.kind === "directory" ? "directory" : "other" })
              continue
            }
            out.push({ root, path, date, folder: s.name, stat: log.stat })
            tally.candidates++
          }
        }
      }
    }
    // A layout-named link to a folder outside the root holds logs that were not read: reported (SYMLINK_SKIPPED).
    // One into the root is walked there under its real path; one that resolves to no folder (a loop, a dangling
    // link, a file) holds nothing to read: tallied only.
    const outside: Array<NotRegularLog> = []
    for (const link of folderLinks) {
      const target = yield* Effect.option(deps.access.authorizeRoot(link))
      if (Option.isSome(target) && !isInside(target.value, root)) outside.push({ path: link, kind: "symlink", folder: true })
    }
    return { candidates: out, folderLinks: outside }
  })

/**
 * The typed summary of a native log discovery selected (contract 1.1.0): its
 * session and the workspace path that matched it; discovery reads no more of
 * it (seed 001's budget), so the rest is unknown until it is imported.
 */
const nativeOverview = (sessionId: string, workspace: string | null): SourceSummary => ({
  // `emptySourceSummary`'s fields, in its order, with the workspace; the unknown counts and the empty lists are
  // shared by every overview (read-only: nothing writes to an overview), not made again for each of 10,000 logs.
  sessionId,
  title: null,
  workspace,
  firstActivityAt: null,
  lastActivityAt: null,
  model: null,
  counts: UNKNOWN_COUNTS,
  parseWarnings: NONE,
  diagnostics: NONE
})

/** The counts of a native overview: unknown until the log is imported (shared, see {@link nativeOverview}). */
const UNKNOWN_COUNTS: SourceSummary["counts"] = Object.freeze({ prompts: null, toolCalls: null, runs: null, lines: null })

/** An empty list (shared, see {@link nativeOverview}). */
const NONE: ReadonlyArray<never> = Object.freeze([])

const isInside = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(nodePath.sep) ? parent : parent + nodePath.sep)

interface Inspected {
  readonly receipt: MuseSourceInspection
  readonly source: DiscoveredSource | null
  /** A `mismatch`: the first workspace its evidence named (kept out of the content-free receipt). */
  readonly otherWorkspace?: string | undefined
  /**
   * Why a log could not be read (the access error: permission denied, an I/O error), with its remedy; `replaced`:
   * a log the index knows, probed by enumeration, found replaced by another file at its head read (see
   * {@link unreadable}).
   */
  readonly unreadable?: { readonly message: string; readonly remediation: string | undefined; readonly replaced?: boolean } | undefined
}

/** The first evidence path each scan saw that matched no workspace (a `mismatch` names the workspace it found). */
const seenBy = new WeakMap<EvidenceScanner, string>()

/** Note `path` as seen by `scanner` without a match (the first one only). */
const sawOther = (scanner: EvidenceScanner, path: string): void => {
  if (!seenBy.has(scanner)) seenBy.set(scanner, path)
}

/** How an inspection ended: the outcome, its reason, the counts and whether it reached the end of the source. */
interface Settled {
  readonly outcome: InspectionOutcome
  readonly reason: InspectionReason
  readonly counts: ScanCounts
  readonly reachedEof: boolean
  /** The matching evidence (outcome `matched` only). */
  readonly hit: EvidenceHit | null
}

const EMPTY = new Uint8Array(0)

/** The end of a scan that read the whole source (as far as the budget lets it) without a match. */
const settledAtEnd = (scanner: EvidenceScanner): Settled => ({
  outcome: scanner.evidenceSeen ? "mismatch" : "inconclusive",
  reason: scanner.evidenceSeen ? "WORKSPACE_MISMATCH" : "NO_WORKSPACE_EVIDENCE",
  counts: scanner.counts(),
  reachedEof: true,
  hit: null
})

/** Settled by matching evidence: `sizeAtOpen` tells whether the match reached the end of the source. */
const matchedAt = (hit: EvidenceHit, sizeAtOpen: number): Settled => ({
  outcome: "matched",
  reason: "WORKSPACE_MATCHED",
  counts: hit.counts,
  reachedEof: hit.counts.bytes >= sizeAtOpen,
  hit
})

/** Settled by a stop of the scanner on `line` (a budget, malformed or truncated input). */
const stoppedAt = (reason: InspectionReason, scanner: EvidenceScanner, line: Line, cutByBudget: boolean): Settled => ({
  outcome: "inconclusive",
  reason,
  counts: scanner.counts(),
  reachedEof: !line.terminated && !cutByBudget,
  hit: null
})

/**
 * Scan `lines` in order until one settles the inspection: matching evidence,
 * or a stop (a budget, malformed or truncated input). Null when they leave it
 * open. `sizeNow` tells whether the file goes on past a line that the
 * source-byte budget cut; `sizeAtOpen` whether a match reached the end.
 */
const settleLines = (
  lines: Iterable<Line>,
  cap: number,
  scanner: EvidenceScanner,
  matches: (path: string) => Effect.Effect<boolean>,
  sizeAtOpen: number,
  sizeNow: Effect.Effect<number, SourceAccessError>
): Effect.Effect<Settled | null, SourceAccessError> =>
  Effect.gen(function*() {
    for (const line of lines) {
      const cutByBudget = !line.terminated && line.end >= cap && (yield* sizeNow) > line.end
      const r = scanner.scan(line, cutByBudget)
      for (const hit of r.evidence) {
        if (yield* matches(hit.path)) return matchedAt(hit, sizeAtOpen)
        sawOther(scanner, hit.path)
      }
      if (r.stop !== null) return stoppedAt(r.stop, scanner, line, cutByBudget)
    }
    return null
  })

/**
 * The head's part of {@link settleLines}, in plain code: the same decisions
 * over the lines of a head read in one step, with evidence paths whose match
 * is already known (`known`: undefined when not resolved yet). Answers the
 * settlement, null when the head leaves the inspection open, or the first
 * evidence path still to resolve (the caller resolves it and scans the head
 * again with a fresh scanner and splitter). The lines are views of `bytes`:
 * nothing of them outlives the call (the splitter copies a torn remainder).
 */
const settleHead = (
  bytes: Uint8Array,
  headEnds: boolean,
  cap: number,
  sizeAtOpen: number,
  scanner: EvidenceScanner,
  splitter: LineSplitter,
  known: (path: string) => boolean | undefined
): Settled | string | null => {
  // Split as scanned: a log settled on line 2 never has the rest of its head split.
  if (bytes.length > 0) {
    splitter.begin(bytes)
    for (let line = splitter.next(); line !== undefined; line = splitter.next()) {
      const s = settleHeadLine(line, cap, sizeAtOpen, scanner, known)
      if (s !== null) return s
    }
  }
  if (!headEnds) return null
  for (const line of splitter.finish()) {
    const s = settleHeadLine(line, cap, sizeAtOpen, scanner, known)
    if (s !== null) return s
  }
  return settledAtEnd(scanner)
}

/** One line of {@link settleHead}: the settlement it makes, the evidence path to resolve first, or null. */
const settleHeadLine = (
  line: Line,
  cap: number,
  sizeAtOpen: number,
  scanner: EvidenceScanner,
  known: (path: string) => boolean | undefined
): Settled | string | null => {
  // The file is closed again: whether it goes on past a cut line is told by its size when opened.
  const cutByBudget = !line.terminated && line.end >= cap && sizeAtOpen > line.end
  const r = scanner.scan(line, cutByBudget)
  for (const hit of r.evidence) {
    const m = known(hit.path)
    if (m === undefined) return hit.path
    if (m) return matchedAt(hit, sizeAtOpen)
    sawOther(scanner, hit.path)
  }
  return r.stop !== null ? stoppedAt(r.stop, scanner, line, cutByBudget) : null
}

/**
 * Bytes of a log's first read (its head): the evidence sits near the start of
 * a log (seed 001: line 2, after the permission frame of line 1; about 2 KB
 * into the bench's logs). A log its head does not settle is read on from there
 * ({@link continueScan}), so this only decides how much of a settled log is
 * read: 8 KiB, not the whole of a small log (64 KiB before: discovering 10,000
 * logs of ~20 KB copied ~200 MB out of the page cache for ~20 MB of heads).
 */
const HEAD_BYTES = 8 * 1024

/** Bytes of each later read of a log its head did not settle. */
const STEP_BYTES = 256 * 1024

/** An inspection its head left open: the scan so far, to go on from where the head ended. */
interface OpenScan {
  /** The log (a listed one's: authorized by its head read, with the stat of its descriptor). */
  readonly file: AuthorizedFile
  readonly scanner: EvidenceScanner
  readonly splitter: LineSplitter
  readonly sizeAtOpen: number
}

/**
 * Go on reading a log its head left open, through an open handle, in
 * {@link STEP_BYTES} steps up to the source-byte budget, until a decision.
 */
const continueScan = (
  deps: DiscoveryDeps,
  file: AuthorizedFile,
  scan: OpenScan,
  matches: (path: string) => Effect.Effect<boolean>
): Effect.Effect<Settled, SourceAccessError> =>
  Effect.scoped(Effect.gen(function*() {
    const { scanner, sizeAtOpen, splitter } = scan
    const cap = deps.budget.maxSourceBytes
    const step = Math.min(STEP_BYTES, Math.max(4096, cap))
    const open = yield* deps.access.open(file)
    const sizeNow = Effect.map(open.stat, (st) => st.size)
    for (;;) {
      const offset = splitter.offset
      const raw = offset >= cap ? EMPTY : yield* open.read(offset, Math.min(step, cap - offset))
      const atEnd = raw.length < step
      const more = raw.length === 0 ? splitter.finish() : splitter.push(raw)
      if (atEnd && raw.length > 0) splitter.finish(more)
      const s = yield* settleLines(more, cap, scanner, matches, sizeAtOpen, sizeNow)
      if (s !== null) return s
      if (atEnd) return settledAtEnd(scanner)
    }
  }))

/** The receipt (and the source, when matched) of a settled inspection. */
const inspected = (c: Candidate, st: Settled, scanner: EvidenceScanner): Inspected => {
  const sourceId = makeSourceId("muse-code", NATIVE_CLASS, c.path)
  const sessionId = scanner.sessionId ?? c.folder
  return {
    receipt: {
      sourceId,
      locator: redactLocator(sourceId, c.path),
      outcome: st.outcome,
      reasonCode: st.reason,
      recordsInspected: st.counts.records,
      childrenInspected: st.counts.children,
      bytesInspected: st.counts.bytes,
      reachedEof: st.reachedEof
    },
    source: st.hit === null ? null : {
      provider: "muse-code",
      sourceId,
      locator: { locatorClass: NATIVE_CLASS, path: c.path },
      sessionId,
      overview: nativeOverview(sessionId, st.hit.path),
      summary: {
        sessionId,
        date: c.date,
        evidence: st.hit.field,
        evidencePath: st.hit.path,
        evidenceInRetainedChild: st.hit.inChild
      }
    },
    otherWorkspace: st.outcome === "mismatch" ? seenBy.get(scanner) : undefined
  }
}

/**
 * The receipt of a candidate that could not be read, with the error that said
 * why (`reason`: `UNREADABLE`, or `NOT_UTF8` for a log in UTF-16 or UTF-32).
 * A log the index knows (probed: `c.stat`) that its head read found replaced
 * by another file since that probe is marked `replaced`: its diagnostic then
 * carries the unreadable mark (errno `REPLACED`) and the source's path, so the
 * importer counts it `unreadable` (kept as it was) rather than in no bucket.
 */
const unreadable = (c: Candidate, error: unknown, reason: "UNREADABLE" | "NOT_UTF8" = "UNREADABLE"): Inspected => {
  const sourceId = makeSourceId("muse-code", NATIVE_CLASS, c.path)
  return {
    receipt: {
      sourceId,
      locator: redactLocator(sourceId, c.path),
      outcome: "inconclusive",
      reasonCode: reason,
      recordsInspected: 0,
      childrenInspected: 0,
      bytesInspected: 0,
      reachedEof: false
    },
    source: null,
    unreadable: isIngestError(error)
      ? { message: error.message, remediation: error.remediation, ...(c.stat !== undefined && isReplaced(error) ? { replaced: true } : {}) }
      : undefined
  }
}

/**
 * Heads read in one step of {@link inspectAll} (`SourceAccessShape.readHeads`,
 * one effect): ~5 ms of work, so that the CLI's fiber still lets the event
 * loop (a Ctrl-C) have its turn every few tens of ms.
 */
const HEADS_PER_STEP = 128

/** Logs read on past their heads at once: their reads overlap; the evidence scan stays on one thread. */
const INSPECTION_CONCURRENCY = 8

/**
 * A listed log (no `stat` from enumeration) that its read found to be no
 * candidate: nothing there (`none`), a place that could not be looked at
 * (`unlistable`: tallied as an unreadable folder, as a failed probe was), or
 * a symlink, folder, fifo, socket or device (reported, never read).
 */
interface NotACandidate {
  readonly notACandidate: "none" | "unlistable" | NotRegularLog
}

/**
 * Inspect the candidates at `indices` for workspace evidence under the
 * budget; never fails (an unreadable source is an `inconclusive` /
 * `UNREADABLE` receipt). Answers the inspections in the order of `indices`;
 * a listed candidate (no `stat`) that is no regular file is a
 * {@link NotACandidate}.
 *
 * Heads first, one after another in this fiber: {@link HEADS_PER_STEP} at a
 * time are read by `readHeads` (each: open, fstat, read, close; a log the
 * index knows, probed by enumeration) or `readListedHeads` (the same, a log
 * enumeration only listed: no `lstat` before its open) into one scratch
 * buffer, each scanned in plain code ({@link settleHead}) before the next is
 * read, so a log settled by its head (most are: the evidence is near the
 * start) costs four system calls and no buffer, scope, stream, fiber or
 * effect of its own (the reads are synchronous, so fibers overlapped nothing
 * there: discovering 10,000 small logs spent most of its time in a fiber, a
 * buffer and a dozen effects per log; then ~115 ms of ~700 in an effect per
 * log's head). A head that names an evidence path not resolved yet stops the
 * step: the path is resolved (an effect), the head scanned again, and the
 * reads go on after it. Then the few logs their heads left open are read on,
 * {@link INSPECTION_CONCURRENCY} at a time ({@link continueScan}).
 */
const inspectAll = (
  deps: DiscoveryDeps,
  candidates: ReadonlyArray<Candidate>,
  indices: ReadonlyArray<number>,
  matches: (path: string) => Effect.Effect<boolean>,
  known: (path: string) => boolean | undefined
): Effect.Effect<Array<Inspected | NotACandidate>> =>
  Effect.gen(function*() {
    const cap = deps.budget.maxSourceBytes
    const out: Array<Inspected | NotACandidate> = new Array(indices.length)
    const open: Array<{ readonly k: number; readonly scan: OpenScan }> = []
    // Owned by this loop alone: each head is scanned before the next one is read into it.
    const scratch = Buffer.allocUnsafe(HEAD_BYTES)
    // Sized to the log when it is small: one short read, which ends the scan.
    const firstOf = (size: number) => readSize(0, 0, HEAD_BYTES, size)
    // Reads end at the source-byte budget: past it the source looks ended.
    const lengthOf = (size: number) => Math.min(firstOf(size), cap)
    /** Scan the head of candidate `k` (a view of `scratch`): settled, left open, or the evidence path to resolve first. */
    /** `file`: a listed log's, authorized by its read (undefined for a probed one: made of its candidate when needed). */
    const scanHead = (k: number, file: AuthorizedFile | undefined, head: Head): string | undefined => {
      const c = candidates[indices[k]]
      // A log in UTF-16 (re-saved by PowerShell) is not read as lines of NUL bytes: said so, with the conversion.
      const notUtf8 = head.bytes.length > 0 ? notUtf8Source(c.path, head.bytes) : undefined
      if (notUtf8 !== undefined) {
        out[k] = unreadable(c, notUtf8, "NOT_UTF8")
        return undefined
      }
      const scanner = new EvidenceScanner(deps.budget)
      const splitter = new LineSplitter(deps.budget.maxRecordBytes)
      // The size the read was sized by: enumeration's stat of a probed log, the descriptor's of a listed one.
      const asked = firstOf(c.stat?.size ?? head.statAtOpen.size)
      const s = settleHead(head.bytes, head.bytes.length < asked, cap, head.statAtOpen.size, scanner, splitter, known)
      if (typeof s === "string") return s
      if (s === null) {
        const f = file ?? { path: c.path, root: c.root, stat: c.stat! }
        open.push({ k, scan: { file: f, scanner, splitter, sizeAtOpen: head.statAtOpen.size } })
      }
      else out[k] = inspected(c, s, scanner)
      return undefined
    }
    type Waiting = { readonly k: number; readonly file: AuthorizedFile | undefined; readonly head: Head; path: string }
    let waiting: Waiting | undefined
    /** Scan the head of candidate `k`; false when it stopped on an evidence path to resolve first (see `resolveWaiting`). */
    const onHead = (k: number, file: AuthorizedFile | undefined, head: Head): boolean => {
      const path = scanHead(k, file, head)
      if (path === undefined) return true
      // A path not resolved yet (the first log naming it): stop here, with the head still in `scratch`.
      waiting = { k, file, head, path }
      return false
    }
    /** Resolve the evidence path a head stopped on, once, then scan that head again (nothing was read into `scratch` since). */
    const resolveWaiting = Effect.gen(function*() {
      while (waiting !== undefined) {
        const w: Waiting = waiting
        yield* matches(w.path)
        const path = scanHead(w.k, w.file, w.head)
        if (path === undefined) waiting = undefined
        else w.path = path
      }
    })
    // Probed logs (the index knows them) and listed ones, each in their order.
    const probed: Array<number> = []
    const listed: Array<number> = []
    for (let k = 0; k < indices.length; k++) (candidates[indices[k]].stat !== undefined ? probed : listed).push(k)
    const at = (j: number) => {
      const c = candidates[indices[probed[j]]]
      return { file: { path: c.path, root: c.root, stat: c.stat! }, length: lengthOf(c.stat!.size) }
    }
    const onProbedHead = (j: number, head: Either.Either<Head, SourceAccessError>): boolean => {
      const k = probed[j]
      if (head._tag === "Right") return onHead(k, undefined, head.right)
      out[k] = unreadable(candidates[indices[k]], head.left)
      return true
    }
    for (let j = 0; j < probed.length;) {
      j = yield* deps.access.readHeads(j, Math.min(probed.length, j + HEADS_PER_STEP), at, scratch, onProbedHead)
      yield* resolveWaiting
    }
    const listedAt = (j: number): ListedPath => {
      const c = candidates[indices[listed[j]]]
      return { path: c.path, root: c.root, length: lengthOf }
    }
    const onListedHead = (j: number, found: Either.Either<ListedHead, SourceAccessError>): boolean => {
      const k = listed[j]
      if (found._tag === "Left") {
        out[k] = unreadable(candidates[indices[k]], found.left)
        return true
      }
      const r = found.right
      switch (r._tag) {
        case "Head":
          return onHead(k, r.file, r.head)
        case "None":
          out[k] = { notACandidate: "none" }
          return true
        case "Unlistable":
          out[k] = { notACandidate: "unlistable" }
          return true
        case "NotFile":
          out[k] = { notACandidate: { path: candidates[indices[k]].path, kind: r.kind === "symlink" ? "symlink" : r.kind === "directory" ? "directory" : "other" } }
          return true
      }
    }
    // Many listed logs: their heads read ahead on another thread (`listedHeadsAhead`), the same heads in the same order.
    yield* Effect.scoped(Effect.gen(function*() {
      const ahead = deps.access.listedHeadsAhead === undefined || listed.length === 0
        ? undefined
        : yield* deps.access.listedHeadsAhead(listed.length, listedAt, HEAD_BYTES)
      for (let j = 0; j < listed.length;) {
        j = yield* deps.access.readListedHeads(j, Math.min(listed.length, j + HEADS_PER_STEP), listedAt, scratch, onListedHead, ahead)
        yield* resolveWaiting
      }
    }))
    yield* Effect.forEach(open, ({ k, scan }) => {
      const c = candidates[indices[k]]
      return continueScan(deps, scan.file, scan, matches).pipe(
        Effect.match({
          onFailure: (e) => unreadable(c, e),
          onSuccess: (st) => inspected(c, st, scan.scanner)
        }),
        Effect.map((r) => {
          out[k] = r
        })
      )
    }, { concurrency: INSPECTION_CONCURRENCY, discard: true })
    return out
  })

/**
 * A candidate selected before, unchanged since (same fingerprint), whose
 * recorded evidence still names a workspace: selected again without reading
 * it. Its receipt says so (`unchangedSinceLastInspection`, nothing inspected;
 * see {@link unchangedReceipt}). Its source id is made when it is first read
 * (an import of unchanged logs never reads it).
 */
const unchangedMatch = (
  c: Candidate,
  known: KnownSource | undefined,
  matched: (path: string) => boolean
): DiscoveredSource | null => {
  const evidencePath = known?.summary.evidencePath
  const stat = c.stat
  if (known === undefined || stat === undefined || typeof evidencePath !== "string" || known.fingerprint !== fingerprintOfStat(stat)) {
    return null
  }
  if (!matched(evidencePath)) return null
  const sessionId = typeof known.summary.sessionId === "string" ? known.summary.sessionId : c.folder
  return new KeptNativeSource(c.path, sessionId, nativeOverview(sessionId, evidencePath), known.summary, stat)
}

/**
 * A log selected again by {@link unchangedMatch}. A class, not a literal
 * with a getter (one per unchanged log of every import): its source id is
 * made when first read (an import of unchanged logs never reads it).
 */
class KeptNativeSource implements DiscoveredSource {
  readonly provider = "muse-code" as const
  readonly locator: Locator
  /** Set by discovery once it has looked for the log's nested logs (see `discoverNative`). */
  parts: ReadonlyArray<string> | undefined = undefined
  #sourceId: string | undefined
  constructor(
    path: string,
    readonly sessionId: string,
    readonly overview: SourceSummary,
    readonly summary: Record<string, unknown>,
    readonly stat: FileStat
  ) {
    this.locator = { locatorClass: NATIVE_CLASS, path }
  }
  get sourceId(): string {
    return this.#sourceId ??= makeSourceId("muse-code", NATIVE_CLASS, this.locator.path)
  }
  /** As a plain source serializes (the source id included). */
  toJSON(): DiscoveredSource {
    const { provider, sourceId, locator, sessionId, overview, summary, stat, parts } = this
    return { provider, sourceId, locator, sessionId, overview, summary, stat, parts }
  }
}

/**
 * {@link nestedLogsFolderOf} of a candidate's path, without normalizing it
 * again: enumeration builds it as `<day folder>/<session>/session.jsonl`
 * from a normalized real root and listed names, so its folder's nested logs'
 * folder is that path with `subagent` in place of `session.jsonl` (one
 * string per log selected again, where `join` normalized each).
 */
const nestedFolderOfCandidate = (path: string): string =>
  path.endsWith(nodePath.sep + SESSION_LOG_NAME) ? path.slice(0, path.length - SESSION_LOG_NAME.length) + "subagent" : nestedLogsFolderOf(path)

/** No nested logs (shared). */
const NO_NESTED_LOGS: ReadonlyArray<string> = Object.freeze([])

/** The receipt of a log selected again by {@link unchangedMatch}. */
const unchangedReceipt = (path: string): MuseSourceInspection => {
  const sourceId = makeSourceId("muse-code", NATIVE_CLASS, path)
  return {
    sourceId,
    locator: redactLocator(sourceId, path),
    outcome: "matched",
    reasonCode: "WORKSPACE_MATCHED",
    recordsInspected: 0,
    childrenInspected: 0,
    bytesInspected: 0,
    reachedEof: false,
    unchangedSinceLastInspection: true
  }
}

/** How many of the other workspaces seen a `MUSE_OTHER_WORKSPACE` diagnostic names. */
const MAX_OTHER_WORKSPACES = 3

/** What to do about the inconclusive logs, by the reasons present (each reason its own remedy), and unlistable folders. */
const uncheckedRemedy = (reasons: ReadonlyArray<InspectionReason>, unreadableFolders: boolean): string => {
  const has = (p: (r: InspectionReason) => boolean) => reasons.some(p)
  const parts: Array<string> = []
  if (has((r) => r === "NO_WORKSPACE_EVIDENCE")) {
    parts.push(
      "A log carries no workspace evidence (workspace_root / cwd), e.g. an empty or emptied log or one just created: it is not guessed from its path; let Muse write on, or export the session with `muse export` and import the export."
    )
  }
  if (has((r) => r.startsWith("BUDGET_"))) {
    parts.push("A log ran past the discovery budget before its workspace evidence: raise the discovery budget (DiscoveryBudget layer).")
  }
  if (has((r) => r === "MALFORMED" || r === "TRUNCATED")) {
    parts.push("A log is malformed or ends in a torn line before its workspace evidence: inspect it (inspect muse-code FILE --locator-class muse-native-session-log --muse-root DIR), or export the session with `muse export`.")
  }
  if (has((r) => r === "NOT_UTF8")) {
    parts.push("A log is encoded as UTF-16 or UTF-32, not UTF-8: convert it to UTF-8 (its diagnostic names the iconv command) and import again.")
  }
  if (has((r) => r === "UNREADABLE") || unreadableFolders) {
    parts.push("A log or folder could not be read: check its permissions (the user running session-ingest must be able to read it).")
  }
  return `Some native logs could not be checked against the workspace (see diagnostics). ${parts.join(" ")}`
}

/** What to do about skipped logs and links, by what was skipped. */
const skippedRemedy = (skipped: ReadonlyArray<NotRegularLog>): string => {
  const parts: Array<string> = []
  if (skipped.some((n) => n.kind === "symlink" && n.folder === true)) {
    parts.push("A folder of the session layout is a symlink (see diagnostics); links are not followed: pass the real folder as --muse-root, or replace the link with the folder.")
  }
  if (skipped.some((n) => n.kind === "symlink" && n.folder !== true)) {
    parts.push("A session.jsonl is a symlink (see diagnostics); links are not followed: put the real file in its place.")
  }
  if (skipped.some((n) => n.kind !== "symlink")) {
    parts.push("A session.jsonl is a folder, fifo, socket or device (see diagnostics); it is not read: put the real file back.")
  }
  return `${parts.join(" ")} Sessions already imported from them are kept.`
}

/**
 * The error of a `--muse-root` that is a file (a `session.jsonl` or an export
 * named as the root, most often) or a fifo: said so, with the folder to pass;
 * any other error as it is.
 */
const museRootNotAFolder = (e: SourceAccessError, root: string): SourceAccessError => {
  const d = notAFolderOf(e)
  return d === undefined ? e : new SourceNotRegularFile({
    message: `The Muse Code sessions root ${nodePath.resolve(root)} (--muse-root) ${isNotAFolder(d)}.`,
    remediation:
      "Pass the sessions folder itself as --muse-root (e.g. ~/.local/share/muse/sessions, holding YYYY/MM/DD/<session-id>/session.jsonl), not a session log in it; a `muse export` file is imported as such, under a --workspace.",
    details: { ...d, root: nodePath.resolve(root) }
  })
}

/**
 * Native discovery over every authorized `--muse-root`, selecting logs whose
 * evidence names one of the workspace roots. Fails only when a muse root
 * itself cannot be authorized (`SourceNotFound`, `SourceNotRegularFile`, …);
 * everything below a root becomes receipts, tallies and diagnostics.
 */
export const discoverNative = (
  deps: DiscoveryDeps,
  known: ReadonlyMap<string, KnownSource> = new Map()
): Effect.Effect<DiscoveryReport, IngestError> =>
  Effect.gen(function*() {
    const roots: Array<string> = []
    for (const r of deps.policy.museRoots) {
      const real = yield* deps.access.authorizeRoot(r).pipe(Effect.mapError((e) => museRootNotAFolder(e, r)))
      if (!roots.includes(real)) roots.push(real)
    }
    const workspaces: Array<string> = []
    for (const w of deps.policy.workspaceRoots) {
      const real = yield* Effect.option(deps.access.authorizeRoot(w))
      workspaces.push(Option.getOrElse(real, () => nodePath.resolve(w)))
    }
    const realCache = new Map<string, boolean>()
    const matches = (path: string): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        if (!nodePath.isAbsolute(path)) return false
        const cached = realCache.get(path)
        if (cached !== undefined) return cached
        const real = Option.getOrElse(yield* Effect.option(deps.access.authorizeRoot(path)), () => nodePath.resolve(path))
        const ok = workspaces.some((w) => isInside(real, w))
        realCache.set(path, ok)
        return ok
      })
    /** Whether `path` matches, when that is known without I/O (undefined: not resolved yet). */
    const resolved = (path: string): boolean | undefined => nodePath.isAbsolute(path) ? realCache.get(path) : false
    const tally: EnumerationTally = {
      roots: roots.length,
      candidates: 0,
      symlinksSkipped: 0,
      junkSkipped: 0,
      foldersSkipped: 0,
      unreadableFolders: 0
    }
    /** Each candidate's receipt, or the path of a log selected again unchanged (its receipt made when read: see below). */
    const receiptsOf: Array<MuseSourceInspection | string> = []
    /** The logs not checked (`inconclusive`): their receipts, paths (diagnostics name them) and why they could not be read. */
    const notChecked: Array<{ readonly receipt: MuseSourceInspection; readonly path: string; readonly unreadable: Inspected["unreadable"] }> = []
    const sources: Array<DiscoveredSource> = []
    /** Named roots that hold no `YYYY/MM/DD/<session-id>/session.jsonl` at all. */
    const emptyRoots: Array<string> = []
    const notRegular: Array<NotRegularLog> = []
    /** The logs of another workspace (confirmed mismatches) and the workspaces they named, in the order seen. */
    let otherCount = 0
    const otherWorkspaces: Array<string> = []
    for (const root of roots) {
      const skippedBefore = notRegular.length + tally.unreadableFolders
      const { candidates, folderLinks } = yield* enumerate(deps, root, tally, notRegular, known)
      // Unchanged logs the index already knows are settled in one cheap pass; only the rest are read.
      // Their recorded evidence paths (few distinct ones: the workspaces') are resolved once each first. Only a
      // probed candidate (with its stat) is one the index knows: a listed one is not looked up.
      const evidencePaths = new Set<string>()
      for (const c of candidates) {
        const p = c.stat === undefined ? undefined : known.get(c.path)?.summary.evidencePath
        if (typeof p === "string") evidencePaths.add(p)
      }
      const matchedPaths = new Set<string>()
      for (const p of evidencePaths) if (yield* matches(p)) matchedPaths.add(p)
      const inspected: Array<Inspected | DiscoveredSource | NotACandidate> = new Array(candidates.length)
      const toRead: Array<number> = []
      const kept: Array<number> = []
      const isMatched = (p: string) => matchedPaths.has(p)
      for (let i = 0; i < candidates.length; i++) {
        const c = candidates[i]
        const hit = c.stat === undefined ? null : unchangedMatch(c, known.get(c.path), isMatched)
        if (hit !== null) {
          inspected[i] = hit
          kept.push(i)
        } else toRead.push(i)
      }
      // The nested logs of the logs selected again (`DiscoveredSource.parts`, as the adapter's `parts` lists them),
      // their folders probed in this one pass: the importer's unchanged check lists none again. A folder that cannot
      // be looked at or listed: no parts given (the importer asks the adapter, which says what it is).
      const folders = kept.map((i) => nestedFolderOfCandidate(candidates[i].path))
      const probed = yield* deps.access.probeAll(folders)
      for (let j = 0; j < kept.length; j++) {
        const found = probed[j]
        if (found._tag === "Left") continue
        const hit = inspected[kept[j]] as KeptNativeSource
        // Most logs have none: no folder there, nothing to list (no effect run).
        if (Option.isNone(found.right) || found.right.value.kind !== "directory") hit.parts = NO_NESTED_LOGS
        else {
          const parts = yield* Effect.either(nestedLogPathsProbed(deps.access, folders[j], found.right))
          if (parts._tag === "Right") hit.parts = parts.right
        }
      }
      const read = yield* inspectAll(deps, candidates, toRead, matches, resolved)
      toRead.forEach((i, k) => (inspected[i] = read[k]))
      /** This root's candidates that are logs (a listed one that is none is told by its read). */
      let logs = 0
      for (let i = 0; i < inspected.length; i++) {
        const r = inspected[i]
        if ("notACandidate" in r) {
          // Tallied and reported as enumeration does a probed log (see `enumerate`).
          const n = r.notACandidate
          if (n === "unlistable") tally.unreadableFolders++
          else if (n !== "none") {
            if (n.kind === "symlink") tally.symlinksSkipped++
            else tally.junkSkipped++
            notRegular.push(n)
          }
          continue
        }
        logs++
        if (candidates[i].stat === undefined) tally.candidates++
        if (!("receipt" in r)) {
          // Selected again unchanged.
          receiptsOf.push(candidates[i].path)
          sources.push(r)
          continue
        }
        receiptsOf.push(r.receipt)
        if (r.source !== null) sources.push(r.source)
        if (r.receipt.outcome === "inconclusive") notChecked.push({ receipt: r.receipt, path: candidates[i].path, unreadable: r.unreadable })
        if (r.receipt.outcome === "mismatch") {
          otherCount++
          if (r.otherWorkspace !== undefined && !otherWorkspaces.includes(r.otherWorkspace)) otherWorkspaces.push(r.otherWorkspace)
        }
      }
      notRegular.push(...folderLinks)
      // Empty only when nothing under it was skipped either (a skipped link or folder may hold its logs).
      if (logs === 0 && notRegular.length + tally.unreadableFolders === skippedBefore) emptyRoots.push(root)
    }
    const diagnostics: Array<Diagnostic> = notChecked.map(({ receipt: r, path, unreadable: why }) => ({
      code: "MUSE_SOURCE_INCONCLUSIVE",
      // An unreadable log says why (permission denied, an I/O error) and what to do.
      message: `${path}: not checked, ${REASON_TEXT[r.reasonCode]}${why !== undefined ? `: ${why.message}` : "."}`,
      ...(why?.remediation !== undefined ? { remediation: why.remediation } : {}),
      // A known log replaced between its probe and its head read: the importer's unreadable mark and source.
      details: {
        sourceId: r.sourceId,
        locator: r.locator,
        path,
        reasonCode: r.reasonCode,
        ...(why?.replaced === true ? { ...unreadableDetails(path, REPLACED), source: path } : {})
      }
    }))
    if (tally.unreadableFolders > 0) {
      diagnostics.push({
        code: "MUSE_FOLDER_UNREADABLE",
        message: `${tally.unreadableFolders} folder(s) under the sessions root could not be listed; their logs were not checked.`,
        details: { count: tally.unreadableFolders }
      })
    }
    // As Claude Code reports them: a symlink is not followed, any other non-file is never read.
    for (const n of notRegular) {
      diagnostics.push(
        n.kind === "symlink"
          ? {
            code: "SYMLINK_SKIPPED",
            message: `${n.path} is a symlink${n.folder === true ? " named as a session-layout folder" : ""}; it was not followed.`,
            details: { path: n.path }
          }
          : {
            code: "SOURCE_NOT_REGULAR_FILE",
            message: `${n.path} is not a regular file (${n.kind === "directory" ? "a folder" : "a fifo, socket or device"}); it was not read.`,
            details: { path: n.path }
          }
      )
    }
    for (const root of emptyRoots) {
      diagnostics.push({
        code: "MUSE_ROOT_EMPTY",
        message: `The sessions root ${root} holds no session log (YYYY/MM/DD/<session-id>/session.jsonl); nothing was found under it.`,
        details: { root }
      })
    }
    const notes: Array<string> = []
    if (otherCount > 0) {
      // Seed 001: a confirmed mismatch (whole log read, evidence names another workspace) is not inconclusive, so
      // coverage stays complete; said here so that "0 discovered" is not a mystery.
      const shown = otherWorkspaces.slice(0, MAX_OTHER_WORKSPACES)
      const message = `${otherCount} session log(s) name another workspace and were not selected (${
        shown.join(", ")
      }${otherWorkspaces.length > shown.length ? `, and ${otherWorkspaces.length - shown.length} more` : ""}); pass --workspace DIR for the workspace you want (now ${
        workspaces.join(", ")
      }).`
      notes.push(message)
      diagnostics.push({
        code: "MUSE_OTHER_WORKSPACE",
        message,
        details: { count: otherCount, workspaces: shown, distinctWorkspaces: otherWorkspaces.length, workspaceRoots: workspaces }
      })
    }
    let inspections: ReadonlyArray<MuseSourceInspection> | undefined
    const inconclusive = notChecked.length > 0
    const unchecked = inconclusive || tally.unreadableFolders > 0
    // Every muse root is named by the user: one without a single session folder is a typo or the wrong folder.
    const partial = unchecked || emptyRoots.length > 0 || notRegular.length > 0
    return {
      provider: "muse-code",
      status: unchecked ? "not-checked" : "checked",
      coverage: partial ? "partial" : "complete",
      sourceCount: sources.length,
      reasonCode: inconclusive
        ? "MUSE_INSPECTION_INCONCLUSIVE"
        : unchecked
        ? "MUSE_FOLDER_UNREADABLE"
        : emptyRoots.length > 0
        ? "MUSE_ROOT_EMPTY"
        : partial
        ? notRegular.some((n) => n.kind !== "symlink") ? "SOURCE_NOT_REGULAR_FILE" : "SYMLINK_SKIPPED"
        : null,
      // One remedy per cause present, so none is told to fix what did not happen.
      remediation: partial
        ? [
          ...(unchecked ? [uncheckedRemedy(notChecked.map((n) => n.receipt.reasonCode), tally.unreadableFolders > 0)] : []),
          ...(notRegular.length > 0 ? [skippedRemedy(notRegular)] : []),
          ...(emptyRoots.length > 0
            ? ["Check --muse-root (or museRoots in the config): it should be Muse Code's sessions folder (e.g. ~/.local/share/muse/sessions), which holds YYYY/MM/DD/<session-id>/session.jsonl."]
            : [])
        ].join(" ")
        : null,
      sources,
      diagnostics,
      receipts: {
        // Made when read (`discover` prints them; an import never reads them): a receipt per log, in the order found.
        get museSourceInspections(): ReadonlyArray<MuseSourceInspection> {
          return inspections ??= receiptsOf.map((r) => (typeof r === "string" ? unchangedReceipt(r) : r))
        },
        museEnumeration: tally
      },
      roots,
      omitted: (otherCount > 0 ? { "other-workspace": otherCount } : {}) as Record<string, number>,
      ...(notes.length > 0 ? { notes } : {})
    }
  })
