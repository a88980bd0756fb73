/**
 * Token usage and cost of sessions from their normalized events (contract
 * 1.3.0, issues 12 and 18). Pure.
 *
 * A response streamed as several records (Claude Code and Claude
 * stream-json write one line per content block, each repeating the
 * response's usage, `output_tokens` growing) shares one `responseId`: it is
 * counted once, with the usage (and stated cost) of its last event. An event
 * with usage and no `responseId` counts on its own. ccusage counted each
 * partial (its issue about double counting); this does not.
 *
 * A `result` event (AgentMux: the end of a Claude run) states its run's
 * totals: it is a *run* row, not a response. Its tokens are the same tokens
 * its responses report, so they count only when none of its responses
 * reported any; its `costUsd` (`total_cost_usd`) is the cost of the run's
 * responses, which then cost nothing more. A run is one Claude process:
 * its responses are those since its `system/init` line (the event's
 * `runFrom`) and since the session's previous `result` (a process that ends
 * several turns states each turn's). A run killed before its `result` (the
 * next `init` came first) keeps its responses priced from the table: a later
 * process's stated total is not theirs (tester22a F3).
 *
 * Cost, in order: the run's stated total; else the response's own stated
 * cost (Claude Code `costUSD`); else the response's tokens at the price
 * table's price for its model (`./prices.ts`: cache writes at the 5-minute
 * rate but for the part a response says went to the 1-hour cache,
 * `cacheWrite1hTokens`, at the 1-hour rate). A response without tokens
 * costs 0. A response whose model the table lacks has no cost: the totals
 * over it keep their tokens, leave `costUsd` null and name the model in
 * `unpriced` (never a partial sum shown as the cost).
 *
 * The index keeps the same rows ({@link usageRows}) in its `usage` table,
 * maintained at import, and groups them in SQL; {@link summarizeGroups}
 * turns groups into totals for both.
 *
 * @module
 */
import { isRecord } from "./json.js"
import type { ProviderId, SessionEvent, TokenUsage } from "./model.js"
import { costAt, fastOf, isFast, isLongContext, longContextOf, type PriceTable, priceOf } from "./prices.js"

/**
 * Totals of token usage over events: each count the sum of the responses
 * that report it, null when none does (unknown, never 0 for "not
 * reported"); `responses` is how many responses reported usage.
 */
export interface UsageTotals extends TokenUsage {
  readonly responses: number
}

/**
 * One response's (or one run's) usage as counted: the last usage its
 * events carry. `key`: `r:<responseId>`, or `e:<eventId>` for an event
 * without a response id (and for a `result`). `runSeq`: for a response, the
 * sequence of the `result` that ended its run (null while its run is open,
 * and for good when the run was killed). `runFrom`: for a run, the sequence
 * of its first event (after its `system/init` line; absent or null when
 * unknown: an event imported before it was kept, or no `init` before it).
 */
export interface UsageRow {
  readonly sourceId: string
  readonly sessionId: string
  readonly key: string
  readonly kind: "response" | "run"
  readonly provider: string
  readonly eventId: string
  readonly sequence: number
  readonly occurredAt: string | null
  readonly model: string | null
  readonly usage: TokenUsage
  readonly costUsd: number | null
  readonly runSeq: number | null
  readonly runFrom?: number | null
  /**
   * A run (an AgentMux `result`) whose stated total is set aside: some of its
   * responses count in Claude Code's own log of the run (the total overlaps
   * them), so it adds nothing and its other responses are priced from the
   * table (tester27a F8). Absent: false.
   */
  readonly setAside?: boolean
}

export { USAGE_NOT_VALID } from "./warning-kinds.js"

/**
 * A token count as a source writes it: null when absent (`undefined` or
 * `null`), the count when it is a non-negative safe integer, `undefined`
 * (not valid: the usage is to be dropped, {@link USAGE_NOT_VALID}) otherwise.
 */
