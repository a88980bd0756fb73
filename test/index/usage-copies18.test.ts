/**
 * The same Claude Code responses in two sessions (tester F3 of session 18): a
 * log copied to a second place (the same session id, another path), or two
 * logs with the same lines under two session ids (a copy renamed, a fork
 * before anything new). Each response counts once (docs/providers.md "claude-code …
 * counts once, in the session where it was seen first"), and:
 *
 * 1. the session whose copies count elsewhere says so: `countedElsewhere:
 *    [{sessionId, sessionUid, responses}]` in its `usage` (`sessions --json`,
 *    `show --json`), a `*` and a note in `sessions`, a line in `show`, a note
 *    in `usage` — never the blank of a source that reports no usage;
 * 2. where a response counts is one rule, whatever the import order, the
 *    engine or the machine: the session that began first, then the one that
 *    ended first, then the response's own time, then the lower session id,
 *    then the lower source id (`sha256:` of the file's real path). Not the
 *    index's source key (a hash that, in a team index, also holds the machine).
 *
 * Each layout is picked so that the rule this replaces (the lower source key)
 * credits the other session, on SQLite and on PostgreSQL for both machines
 * used here; the test checks that precondition against the keys the index made.
 *
 * Totals by hand, claude-sonnet-4-5-20250929 at $3 in, $15 out, $0.30 cache
 * read, $3.75 cache write per million tokens (data/prices.json):
 *   m1 100 in, 200 out, 1,000 cache read, 400 cache write
 *   m2  10 in,  50 out, 2,000 cache read,   0 cache write
 *   both: 110 in, 250 out, 3,000 cache read, 400 cache write, 2 responses;
 *   330 + 3,750 + 900 + 1,500 = 6,480 µ$ = $0.00648.
 *   m3 (the fork's own): 7 in, 70 out: 21 + 1,050 = 1,071 µ$ = $0.001071.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { sourceKey } from "../../src/domain/index/ids.js"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { sourceIdOf } from "../../src/layers/claude-code/source.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { usageBySession, usageElsewhereBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer, TEST_MACHINE } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase } from "../support/pg.js"
import { cli } from "../support/run.js"

const MODEL = "claude-sonnet-4-5-20250929"
/** The machine a push names (the team index keys sources by it). */
const LAPTOP = "laptop-q"
const LOCATOR_CLASS = "claude-code-session-log"

const A = "1a1a1a1a-0000-4000-8000-00000000001a"
const B = "2b2b2b2b-0000-4000-8000-00000000002b"
const S = "5c5c5c5c-0000-4000-8000-00000000005c"

const base = (sid: string) => ({ sessionId: sid, cwd: "/w", isSidechain: false, userType: "external", version: "2.0.76", parentUuid: null })
const prompt = (sid: string, uuid: string, ts: string, text: string) => ({ ...base(sid), type: "user", uuid, timestamp: ts, message: { role: "user", content: text } })
const answer = (sid: string, uuid: string, ts: string, id: string, req: string, text: string, u: readonly [number, number, number, number]) => ({
  ...base(sid),
  type: "assistant",
  uuid,
  timestamp: ts,
  requestId: req,
  message: {
    id,
    role: "assistant",
    model: MODEL,
    content: [{ type: "text", text }],
    usage: { input_tokens: u[0], output_tokens: u[1], cache_read_input_tokens: u[2], cache_creation_input_tokens: u[3] }
  }
})
/** The conversation both copies hold: two responses (m1, m2), 09:00:00 to 09:01:03; `tag` makes other response ids. */
const conversation = (sid: string, tag = "") => [
  prompt(sid, "u1", "2026-05-01T09:00:00.000Z", "explain the parser"),
  answer(sid, "a1", "2026-05-01T09:00:02.000Z", `msg_m1${tag}`, `req_r1${tag}`, "it reads lines", [100, 200, 1000, 400]),
  prompt(sid, "u2", "2026-05-01T09:01:00.000Z", "and the writer?"),
  answer(sid, "a2", "2026-05-01T09:01:03.000Z", `msg_m2${tag}`, `req_r2${tag}`, "it writes rows", [10, 50, 2000, 0])
]
/** A fork of `conversation` that goes on: its own response m3 at 09:05 (so it ends after the original). */
const forked = (sid: string) => [
  ...conversation(sid),
  prompt(sid, "u3", "2026-05-01T09:05:00.000Z", "and the tests?"),
  answer(sid, "a3", "2026-05-01T09:05:02.000Z", "msg_m3", "req_r3", "they run", [7, 70, 0, 0])
]

