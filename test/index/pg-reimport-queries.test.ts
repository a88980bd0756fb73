/**
 * Issue 17, "Bulk loading": on PostgreSQL, unchanged sources cost one query
 * for all of them, not one per source. Counted at the driver: every
 * `pg.Client#query` the import makes (connection set-up, schema check,
 * checkpoints, and whatever else), for a re-import of N unchanged sources,
 * is the same number for every N. And a first import of small sources
 * costs a bounded number of round trips a source (15: was 22-23 before its
 * statements were merged), whatever their events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import pg from "pg"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { writeNativeRoot } from "../../bench/generate/native.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { migratedDatabase } from "../support/pg.js"

/** `n` native Muse Code sessions (as the benchmark writes them, bound to one workspace) and `n` Muse agents (one transcript each). */
const corpus = (n: number) => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const museRoot = path.join(dir, "muse")
  writeNativeRoot(museRoot, n, ws, 3 + n)
  const agents = path.join(dir, "agents")
  for (let i = 0; i < n; i++) {
    const sessions = path.join(agents, `a${i}`, "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    fs.writeFileSync(
      path.join(sessions, `a${i}.jsonl`),
      JSON.stringify({ type: "session_header", session_id: `s-${i}`, agent_id: `a${i}`, created_at: "2025-04-01T10:00:00Z" }) + "\n" +
        JSON.stringify({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: `hello ${i}` }, created_at: "2025-04-01T10:00:01Z" }) + "\n"
    )
  }
  const policy = { workspaceRoots: [ws, agents], museRoots: [museRoot], agentsRoot: agents }
  return { policy, plan: planFromPolicy(policy, { batchSize: 50 }) }
}

/** The queries sent to the server while `effect` runs (every `pg.Client#query`, pooled clients included). */
const countingQueries = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const original = pg.Client.prototype.query
      const seen: Array<string> = []
      pg.Client.prototype.query = function(this: unknown, ...args: Array<unknown>) {
        const q = args[0] as string | { text?: string }
        seen.push(typeof q === "string" ? q : String(q?.text ?? q))
        return (original as (...a: Array<unknown>) => unknown).apply(this, args)
      } as typeof original
      return { original, seen }
    }),
    ({ seen }) => Effect.map(effect, (result) => ({ result, queries: [...seen] })),
    ({ original }) => Effect.sync(() => { pg.Client.prototype.query = original })
  )

describe("team index (PostgreSQL): re-import of unchanged sources", () => {
  it.effect("costs the same number of queries for 3 sources as for 40: one for all the checkpoints, none per source", () =>
    Effect.gen(function*() {
      const counts: Array<number> = []
      for (const n of [3, 40]) {
        const c = corpus(n)
        const url = yield* migratedDatabase
        const first = yield* importOnce(c.policy, url, c.plan)
        expect(first.sources.accepted).toBe(2 * n)
        const { queries, result } = yield* countingQueries(importOnce(c.policy, url, c.plan))
        expect(result.sources.unchanged).toBe(2 * n)
        expect(result.sources.accepted).toBe(0)
        expect(result.coverage).toBe("complete")
        counts.push(queries.length)
        // not one query naming a source (key or path) of the run
        expect(queries.filter((q) => /WHERE\s+source_key\s*=/i.test(q))).toEqual([])
      }
      expect(counts[1]).toBe(counts[0])
    }), 60_000)
})

describe("team index (PostgreSQL): first import of small sources", () => {
  it.effect("costs at most 15 round trips a source (transactions' BEGIN and COMMIT included), however many events it has", () =>
    Effect.gen(function*() {
      const counts: Array<number> = []
      for (const n of [3, 23]) {
        const c = corpus(n)
        const url = yield* migratedDatabase
        const { queries, result } = yield* countingQueries(importOnce(c.policy, url, c.plan))
        expect(result.sources.accepted).toBe(2 * n)
        counts.push(queries.length)
      }
      // 40 more sources (20 native logs of 10-40 events, 20 Muse agents transcripts): the queries they added, each.
      const perSource = (counts[1] - counts[0]) / 40
      expect(perSource).toBeGreaterThan(0)
      expect(perSource).toBeLessThanOrEqual(15)
    }), 60_000)
})
