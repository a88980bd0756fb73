/**
 * tester38 F1 and F2 in the Redaction service and the shareable outputs built from it:
 * - F1: a compaction's `trigger` is free text copied from the source (Muse agents' `compaction_checkpoint`, AgentMux's
 *   `compact_boundary`, Claude Code's `compactMetadata.trigger`) and goes through the text rules; its id, copied from
 *   the source too, is a link id (kept when id-shaped). In an event's `compaction`, a transcript's `compactions` and
 *   the ATIF's `context_management` and message.
 * - F2: a session id copied from the source (Claude Code's flat sidechain `sidechain-<a record's uuid>`) that is not
 *   id-shaped goes through the text rules, in the events, the transcript, the ATIF's `session_id` /
 *   `trajectory_id` and the parent's subagent link, which still resolves; an id-shaped one stays as it is.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Transcript } from "../../src/domain/model.js"
import { shareableTrajectory } from "../../src/layers/share.js"
import { defaultRedaction, noRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"

// built at run time so that no secret scanner flags this file
const TOKEN = ["ghp", "_", "K0027XQ1w2E3r4T5y6U7i8O9p0A1s2D3f4G5"].join("")
const ANT = ["sk-ant-api03-", "Zq8vN3pLx2Kc7Wm4Rt9Yb6Hs1Jd5Fg0Qa8Ze3Xc7Vb2Nm4Lk6Po9Iu1Yt5Re3Wq-AAAAAA"].join("")
const EMAIL = ["carol", "@", "corp.example"].join("")
const UUID = "2eb0a3f1-e31a-4e77-a276-f0ac6d6f2a6c"

describe("tester38 F1: a compaction's trigger and id", () => {
  for (const provider of ["muse-agents", "agentmux", "claude-code"] as const) {
    it(`${provider}: an event's compaction: the trigger through the text rules, a non-id-shaped id too; its text alike`, () => {
      const e = mk(provider, "s-1")("summary", {
        role: "system",
        text: `context compaction (auto ${ANT} ${EMAIL})`,
        compaction: { id: `cmp 1 ${EMAIL}`, trigger: `auto ${ANT} ${EMAIL}` }
      })
      const out = defaultRedaction.event(e)
      expect(out.compaction).toEqual({ id: "cmp 1 [REDACTED:email]", trigger: "auto [REDACTED:anthropic-key] [REDACTED:email]" })
      // the event's text (what MCP answers) states it alike
      expect(out.text).toBe(`context compaction (${out.compaction!.trigger})`)
      // an id-shaped id and a plain trigger stay as they are (the same object: nothing to redact)
      const plain = mk(provider, "s-1")("summary", { compaction: { id: UUID, trigger: "manual" } })
      expect(defaultRedaction.event(plain).compaction).toBe(plain.compaction)
      // an id-shaped id holding a vendor token: the built-in rules
      expect(defaultRedaction.event(mk(provider, "s-1")("summary", { compaction: { id: TOKEN, trigger: null } })).compaction).toEqual({ id: "[REDACTED:github-token]", trigger: null })
      expect(noRedaction.event(e)).toBe(e)
    })
  }

  it("a transcript's compactions alike (the Markdown's list is made from them)", () => {
    const t: Transcript = {
      sessionId: "s-1", title: null, startedAt: null, endedAt: null, turns: [], parseWarnings: [], diagnostics: [],
      compactions: [
        { id: `cb 1 ${EMAIL}`, trigger: `manual ${TOKEN} /home/dan/.ssh password=Hunter2Zq8vN3pL`, timestamp: "2026-11-21T10:00:07.000Z" },
        { id: UUID, trigger: "auto", timestamp: null }
      ]
    } as unknown as Transcript
    const out = defaultRedaction.transcript(t)
    expect(out.compactions).toEqual([
      { id: "cb 1 [REDACTED:email]", trigger: "manual [REDACTED:github-token] ~/.ssh password=[REDACTED:secret-assignment]", timestamp: "2026-11-21T10:00:07.000Z" },
      { id: UUID, trigger: "auto", timestamp: null }
    ])
  })
})

describe("tester38 F2: a session id copied from the source", () => {
  const SIDE = `sidechain-${UUID} ${TOKEN}`
  const SHOWN = `sidechain-${UUID} [REDACTED:github-token]`
  const PARENT = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37"

  it("events and transcripts: a non-id-shaped session id through the text rules; an id-shaped one stays", () => {
    expect(defaultRedaction.event(mk("claude-code", SIDE)("message", { text: "hi" })).sessionId).toBe(SHOWN)
    expect(defaultRedaction.id(SIDE)).toBe(SHOWN)
    expect(defaultRedaction.id(`sidechain-${UUID}`)).toBe(`sidechain-${UUID}`)
    expect(defaultRedaction.event(mk("claude-code", `sidechain-${UUID}`)("message", { text: "hi" })).sessionId).toBe(`sidechain-${UUID}`)
    const t = { sessionId: SIDE, title: null, startedAt: null, endedAt: null, turns: [], compactions: [], parseWarnings: [], diagnostics: [] } as unknown as Transcript
    expect(defaultRedaction.transcript(t).sessionId).toBe(SHOWN)
    expect(noRedaction.id(SIDE)).toBe(SIDE)
  })

  it.effect("ATIF: the sidechain's session_id, trajectory_id and the parent's link redacted alike; the link still resolves", () =>
    Effect.gen(function*() {
      const p = mk("claude-code", PARENT)
      const s = mk("claude-code", SIDE)
      const link = { sessionId: PARENT, toolCallId: null, eventId: null, subagentId: null }
      const atif = yield* shareableTrajectory({
        session: { sessionId: PARENT, provider: "claude-code", title: "t", model: null },
        events: [
          p("message", { role: "user", text: "go", occurredAt: "2026-03-01T10:00:00Z" }),
          p("message", { role: "assistant", text: "ok", occurredAt: "2026-03-01T10:00:01Z", child: { sessionId: SIDE, subagentId: null } })
        ],
        subagents: [{
          session: { sessionId: SIDE, provider: "claude-code", title: "side", model: null },
          events: [s("message", { role: "user", text: "side", parent: link, occurredAt: "2026-03-01T10:00:02Z" })]
        }]
      } as never).pipe(Effect.provideService(Redaction, defaultRedaction))
      const text = JSON.stringify(atif)
      expect(text).not.toContain(TOKEN)
      const subs = (atif as unknown as { subagent_trajectories: Array<{ session_id?: string; trajectory_id?: string }> }).subagent_trajectories
      expect(subs.map((x) => [x.session_id, x.trajectory_id])).toEqual([[SHOWN, SHOWN]])
      // the parent names the sidechain by its shown id (the ATIF validates: every ref resolves to an embedded one)
      expect(text).toContain(JSON.stringify(SHOWN))
      expect((atif as unknown as { session_id: string }).session_id).toBe(PARENT)
    }))
})
