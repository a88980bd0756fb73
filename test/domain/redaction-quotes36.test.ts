/**
 * Session 36 (fix36a), the domain functions; the CLI's outputs: test/redaction-quotes36-cli.test.ts.
 * tester35a F10: an escaped or doubled quote is part of a quoted value, which runs to its real closing quote: JSON's
 * and the shell's `\"` in "…", Python's `\'` in '…', the shell's `'\''` idiom, YAML's `''` in '…', `\\\"` one JSON
 * level deeper; `secret-field`, `secret-assignment`, `cli-secret-option`, `authorization`, `secret-pair`,
 * `secret-spaced-key` alike. An escaped backslash before the closing quote (`"a\\"`) leaves it closing.
 * tester35c F1: `"password":` then `null,` / `true,` / `false,` on the next line stays, comma and all.
 * tester35c F3: a quoted value whose closing quote is more than 4 line breaks away loses at least its first line's part.
 * (docs/redaction.md: secret-field, secret-assignment, cli-secret-option, secret-mapping, "Not covered")
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { toolInputText } from "../../src/domain/tool-input-text.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { inString, j, sessionEvent, toolCallOutputs } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
const A = marker("secret-assignment")
const O = marker("cli-secret-option")
// built at run time so that no secret scanner flags this file
const P1 = j("Qz7", "v")
const P2 = j("K2mX", "9pL")
const P3 = j("Zk4n", "W8")

/** [text, the text redacted]: the value whole between its quotes, what is around it kept. */
const F10: ReadonlyArray<readonly [string, string]> = [
  [`{"password": "${P1}\\"${P2}\\"${P3}"}`, `{"password": "${F}"}`],
  [`export DB_PASSWORD="${P1}\\"${P2}" && run`, `export DB_PASSWORD="${A}" && run`],
  [`export DB_PASSWORD='${P1}'\\''${P2}' && run`, `export DB_PASSWORD='${A}' && run`],
  [`mytool --password "${P1}\\"${P2}" x`, `mytool --password "${O}" x`],
  [`mytool --password '${P1}'\\''${P2}' x`, `mytool --password '${O}' x`],
  [`password: '${P1}''${P2}'\nuser: bob`, `password: '${F}'\nuser: bob`],
  [`cfg = {'password': '${P1}\\'${P2}', 'user': 'bob'}`, `cfg = {'password': '${F}', 'user': 'bob'}`],
  [`password = "${P1}\\"${P2}"\nuser = "bob"`, `password = "${F}"\nuser = "bob"`],
  [`{"args": "{\\"password\\": \\"${P1}\\\\\\"${P2}\\"}"}`, `{"args": "{\\"password\\": \\"${F}\\"}"}`],
  [`{"env": {"API_TOKEN": "${P1}\\"${P2}${P3}"}}`, `{"env": {"API_TOKEN": "${F}"}}`],
  [`{"Authorization": "${P1}\\"${P2}${P3}"}`, `{"Authorization": "${marker("authorization")}"}`],
  [`{"Db Password": "${P1}\\"${P2}"}`, `{"Db Password": "${marker("secret-spaced-key")}"}`],
  [`{"name": "DB_PASSWORD", "value": "${P1}\\"${P2}"}`, `{"name": "DB_PASSWORD", "value": "${marker("secret-pair")}"}`],
  // a JavaScript template literal
  [`const apiKey = \`${P1}\\\`${P2}\``, `const apiKey = \`${F}\``]
]

