/**
 * tester19 F9: a session loaded whole (`show --format markdown|transcript`,
 * `export --format atif`, `export --format ndjson --json`, `replay`, MCP `get_session` and `session://`)
 * is held to `maxDocumentBytes`, and the error names that limit and where it
 * is raised: `{"limits": {"maxDocumentBytes": N}}` in the config file. The
 * config file must then be what decides it (it was not read by these
 * commands: the default 256 MiB held whatever the config said). Over MCP
 * the remedy is what a client can do: read the events with `get_events`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connect, type Connected } from "./mcp/helpers.js"
import { tempDir } from "./support/paths.js"
import { cli, cliJson } from "./support/run.js"

const SID = "sess-limit"
let dir = ""
let index = ""
let small = ""
let large = ""
let bytes = 0

const json = (args: ReadonlyArray<string>) => cliJson(args, { NO_COLOR: "1" })

beforeAll(() => {
  dir = tempDir("si-session-limit-")
  const sessions = path.join(dir, "agents", "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const lines = [{ type: "session_header", session_id: SID, agent_id: "a1", created_at: 1_740_816_000_000 }]
  for (let i = 1; i <= 40; i++) {
    lines.push({ type: "item", seq: i, source: "runtime", item: { type: "message", role: i % 2 === 0 ? "assistant" : "user", text: `message ${i} of a session held whole` }, created_at: 1_740_816_000_000 + i * 1000 } as any)
  }
  fs.writeFileSync(path.join(sessions, "a1.jsonl"), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  index = path.join(dir, "idx.db")
  const r = cli(["import", "--agents-root", path.join(dir, "agents"), "--index", index, "--json"], { env: { NO_COLOR: "1" } })
  expect([0, 8], r.stderr).toContain(r.code)
  // The session's size as the index counts it: the limit a config below it refuses, above it lets through.
  const shown = json(["show", SID, "--index", index])
  expect(shown.code, shown.stderr).toBe(0)
  bytes = shown.data.events.reduce((n: number, e: unknown) => n + JSON.stringify(e).length, 0)
  small = path.join(dir, "small.json")
  fs.writeFileSync(small, JSON.stringify({ limits: { maxDocumentBytes: 1000 } }))
  large = path.join(dir, "large.json")
  fs.writeFileSync(large, JSON.stringify({ limits: { maxDocumentBytes: 100 * bytes } }))
})

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("a session loaded whole is held to the config's limits.maxDocumentBytes", () => {
  it("show --format markdown|transcript, export --format atif|ndjson --json, replay: refused under a config limit below the session's size, naming how to raise it", () => {
    expect(bytes).toBeGreaterThan(1000)
    const commands = [
      ["show", SID, "--format", "markdown"],
      ["show", SID, "--format", "transcript"],
      ["export", SID, "--format", "atif"],
      ["export", SID, "--format", "ndjson"], // (with --json: one envelope, the events held whole)
      ["replay", SID, "--out", path.join(dir, `r-${Math.random()}.html`)]
    ]
    for (const c of commands) {
      const r = json([...c, "--index", index, "--config", small])
      expect(r.code, `${c.join(" ")}: ${r.stderr}`).toBe(5)
      expect(r.error.code).toBe("RESOURCE_LIMIT_EXCEEDED")
      expect(r.error.message).toContain("limited to 1000 (maxDocumentBytes)")
      expect(r.error.remediation).toContain(`{"limits": {"maxDocumentBytes": N}} in the config file`)
      expect(r.error.details.max).toBe(1000)
      // The same with a config whose limit is above it (and without a config: the default).
      const ok = json([...c.map((x) => (x.startsWith(dir) ? path.join(dir, `r-${Math.random()}.html`) : x)), "--index", index, "--config", large])
      expect(ok.code, `${c.join(" ")}: ${ok.stderr}`).toBe(0)
    }
  })

  describe("MCP (a server started with --config)", () => {
    let server: Connected
    beforeAll(async () => {
      server = await connect(["--index", index, "--config", small])
    }, 60_000)
    afterAll(async () => {
      await server.close()
    })

    const failure = async (call: () => Promise<unknown>): Promise<McpError> => {
      try {
        await call()
      } catch (e) {
        return e as McpError
      }
      throw new Error("expected a refusal")
    }

    it("get_session and session:// refuse a session over the server's limit, with get_events as the remedy; get_events still pages it", async () => {
      for (const e of [
        await failure(() => server.client.callTool({ name: "get_session", arguments: { id: SID, maxChars: 500 } }).then((r: any) => {
          if (r.isError === true) throw new McpError(-1, r.content[0].text)
          return r
        })),
        await failure(() => server.client.readResource({ uri: `session://${SID}` }))
      ]) {
        const data = (e as { data?: { code: string; remediation: string } }).data
        expect(data?.code, e.message).toBe("RESOURCE_LIMIT_EXCEEDED")
        expect(data?.remediation).toContain("get_events")
        expect(data?.remediation).toContain("mcp --config")
        expect(data?.remediation).not.toContain("export --format ndjson")
      }
      const events = await server.client.callTool({ name: "get_events", arguments: { id: SID, limit: 10 } }) as any
      expect(events.isError ?? false).toBe(false)
      expect(JSON.parse(events.content[0].text).events.length).toBe(10)
    })
  })
})
