/**
 * Every value of `fixtures/claude-code/EXPECTED.md`, per fixture: what
 * discovery summarizes (ids, titles, cwd, times, turns, tool calls and
 * errors, token totals with streamed partials counted once, parse warnings),
 * what `stream` yields (tool calls paired with their results by line,
 * thinking, compaction, subagent links) and what `transcript` gives.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { usageOfEvents } from "../../src/domain/claude-code/events.js"
import { usageTotals } from "../../src/domain/usage.js"
import type { DiscoveredSource, SessionEvent } from "../../src/domain/model.js"
import { collect, FIXTURE_ROOT, locatorOf, nat, S, withAdapter } from "./helpers.js"

const discover = withAdapter(FIXTURE_ROOT, (a) => a.discover({}))
const summaryOf = (sources: ReadonlyArray<DiscoveredSource>, id: string) => sources.find((s) => s.sessionId === id)!.summary as Record<string, any>
const streamAll = (id: string) => withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(id), { includeSubagents: true })))
const transcript = (id: string) => withAdapter(FIXTURE_ROOT, (a) => a.transcript(locatorOf(id)))

/** Tool calls as [call line, id, name, result line, isError] from events. */
const toolTable = (events: ReadonlyArray<SessionEvent>, sessionId?: string) => {
  const mine = sessionId === undefined ? events : events.filter((e) => e.sessionId === sessionId)
  return mine.filter((e) => e.kind === "tool-call").map((c) => {
    const r = mine.find((e) => e.kind === "tool-result" && e.toolCallId === c.toolCallId)!
    expect(r.isError).toBe(nat(r).isError) // the typed outcome is the native one
    return [c.rawReference.sequence, c.toolCallId, c.toolName, r.rawReference.sequence, r.isError]
  })
}

const tokens = (t: Record<string, any>) => [t.input, t.output, t.cacheRead, t.cacheWrite]

describe("EXPECTED.md: the whole root", () => {
  it.effect("6 sessions (the subagent file is none), latest activity first; 2 parse warnings; 23 tool calls, 3 errors", () =>
    Effect.gen(function*() {
      const r = yield* discover
      expect(r.status).toBe("checked")
      expect(r.coverage).toBe("complete")
      expect(r.sources.map((s) => s.sessionId)).toEqual([S.S6, S.S5, S.S2, S.S4, S.S1, S.S3])
      const sums = r.sources.map((s) => s.summary as Record<string, any>)
      expect(sums.reduce((n, s) => n + s.parseWarningCount, 0)).toBe(2)
      expect(sums.reduce((n, s) => n + s.toolCallCount, 0)).toBe(23)
      expect(sums.reduce((n, s) => n + s.toolErrorCount, 0)).toBe(3)
      // The session id is the file stem, and the locator names the file.
      for (const s of r.sources) expect(s.locator.path.endsWith(`/${s.sessionId}.jsonl`)).toBe(true)
    }))
})

