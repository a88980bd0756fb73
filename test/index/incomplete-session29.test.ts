/**
 * A session whose source's first generation is still `importing` (its import
 * killed or stopped part-way, or still running; on a team index also a push
 * interrupted) is incomplete (docs/index.md, "Incomplete sessions";
 * tester28a F3: such a session was listed, priced and exported as if whole):
 * - `sessions` (library, CLI text and --json, MCP `list_sessions`) marks it
 *   (`status: "incomplete"`, a `!` and a counted note with the remedy);
 * - `usage` leaves it out of its rows and total, with a counted note;
 * - `export` (ATIF, NDJSON), `show --format markdown`, `replay`, MCP
 *   `get_session` / `get_events` fail closed: STORE_UNAVAILABLE (exit 6)
 *   `session-incomplete`, naming the session and the remedy;
 * - `show` says it on stderr; search hits of it are marked.
 * A source with a complete generation and a newer one in progress is not
 * incomplete (readers keep the complete one). The next import completes it
 * and every reader is as for a clean import. Both engines.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { findCompleteSession, loadTrajectory, usageBySession, usageReport } from "../../src/layers/index/queries.js"
import { loadReplaySource } from "../../src/layers/index/replay.js"
import { getEvents, getSession, listSessions, readSession, searchSessions } from "../../src/layers/mcp/answers.js"
import { Index } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { crashAt, importOnce, indexLayer, rewriteInPlace, TEST_MACHINE } from "../support/index.js"
import { engines, migratedDatabase, pgQuery } from "../support/pg.js"
import { claudeUsageLog } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const SID = "7a7a7a7a-0000-4000-8000-000000000029"

/** A Claude Code log of `turns` turns (a user line, then an assistant response with its usage): 2 events a turn. */
const log = (turns: number, word = "oldword") =>
  claudeUsageLog(SID, turns, word, (i, half) => new Date(Date.UTC(2025, 1, 1, 10, 0, 2 * i + half)).toISOString())

const TURNS = 40
const BATCH = 10

const setup = (turns = TURNS) => {
  const dir = tempDir("si-incomplete-")
  const claudeRoot = path.join(dir, "claude")
  const file = path.join(claudeRoot, "-home-dev-proj", `${SID}.jsonl`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  fs.writeFileSync(file, log(turns))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot }
  // Batches of 10 events, each committed on its own: a kill after the first commit leaves 10 of the log's events.
  return { dir, file, claudeRoot, policy, plan: planFromPolicy(policy, { batchSize: BATCH }) }
}

/** The index's readers with the redaction on, as the MCP server has them. */
const readers = (index: string) => Layer.merge(indexLayer(index), Redaction.layer)

/** What a failure of an output of the whole session is: its code, reason and the session it names. */
const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e: any) => ({ code: e.code, reason: e.details?.reason, names: String(e.message).includes(SID), remedy: String(e.remediation) }))

/** Every reader of the library over the index: listing, usage, exports, replay, MCP. */
const readAll = (index: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const [session] = yield* i.sessions({})
    const found = yield* i.findSessions(SID)
    const report = yield* usageReport({ by: "session" }, bundledPrices)
    const bySession = yield* usageBySession(bundledPrices)
    const hits = yield* i.search("oldword", {})
    const list = yield* listSessions({})
    const mcpHits = yield* searchSessions({ query: "question" })
    const trajectory = yield* Effect.either(loadTrajectory(SID))
    const replay = yield* Effect.either(loadReplaySource(SID))
    const complete = yield* Effect.either(findCompleteSession(SID))
    const got = yield* Effect.either(getSession({ id: SID }))
    const events = yield* Effect.either(getEvents({ id: SID }))
    const resource = yield* Effect.either(readSession(SID))
    return { i, session, found, report, bySession, hits, list, mcpHits, trajectory, replay, complete, got, events, resource }
  }).pipe(Effect.provide(readers(index)))

