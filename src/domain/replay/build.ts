/**
 * Normalized events of a session and of its subagents → a {@link ReplayInput}
 * (what an HTML replay shows). Pure: no I/O.
 *
 * The turns are the transcript's (`transcriptFromEvents`: the same turns,
 * blocks and tool results as `show --format transcript`). What the replay adds
 * is placed by event order: each block's time, the compactions and the
 * runtime facts (events of other kinds) where they happened, a tool result
 * whose call is not among the events (an orphan the transcript drops: its
 * call's line was skipped) as a block of its own where it came, and each
 * subagent session under the call or event that spawned it, found through
 * the typed links of contract 1.1.0 (the child's `parent.toolCallId`, else
 * its `parent.eventId`, else a parent event whose `child.sessionId` names it).
 * The header carries the session's parse warnings and diagnostics.
 *
 * @module
 */
import { compactionOf, isConversationEvent, shownText, transcriptFromEvents } from "../conversation.js"
import type { ParseWarning, ProviderId, SessionEvent, TranscriptBlock, TranscriptDiagnostic } from "../model.js"
import { summarizeGroups, totalsOf, type UsageGroup, type UsageTotals, usageTotals } from "../usage.js"
import { parseWarningTally } from "../warning-kinds.js"
import type { ReplayBlock, ReplayEntry, ReplayFact, ReplayInput, ReplaySession, ReplayTurn } from "./model.js"

/** What the replay builder is given about a session: what its events do not say, then its events and subagents. */
export interface ReplaySource {
  readonly session: {
    readonly sessionId: string
    readonly provider: ProviderId
    readonly title?: string | null
    readonly model?: string | null
    readonly workspace?: string | null
    /** A session header's time, which no event carries (as `transcriptFromEvents` takes it). */
    readonly startedAt?: string | null
    /** The source's lines skipped as unreadable (the discovery summary's; no event carries them). */
    readonly parseWarnings?: ReadonlyArray<ParseWarning>
    /** What else the source left out (the discovery summary's); the events' own (`orphan-tool-output`) are counted from them. */
    readonly diagnostics?: ReadonlyArray<TranscriptDiagnostic>
  }
  /** The session's events, in source order. */
  readonly events: ReadonlyArray<SessionEvent>
  /**
   * Its usage as the index counts it (`sessionUsage` of
   * `layers/index/queries.ts`: a response a resumed session copied counts in
   * the session where it was seen first, not here); absent, the usage is
   * counted from the events alone.
   */
  readonly usage?: ReadonlyArray<UsageGroup> | undefined
  /** Its subagent sessions (each with its own), whose events link to this session (`parent`). */
  readonly subagents: ReadonlyArray<ReplaySource>
}

/** True when `transcriptFromEvents` makes a block of this event (message with a role and text or images, thinking with text, tool call). */
const makesBlock = (e: SessionEvent): boolean =>
  e.kind === "message"
    ? e.role !== null && shownText(e).length > 0
    : e.kind === "thinking"
    ? e.text !== null && e.text.length > 0
    : e.kind === "tool-call"

const BLOCK_KIND: Record<TranscriptBlock["type"], string> = { text: "message", thinking: "thinking", tool_use: "tool-call" }

const durationOf = (start: string | null, end: string | null): number | null => {
  if (start === null || end === null) return null
  const ms = Date.parse(end) - Date.parse(start)
  return Number.isFinite(ms) ? Math.max(0, ms) : null
}

/** The token totals of usage groups (the index's counting of a session), null when none reports usage. */
const countedTotals = (groups: ReadonlyArray<UsageGroup>): UsageTotals | null => {
  const s = summarizeGroups(groups.map((g) => ({ ...g, group: null })), null).get(null)
  return s === undefined ? null : totalsOf(s)
}

type MutableTool = Extract<ReplayBlock, { type: "tool" }> & { subagents: Array<ReplaySession> }
type MutableFact = ReplayFact & { subagents: Array<ReplaySession> }

/**
 * The replay of one session and, nested, of its subagents (see the module
 * doc). `costUsd` is null (a pricing step fills it in); a subagent whose
 * spawning call or event is not among the session's goes to `unplaced`.
 */
