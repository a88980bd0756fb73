/**
 * toAtif and the ATIF v1.7 Schema (issue 6): decoding, sequential step ids,
 * call/result pairing by source_call_id, orphans counted, compactions as
 * system steps with extra.context_management, subagents embedded with refs,
 * Muse Code runtime facts as system steps with provenance; a property over
 * random event sequences. Events are built by hand.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { type AtifInput, type AtifStep, AtifTrajectory, type AtifTrajectoryEncoded, toAtif } from "../../src/domain/atif.js"
import { CONTRACT_VERSION, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import { mk, nsOf } from "../support/events.js"


/** Small constructors over one session's event factory. */
const conv = (ev: ReturnType<typeof mk>) => ({
  user: (text: string, at: string | null = null) => ev("message", { role: "user", text, occurredAt: at }),
  system: (text: string) => ev("message", { role: "system", text }),
  assistant: (text: string, model: string | null = null) => ev("message", { role: "assistant", text, model }),
  thinking: (text: string) => ev("thinking", { role: "assistant", text }),
  call: (id: string, name: string, input: unknown, at: string | null = null) =>
    ev("tool-call", { role: "assistant", toolName: name, toolCallId: id, text: JSON.stringify(input), occurredAt: at, toolInput: input }),
  result: (id: string | null, text: string, isError = false) => ev("tool-result", { toolCallId: id, text, isError })
})

const decode = Schema.decodeUnknownEither(AtifTrajectory, { onExcessProperty: "error" })
/** Through JSON, as the CLI writes it, then decoded strictly (unknown fields are errors). */
const roundTrip = (t: AtifTrajectory): AtifTrajectory => {
  const r = decode(JSON.parse(JSON.stringify(t)))
  if (Either.isLeft(r)) throw new Error(String(r.left))
  return r.right
}
const session = (sessionId: string, provider: ProviderId = "muse-agents", model: string | null = null) =>
  ({ sessionId, provider, title: "T", model })
const ids = (s: AtifStep) => (s.extra as any).session_ingest.event_ids

