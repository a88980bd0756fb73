/**
 * Finding F9 of tester 18: on a team index (PostgreSQL) the machine a session
 * came from is shown. The same Claude Code fixtures imported with
 * `--machine alice-laptop` and `--machine ci-runner-7` are two copies of each
 * session; `sessions --json`, `show --json`, `search --json` and the MCP
 * tools `list_sessions`, `search_sessions`, `get_session` carry each copy's
 * `machine`; the text tables name it (rows from more than one machine);
 * `--machine NAME` (MCP: `machine`) keeps only that machine's. On a SQLite
 * index (one machine's) `machine` is null, the text output has no machine,
 * and a machine filter is INVALID_ARGUMENT.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { copyFixtures } from "../claude-code/helpers.js"
import { connect, answerOf, type Connected } from "../mcp/helpers.js"
import { tempDir } from "../support/paths.js"
import { freshDatabase } from "../support/pg.js"
import { importClaude } from "../support/claude-import.js"
import { cli, cliJson } from "../support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const MACHINES = ["alice-laptop", "ci-runner-7"]
/** The fixture session `search invoice` finds (billing-api). */
const BILLING_SESSION = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37"

let url = ""
let sqlite = ""
let dir = ""

const json = (args: ReadonlyArray<string>) => cliJson(args, env)

