/**
 * Tokens and cost (issue 18, part 2), worked out by hand: the source's own
 * cost where it states one (Claude Code `costUSD` per response, AgentMux /
 * Claude stream-json `result.total_cost_usd` per run), else the price table
 * (`data/prices.json`, per million tokens); a model the table lacks gives
 * tokens without a cost and says so.
 */
import { describe, expect, it } from "@effect/vitest"
import { mapSession, type SessionLine } from "../../src/domain/agentmux/transcript.js"
import type { SessionEvent, TokenUsage } from "../../src/domain/model.js"
import { bundledPrices, describePrices, withOverrides } from "../../src/domain/prices.js"
import { usageRows, usageSummary, usageTotals } from "../../src/domain/usage.js"
import { mk } from "../support/events.js"

const j = (v: unknown) => JSON.stringify(v)
const lines = (texts: ReadonlyArray<string>): Array<SessionLine> => {
  let offset = 0
  return texts.map((t, i) => {
    const line = { zoneId: "agent:u1:current", offset, bytes: Buffer.from(t), receivedMs: 1_700_000_000_000 + i * 1000 }
    offset += Buffer.byteLength(t) + 1
    return line
  })
}
const usage = (input: number, output: number, read: number, write: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write
})
const init = (model: string) => j({ type: "system", subtype: "init", session_id: "S", model })
const prompt = (text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: "S" })
const assistant = (id: string, text: string, u: unknown, model = "claude-sonnet-4-5") =>
  j({ type: "assistant", message: { id, role: "assistant", model, content: [{ type: "text", text }], ...(u !== undefined ? { usage: u } : {}) }, session_id: "S" })
const result = (cost: number | undefined, u: unknown, extra: Record<string, unknown> = {}) =>
  j({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: 4200,
    duration_api_ms: 3900,
    num_turns: 2,
    result: "done",
    session_id: "S",
    ...(cost !== undefined ? { total_cost_usd: cost } : {}),
    ...(u !== undefined ? { usage: u } : {}),
    ...extra
  })
const mapped = (texts: ReadonlyArray<string>) => mapSession(lines(texts), { sourceId: "sha256:s", sessionId: "S" }).events.map((m) => m.event)

// claude-sonnet-4-5: $3 input, $15 output, $0.30 cache read, $3.75 cache write per million tokens (data/prices.json).
const sonnet = (i: number, o: number, r: number, w: number) => (i * 3 + o * 15 + r * 0.3 + w * 3.75) / 1e6

