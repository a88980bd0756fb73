/**
 * tester32a F13: a redacted `search_sessions` over a long run of consecutive assistant text events (no user line
 * between: a long autonomous turn) redacted the whole run again for each of its hits (and copied it for each), so a
 * run of 3,000 events took 80 s of processor time and one of 22,000 did not answer in 10 minutes, 1 GB held, the
 * server deaf meanwhile to SIGTERM, to the client's cancellation and to the end of its input. Here:
 * - the answer over a run of 600 events (hits in a third of them, a token cut across joints inside the run) is the
 *   answer over the same events broken into runs of 10 by user lines (the cuts left inside runs), the token hidden;
 * - what the search redacts is bounded by the run, not by hits x run: the Redaction's `event`/`eventIn` and `text`
 *   calls are counted (structural, not timed);
 * - over stdio with the official SDK client, a server busy on such a search of 20,000 events stops on SIGTERM
 *   (exit 130) and, cancelled then closed by its client, exits 0, each within seconds.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { ChildProcess } from "node:child_process"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Redaction } from "../../src/services/Redaction.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { type Connected, connect } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const GHP = ["ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"].join("")

/**
 * A Claude Code log: a first prompt, then `n` assistant text events (each a response of its own), a user line before
 * every `every`-th one when `every` > 0. Event `i` says `widget` when `i % 3 === 0`; at `cuts` a token is cut in
 * two across the joint of events `c` and `c + 1` (and `c + 1` says `widget`). `plain`: event `i` says `x<i>` only
 * (tester32a's repro: one word a block, so each joint's window reaches over the next blocks, up to 1,024 characters).
 */
