/**
 * Muse Code native `session.jsonl` sources (locator class
 * `muse-native-session-log`): authorize the log under an authorized
 * `--muse-root`, read it line by line (a step at a time; a small log read
 * from its start, up to `ImportLimits.wholeReadBytes`, in one read, with the
 * same result), map its three line shapes, and answer inspect / stream with
 * byte-offset cursors.
 *
 * Rules (seed `001_…`, "Native log root"; issue 3):
 * - record envelopes are mapped like export records; retained frames decode
 *   `children[].record_json` and emit those records in order (a child that is
 *   not valid JSON, or not an envelope, is `MALFORMED_SOURCE`); omission
 *   markers are skipped and counted;
 * - fail closed on any malformed line, except a torn (unterminated) last line
 *   in a log with no `session.end` before it: an append in progress, left out,
 *   the log is `provisional`; a log that recorded `session.end` is `complete`;
 * - every line and decoded child is validated under {@link ImportLimitsShape}
 *   (`maxRecordBytes`, `maxDepth`), not the discovery budget;
 * - `sequence`: the item position in the source (records, omission markers
 *   and retained children each take one position; a frame itself none);
 *   `eventId`: `muse-seq-<envelope.sequence>`; `rawReference.offset`: the
 *   line's byte offset (`childIndex` for a retained child);
 * - the cursor resumes by seeking to the event's line (`ls`), verifying the
 *   line's check bound to the event's place (`h`, {@link placeCheck}), the digest of the file's first 4 KiB (`hd`) and the
 *   size; any difference is `INVALID_CURSOR` (replaced or rewritten source).
 *   Line reading, the resume and head checks, shrink detection and cursor
 *   encoding are the JSONL kit's (`src/layers/jsonl/`).
 *
 * @module
 */
import * as nodePath from "node:path"
import { isUtf8 } from "node:buffer"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { cursorIsFor, cursorSourceChanged, type CursorState, peekCursor } from "../../domain/cursor.js"
import {
  type IngestError,
  InvalidCursor,
  MalformedSource,
  ResourceLimitExceeded,
  SourceNotAuthorized,
  SourceNotFound,
  type SourceAccessError
} from "../../domain/errors.js"
import { unreadableOf } from "../../domain/unreadable.js"
import { CANONICAL_PAYLOAD, type CanonicalText, canonicalMemberAndNumbers, type InexactNumbers, inexactNumbers, isRecord, numberNotExactDiagnostic, parseJson, withSourceBytes } from "../../domain/json.js"
import { zeroedRunInBytes } from "../../domain/jsonl-line.js"
import type { Diagnostic, Inspection, ParentLink, SessionEvent } from "../../domain/model.js"
import {
  type ChildBinding,
  childBindingOf,
  classifyNativeLine,
  isSessionEnd,
  SESSION_LOG_NAME
} from "../../domain/muse-code/native.js"
import { RecordNames, repeatedRecordsDiagnostic, sameRecord } from "../../domain/muse-code/record-names.js"
import { isRecordEnvelope, mapRecordEnvelope, type SpawnHandle, TitleWatch, withSequenceDigits } from "../../domain/muse-code/records.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import type { ImportLimitsShape } from "../../services/ImportLimits.js"
import type { SourceRead } from "../../services/SessionSource.js"
import type { AuthorizedFile, DirEntry, OpenSource, SourceAccessShape } from "../../services/SourceAccess.js"
import {
  HAND_ON_BYTES,
  handOnPartStart,
  type JsonlSource,
  type Line,
  type LineBinding,
  openJsonl,
  READ_STEP_BYTES,
  readJsonlWhole,
  readLines,
  readSize,
  type ResumePoint
} from "../jsonl/index.js"
import { raiseLimitRemedy } from "../../domain/limit-remedy.js"

/** The locator class of native logs. */
export const NATIVE_CLASS = "muse-native-session-log" as const


/** The services a native source is read with. */
export interface NativeDeps {
  readonly access: SourceAccessShape
  readonly limits: ImportLimitsShape
  readonly policy: AccessPolicyShape
}

/** An authorized native log: its file, source id, and the session id events fall back to. */
export interface NativeSource {
  readonly file: AuthorizedFile
  readonly sourceId: string
  /** The session folder's name: used only when an envelope has no stream block. */
  readonly fallbackSessionId: string
}

/**
 * What one pass over a log counted (mutable, owned by one pass): outer lines
 * by shape, retained children, the torn tail, `session.end`, bytes read, and
 * the `child_session_bound` joins seen (deduplicated by child session id).
 */
export interface NativeStats {
  lines: number
  recordLines: number
  retainedFrames: number
  retainedChildren: number
  omittedRecords: number
  tornTail: boolean
  sessionEnd: boolean
  bytes: number
  readonly bindings: Array<ChildBinding>
  /** Numbers the events do not carry exactly (`inexactNumbers`), and the first of them with its line's byte offset. */
  inexactNumbers: number
  firstInexact: { readonly text: string; readonly offset: number } | undefined
  /** Records skipped as the same record again under a name (session and `sequence`) already taken (docs/providers.md "Providers"). */
  repeatedRecords: number
}

/** Fresh counters. */
export const newStats = (): NativeStats => ({
  lines: 0,
  recordLines: 0,
  retainedFrames: 0,
  retainedChildren: 0,
  omittedRecords: 0,
  tornTail: false,
  sessionEnd: false,
  bytes: 0,
  bindings: [],
  inexactNumbers: 0,
  firstInexact: undefined,
  repeatedRecords: 0
})

/** Counts the numbers of a line's (or a retained child's) JSON text that the events do not carry exactly. */
const countInexact = (stats: NativeStats, text: string, offset: number): void => addInexact(stats, inexactNumbers(text), offset)

/** Counts numbers found by `inexactNumbers` (or `canonicalMemberAndNumbers`) on the line at `offset`. */
const addInexact = (stats: NativeStats, found: InexactNumbers | undefined, offset: number): void => {
  if (found === undefined) return
  stats.inexactNumbers += found.count
  stats.firstInexact ??= { text: found.first, offset }
}

/**
 * After a record line was mapped (`mapped`: its event is the last of `out`;
 * else nothing was handed on for it): the numbers of the line that the
 * events do not carry exactly are counted into `stats` (as
 * {@link countInexact}), and when the event's `extensions["native.muse"].payload`
 * is the line's own `payload` object and the line's text of it is what
 * `JSON.stringify` gives ({@link canonicalMemberAndNumbers}), that text rides
 * on the event under {@link CANONICAL_PAYLOAD}, so `stream` copies it instead
 * of writing the payload again (the same bytes). Both from one pass of the
 * line when the payload is looked for.
 */
const withCanonicalPayload = (stats: NativeStats, line: Line, text: string, record: unknown, mapped: boolean, out: Array<SessionEvent>): void => {
  const ev = mapped ? out[out.length - 1] as SessionEvent & { [CANONICAL_PAYLOAD]?: CanonicalText } : undefined
  const ns = ev !== undefined ? ev.extensions["native.muse"] : undefined
  if (ev === undefined || !isRecord(record) || !isRecord(record.payload) || !isRecord(ns) || ns.payload !== record.payload) {
    countInexact(stats, text, line.start)
    return
  }
  const scan = canonicalMemberAndNumbers(text, "payload", record.payload)
  addInexact(stats, scan.inexact, line.start)
  // Not enumerable: a spread or a deep equality of the event never sees it. The line is valid UTF-8
  // (checked before it was decoded), so the text's own bytes are the line's bytes at its place.
  if (scan.canonical !== undefined) Object.defineProperty(ev, CANONICAL_PAYLOAD, { value: withSourceBytes(scan.canonical, text, line.bytes) })
}

