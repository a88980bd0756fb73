/**
 * The AgentMux adapter (provider `agentmux`, locator class
 * `agentmux-agent-record`): every session an agent ran, read from the global
 * transcript store (`filestore.db`) and from the channels' own stores under
 * the AgentMux home, where "New conversation" archives (issue 18), each
 * scanned incrementally (seed `002_be0ab054974359d2.txt`, issue 5). A session
 * seen in several stores is one session with the runs of all; a run that is a
 * byte copy of another store's is read once. Policy: skip and count
 * unreadable lines.
 *
 * @module
 */
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { checkAgentId, TSIDX_PART_MISSING, UNREADABLE_TSIDX_LINE } from "../../domain/agentmux/record.js"
import { mapSession, type MappedSession, receiveTimeOf, resumeAfter, type SessionLine } from "../../domain/agentmux/transcript.js"
import { cursorSourceChanged, decodeCursor } from "../../domain/cursor.js"
import { type IngestError, InvalidArgument, SourceNotFound, SourceNotRegularFile, UnsupportedOperation } from "../../domain/errors.js"
import { isNotAFolder, notAFolderOf } from "../../domain/not-a-folder.js"
import {
  type Diagnostic,
  type DiscoveredSource,
  type DiscoveryReport,
  emptySourceSummary,
  type Inspection,
  type Locator,
  type ProviderDescriptor,
  type SourceSummary,
  type Transcript
} from "../../domain/model.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import { AccessPolicy, type AccessPolicyShape } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import { ScanState, type ScanStateShape } from "./ScanState.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { descriptorOf } from "../provider.js"
import { provider } from "./provider.js"
import type { SourceAccess } from "../../services/SourceAccess.js"
import { type StoreConnection, TranscriptStore, type TranscriptStoreShape } from "./TranscriptStore.js"
import * as ScanStateSqlite from "./scan-state-sqlite.js"
import { type AgentScan, dropCopies, type RecordSession, scanAgent, type ScannedZone, sessionsOf, spansZones } from "./scan.js"
import * as TranscriptStoreSqlite from "./transcript-store-sqlite.js"
import { forEachLine, makeStamps, type Stamps } from "./zone-reader.js"
import { USAGE_NOT_VALID } from "../../domain/usage.js"
import { isKeptWarningKind, KEPT_WARNING_KINDS, PARSE_WARNING } from "../../domain/warning-kinds.js"

/** The descriptor of `agentmux`, from its provider module (`./provider.ts`). */
export const descriptor: ProviderDescriptor = descriptorOf(provider)

/** AgentMux's home when `--agentmux-root` names none: `~/.agentmux`. */
export const defaultRoot = (): string => nodePath.join(os.homedir(), ".agentmux")

/** The global transcript store under an AgentMux home (AgentMux `resolve_shared_transcripts_dir`). */
export const globalStoreOf = (root: string): string => nodePath.join(root, "shared", "agents", "transcripts", "filestore.db")

/** AgentMux's store when neither the locator, `--store` nor `--agentmux-root` names one (seed 002). */
export const defaultStorePath = (): string => globalStoreOf(defaultRoot())

/**
 * The error of an `--agentmux-root` that is a file (its `filestore.db`, or a
 * file of another provider, named as the home) or a fifo, met on the way to
 * the store under it: said so, with the folder to pass (and `--store` for a
 * store file); any other error as it is.
 */
const agentmuxRootNotAFolder = <E>(e: E, policy: AccessPolicyShape): E | SourceNotRegularFile => {
  const d = notAFolderOf(e)
  if (d === undefined || policy.agentmuxRoot === undefined || d.notAFolder !== nodePath.resolve(policy.agentmuxRoot)) return e
  return new SourceNotRegularFile({
    message: `The AgentMux home ${d.notAFolder} (--agentmux-root) ${isNotAFolder(d)}.`,
    remediation:
      "Pass AgentMux's home folder itself as --agentmux-root (e.g. ~/.agentmux, holding shared/agents/transcripts/filestore.db and channels/), not a file in it; a transcript store file (filestore.db) is passed with --store FILE.",
    details: d
  })
}

