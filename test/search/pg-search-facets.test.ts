/**
 * Search on PostgreSQL with filters, its p95 (issue 13, bench figure
 * s-latency-pg): a search's provider, kind and role are in the words' GIN
 * index (migration `0008_search_facets`, {@link IndexPostgres.SEARCH_FACETS}),
 * so a filtered search reads only the rows of its filter that hold its words.
 * - a filtered boolean query whose matching rows are rare among many
 *   documents holding its words answers the newest-first page (the newest
 *   matches of the filter, all of equal rank), the same whatever the first
 *   window of the newest-first rounds;
 * - the index answers the facets (an index condition, not a row filter);
 * - the migration: an index at schema 7 is refused (schema outdated, remedy
 *   `index migrate`); `index migrate` replaces the words' index by the one on
 *   words and facets, and filtered searches find the same.
 */
import { describe, expect, it } from "@effect/vitest"
import pg from "pg"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { emptySourceSummary, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index, type SearchFilter, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { writeSource } from "../support/index.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"

const source = (key: string, provider: ProviderId): SourceInfo => ({
  sourceKey: key,
  provider,
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: null, workspace: "/w" }
})

/** Put `events` as one complete source generation through the PostgreSQL layer. */
const load = (url: string, src: SourceInfo, events: ReadonlyArray<SessionEvent>) =>
  writeSource(src, events).pipe(Effect.provide(IndexPostgres.layer({ url, machine: "m" })))

const search = (url: string, q: string, filter: SearchFilter = {}, searchWindow?: number) =>
  Effect.flatMap(Index, (i) => i.search(q, filter)).pipe(Effect.provide(IndexPostgres.layer({ url, searchWindow })))

/**
 * 6,000 events of a Claude Code session, then 6,000 of a Muse agents one, each
 * holding `alpha` or `beta` (most both, every seventh `gamma` too). A tool
 * result of the user is rare (every 97th event), and every one of them holds
 * the same words: they rank the same, so the newest come first.
 */
const corpus = (provider: ProviderId, session: string) => {
  const e = mk(provider, session)
  return Array.from({ length: 6000 }, (_, i) =>
    i % 97 === 5
      ? e("tool-result", { role: "user", toolCallId: `t${i}`, text: i % 7 === 0 ? "alpha beta gamma" : "alpha beta delta" })
      : e(i % 2 === 0 ? "message" : "thinking", {
        role: i % 3 === 0 ? "user" : "assistant",
        text: [i % 5 === 0 ? "beta" : "alpha beta", i % 7 === 0 ? "gamma" : "", "delta epsilon"].join(" ")
      }))
}

