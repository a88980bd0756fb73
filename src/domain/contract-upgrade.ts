/**
 * Events and source summaries of an older contract, read back from an index
 * written before it, brought to the current one ({@link CONTRACT_VERSION}).
 * Pure.
 *
 * Contract 1.0.0 kept the conversation facts in each provider's
 * `extensions["native.<provider>"]` provenance; 1.1.0 (issue 12) made them
 * typed fields of the event: `toolInput`, `isError`, `compaction`, `parent`,
 * `child`, `usage`, `responseId`. An index keeps the events it imported, so
 * an index imported with 1.0.0 is read through {@link upgradeEvent}, which
 * fills the typed fields from the 1.0.0 provenance those providers wrote
 * (the one place that knows the old layout), without re-reading any source.
 * The provenance itself is kept as it was. What 1.0.0 did not keep cannot be
 * upgraded: AgentMux events had no usage and no response id (null until the
 * store is re-imported into a new index), and an AgentMux compaction's
 * trigger was not kept.
 *
 * Contract 1.2.0 (issue 18) added `costUsd`, the cost a source states: a
 * 1.0.0 or 1.1.0 event gets it from the provenance that kept it (Claude
 * Code's native `usage.costUSD`); AgentMux `result` lines were no events
 * before 1.2.0, so an older index has no run totals until re-imported.
 *
 * Contract 1.3.0 added `usage.cacheWrite1hTokens`, the part of the cache
 * writes written to the 1-hour cache: no older event kept it (Claude Code's
 * provenance keeps the cache-write total only), so an older event's usage
 * gets null (not said: its cache writes are priced at the 5-minute rate, as
 * before) until its source is imported again.
 *
 * @module
 */
import { isRecord } from "./json.js"
import {
  type ChildLink,
  CONTRACT_VERSION,
  emptySourceSummary,
  type ParentLink,
  ParseWarning,
  type SessionEvent,
  type SourceSummary,
  type TokenUsage,
  TranscriptDiagnostic
} from "./model.js"
import * as Schema from "effect/Schema"

type Loose = Record<string, unknown>

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null)
const int = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null)

/** The 1.0.0 provenance object of an event (its first `native.*` key holding an object), or `{}`. */
const nativeOf = (extensions: unknown): Loose => {
  if (!isRecord(extensions)) return {}
  for (const [key, value] of Object.entries(extensions)) if (key.startsWith("native.") && isRecord(value)) return value
  return {}
}

const parentOf = (native: Loose): ParentLink | null => {
  const p = native.parent
  if (!isRecord(p) || str(p.sessionId) === null) return null
  return {
    sessionId: str(p.sessionId)!,
    toolCallId: str(p.toolCallId),
    eventId: str(p.bindingEventId),
    subagentId: str(p.subagentId) ?? str(p.agentId)
  }
}

const childOf = (provider: string, native: Loose): ChildLink | null => {
  if (provider === "claude-code") {
    const agent = str(native.resultAgentId)
    return agent === null ? null : { sessionId: `agent-${agent}`, subagentId: agent }
  }
  const sessionId = str(native.childSessionId) ?? str(native.subagentSessionId)
  const subagentId = str(native.subagentId)
  return sessionId === null && subagentId === null ? null : { sessionId, subagentId }
}

const usageOf = (u: unknown): TokenUsage | null =>
  isRecord(u)
    ? {
      inputTokens: int(u.inputTokens),
      outputTokens: int(u.outputTokens),
      cacheReadTokens: int(u.cacheReadTokens),
      cacheWriteTokens: int(u.cacheWriteTokens),
      cacheWrite1hTokens: null
    }
    : null

/** A 1.2.0 event's usage with the 1.3.0 count it could not say (`cacheWrite1hTokens`: null). */
const withCacheWrite1h = (u: unknown): TokenUsage | null =>
  !isRecord(u) ? null : "cacheWrite1hTokens" in u ? u as TokenUsage : { ...(u as Omit<TokenUsage, "cacheWrite1hTokens">), cacheWrite1hTokens: null }

/** Muse agents kept `success` (true, false or null: not said) beside a derived `isError`; the others kept `isError` only. */
const isErrorOf = (native: Loose): boolean | null =>
  "success" in native
    ? typeof native.success === "boolean" ? !native.success : null
    : typeof native.isError === "boolean" ? native.isError : null