/** The `NUMBER_NOT_EXACT` diagnostic of a log's pass, or undefined when all its numbers were exact. */
export const inexactDiagnostic = (stats: NativeStats, path: string): Diagnostic | undefined =>
  stats.firstInexact === undefined
    ? undefined
    : numberNotExactDiagnostic(`the native log ${path}`, stats.inexactNumbers, stats.firstInexact.text, `line at byte ${stats.firstInexact.offset}`)

/** The `REPEATED_RECORDS_SKIPPED` diagnostic of a log's pass (as an export's), or undefined when no record was repeated. */
export const repeatedDiagnostic = (stats: NativeStats): Diagnostic | undefined =>
  stats.repeatedRecords === 0 ? undefined : repeatedRecordsDiagnostic(stats.repeatedRecords, "sequence")

/**
 * A line holding a zeroed run at `at` (its offset in the line,
 * `zeroedRunInBytes`: NUL bytes to its end, or 512 in a row):
 * `MALFORMED_SOURCE` saying so. Blocks a crash or a power loss left zeroed,
 * never an append in progress: an unterminated last line with them is not a
 * torn tail (fail closed; the index keeps what it imported,
 * `src/layers/index/emptied.ts`).
 */
const zeroedLine = (where: string, line: Line, at: number) =>
  new MalformedSource({
    message: `${where}: holds NUL bytes (from byte ${line.start + at}): blocks zeroed by a crash or a power loss, not an append in progress.`,
    remediation: "Restore the log from a backup (or let Muse write it again); an index that imported it keeps what it imported.",
    details: { offset: line.start, zeroedFrom: line.start + at }
  })

const malformed = (message: string, details?: Record<string, unknown>) =>
  new MalformedSource({
    message,
    remediation:
      "The native log is not in a shape this build trusts (native import fails closed); export the session with `muse export` and import the export (manual-export).",
    ...(details !== undefined ? { details } : {})
  })

const tooLarge = (what: string, limit: "maxRecordBytes" | "maxDepth", max: number, offset: number) =>
  new ResourceLimitExceeded({
    message: `${what} at byte ${offset} is over the import limit (${limit} ${max}).`,
    remediation: raiseLimitRemedy(limit, "only if you trust the source."),
    details: { limit, max, offset }
  })

/**
 * Authorize a native log: it must lie under an authorized `--muse-root`
 * (AccessPolicy.museRoots). Fails: `SourceNotAuthorized` (no muse root), and
 * the other access errors of `authorizeFile`.
 */
export const authorizeNative = (deps: NativeDeps, path: string): Effect.Effect<NativeSource, SourceAccessError> =>
  Effect.gen(function*() {
    if (deps.policy.museRoots.length === 0) {
      return yield* new SourceNotAuthorized({
        message: `Native Muse Code logs are read only under an authorized sessions root; none was given for ${path}.`,
        remediation: "Pass --muse-root DIR (the folder that holds YYYY/MM/DD/<session-id>/session.jsonl)."
      })
    }
    const file = yield* deps.access.authorizeFile(path, deps.policy.museRoots, "--muse-root DIR")
    return {
      file,
      sourceId: makeSourceId("muse-code", NATIVE_CLASS, file.path),
      fallbackSessionId: nodePath.basename(nodePath.dirname(file.path))
    }
  })

const invalidCursor = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass a cursor printed by `stream` for this same source, or stream without --cursor to start over."
  })

/**
 * How native cursors bind their line: the check covers the line without its
 * `\n`; a torn last line is never handed on, so no cursor follows one; every
 * token has a head binding (`hd`, or `x.hd` in `c1` tokens of an earlier build).
 * Besides its place a cursor carries in `x` whether `session.end` was seen
 * (`end`) and the parent of a subagent stream (`parent`).
 */
const NATIVE_BINDING: LineBinding = { checkNewline: false, unterminated: false, headRequired: true }

/** The parent join a subagent stream's cursor carries (`x.parent`). */
const parentOf = (state: CursorState): { readonly src: string; readonly child: string } | undefined => {
  const x = isRecord(state.x) ? state.x : {}
  return isRecord(x.parent) && typeof x.parent.src === "string" && typeof x.parent.child === "string"
    ? { src: x.parent.src, child: x.parent.child }
    : undefined
}

/** Options of one pass over a log. */
export interface PassOptions {
  /** Resume right after the cursor's event (already checked to belong to this source). */
  readonly resume?: CursorState | undefined
  /** Counters of this pass. */
  readonly stats: NativeStats
  /** Extra provenance merged into every event's `extensions["native.muse"]` (subagent streams: `parent`). */
  readonly provenance?: Record<string, unknown> | undefined
  /**
   * Fail `MalformedSource` on a `child_session_bound` record whose
   * `child_session_id` is not a plain folder name (set when nested logs will
   * be opened by that name); otherwise such a binding is ignored.
   */
  readonly strictBindings?: boolean | undefined
  /** Parent join carried in every cursor of a subagent stream. */
  readonly parentRef?: { readonly src: string; readonly child: string } | undefined
  /** The typed parent link of every event of a subagent stream. */
  readonly parentLink?: ParentLink | undefined
  /** Receives each read of the log (see `StreamOptions.onRead`). */
  readonly onRead?: ((read: SourceRead) => void) | undefined
  /**
   * Only the lines that can bind a child session (they name
   * `child_session_bound`) are parsed; the others are passed over unchecked.
   * For a pass that only collects `stats.bindings`.
   */
  readonly bindingsOnly?: boolean | undefined
  /**
   * Given each record of the log's own session as it is mapped, until it has the title (`StreamOptions.onTitle`); a
   * resumed pass first reads the lines up to its cursor's for it ({@link titleBefore}).
   */
  readonly title?: TitleWatch | undefined
}

const NO_SPAWNS: ReadonlyMap<string, SpawnHandle> = new Map()
/** What every line that can bind a child session holds (also JSON-encoded inside a retained frame's child). */
const BINDING_NEEDLE = Buffer.from("child_session_bound")
/** The provenance of a record line (copied into each event's, never changed). */
const RECORD_LINE: Record<string, unknown> = { lineShape: "record" }

/**
 * What a pass must look up in the log before it can map a line (rare: only
 * when a record's name, its session and `sequence`, may be taken already);
 * the line is then processed again ({@link LineProcessor.process}).
 * - `places`: the first place of every name taken before the line: each line
 *   that starts before `upTo` ({@link LineProcessor.indexLine}), and of the
 *   line at `upTo` its retained children before `children` (a resumed frame);
 * - `first`: the first record of session `sessionId`'s `sequence`, on the line
 *   at byte `offset` ({@link LineProcessor.firstOn}).
 */
type Lookup =
  | { readonly _tag: "places"; readonly upTo: number; readonly children: number }
  | { readonly _tag: "first"; readonly sessionId: string; readonly sequence: number; readonly offset: number }

const isLookup = (r: IngestError | Lookup): r is Lookup => r._tag === "places" || r._tag === "first"

