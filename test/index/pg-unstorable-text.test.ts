/**
 * Text PostgreSQL cannot hold as it is (issue 17, "same guarantees as
 * SQLite"): a NUL character (U+0000) and lone UTF-16 surrogates (`\ud800`)
 * in a session. `text` and `jsonb` refuse U+0000 (`22021`), and `json` /
 * `jsonb` refuse a `\u0000` escape and a lone surrogate's escape; the driver
 * would turn a lone surrogate of a plain-text value into U+FFFD. The same
 * cases run on both engines: the import takes every source, a re-import
 * finds them unchanged, the queries give the events' text exactly as the
 * source has it (search finds the words around a NUL, `eventsAround` finds
 * the event), a push brings the same into the team index and a second push
 * finds nothing to do; and the CLI's query commands print the same on both.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { loadSession } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase } from "../support/pg.js"
import { cli } from "../support/run.js"

const A = "99999991-9999-4999-8999-999999999999"
const B = "99999992-9999-4999-8999-999999999999"
const T = "2026-04-01T00:00:0"

/** A Claude Code root: session A with NUL characters (its title, a workspace, a model, a message id) and lone surrogates; session B clean. */
const corpus = () => {
  const dir = tempDir()
  const root = path.join(dir, "claude")
  const project = path.join(root, "-p")
  fs.mkdirSync(project, { recursive: true })
  // JSON.stringify writes U+0000 and lone surrogates as escapes (valid JSON), as Claude Code does.
  const line = (v: unknown) => JSON.stringify(v) + "\n"
  fs.writeFileSync(
    path.join(project, `${A}.jsonl`),
    line({ type: "user", sessionId: A, uuid: "q1", cwd: "/w/x\u0000y", message: { role: "user", content: "nul \u0000 here" }, timestamp: `${T}0Z` }) +
      line({
        type: "assistant",
        sessionId: A,
        uuid: "a1",
        parentUuid: "q1",
        cwd: "/w/x\u0000y",
        message: {
          id: "msg_\u00001",
          role: "assistant",
          model: "model-\u0000-x",
          content: [{ type: "text", text: "answer \u0000\u0000 tail" }],
          usage: { input_tokens: 3, output_tokens: 4 }
        },
        timestamp: `${T}1Z`
      }) +
      line({ type: "user", sessionId: A, uuid: "q2", parentUuid: "a1", cwd: "/w/x\u0000y", message: { role: "user", content: "lone \ud800 high \udc00 low \uffff end" }, timestamp: `${T}2Z` })
  )
  fs.writeFileSync(
    path.join(project, `${B}.jsonl`),
    line({ type: "user", sessionId: B, uuid: "q1", cwd: "/w/clean", message: { role: "user", content: "clean session text" }, timestamp: `${T}3Z` })
  )
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "no-agents"), claudeRoot: root }
  return { dir, root, policy, plan: planFromPolicy(policy, { batchSize: 2 }) }
}

const withIndex = <A, E>(index: string, effect: Effect.Effect<A, E, Index>) => effect.pipe(Effect.provide(indexLayer(index)))

/**
 * What the queries show, without what names the engine's keys (uids, source keys) or the machine (null on SQLite,
 * the importing machine's on PostgreSQL: test/index/pg-machine.test.ts): sessions, events, usage, search hits, an
 * event's context.
 */
const view = (index: string) =>
  withIndex(
    index,
    Effect.gen(function*() {
      const i = yield* Index
      const sessions = []
      for (const s of yield* i.sessions({})) {
        const { generation: _g, machine: _m, sessionUid: _u, sourceKey: _k, ...row } = s
        const events = yield* i.events(s.sessionUid)
        const around = []
        for (const e of events) {
          const got = yield* i.eventsAround(s.sessionUid, e.eventId, 1, 1)
          around.push(Option.map(got, (a) => ({ at: a.at, ids: a.events.map((x) => x.eventId) })))
        }
        sessions.push({ row, events, around })
      }
      sessions.sort((a, b) => a.row.sessionId.localeCompare(b.row.sessionId))
      const hits = []
      for (const q of ["nul", "here", "answer tail", "\"nul here\"", "lone", "end", "clean"]) {
        const found = yield* i.search(q, {})
        hits.push({ q, hits: found.map(({ machine: _m, score: _s, sessionUid: _u, eventUid: _e, ...h }) => h).sort((a, b) => `${a.eventId}`.localeCompare(`${b.eventId}`)) })
      }
      const usage = yield* i.usage({ by: "model" })
      return { sessions, hits, usage: usage.map((u) => ({ ...u })).sort((a, b) => `${a.group}${a.kind}`.localeCompare(`${b.group}${b.kind}`)) }
    })
  )

describe.each(engines)("text PostgreSQL cannot hold as it is ($engine)", ({ newIndex }) => {
  it.effect("a NUL and lone surrogates: every source imported, re-import unchanged, the text exactly as the source has it", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      const first = yield* importOnce(c.policy, index, c.plan)
      expect(first.sources).toMatchObject({ accepted: 2, rejected: 0 })
      expect([first.eventsAdded, first.sessionsAdded]).toEqual([4, 2])
      const again = yield* importOnce(c.policy, index, c.plan)
      expect(again.sources).toMatchObject({ accepted: 0, unchanged: 2, rejected: 0 })
      const { events, session } = yield* withIndex(index, loadSession(A))
      expect(session.title).toBe("nul \u0000 here")
      expect(session.workspace).toBe("/w/x\u0000y")
      expect(events.map((e) => e.text)).toEqual(["nul \u0000 here", "answer \u0000\u0000 tail", "lone \ud800 high \udc00 low \uffff end"])
      const found = yield* withIndex(index, Effect.flatMap(Index, (i) => i.search("here", {})))
      expect(found.map((h) => h.sessionId)).toContain(A)
      const byWorkspace = yield* withIndex(index, Effect.flatMap(Index, (i) => i.sessions({ workspace: "/w/x\u0000y" })))
      expect(byWorkspace.map((s) => s.sessionId)).toEqual([A])
      const usage = yield* withIndex(index, Effect.flatMap(Index, (i) => i.usage({ by: "model" })))
      expect(usage.map((u) => u.group)).toContain("model-\u0000-x")
    }))
})

