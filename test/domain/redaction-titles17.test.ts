/**
 * tester17 F1 and F1b: a session's title is its first prompt cut to 80
 * characters (`titleOf`: 79 and `\u2026`), stored so in the index.
 *
 * - F1: a secret the cut goes through is no longer whole, so no text rule
 *   finds it (`ghp_` and up to 35 of its 36 characters, an email's `bob.s`).
 *   A title cut short is redacted without its ellipsis and loses its last
 *   word, unless it ends with a marker; no marker is ever cut
 *   (`src/domain/redaction/clipped.ts`).
 * - F1b: ATIF and the replay redact a value a later tool input names a
 *   secret in earlier events too; the title, made from the first prompt, gets
 *   the same redaction.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { CLIP_SLACK, clipText, EVENT_TEXT_MAX, redactClipped } from "../../src/domain/redaction/clipped.js"
import { TOOL_INPUT_TEXT_MAX as CLAUDE_TOOL_INPUT_TEXT_MAX } from "../../src/domain/claude-code/events.js"
import { TOOL_INPUT_TEXT_MAX as MUSE_TOOL_INPUT_TEXT_MAX } from "../../src/domain/muse-agents/events.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableEvents, shareableReplaySource, shareableTranscript, shareableTrajectory } from "../../src/layers/share.js"
import { defaultRedaction, noRedaction, Redaction } from "../../src/services/Redaction.js"
import { sessionEvent } from "../support/redaction-asserts.js"

const r = defaultRedaction
const E = "\u2026"
// built at run time so that no secret scanner flags this file
const BODY = "Ab1".repeat(12)
const GHP = ["ghp", "_", BODY].join("")
const GH = marker("github-token")
const F17 = marker("secret-field")
const prompt = (k: number) => "x".repeat(k) + " " + GHP + " tail words here"

describe("tester17 F1: a title cut short through a secret", () => {
  it("the token straddling the cut, at several positions: the cut word goes, nothing of the token stays", () => {
    // the token (40 characters) starts at k + 1; the title keeps characters 0..78: it is cut inside the token for k = 39..77
    for (const k of [39, 40, 45, 60, 70, 76, 77]) {
      const title = titleOf(prompt(k))
      expect(title.length).toBe(80)
      // a prefix of the token, 2 to 39 of its characters, before the ellipsis
      expect(GHP.startsWith(title.slice(k + 1, 79)) && title.length - 1 - (k + 1) < GHP.length).toBe(true)
      expect(r.title(title), `k=${k}`).toBe("x".repeat(k) + E)
    }
  })

  it("the worst case (39 of the token's 40 characters before the cut) and the token whole at the cut", () => {
    expect(titleOf(prompt(39))).toBe("x".repeat(39) + " " + GHP.slice(0, 39) + E)
    expect(r.title(titleOf(prompt(39)))).toBe("x".repeat(39) + E)
    // k = 38: the token ends right at the cut, whole: its marker stays, and is not cut
    expect(r.title(titleOf(prompt(38)))).toBe("x".repeat(38) + " " + GH + E)
  })

  it("every cut position: no part of the token, every marker whole", () => {
    for (let k = 0; k <= 90; k++) {
      const out = r.title(titleOf(prompt(k)))
      expect(out, `k=${k}`).not.toContain("ghp_")
      expect(out, `k=${k}`).not.toContain("Ab1Ab")
      expect(out.split("[REDACTED:").length - 1, `k=${k}`).toBe(out.split(GH).length - 1)
    }
  })

  it("an email cut at `bob.s`", () => {
    // " mail me at " is 12 characters: 62 + 12 + 5 = 79, the cut right after `bob.s`
    const title = titleOf("y".repeat(62) + " mail me at bob.smith@example.com about the release")
    expect(title).toBe("y".repeat(62) + " mail me at bob.s" + E)
    expect(r.title(title)).toBe("y".repeat(62) + " mail me at" + E)
  })

  it("a value after `=` or a quote: the fragment goes, what precedes it stays", () => {
    const title = titleOf("z".repeat(60) + " run DEPLOY_KEY=Zq9Secret77abcdefgh now")
    expect(title).toBe("z".repeat(60) + " run DEPLOY_KEY=Zq9" + E)
    // secret-assignment takes the fragment as a value: it ends with the marker, which stays
    expect(r.title(title)).toBe("z".repeat(60) + " run DEPLOY_KEY=" + marker("secret-assignment") + E)
    const quoted = titleOf("q".repeat(66) + ' say "bob.smith@example.com"')
    expect(quoted).toBe("q".repeat(66) + ' say "bob.smi' + E)
    expect(r.title(quoted)).toBe("q".repeat(66) + ' say "' + E)
  })

  it("a title that is not cut: as text, its last word kept", () => {
    expect(r.title("deploy with " + GHP)).toBe("deploy with " + GH)
    expect(r.title("wait" + E)).toBe("wait" + E)
    const eighty = "w".repeat(70) + " last word"
    expect(eighty.length).toBe(80)
    expect(r.title(eighty)).toBe(eighty)
    // redaction off: as it is
    expect(noRedaction.title(titleOf(prompt(45)))).toBe(titleOf(prompt(45)))
  })

  it("redactClipped: another cut's length", () => {
    const cut = "see bob.smith@exam" + E
    expect(redactClipped(r.text, cut, cut.length)).toBe("see" + E)
    // a cut on a grapheme's edge may be up to CLIP_SLACK units shorter than its length (session 34, tester33a F4)
    expect(redactClipped(r.text, cut, cut.length + 1)).toBe("see" + E)
    expect(redactClipped(r.text, cut, cut.length + CLIP_SLACK + 1)).toBe(r.text(cut))
  })

  it.effect("the Markdown transcript's title (show / transcript --format markdown)", () =>
    Effect.gen(function*() {
      const t = { sessionId: "s1", title: titleOf(prompt(50)), turns: [], compactions: [], parseWarnings: [], diagnostics: [] } as unknown as Transcript
      expect(r.transcript(t).title).toBe("x".repeat(50) + E)
      expect((yield* shareableTranscript(t)).title).toBe("x".repeat(50) + E)
    }).pipe(Effect.provide(Redaction.layer)))
})

describe("tester17 F1b: a title keeps no value a later tool input names a secret", () => {
  const V = ["Zebra7", "Quartz9", "Mango"].join("")
  const F = marker("secret-field")
  const first = `connect to the db, it is ${V} ok`
  const events = (): ReadonlyArray<SessionEvent> => {
    const input = { command: "psql", env: { DB_PASSWORD: V } }
    return [
      sessionEvent(1, { kind: "message", role: "user", text: first }),
      sessionEvent(2, { kind: "tool-call", toolName: "Bash", toolInput: input, toolCallId: "t1", text: JSON.stringify(input) } as Partial<SessionEvent>),
      sessionEvent(3, { kind: "tool-result", role: "user", toolCallId: "t1", text: `logged in with ${V}` } as Partial<SessionEvent>)
    ]
  }
  const want = `connect to the db, it is ${F} ok`

  it("the title with its session's secrets", () => {
    expect(r.title(first, new Map([[V, F]]))).toBe(want)
    expect(r.title(first)).toBe(first)
  })

  it.effect("ATIF (the trajectory's and a subagent's title) and the replay (session and subagent)", () =>
    Effect.gen(function*() {
      const atif = yield* shareableTrajectory({
        session: { sessionId: "s1", provider: "claude-code", title: titleOf(first), model: null },
        events: events(),
        subagents: [{ session: { sessionId: "s2", provider: "claude-code", title: `check ${V} works`, model: null }, events: [] }]
      } as never)
      const text = JSON.stringify(atif)
      expect(text).not.toContain(V)
      expect(text).toContain(JSON.stringify(want).slice(1, -1))
      expect(text).toContain(`check ${F} works`)
      const replay = yield* shareableReplaySource({
        session: { sessionId: "s1", provider: "claude-code", title: titleOf(first), model: null, workspace: null },
        events: events(),
        subagents: [{ session: { sessionId: "s2", provider: "claude-code", title: `check ${V} works` }, events: [], subagents: [] }]
      } as never)
      expect(replay.session.title).toBe(want)
      expect(replay.subagents[0].session.title).toBe(`check ${F} works`)
    }).pipe(Effect.provide(Redaction.layer)))
})

describe("tester17 F1, the same cut: an event's text its provider cut to 1000 characters", () => {
  // `{"command":"` is 12 characters; the token starts at 12 + 970 + 1 = 983, the cut keeps 999: 16 of its 40
  const input = { command: "x".repeat(970) + " " + GHP + " and more" }
  const text = clipText(JSON.stringify(input), EVENT_TEXT_MAX)
  const ev = sessionEvent(1, { kind: "tool-call", toolName: "Bash", toolInput: input, toolCallId: "t1", text } as Partial<SessionEvent>)

  it("the providers cut there", () => {
    expect(CLAUDE_TOOL_INPUT_TEXT_MAX).toBe(EVENT_TEXT_MAX)
    expect(MUSE_TOOL_INPUT_TEXT_MAX).toBe(EVENT_TEXT_MAX)
    expect(text).toBe('{"command":"' + "x".repeat(970) + " " + GHP.slice(0, 16) + E)
  })

  it("event, eventIn and the NDJSON export: the cut word goes, the input whole is redacted", () =>
    Effect.gen(function*() {
      const want = '{"command":"' + "x".repeat(970) + E
      expect(r.event(ev).text).toBe(want)
      expect(r.event(ev).toolInput).toEqual({ command: "x".repeat(970) + " " + GH + " and more" })
      expect(r.eventIn(ev, new Map([["Zq9unrelated1", F17]])).text).toBe(want)
      const out = Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable([ev]))))
      expect(out[0].text).toBe(want)
      // a text of another length, or not ending in the ellipsis, is redacted as text
      const short = sessionEvent(2, { kind: "message", text: "see bob.smith@example.com" + E })
      expect(r.event(short).text).toBe("see " + marker("email") + E)
    }).pipe(Effect.provide(Redaction.layer), Effect.runPromise))
})

describe("tester17 F1, the same cut in a transcript's text block (Markdown)", () => {
  it("a block's text cut to 1000 characters: the cut word goes", () => {
    const cut = clipText("x".repeat(970) + " " + GHP + " and more", EVENT_TEXT_MAX)
    expect(cut).toBe("x".repeat(970) + " " + GHP.slice(0, 28) + E)
    const t = {
      sessionId: "s1",
      title: null,
      turns: [{ role: "assistant", timestamp: null, blocks: [{ type: "text", id: "b1", text: cut }, { type: "text", id: "b2", text: `whole ${GHP}` }] }],
      compactions: []
    } as unknown as Transcript
    const out = r.transcript(t)
    expect(out.turns[0].blocks.map((b) => (b as { text: string }).text)).toEqual(["x".repeat(970) + E, `whole ${GH}`])
  })
})