/** What a pass makes of each line of a log (see {@link lineProcessor}). */
interface LineProcessor {
  /**
   * Map one line (in file order) into `out`: the error that ends the pass, if
   * any, or a {@link Lookup} to do first (nothing of the line was mapped; do
   * it, then process the same line again).
   */
  readonly process: (line: Line, out: Array<SessionEvent>) => IngestError | Lookup | undefined
  /** Whether `session.end` was seen so far (or before the resume point). */
  readonly sessionEnd: () => boolean
  /** A `places` lookup: start (every name forgotten, places kept from now on), each line in file order, end. */
  readonly beginPlaces: () => void
  readonly indexLine: (line: Line, children?: number) => void
  readonly endPlaces: () => void
  /** A `first` lookup answered with the line at its offset (`undefined`: not there any more). */
  readonly firstOn: (lookup: Extract<Lookup, { _tag: "first" }>, line: Line | undefined) => void
}

/** A raw record's `sequence` when it is a non-negative safe integer (what an envelope must have), else undefined. */
const sequenceOf = (raw: unknown): number | undefined => {
  if (!isRecord(raw)) return undefined
  const s = raw.sequence
  return typeof s === "number" && Number.isSafeInteger(s) && s >= 0 ? s : undefined
}

/** A raw record's session, as its event's: its stream block's id, else the log's. */
const sessionOf = (raw: unknown, fallback: string): string => {
  const stream = isRecord(raw) ? raw.stream : undefined
  return isRecord(stream) && typeof stream.id === "string" ? stream.id : fallback
}

const nameKey = (sessionId: string, sequence: number): string => `${sessionId}\u0000${sequence}`

/**
 * The records of a line read again for a lookup: its record, or its retained
 * children's (the first `children` of them, when given) with their index;
 * what does not parse is left out (such a line ended the pass that mapped it).
 */
const recordsOn = (line: Line, maxDepth: number, children?: number): Array<{ readonly value: unknown; readonly child: number | undefined }> => {
  if (!line.terminated || line.oversized || !isUtf8(line.bytes)) return []
  const parsed = parseJson(line.bytes.toString("utf8"), maxDepth)
  if (parsed._tag === "error") return []
  const shape = classifyNativeLine(parsed.value)
  if (Either.isLeft(shape)) return []
  if (shape.right._tag === "record") return [{ value: shape.right.value, child: undefined }]
  if (shape.right._tag === "omission") return []
  const kids = shape.right.frame.children
  const out: Array<{ readonly value: unknown; readonly child: number | undefined }> = []
  for (let i = 0; i < Math.min(kids.length, children ?? kids.length); i++) {
    const c = parseJson(kids[i].record_json, maxDepth)
    if (c._tag !== "error") out.push({ value: c.value, child: i })
  }
  return out
}

/** A first record looked up and not found (the log changed under the pass): never the same record. */
const NOT_FOUND: unique symbol = Symbol("not found")

/**
 * The per-line work of one pass over a log, in plain code, shared by the
 * streamed pass and the whole-file pass of a small log: classify, validate
 * under the import limits, map, count into `options.stats`, and print each
 * event's cursor with `cursor` (the open source's). `at`: the checked resume
 * point, when the pass resumes (its first line must be the cursor's).
 *
 * Names (docs/providers.md "Providers", as for exports): a session names each record by
 * its `sequence`; the same record again is skipped and counted
 * (`stats.repeatedRecords`), another record under a taken name is
 * `MalformedSource` naming both places. What the pass keeps for it is a bit
 * per name ({@link RecordNames}); the first record of a name taken again is
 * read again from the log (a {@link Lookup}), after a first pass over the
 * lines before (the places of the names, kept from then on: 8 bytes a
 * name). A resumed pass has not seen the names before its resume point: the
 * cursor says the largest sequence before it (`x.ms`, written only when that
 * is not its own record's); a record at or below that one has the names
 * before looked up first. (A cursor of an earlier build has no `x.ms`: its own
 * record's sequence is taken as the largest.)
 */
