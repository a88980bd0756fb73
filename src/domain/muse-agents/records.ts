/**
 * Muse agents transcript lines → classified records (seed `000_…`, "Record
 * layout", "Item kinds", "Decisions", "Notes"). Pure: no I/O.
 *
 * A transcript is JSONL: one `session_header`, then `item` and
 * `compaction_checkpoint` records. The provider is tolerant (DESIGN.md,
 * "Providers"): a line that cannot be used is classified as a
 * {@link LineWarning} (skipped and counted), never an error. Unknown record
 * types, unknown item kinds, unknown roles and `developer` messages are
 * skipped silently (forward compatibility; developer messages are runtime
 * instructions, not user content).
 *
 * @module
 */
import * as Schema from "effect/Schema"
import { type InexactNumbers, inexactNumbers, isRecord, parseJson } from "../json.js"
import { type BadLineKind, lineObject, type RawLine } from "../jsonl-line.js"
import { timestampOrNull, timestampWarningOf } from "../timestamps.js"
import { normalizeToolCall } from "./tools.js"

/**
 * Kinds of parse warning (each counted as `{kind, count, firstLine}`):
 * - `malformed-json`: a terminated line that is not JSON;
 * - `truncated-line`: an unterminated last line that is not JSON (a write cut mid-line);
 * - `non-object`: JSON that is not an object (`null`, an array, a scalar; seed 000);
 * - `too-deep`: JSON nested deeper than the import limit's `maxDepth`;
 * - `oversized-line`: a line longer than the import limit's `maxRecordBytes` (not held);
 * - `zeroed-bytes`: a line that is not JSON because it holds a zeroed run (NUL bytes to its end, or 512 in a row: blocks zeroed by a crash or a power loss);
 * - `invalid-record`: a known record or item type without its required fields
 *   (a header without `session_id`, an item without an `item` object, a
 *   `function_call` without `call_id`/`name`, …);
 * - `duplicate-header`: a second `session_header` (seed 000: once per file; the first wins).
 */
export type LineWarningKind = BadLineKind | "invalid-record" | "duplicate-header"

/** One physical line as the classifier sees it (bytes already decoded as UTF-8, invalid bytes as U+FFFD). */
export type { RawLine }

// ---------------------------------------------------------------------------
// Native shapes (only the fields the mapping reads; extra fields are ignored).

/** `{"type":"session_header","session_id","agent_id","created_at"}` (seed 000). */
export const SessionHeaderRecord = Schema.Struct({
  type: Schema.Literal("session_header"),
  session_id: Schema.NonEmptyString,
  agent_id: Schema.optional(Schema.NullOr(Schema.String)),
  created_at: Schema.optional(Schema.Unknown)
})

/** `{"type":"item","seq","source","item":{...},"created_at"}` (seed 000). */
export const ItemRecord = Schema.Struct({
  type: Schema.Literal("item"),
  seq: Schema.optional(Schema.Unknown),
  source: Schema.optional(Schema.Unknown),
  item: Schema.Object,
  created_at: Schema.optional(Schema.Unknown)
})

/**
 * `{"type":"compaction_checkpoint","compaction_id","trigger","summary"}` (seed
 * 000). The `summary` is deliberately not part of the shape: it is never
 * replayed, so it is never decoded or carried. `compaction_id` is a string or
 * a number (the seed names no type; the runtime writes integers, as
 * vibe-replay's fixtures do); a number becomes its decimal text.
 */
export const CompactionCheckpointRecord = Schema.Struct({
  type: Schema.Literal("compaction_checkpoint"),
  compaction_id: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  trigger: Schema.optional(Schema.NullOr(Schema.String)),
  created_at: Schema.optional(Schema.Unknown)
})

/** Item `message`: `{role, text}`. */
export const MessageItem = Schema.Struct({
  type: Schema.Literal("message"),
  role: Schema.String,
  text: Schema.String
})

/** Item `message_parts`: `{role, parts[]}`; the text lives in `parts[].text`. */
export const MessagePartsItem = Schema.Struct({
  type: Schema.Literal("message_parts"),
  role: Schema.String,
  parts: Schema.Array(Schema.Unknown)
})

/** Item `thinking`: `{thinking}`. */
export const ThinkingItem = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String
})

/** Item `commentary_text`: short assistant narration in `text` (the seed names no field; `text` as `message`). */
export const CommentaryItem = Schema.Struct({
  type: Schema.Literal("commentary_text"),
  text: Schema.String
})

