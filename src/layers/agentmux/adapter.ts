/**
 * The AgentMux adapter (provider `agentmux`, locator class
 * `agentmux-agent-record`): every session an agent ran, read from the global
 * transcript store (`filestore.db`) and scanned incrementally (seed
 * `002_be0ab054974359d2.txt`, issue 5). Policy: skip and count unreadable lines.
 *
 * @module
 */
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { checkAgentId } from "../../domain/agentmux/record.js"
import { mapSession, type MappedSession, resumeAfter, type SessionLine } from "../../domain/agentmux/transcript.js"
import { cursorSourceChanged, decodeCursor } from "../../domain/cursor.js"
import { type IngestError, InvalidArgument, SourceNotFound, UnsupportedOperation } from "../../domain/errors.js"
import {
  type DiscoveredSource,
  type DiscoveryReport,
  emptySourceSummary,
  type Inspection,
  type Locator,
  type ProviderDescriptor,
  type SourceSummary
} from "../../domain/model.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import { timestampOrNull } from "../../domain/timestamps.js"
import { AccessPolicy, type AccessPolicyShape } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import { ScanState, type ScanStateShape } from "./ScanState.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { descriptorOf } from "../provider.js"
import { provider } from "./provider.js"
import type { SourceAccess } from "../../services/SourceAccess.js"
import { type StoreConnection, TranscriptStore, type TranscriptStoreShape } from "./TranscriptStore.js"
import * as ScanStateSqlite from "./scan-state-sqlite.js"
import { type AgentScan, type RecordSession, scanAgent } from "./scan.js"
import * as TranscriptStoreSqlite from "./transcript-store-sqlite.js"
import { forEachLine } from "./zone-reader.js"

/** The descriptor of `agentmux`, from its provider module (`./provider.ts`). */
export const descriptor: ProviderDescriptor = descriptorOf(provider)

/** AgentMux's store when neither the locator nor `--store` names one (seed 002). */
export const defaultStorePath = (): string =>
  nodePath.join(os.homedir(), ".agentmux", "shared", "agents", "transcripts", "filestore.db")

/** The store a request reads: the locator's path, else `--store`, else the default. */
export const storePathOf = (policy: AccessPolicyShape, locatorPath?: string): string =>
  locatorPath !== undefined && locatorPath.length > 0 ? locatorPath : policy.agentmuxStore ?? defaultStorePath()

interface Deps {
  readonly store: TranscriptStoreShape
  readonly state: ScanStateShape
  readonly policy: AccessPolicyShape
  readonly maxLineBytes: number
  /** The import limit on JSON nesting of one line. */
  readonly maxDepth: number
}

const iso = (ms: number | null) => (ms === null ? null : timestampOrNull(ms))

const sourceIdOf = (storePath: string, agentId: string, sessionId: string) =>
  makeSourceId("agentmux", "agentmux-agent-record", `${storePath}#${agentId}#${sessionId}`)

/** The typed summary of a session (contract 1.1.0): its `cwd`, receive times, runs and lines; AgentMux records no title. */
const overviewOf = (s: RecordSession): SourceSummary => ({
  ...emptySourceSummary(s.sessionId),
  workspace: s.cwd,
  firstActivityAt: iso(s.firstMs),
  lastActivityAt: iso(s.lastMs),
  counts: { prompts: null, toolCalls: null, runs: s.runs.length, lines: s.lines }
})

/** The discovery fields of a session (DiscoveredSource.summary). */
const summaryOf = (s: RecordSession) => ({
  sessionId: s.sessionId,
  cwd: s.cwd,
  firstReceivedAt: iso(s.firstMs),
  lastReceivedAt: iso(s.lastMs),
  lineCount: s.lines,
  runs: s.runs.map((r) => ({
    zone: r.zone.zoneId,
    start: r.start,
    end: r.end,
    lines: r.lines,
    firstReceivedAt: iso(r.firstMs),
    lastReceivedAt: iso(r.lastMs)
  }))
})

type Scanned =
  | { readonly _tag: "absent"; readonly path: string }
  | { readonly _tag: "open"; readonly connection: StoreConnection; readonly scan: AgentScan }

/** Open the store and scan the agent (inside the caller's scope). */
const scanned = (deps: Deps, agentId: string, locatorPath?: string) =>
  Effect.gen(function*() {
    const opened = yield* deps.store.open(storePathOf(deps.policy, locatorPath))
    if (opened._tag === "absent") return opened as Scanned
    const scan = yield* scanAgent(opened.connection, deps.state, agentId, deps.maxLineBytes)
    return { _tag: "open", connection: opened.connection, scan } as Scanned
  })

const agentOf = (agentId: string | undefined) =>
  Either.match(checkAgentId(agentId), { onLeft: Effect.fail, onRight: Effect.succeed })

/**
 * Discover an agent's sessions (`--agent UID` is required). The operator named
 * the agent, so finding nothing is partial coverage, as `import` reports it:
 * no store at the path (`STORE_ABSENT`, status `unavailable`) or no session
 * of that agent in the store (`NO_SOURCES`, a diagnostic naming the agent and
 * the zones read). A store with missing parts is partial (`MISSING_PART`).
 */
