/**
 * Muse Code `manual-export` sources: authorize the trajectory file under a
 * workspace root, read it whole under the import limits, decode it, and
 * answer inspect / stream (seed `001_…`, "How to import", "Trajectory shape").
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { cursorSourceChanged, decodeCursor, eventCheck } from "../../domain/cursor.js"
import { type IngestError, InvalidCursor, MalformedSource } from "../../domain/errors.js"
import type { Inspection, SessionEvent } from "../../domain/model.js"
import { decodeExport, type DecodedExport } from "../../domain/muse-code/export.js"
import { TitleWatch } from "../../domain/muse-code/records.js"
import { repeatedRecordsDiagnostic, sequenceDecreasesDiagnostic } from "../../domain/muse-code/record-names.js"
import { makeSourceId, redactLocator, sha256Hex } from "../../domain/source-id.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import type { ImportLimitsShape } from "../../services/ImportLimits.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"
import { notUtf8Source } from "../jsonl/encoding.js"

/** The services an export source is read with. */
export interface ExportDeps {
  readonly access: SourceAccessShape
  readonly limits: ImportLimitsShape
  readonly policy: AccessPolicyShape
}

/** A loaded export: where it is, its id, and its decoded content. */
export interface LoadedExport {
  readonly path: string
  readonly sourceId: string
  readonly digest: string
  readonly decoded: DecodedExport
}

/**
 * Authorize (under the workspace roots), read (under `maxDocumentBytes`) and
 * decode an export file. Fails with the access errors, `MalformedSource`
 * (one in UTF-16 or UTF-32 named so, `../jsonl/encoding.ts`),
 * `UnknownSchemaMajor` or `ResourceLimitExceeded`.
 */
export const loadExport = (deps: ExportDeps, path: string): Effect.Effect<LoadedExport, IngestError> =>
  Effect.gen(function*() {
    const file = yield* deps.access.authorizeFile(path, deps.policy.workspaceRoots)
    const bytes = yield* deps.access.readWhole(file, deps.limits.maxDocumentBytes)
    // An export re-saved as UTF-16 (PowerShell's `>`): said so, with the conversion, not "not JSON".
    const notUtf8 = bytes.length > 0 ? notUtf8Source(file.path, bytes) : undefined
    if (notUtf8 !== undefined) return yield* notUtf8
    const sourceId = makeSourceId("muse-code", "manual-export", file.path)
    const digest = sha256Hex(bytes).slice(0, 32)
    const decoded = yield* Either.match(decodeExport(bytes, { sourceId, digest, maxDepth: deps.limits.maxDepth, maxRecordBytes: deps.limits.maxRecordBytes }), {
      onLeft: (e) => Effect.fail(e),
      onRight: (d) => Effect.succeed(d)
    })
    return { path: file.path, sourceId, digest, decoded }
  })

/**
 * Whether the export at `path` is still the document `cursor` (a cursor of one of its events, as an import stored
 * it) was taken from: the digest of the whole document the cursor binds (`h`, the first 32 hex digits of its
 * sha256) is that of the file's bytes now (session 28: an export touched, its bytes the same, is unchanged, not
 * read again). One read of the file (under `maxDocumentBytes`), no decode. False for a cursor that is not one of
 * this export's (another source's, a token of an earlier build); fails with the access errors.
 */
export const exportUnchangedSince = (deps: ExportDeps, path: string, cursor: string): Effect.Effect<boolean, IngestError> =>
  Effect.gen(function*() {
    const file = yield* deps.access.authorizeFile(path, deps.policy.workspaceRoots)
    const state = decodeCursor(cursor, makeSourceId("muse-code", "manual-export", file.path))
    if (state._tag === "Left" || typeof state.right.h !== "string") return false
    const bytes = yield* deps.access.readWhole(file, deps.limits.maxDocumentBytes)
    return sha256Hex(bytes).slice(0, 32) === state.right.h
  })

