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
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { isRecord, parseJson } from "../json.js"
import { timestampOrNull } from "../timestamps.js"
import { normalizeToolCall } from "./tools.js"

/**
 * Kinds of parse warning (each counted as `{kind, count, firstLine}`):
 * - `malformed-json`: a terminated line that is not JSON;
 * - `truncated-line`: an unterminated last line that is not JSON (a write cut mid-line);
 * - `non-object`: JSON that is not an object (`null`, an array, a scalar; seed 000);
 * - `too-deep`: JSON nested deeper than the import limit's `maxDepth`;
 * - `oversized-line`: a line longer than the import limit's `maxRecordBytes` (not held);
 * - `invalid-record`: a known record or item type without its required fields
 *   (a header without `session_id`, an item without an `item` object, a
 *   `function_call` without `call_id`/`name`, …);
 * - `duplicate-header`: a second `session_header` (seed 000: once per file; the first wins).
 */
export type LineWarningKind =
  | "malformed-json"
  | "truncated-line"
  | "non-object"
  | "too-deep"
  | "oversized-line"
  | "invalid-record"
  | "duplicate-header"

/** One physical line as the classifier sees it (bytes already decoded as UTF-8, invalid bytes as U+FFFD). */
export interface RawLine {
  /** The line's text without its `\n` (a trailing `\r` is allowed). */
  readonly text: string
  /** 1-based physical line number in the file. */
  readonly lineNumber: number
  /** False for a last line with no `\n`. */
  readonly terminated: boolean
  /** True when the line passed the record-size limit and its bytes were not read. */
  readonly oversized?: boolean | undefined
}

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
 * replayed, so it is never decoded or carried.
 */
