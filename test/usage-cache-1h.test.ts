/**
 * 1-hour prompt-cache writes (a fresh-user tester's finding of session 22):
 * Claude Code's `message.usage` says how much of `cache_creation_input_tokens`
 * went to the 1-hour cache (`cache_creation.ephemeral_1h_input_tokens`), and
 * Anthropic prices such a write at 2x the base input price (a 5-minute one
 * at 1.25x; https://platform.claude.com/docs/en/about-claude/pricing, "1h
 * cache writes"). Every figure below is worked out by hand from that rule:
 * claude-sonnet-4-5 costs $3 per million input tokens, $3.75 per million
 * 5-minute cache-write tokens, $6 per million 1-hour ones.
 *
 * - the tester's example: 1,000 input + 1,000,000 cache-write tokens, all
 *   1-hour: 1000 x $3/M + 1M x $6/M = $6.003 (the 5-minute rate gave $3.753);
 * - a mix: 1,000,000 cache-write tokens of which 400,000 1-hour:
 *   600k x $3.75/M + 400k x $6/M = $4.65;
 * - a log with the total only (no `cache_creation`): every write at the
 *   5-minute rate, as before: 1000 x $3/M + 1M x $3.75/M = $3.753;
 * - a configured price without `cacheWrite1h`: 2x its `input`.
 *
 * The sessions imported below hold a tenth of those cache writes (100,000
 * tokens: a prompt over 200k tokens is priced at the long-context rates),
 * so they cost $0.603, $0.465 and $0.378.
 *
 * Through the domain, the Claude Code adapter, the CLI on SQLite (and an
 * index of the build before, migrated), PostgreSQL and a push to it.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { classifyLine, type Entry } from "../src/domain/claude-code/records.js"
import { upgradeEvent } from "../src/domain/contract-upgrade.js"
import { CONTRACT_VERSION, type SessionEvent, type TokenUsage } from "../src/domain/model.js"
import { bundledPrices, cacheWrite1hPrice, costAt, ModelPrices, withOverrides } from "../src/domain/prices.js"
import { planFromPolicy } from "../src/layers/index/importer.js"
import * as IndexPostgres from "../src/layers/index/postgres.js"
import { push } from "../src/layers/index/push.js"
import { usageReport } from "../src/layers/index/queries.js"
import { importOnce, indexLayer } from "./support/index.js"
import { toLegacyLayout } from "./support/legacy-index.js"
import { tempDir } from "./support/paths.js"
import { engines, migratedDatabase, pgQuery } from "./support/pg.js"
import { cli } from "./support/run.js"

const j = (v: unknown) => JSON.stringify(v)
const M = 1_000_000
/**
 * The cache writes of the sessions the index and the CLI price: 100,000 tokens, so that each response's prompt stays
 * at or under 200k tokens (one over it is priced at the long-context rates: test/index/usage-long-context27.test.ts).
 */
const W = 100_000

const usage = (o: Partial<TokenUsage>): TokenUsage => ({
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  cacheWrite1hTokens: null,
  ...o
})

const sonnet = bundledPrices.models["claude-sonnet-4-5"]

describe("the price of a 1-hour cache write", () => {
  it("the bundled table: every model's cacheWrite1h is 2x its input (Anthropic's rule)", () => {
    const models = Object.entries(bundledPrices.models)
    expect(models.length).toBeGreaterThan(10)
    for (const [model, p] of models) {
      expect(p.cacheWrite1h, model).toBeCloseTo(2 * p.input, 12)
    }
    expect(sonnet).toMatchObject({ input: 3, cacheWrite: 3.75, cacheWrite1h: 6 })
  })

  it("the tester's example: 1000 input + 1M cache-write tokens all 1-hour cost $6.003", () => {
    expect(costAt(sonnet, usage({ inputTokens: 1000, cacheWriteTokens: M, cacheWrite1hTokens: M }))).toBeCloseTo(6.003, 12)
  })

  it("a mix: 1M cache-write tokens, 400k of them 1-hour, cost $4.65", () => {
    expect(costAt(sonnet, usage({ cacheWriteTokens: M, cacheWrite1hTokens: 400_000 }))).toBeCloseTo(4.65, 12)
  })

  it("the total only (the 1-hour part not said): every write at the 5-minute rate, as before: $3.753", () => {
    expect(costAt(sonnet, usage({ inputTokens: 1000, cacheWriteTokens: M }))).toBeCloseTo(3.753, 12)
    expect(costAt(sonnet, usage({ inputTokens: 1000, cacheWriteTokens: M, cacheWrite1hTokens: 0 }))).toBeCloseTo(3.753, 12)
  })

  it("a configured price without cacheWrite1h prices 1-hour writes at 2x its input; with it, at its own", () => {
    const decode = Schema.decodeUnknownSync(ModelPrices)
    const mine = decode({ "my-model": { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 } })
    const table = withOverrides(bundledPrices, mine, "/etc/si.json")
    expect(cacheWrite1hPrice(table.models["my-model"])).toBe(8)
    expect(costAt(table.models["my-model"], usage({ inputTokens: 1000, cacheWriteTokens: M, cacheWrite1hTokens: M }))).toBeCloseTo(8.004, 12)
    const own = decode({ "my-model": { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5, cacheWrite1h: 7 } })
    expect(costAt(own["my-model"], usage({ cacheWriteTokens: M, cacheWrite1hTokens: 250_000 }))).toBeCloseTo(0.75 * 5 + 0.25 * 7, 12)
    // Like every price, a non-negative number.
    expect(() => decode({ "my-model": { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5, cacheWrite1h: -1 } })).toThrow()
  })
})

