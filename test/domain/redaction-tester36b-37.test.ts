/**
 * Session 37 (fix37a), the domain functions; the CLI's outputs: test/redaction-tester36b-37-cli.test.ts.
 * tester36b F3: `--password=\` then a line break and indentation (tab, blanks) before a QUOTED value; also `NAME=\`,
 * Python's `password = \` and curl's `-u \` before one.
 * tester36b F7: curl's (lftp's, HTTPie's) quoted `user:password` with an escaped quote inside (`\"`, the shell's `'\''`).
 * tester36b F8: Python's triple-quoted values, a quote that ends its line with the value on the next, implicit
 * concatenation of literals (`("Zq8v" "N3pLx2")`, `"…" +` then `"…"`).
 * tester36b F11: a value with blanks before it, a `*_key` value starting with `\n`, `\\` or `{` (text and structured).
 * tester36b F4: scheme-less `user:password@host` whose password holds `#`, `@`, `/` or `?`.
 * tester36b F5/F9 (F6 of the brief): an INI name's `=` (maybe a comment) then its value on the next, indented line;
 * YAML in a JSON string whose value is on the string's last line.
 * tester36b F10: `worker:node01@cluster` (a label) stays.
 * (docs/redaction.md: cli-secret-option, cli-password, secret-field, url-credentials, secret-mapping)
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { inString, j, toolCallOutputs } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
const A = marker("secret-assignment")
const O = marker("cli-secret-option")
const C = marker("cli-password")
const U = marker("url-credentials")
const M = marker("secret-mapping")
// built at run time so that no secret scanner flags this file
const S = j("Zq8v", "N3pLx2")
const S1 = j("Zq8", "v")
const S2 = j("N3p", "Lx2")
const T = j("SECRET", "part9x")

/** Each [text, want]: the text redacted is `want`, redacting again changes nothing, and as JSON text it is `want` as JSON text. */
const holds = (cases: ReadonlyArray<readonly [string, string]>, json = true) => {
  for (const [text, want] of cases) {
    expect(r.text(text), JSON.stringify(text)).toBe(want)
    expect(r.text(want), `idempotent: ${JSON.stringify(want)}`).toBe(want)
    if (!json) continue
    const once = JSON.stringify({ command: text })
    expect(r.text(once), once).toBe(JSON.stringify({ command: want }))
  }
}

describe("tester36b F3: a continuation and indentation before a quoted value", () => {
  it("--password=\\ then LF or CRLF, a tab or blanks, then \"…\" or '…': the value goes in its quotes", () => {
    const cases: Array<readonly [string, string]> = []
    for (const nl of ["\n", "\r\n"]) {
      for (const ind of ["\t", "    ", "\t\t", ""]) {
        for (const q of ["\"", "'"]) {
          cases.push([`mysql --password=\\${nl}${ind}${q}${S}${q} db`, `mysql --password=\\${nl}${ind}${q}${O}${q} db`])
          cases.push([`tool --api-key=\\${nl}${ind}${q}two words ${S}${q} x`, `tool --api-key=\\${nl}${ind}${q}${O}${q} x`])
        }
      }
    }
    holds(cases)
  })

  it("a name's `=` (shell, Python) and curl's -u before a continuation and a quoted value", () => {
    holds([
      [`export DB_PASSWORD=\\\n\t"${S}"`, `export DB_PASSWORD=\\\n\t"${A}"`],
      [`password = \\\n    "${S}"`, `password = \\\n    "${F}"`],
      [`api_key = \\\r\n    '${S}abc'`, `api_key = \\\r\n    '${F}'`],
      [`DB_PASSWORD=\\\n"${S}"`, `DB_PASSWORD=\\\n"${A}"`],
      [`curl -u \\\n\t'user:${S}' https://x`, `curl -u \\\n\t'user:${C}' https://x`]
    ])
  })

  it("two JSON levels deep (JSON text held in a JSON string): the value goes and the JSON stays the JSON it was", () => {
    const any = (t: string) => t.replace(/\[REDACTED:[a-z-]+\]/g, "[REDACTED]")
    for (const [text, want] of [
      [`mysql --password=\\\n\t"${S}" db`, `mysql --password=\\\n\t"${O}" db`],
      [`mysql --password=\\\r\n    '${S}' db`, `mysql --password=\\\r\n    '${O}' db`],
      [`export DB_PASSWORD=\\\n\t"${S}"`, `export DB_PASSWORD=\\\n\t"${A}"`],
      [`DB_PASSWORD=\\\n"${S}"`, `DB_PASSWORD=\\\n"${A}"`],
      [`curl -u \\\n\t'user:${S}' https://x`, `curl -u \\\n\t'user:${C}' https://x`]
    ]) {
      const twice = JSON.stringify({ d: JSON.stringify({ c: text }) })
      const out = r.text(twice)
      expect(out, twice).not.toContain(S)
      expect(any(JSON.parse(JSON.parse(out).d).c), twice).toBe(any(want))
    }
  })

  it("a reference or nothing after the continuation stays", () => {
    for (const t of [`tool --password=\\\n\t"$PW" x`, `tool --password=\\\n\t"" x`, `mysql --password=\\\n\t--user bob`]) expect(r.text(t), t).toBe(t)
  })
})