export const CompactionCheckpointRecord = Schema.Struct({
  type: Schema.Literal("compaction_checkpoint"),
  compaction_id: Schema.optional(Schema.NullOr(Schema.String)),
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

const decodeHeader = Schema.decodeUnknownEither(SessionHeaderRecord)
const decodeItemRecord = Schema.decodeUnknownEither(ItemRecord)
const decodeCompaction = Schema.decodeUnknownEither(CompactionCheckpointRecord)
const decodeMessage = Schema.decodeUnknownEither(MessageItem)
const decodeMessageParts = Schema.decodeUnknownEither(MessagePartsItem)
const decodeThinking = Schema.decodeUnknownEither(ThinkingItem)
const decodeCommentary = Schema.decodeUnknownEither(CommentaryItem)
const decodeFunctionCall = Schema.decodeUnknownEither(FunctionCallItem)
const decodeFunctionCallOutput = Schema.decodeUnknownEither(FunctionCallOutputItem)

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
  }
  | {
    readonly _tag: "Compaction"
    /** `compaction_id`, or null when absent. */
    readonly compactionId: string | null
    readonly trigger: string | null
    readonly createdAt: string | null
  }
  | {
    readonly _tag: "Item"
    /** Native `seq` when it is an integer. */
    readonly seq: number | null
    /** Provenance label (`runtime`, `runtime.feed`, `scheduler.cron`, …) or null. */
    readonly source: string | null
    readonly createdAt: string | null
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

const toolInput = (args: unknown, maxDepth: number): { input: unknown; unparsed: boolean } => {
  if (args === undefined || args === null) return { input: {}, unparsed: false }
  if (typeof args !== "string") return { input: args, unparsed: false }
  if (args.trim().length === 0) return { input: {}, unparsed: false }
  const parsed = parseJson(args, maxDepth)
  return parsed._tag === "ok" ? { input: parsed.value, unparsed: false } : { input: args, unparsed: true }
}

/** Map an `item` record's `item` object to an {@link Entry}, or say why it is skipped. */
const classifyItem = (
  item: object,
  maxDepth: number
): Entry | { readonly skip: "unknown-item" | "developer-message" | "unknown-role" | "invalid" } => {
  const type = (item as { type?: unknown }).type
  switch (type) {
    case "message": {
      const m = decodeMessage(item)
      if (Either.isLeft(m)) return { skip: "invalid" }
      const role = roleOf(m.right.role)
      if (role === null) return { skip: "unknown-role" }
      if (role === "developer") return { skip: "developer-message" }
      return { _tag: "Message", role, text: m.right.text, itemType: "message" }
    }
    case "message_parts": {
      const m = decodeMessageParts(item)
      if (Either.isLeft(m)) return { skip: "invalid" }
      const role = roleOf(m.right.role)
      if (role === null) return { skip: "unknown-role" }
      if (role === "developer") return { skip: "developer-message" }
      return { _tag: "Message", role, text: joinParts(m.right.parts), itemType: "message_parts" }
    }
    case "thinking": {
      const t = decodeThinking(item)
      return Either.isLeft(t) ? { skip: "invalid" } : { _tag: "Thinking", text: t.right.thinking }
    }
    case "commentary_text": {
      const c = decodeCommentary(item)
      return Either.isLeft(c) ? { skip: "invalid" } : { _tag: "Commentary", text: c.right.text }
    }
    case "function_call": {
      const f = decodeFunctionCall(item)
      if (Either.isLeft(f)) return { skip: "invalid" }
      const { input, unparsed } = toolInput(f.right.arguments, maxDepth)
      const normalized = normalizeToolCall(f.right.name, input)
      return {
        _tag: "ToolCall",
        callId: f.right.call_id,
        name: normalized.name,
        nativeName: f.right.name,
        input: normalized.input,
        argumentsUnparsed: unparsed
      }
    }
    case "function_call_output": {
      const o = decodeFunctionCallOutput(item)
      if (Either.isLeft(o)) return { skip: "invalid" }
      return {
        _tag: "ToolOutput",
        callId: o.right.call_id,
        output: outputText(o.right.output),
        success: o.right.success ?? null
      }
    }
    default:
      return { skip: "unknown-item" }
  }
}

const isWhitespace = (s: string): boolean => /^[\s\uFEFF]*$/.test(s)

/**
 * Classify one physical line (seed 000). Never throws: invalid JSON, non-object
 * JSON, over-deep JSON, an oversized line and a known record without its
 * required fields are {@link LineWarning}s; unknown types are `Ignored`.
 * `maxDepth` is the import limit on JSON nesting. A `\uFEFF` at the start of a
 * line (a BOM left by concatenation) is dropped. Lone-surrogate escapes and
 * U+2028/U+2029 inside strings are ordinary JSON and kept as they are.
 */
export const classifyLine = (line: RawLine, maxDepth: number): Classified => {
  if (line.oversized === true) return warn("oversized-line")
  const text = line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text
  if (isWhitespace(text)) return BLANK
  const parsed = parseJson(text, maxDepth)
  if (parsed._tag === "error") {
    if (parsed.problem._tag === "depth") return warn("too-deep")
    return warn(line.terminated ? "malformed-json" : "truncated-line")
  }
  const value = parsed.value
  if (!isRecord(value)) return warn("non-object")
  switch (value.type) {
    case "session_header": {
      const h = decodeHeader(value)
      if (Either.isLeft(h)) return warn("invalid-record")
      return {
        _tag: "Header",
        sessionId: h.right.session_id,
        agentId: h.right.agent_id ?? null,
        createdAt: timestampOrNull(h.right.created_at)
      }
    }
    case "compaction_checkpoint": {
      const c = decodeCompaction(value)
      if (Either.isLeft(c)) return warn("invalid-record")
      return {
        _tag: "Compaction",
        compactionId: c.right.compaction_id ?? null,
        trigger: c.right.trigger ?? null,
        createdAt: timestampOrNull(c.right.created_at)
      }
    }
    case "item": {
      const r = decodeItemRecord(value)
      if (Either.isLeft(r) || !isRecord(r.right.item)) return warn("invalid-record")
      const entry = classifyItem(r.right.item, maxDepth)
      if ("skip" in entry) return entry.skip === "invalid" ? warn("invalid-record") : ignored(entry.skip)
      const seq = r.right.seq
      return {
        _tag: "Item",
        seq: typeof seq === "number" && Number.isSafeInteger(seq) ? seq : null,
        source: typeof r.right.source === "string" ? r.right.source : null,
        createdAt: timestampOrNull(r.right.created_at),
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
