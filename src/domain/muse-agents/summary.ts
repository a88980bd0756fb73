/**
 * Per-session summaries of Muse agents transcripts: what `discover` lists and
 * `inspect` counts (seed `000_…`, "Decisions"; issue 4, "Build"). Pure: the
 * layer feeds classified lines in file order and reads the result; nothing of
 * the conversation is held beyond the few prompts a summary shows.
 *
 * @module
 */
import { isRecord, parseJson } from "../json.js"
import { ORPHAN_TOOL_OUTPUT } from "../conversation.js"
import type { ParseWarning, TranscriptDiagnostic } from "../model.js"
import { earliestOf, latestOf, timestampOrNull } from "../timestamps.js"
import { type Classified, isDirectiveSource, isSubagentContext, type LineWarningKind } from "./records.js"
import { isEditTool } from "./tools.js"
import { NOT_JSON_KINDS, OVERSIZED_LINE } from "../garbled.js"
import { INVALID_UTF8 } from "../warning-kinds.js"
import { clipPrompt, clipText, TITLE_MAX_CHARS, titleText, wellFormed } from "../redaction/clipped.js"

/** Longest `firstPrompt` / `firstPrompts[]` entry kept, in UTF-16 code units (longer ones end in `…`, cut on a grapheme's edge; lone surrogates U+FFFD). */
export const PROMPT_MAX_CHARS = 500
/** Longest `title`, in UTF-16 code units (longer ones end in `…`; their redaction: `../redaction/clipped.ts`). */
export { TITLE_MAX_CHARS }
/** How many prompts `firstPrompts` holds ("the first few prompts", issue 4). */
export const FIRST_PROMPTS = 3

const clip = clipText

/**
 * A title from a prompt: whitespace (newlines included) collapsed to one space, trimmed, clipped to
 * {@link TITLE_MAX_CHARS}; each lone surrogate (also half a pair the cut went through) one U+FFFD (`wellFormed`).
 */
export const titleOf = (prompt: string): string => wellFormed(clip(titleText(prompt), TITLE_MAX_CHARS))

/** Counts parse warnings by kind, remembering the first (1-based) line of each. */
export class WarningTally {
  private readonly byKind = new Map<string, { count: number; firstLine: number | null }>()

  /** Count one warning of `kind` at `line` (null: not a line, e.g. `sessions.json`). */
  add(kind: string, line: number | null): void {
    const cur = this.byKind.get(kind)
    if (cur === undefined) this.byKind.set(kind, { count: 1, firstLine: line })
    else {
      cur.count++
      if (cur.firstLine === null && line !== null) cur.firstLine = line
    }
  }

  /** The count of one kind (0 when none was counted). */
  countOf(kind: string): number {
    return this.byKind.get(kind)?.count ?? 0
  }

  /** Total of every kind's count. */
  get total(): number {
    let n = 0
    for (const v of this.byKind.values()) n += v.count
    return n
  }

  /** The warnings as `{kind, count, firstLine}`, in order of first occurrence. */
  toArray(): Array<ParseWarning> {
    return [...this.byKind.entries()].map(([kind, v]) => ({ kind, count: v.count, firstLine: v.firstLine }))
  }
}

/**
 * The parse-warning kinds one classified line of a transcript counts, in the
 * order {@link SessionScan.push} counts them (so a stream that reads some of
 * the lines counts them as discovery's scan does): `invalid-utf8` for a kept
 * line whose bytes were not valid UTF-8, the kind of a line skipped, a second
 * `session_header` (`duplicate`: the file's first header is on an earlier
 * line) as `duplicate-header`, and a record's timestamp warning. Empty for
 * most lines (no array is made for them).
 */
export const lineWarningKinds = (c: Classified, invalidUtf8: boolean, duplicate: boolean): ReadonlyArray<string> => {
  const utf8 = invalidUtf8 && c._tag !== "LineWarning" && c._tag !== "Blank"
  switch (c._tag) {
    case "LineWarning":
      return [c.kind]
    case "Header":
      if (duplicate) return utf8 ? [INVALID_UTF8, "duplicate-header" satisfies LineWarningKind] : ["duplicate-header"]
      return c.timestampWarning !== null ? (utf8 ? [INVALID_UTF8, c.timestampWarning] : [c.timestampWarning]) : utf8 ? [INVALID_UTF8] : NO_KINDS
    case "Compaction":
    case "Item":
      return c.timestampWarning !== null ? (utf8 ? [INVALID_UTF8, c.timestampWarning] : [c.timestampWarning]) : utf8 ? [INVALID_UTF8] : NO_KINDS
    default:
      return utf8 ? [INVALID_UTF8] : NO_KINDS
  }
}

