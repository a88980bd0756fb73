/**
 * Tokens and cost on both engines (issues 17 and 18): the PostgreSQL index
 * keeps usage rows as the SQLite index does (migration 0003_usage there,
 * 0005_usage here), maintained in each batch's transaction, so the same
 * cases answer the same totals on each: Claude Code's EXPECTED.md figures at
 * several batch sizes, AgentMux runs with and without a `result` line, the
 * report by model / day / provider / session / workspace, a rejected attempt
 * rolled back, and (PostgreSQL) the migration filling the rows from the
 * events a database already holds.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { toAtif } from "../../src/domain/atif.js"
import { loadTrajectory, usageBySession, usageReport } from "../../src/layers/index/queries.js"
import { replayHtml } from "../../src/layers/index/replay.js"
import { Redaction } from "../../src/services/Redaction.js"
import { Index } from "../../src/services/Index.js"
import { layout } from "../agentmux/fixture.js"
import { createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { copyFixtures, S } from "../claude-code/helpers.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase, pgQuery } from "../support/pg.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import Database from "better-sqlite3"

/** Every session's usage (by native id), priced with the bundled table. */
const usageOf = (index: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const byUid = yield* usageBySession(bundledPrices)
    return new Map(sessions.map((s) => [s.sessionId, byUid.get(s.sessionUid) ?? null] as const))
  }).pipe(Effect.provide(indexLayer(index)))

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]

const claude = () => {
  const root = copyFixtures()
  const dir = path.dirname(root)
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  return { dir, policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root } }
}

const j = (v: unknown) => JSON.stringify(v)
const U = (i: number, o: number, r: number, w: number) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: r, cache_creation_input_tokens: w })
const init = (sid: string, model: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/x", session_id: sid, model, tools: [] })
const user = (sid: string, text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: sid })
const asst = (sid: string, id: string, text: string, u: unknown, model: string) =>
  j({ type: "assistant", message: { id, type: "message", role: "assistant", model, content: [{ type: "text", text }], usage: u }, session_id: sid })
const result = (sid: string, cost: number, u: unknown) =>
  j({ type: "result", subtype: "success", is_error: false, duration_ms: 1000, num_turns: 1, result: "ok", total_cost_usd: cost, usage: u, session_id: sid })

const lines = [
  init("S-R", "claude-sonnet-4-5"),
  user("S-R", "go"),
  asst("S-R", "msg_1", "He", U(3, 2, 100, 20), "claude-sonnet-4-5"),
  asst("S-R", "msg_1", "Hello", U(3, 40, 100, 20), "claude-sonnet-4-5"),
  asst("S-R", "msg_2", "Done", U(5, 7, 300, 0), "claude-sonnet-4-5"),
  result("S-R", 0.25, U(8, 47, 400, 20)),
  init("S-N", "claude-sonnet-4-5"),
  user("S-N", "go"),
  asst("S-N", "msg_3", "x", U(2, 10, 1000, 0), "claude-sonnet-4-5"),
  init("S-M", "claude-mystery-9"),
  user("S-M", "go"),
  asst("S-M", "msg_4", "y", U(1, 1, 1, 1), "claude-mystery-9")
]

const agentmux = () => {
  const dir = tempDir("si-am-usage-")
  const store = path.join(dir, "filestore.db")
  const laid = layout(lines)
  const tsidx = laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1 + Math.floor(i / 4), 12) + i)).join("")
  createStore(store, [
    { zoneId: "agent:u1:current", name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ])
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  return { dir, policy: { workspaceRoots: [], museRoots: [], agentsRoot: path.join(dir, "agents"), agentmuxStore: store, stateFile: path.join(dir, "state.db") } }
}

