/**
 * A session's lines of the AgentMux record (Claude stream-json) → the
 * {@link Transcript} of DESIGN.md and normalized {@link SessionEvent}s.
 *
 * Rules (seed 002; DESIGN.md "Normalized model"; issue 5):
 * - streaming deltas (`{"type":"stream_event"…`) are recognised by their first
 *   bytes and never parsed as messages;
 * - `assistant` lines: content blocks `text`, `thinking`, `tool_use`;
 *   `user` lines: a string or `text` blocks, and `tool_result` blocks, which
 *   are paired onto the `tool_use` of the same id (result text, `isError`);
 * - `system`/`init` gives the model; `system`/`compact_boundary` a compaction;
 *   other system lines, `result` lines and AgentMux outcome lines are not turns;
 * - a `result` line (the end of a run) is an event of kind `result` carrying
 *   the run's totals as the source states them (contract 1.2.0): `usage`
 *   (its `usage` object), `costUsd` (`total_cost_usd`), `isError`
 *   (`is_error`), the run's model (its `system`/`init` line's), and in its
 *   provenance `subtype`, `durationMs`, `durationApiMs`, `numTurns` and
 *   `runFrom` (the sequence of the run's first event: each `system`/`init`
 *   line starts a new Claude process, whose `result` covers no earlier
 *   response; absent before the session's first `init`);
 * - turns: an assistant turn is a run of assistant blocks; a user turn is one
 *   user line's blocks (two user messages in a row are two turns);
 * - each message is dated by its line's receive time (output.tsidx);
 * - a line whose usage holds a count that is not a non-negative safe integer,
 *   or a `total_cost_usd` that is not a finite non-negative number, keeps its
 *   events without usage and cost, counted as `usage-not-valid`;
 * - unreadable lines are skipped and counted (`parseWarnings`), and so are
 *   lines nested deeper than the import limit (`too-deep`);
 * - a `tool_result` no earlier `tool_use` claims is counted in `diagnostics`
 *   as `orphan-tool-output` (the kind every conversation provider uses), not
 *   as a parse warning: its line is readable;
 * - the title is the first prompt's (tester31a F4; AgentMux records none, and the seeds are silent, so the session is
 *   titled as every conversation provider titles one): the text blocks, joined by newlines, of the first `user` line
 *   that is a person's prompt (no `tool_result` block, no `parent_tool_use_id`: a subagent's prompt is its parent's
 *   tool call, and not blank), read as Claude Code's and Muse agents' prompts are (`titleOf`: white space collapsed,
 *   clipped to 80 characters ending in `…`, no lone surrogate); null when the session has none.
 *
 * @module
 */
import { ORPHAN_TOOL_OUTPUT } from "../conversation.js"
import { cursorEncoder, type CursorState, cursorSourceChanged, lineCrc, lineMatches, placeCheck } from "../cursor.js"
import type { InvalidCursor } from "../errors.js"
import { isRecord, parseJson } from "../json.js"
import { CONTRACT_VERSION, type SessionEvent, type TokenUsage, type ToolUseDraft, type Transcript, type TranscriptBlock } from "../model.js"
import { earliestOf, latestOf, timestampOrNull, timestampWarningOf } from "../timestamps.js"
import { TIMESTAMP_NOT_VALID } from "../warning-kinds.js"
import { cacheWrite1hOf, statedCostOf, tokenCountOf, USAGE_NOT_VALID } from "../usage.js"
import { isStreamEvent } from "./record.js"
import { titleOf } from "../muse-agents/summary.js"

/** One line of a session, in record order. */
export interface SessionLine {
  readonly zoneId: string
  /** Byte offset of the line in its zone's `output`. */
  readonly offset: number
  /** The line without its `\n`; null when it could not be read from the store. */
  readonly bytes: Buffer | null
  /** Why `bytes` is null. */
  readonly problem?: "missing-part" | "oversized" | null
  /** Receive time, unix ms (null: no sidecar record at or before the line). */
  readonly receivedMs: number | null
}

/**
 * A receive time (the sidecar's `ms`) as RFC 3339 UTC, read as every
 * provider's epoch number is (`timestampOrNull`: seconds, milliseconds or
 * microseconds by magnitude, sub-millisecond digits kept, DESIGN.md); null
 * when it is no date: not a finite number, negative, or past 9999-12-31 in
 * its unit, or a date it cannot be (before 2000 or from 2100 on:
 * `checkSourceTimestamp`). The caller counts a non-null `ms` giving null as
 * `timestamp-not-valid` or `implausible-timestamp` (`timestampWarningOf`).
 */
