/**
 * A Claude run that AgentMux drove is in two records: AgentMux's (Claude's
 * stream-json, seed 002: the store mirrors "every agent's provider output";
 * no `requestId` there) and Claude Code's own log of the same session id and
 * message ids. Its responses count once (README "Tokens and cost": each
 * response once; "Copies of a response"), in the Claude Code session, whose
 * own usage and price count; the AgentMux session says where
 * (`countedElsewhere`), and its run's stated cost, which covers the same
 * responses, is not added. Without the Claude Code log the AgentMux session
 * counts, with its run's stated cost. The same on SQLite, PostgreSQL and an
 * index from before the usage table, whatever the import order. (tester19
 * F6: `usage --by provider` gave agentmux $0.0460 + claude-code $0.0460 for
 * one $0.0460 run.)
 *
 * By hand, claude-sonnet-4-5 at $3 in, $15 out, $0.30 cache read, $3.75
 * cache write per million tokens (data/prices.json):
 *   msg_a 10 in, 400 out, 30,000 read, 2,000 write: 30 + 6,000 + 9,000 + 7,500 = 22,530 µ$
 *   msg_b 12 in, 800 out, 32,000 read,   500 write: 36 + 12,000 + 9,600 + 1,875 = 23,511 µ$
 *   S1: 22 in, 1,200 out, 62,000 read, 2,500 write, 2 responses, $0.046041
 *   S2 (AgentMux only): msg_c 1 in, 10 out, its run's stated $0.02
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageBySession, usageElsewhereBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { layout } from "../agentmux/fixture.js"
import { createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { importOnce, indexLayer } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"
import { cli } from "../support/run.js"

const S1 = "6a6a6a6a-0000-4000-8000-000000000006"
const S2 = "7b7b7b7b-0000-4000-8000-000000000007"
const MODEL = "claude-sonnet-4-5-20250929"
const CWD = "/home/dev/x"

const j = (v: unknown) => JSON.stringify(v)
const U = (i: number, o: number, r: number, w: number) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: r, cache_creation_input_tokens: w })
const A = U(10, 400, 30000, 2000)
const B = U(12, 800, 32000, 500)

/** Claude's stream-json as AgentMux keeps it: msg_a streamed in two lines (the first with its usage so far), msg_b, the run's result. */
const mirrored = [
  j({ type: "system", subtype: "init", cwd: CWD, session_id: S1, model: MODEL, tools: [] }),
  j({ type: "user", message: { role: "user", content: "refactor the parser" }, session_id: S1 }),
  j({ type: "assistant", message: { id: "msg_a", type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: "step" }], usage: U(10, 3, 30000, 2000) }, session_id: S1 }),
  j({ type: "assistant", message: { id: "msg_a", type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: "step one" }], usage: A }, session_id: S1 }),
  j({ type: "assistant", message: { id: "msg_b", type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: "step two" }], usage: B }, session_id: S1 }),
  j({ type: "result", subtype: "success", is_error: false, duration_ms: 9000, num_turns: 2, result: "ok", total_cost_usd: 0.5, usage: U(22, 1200, 62000, 2500), session_id: S1 }),
  j({ type: "system", subtype: "init", cwd: CWD, session_id: S2, model: MODEL, tools: [] }),
  j({ type: "user", message: { role: "user", content: "and the tests?" }, session_id: S2 }),
  j({ type: "assistant", message: { id: "msg_c", type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: "they run" }], usage: U(1, 10, 0, 0) }, session_id: S2 }),
  j({ type: "result", subtype: "success", is_error: false, duration_ms: 1000, num_turns: 1, result: "ok", total_cost_usd: 0.02, usage: U(1, 10, 0, 0), session_id: S2 })
]