const lineProcessor = (
  deps: NativeDeps,
  src: NativeSource,
  options: PassOptions,
  cursor: JsonlSource["cursor"],
  at: ResumePoint | undefined
): LineProcessor => {
  const stats = options.stats
  const resume = options.resume
  let sessionEnd = resume !== undefined && isRecord(resume.x) && resume.x.end === true
  let nextSeq = at !== undefined ? at.seq + 1 : 0
  let first = at !== undefined
  const maxDepth = deps.limits.maxDepth

  /** Names are checked (not in a pass that only collects bindings). */
  const checking = options.bindingsOnly !== true
  const names = new RecordNames()
  /** The largest `sequence` of the log's records so far (this pass's, and before its resume point). */
  let maxSequence = -1
  /**
   * A resumed pass: the largest `sequence` before its resume point, until the
   * names there were looked up (`places`); else -1.
   */
  let before = -1
  let resumeNoted = false
  const resumeMs = resume !== undefined && isRecord(resume.x) && typeof resume.x.ms === "number" ? resume.x.ms : undefined
  /** The first records of the names the current line takes again (by {@link nameKey}); emptied after each line. */
  const firsts = new Map<string, { readonly value: unknown; readonly offset: number; readonly child: number | undefined }>()

  /** The resume point is noted once: the largest sequence before it (the cursor's `x.ms`, else its own record's). */
  const noteResume = (own: unknown): void => {
    if (resumeNoted) return
    resumeNoted = true
    before = resumeMs ?? sequenceOf(own) ?? -1
    maxSequence = before
  }

  const cursorOf = (seq: number, line: Line, sub: number | undefined, ms: number | undefined): string =>
    cursor(
      line,
      seq,
      sub,
      sessionEnd || options.parentRef !== undefined || ms !== undefined
        ? {
          ...(sessionEnd ? { end: true } : {}),
          ...(ms !== undefined ? { ms } : {}),
          ...(options.parentRef !== undefined ? { parent: options.parentRef } : {})
        }
        : undefined
    )

  /** The lookup a record's name needs before the line is mapped, if any (`children`: a `places` lookup's). */
  const lookupOf = (line: Line, raw: unknown, children: number): Lookup | undefined => {
    const sequence = sequenceOf(raw)
    if (sequence === undefined) return undefined
    if (sequence <= before) return { _tag: "places", upTo: line.start, children }
    const sessionId = sessionOf(raw, src.fallbackSessionId)
    if (!names.has(sessionId, sequence) || firsts.has(nameKey(sessionId, sequence))) return undefined
    if (!names.keepsPlaces) return { _tag: "places", upTo: line.start, children }
    return { _tag: "first", sessionId, sequence, offset: names.placeOf(sessionId, sequence)! }
  }

  const mapOne = (
    raw: unknown,
    line: Line,
    sub: number | undefined,
    provenance: Record<string, unknown>,
    where: string,
    out: Array<SessionEvent>
  ): IngestError | undefined => {
    const seq = nextSeq++
    if (isSessionEnd(raw)) sessionEnd = true
    const sequence = sequenceOf(raw)
    let ms: number | undefined
    if (sequence !== undefined) {
      if (sequence > maxSequence) maxSequence = sequence
      else if (sequence < maxSequence) ms = maxSequence
    }
    // The cursor is computed after `session.end` is noted, so resuming after the end knows it.
    const mapped = mapRecordEnvelope(raw, {
      sourceId: src.sourceId,
      locatorClass: NATIVE_CLASS,
      fallbackSessionId: src.fallbackSessionId,
      sequence: seq,
      cursor: cursorOf(seq, line, sub, ms),
      offset: line.start,
      // Undefined for a line's own record (read as absent): one fixed literal per event, no spread of a temporary object.
      childIndex: sub,
      spawns: NO_SPAWNS,
      provenance: options.provenance === undefined ? provenance : { ...provenance, ...options.provenance },
      parent: options.parentLink
    }, where)
    // A sequence beyond 2^53 - 1 is told with the digits the line writes (an error path: the line decoded again).
    if (Either.isLeft(mapped)) return withSequenceDigits(mapped.left, line.bytes.toString("utf8"))
    const ev = mapped.right
    if (checking && sequence !== undefined) {
      if (names.has(ev.sessionId, sequence)) {
        // Taken: `lookupOf` had its first record found (a lookup, or an earlier child of this line).
        const f = firsts.get(nameKey(ev.sessionId, sequence))
        if (f !== undefined && f.value !== NOT_FOUND && sameRecord(f.value, raw)) {
          stats.repeatedRecords++
          return undefined
        }
        const firstWhere = f === undefined ? "an earlier record" : `the line at byte ${f.offset}${f.child !== undefined ? `, retained child ${f.child}` : ""}`
        return malformed(
          `${where}: sequence ${sequence} of session ${ev.sessionId} is already ${firstWhere}'s, with other content; a log names each record of a session by its sequence once.`,
          {
            offset: line.start,
            ...(sub !== undefined ? { childIndex: sub } : {}),
            ...(f !== undefined ? { firstOffset: f.offset, ...(f.child !== undefined ? { firstChildIndex: f.child } : {}) } : {})
          }
        )
      }
      names.add(ev.sessionId, sequence, line.start)
    }
    if (isRecord(raw)) {
      const b = childBindingOf(raw, ev.sessionId, ev.eventId)
      if (Either.isLeft(b)) {
        if (options.strictBindings === true) return malformed(`${where}: ${b.left}.`, { offset: line.start })
      } else if (b.right !== undefined && !stats.bindings.some((x) => x.childSessionId === b.right!.childSessionId)) {
        stats.bindings.push(b.right)
      }
    }
    out.push(ev)
    const title = options.title
    if (title !== undefined && !title.done) title.see((raw as RecordEnvelopeFields).payload_type, (raw as RecordEnvelopeFields).payload, ev.sessionId)
    return undefined
  }

  const processLine = (line: Line, out: Array<SessionEvent>): IngestError | Lookup | undefined => {
    const where = `line at byte ${line.start}`
    const resumeLine = first
    first = false
    if (resumeLine && line.start !== at!.ls) return cursorSourceChanged("the cursor's line moved")
    if (line.oversized) return tooLarge("A line", "maxRecordBytes", deps.limits.maxRecordBytes, line.start)
    if (!line.terminated) {
      // Only the last line can be unterminated (readLines): an append in progress, unless blocks were zeroed.
      const zeroed = zeroedRunInBytes(line.bytes)
      if (zeroed >= 0) return zeroedLine(where, line, zeroed)
      if (sessionEnd) return malformed(`${where}: an unterminated line follows session.end.`, { offset: line.start })
      stats.tornTail = true
      return undefined
    }
    stats.bytes = line.end
    if (resumeLine && at!.sub === undefined) {
      // The cursor's own record line: only its sequence is wanted (and only when the cursor does not say the largest).
      if (checking && !resumeNoted) noteResume(resumeMs !== undefined ? undefined : recordsOn(line, maxDepth)[0]?.value)
      return undefined
    }
    if (options.bindingsOnly === true && line.bytes.indexOf(BINDING_NEEDLE) === -1) return undefined
    if (!isUtf8(line.bytes)) return malformed(`${where}: not valid UTF-8.`, { offset: line.start })
    const text = line.bytes.toString("utf8")
    const parsed = parseJson(text, maxDepth)
    if (parsed._tag === "error") {
      return parsed.problem._tag === "depth"
        ? tooLarge("A line", "maxDepth", maxDepth, line.start)
        : zeroedRunInBytes(line.bytes) >= 0
        ? zeroedLine(where, line, zeroedRunInBytes(line.bytes))
        : malformed(`${where}: not valid JSON (${parsed.problem.message}).`, { offset: line.start })
    }
    const shape = classifyNativeLine(parsed.value)
    if (Either.isLeft(shape)) return malformed(`${where}: ${shape.left}.`, { offset: line.start })
    switch (shape.right._tag) {
      case "omission":
        countInexact(stats, text, line.start)
        if (!resumeLine) stats.lines++
        stats.omittedRecords++
        nextSeq++
        return undefined
      case "record": {
        const record = shape.right.value
        if (checking) {
          const lookup = lookupOf(line, record, 0)
          if (lookup !== undefined) {
            first = resumeLine
            return lookup
          }
        }
        if (!resumeLine) stats.lines++
        stats.recordLines++
        const had = out.length
        const err = mapOne(record, line, undefined, RECORD_LINE, where, out)
        // The line's numbers are counted here (with its payload's text, in one pass), whether it was mapped or not.
        withCanonicalPayload(stats, line, text, record, err === undefined && out.length > had, out)
        return err
      }
      case "frame": {
        const f = shape.right.frame
        const from = resumeLine ? at!.sub! + 1 : 0
        if (resumeLine && at!.sub! >= f.children.length) return cursorSourceChanged("the cursor's frame differs")
        // Its children are parsed first (up to one that fails), so that a lookup their names need comes before any is mapped.
        const kids: Array<unknown> = []
        let failed: IngestError | undefined
        for (let i = from; i < f.children.length; i++) {
          const json = f.children[i].record_json
          if (Buffer.byteLength(json, "utf8") > deps.limits.maxRecordBytes) {
            failed = tooLarge(`Retained child ${i} of the line`, "maxRecordBytes", deps.limits.maxRecordBytes, line.start)
            break
          }
          const c = parseJson(json, maxDepth)
          if (c._tag === "error") {
            failed = c.problem._tag === "depth"
              ? tooLarge(`Retained child ${i} of the line`, "maxDepth", maxDepth, line.start)
              : malformed(`${where}, retained child ${i}: record_json is not valid JSON (${c.problem.message}).`, {
                offset: line.start,
                childIndex: i
              })
            break
          }
          kids.push(c.value)
        }
        if (checking) {
          if (resumeLine && !resumeNoted) {
            const own = resumeMs !== undefined ? undefined : parseJson(f.children[at!.sub!].record_json, maxDepth)
            noteResume(own !== undefined && own._tag !== "error" ? own.value : undefined)
          }
          for (let k = 0; k < kids.length; k++) {
            const lookup = lookupOf(line, kids[k], from)
            if (lookup !== undefined) {
              first = resumeLine
              return lookup
            }
            // Two children of this line under one new name: the first is the earlier child.
            const sequence = sequenceOf(kids[k])
            if (k === 0 || sequence === undefined) continue
            const sessionId = sessionOf(kids[k], src.fallbackSessionId)
            if (names.has(sessionId, sequence)) continue
            for (let j = 0; j < k; j++) {
              if (sequenceOf(kids[j]) === sequence && sessionOf(kids[j], src.fallbackSessionId) === sessionId) {
                firsts.set(nameKey(sessionId, sequence), { value: kids[j], offset: line.start, child: from + j })
                break
              }
            }
          }
        }
        countInexact(stats, text, line.start)
        if (!resumeLine) {
          stats.lines++
          stats.retainedFrames++
        }
        const frame = {
          retainedFrame: f.retained_frame,
          transactionId: f.transaction_id ?? null,
          frameSchemaVersion: f.frame_schema_version ?? null,
          outerLogOrdinal: f.outer_log_ordinal ?? null,
          contentSha256: f.content_sha256 ?? null,
          childCount: f.children.length
        }
        for (let k = 0; k < kids.length; k++) {
          const i = from + k
          stats.retainedChildren++
          countInexact(stats, f.children[i].record_json, line.start)
          const err = mapOne(kids[k], line, i, { lineShape: "retained-child", frame: { ...frame, childIndex: i } }, `${where}, retained child ${i}`, out)
          if (err !== undefined) return err
        }
        return failed
      }
    }
  }

  return {
    process: (line, out) => {
      const r = processLine(line, out)
      if (firsts.size > 0 && (r === undefined || !isLookup(r))) firsts.clear()
      return r
    },
    sessionEnd: () => sessionEnd,
    beginPlaces: () => names.keepPlaces(),
    indexLine: (line, children) => {
      for (const r of recordsOn(line, maxDepth, children)) {
        const sequence = sequenceOf(r.value)
        if (sequence === undefined) continue
        const sessionId = sessionOf(r.value, src.fallbackSessionId)
        if (!names.has(sessionId, sequence)) names.add(sessionId, sequence, line.start)
      }
    },
    endPlaces: () => {
      before = -1
    },
    firstOn: (lookup, line) => {
      const key = nameKey(lookup.sessionId, lookup.sequence)
      const found = line === undefined || line.start !== lookup.offset
        ? undefined
        : recordsOn(line, maxDepth).find((r) =>
          sequenceOf(r.value) === lookup.sequence && sessionOf(r.value, src.fallbackSessionId) === lookup.sessionId
        )
      firsts.set(key, found !== undefined
        ? { value: found.value, offset: lookup.offset, child: found.child }
        : { value: NOT_FOUND, offset: lookup.offset, child: undefined })
    }
  }
}