/** Item `function_call`: `{call_id, name, arguments}`, `arguments` a JSON string (an object is accepted too). */
export const FunctionCallItem = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.NonEmptyString,
  name: Schema.NonEmptyString,
  arguments: Schema.optional(Schema.Unknown)
})

/** Item `function_call_output`: `{call_id, output, success}`; `success: false` marks an error. */
export const FunctionCallOutputItem = Schema.Struct({
  type: Schema.Literal("function_call_output"),
  call_id: Schema.NonEmptyString,
  output: Schema.optional(Schema.Unknown),
  success: Schema.optional(Schema.NullOr(Schema.Boolean))
})

const isString = (v: unknown): v is string => typeof v === "string"
const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0
const isOptionalNullableString = (v: unknown) => v === undefined || v === null || typeof v === "string"
const isOptionalNullableStringOrNumber = (v: unknown) => isOptionalNullableString(v) || typeof v === "number"

/**
 * Hot-path checks with the same answers as decoding the Schemas above
 * (`Schema.decodeUnknownEither(X)(u)` is Right exactly when `recordGuards.X(u)`;
 * a property test holds each pair together). A transcript line is checked
 * once or twice, and Schema decoding was a fifth of `stream`'s time (bench
 * figure (a)). Each takes an object whose `type` the caller already matched.
 */
export const recordGuards = {
  SessionHeaderRecord: (u: Record<string, unknown>) =>
    u.type === "session_header" && isNonEmptyString(u.session_id) && isOptionalNullableString(u.agent_id),
  ItemRecord: (u: Record<string, unknown>) => u.type === "item" && typeof u.item === "object" && u.item !== null,
  CompactionCheckpointRecord: (u: Record<string, unknown>) =>
    u.type === "compaction_checkpoint" && isOptionalNullableStringOrNumber(u.compaction_id) &&
    isOptionalNullableString(u.trigger),
  MessageItem: (u: Record<string, unknown>) => u.type === "message" && isString(u.role) && isString(u.text),
  MessagePartsItem: (u: Record<string, unknown>) =>
    u.type === "message_parts" && isString(u.role) && Array.isArray(u.parts),
  ThinkingItem: (u: Record<string, unknown>) => u.type === "thinking" && isString(u.thinking),
  CommentaryItem: (u: Record<string, unknown>) => u.type === "commentary_text" && isString(u.text),
  FunctionCallItem: (u: Record<string, unknown>) =>
    u.type === "function_call" && isNonEmptyString(u.call_id) && isNonEmptyString(u.name),
  FunctionCallOutputItem: (u: Record<string, unknown>) =>
    u.type === "function_call_output" && isNonEmptyString(u.call_id) &&
    (u.success === undefined || u.success === null || typeof u.success === "boolean")
} as const

// ---------------------------------------------------------------------------
// Classified records.

/** A transcript entry: what one `item` record contributes to the conversation. */
export type Entry =
  | {
    readonly _tag: "Message"
    readonly role: "user" | "assistant"
    readonly text: string
    /** `message`, or `message_parts` (text joined from `parts[].text` with `\n`). */
    readonly itemType: "message" | "message_parts"
  }
  | { readonly _tag: "Thinking"; readonly text: string }
  | { readonly _tag: "Commentary"; readonly text: string }
  | {
    readonly _tag: "ToolCall"
    readonly callId: string
    /** Canonical name (see `tools.ts`). */
    readonly name: string
    readonly nativeName: string
    /** Normalized input: parsed `arguments` with canonical keys; the raw string when it is not JSON. */
    readonly input: unknown
    /** True when `arguments` was a string that is not JSON (kept as the raw string). */
    readonly argumentsUnparsed: boolean
    /**
     * Numbers of an `arguments` JSON text that the parsed input does not
     * carry exactly (`inexactNumbers`: the line's own check skips strings);
     * absent when there are none.
     */
    readonly argumentsInexact?: InexactNumbers | undefined
  }
  | {
    readonly _tag: "ToolOutput"
    readonly callId: string
    /** `output` as text (a non-string output as its JSON). */
    readonly output: string
    readonly success: boolean | null
  }

