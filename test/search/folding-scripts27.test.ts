/**
 * What "accents folded" means, script by script (docs/search.md "Case and accents, script by script"; tester27a F4,
 * session 29): both indexes fold a word as `foldWord` does (Unicode NFD, every nonspacing mark removed, lower case),
 * so case and accents fold in every script (Greek tonos, Cyrillic `ё`, `İ`), and letters that are no accented form of
 * another stay (`ß`, dotless `ı`, `ø`, `ł`, final sigma `ς`). The SQLite index is given its words folded so
 * (`ftsText`, FTS5 `ascii` tokenizer) and its queries the same way (`compileQuery(…).match`): the same hits as
 * PostgreSQL for the same query. Until session 29 SQLite's `unicode61 remove_diacritics 2` kept a precomposed Greek
 * or Cyrillic accent and read `ς` as `σ`.
 */
import Sqlite from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { emptySourceSummary } from "../../src/domain/model.js"
import { compileQuery, foldWord } from "../../src/domain/search/query.js"
import { ftsText } from "../../src/domain/search/text.js"
import { SEARCH_TOKENIZER } from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

/** Whether a search for `query` finds the document `doc` on an FTS5 table made and fed as the SQLite index's. */
const sqliteFinds = (query: string, doc: string): boolean => {
  const db = new Sqlite(":memory:")
  try {
    db.exec(`create virtual table t using fts5(x, tokenize='${SEARCH_TOKENIZER}')`)
    db.prepare("insert into t values (?)").run(ftsText(doc))
    const match = Either.getOrThrow(compileQuery(query)).match
    return (db.prepare("select count(*) as n from t where t match ?").get(match) as { n: number }).n === 1
  } finally {
    db.close()
  }
}
const pgFinds = (query: string, doc: string): boolean => foldWord(query) === foldWord(doc)

describe("search folding by script (docs/search.md, tester27a F4)", () => {
  it("both engines: case and accents in every script, separate combining marks, İ", () => {
    for (
      const [q, d] of [
        ["ΣΙΣΥΦΟΣ", "σισυφος"],
        ["ЁЛКА", "ёлка"],
        ["KIRMIZI", "kirmizi"],
        ["istanbul", "İstanbul"],
        ["cafe", "café"],
        ["a", "Å"],
        ["σισυφος", "σι\u0301συφος"],
        ["σισυφος", "σίσυφος"],
        ["ΣΊΣΥΦΟΣ", "σισυφος"],
        ["елка", "ёлка"],
        ["καλημερα", "καλημέρα"]
      ]
    ) {
      expect([q, d, sqliteFinds(q, d)]).toEqual([q, d, true])
      expect([q, d, pgFinds(q, d)]).toEqual([q, d, true])
    }
  })

  it("neither engine: letters that are no accented form of another, final sigma", () => {
    for (const [q, d] of [["GROSS", "groß"], ["KIRMIZI", "kırmızı"], ["o", "ø"], ["l", "ł"], ["σισυφοσ", "σισυφος"]]) {
      expect([q, d, sqliteFinds(q, d)]).toEqual([q, d, false])
      expect([q, d, pgFinds(q, d)]).toEqual([q, d, false])
    }
  })
})

const src: SourceInfo = {
  sourceKey: "src-fold",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-fold" },
  summary: {},
  overview: { ...emptySourceSummary(), title: null, workspace: null }
}

const DOCS = ["σίσυφος", "ΣΙΣΥΦΟΣ", "σισυφοσ", "ёлка", "Елка", "groß", "GROSS", "kırmızı", "KIRMIZI", "İstanbul", "καλημέρα κόσμε", "Straße café"]

/** Each query and the documents it finds, worked out by `foldWord` (the same on both engines). */
const EXPECTED: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["σισυφος", ["σίσυφος", "ΣΙΣΥΦΟΣ"]],
  ["σίσυφος", ["σίσυφος", "ΣΙΣΥΦΟΣ"]],
  ["σισυφοσ", ["σισυφοσ"]],
  ["елка", ["ёлка", "Елка"]],
  ["ЁЛКА", ["ёлка", "Елка"]],
  ["gross", ["GROSS"]],
  ["groß", ["groß"]],
  ["kirmizi", ["KIRMIZI"]],
  ["kırmızı", ["kırmızı"]],
  ["İSTANBUL", ["İstanbul"]],
  ["καλημερα", ["καλημέρα κόσμε"]],
  ["ΚΑΛΗΜΈΡΑ", ["καλημέρα κόσμε"]],
  ["\"καλημερα κοσμε\"", ["καλημέρα κόσμε"]],
  ["\"κοσμε καλημερα\"", []],
  ["καλη*", ["καλημέρα κόσμε"]],
  ["strasse", []],
  ["STRASSE*", []],
  ["straße cafe", ["Straße café"]],
  ["caf* -καλημερα", ["Straße café"]]
]

describe.each(engines)("Index.search folds case and accents in every script alike ($engine)", ({ newIndex }) => {
  it.effect("the hits of each query, and snippets that show the text as written", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-fold-"))
      const e = mk("claude-code", "sess-fold")
      const events = DOCS.map((text, i) => e("message", { role: "user", occurredAt: `2026-09-01T00:00:${String(i).padStart(2, "0")}.000Z`, text }))
      const got = yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({ source: src, generation: 1, events }, () => Effect.void)
        yield* index.completeSource(src, null)
        const out: Array<readonly [string, ReadonlyArray<string>]> = []
        for (const [q] of EXPECTED) out.push([q, (yield* index.search(q, {})).map((h) => h.snippet.text).sort()])
        const hello = yield* index.search("καλημερα", {})
        return { out, snippet: hello[0]?.snippet }
      }).pipe(Effect.provide(indexLayer(target)))
      expect(got.out).toEqual(EXPECTED.map(([q, docs]) => [q, [...docs].sort()]))
      expect(got.snippet).toEqual({ field: "text", text: "καλημέρα κόσμε", marks: [[0, 8]] })
    }))
})