/**
 * The AgentMux home whose channels' stores are read (issue 18):
 * `--agentmux-root`, else `~/.agentmux` unless `--store` names the one store
 * to read (then null: no channel store).
 */
export const rootOf = (policy: AccessPolicyShape): string | null =>
  policy.agentmuxRoot !== undefined ? nodePath.resolve(policy.agentmuxRoot) : policy.agentmuxStore !== undefined ? null : defaultRoot()

/** The global store a request reads: the locator's path, else `--store`, else the root's (`--agentmux-root`, default `~/.agentmux`). */
export const storePathOf = (policy: AccessPolicyShape, locatorPath?: string): string =>
  locatorPath !== undefined && locatorPath.length > 0
    ? locatorPath
    : policy.agentmuxStore ?? (policy.agentmuxRoot !== undefined ? globalStoreOf(nodePath.resolve(policy.agentmuxRoot)) : defaultStorePath())

interface Deps {
  readonly store: TranscriptStoreShape
  readonly state: ScanStateShape
  readonly policy: AccessPolicyShape
  readonly maxLineBytes: number
  /** The import limit on JSON nesting of one line. */
  readonly maxDepth: number
}

// a receive time that is no date (past 9999, negative) is no time, never misread in another unit
const iso = (ms: number | null) => (ms === null ? null : receiveTimeOf(ms))

/**
 * {@link iso} remembering its answers: the runs of a store's sessions share
 * few receive times (one a batch AgentMux appended), so a rescan that
 * derives again a session of many runs formats each time once (issue 13).
 */
const isoMemo = (): ((ms: number | null) => string | null) => {
  const known = new Map<number, string | null>()
  return (ms) => {
    if (ms === null) return null
    const hit = known.get(ms)
    if (hit !== undefined || known.has(ms)) return hit ?? null
    const text = iso(ms)
    known.set(ms, text)
    return text
  }
}

const sourceIdOf = (storePath: string, agentId: string, sessionId: string) =>
  makeSourceId("agentmux", "agentmux-agent-record", `${storePath}#${agentId}#${sessionId}`)

/**
 * The typed summary of a session (contract 1.1.0): its `cwd`, receive times, runs and lines. No title: AgentMux records
 * none and discovery reads no session's lines; its first prompt's is known once it is read (`stream`'s `onTitle`).
 */
const overviewOf = (s: RecordSession): SourceSummary => ({
  ...emptySourceSummary(s.sessionId),
  workspace: s.cwd,
  firstActivityAt: iso(s.firstMs),
  lastActivityAt: iso(s.lastMs),
  counts: { prompts: null, toolCalls: null, runs: s.runs.length, lines: s.lines }
})

/**
 * The discovery fields of a session (DiscoveredSource.summary). A run of a
 * channel's store names it (`store`); a run of the global store `record`
 * does not (as before issue 18).
 */
const summaryOf = (s: RecordSession, record: string) => ({
  sessionId: s.sessionId,
  cwd: s.cwd,
  firstReceivedAt: iso(s.firstMs),
  lastReceivedAt: iso(s.lastMs),
  lineCount: s.lines,
  runs: s.runs.map((r) => ({
    ...(r.store !== record ? { store: r.store } : {}),
    zone: r.zone.zoneId,
    start: r.start,
    end: r.end,
    lines: r.lines,
    firstReceivedAt: iso(r.firstMs),
    lastReceivedAt: iso(r.lastMs)
  }))
})

/** The discovery entry of a session of the agent `uid` in the global store `record`. */
const sourceOf = (record: string, uid: string, s: RecordSession): DiscoveredSource => ({
  provider: "agentmux",
  sourceId: sourceIdOf(record, uid, s.sessionId),
  locator: { locatorClass: "agentmux-agent-record", path: record, agentId: uid, sessionId: s.sessionId },
  sessionId: s.sessionId,
  overview: overviewOf(s),
  summary: summaryOf(s, record)
})

