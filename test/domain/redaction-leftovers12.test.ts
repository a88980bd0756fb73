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
