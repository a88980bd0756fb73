/**
 * tester17 F1 and F1b through the MCP server: a title is its first prompt cut
 * to 80 characters (79 and `\u2026`) and stored so. `list_sessions`,
 * `get_session` and `search_sessions` show no part of a secret the cut went
 * through, and `search_sessions` neither finds a session by such a part nor
 * by a value a later tool input names a secret (its session's secrets, as
 * for the events it searches), nor shows one in a title or a snippet.
 */
import { claudeAssistantLine, claudeProject, claudeUserLine } from "../support/claude-import.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { callRaw, type Connected, serveClaudeRoot } from "./helpers.js"

const E = "\u2026"
// built at run time so that no secret scanner flags this file
const GHP = ["ghp", "_", "Ab1".repeat(12)].join("")
const V = ["Zebra7", "Quartz9", "Mango"].join("")
const F = "[REDACTED:secret-field]"

/**
 * The titles as shown: the first prompt (its event's text, whole) redacted, then cut to 79 characters and the
 * ellipsis when longer, so what a title shows does not depend on the length of what it hides (tester22c F1); the cut leaves
 * no part of a secret, which went whole before it.
 */
const TOKEN_TITLE = "x".repeat(39) + " [REDACTED:github-token] tail words here" // 79 characters: not cut
// the cut would go through the marker: the marker goes whole, with the space before it
const EMAIL_TITLE = "y".repeat(62) + " mail me at" + E

const TOKEN_SID = "7c070000-0000-4000-8000-000000000039"
const EMAIL_SID = "7c070000-0000-4000-8000-000000000062"
const PW_SID = "9a0b0000-0000-4000-8000-000000000001"

let dir: string
let server: Connected

const user = claudeUserLine
const assistant = claudeAssistantLine

beforeAll(async () => {
  dir = tempDir("si-titles17-")
  const { write } = claudeProject(dir)
  // the cut one character before the token's end: 39 of its 40 characters before the ellipsis
  write(TOKEN_SID, [
    user(TOKEN_SID, "u", null, "2026-08-01T00:00:00Z", "x".repeat(39) + ` ${GHP} tail words here`),
    assistant(TOKEN_SID, "a", "u", "2026-08-01T00:00:01Z", [{ type: "text", text: "ok" }])
  ])
  // the cut right after `bob.s`
  write(EMAIL_SID, [
    user(EMAIL_SID, "u", null, "2026-08-02T00:00:00Z", "y".repeat(62) + " mail me at bob.smith@example.com about the release"),
    assistant(EMAIL_SID, "a", "u", "2026-08-02T00:00:01Z", [{ type: "text", text: "ok" }])
  ])
  // a value a later tool input names a password
  write(PW_SID, [
    user(PW_SID, "u", null, "2026-08-03T00:00:00Z", `connect to the db, it is ${V} ok`),
    assistant(PW_SID, "a", "u", "2026-08-03T00:00:01Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql", env: { DB_PASSWORD: V } } }]),
    user(PW_SID, "u2", "a", "2026-08-03T00:00:02Z", [{ type: "tool_result", tool_use_id: "t1", content: `logged in with ${V}` }])
  ])
  server = await serveClaudeRoot(dir)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

const call = (name: string, args: Record<string, unknown>) => callRaw(server, name, args)

describe("tester17 F1: a title cut through a secret, in MCP answers", () => {
  it("list_sessions and get_session: the title is cut from its first prompt redacted whole (no part of a secret)", async () => {
    const { raw, answer } = await call("list_sessions", {})
    const titles = Object.fromEntries(answer.sessions.map((s: { id: string; title: string }) => [s.id, s.title]))
    expect(titles[TOKEN_SID]).toBe(TOKEN_TITLE)
    expect(titles[EMAIL_SID]).toBe(EMAIL_TITLE)
    expect(raw).not.toContain("ghp_")
    expect(raw).not.toContain("bob.s")
    const got = await call("get_session", { id: TOKEN_SID })
    expect(got.answer.session.title).toBe(TOKEN_TITLE)
    expect(got.raw).not.toContain("ghp_Ab1")
  })

  it("search_sessions finds no session by the fragment, and a hit's title shows none", async () => {
    for (const query of ["bob", "bob*", "ghp_Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab", "ghp_Ab1*"]) {
      const { answer } = await call("search_sessions", { query })
      expect(answer.count, query).toBe(0)
    }
    const { raw, answer } = await call("search_sessions", { query: "x".repeat(39) })
    expect(answer.count).toBeGreaterThan(0)
    expect(answer.hits.map((h: { title: string }) => h.title)).toContain(TOKEN_TITLE)
    expect(raw).not.toContain("ghp_Ab1")
  })
})

describe("tester17 F1b: a title's value a later tool input names a password, in search_sessions", () => {
  it("neither finds the session by it nor shows it", async () => {
    for (const query of [V, "Zebra7*"]) {
      const { answer } = await call("search_sessions", { query })
      expect(answer.count, query).toBe(0)
    }
  })

  it("a hit on another word of the title: title and snippet carry the marker", async () => {
    const { raw, answer } = await call("search_sessions", { query: "connect" })
    expect(answer.count).toBeGreaterThan(0)
    expect(raw).not.toContain(V)
    for (const h of answer.hits) expect(h.title).toBe(`connect to the db, it is ${F} ok`)
    expect(answer.hits.some((h: { field: string; snippet: string }) => h.field === "title" && h.snippet.includes(F))).toBe(true)
  })
})
