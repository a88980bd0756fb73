/**
 * An AgentMux run whose responses are only partly in Claude Code's own log of
 * the same session (the log lags the stream, or was cut): a mirrored response
 * counts once, in the Claude Code session (docs/usage-and-cost.md "Copies of a
 * response"), so the run's stated `total_cost_usd`, which covers it too,
 * overlaps it: the total is set aside (a note says so) and the run's other
 * responses are priced from the table. tester27a F8: the run's stated $0.25
 * counted AND m1 again in the Claude Code session ($0.268), then $0.054 once
 * the log had m2 too.
 *
 * By hand, claude-sonnet-4-5 at $3 in, $15 out per million tokens:
 *   m1 1,000 in, 1,000 out: 3,000 + 15,000 = 18,000 µ$ = $0.018
 *   m2 2,000 in, 2,000 out: 6,000 + 30,000 = 36,000 µ$ = $0.036
 *   Claude Code's log holds m1 only: Claude Code session $0.018, AgentMux session (m2 from the table) $0.036, total $0.054
 *   Claude Code's log holds m1 and m2: Claude Code session $0.054, AgentMux session none, total $0.054
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { layout } from "../agentmux/fixture.js"
import { createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { importOnce, indexLayer } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"
import { cli } from "../support/run.js"

const S = "abababab-1111-4222-8333-444444444444"
const MODEL = "claude-sonnet-4-5"
const CWD = "/home/dev/u"
const j = (v: unknown) => JSON.stringify(v)

const amLine = (mid: string, i: number, o: number) =>
  j({ type: "assistant", message: { id: mid, type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: `t ${mid}` }], usage: { input_tokens: i, output_tokens: o } }, parent_tool_use_id: null, session_id: S, uuid: `u-${mid}` })

/** The tester's AgentMux run: init, m1, m2, a result stating $0.25. */
const stream = [
  j({ type: "user", message: { role: "user", content: "go" } }),
  j({ type: "system", subtype: "init", cwd: CWD, session_id: S, model: MODEL, uuid: "i1" }),
  amLine("m1", 1000, 1000),
  amLine("m2", 2000, 2000),
  j({ type: "result", subtype: "success", is_error: false, result: "done", session_id: S, total_cost_usd: 0.25 })
]

const ccUser = { parentUuid: null, isSidechain: false, userType: "external", cwd: CWD, sessionId: S, version: "2.0.76", type: "user", uuid: "c0", timestamp: "2023-11-14T22:13:20.000Z", message: { role: "user", content: "go" } }
const ccAssistant = (n: number, mid: string, i: number, o: number) => ({
  parentUuid: `c${n - 1}`, isSidechain: false, userType: "external", cwd: CWD, sessionId: S, version: "2.0.76", type: "assistant", uuid: `c${n}`,
  timestamp: `2023-11-14T22:13:2${n + 1}.000Z`, requestId: `req_${n}`,
  message: { model: MODEL, id: mid, type: "message", role: "assistant", content: [{ type: "text", text: `t ${mid}` }], usage: { input_tokens: i, output_tokens: o } }
})

const corpus = () => {
  const dir = tempDir("si-am-partial-")
  const store = path.join(dir, "filestore.db")
  const laid = layout(stream)
  createStore(store, [
    { zoneId: "agent:u1:current", name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(laid.lines.map((l, i) => tsidxRecord(l.start, 1_700_000_000_000 + i * 1000)).join("")) }
  ])
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-u")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  /** Claude Code's own log of the session, holding `upTo` of its two responses. */
  const writeLog = (upTo: 1 | 2) =>
    fs.writeFileSync(
      path.join(folder, `${S}.jsonl`),
      [ccUser, ccAssistant(1, "m1", 1000, 1000), ...(upTo === 2 ? [ccAssistant(2, "m2", 2000, 2000)] : [])].map((r) => j(r) + "\n").join("")
    )
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root, agentmuxStore: store, stateFile: path.join(dir, "state.db") }
  const importAll = (index: string) => importOnce(policy, index, planFromPolicy(policy, { agents: ["u1"], batchSize: 500 }))
  return { dir, writeLog, importAll }
}

const usd = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1e9) / 1e9)

