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
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
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

/** A second Muse agents session beside the fixture's (agent `second`) holding `items`: its transcript's path. */
const addSecond = (dir: string, ...items: ReadonlyArray<string>): string => {
  const second = path.join(dir, "agents", "second", "sessions", "second.jsonl")
  fs.mkdirSync(path.dirname(second), { recursive: true })
  fs.writeFileSync(second, header("s-second").replace("solo", "second") + items.join(""))
  return second
}

/** {@link single} with a migrated team index (`url`), and its steps: import into an index, push one, check the team index. */
const withTeam = Effect.gen(function*() {
  const c = single()
  const url = yield* migratedDatabase
  /** Import the file into `target` (the local index, or another local file). */
  const importInto = (target = c.local) => importOnce(c.policy, target, c.plan)
  /** Push `local` to the team index. */
  const pushFrom = (local = c.local) => push(local, url, MACHINE)
  return {
    ...c,
    url,
    importInto,
    pushFrom,
    /** Import into `local`, then push it. */
    importAndPush: (local = c.local) => Effect.zipRight(importInto(local), pushFrom(local)),
    /** {@link expectTeamMatches} of `local`. */
    matches: (local = c.local) => expectTeamMatches(local, url),
    /** Import straight into the team index, as machine {@link MACHINE}. */
    importDirect: () => importOnce(c.policy, url, c.plan, undefined, MACHINE)
  }
})

/**
 * Imported and pushed, then the local index copied to `backup` and the
 * file's text kept (`original`), then line 2 edited and imported (local gen 2):
 * how the restored-copy cases begin.
 */
const backedUpThenEdited = (t: Effect.Effect.Success<typeof withTeam>) =>
  Effect.gen(function*() {
    yield* t.importAndPush()
    const backup = path.join(t.dir, "backup.db")
    fs.copyFileSync(t.local, backup)
    const original = fs.readFileSync(t.file, "utf8")
    edit(t.file, "line 2", "LINE 2")
    yield* t.importInto()
    return { backup, original }
  })

