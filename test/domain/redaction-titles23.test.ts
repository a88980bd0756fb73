/**
 * tester22c F1: a title is its first prompt cut to 80 characters (`titleOf`) on the text as imported; redacted after
 * the cut, what it showed (and where it was cut) depended on the length of the value redaction hid: a short password
 * let the title keep the words after it, a long one pushed them past the cut. With its first prompt at hand (the
 * session's events or transcript blocks), a title is now that prompt redacted whole, then cut
 * (`titleOfRedacted`), in every redacted output: the same title whatever the hidden value's length.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { ELLIPSIS, isTitleSource, TITLE_MAX_CHARS, titleOfRedacted, titleSourceIn } from "../../src/domain/redaction/clipped.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableReplaySource, shareableTranscript, shareableTrajectory } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { sessionEvent } from "../support/redaction-asserts.js"

const r = defaultRedaction
const SA = marker("secret-assignment")
const HEAD = "deploy the billing service with PGPASSWORD="
/** Passwords ending before the cut, just after it, straddling it, very long (the head is 43 characters, the cut at 79). */
const PASSWORDS = ["Ab1!x9", "Q7w!" + "e".repeat(32), "Q7w!" + "e".repeat(34), "Z9k!" + "deploy.billing-".repeat(4), "X9z!" + "deploy.billing/".repeat(40)]
const promptWith = (pw: string) => `${HEAD}${pw} then deploy again\nand check the billing dashboard`
/** The first prompt redacted whole, then cut: what every variant's title is. */
const WANT = `${HEAD}${SA} then deploy again and check the billing dashboard`.slice(0, TITLE_MAX_CHARS - 1) + ELLIPSIS

describe("tester22c F1: a title is its first prompt redacted whole, then cut", () => {
  it("the same title for every password length, in the title and the transcript (Markdown)", () => {
    for (const pw of PASSWORDS) {
      const prompt = promptWith(pw)
      const title = titleOf(prompt)
      expect(r.title(title, undefined, prompt), pw).toBe(WANT)
      const t = {
        sessionId: "s1",
        title,
        turns: [{ role: "user", timestamp: null, blocks: [{ type: "text", text: prompt }] }],
        compactions: [],
        parseWarnings: [],
        diagnostics: []
      } as unknown as Transcript
      expect(r.transcript(t).title, pw).toBe(WANT)
    }
  })

  it("ATIF and the replay: the title cut from the session's first prompt redacted whole", () =>
    Effect.gen(function*() {
      const titles = new Set<unknown>()
      for (const pw of PASSWORDS) {
        const prompt = promptWith(pw)
        const events: ReadonlyArray<SessionEvent> = [
          sessionEvent(1, { kind: "message", role: "user", text: prompt }),
          sessionEvent(2, { kind: "message", role: "assistant", text: "deploying" })
        ]
        const atif = yield* shareableTrajectory({
          session: { sessionId: "s1", provider: "claude-code", title: titleOf(prompt), model: null },
          events,
          subagents: []
        } as never)
        const replay = yield* shareableReplaySource({
          session: { sessionId: "s1", provider: "claude-code", title: titleOf(prompt), model: null, workspace: null },
          events,
          subagents: []
        } as never)
        expect(replay.session.title, pw).toBe(WANT)
        expect(JSON.stringify(atif), pw).toContain(JSON.stringify(WANT).slice(1, -1))
        const md = yield* shareableTranscript({
          sessionId: "s1",
          title: titleOf(prompt),
          turns: [{ role: "user", timestamp: null, blocks: [{ type: "text", text: prompt }] }],
          compactions: [],
          parseWarnings: [],
          diagnostics: []
        } as unknown as Transcript)
        titles.add(md.title)
      }
      expect([...titles]).toEqual([WANT])
    }).pipe(Effect.provide(Redaction.layer)))

  it("the cut never goes through a marker: a marker it would cut goes whole, with the space before it", () => {
    // the marker starts at every place around the cut
    for (let k = 50; k < 90; k++) {
      const redacted = "w".repeat(k) + " " + SA + " tail"
      const t = titleOfRedacted(redacted)
      expect(t.length, `${k}`).toBeLessThanOrEqual(TITLE_MAX_CHARS)
      const open = t.indexOf("[REDACTED:")
      if (open >= 0) expect(t.indexOf("]", open), `${k}`).toBeGreaterThan(open)
      expect(t.endsWith(ELLIPSIS) || t === redacted, `${k}`).toBe(true)
      expect(t, `${k}`).not.toMatch(/\[REDACTED:[^\]]*$|\[REDACTED:[^\]]*…/)
    }
    expect(titleOfRedacted("short  one\n")).toBe("short one")
  })

  it("a source is a text the title was cut from; any other is ignored", () => {
    const prompt = promptWith(PASSWORDS[4])
    const title = titleOf(prompt)
    expect(isTitleSource(title, prompt)).toBe(true)
    expect(isTitleSource(title, "  \n" + prompt)).toBe(true)
    expect(isTitleSource(title, HEAD + "other")).toBe(false)
    expect(isTitleSource(titleOf("a short title"), "a short title")).toBe(false)
    expect(titleSourceIn(title, [null, "deploying", prompt])).toBe(prompt)
    // a source it was not cut from: the title as before (cut as imported, its cut word gone)
    expect(r.title(title, undefined, "unrelated text that is long enough to be a title's source, but is not this one's")).toBe(r.title(title))
    expect(r.title(title)).toBe(`${HEAD}${SA}${ELLIPSIS}`)
  })
})
