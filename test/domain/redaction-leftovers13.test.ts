/**
 * Session 13's redaction rules: a YAML flow sequence under a secret's name (`api_keys: [a, b]`: `secret-flow`) and a
 * Markdown table that holds a secret (`| password | … |` as a row's name and value, or a column headed by a
 * secret's name: `secret-table`); what goes and what stays (tables and lists about passwords that hold none).
 */
import { describe, expect, it } from "@effect/vitest"
import { builtinRuleIds, builtinRules, marker, redactText } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const FL = marker("secret-flow")
const T = marker("secret-table")
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const S = (n: number) => j("Zq9", "SECRET", "k", String(n))
const HUNTER = j("hunter", "2")

describe("secret-flow: a YAML flow sequence under a secret's name", () => {
  it("each element that is a secret for the name goes; the name, the brackets, the commas and the spaces stay", () => {
    expect(r.text(`api_keys: [${S(1)}, ${S(2)}]`)).toBe(`api_keys: [${FL}, ${FL}]`)
    expect(r.text(`secrets: [${HUNTER}, ${S(3)}]\nnext: 1`)).toBe(`secrets: [${FL}, ${FL}]\nnext: 1`)
    expect(r.text(`  passwords:   [ ${HUNTER} ,${S(4)} ]  # two`)).toBe(`  passwords:   [ ${FL} ,${FL} ]  # two`)
    expect(r.text(`- tokens: [${S(5)}]`)).toBe(`- tokens: [${FL}]`)
    // quoted elements: the quotes stay
    expect(r.text(`password: ['${HUNTER}', "${S(6)}"]`)).not.toContain(HUNTER)
    expect(r.text(`password: ['${HUNTER}', "${S(6)}"]`)).not.toContain(S(6))
    // a number under a password's name (a PIN) goes (secret-nested's, as in JSON text: the marker quoted)
    expect(r.text(`db_passwords: [84736251, ${S(7)}]`)).toBe(`db_passwords: ["${marker("secret-nested")}", ${FL}]`)
    // inside a flow mapping too
    gone(`db: {user: bob, passwords: [${S(8)}, ${S(9)}]}`, S(8), "user: bob", "passwords: [")
    gone(`db: {user: bob, passwords: [${S(8)}, ${S(9)}]}`, S(9))
  })

  it("what stays: words that are no secret's shape, references, booleans, null, counts, ordinary lists, code", () => {
    stays("sort_keys: [name, created_at]")
    stays("primary_keys: [id1, id2]")
    stays("stop_tokens: [eos1, pad2]")
    stays("max_tokens: [4096, 8192]")
    stays("tokens: [1200, 300]")
    stays("api_keys: [${API_KEY_1}, $API_KEY_2]")
    stays("secrets: [true, null, ~]")
    stays("passwords: []")
    stays("tokens: [accessToken, refreshToken]")
    stays("secrets: [db, cache]")
    stays("tags: [v1.2.3, build42]")
    stays("ports: [8080, 8443]")
    // a nested structure is secret-nested's or left
    stays("secrets: [[a, b]]")
  })
})

describe("secret-table: a Markdown table that holds a secret", () => {
  it("a row (of a table) whose first cell is a secret's name: its second cell goes when it looks like a secret", () => {
    const H = "| name | value |\n|---|---|\n"
    expect(r.text(`${H}| password | ${HUNTER} |`)).toBe(`${H}| password | ${T} |`)
    expect(r.text(`| name | value |\n|---|---|\n| user | bob |\n| DB_PASSWORD | ${S(1)} |\n| host | db.local |`))
      .toBe(`| name | value |\n|---|---|\n| user | bob |\n| DB_PASSWORD | ${T} |\n| host | db.local |`)
    expect(r.text(`${H}|api_key|\`${S(2)}\`|prod|`)).toBe(`${H}|api_key|\`${T}\`|prod|`)
    expect(r.text(`${H}  | **Token** | ${S(3)} | expires 2027 |`)).toBe(`${H}  | **Token** | ${T} | expires 2027 |`)
    expect(r.text(`${H}| API key | ${S(4)} |`)).toBe(`${H}| API key | ${T} |`)
    expect(r.text(`${H}| PIN | 4821 |`)).toBe(`${H}| PIN | ${T} |`)
    expect(r.text(`${H}| password | 84736251 |`)).toBe(`${H}| password | ${T} |`)
    // a row alone, without its table's delimiter row, is not read (see the README: a known limit)
    stays(`| password | ${HUNTER} |`)
  })

  it("a column headed by a secret's name: its cells that look like secrets go, the other columns stay", () => {
    const table = [
      "| service | user | password | notes |",
      "|:--|---|:-:|--|",
      `| prod | admin | ${HUNTER} | rotated |`,
      `| staging | ci | \`${S(5)}\` | |`,
      "| dev | me | (in the vault) | ask |",
      "",
      `| after | ${S(6)} |`
    ].join("\n")
    expect(r.text(table)).toBe([
      "| service | user | password | notes |",
      "|:--|---|:-:|--|",
      `| prod | admin | ${T} | rotated |`,
      `| staging | ci | \`${T}\` | |`,
      "| dev | me | (in the vault) | ask |",
      "",
      `| after | ${S(6)} |`
    ].join("\n"))
    expect(r.text(`Service | API Token\n--- | ---\nstripe | ${S(7)}\n`)).toBe(`Service | API Token\n--- | ---\nstripe | ${T}\n`)
  })

  it("tables about passwords that hold none stay", () => {
    stays("| field | description |\n|---|---|\n| password | the user's password |\n| token | an API token |")
    stays("| name | type | required |\n|---|---|---|\n| password | string | required |")
    stays("| name | type | required |\n|---|---|---|\n| password | String | yes |")
    stays("| name | value |\n|---|---|\n| Password | Required |")
    stays("| field | max length |\n|---|---|\n| password | 64 |\n| token | 40 |")
    stays("| model | tokens |\n|---|---|\n| sonnet | 1200 |\n| opus | 30000 |")
    stays("| password rule | example |\n|---|---|\n| length | at least 12 |\n| digits | 1 or more |")
    stays("| user | password |\n|---|---|\n| alice | ******** |\n| bob | $BOB_PASSWORD |\n| carol | [REDACTED] |")
    stays("| key | action |\n|---|---|\n| Ctrl+S | save |")
    stays("| sort_key | value |\n|---|---|\n| id | a1b2c3 |")
    stays("a | b\npassword | hunter")
    stays("x = a | b | c2d3e4")
  })
})

describe("the new rules are built-in rules with ids of their own, in linear time", () => {
  it("ids", () => {
    expect(builtinRuleIds).toContain("secret-flow")
    expect(builtinRuleIds).toContain("secret-table")
    expect(new Set(builtinRuleIds).size).toBe(builtinRuleIds.length)
  })
  it("near misses of 100k characters come back in one piece", () => {
    const rules = builtinRules.filter((x) => x.id === "secret-flow" || x.id === "secret-table")
    const inputs = [
      `secrets: [${"a1,".repeat(30000)}`,
      `passwords: [${"[".repeat(100000)}`,
      `| password |${" |".repeat(50000)}`,
      `| a | password |\n|${"---|".repeat(20000)}\n${"| x | y1 |\n".repeat(5000)}`,
      "|".repeat(100000)
    ]
    for (const s of inputs) for (const rule of rules) expect(typeof redactText([rule], s)).toBe("string")
  })
})
