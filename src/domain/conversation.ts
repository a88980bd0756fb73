/**
 * Normalized {@link SessionEvent}s of a conversation → a {@link Transcript}
 * (DESIGN.md, "Normalized model"), for `show <id> --format
 * transcript|markdown`. Pure: no I/O.
 *
 * Event conventions of the conversation providers (fixed by their adapters):
 * - `message`: role user / assistant / system, `text` the content;
 * - `thinking`: assistant, `text` the reasoning;
 * - `tool-call`: `toolName` (canonical), `toolCallId`, the input in the
 *   typed `toolInput`;
 * - `tool-result`: `toolCallId`, `text` the output, `isError` true on failure;
 * - `summary`: a context compaction, metadata only (the typed `compaction`:
 *   id and trigger).
 *
 * Only the typed fields of the contract are read here, never a provider's
 * `extensions` (contract 1.1.0).
 *
 * Other kinds (Muse Code runtime facts such as `proposed`,
 * `side_effect_intent`) are not conversation and are skipped.
 *
 * @module
 */
import type {
  Compaction,
  SessionEvent,
  ToolUseDraft,
  Transcript,
  TranscriptBlock,
  TranscriptDiagnostic,
  TranscriptTurn
} from "./model.js"
import { earliestOf, latestOf } from "./timestamps.js"

/** The event kinds that make up a conversation (DESIGN.md, "Normalized model"). */
export const CONVERSATION_KINDS: ReadonlyArray<string> = ["message", "thinking", "tool-call", "tool-result", "summary"]

/** The media types of the images an event's native extension (`extensions["native.<provider>"]`) names: its `images: [{mediaType}]` list, or, for a message that is an image alone, its own `blockType: "image"` and `mediaType` (Claude Code: docs/providers.md). */
const imagesOf = (e: SessionEvent): ReadonlyArray<unknown> => {
  // An event built by a caller may leave `extensions` out (a library user's events, tests' shapes): no images then.
  const native = (e.extensions as SessionEvent["extensions"] | undefined)?.[`native.${e.provider}`] as
    | { readonly images?: unknown; readonly blockType?: unknown; readonly mediaType?: unknown }
    | undefined
  if (native === undefined || native === null) return []
  if (Array.isArray(native.images)) return native.images
  return e.kind === "message" && native.blockType === "image" ? [{ mediaType: native.mediaType }] : []
}

/** A media type as a placeholder names it: a `type/subtype` token, else "type not known" (a source's free text is no type: tester34c F7). */
const mediaTypeShown = (t: unknown): string =>
  typeof t === "string" && /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/.test(t) ? t : "type not known"

/** For a document attached to a message (native `blockType: "document"`) whose text says nothing (a base64 PDF without title or context): its placeholder. */
const documentNote = (e: SessionEvent, text: string): string | undefined => {
  if (e.kind !== "message" || text.length > 0) return undefined
  const native = (e.extensions as SessionEvent["extensions"] | undefined)?.[`native.${e.provider}`] as
    | { readonly blockType?: unknown; readonly mediaType?: unknown }
    | undefined
  return native !== undefined && native !== null && native.blockType === "document" ? `[1 document (${mediaTypeShown(native.mediaType)}) not shown]` : undefined
}

/**
 * An event's text as the shareable outputs show it (transcript, Markdown, the replay, ATIF): its `text`, then, when
 * its native extension names images (the media types only, the bytes are never kept; docs/providers.md), a
 * placeholder line saying them, `[1 image (image/png) not shown]`, so an image leaves a trace there (tester31a F3 for a
 * tool's result; tester34b F3 for the images a user pastes into a message); a document attached to a message whose
 * text says nothing (a base64 PDF without a title), `[1 document (application/pdf) not shown]` (tester34c F7). A media
 * type that is no `type/subtype` token is "type not known". `""` for no text, no image and no document.
 */
export const shownText = (e: SessionEvent): string => {
  const text = e.text ?? ""
  const images = imagesOf(e)
  if (images.length === 0) return documentNote(e, text) ?? text
  const types = [...new Set(images.map((i) => mediaTypeShown(typeof i === "object" && i !== null ? (i as { readonly mediaType?: unknown }).mediaType : undefined)))]
  const note = `[${images.length} image${images.length === 1 ? "" : "s"} (${types.join(", ")}) not shown]`
  return text.length === 0 ? note : `${text}\n${note}`
}


/**
 * The {@link TranscriptDiagnostic} kind of tool results that no call claims,
 * for every conversation provider: such a result is dropped from the
 * transcript and counted as a diagnostic, not a parse warning (its line is
 * well-formed; seed 000: only malformed lines are parse warnings).
 */
export const ORPHAN_TOOL_OUTPUT = "orphan-tool-output"

/** True when the event is of a conversation kind ({@link CONVERSATION_KINDS}). */
export const isConversationEvent = (e: SessionEvent): boolean => CONVERSATION_KINDS.includes(e.kind)

/** The compaction an event of kind `summary` records: its typed `compaction` (id and trigger; the event id when it has none) and time. */
export const compactionOf = (e: SessionEvent): Compaction => ({
  id: e.compaction !== null && e.compaction.id.length > 0 ? e.compaction.id : e.eventId,
  trigger: e.compaction?.trigger ?? null,
  timestamp: e.occurredAt
})

