/**
 * Per-session summary of a Claude Code session (its file, inline
 * sidechains and nested subagent files): what `discover` lists, `inspect`
 * counts and `transcript` is titled with (`fixtures/claude-code/EXPECTED.md`,
 * "Rules used throughout"). Pure: the layer feeds classified lines in order,
 * the main file first.
 *
 * @module
 */
import type { ParseWarning } from "../model.js"
import { titleOf, WarningTally } from "../muse-agents/summary.js"
import { clipPrompt } from "../redaction/clipped.js"
import { earliestOf, latestOf } from "../timestamps.js"
import { USAGE_NOT_VALID } from "../usage.js"
import { NOT_JSON_KINDS, OVERSIZED_LINE } from "../garbled.js"
import { INVALID_UTF8 } from "../warning-kinds.js"
import { ChainState, eventCountOf, type TokenTotals, UsageTally } from "./events.js"
import { type Classified, isPrompt, PROGRESS_RECORD, isSpawnTool, SYNTHETIC_MODEL, textOf, UNKNOWN_BLOCK } from "./records.js"

/** Longest `firstPrompt`, in UTF-16 code units (longer ones end in `…`, cut on a grapheme's edge; lone surrogates U+FFFD: `clipPrompt`). */
export const PROMPT_MAX_CHARS = 500

/** Which file a line came from: the session's own file, or a nested subagent file (by agent id). */
export type Part = { readonly _tag: "main" } | { readonly _tag: "subagent"; readonly agentId: string }

/** The main file. */
export const MAIN: Part = { _tag: "main" }

/** An entry's text as a prompt (trimmed, at most {@link PROMPT_MAX_CHARS}), or null when it is no prompt or empty. */
const promptOf = (c: Parameters<typeof isPrompt>[0]): string | null => {
  if (!isPrompt(c)) return null
  const t = textOf(c).trim()
  return t.length === 0 ? null : clipPrompt(t, PROMPT_MAX_CHARS)
}

/**
 * Scans a session's lines: title (a `summary` whose `leafUuid` is a uuid of
 * the session, else the first prompt through `titleOf`), cwd / gitBranch /
 * version / slug (first main-file entry that has them), model (first
 * main-chain assistant model that is not `<synthetic>`), first and last times
 * (min / max `timestamp` of `user` / `assistant` / `system` entries, subagent
 * files included), prompts (user turns, see `isPrompt`), tool calls and
 * errors by part, compactions, token totals ({@link UsageTally}), parse
 * warnings (main file; subagent files apart) and the number of events the
 * main file yields.
 */
/**
 * The parse warning of a line kept although its bytes are not valid UTF-8
 * (its bad bytes read as U+FFFD): Claude Code's policy is tolerant, so the
 * line's record is not lost, but the replacement is said, not silent. The
 * shared kind (Muse agents counts it too).
 */
export { INVALID_UTF8 }

/**
 * The parse-warning kinds one classified line of a session's file counts, in
 * the order {@link SessionScan.push} counts them (so a stream that reads some
 * of the lines counts them as discovery's scan does): `invalid-utf8` for a
 * kept line whose bytes were not valid UTF-8, the kind of a line skipped, and
 * an entry's usage not valid, timestamp warning, `progress-record` or
 * `unknown-block`. Empty for most lines.
 */
export const lineWarningKinds = (c: Classified, invalidUtf8: boolean): ReadonlyArray<string> => {
  if (c._tag === "LineWarning") return [c.kind]
  const utf8 = invalidUtf8 && c._tag !== "Blank"
  if (c._tag !== "Entry") return utf8 ? [INVALID_UTF8] : NO_KINDS
  if (!utf8 && !c.usageNotValid && c.timestampWarning === null && c.type !== "progress" && !c.blocks.some((b) => b.type === "unknown")) {
    return NO_KINDS
  }
  const out: Array<string> = utf8 ? [INVALID_UTF8] : []
  if (c.usageNotValid) out.push(USAGE_NOT_VALID)
  if (c.timestampWarning !== null) out.push(c.timestampWarning)
  if (c.type === "progress") out.push(PROGRESS_RECORD)
  else if (c.blocks.some((b) => b.type === "unknown")) out.push(UNKNOWN_BLOCK)
  return out
}

