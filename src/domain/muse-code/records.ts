/**
 * Muse Code record envelopes → normalized {@link SessionEvent}s. Shared by the
 * export trajectory (`manual-export`) and the native `session.jsonl` log
 * (`muse-native-session-log`), whose record lines are "mapped like export
 * records" (seed 001).
 *
 * Rules (seed `001_…`, "Trajectory shape", "Preserved provenance",
 * "Multi-stream behavior"):
 * - effective kind: `payload.event.kind`, else `payload_type`;
 * - session: `envelope.stream.id`, falling back to the document's session only
 *   when the stream block is absent;
 * - `recorded_at`: epoch microseconds or RFC 3339, emitted as RFC 3339;
 * - `causation_id`: string or null;
 * - tool name from `operation: "tool:<name>"`;
 * - provenance under `extensions["native.muse"]`, subagent identities
 *   (`subagent_id`, `child_session_id`, `subagent_session_id`,
 *   `source_session_id`, spawn role and agent path) kept distinct.
 *
 * @module
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import { schemaIssues } from "../schema-issues.js"
import * as Schema from "effect/Schema"
import { MalformedSource } from "../errors.js"
import { at, isRecord, str } from "../json.js"
import { type ChildLink, CONTRACT_VERSION, type LocatorClass, type ParentLink, type RawReference, type SessionEvent } from "../model.js"
import type { Mutable } from "effect/Types"
import { normalizeTimestamp } from "../timestamps.js"
import { titleOf } from "../muse-agents/summary.js"

/**
 * A non-negative integer that JSON numbers carry exactly (≤ 2^53 − 1). A larger integer is named as what it is, not
 * a safe integer (tester35b F4: "Expected an integer" read as if 2^60 were a fraction).
 */
const SafeIndex = Schema.Number.pipe(Schema.filter((n) =>
  !Number.isInteger(n)
    ? `Expected an integer, actual ${n}`
    : n < 0
    ? `Expected a non-negative number, actual ${n}`
    : n > Number.MAX_SAFE_INTEGER
    ? `Expected a safe integer (at most 2^53 - 1 = ${Number.MAX_SAFE_INTEGER}: a larger JSON number is not read exactly, so it cannot name a record), actual ${
      BigInt(n)
    } as read`
    : true
))

/**
 * The digits the source writes for a `sequence` that was read as `value` (a number beyond 2^53 - 1, which JSON
 * numbers round): the one `"sequence": <digits>` of `text` (a line, a retained child's record_json escaped in it,
 * or a document) that reads as `value`; undefined when none or several different ones do. For an error message only.
 */
export const sequenceDigitsIn = (text: string, value: number): string | undefined => {
  const found = new Set<string>()
  for (const m of text.matchAll(/\\?"sequence\\?"\s*:\s*(\d+)(?![\d.eE])/g)) {
    if (Number(m[1]) === value) found.add(m[1])
  }
  return found.size === 1 ? [...found][0] : undefined
}

/**
 * A `MalformedSource` of {@link mapRecordEnvelope} for a sequence beyond 2^53 - 1 (its `details.unsafeSequence`)
 * told with the digits `text` writes for it ({@link sequenceDigitsIn}), when found; any other error as it is.
 */
export const withSequenceDigits = (error: MalformedSource, text: string): MalformedSource => {
  const d = error.details
  const value = isRecord(d) ? d.unsafeSequence : undefined
  if (typeof value !== "number") return error
  const digits = sequenceDigitsIn(text, value)
  if (digits === undefined) return error
  return new MalformedSource({
    message: error.message.replace(`actual ${BigInt(value)} as read`, `the source writes ${digits}, read as ${BigInt(value)}`),
    remediation: error.remediation,
    details: { ...(d as Record<string, unknown>), sourceDigits: digits }
  })
}

/** The stream block of an envelope: `{kind, id}`. */
export const StreamBlock = Schema.Struct({
  id: Schema.String,
  kind: Schema.optional(Schema.String)
})

/**
 * A record envelope `{sequence, id, causation_id, stream, recorded_at,
 * record_type, durability, payload_type, payload}` (seed 001). Unknown extra
 * fields are allowed and kept in provenance ({@link UNKNOWN_FIELDS}).
 */
