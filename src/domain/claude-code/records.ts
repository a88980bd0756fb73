/**
 * Claude Code session-log lines → classified records
 * (`fixtures/claude-code/README.md`, "Lines"). Pure: no I/O.
 *
 * A session log is JSONL, one object a line, each with a `type`:
 * `user` / `assistant` / `system` carry the conversation (common fields
 * `uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`, `gitBranch`,
 * `version`, `isSidechain`, `agentId`, …), `summary` names a conversation by
 * its leaf uuid, `custom-title` renames the session, `attachment` and a
 * `queue-operation` holding a prompt are entries of their own (see
 * {@link Entry}), and the other kinds (`file-history-snapshot`,
 * `last-prompt`, …, and any unknown one) hold no conversation and
 * are skipped (`progress` is kept: {@link PROGRESS_RECORD}). Tolerant (as Muse agents): a line that cannot be used is a
 * {@link LineWarningKind} (skipped and counted), never an error; a line kept
 * with a part not understood is counted too ({@link UNKNOWN_BLOCK},
 * {@link TIMESTAMP_NOT_VALID}, {@link PROGRESS_RECORD}, `usage-not-valid`).
 *
 * @module
 */
import { isRecord } from "../json.js"
import { type BadLineKind, lineObject, type RawLine } from "../jsonl-line.js"
import { timestampOrNull, timestampWarningOf } from "../timestamps.js"
import { cacheWrite1hOf, statedCostOf, tokenCountOf, USAGE_NOT_VALID } from "../usage.js"

/**
 * Kinds of parse warning (the Muse agents kinds):
 * - `malformed-json`: a terminated line that is not JSON;
 * - `truncated-line`: an unterminated last line that is not JSON (a write cut mid-line);
 * - `non-object`: JSON that is not an object;
 * - `too-deep`: JSON nested deeper than the import limit's `maxDepth`;
 * - `oversized-line`: a line longer than `maxRecordBytes` (not held);
 * - `zeroed-bytes`: a line that is not JSON because it holds a zeroed run (NUL bytes to its end, or 512 in a row: blocks zeroed by a crash or a power loss);
 * - `invalid-record`: a `user` / `assistant` / `system` line without a `message`
 *   object (`user`, `assistant`), a `summary` line without a string `summary`,
 *   an `attachment` line without an `attachment` object.
 */
export type LineWarningKind = BadLineKind | "invalid-record"

/** One physical line as the classifier sees it (decoded as UTF-8). */
export type { RawLine }

/**
 * One content block of a `user` / `assistant` message, normalized.
 * - `tool_use` also stands for the Messages API's other tool calls,
 *   `server_tool_use` (web search, web fetch, code execution: run by the API)
 *   and `mcp_tool_use` (a remote MCP server's tool, `server_name`), and any
 *   `*_tool_use` block with an `id` and a `name` (`blockType` keeps which);
 * - `tool_result` also stands for `mcp_tool_result`, `web_search_tool_result`
 *   and any `*_tool_result` block with a `tool_use_id` (the text of a
 *   result's text blocks, else every string it holds: titles, urls, an
 *   `error_code`; `isError` its `is_error`, or an error object's);
 * - `document`: an attached document (PDF, text): its text when its source
 *   holds text, its `title` and `context`, its media type;
 * - `unknown`: anything else (a block of a type not listed here, a known one
 *   without its required fields, a non-object element, a `content` that is
 *   neither a string nor an array): kept, raw, with every string it holds as
 *   its text, and counted as {@link UNKNOWN_BLOCK}.
 */
export type Block =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string | null; readonly signed: boolean; readonly redacted: boolean }
  | {
    readonly type: "tool_use"
    readonly id: string
    readonly name: string
    readonly input: unknown
    readonly blockType: string
    readonly serverName: string | null
  }
  | {
    readonly type: "tool_result"
    readonly toolUseId: string
    readonly text: string
    readonly isError: boolean
    readonly blockType: string
    /** The media type of each `image` block of its `content` (a Read of a PNG, a screenshot): their bytes are not kept. */
    readonly images: ReadonlyArray<{ readonly mediaType: string | null }>
  }
  | { readonly type: "image"; readonly mediaType: string | null }
  | { readonly type: "document"; readonly text: string | null; readonly title: string | null; readonly mediaType: string | null }
  | { readonly type: "unknown"; readonly blockType: string; readonly raw: unknown; readonly text: string }

