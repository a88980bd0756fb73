/**
 * `push`: a machine's local SQLite index into the team's PostgreSQL index,
 * incremental by checkpoints. Pushed after each import, the team index holds
 * exactly what importing straight into it would (row by row); a push of
 * nothing new changes nothing; only changed sources and their new events
 * move; supersessions propagate; pushed and direct imports are
 * interchangeable; the CLI's errors.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { Index } from "../../src/services/Index.js"
import { crashAt, dumpIndex, importOnce, indexLayer, sessionIds } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { agentsHeader, agentsItem } from "../support/agents-lines.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"
import { cli } from "../support/run.js"

const MACHINE = "laptop-p"

const item = agentsItem

const header = (sessionId: string) => agentsHeader(sessionId, "pusher")

const corpus = () => {
  const dir = tempDir()
  const agents = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), agents, { recursive: true })
  const sessions = path.join(agents, "pusher", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "pusher.jsonl")
  fs.writeFileSync(file, header("s-push") + [1, 2, 3, 4].map((i) => item(i, `message ${i}`)).join(""))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents }
  return { dir, agents, file, policy, plan: planFromPolicy(policy, { batchSize: 3 }), local: path.join(dir, "local.db") }
}

/** A new agent's session of 7 events (more than a commit's 3: a crash after the first commit leaves it part-way). */
const freshAgent = (c: ReturnType<typeof corpus>) => {
  const sessions = path.join(c.agents, "fresh", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(path.join(sessions, "fresh.jsonl"), agentsHeader("s-fresh", "fresh") + [1, 2, 3, 4, 5, 6, 7].map((i) => item(i, `fresh ${i}`)).join(""))
}

/** The local changes a machine goes through, one after another. */
const steps = (c: ReturnType<typeof corpus>) => [
  () => fs.appendFileSync(c.file, item(5, "fifth") + item(6, "sixth")),
  // the imported prefix rewritten: a new generation
  () => fs.writeFileSync(c.file, fs.readFileSync(c.file, "utf8").replace("message 2", "MESSAGE 2") + item(7, "seventh")),
  // another session id in the header: the file is read as another source, the old one superseded without a successor
  () => fs.writeFileSync(c.file, fs.readFileSync(c.file, "utf8").replace(header("s-push"), header("s-renamed")))
]

const view = (url: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const out: Array<unknown> = []
    for (const s of yield* i.sessions({})) out.push({ id: s.sessionId, uid: s.sessionUid, n: s.eventCount, events: (yield* i.events(s.sessionUid)).map((e) => e.eventId) })
    return out
  }).pipe(Effect.provide(indexLayer(url)))

