/**
 * tester23b F3: a secret cut across three (or more) blocks of one response (Claude Code writes each block of a
 * streamed response as a line of its own, same `message.id` and `requestId`), or across a thinking block's end and
 * the next text block, is redacted as the one text the blocks were streamed as: in the events (`redactJoints`: NDJSON
 * export, ATIF, the replay, MCP), in the Markdown transcript (`redactTranscriptJoints`), and in a window of the
 * session (`show --around`) as in the whole one.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { redactJoints, redactRun, redactTranscriptJoints } from "../../src/domain/redaction/joints.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { outsideRuns, shareableEvents, shareableTranscript, shareableWindow, shareableWindowTranscript } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { sharedEventTexts } from "../support/redaction-asserts.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file
const GHP = ["ghp_", "Zq9aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uVw"].join("")
const GM = marker("github-token")
/** Every 6-character piece of the token's body: any of them left in an output is a part of the secret. */
const pieces = (s: string) => {
  const out = new Set<string>()
  for (let i = 4; i + 6 <= GHP.length; i++) if (s.includes(GHP.slice(i, i + 6))) out.add(GHP.slice(i, i + 6))
  return [...out]
}
const run = (...texts: Array<string>) => redactRun(r.text, texts.map(r.text))

describe("redactRun: a run of one response's blocks read as one text", () => {
  it("a token cut in three (tester23b m_c): the marker ends the first block, the middle is left empty, the third goes on", () => {
    expect(run(`token ${GHP.slice(0, 15)}`, GHP.slice(15, 28), `${GHP.slice(28)} end C`)).toEqual([`token ${GM}`, "", " end C"])
  })

  it("every cut of the token into three and four blocks: no piece of it is left, the words around are kept", () => {
    for (let a = 1; a < GHP.length - 1; a += 2) {
      for (let b = a + 1; b < GHP.length; b += 3) {
        const three = run(`Here: ${GHP.slice(0, a)}`, GHP.slice(a, b), `${GHP.slice(b)} and more.`)
        expect(pieces(three.join("|")), `${a} ${b}`).toEqual([])
        expect(three.join(""), `${a} ${b}`).toBe(`Here: ${GM} and more.`)
        const c = Math.min(GHP.length - 1, b + 5)
        if (c <= b) continue
        const four = run(`Here: ${GHP.slice(0, a)}`, GHP.slice(a, b), GHP.slice(b, c), `${GHP.slice(c)} and more.`)
        expect(four.length).toBe(4)
        expect(pieces(four.join("|")), `${a} ${b} ${c}`).toEqual([])
        expect(four.join(""), `${a} ${b} ${c}`).toBe(`Here: ${GM} and more.`)
      }
    }
  })

  it("blocks with no secret across their joints are the same strings", () => {
    const texts = ["First.", "\n\nSecond", " and third", "word", "s fourth."]
    const out = redactRun(r.text, texts)
    texts.forEach((t, i) => expect(out[i]).toBe(t))
  })

  it("a short block with no white space does not join words of blocks that start new ones", () => {
    // a name/value cut in two after short blocks: the value is still read after its name, at its line's start
    const out = run("cd /srv/", "app", "DB_PASSWORD=", "Zq9SplitG1x!")
    expect(out.slice(0, 3)).toEqual(["cd /srv/", "app", "DB_PASSWORD="])
    expect(out[3]).toMatch(/^\[REDACTED:secret-[a-z]+\]$/)
  })
})

/** A session with the tester's shapes: a token cut in three, in four, across a thinking block's end and a text, and across a text and a thinking block. */
const session = (): Array<SessionEvent> => {
  const e = mk("claude-code", "s-23")
  const said = (text: string, rid: string, kind = "message") => e(kind, { role: "assistant", text, responseId: rid })
  return [
    e("message", { role: "user", text: "split tests" }),
    said(`token ${GHP.slice(0, 15)}`, "m_c"),
    said(GHP.slice(15, 28), "m_c"),
    said(`${GHP.slice(28)} end C`, "m_c"),
    said(`the key is ${GHP.slice(0, 20)}`, "m_d", "thinking"),
    said(`${GHP.slice(20)} end D`, "m_d"),
    said(`four: ${GHP.slice(0, 9)}`, "m_e"),
    said(GHP.slice(9, 17), "m_e"),
    said(GHP.slice(17, 30), "m_e"),
    said(`${GHP.slice(30)} end E`, "m_e"),
    said(`so the key is ${GHP.slice(0, 12)}`, "m_f"),
    said(GHP.slice(12, 33), "m_f", "thinking"),
    said(`${GHP.slice(33)} end F`, "m_f"),
    e("message", { role: "user", text: "thanks" })
  ]
}
const WANT = [
  "split tests",
  `token ${GM}`, "", " end C",
  `the key is ${GM}`, " end D",
  `four: ${GM}`, "", "", " end E",
  `so the key is ${GM}`, "", " end F",
  "thanks"
]

