/**
 * The suite shared by the tests of secrets told in a session's text (a line break, a tab, several breaks between
 * a credential's name and its value): one Claude Code session holding each told text (once in a prompt, then each in
 * an assistant's text and in a tool's result), imported through the built CLI; every shareable output (`show`,
 * `export`, `replay`) and every MCP answer (`get_events`, `get_session`, `session://`, through the official SDK
 * client) must hide each value and name its rule; `search_sessions` finds nothing by a value or its prefix; and each
 * search snippet is a window of the text as get_events shows it (docs/mcp.md, "A search over what is shown").
 * Used by test/mcp/prose-line-break39.test.ts and test/mcp/line-breaks40.test.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect, type Connected } from "./helpers.js"

/** A hidden value, the text it is told in, and the rule that takes it. */
export type Told = readonly [value: string, text: string, rule: string]

/** What one suite is of. */
export interface ToldSuite {
  /** The session's native id. */
  readonly sid: string
  readonly told: ReadonlyArray<Told>
  /** Texts an assistant says after the told ones (no hidden value of theirs is checked). */
  readonly more?: ReadonlyArray<string>
  /** A rule whose marker get_events must show. */
  readonly shownRule: string
  /** Words whose search snippets are checked against what get_events shows. */
  readonly words: ReadonlyArray<string>
  /** The describes' names: what is told, and the finding or session. */
  readonly what: string
  readonly tag: string
}

/** Run the suite of {@link ToldSuite}: see the module doc. */
export const toldSecretsSuite = (o: ToldSuite): void => {
  const SID = o.sid
  const TOLD = o.told
  let dir: string
  let index: string
  let env: Record<string, string>
  const servers: Array<Connected> = []


  const line = (uuid: string, parent: string | null, i: number, type: "user" | "assistant", content: unknown) => ({
    sessionId: SID, cwd: "/srv/app", type, uuid, parentUuid: parent, timestamp: `2026-11-23T10:00:${String(i).padStart(2, "0")}.000Z`,
    ...(type === "user"
      ? { message: { role: "user", content } }
      : { requestId: `req_${i}`, message: { id: `msg_${i}`, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content, usage: { input_tokens: 1, output_tokens: 1 } } })
  })

  beforeAll(() => {
    dir = tempDir("si-told-secrets-")
    const proj = path.join(dir, "claude", "projects", "-srv-app")
    fs.mkdirSync(proj, { recursive: true })
    const [first, ...rest] = TOLD
    const lines: Array<unknown> = [line("u0", null, 0, "user", first[1])]
    let parent = "u0"
    rest.forEach(([, text], k) => {
      const i = 1 + k * 3
      // each told once in an assistant's text and once in a tool's result
      lines.push(line(`a${i}`, parent, i, "assistant", [{ type: "text", text }, { type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: "cat notes.txt" } }]))
      lines.push(line(`r${i}`, `a${i}`, i + 1, "user", [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `notes: ${text}` }]))
      parent = `r${i}`
    })
    ;(o.more ?? []).forEach((text, k) => lines.push(line(`m${k}`, parent, 40 + k, "assistant", [{ type: "text", text }])))
    fs.writeFileSync(path.join(proj, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
    index = path.join(dir, "index.db")
    env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data"), NO_COLOR: "1" }
    const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude", "projects"), "--agents-root", path.join(dir, "none")], { env })
    // 8: the Muse agents root named does not exist (partial); the Claude Code session is imported whole
    expect([0, 8], r.stderr).toContain(r.code)
    expect(r.stderr).not.toContain("SOURCE_")
  }, 120_000)

  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  describe(`${o.what} is redacted in every output alike (${o.tag})`, () => {
    it.each([
      ["show --format markdown", ["show", SID, "--format", "markdown"]],
      ["export --format atif", ["export", SID, "--format", "atif"]],
      ["replay", ["replay", SID]],
      ["export --format ndjson", ["export", SID, "--format", "ndjson"]]
    ])("%s hides every value and says which rule took it", (_, args) => {
      const r = cli([...args, "--index", index], { env })
      expect(r.code, r.stderr).toBe(0)
      for (const [value, , rule] of TOLD) {
        expect(r.stdout, value).not.toContain(value)
        expect(r.stdout).toContain(`[REDACTED:${rule}]`)
      }
    })
  })

  describe(`MCP: the same text in get_events, get_session and search (${o.tag})`, () => {
    let server: Connected
    beforeAll(async () => {
      server = await connect(["--index", index], env)
      servers.push(server)
    }, 60_000)

    /** Every event's text as get_events gives it (redacted): fewer than 100 events, one page. */
    const shownEvents = async (): Promise<Map<string, string>> => {
      const page = answerOf(await server.client.callTool({ name: "get_events", arguments: { id: SID, limit: 100 } })) as any
      expect(page.done).toBe(true)
      return new Map(page.events.map((e: { eventId: string; text: string | null }) => [e.eventId, e.text ?? ""]))
    }

    it("get_events, get_session and the session:// resource hide every value", async () => {
      const events = answerOf(await server.client.callTool({ name: "get_events", arguments: { id: SID, limit: 100 } }))
      const page = answerOf(await server.client.callTool({ name: "get_session", arguments: { id: SID } }))
      const read = await server.client.readResource({ uri: `session://${SID}` })
      for (const v of [JSON.stringify(events), JSON.stringify(page), JSON.stringify(read)]) {
        for (const [value] of TOLD) expect(v, value).not.toContain(value)
      }
      expect(JSON.stringify(events)).toContain(`[REDACTED:${o.shownRule}]`)
    })

    it.each(TOLD.map(([value]) => [value]))("search_sessions for the hidden value %s finds nothing", async (value) => {
      const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: value } })) as any
      expect(found.hits).toEqual([])
      const prefix = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: `${value.slice(0, 6)}*` } })) as any
      expect(prefix.hits).toEqual([])
    })

    it("each snippet is a window of its event's text as get_events shows it (white space folded), holding the query's word", async () => {
      const events = await shownEvents()
      const folded = (s: string) => s.replace(/\s+/g, " ")
      for (const word of o.words) {
        const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: word } })) as any
        expect(found.hits.length, word).toBeGreaterThan(0)
        for (const h of found.hits) {
          if (h.field === "title") continue
          const shown = events.get(h.eventId)
          expect(shown, `${word}: ${h.eventId}`).toBeDefined()
          expect(h.field, word).toBe("text")
          const window = h.snippet.replace(/^…/, "").replace(/…$/, "")
          expect(window.toLowerCase(), word).toContain(word.toLowerCase())
          expect(folded(shown!), `${word}: ${h.snippet}`).toContain(window)
        }
      }
    })
  })
}
