/**
 * The native Muse Code `session.jsonl` log (locator class
 * `muse-native-session-log`): its three line shapes, the layout of the
 * sessions root, and workspace evidence. Pure: no I/O.
 *
 * Source: seed `001_…`, "Native log root" and "Native discovery".
 * - Line shapes: record envelopes (mapped like export records), omission
 *   markers (`omitted_record`, `retained_marker: "omitted_live_only"`) that are
 *   skipped and counted, and retained transaction frames whose
 *   `children[].record_json` are JSON-encoded record envelopes.
 * - Layout: `<muse-root>/YYYY/MM/DD/<session-id>/session.jsonl`.
 * - Workspace evidence: `payload.record.workspace_root` of
 *   `runtime.session.metadata` and `session.workspace_branch.observed`,
 *   `payload.record.cwd` of `runtime.session.route_facts`.
 *
 * @module
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { at, isRecord } from "../json.js"
import { effectiveKind } from "./records.js"

/** The file name of a native log inside its session folder. */
export const SESSION_LOG_NAME = "session.jsonl"

/** A four-digit year folder. */
export const YEAR_DIR = /^\d{4}$/
/** A month folder, `01`–`12` (zero-padded). */
export const MONTH_DIR = /^(0[1-9]|1[0-2])$/
/** A day folder, `01`–`31` (zero-padded). */
export const DAY_DIR = /^(0[1-9]|[12]\d|3[01])$/
/**
 * A plain session-id folder name: letters, digits, `.`, `_`, `-`, starting
 * with a letter or digit (so never `.`, `..` or a hidden folder), at most 200
 * characters. Also the rule for a `child_session_id` used as a folder name.
 */
export const SESSION_ID_DIR = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** The retained-marker value of an omission marker (seed 001). */
export const OMITTED_MARKER = "omitted_live_only"

/** One child of a retained frame: its position and its JSON-encoded record. */
export const RetainedChild = Schema.Struct({
  child_index: Schema.optional(Schema.NonNegativeInt),
  record_json: Schema.String
})

/**
 * A retained transaction frame line: `{retained_frame, frame_schema_version?,
 * outer_log_ordinal?, transaction_id?, content_sha256?, children[]}`.
 */
export const RetainedFrameLine = Schema.Struct({
  retained_frame: Schema.String,
  frame_schema_version: Schema.optional(Schema.Number),
  outer_log_ordinal: Schema.optional(Schema.Number),
  transaction_id: Schema.optional(Schema.String),
  content_sha256: Schema.optional(Schema.String),
  children: Schema.Array(RetainedChild)
})
export type RetainedFrameLine = typeof RetainedFrameLine.Type

/** An omission marker line: `{omitted_record: true, retained_marker: "omitted_live_only", sequence?}`. */
export const OmissionMarkerLine = Schema.Struct({
  omitted_record: Schema.Literal(true),
  retained_marker: Schema.Literal(OMITTED_MARKER),
  sequence: Schema.optional(Schema.Number)
})

const optional = (v: unknown, type: "number" | "string"): boolean => v === undefined || typeof v === type

/**
 * True when a raw value has the {@link RetainedFrameLine} shape (extra fields
 * allowed): the same rule as its Schema, in plain code. Discovery tells the
 * shape of the first line of nearly every log, where decoding through the
 * Schema cost about 30 µs a line before the JIT warmed up (a third of
 * discovering 10,000 logs' scan); `test/muse-code/native-shapes.test.ts` checks
 * that both agree.
 */
export const isRetainedFrameLine = (u: unknown): u is RetainedFrameLine => {
  if (!isRecord(u) || typeof u.retained_frame !== "string") return false
  if (!optional(u.frame_schema_version, "number") || !optional(u.outer_log_ordinal, "number")) return false
  if (!optional(u.transaction_id, "string") || !optional(u.content_sha256, "string")) return false
  const children = u.children
  if (!Array.isArray(children)) return false
  for (const c of children) {
    if (!isRecord(c) || typeof c.record_json !== "string") return false
    const i = c.child_index
    if (i !== undefined && !(typeof i === "number" && Number.isSafeInteger(i) && i >= 0)) return false
  }
  return true
}

const decodeMarker = Schema.decodeUnknownEither(OmissionMarkerLine, { onExcessProperty: "ignore" })

/** A parsed line, by shape. `record` is the raw object, still to be mapped. */
export type NativeLine =
  | { readonly _tag: "record"; readonly value: Record<string, unknown> }
  | { readonly _tag: "frame"; readonly frame: RetainedFrameLine }
  | { readonly _tag: "omission"; readonly sequence: number | null }

/**
 * Tell a parsed JSON line's shape. A line with `retained_frame` must be a
 * well-formed frame (every child has a string `record_json`, and a
 * `child_index`, when present, equal to its position); a line with
 * `omitted_record` must be a well-formed omission marker; anything else must
 * be an object and is a record envelope candidate. Left: the problem, for a
 * `MalformedSource` message (fail closed, seed 001).
 */