/** Result of classifying one line. */
export type Classified =
  /** An empty or whitespace-only line: not a record, no warning. */
  | { readonly _tag: "Blank" }
  /** A line skipped silently: an unknown record or item type, a developer message, an unknown role. */
  | { readonly _tag: "Ignored"; readonly reason: "unknown-record" | "unknown-item" | "developer-message" | "unknown-role" }
  /** A line skipped with a counted warning. */
  | { readonly _tag: "LineWarning"; readonly kind: LineWarningKind }
  | {
    readonly _tag: "Header"
    readonly sessionId: string
    readonly agentId: string | null
    /** RFC 3339 or null. */
    readonly createdAt: string | null
    /** The warning `created_at` gives (`timestampWarningOf`): not a time, or a date it cannot be; null when fine or absent. */
    readonly timestampWarning: "timestamp-not-valid" | "implausible-timestamp" | null
  }
  | {
    readonly _tag: "Compaction"
    /** `compaction_id` (a number as its decimal text), or null when absent. */
    readonly compactionId: string | null
    readonly trigger: string | null
    readonly createdAt: string | null
    /** The warning `created_at` gives (`timestampWarningOf`): not a time, or a date it cannot be; null when fine or absent. */
    readonly timestampWarning: "timestamp-not-valid" | "implausible-timestamp" | null
  }
  | {
    readonly _tag: "Item"
    /** Native `seq` when it is an integer. */
    readonly seq: number | null
    /** Provenance label (`runtime`, `runtime.feed`, `scheduler.cron`, …) or null. */
    readonly source: string | null
    readonly createdAt: string | null
    /** The warning `created_at` gives (`timestampWarningOf`): not a time, or a date it cannot be; null when fine or absent. */
    readonly timestampWarning: "timestamp-not-valid" | "implausible-timestamp" | null
    readonly entry: Entry
  }

const BLANK = { _tag: "Blank" } as const
const warn = (kind: LineWarningKind): Classified => ({ _tag: "LineWarning", kind })
const ignored = (reason: "unknown-record" | "unknown-item" | "developer-message" | "unknown-role"): Classified => ({
  _tag: "Ignored",
  reason
})

/** Join of `message_parts` text: every part's string `text`, in order, joined with `\n`. */
export const joinParts = (parts: ReadonlyArray<unknown>): string => {
  const texts: Array<string> = []
  for (const p of parts) {
    if (isRecord(p) && typeof p.text === "string") texts.push(p.text)
  }
  return texts.join("\n")
}

const outputText = (output: unknown): string => {
  if (output === undefined || output === null) return ""
  if (typeof output === "string") return output
  try {
    return JSON.stringify(output) ?? ""
  } catch {
    return String(output)
  }
}

const roleOf = (role: string): "user" | "assistant" | "developer" | null =>
  role === "user" || role === "assistant" || role === "developer" ? role : null

const toolInput = (args: unknown, maxDepth: number): { input: unknown; unparsed: boolean; inexact?: InexactNumbers | undefined } => {
  if (args === undefined || args === null) return { input: {}, unparsed: false }
  if (typeof args !== "string") return { input: args, unparsed: false }
  if (args.trim().length === 0) return { input: {}, unparsed: false }
  const parsed = parseJson(args, maxDepth)
  return parsed._tag === "ok" ? { input: parsed.value, unparsed: false, inexact: inexactNumbers(args) } : { input: args, unparsed: true }
}

/** Map an `item` record's `item` object to an {@link Entry}, or say why it is skipped. */
const classifyItem = (
  item: Record<string, unknown>,
  maxDepth: number
): Entry | { readonly skip: "unknown-item" | "developer-message" | "unknown-role" | "invalid" } => {
  switch (item.type) {
    case "message": {
      if (!recordGuards.MessageItem(item)) return { skip: "invalid" }
      const m = item as typeof MessageItem.Type
      const role = roleOf(m.role)
      if (role === null) return { skip: "unknown-role" }
      if (role === "developer") return { skip: "developer-message" }
      return { _tag: "Message", role, text: m.text, itemType: "message" }
    }
    case "message_parts": {
      if (!recordGuards.MessagePartsItem(item)) return { skip: "invalid" }
      const m = item as typeof MessagePartsItem.Type
      const role = roleOf(m.role)
      if (role === null) return { skip: "unknown-role" }
      if (role === "developer") return { skip: "developer-message" }
      return { _tag: "Message", role, text: joinParts(m.parts), itemType: "message_parts" }
    }
    case "thinking":
      return recordGuards.ThinkingItem(item) ? { _tag: "Thinking", text: (item as typeof ThinkingItem.Type).thinking } : { skip: "invalid" }
    case "commentary_text":
      return recordGuards.CommentaryItem(item) ? { _tag: "Commentary", text: (item as typeof CommentaryItem.Type).text } : { skip: "invalid" }
    case "function_call": {
      if (!recordGuards.FunctionCallItem(item)) return { skip: "invalid" }
      const f = item as typeof FunctionCallItem.Type
      const { inexact, input, unparsed } = toolInput(f.arguments, maxDepth)
      const normalized = normalizeToolCall(f.name, input)
      return {
        _tag: "ToolCall",
        callId: f.call_id,
        name: normalized.name,
        nativeName: f.name,
        input: normalized.input,
        argumentsUnparsed: unparsed,
        ...(inexact !== undefined ? { argumentsInexact: inexact } : {})
      }
    }
    case "function_call_output": {
      if (!recordGuards.FunctionCallOutputItem(item)) return { skip: "invalid" }
      const o = item as typeof FunctionCallOutputItem.Type
      return {
        _tag: "ToolOutput",
        callId: o.call_id,
        output: outputText(o.output),
        success: o.success ?? null
      }
    }
    default:
      return { skip: "unknown-item" }
  }
}

