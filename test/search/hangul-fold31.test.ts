/**
 * A Korean syllable is one unit of a word (session 31, tester30c F4). docs/search.md "Chinese, Japanese and Korean
 * text": a run of such characters is one word, found whole or "by its start with `*`". The start of `\ud55c\uad6d\uc5b4`
 * is the syllable `\ud55c`, not `\ud558` (`\ud55c` is `\ud558` with a final consonant): `\ud558*` finds `\ud558\ub098`
 * and not `\ud55c\uad6d\uc5b4`; `\uac00*` finds `\uac00\ub2e4` and not `\uac01`, `\uac04`. Session 30's fold (NFD, marks
 * removed, never composed again) held a syllable as its letters (jamo), so a syllable with a final consonant was found
 * by the prefix of the open one, on both engines. A word typed as conjoining jamo is the syllables they spell.
 *
 * The fixture index (fixtures/index-base31, made by session 30's build at migration 0013) is read without migrating
 * (its words as that build folded them, with a note) and migrated (0014: only the documents holding Hangul), on SQLite;
 * a PostgreSQL index's documents holding Hangul are made again by its migration 0012.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { foldWord } from "../../src/domain/search/query.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { importClaude } from "../support/claude-import.js"
import { indexLayer } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { searchHits } from "../support/search-hits.js"
import { engines, pgQuery } from "../support/pg.js"
import { cli } from "../support/run.js"
import Database from "better-sqlite3"

const PROJECTS = path.join(fixturesDir, "index-base31", "projects")
// The session's events (fixtures/index-base31/projects), as hits show them, and its title (the first prompt).
const E1 = "text:\ud55c\uad6d\uc5b4 \ubb38\uc11c \ubcf4\uae30" // hangugeo munseo bogi
const E2 = "text:\ud558\ub098 \ub458 \uc14b" // hana dul set
const E3 = "text:\uac00\ub2e4" // gada
const E4 = "text:\u0915\u0941\u0932 \u0e44\u0e21\u0e48 caf\u00e9 \u30c7\u30fc\u30bf"
const E5 = "text:\u1112\u1161\u11ab\u1100\u1173\u11af \uc790\ubaa8" // hangeul typed as conjoining jamo, jamo
const E6 = "text:\uac01 \uac04 \uac10" // gak gan gam
const TITLE = "title:\ud55c\uad6d\uc5b4 \ubb38\uc11c \ubcf4\uae30"

/** The queries, and the hits the rule (a run found whole, or by its start of whole syllables) gives them. */
const EXPECTED: Record<string, ReadonlyArray<string>> = {
  "\ud558*": [E2], // ha*: hana, not hangugeo, not hangeul
  "\ud55c*": [E1, TITLE, E5], // han*: hangugeo, hangeul (as jamo)
  "\ud55c\uad6d\uc5b4": [E1, TITLE],
  "\ud55c\uad6d*": [E1, TITLE],
  "\ud55c\uae00": [E5], // the syllables the jamo spell
  "\u1112\u1161\u11ab*": [E1, TITLE, E5], // a query typed as jamo is its syllable
  "\uac00*": [E3], // ga*: gada, not gak, gan, gam
  "\uac01": [E6],
  "\uac00": [], // a run is found whole: no word ga alone
  // the other scripts as before
  "\u0915\u0941\u0932": [E4],
  "\u0e44\u0e21\u0e48": [E4],
  cafe: [E4],
  "\u30c6\u30fc\u30bf": [E4]
}

const sorted = (r: Record<string, ReadonlyArray<string>>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [...v].sort()]))

/** Session 30's index, copied out of its fixture. */
const baseIndex = (): string => {
  const file = path.join(tempDir("si-hangul-"), "index.db")
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(fixturesDir, "index-base31", "index.db.gz"))))
  return file
}

