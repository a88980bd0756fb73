/**
 * Token counts that are not non-negative safe integers (`1e308`, `-5`, `1.5`,
 * a string) and stated costs that are not finite non-negative numbers: the
 * usage of that record is dropped, counted as a `usage-not-valid` parse
 * warning, and its event kept — for Claude Code and AgentMux, through the
 * library and the CLI. A cost that overflows (stated costs near
 * Number.MAX_VALUE) is unknown: JSON null, `?` for people, never `$Infinity`.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { TokenUsage } from "../src/domain/model.js"
import { classifyLine, type Entry } from "../src/domain/claude-code/records.js"
import { bundledPrices } from "../src/domain/prices.js"
import { humanUsd } from "../src/domain/render.js"
import { groupRows, statedCostOf, summarizeGroups, tokenCountOf, USAGE_NOT_VALID, type UsageRow } from "../src/domain/usage.js"
import { planFromPolicy } from "../src/layers/index/importer.js"
import { usageBySession } from "../src/layers/index/queries.js"
import * as IndexSqlite from "../src/layers/index/sqlite.js"
import { Index } from "../src/services/Index.js"
import { layout } from "./agentmux/fixture.js"
import { createStore, tsidxRecord } from "./agentmux/store-helper.js"
import { importOnce } from "./support/index.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const BAD_COUNTS: ReadonlyArray<unknown> = [1e308, -5, 1.5, "12", Number.MAX_SAFE_INTEGER + 1, true, {}, [3]]
const j = (v: unknown) => JSON.stringify(v)

describe("token counts and stated costs: what is valid", () => {
  it("a count is a non-negative safe integer (absent: null); a stated cost a finite non-negative number", () => {
    for (const v of BAD_COUNTS) expect(tokenCountOf(v), String(v)).toBeUndefined()
    for (const v of [0, 1, 250_000, Number.MAX_SAFE_INTEGER]) expect(tokenCountOf(v)).toBe(v)
    expect(tokenCountOf(undefined)).toBeNull()
    expect(tokenCountOf(null)).toBeNull()
    for (const v of [-0.01, Infinity, Number.NaN, "0.1", {}]) expect(statedCostOf(v), String(v)).toBeUndefined()
    expect(statedCostOf(0.25)).toBe(0.25)
    expect(statedCostOf(null)).toBeNull()
  })

  it("the model refuses what tokenCountOf refuses: TokenUsage's counts are non-negative safe integers or null", () => {
    const usage = (v: unknown) => ({ inputTokens: 1, outputTokens: v, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null })
    for (const v of BAD_COUNTS) expect(Schema.is(TokenUsage)(usage(v)), String(v)).toBe(false)
    for (const v of [0, 1, 250_000, Number.MAX_SAFE_INTEGER, null]) expect(Schema.is(TokenUsage)(usage(v)), String(v)).toBe(true)
  })

  it("a cost that overflows is unknown (null), and people see `?`, never $Infinity", () => {
    const row = (k: number): UsageRow => ({
      sourceId: "s", sessionId: "x", key: `e:${k}`, kind: "response", provider: "claude-code", eventId: `${k}`, sequence: k,
      occurredAt: null, model: "claude-sonnet-4-5", usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null },
      costUsd: 1.7e308, runSeq: null
    })
    const total = summarizeGroups(groupRows([row(1), row(2)], () => null), bundledPrices).get(null)!
    expect(total.costUsd).toBeNull()
    expect(total.inputTokens).toBe(2)
    expect(humanUsd(Infinity)).toBe("?")
    expect(humanUsd(Number.NaN)).toBe("?")
    expect(humanUsd(0.023)).toBe("$0.0230")
  })
})

// ---------------------------------------------------------------- Claude Code

const SID = "11111111-2222-4333-8444-555555555555"
const OVER = "22222222-2222-4333-8444-555555555555"
const base = (sid: string) => ({ isSidechain: false, cwd: "/tmp/x", sessionId: sid, version: "2.1.14" })
const ccUser = (sid: string, uuid: string, text: string) =>
  j({ ...base(sid), parentUuid: null, type: "user", message: { role: "user", content: text }, uuid, timestamp: "2026-01-15T08:30:04.775Z" })
const ccAsst = (sid: string, uuid: string, id: string, usage: unknown, extra: Record<string, unknown> = {}) =>
  j({
    ...base(sid), parentUuid: null, type: "assistant", requestId: `req-${id}`, uuid, timestamp: "2026-01-15T08:30:05.775Z",
    message: { model: "claude-sonnet-4-5-20250929", id, type: "message", role: "assistant", content: [{ type: "text", text: `answer ${id}` }], usage },
    ...extra
  })

describe("Claude Code: a line whose usage is not valid keeps its event, without usage, and is counted", () => {
  it("classifyLine drops the usage of every kind of bad count or cost; a good line keeps its usage", () => {
    const classify = (text: string) => classifyLine({ text, lineNumber: 1, terminated: true }, 64) as Entry
    for (const field of ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]) {
      for (const bad of BAD_COUNTS) {
        const e = classify(ccAsst(SID, "a", "m", { input_tokens: 3, output_tokens: 4, [field]: bad }))
        expect(e._tag, `${field}=${j(bad)}`).toBe("Entry")
        expect(e.usage, `${field}=${j(bad)}`).toBeNull()
        expect(e.usageNotValid).toBe(true)
        expect(e.blocks).toEqual([{ type: "text", text: "answer m" }])
      }
    }
    for (const cost of [-1, "0.5", 1e400 /* JSON: Infinity is not JSON, 1e400 parses as Infinity */]) {
      const text = ccAsst(SID, "a", "m", { input_tokens: 3 }, { costUSD: 0 }).replace(`"costUSD":0`, `"costUSD":${cost === 1e400 ? "1e400" : j(cost)}`)
      const e = classify(text)
      expect(e.usage, String(cost)).toBeNull()
      expect(e.usageNotValid).toBe(true)
    }
    const good = classify(ccAsst(SID, "a", "m", { input_tokens: 3, output_tokens: 4 }))
    expect(good.usage).toMatchObject({ inputTokens: 3, outputTokens: 4, cacheReadTokens: null })
    expect(good.usageNotValid).toBe(false)
  })

  const project = () => {
    const root = nodePath.join(tempDir("si-usage-bad-"), "projects")
    fs.mkdirSync(nodePath.join(root, "-tmp-x"), { recursive: true })
    fs.writeFileSync(nodePath.join(root, "-tmp-x", `${SID}.jsonl`), [
      ccUser(SID, "u1", "hi"),
      ccAsst(SID, "a1", "msg_1", { input_tokens: 1e308, output_tokens: -5 }),
      ccAsst(SID, "a2", "msg_2", { input_tokens: 10, output_tokens: 20 }),
      ccAsst(SID, "a3", "msg_3", { input_tokens: 7, output_tokens: 2.5 })
    ].join("\n") + "\n")
    // Two stated costs near Number.MAX_VALUE: each finite, their sum is not.
    fs.writeFileSync(nodePath.join(root, "-tmp-x", `${OVER}.jsonl`), [
      ccUser(OVER, "u1", "hi"),
      ccAsst(OVER, "a1", "msg_1", { input_tokens: 1, output_tokens: 1 }, { costUSD: 1.7e308 }),
      ccAsst(OVER, "a2", "msg_2", { input_tokens: 1, output_tokens: 1 }, { costUSD: 1.7e308 })
    ].join("\n") + "\n")
    return root
  }

  it("the CLI: import counts usage-not-valid; sessions, usage and show agree, with no absurd number, no negative count, no $Infinity", () => {
    const root = project()
    const index = nodePath.join(nodePath.dirname(root), "idx.db")
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") }
    const run = (...args: Array<string>) => cli(args, { env })
    const json = (...args: Array<string>) => JSON.parse(run(...args, "--json").stdout) as { status: string; data: any }
    const imported = json("import", "--claude-root", root, "--agents-root", root, "--index", index)
    expect(imported.status).toBe("ok")
    expect(imported.data.parseWarnings.byKind[USAGE_NOT_VALID]).toBe(2)

    const sessions = json("sessions", "--index", index).data as Array<any>
    const bad = sessions.find((s) => s.sessionId === SID)
    expect(bad.usage).toEqual({ inputTokens: 10, outputTokens: 20, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null, costUsd: expect.any(Number) })
    const over = sessions.find((s) => s.sessionId === OVER)
    expect(over.usage.costUsd).toBeNull()
    // The events are kept: the session still has its four (one user, three assistant).
    const shown = json("show", SID, "--index", index)
    expect(shown.data.session.usage).toMatchObject({ inputTokens: 10, outputTokens: 20 })
    expect(shown.data.events.map((e: any) => [e.kind, e.usage?.inputTokens ?? null])).toEqual([["message", null], ["message", null], ["message", 10], ["message", null]])

    const usageJson = json("usage", "--by", "session", "--index", index).data
    const overRow = usageJson.rows.find((r: any) => r.key === OVER || String(r.key).includes(OVER))
    expect(overRow.costUsd).toBeNull()
    expect(usageJson.total.costUsd).toBeNull()
    expect(usageJson.total.inputTokens).toBe(12)

    const human = [
      run("sessions", "--index", index).stdout,
      run("usage", "--by", "session", "--index", index).stdout,
      run("show", SID, "--format", "transcript", "--index", index).stdout,
      run("show", OVER, "--format", "transcript", "--index", index).stdout
    ].join("\n")
    expect(human).not.toMatch(/Infinity|NaN|\d{20}|-5 out|-5\b/)
    // The human output's unknown marker where JSON says null.
    const usageText = run("usage", "--by", "session", "--index", index).stdout
    expect(usageText.split("\n").find((l) => l.startsWith("total"))).toMatch(/\?$/)
    expect(run("show", OVER, "--format", "transcript", "--index", index).stdout).toMatch(/cost unknown/)
  })
})