export const RecordEnvelope = Schema.Struct({
  sequence: SafeIndex,
  id: Schema.optional(Schema.String),
  causation_id: Schema.optional(Schema.NullOr(Schema.String)),
  stream: Schema.optional(StreamBlock),
  recorded_at: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  record_type: Schema.optional(Schema.String),
  durability: Schema.optional(Schema.String),
  payload_type: Schema.String,
  payload: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  schema_version: Schema.optional(Schema.Number),
  payload_schema_version: Schema.optional(Schema.Number)
})
export type RecordEnvelope = typeof RecordEnvelope.Type

const decodeEnvelope = Schema.decodeUnknownEither(RecordEnvelope, { onExcessProperty: "ignore" })

const optString = (v: unknown) => v === undefined || typeof v === "string"
const optNumber = (v: unknown) => v === undefined || typeof v === "number"
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * True when `u` decodes as a {@link RecordEnvelope}: the same answer as
 * `Schema.decodeUnknownEither(RecordEnvelope)` (a property test holds the
 * two together), without building a decoded copy. The hot path of a native
 * log checks every line with it (bench figure (a)); the Schema decoder is
 * still what explains a refusal. Unknown extra fields are allowed.
 */
export const isRecordEnvelope = (u: unknown): u is RecordEnvelope => {
  if (!isObject(u)) return false
  const seq = u.sequence
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return false
  if (typeof u.payload_type !== "string") return false
  if (!optString(u.id) || !optString(u.record_type) || !optString(u.durability)) return false
  const causation = u.causation_id
  if (causation !== undefined && causation !== null && typeof causation !== "string") return false
  const stream = u.stream
  if (stream !== undefined && (!isObject(stream) || typeof stream.id !== "string" || !optString(stream.kind))) return false
  const recordedAt = u.recorded_at
  if (recordedAt !== undefined && typeof recordedAt !== "number" && typeof recordedAt !== "string") return false
  if (u.payload !== undefined && !isObject(u.payload)) return false
  return optNumber(u.schema_version) && optNumber(u.payload_schema_version)
}

/** A spawn handle of `sessions[].accepted_spawns[]` (seed 001). */
export interface SpawnHandle {
  readonly subagent_id: string
  readonly agent_path?: string | undefined
  readonly role?: string | undefined
  readonly parent_session_id?: string | undefined
}

/** What a record is mapped in: its source, its place, and the document's context. */
export interface RecordContext {
  readonly sourceId: string
  readonly locatorClass: LocatorClass
  /** The session events fall back to when their stream block is absent. */
  readonly fallbackSessionId: string
  /** Position in the source (export: raw event index; native: item position). */
  readonly sequence: number
  /** The cursor that resumes right after this event. */
  readonly cursor: string
  /** Byte offset of the line (native logs). */
  readonly offset?: number | undefined
  /** Index of the retained child inside its frame (native logs). */
  readonly childIndex?: number | undefined
  /** Spawn handles by `subagent_id`. */
  readonly spawns: ReadonlyMap<string, SpawnHandle>
  /** Extra provenance merged into `extensions["native.muse"]` (document-level fields, frame ids). */
  readonly provenance: Record<string, unknown>
  /** The parent session of a nested subagent log's events (its `child_session_bound` join). */
  readonly parent?: ParentLink | undefined
  /**
   * Fields of the export event object around the envelope that this build does not know (`kind` and `envelope` are
   * known), as in the source: kept under `unknownFields.event` ({@link UNKNOWN_FIELDS}). Undefined: none.
   */
  readonly eventUnknown?: Record<string, unknown> | undefined
}

/**
 * The key of `extensions["native.muse"]` that keeps, as in the source, the fields of a record this build does not
 * know (DESIGN.md: provenance is never dropped): `{envelope?, stream?, event?}`, each the unknown fields of the
 * record envelope (a native line's record, a retained child's `record_json`, an export event's `envelope`), of its
 * `stream` block, and of the export event object around it. Present only when the record has such a field: a record
 * of known fields only is mapped as before (contract 1.3.0 unchanged, an additive key).
 */
export const UNKNOWN_FIELDS = "unknownFields"

/** The fields of a record envelope seed 001 names, mapped into the event. */
const ENVELOPE_FIELDS: ReadonlySet<string> = new Set([
  "sequence",
  "id",
  "causation_id",
  "stream",
  "recorded_at",
  "record_type",
  "durability",
  "payload_type",
  "payload",
  "schema_version",
  "payload_schema_version"
])

