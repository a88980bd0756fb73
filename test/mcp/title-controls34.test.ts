/**
 * A session title's control characters and bidirectional controls in MCP answers (tester33c F6). A first prompt
 * holding U+202E (RIGHT-TO-LEFT OVERRIDE), BEL and an ANSI colour (ESC [31m) becomes the session's title; the CLI's
 * `sessions`, `show` and the replay show them as escapes (`\u202e`, `\x07`, `\x1b`), but MCP's `list_sessions` gave
 * the raw characters: the wire's `escapeJsonControls` escapes them in the JSON text only, and the client's JSON parser
 * gives them back raw, so a client rendering the title reverses (or recolours) the rest of its line. Every title an
 * answer gives (list_sessions, get_session, search_sessions hits and a title hit's snippet, resources/list, the
 * `session://` resource's heading) now shows them escaped, as the CLI does (`visibleControls`), through the official
 * SDK client, with redaction on and off.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

const SID = "f6f6f6f6-0000-4000-8000-000000000034"
const PROMPT = "lone \u0007\u001b[31m red \u202e rtl quokka"
/** The title as the CLI shows it: each control written as its escape. */
const SHOWN = "lone \\x07\\x1b[31m red \\u202e rtl quokka"
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

let dir: string
let index: string
let env: Record<string, string>
const servers: Array<Connected> = []

beforeAll(async () => {
  dir = tempDir("si-title-controls34-")
  const proj = path.join(dir, "claude", "projects", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  const lines = [
    { sessionId: SID, cwd: "/srv/x", type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-08-01T00:00:00Z", message: { role: "user", content: PROMPT } },
    {
      sessionId: SID, cwd: "/srv/x", type: "assistant", uuid: "a1", parentUuid: "u1", timestamp: "2026-08-01T00:00:01Z",
      message: { id: "msg_1", type: "message", role: "assistant", model: "claude-opus-4-6", content: [{ type: "text", text: "ok" }] }
    }
  ]
  fs.writeFileSync(path.join(proj, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  // the CLI's own listing, the rule's reference
  const s = cli(["sessions", "--index", index], { env: { ...env, NO_COLOR: "1" } })
  expect(s.stdout).toContain("\\u202e")
}, 120_000)

afterAll(async () => {
  for (const s of servers) await s.close()
})

describe.each([["redaction on", []], ["--no-redact", ["--no-redact"]]] as const)("MCP titles show controls escaped (tester33c F6, %s)", (_, extra) => {
  let server: Connected
  beforeAll(async () => {
    server = await connect(["--index", index, ...extra], env)
    servers.push(server)
  }, 60_000)

  it("list_sessions, get_session, search_sessions (title and event hits), resources/list and session:// give the title escaped", async () => {
    const list = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} })) as any
    expect(list.sessions.map((s: { title: string }) => s.title)).toEqual([SHOWN])
    const got = answerOf(await server.client.callTool({ name: "get_session", arguments: { id: SID } })) as any
    expect(got.session.title).toBe(SHOWN)
    const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: "quokka" } })) as any
    expect(found.hits.length).toBeGreaterThan(0)
    for (const h of found.hits) expect(h.title).toBe(SHOWN)
    for (const h of found.hits.filter((x: { field: string }) => x.field === "title")) expect(h.snippet).not.toMatch(RAW)
    const res = await server.client.listResources()
    expect(res.resources.map((x) => x.title)).toEqual([SHOWN])
    expect(res.resources.map((x) => x.name)).toEqual([SHOWN])
    const read = await server.client.readResource({ uri: list.sessions[0].uri })
    const text = (read.contents[0] as { text: string }).text
    expect(text.split("\n")[0]).toContain("\\u202e")
    expect(text.split("\n")[0]).not.toMatch(RAW)
    // (get_session's page and an event hit's snippet are the session's text, not its title: left as they are)
    for (const v of [list, res]) expect(JSON.stringify(v)).not.toMatch(RAW)
  })
})