/**
 * The parse warning of a line kept with content not understood (a block of
 * an unknown type, a `content` that is not a string or an array of blocks):
 * the content is an event of kind `meta` whose native `block` is the raw value.
 */
export const UNKNOWN_BLOCK = "unknown-block"

/**
 * The parse warning of a line kept although its `timestamp` is not a valid
 * RFC 3339 time with a zone (no zone, a day the month does not have,
 * garbage): its events have `occurredAt: null`. A line without a timestamp is
 * not counted.
 */
export const TIMESTAMP_NOT_VALID = "timestamp-not-valid"

/**
 * The parse warning of a `progress` record (a tool's or a hook's progress,
 * written while it runs: `data` `{type: "hook_progress" | "bash_progress" |
 * "agent_progress" | …}`): kept as a `meta` event, role system, whose native
 * `block` is the raw `data` and whose text is every string it holds.
 */
export const PROGRESS_RECORD = "progress-record"

/**
 * Token usage of one assistant line (`message.usage`): input, output,
 * cache-read and cache-write (`cache_creation_input_tokens`) tokens, the part
 * of the cache writes written to the 1-hour cache
 * (`cache_creation.ephemeral_1h_input_tokens`, never more than the total:
 * `cacheWrite1hOf`), and the top-level `costUSD` older versions wrote (US
 * dollars), each null when absent.
 */
export interface Usage {
  readonly inputTokens: number | null
  readonly outputTokens: number | null
  readonly cacheReadTokens: number | null
  readonly cacheWriteTokens: number | null
  readonly cacheWrite1hTokens: number | null
  readonly costUSD: number | null
  /** `usage.speed` as written (`"standard"` or `"fast"`: fast mode is billed at its own rates); null when absent or not a string. */
  readonly speed: string | null
}

/**
 * A `user`, `assistant` or `system` line; an `attachment` line (context the
 * harness adds: a file, a hook's output, a reminder; `subtype` its
 * `attachment.type`, `systemText` every string it holds); a `queue-operation`
 * line that holds a prompt typed while the agent works (`subtype` its
 * `operation`, `systemText` its `content`).
 */
export interface Entry {
  readonly _tag: "Entry"
  readonly type: "user" | "assistant" | "system" | "attachment" | "queue-operation" | "progress"
  readonly uuid: string | null
  readonly parentUuid: string | null
  readonly logicalParentUuid: string | null
  readonly sessionId: string | null
  /** RFC 3339 or null. */
  readonly timestamp: string | null
  /** The warning the line's `timestamp` gives (`timestampWarningOf`: {@link TIMESTAMP_NOT_VALID}, `implausible-timestamp`), null when fine or absent. */
  readonly timestampWarning: "timestamp-not-valid" | "implausible-timestamp" | null
  readonly cwd: string | null
  readonly gitBranch: string | null
  readonly version: string | null
  readonly slug: string | null
  readonly isSidechain: boolean
  readonly agentId: string | null
  readonly isMeta: boolean
  readonly isCompactSummary: boolean
  /**
   * `message.content` as blocks (a string content is one text block); for
   * `system`, `[]`, or one `unknown` block holding a `content` that is not a
   * string; for `progress`, one `unknown` block holding its raw `data`.
   */
  readonly blocks: ReadonlyArray<Block>
  /** assistant: `message.id`, `requestId`, `message.model`, usage. */
  readonly messageId: string | null
  readonly requestId: string | null
  readonly model: string | null
  readonly usage: Usage | null
  /** True when the line's usage was dropped: a count or its cost not valid ({@link USAGE_NOT_VALID}). */
  readonly usageNotValid: boolean
  /**
   * system: `subtype`, `content` text, and for `compact_boundary` the trigger and `preTokens`;
   * attachment: `attachment.type` and its strings; queue-operation: `operation` and `content`.
   */
  readonly subtype: string | null
  readonly systemText: string | null
  readonly compactTrigger: string | null
  readonly compactPreTokens: number | null
  /** user: `toolUseResult.agentId` (the subagent a Task result names), if any. */
  readonly resultAgentId: string | null
  /** progress: its `toolUseID` (the tool call it reports on), if any. */
  readonly progressToolUseId: string | null
}