/**
 * What the scan state keeps of a session of the global store alone (see
 * `ReportSpec`): `[sourceId, cwd, firstReceivedAt, lastReceivedAt, lineCount]`
 * then six values a run: `zone, start, end, lines, firstReceivedAt,
 * lastReceivedAt` (the strings {@link sourceOf} writes: its id and times).
 * Change {@link SOURCE_ENTRY_VERSION} with it, or with {@link sourceOf}'s shape.
 */
const savedOf = (
  record: string,
  uid: string,
  s: RecordSession,
  isoOf: (ms: number | null) => string | null = iso
): ReadonlyArray<string | number | null> => {
  const out: Array<string | number | null> = [sourceIdOf(record, uid, s.sessionId), s.cwd, isoOf(s.firstMs), isoOf(s.lastMs), s.lines]
  for (const r of s.runs) out.push(r.zone.zoneId, r.start, r.end, r.lines, isoOf(r.firstMs), isoOf(r.lastMs))
  return out
}

const isCount = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0
const isText = (u: unknown): u is string | null => u === null || typeof u === "string"

/**
 * The entry {@link sourceOf} makes of a session of the global store alone,
 * from what {@link savedOf} kept of it: the same fields in the same order
 * (the CLI prints them as they are). Null when `saved` is not that.
 */
const entryOfSaved = (record: string, uid: string, sessionId: string, saved: unknown): DiscoveredSource | null => {
  if (!Array.isArray(saved) || saved.length < 5 || (saved.length - 5) % 6 !== 0) return null
  // Read by index, not destructured: a destructuring walks the array's iterator, five steps an entry (~350 a rescan).
  const fields = saved as Array<unknown>
  const sourceId = fields[0], cwd = fields[1], firstAt = fields[2], lastAt = fields[3], lines = fields[4]
  if (typeof sourceId !== "string" || !isText(cwd) || !isText(firstAt) || !isText(lastAt) || !isCount(lines)) return null
  const runs: Array<{ zone: string; start: number; end: number; lines: number; firstReceivedAt: string | null; lastReceivedAt: string | null }> = []
  for (let i = 5; i < saved.length; i += 6) {
    const zone: unknown = saved[i], start: unknown = saved[i + 1], end: unknown = saved[i + 2], n: unknown = saved[i + 3]
    const first: unknown = saved[i + 4], last: unknown = saved[i + 5]
    if (typeof zone !== "string" || !isCount(start) || !isCount(end) || !isCount(n) || !isText(first) || !isText(last)) return null
    runs.push({ zone, start, end, lines: n, firstReceivedAt: first, lastReceivedAt: last })
  }
  return {
    provider: "agentmux",
    sourceId,
    locator: { locatorClass: "agentmux-agent-record", path: record, agentId: uid, sessionId },
    sessionId,
    // `emptySourceSummary`'s fields in its order, spelled out (what `overviewOf` makes: the test of the kept
    // entries compares them byte for byte): a spread and four overrides cost a rescan's 348 entries ~0.5 ms cold.
    overview: {
      sessionId,
      title: null,
      workspace: cwd,
      firstActivityAt: firstAt,
      lastActivityAt: lastAt,
      model: null,
      counts: { prompts: null, toolCalls: null, runs: runs.length, lines },
      parseWarnings: [],
      diagnostics: []
    },
    summary: { sessionId, cwd, firstReceivedAt: firstAt, lastReceivedAt: lastAt, lineCount: lines, runs }
  }
}

/** The shape of {@link savedOf} (see there): kept entries of another version are derived again. */
const SOURCE_ENTRY_VERSION = "agentmux-source-2"

/** A channel's store as scanned, or why it could not be read. */
type ChannelScan =
  | { readonly _tag: "open"; readonly connection: StoreConnection; readonly scan: AgentScan }
  | { readonly _tag: "failed"; readonly store: string; readonly error: IngestError }