const NO_KINDS: ReadonlyArray<string> = []

/** The session header as the scan saw it (the first one; seed 000: once per file). */
export interface HeaderInfo {
  readonly sessionId: string
  readonly agentId: string | null
  readonly createdAt: string | null
  /** 1-based line of the header. */
  readonly lineNumber: number
}

/**
 * Scans a transcript's classified lines in file order and keeps the summary
 * fields of issue 4:
 * - `promptCount`: every user message (`message` and `message_parts`),
 *   whatever its `source`, `[Subagent Context]` ones included;
 * - `firstPrompt` / `firstPrompts` / title: user messages whose source is not a
 *   runtime directive (`runtime.*`, `scheduler.cron`), that do not begin with
 *   `[Subagent Context]`, and are not blank (seed 000);
 * - `toolCallCount`, `editCount` (canonical names Edit, MultiEdit, Write,
 *   NotebookEdit, Delete), `compactionCount`;
 * - line warnings (`lineWarnings`); orphan tool outputs are counted apart
 *   (`orphanOutputCount`, `diagnostics`): they are well-formed lines;
 * - `eventCount`: the records `stream` emits (items and compactions), and
 *   the earliest and latest of their times (`firstEventAt`, `lastEventAt`);
 * - the earliest and latest record times, header and compactions included
 *   (`firstRecordAt`, `lastRecordAt`; RFC 3339): the session's start and end.
 *   Earliest and latest by instant, not first and last in file order, so the
 *   end is never before the start (a compaction's epoch-seconds time may be
 *   older than the header's, as in vibe-replay's fixtures).
 */
export class SessionScan {
  /** The first valid `session_header`, or null (then the file is not a session). */
  header: HeaderInfo | null = null
  /** Physical lines seen (blank and bad ones included). */
  lineCount = 0
  /** Non-blank lines that read as JSON (records, and lines skipped for their content). */
  readLines = 0
  /** Lines longer than the import limit `maxRecordBytes` (`oversized-line`: not read, not held). */
  oversizedLines = 0
  /** Lines that do not read as JSON ({@link NOT_JSON_KINDS}: torn, garbage, zeroed, UTF-16). */
  notJsonLines = 0
  /** User messages, whatever their source. */
  promptCount = 0
  /** `function_call` items. */
  toolCallCount = 0
  /** Tool calls whose canonical name edits files. */
  editCount = 0
  /** `compaction_checkpoint` records. */
  compactionCount = 0
  /** Lines that `stream` turns into events. */
  eventCount = 0
  /** Tool outputs no call claims (set by {@link SessionScan.finish}). */
  orphanOutputCount = 0
  /** 1-based line of the first tool output no call claims, or null (set by {@link SessionScan.finish}). */
  firstOrphanOutputLine: number | null = null
  /** True when the last line seen had no `\n` (and is not `zeroed-bytes`: a zeroed tail is not a file still written). */
  lastLineUnterminated = false
  /** Earliest time of any record, header and compactions included (RFC 3339). */
  firstRecordAt: string | null = null
  /** Latest time of any record, header and compactions included (RFC 3339). */
  lastRecordAt: string | null = null
  /** Earliest time of an event-yielding record (items and compactions; RFC 3339). */
  firstEventAt: string | null = null
  /** Latest time of an event-yielding record (items and compactions; RFC 3339). */
  lastEventAt: string | null = null
  /** Up to {@link FIRST_PROMPTS} eligible prompts, trimmed and clipped to {@link PROMPT_MAX_CHARS}. */
  readonly firstPrompts: Array<string> = []
  /** Line-level parse warnings. */
  readonly lineWarnings = new WarningTally()
  private readonly openCalls = new Map<string, number>()
  /** Outputs that came before any call claimed them: their line numbers by call id, oldest first. */
  private readonly pendingOutputs = new Map<string, Array<number>>()