export const tokenCountOf = (v: unknown): number | null | undefined =>
  v === undefined || v === null ? null : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined

/**
 * A stated cost in US dollars as a source writes it: null when absent, the
 * cost when it is a finite non-negative number, `undefined` (not valid)
 * otherwise.
 */
export const statedCostOf = (v: unknown): number | null | undefined =>
  v === undefined || v === null ? null : typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined

/**
 * The part of a cache-write total (`total`: `cache_creation_input_tokens`)
 * an Anthropic usage object (`message.usage` of Claude Code and of Claude
 * stream-json) says was written to the 1-hour cache:
 * `cache_creation.ephemeral_1h_input_tokens`. Null when it does not say
 * (no `cache_creation`, no such count) or the total is unknown; never more
 * than the total (a larger count is clamped to it); `undefined` (not valid:
 * the usage is to be dropped, {@link USAGE_NOT_VALID}, as for the other
 * counts) when `cache_creation` is not an object or the count not a
 * non-negative safe integer. Source: Anthropic's Messages API usage
 * (`cache_creation: {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}`,
 * the split of `cache_creation_input_tokens`), as Claude Code logs it.
 */
export const cacheWrite1hOf = (usage: Record<string, unknown>, total: number | null | undefined): number | null | undefined => {
  const split = usage.cache_creation
  if (split === undefined || split === null) return null
  if (!isRecord(split)) return undefined
  const n = tokenCountOf(split.ephemeral_1h_input_tokens)
  if (n === undefined) return undefined
  return n === null || total === null || total === undefined ? null : Math.min(n, total)
}

const NO_USAGE: TokenUsage = { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null }

/** The row an event gives (without `runSeq`), or null when it carries no usage and no stated cost. */
export const usageRowOf = (e: SessionEvent): Omit<UsageRow, "runSeq"> | null => {
  const run = e.kind === "result"
  if (e.usage === null && (e.costUsd ?? null) === null) return null
  return {
    sourceId: e.sourceId,
    sessionId: e.sessionId,
    key: !run && e.responseId !== null ? `r:${e.responseId}` : `e:${e.eventId}`,
    kind: run ? "run" : "response",
    provider: e.provider,
    eventId: e.eventId,
    sequence: e.sequence,
    occurredAt: e.occurredAt,
    model: e.model,
    usage: e.usage ?? NO_USAGE,
    costUsd: e.costUsd ?? null,
    ...(run ? { runFrom: runFromOf(e) } : {})
  }
}

/**
 * The sequence of the first event of a `result`'s run: AgentMux keeps it in
 * the event's provenance (`native.agentmux.runFrom`, the event after the
 * run's `system/init` line: see `./agentmux/transcript.ts`); null
 * when the event does not say (kept before it was written, or no `init`
 * came before the `result`): the run then reaches back to the previous `result`.
 */
export const runFromOf = (e: SessionEvent): number | null => {
  const native = e.extensions[`native.${e.provider}`]
  const from = typeof native === "object" && native !== null ? (native as Record<string, unknown>).runFrom : undefined
  return typeof from === "number" && Number.isSafeInteger(from) && from >= 0 ? from : null
}

/**
 * The usage rows of events (each source's events in order): per session and
 * key the last row wins (its `runSeq` stays what it was), and each `result`
 * ends the run of the session's responses not yet ended that came before it
 * and not before its run's first event (`runFrom`).
 * The index maintains exactly these rows at import.
 */
