/**
 * ATIF, the Agent Trajectory Interchange Format (Harbor RFC 0001,
 * `rfcs/0001-trajectory-format.md`, version `ATIF-v1.7`): an Effect Schema of
 * a trajectory and {@link toAtif}, the conversion that `session-ingest export
 * <id> --format atif` writes. Pure: no I/O.
 *
 * What follows the RFC (v1.7, as published in harbor-framework/harbor
 * PR #1486 and the reference validators of Harbor's and NVIDIA's v1.7
 * models):
 * - root: `schema_version` "ATIF-v1.7", `session_id?`, `trajectory_id?`,
 *   `agent` {`name`, `version`, `model_name?`, `tool_definitions?`, `extra?`},
 *   `steps`, `notes?`, `final_metrics?`, `continued_trajectory_ref?`,
 *   `extra?`, `subagent_trajectories?` (embedded, each with a unique
 *   `trajectory_id`, required there);
 * - step: `step_id` sequential from 1, `timestamp?` (ISO 8601), `source`
 *   "system" | "user" | "agent", `message` (string or content parts),
 *   `model_name?` / `reasoning_effort?` / `reasoning_content?` /
 *   `tool_calls?` / `metrics?` only on agent steps, `observation?`
 *   {`results`}, `llm_call_count?`, `is_copied_context?`, `extra?`;
 * - tool call `{tool_call_id, function_name, arguments (object), extra?}`;
 *   observation result `{source_call_id?, content?, subagent_trajectory_ref?,
 *   extra?}`, and a result's `source_call_id` names a `tool_call_id` of the
 *   same step (the reference validators check the same step, which implies
 *   "a call emitted earlier in the trajectory");
 * - subagent ref `{trajectory_id?, trajectory_path?, session_id?, extra?}`
 *   with at least one of `trajectory_id` / `trajectory_path`; a ref without a
 *   path resolves to an embedded `subagent_trajectories[].trajectory_id`;
 * - compactions as system steps with `extra.context_management`
 *   (`type: "compaction"`, RFC §VII convention).
 *
 * Our choices (not fixed by the RFC):
 * - `agent.name` "session-ingest/<provider>", `agent.version` the normalized
 *   contract version (the events do not record the agent's own version);
 * - how events are cut into steps (see {@link toAtif});
 * - `context_management` carries `compaction_id` and `trigger` and no
 *   `boundary`: a `"replace"` boundary would say the step holds the
 *   post-compaction context, and the summary text is never carried (seed 000);
 * - provenance under `extra.session_ingest` (event ids; the whole normalized
 *   event for runtime facts), tool errors as result `extra.is_error`, counts
 *   of dropped results in the root `extra.session_ingest`;
 * - the decoder accepts `null` for optional fields (the RFC's producers write
 *   them) and emits none; a trajectory has at least one step.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import { compactionOf, shownText } from "./conversation.js"
import { CONTRACT_VERSION, type ParseWarning, type SessionEvent } from "./model.js"
import { bundledPrices, describePrices, type PriceTable } from "./prices.js"
import { costNoteLines } from "./render.js"
import { groupRows, roundUsd, type TokenCountName, type UsageGroup, type UsageSummary, usageRows, summarizeGroups } from "./usage.js"
import { parseWarningEffect, parseWarningTally } from "./warning-kinds.js"

/** The ATIF version written and read here. */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.7" as const

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Timestamp = Schema.String.pipe(
  Schema.filter((s) => !Number.isNaN(Date.parse(s)) || "an ISO 8601 timestamp")
)

/** An image of a content part: media type and path (RFC, `ImageSourceSchema`, v1.6). */
export const AtifImageSource = Schema.Struct({ media_type: Schema.String, path: Schema.String })

/** A content part: text or image (RFC, `ContentPartSchema`, v1.6). */
export const AtifContentPart = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("image"), source: AtifImageSource })
)

/** Message or observation content: a string or content parts (RFC). */
export const AtifContent = Schema.Union(Schema.String, Schema.Array(AtifContentPart))

/** `agent`: who produced the trajectory (RFC, `AgentSchema`). `version` is required. */
export const AtifAgent = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  model_name: Schema.optionalWith(Schema.String, { nullable: true }),
  tool_definitions: Schema.optionalWith(Schema.Array(JsonObject), { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
})
export type AtifAgent = typeof AtifAgent.Type

/** One tool call of an agent step (RFC, `ToolCallSchema`; `extra` since v1.7). `arguments` is an object. */
export const AtifToolCall = Schema.Struct({
  tool_call_id: Schema.String,
  function_name: Schema.String,
  arguments: JsonObject,
  extra: Schema.optionalWith(JsonObject, { nullable: true })
})
export type AtifToolCall = typeof AtifToolCall.Type