describe("tester36b F7: curl's quoted user:password with an escaped quote inside", () => {
  it("the password goes to its real closing quote; the user and the quotes stay", () => {
    holds([
      [`curl -u "user:ab\\"${T}" https://x`, `curl -u "user:${C}" https://x`],
      [`curl -u 'user:ab'\\''${T}' https://x`, `curl -u 'user:${C}' https://x`],
      [`curl --user="user:ab\\"${T}" https://x`, `curl --user="user:${C}" https://x`],
      [`curl --proxy-user 'user:ab'\\''${T}' -x p https://x`, `curl --proxy-user 'user:${C}' -x p https://x`],
      [`lftp -u 'bob,ab'\\''${T}' host`, `lftp -u 'bob,${C}' host`],
      [`http -a "user:ab\\"${T}" example.org`, `http -a "user:${C}" example.org`],
      [`curl -u "user:${S}" https://x`, `curl -u "user:${C}" https://x`]
    ])
    // JSON text held in a string (the quote escaped twice)
    const twice = inString(JSON.stringify({ c: `curl -u "user:ab\\"${T}" https://x` }))
    expect(r.text(twice)).toBe(inString(JSON.stringify({ c: `curl -u "user:${C}" https://x` })))
  })

  it("a user with no password stays", () => {
    for (const t of [`curl -u "user:" https://x`, `curl -u 'user' https://x`]) expect(r.text(t), t).toBe(t)
  })
})

