/**
 * Session 34 (tester33c F1, F2): a secret cut by a shell's line continuations (`\` then a line break) two times or
 * more is hidden whole, in a prompt's text and in its title (docs/redaction.md, "Line continuations").
 * F1: a vendor-prefixed key (`ghp_…\`, `…\`, `…`: pieces 16/16/8, 12/14/14, 10/10/10/10; CRLF; indented next lines;
 * `sk-ant-`, `sk-proj-`, `AKIA`, `glpat-`, `xoxb-`) becomes its rule's marker, its continuations with it.
 * F2: the value of a secret's name given by `=` (`AWS_SECRET_ACCESS_KEY=…\`, `DB_PASSWORD=…\`, `API_KEY=…\`) runs
 * over continuations inside it, as a shell reads it; a plain line break still ends it.
 */
import { describe, expect, it } from "@effect/vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file
const GH = ["ghp_", "A1b2C3d4E5f6G7h8I9j0", "K1l2M3n4O5p6Q7r8"].join("") // 40 characters
const ANT = ["sk-ant-", "api03-", "Zq8Wd2Lm4Rt6Yp1Xc3Vb5Nk7Hj9Gf0Ds2Aa"].join("")
const PROJ = ["sk-", "proj-", "Hx7Kp2Qw9Lm4Tz6Rb1Nc8Vd3Fj5Gs0Ye"].join("")
const AKIA = ["AKIA", "Q3ZT5W7YR2MX8NP4"].join("")
const GLPAT = ["glpat-", "Xb4Rm9Tq2Wz7Lp5Kd8Hn"].join("")
const XOXB = ["xoxb-", "204518337461-", "2716455901823-", "Qm3Vn8Rt1Wx6Zp4Ly9Kb2Hd7"].join("")

/** `s` cut after the given piece lengths (the last piece the rest), the pieces joined by `sep`. */
const cut = (s: string, lengths: ReadonlyArray<number>, sep: string): { text: string; pieces: Array<string> } => {
  const pieces: Array<string> = []
  let p = 0
  for (const n of lengths) {
    pieces.push(s.slice(p, p + n))
    p += n
  }
  pieces.push(s.slice(p))
  return { text: pieces.join(sep), pieces }
}

const LF = "\\\n"
const CRLF = "\\\r\n"
const INDENT = "\\\n    "

/** No piece of `secret` (its 6-character windows: every piece of 6 or more holds one) is left in `out`. */
const noPieceOf = (out: string, secret: string, pieces: ReadonlyArray<string>) => {
  for (const piece of pieces) if (piece.length >= 4) expect(out, piece).not.toContain(piece)
  for (let i = 0; i + 6 <= secret.length; i++) expect(out, secret.slice(i, i + 6)).not.toContain(secret.slice(i, i + 6))
}

/** The prompt's text and its title, redacted. */
const both = (prompt: string) => ({ body: r.text(prompt), title: r.title(titleOf(prompt)) })

