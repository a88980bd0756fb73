/**
 * Classified Muse agents lines → the {@link Transcript} of DESIGN.md (seed
 * `000_…`, "Item kinds"). Pure.
 *
 * - user / assistant `message` and `message_parts` → a text block of that role;
 * - `thinking` → an assistant thinking block; `commentary_text` → an assistant text block;
 * - `function_call` → an assistant `tool_use` block (canonical name and input);
 * - `function_call_output` → the `result` of the `tool_use` with the same
 *   `call_id` (`isError: true` when `success` is false); an output no call
 *   claims is dropped and counted in `diagnostics` as `orphan-tool-output`
 *   (not a parse warning: seed 000, only malformed lines are);
 * - `compaction_checkpoint` → `compactions[]` (id, trigger, timestamp) only; its
 *   summary is never replayed;
 * - each user message is a user turn of its own (two in a row are two turns,
 *   as vibe-replay's parser has it); consecutive assistant blocks form one
 *   turn; a turn is stamped with its first record's time.
 *
 * @module
 */
import { ORPHAN_TOOL_OUTPUT } from "../conversation.js"
import type { Compaction, ToolUseDraft, Transcript, TranscriptBlock, TranscriptDiagnostic, TranscriptTurn } from "../model.js"
import { classifyLine, type Classified, type RawLine } from "./records.js"
import { SessionScan, type SessionsIndexEntry } from "./summary.js"

type Role = "user" | "assistant"

type MutableToolUse = ToolUseDraft

interface MutableTurn {
  role: Role
  timestamp: string | null
  blocks: Array<TranscriptBlock | MutableToolUse>
}

/** The diagnostic kind of tool outputs that no call claims (shared by every conversation provider). */
export const ORPHAN_OUTPUT_WARNING = ORPHAN_TOOL_OUTPUT

/**
 * Builds a transcript from classified lines fed in file order, alongside the
 * {@link SessionScan} of the same lines (title, times, line warnings).
 */
export class TranscriptBuilder {
  readonly scan = new SessionScan()
  private readonly turns: Array<MutableTurn> = []
  private readonly compactions: Array<Compaction> = []
  /** Tool uses still waiting for a result, by call id (oldest first). */
  private readonly open = new Map<string, Array<MutableToolUse>>()
  /** Outputs that came before any call claimed them, by call id (oldest first). */
  private readonly early = new Map<string, Array<{ output: string; success: boolean | null; line: number }>>()

  /** Feed one classified line. */
  push(c: Classified, lineNumber: number, terminated: boolean): void {
    this.scan.push(c, lineNumber, terminated)
    if (c._tag === "Compaction") {
      this.compactions.push({
        id: c.compactionId ?? `compaction-line-${lineNumber}`,
        trigger: c.trigger,
        timestamp: c.createdAt
      })
      return
    }
    if (c._tag !== "Item") return
    const e = c.entry
    switch (e._tag) {
      case "Message":
        if (e.text.length > 0) this.block(e.role, c.createdAt, { type: "text", text: e.text })
        return
      case "Commentary":
        if (e.text.length > 0) this.block("assistant", c.createdAt, { type: "text", text: e.text })
        return
      case "Thinking":
        if (e.text.length > 0) this.block("assistant", c.createdAt, { type: "thinking", text: e.text })
        return
      case "ToolCall": {
        const use: MutableToolUse = { type: "tool_use", id: e.callId, name: e.name, input: e.input }
        this.block("assistant", c.createdAt, use)
        const waiting = this.early.get(e.callId)
        if (waiting !== undefined && waiting.length > 0) {
          const out = waiting.shift()!
          this.settle(use, out.output, out.success)
        } else {
          const list = this.open.get(e.callId)
          if (list === undefined) this.open.set(e.callId, [use])
          else list.push(use)
        }
        return
      }
      case "ToolOutput": {
        const list = this.open.get(e.callId)
        if (list !== undefined && list.length > 0) {
          this.settle(list.shift()!, e.output, e.success)
        } else {
          const waiting = this.early.get(e.callId)
          const out = { output: e.output, success: e.success, line: lineNumber }
          if (waiting === undefined) this.early.set(e.callId, [out])
          else waiting.push(out)
        }
        return
      }
    }
  }

  private settle(use: MutableToolUse, output: string, success: boolean | null): void {
    use.result = output
    if (success === false) use.isError = true
  }

  private block(role: Role, timestamp: string | null, b: TranscriptBlock | MutableToolUse): void {
    const last = this.turns.length > 0 ? this.turns[this.turns.length - 1] : undefined
    // One user message is one user turn; an assistant turn gathers everything until the next user message.
    if (last !== undefined && last.role === role && role !== "user") {
      last.blocks.push(b)
      if (last.timestamp === null) last.timestamp = timestamp
    } else {
      this.turns.push({ role, timestamp, blocks: [b] })
    }
  }

  /**
   * The transcript. `sessionId` is the header's (callers check there is one);
   * `index` is the `sessions.json` entry (model), if any; `extraDiagnostics`
   * are appended to the diagnostics (e.g. an ignored `sessions.json`).
   * `parseWarnings` are the line warnings only.
   */
  finish(
    sessionId: string,
    index: SessionsIndexEntry | null = null,
    extraDiagnostics: ReadonlyArray<TranscriptDiagnostic> = []
  ): Transcript {
    this.scan.finish()
    // Orphan outputs: the scan pairs outputs with calls as this builder does (oldest first, by call id).
    const diagnostics: Array<TranscriptDiagnostic> = this.scan.diagnostics
    diagnostics.push(...extraDiagnostics)
    const turns: Array<TranscriptTurn> = this.turns.map((t) => ({
      role: t.role,
      timestamp: t.timestamp,
      blocks: t.blocks.map((b) => (b.type === "tool_use" ? { ...b } : b))
    }))
    return {
      sessionId,
      title: this.scan.title,
      model: index?.model ?? null,
      // The earliest and latest times of any record, header and compactions included (never end before start).
      startedAt: this.scan.firstRecordAt,
      endedAt: this.scan.lastRecordAt,
      turns,
      compactions: [...this.compactions],
      parseWarnings: this.scan.lineWarnings.toArray(),
      diagnostics
    }
  }
}

/**
 * The transcript of a whole file given as lines (a convenience over
 * {@link TranscriptBuilder} for tests and embedders; the CLI streams the file
 * instead). Lines are numbered from 1; all but the last count as terminated,
 * the last as `lastTerminated`. Returns null when the lines hold no
 * `session_header` (seed 000: such a file is not a session). Never throws.
 */
export const transcriptOfLines = (
  lines: ReadonlyArray<string>,
  options: { readonly maxDepth?: number; readonly lastTerminated?: boolean } = {}
): { readonly transcript: Transcript | null; readonly scan: SessionScan } => {
  const b = new TranscriptBuilder()
  const maxDepth = options.maxDepth ?? 64
  lines.forEach((text, i) => {
    const raw: RawLine = {
      text,
      lineNumber: i + 1,
      terminated: i < lines.length - 1 || (options.lastTerminated ?? true)
    }
    b.push(classifyLine(raw, maxDepth), raw.lineNumber, raw.terminated)
  })
  const header = b.scan.header
  if (header === null) {
    b.scan.finish()
    return { transcript: null, scan: b.scan }
  }
  return { transcript: b.finish(header.sessionId), scan: b.scan }
}
