/**
 * Session 35 (tester35a F2, F3, F5), the domain functions; the CLI's outputs: test/redaction-tester35a-cli.test.ts.
 * F2: a secret-named JSON key whose value is on the next line (`{"password":` then `    "…"}`: Prettier, black, jq,
 * an editor's wrap) goes, as on one line (`secret-field`), with LF, CRLF and their escapes in JSON text.
 * F3: a URL password holding a raw `/`, `#` or `?` goes whole (`url-credentials`); a port, a path, a query's email stay.
 * F5: a tool call's text (its input as one line of JSON) hides whatever its redacted structured input hides, for
 * the rules that read lines (a PEM key quoted with an uneven `>` prefix, a YAML block scalar, a continuation then a tab).
 * (docs/redaction.md: "Secrets under secret-named keys", `url-credentials`, "A tool call's input is redacted alike")
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
const U = marker("url-credentials")
// built at run time so that no secret scanner flags this file
const PW = j("Qz7vK2m", "XpL9w")
const KEY = j("Qz7vK2mXpL9w", "R4tY8nB3")

describe("tester35a F2: a secret-named JSON key with its value on the next line", () => {
  const cases = (nl: string, ind: string): ReadonlyArray<readonly [string, string]> => [
    [`{"password":${nl}${ind}"${PW}"}`, `{"password":${nl}${ind}"${F}"}`],
    [`{"db": {"password":${nl}"${PW}"}}`, `{"db": {"password":${nl}"${F}"}}`],
    [`{"db": {${nl}  "password":${nl}${ind}${ind}"${PW}"}}`, `{"db": {${nl}  "password":${nl}${ind}${ind}"${F}"}}`],
    [`x = {"password":${nl}${ind}"${PW}"}`, `x = {"password":${nl}${ind}"${F}"}`],
    [`{"api_key":${nl}${ind}"${KEY}"}`, `{"api_key":${nl}${ind}"${F}"}`],
    [`{'client_secret': ${nl}${ind}'${KEY}', 'user': 'bob'}`, `{'client_secret': ${nl}${ind}'${F}', 'user': 'bob'}`]
  ]
  for (const [label, nl, ind] of [["LF", "\n", "    "], ["CRLF", "\r\n", "    "], ["LF, tab", "\n", "\t"], ["blank line", "\n\n", "  "]] as const) {
    it(`as text (${label})`, () => {
      for (const [text, want] of cases(nl, ind)) {
        expect(r.text(text), text).toBe(want)
        expect(r.text(want), `idempotent: ${want}`).toBe(want)
      }
    })
    it(`in JSON text and in JSON text held in a string (${label}: \\n, \\r\\n, \\t escapes)`, () => {
      for (const [text, want] of cases(nl, ind)) {
        expect(r.text(JSON.stringify({ command: `echo '${text}'` })), text).toBe(JSON.stringify({ command: `echo '${want}'` }))
        expect(r.text(inString(JSON.stringify({ output: text })))).toBe(inString(JSON.stringify({ output: want })))
      }
    })
  }

  it("what is no secret on the next line stays", () => {
    for (const t of [
      `{"password":\n  {"type": "string", "minLength": 8}}`, // a schema: an object
      `{"password_policy":\n  "strict"}`, // another last word
      `{"max_tokens":\n  "4096"}`,
      `{"password":\n  "$DB_PASSWORD"}`, // a reference
      `{"api_key":\n  "name"}`, // a key's name: only what looks like a secret goes
      `{"password":\n  ""}`,
      `Enter the password:\n"Remember me" is a checkbox`, // an unquoted name: prose
      `{"password":\n\n\n\n  "${PW}"}` // more than three line breaks: no value of the key's
    ]) expect(r.text(t), t).toBe(t)
  })

  it("a list under a plural name on the next line is read as on one line (session 40: any white space between a JSON key's `:` and its value)", () => {
    const one = r.text(`{"passwords": ["a", "b"]}`)
    expect(r.text(`{"passwords":\n  ["a", "b"]}`)).toBe(one.replace(": [", ":\n  ["))
  })
})

describe("tester35a F3: a URL password holding a raw `/`, `#` or `?`", () => {
  it("goes whole, up to the `@` before the host", () => {
    const a = j("Zk4n/", "W8qP2Lm")
    const b = j("Zk4nW8#", "qP2Lm")
    const c = j("Rt3Ks6?", "Yb1Nc5")
    expect(r.text(`amqp://u:${a}@mq:5672/`)).toBe(`amqp://u:${U}@mq:5672/`)
    expect(r.text(`redis://default:${b}@cache:6379`)).toBe(`redis://default:${U}@cache:6379`)
    expect(r.text(`https://u:${c}@h.io/`)).toBe(`https://u:${U}@h.io/`)
    expect(r.text(`x amqp://u:${a}#z2@mq:5672/ and https://u:${c}@h.io/ y`)).toBe(`x amqp://u:${U}@mq:5672/ and https://u:${U}@h.io/ y`)
    // a query after the host: the password ends at the host's `@`, the query's email is the email rule's
    expect(r.text(`"amqp://u:${a}@mq:5672/?to=bob@example.com"`)).toBe(`"amqp://u:${U}@mq:5672/?to=${marker("email")}"`)
    // in JSON text (a tool call's text), with JSON-escaped slashes too
    expect(r.text(JSON.stringify({ command: `redis-cli -u redis://default:${b}@cache:6379` }))).toBe(JSON.stringify({ command: `redis-cli -u redis://default:${U}@cache:6379` }))
    expect(r.text(`"postgres:\\/\\/app:s3cr\\/et9x@db:5432\\/main"`)).toBe(`"postgres:\\/\\/app:${U}@db:5432\\/main"`)
  })

  it("ordinary text stays: a port, a path, a query's email, git's scp-like address", () => {
    for (const t of [
      "https://host/path?a=b@c",
      "git@github.com:org/repo",
      "ssh://git@github.com:org/repo.git",
      "git clone git@github.com:org/repo.git#v1@x",
      "https://registry.npmjs.org:443/@scope/pkg",
      "docker://reg:5000/img@sha256:abc",
      "http://localhost:port/api/a@b",
      "http://localhost:${PORT}/v1/a@b"
    ]) expect(r.text(t), t).toBe(t)
    // a query's email: the URL stays, the email is the email rule's
    for (const [t, want] of [
      ["https://example.com/x?email=bob@example.com", `https://example.com/x?email=${marker("email")}`],
      ["https://host:8443/path?email=bob@example.com", `https://host:8443/path?email=${marker("email")}`],
      ["https://host:v2/x?email=bob@example.com&to=x@y.org", `https://host:v2/x?email=${marker("email")}&to=${marker("email")}`],
      ["mongodb://h1:27017,h2:27017/db?user=me@corp.com", `mongodb://h1:27017,h2:27017/db?user=${marker("email")}`],
      ["http://localhost:$PORT/api?u=a@b.com", `http://localhost:$PORT/api?u=${marker("email")}`]
    ] as const) expect(r.text(t), t).toBe(want)
    // an `@` in the authority ends the password there, as before
    expect(r.text(`https://user:${PW}@host/x?email=bob@example.com`)).toBe(`https://user:${U}@host/x?email=${marker("email")}`)
  })
})

/** The three pieces of an RSA key's sample (no key), and a Markdown quote of it whose third line has no space after `>`. */
const BEGIN = j("-----BEGIN RSA ", "PRIVATE KEY-----")
const END = j("-----END RSA ", "PRIVATE KEY-----")
const L1 = j("MIIEowIBAAKCAQEAq7Zx9", "Lm2Qp4Wv8Rt3Ks6Yb1Nc5Hd0Jf7Ug2Ta9Xe4")
const L2 = j("Pw3Vq8Lz5Mn1Br6Cy0Dx4", "Ek7Fj2Gh9Hi3Jk6Ll1Mm8Nn5Oo2Pp0Qq7Rr4Ss")
const quoted = (nl: string) => `> ${BEGIN}${nl}> ${L1}${nl}>${L2}${nl}> ${END}`
/** Inputs whose strings a text rule reads by lines, each with the pieces no output may show. */
const INPUTS: ReadonlyArray<{ readonly input: Record<string, unknown>; readonly secrets: ReadonlyArray<string> }> = [
  { input: { command: `cat <<'EOF' > key.pem\n${quoted("\n")}\nEOF`, description: "write the key" }, secrets: [L1.slice(6, 30), L2.slice(0, 24), "END RSA"] },
  { input: { command: quoted("\r\n") }, secrets: [L1.slice(6, 30), L2.slice(0, 24), "END RSA"] },
  // a YAML block scalar under a secret's name, written by a heredoc (`secret-block`)
  { input: { command: `cat > s.yml <<EOF\npassword: |\n  ${PW}\n  ${KEY}\nEOF` }, secrets: [PW, KEY] },
  // the same after 900 characters: the event's text is cut at 1000 inside it
  { input: { description: "a".repeat(900), command: `\n${quoted("\n")}` }, secrets: [L1.slice(6, 30), L2.slice(0, 24)] }
]

