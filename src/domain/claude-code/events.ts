/**
 * Classified Claude Code lines → normalized {@link SessionEvent}s
 * (`fixtures/claude-code/README.md`; DESIGN.md, "Normalized model"). Pure.
 *
 * One event per content block, in line order (`eventId` `line-<n>` for a
 * line's first block, `line-<n>.<k>` for the next ones; `sequence` a running
 * position in the file; `rawReference.sequence` the 1-based physical line):
 * - user `text` → `message` user (a prompt, or an inline sidechain's /
 *   subagent's prompt in its own session); `isMeta` and local-command lines →
 *   kind `meta`, role user (not turns); `tool_result` → `tool-result` (role
 *   null, `toolCallId`, text, native `isError`, and `images[]` (`mediaType`)
 *   of the image blocks of its content); `image` → native
 *   `images[]` (`mediaType`) of the line's text event, or, in a line without
 *   text, a `message` user with null text (native `blockType: "image"`); an
 *   `isCompactSummary` line (a compaction's summary) → one `meta` event, role
 *   user, its text the summary (native `isCompactSummary`, `compactionId` the
 *   boundary's uuid): searchable, never a turn, not a second compaction;
 * - assistant `text` → `message`, `thinking` → `thinking` (null text when
 *   redacted), `tool_use` (and `server_tool_use`, `mcp_tool_use`, any
 *   `*_tool_use`) → `tool-call` (`toolName`, `toolCallId`, input in native
 *   `input`, its one-line JSON as text; native `blockType`, `serverName`);
 *   a server tool's result (`web_search_tool_result`, any `*_tool_result`) →
 *   `tool-result`; `image` → `message` assistant with null text (native
 *   `blockType: "image"`, `mediaType`); `model` is `message.model` (null for
 *   `<synthetic>`);
 * - either role: `document` → `message` (its title / context / text; native
 *   `title`, `mediaType`); content not understood → `meta`, native `block` the
 *   raw value (counted `unknown-block` by the scan);
 * - system `compact_boundary` → `summary` (role system, native
 *   `compactionId` = its uuid, `trigger`, `preTokens`); other system lines →
 *   `meta`, role system, text their `content` (a `content` that is not a
 *   string: kept raw in native `block`, its strings the text, counted
 *   `unknown-block`);
 * - `progress` (a tool's or hook's progress) → `meta`, role system, native
 *   `block` its raw `data`, `progressType` `data.type`, `toolUseId` its
 *   `toolUseID`, text every string of `data` (counted `progress-record`);
 * - `attachment` → `meta`, role system (native `attachmentType`); a
 *   `queue-operation` holding a prompt → `meta`, role user (native `operation`).
 *
 * Sessions: main-chain lines carry the file's session id; an inline
 * sidechain (older versions: `isSidechain` lines in the parent file) is the
 * session `sidechain-<uuid of its first line>`, and a nested subagent file
 * `agent-<agentId>.jsonl` the session `agent-<agentId>`; both name their
 * parent under native `parent` `{sessionId, sourceId, toolCallId, …}`
 * (`toolCallId`: the spawning Task/Agent call).
 *
 * Usage (the one place it is kept until the event grows a typed field): the
 * last event of every assistant line carries native `usage` (that line's
 * `message.usage`, see {@link Usage}); every assistant event carries
 * `messageId` and `requestId`. Streamed partials repeat one response's usage
 * on each of its lines; {@link UsageTally} counts each (`messageId`,
 * `requestId`) once, with its last line's usage.
 *
 * @module
 */
import { CONTRACT_VERSION, type ParentLink, type SessionEvent, type TokenUsage } from "../model.js"
import {
  type Block,
  type Classified,
  type Entry,
  isCommandText,
  isSpawnTool,
  SYNTHETIC_MODEL,
  textOf,
  type Usage
} from "./records.js"
import { toolInputText } from "../tool-input-text.js"