describe("the outputs: runs of three and more blocks, of text and thinking", () => {
  it("redactJoints: each run redacted as one text; the events outside runs are the same objects", () => {
    const events = session().map(r.event)
    const out = redactJoints(r.text, events)
    expect(out.map((e) => e.text)).toEqual(WANT)
    expect(out[0]).toBe(events[0])
    expect(out[13]).toBe(events[13])
  })

  it("another response's block is joined too (tester23c F5: as the Markdown reads a turn's adjacent blocks)", () => {
    const e = mk("claude-code", "s-x")
    const events = [
      e("message", { role: "assistant", text: `token ${GHP.slice(0, 15)}`, responseId: "a" }),
      e("message", { role: "assistant", text: GHP.slice(15, 28), responseId: "b" }),
      e("message", { role: "assistant", text: `${GHP.slice(28)} end`, responseId: "b" })
    ].map(r.event)
    expect(redactJoints(r.text, events).map((x) => x.text)).toEqual([`token ${GM}`, "", " end"])
  })

  it.effect("NDJSON export (one event at a time too), the replay and ATIF carry no piece of the token", () =>
    Effect.gen(function*() {
      const { atif, ...texts } = yield* sharedEventTexts(session)
      expect(texts).toEqual({ export: WANT, exportOneByOne: WANT, replay: WANT })
      expect(pieces(atif)).toEqual([])
    }).pipe(Effect.provide(Redaction.layer)))

  it("the Markdown transcript: a turn's adjacent text and thinking blocks read as one text", () => {
    const t = transcriptFromEvents({ sessionId: "s-23" }, session())
    expect(pieces(JSON.stringify(t))).not.toEqual([])
    const shared = redactTranscriptJoints(r.text, r.transcript(t))
    expect(pieces(JSON.stringify(shared))).toEqual([])
    const texts = shared.turns.flatMap((turn) => turn.blocks.flatMap((b) => (b.type === "tool_use" ? [] : [b.text])))
    expect(texts.join("|")).toContain(`the key is ${GM}| end D`)
  })

  it.effect("a window (show --around) is redacted as the whole session: its events the whole's slice, its Markdown without a piece", () =>
    Effect.gen(function*() {
      const events = session()
      const whole = Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events))))
      const build = (es: ReadonlyArray<SessionEvent>): Transcript => transcriptFromEvents({ sessionId: "s-23" }, es)
      const wholeMd = yield* shareableTranscript(build(events))
      const texts = new Set(wholeMd.turns.flatMap((t) => t.blocks.flatMap((b) => (b.type === "tool_use" ? [] : [b.text]))))
      for (let at = 0; at < events.length; at++) {
        for (const n of [0, 1, 2]) {
          const from = Math.max(0, at - n), to = Math.min(events.length, at + n + 1)
          const { after, before } = outsideRuns(events, from, to)
          const shown = yield* shareableWindow({ session: Stream.fromIterable(events), before, events: events.slice(from, to), after })
          expect(shown.events, `${at} ${n}`).toEqual(whole.slice(from, to))
          const md = yield* shareableWindowTranscript(build, shown)
          expect(pieces(JSON.stringify(md)), `${at} ${n}`).toEqual([])
          for (const t of md.turns) for (const b of t.blocks) if (b.type !== "tool_use") expect(texts.has(b.text), `${at} ${n}: ${b.text}`).toBe(true)
        }
      }
    }).pipe(Effect.provide(Redaction.layer)))

  it("outsideRuns: the next event on each side, and the rest of a run the window's edge goes on in", () => {
    const events = session()
    // a window of the middle block of m_e (index 7): the run's blocks before and after it (consecutive responses'
    // blocks are one run, tester23c F5: from m_c's first block to m_f's last)
    expect(outsideRuns(events, 7, 8)).toMatchObject({ before: events.slice(1, 7), after: events.slice(8, 13), cut: { before: false, after: false } })
    // a window whose edges start and end the run: one event on each side
    expect(outsideRuns(events, 1, 13)).toMatchObject({ before: [events[0]], after: [events[13]], cut: { before: false, after: false } })
    // a slice that does not hold all of the run: cut
    expect(outsideRuns(events.slice(7, 10), 1, 2)).toMatchObject({ before: [events[7]], after: [events[9]], cut: { before: true, after: true } })
  })
})