export const usageRows = (events: Iterable<SessionEvent>): Array<UsageRow> => {
  const rows = new Map<string, UsageRow>()
  for (const e of events) {
    const r = usageRowOf(e)
    if (r === null) continue
    const session = `${r.sourceId}\u0000${r.sessionId}\u0000`
    const id = session + r.key
    const before = rows.get(id)
    if (before !== undefined && before.sequence > r.sequence) continue
    rows.delete(id) // keep the map in last-seen order
    rows.set(id, { ...r, runSeq: before?.runSeq ?? null })
    if (r.kind === "run") {
      for (const [k, x] of rows) {
        if (k.startsWith(session) && x.kind === "response" && x.runSeq === null && x.sequence < r.sequence && x.sequence >= (r.runFrom ?? 0)) {
          rows.set(k, { ...x, runSeq: r.sequence })
        }
      }
    }
  }
  return [...rows.values()]
}

/**
 * The model each of one session's usage rows is reported under by model
 * (`usage --by model`): a response's own; a run's stated total where the
 * run's responses are: the run's own model (its `system/init` line's) when
 * one of its responses has it (the process's model; other models' responses,
 * a subagent's, are covered by the same total), else the model of its latest
 * response (a run whose `init` names a model no response reports: tester22a
 * F3 booked $0.05 under `x`, a row with no tokens, while its response's
 * `unknown-model-x` showed $0), else its own (a run without responses). A
 * response whose model is null books its run under the run's own model. The
 * index's SQL does the same (`bookedModel` in `src/layers/index/rows.ts`).
 * `rows`: one session's rows (its runs and responses, as {@link usageRows}).
 */
export const bookedModelOf = (rows: ReadonlyArray<UsageRow>): (r: UsageRow) => string | null => {
  const runs = new Map<number, UsageRow>()
  for (const r of rows) if (r.kind === "run") runs.set(r.sequence, r)
  const chosen = new Map<number, UsageRow>()
  for (const r of rows) {
    if (r.kind !== "response" || r.runSeq === null) continue
    const run = runs.get(r.runSeq)
    if (run === undefined) continue
    const was = chosen.get(r.runSeq)
    const rank = (x: UsageRow) => (x.model === run.model ? 1 : 0)
    if (was === undefined || rank(r) > rank(was) || (rank(r) === rank(was) && r.sequence > was.sequence)) chosen.set(r.runSeq, r)
  }
  return (r) => (r.kind === "run" ? chosen.get(r.sequence)?.model ?? r.model : r.model)
}

/**
 * Rows of one group (a session, a day, a model…) that count alike: their
 * kind, model, whether a run's stated cost covers them (responses), whether
 * responses of their own report the run's tokens (runs), whether they state
 * a cost; with the sums of their counts (null when none reports one) and of
 * their stated costs.
 */
export interface UsageGroup {
  readonly group: string | null
  readonly kind: "response" | "run"
  readonly model: string | null
  readonly covered: boolean
  readonly hasResponses: boolean
  readonly stated: boolean
  /** Responses whose prompt (input + cache read + cache write) is over 200k tokens: priced at the long-context rates (`isLongContext`). */
  readonly longContext: boolean
  /** Responses that ran in fast mode (usage `speed: "fast"`): priced at the model's fast-mode rates (`fastOf`), else unknown. */
  readonly fast: boolean
  /** Runs whose stated total is set aside ({@link UsageRow.setAside}): counted in no total, only said (`runsSetAside`). */
  readonly setAside: boolean
  readonly rows: number
  /**
   * The rows that report some tokens (input, output, cache read or cache write over 0): a model without a price
   * leaves this many responses unpriced (a response with no tokens costs 0 whatever its model; session 28,
   * tester28a F12: a zero-token `<synthetic>` response was counted as one "with tokens but no model").
   */
  readonly tokenRows: number
  readonly inputTokens: number | null
  readonly outputTokens: number | null
  readonly cacheReadTokens: number | null
  readonly cacheWriteTokens: number | null
  /** The part of `cacheWriteTokens` written to the 1-hour cache, of the rows that say it (null when none does). */
  readonly cacheWrite1hTokens: number | null
  readonly costUsd: number | null
}

const hasTokens = (u: TokenUsage) => (u.inputTokens ?? 0) + (u.outputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) > 0

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b)