describe("tester36b F8: triple quotes, a value on the next line, implicit concatenation", () => {
  it("Python's \"\"\"…\"\"\" and '''…''' on one line or over lines", () => {
    holds([
      [`password = """${S}"""`, `password = """${F}"""`],
      [`password = '''${S}'''`, `password = '''${F}'''`],
      [`password = """\n${S}\n"""`, `password = """${F}"""`],
      [`api_key = '''\n    ${S}abcdef\n'''`, `api_key = '''${F}'''`],
    ])
    // (a keyword argument on a line of its own, in JSON text, is `secret-line`'s: the whole rest of the line goes)
    holds([[`DB = dict(\n    password="""${S}""",\n)`, `DB = dict(\n    password="""${F}""",\n)`]], false)
    expect(r.text(JSON.stringify({ c: `DB = dict(\n    password="""${S}""",\n)` }))).not.toContain(S)
  })

  it("a quote that ends its line, the value on the next", () => {
    holds([
      [`password: "\n${S}"`, `password: "${F}"`],
      [`password = "\r\n${S}"`, `password = "${F}"`],
      [`{"password": "\n    ${S}"}`, `{"password": "${F}"}`],
      [`secret: '\n  ${S}'\nuser: bob`, `secret: '${F}'\nuser: bob`]
    ])
  })

  it("an option's value: alone on the line after its quote, or in triple quotes (a shell reads `\'\'\'…\'\'\'` as the value between empty strings)", () => {
    holds([
      [`mytool --password "\n${S}" x`, `mytool --password "${O}" x`],
      [`mytool --password '\r\n  ${S}' x`, `mytool --password '${O}' x`],
      [`mytool --password '\'\'${S}\'\'' x`, `mytool --password '\'\'${O}\'\'' x`],
      [`mytool --token="""${S}""" x`, `mytool --token="""${O}""" x`],
      [`export DB_PASSWORD="\n${S}"`, `export DB_PASSWORD="${A}"`],
      [`DB_PASSWORD='\n  ${S}' ./run`, `DB_PASSWORD='${A}' ./run`]
    ])
    for (const t of [`echo "use --password "\nthen run it" x`, `mytool --password "\n$PW" x`]) expect(r.text(t), t).toBe(t)
  })

  it("implicit concatenation and `+` between literals: every literal of the value goes", () => {
    holds([
      [`password = ("${S1}" "${S2}")`, `password = ("${F}")`],
      [`password = (\n    "${S1}"\n    "${S2}"\n)`, `password = (\n    "${F}"\n)`],
      [`password = ('${S1}' '${S2}')`, `password = ('${F}')`],
      [`const password = "${S1}" +\n  "${S2}";`, `const password = "${F}";`],
      [`api_key = ("${S}" "abcdef")`, `api_key = ("${F}")`]
    ])
  })

  it("prompts, code and empty strings stay", () => {
    for (const t of [
      `print("password: "\n      + pw + " and " + user)`,
      `msg = "Enter password: "\nuser = "bob"`,
      `print("password: " + pw + " x")`,
      `password = ""`,
      `password = """"""`,
      `docstring = """password: """`,
      `{"password": "\n"}`,
      `password = ("$PW")`
    ]) expect(r.text(t), JSON.stringify(t)).toBe(t)
  })
})

describe("tester36b F11: blanks before a value, `*_key` values starting with `\\n`, `\\\\` or `{`", () => {
  it("as text", () => {
    holds([
      [`{"password": " ${S}"}`, `{"password": "${F}"}`],
      [`{"password": "\t${S}"}`, `{"password": "${F}"}`],
      [`{'password': ' ${S}', 'u': 'b'}`, `{'password': '${F}', 'u': 'b'}`],
      [`{"api_key": "\\n${S}abcdef"}`, `{"api_key": "${F}"}`],
      [`{"private_key": "\\n${S}abcdef"}`, `{"private_key": "${F}"}`],
      [`{"api_key": "\\\\${S}abcdef"}`, `{"api_key": "${F}"}`],
      [`{"secret_key": "{${S}abcdef"}`, `{"secret_key": "${F}"}`],
      [`{"api_key": " ${S}abcdef"}`, `{"api_key": "${F}"}`]
    ])
  })

  it("in a structured value (a tool call's input)", () => {
    for (const v of [` ${S}`, `\n${S}abcdef`, `\\${S}abcdef`, `{${S}abcdef`, `\t ${S}abc`]) {
      for (const k of ["password", "api_key", "secret_key", "private_key"]) {
        const out = r.value({ [k]: v, user: "bob" }) as Record<string, unknown>
        expect(out, `${k}: ${JSON.stringify(v)}`).toEqual({ [k]: F, user: "bob" })
      }
    }
  })

  it("placeholders, templates, JSON in a string and blanks alone stay", () => {
    for (const t of [`{"password": " "}`, `{"api_key": "{api_key}"}`, `password = "{password}"`, `{"api_key": "{{ key }}"}`, `{"secret_key": "{0}"}`]) {
      expect(r.text(t), t).toBe(t)
    }
    for (const v of [" ", "\n\n", "{api_key}", "{{ key }}", "{0}", "{\"k\": \"v1\"}", "${PW}", " $PW"]) {
      for (const k of ["password", "api_key"]) expect(r.value({ [k]: v }), `${k}: ${JSON.stringify(v)}`).toEqual({ [k]: v })
    }
  })

  it.effect("every shareable output hides a structured value with blanks or `{` before it", () =>
    Effect.gen(function*() {
      const outputs = yield* toolCallOutputs([{ env: { DB_PASSWORD: ` ${S}` } }, { config: { api_key: `{${S}abcdef` } }])
      for (const [name, out] of Object.entries(outputs)) expect(out, name).not.toContain(S)
    }).pipe(Effect.provide(Redaction.layer)))
})