export const receiveTimeOf = (ms: number): string | null =>
  Number.isFinite(ms) && ms >= 0 ? timestampOrNull(ms) : null

/** What the mapping needs to know about the source. */
export interface MapContext {
  readonly sourceId: string
  readonly sessionId: string
  /**
   * Levels of JSON nesting a line may have (the import limit `maxDepth`, 64 by
   * default, as every provider's records): a deeper line is skipped and
   * counted as `too-deep`. Default: 64.
   */
  readonly maxDepth?: number | undefined
}

/**
 * An event and what its cursor binds: the bytes of its line, the line's
 * index in the session and the event's index inside the line (`block`).
 */
export interface MappedEvent {
  readonly event: SessionEvent
  /** The event's line, without its `\n`. */
  readonly line: Uint8Array
  /** The line's index in the session (`am-<line>-<block>`). */
  readonly lineIndex: number
  /** The event's index among its line's events. */
  readonly block: number
}

/** The mapped session. */
export interface MappedSession {
  readonly transcript: Transcript
  readonly events: ReadonlyArray<MappedEvent>
}

const TEXT_MAX = 1000

const oneLine = (s: string): string => {
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > TEXT_MAX ? flat.slice(0, TEXT_MAX - 1) + "…" : flat
}

/** The text of a `tool_result`'s `content`: a string, or its text blocks joined by newlines. */
export const toolResultText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content
      .map((c) => (isRecord(c) && c.type === "text" && typeof c.text === "string" ? c.text : isRecord(c) ? `[${String(c.type ?? "content")}]` : ""))
      .join("\n")
  }
  return content === undefined || content === null ? "" : JSON.stringify(content)
}

type MutableToolUse = ToolUseDraft
type MutableBlock = { type: "text"; text: string } | { type: "thinking"; text: string } | MutableToolUse
type MutableTurn = { role: "user" | "assistant" | "system"; timestamp: string | null; blocks: Array<MutableBlock> }

/** Map a session's lines (record order) to its transcript and events. */
const count = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null)

/**
 * The typed usage of a Claude stream-json `message.usage` (`input_tokens`,
 * `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`
 * and its 1-hour part `cache_creation.ephemeral_1h_input_tokens`, as Claude
 * Code's own log: `cacheWrite1hOf`; a count that is absent is null; and
 * `speed` when the usage says it as a string: `"fast"` is fast mode), or null
 * when there is no usage object;
 * `undefined` when a count is present but not a non-negative safe integer
 * (the usage is dropped and counted as {@link USAGE_NOT_VALID}).
 */
const usageOf = (u: unknown): TokenUsage | null | undefined => {
  if (!isRecord(u)) return null
  const usage = {
    inputTokens: tokenCountOf(u.input_tokens),
    outputTokens: tokenCountOf(u.output_tokens),
    cacheReadTokens: tokenCountOf(u.cache_read_input_tokens),
    cacheWriteTokens: tokenCountOf(u.cache_creation_input_tokens),
    cacheWrite1hTokens: cacheWrite1hOf(u, tokenCountOf(u.cache_creation_input_tokens))
  }
  if (Object.values(usage).some((v) => v === undefined)) return undefined
  // `usage.speed` as Claude writes it (`"fast"`: fast mode, billed at its own rates): kept as Claude Code's own log's
  // is (src/domain/claude-code/records.ts), so a fast response is never priced at the standard rates.
  return (typeof u.speed === "string" ? { ...usage, speed: u.speed } : usage) as TokenUsage
}

