/**
 * A session whose native id holds a secret (a Claude Code log named after a token: the file name is the session id),
 * served over MCP with redaction on (session 39, fix38r's leftover). Since tester38 F2 an answer shows such an id
 * redacted (`[REDACTED:github-token]`), and the event's shown cursor was made from the redacted event
 * (`shownProvenance`), while `get_events` looked for the cursor's event among the events read from the index, whose
 * id is the real one: the page's own `nextCursor` "names no event of session ghp_…", and that refusal printed the
 * token. The rules (docs/redaction.md "Cursors and offsets", docs/mcp.md):
 * - `get_events` goes on after every cursor its answers and `search_sessions` hits give, whatever the session id;
 * - the shown cursor's check is of the id as the answer shows it (never a check of the hidden one: an offline oracle);
 * - no answer, error messages included, holds the secret.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { eventCheck } from "../../src/domain/cursor.js"
import { peekShownCursor } from "../../src/domain/shown-cursor.js"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const TOKEN = "ghp_" + "R5tY".repeat(9)
const SHOWN_ID = "[REDACTED:github-token]"
const PLAIN = "5c0e0a23-3939-4339-8339-000000000e01"
const TEXTS: Array<["user" | "assistant", string]> = [
  ["user", "plan the rollout"],
  ["assistant", "rollout planned in three waves"],
  ["user", "start the canary wave"],
  ["assistant", "canary wave started"],
  ["user", "promote the canary"]
]

type Brief = { eventId: string; sequence: number; text: string; cursor: string }

describe("MCP: a session whose id holds a secret pages, searches and refuses without it (session 39)", () => {
  let server: Connected
  let uid = ""
  let plainUid = ""
  let dir = ""

  beforeAll(async () => {
    dir = tempDir("si-secret-session-id39-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(root, "-srv-app", `${TOKEN}.jsonl`), claudeTurnsLog(TOKEN, TEXTS, "2026-11-21T10:00:00.000Z"))
    // and a session of a plain id, whose page cursors are another session's
    fs.writeFileSync(path.join(root, "-srv-app", `${PLAIN}.jsonl`), claudeTurnsLog(PLAIN, TEXTS, "2026-11-20T10:00:00.000Z"))
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const index = path.join(dir, "i.db")
    importClaude(index, root, agents, env)
    server = await connect(["--index", index], env)
    const listed = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} }))
    const sessions = listed.sessions as Array<{ id: string; uid: string }>
    expect(sessions.map((s) => s.id)).toEqual([SHOWN_ID, PLAIN])
    uid = sessions[0].uid
    plainUid = sessions[1].uid
  }, 120_000)

  afterAll(async () => {
    await server?.close()
  })

  const call = async (name: string, args: Record<string, unknown>) => answerOf(await server.client.callTool({ name, arguments: args }))
  const refusal = (name: string, args: Record<string, unknown>) =>
    server.client.callTool({ name, arguments: args }).then(() => undefined, (e: unknown) => e)

  it("get_events: each page's nextCursor goes on to the next events, to the last", async () => {
    const texts: Array<string> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 10; pages++) {
      const page = await call("get_events", { id: uid, limit: 2, ...(cursor === undefined ? {} : { cursor }) })
      expect(JSON.stringify(page)).not.toContain(TOKEN)
      texts.push(...(page.events as Array<Brief>).map((e) => e.text))
      if (page.done === true) break
      cursor = page.nextCursor as string
    }
    expect(texts).toEqual(TEXTS.map(([, t]) => t))
  })

  it("the shown cursor's check is of the id as shown, not of the hidden one", async () => {
    const events = (await call("get_events", { id: uid })).events as Array<Brief>
    expect(events).toHaveLength(TEXTS.length)
    for (const e of events) {
      const place = peekShownCursor(e.cursor)
      if (place._tag === "Left") return expect.fail(`not a shown cursor: ${e.cursor}`)
      expect(place.right.seq).toBe(e.sequence)
      expect(place.right.check).toBe(eventCheck({ sessionId: SHOWN_ID, eventId: e.eventId }, e.sequence))
      expect(place.right.check).not.toBe(eventCheck({ sessionId: TOKEN, eventId: e.eventId }, e.sequence))
    }
  })

  it("search_sessions: a hit's cursor is get_events' own, and get_events goes on after it", async () => {
    const found = await call("search_sessions", { query: "canary wave started" })
    expect(JSON.stringify(found)).not.toContain(TOKEN)
    const hits = found.hits as Array<{ sessionId: string; eventId: string; cursor: string; sequence?: number }>
    const hit = hits.find((h) => h.eventId === "line-4")
    if (hit === undefined) return expect.fail(`no hit of the 4th line: ${JSON.stringify(hits)}`)
    expect(hit.sessionId).toBe(SHOWN_ID)
    const all = (await call("get_events", { id: uid })).events as Array<Brief>
    expect(hit.cursor).toBe(all[3].cursor)
    const after = await call("get_events", { id: uid, cursor: hit.cursor })
    expect((after.events as Array<Brief>).map((e) => e.text)).toEqual(["promote the canary"])
  })

  it("refusals name the session as shown: an unknown event id, a cursor of no event of it", async () => {
    const noEvent = await refusal("get_events", { id: uid, eventId: "line-99" })
    expect(noEvent).toBeInstanceOf(McpError)
    expect((noEvent as McpError).message).toContain(`No event line-99 in session ${SHOWN_ID}.`)
    expect((noEvent as McpError).message).not.toContain(TOKEN)
    // the last event's cursor with its sequence moved past the session's end: right source, no such event
    const last = ((await call("get_events", { id: uid })).events as Array<Brief>).at(-1)!
    const moved = last.cursor.replace(/\.([0-9a-z]+)\.([0-9a-f]{8})$/, (_, __, check: string) => `.${(99).toString(36)}.${check}`)
    const noCursor = await refusal("get_events", { id: uid, cursor: moved })
    expect(noCursor).toBeInstanceOf(McpError)
    expect((noCursor as McpError).message).toMatch(/^MCP error -32602: INVALID_CURSOR: /)
    expect((noCursor as McpError).message).not.toContain(TOKEN)
  })

  it("the id as shown names no session, and the refusal says to pass the uid the same answer gave", async () => {
    const e = await refusal("get_events", { id: SHOWN_ID })
    expect(e).toBeInstanceOf(McpError)
    expect((e as McpError).message).toContain(`SOURCE_NOT_FOUND: No session ${SHOWN_ID} in the index.`)
    expect((e as McpError).message).toContain("a redacted id names no session: pass the session's uid (hses_…) as the same answer gave it.")
  })

  it("get_session: a page cursor of one session given for the other names each as shown", async () => {
    const first = await call("get_session", { id: uid, maxChars: 20 })
    const plainFirst = await call("get_session", { id: plainUid, maxChars: 20 })
    const [mine, plains] = [(first.page as { nextCursor: string }).nextCursor, (plainFirst.page as { nextCursor: string }).nextCursor]
    expect(typeof mine).toBe("string")
    expect(typeof plains).toBe("string")
    const onMine = await refusal("get_session", { id: uid, maxChars: 20, cursor: plains })
    expect(onMine).toBeInstanceOf(McpError)
    expect((onMine as McpError).message).toContain(`The page cursor belongs to another session of this index, ${PLAIN} (${plainUid}), not session ${SHOWN_ID}.`)
    const onPlain = await refusal("get_session", { id: plainUid, maxChars: 20, cursor: mine })
    expect(onPlain).toBeInstanceOf(McpError)
    expect((onPlain as McpError).message).toContain(`The page cursor belongs to another session of this index, ${SHOWN_ID} (${uid}), not session ${PLAIN}.`)
    for (const e of [onMine, onPlain]) expect((e as McpError).message).not.toContain(TOKEN)
  })
})

describe("MCP: a session too large to load whole, whose id holds a secret (session 39)", () => {
  it("get_session's RESOURCE_LIMIT_EXCEEDED names it as shown", async () => {
    const dir = tempDir("si-secret-session-id39-limit-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(root, "-srv-app", `${TOKEN}.jsonl`), claudeTurnsLog(TOKEN, TEXTS, "2026-11-21T10:00:00.000Z"))
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const index = path.join(dir, "i.db")
    importClaude(index, root, agents, env)
    const config = path.join(dir, "small.json")
    fs.writeFileSync(config, JSON.stringify({ limits: { maxDocumentBytes: 200 } }))
    const server = await connect(["--index", index, "--config", config], env)
    try {
      const uid = ((answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} })).sessions) as Array<{ uid: string }>)[0].uid
      const e = await server.client.callTool({ name: "get_session", arguments: { id: uid } }).then(() => undefined, (err: unknown) => err)
      expect(e).toBeInstanceOf(McpError)
      const message = (e as McpError).message
      expect(message).toContain("RESOURCE_LIMIT_EXCEEDED")
      expect(message).toContain(`Session ${SHOWN_ID} holds `)
      expect(message).toContain("limited to 200 (maxDocumentBytes)")
      expect(message).not.toContain(TOKEN)
    } finally {
      await server.close()
    }
  }, 120_000)
})
