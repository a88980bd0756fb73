/**
 * Shown ids are keyed by a secret of the index (tester23c F3; docs/redaction.md, "Cursors and offsets"): an event's
 * `sourceId` is `sha256:` of provider, locator class and the real path, a session's `ses_…` uid and a stream cursor's
 * source tag are digests of it, so whoever holds a redacted output (where the home folder is `~`) could build the path
 * of a guessed user name, hash it and compare. In a redacted output (export NDJSON, the replay, every MCP answer)
 * they are HMACs under the index's own random key instead (`hmac:…`, `hses_…`, a keyed tag in `s1.<tag>.…`): not the
 * unkeyed digests, different for two indexes of the same files, the same across runs on one index; MCP takes them
 * back (get_session, get_events with a shown uid and a shown cursor); `--no-redact` keeps the real ids.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { sourceTag } from "../../src/domain/cursor.js"
import { makeSourceId } from "../../src/domain/source-id.js"
import { sessionUid as unkeyedSessionUid } from "../../src/domain/index/ids.js"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { freshDatabase } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, type Connected, connect } from "./helpers.js"

const SESSION = "5c0e0a23-2323-4323-8323-000000000f03"
const TEXTS: Array<["user" | "assistant", string]> = [
  ["user", "set up the deploy of the billing service"],
  ["assistant", "deploy planned"],
  ["user", "check the deploy logs"],
  ["assistant", "the deploy logs are clean"],
  ["user", "and the metrics"],
  ["assistant", "the metrics are fine"]
]

interface Exported {
  readonly eventId: string
  readonly sourceId: string
  readonly cursor: string
  readonly sessionId: string
}

const exported = (index: string, env: Record<string, string>, redact: boolean): ReadonlyArray<Exported> => {
  const r = cli(["export", SESSION, "--index", index, "--format", "ndjson", ...(redact ? [] : ["--no-redact"])], { env })
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Exported)
}

const TAG = /^s1\.([0-9a-f]{16})\./

describe("shown ids: keyed by the index's secret, not digests of the path (tester23c F3)", () => {
  let dir = ""
  let env: Record<string, string> = {}
  let log = ""
  const indexes: Array<string> = []
  const servers: Array<Connected> = []

  beforeAll(() => {
    dir = tempDir("si-shown-ids-")
    // the log under a home folder whose user name a reader of the output could guess
    const root = path.join(dir, "home", "alice", ".claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    log = path.join(root, "-srv-app", `${SESSION}.jsonl`)
    fs.writeFileSync(log, claudeTurnsLog(SESSION, TEXTS, "2026-11-21T10:00:00.000Z"))
    env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    for (const name of ["a.db", "b.db"]) {
      const index = path.join(dir, name)
      importClaude(index, root, agents, env)
      indexes.push(index)
    }
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  /** The real ids, as the unredacted export gives them (and as anyone computes them from the path). */
  const real = () => {
    const events = exported(indexes[0], env, false)
    const sourceId = events[0].sourceId
    expect(sourceId).toBe(makeSourceId("claude-code", "claude-code-session-log", fs.realpathSync(log)))
    return { sourceId, uid: unkeyedSessionUid("claude-code", sourceId, SESSION), tag: sourceTag(sourceId) }
  }

  it("a redacted export shows keyed source ids and cursor tags: not the digests, per index, stable across runs", () => {
    const r = real()
    const a1 = exported(indexes[0], env, true)
    const a2 = exported(indexes[0], env, true)
    const b = exported(indexes[1], env, true)
    expect(a1.length).toBe(TEXTS.length)
    for (const e of a1) {
      expect(e.sourceId).toMatch(/^hmac:[0-9a-f]{64}$/)
      expect(e.sourceId).not.toBe(r.sourceId)
      expect(e.sourceId).not.toContain(r.sourceId.slice(7))
      expect(e.cursor).toMatch(TAG)
      expect(TAG.exec(e.cursor)![1]).not.toBe(r.tag)
    }
    // the same index: the same shown ids on every run (an output can be shared and diffed)
    expect(a2.map((e) => [e.sourceId, e.cursor])).toEqual(a1.map((e) => [e.sourceId, e.cursor]))
    // another index of the same file: other shown ids
    expect(b[0].sourceId).not.toBe(a1[0].sourceId)
    expect(TAG.exec(b[0].cursor)![1]).not.toBe(TAG.exec(a1[0].cursor)![1])
    // unredacted, the real ids
    expect(exported(indexes[0], env, false).every((e) => e.sourceId === r.sourceId)).toBe(true)
  })

  it("the redacted replay names neither the real source id nor the real uid nor the unkeyed tag", () => {
    const r = real()
    const out = path.join(dir, "replay.html")
    const run = cli(["replay", SESSION, "--index", indexes[0], "--out", out], { env })
    expect(run.code, run.stderr).toBe(0)
    const html = fs.readFileSync(out, "utf8")
    for (const leak of [r.sourceId.slice(7), r.uid.slice(4), r.tag]) expect(html).not.toContain(leak)
  })

  it("MCP answers give keyed uids and cursors, per index and stable, and take them back", async () => {
    const r = real()
    for (const index of [indexes[0], indexes[0], indexes[1]]) servers.push(await connect(["--index", index], env))
    const listed = await Promise.all(servers.map(async (s) =>
      answerOf(await s.client.callTool({ name: "list_sessions", arguments: {} })) as { sessions: Array<{ id: string; uid: string; uri: string }> }
    ))
    const uids = listed.map((l) => l.sessions.find((s) => s.id === SESSION)!.uid)
    expect(uids[0]).toMatch(/^hses_[0-9a-f]{32}$/)
    expect(uids[0]).not.toBe(r.uid)
    expect(uids[0]).not.toContain(r.uid.slice(4))
    expect(listed[0].sessions.find((s) => s.id === SESSION)!.uri).toBe(`session://${uids[0]}`)
    expect(uids[1]).toBe(uids[0])
    expect(uids[2]).not.toBe(uids[0])

    const [a] = servers
    // get_session by the shown uid (and a prefix of it)
    for (const id of [uids[0], uids[0].slice(0, 14)]) {
      const got = answerOf(await a.client.callTool({ name: "get_session", arguments: { id } }))
      expect(got.session).toMatchObject({ id: SESSION, uid: uids[0] })
    }
    // get_events by the shown uid, then after a shown cursor of its answer
    const first = answerOf(
      await a.client.callTool({ name: "get_events", arguments: { id: uids[0], limit: 2 } })
    ) as { session: { uid: string }; events: Array<{ eventId: string; cursor: string }> }
    expect(first.session.uid).toBe(uids[0])
    expect(first.events.length).toBe(2)
    for (const e of first.events) {
      expect(e.cursor).toMatch(TAG)
      expect(TAG.exec(e.cursor)![1]).not.toBe(r.tag)
    }
    const next = answerOf(
      await a.client.callTool({ name: "get_events", arguments: { id: uids[0], cursor: first.events[1].cursor, limit: 2 } })
    ) as { events: Array<{ eventId: string; cursor: string }> }
    const all = exported(indexes[0], env, true)
    expect(next.events.map((e) => e.cursor)).toEqual(all.slice(2, 4).map((e) => e.cursor))
    // the same cursor is another source's on the other index (its key differs)
    await expect(servers[2].client.callTool({ name: "get_events", arguments: { id: uids[2], cursor: first.events[1].cursor } })).rejects.toThrow(/INVALID_CURSOR/)
    // a shown uid of no session: the typed error
    await expect(a.client.callTool({ name: "get_session", arguments: { id: "hses_" + "0".repeat(32) } })).rejects.toThrow(/SOURCE_NOT_FOUND/)
    await expect(a.client.callTool({ name: "get_events", arguments: { id: "hses_" + "0".repeat(32) } })).rejects.toThrow(/SOURCE_NOT_FOUND/)
    // search hits: keyed uid and cursor
    const hits = answerOf(
      await a.client.callTool({ name: "search_sessions", arguments: { query: "metrics" } })
    ) as { hits: Array<{ sessionUid: string; cursor: string | null }> }
    expect(hits.hits.length).toBeGreaterThan(0)
    for (const h of hits.hits) {
      expect(h.sessionUid).toBe(uids[0])
      expect(TAG.exec(h.cursor!)![1]).toBe(TAG.exec(all[0].cursor)![1])
    }
    // search's session filter takes the shown uid
    const filtered = answerOf(
      await a.client.callTool({ name: "search_sessions", arguments: { query: "metrics", session: uids[0] } })
    )
    expect(filtered.hits.length).toBe(hits.hits.length)
  })

  it("a redacted server resolves no real uid nor a prefix of one, and takes no stream cursor (tester25a F16, F17)", async () => {
    const r = real()
    const a = await connect(["--index", indexes[0]], env)
    const plain = await connect(["--index", indexes[0], "--no-redact"], env)
    servers.push(a, plain)
    // the real uid, a prefix of it, `ses_` alone: no session (as for any id that names none), and no real uid told
    for (const id of [r.uid, r.uid.slice(0, 12), "ses_"]) {
      for (const name of ["get_session", "get_events"]) {
        const err = await a.client.callTool({ name, arguments: { id } }).then(() => undefined, (e: unknown) => String(e))
        expect(err, `${name} ${id}`).toMatch(/SOURCE_NOT_FOUND/)
        // nothing of the uid past what was given (the message names the id given)
        if (id.length < r.uid.length) expect(err).not.toContain(r.uid.slice(id.length, id.length + 8))
      }
      await expect(a.client.readResource({ uri: `session://${id}` })).rejects.toThrow(/SOURCE_NOT_FOUND/)
    }
    // the native id still names it
    expect(answerOf(await a.client.callTool({ name: "get_session", arguments: { id: SESSION } })).session.id).toBe(SESSION)
    // a stream cursor (what an unredacted output gives) is refused: its checks would be an online oracle
    const stream = exported(indexes[0], env, false)[1].cursor
    await expect(a.client.callTool({ name: "get_events", arguments: { id: SESSION, cursor: stream } })).rejects.toThrow(/INVALID_CURSOR.*shown cursors/)
    // with --no-redact, the real uid, a prefix of it and the stream cursor are taken
    for (const id of [r.uid, r.uid.slice(0, 12)]) {
      expect(answerOf(await plain.client.callTool({ name: "get_session", arguments: { id } })).session.id).toBe(SESSION)
    }
    const after = answerOf(await plain.client.callTool({ name: "get_events", arguments: { id: SESSION, cursor: stream, limit: 1 } }))
    expect(after.events.map((e: { eventId: string }) => e.eventId)).toEqual([exported(indexes[0], env, false)[2].eventId])
  })

  it("a team index (PostgreSQL) keys its shown ids with its own secret", async () => {
    const r = real()
    const url = await freshDatabase()
    const migrated = cli(["index", "migrate", "--index", url, "--json"], { env })
    expect(migrated.code, migrated.stderr).toBe(0)
    importClaude(url, path.dirname(path.dirname(log)), path.join(dir, "agents"), env)
    const pg1 = exported(url, env, true)
    const pg2 = exported(url, env, true)
    expect(pg1[0].sourceId).toMatch(/^hmac:[0-9a-f]{64}$/)
    expect(pg1[0].sourceId).not.toBe(r.sourceId)
    expect(pg1[0].sourceId).not.toBe(exported(indexes[0], env, true)[0].sourceId)
    expect(TAG.exec(pg1[0].cursor)![1]).not.toBe(r.tag)
    expect(pg2.map((e) => e.cursor)).toEqual(pg1.map((e) => e.cursor))
    expect(exported(url, env, false)[0].sourceId).toBe(r.sourceId)
  })
})
