/**
 * Session 35 (dev35c) through the CLI and the MCP server: a secret cut by a shell line continuation inside a
 * `secret-field` value (`api_key: …\`), inside a `secret-line` value (`db.password = …\`), between a header's name and
 * its value (`X-Api-Key: \`), and one with a line break inside another rule's quoted value (`--password "…` then
 * `…"`), each in a Claude Code session's first prompt (the title) and in a Bash call's command (JSON input), its
 * output restating the value joined (as the shell read it: a caught value is looked for joined too). No piece
 * of 4 characters of a secret is left in `show --format markdown`, `replay` (title and body), `export --format atif`,
 * nor in the MCP server's `search_sessions` (neither found nor shown), `get_session` and `get_events`.
 */
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"
import { claudeAssistantLine, claudeProject, claudeUserLine } from "./support/claude-import.js"
import { callRaw, type Connected, serveClaudeRoot } from "./mcp/helpers.js"

// built at run time so that no secret scanner flags this file: each secret's two pieces, around the break
const CASES = [
  { sid: "35353535-0000-4000-8000-000000000001", what: "secret-field", a: "Qv7Lm2Xr", b: "Tz9Kp4Wn", text: (a: string, b: string) => `set api_key: ${a}\\\n${b} then deploy` },
  { sid: "35353535-0000-4000-8000-000000000002", what: "secret-line", a: "Hj4Wq8Zc", b: "Ny3Rv6Ud", text: (a: string, b: string) => `write db.password = ${a}\\\n\\\n${b}\nhost = db` },
  { sid: "35353535-0000-4000-8000-000000000003", what: "header", a: "Fk2Gm5Yb", b: "Lx8Sp1Ew", text: (a: string, b: string) => `curl -H 'X-Api-Key: \\\n  ${a}${b}' https://api.example.com` },
  { sid: "35353535-0000-4000-8000-000000000004", what: "quoted", a: "Wd6Jt3Kq", b: "Bz5Cv9Mh", text: (a: string, b: string) => `tool --password "${a}\n${b}" --verbose` }
] as const

/** The 4-character pieces of `secret` that `out` still shows (none expected). */
const pieces = (out: string, secret: string): Array<string> => {
  const left: Array<string> = []
  for (let i = 0; i + 4 <= secret.length; i++) if (out.includes(secret.slice(i, i + 4))) left.push(secret.slice(i, i + 4))
  return left
}

let dir: string
let index: string
let env: Record<string, string>
let server: Connected

beforeAll(async () => {
  dir = tempDir("si-continuation35-")
  const project = claudeProject(dir)
  for (const c of CASES) {
    const text = c.text(c.a, c.b)
    project.write(c.sid, [
      claudeUserLine(c.sid, "u0", null, "2026-12-05T00:00:00Z", text),
      claudeAssistantLine(c.sid, "a0", "u0", "2026-12-05T00:00:01Z", [
        { type: "text", text: "Running it." },
        { type: "tool_use", id: `t-${c.what}`, name: "Bash", input: { command: text } }
      ]),
      // the tool's output restates the value whole, as the shell read it (a caught value is looked for joined too)
      claudeUserLine(c.sid, "u1", "a0", "2026-12-05T00:00:02Z", [{ type: "tool_result", tool_use_id: `t-${c.what}`, content: c.what === "quoted" ? "done zebra" : `set ${c.a}${c.b}, done zebra` }])
    ])
  }
  // the import into dir/index.db, then the MCP server on it (the CLI's commands below read the same index)
  server = await serveClaudeRoot(dir)
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
}, 180_000)

afterAll(async () => {
  await server?.close()
})

const run = (args: ReadonlyArray<string>) => {
  const r = cli([...args, "--index", index], { env })
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

describe("session 35: a secret cut by a continuation or a quoted line break, in every shared output", () => {
  for (const c of CASES) {
    it(`${c.what}: show --format markdown, replay, export --format atif`, () => {
      const secret = c.a + c.b
      const md = run(["show", c.sid, "--format", "markdown"])
      const html = run(["replay", c.sid])
      const atif = run(["export", c.sid, "--format", "atif"])
      for (const [label, out] of [["markdown", md], ["replay", html], ["atif", atif]] as const) {
        expect(pieces(out, secret), label).toEqual([])
        expect(out, label).toContain("[REDACTED:")
      }
      // the title (the Markdown's heading, the replay's <title>) shows the prompt's words, not the secret
      expect(md.split("\n")[0]).toMatch(/^# /)
      expect(html).toMatch(/<title>[^<]*REDACTED/)
    })
  }

  it("MCP: search_sessions neither finds a session by a piece of its secret nor shows one; get_session, get_events hide them", async () => {
    for (const c of CASES) {
      const secret = c.a + c.b
      for (const query of [c.a, c.b, `${c.b}*`]) {
        const { raw, answer } = await callRaw(server, "search_sessions", { query })
        expect(pieces(raw, secret), query).toEqual([])
        expect(answer.count, query).toBe(0)
      }
      const got = await callRaw(server, "get_session", { id: c.sid })
      expect(pieces(got.raw, secret), c.what).toEqual([])
      const events = await callRaw(server, "get_events", { id: c.sid, limit: 10 })
      expect(pieces(events.raw, secret), c.what).toEqual([])
      expect(events.raw).toContain("REDACTED")
    }
    // a word beside them still finds the sessions, and their snippets hide the secrets
    const { raw, answer } = await callRaw(server, "search_sessions", { query: "zebra" })
    expect(answer.count).toBeGreaterThan(0)
    for (const c of CASES) expect(pieces(raw, c.a + c.b), c.what).toEqual([])
  })
})
