/**
 * `session-ingest mcp` (issue 16), driven by the official MCP client
 * (`@modelcontextprotocol/sdk`'s `Client` over stdio, launching the bundle
 * as MCP clients do) on an index of the bundled fixtures with secrets
 * planted: initialize; the tools and resources listed; each tool; a
 * session paged to its end; bad arguments answered as MCP errors with the
 * product's code while the server keeps answering; no planted secret in any
 * answer (and all of them with `--no-redact`); the index untouched.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { snapshotTree } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, buildCorpus, connect, type Connected, type Corpus, ghpCanary, planted } from "./helpers.js"

let corpus: Corpus
let server: Connected
let before: { tree: Record<string, string>; mtimeNs: bigint }
/** Every answer the redacting server gave, as JSON text. */
const answers: Array<string> = []

const call = async (name: string, args: Record<string, unknown>) => {
  const r = await server.client.callTool({ name, arguments: args })
  answers.push(JSON.stringify(r))
  return answerOf(r)
}

/** The MCP error a call fails with (it must fail). */
const failure = async (p: Promise<unknown>): Promise<McpError> => {
  try {
    const r = await p
    answers.push(JSON.stringify(r))
  } catch (e) {
    expect(e).toBeInstanceOf(McpError)
    answers.push(JSON.stringify({ message: (e as McpError).message, data: (e as McpError).data }))
    return e as McpError
  }
  throw new Error(`expected an MCP error, got an answer: ${answers[answers.length - 1].slice(0, 400)}`)
}

/** `eventIdsOf`'s answers: the index does not change while these tests run (the last one checks it). */
const eventIds = new Map<string, ReadonlyArray<string>>()

/** The native event ids of a session, in source order, as `show --format events` gives them (one CLI run a session). */
const eventIdsOf = (uid: string): ReadonlyArray<string> => {
  const known = eventIds.get(uid)
  if (known !== undefined) return known
  const r = cli(["show", uid, "--index", corpus.index], { env: corpus.env })
  expect(r.code, r.stderr).toBe(0)
  const ids = r.stdout.trim().split("\n").map((l) => JSON.parse(l).eventId as string)
  eventIds.set(uid, ids)
  return ids
}

/** Every page of a session at `maxChars`, from the first to the last. */
const pages = async (id: string, maxChars: number) => {
  const out: Array<any> = []
  let cursor: string | null = null
  for (let i = 0; i < 10_000; i++) {
    const a: any = await call("get_session", cursor === null ? { id, maxChars } : { id, maxChars, cursor })
    out.push(a)
    cursor = a.page.nextCursor
    if (cursor === null) return out
  }
  throw new Error("paging did not end")
}

