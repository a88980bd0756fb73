/**
 * A vendor token inside a response's id (`message.id`, `requestId`) is redacted in the event's `responseId` of a
 * redacted `export --format ndjson` (tester27a F2): docs/redaction.md, an id copied from the source goes through the
 * built-in rules when id-shaped ("a vendor token such as `ghp_…` is redacted"), as `toolCallId` does, and alike
 * everywhere, so the copies of one response (streamed lines of one message) still share one `responseId`.
 */
import { describe, expect, it } from "@effect/vitest"
import { importedClaudeIndex } from "./support/claude-import.js"

const GH = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
const SID = "99999999-1111-4222-8333-444444444427"

const line = (uuid: string, parent: string | null, at: string, extra: Record<string, unknown>) =>
  ({ parentUuid: parent, isSidechain: false, userType: "external", cwd: "/srv", sessionId: SID, version: "2.0.76", uuid, timestamp: at, ...extra })

const assistant = (uuid: string, parent: string, at: string, requestId: string, id: string, text: string) =>
  line(uuid, parent, at, {
    type: "assistant", requestId,
    message: { model: "claude-sonnet-4-5-20250929", id, type: "message", role: "assistant", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } }
  })

describe("export --format ndjson (redacted): a vendor token in a responseId (tester27a F2)", () => {
  it("is redacted by the built-in rules, alike in each copy of the response; a plain id stays", () => {
    const lines = [
      line("u1", null, "2025-10-02T10:00:00Z", { type: "user", message: { role: "user", content: "hello" } }),
      // one response streamed as two lines (the same message.id and requestId)
      assistant("a1", "u1", "2025-10-02T10:00:01Z", `req-${GH}`, `msg-${GH}`, "part one"),
      assistant("a2", "a1", "2025-10-02T10:00:02Z", `req-${GH}`, `msg-${GH}`, "part two"),
      assistant("a3", "a2", "2025-10-02T10:00:03Z", GH, GH, "bare token ids"),
      assistant("a4", "a3", "2025-10-02T10:00:04Z", "req_011CPlain", "msg_01Plain", "plain ids")
    ]
    const { index, run } = importedClaudeIndex("si-respid-", { [SID]: lines })
    const out = run(["export", SID, "--index", index, "--format", "ndjson"])
    expect(out).not.toContain("Z9y8X7w6V5u4")
    const ids = out.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.responseId != null).map((e) => e.responseId)
    const M = "[REDACTED:github-token]"
    expect(ids).toEqual([`msg-${M}:req-${M}`, `msg-${M}:req-${M}`, `${M}:${M}`, "msg_01Plain:req_011CPlain"])
  })
})
