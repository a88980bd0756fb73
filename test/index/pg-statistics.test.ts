/**
 * A run that writes many events into a PostgreSQL index refreshes the
 * planner's statistics (`refreshStatistics`, src/layers/index/postgres.ts):
 * a fresh team index queried right after its first import had none until
 * autovacuum got to its tables, and `usage` on 36 sessions took 60-110 s
 * (tester22a F4). Checked with autovacuum off on the tables (a busy server's
 * state until it gets to them): after an import, and after a push, every table
 * of the index has been analyzed (`pg_stat_user_tables.last_analyze`, which
 * only a manual ANALYZE sets) and `events` has a row count; a run that wrote
 * nothing analyzes nothing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { writeNativeRoot } from "../../bench/generate/native.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"

const TABLES = ["events", "generations", "search_docs", "sessions", "sources", "usage"]

/** 30 native Muse Code sessions (as the benchmark writes them). */
const corpus = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const museRoot = path.join(dir, "muse")
  writeNativeRoot(museRoot, 30, ws, 40)
  const policy = { workspaceRoots: [ws], museRoots: [museRoot] }
  return { dir, policy, plan: planFromPolicy(policy, {}) }
}

/** A migrated database whose tables autovacuum leaves alone. */
const quietDatabase = Effect.gen(function*() {
  const url = yield* migratedDatabase
  for (const t of TABLES) yield* Effect.promise(() => pgQuery(url, `ALTER TABLE ${t} SET (autovacuum_enabled = false)`))
  return url
})

const analyzed = (url: string) =>
  Effect.promise(() =>
    pgQuery<{ relname: string; last_analyze: Date | null }>(url, `SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname = ANY($1) ORDER BY relname`, [TABLES])
  )

const counted = (url: string) =>
  Effect.promise(() => pgQuery<{ n: number }>(url, `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'events'::regclass`)).pipe(Effect.map((r) => r[0].n))

describe("team index (PostgreSQL): the planner's statistics after a run that wrote many events", () => {
  it.effect("an import: every table analyzed, events counted; an import that wrote nothing analyzes nothing", () =>
    Effect.gen(function*() {
      const c = corpus()
      const url = yield* quietDatabase
      // (the migrations analyze search_docs once, when its new columns are made)
      const before = yield* analyzed(url)
      const first = yield* importOnce(c.policy, url, c.plan)
      expect(first.eventsAdded).toBeGreaterThan(200)
      const after = yield* analyzed(url)
      expect(after.map((r) => r.relname)).toEqual(TABLES)
      after.forEach((r, i) => {
        expect(r.last_analyze, r.relname).not.toBeNull()
        expect(r.last_analyze!.getTime(), r.relname).toBeGreaterThan(before[i].last_analyze?.getTime() ?? 0)
      })
      expect(yield* counted(url)).toBe(first.eventsAdded)
      const again = yield* importOnce(c.policy, url, c.plan)
      expect(again.eventsAdded).toBe(0)
      expect(yield* analyzed(url)).toEqual(after)
    }), 60_000)

  it.effect("a push into a new team index: every table analyzed", () =>
    Effect.gen(function*() {
      const c = corpus()
      const local = path.join(c.dir, "index.db")
      const first = yield* importOnce(c.policy, local, c.plan)
      const url = yield* quietDatabase
      const before = yield* analyzed(url)
      const report = yield* push(local, url, "m1")
      expect(report.eventsAdded).toBe(first.eventsAdded)
      ;(yield* analyzed(url)).forEach((r, i) => {
        expect(r.last_analyze, r.relname).not.toBeNull()
        expect(r.last_analyze!.getTime(), r.relname).toBeGreaterThan(before[i].last_analyze?.getTime() ?? 0)
      })
      expect(yield* counted(url)).toBe(first.eventsAdded)
    }), 60_000)
})