beforeAll(async () => {
  corpus = buildCorpus()
  const st = fs.statSync(corpus.index, { bigint: true })
  before = { tree: snapshotTree(corpus.indexDir), mtimeNs: st.mtimeNs }
  server = await connect(["--index", corpus.index], corpus.env)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("mcp: protocol", () => {
  it("initializes as session-ingest with tools and resources", () => {
    const info = server.client.getServerVersion()
    expect(info?.name).toBe("session-ingest")
    const caps = server.client.getServerCapabilities()
    expect(caps?.tools).toBeDefined()
    expect(caps?.resources).toBeDefined()
  })

  // docs/mcp.md "MCP server": the tools and resources do not change while the server runs, it sends no `list_changed`
  // notification; so it does not advertise one (tester12: `listChanged: true` was advertised).
  it("advertises no list_changed notification, as it sends none", () => {
    const caps = server.client.getServerCapabilities()
    expect(caps?.tools?.listChanged ?? false).toBe(false)
    expect(caps?.resources?.listChanged ?? false).toBe(false)
    expect(caps?.resources?.subscribe ?? false).toBe(false)
  })

  it("lists the read-only tools with their input schemas", async () => {
    const { tools } = await server.client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    for (const name of ["search_sessions", "list_sessions", "get_session", "get_events"]) {
      const t = byName.get(name)
      expect(t, name).toBeDefined()
      expect(t!.description?.length).toBeGreaterThan(20)
      expect(t!.inputSchema.type).toBe("object")
      expect(t!.annotations?.readOnlyHint).toBe(true)
      expect(t!.annotations?.destructiveHint).toBe(false)
    }
    expect(Object.keys(byName.get("get_session")!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["id", "maxChars", "cursor"]))
    expect(byName.get("get_session")!.inputSchema.required).toEqual(["id"])
    expect(Object.keys(byName.get("list_sessions")!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["provider", "since", "until", "workspace", "limit"])
    )
    expect(Object.keys(byName.get("get_events")!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["id", "eventId", "cursor", "context", "limit"])
    )
  })

  it("search_sessions finds a word with its session, event id and cursor; get_events resumes there", async () => {
    const a = await call("search_sessions", { query: "rounding", provider: "claude-code" })
    expect(a.count).toBeGreaterThan(0)
    const hit = a.hits.find((h: any) => h.eventId !== null)
    expect(hit).toMatchObject({ provider: "claude-code", field: expect.any(String) })
    expect(hit.snippet.toLowerCase()).toContain("rounding")
    const around = await call("get_events", { id: hit.sessionUid, eventId: hit.eventId, context: 0 })
    expect(around.events.map((e: any) => e.eventId)).toEqual([hit.eventId])
    const after = await call("get_events", { id: hit.sessionUid, cursor: hit.cursor, limit: 1 })
    const ids = eventIdsOf(hit.sessionUid)
    expect(after.events.map((e: any) => e.eventId)).toEqual([ids[ids.indexOf(hit.eventId) + 1]])
    // Filters narrow it: no Muse agents event says it.
    expect((await call("search_sessions", { query: "rounding", provider: "muse-agents" })).count).toBe(0)
  })

  it("lists one resource per session, session://<uid>, and reads each", async () => {
    const { resources } = await server.client.listResources()
    expect(resources.map((r) => r.uri).sort()).toEqual(corpus.sessions.map((s) => `session://${s.shownUid}`).sort())
    for (const s of corpus.sessions) {
      const r = await server.client.readResource({ uri: `session://${s.shownUid}` })
      answers.push(JSON.stringify(r))
      expect(r.contents).toHaveLength(1)
      const text = (r.contents[0] as { text: string }).text
      expect(text).toContain(s.sessionId)
      // The resource holds the session's whole transcript: every event id.
      for (const id of eventIdsOf(s.sessionUid)) expect(text).toContain(`[${id}]`)
    }
    // A session named by its native id reads the same session.
    const one = corpus.sessions.find((s) => s.provider === "claude-code")!
    const byNative = await server.client.readResource({ uri: `session://${one.sessionId}` })
    answers.push(JSON.stringify(byNative))
    expect((byNative.contents[0] as { text: string }).text).toContain(one.shownUid)
    // The first resources/list reads the titles' secrets, which the server read before serving until session 34
    // (tester34b F4: start-up now reads nothing that grows with the index), so that time is this test's now.
  }, 120_000)
})

describe("mcp: tools", () => {
  it("list_sessions lists every session, latest first, with ids and uris", async () => {
    const a = await call("list_sessions", {})
    expect(a.sessions.map((s: any) => s.uid).sort()).toEqual(corpus.sessions.map((s) => s.shownUid).sort())
    expect(a.more).toBe(false)
    for (const s of a.sessions) {
      expect(s.uri).toBe(`session://${s.uid}`)
      expect(typeof s.id).toBe("string")
      expect(typeof s.eventCount).toBe("number")
    }
    const lasts = a.sessions.map((s: any) => s.lastAt ?? "")
    expect(lasts).toEqual([...lasts].sort().reverse())
  })

  it("list_sessions filters by provider, time, workspace, and a limit", async () => {
    for (const provider of ["claude-code", "muse-agents", "agentmux", "muse-code"]) {
      const a = await call("list_sessions", { provider })
      expect(a.sessions.length).toBe(corpus.sessions.filter((s) => s.provider === provider).length)
      expect(a.sessions.every((s: any) => s.provider === provider)).toBe(true)
    }
    const limited = await call("list_sessions", { limit: 2 })
    expect(limited.sessions).toHaveLength(2)
    expect(limited.more).toBe(true)
    const all = await call("list_sessions", {})
    const since = await call("list_sessions", { since: "2026-01-01" })
    expect(since.sessions.length).toBeGreaterThan(0)
    expect(since.sessions.length).toBeLessThan(all.sessions.length)
    expect(since.sessions.every((s: any) => s.lastAt >= "2026-01-01")).toBe(true)
    const until = await call("list_sessions", { until: "2025-06-30" })
    expect(until.sessions.length).toBeGreaterThan(0)
    expect(until.sessions.every((s: any) => s.firstAt === null || s.firstAt <= "2025-06-30T23:59:59.999999Z")).toBe(true)
    const ws = corpus.sessions.find((s) => s.workspace !== null && s.workspace.startsWith("/workspace/demo"))!
    const inWs = await call("list_sessions", { workspace: "/workspace/demo" })
    expect(inWs.sessions.map((s: any) => s.uid)).toContain(ws.shownUid)
    expect(inWs.sessions.length).toBe(corpus.sessions.filter((s) => s.workspace?.startsWith("/workspace/demo")).length)
  })

  it("get_session answers the metadata and pages the transcript to its end, each page within maxChars", async () => {
    const s = [...corpus.sessions].sort((a, b) => b.eventCount - a.eventCount)[0]
    const whole = await call("get_session", { id: s.shownUid, maxChars: 1_000_000 })
    expect(whole.session).toMatchObject({ uid: s.shownUid, id: s.sessionId, provider: s.provider, eventCount: s.eventCount, uri: `session://${s.shownUid}` })
    expect(whole.page.nextCursor).toBeNull()
    expect(whole.page.done).toBe(true)
    const ids = eventIdsOf(s.sessionUid)
    for (const id of ids) expect(whole.page.text).toContain(`[${id}]`)
    expect(whole.page.totalChars).toBe(whole.page.text.length)
    for (const maxChars of [150, 701, 4000]) {
      const ps = await pages(s.shownUid, maxChars)
      expect(ps.length).toBeGreaterThan(1)
      for (const p of ps) {
        expect(p.page.text.length).toBeLessThanOrEqual(maxChars)
        expect(p.page.text.length).toBeGreaterThan(0)
      }
      expect(ps.map((p) => p.page.text).join("")).toBe(whole.page.text)
      expect(ps[ps.length - 1].page.done).toBe(true)
      // Consecutive ranges.
      for (let i = 1; i < ps.length; i++) expect(ps[i].page.fromChar).toBe(ps[i - 1].page.toChar)
    }
    // A native id, and a unique prefix of the (shown) uid, name the same session.
    const byNative = await call("get_session", { id: s.sessionId, maxChars: 100 })
    expect(byNative.session.uid).toBe(s.shownUid)
    const byPrefix = await call("get_session", { id: s.shownUid.slice(0, 12), maxChars: 100 })
    expect(byPrefix.session.uid).toBe(s.shownUid)
    // a hang guard, not a timing: hundreds of pages of 150 characters, one call each (31-47 s at load 10 on 2 cores)
  }, 120_000)

  it("get_events answers the events after a cursor, resumable to the end", async () => {
    const s = corpus.sessions.find((x) => x.provider === "claude-code" && x.eventCount > 10)!
    const ids = eventIdsOf(s.sessionUid)
    const seen: Array<string> = []
    let a = await call("get_events", { id: s.shownUid, limit: 3 })
    for (let i = 0; i < 1000; i++) {
      expect(a.events.length).toBeLessThanOrEqual(3)
      for (const e of a.events) {
        expect(typeof e.cursor).toBe("string")
        expect(typeof e.eventId).toBe("string")
        seen.push(e.eventId)
      }
      if (a.nextCursor === null) break
      expect(a.nextCursor).toBe(a.events[a.events.length - 1].cursor)
      a = await call("get_events", { id: s.shownUid, cursor: a.nextCursor, limit: 3 })
    }
    expect(a.done).toBe(true)
    expect(seen).toEqual(ids)
  })

  it("get_events answers the events around an event id, with context", async () => {
    const s = corpus.sessions.find((x) => x.provider === "claude-code" && x.eventCount > 10)!
    const ids = eventIdsOf(s.sessionUid)
    const mid = Math.floor(ids.length / 2)
    const a = await call("get_events", { id: s.sessionId, eventId: ids[mid], context: 2 })
    expect(a.events.map((e: any) => e.eventId)).toEqual(ids.slice(mid - 2, mid + 3))
    expect(a.target).toBe(ids[mid])
    const first = await call("get_events", { id: s.shownUid, eventId: ids[0], context: 1 })
    expect(first.events.map((e: any) => e.eventId)).toEqual(ids.slice(0, 2))
    // Resuming after the window's last event continues the session.
    const next = await call("get_events", { id: s.shownUid, cursor: a.nextCursor, limit: 1 })
    expect(next.events.map((e: any) => e.eventId)).toEqual([ids[mid + 3]])
  })
})

describe("mcp: bad arguments are MCP errors with the product's code, and the server keeps answering", () => {
  const expectCode = async (p: Promise<unknown>, code: string) => {
    const e = await failure(p)
    expect(e.message).toContain(code)
    expect(JSON.stringify(e.data)).toContain(code)
    // Still answering.
    const again = await call("list_sessions", { limit: 1 })
    expect(again.sessions).toHaveLength(1)
  }
  /** A session's uid as a redacted answer names it (the server, with redaction on, takes no real uid: tester25a F16). */
  const someUid = () => corpus.sessions[0].shownUid

  it("an unknown session", async () => {
    await expectCode(server.client.callTool({ name: "get_session", arguments: { id: "no-such-session-anywhere" } }), "SOURCE_NOT_FOUND")
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: "no-such-session-anywhere" } }), "SOURCE_NOT_FOUND")
    await expectCode(server.client.readResource({ uri: "session://no-such-session-anywhere" }), "SOURCE_NOT_FOUND")
  })

  it("an unknown session by a URI the library's router would not match (an id over 100 characters, a malformed percent escape): an error, not empty contents", async () => {
    for (const uri of [`session://${"R".repeat(150)}`, `session://${"R".repeat(5000)}`, "session://%", "session://c%", "session://%E0%A4%A"]) {
      await expectCode(server.client.readResource({ uri }), "SOURCE_NOT_FOUND")
    }
  })

  it("a session named by its uid in a URI over the router's 100 characters of id is read (percent-encoded uid)", async () => {
    const uid = someUid()
    const encoded = [...uid].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("")
    expect(encoded.length).toBeGreaterThan(100)
    const r = await server.client.readResource({ uri: `session://${encoded}` })
    expect(r.contents).toHaveLength(1)
    expect((r.contents[0] as { text: string }).text).toContain(corpus.sessions[0].sessionId)
  })

  it("search_sessions with an unknown session filter is SOURCE_NOT_FOUND (as search --session), not 0 hits", async () => {
    for (const session of ["zzz-no-such-session", "%", "c%"]) {
      await expectCode(server.client.callTool({ name: "search_sessions", arguments: { query: "rounding", session } }), "SOURCE_NOT_FOUND")
    }
  })

  it("a URI that is no resource of this server is an error, not empty contents", async () => {
    for (const uri of ["file:///etc/passwd", "session://../../etc/passwd", "session://a/b", "https://example.com/x", "session://", "nope"]) {
      await expectCode(server.client.readResource({ uri }), "SOURCE_NOT_FOUND")
    }
  })

  it("an unknown event id", async () => {
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: someUid(), eventId: "no-such-event" } }), "SOURCE_NOT_FOUND")
  })

  it("a bad cursor: malformed, another session's, or a page cursor of another session", async () => {
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: someUid(), cursor: "not-a-cursor" } }), "INVALID_CURSOR")
    await expectCode(server.client.callTool({ name: "get_session", arguments: { id: someUid(), cursor: "not-a-cursor" } }), "INVALID_CURSOR")
    const [a, b] = [...corpus.sessions].sort((x, y) => y.eventCount - x.eventCount)
    const other = await call("get_events", { id: b.shownUid, limit: 1 })
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: a.shownUid, cursor: other.events[0].cursor } }), "INVALID_CURSOR")
    const page = await call("get_session", { id: b.shownUid, maxChars: 100 })
    await expectCode(server.client.callTool({ name: "get_session", arguments: { id: a.shownUid, cursor: page.page.nextCursor } }), "INVALID_CURSOR")
  })

  it("a bad filter or value", async () => {
    await expectCode(server.client.callTool({ name: "list_sessions", arguments: { provider: "no-such-provider" } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "list_sessions", arguments: { since: "yesterday-ish" } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "list_sessions", arguments: { since: "2026-02-01", until: "2026-01-01" } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "list_sessions", arguments: { limit: 0 } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "list_sessions", arguments: { limit: "ten" } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "get_session", arguments: {} }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "get_session", arguments: { id: someUid(), maxChars: 0 } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: someUid(), eventId: "x", cursor: "y" } }), "INVALID_ARGUMENT")
    await expectCode(server.client.callTool({ name: "get_events", arguments: { id: someUid(), limit: -3 } }), "INVALID_ARGUMENT")
  })

  it("a search query that does not parse", async () => {
    await expectCode(server.client.callTool({ name: "search_sessions", arguments: { query: "\"unclosed phrase" } }), "INVALID_SEARCH_QUERY")
    await expectCode(server.client.callTool({ name: "search_sessions", arguments: { query: "a AND" } }), "INVALID_SEARCH_QUERY")
    await expectCode(server.client.callTool({ name: "search_sessions", arguments: {} }), "INVALID_ARGUMENT")
  })

  it("the error's data is the product's error itself: {code, message, remediation, details}", async () => {
    const cases: Array<[string, Record<string, unknown>, string, number]> = [
      ["get_events", { id: someUid(), eventId: "nope" }, "SOURCE_NOT_FOUND", -32602],
      ["get_events", { id: "7777", eventId: "nope" }, "SOURCE_NOT_FOUND", -32602],
      ["get_session", { id: someUid(), cursor: "not-a-cursor" }, "INVALID_CURSOR", -32602],
      ["list_sessions", { limit: "ten" }, "INVALID_ARGUMENT", -32602],
      ["search_sessions", { query: "a AND" }, "INVALID_SEARCH_QUERY", -32602]
    ]
    for (const [name, args, code, rpc] of cases) {
      const e = await failure(server.client.callTool({ name, arguments: args }))
      expect(e.code).toBe(rpc)
      const data = e.data as Record<string, unknown>
      expect(data.code).toBe(code)
      expect(typeof data.message).toBe("string")
      expect(typeof data.remediation).toBe("string")
      expect(Object.keys(data).every((k) => ["code", "message", "remediation", "details"].includes(k)), JSON.stringify(data)).toBe(true)
      expect(e.message).toContain(`${code}: ${data.message as string}`)
    }
    const q = await failure(server.client.callTool({ name: "search_sessions", arguments: { query: "a AND" } }))
    expect((q.data as any).details).toMatchObject({ query: "a AND" })
    const r = await failure(server.client.readResource({ uri: "session://no-such-session-anywhere" }))
    expect((r.data as any).code).toBe("SOURCE_NOT_FOUND")
  })

  it("a kind the CLI refuses is refused, naming the kind meant", async () => {
    for (const [kind, meant] of [["tool_result", "tool-result"], ["Tool-Call", "tool-call"], ["messages", "message"]]) {
      const e = await failure(server.client.callTool({ name: "search_sessions", arguments: { query: "mysql", kind } }))
      expect((e.data as any).code).toBe("INVALID_ARGUMENT")
      expect((e.data as any).message).toContain(meant)
      expect((e.data as any).remediation).toContain("tool-result")
    }
    const bad = await failure(server.client.callTool({ name: "search_sessions", arguments: { query: "mysql", kind: "not a kind!" } }))
    expect((bad.data as any).code).toBe("INVALID_ARGUMENT")
    // A provider's own kind, and a common one, still search.
    expect((await call("search_sessions", { query: "mysql", kind: "side_effect_intent" })).hits).toBeDefined()
    expect((await call("search_sessions", { query: "mysql", kind: "tool-call" })).count).toBeGreaterThanOrEqual(0)
  })

  it("an ambiguous session id prefix", async () => {
    await expectCode(server.client.callTool({ name: "get_session", arguments: { id: "hses_" } }), "INVALID_ARGUMENT")
  })

  it("an unknown tool", async () => {
    const e = await failure(server.client.callTool({ name: "drop_everything", arguments: {} }))
    expect(e.message).toContain("drop_everything")
    expect((await call("list_sessions", { limit: 1 })).sessions).toHaveLength(1)
  })
})