/** Result of classifying one line. */
export type Classified =
  | { readonly _tag: "Blank" }
  | { readonly _tag: "Ignored"; readonly type: string }
  | { readonly _tag: "LineWarning"; readonly kind: LineWarningKind }
  | { readonly _tag: "Summary"; readonly summary: string; readonly leafUuid: string | null }
  /**
   * A `/rename`: `{"type":"custom-title","customTitle":"…","sessionId":"…"}` (Claude Code writes it always,
   * as it does `summary`: jeremedia/claude-code-log-format `source-docs/JSONL_LOGGING.md`; the last one wins,
   * rymalia/claude-code-viewer `docs/feature_plan_custom_title_agent_name_support.md`). No event.
   */
  | { readonly _tag: "CustomTitle"; readonly title: string; readonly sessionId: string | null }
  | Entry

const BLANK = { _tag: "Blank" } as const
const warn = (kind: LineWarningKind): Classified => ({ _tag: "LineWarning", kind })
const s = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null)
const n = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null)

/** The text of a `tool_result`'s `content`: a string, or the `text` of its blocks joined with `\n`. */
export const resultText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    const texts: Array<string> = []
    for (const b of content) if (isRecord(b) && typeof b.text === "string") texts.push(b.text)
    return texts.join("\n")
  }
  return content === undefined || content === null ? "" : JSON.stringify(content)
}

/** No images (shared, frozen). */
const NO_IMAGES: ReadonlyArray<{ readonly mediaType: string | null }> = Object.freeze([])

/** The media type of each `image` block of a `tool_result`'s `content` (none for a string content). */
const resultImages = (content: unknown): ReadonlyArray<{ readonly mediaType: string | null }> => {
  if (!Array.isArray(content)) return NO_IMAGES
  let out: Array<{ readonly mediaType: string | null }> | undefined
  for (const b of content) {
    if (isRecord(b) && b.type === "image") (out ??= []).push({ mediaType: s(isRecord(b.source) ? b.source.media_type : undefined) })
  }
  return out ?? NO_IMAGES
}

/** Keys whose strings are no text (ids, kinds, encoded bytes). */
const NOT_TEXT_KEYS = new Set(["type", "id", "tool_use_id", "data", "signature", "encrypted_content", "encrypted_index", "media_type", "file_id"])

/** Every string `v` holds (depth first, keys in {@link NOT_TEXT_KEYS} left out), joined with `\n`. */
export const stringsOf = (v: unknown): string => {
  const out: Array<string> = []
  const walk = (x: unknown, depth: number): void => {
    if (depth > 64) return
    if (typeof x === "string") {
      if (x.length > 0) out.push(x)
    } else if (Array.isArray(x)) {
      for (const y of x) walk(y, depth + 1)
    } else if (isRecord(x)) {
      for (const [k, y] of Object.entries(x)) if (!NOT_TEXT_KEYS.has(k)) walk(y, depth + 1)
    }
  }
  walk(v, 0)
  return out.join("\n")
}

/** The text of an unknown block: its strings, else its one-line JSON. */
const unknownText = (v: unknown): string => {
  const t = stringsOf(v)
  if (t.length > 0) return t
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}

const unknownOf = (v: unknown): Block => ({
  type: "unknown",
  blockType: v === null ? "null" : Array.isArray(v) ? "array" : isRecord(v) ? (typeof v.type === "string" && v.type.length > 0 ? v.type : "object") : typeof v,
  raw: v,
  text: unknownText(v)
})