/** Claude Code's own log of S1: the same message ids, each with its `requestId`. */
const ownLog = [
  { type: "user", sessionId: S1, uuid: "u1", parentUuid: null, timestamp: "2026-11-01T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "refactor the parser" } },
  {
    type: "assistant", sessionId: S1, uuid: "a1", parentUuid: "u1", timestamp: "2026-11-01T10:00:01.000Z", cwd: CWD, requestId: "req_a",
    message: { id: "msg_a", role: "assistant", model: MODEL, content: [{ type: "text", text: "step one" }], usage: A }
  },
  {
    type: "assistant", sessionId: S1, uuid: "a2", parentUuid: "a1", timestamp: "2026-11-01T10:00:02.000Z", cwd: CWD, requestId: "req_b",
    message: { id: "msg_b", role: "assistant", model: MODEL, content: [{ type: "text", text: "step two" }], usage: B }
  }
]

/** `agents`: the agents whose zones hold the run (a second one: a copy of the same run in the store). */
const corpus = (agents: ReadonlyArray<string> = ["u1"]) => {
  const dir = tempDir("si-am-mirror-")
  const store = path.join(dir, "filestore.db")
  const laid = layout(mirrored)
  createStore(store, agents.flatMap((agent) => [
    { zoneId: `agent:${agent}:current`, name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: `agent:${agent}:current`, name: "output.tsidx", bytes: Buffer.from(laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 10, 1, 10, 0, i))).join("")) }
  ]))
  const root = path.join(dir, "projects")
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  const logFolder = path.join(root, "-home-dev-x")
  const writeLog = () => {
    fs.mkdirSync(logFolder, { recursive: true })
    fs.writeFileSync(path.join(logFolder, `${S1}.jsonl`), ownLog.map((r) => j(r) + "\n").join(""))
  }
  fs.mkdirSync(root, { recursive: true })
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root, agentmuxStore: store, stateFile: path.join(dir, "state.db") }
  const importAll = (index: string) => importOnce(policy, index, planFromPolicy(policy, { agents: [...agents], batchSize: 500 }))
  return { dir, root, writeLog, importAll }
}

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.responses]
const cents = (x: number | null | undefined) => x == null ? null : Math.round(x * 1e9) / 1e9

/** Every session's usage and where its copies count, by `<provider> <session id>`; the total; the report by provider. */
const attribution = (index: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const used = yield* usageBySession(bundledPrices)
    const elsewhere = yield* usageElsewhereBySession()
    const nameOf = new Map(sessions.map((s) => [s.sessionUid, `${s.provider} ${s.sessionId}`]))
    const out: Record<string, unknown> = {}
    for (const s of sessions) {
      out[nameOf.get(s.sessionUid)!] = {
        tokens: tokens(used.get(s.sessionUid)),
        cost: cents(used.get(s.sessionUid)?.costUsd),
        elsewhere: (elsewhere.get(s.sessionUid) ?? []).map((e) => ({ in: nameOf.get(e.sessionUid), provider: e.provider, sessionId: e.sessionId, responses: e.responses }))
      }
    }
    const report = yield* usageReport({ by: "provider" }, bundledPrices)
    const t = report.total
    return {
      sessions: out,
      total: [t.inputTokens, t.outputTokens, t.cacheReadTokens, t.cacheWriteTokens, t.responses, cents(t.costUsd)],
      byProvider: report.rows.map((r) => [r.key, r.responses, cents(r.costUsd)])
    }
  }).pipe(Effect.provide(indexLayer(index)))

const BOTH = {
  sessions: {
    [`claude-code ${S1}`]: { tokens: [22, 1200, 62000, 2500, 2], cost: 0.046041, elsewhere: [] },
    [`agentmux ${S1}`]: { tokens: null, cost: null, elsewhere: [{ in: `claude-code ${S1}`, provider: "claude-code", sessionId: S1, responses: 2 }] },
    [`agentmux ${S2}`]: { tokens: [1, 10, 0, 0, 1], cost: 0.02, elsewhere: [] }
  },
  total: [23, 1210, 62000, 2500, 3, 0.066041],
  byProvider: [["agentmux", 1, 0.02], ["claude-code", 2, 0.046041]]
}

