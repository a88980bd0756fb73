/**
 * Secrets under secret-named keys of a Claude Code tool call's structured
 * input (found by a fresh user, session 9): every redacted output loses
 * them (`export --format atif|ndjson`, `show`/`transcript --format
 * markdown`, `replay`), and the MCP server's `search_sessions` neither finds
 * them nor shows them in a snippet of another word's hit.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const secret = (n: number) => ["Zq9", "SECRET", "k", String(n)].join("")
const SECRETS = [1, 2, 3, 4, 5, 6].map(secret)
const leaks = (s: string) => SECRETS.filter((x) => s.includes(x))

let dir: string
let index: string
let env: Record<string, string>
let server: Connected
let file: string

beforeAll(async () => {
  dir = tempDir("si-structsecrets-")
  const proj = path.join(dir, "claude", "projects", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  const sid = "kkkkkkkk-0000-4000-8000-000000000001"
  const input = {
    env: { DB_PASSWORD: secret(1), API_KEY: secret(2), password: secret(3), clientSecret: secret(4), secretKey: secret(5) },
    args: ["deploy", "--db-password", secret(6), "--verbose"],
    note: "deploywordalpha"
  }
  const base = { sessionId: sid, cwd: "/srv/x" }
  const lines = [
    { ...base, type: "user", uuid: "u0", parentUuid: null, timestamp: "2026-08-01T00:00:00Z", message: { role: "user", content: "go" } },
    {
      ...base, type: "assistant", uuid: "a1", parentUuid: "u0", requestId: "r1", timestamp: "2026-08-01T00:00:01Z",
      message: { id: "m1", model: "claude-sonnet-4-5-20250929", role: "assistant", content: [{ type: "tool_use", id: "toolu_k", name: "CustomTool", input }], usage: { input_tokens: 1, output_tokens: 1 } }
    }
  ]
  file = path.join(proj, `${sid}.jsonl`)
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  server = await connect(["--index", index], env)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("structured secrets: the CLI's redacted outputs", () => {
  it.each([
    ["export", "kkkk", "--format", "atif"],
    ["export", "kkkk", "--format", "ndjson"],
    ["show", "kkkk", "--format", "markdown"],
    ["transcript", "claude-code", "FILE", "--format", "markdown"],
    ["replay", "kkkk"]
  ])("%s %s %s: no secret, the marker in its place", (...args) => {
    const r = cli(
      args[0] === "transcript" ? [...args.map((a) => (a === "FILE" ? file : a)), "--claude-root", path.join(dir, "claude", "projects")] : [...args, "--index", index],
      { env }
    )
    expect(r.code, r.stderr).toBe(0)
    expect(leaks(r.stdout)).toEqual([])
    expect(r.stdout).toContain("REDACTED:secret-field")
  })

  it("--no-redact keeps them (the raw record)", () => {
    const r = cli(["export", "kkkk", "--format", "ndjson", "--no-redact", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(leaks(r.stdout)).toEqual(SECRETS)
  })
})

describe("structured secrets: MCP search_sessions reads none back", () => {
  it("a query for a secret finds nothing", async () => {
    for (const s of SECRETS) {
      const a = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: s } })) as any
      expect(a.count, s).toBe(0)
    }
  })

  it("a hit on another word of the same input shows no secret in its snippet", async () => {
    for (const q of ["deploywordalpha", "CustomTool", "deploy"]) {
      const r = await server.client.callTool({ name: "search_sessions", arguments: { query: q } })
      const a = answerOf(r) as any
      expect(a.count, q).toBeGreaterThan(0)
      expect(leaks(JSON.stringify(r)), q).toEqual([])
    }
  })

  it("get_events and get_session carry none", async () => {
    for (const [name, args] of [["get_events", { id: "kkkk" }], ["get_session", { id: "kkkk" }]] as const) {
      const r = await server.client.callTool({ name, arguments: args })
      expect(leaks(JSON.stringify(r)), name).toEqual([])
    }
  })
})