// ---------------------------------------------------------------- Claude Code logs

const T1 = "11111111-0000-4000-8000-000000000001" // the tester's: all 1-hour
const T2 = "11111111-0000-4000-8000-000000000002" // a mix
const T3 = "11111111-0000-4000-8000-000000000003" // the total only
const base = (sid: string) => ({ isSidechain: false, cwd: "/tmp/cache1h", sessionId: sid, version: "2.1.14" })
const ccUser = (sid: string, at: string) =>
  j({ ...base(sid), parentUuid: null, type: "user", message: { role: "user", content: "go" }, uuid: `u-${sid}`, timestamp: at })
const ccAsst = (sid: string, id: string, at: string, u: unknown) =>
  j({
    ...base(sid), parentUuid: null, type: "assistant", requestId: `req-${id}`, uuid: `a-${id}`, timestamp: at,
    message: { model: "claude-sonnet-4-5", id, type: "message", role: "assistant", content: [{ type: "text", text: `answer ${id}` }], usage: u }
  })
const cw = (input: number, total: number, split?: { m5: number; h1: number }) => ({
  input_tokens: input,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: total,
  ...(split !== undefined ? { cache_creation: { ephemeral_5m_input_tokens: split.m5, ephemeral_1h_input_tokens: split.h1 } } : {})
})

describe("Claude Code: the 1-hour part of a line's cache writes", () => {
  const classify = (u: unknown) => classifyLine({ text: ccAsst(T1, "m", "2026-01-15T08:30:05.775Z", u), lineNumber: 1, terminated: true }, 64) as Entry

  it("is cache_creation.ephemeral_1h_input_tokens; null when the line does not say it (or the total is unknown)", () => {
    expect(classify(cw(1000, M, { m5: 0, h1: M })).usage).toMatchObject({ inputTokens: 1000, cacheWriteTokens: M, cacheWrite1hTokens: M })
    expect(classify(cw(0, M, { m5: 600_000, h1: 400_000 })).usage).toMatchObject({ cacheWriteTokens: M, cacheWrite1hTokens: 400_000 })
    expect(classify(cw(1000, M)).usage).toMatchObject({ cacheWriteTokens: M, cacheWrite1hTokens: null })
    expect(classify({ ...cw(1, 5), cache_creation: { ephemeral_5m_input_tokens: 5 } }).usage).toMatchObject({ cacheWrite1hTokens: null })
    expect(classify({ input_tokens: 1, cache_creation: { ephemeral_1h_input_tokens: 5 } }).usage).toMatchObject({ cacheWriteTokens: null, cacheWrite1hTokens: null })
  })

  it("is never more than the total: a larger count is clamped to it", () => {
    expect(classify(cw(1, 100, { m5: 0, h1: 250 })).usage).toMatchObject({ cacheWriteTokens: 100, cacheWrite1hTokens: 100 })
  })

  it("a count that is not valid (or a cache_creation that is no object) drops the line's usage, counted as usage-not-valid, as for the other counts", () => {
    for (const bad of [-5, 1.5, "12", 1e308, true]) {
      const e = classify({ ...cw(1, 100), cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: bad } })
      expect(e.usage, j(bad)).toBeNull()
      expect(e.usageNotValid, j(bad)).toBe(true)
    }
    const e = classify({ ...cw(1, 100), cache_creation: "1h" })
    expect(e.usage).toBeNull()
    expect(e.usageNotValid).toBe(true)
  })

  it("an event of contract 1.2.0 (an older index) reads with cacheWrite1hTokens null: not said", () => {
    const old = {
      contractVersion: "1.2.0", provider: "claude-code", sourceId: "sha256:x", sessionId: "s", eventId: "e", sequence: 1, kind: "message",
      role: "assistant", toolName: null, toolCallId: null, model: "claude-sonnet-4-5", occurredAt: null, text: "hi", cursor: "c",
      rawReference: { locatorClass: "claude-code-session-log", sequence: 1 }, extensions: {}, toolInput: null, isError: null,
      compaction: null, parent: null, child: null, usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 },
      responseId: "m:r", costUsd: null
    } as unknown as SessionEvent
    const e = upgradeEvent(old)
    expect(e.contractVersion).toBe(CONTRACT_VERSION)
    expect(e.usage).toEqual({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4, cacheWrite1hTokens: null })
    expect(upgradeEvent({ ...old, usage: null })).toMatchObject({ usage: null })
  })
})

