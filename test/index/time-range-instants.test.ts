/**
 * `--since` / `--until` select by instant, not by text (tester23a F1), on both
 * engines: stored times are RFC 3339 UTC with 3 to 9 fraction digits
 * (`…59.999Z`, `…59.999999Z`, `…00.0001Z`), and `"…59.999Z" > "…59.999999Z"`
 * as text ('Z' > '9'). A response in the last instants of a day is in
 * `--until <that day>`, one in the first instants of a day in `--since <that
 * day>`; a bound means its instant however it is written (sub-ms digits, an
 * offset); filtered totals equal the sum of the unfiltered `--by day` rows
 * (docs/usage-and-cost.md, docs/stream-and-cursors.md). The same for
 * `sessions`, `search`, an index from before the usage table (usage derived
 * from the stored events), and a session's first / last activity, which the
 * sessions filter compares.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import Database from "better-sqlite3"
import { timeRange } from "../../src/cli/filters.js"
import { bundledPrices } from "../../src/domain/prices.js"
import { compareTimestamps } from "../../src/domain/timestamps.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageReport } from "../../src/layers/index/queries.js"
import { push } from "../../src/layers/index/push.js"
import { listSessions, searchSessions } from "../../src/layers/mcp/answers.js"
import { Redaction } from "../../src/services/Redaction.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase } from "../support/pg.js"
import { toLegacyLayout } from "../support/legacy-index.js"

/** Each a session of one prompt and one response whose input tokens (a power of two) tell it apart; all its lines at that time. */
const TIMES: ReadonlyArray<readonly [string, number]> = [
  ["2026-11-09T12:00:00Z", 8192],
  // the last instants of 2026-11-10 (UTC)
  ["2026-11-10T23:59:59Z", 1],
  ["2026-11-10T23:59:59.998Z", 2],
  ["2026-11-10T23:59:59.999Z", 4],
  ["2026-11-10T23:59:59.9995Z", 8],
  ["2026-11-11T04:59:59.999+05:00", 16],
  ["2026-11-10T23:59:59.999000Z", 32],
  ["2026-11-10T23:59:59.999999999Z", 64],
  // the first instants of 2026-11-11
  ["2026-11-11T00:00:00.0001Z", 128],
  ["2026-11-11T00:00:00.000001Z", 256],
  ["2026-11-11T00:00:00Z", 512],
  ["2026-11-11T00:00:00.5Z", 1024],
  ["2026-11-11T00:00:00.000123+00:00", 2048],
  ["2026-11-11T01:00:00.000000001+01:00", 4096],
  ["2026-11-12T00:00:00Z", 16384]
]
const DAY10 = 1 + 2 + 4 + 8 + 16 + 32 + 64
const DAY11 = 128 + 256 + 512 + 1024 + 2048 + 4096
const ALL = 8192 + DAY10 + DAY11 + 16384

const j = (v: unknown) => JSON.stringify(v)
const sid = (i: number) => `44444444-0000-4000-8000-${String(i).padStart(12, "0")}`

const claudeRoot = () => {
  const dir = tempDir("si-instants-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-tmp-instants")
  fs.mkdirSync(folder, { recursive: true })
  TIMES.forEach(([t, n], i) => {
    const s = sid(i)
    const base = { sessionId: s, cwd: "/tmp/instants", timestamp: t }
    fs.writeFileSync(
      path.join(folder, `${s}.jsonl`),
      j({ ...base, type: "user", uuid: `u${i}`, message: { role: "user", content: `boundaryprobe ${n}` } }) + "\n" +
        j({
          ...base,
          type: "assistant",
          uuid: `a${i}`,
          requestId: `r${i}`,
          message: {
            model: "claude-sonnet-4-5-20250929",
            id: `m${i}`,
            role: "assistant",
            content: [{ type: "text", text: "ok" }],
            usage: { input_tokens: n, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
          }
        }) + "\n"
    )
  })
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  return { dir, root, policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root } }
}

/** One session whose times, in file order, are not in time order and have 3, 4, 6 digits (and 2, written as 3). */
const firstLastRoot = () => {
  const c = claudeRoot()
  for (const f of fs.readdirSync(path.join(c.root, "-tmp-instants"))) fs.rmSync(path.join(c.root, "-tmp-instants", f))
  const s = sid(0)
  const times = ["2026-11-10T23:59:59.999999Z", "2026-11-10T23:59:59.999Z", "2026-11-10T23:59:59.9991Z", "2026-11-10T23:59:59.99Z"]
  fs.writeFileSync(
    path.join(c.root, "-tmp-instants", `${s}.jsonl`),
    times.map((t, i) => j({ sessionId: s, cwd: "/tmp/instants", timestamp: t, type: "user", uuid: `u${i}`, message: { role: "user", content: `prompt ${i}` } }) + "\n")
      .join("")
  )
  return c
}

