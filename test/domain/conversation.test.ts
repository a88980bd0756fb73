/**
 * transcriptFromEvents (issue 6): turns, pairing, orphans, compactions,
 * non-conversation kinds skipped. Events are built by hand.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { compactionOf, transcriptFromEvents } from "../../src/domain/conversation.js"
import { Transcript } from "../../src/domain/model.js"
import { mk } from "../support/events.js"

const ev = mk("muse-agents", "s1")
const user = (text: string, at: string | null = null) => ev("message", { role: "user", text, occurredAt: at })
const assistant = (text: string, at: string | null = null) => ev("message", { role: "assistant", text, occurredAt: at })
const thinking = (text: string) => ev("thinking", { role: "assistant", text })
const call = (id: string, name: string, input: unknown) =>
  ev("tool-call", { role: "assistant", toolName: name, toolCallId: id, text: JSON.stringify(input), toolInput: input })
const result = (id: string, text: string, isError = false) =>
  ev("tool-result", { toolCallId: id, text, isError })
const summary = (compaction: { id: string; trigger: string | null }, native: Record<string, unknown>, at: string | null = null) =>
  ev("summary", { role: "system", text: "context compaction (auto)", occurredAt: at, compaction }, native)

const decodeTranscript = Schema.decodeUnknownSync(Transcript, { onExcessProperty: "error" })

describe("transcriptFromEvents", () => {
  it("groups consecutive assistant blocks into turns, each user message a turn of its own; thinking and tool_use belong to assistant turns", () => {
    const events = [
      user("fix the test", "2026-10-01T10:00:00Z"),
      user("please"),
      thinking("look at the file"),
      assistant("Reading it.", "2026-10-01T10:00:05Z"),
      call("c1", "Read", { file_path: "a.ts" }),
      result("c1", "contents"),
      assistant("Done."),
      user("thanks", "2026-10-01T10:01:00Z")
    ]
    const t = transcriptFromEvents({ sessionId: "s1", title: "A title", model: null }, events)
    decodeTranscript(t)
    // Two user messages in a row are two user turns (issue 11, item 13).
    expect(t.turns.map((x) => [x.role, x.blocks.map((b) => b.type)])).toEqual([
      ["user", ["text"]],
      ["user", ["text"]],
      ["assistant", ["thinking", "text", "tool_use", "text"]],
      ["user", ["text"]]
    ])
    expect(t.turns[0].timestamp).toBe("2026-10-01T10:00:00Z")
    expect(t.turns[1].timestamp).toBeNull()
    // the assistant turn starts with the thinking block, which has no time
    expect(t.turns[2].timestamp).toBeNull()
    expect(t.turns[3].timestamp).toBe("2026-10-01T10:01:00Z")
    expect(t.startedAt).toBe("2026-10-01T10:00:00Z")
    expect(t.endedAt).toBe("2026-10-01T10:01:00Z")
    expect(t.title).toBe("A title")
    expect(t.sessionId).toBe("s1")
  })

  it("pairs results onto their call by id, with the input from the native extension and isError", () => {
    const events = [
      user("go"),
      call("a", "Bash", { command: "ls" }),
      call("b", "Edit", { file_path: "x", old_string: "1", new_string: "2" }),
      result("b", "edited"),
      result("a", "boom", true)
    ]
    const t = transcriptFromEvents({ sessionId: "s1" }, events)
    expect(t.turns[1].blocks).toEqual([
      { type: "tool_use", id: "a", name: "Bash", input: { command: "ls" }, result: "boom", isError: true },
      { type: "tool_use", id: "b", name: "Edit", input: { file_path: "x", old_string: "1", new_string: "2" }, result: "edited" }
    ])
    expect(t.parseWarnings).toEqual([])
  })

  it("appends a second result of the same call on a new line and keeps any error", () => {
    const t = transcriptFromEvents({ sessionId: "s" }, [call("r", "Bash", { command: "x" }), result("r", "part 1", true), result("r", "part 2")])
    expect(t.turns[0].blocks[0]).toEqual({ type: "tool_use", id: "r", name: "Bash", input: { command: "x" }, result: "part 1\npart 2", isError: true })
  })

  it("reads the typed fields only, never a provider's provenance (contract 1.1.0)", () => {
    // Provenance that says otherwise is not read: the typed toolInput / isError / compaction are the contract.
    const call = ev("tool-call", { toolName: "Write", toolCallId: "w", toolInput: { file_path: "f", content: "c" } }, {
      input: { file_path: "WRONG" }
    })
    const res = ev("tool-result", { toolCallId: "w", text: "ok", isError: false }, { isError: true })
    const cmp = ev("summary", { compaction: { id: "typed", trigger: "manual" } }, { compactionId: "native", trigger: "auto" })
    const t = transcriptFromEvents({ sessionId: "s" }, [call, res, cmp])
    expect(t.turns[0].blocks[0]).toEqual({ type: "tool_use", id: "w", name: "Write", input: { file_path: "f", content: "c" }, result: "ok" })
    expect(t.compactions).toEqual([{ id: "typed", trigger: "manual", timestamp: null }])
    // A call without a typed input has the null input, whatever its provenance holds.
    const bare = ev("tool-call", { toolName: "Read", toolCallId: "r" }, { input: { file_path: "x" } })
    expect(transcriptFromEvents({ sessionId: "s" }, [bare]).turns[0].blocks[0]).toMatchObject({ input: null })
  })

  it("starts at the session's own start when it is earlier than its first event (a header's time)", () => {
    const events = [ev("message", { role: "user", text: "hi", occurredAt: "2025-03-01T08:00:01.000Z" })]
    expect(transcriptFromEvents({ sessionId: "s1" }, events).startedAt).toBe("2025-03-01T08:00:01.000Z")
    expect(transcriptFromEvents({ sessionId: "s1", startedAt: "2025-03-01T08:00:00.000Z", model: "m-1" }, events))
      .toMatchObject({ startedAt: "2025-03-01T08:00:00.000Z", endedAt: "2025-03-01T08:00:01.000Z", model: "m-1" })
  })

  it("drops results without an earlier call of their id and counts them", () => {
    const events = [
      result("early", "before its call"),
      call("early", "Read", { file_path: "a" }),
      result("nope", "no such call"),
      ev("tool-result", { toolCallId: null, text: "no id" })
    ]
    const t = transcriptFromEvents({ sessionId: "s1" }, events)
    // Named as Muse agents transcripts name it; firstLine is the first orphan's place in its source.
    // A diagnostic, not a parse warning (issue 11, item 12).
    expect(t.parseWarnings).toEqual([])
    expect(t.diagnostics).toEqual([{ kind: "orphan-tool-output", count: 3, firstLine: events[0].rawReference.sequence }])
    expect(t.turns).toEqual([
      { role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "early", name: "Read", input: { file_path: "a" } }] }
    ])
  })

  it("records compactions as metadata only: never their summary text, and they do not cut a turn", () => {
    const events = [
      assistant("one"),
      summary({ id: "cmp-1", trigger: "auto" }, { summary: "SECRET SUMMARY" }, "2026-10-01T11:00:00Z"),
      assistant("two"),
      // no typed compaction: the event id and null
      ev("summary", { role: "system", text: "context compacted", extensions: { "native.agentmux": { line: 3 } } })
    ]
    const t = transcriptFromEvents({ sessionId: "s1" }, events)
    expect(t.compactions).toEqual([
      { id: "cmp-1", trigger: "auto", timestamp: "2026-10-01T11:00:00Z" },
      { id: events[3].eventId, trigger: null, timestamp: null }
    ])
    expect(t.turns.map((x) => x.blocks)).toEqual([[{ type: "text", text: "one" }, { type: "text", text: "two" }]])
    expect(JSON.stringify(t)).not.toContain("SECRET SUMMARY")
    expect(JSON.stringify(t)).not.toContain("context compact")
    expect(compactionOf(events[1]).id).toBe("cmp-1")
  })

  it("skips events of non-conversation kinds without breaking a turn", () => {
    const events = [
      assistant("a"),
      ev("proposed", { text: "tool:Bash (allow)", toolName: "Bash", occurredAt: "2026-10-01T12:00:00Z" }),
      ev("side_effect_intent", { text: "write file" }),
      assistant("b")
    ]
    const t = transcriptFromEvents({ sessionId: "s1" }, events)
    expect(t.turns).toEqual([
      { role: "assistant", timestamp: null, blocks: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }
    ])
    // runtime facts still date the session
    expect(t.startedAt).toBe("2026-10-01T12:00:00Z")
  })

  it("takes the model from the session when given, else from the first event that names one", () => {
    const events = [user("hi"), ev("message", { role: "assistant", text: "yo", model: "m-1" }), ev("message", { role: "assistant", text: "x", model: "m-2" })]
    expect(transcriptFromEvents({ sessionId: "s" }, events).model).toBe("m-1")
    expect(transcriptFromEvents({ sessionId: "s", model: "given" }, events).model).toBe("given")
    expect(transcriptFromEvents({ sessionId: "s", model: null }, [user("x")]).model).toBeNull()
  })

  it("an empty session is an empty transcript", () => {
    expect(transcriptFromEvents({ sessionId: "s" }, [])).toEqual({
      sessionId: "s",
      title: null,
      model: null,
      startedAt: null,
      endedAt: null,
      turns: [],
      compactions: [],
      parseWarnings: [],
      diagnostics: []
    })
  })
})
