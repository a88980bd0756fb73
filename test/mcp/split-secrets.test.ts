/**
 * A token cut in two across two text blocks of one Claude Code response (two lines of the log with the same
 * `message.id` and `requestId`, a text block each): no redacted output carries either part of it past the marker
 * (`export --format ndjson|atif`, `replay`, `show --format markdown`), and neither do the MCP server's answers
 * (`get_events` from the start, around an event, by cursor a page of one at a time; `get_session`, the session
 * resource; `search_sessions` snippets).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const GHP = ["ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"].join("")
const FIRST = GHP.slice(0, 14), SECOND = GHP.slice(14)
const leaks = (s: string) => [FIRST.slice(4), SECOND].filter((x) => s.includes(x))

let dir: string
let index: string
let env: Record<string, string>
let server: Connected

beforeAll(async () => {
  dir = tempDir("si-splitsecrets-")
  const proj = path.join(dir, "claude", "projects", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  const sid = "ssssssss-0000-4000-8000-000000000001"
  const base = { sessionId: sid, cwd: "/srv/x" }
  const part = (uuid: string, parent: string, at: string, text: string) => ({
    ...base, type: "assistant", uuid, parentUuid: parent, requestId: "r1", timestamp: at,
    message: { id: "m1", model: "claude-sonnet-4-5-20250929", role: "assistant", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } }
  })
  const lines = [
    { ...base, type: "user", uuid: "u0", parentUuid: null, timestamp: "2026-08-01T00:00:00Z", message: { role: "user", content: "which token?" } },
    part("a1", "u0", "2026-08-01T00:00:01Z", `Use this one: ${FIRST}`),
    part("a2", "a1", "2026-08-01T00:00:02Z", `${SECOND} and rotate it splitwordbravo.`)
  ]
  fs.writeFileSync(path.join(proj, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  // tester23b F3: a token cut in three text blocks of one response, and one cut at a thinking block's end
  const sid3 = "tttttttt-0000-4000-8000-000000000003"
  const block = (uuid: string, parent: string, at: string, id: string, content: Record<string, unknown>) => ({
    sessionId: sid3, cwd: "/srv/x", type: "assistant", uuid, parentUuid: parent, requestId: `req_${id}`, timestamp: at,
    message: { id, model: "claude-sonnet-4-5-20250929", role: "assistant", content: [content], usage: { input_tokens: 1, output_tokens: 1 } }
  })
  const three = [
    { sessionId: sid3, cwd: "/srv/x", type: "user", uuid: "v0", parentUuid: null, timestamp: "2026-08-02T00:00:00Z", message: { role: "user", content: "cut it thrice" } },
    block("b1", "v0", "2026-08-02T00:00:01Z", "m_c", { type: "text", text: `token ${GHP.slice(0, 15)}` }),
    block("b2", "b1", "2026-08-02T00:00:02Z", "m_c", { type: "text", text: GHP.slice(15, 28) }),
    block("b3", "b2", "2026-08-02T00:00:03Z", "m_c", { type: "text", text: `${GHP.slice(28)} end threewordcharlie` }),
    block("b4", "b3", "2026-08-02T00:00:04Z", "m_d", { type: "thinking", thinking: `the key is ${GHP.slice(0, 20)}`, signature: "sig" }),
    block("b5", "b4", "2026-08-02T00:00:05Z", "m_d", { type: "text", text: `${GHP.slice(20)} end thinkworddelta` })
  ]
  fs.writeFileSync(path.join(proj, `${sid3}.jsonl`), three.map((l) => JSON.stringify(l)).join("\n") + "\n")
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  server = await connect(["--index", index], env)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("a token cut across two text blocks of one response", () => {
  it("--no-redact keeps both halves (the raw record: the case is real)", () => {
    const r = cli(["export", "ssss", "--format", "ndjson", "--no-redact", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(leaks(r.stdout)).toEqual([FIRST.slice(4), SECOND])
  })

  it.each([
    ["export", "ssss", "--format", "ndjson"],
    ["export", "ssss", "--format", "atif"],
    ["show", "ssss", "--format", "markdown"],
    ["replay", "ssss"]
  ])("%s %s %s: neither half, the marker in its place, the words around kept", (...args) => {
    const r = cli([...args, "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(leaks(r.stdout)).toEqual([])
    expect(r.stdout).toContain("REDACTED:github-token")
    expect(r.stdout).toContain("Use this one: ")
    expect(r.stdout).toContain(" and rotate it splitwordbravo.")
  })

  it("MCP get_events (from the start, around an event, a page of one at a time) and search_sessions carry neither half", async () => {
    const all = await server.client.callTool({ name: "get_events", arguments: { id: "ssss" } })
    expect(leaks(JSON.stringify(all))).toEqual([])
    const events = (answerOf(all) as any).events as Array<{ eventId: string; cursor: string }>
    expect(events.length).toBe(3)
    for (const e of events) {
      const around = await server.client.callTool({ name: "get_events", arguments: { id: "ssss", eventId: e.eventId, context: 1 } })
      expect(leaks(JSON.stringify(around)), e.eventId).toEqual([])
    }
    // pages of one: the second half's page follows the first half's cursor
    const page = await server.client.callTool({ name: "get_events", arguments: { id: "ssss", cursor: events[1].cursor, limit: 1 } })
    expect(leaks(JSON.stringify(page))).toEqual([])
    expect(JSON.stringify(page)).toContain("splitwordbravo")
    // a page of one that ends with the first half: its joint with the next event is read too
    const first = await server.client.callTool({ name: "get_events", arguments: { id: "ssss", cursor: events[0].cursor, limit: 1 } })
    expect(leaks(JSON.stringify(first))).toEqual([])
    expect(JSON.stringify(first)).toContain("Use this one: ")
    const whole = await server.client.callTool({ name: "get_session", arguments: { id: "ssss" } })
    expect(leaks(JSON.stringify(whole))).toEqual([])
    const resource = await server.client.readResource({ uri: `session://${(answerOf(all) as any).session.uid}` })
    expect(leaks(JSON.stringify(resource))).toEqual([])
    const hit = await server.client.callTool({ name: "search_sessions", arguments: { query: "splitwordbravo" } })
    expect((answerOf(hit) as any).count).toBeGreaterThan(0)
    expect(leaks(JSON.stringify(hit))).toEqual([])
  })
})

/** Pieces of the token's body (6 characters) a text carries: any is a part of the secret. */
const pieces = (s: string) => {
  const out = new Set<string>()
  for (let i = 4; i + 6 <= GHP.length; i++) if (s.includes(GHP.slice(i, i + 6))) out.add(GHP.slice(i, i + 6))
  return [...out]
}