/**
 * The warning kind counted (kept, not skipped) for a record whose
 * `created_at` is there but not a time (`"not a date"`, a `+99:00` zone, an
 * empty string, a negative number, ...): its event is kept with `occurredAt`
 * null. The kind Claude Code counts for its `timestamp`.
 */
export const TIMESTAMP_NOT_VALID = "timestamp-not-valid"


/**
 * Classify one physical line (seed 000). Never throws: invalid JSON, non-object
 * JSON, over-deep JSON, an oversized line and a known record without its
 * required fields are {@link LineWarning}s; unknown types are `Ignored`.
 * `maxDepth` is the import limit on JSON nesting. A `\uFEFF` at the start of a
 * line (a BOM left by concatenation) is dropped. Lone-surrogate escapes and
 * U+2028/U+2029 inside strings are ordinary JSON and kept as they are.
 */
export const classifyLine = (line: RawLine, maxDepth: number): Classified => {
  const l = lineObject(line, maxDepth)
  if (l._tag === "Blank") return BLANK
  if (l._tag === "Bad") return warn(l.kind)
  const value = l.value
  switch (value.type) {
    case "session_header": {
      if (!recordGuards.SessionHeaderRecord(value)) return warn("invalid-record")
      const h = value as typeof SessionHeaderRecord.Type
      return {
        _tag: "Header",
        sessionId: h.session_id,
        agentId: h.agent_id ?? null,
        createdAt: timestampOrNull(h.created_at),
        timestampWarning: timestampWarningOf(h.created_at)
      }
    }
    case "compaction_checkpoint": {
      if (!recordGuards.CompactionCheckpointRecord(value)) return warn("invalid-record")
      const c = value as typeof CompactionCheckpointRecord.Type
      return {
        _tag: "Compaction",
        compactionId: c.compaction_id === undefined || c.compaction_id === null ? null : String(c.compaction_id),
        trigger: c.trigger ?? null,
        createdAt: timestampOrNull(c.created_at),
        timestampWarning: timestampWarningOf(c.created_at)
      }
    }
    case "item": {
      if (!recordGuards.ItemRecord(value) || !isRecord(value.item)) return warn("invalid-record")
      const entry = classifyItem(value.item, maxDepth)
      if ("skip" in entry) return entry.skip === "invalid" ? warn("invalid-record") : ignored(entry.skip)
      const seq = value.seq
      return {
        _tag: "Item",
        seq: typeof seq === "number" && Number.isSafeInteger(seq) ? seq : null,
        source: typeof value.source === "string" ? value.source : null,
        createdAt: timestampOrNull(value.created_at),
        timestampWarning: timestampWarningOf(value.created_at),
        entry
      }
    }
    default:
      return ignored("unknown-record")
  }
}

/**
 * True for a provenance label of a runtime directive (seed 000): dotted
 * `runtime.*` and `scheduler.cron`. A bare `runtime` (interactive), a missing
 * label and any other label are not directives.
 */
export const isDirectiveSource = (source: string | null): boolean =>
  source !== null && (source.startsWith("runtime.") || source === "scheduler.cron")

/** The marker that opens an injected subagent-context user message (seed 000). */
export const SUBAGENT_CONTEXT_PREFIX = "[Subagent Context]"

/** True for a user message that begins (after leading whitespace) with `[Subagent Context]` (seed 000). */
export const isSubagentContext = (text: string): boolean => text.trimStart().startsWith(SUBAGENT_CONTEXT_PREFIX)