/** The provenance key of this provider's events. */
export const NATIVE_KEY = "native.claude-code"

/** The provider id. */
export const PROVIDER = "claude-code" as const

/** The locator class of a session log `<encoded-cwd>/<session-uuid>.jsonl`. */
export const LOCATOR_CLASS = "claude-code-session-log" as const

/** Longest `text` of a tool-call event (one-line JSON of its input), in UTF-16 code units (`../tool-input-text.ts`). */
export { TOOL_INPUT_TEXT_MAX } from "../tool-input-text.js"

/** The session id of a nested subagent file `agent-<agentId>.jsonl`. */
export const subagentSessionId = (agentId: string): string => `agent-${agentId}`

/** The session id of an inline sidechain whose first line has uuid `root`. */
export const sidechainSessionId = (root: string): string => `sidechain-${root}`

/** The parent a subagent's or sidechain's events name (native `parent`). */
export interface ParentRef {
  readonly sessionId: string
  readonly sourceId: string
  readonly toolCallId: string | null
  readonly agentId?: string | undefined
  readonly agentType?: string | undefined
  readonly description?: string | undefined
  readonly sidechainRoot?: string | undefined
}

/**
 * What the main file tells about its sidechains and subagents, fed with
 * every entry of the main file in order: the root of each inline sidechain
 * line, the Task/Agent calls by prompt (an inline sidechain's first line
 * holds its call's prompt), and the call each subagent answered
 * (`toolUseResult.agentId` on the call's result line).
 */
export class ChainState {
  private readonly roots = new Map<string, string>()
  private readonly rootCalls = new Map<string, string | null>()
  private readonly promptCalls = new Map<string, Array<string>>()
  /** Spawning call by agent id, from the parent's result lines. */
  readonly agentCalls = new Map<string, string>()

  /** Feed one main-file entry (1-based line); answers the sidechain root of a sidechain entry, else null. */
  push(e: Entry, lineNumber: number): string | null {
    for (const b of e.blocks) {
      if (b.type === "tool_use" && isSpawnTool(b.name) && typeof (b.input as { prompt?: unknown })?.prompt === "string") {
        const prompt = (b.input as { prompt: string }).prompt
        const list = this.promptCalls.get(prompt)
        if (list === undefined) this.promptCalls.set(prompt, [b.id])
        else list.push(b.id)
      }
    }
    if (e.resultAgentId !== null && !e.isSidechain) {
      const result = e.blocks.find((b): b is Extract<Block, { type: "tool_result" }> => b.type === "tool_result")
      if (result !== undefined && !this.agentCalls.has(e.resultAgentId)) this.agentCalls.set(e.resultAgentId, result.toolUseId)
    }
    if (!e.isSidechain) return null
    const own = e.uuid ?? `line-${lineNumber}`
    const known = e.parentUuid !== null ? this.roots.get(e.parentUuid) : undefined
    const root = known ?? own
    this.roots.set(own, root)
    if (known === undefined) {
      const calls = this.promptCalls.get(textOf(e))
      this.rootCalls.set(root, calls !== undefined && calls.length > 0 ? calls.shift()! : null)
    }
    return root
  }

  /** The spawning call of an inline sidechain, by its root. */
  callOf(root: string): string | null {
    return this.rootCalls.get(root) ?? null
  }
}

/** Where one line sits and how to resume after each of its events. */
export interface LineContext {
  readonly sourceId: string
  /** The session the line's events belong to. */
  readonly sessionId: string
  readonly parent: ParentRef | null
  /** 1-based physical line number. */
  readonly lineNumber: number
  /** Byte offset of the line's first byte. */
  readonly offset: number
  /** The `sequence` of the line's first event. */
  readonly firstSequence: number
  /** The cursor resuming right after the line's `k`-th event (whose sequence is `sequence`). */
  readonly cursor: (k: number, sequence: number) => string
}


