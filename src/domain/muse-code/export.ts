/**
 * The `muse export` trajectory document (locator class `manual-export`):
 * its Schemas, the schema-major gate, and its decoding into normalized events.
 *
 * Source: seed `001_…`, "Trajectory shape", "Multi-stream behavior".
 * - Top level: `export_schema_version` (integer), `redaction`,
 *   `exporter_version` / `session_build` (`display` strings),
 *   `session_terminated_abnormally` (boolean), `sessions[]` summaries
 *   (`session_id`, `turn_count`, `step_count`, `session_end`,
 *   `accepted_spawns[]`), ordered `events`, `diagnostics` counters.
 * - Gate: an integer major other than 1 is `UNKNOWN_SCHEMA_MAJOR`; a missing or
 *   non-integer version, non-JSON, a non-object or a document without sessions
 *   is `MALFORMED_SOURCE`.
 * - Events: record envelopes are mapped; gap markers (`"envelope": null`) and
 *   `retained_frame` events are skipped, never fabricated into records, but
 *   keep their place in the raw event index (`sequence`).
 *
 * @module
 */
import { isUtf8 } from "node:buffer"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import { clipped, schemaIssues } from "../schema-issues.js"
import * as Schema from "effect/Schema"
import { cursorEncoder, eventCheck } from "../cursor.js"
import { MalformedSource, ResourceLimitExceeded, UnknownSchemaMajor } from "../errors.js"
import { compactJsonBytes, isRecord, parseJson } from "../json.js"
import type { SessionEvent } from "../model.js"
import { RetainedFrameLine } from "./native.js"
import {
  EXPORT_EVENT_FIELDS,
  mapRecordEnvelope,
  RecordEnvelope,
  sequenceDigitsIn,
  type SpawnHandle,
  StreamBlock,
  unknownFieldsOf,
  withSequenceDigits
} from "./records.js"
import { RecordNames, sameRecord, type SequenceDecrease } from "./record-names.js"
import { raiseLimitRemedy } from "../limit-remedy.js"

/** The export schema major this build reads. */
export const SUPPORTED_EXPORT_MAJOR = 1

/** A `{display, semver?, sha?}` version object. */
export const DisplayVersion = Schema.Struct({
  display: Schema.String,
  semver: Schema.optional(Schema.String),
  sha: Schema.optional(Schema.String)
})

/** `sessions[].accepted_spawns[]`: a subagent spawn handle (seed 001). */
export const AcceptedSpawn = Schema.Struct({
  subagent_id: Schema.String,
  agent_path: Schema.optional(Schema.String),
  role: Schema.optional(Schema.String),
  parent_session_id: Schema.optional(Schema.String)
})

/** `sessions[]`: one summary per exported parent session. */
export const SessionSummary = Schema.Struct({
  session_id: Schema.String,
  turn_count: Schema.optional(Schema.Number),
  step_count: Schema.optional(Schema.Number),
  session_end: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  accepted_spawns: Schema.optional(Schema.Array(AcceptedSpawn)),
  root_session_id: Schema.optional(Schema.String),
  trajectory_id: Schema.optional(Schema.String)
})
export type SessionSummary = typeof SessionSummary.Type

/** A record event: `{kind: "record", envelope: {sequence, …, payload_type, payload}}`. */
export const RecordEvent = Schema.Struct({
  kind: Schema.optional(Schema.Literal("record")),
  envelope: RecordEnvelope
})

/**
 * A gap marker: `"envelope": null` (with `marker`, `stream`, `omitted_record` when present); skipped, never fabricated.
 * Its `kind` is `"gap"` (Muse Code 1.3.0 and 1.4.0) or absent (seed 001 names a gap marker by its null envelope
 * alone); an event of another kind is no gap marker, whatever its envelope ({@link EXPORT_EVENT_KINDS}).
 */
export const GapMarkerEvent = Schema.Struct({
  kind: Schema.optional(Schema.Literal("gap")),
  envelope: Schema.Null,
  marker: Schema.optional(Schema.String),
  stream: Schema.optional(StreamBlock),
  omitted_record: Schema.optional(Schema.Unknown)
})

