/**
 * tester24a F7: a secret's name written with JSON escapes inside it (`"pass\u0077ord"`, `"api\u005fkey"`: a JSON
 * parser reads `password`, `api_key`) is the name: its value goes as `secret-field` takes it under the decoded name
 * (as `[REDACTED:escaped-name]`),
 * at one and two escape levels; the name stays as written. A name that decodes to no secret's, and an escape in a
 * value, change nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("escaped-name")

describe("secret-named JSON keys written with escapes (tester24a F7)", () => {
  it("tester24a C20: both values go, the names stay as written", () => {
    const pw = j("UniKeyPw", "8812x"), key = j("UniKeyApi", "9912yyyyyyyy")
    const text = `{"pass\\u0077ord": "${pw}", "api\\u005fkey": "${key}"}`
    expect(r.text(text)).toBe(`{"pass\\u0077ord": "${F}", "api\\u005fkey": "${F}"}`)
    // JSON text held in a string: the escapes' and the quotes' backslashes doubled
    expect(r.text(inString(text))).toBe(inString(`{"pass\\u0077ord": "${F}", "api\\u005fkey": "${F}"}`))
    // pretty-printed, the first letter escaped, upper case hex, single quotes
    expect(r.text(`{\n  "\\u0070assword": "${pw}",\n  "DB_\\u0050ASSWORD": "${pw}"\n}`)).toBe(`{\n  "\\u0070assword": "${F}",\n  "DB_\\u0050ASSWORD": "${F}"\n}`)
    expect(r.text(`{'client\\u005Fsecret': '${pw}'}`)).toBe(`{'client\\u005Fsecret': '${F}'}`)
  })

  it("a number under a password's escaped name goes as under the name", () => {
    expect(r.text(`{"pass\\u0077ord": 84736251}`)).toBe(`{"pass\\u0077ord": "${F}"}`)
  })

  it("what stays: a name that decodes to no secret's, a count, an escape in a value, a page cursor", () => {
    stays(`{"caf\\u00e9": "Latte9911x", "na\\u006de": "Bob99"}`)
    stays(`{"max\\u005ftokens": 4096}`)
    stays(`{"note": "pass\\u0077ord", "x": "y1"}`)
    stays(`{"next\\u005fpage\\u005ftoken": "Cur12345abcd"}`)
    stays(`{"pass\\u0077ord_policy": "min8chars"}`)
  })
})