/** That session's first and last activity are its earliest and latest instants; `--since` a time between them lists it. */
const expectFirstLast = (index: string) =>
  Effect.gen(function*() {
    const [row] = yield* Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(indexLayer(index)))
    expect([row.firstAt, row.lastAt]).toEqual(["2026-11-10T23:59:59.990Z", "2026-11-10T23:59:59.999999Z"])
    // active at .9995 (its last activity is after it): listed by --since then
    const since = yield* Effect.flatMap(Index, (i) => i.sessions({ since: "2026-11-10T23:59:59.9995Z" })).pipe(Effect.provide(indexLayer(index)))
    expect(since.map((x) => x.sessionId)).toEqual([sid(0)])
  })

/** The bounds as `--since` / `--until` make them (a date: its first instant / all of it). */
const range = (since?: string, until?: string) => timeRange(Option.fromNullable(since), Option.fromNullable(until))

/** The input tokens `usage` counts within the range. */
const inputTokens = (index: string, since?: string, until?: string, layer = indexLayer(index)) =>
  Effect.gen(function*() {
    const r = yield* range(since, until)
    const report = yield* usageReport({ by: "provider", ...r }, bundledPrices).pipe(Effect.provide(layer))
    return report.total.inputTokens
  })

/** The sessions `sessions` lists within the range, by their response's input tokens. */
const sessionTokens = (index: string, since?: string, until?: string) =>
  Effect.gen(function*() {
    const r = yield* range(since, until)
    const rows = yield* Effect.flatMap(Index, (i) => i.sessions(r)).pipe(Effect.provide(indexLayer(index)))
    return rows.map((s) => TIMES[Number(s.sessionId.slice(-12))][1]).reduce((a, b) => a + b, 0)
  })

/** The sessions of the prompts `search` finds within the range, by their response's input tokens. */
const searchTokens = (index: string, since?: string, until?: string) =>
  Effect.gen(function*() {
    const r = yield* range(since, until)
    const hits = yield* Effect.flatMap(Index, (i) => i.search("boundaryprobe", { ...r, limit: 100 })).pipe(Effect.provide(indexLayer(index)))
    return [...new Set(hits.map((h) => h.sessionId))].map((s) => TIMES[Number(s.slice(-12))][1]).reduce((a, b) => a + b, 0)
  })

/** The input tokens of the sessions (by native id). */
const sum = (ids: ReadonlyArray<string>) => ids.map((s) => TIMES[Number(s.slice(-12))][1]).reduce((a, b) => a + b, 0)

/** The ranges checked and the tokens each must select: every row whose instant lies in it, and no other. */
const CASES: ReadonlyArray<readonly [string | undefined, string | undefined, number]> = [
  [undefined, undefined, ALL],
  [undefined, "2026-11-10", 8192 + DAY10],
  ["2026-11-11", undefined, DAY11 + 16384],
  ["2026-11-10", "2026-11-10", DAY10],
  ["2026-11-11", "2026-11-11", DAY11],
  // the same instant written several ways selects the same rows
  ["2026-11-11T00:00:00Z", undefined, DAY11 + 16384],
  ["2026-11-11T00:00:00.000000Z", undefined, DAY11 + 16384],
  ["2026-11-11T01:00:00+01:00", undefined, DAY11 + 16384],
  ["2026-11-10T19:00:00-05:00", undefined, DAY11 + 16384],
  [undefined, "2026-11-10T23:59:59.999999999Z", 8192 + DAY10],
  [undefined, "2026-11-11T04:59:59.999999999+05:00", 8192 + DAY10],
  // a bound with sub-ms digits, or an offset, means its instant: inclusive at it, nothing past it
  [undefined, "2026-11-10T23:59:59.999Z", 8192 + 1 + 2 + 4 + 16 + 32],
  [undefined, "2026-11-11T04:59:59.999+05:00", 8192 + 1 + 2 + 4 + 16 + 32],
  [undefined, "2026-11-10T23:59:59.9995Z", 8192 + 1 + 2 + 4 + 8 + 16 + 32],
  ["2026-11-10T23:59:59.9995Z", "2026-11-10T23:59:59.999999999Z", 8 + 64],
  ["2026-11-11T00:00:00.0001Z", "2026-11-11", 128 + 1024 + 2048],
  ["2026-11-11T00:00:00.000001Z", "2026-11-11T00:00:00.000123Z", 128 + 256 + 2048],
  ["2026-11-11T00:00:00.000000001Z", "2026-11-11T00:00:00.000000001Z", 4096]
]