/** The fields of an envelope's `stream` block. */
const STREAM_FIELDS: ReadonlySet<string> = new Set(["id", "kind"])

/**
 * The fields of an export record event object: `kind` and `envelope` (seed 001), and the exporter's own notes beside
 * them that a real `muse export` of Muse Code 1.4.0 writes on every event (`derived`, `recorded_at`,
 * `outer_log_ordinal`: the peer fixture live-1.4.0-v1.json), read as before (not restated); the rest is kept under
 * `unknownFields.event`.
 */
export const EXPORT_EVENT_FIELDS: ReadonlySet<string> = new Set(["kind", "envelope", "derived", "recorded_at", "outer_log_ordinal"])

/**
 * The own fields of `o` not in `known`, with their values as they are; undefined when there are none. A key such
 * as `__proto__` is kept as a field (defined, never assigned: no prototype is set).
 */
export const unknownFieldsOf = (o: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined => {
  let out: Record<string, unknown> | undefined
  for (const k in o) {
    if (known.has(k) || !Object.prototype.hasOwnProperty.call(o, k)) continue
    out ??= {}
    Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true })
  }
  return out
}

const TEXT_MAX = 1000

/** Whitespace other than a space, or a space followed by whitespace: what `/\s+/g` → `" "` changes. */
const MORE_THAN_A_SPACE = /[^\S ]| \s/

/**
 * A text on one line, whitespace runs made one space, cut to {@link TEXT_MAX}
 * with an ellipsis. A long text is flattened from a prefix first: when the
 * prefix alone flattens past the cut, the cut text is the same.
 */
export const oneLine = (s: string): string => {
  // Already one line (no whitespace but single spaces, none at an end): the replace below would copy it unchanged.
  if (s.length <= TEXT_MAX && !MORE_THAN_A_SPACE.test(s) && s.charCodeAt(0) !== 32 && s.charCodeAt(s.length - 1) !== 32) return s
  if (s.length > TEXT_MAX * 4) {
    const head = s.slice(0, TEXT_MAX * 4).replace(/\s+/g, " ").trimStart()
    if (head.length > TEXT_MAX + 1) return head.slice(0, TEXT_MAX - 1) + "…"
  }
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > TEXT_MAX ? flat.slice(0, TEXT_MAX - 1) + "…" : flat
}

/** The effective kind: `payload.event.kind`, else `payload_type` (seed 001). */
export const effectiveKind = (env: Pick<RecordEnvelope, "payload" | "payload_type">): string => {
  const k = at(env.payload, "event", "kind")
  return typeof k === "string" && k.length > 0 ? k : env.payload_type
}

/** The record type of a command Muse Code received (a turn, a slash command, a cancel…). */
export const COMMAND_INTAKE = "runtime.command_intake.received"

/**
 * The person's prompt a record holds, else undefined: the `payload.record.command.prompt` of a
 * `runtime.command_intake.received` record whose command is a submitted turn (`command.kind` `turn_submit`), when it
 * holds more than white space. Another command (a slash command, a cancel: the log marks them by their kind), a
 * runtime fact (`runtime.session`: a run's start, its model's messages), a tool's output or a subagent's log is no
 * person's prompt. What a session is titled by (docs/providers.md, "Muse Code session titles").
 */
export const personPromptOf = (payloadType: unknown, payload: unknown): string | undefined => {
  if (payloadType !== COMMAND_INTAKE) return undefined
  const command = at(payload, "record", "command")
  if (!isRecord(command) || command.kind !== "turn_submit") return undefined
  const prompt = command.prompt
  return typeof prompt === "string" && /\S/.test(prompt) ? prompt : undefined
}

/**
 * Looks for the title of a source's own session as its records go by, in order (`StreamOptions.onTitle`): the
 * session given, else the first record's (as discovery names a native log's session); its title is its first
 * person's prompt ({@link personPromptOf}) read as a title (`titleOf`: white space collapsed, clipped to 80
 * characters ending in an ellipsis, no lone surrogate), reported once with the session. Records of other sessions
 * are passed over.
 */
export class TitleWatch {
  /** True once the title was reported. */
  done = false
  constructor(
    private readonly report: (title: string, sessionId: string) => void,
    /** The own session; undefined: the first record's. */
    public session?: string | undefined
  ) {}

