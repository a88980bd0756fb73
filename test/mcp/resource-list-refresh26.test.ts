/**
 * tester25b F6: a running MCP server's `resources/list` is read again from the index at each call, each title once
 * per session state (uid, generation, event count, last time): after an import appended to a session the tool call
 * that names its first prompt's value a password (`{"env": {"PGPASSWORD": …}}`), the list shows the title redacted
 * (as `list_sessions` does, docs/redaction.md) and the session's new event count, not what it listed before; a
 * session the import added is listed too.
 */
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeProject, claudeUserLine } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { callRaw, type Connected, serveClaudeRoot } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const V = ["Pp7Later", "!", "Secret"].join("")
const F = "[REDACTED:secret-field]"
const SID = "26262626-0000-4000-8000-000000000001"
const NEW_SID = "26262626-0000-4000-8000-000000000002"

let server: Connected | undefined

afterAll(async () => {
  await server?.close()
})

/** The resources the server lists now, by uri: title and description. */
const listed = async (s: Connected) =>
  Object.fromEntries((await s.client.listResources()).resources.map((r) => [r.uri, { title: r.title, description: r.description }]))

describe("tester25b F6: resources/list of a running server shows what an import changed", () => {
  it("a title a later import names a secret in is listed redacted, with the new event count", async () => {
    const dir = tempDir("si-reslist26-")
    const { root, write } = claudeProject(dir)
    const first = [
      claudeUserLine(SID, "u", null, "2026-11-01T00:00:00Z", `log in with ${V} please`),
      claudeAssistantLine(SID, "a", "u", "2026-11-01T00:00:01Z", [{ type: "text", text: "ok" }])
    ]
    write(SID, first)
    server = await serveClaudeRoot(dir)
    const before = Object.values(await listed(server))
    expect(before.length).toBe(1)
    // Not a secret yet: nothing names it one.
    expect(before[0].title).toBe(`log in with ${V} please`)
    expect(before[0].description).toContain("2 events")

    // Appended while the server runs: a tool call whose input names the value a password, and its result.
    write(SID, [
      ...first,
      claudeAssistantLine(SID, "b", "a", "2026-11-01T00:00:02Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql", env: { PGPASSWORD: V } } }]),
      claudeUserLine(SID, "u2", "b", "2026-11-01T00:00:03Z", [{ type: "tool_result", tool_use_id: "t1", content: "1 row" }])
    ])
    write(NEW_SID, [claudeUserLine(NEW_SID, "u", null, "2026-11-02T00:00:00Z", "list the files here")])
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const r = cli(["import", "--index", path.join(dir, "index.db"), "--claude-root", root, "--agents-root", path.join(dir, "none")], { env })
    expect([0, 8], r.stderr).toContain(r.code)

    const after = await listed(server)
    const text = JSON.stringify(after)
    expect(text).not.toContain("Pp7Later")
    const titles = Object.values(after).map((x) => x.title).sort()
    expect(titles).toEqual(["list the files here", `log in with ${F} please`])
    const appended = Object.values(after).find((x) => x.title === `log in with ${F} please`)!
    expect(appended.description).toContain("4 events")
    // As list_sessions shows it.
    const { answer } = await callRaw(server, "list_sessions", {})
    expect(answer.sessions.find((s: { id: string }) => s.id === SID).title).toBe(`log in with ${F} please`)
    // Asked again, unchanged: the same list.
    expect(await listed(server)).toEqual(after)
  }, 120_000)
})