/** How a native log is opened as a JSONL source. */
const jsonlOptions = (deps: NativeDeps, src: NativeSource) => ({
  sourceId: src.sourceId,
  binding: NATIVE_BINDING,
  maxRecordBytes: deps.limits.maxRecordBytes,
  what: "The native log"
})

/** The events of a small log read whole, and the error that ended its pass, if any. */
export interface WholePass {
  readonly events: ReadonlyArray<SessionEvent>
  readonly error: IngestError | undefined
}

/**
 * The pass of {@link nativeEvents} from the start of a small log, in one
 * effect: the log read whole in one read (`readJsonlWhole`: at most
 * `ImportLimits.wholeReadBytes`), its lines mapped in a plain loop, no
 * stream. `undefined` when the log is not small, or changed size while it
 * was opened: then it is streamed as any other. On an error, `events` holds
 * what the streamed pass hands on before it fails: the events of the lines
 * of the read steps before the failing line's step (`readLines`'s steps).
 * Fails only with access errors (the open and the read), and
 * `MalformedSource` for a log in UTF-16 or UTF-32, not UTF-8 (`readJsonlWhole`).
 */
export const nativeWhole = (
  deps: NativeDeps,
  src: NativeSource,
  options: PassOptions
): Effect.Effect<WholePass | undefined, SourceAccessError | MalformedSource> => {
  const max = deps.limits.wholeReadBytes ?? 0
  if (options.resume !== undefined || options.bindingsOnly === true || src.file.stat.size > max) {
    return Effect.succeed(undefined)
  }
  return Effect.map(readJsonlWhole(deps.access, src.file, jsonlOptions(deps, src), max), (whole) => {
    if (whole === undefined) return undefined
    const stats = options.stats
    if (whole.bytes.length > 0) {
      options.onRead?.({ sourceId: src.sourceId, path: src.file.path, offset: 0, bytes: whole.bytes })
    }
    const p = lineProcessor(deps, src, options, whole.cursor, undefined)
    const out: Array<SessionEvent> = []
    let error: IngestError | undefined
    for (let i = 0; i < whole.lines.length; i++) {
      const line = whole.lines[i]
      let r = p.process(line, out)
      while (r !== undefined && isLookup(r)) {
        lookUpWhole(p, whole.lines, r)
        r = p.process(line, out)
      }
      error = r
      if (error !== undefined) {
        // The streamed pass fails a whole part of a read step (`readLines` hands a step's lines on in parts):
        // it hands on only the events of the parts before this line's. The step's lines are those that ended
        // past its start; its parts are cut from them as `handOnParts` cuts them.
        const stepStart = stepStartOf(line.end - 1, src.file.stat.size)
        let j = i
        while (j > 0 && whole.lines[j - 1].end > stepStart) j--
        out.length = eventsBefore(out, whole.lines[handOnPartStart(whole.lines, j, i, HAND_ON_BYTES)])
        break
      }
    }
    stats.sessionEnd = p.sessionEnd()
    return { events: out, error }
  })
}

/** A {@link Lookup} done in the lines of a log read whole (in memory). */
const lookUpWhole = (p: LineProcessor, lines: ReadonlyArray<Line>, lookup: Lookup): void => {
  if (lookup._tag === "first") {
    let lo = 0, hi = lines.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (lines[mid].start < lookup.offset) lo = mid + 1
      else hi = mid
    }
    p.firstOn(lookup, lines[lo])
    return
  }
  p.beginPlaces()
  for (const line of lines) {
    if (line.start < lookup.upTo) p.indexLine(line)
    else {
      if (line.start === lookup.upTo && lookup.children > 0) p.indexLine(line, lookup.children)
      break
    }
  }
  p.endPlaces()
}

/**
 * A {@link Lookup} done by reading the log again (`open`, the pass's own
 * descriptor): the line at an offset, or the lines before one (reads not
 * reported to `onRead`: the pass's own reads are).
 */
const lookUpStreamed = (
  p: LineProcessor,
  open: OpenSource,
  maxLineBytes: number,
  lookup: Lookup
): Effect.Effect<void, SourceAccessError | MalformedSource> => {
  if (lookup._tag === "first") {
    return Effect.map(
      Stream.runHead(readLines(open, { from: lookup.offset, maxLineBytes })),
      (line) => p.firstOn(lookup, Option.getOrUndefined(line))
    )
  }
  return Effect.suspend(() => {
    p.beginPlaces()
    return readLines(open, { from: 0, maxLineBytes }).pipe(
      Stream.takeWhile((line) => line.start < lookup.upTo || (line.start === lookup.upTo && lookup.children > 0)),
      Stream.runForEach((line) => Effect.sync(() => p.indexLine(line, line.start === lookup.upTo ? lookup.children : undefined))),
      Effect.ensuring(Effect.sync(() => p.endPlaces()))
    )
  })
}

/** The two fields of a mapped record a {@link TitleWatch} reads. */
type RecordEnvelopeFields = { readonly payload_type: unknown; readonly payload?: unknown }

/** What every line that can hold a person's prompt holds (`personPromptOf`; also JSON-encoded in a retained child). */
const PROMPT_NEEDLE = Buffer.from("turn_submit")

/**
 * The title of a log whose pass resumes after a cursor (`StreamOptions.onTitle`: the session's first prompt may lie
 * before it): the log's records from its start through the line at byte `upTo` (the cursor's; undefined: to the end)
 * given to `watch` until it has the title, by the pass's own descriptor. Once the own session is known (the first
 * record's), only the lines that can hold a prompt are parsed. The reads are not reported to `onRead` (the pass's own
 * are); a line that does not parse is passed over (the pass that imported it read it).
 */
