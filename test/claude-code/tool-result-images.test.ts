/**
 * claude-code: an image inside a `tool_result` (a Read of a PNG, a screenshot
 * tool) leaves a trace on its `tool-result` event, as an image of a user
 * message does on its text event (tester17 F4; docs/providers.md "Claude Code: nothing
 * dropped without a trace"): native `images` lists each image's `mediaType`
 * (its bytes are not kept), next to the result's text. A result without
 * images has no `images`.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { collect, nat, tempDir, withAdapter } from "./helpers.js"

const SID = "7e7e7e7e-7e7e-4e7e-8e7e-7e7e7e7e7e7e"
const loc = (file: string) => ({ locatorClass: "claude-code-session-log" as const, path: file })
const base = { sessionId: SID, cwd: "/x", isSidechain: false }
const png = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
const jpeg = { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } }

const rows = [
  { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-09-01T00:00:00Z", message: { role: "user", content: "look at it" } },
  {
    ...base, type: "assistant", uuid: "a1", parentUuid: "u1", timestamp: "2026-09-01T00:00:01Z", requestId: "r1",
    message: { id: "m1", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x/a.png" } }, { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "/x/b.txt" } }] }
  },
  {
    ...base, type: "user", uuid: "u2", parentUuid: "a1", timestamp: "2026-09-01T00:00:02Z",
    message: { role: "user", content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "the screenshot" }, png, jpeg] },
      { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "plain text" }] }
    ] }
  },
  {
    ...base, type: "user", uuid: "u3", parentUuid: "u2", timestamp: "2026-09-01T00:00:03Z",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [png] }] }
  }
]

describe("claude-code: images inside a tool_result", () => {
  it.effect("each image's media type is on its tool-result event; a result without images has none", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-result-images-")
      const file = nodePath.join(root, "-x", `${SID}.jsonl`)
      fs.mkdirSync(nodePath.dirname(file), { recursive: true })
      fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""))
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      const results = events.filter((e) => e.kind === "tool-result")
      expect(results.map((e) => [e.toolCallId, e.text, nat(e).images])).toEqual([
        ["toolu_1", "the screenshot", [{ mediaType: "image/png" }, { mediaType: "image/jpeg" }]],
        ["toolu_2", "plain text", undefined],
        ["toolu_1", "", [{ mediaType: "image/png" }]]
      ])
      // the bytes are not kept anywhere in the events
      expect(JSON.stringify(events)).not.toContain("iVBORw0KGgo=")
    }))
})
