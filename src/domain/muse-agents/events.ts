/**
 * Classified Muse agents records → normalized {@link SessionEvent}s (seed
 * `000_…`; DESIGN.md, "Normalized model"). Pure.
 *
 * One event per usable line, `sequence` = the line's 1-based physical line
 * number, `eventId` = `line-<n>`:
 * - `message` / `message_parts` → kind `message`, role user / assistant, text the message;
 * - `commentary_text` → kind `message`, role assistant;
 * - `thinking` → kind `thinking`, role assistant;
 * - `function_call` → kind `tool-call`, role assistant, canonical `toolName`,
 *   `toolCallId`; the normalized input in `toolInput` (and, as provenance, in
 *   `extensions["native.muse-agents"].input`), its one-line JSON as text;
 * - `function_call_output` → kind `tool-result`, role null, `toolCallId`, text
 *   the output; `isError` true when `success` is false, false when true, null
 *   when the line has no boolean `success`;
 * - `compaction_checkpoint` → kind `summary`, role system, `compaction` its id
 *   (the line's event id when it has none) and trigger, metadata only: the
 *   summary text is never carried (seed 000);
 * - the `session_header` yields no event (its session id is on every event);
 *   blank, ignored and warned lines yield none.
 *
 * No token usage and no per-event model: the format has none (seed 000).
 *
 * @module
 */
import { CONTRACT_VERSION, type SessionEvent } from "../model.js"
import type { Classified } from "./records.js"
import { toolInputText } from "../tool-input-text.js"

/** The provenance key of this provider's events. */
export const NATIVE_KEY = "native.muse-agents"

/** Longest `text` of a tool-call event (one-line JSON of its input), in UTF-16 code units (`../tool-input-text.ts`). */
export { TOOL_INPUT_TEXT_MAX } from "../tool-input-text.js"

/** Where one record sits and how to resume after it. */
export interface EventContext {
  readonly sourceId: string
  readonly sessionId: string
  readonly agentId: string | null
  /** 1-based physical line number (becomes `sequence`). */
  readonly lineNumber: number
  /** Byte offset of the line's first byte. */
  readonly offset: number
  /** Cursor resuming right after this line. */
  readonly cursor: string
}


/** True when a classified line yields an event (items and compaction checkpoints). */
export const yieldsEvent = (c: Classified): c is Extract<Classified, { _tag: "Item" | "Compaction" }> =>
  c._tag === "Item" || c._tag === "Compaction"

type Native = Record<string, unknown>

/** The typed conversation facts of an event (contract 1.1.0); Muse agents report no usage and no session links (seed 000). */
type Facts = Pick<SessionEvent, "toolInput" | "isError" | "compaction">

const NO_FACTS: Facts = { toolInput: null, isError: null, compaction: null }

/**
 * One event, built as a single object literal (spreading a shared base per
 * event cost a tenth of `stream`'s time, bench figure (a)). Field order is
 * the order the events are printed in.
 */
const event = (
  ctx: EventContext,
  occurredAt: string | null,
  kind: string,
  role: SessionEvent["role"],
  toolName: string | null,
  toolCallId: string | null,
  text: string | null,
  native: Native,
  facts: Facts = NO_FACTS
): SessionEvent => ({
  contractVersion: CONTRACT_VERSION,
  provider: "muse-agents",
  sourceId: ctx.sourceId,
  sessionId: ctx.sessionId,
  eventId: `line-${ctx.lineNumber}`,
  sequence: ctx.lineNumber,
  model: null,
  occurredAt,
  cursor: ctx.cursor,
  rawReference: { locatorClass: "muse-agent-transcript", sequence: ctx.lineNumber, offset: ctx.offset },
  kind,
  role,
  toolName,
  toolCallId,
  text,
  extensions: { "native.muse-agents": native },
  toolInput: facts.toolInput,
  isError: facts.isError,
  compaction: facts.compaction,
  parent: null,
  child: null,
  usage: null,
  responseId: null,
  costUsd: null
})

/** The provenance every item event starts with. */
const itemNative = (
  c: Extract<Classified, { _tag: "Item" }>,
  ctx: EventContext,
  itemType: string
): Native => ({
  recordType: "item",
  seq: c.seq,
  source: c.source,
  agentId: ctx.agentId,
  lineNumber: ctx.lineNumber,
  itemType
})

/** Map one classified record to its event, or null when the line yields none. */
export const toSessionEvent = (c: Classified, ctx: EventContext): SessionEvent | null => {
  if (!yieldsEvent(c)) return null
  if (c._tag === "Compaction") {
    return event(ctx, c.createdAt, "summary", "system", null, null, `context compaction${c.trigger !== null ? ` (${c.trigger})` : ""}`, {
      recordType: "compaction_checkpoint",
      compactionId: c.compactionId,
      trigger: c.trigger,
      agentId: ctx.agentId,
      lineNumber: ctx.lineNumber
    }, { toolInput: null, isError: null, compaction: {
      id: c.compactionId !== null && c.compactionId.length > 0 ? c.compactionId : `line-${ctx.lineNumber}`,
      trigger: c.trigger
    } })
  }
  const e = c.entry
  switch (e._tag) {
    case "Message":
      return event(ctx, c.createdAt, "message", e.role, null, null, e.text, itemNative(c, ctx, e.itemType))
    case "Commentary":
      return event(ctx, c.createdAt, "message", "assistant", null, null, e.text, itemNative(c, ctx, "commentary_text"))
    case "Thinking":
      return event(ctx, c.createdAt, "thinking", "assistant", null, null, e.text, itemNative(c, ctx, "thinking"))
    case "ToolCall": {
      const native = itemNative(c, ctx, "function_call")
      native.nativeName = e.nativeName
      native.input = e.input
      native.argumentsUnparsed = e.argumentsUnparsed
      return event(ctx, c.createdAt, "tool-call", "assistant", e.name, e.callId, toolInputText(e.input), native, {
        toolInput: e.input,
        isError: null,
        compaction: null
      })
    }
    case "ToolOutput": {
      const native = itemNative(c, ctx, "function_call_output")
      native.success = e.success
      native.isError = e.success === false
      return event(ctx, c.createdAt, "tool-result", null, null, e.callId, e.output, native, {
        toolInput: null,
        isError: e.success === null ? null : !e.success,
        compaction: null
      })
    }
  }
}