/** A Claude Code root with the three sessions (one response each, the same day). */
const project = () => {
  const root = nodePath.join(tempDir("si-cache1h-"), "projects")
  const dir = nodePath.join(root, "-tmp-cache1h")
  fs.mkdirSync(dir, { recursive: true })
  const write = (sid: string, minute: number, u: unknown) =>
    fs.writeFileSync(nodePath.join(dir, `${sid}.jsonl`), [
      ccUser(sid, `2026-01-15T08:${minute}:00.000Z`),
      ccAsst(sid, `msg_${sid.slice(-1)}`, `2026-01-15T08:${minute}:05.000Z`, u)
    ].join("\n") + "\n")
  write(T1, 10, cw(1000, W, { m5: 0, h1: W }))
  write(T2, 20, cw(0, W, { m5: 60_000, h1: 40_000 }))
  write(T3, 30, cw(1000, W))
  return { root, dir, file: (sid: string) => nodePath.join(dir, `${sid}.jsonl`) }
}

/** Each session's cost by its id, from `usage --by session --json`'s rows. */
const costsOf = (rows: ReadonlyArray<{ readonly key: string | null; readonly costUsd: number | null }>) => Object.fromEntries(rows.map((r) => [String(r.key), r.costUsd]))

const TOTAL = 0.603 + 0.465 + 0.378