/** What a request read: the global store (absent or scanned), the channels' stores, the merged sessions. */
interface Scanned {
  readonly global:
    | { readonly _tag: "absent"; readonly path: string }
    | { readonly _tag: "open"; readonly connection: StoreConnection; readonly scan: AgentScan }
  readonly root: string | null
  readonly channels: ReadonlyArray<ChannelScan>
  /** The global store's real path (its path as named when absent): what locators and source ids name. */
  readonly record: string
  readonly zones: ReadonlyArray<ScannedZone>
  /** Sessions of every store, merged, latest activity first (grouped when first asked for). */
  readonly sessions: ReadonlyArray<RecordSession>
  /**
   * The discovery entries of `sessions` ({@link sourceOf}), in their order,
   * when only the global store was read (kept from the scan state for the
   * sessions the scan did not change); else undefined.
   */
  readonly sources: ReadonlyArray<DiscoveredSource> | undefined
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** Symlinks under the AgentMux home where a channel's store would be: not followed (`SYMLINK_SKIPPED`). */
  readonly symlinks: ReadonlyArray<string>
}

/** A channel store's diagnostics, named by its store. */
const ofStore = (store: string, ds: ReadonlyArray<Diagnostic>): ReadonlyArray<Diagnostic> =>
  ds.map((d) => ({ ...d, message: `${store}: ${d.message}`, details: { ...d.details, store } }))

/**
 * Open the global store and the channels' stores under the root, scan the
 * agent in each (incrementally, each store's zones under its own path in the
 * scan state), and merge their sessions (inside the caller's scope). The
 * global store failing fails the request; a channel's store failing is a
 * diagnostic (`CHANNEL_STORE_UNREADABLE`).
 */
const scanned = (
  deps: Deps,
  agentId: string,
  locatorPath?: string,
  /** Whether the discovery entries are wanted (`sources`): discovery's, not a session's read. */
  withSources = false
): Effect.Effect<Scanned, IngestError, Scope.Scope> =>
  Effect.gen(function*() {
    const opened = yield* deps.store.open(storePathOf(deps.policy, locatorPath)).pipe(
      Effect.mapError((e) => agentmuxRootNotAFolder(e, deps.policy))
    )
    const record = opened._tag === "open" ? opened.connection.path : opened.path
    const root = rootOf(deps.policy)
    const found = root === null ? { stores: [], symlinks: [] } : yield* deps.store.channelStores(root)
    const paths = found.stores.filter((p) => p !== record)
    // The global store alone: its discovery entries are kept with its scan state (see `ReportSpec`).
    const isoOf = isoMemo()
    const report = withSources && paths.length === 0
      ? {
        version: SOURCE_ENTRY_VERSION,
        save: (s: RecordSession) => savedOf(record, agentId, s, isoOf),
        entry: (sessionId: string, saved: unknown) => entryOfSaved(record, agentId, sessionId, saved)
      }
      : undefined
    const global: Scanned["global"] = opened._tag === "absent"
      ? opened
      : {
        _tag: "open",
        connection: opened.connection,
        scan: yield* scanAgent(opened.connection, deps.state, agentId, deps.maxLineBytes, report)
      }
    const channels: Array<ChannelScan> = []
    for (const path of paths) {
      const r = yield* deps.store.open(path).pipe(
        Effect.flatMap((o) =>
          o._tag === "absent"
            ? Effect.succeed(null)
            : Effect.map(scanAgent(o.connection, deps.state, agentId, deps.maxLineBytes), (scan): ChannelScan => ({
              _tag: "open",
              connection: o.connection,
              scan
            }))
        ),
        Effect.catchAll((error: IngestError) => Effect.succeed<ChannelScan>({ _tag: "failed", store: path, error }))
      )
      if (r !== null) channels.push(r)
    }
    const open = channels.flatMap((c) => (c._tag === "open" ? [c] : []))
    // Record order among zones of equal rank: the channels' stores (by path), then the global store.
    const rank = new Map(open.map((c, i) => [c.connection.path, i]))
    const storeRank = (store: string) => rank.get(store) ?? open.length
    const zones = [...(global._tag === "open" ? global.scan.zones : []), ...open.flatMap((c) => c.scan.zones)]
    // One store: its own scan's sessions (and saved report) stand, unless a session spans two of its zones and
    // one holds a copy of the other's run (an archive written, the current zone not yet cleared: tester20 F1).
    const merged = open.length > 0
      ? yield* dropCopies(sessionsOf(zones, storeRank), zones, storeRank)
      : global._tag === "open" && spansZones(zones)
      ? yield* Effect.map(dropCopies(global.scan.sessions, zones, storeRank), (s) => (s === global.scan.sessions ? null : s))
      : null
    const diagnostics: Array<Diagnostic> = [
      ...(global._tag === "open" ? global.scan.diagnostics : []),
      ...channels.flatMap((c) =>
        c._tag === "open"
          ? ofStore(c.connection.path, c.scan.diagnostics)
          : [{
            code: "CHANNEL_STORE_UNREADABLE",
            message: `${c.store}: this channel's AgentMux store could not be read (${c.error.message}); its archives are left out.`,
            details: { store: c.store, code: c.error.code }
          }]
      ),
      ...found.symlinks.map((path) => ({
        code: "SYMLINK_SKIPPED",
        message: `${path} is a symlink under the AgentMux home, where a channel's store would be; it was not followed, and what is behind it was not read.`,
        details: { path }
      }))
    ]
    return {
      global,
      root,
      symlinks: found.symlinks,
      channels,
      record,
      zones,
      get sessions() {
        return merged ?? (global._tag === "open" ? global.scan.sessions : [])
      },
      sources: merged === null && global._tag === "open"
        ? global.scan.entries as ReadonlyArray<DiscoveredSource> | undefined
        : undefined,
      diagnostics
    }
  })

