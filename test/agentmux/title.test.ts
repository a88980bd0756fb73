/**
 * An AgentMux session is titled by its first prompt (tester31a F4), as every conversation provider titles one
 * (docs/providers.md): AgentMux records no title and the seeds are silent, so the session gets what a user of such a
 * tool expects, by the rule Claude Code's and Muse agents' first prompts follow: the text of the first user line that
 * is a person's prompt (no `tool_result` block, no `parent_tool_use_id`), white space runs (newlines, tabs) made one
 * space, trimmed, cut to 80 characters the last of which is `…`. Its discovery reads no session's lines, so the
 * title comes with the read (`StreamOptions.onTitle`), and stays when a later import resumes after an append. It is
 * what `sessions`, `show`, the replay, ATIF and MCP's `list_sessions` show, on a SQLite index and on the PostgreSQL
 * team index a push fills; the shareable outputs redact it as they redact every title (docs/redaction.md).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { freshDatabase } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, type Connected, connect } from "../mcp/helpers.js"
import { layout } from "./fixture.js"
import { appendBytes, createStore, tsidxRecord, withStore } from "./store-helper.js"

const j = (v: unknown) => JSON.stringify(v)
const init = (sid: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/x", session_id: sid, model: "claude-sonnet-4-5", tools: [] })
const userLine = (sid: string, content: unknown, extra: Record<string, unknown> = {}) =>
  j({ type: "user", message: { role: "user", content }, session_id: sid, ...extra })
const answer = (sid: string, id: string, text: string) =>
  j({
    type: "assistant",
    message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } },
    session_id: sid
  })

const ZONE = "agent:u1:current"
const TOKEN = "ghp_" + "Q7x".repeat(12)
/** S-A's first prompt: longer than a title, with a newline, a tab and runs of spaces, and a token inside the cut. */
const LONG = `  Deploy the billing\nservice\twith token ${TOKEN} then   check the logs of every region, carefully please  `
/** The title the rule gives of LONG, worked out by hand: one space per white space run, trimmed, 79 characters and `…`. */
const LONG_TITLE = `Deploy the billing service with token ${TOKEN} then check the logs`.slice(0, 79) + "\u2026"
/** S-B: a short prompt in text blocks (two, joined by a newline: one space in the title), after a tool result alone. */
const SHORT_TITLE = "fix the flaky test in the auth suite"

const LINES = [
  init("S-A"),
  userLine("S-A", LONG),
  answer("S-A", "m1", "on it"),
  userLine("S-A", "and the second prompt"),
  answer("S-A", "m2", "done"),
  init("S-B"),
  // a user line of a tool result only, and a subagent's prompt (its parent's tool call): neither is the person's prompt
  userLine("S-B", [{ type: "tool_result", tool_use_id: "toolu_0", content: "stale output" }]),
  userLine("S-B", "a subagent's own prompt", { parent_tool_use_id: "toolu_1" }),
  userLine("S-B", [{ type: "text", text: "fix the flaky test" }, { type: "text", text: "in the auth suite" }]),
  answer("S-B", "m3", "fixed"),
  // no prompt at all: untitled
  init("S-C"),
  answer("S-C", "m4", "nothing asked")
]