  /**
   * Feed one classified line (1-based `lineNumber`, `terminated` as read).
   * `invalidUtf8`: its bytes were not valid UTF-8 (read with U+FFFD in their
   * place): a line kept is counted as an `invalid-utf8` parse warning
   * ({@link INVALID_UTF8}); one skipped counts once, for why it was.
   */
  push(c: Classified, lineNumber: number, terminated: boolean, invalidUtf8 = false): void {
    this.lineCount++
    // A last line of zeroed bytes (a power loss's zeroed tail) is not a file still written: counted as zeroed-bytes.
    this.lastLineUnterminated = !terminated && !(c._tag === "LineWarning" && c.kind === "zeroed-bytes")
    // The line's warnings, as a stream reading it counts them (`lineWarningKinds`).
    for (const kind of lineWarningKinds(c, invalidUtf8, c._tag === "Header" && this.header !== null)) this.lineWarnings.add(kind, lineNumber)
    if (c._tag === "LineWarning" && NOT_JSON_KINDS.has(c.kind)) this.notJsonLines++
    else if (c._tag === "LineWarning" && c.kind === OVERSIZED_LINE) this.oversizedLines++
    else if (c._tag !== "Blank") this.readLines++
    switch (c._tag) {
      case "Blank":
      case "Ignored":
        return
      case "LineWarning":
        return
      case "Header":
        if (this.header !== null) return
        this.header = { sessionId: c.sessionId, agentId: c.agentId, createdAt: c.createdAt, lineNumber }
        this.time(c.createdAt)
        return
      case "Compaction":
        this.compactionCount++
        this.event(c.createdAt)
        return
      case "Item": {
        this.event(c.createdAt)
        const e = c.entry
        switch (e._tag) {
          case "Message":
            if (e.role === "user") {
              this.promptCount++
              if (
                this.firstPrompts.length < FIRST_PROMPTS && !isDirectiveSource(c.source) && !isSubagentContext(e.text)
              ) {
                const t = e.text.trim()
                if (t.length > 0) this.firstPrompts.push(clipPrompt(t, PROMPT_MAX_CHARS))
              }
            }
            return
          case "ToolCall": {
            this.toolCallCount++
            if (isEditTool(e.name)) this.editCount++
            const waiting = this.pendingOutputs.get(e.callId)
            if (waiting !== undefined && waiting.length > 0) waiting.shift()
            else this.openCalls.set(e.callId, (this.openCalls.get(e.callId) ?? 0) + 1)
            return
          }
          case "ToolOutput": {
            const open = this.openCalls.get(e.callId) ?? 0
            if (open > 0) this.openCalls.set(e.callId, open - 1)
            else {
              const waiting = this.pendingOutputs.get(e.callId)
              if (waiting === undefined) this.pendingOutputs.set(e.callId, [lineNumber])
              else waiting.push(lineNumber)
            }
            return
          }
          default:
            return
        }
      }
    }
  }

  private event(t: string | null): void {
    this.eventCount++
    this.time(t)
    if (t === null) return
    this.firstEventAt = earliestOf(this.firstEventAt, t)
    this.lastEventAt = latestOf(this.lastEventAt, t)
  }

  private time(t: string | null): void {
    if (t === null) return
    this.firstRecordAt = earliestOf(this.firstRecordAt, t)
    this.lastRecordAt = latestOf(this.lastRecordAt, t)
  }

  /** Call once after the last line: settles orphan outputs (outputs no call ever claimed). */
  finish(): this {
    let orphans = 0
    let first: number | null = null
    for (const lines of this.pendingOutputs.values()) {
      orphans += lines.length
      if (lines.length > 0 && (first === null || lines[0] < first)) first = lines[0]
    }
    this.orphanOutputCount = orphans
    this.firstOrphanOutputLine = first
    return this
  }