/** What discovery reports of each channel's store. */
const channelReceipts = (r: Scanned) =>
  r.channels.map((c) =>
    c._tag === "open"
      ? { store: c.connection.path, storeMode: c.connection.mode, zones: c.scan.receipts, ignoredZones: c.scan.ignoredZones }
      : { store: c.store, error: c.error.code }
  )

const agentOf = (agentId: string | undefined) =>
  Either.match(checkAgentId(agentId), { onLeft: Effect.fail, onRight: Effect.succeed })

/**
 * Discover an agent's sessions (`--agent UID` is required), from the global
 * store and the channels' stores under the AgentMux home. The operator named
 * the agent, so finding nothing is partial coverage, as `import` reports it:
 * no store at all (`STORE_ABSENT`, status `unavailable`) or no session of
 * that agent in any store (`NO_SOURCES`, a diagnostic naming the agent and
 * the zones read). A store with missing parts, or a channel's store that
 * cannot be read, is partial.
 */
const discover = (deps: Deps, agentId: string | undefined): Effect.Effect<DiscoveryReport, IngestError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const uid = yield* agentOf(agentId)
      const r = yield* scanned(deps, uid, undefined, true)
      const absent = r.global._tag === "absent"
        ? [{ code: "STORE_ABSENT", message: `No AgentMux transcript store at ${r.record}; nothing was read there.`, details: { path: r.record } }]
        : []
      if (r.global._tag === "absent" && r.channels.length === 0) {
        return {
          provider: "agentmux",
          status: "unavailable",
          // An agent was named and nothing could be read for it (import says the same).
          coverage: "partial",
          sourceCount: 0,
          reasonCode: "STORE_ABSENT",
          remediation: "Pass --store with AgentMux's transcripts/filestore.db, or --agentmux-root with AgentMux's home, if it lives elsewhere.",
          sources: [],
          diagnostics: [{
            code: "STORE_ABSENT",
            message: `No AgentMux transcript store at ${r.record}${r.root !== null ? ` and no channel's store under ${r.root}` : ""}; nothing was read.`,
            details: { path: r.record, root: r.root }
          }, ...r.diagnostics],
          receipts: { store: r.record, stateFile: deps.state.location, zones: [] }
        } satisfies DiscoveryReport
      }
      const sources = r.sources ?? r.sessions.map((s) => sourceOf(r.record, uid, s))
      const missingPart = r.diagnostics.some((d) => d.code === "MISSING_PART")
      const unreadable = r.channels.some((c) => c._tag === "failed")
      const linked = r.symlinks.length > 0
      const none = sources.length === 0
      const storesRead = (r.global._tag === "open" ? 1 : 0) + r.channels.filter((c) => c._tag === "open").length
      const zonesRead = r.zones.length
      const diagnostics = none
        ? [...absent, ...r.diagnostics, {
          code: "NO_SOURCES",
          message: `Agent ${uid} has no session in ${r.record}${
            storesRead > (r.global._tag === "open" ? 1 : 0) ? ` or the channels' stores under ${r.root}` : ""
          } (${zonesRead} zone(s) of it read in ${storesRead} store(s)); nothing was found for it.`,
          details: { agentId: uid, store: r.record, root: r.root, stores: storesRead, zones: zonesRead }
        }]
        : [...absent, ...r.diagnostics]
      return {
        provider: "agentmux",
        status: "checked",
        coverage: missingPart || unreadable || linked || none ? "partial" : "complete",
        sourceCount: sources.length,
        reasonCode: missingPart
          ? "MISSING_PART"
          : unreadable
          ? "CHANNEL_STORE_UNREADABLE"
          : none
          ? "NO_SOURCES"
          : linked
          ? "SYMLINK_SKIPPED"
          : null,
        remediation: none
          ? "Check the agent UID (--agent) and the stores (--store, --agentmux-root); `discover agentmux` lists only that agent's sessions."
          : unreadable
          ? "A channel's AgentMux store could not be read; see its diagnostic."
          : linked
          ? "Symlinks under the AgentMux home are not followed: pass the store they point to with --store, or its AgentMux home with --agentmux-root."
          : null,
        sources,
        diagnostics,
        receipts: {
          store: r.record,
          ...(r.global._tag === "open" ? { storeMode: r.global.connection.mode } : {}),
          stateFile: deps.state.location,
          zones: r.global._tag === "open" ? r.global.scan.receipts : [],
          ignoredZones: r.global._tag === "open" ? r.global.scan.ignoredZones : [],
          agentmuxRoot: r.root,
          channelStores: channelReceipts(r)
        }
      } satisfies DiscoveryReport
    })
  )

/** Read a session's lines from its runs and map them. */
const loadSession = (
  deps: Deps,
  locator: Locator
): Effect.Effect<{ mapped: MappedSession; session: RecordSession; scanned: Scanned }, IngestError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const uid = yield* agentOf(locator.agentId)
      const sid = locator.sessionId
      if (sid === undefined || sid.length === 0) {
        return yield* new InvalidArgument({
          message: "AgentMux holds many sessions per agent; say which one.",
          remediation: "Pass --session SID (see `discover agentmux --agent UID`)."
        })
      }
      const r = yield* scanned(deps, uid, locator.path)
      if (r.global._tag === "absent" && r.channels.length === 0) {
        return yield* new SourceNotFound({
          message: `No AgentMux transcript store at ${r.record}, so session ${sid} cannot be read.`,
          remediation: "Pass --store with AgentMux's transcripts/filestore.db, or --agentmux-root with AgentMux's home."
        })
      }
      const session = r.sessions.find((s) => s.sessionId === sid)
      if (session === undefined) {
        return yield* new SourceNotFound({
          message: `Session ${sid} is not in agent ${uid}'s record.`,
          remediation: "List the agent's sessions with `discover agentmux --agent UID`."
        })
      }
      const lines: Array<SessionLine> = []
      // Each zone's sidecar looked up afresh, so that what its parts read for this session's lines hold that is
      // no record (or no bytes) is counted for this session (tester16 finding 4c).
      const stampsOf = new Map<ScannedZone, Stamps>()
      const sidecar = { bad: 0, badFirst: 0, missing: 0, missingFirst: 0 }
      for (const run of session.runs) {
        const zone = r.zones.find((z) => z.store === run.store && z.zone.zoneId === run.zone.zoneId)!
        let stamps = stampsOf.get(zone)
        if (stamps === undefined) stampsOf.set(zone, stamps = makeStamps(zone.connection, zone.tsidx))
        const batch: Array<{ offset: number; bytes: Buffer | null; problem: SessionLine["problem"] }> = []
        yield* forEachLine(zone.connection, zone.output, run.start, run.end, deps.maxLineBytes, (ls) => {
          for (const l of ls) batch.push({ offset: l.start, bytes: l.bytes, problem: l.problem })
        })
        for (const l of batch) {
          const bad = stamps.unreadable(), missing = stamps.missingParts()
          const receivedMs = yield* stamps.at(l.offset)
          lines.push({ zoneId: run.zone.zoneId, ...l, receivedMs })
          if (stamps.unreadable() > bad) {
            if (sidecar.bad === 0) sidecar.badFirst = lines.length
            sidecar.bad += stamps.unreadable() - bad
          }
          if (stamps.missingParts() > missing) {
            if (sidecar.missing === 0) sidecar.missingFirst = lines.length
            sidecar.missing += stamps.missingParts() - missing
          }
        }
      }
      const mapped = mapSession(lines, { sourceId: sourceIdOf(r.record, uid, sid), sessionId: sid, maxDepth: deps.maxDepth })
      const sidecarWarnings = [
        ...(sidecar.bad > 0 ? [{ kind: UNREADABLE_TSIDX_LINE, count: sidecar.bad, firstLine: sidecar.badFirst }] : []),
        ...(sidecar.missing > 0 ? [{ kind: TSIDX_PART_MISSING, count: sidecar.missing, firstLine: sidecar.missingFirst }] : [])
      ]
      return {
        mapped: sidecarWarnings.length === 0
          ? mapped
          : { ...mapped, transcript: { ...mapped.transcript, parseWarnings: [...mapped.transcript.parseWarnings, ...sidecarWarnings] } },
        session,
        scanned: r
      }
    })
  )