describe("AgentMux (Claude stream-json) result lines", () => {
  const run1 = [
    init("claude-sonnet-4-5"),
    prompt("hi"),
    // msg_1 streamed as two lines: counted once, with the second's usage.
    assistant("msg_1", "Hel", usage(3, 10, 100, 20)),
    assistant("msg_1", "Hello.", usage(3, 42, 100, 20)),
    assistant("msg_2", "Done.", usage(5, 7, 300, 0))
  ]

  it("a result line is an event of kind result with the run's typed totals, model, outcome and facts", () => {
    const events = mapped([...run1, result(0.0123, usage(8, 49, 400, 20))])
    const r = events.find((e) => e.kind === "result")!
    expect(r).toMatchObject({
      role: "system",
      model: "claude-sonnet-4-5",
      isError: false,
      usage: { inputTokens: 8, outputTokens: 49, cacheReadTokens: 400, cacheWriteTokens: 20 },
      costUsd: 0.0123,
      responseId: null
    })
    expect(r.extensions["native.agentmux"]).toMatchObject({ type: "result", subtype: "success", durationMs: 4200, durationApiMs: 3900, numTurns: 2 })
    expect(events.filter((e) => e.kind !== "result").every((e) => e.costUsd === null)).toBe(true)
  })

  it("with a result line: tokens from the responses (the run's usage is not added again), cost = total_cost_usd", () => {
    const events = mapped([...run1, result(0.0123, usage(8, 49, 400, 20))])
    expect(usageTotals(events)).toEqual({ inputTokens: 8, outputTokens: 49, cacheReadTokens: 400, cacheWriteTokens: 20, cacheWrite1hTokens: null, responses: 2 })
    expect(usageSummary(events, bundledPrices)).toMatchObject({
      inputTokens: 8,
      outputTokens: 49,
      cacheReadTokens: 400,
      cacheWriteTokens: 20,
      costUsd: 0.0123,
      unpriced: []
    })
  })

  it("without a result line: cost from the price table, msg_1 counted once with its last usage", () => {
    const events = mapped(run1)
    const s = usageSummary(events, bundledPrices)!
    expect([s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens]).toEqual([8, 49, 400, 20])
    // msg_1 3/42/100/20: 9 + 630 + 30 + 75 = 744; msg_2 5/7/300/0: 15 + 105 + 90 = 210; 954 µ$ in all
    expect(s.costUsd).toBeCloseTo(sonnet(3, 42, 100, 20) + sonnet(5, 7, 300, 0), 12)
    expect(s.costUsd).toBeCloseTo(0.000954, 12)
  })

  it("two runs, the first ended by a result with a cost, the second still open: stated + priced", () => {
    const events = mapped([...run1, result(0.5, usage(8, 49, 400, 20)), prompt("again"), assistant("msg_3", "More.", usage(10, 100, 1000, 0))])
    const s = usageSummary(events, bundledPrices)!
    expect([s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens]).toEqual([18, 149, 1400, 20])
    expect(s.costUsd).toBeCloseTo(0.5 + sonnet(10, 100, 1000, 0), 12)
    expect(usageRows(events).filter((r) => r.kind === "response").map((r) => [r.key, r.runSeq !== null])).toEqual([
      ["r:msg_1", true],
      ["r:msg_2", true],
      ["r:msg_3", false]
    ])
  })

  it("a result without total_cost_usd: the run's responses are priced from the table", () => {
    const events = mapped([...run1, result(undefined, usage(8, 49, 400, 20))])
    expect(usageSummary(events, bundledPrices)!.costUsd).toBeCloseTo(0.000954, 12)
  })

  it("a run whose assistant lines carry no usage: its result's usage counts, once", () => {
    const events = mapped([init("claude-sonnet-4-5"), prompt("hi"), assistant("m1", "a", undefined), assistant("m2", "b", undefined), result(0.02, usage(4, 5, 6, 7))])
    expect(usageTotals(events)).toEqual({ inputTokens: 4, outputTokens: 5, cacheReadTokens: 6, cacheWriteTokens: 7, cacheWrite1hTokens: null, responses: 1 })
    expect(usageSummary(events, bundledPrices)!.costUsd).toBe(0.02)
  })

  it("a model missing from the price table: tokens without a cost, and the model named with its responses", () => {
    const events = mapped([
      init("claude-mystery-9"),
      prompt("hi"),
      assistant("m1", "a", usage(1, 2, 3, 4), "claude-mystery-9"),
      assistant("m1", "ab", usage(1, 5, 3, 4), "claude-mystery-9"),
      assistant("m2", "c", usage(1, 1, 1, 1), "claude-sonnet-4-5")
    ])
    expect(usageSummary(events, bundledPrices)).toEqual({
      inputTokens: 2,
      outputTokens: 6,
      cacheReadTokens: 4,
      cacheWriteTokens: 5,
      cacheWrite1hTokens: null,
      costUsd: null,
      responses: 2,
      unpriced: [{ model: "claude-mystery-9", responses: 1 }],
      notExact: [],
      costNotFinite: false
    })
    // The config's prices name it: now it has a cost (and the table says where the price came from).
    const table = withOverrides(bundledPrices, { "claude-mystery-9": { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } }, "/cfg/config.json")
    expect(usageSummary(events, table)!.costUsd).toBeCloseTo((1 * 1 + 5 * 2) / 1e6 + sonnet(1, 1, 1, 1), 12)
    expect(describePrices(table)).toBe(`data/prices.json ${bundledPrices.version} + 1 model from /cfg/config.json`)
  })

  it("the same run's stated total makes an unpriced model's responses cost nothing more", () => {
    const events = mapped([init("claude-mystery-9"), prompt("hi"), assistant("m1", "a", usage(1, 2, 3, 4), "claude-mystery-9"), result(0.07, usage(1, 2, 3, 4))])
    expect(usageSummary(events, bundledPrices)).toMatchObject({ costUsd: 0.07, unpriced: [] })
  })
})

