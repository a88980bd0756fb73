/**
 * The search query language (issue 14): terms, "exact phrases", prefix*,
 * AND / OR / NOT (or -term), parentheses, compiled into an FTS5 MATCH
 * expression in which every user token is quoted; bad syntax is
 * INVALID_SEARCH_QUERY with the position and a remedy.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { InvalidSearchQuery } from "../../src/domain/errors.js"
import { compileQuery, compileTsQuery, findMatches, lexemeOf, MAX_LEXEME_BYTES, parseQuery, positiveQuery, queryMatches, type QueryNode, quoteLexeme } from "../../src/domain/search/query.js"
import { MAX_TS_POSITION, tsvectorOf } from "../../src/domain/search/text.js"

const fts = (q: string) => {
  const r = compileQuery(q)
  if (Either.isLeft(r)) throw new Error(`did not compile: ${r.left.message}`)
  return r.right.match
}
const bad = (q: string) => {
  const r = compileQuery(q)
  if (Either.isRight(r)) throw new Error(`compiled: ${r.right.match}`)
  expect(r.left).toBeInstanceOf(InvalidSearchQuery)
  expect(r.left.code).toBe("INVALID_SEARCH_QUERY")
  expect(r.left.remediation).toBeTruthy()
  return r.left
}

describe("search query syntax", () => {
  it("terms are ANDed, each quoted", () => {
    expect(fts("foo bar")).toBe(`"foo" AND "bar"`)
    expect(fts("foo AND bar")).toBe(`"foo" AND "bar"`)
  })
  it("exact phrases stay one quoted phrase; embedded quotes are doubled", () => {
    expect(fts(`"hello big world"`)).toBe(`"hello big world"`)
    expect(fts(`say "it's" done`)).toBe(`"say" AND "it's" AND "done"`)
    expect(fts(`a"b`)).toBe(`"a""b"`)
  })
  it("prefix* becomes a quoted prefix query", () => {
    expect(fts("pars*")).toBe(`"pars" *`)
    expect(fts(`"read the"*`)).toBe(`"read the" *`)
  })
  it("OR, NOT and -term", () => {
    expect(fts("foo OR bar")).toBe(`"foo" OR "bar"`)
    expect(fts("foo NOT bar")).toBe(`"foo" NOT "bar"`)
    expect(fts("foo -bar -baz")).toBe(`"foo" NOT ("bar" OR "baz")`)
    expect(fts("(foo OR bar) baz")).toBe(`("foo" OR "bar") AND "baz"`)
    expect(fts("a OR b c")).toBe(`"a" OR ("b" AND "c")`)
  })
  it("lower-case and/or/not and NEAR are plain words; column filters are plain text", () => {
    expect(fts("this and that")).toBe(`"this" AND "and" AND "that"`)
    expect(fts("NEAR(a b)")).toBe(`"NEAR" AND ("a" AND "b")`)
    expect(fts("text:secret")).toBe(`"text:secret"`)
    expect(fts("{body input}: x")).toBe(`"{body" AND "input}:" AND "x"`)
    expect(fts("^start")).toBe(`"^start"`)
  })
  it("an abbreviated hex id (7-39 hex digits, letters and digits) is searched as a prefix", () => {
    expect(fts("a1b2c3d")).toBe(`"a1b2c3d" *`)
    expect(fts("deadbeef")).toBe(`"deadbeef"`)
    expect(fts("0123456789abcdef0123456789abcdef01234567")).toBe(`"0123456789abcdef0123456789abcdef01234567"`)
  })
  it("words with nothing searchable in them are left out when others remain", () => {
    // (`foo - bar` is refused since session 32: a `-` with nothing after it, tester32a F6)
    expect(fts("foo : bar")).toBe(`"foo" AND "bar"`)
    expect(fts("foo -- bar")).toBe(`"foo" AND "bar"`)
  })
  it.each([
    [`"unclosed phrase`, 0],
    ["(foo bar", 0],
    ["foo bar)", 7],
    ["()", 1],
    ["*", 0],
    ["foo *", 4],
    ["OR foo", 0],
    ["foo OR", 4],
    ["foo AND AND bar", 8],
    ["NOT foo", 0],
    ["-foo", 0],
    ["foo OR -bar", 7],
    ["", 0],
    ["   ", 0],
    ["- : ;", 0],
    // an unclosed group points at its `(` wherever it is, empty or not (found by a fresh user: `secret (` said 1)
    ["secret (", 7],
    ["(", 0],
    ["foo ( ", 4],
    ["((", 1],
    ["foo AND (", 8],
    ["foo OR (", 7],
    ["foo NOT (", 8],
    ["foo -(", 5],
    ["secret(", 6],
    ["a (b (c", 5],
    ["((foo)", 0],
    // an empty group points at its `)`; a trailing operator at the operator; a dangling quote at the quote
    ["foo ()", 5],
    ["foo (( ))", 7],
    ["foo (bar OR", 9],
    ["foo AND", 4],
    ["(foo NOT", 5],
    ["foo \"", 4],
    ["(foo \"bar)", 5],
    // a quote at the end of a word (tester20 F10: run as if it were not there); inside a word it is the word's
    ["flaky\"", 5],
    ["flaky\" test", 5],
    ["(flaky\")", 6],
    ["pars\"*", 4],
    ["\"ok phrase\" tail\"", 16]
  ])("%j is INVALID_SEARCH_QUERY at its position", (q, position) => {
    const e = bad(q)
    expect((e.details as { position: number }).position).toBe(position)
    expect(e.message).toContain(`${position + 1}`)
  })
  it.each([
    ["login - flaky", 6, "- needs a term after it"],
    ["a -", 2, "- needs a term after it"],
    ["(a -)", 3, "- needs a term after it"],
    ["-", 0, "- needs a term after it"],
    [")", 0, "this `)` closes no group"],
    [") a", 0, "this `)` closes no group"],
    ["()", 1, "this group is empty"]
  ] as const)("%j: refused at %i saying %s (tester32a F6: a `-` with nothing after it is NOT with nothing after it, never dropped)", (q, position, problem) => {
    const e = bad(q)
    expect((e.details as { position: number }).position).toBe(position)
    expect(e.message).toBe(`The search query does not parse at character ${position + 1}: ${problem}.`)
  })
  it("a very long query is refused, typed", () => {
    bad(Array.from({ length: 300 }, (_, i) => `w${i}`).join(" "))
  })
  it("the limits: 2,000 characters and 64 terms (a phrase is one term) pass, one more is refused saying which (tester23b F11)", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ")
    expect(fts(words(64))).toContain(`"w63"`)
    expect(bad(words(65)).message).toContain("a query may hold at most 64 terms")
    expect(fts(`"${words(100)}" x`)).toContain(`"x"`)
    expect(fts("a".repeat(2000))).toBe(`"${"a".repeat(2000)}"`)
    expect(bad("a".repeat(2001)).message).toContain("a query may be at most 2000 characters long")
  })
  it.each([
    ["a OR -b", 5],
    ["foo OR -bar", 7],
    ["-b OR a", 0],
    ["a OR -b -c", 5],
    ["a OR NOT b", 5],
    ["a OR (-b)", 6]
  ])("%j: the error says a negated word cannot be a side of OR (it did say the query only excludes words: tester23b F11)", (q, position) => {
    const e = bad(q)
    expect((e.details as { position: number }).position).toBe(position)
    expect(e.message).toContain("a negated word cannot be one side of OR")
    expect(e.message).not.toContain("only exclude")
  })
  it.each([["-a"], ["-a -b"], ["-a OR -b"], ["NOT a OR NOT b"], ["(-a -b)"]])("%j only excludes words, and says so", (q) => {
    expect(bad(q).message).toContain("a query cannot only exclude words")
  })
  it("parseQuery exposes the tree (for highlighting)", () => {
    const r = parseQuery(`foo "bar baz" qu* -nope`)
    expect(Either.isRight(r)).toBe(true)
  })
})

describe("negations in groups (found by a fresh user: `a AND (NOT b)` was refused)", () => {
  it("a group of negations beside a word to search for means the same as the negations written out", () => {
    expect(fts("prompt AND (NOT mail)")).toBe(fts("prompt AND NOT mail"))
    expect(fts("prompt (-mail)")).toBe(fts("prompt -mail"))
    expect(fts("prompt (-mail -key)")).toBe(fts("prompt -mail -key"))
    expect(fts("(NOT mail) prompt")).toBe(`"prompt" NOT "mail"`)
    expect(fts("(a OR b) (-c)")).toBe(`("a" OR "b") NOT "c"`)
  })
  it("NOT x OR NOT y in a group is NOT (x AND y): a document is left out only when it holds both", () => {
    expect(fts("prompt (NOT mail OR NOT key)")).toBe(`"prompt" NOT ("mail" AND "key")`)
    expect(fts("prompt (-mail OR -key)")).toBe(`"prompt" NOT ("mail" AND "key")`)
    const tree = Either.getOrThrow(compileQuery("prompt (NOT mail OR NOT key)")).tree
    expect(queryMatches(tree, ["prompt mail"])).toBe(true)
    expect(queryMatches(tree, ["prompt key"])).toBe(true)
    expect(queryMatches(tree, ["prompt mail key"])).toBe(false)
    expect(queryMatches(Either.getOrThrow(compileQuery("prompt AND (NOT mail)")).tree, ["prompt mail"])).toBe(false)
  })
  it("the PostgreSQL tsquery of the same queries", () => {
    const ts = (q: string) => Either.getOrThrow(compileTsQuery(q)).tsquery
    expect(ts("prompt AND (NOT mail)")).toBe(ts("prompt AND NOT mail"))
    expect(ts("prompt (NOT mail OR NOT key)")).toBe(`('prompt' & !('mail' & 'key'))`)
  })
  it.each([
    ["(NOT mail)", 1],
    ["(-mail -key)", 1],
    ["(NOT a OR NOT b)", 1],
    ["((-a))", 2],
    ["-(-a) b", 0],
    ["a OR (-b)", 6],
    ["(a OR -b) c", 6]
  ])("%j: still INVALID_SEARCH_QUERY (nothing to search for, a double negation, a negation as a side of OR) at %i", (q, position) => {
    const e = bad(q)
    expect((e.details as { position: number }).position).toBe(position)
  })
})

describe("matches for snippets", () => {
  const q = (s: string) => Either.getOrThrow(parseQuery(s))
  it("finds terms case- and accent-insensitively on word boundaries, prefixes, and phrases across punctuation", () => {
    const text = "Edit src/layers/index/sqlite.ts: call parseConfig, Café ENOENT"
    const at = (s: string) => findMatches(q(s), text).map(([a, b]) => text.slice(a, b))
    expect(at("sqlite")).toEqual(["sqlite"])
    expect(at("src/layers/index/sqlite.ts")).toEqual(["src/layers/index/sqlite.ts"])
    expect(at("parseconfig")).toEqual(["parseConfig"])
    expect(at("pars*")).toEqual(["parseConfig"])
    expect(at("cafe enoent")).toEqual(["Café", "ENOENT"])
    expect(at("dex")).toEqual([])
    expect(at("sqlite -nothing")).toEqual(["sqlite"])
  })
})

describe("queryMatches: whether texts satisfy a query, as the tokenizer sees words", () => {
  const tree = (q: string) => Either.getOrThrow(compileQuery(q)).tree
  const doc = ["Fix the parse_config bug in src/app.ts", "Bash npm test -- auth"]
  it("terms, phrases and prefixes, across the fields", () => {
    expect(queryMatches(tree("parse"), doc)).toBe(true)
    expect(queryMatches(tree("\"app ts\""), doc)).toBe(true)
    expect(queryMatches(tree("\"ts app\""), doc)).toBe(false)
    expect(queryMatches(tree("conf*"), doc)).toBe(true)
    expect(queryMatches(tree("npm"), doc)).toBe(true)
    expect(queryMatches(tree("cargo"), doc)).toBe(false)
  })
  it("AND, OR and NOT as written (not just any word found)", () => {
    expect(queryMatches(tree("bug AND cargo"), doc)).toBe(false)
    expect(queryMatches(tree("bug OR cargo"), doc)).toBe(true)
    expect(queryMatches(tree("bug -auth"), doc)).toBe(false)
    expect(queryMatches(tree("bug -cargo"), doc)).toBe(true)
    expect(queryMatches(tree("ghpab* OR fix"), ["[REDACTED:github-token] fix"])).toBe(true)
    expect(queryMatches(tree("ghpab*"), ["[REDACTED:github-token] fix"])).toBe(false)
  })
})

describe("PostgreSQL: the query as tsquery, a document as tsvector (issue 17)", () => {
  const ts = (q: string) => {
    const r = compileTsQuery(q)
    if (Either.isLeft(r)) throw new Error(`did not compile: ${r.left.message}`)
    return r.right.tsquery
  }
  it("terms AND, OR, NOT; every word a quoted lexeme folded as the index folds it", () => {
    expect(ts("Foo bar")).toBe(`('foo' & 'bar')`)
    expect(ts("foo OR bar")).toBe(`('foo' | 'bar')`)
    expect(ts("foo -bar NOT baz")).toBe(`('foo' & !'bar' & !'baz')`)
    expect(ts("a OR b c")).toBe(`('a' | ('b' & 'c'))`)
    expect(ts("Café")).toBe(`'cafe'`)
  })
  it("phrases and words with punctuation are <-> chains; a prefix is :* on the last word", () => {
    expect(ts(`"hello big world"`)).toBe(`('hello' <-> 'big' <-> 'world')`)
    expect(ts("src/layers/index/sqlite.ts")).toBe(`('src' <-> 'layers' <-> 'index' <-> 'sqlite' <-> 'ts')`)
    expect(ts("pars*")).toBe(`'pars':*`)
    expect(ts(`"read the"*`)).toBe(`('read' <-> 'the':*)`)
    expect(ts("a1b2c3d")).toBe(`'a1b2c3d':*`)
    expect(ts("foo -\"x y\"")).toBe(`('foo' & !('x' <-> 'y'))`)
  })
  it("tsquery syntax in the query is words or nothing, never an operator; quotes and backslashes never escape the lexeme", () => {
    expect(ts("a|b")).toBe(`('a' <-> 'b')`)
    expect(ts("foo & !bar")).toBe(`('foo' & 'bar')`)
    expect(ts("x:*")).toBe(`'x':*`)
    expect(ts("it's")).toBe(`('it' <-> 's')`)
    expect(ts("'; DROP TABLE events; --")).toBe(`('drop' & 'table' & 'events')`)
    expect(ts("a\\'b")).toBe(`('a' <-> 'b')`)
    expect(quoteLexeme("it's\\")).toBe(`'it''s\\\\'`)
  })
  it("bad syntax is the same INVALID_SEARCH_QUERY as for SQLite", () => {
    for (const q of [`"open`, "(a", "a OR", "-a", ""]) {
      const r = compileTsQuery(q)
      expect(Either.isLeft(r) && r.left.code, q).toBe("INVALID_SEARCH_QUERY")
    }
  })
  it("the sieve: a looser tsquery for the planner, phrases as their words, NOTs left out; null when the same or when it would match everything", () => {
    const sieve = (q: string) => {
      const r = compileTsQuery(q)
      if (Either.isLeft(r)) throw new Error(`did not compile: ${r.left.message}`)
      return r.right.sieve
    }
    expect(sieve(`"build session"`)).toBe(`('build' & 'session')`)
    expect(sieve(`"no such fi"*`)).toBe(`('no' & 'such' & 'fi':*)`)
    expect(sieve("app.config.json")).toBe(`('app' & 'config' & 'json')`)
    expect(sieve("(alpha OR beta) -gamma")).toBe(`(('alpha' | 'beta'))`)
    expect(sieve(`alpha -"beta gamma" NOT delta`)).toBe(`('alpha')`)
    expect(sieve(`alpha OR "beta gamma"`)).toBe(`('alpha' | ('beta' & 'gamma'))`)
    // the same as the query: no sieve (a query of NOTs alone, which would have none, does not parse)
    for (const q of ["alpha", "alpha beta", "alpha OR beta", "alph*", "(alpha OR beta) gamma"]) expect(sieve(q), q).toBeNull()
  })
  it("a word longer than PostgreSQL keeps is cut at a character boundary, the same in queries and documents", () => {
    const long = "字".repeat(1000)
    const lexeme = lexemeOf(long)
    expect(new TextEncoder().encode(lexeme).length).toBeLessThanOrEqual(MAX_LEXEME_BYTES)
    expect(lexeme).toBe("字".repeat(Math.floor(MAX_LEXEME_BYTES / 3)))
    expect(ts(long)).toBe(`'${lexeme}'`)
    expect(tsvectorOf([long])).toBe(`'${lexeme}':1`)
    expect(lexemeOf("short")).toBe("short")
  })
  it("a document's tsvector: the words of each field with positions, a gap between fields, positions capped", () => {
    expect(tsvectorOf(["Parse_config.json failed", "Edit\n/src/a.ts"])).toBe(`'parse':1 'config':2 'json':3 'failed':4 'edit':6 'src':7 'a':8 'ts':9`)
    expect(tsvectorOf(["x x", ""])).toBe(`'x':1,2`)
    expect(tsvectorOf(["", ""])).toBe("")
    const many = tsvectorOf([Array.from({ length: MAX_TS_POSITION + 10 }, (_, i) => (i % 2 === 0 ? "w" : `u${i}`)).join(" ")])
    expect(many.includes(` 'u${MAX_TS_POSITION + 8}':${MAX_TS_POSITION}`)).toBe(true)
    expect(many.includes(` 'u${MAX_TS_POSITION - 2}':${MAX_TS_POSITION - 1} `)).toBe(true)
    const w = /'w':([\d,]+)/.exec(many)![1].split(",")
    expect(w.length).toBe(256)
  })
})

describe("positiveQuery (the query without its negations, for the redacted search)", () => {
  const tree = (q: string) => Either.getOrThrow(parseQuery(q))
  const pos = (q: string) => positiveQuery(tree(q))
  /** A tree without positions and negations: what the positive query must parse to. */
  const shape = (n: QueryNode): unknown =>
    n._tag === "Term"
      ? [n.text, n.prefix]
      : n._tag === "Not"
      ? null
      : ((kept) => (kept.length === 1 ? kept[0] : [n._tag, kept]))(n.children.map(shape).filter((c) => c !== null))
  it("leaves out -word, NOT word, negated prefixes, phrases and groups", () => {
    expect(pos("postgres -S3cr3t")).toEqual({ query: "postgres", hasNegation: true })
    expect(pos("postgres NOT S3*")).toEqual({ query: "postgres", hasNegation: true })
    expect(pos("postgres -\"admin S3\"*")).toEqual({ query: "postgres", hasNegation: true })
    expect(pos("(postgres OR prod) -(admin S3*)")).toEqual({ query: "(postgres OR prod)", hasNegation: true })
    expect(pos("(postgres -S3*) OR \"a.b c\"")).toEqual({ query: "postgres OR \"a.b c\"", hasNegation: true })
    expect(pos("deploy 9c4e1a7 -x")).toEqual({ query: "deploy 9c4e1a7*", hasNegation: true })
    expect(pos("\"AND\" foo")).toEqual({ query: "\"AND\" foo", hasNegation: false })
  })
  it("parses back to the same terms, prefixes, ANDs and ORs", () => {
    for (const q of ["a (b OR c*) -d", "\"x y\"* OR z -w", "AND_x \"NOT\" y", "(a OR b) (c OR \"d\"\"e\") NOT (f g)", "deploy 9c4e1a7 \"9c4e1a7\"", "x \"it's\" -\"no\""]) {
      const p = pos(q).query
      expect(shape(tree(p)), `${q} -> ${p}`).toEqual(shape(tree(q)))
    }
  })
})
