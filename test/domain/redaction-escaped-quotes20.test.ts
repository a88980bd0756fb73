/**
 * Session 20 (tester19 F2's rest): a secret's name and its value quoted with escapes, as .NET's System.Text.Json
 * writes `"` and `'` (`\u0022`, `\u0027`) and Gson (Google's Java JSON library) writes `=` (`\u003d`), kept the value:
 * `\u0022password\u0022:\u0022…\u0022`, `API_KEY\u003d…`, `\u0027token\u0027: \u0027…\u0027`. The escaped quote is a
 * quote and the escaped `=` an `=` to `secret-field`, `secret-assignment` and `secret-line`, as the plain forms are;
 * the escapes stay, and so do the values that stay in the plain form (counts, empty values, references).
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const PW = j("hunter2", "Xy9zQ7")
const TOK = j("tok", "Ab3dEf6hIj9lMn2pQ5")

describe("session 20: secret names and values in escaped quotes", () => {
  it("secret-field: \\u0022, \\u0027, \\x22 (and \\\\u0022 in JSON text held in a string) as quotes", () => {
    const F = marker("secret-field")
    expect(r.text(`\\u0022password\\u0022:\\u0022${PW}\\u0022`)).toBe(`\\u0022password\\u0022:\\u0022${F}\\u0022`)
    expect(r.text(`{\\u0022api_key\\u0022: \\u0022${TOK}\\u0022, \\u0022user\\u0022: \\u0022bob\\u0022}`))
      .toBe(`{\\u0022api_key\\u0022: \\u0022${F}\\u0022, \\u0022user\\u0022: \\u0022bob\\u0022}`)
    expect(r.text(`\\u0027token\\u0027: \\u0027${TOK}\\u0027`)).toBe(`\\u0027token\\u0027: \\u0027${F}\\u0027`)
    expect(r.text(`{\\x22client_secret\\x22: \\x22${TOK}\\x22}`)).toBe(`{\\x22client_secret\\x22: \\x22${F}\\x22}`)
    expect(r.text(`x \\u0022Password\\u0022 : \\u0022pass word 9\\u0022 y`)).toBe(`x \\u0022Password\\u0022 : \\u0022${F}\\u0022 y`)
    // the escaped name with a plain value, and a plain name with an escaped value
    expect(r.text(`\\u0022secret\\u0022: "${PW}"`)).toBe(`\\u0022secret\\u0022: "${F}"`)
    expect(r.text(`"token": \\u0022${TOK}\\u0022`)).toBe(`"token": \\u0022${F}\\u0022`)
    // an `=` written `\\u003d` before a quoted value (TOML, Python written by Gson)
    expect(r.text(`db_password \\u003d \\u0022${PW}\\u0022`)).toBe(`db_password \\u003d \\u0022${F}\\u0022`)
    // a PIN as a number: the marker in the key's (escaped) quotes
    expect(r.text(`{\\u0022password\\u0022: 84736251}`)).toBe(`{\\u0022password\\u0022: \\u0022${F}\\u0022}`)
    // JSON text in a string: the escapes' backslashes doubled
    gone(inString(`{\\u0022password\\u0022: \\u0022${PW}\\u0022}`), PW, "password")
    // a header after an escaped quote
    gone(`\\u0022X-Auth-Token: ${TOK}\\u0022`, TOK, "\\u0022X-Auth-Token: ")
    gone(`[\\u0022X-Api-Key: ${TOK}\\u0022]`, TOK, "X-Api-Key")
  })

  it("secret-assignment and secret-line: \\u003d as `=`, escaped quotes around the value", () => {
    const A = marker("secret-assignment")
    expect(r.text(`env API_KEY\\u003d${TOK} run`)).toBe(`env API_KEY\\u003d${A} run`)
    expect(r.text(`{"env": "GITHUB_TOKEN\\u003d${TOK}\\u0026x=1"}`)).toBe(`{"env": "GITHUB_TOKEN\\u003d${A}\\u0026x=1"}`)
    expect(r.text(`PASSWORD\\u003D\\u0022${PW} and more\\u0022 next`)).toBe(`PASSWORD\\u003D\\u0022${A}\\u0022 next`)
    expect(r.text(`DB_PASSWORD=\\u0027${PW}\\u0027`)).toBe(`DB_PASSWORD=\\u0027${A}\\u0027`)
    expect(r.text(`SECRET\\x3d${PW}`)).toBe(`SECRET\\x3d${A}`)
    // a .env line in JSON text: `api_key\\u003d…` at a line's start
    expect(r.text(`"a=1\\napi_key\\u003d${TOK}\\n"`)).toBe(`"a=1\\napi_key\\u003d${marker("secret-line")}\\n"`)
  })

  it("authorization and url-query-secret: escaped quotes, `=` and `&` (a URL in Gson's JSON)", () => {
    expect(r.text(`{\\u0022Authorization\\u0022: \\u0022${TOK}\\u0022}`)).toBe(`{\\u0022Authorization\\u0022: \\u0022${marker("authorization")}\\u0022}`)
    expect(r.text(`\\u0022authorization\\u0022: \\u0022Basic dXNlcjpwYXNzd29yZA\\u0022`))
      .toBe(`\\u0022authorization\\u0022: \\u0022Basic ${marker("authorization")}\\u0022`)
    const Q = marker("url-query-secret")
    expect(r.text(`{"url":"https://x.io/cb?access_token\\u003d${TOK}\\u0026b\\u003d1"}`)).toBe(`{"url":"https://x.io/cb?access_token\\u003d${Q}\\u0026b\\u003d1"}`)
    expect(r.text(`{"url":"https://x.io/cb?code=1\\u0026api_key\\u003d${TOK}"}`)).toBe(`{"url":"https://x.io/cb?code=1\\u0026api_key\\u003d${Q}"}`)
    stays(`{"url":"https://x.io/?page\\u003d2\\u0026q\\u003dtoken\\u0026key\\u003dshort"}`)
  })

  it("what stays in the plain form stays in the escaped one", () => {
    stays(`MAX_TOKENS\\u003d4096 and \\u0022max_tokens\\u0022: 4096 and \\u0022token_count\\u0022: 12`)
    stays(`\\u0022password\\u0022: \\u0022\\u0022, \\u0022password\\u0022: \\u0022$DB_PASSWORD\\u0022`)
    stays(`\\u0022next_page_token\\u0022: \\u0022${TOK}\\u0022`)
    stays(`\\u0022primary_key\\u0022: \\u0022${TOK}\\u0022`)
    stays(`API_KEY\\u003d$API_KEY and a\\u003d\\u0022b\\u0022 and \\u0022password\\u0022: true`)
    stays(`{\\u0022name\\u0022: \\u0022caf\\u00e9\\u0022, \\u0022key\\u0022: \\u0022${TOK}\\u0022}`)
  })
})
