/**
 * Session 33 (tester33a F1): a token cut across the text blocks of ONE user message (a Claude Code `user` line whose
 * `content` is two text blocks; an AgentMux typed prompt of two blocks) was shown, both halves, in every redacted
 * output: each block is an event of its own, and only an assistant response's blocks were read as one text at their
 * joints. The blocks of one user message (one native record) are one text too, by the one rule every output shares
 * (`sameResponseText`): no half in `export --format ndjson|atif`, `replay`, `show --format markdown` (also around
 * each event), MCP `get_events` (whole, around each event, a page of one from each cursor), `get_session`, the
 * session resource and `search_sessions` snippets. Two different user lines in a row are never joined.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createStore } from "../agentmux/store-helper.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const CC_TOKEN = ["ghp_", "A1bpabbfjvlxVqptN10aFCMyKs9UroWcskzb"].join("")
const AM_TOKEN = ["ghp_", "A1bo01rEP45I6HlP5N8Gu9RHECs8ROetAtHF"].join("")
const TWO_TOKEN = ["ghp_", "Zq9XwVt7Rs5Pn3Ml1Kj8Hg6Fd4Sa2Qw0Er7Ty5"].join("")
const GM = "[REDACTED:github-token]"

/** Pieces of a token's body (6 characters) a text carries: any is a part of the secret. */
const pieces = (token: string, s: string) => {
  const out = new Set<string>()
  for (let i = 4; i + 6 <= token.length; i++) if (s.includes(token.slice(i, i + 6))) out.add(token.slice(i, i + 6))
  return [...out]
}
const leaks = (s: string) => [...pieces(CC_TOKEN, s), ...pieces(AM_TOKEN, s)]

const CC = "cccc3333-0000-4000-8000-000000000001"
const AM = "amux3333-0000-4000-8000-000000000002"
const TWO = "dddd3333-0000-4000-8000-000000000003"

let dir: string
let index: string
let env: Record<string, string>
let server: Connected