describe("a Hangul syllable is one unit of the fold (tester30c F4)", () => {
  it("syllables stay whole, jamo spell their syllables; the other scripts fold as before", () => {
    expect(foldWord("\ud55c\uad6d\uc5b4")).toBe("\ud55c\uad6d\uc5b4")
    expect(foldWord("\u1112\u1161\u11ab\u1100\u1173\u11af")).toBe("\ud55c\uae00")
    expect(foldWord("\ud55c")).not.toMatch(/^\ud558/)
    // an accent on a syllable goes, the syllable stays
    expect(foldWord("\ud55c\u0301")).toBe("\ud55c")
    // a compatibility jamo is a letter of its own (NFD leaves it)
    expect(foldWord("\u314e")).toBe("\u314e")
    // session 30's results elsewhere: a two-part vowel sign stays in its parts, accents and kana voicing go
    expect(foldWord("\u0995\u09cb\u09a8")).toBe("\u0995\u09c7\u09be\u09a8")
    expect(foldWord("\u0b95\u0bca")).toBe("\u0b95\u0bc6\u0bbe")
    expect(foldWord("Caf\u00e9")).toBe("cafe")
    expect(foldWord("\u30c7")).toBe("\u30c6")
    expect(foldWord("\u0958")).toBe("\u0915\u093c")
  })
})

describe("an index of session 30's build (migration 0013, syllables held as jamo)", () => {
  it.effect("read without migrating: the query's words folded as that build folded them, and a note with the remedy", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* searchHits(["\ud558*", "\uac00*", "\ud55c\uad6d\uc5b4", "\u0915\u0941\u0932"]).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      // as session 30 answered: ha* finds hangugeo and hangeul too, ga* finds gak, gan, gam
      expect(sorted(got)).toEqual(sorted({
        "\ud558*": [E1, E2, E5, TITLE],
        "\uac00*": [E3, E6],
        "\ud55c\uad6d\uc5b4": [E1, TITLE],
        "\u0915\u0941\u0932": [E4]
      }))
      const fold = yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(fold).toBe("jamo")
      const r = cli(["search", "\ud558*", "--index", file])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toContain("note: this index's search words hold Korean syllables split into their letters")
      expect(r.stderr).toContain("session-ingest import")
    }))

  it.effect("migrated (0014): every query finds what the rule says, from the stored events, no note; a document without Hangul is not made again", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      // The search words of E4 (no Hangul) taken out by hand: the migration does not make them again (it reads only
      // the documents holding Hangul), so E4 is no longer found.
      const db = new Database(file)
      db.prepare("DELETE FROM search WHERE rowid = (SELECT r.id FROM records r WHERE r.sequence = 3)").run()
      db.close()
      const migrate = cli(["index", "migrate", "--index", file])
      expect(migrate.code, migrate.stderr).toBe(0)
      expect(migrate.stdout).toContain("0014_search_syllables")
      const got = yield* searchHits(Object.keys(EXPECTED)).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(sorted(got)).toEqual(sorted({ ...EXPECTED, "\u0915\u0941\u0932": [], "\u0e44\u0e21\u0e48": [], cafe: [], "\u30c6\u30fc\u30bf": [] }))
      const fold = yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(fold).toBe("current")
      const r = cli(["search", "\ud558*", "--index", file])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toContain("Korean")
    }))

  it.effect("migrated by an import: every query finds what the rule says", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* searchHits(Object.keys(EXPECTED)).pipe(Effect.provide(IndexSqlite.layer(file)))
      expect(sorted(got)).toEqual(sorted(EXPECTED))
    }))
})

describe.each(engines)("a new index ($engine): the same hits", ({ engine, newIndex }) => {
  it.effect("every query finds what the rule says", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-hangul-new-")
      const target = yield* newIndex(dir)
      importClaude(target, PROJECTS, path.join(dir, "agents"), { HOME: dir })
      const got = yield* searchHits(Object.keys(EXPECTED)).pipe(Effect.provide(indexLayer(target)))
      expect(sorted(got)).toEqual(sorted(EXPECTED))
      if (engine === "postgres") {
        // Migration 0012 makes the words of the documents holding Hangul again: stale words are replaced; the others'
        // (here emptied by hand) are not read.
        yield* Effect.promise(() =>
          pgQuery(target, "UPDATE search_docs SET words = ''::tsvector; DELETE FROM si_migrations WHERE migration_id >= 12")
        )
        const r = cli(["index", "migrate", "--index", target])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout).toContain("0012_search_syllables")
        const again = yield* searchHits(Object.keys(EXPECTED)).pipe(Effect.provide(indexLayer(target)))
        expect(sorted(again)).toEqual(sorted({ ...EXPECTED, "\u0915\u0941\u0932": [], "\u0e44\u0e21\u0e48": [], cafe: [], "\u30c6\u30fc\u30bf": [] }))
      }
    }), 120_000)
})