const titleBefore = (
  open: OpenSource,
  src: NativeSource,
  maxDepth: number,
  maxLineBytes: number,
  upTo: number | undefined,
  watch: TitleWatch
): Effect.Effect<void, SourceAccessError | MalformedSource> =>
  readLines(open, { from: 0, maxLineBytes }).pipe(
    Stream.takeWhile((line) => !watch.done && (upTo === undefined || line.start <= upTo)),
    Stream.runForEach((line) =>
      Effect.sync(() => {
        if (watch.session !== undefined && line.bytes.indexOf(PROMPT_NEEDLE) === -1) return
        for (const r of recordsOn(line, maxDepth)) {
          if (isRecordEnvelope(r.value)) watch.see(r.value.payload_type, r.value.payload, sessionOf(r.value, src.fallbackSessionId))
        }
      })
    )
  )

/** The streamed read step (`readLines` from 0, default steps) that holds byte `at`: the offset it starts at. */
const stepStartOf = (at: number, sizeAtAuthorize: number): number => {
  const firstStep = readSize(0, 0, READ_STEP_BYTES, sizeAtAuthorize)
  return at < firstStep ? 0 : firstStep + Math.floor((at - firstStep) / READ_STEP_BYTES) * READ_STEP_BYTES
}

/** How many of `out` came from lines before `line` (events carry their line's start as `rawReference.offset`). */
const eventsBefore = (out: ReadonlyArray<SessionEvent>, line: Line): number => {
  let k = out.length
  while (k > 0 && (out[k - 1].rawReference.offset ?? -1) >= line.start) k--
  return k
}

/** The events of a {@link WholePass} as the streamed pass hands them on (then its error). */
const wholeStream = (pass: WholePass): Stream.Stream<SessionEvent, IngestError> => {
  const events = Stream.fromChunk(Chunk.unsafeFromArray(pass.events as Array<SessionEvent>))
  return pass.error === undefined ? events : Stream.concat(events, Stream.fail(pass.error))
}

/**
 * One pass over a native log: its events in source order (from the start, or
 * right after `resume`'s event), validating every line under the import
 * limits. A small log read from its start is read whole ({@link nativeWhole});
 * any other is read a step at a time through `readLines` and never held.
 * Fails: access errors, `MalformedSource`, `ResourceLimitExceeded`,
 * `InvalidCursor` (the cursor's line, head or size no longer match).
 */
export const nativeEvents = (
  deps: NativeDeps,
  src: NativeSource,
  options: PassOptions
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrap(
    Effect.map(nativeWhole(deps, src, options), (whole) =>
      whole !== undefined ? wholeStream(whole) : nativeEventsStreamed(deps, src, options))
  )

/** {@link nativeEvents} a read step at a time (bounded memory). */
export const nativeEventsStreamed = (
  deps: NativeDeps,
  src: NativeSource,
  options: PassOptions
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      const jsonl = yield* openJsonl(deps.access, src.file, jsonlOptions(deps, src))
      const stats = options.stats
      const resume = options.resume
      let at: ResumePoint | undefined
      if (resume !== undefined) at = yield* jsonl.resume(resume)
      if (at !== undefined && options.title !== undefined && !options.title.done) {
        yield* titleBefore(jsonl.open, src, deps.limits.maxDepth, deps.limits.maxRecordBytes, at.ls, options.title)
      }
      const p = lineProcessor(deps, src, options, jsonl.cursor, at)
      stats.sessionEnd = p.sessionEnd()

      // The cursor's own line is read again: a retained frame's later children follow its cursor.
      return jsonl.lines(at?.ls ?? 0, options.onRead).pipe(
        Stream.mapChunksEffect((chunk) =>
          Effect.gen(function*() {
            const out: Array<SessionEvent> = []
            for (const line of chunk) {
              let r = p.process(line, out)
              while (r !== undefined && isLookup(r)) {
                yield* lookUpStreamed(p, jsonl.open, deps.limits.maxRecordBytes, r)
                r = p.process(line, out)
              }
              if (r !== undefined) return yield* Effect.fail(r)
            }
            stats.sessionEnd = p.sessionEnd()
            return Chunk.unsafeFromArray(out)
          })
        ),
        Stream.ensuring(Effect.sync(() => {
          stats.sessionEnd = p.sessionEnd()
        }))
      )
    })
  )

const firstLast = (acc: { first: string | null; last: string | null }, t: string | null) => {
  if (t === null) return
  if (acc.first === null || t < acc.first) acc.first = t
  if (acc.last === null || t > acc.last) acc.last = t
}

/**
 * `inspect` of a native log: validates the whole history under the import
 * limits and describes it. `complete` when it recorded `session.end`, else
 * `provisional`; diagnostics count omitted records, retained frames and
 * children, and say when a torn last line was left out.
 */
export const inspectNative = (deps: NativeDeps, path: string): Effect.Effect<Inspection, IngestError> =>
  Effect.gen(function*() {
    const src = yield* authorizeNative(deps, path)
    const stats = newStats()
    const sessions = new Map<string, number>()
    const times = { first: null as string | null, last: null as string | null }
    let count = 0
    yield* Stream.runForEachChunk(nativeEvents(deps, src, { stats }), (chunk) =>
      Effect.sync(() => {
        for (const e of chunk) {
          count++
          sessions.set(e.sessionId, (sessions.get(e.sessionId) ?? 0) + 1)
          firstLast(times, e.occurredAt)
        }
      }))
    const diagnostics: Array<Inspection["diagnostics"][number]> = []
    if (stats.omittedRecords > 0) {
      diagnostics.push({
        code: "OMITTED_RECORDS_SKIPPED",
        message: `${stats.omittedRecords} omission marker(s) (omitted_live_only) skipped; no records were fabricated for them.`,
        details: { count: stats.omittedRecords }
      })
    }
    if (stats.retainedFrames > 0) {
      diagnostics.push({
        code: "RETAINED_FRAMES_DECODED",
        message: `${stats.retainedFrames} retained frame(s) decoded into ${stats.retainedChildren} child record(s).`,
        details: { frames: stats.retainedFrames, children: stats.retainedChildren }
      })
    }
    const inexact = inexactDiagnostic(stats, src.file.path)
    if (inexact !== undefined) diagnostics.push(inexact)
    const repeated = repeatedDiagnostic(stats)
    if (repeated !== undefined) diagnostics.push(repeated)
    if (stats.tornTail) {
      diagnostics.push({
        code: "TORN_TAIL_LEFT_OUT",
        message: "The last line has no newline and the log has no session.end: an append in progress, left out; the log is provisional."
      })
    }
    if (!stats.sessionEnd) {
      diagnostics.push({
        code: "NO_SESSION_END",
        message: "The log recorded no session.end; it may still grow, so it inspects as provisional."
      })
    }
    return {
      provider: "muse-code",
      locatorClass: NATIVE_CLASS,
      sourceId: src.sourceId,
      locator: redactLocator(src.sourceId, src.file.path),
      status: stats.sessionEnd ? "complete" : "provisional",
      sessions: [...sessions].map(([sessionId, eventCount]) => ({ sessionId, eventCount })),
      eventCount: count,
      firstEventAt: times.first,
      lastEventAt: times.last,
      diagnostics,
      provenance: {
        lines: stats.lines,
        recordLines: stats.recordLines,
        retainedFrames: stats.retainedFrames,
        retainedChildren: stats.retainedChildren,
        omittedRecords: stats.omittedRecords,
        ...(stats.repeatedRecords > 0 ? { repeatedRecords: stats.repeatedRecords } : {}),
        tornTail: stats.tornTail,
        sessionEnd: stats.sessionEnd,
        bytes: stats.bytes,
        childSessions: stats.bindings.map((b) => ({
          childSessionId: b.childSessionId,
          subagentId: b.subagentId,
          parentSessionId: b.parentSessionId
        }))
      }
    }
  })

