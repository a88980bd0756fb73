/**
 * tester25b F5 through the MCP server: a value a tool input names a secret (`{"env": {"API_TOKEN": …}}`) and the
 * first prompt also states percent-encoded (`Qx7pass%2DWord_88`) is hidden in that form too (session 26: the known
 * secrets are looked for in the decoded view), so `search_sessions` with redaction neither finds the session by it
 * nor shows it, and `get_session` / `get_events` hide it.
 */
import { claudeAssistantLine, claudeProject, claudeUserLine } from "../support/claude-import.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { callRaw, type Connected, serveClaudeRoot } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const V = ["Qx7pass", "-Word_88"].join("")
const ENC = ["Qx7pass", "%2DWord_88"].join("")
const F = "[REDACTED:secret-field]"
const SID = "26262626-0000-4000-8000-000000000001"

let dir: string
let server: Connected

beforeAll(async () => {
  dir = tempDir("si-decoded26-")
  const { write } = claudeProject(dir)
  write(SID, [
    claudeUserLine(SID, "u", null, "2026-11-01T00:00:00Z", `use '${V}'. ok? and url-enc ${ENC} please`),
    claudeAssistantLine(SID, "a", "u", "2026-11-01T00:00:01Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "true", env: { API_TOKEN: V } } }]),
    claudeUserLine(SID, "u2", "a", "2026-11-01T00:00:02Z", [{ type: "tool_result", tool_use_id: "t1", content: "ok" }])
  ])
  server = await serveClaudeRoot(dir)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

const call = (name: string, args: Record<string, unknown>) => callRaw(server, name, args)

describe("tester25b F5: a known secret restated percent-encoded, in MCP answers", () => {
  it("search_sessions neither finds the session by it nor shows it; a word beside it still finds it", async () => {
    for (const query of ["Qx7pass", "Word_88", "Qx7pass*"]) {
      const { raw, answer } = await call("search_sessions", { query })
      expect(raw, query).not.toContain("Qx7pass")
      expect(answer.count, query).toBe(0)
    }
    const { raw, answer } = await call("search_sessions", { query: "please" })
    // the prompt, and the title cut from it
    expect(answer.count).toBeGreaterThan(0)
    expect(raw).not.toContain("Qx7pass")
    expect(raw).not.toContain("Word_88")
  })

  it("get_session and get_events: the title and the prompt hide both forms", async () => {
    const said = `use '${F}'. ok? and url-enc ${F} please`
    const got = await call("get_session", { id: SID })
    expect(got.raw).not.toContain("Qx7pass")
    expect(got.answer.session.title).toBe(said)
    const events = await call("get_events", { id: SID, limit: 1 })
    expect(events.raw).not.toContain("Qx7pass")
    expect(events.answer.events[0].text).toBe(said)
  })
})