const BOTH = [110, 250, 3000, 400, 2]
const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.responses]

/** A log: its folder under the Claude root, its session id, its lines. */
interface Log {
  readonly folder: string
  readonly sessionId: string
  readonly lines: ReadonlyArray<unknown>
}

const corpus = () => {
  const dir = tempDir("si-usage-copies-")
  const root = nodePath.join(dir, "projects")
  fs.mkdirSync(root, { recursive: true })
  fs.mkdirSync(nodePath.join(dir, "agents"), { recursive: true })
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), claudeRoot: root }
  const pathOf = (log: Pick<Log, "folder" | "sessionId">) => nodePath.join(root, log.folder, `${log.sessionId}.jsonl`)
  const write = (log: Log) => {
    fs.mkdirSync(nodePath.join(root, log.folder), { recursive: true })
    fs.writeFileSync(pathOf(log), log.lines.map((r) => JSON.stringify(r) + "\n").join(""))
  }
  return { dir, root, policy, pathOf, write }
}
type Corpus = ReturnType<typeof corpus>

/** The source key the index gives a log (SQLite: no machine; a team index: the machine's). */
const keyOf = (c: Corpus, log: Pick<Log, "folder" | "sessionId">, machine?: string) =>
  sourceKey("claude-code", { locatorClass: LOCATOR_CLASS, path: c.pathOf(log), sessionId: log.sessionId }, machine)
const MACHINES = [undefined, TEST_MACHINE, LAPTOP]

/**
 * Two folders for the logs of ids `first` and `second` such that the lower
 * source key (the rule replaced) picks the second on every machine, and the
 * second wins on the lower source id too only when `sameId` (then the rule
 * has to pick the first by source id: the first is the lower one).
 */
const layout = (c: Corpus, first: string, second: string) => {
  // 64 folders: a pair qualifies with odds of 1 in 8 (1 in 16 for the same id), so one is there but once in ~10^100 roots.
  const folders = Array.from({ length: 64 }, (_, k) => `-w-copy-${k}`)
  for (const f of folders) {
    for (const g of folders) {
      if (f === g) continue
      const x = { folder: f, sessionId: first }
      const y = { folder: g, sessionId: second }
      const keyPicksSecond = MACHINES.every((m) => keyOf(c, y, m) < keyOf(c, x, m))
      const idPicksFirst = first !== second || sourceIdOf(c.pathOf(x)) < sourceIdOf(c.pathOf(y))
      if (keyPicksSecond && idPicksFirst) return { first: x, second: y }
    }
  }
  throw new Error("no layout where the source key and the rule disagree (64 folders)")
}

/** Every session's usage and what counts elsewhere, by `<session id> <real path>` (the same on both engines). */
const attribution = (index: string, machine?: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const used = yield* usageBySession(bundledPrices)
    const elsewhere = yield* usageElsewhereBySession()
    const nameOf = new Map(sessions.map((s) => [s.sessionUid, `${s.sessionId} ${s.locator.path}`]))
    const out: Record<string, unknown> = {}
    for (const s of sessions) {
      out[nameOf.get(s.sessionUid)!] = {
        tokens: tokens(used.get(s.sessionUid)),
        cost: used.get(s.sessionUid)?.costUsd ?? null,
        elsewhere: (elsewhere.get(s.sessionUid) ?? []).map((e) => ({ in: nameOf.get(e.sessionUid), sessionId: e.sessionId, responses: e.responses }))
      }
    }
    const total = (yield* usageReport({ by: "provider" }, bundledPrices)).total
    return { sessions: out, total: [total.inputTokens, total.outputTokens, total.cacheReadTokens, total.cacheWriteTokens, total.responses, total.costUsd] }
  }).pipe(Effect.provide(indexLayer(index, machine)))

