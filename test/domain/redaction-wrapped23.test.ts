/**
 * Session 23 (tester23b F1, F7's first point). (F1) A token wrapped over lines leaked whole when its lines carried a
 * prefix: indentation (spaces, tabs: tool output, YAML, a Markdown code block), a Markdown quote `> `, Claude Code's
 * Read gutter (`     1→`), or blanks before each line break (a terminal's or tmux's padding), also with CRLF. Now
 * the lines after a key's first line may carry the first line's prefix (its line numbers counting on) or blanks at
 * their end, and the key goes whole as its rule's marker, the first line's prefix kept; two keys on two lines stay two
 * keys (a line that starts with the rule's prefix is no continuation: before, the second lost its `ghp` to the first's
 * marker and its body stayed). (F7) `ghp\x5f…` (C's, Python's `\x`) and `ghp&#095;…` (a numeric reference with
 * leading zeros) stayed; now `\xNN`, `\u{NN}`, `\U000000NN` and numeric references with leading zeros (decimal and
 * hex) are decoded too.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Transcript } from "../../src/domain/model.js"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { builtinRules, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction
const GH = marker("github-token")
/** A 40-character `ghp_` token, its body starting with `start` (the tester's generator: `tok`). */
const tok = (start: string) => j("gh", "p_", start, Array.from({ length: 36 - start.length }, (_, i) => "aB3"[i % 3]).join(""))
/** `s` cut into lines of `w` characters (`fold -w w`). */
const fold = (s: string, w: number) => s.match(new RegExp(`.{1,${w}}`, "g"))!
/** The rules `wrapped-key` reads (their tokens start with a prefix). */
const WRAPPED_IDS = ["jwt", "anthropic-key", "openai-key", "github-token", "slack-token", "stripe-key", "gitlab-token", "huggingface-token",
  "pypi-token", "groq-key", "xai-key", "vault-token", "google-oauth-token"]
const PREFIXED = /^(?:sk-|gh[pousr]_|github_pat_|eyJ|xox[abeoprs]|xapp-|[srp]k_(?:live|test)_|whsec_|gl(?:pat|ptt|dt|rt|ft|oas)-|hf_|pypi-|gsk_|xai-|hv[sbr]\.|ya29\.)/

/** What each wrapped line may start with, by line number (0 for the first). */
const PREFIXES: ReadonlyArray<readonly [string, (n: number) => string]> = [
  ["4 spaces", () => "    "], ["2 spaces", () => "  "], ["a tab", () => "\t"], ["2 tabs", () => "\t\t"], ["a quote", () => "> "],
  ["a nested quote", () => "> > "], ["Read's gutter (9 to 10)", (n) => `${String(n + 8).padStart(6)}\u2192`],
  ["bat's gutter", (n) => `${String(n + 1).padStart(4)} \u2502 `], ["cat -n", (n) => `${String(n + 1).padStart(6)}\t`], ["a comment", () => "# "],
  ["a gutter in a quote", (n) => `> ${String(n + 1).padStart(3)}\u2192`]
]