  /** One record of the source (its `payload_type` and `payload`) and its session. */
  see(payloadType: unknown, payload: unknown, sessionId: string): void {
    if (this.done) return
    if (this.session === undefined) this.session = sessionId
    else if (sessionId !== this.session) return
    const prompt = personPromptOf(payloadType, payload)
    if (prompt === undefined) return
    this.done = true
    this.report(titleOf(prompt), sessionId)
  }
}

/** The tool name of `operation: "tool:<name>"`, else null. */
export const toolNameOf = (operation: unknown): string | null =>
  typeof operation === "string" && operation.startsWith("tool:") && operation.length > 5 ? operation.slice(5) : null

const firstString = (...candidates: ReadonlyArray<unknown>): string | undefined => {
  for (const c of candidates) if (typeof c === "string" && c.length > 0) return c
  return undefined
}

/** A one-line human summary of a runtime fact, or null. */
const summarize = (kind: string, payload: Record<string, unknown> | undefined): string | null => {
  const p = payload ?? {}
  const operation = str(p, "operation")
  if (operation !== undefined) {
    const decision = str(p, "policy_decision")
    return oneLine(`${operation}${decision !== undefined ? ` (${decision})` : ""}`)
  }
  const text = firstString(
    at(p, "event", "task"),
    at(p, "event", "action"),
    at(p, "event", "prompt"),
    at(p, "record", "command", "prompt"),
    at(p, "record", "display_label")
  )
  if (text !== undefined) return oneLine(text)
  const decision = str(p, "decision")
  if (decision !== undefined) return oneLine(`${kind}: ${decision}`)
  const outcome = str(p, "outcome")
  if (outcome !== undefined) return oneLine(`${kind}: ${outcome}`)
  return null
}

const pick = (out: Record<string, unknown>, key: string, value: unknown) => {
  if (value !== undefined) out[key] = value
}

/** A record's schema error in one bounded line, deepest issue first ({@link schemaIssues}: tester36a F2). */
const describeIssue = (e: ParseResult.ParseError): string => schemaIssues(e)

/**
 * Map one record envelope to a {@link SessionEvent}. Fails with
 * `MalformedSource` when the envelope does not have the documented shape or
 * its `recorded_at` is not a timestamp (fail closed, seed 001). `where` names
 * the place in the source for the error message.
 */
