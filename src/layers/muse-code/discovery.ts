/**
 * Evidence-gated native discovery of Muse Code session logs (seed `001_…`,
 * "Native discovery"; issue 3).
 *
 * - Only under explicitly authorized `--muse-root`s; enumerates exactly
 *   `<muse-root>/YYYY/MM/DD/<session-id>/session.jsonl`, following no symlink
 *   (folder or file), skipping junk, wrong-depth files, folders that do not
 *   fit the layout, and never descending into a session folder (so nested
 *   `subagent/<child>/session.jsonl` logs are never candidates).
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
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { IngestError } from "../../domain/errors.js"
import type { Diagnostic, DiscoveredSource, DiscoveryReport } from "../../domain/model.js"
import { EvidenceScanner, type InspectionReason, type ScanCounts } from "../../domain/muse-code/evidence-scan.js"
import { DAY_DIR, MONTH_DIR, SESSION_ID_DIR, SESSION_LOG_NAME, YEAR_DIR } from "../../domain/muse-code/native.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import type { DiscoveryBudgetShape } from "../../services/DiscoveryBudget.js"
import type { AuthorizedFile, FileStat, OpenSource } from "../../services/SourceAccess.js"
import type { KnownSource } from "../../services/SessionSource.js"
import { fingerprintOfStat } from "../../domain/fingerprint.js"
import { readLines } from "../lines.js"
import { NATIVE_CLASS, type NativeDeps } from "./native-source.js"

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

/** A candidate log found by enumeration. */
interface Candidate {
  readonly root: string
  readonly path: string
  readonly date: string
  readonly folder: string
  /** The log's stat from enumeration (no symlink followed). */
  readonly stat: FileStat
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
  UNREADABLE: "the log could not be read"
}

/**
 * Enumerate candidate logs under one real root (see the module doc for the
 * layout). Folder listing errors below the root are tallied, not raised.
 */