const NO_KINDS: ReadonlyArray<string> = []

export class SessionScan {
  /** Physical lines of the main file. */
  lineCount = 0
  /** Non-blank lines of the main file that read as JSON (records, and lines skipped for their content). */
  readLines = 0
  /** Lines of the main file longer than the import limit `maxRecordBytes` (`oversized-line`: not read, not held). */
  oversizedLines = 0
  /** Lines of the main file that do not read as JSON ({@link NOT_JSON_KINDS}: torn, garbage, zeroed, UTF-16). */
  notJsonLines = 0
  /** True when the main file's last line had no `\n` (and is not `zeroed-bytes`: a zeroed tail is not a file still written). */
  lastLineUnterminated = false
  promptCount = 0
  firstPrompt: string | null = null
  cwd: string | null = null
  gitBranch: string | null = null
  version: string | null = null
  slug: string | null = null
  model: string | null = null
  readonly subagentModels: Array<string> = []
  startedAt: string | null = null
  endedAt: string | null = null
  /** Tool calls of the main chain, of inline sidechains, of subagent files. */
  readonly toolCalls = { main: 0, sidechain: 0, subagents: 0 }
  /** Tool results with `is_error: true` (every part). */
  toolErrorCount = 0
  compactionCount = 0
  /** Entries of inline sidechains (lines). */
  sidechainLines = 0
  /** Events `stream` yields from the main file (without subagents). */
  eventCount = 0
  /** Events of the subagent files. */
  subagentEventCount = 0
  /** Assistant lines that yield an event (every part): responses, whatever their usage. */
  responseLines = 0
  /** User lines with a document or content not understood (every part): what a person sent, prompt or not. */
  contentLines = 0
  readonly lineWarnings = new WarningTally()
  readonly subagentWarnings = new WarningTally()
  readonly usage = new UsageTally()
  private readonly uuids = new Set<string>()
  private readonly summaries: Array<{ summary: string; leafUuid: string | null }> = []
  /** The last `custom-title` (a user's `/rename`) of the session, if any. */
  customTitle: string | null = null
  /** The `description` of each Task (or Agent) call of the main file, by tool-use id: the name the parent gave a subagent. */
  private readonly taskNames = new Map<string, string>()
  /** The Task call each subagent's result names (`toolUseResult.agentId`), by agent id. */
  private readonly agentCalls = new Map<string, string>()
  /** Each subagent file's first prompt, by agent id. */
  private readonly subagentPrompts = new Map<string, string>()
  /** The main file's chains: each inline sidechain's root and spawning call (as `stream` places them). */
  private readonly chain = new ChainState()
  /** The roots of the main file's inline sidechains, in order, with each one's first prompt (or null). */
  private readonly sidechainPrompts = new Map<string, string | null>()

  /** @param ownSessionId the session's id (its file stem), to tell its own `custom-title` records from others'; null: any. */
  constructor(readonly ownSessionId: string | null = null) {}