describe("push (SQLite → PostgreSQL)", () => {
  it.effect("pushed after each import, the team index is row by row what importing straight into it makes", () =>
    Effect.gen(function*() {
      const c = corpus()
      const pushed = yield* migratedDatabase
      const direct = yield* migratedDatabase
      const first = yield* importOnce(c.policy, c.local, c.plan)
      const p1 = yield* push(c.local, pushed, MACHINE)
      expect(p1.sources).toMatchObject({ local: first.sources.accepted, pushed: first.sources.accepted, unchanged: 0, inProgress: 0 })
      expect([p1.eventsAdded, p1.sessionsAdded]).toEqual([first.eventsAdded, first.sessionsAdded])
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      expect(yield* dumpIndex(pushed)).toEqual(yield* dumpIndex(direct))
      for (const step of steps(c)) {
        step()
        const r = yield* importOnce(c.policy, c.local, c.plan)
        const p = yield* push(c.local, pushed, MACHINE)
        // only what changed moves: the other sources cost nothing
        expect(p.sources.unchanged).toBe(first.sources.accepted - 1)
        expect(p.eventsAdded).toBe(r.eventsAdded)
        yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
        expect(yield* dumpIndex(pushed)).toEqual(yield* dumpIndex(direct))
      }
      const gens = (yield* dumpIndex(pushed)).generations as Array<{ superseded: number }>
      expect(gens.filter((g) => g.superseded === 1).length).toBe(2)
      // nothing new: nothing moves, nothing changes
      const before = yield* dumpIndex(pushed)
      const idle = yield* push(c.local, pushed, MACHINE)
      expect(idle.sources).toMatchObject({ pushed: 0, unchanged: idle.sources.local - idle.sources.rejected })
      expect([idle.eventsAdded, idle.sessionsAdded]).toEqual([0, 0])
      expect(yield* dumpIndex(pushed)).toEqual(before)
    }))

  it.effect("offline for a while: one push brings the current state, and the superseded sessions are gone from the team's lists", () =>
    Effect.gen(function*() {
      const c = corpus()
      const pushed = yield* migratedDatabase
      const direct = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, pushed, MACHINE)
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      for (const step of steps(c)) {
        step()
        yield* importOnce(c.policy, c.local, c.plan)
        yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      }
      const p = yield* push(c.local, pushed, MACHINE)
      expect(p.sources.superseded).toBe(1)
      expect(p.sources.pushed).toBe(2)
      const got = yield* view(pushed)
      expect(got).toEqual(yield* view(direct))
      expect(got.map((s: any) => s.id)).toContain("s-renamed")
      expect(got.map((s: any) => s.id)).not.toContain("s-push")
    }))

  it.effect("pushed and direct imports are interchangeable: after a push, importing straight in finds every source unchanged", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      const direct = yield* importOnce(c.policy, url, c.plan, undefined, MACHINE)
      expect([direct.sources.accepted, direct.eventsAdded]).toEqual([0, 0])
      fs.appendFileSync(c.file, item(5, "fifth"))
      const more = yield* importOnce(c.policy, url, c.plan, undefined, MACHINE)
      expect([more.sources.accepted, more.eventsAdded, more.sources.newGenerations]).toEqual([1, 1, 0])
      // the local index catches up; its push then adds nothing the team index has
      yield* importOnce(c.policy, c.local, c.plan)
      const p = yield* push(c.local, url, MACHINE)
      expect(p.eventsAdded).toBe(0)
    }))

  it.effect("work proportional to the change: an idle push reads no team checkpoint, a change reads only its marker bucket's; another local index or a new team index compares all", () =>
    Effect.gen(function*() {
      const c = corpus()
      // 60 more sources beside the corpus's, so buckets hold few sources each
      for (let i = 0; i < 60; i++) {
        const sessions = path.join(c.agents, `many-${i}`, "sessions")
        fs.mkdirSync(sessions, { recursive: true })
        fs.writeFileSync(path.join(sessions, `many-${i}.jsonl`), header(`s-many-${i}`).replace("pusher", `many-${i}`) + item(1, `many ${i}`))
      }
      const url = yield* migratedDatabase
      const first = yield* importOnce(c.policy, c.local, c.plan)
      const p1 = yield* push(c.local, url, MACHINE)
      expect(p1.sources.compared).toBe(first.sources.accepted)
      expect(p1.sources.compared).toBeGreaterThan(60)
      const idle = yield* push(c.local, url, MACHINE)
      expect(idle.sources).toMatchObject({ compared: 0, pushed: 0, unchanged: idle.sources.local - idle.sources.rejected })
      fs.appendFileSync(c.file, item(5, "fifth"))
      yield* importOnce(c.policy, c.local, c.plan)
      const one = yield* push(c.local, url, MACHINE)
      expect([one.sources.pushed, one.eventsAdded]).toEqual([1, 1])
      expect(one.sources.compared).toBeGreaterThanOrEqual(1)
      expect(one.sources.compared).toBeLessThan(5)
      // the same file under another name is another local index: its first push compares everything, and adds nothing
      const copy = path.join(c.dir, "copy.db")
      fs.copyFileSync(c.local, copy)
      const other = yield* push(copy, url, MACHINE)
      expect([other.sources.compared, other.sources.pushed, other.eventsAdded]).toEqual([other.sources.local - other.sources.rejected, 0, 0])
      // a new team index has no marker: everything is compared, and pushed
      const fresh = yield* migratedDatabase
      const all = yield* push(c.local, fresh, MACHINE)
      expect([all.sources.compared, all.sources.pushed]).toEqual([all.sources.local - all.sources.rejected, all.sources.local - all.sources.rejected])
      expect(yield* dumpIndex(fresh)).toEqual(yield* dumpIndex(url))
    }))

  it.effect("the local journal: a push after N of M sources changed reads N local checkpoints; a lost marker, another file at the path or a new team index reads all", () =>
    Effect.gen(function*() {
      const c = corpus()
      const many = (i: number) => path.join(c.agents, `many-${i}`, "sessions", `many-${i}.jsonl`)
      for (let i = 0; i < 50; i++) {
        fs.mkdirSync(path.dirname(many(i)), { recursive: true })
        fs.writeFileSync(many(i), header(`s-many-${i}`).replace("pusher", `many-${i}`) + item(1, `many ${i}`))
      }
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      const first = yield* push(c.local, url, MACHINE)
      expect(first.sources.read).toBe(first.sources.local)
      expect(first.sources.local).toBeGreaterThan(50)
      // nothing changed: no local checkpoint read
      const idle = yield* push(c.local, url, MACHINE)
      expect(idle.sources).toMatchObject({ read: 0, compared: 0, pushed: 0, unchanged: idle.sources.local })
      // an unchanged re-import changes nothing the push reads
      yield* importOnce(c.policy, c.local, c.plan)
      expect((yield* push(c.local, url, MACHINE)).sources.read).toBe(0)
      for (const n of [1, 3, 7]) {
        for (let i = 0; i < n; i++) fs.appendFileSync(many(i * 7), item(10 + n, `change ${n} ${i}`))
        const r = yield* importOnce(c.policy, c.local, c.plan)
        expect(r.sources.accepted).toBe(n)
        const p = yield* push(c.local, url, MACHINE)
        expect(p.sources).toMatchObject({ read: n, compared: n, pushed: n, unchanged: p.sources.local - n })
        expect(p.eventsAdded).toBe(n)
      }
      // a supersession (a rewritten prefix: a new generation) goes through the journal too
      fs.writeFileSync(many(2), header("s-many-2").replace("pusher", "many-2") + item(1, "REWRITTEN"))
      yield* importOnce(c.policy, c.local, c.plan)
      const gen = yield* push(c.local, url, MACHINE)
      expect(gen.sources).toMatchObject({ read: 1, pushed: 1, newGenerations: 1 })
      // the marker lost: every local checkpoint read and compared, nothing pushed again
      yield* Effect.promise(() => pgQuery(url, "DELETE FROM push_marks"))
      const lost = yield* push(c.local, url, MACHINE)
      expect(lost.sources).toMatchObject({ read: lost.sources.local, pushed: 0 })
      expect(lost.eventsAdded).toBe(0)
      expect((yield* push(c.local, url, MACHINE)).sources.read).toBe(0)
      // another index file at the same path (another journal): all read, and its sources pushed
      const direct = yield* migratedDatabase
      fs.rmSync(c.local)
      yield* importOnce(c.policy, c.local, c.plan)
      const other = yield* push(c.local, url, MACHINE)
      expect(other.sources.read).toBe(other.sources.local)
      // a new team index: all read and pushed, and it holds what importing straight into it makes
      const fresh = yield* migratedDatabase
      const all = yield* push(c.local, fresh, MACHINE)
      expect([all.sources.read, all.sources.pushed]).toEqual([all.sources.local, all.sources.local - all.sources.rejected])
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      expect(yield* dumpIndex(fresh)).toEqual(yield* dumpIndex(direct))
    }))

  it.effect("a local index from before the journal (read as it is): every checkpoint read, the team side compared only for the marker's changed buckets", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      const direct = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* toLegacyLayout(c.local)
      const first = yield* push(c.local, url, MACHINE)
      expect(first.sources).toMatchObject({ read: first.sources.local, pushed: first.sources.local - first.sources.rejected })
      const idle = yield* push(c.local, url, MACHINE)
      expect(idle.sources).toMatchObject({ read: idle.sources.local, compared: 0, pushed: 0 })
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      expect(yield* dumpIndex(url)).toEqual(yield* dumpIndex(direct))
    }))

  it.effect("a push that fails part-way leaves the marker where it was: the next push brings what it missed", () =>
    Effect.gen(function*() {
      const c = corpus()
      const many = (i: number) => path.join(c.agents, `many-${i}`, "sessions", `many-${i}.jsonl`)
      for (let i = 0; i < 10; i++) {
        fs.mkdirSync(path.dirname(many(i)), { recursive: true })
        fs.writeFileSync(many(i), header(`s-many-${i}`).replace("pusher", `many-${i}`) + item(1, `many ${i}`))
      }
      const url = yield* migratedDatabase
      const direct = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      for (let i = 0; i < 10; i++) fs.appendFileSync(many(i), item(2, `more ${i}`))
      yield* importOnce(c.policy, c.local, c.plan)
      // The server refuses the sources' checkpoints this time: the push fails after its events went in.
      yield* Effect.promise(() =>
        pgQuery(url, `
          CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
          CREATE TRIGGER refuse_sources BEFORE UPDATE ON sources FOR EACH STATEMENT EXECUTE FUNCTION refuse();`)
      )
      const failed = yield* Effect.either(push(c.local, url, MACHINE))
      expect(failed._tag).toBe("Left")
      yield* Effect.promise(() => pgQuery(url, "DROP TRIGGER refuse_sources ON sources"))
      const next = yield* push(c.local, url, MACHINE)
      expect(next.sources).toMatchObject({ read: 10, pushed: 10 })
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      expect(yield* dumpIndex(url)).toEqual(yield* dumpIndex(direct))
    }))

  it.effect("many changed sources go in together: the server sees a few transactions and statements, however many sources changed", () =>
    Effect.gen(function*() {
      const c = corpus()
      const many = (i: number) => path.join(c.agents, `many-${i}`, "sessions", `many-${i}.jsonl`)
      for (let i = 0; i < 40; i++) {
        fs.mkdirSync(path.dirname(many(i)), { recursive: true })
        fs.writeFileSync(many(i), header(`s-many-${i}`).replace("pusher", `many-${i}`) + item(1, `many ${i}`))
      }
      const url = yield* migratedDatabase
      const direct = yield* migratedDatabase
      // The server's own record of what a push does: a statement-level trigger on the tables a push writes logs each
      // statement with its transaction.
      yield* Effect.promise(() =>
        pgQuery(url, `
          CREATE TABLE push_log (tbl TEXT NOT NULL, op TEXT NOT NULL, xact BIGINT NOT NULL);
          CREATE FUNCTION push_log() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO push_log VALUES (TG_TABLE_NAME, TG_OP, txid_current()); RETURN NULL; END $$;
          CREATE TRIGGER events_log AFTER INSERT OR UPDATE OR DELETE ON events FOR EACH STATEMENT EXECUTE FUNCTION push_log();
          CREATE TRIGGER sources_log AFTER INSERT OR UPDATE OR DELETE ON sources FOR EACH STATEMENT EXECUTE FUNCTION push_log();
          CREATE TRIGGER generations_log AFTER INSERT OR UPDATE OR DELETE ON generations FOR EACH STATEMENT EXECUTE FUNCTION push_log();`)
      )
      const logged = Effect.promise(async () => {
        const rows = await pgQuery<{ tbl: string; xact: string }>(url, "SELECT tbl, xact FROM push_log")
        await pgQuery(url, "DELETE FROM push_log")
        return {
          transactions: new Set(rows.map((r) => r.xact)).size,
          events: rows.filter((r) => r.tbl === "events").length,
          sources: rows.filter((r) => r.tbl === "sources").length
        }
      })
      const first = yield* importOnce(c.policy, c.local, c.plan)
      const p1 = yield* push(c.local, url, MACHINE)
      expect(p1.sources.pushed).toBe(first.sources.accepted)
      expect(p1.sources.pushed).toBeGreaterThan(40)
      const firstLog = yield* logged
      // One transaction starts the generations, one brings all events and checkpoints (the marker is not logged).
      expect(firstLog.transactions).toBeLessThanOrEqual(2)
      expect(firstLog.events).toBeLessThanOrEqual(2)
      expect(firstLog.sources).toBeLessThanOrEqual(6)
      // 30 sources change: still a transaction, an insert of events, a few statements on sources
      for (let i = 0; i < 30; i++) fs.appendFileSync(many(i), item(2, `more ${i}`) + item(3, `again ${i}`))
      const r = yield* importOnce(c.policy, c.local, c.plan)
      expect(r.sources.accepted).toBe(30)
      const p2 = yield* push(c.local, url, MACHINE)
      expect([p2.sources.pushed, p2.eventsAdded]).toEqual([30, 60])
      const log2 = yield* logged
      expect(log2.transactions).toBe(1)
      expect(log2.events).toBe(1)
      expect(log2.sources).toBeLessThanOrEqual(2)
      // and the team index is what importing straight into it makes
      yield* importOnce(c.policy, direct, c.plan, undefined, MACHINE)
      expect(yield* dumpIndex(url)).toEqual(yield* dumpIndex(direct))
    }))

  it.effect("an import killed part-way locally: its source waits for the next push, none of its events are pushed", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      const before = yield* dumpIndex(url)
      fs.appendFileSync(c.file, [5, 6, 7, 8, 9, 10, 11].map((i) => item(i, `later ${i}`)).join(""))
      const killed = yield* Effect.exit(importOnce(c.policy, c.local, c.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      const p = yield* push(c.local, url, MACHINE)
      // no import runs (no live holder of the local index's lock): stopped part-way, not "being imported"
      expect([p.sources.stopped, p.sources.inProgress]).toEqual([1, 0])
      expect([p.sources.pushed, p.eventsAdded]).toEqual([0, 0])
      expect(yield* dumpIndex(url)).toEqual(before)
      // a push again, nothing run in between: still stopped, never among the unchanged (tester33b F5)
      const again = yield* push(c.local, url, MACHINE)
      expect([again.sources.stopped, again.sources.unchanged, again.sources.pushed]).toEqual([1, again.sources.local - 1, 0])
      expect(yield* dumpIndex(url)).toEqual(before)
      // the local import completes; the next push brings it all
      const done = yield* importOnce(c.policy, c.local, c.plan)
      const after = yield* push(c.local, url, MACHINE)
      expect([after.sources.pushed, after.sources.inProgress, after.sources.stopped]).toEqual([1, 0, 0])
      expect(after.eventsAdded).toBe(7)
      expect(done.eventsAdded).toBe(7 - 3)
    }))

  it.effect("a new source whose first import was killed: stopped on every push, never unchanged, on the team index once imported again", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      const first = yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      freshAgent(c)
      const killed = yield* Effect.exit(importOnce(c.policy, c.local, c.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      const local = first.sources.accepted + 1
      for (let round = 0; round < 2; round++) {
        const p = yield* push(c.local, url, MACHINE)
        expect(p.sources).toMatchObject({ local, pushed: 0, unchanged: local - 1, stopped: 1, inProgress: 0 })
        expect((yield* sessionIds(url)).includes("s-fresh")).toBe(false)
      }
      // an import running on the local index (its lock held; of another host: not checkable, so live): being imported
      fs.writeFileSync(`${path.resolve(c.local)}.lock`, JSON.stringify({ pid: 1, host: "another-host", since: new Date().toISOString(), watch: false }))
      const live = yield* push(c.local, url, MACHINE)
      expect(live.sources).toMatchObject({ pushed: 0, unchanged: local - 1, stopped: 0, inProgress: 1 })
      fs.rmSync(`${path.resolve(c.local)}.lock`)
      // imported again: the next push brings the session, and the team index holds what the local one shares
      yield* importOnce(c.policy, c.local, c.plan)
      const p = yield* push(c.local, url, MACHINE)
      expect(p.sources).toMatchObject({ local, pushed: 1, unchanged: local - 1, stopped: 0, inProgress: 0 })
      expect(p.eventsAdded).toBe(7)
      expect(yield* sessionIds(url)).toEqual(yield* sessionIds(c.local))
      expect((yield* sessionIds(url)).includes("s-fresh")).toBe(true)
    }))

  it.effect("the CLI: a push leaving a stopped import's source out says so with the remedy and exits 8", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      freshAgent(c)
      expect((yield* Effect.exit(importOnce(c.policy, c.local, c.plan, crashAt("after-commit", 1))))._tag).toBe("Failure")
      for (let round = 0; round < 2; round++) {
        const text = cli(["push", "--from", c.local, "--to", url, "--machine", MACHINE])
        expect(text.code).toBe(8)
        expect(text.stdout).not.toContain("being imported")
        expect(text.stdout).toContain("1 not pushed (local import stopped part-way)")
        expect(text.stdout).toContain("note: 1 source of the local index is incomplete")
        expect(text.stdout).toContain("Run `session-ingest import` again (it resumes where it stopped), then push.")
      }
      const json = cli(["push", "--from", c.local, "--to", url, "--machine", MACHINE, "--json"])
      expect(json.code).toBe(8)
      expect(JSON.parse(json.stdout).data.sources).toMatchObject({ stopped: 1, inProgress: 0, pushed: 0 })
      yield* importOnce(c.policy, c.local, c.plan)
      const done = cli(["push", "--from", c.local, "--to", url, "--machine", MACHINE, "--json"])
      expect(done.code).toBe(0)
      expect(JSON.parse(done.stdout).data.sources).toMatchObject({ stopped: 0, inProgress: 0, pushed: 1 })
    }))

  it.effect("--machine with a control character, line break or bidirectional control is INVALID_ARGUMENT naming the rule; nothing written", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      expect(cli(["import", "--index", c.local, "--agents-root", c.agents, "--workspace", c.dir]).code).toBe(0)
      for (const bad of ["evil\u001b[31mRED\nx", "two\nlines", "tab\there", "del\u007f", "c1\u0085", "bidi\u202eevil", "sep\u2028x"]) {
        for (const args of [["push", "--from", c.local, "--to", url], ["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir]]) {
          const r = cli([...args, "--machine", bad, "--json"])
          expect(r.code).toBe(2)
          const body = JSON.parse(r.stdout)
          expect(body.error.code).toBe("INVALID_ARGUMENT")
          expect(body.error.message).toContain("a machine name may not hold control characters, line breaks or bidirectional controls")
        }
      }
      const text = cli(["push", "--from", c.local, "--to", url, "--machine", "evil\u001b[31mRED\nx"])
      expect(text.code).toBe(2)
      expect(text.stderr).toContain("(\\x1b at character 5)")
      expect(text.stderr).not.toContain("\u001b")
      expect(yield* Effect.promise(() => pgQuery(url, "SELECT count(*)::int AS n FROM sources"))).toEqual([{ n: 0 }])
      // a name as a host name has it, with '.', '-', '_' and non-ASCII letters, is fine
      expect(cli(["push", "--from", c.local, "--to", url, "--machine", "ci-runner_3.example.\u00e9t\u00e9"]).code).toBe(0)
    }))

  it.effect("the CLI: push --from FILE --to URL; a --to that is no URL is INVALID_ARGUMENT; an unreachable server exit 6 without the password", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* migratedDatabase
      expect(cli(["import", "--index", c.local, "--agents-root", c.agents, "--workspace", c.dir]).code).toBe(0)
      const r = cli(["push", "--from", c.local, "--to", url, "--machine", MACHINE, "--json"])
      expect(r.code).toBe(0)
      const body = JSON.parse(r.stdout)
      expect(body.data).toMatchObject({ machine: MACHINE, sources: { unchanged: 0 } })
      expect(body.data.eventsAdded).toBeGreaterThan(0)
      const text = cli(["push", "--from", c.local, "--to", url, "--machine", MACHINE])
      expect(text.code).toBe(0)
      expect(text.stdout).toMatch(/0 pushed/)
      expect(cli(["push", "--from", c.local, "--to", path.join(c.dir, "x.db")]).code).toBe(2)
      const down = cli(["push", "--from", c.local, "--to", "postgres://bob:hunter2-secret@127.0.0.1:1/team"])
      expect(down.code).toBe(6)
      expect(down.stderr).toContain("127.0.0.1:1")
      expect(down.stdout + down.stderr).not.toContain("hunter2-secret")
      expect(cli(["push", "--from", path.join(c.dir, "none.db"), "--to", url]).code).toBe(4)
    }))
})
