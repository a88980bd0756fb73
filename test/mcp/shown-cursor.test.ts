/**
 * Redacted outputs carry no check of the bytes as imported (tester22c, docs/mcp.md "A search over what is shown"):
 * an event's stream cursor holds a CRC-32 of its line and a sha256 of the source's first 4 KiB, so a guess at a hidden
 * password could be tested offline against an MCP answer or a shared export, and two sessions that differ only in a
 * secret had different cursors. With redaction on, an event's cursor is a shown cursor (`s1.<tag>.<seq>.<check>`,
 * src/domain/shown-cursor.ts): two indexes of one session, identical but for secrets of different lengths (same file
 * path, so the same ids; the second a copy of the first, so the same key of shown ids), give the same cursors in `search_sessions`, `get_events` and the redacted NDJSON export (whose events carry no byte
 * offset either: the two variants export the same events);
 * `get_events` resumes after a shown cursor, refuses an edited one, and `stream` refuses one with INVALID_CURSOR.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Either from "effect/Either"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { peekCursor } from "../../src/domain/cursor.js"
import { peekShownCursor, shownCursor } from "../../src/domain/shown-cursor.js"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { shownIdsOf } from "../support/shown-ids.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const SESSION = "5c0e0a23-2323-4323-8323-000000000c01"
/** The secrets of the two variants: different lengths, so every later line's byte offsets differ too. */
const PASSWORDS = ["Ab1!xq", "Tr8vLm2NcwQa-x9zz-Kp4Wq7Rt2Yu5Io8Pa3Sd6Fg9HjkLmN0"] as const
const TOKENS = ["ghp_" + "K7q".repeat(12), "ghp_" + "Zx4".repeat(12)] as const
const SHOWN = /^s1\.[0-9a-f]{16}\.[0-9a-z]+\.[0-9a-f]{8}$/

const sessionLines = (i: 0 | 1): string => {
  const pw = PASSWORDS[i]
  const texts: Array<["user" | "assistant", string]> = [
    ["user", "set up the deploy of the billing service"],
    ["assistant", `PGPASSWORD=${pw} psql -h db.internal -U app`],
    ["user", `the deploy token is ${TOKENS[i]}`],
    ["assistant", "deploy done, billing answers"],
    ["user", "check the deploy logs"],
    ["assistant", "the deploy logs are clean"]
  ]
  return claudeTurnsLog(SESSION, texts, "2026-11-21T10:00:00.000Z")
}

