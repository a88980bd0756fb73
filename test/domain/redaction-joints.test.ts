/**
 * A secret cut in two across adjacent assistant text events of one response (Claude Code writes each text block
 * of a streamed response as a line of its own): each half alone matches no rule, so redaction per string keeps
 * both; the joint is redacted as one window and mapped back (the marker ends the first text, the second goes on
 * after the secret). Nothing else changes: other kinds, other bytes (texts of consecutive responses are read as one
 * too since tester23c F5, as the Markdown reads them).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent } from "../../src/domain/model.js"
import { redactJoint, redactJoints } from "../../src/domain/redaction/joints.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableEvents, shareableReplaySource, shareableTrajectory } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const GHP = j("ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
const AKIA = j("AKIA", "IOSFODNN7EXAMPLE")
const redacted = (a: string, b: string) => redactJoint(r.text, r.text(a), r.text(b))

describe("redactJoint: the joint of two texts redacted as one", () => {
  it("a token cut in two: the marker ends the first text, the second goes on after the token; other bytes stay", () => {
    for (const token of [GHP, AKIA]) {
      for (const at of [1, 4, 8, token.length - 1]) {
        const a = `Intro line.\nHere it is: ${token.slice(0, at)}`
        const b = `${token.slice(at)} and the rest.\nLast line.`
        // each half alone is kept by the rules
        expect(r.text(a) + r.text(b), `${token} at ${at}`).toContain(token)
        const [x, y] = redacted(a, b)
        expect(x + y, `${token} at ${at}`).not.toContain(token.slice(4, -4))
        expect(x).toMatch(/^Intro line\.\nHere it is: \[REDACTED:[a-z-]+\]$/)
        expect(y).toBe(" and the rest.\nLast line.")
      }
    }
  })

  it("a token whose first half a rule of its own takes (prose, an assignment): its second half goes too (tester17 F2b)", () => {
    for (const token of [GHP, AKIA]) {
      for (const at of [4, 10, token.length - 3]) {
        for (const lead of ["your token is ", "export API_TOKEN=", "password: "]) {
          const a = `Intro.\n${lead}${token.slice(0, at)}`
          const b = `${token.slice(at)} done.\nNext line.`
          const [x, y] = redacted(a, b)
          const what = `${lead}${token} at ${at}`
          expect(x + y, what).not.toContain(token.slice(at))
          expect(x, what).toMatch(/\[REDACTED:[a-z-]+\]$/)
          expect(y, what).toBe(" done.\nNext line.")
        }
      }
    }
  })

  it("a marker ending the first text and a second text that starts a new word or line: nothing more goes", () => {
    for (const b of [" and then", "\nNext", ". Done", "'s value", ", then"]) {
      const [x, y] = redacted(`the key ${GHP}`, b)
      expect(x).toBe(`the key ${marker("github-token")}`)
      expect(y).toBe(b)
    }
  })

  it("a name in one block and its value in the next: the value goes where it is", () => {
    const [x, y] = redacted("Set this in .env:\nOPENAI_API_KEY=", "pw9Zq81xLk2 then restart.")
    expect(x).toBe("Set this in .env:\nOPENAI_API_KEY=")
    expect(y).toBe(`${marker("secret-assignment")} then restart.`)
  })

  it("texts whose joint holds no secret are answered as given (no byte changes)", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["First paragraph.", "\n\nSecond paragraph."],
      ["The token", " is read from the environment."],
      ["Use `git log", "` to see it."],
      [`already ${marker("github-token")}`, " gone"],
      ["a".repeat(5000), "b".repeat(5000)]
    ]
    for (const [a, b] of cases) {
      const [x, y] = redacted(a, b)
      expect(x).toBe(a)
      expect(y).toBe(b)
    }
  })

  it("long texts: only the window at the joint is read (a word cut by the window's edge is not redacted)", () => {
    const a = `${"word ".repeat(400)}AKIA${"x".repeat(2000)}\nKey: ${GHP.slice(0, 10)}`
    const b = `${GHP.slice(10)}\n${"more ".repeat(400)}`
    const [x, y] = redacted(a, b)
    expect(x).toBe(`${"word ".repeat(400)}AKIA${"x".repeat(2000)}\nKey: ${marker("github-token")}`)
    expect(y).toBe(`\n${"more ".repeat(400)}`)
  })
})

const split = (): Array<SessionEvent> => {
  const e = mk("claude-code", "s-1")
  return [
    e("message", { role: "user", text: "give me the token" }),
    e("message", { role: "assistant", text: `Here: ${GHP.slice(0, 12)}`, responseId: "msg-1:req-1" }),
    e("message", { role: "assistant", text: `${GHP.slice(12)} (keep it safe)`, responseId: "msg-1:req-1" }),
    // another response: its joint with the one before is read too (tester23c F5: as the Markdown reads a turn's
    // adjacent text blocks)
    e("message", { role: "assistant", text: `${AKIA.slice(0, 8)}`, responseId: "msg-2:req-2" }),
    e("message", { role: "assistant", text: `${AKIA.slice(8)}`, responseId: "msg-3:req-3" }),
    e("tool-call", { role: "assistant", text: "ls", responseId: "msg-3:req-3" })
  ]
}

describe("redactJoints and the shareable outputs", () => {
  const want = (events: ReadonlyArray<SessionEvent>) => {
    expect(events.map((e) => e.text)).toEqual([
      "give me the token",
      `Here: ${marker("github-token")}`,
      " (keep it safe)",
      marker("aws-access-key"),
      "",
      "ls"
    ])
  }

  it("redactJoints: only joints of consecutive assistant texts; other events are the same objects", () => {
    const events = split().map(r.event)
    const out = redactJoints(r.text, events)
    want(out)
    for (const k of [0, 5]) expect(out[k]).toBe(events[k])
  })

  it.effect("NDJSON export (shareableEvents), the replay and ATIF carry the joint redacted", () =>
    Effect.gen(function*() {
      want(Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(split())))))
      // one event at a time, as a source streams them
      want(Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(split()).pipe(Stream.rechunk(1))))))
      const session = { sessionId: "s1", title: null, model: null, workspace: null } as never
      const replay = yield* shareableReplaySource({ session, events: split(), subagents: [] } as never)
      want(replay.events)
      const atif = yield* shareableTrajectory({ session: { sessionId: "s-1", title: null, model: null } as never, events: split(), subagents: [] } as never)
      expect(JSON.stringify(atif)).not.toContain(GHP.slice(12))
    }).pipe(Effect.provide(Redaction.layer)))
})
