/**
 * tester25a F18: the ids that link things are copied from the source (a subagent `meta.json`'s `toolUseId` becomes
 * its events' `parent.toolCallId` and the ATIF's `spawn_tool_call_id`). With redaction on, an id that is not
 * id-shaped (white space, `=`) or that the built-in rules find a secret in (a vendor token) goes through the text
 * rules, in the event (`toolCallId`, `parent`, `child`) and so in every export built from it; a well-formed id
 * (`toolu_…`, a UUID) stays as it is, also under a custom pattern that would match a piece of it, and a call still
 * pairs with its result.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { SessionEvent } from "../../src/domain/model.js"
import { shareableTrajectory } from "../../src/layers/share.js"
import { defaultRedaction, noRedaction, Redaction, redactionWith } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"

// built at run time so that no secret scanner flags this file
const TOKEN = ["ghp", "_", "SubM3taAbCdEfGhIjKlMnOpQrStUvWxYz012345"].join("")
const PASSWORD = "SubM3taPw99"
const BAD_CALL = `toolu_01 password=${PASSWORD} ${TOKEN}`
const GOOD_CALL = "toolu_01xNrojzmOACaNVJsTbPfqbH"
const PARENT = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37"

/** The parent's events: a Task call `callId` and its result. */
const parentEvents = (callId: string): Array<SessionEvent> => {
  const e = mk("claude-code", PARENT)
  return [
    e("message", { role: "user", text: "check CI", occurredAt: "2026-03-01T10:00:00Z" }),
    e("tool-call", { role: "assistant", toolName: "Task", toolCallId: callId, toolInput: { prompt: "check CI" }, occurredAt: "2026-03-01T10:00:01Z" }),
    e("tool-result", { role: "user", toolCallId: callId, text: "CI is green", occurredAt: "2026-03-01T10:00:05Z" })
  ]
}

/** A subagent's events, each linked to the parent's call `callId` (as a `meta.json`'s `toolUseId` links them). */
const subEvents = (callId: string, subagentId: string): Array<SessionEvent> => {
  const e = mk("claude-code", "agent-a7c3e9f1b2d4068e5")
  const parent = { sessionId: PARENT, toolCallId: callId, eventId: null, subagentId }
  return [
    e("message", { role: "user", text: "check CI", parent, occurredAt: "2026-03-01T10:00:02Z" }),
    e("message", { role: "assistant", text: "green", parent, occurredAt: "2026-03-01T10:00:03Z" })
  ]
}

const trajectory = (callId: string, subagentId: string, r = defaultRedaction) =>
  shareableTrajectory({
    session: { sessionId: PARENT, provider: "claude-code", title: "check CI", model: null },
    events: parentEvents(callId),
    subagents: [{ session: { sessionId: "agent-a7c3e9f1b2d4068e5", provider: "claude-code", title: "check CI", model: null }, events: subEvents(callId, subagentId) }]
  } as never).pipe(Effect.provideService(Redaction, r))

/** The subagent references of the trajectory's steps' observations. */
const refsOf = (atif: unknown) => {
  const steps = (atif as { steps: Array<{ observation?: { results: Array<{ source_call_id?: string; subagent_trajectory_ref?: Array<{ extra: Record<string, unknown> }> }> } }> }).steps
  return steps.flatMap((s) => s.observation?.results ?? []).filter((x) => x.subagent_trajectory_ref !== undefined)
}

describe("tester25a F18: link ids that are not id-shaped are redacted by the text rules", () => {
  it.effect("a meta.json toolUseId holding a password and a token: not in the ATIF; the call still pairs with its subagent", () =>
    Effect.gen(function*() {
      const atif = yield* trajectory(BAD_CALL, `handle ${TOKEN}`)
      const text = JSON.stringify(atif)
      expect(text).not.toContain(PASSWORD)
      expect(text).not.toContain(TOKEN)
      const refs = refsOf(atif)
      expect(refs.length).toBe(1)
      const extra = refs[0].subagent_trajectory_ref![0].extra
      expect(extra.spawn_tool_call_id).toBe("toolu_01 password=[REDACTED:secret-assignment] [REDACTED:github-token]")
      expect(extra.subagent_id).toBe("handle [REDACTED:github-token]")
      // placed at its call's result: the call, its result and the subagent's link redacted alike
      expect(refs[0].source_call_id).toBe(extra.spawn_tool_call_id)
    }))

  it.effect("an id-shaped token is redacted too; well-formed ids stay as they are", () =>
    Effect.gen(function*() {
      const bare = JSON.stringify(yield* trajectory(TOKEN, "sub-1"))
      expect(bare).not.toContain(TOKEN)
      const atif = yield* trajectory(GOOD_CALL, "sub-1")
      const extra = refsOf(atif)[0].subagent_trajectory_ref![0].extra
      expect(extra.spawn_tool_call_id).toBe(GOOD_CALL)
      expect(extra.subagent_id).toBe("sub-1")
    }))

  it("in the event itself: toolCallId, parent and child; a custom pattern matching a piece of a well-formed id leaves it", () => {
    const [, call] = parentEvents(BAD_CALL)
    const shown = defaultRedaction.event({ ...call, child: { sessionId: `s ${TOKEN}`, subagentId: "sub-1" } })
    expect(shown.toolCallId).toBe("toolu_01 password=[REDACTED:secret-assignment] [REDACTED:github-token]")
    expect(shown.child).toEqual({ sessionId: "s [REDACTED:github-token]", subagentId: "sub-1" })
    const [sub] = subEvents(`spawn password=${PASSWORD}`, "sub-1")
    expect(JSON.stringify(defaultRedaction.event(sub).parent)).not.toContain(PASSWORD)
    const digits = Either.getOrThrow(redactionWith([{ id: "four-digits", pattern: "[0-9]{4}" }]))
    const [, good] = parentEvents("toolu_2026abcd")
    expect(digits.event(good).toolCallId).toBe("toolu_2026abcd")
    expect(noRedaction.event(call).toolCallId).toBe(BAD_CALL)
  })
})
