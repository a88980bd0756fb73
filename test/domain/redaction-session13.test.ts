/**
 * tester13 F4: a secret a tool call's input decides on (a value under a secret-named key, a `["X-Api-Key", "…"]`
 * pair) restated by a later event of its session (the tool's result, the next assistant message) is redacted in
 * every redacted output of events (export's stream, ATIF, the replay, MCP answers: `sessionRedactor`), as the
 * Markdown transcript does across its turns.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableEvents } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { sessionEvent } from "../support/redaction-asserts.js"

const r = defaultRedaction
const F = marker("secret-field")
const P = marker("secret-pair")
// built at run time so that no secret scanner flags this file
const TOKEN = ["Qw3rty", "T0ken", "ZZ"].join("")
const HEADER = ["Hdr9", "Secret", "Val"].join("")

const ev = sessionEvent

const session = (): ReadonlyArray<SessionEvent> => {
  const input = { command: "./deploy.sh", env: { API_TOKEN: TOKEN }, headers: [["X-Api-Key", HEADER]] }
  return [
    ev(1, { kind: "message", role: "user", text: "deploy it" }),
    ev(2, { kind: "tool-call", text: JSON.stringify(input), toolName: "Bash", toolInput: input, toolCallId: "toolu_1" } as Partial<SessionEvent>),
    ev(3, { kind: "tool-result", role: "user", text: `Authenticated using ${TOKEN} and ${HEADER}`, toolCallId: "toolu_1" } as Partial<SessionEvent>),
    ev(4, { kind: "message", text: `Deployed with ${TOKEN}. ${TOKEN}s and x${HEADER} stay.` })
  ]
}

describe("redaction 13 (F4): a tool input's secret restated by a later event of its session", () => {
  it("the events of a session, one at a time (sessionRedactor): gone from the result and the next message", () => {
    const sr = sessionRedactor(r)
    const out = session().map(sr.event)
    expect(out[2].text).toBe(`Authenticated using ${F} and ${P}`)
    // a word of its own only: as part of a longer word it stays
    expect(out[3].text).toBe(`Deployed with ${F}. ${TOKEN}s and x${HEADER} stay.`)
    expect(out[0].text).toBe("deploy it")
    // the event alone (no session) keeps what only structure says is a secret: the reason for the session's state
    expect(r.event(session()[2]).text).toContain(TOKEN)
  })

  it("the export's stream of events (shareableEvents)", () =>
    Effect.gen(function*() {
      const out = Chunk.toArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(session()))))
      expect(JSON.stringify(out.slice(0, 3))).not.toContain(TOKEN)
      expect(JSON.stringify(out.slice(0, 3))).not.toContain(HEADER)
      expect(out[3].text).toBe(`Deployed with ${F}. ${TOKEN}s and x${HEADER} stay.`)
    }).pipe(Effect.provide(Redaction.layer), Effect.runPromise))

  it("short values and values that are no secret of their key are not hunted", () => {
    const known = new Map<string, string>()
    r.eventNoting(ev(1, { kind: "tool-call", toolInput: { password: "abc12", api_key: "name", sort_key: "Zz9longvalue1", env: { DB_PASSWORD: "Pg9secretpw" }, argv: ["--token", "Tk9arg123"] } } as Partial<SessionEvent>), known)
    expect([...known.keys()].sort()).toEqual(["Pg9secretpw", "Tk9arg123"])
    const sr = sessionRedactor(r)
    sr.see(ev(1, { kind: "tool-call", toolInput: { password: "abc12" } } as Partial<SessionEvent>))
    expect(sr.event(ev(2, { text: "abc12 is the build" })).text).toBe("abc12 is the build")
  })

  it("the Markdown transcript: a secret of one turn's tool input is gone from a later turn", () => {
    const t = {
      sessionId: "s1",
      turns: [
        { role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "b1", name: "Bash", input: { env: { API_TOKEN: TOKEN } } }] },
        { role: "user", timestamp: null, blocks: [{ type: "text", id: "b2", text: `it said ${TOKEN}` }] }
      ],
      compactions: []
    } as unknown as Transcript
    const out = JSON.stringify(r.transcript(t))
    expect(out).not.toContain(TOKEN)
    expect(out).toContain("it said ")
  })
})