const checkClass = (locator: Locator) =>
  locator.locatorClass === "agentmux-agent-record"
    ? Effect.void
    : Effect.fail(
      new UnsupportedOperation({
        message: `AgentMux does not read locator class "${locator.locatorClass}".`,
        remediation: "Use --locator-class agentmux-agent-record (the default) with --agent UID --session SID."
      })
    )

const inspect = (deps: Deps, locator: Locator): Effect.Effect<Inspection, IngestError> =>
  Effect.gen(function*() {
    yield* checkClass(locator)
    const { mapped, scanned: r, session } = yield* loadSession(deps, locator)
    const path = r.record
    const sourceId = sourceIdOf(path, locator.agentId ?? "", session.sessionId)
    const live = session.runs.some((r) => r.zone._tag === "current")
    return {
      provider: "agentmux",
      locatorClass: "agentmux-agent-record",
      sourceId,
      locator: redactLocator(sourceId, path),
      status: live ? "provisional" : "complete",
      sessions: [summaryOf(session, path)],
      eventCount: mapped.events.length,
      firstEventAt: iso(session.firstMs),
      lastEventAt: iso(session.lastMs),
      diagnostics: [
        ...r.diagnostics,
        ...parseWarningDiagnostics(mapped.transcript),
        ...mapped.transcript.diagnostics.map((d) => ({
          code: "ORPHAN_TOOL_OUTPUTS",
          message: `${d.count} tool result(s) match no call; transcripts drop them (first: line ${d.firstLine ?? "?"} of the session).`,
          details: { ...d }
        }))
      ],
      provenance: {
        zones: r.global._tag === "open" ? r.global.scan.receipts : [],
        ignoredZones: r.global._tag === "open" ? r.global.scan.ignoredZones : [],
        ...(r.channels.length > 0 ? { channelStores: channelReceipts(r) } : {})
      }
    }
  })

