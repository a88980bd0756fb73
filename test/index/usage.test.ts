/**
 * Per-session tokens and cost in the index (issue 18, part 2): kept at import
 * in the `usage` table (one row per response, last usage wins, across
 * batches), removed with what a rejection rolls back, rebuilt by migration
 * 0005 for an index imported before it; totals worked out by hand from the
 * fixtures (fixtures/claude-code/EXPECTED.md) and from AgentMux stores built
 * as AgentMux writes them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageBySession, usageReport } from "../../src/layers/index/queries.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { layout } from "../agentmux/fixture.js"
import { createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { copyFixtures, S } from "../claude-code/helpers.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { toLegacyLayout } from "../support/legacy-index.js"

/** Every session's usage (by native id) as the index keeps it, priced with the bundled table. */
const usageOf = (file: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const byUid = yield* usageBySession(bundledPrices)
    return new Map(sessions.map((s) => [s.sessionId, byUid.get(s.sessionUid) ?? null] as const))
  }).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]

const claude = () => {
  const root = copyFixtures()
  const dir = path.dirname(root)
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, root, policy, index: path.join(dir, "index.db") }
}

describe("index: Claude Code tokens and cost per session (EXPECTED.md)", () => {
  for (const batchSize of [1, 2, 500]) {
    it.effect(`batch size ${batchSize}: every response once with its last usage; costUSD where stated, else the price table`, () =>
      Effect.gen(function*() {
        const c = claude()
        yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize }))
        const u = yield* usageOf(c.index)
        // S1: 9 responses over 13 lines, claude-sonnet-4-5-20250929 ($3 / $15 / $0.30 / $3.75):
        // 15×3 + 1230×15 + 155299×0.3 + 7784×3.75 = 45 + 18450 + 46589.7 + 29190 = 94274.7 µ$.
        expect(tokens(u.get(S.S1))).toEqual([15, 1230, 155299, 7784])
        expect(u.get(S.S1)!.costUsd).toBeCloseTo(0.0942747, 12)
        // S3 (older version, every line states costUSD): the main chain's 3 responses, msg_01lD5FIy once (lines 8 and 9).
        expect(tokens(u.get(S.S3))).toEqual([12, 271, 43968, 1530])
        expect(u.get(S.S3)!.costUsd).toBeCloseTo(0.023029, 12)
        // Its inline sidechain, a session of its own: 8 / 129 / 22341 / 0 at 0.004405 + 0.004256.
        const side = [...u].find(([id]) => id.startsWith("sidechain-"))![1]
        expect(tokens(side)).toEqual([8, 129, 22341, 0])
        expect(side!.costUsd).toBeCloseTo(0.008661, 12)
        // S6: claude-opus-4-5-20251101 ($5 / $25 / $0.50 / $6.25): 13×5 + 413×25 + 81818×0.5 + 10035×6.25 = 114017.75 µ$.
        expect(tokens(u.get(S.S6))).toEqual([13, 413, 81818, 10035])
        expect(u.get(S.S6)!.costUsd).toBeCloseTo(0.11401775, 12)
        for (const s of u.values()) if (s !== null) expect(s.unpriced).toEqual([])
      }))
  }

  it.effect("an index imported before migration 0005 (events of contract 1.1.0, no usage table) gets the same totals from its stored events", () =>
    Effect.gen(function*() {
      const c = claude()
      yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize: 4 }))
      const fresh = yield* usageOf(c.index)
      yield* toLegacyLayout(c.index) // the layout indexes before the lean record (0006) have: whole events in `events`
      const db = new Database(c.index)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      const rows = db.prepare("SELECT rowid, event_json FROM events").all() as Array<{ rowid: number; event_json: string }>
      const put = db.prepare("UPDATE events SET event_json = ? WHERE rowid = ?")
      for (const r of rows) {
        const { costUsd: _c, ...old } = JSON.parse(r.event_json)
        if (old.usage != null) delete old.usage.cacheWrite1hTokens // (contract 1.3.0)
        put.run(JSON.stringify({ ...old, contractVersion: "1.1.0" }), r.rowid)
      }
      db.close()
      // The same totals, but for the 1-hour part of the cache writes, which contract 1.1.0 did not keep (the fixtures
      // say 0: the same cost).
      const kept = new Map([...fresh].map(([k, s]) => [k, s === null ? null : { ...s, cacheWrite1hTokens: null }]))
      // Read as it is (a query command never migrates): the rows are derived from the stored events.
      expect(yield* usageOf(c.index)).toEqual(kept)
      // Opened for writing (an import would): the migration runs and fills the table from the stored events.
      yield* Effect.flatMap(Index, (i) => i.counts).pipe(Effect.provide(IndexSqlite.layer(c.index)))
      const migrated = yield* usageOf(c.index)
      expect(migrated).toEqual(kept)
      expect(migrated.get(S.S3)!.costUsd).toBeCloseTo(0.023029, 12)
    }))
})

// ---- AgentMux stores built as AgentMux writes them
const j = (v: unknown) => JSON.stringify(v)
const U = (i: number, o: number, r: number, w: number) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: r, cache_creation_input_tokens: w })
const init = (sid: string, model: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/x", session_id: sid, model, tools: [] })
const user = (sid: string, text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: sid })
const asst = (sid: string, id: string, text: string, u: unknown, model: string) =>
  j({ type: "assistant", message: { id, type: "message", role: "assistant", model, content: [{ type: "text", text }], usage: u }, session_id: sid })