describe("toAtif: conversations", () => {
  it("maps messages, thinking, calls and results to user/agent steps, results on the step of their call", () => {
    const ev = mk("muse-agents", "s1")
    const c = conv(ev)
    const events = [
      c.user("fix it", "2026-10-01T10:00:00Z"),
      c.thinking("plan"),
      c.assistant("Running.", "m-1"),
      c.call("c1", "Bash", { command: "npm test" }, "2026-10-01T10:00:02Z"),
      c.call("c2", "Read", { file_path: "a.ts" }),
      c.result("c2", "contents"),
      c.result("c1", "1 failing", true),
      c.assistant("done"),
      c.user("thanks")
    ]
    const t = roundTrip(toAtif({ session: session("s1"), events, subagents: [] }))
    expect(t.schema_version).toBe("ATIF-v1.7")
    expect(t.session_id).toBe("s1")
    expect(t.agent).toEqual({ name: "session-ingest/muse-agents", version: CONTRACT_VERSION, model_name: "m-1", extra: { provider: "muse-agents" } })
    expect(t.steps.map((s) => [s.step_id, s.source])).toEqual([[1, "user"], [2, "agent"], [3, "agent"], [4, "user"]])
    expect(t.steps[0]).toEqual({
      step_id: 1,
      timestamp: "2026-10-01T10:00:00Z",
      source: "user",
      message: "fix it",
      extra: { session_ingest: { event_ids: ["line-1"] } }
    })
    // thinking, text and both calls are one model response; the step's time is its first known time
    expect(t.steps[1]).toEqual({
      step_id: 2,
      timestamp: "2026-10-01T10:00:02Z",
      source: "agent",
      model_name: "m-1",
      message: "Running.",
      reasoning_content: "plan",
      tool_calls: [
        { tool_call_id: "c1", function_name: "Bash", arguments: { command: "npm test" } },
        { tool_call_id: "c2", function_name: "Read", arguments: { file_path: "a.ts" } }
      ],
      observation: {
        results: [
          { source_call_id: "c2", content: "contents" },
          { source_call_id: "c1", content: "1 failing", extra: { is_error: true } }
        ]
      },
      extra: { session_ingest: { event_ids: ["line-2", "line-3", "line-4", "line-5", "line-6", "line-7"] } }
    })
    // text after the results is a new response
    expect(t.steps[2].message).toBe("done")
    expect(t.steps[2].tool_calls).toBeUndefined()
    expect(t.final_metrics).toEqual({ total_steps: 4 })
    expect((t.extra as any).session_ingest).toEqual({
      provider: "muse-agents",
      session_id: "s1",
      title: "T",
      contract_version: CONTRACT_VERSION,
      event_count: 9,
      orphan_tool_results: 0
    })
    expect(t.subagent_trajectories).toBeUndefined()
  })

  it("a call after a result starts a new agent step; a repeated id in one response too; results go to the latest call", () => {
    const c = conv(mk("agentmux", "s2"))
    const events = [
      c.call("a", "Bash", { command: "ls" }),
      c.result("a", "x"),
      c.call("b", "Bash", { command: "pwd" }),
      c.call("b", "Bash", { command: "pwd" }),
      c.result("b", "/")
    ]
    const t = roundTrip(toAtif({ session: session("s2", "agentmux"), events, subagents: [] }))
    expect(t.steps.map((s) => [s.source, s.message, s.tool_calls?.map((x) => x.tool_call_id), s.observation?.results.map((r) => r.source_call_id)])).toEqual([
      ["agent", "", ["a"], ["a"]],
      ["agent", "", ["b"], undefined],
      ["agent", "", ["b"], ["b"]]
    ])
  })

  // session 28 (tester28a F7): six assistant responses in a row of three models were one step named after the first
  it("consecutive responses of different models are steps of their own, each named after its model", () => {
    const ev = mk("claude-code", "s-models")
    const c = conv(ev)
    const events = [
      c.user("go"),
      c.assistant("a1", "claude-sonnet-4-5"),
      c.assistant("a2", "claude-sonnet-4-5"),
      c.assistant("b1", "claude-unknown-9"),
      c.assistant("c1", null),
      c.assistant("d1", "claude-opus-4-6"),
      c.assistant("e1", "claude-sonnet-4-5")
    ]
    const t = roundTrip(toAtif({ session: session("s-models", "claude-code"), events, subagents: [] }))
    expect(t.steps.map((s) => [s.source, s.model_name ?? null, s.message])).toEqual([
      ["user", null, "go"],
      ["agent", "claude-sonnet-4-5", "a1\n\na2"],
      // a response without a model goes on the step before it
      ["agent", "claude-unknown-9", "b1\n\nc1"],
      ["agent", "claude-opus-4-6", "d1"],
      ["agent", "claude-sonnet-4-5", "e1"]
    ])
  })

  it("wraps a non-object input as {input} and an absent one as {}", () => {
    const ev = mk("muse-agents", "s")
    const events = [ev("tool-call", { toolName: "Grep", toolCallId: "g", toolInput: "pattern" }), ev("tool-call", { toolCallId: "h" }, {})]
    const t = roundTrip(toAtif({ session: session("s"), events, subagents: [] }))
    expect(t.steps[0].tool_calls).toEqual([
      { tool_call_id: "g", function_name: "Grep", arguments: { input: "pattern" }, extra: { input_not_an_object: true } },
      { tool_call_id: "h", function_name: "unknown", arguments: {} }
    ])
  })

  it("drops results without an earlier call and counts them in extra", () => {
    const c = conv(mk("muse-agents", "s3"))
    const events = [c.result("late", "before its call"), c.call("late", "Read", { file_path: "f" }), c.result("ghost", "?"), c.result(null, "no id")]
    const t = roundTrip(toAtif({ session: session("s3"), events, subagents: [] }))
    expect(t.steps).toHaveLength(1)
    expect(t.steps[0].observation).toBeUndefined()
    expect((t.extra as any).session_ingest.orphan_tool_results).toBe(3)
  })

  // tester30b F3: the export counted the orphan result but not the line skipped before it (its call, too deep or torn).
  it("says the lines the source skipped (session.parseWarnings) beside the orphans, and nothing when none was", () => {
    const c = conv(mk("claude-code", "s4"))
    const events = [c.user("check the disk"), c.result("toolu_lost", "ERROR: disk failure on /dev/sda1")]
    const parseWarnings = [{ kind: "too-deep", count: 1, firstLine: 2 }, { kind: "malformed-json", count: 2, firstLine: 5 }]
    const t = roundTrip(toAtif({ session: { ...session("s4", "claude-code"), parseWarnings }, events, subagents: [] }))
    expect((t.extra as any).session_ingest).toMatchObject({
      orphan_tool_results: 1,
      skipped_lines: 3,
      parse_warnings: [{ kind: "too-deep", count: 1, first_line: 2, effect: "skipped" }, { kind: "malformed-json", count: 2, first_line: 5, effect: "skipped" }]
    })
    expect((t.extra as any).session_ingest.kept_lines).toBeUndefined()
    const clean = roundTrip(toAtif({ session: { ...session("s4", "claude-code"), parseWarnings: [] }, events, subagents: [] }))
    expect((clean.extra as any).session_ingest.skipped_lines).toBeUndefined()
    expect((clean.extra as any).session_ingest.parse_warnings).toBeUndefined()
  })

  // tester31a F1: a line kept with invalid UTF-8 (its event is a step) was counted in skipped_lines.
  it("counts only the skipped kinds in skipped_lines: kept lines and files left out apart", () => {
    const c = conv(mk("claude-code", "s5"))
    const events = [c.user("bad \uFFFD bytes"), c.assistant("ok")]
    const parseWarnings = [
      { kind: "invalid-utf8", count: 1, firstLine: 1 },
      { kind: "too-deep", count: 1, firstLine: 3 },
      { kind: "timestamp-not-valid", count: 2, firstLine: 2 },
      { kind: "subagent-id-mismatch", count: 1, firstLine: null }
    ]
    const t = roundTrip(toAtif({ session: { ...session("s5", "claude-code"), parseWarnings }, events, subagents: [] }))
    expect((t.extra as any).session_ingest).toMatchObject({
      skipped_lines: 1,
      kept_lines: 3,
      files_left_out: 1,
      parse_warnings: [
        { kind: "invalid-utf8", count: 1, first_line: 1, effect: "kept" },
        { kind: "too-deep", count: 1, first_line: 3, effect: "skipped" },
        { kind: "timestamp-not-valid", count: 2, first_line: 2, effect: "kept" },
        { kind: "subagent-id-mismatch", count: 1, first_line: null, effect: "file-left-out" }
      ]
    })
    const keptOnly = roundTrip(toAtif({ session: { ...session("s5", "claude-code"), parseWarnings: [parseWarnings[0]] }, events, subagents: [] }))
    expect((keptOnly.extra as any).session_ingest.skipped_lines).toBeUndefined()
    expect((keptOnly.extra as any).session_ingest.kept_lines).toBe(1)
  })

  it("a compaction is a system step with extra.context_management, never its summary text", () => {
    const ev = mk("muse-agents", "s4")
    const c = conv(ev)
    const events = [
      c.assistant("before"),
      ev("summary", {
        role: "system",
        text: "context compaction (auto)",
        occurredAt: "2026-10-01T11:00:00Z",
        compaction: { id: "cmp-1", trigger: "auto" }
      }, { summary: "SECRET SUMMARY" }),
      ev("summary", { role: "system", text: "context compacted" }, {}),
      c.assistant("after")
    ]
    const t = roundTrip(toAtif({ session: session("s4"), events, subagents: [] }))
    expect(t.steps.map((s) => s.source)).toEqual(["agent", "system", "system", "agent"])
    expect(t.steps[1]).toEqual({
      step_id: 2,
      timestamp: "2026-10-01T11:00:00Z",
      source: "system",
      message: "context compaction (auto)",
      extra: {
        context_management: { type: "compaction", compaction_id: "cmp-1", trigger: "auto" },
        session_ingest: { event_ids: ["line-2"] }
      }
    })
    expect(t.steps[2].message).toBe("context compaction")
    expect((t.steps[2].extra as any).context_management).toEqual({ type: "compaction", compaction_id: "line-3", trigger: null })
    expect(JSON.stringify(t)).not.toContain("SECRET SUMMARY")
  })

  it("user and system messages are their own steps; a session without events has one system step", () => {
    const c = conv(mk("muse-agents", "s5"))
    const t = roundTrip(toAtif({ session: session("s5"), events: [c.system("be brief"), c.user("a"), c.user("b")], subagents: [] }))
    expect(t.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([[1, "system", "be brief"], [2, "user", "a"], [3, "user", "b"]])
    const empty = roundTrip(toAtif({ session: session("e"), events: [], subagents: [] }))
    expect(empty.steps).toEqual([{ step_id: 1, source: "system", message: "the session has no events", extra: { session_ingest: { event_ids: [] } } }])
    expect(empty.agent.model_name).toBeUndefined()
  })
})

describe("toAtif: Muse Code runtime facts and subagents", () => {
  const parentEv = mk("muse-code", "parent")
  const proposed = parentEv("proposed", { text: "tool:Bash (allow)", toolName: "Bash", occurredAt: "2026-10-01T09:00:00Z", model: "muse-1" }, {
    envelopeId: "env-1",
    operation: "tool:Bash",
    payload: { operation: "tool:Bash", policy_decision: "allow" }
  })
  const intent = parentEv("side_effect_intent", {}, { envelopeId: "env-2" })
  const bound = parentEv("subagent.control.child_session_bound", { text: null }, { subagentId: "sa-1", childSessionId: "child-1" })
  const parentEvents = [proposed, intent, bound]
  const childEv = mk("muse-code", "child-1")
  const parentRef = { sessionId: "parent", sourceId: "sha256:parent", subagentId: "sa-1", childSessionId: "child-1", bindingEventId: "muse-seq-3" }
  const childEvents = [childEv("proposed", {
    text: "tool:Read",
    parent: { sessionId: "parent", toolCallId: null, eventId: "muse-seq-3", subagentId: "sa-1" }
  }, { parent: parentRef })]

  it("runtime facts are system steps whose message is kind and text, the whole event kept under extra", () => {
    const t = roundTrip(toAtif({ session: session("parent", "muse-code"), events: parentEvents, subagents: [] }))
    expect(t.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([
      [1, "system", "proposed: tool:Bash (allow)"],
      [2, "system", "side_effect_intent"],
      [3, "system", "subagent.control.child_session_bound"]
    ])
    const { cursor: _cursor, contractVersion: _cv, ...rest } = proposed
    expect(t.steps[0]).toEqual({
      step_id: 1,
      timestamp: "2026-10-01T09:00:00Z",
      source: "system",
      message: "proposed: tool:Bash (allow)",
      extra: { session_ingest: { event_ids: ["muse-seq-1"], event: rest } }
    })
    expect(t.agent.model_name).toBe("muse-1")
  })

  it("a subagent session is embedded and referred to from the step that spawned it", () => {
    const input: AtifInput = {
      session: session("parent", "muse-code"),
      events: parentEvents,
      subagents: [{ session: session("child-1", "muse-code"), events: childEvents }]
    }
    const t = roundTrip(toAtif(input))
    expect(t.subagent_trajectories).toHaveLength(1)
    const child = t.subagent_trajectories![0]
    expect(child.trajectory_id).toBe("child-1")
    expect(child.steps.map((s) => s.message)).toEqual(["proposed: tool:Read"])
    expect(t.steps[2].observation).toEqual({
      results: [{
        subagent_trajectory_ref: [{
          trajectory_id: "child-1",
          session_id: "child-1",
          extra: { provider: "muse-code", spawn_event_id: "muse-seq-3", subagent_id: "sa-1" }
        }]
      }]
    })
    expect(t.steps).toHaveLength(3)
  })

  it("a subagent spawned by a tool call is referred to from that call's result; unknown spawns get a trailing step; ids stay unique", () => {
    const c = conv(mk("agentmux", "p"))
    const events = [c.user("delegate"), c.call("task-1", "Task", { prompt: "look" }), c.result("task-1", "found it")]
    const sub = mk("agentmux", "sub")
    const spawned = [sub("message", {
      role: "assistant",
      text: "looking",
      parent: { sessionId: "p", toolCallId: "task-1", eventId: null, subagentId: null }
    })]
    const orphan = [mk("agentmux", "sub")("message", { role: "user", text: "?" }, {})]
    const t = roundTrip(toAtif({
      session: session("p", "agentmux"),
      events,
      subagents: [{ session: session("sub", "agentmux"), events: spawned }, { session: session("sub", "agentmux"), events: orphan }]
    }))
    expect(t.subagent_trajectories!.map((x) => x.trajectory_id)).toEqual(["sub", "sub#2"])
    expect(t.steps[1].observation!.results).toEqual([{
      source_call_id: "task-1",
      content: "found it",
      subagent_trajectory_ref: [{ trajectory_id: "sub", session_id: "sub", extra: { provider: "agentmux", spawn_tool_call_id: "task-1" } }]
    }])
    expect(t.steps).toHaveLength(3)
    expect(t.steps[2]).toEqual({
      step_id: 3,
      source: "system",
      message: "subagent sessions whose spawning step is not known",
      observation: { results: [{ subagent_trajectory_ref: [{ trajectory_id: "sub#2", session_id: "sub", extra: { provider: "agentmux" } }] }] },
      extra: { session_ingest: { event_ids: [] } }
    })
    expect(t.final_metrics).toEqual({ total_steps: 3 })
  })
})

describe("AtifTrajectory schema", () => {
  const base = (): any => ({
    schema_version: "ATIF-v1.7",
    agent: { name: "a", version: "1" },
    steps: [
      { step_id: 1, source: "user", message: "hi" },
      { step_id: 2, source: "agent", message: "", tool_calls: [{ tool_call_id: "c", function_name: "f", arguments: {} }], observation: { results: [{ source_call_id: "c", content: "ok" }] } }
    ]
  })
  const rejects = (doc: unknown) => expect(Either.isLeft(decode(doc))).toBe(true)

  it("accepts a valid trajectory and nulls for optional fields", () => {
    const doc = base()
    doc.session_id = null
    doc.steps[0].timestamp = null
    expect(Either.isRight(decode(doc))).toBe(true)
  })
  it("rejects the rule violations", () => {
    const bumped = base(); bumped.steps[1].step_id = 3; rejects(bumped)
    const unknownCall = base(); unknownCall.steps[1].observation.results[0].source_call_id = "zz"; rejects(unknownCall)
    const otherStep = base(); otherStep.steps[0].observation = { results: [{ source_call_id: "c" }] }; rejects(otherStep)
    const reasoningOnUser = base(); reasoningOnUser.steps[0].reasoning_content = "x"; rejects(reasoningOnUser)
    const noVersion = base(); delete noVersion.agent.version; rejects(noVersion)
    const wrongVersion = base(); wrongVersion.schema_version = "ATIF-v1.6"; rejects(wrongVersion)
    const noSteps = base(); noSteps.steps = []; rejects(noSteps)
    const dangling = base(); dangling.steps[0].observation = { results: [{ subagent_trajectory_ref: [{ trajectory_id: "x" }] }] }; rejects(dangling)
    const keyless = base(); keyless.steps[0].observation = { results: [{ subagent_trajectory_ref: [{ session_id: "x" }] }] }; rejects(keyless)
    const unnamed = base(); unnamed.subagent_trajectories = [{ schema_version: "ATIF-v1.7", agent: { name: "a", version: "1" }, steps: [{ step_id: 1, source: "user", message: "" }] }]; rejects(unnamed)
    const badTotal = base(); badTotal.final_metrics = { total_steps: 5 }; rejects(badTotal)
    const extraField = base(); extraField.steps[0].surprise = 1; rejects(extraField)
  })
})

// ---------------------------------------------------------------------------
// Property

const KINDS = ["message", "thinking", "tool-call", "tool-result", "summary", "proposed", "side_effect_intent"] as const
const CALL_IDS = ["c1", "c2", "c3", null] as const
const arbSpec = fc.record({
  kind: fc.constantFrom(...KINDS),
  role: fc.constantFrom<SessionEvent["role"]>("user", "assistant", "system", null),
  callId: fc.constantFrom(...CALL_IDS),
  text: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
  at: fc.option(fc.constantFrom("2026-10-01T10:00:00Z", "2026-10-01T10:00:01.500Z"), { nil: null }),
  model: fc.option(fc.constantFrom("m-1", "m-2"), { nil: null }),
  input: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), fc.string(), fc.constant(null)),
  isError: fc.boolean(),
  compactionId: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
  trigger: fc.option(fc.constantFrom("auto", "manual"), { nil: undefined })
})
type Spec = typeof arbSpec extends fc.Arbitrary<infer T> ? T : never

