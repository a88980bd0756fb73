/**
 * A `get_events` cursor the server gave, then a copy of the session's log imported at another path into the same
 * index while the server runs: the session now has a second source holding the same events, and the server refused
 * its own earlier cursor saying "another index made it" (tester38 F4). The refusal is right (the cursor's source is
 * not the one the id now names), its reason was not: the cursor belongs to another source of this index.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "@effect/vitest"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { answerOf, connect } from "./helpers.js"

const ONE = "5c0e0a23-3838-4338-8338-000000000e01"
const TEXTS: Array<["user" | "assistant", string]> = [["user", "set up the deploy"], ["assistant", "deploy planned"], ["user", "check the logs"]]

describe("get_events: a cursor of the session's first source, once a copy of its log is a second source (tester38 F4)", () => {
  it("is refused as another source of this index, not as another index's", async () => {
    const dir = tempDir("si-cursor-second-source38-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(root, "-srv-app", `${ONE}.jsonl`), claudeTurnsLog(ONE, TEXTS, "2026-11-21T10:00:00.000Z"))
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const index = path.join(dir, "i.db")
    importClaude(index, root, agents, env)
    const server = await connect(["--index", index], env)
    try {
      const cursor = (answerOf(await server.client.callTool({ name: "get_events", arguments: { id: ONE } })).events as Array<{ cursor: string }>)[0].cursor
      // the log copied into another project folder and gone on there by one turn: a second source of the session,
      // holding the same events and one later, imported while the server runs. The later turn makes the copy the
      // session's latest source, so the id names it (two sources of equal last activity are ordered by their uids, a
      // digest of a temporary path: the copy named first only every other run, CI of session 38).
      fs.mkdirSync(path.join(root, "-srv-copy"))
      fs.writeFileSync(path.join(root, "-srv-copy", `${ONE}.jsonl`), claudeTurnsLog(ONE, [...TEXTS, ["assistant", "logs read"]], "2026-11-21T10:00:00.000Z"))
      importClaude(index, root, agents, env)
      const e = await server.client.callTool({ name: "get_events", arguments: { id: ONE, cursor } }).then(() => undefined, (err: unknown) => err)
      if (e === undefined) return expect.fail("the cursor of the first source was taken for the session the id names now")
      expect(e).toBeInstanceOf(McpError)
      expect((e as McpError).message).toMatch(new RegExp(`INVALID_CURSOR: The cursor belongs to another source of this index than session ${ONE}'s\\.`))
      expect((e as McpError).message).not.toMatch(/another index made it/)
    } finally {
      await server.close()
    }
  })
})
