/**
 * The search query language of `session-ingest search` and `Index.search`
 * (issue 14), parsed by hand and compiled into a safe SQLite FTS5 MATCH
 * expression. Pure.
 *
 * Syntax:
 * - `word`: a term; terms side by side must all match (AND).
 * - `"exact phrase"`: the words in this order, next to each other.
 * - `prefix*`: a word starting with `prefix` (also `"a phrase"*`: its last word).
 * - `AND`, `OR`, `NOT` (upper case; `and`/`or`/`not` are plain words) and
 *   `-word` (= `NOT word`); AND binds tighter than OR; `( … )` groups.
 *
 * Every user word reaches FTS5 as a quoted string (`"` doubled), never as
 * FTS5 syntax: `NEAR`, `text:` column filters, `^`, `{…}` and `*` alone are
 * words or errors here, never operators there. FTS5's tokenizer splits a
 * quoted word at punctuation into a phrase of its parts, so
 * `src/layers/index/sqlite.ts` matches that path exactly and `config` alone
 * matches inside `parse_config_file` or `app.config.json`. A bare word of 7
 * to 39 hex digits holding a digit and a letter (an abbreviated git SHA) is
 * searched as a prefix. Words with no letter or digit (`-`, `:`) match
 * nothing and are left out.
 *
 * Bad syntax is {@link InvalidSearchQuery} with `details.position` (0-based)
 * and a remedy.
 *
 * The same tree also compiles into a PostgreSQL `tsquery` ({@link compileTsQuery})
 * for the team index, whose documents are split into words by
 * {@link searchWords}: the words FTS5's tokenizer makes of the same text.
 *
 * @module
 */
import * as Either from "effect/Either"
import { InvalidSearchQuery } from "../errors.js"
import { clipText } from "../redaction/clipped.js"

/** A parsed query: terms (a word or phrase, maybe a prefix), AND / OR groups and negations. */
export type QueryNode =
  | { readonly _tag: "Term"; readonly text: string; readonly prefix: boolean; readonly position: number }
  | { readonly _tag: "And"; readonly children: ReadonlyArray<QueryNode>; readonly position: number }
  | { readonly _tag: "Or"; readonly children: ReadonlyArray<QueryNode>; readonly position: number }
  | { readonly _tag: "Not"; readonly child: QueryNode; readonly position: number }

/** A compiled query: the FTS5 MATCH expression and the tree it came from. */
export interface CompiledQuery {
  /** The FTS5 MATCH expression, each word folded as the index's documents are ({@link ftsFold}): `matchIn("current")`. */
  readonly match: string
  /**
   * The same expression with each word folded as an index of fold `fold` holds its words ({@link SearchFold}): for a
   * SQLite index made by an older build and read without migrating it (made when asked); `match` for `current`.
   */
  readonly matchIn: (fold: SearchFold) => string
  readonly tree: QueryNode
}

/** At most this many terms in one query. */
export const MAX_TERMS = 64
/** At most this many characters in one query. */
export const MAX_QUERY_LENGTH = 2000

type Token =
  | { readonly _tag: "(" | ")" | "-" | "AND" | "OR" | "NOT"; readonly position: number }
  | { readonly _tag: "word"; readonly text: string; readonly prefix: boolean; readonly quoted: boolean; readonly position: number }

const SYNTAX_REMEDY =
  "Search words, \"exact phrases\", prefix* with AND, OR, NOT (or -word) and ( ) for groups; put words with special characters in double quotes."

class Problem {
  constructor(readonly position: number, readonly problem: string, readonly remedy: string = SYNTAX_REMEDY) {}
}

/** White space, and control characters (which no word holds, and FTS5 refuses, NUL among them), separate words. */
const isSpace = (c: string) => /[\s\u0000-\u001f\u007f]/.test(c)

