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
 *   `toolCallId`; the normalized input in `extensions["native.muse-agents"].input`,
 *   its one-line JSON as text;
 * - `function_call_output` → kind `tool-result`, role null, `toolCallId`, text
 *   the output; `isError` true when `success` is false;
 * - `compaction_checkpoint` → kind `summary`, role system, metadata only (id,
 *   trigger): the summary text is never carried (seed 000);
 * - the `session_header` yields no event (its session id is on every event);
 *   blank, ignored and warned lines yield none.
 *
 * No token usage and no per-event model: the format has none (seed 000).
 *
 * @module
 */
import { CONTRACT_VERSION, type SessionEvent } from "../model.js"
import type { Classified } from "./records.js"

/** The provenance key of this provider's events. */
export const NATIVE_KEY = "native.muse-agents"

/** Longest `text` of a tool-call event (one-line JSON of its input), in UTF-16 code units. */
export const TOOL_INPUT_TEXT_MAX = 1000

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

const oneLineJson = (v: unknown): string => {
  let s: string
  try {
    s = JSON.stringify(v) ?? "null"
  } catch {
    s = String(v)
  }
  return s.length > TOOL_INPUT_TEXT_MAX ? s.slice(0, TOOL_INPUT_TEXT_MAX - 1) + "…" : s
}

/** True when a classified line yields an event (items and compaction checkpoints). */
export const yieldsEvent = (c: Classified): c is Extract<Classified, { _tag: "Item" | "Compaction" }> =>
  c._tag === "Item" || c._tag === "Compaction"

/** Map one classified record to its event, or null when the line yields none. */
export const toSessionEvent = (c: Classified, ctx: EventContext): SessionEvent | null => {
  if (!yieldsEvent(c)) return null
  const base = {
    contractVersion: CONTRACT_VERSION,
    provider: "muse-agents" as const,
    sourceId: ctx.sourceId,
    sessionId: ctx.sessionId,
    eventId: `line-${ctx.lineNumber}`,
    sequence: ctx.lineNumber,
    model: null,
    occurredAt: c.createdAt,
    cursor: ctx.cursor,
    rawReference: { locatorClass: "muse-agent-transcript" as const, sequence: ctx.lineNumber, offset: ctx.offset }
  }
  if (c._tag === "Compaction") {
    return {
      ...base,
      kind: "summary",
      role: "system",
      toolName: null,
      toolCallId: null,
      text: `context compaction${c.trigger !== null ? ` (${c.trigger})` : ""}`,
      extensions: {
        [NATIVE_KEY]: {
          recordType: "compaction_checkpoint",
          compactionId: c.compactionId,
          trigger: c.trigger,
          agentId: ctx.agentId,
          lineNumber: ctx.lineNumber
        }
      }
    }
  }
  const native: Record<string, unknown> = {
    recordType: "item",
    seq: c.seq,
    source: c.source,
    agentId: ctx.agentId,
    lineNumber: ctx.lineNumber
  }
  const e = c.entry
  switch (e._tag) {
    case "Message":
      return {
        ...base,
        kind: "message",
        role: e.role,
        toolName: null,
        toolCallId: null,
        text: e.text,
        extensions: { [NATIVE_KEY]: { ...native, itemType: e.itemType } }
      }
    case "Commentary":
      return {
        ...base,
        kind: "message",
        role: "assistant",
        toolName: null,
        toolCallId: null,
        text: e.text,
        extensions: { [NATIVE_KEY]: { ...native, itemType: "commentary_text" } }
      }
    case "Thinking":
      return {
        ...base,
        kind: "thinking",
        role: "assistant",
        toolName: null,
        toolCallId: null,
        text: e.text,
        extensions: { [NATIVE_KEY]: { ...native, itemType: "thinking" } }
      }
    case "ToolCall":
      return {
        ...base,
        kind: "tool-call",
        role: "assistant",
        toolName: e.name,
        toolCallId: e.callId,
        text: oneLineJson(e.input),
        extensions: {
          [NATIVE_KEY]: {
            ...native,
            itemType: "function_call",
            nativeName: e.nativeName,
            input: e.input,
            argumentsUnparsed: e.argumentsUnparsed
          }
        }
      }
    case "ToolOutput":
      return {
        ...base,
        kind: "tool-result",
        role: null,
        toolName: null,
        toolCallId: e.callId,
        text: e.output,
        extensions: {
          [NATIVE_KEY]: { ...native, itemType: "function_call_output", success: e.success, isError: e.success === false }
        }
      }
  }
}
