/**
 * Session 28 (closing27's open finding): a percent-encoded UTF-8 sequence of four bytes (a character past the BMP,
 * `%F0%9F%94%91` for U+1F511) is read as its character in the decoded view, as those of two and three bytes are
 * (session 27); an invalid one (an overlong form, a code point past U+10FFFF, a lead byte without its continuation
 * bytes) stays as written. So a known secret that holds such a character, restated URL-encoded, goes whole, and a
 * custom pattern that names the character finds it written as escapes (docs/redaction.md, "decoded view").
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { compileCustomPatterns } from "../../src/domain/redaction/custom.js"
import { makeRedactor, restateText } from "../../src/domain/redaction/redact.js"
import { builtinRules, marker } from "../../src/domain/redaction/rules.js"
import { j } from "../support/redaction-asserts.js"

const KEY = "\u{1F511}"
const KEY_ESC = "%F0%9F%94%91"

describe("four-byte UTF-8 percent escapes in the decoded view", () => {
  it("a known secret with a character past the BMP, restated URL-encoded, goes whole", () => {
    const secret = j("Pa", KEY, "ss99word")
    const known = new Map([[secret, marker("secret-field")]])
    // written as it is: found (the plain form)
    expect(restateText(`login with ${secret} now`, known)).toBe(`login with ${marker("secret-field")} now`)
    // URL-encoded (lower and upper case): the whole escape span goes with it
    expect(restateText(`curl -d pw=Pa${KEY_ESC}ss99word x`, known)).toBe(`curl -d pw=${marker("secret-field")} x`)
    expect(restateText(`curl -d pw=Pa${KEY_ESC.toLowerCase()}ss99word x`, known)).toBe(`curl -d pw=${marker("secret-field")} x`)
    // as a numeric HTML reference past the BMP too
    expect(restateText(`<input value="Pa&#128273;ss99word">`, known)).toBe(`<input value="${marker("secret-field")}">`)
  })
  it("a custom pattern that names the character finds it written as escapes", () => {
    const rules = Either.getOrThrow(compileCustomPatterns([{ id: "vault-key", pattern: `${KEY}[A-Z0-9]{8}` }]))
    const r = makeRedactor([...builtinRules, ...rules])
    expect(r.text(`id ${KEY}AB12CD34 end`)).toBe(`id ${marker("vault-key")} end`)
    expect(r.text(`id=${KEY_ESC}AB12CD34&x=1`)).toBe(`id=${marker("vault-key")}&x=1`)
  })
  it("invalid four-byte sequences stay as written", () => {
    const rules = Either.getOrThrow(compileCustomPatterns([{ id: "vault-key", pattern: `\\x{1F511}[A-Z0-9]{8}|\\x{FFFD}[A-Z0-9]{8}` }]))
    const r = makeRedactor([...builtinRules, ...rules])
    for (
      const t of [
        "id=%F0%8F%94%91AB12CD34 end", // overlong (U+F511 in four bytes)
        "id=%F4%90%80%80AB12CD34 end", // past U+10FFFF
        "id=%F0%9F%94AB12CD34 end", // a continuation byte missing
        "id=%F5%80%80%80AB12CD34 end" // not a lead byte
      ]
    ) expect(r.text(t), t).toBe(t)
  })
})
