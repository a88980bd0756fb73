/**
 * A search over what a client may see (tester22b F1): the MCP server's
 * redacted `search_sessions` decides and ranks each hit on its redacted text
 * alone, so that no part of its answer (which hits, their order, their
 * score) depends on a value redaction hides. Pure.
 *
 * The index matches the text as imported; a hit is answered only when its
 * redacted text matches too, as {@link visibleWords} reads it: the words of
 * the redacted text, where a redaction marker (`[REDACTED:rule]`), a home
 * folder's `~` and any word touching one (`32m[REDACTED:…]`: a word a secret
 * was cut from) are a barrier, a place no query word matches and no phrase
 * spans. Every word of that reading is a word of the text as imported, with
 * the same neighbours, so a query without negations that matches it matches
 * the imported text too: the index finds every such hit among its matches,
 * and which of them are answered is decided by the redacted text alone.
 * The score is BM25 computed over those words, among the hits ranked
 * together ({@link visibleScores}), never the index's own (which counts
 * words inside secrets).
 *
 * @module
 */
import { queryHolds, type QueryNode, type SearchFold, searchWordsIn } from "./query.js"

/** A place in a word list no query word matches and no phrase spans (a query word is never empty). */
const BARRIER = ""

/** What redaction writes in place of a value: a marker, or a home folder's `~`. */
const REDACTED_PLACE = /\[REDACTED:[A-Za-z0-9_.-]*\]|~/g

const WORD_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u

/**
 * The words of a redacted text as a redacted search reads them (folded as
 * the index folds them: `fold`, the index's, default the current one; see
 * `searchWordsIn`): each marker or `~`, with the word characters touching it
 * on either side, is one {@link BARRIER}. An index read without migrating
 * holds an older fold's words, and its hits are checked in that fold, as the
 * index matched them (tester30c F7: in the current one, a redacted search
 * dropped the old fold's matches that `search` and `--no-redact` answer).
 */
export const visibleWords = (text: string, fold: SearchFold = "current"): Array<string> => {
  const out: Array<string> = []
  let from = 0
  const wordsOf = searchWordsIn(fold)
  const words = (s: string) => {
    for (const w of wordsOf(s)) out.push(w.w)
  }
  for (const m of text.matchAll(REDACTED_PLACE)) {
    let start = m.index
    let end = m.index + m[0].length
    while (start > from && WORD_CHAR.test(text[start - 1])) start--
    while (end < text.length && WORD_CHAR.test(text[end])) end++
    if (start < from) start = from
    words(text.slice(from, start))
    if (out[out.length - 1] !== BARRIER) out.push(BARRIER)
    from = Math.max(from, end)
  }
  words(text.slice(from))
  return out
}

type Term = Extract<QueryNode, { _tag: "Term" }>

/** A term's words, folded as `fold` folds them (none for a term of punctuation alone). */
const termParts = (t: Term, fold: SearchFold): Array<string> => searchWordsIn(fold)(t.text).map((p) => p.w)

/** How many times `parts` occur in `ws` (the last part by its start when `prefix`). */
const occurrences = (ws: ReadonlyArray<string>, parts: ReadonlyArray<string>, prefix: boolean): number => {
  if (parts.length === 0) return 0
  let n = 0
  for (let i = 0; i + parts.length <= ws.length; i++) {
    let ok = true
    for (let j = 0; j < parts.length && ok; j++) {
      const w = ws[i + j]
      ok = w !== BARRIER && (prefix && j === parts.length - 1 ? w.startsWith(parts[j]) : w === parts[j])
    }
    if (ok) n++
  }
  return n
}

/** A document as a redacted search reads it: the {@link visibleWords} of each of its fields (searched together). */
export type VisibleDoc = ReadonlyArray<ReadonlyArray<string>>

/**
 * Whether a document read by {@link visibleWords} satisfies the query (AND / OR / NOT as written), the query's words
 * folded as the document's were (`fold`, default the current fold).
 */
export const visibleMatches = (tree: QueryNode, doc: VisibleDoc, fold: SearchFold = "current"): boolean =>
  queryHolds(tree, (n) => {
    const parts = termParts(n, fold)
    return doc.some((ws) => occurrences(ws, parts, n.prefix) > 0)
  })

/** The terms a match counts (those not under a NOT). */
const positiveTerms = (n: QueryNode): Array<Term> =>
  n._tag === "Term" ? [n] : n._tag === "Not" ? [] : n.children.flatMap(positiveTerms)

/** BM25's parameters, SQLite FTS5's (`bm25()`): k1 = 1.2, b = 0.75. */
const K1 = 1.2
const B = 0.75

/**
 * The BM25 score of each document (lower is better, as SQLite's `bm25()`:
 * minus the sum over the query's terms not under a NOT of idf × the
 * saturated term frequency), computed over `docs` alone: the number of
 * documents, each term's document frequency and the average length are
 * theirs, lengths and frequencies counted in {@link visibleWords} (barriers
 * are not words). A phrase counts as one term, a prefix term counts every
 * word it starts; the query's words folded as the documents' were (`fold`,
 * default the current fold). Same inputs, same scores: nothing else is read.
 */
export const visibleScores = (tree: QueryNode, docs: ReadonlyArray<VisibleDoc>, fold: SearchFold = "current"): Array<number> => {
  const terms = positiveTerms(tree).map((t) => ({ parts: termParts(t, fold), prefix: t.prefix }))
  const lengths = docs.map((d) => d.reduce((n, ws) => n + ws.filter((w) => w !== BARRIER).length, 0))
  const avg = docs.length === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / docs.length
  const tf = docs.map((d) => terms.map((t) => d.reduce((n, ws) => n + occurrences(ws, t.parts, t.prefix), 0)))
  const df = terms.map((_, j) => tf.filter((row) => row[j] > 0).length)
  const n = docs.length
  return tf.map((row, i) => {
    let s = 0
    for (let j = 0; j < terms.length; j++) {
      if (row[j] === 0) continue
      const idf = Math.log(1 + (n - df[j] + 0.5) / (df[j] + 0.5))
      const norm = avg === 0 ? 1 : 1 - B + B * (lengths[i] / avg)
      s += idf * (row[j] * (K1 + 1)) / (row[j] + K1 * norm)
    }
    return s === 0 ? 0 : -s
  })
}
