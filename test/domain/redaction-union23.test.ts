/**
 * tester22c F2: a value an earlier event caught (`PGPASSWORD=Xy9zQw12Ab!` in a Bash call: `secret-assignment`) is a
 * session's known secret, hidden where a later event restates it. The later text "the password Xy9zQw12Ab! as you
 * asked" is first redacted by the text rules, and `credential-prose` takes the value but its `!`; the known value was
 * then looked for in that output, no longer found, and `[REDACTED:credential-prose]!` showed its last character.
 * A known secret is now found in the text as read and hidden with what the rules hid, the union of both
 * (`unionHidden`, `restateFrom`): a known secret's whole span is never partly shown, whichever marker names it.
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { unionHidden } from "../../src/domain/redaction/union.js"
import { defaultRedaction, redactionWith } from "../../src/services/Redaction.js"
import { j, sessionEvent } from "../support/redaction-asserts.js"
import * as Either from "effect/Either"

const r = defaultRedaction
const SA = marker("secret-assignment")
const PW = j("Xy9zQw12", "Ab!")
/** Ways a later text restates the value, some of which a text rule takes but a part of (the `!`). */
const SAID = [
  `Done. I connected using the password ${PW} as you asked.`,
  `the password is ${PW} ok`,
  `your password: ${PW} (keep it)`,
  `pw ${PW}`,
  `"${PW}" is it`,
  `use ${PW}, then ${PW} again`
]

/** The events of the tester's session: the Bash call that catches the value, its result, then `text`. */
const events = (text: string): ReadonlyArray<SessionEvent> => {
  const input = { command: `PGPASSWORD=${PW} psql -h db -U app -c 'select 1'` }
  return [
    sessionEvent(1, { kind: "message", role: "user", text: "Connect to the db please" }),
    sessionEvent(2, { kind: "tool-call", toolName: "Bash", toolInput: input, toolCallId: "t1", text: JSON.stringify(input) } as Partial<SessionEvent>),
    sessionEvent(3, { kind: "tool-result", role: "user", toolCallId: "t1", text: " ?column? \n 1" } as Partial<SessionEvent>),
    sessionEvent(4, { kind: "message", role: "assistant", text })
  ]
}

/** `text` with every marker taken out, and whether what is left holds any character of `PW` next to where one was. */
const leftAround = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const m of text.matchAll(/\[REDACTED:[a-z0-9-]+\]/g)) {
    out.push(text.slice(Math.max(0, m.index - 1), m.index), text.slice(m.index + m[0].length, m.index + m[0].length + 1))
  }
  return out
}

describe("tester22c F2: a known secret is hidden whole where a rule's match takes all of it but a part", () => {
  it("the tester's session: the later assistant text hides the whole value, `!` too, under one marker", () => {
    const sr = sessionRedactor(r)
    const es = events(SAID[0])
    for (const e of es) sr.see(e)
    expect(sr.known.get(PW)).toBe(SA)
    expect(sr.event(es[3]).text).toBe(`Done. I connected using the password ${SA} as you asked.`)
  })

  it("every restatement: no character of the value shown, next to a marker or anywhere", () => {
    for (const said of SAID) {
      const sr = sessionRedactor(r)
      const es = events(said)
      const out = es.map(sr.event)[3].text!
      expect(out, said).not.toContain("Xy9z")
      // what stands next to each marker is the text's own (a space, a quote, a comma, the end), never the `!`
      for (const c of leftAround(out)) expect(`${said} -> ${out}: ${JSON.stringify(c)}`).not.toMatch(/: "!"$/)
      // each value is one marker, and the text outside it is kept
      expect(out.replace(/\[REDACTED:[a-z0-9-]+\]/g, "#"), said).toBe(said.split(PW).join("#"))
    }
  })

  it("eventIn and a title with the session's secrets: the same union", () => {
    const known = new Map([[PW, SA]])
    expect(r.eventIn(events(SAID[0])[3], known).text).toBe(`Done. I connected using the password ${SA} as you asked.`)
    expect(r.title(SAID[1], known)).toBe(`the password is ${SA} ok`)
  })

  it("with custom patterns too (merged with the built-in rules first)", () => {
    const custom = Either.getOrThrow(redactionWith([{ id: "digits", pattern: "[0-9]{3,}" }]))
    const sr = sessionRedactor(custom)
    const es = events(SAID[0])
    const out = es.map(sr.event)[3].text!
    expect(out).not.toContain("!")
    expect(out).not.toContain("Xy9z")
  })
})

describe("unionHidden: what the rules hid and the spans given, hidden together", () => {
  const s = "say abc123! now"
  const at = s.indexOf("abc123!")
  it("a span holding a marker's span and more: one marker, the span's", () => {
    expect(unionHidden(s, "say [REDACTED:x]! now", [{ start: at, end: at + 7, mark: "[REDACTED:y]" }])).toBe("say [REDACTED:y] now")
  })
  it("a span hiding just what a marker does keeps that marker", () => {
    expect(unionHidden(s, "say [REDACTED:x] now", [{ start: at, end: at + 7, mark: "[REDACTED:y]" }])).toBe("say [REDACTED:x] now")
  })
  it("a span inside a marker's span adds nothing; one over kept text is hidden by its marker", () => {
    expect(unionHidden(s, "say [REDACTED:x] now", [{ start: at + 1, end: at + 3, mark: "[REDACTED:y]" }])).toBe("say [REDACTED:x] now")
    expect(unionHidden(s, s, [{ start: at, end: at + 7, mark: "[REDACTED:y]" }])).toBe("say [REDACTED:y] now")
  })
  it("overlapping spans are one; a redaction that cannot be lined up with the text: undefined", () => {
    expect(unionHidden(s, s, [{ start: at, end: at + 4, mark: "[REDACTED:y]" }, { start: at + 2, end: at + 7, mark: "[REDACTED:z]" }])).toBe("say [REDACTED:y] now")
    expect(unionHidden(s, "something else [REDACTED:x]", [{ start: at, end: at + 7, mark: "[REDACTED:y]" }])).toBeUndefined()
  })
})