export const classifyNativeLine = (value: unknown): Either.Either<NativeLine, string> => {
  if (!isRecord(value)) return Either.left("the line is not a JSON object")
  if ("retained_frame" in value) {
    if (!isRetainedFrameLine(value)) return Either.left("the retained frame does not have the frame shape")
    for (let i = 0; i < value.children.length; i++) {
      const ci = value.children[i].child_index
      if (ci !== undefined && ci !== i) {
        return Either.left(`retained child ${i} carries child_index ${ci}; children must be in order`)
      }
    }
    return Either.right({ _tag: "frame", frame: value })
  }
  if ("omitted_record" in value || "retained_marker" in value) {
    const m = decodeMarker(value)
    if (Either.isLeft(m)) return Either.left("the omission marker does not have the marker shape")
    return Either.right({ _tag: "omission", sequence: m.right.sequence ?? null })
  }
  return Either.right({ _tag: "record", value })
}

/** True when a raw value has the record-envelope shape (what discovery checks; import maps it in full). */
export { isRecordEnvelope } from "./records.js"

/** Which fact a piece of workspace evidence came from. */
export type EvidenceField = "workspace_root" | "cwd"

/** Record types that carry workspace evidence, and the `payload.record` field that holds it (seed 001). */
export const EVIDENCE_SOURCES: ReadonlyArray<{ readonly payloadType: string; readonly field: EvidenceField }> = [
  { payloadType: "runtime.session.metadata", field: "workspace_root" },
  { payloadType: "session.workspace_branch.observed", field: "workspace_root" },
  { payloadType: "runtime.session.route_facts", field: "cwd" }
]

/**
 * The workspace evidence of one record envelope: the path string of
 * `payload.record.workspace_root` / `payload.record.cwd` for the record types
 * of {@link EVIDENCE_SOURCES}, else undefined. `session.opened` and every
 * other record carry no evidence (seed 001). Only non-empty strings count.
 */
export const workspaceEvidenceOf = (
  record: unknown
): { readonly field: EvidenceField; readonly path: string; readonly payloadType: string } | undefined => {
  if (!isRecord(record)) return undefined
  const payloadType = record.payload_type
  if (typeof payloadType !== "string") return undefined
  for (const s of EVIDENCE_SOURCES) {
    if (s.payloadType !== payloadType) continue
    const v = at(record, "payload", "record", s.field)
    if (typeof v === "string" && v.length > 0) return { field: s.field, path: v, payloadType }
  }
  return undefined
}

/** True for the orderly end of a session: `payload_type` (or effective kind) `session.end` (seed 001). */
export const isSessionEnd = (record: unknown): boolean => {
  if (!isRecord(record) || typeof record.payload_type !== "string") return false
  if (record.payload_type === "session.end") return true
  return effectiveKind({
    payload_type: record.payload_type,
    payload: isRecord(record.payload) ? record.payload : undefined
  }) === "session.end"
}

/** The record kind that joins a parent log to a nested subagent log (seed 001, "Multi-stream behavior"). */
export const CHILD_SESSION_BOUND = "subagent.control.child_session_bound"

/** A parent → child join read from a `subagent.control.child_session_bound` record. */
export interface ChildBinding {
  /** The child session identity, naming `subagent/<child_session_id>/`. */
  readonly childSessionId: string
  /** The spawn handle (`subagent_id`), distinct from the child session id. */
  readonly subagentId: string | null
  /** The parent's session id (the binding record's stream id). */
  readonly parentSessionId: string
  /** `eventId` of the binding record in the parent. */
  readonly bindingEventId: string
}

const firstString = (...c: ReadonlyArray<unknown>): string | undefined => {
  for (const v of c) if (typeof v === "string" && v.length > 0) return v
  return undefined
}

/**
 * The child binding of a record envelope, if it is a
 * `subagent.control.child_session_bound` record (by `payload_type` or
 * effective kind) that names a `child_session_id` (in `payload.record` or
 * `payload`). Left: a binding whose child session id is not a plain folder
 * name (it must never climb out of `subagent/`).
 */
export const childBindingOf = (
  record: Record<string, unknown>,
  parentSessionId: string,
  eventId: string
): Either.Either<ChildBinding | undefined, string> => {
  const payload = isRecord(record.payload) ? record.payload : undefined
  const payloadType = typeof record.payload_type === "string" ? record.payload_type : ""
  if (payloadType !== CHILD_SESSION_BOUND && effectiveKind({ payload_type: payloadType, payload }) !== CHILD_SESSION_BOUND) {
    return Either.right(undefined)
  }
  const child = firstString(at(payload, "record", "child_session_id"), at(payload, "child_session_id"))
  if (child === undefined) return Either.right(undefined)
  if (!SESSION_ID_DIR.test(child)) return Either.left(`child_session_id ${JSON.stringify(child)} is not a plain session id`)
  return Either.right({
    childSessionId: child,
    subagentId: firstString(at(payload, "record", "subagent_id"), at(payload, "subagent_id")) ?? null,
    parentSessionId,
    bindingEventId: eventId
  })
}