/** The text of a server or MCP tool's result: its text blocks', else every string it holds. */
const toolResultText = (content: unknown): string => {
  const t = resultText(content)
  return t.length > 0 || typeof content === "string" ? t : stringsOf(content)
}

/** True for an error a server tool's result holds in place of its content (`{type: "web_search_tool_result_error", error_code}`). */
const isErrorContent = (content: unknown): boolean =>
  isRecord(content) && ((typeof content.type === "string" && content.type.endsWith("_error")) || typeof content.error_code === "string")

const documentOf = (b: Record<string, unknown>): Block => {
  const src = isRecord(b.source) ? b.source : {}
  const body = src.type === "text" && typeof src.data === "string"
    ? src.data
    : src.type === "content"
    ? (typeof src.content === "string" ? src.content : resultText(src.content))
    : src.type === "url" && typeof src.url === "string"
    ? src.url
    : ""
  const parts = [s(b.title), s(b.context), body.length > 0 ? body : null].filter((x): x is string => x !== null)
  return { type: "document", text: parts.length > 0 ? parts.join("\n") : null, title: s(b.title), mediaType: s(src.media_type) }
}

const blockOf = (b: unknown): Block => {
  if (!isRecord(b)) return unknownOf(b)
  const type = typeof b.type === "string" ? b.type : ""
  switch (type) {
    case "text":
      return typeof b.text === "string" ? { type: "text", text: b.text } : unknownOf(b)
    case "thinking":
      return {
        type: "thinking",
        text: typeof b.thinking === "string" ? b.thinking : null,
        signed: typeof b.signature === "string" && b.signature.length > 0,
        redacted: false
      }
    case "redacted_thinking":
      return { type: "thinking", text: null, signed: false, redacted: true }
    case "image": {
      const src = isRecord(b.source) ? b.source : {}
      return { type: "image", mediaType: s(src.media_type) }
    }
    case "document":
      return documentOf(b)
    case "tool_result":
      return s(b.tool_use_id) !== null
        ? { type: "tool_result", toolUseId: b.tool_use_id as string, text: resultText(b.content), isError: b.is_error === true, blockType: type, images: resultImages(b.content) }
        : unknownOf(b)
    default:
      // tool_use, server_tool_use, mcp_tool_use, and the API's next *_tool_use / *_tool_result blocks.
      if ((type === "tool_use" || type.endsWith("_tool_use")) && s(b.id) !== null && s(b.name) !== null) {
        return { type: "tool_use", id: b.id as string, name: b.name as string, input: b.input ?? {}, blockType: type, serverName: s(b.server_name) }
      }
      if (type.endsWith("_tool_result") && s(b.tool_use_id) !== null) {
        return {
          type: "tool_result",
          toolUseId: b.tool_use_id as string,
          text: toolResultText(b.content),
          isError: b.is_error === true || isErrorContent(b.content),
          blockType: type,
          images: resultImages(b.content)
        }
      }
      return unknownOf(b)
  }
}

const blocksOf = (content: unknown): ReadonlyArray<Block> => {
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : []
  if (content === undefined) return []
  if (!Array.isArray(content)) return [unknownOf(content)]
  return content.map(blockOf)
}

/**
 * An assistant line's usage, or null without one; `undefined` when a count
 * (the 1-hour part of the cache writes included) is not a non-negative safe
 * integer or `costUSD` not a finite non-negative
 * number (the usage is dropped and counted as {@link USAGE_NOT_VALID}).
 */
const usageOf = (u: unknown, cost: unknown): Usage | null | undefined => {
  const costUSD = statedCostOf(cost)
  if (!isRecord(u) && costUSD === null) return null
  const r = isRecord(u) ? u : {}
  const cacheWriteTokens = tokenCountOf(r.cache_creation_input_tokens)
  const usage = {
    inputTokens: tokenCountOf(r.input_tokens),
    outputTokens: tokenCountOf(r.output_tokens),
    cacheReadTokens: tokenCountOf(r.cache_read_input_tokens),
    cacheWriteTokens,
    cacheWrite1hTokens: cacheWrite1hOf(r, cacheWriteTokens),
    costUSD
  }
  if (Object.values(usage).some((v) => v === undefined)) return undefined
  return { ...usage, speed: typeof r.speed === "string" ? r.speed : null } as Usage
}