/** {@link UsageGroup}s of rows, grouped by `groupOf` (in memory: what the index's SQL groups the same way). */
export const groupRows = (rows: ReadonlyArray<UsageRow>, groupOf: (r: UsageRow) => string | null): Array<UsageGroup> => {
  const sessionOf = (r: UsageRow) => `${r.sourceId}\u0000${r.sessionId}`
  const runs = new Map<string, UsageRow>()
  const closed = new Set<string>()
  for (const r of rows) {
    if (r.kind === "run") runs.set(`${sessionOf(r)}\u0000${r.sequence}`, r)
    else if (r.runSeq !== null) closed.add(`${sessionOf(r)}\u0000${r.runSeq}`)
  }
  const groups = new Map<string, { -readonly [K in keyof UsageGroup]: UsageGroup[K] }>()
  for (const r of rows) {
    const run = r.kind === "response" && r.runSeq !== null ? runs.get(`${sessionOf(r)}\u0000${r.runSeq}`) : undefined
    const covered = run !== undefined && run.costUsd !== null && run.setAside !== true
    const hasResponses = r.kind === "run" && closed.has(`${sessionOf(r)}\u0000${r.sequence}`)
    const stated = r.costUsd !== null
    const longContext = r.kind === "response" && isLongContext(r.usage)
    const fast = r.kind === "response" && isFast(r.usage)
    const setAside = r.kind === "run" && r.setAside === true
    const group = groupOf(r)
    const k = JSON.stringify([group, r.kind, r.model, covered, hasResponses, stated, longContext, fast, setAside])
    let g = groups.get(k)
    if (g === undefined) {
      g = {
        group,
        kind: r.kind,
        model: r.model,
        covered,
        hasResponses,
        stated,
        longContext,
        fast,
        setAside,
        rows: 0,
        tokenRows: 0,
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        cacheWrite1hTokens: null,
        costUsd: null
      }
      groups.set(k, g)
    }
    g.rows++
    if (hasTokens(r.usage)) g.tokenRows++
    g.inputTokens = add(g.inputTokens, r.usage.inputTokens)
    g.outputTokens = add(g.outputTokens, r.usage.outputTokens)
    g.cacheReadTokens = add(g.cacheReadTokens, r.usage.cacheReadTokens)
    g.cacheWriteTokens = add(g.cacheWriteTokens, r.usage.cacheWriteTokens)
    g.cacheWrite1hTokens = add(g.cacheWrite1hTokens, r.usage.cacheWrite1hTokens)
    g.costUsd = add(g.costUsd, r.costUsd)
  }
  return [...groups.values()]
}

/**
 * Fast-mode responses without a cost, of one model ({@link UsageSummary.fastUnpriced}): `responses` of `model` (null:
 * no model) ran in fast mode (usage `speed: "fast"`) and the model has no fast-mode rates.
 */
export interface FastUnpriced {
  readonly model: string | null
  readonly responses: number
}

/**
 * Usage and cost of a group: the token counts (null when nothing reports
 * one), `costUsd` in US dollars (null when some tokens have no price: see
 * `unpriced`), how many responses (or runs without response usage) count,
 * and the models without a price with how many responses each (a model of
 * null: a run that reports tokens but no model and no cost).
 */
