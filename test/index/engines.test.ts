/**
 * The import/query contract, the same cases against each engine of the
 * index (SQLite file, PostgreSQL server): import, re-import unchanged,
 * append, supersede, the `sessions` filters, `show` (a session by id or
 * prefix, its transcript, its events a page at a time) and `export` (ATIF);
 * and both engines, fed the same sources, show the same sessions and events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { AtifTrajectory, toAtif } from "../../src/domain/atif.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { findSession, loadSession, loadTrajectory, sessionTranscript } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { dumpIndex, importOnce, indexLayer, TEST_MACHINE } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const item = (seq: number, text: string, minute = 0) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T10:${String(minute).padStart(2, "0")}:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

/** The bundled Muse agents and Claude Code fixtures copied to a temp folder, plus one agent transcript of `n` messages to append to. */
const corpus = (n: number) => {
  const dir = tempDir()
  const agents = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), agents, { recursive: true })
  const claude = path.join(dir, "claude")
  fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), claude, { recursive: true })
  const sessions = path.join(agents, "zz-appender", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "zz-appender.jsonl")
  let text = JSON.stringify({ type: "session_header", session_id: "s-append", agent_id: "zz-appender", created_at: "2025-04-01T10:00:00Z" }) + "\n"
  for (let i = 1; i <= n; i++) text += item(i, `message number ${i}`)
  fs.writeFileSync(file, text)
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents, claudeRoot: claude }
  return { dir, file, policy, plan: planFromPolicy(policy, { batchSize: 3 }) }
}

const withIndex = <A, E>(index: string, effect: Effect.Effect<A, E, Index>) => effect.pipe(Effect.provide(indexLayer(index)))

/** What the query commands show, without what names the engine's keys (uids, source keys, generations, the machine: see `machines`). */
const view = (index: string) =>
  withIndex(
    index,
    Effect.gen(function*() {
      const i = yield* Index
      const out: Array<unknown> = []
      for (const s of yield* i.sessions({})) {
        const { generation: _g, machine: _m, sessionUid: _u, sourceKey: _k, ...row } = s
        out.push({ row, events: yield* i.events(s.sessionUid) })
      }
      return out.sort((a: any, b: any) =>
        `${a.row.provider}:${a.row.sessionId}:${a.row.sourceId}`.localeCompare(`${b.row.provider}:${b.row.sessionId}:${b.row.sourceId}`)
      )
    })
  )

/** The machines the sessions of `index` name (F9): none on SQLite (null), the importing machine's on PostgreSQL. */
const machines = (index: string) => withIndex(index, Effect.map(Effect.flatMap(Index, (i) => i.sessions({})), (rows) => [...new Set(rows.map((s) => s.machine))]))

