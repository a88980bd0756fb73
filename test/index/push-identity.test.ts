/**
 * `push` and the identity of a generation (issue 17, "Local first, then
 * push"): generation numbers are local to an index file, so the team index
 * tells a generation by its content, not by its number. A local index
 * recreated, two local files pushed alternately, a file restored from an
 * older copy, a push that died mid-way, and direct imports of the same
 * machine and path between pushes: after each push the team index holds
 * exactly the local index's sessions and events, one current generation per
 * source, no rows of a generation it does not have, no duplicate events.
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { agentsHeader, agentsItem } from "../support/agents-lines.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"

const MACHINE = "m2"

const item = agentsItem

const header = (sessionId: string) => agentsHeader(sessionId, "solo")

/** One session in one file, a local index beside it. */
const single = () => {
  const dir = tempDir()
  const agents = path.join(dir, "agents")
  const sessions = path.join(agents, "solo", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "solo.jsonl")
  fs.writeFileSync(file, header("s-solo") + [1, 2, 3, 4, 5].map((i) => item(i, `line ${i}`)).join(""))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents }
  return { dir, file, policy, plan: planFromPolicy(policy, { batchSize: 2 }), local: path.join(dir, "local.db") }
}

/** `sed -i`: one line of the file changed in place. */
const edit = (file: string, from: string, to: string) => {
  const text = fs.readFileSync(file, "utf8")
  expect(text).toContain(from)
  fs.writeFileSync(file, text.replace(from, to))
}

/** The sessions an index lists, with their events whole (the uid is the index's own: left out). */
const content = (target: string, machine?: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const out: Array<unknown> = []
    for (const s of yield* i.sessions({})) out.push({ id: s.sessionId, n: s.eventCount, events: yield* i.events(s.sessionUid) })
    return out
  }).pipe(Effect.provide(indexLayer(target, machine)))

/**
 * The team index holds what the local index holds, and is well formed: each
 * source one current (not superseded) generation, which is the source's; no
 * session or event of a generation it has no row of; in current generations
 * as many events as distinct event uids, as many as the source counts.
 * Answers the generations rows.
 */
const expectTeamMatches = (local: string, url: string) =>
  Effect.gen(function*() {
    const want = yield* content(local)
    expect(want.length).toBeGreaterThan(0)
    expect(yield* content(url, MACHINE)).toEqual(want)
    const q = <A>(text: string) => Effect.promise(() => pgQuery<A>(url, text))
    const orphans = yield* q<{ n: number }>(`
      SELECT (SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM generations g WHERE g.source_key = e.source_key AND g.generation = e.generation))
           + (SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM generations g WHERE g.source_key = s.source_key AND g.generation = s.generation))
           AS n`)
    expect(Number(orphans[0].n)).toBe(0)
    const current = yield* q<{ source_key: string; generation: number; status: string; event_count: number; live: string; n: string; uids: string }>(`
      SELECT s.source_key, s.generation, s.status, s.event_count,
        (SELECT count(*) FROM generations g WHERE g.source_key = s.source_key AND g.superseded_at IS NULL) AS live,
        (SELECT count(*) FROM events e WHERE e.source_key = s.source_key AND e.generation = s.generation) AS n,
        (SELECT count(DISTINCT e.event_uid) FROM events e WHERE e.source_key = s.source_key AND e.generation = s.generation) AS uids
      FROM sources s WHERE s.status <> 'superseded'`)
    for (const s of current) {
      expect(Number(s.live)).toBe(1)
      expect(Number(s.n)).toBe(Number(s.uids))
      expect(Number(s.n)).toBe(s.event_count)
      const [g] = yield* q<{ n: string }>(
        `SELECT count(*) AS n FROM generations WHERE source_key = '${s.source_key}' AND generation = ${s.generation} AND superseded_at IS NULL`
      )
      expect(Number(g.n)).toBe(1)
    }
    // Events of generations still current, across the team index: no event twice.
    const [dup] = yield* q<{ n: string; uids: string }>(`
      SELECT count(*) AS n, count(DISTINCT e.event_uid) AS uids FROM events e
        JOIN generations g ON g.source_key = e.source_key AND g.generation = e.generation AND g.superseded_at IS NULL`)
    expect(Number(dup.n)).toBe(Number(dup.uids))
    return yield* q<{ generation: number; superseded: boolean }>(
      `SELECT generation, superseded_at IS NOT NULL AS superseded FROM generations ORDER BY source_key, generation`
    )
  })

