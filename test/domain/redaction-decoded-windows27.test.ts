/**
 * Session 27: the decoded view (`src/domain/redaction/decoded-views.ts`) is read in windows only, the lines around
 * each reference or escape (`redactDecoded`), not over the whole text a second time. Differential: on many random
 * texts mixing escapes (one, two and three levels), secrets (plain, escaped, in JSON, YAML, prose, URLs, over two
 * lines) and ordinary lines, the windowed result equals the whole view's (`redactDecodedWhole`), for the built-in
 * rules and for a custom pattern, and the default redaction hides every secret of the text.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { redactDecoded, redactDecodedWhole } from "../../src/domain/redaction/decoded-views.js"
import { builtinRules, textRedaction } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, redactionWith } from "../../src/services/Redaction.js"
import { j } from "../support/redaction-asserts.js"
import { prng } from "../support/prng.js"

const builtIn = textRedaction(builtinRules).redact

const PW = j("Wz7", "pass", "Qx91")
const TOK = j("Nest3d", "T0k3n", "99ab")
const GHP = j("ghp_", "AbcdEfgh0123456789abcdefghijKLMNopqr")

/** Encodes `s` once: percent-encoding of the characters of `=&?/:"'-_ `, or HTML references. */
const percent = (s: string) => s.replace(/[=&?/:"' %_-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
const html = (s: string) => s.replace(/[&"'<>]/g, (c) => ({ "&": "&amp;", "\"": "&quot;", "'": "&#39;", "<": "&lt;", ">": "&gt;" })[c]!)

/** The lines a random text is made of: each a function of the PRNG, with the secrets it holds (what must go). */
type Line = (r: ReturnType<typeof prng>) => { readonly text: string; readonly secrets: ReadonlyArray<string> }
const LINES: ReadonlyArray<Line> = [
  () => ({ text: "Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt; and 50% off", secrets: [] }),
  () => ({ text: "https://example.com/search?q=hello%20world&amp;page=2", secrets: [] }),
  () => ({ text: "just some ordinary prose about the build, nothing secret here", secrets: [] }),
  () => ({ text: "", secrets: [] }),
  () => ({ text: `password=${PW}`, secrets: [PW] }),
  () => ({ text: `&quot;password&quot;: &quot;${PW}&quot;,`, secrets: [PW] }),
  () => ({ text: `&#112;&#97;&#115;&#115;word=${PW}`, secrets: [PW] }),
  () => ({ text: `GET /login?next=%2Fcb%3Faccess_token%3D${TOK}`, secrets: [TOK] }),
  () => ({ text: `GET /login?next=%252Fcb%253Faccess_token%253D${TOK}`, secrets: [TOK] }),
  () => ({ text: `q=${percent(percent(`password=${PW}`))}`, secrets: [PW] }),
  () => ({ text: `token ghp%5F${GHP.slice(4)} here`, secrets: [GHP.slice(4)] }),
  () => ({ text: `export API_TOKEN=${GHP}`, secrets: [GHP.slice(4)] }),
  () => ({ text: "password:", secrets: [] }),
  () => ({ text: `  ${j("Oth3r", "Val9")}&amp;x`, secrets: [] }),
  () => ({ text: `db:\n  password: ${PW}%21`, secrets: [PW] }),
  (r) => ({ text: html(`<div data-config='{"api_key": "${TOK}", "n": ${r.int(100)}}'>`), secrets: [TOK] }),
  (r) => ({ text: `row ${r.int(1000)} | bob | md5${"0123456789abcdef".repeat(2)} |`, secrets: ["0123456789abcdef0123456789abcdef"] }),
  () => ({ text: `Das Passwort f&#252;r den Server lautet ${PW}`, secrets: [PW] }),
  () => ({ text: `and the password? ${PW}`, secrets: [PW] }),
  () => ({ text: `The passphrase I chose: correct horse ${PW}`, secrets: [PW] }),
  // lines whose meaning depends on the lines around them: a YAML block scalar, a name on one line and its value on the next
  () => ({ text: "client_secret: |", secrets: [] }),
  () => ({ text: "  continued&amp;block line", secrets: [] }),
  () => ({ text: `  ${j("Bl0ck", "Val", "ue77")}%2Bx`, secrets: [] }),
  () => ({ text: "Authorization:", secrets: [] }),
  () => ({ text: `Bearer ${TOK}&amp;`, secrets: [] }),
  (r) => ({ text: `%${r.pick(["20", "2F", "3D", "25", "ZZ", "7e"])}${r.pick(["", "&amp;", "&#x3D;", "&"])}${r.pick(["secret", "x", "=", "%3D"])}`, secrets: [] })
]

/** A random text of 1 to 12 lines of {@link LINES}, joined by `\n` (sometimes `\r\n`), and the secrets it holds. */
const randomText = (r: ReturnType<typeof prng>) => {
  const n = 1 + r.int(12)
  const texts: Array<string> = []
  const secrets: Array<string> = []
  for (let i = 0; i < n; i++) {
    const l = r.pick(LINES)(r)
    texts.push(l.text)
    secrets.push(...l.secrets)
  }
  return { text: texts.join(r.next() < 0.2 ? "\r\n" : "\n"), secrets }
}

describe("the decoded view read in windows equals the whole view", () => {
  it("built-in rules: 3000 random texts", () => {
    const r = prng(27)
    let windowed = 0
    for (let i = 0; i < 3000; i++) {
      const { text } = randomText(r)
      const base = builtIn(text)
      const whole = redactDecodedWhole(text, base, builtIn)
      expect(redactDecoded(text, base, builtIn), JSON.stringify(text)).toBe(whole)
      if (whole !== base) windowed++
    }
    // the texts do exercise the view (it hides something beyond the text's own redaction in many of them)
    expect(windowed).toBeGreaterThan(300)
  })

  it("a custom pattern's redaction: 1000 random texts", () => {
    const custom = Either.getOrThrow(redactionWith([{ id: "digits", pattern: "[0-9]{3,}" }, { id: "word-secret", pattern: "secret" }]))
    const only = (v: string) => custom.text(v)
    const r = prng(2027)
    for (let i = 0; i < 1000; i++) {
      const { text } = randomText(r)
      const base = only(text)
      expect(redactDecoded(text, base, only), JSON.stringify(text)).toBe(redactDecodedWhole(text, base, only))
    }
  })

  it("the default redaction hides every secret of 2000 random texts, and is idempotent", () => {
    const r = prng(99)
    for (let i = 0; i < 2000; i++) {
      const { text, secrets } = randomText(r)
      const out = defaultRedaction.text(text)
      for (const s of secrets) expect(out, JSON.stringify(text)).not.toContain(s)
      expect(defaultRedaction.text(out), JSON.stringify(text)).toBe(out)
    }
  })

  it("windows: a long text with one escape on one line reads only that line and its neighbours", () => {
    // the line far from the escape holds a secret only the text's own redaction finds; the view's finds the escaped one
    const far = Array.from({ length: 200 }, (_, i) => `line ${i} of ordinary text`).join("\n")
    const text = `${far}\nGET /cb?next=%2Fx%3Faccess_token%3D${TOK}\n${far}`
    const base = builtIn(text)
    const out = redactDecoded(text, base, builtIn)
    expect(out).not.toContain(TOK)
    expect(out).toBe(redactDecodedWhole(text, base, builtIn))
    const calls: Array<number> = []
    redactDecoded(text, base, (v) => {
      calls.push(v.length)
      return builtIn(v)
    })
    expect(calls).toHaveLength(1)
    // the escape's line and one line before and after it
    expect(calls[0]).toBeLessThan(120)
  })
})
