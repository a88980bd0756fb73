/**
 * A credential told in prose with a line break (or a tab, CRLF, several breaks) between its words and its value
 * (tester39 F1, F2). `my password is` then the value on the next line was shown in clear by `show --format
 * markdown`, `export --format atif`, `replay` and MCP `get_events`, while the MCP search snippet (its white space
 * folded, then redacted a second time) and the title hid it; and `search_sessions` for the hidden value found the
 * event by it, its own snippet showing `[REDACTED:password-prose]` (an oracle: "this value is the right guess").
 * The prose rules now read any white space run as their separator, in every output alike, and a search snippet is a
 * window of the very redacted text its hit was decided on, never redacted again (docs/mcp.md, "A search over what is
 * shown"). Through the built CLI and the official SDK client.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

const SID = "39393939-0000-4000-8000-000000000039"
/** Each hidden value with the text it is told in (a separator other than one space between the words and it). */
const TOLD: ReadonlyArray<readonly [string, string, string]> = [
  // [the value, the text, the rule that takes it]
  ["Sq1oG6iEf5Cq0", "hotel my password is\nSq1oG6iEf5Cq0\nhotel done", "password-prose"],
  ["Ab12Cd34Ef56Gh", "india the token is\r\nAb12Cd34Ef56Gh now", "token-prose"],
  ["Lp4vRt8Yk2Qw", "lima passphrase was\n\n\tLp4vRt8Yk2Qw\nok", "password-prose"],
  ["Mk3jHs9Pq1Xz", "mike API key:\tMk3jHs9Pq1Xz", "token-prose"],
  ["Nv7Tq2Wz9Kb", "november the password for\nprod is Nv7Tq2Wz9Kb.", "password-prose"],
  ["Pw4De77xxQ", "oscar Das Passwort\nist Pw4De77xxQ", "password-prose-intl"],
  ["Rk8mZp3Lq6", "papa Rk8mZp3Lq6 is the\npassword for prod", "password-prose"]
]

let dir: string
let index: string
let env: Record<string, string>
const servers: Array<Connected> = []

const line = (uuid: string, parent: string | null, i: number, type: "user" | "assistant", content: unknown) => ({
  sessionId: SID, cwd: "/srv/app", type, uuid, parentUuid: parent, timestamp: `2026-11-23T10:00:${String(i).padStart(2, "0")}.000Z`,
  ...(type === "user"
    ? { message: { role: "user", content } }
    : { requestId: `req_${i}`, message: { id: `msg_${i}`, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content, usage: { input_tokens: 1, output_tokens: 1 } } })
})

beforeAll(() => {
  dir = tempDir("si-prose-break39-")
  const proj = path.join(dir, "claude", "projects", "-srv-app")
  fs.mkdirSync(proj, { recursive: true })
  const [first, ...rest] = TOLD
  const lines: Array<unknown> = [line("u0", null, 0, "user", first[1])]
  let parent = "u0"
  rest.forEach(([, text], k) => {
    const i = 1 + k * 3
    // each told once in an assistant's text and once in a tool's result
    lines.push(line(`a${i}`, parent, i, "assistant", [{ type: "text", text }, { type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: "cat notes.txt" } }]))
    lines.push(line(`r${i}`, `a${i}`, i + 1, "user", [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `notes: ${text}` }]))
    parent = `r${i}`
  })
  // (tester39 F2 by construction) a text a rule reads one way as written and another once its white space is folded
  // (`Set-Cookie:` then the cookie on the next line: `cookie` takes it only on one line). The snippet's window is
  // folded; redacted again, it hid what its hit was decided on and get_events shows. Whatever the rules make of
  // it, the snippet must be a window of the text as get_events gives it.
  lines.push(line("a90", parent, 40, "assistant", [{ type: "text", text: "sierra Set-Cookie:\nsid=4iR1dcAWhG4k4F9lZqKEKxIvE4dvzaXD1; Path=/; HttpOnly" }]))
  fs.writeFileSync(path.join(proj, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data"), NO_COLOR: "1" }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
  // 8: the Muse agents root named does not exist (partial); the Claude Code session is imported whole
  expect([0, 8], r.stderr).toContain(r.code)
  expect(r.stderr).not.toContain("SOURCE_")
}, 120_000)

afterAll(async () => {
  for (const s of servers) await s.close()
})

describe("a credential told across a line break is redacted in every output alike (tester39 F1)", () => {
  it.each([
    ["show --format markdown", ["show", SID, "--format", "markdown"]],
    ["export --format atif", ["export", SID, "--format", "atif"]],
    ["replay", ["replay", SID]],
    ["export --format ndjson", ["export", SID, "--format", "ndjson"]]
  ])("%s hides every value and says which rule took it", (_, args) => {
    const r = cli([...args, "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    for (const [value, , rule] of TOLD) {
      expect(r.stdout, value).not.toContain(value)
      expect(r.stdout).toContain(`[REDACTED:${rule}]`)
    }
  })
})

describe("MCP: the same text in get_events, get_session and search (tester39 F1, F2)", () => {
  let server: Connected
  beforeAll(async () => {
    server = await connect(["--index", index], env)
    servers.push(server)
  }, 60_000)

  /** Every event's text as get_events gives it (redacted): fewer than 100 events, one page. */
  const shownEvents = async (): Promise<Map<string, string>> => {
    const page = answerOf(await server.client.callTool({ name: "get_events", arguments: { id: SID, limit: 100 } })) as any
    expect(page.done).toBe(true)
    return new Map(page.events.map((e: { eventId: string; text: string | null }) => [e.eventId, e.text ?? ""]))
  }

  it("get_events, get_session and the session:// resource hide every value", async () => {
    const events = answerOf(await server.client.callTool({ name: "get_events", arguments: { id: SID, limit: 100 } }))
    const page = answerOf(await server.client.callTool({ name: "get_session", arguments: { id: SID } }))
    const read = await server.client.readResource({ uri: `session://${SID}` })
    for (const v of [JSON.stringify(events), JSON.stringify(page), JSON.stringify(read)]) {
      for (const [value] of TOLD) expect(v, value).not.toContain(value)
    }
    expect(JSON.stringify(events)).toContain("[REDACTED:password-prose]")
  })

  it.each(TOLD.map(([value]) => [value]))("search_sessions for the hidden value %s finds nothing", async (value) => {
    const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: value } })) as any
    expect(found.hits).toEqual([])
    const prefix = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: `${value.slice(0, 6)}*` } })) as any
    expect(prefix.hits).toEqual([])
  })

  it("each snippet is a window of its event's text as get_events shows it (white space folded), holding the query's word", async () => {
    const events = await shownEvents()
    const folded = (s: string) => s.replace(/\s+/g, " ")
    for (const word of ["hotel", "india", "lima", "mike", "november", "oscar", "papa", "notes", "sierra", "HttpOnly"]) {
      const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: word } })) as any
      expect(found.hits.length, word).toBeGreaterThan(0)
      for (const h of found.hits) {
        if (h.field === "title") continue
        const shown = events.get(h.eventId)
        expect(shown, `${word}: ${h.eventId}`).toBeDefined()
        expect(h.field, word).toBe("text")
        const window = h.snippet.replace(/^…/, "").replace(/…$/, "")
        expect(window.toLowerCase(), word).toContain(word.toLowerCase())
        expect(folded(shown!), `${word}: ${h.snippet}`).toContain(window)
      }
    }
  })
})
