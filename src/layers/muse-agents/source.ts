/**
 * Reading one Muse agents transcript (`muse-agent-transcript`, seed `000_…`):
 * authorize it under the agents root, scan it a chunk of lines at a time
 * (never holding the file), and answer summary / inspect / transcript /
 * stream. Tolerant: bad lines are skipped and counted, never fatal; only
 * access errors, a file with no `session_header` (not a session) and a bad
 * cursor fail.
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { decodeCursor } from "../../domain/cursor.js"
import {
  type IngestError,
  MalformedSource,
  ResourceLimitExceeded,
  type SourceAccessError,
  UnsupportedOperation
} from "../../domain/errors.js"
import { InexactTally } from "../../domain/inexact-tally.js"
import { CANONICAL_TEXT, inexactNumbers, type VerbatimText, verbatimString } from "../../domain/json.js"
import type { Diagnostic, Inspection, Locator, SessionEvent, Transcript, TranscriptDiagnostic } from "../../domain/model.js"
import { toSessionEvent, yieldsEvent } from "../../domain/muse-agents/events.js"
import { classifyLine, type Classified } from "../../domain/muse-agents/records.js"
import { type AgentsRoot, resolveAgentsRoot, SESSIONS_INDEX_FILE } from "../../domain/muse-agents/root.js"
import { lineWarningKinds, readSessionsIndex, SessionScan, type SessionsIndex } from "../../domain/muse-agents/summary.js"
import { TranscriptBuilder } from "../../domain/muse-agents/transcript.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import type { ImportLimitsShape } from "../../services/ImportLimits.js"
import type { StreamOptions } from "../../services/SessionSource.js"
import type { AuthorizedFile, OpenSource, SourceAccessShape } from "../../services/SourceAccess.js"
import { failIfShrank, isValidUtf8, type JsonlSource, type Line, type LineBinding, openJsonl, readLines } from "../jsonl/index.js"
import { raiseLimitRemedy } from "../../domain/limit-remedy.js"
import { PARSE_WARNING, parseWarningMessage, ZEROED_BYTES, ZeroedLines } from "../../domain/warning-kinds.js"

/** The services and process facts a transcript is read with. */
export interface AgentsDeps {
  readonly access: SourceAccessShape
  readonly limits: ImportLimitsShape
  readonly policy: AccessPolicyShape
  /** The environment (`MUSE_AGENTS_DIR`). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The user's home folder (`~/agents` default). */
  readonly home: string
}

/**
 * How transcript cursors bind their line: the check covers the line's `\n`, a
 * complete last line without one may carry a cursor (tolerant), and the
 * first builds printed tokens without a head binding.
 */
const TRANSCRIPT_BINDING: LineBinding = { checkNewline: true, unterminated: true, headRequired: false }

/** The locator class this provider reads. */
export const LOCATOR_CLASS = "muse-agent-transcript" as const

/** The agents root in force: `--agents-root`, else `$MUSE_AGENTS_DIR`, else `~/agents` (seed 000). */
export const agentsRootOf = (deps: AgentsDeps): AgentsRoot =>
  resolveAgentsRoot(deps.policy.agentsRoot, deps.env, deps.home)

/** The source id of a transcript's real path. */
export const sourceIdOf = (realPath: string): string => makeSourceId("muse-agents", LOCATOR_CLASS, realPath)

const unsupportedClass = (locator: Locator) =>
  new UnsupportedOperation({
    message: `Muse agents does not read locator class "${locator.locatorClass}".`,
    remediation: "Use --locator-class muse-agent-transcript (the default) for <agents-root>/<agentId>/sessions/<agentId>.jsonl."
  })

/**
 * Authorize a transcript file under the agents root. Fails with the access
 * errors (`SourceOutsideAllowedRoot` for a file outside the root, …) or
 * `UnsupportedOperation` for another locator class.
 */
