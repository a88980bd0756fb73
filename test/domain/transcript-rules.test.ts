/**
 * The transcript rules every conversation provider shares (issue 11, items
 * 11-13), checked on `transcriptFromEvents` (what `show` builds from the
 * index) and on AgentMux's own mapping: a session ends at its latest time and
 * starts at its earliest, compactions included; a tool result no call claims
 * is a diagnostic, not a parse warning; each user message is a turn of its own.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { mapSession, type SessionLine } from "../../src/domain/agentmux/transcript.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { Transcript } from "../../src/domain/model.js"
import { compareTimestamps } from "../../src/domain/timestamps.js"
import { mk } from "../support/events.js"

const decodeTranscript = Schema.decodeUnknownSync(Transcript, { onExcessProperty: "error" })

const amLines = (lines: ReadonlyArray<{ value: unknown; ms: number | null }>): Array<SessionLine> => {
  let offset = 0
  return lines.map(({ ms, value }) => {
    const bytes = Buffer.from(JSON.stringify(value), "utf8")
    const line = { zoneId: "agent:u1:current", offset, bytes, receivedMs: ms }
    offset += bytes.length + 1
    return line
  })
}
const amUser = (content: unknown) => ({ type: "user", message: { role: "user", content }, session_id: "S" })
const amAssistant = (content: unknown) => ({ type: "assistant", message: { id: "m", role: "assistant", content }, session_id: "S" })
const T = Date.parse("2026-09-18T10:00:00Z")

describe("item 11: start is the earliest time, end the latest, compactions included", () => {
  it("transcriptFromEvents: a compaction after the last message ends the session; out-of-order times do not end it early", () => {
    const ev = mk("muse-agents", "s1")
    const events = [
      ev("message", { role: "user", text: "a", occurredAt: "2026-09-18T10:05:00.000Z" }),
      ev("summary", { role: "system", text: "context compaction", occurredAt: "2026-09-18T10:09:00.000Z" }, { compactionId: "1" }),
      ev("message", { role: "assistant", text: "b", occurredAt: "2026-09-18T10:01:00.000Z" }),
      ev("message", { role: "assistant", text: "c", occurredAt: "2026-09-18T10:09:00.000001Z" }),
      ev("message", { role: "assistant", text: "d", occurredAt: "2026-09-18T10:09:00.000Z" })
    ]
    const t = transcriptFromEvents({ sessionId: "s1", startedAt: "2026-09-18T10:02:00.000Z" }, events)
    expect(t.startedAt).toBe("2026-09-18T10:01:00.000Z")
    expect(t.endedAt).toBe("2026-09-18T10:09:00.000001Z")
  })

  it("property (transcriptFromEvents): endedAt is never before startedAt", () => {
    const ev = mk("muse-agents", "s1")
    // Near instants with 3, 4 and 6 fraction digits (`….000001Z` is later than `….000Z`), and far ones.
    const at = fc.oneof(
      fc.constant(null),
      fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000001Z", "2026-01-01T00:00:00.0005Z", "2026-01-01T00:00:00.001Z"),
      fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString())
    )
    fc.assert(
      fc.property(at, fc.array(fc.tuple(fc.constantFrom("message", "summary", "tool-call"), at), { maxLength: 10 }), (start, es) => {
        const t = transcriptFromEvents(
          { sessionId: "s1", startedAt: start },
          es.map(([kind, occurredAt]) => ev(kind, { role: "user", text: "x", occurredAt }))
        )
        if (t.startedAt !== null && t.endedAt !== null) expect(compareTimestamps(t.startedAt, t.endedAt)).toBeLessThanOrEqual(0)
      }),
      { numRuns: 200 }
    )
  })

  it("AgentMux: receive times slightly out of order (seed 002) do not end the session before a later line", () => {
    const { transcript } = mapSession(
      amLines([
        { value: amUser("hi"), ms: T + 5_000 },
        { value: amAssistant([{ type: "text", text: "yo" }]), ms: T + 9_000 },
        { value: amAssistant([{ type: "text", text: "late" }]), ms: T + 8_000 }
      ]),
      { sourceId: "sha256:x", sessionId: "S" }
    )
    expect(transcript.startedAt).toBe("2026-09-18T10:00:05.000Z")
    expect(transcript.endedAt).toBe("2026-09-18T10:00:09.000Z")
  })
})

describe("item 12: a tool result that no call claims is a diagnostic, not a parse warning (every provider)", () => {
  it("transcriptFromEvents", () => {
    const ev = mk("muse-agents", "s1")
    const events = [
      ev("tool-result", { toolCallId: "ghost", text: "x" }),
      ev("tool-result", { toolCallId: "ghost-2", text: "y" })
    ]
    const t = transcriptFromEvents({ sessionId: "s1" }, events)
    decodeTranscript(t)
    expect(t.parseWarnings).toEqual([])
    expect(t.diagnostics).toEqual([{ kind: "orphan-tool-output", count: 2, firstLine: events[0].rawReference.sequence }])
  })

  it("AgentMux: an unpaired tool_result is the same diagnostic; an unreadable line stays a parse warning", () => {
    const lines = amLines([
      { value: amUser([{ type: "tool_result", tool_use_id: "nope", content: "x" }]), ms: T },
      { value: amUser("hi"), ms: T }
    ])
    const { transcript } = mapSession([...lines, { zoneId: "z", offset: 999, bytes: Buffer.from("{not json"), receivedMs: T }], {
      sourceId: "sha256:x",
      sessionId: "S"
    })
    decodeTranscript(transcript)
    expect(transcript.parseWarnings).toEqual([{ kind: "unreadable-line", count: 1, firstLine: 3 }])
    expect(transcript.diagnostics).toEqual([{ kind: "orphan-tool-output", count: 1, firstLine: 1 }])
  })
})

describe("item 13: each user message is a user turn of its own; blocks of one message stay together", () => {
  it("transcriptFromEvents: two user message events of two records are two turns", () => {
    const ev = mk("muse-agents", "s1")
    const t = transcriptFromEvents({ sessionId: "s1" }, [
      ev("message", { role: "user", text: "Refactor the auth module" }),
      ev("message", { role: "user", text: "Go ahead" }),
      ev("message", { role: "assistant", text: "On it." }),
      ev("thinking", { role: "assistant", text: "hmm" })
    ])
    expect(t.turns.map((x) => [x.role, x.blocks.length])).toEqual([["user", 1], ["user", 1], ["assistant", 2]])
  })

  it("transcriptFromEvents: user blocks of one native record (same rawReference.sequence) stay one turn", () => {
    const ev = mk("agentmux", "S")
    const a = ev("message", { role: "user", text: "part 1" })
    const b = { ...ev("message", { role: "user", text: "part 2" }), rawReference: { ...a.rawReference } }
    const c = ev("message", { role: "user", text: "next message" })
    const t = transcriptFromEvents({ sessionId: "S" }, [a, b, c])
    expect(t.turns.map((x) => x.blocks.map((bl) => (bl.type === "text" ? bl.text : "")))).toEqual([["part 1", "part 2"], ["next message"]])
  })

  it("AgentMux: two consecutive user lines are two turns; one line's text blocks are one turn; show agrees", () => {
    const { events, transcript } = mapSession(
      amLines([
        { value: amUser("first"), ms: T },
        { value: amUser([{ type: "text", text: "second a" }, { type: "text", text: "second b" }]), ms: T + 1_000 },
        { value: amAssistant([{ type: "text", text: "reply" }, { type: "thinking", thinking: "t" }]), ms: T + 2_000 },
        { value: amAssistant([{ type: "text", text: "more" }]), ms: T + 3_000 }
      ]),
      { sourceId: "sha256:x", sessionId: "S" }
    )
    const shape = (x: typeof transcript) => x.turns.map((t) => [t.role, t.blocks.length])
    expect(shape(transcript)).toEqual([["user", 1], ["user", 2], ["assistant", 3]])
    expect(shape(transcriptFromEvents({ sessionId: "S" }, events.map((e) => e.event)))).toEqual(shape(transcript))
  })
})
