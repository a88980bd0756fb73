/**
 * Search keeps the marks that are letters of a word (session 30, tester30b F5). docs/search.md "Case and accents,
 * script by script": "letters that are not an accented form of another are never folded". A Devanagari vowel sign
 * (U+0941 in `\u0915\u0941\u0932`, "total"), a Thai tone mark (mai ek U+0E48 in `\u0e44\u0e21\u0e48`, "not") is
 * such a letter: without it the word is another word (`\u0915\u0932`, "tomorrow"; `\u0e44\u0e21\u0e49`, "wood").
 * Session 29's fold removed every nonspacing mark, so each found the other, on both engines; and it split a word at
 * a spacing mark (Devanagari `\u093e`, Tamil's vowel signs). Accents still fold (Greek tonos, Latin acute, kana
 * voicing, as the doc says).
 *
 * The fixture index (fixtures/index-base30, made by session 29's build at migration 0012) is read without migrating
 * (its words as that build folded them, with a note) and migrated (0013), on SQLite; a PostgreSQL index's
 * documents are made again by its migration 0011.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { foldWord, searchWords } from "../../src/domain/search/query.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { importClaude } from "../support/claude-import.js"
import { indexLayer } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { searchHits } from "../support/search-hits.js"
import { engines, pgQuery } from "../support/pg.js"
import { cli } from "../support/run.js"

const PROJECTS = path.join(fixturesDir, "index-base30", "projects")
// The session's events (fixtures/index-base30/projects), as hits show them, and its title (the first prompt).
const E1 = "text:\u0939\u093f\u0928\u094d\u0926\u0940: \u0915\u0941\u0932 \u0935\u094d\u092f\u092f \u092a\u093e\u0920"
const E2 = "text:\u0915\u0932 \u0906\u090f\u0917\u093e \u0914\u0930 \u092a\u0920"
const E3 = "text:\u0e44\u0e21\u0e48 \u0e1b\u0e48\u0e32 \u0e44\u0e17\u0e22"
const E4 = "text:\u0e44\u0e21\u0e49 \u0e1b\u0e49\u0e32"
const E5 = "text:\u0baa\u0bbe\u0b9f\u0bae\u0bcd \u03ba\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 caf\u00e9"
const E6 = "text:\u0baa\u0b9f\u0bae\u0bcd \u30c7\u30fc\u30bf"
const TITLE = "title:\u0939\u093f\u0928\u094d\u0926\u0940: \u0915\u0941\u0932 \u0935\u094d\u092f\u092f \u092a\u093e\u0920"

/** The queries, and the hits the rule gives them. */
const EXPECTED: Record<string, ReadonlyArray<string>> = {
  "\u0915\u0941\u0932": [E1, TITLE], // kul: not kal
  "\u0915\u0932": [E2], // kal: not kul
  "\u092a\u093e\u0920": [E1, TITLE], // paath (a spacing vowel sign inside): not path
  "\u092a\u0920": [E2],
  "\u0e44\u0e21\u0e48": [E3], // mai ek: not mai tho
  "\u0e44\u0e21\u0e49": [E4],
  "\u0e1b\u0e48\u0e32": [E3], // forest: not aunt
  "\u0baa\u0bbe\u0b9f\u0bae\u0bcd": [E5], // Tamil paadam: not padam
  "\u0baa\u0b9f\u0bae\u0bcd": [E6],
  "\u03ba\u03b1\u03bb\u03b7\u03bc\u03b5\u03c1\u03b1": [E5], // accents still fold
  cafe: [E5],
  "\u30c6\u30fc\u30bf": [E6] // kana voicing still folds (the doc's rule)
}

const hits = searchHits

const sorted = (r: Record<string, ReadonlyArray<string>>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [...v].sort()]))

/** Session 29's index, copied out of its fixture. */
const baseIndex = (): string => {
  const file = path.join(tempDir("si-marks-"), "index.db")
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(fixturesDir, "index-base30", "index.db.gz"))))
  return file
}