  /**
   * Feed one classified line of `part` (1-based `lineNumber`, `terminated`
   * as read). `invalidUtf8`: its bytes were not valid UTF-8 (read with
   * U+FFFD in their place): a line kept is counted as an `invalid-utf8`
   * parse warning ({@link INVALID_UTF8}); one skipped counts once, for why it was.
   */
  push(c: Classified, part: Part, lineNumber: number, terminated: boolean, invalidUtf8 = false): void {
    const main = part._tag === "main"
    if (main) {
      this.lineCount++
      // A last line of zeroed bytes (a power loss's zeroed tail) is not a file still written: counted as zeroed-bytes.
      this.lastLineUnterminated = !terminated && !(c._tag === "LineWarning" && c.kind === "zeroed-bytes")
    }
    // The line's warnings, as a stream reading it counts them (`lineWarningKinds`).
    const kinds = lineWarningKinds(c, invalidUtf8)
    if (kinds.length > 0) {
      const tally = main ? this.lineWarnings : this.subagentWarnings
      for (const kind of kinds) tally.add(kind, lineNumber)
    }
    const events = eventCountOf(c)
    if (main) this.eventCount += events
    else this.subagentEventCount += events
    if (main && c._tag !== "Blank") {
      if (c._tag === "LineWarning" && NOT_JSON_KINDS.has(c.kind)) this.notJsonLines++
      else if (c._tag === "LineWarning" && c.kind === OVERSIZED_LINE) this.oversizedLines++
      else this.readLines++
    }
    switch (c._tag) {
      case "Blank":
      case "Ignored":
        return
      case "LineWarning":
        return
      case "Summary":
        this.summaries.push({ summary: c.summary, leafUuid: c.leafUuid })
        return
      case "CustomTitle":
        // The session's own /rename (the last one wins); one naming another session, or blank, is not its title.
        if (main && c.title.trim().length > 0 && (c.sessionId === null || this.ownSessionId === null || c.sessionId === this.ownSessionId)) {
          this.customTitle = c.title
        }
        return
      case "Entry":
        break
    }
    if (c.type === "assistant" && events > 0) this.responseLines++
    if (c.type === "user" && c.blocks.some((b) => b.type === "document" || b.type === "unknown")) this.contentLines++
    if (c.uuid !== null) this.uuids.add(c.uuid)
    if (c.timestamp !== null) {
      this.startedAt = earliestOf(this.startedAt, c.timestamp)
      this.endedAt = latestOf(this.endedAt, c.timestamp)
    }
    if (main) {
      const root = this.chain.push(c, lineNumber)
      if (root !== null) {
        const known = this.sidechainPrompts.get(root)
        if (known === undefined || known === null) this.sidechainPrompts.set(root, promptOf({ ...c, isSidechain: false }))
      }
      this.cwd ??= c.cwd
      this.gitBranch ??= c.gitBranch !== null && c.gitBranch !== "" ? c.gitBranch : null
      this.version ??= c.version
      this.slug ??= c.slug
      if (c.isSidechain) this.sidechainLines++
    }
    const where = !main ? "subagent" : c.isSidechain ? "sidechain" : "main"
    if (c.type === "assistant") {
      if (c.model !== null && c.model !== SYNTHETIC_MODEL) {
        if (where === "main") this.model ??= c.model
        else if (!this.subagentModels.includes(c.model)) this.subagentModels.push(c.model)
      }
      if (c.usage !== null) this.usage.add(c.messageId, c.requestId, c.usage, where)
    }
    if (c.type === "system" && c.subtype === "compact_boundary" && main) this.compactionCount++
    if (main && c.resultAgentId !== null && !c.isSidechain && !this.agentCalls.has(c.resultAgentId)) {
      const result = c.blocks.find((b) => b.type === "tool_result")
      if (result !== undefined && result.type === "tool_result") this.agentCalls.set(c.resultAgentId, result.toolUseId)
    }
    // A subagent's lines are all sidechain lines: its first prompt is its first user text that a prompt would be.
    if (part._tag === "subagent" && !this.subagentPrompts.has(part.agentId)) {
      const t = promptOf({ ...c, isSidechain: false })
      if (t !== null) this.subagentPrompts.set(part.agentId, t)
    }
    for (const b of c.blocks) {
      if (b.type === "tool_use" && main && isSpawnTool(b.name)) {
        const d = typeof b.input === "object" && b.input !== null ? (b.input as { description?: unknown }).description : undefined
        if (typeof d === "string" && d.trim().length > 0) this.taskNames.set(b.id, d.trim())
      }
      if (b.type === "tool_use") {
        if (where === "main") this.toolCalls.main++
        else if (where === "sidechain") this.toolCalls.sidechain++
        else this.toolCalls.subagents++
      } else if (b.type === "tool_result" && b.isError) this.toolErrorCount++
    }
    if (main && isPrompt(c)) {
      this.promptCount++
      if (this.firstPrompt === null) {
        const t = textOf(c).trim()
        this.firstPrompt = clipPrompt(t, PROMPT_MAX_CHARS)
      }
    }
  }