describe.each(engines)("since / until select by instant ($engine)", ({ engine, newIndex }) => {
  it.effect("usage, sessions and search: the boundary millisecond, sub-ms digits, offsets, the same instant written two ways", () =>
    Effect.gen(function*() {
      const c = claudeRoot()
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
      // the unfiltered report by day books each response on its UTC day
      const byDay = yield* usageReport({ by: "day" }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
      expect(byDay.rows.map((r) => [r.key, r.inputTokens])).toEqual([
        ["2026-11-09", 8192],
        ["2026-11-10", DAY10],
        ["2026-11-11", DAY11],
        ["2026-11-12", 16384]
      ])
      for (const [since, until, want] of CASES) {
        const what = `--since ${since} --until ${until}`
        expect(yield* inputTokens(index, since, until), `usage ${what}`).toBe(want)
        expect(yield* sessionTokens(index, since, until), `sessions ${what}`).toBe(want)
        expect(yield* searchTokens(index, since, until), `search ${what}`).toBe(want)
        // the MCP tools read the same bounds (a date: its first instant / all of it)
        const mcp = Effect.provide(Layer.merge(indexLayer(index), Redaction.off))
        const listed = yield* listSessions({ since, until }).pipe(mcp)
        expect(sum(listed.sessions.map((x) => x.id)), `list_sessions ${what}`).toBe(want)
        const found = yield* searchSessions({ query: "boundaryprobe", since, until, limit: 100 }).pipe(mcp)
        expect(sum([...new Set(found.hits.map((h) => h.sessionId))]), `search_sessions ${what}`).toBe(want)
      }
      if (engine === "sqlite") {
        // an index from before the usage table, read without migrating it: its usage rows derived from the stored
        // events, filtered alike
        yield* toLegacyLayout(index)
        const db = new Database(index)
        db.exec("DROP TABLE usage")
        db.prepare("DELETE FROM si_migrations WHERE migration_id >= 5").run()
        db.close()
        const legacy = IndexSqlite.layerReadonly(index)
        const kept = yield* Effect.flatMap(Index, (i) => i.usage({ by: "day" })).pipe(Effect.provide(legacy))
        expect(kept.length).toBeGreaterThan(0)
        for (const [since, until, want] of CASES) {
          expect(yield* inputTokens(index, since, until, legacy), `legacy usage --since ${since} --until ${until}`).toBe(want)
        }
      }
    }))

  it.effect("latest activity first by instant: `sessions --limit`, `usage --by session`", () =>
    Effect.gen(function*() {
      const c = claudeRoot()
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
      const order = [...TIMES.keys()].sort((a, b) => Date.parse(TIMES[b][0]) - Date.parse(TIMES[a][0]))
      const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(indexLayer(index)))
      const instants = sessions.map((s) => s.lastAt!)
      // each later than (or the same instant as) the next
      for (let k = 1; k < instants.length; k++) expect(compareTimestamps(instants[k - 1], instants[k]), `${instants[k - 1]} before ${instants[k]}`).toBeGreaterThanOrEqual(0)
      expect(sessions.length).toBe(order.length)
      // the latest of the day 2026-11-10 (…59.999999999Z) before …59.9995Z before …59.999Z (three forms of one instant)
      const r = yield* range("2026-11-10T23:59:59.9Z", "2026-11-10")
      const day10 = yield* Effect.flatMap(Index, (i) => i.sessions({ ...r, limit: 2 }))
        .pipe(Effect.provide(indexLayer(index)))
      expect(day10.map((s) => s.lastAt)).toEqual(["2026-11-10T23:59:59.999999999Z", "2026-11-10T23:59:59.9995Z"])
      const bySession = yield* usageReport({ by: "session", since: "2026-11-10T23:59:59.9Z", until: "2026-11-10T23:59:59.999999999Z" }, bundledPrices)
        .pipe(Effect.provide(indexLayer(index)))
      expect(bySession.rows.slice(0, 2).map((r) => r.inputTokens)).toEqual([64, 8])
      expect(bySession.rows.slice(2).map((r) => r.inputTokens).sort((a, b) => a! - b!)).toEqual([2, 4, 16, 32])
    }))

  for (const batchSize of [1, 500]) {
    it.effect(`a session's first and last activity are its earliest and latest instants (batch size ${batchSize})`, () =>
      Effect.gen(function*() {
        const c = firstLastRoot()
        const index = yield* newIndex(c.dir)
        yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize }))
        yield* expectFirstLast(index)
      }))
  }
})

describe("since / until select by instant: a team index pushed to", () => {
  it.effect("push keeps a session's first and last activity by instant; the pushed rows filter as imported ones", () =>
    Effect.gen(function*() {
      const c = firstLastRoot()
      const local = path.join(c.dir, "local.db")
      yield* importOnce(c.policy, local, planFromPolicy(c.policy, { batchSize: 1 }))
      const team = yield* migratedDatabase
      yield* push(local, team, "lm")
      yield* expectFirstLast(team)
      const d = claudeRoot()
      const local2 = path.join(d.dir, "local.db")
      yield* importOnce(d.policy, local2, planFromPolicy(d.policy, { batchSize: 500 }))
      const team2 = yield* migratedDatabase
      yield* push(local2, team2, "lm")
      for (const [since, until, want] of CASES) {
        const r = yield* range(since, until)
        const report = yield* usageReport({ by: "provider", ...r, machine: "lm" }, bundledPrices).pipe(Effect.provide(indexLayer(team2)))
        expect(report.total.inputTokens, `usage --machine lm --since ${since} --until ${until}`).toBe(want)
      }
    }))
})