describe("text PostgreSQL cannot hold as it is: both engines", () => {
  it.effect("fed the same sources, SQLite and PostgreSQL answer the same queries", () =>
    Effect.gen(function*() {
      const c = corpus()
      const [sqlite, postgres] = yield* Effect.all(engines.map((e) => e.newIndex(c.dir)))
      yield* importOnce(c.policy, sqlite, c.plan)
      yield* importOnce(c.policy, postgres, c.plan)
      const want = yield* view(sqlite)
      expect(want.sessions.length).toBe(2)
      expect(want.hits.every((h) => h.hits.length > 0)).toBe(true)
      expect(yield* view(postgres)).toEqual(want)
    }))

  it.effect("push: the team index takes what the local index holds, a second push finds nothing to do, a direct import finds it unchanged", () =>
    Effect.gen(function*() {
      const c = corpus()
      const local = path.join(c.dir, "local.db")
      const team = yield* migratedDatabase
      yield* importOnce(c.policy, local, c.plan)
      const p = yield* push(local, team, "laptop-nul")
      expect(p.sources).toMatchObject({ local: 2, pushed: 2, inProgress: 0 })
      expect([p.eventsAdded, p.sessionsAdded]).toEqual([4, 2])
      expect(yield* view(team)).toEqual(yield* view(local))
      const idle = yield* push(local, team, "laptop-nul")
      expect(idle.sources).toMatchObject({ pushed: 0, inProgress: 0 })
      const direct = yield* importOnce(c.policy, team, c.plan, undefined, "laptop-nul")
      expect(direct.sources).toMatchObject({ accepted: 0, unchanged: 2, rejected: 0 })
    }))

  it.effect("CLI: import, push, sessions, show, show --around, export, search, usage and replay print the same from both engines", () =>
    Effect.gen(function*() {
      const c = corpus()
      const local = path.join(c.dir, "local.db")
      const direct = yield* migratedDatabase
      const pushed = yield* migratedDatabase
      const imported = cli(["import", "--claude-root", c.root, "--index", local, "--workspace", c.dir])
      expect(imported.code).toBe(0)
      const viaImport = cli(["import", "--claude-root", c.root, "--index", direct, "--workspace", c.dir, "--machine", "m"])
      expect([viaImport.code, viaImport.stderr]).toEqual([0, ""])
      const viaPush = cli(["push", "--from", local, "--to", pushed, "--machine", "m"])
      expect([viaPush.code, viaPush.stderr]).toEqual([0, ""])
      const again = cli(["push", "--from", local, "--to", pushed, "--machine", "m", "--json"])
      expect(again.code).toBe(0)
      expect(JSON.parse(again.stdout).data.sources).toMatchObject({ pushed: 0 })
      // What names the engine: its uids and keys (machine-keyed on PostgreSQL), the index itself.
      // A search's scores are each engine's own and not comparable (README): its hits are compared without them, in one order.
      const neutral = (text: string, index: string, args: ReadonlyArray<string>) => {
        // ids and the machine (null locally, the importing machine's in the team index) name the engine, not the content
        // and so do a redacted output's shown ids, keyed by each index's own secret (session 24: `hmac:`, `hses_`, a shown cursor's tag)
        const plain = text.split(index).join("INDEX").replace(/\b(ses|evt|src|hses)_[0-9a-f]{32}\b/g, "$1_X")
          .replace(/\bhmac:[0-9a-f]{64}\b/g, "hmac:X").replace(/\bs1\.[0-9a-f]+\.([0-9a-z]+)\.[0-9a-f]{8}\b/g, "s1.X.$1")
          .replace(/"machine":(null|"[^"]*")/g, '"machine":"M"')
        if (args[0] !== "search" || !args.includes("--json")) return plain
        const body = JSON.parse(plain)
        body.data.hits = body.data.hits.map(({ score: _s, ...h }: { score: number }) => h).sort((a: object, b: object) =>
          JSON.stringify(a).localeCompare(JSON.stringify(b))
        )
        return JSON.stringify(body)
      }
      const eventId = (JSON.parse(cli(["show", A, "--index", local, "--json"]).stdout).data.events[1] as { eventId: string }).eventId
      for (
        const args of [
          ["sessions", "--json"],
          ["sessions"],
          ["show", A, "--json"],
          ["show", A],
          ["show", A, "--format", "transcript"],
          ["show", A, "--around", eventId, "--context", "1", "--json"],
          ["export", A, "--format", "atif"],
          ["export", A, "--format", "ndjson"],
          ["search", "here", "--json"],
          ["search", "tail"],
          ["search", "lone", "--workspace", "/w", "--json"],
          ["usage", "--by", "model", "--json"],
          ["replay", A]
        ]
      ) {
        const want = cli([...args, "--index", local])
        expect([args, want.code]).toEqual([args, 0])
        for (const team of [direct, pushed]) {
          const got = cli([...args, "--index", team])
          expect([args, got.code, got.stderr]).toEqual([args, 0, want.stderr])
          expect([args, neutral(got.stdout, team, args)]).toEqual([args, neutral(want.stdout, local, args)])
        }
      }
    }), 240_000)
})
