/**
 * tester30b F1: while a redacted `search_sessions` of a big session ran, the server answered nothing (a ping sent
 * 1.5 s in waited 19.5 s, until the search ended; a cancel could not land). The search's per-hit work (each hit's
 * event read and redacted) now yields between slices of hits, as `get_session` yields between slices of events
 * (docs/mcp.md, Cancellation): a ping sent during the search is answered before the search is. Over stdio, with the
 * official SDK client, as MCP clients run the server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Redaction } from "../../src/services/Redaction.js"
import { bigSessionIndex } from "../support/big-session.js"
import { type Connected, connect } from "./helpers.js"

describe("search_sessions with redaction yields between slices of hits (tester30b F1)", () => {
  it("another fiber runs many times while the hits of a search are read and redacted", async () => {
    // 4,000 events: the 2,000 prompts each say `deploy` and hold a distinct caught password
    const { index } = bigSessionIndex(4000, (i) => `deploy step ${i} token ${"pass" + "word"}=Pw${i}xx!`)
    const layer = Layer.merge(IndexSqlite.layerReadonly(index), Redaction.layer)
    const { ran, count } = await Effect.runPromise(Effect.gen(function*() {
      // a first search gathers the session's secrets (its events read whole, a page at a time): kept for the next
      yield* searchSessions({ query: "deploy", limit: 5 })
      // the second search's work is the hits': 2,000 read in slices and each redacted
      const ticks = { n: 0 }
      const ticker = yield* Effect.fork(Effect.forever(Effect.zipRight(Effect.sync(() => ticks.n++), Effect.yieldNow())))
      const answer = yield* searchSessions({ query: "deploy", limit: 5 })
      const ran = ticks.n
      yield* Fiber.interrupt(ticker)
      return { ran, count: answer.count }
    }).pipe(Effect.provide(layer)))
    expect(count).toBe(5)
    // a yield every 50 of the 2,000 hits: tens of turns for the other fiber (20 here); one synchronous loop over the
    // hits, as before, gave it none (0)
    expect(ran).toBeGreaterThanOrEqual(10)
  }, 600_000)
})

describe("search_sessions with redaction lets the server answer meanwhile (tester30b F1)", () => {
  let server: Connected
  beforeAll(async () => {
    // 3,000 events: the 1,500 prompts each say `deploy` and hold a distinct caught password
    const { index } = bigSessionIndex(3000, (i) => `deploy step ${i} token ${"pass" + "word"}=Pw${i}xx!`)
    server = await connect(["--index", index], { XDG_CONFIG_HOME: path.join(path.dirname(index), "xdg") })
  }, 180_000)
  afterAll(async () => server?.close())

  it("a ping sent while a search of 1,500 hits runs is answered before the search (over stdio)", async () => {
    const order: Array<string> = []
    const search = server.client.callTool({ name: "search_sessions", arguments: { query: "deploy", limit: 5 } }, undefined, { timeout: 600_000 })
      .then((r) => {
        order.push("search")
        return r
      })
    // a ping each 100 ms until one is answered (the first may arrive before the server reads the search)
    let answered = false
    while (!answered && order.length === 0) {
      await new Promise((res) => setTimeout(res, 100))
      await Promise.race([server.client.ping().then(() => {
        if (order.length === 0) order.push("ping")
        answered = true
      }), search])
    }
    const result = await search as { structuredContent?: { count?: number; hits?: Array<{ snippet: string }> } }
    expect(result.structuredContent?.count).toBe(5)
    for (const h of result.structuredContent?.hits ?? []) expect(h.snippet).not.toMatch(/Pw\d+xx!/)
    expect(order[0]).toBe("ping")
  }, 600_000)
})