/**
 * The nested logs beside a native log: every `subagent/<name>/session.jsonl`
 * under its folder, sorted (bound or not; only bound ones are streamed).
 * Metadata only: the folder is listed and nothing is read. None when the
 * folder cannot be listed. Used for the importer's fingerprint.
 */
export const nestedLogPaths = (access: SourceAccessShape, logPath: string): Effect.Effect<ReadonlyArray<string>, SourceAccessError> => {
  const dir = nestedLogsFolderOf(logPath)
  // Most logs have no nested logs: a probe that answers "none" without listing.
  return access.probe(dir).pipe(
    Effect.flatMap((found) => nestedLogPathsProbed(access, dir, found)),
    Effect.catchAll(unlistedNested)
  )
}

/** A nested logs' folder that cannot be looked at: unreadable fails (not an empty one: the importer must not take its logs as gone); else none. */
const unlistedNested = (e: SourceAccessError): Effect.Effect<ReadonlyArray<string>, SourceAccessError> =>
  unreadableOf(e) !== undefined ? Effect.fail(e) : Effect.succeed(NO_PATHS)

/** The folder of a native log's nested logs: `<its folder>/subagent`. */
export const nestedLogsFolderOf = (logPath: string): string => nodePath.join(nodePath.dirname(logPath), "subagent")

/**
 * {@link nestedLogPaths} once its folder `dir` ({@link nestedLogsFolderOf})
 * has been probed (`found`, what `SourceAccess.probe` answered): none when
 * nothing or no folder is there, without I/O; else the folder listed. Fails
 * as {@link nestedLogPaths} does. For a caller that probes many folders in
 * one pass (native discovery, for the logs it selects unchanged).
 */
export const nestedLogPathsProbed = (
  access: SourceAccessShape,
  dir: string,
  found: Option.Option<{ readonly kind: DirEntry["kind"] }>
): Effect.Effect<ReadonlyArray<string>, SourceAccessError> =>
  Option.isSome(found) && found.value.kind === "directory"
    ? Effect.flatMap(access.listDirectory(dir), (entries) =>
      Effect.map(
        Effect.filter(
          entries.filter((d) => d.kind === "directory").map((d) => nodePath.join(dir, d.name, SESSION_LOG_NAME)),
          (p) => Effect.map(access.probe(p), (o) => Option.isSome(o) && o.value.kind === "file")
        ),
        (paths) => [...paths].sort()
      )).pipe(Effect.catchAll(unlistedNested))
    : Effect.succeed(NO_PATHS)

/** No nested logs (shared: most logs have none). */
const NO_PATHS: ReadonlyArray<string> = Object.freeze([])

/** The nested log of a bound child: `<parent folder>/subagent/<child_session_id>/session.jsonl`. */
export const childLogPath = (parent: NativeSource, childSessionId: string): string =>
  nodePath.join(nodePath.dirname(parent.file.path), "subagent", childSessionId, SESSION_LOG_NAME)

/**
 * A bound nested log that is not there: the diagnostic a stream that reports
 * reports (`NESTED_LOG_MISSING`), or the `SOURCE_NOT_FOUND` of one that
 * fails; both name it as the nested log of the source the user gave.
 */
const missingNested = (parent: NativeSource, b: ChildBinding): { diagnostic: Diagnostic; error: SourceNotFound } => {
  const rel = nodePath.join("subagent", b.childSessionId, SESSION_LOG_NAME)
  const message =
    `The nested subagent log of child session ${b.childSessionId} (bound by ${b.bindingEventId} of ${parent.file.path}) is missing: ${rel} beside the log.`
  return {
    diagnostic: {
      code: "NESTED_LOG_MISSING",
      message,
      remediation: "Restore the nested log to import its events (the log's own events were imported); the next run picks it up.",
      details: {
        log: parent.file.path,
        childSessionId: b.childSessionId,
        subagentId: b.subagentId,
        nestedLog: rel
      }
    },
    error: new SourceNotFound({
      message,
      remediation: "Restore the nested log, or stream the log without --include-subagents (its own events do not need it)."
    })
  }
}

/**
 * An error of a nested log, said as one: its message names the nested log
 * it comes from, so it is not read as being about the log the user gave
 * (same class and code).
 */
const inNested = (b: ChildBinding) => (e: IngestError): IngestError => {
  const Make = e.constructor as new (fields: { message: string; remediation?: string; details?: unknown }) => IngestError
  return new Make({
    message: `In the nested subagent log of child session ${b.childSessionId} (${nodePath.join("subagent", b.childSessionId, SESSION_LOG_NAME)}): ${e.message}`,
    ...(e.remediation !== undefined ? { remediation: e.remediation } : {}),
    ...(e.details !== undefined ? { details: e.details } : {})
  })
}

/** `events`, then (when they ended without failing) the log's `NUMBER_NOT_EXACT` diagnostic to `onWarning`, if any. */
const withInexactReport = <E>(
  events: Stream.Stream<SessionEvent, E>,
  stats: NativeStats,
  path: string,
  onWarning: ((d: Diagnostic) => void) | undefined
): Stream.Stream<SessionEvent, E> =>
  onWarning === undefined ? events : Stream.concat(events, Stream.execute(Effect.sync(() => reportInexact(stats, path, onWarning))))

const reportInexact = (stats: NativeStats, path: string, onWarning: ((d: Diagnostic) => void) | undefined): void => {
  const d = inexactDiagnostic(stats, path)
  if (d !== undefined) onWarning?.(d)
  const r = repeatedDiagnostic(stats)
  if (r !== undefined) onWarning?.(r)
}