/**
 * Claude's `total_cost_usd` is the cost of the process that printed it, and each `system/init` line starts a new
 * process: a `result` covers only the responses since its own run's `init`. A run killed before its `result` (an
 * `init`, responses, then the next `init`) is priced from the table, also once a later run ends with a `result`
 * (docs/usage-and-cost.md; tester22a F3: its cost vanished under the resumed run's stated total).
 * data/prices.json: claude-haiku-4-5 $1 / $5 / $0.10 / $1.25, claude-opus-4-5 $5 / $25 / $0.50 / $6.25 per million.
 */
describe("AgentMux runs: a result covers its own run only (bounded by init lines)", () => {
  const run1 = [
    prompt("first"),
    init("claude-sonnet-4-5"),
    assistant("m1", "part one", usage(100, 10, 0, 0)),
    assistant("m1", "part two", usage(100, 40, 0, 0)),
    assistant("m2", "answer", usage(5, 5, 1000, 2000)),
    result(0.123, usage(105, 45, 1000, 2000))
  ]
  // killed: haiku 1/2/3/4 = 1 + 10 + 0.3 + 5 = 16.3 µ$; opus 1,000 in, 2,000 out = 5,000 + 50,000 = 55,000 µ$
  const killed = [
    prompt("second"),
    init("claude-haiku-4-5"),
    assistant("m3", "killed run", usage(1, 2, 3, 4), "claude-haiku-4-5"),
    prompt("third"),
    init("claude-opus-4-5"),
    assistant("m6", "killed again", usage(1000, 2000, 0, 0), "claude-opus-4-5")
  ]
  const resumed = [prompt("fourth"), init("claude-opus-4-5"), assistant("m7", "resumed", usage(10, 20, 0, 0), "claude-opus-4-5"), result(0.9, usage(10, 20, 0, 0))]

  it("the tester's session: $0.1780163 before the resumed run ends, $1.0780163 after (the killed runs keep their table price)", () => {
    const before = usageSummary(mapped([...run1, ...killed]), bundledPrices)!
    expect(before.costUsd).toBe(0.1780163)
    expect(before.responses).toBe(4)
    const after = usageSummary(mapped([...run1, ...killed, ...resumed]), bundledPrices)!
    expect(after.costUsd).toBe(1.0780163)
    expect([after.inputTokens, after.outputTokens, after.cacheReadTokens, after.cacheWriteTokens, after.responses]).toEqual([1116, 2067, 1003, 2004, 5])
    const rows = usageRows(mapped([...run1, ...killed, ...resumed])).filter((r) => r.kind === "response")
    expect(rows.map((r) => [r.key, r.runSeq !== null])).toEqual([["r:m1", true], ["r:m2", true], ["r:m3", false], ["r:m6", false], ["r:m7", true]])
  })

  it("killed and resumed several times, the last run still going: every killed run and the open one priced, each result its own run", () => {
    // claude-sonnet-4-5: r1 1,000 in 100 out 4,500 µ$; r2 2,000 in 6,000 µ$; r4 1,000 out 15,000 µ$; r6 100 in 10 out 450 µ$
    const events = mapped([
      init("claude-sonnet-4-5"),
      assistant("r1", "a", usage(1000, 100, 0, 0)),
      init("claude-sonnet-4-5"),
      assistant("r2", "b", usage(2000, 0, 0, 0)),
      init("claude-sonnet-4-5"),
      assistant("r3", "c", usage(10, 10, 0, 0)),
      result(0.3, usage(10, 10, 0, 0)),
      init("claude-sonnet-4-5"),
      assistant("r4", "d", usage(0, 1000, 0, 0)),
      init("claude-sonnet-4-5"),
      assistant("r5", "e", usage(20, 20, 0, 0)),
      result(0.2, usage(20, 20, 0, 0)),
      init("claude-sonnet-4-5"),
      assistant("r6", "f", usage(100, 10, 0, 0))
    ])
    const s = usageSummary(events, bundledPrices)!
    expect(s.costUsd).toBe(0.52595)
    expect([s.inputTokens, s.outputTokens, s.responses]).toEqual([3130, 1140, 6])
  })

  it("a process that ends several turns (results without an init between): each result covers the responses since the previous one", () => {
    const events = mapped([
      init("claude-sonnet-4-5"),
      assistant("a1", "a", usage(1000, 0, 0, 0)),
      result(0.01, usage(1000, 0, 0, 0)),
      prompt("more"),
      assistant("a2", "b", usage(2000, 0, 0, 0)),
      result(0.02, usage(2000, 0, 0, 0))
    ])
    expect(usageSummary(events, bundledPrices)!.costUsd).toBe(0.03)
  })
})

