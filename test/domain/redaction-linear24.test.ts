/**
 * tester24a F11: redacting one text holding many secrets (a tool output of `password=…` lines) was quadratic: each
 * secret caught there was then looked for in the whole text by a scan of its own, and the text was scanned again
 * after each replacement. Restating must read the text a bounded number of times whatever the number of secrets in
 * it, and a session's known secrets must be indexed once each as the map grows. Measured by the work counter
 * `restateWork` (characters read, map entries indexed), never by time.
 */
import { describe, expect, it } from "vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { restateText, restateWork, sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { j, sessionEvent as ev } from "../support/redaction-asserts.js"

/** `n` distinct 12-character tokens of letters and digits (a fixed seed). */
const tokens = (n: number): Array<string> => {
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
  let x = 12345
  const out: Array<string> = []
  for (let i = 0; i < n; i++) {
    let t = ""
    for (let c = 0; c < 11; c++) t += chars[(x = (x * 1103515245 + 12345) % 2147483648) % chars.length]
    out.push(t + (i % 10))
  }
  return out
}

/** A session: one tool output of `n` lines `password=<token>1`, then a message restating the first and last token. */
const session = (n: number): { events: Array<SessionEvent>; secrets: Array<string>; chars: number } => {
  const secrets = tokens(n).map((t) => t + "1")
  const output = secrets.map((s) => j("pass", "word=") + s).join("\n")
  const said = `I used ${secrets[0]} and ${secrets[n - 1]} here.`
  return {
    events: [
      ev(1, { kind: "tool-result", toolCallId: "toolu_1", text: output } as Partial<SessionEvent>),
      ev(2, { kind: "message", text: said })
    ],
    secrets,
    chars: output.length + said.length
  }
}

/** The characters restating read while `f` ran. */
const charsRead = (f: () => void): number => {
  const before = restateWork.chars
  f()
  return restateWork.chars - before
}

describe("redaction 24 (F11): restating one text is linear in its length and its secrets", () => {
  it("a tool output of 400 and of 1,600 passwords: every one hidden, the later message too, work proportional to the text", () => {
    const work: Array<number> = []
    for (const n of [400, 1600]) {
      const { events, secrets, chars } = session(n)
      let out: Array<SessionEvent> = []
      work.push(charsRead(() => {
        const sr = sessionRedactor(defaultRedaction)
        out = events.map(sr.event)
      }))
      const text = out.map((e) => e.text ?? "").join("\n")
      for (const s of secrets) expect(text.includes(s)).toBe(false)
      expect(out[1].text).toMatch(/^I used \[REDACTED:[a-z-]+\] and \[REDACTED:[a-z-]+\] here\.$/)
      // a bounded number of passes over the text (here: a few), not one per secret (which read n x chars)
      expect(work[work.length - 1]).toBeLessThan(20 * chars)
    }
    // four times the text and the secrets: about four times the work (a quadratic restating does sixteen)
    expect(work[1] / work[0]).toBeLessThan(6)
  })

  it("restateText of a text holding each of 3,000 known secrets reads it a bounded number of times", () => {
    const secrets = tokens(3000).map((t) => t + "!x")
    const known = new Map(secrets.map((s, i) => [s, marker(`k${i % 7}`)] as const))
    const text = secrets.map((s, i) => (i % 3 === 0 ? `say ${s} ok` : i % 3 === 1 ? `{"pw":"${s}"}` : `in${s}side`)).join("\n")
    let got = ""
    const read = charsRead(() => {
      got = restateText(text, known)
    })
    expect(read).toBeLessThan(10 * text.length)
    const lines = got.split("\n")
    secrets.forEach((s, i) => {
      // a token of its own is hidden; inside a word it stays (restateText's doc)
      if (i % 3 === 0) expect(lines[i]).toBe(`say ${marker(`k${i % 7}`)} ok`)
      else if (i % 3 === 1) expect(lines[i]).toBe(`{"pw":"${marker(`k${i % 7}`)}"}`)
      else expect(lines[i]).toBe(`in${s}side`)
    })
  })

  it("a map of known secrets growing one entry at a time between texts is indexed once per entry", () => {
    const secrets = tokens(3000).map((t) => t + "#")
    const known = new Map<string, string>()
    const before = restateWork.entries
    for (let i = 0; i < secrets.length; i++) {
      known.set(secrets[i], marker("secret-field"))
      if (i >= 8) expect(restateText(`x ${secrets[i]} y`, known)).toBe(`x ${marker("secret-field")} y`)
    }
    // each entry once (the first 8 were looked up without an index); not the whole map at each growth
    expect(restateWork.entries - before).toBe(secrets.length)
  })
})
