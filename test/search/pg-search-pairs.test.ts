/**
 * Search on PostgreSQL, its p95 (issue 17, bench figure s-latency-pg):
 * - word pairs (migration `0007_search_pairs`): the hash of each two words
 *   at adjacent positions of a document is in its `pairs` column, made by the
 *   server from its `words`; a phrase's pairs (`compileTsQuery(…).pairs`) find
 *   its documents through their own GIN index. No match is lost: a phrase and
 *   a prefix phrase find exactly what the domain's own matcher
 *   (`queryMatches`) finds in the same texts; a phrase never spans two fields;
 *   a word longer than a lexeme is cut as the query cuts it.
 * - newest documents first: a search looks among the newest documents, then
 *   more, then all; the hits (ids, scores, order) are those of one query over
 *   all documents, whatever the first window.
 * - the migration: an index at schema 6 is refused by an import (schema
 *   outdated, the remedy `index migrate`); `index migrate` adds the pairs of
 *   the documents it holds, and phrases find them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { compileTsQuery, lexemeOf, pairLexeme, parseQuery, queryMatches } from "../../src/domain/search/query.js"
import { searchableText } from "../../src/domain/search/text.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index, type SearchFilter, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"
import { writeSource } from "../support/index.js"
import { prng } from "../support/prng.js"

const source = (key: string): SourceInfo => ({
  sourceKey: key,
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: null, workspace: "/w" }
})

/** Put `events` as one complete source generation through the PostgreSQL layer. */
const load = (url: string, key: string, events: ReadonlyArray<SessionEvent>) =>
  writeSource(source(key), events).pipe(Effect.provide(IndexPostgres.layer({ url, machine: "m" })))

const search = (url: string, q: string, filter: SearchFilter = {}, searchWindow?: number) =>
  Effect.flatMap(Index, (i) => i.search(q, filter)).pipe(Effect.provide(IndexPostgres.layer({ url, searchWindow })))

describe("compileTsQuery: the pairs a match must hold", () => {
  const pairsOf = (q: string) => Either.getOrThrow(compileTsQuery(q)).pairs
  const all = (...pairs: Array<string>) => ({ _tag: "All", pairs })
  it("a phrase's adjacent words; a prefix phrase's last pair left out; words, ORs with a word and NOTs need none", () => {
    expect(pairsOf("\"no such file\"")).toEqual(all(" no such", " such file"))
    expect(pairsOf("\"Build Index now\"*")).toEqual(all(" build index"))
    expect(pairsOf("\"Build Index\"*")).toBeNull()
    expect(pairsOf("src/lib/store.rs")).toEqual(all(" src lib", " lib store", " store rs"))
    expect(pairsOf("alpha beta*")).toBeNull()
    expect(pairsOf("\"a b\" OR c")).toBeNull()
    expect(pairsOf("\"a b\" OR \"c d\"")).toEqual({ _tag: "Or", children: [all(" a b"), all(" c d")] })
    expect(pairsOf("x -\"c d\"")).toBeNull()
    expect(pairsOf("\"a b\" AND NOT \"c d\"")).toEqual(all(" a b"))
    expect(pairsOf("\"a b\" \"b c\" \"a b\"")).toEqual(all(" a b", " b c"))
    expect(pairsOf("(\"a b\" OR \"c d\") \"e f\"")).toEqual({ _tag: "And", children: [all(" e f"), { _tag: "Or", children: [all(" a b"), all(" c d")] }] })
  })
  it("a pair is its two lexemes, each after a space", () => {
    expect(pairLexeme("a", "b")).toBe(" a b")
  })
})

describe("search on PostgreSQL: word pairs", () => {
  it.effect("the server keeps the hash of each pair of a document's words: within a field, never across two; a word longer than a lexeme cut as the query cuts it", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const e = mk("claude-code", "s-pairs")
      const long = "ж".repeat(1100) // 2,200 UTF-8 bytes: past a lexeme's 2,046
      yield* load(url, "k", [
        e("tool-call", { text: "alpha beta gamma", toolName: "Bash", toolCallId: "t", toolInput: { command: `delta ${long} epsilon` } })
      ])
      const want = [pairLexeme("alpha", "beta"), pairLexeme("beta", "gamma"), pairLexeme("bash", "delta"), pairLexeme("delta", lexemeOf(long)), pairLexeme(lexemeOf(long), "epsilon")]
      const [row] = yield* Effect.promise(() =>
        pgQuery<{ same: boolean; n: number }>(
          url,
          "SELECT pairs @> ARRAY(SELECT hashtext(p) FROM unnest($1::text[]) AS p) AND cardinality(pairs) = $2 AS same, cardinality(pairs) AS n FROM search_docs WHERE event_uid IS NOT NULL",
          [want, want.length]
        )
      )
      expect(row).toEqual({ same: true, n: 5 })
      expect((yield* search(url, "\"gamma bash\"")).length).toBe(0)
      expect((yield* search(url, `"delta ${long}"`)).length).toBe(1)
      expect((yield* search(url, `"${long} epsilon"`)).length).toBe(1)
      expect((yield* search(url, `"delta ${long.slice(0, 70)}"*`)).length).toBe(1)
    }))

  it.effect("phrases, prefix phrases and their NOTs find exactly what the domain's matcher finds in the same texts (random corpus)", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const r = prng(17)
      const vocab = ["no", "such", "file", "build", "index", "the", "test", "value", "fix", "import", "ERROR", "Über", "uber", "x1"]
      const word = () => vocab[r.int(vocab.length)]
      const text = (n: number) => Array.from({ length: n }, word).join(r.int(4) === 0 ? "-" : " ")
      const e = mk("claude-code", "s-rand")
      const events = Array.from({ length: 400 }, (_, i) =>
        i % 3 === 0
          ? e("tool-call", { text: text(1 + r.int(8)), toolName: "Bash", toolCallId: `t${i}`, toolInput: { command: text(1 + r.int(5)) } })
          : e("message", { role: i % 2 === 0 ? "user" : "assistant", text: text(1 + r.int(12)) }))
      yield* load(url, "rand", events)
      const fields = events.map((ev) => {
        const t = searchableText(ev)
        return [t.text, t.input]
      })
      const queries = [
        "\"no such file\"", "\"the test\"", "\"value file\"", "\"fix import\"*", "\"build in\"*", "\"uber error\"", "\"x1 x1\"",
        "\"the index\" -\"no such\"", "\"file build\" OR \"test value\"", "(\"such file\" OR \"import fix\") the", "\"bash no\"", "\"no\"*"
      ]
      for (let k = 0; k < 20; k++) queries.push(`"${word()} ${word()}"`, `"${word()} ${word()} ${word()}"`, `"${word()} ${word().slice(0, 2)}"*`)
      for (const q of queries) {
        const tree = Either.getOrThrow(parseQuery(q))
        const want = events.filter((_, i) => queryMatches(tree, fields[i])).map((ev) => ev.sequence).sort((a, b) => a - b)
        const got = (yield* search(url, q, { limit: 1000 })).map((h) => h.sequence!).sort((a, b) => a - b)
        expect(got, q).toEqual(want)
      }
    }), 60_000)
})

