/**
 * What a redacted search reads of a redacted text (`src/domain/search/visible.ts`, tester22b F1): a marker, a home
 * folder's `~` and a word touching either are a gap no query word matches and no phrase spans; every other word is
 * one of the text as imported, with the same neighbours; the BM25 scores are computed from the documents given alone.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { parseQuery, queryMatches } from "../../src/domain/search/query.js"
import { visibleMatches, visibleScores, visibleWords } from "../../src/domain/search/visible.js"

const tree = (q: string) => Either.getOrThrow(parseQuery(q))

describe("visibleWords", () => {
  it("a marker, a ~ and the words touching them are one gap each", () => {
    expect(visibleWords("creds for 32m[REDACTED:stripe-key]x ok")).toEqual(["creds", "for", "", "ok"])
    expect(visibleWords("cd ~/app && ls /srv/[REDACTED:email]")).toEqual(["cd", "", "app", "ls", "srv", ""])
    expect(visibleWords("[REDACTED:a][REDACTED:b] Tail")).toEqual(["", "tail"])
    expect(visibleWords("plain Wörds, folded")).toEqual(["plain", "words", "folded"])
  })

  it("no query word matches in a gap, no phrase spans it", () => {
    const doc = [visibleWords("creds [REDACTED:github-token] ok cd ~/app")]
    for (const q of ["redacted", "github*", "token", "\"creds ok\"", "\"cd app\"", "creds -ok"]) expect(visibleMatches(tree(q), doc), q).toBe(false)
    for (const q of ["creds ok", "\"ok cd\"", "app", "cr*", "creds -token"]) expect(visibleMatches(tree(q), doc), q).toBe(true)
  })

  it("a positive query matching the words read so matches the text as imported, whatever the hidden value", () => {
    const raws = ["creds ghp_K7qK7q ok cd /home/bob/app", "creds xoxb-1-Z ok cd /home/al/app"]
    const shown = "creds [REDACTED:token] ok cd ~/app"
    for (const q of ["creds ok", "\"ok cd\"", "app", "cr* app", "creds OR zzz"]) {
      expect(visibleMatches(tree(q), [visibleWords(shown)]), q).toBe(true)
      for (const raw of raws) expect(queryMatches(tree(q), [raw]), `${q} in ${raw}`).toBe(true)
    }
  })
})

describe("visibleScores", () => {
  it("BM25 over the documents given: more occurrences and a shorter document rank first; the same documents, the same scores", () => {
    const docs = [["creds creds rotated"], ["creds noted for the deploy of the app today"], ["nothing"]].map((d) => d.map((t) => visibleWords(t)))
    const s = visibleScores(tree("creds OR deploy"), docs)
    expect(s[2]).toBe(0)
    expect(s[0]).toBeLessThan(0)
    expect(s[1]).toBeLessThan(0)
    expect(visibleScores(tree("creds"), docs)[0]).toBeLessThan(visibleScores(tree("creds"), docs)[1])
    expect(visibleScores(tree("creds OR deploy"), docs)).toEqual(s)
    // a negated word does not count
    expect(visibleScores(tree("creds -nothing"), docs)).toEqual(visibleScores(tree("creds"), docs))
  })
})