describe("a token cut across three text blocks, and across a thinking block's end and a text (tester23b F3)", () => {
  it("--no-redact keeps the pieces (the raw record: the case is real)", () => {
    const r = cli(["export", "tttt", "--format", "ndjson", "--no-redact", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(pieces(r.stdout).length).toBeGreaterThan(20)
  })

  it.each([
    ["export", "tttt", "--format", "ndjson"],
    ["export", "tttt", "--format", "atif"],
    ["show", "tttt", "--format", "markdown"],
    ["replay", "tttt"]
  ])("%s %s %s: no piece, the markers in their places, the words around kept", (...args) => {
    const r = cli([...args, "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(pieces(r.stdout)).toEqual([])
    expect(r.stdout).toContain("token [REDACTED:github-token]")
    expect(r.stdout).toContain("the key is [REDACTED:github-token]")
    expect(r.stdout).toContain(" end threewordcharlie")
    expect(r.stdout).toContain(" end thinkworddelta")
  })

  it("show --around each event, context 0 and 1: no piece", () => {
    const all = cli(["show", "tttt", "--format", "events", "--index", index], { env })
    const ids = all.stdout.trim().split("\n").map((l) => JSON.parse(l).eventId as string)
    expect(ids.length).toBe(6)
    for (const id of ids) {
      for (const n of ["0", "1"]) {
        const r = cli(["show", "tttt", "--around", id, "--context", n, "--format", "markdown", "--index", index], { env })
        expect(r.code, r.stderr).toBe(0)
        expect(pieces(r.stdout), `${id} ${n}`).toEqual([])
      }
    }
  })

  it("MCP get_events (from the start, around each event, a page of one from each cursor), get_session, the resource, search_sessions: no piece", async () => {
    const all = await server.client.callTool({ name: "get_events", arguments: { id: "tttt" } })
    expect(pieces(JSON.stringify(all))).toEqual([])
    const events = (answerOf(all) as any).events as Array<{ eventId: string; cursor: string; text: string }>
    expect(events.map((e) => e.text)).toEqual([
      "cut it thrice", "token [REDACTED:github-token]", "", " end threewordcharlie", "the key is [REDACTED:github-token]", " end thinkworddelta"
    ])
    for (const e of events) {
      for (const context of [0, 1]) {
        const around = await server.client.callTool({ name: "get_events", arguments: { id: "tttt", eventId: e.eventId, context } })
        expect(pieces(JSON.stringify(around)), `${e.eventId} ${context}`).toEqual([])
      }
      const page = await server.client.callTool({ name: "get_events", arguments: { id: "tttt", cursor: e.cursor, limit: 1 } })
      expect(pieces(JSON.stringify(page)), e.cursor).toEqual([])
    }
    // pages of one from the start, each after the last: their texts are the whole answer's
    const paged: Array<string> = []
    let cursor: string | undefined
    for (let k = 0; k < 10; k++) {
      const page = answerOf(await server.client.callTool({ name: "get_events", arguments: { id: "tttt", limit: 1, ...(cursor !== undefined ? { cursor } : {}) } })) as any
      paged.push(...page.events.map((e: { text: string }) => e.text))
      if (page.done) break
      cursor = page.nextCursor
    }
    expect(paged).toEqual(events.map((e) => e.text))
    const whole = await server.client.callTool({ name: "get_session", arguments: { id: "tttt" } })
    expect(pieces(JSON.stringify(whole))).toEqual([])
    const resource = await server.client.readResource({ uri: `session://${(answerOf(all) as any).session.uid}` })
    expect(pieces(JSON.stringify(resource))).toEqual([])
    for (const query of ["threewordcharlie", "thinkworddelta", GHP.slice(28), GHP.slice(20), GHP.slice(15, 28)]) {
      const hit = await server.client.callTool({ name: "search_sessions", arguments: { query } })
      expect(pieces(JSON.stringify(hit)), query).toEqual([])
    }
  })
})
