/**
 * Session 33 (tester33a F2, HIGH): an incomplete session's title (its source's import stopped part-way or is
 * running: `sources.status` `importing`) was served by the redacting MCP server as stored, before the events that
 * decide its redaction were imported (a later tool call naming the prompt's value as `DB_PASSWORD`), and
 * `search_sessions` found the session by that value through its title. Such a title cannot be redacted yet: with
 * redaction on it is withheld (null) in `list_sessions`, `resources/list` (named by its id) and `search_sessions`
 * (never a title hit, no title on its event hits) until an import completes the session.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

const VALUE = ["Zq9x", "Wv77pp"].join("")
const SID = "eeee3333-0000-4000-8000-000000000001"
const PROMPT = `connect using ${VALUE} to the db please, then list the tables of the prod schema for me today`

let dir: string
let index: string
let env: Record<string, string>
let server: Connected

beforeAll(async () => {
  dir = tempDir("si-incomplete33-")
  const proj = path.join(dir, "claude", "projects", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  // the part of the session an import stopped after: the first prompt only (the call naming the value as
  // DB_PASSWORD, which would hide it, is not imported yet)
  const line = { sessionId: SID, cwd: "/srv/x", type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-08-01T00:00:00Z", message: { role: "user", content: PROMPT } }
  fs.writeFileSync(path.join(proj, `${SID}.jsonl`), JSON.stringify(line) + "\n")
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  // the import stopped part-way: its source is left `importing` (as a killed import leaves it)
  const db = new Database(index)
  db.prepare("UPDATE sources SET status = 'importing'").run()
  db.close()
  server = await connect(["--index", index], env)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("an incomplete session's title is withheld with redaction on (tester33a F2)", () => {
  it("list_sessions: the session is listed, incomplete, its title null", async () => {
    const list = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} })) as any
    expect(list.sessions.length).toBe(1)
    expect(list.sessions[0].status).toBe("incomplete")
    expect(list.sessions[0].title).toBeNull()
    expect(JSON.stringify(list)).not.toContain(VALUE)
  })

  it("resources/list: named by its id, no title", async () => {
    const res = await server.client.listResources()
    expect(res.resources.length).toBe(1)
    expect(JSON.stringify(res)).not.toContain(VALUE)
    expect(res.resources[0].name).toBe(SID)
  })

  it("search_sessions: no title hit by the value, and no hit carries the title", async () => {
    for (const query of [VALUE, "connect", "tables"]) {
      const hit = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query } })) as any
      expect(hit.hits.filter((h: { field: string }) => h.field === "title"), query).toEqual([])
      for (const h of hit.hits) expect(h.title, query).toBeNull()
    }
  })

  it("--no-redact: the title as stored (the case is real)", async () => {
    const raw = await connect(["--index", index, "--no-redact"], env)
    try {
      const list = answerOf(await raw.client.callTool({ name: "list_sessions", arguments: {} })) as any
      expect(list.sessions[0].title).toContain(VALUE)
    } finally {
      await raw.close()
    }
  })
})
