/**
 * Copies of a Claude Code response that has no `requestId` (tester33b F2).
 * Inside one log such a response's lines are grouped by `message.id` alone
 * (fixtures/claude-code/README.md "Counting once": ccusage's key is
 * `messageId:requestId`, `messageId` alone when there is no `requestId`;
 * open question 2: "some writers leave it out or empty"). The same key holds
 * across copies of the log (docs/usage-and-cost.md "Copies of a response"):
 * a resumed log that repeats the response, and the same log pushed from
 * several machines to a team index, count it once.
 *
 * The tester's shape: `msg_NR` written as two streamed lines without a
 * `requestId` (1,000 in, 100 then 400 out: the last line counts). Here also
 * `msg_EM` with an empty `requestId` (500 in, 0 out). The resumed copy (another
 * session id, the same lines, later) adds its own id-only response `msg_NEW`
 * (2,000 in, 100 out), which counts.
 *
 * Totals by hand, claude-haiku-4-5 at $1 in, $5 out per million tokens
 * (data/prices.json):
 *   msg_NR  1,000 in, 400 out: $0.001 + $0.002  = $0.003
 *   msg_EM    500 in,   0 out: $0.0005          = $0.0005
 *   msg_NEW 2,000 in, 100 out: $0.002 + $0.0005 = $0.0025
 *   original: 1,500 in, 400 out, 2 responses, $0.0035;
 *   copy: 2,000 in, 100 out, 1 response, $0.0025 (the two copied count in the original);
 *   all: 3,500 in, 500 out, 3 responses, $0.006.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { usageBySession, usageElsewhereBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer, TEST_MACHINE } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase } from "../support/pg.js"

const MODEL = "claude-haiku-4-5"
const ORIGINAL = "a1a1a1a1-0000-4000-8000-000000000003"
const RESUMED = "a1a1a1a1-0000-4000-8000-000000000013"

const base = (sid: string) => ({ sessionId: sid, cwd: "/home/tess/code/pricing", isSidechain: false, userType: "external", version: "2.0.76" })
const prompt = (sid: string, uuid: string, parent: string | null, ts: string, text: string) => ({
  ...base(sid), parentUuid: parent, type: "user", uuid, timestamp: ts, message: { role: "user", content: text }
})
/** An assistant line; `req` undefined: no `requestId` field at all. */
const answer = (sid: string, uuid: string, parent: string, ts: string, id: string, req: string | undefined, i: number, o: number) => ({
  ...base(sid),
  parentUuid: parent,
  type: "assistant",
  uuid,
  timestamp: ts,
  ...(req !== undefined ? { requestId: req } : {}),
  message: { id, type: "message", role: "assistant", model: MODEL, content: [{ type: "text", text: `answer ${id}` }], usage: { input_tokens: i, output_tokens: o, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }
})
/** The conversation both logs hold: msg_NR as two streamed lines without a requestId, msg_EM with an empty one. */
const conversation = (sid: string) => [
  prompt(sid, "u301", null, "2026-11-20T12:00:00.000Z", "no request id prompt"),
  answer(sid, "u302", "u301", "2026-11-20T12:00:01.000Z", "msg_NR", undefined, 1000, 100),
  answer(sid, "u303", "u302", "2026-11-20T12:00:02.000Z", "msg_NR", undefined, 1000, 400),
  prompt(sid, "u304", "u303", "2026-11-20T12:00:10.000Z", "and again"),
  answer(sid, "u305", "u304", "2026-11-20T12:00:11.000Z", "msg_EM", "", 500, 0)
]
/** The resumed log: the conversation again, then its own id-only response. */
const resumed = (sid: string) => [
  ...conversation(sid),
  prompt(sid, "u306", "u305", "2026-11-20T13:00:00.000Z", "resumed"),
  answer(sid, "u307", "u306", "2026-11-20T13:00:01.000Z", "msg_NEW", undefined, 2000, 100)
]

const corpus = () => {
  const dir = tempDir("si-usage-id-only-")
  const root = nodePath.join(dir, "projects")
  const folder = nodePath.join(root, "-home-tess-code-pricing")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(nodePath.join(dir, "agents"), { recursive: true })
  const write = (sid: string, lines: ReadonlyArray<unknown>) =>
    fs.writeFileSync(nodePath.join(folder, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  write(ORIGINAL, conversation(ORIGINAL))
  write(RESUMED, resumed(RESUMED))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), claudeRoot: root }
  return { dir, policy }
}

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.responses]
const cents = (n: number | null | undefined) => n == null ? null : Math.round(n * 1e9) / 1e9