/** A 1.0.0 `summary`'s compaction: Muse agents' and Claude Code's `compactionId`, AgentMux's line `uuid` (else `am-<line index>`, as its transcript named it). */
const compactionOf = (stored: SessionEvent, native: Loose): { id: string; trigger: string | null } => {
  const agentmuxLine = stored.provider === "agentmux" && int(native.line) !== null && native.line !== 0 ? `am-${(native.line as number) - 1}` : null
  return {
    id: str(native.compactionId) ?? str(native.uuid) ?? agentmuxLine ?? stored.eventId,
    trigger: str(native.trigger)
  }
}

/**
 * An event as the current contract has it. An event of the current version
 * is returned as it is; a 1.0.0 event gets the typed fields from its
 * provenance (kind by kind: a `tool-call`'s `input`, a `tool-result`'s
 * `success` / `isError`, a `summary`'s `compactionId` / `trigger` (or
 * AgentMux's `uuid`), the `parent` link, the child a record names, Claude
 * Code's `usage` and `messageId` + `requestId`) and the current version;
 * a 1.0.0 or 1.1.0 event gets `costUsd` (contract 1.2.0) from Claude Code's
 * native `usage.costUSD`; an older event's usage gets `cacheWrite1hTokens`
 * (contract 1.3.0) null.
 */
export const upgradeEvent = (stored: SessionEvent): SessionEvent => {
  if (stored.contractVersion === CONTRACT_VERSION) return stored
  if ((stored.contractVersion as string) === "1.2.0") {
    return { ...stored, contractVersion: CONTRACT_VERSION, usage: withCacheWrite1h(stored.usage) }
  }
  const native = nativeOf(stored.extensions)
  const costUsd = statedCostOf(stored.provider, native)
  if ((stored.contractVersion as string) === "1.1.0") {
    return { ...stored, contractVersion: CONTRACT_VERSION, costUsd, usage: withCacheWrite1h(stored.usage) }
  }
  const messageId = str(native.messageId)
  const requestId = str(native.requestId)
  return {
    ...stored,
    contractVersion: CONTRACT_VERSION,
    toolInput: stored.kind === "tool-call" ? native.input ?? null : null,
    isError: stored.kind === "tool-result" ? isErrorOf(native) : null,
    compaction: stored.kind === "summary" ? compactionOf(stored, native) : null,
    parent: parentOf(native),
    child: childOf(stored.provider, native),
    usage: usageOf(native.usage),
    responseId: messageId === null ? null : requestId === null ? messageId : `${messageId}:${requestId}`,
    costUsd
  }
}

/** The cost a 1.0.0 / 1.1.0 event's provenance kept: Claude Code's native `usage.costUSD` (US dollars), else null. */
const statedCostOf = (provider: string, native: Loose): number | null => {
  if (provider !== "claude-code" || !isRecord(native.usage)) return null
  const c = native.usage.costUSD
  return typeof c === "number" && Number.isFinite(c) && c >= 0 ? c : null
}

const decodeWarnings = Schema.decodeUnknownOption(Schema.Array(ParseWarning))
const decodeDiagnostics = Schema.decodeUnknownOption(Schema.Array(TranscriptDiagnostic))

/**
 * The typed summary of a source imported before contract 1.1.0, from the
 * provider summary its discovery gave then (the keys those providers wrote:
 * `title` / `firstPrompt`, `workspace` / `workspaceRoot` / `cwd` /
 * `evidencePath`, `startedAt` / `firstReceivedAt`, `updatedAt` /
 * `lastReceivedAt`, `model`, `promptCount`, `toolCallCount`, `runs`,
 * `lineCount`, `parseWarnings`, `diagnostics`); what it lacks is null.
 */
export const legacySourceSummary = (summary: Record<string, unknown>): SourceSummary => {
  const count = (v: unknown) => int(v)
  return {
    ...emptySourceSummary(str(summary.sessionId)),
    title: str(summary.title) ?? str(summary.firstPrompt),
    workspace: str(summary.workspace) ?? str(summary.workspaceRoot) ?? str(summary.cwd) ?? str(summary.evidencePath),
    firstActivityAt: str(summary.startedAt) ?? str(summary.firstReceivedAt),
    lastActivityAt: (summary.updatedAtFrom === "file-mtime" ? undefined : str(summary.updatedAt)) ?? str(summary.lastReceivedAt),
    model: str(summary.model),
    counts: {
      prompts: count(summary.promptCount),
      toolCalls: count(summary.toolCallCount),
      runs: Array.isArray(summary.runs) ? summary.runs.length : null,
      lines: count(summary.lineCount)
    },
    parseWarnings: decodeWarnings(summary.parseWarnings).pipe((o) => (o._tag === "Some" ? o.value : [])),
    diagnostics: decodeDiagnostics(summary.diagnostics).pipe((o) => (o._tag === "Some" ? o.value : []))
  }
}
