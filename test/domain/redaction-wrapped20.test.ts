/**
 * Session 20 (tester19 F7's rest): a key wrapped over lines kept its later lines in clear (an Anthropic key printed
 * at 40 columns kept 68 of its 108 characters), and `export ANTHROPIC_API_KEY=sk-ant-…\` with the rest on the next
 * line (a shell's line continuation) lost only its first part. Now the key's first line, found by its rule, takes
 * the lines after it that are made of its characters when the widths agree (40, 64, 76 columns, a terminal's 80…),
 * and a key continued with `\` is joined across the continuation. A word on the next line, other widths and a base64'd
 * `.env` (not promised) stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

const K = j("sk-ant-api03-", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zAb2dEf5hIj8lMn1pQr4tUv7xYz0bCd3fGh6jKl9nOp2rSt5vWx8zAb1dEf4h-Ab3dEfAA")
const G = j("ghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
const JWT = j("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ", ".", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
/** `s` cut into lines of `w` characters (`fold -w w`). */
const fold = (s: string, w: number) => (s.match(new RegExp(`.{1,${w}}`, "g")) ?? []).join("\n")
/** No piece of `key` of 8 characters (after its first 12) is left in `out`. */
const noPiece = (out: string, key: string) => {
  for (let i = 12; i + 8 <= key.length; i += 4) expect(out, out).not.toContain(key.slice(i, i + 8))
}

describe("session 20: keys wrapped over lines", () => {
  it("a key folded at 40, 64 and 76 columns goes whole, the text around it stays", () => {
    const A = marker("anthropic-key")
    for (const w of [40, 64, 76]) {
      expect(r.text(`wrapped (fold -w ${w}): ${fold(K, w)}\nThanks, done.`)).toBe(`wrapped (fold -w ${w}): ${A}\nThanks, done.`)
      expect(r.text(`${fold(K, w)}\r\n`.replace(/\n/g, "\r\n").replace(/\r\r/g, "\r"))).toBe(`${A}\r\n`)
      // JSON text: the line breaks written `\n`
      const out = r.text(JSON.stringify({ out: `key:\n${fold(K, w)}\nok` }))
      expect(out).toBe(JSON.stringify({ out: `key:\n${A}\nok` }))
    }
    // a JWT at 76 columns (base64's width), a prefix on its first line that fills the terminal's 80
    expect(r.text(`Authorization header:\n${fold(JWT, 76)}\n`)).toBe(`Authorization header:\n${marker("jwt")}\n`)
    const line = `export OPENAI_API_KEY_FOR_THE_BUILD=`
    const key = j("sk-proj-", "Zx9Cv8Bn7Mq6Wr5Et4Yu3Io2Pa1Sd0FgHjKlZx9Cv8Bn7Mq6Wr5Et4Yu3Io2Pa1Sd0FgHjKlQ7")
    const first = 80 - line.length
    const wrapped = `${line}${key.slice(0, first)}\n${key.slice(first)} && make`
    const out = r.text(wrapped)
    noPiece(out, key)
    expect(out).toContain(" && make")
  })

  it("a key continued with a shell's `\\` goes whole", () => {
    expect(r.text(`export ANTHROPIC_API_KEY=${K.slice(0, 20)}\\\n${K.slice(20)}\nnpm start`))
      .toBe(`export ANTHROPIC_API_KEY=${marker("anthropic-key")}\nnpm start`)
    expect(r.text(`gh auth login --with-token <<< ${G.slice(0, 10)}\\\n${G.slice(10)} && gh repo list`))
      .toBe(`gh auth login --with-token <<< ${marker("github-token")} && gh repo list`)
    // in JSON text: `\\` then the `\n` escape
    const out = r.text(inString(`export ANTHROPIC_API_KEY=${K.slice(0, 30)}\\\n${K.slice(30)}\nnext`))
    noPiece(out, K)
    expect(out).toContain(marker("anthropic-key"))
  })

  it("what is no wrapped key stays", () => {
    // a key on one line, then a word or a sentence on the next
    expect(r.text(`the key ${K}\nThanks`)).toBe(`the key ${marker("anthropic-key")}\nThanks`)
    expect(r.text(`${fold(K, 64).split("\n")[0]}\nDone`)).toBe(`${marker("anthropic-key")}\nDone`)
    // a next line longer than the first (so the widths disagree) is not read as the key's rest (session 21: any width
    // is a wrap width, so a first line of 50 no longer tells: `${k50}\nAbCdEf0123456789xyz` now goes whole)
    const k50 = K.slice(0, 50)
    const longer = "AbCdEf0123456789xyz".repeat(3)
    expect(r.text(`${k50}\n${longer}`)).toBe(`${marker("anthropic-key")}\n${longer}`)
    // a first line narrower than 16 characters is no wrap
    expect(r.text(`${K.slice(0, 15)}\nAbCdEf012\n`)).toBe(`${K.slice(0, 15)}\nAbCdEf012\n`)
    // a continuation line with other characters than the key's (a sentence) is not the key's rest
    expect(r.text(`${K.slice(0, 40)}\nsee the docs for more`)).toBe(`${marker("anthropic-key")}\nsee the docs for more`)
    // a shell continuation between words that hold no key
    stays("make all \\\n  install && echo sk-\\\nlearn")
    stays("ENV=prod\\\nnext-step")
    // a base64'd .env is not read (not promised)
    stays(`base64 .env: ${Buffer.from(`GITHUB_TOKEN=${G}\n`).toString("base64")}`)
  })
})