describe.each(engines)("($engine) a session whose source's first import was killed part-way", ({ newIndex }) => {
  it.effect("is listed incomplete, left out of usage, refused by every output of the whole session; the next import completes it", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      const killed = yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")

      const r = yield* readAll(index)
      // Listed, with the events imported so far (one batch), and marked.
      expect(r.session).toMatchObject({ sessionId: SID, eventCount: BATCH, status: "incomplete" })
      expect(r.found.map((f) => f.status)).toEqual(["incomplete"])
      // Usage: no row, a zero total, one counted note (1 session, its 10 events so far) with the remedy.
      expect(r.report.rows).toEqual([])
      expect(r.report.total.responses).toBe(0)
      expect(r.report.total.costUsd).toBe(0)
      expect(r.report.notes.filter((n) => n.kind === "sessions-incomplete")).toEqual([
        expect.objectContaining({ kind: "sessions-incomplete", sessions: 1, events: BATCH })
      ])
      expect(r.bySession.has(r.session.sessionUid)).toBe(false)
      // Search hits of it are marked (the first prompt and the title made of it).
      expect(r.hits.length).toBe(2)
      expect(r.hits.every((h) => h.sessionStatus === "incomplete")).toBe(true)
      // MCP: the listing marks it and counts it in a note; search hits are marked; reads of the session fail closed.
      expect(r.list.sessions.map((b) => [b.id, b.eventCount, b.status])).toEqual([[SID, BATCH, "incomplete"]])
      expect(r.list.incomplete).toBe(1)
      expect(r.list.note).toMatch(/^1 session incomplete: .*import/)
      expect(r.mcpHits.hits.length).toBeGreaterThan(0)
      expect(r.mcpHits.hits.every((h) => h.sessionStatus === "incomplete")).toBe(true)
      expect(r.mcpHits.incomplete).toBe(1)
      for (const e of [r.trajectory, r.replay, r.complete, r.got, r.events, r.resource]) {
        expect(e._tag).toBe("Left")
        const err = (e as any).left
        expect([err.code, err.details?.reason, err.details?.eventCount]).toEqual(["STORE_UNAVAILABLE", "session-incomplete", BATCH])
        expect(err.message).toContain(SID)
        expect(err.remediation).toMatch(/import|push/)
      }
      // MCP's errors (redaction on) name the session by its shown uid, never its real one (as every MCP answer).
      for (const e of [r.got, r.events, r.resource]) {
        const err = (e as any).left
        expect(err.details.sessionUid).toMatch(/^hses_/)
        expect(JSON.stringify([err.message, err.remediation, err.details])).not.toContain(r.session.sessionUid)
      }

      // The next import completes it: every reader as for the whole session.
      const report = yield* importOnce(s.policy, index, s.plan)
      expect(report.coverage).toBe("complete")
      const done = yield* readAll(index)
      expect(done.session).toMatchObject({ sessionId: SID, eventCount: 2 * TURNS, status: "complete" })
      expect(done.report.total.responses).toBe(TURNS)
      expect(done.report.total.inputTokens).toBe(100 * TURNS)
      expect(done.report.notes.filter((n) => n.kind === "sessions-incomplete")).toEqual([])
      expect(done.hits.every((h) => h.sessionStatus === "complete")).toBe(true)
      expect([done.list.incomplete, done.list.note, done.list.sessions[0].status]).toEqual([0, null, "complete"])
      for (const e of [done.trajectory, done.replay, done.complete, done.got, done.events, done.resource]) expect(e._tag).toBe("Right")
    }))

  it.effect("a complete generation with a newer one in progress is not incomplete: readers keep the complete one", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      yield* importOnce(s.policy, index, s.plan)
      rewriteInPlace(s.file, (t) => t.replace("oldword", "newword"))
      const killed = yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      const r = yield* readAll(index)
      expect(r.session).toMatchObject({ sessionId: SID, eventCount: 2 * TURNS, status: "complete" })
      expect(r.report.total.responses).toBe(TURNS)
      expect(r.report.notes.filter((n) => n.kind === "sessions-incomplete")).toEqual([])
      expect([r.list.incomplete, r.list.note]).toEqual([0, null])
      for (const e of [r.trajectory, r.replay, r.complete, r.got, r.events, r.resource]) expect(e._tag).toBe("Right")
    }))

  it.effect("the CLI: sessions marks it (text and --json), show notes it, usage leaves it out, export / replay / Markdown exit 6", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      expect((yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1))))._tag).toBe("Failure")
      const at = ["--index", index]

      const text = cli(["sessions", ...at])
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(new RegExp(`\\b${BATCH}! .*${SID}`))
      expect(text.stdout).toMatch(/^! 1 session incomplete: .*(session-ingest import|session-ingest push)/m)
      const json = JSON.parse(cli(["sessions", ...at, "--json"]).stdout)
      expect(json.data.map((x: any) => [x.sessionId, x.eventCount, x.status])).toEqual([[SID, BATCH, "incomplete"]])

      const show = cli(["show", SID, ...at, "--format", "transcript"])
      expect(show.code).toBe(0)
      expect(show.stderr).toContain(`incomplete: ${BATCH} events of session ${SID} imported so far`)

      const usage = cli(["usage", ...at])
      expect(usage.code).toBe(0)
      // Not "no usage in the index": there is some, of the incomplete session, left out.
      expect(usage.stdout).toContain("no usage in sessions imported whole")
      expect(usage.stdout).not.toContain("no usage in the index")
      expect(usage.stdout).toMatch(new RegExp(`note: 1 session incomplete \\(${BATCH} events imported so far`))
      const usageJson = JSON.parse(cli(["usage", ...at, "--json"]).stdout)
      expect(usageJson.data.total.responses).toBe(0)
      expect(usageJson.data.empty).toBe("no-usage-in-complete-sessions")
      expect(usageJson.data.notes).toContainEqual(expect.objectContaining({ kind: "sessions-incomplete", sessions: 1, events: BATCH }))

      for (const args of [["export", SID], ["export", SID, "--format", "ndjson"], ["replay", SID], ["show", SID, "--format", "markdown"]]) {
        const r = cli([...args, ...at])
        expect([args.join(" "), r.code, r.stdout]).toEqual([args.join(" "), 6, ""])
        expect(r.stderr).toContain(`Session ${SID} is incomplete in the index: ${BATCH} events imported so far`)
        const j = JSON.parse(cli([...args, ...at, "--json"]).stdout.trim().split("\n").pop()!)
        expect([j.status, j.error.code, j.error.details.reason]).toEqual(["error", "STORE_UNAVAILABLE", "session-incomplete"])
      }

      const search = cli(["search", "oldword", ...at])
      expect(search.code).toBe(0)
      expect(search.stdout).toContain(`${SID}!`)
      expect(search.stdout).toMatch(/^! 1 session incomplete/m)
    }))
})