describe("session 23 (tester23b F1): a key wrapped over lines that carry a prefix goes whole", () => {
  it("the tester's texts: indentation, tabs, a quote, Claude Code's Read gutter, trailing spaces (LF, CRLF)", () => {
    const t = tok("Zq9bBcDeFgHiJkLmNoP")
    const [a, b] = [t.slice(0, 22), t.slice(22)]
    expect(r.text(`output:\n    ${a}\n    ${b}\n`)).toBe(`output:\n    ${GH}\n`)
    expect(r.text(`\t${a}\n\t${b}`)).toBe(`\t${GH}`)
    expect(r.text(`> ${a}\n> ${b}`)).toBe(`> ${GH}`)
    expect(r.text(`     1\u2192${a}\n     2\u2192${b}`)).toBe(`     1\u2192${GH}`)
    expect(r.text(`${a}   \n${b}   `)).toBe(`${GH}   `)
    expect(r.text(`token:\r\n${a}   \r\n${b}   \r\nthanks`)).toBe(`token:\r\n${GH}   \r\nthanks`)
    expect(r.text(`    ${a}  \r\n    ${b}  \r\n`)).toBe(`    ${GH}  \r\n`)
    // JSON text: the breaks written `\n`, `\r\n`
    expect(r.text(JSON.stringify({ out: `    ${a}\n    ${b}\n` }))).toBe(JSON.stringify({ out: `    ${GH}\n` }))
    expect(r.text(inString(`> ${a}   \r\n> ${b}\r\nok`))).toBe(inString(`> ${GH}\r\nok`))
  })

  it("every wrapped key rule, each prefix, at 23, 40 and 64 columns, with blanks before LF or CRLF: one marker, the first prefix kept", () => {
    let n = 0
    for (const id of WRAPPED_IDS) {
      for (const key of secretSamples()[id].filter((k) => PREFIXED.test(k))) {
        for (const w of [23, 40, 64]) {
          const lines = fold(key, w)
          const rest = lines.slice(1).join("")
          // (a rest under 16 characters with no digit is read as a word: not promised, prefix or none)
          if (lines.length < 2 || (rest.length < 16 && !/[0-9]/.test(rest))) continue
          for (const [name, prefix] of PREFIXES) {
            for (const [pad, br] of [["", "\n"], ["   ", "\n"], ["", "\r\n"], ["  ", "\r\n"]]) {
              const text = `output:${br}${lines.map((l, k) => `${prefix(k)}${l}${pad}`).join(br)}${br}(end) ok`
              expect(r.text(text), `${id} ${w} ${name} ${JSON.stringify(text)}`).toBe(`output:${br}${prefix(0)}${marker(id)}${pad}${br}(end) ok`)
              n++
            }
          }
        }
      }
    }
    expect(n).toBeGreaterThan(1500)
  })

  it("the rest under the key's column (a hanging indent), text after the key on its last line, a name before it", () => {
    const t = tok("Zq9HangAbCdEfGh")
    expect(r.text(`  token: ${t.slice(0, 20)}\n         ${t.slice(20)}\n  other: x`)).toBe(`  token: ${GH}\n  other: x`)
    expect(r.text(`     1\u2192${t.slice(0, 22)}\n     2\u2192${t.slice(22)} && make\n`)).toBe(`     1\u2192${GH} && make\n`)
    expect(r.text(`> export GITHUB_TOKEN=${t.slice(0, 22)}\n> ${t.slice(22)}\n> then run it`)).toBe(`> export GITHUB_TOKEN=${GH}\n> then run it`)
    // an indented line wrapped by the terminal (the next line starts at the column 0)
    const line = `    export GITHUB_TOKEN=${t.slice(0, 20)}`
    expect(r.text(`${line}\n${t.slice(20)}\n`)).toBe(`    export GITHUB_TOKEN=${GH}\n`)
  })

  it("two keys on two lines stay two keys: no piece of the second is left (before: its body stayed, no prefix needed)", () => {
    const [g1, g2] = [secretSamples()["github-token"][0], secretSamples()["github-token"][1]]
    for (const [p1, p2] of [["", ""], ["    ", "    "], ["> ", "> "], ["     1\u2192", "     2\u2192"]]) {
      const out = r.text(`${p1}${g1}\n${p2}${g2}\n`)
      expect(out).toBe(`${p1}${GH}\n${p2}${GH}\n`)
      expect(out).not.toContain(g2.slice(4, 20))
    }
    const [k1, k2] = secretSamples()["anthropic-key"]
    expect(r.text(`  ${k1}\n  ${k2}`)).toBe(`  ${marker("anthropic-key")}\n  ${marker("anthropic-key")}`)
  })

  it("what is no wrapped key stays: hex lines, a short placeholder, prose, another prefix, a YAML line after a key", () => {
    const g = secretSamples()["github-token"][0]
    // two different indented short hex or base64 lines (no key's prefix), alone and under a key
    stays("    0a1b2c3d4e5f6a7b8c9d\n    9f8e7d6c5b4a39281706\n")
    stays("    dGhpcyBpcyBub3Qg\n    YSB0b2tlbiBhdCBhbGw=\n")
    expect(r.text(`    ${g}\n    0a1b2c3d\n    9f8e7d6c\n`)).toBe(`    ${GH}\n    0a1b2c3d\n    9f8e7d6c\n`)
    // a short key-like placeholder, then hex: too short a token to be one
    stays("    ghp_abcdef0123456789ab\n    deadbeef\n")
    // a quoted key, then prose in the quote; a gutter's next line; a YAML line under a key (a short word with a digit)
    expect(r.text(`> ${g}\n> Thanks, that works`)).toBe(`> ${GH}\n> Thanks, that works`)
    expect(r.text(`     1\u2192${g}\n     2\u2192next 2 lines`)).toBe(`     1\u2192${GH}\n     2\u2192next 2 lines`)
    expect(r.text(`  token: ${g}\n  key2: value`)).toBe(`  token: ${GH}\n  key2: value`)
    // a line with another prefix than the key's is not its rest
    expect(r.text(`> ${g}\n    deadbeef0123abcdef01\n`)).toBe(`> ${GH}\n    deadbeef0123abcdef01\n`)
    // a command on the next line is not the key's rest: its password is still found by its rule (and `7z` stays)
    expect(r.text(`    ${g}\n    7z a -pS3cretPw1 out.7z\n`)).toBe(`    ${GH}\n    7z a -p${marker("command-password")} out.7z\n`)
    const t = tok("Zq9SevenZipAb")
    expect(r.text(`    ${t.slice(0, 22)}\n    ${t.slice(22)}\n    7z a -pS3cretPw1 out.7z\n`))
      .toBe(`    ${GH}\n    7z a -p${marker("command-password")} out.7z\n`)
    // a git log's indented body, Markdown code with short lines
    stays("commit 0a1b2c3d4e5f67890a1b2c3d4e5f678901234567\nAuthor: Bob\n\n    fix the parser\n    and the tests\n")
    stays("> sk-learn is a nickname\n> for scikit-learn 1.5\n")
  })

  it("a session's title (the first prompt, each white space run one space: titleOf) loses the key too", () => {
    const t = tok("Zq9TitleAbCdEf")
    const [a, b] = [t.slice(0, 22), t.slice(22)]
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`> ${a}\n> ${b}`, `> ${GH}`],
      [`    ${a}\n    ${b}\n`, GH],
      [`\t${a}\r\n\t${b}`, GH],
      [`     1\u2192${a}\n     2\u2192${b}`, `1\u2192${GH}`],
      [`${a}   \n${b}   `, GH],
      [`Please check:\n> ${a}\n> ${b}\n> thanks`, `Please check: > ${GH} > thanks`]
    ]
    for (const [prompt, title] of cases) expect(r.title(titleOf(prompt)), prompt).toBe(title)
    // a whole key, then a word; a key-like word too short to be one with the next: each stays as it is
    const g = secretSamples()["github-token"][0]
    expect(r.title(titleOf(`use ${g} 2day`))).toBe(`use ${GH} 2day`)
    expect(r.title("ghp_abcdefghijklmnopqr is a placeholder 123")).toBe("ghp_abcdefghijklmnopqr is a placeholder 123")
    // a key wrapped after a name and `=` (env23's leftover): without the prompt it was cut from, the title still loses
    // the whole key, not its first line only (secret-assignment used to take `NAME=<first part>` and leave the rest)
    for (const [prompt, title] of [
      [`use GITHUB_TOKEN=${a}\n${b}\nplease`, `use GITHUB_TOKEN=${GH} please`],
      [`export GITHUB_TOKEN=${a}\n${b}`, `export GITHUB_TOKEN=${GH}`]
    ] as const) {
      const shown = r.title(titleOf(prompt))
      expect(shown, prompt).not.toContain(b)
      expect(shown, prompt).toBe(title)
    }
    // through a transcript's redaction (the title the Markdown output's H1 shows)
    const transcript = { sessionId: "s1", title: titleOf(cases[0][0]), turns: [], compactions: [], startedAt: null, endedAt: null } as unknown as Transcript
    expect(r.transcript(transcript).title).toBe(`> ${GH}`)
  })

  it("many lines of one width that start with a key's prefix are each no key's rest (and are not read again and again)", () => {
    // (a wrap attempt per line read every line after it: quadratic, seconds for 100 KB; now a line that starts with the
    // rule's prefix ends a key's rest, and a rest is read up to a bound)
    for (const prefix of ["", "    ", "> "]) {
      const lines = Array.from({ length: 3000 }, () => `${prefix}ghp_abcdefghijklmnopqrstu`).join("\n")
      expect(r.text(lines)).toBe(lines)
    }
    const gutter = Array.from({ length: 3000 }, (_, n) => `${String(n).padStart(6)}\u2192ghp_abcdefghijklmnopqrstu`).join("\n")
    expect(r.text(gutter)).toBe(gutter)
  })
})

