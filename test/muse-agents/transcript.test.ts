/**
 * `transcript muse-agents` and `inspect`: blocks with mapped names and
 * arguments, results paired by call_id, orphans dropped and counted,
 * compactions as metadata only (seed 000), messy lines.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { renderTranscriptMarkdown, renderTranscriptText } from "../../src/domain/render.js"
import { transcriptOfLines } from "../../src/domain/muse-agents/transcript.js"
import { collect, failureCode, FIXTURE_ROOT, jl, locatorOf, removeDir, tempDir, transcriptPath, withAdapter, writeTranscript } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

const transcriptOf = (agent: string, root = FIXTURE_ROOT) => withAdapter(root, (a) => a.transcript(locatorOf(agent, root)))

describe("transcript muse-agents", () => {
  it.effect("the cron-first session: turns, mapped tool names and arguments, paired results", () =>
    Effect.gen(function*() {
      const t = yield* transcriptOf("cron-first")
      expect(t).toEqual({
        sessionId: "sess-cron",
        title: "Please fix the flaky login test in the auth suite",
        model: "muse-large-2",
        startedAt: "2025-03-01T08:00:00.000Z",
        endedAt: "2025-03-01T08:02:08.000Z",
        turns: [
          // Each user message is a turn of its own (issue 11, item 13).
          { role: "user", timestamp: "2025-03-01T08:00:01.000Z", blocks: [{ type: "text", text: "Run the nightly dependency audit" }] },
          { role: "user", timestamp: "2025-03-01T08:00:03.000Z", blocks: [{ type: "text", text: "Feed update:\n3 new issues" }] },
          {
            role: "user",
            timestamp: "2025-03-01T08:01:00.000Z",
            blocks: [{ type: "text", text: "  Please fix the flaky login test\nin the auth suite  " }]
          },
          {
            role: "assistant",
            timestamp: "2025-03-01T08:01:01.000Z",
            blocks: [
              { type: "thinking", text: "The login test races the session store." },
              { type: "tool_use", id: "call-1", name: "Bash", input: { command: "npm test -- auth" }, result: "1 failing" },
              {
                type: "tool_use",
                id: "call-2",
                name: "Edit",
                input: { file_path: "test/login.test.ts", old_string: "await login()", new_string: "await login({ wait: true })" },
                result: "old_text not found",
                isError: true
              },
              {
                type: "tool_use",
                id: "call-3",
                name: "Write",
                input: { file_path: "test/login.test.ts", content: "// fixed\n" },
                result: "ok"
              },
              { type: "tool_use", id: "call-4", name: "memory_search", input: { query: "login flake" }, result: "{\"hits\":0}" }
            ]
          },
          {
            role: "user",
            timestamp: "2025-03-01T08:02:01.000Z",
            blocks: [{ type: "text", text: "[Subagent Context] You are running as a subagent (depth 1/1).\n\n[Subagent Task]: check CI" }]
          },
          { role: "user", timestamp: "2025-03-01T08:02:02.000Z", blocks: [{ type: "text", text: "Now update the changelog" }] },
          {
            role: "assistant",
            timestamp: "2025-03-01T08:02:03.000Z",
            blocks: [
              { type: "text", text: "Updating the changelog." },
              { type: "text", text: "Done: the test waits for login." },
              { type: "tool_use", id: "call-5", name: "Read", input: { file_path: "CHANGELOG.md" } },
              { type: "tool_use", id: "call-6", name: "subagent.spawn", input: { task: "check CI" } }
            ]
          }
        ],
        compactions: [{ id: "cmp-1", trigger: "auto", timestamp: "2025-03-01T08:02:00.000Z" }],
        // The orphan output is a well-formed line: a diagnostic, not a parse warning (issue 11, item 12).
        parseWarnings: [],
        diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 23 }]
      })
      // A call without output has neither result nor isError.
      const read = t.turns[6].blocks[2]
      expect("result" in read || "isError" in read).toBe(false)
    }))

  it.effect("the messy file: every good line kept, each bad line counted once", () =>
    Effect.gen(function*() {
      const t = yield* transcriptOf("messy")
      expect(t.sessionId).toBe("sess-messy")
      expect(t.title).toBe("first line second line")
      expect(t.model).toBeNull()
      expect(t.startedAt).toBe("2025-03-02T08:00:00.000Z")
      expect(t.endedAt).toBe("2025-03-02T08:00:08.000Z")
      expect(t.turns).toEqual([
        { role: "user", timestamp: "2025-03-02T08:00:01.000Z", blocks: [{ type: "text", text: "first line\u2028second line" }] },
        {
          role: "assistant",
          timestamp: "2025-03-02T08:00:04.000Z",
          blocks: [
            { type: "text", text: "broken \ud83d emoji" },
            { type: "tool_use", id: "m1", name: "Bash", input: { command: "echo hi" }, result: "hi" }
          ]
        },
        { role: "user", timestamp: "2025-03-02T08:00:08.000Z", blocks: [{ type: "text", text: "para one\u2029para two" }] }
      ])
      expect(t.parseWarnings).toEqual([
        { kind: "non-object", count: 2, firstLine: 3 },
        { kind: "malformed-json", count: 1, firstLine: 5 },
        { kind: "invalid-record", count: 1, firstLine: 8 },
        { kind: "duplicate-header", count: 1, firstLine: 9 },
        { kind: "truncated-line", count: 1, firstLine: 13 }
      ])
      // A non-object sessions.json is tolerated (seed 000): a diagnostic, not a parse warning (issue 11, item 12).
      expect(t.diagnostics).toEqual([{ kind: "sessions-index-not-object", count: 1, firstLine: null }])
      // The JSON output stays valid JSON (a lone surrogate is escaped, not emitted raw).
      expect(JSON.stringify(t)).toContain("broken \\ud83d emoji")
    }))

  it.effect("a file over maxDocumentBytes is RESOURCE_LIMIT_EXCEEDED (a transcript is held whole); stream still reads it", () =>
    Effect.gen(function*() {
      const size = fs.statSync(transcriptPath("cron-first")).size
      const code = yield* failureCode(withAdapter(FIXTURE_ROOT, (a) => a.transcript(locatorOf("cron-first")), { maxDocumentBytes: size - 1 }))
      expect(code).toBe("RESOURCE_LIMIT_EXCEEDED")
      const t = yield* withAdapter(FIXTURE_ROOT, (a) => a.transcript(locatorOf("cron-first")), { maxDocumentBytes: size })
      expect(t.sessionId).toBe("sess-cron")
      const events = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf("cron-first"))), { maxDocumentBytes: size - 1 })
      expect(events.length).toBe(20)
    }))

  it.effect("a header-less file is not a session: MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      expect(yield* failureCode(transcriptOf("headless"))).toBe("MALFORMED_SOURCE")
    }))

  it.effect("a file outside the agents root is refused", () =>
    Effect.gen(function*() {
      const other = nodePath.join(tempDir(), "agents")
      temps.push(nodePath.dirname(other))
      fs.mkdirSync(other)
      expect(yield* failureCode(withAdapter(other, (a) => a.transcript(locatorOf("cron-first"))))).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
    }))

  it.effect("another locator class is unsupported", () =>
    Effect.gen(function*() {
      expect(yield* failureCode(
        withAdapter(FIXTURE_ROOT, (a) => a.transcript({ locatorClass: "manual-export", path: transcriptPath("cron-first") }))
      )).toBe("UNSUPPORTED_OPERATION")
    }))

  it("pairs an output written before its call, and a repeated call id in order", () => {
    const lines = [
      jl({ type: "session_header", session_id: "s" }),
      jl({ type: "item", item: { type: "function_call_output", call_id: "a", output: "early" } }),
      jl({ type: "item", item: { type: "function_call", call_id: "a", name: "exec", arguments: "{}" } }),
      jl({ type: "item", item: { type: "function_call", call_id: "b", name: "exec", arguments: "{}" } }),
      jl({ type: "item", item: { type: "function_call", call_id: "b", name: "exec", arguments: "{}" } }),
      jl({ type: "item", item: { type: "function_call_output", call_id: "b", output: "1" } }),
      jl({ type: "item", item: { type: "function_call_output", call_id: "b", output: "2", success: false } }),
      jl({ type: "item", item: { type: "function_call_output", call_id: "b", output: "3" } })
    ].map((l) => l.trimEnd())
    const { transcript } = transcriptOfLines(lines)
    expect(transcript!.turns).toEqual([{
      role: "assistant",
      timestamp: null,
      blocks: [
        { type: "tool_use", id: "a", name: "Bash", input: {}, result: "early" },
        { type: "tool_use", id: "b", name: "Bash", input: {}, result: "1" },
        { type: "tool_use", id: "b", name: "Bash", input: {}, result: "2", isError: true }
      ]
    }])
    expect(transcript!.parseWarnings).toEqual([])
    expect(transcript!.diagnostics).toEqual([{ kind: "orphan-tool-output", count: 1, firstLine: 8 }])
  })
})

describe("the compaction summary is never replayed", () => {
  const SENTINEL = "COMPACTION-SUMMARY-SENTINEL"

  it("the fixture does hold it", () => {
    expect(fs.readFileSync(transcriptPath("cron-first"), "utf8")).toContain(SENTINEL)
  })

  it.effect("absent from discover, inspect, transcript (json, markdown, text) and stream", () =>
    withAdapter(FIXTURE_ROOT, (a) =>
      Effect.gen(function*() {
        const loc = locatorOf("cron-first")
        const outputs = [
          JSON.stringify(yield* a.discover({})),
          JSON.stringify(yield* a.inspect(loc)),
          JSON.stringify(yield* a.transcript(loc)),
          renderTranscriptMarkdown(yield* a.transcript(loc)),
          renderTranscriptText(yield* a.transcript(loc))
        ]
        const events = yield* collect(a.stream(loc))
        outputs.push(...events.map((e) => JSON.stringify(e)))
        for (const o of outputs) expect(o).not.toContain(SENTINEL)
        const summary = events.filter((e) => e.kind === "summary")
        expect(summary).toHaveLength(1)
        expect(summary[0]).toMatchObject({
          role: "system",
          text: "context compaction (auto)",
          sequence: 15,
          extensions: { "native.muse-agents": { recordType: "compaction_checkpoint", compactionId: "cmp-1", trigger: "auto" } }
        })
      })
    ))
})

describe("inspect muse-agents", () => {
  it.effect("counts events, warnings and the session; complete when the last line ends in a newline", () =>
    withAdapter(FIXTURE_ROOT, (a) =>
      Effect.gen(function*() {
        const i = yield* a.inspect(locatorOf("cron-first"))
        expect(i).toMatchObject({
          provider: "muse-agents",
          locatorClass: "muse-agent-transcript",
          status: "complete",
          // 24 lines minus the header (1), the developer message (3), telemetry (19) and the image item (20)
          eventCount: 20,
          // the header (08:00:00) is not an event; line 2 is the first
          firstEventAt: "2025-03-01T08:00:01.000Z",
          lastEventAt: "2025-03-01T08:02:08.000Z",
          sessions: [{
            sessionId: "sess-cron",
            agentId: "cron-first",
            promptCount: 5,
            toolCallCount: 6,
            editCount: 2,
            compactionCount: 1,
            orphanOutputCount: 1
          }]
        })
        const m = yield* a.inspect(locatorOf("messy"))
        expect(m.status).toBe("provisional")
        // lines 2, 7, 10, 11, 12
        expect(m.eventCount).toBe(5)
        expect([m.firstEventAt, m.lastEventAt]).toEqual(["2025-03-02T08:00:01.000Z", "2025-03-02T08:00:08.000Z"])
        expect(m.provenance).toMatchObject({ lineCount: 13, parseWarningCount: 6, headerLine: 1 })
        expect(m.diagnostics.map((d) => d.code)).toEqual([
          "PARSE_WARNING",
          "PARSE_WARNING",
          "PARSE_WARNING",
          "PARSE_WARNING",
          "PARSE_WARNING",
          "UNTERMINATED_LAST_LINE"
        ])
      })
    ))

  it.effect("an oversized line is skipped and counted, the rest kept", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "agents")
      temps.push(nodePath.dirname(root))
      writeTranscript(root, "big", jl({ type: "session_header", session_id: "s" }) +
        jl({ type: "item", item: { type: "message", role: "user", text: "x".repeat(5000) } }) +
        jl({ type: "item", item: { type: "message", role: "user", text: "small" } }))
      const t = yield* withAdapter(root, (a) => a.transcript(locatorOf("big", root)), { maxRecordBytes: 1024 })
      expect(t.turns).toEqual([{ role: "user", timestamp: null, blocks: [{ type: "text", text: "small" }] }])
      expect(t.parseWarnings).toEqual([{ kind: "oversized-line", count: 1, firstLine: 2 }])
    }))
})