describe("the price table", () => {
  it("is versioned, names its source and its unit, and prices the models the fixtures use", () => {
    expect(bundledPrices.version).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(bundledPrices.source).toMatch(/anthropic/i)
    for (const m of ["claude-sonnet-4-20250514", "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001", "claude-sonnet-4-5"]) {
      expect(bundledPrices.models[m]).toBeDefined()
    }
    expect(bundledPrices.models["claude-mystery-9"]).toBeUndefined()
  })
})

describe("stated cost on responses (Claude Code costUSD)", () => {
  const u = (i: number, o: number, r: number, w: number): TokenUsage => ({ inputTokens: i, outputTokens: o, cacheReadTokens: r, cacheWriteTokens: w, cacheWrite1hTokens: null })

  it("a response's partials repeat its cost: counted once, the last; an unstated response is priced", () => {
    const ev = mk("claude-code", "s")
    const events: Array<SessionEvent> = [
      ev("message", { responseId: "a:1", model: "claude-sonnet-4-20250514", usage: u(4, 6, 14216, 1320), costUsd: 0.011372 }),
      ev("tool-call", { responseId: "a:1", model: "claude-sonnet-4-20250514", usage: u(4, 143, 14216, 1320), costUsd: 0.011372 }),
      ev("message", { responseId: "b:2", model: "claude-sonnet-4-20250514", usage: u(4, 31, 15536, 210), costUsd: 0.005925 }),
      ev("message", { responseId: "c:3", model: "claude-sonnet-4-20250514", usage: u(10, 10, 0, 0) })
    ]
    const s = usageSummary(events, bundledPrices)!
    expect([s.inputTokens, s.outputTokens, s.cacheReadTokens, s.cacheWriteTokens, s.responses]).toEqual([18, 184, 29752, 1530, 3])
    expect(s.costUsd).toBeCloseTo(0.011372 + 0.005925 + (10 * 3 + 10 * 15) / 1e6, 12)
  })

  it("a source that reports no usage has no totals (null), never zeros", () => {
    const ev = mk("muse-agents", "s")
    expect(usageSummary([ev("message", { role: "assistant", text: "hi" })], bundledPrices)).toBeNull()
  })

  it("a response with no tokens costs 0 even when its model has no price (Claude Code's <synthetic> lines)", () => {
    const ev = mk("claude-code", "s")
    expect(usageSummary([ev("message", { responseId: "x", model: null, usage: u(0, 0, 0, 0) })], bundledPrices)).toMatchObject({ costUsd: 0, unpriced: [] })
  })
})