export const mapRecordEnvelope = (
  raw: unknown,
  ctx: RecordContext,
  where: string
): Either.Either<SessionEvent, MalformedSource> => {
  if (!isRecordEnvelope(raw)) {
    const decoded = decodeEnvelope(raw)
    const seq = isObject(raw) ? raw.sequence : undefined
    const unsafe = typeof seq === "number" && Number.isInteger(seq) && seq > Number.MAX_SAFE_INTEGER
    return Either.left(
      new MalformedSource({
        message: `${where}: not a Muse Code record envelope (${
          Either.isLeft(decoded) ? describeIssue(decoded.left) : "unexpected shape"
        }).`,
        remediation: "The source is not a valid Muse Code trajectory; re-export it with `muse export`.",
        details: unsafe ? { where, unsafeSequence: seq } : { where }
      })
    )
  }
  const env = raw
  let occurredAt: string | null = null
  if (env.recorded_at !== undefined) {
    const ts = normalizeTimestamp(env.recorded_at)
    if (ts._tag === "invalid") {
      return Either.left(
        new MalformedSource({
          message: `${where}: recorded_at ${JSON.stringify(env.recorded_at)} is not a usable timestamp (${ts.problem}).`,
          remediation: "Muse Code writes recorded_at as epoch microseconds or RFC 3339 with a zone; re-export the session.",
          details: { where, problem: ts.problem }
        })
      )
    }
    occurredAt = ts.value
  }
  const payload = env.payload
  const kind = effectiveKind(env)
  const operation = str(payload, "operation")
  const record = at(payload, "record")
  const subagentId = firstString(at(record, "subagent_id"), at(payload, "subagent_id"))
  const spawn = subagentId !== undefined ? ctx.spawns.get(subagentId) : undefined
  const native: Record<string, unknown> = {
    envelopeId: env.id ?? null,
    causationId: env.causation_id ?? null,
    recordType: env.record_type ?? null,
    durability: env.durability ?? null,
    payloadType: env.payload_type,
    envelopeSequence: env.sequence,
    recordedAt: env.recorded_at ?? null,
    stream: env.stream !== undefined ? { id: env.stream.id, kind: env.stream.kind ?? null } : null,
    attribution: env.stream !== undefined ? "envelope" : "fallback"
  }
  pick(native, "schemaVersion", env.schema_version)
  pick(native, "payloadSchemaVersion", env.payload_schema_version)
  pick(native, "pendingActionId", str(payload, "pending_action_id"))
  pick(native, "operation", operation)
  pick(native, "policyDecision", str(payload, "policy_decision"))
  pick(native, "decision", str(payload, "decision"))
  pick(native, "policyResult", str(payload, "policy_result"))
  pick(native, "decisionSource", isRecord(at(payload, "decision_source")) ? at(payload, "decision_source") : undefined)
  pick(native, "outcome", str(payload, "outcome"))
  pick(native, "subagentId", subagentId)
  pick(native, "childSessionId", firstString(at(record, "child_session_id"), at(payload, "child_session_id")))
  pick(native, "subagentSessionId", firstString(at(record, "subagent_session_id"), at(payload, "subagent_session_id")))
  pick(native, "sourceSessionId", firstString(at(record, "source_session_id"), at(payload, "source_session_id")))
  pick(native, "spawnRole", spawn?.role)
  pick(native, "agentPath", spawn?.agent_path)
  pick(native, "spawnParentSessionId", spawn?.parent_session_id)
  pick(native, "runStream", at(record, "run_stream"))
  native.payload = payload ?? null
  const envelopeUnknown = unknownFieldsOf(env, ENVELOPE_FIELDS)
  const streamUnknown = env.stream !== undefined ? unknownFieldsOf(env.stream, STREAM_FIELDS) : undefined
  if (envelopeUnknown !== undefined || streamUnknown !== undefined || ctx.eventUnknown !== undefined) {
    const unknown: Record<string, unknown> = {}
    if (envelopeUnknown !== undefined) unknown.envelope = envelopeUnknown
    if (streamUnknown !== undefined) unknown.stream = streamUnknown
    if (ctx.eventUnknown !== undefined) unknown.event = ctx.eventUnknown
    native[UNKNOWN_FIELDS] = unknown
  }
  Object.assign(native, ctx.provenance)

  const model = firstString(at(record, "model_id"), at(payload, "model_id")) ?? null
  // Keys assigned in this order (the JSON is the same as spreading `{ offset }` and `{ childIndex }`), without a
  // temporary object per event (issue 13, first import).
  const rawReference: Mutable<RawReference> = {
    locatorClass: ctx.locatorClass,
    sequence: ctx.sequence
  }
  if (ctx.offset !== undefined) rawReference.offset = ctx.offset
  if (ctx.childIndex !== undefined) rawReference.childIndex = ctx.childIndex
  return Either.right({
    contractVersion: CONTRACT_VERSION,
    provider: "muse-code",
    sourceId: ctx.sourceId,
    sessionId: env.stream?.id ?? ctx.fallbackSessionId,
    eventId: `muse-seq-${env.sequence}`,
    sequence: ctx.sequence,
    kind,
    role: null,
    toolName: toolNameOf(operation),
    toolCallId: null,
    model,
    occurredAt,
    text: summarize(kind, payload),
    cursor: ctx.cursor,
    rawReference,
    extensions: { "native.muse": native },
    toolInput: null,
    isError: null,
    compaction: null,
    parent: ctx.parent ?? null,
    child: childOf(native),
    usage: null,
    responseId: null,
    costUsd: null
  })
}

/**
 * The child session a `subagent.control.*` record names: `child_session_id`
 * (else `subagent_session_id`) and the spawn handle `subagent_id`, kept
 * distinct (seed 001); null when it names none of them.
 */
const childOf = (native: Record<string, unknown>): ChildLink | null => {
  const sessionId = typeof native.childSessionId === "string"
    ? native.childSessionId
    : typeof native.subagentSessionId === "string"
    ? native.subagentSessionId
    : null
  const subagentId = typeof native.subagentId === "string" ? native.subagentId : null
  return sessionId === null && subagentId === null ? null : { sessionId, subagentId }
}
