/**
 * tester25a F12 through the MCP server: a value the first prompt states ("connect with … to the db") and a later
 * tool call's input names a password (`{"env": {"DB_PASSWORD": …}}`, `secret-field`) is hidden in every answer, in
 * the title and the earlier events too: `list_sessions`, the resource list, `get_session` (title and page text), the
 * `session://` resource and `get_events`.
 */
import { claudeAssistantLine, claudeProject, claudeUserLine } from "../support/claude-import.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { callRaw, type Connected, serveClaudeRoot } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const V = ["Tt9Secret", "!", "Value2"].join("")
const F = "[REDACTED:secret-field]"
const SID = "14141414-0000-4000-8000-000000000001"
// a session whose title states no secret's shape: shown without reading its events
const PLAIN_SID = "14141414-0000-4000-8000-000000000002"
// the tool call past the first page of events the server reads (500): its secret is known only after a whole read
const LONG_SID = "14141414-0000-4000-8000-000000000003"
const FILLER = 600

let dir: string
let server: Connected

const user = claudeUserLine
const assistant = claudeAssistantLine

beforeAll(async () => {
  dir = tempDir("si-backprop25-")
  const { write } = claudeProject(dir)
  write(SID, [
    user(SID, "u", null, "2026-11-01T00:00:00Z", `connect with ${V} to the db`),
    assistant(SID, "a", "u", "2026-11-01T00:00:01Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql -c 'select 1'", env: { DB_PASSWORD: V } } }]),
    user(SID, "u2", "a", "2026-11-01T00:00:02Z", [{ type: "tool_result", tool_use_id: "t1", content: "1 row" }])
  ])
  write(PLAIN_SID, [
    user(PLAIN_SID, "u", null, "2026-10-01T00:00:00Z", "list the files here"),
    assistant(PLAIN_SID, "a", "u", "2026-10-01T00:00:01Z", [{ type: "text", text: "ok" }])
  ])
  const long: Array<unknown> = [user(LONG_SID, "u", null, "2026-09-01T00:00:00Z", `connect with ${V} to the db`)]
  let parent = "u"
  const at = (i: number) => new Date(Date.UTC(2026, 8, 1) + (i + 1) * 1000).toISOString()
  for (let i = 0; i < FILLER; i++) {
    long.push(assistant(LONG_SID, `f${i}`, parent, at(i), [{ type: "text", text: `step ${i}` }]))
    parent = `f${i}`
  }
  long.push(assistant(LONG_SID, "a", parent, at(FILLER), [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql", env: { DB_PASSWORD: V } } }]))
  write(LONG_SID, long)
  server = await serveClaudeRoot(dir)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

const call = (name: string, args: Record<string, unknown>) => callRaw(server, name, args)

const TITLE = `connect with ${F} to the db`

describe("tester25a F12: a value a later tool input names a password, in every MCP answer", () => {
  it("list_sessions: the title hides it (the other session's title as it is)", async () => {
    const { raw, answer } = await call("list_sessions", {})
    expect(raw).not.toContain("Tt9Secret")
    const titles = Object.fromEntries(answer.sessions.map((s: { id: string; title: string }) => [s.id, s.title]))
    expect(titles[SID]).toBe(TITLE)
    expect(titles[PLAIN_SID]).toBe("list the files here")
  })

  it("the resource list: the title hides it", async () => {
    const listed = await server.client.listResources()
    const text = JSON.stringify(listed)
    expect(text).toContain(F)
    expect(text).not.toContain("Tt9Secret")
  })

  it("get_session: the title and the page text hide it", async () => {
    const { raw, answer } = await call("get_session", { id: SID })
    expect(raw).not.toContain("Tt9Secret")
    expect(answer.session.title).toBe(TITLE)
    expect(answer.page.text).toContain(`connect with ${F} to the db`)
  })

  it("the session:// resource: the title and the transcript hide it", async () => {
    const { answer } = await call("list_sessions", {})
    const uri = answer.sessions.find((s: { id: string }) => s.id === SID).uri
    const read = await server.client.readResource({ uri })
    const text = JSON.stringify(read)
    expect(text).not.toContain("Tt9Secret")
    expect(text.split(`connect with ${F} to the db`).length - 1).toBe(2)
  })

  it("get_events: the first event hides it, also when the tool call lies past the first page of events read", async () => {
    for (const id of [SID, LONG_SID]) {
      const { raw, answer } = await call("get_events", { id, limit: 2 })
      expect(raw, id).not.toContain("Tt9Secret")
      expect(answer.events[0].text).toBe(`connect with ${F} to the db`)
    }
  })

  it("a long session (the tool call past the first 500 events): list_sessions and get_session hide it", async () => {
    const listed = await call("list_sessions", {})
    expect(listed.raw).not.toContain("Tt9Secret")
    expect(listed.answer.sessions.find((s: { id: string }) => s.id === LONG_SID).title).toBe(TITLE)
    const got = await call("get_session", { id: LONG_SID, maxChars: 200 })
    expect(got.raw).not.toContain("Tt9Secret")
    expect(got.answer.session.title).toBe(TITLE)
  })
})