// ---------------------------------------------------------------- AgentMux

const U = (i: unknown, o: unknown) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
const amInit = (sid: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/x", session_id: sid, model: "claude-sonnet-4-5", tools: [] })
const amUser = (sid: string, text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: sid })
const amAsst = (sid: string, id: string, u: unknown) =>
  j({ type: "assistant", message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: `answer ${id}` }], usage: u }, session_id: sid })
const amResult = (sid: string, cost: unknown, u: unknown) =>
  j({ type: "result", subtype: "success", is_error: false, duration_ms: 1000, num_turns: 1, result: "ok", total_cost_usd: cost, usage: u, session_id: sid })

const amStore = (texts: ReadonlyArray<string>) => {
  const dir = tempDir("si-am-usage-bad-")
  const store = nodePath.join(dir, "filestore.db")
  const laid = layout(texts)
  const tsidx = laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1, 12) + i)).join("")
  createStore(store, [
    { zoneId: "agent:u1:current", name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ])
  fs.mkdirSync(nodePath.join(dir, "agents", "nobody"), { recursive: true })
  const policy = { workspaceRoots: [], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), agentmuxStore: store, stateFile: nodePath.join(dir, "state.db") }
  return { dir, store, policy, index: nodePath.join(dir, "index.db") }
}

const AM_LINES = [
  amInit("S-B"),
  amUser("S-B", "go"),
  amAsst("S-B", "msg_1", U(1e308, -5)),
  amAsst("S-B", "msg_2", U(5, 7)),
  amAsst("S-B", "msg_3", U(2, 1.5)),
  // A run whose stated cost is not valid: its usage and cost are dropped (the responses' tokens still count, priced).
  amResult("S-B", -3, U(8, 47)),
  amInit("S-C"),
  amUser("S-C", "go"),
  amAsst("S-C", "msg_4", U(1, 1)),
  amResult("S-C", 0.5, U("1", 1))
]