  /**
   * The scan's {@link TranscriptDiagnostic}s (after {@link SessionScan.finish}):
   * `orphan-tool-output` when some tool output matches no call. Not parse
   * warnings: those lines are well-formed (seed 000).
   */
  get diagnostics(): Array<TranscriptDiagnostic> {
    return this.orphanOutputCount > 0
      ? [{ kind: ORPHAN_TOOL_OUTPUT, count: this.orphanOutputCount, firstLine: this.firstOrphanOutputLine }]
      : []
  }

  /** The first eligible prompt (clipped), or null. */
  get firstPrompt(): string | null {
    return this.firstPrompts.length > 0 ? this.firstPrompts[0] : null
  }

  /** The title: {@link titleOf} the first eligible prompt, or null. */
  get title(): string | null {
    return this.firstPrompts.length > 0 ? titleOf(this.firstPrompts[0]) : null
  }

  /**
   * Whether discovery lists the session (seed 000, issue 4): it has a
   * `session_header`, and prompts or tool calls, or a line skipped as
   * `oversized-line` (over the import limit `maxRecordBytes`: its prompt or
   * tool call is not known to be absent, so the session is listed with that
   * warning, never omitted as having neither; tester16 finding 3).
   */
  get listable(): boolean {
    return this.header !== null && (this.promptCount > 0 || this.toolCallCount > 0 || this.lineWarnings.countOf("oversized-line") > 0)
  }
}

/** What `sessions.json` says about one session (best-effort; seed 000). */
export interface SessionsIndexEntry {
  /** `context_window_usage.model_id`. */
  readonly model: string | null
  /** `updated_at`, as RFC 3339. */
  readonly updatedAt: string | null
}

/** Result of reading `sessions.json`. */
export type SessionsIndex =
  | { readonly _tag: "found"; readonly entry: SessionsIndexEntry }
  /** The document is usable but names nothing for this session. */
  | { readonly _tag: "no-entry" }
  /** The document was ignored: not JSON, not an object (seed 000: tolerated), or nested too deep. */
  | { readonly _tag: "ignored"; readonly reason: "not-json" | "not-object" | "too-deep" }

const entryOf = (o: Record<string, unknown>): SessionsIndexEntry => {
  const usage = o.context_window_usage
  const model = isRecord(usage) && typeof usage.model_id === "string" && usage.model_id.length > 0 ? usage.model_id : null
  return { model, updatedAt: timestampOrNull(o.updated_at) }
}

const looksLikeEntry = (o: Record<string, unknown>): boolean => "updated_at" in o || "context_window_usage" in o

/**
 * Read the `sessions.json` runtime index for `sessionId`. The seed names its
 * fields (`updated_at`, `context_window_usage.model_id`) but not its layout, so
 * these layouts are accepted, first match wins: a map keyed by session id
 * (`{"<sid>": {...}}`), a `sessions` array (entries with `session_id` or `id`)
 * or map, and a single-session document carrying the fields at its top level
 * (with a `session_id`, it must match). A document that is not JSON or not an
 * object is `ignored` (never fatal, seed 000).
 */
export const readSessionsIndex = (text: string, sessionId: string, maxDepth: number): SessionsIndex => {
  const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, maxDepth)
  if (parsed._tag === "error") {
    return { _tag: "ignored", reason: parsed.problem._tag === "depth" ? "too-deep" : "not-json" }
  }
  const doc = parsed.value
  if (!isRecord(doc)) return { _tag: "ignored", reason: "not-object" }
  const keyed = Object.prototype.hasOwnProperty.call(doc, sessionId) ? doc[sessionId] : undefined
  if (isRecord(keyed)) return { _tag: "found", entry: entryOf(keyed) }
  const sessions = doc.sessions
  if (Array.isArray(sessions)) {
    const hit = sessions.find((e) => isRecord(e) && (e.session_id === sessionId || e.id === sessionId))
    if (isRecord(hit)) return { _tag: "found", entry: entryOf(hit) }
  } else if (isRecord(sessions)) {
    const hit = Object.prototype.hasOwnProperty.call(sessions, sessionId) ? sessions[sessionId] : undefined
    if (isRecord(hit)) return { _tag: "found", entry: entryOf(hit) }
  }
  if (looksLikeEntry(doc) && (doc.session_id === undefined || doc.session_id === sessionId)) {
    return { _tag: "found", entry: entryOf(doc) }
  }
  return { _tag: "no-entry" }
}