/**
 * A reference to a subagent trajectory (RFC, `SubagentTrajectoryRef`, v1.7):
 * `trajectory_id` (embedded form) and/or `trajectory_path` (file form), at
 * least one of them; `session_id` is informational only.
 */
export const AtifSubagentTrajectoryRef = Schema.Struct({
  trajectory_id: Schema.optionalWith(Schema.String, { nullable: true }),
  trajectory_path: Schema.optionalWith(Schema.String, { nullable: true }),
  session_id: Schema.optionalWith(Schema.String, { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
}).pipe(
  Schema.filter((r) =>
    r.trajectory_id !== undefined || r.trajectory_path !== undefined ||
    "a subagent ref sets trajectory_id or trajectory_path (ATIF v1.7)"
  )
)
export type AtifSubagentTrajectoryRef = typeof AtifSubagentTrajectoryRef.Type

/** One observation result (RFC, `ObservationResultSchema`; `extra` since v1.7). */
export const AtifObservationResult = Schema.Struct({
  source_call_id: Schema.optionalWith(Schema.String, { nullable: true }),
  content: Schema.optionalWith(AtifContent, { nullable: true }),
  subagent_trajectory_ref: Schema.optionalWith(Schema.Array(AtifSubagentTrajectoryRef), { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
})
export type AtifObservationResult = typeof AtifObservationResult.Type

/** `observation`: the environment's feedback to a step (RFC, `ObservationSchema`). */
export const AtifObservation = Schema.Struct({ results: Schema.Array(AtifObservationResult) })
export type AtifObservation = typeof AtifObservation.Type

const Count = Schema.optionalWith(Schema.NonNegativeInt, { nullable: true })

/** Per-step LLM metrics (RFC, `MetricsSchema`); agent steps only. */
export const AtifMetrics = Schema.Struct({
  prompt_tokens: Count,
  completion_tokens: Count,
  cached_tokens: Count,
  cost_usd: Schema.optionalWith(Schema.NonNegative, { nullable: true }),
  prompt_token_ids: Schema.optionalWith(Schema.Array(Schema.Int), { nullable: true }),
  completion_token_ids: Schema.optionalWith(Schema.Array(Schema.Int), { nullable: true }),
  logprobs: Schema.optionalWith(Schema.Array(Schema.Number), { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
})

/** Trajectory-level totals (RFC, `FinalMetricsSchema`); `total_steps`, when set, equals the number of steps. */
export const AtifFinalMetrics = Schema.Struct({
  total_prompt_tokens: Count,
  total_completion_tokens: Count,
  total_cached_tokens: Count,
  total_cost_usd: Schema.optionalWith(Schema.NonNegative, { nullable: true }),
  total_steps: Count,
  extra: Schema.optionalWith(JsonObject, { nullable: true })
})

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const

/**
 * One step (RFC, `StepObject`). Checks: agent-only fields only on agent
 * steps; with `llm_call_count` 0 no reasoning or metrics (v1.7); tool call ids
 * unique in the step; every result's `source_call_id` names a tool call of
 * the same step.
 */
export const AtifStep = Schema.Struct({
  step_id: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  timestamp: Schema.optionalWith(Timestamp, { nullable: true }),
  source: Schema.Literal("system", "user", "agent"),
  model_name: Schema.optionalWith(Schema.String, { nullable: true }),
  reasoning_effort: Schema.optionalWith(Schema.Union(Schema.String, Schema.Number), { nullable: true }),
  message: AtifContent,
  reasoning_content: Schema.optionalWith(Schema.String, { nullable: true }),
  tool_calls: Schema.optionalWith(Schema.Array(AtifToolCall), { nullable: true }),
  observation: Schema.optionalWith(AtifObservation, { nullable: true }),
  metrics: Schema.optionalWith(AtifMetrics, { nullable: true }),
  llm_call_count: Count,
  is_copied_context: Schema.optionalWith(Schema.Boolean, { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
}).pipe(
  Schema.filter((s) => {
    if (s.source !== "agent") {
      for (const f of AGENT_ONLY) if (s[f] !== undefined) return `${f} is only valid on agent steps (step ${s.step_id})`
    }
    if (s.llm_call_count === 0 && (s.reasoning_effort !== undefined || s.reasoning_content !== undefined || s.metrics !== undefined)) {
      return `step ${s.step_id}: llm_call_count 0 cannot carry reasoning or metrics`
    }
    const ids = new Set<string>()
    for (const c of s.tool_calls ?? []) {
      if (ids.has(c.tool_call_id)) return `step ${s.step_id} repeats tool_call_id ${JSON.stringify(c.tool_call_id)}`
      ids.add(c.tool_call_id)
    }
    for (const r of s.observation?.results ?? []) {
      if (r.source_call_id !== undefined && !ids.has(r.source_call_id)) {
        return `step ${s.step_id}: source_call_id ${JSON.stringify(r.source_call_id)} is not a tool call of the step`
      }
    }
    return true
  })
)
export type AtifStep = typeof AtifStep.Type

const trajectoryFields = {
  schema_version: Schema.Literal(ATIF_SCHEMA_VERSION),
  session_id: Schema.optionalWith(Schema.String, { nullable: true }),
  trajectory_id: Schema.optionalWith(Schema.String, { nullable: true }),
  agent: AtifAgent,
  steps: Schema.Array(AtifStep).pipe(Schema.minItems(1)),
  notes: Schema.optionalWith(Schema.String, { nullable: true }),
  final_metrics: Schema.optionalWith(AtifFinalMetrics, { nullable: true }),
  continued_trajectory_ref: Schema.optionalWith(Schema.String, { nullable: true }),
  extra: Schema.optionalWith(JsonObject, { nullable: true })
}

/** An ATIF v1.7 trajectory (decoded form). */
export interface AtifTrajectory extends Schema.Struct.Type<typeof trajectoryFields> {
  readonly subagent_trajectories?: ReadonlyArray<AtifTrajectory> | undefined
}

/** An ATIF v1.7 trajectory as JSON (optional fields may be null). */
export interface AtifTrajectoryEncoded extends Schema.Struct.Encoded<typeof trajectoryFields> {
  readonly subagent_trajectories?: ReadonlyArray<AtifTrajectoryEncoded> | null | undefined
}

const checkTrajectory = (t: AtifTrajectory): true | string => {
  for (let i = 0; i < t.steps.length; i++) {
    if (t.steps[i].step_id !== i + 1) return `steps[${i}].step_id is ${t.steps[i].step_id}, expected ${i + 1} (sequential from 1)`
  }
  if (t.final_metrics?.total_steps !== undefined && t.final_metrics.total_steps !== t.steps.length) {
    return `final_metrics.total_steps is ${t.final_metrics.total_steps}, the trajectory has ${t.steps.length} step${t.steps.length === 1 ? "" : "s"}`
  }
  const embedded = new Set<string>()
  for (const [i, sub] of (t.subagent_trajectories ?? []).entries()) {
    if (sub.trajectory_id === undefined) return `subagent_trajectories[${i}].trajectory_id is required on embedded subagents`
    if (embedded.has(sub.trajectory_id)) return `subagent_trajectories[${i}].trajectory_id ${JSON.stringify(sub.trajectory_id)} is not unique`
    embedded.add(sub.trajectory_id)
  }
  for (const s of t.steps) {
    for (const r of s.observation?.results ?? []) {
      for (const ref of r.subagent_trajectory_ref ?? []) {
        if (ref.trajectory_path === undefined && (ref.trajectory_id === undefined || !embedded.has(ref.trajectory_id))) {
          return `step ${s.step_id}: subagent ref ${JSON.stringify(ref.trajectory_id)} is not an embedded subagent trajectory`
        }
      }
    }
  }
  return true
}

/**
 * The Schema of an ATIF v1.7 trajectory (RFC 0001, root `Trajectory`), with
 * the RFC's checks: sequential `step_id`s from 1, per-step rules of
 * {@link AtifStep}, `final_metrics.total_steps` = number of steps, embedded
 * subagents with unique `trajectory_id`s, subagent refs without a path
 * resolving to an embedded trajectory. Unknown fields are dropped on decode
 * (decode with `onExcessProperty: "error"` to reject them).
 */
export const AtifTrajectory: Schema.Schema<AtifTrajectory, AtifTrajectoryEncoded> = Schema.Struct({
  ...trajectoryFields,
  subagent_trajectories: Schema.optionalWith(
    Schema.Array(Schema.suspend((): Schema.Schema<AtifTrajectory, AtifTrajectoryEncoded> => AtifTrajectory)),
    { nullable: true }
  )
}).pipe(Schema.filter(checkTrajectory))

// ---------------------------------------------------------------------------
// Conversion

/** A session as {@link toAtif} needs it (from the index). */
export interface AtifSessionInput {
  readonly sessionId: string
  readonly provider: string
  readonly title?: string | null
  readonly model?: string | null
  /**
   * The source's parse warnings (the index's discovery summary of the session;
   * no event carries them), written to `extra.session_ingest.parse_warnings`
   * (each with its `effect`), `skipped_lines`, `kept_lines` and
   * `files_left_out` when there are some.
   */
  readonly parseWarnings?: ReadonlyArray<ParseWarning>
  /**
   * Whether the trajectory's text was redacted (`redacted`) or is the session as stored (`none`: `export
   * --no-redact`), written to `extra.session_ingest.redaction` (tester31b F1); absent: not said.
   */
  readonly redaction?: "redacted" | "none"
}

/**
 * What {@link toAtif} converts: a session, its events, and its subagent
 * sessions with theirs. `usage` (each session's): its usage as the index
 * counts it (`sessionUsage` of `layers/index/queries.ts`: one group per
 * counted response, keyed by the id of the event its usage is on; a response
 * a resumed session copied counts in the session where it was seen first,
 * not here); absent, the usage is counted from the events alone.
 */
export interface AtifInput {
  readonly session: AtifSessionInput
  readonly events: ReadonlyArray<SessionEvent>
  readonly usage?: ReadonlyArray<UsageGroup> | undefined
  readonly subagents: ReadonlyArray<{
    readonly session: AtifSessionInput
    readonly events: ReadonlyArray<SessionEvent>
    readonly usage?: ReadonlyArray<UsageGroup> | undefined
  }>
  /** The price table for costs the source does not state (default: the bundled `data/prices.json`; null: none). */
  readonly prices?: PriceTable | null | undefined
}

type Source = "system" | "user" | "agent"
type Result = {
  source_call_id?: string
  content?: string
  subagent_trajectory_ref?: Array<AtifSubagentTrajectoryRef>
  extra?: Record<string, unknown>
}
type Draft = {
  readonly source: Source
  timestamp: string | null
  model: string | null
  readonly messages: Array<string>
  readonly reasoning: Array<string>
  readonly calls: Array<AtifToolCall>
  readonly results: Array<Result>
  readonly eventIds: Array<string>
  readonly extra: Record<string, unknown>
  /** Runtime-fact steps: the whole event. */
  event?: Record<string, unknown>
  /** Agent steps: 0 thinking, 1 message, 2 tool calls (the order of one model response). */
  phase: number
  /** Agent steps: a result arrived, so later assistant output is a new response. */
  closed: boolean
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const newDraft = (source: Source, e: SessionEvent | null, phase = 0): Draft => ({
  source,
  timestamp: e?.occurredAt ?? null,
  model: e?.model ?? null,
  messages: [],
  reasoning: [],
  calls: [],
  results: [],
  eventIds: e !== null ? [e.eventId] : [],
  extra: {},
  phase,
  closed: false
})

/** The whole normalized event, minus its cursor: the provenance of a runtime-fact step. */
const provenanceOf = (e: SessionEvent): Record<string, unknown> => {
  const { contractVersion: _version, cursor: _cursor, ...rest } = e
  return rest
}

interface Built {
  readonly drafts: Array<Draft>
  readonly byCall: Map<string, Draft>
  readonly byEvent: Map<string, Draft>
  readonly orphanResults: number
  readonly model: string | null
}

const buildDrafts = (events: ReadonlyArray<SessionEvent>): Built => {
  const drafts: Array<Draft> = []
  const byCall = new Map<string, Draft>()
  const byEvent = new Map<string, Draft>()
  let current: Draft | null = null
  let orphanResults = 0
  let model: string | null = null

  const open = (d: Draft): Draft => {
    drafts.push(d)
    return d
  }
  const agentStep = (e: SessionEvent, phase: number, callId?: string): Draft => {
    const c = current
    if (
      c !== null && c.source === "agent" && !c.closed && phase >= c.phase &&
      (callId === undefined || !c.calls.some((x) => x.tool_call_id === callId)) &&
      // a step has one model_name: another model's response starts a step of its own (session 28, tester28a F7)
      (e.model === null || c.model === null || e.model === c.model)
    ) {
      c.phase = phase
      c.eventIds.push(e.eventId)
      if (c.timestamp === null) c.timestamp = e.occurredAt
      if (c.model === null) c.model = e.model
      return c
    }
    current = open(newDraft("agent", e, phase))
    return current
  }
  const standalone = (source: Source, e: SessionEvent): Draft => {
    current = null
    return open(newDraft(source, e))
  }

  for (const e of events) {
    if (model === null && e.model !== null) model = e.model
    let home: Draft | null = null
    if (e.kind === "message" && e.role === "assistant") {
      home = agentStep(e, 1)
      const text = shownText(e)
      if (text.length > 0) home.messages.push(text)
    } else if (e.kind === "message" && (e.role === "user" || e.role === "system")) {
      home = standalone(e.role, e)
      home.messages.push(shownText(e))
    } else if (e.kind === "thinking") {
      home = agentStep(e, 0)
      if (e.text !== null && e.text.length > 0) home.reasoning.push(e.text)
    } else if (e.kind === "tool-call") {
      const id = e.toolCallId ?? e.eventId
      home = agentStep(e, 2, id)
      const input = e.toolInput
      const wrapped = !(isRecord(input) || input === undefined || input === null)
      home.calls.push({
        tool_call_id: id,
        function_name: e.toolName ?? "unknown",
        arguments: isRecord(input) ? input : wrapped ? { input } : {},
        ...(wrapped ? { extra: { input_not_an_object: true } } : {})
      })
      byCall.set(id, home)
    } else if (e.kind === "tool-result") {
      const cur = current as Draft | null // assigned in the helpers above
      if (cur !== null && cur.source === "agent") cur.closed = true
      const owner = e.toolCallId !== null ? byCall.get(e.toolCallId) : undefined
      if (owner === undefined || e.toolCallId === null) {
        orphanResults++
        continue
      }
      home = owner
      home.eventIds.push(e.eventId)
      home.results.push({
        source_call_id: e.toolCallId,
        content: shownText(e),
        ...(e.isError === true ? { extra: { is_error: true } } : {})
      })
    } else if (e.kind === "summary") {
      const c = compactionOf(e)
      home = standalone("system", e)
      home.messages.push(`context compaction${c.trigger !== null ? ` (${c.trigger})` : ""}`)
      home.extra.context_management = { type: "compaction", compaction_id: c.id, trigger: c.trigger }
    } else {
      // Runtime facts (and role-less messages): a system step that keeps the whole event.
      home = standalone("system", e)
      home.messages.push(e.text !== null && e.text.length > 0 ? `${e.kind}: ${e.text}` : e.kind)
      home.event = provenanceOf(e)
    }
    byEvent.set(e.eventId, home)
  }
  return { drafts, byCall, byEvent, orphanResults, model }
}

/** What the metrics of a trajectory are made from: each counted usage row's own summary, by the id of the event that carries it. */
interface Usage {
  readonly byEvent: ReadonlyMap<string, { readonly kind: UsageGroup["kind"]; readonly summary: UsageSummary; readonly covered: boolean }>
  readonly total: UsageSummary | null
}

/** The usage of a session's events: the groups the index counts (`counted`), else those of the events alone, one per row. */
const usageOfEvents = (events: ReadonlyArray<SessionEvent>, prices: PriceTable | null, counted: ReadonlyArray<UsageGroup> | undefined): Usage => {
  const groups = counted ?? groupRows(usageRows(events), (r) => r.eventId)
  const summaries = summarizeGroups(groups, prices)
  const byEvent = new Map<string, { kind: UsageGroup["kind"]; summary: UsageSummary; covered: boolean }>()
  for (const g of groups) {
    const summary = g.group === null ? undefined : summaries.get(g.group)
    if (summary !== undefined) byEvent.set(g.group!, { kind: g.kind, summary, covered: g.covered })
  }
  return { byEvent, total: summarizeGroups(groups.map((g) => ({ ...g, group: null })), prices).get(null) ?? null }
}

/** A sum of token counts: null when none is reported, "not-exact" when past 2^53 - 1 (a double cannot hold it exactly). */
type CountSum = number | null | "not-exact"

const sumOf = (xs: ReadonlyArray<CountSum>): CountSum => {
  if (xs.includes("not-exact")) return "not-exact"
  if (xs.every((x) => x === null)) return null
  const sum = xs.reduce<number>((a, x) => a + ((x as number | null) ?? 0), 0)
  return Number.isSafeInteger(sum) ? sum : "not-exact"
}

/** A summary's count, "not-exact" where its sum is past 2^53 - 1 (the summary's `notExact`). */
const countOf = (s: UsageSummary, name: TokenCountName): CountSum => (s.notExact.includes(name) ? "not-exact" : s[name])

/** ATIF's prompt tokens: every input token, cached or not (input + cache read + cache write); null when none is reported. */
const promptTokens = (s: UsageSummary): CountSum => sumOf([countOf(s, "inputTokens"), countOf(s, "cacheReadTokens"), countOf(s, "cacheWriteTokens")])

/**
 * Fields of sums: each number as it is, a null one as null when `keepNull`
 * (else left out), and the names of those past 2^53 - 1 (left out: never a
 * rounded number) in `not_exact`.
 */
const countFields = (fields: ReadonlyArray<readonly [string, CountSum, boolean]>): { fields: Record<string, number | null>; notExact: Array<string> } => {
  const out: Record<string, number | null> = {}
  const notExact: Array<string> = []
  for (const [name, v, keepNull] of fields) {
    if (v === "not-exact") notExact.push(name)
    else if (v !== null || keepNull) out[name] = v
  }
  return { fields: out, notExact }
}

/**
 * The `metrics` of an agent step: the responses whose usage lands on its
 * events. `prompt_tokens` = input + cache read + cache write,
 * `cached_tokens` = cache read (ATIF: a subset of the prompt),
 * `completion_tokens` = output, `cost_usd` = the stated or priced cost
 * (left out when a run's stated total covers the response, or its model has
 * no price); `extra` keeps the uncached input and the cache writes. A sum
 * past 2^53 - 1 is left out and named in `extra.not_exact`.
 */
const metricsOf = (d: Draft, usage: Usage): AtifStep["metrics"] => {
  const mine = d.eventIds.flatMap((id) => {
    const u = usage.byEvent.get(id)
    return u !== undefined && u.kind === "response" ? [u] : []
  })
  if (mine.length === 0) return undefined
  const top = countFields([
    ["prompt_tokens", sumOf(mine.map((u) => promptTokens(u.summary))), false],
    ["completion_tokens", sumOf(mine.map((u) => countOf(u.summary, "outputTokens"))), false],
    ["cached_tokens", sumOf(mine.map((u) => countOf(u.summary, "cacheReadTokens"))), false]
  ])
  const extra = countFields([
    ["input_tokens", sumOf(mine.map((u) => countOf(u.summary, "inputTokens"))), true],
    ["cache_creation_input_tokens", sumOf(mine.map((u) => countOf(u.summary, "cacheWriteTokens"))), true]
  ])
  const costs = mine.map((u) => (u.covered ? null : u.summary.costUsd))
  const cost = costs.every((c) => c !== null) ? roundUsd(costs.reduce<number>((a, c) => a + c!, 0)) : null
  const notExact = [...top.notExact, ...extra.notExact]
  return {
    ...top.fields,
    ...(cost !== null && Number.isFinite(cost) ? { cost_usd: cost } : {}),
    extra: { ...extra.fields, responses: mine.length, ...(notExact.length > 0 ? { not_exact: notExact } : {}) }
  }
}

const finalize = (d: Draft, stepId: number, usage: Usage): AtifStep => {
  const agent = d.source === "agent"
  const metrics = agent ? metricsOf(d, usage) : undefined
  return {
    step_id: stepId,
    ...(d.timestamp !== null ? { timestamp: d.timestamp } : {}),
    source: d.source,
    ...(agent && d.model !== null ? { model_name: d.model } : {}),
    message: d.messages.join("\n\n"),
    ...(agent && d.reasoning.length > 0 ? { reasoning_content: d.reasoning.join("\n\n") } : {}),
    ...(agent && d.calls.length > 0 ? { tool_calls: d.calls } : {}),
    ...(d.results.length > 0 ? { observation: { results: d.results } } : {}),
    ...(metrics !== undefined ? { metrics } : {}),
    extra: { ...d.extra, session_ingest: { event_ids: d.eventIds, ...(d.event !== undefined ? { event: d.event } : {}) } }
  }
}

/** Where a subagent session was spawned: the parent's binding event and/or tool call (its events' typed `parent` link). */
const spawnOf = (events: ReadonlyArray<SessionEvent>): { eventId?: string; callId?: string; subagentId?: string } => {
  for (const e of events) {
    const parent = e.parent
    if (parent === null || (parent.eventId === null && parent.toolCallId === null)) continue
    return {
      eventId: parent.eventId ?? undefined,
      callId: parent.toolCallId ?? undefined,
      subagentId: parent.subagentId ?? undefined
    }
  }
  return {}
}

const trajectoryOf = (
  session: AtifSessionInput,
  events: ReadonlyArray<SessionEvent>,
  subagents: AtifInput["subagents"],
  prices: PriceTable | null,
  counted: ReadonlyArray<UsageGroup> | undefined
): AtifTrajectory => {
  const built = buildDrafts(events)
  const embedded: Array<AtifTrajectory> = []
  const unplaced: Array<Result> = []
  const used = new Map<string, number>()
  for (const sub of subagents) {
    const n = (used.get(sub.session.sessionId) ?? 0) + 1
    used.set(sub.session.sessionId, n)
    const trajectoryId = n === 1 ? sub.session.sessionId : `${sub.session.sessionId}#${n}`
    embedded.push({ ...trajectoryOf(sub.session, sub.events, [], prices, sub.usage), trajectory_id: trajectoryId })
    const spawn = spawnOf(sub.events)
    const ref: AtifSubagentTrajectoryRef = {
      trajectory_id: trajectoryId,
      session_id: sub.session.sessionId,
      extra: {
        provider: sub.session.provider,
        ...(spawn.eventId !== undefined ? { spawn_event_id: spawn.eventId } : {}),
        ...(spawn.callId !== undefined ? { spawn_tool_call_id: spawn.callId } : {}),
        ...(spawn.subagentId !== undefined ? { subagent_id: spawn.subagentId } : {})
      }
    }
    const byCall = spawn.callId !== undefined ? built.byCall.get(spawn.callId) : undefined
    const byEvent = spawn.eventId !== undefined ? built.byEvent.get(spawn.eventId) : undefined
    if (byCall !== undefined) {
      const result = byCall.results.find((r) => r.source_call_id === spawn.callId)
      if (result !== undefined) (result.subagent_trajectory_ref ??= []).push(ref)
      else byCall.results.push({ source_call_id: spawn.callId, subagent_trajectory_ref: [ref] })
    } else if (byEvent !== undefined) {
      byEvent.results.push({ subagent_trajectory_ref: [ref] })
    } else {
      unplaced.push({ subagent_trajectory_ref: [ref] })
    }
  }
  const drafts = built.drafts
  if (unplaced.length > 0) {
    const d = newDraft("system", null)
    d.messages.push("subagent sessions whose spawning step is not known")
    d.results.push(...unplaced)
    drafts.push(d)
  }
  if (drafts.length === 0) {
    const d = newDraft("system", null)
    d.messages.push("the session has no events")
    drafts.push(d)
  }
  const usage = usageOfEvents(events, prices, counted)
  const steps = drafts.map((d, i) => finalize(d, i + 1, usage))
  const total = usage.total
  // The session's totals; a sum past 2^53 - 1 is left out and named in `extra.not_exact` (never a rounded number).
  const totals = total === null ? null : (() => {
    const top = countFields([
      ["total_prompt_tokens", promptTokens(total), false],
      ["total_completion_tokens", countOf(total, "outputTokens"), false],
      ["total_cached_tokens", countOf(total, "cacheReadTokens"), false]
    ])
    const extra = countFields([["input_tokens", countOf(total, "inputTokens"), true], ["cache_creation_input_tokens", countOf(total, "cacheWriteTokens"), true]])
    return { top, extra, notExact: [...top.notExact, ...extra.notExact] }
  })()
  const model = session.model ?? built.model
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: session.sessionId,
    trajectory_id: session.sessionId,
    agent: {
      name: `session-ingest/${session.provider}`,
      version: CONTRACT_VERSION,
      ...(model !== null ? { model_name: model } : {}),
      extra: { provider: session.provider }
    },
    steps,
    // What the cost leaves out or sets aside, in `usage`'s words (session 28): models without a price, prompts over
    // 200k tokens without a long-context price, AgentMux run totals set aside; the names as JSON writes them.
    ...(total !== null && costNoteLines(total, JSON.stringify).length > 0 ? { notes: costNoteLines(total, JSON.stringify).join(" ") } : {}),
    final_metrics: {
      ...totals?.top.fields,
      ...(total?.costUsd != null ? { total_cost_usd: total.costUsd } : {}),
      total_steps: steps.length,
      ...(total !== null && totals !== null
        ? {
          extra: {
            ...totals.extra.fields,
            responses: total.responses,
            ...(totals.notExact.length > 0 ? { not_exact: totals.notExact } : {}),
            ...(total.unpriced.length > 0 ? { unpriced_models: total.unpriced.map((u) => u.model) } : {}),
            // (session 28) the models whose prompts over 200k tokens have no long-context price, and the AgentMux
            // runs whose stated total was set aside, as `usage` notes them
            ...(total.longContextUnpriced !== undefined ? { long_context_unpriced_models: total.longContextUnpriced.map((u) => u.model) } : {}),
            // (session 33) the models whose fast-mode responses have no fast-mode price
            ...(total.fastUnpriced !== undefined ? { fast_unpriced_models: total.fastUnpriced.map((u) => u.model) } : {}),
            ...(total.runsSetAside !== undefined ? { runs_set_aside: total.runsSetAside } : {}),
            ...(prices !== null ? { price_table: describePrices(prices) } : {})
          }
        }
        : {})
    },
    extra: {
      session_ingest: {
        provider: session.provider,
        session_id: session.sessionId,
        title: session.title ?? null,
        contract_version: CONTRACT_VERSION,
        event_count: events.length,
        orphan_tool_results: built.orphanResults,
        ...(session.redaction !== undefined ? { redaction: session.redaction } : {}),
        // (tester30b F3) the lines the source skipped (too deep, torn): a result whose call was one is an orphan above
        // (tester31a F1) only the kinds whose lines were skipped count in skipped_lines: a line kept with a part
        // replaced (invalid UTF-8, a usage not valid, ...) is kept_lines, a subagent file left out files_left_out
        ...(session.parseWarnings !== undefined && session.parseWarnings.length > 0
          ? parseWarningsExtra(session.parseWarnings)
          : {})
      }
    },
    ...(embedded.length > 0 ? { subagent_trajectories: embedded } : {})
  }
}

/** `extra.session_ingest`'s parse-warning fields of a session that has some (see {@link toAtif}). */
const parseWarningsExtra = (warnings: ReadonlyArray<{ readonly kind: string; readonly count: number; readonly firstLine: number | null }>) => {
  const { filesLeftOut, keptLines, skippedLines } = parseWarningTally(warnings)
  return {
    ...(skippedLines > 0 ? { skipped_lines: skippedLines } : {}),
    ...(keptLines > 0 ? { kept_lines: keptLines } : {}),
    ...(filesLeftOut > 0 ? { files_left_out: filesLeftOut } : {}),
    parse_warnings: warnings.map((w) => ({ kind: w.kind, count: w.count, first_line: w.firstLine, effect: parseWarningEffect(w.kind) }))
  }
}

/**
 * Convert a session (with its subagent sessions) to an ATIF v1.7 trajectory.
 *
 * Steps, in event order, `step_id` 1..n:
 * - `message` user / system → a `user` / `system` step, `message` the text;
 * - assistant output → `agent` steps: `thinking` → `reasoning_content`,
 *   assistant `message` → `message`, `tool-call` → `tool_calls`
 *   (`tool_call_id` = `toolCallId`, `function_name` = `toolName`,
 *   `arguments` = the native `input` object; a non-object input is wrapped as
 *   `{input}`). Consecutive assistant events share a step while they keep the
 *   order of one model response (thinking, then text, then calls) and no
 *   tool result has arrived since; otherwise a new agent step starts;
 * - `tool-result` → an `observation.results[]` entry `{source_call_id,
 *   content}` on the step of its call (the latest earlier call of that id;
 *   `extra.is_error` on failure). A result without an earlier call is dropped
 *   and counted in `extra.session_ingest.orphan_tool_results`; the lines
 *   the source skipped as unreadable (`session.parseWarnings`, often the
 *   orphan's call: too deep, torn) in `extra.session_ingest.skipped_lines`,
 *   the lines kept with a part replaced (invalid UTF-8, a usage not valid)
 *   in `kept_lines`, the subagent files left out in `files_left_out` (each
 *   absent when 0), and every warning in `parse_warnings` [{`kind`, `count`,
 *   `first_line`, `effect`: skipped | kept | file-left-out}] (absent when none);
 * - `summary` → a `system` step "context compaction (<trigger>)" with
 *   `extra.context_management` {`type: "compaction"`, `compaction_id`,
 *   `trigger`}, never the summary text;
 * - any other kind (Muse Code runtime facts), and a message without a role →
 *   a `system` step whose message is "<kind>: <text>" (or "<kind>"), the whole event (minus its cursor) under
 *   `extra.session_ingest.event`.
 * Every step lists its event ids in `extra.session_ingest.event_ids`.
 *
 * Usage (issue 18): an agent step's `metrics` sum the responses whose usage
 * lands on its events, each counted once with its last usage
 * (`prompt_tokens` = input + cache read + cache write, `cached_tokens` =
 * cache read, `completion_tokens` = output, `cost_usd` the stated cost, else
 * the price table's); `final_metrics` holds the session's totals
 * (`domain/usage.ts`: a run's stated `total_cost_usd` included), with the
 * uncached input, the cache writes and the price table in its `extra`.
 * With `usage` (the index's counting, see {@link AtifInput}) a response
 * counted in another session (copied into a resumed one) is in neither.
 *
 * Subagents become `subagent_trajectories` (same rules, `trajectory_id` the
 * subagent session id, made unique), each referred to by a
 * `subagent_trajectory_ref` {`trajectory_id`, `session_id`} in an observation
 * result of the step that spawned it: the step of the tool call named by the
 * child's native `parent.toolCallId` / `parentToolUseId`, else the step of
 * the event named by `parent.bindingEventId` (Muse Code), else a trailing
 * system step. A session without events gets one system step.
 */
export const toAtif = (input: AtifInput): AtifTrajectory =>
  trajectoryOf(input.session, input.events, input.subagents, input.prices === undefined ? bundledPrices : input.prices, input.usage)