describe("(postgres) a push interrupted part-way on the team index", () => {
  it.effect("every reader of the team index sees the session incomplete until the push is run again", () =>
    Effect.gen(function*() {
      // More events than a push commits at once (2,000): the first commit goes in, the one with the checkpoint fails.
      const turns = 1250
      const s = setup(turns)
      const local = path.join(s.dir, "local.db")
      yield* importOnce(s.policy, local, planFromPolicy(s.policy, {}))
      const url = yield* migratedDatabase
      // The server refuses the push's last commit (its checkpoint, the source made complete): the push stops part-way.
      yield* Effect.promise(() =>
        pgQuery(url, `CREATE FUNCTION stop_push() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.status = 'complete' THEN RAISE EXCEPTION 'push stopped'; END IF; RETURN NEW; END $$`)
      )
      yield* Effect.promise(() => pgQuery(url, `CREATE TRIGGER stop_push BEFORE UPDATE ON sources FOR EACH ROW EXECUTE FUNCTION stop_push()`))
      const stopped = yield* Effect.exit(push(local, url, TEST_MACHINE))
      expect(stopped._tag).toBe("Failure")
      const [source] = yield* Effect.promise(() => pgQuery<{ status: string; event_count: number }>(url, `SELECT status, event_count FROM sources`))
      expect(source).toEqual({ status: "importing", event_count: 2000 })

      const r = yield* readAll(url)
      expect(r.session).toMatchObject({ sessionId: SID, eventCount: 2000, status: "incomplete", machine: TEST_MACHINE })
      expect(r.report.rows).toEqual([])
      expect(r.report.notes).toContainEqual(expect.objectContaining({ kind: "sessions-incomplete", sessions: 1, events: 2000 }))
      expect(r.report.notes.find((n) => n.kind === "sessions-incomplete")).toMatchObject({ remediation: expect.stringContaining(`machine ${TEST_MACHINE}, run \`session-ingest push\``) })
      expect(r.list.sessions.map((b) => b.status)).toEqual(["incomplete"])
      for (const e of [r.trajectory, r.replay, r.got, r.events]) expect(e._tag).toBe("Left")
      expect(yield* refusal(loadTrajectory(SID).pipe(Effect.provide(indexLayer(url))))).toMatchObject({
        code: "STORE_UNAVAILABLE",
        reason: "session-incomplete",
        names: true
      })
      const listed = cli(["sessions", "--index", url])
      expect(listed.stdout).toMatch(/^! 1 session incomplete: .*run `session-ingest push` again/m)
      expect(cli(["export", SID, "--index", url]).code).toBe(6)

      // The push run again completes it.
      yield* Effect.promise(() => pgQuery(url, `DROP TRIGGER stop_push ON sources`))
      yield* push(local, url, TEST_MACHINE)
      const done = yield* readAll(url)
      expect(done.session).toMatchObject({ eventCount: 2 * turns, status: "complete" })
      expect(done.report.total.responses).toBe(turns)
      expect(done.trajectory._tag).toBe("Right")
    }))
})
