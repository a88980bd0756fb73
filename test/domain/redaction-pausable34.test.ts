/**
 * tester33a F7 (session 34): a huge text (a 13.8 MB first prompt holding 300,000 caught passwords) was redacted in
 * one synchronous piece per step, so nothing else ran meanwhile (a signal, the end of an MCP client's input). Its
 * costly steps now pause (`src/domain/redaction/pausable.ts`): a rule's pass a stretch of the text at a time, the
 * search for a map's secrets a stretch at a time. The answer must be the same, byte for byte:
 * - a long text (over `HUGE` characters) with secrets placed across the edges of the stretches (every 2^19 and 2^20
 *   characters) is redacted by the built-in rules as the reference does (`redactText`: each rule's pattern replaced
 *   over the whole text at once), and as the same rules redact each of its pieces between the secrets;
 * - a session redactor run by `attempt` (the work it needs run a pause at a time, then the redaction again) answers
 *   what it answers run at once, for the event, its noted secrets and the title cut from it, and it did pause.
 */
import { describe, expect, it } from "vitest"
import { builtinRules, marker, redactText } from "../../src/domain/redaction/rules.js"
import { HUGE } from "../../src/domain/redaction/pausable.js"
import { defaultRedaction, makeRedaction } from "../../src/services/Redaction.js"
import { j } from "../support/redaction-asserts.js"
import { redactedAtOnceAndPaused } from "../support/pausable-redaction.js"

/** Filler words (no secret's shape, no rule's hint) up to `n` characters. */
const filler = (n: number): string => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n)

/** Secrets of several rules, each written so that it stands across one of `edges` (its middle on the edge). */
const SECRETS = [
  j("ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
  j("pass", "word=", "Qx7!plumB#44"),
  j("mysql -u root -p", "S3cr00417"),
  j("AKIA", "IOSFODNN7EXAMPLE")
]

/** A text of about `size` characters: filler, and at each multiple of 2^19 a secret of {@link SECRETS} across it. */
const longText = (size: number): { text: string; pieces: Array<string> } => {
  const pieces: Array<string> = []
  let text = ""
  let k = 0
  for (let edge = 1 << 19; edge < size; edge += 1 << 19) {
    const secret = SECRETS[k++ % SECRETS.length]
    const at = edge - Math.floor(secret.length / 2)
    pieces.push(filler(at - text.length - 1) + " ")
    text += pieces[pieces.length - 1]
    pieces.push(secret + " ")
    text += secret + " "
  }
  pieces.push(filler(size - text.length))
  text += pieces[pieces.length - 1]
  return { text, pieces }
}

describe("a huge text's redaction pauses and answers the same (tester33a F7)", () => {
  const { text, pieces } = longText(3 * (1 << 20) + 12345)

  it("the text is huge and holds secrets across the edges of the stretches", () => {
    expect(text.length).toBeGreaterThan(HUGE)
    for (let edge = 1 << 19; edge < text.length; edge += 1 << 19) {
      const around = text.slice(edge - 20, edge + 20)
      expect(SECRETS.some((s) => around.includes(s.slice(Math.floor(s.length / 2) - 3, Math.floor(s.length / 2) + 3)))).toBe(true)
    }
  })

  it("redacted as the reference redacts it whole, and as its pieces are redacted one by one", () => {
    const fresh = makeRedaction(builtinRules, defaultRedaction.ids)
    const out = fresh.text(text)
    // (booleans: a failure does not print megabytes)
    expect(out === redactText(builtinRules, text)).toBe(true)
    expect(out === pieces.map((p) => fresh.text(p)).join("")).toBe(true)
    expect(SECRETS.map((s) => out.includes(s.slice(-8)))).toEqual(SECRETS.map(() => false))
    expect(out.includes(marker("github-token"))).toBe(true)
  })

  it("a session redactor run a pause at a time answers what it answers at once", () => {
    // at once, and by a fresh redaction (nothing kept from the run at once), each call attempted until it needs no more work
    const { want, got, pauses } = redactedAtOnceAndPaused("Fix the deploy: " + text, `I used ${j("Qx7!plu", "mB#44")} and S3cr00417 there.`)
    expect(got).toEqual(want)
    expect(pauses).toBeGreaterThan(10)
    expect(got.events[1].text).toBe(`I used ${marker("secret-assignment")} and ${marker("cli-password")} there.`)
  }, 120_000)
})