/**
 * A session's parse warnings (`Transcript.parseWarnings`: its lines skipped,
 * and those kept without their usage) as `PARSE_WARNING` diagnostics, one a
 * kind, `details` the warning itself (`{kind, count, firstLine}`; lines
 * counted from the session's first). Lines of a kept kind are said kept,
 * with how (`KEPT_WARNING_KINDS`), never skipped (tester16 finding 4b).
 */
export const parseWarningDiagnostics = (t: Pick<Transcript, "parseWarnings">): Array<Diagnostic> =>
  t.parseWarnings.map((w) => ({
    code: PARSE_WARNING,
    // A kind whose lines are kept (a time not valid or implausible: the events kept without a time) is never said skipped.
    message: w.kind === USAGE_NOT_VALID
      ? `${w.count} line(s) with a token count or cost that is not valid: their usage dropped, their events kept (first: line ${w.firstLine} of the session).`
      : w.kind === UNREADABLE_TSIDX_LINE
      ? `${w.count} line(s) of output.tsidx skipped: not a {"off":N,"ms":M} record, so the receive times they give are not known (${w.kind}; first: line ${w.firstLine} of the session).`
      : w.kind === TSIDX_PART_MISSING
      ? `${w.count} part(s) of output.tsidx missing from the store or not bytes: the receive times on them were not read (${w.kind}; first: line ${w.firstLine} of the session).`
      : isKeptWarningKind(w.kind)
      ? `${w.count} ${w.kind} line(s) ${KEPT_WARNING_KINDS[w.kind]!.kept} (${KEPT_WARNING_KINDS[w.kind]!.why}; first: line ${w.firstLine} of the session).`
      : `${w.count} ${w.kind} line(s) skipped (first: line ${w.firstLine} of the session).`,
    details: { ...w }
  }))