const discover = (deps: Deps, agentId: string | undefined): Effect.Effect<DiscoveryReport, IngestError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const uid = yield* agentOf(agentId)
      const r = yield* scanned(deps, uid)
      if (r._tag === "absent") {
        return {
          provider: "agentmux",
          status: "unavailable",
          // An agent was named and nothing could be read for it (import says the same).
          coverage: "partial",
          sourceCount: 0,
          reasonCode: "STORE_ABSENT",
          remediation: "Pass --store with AgentMux's transcripts/filestore.db if it lives elsewhere.",
          sources: [],
          diagnostics: [{
            code: "STORE_ABSENT",
            message: `No AgentMux transcript store at ${r.path}; nothing was read.`,
            details: { path: r.path }
          }],
          receipts: { store: r.path, stateFile: deps.state.location, zones: [] }
        } satisfies DiscoveryReport
      }
      const { connection, scan } = r
      const sources = scan.sessions.map((s): DiscoveredSource => ({
        provider: "agentmux",
        sourceId: sourceIdOf(connection.path, uid, s.sessionId),
        locator: { locatorClass: "agentmux-agent-record", path: connection.path, agentId: uid, sessionId: s.sessionId },
        sessionId: s.sessionId,
        overview: overviewOf(s),
        summary: summaryOf(s)
      }))
      const missingPart = scan.diagnostics.some((d) => d.code === "MISSING_PART")
      const none = sources.length === 0
      const diagnostics = none
        ? [...scan.diagnostics, {
          code: "NO_SOURCES",
          message: `Agent ${uid} has no session in ${connection.path} (${scan.receipts.length} zone(s) of it read); nothing was found for it.`,
          details: { agentId: uid, store: connection.path, zones: scan.receipts.length }
        }]
        : scan.diagnostics
      return {
        provider: "agentmux",
        status: "checked",
        coverage: missingPart || none ? "partial" : "complete",
        sourceCount: sources.length,
        reasonCode: missingPart ? "MISSING_PART" : none ? "NO_SOURCES" : null,
        remediation: none ? "Check the agent UID (--agent) and the store (--store); `discover agentmux` lists only that agent's sessions." : null,
        sources,
        diagnostics,
        receipts: {
          store: connection.path,
          storeMode: connection.mode,
          stateFile: deps.state.location,
          zones: scan.receipts,
          ignoredZones: scan.ignoredZones
        }
      } satisfies DiscoveryReport
    })
  )

/** Read a session's lines from its runs and map them. */
const loadSession = (
  deps: Deps,
  locator: Locator
): Effect.Effect<{ mapped: MappedSession; session: RecordSession; scan: AgentScan; path: string }, IngestError> =>
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
      if (r._tag === "absent") {
        return yield* new SourceNotFound({
          message: `No AgentMux transcript store at ${r.path}, so session ${sid} cannot be read.`,
          remediation: "Pass --store with AgentMux's transcripts/filestore.db."
        })
      }
      const session = r.scan.sessions.find((s) => s.sessionId === sid)
      if (session === undefined) {
        return yield* new SourceNotFound({
          message: `Session ${sid} is not in agent ${uid}'s record.`,
          remediation: "List the agent's sessions with `discover agentmux --agent UID`."
        })
      }
      const lines: Array<SessionLine> = []
      for (const run of session.runs) {
        const zone = r.scan.zones.find((z) => z.zone.zoneId === run.zone.zoneId)!
        const batch: Array<{ offset: number; bytes: Buffer | null; problem: SessionLine["problem"] }> = []
        yield* forEachLine(r.connection, zone.output, run.start, run.end, deps.maxLineBytes, (ls) => {
          for (const l of ls) batch.push({ offset: l.start, bytes: l.bytes, problem: l.problem })
        })
        for (const l of batch) {
          lines.push({ zoneId: run.zone.zoneId, ...l, receivedMs: yield* zone.stamps.at(l.offset) })
        }
      }
      const mapped = mapSession(lines, { sourceId: sourceIdOf(r.connection.path, uid, sid), sessionId: sid, maxDepth: deps.maxDepth })
      return { mapped, session, scan: r.scan, path: r.connection.path }
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
    const { mapped, path, scan, session } = yield* loadSession(deps, locator)
    const sourceId = sourceIdOf(path, locator.agentId ?? "", session.sessionId)
    const live = session.runs.some((r) => r.zone._tag === "current")
    return {
      provider: "agentmux",
      locatorClass: "agentmux-agent-record",
      sourceId,
      locator: redactLocator(sourceId, path),
      status: live ? "provisional" : "complete",
      sessions: [summaryOf(session)],
      eventCount: mapped.events.length,
      firstEventAt: iso(session.firstMs),
      lastEventAt: iso(session.lastMs),
      diagnostics: [
        ...scan.diagnostics,
        ...mapped.transcript.parseWarnings.map((w) => ({
          code: "PARSE_WARNING",
          message: `${w.count} ${w.kind} line(s) skipped (first: line ${w.firstLine} of the session).`,
          details: { ...w }
        })),
        ...mapped.transcript.diagnostics.map((d) => ({
          code: "ORPHAN_TOOL_OUTPUTS",
          message: `${d.count} tool result(s) match no call; transcripts drop them (first: line ${d.firstLine ?? "?"} of the session).`,
          details: { ...d }
        }))
      ],
      provenance: { zones: scan.receipts, ignoredZones: scan.ignoredZones }
    }
  })

const stream = (deps: Deps, locator: Locator, cursor: string | undefined) =>
  Stream.unwrap(
    Effect.gen(function*() {
      yield* checkClass(locator)
      const { mapped } = yield* loadSession(deps, locator)
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
      return Stream.fromIterable(events.map((e) => e.event))
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
    stream: (locator, options) => stream(deps, locator, options?.cursor),
    transcript: (locator) =>
      Effect.zipRight(checkClass(locator), Effect.map(loadSession(deps, locator), (r) => r.mapped.transcript))
  }
})

/**
 * Build the adapter with the live store (SQLite, read-only) and the live scan
 * state (`--state`), from the access services the registry has.
 */
export const make: Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> = makeWith.pipe(
  Effect.provide(Layer.merge(TranscriptStoreSqlite.layer, ScanStateSqlite.layer))
)
