/**
 * Session 26: redaction through decoded views. A secret written with HTML character references (tester25a F2: a
 * page's config JSON in a `data-` attribute, `&quot;password&quot;: &quot;…&quot;`) or percent-encoded (tester25a
 * F10: a token inside a URL-encoded `next=` / `redirect_uri=` parameter; tester25b F5: a known secret restated as
 * `Qx7pass%2DWord_88`) is read as a browser or a server reads it: the rules and the known-secret search see the
 * decoded text, and what they hide there goes from the text whole, with the references and escapes inside it. What
 * they keep stays as written (`&amp;` in prose, `%20` in a URL).
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { restateText, sessionRedactor } from "../../src/domain/redaction/redact.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { j, sessionEvent, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
// built at run time so that no secret scanner flags this file
const PW = j("HtmlEnt1", "tyPw")
const KEY = j("HtmlApiK3y", "0123456789")
const TOK = j("Nest3dUrl", "T0k3n99")
const GHP = j("ghp_", "AbcdEfgh0123456789abcdefghijKLMNopqr")

/** `text` redacted: none of `secret` left, each of `keep` there, and redacting again changes nothing. */
const hidden = (text: string, secret: string, ...keep: Array<string>) => {
  const out = r.text(text)
  expect(out, text).not.toContain(secret)
  expect(out, text).not.toContain(secret.slice(0, 6))
  expect(out, text).toContain("[REDACTED:")
  for (const k of keep) expect(out, text).toContain(k)
  expect(r.text(out), `idempotent: ${text}`).toBe(out)
  return out
}

describe("tester25a F2: a secret in HTML-escaped JSON", () => {
  it("the tester's rows: the value goes, the references around it stay as written", () => {
    expect(r.text(`&quot;password&quot;: &quot;${PW}&quot;`)).toBe(`&quot;password&quot;: &quot;${F}&quot;`)
    expect(r.text(`{&quot;api_key&quot;:&quot;${KEY}&quot;}`)).toBe(`{&quot;api_key&quot;:&quot;${F}&quot;}`)
  })

  it("every way HTML writes a quote, in an attribute and in a page", () => {
    for (const q of ["&quot;", "&#34;", "&#034;", "&#x22;", "&#X22;", "&QUOT;"]) {
      hidden(`<div data-config="{${q}db_password${q}: ${q}${PW}${q}, ${q}user${q}: ${q}bob${q}}">`, PW, `${q}user${q}: ${q}bob${q}`, "data-config")
    }
    for (const q of ["&#39;", "&#x27;", "&apos;"]) hidden(`{${q}client_secret${q}: ${q}${PW}${q}}`, PW, `${q}client_secret${q}`)
    // a secret whose own characters are written as references goes whole, with them
    const out = hidden(`&quot;password&quot;: &quot;Html&amp;Ent1ty&lt;Pw&quot;`, "Ent1ty")
    expect(out).toBe(`&quot;password&quot;: &quot;${F}&quot;`)
    // a header's value in escaped markup, a name/value pair
    hidden(`&lt;pre&gt;{&quot;Authorization&quot;: &quot;Bearer ${KEY}&quot;}&lt;/pre&gt;`, KEY, "&lt;pre&gt;", "&lt;/pre&gt;")
    hidden(`[&quot;X-Api-Key&quot;, &quot;${KEY}&quot;]`, KEY, "X-Api-Key")
  })
})

describe("tester25a F10: a token in a URL-encoded URL parameter", () => {
  it("the tester's row: the token goes, the escapes before it stay", () => {
    expect(r.text(`https://a.example.com/login?next=%2Fcb%3Faccess_token%3D${TOK}`)).toBe(
      `https://a.example.com/login?next=%2Fcb%3Faccess_token%3D${marker("url-query-secret")}`
    )
  })

  it("redirect_uri, lower-case escapes, a JSON body in a query, a token after &amp;", () => {
    hidden(`https://sso.example.com/authorize?client_id=app&redirect_uri=https%3A%2F%2Fb.example%2Fcb%3Ftoken%3D${GHP}&state=1`, GHP.slice(4), "client_id=app", "&state=1")
    hidden(`https://x.example/a?next=%2fcb%3fapi_key%3d${TOK}%26x%3d1`, TOK, "%26x%3d1")
    hidden(`GET /hook?data=%7B%22password%22%3A%22${PW}%22%7D`, PW, "%7B%22password%22%3A%22")
    hidden(`<a href="/login?next=%2Fcb%3Fx%3D1%26access_token%3D${TOK}&amp;lang=en">`, TOK, "&amp;lang=en")
  })
})