describe("AgentMux sessions are titled by their first prompt (tester31a F4)", () => {
  let dir = ""
  let store = ""
  let index = ""
  let env: Record<string, string> = {}
  const servers: Array<Connected> = []
  const importArgs = () => ["--store", store, "--agent", "u1", "--state", nodePath.join(dir, "state.db"), "--claude-root", nodePath.join(dir, "none"), "--agents-root", nodePath.join(dir, "none")]

  beforeAll(() => {
    dir = tempDir("si-am-title-")
    store = nodePath.join(dir, "filestore.db")
    const laid = layout(LINES)
    const tsidx = laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1, 12) + i * 1000)).join("")
    createStore(store, [
      { zoneId: ZONE, name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
      { zoneId: ZONE, name: "output.tsidx", bytes: Buffer.from(tsidx) }
    ])
    env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    index = nodePath.join(dir, "index.db")
    const r = cli(["import", "--index", index, ...importArgs(), "--json"], { env })
    expect([0, 8], r.stderr).toContain(r.code)
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  const titles = (at: string): Record<string, string | null> => {
    const r = cli(["sessions", "--index", at, "--json"], { env })
    expect(r.code, r.stderr).toBe(0)
    return Object.fromEntries(JSON.parse(r.stdout).data.map((s: { sessionId: string; title: string | null }) => [s.sessionId, s.title]))
  }

  it("sessions: the first prompt's title, clipped and on one line; a session without a prompt untitled", () => {
    expect(LONG_TITLE.length).toBe(80)
    expect(titles(index)).toEqual({ "S-A": LONG_TITLE, "S-B": SHORT_TITLE, "S-C": null })
    // the table too
    const table = cli(["sessions", "--index", index], { env })
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toContain(SHORT_TITLE)
  })

  it("show heads the transcript with it; the replay and ATIF show it redacted", () => {
    const shown = cli(["show", "S-B", "--index", index, "--format", "transcript"], { env })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout.split("\n").slice(0, 3).join("\n")).toContain(SHORT_TITLE)
    const md = cli(["show", "S-A", "--index", index, "--format", "markdown"], { env })
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(md.stdout).not.toContain(TOKEN)

    const out = nodePath.join(dir, "a.html")
    const replay = cli(["replay", "S-A", "--index", index, "--out", out], { env })
    expect(replay.code, replay.stderr).toBe(0)
    const html = fs.readFileSync(out, "utf8")
    expect(html).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(html).not.toContain(TOKEN)
    expect(html).not.toContain(TOKEN.slice(0, 12))

    const atif = cli(["export", "S-B", "--index", index, "--format", "atif"], { env })
    expect(atif.code, atif.stderr).toBe(0)
    expect(JSON.stringify(JSON.parse(atif.stdout))).toContain(`"title":"${SHORT_TITLE}"`)
    const atifA = cli(["export", "S-A", "--index", index, "--format", "atif"], { env })
    expect(atifA.code, atifA.stderr).toBe(0)
    expect(atifA.stdout).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(atifA.stdout).not.toContain(TOKEN.slice(0, 12))
  })

  it("MCP list_sessions lists it (redacted)", async () => {
    const server = await connect(["--index", index], env)
    servers.push(server)
    const listed = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} })) as { sessions: Array<{ id: string; title: string | null }> }
    const byId = Object.fromEntries(listed.sessions.map((s) => [s.id, s.title]))
    expect(byId["S-B"]).toBe(SHORT_TITLE)
    expect(byId["S-C"]).toBeNull()
    expect(byId["S-A"]).toMatch(/^Deploy the billing service with token \[REDACTED:github-token\]/)
    expect(byId["S-A"]).not.toContain(TOKEN.slice(0, 12))
  })

  it("a later import that resumes after an append keeps the title", () => {
    const more = [userLine("S-B", "a third prompt, appended"), answer("S-B", "m5", "ok")]
    withStore(store, (db) => {
      const size = (db.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = 'output'").get(ZONE) as { size: number }).size
      const laid = layout(more)
      appendBytes(db, ZONE, "output", laid.bytes)
      appendBytes(db, ZONE, "output.tsidx", Buffer.from(laid.lines.map((l, i) => tsidxRecord(size + l.start, Date.UTC(2026, 0, 1, 13) + i)).join("")))
    })
    const r = cli(["import", "--index", index, ...importArgs(), "--json"], { env })
    expect([0, 8], r.stderr).toContain(r.code)
    const added = JSON.parse(r.stdout).data
    expect(JSON.stringify(added)).toMatch(/"eventsAdded":2\b|"events":2\b/)
    expect(titles(index)).toEqual({ "S-A": LONG_TITLE, "S-B": SHORT_TITLE, "S-C": null })
  })

  it("the team index (PostgreSQL) a push fills holds the same titles", async () => {
    const url = await freshDatabase()
    const migrated = cli(["index", "migrate", "--index", url, "--json"], { env })
    expect(migrated.code, migrated.stderr).toBe(0)
    const pushed = cli(["push", "--from", index, "--to", url], { env })
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(titles(url)).toEqual({ "S-A": LONG_TITLE, "S-B": SHORT_TITLE, "S-C": null })
    // and an import straight into it
    const direct = await freshDatabase()
    expect(cli(["index", "migrate", "--index", direct, "--json"], { env }).code).toBe(0)
    const r = cli(["import", "--index", direct, ...importArgs(), "--json"], { env })
    expect([0, 8], r.stderr).toContain(r.code)
    expect(titles(direct)).toEqual({ "S-A": LONG_TITLE, "S-B": SHORT_TITLE, "S-C": null })
  })
})