describe("tester35a F5: a tool call's text hides what its structured input hides", () => {
  it("r.event: the text and the input alike", () => {
    INPUTS.forEach(({ input, secrets }, i) => {
      const e = sessionEvent(i + 1, { kind: "tool-call", toolName: "Bash", toolCallId: `c${i}`, toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
      const out = r.event(e) as unknown as { text: string; toolInput: unknown }
      for (const s of secrets) {
        expect(JSON.stringify(out.toolInput), `input ${i}`).not.toContain(s)
        expect(out.text, `text ${i}`).not.toContain(s)
      }
      // (the cut one ends before the key the cut goes through, as a cut word goes)
      if (i < 3) expect(out.text).toContain("[REDACTED:")
      else expect(out.text).toBe(`{"description":"${"a".repeat(900)}","command":"\\n>\u2026`)
    })
    // what the redaction keeps stays in the text: the heredoc, the description
    const e = sessionEvent(1, { kind: "tool-call", toolName: "Bash", toolCallId: "c", toolInput: INPUTS[0].input, text: toolInputText(INPUTS[0].input) } as Partial<SessionEvent>)
    expect((r.event(e) as unknown as { text: string }).text).toBe(JSON.stringify({ command: `cat <<'EOF' > key.pem\n> ${marker("private-key")}\nEOF`, description: "write the key" }))
  })

  it.effect("every shareable output (NDJSON export, ATIF, replay, Markdown) hides them", () =>
    Effect.gen(function*() {
      const outputs = yield* toolCallOutputs(INPUTS.map((c) => c.input))
      for (const [name, out] of Object.entries(outputs)) {
        for (const c of INPUTS) for (const s of c.secrets) expect(out, name).not.toContain(s)
        expect(out, name).toContain("write the key")
      }
    }).pipe(Effect.provide(Redaction.layer)))

  it("an input with nothing to hide keeps its text as it is", () => {
    const input = { command: "ls -la\n> notes.md\n>quoted", description: "list" }
    const e = sessionEvent(1, { kind: "tool-call", toolName: "Bash", toolCallId: "c", toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
    const out = r.event(e) as unknown as { text: string }
    expect(out.text).toBe(toolInputText(input))
  })
})
