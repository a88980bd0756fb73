/**
 * Session 12's redaction leftovers: a value assigned to a password's or a secret's name is redacted whatever its
 * characters (`password = hunter`, `password: hunter`: letters only, no digit), while code and prose stay (types,
 * keywords, references, calls, placeholders, empty values, words that say what a password is).
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const F = marker("secret-field")
const L = marker("secret-line")
const stays = (text: string) => expect(r.text(text), text).toBe(text)

describe("redaction 12: a letters-only value under a password's or a secret's name", () => {
  it("`name: word` (YAML and the like) and `name = word` (INI, .env, Python at a line's start): the value goes, the name stays", () => {
    expect(r.text("password: hunter")).toBe(`password: ${F}`)
    expect(r.text("db:\n  password: hunter\n  host: db")).toBe(`db:\n  password: ${F}\n  host: db`)
    expect(r.text("DB_PASSWORD: letmein  # rotate")).toBe(`DB_PASSWORD: ${F}  # rotate`)
    expect(r.text("client_secret: opensesame")).toBe(`client_secret: ${F}`)
    expect(r.text("passphrase: swordfish\r\n")).toBe(`passphrase: ${F}\r\n`)
    expect(r.text("password = hunter")).toBe(`password = ${L}`)
    expect(r.text("[db]\npassword = hunter\nport = 5432\n")).toBe(`[db]\npassword = ${L}\nport = 5432\n`)
    expect(r.text("  secret = opensesame ; note")).toBe(`  secret = ${L} ; note`)
    // YAML held in a JSON string
    expect(r.text("config:\\n  password: hunter\\n  user: bob")).toBe(`config:\\n  password: ${F}\\n  user: bob`)
  })

  it("near misses stay: prose, types, keywords, references, calls, members, placeholders, empty values, other names", () => {
    for (
      const keep of [
        "the password is required", "password = getPassword()", "password: ${PASSWORD}", "password: $DB_PASSWORD", "password: <redacted>",
        "password: [REDACTED]", "password:", "password: ", "password = ", "password: string", "password: str", "password: String",
        "password: boolean", "password: null", "password: None", "password: true", "password = None", "password = self.password",
        "password: Optional[str]", "password: SecretStr", "interface Login { password: string }", "password: required",
        "password: optional", "password: hidden", "password: xxx", "password: changed", "The password: see the vault.",
        "password = hunter if ok else other", "password: hunter, then the user", "password = user_password", "password = defaultSecret",
        "token: abcdef", "api_key: abcdef", "max_tokens: lots", "sort_key = name", "pass: ok", "pwd: here", "keyword: hunter",
        "password_policy: strict", "password = hunter + suffix", "password == hunter"
      ]
    ) stays(keep)
  })

  it("idempotent: the marker is not redacted again", () => {
    const once = r.text("password: hunter\npassword = hunter\n")
    expect(r.text(once)).toBe(once)
  })
})

describe("redaction 12: a YAML mapping under a secret's name (credentials:, secrets:, auth:)", () => {
  const M = marker("secret-mapping")

  it("the values of its indented `key: value` lines go (nested mappings and lists too), the keys and comments stay", () => {
    expect(r.text("credentials:\n  username: admin\n  password: hunter\n  port: 5432\nname: app\n"))
      .toBe(`credentials:\n  username: ${M}\n  password: ${M}\n  port: ${M}\nname: app\n`)
    expect(r.text("auth:\n  type: basic\n  user: \"bob\" # the user\n")).toBe(`auth:\n  type: ${M}\n  user: "${M}" # the user\n`)
    expect(r.text("app:\n  secrets:\n    db:\n      password: x\n    list:\n      - one\n      - 'two'\n  mode: prod"))
      .toBe(`app:\n  secrets:\n    db:\n      password: ${M}\n    list:\n      - ${M}\n      - '${M}'\n  mode: prod`)
    expect(r.text("Credentials:   # prod\r\n  user: bob\r\n\r\n  pass: hunter\r\nnext: 1")).toBe(`Credentials:   # prod\r\n  user: ${M}\r\n\r\n  pass: ${M}\r\nnext: 1`)
    // YAML held in a JSON string (its newlines escaped)
    expect(r.text("{\"out\": \"credentials:\\n  user: bob\\n  token: abc\\nother: 1\"}")).toBe(`{"out": "credentials:\\n  user: ${M}\\n  token: ${M}\\nother: 1"}`)
    // the JSON string ends on the mapping's last line: its quote and what follows stay (session 37, tester36b F9: the
    // last line's value goes too, up to the string's closing quote; it stayed before)
    expect(r.text("{\"out\": \"x: 1\\nsecrets:\\n  a: b\\n  c: d\", \"n\": 1}")).toBe(`{"out": "x: 1\\nsecrets:\\n  a: ${M}\\n  c: ${M}", "n": 1}`)
  })

  it("an ordinary mapping stays, and so do booleans, nulls, references, empty values and a name without a mapping", () => {
    for (
      const keep of [
        "database:\n  host: db\n  port: 5432\n", "auth: true\nuser: bob", "credentials:\n  enabled: true\n  path: ${CREDS}\n  file: ~\n  user:\n",
        "settings:\n  theme: dark\ncredentials: none\n", "author:\n  name: bob\n", "oauth_client:\n  id: web\n"
      ]
    ) stays(keep)
  })
})
