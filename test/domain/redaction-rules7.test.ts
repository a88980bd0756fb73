/**
 * Redaction gaps a fresh user found (session 7): credentials in query
 * strings, GitLab and Hugging Face tokens, secrets under their names in
 * JSON and YAML, a token used as a URL's user name (the rules compose: every
 * marker is well formed), `C:\Users/bob`; and the scanner's gating is a
 * superset (every match of a rule holds one of its hints and its gate).
 */
import { describe, expect, it } from "@effect/vitest"
import { builtinRuleIds, builtinRules, HOME, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { contextualSamples, homePathSamples, innocents, secretSamples } from "../support/secrets.js"
import { prng } from "../support/prng.js"

const r = defaultRedaction
const R = marker


const rand = (p: ReturnType<typeof prng>, n: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") =>
  Array.from({ length: n }, () => alphabet[p.int(alphabet.length)]).join("")

describe("redaction: query strings", () => {
  const p = prng(1)
  const v = () => rand(p, 24) + "9"
  it("the value of a credential parameter goes, its name and the rest of the URL stay", () => {
    for (const name of ["access_token", "token", "api_key", "apikey", "client_secret", "password", "sig", "signature", "X-Amz-Signature", "X-Amz-Security-Token", "refresh_token"]) {
      const s = v()
      expect(r.text(`https://api.example.com/v1?${name}=${s}&x=1`), name).toBe(`https://api.example.com/v1?${name}=${R("url-query-secret")}&x=1`)
      expect(r.text(`https://api.example.com/v1?a=b&${name}=${s}#frag`), name).toBe(`https://api.example.com/v1?a=b&${name}=${R("url-query-secret")}#frag`)
      expect(r.text(`"https://h/p?${name}=${s}"`), name).toBe(`"https://h/p?${name}=${R("url-query-secret")}"`)
      expect(r.text(`curl 'https://h/p?${name}=${s}' -o x`), name).toBe(`curl 'https://h/p?${name}=${R("url-query-secret")}' -o x`)
    }
  })

  it("a lower-case access_token= anywhere (a fragment, a form body, a log line)", () => {
    const s = v()
    expect(r.text(`#access_token=${s}&state=x`)).toBe(`#access_token=${R("url-query-secret")}&state=x`)
    expect(r.text(`body: grant=x access_token=${s}`)).toBe(`body: grant=x access_token=${R("url-query-secret")}`)
    expect(r.text(`log\\naccess_token=${s}\\n`)).toBe(`log\\naccess_token=${R("url-query-secret")}\\n`)
  })

  it("X-Amz-Credential (an access key id and a scope) is no secret; the signature and the session token are", () => {
    const sig = rand(p, 64, "0123456789abcdef")
    const out = r.text(`https://b.s3.amazonaws.com/o?X-Amz-Credential=ANYID%2F20250101%2Fus-east-1%2Fs3&X-Amz-Signature=${sig}`)
    expect(out).toBe(`https://b.s3.amazonaws.com/o?X-Amz-Credential=ANYID%2F20250101%2Fus-east-1%2Fs3&X-Amz-Signature=${R("url-query-secret")}`)
  })

  it("key= only when its value looks like a secret", () => {
    const s = rand(p, 30) + "1"
    expect(r.text(`https://maps.example/api?key=${s}&q=x`)).toBe(`https://maps.example/api?key=${R("url-query-secret")}&q=x`)
    for (const ok of ["?key=value", "?key=name&sort=asc", "?key=12", "?key=abcdefghijklmnopqrst"]) expect(r.text(ok)).toBe(ok)
  })

  it("ordinary query values stay", () => {
    for (const ok of ["?page=2&sort=asc", "?q=token", "?q=password&x=1", "&max_tokens=4096", "?token_type=bearer", "?token=$TOKEN", "?token=${TOKEN}", "?mytoken=abc", "tokens=5"]) {
      expect(r.text(ok), ok).toBe(ok)
    }
  })
})

describe("redaction: GitLab and Hugging Face tokens", () => {
  it("glpat- and the other GitLab prefixes, hf_ tokens, named by their rules", () => {
    const p = prng(2)
    for (const prefix of ["glpat-", "glptt-", "gldt-", "glrt-", "glft-", "gloas-"]) {
      const t = prefix + rand(p, 20, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
      expect(r.text(`token ${t} here`), t).toBe(`token ${R("gitlab-token")} here`)
    }
    const hf = "hf_" + rand(p, 34, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    expect(r.text(`HF_TOKEN=${hf}`)).toBe(`HF_TOKEN=${R("huggingface-token")}`)
    expect(r.text(`login(${hf})`)).toBe(`login(${R("huggingface-token")})`)
  })

  it("near misses stay: too short, inside a word, snake_case names", () => {
    for (const ok of ["glpat-short", "xglpat-ABCDEFGHIJKLMNOPQRSTUV", "hf_hub_download", "hf_abcdefghijklmnopqrstuvwxyzabcdefgh", "myhf_ABCDEFGHIJKLMNOPQRSTUVWXYZabcd1234"]) {
      expect(r.text(ok), ok).toBe(ok)
    }
  })
})

describe("redaction: secrets under their names in JSON and YAML", () => {
  const p = prng(3)
  const v = () => rand(p, 20) + "7"
  it("JSON: the key stays, the value goes, for every name of the class (snake, camel, upper, kebab)", () => {
    for (const name of ["api_key", "apiKey", "API_KEY", "x-api-key", "client_secret", "clientSecret", "password", "Password", "passwd", "token", "access_token", "accessToken", "secret", "secret_key", "db_pass", "private_key", "passphrase"]) {
      const s = v()
      expect(r.text(`{"${name}": "${s}"}`), name).toBe(`{"${name}": "${R("secret-field")}"}`)
      expect(r.text(`{"${name}":"${s}","n":1}`), name).toBe(`{"${name}":"${R("secret-field")}","n":1}`)
      // JSON text held in a string
      expect(r.text(`{\\"${name}\\": \\"${s}\\"}`), name).toBe(`{\\"${name}\\": \\"${R("secret-field")}\\"}`)
      expect(r.text(JSON.stringify({ out: `{"${name}": "${s}"}` }))).not.toContain(s)
      // YAML
      expect(r.text(`a: 1\n${name}: ${s}\nb: 2`), name).toBe(`a: 1\n${name}: ${R("secret-field")}\nb: 2`)
      expect(r.text(`  - ${name}: "${s}"`), name).toBe(`  - ${name}: "${R("secret-field")}"`)
    }
  })

  it("a password-like name takes any quoted value; a bare value must look like a secret", () => {
    expect(r.text(`{"password": "hunter"}`)).toBe(`{"password": "${R("secret-field")}"}`)
    expect(r.text(`password: hunter2isMyPassw0rd`)).toBe(`password: ${R("secret-field")}`)
    expect(r.text(`password: correcthorsebatterystaple`)).toBe(`password: ${R("secret-field")}`)
  })

  it("left alone: types, references, process.env, empty values, numbers, prose, key alone", () => {
    for (const ok of [
      "password: string",
      "interface Login { username: string; password: string }",
      "token: ${TOKEN}",
      "password: $DB_PASSWORD",
      `api_key: "\${API_KEY}"`,
      "password: \"{{ vault_db_password }}\"",
      "apiKey: process.env.API_KEY",
      "const apiKey = process.env.API_KEY",
      `{"token": "", "password": ""}`,
      "password:",
      "max_token: 100",
      `{"key": "Enter", "sortKey": "createdAt", "primaryKey": "id"}`,
      "The password: see the vault.",
      "monkey: banana99x"
    ]) expect(r.text(ok), ok).toBe(ok)
  })

  it("a key of its own shape inside a field is named by its own rule, once", () => {
    const gh = secretSamples()["github-token"][0]
    expect(r.text(`{"token": "${gh}"}`)).toBe(`{"token": "${R("github-token")}"}`)
    expect(r.text(`https://h/p?access_token=${gh}&x=1`)).toBe(`https://h/p?access_token=${R("github-token")}&x=1`)
  })
})

describe("redaction: rules compose (well-formed markers)", () => {
  it("a token as a URL's user name is redacted once", () => {
    const gh = secretSamples()["github-token"][0]
    expect(r.text(`git clone https://${gh}@github.com/o/r.git`)).toBe(`git clone https://${R("github-token")}@github.com/o/r.git`)
    const gl = secretSamples()["gitlab-token"][0]
    expect(r.text(`https://oauth2:${gl}@gitlab.com/o/r.git`)).toBe(`https://oauth2:${R("gitlab-token")}@gitlab.com/o/r.git`)
    expect(r.text(`https://x-access-token:${gh}@github.com/o`)).toBe(`https://x-access-token:${R("github-token")}@github.com/o`)
  })

  it("property: generated strings of several secrets in several contexts; every marker well formed, no secret left", () => {
    const ids = new Set(builtinRuleIds)
    const p = prng(7)
    const bare = Object.entries(secretSamples()).flatMap(([, ss]) => ss)
    const tokens = Object.entries(secretSamples())
      .filter(([id]) => !["private-key", "email", "slack-token"].includes(id))
      .flatMap(([, ss]) => ss)
    const contextual = Object.values(contextualSamples()).flat()
    const wrappers: ReadonlyArray<(s: string) => string> = [
      (s) => s,
      (s) => `"${s}"`,
      (s) => `\\n${s}\\n`,
      (s) => `(${s})`,
      (s) => `https://${s}@github.com/o/r.git`,
      (s) => `https://user:${s}@db.example:5432/x`,
      (s) => `https://h/p?token=${s}&x=1`,
      (s) => `https://h/p?access_token=${s}`,
      (s) => `{"api_key": "${s}"}`,
      (s) => `{\\"password\\": \\"${s}\\"}`,
      (s) => `password: ${s}`,
      (s) => `API_KEY=${s}`,
      (s) => `Authorization: Bearer ${s}`,
      (s) => `mytool --token ${s}`
    ]
    const WELL_FORMED = /\[REDACTED:([a-z0-9-]+)\]/g
    for (let i = 0; i < 4000; i++) {
      const parts: Array<string> = []
      const secrets: Array<string> = []
      const n = 2 + p.int(4)
      for (let k = 0; k < n; k++) {
        const kind = p.int(3)
        if (kind === 0) {
          const [text, secret] = p.pick(contextual)
          parts.push(text)
          secrets.push(secret)
        } else {
          const s = kind === 1 ? p.pick(tokens) : p.pick(bare)
          const w = kind === 1 ? p.pick(wrappers) : p.pick(wrappers.slice(0, 4))
          parts.push(w(s))
          secrets.push(s)
        }
      }
      const input = parts.join(p.pick([" ", "\n", "\\n", " & ", ", ", " | "]))
      const out = r.text(input)
      const stripped = out.replace(WELL_FORMED, (m, id: string) => (ids.has(id) ? "" : m))
      expect(stripped.includes("[REDACTED:"), JSON.stringify([input, out])).toBe(false)
      expect(stripped.includes("REDACTED"), JSON.stringify([input, out])).toBe(false)
      for (const s of secrets) expect(out.includes(s), JSON.stringify([s, input, out])).toBe(false)
      expect(r.text(out), "idempotent").toBe(out)
    }
  }, 120_000)
})

describe("redaction: home paths", () => {
  it("C:\\Users/bob (a backslash, then Users, then a slash) becomes ~", () => {
    expect(r.text("C:\\Users/bob/src")).toBe(`${HOME}/src`)
    expect(r.text("open C:\\Users/zed.canary\\x")).toBe(`open ${HOME}\\x`)
  })
})

describe("redaction: the prefilter's gating is a superset", () => {
  it("every match of a rule's pattern holds one of its hints, and one of its gate when it has one", () => {
    const texts = [
      ...Object.values(secretSamples()).flat(),
      ...Object.values(contextualSamples()).flat().map(([t]) => t),
      // JSON text in a string, and in JSON text in a string
      ...Object.values(contextualSamples()).flat().map(([t]) => JSON.stringify(t)),
      ...Object.values(contextualSamples()).flat().map(([t]) => JSON.stringify(JSON.stringify(t))),
      ...homePathSamples().map(([t]) => t),
      ...innocents().map((s) => s.slice(0, 2000)),
      "C:\\Users/bob", "c:/Users/x", "https://h/p?X-Amz-Security-Token=abc&X-Goog-Signature=1&api-key=x1&apikey=y2&sig=3",
      "{\\\"api_key\\\": \\\"abc1\\\"} PASSWORD: abc1 'ClientSecret': 'x' x-api-key: abc123 DB_PWD: x1y"
    ]
    let matched = 0
    for (const rule of builtinRules) {
      const pattern = new RegExp(rule.pattern.source, rule.pattern.flags)
      for (const t of texts) {
        for (const m of t.matchAll(pattern)) {
          matched++
          // the match and what its lookbehinds may read (at most 400 characters back)
          const seen = t.slice(Math.max(0, m.index - 400), m.index + m[0].length)
          expect(rule.hints.some((h) => seen.includes(h)), `${rule.id}: ${JSON.stringify(m[0])}`).toBe(true)
          if (rule.gate !== undefined) expect(rule.gate.some((h) => seen.includes(h)), `${rule.id} gate: ${JSON.stringify(m[0])}`).toBe(true)
        }
      }
    }
    expect(matched).toBeGreaterThan(50)
  })
})