export const authorizeTranscript = (
  deps: AgentsDeps,
  locator: Locator
): Effect.Effect<AuthorizedFile, SourceAccessError | UnsupportedOperation> =>
  locator.locatorClass !== LOCATOR_CLASS
    ? Effect.fail(unsupportedClass(locator))
    : deps.access.authorizeFile(locator.path, [agentsRootOf(deps).path], "--agents-root DIR")

const toRaw = (line: Line, lineNumber: number) => ({
  text: line.oversized ? "" : line.bytes.toString("utf8"),
  lineNumber,
  terminated: line.terminated,
  oversized: line.oversized
})

/**
 * Read every line of an authorized file once, in order, handing each
 * classified line to `onLine` with its text (a chunk of lines per part of a read step;
 * one step plus one line held at most). Fails with access errors, or
 * `MalformedSource` when the file ends before the larger of its size when
 * authorized and when opened (truncated or rewritten in place while read: no
 * summary is made of two versions of it).
 */
export const scanFile = (
  deps: AgentsDeps,
  file: AuthorizedFile,
  onLine: (c: Classified, line: Line, text: string) => void
): Effect.Effect<void, SourceAccessError | MalformedSource> =>
  Effect.scoped(
    Effect.gen(function*() {
      const src = yield* deps.access.open(file)
      const sizeAtOpen = Math.max(file.stat.size, (yield* src.stat).size)
      let reached = 0
      const lines = readLines(src, {
        maxLineBytes: deps.limits.maxRecordBytes,
        onRead: (offset, bytes) => {
          reached = Math.max(reached, offset + bytes.length)
        }
      })
      yield* failIfShrank(lines, sizeAtOpen, () => reached, "The transcript", Effect.map(src.stat, (s) => s.size)).pipe(
        Stream.runForEachChunk((chunk) =>
          Effect.sync(() => {
            for (const line of chunk) {
              const raw = toRaw(line, line.lineNumber)
              onLine(classifyLine(raw, deps.limits.maxDepth), line, raw.text)
            }
          })
        )
      )
    })
  )

/**
 * Count, in `tally`, the numbers of a line that yields an event (and of its
 * `function_call`'s `arguments` JSON text, parsed into the tool input) that
 * the event does not carry exactly. Lines that yield no event (the header,
 * ignored and skipped lines) are not counted.
 */
const countInexact = (tally: InexactTally, c: Classified, text: string, lineNumber: number, offset: number): void => {
  if (!yieldsEvent(c)) return
  tally.add(inexactNumbers(text), lineNumber, offset)
  if (c._tag === "Item" && c.entry._tag === "ToolCall") tally.add(c.entry.argumentsInexact, lineNumber, offset)
}

/** The `NUMBER_NOT_EXACT` diagnostic of a transcript's pass, or undefined when every number was exact. */
const inexactDiagnostic = (tally: InexactTally, file: AuthorizedFile): Diagnostic | undefined =>
  tally.diagnostic(`the transcript ${file.path}`)

/** A transcript's scan, with the file it was read from. */
export interface ScannedTranscript {
  readonly file: AuthorizedFile
  readonly sourceId: string
  readonly scan: SessionScan
}

/** Scan an authorized file into a {@link SessionScan}; with `tally`, also count its inexact numbers (see `countInexact`). */
export const scanTranscript = (
  deps: AgentsDeps,
  file: AuthorizedFile,
  tally?: InexactTally | undefined
): Effect.Effect<ScannedTranscript, SourceAccessError | MalformedSource> =>
  Effect.gen(function*() {
    const scan = new SessionScan()
    yield* scanFile(deps, file, (c, line, text) => {
      scan.push(c, line.lineNumber, line.terminated, !line.oversized && !isValidUtf8(line.bytes))
      if (tally !== undefined) countInexact(tally, c, text, line.lineNumber, line.start)
    })
    return { file, sourceId: sourceIdOf(file.path), scan: scan.finish() }
  })

const notASession = (file: AuthorizedFile) =>
  new MalformedSource({
    message: `${nodePath.basename(file.path)} has no session_header record with a session_id (a non-empty string), so it is not a Muse agents session.`,
    remediation: "Pass a transcript <agents-root>/<agentId>/sessions/<agentId>.jsonl that starts with a session_header line.",
    details: { reason: "no-session-header" }
  })