describe("search on PostgreSQL: filters in the words' index", () => {
  it.effect("a filtered boolean query whose matches are rare answers the newest matches of its filter first, whatever the first window", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const claude = corpus("claude-code", "s-claude")
      const agents = corpus("muse-agents", "s-agents")
      yield* load(url, source("claude", "claude-code"), claude)
      yield* load(url, source("agents", "muse-agents"), agents)
      // The matches worked out from the corpus: Claude Code's tool results of the user holding alpha or beta and no gamma.
      const want = claude.filter((ev) => ev.kind === "tool-result" && ev.role === "user" && !ev.text!.includes("gamma"))
        .map((ev) => ev.sequence)
      expect(want.length).toBeGreaterThan(40)
      const newest = [...want].reverse()
      const filter: SearchFilter = { provider: "claude-code", kind: "tool-result", role: "user" }
      for (const q of ["(alpha OR beta) -gamma", "alpha AND beta AND NOT gamma"]) {
        for (const w of [1, 100, 1000, 5000, Number.MAX_SAFE_INTEGER]) {
          const page = yield* search(url, q, filter, w)
          expect(page.map((h) => [h.provider, h.kind, h.role, h.sequence]), `${q} window ${w}`)
            .toEqual(newest.slice(0, 20).map((s) => ["claude-code", "tool-result", "user", s]))
          const all = yield* search(url, q, { ...filter, limit: 1000 }, w)
          expect(all.map((h) => h.sequence), `${q} window ${w}, all`).toEqual(newest)
        }
      }
      // Each filter alone, and the kind's and role's facets: the same matches as the filter's columns say.
      const kindOnly = [...claude, ...agents].filter((ev) => ev.kind === "tool-result" && !ev.text!.includes("gamma"))
      expect((yield* search(url, "(alpha OR beta) -gamma", { kind: "tool-result", limit: 1000 })).length).toBe(kindOnly.length)
      const roleUserAgents = agents.filter((ev) => ev.role === "user" && !ev.text!.includes("gamma"))
      expect((yield* search(url, "(alpha OR beta) -gamma", { provider: "muse-agents", role: "user", limit: 5000 })).length)
        .toBe(roleUserAgents.length)
      expect(yield* search(url, "(alpha OR beta) -gamma", { provider: "muse-code" })).toEqual([])
    }), 120_000)

  it.effect("the words' GIN index answers a search's facets (an index condition, not a filter of the rows read)", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      // Sequential scans off: a few rows would be read whole otherwise; the question is what the index can answer.
      const plan = yield* Effect.promise(async () => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        try {
          await client.query("SET enable_seqscan = off")
          const r = await client.query(
            `EXPLAIN (FORMAT JSON) SELECT doc FROM search_docs WHERE words @@ 'alpha'::tsquery AND ${IndexPostgres.SEARCH_FACETS} @> ARRAY['pclaude-code', 'ktool-result', 'ruser']`
          )
          return r.rows[0] as { "QUERY PLAN": unknown }
        } finally {
          await client.end()
        }
      })
      const text = JSON.stringify(plan["QUERY PLAN"])
      expect(text).toContain("search_docs_words_facets")
      expect(text).toMatch(/"Index Cond":"[^"]*'alpha'[^"]*pclaude-code/)
    }))

  it.effect("an index at schema 7 is refused (schema outdated, remedy `index migrate`); the migration puts the facets in the words' index", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const e = mk("claude-code", "s-mig")
      yield* load(url, source("mig", "claude-code"), [
        e("message", { role: "user", text: "alpha beta" }),
        e("tool-result", { role: "user", toolCallId: "t", text: "alpha" }),
        e("message", { role: "assistant", text: "alpha" })
      ])
      // as schema 7 left it: the words' index alone, migration 8 not recorded
      yield* Effect.promise(() =>
        pgQuery(
          url,
          "DROP INDEX search_docs_words_facets; CREATE INDEX search_docs_words ON search_docs USING GIN (words); DELETE FROM si_migrations WHERE migration_id >= 8"
        )
      )
      const refused = yield* Effect.either(search(url, "alpha", { role: "user" }))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({
        code: "STORE_UNAVAILABLE",
        details: { reason: "schema-outdated", have: 7, want: IndexPostgres.SCHEMA_VERSION }
      })
      expect(Either.isLeft(refused) && refused.left.remediation).toContain("index migrate")
      const migrated = yield* IndexPostgres.migrate(url)
      expect(migrated.applied.map(([, name]) => name)).toEqual(["search_facets", "usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      expect(migrated.version).toBe(IndexPostgres.SCHEMA_VERSION)
      const indexes = yield* Effect.promise(() =>
        pgQuery<{ indexname: string }>(url, "SELECT indexname FROM pg_indexes WHERE tablename = 'search_docs' AND indexdef LIKE '%gin%' ORDER BY 1")
      )
      expect(indexes.map((r) => r.indexname)).toEqual(["search_docs_pairs", "search_docs_words_facets"])
      expect((yield* search(url, "alpha", { role: "user" })).map((h) => h.sequence).sort()).toEqual([1, 2])
      expect((yield* search(url, "alpha", { kind: "tool-result" })).map((h) => h.sequence)).toEqual([2])
    }))
})