describe("mcp: redaction and read-only", () => {
  it("no planted secret appears in any answer; with --no-redact they do", async () => {
    // Sweep every session: whole transcripts and every event.
    for (const s of corpus.sessions) {
      await call("get_session", { id: s.shownUid, maxChars: 1_000_000 })
      await call("get_events", { id: s.shownUid, limit: 100_000, maxChars: 1_000_000 })
    }
    await call("list_sessions", {})
    // Search cannot read a redacted value back: a query that matches only inside it finds nothing, whole or
    // by prefix (one guess at a time), while a word beside it in the same event is still found.
    expect((await call("search_sessions", { query: `"${ghpCanary}"`, limit: 50 })).count).toBe(0)
    expect((await call("search_sessions", { query: `${ghpCanary.slice(4, 9)}*`, limit: 50 })).count).toBe(0)
    expect((await call("search_sessions", { query: `${ghpCanary.slice(4, 9)}* OR "${ghpCanary}"`, limit: 50 })).count).toBe(0)
    const all = answers.join("\n")
    expect(all).toContain("[REDACTED:")
    const leaked = planted.filter((c) => all.includes(c.needle)).map((c) => `${c.rule}: ${c.needle}`)
    expect(leaked).toEqual([])
    expect(all).not.toContain(ghpCanary)

    const raw = await connect(["--index", corpus.index, "--no-redact"], corpus.env)
    try {
      const texts: Array<string> = []
      for (const s of corpus.sessions) {
        const r = await raw.client.callTool({ name: "get_session", arguments: { id: s.sessionUid, maxChars: 1_000_000 } })
        texts.push(JSON.stringify(answerOf(r)))
      }
      const rawAll = texts.join("\n")
      expect(rawAll).toContain(ghpCanary)
      // Without redaction (the server's flag), the same search finds the events that hold it.
      const raw1 = answerOf(await raw.client.callTool({ name: "search_sessions", arguments: { query: `"${ghpCanary}"`, limit: 50 } })) as { count: number }
      expect(raw1.count).toBeGreaterThan(0)
      expect(planted.filter((c) => !rawAll.includes(c.needle)).map((c) => c.rule)).toEqual([])
    } finally {
      await raw.close()
    }
    // a sweep of every session's whole transcript and events through the redaction, twice where a text holds an
    // HTML reference or a percent escape (its decoded view, session 26): 11-20 s on a quiet machine, so its own bound
  }, 180_000)

  it("stdout carries only protocol, and the index is unchanged (bytes, mtime, nothing beside it)", async () => {
    expect(server.transportErrors).toEqual([])
    await server.close()
    expect(snapshotTree(corpus.indexDir)).toEqual(before.tree)
    expect(fs.statSync(corpus.index, { bigint: true }).mtimeNs).toBe(before.mtimeNs)
    expect(fs.readdirSync(corpus.indexDir)).toEqual([path.basename(corpus.index)])
  })
})

describe("mcp: start-up", () => {
  it("a missing index is SOURCE_NOT_FOUND before serving (exit 4, nothing on stdout)", () => {
    const r = cli(["mcp", "--index", path.join(corpus.dir, "none.db")], { env: corpus.env })
    expect(r.code).toBe(4)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("SOURCE_NOT_FOUND")
  })

  it("ends when the client closes its stdin (exit 0)", () => {
    const r = cli(["mcp", "--index", corpus.index], { env: corpus.env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe("")
  })
})
