/**
 * A rejected attempt's rollback puts a session's title and workspace back as the attempt found them (session 39,
 * fix39c): a batch of the attempt writes the session's title and workspace as the source's read gives them (the
 * title's search words with it), so a title first read in a part of the file that is then rejected (a Muse Code log
 * whose first prompt is appended, then a torn line) stayed the session's title, listed by `sessions` and found by
 * `search` (a word of it gave a title hit), though the index holds none of the events it came from. `IndexShape.rejectSource`:
 * "an index never holds events of a rejected source", and the checkpoint "is put back as the attempt found it".
 *
 * Also pinned: the title documents of a source rejected part-way through its first import go with its streams
 * (SQLite: the `streams_search_gone` trigger; PostgreSQL: the foreign key of `search_docs`), so a stream id SQLite
 * gives again to the next source (INTEGER PRIMARY KEY, no AUTOINCREMENT) never meets the old title's words.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { jsonl, metadata, record } from "../muse-code/native-lines.js"
import { mk } from "../support/events.js"
import { importOnce, indexLayer } from "../support/index.js"
import { engines, pgQuery } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { museWorkspace } from "../support/source-roots.js"

const withIndex = <A, E>(target: string, effect: Effect.Effect<A, E, Index>) => effect.pipe(Effect.provide(indexLayer(target)))

/** The hits of `q`, as `<session id>:<sequence>` (`title` for a hit on the session's title), sorted. */
const hits = (target: string, q: string) =>
  withIndex(target, Effect.map(Effect.flatMap(Index, (i) => i.search(q, {})), (hs) => hs.map((h) => `${h.sessionId}:${h.sequence ?? "title"}`).sort()))

/** The listed sessions' id, title and workspace. */
const listed = (target: string) =>
  withIndex(
    target,
    Effect.map(Effect.flatMap(Index, (i) => i.sessions({})), (ss) => ss.map((s) => ({ id: s.sessionId, title: s.title, workspace: s.workspace })))
  )

/** The title documents the engine holds (SQLite: FTS rows of negative rowid; PostgreSQL: `search_docs` of a title). */
const titleDocs = (target: string) =>
  Effect.promise(async () => {
    if (/^postgres(ql)?:/.test(target)) {
      return Number((await pgQuery<{ n: string }>(target, "SELECT count(*) AS n FROM search_docs WHERE title_of IS NOT NULL"))[0].n)
    }
    const db = new Database(target, { readonly: true })
    try {
      return (db.prepare("SELECT count(*) AS n FROM search WHERE rowid < 0").get() as { n: number }).n
    } finally {
      db.close()
    }
  })

const source = (title: string | null, workspace: string | null): SourceInfo => ({
  sourceKey: "src-t",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-t" },
  summary: {},
  overview: { ...emptySourceSummary(), title, workspace }
})

/** Events 1..n of session `sess-t` (each call of `mk` numbers on). */
const eventsOf = (e: ReturnType<typeof mk>, texts: ReadonlyArray<string>): Array<SessionEvent> =>
  texts.map((text, i) => e("message", { role: "user", occurredAt: `2026-05-0${1 + (i % 9)}T10:00:00.000Z`, text }))

describe.each(engines)("($engine) a rejected attempt takes back the title it wrote", ({ newIndex }) => {
  /** Source `src-t` imported complete as `base`, with 2 events. */
  const imported = (base: SourceInfo) =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-rtitle-"))
      const e = mk("claude-code", "sess-t")
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          yield* index.beginGeneration(base, 1, "test")
          yield* index.commitBatch({ source: base, generation: 1, events: eventsOf(e, ["first gannet", "second gannet"]) }, () => Effect.void)
          yield* index.completeSource(base, null)
        })
      )
      return { target, e }
    })

  it.effect("an append that titled an untitled session: rolled back, the session is untitled again and its words find nothing", () =>
    Effect.gen(function*() {
      const { target, e } = yield* imported(source(null, "/srv/ledger"))
      const read = source("Rename the walrus module", "/srv/ledger")
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(read)
          yield* index.commitBatch({ source: read, generation: 1, events: eventsOf(e, ["third gannet"]), attempt }, () => Effect.void)
          // (what the attempt wrote is searched meanwhile, as an append's events are)
          expect((yield* index.search("walrus", {})).map((h) => h.sequence)).toEqual([null])
          yield* index.rejectSource(read, "MALFORMED_SOURCE", "a torn line")
        })
      )
      expect(yield* listed(target)).toEqual([{ id: "sess-t", title: null, workspace: "/srv/ledger" }])
      expect(yield* hits(target, "walrus")).toEqual([])
      expect(yield* hits(target, "gannet")).toEqual(["sess-t:1", "sess-t:2"])
      expect(yield* titleDocs(target)).toBe(0)
    }))

  it.effect("an append that changed the title and the workspace: rolled back, both are as before and the old title is found again", () =>
    Effect.gen(function*() {
      const { target, e } = yield* imported(source("Repair the invoice totals", "/srv/ledger"))
      const read = source("Rename the walrus module", "/srv/elsewhere")
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(read)
          yield* index.commitBatch({ source: read, generation: 1, events: eventsOf(e, ["third gannet"]), attempt }, () => Effect.void)
          yield* index.rejectSource(read, "MALFORMED_SOURCE", "a torn line")
        })
      )
      expect(yield* listed(target)).toEqual([{ id: "sess-t", title: "Repair the invoice totals", workspace: "/srv/ledger" }])
      expect(yield* hits(target, "walrus")).toEqual([])
      expect(yield* hits(target, "invoice")).toEqual(["sess-t:title"])
      expect(yield* titleDocs(target)).toBe(1)
    }))

  it.effect("a killed run's append that titled the session, then a new generation beside it, rejected: the title is as before both", () =>
    Effect.gen(function*() {
      const { target, e } = yield* imported(source("Repair the invoice totals", "/srv/ledger"))
      const read = source("Rename the walrus module", "/srv/elsewhere")
      // the killed run: its attempt appended (and re-titled), never ended
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(read)
          yield* index.commitBatch({ source: read, generation: 1, events: eventsOf(e, ["third gannet"]), attempt }, () => Effect.void)
        })
      )
      // the next run continues the attempt: the file was rewritten, a new generation begins beside the complete one, then fails
      const reread = source("Port the narwhal parser", "/srv/third")
      yield* withIndex(
        target,
        Effect.gen(function*() {
          const index = yield* Index
          const attempt = yield* index.beginAttempt(reread)
          yield* index.beginGeneration(reread, 2, "rewritten")
          const e2 = mk("claude-code", "sess-t")
          yield* index.commitBatch({ source: reread, generation: 2, events: eventsOf(e2, ["a rewritten gannet"]), attempt }, () => Effect.void)
          yield* index.rejectSource(reread, "MALFORMED_SOURCE", "a bad line")
        })
      )
      expect(yield* listed(target)).toEqual([{ id: "sess-t", title: "Repair the invoice totals", workspace: "/srv/ledger" }])
      expect(yield* hits(target, "walrus OR narwhal OR rewritten")).toEqual([])
      expect(yield* hits(target, "invoice")).toEqual(["sess-t:title"])
      expect(yield* hits(target, "gannet")).toEqual(["sess-t:1", "sess-t:2"])
      expect(yield* titleDocs(target)).toBe(1)
    }))
})