const toEvents = (provider: ProviderId, sessionId: string, specs: ReadonlyArray<Spec>, link?: Partial<SessionEvent>) => {
  const ev = mk(provider, sessionId)
  return specs.map((s, i) =>
    ev(s.kind, {
      role: s.role,
      toolName: s.kind === "tool-call" ? "Bash" : null,
      toolCallId: s.kind === "tool-call" || s.kind === "tool-result" ? s.callId : null,
      text: s.text,
      occurredAt: s.at,
      model: s.model,
      toolInput: s.input,
      isError: s.isError,
      compaction: s.compactionId !== undefined || s.trigger !== undefined
        ? { id: s.compactionId ?? "", trigger: s.trigger ?? null }
        : null,
      ...(i === 0 && link !== undefined ? link : {})
    })
  )
}
const arbLink = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("c1", "c2", "zz").map((id): Partial<SessionEvent> => ({
    parent: { sessionId: "p", toolCallId: id, eventId: null, subagentId: null }
  })),
  fc.nat({ max: 30 }).map((n): Partial<SessionEvent> => ({
    parent: { sessionId: "p", toolCallId: null, eventId: `line-${n}`, subagentId: null }
  }))
)
const arbInput = fc.record({
  provider: fc.constantFrom<ProviderId>("muse-code", "muse-agents", "agentmux"),
  events: fc.array(arbSpec, { maxLength: 30 }),
  subs: fc.array(fc.record({ id: fc.constantFrom("k1", "k2"), link: arbLink, events: fc.array(arbSpec, { maxLength: 6 }) }), { maxLength: 3 })
})