export interface UsageSummary {
  readonly inputTokens: number | null
  readonly outputTokens: number | null
  readonly cacheReadTokens: number | null
  readonly cacheWriteTokens: number | null
  /**
   * The part of `cacheWriteTokens` written to the 1-hour cache, summed over
   * the responses that say it (null when none does, or when the cache-write
   * sum is not exact); the rest of the cache writes is priced at the
   * 5-minute rate.
   */
  readonly cacheWrite1hTokens: number | null
  readonly costUsd: number | null
  readonly responses: number
  readonly unpriced: ReadonlyArray<{ readonly model: string | null; readonly responses: number }>
  /**
   * Models priced in the table but without long-context rates, with how many
   * of their responses have a prompt over 200k tokens: those responses' cost
   * is unknown (never the standard rates), so `costUsd` is null. Only when
   * there are some.
   */
  readonly longContextUnpriced?: ReadonlyArray<{ readonly model: string | null; readonly responses: number }>
  /**
   * Models priced in the table but without fast-mode rates (`ModelPrice.fast`),
   * with how many of their responses ran in fast mode (usage `speed:
   * "fast"`): those responses' cost is unknown (never the standard rates), so
   * `costUsd` is null. A model with fast-mode rates prices its fast
   * responses at them whatever their prompt's size (the rates apply across
   * the full context window). Only when there are some.
   */
  readonly fastUnpriced?: ReadonlyArray<FastUnpriced>
  /**
   * How many runs' stated totals were set aside because some of their
   * responses count in Claude Code's own log ({@link UsageRow.setAside}):
   * their other responses are priced from the table instead. Only when
   * there are some.
   */
  readonly runsSetAside?: number
  /**
   * The counts whose sum is past 2^53 - 1 (`Number.MAX_SAFE_INTEGER`), in
   * the order input, output, cache read, cache write: a double cannot hold
   * such a sum exactly, so the count is null (unknown) rather than a rounded
   * number, and this says why. Empty when every sum is exact.
   */
  readonly notExact: ReadonlyArray<TokenCountName>
  /** True when the cost is null because its sum is past the largest double (not a missing price). */
  readonly costNotFinite: boolean
}

/** The names of the four token counts, in their order. */
export type TokenCountName = "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens"

/** The four token counts' names, in the order every output gives them. */
export const TOKEN_COUNT_NAMES: ReadonlyArray<TokenCountName> = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"]

/**
 * Dollars to 1e-9 (what sums of float prices need to compare as the source
 * wrote them). A cost too large for that rounding (`x * 1e9` past the
 * largest double) is returned as it is: a finite cost never becomes Infinity
 * here.
 */
export const roundUsd = (x: number): number => {
  const y = Math.round(x * 1e9) / 1e9
  return Number.isFinite(y) ? y : x
}


/**
 * Totals of groups by their `group` (see the module's rules), priced with
 * `prices` (no table: every unstated cost is unknown). A group key with no
 * usage at all has no entry: a session whose source reports none has no
 * totals (blank), never zeros.
 */