/**
 * The usage of an assistant line of model `model`: none for a line Claude Code
 * made itself (`<synthetic>`, an API error: `isApiErrorMessage`) that states no
 * tokens and no cost, which is no model response (tester33b F4: it was a
 * `(no model)` row of zeros in `usage --by model`); else `usage` as read. A
 * `<synthetic>` line with tokens keeps them, counted under no model, as ccusage
 * counts it (`adapter/claude/mod.rs`: the model `<synthetic>` read as none).
 */
const syntheticFree = (model: string | null, usage: Usage | null | undefined): Usage | null | undefined =>
  model === SYNTHETIC_MODEL && usage !== null && usage !== undefined && usage.costUSD === null &&
    !usage.inputTokens && !usage.outputTokens && !usage.cacheReadTokens && !usage.cacheWriteTokens
    ? null
    : usage

/**
 * Classify one physical line. Never throws: bad lines are
 * {@link LineWarningKind}s; kinds other than `user` / `assistant` /
 * `system` / `summary` are `Ignored` (forward compatible), an object with no
 * string `type` an `invalid-record` warning. `maxDepth`: the
 * import limit on JSON nesting.
 */
export const classifyLine = (line: RawLine, maxDepth: number): Classified => {
  const l = lineObject(line, maxDepth)
  if (l._tag === "Blank") return BLANK
  if (l._tag === "Bad") return warn(l.kind)
  const v = l.value
  switch (v.type) {
    case "summary":
      return typeof v.summary === "string" ? { _tag: "Summary", summary: v.summary, leafUuid: s(v.leafUuid) } : warn("invalid-record")
    case "custom-title":
      return typeof v.customTitle === "string" ? { _tag: "CustomTitle", title: v.customTitle, sessionId: s(v.sessionId) } : warn("invalid-record")
    case "attachment":
      return isRecord(v.attachment) ? sideEntry(v, "attachment", s(v.attachment.type), stringsOf(v.attachment)) : warn("invalid-record")
    case "queue-operation": {
      // A prompt typed while the agent works (`enqueue`, `content`); the operations without text are no record.
      const text = typeof v.content === "string" ? v.content : stringsOf(v.content)
      return text.trim().length > 0 ? sideEntry(v, "queue-operation", s(v.operation), text) : { _tag: "Ignored", type: "queue-operation" }
    }
    case "progress": {
      // A tool's or hook's progress (`data`: `{type: "hook_progress" | "bash_progress" | "agent_progress" | …, …}`):
      // kept raw as a meta event, counted as PROGRESS_RECORD.
      const data = v.data
      return {
        ...sideEntry(v, "progress", isRecord(data) ? s(data.type) : null, stringsOf(data)),
        blocks: [unknownOf(data === undefined ? null : data)],
        progressToolUseId: s(v.toolUseID)
      }
    }
    case "user":
    case "assistant":
    case "system": {
      const message = v.message
      if (v.type !== "system" && !isRecord(message)) return warn("invalid-record")
      const m = isRecord(message) ? message : {}
      const compact = isRecord(v.compactMetadata) ? v.compactMetadata : {}
      const tur = v.toolUseResult
      const usage = v.type === "assistant" ? syntheticFree(s(m.model), usageOf(m.usage, v.costUSD)) : null
      return {
        _tag: "Entry",
        type: v.type,
        uuid: s(v.uuid),
        parentUuid: s(v.parentUuid),
        logicalParentUuid: s(v.logicalParentUuid),
        sessionId: s(v.sessionId),
        timestamp: timestampOrNull(v.timestamp),
        timestampWarning: timestampWarningOf(v.timestamp),
        cwd: s(v.cwd),
        gitBranch: typeof v.gitBranch === "string" ? v.gitBranch : null,
        version: s(v.version),
        slug: s(v.slug),
        isSidechain: v.isSidechain === true,
        agentId: s(v.agentId),
        isMeta: v.isMeta === true,
        isCompactSummary: v.isCompactSummary === true,
        blocks: v.type === "system" ? systemBlocksOf(v.content) : blocksOf(m.content),
        messageId: v.type === "assistant" ? s(m.id) : null,
        requestId: v.type === "assistant" ? s(v.requestId) : null,
        model: v.type === "assistant" ? s(m.model) : null,
        usage: usage ?? null,
        usageNotValid: usage === undefined,
        subtype: s(v.subtype),
        systemText: v.type === "system" ? (typeof v.content === "string" ? v.content : v.content !== undefined ? unknownText(v.content) : null) : null,
        compactTrigger: s(compact.trigger),
        compactPreTokens: n(compact.preTokens),
        resultAgentId: s(v.agentId) !== null && v.type === "user" && !(v.isSidechain === true)
          ? (v.agentId as string)
          : isRecord(tur) ? s(tur.agentId) : null,
        progressToolUseId: null
      }
    }
    default:
      // A record of a type this build does not know is skipped silently (forward compatible); an object with no
      // type at all (`{}`, `{"type": 7}`) is no record: counted as the other lines that are none are.
      return typeof v.type === "string" ? { _tag: "Ignored", type: v.type } : warn("invalid-record")
  }
}