/** Split a query into tokens; `Problem` for an unclosed phrase. */
const lex = (q: string): Array<Token> => {
  const out: Array<Token> = []
  let i = 0
  while (i < q.length) {
    const c = q[i]
    if (isSpace(c)) {
      i++
      continue
    }
    if (c === "(" || c === ")") {
      out.push({ _tag: c, position: i })
      i++
      continue
    }
    // A `-` with white space, a `)` or the end after it negates nothing: refused as `a NOT` is (tester32a F6: it was
    // a word without a letter, dropped, so `login - flaky` searched for the sessions it meant to leave out).
    if (c === "-" && (i + 1 === q.length || isSpace(q[i + 1]) || q[i + 1] === ")")) throw new Problem(i, "- needs a term after it")
    if (c === "-" && i + 1 < q.length && !isSpace(q[i + 1]) && q[i + 1] !== "-" && q[i + 1] !== ")") {
      out.push({ _tag: "-", position: i })
      i++
      continue
    }
    if (c === "\"") {
      const end = q.indexOf("\"", i + 1)
      if (end < 0) throw new Problem(i, "this phrase has no closing quote", "Close the phrase with a double quote (\"…\").")
      let next = end + 1
      let prefix = false
      while (q[next] === "*") {
        prefix = true
        next++
      }
      out.push({ _tag: "word", text: q.slice(i + 1, end), prefix, quoted: true, position: i })
      i = next
      continue
    }
    // A word: up to white space; a `(` that closes within it belongs to it (`parseConfig()`), an unmatched `)` ends it.
    const start = i
    let depth = 0
    while (i < q.length && !isSpace(q[i])) {
      // A quote that ends a word (`flaky"`, `flaky" test`, `(flaky")`) closes no phrase: a dangling quote, an error
      // rather than punctuation that FTS5 would drop (the query would run as if it were not there). Inside a word
      // (`a"b`, `it"s`) it is one of the word's characters, searched quoted as the word's other punctuation.
      if (q[i] === "\"" && (i + 1 === q.length || isSpace(q[i + 1]) || q[i + 1] === ")" || q[i + 1] === "*")) {
        throw new Problem(i, "a dangling quote: a quote that ends a word closes no phrase", "Put a phrase between two double quotes (\"…\"), after white space or at the query's start, or leave the quote out.")
      }
      if (q[i] === "(") {
        let j = i + 1, d = 1
        while (j < q.length && !isSpace(q[j]) && d > 0) {
          if (q[j] === "(") d++
          else if (q[j] === ")") d--
          j++
        }
        if (d > 0) break
        depth++
      } else if (q[i] === ")") {
        if (depth === 0) break
        depth--
      }
      i++
    }
    let text = q.slice(start, i)
    let prefix = false
    while (text.endsWith("*")) {
      text = text.slice(0, -1)
      prefix = true
    }
    if (prefix && text.length === 0) throw new Problem(start, "`*` must follow the beginning of a word (prefix*)", "Write the start of a word before `*`, e.g. pars*.")
    if (!prefix && (text === "AND" || text === "OR" || text === "NOT")) out.push({ _tag: text, position: start })
    else out.push({ _tag: "word", text, prefix, quoted: false, position: start })
  }
  return out
}

/** True when FTS5's tokenizer finds something to search in `text` (a letter or digit). */
const searchable = (text: string) => /[\p{L}\p{N}]/u.test(text)

/** An abbreviated hex id: 7–39 hex digits with a digit and a letter (a short git SHA). */
const abbreviatedHex = (text: string) => /^[0-9a-f]{7,39}$/i.test(text) && /[0-9]/.test(text) && /[a-f]/i.test(text)

/** Recursive descent over the tokens; `null` for a group whose words were all left out. */
const parseTokens = (tokens: ReadonlyArray<Token>): QueryNode | null => {
  let k = 0
  let terms = 0
  /** Groups open around the parse (0: the query itself, which must search for something). */
  let depth = 0
  const peek = () => tokens[k]
  /** Negations side by side as one: NOT a NOT b is NOT (a OR b); NOT a OR NOT b is NOT (a AND b). */
  const negationOf = (nots: ReadonlyArray<Extract<QueryNode, { _tag: "Not" }>>, op: "And" | "Or"): QueryNode =>
    nots.length === 1
      ? nots[0]
      : { _tag: "Not", child: { _tag: op === "And" ? "Or" : "And", children: nots.map((n) => n.child), position: nots[0].position }, position: nots[0].position }
  const onlyNegations = (ns: ReadonlyArray<QueryNode>): ns is ReadonlyArray<Extract<QueryNode, { _tag: "Not" }>> =>
    ns.every((c) => c._tag === "Not")
  const excludesOnly = (at: number) =>
    new Problem(at, "a query cannot only exclude words", "Add a word to search for, e.g. foo -bar.")

  const parseOr = (): QueryNode | null => {
    const first = peek()
    const children: Array<QueryNode | null> = [parseAnd()]
    while (peek()?._tag === "OR") {
      const op = tokens[k++]
      const next = peek()
      if (next === undefined || next._tag === ")") throw new Problem(op.position, "OR needs a term after it")
      if (next._tag === "OR" || next._tag === "AND") throw new Problem(next.position, `${next._tag} cannot follow OR`)
      children.push(parseAnd())
    }
    const kept = children.filter((c): c is QueryNode => c !== null)
    // Every side negated (in a group beside a word to search for): NOT (a AND b); else a negation cannot be a side.
    if (kept.length > 1 && onlyNegations(kept)) {
      if (depth === 0) throw excludesOnly(kept[0].position)
      return negationOf(kept, "Or")
    }
    for (const c of kept) {
      if (kept.length > 1 && c._tag === "Not") throw new Problem(c.position, "a negated word cannot be one side of OR", "Negate with NOT or -word next to a word to search for, e.g. foo -bar.")
    }
    if (kept.length === 0) return null
    return kept.length === 1 ? kept[0] : { _tag: "Or", children: kept, position: first?.position ?? 0 }
  }

  const parseAnd = (): QueryNode | null => {
    const items: Array<QueryNode | null> = []
    const start = peek()
    for (;;) {
      const t = peek()
      if (t === undefined || t._tag === ")" || t._tag === "OR") break
      if (t._tag === "AND") {
        if (items.length === 0) throw new Problem(t.position, "AND needs a term before it")
        k++
        const next = peek()
        if (next === undefined || next._tag === ")") throw new Problem(t.position, "AND needs a term after it")
        if (next._tag === "AND" || next._tag === "OR") throw new Problem(next.position, `${next._tag} cannot follow AND`)
        continue
      }
      items.push(parseUnary())
    }
    if (items.length === 0) {
      const t = peek()
      if (t?._tag === "OR") throw new Problem(t.position, "OR needs a term before it")
      // `()` is an empty group; a `)` outside any group closes none (tester32a F6).
      if (t?._tag === ")") throw new Problem(t.position, depth > 0 ? "this group is empty" : "this `)` closes no group")
      // Only an empty query gets here (every operator and `(` checks what follows it); else, its last token.
      throw new Problem(start?.position ?? tokens[tokens.length - 1]?.position ?? 0, "there is nothing to search for", "Type a word to search for.")
    }
    const kept = items.filter((c): c is QueryNode => c !== null)
    if (kept.length === 0) return null
    // Negations only are one negation: for the words beside their group to search for; as one side of an OR, that
    // OR refuses it (a negated word cannot be one side of OR); alone, the query refuses it (it only excludes words).
    if (onlyNegations(kept)) return negationOf(kept, "And")
    return kept.length === 1 ? kept[0] : { _tag: "And", children: kept, position: kept[0].position }
  }

  const parseUnary = (): QueryNode | null => {
    const t = peek()!
    if (t._tag === "NOT" || t._tag === "-") {
      k++
      const next = peek()
      if (next === undefined || next._tag === ")" || next._tag === "AND" || next._tag === "OR") {
        throw new Problem(t.position, `${t._tag} needs a term after it`)
      }
      if (next._tag === "NOT" || next._tag === "-") throw new Problem(next.position, "a negation cannot be negated")
      const child = parsePrimary()
      if (child?._tag === "Not") throw new Problem(t.position, "a negation cannot be negated")
      return child === null ? null : { _tag: "Not", child, position: t.position }
    }
    return parsePrimary()
  }

  const parsePrimary = (): QueryNode | null => {
    const t = tokens[k++]
    if (t._tag === "(") {
      // Nothing after the `(`: the group is unclosed (and empty); the error points at it, not at the query's start.
      if (peek() === undefined) throw new Problem(t.position, "this group has no closing parenthesis", "Close the group with `)`, or quote the word (\"(…\").")
      depth++
      const inner = parseOr()
      depth--
      const close = peek()
      if (close?._tag !== ")") throw new Problem(t.position, "this group has no closing parenthesis", "Close the group with `)`, or quote the word (\"(…\").")
      k++
      return inner
    }
    if (t._tag === "word") {
      if (++terms > MAX_TERMS) throw new Problem(t.position, `a query may hold at most ${MAX_TERMS} terms`, "Search with fewer words.")
      if (!searchable(t.text)) return null
      const prefix = t.prefix || (!t.quoted && abbreviatedHex(t.text))
      return { _tag: "Term", text: t.text, prefix, position: t.position }
    }
    throw new Problem(t.position, `${t._tag} is misplaced here`)
  }

  const tree = parseOr()
  const rest = peek()
  if (rest !== undefined) {
    throw new Problem(rest.position, rest._tag === ")" ? "this `)` closes no group" : `${rest._tag} is misplaced here`)
  }
  // A query that is one group of negations, `(-a -b)`, searches for nothing either.
  if (tree?._tag === "Not") throw excludesOnly(tree.position)
  return tree
}

