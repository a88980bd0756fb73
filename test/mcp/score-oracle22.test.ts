/**
 * The redacted `search_sessions` is no oracle through its ranking (tester22b F1): a query that pairs a visible word
 * with a guess at a hidden value (`creds OR "ghp K"*`, `logged OR <password>`) got a better BM25 score (over the text
 * as imported) when the guess was right, so a client read a GitHub token back one character at a time. docs/mcp.md:
 * "the answer is the same whatever a redacted value is". Two indexes of one session, identical but for a GitHub
 * token and a password (same lengths, same file path, so the same ids and cursors), answer every query alike over
 * the MCP protocol (the official SDK client over stdio): the same hits, in the same order, with the same scores and
 * snippets.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { copyShownKey } from "../support/shown-ids.js"
import { tempDir } from "../support/paths.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const SESSION = "5c0e0a22-2222-4222-8222-000000000f01"
const TOKENS = ["ghp_" + "K7q".repeat(12), "ghp_" + "Zx4".repeat(12)] as const
const PASSWORDS = ["PgQP6sUHpzes!x", "Tr8vLm2NcwQa!x"] as const

/** The session's lines, the secrets of variant `i` in them (the rest the same). */
const sessionLines = (i: 0 | 1): string => {
  const token = TOKENS[i], pw = PASSWORDS[i]
  const texts: Array<["user" | "assistant", string]> = [
    ["user", `creds for the deploy: ${token}`],
    ["assistant", "creds noted, I will use them for the deploy"],
    ["user", `PGPASSWORD=${pw} psql -h db.internal -U app`],
    ["assistant", `Done. I logged in with ${pw} and the env file is written`],
    ["user", "creds creds rotated last week"],
    ["assistant", "logged the env change"],
    ["user", "more creds talk here, with many more words to make this document longer than the others around it"]
  ]
  return claudeTurnsLog(SESSION, texts, "2026-11-20T10:00:00.000Z")
}

/** Queries pairing a visible word with right and wrong guesses at either variant's secrets (as tester22b's scripts). */
const QUERIES: ReadonlyArray<string> = [
  "creds",
  ...TOKENS.flatMap((t) => [1, 2, 3, 6].map((n) => `creds OR "ghp ${t.slice(4, 4 + n)}"*`)),
  ...TOKENS.map((t) => `creds OR ${t.slice(0, 10)}*`),
  ...TOKENS.map((t) => `creds OR ${t}`),
  "creds OR \"ghp qqqqzzzz\"*",
  ...PASSWORDS.flatMap((p) => [`logged OR ${p.slice(0, 12)}`, `logged OR ${p.slice(0, 4)}*`, `(logged OR ${p.slice(0, 12)}) env`, `env OR ${p.slice(0, 2)}*`]),
  "logged OR WRONG",
  "deploy OR creds OR logged OR env"
]

describe("search_sessions with redaction on: the score and order read no secret back (tester22b F1)", () => {
  const servers: Array<Connected> = []

  beforeAll(async () => {
    const dir = tempDir("si-score-oracle-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    for (const i of [0, 1] as const) {
      // The same file path for both variants: the same source, session and event ids and cursors.
      fs.writeFileSync(path.join(root, "-srv-app", `${SESSION}.jsonl`), sessionLines(i))
      const index = path.join(dir, `index-${i}.db`)
      importClaude(index, root, agents, env)
      // and the same shown-id key (one index's answers as its secret varies: shown ids are keyed per index, tester23c F3)
      if (i > 0) copyShownKey(path.join(dir, "index-0.db"), index)
      servers.push(await connect(["--index", index], env))
    }
  }, 120_000)

  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  const search = async (server: Connected, query: string, limit?: number) =>
    answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query, ...(limit !== undefined ? { limit } : {}) } }))

  it("both indexes answer every query alike: hits, order, scores, snippets, count", async () => {
    for (const query of QUERIES) {
      for (const limit of [undefined, 1, 3]) {
        const [a, b] = [await search(servers[0], query, limit), await search(servers[1], query, limit)]
        expect(a, `${query} (limit ${limit})`).toEqual(b)
      }
    }
  }, 120_000)

  it("the answers are real ones: the visible words are found and ranked, the hidden ones are not found", async () => {
    const creds = await search(servers[0], "creds")
    // the four events saying creds, and the title (the first prompt); ranked, best first
    expect(creds.hits.map((h: { eventId: string | null }) => h.eventId).sort()).toEqual([null, "line-1", "line-2", "line-5", "line-7"].sort())
    const scores = creds.hits.map((h: { score: number }) => h.score)
    expect(scores).toEqual([...scores].sort((x, y) => x - y))
    expect(new Set(scores).size).toBeGreaterThan(1)
    // the event saying creds twice ranks above the long one saying it once
    const at = (id: string) => creds.hits.findIndex((h: { eventId: string | null }) => h.eventId === id)
    expect(at("line-5")).toBeLessThan(at("line-7"))
    // a hidden value alone finds nothing, nor does its prefix
    expect((await search(servers[0], `${TOKENS[0].slice(0, 10)}*`)).count).toBe(0)
    expect((await search(servers[0], PASSWORDS[0].slice(0, 12))).count).toBe(0)
    expect(JSON.stringify(creds)).not.toContain(TOKENS[0])
  }, 60_000)
})
