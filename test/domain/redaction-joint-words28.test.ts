/**
 * Session 28 (tester28a F1, HIGH): an assistant message that ends with a secret (an email, a token, a password told
 * in prose) and a next assistant message that starts with an ordinary word ("Done now"): the joint rule of tester17
 * F2b (a marker ending the first text, and the second going on with the same word, takes that word as the secret's
 * rest) took "Done", so every redacted output showed " now", with no marker and no warning. A word goes with the
 * marker before it only when it looks like the rest of a cut token (a digit, a capital inside it, token punctuation,
 * a run of capitals, or a long run of letters); an ordinary word (a capital then small letters, or small letters) is
 * the next text's own, and stays, the same in every output (NDJSON export, the replay, ATIF, the Markdown).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { redactJoint } from "../../src/domain/redaction/joints.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableTranscript } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { j, sharedEventTexts } from "../support/redaction-asserts.js"

const r = defaultRedaction
const redacted = (a: string, b: string) => redactJoint(r.text, r.text(a), r.text(b))
const EMAIL = j("bob", "@", "example.com")
const GHP = j("gh", "p_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")

/** First texts that end with a secret a rule hides whole (each marker ends the text), and the marker's kind. */
const ENDINGS: ReadonlyArray<readonly [string, string]> = [
  [`mail ${EMAIL}`, "email"],
  [`the key ${GHP}`, "github-token"]
]
/** Second texts that start with an ordinary word, which is not a secret's rest. */
const WORDS = ["Done now", "Done", "Sure thing", "ok using it", "thanks, that works", "Next", "and then"]

describe("session 28 (tester28a F1): an ordinary word after a text ending in a secret stays", () => {
  it("redactJoint: the marker ends the first text, the second text is unchanged", () => {
    for (const [a, kind] of ENDINGS) {
      for (const b of WORDS) {
        const [x, y] = redacted(a, b)
        expect(x, `${a} | ${b}`).toBe(`${a.slice(0, a.lastIndexOf(" ") + 1)}${marker(kind)}`)
        expect(y, `${a} | ${b}`).toBe(b)
      }
    }
  })

  it("a password told in prose, then a message that starts with a word: the word stays", () => {
    const [x, y] = redacted("the password is hunter2secret", "Sure thing")
    expect(x).not.toContain("hunter2secret")
    expect(x).toMatch(/\[REDACTED:[a-z-]+\]$/)
    expect(y).toBe("Sure thing")
  })

  it("the rest of a cut token still goes (tester17 F2b): digits, inner capitals, token punctuation, capitals", () => {
    for (const [lead, rest] of [
      [`your token is ${GHP.slice(0, 12)}`, `${GHP.slice(12)} done.`],
      [`your token is ${GHP.slice(0, GHP.length - 3)}`, `${GHP.slice(-3)} done.`],
      ["export API_TOKEN=AKIAIOSFODNN7EXAM", "PLE done."],
      ["password: Xk9-pQ", "_w8+Zr/= done."]
    ] as const) {
      const [x, y] = redacted(lead, rest)
      expect(x, lead).toMatch(/\[REDACTED:[a-z-]+\]$/)
      expect(y, lead).toBe(" done.")
    }
  })

  /** The tester's session: a user prompt, an assistant message ending in an email, then one that starts a word. */
  const session = (second: string) => (): Array<SessionEvent> => {
    const e = mk("claude-code", "s-f1")
    return [
      e("message", { role: "user", text: "hi" }),
      e("message", { role: "assistant", text: `mail ${EMAIL}`, responseId: "m1:r1" }),
      e("message", { role: "assistant", text: second, responseId: "m2:r2" })
    ]
  }

  it.effect("every shareable output keeps the word (export, one by one, replay, ATIF, Markdown)", () =>
    Effect.gen(function*() {
      for (const second of ["Done now", "Done", "exactly 200k"]) {
        const want = ["hi", `mail ${marker("email")}`, second]
        const { atif, ...texts } = yield* sharedEventTexts(session(second))
        expect(texts, second).toEqual({ export: want, exportOneByOne: want, replay: want })
        expect(atif, second).toContain(JSON.stringify(second).slice(1, -1))
        expect(atif, second).not.toContain(EMAIL)
        const md = yield* shareableTranscript(transcriptFromEvents({ sessionId: "s-f1" }, session(second)()))
        const blocks = md.turns.flatMap((t) => t.blocks.map((b) => (b.type === "text" ? b.text : "")))
        expect(blocks, second).toEqual(want)
      }
    }).pipe(Effect.provide(Redaction.layer)))

  // tester28b F3: "the password is" + "Hunter2xyz Later" lost "is" (read joined: the password "isHunter2xyz")
  it("a plain word ending the first text before a password told in the next stays; the password goes", () => {
    for (const [a, b] of [["the password is", "Hunter2xyz Later"], ["my password is", "Hunter2xyz Later"], ["your password is", "Hunter2xyz fine"]]) {
      const [x, y] = redacted(a, b)
      expect(x, `${a} | ${b}`).toBe(a)
      expect(y, `${a} | ${b}`).toMatch(/^\[REDACTED:[a-z-]+\] (Later|fine)$/)
    }
  })
})
