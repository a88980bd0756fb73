/**
 * A session's events read in order on SQLite (`eventsStream`, `eventsAround`'s
 * neighbours) are each one range of `records_in_order` for a stream the query
 * names, with no temporary B-tree to sort the session's rows (session 30,
 * fix30a: asked by the session uid alone, SQLite read every later row of the
 * session into a temporary B-tree for each page, since a session may have
 * several streams). The statements checked are the ones the layer prepares
 * (better-sqlite3's `prepare`, recorded), explained by SQLite itself on the
 * index they ran on, which holds a superseded generation of the session; the
 * events are those of the current generation, in order.
 */
import Database from "better-sqlite3"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { sessionUid } from "../../src/domain/index/ids.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { eventsOf, importGeneration } from "../support/plan-corpus.js"
import { tempDir } from "../support/paths.js"

const BIG = 3000


const prepare = Database.prototype.prepare
afterEach(() => {
  Database.prototype.prepare = prepare
})

describe("a session's events in order on SQLite (fix30a)", () => {
  it.effect("eventsStream and eventsAround walk records_in_order for the shown stream: no temporary B-tree over the session", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir("si-plan30-"), "index.db")
      const layer = IndexSqlite.layer(file)
      const current = eventsOf(0, BIG, 2)
      yield* Effect.gen(function*() {
        for (let n = 1; n <= 10; n++) yield* importGeneration(n, 1, eventsOf(n, 100, 1))
        yield* importGeneration(0, 1, eventsOf(0, BIG, 1))
        yield* importGeneration(0, 2, current)
      }).pipe(Effect.provide(layer))
      const uid = sessionUid("muse-agents", "sha256:plan30-0", "plan30-0")

      // Every statement the layer prepares while it reads.
      const prepared: Array<string> = []
      Database.prototype.prepare = function(this: Database.Database, source: string) {
        prepared.push(source)
        return prepare.call(this, source)
      } as typeof prepare
      const { around, from, read } = yield* Effect.gen(function*() {
        const index = yield* Index
        const read = Chunk.toArray(yield* Stream.runCollect(index.eventsStream(uid, 500)))
        const around = yield* index.eventsAround(uid, "line-1500", 3, 2)
        // session 31 (tester30c F5): from a sequence on, as MCP get_events resumes at its cursor's event
        const from = Chunk.toArray(yield* Stream.runCollect(index.eventsStream(uid, 7, { sequence: current[1500].sequence })))
        return { read, around, from }
      }).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      Database.prototype.prepare = prepare

      expect(read.map((e) => e.text)).toEqual(current.map((e) => e.text))
      expect(from.map((e) => e.text)).toEqual(current.slice(1500).map((e) => e.text))
      const a = Option.getOrThrow(around)
      expect(a.at).toBe(3)
      expect(a.events.map((e) => e.text)).toEqual(["g2 event 1496", "g2 event 1497", "g2 event 1498", "g2 event 1499", "g2 event 1500", "g2 event 1501"])

      const ordered = [...new Set(prepared.filter((q) => q.includes("ORDER BY e.sequence")))]
      // The stream's first page, its next pages, and the neighbours both ways.
      expect(ordered.length).toBeGreaterThanOrEqual(3)
      const db = new Database(file, { readonly: true })
      try {
        for (const q of ordered) {
          const params = Array.from({ length: (q.match(/\?/g) ?? []).length }, () => null)
          const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail)
          expect(plan.some((d) => /SEARCH r USING INDEX records_in_order \(stream=\?/.test(d)), `${q}\n${plan.join("\n")}`).toBe(true)
          expect(plan.filter((d) => /TEMP B-TREE|^SCAN r\b/.test(d)), `${q}\n${plan.join("\n")}`).toEqual([])
        }
      } finally {
        db.close()
      }
    }), 120_000)
})