describe("EXPECTED.md S1: plain session", () => {
  it.effect("summary: id, cwd, branch, version, title from the summary line, times, 2 turns, model, 7 calls / 1 error, no warnings", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S1)
      expect([s.sessionId, s.cwd, s.gitBranch, s.version]).toEqual([S.S1, "/home/alice/code/billing-api", "main", "2.0.76"])
      expect(s.title).toBe("Fix one-cent rounding error in invoice totals")
      expect(s.titleFrom).toBe("summary")
      expect([s.startedAt, s.updatedAt]).toEqual(["2025-12-03T09:14:02.118Z", "2025-12-03T09:16:53.447Z"])
      expect(s.promptCount).toBe(2)
      expect(s.model).toBe("claude-sonnet-4-5-20250929")
      expect([s.toolCallCount, s.toolErrorCount]).toEqual([7, 1])
      expect(s.parseWarnings).toEqual([])
      // Typed (contract 1.1.0): cwd is the workspace.
      const source = (yield* discover).sources.find((x) => x.sessionId === S.S1)!
      expect(source.overview).toEqual({
        sessionId: S.S1,
        title: "Fix one-cent rounding error in invoice totals",
        workspace: "/home/alice/code/billing-api",
        firstActivityAt: "2025-12-03T09:14:02.118Z",
        lastActivityAt: "2025-12-03T09:16:53.447Z",
        model: "claude-sonnet-4-5-20250929",
        counts: { prompts: 2, toolCalls: 7, runs: null, lines: 24 }, // the file's 24 lines
        parseWarnings: [],
        diagnostics: []
      })
    }))

  it.effect("tokens: 9 responses over 13 lines counted once with the last line: 15 / 1230 / 155299 / 7784 (not 28/1672/214192/18924, not output 925)", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S1)
      expect(tokens(s.tokens)).toEqual([15, 1230, 155299, 7784])
      expect(s.tokens.messages).toBe(9)
      expect(tokens(s.tokens)).not.toEqual([28, 1672, 214192, 18924])
      expect(s.tokens.output).not.toBe(925)
      // The events carry the same: usage per line, counted once per message.id + requestId.
      const events = yield* streamAll(S.S1)
      expect(tokens(usageOfEvents(events))).toEqual([15, 1230, 155299, 7784])
      expect(events.filter((e) => nat(e).usage !== undefined)).toHaveLength(13)
      // The typed usage (contract 1.1.0): on the last event of each of the 13 assistant lines, 9 distinct responses;
      // the generic totals count each responseId once, with its last usage.
      const withUsage = events.filter((e) => e.usage !== null)
      expect(withUsage).toHaveLength(13)
      expect(new Set(withUsage.map((e) => e.responseId)).size).toBe(9)
      expect(events.filter((e) => e.role === "assistant").every((e) => e.responseId !== null)).toBe(true)
      expect(usageTotals(events)).toEqual({ inputTokens: 15, outputTokens: 1230, cacheReadTokens: 155299, cacheWriteTokens: 7784, cacheWrite1hTokens: 0, responses: 9 })
    }))

  it.effect("tool calls paired with their results (lines, ids, names, the one error); inputs; 2 signed thinking blocks", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(S.S1)
      expect(toolTable(events)).toEqual([
        [6, "toolu_01xNrojzmOACaNVJsTbPfqbH", "Bash", 7, false],
        [8, "toolu_0116TdRm9Axy7BB7XrHFeNpf", "Read", 9, false],
        [11, "toolu_01z5RIdhdbMHTvG3jFeVK15H", "Edit", 12, false],
        [13, "toolu_015aySdzNYGyFVJbEiIZP6av", "Bash", 14, false],
        [18, "toolu_01SiRKtrfnIqbLjueYhzUpQf", "Edit", 19, true],
        [20, "toolu_01y1YUsiFAWuZ6G0gvwmbCMh", "Read", 21, false],
        [22, "toolu_01F8aLW5kII1QEB5vluI3CYS", "Edit", 23, false]
      ])
      const calls = events.filter((e) => e.kind === "tool-call")
      expect(nat(calls[0]).input.command).toBe('grep -rn "round(" src/invoice')
      expect(nat(calls[5]).input.limit).toBe(12)
      const err = events.find((e) => e.kind === "tool-result" && e.rawReference.sequence === 19)!
      expect(err.text).toContain("<tool_use_error>File has not been read yet")
      const thinking = events.filter((e) => e.kind === "thinking")
      expect(thinking.map((e) => [e.rawReference.sequence, nat(e).signed])).toEqual([[4, true], [17, true]])
      // Lines 1 (summary) and 2 (file-history-snapshot) yield nothing.
      expect(events.some((e) => (e.rawReference.sequence ?? 0) <= 2)).toBe(false)
    }))

  it.effect("transcript: the two user turns, title, model, times", () =>
    Effect.gen(function*() {
      const t = yield* transcript(S.S1)
      const users = t.turns.filter((x) => x.role === "user").map((x) => x.blocks.map((b) => (b.type === "text" ? b.text : b.type)))
      expect(users).toEqual([
        ["The invoice total is off by one cent for some line items. Can you find out why and fix it?"],
        ["Please also add a CHANGELOG entry under Unreleased."]
      ])
      expect([t.sessionId, t.title, t.model]).toEqual([S.S1, "Fix one-cent rounding error in invoice totals", "claude-sonnet-4-5-20250929"])
      expect([t.startedAt, t.endedAt]).toEqual(["2025-12-03T09:14:02.118Z", "2025-12-03T09:16:53.447Z"])
      const uses = t.turns.flatMap((x) => x.blocks).filter((b) => b.type === "tool_use")
      expect(uses).toHaveLength(7)
      expect(uses.filter((b) => b.type === "tool_use" && b.isError === true).map((b) => (b as { id: string }).id)).toEqual(["toolu_01SiRKtrfnIqbLjueYhzUpQf"])
      expect(t.parseWarnings).toEqual([])
    }))
})