type ToolUse = ToolUseDraft
type MutableTurn = { role: TranscriptTurn["role"]; timestamp: string | null; blocks: Array<TranscriptBlock> }

/**
 * Build the transcript of a conversation session from its events, in the
 * order given.
 *
 * Rules:
 * - turns: an assistant (or system) turn is a maximal run of blocks of that
 *   role; a user turn is one user message, i.e. the user blocks of one native
 *   record (same `sourceId` and `rawReference.sequence`), so two user messages
 *   in a row are two turns. `message` gives a `text` block in a turn of its
 *   role (messages without a role or text are skipped), `thinking` a
 *   `thinking` block and `tool-call` a `tool_use` block, both in assistant
 *   turns; a turn's `timestamp` is its first block's `occurredAt`;
 * - a `tool-result` is paired onto the latest earlier `tool_use` of the same
 *   id (`result` its text, `isError: true` when the result's `isError` is; a
 *   second result for the same call is appended on a new line); it never
 *   makes a block of its own. A result with no earlier call of its id is
 *   dropped and counted in `diagnostics` as
 *   `{kind: "orphan-tool-output", count, firstLine}` ({@link ORPHAN_TOOL_OUTPUT};
 *   `firstLine` is the first one's `rawReference.sequence`, a Muse agents
 *   line number); `parseWarnings` is empty (events are already parsed);
 * - `summary` events become `compactions` (id, trigger, timestamp); their text
 *   is never replayed, and they do not cut a turn (metadata only, seed 000,
 *   as every provider's own transcript builder has it);
 * - events of other kinds are skipped (they neither add blocks nor end turns);
 * - `startedAt`: the earliest of `session.startedAt` (a session header's
 *   time, which no event carries) and the events' `occurredAt`; `endedAt`:
 *   the latest of them, compactions (`summary` events) included, so the end
 *   is never before the start (earliest and latest by instant, see
 *   `compareTimestamps`, not first and last in event order); `model`: `session.model` when given, else
 *   the first non-null event `model`; `title`: `session.title` or null.
 */
export const transcriptFromEvents = (
  session: {
    readonly sessionId: string
    readonly title?: string | null
    readonly model?: string | null
    readonly startedAt?: string | null
  },
  events: ReadonlyArray<SessionEvent>
): Transcript => {
  const turns: Array<MutableTurn> = []
  const compactions: Array<Compaction> = []
  const calls = new Map<string, ToolUse>()
  let current: MutableTurn | null = null
  /** The native record the current turn's last block came from (`sourceId` + `rawReference.sequence`). */
  let currentRecord: string | null = null
  let orphans = 0
  let firstOrphan: number | null = null
  let startedAt: string | null = session.startedAt ?? null
  let endedAt: string | null = startedAt
  let eventModel: string | null = null

  const push = (role: MutableTurn["role"], e: SessionEvent, block: TranscriptBlock) => {
    const record = e.rawReference.sequence !== undefined ? `${e.sourceId}#${e.rawReference.sequence}` : null
    if (current === null || current.role !== role || (role === "user" && (record === null || record !== currentRecord))) {
      current = { role, timestamp: e.occurredAt, blocks: [] }
      turns.push(current)
    }
    currentRecord = record
    current.blocks.push(block)
  }

  for (const e of events) {
    if (e.occurredAt !== null) {
      startedAt = earliestOf(startedAt, e.occurredAt)
      endedAt = latestOf(endedAt, e.occurredAt)
    }
    if (eventModel === null && e.model !== null) eventModel = e.model
    switch (e.kind) {
      case "message": {
        const text = shownText(e)
        if (e.role === null || text.length === 0) break
        push(e.role, e, { type: "text", text })
        break
      }
      case "thinking": {
        if (e.text === null || e.text.length === 0) break
        push("assistant", e, { type: "thinking", text: e.text })
        break
      }
      case "tool-call": {
        const use: ToolUse = {
          type: "tool_use",
          id: e.toolCallId ?? e.eventId,
          name: e.toolName ?? "unknown",
          input: e.toolInput ?? null
        }
        calls.set(use.id, use)
        push("assistant", e, use)
        break
      }
      case "tool-result": {
        const use = e.toolCallId !== null ? calls.get(e.toolCallId) : undefined
        if (use === undefined) {
          if (orphans++ === 0) firstOrphan = e.rawReference.sequence ?? null
          break
        }
        const text = shownText(e)
        use.result = use.result === undefined ? text : `${use.result}\n${text}`
        if (e.isError === true) use.isError = true
        break
      }
      case "summary": {
        compactions.push(compactionOf(e))
        break
      }
      default:
        break
    }
  }

  const diagnostics: Array<TranscriptDiagnostic> = orphans > 0
    ? [{ kind: ORPHAN_TOOL_OUTPUT, count: orphans, firstLine: firstOrphan }]
    : []
  return {
    sessionId: session.sessionId,
    title: session.title ?? null,
    model: session.model ?? eventModel,
    startedAt,
    endedAt,
    turns: turns.map((t) => ({ role: t.role, timestamp: t.timestamp, blocks: t.blocks })),
    compactions,
    parseWarnings: [],
    diagnostics
  }
}
