/**
 * Session 36 (fix36b), the domain functions; the CLI's outputs: test/redaction-fix36b-cli.test.ts.
 * tester35a F2 (code forms): a secret-named variable or key with its quoted value on the next line, in code (JS/TS
 * object literals and `const`, Python assignments and keyword arguments, Go's `:=`, PHP's `=>`, a JSON key whose `:`
 * is on the value's line) goes, as on one line (`secret-field`).
 * F8: `--token=\` then an indented value, and `Bearer \` + trailing blanks then the token, go in the bodies as the
 * title (read on one line) hides them. F4: a tab of the next line's indentation written `\t` in JSON text (a tool call's
 * one-line input) after a continuation. F6: `user:password@host` with no scheme, and `//user:password@host`, when the
 * password has a secret's shape. F3: a `'` inside a URL password. tester35c F4: a `sha256~` digest and a CamelCase
 * `LTAI…` name stay. (docs/redaction.md: `secret-field`, `cli-secret-option`, `url-credentials`, vendor rules.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { toolInputText } from "../../src/domain/tool-input-text.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { j, sessionEvent, stays, toolCallOutputs } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
const O = marker("cli-secret-option")
const U = marker("url-credentials")
// built at run time so that no secret scanner flags this file
const PW = j("Qz7vK2m", "XpL9w")
const KEY = j("Zk4nW8qPz2", "LmX7Hd0Jf7")
const TOK = j("Qz7vK2mXpL9w", "R4tY8nB3cF6hJ1")

/** `text` redacted as text, as JSON text (a tool's command), and as a tool call's one-line text: each `want` alike. */
const everyForm = (text: string, want: string) => {
  expect(r.text(text), text).toBe(want)
  expect(r.text(want), `idempotent: ${want}`).toBe(want)
  expect(r.text(JSON.stringify({ command: text })), `JSON text: ${text}`).toBe(JSON.stringify({ command: want }))
  const input = { command: text, description: "run it" }
  const e = sessionEvent(1, { kind: "tool-call", toolName: "Bash", toolCallId: "c1", toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
  const out = r.event(e) as unknown as { text: string; toolInput: unknown }
  expect(out.text, `tool call text: ${text}`).toBe(toolInputText({ command: want, description: "run it" }))
  expect(out.toolInput).toEqual({ command: want, description: "run it" })
}

describe("tester35a F2, code forms: a secret-named variable or key with its quoted value on the next line", () => {
  const cases = (nl: string, ind: string): ReadonlyArray<readonly [string, string]> => [
    // JavaScript/TypeScript object literal (Prettier), double and single quotes, and a template literal
    [`const cfg = {${nl}  apiKey:${nl}${ind}"${KEY}",${nl}};`, `const cfg = {${nl}  apiKey:${nl}${ind}"${F}",${nl}};`],
    [`const cfg = {${nl}  apiKey:${nl}${ind}'${KEY}',${nl}};`, `const cfg = {${nl}  apiKey:${nl}${ind}'${F}',${nl}};`],
    [`const cfg = {${nl}  apiKey:${nl}${ind}\`${KEY}\`,${nl}};`, `const cfg = {${nl}  apiKey:${nl}${ind}\`${F}\`,${nl}};`],
    [`const apiKey =${nl}${ind}"${KEY}";`, `const apiKey =${nl}${ind}"${F}";`],
    [`export const API_KEY =${nl}${ind}'${KEY}'`, `export const API_KEY =${nl}${ind}'${F}'`],
    // Python: an assignment, a keyword argument (black), a dict
    [`api_key =${nl}${ind}"${KEY}"`, `api_key =${nl}${ind}"${F}"`],
    [`client = Client(api_key=${nl}${ind}'${KEY}')`, `client = Client(api_key=${nl}${ind}'${F}')`],
    [`client = Client(${nl}    api_key=${nl}${ind}${ind}"${KEY}",${nl})`, `client = Client(${nl}    api_key=${nl}${ind}${ind}"${F}",${nl})`],
    // Go (gofmt), PHP
    [`password :=${nl}${ind}"${PW}"`, `password :=${nl}${ind}"${F}"`],
    [`$cfg = [${nl}  'password' =>${nl}${ind}'${PW}',${nl}];`, `$cfg = [${nl}  'password' =>${nl}${ind}'${F}',${nl}];`],
    // a JSON key whose `:` is on the value's line, or on a line of its own
    [`{"password"${nl}${ind}: "${PW}"}`, `{"password"${nl}${ind}: "${F}"}`],
    [`{"password"${nl}${ind}:${nl}${ind}"${PW}"}`, `{"password"${nl}${ind}:${nl}${ind}"${F}"}`]
  ]
  for (const [label, nl, ind] of [["LF", "\n", "    "], ["CRLF", "\r\n", "    "], ["LF, tab", "\n", "\t"]] as const) {
    it(`goes as on one line, in text, JSON text and a tool call's text (${label})`, () => {
      for (const [text, want] of cases(nl, ind)) everyForm(text, want)
    })
  }

  it("ordinary code and prose stay", () => {
    for (const t of [
      `Enter the password:\n"Remember me" is a checkbox`, // an unquoted name then a quoted line: prose
      `const apiKey =\n  process.env.API_KEY`, // no quoted value
      `const cfg = {\n  apiKey:\n    "name",\n};`, // what does not look like a secret, under a key's name
      `apiKey:\n  "${"$"}{API_KEY}"`, // a reference
      `password :=\n\tos.Getenv("PW")`,
      `if password ==\n    "${PW}" {`, // a comparison
      `token_count =\n  "12"`, // another last word
      `max_tokens =\n  "4096"`,
      `const apiKey =\n\n\n\n  "${KEY}"` // more than three line breaks: no value of the name's
    ]) stays(t)
  })
})

describe("tester35a F8: a continuation the title reads on one line hides the value in the bodies too", () => {
  it("`--token=\\` then an indented value; `Bearer \\` and trailing blanks then the token", () => {
    everyForm(`deploy --token=\\\n\t${TOK}`, `deploy --token=\\\n\t${O}`)
    everyForm(`deploy --token=\\\n    ${TOK} --verbose`, `deploy --token=\\\n    ${O} --verbose`)
    everyForm(`curl -H 'Authorization: Bearer \\  \n  ${TOK}' https://api.x.io`, `curl -H 'Authorization: Bearer \\  \n  ${marker("bearer-token")}' https://api.x.io`)
    everyForm(`mytool --password \\ \n  ${PW} x`, `mytool --password \\ \n  ${O} x`)
  })

  it("what is no value stays: the next option, a reference, prose", () => {
    for (const t of [
      "deploy --token=\\\n  --verbose",
      "deploy --token=\\\n\t$TOKEN",
      "deploy --token=\\\n  install",
      "curl -H 'Authorization: Bearer \\  \n  $TOKEN' x"
    ]) stays(t)
  })
})

describe("tester35a F4: a tab written `\\t` after a continuation in JSON text", () => {
  it("an option's value, in JSON text held in a string (a command's own JSON)", () => {
    const t = `{"cmd": "mytool --password \\\\\\n\\t${PW} x"}`
    const want = `{"cmd": "mytool --password \\\\\\n\\t${O} x"}`
    expect(r.text(t)).toBe(want)
    const input = { command: `echo '${t}'` }
    const e = sessionEvent(1, { kind: "tool-call", toolName: "Bash", toolCallId: "c1", toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
    const out = r.event(e) as unknown as { text: string }
    expect(out.text).not.toContain(PW)
  })

  it("a key cut by a continuation, its rest indented by a tab, in a tool call's one-line JSON text", () => {
    const a = j("ghp_", "Qz7vK2mXpL9w")
    const b = j("R4tY8nB3cF6hJ1", "Lm2Qp4Wv8R")
    for (const text of [`export GITHUB_TOKEN=${a}\\\n\t${b}`, `export GITHUB_TOKEN=${a}\\\n\\\n\t${b}`, `echo ${a}\\\n\t${b}`]) {
      const json = r.text(JSON.stringify({ command: text }))
      expect(json, text).not.toContain(b.slice(0, 8))
      expect(json, text).not.toContain(a.slice(4))
      expect(json, text).toContain(marker("github-token"))
    }
  })
})

describe("tester35a F6: user:password@host with no scheme, and //user:password@host", () => {
  it("the password goes when it has a secret's shape; the user and the host stay", () => {
    const long = j("QzvKmXpL", "wRtYnB")
    everyForm(`ssh-copy deploy:${PW}@10.0.0.5 and //user:${j("Zk4nW8", "qPz2Lm")}@host/path`, `ssh-copy deploy:${U}@10.0.0.5 and //user:${U}@host/path`)
    everyForm(`rsync -a ./ deploy:${PW}@10.0.0.5:/srv/app`, `rsync -a ./ deploy:${U}@10.0.0.5:/srv/app`)
    everyForm(`lftp admin:${long}@10.0.0.7`, `lftp admin:${U}@10.0.0.7`)
    // (with a domain, the email rule, before this one, takes the password and the host: nothing shows either)
    expect(r.text(`lftp admin:${long}@ftp.example.org`)).toBe(`lftp admin:${marker("email")}`)
    expect(r.text(`{"target": "deploy:${PW}@db-1:5432"}`)).toBe(`{"target": "deploy:${U}@db-1:5432"}`)
  })

  it("ordinary text stays", () => {
    for (const t of [
      "git@github.com:org/repo.git", "git clone git@github.com:org/repo.git", "user@host", "ssh user@host:22", "a:b@c",
      "localhost:8080@x", "meet at 10:30@place", "at 12:30pm@cafe", "FROM node@20:latest", "image: node:20@sha256:abcdef0123",
      `"image": "nginx:1.25-alpine@sha256:${"0123456789abcdef".repeat(4)}"`, "npm:string-width-cjs@4.2.3",
      `"foo": "npm:typescript-eslint-parser@^1.0.0"`, "app:1.2.0-rc1@stable", "build:v2@latest is fine", "user:abc@host",
      "see //cdn.example.com/a@2x.png", "rsync -av ./ user@host:/srv/app", "npm i @types/node@20 --save"
    ]) stays(t)
    // an email stays the email rule's, whole
    expect(r.text("mailto:bob2@example.com")).toBe(`mailto:${marker("email")}`)
  })
})

describe("tester35a F3: a `'` inside a URL password", () => {
  it("goes whole; a quote around the URL stays", () => {
    everyForm(`mysql://u:${j("Qz7v'", "K2mX9pL")}@db/app`, `mysql://u:${U}@db/app`)
    everyForm(`mysql --url='mysql://u:${PW}@db/app' x`, `mysql --url='mysql://u:${U}@db/app' x`)
    expect(r.text(`['mysql://u:${PW}@a/x','mysql://v:${PW}@b/y']`)).toBe(`['mysql://u:${U}@a/x','mysql://v:${U}@b/y']`)
  })
})

describe("tester35c F4: a digest and a name that look like a vendor key's prefix", () => {
  it("a `sha256~` then hex digits, and `LTAI` then capitalized words, stay; real keys go", () => {
    stays(`/var/cache/sha256~${"0123456789abcdef".repeat(4)}`)
    stays(`/var/cache/sha256~${"0123456789ABCDEF".repeat(3)}`)
    stays("config LTAIGeneralPurposeConfigX here")
    stays("LTAIRegionEndpointResolverV")
    expect(r.text(`oc login --token=sha256~${j("kV46hPnEYhCWFnB85r5Nrpr", "Axggzgb6GOeLbgcKNsH0")} x`)).toBe(`oc login --token=${marker("openshift-token")} x`)
    expect(r.text(`id ${j("LTAI5tQz7vK2", "mXpL9wR4tY8n")} x`)).toBe(`id ${marker("alibaba-access-key")} x`)
    // (a key of letters alone, not capitalized words, goes too)
    expect(r.text(`id ${j("LTAIqzvKmXpL", "wRtYnBcFhJ")} x`)).toBe(`id ${marker("alibaba-access-key")} x`)
  })
})

describe("every shareable output of a tool call hides them", () => {
  it.effect("NDJSON export, ATIF, replay, Markdown", () =>
    Effect.gen(function*() {
      const inputs = [
        { command: `cat > cfg.js <<'EOF'\nconst cfg = {\n  apiKey:\n    "${KEY}",\n};\nEOF` },
        { command: `deploy --token=\\\n\t${TOK}` },
        { command: `curl -H 'Authorization: Bearer \\  \n  ${TOK}' https://api.x.io` },
        { command: `ssh-copy deploy:${PW}@10.0.0.5` }
      ]
      const outputs = yield* toolCallOutputs(inputs)
      for (const [name, out] of Object.entries(outputs)) {
        for (const s of [KEY, TOK, PW]) expect(out, name).not.toContain(s)
        expect(out, name).toContain("cfg.js")
      }
    }).pipe(Effect.provide(Redaction.layer)))
})
