/**
 * tester22b F3: custom redaction patterns ran before the built-in rules, and their marker then ended a built-in
 * match, so a pattern matching a PIECE of a secret made the built-in rule miss the rest (`[0-9]{3,}`: a private
 * key's body lines and a SendGrid key's tail shown; `[A-Z]{5,}`: an AWS secret key, `PGPASSWORD=…`, a Bearer
 * token, `github_pat_` tails; `E[0-9]{6}`: `DB_PASSWORD=E123456-Secret!9` kept `-Secret!9`). Adding a pattern may
 * only ever redact more (docs/redaction.md "Custom rules"): every character the built-in rules redact without
 * custom patterns is redacted with them, and so is every character a custom pattern matches.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import type { CustomPattern } from "../../src/domain/redaction/custom.js"
import { defaultRedaction, redactionWith, type RedactionShape } from "../../src/services/Redaction.js"
import { contextualSamples, homePathSamples, innocents, secretSamples } from "../support/secrets.js"
import { B1, B2, BEGIN, END, j, sessionEvent as ev } from "../support/redaction-asserts.js"
import { prng } from "../support/prng.js"

const withPatterns = (patterns: ReadonlyArray<CustomPattern>): RedactionShape => Either.getOrThrow(redactionWith(patterns))

/** The custom patterns of the property test: a piece of many secrets, a whole secret, and one across a secret's edge. */
const PATTERN_SETS: Record<string, ReadonlyArray<CustomPattern>> = {
  digits: [{ id: "digits", pattern: "[0-9]{3,}" }],
  capitals: [{ id: "caps", pattern: "[A-Z]{5,}" }],
  "an id's shape": [{ id: "employee-id", pattern: "E[0-9]{6}" }],
  "a whole secret": [{ id: "my-github", pattern: "gh[pousr]_[A-Za-z0-9]{36}" }],
  "across a secret's edge": [{ id: "edge", pattern: "[=:] ?[A-Za-z0-9_/]{1,4}" }],
  "one letter": [{ id: "letter-e", pattern: "e" }],
  "a word of a home path": [{ id: "home-word", pattern: "home|Users" }],
  "several at once": [
    { id: "digits", pattern: "[0-9]{3,}" },
    { id: "caps", pattern: "[A-Z]{5,}" },
    { id: "edge", pattern: "[=:] ?[A-Za-z0-9_/]{1,4}" }
  ]
}

const MARK = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]|~/g

/** A text cut into its kept pieces and its markers (a home path's `~` counts as one), in order. */
const tokens = (s: string): Array<{ readonly mark: boolean; readonly s: string }> => {
  const out: Array<{ readonly mark: boolean; readonly s: string }> = []
  let at = 0
  for (const m of s.matchAll(MARK)) {
    if (m.index! > at) out.push({ mark: false, s: s.slice(at, m.index) })
    out.push({ mark: true, s: m[0] })
    at = m.index! + m[0].length
  }
  if (at < s.length) out.push({ mark: false, s: s.slice(at) })
  return out
}

/**
 * Whether `custom` (the output with custom patterns) hides at least what `base` (without them) hides: `custom` is
 * `base` with some kept characters, and maybe whole markers of `base`, put behind markers of `customIds`; every
 * other marker of `custom` is one of `base`, in its place. `custom` is read as blocks (its kept pieces and
 * built-in markers between two custom markers), each found in `base` after the last (leftmost: one character or
 * more of `base` behind each custom marker), its kept pieces in kept text of `base` (never inside a marker), its
 * markers where `base` has them.
 */
const hidesAtLeast = (base: string, custom: string, customIds: ReadonlySet<string>): boolean => {
  // each character of `base`: inside a marker? where does one start?
  const inMark = new Uint8Array(base.length)
  const markStart = new Uint8Array(base.length + 1)
  for (const m of base.matchAll(MARK)) {
    inMark.fill(1, m.index!, m.index! + m[0].length)
    markStart[m.index!] = 1
  }
  const blocks: Array<Array<{ readonly mark: boolean; readonly s: string }>> = [[]]
  for (const t of tokens(custom)) {
    if (t.mark && customIds.has(t.s.slice("[REDACTED:".length, -1))) blocks.push([])
    else blocks[blocks.length - 1].push(t)
  }
  const fits = (block: ReadonlyArray<{ readonly mark: boolean; readonly s: string }>, q: number): boolean => {
    for (const t of block) {
      if (!base.startsWith(t.s, q)) return false
      if (t.mark ? markStart[q] !== 1 : inMark.subarray(q, q + t.s.length).some((c) => c === 1)) return false
      q += t.s.length
    }
    return true
  }
  const size = (block: ReadonlyArray<{ readonly s: string }>) => block.reduce((n, t) => n + t.s.length, 0)
  // the first block starts `base`; each later one after one character or more; the last one ends `base`
  if (!fits(blocks[0], 0)) return false
  let pos = size(blocks[0])
  for (let k = 1; k < blocks.length; k++) {
    const n = size(blocks[k])
    let q = k === blocks.length - 1 ? Math.max(pos + 1, base.length - n) : pos + 1
    while (q <= base.length - n && !fits(blocks[k], q)) q++
    if (q > base.length - n) return false
    pos = q + n
  }
  return pos === base.length
}

