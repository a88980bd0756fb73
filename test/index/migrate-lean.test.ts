/**
 * Migration 0006 (the lean record) writes the very tables the plain
 * algorithm would: one statement per row, ids as SQLite gives them, search
 * words made afterwards from the stored records of each searched generation
 * (`indexGeneration`: every source not rejected), then the titles. The
 * migration makes them in one pass, in batches, with the ids computed
 * beforehand (bench figure m); this test holds it to the plain algorithm,
 * written here on the driver, row by row: `shapes`, `streams`, `records`
 * equal row for row, and the search index equal word for word (FTS5's
 * `fts5vocab` instances: term, row, column, offset), on an index with every
 * provider, several generations of a source, a rejected source and a
 * session title without events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { upgradeEvent } from "../../src/domain/contract-upgrade.js"
import type { SessionEvent } from "../../src/domain/model.js"
import { ftsText, searchableText } from "../../src/domain/search/text.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { eventOfRow, INDEX_LEAN, leanEvent, shapePlan } from "../../src/layers/index/rows.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { uidBytes } from "../../src/layers/index/sqlite-writer.js"
import { copyFixtures as copyClaude } from "../claude-code/helpers.js"
import { importOnce } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { fixturesDir, tempDir } from "../support/paths.js"

const NEW_TABLES = ["shapes", "streams", "records", "search"]

/**
 * The plain migration of the legacy index `legacy` into the new file `out`
 * (tables as `ddl` makes them): what 0006 must come to.
 */