/** Each session's cost by `<provider>`, the report's total and notes. */
const costs = (index: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const used = yield* usageBySession(bundledPrices)
    const report = yield* usageReport({ by: "session" }, bundledPrices)
    return {
      sessions: Object.fromEntries(sessions.map((s) => [s.provider, usd(used.get(s.sessionUid)?.costUsd)])),
      total: [report.total.inputTokens, report.total.outputTokens, usd(report.total.costUsd)],
      notes: report.notes.filter((n) => n.kind !== "counted-elsewhere")
    }
  }).pipe(Effect.provide(indexLayer(index)))

const PARTIAL = {
  sessions: { "claude-code": 0.018, agentmux: 0.036 },
  total: [3000, 3000, 0.054],
  notes: [{ kind: "run-total-set-aside", runs: 1 }]
}
const FULL = {
  sessions: { "claude-code": 0.054, agentmux: null },
  total: [3000, 3000, 0.054],
  notes: [{ kind: "run-total-set-aside", runs: 1 }]
}

describe.each(engines)("an AgentMux run partly in Claude Code's log ($engine)", ({ newIndex }) => {
  it.effect("its stated total is set aside: each response once, priced from the table; the total does not move as the log catches up", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      c.writeLog(1)
      yield* c.importAll(index)
      expect(yield* costs(index)).toEqual(PARTIAL)
      c.writeLog(2)
      yield* c.importAll(index)
      expect(yield* costs(index)).toEqual(FULL)
    }))
})

describe("an AgentMux run partly in Claude Code's log: an index from before the usage table", () => {
  it.effect("the rows derived from its events follow the same rule", () =>
    Effect.gen(function*() {
      const c = corpus()
      c.writeLog(1)
      const index = path.join(c.dir, "index.db")
      yield* c.importAll(index)
      yield* toLegacyLayout(index)
      const db = new Database(index)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      expect(yield* costs(index)).toEqual(PARTIAL)
    }))
})

describe("an AgentMux run partly in Claude Code's log: the CLI", () => {
  it("usage says the run's stated total was set aside", () => {
    const c = corpus()
    c.writeLog(1)
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const r = cli(["usage", "--by", "provider", "--index", index], { env: { NO_COLOR: "1" } })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/\nagentmux +2,000 +2,000 +\$0\.0360\n/)
      expect(r.stdout).toMatch(/\nclaude-code +1,000 +1,000 +\$0\.0180\n/)
      expect(r.stdout).toMatch(/\ntotal +3,000 +3,000 +\$0\.0540\n/)
      expect(r.stdout).toContain("note: 1 AgentMux run with responses also in Claude Code's own log: the run's stated total_cost_usd overlaps them, so it is not used")
    })
  })
})

describe("an AgentMux run partly in Claude Code's log: ATIF and show say the total was set aside (session 28)", () => {
  it("export --format atif and show carry usage's note in the AgentMux session", () => {
    const c = corpus()
    c.writeLog(1)
    const index = path.join(c.dir, "index.db")
    const NOTE = "1 AgentMux run with responses also in Claude Code's own log: the run's stated total_cost_usd overlaps them, so it is not used"
    return Effect.runPromise(c.importAll(index)).then(() => {
      const list = JSON.parse(cli(["sessions", "--json", "--index", index]).stdout).data as Array<{ provider: string; sessionUid: string }>
      const am = list.find((s) => s.provider === "agentmux")!
      const a = cli(["export", am.sessionUid, "--format", "atif", "--index", index])
      expect(a.code, a.stderr).toBe(0)
      const t = JSON.parse(a.stdout)
      expect(t.final_metrics.total_cost_usd).toBe(0.036)
      expect(t.final_metrics.extra.runs_set_aside).toBe(1)
      expect(t.notes).toContain(NOTE)
      const s = cli(["show", am.sessionUid, "--format", "transcript", "--index", index], { env: { NO_COLOR: "1" } })
      expect(s.code, s.stderr).toBe(0)
      expect(s.stdout).toContain(`cost $0.0360`)
      expect(s.stdout).toContain(`note: ${NOTE}`)
      const l = cli(["sessions", "--index", index], { env: { NO_COLOR: "1" } })
      expect(l.code, l.stderr).toBe(0)
      expect(l.stdout).toContain(`note: ${NOTE}`)
    })
  })
})