describe("push: a generation is its content, not its local number", () => {
  it.effect("the local index recreated: its gen 1 equal to the team's gen 2 is unchanged; its gen 2 with other content is a new team generation", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      expect((yield* t.importAndPush()).sources.pushed).toBe(1)
      // 2. a line edited: a new generation, locally and in the team index
      edit(t.file, "line 2", "LINE 2")
      expect((yield* t.importAndPush()).sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect(yield* t.matches()).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      // 3. the local index recreated: its gen 1 is the team's gen 2, nothing to push
      fs.rmSync(t.local)
      const p3 = yield* t.importAndPush()
      expect(p3.sources).toMatchObject({ pushed: 0, unchanged: 1, newGenerations: 0 })
      expect([p3.eventsAdded, p3.sessionsAdded]).toEqual([0, 0])
      expect(yield* t.matches()).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      // 4. another line edited: local gen 2, new content: a new team generation (3), the old one superseded
      edit(t.file, "line 4", "LINE 4")
      const r4 = yield* t.importInto()
      const p4 = yield* t.pushFrom()
      expect(p4.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect(p4.eventsAdded).toBe(r4.eventsAdded)
      expect(yield* t.matches()).toEqual([
        { generation: 1, superseded: true },
        { generation: 2, superseded: true },
        { generation: 3, superseded: false }
      ])
      // nothing new: nothing moves
      expect((yield* t.pushFrom()).sources.pushed).toBe(0)
      // and an append afterwards goes on in the same team generation
      fs.appendFileSync(t.file, item(6, "line 6"))
      const p5 = yield* t.importAndPush()
      expect(p5.sources).toMatchObject({ pushed: 1, newGenerations: 0 })
      expect(p5.eventsAdded).toBe(1)
      expect((yield* t.matches()).length).toBe(3)
    }))

  it.effect("two local files of the same machine and path, pushed alternately: the team index holds the last pushed file's content", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const other = path.join(t.dir, "other.db")
      yield* t.importAndPush()
      edit(t.file, "line 1", "LINE 1")
      // other's gen 1: the edited content
      expect((yield* t.importAndPush(other)).sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      yield* t.matches(other)
      // local's gen 2: the same content
      const same = yield* t.importAndPush()
      expect(same.sources).toMatchObject({ pushed: 0, newGenerations: 0 })
      expect(same.eventsAdded).toBe(0)
      yield* t.matches()
      edit(t.file, "line 3", "LINE 3")
      yield* t.importAndPush(other) // other's gen 2
      yield* t.matches(other)
      fs.appendFileSync(t.file, item(6, "line 6"))
      yield* t.importAndPush() // local's gen 3: other's gen 2 and more
      const gens = yield* t.matches()
      expect(gens.filter((g) => !g.superseded).length).toBe(1)
      yield* t.importAndPush(other)
      yield* t.matches(other)
      expect(yield* content(other)).toEqual(yield* content(t.local))
    }))

  it.effect("a local file restored from an older copy, then changed otherwise: its generation of the same number is not the team's", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const { backup, original } = yield* backedUpThenEdited(t) // gen 2: LINE 2
      yield* t.pushFrom()
      yield* t.matches()
      // the local index back from the copy (its gen 1), and the file changed another way, then appended to: gen 2
      // again, of other content (its journal, of the same id, now past the number the marker holds)
      fs.copyFileSync(backup, t.local)
      fs.writeFileSync(t.file, original.replace("line 3", "LINE 3"))
      yield* t.importInto()
      fs.appendFileSync(t.file, item(6, "line 6"))
      const p = yield* t.importAndPush()
      expect(p.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect((yield* t.matches()).map((g) => g.superseded)).toEqual([true, true, false])
      // the journal of the restored file goes on: the next change is pushed too
      fs.appendFileSync(t.file, item(7, "line 7"))
      expect((yield* t.importAndPush()).eventsAdded).toBe(1)
      yield* t.matches()
    }))

  it.effect("a local file restored from an older copy and pushed at once: the team index takes its content, and later changes follow", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const { backup, original } = yield* backedUpThenEdited(t)
      fs.appendFileSync(t.file, item(6, "line 6"))
      yield* t.importAndPush()
      // back from the copy, the file too: pushed at once (the marker is ahead of the journal: every source compared)
      fs.copyFileSync(backup, t.local)
      fs.writeFileSync(t.file, original)
      expect((yield* t.pushFrom()).sources).toMatchObject({ read: 1, pushed: 1, newGenerations: 1 })
      expect((yield* t.matches()).map((g) => g.superseded)).toEqual([true, true, false])
      // each change after it is read and pushed, also those numbered below the marker the lost changes left
      for (const [from, to] of [["line 3", "LINE 3"], ["line 4", "LINE 4"], ["line 5", "LINE 5"]]) {
        edit(t.file, from, to)
        expect((yield* t.importAndPush()).sources).toMatchObject({ read: 1, pushed: 1, newGenerations: 1 })
        yield* t.matches()
      }
    }))

  it.effect("a local file restored from an older copy: a change numbered below the marker the lost changes left is pushed", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const second = addSecond(t.dir, item(1, "second 1"))
      const backup = path.join(t.dir, "backup.db")
      /** A number of the local journal: the first row `query` answers. */
      const journal = (query: string, ...params: ReadonlyArray<unknown>) => {
        const db = new Database(t.local, { readonly: true })
        try {
          return (db.prepare(query).get(...params) as { n: number }).n
        } finally {
          db.close()
        }
      }
      const high = () => journal("SELECT max(seq) AS n FROM push_journal")
      const seqOf = (name: string) => journal("SELECT j.seq AS n FROM push_journal j JOIN sources s USING (source_key) WHERE s.locator_json LIKE ?", `%${name}%`)
      yield* t.importAndPush()
      fs.copyFileSync(t.local, backup)
      const originals = [fs.readFileSync(t.file), fs.readFileSync(second)]
      // changes later lost: many journal numbers
      for (let i = 2; high() < 60 && i < 40; i++) {
        fs.writeFileSync(second, fs.readFileSync(second, "utf8").replace("second 1", `second 1.${i}`) + item(i, `second ${i}`))
        yield* t.importInto()
      }
      yield* t.pushFrom()
      const [mark] = yield* Effect.promise(() => pgQuery<{ seq: string }>(t.url, "SELECT seq FROM push_marks"))
      // back from the copy, the files too, and pushed (every source compared)
      fs.copyFileSync(backup, t.local)
      fs.writeFileSync(t.file, originals[0])
      fs.writeFileSync(second, originals[1])
      yield* t.pushFrom()
      yield* t.matches()
      // the first file changed (numbered below the marker), then the second often enough to pass it
      edit(t.file, "line 2", "LINE 2")
      yield* t.importInto()
      expect(seqOf("solo.jsonl")).toBeLessThanOrEqual(Number(mark.seq))
      for (let i = 2; high() <= Number(mark.seq) && i < 60; i++) {
        fs.appendFileSync(second, item(i, `second again ${i}`))
        yield* t.importInto()
      }
      expect(high()).toBeGreaterThan(Number(mark.seq))
      expect((yield* t.pushFrom()).sources.pushed).toBe(2)
      yield* t.matches()
    }))

  it.effect("a push that died after starting a new generation: the next one fills that generation, no other", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      yield* t.importAndPush()
      edit(t.file, "line 2", "LINE 2")
      yield* t.importInto()
      // The server refuses events this time: the new generation is begun, nothing of it goes in.
      yield* Effect.promise(() =>
        pgQuery(t.url, `
          CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
          CREATE TRIGGER refuse_events BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse();`)
      )
      expect((yield* Effect.either(t.pushFrom()))._tag).toBe("Left")
      yield* Effect.promise(() => pgQuery(t.url, "DROP TRIGGER refuse_events ON events"))
      yield* t.pushFrom()
      expect(yield* t.matches()).toEqual([{ generation: 1, superseded: true }, { generation: 2, superseded: false }])
      expect((yield* t.pushFrom()).sources.pushed).toBe(0)
    }))

  it.effect("direct imports of the same machine and path between pushes: the same content is unchanged, other content a new generation", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      yield* t.importAndPush()
      // edited, imported straight in (team gen 2), then locally (local gen 2, same content): nothing to push
      edit(t.file, "line 2", "LINE 2")
      yield* t.importDirect()
      const same = yield* t.importAndPush()
      expect(same.sources).toMatchObject({ pushed: 0, newGenerations: 0 })
      expect(same.eventsAdded).toBe(0)
      expect((yield* t.matches()).length).toBe(2)
      // edited and imported straight in (team gen 3), edited again and imported locally (local gen 3): the local content wins
      edit(t.file, "line 3", "LINE 3")
      yield* t.importDirect()
      edit(t.file, "line 4", "LINE 4")
      const other = yield* t.importAndPush()
      expect(other.sources).toMatchObject({ pushed: 1, newGenerations: 1 })
      expect((yield* t.matches()).map((g) => g.superseded)).toEqual([true, true, true, false])
      // and the other way: the local content pushed, then imported straight in: the direct import finds it unchanged
      const direct = yield* t.importDirect()
      expect([direct.sources.accepted, direct.eventsAdded]).toEqual([0, 0])
    }))
})