/**
 * A node's meaning as a key: a term by its words as the search folds them ({@link searchWords}: the words both
 * engines match, case and accents folded, punctuation a separator) and whether it is a prefix; a group by its
 * operator and its children's keys in order. Two nodes with one key match the same documents on both engines.
 */
const nodeKey = (n: QueryNode): string => {
  switch (n._tag) {
    case "Term":
      return `T${n.prefix ? "*" : ""}${JSON.stringify(searchWords(n.text).map((w) => w.w))}`
    case "Not":
      return `N(${nodeKey(n.child)})`
    case "And":
    case "Or":
      return `${n._tag}(${n.children.map(nodeKey).join(",")})`
  }
}

/**
 * The tree with repeated terms and groups merged (tester28a F10): within an AND or an OR, a child that means what
 * an earlier one does ({@link nodeKey}: `wo* OR wo*`, `Foo foo`, `café cafe`, `a.b "a b"`, `(a b) OR (a b)`) is
 * left out, the first kept, inner groups first; a group left with one child is that child. The query matches the same documents; each engine then runs each distinct term once
 * (a query of the same prefix 64 times cost 64 times the one: 27 s of CPU on 20,000 events).
 */
const mergeRepeats = (n: QueryNode): QueryNode => {
  switch (n._tag) {
    case "Term":
      return n
    case "Not":
      return { ...n, child: mergeRepeats(n.child) }
    case "And":
    case "Or": {
      const seen = new Set<string>()
      const children: Array<QueryNode> = []
      const add = (c: QueryNode) => {
        const key = nodeKey(c)
        if (seen.has(key)) return
        seen.add(key)
        children.push(c)
      }
      n.children.map(mergeRepeats).forEach(add)
      return children.length === 1 ? children[0] : { ...n, children }
    }
  }
}

const toError = (query: string, p: Problem) =>
  new InvalidSearchQuery({
    message: `The search query does not parse at character ${p.position + 1}: ${p.problem}.`,
    remediation: p.remedy,
    // The query echoed at most MAX_QUERY_LENGTH long (its last character `\u2026` when cut), with its length when
    // it was cut: one refused for its length is not sent back whole (a 100 KB query was, tester34a F4).
    details: {
      query: clipText(query, MAX_QUERY_LENGTH),
      ...(query.length > MAX_QUERY_LENGTH ? { queryLength: query.length } : {}),
      position: p.position
    }
  })