/** A line's usage as the event's typed {@link TokenUsage} (its `costUSD` is the event's `costUsd`, and stays in native `usage.costUSD`). */
const tokenUsageOf = (u: Usage): TokenUsage => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheReadTokens: u.cacheReadTokens,
  cacheWriteTokens: u.cacheWriteTokens,
  cacheWrite1hTokens: u.cacheWrite1hTokens,
  ...(u.speed !== null ? { speed: u.speed } : {})
})

/**
 * The response an assistant line belongs to: `message.id` and `requestId`
 * (streamed partials of one response share both), `message.id` alone
 * without a `requestId`, null without a `message.id`.
 */
const responseIdOf = (messageId: string | null, requestId: string | null): string | null =>
  messageId === null ? null : requestId === null ? messageId : `${messageId}:${requestId}`

/** The typed link of a subagent's or sidechain's events to their parent. */
const parentLinkOf = (p: ParentRef): ParentLink => ({
  sessionId: p.sessionId,
  toolCallId: p.toolCallId,
  eventId: null,
  subagentId: p.agentId ?? null
})

/** The usage as it is carried in native `usage`. */
const usageNative = (u: Usage): Record<string, number | string | null> => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheReadTokens: u.cacheReadTokens,
  cacheWriteTokens: u.cacheWriteTokens,
  ...(u.costUSD !== null ? { costUSD: u.costUSD } : {}),
  ...(u.speed !== null ? { speed: u.speed } : {})
})

type Draft = {
  kind: string
  role: SessionEvent["role"]
  toolName: string | null
  toolCallId: string | null
  text: string | null
  native: Record<string, unknown>
  /** Typed facts (contract 1.1.0), when the block has them. */
  toolInput?: unknown
  isError?: boolean | null
  compaction?: SessionEvent["compaction"]
  child?: SessionEvent["child"]
}