const plainMigration = (legacy: string, out: string, ddl: ReadonlyArray<string>) => {
  const db = new Database(out)
  for (const d of ddl) db.exec(d)
  db.prepare("ATTACH DATABASE ? AS old").run(legacy)
  const stream = db.prepare("INSERT OR IGNORE INTO streams (source_key, generation, session_uid, provider, source_id, session_id) VALUES (?, ?, ?, ?, ?, ?)")
  const streamOf = db.prepare("SELECT stream FROM streams WHERE source_key = ? AND generation = ? AND session_uid = ?")
  const shape = db.prepare("INSERT OR IGNORE INTO shapes (def) VALUES (?)")
  const shapeOf = db.prepare("SELECT shape FROM shapes WHERE def = ?")
  const defOf = db.prepare("SELECT def FROM shapes WHERE shape = ?")
  const record = db.prepare("INSERT OR IGNORE INTO records (stream, uid, sequence, kind, role, occurred_at, attempt, shape, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
  db.transaction(() => {
    for (const r of db.prepare("SELECT * FROM old.events ORDER BY rowid").all() as Array<Record<string, any>>) {
      const e = upgradeEvent(JSON.parse(r.event_json) as SessionEvent)
      stream.run(r.source_key, r.generation, r.session_uid, e.provider, e.sourceId, e.sessionId)
      const st = (streamOf.get(r.source_key, r.generation, r.session_uid) as { stream: number }).stream
      const lean = leanEvent(e, INDEX_LEAN)
      let sh: number | null = null
      if (lean !== null) {
        shape.run(lean.shape)
        sh = (shapeOf.get(lean.shape) as { shape: number }).shape
      }
      record.run(st, uidBytes(r.event_uid), e.sequence, e.kind, e.role, e.occurredAt, r.attempt, sh, lean === null ? JSON.stringify(e) : lean.body)
    }
    db.exec(`INSERT OR IGNORE INTO streams (source_key, generation, session_uid, provider, source_id, session_id)
             SELECT source_key, generation, session_uid, provider, source_id, session_id FROM old.sessions`)
    const words = db.prepare("INSERT INTO search (rowid, text, input) VALUES (?, ?, ?)")
    const plans = new Map<number, ReturnType<typeof shapePlan>>()
    for (const c of db.prepare("SELECT source_key, generation FROM old.sources WHERE status != 'rejected'").all() as Array<Record<string, any>>) {
      const stored = db.prepare(`SELECT r.*, st.provider, st.source_id, st.session_id FROM records r JOIN streams st ON st.stream = r.stream
        WHERE st.source_key = ? AND st.generation = ? ORDER BY r.id`).all(c.source_key, c.generation) as Array<Record<string, any>>
      for (const r of stored) {
        if (r.shape !== null && !plans.has(r.shape)) plans.set(r.shape, shapePlan((defOf.get(r.shape) as { def: string }).def))
        const e = eventOfRow(r.shape === null ? null : plans.get(r.shape)!, r.body, { provider: r.provider, sourceId: r.source_id, sessionId: r.session_id }, {
          sequence: r.sequence,
          kind: r.kind,
          occurredAt: r.occurred_at
        })
        const t = searchableText(e)
        words.run(r.id, ftsText(t.text), ftsText(t.input))
      }
      for (const t of db.prepare(`SELECT st.stream, ss.title FROM old.sessions ss
          JOIN streams st ON st.source_key = ss.source_key AND st.generation = ss.generation AND st.session_uid = ss.session_uid
        WHERE ss.source_key = ? AND ss.generation = ? AND ss.title IS NOT NULL`).all(c.source_key, c.generation) as Array<Record<string, any>>) {
        words.run(-t.stream, ftsText(t.title), "")
      }
    }
  })()
  db.close()
}

/** Every row of the new tables, and every word instance of the search index, in a fixed order. */
const contents = (file: string) => {
  const db = new Database(file)
  db.exec("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, 'search', 'instance')")
  const out = {
    shapes: db.prepare("SELECT * FROM shapes ORDER BY shape").all(),
    streams: db.prepare("SELECT * FROM streams ORDER BY stream").all(),
    records: db.prepare("SELECT * FROM records ORDER BY id").all(),
    words: db.prepare("SELECT term, doc, col, offset FROM temp.words ORDER BY doc, col, offset, term").all()
  }
  db.close()
  return out
}

describe("migration 0006 (lean records)", () => {
  it.effect("writes the tables the plain row-by-row algorithm writes: shapes, streams, records, search words", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      for (const f of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(fixturesDir, "muse-code/export", f), path.join(ws, f))
      // Not JSON: a rejected source (it stays in `sources`, status rejected).
      fs.writeFileSync(path.join(ws, "broken.json"), "{ not json")
      const agentsRoot = path.join(dir, "agents")
      fs.cpSync(path.join(fixturesDir, "muse-agents/agents"), agentsRoot, { recursive: true })
      const policy = {
        workspaceRoots: [ws, "/workspace/demo"],
        museRoots: [path.join(fixturesDir, "muse-code/native")],
        agentsRoot,
        agentmuxStore: path.join(fixturesDir, "agentmux/filestore.db"),
        stateFile: path.join(dir, "state.db"),
        claudeRoot: copyClaude()
      }
      const index = path.join(dir, "index.db")
      const plan = planFromPolicy(policy, {
        agents: ["u1"],
        exports: ["orderly.json", "abnormal.json", "broken.json"].map((f) => path.join(ws, f)),
        batchSize: 5
      })
      yield* importOnce(policy, index, plan)
      // A second generation of a transcript (its first line rewritten): the first stays, not searched.
      const quiet = path.join(agentsRoot, "cron-first", "sessions", "cron-first.jsonl")
      fs.writeFileSync(quiet, fs.readFileSync(quiet, "utf8").replace("2025-03-01T08:00:00Z", "2025-03-01T08:00:09Z"))
      yield* importOnce(policy, index, plan)
      yield* toLegacyLayout(index)
      // A title whose session keeps no event (a rollback removed them): it takes a stream after the others.
      const legacy = new Database(index)
      legacy.exec(`INSERT INTO sessions (session_uid, generation, source_key, provider, session_id, source_id, first_at, last_at, event_count, title)
        SELECT 'ses_no_events', generation, source_key, provider, 'no-events', source_id, NULL, NULL, 0, 'A title without events'
        FROM sessions WHERE provider = 'muse-agents' LIMIT 1`)
      // Titles in another script: their words are folded as every search document's (`ftsText`), not given as written.
      legacy.exec("UPDATE sessions SET title = title || ' Καλημέρα σίσυφος' WHERE title IS NOT NULL")
      const counts = legacy.prepare(`SELECT
          (SELECT count(*) FROM events) AS events,
          (SELECT count(*) FROM events e JOIN sources s ON s.source_key = e.source_key AND s.generation = e.generation AND s.status != 'rejected') AS searched,
          (SELECT count(*) FROM sources WHERE status = 'rejected') AS rejected`).get() as { events: number; searched: number; rejected: number }
      legacy.close()
      // The index holds what the test is about: events of a generation that is not searched, and a rejected source.
      expect(counts.events).toBeGreaterThan(counts.searched)
      expect(counts.searched).toBeGreaterThan(100)
      expect(counts.rejected).toBeGreaterThan(0)
      const plain = path.join(dir, "plain.db")
      const pristine = path.join(dir, "legacy.db")
      fs.copyFileSync(index, pristine)
      yield* IndexSqlite.migrateThrough(index, 99)
      const migrated = new Database(index, { readonly: true })
      const ddl = NEW_TABLES.flatMap((t) =>
        (migrated.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type = 'index'").all(t) as Array<{ sql: string }>)
          .map((r) => r.sql)
      )
      migrated.close()
      plainMigration(pristine, plain, ddl)
      const got = contents(index)
      const want = contents(plain)
      expect(got.records.length).toBe(counts.events)
      expect(got.shapes).toEqual(want.shapes)
      expect(got.streams).toEqual(want.streams)
      expect(got.records).toEqual(want.records)
      expect(got.words.length).toBeGreaterThan(1000)
      expect(got.words).toEqual(want.words)
    }), 120_000)
})
