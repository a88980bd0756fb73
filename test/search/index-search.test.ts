/**
 * Index.search (issue 14): what is searched (messages, thinking, tool inputs
 * and results, summaries, titles), the syntax, every filter, identifiers,
 * ranking, snippets and cursors; search kept with the events through
 * generations, rollbacks, a killed import and the migration of an older
 * index; hostile queries answered with hits or INVALID_SEARCH_QUERY.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { emptySourceSummary, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SearchFilter, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { crashAt, importOnce } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { toLegacyLayout } from "../support/legacy-index.js"

const SHA = "3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345"
const UUID = "550e8400-e29b-41d4-a716-446655440000"

const source = (key: string, provider: ProviderId, title: string | null, workspace: string | null): SourceInfo => ({
  sourceKey: key,
  provider,
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title, workspace }
})

const A = source("src-a", "claude-code", "Fix the billing rounding bug", "/home/alice/code/billing-api")
const B = source("src-b", "muse-agents", "Unrelated chores", "/home/bob/proj")

const eventsA = (): Array<SessionEvent> => {
  const e = mk("claude-code", "sess-a")
  return [
    e("message", { role: "user", occurredAt: "2026-01-01T10:00:00.000Z", text: "Why does parseConfig throw ENOENT when the file is missing?" }),
    e("thinking", { role: "assistant", occurredAt: "2026-01-01T10:00:01.000Z", text: "Let me look at src/layers/index/sqlite.ts first" }),
    e("tool-call", {
      role: "assistant",
      occurredAt: "2026-01-01T10:00:02.000Z",
      toolName: "Edit",
      toolCallId: "t1",
      toolInput: { file_path: "/repo/src/config_loader.py", old_string: "magic = 0x53496931  # zebrafish marker", new_string: "magic = MAGIC" }
    }),
    e("tool-result", {
      role: "user",
      occurredAt: "2026-01-01T10:00:03.000Z",
      toolCallId: "t1",
      text: `commit ${SHA} on branch main\nrequest ${UUID} failed`
    }),
    e("message", { role: "assistant", occurredAt: "2026-01-03T09:00:00.000Z", text: "The app.settings.json file holds retry_backoff_seconds" })
  ]
}

const eventsB = (): Array<SessionEvent> => {
  const e = mk("muse-agents", "sess-b")
  return [
    e("message", { role: "user", occurredAt: "2026-02-01T08:00:00.000Z", text: "please rename the logger and update the changelog" }),
    e("message", { role: "assistant", occurredAt: "2026-02-02T08:00:00.000Z", text: "Renamed logger; also fixed the billing doc" }),
    e("summary", {
      role: "system",
      occurredAt: "2026-02-03T08:00:00.000Z",
      text: "Compacted: discussed logger renaming",
      compaction: { id: "c1", trigger: "auto" }
    })
  ]
}

/** Put `events` into generation `generation` of `src` (beginning it when asked), as the importer does. */
const put = (src: SourceInfo, generation: number, events: ReadonlyArray<SessionEvent>, begin = true, attempt?: number) =>
  Effect.gen(function*() {
    const index = yield* Index
    if (begin) yield* index.beginGeneration(src, generation, "test")
    yield* index.commitBatch({ source: src, generation, events, attempt }, () => Effect.void)
  })

const corpus = (file: string) =>
  Effect.gen(function*() {
    const index = yield* Index
    yield* put(A, 1, eventsA())
    yield* index.completeSource(A, null)
    yield* put(B, 1, eventsB())
    yield* index.completeSource(B, null)
  }).pipe(Effect.provide(IndexSqlite.layer(file)))

const search = (file: string, q: string, filter: SearchFilter = {}) =>
  Effect.flatMap(Index, (i) => i.search(q, filter)).pipe(Effect.provide(IndexSqlite.layer(file)))

/** The hits as `session:sequence` (`session:title` for a title), best first. */
const ids = (file: string, q: string, filter: SearchFilter = {}) =>
  Effect.map(search(file, q, filter), (hits) => hits.map((h) => `${h.sessionId}:${h.sequence ?? "title"}`))
const sorted = (file: string, q: string, filter: SearchFilter = {}) => Effect.map(ids(file, q, filter), (xs) => [...xs].sort())