const draftsOf = (e: Entry): Array<Draft> => {
  const out: Array<Draft> = []
  if (e.type === "system") {
    if (e.subtype === "compact_boundary") {
      out.push({
        kind: "summary",
        role: "system",
        toolName: null,
        toolCallId: null,
        text: `context compaction${e.compactTrigger !== null ? ` (${e.compactTrigger})` : ""}`,
        compaction: e.uuid !== null && e.uuid.length > 0 ? { id: e.uuid, trigger: e.compactTrigger } : null,
        native: {
          compactionId: e.uuid,
          trigger: e.compactTrigger,
          preTokens: e.compactPreTokens,
          logicalParentUuid: e.logicalParentUuid
        }
      })
    } else {
      // A `content` that is not a string is kept raw (`block`), its strings the text (counted `unknown-block`).
      const raw = e.blocks.find((b): b is Extract<Block, { type: "unknown" }> => b.type === "unknown")
      out.push({
        kind: "meta",
        role: "system",
        toolName: null,
        toolCallId: null,
        text: e.systemText,
        native: raw === undefined ? { subtype: e.subtype } : { subtype: e.subtype, blockType: raw.blockType, block: raw.raw }
      })
    }
    return out
  }
  if (e.type === "progress") {
    const raw = e.blocks[0]
    out.push({
      kind: "meta",
      role: "system",
      toolName: null,
      toolCallId: null,
      text: e.systemText,
      native: { progressType: e.subtype, toolUseId: e.progressToolUseId, block: raw !== undefined && raw.type === "unknown" ? raw.raw : null }
    })
    return out
  }
  if (e.type === "attachment") {
    out.push({ kind: "meta", role: "system", toolName: null, toolCallId: null, text: e.systemText, native: { attachmentType: e.subtype } })
    return out
  }
  if (e.type === "queue-operation") {
    out.push({ kind: "meta", role: "user", toolName: null, toolCallId: null, text: e.systemText, native: { operation: e.subtype } })
    return out
  }
  if (e.type === "user" && e.isCompactSummary) {
    // The summary a compaction leaves (parented on its compact_boundary): searchable, never a turn.
    const text = e.blocks.map((b) => (b.type === "text" || b.type === "unknown" ? b.text : b.type === "document" ? b.text ?? "" : "")).filter((t) => t.length > 0)
    if (text.length > 0 || e.blocks.length > 0) {
      out.push({
        kind: "meta",
        role: "user",
        toolName: null,
        toolCallId: null,
        text: text.join("\n"),
        native: { blockType: "text", isCompactSummary: true, compactionId: e.parentUuid ?? e.logicalParentUuid }
      })
    }
    return out
  }
  const role = e.type === "user" ? "user" : "assistant"
  /** A block shared by both roles, or undefined. */
  const common = (b: Block): Draft | undefined => {
    switch (b.type) {
      case "document":
        return { kind: "message", role, toolName: null, toolCallId: null, text: b.text, native: { blockType: "document", title: b.title, mediaType: b.mediaType } }
      case "unknown":
        return { kind: "meta", role, toolName: null, toolCallId: null, text: b.text, native: { blockType: b.blockType, block: b.raw } }
      default:
        return undefined
    }
  }
  if (e.type === "user") {
    const meta = e.isMeta || isCommandText(textOf(e))
    for (const b of e.blocks) {
      switch (b.type) {
        case "text":
          out.push({ kind: meta ? "meta" : "message", role: "user", toolName: null, toolCallId: null, text: b.text, native: { blockType: "text" } })
          break
        case "image": {
          // Carried on the line's text event when it has one (one user step, one turn); else an event of its own.
          const host = out.find((d) => d.role === "user" && d.native.blockType === "text")
          if (host !== undefined) ((host.native.images ??= []) as Array<unknown>).push({ mediaType: b.mediaType })
          else out.push({ kind: "message", role: "user", toolName: null, toolCallId: null, text: null, native: { blockType: "image", mediaType: b.mediaType } })
          break
        }
        case "tool_result":
          out.push({
            kind: "tool-result",
            role: null,
            toolName: null,
            toolCallId: b.toolUseId,
            text: b.text,
            isError: b.isError,
            child: e.resultAgentId !== null && !e.isSidechain
              ? { sessionId: subagentSessionId(e.resultAgentId), subagentId: e.resultAgentId }
              : null,
            native: {
              blockType: b.blockType,
              isError: b.isError,
              ...(e.resultAgentId !== null ? { resultAgentId: e.resultAgentId } : {}),
              // Its images: their media types (the bytes are not kept), as a user message's.
              ...(b.images.length > 0 ? { images: b.images } : {})
            }
          })
          break
        default: {
          const d = common(b)
          if (d !== undefined) out.push(d)
          break
        }
      }
    }
    return out
  }
  for (const b of e.blocks) {
    switch (b.type) {
      case "text":
        out.push({ kind: "message", role: "assistant", toolName: null, toolCallId: null, text: b.text, native: { blockType: "text" } })
        break
      case "thinking":
        out.push({
          kind: "thinking",
          role: "assistant",
          toolName: null,
          toolCallId: null,
          text: b.text,
          native: { blockType: b.redacted ? "redacted_thinking" : "thinking", signed: b.signed }
        })
        break
      case "tool_use":
        out.push({
          kind: "tool-call",
          role: "assistant",
          toolName: b.name,
          toolCallId: b.id,
          text: toolInputText(b.input),
          toolInput: b.input,
          native: { blockType: b.blockType, input: b.input, ...(b.serverName !== null ? { serverName: b.serverName } : {}) }
        })
        break
      case "image":
        // An image the model returned (a tool's image, a generated one): an event of its own, as a user image without text.
        out.push({ kind: "message", role: "assistant", toolName: null, toolCallId: null, text: null, native: { blockType: "image", mediaType: b.mediaType } })
        break
      case "tool_result":
        // A server tool's result (web search, code execution) comes in the assistant's own message.
        out.push({
          kind: "tool-result",
          role: null,
          toolName: null,
          toolCallId: b.toolUseId,
          text: b.text,
          isError: b.isError,
          native: { blockType: b.blockType, isError: b.isError }
        })
        break
      default: {
        const d = common(b)
        if (d !== undefined) out.push(d)
        break
      }
    }
  }
  return out
}