const SID = "0c0c0c0c-0000-4000-8000-000000000001"
const SID2 = "0c0c0c0c-0000-4000-8000-000000000002"

/** `n` records of about 2 KiB from sequence `from`: 200 of them pass a read step, so batches commit before a bad line after them. */
const lines = (n: number, from: number, stream = SID) =>
  Array.from({ length: n }, (_, i) => record(from + i, "runtime.session", { event: { kind: "started", prompt: `step ${from + i} ${"x".repeat(2000)}` } }, stream))

/** A person's prompt (`turn_submit`): the first one titles a Muse Code session. */
const prompt = (seq: number, text: string, stream = SID) =>
  record(seq, "runtime.command_intake.received", { kind: "command_intake", record: { kind: "received", command: { kind: "turn_submit", prompt: text } } }, stream)

describe.each(engines)("($engine) import: a title read in a rejected part of a log", ({ newIndex }) => {
  const setup = (target: string) => {
    const { ws, root, policy } = museWorkspace()
    const plan = planFromPolicy(policy, { batchSize: 50 })
    const logOf = (id: string) => path.join(root, "2026", "10", "05", id, "session.jsonl")
    const write = (id: string, text: string) => {
      fs.mkdirSync(path.dirname(logOf(id)), { recursive: true })
      fs.writeFileSync(logOf(id), text)
    }
    return { ws, write, logOf, run: () => importOnce(policy, target, plan) }
  }

  it.effect("a log whose first prompt is appended with a torn line after it: rejected, the session stays untitled and unfound by the prompt", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-rtitle-"))
      const s = setup(target)
      s.write(SID, jsonl([metadata(1, s.ws, SID), ...lines(3, 2)]))
      expect((yield* s.run()).sources).toMatchObject({ accepted: 1 })
      fs.appendFileSync(s.logOf(SID), jsonl([prompt(5, "Migrate the quokka ledger"), ...lines(200, 6)]) + "{torn json\n")
      const r = yield* s.run()
      expect(r.sources).toMatchObject({ accepted: 0, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      expect(yield* listed(target)).toEqual([{ id: SID, title: null, workspace: s.ws }])
      expect(yield* hits(target, "quokka")).toEqual([])
      expect(yield* titleDocs(target)).toBe(0)
      // fixed by the writer: the prompt imports, and titles the session
      fs.writeFileSync(s.logOf(SID), jsonl([metadata(1, s.ws, SID), ...lines(3, 2), prompt(5, "Migrate the quokka ledger"), ...lines(200, 6)]))
      expect((yield* s.run()).sources).toMatchObject({ accepted: 1, rejected: 0 })
      expect(yield* listed(target)).toEqual([{ id: SID, title: "Migrate the quokka ledger", workspace: s.ws }])
      expect(yield* hits(target, "quokka")).toEqual([`${SID}:4`, `${SID}:title`])
    }))

  it.effect("a titled log rejected part-way through its first import, then another log: the first one's title finds nothing", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-rtitle-"))
      const s = setup(target)
      s.write(SID, jsonl([metadata(1, s.ws, SID), prompt(2, "Migrate the quokka ledger"), ...lines(200, 3)]) + "{torn json\n")
      expect((yield* s.run()).sources).toMatchObject({ accepted: 0, rejected: 1 })
      expect(yield* titleDocs(target)).toBe(0)
      s.write(SID2, jsonl([metadata(1, s.ws, SID2), prompt(2, "Tidy the heron notes", SID2), ...lines(2, 3, SID2)]))
      expect((yield* s.run()).sources).toMatchObject({ accepted: 1, rejected: 1 })
      expect(yield* hits(target, "quokka OR migrate OR ledger")).toEqual([])
      expect(yield* hits(target, "heron")).toEqual([`${SID2}:1`, `${SID2}:title`])
      expect(yield* listed(target)).toEqual([{ id: SID2, title: "Tidy the heron notes", workspace: s.ws }])
    }))
})