describe("EXPECTED.md S2: current-layout subagent", () => {
  it.effect("summary: id, cwd, branch, version, slug, title, times (queue-operation not counted), 1 turn, models, 4 calls (1 + 3) / 1 error", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S2)
      expect([s.cwd, s.gitBranch, s.version, s.slug]).toEqual(["/home/alice/code/billing-api", "feature/csv-export", "2.1.14", "quiet-mapping-heron"])
      expect(s.title).toBe("Where is the CSV export, and does it escape commas in customer names?")
      expect([s.startedAt, s.updatedAt]).toEqual(["2026-01-14T15:02:11.019Z", "2026-01-14T15:02:33.260Z"])
      expect(s.promptCount).toBe(1)
      expect([s.model, s.subagentModels]).toEqual(["claude-sonnet-4-5-20250929", ["claude-haiku-4-5-20251001"]])
      expect(s.toolCalls).toEqual({ main: 1, sidechain: 0, subagents: 3 })
      expect(s.toolErrorCount).toBe(1)
      expect(s.parseWarnings).toEqual([])
      expect(s.subagents).toEqual([{
        agentId: "a7c3e9f1b2d4068e5",
        sessionId: "agent-a7c3e9f1b2d4068e5",
        agentType: "Explore",
        description: "Survey CSV export code",
        toolUseId: "toolu_01eHAkvbUxoE47t9hQusK3Bl"
      }])
    }))

  it.effect("tokens: main 6/259/34924/10018 + subagent 12/374/13214/5413 = 18/633/48138/15431 (not 24/644/60942/28759, not output 382)", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S2)
      expect(tokens(s.tokensByPart.main)).toEqual([6, 259, 34924, 10018])
      expect(tokens(s.tokensByPart.subagents)).toEqual([12, 374, 13214, 5413])
      expect(tokens(s.tokens)).toEqual([18, 633, 48138, 15431])
      expect(tokens(s.tokens)).not.toEqual([24, 644, 60942, 28759])
      expect(s.tokens.output).not.toBe(382)
      expect(tokens(usageOfEvents(yield* streamAll(S.S2)))).toEqual([18, 633, 48138, 15431])
    }))

  it.effect("the subagent is its own session agent-<id>, linked to the parent's Task call; its calls, lines and error", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(S.S2)
      const sub = events.filter((e) => e.sessionId === "agent-a7c3e9f1b2d4068e5")
      expect(sub.length).toBeGreaterThan(0)
      for (const e of sub) {
        expect(nat(e).parent).toMatchObject({ sessionId: S.S2, toolCallId: "toolu_01eHAkvbUxoE47t9hQusK3Bl", agentId: "a7c3e9f1b2d4068e5" })
        expect(e.parent).toEqual({ sessionId: S.S2, toolCallId: "toolu_01eHAkvbUxoE47t9hQusK3Bl", eventId: null, subagentId: "a7c3e9f1b2d4068e5" })
        expect(nat(e).isSidechain).toBe(true)
      }
      expect(new Set(sub.map((e) => e.sourceId)).size).toBe(1)
      expect(sub[0].sourceId).not.toBe(events[0].sourceId)
      expect(toolTable(events, S.S2)).toEqual([[4, "toolu_01eHAkvbUxoE47t9hQusK3Bl", "Task", 5, false]])
      const task = events.find((e) => e.toolCallId === "toolu_01eHAkvbUxoE47t9hQusK3Bl" && e.kind === "tool-call")!
      expect(nat(task).input).toMatchObject({ subagent_type: "Explore", description: "Survey CSV export code" })
      expect(task.toolInput).toEqual(nat(task).input)
      // The Task's result line names the subagent it ran: the typed child link.
      const taskResult = events.find((e) => e.toolCallId === "toolu_01eHAkvbUxoE47t9hQusK3Bl" && e.kind === "tool-result")!
      expect(taskResult.child).toEqual({ sessionId: "agent-a7c3e9f1b2d4068e5", subagentId: "a7c3e9f1b2d4068e5" })
      expect(events.filter((e) => e.sessionId === S.S2).every((e) => e.parent === null)).toBe(true)
      expect(toolTable(sub)).toEqual([
        [3, "toolu_01GXrTN2rI0YfhuwMS6kXWwP", "Grep", 4, false],
        [5, "toolu_01EnAnRFOSoVBfXF8AHJa0qW", "Read", 6, false],
        [7, "toolu_01zUKXo28cxVHbdHyhe83KeA", "Bash", 8, true]
      ])
      // The subagent's first line is its prompt (the Task's input.prompt), a user message of its own session.
      expect(sub[0].kind).toBe("message")
      expect(sub[0].text).toBe(nat(task).input.prompt)
      expect([sub[0].occurredAt, sub[sub.length - 1].occurredAt]).toEqual(["2026-01-14T15:02:16.240Z", "2026-01-14T15:02:28.905Z"])
      expect(sub.find((e) => e.model !== null)!.model).toBe("claude-haiku-4-5-20251001")
    }))

  it.effect("transcript: one user turn (the subagent's prompt is not one), the Task call with its result", () =>
    Effect.gen(function*() {
      const t = yield* transcript(S.S2)
      expect(t.turns.filter((x) => x.role === "user")).toHaveLength(1)
      const uses = t.turns.flatMap((x) => x.blocks).filter((b) => b.type === "tool_use")
      expect(uses.map((b) => (b as { name: string }).name)).toEqual(["Task"])
      expect([t.startedAt, t.endedAt]).toEqual(["2026-01-14T15:02:11.019Z", "2026-01-14T15:02:33.260Z"])
    }))
})