/** How many events an entry yields (what {@link eventsOf} returns, without building them). */
export const eventCountOf = (c: Classified): number => (c._tag === "Entry" ? draftsOf(c).length : 0)

/**
 * The events of one classified line (none for anything but an entry).
 * Field order is the order the events are printed in.
 */
export const eventsOf = (c: Classified, ctx: LineContext): Array<SessionEvent> => {
  if (c._tag !== "Entry") return []
  const drafts = draftsOf(c)
  const model = c.model !== null && c.model !== SYNTHETIC_MODEL ? c.model : null
  const eventIdOf = (k: number) => (k === 0 ? `line-${ctx.lineNumber}` : `line-${ctx.lineNumber}.${k}`)
  return drafts.map((d, k) => {
    const sequence = ctx.firstSequence + k
    const native: Record<string, unknown> = {
      recordType: c.type,
      lineNumber: ctx.lineNumber,
      blockIndex: k,
      uuid: c.uuid,
      parentUuid: c.parentUuid,
      cwd: c.cwd,
      gitBranch: c.gitBranch,
      version: c.version,
      isSidechain: c.isSidechain,
      agentId: c.agentId,
      ...d.native
    }
    if (c.type === "assistant") {
      native.messageId = c.messageId
      native.requestId = c.requestId
      if (c.model === SYNTHETIC_MODEL) native.model = c.model
      if (k === drafts.length - 1 && c.usage !== null) native.usage = usageNative(c.usage)
    }
    if (c.isMeta) native.isMeta = true
    if (ctx.parent !== null) native.parent = { ...ctx.parent }
    return {
      contractVersion: CONTRACT_VERSION,
      provider: PROVIDER,
      sourceId: ctx.sourceId,
      sessionId: ctx.sessionId,
      eventId: eventIdOf(k),
      sequence,
      kind: d.kind,
      role: d.role,
      toolName: d.toolName,
      toolCallId: d.toolCallId,
      model: c.type === "assistant" ? model : null,
      occurredAt: c.timestamp,
      text: d.text,
      cursor: ctx.cursor(k, sequence),
      rawReference: { locatorClass: LOCATOR_CLASS, sequence: ctx.lineNumber, offset: ctx.offset },
      extensions: { [NATIVE_KEY]: native },
      toolInput: d.toolInput ?? null,
      isError: d.isError ?? null,
      compaction: d.compaction ?? (d.kind === "summary" ? { id: eventIdOf(k), trigger: null } : null),
      parent: ctx.parent === null ? null : parentLinkOf(ctx.parent),
      child: d.child ?? null,
      usage: c.type === "assistant" && k === drafts.length - 1 && c.usage !== null ? tokenUsageOf(c.usage) : null,
      responseId: c.type === "assistant" ? responseIdOf(c.messageId, c.requestId) : null,
      // The line's own `costUSD` (older Claude Code versions), with its usage: the response's cost, repeated on each partial.
      costUsd: c.type === "assistant" && k === drafts.length - 1 && c.usage !== null && c.usage.costUSD !== null && c.usage.costUSD >= 0
        ? c.usage.costUSD
        : null
    } satisfies SessionEvent
  })
}

/** The token counts of {@link TokenTotals}, by key. */
export type TokenTotalName = "input" | "output" | "cacheRead" | "cacheWrite"

/**
 * Token totals: input, output, cache-read, cache-write tokens (each a sum
 * of token counts over the responses), and `costUSD` (US dollars) where
 * lines carried it. A sum past 2^53 - 1 is not held exactly by a JSON
 * number: it is `null`, and `notExact` names it (the key is there only
 * then), as every output says of such a count (docs/usage-and-cost.md,
 * "Token counts that are not valid"; tester30b F4).
 */