describe("the CLI prices them (SQLite)", () => {
  const setup = () => {
    const p = project()
    const home = nodePath.dirname(p.root)
    const index = nodePath.join(home, "idx.db")
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(home, "no-config") }
    const run = (...args: Array<string>) => cli(args, { env })
    const json = (...args: Array<string>) => JSON.parse(run(...args, "--json").stdout) as { status: string; data: any }
    return { ...p, home, index, run, json }
  }

  it("usage by session, model and day: $0.603, $0.465, $0.378; the sums exact; sessions and show say the 1-hour part", () => {
    const c = setup()
    expect(c.json("import", "--claude-root", c.root, "--agents-root", c.root, "--index", c.index).status).toBe("ok")
    const bySession = c.json("usage", "--by", "session", "--index", c.index).data
    const costs = costsOf(bySession.rows)
    expect(costs[T1]).toBeCloseTo(0.603, 9)
    expect(costs[T2]).toBeCloseTo(0.465, 9)
    expect(costs[T3]).toBeCloseTo(0.378, 9)
    expect(bySession.rows.find((r: any) => r.key === T1)).toMatchObject({ cacheWriteTokens: W, cacheWrite1hTokens: W })
    expect(bySession.rows.find((r: any) => r.key === T3)).toMatchObject({ cacheWriteTokens: W, cacheWrite1hTokens: null })
    expect(bySession.total).toMatchObject({ inputTokens: 2000, cacheWriteTokens: 3 * W, cacheWrite1hTokens: 140_000, responses: 3 })
    expect(bySession.total.costUsd).toBeCloseTo(TOTAL, 9)
    for (const by of ["model", "day"]) {
      const r = c.json("usage", "--by", by, "--index", c.index).data
      expect(r.rows.length, by).toBe(1)
      expect(r.rows[0].costUsd, by).toBeCloseTo(TOTAL, 9)
      expect(r.rows[0].cacheWrite1hTokens, by).toBe(140_000)
      expect(r.total.costUsd, by).toBeCloseTo(TOTAL, 9)
    }
    expect(c.run("usage", "--by", "session", "--index", c.index).stdout).toContain("$0.6030")
    const sessions = c.json("sessions", "--index", c.index).data as Array<any>
    expect(sessions.find((s) => s.sessionId === T1).usage).toMatchObject({ cacheWriteTokens: W, cacheWrite1hTokens: W })
    expect(sessions.find((s) => s.sessionId === T1).usage.costUsd).toBeCloseTo(0.603, 9)
    const shown = c.json("show", T2, "--index", c.index).data
    expect(shown.session.usage).toMatchObject({ cacheWriteTokens: W, cacheWrite1hTokens: 40_000 })
    expect(shown.session.usage.costUsd).toBeCloseTo(0.465, 9)
    expect(shown.events.find((e: any) => e.usage !== null).usage).toEqual({
      inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: W, cacheWrite1hTokens: 40_000
    })
  })

  it("a configured price without cacheWrite1h: 1-hour writes at 2x its input", () => {
    const c = setup()
    const config = nodePath.join(c.home, "config.json")
    fs.writeFileSync(config, j({ prices: { "claude-sonnet-4-5": { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 } } }))
    c.json("import", "--claude-root", c.root, "--agents-root", c.root, "--index", c.index)
    const costs = costsOf(c.json("usage", "--by", "session", "--index", c.index, "--config", config).data.rows)
    expect(costs[T1]).toBeCloseTo(1000 * 4 / M + 0.8, 9) // $0.804
    expect(costs[T2]).toBeCloseTo(0.06 * 5 + 0.04 * 8, 9) // $0.62
    expect(costs[T3]).toBeCloseTo(1000 * 4 / M + 0.5, 9) // $0.504
  })

  it("an index of the build before (contract 1.2.0 events, no 1-hour column): read as it is, migrated by the next import, priced at the 5-minute rate it kept; a response imported since at its split", () =>
    Effect.runPromise(Effect.gen(function*() {
      const c = setup()
      expect(c.json("import", "--claude-root", c.root, "--agents-root", c.root, "--index", c.index).status).toBe("ok")
      // The layout of migrations 0001-0005, its events rewritten as contract 1.2.0 wrote them (no cacheWrite1hTokens).
      yield* toLegacyLayout(c.index)
      const db = new Database(c.index)
      const rows = db.prepare("SELECT rowid, event_json FROM events").all() as Array<{ rowid: number; event_json: string }>
      const put = db.prepare("UPDATE events SET event_json = ? WHERE rowid = ?")
      for (const r of rows) {
        const e = JSON.parse(r.event_json)
        e.contractVersion = "1.2.0"
        if (e.usage !== null) delete e.usage.cacheWrite1hTokens
        put.run(j(e), r.rowid)
      }
      expect(db.prepare("SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'cache_write_1h_tokens'").get()).toEqual({ n: 0 })
      db.close()
      const oldRate = { [T1]: 0.378, [T2]: 0.375, [T3]: 0.378 }
      const expectCosts = (want: Record<string, number>) => {
        const costs = costsOf(c.json("usage", "--by", "session", "--index", c.index).data.rows)
        for (const [sid, usd] of Object.entries(want)) expect(costs[sid], sid).toBeCloseTo(usd, 9)
      }
      // Read without migrating (a query command): every write at the 5-minute rate, the split unknown.
      expectCosts(oldRate)
      expect(c.json("usage", "--by", "model", "--index", c.index).data.total.cacheWrite1hTokens).toBeNull()
      // The next import migrates it (nothing changed: no source read again); the rows it kept stay at the 5-minute rate.
      expect(c.json("import", "--claude-root", c.root, "--agents-root", c.root, "--index", c.index).status).toBe("ok")
      const migrated = new Database(c.index, { readonly: true })
      expect(migrated.prepare("SELECT count(*) AS n FROM pragma_table_info('usage') WHERE name = 'cache_write_1h_tokens'").get()).toEqual({ n: 1 })
      expect(migrated.prepare("SELECT max(migration_id) AS n FROM si_migrations").get()).toEqual({ n: 15 })
      migrated.close()
      expectCosts(oldRate)
      expect(c.json("show", T1, "--index", c.index).data.events.find((e: any) => e.usage !== null)).toMatchObject({
        contractVersion: CONTRACT_VERSION,
        usage: { cacheWriteTokens: W, cacheWrite1hTokens: null }
      })
      // A response appended since is read with its split: 1-hour at its rate (1000 x $3/M + 100k x $6/M more).
      fs.appendFileSync(c.file(T1), ccAsst(T1, "msg_1b", "2026-01-15T08:40:05.000Z", cw(1000, W, { m5: 0, h1: W })) + "\n")
      expect(c.json("import", "--claude-root", c.root, "--agents-root", c.root, "--index", c.index).status).toBe("ok")
      expectCosts({ [T1]: 0.378 + 0.603, [T2]: 0.375, [T3]: 0.378 })
    })))
})