describe("shown cursors: redacted outputs name events without checks of their bytes as imported (tester22c)", () => {
  const servers: Array<Connected> = []
  const indexes: Array<string> = []
  let env: Record<string, string> = {}

  beforeAll(async () => {
    const dir = tempDir("si-shown-cursor-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
    env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    for (const i of [0, 1] as const) {
      // the same file path for both variants: the same source, session and event ids; and the same index key (the
      // second index a copy of the first, the second variant then imported into it: shown ids are keyed by the
      // index's secret, so two indexes made apart name the same source differently, tester23c F3)
      fs.writeFileSync(path.join(root, "-srv-app", `${SESSION}.jsonl`), sessionLines(i))
      const index = path.join(dir, `index-${i}.db`)
      if (i === 1) {
        for (const ext of ["", "-wal"]) if (fs.existsSync(indexes[0] + ext)) fs.copyFileSync(indexes[0] + ext, index + ext)
      }
      importClaude(index, root, agents, env)
      indexes.push(index)
    }
    for (const index of indexes) servers.push(await connect(["--index", index], env))
  }, 120_000)

  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  const call = async (server: Connected, name: string, args: Record<string, unknown>) =>
    answerOf(await server.client.callTool({ name, arguments: args }))

  it("search_sessions: the same hits and cursors whatever the secrets' lengths, and no stream cursor", async () => {
    for (const query of ["deploy", "billing", "psql", "token"]) {
      const [a, b] = [await call(servers[0], "search_sessions", { query }), await call(servers[1], "search_sessions", { query })]
      expect(a.count, query).toBeGreaterThan(0)
      expect(a, query).toEqual(b)
      for (const h of a.hits) if (h.eventId !== null) expect(h.cursor, query).toMatch(SHOWN)
      expect(JSON.stringify(a)).not.toContain("\"c2.")
    }
  }, 60_000)

  it("get_events: every page the same on both indexes; a hit's cursor resumes right after its event", async () => {
    const [a, b] = [await call(servers[0], "get_events", { id: SESSION }), await call(servers[1], "get_events", { id: SESSION })]
    expect(a).toEqual(b)
    expect(a.events.map((e: { sequence: number }) => e.sequence).length).toBe(6)
    for (const e of a.events) expect(e.cursor).toMatch(SHOWN)
    const hit = (await call(servers[1], "search_sessions", { query: "psql" })).hits.find((h: { eventId: string | null }) => h.eventId !== null)
    const at = a.events.findIndex((e: { eventId: string }) => e.eventId === hit.eventId)
    expect(at).toBeGreaterThanOrEqual(0)
    const after = await call(servers[1], "get_events", { id: SESSION, cursor: hit.cursor, limit: 2 })
    expect(after.events.map((e: { eventId: string }) => e.eventId)).toEqual(a.events.slice(at + 1, at + 3).map((e: { eventId: string }) => e.eventId))
    // paging with nextCursor reaches the end, each event once
    const seen: Array<string> = []
    let cursor: string | undefined
    for (let n = 0; n < 10; n++) {
      const page = await call(servers[0], "get_events", { id: SESSION, limit: 4, ...(cursor !== undefined ? { cursor } : {}) })
      seen.push(...page.events.map((e: { eventId: string }) => e.eventId))
      if (page.done) break
      expect(page.nextCursor).toMatch(SHOWN)
      cursor = page.nextCursor
    }
    expect(seen).toEqual(a.events.map((e: { eventId: string }) => e.eventId))
    // around an event: shown cursors too
    const around = await call(servers[0], "get_events", { id: SESSION, eventId: hit.eventId, context: 1 })
    expect(around).toEqual(await call(servers[1], "get_events", { id: SESSION, eventId: hit.eventId, context: 1 }))
    for (const e of around.events) expect(e.cursor).toMatch(SHOWN)
  }, 60_000)

  it("get_events refuses an edited shown cursor, and one of another source, with INVALID_CURSOR", async () => {
    const first = (await call(servers[0], "get_events", { id: SESSION, limit: 1 })).nextCursor as string
    const place = peekShownCursor(first)
    expect(Either.isRight(place)).toBe(true)
    // another sequence with the same check: it names no event
    const edited = first.replace(/\.([0-9a-z]+)\.([0-9a-f]{8})$/, (_m, seq: string, check: string) => `.${(parseInt(seq, 36) + 1).toString(36)}.${check}`)
    const otherSource = first.replace(/^s1\.[0-9a-f]{16}/, "s1." + "0".repeat(16))
    for (const cursor of [edited, otherSource, "s1.zz.1.00000000"]) {
      await expect(servers[0].client.callTool({ name: "get_events", arguments: { id: SESSION, cursor } }), cursor).rejects.toThrow(/INVALID_CURSOR/)
    }
  }, 60_000)

  it("the redacted NDJSON export gives the same shown cursors on both indexes; --no-redact the stream cursors", () => {
    const exported = indexes.map((index) => {
      const r = cli(["export", SESSION, "--format", "ndjson", "--index", index], { env })
      expect(r.code, r.stderr).toBe(0)
      return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { cursor: string; sequence: number; sessionId: string; eventId: string; sourceId: string; rawReference: { offset?: number } })
    })
    expect(exported[0].map((e) => e.cursor)).toEqual(exported[1].map((e) => e.cursor))
    // every cursor a shown one, and no byte offset (offsets after the password's line tell its length): the two
    // variants export the same events
    const raw = cli(["export", SESSION, "--format", "ndjson", "--no-redact", "--index", indexes[0]], { env })
    expect(raw.code, raw.stderr).toBe(0)
    const rawEvents = raw.stdout.trim().split("\n").map((l) => JSON.parse(l) as { cursor: string; sourceId: string; rawReference: { offset?: number } })
    // the shown source id and cursor tag: keyed by the index's secret (tester23c F3)
    const ids = shownIdsOf(indexes[0])
    expect(exported[0].length).toBe(6)
    for (const e of exported[0]) {
      expect(e.sourceId).toBe(ids.sourceId(rawEvents[0].sourceId))
      expect(e.cursor).toBe(shownCursor({ ...e, sourceId: rawEvents[0].sourceId }, ids))
      expect(e.rawReference.offset).toBeUndefined()
    }
    expect(exported[0]).toEqual(exported[1])
    for (const e of rawEvents) expect(Either.isRight(peekCursor(e.cursor)), e.cursor).toBe(true)
    expect(rawEvents.map((e) => e.rawReference.offset)).toEqual(rawEvents.map((_, n) => sessionLines(0).split("\n").slice(0, n).reduce((a, l) => a + Buffer.byteLength(l) + 1, 0)))
  })

  it("stream refuses a shown cursor with INVALID_CURSOR, saying where a stream cursor comes from", () => {
    const e = cli(["export", SESSION, "--format", "ndjson", "--index", indexes[0]], { env }).stdout.trim().split("\n").map((l) => JSON.parse(l) as { cursor: string })[0]
    expect(e.cursor).toMatch(SHOWN)
    expect(Either.isLeft(peekCursor(e.cursor))).toBe(true)
    const file = path.join(path.dirname(indexes[0]), "claude", "projects", "-srv-app", `${SESSION}.jsonl`)
    const r = cli(["stream", "claude-code", file, "--claude-root", path.join(path.dirname(indexes[0]), "claude", "projects"), "--cursor", e.cursor], { env })
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toContain("INVALID_CURSOR")
    expect(r.stderr).toContain("redacted output")
  })
})