/** `inspect` of an export: `provisional` when `session_terminated_abnormally` is true, else `complete`. */
export const inspectExport = (deps: ExportDeps, path: string): Effect.Effect<Inspection, IngestError> =>
  Effect.map(loadExport(deps, path), ({ decoded, path: real, sourceId }) => {
    const { events, provenance } = decoded
    const times = events.map((e) => e.occurredAt).filter((t): t is string => t !== null)
    return {
      provider: "muse-code",
      locatorClass: "manual-export",
      sourceId,
      locator: redactLocator(sourceId, real),
      status: provenance.terminatedAbnormally ? "provisional" : "complete",
      sessions: decoded.sessions.map((s) => ({
        sessionId: s.session_id,
        turnCount: s.turn_count ?? null,
        stepCount: s.step_count ?? null,
        sessionEnd: s.session_end ?? null,
        acceptedSpawns: (s.accepted_spawns ?? []).map((sp) => ({
          subagentId: sp.subagent_id,
          agentPath: sp.agent_path ?? null,
          role: sp.role ?? null,
          parentSessionId: sp.parent_session_id ?? null
        })),
        eventCount: events.filter((e) => e.sessionId === s.session_id).length,
        inSummary: true
      })).concat(
        // Stream ids that events are attributed to but that have no sessions[] summary.
        [...new Set(events.map((e) => e.sessionId))]
          .filter((id) => !decoded.sessions.some((s) => s.session_id === id))
          .map((id) => ({
            sessionId: id,
            turnCount: null,
            stepCount: null,
            sessionEnd: null,
            acceptedSpawns: [],
            eventCount: events.filter((e) => e.sessionId === id).length,
            inSummary: false
          }))
      ),
      eventCount: events.length,
      firstEventAt: times.length > 0 ? times.reduce((a, b) => (a < b ? a : b)) : null,
      lastEventAt: times.length > 0 ? times.reduce((a, b) => (a > b ? a : b)) : null,
      diagnostics: [
        ...(decoded.gapMarkers > 0
          ? [{
            code: "GAP_MARKERS_SKIPPED",
            message: `${decoded.gapMarkers} gap marker(s) skipped; no records were fabricated for them.`,
            details: { count: decoded.gapMarkers }
          }]
          : []),
        ...(decoded.retainedFrames > 0
          ? [{
            code: "RETAINED_FRAMES_SKIPPED",
            message: `${decoded.retainedFrames} export retained frame(s) skipped.`,
            details: { count: decoded.retainedFrames }
          }]
          : []),
        ...(decoded.repeatedRecords > 0
          ? [repeatedRecordsDiagnostic(decoded.repeatedRecords, "envelope.sequence")]
          : []),
        ...(decoded.firstDecrease !== null
          ? [sequenceDecreasesDiagnostic(decoded.sequenceDecreases, decoded.firstDecrease)]
          : []),
        ...(provenance.terminatedAbnormally
          ? [{
            code: "TERMINATED_ABNORMALLY",
            message: "The log recorded no orderly session.end; the trajectory is provisional."
          }]
          : [])
      ],
      provenance: {
        ...provenance,
        rawEventCount: decoded.rawEventCount,
        gapMarkers: decoded.gapMarkers,
        retainedFrames: decoded.retainedFrames,
        ...(decoded.repeatedRecords > 0 ? { repeatedRecords: decoded.repeatedRecords } : {})
      }
    }
  })

/** Index of the event at raw position `seq` in events sorted by sequence; -1 when none is there (a gap marker, a frame, past the end). */
const eventAt = (events: ReadonlyArray<SessionEvent>, seq: number): number => {
  let lo = 0, hi = events.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const s = events[mid].sequence
    if (s === seq) return mid
    if (s < seq) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

const invalidExportCursor = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass a cursor printed by `stream` for this same export, or stream without --cursor to start over."
  })

/**
 * `stream` of an export: its events in document order, or those after the
 * cursor's event. A cursor of another source, of a document whose bytes
 * changed, or whose sequence is not the place of the event it was taken from
 * (edited: past the end, onto a gap marker or retained frame, onto another
 * event; or a token without its event's check) fails with `InvalidCursor`.
 * With `onTitle`, the title of the document's session (`sessions[0]`) goes to
 * it before the events, also after a cursor: its first person's prompt
 * (`personPromptOf`), with that session.
 */
export const streamExport = (
  deps: ExportDeps,
  path: string,
  cursor: string | undefined,
  onTitle?: ((title: string, sessionId: string) => void) | undefined
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrap(
    Effect.gen(function*() {
      const loaded = yield* loadExport(deps, path)
      let events = loaded.decoded.events
      if (onTitle !== undefined) {
        const title = new TitleWatch(onTitle, loaded.decoded.sessions[0].session_id)
        for (let i = 0; i < events.length && !title.done; i++) {
          const native = events[i].extensions["native.muse"] as { readonly payloadType?: unknown; readonly payload?: unknown }
          title.see(native.payloadType, native.payload, events[i].sessionId)
        }
      }
      if (cursor !== undefined) {
        const state = yield* decodeCursor(cursor, loaded.sourceId)
        if (state.h !== loaded.digest) return yield* cursorSourceChanged("the export's bytes differ")
        const at = eventAt(events, state.seq)
        if (state.hd === undefined) {
          return yield* invalidExportCursor("The export cursor does not bind its event (a token of an earlier build, or not an export's).")
        }
        if (at < 0 || eventCheck(events[at], state.seq) !== state.hd) {
          return yield* invalidExportCursor(`The cursor's sequence ${state.seq} is not the place of the event it was taken from.`)
        }
        events = events.slice(at + 1)
      }
      return Stream.fromIterable(events)
    })
  )