const childStreams = (
  deps: NativeDeps,
  parent: NativeSource,
  bindings: ReadonlyArray<ChildBinding>,
  resume: CursorState | undefined,
  hooks: {
    readonly onDiagnostic?: ((d: Diagnostic) => void) | undefined
    readonly onWarning?: ((d: Diagnostic) => void) | undefined
    readonly onRead?: ((read: SourceRead) => void) | undefined
  }
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.flatMap(
    Stream.fromIterable(bindings.map((b, i) => [b, i] as const)),
    ([b, i]) =>
      Stream.unwrap(
        Effect.gen(function*() {
          const found = yield* Effect.either(authorizeNative(deps, childLogPath(parent, b.childSessionId)))
          if (found._tag === "Left") {
            if (found.left._tag !== "SourceNotFound") return yield* inNested(b)(found.left)
            const missing = missingNested(parent, b)
            if (hooks.onDiagnostic === undefined) return yield* missing.error
            hooks.onDiagnostic(missing.diagnostic)
            return Stream.empty
          }
          const child = found.right
          const nestedError = inNested(b)
          const r = i === 0 ? resume : undefined
          if (r !== undefined && !cursorIsFor(r, child.sourceId)) return yield* cursorSourceChanged("the child log differs")
          const childStats = newStats()
          return Stream.mapError(withInexactReport(nativeEvents(deps, child, {
            resume: r,
            onRead: hooks.onRead,
            stats: childStats,
            parentRef: { src: parent.sourceId, child: b.childSessionId },
            parentLink: {
              sessionId: b.parentSessionId,
              toolCallId: null,
              eventId: b.bindingEventId,
              subagentId: b.subagentId
            },
            provenance: {
              parent: {
                sessionId: b.parentSessionId,
                sourceId: parent.sourceId,
                subagentId: b.subagentId,
                childSessionId: b.childSessionId,
                bindingEventId: b.bindingEventId
              }
            }
          }), childStats, child.file.path, hooks.onWarning), nestedError)
        })
      ),
    { concurrency: 1 }
  )

/**
 * What a caller of {@link streamNative} / {@link streamNativeAtOnce} may pass: a cursor to resume after, whether nested
 * (subagent) logs are streamed, and callbacks for diagnostics, warnings (`NUMBER_NOT_EXACT`) and each read.
 */
export interface NativeStreamOptions {
  readonly cursor?: string | undefined
  readonly includeSubagents?: boolean | undefined
  readonly onDiagnostic?: ((d: Diagnostic) => void) | undefined
  readonly onWarning?: ((d: Diagnostic) => void) | undefined
  readonly onRead?: ((read: SourceRead) => void) | undefined
  /**
   * Where the title of the log's own session goes (`StreamOptions.onTitle`), with the session: its first person's
   * prompt (`personPromptOf`), before the events of the batch that holds it; a pass that resumes after a cursor
   * reads the log from its start to the cursor for it first (nested logs are subagents' sessions: not looked at).
   */
  readonly onTitle?: ((title: string, sessionId: string) => void) | undefined
}

/**
 * `stream` of a native log: its events, from the start or right after the
 * cursor's event. With `includeSubagents`, each nested
 * `subagent/<child_session_id>/session.jsonl` bound by a
 * `subagent.control.child_session_bound` record follows as its own stream
 * (its own source id and sequence), in binding order, with the parent's
 * session id, source id and spawn handle under `extensions["native.muse"].parent`;
 * a cursor of a child event resumes inside that child (the parent is then
 * re-read to find its joins). A bound nested log that is missing is reported
 * to `onDiagnostic` and skipped, or without it fails `SourceNotFound` naming
 * it as the nested log. Fails: access errors, `MalformedSource`,
 * `ResourceLimitExceeded`, `InvalidCursor`.
 */
export const streamNative = (
  deps: NativeDeps,
  path: string,
  options: NativeStreamOptions = {}
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrap(
    Effect.gen(function*() {
      const parent = yield* authorizeNative(deps, path)
      const state = options.cursor !== undefined ? yield* peekCursor(options.cursor) : undefined
      const parentRef = state !== undefined ? parentOf(state) : undefined
      if (state !== undefined && !cursorIsFor(state, parent.sourceId)) {
        if (options.includeSubagents !== true || parentRef?.src !== parent.sourceId) {
          return yield* invalidCursor("The cursor belongs to another source.")
        }
      }
      const onRead = options.onRead
      const logPath = parent.file.path
      const title = options.onTitle === undefined ? undefined : new TitleWatch(options.onTitle)
      if (options.includeSubagents !== true) {
        const stats = newStats()
        return withInexactReport(nativeEvents(deps, parent, { resume: state, stats, onRead, title }), stats, logPath, options.onWarning)
      }
      // The joins of the whole parent, for a resume: only lines that can bind are parsed (a 1 GiB log in about a second).
      const bindingsOfWholeParent = Effect.gen(function*() {
        const stats = newStats()
        yield* Stream.runDrain(nativeEvents(deps, parent, { stats, strictBindings: true, bindingsOnly: true }))
        return stats.bindings
      })
      if (state === undefined) {
        const stats = newStats()
        // A small log: read whole in this effect; a stream follows only for the nested logs it binds.
        const whole = yield* nativeWhole(deps, parent, { stats, strictBindings: true, onRead, title })
        if (whole !== undefined) {
          if (whole.error === undefined) reportInexact(stats, logPath, options.onWarning)
          return whole.error !== undefined || stats.bindings.length === 0
            ? wholeStream(whole)
            : Stream.concat(wholeStream(whole), childStreams(deps, parent, stats.bindings, undefined, options))
        }
        return Stream.concat(
          withInexactReport(nativeEventsStreamed(deps, parent, { stats, strictBindings: true, onRead, title }), stats, logPath, options.onWarning),
          // Most logs bind no child session: then nothing follows (no stream built).
          Stream.unwrap(Effect.sync(() =>
            stats.bindings.length === 0 ? Stream.empty : childStreams(deps, parent, stats.bindings, undefined, options)
          ))
        )
      }
      if (cursorIsFor(state, parent.sourceId)) {
        const stats = newStats()
        return Stream.concat(
          withInexactReport(nativeEvents(deps, parent, { resume: state, stats, strictBindings: true, onRead, title }), stats, logPath, options.onWarning),
          Stream.unwrap(Effect.map(bindingsOfWholeParent, (bs) => childStreams(deps, parent, bs, undefined, options)))
        )
      }
      const bindings = yield* bindingsOfWholeParent
      // A cursor in a nested log: the whole parent is before it.
      if (title !== undefined) {
        yield* Effect.scoped(Effect.flatMap(
          openJsonl(deps.access, parent.file, jsonlOptions(deps, parent)),
          (jsonl) => titleBefore(jsonl.open, parent, deps.limits.maxDepth, deps.limits.maxRecordBytes, undefined, title)
        ))
      }
      const at = bindings.findIndex((b) => b.childSessionId === parentRef!.child)
      if (at < 0) return yield* cursorSourceChanged("the parent no longer binds the cursor's child session")
      return childStreams(deps, parent, bindings.slice(at), state, options)
    })
  )

/**
 * {@link streamNative} at once, for a small log read from its start (see
 * `SessionSourceAdapter.streamAtOnce`): the log's events from one whole read
 * ({@link nativeWhole}), and, with `includeSubagents` and bound nested logs,
 * the stream of those after them. `undefined` with a cursor, or when the log
 * is not read whole (then stream it). Fails where `streamNative` fails, with
 * the same error (without handing on the events before it).
 */
export const streamNativeAtOnce = (
  deps: NativeDeps,
  path: string,
  options: NativeStreamOptions = {}
): Effect.Effect<
  { readonly events: ReadonlyArray<SessionEvent>; readonly then: Stream.Stream<SessionEvent, IngestError> | undefined } | undefined,
  IngestError
> =>
  Effect.gen(function*() {
    if (options.cursor !== undefined) return undefined
    const parent = yield* authorizeNative(deps, path)
    const stats = newStats()
    const subagents = options.includeSubagents === true
    const title = options.onTitle === undefined ? undefined : new TitleWatch(options.onTitle)
    const whole = yield* nativeWhole(deps, parent, { stats, strictBindings: subagents ? true : undefined, onRead: options.onRead, title })
    if (whole === undefined) return undefined
    if (whole.error !== undefined) return yield* Effect.fail(whole.error)
    reportInexact(stats, parent.file.path, options.onWarning)
    return {
      events: whole.events,
      then: subagents && stats.bindings.length > 0 ? childStreams(deps, parent, stats.bindings, undefined, options) : undefined
    }
  })