export const summarizeGroups = (groups: ReadonlyArray<UsageGroup>, prices: PriceTable | null): Map<string | null, UsageSummary> => {
  type Acc = {
    inputTokens: number | null
    outputTokens: number | null
    cacheReadTokens: number | null
    cacheWriteTokens: number | null
    cacheWrite1hTokens: number | null
    cost: number
    responses: number
    unpriced: Map<string | null, number>
    longContextUnpriced: Map<string | null, number>
    fastUnpriced: Map<string | null, number>
    runsSetAside: number
  }
  const acc = new Map<string | null, Acc>()
  // A run set aside adds nothing but a count, said in the groups that hold some usage of their own.
  const setAside = new Map<string | null, number>()
  for (const g of groups) {
    if (g.setAside) {
      setAside.set(g.group, (setAside.get(g.group) ?? 0) + g.rows)
      continue
    }
    let a = acc.get(g.group)
    if (a === undefined) {
      a = {
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        cacheWrite1hTokens: null,
        cost: 0,
        responses: 0,
        unpriced: new Map(),
        longContextUnpriced: new Map(),
        fastUnpriced: new Map(),
        runsSetAside: 0
      }
      acc.set(g.group, a)
    }
    const countsTokens = g.kind === "response" || !g.hasResponses
    if (countsTokens) {
      a.inputTokens = add(a.inputTokens, g.inputTokens)
      a.outputTokens = add(a.outputTokens, g.outputTokens)
      a.cacheReadTokens = add(a.cacheReadTokens, g.cacheReadTokens)
      a.cacheWriteTokens = add(a.cacheWriteTokens, g.cacheWriteTokens)
      a.cacheWrite1hTokens = add(a.cacheWrite1hTokens, g.cacheWrite1hTokens)
      a.responses += g.rows
    }
    if (g.stated) {
      // A response's own stated cost counts unless its run's stated total covers it; a run's stated total always.
      if (!(g.kind === "response" && g.covered)) a.cost += g.costUsd ?? 0
    } else if (g.kind === "response" ? !g.covered : !g.hasResponses) {
      if (!hasTokens(g)) continue
      const price = prices === null ? undefined : priceOf(prices, g.model)
      if (price === undefined) a.unpriced.set(g.model, (a.unpriced.get(g.model) ?? 0) + g.tokenRows)
      else if (g.fast) {
        // Fast mode first (docs/usage-and-cost.md "Fast mode"): the model's fast-mode rates, else unknown (never the
        // standard rates). They apply across the full context window, a prompt over 200k tokens included: Anthropic's
        // fast-mode page, "priced at a multiplier on standard rates across the full context window, including requests
        // over 200k input tokens" (session 37; sessions 33-36 left such a response unpriced, after an earlier edition
        // that gave Opus 4.6 other rates over 200k).
        const fast = fastOf(price)
        if (fast === undefined) a.fastUnpriced.set(g.model, (a.fastUnpriced.get(g.model) ?? 0) + g.tokenRows)
        else a.cost += costAt(fast, g)
      } else if (!g.longContext) a.cost += costAt(price, g)
      else {
        // A prompt over 200k tokens: the model's long-context rates, else unknown (never the standard rates).
        const long = longContextOf(price)
        if (long === undefined) a.longContextUnpriced.set(g.model, (a.longContextUnpriced.get(g.model) ?? 0) + g.tokenRows)
        else a.cost += costAt(long, g)
      }
    }
  }
  const out = new Map<string | null, UsageSummary>()
  for (const [k, a] of acc) {
    // Every count is a non-negative safe integer, so a sum that is still a safe integer is exact (each partial sum
    // was too); one past 2^53 - 1 (here, or summed in SQL and read as a double) may be rounded: unknown, and said.
    const notExact = TOKEN_COUNT_NAMES.filter((n) => a[n] !== null && !Number.isSafeInteger(a[n]))
    const exact = (n: TokenCountName) => (notExact.includes(n) ? null : a[n])
    // A sum that overflows (stated costs near Number.MAX_VALUE) is unknown too, never Infinity.
    const costNotFinite = !Number.isFinite(a.cost)
    out.set(k, {
      inputTokens: exact("inputTokens"),
      outputTokens: exact("outputTokens"),
      cacheReadTokens: exact("cacheReadTokens"),
      cacheWriteTokens: exact("cacheWriteTokens"),
      // A part of the cache writes: exact when they are (it is never more than their sum).
      cacheWrite1hTokens: exact("cacheWriteTokens") === null ? null : a.cacheWrite1hTokens,
      costUsd: a.unpriced.size > 0 || a.longContextUnpriced.size > 0 || a.fastUnpriced.size > 0 || costNotFinite
        ? null
        : roundUsd(a.cost),
      responses: a.responses,
      unpriced: [...a.unpriced].map(([model, responses]) => ({ model, responses })).sort((x, y) => String(x.model).localeCompare(String(y.model))),
      ...(a.longContextUnpriced.size > 0
        ? {
          longContextUnpriced: [...a.longContextUnpriced].map(([model, responses]) => ({ model, responses })).sort((x, y) =>
            String(x.model).localeCompare(String(y.model))
          )
        }
        : {}),
      ...(a.fastUnpriced.size > 0
        ? {
          fastUnpriced: [...a.fastUnpriced].map(([model, responses]): FastUnpriced => ({ model, responses })).sort((x, y) =>
            String(x.model).localeCompare(String(y.model))
          )
        }
        : {}),
      ...((setAside.get(k) ?? 0) > 0 ? { runsSetAside: setAside.get(k) } : {}),
      notExact,
      costNotFinite
    })
  }
  return out
}

