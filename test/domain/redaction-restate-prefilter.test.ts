/**
 * `restateText` (src/domain/redaction/redact.ts) with a prefilter: a map of 8
 * secrets or more looked up often is first asked, in one pass over a string,
 * whether any secret (or its JSON-escaped form) is in it at all. The
 * answers must be exactly those of looking each secret up in turn (written
 * here from its doc: every occurrence that is a token of its own, in the
 * map's order, the escaped form too), for ASCII and other secrets, secrets
 * with quotes and backslashes, secrets inside words (kept), and a map that
 * grows while it is used (a session's known secrets).
 */
import { describe, expect, it } from "vitest"
import { restateText } from "../../src/domain/redaction/redact.js"

/** A letter, digit or `_`; or `.`/`-` joining to one (the token rule of restateText's doc). */
const word = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c)
const joined = (s: string, at: number, step: number) => {
  const c = s[at]
  if (word(c)) return true
  return (c === "." || c === "-") && word(s[at + step])
}

/** Each secret in turn, each of its forms, every occurrence that is a token of its own. */
const reference = (s: string, secrets: ReadonlyMap<string, string>, redacted?: (secret: string) => string | undefined): string => {
  let out = s
  for (const [secret, mark] of secrets) {
    const escaped = JSON.stringify(secret).slice(1, -1)
    const forms = escaped === secret ? [secret] : [secret, escaped]
    for (const f of forms.slice()) {
      const r = redacted?.(f)
      if (r !== undefined) forms.push(r)
    }
    for (const form of forms) {
      let r = ""
      let done = 0
      for (let at = out.indexOf(form); at >= 0; at = out.indexOf(form, at + form.length)) {
        if (joined(out, at - 1, -1) || joined(out, at + form.length, 1)) continue
        r += out.slice(done, at) + mark
        done = at + form.length
      }
      if (done > 0) out = r + out.slice(done)
    }
  }
  return out
}

const SECRETS = [
  "Pw0rd!Alpha1", "Tr0ub4dor&3x", "s3cr3t_Value9", "k9#Quote\"In", "back\\Slash7Q", "Wr1teEnvPw!",
  "\u00fcberGeheim9!", "\u5bc6\u78bcAbc123x", "MsSqlPw#2024", "hunter22xyz", "Zq7-dash.dot", "X9y8Z7w6V5u4"
]

/** Strings holding some secrets as tokens, some inside words, some escaped, most none. */
const strings = (n: number): Array<string> => {
  const out: Array<string> = []
  let x = 7
  const rand = (k: number) => (x = (x * 1103515245 + 12345) % 2147483648) % k
  for (let i = 0; i < n; i++) {
    const parts = [`line ${i}: the quick brown fox`]
    const kind = rand(10)
    const secret = SECRETS[rand(SECRETS.length)]
    if (kind === 0) parts.push(`password is ${secret} ok`)
    else if (kind === 1) parts.push(`inside${secret}word`)
    else if (kind === 2) parts.push(`{"pw":"${JSON.stringify(secret).slice(1, -1)}"}`)
    else if (kind === 3) parts.push(`${secret}.${secret}-x ${secret}`)
    parts.push("and nothing else here")
    out.push(parts.join(" "))
  }
  return out
}

