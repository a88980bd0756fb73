/**
 * Search on both engines of the index (issue 17): the same cases against a
 * SQLite file and a PostgreSQL database (its own full-text search, `tsvector`
 * over the words FTS5 makes): each syntax element, the filters, identifiers
 * (a path, camelCase, ENOENT, a UUID, a git SHA, words inside snake_case and
 * dotted names), a word only in a tool result, titles, ranking, superseded
 * generations and rollbacks, bad and hostile queries; both engines fed the
 * same sources find the same hits; the PostgreSQL migration fills search from
 * the stored events; `search --index postgres://…` through the CLI.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { emptySourceSummary, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index, type SearchFilter, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { crashAt, importOnce, indexLayer, TEST_MACHINE } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { engines, pgQuery } from "../support/pg.js"
import { cli } from "../support/run.js"

const SHA = "9c4e1a7b3d2f5e60718293a4b5c6d7e8f9012abc"
const UUID = "7d444840-9dc0-11d1-b245-5ffdce74fad2"

const source = (key: string, provider: ProviderId, title: string | null, workspace: string | null): SourceInfo => ({
  sourceKey: key,
  provider,
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title, workspace }
})

const A = source("src-a", "claude-code", "Repair the invoice totals", "/srv/team/ledger")
const B = source("src-b", "muse-agents", "Housekeeping", "/srv/other")

const eventsA = (): Array<SessionEvent> => {
  const e = mk("claude-code", "sess-a")
  return [
    e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: "Why does loadManifest raise EACCES on the cache dir?" }),
    e("thinking", { role: "assistant", occurredAt: "2026-03-01T10:00:01.000Z", text: "Check lib/core/cache/store.rs before anything" }),
    e("tool-call", {
      role: "assistant",
      occurredAt: "2026-03-01T10:00:02.000Z",
      toolName: "Write",
      toolCallId: "t1",
      toolInput: { file_path: "/repo/pkg/manifest_reader.go", content: "const sentinel = 0xDEADBEEF // platypus guard" }
    }),
    e("tool-result", {
      role: "user",
      occurredAt: "2026-03-01T10:00:03.000Z",
      toolCallId: "t1",
      text: `HEAD is ${SHA} detached\ntrace ${UUID} closed`
    }),
    e("message", { role: "assistant", occurredAt: "2026-03-04T09:00:00.000Z", text: "See deploy.prod.yaml for max_retry_interval" })
  ]
}

const eventsB = (): Array<SessionEvent> => {
  const e = mk("muse-agents", "sess-b")
  return [
    e("message", { role: "user", occurredAt: "2026-04-01T08:00:00.000Z", text: "please archive the scheduler and trim the roadmap" }),
    e("message", { role: "assistant", occurredAt: "2026-04-02T08:00:00.000Z", text: "Archived scheduler; also fixed the invoice page" }),
    e("summary", {
      role: "system",
      occurredAt: "2026-04-03T08:00:00.000Z",
      text: "Compacted: talked about scheduler archiving",
      compaction: { id: "c1", trigger: "auto" }
    })
  ]
}

const put = (src: SourceInfo, generation: number, events: ReadonlyArray<SessionEvent>, begin = true, attempt?: number) =>
  Effect.gen(function*() {
    const index = yield* Index
    if (begin) yield* index.beginGeneration(src, generation, "test")
    yield* index.commitBatch({ source: src, generation, events, attempt }, () => Effect.void)
  })

const withIndex = <A, E>(target: string, effect: Effect.Effect<A, E, Index>) => effect.pipe(Effect.provide(indexLayer(target)))

const search = (target: string, q: string, filter: SearchFilter = {}) => withIndex(target, Effect.flatMap(Index, (i) => i.search(q, filter)))
const ids = (target: string, q: string, filter: SearchFilter = {}) =>
  Effect.map(search(target, q, filter), (hits) => hits.map((h) => `${h.sessionId}:${h.sequence ?? "title"}`))
const sorted = (target: string, q: string, filter: SearchFilter = {}) => Effect.map(ids(target, q, filter), (xs) => [...xs].sort())

describe.each(engines)("Index.search ($engine)", ({ newIndex }) => {
  const fresh = () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-esearch-"))
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          yield* put(A, 1, eventsA())
          yield* index.completeSource(A, null)
          yield* put(B, 1, eventsB())
          yield* index.completeSource(B, null)
        })
      )
      return target
    })

  it.effect("each syntax element: term, AND, \"phrase\", prefix*, OR, NOT, -term, groups", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "scheduler roadmap")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "scheduler AND roadmap")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "\"invoice page\"")).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "\"page invoice\"")).toEqual([])
      expect(yield* sorted(f, "archiv*")).toEqual(["sess-b:1", "sess-b:2", "sess-b:3"])
      expect(yield* sorted(f, "\"the sched\"*")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "platypus OR roadmap")).toEqual(["sess-a:3", "sess-b:1"])
      expect(yield* sorted(f, "scheduler NOT archived")).toEqual(["sess-b:1", "sess-b:3"])
      expect(yield* sorted(f, "scheduler -archived")).toEqual(["sess-b:1", "sess-b:3"])
      expect(yield* sorted(f, "scheduler -\"also fixed\"")).toEqual(["sess-b:1", "sess-b:3"])
      expect(yield* sorted(f, "(platypus OR roadmap) -archive")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "Scheduler AND (roadmap OR page)")).toEqual(["sess-b:1", "sess-b:2"])
      // lower-case operators are words
      expect(yield* sorted(f, "scheduler and roadmap")).toEqual(["sess-b:1"])
    }))

  it.effect("identifiers: a path, camelCase, EACCES, a hex constant, a UUID, a git SHA (whole and abbreviated), words inside snake_case and dotted names", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "lib/core/cache/store.rs")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "store.rs")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "core/store.rs")).toEqual([])
      expect(yield* sorted(f, "loadManifest")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "loadmanifest")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "EACCES")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "0xDEADBEEF")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, UUID)).toEqual(["sess-a:4"])
      expect(yield* sorted(f, "b245")).toEqual(["sess-a:4"])
      expect(yield* sorted(f, SHA)).toEqual(["sess-a:4"])
      expect(yield* sorted(f, SHA.slice(0, 8))).toEqual(["sess-a:4"])
      expect(yield* sorted(f, "retry")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "max_retry_interval")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "prod")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "deploy.prod.yaml")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "manifest_reader")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "reader.go")).toEqual(["sess-a:3"])
    }))

  it.effect("a word only in a tool result, one only in a tool input, a thinking, a summary and a title: found, with their fields", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const [result] = yield* search(f, "detached")
      expect(result).toMatchObject({ sessionId: "sess-a", kind: "tool-result", role: "user", eventId: "line-4", cursor: "cursor-4", sequence: 4 })
      expect(result.snippet.field).toBe("text")
      const hits = yield* search(f, "platypus")
      expect(hits.length).toBe(1)
      expect(hits[0]).toMatchObject({ kind: "tool-call", role: "assistant", eventId: "line-3", provider: "claude-code", title: A.overview.title })
      expect(hits[0].snippet.field).toBe("input")
      expect(hits[0].snippet.text.slice(...hits[0].snippet.marks[0])).toBe("platypus")
      expect(yield* sorted(f, "Write")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "anything")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "compacted")).toEqual(["sess-b:3"])
      const [title] = yield* search(f, "totals")
      expect(title).toMatchObject({ sessionId: "sess-a", eventId: null, eventUid: null, cursor: null, kind: null, role: null, sequence: null })
      expect(title).toMatchObject({ title: "Repair the invoice totals", workspace: "/srv/team/ledger", provider: "claude-code" })
      expect(title.snippet.field).toBe("title")
      expect(title.snippet.text.slice(...title.snippet.marks[0])).toBe("totals")
    }))

  it.effect("hits are ranked best first (score ascending, lower is better) and carry the session, the event and its cursor", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const hits = yield* search(f, "scheduler")
      expect(hits.length).toBe(3)
      const scores = hits.map((h) => h.score)
      expect(scores.every((s) => typeof s === "number" && Number.isFinite(s))).toBe(true)
      expect(scores).toEqual([...scores].sort((a, b) => a - b))
      for (const h of hits) {
        expect(h.sessionUid).toMatch(/^ses_/)
        expect(h.eventUid).toMatch(/^evt_/)
        expect(h.cursor).toBe(`cursor-${h.sequence}`)
        expect(h.workspace).toBe("/srv/other")
        expect(h.title).toBe("Housekeeping")
      }
      // a document holding the word more often ranks before one holding it once
      const e = mk("muse-agents", "sess-c")
      const C = source("src-c", "muse-agents", null, null)
      yield* withIndex(f, put(C, 1, [e("message", { text: "quokka" }), e("message", { text: "quokka quokka quokka quokka" })]))
      const ranked = yield* ids(f, "quokka")
      expect(ranked).toEqual(["sess-c:2", "sess-c:1"])
    }))

  it.effect("filters: provider, since/until, session, workspace, role, kind, limit", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "invoice")).toEqual(["sess-a:title", "sess-b:2"])
      expect(yield* sorted(f, "invoice", { provider: "muse-agents" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice", { provider: "claude-code" })).toEqual(["sess-a:title"])
      expect(yield* sorted(f, "scheduler", { since: "2026-04-02T00:00:00Z" })).toEqual(["sess-b:2", "sess-b:3"])
      expect(yield* sorted(f, "scheduler", { until: "2026-04-01T23:59:59Z" })).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "scheduler", { since: "2026-04-02T00:00:00Z", until: "2026-04-02T23:59:59Z" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice", { since: "2020-01-01T00:00:00Z" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice OR scheduler", { session: "sess-a" })).toEqual(["sess-a:title"])
      const [b] = yield* search(f, "roadmap")
      expect(yield* sorted(f, "invoice", { session: b.sessionUid })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice", { workspace: "/srv/other" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice", { workspace: "/srv/team" })).toEqual(["sess-a:title"])
      expect(yield* sorted(f, "invoice", { workspace: "/srv/tea" })).toEqual([])
      expect(yield* sorted(f, "invoice", { workspace: "/srv" })).toEqual(["sess-a:title", "sess-b:2"])
      expect(yield* sorted(f, "scheduler", { role: "user" })).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "scheduler", { kind: "summary" })).toEqual(["sess-b:3"])
      expect(yield* sorted(f, "the", { kind: "message", role: "assistant" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "invoice", { role: "assistant" })).toEqual(["sess-b:2"])
      expect((yield* ids(f, "archiv*", { limit: 2 })).length).toBe(2)
      expect((yield* ids(f, "archiv*", { limit: 1 }))[0]).toBe((yield* ids(f, "archiv*"))[0])
    }))

  it.effect("a superseded generation's events leave the results (a new generation, and a source superseded alone)", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const e = mk("claude-code", "sess-a")
      yield* withIndex(
        f,
        Effect.gen(function*() {
          yield* put(A, 2, [e("message", { role: "user", text: "a rewritten wombat" })])
          yield* (yield* Index).completeSource(A, null)
        })
      )
      expect(yield* sorted(f, "platypus")).toEqual([])
      expect(yield* sorted(f, "wombat")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "totals")).toEqual(["sess-a:title"])
      yield* withIndex(f, Effect.flatMap(Index, (i) => i.supersedeSource(B.sourceKey, "gone")))
      expect(yield* sorted(f, "scheduler OR housekeeping")).toEqual([])
      expect(yield* sorted(f, "wombat")).toEqual(["sess-a:1"])
    }))

  it.effect("a rejected attempt's rollback takes its words away and gives the generation it had superseded its words back", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      yield* withIndex(
        f,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(A)
          const e = mk("claude-code", "sess-a")
          yield* put(A, 2, [e("message", { text: "transient capybara" })], true, attempt)
          // A new generation begun beside a complete one is not shown until it is complete: the complete one is searched
          // meanwhile (README "Crash-safe"; tester20a F2).
          expect((yield* index.search("capybara", {})).length).toBe(0)
          expect((yield* index.search("platypus", {})).length).toBe(1)
          yield* index.rejectSource(A, "MALFORMED_SOURCE", "bad")
        })
      )
      expect(yield* sorted(f, "capybara")).toEqual([])
      expect(yield* sorted(f, "platypus")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "totals")).toEqual(["sess-a:title"])
      yield* withIndex(
        f,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(B)
          const e = mk("muse-agents", "sess-b")
          for (let i = 0; i < eventsB().length; i++) e("message")
          yield* put(B, 1, [e("message", { text: "appended axolotl" })], false, attempt)
          expect((yield* index.search("axolotl", {})).length).toBe(1)
          yield* index.rejectSource(B, "MALFORMED_SOURCE", "bad")
        })
      )
      expect(yield* sorted(f, "axolotl")).toEqual([])
      expect(yield* sorted(f, "roadmap")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "housekeeping")).toEqual(["sess-b:title"])
    }))

  it.effect("a bad query is INVALID_SEARCH_QUERY with its position; hostile queries are hits or that error, and leave the index as it was", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const bad = yield* Effect.either(search(f, "scheduler AND"))
      expect(Either.isLeft(bad) && bad.left).toMatchObject({ code: "INVALID_SEARCH_QUERY", details: { position: 10 } })
      // an unclosed group at the end points at its `(` (was the query's start), on either engine
      const open = yield* Effect.either(search(f, "secret ("))
      expect(Either.isLeft(open) && open.left).toMatchObject({ code: "INVALID_SEARCH_QUERY", details: { position: 7 } })
      const before = (yield* withIndex(f, Effect.flatMap(Index, (i) => i.counts))).events
      for (
        const q of [
          "\"",
          "(",
          "NOT",
          "'; DROP TABLE events; --",
          "scheduler' | 'roadmap",
          "scheduler:* & !x",
          "a <-> b",
          "\\",
          "\\' OR 1=1 --",
          "'",
          "text:platypus",
          "\u0000platypus",
          "🦓 platypus",
          `${"字".repeat(1500)}*`,
          "x OR (y AND -z)"
        ]
      ) {
        const r = yield* Effect.either(search(f, q))
        if (Either.isLeft(r)) expect(r.left.code, q).toBe("INVALID_SEARCH_QUERY")
        else expect(Array.isArray(r.right), q).toBe(true)
      }
      // `|` is no operator (a word without letters, left out): both words must match
      expect(yield* sorted(f, "scheduler' | 'roadmap")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "scheduler:* | !roadmap")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "\"it's\" OR platypus")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "🦓 platypus")).toEqual(["sess-a:3"])
      expect((yield* withIndex(f, Effect.flatMap(Index, (i) => i.counts))).events).toBe(before)
    }))

  it.effect("large documents: a tool output of many distinct words, a word past 16,383 others, a word longer than 2,046 bytes", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const words = Array.from({ length: 30_000 }, (_, i) => `w${i.toString(36)}x`)
      const long = "字".repeat(1200)
      const e = mk("claude-code", "sess-big")
      const big = source("src-big", "claude-code", null, null)
      yield* withIndex(f, put(big, 1, [e("tool-result", { text: `${words.join(" ")} needle-tail ${long}`, toolCallId: "t9" })]))
      expect(yield* sorted(f, "w0x")).toEqual(["sess-big:1"])
      expect(yield* sorted(f, `${words[29_999]} AND needle`)).toEqual(["sess-big:1"])
      expect(yield* sorted(f, "tail")).toEqual(["sess-big:1"])
      expect(yield* sorted(f, long)).toEqual(["sess-big:1"])
      expect(yield* sorted(f, "platypus")).toEqual(["sess-a:3"])
    }))

  it.effect("a killed import leaves search consistent with the events, and the next run makes it as a clean import's", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      const exportDir = path.join(fixturesDir, "muse-code", "export")
      for (const name of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(exportDir, name), path.join(ws, name))
      const policy = { workspaceRoots: [ws], museRoots: [], agentsRoot: path.join(dir, "no-agents") }
      const plan = planFromPolicy(policy, { exports: [path.join(ws, "orderly.json"), path.join(ws, "abnormal.json")], batchSize: 3 })
      const reference = yield* newIndex(dir)
      yield* importOnce(policy, reference, plan)
      const index = yield* newIndex(dir)
      const crashed = yield* Effect.exit(importOnce(policy, index, plan, crashAt("mid-batch", 2)))
      expect(Exit.isFailure(crashed)).toBe(true)
      const all = (t: string) =>
        Effect.map(search(t, "the OR a OR session OR tool OR run OR model", { limit: 1000 }), (hs) => hs.map((h) => `${h.sessionId}:${h.eventId}`).sort())
      const mid = yield* all(index)
      expect((yield* withIndex(index, Effect.flatMap(Index, (i) => i.counts))).events).toBeGreaterThan(0)
      expect(mid.length).toBeGreaterThan(0)
      yield* importOnce(policy, index, plan)
      expect(yield* all(index)).toEqual(yield* all(reference))
    }))
})

describe("Index.search: both engines", () => {
  it.effect("fed the same sources, SQLite and PostgreSQL find the same hits, with the same snippets", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const agents = path.join(dir, "agents")
      fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), agents, { recursive: true })
      const claude = path.join(dir, "claude")
      fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), claude, { recursive: true })
      const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents, claudeRoot: claude }
      const plan = planFromPolicy(policy, { batchSize: 3 })
      const [sqlite, postgres] = yield* Effect.all(engines.map((e) => e.newIndex(dir)))
      yield* importOnce(policy, sqlite, plan)
      yield* importOnce(policy, postgres, plan)
      const view = (t: string, q: string, filter: SearchFilter = {}) =>
        Effect.map(search(t, q, { limit: 1000, ...filter }), (hs) =>
          hs.map(({ eventUid: _e, machine: _m, score: _s, sessionUid: _u, ...h }) => JSON.stringify(h)).sort())
      let nonEmpty = 0
      for (const q of ["the", "file OR test", "read*", "\"the file\"", "the -file", "(a OR the) AND NOT tool", "json", "src"]) {
        const want = yield* view(sqlite, q)
        if (want.length > 0) nonEmpty++
        expect(yield* view(postgres, q), q).toEqual(want)
        expect(yield* view(postgres, q, { kind: "tool-result" }), q).toEqual(yield* view(sqlite, q, { kind: "tool-result" }))
        expect(yield* view(postgres, q, { provider: "claude-code" }), q).toEqual(yield* view(sqlite, q, { provider: "claude-code" }))
      }
      expect(nonEmpty).toBeGreaterThan(4)
      // The machine (F9): none on SQLite, the importing machine's on PostgreSQL.
      const machines = (t: string) => Effect.map(search(t, "the", { limit: 1000 }), (hs) => [...new Set(hs.map((h) => h.machine))])
      expect([yield* machines(sqlite), yield* machines(postgres)]).toEqual([[null], [TEST_MACHINE]])
    }))
})

describe("Index.search on PostgreSQL: the migration and the CLI", () => {
  const pg = engines.find((e) => e.engine === "postgres")!

  it.effect("an index migrated before search gains it through `index migrate`, filled from the stored events (no source read)", () =>
    Effect.gen(function*() {
      const url = yield* pg.newIndex("")
      yield* withIndex(
        url,
        Effect.gen(function*() {
          const index = yield* Index
          yield* put(A, 1, eventsA())
          yield* index.completeSource(A, null)
          yield* put(B, 1, eventsB())
          yield* index.completeSource(B, null)
          // a superseded generation stays out
          const e = mk("muse-agents", "sess-b")
          yield* put(B, 2, [e("message", { text: "second generation marmot" })])
          yield* index.completeSource(B, null)
        })
      )
      const q = "invoice OR totals OR platypus OR marmot OR scheduler OR detached"
      const before = yield* sorted(url, q)
      expect(before).toEqual(["sess-a:3", "sess-a:4", "sess-a:title", "sess-b:1"])
      // as the build before search left it: no search table, migration 2 not recorded
      yield* Effect.promise(() => pgQuery(url, "DROP TABLE search_docs; DROP TABLE usage; DROP TABLE push_marks"))
      yield* Effect.promise(() => pgQuery(url, "DELETE FROM si_migrations WHERE migration_id >= 2"))
      const outdated = yield* Effect.either(search(url, "invoice"))
      expect(Either.isLeft(outdated) && outdated.left).toMatchObject({ code: "STORE_UNAVAILABLE", details: { reason: "schema-outdated" } })
      const migrated = yield* IndexPostgres.migrate(url)
      expect(migrated.applied.map(([, name]) => name)).toEqual(["search", "usage", "push_marks", "push_journal", "push_change", "search_pairs", "search_facets", "usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      expect(yield* sorted(url, q)).toEqual(before)
      const [{ n }] = yield* Effect.promise(() => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM search_docs"))
      expect(n).toBe(eventsA().length + 1 + 1 + 1)
    }))

  it.effect("`search --index postgres://…`: the hits as JSON and as text, a bad query exit 2", () =>
    Effect.gen(function*() {
      const url = yield* pg.newIndex("")
      const dir = tempDir()
      const agents = path.join(dir, "agents")
      fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), agents, { recursive: true })
      const imp = cli(["import", "--index", url, "--agents-root", agents, "--workspace", dir, "--machine", "m1", "--json"])
      expect(imp.code).toBe(0)
      const r = cli(["search", "the", "--index", url, "--limit", "3", "--json"])
      expect(r.code, r.stderr).toBe(0)
      const body = JSON.parse(r.stdout.trim().split("\n").pop()!)
      expect(body.data.query).toBe("the")
      expect(body.data.hits.length).toBe(3)
      for (const h of body.data.hits) {
        expect(h.sessionUid).toMatch(/^ses_/)
        expect(h.snippet.marks.length).toBeGreaterThan(0)
        expect(h.snippet.text.slice(...h.snippet.marks[0]).toLowerCase()).toBe("the")
      }
      const text = cli(["search", "the", "--index", url, "--limit", "2"])
      expect(text.code).toBe(0)
      expect(text.stdout).toContain(body.data.hits[0].sessionId)
      const bad = cli(["search", "(the", "--index", url])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain("INVALID_SEARCH_QUERY")
    }))
})