describe.each(engines)("usage rows ($engine)", ({ newIndex }) => {
  for (const batchSize of [1, 500]) {
    it.effect(`Claude Code, batch size ${batchSize}: every response once with its last usage; costUSD where stated, else the price table`, () =>
      Effect.gen(function*() {
        const c = claude()
        const index = yield* newIndex(c.dir)
        yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize }))
        const u = yield* usageOf(index)
        expect(tokens(u.get(S.S1))).toEqual([15, 1230, 155299, 7784])
        expect(u.get(S.S1)!.costUsd).toBeCloseTo(0.0942747, 12)
        expect(tokens(u.get(S.S3))).toEqual([12, 271, 43968, 1530])
        expect(u.get(S.S3)!.costUsd).toBeCloseTo(0.023029, 12)
        const side = [...u].find(([id]) => id.startsWith("sidechain-"))![1]
        expect(tokens(side)).toEqual([8, 129, 22341, 0])
        expect(tokens(u.get(S.S6))).toEqual([13, 413, 81818, 10035])
        expect(u.get(S.S6)!.costUsd).toBeCloseTo(0.11401775, 12)
      }))
  }

  it.effect("sums past 2^53 - 1 (and past 2^63 in all) are unknown and named in notExact, alike on both engines (tester15 F7)", () =>
    Effect.gen(function*() {
      const MAX = Number.MAX_SAFE_INTEGER
      // 1,100 responses of 2^53 - 1 input tokens: past 2^63 in all (an integer sum would overflow); output 1 each: exact.
      const big = [init("S-B", "claude-sonnet-4-5"), user("S-B", "go"), ...Array.from({ length: 1100 }, (_, i) => asst("S-B", `msg_b${i}`, "b", U(MAX, 1, 0, 0), "claude-sonnet-4-5"))]
      const dir = tempDir("si-am-usage-big-")
      const store = path.join(dir, "filestore.db")
      const laid = layout(big)
      createStore(store, [
        { zoneId: "agent:u1:current", name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
        { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1, 12) + i)).join("")) }
      ])
      fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
      const policy = { workspaceRoots: [], museRoots: [], agentsRoot: path.join(dir, "agents"), agentmuxStore: store, stateFile: path.join(dir, "state.db") }
      const index = yield* newIndex(dir)
      yield* importOnce(policy, index, planFromPolicy(policy, { agents: ["u1"] }))
      const u = (yield* usageOf(index)).get("S-B")!
      expect(tokens(u)).toEqual([null, 1100, 0, 0])
      expect(u.notExact).toEqual(["inputTokens"])
      expect(u.responses).toBe(1100)
      const report = yield* usageReport({ by: "day" }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
      expect(report.total).toMatchObject({ inputTokens: null, outputTokens: 1100, notExact: ["inputTokens"] })
      expect(report.notes).toEqual([{ kind: "tokens-not-exact", counts: ["inputTokens"] }])
    }))

  for (const batchSize of [1, 2]) {
    it.effect(`AgentMux, batch size ${batchSize}: the run's stated total, else the table, else tokens without a cost; the report by each key`, () =>
      Effect.gen(function*() {
        const a = agentmux()
        const index = yield* newIndex(a.dir)
        yield* importOnce(a.policy, index, planFromPolicy(a.policy, { agents: ["u1"], batchSize }))
        const u = yield* usageOf(index)
        expect(u.get("S-R")).toEqual({ inputTokens: 8, outputTokens: 47, cacheReadTokens: 400, cacheWriteTokens: 20, cacheWrite1hTokens: null, costUsd: 0.25, responses: 2, unpriced: [], notExact: [], costNotFinite: false })
        expect(tokens(u.get("S-N"))).toEqual([2, 10, 1000, 0])
        expect(u.get("S-N")!.costUsd).toBeCloseTo(0.000456, 12)
        expect(u.get("S-M")).toMatchObject({ inputTokens: 1, costUsd: null, unpriced: [{ model: "claude-mystery-9", responses: 1 }] })
        const report = (by: "model" | "day" | "provider" | "session" | "workspace", since?: string, until?: string) =>
          usageReport({ by, since, until }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
        const byModel = yield* report("model")
        expect(byModel.rows.map((r) => [r.key, r.inputTokens, r.costUsd === null ? null : Math.round(r.costUsd * 1e9) / 1e9])).toEqual([
          ["claude-mystery-9", 1, null],
          ["claude-sonnet-4-5", 10, 0.250456]
        ])
        expect(byModel.total).toMatchObject({ inputTokens: 11, outputTokens: 58, cacheReadTokens: 1401, cacheWriteTokens: 21, costUsd: null })
        const byDay = yield* report("day")
        expect(byDay.rows.map((r) => [r.key, r.inputTokens, r.costUsd])).toEqual([["2026-01-01", 3, 0], ["2026-01-02", 5, 0.25], ["2026-01-03", 3, null]])
        expect((yield* report("day", "2026-01-02", "2026-01-02T23:59:59.999Z")).rows.map((r) => r.key)).toEqual(["2026-01-02"])
        expect((yield* report("provider")).rows.map((r) => [r.key, r.responses])).toEqual([["agentmux", 4]])
        expect((yield* report("session")).rows.map((r) => r.key).sort()).toEqual(["S-M", "S-N", "S-R"])
        expect((yield* report("workspace")).rows.map((r) => r.key)).toEqual(["/home/dev/x"])
      }))
  }
})