// ---------------------------------------------------------------- PostgreSQL

describe("PostgreSQL keeps and prices them as SQLite does; a push carries them", () => {
  const policyOf = (root: string) => {
    const agents = nodePath.join(nodePath.dirname(root), "agents")
    fs.mkdirSync(nodePath.join(agents, "nobody"), { recursive: true })
    return { workspaceRoots: [], museRoots: [], agentsRoot: agents, claudeRoot: root }
  }
  const report = (index: string, by: "session" | "model") => usageReport({ by }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
  const expectPriced = (index: string) =>
    Effect.gen(function*() {
      const bySession = yield* report(index, "session")
      const costs = costsOf(bySession.rows)
      expect(costs[T1]).toBeCloseTo(0.603, 9)
      expect(costs[T2]).toBeCloseTo(0.465, 9)
      expect(costs[T3]).toBeCloseTo(0.378, 9)
      const byModel = yield* report(index, "model")
      expect(byModel.total).toMatchObject({ cacheWriteTokens: 3 * W, cacheWrite1hTokens: 140_000 })
      expect(byModel.total.costUsd).toBeCloseTo(TOTAL, 9)
    })

  for (const { engine, newIndex } of engines) {
    it.effect(`${engine}: an import keeps the 1-hour part; usage prices it`, () =>
      Effect.gen(function*() {
        const p = project()
        const policy = policyOf(p.root)
        const index = yield* newIndex(nodePath.dirname(p.root))
        yield* importOnce(policy, index, planFromPolicy(policy, {}))
        yield* expectPriced(index)
      }))
  }

  it.effect("a push from a SQLite index carries the 1-hour part to PostgreSQL", () =>
    Effect.gen(function*() {
      const p = project()
      const policy = policyOf(p.root)
      const local = nodePath.join(nodePath.dirname(p.root), "local.db")
      yield* importOnce(policy, local, planFromPolicy(policy, {}))
      const team = yield* migratedDatabase
      yield* push(local, team, "laptop")
      yield* expectPriced(team)
      const kept = yield* Effect.promise(() => pgQuery<{ n: string }>(team, "SELECT sum(cache_write_1h_tokens)::text AS n FROM usage"))
      expect(kept).toEqual([{ n: "140000" }])
    }))

  it.effect("index migrate brings a database of schema 8 to 9: its rows kept (the 1-hour part unknown: 5-minute rate), an import since at its split", () =>
    Effect.gen(function*() {
      const p = project()
      const policy = policyOf(p.root)
      const url = yield* migratedDatabase
      yield* importOnce(policy, url, planFromPolicy(policy, {}))
      // The schema as the build before left it.
      yield* Effect.promise(() =>
        pgQuery(url, `ALTER TABLE usage DROP COLUMN cache_write_1h_tokens; DROP TABLE meta; DELETE FROM si_migrations WHERE migration_id >= 9`)
      )
      const outdated = yield* Effect.exit(report(url, "session"))
      expect(JSON.stringify(outdated)).toContain("schema-outdated")
      const migrated = yield* IndexPostgres.migrate(url)
      expect(migrated.applied.map(([, name]) => name)).toEqual(["usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      expect(migrated.version).toBe(IndexPostgres.SCHEMA_VERSION)
      const costs = costsOf((yield* report(url, "session")).rows)
      expect(costs[T1]).toBeCloseTo(0.378, 9)
      expect(costs[T2]).toBeCloseTo(0.375, 9)
      fs.appendFileSync(p.file(T2), ccAsst(T2, "msg_2b", "2026-01-15T08:45:05.000Z", cw(0, W, { m5: 60_000, h1: 40_000 })) + "\n")
      yield* importOnce(policy, url, planFromPolicy(policy, {}))
      const after = costsOf((yield* report(url, "session")).rows)
      expect(after[T2]).toBeCloseTo(0.375 + 0.465, 9)
    }))
})