describe("search on PostgreSQL: newest documents first", () => {
  it.effect("the hits, their scores and order are the same whatever the first window (1 to all documents), with filters and limits", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const r = prng(5)
      const e = mk("claude-code", "s-win")
      const rare = new Set([17, 4000, 11990])
      // 12,000 events: `common` in all of them (a round of the newest finds its 5,000 and stops), `half` in one of two,
      // `tenth` in one of ten, `"sharp knife"` adjacent in one of fifty, `needle` in three.
      const events = Array.from({ length: 12_000 }, (_, i) =>
        e("message", {
          role: i % 3 === 0 ? "user" : "assistant",
          text: [
            "common",
            i % 2 === 0 ? "half" : "",
            i % 10 === 0 ? "tenth" : "",
            i % 50 === 0 ? "sharp knife" : "knife sharp",
            rare.has(i) ? "needle" : "",
            ...Array.from({ length: 1 + r.int(6) }, () => "common")
          ].join(" ")
        }))
      yield* load(url, "win", events)
      const cases: ReadonlyArray<readonly [string, SearchFilter]> = [
        ["common", {}],
        ["common", { limit: 50 }],
        ["half", { role: "user" }],
        ["tenth", {}],
        ["\"sharp knife\"", {}],
        ["needle", {}],
        ["common -half", { limit: 30 }],
        ["half OR tenth", {}]
      ]
      for (const [q, filter] of cases) {
        const all = yield* search(url, q, filter, Number.MAX_SAFE_INTEGER)
        expect(all.length, q).toBeGreaterThan(0)
        for (const w of [1, 7, 100, 1000, 6000]) {
          const got = yield* search(url, q, filter, w)
          expect(got.map((h) => [h.sequence, h.score]), `${q} window ${w}`).toEqual(all.map((h) => [h.sequence, h.score]))
        }
      }
      // The newest 5,000 matches are ranked: `common` in all 12,000 gives hits among the last 5,000 events only.
      const hits = yield* search(url, "common", { limit: 5000 }, 100)
      expect(hits.length).toBe(5000)
      expect(Math.min(...hits.map((h) => h.sequence!))).toBe(events[12_000 - 5000].sequence)
    }), 120_000)
})

describe("search on PostgreSQL: migration 0007 (word pairs)", () => {
  it.effect("an index at schema 6 is refused (schema outdated, remedy `index migrate`); the migration adds the pairs of the documents it holds", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const e = mk("claude-code", "s-mig")
      yield* load(url, "mig", [e("message", { text: "the quick brown fox" }), e("message", { text: "brown quick" })])
      // as schema 6 left it: no pairs, no function, migration 7 not recorded
      yield* Effect.promise(() =>
        pgQuery(url, "ALTER TABLE search_docs DROP COLUMN pairs; DROP FUNCTION si_word_pairs(tsvector); DELETE FROM si_migrations WHERE migration_id >= 7")
      )
      const refused = yield* Effect.either(search(url, "\"quick brown\""))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({
        code: "STORE_UNAVAILABLE",
        details: { reason: "schema-outdated", have: 6, want: IndexPostgres.SCHEMA_VERSION }
      })
      expect(Either.isLeft(refused) && refused.left.remediation).toContain("index migrate")
      const migrated = yield* IndexPostgres.migrate(url)
      expect(migrated.applied.map(([, name]) => name)).toEqual(["search_pairs", "search_facets", "usage_cache_write_1h", "meta", "search_marks", "search_syllables", "usage_speed"])
      expect(migrated.version).toBe(IndexPostgres.SCHEMA_VERSION)
      const hits = yield* search(url, "\"quick brown\"")
      expect(hits.map((h) => h.sequence)).toEqual([1])
      const [{ n }] = yield* Effect.promise(() => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM search_docs WHERE pairs @> ARRAY[hashtext($1)]", [" quick brown"]))
      expect(n).toBe(1)
    }))
})