describe.each(engines)("index contract ($engine)", ({ newIndex }) => {
  it.effect("import, then re-import unchanged: nothing added, every source unchanged, the rows as they were", () =>
    Effect.gen(function*() {
      const c = corpus(4)
      const index = yield* newIndex(c.dir)
      const first = yield* importOnce(c.policy, index, c.plan)
      expect(first.sources.accepted).toBeGreaterThan(5)
      expect(first.sources.rejected).toBe(0)
      expect(first.sessionsAdded).toBeGreaterThan(5)
      const counts = yield* withIndex(index, Effect.flatMap(Index, (i) => i.counts))
      expect(counts.events).toBe(first.eventsAdded)
      expect(counts.sessions).toBe(first.sessionsAdded)
      const before = yield* dumpIndex(index)
      const again = yield* importOnce(c.policy, index, c.plan)
      expect(again.sources).toMatchObject({ accepted: 0, unchanged: first.sources.accepted, rejected: 0 })
      expect([again.eventsAdded, again.sessionsAdded]).toEqual([0, 0])
      expect(again.coverage).toBe(first.coverage)
      expect(yield* dumpIndex(index)).toEqual(before)
    }))

  it.effect("append: only the new events are imported, into the same generation", () =>
    Effect.gen(function*() {
      const c = corpus(5)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      fs.appendFileSync(c.file, item(6, "sixth") + item(7, "seventh"))
      const r = yield* importOnce(c.policy, index, c.plan)
      expect(r.sources).toMatchObject({ accepted: 1, newGenerations: 0 })
      expect([r.eventsAdded, r.sessionsAdded]).toEqual([2, 0])
      const { events, session } = yield* withIndex(index, loadSession("s-append"))
      expect(session.generation).toBe(1)
      expect(session.eventCount).toBe(7)
      expect(events.map((e) => e.text)).toEqual([1, 2, 3, 4, 5].map((i) => `message number ${i}`).concat(["sixth", "seventh"]))
    }))

  it.effect("supersede: a rewritten prefix is a new generation; only it is shown, the old one is kept superseded", () =>
    Effect.gen(function*() {
      const c = corpus(5)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      fs.writeFileSync(c.file, fs.readFileSync(c.file, "utf8").replace("message number 2", "MESSAGE NUMBER 2") + item(6, "sixth"))
      const r = yield* importOnce(c.policy, index, c.plan)
      expect(r.sources.newGenerations).toBe(1)
      expect(r.eventsAdded).toBe(6)
      // A new generation of a session the index holds is no session added (tester32a F1).
      expect(r.sessionsAdded).toBe(0)
      const { events, others, session } = yield* withIndex(index, loadSession("s-append"))
      expect([session.generation, session.eventCount, others.length]).toEqual([2, 6, 0])
      expect(events[1].text).toBe("MESSAGE NUMBER 2")
      const listed = yield* withIndex(index, Effect.flatMap(Index, (i) => i.sessions({})))
      expect(listed.filter((s) => s.sessionId === "s-append").length).toBe(1)
      const gens = (yield* dumpIndex(index)).generations as Array<{ source_key: string; generation: number; superseded: number }>
      const mine = gens.filter((g) => g.source_key === session.sourceKey).map((g) => [g.generation, Number(g.superseded)])
      expect(mine).toEqual([[1, 1], [2, 0]])
    }))

  it.effect("sessions: latest first, and the provider, since, until, workspace and limit filters", () =>
    Effect.gen(function*() {
      const c = corpus(3)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      const all = yield* withIndex(index, Effect.flatMap(Index, (i) => i.sessions({})))
      const times = all.map((s) => s.lastAt).filter((t): t is string => t !== null)
      expect(times).toEqual([...times].sort().reverse())
      const query = (f: Parameters<Index["Type"]["sessions"]>[0]) => withIndex(index, Effect.flatMap(Index, (i) => i.sessions(f)))
      const claude = yield* query({ provider: "claude-code" })
      expect(claude.length).toBeGreaterThan(0)
      expect(claude.every((s) => s.provider === "claude-code")).toBe(true)
      expect(claude.length + (yield* query({ provider: "muse-agents" })).length).toBe(all.length)
      const mid = times[Math.floor(times.length / 2)]
      expect((yield* query({ since: mid })).map((s) => s.sessionUid)).toEqual(all.filter((s) => s.lastAt !== null && s.lastAt >= mid).map((s) => s.sessionUid))
      expect((yield* query({ until: mid })).map((s) => s.sessionUid)).toEqual(
        all.filter((s) => s.firstAt !== null && s.firstAt <= mid).map((s) => s.sessionUid)
      )
      expect((yield* query({ limit: 2 })).map((s) => s.sessionUid)).toEqual(all.slice(0, 2).map((s) => s.sessionUid))
      const ws = all.find((s) => s.workspace !== null)!.workspace!
      const inWs = yield* query({ workspace: ws })
      expect(inWs.length).toBeGreaterThan(0)
      expect(inWs.every((s) => s.workspace === ws || s.workspace!.startsWith(ws + "/"))).toBe(true)
      expect(yield* query({ workspace: ws + "_no_such" })).toEqual([])
    }))

  it.effect("show: a session by native id, uid or prefix, with its transcript and its events a page at a time", () =>
    Effect.gen(function*() {
      const c = corpus(7)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      const byId = yield* withIndex(index, loadSession("s-append"))
      expect(byId.events.length).toBe(7)
      const byUid = yield* withIndex(index, findSession(byId.session.sessionUid))
      expect(byUid.session.sessionId).toBe("s-append")
      const byPrefix = yield* withIndex(index, findSession(byId.session.sessionUid.slice(0, 12)))
      expect(byPrefix.session.sessionUid).toBe(byId.session.sessionUid)
      const ambiguous = yield* Effect.flip(withIndex(index, findSession("ses_")))
      expect(ambiguous.code).toBe("INVALID_ARGUMENT")
      const missing = yield* Effect.flip(withIndex(index, findSession("no-such-session")))
      expect(missing.code).toBe("SOURCE_NOT_FOUND")
      const t = sessionTranscript(byId)
      expect(t.turns.length).toBe(7)
      for (const pageSize of [1, 2, 3, 7, 100]) {
        const paged = yield* withIndex(index, Effect.flatMap(Index, (i) => Stream.runCollect(i.eventsStream(byId.session.sessionUid, pageSize))))
        expect([...paged].map((e) => e.eventId)).toEqual(byId.events.map((e) => e.eventId))
      }
      const bytes = yield* withIndex(index, Effect.flatMap(Index, (i) => i.sessionBytes(byId.session.sessionUid)))
      expect(bytes).toBeGreaterThan(0)
    }))

  it.effect("export: every session's ATIF trajectory decodes", () =>
    Effect.gen(function*() {
      const c = corpus(3)
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      const all = yield* withIndex(index, Effect.flatMap(Index, (i) => i.sessions({})))
      for (const s of all) {
        const atif = toAtif(yield* withIndex(index, loadTrajectory(s.sessionUid)))
        const decoded = Schema.decodeUnknownSync(AtifTrajectory)(JSON.parse(JSON.stringify(atif)))
        expect(decoded.session_id).toBe(s.sessionId)
      }
    }))
})

describe("index contract: both engines", () => {
  it.effect("fed the same sources, SQLite and PostgreSQL show the same sessions and events", () =>
    Effect.gen(function*() {
      const c = corpus(6)
      const [sqlite, postgres] = yield* Effect.all(engines.map((e) => e.newIndex(c.dir)))
      yield* importOnce(c.policy, sqlite, c.plan)
      yield* importOnce(c.policy, postgres, c.plan)
      fs.appendFileSync(c.file, item(7, "seventh"))
      const a = yield* importOnce(c.policy, sqlite, c.plan)
      const b = yield* importOnce(c.policy, postgres, c.plan)
      expect(b.sources).toEqual(a.sources)
      expect([b.eventsAdded, b.sessionsAdded, b.coverage]).toEqual([a.eventsAdded, a.sessionsAdded, a.coverage])
      const want = yield* view(sqlite)
      expect(want.length).toBeGreaterThan(5)
      expect(yield* view(postgres)).toEqual(want)
      expect([yield* machines(sqlite), yield* machines(postgres)]).toEqual([[null], [TEST_MACHINE]])
      // A machine filter: the importing machine's keeps every PostgreSQL session, another none; SQLite names none.
      const count = (index: string, machine: string) => withIndex(index, Effect.map(Effect.flatMap(Index, (i) => i.sessions({ machine })), (rows) => rows.length))
      expect([yield* count(postgres, TEST_MACHINE), yield* count(postgres, "other"), yield* count(sqlite, TEST_MACHINE)]).toEqual([want.length, 0, 0])
    }))
})