/**
 * A restored copy whose journal reaches the marker before its first push
 * (issue 17, "Local first, then push"): the backup and the original number
 * their changes alike, so a number alone cannot tell the backup's change at
 * the marker's number from the original's. Each change carries a random id,
 * and the marker the id of the change at its number.
 */
describe("push: a restored copy whose journal reaches the marker", () => {
  /**
   * Two sources (solo, second), imported and pushed, the local index copied
   * (`backup`), then both files edited, imported and pushed from the original
   * (the marker advances to `mark`); then the backup restored over the local
   * index, the files back to their backed-up text, and `diverge` changing
   * them otherwise before the push under test.
   */
  const restoredCopy = Effect.gen(function*() {
    const t = yield* withTeam
    const second = addSecond(t.dir, item(1, "second 1"), item(2, "second 2"))
    /** The local journal's highest number. */
    const high = () => {
      const db = new Database(t.local, { readonly: true })
      try {
        return (db.prepare("SELECT max(seq) AS n FROM push_journal").get() as { n: number }).n
      } finally {
        db.close()
      }
    }
    const markSeq = () => Effect.map(Effect.promise(() => pgQuery<{ seq: string }>(t.url, "SELECT seq FROM push_marks")), (r) => Number(r[0].seq))
    yield* t.importAndPush()
    const backup = path.join(t.dir, "backup.db")
    fs.copyFileSync(t.local, backup)
    const originals = [fs.readFileSync(t.file, "utf8"), fs.readFileSync(second, "utf8")]
    // the original: both files edited, imported, pushed
    edit(t.file, "line 2", "LINE 2")
    edit(second, "second 1", "SECOND 1")
    yield* t.importAndPush()
    yield* t.matches()
    const mark = yield* markSeq()
    expect(mark).toBe(high())
    // the backup restored, the files too
    fs.copyFileSync(backup, t.local)
    fs.writeFileSync(t.file, originals[0])
    fs.writeFileSync(second, originals[1])
    return { ...t, second, high, mark, markSeq }
  })

  it.effect("as many changes as the original's, other ones: the journal number equals the marker, and every change reaches the team index", () =>
    Effect.gen(function*() {
      const t = yield* restoredCopy
      edit(t.file, "line 2", "LiNE 2")
      edit(t.second, "second 1", "SeCOND 1")
      yield* t.importInto()
      expect(t.high()).toBe(t.mark)
      const p = yield* t.pushFrom()
      expect(p.sources).toMatchObject({ read: 2, pushed: 2, newGenerations: 2 })
      yield* t.matches()
      // the marker is now the backup's; what follows it goes incrementally (one source read)
      expect(yield* t.markSeq()).toBe(t.high())
      fs.appendFileSync(t.file, item(6, "line 6"))
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 1, pushed: 1 })
      yield* t.matches()
    }))

  it.effect("more changes than the original's: the changes at or below the marker's number reach the team index too", () =>
    Effect.gen(function*() {
      const t = yield* restoredCopy
      edit(t.file, "line 2", "LiNE 2")
      edit(t.second, "second 1", "SeCOND 1")
      yield* t.importInto()
      fs.appendFileSync(t.second, item(3, "second 3"))
      yield* t.importInto()
      expect(t.high()).toBeGreaterThan(t.mark)
      const p = yield* t.pushFrom()
      expect(p.sources).toMatchObject({ read: 2, pushed: 2, newGenerations: 2 })
      yield* t.matches()
      fs.appendFileSync(t.second, item(4, "second 4"))
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 1, pushed: 1 })
      yield* t.matches()
    }))

  it.effect("fewer changes than the original's: the journal behind the marker, every change reaches the team index", () =>
    Effect.gen(function*() {
      const t = yield* restoredCopy
      edit(t.file, "line 4", "LINE 4")
      yield* t.importInto()
      expect(t.high()).toBeLessThan(t.mark)
      const p = yield* t.pushFrom()
      expect(p.sources).toMatchObject({ read: 2, pushed: 2 })
      yield* t.matches()
      edit(t.second, "second 2", "SECOND 2")
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 1, pushed: 1 })
      yield* t.matches()
    }))

  it.effect("the original, not restored: the source at the marker's number changing again is read alone, push after push", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const second = addSecond(t.dir, item(1, "second 1"))
      yield* t.importAndPush()
      for (let i = 6; i < 10; i++) {
        fs.appendFileSync(t.file, item(i, `line ${i}`))
        yield* t.importInto()
        const p = yield* t.pushFrom()
        expect(p.sources).toMatchObject({ local: 2, read: 1, pushed: 1, newGenerations: 0 })
        expect(p.eventsAdded).toBe(1)
      }
      yield* t.matches()
      // the id of the marker's change no longer kept (older than the ids the journal keeps): every checkpoint read
      const marks: Array<{ seq: string }> = yield* Effect.promise(() => pgQuery<{ seq: string }>(t.url, "SELECT seq FROM push_marks"))
      const local = new Database(t.local)
      const dropped = (local.prepare("DELETE FROM push_changes WHERE seq = ?").run(Number(marks[0].seq)) as { changes: number }).changes
      local.close()
      expect(dropped).toBe(1)
      fs.appendFileSync(t.file, item(10, "line 10"))
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 2, pushed: 1 })
      yield* t.matches()
    }))

  it.effect("upgrades: a team index at the schema before the change ids stops a push with its remedy; migrated, its marker (no id) makes one full read, then pushes go incrementally", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const second = addSecond(t.dir, item(1, "second 1"))
      yield* t.importAndPush()
      // the team index as the build before left it: no change id in its marker, its migrations up to 0005
      yield* Effect.promise(() => pgQuery(t.url, "ALTER TABLE push_marks DROP COLUMN change_id; DELETE FROM si_migrations WHERE migration_id >= 6"))
      const [before] = yield* Effect.promise(() => pgQuery<{ n: string }>(t.url, "SELECT count(*) AS n FROM information_schema.columns WHERE column_name = 'change_id'"))
      fs.appendFileSync(t.file, item(6, "line 6"))
      yield* t.importInto()
      const refused = yield* Effect.either(t.pushFrom())
      expect(refused._tag).toBe("Left")
      if (refused._tag === "Left") {
        expect(refused.left.details).toMatchObject({ reason: "schema-outdated", have: 5, want: IndexPostgres.SCHEMA_VERSION })
        expect(refused.left.remediation).toContain("session-ingest index migrate --index")
      }
      // the push ran no DDL
      const [after] = yield* Effect.promise(() => pgQuery<{ n: string }>(t.url, "SELECT count(*) AS n FROM information_schema.columns WHERE column_name = 'change_id'"))
      expect(Number(after.n)).toBe(Number(before.n))
      expect((yield* IndexPostgres.migrate(t.url)).applied.map(([, name]) => name)).toEqual(["push_change", "search_pairs", "search_facets", "usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      // the marker has no change id: every checkpoint read once, then only the changed ones
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 2, pushed: 1 })
      yield* t.matches()
      fs.appendFileSync(t.file, item(7, "line 7"))
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 1, pushed: 1 })
      yield* t.matches()
    }))

  it.effect("upgrades: a local index from before its change ids is pushed by number as it is; an import adds them, then one full read, then incremental", () =>
    Effect.gen(function*() {
      const t = yield* withTeam
      const second = addSecond(t.dir, item(1, "second 1"))
      yield* t.importInto()
      // the local index as the build before left it: the journal of migration 0007, no change ids
      const db = new Database(t.local)
      db.exec(`DROP TRIGGER push_journal_insert; DROP TRIGGER push_journal_update; DROP TRIGGER push_journal_delete;
               DROP TABLE push_changes; DELETE FROM si_migrations WHERE migration_id >= 7`)
      db.close()
      yield* IndexSqlite.migrateThrough(t.local, 7)
      const tables = () => {
        const d = new Database(t.local, { readonly: true })
        try {
          return (d.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'push_changes'").get() as { n: number }).n
        } finally {
          d.close()
        }
      }
      expect(tables()).toBe(0)
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 2, pushed: 2 })
      expect((yield* t.pushFrom()).sources).toMatchObject({ read: 0, pushed: 0 })
      expect(tables()).toBe(0)
      // an import migrates it: the marker (no id) then makes one full read, and the next pushes go by the journal
      fs.appendFileSync(t.file, item(6, "line 6"))
      yield* t.importInto()
      expect(tables()).toBe(1)
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 2, pushed: 1 })
      yield* t.matches()
      fs.appendFileSync(t.file, item(7, "line 7"))
      yield* t.importInto()
      expect((yield* t.pushFrom()).sources).toMatchObject({ local: 2, read: 1, pushed: 1 })
      yield* t.matches()
    }))
})