describe("restateText with its prefilter", () => {
  it("answers as each secret looked up in turn, for a map used many times and for one growing while used", () => {
    const all = new Map(SECRETS.map((s, i) => [s, `[REDACTED:r${i}]`] as const))
    const texts = strings(3000)
    let changed = 0
    for (const t of texts) {
      const got = restateText(t, all)
      expect(got).toBe(reference(t, all))
      if (got !== t) changed++
    }
    // The strings do hold secrets (the prefilter is not only ever saying no).
    expect(changed).toBeGreaterThan(300)
    const growing = new Map<string, string>()
    for (let i = 0; i < texts.length; i++) {
      if (i % 250 === 0 && growing.size < SECRETS.length) growing.set(SECRETS[growing.size], `[REDACTED:g${growing.size}]`)
      expect(restateText(texts[i], growing)).toBe(reference(texts[i], growing))
    }
    expect(growing.size).toBe(SECRETS.length)
  })

  it("with a custom pattern's forms of the secrets (digits redacted: `Pw[REDACTED:digits]rd!Alpha[REDACTED:digits]`) too", () => {
    const digits = (x: string) => {
      const f = x.replace(/[0-9]+/g, "[REDACTED:digits]")
      return f === x ? undefined : f
    }
    const all = new Map(SECRETS.map((s, i) => [s, `[REDACTED:r${i}]`] as const))
    const texts = strings(3000).map((t, i) => (i % 7 === 0 ? t.replace(/[0-9]+/g, "[REDACTED:digits]") : t))
    let changed = 0
    for (const t of texts) {
      const got = restateText(t, all, digits)
      expect(got).toBe(reference(t, all, digits))
      if (got !== t && t.includes("[REDACTED:digits]") && got !== reference(t, all)) changed++
    }
    // Some texts hold a secret only in its custom form (found through the prefilter too).
    expect(changed).toBeGreaterThan(10)
  })

  it("answers as each secret looked up in turn for hundreds of distinct secrets, growing while used (tester23c F2)", () => {
    let x = 11
    const rand = (k: number) => (x = (x * 1103515245 + 12345) % 2147483648) % k
    // Few characters, shared beginnings (many secrets under one prefix), short ones, quotes, backslashes, other
    // than ASCII, secrets inside others.
    const alphabet = ["Ab", "Ab", "9x", "Q!", "\\", "\"", "\u00fc", "-", ".", "_", "Z", "z", "\u5bc6", " "]
    const secrets: Array<string> = []
    while (secrets.length < 700) {
      let v = ["Pw0", "Ab9x", "Q!"][rand(3)]
      const len = rand(9)
      for (let i = 0; i < len; i++) v += alphabet[rand(alphabet.length)]
      if (rand(5) === 0 && secrets.length > 0) v = secrets[rand(secrets.length)] + v.slice(0, 3)
      if (!secrets.includes(v) && v.trim() === v) secrets.push(v)
    }
    const seps = [" ", "\n", "=", "'", "\"", ".", "-x ", "w", "", "]", "\\"]
    const texts: Array<string> = []
    for (let i = 0; i < 1500; i++) {
      let t = ""
      const parts = 1 + rand(8)
      for (let j = 0; j < parts; j++) {
        const v = secrets[rand(Math.min(secrets.length, 20 + i))]
        const kind = rand(4)
        t += seps[rand(seps.length)] + (kind === 0 ? JSON.stringify(v).slice(1, -1) : kind === 1 ? v.slice(0, 1 + rand(v.length)) : v)
      }
      texts.push(t + seps[rand(seps.length)])
    }
    const growing = new Map<string, string>()
    let changed = 0
    for (let i = 0; i < texts.length; i++) {
      while (growing.size < Math.min(secrets.length, 8 + i / 2)) growing.set(secrets[growing.size], `[REDACTED:s${growing.size}]`)
      const got = restateText(texts[i], growing)
      expect(got).toBe(reference(texts[i], growing))
      if (got !== texts[i]) changed++
    }
    expect(growing.size).toBe(secrets.length)
    expect(changed).toBeGreaterThan(500)
  })

  it("finds a later secret that only an earlier one's marker made whole, as the map's order does", () => {
    const fill = Array.from({ length: 10 }, (_, i) => [`Fill${i}er9!`, `[f${i}]`] as const)
    const first = new Map<string, string>([...fill, ["Qz9!xy", "[x]"], ["[x] ok", "[REDACTED:both]"]])
    expect(restateText("say Qz9!xy ok.", first)).toBe("say [REDACTED:both].")
    expect(restateText("say Qz9!xy ok.", first)).toBe(reference("say Qz9!xy ok.", first))
    const later = new Map<string, string>([...fill, ["[x] ok", "[REDACTED:both]"], ["Qz9!xy", "[x]"]])
    expect(restateText("say Qz9!xy ok.", later)).toBe("say [x] ok.")
  })
})
