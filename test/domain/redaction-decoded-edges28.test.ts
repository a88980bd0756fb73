/**
 * Session 28 (closing27's open finding): a reference or a percent escape between a secret's name and the secret
 * (`password:&#160;X`), or around the secret (`&quot;X&quot;`, `X&nbsp;tail`), was taken in by the rules read as
 * written (`&#160` as the value, its `;` left; `%20` hidden with the secret), so the secret was hidden but the text
 * around it mangled (`password:[REDACTED:secret-field];[REDACTED:secret-field]`). The output must keep every
 * non-secret character as written, as `password: X` keeps its space: the decoded view reads the blank or the quote
 * and hides the secret alone (docs/redaction.md, "decoded view").
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { j } from "../support/redaction-asserts.js"

const r = defaultRedaction
const FIELD = marker("secret-field")

describe("a reference or an escape between a secret's name and the secret", () => {
  const v = j("Xq7pLm", "92vR")
  it("the plain form: the space stays, the secret goes", () => {
    expect(r.text(`password: ${v} tail`)).toBe(`password: ${FIELD} tail`)
  })
  // Each reads as a blank in the decoded view (a no-break space, a space, a tab, an em space).
  const blanks = ["&#160;", "&#xA0;", "&#x00a0;", "&nbsp;", "&#32;", "&#x20;", "%20", "%09", "%C2%A0", "&#8195;", "&#160;&#160;", "%20&nbsp;"]
  for (const b of blanks) {
    it(`password:${b}secret keeps ${b}`, () => {
      expect(r.text(`password:${b}${v} tail`)).toBe(`password:${b}${FIELD} tail`)
      expect(r.text(`see: password:${b}${v}`)).toBe(`see: password:${b}${FIELD}`)
    })
  }
  it("a reference after the secret stays", () => {
    expect(r.text(`password:${v}&#160;tail`)).toBe(`password:${FIELD}&#160;tail`)
    expect(r.text(`password: ${v}&nbsp;tail`)).toBe(`password: ${FIELD}&nbsp;tail`)
    // (`X%20tail` stays one value: in a URL-encoded value `%20` is a space inside it)
  })
  it("quotes written as references or escapes stay around the secret", () => {
    const out = r.text(`password: &quot;${v}&quot; tail`)
    expect(out).toMatch(/^password: &quot;\[REDACTED:[a-z-]+\]&quot; tail$/)
    expect(r.text(`password=%22${v}%22 x`)).toBe(`password=%22${marker("secret-assignment")}%22 x`)
    expect(r.text(`password=&#39;${v}&#39; x`)).toMatch(/^password=&#39;\[REDACTED:[a-z-]+\]&#39; x$/)
  })
  it("other rules: a vendor token after a key's name", () => {
    const t = j("ghp_", "a".repeat(36))
    expect(r.text(`token:&#160;${t} x`)).toBe(`token:&#160;${marker("github-token")} x`)
  })
  it("a secret's own characters written as escapes still go whole", () => {
    const w = j("Qx7pass", "%2DWord_88")
    expect(r.text(`password: ${w} tail`)).toBe(`password: ${FIELD} tail`)
    const e = j("Ab3%3B", "cd9Ef")
    expect(r.text(`password=${e} x`)).not.toContain("cd9Ef")
  })
})
