/**
 * AgentMux events carry the typed facts of contract 1.1.0 (issue 12, item 2):
 * a call's input, a result's outcome, a compaction's id and trigger, and the
 * usage of Claude stream-json `assistant` lines (`message.usage`) with the
 * response they belong to (`message.id`), counted once per response.
 */
import { describe, expect, it } from "@effect/vitest"
import { mapSession, type SessionLine } from "../../src/domain/agentmux/transcript.js"
import { bundledPrices } from "../../src/domain/prices.js"
import { usageSummary, usageTotals } from "../../src/domain/usage.js"

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
const assistant = (id: string, content: unknown, u?: unknown) =>
  j({ type: "assistant", message: { id, role: "assistant", model: "claude-sonnet-4-5", content, ...(u !== undefined ? { usage: u } : {}) }, session_id: "S" })

describe("AgentMux typed event fields", () => {
  const mapped = mapSession(lines([
    j({ type: "system", subtype: "init", session_id: "S", model: "claude-sonnet-4-5" }),
    j({ type: "user", message: { role: "user", content: "list files" }, session_id: "S" }),
    // One response streamed as two lines (thinking, then text + tool_use), each repeating the usage, output growing.
    assistant("msg_1", [{ type: "thinking", thinking: "look" }], usage(3, 10, 100, 20)),
    assistant("msg_1", [{ type: "text", text: "Listing." }, { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }], usage(3, 42, 100, 20)),
    j({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt", is_error: false }] }, session_id: "S" }),
    j({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "again" }] }, session_id: "S" }),
    assistant("msg_2", [{ type: "tool_use", id: "t2", name: "Read", input: { file_path: "/etc/shadow" } }], usage(5, 7, 300, 0)),
    j({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "denied", is_error: true }] }, session_id: "S" }),
    j({ type: "system", subtype: "compact_boundary", uuid: "cb-1", compact_metadata: { trigger: "manual" }, session_id: "S" }),
    assistant("msg_3", [{ type: "text", text: "no usage here" }])
  ]), { sourceId: "sha256:s", sessionId: "S" })
  const events = mapped.events.map((m) => m.event)

  it("a call's input, a result's outcome (null when the line does not say), the compaction", () => {
    expect(events.filter((e) => e.kind === "tool-call").map((e) => [e.toolCallId, e.toolInput])).toEqual([
      ["t1", { command: "ls" }],
      ["t2", { file_path: "/etc/shadow" }]
    ])
    expect(events.filter((e) => e.kind === "tool-result").map((e) => e.isError)).toEqual([false, null, true])
    expect(events.find((e) => e.kind === "summary")!.compaction).toEqual({ id: "cb-1", trigger: "manual" })
    expect(events.filter((e) => e.kind !== "tool-call").every((e) => e.toolInput === null)).toBe(true)
  })

  it("usage on the last event of each assistant line, the response id on every event of it; totals count a response once", () => {
    expect(events.filter((e) => e.usage !== null).map((e) => [e.kind, e.responseId, e.usage!.outputTokens])).toEqual([
      ["thinking", "msg_1", 10],
      ["tool-call", "msg_1", 42],
      ["tool-call", "msg_2", 7]
    ])
    expect(events.filter((e) => e.role === "assistant").map((e) => e.responseId)).toEqual(["msg_1", "msg_1", "msg_1", "msg_2", "msg_3"])
    // msg_1 once with its last line's usage (3/42/100/20), msg_2 (5/7/300/0); msg_3 reports none.
    expect(usageTotals(events)).toEqual({ inputTokens: 8, outputTokens: 49, cacheReadTokens: 400, cacheWriteTokens: 20, cacheWrite1hTokens: null, responses: 2 })
    expect(events.every((e) => e.parent === null && e.child === null)).toBe(true)
  })
})

// Claude stream-json's `usage.speed` (AgentMux runs `claude -p --output-format stream-json`, whose assistant lines carry
// the API's usage object as Claude Code's log does): a fast-mode response is billed at the model's fast rates, never
// the standard ones (docs/usage-and-cost.md "Fast mode"; Claude Code's fast mode page: $30 / $150 per MTok on Opus 4.6).
// By hand: 100,000 in x $30 + 10,000 out x $150 = $3.00 + $1.50 = $4.50 (the standard $5 / $25 would give $0.75).
describe("AgentMux usage keeps the speed a response ran at", () => {
  const opus = (id: string, u: unknown) =>
    j({ type: "assistant", message: { id, role: "assistant", model: "claude-opus-4-6", content: [{ type: "text", text: "x" }], usage: u }, session_id: "F" })
  const run = (speed: string | undefined) =>
    mapSession(lines([
      j({ type: "system", subtype: "init", session_id: "F", model: "claude-opus-4-6" }),
      j({ type: "user", message: { role: "user", content: "go" }, session_id: "F" }),
      opus("msg_f", { input_tokens: 100_000, output_tokens: 10_000, ...(speed === undefined ? {} : { speed }) })
    ]), { sourceId: "sha256:f", sessionId: "F" }).events.map((m) => m.event)

  it("speed \"fast\" is on the event's usage and priced at the fast-mode rates", () => {
    const events = run("fast")
    expect(events.filter((e) => e.usage !== null).map((e) => e.usage!.speed)).toEqual(["fast"])
    expect(usageSummary(events, bundledPrices)!.costUsd).toBeCloseTo(4.5, 10)
  })

  it("speed \"standard\" and no speed are priced at the standard rates ($0.75)", () => {
    expect(run("standard").find((e) => e.usage !== null)!.usage!.speed).toBe("standard")
    expect(usageSummary(run("standard"), bundledPrices)!.costUsd).toBeCloseTo(0.75, 10)
    expect(run(undefined).find((e) => e.usage !== null)!.usage!.speed).toBeUndefined()
    expect(usageSummary(run(undefined), bundledPrices)!.costUsd).toBeCloseTo(0.75, 10)
  })
})