export interface TokenTotals {
  readonly input: number | null
  readonly output: number | null
  readonly cacheRead: number | null
  readonly cacheWrite: number | null
  readonly costUSD: number | null
  /** Responses counted (distinct `message.id` + `requestId`). */
  readonly messages: number
  /** Only when some sum is past 2^53 - 1: those counts (null above). */
  readonly notExact?: ReadonlyArray<TokenTotalName>
}

/**
 * Counts token usage once per response: the key is (`message.id`,
 * `requestId`) (`message.id` alone when there is no `requestId`; a line
 * without `message.id` counts on its own), and a key's usage is its last
 * line's (streamed partials repeat the usage, `output_tokens` growing).
 * Usage is kept by part (`main`, `sidechain`, `subagent`: the part of the
 * key's last line).
 */
export class UsageTally {
  private readonly byKey = new Map<string, { usage: Usage; part: string }>()
  private anonymous = 0

  /** Add one assistant line's usage. */
  add(messageId: string | null, requestId: string | null, usage: Usage, part: string): void {
    const key = messageId !== null ? `${messageId}\u0000${requestId ?? ""}` : `\u0001${this.anonymous++}`
    this.byKey.delete(key)
    this.byKey.set(key, { usage, part })
  }

  /** The totals, of every part or of one. */
  totals(part?: string): TokenTotals {
    let input = 0, output = 0, cacheRead = 0, cacheWrite = 0, messages = 0
    let cost: number | null = null
    for (const { part: p, usage: u } of this.byKey.values()) {
      if (part !== undefined && p !== part) continue
      messages++
      input += u.inputTokens ?? 0
      output += u.outputTokens ?? 0
      cacheRead += u.cacheReadTokens ?? 0
      cacheWrite += u.cacheWriteTokens ?? 0
      if (u.costUSD !== null) cost = (cost ?? 0) + u.costUSD
    }
    // Each count is a safe integer, so a sum that still is one is exact (each partial sum was too); past 2^53 - 1 it
    // may be rounded: unknown, and named.
    const sums = { input, output, cacheRead, cacheWrite }
    const notExact = (["input", "output", "cacheRead", "cacheWrite"] as const).filter((n) => !Number.isSafeInteger(sums[n]))
    const exact = (n: TokenTotalName) => (notExact.includes(n) ? null : sums[n])
    return {
      input: exact("input"),
      output: exact("output"),
      cacheRead: exact("cacheRead"),
      cacheWrite: exact("cacheWrite"),
      costUSD: cost === null ? null : Math.round(cost * 1e9) / 1e9,
      messages,
      ...(notExact.length > 0 ? { notExact } : {})
    }
  }
}

/**
 * The token totals of events (as `stream` gives them, subagents included or
 * not): each assistant event's native `usage`, counted once per
 * (`messageId`, `requestId`) with the last one's usage ({@link UsageTally}).
 */
export const usageOfEvents = (events: ReadonlyArray<SessionEvent>): TokenTotals => {
  const tally = new UsageTally()
  for (const e of events) {
    const native = e.extensions[NATIVE_KEY] as Record<string, unknown> | undefined
    const u = native?.usage as Record<string, number | null> | undefined
    if (native === undefined || u === undefined) continue
    tally.add(
      typeof native.messageId === "string" ? native.messageId : null,
      typeof native.requestId === "string" ? native.requestId : null,
      {
        inputTokens: u.inputTokens ?? null,
        outputTokens: u.outputTokens ?? null,
        cacheReadTokens: u.cacheReadTokens ?? null,
        cacheWriteTokens: u.cacheWriteTokens ?? null,
        cacheWrite1hTokens: e.usage?.cacheWrite1hTokens ?? null,
        costUSD: typeof u.costUSD === "number" ? u.costUSD : null,
        speed: null
      },
      "all"
    )
  }
  return tally.totals()
}