export const replaySession = (source: ReplaySource): ReplaySession => {
  const { events, session } = source
  const transcript = transcriptFromEvents(session, events)
  // (tester31a F7) whether a result whose call is missing may have lost it to a skipped line (never a kept one)
  const linesSkipped = parseWarningTally(session.parseWarnings ?? []).skippedLines > 0

  // The k-th block of the transcript (turns flattened) comes from the k-th event that makes a block.
  const blockEvents: Array<SessionEvent> = []
  // Markers (compactions, runtime facts) by the number of blocks made before them.
  const markers: Array<{ readonly before: number; readonly event: SessionEvent }> = []
  // Calls seen so far, by the id `transcriptFromEvents` pairs results on: a result with no earlier call is an orphan.
  const callIds = new Set<string>()
  for (const e of events) {
    if (e.kind === "tool-call") callIds.add(e.toolCallId ?? e.eventId)
    if (makesBlock(e)) blockEvents.push(e)
    else if (e.kind === "summary" || !isConversationEvent(e)) markers.push({ before: blockEvents.length, event: e })
    else if (e.kind === "tool-result" && (e.toolCallId === null || !callIds.has(e.toolCallId))) {
      markers.push({ before: blockEvents.length, event: e })
    }
  }
  const flat = transcript.turns.flatMap((t) => t.blocks)
  // Defensive: were the transcript's rules ever to part from `makesBlock`, times and markers go without positions.
  const aligned = flat.length === blockEvents.length && flat.every((b, k) => BLOCK_KIND[b.type] === blockEvents[k].kind)

  const tools = new Map<string, MutableTool>()
  const factsByEvent = new Map<string, MutableFact>()
  const toolOfEvent = new Map<string, string>()
  // Calls a result says succeeded (`isError: false`); the transcript marks only failures.
  const succeeded = new Set<string>()
  for (const e of events) {
    if (e.toolCallId === null || (e.kind !== "tool-call" && e.kind !== "tool-result")) continue
    toolOfEvent.set(e.eventId, e.toolCallId)
    if (e.kind === "tool-result" && e.isError === false) succeeded.add(e.toolCallId)
  }

  let pending: Array<ReplayBlock> = []
  const markerBlock = (e: SessionEvent): ReplayBlock | MutableFact => {
    if (e.kind === "summary") {
      const c = compactionOf(e)
      return { type: "compaction", at: c.timestamp, id: c.id, trigger: c.trigger }
    }
    if (e.kind === "tool-result") {
      return { type: "orphan", at: e.occurredAt, id: e.toolCallId, result: shownText(e), isError: e.isError ?? null, linesSkipped }
    }
    const fact: MutableFact = { kind: e.kind, at: e.occurredAt, text: e.text, subagents: [] }
    factsByEvent.set(e.eventId, fact)
    return fact
  }
  const addMarker = (e: SessionEvent) => {
    const b = markerBlock(e)
    if ("type" in b) return void pending.push(b)
    const last = pending[pending.length - 1]
    if (last !== undefined && last.type === "facts") (last.facts as Array<ReplayFact>).push(b)
    else pending.push({ type: "facts", at: b.at, facts: [b] })
  }
  const takePending = () => {
    const out = pending
    pending = []
    return out
  }

  const entries: Array<ReplayEntry> = []
  let k = 0
  let m = 0
  const flushMarkers = (upTo: number) => {
    while (m < markers.length && (markers[m].before <= upTo || !aligned)) addMarker(markers[m++].event)
  }
  for (const turn of transcript.turns) {
    const blocks: Array<ReplayBlock> = []
    turn.blocks.forEach((b, j) => {
      if (aligned) {
        flushMarkers(k)
        if (j === 0) entries.push(...(takePending() as Array<ReplayEntry>))
        else blocks.push(...takePending())
      }
      const at = aligned ? blockEvents[k].occurredAt : j === 0 ? turn.timestamp : null
      k++
      switch (b.type) {
        case "text":
          return void blocks.push({ type: "text", at, text: b.text })
        case "thinking":
          return void blocks.push({ type: "thinking", at, text: b.text })
        case "tool_use": {
          const tool: MutableTool = {
            type: "tool",
            at,
            id: b.id,
            name: b.name,
            input: b.input ?? null,
            result: b.result ?? null,
            isError: b.isError === true ? true : b.result !== undefined && succeeded.has(b.id) ? false : null,
            subagents: []
          }
          tools.set(b.id, tool)
          return void blocks.push(tool)
        }
      }
    })
    const replayTurn: ReplayTurn = { type: "turn", role: turn.role, at: turn.timestamp, blocks }
    entries.push(replayTurn)
  }
  flushMarkers(Number.POSITIVE_INFINITY)
  entries.push(...(takePending() as Array<ReplayEntry>))

  // Subagents under the call or event that spawned them.
  const unplaced: Array<ReplaySession> = []
  const eventsById = new Map(events.map((e) => [e.eventId, e]))
  for (const sub of source.subagents) {
    const child = replaySession(sub)
    const link = sub.events.find((e) => e.parent !== null && e.parent.sessionId === session.sessionId)?.parent ?? null
    const byChild = events.find((e) => e.child !== null && e.child.sessionId === sub.session.sessionId)
    const viaEvent = (eventId: string | null | undefined) => {
      if (eventId === null || eventId === undefined) return undefined
      const callId = toolOfEvent.get(eventId)
      if (callId !== undefined && tools.has(callId)) return tools.get(callId)!.subagents
      const fact = factsByEvent.get(eventId)
      if (fact !== undefined) return fact.subagents
      const e = eventsById.get(eventId)
      return e?.toolCallId != null ? tools.get(e.toolCallId)?.subagents : undefined
    }
    const home = (link?.toolCallId != null ? tools.get(link.toolCallId)?.subagents : undefined) ??
      viaEvent(link?.eventId) ??
      viaEvent(byChild?.eventId) ??
      unplaced
    home.push(child)
  }

  const toolBlocks = [...tools.values()]
  return {
    header: {
      sessionId: session.sessionId,
      provider: session.provider,
      title: session.title ?? null,
      model: transcript.model,
      workspace: session.workspace ?? null,
      startedAt: transcript.startedAt,
      endedAt: transcript.endedAt,
      durationMs: durationOf(transcript.startedAt, transcript.endedAt),
      counts: {
        events: events.length,
        turns: transcript.turns.length,
        toolCalls: toolBlocks.length,
        toolErrors: toolBlocks.filter((t) => t.isError === true).length,
        compactions: transcript.compactions.length,
        runtimeEvents: events.filter((e) => !isConversationEvent(e)).length,
        subagents: source.subagents.length
      },
      tokens: source.usage === undefined ? usageTotals(events) : countedTotals(source.usage),
      costUsd: null,
      parseWarnings: session.parseWarnings ?? [],
      // As `sessionTranscript` has them: the events' own, then the summary's of other kinds.
      diagnostics: [
        ...transcript.diagnostics,
        ...(session.diagnostics ?? []).filter((d) => !transcript.diagnostics.some((t) => t.kind === d.kind))
      ]
    },
    entries,
    unplaced
  }
}

/** The {@link ReplayInput} of a session with its subagents (see {@link replaySession}). */
export const replayInput = (source: ReplaySource): ReplayInput => ({ session: replaySession(source) })