/** Each session's usage and where its copies count, by native session id; the report's total. */
const attribution = (index: string, machine?: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const used = yield* usageBySession(bundledPrices)
    const elsewhere = yield* usageElsewhereBySession()
    const idOf = new Map(sessions.map((s) => [s.sessionUid, s.sessionId]))
    const out: Record<string, Array<unknown>> = {}
    for (const s of sessions) {
      const u = used.get(s.sessionUid)
      const rows = [tokens(u), cents(u?.costUsd), (elsewhere.get(s.sessionUid) ?? []).map((e) => [idOf.get(e.sessionUid), e.responses])]
      ;(out[s.sessionId] ??= []).push(rows)
    }
    const total = (yield* usageReport({ by: "session" }, bundledPrices)).total
    return { sessions: out, total: [total.inputTokens, total.outputTokens, total.responses, cents(total.costUsd)] }
  }).pipe(Effect.provide(indexLayer(index, machine)))

const TOTAL = [3500, 500, 3, 0.006]
const EXPECTED = {
  sessions: {
    [ORIGINAL]: [[[1500, 400, 2], 0.0035, []]],
    [RESUMED]: [[[2000, 100, 1], 0.0025, [[ORIGINAL, 2]]]]
  },
  total: TOTAL
}

describe.each(engines)("a response without a requestId in two logs ($engine)", ({ engine, newIndex }) => {
  it.effect("counted once, in the session that began first; the resumed log's own id-only response counts there", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
      expect(yield* attribution(index, engine === "postgres" ? TEST_MACHINE : undefined)).toEqual(EXPECTED)
    }))
})

describe("a response without a requestId: a team index the same log is pushed to from several machines, and a legacy index", () => {
  it.effect("pushed as alice, carol and dave: counted once, the team's total the single copy's", () =>
    Effect.gen(function*() {
      const c = corpus()
      const local = nodePath.join(c.dir, "local.db")
      yield* importOnce(c.policy, local, planFromPolicy(c.policy, { batchSize: 500 }))
      expect(yield* attribution(local)).toEqual(EXPECTED)
      const team = yield* migratedDatabase
      for (const machine of ["alice", "carol", "dave"]) yield* push(local, team, machine)
      const got = yield* attribution(team, "alice")
      expect(got.total).toEqual(TOTAL)
      // Three machines' copies of each session: one of the original's and one of the copy's count, the others say where.
      expect(got.sessions[ORIGINAL]).toHaveLength(3)
      expect(got.sessions[RESUMED]).toHaveLength(3)
      const counted = [...got.sessions[ORIGINAL], ...got.sessions[RESUMED]].filter((r) => (r as Array<unknown>)[0] !== null)
      expect(counted.map((r) => (r as Array<unknown>).slice(0, 2)).sort()).toEqual([[[1500, 400, 2], 0.0035], [[2000, 100, 1], 0.0025]].sort())
    }))

  it.effect("an index from before the usage table (rows derived from the events) applies the same key", () =>
    Effect.gen(function*() {
      const c = corpus()
      const local = nodePath.join(c.dir, "legacy.db")
      yield* importOnce(c.policy, local, planFromPolicy(c.policy, { batchSize: 500 }))
      yield* toLegacyLayout(local)
      const db = new Database(local)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      expect(yield* attribution(local)).toEqual(EXPECTED)
    }))
})