/**
 * The session's events (after `cursor`), then, when they ended without
 * failing and `onWarning` is given, the whole session's parse warnings to it
 * (`StreamOptions.onWarning`: the importer's report lists them; AgentMux's
 * discovery reads no session's lines, so they are known once it is read).
 * Its title (its first prompt's, `mapSession`) goes to `onTitle` before the
 * events, for the same reason, also after a cursor (tester31a F4).
 */
const stream = (
  deps: Deps,
  locator: Locator,
  cursor: string | undefined,
  onWarning?: (d: Diagnostic) => void,
  onTitle?: (title: string) => void
) =>
  Stream.unwrap(
    Effect.gen(function*() {
      yield* checkClass(locator)
      const { mapped } = yield* loadSession(deps, locator)
      if (onTitle !== undefined && mapped.transcript.title !== null) onTitle(mapped.transcript.title)
      const warn = onWarning === undefined
        ? Stream.empty
        : Stream.execute(Effect.sync(() => parseWarningDiagnostics(mapped.transcript).forEach(onWarning)))
      let events = mapped.events
      if (cursor !== undefined && events.length > 0) {
        const src = events[0].event.sourceId
        const state = yield* Either.match(decodeCursor(cursor, src), { onLeft: Effect.fail, onRight: Effect.succeed })
        const at = resumeAfter(events, state)
        if (at._tag === "Left") return yield* at.error
        events = events.slice(at.index)
      } else if (cursor !== undefined) {
        return yield* cursorSourceChanged("the session has no events")
      }
      return Stream.concat(Stream.fromIterable(events.map((e) => e.event)), warn)
    })
  )

/**
 * Build the adapter from a {@link TranscriptStore} and a {@link ScanState} in
 * context (tests give the in-memory layers).
 */
export const makeWith: Effect.Effect<
  SessionSourceAdapter,
  never,
  TranscriptStore | ScanState | AccessPolicy | ImportLimits
> = Effect.gen(function*() {
  const deps: Deps = {
    store: yield* TranscriptStore,
    state: yield* ScanState,
    policy: yield* AccessPolicy,
    maxLineBytes: (yield* ImportLimits).maxRecordBytes,
    maxDepth: (yield* ImportLimits).maxDepth
  }
  return {
    descriptor,
    discover: (request) => discover(deps, request.agentId),
    inspect: (locator) => inspect(deps, locator),
    stream: (locator, options) => stream(deps, locator, options?.cursor, options?.onWarning, options?.onTitle),
    transcript: (locator) =>
      Effect.zipRight(checkClass(locator), Effect.map(loadSession(deps, locator), (r) => r.mapped.transcript))
  }
})

/**
 * Build the adapter with the live store (SQLite, read-only) and the live scan
 * state (`--state`), from the access services the registry has.
 */
export const make: Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> = Effect.gen(
  function*() {
    const store = yield* TranscriptStoreSqlite.make
    const state = yield* ScanStateSqlite.make
    return yield* makeWith.pipe(Effect.provideService(TranscriptStore, store), Effect.provideService(ScanState, state))
  }
)