/** A system line's `content` as blocks: none for a string or no content, else one `unknown` block keeping it raw. */
const systemBlocksOf = (content: unknown): ReadonlyArray<Block> =>
  content === undefined || typeof content === "string" ? [] : [unknownOf(content)]


/** An `attachment` or `queue-operation` line as an entry: no blocks, its text in `systemText`, its kind in `subtype`. */
const sideEntry = (v: Record<string, unknown>, type: "attachment" | "queue-operation" | "progress", subtype: string | null, text: string): Entry => ({
  _tag: "Entry",
  type,
  uuid: s(v.uuid),
  parentUuid: s(v.parentUuid),
  logicalParentUuid: null,
  sessionId: s(v.sessionId),
  timestamp: timestampOrNull(v.timestamp),
  timestampWarning: timestampWarningOf(v.timestamp),
  cwd: s(v.cwd),
  gitBranch: typeof v.gitBranch === "string" ? v.gitBranch : null,
  version: s(v.version),
  slug: s(v.slug),
  isSidechain: v.isSidechain === true,
  agentId: s(v.agentId),
  isMeta: false,
  isCompactSummary: false,
  blocks: [],
  messageId: null,
  requestId: null,
  model: null,
  usage: null,
  usageNotValid: false,
  subtype,
  systemText: text.length > 0 ? text : null,
  compactTrigger: null,
  compactPreTokens: null,
  resultAgentId: null,
  progressToolUseId: null
})

/** The text of an entry's `text` blocks, joined with `\n`. */
export const textOf = (e: Entry): string =>
  e.blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")

/** True for local slash-command lines (`<command-name>`, `<local-command-stdout>`): not prompts. */
export const isCommandText = (text: string): boolean =>
  text.includes("<command-name>") || text.includes("<local-command-stdout>") || text.includes("<local-command-stderr>")

/**
 * True when a `user` entry is a prompt (a user turn): not a sidechain, not
 * `isMeta`, not `isCompactSummary`, no `tool_result` block, and its text holds
 * no local command.
 */
export const isPrompt = (e: Entry): boolean =>
  e.type === "user" && !e.isSidechain && !e.isMeta && !e.isCompactSummary &&
  !e.blocks.some((b) => b.type === "tool_result") && !isCommandText(textOf(e)) && textOf(e).trim().length > 0

/** The spawning tools of a subagent (`Task` in older versions, `Agent` in recent ones). */
export const isSpawnTool = (name: string): boolean => name === "Task" || name === "Agent"

/** The model name Claude Code gives lines it makes itself (API errors); not a model. */
export const SYNTHETIC_MODEL = "<synthetic>"
