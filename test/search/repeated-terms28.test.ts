/**
 * Repeated terms are merged before a search runs (tester28a F10): the same
 * prefix 64 times joined by OR cost 64 times the one (27 s of CPU in the MCP
 * server on 20,000 events), each copy a phrase of its own in the FTS5 MATCH
 * and the `tsquery`. A term that means what an earlier one of its AND / OR
 * does (the same words after the search's folding: case, accents,
 * punctuation) is left out, so the query each engine runs holds it once, and
 * the hits are those of the single term.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { emptySourceSummary } from "../../src/domain/model.js"
import { compileQuery, compileTsQuery, type QueryNode } from "../../src/domain/search/query.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const compiled = (q: string) => Either.getOrThrow(compileQuery(q))
const ts = (q: string) => Either.getOrThrow(compileTsQuery(q))
const terms = (n: QueryNode): number =>
  n._tag === "Term" ? 1 : n._tag === "Not" ? terms(n.child) : n.children.reduce((a, c) => a + terms(c), 0)

const repeat = (term: string, op: string, n: number) => Array.from({ length: n }, () => term).join(op)

describe("repeated terms are merged", () => {
  it("the same prefix 64 times by OR (or side by side) compiles to the one term, for FTS5 and for PostgreSQL", () => {
    for (const q of [repeat("wo*", " OR ", 64), repeat("wo*", " ", 64), repeat("wo*", " AND ", 64), `(wo* OR wo*) OR (wo* OR (wo*))`]) {
      expect(terms(compiled(q).tree), q).toBe(1)
      expect(compiled(q).match, q).toBe(compiled("wo*").match)
      expect(compiled(q).match).toBe("\"wo\" *")
      expect(ts(q).tsquery, q).toBe(ts("wo*").tsquery)
      expect(ts(q).tsquery).toBe("'wo':*")
    }
  })

  it("terms the search folds alike are one (case, accents, punctuation); different ones all stay", () => {
    expect(terms(compiled("Café cafe CAFE").tree)).toBe(1)
    expect(terms(compiled("a.b \"a b\" a_b").tree)).toBe(1)
    expect(compiled("deploy OR Deploy OR deploy* OR deployment").match).toBe("\"deploy\" OR \"deploy\" * OR \"deployment\"")
    // A prefix and the whole word are two terms; a repeated group is one; a negated repeat is one negation.
    expect(compiled("fix -bug -bug").match).toBe("\"fix\" NOT \"bug\"")
    expect(compiled("(a b) OR (a b) OR c").match).toBe("(\"a\" AND \"b\") OR \"c\"")
  })
})

const source = (key: string): SourceInfo => ({
  sourceKey: key,
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: null, workspace: "/srv/app" }
})

describe.each(engines)("repeated terms find what the single term does ($engine)", ({ newIndex }) => {
  it.effect("wo* 64 times by OR: the same hits, in the same order, as wo*", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-repeat-"))
      yield* Effect.gen(function*() {
        const index = yield* Index
        const src = source("src-r")
        const e = mk("claude-code", "sess-r")
        const texts = ["word one", "a working tree", "nothing here", "world words wordy", "swore it"]
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({
          source: src,
          generation: 1,
          events: texts.map((text, i) => e("message", { role: "user", occurredAt: `2026-03-01T10:00:0${i}.000Z`, text }))
        }, () => Effect.void)
        yield* index.completeSource(src, null)
      }).pipe(Effect.provide(indexLayer(target)))
      const found = (q: string) =>
        Effect.flatMap(Index, (i) => i.search(q, { limit: 100 })).pipe(
          Effect.map((hits) => hits.map((h) => `${h.eventId} ${h.score}`)),
          Effect.provide(indexLayer(target))
        )
      const one = yield* found("wo*")
      expect(one.map((h) => h.split(" ")[0]).sort()).toEqual(["line-1", "line-2", "line-4"])
      expect(yield* found(repeat("wo*", " OR ", 64))).toEqual(one)
      expect(yield* found(repeat("WO*", " ", 10))).toEqual(one)
    }))
})