describe("the fold keeps the marks that are letters (tester30b F5)", () => {
  it("vowel signs, viramas and tone marks stay; accents, harakat, Hebrew points and kana voicing go", () => {
    expect(foldWord("\u0915\u0941\u0932")).toBe("\u0915\u0941\u0932")
    expect(foldWord("\u0e44\u0e21\u0e48")).not.toBe(foldWord("\u0e44\u0e21\u0e49"))
    expect(foldWord("Caf\u00e9")).toBe("cafe")
    expect(foldWord("\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2")).toBe("\u03c3\u03b9\u03c3\u03c5\u03c6\u03bf\u03c2")
    expect(foldWord("\u0643\u064f\u062a\u064f\u0628")).toBe("\u0643\u062a\u0628")
    expect(foldWord("\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd")).toBe("\u05e9\u05dc\u05d5\u05dd")
    expect(foldWord("\u30c7")).toBe("\u30c6")
    // a Devanagari letter with a nukta, precomposed or not, is one word either way
    expect(foldWord("\u0958")).toBe(foldWord("\u0915\u093c"))
  })

  it("a spacing mark is inside a word, not between two", () => {
    expect(searchWords("\u092a\u093e\u0920 \u0baa\u0bbe\u0b9f\u0bae\u0bcd").map((w) => w.w)).toEqual(["\u092a\u093e\u0920", "\u0baa\u0bbe\u0b9f\u0bae\u0bcd"])
  })
})

describe("an index of session 29's build (migration 0012, every nonspacing mark removed)", () => {
  it.effect("read without migrating: the query's words folded as that build folded them, and a note with the remedy", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* hits(["\u0915\u0941\u0932", "\u0e44\u0e21\u0e48", "cafe"]).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      // as session 29 answered: kul finds kal too, mai ek finds mai tho
      expect(sorted(got)).toEqual(sorted({ "\u0915\u0941\u0932": [E1, E2, TITLE], "\u0e44\u0e21\u0e48": [E3, E4], cafe: [E5] }))
      const fold = yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(fold).toBe("all-marks")
      const r = cli(["search", "\u0915\u0941\u0932", "--index", file])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain("note: this index's search words do not keep vowel signs and tone marks yet")
      expect(r.stderr).toContain("session-ingest import")
    }))

  it.effect("migrated (0013): every query finds what the rule says, from the stored events, no note", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* hits(Object.keys(EXPECTED)).pipe(Effect.provide(IndexSqlite.layer(file)))
      expect(sorted(got)).toEqual(sorted(EXPECTED))
      const fold = yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(fold).toBe("current")
      const r = cli(["search", "\u0915\u0941\u0932", "--index", file])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toContain("vowel signs")
    }))
})

describe.each(engines)("a new index ($engine): the same hits", ({ engine, newIndex }) => {
  it.effect("every query finds what the rule says", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-marks-new-")
      const target = yield* newIndex(dir)
      importClaude(target, PROJECTS, path.join(dir, "agents"), { HOME: dir })
      const got = yield* hits(Object.keys(EXPECTED)).pipe(Effect.provide(indexLayer(target)))
      expect(sorted(got)).toEqual(sorted(EXPECTED))
      if (engine === "postgres") {
        // Migration 0011 makes the words of such documents again: stale words (here none) are replaced.
        yield* Effect.promise(() =>
          pgQuery(target, "UPDATE search_docs SET words = ''::tsvector; DELETE FROM si_migrations WHERE migration_id >= 11")
        )
        const r = cli(["index", "migrate", "--index", target])
        expect(r.code, r.stderr).toBe(0)
        const again = yield* hits(Object.keys(EXPECTED)).pipe(Effect.provide(indexLayer(target)))
        expect(sorted(again)).toEqual(sorted(EXPECTED))
      }
    }), 120_000)
})
