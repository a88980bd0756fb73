/**
 * What "accents folded" means, script by script (docs/search.md "Case and accents, script by script"; tester27a F4):
 * the SQLite index's tokenizer (`SEARCH_TOKENIZER`, FTS5 `unicode61 remove_diacritics 2`) folds case in every script,
 * Latin accents and separate combining marks, but not a precomposed Greek or Cyrillic accent, `ß` or dotless `ı`; the
 * PostgreSQL index's words (`foldWord`) fold every combining mark after NFD. The documented pairs, checked on both.
 */
import Sqlite from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import { foldWord } from "../../src/domain/search/query.js"
import { SEARCH_TOKENIZER } from "../../src/layers/index/sqlite.js"

/** Whether a search for `query` finds the document `doc` on an FTS5 table with the index's tokenizer. */
const sqliteFinds = (query: string, doc: string): boolean => {
  const db = new Sqlite(":memory:")
  try {
    db.exec(`create virtual table t using fts5(x, tokenize='${SEARCH_TOKENIZER}')`)
    db.prepare("insert into t values (?)").run(doc)
    return (db.prepare("select count(*) as n from t where t match ?").get(`"${query}"`) as { n: number }).n === 1
  } finally {
    db.close()
  }
}
const pgFinds = (query: string, doc: string): boolean => foldWord(query) === foldWord(doc)

describe("search folding by script (docs/search.md, tester27a F4)", () => {
  it("both engines: case in every script, Latin accents, separate combining marks", () => {
    for (const [q, d] of [["ΣΙΣΥΦΟΣ", "σισυφος"], ["ЁЛКА", "ёлка"], ["KIRMIZI", "kirmizi"], ["istanbul", "İstanbul"], ["cafe", "café"], ["a", "Å"], ["σισυφος", "σι\u0301συφος"]]) {
      expect([q, d, sqliteFinds(q, d)]).toEqual([q, d, true])
      expect([q, d, pgFinds(q, d)]).toEqual([q, d, true])
    }
  })

  it("neither engine: letters that are no accented form of another", () => {
    for (const [q, d] of [["GROSS", "groß"], ["KIRMIZI", "kırmızı"], ["o", "ø"], ["l", "ł"]]) {
      expect([q, d, sqliteFinds(q, d)]).toEqual([q, d, false])
      expect([q, d, pgFinds(q, d)]).toEqual([q, d, false])
    }
  })

  it("a precomposed Greek or Cyrillic accent: kept on SQLite, folded on PostgreSQL", () => {
    for (const [q, d] of [["σισυφος", "σίσυφος"], ["елка", "ёлка"]]) {
      expect([q, d, sqliteFinds(q, d)]).toEqual([q, d, false])
      expect([q, d, pgFinds(q, d)]).toEqual([q, d, true])
    }
  })
})