const name = (c: Corpus, log: Pick<Log, "folder" | "sessionId">) => `${log.sessionId} ${c.pathOf(log)}`
const TOTAL = [...BOTH, 0.00648]

/** The three import orders: the first log then the second (two runs), the reverse, both in one run. */
const orders = ["first, then second", "second, then first", "both in one run"] as const

const importIn = (c: Corpus, order: (typeof orders)[number], logs: readonly [Log, Log], index: string) =>
  Effect.gen(function*() {
    const plan = () => planFromPolicy(c.policy, { batchSize: 500 })
    fs.rmSync(c.root, { recursive: true, force: true })
    fs.mkdirSync(c.root, { recursive: true })
    if (order === "both in one run") {
      logs.forEach(c.write)
      yield* importOnce(c.policy, index, plan())
    } else {
      const [x, y] = order === "first, then second" ? logs : [logs[1], logs[0]]
      c.write(x)
      yield* importOnce(c.policy, index, plan())
      c.write(y)
      yield* importOnce(c.policy, index, plan())
    }
  })

/** The precondition: the index keyed the logs as `keyOf` says (so the layout is one the replaced rule gets wrong). */
const expectKeys = (index: string, c: Corpus, logs: ReadonlyArray<Log>, machine?: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    expect(sessions.map((s) => s.sourceKey).sort()).toEqual(logs.map((l) => keyOf(c, l, machine)).sort())
  }).pipe(Effect.provide(indexLayer(index)))