const fresh = () =>
  Effect.gen(function*() {
    const file = path.join(tempDir("si-search-"), "i.db")
    yield* corpus(file)
    return file
  })

describe("Index.search: what is searched, and the syntax", () => {
  it.effect("each syntax element: term, AND, \"phrase\", prefix*, OR, NOT, -term, groups", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "logger changelog")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "logger AND changelog")).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "\"billing doc\"")).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "\"doc billing\"")).toEqual([])
      expect(yield* sorted(f, "renam*")).toEqual(["sess-b:1", "sess-b:2", "sess-b:3"])
      expect(yield* sorted(f, "zebrafish OR changelog")).toEqual(["sess-a:3", "sess-b:1"])
      expect(yield* sorted(f, "logger NOT renamed")).toEqual(["sess-b:1", "sess-b:3"])
      expect(yield* sorted(f, "logger -renamed")).toEqual(["sess-b:1", "sess-b:3"])
      expect(yield* sorted(f, "(zebrafish OR changelog) -rename")).toEqual(["sess-a:3"])
    }))

  it.effect("identifiers: a path, camelCase, ENOENT, a hex constant, a UUID, a git SHA (whole and abbreviated), words inside snake_case and dotted names", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "src/layers/index/sqlite.ts")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "sqlite.ts")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "parseConfig")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "ENOENT")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "0x53496931")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, UUID)).toEqual(["sess-a:4"])
      expect(yield* sorted(f, "a716")).toEqual(["sess-a:4"])
      expect(yield* sorted(f, SHA)).toEqual(["sess-a:4"])
      expect(yield* sorted(f, SHA.slice(0, 7))).toEqual(["sess-a:4"])
      expect(yield* sorted(f, "backoff")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "retry_backoff_seconds")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "settings")).toEqual(["sess-a:5"])
      expect(yield* sorted(f, "config_loader")).toEqual(["sess-a:3"])
    }))

  it.effect("a word only in a tool result, and one only in a tool input (an Edit's old_string), are found, with the field in the snippet", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const [result] = yield* search(f, "branch main")
      expect(result).toMatchObject({ sessionId: "sess-a", kind: "tool-result", eventId: "line-4", cursor: "cursor-4" })
      expect(result.snippet.field).toBe("text")
      const hits = yield* search(f, "zebrafish")
      expect(hits.length).toBe(1)
      expect(hits[0]).toMatchObject({ kind: "tool-call", role: "assistant", eventId: "line-3", provider: "claude-code", title: A.overview.title })
      expect(hits[0].snippet.field).toBe("input")
      const [[s, e]] = hits[0].snippet.marks
      expect(hits[0].snippet.text.slice(s, e)).toBe("zebrafish")
      // the tool's name is searched with its input
      expect(yield* sorted(f, "Edit")).toEqual(["sess-a:3"])
    }))

  it.effect("thinking, compaction summaries and session titles are searched; a title hit has no event", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "look first")).toEqual(["sess-a:2"])
      expect(yield* sorted(f, "compacted")).toEqual(["sess-b:3"])
      const [title] = yield* search(f, "rounding")
      expect(title).toMatchObject({ sessionId: "sess-a", eventId: null, cursor: null, kind: null, title: "Fix the billing rounding bug" })
      expect(title.snippet.field).toBe("title")
      expect(title.snippet.text.slice(...title.snippet.marks[0])).toBe("rounding")
    }))

  it.effect("hits are ranked best first (bm25) and carry the session, the event and its cursor", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const hits = yield* search(f, "logger")
      const scores = hits.map((h) => h.score)
      expect(scores).toEqual([...scores].sort((a, b) => a - b))
      for (const h of hits) {
        expect(h.sessionUid).toMatch(/^ses_/)
        expect(h.eventUid).toMatch(/^evt_/)
        expect(h.cursor).toBe(`cursor-${h.sequence}`)
        expect(h.workspace).toBe("/home/bob/proj")
      }
    }))
})