const writeRun = (n: number, every: number, cuts: ReadonlyArray<number>, plain = false): string => {
  const dir = tempDir("si-longrun-")
  const proj = path.join(dir, "claude", "-home-k-x")
  fs.mkdirSync(proj, { recursive: true })
  const sid = "e9e9e9e9-0000-4000-8000-00000000000" + (every === 0 ? "1" : "2")
  const t0 = Date.parse("2026-11-30T13:00:00Z")
  const at = (i: number) => new Date(t0 + 1000 * i).toISOString()
  const user = (i: number, text: string) => ({
    parentUuid: null, isSidechain: false, userType: "external", cwd: "/srv/x", sessionId: sid, version: "2",
    uuid: `u-${i}`, timestamp: at(i), type: "user", message: { role: "user", content: text }
  })
  const text = (i: number) =>
    plain ? `x${i}` : cuts.includes(i) ? `step ${i} token ${GHP.slice(0, 17)}` : cuts.includes(i - 1) ? `${GHP.slice(17)} widget ${i} rotated` : i % 3 === 0 ? `widget ${i} checked` : `x${i} step`
  const lines: Array<unknown> = [user(-1, "run the long task")]
  for (let i = 0; i < n; i++) {
    if (every > 0 && i > 0 && i % every === 0) lines.push(user(i, "go on"))
    lines.push({
      parentUuid: null, isSidechain: false, userType: "external", cwd: "/srv/x", sessionId: sid, version: "2",
      uuid: `a-${i}`, timestamp: at(i), type: "assistant", requestId: `rq${i}`,
      message: { model: "claude-sonnet-4-5-20250929", id: `mx${i}`, role: "assistant", content: [{ type: "text", text: text(i) }], usage: { input_tokens: 1, output_tokens: 1 } }
    })
  }
  fs.writeFileSync(path.join(proj, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  const index = path.join(dir, "index.db")
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude"), "--agents-root", path.join(dir, "none")], {
    env: { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  })
  expect([0, 8], r.stderr).toContain(r.code)
  return index
}

/** What the Redaction was asked during a search: events redacted, texts redacted. */
interface Counts {
  events: number
  texts: number
}

/** The index of `file`, read-only, with the built-in redaction counting its `event`/`eventIn` and `text` calls in `counts`. */
const countingLayer = (file: string, counts: Counts) =>
  Layer.merge(
    IndexSqlite.layerReadonly(file),
    Layer.effect(
      Redaction,
      Effect.map(Redaction, (r) => ({
        ...r,
        text: (s: string) => {
          counts.texts++
          return r.text(s)
        },
        event: (e: Parameters<typeof r.event>[0]) => {
          counts.events++
          return r.event(e)
        },
        eventIn: (e: Parameters<typeof r.eventIn>[0], known: Parameters<typeof r.eventIn>[1]) => {
          counts.events++
          return r.eventIn(e, known)
        }
      }))
    ).pipe(Layer.provide(Redaction.layer))
  )

/** The second search (the session's secrets gathered by a first one), with what it asked the Redaction. */
const search = (index: string, query: string, limit: number) => {
  const counts: Counts = { events: 0, texts: 0 }
  return Effect.runPromise(Effect.gen(function*() {
    yield* searchSessions({ query, limit })
    counts.events = 0
    counts.texts = 0
    const answer = yield* searchSessions({ query, limit })
    return { answer, counts: { ...counts } }
  }).pipe(Effect.provide(countingLayer(index, counts))))
}

describe("redacted search_sessions over a long run of assistant text (tester32a F13)", () => {
  const N = 600
  const cuts = [100, 301, 454]
  const oneRun = writeRun(N, 0, cuts)
  const broken = writeRun(N, 10, cuts)

  it("answers as over the same events broken into short runs, the token cut across joints hidden", async () => {
    const a = await search(oneRun, "widget", 500)
    const b = await search(broken, "widget", 500)
    // every third event and the three events after a cut: 200 + 3 (the cuts' next events are no multiples of 3)
    expect(a.answer.count).toBe(203)
    const shown = (x: typeof a.answer) => x.hits.map((h) => ({ field: h.field, snippet: h.snippet, score: h.score, title: h.title }))
    // (the user lines of the broken session are no hits; its events' ids, `line-<n>`, differ by them)
    expect(shown(a.answer)).toEqual(shown(b.answer))
    const json = JSON.stringify(a.answer)
    expect(json).not.toContain(GHP.slice(4, 17))
    expect(json).not.toContain(GHP.slice(17))
    // the hit after each cut: the token's rest went with its first part (the marker ends the block before)
    const rests = a.answer.hits.filter((h) => /widget \d+ rotated/.test(h.snippet))
    expect(rests.map((h) => h.snippet.trim().startsWith("widget"))).toEqual([true, true, true])
  }, 300_000)

  it("redacts each event of the run once per search, not once per hit in it (structural)", async () => {
    const a = await search(oneRun, "widget", 5)
    expect(a.answer.count).toBe(5)
    // one run of 600 events, 203 hits in it: each event redacted once (was 203 x 600 = 121,800), each joint's window
    // a few texts (was 203 x 599 joints)
    expect(a.counts.events).toBeLessThanOrEqual(N + 1)
    expect(a.counts.texts).toBeLessThanOrEqual(10 * N)
  }, 300_000)
})

describe("a server busy on such a search stops when told (tester32a F13)", () => {
  const index = writeRun(20_000, 0, [], true)
  const servers: Array<Connected> = []
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined)
  })

  /**
   * The server's process, a promise of its exit (its code, when), and `arm`: once told to stop, a server still
   * running 20 s later is killed (the test then fails on its exit's code and time, and leaves no process behind).
   */
  const exitOf = (s: Connected) => {
    const child = (s.client.transport as unknown as { _process: ChildProcess })._process
    let killer: NodeJS.Timeout | undefined
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.on("exit", (code) => {
        clearTimeout(killer)
        resolve({ code, at: Date.now() })
      }))
    return { child, exited, arm: () => (killer = setTimeout(() => child.kill("SIGKILL"), 20_000)) }
  }

  /**
   * A first search of one hit (one read of the run): the session's secrets are gathered (its events read whole, a
   * page at a time, yielding), so that the next search's work is its hits', where the signal lands (3 s in: before
   * the fix, by then in a synchronous loop over the hits that ran for minutes; now the search may be over already).
   */
  const gathered = async (s: Connected) => {
    const r = await s.client.callTool({ name: "search_sessions", arguments: { query: "x12345", limit: 5 } }, undefined, { timeout: 600_000 })
    expect((r as { structuredContent?: { count?: number } }).structuredContent?.count).toBe(1)
  }

  it("SIGTERM during the search: exit 130 within seconds (it ran on for minutes)", async () => {
    const s = await connect(["--index", index])
    servers.push(s)
    const { child, exited, arm } = exitOf(s)
    await gathered(s)
    // `x1*`: thousands of candidate hits in one run of 20,000 events
    s.client.callTool({ name: "search_sessions", arguments: { query: "x1*", limit: 5 } }, undefined, { timeout: 600_000 }).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 3000))
    const sent = Date.now()
    child.kill("SIGTERM")
    arm()
    const { code, at } = await exited
    expect(code).toBe(130)
    expect(at - sent).toBeLessThan(10_000)
  }, 300_000)

  it("cancelled by the client, then its input closed: exit 0 within seconds", async () => {
    const s = await connect(["--index", index])
    servers.push(s)
    const { exited, arm } = exitOf(s)
    await gathered(s)
    const abort = new AbortController()
    const call = s.client.callTool({ name: "search_sessions", arguments: { query: "x1*", limit: 5 } }, undefined, { timeout: 600_000, signal: abort.signal })
      .catch(() => undefined)
    await new Promise((r) => setTimeout(r, 3000))
    const sent = Date.now()
    abort.abort()
    arm()
    // (cancelled in flight, or answered first: either way the server then has nothing left to do)
    await call
    await s.client.close()
    const { code, at } = await exited
    expect(code).toBe(0)
    expect(at - sent).toBeLessThan(10_000)
  }, 300_000)
})