describe("tester33c F1: a key cut by two or more shell line continuations is hidden whole, in the text and the title", () => {
  const shapes: ReadonlyArray<readonly [string, string, string, ReadonlyArray<number>, string]> = [
    ["github-token", "16/16/8", GH, [16, 16], LF],
    ["github-token", "12/14/14", GH, [12, 14], LF],
    ["github-token", "10/10/10/10 (three continuations)", GH, [10, 10, 10], LF],
    ["github-token", "four continuations", GH, [8, 8, 8, 8], LF],
    ["github-token", "16/16/8, CRLF", GH, [16, 16], CRLF],
    ["github-token", "16/16/8, indented next lines", GH, [16, 16], INDENT],
    ["github-token", "a first piece of 5 (ghp_ and one)", GH, [5, 20], LF],
    ["anthropic-key", "sk-ant, three pieces", ANT, [14, 14], LF],
    ["anthropic-key", "sk-ant, four pieces, CRLF", ANT, [10, 10, 10], CRLF],
    ["openai-key", "sk-proj, three pieces", PROJ, [12, 12], LF],
    ["openai-key", "sk-proj, indented", PROJ, [12, 12], INDENT],
    ["aws-access-key", "AKIA, three pieces", AKIA, [8, 6], LF],
    ["aws-access-key", "AKIA, two pieces", AKIA, [10], LF],
    ["gitlab-token", "glpat-, three pieces", GLPAT, [10, 8], LF],
    ["slack-token", "xoxb-, three pieces", XOXB, [20, 20], LF],
    ["slack-token", "xoxb-, four pieces, indented", XOXB, [15, 15, 15], INDENT]
  ]
  for (const [id, name, secret, lengths, sep] of shapes) {
    it(`${id}: ${name}`, () => {
      const { text, pieces } = cut(secret, lengths, sep)
      const mark = marker(id)
      for (const [prompt, want, wantTitle] of [
        [`x ${text} ok`, `x ${mark} ok`, `x ${mark} ok`],
        [`a\nb ${text}\nc`, `a\nb ${mark}\nc`, `a b ${mark} c`]
      ]) {
        const { body, title } = both(prompt)
        expect(body).toBe(want)
        expect(title).toBe(wantTitle)
        noPieceOf(body, secret, pieces)
        noPieceOf(title, secret, pieces)
      }
      // in JSON text (a tool call's input), the continuation `\\` then `\n`
      const json = JSON.stringify({ command: `echo ${text} | login` })
      const red = r.text(json)
      expect(red).toBe(JSON.stringify({ command: `echo ${mark} | login` }))
    })
  }

  it("tester33c's shapes: `export GITHUB_TOKEN=` then the key in 16/16/8 and 12/14/14", () => {
    for (const lengths of [[16, 16], [12, 14]]) {
      const { text, pieces } = cut(GH, lengths, LF)
      const { body, title } = both(`export GITHUB_TOKEN=${text} deploy`)
      expect(body).toBe(`export GITHUB_TOKEN=${marker("github-token")} deploy`)
      expect(title).toBe(`export GITHUB_TOKEN=${marker("github-token")} deploy`)
      noPieceOf(body, GH, pieces)
      noPieceOf(title, GH, pieces)
    }
  })

  it("two keys, each cut twice, one after the other", () => {
    const a = cut(AKIA, [8, 6], LF)
    const b = cut(GLPAT, [10, 8], CRLF)
    const { body, title } = both(`${a.text} or ${b.text}`)
    expect(body).toBe(`${marker("aws-access-key")} or ${marker("gitlab-token")}`)
    expect(title).toBe(`${marker("aws-access-key")} or ${marker("gitlab-token")}`)
    noPieceOf(body, AKIA + GLPAT, [...a.pieces, ...b.pieces])
  })

  it("what is no key's rest stays: a whole key then an indented option, words joined by continuations", () => {
    // a whole key on its line, then an indented line of its own (the shell reads it as another word)
    const whole = `curl --oauth2-bearer ${PROJ}\\\n    --verbose https://example.com`
    expect(r.text(whole)).toBe(`curl --oauth2-bearer ${marker("openai-key")}\\\n    --verbose https://example.com`)
    // a command's words over continuations, no key among them
    const words = "docker run \\\n  --rm \\\n  -v data:/data \\\n  image:latest"
    expect(r.text(words)).toBe(words)
    const glued = "abc\\\ndef\\\nghi\\\njkl"
    expect(r.text(glued)).toBe(glued)
  })

  it("many continuations: a long text of `a\\` lines stays as it is and is read once", () => {
    const long = "a\\\n".repeat(20_000) + "end"
    expect(r.text(long)).toBe(long)
    const { text } = cut(GH, [16, 16], LF)
    const withKey = "a\\\n".repeat(20_000) + `x ${text} y`
    expect(r.text(withKey)).toBe("a\\\n".repeat(20_000) + `x ${marker("github-token")} y`)
  })
})

describe("tester33c F2: a secret's value under its name runs over shell line continuations inside it", () => {
  const SA = marker("secret-assignment")
  const values: ReadonlyArray<readonly [string, string]> = [
    ["AWS_SECRET_ACCESS_KEY", ["wJalrXUtnFEMI", "/K7MDENG/bPxRfiCY", "EXAMPLEKEY"].join("")],
    ["DB_PASSWORD", ["Hunter2", "Secret", "Pass99x"].join("")],
    ["API_KEY", ["k3yV4lu3", "Zq9Wd2Lm4", "Rt6Yp1"].join("")]
  ]
  for (const [name, secret] of values) {
    for (const [label, lengths, sep] of [
      ["cut once", [secret.length - 10], LF],
      ["cut twice", [9, 9], LF],
      ["cut three times", [6, 6, 6], LF],
      ["cut twice, CRLF", [9, 9], CRLF]
    ] as const) {
      it(`${name}: ${label}`, () => {
        const { text, pieces } = cut(secret, lengths, sep)
        const prompt = `${name}=${text} ok`
        const { body, title } = both(prompt)
        const want = `${name}=${SA} ok`
        expect(body).toBe(want)
        expect(title).toBe(want)
        noPieceOf(body, secret, pieces)
        noPieceOf(title, secret, pieces)
      })
    }
  }

  it("the value on the next line after `NAME=\\` (the shell's `NAME=value`)", () => {
    const { body, title } = both(`export DB_PASSWORD=\\\nHunter2SecretPass99x && deploy`)
    expect(body).toBe(`export DB_PASSWORD=${SA} && deploy`)
    expect(title).toBe(`export DB_PASSWORD=${SA} && deploy`)
  })

  it("in JSON text (a tool call's input): `\\\\` then `\\n`", () => {
    const json = JSON.stringify({ command: `export API_KEY=k3yV4lu3\\\nZq9Wd2Lm4\\\nRt6Yp1 && deploy` })
    expect(r.text(json)).toBe(JSON.stringify({ command: `export API_KEY=${SA} && deploy` }))
  })

  it("what ends a value still ends it: a plain line break, a blank before the `\\`, an indented next line", () => {
    expect(r.text("export API_KEY=k3yV4lu3Zq9\nnext line")).toBe(`export API_KEY=${SA}\nnext line`)
    expect(r.text("docker run -e API_KEY=k3yV4lu3Zq9 \\\n  -e MODE=fast image")).toBe(
      `docker run -e API_KEY=${SA} \\\n  -e MODE=fast image`
    )
    // the shell reads an indented line after the `\` and line break as a word of its own
    expect(r.text("PGPASSWORD=k3yV4lu3Zq9\\\n  psql -h db")).toBe(`PGPASSWORD=${SA}\n  psql -h db`)
  })
})