describe.each(engines)("a Claude run in AgentMux's record and in Claude Code's log ($engine)", ({ newIndex }) => {
  it.effect("counts once, in the Claude Code session; the AgentMux copy says where; whatever the import order", () =>
    Effect.gen(function*() {
      for (const order of ["AgentMux first", "Claude Code first", "both in one run"] as const) {
        const c = corpus()
        const index = yield* newIndex(c.dir)
        if (order === "both in one run") {
          c.writeLog()
          yield* c.importAll(index)
        } else if (order === "AgentMux first") {
          yield* c.importAll(index)
          c.writeLog()
          yield* c.importAll(index)
        } else {
          c.writeLog()
          const agentmuxAway = path.join(c.dir, "filestore.db")
          fs.renameSync(agentmuxAway, agentmuxAway + ".away")
          yield* importOnce(
            { workspaceRoots: [c.dir], museRoots: [], agentsRoot: path.join(c.dir, "agents"), claudeRoot: c.root },
            index,
            planFromPolicy({ workspaceRoots: [c.dir], museRoots: [], agentsRoot: path.join(c.dir, "agents"), claudeRoot: c.root }, { batchSize: 500 })
          )
          fs.renameSync(agentmuxAway + ".away", agentmuxAway)
          yield* c.importAll(index)
        }
        expect({ order, ...(yield* attribution(index)) }).toEqual({ order, ...BOTH })
      }
    }))

  it.effect("without Claude Code's log, the AgentMux session counts, with its run's stated cost", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      expect(yield* attribution(index)).toEqual({
        sessions: {
          [`agentmux ${S1}`]: { tokens: [22, 1200, 62000, 2500, 2], cost: 0.5, elsewhere: [] },
          [`agentmux ${S2}`]: { tokens: [1, 10, 0, 0, 1], cost: 0.02, elsewhere: [] }
        },
        total: [23, 1210, 62000, 2500, 3, 0.52],
        byProvider: [["agentmux", 3, 0.52]]
      })
    }))

  it.effect("the same run under two AgentMux agents, beside Claude Code's log: each response once", () =>
    Effect.gen(function*() {
      const c = corpus(["u1", "u2"])
      c.writeLog()
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      const got = yield* attribution(index)
      // (counted per agent, S2 would be 2 responses and $0.04, and S1's run $0.5 twice on top)
      expect([got.total, got.byProvider]).toEqual([BOTH.total, BOTH.byProvider])
    }))
})

describe("a Claude run in AgentMux's record and in Claude Code's log: an index from before the usage table", () => {
  it.effect("the rows derived from its events follow the same rule", () =>
    Effect.gen(function*() {
      const c = corpus()
      c.writeLog()
      const index = path.join(c.dir, "index.db")
      yield* c.importAll(index)
      expect(yield* attribution(index)).toEqual(BOTH)
      yield* toLegacyLayout(index)
      const db = new Database(index)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      expect(yield* attribution(index)).toEqual(BOTH)
    }))
})

describe("a Claude run in AgentMux's record and in Claude Code's log: the CLI", () => {
  it("usage --by provider counts it once and its note names AgentMux's record", () => {
    const c = corpus()
    c.writeLog()
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const r = cli(["usage", "--by", "provider", "--index", index], { env: { NO_COLOR: "1" } })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/\nclaude-code +22 +1,200 +62,000 +2,500 +\$0\.0460\n/)
      expect(r.stdout).toMatch(/\nagentmux +1 +10 +0 +0 +\$0\.0200\n/)
      expect(r.stdout).toMatch(/\ntotal +23 +1,210 +62,000 +2,500 +\$0\.0660\n/)
      expect(r.stdout).toContain("2 responses of 1 session counted in another session")
      // The rule the index applies (docs/usage-and-cost.md "Copies of a response"), not "where it was seen first":
      // the AgentMux record here was received before Claude Code wrote its log, and still the log counts.
      expect(r.stdout).toContain("in the Claude Code session when AgentMux also recorded that Claude Code run (Claude Code's own record)")
      expect(r.stdout).toContain("else in the session that began first")
      expect(r.stdout).not.toContain("seen first")
    })
  })

  it("sessions: the AgentMux session's note names the Claude Code session as Claude Code's own record of the run, not a copy of it", () => {
    const c = corpus()
    c.writeLog()
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const r = cli(["sessions", "--index", index], { env: { NO_COLOR: "1" } })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`* ${S1}: 2 responses counted in the Claude Code session ${S1} (Claude Code's own record of this run)`)
      expect(r.stdout).not.toContain("another copy of it")
      expect(r.stdout).not.toContain("seen first")
      const j = JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data
      const am = (j as Array<{ provider: string; sessionId: string; usage: { countedElsewhere?: Array<Record<string, unknown>> } }>)
        .find((s) => s.provider === "agentmux" && s.sessionId === S1)!
      expect(am.usage.countedElsewhere).toEqual([expect.objectContaining({ provider: "claude-code", sessionId: S1, responses: 2 })])
    })
  })
})
