/**
 * Session 23 (tester23c F5): a token cut across two consecutive assistant responses (two `message.id`s: `Other:
 * ghp_…` then the token's rest) was hidden in the Markdown transcript (a turn's adjacent text blocks are read as one
 * text) but shown in NDJSON, ATIF, the replay and MCP (their runs were one response's blocks), so the Markdown told a
 * reader that the two fragments the other outputs show are a token. Now every output reads consecutive assistant
 * text and thinking events of a session as one text at their joints, whatever their responses: the token is hidden
 * everywhere, and each output shows the same texts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { redactJoints } from "../../src/domain/redaction/joints.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { outsideRuns, shareableTranscript } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { j, sharedEventTexts } from "../support/redaction-asserts.js"

const r = defaultRedaction
const GHP = j("gh", "p_XrEsPAbCdEfGhIjKlMnOqWeRtYuIoPaS1234")
const GM = marker("github-token")
const WANT = ["show me", `Other: ${GM}`, "", "ls"]

/** The tester's events: the token's first 24 characters end response m1, its rest is response m2's text. */
const session = (): Array<SessionEvent> => {
  const e = mk("claude-code", "s-f5")
  return [
    e("message", { role: "user", text: "show me" }),
    e("message", { role: "assistant", text: `Other: ${GHP.slice(0, 24)}`, responseId: "m1:r1" }),
    e("message", { role: "assistant", text: GHP.slice(24), responseId: "m2:r2" }),
    e("tool-call", { role: "assistant", text: "ls", responseId: "m2:r2" })
  ]
}

describe("session 23 (tester23c F5): a token cut across two responses is hidden in every output", () => {
  it("redactJoints (MCP get_events, get_session, search snippets)", () => {
    expect(redactJoints(r.text, session().map(r.event)).map((e) => e.text)).toEqual(WANT)
  })

  it("a page edge between the two responses reads the other one (outsideRuns)", () => {
    // a slice that starts at m1's block: the window (m2's) goes on from it, so a wider slice must be read
    const events = session().slice(1)
    expect(outsideRuns(events, 1, 3)).toMatchObject({ before: [events[0]], cut: { before: true, after: false } })
  })

  it.effect("NDJSON export (also one event at a time), the replay, ATIF and the Markdown agree", () =>
    Effect.gen(function*() {
      const { atif, ...texts } = yield* sharedEventTexts(session)
      expect(texts).toEqual({ export: WANT, exportOneByOne: WANT, replay: WANT })
      expect(atif).not.toContain(GHP.slice(4, 24))
      expect(atif).not.toContain(GHP.slice(24))
      expect(atif).toContain(`Other: ${GM}`)
      const md = JSON.stringify(yield* shareableTranscript(transcriptFromEvents({ sessionId: "s-f5" }, session())))
      expect(md).not.toContain(GHP.slice(24))
      expect(md).toContain(`Other: ${GM}`)
    }).pipe(Effect.provide(Redaction.layer)))
})
