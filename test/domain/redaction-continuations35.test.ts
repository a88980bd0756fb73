/**
 * Session 35 (dev35c): the gaps docs/redaction.md listed under "Line continuations", closed by one step each:
 * (1) a shell line continuation inside a `secret-field` value (`api_key: …\`, `"password": "…\`, `secret="…\`) and
 * a `secret-line` value (`db.password = …\`), (2) one between a header's name and its value (`X-Api-Key: \`), both
 * through the view of the text as a shell reads it (`src/domain/redaction/continuations.ts`); (3) a line break inside
 * another rule's quoted value (`--password "…` then `…"`, `{"api_key": "…` then `…"}`), through the quoted value's
 * step `secret-assignment` took (at most 4 line breaks of 200 characters). No piece of 4 characters of a secret is
 * left, in the text, in its JSON form (a tool call's input) and in the title; ordinary text stays.
 */
import { describe, expect, it } from "@effect/vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file: a secret's two pieces, around the break
const A = ["Qv7L", "m2Xr"].join("")
const B = ["Tz9K", "p4Wn"].join("")
const SECRET = A + B

/** The 4-character pieces of the secret `out` still shows (none expected). */
const pieces = (out: string, secret = SECRET): Array<string> => {
  const left: Array<string> = []
  for (let i = 0; i + 4 <= secret.length; i++) if (out.includes(secret.slice(i, i + 4))) left.push(secret.slice(i, i + 4))
  return left
}

/** The text, its JSON form (a tool call's input), and its title, redacted; none shows a piece of the secret. */
const hidden = (text: string): string => {
  const body = r.text(text)
  expect(pieces(body), body).toEqual([])
  const json = r.text(JSON.stringify({ command: text }))
  expect(pieces(json), json).toEqual([])
  const title = r.title(titleOf(text))
  expect(pieces(title), title).toEqual([])
  return body
}

const F = marker("secret-field")

describe("(1) a continuation inside a secret-field or secret-line value", () => {
  for (const [label, cont] of [["LF", "\\\n"], ["CRLF", "\\\r\n"], ["an empty continuation line", "\\\n\\\n"], ["two empty lines, CRLF", "\\\r\n\\\r\n\\\r\n"]] as const) {
    it(`YAML api_key, JSON "password", secret="…", ${label}`, () => {
      expect(hidden(`api_key: ${A}${cont}${B} next`)).toBe(`api_key: ${F} next`)
      expect(hidden(`{"password": "${A}${cont}${B}"}`)).toBe(`{"password": "${F}"}`)
      expect(hidden(`secret="${A}${cont}${B}"`)).toBe(`secret="${F}"`)
      expect(hidden(`client_secret = '${A}${cont}${B}'`)).toBe(`client_secret = '${F}'`)
    })
    it(`a secret-line value (INI, properties), ${label}`, () => {
      expect(hidden(`[db]\ndb.password = ${A}${cont}${B}\nhost = x`)).toBe(`[db]\ndb.password = ${marker("secret-line")}\nhost = x`)
      expect(hidden(`password = ${A}${cont}${B}`)).toBe(`password = ${marker("secret-line")}`)
    })
  }

  it("the name's own line and the lines around stay; a value's first piece alone no longer decides", () => {
    // the first piece alone is no secret's shape (letters only): only the joined value is
    expect(hidden(`token: Abcdefgh\\\n${B}x ok`)).toBe(`token: ${F} ok`)
    expect(r.text(`line one\napi_key: ${A}\\\n${B}\nline three`)).toBe(`line one\napi_key: ${F}\nline three`)
  })
})