/**
 * A resumed Claude Code session starts a new log that repeats the earlier
 * conversation's lines (their `message.id` and `requestId` kept) under a new
 * `sessionId`: each response is counted once across every session and file
 * (as ccusage does), where it was seen first (its own time, then the source),
 * so the copy adds only what is new in it.
 */
const RESUMED = "9a9a9a9a-1111-4222-8333-444444444444"
const resumeS1 = (root: string, keep: number) => {
  const from = nodePath.join(root, "-home-alice-code-billing-api", `${S.S1}.jsonl`)
  const head = fs.readFileSync(from, "utf8").split("\n").filter((l) => l.length > 0)
    .filter((l) => JSON.parse(l).sessionId === S.S1).slice(0, keep)
    .map((l) => l.replaceAll(S.S1, RESUMED))
  const fresh = j({
    parentUuid: null, isSidechain: false, userType: "external", cwd: "/home/alice/code/billing-api", sessionId: RESUMED, version: "2.0.76",
    type: "assistant", requestId: "req_resumed_new", uuid: "9a9a9a9a-0000-4000-8000-000000000001", timestamp: "2025-12-04T10:00:00.000Z",
    message: { model: "claude-sonnet-4-5-20250929", id: "msg_resumed_new", type: "message", role: "assistant", content: [{ type: "text", text: "again" }], usage: U(1000, 2000, 0, 0) }
  })
  fs.writeFileSync(nodePath.join(root, "-home-alice-code-billing-api", `${RESUMED}.jsonl`), [...head, fresh].join("\n") + "\n")
}

/**
 * The resumed session's ATIF export and replay of `index` count its usage as
 * `sessions`/`show`/`usage` do (docs/usage-and-cost.md "Tokens and cost": ATIF's
 * `final_metrics` "with the session's totals", the replay "each response
 * counted once"): only its new response, 1,000 in and 2,000 out at
 * claude-sonnet-4-5-20250929's $3 / $15 per million = $0.033; no step
 * carries the copied responses' metrics, so the steps sum to the totals.
 */
const expectExportsCountOnce = (index: string, copyUid: string) =>
  Effect.gen(function*() {
    const input = yield* loadTrajectory(copyUid)
    const atif = toAtif({ ...input, prices: bundledPrices })
    expect(atif.final_metrics).toMatchObject({
      total_prompt_tokens: 1000,
      total_completion_tokens: 2000,
      total_cached_tokens: 0,
      total_cost_usd: 0.033,
      extra: { input_tokens: 1000, cache_creation_input_tokens: 0, responses: 1 }
    })
    const stepMetrics = atif.steps.flatMap((st) => (st.metrics === undefined ? [] : [st.metrics]))
    expect(stepMetrics.map((m) => [m.prompt_tokens, m.completion_tokens, m.cost_usd])).toEqual([[1000, 2000, 0.033]])
    const html = yield* replayHtml(copyUid, bundledPrices).pipe(Effect.provide(Redaction.off))
    expect(html).toContain("<dt>Tokens</dt><dd>input 1,000 · output 2,000 · cache read 0 · cache write 0 (1 response)</dd>")
    expect(html).toContain("<dt>Cost</dt><dd>$0.0330 (USD)</dd>")
  }).pipe(Effect.provide(indexLayer(index)))