const result = (sid: string, cost: number, u: unknown) =>
  j({ type: "result", subtype: "success", is_error: false, duration_ms: 1000, num_turns: 1, result: "ok", total_cost_usd: cost, usage: u, session_id: sid })

const agentmux = (texts: ReadonlyArray<string>) => {
  const dir = tempDir("si-am-usage-")
  const store = path.join(dir, "filestore.db")
  const laid = layout(texts)
  const tsidx = laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1 + Math.floor(i / 4), 12) + i)).join("")
  createStore(store, [
    { zoneId: "agent:u1:current", name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ])
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  const policy = { workspaceRoots: [], museRoots: [], agentsRoot: path.join(dir, "agents"), agentmuxStore: store, stateFile: path.join(dir, "state.db") }
  return { policy, index: path.join(dir, "index.db") }
}

describe("index: AgentMux (Claude stream-json) sessions with and without a result line", () => {
  const lines = [
    // S-R: one run ended by a result stating its cost; msg_1 streamed as two lines (2 then 40 output tokens).
    init("S-R", "claude-sonnet-4-5"),
    user("S-R", "go"),
    asst("S-R", "msg_1", "He", U(3, 2, 100, 20), "claude-sonnet-4-5"),
    asst("S-R", "msg_1", "Hello", U(3, 40, 100, 20), "claude-sonnet-4-5"),
    asst("S-R", "msg_2", "Done", U(5, 7, 300, 0), "claude-sonnet-4-5"),
    result("S-R", 0.25, U(8, 47, 400, 20)),
    // S-N: no result line (still running): priced from the table. 2×3 + 10×15 + 1000×0.3 + 0 = 456 µ$.
    init("S-N", "claude-sonnet-4-5"),
    user("S-N", "go"),
    asst("S-N", "msg_3", "x", U(2, 10, 1000, 0), "claude-sonnet-4-5"),
    // S-M: a model the table lacks: tokens, no cost.
    init("S-M", "claude-mystery-9"),
    user("S-M", "go"),
    asst("S-M", "msg_4", "y", U(1, 1, 1, 1), "claude-mystery-9")
  ]

  for (const batchSize of [1, 3, 500]) {
    it.effect(`batch size ${batchSize}: the result's total_cost_usd, else the table, else tokens without a cost`, () =>
      Effect.gen(function*() {
        const a = agentmux(lines)
        yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { agents: ["u1"], batchSize }))
        const u = yield* usageOf(a.index)
        expect(u.get("S-R")).toEqual({
          inputTokens: 8,
          outputTokens: 47,
          cacheReadTokens: 400,
          cacheWriteTokens: 20,
          cacheWrite1hTokens: null,
          costUsd: 0.25,
          responses: 2,
          unpriced: [],
          notExact: [],
          costNotFinite: false
        })
        expect(tokens(u.get("S-N"))).toEqual([2, 10, 1000, 0])
        expect(u.get("S-N")!.costUsd).toBeCloseTo(0.000456, 12)
        expect(u.get("S-M")).toMatchObject({ inputTokens: 1, costUsd: null, unpriced: [{ model: "claude-mystery-9", responses: 1 }] })
      }))
  }

  it.effect("the report by model, day and provider, with a note for the unpriced model; since/until by day", () =>
    Effect.gen(function*() {
      const a = agentmux(lines)
      yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { agents: ["u1"], batchSize: 2 }))
      const report = (by: "model" | "day" | "provider" | "session" | "workspace", since?: string, until?: string) =>
        usageReport({ by, since, until }, bundledPrices).pipe(Effect.provide(IndexSqlite.layerReadonly(a.index)))
      const byModel = yield* report("model")
      expect(byModel.rows.map((r) => [r.key, r.inputTokens, r.costUsd === null ? null : Math.round(r.costUsd * 1e9) / 1e9])).toEqual([
        ["claude-mystery-9", 1, null],
        ["claude-sonnet-4-5", 10, 0.250456]
      ])
      expect(byModel.total).toMatchObject({ inputTokens: 11, outputTokens: 58, cacheReadTokens: 1401, cacheWriteTokens: 21, costUsd: null })
      expect(byModel.notes).toEqual([{ kind: "model-not-priced", model: "claude-mystery-9", responses: 1 }])
      // Lines 0-3 on Jan 1 (msg_1), 4-7 on Jan 2 (msg_2, S-R's result), 8-11 on Jan 3 (msg_3, msg_4), by receive time.
      // A run's stated total counts on its result's day: msg_1 is covered by it and adds no cost on Jan 1.
      const byDay = yield* report("day")
      expect(byDay.rows.map((r) => [r.key, r.inputTokens, r.costUsd])).toEqual([["2026-01-01", 3, 0], ["2026-01-02", 5, 0.25], ["2026-01-03", 3, null]])
      const one = yield* report("day", "2026-01-02", "2026-01-02T23:59:59.999Z")
      expect(one.rows.map((r) => r.key)).toEqual(["2026-01-02"])
      expect((yield* report("provider")).rows.map((r) => [r.key, r.responses])).toEqual([["agentmux", 4]])
      expect((yield* report("session")).rows.map((r) => r.key).sort()).toEqual(["S-M", "S-N", "S-R"])
      expect((yield* report("workspace")).rows.map((r) => r.key)).toEqual(["/home/dev/x"])
    }))
})