describe("push: a generation is its content, not its local number", () => {
  it.effect("the local index recreated: its gen 1 equal to the team's gen 2 is unchanged; its gen 2 with other content is a new team generation", () =>
    Effect.gen(function*() {
      const c = single()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      const p1 = yield* push(c.local, url, MACHINE)
      expect(p1.sources.pushed).toBe(1)
      // 2. a line edited: a new generation, locally and in the team index
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, c.local, c.plan)
      const p2 = yield* push(c.local, url, MACHINE)
      expect(p2.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect(yield* expectTeamMatches(c.local, url)).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      // 3. the local index recreated: its gen 1 is the team's gen 2, nothing to push
      fs.rmSync(c.local)
      yield* importOnce(c.policy, c.local, c.plan)
      const p3 = yield* push(c.local, url, MACHINE)
      expect(p3.sources).toMatchObject({ pushed: 0, unchanged: 1, newGenerations: 0 })
      expect([p3.eventsAdded, p3.sessionsAdded]).toEqual([0, 0])
      expect(yield* expectTeamMatches(c.local, url)).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      // 4. another line edited: local gen 2, new content: a new team generation (3), the old one superseded
      edit(c.file, "line 4", "LINE 4")
      const r4 = yield* importOnce(c.policy, c.local, c.plan)
      const p4 = yield* push(c.local, url, MACHINE)
      expect(p4.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect(p4.eventsAdded).toBe(r4.eventsAdded)
      expect(yield* expectTeamMatches(c.local, url)).toEqual([
        { generation: 1, superseded: true },
        { generation: 2, superseded: true },
        { generation: 3, superseded: false }
      ])
      // nothing new: nothing moves
      const idle = yield* push(c.local, url, MACHINE)
      expect(idle.sources.pushed).toBe(0)
      // and an append afterwards goes on in the same team generation
      fs.appendFileSync(c.file, item(6, "line 6"))
      yield* importOnce(c.policy, c.local, c.plan)
      const p5 = yield* push(c.local, url, MACHINE)
      expect(p5.sources).toMatchObject({ pushed: 1, newGenerations: 0 })
      expect(p5.eventsAdded).toBe(1)
      expect((yield* expectTeamMatches(c.local, url)).length).toBe(3)
    }))

  it.effect("two local files of the same machine and path, pushed alternately: the team index holds the last pushed file's content", () =>
    Effect.gen(function*() {
      const c = single()
      const other = path.join(c.dir, "other.db")
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      edit(c.file, "line 1", "LINE 1")
      yield* importOnce(c.policy, other, c.plan) // other's gen 1: the edited content
      expect((yield* push(other, url, MACHINE)).sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      yield* expectTeamMatches(other, url)
      yield* importOnce(c.policy, c.local, c.plan) // local's gen 2: the same content
      const same = yield* push(c.local, url, MACHINE)
      expect(same.sources).toMatchObject({ pushed: 0, newGenerations: 0 })
      expect(same.eventsAdded).toBe(0)
      yield* expectTeamMatches(c.local, url)
      edit(c.file, "line 3", "LINE 3")
      yield* importOnce(c.policy, other, c.plan) // other's gen 2
      yield* push(other, url, MACHINE)
      yield* expectTeamMatches(other, url)
      fs.appendFileSync(c.file, item(6, "line 6"))
      yield* importOnce(c.policy, c.local, c.plan) // local's gen 3: other's gen 2 and more
      yield* push(c.local, url, MACHINE)
      const gens = yield* expectTeamMatches(c.local, url)
      expect(gens.filter((g) => !g.superseded).length).toBe(1)
      yield* importOnce(c.policy, other, c.plan)
      yield* push(other, url, MACHINE)
      yield* expectTeamMatches(other, url)
      expect(yield* content(other)).toEqual(yield* content(c.local))
    }))

  it.effect("a local file restored from an older copy, then changed otherwise: its generation of the same number is not the team's", () =>
    Effect.gen(function*() {
      const c = single()
      const backup = path.join(c.dir, "backup.db")
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      fs.copyFileSync(c.local, backup)
      const original = fs.readFileSync(c.file, "utf8")
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, c.local, c.plan) // gen 2: LINE 2
      yield* push(c.local, url, MACHINE)
      yield* expectTeamMatches(c.local, url)
      // the local index back from the copy (its gen 1), and the file changed another way, then appended to: gen 2
      // again, of other content (its journal, of the same id, now past the number the marker holds)
      fs.copyFileSync(backup, c.local)
      fs.writeFileSync(c.file, original.replace("line 3", "LINE 3"))
      yield* importOnce(c.policy, c.local, c.plan)
      fs.appendFileSync(c.file, item(6, "line 6"))
      yield* importOnce(c.policy, c.local, c.plan)
      const p = yield* push(c.local, url, MACHINE)
      expect(p.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      const gens = yield* expectTeamMatches(c.local, url)
      expect(gens.map((g) => g.superseded)).toEqual([true, true, false])
      // the journal of the restored file goes on: the next change is pushed too
      fs.appendFileSync(c.file, item(7, "line 7"))
      yield* importOnce(c.policy, c.local, c.plan)
      expect((yield* push(c.local, url, MACHINE)).eventsAdded).toBe(1)
      yield* expectTeamMatches(c.local, url)
    }))

  it.effect("a local file restored from an older copy and pushed at once: the team index takes its content, and later changes follow", () =>
    Effect.gen(function*() {
      const c = single()
      const backup = path.join(c.dir, "backup.db")
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      fs.copyFileSync(c.local, backup)
      const original = fs.readFileSync(c.file, "utf8")
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, c.local, c.plan)
      fs.appendFileSync(c.file, item(6, "line 6"))
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      // back from the copy, the file too: pushed at once (the marker is ahead of the journal: every source compared)
      fs.copyFileSync(backup, c.local)
      fs.writeFileSync(c.file, original)
      const p = yield* push(c.local, url, MACHINE)
      expect(p.sources).toMatchObject({ read: 1, pushed: 1, newGenerations: 1 })
      expect((yield* expectTeamMatches(c.local, url)).map((g) => g.superseded)).toEqual([true, true, false])
      // each change after it is read and pushed, also those numbered below the marker the lost changes left
      for (const [from, to] of [["line 3", "LINE 3"], ["line 4", "LINE 4"], ["line 5", "LINE 5"]]) {
        edit(c.file, from, to)
        yield* importOnce(c.policy, c.local, c.plan)
        expect((yield* push(c.local, url, MACHINE)).sources).toMatchObject({ read: 1, pushed: 1, newGenerations: 1 })
        yield* expectTeamMatches(c.local, url)
      }
    }))

  it.effect("a local file restored from an older copy: a change numbered below the marker the lost changes left is pushed", () =>
    Effect.gen(function*() {
      const c = single()
      const second = path.join(c.dir, "agents", "second", "sessions", "second.jsonl")
      fs.mkdirSync(path.dirname(second), { recursive: true })
      fs.writeFileSync(second, header("s-second").replace("solo", "second") + item(1, "second 1"))
      const backup = path.join(c.dir, "backup.db")
      const url = yield* migratedDatabase
      const high = () => {
        const db = new Database(c.local, { readonly: true })
        try {
          return (db.prepare("SELECT max(seq) AS n FROM push_journal").get() as { n: number }).n
        } finally {
          db.close()
        }
      }
      const seqOf = (name: string) => {
        const db = new Database(c.local, { readonly: true })
        try {
          return (db.prepare("SELECT j.seq AS n FROM push_journal j JOIN sources s USING (source_key) WHERE s.locator_json LIKE ?").get(`%${name}%`) as {
            n: number
          }).n
        } finally {
          db.close()
        }
      }
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      fs.copyFileSync(c.local, backup)
      const originals = [fs.readFileSync(c.file), fs.readFileSync(second)]
      // changes later lost: many journal numbers
      for (let i = 2; high() < 60 && i < 40; i++) {
        fs.writeFileSync(second, fs.readFileSync(second, "utf8").replace("second 1", `second 1.${i}`) + item(i, `second ${i}`))
        yield* importOnce(c.policy, c.local, c.plan)
      }
      yield* push(c.local, url, MACHINE)
      const [mark] = yield* Effect.promise(() => pgQuery<{ seq: string }>(url, "SELECT seq FROM push_marks"))
      // back from the copy, the files too, and pushed (every source compared)
      fs.copyFileSync(backup, c.local)
      fs.writeFileSync(c.file, originals[0])
      fs.writeFileSync(second, originals[1])
      yield* push(c.local, url, MACHINE)
      yield* expectTeamMatches(c.local, url)
      // the first file changed (numbered below the marker), then the second often enough to pass it
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, c.local, c.plan)
      expect(seqOf("solo.jsonl")).toBeLessThanOrEqual(Number(mark.seq))
      for (let i = 2; high() <= Number(mark.seq) && i < 60; i++) {
        fs.appendFileSync(second, item(i, `second again ${i}`))
        yield* importOnce(c.policy, c.local, c.plan)
      }
      expect(high()).toBeGreaterThan(Number(mark.seq))
      const p = yield* push(c.local, url, MACHINE)
      expect(p.sources.pushed).toBe(2)
      yield* expectTeamMatches(c.local, url)
    }))

  it.effect("a push that died after starting a new generation: the next one fills that generation, no other", () =>
    Effect.gen(function*() {
      const c = single()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, c.local, c.plan)
      // The server refuses events this time: the new generation is begun, nothing of it goes in.
      yield* Effect.promise(() =>
        pgQuery(url, `
          CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
          CREATE TRIGGER refuse_events BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse();`)
      )
      expect((yield* Effect.either(push(c.local, url, MACHINE)))._tag).toBe("Left")
      yield* Effect.promise(() => pgQuery(url, "DROP TRIGGER refuse_events ON events"))
      yield* push(c.local, url, MACHINE)
      expect(yield* expectTeamMatches(c.local, url)).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      expect((yield* push(c.local, url, MACHINE)).sources.pushed).toBe(0)
    }))

  it.effect("direct imports of the same machine and path between pushes: the same content is unchanged, other content a new generation", () =>
    Effect.gen(function*() {
      const c = single()
      const url = yield* migratedDatabase
      yield* importOnce(c.policy, c.local, c.plan)
      yield* push(c.local, url, MACHINE)
      // edited, imported straight in (team gen 2), then locally (local gen 2, same content): nothing to push
      edit(c.file, "line 2", "LINE 2")
      yield* importOnce(c.policy, url, c.plan, undefined, MACHINE)
      yield* importOnce(c.policy, c.local, c.plan)
      const same = yield* push(c.local, url, MACHINE)
      expect(same.sources).toMatchObject({ pushed: 0, newGenerations: 0 })
      expect(same.eventsAdded).toBe(0)
      expect((yield* expectTeamMatches(c.local, url)).length).toBe(2)
      // edited and imported straight in (team gen 3), edited again and imported locally (local gen 3): the local content wins
      edit(c.file, "line 3", "LINE 3")
      yield* importOnce(c.policy, url, c.plan, undefined, MACHINE)
      edit(c.file, "line 4", "LINE 4")
      yield* importOnce(c.policy, c.local, c.plan)
      const other = yield* push(c.local, url, MACHINE)
      expect(other.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      const gens = yield* expectTeamMatches(c.local, url)
      expect(gens.map((g) => g.superseded)).toEqual([true, true, true, false])
      // and the other way: the local content pushed, then imported straight in: the direct import finds it unchanged
      const direct = yield* importOnce(c.policy, url, c.plan, undefined, MACHINE)
      expect([direct.sources.accepted, direct.eventsAdded]).toEqual([0, 0])
    }))
})