const enumerate = (deps: NativeDeps, root: string, tally: EnumerationTally): Effect.Effect<Array<Candidate>> =>
  Effect.gen(function*() {
    const out: Array<Candidate> = []
    const list = (dir: string) =>
      deps.access.listDirectory(dir).pipe(
        Effect.catchAll(() => Effect.sync(() => {
          tally.unreadableFolders++
          return []
        }))
      )
    const dirs = (entries: ReadonlyArray<{ name: string; kind: string }>, re: RegExp) =>
      entries.filter((e) => {
        if (e.kind === "symlink") {
          tally.symlinksSkipped++
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
    for (const y of dirs(yield* list(root), YEAR_DIR)) {
      const yp = nodePath.join(root, y.name)
      for (const m of dirs(yield* list(yp), MONTH_DIR)) {
        const mp = nodePath.join(yp, m.name)
        for (const d of dirs(yield* list(mp), DAY_DIR)) {
          const dp = nodePath.join(mp, d.name)
          for (const s of dirs(yield* list(dp), SESSION_ID_DIR)) {
            const path = nodePath.join(dp, s.name, SESSION_LOG_NAME)
            const probed = yield* deps.access.probe(path).pipe(
              Effect.catchAll(() => Effect.sync(() => {
                tally.unreadableFolders++
                return Option.none()
              }))
            )
            if (Option.isNone(probed)) continue
            const log = probed.value
            if (log.kind === "symlink") {
              tally.symlinksSkipped++
              continue
            }
            if (log.kind !== "file") {
              tally.junkSkipped++
              continue
            }
            out.push({ root, path, date: `${y.name}-${m.name}-${d.name}`, folder: s.name, stat: log.stat })
          }
        }
      }
    }
    tally.candidates += out.length
    return out
  })

const isInside = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(nodePath.sep) ? parent : parent + nodePath.sep)

/** A source view that ends at `cap` bytes: reads past it see end of file. */
const capped = (open: OpenSource, cap: number): OpenSource => ({
  ...open,
  read: (offset, length) =>
    offset >= cap ? Effect.succeed(new Uint8Array(0)) : open.read(offset, Math.min(length, cap - offset))
})

interface Inspected {
  readonly receipt: MuseSourceInspection
  readonly source: DiscoveredSource | null
}

interface FoldState {
  done: boolean
  outcome: InspectionOutcome | null
  reason: InspectionReason | null
  counts: ScanCounts | null
  reachedEof: boolean
  field: string | null
  evidencePath: string | null
  inChild: boolean
}

/**
 * Inspect one candidate for workspace evidence under the budget. Never fails:
 * an unreadable source is an `inconclusive` / `UNREADABLE` receipt.
 */
const inspectCandidate = (
  deps: DiscoveryDeps,
  c: Candidate,
  matches: (path: string) => Effect.Effect<boolean>
): Effect.Effect<Inspected> => {
  const budget = deps.budget
  const unreadable = (sourceId: string, path: string): Inspected => ({
    receipt: {
      sourceId,
      locator: redactLocator(sourceId, path),
      outcome: "inconclusive",
      reasonCode: "UNREADABLE",
      recordsInspected: 0,
      childrenInspected: 0,
      bytesInspected: 0,
      reachedEof: false
    },
    source: null
  })
  const lexicalId = makeSourceId("muse-code", NATIVE_CLASS, c.path)
  return Effect.gen(function*() {
    // Reached by listing from a real root without following any symlink: the path is its real path.
    // `open` re-checks identity (device, inode, birth time) under O_NOFOLLOW.
    const file: AuthorizedFile = { path: c.path, root: c.root, stat: c.stat }
    const sourceId = makeSourceId("muse-code", NATIVE_CLASS, file.path)
    return yield* Effect.scoped(
      Effect.gen(function*() {
        const open = yield* deps.access.open(file)
        const sizeAtOpen = (yield* open.stat).size
        const scanner = new EvidenceScanner(budget)
        const init: FoldState = {
          done: false,
          outcome: null,
          reason: null,
          counts: null,
          reachedEof: false,
          field: null,
          evidencePath: null,
          inChild: false
        }
        const lines = readLines(capped(open, budget.maxSourceBytes), {
          maxLineBytes: budget.maxRecordBytes,
          // Sized to the log when it is small: one read (a short one, which ends the stream) and no 256 KiB buffer per log.
          stepBytes: Math.min(256 * 1024, Math.max(4096, budget.maxSourceBytes), Math.max(4096, c.stat.size + 1))
        })
        const st = yield* Stream.runFoldWhileEffect(lines, init, (s) => !s.done, (s, line) =>
          Effect.gen(function*() {
            const cutByBudget = !line.terminated && line.end >= budget.maxSourceBytes &&
              (yield* open.stat).size > line.end
            const r = scanner.scan({ ...line, cutByBudget })
            for (const hit of r.evidence) {
              if (yield* matches(hit.path)) {
                return {
                  done: true,
                  outcome: "matched" as const,
                  reason: "WORKSPACE_MATCHED" as const,
                  counts: hit.counts,
                  reachedEof: hit.counts.bytes >= sizeAtOpen,
                  field: hit.field,
                  evidencePath: hit.path,
                  inChild: hit.inChild
                }
              }
            }
            if (r.stop !== null) {
              return {
                ...s,
                done: true,
                outcome: "inconclusive" as const,
                reason: r.stop,
                counts: scanner.counts(),
                reachedEof: !line.terminated && !cutByBudget
              }
            }
            return s
          }))
        const final: FoldState = st.done ? st : {
          ...st,
          outcome: scanner.evidenceSeen ? "mismatch" : "inconclusive",
          reason: scanner.evidenceSeen ? "WORKSPACE_MISMATCH" : "NO_WORKSPACE_EVIDENCE",
          counts: scanner.counts(),
          reachedEof: true
        }
        const counts = final.counts!
        const receipt: MuseSourceInspection = {
          sourceId,
          locator: redactLocator(sourceId, file.path),
          outcome: final.outcome!,
          reasonCode: final.reason!,
          recordsInspected: counts.records,
          childrenInspected: counts.children,
          bytesInspected: counts.bytes,
          reachedEof: final.reachedEof
        }
        const source: DiscoveredSource | null = final.outcome === "matched"
          ? {
            provider: "muse-code",
            sourceId,
            locator: { locatorClass: NATIVE_CLASS, path: file.path },
            sessionId: scanner.sessionId ?? c.folder,
            summary: {
              sessionId: scanner.sessionId ?? c.folder,
              date: c.date,
              evidence: final.field,
              evidencePath: final.evidencePath,
              evidenceInRetainedChild: final.inChild
            }
          }
          : null
        return { receipt, source }
      })
    ).pipe(Effect.catchAll(() => Effect.succeed(unreadable(sourceId, file.path))))
  }).pipe(Effect.catchAll(() => Effect.succeed(unreadable(lexicalId, c.path))))
}

/** Candidates inspected at once: file reads overlap, the evidence scan stays on one thread. */
const INSPECTION_CONCURRENCY = 8

/**
 * A candidate selected before, unchanged since (same fingerprint), whose
 * recorded evidence still names a workspace: selected again without reading
 * it. Its receipt says so (`unchangedSinceLastInspection`, nothing inspected).
 */
const unchangedMatch = (
  c: Candidate,
  known: KnownSource | undefined,
  matches: (path: string) => Effect.Effect<boolean>
): Effect.Effect<Option.Option<Inspected>> =>
  Effect.gen(function*() {
    const evidencePath = known?.summary.evidencePath
    if (known === undefined || typeof evidencePath !== "string" || known.fingerprint !== fingerprintOfStat(c.stat)) {
      return Option.none()
    }
    if (!(yield* matches(evidencePath))) return Option.none()
    const sourceId = makeSourceId("muse-code", NATIVE_CLASS, c.path)
    return Option.some({
      receipt: {
        sourceId,
        locator: redactLocator(sourceId, c.path),
        outcome: "matched",
        reasonCode: "WORKSPACE_MATCHED",
        recordsInspected: 0,
        childrenInspected: 0,
        bytesInspected: 0,
        reachedEof: false,
        unchangedSinceLastInspection: true
      },
      source: {
        provider: "muse-code",
        sourceId,
        locator: { locatorClass: NATIVE_CLASS, path: c.path },
        sessionId: typeof known.summary.sessionId === "string" ? known.summary.sessionId : c.folder,
        summary: known.summary
      }
    })
  })

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
      const real = yield* deps.access.authorizeRoot(r)
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
    const tally: EnumerationTally = {
      roots: roots.length,
      candidates: 0,
      symlinksSkipped: 0,
      junkSkipped: 0,
      foldersSkipped: 0,
      unreadableFolders: 0
    }
    const receipts: Array<MuseSourceInspection> = []
    /** The path of each receipt's log: diagnostics name it so the operator can act; receipts stay content-free. */
    const paths: Array<string> = []
    const sources: Array<DiscoveredSource> = []
    for (const root of roots) {
      const candidates = yield* enumerate(deps, root, tally)
      // Unchanged logs the index already knows are settled in one cheap pass; only the rest are read.
      const inspected: Array<Inspected> = new Array(candidates.length)
      const toRead: Array<number> = []
      for (let i = 0; i < candidates.length; i++) {
        const hit = yield* unchangedMatch(candidates[i], known.get(candidates[i].path), matches)
        if (Option.isSome(hit)) inspected[i] = hit.value
        else toRead.push(i)
      }
      const read = yield* Effect.forEach(toRead, (i) => inspectCandidate(deps, candidates[i], matches), {
        concurrency: INSPECTION_CONCURRENCY
      })
      toRead.forEach((i, k) => (inspected[i] = read[k]))
      inspected.forEach((r, i) => {
        receipts.push(r.receipt)
        paths.push(candidates[i].path)
        if (r.source !== null) sources.push(r.source)
      })
    }
    const diagnostics: Array<Diagnostic> = receipts.flatMap((r, i) =>
      r.outcome === "inconclusive"
        ? [{
          code: "MUSE_SOURCE_INCONCLUSIVE",
          message: `${paths[i]}: not checked, ${REASON_TEXT[r.reasonCode]}.`,
          details: { sourceId: r.sourceId, locator: r.locator, path: paths[i], reasonCode: r.reasonCode }
        }]
        : []
    )
    if (tally.unreadableFolders > 0) {
      diagnostics.push({
        code: "MUSE_FOLDER_UNREADABLE",
        message: `${tally.unreadableFolders} folder(s) under the sessions root could not be listed; their logs were not checked.`,
        details: { count: tally.unreadableFolders }
      })
    }
    const inconclusive = receipts.some((r) => r.outcome === "inconclusive")
    const partial = inconclusive || tally.unreadableFolders > 0
    return {
      provider: "muse-code",
      status: partial ? "not-checked" : "checked",
      coverage: partial ? "partial" : "complete",
      sourceCount: sources.length,
      reasonCode: inconclusive ? "MUSE_INSPECTION_INCONCLUSIVE" : partial ? "MUSE_FOLDER_UNREADABLE" : null,
      remediation: partial
        ? "Some native logs could not be checked against the workspace (see diagnostics). Inspect them explicitly (inspect muse-code FILE --locator-class muse-native-session-log --muse-root DIR), raise the discovery budget (DiscoveryBudget layer), or export them with `muse export`."
        : null,
      sources,
      diagnostics,
      receipts: { museSourceInspections: receipts, museEnumeration: tally }
    }
  })