/**
 * Parse a query into its tree. Fails with {@link InvalidSearchQuery} (its
 * `details.position`: 0-based offset of the problem) on bad syntax or when
 * nothing searchable is left.
 */
export const parseQuery = (query: string): Either.Either<QueryNode, InvalidSearchQuery> => {
  try {
    if (query.length > MAX_QUERY_LENGTH) {
      throw new Problem(MAX_QUERY_LENGTH, `a query may be at most ${MAX_QUERY_LENGTH} characters long`, "Search with fewer words.")
    }
    // Control characters (NUL among them, which FTS5 refuses) are white space, one for one: positions stay.
    const tree = parseTokens(lex(query.replace(/[\u0000-\u001f\u007f]/g, " ")))
    if (tree === null) throw new Problem(0, "there is nothing to search for (no letter or digit)", "Type a word to search for.")
    return Either.right(mergeRepeats(tree))
  } catch (e) {
    if (e instanceof Problem) return Either.left(toError(query, e))
    throw e
  }
}

const quote = (text: string) => `"${text.replace(/"/g, "\"\"")}"`

/**
 * The FTS5 expression of a node, each word given as `word` makes it; groups are parenthesized where precedence needs
 * it (and for clarity).
 */
const render = (n: QueryNode, word: (text: string) => string): string => {
  const grouped = (c: QueryNode) => (c._tag === "And" || c._tag === "Or" ? `(${render(c, word)})` : render(c, word))
  switch (n._tag) {
    case "Term":
      return quote(word(n.text)) + (n.prefix ? " *" : "")
    case "Not":
      return render(n.child, word)
    case "Or":
      return n.children.map(grouped).join(" OR ")
    case "And": {
      const pos = n.children.filter((c) => c._tag !== "Not")
      const neg = n.children.filter((c): c is Extract<QueryNode, { _tag: "Not" }> => c._tag === "Not").map((c) => c.child)
      const left = pos.map(grouped).join(" AND ")
      if (neg.length === 0) return left
      const right = neg.length === 1 ? grouped(neg[0]) : `(${neg.map(grouped).join(" OR ")})`
      return `${pos.length > 1 ? `(${left})` : left} NOT ${right}`
    }
  }
}

/**
 * Compile a query into an FTS5 MATCH expression in which every user word is
 * a quoted string (see the module's doc). Fails with
 * {@link InvalidSearchQuery} as {@link parseQuery} does.
 */
export const compileQuery = (query: string): Either.Either<CompiledQuery, InvalidSearchQuery> =>
  Either.map(parseQuery(query), (tree) => {
    const match = render(tree, ftsFold)
    return { tree, match, matchIn: (fold) => (fold === "current" ? match : render(tree, FOLDS[fold].fts)) }
  })

/** A term as the query syntax writes it: a plain word as it is, else quoted (a `"` inside is a separator, as in the index). */
const writeTerm = (t: Extract<QueryNode, { _tag: "Term" }>): string => {
  const plain = /^[\p{L}\p{N}_]+$/u.test(t.text) && t.text !== "AND" && t.text !== "OR" && t.text !== "NOT" &&
    (t.prefix || !abbreviatedHex(t.text))
  return (plain ? t.text : `"${t.text.replace(/"/g, " ")}"`) + (t.prefix ? "*" : "")
}

/** A node written in the query syntax, its negations left out; null for a negation. */
const writePositive = (n: QueryNode): string | null => {
  switch (n._tag) {
    case "Term":
      return writeTerm(n)
    case "Not":
      return null
    case "And": {
      const kept = n.children.map((c) => (c._tag === "Or" ? writeGroup(c) : writePositive(c))).filter((x): x is string => x !== null)
      return kept.length === 0 ? null : kept.join(" ")
    }
    case "Or": {
      const kept = n.children.map(writePositive)
      // A negation is never a side of OR (the parser folds such sides into one); were it one, the OR would match anything.
      return kept.some((x) => x === null) ? null : kept.join(" OR ")
    }
  }
}
const writeGroup = (n: QueryNode): string | null => {
  const w = writePositive(n)
  return w === null ? null : `(${w})`
}

/**
 * The query without its negations (`-word`, `NOT word`, a negated phrase or
 * group), in the query syntax: it matches every document the whole query
 * matches, and more. With redaction on, the index is searched with it and
 * the whole query then checked on each hit's redacted text
 * ({@link queryMatches}), so a negated word is tried against what is shown,
 * never against a secret redaction hides. The tree itself when it holds no
 * negation (`hasNegation`).
 */
export const positiveQuery = (tree: QueryNode): { readonly query: string; readonly hasNegation: boolean } => {
  const has = (n: QueryNode): boolean =>
    n._tag === "Not" || ((n._tag === "And" || n._tag === "Or") && n.children.some(has))
  return { query: writePositive(tree) ?? "", hasNegation: has(tree) }
}

// ------------------------------------------------------------------ PostgreSQL tsquery

/** Longest lexeme PostgreSQL keeps, in UTF-8 bytes: a longer word is cut to it, in documents and queries alike. */
export const MAX_LEXEME_BYTES = 2046

const encoder = new TextEncoder()

/** A folded word as a PostgreSQL lexeme: cut to {@link MAX_LEXEME_BYTES} bytes at a character boundary. */
export const lexemeOf = (word: string): string => {
  if (word.length * 3 <= MAX_LEXEME_BYTES || encoder.encode(word).length <= MAX_LEXEME_BYTES) return word
  let out = ""
  let bytes = 0
  for (const ch of word) {
    const n = encoder.encode(ch).length
    if (bytes + n > MAX_LEXEME_BYTES) break
    out += ch
    bytes += n
  }
  return out
}