describe("Index.search: filters", () => {
  it.effect("--provider, --since/--until, --session, --workspace, --role, --kind, --limit", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      expect(yield* sorted(f, "billing")).toEqual(["sess-a:title", "sess-b:2"])
      expect(yield* sorted(f, "billing", { provider: "muse-agents" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "billing", { provider: "claude-code" })).toEqual(["sess-a:title"])
      expect(yield* sorted(f, "logger", { since: "2026-02-02T00:00:00Z" })).toEqual(["sess-b:2", "sess-b:3"])
      expect(yield* sorted(f, "logger", { until: "2026-02-01T23:59:59Z" })).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "logger", { since: "2026-02-02T00:00:00Z", until: "2026-02-02T23:59:59Z" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "billing OR logger", { session: "sess-a" })).toEqual(["sess-a:title"])
      const [b] = yield* search(f, "changelog")
      expect(yield* sorted(f, "billing", { session: b.sessionUid })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "billing", { workspace: "/home/bob" })).toEqual(["sess-b:2"])
      expect(yield* sorted(f, "billing", { workspace: "/home/alice/code" })).toEqual(["sess-a:title"])
      expect(yield* sorted(f, "billing", { workspace: "/home/ali" })).toEqual([])
      expect(yield* sorted(f, "logger", { role: "user" })).toEqual(["sess-b:1"])
      expect(yield* sorted(f, "logger", { kind: "summary" })).toEqual(["sess-b:3"])
      expect(yield* sorted(f, "file", { kind: "message", role: "assistant" })).toEqual(["sess-a:5"])
      expect((yield* ids(f, "renam*", { limit: 2 })).length).toBe(2)
      expect((yield* ids(f, "renam*", { limit: 1 }))[0]).toBe((yield* ids(f, "renam*"))[0])
    }))
})

