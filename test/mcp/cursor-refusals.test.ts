/**
 * `get_events` refuses a cursor it cannot take with `INVALID_CURSOR` (-32602), and its message names what is wrong
 * with that cursor (tester31c F5; docs/mcp.md, docs/redaction.md "Cursors and offsets"):
 * - a token that is no cursor (`hello`, `none`, `s1.abc.5.zz`): malformed, on either server;
 * - a stream cursor on a redacting server, a shown cursor (of the same session, same index) on a `--no-redact` one:
 *   the server takes the kind its answers give;
 * - a shown cursor of this session made by another index (another key: a second SQLite index, the PostgreSQL team
 *   index): another index made it, this one cannot verify it;
 * - a shown cursor of another source of this index: another source; one of another index naming a session this one
 *   does not hold: not made by this index;
 * - a stream cursor of another source (`--no-redact`): another source; an edited sequence: no event of the session.
 * And `stream --cursor` (the CLI) says the same reasons for the same mistakes.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { freshDatabase } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const ONE = "5c0e0a23-2323-4323-8323-000000000e01"
const TWO = "5c0e0a23-2323-4323-8323-000000000e02"
const TEXTS: Array<["user" | "assistant", string]> = [
  ["user", "set up the deploy of the billing service"],
  ["assistant", "deploy planned"],
  ["user", "check the deploy logs"],
  ["assistant", "the deploy logs are clean"]
]

const MALFORMED = /^MCP error -32602: INVALID_CURSOR: The cursor token is malformed/
const STREAM_ON_REDACTED = /INVALID_CURSOR: With redaction on, get_events takes the shown cursors \(s1\.…\) its answers give, not a stream cursor/
const SHOWN_ON_PLAIN = /INVALID_CURSOR: With redaction off \(--no-redact\), get_events takes the stream cursors \(c2\.…\) its answers give, not a shown cursor/
const OTHER_INDEX = new RegExp(`INVALID_CURSOR: The cursor names an event of session ${ONE}, but another index made it .*cannot verify it`)
const OTHER_SOURCE_HERE = new RegExp(`INVALID_CURSOR: The cursor belongs to another source of this index than session ${ONE}'s\\.`)
const NOT_THIS_INDEX = /INVALID_CURSOR: The cursor was not made by this index: its source tag names none of this index's sources/
const OTHER_SOURCE = new RegExp(`INVALID_CURSOR: The cursor belongs to another source than session ${ONE}'s\\.`)
const NO_EVENT = new RegExp(`INVALID_CURSOR: The cursor names no event of session ${ONE}`)

describe("get_events: an INVALID_CURSOR message names the cursor's real problem (tester31c F5)", () => {
  let dir = ""
  let root = ""
  let env: Record<string, string> = {}
  const servers: Record<string, Connected> = {}

  beforeAll(async () => {
    dir = tempDir("si-cursor-refusals-")
    root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    // two sessions, each its own file: two sources
    fs.writeFileSync(path.join(root, "-srv-app", `${ONE}.jsonl`), claudeTurnsLog(ONE, TEXTS, "2026-11-21T10:00:00.000Z"))
    fs.writeFileSync(path.join(root, "-srv-app", `${TWO}.jsonl`), claudeTurnsLog(TWO, TEXTS, "2026-11-21T11:00:00.000Z"))
    env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    // a.db holds both; b.db only ONE (made apart: another key); the team index both
    importClaude(path.join(dir, "a.db"), root, agents, env)
    const onlyOne = path.join(dir, "only-one", "projects")
    fs.mkdirSync(path.join(onlyOne, "-srv-app"), { recursive: true })
    fs.copyFileSync(path.join(root, "-srv-app", `${ONE}.jsonl`), path.join(onlyOne, "-srv-app", `${ONE}.jsonl`))
    importClaude(path.join(dir, "b.db"), onlyOne, agents, env)
    const url = await freshDatabase()
    const migrated = cli(["index", "migrate", "--index", url, "--json"], { env })
    expect(migrated.code, migrated.stderr).toBe(0)
    importClaude(url, root, agents, env)
    servers.a = await connect(["--index", path.join(dir, "a.db")], env)
    servers.plain = await connect(["--index", path.join(dir, "a.db"), "--no-redact"], env)
    servers.b = await connect(["--index", path.join(dir, "b.db")], env)
    servers.pg = await connect(["--index", url], env)
  }, 120_000)

  afterAll(async () => {
    for (const s of Object.values(servers)) await s.close()
  })

  const events = async (server: Connected, id: string): Promise<Array<{ eventId: string; cursor: string }>> =>
    answerOf(await server.client.callTool({ name: "get_events", arguments: { id } })).events
  /** The error `get_events` after `cursor` fails with: an MCP error -32602 INVALID_CURSOR (the server keeps serving). */
  const refusal = async (server: Connected, id: string, cursor: string): Promise<string> => {
    const e = await server.client.callTool({ name: "get_events", arguments: { id, cursor } }).then(
      () => undefined,
      (err: unknown) => err
    )
    expect(e, cursor).toBeInstanceOf(McpError)
    expect((e as McpError).code).toBe(-32602)
    expect(((e as McpError).data as { code: string }).code).toBe("INVALID_CURSOR")
    expect((await events(server, id)).length).toBe(TEXTS.length)
    return (e as McpError).message
  }

  it("a token that is no cursor is malformed on both servers, not 'a stream cursor'", async () => {
    for (const token of ["hello", "none", "s1.abc.5.zz", "c2.zz", "s1." + "0".repeat(16) + ".5"]) {
      for (const server of [servers.a, servers.plain]) {
        const m = await refusal(server, ONE, token)
        expect(m, token).toMatch(MALFORMED)
        expect(m, token).not.toMatch(/stream cursor|shown cursor|another/)
      }
    }
  })

  it("each server takes the kind of cursor its answers give, and says so of the other kind", async () => {
    const shown = (await events(servers.a, ONE))[1].cursor
    const stream = (await events(servers.plain, ONE))[1].cursor
    expect(shown).toMatch(/^s1\./)
    expect(stream).toMatch(/^c2\./)
    // the same session's event, on the same index: only the kind is wrong
    expect(await refusal(servers.plain, ONE, shown)).toMatch(SHOWN_ON_PLAIN)
    expect(await refusal(servers.a, ONE, stream)).toMatch(STREAM_ON_REDACTED)
    // and each is taken where it belongs
    const after = (c: string, s: Connected) => s.client.callTool({ name: "get_events", arguments: { id: ONE, cursor: c, limit: 1 } }).then(answerOf)
    expect((await after(shown, servers.a)).events[0].eventId).toBe((await events(servers.a, ONE))[2].eventId)
    expect((await after(stream, servers.plain)).events[0].eventId).toBe((await events(servers.plain, ONE))[2].eventId)
  })

  it("a shown cursor of this session made by another index (SQLite or the team index) says another index made it", async () => {
    const ofA = (await events(servers.a, ONE))[2].cursor
    const ofB = (await events(servers.b, ONE))[2].cursor
    const ofPg = (await events(servers.pg, ONE))[2].cursor
    expect(new Set([ofA, ofB, ofPg]).size).toBe(3)
    expect(await refusal(servers.b, ONE, ofA)).toMatch(OTHER_INDEX)
    expect(await refusal(servers.pg, ONE, ofA)).toMatch(OTHER_INDEX)
    expect(await refusal(servers.a, ONE, ofPg)).toMatch(OTHER_INDEX)
    expect(await refusal(servers.a, ONE, ofB)).toMatch(OTHER_INDEX)
  })

  it("a cursor of another source: of this index, of no source it holds, or a stream cursor", async () => {
    // TWO's shown cursor from this index, given with ONE
    expect(await refusal(servers.a, ONE, (await events(servers.a, TWO))[1].cursor)).toMatch(OTHER_SOURCE_HERE)
    expect(await refusal(servers.pg, ONE, (await events(servers.pg, TWO))[1].cursor)).toMatch(OTHER_SOURCE_HERE)
    // TWO's shown cursor of the team index, on b.db (which holds no TWO): not this index's
    expect(await refusal(servers.b, ONE, (await events(servers.pg, TWO))[1].cursor)).toMatch(NOT_THIS_INDEX)
    // a made-up tag and check
    const first = (await events(servers.a, ONE))[1].cursor
    expect(await refusal(servers.a, ONE, first.replace(/^s1\.[0-9a-f]{16}/, "s1." + "0".repeat(16)).replace(/[0-9a-f]{8}$/, "0".repeat(8)))).toMatch(NOT_THIS_INDEX)
    // without redaction, TWO's stream cursor given with ONE
    expect(await refusal(servers.plain, ONE, (await events(servers.plain, TWO))[1].cursor)).toMatch(OTHER_SOURCE)
    // the right source, an edited sequence: no event of the session
    const edited = first.replace(/\.([0-9a-z]+)\.([0-9a-f]{8})$/, (_m, seq: string, check: string) => `.${(parseInt(seq, 36) + 1).toString(36)}.${check}`)
    expect(await refusal(servers.a, ONE, edited)).toMatch(NO_EVENT)
  })

  it("stream --cursor gives the same reasons for the same mistakes", async () => {
    const file = path.join(root, "-srv-app", `${ONE}.jsonl`)
    const stream = (cursor: string) => {
      const r = cli(["stream", "claude-code", file, "--claude-root", root, "--cursor", cursor], { env })
      expect(r.code, r.stderr).toBe(5)
      expect(r.stderr).toContain("INVALID_CURSOR")
      return r.stderr
    }
    for (const token of ["hello", "none", "s1.abc.5.zz", "c2.zz"]) {
      const m = stream(token)
      expect(m, token).toContain("The cursor token is malformed")
      expect(m, token).not.toContain("redacted output")
    }
    // a shown cursor (of this very session): a redacted output's, which names no place in the source
    expect(stream((await events(servers.a, ONE))[1].cursor)).toContain("The cursor is a redacted output's (s1.)")
    // another source's stream cursor
    expect(stream((await events(servers.plain, TWO))[1].cursor)).toContain("The cursor belongs to another source.")
  })
})