beforeAll(async () => {
  dir = tempDir("si-pg-machine-")
  const root = copyFixtures()
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  url = await freshDatabase()
  expect(cli(["index", "migrate", "--index", url], { env }).code).toBe(0)
  for (const m of MACHINES) importClaude(url, root, agents, env, m)
  sqlite = path.join(dir, "i.db")
  importClaude(sqlite, root, agents, env)
}, 180_000)

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("team index: the machine of each session", () => {
  it("sessions --json: every row carries its machine; each session once per machine", () => {
    const all = json(["sessions", "--index", url])
    expect(all.code, all.stderr).toBe(0)
    const rows = all.data as Array<{ sessionId: string; machine: string | null }>
    expect(rows.length).toBeGreaterThan(0)
    const ids = [...new Set(rows.map((r) => r.sessionId))]
    expect(rows.length).toBe(ids.length * 2)
    for (const id of ids) {
      expect(rows.filter((r) => r.sessionId === id).map((r) => r.machine).sort()).toEqual(MACHINES)
    }
  })

  it("sessions --machine NAME keeps only that machine's sessions; an unknown name keeps none", () => {
    const all = json(["sessions", "--index", url]).data as Array<{ machine: string }>
    const alice = json(["sessions", "--index", url, "--machine", "alice-laptop"])
    expect(alice.code, alice.stderr).toBe(0)
    expect(alice.data.length).toBe(all.filter((r) => r.machine === "alice-laptop").length)
    expect(alice.data.length).toBeGreaterThan(0)
    expect(new Set(alice.data.map((r: { machine: string }) => r.machine))).toEqual(new Set(["alice-laptop"]))
    const none = json(["sessions", "--index", url, "--machine", "alice"])
    expect([none.code, none.data]).toEqual([0, []])
  })

  it("sessions (text): a machine column when the rows come from two machines, none for one machine's", () => {
    const r = cli(["sessions", "--index", url], { env })
    expect(r.code, r.stderr).toBe(0)
    const [head, ...lines] = r.stdout.trimEnd().split("\n")
    expect(head).toMatch(/^last activity +provider +machine +events /)
    // The table's rows (not the notes under it, `* <session>: … counted in session …`, which name sessions too).
    const rows = lines.filter((l) => l.includes(BILLING_SESSION) && !l.startsWith("*"))
    expect(rows.length).toBe(2)
    expect(rows.map((l) => MACHINES.find((m) => l.includes(` ${m} `))).sort()).toEqual(MACHINES)
    const one = cli(["sessions", "--index", url, "--machine", "ci-runner-7"], { env })
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout.split("\n")[0]).not.toContain("machine")
    expect(one.stdout).not.toContain("ci-runner-7")
  })

  it("search --json: every hit carries its machine; --machine keeps only that machine's hits", () => {
    const all = json(["search", "invoice", "--index", url, "--limit", "1000"])
    expect(all.code, all.stderr).toBe(0)
    const hits = all.data.hits as Array<{ sessionId: string; eventId: string | null; machine: string }>
    expect(hits.length).toBeGreaterThan(0)
    expect(new Set(hits.map((h) => h.machine))).toEqual(new Set(MACHINES))
    // Each hit is found once per machine.
    for (const h of hits) {
      expect(hits.filter((x) => x.sessionId === h.sessionId && x.eventId === h.eventId).map((x) => x.machine).sort()).toEqual(MACHINES)
    }
    const ci = json(["search", "invoice", "--index", url, "--limit", "1000", "--machine", "ci-runner-7"])
    expect(ci.code, ci.stderr).toBe(0)
    expect(ci.data.hits.length).toBe(hits.length / 2)
    expect(new Set(ci.data.hits.map((h: { machine: string }) => h.machine))).toEqual(new Set(["ci-runner-7"]))
  })

  it("search (text): the hit head says on which machine", () => {
    const r = cli(["search", "invoice", "--index", url, "--limit", "1000"], { env })
    expect(r.code, r.stderr).toBe(0)
    const heads = r.stdout.split("\n").filter((l) => /^\d+\. /.test(l))
    expect(heads.length).toBeGreaterThan(0)
    for (const h of heads) expect(h).toMatch(/ {2}claude-code on (alice-laptop|ci-runner-7) {2}/)
    // The hint names the first hit's own copy (its uid), not the native id every machine's copy shares.
    const first = json(["search", "invoice", "--index", url, "--limit", "1000"]).data.hits.find((h: { eventId: string | null }) => h.eventId !== null)
    expect(r.stdout).toContain(`in context: session-ingest show ${first.sessionUid} --around ${first.eventId}`)
    const one = cli(["search", "invoice", "--index", url, "--machine", "alice-laptop"], { env })
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout).not.toContain(" on alice-laptop")
  })

  it("show --json: the session carries its machine", () => {
    const uids = (json(["sessions", "--index", url]).data as Array<{ sessionId: string; sessionUid: string; machine: string }>)
      .filter((r) => r.sessionId === BILLING_SESSION)
    expect(uids.length).toBe(2)
    const shown = uids.map((u) => {
      const r = json(["show", u.sessionUid, "--index", url])
      expect(r.code, r.stderr).toBe(0)
      expect(r.data.session.sessionUid).toBe(u.sessionUid)
      return r.data.session.machine
    })
    expect(shown.sort()).toEqual(MACHINES)
  })

  it("show <native id> held on two machines: the note names the machine of the copy shown and of the other", () => {
    const r = cli(["show", BILLING_SESSION, "--index", url], { env })
    expect(r.code, r.stderr).toBe(0)
    const copies = (json(["sessions", "--index", url]).data as Array<{ sessionId: string; sessionUid: string; machine: string }>)
      .filter((x) => x.sessionId === BILLING_SESSION)
    const shownUid = json(["show", BILLING_SESSION, "--index", url]).data.session.sessionUid as string
    const shown = copies.find((c) => c.sessionUid === shownUid)!
    const other = copies.find((c) => c.sessionUid !== shownUid)!
    expect(r.stderr).toContain(
      `note: 2 sources hold session ${BILLING_SESSION}; showing ${shown.sessionUid} on ${shown.machine} ` +
        `(use a ses_… uid to pick another: ${other.sessionUid} on ${other.machine})`
    )
  })

  describe("MCP", () => {
    let server: Connected
    beforeAll(async () => {
      server = await connect(["--index", url], env)
    }, 60_000)
    afterAll(async () => {
      await server?.close()
    })

    it("list_sessions: each session carries its machine; machine keeps only that machine's", async () => {
      const all = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 10_000 } }))
      expect(all.count).toBeGreaterThan(0)
      expect(new Set(all.sessions.map((s: { machine: string }) => s.machine))).toEqual(new Set(MACHINES))
      const alice = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 10_000, machine: "alice-laptop" } }))
      expect(alice.count).toBe(all.count / 2)
      expect(new Set(alice.sessions.map((s: { machine: string }) => s.machine))).toEqual(new Set(["alice-laptop"]))
    })

    it("search_sessions: each hit carries its machine; machine keeps only that machine's", async () => {
      const all = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: "invoice", limit: 1000 } }))
      expect(all.count).toBeGreaterThan(0)
      expect(new Set(all.hits.map((h: { machine: string }) => h.machine))).toEqual(new Set(MACHINES))
      const ci = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: "invoice", limit: 1000, machine: "ci-runner-7" } }))
      expect(ci.count).toBe(all.count / 2)
      expect(new Set(ci.hits.map((h: { machine: string }) => h.machine))).toEqual(new Set(["ci-runner-7"]))
    })

    it("get_session: the session carries its machine", async () => {
      const listed = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 10_000, machine: "ci-runner-7" } }))
      const s = listed.sessions.find((x: { id: string }) => x.id === BILLING_SESSION)
      const got = answerOf(await server.client.callTool({ name: "get_session", arguments: { id: s.uid } }))
      expect(got.session.machine).toBe("ci-runner-7")
    })
  })
})