/** The texts of the property test: secrets of every rule, with their names and contexts, home paths, ids, prose, mixed. */
const texts = (seed: number, n: number): ReadonlyArray<string> => {
  const r = prng(seed)
  const secrets = Object.values(secretSamples()).flat()
  const contextual = Object.values(contextualSamples()).flat().map(([t]) => t)
  const homes = homePathSamples().map(([t]) => t)
  const others = [
    "E123456", "E1234567", "DB_PASSWORD=E123456-Secret!9", "ACCOUNT 1234567 of ACME", "PGPASSWORD=Xy9zQw12Ab psql -h db",
    "AWS_SECRET_ACCESS_KEY=", "Authorization: Bearer ", "password: ", "?token=", "&key=", " --password ", "export API_SECRET=",
    `${BEGIN}\n${B1}\n${B2}\n${END}`, ...innocents().map((s) => s.slice(0, 200))
  ]
  const seps = [" ", "\n", "=", ": ", "\"", "'", ", ", "\t", "/", " and ", "\\n", "(", ")"]
  const out: Array<string> = []
  for (let i = 0; i < n; i++) {
    const parts: Array<string> = []
    const k = 1 + r.int(6)
    for (let p = 0; p < k; p++) {
      const pool = r.pick([secrets, contextual, homes, others, secrets])
      parts.push(r.pick(pool), r.pick(seps))
    }
    out.push(parts.join(""))
  }
  // every secret alone and after a name, once
  for (const s of secrets) out.push(s, `API_KEY=${s}`, `{"token": "${s}"}`)
  return out.concat(contextual, homes)
}

describe("redaction 22 (tester22b F3): custom patterns only ever redact more", () => {
  const inputs = texts(22, 1500)

  for (const [name, patterns] of Object.entries(PATTERN_SETS)) {
    it(`every character the built-in rules redact stays redacted, and no custom match shows (${name})`, () => {
      const custom = withPatterns(patterns)
      const ids = new Set(patterns.map((p) => p.id))
      const res = patterns.map((p) => new RegExp(p.pattern))
      let changed = 0
      for (const s of inputs) {
        const base = defaultRedaction.text(s)
        const out = custom.text(s)
        if (out !== base) changed++
        if (!hidesAtLeast(base, out, ids)) expect({ s, out }).toEqual({ s, out: `at least what ${JSON.stringify(base)} hides` })
        // what still shows is the original's text: no custom pattern matches in it
        for (const t of tokens(out)) {
          if (t.mark) continue
          for (const re of res) if (re.test(t.s)) expect({ s, out, shows: t.s }).toEqual({ s, out, shows: `no match of ${re}` })
        }
      }
      // the patterns did something (the home-path word set changes the fewest texts: 18 of the 1,500 with the
      // redaction samples of shapes22)
      expect(changed).toBeGreaterThan(10)
    }, 120_000)
  }

  it("the checker itself: it refuses an output that shows a character the built-in rules hid", () => {
    const ids = new Set(["digits"])
    expect(hidesAtLeast("a=[REDACTED:secret-assignment] b", "a=[REDACTED:digits]-Secret b", ids)).toBe(false)
    expect(hidesAtLeast("SG.[REDACTED:x]", "SG.[REDACTED:digits]tail", ids)).toBe(false)
    expect(hidesAtLeast("x [REDACTED:a] y", "x [REDACTED:digits] y", ids)).toBe(true)
    expect(hidesAtLeast("x [REDACTED:a] y 123", "x [REDACTED:a] y [REDACTED:digits]", ids)).toBe(true)
    expect(hidesAtLeast("x [REDACTED:a] y", "x [REDACTED:a] y z", ids)).toBe(false)
  })
})