describe("EXPECTED.md S3: older version, inline sidechain", () => {
  it.effect("summary: id, cwd, branch, title, times, 1 turn, model, calls 2 main + 1 sidechain, tokens with costUSD", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S3)
      expect([s.cwd, s.gitBranch, s.version]).toEqual(["/home/alice/code/billing-api", "main", "1.0.51"])
      expect(s.title).toBe("Rename the cust_id column to customer_id in every migration.")
      expect([s.startedAt, s.updatedAt]).toEqual(["2025-07-08T10:21:45.310Z", "2025-07-08T10:22:02.736Z"])
      expect(s.promptCount).toBe(1)
      expect(s.model).toBe("claude-sonnet-4-20250514")
      expect(s.toolCalls).toEqual({ main: 2, sidechain: 1, subagents: 0 })
      expect(s.toolErrorCount).toBe(0)
      expect(tokens(s.tokensByPart.main)).toEqual([12, 271, 43968, 1530])
      expect(tokens(s.tokensByPart.sidechain)).toEqual([8, 129, 22341, 0])
      expect(tokens(s.tokens)).toEqual([20, 400, 66309, 1530])
      expect(s.tokens.costUSD).toBeCloseTo(0.03169, 9)
      expect(s.tokensByPart.main.costUSD).toBeCloseTo(0.023029, 9)
      expect(s.tokensByPart.sidechain.costUSD).toBeCloseTo(0.008661, 9)
      expect(tokens(s.tokens)).not.toEqual([24, 406, 80525, 2850])
      expect(s.tokens.output).not.toBe(263)
      expect(s.tokens.costUSD).not.toBeCloseTo(0.043062, 6)
      expect(s.parseWarnings).toEqual([])
    }))

  it.effect("the inline sidechain (lines 3–6) is a session of its own linked to the Task call on line 2 by its prompt", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(S.S3)
      const side = events.filter((e) => e.sessionId !== S.S3)
      expect(side.map((e) => e.rawReference.sequence)).toEqual([3, 4, 5, 6])
      expect(new Set(side.map((e) => e.sessionId)).size).toBe(1)
      expect(side[0].sessionId).toMatch(/^sidechain-/)
      for (const e of side) expect(nat(e).parent).toMatchObject({ sessionId: S.S3, toolCallId: "toolu_01yZCOKYoBMZIHNsja62NPlK" })
      expect(side[0].text).toBe("List every file under db/migrations that mentions cust_id, with the line numbers. Do not change anything.")
      expect(toolTable(events, S.S3)).toEqual([
        [2, "toolu_01yZCOKYoBMZIHNsja62NPlK", "Task", 7, false],
        [9, "toolu_01CUY0VIZpP7AQvTJB1Higtp", "Bash", 10, false]
      ])
      expect(toolTable(side)).toEqual([[4, "toolu_01NL2LpDPGiUXWr5HCWJye5o", "Grep", 5, false]])
      expect(usageOfEvents(events).costUSD).toBeCloseTo(0.03169, 9)
      const t = yield* transcript(S.S3)
      expect(t.turns.filter((x) => x.role === "user")).toHaveLength(1)
    }))
})