/** What reading `sessions.json` beside a transcript gave: the index, or why there is none. */
export type IndexRead =
  | { readonly _tag: "absent" }
  | { readonly _tag: "unreadable"; readonly code: string }
  | SessionsIndex

/**
 * Read `sessions.json` in the folder `dir` (under the agents root) for
 * `sessionId`. Never fails: a missing file is `absent`, a file that cannot be
 * authorized or passes `maxDocumentBytes` is `unreadable` (with the error
 * code), a non-object document is `ignored` (seed 000).
 */
export const readIndexBeside = (
  deps: AgentsDeps,
  dir: string,
  root: string,
  sessionId: string
): Effect.Effect<IndexRead> =>
  Effect.gen(function*() {
    const path = nodePath.join(dir, SESSIONS_INDEX_FILE)
    const file = yield* deps.access.authorizeFile(path, [root])
    const bytes = yield* deps.access.readWhole(file, deps.limits.maxDocumentBytes)
    return readSessionsIndex(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8"), sessionId, deps.limits.maxDepth)
  }).pipe(
    Effect.catchAll((e) =>
      Effect.succeed<IndexRead>(e._tag === "SourceNotFound" ? { _tag: "absent" } : { _tag: "unreadable", code: e.code })
    )
  )

/**
 * The diagnostic an unusable `sessions.json` adds to a transcript and a
 * summary (`sessions-index-not-json` / `-not-object` / `-too-deep` /
 * `-unreadable`; no line: `firstLine` null). A diagnostic, not a parse
 * warning: seed 000 tolerates such a file, and it is no transcript line.
 */
export const indexDiagnostic = (read: IndexRead): TranscriptDiagnostic | null =>
  read._tag === "ignored"
    ? { kind: `sessions-index-${read.reason}`, count: 1, firstLine: null }
    : read._tag === "unreadable"
    ? { kind: "sessions-index-unreadable", count: 1, firstLine: null }
    : null

/**
 * The transcript of a `muse-agent-transcript` source (DESIGN.md's Transcript):
 * tool results paired onto their calls, orphan outputs dropped and counted
 * (a diagnostic), compactions as metadata, line parse warnings counted;
 * `model` from `sessions.json` beside the file (an unusable one is a diagnostic). Fails with the access errors, `MalformedSource` when the
 * file has no `session_header`, or `ResourceLimitExceeded` when the file is
 * larger than `maxDocumentBytes` (the transcript is held whole).
 */
export const transcriptOf = (deps: AgentsDeps, locator: Locator): Effect.Effect<Transcript, IngestError> =>
  Effect.gen(function*() {
    const file = yield* authorizeTranscript(deps, locator)
    // A transcript holds the whole conversation, as a document read whole does: the same limit.
    if (file.stat.size > deps.limits.maxDocumentBytes) {
      return yield* new ResourceLimitExceeded({
        message: `The transcript file is ${file.stat.size} bytes; a transcript holds the whole conversation in memory, and the limit is ${deps.limits.maxDocumentBytes} (maxDocumentBytes).`,
        remediation: `Use \`stream\` for its events (any size, a step at a time). ${raiseLimitRemedy("maxDocumentBytes", "if the memory is there.")}`,
        details: { limit: "maxDocumentBytes", max: deps.limits.maxDocumentBytes, size: file.stat.size }
      })
    }
    const builder = new TranscriptBuilder()
    yield* scanFile(deps, file, (c, line) => builder.push(c, line.lineNumber, line.terminated))
    const header = builder.scan.header
    if (header === null) return yield* notASession(file)
    const index = yield* readIndexBeside(deps, nodePath.dirname(file.path), file.root, header.sessionId)
    const ignored = indexDiagnostic(index)
    return builder.finish(header.sessionId, index._tag === "found" ? index.entry : null, ignored !== null ? [ignored] : [])
  })

/**
 * `inspect` of a transcript: identity, the session with its summary counts,
 * the number of events `stream` yields, first/last record times, and parse
 * warnings as diagnostics, and `NUMBER_NOT_EXACT` when numbers of its events'
 * lines are not carried exactly. `provisional` when the last line has no `\n` (an
 * append may be in progress), else `complete`. Fails like {@link transcriptOf}.
 */
export const inspectTranscript = (deps: AgentsDeps, locator: Locator): Effect.Effect<Inspection, IngestError> =>
  Effect.gen(function*() {
    const file = yield* authorizeTranscript(deps, locator)
    const tally = new InexactTally()
    const { scan, sourceId } = yield* scanTranscript(deps, file, tally)
    const header = scan.header
    if (header === null) return yield* notASession(file)
    const warnings = scan.lineWarnings.toArray()
    const inexact = inexactDiagnostic(tally, file)
    return {
      provider: "muse-agents",
      locatorClass: LOCATOR_CLASS,
      sourceId,
      locator: redactLocator(sourceId, file.path),
      status: scan.lastLineUnterminated ? "provisional" : "complete",
      sessions: [{
        sessionId: header.sessionId,
        agentId: header.agentId,
        promptCount: scan.promptCount,
        toolCallCount: scan.toolCallCount,
        editCount: scan.editCount,
        compactionCount: scan.compactionCount,
        orphanOutputCount: scan.orphanOutputCount
      }],
      eventCount: scan.eventCount,
      firstEventAt: scan.firstEventAt,
      lastEventAt: scan.lastEventAt,
      diagnostics: [
        ...warnings.map((w) => ({
          code: PARSE_WARNING,
          message: parseWarningMessage(w),
          details: { kind: w.kind, count: w.count, firstLine: w.firstLine }
        })),
        ...(scan.orphanOutputCount > 0
          ? [{
            code: "ORPHAN_TOOL_OUTPUTS",
            message: `${scan.orphanOutputCount} tool output(s) match no call; transcripts drop them (first at line ${scan.firstOrphanOutputLine ?? "?"}).`,
            details: { count: scan.orphanOutputCount, firstLine: scan.firstOrphanOutputLine }
          }]
          : []),
        ...(inexact !== undefined ? [inexact] : []),
        ...(scan.lastLineUnterminated
          ? [{ code: "UNTERMINATED_LAST_LINE", message: "The last line has no newline; the file may still be written." }]
          : [])
      ],
      provenance: {
        sizeBytes: file.stat.size,
        lineCount: scan.lineCount,
        headerLine: header.lineNumber,
        parseWarnings: warnings,
        parseWarningCount: scan.lineWarnings.total
      }
    }
  })

/** Texts shorter than this are written again rather than copied (a copy costs a mark and its search in the event's JSON). */
const VERBATIM_MIN_CHARS = 128

/**
 * The item field an event's `text` is taken from as it stands (a `message_parts`'s text is joined, a tool
 * call's written). A tool output's `text` is its `output` when that is a string; for any other `output`
 * the field's value is no string token (or `text` is empty, for none), so `verbatimString` finds nothing.
 */
const verbatimKey = (c: Classified): string | undefined => {
  if (c._tag !== "Item") return undefined
  switch (c.entry._tag) {
    case "Message":
      return c.entry.itemType === "message" ? "text" : undefined
    case "Commentary":
      return "text"
    case "Thinking":
      return "thinking"
    case "ToolOutput":
      return "output"
    default:
      return undefined
  }
}

/**
 * The event, carrying under `CANONICAL_TEXT` the line's own bytes of its
 * `text` when they are, byte for byte, `JSON.stringify` of it
 * (`verbatimString`; a line of valid UTF-8 only): `stream` copies them
 * instead of writing the text again (the same bytes).
 */
const withVerbatimText = (event: SessionEvent, c: Classified, text: string, bytes: Buffer): SessionEvent => {
  const value = event.text
  if (value === null || value.length < VERBATIM_MIN_CHARS) return event
  const key = verbatimKey(c)
  if (key === undefined || !isValidUtf8(bytes)) return event
  const found = verbatimString(text, bytes, key, value)
  // Not enumerable: a spread or a deep equality of the event never sees it.
  if (found !== undefined) Object.defineProperty(event, CANONICAL_TEXT, { value: { value, bytes: found } satisfies VerbatimText })
  return event
}

/** The session header of an open source: lines are read from the start until one is found. */
const findHeader = (deps: AgentsDeps, src: OpenSource) =>
  readLines(src, { maxLineBytes: deps.limits.maxRecordBytes }).pipe(
    // Fast path: only lines that mention the record type are parsed.
    Stream.filter((l) => !l.oversized && l.bytes.indexOf("session_header") !== -1),
    Stream.map((l) => ({ c: classifyLine(toRaw(l, l.lineNumber), deps.limits.maxDepth), lineNumber: l.lineNumber })),
    Stream.filter((h): h is { c: Extract<Classified, { _tag: "Header" }>; lineNumber: number } => h.c._tag === "Header"),
    Stream.runHead
  )

/**
 * What the events of a transcript's lines are made with
 * ({@link transcriptLineEvents}): the source and its header's ids, the line
 * number the read's first line follows (`lineBase`), the cursor tokens, and
 * the counters of what is said after the events (`tally`, `zeroed`: present
 * when a caller hears of it).
 */
export interface TranscriptLineContext {
  readonly sourceId: string
  readonly sessionId: string
  readonly agentId: string | null
  readonly lineBase: number
  readonly maxDepth: number
  /** The events carry the line's own bytes of their `text` (`StreamOptions.textBytes`). */
  readonly textBytes: boolean
  readonly cursor: JsonlSource["cursor"]
  readonly tally: InexactTally | undefined
  readonly zeroed: ZeroedLines | undefined
  /** Where each line's parse warnings go, as discovery's scan counts them (`StreamOptions.onLineWarning`); absent: not counted. */
  readonly onLineWarning?: ((kind: string, lineNumber: number) => void) | undefined
  /** The line of the file's first `session_header` (a later one counts `duplicate-header`). */
  readonly headerLine?: number | undefined
}

const NO_KINDS: ReadonlyArray<string> = []

/**
 * The events of some lines of a transcript, in order (one per usable line),
 * counting into `ctx.tally` and `ctx.zeroed`: the per-line work of
 * {@link streamTranscript}, in plain code.
 */
export const transcriptLineEvents = (ctx: TranscriptLineContext, lines: Iterable<Line>): Array<SessionEvent> => {
  const { agentId, cursor, lineBase, maxDepth, onLineWarning, sessionId, sourceId, tally, textBytes, zeroed } = ctx
  const out: Array<SessionEvent> = []
  for (const line of lines) {
    const lineNumber = lineBase + line.lineNumber
    const raw = toRaw(line, lineNumber)
    const c = classifyLine(raw, maxDepth)
    if (onLineWarning !== undefined) {
      // As the scan counts them (`SessionScan.push`); bytes not valid UTF-8 always decode with a U+FFFD in the text.
      const invalidUtf8 = !line.oversized && raw.text.includes("\uFFFD") && !isValidUtf8(line.bytes)
      const duplicate = c._tag === "Header" && lineNumber !== ctx.headerLine
      const kinds = c._tag === "Blank" ? NO_KINDS : lineWarningKinds(c, invalidUtf8, duplicate)
      for (const kind of kinds) onLineWarning(kind, lineNumber)
    }
    if (!yieldsEvent(c)) {
      if (zeroed !== undefined && c._tag === "LineWarning" && c.kind === ZEROED_BYTES) zeroed.add(lineNumber)
      continue
    }
    if (tally !== undefined) countInexact(tally, c, raw.text, lineNumber, line.start)
    const token = cursor(line, lineNumber)
    const event = toSessionEvent(c, { sourceId, sessionId, agentId, lineNumber, offset: line.start, cursor: token })
    if (event !== null) out.push(textBytes ? withVerbatimText(event, c, raw.text, line.bytes) : event)
  }
  return out
}

/** A transcript opened for a stream ({@link openTranscript}). */
export interface OpenTranscript {
  readonly file: AuthorizedFile
  readonly source: JsonlSource
  /** Where the stream's lines start (0, or right after a cursor's line). */
  readonly from: number
  readonly context: TranscriptLineContext
  /** After the events, when the stream ended without failing: what `onWarning` hears (`NUMBER_NOT_EXACT`, zeroed lines). */
  readonly report: () => void
}

/**
 * Open a transcript for {@link streamTranscript} (in the scope): authorize
 * it, find its `session_header`, and check a cursor. Fails with the access
 * errors, `MalformedSource` (no `session_header`) or `InvalidCursor`.
 */
export const openTranscript = (
  deps: AgentsDeps,
  locator: Locator,
  options: StreamOptions = {}
): Effect.Effect<OpenTranscript, IngestError, Scope.Scope> =>
  Effect.gen(function*() {
    const file = yield* authorizeTranscript(deps, locator)
    const sourceId = sourceIdOf(file.path)
    const src = yield* openJsonl(deps.access, file, {
      sourceId,
      binding: TRANSCRIPT_BINDING,
      maxRecordBytes: deps.limits.maxRecordBytes,
      what: "The transcript"
    })
    const header = yield* findHeader(deps, src.open)
    if (Option.isNone(header)) return yield* notASession(file)
    let from = 0
    let lineBase = 0
    const { cursor, onLineWarning, onWarning, textBytes } = options
    if (cursor !== undefined) {
      const at = yield* src.resume(yield* decodeCursor(cursor, sourceId))
      from = at.next
      // Bytes after an unterminated cursor line continue that line: they keep its number.
      lineBase = at.continues ? at.seq - 1 : at.seq
    }
    // Numbers the events do not carry exactly: counted only for a caller that hears of them.
    const tally = onWarning !== undefined ? new InexactTally() : undefined
    // Lines of zeroed bytes (a power loss's zeroed tail or block): said once, after the events.
    const zeroed = onWarning !== undefined ? new ZeroedLines() : undefined
    return {
      file,
      source: src,
      from,
      context: {
        sourceId,
        sessionId: header.value.c.sessionId,
        agentId: header.value.c.agentId,
        headerLine: header.value.lineNumber,
        onLineWarning,
        lineBase,
        maxDepth: deps.limits.maxDepth,
        textBytes: textBytes === true,
        cursor: src.cursor,
        tally,
        zeroed
      },
      report: () => {
        if (tally === undefined || zeroed === undefined || onWarning === undefined) return
        const d = inexactDiagnostic(tally, file)
        if (d !== undefined) onWarning(d)
        const z = zeroed.diagnostic(`the transcript ${file.path}`)
        if (z !== undefined) onWarning(z)
      }
    }
  })

/**
 * `stream` of a transcript: one {@link SessionEvent} per usable line, in file
 * order, read a step at a time. With a cursor, resumes right after the line
 * that carried it by the JSONL kit's one rule (`src/layers/jsonl/resume.ts`):
 * the cursor's line bytes `[ls, off)` must still match its check, and the
 * file's head (first 4 KiB, as far as the cursor) its head binding, else
 * `InvalidCursor` (the file was replaced or rewritten). Fails
 * with the access errors, `MalformedSource` (no `session_header`) or
 * `InvalidCursor`. Of `options`: `cursor`, `onRead` (each read's bytes, see
 * `StreamOptions.onRead`) and `onWarning` (after the events, when the stream
 * ends without failing: the transcript's `NUMBER_NOT_EXACT`, counted over
 * the lines read, if any).
 */
export const streamTranscript = (
  deps: AgentsDeps,
  locator: Locator,
  options: StreamOptions = {}
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrapScoped(
    Effect.map(openTranscript(deps, locator, options), (t) => {
      const events = t.source.lines(t.from, options.onRead).pipe(
        Stream.mapChunks((chunk) => Chunk.unsafeFromArray(transcriptLineEvents(t.context, chunk)))
      )
      return options.onWarning === undefined ? events : Stream.concat(events, Stream.execute(Effect.sync(t.report)))
    })
  )
