/**
 * Session 33 (tester33a F1): the text blocks of one user message (one native record: a Claude Code line whose
 * `content` is several text blocks, an AgentMux typed prompt's blocks; each block an event) are read as one text at
 * their joints, as an assistant response's blocks are, by the one rule every output shares (`sameResponseText`):
 * a token cut across them is hidden in the events (NDJSON export, also one event at a time; the replay; ATIF; MCP's
 * `redactJoints`), in the Markdown (a user turn is one message) and at a window's edge (`outsideRuns`). Two user
 * messages in a row (two records) are never read as one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { redactJoints, redactTranscriptJoints, sameResponseText, sameUserMessage } from "../../src/domain/redaction/joints.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { outsideRuns, shareableTranscript } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { j, sharedEventTexts } from "../support/redaction-asserts.js"

const r = defaultRedaction
// the tester's token and cut: 18 characters in the first block, 22 in the second
const GHP = j("gh", "p_A1bpabbfjvlxVqptN10aFCMyKs9UroWcskzb")
const GM = marker("github-token")

/** A session whose first user line holds two text blocks (the same record: `rawReference.sequence` 1), then an answer. */
const session = (provider: "claude-code" | "agentmux", locatorClass: string): (() => Array<SessionEvent>) => () => {
  const e = mk(provider, "s-u33")
  const ref = { locatorClass, sequence: 1, offset: 0 } as SessionEvent["rawReference"]
  return [
    e("message", { role: "user", text: `use token ${GHP.slice(0, 18)}`, rawReference: { ...ref, ...(provider === "agentmux" ? { childIndex: 0 } : {}) } }),
    e("message", { role: "user", text: `${GHP.slice(18)} now`, rawReference: { ...ref, ...(provider === "agentmux" ? { childIndex: 1 } : {}) } }),
    e("message", { role: "assistant", text: "ok", rawReference: { locatorClass, sequence: 2, offset: 99 } as SessionEvent["rawReference"] })
  ]
}
const WANT = [`use token ${GM}`, " now", "ok"]
const SHAPES = [["claude-code", "claude-code-session-log"], ["agentmux", "agentmux-agent-record"]] as const

describe("session 33 (tester33a F1): a token cut across the text blocks of one user message", () => {
  it.each(SHAPES)("%s: the blocks of one record are one text; redactJoints (MCP get_events, search snippets) hides the token", (provider, locator) => {
    const events = session(provider, locator)()
    expect(sameUserMessage(events[0], events[1])).toBe(true)
    expect(sameResponseText(events[0], events[1])).toBe(true)
    expect(redactJoints(r.text, events.map(r.event)).map((e) => e.text)).toEqual(WANT)
  })

  it.each(SHAPES)("%s: a window's edge between the two blocks reads the other one (outsideRuns)", (provider, locator) => {
    const events = session(provider, locator)()
    expect(outsideRuns(events, 1, 3)).toMatchObject({ before: [events[0]], cut: { before: true, after: false } })
    expect(outsideRuns(events, 0, 1)).toMatchObject({ after: [events[1]] })
  })

  it.each(SHAPES)("%s: NDJSON export (whole, one event at a time), the replay, ATIF and the Markdown agree", (provider, locator) =>
    Effect.gen(function*() {
      const { atif, ...texts } = yield* sharedEventTexts(session(provider, locator))
      expect(texts).toEqual({ export: WANT, exportOneByOne: WANT, replay: WANT })
      expect(atif).not.toContain(GHP.slice(4, 18))
      expect(atif).not.toContain(GHP.slice(18))
      expect(atif).toContain(`use token ${GM}`)
      const t = transcriptFromEvents({ sessionId: "s-u33" }, session(provider, locator)())
      expect(t.turns[0].blocks.length).toBe(2)
      const md = yield* shareableTranscript(t)
      expect(md.turns[0].blocks).toEqual([{ type: "text", text: `use token ${GM}` }, { type: "text", text: " now" }])
    }).pipe(Effect.provide(Redaction.layer), Effect.runPromise))

  it("two user lines in a row (two records) are not one text: each keeps its words", () => {
    const e = mk("claude-code", "s-two")
    const events = [
      e("message", { role: "user", text: `use token ${GHP.slice(0, 18)}` }),
      e("message", { role: "user", text: `${GHP.slice(18)} now` })
    ]
    expect(events[0].rawReference.sequence).not.toBe(events[1].rawReference.sequence)
    expect(sameResponseText(events[0], events[1])).toBe(false)
    expect(redactJoints(r.text, events.map(r.event)).map((x) => x.text)).toEqual(events.map((x) => x.text))
    // the Markdown: two turns, not joined
    const t = transcriptFromEvents({ sessionId: "s-two" }, events)
    expect(t.turns.length).toBe(2)
    expect(redactTranscriptJoints(r.text, r.transcript(t))).toEqual(t)
    // a user block and an assistant block of the same record are not one text either
    const f = mk("claude-code", "s-mixed")
    const a = f("message", { role: "user", text: `x ${GHP.slice(0, 18)}` })
    const b = f("message", { role: "assistant", text: `${GHP.slice(18)} y`, rawReference: a.rawReference })
    expect(sameResponseText(a, b)).toBe(false)
  })
})
