/**
 * Token usage of a session from its normalized events (contract 1.1.0,
 * issue 12): the typed `usage` of each event, counted once per model
 * response. Pure.
 *
 * A response streamed as several records (Claude Code and Claude
 * stream-json write one line per content block, each repeating the
 * response's usage, `output_tokens` growing) shares one `responseId`: it is
 * counted once, with the usage of its last event. An event with usage and no
 * `responseId` counts on its own. ccusage counted each partial (its issue
 * about double counting); this does not.
 *
 * @module
 */
import type { SessionEvent, TokenUsage } from "./model.js"

/**
 * Totals of token usage over events: each count the sum of the responses
 * that report it, null when none does (unknown, never 0 for "not
 * reported"); `responses` is how many responses reported usage.
 */
export interface UsageTotals extends TokenUsage {
  readonly responses: number
}

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b)

/**
 * The usage totals of events, in any order of sessions but in each source's
 * order: per `responseId` the last usage seen wins. Null when no event
 * carries usage (the source reports none).
 */
export const usageTotals = (events: Iterable<SessionEvent>): UsageTotals | null => {
  const byResponse = new Map<string, TokenUsage>()
  const loose: Array<TokenUsage> = []
  for (const e of events) {
    if (e.usage === null) continue
    if (e.responseId === null) loose.push(e.usage)
    else {
      const key = `${e.sourceId}\u0000${e.responseId}`
      byResponse.delete(key) // keep the map in last-seen order
      byResponse.set(key, e.usage)
    }
  }
  if (byResponse.size === 0 && loose.length === 0) return null
  let inputTokens: number | null = null
  let outputTokens: number | null = null
  let cacheReadTokens: number | null = null
  let cacheWriteTokens: number | null = null
  for (const u of [...byResponse.values(), ...loose]) {
    inputTokens = add(inputTokens, u.inputTokens)
    outputTokens = add(outputTokens, u.outputTokens)
    cacheReadTokens = add(cacheReadTokens, u.cacheReadTokens)
    cacheWriteTokens = add(cacheWriteTokens, u.cacheWriteTokens)
  }
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, responses: byResponse.size + loose.length }
}