describe("innocents: what no rule hides in the decoded view stays exactly as written", () => {
  it("prose, markup and URLs with references and escapes", () => {
    for (const t of [
      "Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt; &quot;quoted&quot; &#39;single&#39; &nbsp;&copy; 2026",
      "https://example.com/search?q=hello%20world&amp;page=2&amp;sort=desc",
      "https://example.com/a%20b/c%2Fd?next=%2Fapp%2Fdashboard%3Ftab%3Dsettings%26page%3D2",
      "50% off, 100%% sure, %s and %d, 0x%02X, %ZZ, %",
      "&quot;user&quot;: &quot;bob&quot;, &quot;count&quot;: 3, &quot;token_count&quot;: 1200",
      "&#1234567890; &#xFFFFFFF; &#0; &#xD800; &unknown; &; &#; &#x;",
      "echo a && echo b & wait; printf '%20s' x",
      "redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&response_type=code"
    ]) stays(t)
  })
})

describe("tester25b F5: a known secret restated percent-encoded or with references", () => {
  const V = j("Qx7pass", "-Word_88")
  const known = new Map([[V, F]])

  it("restateText: every encoded form goes whole, as a token", () => {
    expect(restateText("and url-enc Qx7pass%2DWord_88 ok", known)).toBe(`and url-enc ${F} ok`)
    expect(restateText("x=Qx7pass%2dWord%5F88&y=1", known)).toBe(`x=${F}&y=1`)
    expect(restateText("Qx7pass&#45;Word&lowbar;88", known)).toBe(F)
    expect(restateText("a %22Qx7pass-Word_88%22 b", known)).toBe(`a %22${F}%22 b`)
    // not a token of its own (joined to a word) stays, and other escapes stay as written
    expect(restateText("Qx7pass%2DWord_88x", known)).toBe("Qx7pass%2DWord_88x")
    expect(restateText("a%20b &amp; c", known)).toBe("a%20b &amp; c")
  })

  it("a session: the prompt that states it encoded loses it once a tool input names it", () => {
    const sr = sessionRedactor(r)
    const events = [
      sessionEvent(1, { role: "user", text: `use '${V}'. and url-enc Qx7pass%2DWord_88 or Qx7pass&#45;Word_88` }),
      sessionEvent(2, { kind: "tool-call", toolInput: { env: { API_TOKEN: V } }, text: JSON.stringify({ env: { API_TOKEN: V } }) })
    ]
    for (const e of events) sr.see(e)
    const first = sr.event(events[0])
    expect(first.text).toBe(`use '${F}'. and url-enc ${F} or ${F}`)
  })

  it("a value a rule caught in the decoded view is known to the session: a later plain restatement goes too", () => {
    const sr = sessionRedactor(r)
    const said = sr.event(sessionEvent(1, { kind: "tool-result", text: `<div data-x="{&quot;password&quot;: &quot;${PW}&quot;}">` }))
    expect(said.text).toBe(`<div data-x="{&quot;password&quot;: &quot;${F}&quot;}">`)
    expect(sr.event(sessionEvent(2, { text: `I logged in with ${PW} ok` })).text).toBe(`I logged in with ${F} ok`)
    const q = marker("url-query-secret")
    expect(sr.event(sessionEvent(3, { text: `next=%2Fcb%3Faccess_token%3D${TOK} then ${TOK}` })).text).toBe(`next=%2Fcb%3Faccess_token%3D${q} then ${q}`)
  })

  it("the title: the encoded form goes too", () => {
    expect(r.title("and url-enc Qx7pass%2DWord_88 later", known)).toBe(`and url-enc ${F} later`)
  })
})
