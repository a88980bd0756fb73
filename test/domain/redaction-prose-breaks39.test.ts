/**
 * A credential told in prose with a line break between its words and its value (tester39 F1): `my password is`
 * then the value on the next line (Shift+Enter before a paste) was kept by every redacted output, while a title and
 * the MCP search snippet, their white space folded into spaces, hid it. The prose rules (`password-prose`,
 * `password-prose-intl`, `token-prose`, `credential-prose`'s one-line forms) read any white space run as their
 * separator: a line break, CRLF, several of them, a tab, a no-break space; `password-prose` and `token-prose` also a
 * line break or a tab written as an escape in JSON text (`\n`, `\\n`). So a text redacts as its folded form does.
 * What is no value stays, on the next line as on the same one.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { allGone, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const PROSE = marker("password-prose")
const TOKEN = marker("token-prose")
const INTL = marker("password-prose-intl")
const CRED = marker("credential-prose")

/** The separators told between the words and the value, one space's stand-ins. */
const BREAKS: ReadonlyArray<readonly [string, string]> = [
  ["a line break", "\n"],
  ["CRLF", "\r\n"],
  ["several line breaks", "\n\n\n"],
  ["a blank line with indentation", "\n  \n\t"],
  ["a tab", "\t"],
  ["a no-break space", "\u00a0"]
]

/** [a sentence with `_` where the break goes, the value, its marker] */
const TOLD: ReadonlyArray<readonly [string, string, string]> = [
  ["hotel my password is_Sq1oG6iEf5Cq0_hotel done", "Sq1oG6iEf5Cq0", PROSE],
  ["my password_is Hx8pLm2Qz9", "Hx8pLm2Qz9", PROSE],
  ["The password for_prod is Nv7Tq2Wz9Kb.", "Nv7Tq2Wz9Kb", PROSE],
  ["the passphrase is:_Kp9xWq2Lm7Zt", "Kp9xWq2Lm7Zt", PROSE],
  ["change the password to_Cg5tRw2Xy8", "Cg5tRw2Xy8", PROSE],
  ["Password -_Dq4sLk8Vn2", "Dq4sLk8Vn2", PROSE],
  ["Rk8mZp3Lq6 is the_password for prod", "Rk8mZp3Lq6", PROSE],
  ["use Us3ThisPw9 as_the password", "Us3ThisPw9", PROSE],
  ["the token is_Ab12Cd34Ef56Gh now", "Ab12Cd34Ef56Gh", TOKEN],
  ["API key:_Mk3jHs9Pq1Xz", "Mk3jHs9Pq1Xz", TOKEN],
  ["API_key: Mk3jHs9Pq1Xy", "Mk3jHs9Pq1Xy", TOKEN],
  ["my secret is_Sc7rEt4Vb2Nm", "Sc7rEt4Vb2Nm", TOKEN],
  ["my PIN is_4821", "4821", TOKEN],
  ["PIN code_482917", "482917", TOKEN],
  ["Das Passwort ist_Pw4De77xxQ", "Pw4De77xxQ", INTL],
  ["Das Passwort_lautet Pw4De77xxR", "Pw4De77xxR", INTL],
  ["Passwort:_PwDe8812yy", "PwDe8812yy", INTL],
  ["the password_Hp5nJk8Lq2Xz", "Hp5nJk8Lq2Xz", CRED],
  ["my pwd is_Pd6gHj2Kw9", "Pd6gHj2Kw9", CRED],
  ["credentials: admin /_Cr3dPw88x", "Cr3dPw88x", CRED]
]

describe("tester39 F1: the prose rules read any white space run between the words and the value", () => {
  it.each(BREAKS)("%s: the value goes, the words and the break stay, as with one space", (_, ws) => {
    for (const [sentence, value, mark] of TOLD) {
      const text = sentence.replace(/_/g, ws)
      const out = r.text(text)
      // as the sentence with a space there: the value alone becomes the marker, the break kept where it was
      const spaced = r.text(sentence.replace(/_/g, " "))
      expect(spaced, sentence).toContain(mark)
      expect(out, JSON.stringify(text)).not.toContain(value)
      expect(out, JSON.stringify(text)).toContain(mark)
      expect(out.replace(mark, value), JSON.stringify(text)).toBe(text)
    }
  })

  it("F1's own prompt, exactly", () => {
    expect(r.text("hotel my password is\nSq1oG6iEf5Cq0\nhotel done")).toBe(`hotel my password is\n${PROSE}\nhotel done`)
    expect(r.text("my password is\r\nhunter2hunter2XYZ")).toBe(`my password is\r\n${PROSE}`)
    expect(r.text("the token is\n\nab12cd34ef99")).toBe(`the token is\n\n${TOKEN}`)
  })

  it("as JSON text and as JSON text held in a string (the break written \\n), for password-prose and token-prose", () => {
    for (const [sentence, value, mark] of TOLD) {
      if (mark !== PROSE && mark !== TOKEN) continue
      allGone(sentence.replace(/_/g, "\n"), [value])
      allGone(sentence.replace(/_/g, "\r\n"), [value])
    }
  })

  it("what is no value stays on the next line as on the same one", () => {
    for (const ws of ["\n", "\r\n", "\n\n", "\t"]) {
      for (const t of [
        `the password is${ws}wrong`,
        `the password is${ws}stored in vault`,
        `the password is${ws}at least 8 characters`,
        `my password is${ws}$DB_PASSWORD`,
        `the token is${ws}invalid`,
        `the token is${ws}401`,
        `my PIN is${ws}wrong`,
        `Passwort:${ws}falsch`,
        `write the password to${ws}/tmp/pw1`,
        `Passphrase requirements:${ws}Must be 12 characters`,
        `the password${ws}manager`
      ]) stays(t)
    }
  })
})
