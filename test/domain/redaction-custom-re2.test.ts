/**
 * Custom redaction patterns run on a linear-time engine (RE2, the `re2js`
 * package): what the config file gives is checked and compiled as RE2
 * (JavaScript escapes translated), shapes that backtrack catastrophically on
 * other engines are refused as before, and the rule redacts by RE2's
 * matches, positions exact in UTF-16 text (astral characters too).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { compileCustomPatterns } from "../../src/domain/redaction/custom.js"
import { marker, redactText } from "../../src/domain/redaction/rules.js"
import { redactionWith } from "../../src/services/Redaction.js"

const compile = (pattern: string) => compileCustomPatterns([{ id: "acme", pattern }])
const refused = (pattern: string) => {
  const r = compile(pattern)
  expect(Either.isLeft(r), pattern).toBe(true)
  return Either.isLeft(r) ? r.left : undefined!
}
const redact = (pattern: string, s: string) => {
  const r = compile(pattern)
  if (Either.isLeft(r)) throw new Error(`${pattern}: ${r.left.message}`)
  return redactText(r.right, s)
}

describe("custom redaction patterns: RE2, linear time", () => {
  it("bounded nested repeats and repeated groups holding a star are refused (found by a fresh user)", () => {
    for (const p of ["(?:a{1,30}){1,30}$", "(?:a{2,40}){2,40}", "(?:.*a){20}", "(?:.*a){2}", "(?:\\w+x){3}", "(?:[a-z]|[0-9]){5}$", "x{1,1000}y{1,1000}"]) {
      const e = refused(p)
      expect(e.code).toBe("INVALID_ARGUMENT")
      expect(e.remediation).toContain("RE2")
    }
  })
  it("lookarounds and backreferences are refused with a remedy naming RE2 syntax", () => {
    for (const p of ["(?=a)b", "a(?!b)", "(?<=k)x", "(?<!k)x", "(a)\\1", "(?<q>['\"])x\\k<q>"]) {
      const e = refused(p)
      expect(e.message, p).toMatch(/lookaround|backreference/)
      expect(e.remediation).toContain("RE2")
    }
  })
  it("ordinary patterns are accepted and redact as before", () => {
    expect(redact("ACME-[0-9]{8}", "a ACME-12345678 b ACME-1")).toBe(`a ${marker("acme")} b ACME-1`)
    expect(redact("(?:[0-9]{3}-){2}[0-9]{4}", "call 555-123-4567 now")).toBe(`call ${marker("acme")} now`)
    expect(redact("TICKET-\\d{4,}", "TICKET-123 TICKET-12345")).toBe(`TICKET-123 ${marker("acme")}`)
    expect(redact("(?<k>tok)_[a-z]+", "x tok_abc y")).toBe(`x ${marker("acme")} y`)
  })
  it("RE2 syntax: inline flags and \\x{…} work (V8 would not compile them); JavaScript \\u escapes are translated", () => {
    expect(redact("(?i)acme-\\d{4}", "Acme-1234 ACME-5678")).toBe(`${marker("acme")} ${marker("acme")}`)
    expect(redact("\\x{1F511}[0-9]+", "key \u{1F511}42!")).toBe(`key ${marker("acme")}!`)
    expect(redact("\\u{1F511}[0-9]+", "key \u{1F511}42!")).toBe(`key ${marker("acme")}!`)
    expect(redact("caf\\u00e9-[0-9]+", "café-12")).toBe(marker("acme"))
  })
  it("positions are exact around astral characters, accents and lone surrogates, on a long string", () => {
    const unit = "\u{1F600}é ACME-12345678 \uD800 z "
    const s = unit.repeat(5000)
    const want = "\u{1F600}é " + marker("acme") + " \uD800 z "
    expect(redact("ACME-[0-9]{8}", s)).toBe(want.repeat(5000))
    // a character class and `.` take a whole astral character, not half of one
    expect(redact("<.>", "<\u{1F600}> <ab>")).toBe(`${marker("acme")} <ab>`)
    expect(redact("[\\x{1F600}-\\x{1F64F}]+", "hi \u{1F600}\u{1F601} there")).toBe(`hi ${marker("acme")} there`)
  })
  it("shapes that backtrack without end on V8 but pass the shape check run in linear time here", () => {
    // adjacent unbounded quantifiers: polynomial of high degree on a backtracking engine, one pass on RE2
    const many = ".*a.*a.*a.*a.*a.*a.*a.*a.*a.*a!"
    const s = "a".repeat(200_000)
    expect(redact(many, s)).toBe(s)
    expect(redact(many, s + "!")).toBe(marker("acme"))
    // overlapping adjacent quantifiers
    expect(redact("\\w*\\d*\\w*!", "1".repeat(100_000) + "?")).toBe("1".repeat(100_000) + "?")
  })
  it("the custom rule is applied before the built-in rules, through the service", () => {
    const r = redactionWith([{ id: "acme", pattern: "(?i)acme_[a-z0-9]{6}" }])
    expect(Either.isRight(r)).toBe(true)
    if (Either.isRight(r)) expect(r.right.text("ACME_abc123 a@b.io")).toBe(`${marker("acme")} ${marker("email")}`)
  })
})