beforeAll(async () => {
  dir = tempDir("si-splituser33-")
  const proj = path.join(dir, "claude", "projects", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  const line = (sid: string, type: "user" | "assistant", uuid: string, parent: string | null, at: string, content: unknown) => ({
    sessionId: sid, cwd: "/srv/x", type, uuid, parentUuid: parent, timestamp: at,
    message: type === "user"
      ? { role: "user", content }
      : { id: `m_${uuid}`, model: "claude-sonnet-4-5-20250929", role: "assistant", content, usage: { input_tokens: 1, output_tokens: 1 } },
    ...(type === "assistant" ? { requestId: `req_${uuid}` } : {})
  })
  // the tester's shape: one user line, its `content` two text blocks, the token cut in two (after its 22nd
  // character: the title, the blocks joined by a space, then reads it as a wrapped key and hides it; the tester's
  // cut after 18 characters, which the title keeps, is test/domain/redaction-user-blocks33.test.ts's)
  const cc = [
    line(CC, "user", "u1", null, "2026-08-01T00:00:00Z", [
      { type: "text", text: `use token ${CC_TOKEN.slice(0, 22)}` },
      { type: "text", text: `${CC_TOKEN.slice(22)} now usertailecho` }
    ]),
    line(CC, "assistant", "a1", "u1", "2026-08-01T00:00:01Z", [{ type: "text", text: "ok" }])
  ]
  fs.writeFileSync(path.join(proj, `${CC}.jsonl`), cc.map((l) => JSON.stringify(l)).join("\n") + "\n")
  // two user lines in a row, each a message of its own: the first ends with a token's first half, the second starts
  // with letters and digits; not one text, so nothing is joined (and neither half alone is a token)
  const two = [
    line(TWO, "user", "v1", null, "2026-08-02T00:00:00Z", [{ type: "text", text: `first ${TWO_TOKEN.slice(0, 20)}` }]),
    line(TWO, "user", "v2", "v1", "2026-08-02T00:00:01Z", [{ type: "text", text: `${TWO_TOKEN.slice(20)} second` }]),
    line(TWO, "assistant", "a2", "v2", "2026-08-02T00:00:02Z", [{ type: "text", text: "ok" }])
  ]
  fs.writeFileSync(path.join(proj, `${TWO}.jsonl`), two.map((l) => JSON.stringify(l)).join("\n") + "\n")
  // the tester's AgentMux shape: a typed prompt (no session id: it goes to the next owned line's session) of two
  // text blocks, the token cut after its 20th character, then the run
  const am = [
    { type: "user", message: { role: "user", content: [
      { type: "text", text: `deploy with token ${AM_TOKEN.slice(0, 20)}` },
      { type: "text", text: `${AM_TOKEN.slice(20)} and password is Hx7!kq29Lm` }
    ] } },
    { type: "system", subtype: "init", cwd: "/home/u/proj", session_id: AM, model: "claude-sonnet-4-5", tools: ["Bash"], uuid: "init-am" },
    { type: "assistant", message: { id: "am1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 5, output_tokens: 7 } }, session_id: AM },
    { type: "result", subtype: "success", session_id: AM, total_cost_usd: 0.01, usage: { input_tokens: 5, output_tokens: 7 } }
  ]
  const bytes = Buffer.from(am.map((l) => JSON.stringify(l)).join("\n") + "\n")
  const store = path.join(dir, "filestore.db")
  createStore(store, [{ zoneId: "agent:u9:current", name: "output", bytes, createdTs: 1763632800000 }])
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli([
    "import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none"),
    "--store", store, "--agent", "u9", "--state", path.join(dir, "state.db")
  ], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  server = await connect(["--index", index], env)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

/** The two sessions of one user message cut in two: their prefix, the token, and the texts their events show. */
const CASES = [
  ["claude-code", "cccc3333", CC_TOKEN, [`use token ${GM}`, " now usertailecho", "ok"], "usertailecho"],
  ["agentmux", "amux3333", AM_TOKEN, [`deploy with token ${GM}`, " and password is [REDACTED:password-prose]", "ok"], "deploy"]
] as const

describe("a token cut across the text blocks of one user message (tester33a F1)", () => {
  it.each(CASES)("%s: --no-redact keeps both halves (the raw record: the case is real)", (_p, id, token) => {
    const r = cli(["export", id, "--format", "ndjson", "--no-redact", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(pieces(token, r.stdout).length).toBeGreaterThan(20)
  })

  for (const [provider, id, token, texts] of CASES) {
    it.each([
      ["export", id, "--format", "ndjson"],
      ["export", id, "--format", "atif"],
      ["show", id, "--format", "markdown"],
      ["replay", id]
    ].map((a) => [a.join(" "), a] as const))(`${provider}: %s: no piece of the token, the marker in its place, the words around kept`, (_name, args) => {
      const r = cli([...args, "--index", index], { env })
      expect(r.code, r.stderr).toBe(0)
      expect(pieces(token, r.stdout)).toEqual([])
      expect(r.stdout).toContain(texts[0].replace(GM, ""))
      expect(r.stdout).toContain("REDACTED:github-token")
    })

    it(`${provider}: the events' texts (NDJSON) are the blocks with the token's marker ending the first`, () => {
      const r = cli(["export", id, "--format", "ndjson", "--index", index], { env })
      expect(r.code, r.stderr).toBe(0)
      const shown = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.kind === "message").map((e) => e.text)
      expect(shown).toEqual(texts)
    })

    it(`${provider}: show --around each event (context 0 and 1, Markdown): no piece`, () => {
      const all = cli(["show", id, "--format", "events", "--index", index], { env })
      expect(all.code, all.stderr).toBe(0)
      const ids = all.stdout.trim().split("\n").map((l) => JSON.parse(l).eventId as string)
      expect(ids.length).toBeGreaterThanOrEqual(3)
      for (const eventId of ids) {
        for (const n of ["0", "1"]) {
          const r = cli(["show", id, "--around", eventId, "--context", n, "--format", "markdown", "--index", index], { env })
          expect(r.code, r.stderr).toBe(0)
          expect(pieces(token, r.stdout), `${eventId} ${n}`).toEqual([])
        }
      }
    }, 180_000)
  }

  it.each(CASES)("%s: MCP get_events (whole, around each event, a page of one from each cursor), get_session, the resource, search_sessions: no piece", async (_p, id, token, texts, word) => {
    const all = await server.client.callTool({ name: "get_events", arguments: { id } })
    expect(pieces(token, JSON.stringify(all))).toEqual([])
    const events = (answerOf(all) as any).events as Array<{ eventId: string; cursor: string; kind: string; text: string }>
    expect(events.filter((e) => e.kind === "message").map((e) => e.text)).toEqual(texts)
    for (const e of events) {
      for (const context of [0, 1]) {
        const around = await server.client.callTool({ name: "get_events", arguments: { id, eventId: e.eventId, context } })
        expect(pieces(token, JSON.stringify(around)), `${e.eventId} ${context}`).toEqual([])
      }
      const page = await server.client.callTool({ name: "get_events", arguments: { id, cursor: e.cursor, limit: 1 } })
      expect(pieces(token, JSON.stringify(page)), e.cursor).toEqual([])
    }
    // a page of one from the start: the first block's page reads its joint with the next
    const first = await server.client.callTool({ name: "get_events", arguments: { id, limit: 1 } })
    expect(pieces(token, JSON.stringify(first))).toEqual([])
    const whole = await server.client.callTool({ name: "get_session", arguments: { id } })
    expect(pieces(token, JSON.stringify(whole))).toEqual([])
    const resource = await server.client.readResource({ uri: `session://${(answerOf(all) as any).session.uid}` })
    expect(pieces(token, JSON.stringify(resource))).toEqual([])
    for (const query of [word, token.slice(22), token.slice(20)]) {
      const hit = await server.client.callTool({ name: "search_sessions", arguments: { query } })
      expect(pieces(token, JSON.stringify(hit)), query).toEqual([])
    }
    const hit = await server.client.callTool({ name: "search_sessions", arguments: { query: word } })
    expect((answerOf(hit) as any).count).toBeGreaterThan(0)
  })

  it("two user lines in a row are two messages: their texts are not read as one (a joint is within one message)", async () => {
    const want = [`first ${TWO_TOKEN.slice(0, 20)}`, `${TWO_TOKEN.slice(20)} second`, "ok"]
    const r = cli(["export", "dddd3333", "--format", "ndjson", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.kind === "message").map((e) => e.text)).toEqual(want)
    const all = await server.client.callTool({ name: "get_events", arguments: { id: "dddd3333" } })
    expect(((answerOf(all) as any).events as Array<{ kind: string; text: string }>).filter((e) => e.kind === "message").map((e) => e.text)).toEqual(want)
    const md = cli(["show", "dddd3333", "--format", "markdown", "--index", index], { env })
    expect(md.stdout).toContain(want[0])
    expect(md.stdout).toContain(want[1])
    expect(leaks(r.stdout)).toEqual([])
  })
})