describe("local (SQLite) index: one machine's, no machine names", () => {
  it("sessions --json and search --json: machine null on every row and hit", () => {
    const rows = json(["sessions", "--index", sqlite])
    expect(rows.code, rows.stderr).toBe(0)
    expect(rows.data.length).toBeGreaterThan(0)
    for (const r of rows.data) expect(r.machine).toBeNull()
    const hits = json(["search", "invoice", "--index", sqlite])
    expect(hits.code, hits.stderr).toBe(0)
    expect(hits.data.hits.length).toBeGreaterThan(0)
    for (const h of hits.data.hits) expect(h.machine).toBeNull()
  })

  it("the text output names no machine: the sessions header and the hit heads are as before", () => {
    const r = cli(["sessions", "--index", sqlite], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split("\n")[0]).toMatch(/^last activity +provider +events +tokens +cost +session +title +workspace$/)
    const s = cli(["search", "invoice", "--index", sqlite], { env })
    expect(s.code, s.stderr).toBe(0)
    const heads = s.stdout.split("\n").filter((l) => /^\d+\. /.test(l))
    expect(heads.length).toBeGreaterThan(0)
    for (const h of heads) expect(h).toMatch(/^\d+\. \S+ {2}claude-code {2}[0-9a-f-]{36} {2}/)
  })

  it("sessions / search --machine: INVALID_ARGUMENT saying a local index names no machines", () => {
    for (const args of [["sessions"], ["search", "invoice"]]) {
      const r = json([...args, "--index", sqlite, "--machine", "alice-laptop"])
      expect([r.code, r.status, r.error.code], r.stderr).toEqual([2, "error", "INVALID_ARGUMENT"])
      expect(r.error.message).toContain("names no machines")
    }
  })

  it("MCP: machine null in list_sessions, search_sessions and get_session; a machine argument is -32602 INVALID_ARGUMENT", async () => {
    const server = await connect(["--index", sqlite], env)
    try {
      const listed = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} }))
      expect(listed.count).toBeGreaterThan(0)
      for (const s of listed.sessions) expect(s.machine).toBeNull()
      const found = answerOf(await server.client.callTool({ name: "search_sessions", arguments: { query: "invoice" } }))
      expect(found.count).toBeGreaterThan(0)
      for (const h of found.hits) expect(h.machine).toBeNull()
      const got = answerOf(await server.client.callTool({ name: "get_session", arguments: { id: listed.sessions[0].uid } }))
      expect(got.session.machine).toBeNull()
      for (const [name, args] of [["list_sessions", {}], ["search_sessions", { query: "invoice" }]] as const) {
        const e = await server.client.callTool({ name, arguments: { ...args, machine: "alice-laptop" } }).then(
          () => undefined,
          (e: unknown) => e
        )
        expect(e).toBeInstanceOf(McpError)
        expect((e as McpError).code).toBe(-32602)
        expect((e as McpError).message).toContain("INVALID_ARGUMENT")
      }
    } finally {
      await server.close()
    }
  })
})