export const mapSession = (lines: ReadonlyArray<SessionLine>, ctx: MapContext): MappedSession => {
  const turns: Array<MutableTurn> = []
  const compactions: Array<{ id: string; trigger: string | null; timestamp: string | null }> = []
  const warnings = new Map<string, { count: number; firstLine: number }>()
  let orphans = 0
  let firstOrphan: number | null = null
  const toolUses = new Map<string, MutableToolUse>()
  const events: Array<MappedEvent> = []
  let model: string | null = null
  /** The model of the run in progress: its latest `system`/`init` line's (a `result` event's model). */
  let runModel: string | null = null
  /**
   * The sequence of the first event of the run in progress (the next event after its latest `system`/`init` line:
   * each `init` starts a new Claude process); null before the session's first `init`. A `result` event keeps it
   * (`runFrom`): its `total_cost_usd` is that process's cost, so it covers no response before it.
   */
  let runFrom: number | null = null
  /** The line the last block came from: a user line is a user turn of its own (one message, one turn). */
  let lastBlockLine = -1
  let firstAt: string | null = null
  let lastAt: string | null = null
  /** The text of the session's first prompt (see the module's rules), once a line gave one. */
  let firstPrompt: string | null = null

  const warn = (kind: string, lineNo: number) => {
    const w = warnings.get(kind)
    if (w === undefined) warnings.set(kind, { count: 1, firstLine: lineNo })
    else w.count++
  }

  /** A line's usage and stated cost; both null when either is not valid, counted as {@link USAGE_NOT_VALID}. */
  const validUsage = (u: unknown, cost: unknown, lineNo: number): { usage: TokenUsage | null; costUsd: number | null } => {
    const usage = usageOf(u)
    const costUsd = statedCostOf(cost)
    if (usage !== undefined && costUsd !== undefined) return { usage, costUsd }
    warn(USAGE_NOT_VALID, lineNo)
    return { usage: null, costUsd: null }
  }

  lines.forEach((line, index) => {
    const lineNo = index + 1
    const at = line.receivedMs === null ? null : receiveTimeOf(line.receivedMs)
    // A receive time that is no date: counted, the line's events kept without a time (issue 7).
    // A receive time that reads as a date it cannot be (before 2000 or from 2100 on: an `ms` of 0, 1.5, 1e14): the same,
    // counted as implausible-timestamp (F8).
    if (at === null && line.receivedMs !== null) warn(timestampWarningOf(line.receivedMs) ?? TIMESTAMP_NOT_VALID, lineNo)
    // Receive times may be slightly out of order (seed 002): the session spans the earliest to the latest.
    firstAt = earliestOf(firstAt, at)
    lastAt = latestOf(lastAt, at)
    if (line.bytes === null) {
      warn(line.problem === "oversized" ? "oversized-line" : "missing-part", lineNo)
      return
    }
    if (isStreamEvent(line.bytes)) return // a delta: never a message
    const text = line.bytes.toString("utf8")
    if (text.trim().length === 0) return
    const parsed = parseJson(text, ctx.maxDepth ?? 64)
    if (parsed._tag === "error") {
      warn(parsed.problem._tag === "depth" ? "too-deep" : "unreadable-line", lineNo)
      return
    }
    const value = parsed.value
    if (!isRecord(value)) {
      warn("unreadable-line", lineNo)
      return
    }
    const lineBytes = line.bytes
    const native = (extra: Record<string, unknown>) => ({
      "native.agentmux": {
        zone: line.zoneId,
        offset: line.offset,
        line: lineNo,
        type: value.type ?? null,
        subtype: value.subtype ?? null,
        uuid: typeof value.uuid === "string" ? value.uuid : null,
        parentToolUseId: typeof value.parent_tool_use_id === "string" ? value.parent_tool_use_id : null,
        attributed: typeof value.session_id === "string" ? "session_id" : "next-owned-line",
        receivedMs: line.receivedMs,
        ...extra
      }
    })
    let blockIndex = 0
    /** The response an assistant line belongs to (`message.id`; streamed partials share it). */
    let responseId: string | null = null
    const emit = (
      e: Pick<SessionEvent, "kind" | "role" | "toolName" | "toolCallId" | "model" | "text">,
      extra: Record<string, unknown> = {},
      facts: Partial<Pick<SessionEvent, "toolInput" | "isError" | "compaction" | "usage" | "costUsd">> = {}
    ) => {
      const b = blockIndex++
      events.push({
        line: lineBytes,
        lineIndex: index,
        block: b,
        event: {
          contractVersion: CONTRACT_VERSION,
          provider: "agentmux",
          sourceId: ctx.sourceId,
          sessionId: ctx.sessionId,
          eventId: `am-${index}-${b}`,
          sequence: events.length,
          ...e,
          occurredAt: at,
          cursor: "",
          rawReference: { locatorClass: "agentmux-agent-record", sequence: index, offset: line.offset, childIndex: b },
          extensions: native({ block: b, ...extra }),
          toolInput: facts.toolInput ?? null,
          isError: facts.isError ?? null,
          compaction: facts.compaction ?? null,
          parent: null,
          child: null,
          usage: facts.usage ?? null,
          responseId,
          costUsd: facts.costUsd ?? null
        }
      })
    }
    const push = (role: MutableTurn["role"], block: MutableBlock) => {
      const last = turns[turns.length - 1]
      const sameTurn = last !== undefined && last.role === role && (role !== "user" || lastBlockLine === index)
      lastBlockLine = index
      if (sameTurn) last.blocks.push(block)
      else turns.push({ role, timestamp: at, blocks: [block] })
    }

    const type = value.type
    if (type === "result") {
      const subtype = typeof value.subtype === "string" ? value.subtype : null
      const numTurns = count(value.num_turns)
      const durationMs = typeof value.duration_ms === "number" && Number.isFinite(value.duration_ms) && value.duration_ms >= 0 ? value.duration_ms : null
      const facts = [subtype, numTurns !== null ? `${numTurns} turn${numTurns === 1 ? "" : "s"}` : null, durationMs !== null ? `${durationMs} ms` : null]
      emit({
        kind: "result",
        role: "system",
        toolName: null,
        toolCallId: null,
        model: runModel ?? model,
        text: `run ended${facts.some((f) => f !== null) ? `: ${facts.filter((f) => f !== null).join(", ")}` : ""}`
      }, {
        durationMs,
        durationApiMs: typeof value.duration_api_ms === "number" ? value.duration_api_ms : null,
        numTurns,
        ...(runFrom !== null ? { runFrom } : {})
      }, {
        isError: typeof value.is_error === "boolean" ? value.is_error : null,
        ...validUsage(value.usage, value.total_cost_usd, lineNo)
      })
      return
    }
    if (type === "system") {
      if (value.subtype === "init") runFrom = events.length
      if (value.subtype === "init" && typeof value.model === "string") runModel = value.model
      if (value.subtype === "init" && typeof value.model === "string" && model === null) model = value.model
      if (value.subtype === "compact_boundary") {
        const meta = isRecord(value.compact_metadata) ? value.compact_metadata : {}
        const trigger = typeof meta.trigger === "string" ? meta.trigger : null
        const id = typeof value.uuid === "string" ? value.uuid : `am-${index}`
        compactions.push({ id, trigger, timestamp: at })
        emit({
          kind: "summary",
          role: "system",
          toolName: null,
          toolCallId: null,
          model: null,
          text: `context compacted${trigger !== null ? ` (${trigger})` : ""}`
        }, {}, { compaction: { id, trigger } })
      }
      return
    }
    if (type !== "assistant" && type !== "user") return
    const message = value.message
    if (!isRecord(message)) {
      warn("unrecognized-message", lineNo)
      return
    }
    const msgModel = typeof message.model === "string" ? message.model : null
    responseId = type === "assistant" && typeof message.id === "string" && message.id.length > 0 ? message.id : null
    const firstOfLine = events.length
    if (type === "assistant" && model === null && msgModel !== null) model = msgModel
    const content = message.content
    const blocks: ReadonlyArray<unknown> = typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
      ? content
      : []
    const role = type === "assistant" ? "assistant" : "user"
    for (const b of blocks) {
      if (!isRecord(b)) continue
      if (b.type === "text" && typeof b.text === "string") {
        if (b.text.length === 0) continue
        push(role, { type: "text", text: b.text })
        emit({ kind: "message", role, toolName: null, toolCallId: null, model: role === "assistant" ? msgModel : null, text: b.text })
      } else if (b.type === "thinking" && typeof b.thinking === "string") {
        push(role, { type: "thinking", text: b.thinking })
        emit({ kind: "thinking", role, toolName: null, toolCallId: null, model: msgModel, text: b.thinking })
      } else if (b.type === "tool_use" && typeof b.id === "string" && typeof b.name === "string") {
        const block: MutableToolUse = { type: "tool_use", id: b.id, name: b.name, input: b.input ?? null }
        toolUses.set(b.id, block)
        push(role, block)
        emit({
          kind: "tool-call",
          role,
          toolName: b.name,
          toolCallId: b.id,
          model: msgModel,
          text: oneLine(`${b.name} ${JSON.stringify(b.input ?? null)}`)
        }, { input: b.input ?? null }, { toolInput: b.input ?? null })
      } else if (b.type === "tool_result" && typeof b.tool_use_id === "string") {
        const result = toolResultText(b.content)
        const isError = b.is_error === true
        const use = toolUses.get(b.tool_use_id)
        if (use !== undefined) {
          use.result = result
          if (isError) use.isError = true
        } else {
          if (orphans++ === 0) firstOrphan = lineNo
        }
        emit({
          kind: "tool-result",
          role: "user",
          toolName: use?.name ?? null,
          toolCallId: b.tool_use_id,
          model: null,
          text: result
        }, { isError }, { isError: typeof b.is_error === "boolean" ? b.is_error : null })
      }
    }
    if (type === "user" && firstPrompt === null && typeof value.parent_tool_use_id !== "string") {
      // the first prompt of a person (the title's): a user line of text blocks only, not blank
      let prompt = ""
      let tool = false
      for (const b of blocks) {
        if (!isRecord(b)) continue
        if (b.type === "tool_result") tool = true
        else if (b.type === "text" && typeof b.text === "string" && b.text.length > 0) prompt = prompt === "" ? b.text : prompt + "\n" + b.text
      }
      if (!tool && prompt.trim().length > 0) firstPrompt = prompt
    }
    // The line's usage (Claude stream-json `message.usage`) on its last event.
    const usage = type === "assistant" ? validUsage(message.usage, undefined, lineNo).usage : null
    if (usage !== null && events.length > firstOfLine) {
      const last = events[events.length - 1]
      events[events.length - 1] = { ...last, event: { ...last.event, usage } }
    }
  })

  const transcript: Transcript = {
    sessionId: ctx.sessionId,
    title: firstPrompt === null ? null : titleOf(firstPrompt),
    model,
    startedAt: firstAt,
    endedAt: lastAt,
    turns: turns.map((t) => ({ role: t.role, timestamp: t.timestamp, blocks: t.blocks as ReadonlyArray<TranscriptBlock> })),
    compactions,
    parseWarnings: [...warnings].map(([kind, w]) => ({ kind, count: w.count, firstLine: w.firstLine })),
    diagnostics: orphans > 0 ? [{ kind: ORPHAN_TOOL_OUTPUT, count: orphans, firstLine: firstOrphan }] : []
  }
  const encode = cursorEncoder(ctx.sourceId)
  let crcLine = -1
  let crc = 0
  const withCursors = events.map((m) => {
    if (m.lineIndex !== crcLine) {
      crcLine = m.lineIndex
      crc = lineCrc(m.line)
    }
    return { ...m, event: { ...m.event, cursor: encode({ seq: m.event.sequence, sub: m.block, h: placeCheck(crc, m.event.sequence, m.block) }) } }
  })
  return { transcript, events: withCursors }
}