describe("(2) a continuation between a header's name and its value", () => {
  it("X-Api-Key, alone and in curl -H with the next line indented", () => {
    expect(hidden(`X-Api-Key: \\\n${SECRET}`)).toBe(`X-Api-Key: \\\n${F}`)
    expect(hidden(`X-Api-Key:\\\n${SECRET}`)).toBe(`X-Api-Key:\\\n${F}`)
    expect(hidden(`curl -H 'X-Api-Key: \\\n  ${SECRET}' https://api.example.com`)).toBe(`curl -H 'X-Api-Key: \\\n  ${F}' https://api.example.com`)
    expect(hidden(`curl -H "x-api-key: \\\r\n\\\r\n    ${SECRET}" https://x`)).toBe(`curl -H "x-api-key: \\\r\n\\\r\n    ${F}" https://x`)
  })

  it("Authorization (a scheme or none) and an auth-named header", () => {
    expect(hidden(`Authorization:\\\nBearer ${SECRET}`)).toBe(`Authorization:\\\nBearer ${marker("bearer-token")}`)
    expect(hidden(`Authorization: \\\n  ${SECRET}`)).toBe(`Authorization: \\\n  ${marker("authorization")}`)
    expect(hidden(`curl -H 'X-Custom-Auth: \\\n  ${SECRET}' x`)).toBe(`curl -H 'X-Custom-Auth: \\\n  ${marker("credential-prose")}' x`)
  })
})

describe("(3) a line break inside another rule's quoted value", () => {
  it("an option's quoted value, a JSON or YAML field, a pair, a header map, a spaced key, curl -u", () => {
    expect(hidden(`tool --password "two ${A}\n${B} words" next`)).toBe(`tool --password "${marker("cli-secret-option")}" next`)
    expect(hidden(`mysql --password='${A}\r\n${B}' db`)).toBe(`mysql --password='${marker("cli-secret-option")}' db`)
    expect(hidden(`{"api_key": "${A}\n${B}"}`)).toBe(`{"api_key": "${F}"}`)
    expect(hidden(`password: "${A}\n\n${B}"\nuser: bob`)).toBe(`password: "${F}"\nuser: bob`)
    expect(hidden(`[["X-Api-Key", "${A}\n${B}"]]`)).toBe(`[["X-Api-Key", "${marker("secret-pair")}"]]`)
    expect(hidden(`{"Authorization": "${A}\n${B}"}`)).toBe(`{"Authorization": "${marker("authorization")}"}`)
    expect(hidden(`{"Db Password": "${A}\n${B}"}`)).toBe(`{"Db Password": "${marker("secret-spaced-key")}"}`)
    expect(hidden(`curl -u "bob:${A}\n${B}" https://x`)).toBe(`curl -u "bob:${marker("cli-password")}" https://x`)
    expect(hidden(`{"pw": "${A}\n${B}"}`)).toBe(`{"pw": "${marker("credential-prose")}"}`)
  })

  it("an unbalanced quote does not take the text after it: at most 4 line breaks, 200 characters a line", () => {
    // (session 36, tester35c F3: farther off, the value's part on the opening quote's line goes, the rest stays)
    const far = `password: "${A}\n1\n2\n3\n4\n5 it's "here"`
    expect(r.text(far)).toBe(`password: "${F}"\n1\n2\n3\n4\n5 it's "here"`)
    const long = `tool --password "two\n${"w".repeat(201)}" x`
    expect(r.text(long)).toBe(long)
    // a quoted value on one line as before; a quote on the next line is another word's
    expect(r.text(`{"api_key": "${SECRET}"}\n"x": "y"`)).toBe(`{"api_key": "${F}"}\n"x": "y"`)
  })
})

describe("ordinary text is not hidden", () => {
  it("a prose line ending in a backslash, a Markdown hard break, Windows paths at a line's end, a table", () => {
    for (const text of [
      "A line of prose that ends in a backslash \\\nand the next line goes on with words.",
      "First line of a paragraph\\\nsecond line after a Markdown hard break",
      "copy it to C:\\dir\\\nthen run the build again",
      "set PATH to D:\\tools\\bin\\\nand open a new shell",
      "| name | path |\n|---|---|\n| build | C:\\out\\ |\n| key \\| other | value |\n",
      "docker run --rm \\\n  -e MODE=fast \\\n  -v data:/data \\\n  image:latest",
      "api_key: $API_KEY \\\n  --verbose",
      "password = getpass()\\\n  + suffix"
    ]) {
      expect(r.text(text)).toBe(text)
      expect(r.text(JSON.stringify({ text }))).toBe(JSON.stringify({ text }))
    }
    // a home path's folder at a line's end becomes `~` as before; the next line's word is no part of it
    expect(r.text("the files are under C:\\Users\\Public\\\nDocuments and Music")).toBe("the files are under ~\\\nDocuments and Music")
  })
})