describe("AgentMux: a line whose usage is not valid keeps its events, without usage, and is counted", () => {
  it.effect("the library (import into an index): the valid responses' tokens only; a run's cost that is not valid is dropped", () =>
    Effect.gen(function*() {
      const a = amStore(AM_LINES)
      const report = yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { agents: ["u1"] }))
      expect(report.sources.accepted).toBe(2)
      const usage = yield* Effect.gen(function*() {
        const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
        const byUid = yield* usageBySession(bundledPrices)
        return new Map(sessions.map((s) => [s.sessionId, { usage: byUid.get(s.sessionUid) ?? null, events: s.eventCount }] as const))
      }).pipe(Effect.provide(IndexSqlite.layerReadonly(a.index)))
      const b = usage.get("S-B")!
      expect(b.usage).toMatchObject({ inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, responses: 1 })
      expect(b.usage!.costUsd).toBeCloseTo(5 * 3e-6 + 7 * 15e-6, 12)
      // S-C's result keeps neither its usage nor its stated cost: its response is priced from the table.
      expect(usage.get("S-C")!.usage).toMatchObject({ inputTokens: 1, outputTokens: 1, responses: 1 })
      expect(usage.get("S-C")!.usage!.costUsd).toBeCloseTo(3e-6 + 15e-6, 12)
    }))

  it("the CLI: stream keeps every event (the bad lines' without usage); transcript --json counts usage-not-valid", () => {
    const a = amStore(AM_LINES)
    const state = nodePath.join(a.dir, "state", "state.db")
    const run = (...args: Array<string>) => cli(args, { env: { NO_COLOR: "1" } })
    const stream = run("stream", "agentmux", "--agent", "u1", "--session", "S-B", "--store", a.store, "--state", state, "--json")
    expect(stream.code).toBe(0)
    const events = stream.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.kind !== undefined)
    const answers = events.filter((e) => e.kind === "message" && e.role === "assistant")
    expect(answers.map((e) => [e.text, e.usage])).toEqual([
      ["answer msg_1", null],
      ["answer msg_2", { inputTokens: 5, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: null }],
      ["answer msg_3", null]
    ])
    const result = events.find((e) => e.kind === "result")
    expect(result).toMatchObject({ usage: null, costUsd: null })
    const t = JSON.parse(run("transcript", "agentmux", "--agent", "u1", "--session", "S-B", "--store", a.store, "--state", state, "--json").stdout)
    expect(t.data.parseWarnings).toContainEqual({ kind: USAGE_NOT_VALID, count: 3, firstLine: 3 })
  })
})

describe("costs for people below a cent keep their significant digits", () => {
  it("100 in + 50 out on Sonnet 4.5 ($3 / $15 per M) is $0.00105, not $0.0010; larger costs keep 4 decimals (2 from $100)", () => {
    expect(humanUsd((100 * 3 + 50 * 15) / 1e6)).toBe("$0.00105")
    expect(humanUsd(0.000003)).toBe("$0.000003")
    expect(humanUsd(0.0012346)).toBe("$0.001235")
    expect(humanUsd(0.005)).toBe("$0.0050")
    expect(humanUsd(0)).toBe("$0.0000")
    expect(humanUsd(0.023)).toBe("$0.0230")
    expect(humanUsd(1.95)).toBe("$1.9500")
    expect(humanUsd(123.456)).toBe("$123.46")
  })
})