/** An export retained frame: a transaction frame (`children`, `transaction_id`, `content_sha256`) instead of an envelope; skipped. */
export const RetainedFrameEvent = Schema.Struct({
  kind: Schema.Literal("retained_frame"),
  envelope: RetainedFrameLine
})

/** The `kind`s of an export event this build reads; an event of any other kind is `MALFORMED_SOURCE` (fail closed). */
export const EXPORT_EVENT_KINDS: ReadonlyArray<string> = ["record", "gap", "retained_frame"]

/** The three event shapes of `events[]` (seed 001, "Trajectory shape"). */
export const ExportEvent = Schema.Union(RecordEvent, GapMarkerEvent, RetainedFrameEvent)
export type ExportEvent = typeof ExportEvent.Type

/** The export document, after the schema-major gate. */
export const ExportDocument = Schema.Struct({
  export_schema_version: Schema.Int,
  redaction: Schema.optional(Schema.Unknown),
  exporter_version: Schema.optional(DisplayVersion),
  session_build: Schema.optional(DisplayVersion),
  session_terminated_abnormally: Schema.optional(Schema.Boolean),
  sessions: Schema.NonEmptyArray(SessionSummary),
  events: Schema.Array(ExportEvent),
  diagnostics: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type ExportDocument = typeof ExportDocument.Type

const decodeDocumentUnsafe = Schema.decodeUnknownEither(ExportDocument, { onExcessProperty: "ignore" })

/**
 * {@link decodeDocumentUnsafe}, answering a thrown error as the message it
 * carries: Effect 3.22's Union decoder reads a discriminating field with
 * `String(value)`, which throws for a JSON object such as `{"toString":0}`.
 */
const decodeDocument = (u: unknown): Either.Either<ExportDocument, ParseResult.ParseError | string> => {
  try {
    return decodeDocumentUnsafe(u)
  } catch (e) {
    return Either.left(e instanceof Error ? e.message : String(e))
  }
}

/** Document-level provenance, copied into every event's `extensions["native.muse"].document`. */
export interface ExportProvenance {
  readonly exportSchemaVersion: number
  readonly redaction: unknown
  readonly exporterVersion: string | null
  readonly sessionBuild: string | null
  readonly terminatedAbnormally: boolean
  readonly diagnostics: Record<string, unknown> | null
}

/** A decoded, fully validated export. */
export interface DecodedExport {
  readonly provenance: ExportProvenance
  readonly sessions: ReadonlyArray<SessionSummary>
  readonly events: ReadonlyArray<SessionEvent>
  /** Raw events in the document, markers included. */
  readonly rawEventCount: number
  readonly gapMarkers: number
  readonly retainedFrames: number
  /** Records skipped as exact repeats of an earlier record of the same session and `envelope.sequence`. */
  readonly repeatedRecords: number
  /** Records whose `envelope.sequence` is lower than an earlier record's of their session (kept, in document order). */
  readonly sequenceDecreases: number
  /** The first of them, when there is one. */
  readonly firstDecrease: SequenceDecrease | null
}

/** A raw event's `envelope.sequence`, as written. */
const sequenceOf = (raw: Record<string, unknown>): unknown =>
  typeof raw.envelope === "object" && raw.envelope !== null ? (raw.envelope as Record<string, unknown>).sequence : undefined

/** Errors of {@link decodeExport}. */
export type ExportError = MalformedSource | UnknownSchemaMajor | ResourceLimitExceeded

const malformed = (message: string, details?: Record<string, unknown>) =>
  new MalformedSource({
    message,
    remediation: "Pass a JSON document written by `muse export` (locator class manual-export).",
    ...(details !== undefined ? { details } : {})
  })

/**
 * Decode export bytes. `sourceId` and `digest` (of the bytes) go into each
 * event's cursor, with the event's own check ({@link eventCheck}), so a cursor
 * resumes only on this very document and right after its own event.
 * A session's records are named by `envelope.sequence` (`muse-seq-<n>`): a
 * record repeated as it is, under a name already taken, is skipped and
 * counted (`repeatedRecords`); another record under a taken name fails.
 * Fails: `MalformedSource` (also for that name taken twice), `UnknownSchemaMajor`,
 * `ResourceLimitExceeded` (nesting deeper than `maxDepth`, or an event larger
 * than `maxRecordBytes`).
 */
export const decodeExport = (
  bytes: Uint8Array,
  options: {
    readonly sourceId: string
    readonly digest: string
    readonly maxDepth: number
    /**
     * Bytes of one event's record (its compact JSON), the import limit
     * `maxRecordBytes`: the same record is held to the same limit whether it
     * comes in an export or a native log line. Checked only when the document
     * itself is larger (no cost for ordinary exports). Default: no limit.
     */
    readonly maxRecordBytes?: number | undefined
  }
): Either.Either<DecodedExport, ExportError> => {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (!isUtf8(buf)) return Either.left(malformed("The document is not valid UTF-8."))
  let text = buf.toString("utf8")
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const parsed = parseJson(text, options.maxDepth)
  if (parsed._tag === "error") {
    return Either.left(
      parsed.problem._tag === "depth"
        ? new ResourceLimitExceeded({
          message: `The document nests deeper than ${parsed.problem.limit} levels.`,
          remediation: raiseLimitRemedy("maxDepth", "only if you trust the source."),
          details: { limit: "maxDepth", max: parsed.problem.limit }
        })
        : malformed(`The document is not valid JSON (${parsed.problem.message}).`)
    )
  }
  const doc = parsed.value
  if (!isRecord(doc)) return Either.left(malformed("The document is not a JSON object."))
  const version = doc.export_schema_version
  if (version === undefined) return Either.left(malformed("The document has no export_schema_version."))
  // Any integer value is a major (1e30 too: a major this build does not read); a fraction, a string or an
  // infinity is no major at all.
  if (typeof version !== "number" || !Number.isInteger(version)) {
    return Either.left(malformed(`export_schema_version ${clipped(JSON.stringify(version) ?? String(version), 80)} is not an integer.`))
  }
  if (version !== SUPPORTED_EXPORT_MAJOR) {
    return Either.left(
      new UnknownSchemaMajor({
        message: `export_schema_version ${version} is not a schema major this build reads (it reads ${SUPPORTED_EXPORT_MAJOR}).`,
        remediation: "Upgrade session-ingest, or export with a Muse Code version that writes schema major 1.",
        details: { exportSchemaVersion: version, supported: [SUPPORTED_EXPORT_MAJOR] }
      })
    )
  }
  if (!Array.isArray(doc.sessions) || doc.sessions.length === 0) {
    return Either.left(malformed("The document has no sessions[] summaries."))
  }
  // An event kind this build does not know is refused by its name (as a native line of an unknown shape is), before
  // the shapes are decoded: `{"kind":"mystery","envelope":null}` is no gap marker (tester35b F2).
  if (Array.isArray(doc.events)) {
    for (let i = 0; i < doc.events.length; i++) {
      const ev: unknown = doc.events[i]
      const kind = isRecord(ev) ? ev.kind : undefined
      if (typeof kind === "string" && !EXPORT_EVENT_KINDS.includes(kind)) {
        return Either.left(
          new MalformedSource({
            message: `events[${i}] is of kind ${
              // a source's value, clipped: a kind of 1 MB made a 1 MB message (tester36b F6)
              clipped(JSON.stringify(kind), 80)
            }, which this build does not read (it reads ${EXPORT_EVENT_KINDS.join(", ")}); it is neither mapped nor skipped as a gap marker.`,
            remediation:
              "If a newer Muse Code wrote the export, upgrade session-ingest; otherwise pass the document as `muse export` wrote it.",
            details: { event: i, kind: clipped(kind, 200) }
          })
        )
      }
    }
  }
  const decoded = decodeDocument(doc)
  if (Either.isLeft(decoded)) {
    const issues = typeof decoded.left === "string"
      ? `a value the decoder cannot read: ${decoded.left}`
      // deepest first, each clipped: a record stated whole made a 2 MB message (tester36a F2)
      : schemaIssues(decoded.left)
    // A sequence beyond 2^53 - 1 is told with the digits the document writes, when they are found (tester35b F4).
    const told = issues.replace(/actual (\d+) as read/g, (all, n: string) => {
      const digits = sequenceDigitsIn(text, Number(n))
      return digits === undefined ? all : `the source writes ${digits}, read as ${n}`
    })
    return Either.left(malformed(`The document does not have the export shape (${told}).`))
  }
  const d = decoded.right
  const provenance: ExportProvenance = {
    exportSchemaVersion: d.export_schema_version,
    redaction: d.redaction ?? null,
    exporterVersion: d.exporter_version?.display ?? null,
    sessionBuild: d.session_build?.display ?? null,
    terminatedAbnormally: d.session_terminated_abnormally ?? false,
    diagnostics: d.diagnostics ?? null
  }
  const spawns = new Map<string, SpawnHandle>()
  for (const s of d.sessions) for (const sp of s.accepted_spawns ?? []) spawns.set(sp.subagent_id, sp)
  const fallbackSessionId = d.sessions[0].session_id
  const events: Array<SessionEvent> = []
  let gapMarkers = 0
  let retainedFrames = 0
  const rawEvents = doc.events as ReadonlyArray<Record<string, unknown>>
  const maxRecord = options.maxRecordBytes
  if (maxRecord !== undefined && buf.length > maxRecord) {
    for (let i = 0; i < rawEvents.length; i++) {
      const size = compactJsonBytes(rawEvents[i])
      if (size > maxRecord) {
        return Either.left(
          new ResourceLimitExceeded({
            message: `events[${i}] is ${size} bytes, over the import limit of ${maxRecord} bytes per record.`,
            remediation: raiseLimitRemedy("maxRecordBytes", "only if you trust the source."),
            details: { limit: "maxRecordBytes", bytes: size, max: maxRecord, where: `events[${i}]` }
          })
        )
      }
    }
  }
  const encodeCursorAt = cursorEncoder(options.sourceId)
  /** The raw index of the first record of each session and sequence. */
  const named = new RecordNames(true)
  let repeatedRecords = 0
  /** The largest `envelope.sequence` so far, by session: a lower one later is counted (seed 001: events are ordered). */
  const highest = new Map<string, number>()
  let sequenceDecreases = 0
  let firstDecrease: SequenceDecrease | null = null
  for (let i = 0; i < d.events.length; i++) {
    const ev = d.events[i]
    const where = `events[${i}]`
    if (ev.envelope === null) {
      gapMarkers++
      continue
    }
    if (ev.kind === "retained_frame") {
      retainedFrames++
      continue
    }
    const mapped = mapRecordEnvelope(rawEvents[i].envelope, {
      sourceId: options.sourceId,
      locatorClass: "manual-export",
      fallbackSessionId,
      sequence: i,
      cursor: "",
      spawns,
      provenance: { document: provenance },
      eventUnknown: unknownFieldsOf(rawEvents[i], EXPORT_EVENT_FIELDS)
    }, where)
    if (Either.isLeft(mapped)) return Either.left(withSequenceDigits(mapped.left, text))
    // A session's events are named by their envelope.sequence: a second record under a name already taken is
    // the same record repeated (skipped, counted) or another one (the export cannot be trusted: refused).
    const sessionId = mapped.right.sessionId
    const sequence = sequenceOf(rawEvents[i]) as number
    if (named.has(sessionId, sequence)) {
      const first = named.placeOf(sessionId, sequence)!
      if (sameRecord(rawEvents[first], rawEvents[i])) {
        repeatedRecords++
        continue
      }
      return Either.left(malformed(
        `${where}: envelope.sequence ${sequenceOf(rawEvents[i])} of session ${mapped.right.sessionId} is already events[${first}]'s, with other content; an export names each record of a session by its sequence once.`,
        { event: i, firstEvent: first }
      ))
    }
    named.add(sessionId, sequence, i)
    const top = highest.get(sessionId)
    if (top === undefined || sequence > top) highest.set(sessionId, sequence)
    else if (sequence < top) {
      sequenceDecreases++
      firstDecrease ??= { event: i, sessionId, sequence, after: top }
    }
    // The cursor binds the document (h) and its own event (hd): an edited sequence names another place.
    events.push({ ...mapped.right, cursor: encodeCursorAt({ seq: i, h: options.digest, hd: eventCheck(mapped.right, i) }) })
  }
  return Either.right({ provenance, sessions: d.sessions, events, rawEventCount: d.events.length, gapMarkers, retainedFrames, repeatedRecords, sequenceDecreases, firstDecrease })
}