describe("Index.search: kept with the events", () => {
  it.effect("a superseded generation's events leave the results (a new generation, and a source superseded alone)", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const e = mk("claude-code", "sess-a")
      yield* Effect.gen(function*() {
        yield* put(A, 2, [e("message", { role: "user", text: "a rewritten hippopotamus" })])
        yield* (yield* Index).completeSource(A, null)
      }).pipe(Effect.provide(IndexSqlite.layer(f)))
      expect(yield* sorted(f, "zebrafish")).toEqual([])
      expect(yield* sorted(f, "hippopotamus")).toEqual(["sess-a:1"])
      expect(yield* sorted(f, "rounding")).toEqual(["sess-a:title"])
      yield* Effect.flatMap(Index, (i) => i.supersedeSource(B.sourceKey, "gone")).pipe(Effect.provide(IndexSqlite.layer(f)))
      expect(yield* sorted(f, "logger OR chores")).toEqual([])
      expect(yield* sorted(f, "hippopotamus")).toEqual(["sess-a:1"])
    }))

  it.effect("a rejected attempt's rollback takes its words away and gives the generation it had superseded its words back", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      yield* Effect.gen(function*() {
        const index = yield* Index
        // an attempt that began a new generation
        const attempt = yield* index.beginAttempt(A)
        const e = mk("claude-code", "sess-a")
        yield* put(A, 2, [e("message", { text: "transient okapi" })], true, attempt)
        yield* index.rejectSource(A, "MALFORMED_SOURCE", "bad")
      }).pipe(Effect.provide(IndexSqlite.layer(f)))
      expect(yield* sorted(f, "okapi")).toEqual([])
      expect(yield* sorted(f, "zebrafish")).toEqual(["sess-a:3"])
      expect(yield* sorted(f, "rounding")).toEqual(["sess-a:title"])
      yield* Effect.gen(function*() {
        const index = yield* Index
        // an attempt that appended to the current generation
        const attempt = yield* index.beginAttempt(B)
        const e = mk("muse-agents", "sess-b")
        const more = eventsB().length
        for (let i = 0; i < more; i++) e("message")
        yield* put(B, 1, [e("message", { text: "appended narwhal" })], false, attempt)
        expect((yield* index.search("narwhal", {})).length).toBe(1)
        yield* index.rejectSource(B, "MALFORMED_SOURCE", "bad")
      }).pipe(Effect.provide(IndexSqlite.layer(f)))
      expect(yield* sorted(f, "narwhal")).toEqual([])
      expect(yield* sorted(f, "changelog")).toEqual(["sess-b:1"])
    }))

  const exportDir = path.join(fixturesDir, "muse-code", "export")
  const setup = () => {
    const dir = tempDir()
    const ws = path.join(dir, "ws")
    fs.mkdirSync(ws)
    for (const f of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(exportDir, f), path.join(ws, f))
    const policy = { workspaceRoots: [ws], museRoots: [], agentsRoot: path.join(dir, "no-agents") }
    const plan = planFromPolicy(policy, { exports: [path.join(ws, "orderly.json"), path.join(ws, "abnormal.json")], batchSize: 3 })
    return { dir, policy, plan, index: path.join(dir, "index.db") }
  }
  /** Search documents against the events of current generations: none missing, none left over. */
  const consistency = (file: string) => {
    const db = new Database(file, { readonly: true })
    try {
      // A document is a record (its id) or a session's title (minus its stream's id), of current generations only.
      const current = "JOIN streams st ON st.stream = r.stream JOIN sources s ON s.source_key = st.source_key AND s.generation = st.generation AND s.status != 'rejected'"
      const events = (db.prepare(`SELECT count(*) AS n FROM records r ${current}`).get() as { n: number }).n
      const missing = (db.prepare(`SELECT count(*) AS n FROM records r ${current} WHERE NOT EXISTS
        (SELECT 1 FROM search d WHERE d.rowid = r.id)`).get() as { n: number }).n
      const docs = (db.prepare("SELECT count(*) AS n FROM search WHERE rowid > 0").get() as { n: number }).n
      const titles = (db.prepare("SELECT count(*) AS n FROM search WHERE rowid < 0").get() as { n: number }).n
      const titled = (db.prepare(`SELECT count(*) AS n FROM sessions ss JOIN sources s ON s.source_key = ss.source_key
        AND s.generation = ss.generation AND s.status != 'rejected' WHERE ss.title IS NOT NULL`).get() as { n: number }).n
      return { events, missing, docs, wordsMatchDocs: titles === titled }
    } finally {
      db.close()
    }
  }
  const allHits = (file: string) =>
    Effect.map(search(file, "the OR a OR session OR tool OR run OR model", { limit: 1000 }), (hs) => hs.map((h) => `${h.sessionId}:${h.eventId}`).sort())

  for (const point of ["mid-batch", "before-commit", "after-commit"] as const) {
    it.effect(`a killed import (at ${point}) leaves search consistent with the events, and the next run completes both`, () =>
      Effect.gen(function*() {
        const s = setup()
        const reference = path.join(s.dir, "reference.db")
        yield* importOnce(s.policy, reference, s.plan)
        const crashed = yield* Effect.exit(importOnce(s.policy, s.index, s.plan, crashAt(point, 2)))
        expect(Exit.isFailure(crashed)).toBe(true)
        const mid = consistency(s.index)
        expect(mid.events).toBeGreaterThan(0)
        expect(mid).toMatchObject({ missing: 0, docs: mid.events, wordsMatchDocs: true })
        yield* importOnce(s.policy, s.index, s.plan)
        const end = consistency(s.index)
        expect(end).toEqual(consistency(reference))
        expect(end).toMatchObject({ missing: 0, docs: end.events, wordsMatchDocs: true })
        expect(yield* allHits(s.index)).toEqual(yield* allHits(reference))
        expect((yield* allHits(s.index)).length).toBeGreaterThan(0)
      }))
  }
})