  /**
   * The title of a subagent's session: the `description` of the Task call
   * that spawned it (the one `toolUseId` names, from its `meta.json`, else the
   * one whose result names the agent), as the parent named it; else the
   * subagent's own first prompt; null when neither is known.
   */
  subagentTitle(agentId: string, toolUseId?: string | undefined): string | null {
    for (const call of [toolUseId, this.agentCalls.get(agentId)]) {
      const named = call !== undefined ? this.taskNames.get(call) : undefined
      if (named !== undefined) return titleOf(named)
    }
    const prompt = this.subagentPrompts.get(agentId)
    return prompt !== undefined ? titleOf(prompt) : null
  }

  /**
   * The titles of the main file's inline sidechains (older versions wrote a
   * Task's conversation into the session file, `isSidechain` lines), by
   * root uuid (the session `sidechain-<root>`), in order: by the rule of
   * {@link subagentTitle}, the `description` of the Task call that spawned it
   * (the call whose prompt its first line holds, as `stream` links it), else
   * its own first prompt; a sidechain with neither is left out.
   */
  sidechainTitles(): ReadonlyArray<readonly [root: string, title: string]> {
    const out: Array<readonly [string, string]> = []
    for (const [root, prompt] of this.sidechainPrompts) {
      const call = this.chain.callOf(root)
      const named = call !== null ? this.taskNames.get(call) : undefined
      const title = named ?? prompt
      if (title !== null) out.push([root, titleOf(title)])
    }
    return out
  }

  /** Every tool call of the session (main chain, sidechains, subagents). */
  get toolCallCount(): number {
    return this.toolCalls.main + this.toolCalls.sidechain + this.toolCalls.subagents
  }

  /** The `summary` whose `leafUuid` is a uuid of this session (the first such), or null. */
  get summaryTitle(): string | null {
    for (const s of this.summaries) if (s.leafUuid !== null && this.uuids.has(s.leafUuid)) return s.summary
    return null
  }

  /** The title: the last `custom-title` (a `/rename`), else {@link summaryTitle}, else `titleOf` the first prompt, else null. */
  get title(): string | null {
    if (this.customTitle !== null) return titleOf(this.customTitle)
    const fromSummary = this.summaryTitle
    if (fromSummary !== null && fromSummary.trim().length > 0) return titleOf(fromSummary)
    return this.firstPrompt !== null ? titleOf(this.firstPrompt) : null
  }

  /**
   * What {@link title} came from: `"custom-title"` (the last `/rename`),
   * `"summary"`, `"first-prompt"`, or null (no title). Discovery's and the
   * index's `titleFrom`.
   */
  get titleFrom(): "custom-title" | "summary" | "first-prompt" | null {
    if (this.customTitle !== null) return "custom-title"
    const fromSummary = this.summaryTitle
    if (fromSummary !== null && fromSummary.trim().length > 0) return "summary"
    return this.firstPrompt !== null ? "first-prompt" : null
  }

  /**
   * True when the session holds a conversation: a prompt, a tool call, a
   * response (an assistant line with an event, whatever its usage: one whose
   * usage is not valid is a response all the same), or a user line holding a
   * document or content not understood (kept as events, never left out).
   */
  get listable(): boolean {
    return this.promptCount > 0 || this.toolCallCount > 0 || this.responseLines > 0 || this.contentLines > 0 ||
      this.usage.totals().messages > 0
  }

  /** Token totals: every part, and each part. */
  get tokens(): { readonly total: TokenTotals; readonly main: TokenTotals; readonly sidechain: TokenTotals; readonly subagents: TokenTotals } {
    return {
      total: this.usage.totals(),
      main: this.usage.totals("main"),
      sidechain: this.usage.totals("sidechain"),
      subagents: this.usage.totals("subagent")
    }
  }

  /** The main file's parse warnings. */
  get parseWarnings(): Array<ParseWarning> {
    return this.lineWarnings.toArray()
  }
}