describe.each(engines)("the same responses in two sessions ($engine)", ({ engine, newIndex }) => {
  const machine = engine === "postgres" ? TEST_MACHINE : undefined

  it.effect("a log copied to a second place: counted once, in the copy of the lower source id, whatever the import order; the other copy says where", () =>
    Effect.gen(function*() {
      const c = corpus()
      const { first, second } = layout(c, S, S)
      const logs = [{ ...first, lines: conversation(S) }, { ...second, lines: conversation(S) }] as const
      const seen: Array<unknown> = []
      for (const order of orders) {
        const index = yield* newIndex(c.dir)
        yield* importIn(c, order, logs, index)
        yield* expectKeys(index, c, logs, machine)
        const got = yield* attribution(index)
        const winnerUid = (yield* Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(indexLayer(index))))
          .find((s) => s.locator.path === c.pathOf(first))!.sessionUid
        expect(got.total).toEqual(TOTAL)
        expect(got.sessions[name(c, first)]).toEqual({ tokens: BOTH, cost: 0.00648, elsewhere: [] })
        expect(got.sessions[name(c, second)]).toEqual({ tokens: null, cost: null, elsewhere: [{ in: name(c, first), sessionId: S, responses: 2 }] })
        const elsewhere = yield* usageElsewhereBySession().pipe(Effect.provide(indexLayer(index)))
        expect([...elsewhere.values()].flat().map((e) => e.sessionUid)).toEqual([winnerUid])
        seen.push(got)
      }
      expect(seen[1]).toEqual(seen[0])
      expect(seen[2]).toEqual(seen[0])
    }))

  it.effect("two logs of the same lines under two session ids, the same times: counted in the lower session id, whatever the order", () =>
    Effect.gen(function*() {
      const c = corpus()
      const { first, second } = layout(c, A, B)
      const logs = [{ ...first, lines: conversation(A) }, { ...second, lines: conversation(B) }] as const
      for (const order of orders) {
        const index = yield* newIndex(c.dir)
        yield* importIn(c, order, logs, index)
        yield* expectKeys(index, c, logs, machine)
        const got = yield* attribution(index)
        expect(got.total).toEqual(TOTAL)
        expect(got.sessions[name(c, first)]).toEqual({ tokens: BOTH, cost: 0.00648, elsewhere: [] })
        expect(got.sessions[name(c, second)]).toEqual({ tokens: null, cost: null, elsewhere: [{ in: name(c, first), sessionId: A, responses: 2 }] })
      }
    }))

  it.effect("a fork that goes on keeps its own response and says the copied two count in the session it forked", () =>
    Effect.gen(function*() {
      const c = corpus()
      // B's log begins as A's and ends later: A ended first, so A is where m1 and m2 were seen first.
      const logs = [{ folder: "-w", sessionId: A, lines: conversation(A) }, { folder: "-w", sessionId: B, lines: forked(B) }] as const
      for (const order of orders) {
        const index = yield* newIndex(c.dir)
        yield* importIn(c, order, logs, index)
        const got = yield* attribution(index)
        expect(got.total).toEqual([117, 320, 3000, 400, 3, 0.007551])
        expect(got.sessions[name(c, logs[0])]).toEqual({ tokens: BOTH, cost: 0.00648, elsewhere: [] })
        expect(got.sessions[name(c, logs[1])]).toEqual({ tokens: [7, 70, 0, 0, 1], cost: 0.001071, elsewhere: [{ in: name(c, logs[0]), sessionId: A, responses: 2 }] })
        // `usage --by session`: the fork's row has its own response and names where the copies count; the note counts them.
        const report = yield* usageReport({ by: "session" }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
        expect(report.rows.map((r) => [r.key, r.responses, r.countedElsewhere?.map((e) => [e.sessionId, e.responses]) ?? null])).toEqual([
          [B, 1, [[A, 2]]],
          [A, 2, null]
        ])
        expect(report.notes).toEqual([{ kind: "counted-elsewhere", responses: 2, sessions: 1 }])
        // within filters: the copies' own times (09:00:02, 09:01:03) before --since 09:05 leave no copy to note
        const later = yield* usageReport({ by: "session", since: "2026-05-01T09:05:00.000Z" }, bundledPrices).pipe(Effect.provide(indexLayer(index)))
        expect(later.rows.map((r) => [r.key, r.responses, r.countedElsewhere ?? null])).toEqual([[B, 1, null]])
        expect(later.notes).toEqual([])
      }
    }))
})

describe("the same responses in two sessions: engines, push and an index from before the usage table agree", () => {
  it.effect("SQLite, PostgreSQL (imported, and pushed from the SQLite index) and a legacy SQLite index credit the same copy", () =>
    Effect.gen(function*() {
      const c = corpus()
      const copy = layout(c, S, S)
      const renamed = layout(c, A, B)
      // Both layouts at once: four logs, two groups of copies (other response ids, other paths).
      const logs: ReadonlyArray<Log> = [
        { ...copy.first, lines: conversation(S, "_s") },
        { ...copy.second, lines: conversation(S, "_s") },
        { ...renamed.first, lines: conversation(A) },
        { ...renamed.second, lines: conversation(B) }
      ]
      logs.forEach(c.write)
      const local = nodePath.join(c.dir, "local.db")
      yield* importOnce(c.policy, local, planFromPolicy(c.policy, { batchSize: 500 }))
      const fromSqlite = yield* attribution(local)
      expect(fromSqlite.total).toEqual([220, 500, 6000, 800, 4, 0.01296])
      expect((fromSqlite.sessions[name(c, copy.second)] as { elsewhere: unknown }).elsewhere).toEqual([{ in: name(c, copy.first), sessionId: S, responses: 2 }])
      expect((fromSqlite.sessions[name(c, renamed.second)] as { elsewhere: unknown }).elsewhere).toEqual([{ in: name(c, renamed.first), sessionId: A, responses: 2 }])
      const direct = yield* migratedDatabase
      yield* importOnce(c.policy, direct, planFromPolicy(c.policy, { batchSize: 500 }))
      expect(yield* attribution(direct)).toEqual(fromSqlite)
      const pushed = yield* migratedDatabase
      yield* push(local, pushed, LAPTOP)
      expect(yield* attribution(pushed, LAPTOP)).toEqual(fromSqlite)
      // An index from before the usage table: the rows derived from its events, the same rule.
      yield* toLegacyLayout(local)
      const db = new Database(local)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      expect(yield* attribution(local)).toEqual(fromSqlite)
    }))
})