/** Usage and cost of events as one total (any sessions), priced with `prices`; null when no event reports usage or cost. */
export const usageSummary = (events: Iterable<SessionEvent>, prices: PriceTable | null): UsageSummary | null =>
  summarizeGroups(groupRows(usageRows(events), () => null), prices).get(null) ?? null

/**
 * The token totals of events, in any order of sessions but in each source's
 * order: per `responseId` the last usage seen wins; a run's (`result`'s)
 * tokens count only when its responses report none. Null when no event
 * carries usage (the source reports none).
 */
export const usageTotals = (events: Iterable<SessionEvent>): UsageTotals | null => {
  const s = usageSummary(events, null)
  return s === null ? null : totalsOf(s)
}

/** The token counts and response count of a summary (its cost and notes left out). */
export const totalsOf = (s: UsageTotals): UsageTotals => ({
  inputTokens: s.inputTokens,
  outputTokens: s.outputTokens,
  cacheReadTokens: s.cacheReadTokens,
  cacheWriteTokens: s.cacheWriteTokens,
  cacheWrite1hTokens: s.cacheWrite1hTokens,
  responses: s.responses
})

/**
 * Responses of a session that count in another one: `responses` of its
 * responses repeat (same ids and usage) responses counted once, in the
 * session `sessionId` / `sessionUid` (the index's uid: for a log copied to a
 * second place the native id is the session's own), of provider `provider`:
 * the Claude Code session for an AgentMux copy of a Claude Code run, else the
 * session that began first (docs/usage-and-cost.md "Copies of a response"). Source: docs/usage-and-cost.md "Tokens and cost" (copies of a response), tester F3
 * of session 18 (a session whose copies counted elsewhere read as one whose
 * source reports no usage).
 */
export interface CountedElsewhere {
  /** The provider of the session they count in (`claude-code` for an AgentMux copy of a Claude Code run that Claude Code logged too). */
  readonly provider: ProviderId
  readonly sessionId: string
  readonly sessionUid: string
  readonly responses: number
}

/**
 * The `usage` object of `sessions --json` and `show`: the four token counts
 * (with the 1-hour part of the cache writes, `cacheWrite1hTokens`) and the
 * cost in US dollars, each null where unknown (all null: the source
 * reports no usage, or every response of the session counts in another
 * session: then `countedElsewhere` says where).
 */
export interface UsageView extends TokenUsage {
  readonly costUsd: number | null
  /** Only when some count's sum is past 2^53 - 1: those counts (null above), see {@link UsageSummary.notExact}. */
  readonly notExact?: ReadonlyArray<TokenCountName>
  /** Only when some responses of the session count in another session (not in the counts above): where, how many. */
  readonly countedElsewhere?: ReadonlyArray<CountedElsewhere>
}

/** A {@link UsageSummary} as a {@link UsageView}, with where its copies count (`elsewhere`, when any); all null without one. */
export const usageView = (s: UsageSummary | null | undefined, elsewhere: ReadonlyArray<CountedElsewhere> = []): UsageView => ({
  inputTokens: s?.inputTokens ?? null,
  outputTokens: s?.outputTokens ?? null,
  cacheReadTokens: s?.cacheReadTokens ?? null,
  cacheWriteTokens: s?.cacheWriteTokens ?? null,
  cacheWrite1hTokens: s?.cacheWrite1hTokens ?? null,
  costUsd: s?.costUsd ?? null,
  ...(s !== null && s !== undefined && s.notExact.length > 0 ? { notExact: s.notExact } : {}),
  ...(elsewhere.length > 0 ? { countedElsewhere: elsewhere } : {})
})