describe("Index.search: an index from before search (migration 0004_search)", () => {
  /** Make `file` look as an index of the build before search: no search tables, no migration 4 (nor what came after it: the migrator runs those after the last one recorded). */
  const unmigrate = (file: string) => {
    const db = new Database(file)
    db.exec(`DROP TRIGGER search_docs_gone; DROP TRIGGER events_search_gone; DROP TRIGGER sessions_search_gone;
             DROP TABLE search; DROP TABLE search_docs; DROP TABLE usage; DELETE FROM si_migrations WHERE migration_id >= 4;`)
    db.close()
  }

  it.effect("read-only it says to import once (typed, with a remedy) and other queries keep working; opened for import, it gains search from the stored events", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const before = yield* ids(f, "billing OR logger OR zebrafish OR rounding")
      yield* toLegacyLayout(f) // the layout of the builds before the lean record (0006)
      unmigrate(f)
      const readonly = IndexSqlite.layerReadonly(f)
      const refused = yield* Effect.either(Effect.flatMap(Index, (i) => i.search("billing", {})).pipe(Effect.provide(readonly)))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({ code: "UNSUPPORTED_OPERATION" })
      expect(Either.isLeft(refused) && refused.left.remediation).toContain("import")
      // a bad query is still a bad query
      const bad = yield* Effect.either(Effect.flatMap(Index, (i) => i.search("(", {})).pipe(Effect.provide(readonly)))
      expect(Either.isLeft(bad) && bad.left.code).toBe("INVALID_SEARCH_QUERY")
      const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(readonly))
      expect(sessions.length).toBe(2)
      // the sources are gone: nothing is read again, the stored events are enough
      expect(yield* ids(f, "billing OR logger OR zebrafish OR rounding")).toEqual(before)
      const db = new Database(f, { readonly: true })
      const names = (db.prepare("SELECT name FROM si_migrations ORDER BY migration_id").all() as Array<{ name: string }>).map((r) => r.name)
      db.close()
      expect(names).toContain("search")
    }))
})

describe("Index.search: hostile queries", () => {
  const hostile = [
    "\"",
    "\"\"",
    "\"a\" \"b",
    "NEAR(zebrafish marker)",
    "NEAR(zebrafish marker, 2)",
    "NEAR",
    "text:zebrafish",
    "input:zebrafish",
    "{text input}:zebrafish",
    "- text : zebrafish",
    "*",
    "**",
    "zebra*fish",
    "(",
    ")",
    "((zebrafish)",
    "zebrafish)",
    "^zebrafish",
    "zebrafish + marker",
    "'; DROP TABLE events; --",
    "AND",
    "OR OR",
    "NOT",
    "-",
    "--",
    "rowid:1",
    "search MATCH 'x'",
    "\u0000zebrafish",
    "zebra\u0000fish \"x\u0000y\"",
    "\\",
    "🦓 zebrafish",
    "a".repeat(3000),
    "zebrafish NOT NOT marker",
    "zebrafish AND",
    "x OR (y AND -z)"
  ]
  it.effect("each is answered with hits or INVALID_SEARCH_QUERY, never a crash or an SQL error; the index is untouched", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const events = (yield* Effect.flatMap(Index, (i) => i.counts).pipe(Effect.provide(IndexSqlite.layer(f)))).events
      for (const q of hostile) {
        const r = yield* Effect.either(search(f, q))
        if (Either.isLeft(r)) {
          expect(r.left.code, q).toBe("INVALID_SEARCH_QUERY")
          expect(typeof (r.left.details as { position: number }).position, q).toBe("number")
        } else {
          expect(Array.isArray(r.right), q).toBe(true)
        }
      }
      // Quoted, the FTS5 syntax is plain words
      expect(yield* sorted(f, "text:zebrafish")).toEqual([])
      expect(yield* sorted(f, "NEAR(zebrafish marker)")).toEqual([])
      expect(yield* sorted(f, "(zebrafish marker)")).toEqual(["sess-a:3"])
      expect((yield* Effect.flatMap(Index, (i) => i.counts).pipe(Effect.provide(IndexSqlite.layer(f)))).events).toBe(events)
    }))
})

describe("Index.eventsAround", () => {
  it.effect("the events around one, by native id or index uid, in source order; none for an unknown id", () =>
    Effect.gen(function*() {
      const f = yield* fresh()
      const [hit] = yield* search(f, "zebrafish")
      const around = (id: string, before: number, after: number) =>
        Effect.flatMap(Index, (i) => i.eventsAround(hit.sessionUid, id, before, after)).pipe(Effect.provide(IndexSqlite.layer(f)))
      const r = Option.getOrThrow(yield* around("line-3", 1, 1))
      expect(r.events.map((e) => e.eventId)).toEqual(["line-2", "line-3", "line-4"])
      expect(r.at).toBe(1)
      const byUid = Option.getOrThrow(yield* around(hit.eventUid!, 5, 0))
      expect(byUid.events.map((e) => e.eventId)).toEqual(["line-1", "line-2", "line-3"])
      expect(byUid.at).toBe(2)
      expect(Option.isNone(yield* around("line-99", 1, 1))).toBe(true)
    }))
})