const run = (args: ReadonlyArray<string>) => cli(args, { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") } })
const json = (args: ReadonlyArray<string>) => {
  const r = run([...args, "--json"])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout).data
}

describe.each(engines)("the same responses in two sessions via the CLI ($engine)", ({ engine, newIndex }) => {
  it.effect("sessions, show and usage say where a copy's usage counted (text and --json), never the blank of no usage", () =>
    Effect.gen(function*() {
      const c = corpus()
      const renamed = layout(c, A, B)
      const logs = [{ ...renamed.first, lines: conversation(A) }, { ...renamed.second, lines: conversation(B) }] as const
      const index = yield* newIndex(c.dir)
      yield* importIn(c, "both in one run", logs, index)
      const rows = json(["sessions", "--index", index]) as Array<{ sessionId: string; sessionUid: string; usage: Record<string, unknown> }>
      const a = rows.find((r) => r.sessionId === A)!
      const b = rows.find((r) => r.sessionId === B)!
      expect(a.usage).toEqual({ inputTokens: 110, outputTokens: 250, cacheReadTokens: 3000, cacheWriteTokens: 400, cacheWrite1hTokens: null, costUsd: 0.00648 })
      const nothingHere = { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null, costUsd: null }
      expect(b.usage).toEqual({ ...nothingHere, countedElsewhere: [{ provider: "claude-code", sessionId: A, sessionUid: a.sessionUid, responses: 2 }] })
      expect(json(["show", B, "--index", index]).session.usage).toEqual(b.usage)

      const listing = run(["sessions", "--index", index])
      expect(listing.code).toBe(0)
      const [header, ...lines] = listing.stdout.trimEnd().split("\n")
      const tokensEnd = header.indexOf("tokens") + "tokens".length
      const lineOf = (id: string) => lines.find((l) => l.includes(id) && !l.startsWith("*"))!
      expect(lineOf(B).slice(0, tokensEnd).trimEnd()).toMatch(/ \*$/)
      expect(lineOf(A).slice(0, tokensEnd)).toMatch(/ 3,760$/) // 110 + 250 + 3,000 + 400
      expect(listing.stdout).toContain(`* ${B}: 2 responses counted in session ${A}`)

      const shown = run(["show", B, "--format", "transcript", "--index", index])
      expect(shown.stdout).toMatch(new RegExp(`\\ntokens: 2 responses counted in session ${A} \\(`))
      expect(shown.stdout).not.toContain("not reported")

      const report = json(["usage", "--by", "session", "--index", index])
      expect(report.rows.map((r: { key: string }) => r.key)).toEqual([A])
      expect(report.total).toEqual({ inputTokens: 110, outputTokens: 250, cacheReadTokens: 3000, cacheWriteTokens: 400, cacheWrite1hTokens: null, costUsd: 0.00648, responses: 2 })
      expect(report.notes).toEqual([{ kind: "counted-elsewhere", responses: 2, sessions: 1 }])
      expect(run(["usage", "--index", index]).stdout).toMatch(/note: 2 responses of 1 session counted in another session/)
    }), engine === "postgres" ? 60_000 : 30_000)
})
