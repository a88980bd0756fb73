/**
 * A session's title is cut (80 characters) from its first prompt; the cut was made on the text as imported and the
 * title redacted after, so with redaction on the title shown, scored and snippeted by `search_sessions` (and listed
 * by `list_sessions`, `get_session`, the resources) depended on the length of the hidden value: a long password
 * pushed the cut into it, the redacted title lost the words after it, every BM25 length changed and the title hit
 * fell below another (tester22c F1). docs/mcp.md: "for a given window, the hits, their order, scores and snippets are
 * the same whatever a redacted value is." Indexes of one session that differ only in its password (short, ending
 * just before and just after the cut, straddling it, very long; the same file path, so the same ids) answer alike
 * over the MCP protocol (the official SDK client over stdio).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { copyShownKey } from "../support/shown-ids.js"
import { tempDir } from "../support/paths.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const SESSION = "5c0e0a23-2323-4223-8223-000000000f23"
const PROMPT_HEAD = "deploy the billing service with PGPASSWORD="
/** Passwords of every length around the title's cut: the prompt's head is 43 characters, the cut at 79. */
const PASSWORDS = [
  "Ab1!x9",
  "Q7w!" + "e".repeat(32), // ends at 79, just before the cut
  "Q7w!" + "e".repeat(34), // ends at 81, just after it
  "Z9k!" + "deploy.billing-".repeat(4), // straddles it, words of the queries inside
  "X9z!" + "deploy.billing/".repeat(20) // very long
] as const

/** The session's lines, the password of variant `i` in them (the rest the same). */
const sessionLines = (i: number): string => {
  const pw = PASSWORDS[i]
  const texts: Array<["user" | "assistant", string]> = [
    ["user", `${PROMPT_HEAD}${pw} then deploy again and check the billing dashboard`],
    ["assistant", "deploying the billing service now"],
    ["user", "unrelated deploy note about billing"],
    ["assistant", `Done. I logged in with ${pw} and deployed it`],
    ["user", "then check the dashboard once more, and the billing service too"]
  ]
  return claudeTurnsLog(SESSION, texts, "2026-11-20T10:00:00.000Z")
}

/** Words before the cut, after it, on both sides of the password, and phrases across it. */
const QUERIES: ReadonlyArray<string> = [
  "deploy",
  "billing",
  "service",
  "then",
  "again",
  "dashboard",
  "\"then deploy\"",
  "deploy OR billing",
  "deploy -dashboard",
  "check*",
  "PGPASSWORD",
  "logged OR deployed"
]

describe("search_sessions, list_sessions, get_session with redaction on: a title does not depend on a hidden value's length (tester22c F1)", () => {
  const servers: Array<Connected> = []

  beforeAll(async () => {
    const dir = tempDir("si-title-cut-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    for (let i = 0; i < PASSWORDS.length; i++) {
      // The same file path for every variant: the same source, session and event ids.
      fs.writeFileSync(path.join(root, "-srv-app", `${SESSION}.jsonl`), sessionLines(i))
      const index = path.join(dir, `index-${i}.db`)
      importClaude(index, root, agents, env)
      // and the same shown-id key (one index's answers as its secrets vary: shown ids are keyed per index, tester23c F3)
      if (i > 0) copyShownKey(path.join(dir, "index-0.db"), index)
      servers.push(await connect(["--index", index], env))
    }
  }, 180_000)

  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  /** An answer without its hits' event cursors (they hold checksums of the line as imported: score-oracle22's note). */
  const withoutCursors = (a: { hits: Array<Record<string, unknown>> }) => ({ ...a, hits: a.hits.map(({ cursor: _, ...h }) => h) })

  const call = async (server: Connected, name: string, args: Record<string, unknown>) => answerOf(await server.client.callTool({ name, arguments: args }))

  it("every variant answers every query alike: hits, order, scores, snippets, titles, count", async () => {
    for (const query of QUERIES) {
      for (const limit of [undefined, 1, 3]) {
        const args = { query, ...(limit !== undefined ? { limit } : {}) }
        const first = withoutCursors(await call(servers[0], "search_sessions", args))
        for (let i = 1; i < servers.length; i++) {
          expect(withoutCursors(await call(servers[i], "search_sessions", args)), `${query} (limit ${limit}, password ${i})`).toEqual(first)
        }
      }
    }
  }, 180_000)

  it("the title is the first prompt redacted whole, then cut: the same in list_sessions, get_session and the resource", async () => {
    const titles: Array<unknown> = []
    for (const s of servers) {
      const listed = await call(s, "list_sessions", {})
      const got = await call(s, "get_session", { id: SESSION })
      const read = await s.client.readResource({ uri: listed.sessions[0].uri })
      const header = String((read.contents[0] as { text: string }).text).split("\n")[0]
      titles.push([listed.sessions[0].title, got.session.title, header])
    }
    // redacted, then cut at 80 (79 characters and the ellipsis)
    const title = `${PROMPT_HEAD}[REDACTED:secret-assignment] then deploy again and check `.slice(0, 79) + "\u2026"
    expect(title).toHaveLength(80)
    for (const t of titles) expect(t).toEqual([title, title, `# ${title}`])
  }, 60_000)

  it("the answers are real ones: the title is a hit of its own, ranked among the events", async () => {
    const deploy = await call(servers[0], "search_sessions", { query: "deploy" })
    const ids = deploy.hits.map((h: { eventId: string | null }) => h.eventId)
    expect(ids).toContain(null)
    expect(ids).toContain("line-1")
    const scores = deploy.hits.map((h: { score: number }) => h.score)
    expect(scores).toEqual([...scores].sort((x, y) => x - y))
    // words past the title's cut are not a title's: "dashboard" finds the events only
    const dashboard = await call(servers[0], "search_sessions", { query: "dashboard" })
    expect(dashboard.hits.map((h: { eventId: string | null }) => h.eventId).sort()).toEqual(["line-1", "line-5"])
    // "then" is in the title as cut from the redacted prompt (for the longest password, past the cut as imported)
    const then = await call(servers[4], "search_sessions", { query: "then" })
    expect(then.hits.map((h: { eventId: string | null }) => h.eventId)).toContain(null)
    for (const h of deploy.hits) for (const pw of PASSWORDS) expect(JSON.stringify(h)).not.toContain(pw)
  }, 60_000)
})