describe.each(engines)("usage across sessions ($engine)", ({ newIndex }) => {
  it.effect("a resumed session's copied responses count once, where they were first seen; only its new response adds", () =>
    Effect.gen(function*() {
      const c = claude()
      resumeS1(c.policy.claudeRoot, 40)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
      const u = yield* usageOf(index)
      // S1's own figures (the test above), untouched by the copy
      expect(tokens(u.get(S.S1))).toEqual([15, 1230, 155299, 7784])
      // the copy: only its new response
      expect(tokens(u.get(RESUMED))).toEqual([1000, 2000, 0, 0])
      const report = (by: "provider" | "session" | "model") => usageReport({ by }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
      const plain = yield* newIndex(c.dir)
      fs.rmSync(nodePath.join(c.policy.claudeRoot, "-home-alice-code-billing-api", `${RESUMED}.jsonl`))
      yield* importOnce(c.policy, plain, planFromPolicy(c.policy, { batchSize: 500 }))
      const without = yield* usageReport({ by: "provider" }, bundledPrices).pipe(Effect.provide(indexLayer(plain)))
      const withCopy = yield* report("provider")
      expect(withCopy.total!.inputTokens).toBe(without.total!.inputTokens! + 1000)
      expect(withCopy.total!.outputTokens).toBe(without.total!.outputTokens! + 2000)
      expect(withCopy.total!.cacheReadTokens).toBe(without.total!.cacheReadTokens)
      expect(withCopy.total!.responses).toBe(without.total!.responses + 1)
      // a filter on the copy alone: still only its new response (where a response counts is decided before filters)
      const copyUid = (yield* Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(indexLayer(index)))).find((x) => x.sessionId === RESUMED)!.sessionUid
      const alone = yield* usageBySession(bundledPrices, [copyUid]).pipe(Effect.provide(indexLayer(index)))
      expect(tokens(alone.get(copyUid))).toEqual([1000, 2000, 0, 0])
      // the ATIF export and the replay count as sessions/show/usage do (tester12 F6: they counted the copies again)
      yield* expectExportsCountOnce(index, copyUid)
      if (!index.startsWith("postgres")) {
        // an index from before the usage table (its rows derived from stored events) counts alike
        yield* toLegacyLayout(index)
        const db = new Database(index)
        db.exec("DROP TABLE usage")
        db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
        db.close()
        const legacy = yield* usageOf(index)
        expect(tokens(legacy.get(S.S1))).toEqual([15, 1230, 155299, 7784])
        expect(tokens(legacy.get(RESUMED))).toEqual([1000, 2000, 0, 0])
        const legacyAlone = yield* usageBySession(bundledPrices, [copyUid]).pipe(Effect.provide(indexLayer(index)))
        expect(tokens(legacyAlone.get(copyUid))).toEqual([1000, 2000, 0, 0])
        yield* expectExportsCountOnce(index, copyUid)
      }
    }))
})

describe("usage rows: PostgreSQL's migration 0003_usage", () => {
  it.effect("a database imported before it gets its usage rows from the events it holds: the same totals as rows kept at import", () =>
    Effect.gen(function*() {
      const c = claude()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, url, planFromPolicy(c.policy, { batchSize: 3 }))
      const fresh = yield* usageOf(url)
      const kept = yield* Effect.promise(() => pgQuery(url, "SELECT * FROM usage ORDER BY source_key, generation, session_uid, response_key"))
      expect(kept.length).toBeGreaterThan(10)
      // The schema as the build before it left it: no usage table, migrations up to 0002.
      yield* Effect.promise(() => pgQuery(url, "DROP TABLE usage; DROP TABLE push_marks; DELETE FROM si_migrations WHERE migration_id >= 3"))
      const outdated = yield* Effect.exit(usageOf(url))
      expect(outdated._tag).toBe("Failure")
      expect(JSON.stringify(outdated)).toContain("schema-outdated")
      const migrated = yield* IndexPostgres.migrate(url)
      expect(migrated.applied.map(([, name]) => name)).toEqual(["usage", "push_marks", "push_journal", "push_change", "search_pairs", "search_facets", "usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      // The rows as they were, but for the 1-hour part of the cache writes: the table 0003 made has no column for it
      // (0009 adds it, NULL: not said). The fixtures say 0: the same cost.
      expect(yield* Effect.promise(() => pgQuery(url, "SELECT * FROM usage ORDER BY source_key, generation, session_uid, response_key")))
        .toEqual(kept.map((r) => ({ ...r, cache_write_1h_tokens: null })))
      expect(yield* usageOf(url)).toEqual(new Map([...fresh].map(([k, s]) => [k, s === null ? null : { ...s, cacheWrite1hTokens: null }])))
    }))
})