/** A lexeme quoted for `tsvector` / `tsquery` input: `'…'`, a quote doubled, a backslash escaped. */
export const quoteLexeme = (lexeme: string): string => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`

/** The tsquery of a node; every compound operand parenthesized (`!` binds tighter than `<->`, than `&`, than `|`). */
const renderTs = (n: QueryNode): string => {
  switch (n._tag) {
    case "Term": {
      const parts = searchWords(n.text).map((p) => lexemeOf(p.w))
      const last = parts.length - 1
      const out = parts.map((p, i) => quoteLexeme(p) + (n.prefix && i === last ? ":*" : "")).join(" <-> ")
      return parts.length > 1 ? `(${out})` : out
    }
    case "Not":
      return `!${renderTs(n.child)}`
    case "Or":
      return `(${n.children.map(renderTs).join(" | ")})`
    case "And":
      return `(${n.children.map(renderTs).join(" & ")})`
  }
}

/** A compiled query for PostgreSQL: the `tsquery` text and the tree it came from. */
export interface CompiledTsQuery {
  /**
   * `tsquery` input (cast with `::tsquery`, bound as a parameter, never
   * spliced into SQL): every word a quoted lexeme, folded as the document's
   * words are; a phrase (a quoted phrase, or a word with punctuation such as
   * a path or a UUID) its words joined by `<->`; a prefix `:*` on its last
   * word; `&`, `|`, `!` for AND, OR, NOT.
   */
  readonly tsquery: string
  /**
   * A looser `tsquery` every match of {@link tsquery} also matches, for the
   * planner, or null when it would be the same (no phrase, no NOT) or match
   * everything (a NOT alone, or under an OR): each phrase's words joined by
   * `&` rather than `<->`, and the negated parts left out. PostgreSQL
   * estimates a phrase as often as its words together and a NOT as the
   * opposite of its word, often far too high; given this too, the planner
   * sees how few documents can match.
   */
  readonly sieve: string | null
  /**
   * The word pairs every match of {@link tsquery} holds ({@link pairLexeme};
   * on PostgreSQL the document's `pairs` column holds their hashes), or null
   * when the query has no phrase that a match must contain: each phrase's
   * adjacent words as pairs (a prefix phrase's last pair left out: its last
   * word is not known whole), its ANDs and ORs as written, the negated parts
   * left out. Answered by the pairs' GIN index alone, so a phrase of common
   * words costs its few true matches, not every document holding its words.
   */
  readonly pairs: PairsNeed | null
  readonly tree: QueryNode
}

/** The word pairs a match must hold ({@link CompiledTsQuery.pairs}): all of `pairs`; all of its children; one of them. */
export type PairsNeed =
  | { readonly _tag: "All"; readonly pairs: ReadonlyArray<string> }
  | { readonly _tag: "And"; readonly children: ReadonlyArray<PairsNeed> }
  | { readonly _tag: "Or"; readonly children: ReadonlyArray<PairsNeed> }

/**
 * The word-pair text of two lexemes at adjacent positions of a document: a
 * space, the first, a space, the second (no lexeme holds a space).
 * PostgreSQL keeps the hash (`hashtext`) of each pair of a document's
 * `tsvector` (function `si_word_pairs`, migration `0007_search_pairs`), made
 * from the same positions `<->` reads: a document holds the pair of every
 * two words a phrase of theirs can match.
 */
export const pairLexeme = (first: string, second: string): string => ` ${first} ${second}`

/**
 * Compile a query into PostgreSQL `tsquery` input over the words of
 * {@link searchWords} (see {@link CompiledTsQuery}). Same syntax and errors as
 * {@link compileQuery}: {@link InvalidSearchQuery} on bad syntax.
 */
export const compileTsQuery = (query: string): Either.Either<CompiledTsQuery, InvalidSearchQuery> =>
  Either.map(parseQuery(query), (tree) => {
    const tsquery = renderTs(tree)
    const sieve = renderSieve(tree)
    return { tree, tsquery, sieve: sieve === tsquery ? null : sieve, pairs: renderPairs(tree) }
  })

/** The pairs of {@link CompiledTsQuery.pairs} (null: no pair a match must hold). */
const renderPairs = (n: QueryNode): PairsNeed | null => {
  switch (n._tag) {
    case "Term": {
      const parts = searchWords(n.text).map((p) => lexemeOf(p.w))
      // A prefix phrase's last word is only the start of the document's: its pair is not known.
      const whole = n.prefix ? parts.length - 1 : parts.length
      if (whole < 2) return null
      return { _tag: "All", pairs: parts.slice(1, whole).map((p, i) => pairLexeme(parts[i], p)) }
    }
    case "Not":
      return null
    case "Or": {
      const children = n.children.map(renderPairs)
      return children.some((c) => c === null) ? null : { _tag: "Or", children: children as Array<PairsNeed> }
    }
    case "And": {
      const children = n.children.map(renderPairs).filter((c): c is PairsNeed => c !== null)
      const all = children.flatMap((c) => (c._tag === "All" ? c.pairs : []))
      const rest = children.filter((c) => c._tag !== "All")
      const parts = all.length > 0 ? [{ _tag: "All" as const, pairs: [...new Set(all)] }, ...rest] : rest
      return parts.length === 0 ? null : parts.length === 1 ? parts[0] : { _tag: "And", children: parts }
    }
  }
}

/** The looser `tsquery` of {@link CompiledTsQuery.sieve} (null: it would match every document). */
const renderSieve = (n: QueryNode): string | null => {
  switch (n._tag) {
    case "Term": {
      const parts = searchWords(n.text).map((p) => lexemeOf(p.w))
      const last = parts.length - 1
      const out = parts.map((p, i) => quoteLexeme(p) + (n.prefix && i === last ? ":*" : "")).join(" & ")
      return parts.length > 1 ? `(${out})` : out
    }
    case "Not":
      return null
    case "Or": {
      const children = n.children.map(renderSieve)
      return children.some((c) => c === null) ? null : `(${children.join(" | ")})`
    }
    case "And": {
      const children = n.children.map(renderSieve).filter((c): c is string => c !== null)
      return children.length === 0 ? null : `(${children.join(" & ")})`
    }
  }
}

// ------------------------------------------------------------------ matches, for snippets

/**
 * The marks a fold removes (after NFD): accents and the like, the marks that make an accented form of a letter
 * that stays a letter without them. The combining diacritical marks (U+0300-036F, their extension and supplement,
 * those for symbols, the half marks), Cyrillic's combining titlo and signs, Hebrew's points and cantillation,
 * Arabic's harakat and Quranic marks, Syriac's vowel points, the kana voicing marks (`\u30c7` is `\u30c6`), and the
 * variation selectors (an emoji's presentation, not a letter).
 * Not the vowel signs, viramas and tone marks of the Brahmic and Southeast Asian scripts (Devanagari's
 * U+0941 in `\u0915\u0941\u0932`, Thai's tone marks): they are letters of the word, and without them a word is
 * another word (tester30b F5: `\u0915\u0941\u0932` found `\u0915\u0932`, Thai `\u0e44\u0e21\u0e48` found `\u0e44\u0e21\u0e49`).
 */
const DIACRITIC_MARKS =
  /[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u0711\u0730-\u074a\u08d3-\u08e1\u08e3-\u08ff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u3099\u309a\ufe00-\ufe0f\ufe20-\ufe2f\u{e0100}-\u{e01ef}]/gu

/**
 * A word as both indexes hold it: Unicode NFD, its diacritic marks removed ({@link DIACRITIC_MARKS}), each run of
 * Hangul letters (conjoining jamo) composed again (NFC) into its syllables, lower case (`toLowerCase`, not
 * locale-aware). A Hangul syllable is one unit of the word, as a letter is (session 31, tester30c F4: `\ud558*` found
 * `\ud55c\uad6d\uc5b4`, whose first syllable `\ud55c` NFD splits into `\ud558`'s letters and a final one); only
 * Hangul is composed again, so the other scripts' words are as session 30 folded them (a two-part vowel sign, Bengali
 * `\u09cb`, stays in its parts). So case and accents fold in every script (`\u03a3\u0399\u03a3\u03a5\u03a6\u039f\u03a3`,
 * `\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2` are `\u03c3\u03b9\u03c3\u03c5\u03c6\u03bf\u03c2`, `\u0451\u043b\u043a\u0430` is
 * `\u0435\u043b\u043a\u0430`, `\u0130` is `i`, `caf\u00e9` is `cafe`); letters that are no accented form of another
 * stay (`\u00df`, dotless `\u0131`, `\u00f8`, `\u0142`, final `\u03c2`), and so do the vowel signs and tone marks of
 * the Brahmic and Southeast Asian scripts (session 30; the index's words are folded again by the SQLite migration
 * 0013 and the PostgreSQL one 0011; Hangul syllables by 0014 and 0012).
 */
export const foldWord = (w: string): string => {
  const bare = w.normalize("NFD").replace(DIACRITIC_MARKS, "")
  return (HANGUL_JAMO.test(bare) ? bare.replace(HANGUL_JAMO_RUNS, composed) : bare).toLowerCase()
}

/** Conjoining Hangul jamo (U+1100-11FF): the letters NFD splits a Hangul syllable into. */
const HANGUL_JAMO = /[\u1100-\u11ff]/
const HANGUL_JAMO_RUNS = /[\u1100-\u11ff]+/g
const composed = (run: string) => run.normalize("NFC")

/**
 * A word as an index between session 30's fold and session 31's held it: {@link foldWord} without composing the
 * Hangul syllables again (a SQLite index at migration 0013 but not 0014 read without migrating: its query words
 * folded the same way).
 */
export const foldWord0013 = (w: string): string => w.normalize("NFD").replace(DIACRITIC_MARKS, "").toLowerCase()

/**
 * A word as an index between session 29's fold and session 30's held it: every nonspacing mark removed (a SQLite
 * index at migration 0012 but not 0013 read without migrating: its query words folded the same way).
 */
export const foldWordAllMarks = (w: string): string => w.normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase()

/**
 * A word: a run of letters, digits, private-use characters and marks (spacing ones too: Devanagari's `\u093e`, Tamil's
 * vowel signs are inside a word, as FTS5's `unicode61` reads them; session 29's rule split a word there).
 */
const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu

/** A word as session 29's rule read it (spacing marks split words): an index at migration 0012, not 0013. */
const WORD_0012 = /[\p{L}\p{N}\p{Co}\p{Mn}]+/gu

/**
 * The words of a text with their [start, end) offsets (UTF-16 code units):
 * runs of letters, digits and marks, folded ({@link foldWord}); punctuation
 * (`_ . / - :`), spaces, control and format characters separate words, as
 * FTS5's `unicode61` tokenizer splits words. The words of both indexes'
 * documents and queries (SQLite's through {@link ftsFold}).
 */
export const searchWords = (
  text: string,
  fold: (w: string) => string = foldWord,
  word: RegExp = WORD
): Array<{ readonly w: string; readonly start: number; readonly end: number }> => {
  const out: Array<{ w: string; start: number; end: number }> = []
  for (const m of text.matchAll(word)) out.push({ w: fold(m[0]), start: m.index, end: m.index + m[0].length })
  return out
}

/** An ASCII letter or digit (a UTF-16 code unit): what FTS5's `ascii` tokenizer reads as part of a word below U+0080. */
const asciiWordUnit = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

const NON_ASCII = /[^\u0000-\u007f]/g

/**
 * A text (a searched field, or a query's word or phrase) as SQLite's search
 * index is given it, for its FTS5 `ascii` tokenizer (`SEARCH_TOKENIZER`):
 * that tokenizer splits words at every ASCII character but a letter or digit
 * and folds ASCII case, so its words here are exactly {@link searchWords}'
 * words, the PostgreSQL index's. Pure ASCII text is given as it is, with no
 * other work than finding that it is ASCII (first imports are mostly
 * ASCII). Else each run of ASCII letters, digits and non-ASCII characters
 * that holds a non-ASCII one is replaced by its folded words, a space
 * between them (non-ASCII punctuation, symbols, format characters: gone).
 * Snippets are cut from the stored text, never from this.
 */
export const ftsFold = (s: string): string => ftsFoldWith(s, foldWord, WORD)

/**
 * {@link ftsFold} as session 29 made it (migration 0012, not 0013): every nonspacing mark removed
 * ({@link foldWordAllMarks}), spacing marks splitting words. What an index at 0012 holds: its query words are folded
 * so when it is read without migrating, and migration 0013 folds again the fields whose words this changes.
 */
export const ftsFold0012 = (s: string): string => ftsFoldWith(s, foldWordAllMarks, WORD_0012)

/**
 * {@link ftsFold} as session 30 made it (migration 0013, not 0014): Hangul syllables held as their letters
 * ({@link foldWord0013}). What an index at 0013 holds: its query words are folded so when it is read without
 * migrating, and migration 0014 folds again the fields holding Hangul.
 */
export const ftsFold0013 = (s: string): string => ftsFoldWith(s, foldWord0013, WORD)

const ftsFoldWith = (s: string, fold: (w: string) => string, word: RegExp): string => {
  NON_ASCII.lastIndex = 0
  let found = NON_ASCII.exec(s)
  if (found === null) return s
  let out = ""
  let done = 0
  while (found !== null) {
    let a = found.index
    while (a > done && asciiWordUnit(s.charCodeAt(a - 1))) a--
    let b = found.index + 1
    while (b < s.length && (s.charCodeAt(b) >= 0x80 || asciiWordUnit(s.charCodeAt(b)))) b++
    out += s.slice(done, a)
    // The run is bounded by ASCII separators (or the text's ends): its words are the text's words there.
    const words = searchWords(s.slice(a, b), fold, word)
    for (let i = 0; i < words.length; i++) out += (i > 0 ? " " : "") + words[i].w
    done = b
    NON_ASCII.lastIndex = b
    found = NON_ASCII.exec(s)
  }
  return out + s.slice(done)
}

/** The terms a match must contain (those not under a NOT). */
const positiveTerms = (n: QueryNode): Array<Extract<QueryNode, { _tag: "Term" }>> => {
  switch (n._tag) {
    case "Term":
      return [n]
    case "Not":
      return []
    case "And":
    case "Or":
      return n.children.flatMap(positiveTerms)
  }
}

/**
 * Where the query's words (those not negated) occur in `text`: sorted,
 * non-overlapping [start, end) offsets, a phrase as one range from its first
 * word to its last. Matching is the tokenizer's: case- and accent-blind,
 * word by word, the last word of a prefix term by its start.
 */
export const findMatches = (tree: QueryNode, text: string): Array<readonly [number, number]> => {
  const ws = searchWords(text)
  const spans: Array<[number, number]> = []
  for (const term of positiveTerms(tree)) {
    const parts = searchWords(term.text).map((p) => p.w)
    if (parts.length === 0) continue
    for (let i = 0; i + parts.length <= ws.length; i++) {
      let ok = true
      for (let j = 0; j < parts.length && ok; j++) {
        const w = ws[i + j].w
        ok = term.prefix && j === parts.length - 1 ? w.startsWith(parts[j]) : w === parts[j]
      }
      if (ok) spans.push([ws[i].start, ws[i + parts.length - 1].end])
    }
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const out: Array<[number, number]> = []
  for (const s of spans) {
    const last = out[out.length - 1]
    if (last !== undefined && s[0] <= last[1]) last[1] = Math.max(last[1], s[1])
    else out.push([s[0], s[1]])
  }
  return out
}

/**
 * Whether texts (an event's fields, searched together as one document)
 * satisfy the query, with the tokenizer's word matching (as
 * {@link findMatches}): a term is found as its run of words (a prefix term's
 * last word by its start) in any of the texts; AND / OR / NOT as written.
 * How a search over redacted text is checked (the MCP server: a hit whose
 * match lay only inside what redaction removed is not answered, so a search
 * cannot be used to read a redacted value back, one guess at a time).
 */
export const queryMatches = (tree: QueryNode, texts: ReadonlyArray<string>): boolean => {
  const docs = texts.map((t) => searchWords(t).map((w) => w.w))
  const has = (term: Extract<QueryNode, { _tag: "Term" }>): boolean => {
    const parts = searchWords(term.text).map((p) => p.w)
    if (parts.length === 0) return false
    return docs.some((ws) => {
      for (let i = 0; i + parts.length <= ws.length; i++) {
        let ok = true
        for (let j = 0; j < parts.length && ok; j++) {
          ok = term.prefix && j === parts.length - 1 ? ws[i + j].startsWith(parts[j]) : ws[i + j] === parts[j]
        }
        if (ok) return true
      }
      return false
    })
  }
  return queryHolds(tree, has)
}

/**
 * Whether a query holds of a document, given whether each of its terms is found there (`has`): AND / OR / NOT as
 * written. Shared by {@link queryMatches} and the MCP server's match over redacted text (`./visible.ts`).
 */
export const queryHolds = (tree: QueryNode, has: (term: Extract<QueryNode, { _tag: "Term" }>) => boolean): boolean => {
  const evaluate = (n: QueryNode): boolean => {
    switch (n._tag) {
      case "Term":
        return has(n)
      case "Not":
        return !evaluate(n.child)
      case "And":
        return n.children.every(evaluate)
      case "Or":
        return n.children.some(evaluate)
    }
  }
  return evaluate(tree)
}

/**
 * How an index's search words are folded, newest first: `current` ({@link foldWord}), `jamo` (migration 0013, not
 * 0014: {@link foldWord0013}), `all-marks` (0012, not 0013: {@link foldWordAllMarks}, spacing marks splitting words),
 * `unfolded` (before 0012: SQLite's `unicode61 remove_diacritics 2` over the text as written). A SQLite index read
 * without migrating it keeps its fold (`IndexShape.searchFold`); a PostgreSQL index is always `current`.
 */
export type SearchFold = "current" | "jamo" | "all-marks" | "unfolded"

/** What a fold of {@link SearchFold} is: one entry of {@link FOLDS}. */
interface FoldRule {
  /** A query's word or phrase as FTS5 is given it to match that fold's words ({@link CompiledQuery.matchIn}). */
  readonly fts: (text: string) => string
  /** The words of a text as an index of that fold holds them ({@link searchWordsIn}). */
  readonly words: (text: string) => Array<{ readonly w: string; readonly start: number; readonly end: number }>
  /**
   * What a search of such an index gets wrong, and the remedy, said on stderr by `search` and in the MCP server's
   * `search_sessions` note ({@link searchFoldNote}); null for the current fold. Written with escapes (the bundle is
   * ASCII).
   */
  readonly note: string | null
}

const REFOLD = "Run `session-ingest import` (or `session-ingest index migrate`) once to fold them"

/**
 * Each fold's rule. An `unfolded` index's words (FTS5's `unicode61` over the text as written, not made in this module)
 * are matched with the query's words as written and read with the current fold, the nearest this module has: it
 * folds the accents `unicode61` folds and more, and keeps a Hangul syllable whole as `unicode61` does.
 */
const FOLDS: { readonly [F in SearchFold]: FoldRule } = {
  current: { fts: ftsFold, words: (text) => searchWords(text), note: null },
  // session 31, tester30c F4
  jamo: {
    fts: ftsFold0013,
    words: (text) => searchWords(text, foldWord0013, WORD),
    note:
      `this index's search words hold Korean syllables split into their letters (an index from before migration 0014, read without migrating): a Korean word searched by its start also finds the words whose syllable there only begins with the query's last one (\uac00* finds \uac01). ${REFOLD} again.`
  },
  // session 30, tester30b F5
  "all-marks": {
    fts: ftsFold0012,
    words: (text) => searchWords(text, foldWordAllMarks, WORD_0012),
    note:
      `this index's search words do not keep vowel signs and tone marks yet (an index from before migration 0013, read without migrating): in Indic and Thai scripts a word also finds the words that differ from it only in those (\u0915\u0941\u0932 finds \u0915\u0932). ${REFOLD} again.`
  },
  // tester29b F2; the example is Greek
  unfolded: {
    fts: (text) => text,
    words: (text) => searchWords(text),
    note:
      `this index's search words are not folded in every script yet (an index from before migration 0012, read without migrating): accented and non-Latin words match only as written (\u03ba\u03b1\u03bb\u03b7\u03bc\u03b5\u03c1\u03b1 does not find \u03ba\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1). ${REFOLD}.`
  }
}

/** The words of a text as an index of fold `fold` holds them ({@link searchWords} with that fold's word rule and folding). */
export const searchWordsIn = (fold: SearchFold) => FOLDS[fold].words

/**
 * What a search of an index of fold `fold` gets wrong, and what fixes it (a sentence begun in lower case: the CLI's
 * `note: …` on stderr, the MCP `search_sessions` note); null for the current fold.
 */
export const searchFoldNote = (fold: SearchFold): string | null => FOLDS[fold].note
