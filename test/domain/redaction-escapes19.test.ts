/**
 * tester19 F2: a key right after a backslash escape (`\u0027sk-ant-…`, `\u003cghp_…`, `\u0022AKIA…`, `a\u002Bghp_…`,
 * `?a=1\u0026ghp_…`, `\x3dghp_…`) was kept whole: the escape ends in a hex digit or a letter, which read as the first
 * character of a longer word. Go's encoding/json escapes `< > &` as `\u003c \u003e \u0026`, .NET's System.Text.Json
 * also `" ' +` as `\u0022 \u0027 \u002B`, Rails `< > &`: a tool's JSON output carries such escapes next to keys. Every
 * rule takes an escape before (and after) a key as a boundary; ordinary escapes and words around them stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { escapeEndsAt, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction

/** The escapes an encoder writes before (and after) a key: JSON `\uXXXX` (both cases of hex), C/Python `\xXX`, JSON's short ones. */
const ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ["\\u0027", "\\u0027"], ["\\u0022", "\\u0022"], ["\\u003c", "\\u003e"], ["\\u003C", "\\u003E"], ["a\\u002B", "\\u002b"],
  ["?a=1\\u0026", "\\u0026b=2"], ["\\x3d", "\\x27"], ["\\x22", "\\x22"], ["\\n", "\\t"], ["\\b", "\\f"], ["%3D", "%26"]
]

describe("tester19 F2: a key after an escape", () => {
  it("every key shape goes after each escape form, and before it, the escapes staying", () => {
    for (const [id, samples] of Object.entries(secretSamples())) {
      if (id === "private-key") continue
      for (const key of samples) {
        for (const [before, after] of ESCAPES) {
          const text = `x ${before}${key}${after} y`
          // (`%` is an email's own character: `%3Dalice@…` goes whole)
          const out = id === "email" && before.startsWith("%") ? gone(text, key, after) : gone(text, key, before, after)
          expect(out, text).toContain(marker(id))
          // JSON text held in a JSON string (the escape's backslash doubled) too
          gone(inString(text), key)
        }
      }
    }
  })

  it("the tester's cases, as a Go or .NET program prints them", () => {
    const K = j("sk-ant-api03-", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zAb2dEf5hIj8lMn1pQr4tUv7xYz0bCd3fGh6jKl9nOp2rSt5vWx8zAb1dEf4h-Ab3dEfAA")
    const G = j("ghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    const A = j("AKIA", "Q3EGRTWKNZ7PLM4X")
    expect(r.text(`{"msg":"set \\u0027${K}\\u0027"}`)).toBe(`{"msg":"set \\u0027${marker("anthropic-key")}\\u0027"}`)
    expect(r.text(`{"b":"\\u003ccode\\u003e${G}\\u003c/code\\u003e"}`)).toBe(`{"b":"\\u003ccode\\u003e${marker("github-token")}\\u003c/code\\u003e"}`)
    expect(r.text(`a) \\u0022${A}\\u0022`)).toBe(`a) \\u0022${marker("aws-access-key")}\\u0022`)
    expect(r.text(`a\\u002B${G}`)).toBe(`a\\u002B${marker("github-token")}`)
    expect(r.text(`?a=1\\u0026${G}`)).toBe(`?a=1\\u0026${marker("github-token")}`)
    expect(r.text(`\\x3d${G}`)).toBe(`\\x3d${marker("github-token")}`)
  })

  it("emails, home paths and credentials after an escape", () => {
    expect(r.text("c) \\u0022bob@example.com\\u0022")).toBe(`c) \\u0022${marker("email")}\\u0022`)
    expect(r.text("\\x27alice.s@mail.example.org\\x27")).toBe(`\\x27${marker("email")}\\x27`)
    expect(r.text("{\"cwd\":\"\\u0022/home/alice/x\\u0022\"}")).toBe("{\"cwd\":\"\\u0022~/x\\u0022\"}")
    expect(r.text("\\u0027/Users/bob/src\\u0027")).toBe("\\u0027~/src\\u0027")
    expect(r.text("open %20/home/carol/notes")).toBe("open %20~/notes")
    expect(r.text("\\u0027postgres://app:Pw0rd1234@db/x\\u0027")).toBe(`\\u0027postgres://app:${marker("url-credentials")}@db/x\\u0027`)
    // a bare value ends at an escaped quote (.NET, Go): the quote stays
    expect(r.text("sh -c \\u0022API_KEY=abc123def456 make\\u0022")).toBe(`sh -c \\u0022API_KEY=${marker("secret-assignment")} make\\u0022`)
    expect(r.text("\\u0022API_KEY=abc123def456\\u0022")).toBe(`\\u0022API_KEY=${marker("secret-assignment")}\\u0022`)
    expect(r.text("\\u0027mysql -u root -pS3cret db\\u0027")).toBe(`\\u0027mysql -u root -p${marker("cli-password")} db\\u0027`)
    expect(r.text("\\u0022--password=Hunter22\\u0022")).toBe(`\\u0022--password=${marker("cli-secret-option")}\\u0022`)
  })

  it("a token written with escapes after an escaped quote (escaped-token)", () => {
    const body = "abc123DEF456ghi789JKL012mno"
    expect(r.text(`\\u0022\\u0073k-proj-${body}\\u0022`)).toBe(`\\u0022${marker("escaped-token")}\\u0022`)
  })

  it("ordinary escapes and words next to them stay", () => {
    stays("caf\\u00e9 and na\\u00efve")
    stays("\\u0027sk-short\\u0027 and \\u003cghp_short\\u003e")
    stays("\\u0022AKIA-not-a-key\\u0022 \\x41KIAx")
    stays("\\u0022git@github.com:org/repo.git\\u0022")
    stays("\\u0022/home/\\u0022 and \\u0022icon@2x.png\\u0022")
    // `\u00` alone is no escape
    stays(j("\\u00", "ghp_x"))
  })

  it("escapeEndsAt: which escapes end where", () => {
    const s = "a\\u0027B\\x3dC\\nD\\u00zz"
    expect(escapeEndsAt(s, s.indexOf("B"))).toBe(true)
    expect(escapeEndsAt(s, s.indexOf("C"))).toBe(true)
    expect(escapeEndsAt(s, s.indexOf("D"))).toBe(true)
    expect(escapeEndsAt(s, s.indexOf("B") - 1)).toBe(false)
    expect(escapeEndsAt(s, s.length)).toBe(false)
    expect(escapeEndsAt(s, 0)).toBe(false)
  })
})
