/**
 * tester36b F1: a value under a `*_key` name (`api_key`, `access_key`, `private_key`) is hidden when it looks like a
 * secret, told from its start; an escaped or doubled quote near its start (`'abc\'def-9988-…'`, `"ab\"Qz7v…"`,
 * YAML `'ab''Qz7v…'`) ended that look at the escape, so the whole value was shown. The escape is the value's own
 * (docs/redaction.md: "A quoted value's own escaped or doubled quote is no closing quote"): the look reads past it.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
// built at run time so that no secret scanner flags this file
const S = j("Qz7vK2xx9", "abcdefgh")

describe("tester36b F1: a *_key value with an escaped or doubled quote near its start", () => {
  it("goes whole, the text around it kept", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`api_key = 'abc\\'def-9988-secret'`, `api_key = '${F}'`],
      [`{"api_key": "ab\\"${S}"}`, `{"api_key": "${F}"}`],
      [`api_key: 'ab''${S}'\nuser: bob`, `api_key: '${F}'\nuser: bob`],
      [`access_key = 'a\\'${S}'`, `access_key = '${F}'`],
      [`private_key = 'k\\'${S}'`, `private_key = '${F}'`]
    ]
    for (const [text, want] of cases) {
      expect(r.text(text), text).toBe(want)
      // and as JSON text (a tool call's one-line text)
      const once = JSON.stringify({ command: text })
      expect(r.text(once), once).toBe(JSON.stringify({ command: want }))
    }
  })

  it("a *_key value that looks like no secret stays, escape or not", () => {
    stays(`primary_key = 'id'`)
    stays(`sort_key = 'it\\'s'`)
    stays(`{"api_key": ""}`)
  })
})

describe("tester36b F2: a passphrase of words whose quote does not close on its line", () => {
  it("its first line's part goes (fail closed), as a value of a letter and a digit does", () => {
    const A = marker("secret-assignment")
    const P = j("correct horse ", "battery staple")
    expect(r.text(`DB_PASSWORD="${P}\nnext line of prose`)).toBe(`DB_PASSWORD="${A}"\nnext line of prose`)
    expect(r.text(`DB_PASSWORD="${P}`)).toBe(`DB_PASSWORD="${A}"`)
    expect(r.text(`password: "${P}\nmore`)).not.toContain(P)
    expect(r.text(`{"password": "${P}`)).not.toContain(P)
  })

  it("a closed quote or a prompt's words stay as before", () => {
    stays(`input('Password: ')`)
    stays(`print("Enter the password:")`)
  })
})