describe("EXPECTED.md S4: compaction", () => {
  it.effect("summary: cwd, branch, version, title, times, 3 turns (the compact summary is none), 4 calls, tokens 19/657/112816/22302", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S4)
      expect([s.cwd, s.gitBranch, s.version]).toEqual(["/home/alice/code/billing-api", "feature/fastapi-webhooks", "2.0.76"])
      expect(s.title).toBe("Migrate the payment webhooks from Flask to FastAPI.")
      expect([s.startedAt, s.updatedAt]).toEqual(["2025-12-10T13:40:12.561Z", "2025-12-10T14:05:27.302Z"])
      expect(s.promptCount).toBe(3)
      expect(s.compactionCount).toBe(1)
      expect(s.model).toBe("claude-sonnet-4-5-20250929")
      expect([s.toolCallCount, s.toolErrorCount]).toEqual([4, 0])
      expect(tokens(s.tokens)).toEqual([19, 657, 112816, 22302])
      expect(tokens(s.tokens)).not.toEqual([22, 667, 112816, 36512])
      expect(s.tokens.output).not.toBe(434)
    }))

  it.effect("stream and transcript: the compaction (id, trigger, time, preTokens), user turns on lines 1, 5, 15, tool calls", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(S.S4)
      const c = events.filter((e) => e.kind === "summary")
      expect(c).toHaveLength(1)
      expect(c[0].rawReference.sequence).toBe(9)
      expect(nat(c[0])).toMatchObject({ compactionId: "9f5c5a53-032e-4657-87e2-44ab229e2dcc", trigger: "auto", preTokens: 167342, logicalParentUuid: "577360fd-28cb-477f-bd7d-c8509d47c9d8" })
      expect(c[0].compaction).toEqual({ id: "9f5c5a53-032e-4657-87e2-44ab229e2dcc", trigger: "auto" })
      // line 10, the compaction's summary (isCompactSummary): one meta event (searchable, not a turn) naming its boundary
      const summary = events.filter((e) => e.rawReference.sequence === 10)
      expect(summary.map((e) => [e.kind, e.role])).toEqual([["meta", "user"]])
      expect(summary[0].text).toMatch(/^This session is being continued from a previous conversation that ran out of context\./)
      expect(nat(summary[0])).toMatchObject({ isCompactSummary: true, compactionId: "9f5c5a53-032e-4657-87e2-44ab229e2dcc" })
      expect(events.filter((e) => e.kind === "message" && e.role === "user").map((e) => e.rawReference.sequence)).toEqual([1, 5, 15])
      expect(toolTable(events)).toEqual([
        [2, "toolu_01PZfsd0vWbAikoDfyTc4CDA", "Bash", 3, false],
        [6, "toolu_017qzajQEqYamGRCjMsi10rx", "Write", 7, false],
        [12, "toolu_015ow69DOZMb2iDdllVnUGee", "Edit", 13, false],
        [16, "toolu_01PVwVahD0hJGRLA9Mf5IyZP", "Bash", 17, false]
      ])
      const t = yield* transcript(S.S4)
      expect(t.compactions).toEqual([{ id: "9f5c5a53-032e-4657-87e2-44ab229e2dcc", trigger: "auto", timestamp: "2025-12-10T14:02:37.219Z" }])
      expect(t.turns.filter((x) => x.role === "user").map((x) => (x.blocks[0] as { text: string }).text)).toEqual([
        "Migrate the payment webhooks from Flask to FastAPI.",
        "Go ahead with step 1.",
        "Run the webhook tests too."
      ])
    }))
})