/**
 * Where a cursor resumes in a session's mapped events: the index of the first
 * event after the cursor's own. The cursor binds its event: `seq`, the event's
 * index in its line (`sub`) and `h` = {@link placeCheck} of the line's CRC-32
 * continued over `seq`/`sub`; a token with any other field, or whose event's
 * line changed, or whose `seq` / `sub` / `h` was edited, is `INVALID_CURSOR`.
 * A token of an earlier build (`h` = first 128 bits of the sha256 of the
 * line, no `sub`) names only its line, so it resumes only when that line has
 * one event; otherwise it is refused, never resumed at a guess.
 */
export const resumeAfter = (
  events: ReadonlyArray<MappedEvent>,
  state: CursorState
): { readonly _tag: "Right"; readonly index: number } | { readonly _tag: "Left"; readonly error: InvalidCursor } => {
  const refuse = (what: string) => ({ _tag: "Left" as const, error: cursorSourceChanged(what) })
  if (state.off !== undefined || state.ls !== undefined || state.hd !== undefined || state.x !== undefined || state.h === undefined) {
    return refuse("the cursor does not name an event of this session")
  }
  const at = state.seq >= 0 ? events[state.seq] : undefined
  if (at === undefined) return refuse("the session has no event at the cursor")
  if (state.sub === undefined) {
    const alone = events[state.seq - 1]?.lineIndex !== at.lineIndex && events[state.seq + 1]?.lineIndex !== at.lineIndex
    if (!/^[0-9a-f]{32}$/.test(state.h) || !alone || !lineMatches(state.h, at.line, state.seq)) {
      return refuse("the session's event at the cursor differs")
    }
  } else if (state.sub !== at.block || !/^[0-9a-f]{8}$/.test(state.h) || !lineMatches(state.h, at.line, state.seq, state.sub)) {
    return refuse("the session's event at the cursor differs")
  }
  return { _tag: "Right", index: state.seq + 1 }
}