describe("tester36b F4: a scheme-less user:password@host whose password holds `#`, `@`, `/` or `?`", () => {
  it("the password goes whole, the user and the host stay", () => {
    holds([
      [`deploy:${S1}#${S2}@db.internal`, `deploy:${U}@db.internal`],
      [`deploy:${S1}@${S2}@db.internal`, `deploy:${U}@db.internal`],
      [`deploy:${S1}/${S2}@db.internal`, `deploy:${U}@db.internal`],
      [`deploy:${S1}?${S2}@db.internal:5432`, `deploy:${U}@db.internal:5432`],
      [`lftp -e 'open deploy:${S1}#${S2}@10.0.0.5'`, `lftp -e 'open deploy:${U}@10.0.0.5'`],
      [`rsync -a x deploy:${S1}@${S2}@backup:/srv`, `rsync -a x deploy:${U}@backup:/srv`]
    ])
  })

  it("a package and its version, an image's digest, a time stay", () => {
    for (const t of [`npm:lodash/fp2@4.17.21`, `jsr:@std/assert1@1.0.0`, `git@github.com:org/repo2@v1`, `time 10:30@place`, `img:v1.2@sha256:abc`]) expect(r.text(t), t).toBe(t)
  })
})

describe("tester36b F5/F9: a value on the line after its name", () => {
  it("INI: `=`, maybe a comment, then the value alone on the next, indented line", () => {
    holds([
      [`password = # set below\n  ${S}`, `password = # set below\n  ${F}`],
      [`password = # set below\r\n\t${S}\r\nuser = bob`, `password = # set below\r\n\t${F}\r\nuser = bob`],
      [`[db]\npassword =\n    ${S}\nuser = bob`, `[db]\npassword =\n    ${F}\nuser = bob`],
      [`api_key = ; key below\n    ${S}abcdef`, `api_key = ; key below\n    ${F}`]
    ])
  })

  it("YAML: the value on an indented line after a bare key, also in a JSON string whose last line it is", () => {
    holds([
      [`password:\n  ${S}`, `password:\n  ${M}`],
      [`password: # set below\n  ${S}`, `password: # set below\n  ${M}`],
      [`api_key:\n  ${S}abc`, `api_key:\n  ${M}`],
      [`password:\n  - ${S}`, `password:\n  - ${M}`]
    ])
  })

  it("code and prose on the next line stay", () => {
    for (const t of [`const password =\n    getPassword();`, `api_key =\n    settings.API_KEY2`, `password =\n    abc`, `password = # see docs\n  then run it again`]) {
      expect(r.text(t), t).toBe(t)
    }
  })
})

describe("tester36b F10: a worker's label is no credential", () => {
  it("worker:node01@cluster and the like stay; a password of the same shape under another name still goes", () => {
    for (const t of [`worker:node01@cluster`, `ssh worker:node01@cluster`, `job:gpu3@rack2`, `task:executor-12@spark`]) expect(r.text(t), t).toBe(t)
    holds([[`admin:hunter22@db`, `admin:${U}@db`], [`deploy:${S}@10.0.0.5`, `deploy:${U}@10.0.0.5`]])
  })
})
