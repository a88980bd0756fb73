/**
 * An index made by the build before search folded every script (fixtures/index-base29: commit 1e94c6f, words given
 * to FTS5 `unicode61 remove_diacritics 2` unfolded): read without migrating, it answers as that build did (the
 * query's words as written); migration 0012 makes its search words again from the stored records and titles,
 * folded as the PostgreSQL index folds them (docs/search.md "Case and accents, script by script"), without reading
 * any source. The hits below are worked out by `foldWord` (NFD, nonspacing marks removed, lower case).
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { searchHits } from "../support/search-hits.js"
import { cli } from "../support/run.js"

const E1 = "text:Καλημέρα κόσμε: σίσυφος και ёлка"
const E2 = "text:ΣΙΣΥΦΟΣ groß İstanbul café"
const E3 = "text:plain ascii words only: invoice totals"
const TITLE = "title:Καλημέρα κόσμε: σίσυφος και ёлка"

/** The base build's index, copied out of its fixture. */
const baseIndex = (): string => {
  const file = path.join(tempDir("si-fold-mig-"), "index.db")
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(fixturesDir, "index-base29", "index.db.gz"))))
  return file
}

const hits = searchHits

const schema = (file: string) => {
  const db = new Database(file, { readonly: true })
  try {
    return {
      last: (db.prepare("SELECT max(migration_id) AS n FROM si_migrations").get() as { n: number }).n,
      search: (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'search'").get() as { sql: string }).sql
    }
  } finally {
    db.close()
  }
}

describe("an index of the build before search folded every script (migration 0012_search_folded)", () => {
  it.effect("read without migrating: searched with the words as written, as that build did", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* hits(["invoice", "σίσυφος", "σισυφος", "cafe"]).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(got).toEqual({
        invoice: [E3],
        // unicode61 kept the Greek tonos: the word as written finds it, the folded one finds only the upper-case word
        "σίσυφος": [E1, TITLE].sort(),
        "σισυφος": [E2],
        cafe: [E2]
      })
      expect(schema(file).last).toBe(11)
      // It says so (tester29b F2): the reader's flag, and `search`'s note on stderr with the remedy.
      const fold = yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))
      expect(fold).toBe("unfolded")
      const r = cli(["search", "καλημερα", "--index", file])
      expect(r.code).toBe(0)
      expect(r.stderr).toContain("note: this index's search words are not folded in every script yet")
      expect(r.stderr).toContain("καλημερα does not find καλημέρα")
      expect(r.stderr).toContain("session-ingest import")
      expect(schema(file).last).toBe(11)
    }))

  it.effect("a migrated (or new) index has no such note", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      yield* Effect.void.pipe(Effect.provide(IndexSqlite.layer(file)))
      expect(yield* Effect.map(Index, (i) => i.searchFold).pipe(Effect.provide(IndexSqlite.layerReadonly(file)))).toBe("current")
      const r = cli(["search", "καλημερα", "--index", file])
      expect(r.code).toBe(0)
      expect(r.stderr).not.toContain("not folded")
      expect(r.stdout).toContain("αλημέρα")
    }))

  it.effect("migrated: every word folded as PostgreSQL folds it, from the stored events, snippets as written", () =>
    Effect.gen(function*() {
      const file = baseIndex()
      const got = yield* hits([
        "σισυφος",
        "σίσυφος",
        "ΣΊΣΥΦΟΣ",
        "елка",
        "καλημερα",
        "\"καλημερα κοσμε\"",
        "καλη*",
        "istanbul",
        "gross",
        "groß",
        "cafe",
        "invoice",
        "inv*",
        "\"invoice totals\""
      ]).pipe(Effect.provide(IndexSqlite.layer(file)))
      expect(got).toEqual({
        "σισυφος": [E1, E2, TITLE].sort(),
        "σίσυφος": [E1, E2, TITLE].sort(),
        "ΣΊΣΥΦΟΣ": [E1, E2, TITLE].sort(),
        "елка": [E1, TITLE].sort(),
        "καλημερα": [E1, TITLE].sort(),
        "\"καλημερα κοσμε\"": [E1, TITLE].sort(),
        "καλη*": [E1, TITLE].sort(),
        istanbul: [E2],
        gross: [],
        "groß": [E2],
        cafe: [E2],
        invoice: [E3],
        "inv*": [E3],
        "\"invoice totals\"": [E3]
      })
      const after = schema(file)
      expect(after.last).toBeGreaterThanOrEqual(12)
      expect(after.search).toContain(`tokenize = '${IndexSqlite.SEARCH_TOKENIZER}'`)
      // The snippet is cut from the stored text: the accented word is marked as written.
      const [hit] = yield* Effect.flatMap(Index, (i) => i.search("σισυφος", { kind: "message", role: "user" })).pipe(
        Effect.provide(IndexSqlite.layer(file))
      )
      expect(hit.snippet).toEqual({ field: "text", text: "Καλημέρα κόσμε: σίσυφος και ёлка", marks: [[16, 23]] })
    }))
})