describe("EXPECTED.md S5: malformed and non-object lines", () => {
  it.effect("parse warnings malformed-json @5 and non-object @6 (blank line 7 none); the orphan summary is not the title; tokens 6/156/50300/7469", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S5)
      expect(s.parseWarnings).toEqual([{ kind: "malformed-json", count: 1, firstLine: 5 }, { kind: "non-object", count: 1, firstLine: 6 }])
      expect(s.parseWarningCount).toBe(2)
      expect(s.title).toBe("Bump requests to 2.32 and run the tests.")
      expect(s.title).not.toBe("Set up pre-commit hooks")
      expect([s.cwd, s.gitBranch, s.version]).toEqual(["/home/alice/code/billing-api", "chore/bump-requests", "2.1.14"])
      expect([s.startedAt, s.updatedAt]).toEqual(["2026-01-15T08:30:04.775Z", "2026-01-15T08:30:24.880Z"])
      expect(s.promptCount).toBe(1)
      expect(s.model).toBe("claude-sonnet-4-5-20250929")
      expect(tokens(s.tokens)).toEqual([6, 156, 50300, 7469])
      const events = yield* streamAll(S.S5)
      expect(toolTable(events)).toEqual([
        [3, "toolu_01PHHrMqooK9xyWoLGc3J0YZ", "Bash", 4, false],
        [8, "toolu_01kfaB1iPhkergVYVbqQl1pF", "Bash", 9, false]
      ])
      expect(events.some((e) => [5, 6, 7].includes(e.rawReference.sequence!))).toBe(false)
      const t = yield* transcript(S.S5)
      expect(t.parseWarnings).toEqual(s.parseWarnings)
      const i = yield* withAdapter(FIXTURE_ROOT, (a) => a.inspect(locatorOf(S.S5)))
      expect(i.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details)).toEqual([
        { kind: "malformed-json", count: 1, firstLine: 5 },
        { kind: "non-object", count: 1, firstLine: 6 }
      ])
    }))
})

describe("EXPECTED.md S6: second project", () => {
  it.effect("cwd from the records (not decoded from the folder), title, times, 1 turn (meta and command lines are not), Opus, 3 calls / 1 error, tokens", () =>
    Effect.gen(function*() {
      const s = summaryOf((yield* discover).sources, S.S6)
      expect(s.cwd).toBe("/home/alice/src/web_app.v2")
      expect([s.gitBranch, s.version, s.slug]).toEqual(["main", "2.1.14", "amber-tilting-crane"])
      expect(s.title).toBe("The header logo overflows on narrow screens (screenshot). Can you fix the CSS?")
      expect([s.startedAt, s.updatedAt]).toEqual(["2026-01-20T17:05:30.117Z", "2026-01-20T17:06:23.018Z"])
      expect(s.promptCount).toBe(1)
      expect(s.model).toBe("claude-opus-4-5-20251101")
      expect([s.toolCallCount, s.toolErrorCount]).toEqual([3, 1])
      expect(tokens(s.tokens)).toEqual([13, 413, 81818, 10035])
      expect(tokens(s.tokens)).not.toEqual([24, 609, 117656, 19358])
      expect(s.tokens.output).not.toBe(331)
      expect(s.parseWarnings).toEqual([])
    }))

  it.effect("stream: lines 1–3 are meta, line 4 text + image, line 5 signed thinking, the three calls; line 14 yields nothing", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(S.S6)
      expect(events.filter((e) => e.rawReference.sequence! <= 3).map((e) => e.kind)).toEqual(["meta", "meta", "meta"])
      const prompt = events.filter((e) => e.rawReference.sequence === 4)
      expect(prompt.map((e) => [e.kind, e.role])).toEqual([["message", "user"]])
      expect(nat(prompt[0]).images).toEqual([{ mediaType: "image/png" }])
      expect(events.filter((e) => e.rawReference.sequence === 5).map((e) => [e.kind, nat(e).signed])).toEqual([["thinking", true]])
      expect(toolTable(events)).toEqual([
        [6, "toolu_01sx8DNr7InasCMagt0gz9HO", "Read", 7, false],
        [9, "toolu_01kpX34Skp5x9tuIZ81aXO38", "Edit", 10, false],
        [11, "toolu_013xaYArTTO43aQiXN20TyTk", "Bash", 12, true]
      ])
      expect(events.some((e) => e.rawReference.sequence === 14)).toBe(false)
      const t = yield* transcript(S.S6)
      expect(t.turns.filter((x) => x.role === "user")).toHaveLength(1)
      expect(t.model).toBe("claude-opus-4-5-20251101")
    }))
})