describe("session 23 (tester23b F7): a token's characters written as `\\x` escapes or zero-padded references", () => {
  const body = j("Zq9", "cBcDeFgHiJkLmNoPQrStUvWxYz0123456789")
  const E = marker("escaped-token")
  it("the tester's texts, and the other forms of the same escapes", () => {
    expect(gone(`x ghp\\x5f${body} x`, body, "x ", " x")).toBe(`x ${E} x`)
    expect(gone(`x ghp&#095;${body} x`, body)).toBe(`x ${E} x`)
    for (const esc of ["\\x5F", "\\\\x5f", "&#0095;", "&#00000095;", "&#x05f;", "&#X005F;", "&#x0000005f;", "\\u{5f}", "\\u{005F}", "\\U0000005f", "&UnderBar;"]) {
      expect(gone(`token ghp${esc}${body} here`, body), esc).toBe(`token ${E} here`)
    }
    // every character escaped (a C string of `\x` escapes), a JSON string's `\\x73`
    const hexAll = [..."ghp_"].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("")
    expect(gone(`char *t = "${hexAll}${body}";`, body)).toBe(`char *t = "${E}";`)
    const proj = j("k-proj-", "Zq9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV")
    expect(gone(`{"note": "\\\\x73${proj}"}`, proj)).toBe(`{"note": "${E}"}`)
  })

  it("ordinary escapes and references stay", () => {
    stays("snake\\x5fcase and \\x41BC and ghp\\x5fshort and \\x1b[0m")
    stays("a&#095;b and &#0095;x and snake&#x005f;case and &UnderBar; and \\u{5f}")
  })

  it("escaped-token done from each escape gives what its pattern gives (the new escapes among the parts)", () => {
    const rule = builtinRules.find((x) => x.id === "escaped-token")!
    const parts = ["\\x5f", "\\x73", "\\x", "\\\\x6b", "&#095;", "&#x005F;", "&#00", "\\u{5f}", "\\u{", "\\U0000005f", "&UnderBar;", "\\u0073", "%5F",
      "ghp", "sk-proj-", "\\n", "\\", "a", "9", "-", ".", ";", "&", "#", " ", "\n", "{", "}", body]
    let seed = 23
    const pick = () => parts[(seed = (seed * 48271) % 2147483647) % parts.length]
    for (let i = 0; i < 5000; i++) {
      const s = Array.from({ length: 1 + (i % 14) }, pick).join("")
      rule.pattern.lastIndex = 0
      expect(rule.apply!(s), JSON.stringify(s)).toBe(s.replace(rule.pattern, rule.replace as (m: string) => string))
    }
  })
})