const checkTrajectory = (t: AtifTrajectory | AtifTrajectoryEncoded) => {
  expect(t.steps.map((s) => s.step_id)).toEqual(t.steps.map((_, i) => i + 1))
  const emitted = new Set<string>()
  for (const s of t.steps) {
    const own = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id))
    for (const id of own) emitted.add(id)
    for (const r of s.observation?.results ?? []) {
      if (r.source_call_id !== undefined && r.source_call_id !== null) {
        expect(emitted.has(r.source_call_id)).toBe(true)
        expect(own.has(r.source_call_id)).toBe(true)
      }
    }
  }
  for (const sub of t.subagent_trajectories ?? []) checkTrajectory(sub)
}
const toolResultCount = (events: ReadonlyArray<SessionEvent>) => events.filter((e) => e.kind === "tool-result").length
const contentResults = (t: AtifTrajectory) =>
  t.steps.flatMap((s) => s.observation?.results ?? []).filter((r) => r.content !== undefined).length

describe("toAtif property", () => {
  it.prop("any event sequence gives a trajectory that decodes, with sequential ids and every source_call_id on an emitted call", [arbInput], ([inp]) => {
    const events = toEvents(inp.provider, "p", inp.events)
    const subagents = inp.subs.map((s) => ({ session: session(s.id, inp.provider), events: toEvents(inp.provider, s.id, s.events, s.link) }))
    const t = toAtif({ session: session("p", inp.provider), events, subagents })
    const decoded = roundTrip(t)
    checkTrajectory(decoded)
    expect(decoded.subagent_trajectories?.length ?? 0).toBe(subagents.length)
    // every tool result is either on its call's step or counted as dropped
    const orphans = (t.extra as any).session_ingest.orphan_tool_results as number
    expect(contentResults(t) + orphans).toBe(toolResultCount(events))
    t.subagent_trajectories?.forEach((sub, i) => {
      expect(contentResults(sub) + (sub.extra as any).session_ingest.orphan_tool_results).toBe(toolResultCount(subagents[i].events))
    })
    // every subagent is referred to exactly once
    const refs = t.steps.flatMap((s) => s.observation?.results ?? []).flatMap((r) => r.subagent_trajectory_ref ?? [])
    expect(refs.map((r) => r.trajectory_id).sort()).toEqual((t.subagent_trajectories ?? []).map((x) => x.trajectory_id).sort())
  }, { fastCheck: { numRuns: 400 } })
})
