/**
 * The `session://` resource's frame (tester39 F6): docs/mcp.md gives a session's title with its control characters
 * written visibly (tester33c F6), and docs/cli-output.md says the resources are made by the same rules as `show
 * --format markdown`, which shows a session id's controls as escapes. The resource wrote the session id line and each
 * entry's tool name raw: a Muse agents session id holding ESC, BEL and NEL, a tool named with U+202E and ESC reached
 * the client as the characters (the JSON escapes are undone by its parser). Now every value a source wrote in the
 * document's frame (the metadata lines, each entry's heading) shows its controls as the CLI does (`\x1b`, `\x07`,
 * `\x85`, `\u202e`); a message's text stays as it is (docs/mcp.md).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { connect } from "./helpers.js"

const SESSION_ID = "esc-\u001b[31mRED\u001b[0m-\u0007-\u0085-x"
const TOOL = "tool-\u202e-\u001b[2J"
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe("the session:// resource shows a session id's and a tool name's controls as escapes (tester39 F6)", () => {
  it.each([["redaction on", []], ["--no-redact", ["--no-redact"]]] as const)("%s", async (_, extra) => {
    const dir = tempDir("si-resource-frame39-")
    const sessions = path.join(dir, "agents", "uni", "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    const lines = [
      { type: "session_header", session_id: SESSION_ID, agent_id: "uni", created_at: "2025-04-01T10:00:00Z" },
      { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "list the files" }, created_at: "2025-04-01T10:00:01Z" },
      { type: "item", seq: 2, source: "runtime", item: { type: "function_call", call_id: "c1", name: TOOL, arguments: "{\"command\":\"ls\"}" }, created_at: "2025-04-01T10:00:02Z" },
      { type: "item", seq: 3, source: "runtime", item: { type: "message", role: "assistant", text: "done \u0007 here" }, created_at: "2025-04-01T10:00:03Z" }
    ]
    fs.writeFileSync(path.join(sessions, "uni.jsonl"), lines.map((l) => JSON.stringify(l) + "\n").join(""))
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const index = path.join(dir, "i.db")
    const r = cli(["import", "--index", index, "--agents-root", path.join(dir, "agents"), "--claude-root", path.join(dir, "none")], { env })
    expect([0, 8], r.stderr).toContain(r.code)
    const server = await connect(["--index", index, ...extra], env)
    try {
      const listed = await server.client.listResources()
      expect(listed.resources).toHaveLength(1)
      const text = ((await server.client.readResource({ uri: listed.resources[0].uri })).contents[0] as { text: string }).text
      const [frame, body] = [text.split("\n").filter((l) => l.startsWith("- ") || l.startsWith("#")), text]
      expect(frame.find((l) => l.startsWith("- session: "))).toBe("- session: `esc-\\x1b[31mRED\\x1b[0m-\\x07-\\x85-x`")
      const heading = frame.find((l) => l.includes("tool-call"))
      expect(heading).toContain(" `tool-\\u202e-\\x1b[2J`")
      for (const l of frame) expect(l, l).not.toMatch(RAW)
      // the message's text as it is
      expect(body).toContain("done \u0007 here")
    } finally {
      await server.close()
    }
  }, 120_000)
})