describe("tester35a F10: an escaped or doubled quote is the value's own", () => {
  it("as text: the value goes to its real closing quote, the rest of the line stays", () => {
    for (const [text, want] of F10) {
      expect(r.text(text), text).toBe(want)
      expect(r.text(want), `idempotent: ${want}`).toBe(want)
    }
  })

  it("in JSON text (a tool call's one-line text) and in JSON text held in a string: the JSON stays the JSON it was", () => {
    for (const [text, want] of F10) {
      const once = JSON.stringify({ command: text })
      expect(r.text(once), once).toBe(JSON.stringify({ command: want }))
      expect(JSON.parse(r.text(once)), once).toEqual({ command: want })
      // (an option's value two JSON levels deep is read by no rule yet, escaped quote or not: docs/redaction.md's gaps)
      if (text.startsWith("mytool")) continue
      const twice = inString(JSON.stringify({ output: text }))
      // (at that depth another rule may be the one that reads it: the markers' names aside, the same text)
      const any = (t: string) => t.replace(/\[REDACTED:[a-z-]+\]/g, "[REDACTED]")
      expect(any(r.text(twice)), twice).toBe(any(inString(JSON.stringify({ output: want }))))
    }
  })

  it.effect("a tool call's structured input and its text hide it alike (r.event), and every shareable output", () =>
    Effect.gen(function*() {
      const inputs = [{ command: F10[1][0] }, { command: F10[2][0] }, { env: { API_TOKEN: `${P1}"${P2}${P3}` } }, { command: F10[6][0] }]
      inputs.forEach((input, i) => {
        const e = sessionEvent(i + 1, { kind: "tool-call", toolName: "Bash", toolCallId: `c${i}`, toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
        const out = r.event(e) as unknown as { text: string; toolInput: unknown }
        for (const s of [P1, P2]) {
          expect(JSON.stringify(out.toolInput), `input ${i}`).not.toContain(s)
          expect(out.text, `text ${i}`).not.toContain(s)
        }
      })
      const outputs = yield* toolCallOutputs(inputs)
      for (const [name, out] of Object.entries(outputs)) for (const s of [P1, P2, P3]) expect(out, name).not.toContain(s)
    }).pipe(Effect.provide(Redaction.layer)))

  it("ordinary text stays: escaped backslashes, empty values, adjacent values, apostrophes", () => {
    const kept: ReadonlyArray<readonly [string, string]> = [
      // an escaped backslash, then the closing quote: what follows is no value
      [`{"password": "${P1}\\\\", "user": "bob"}`, `{"password": "${F}", "user": "bob"}`],
      [`{"token": "${P1}${P2}\\\\", "next": "a\\"b"}`, `{"token": "${F}", "next": "a\\"b"}`],
      [`export DB_PASSWORD="${P1}\\\\" && echo "done"`, `export DB_PASSWORD="${A}" && echo "done"`],
      // one JSON level deeper: a JSON string ending in `\\`
      [`{"args": "{\\"password\\": \\"${P1}\\\\\\\\\\", \\"user\\": \\"bob\\"}"}`, `{"args": "{\\"password\\": \\"${F}\\", \\"user\\": \\"bob\\"}"}`],
      // Python: an escaped backslash, then the closing quote, then the next member
      [`cfg = {'password': '${P1}\\\\', 'user': 'bob'}`, `cfg = {'password': '${F}', 'user': 'bob'}`],
      // two adjacent quoted values: the second is no part of the first
      [`mytool --password '${P1}${P2}' 'next arg'`, `mytool --password '${O}' 'next arg'`],
      [`mytool --password "${P1}${P2}" "next arg"`, `mytool --password "${O}" "next arg"`],
      // apostrophes in prose around a value
      [`it's done: --password '${P1}${P2}' and don't share it`, `it's done: --password '${O}' and don't share it`]
    ]
    for (const [text, want] of kept) expect(r.text(text), text).toBe(want)
    for (const t of [
      `{"password": "", "user": "bob"}`,
      `password: '' and 'x'`,
      `password = ''`,
      `DB_PASSWORD='' ./run 'a'`,
      `mytool --password '' 'next'`,
      `{"path": "C:\\\\Users\\\\", "name": "bob"}`,
      `it's what we don't say: 'a' 'b' ''`,
      `{"password":\n  ""}`
    ]) expect(r.text(t), t).toBe(t)
  })
})

describe("tester35c F1: a JSON literal under a secret's name on the next line stays, comma and all", () => {
  it("null, true, false stay; a PIN goes and its comma stays", () => {
    const t = `{\n  "password":\n    null,\n  "token":\n    true,\n  "api_key":\n    false,\n  "x": 1\n}`
    expect(r.text(t)).toBe(t)
    expect(r.text(t.replace(/\n/g, "\r\n"))).toBe(t.replace(/\n/g, "\r\n"))
    expect(r.text(JSON.stringify({ output: t }))).toBe(JSON.stringify({ output: t }))
    expect(r.text(`{\n  "password":\n    84736251,\n  "x": 1\n}`)).toBe(`{\n  "password":\n    ${marker("secret-mapping")},\n  "x": 1\n}`)
  })
})

describe("tester35c F3: a quoted value whose closing quote is out of reach loses its first line", () => {
  it("more than 4 line breaks, or none: the part on the opening quote's line goes", () => {
    const v = (nl: string) => `${P1}${P2}${nl}ab${nl}cd${nl}ef${nl}gh${nl}${P3}`
    for (const nl of ["\n", "\r\n"]) {
      expect(r.text(`API_KEY="${v(nl)}" run`)).toBe(`API_KEY="${A}"${nl}ab${nl}cd${nl}ef${nl}gh${nl}${P3}" run`)
      expect(r.text(`API_KEY='${v(nl)}' run`)).toBe(`API_KEY='${A}'${nl}ab${nl}cd${nl}ef${nl}gh${nl}${P3}' run`)
      expect(r.text(`mytool --password "${v(nl)}" x`)).toBe(`mytool --password "${O}"${nl}ab${nl}cd${nl}ef${nl}gh${nl}${P3}" x`)
      expect(r.text(`{"password": "${v(nl)}"}`)).toBe(`{"password": "${F}"${nl}ab${nl}cd${nl}ef${nl}gh${nl}${P3}"}`)
    }
    // no closing quote at all (a text cut short)
    expect(r.text(`export DB_PASSWORD="${P1}${P2}`)).toBe(`export DB_PASSWORD="${A}"`)
    // within reach (4 line breaks), the whole value goes as before
    expect(r.text(`API_KEY="${P1}\nab\ncd\nef\n${P3}" run`)).toBe(`API_KEY="${A}" run`)
  })

  it("ordinary text stays: a quote with nothing after it on its line, a reference", () => {
    for (const t of [`API_KEY="\nab\ncd\nef\ngh\nij" run`, `--password "$PW\nab\ncd\nef\ngh\n" x`, `{"password": "\n"}`]) expect(r.text(t), t).toBe(t)
  })
})