describe("redaction 22 (tester22b F3): the tester's cases", () => {
  const digits = withPatterns([{ id: "custom-rule", pattern: "[0-9]{3,}" }])
  const caps = withPatterns([{ id: "caps", pattern: "[A-Z]{5,}" }])
  const corp = withPatterns([{ id: "corp-host", pattern: "(?i)[a-z0-9-]+\\.corp\\.example\\.com" }, { id: "employee-id", pattern: "E[0-9]{6}" }])

  it("`E[0-9]{6}` inside a password: the password goes whole, as without the pattern", () => {
    expect(corp.text("DB_PASSWORD=E123456-Secret!9")).toBe(`DB_PASSWORD=${marker("secret-assignment")}`)
    // alone, the id goes by the custom rule
    expect(corp.text("employee E123456 joined")).toBe(`employee ${marker("employee-id")} joined`)
    expect(corp.text("psql postgres://app:H0stPw!9xq@db1.corp.example.com:5432/app"))
      .toBe(`psql postgres://app:${marker("url-credentials")}@${marker("corp-host")}:5432/app`)
  })

  it("`[0-9]{3,}`: a private key's body and a SendGrid key's tail go whole", () => {
    const key = `${BEGIN}\n${B1}\n${B2}\n${END}`
    expect(digits.text(`     1→${key}\n`)).toBe(`     1→${marker("private-key")}\n`)
    const sg = j("SG.", "wqEdNONWm6R123aRubh2fw", ".", "WKHbsSs2Dlcy1iFZMbo7jWSdY7xZbKbK15Ei34R4ypU")
    expect(digits.text(`SENDGRID=${sg}`)).toBe(`SENDGRID=${marker("sendgrid-key")}`)
    const hex = "0123456789abcdef0123456789abcdef01234567"
    expect(digits.text(`API_SECRET=${hex}`)).not.toContain("abcdef")
  })

  it("`[A-Z]{5,}`: an AWS secret key, PGPASSWORD, a Bearer token and a github_pat_ go whole; the capitals around them too", () => {
    const aws = `aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY")}`
    const out = caps.text(aws)
    expect(out).not.toContain("bPxRfiCY")
    expect(out).not.toContain("AKIA")
    expect(caps.text("PGPASSWORD=Xyz123abcDEF psql")).toBe(`${marker("caps")}=${marker("secret-assignment")} psql`)
    expect(caps.text(`curl -H "Authorization: Bearer ${j("abcDEFGHIJ", "123klmnop456")}" x`)).not.toMatch(/klmnop|123/)
    const pat = j("github_pat_11", "ABCDEFG0A0", "77WO5JBOO79_BZXK3S7s9wcp3TwAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefGHIJK")
    expect(caps.text(`token ${pat} end`)).toBe(`token ${marker("github-token")} end`)
  })

  it("a custom pattern that holds a built-in match whole names it; one inside a built-in match adds nothing", () => {
    const gh = j("ghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    const whole = withPatterns([{ id: "my-github", pattern: "gh[pousr]_[A-Za-z0-9]{36}" }])
    expect(whole.text(`use ${gh} now`)).toBe(`use ${marker("my-github")} now`)
    const wider = withPatterns([{ id: "token-line", pattern: "TOKEN=\\S+" }])
    expect(wider.text(`TOKEN=${gh} next`)).toBe(`${marker("token-line")} next`)
    expect(digits.text(`use ${gh} now`)).toBe(`use ${marker("github-token")} now`)
  })

  it("a custom pattern across a secret's edge: both the secret and the rest of the custom match go", () => {
    const edge = withPatterns([{ id: "user-pw", pattern: "user=[a-z]+ password=[A-Za-z0-9!]{3}" }])
    const out = edge.text("login user=bob password=Xy9zQw12Ab! done")
    expect(out).not.toMatch(/bob|Xy9|zQw12/)
    expect(out).toMatch(/^login \[REDACTED:user-pw\]/)
    expect(out).toMatch(/ done$/)
  })
})

describe("redaction 22 (tester22b F3): a session's known secrets with custom patterns", () => {
  const corp = withPatterns([{ id: "employee-id", pattern: "E[0-9]{6}" }])
  const digits = withPatterns([{ id: "digits", pattern: "[0-9]{3,}" }])
  const PW = j("E123456", "-Secret!9")
  const toolCall = (n: number, input: Record<string, unknown>): SessionEvent =>
    ev(n, { kind: "tool-call", toolName: "Write", toolCallId: `toolu_${n}`, toolInput: input, text: JSON.stringify(input) } as Partial<SessionEvent>)
  const said = (n: number, text: string): SessionEvent => ev(n, { kind: "message", text })

  it("a value a text rule caught is restated whole later, though a custom pattern matches a piece of it", () => {
    for (const r of [defaultRedaction, corp]) {
      const out = [toolCall(1, { content: `DB_PASSWORD=${PW}\n` }), said(2, `I used ${PW} as asked.`)].map(sessionRedactor(r).event)
      expect(out[1].text).toBe(`I used ${marker("secret-assignment")} as asked.`)
    }
  })

  it("a value under a secret's name is restated whole in the same event and in later ones", () => {
    const PIN = j("hunter", "4821x!")
    for (const r of [defaultRedaction, digits]) {
      const sr = sessionRedactor(r)
      const out = [toolCall(1, { env: { DB_PASSWORD: PIN }, note: `pw ${PIN} set` }), said(2, `it is ${PIN}.`)].map(sr.event)
      expect((out[0].toolInput as Record<string, unknown>).note).toBe(`pw ${marker("secret-field")} set`)
      expect(out[1].text).toBe(`it is ${marker("secret-field")}.`)
      // and a title with the session's secrets
      expect(r.title(`about ${PIN}`, sr.known)).toBe(`about ${marker("secret-field")}`)
    }
  })
})
