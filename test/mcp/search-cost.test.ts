/**
 * What a redacted `search_sessions` reads (tester21b F2): a search of a large session answered with redaction on
 * cost ~0.1-0.2 s a hit (limit 1000: 83 s, past an MCP client's default 60 s timeout). Counted here, not timed:
 * - the index is asked for the context of at most `limit` hits (it was asked for every hit of the 5x oversample);
 * - a session's secrets (its events read whole) are gathered once, and not again by the next search while the
 *   session is as it was; a session changed since (another generation) is read anew.
 * In process, over the SQLite index of a generated session, its Index counting the calls.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { bigSessionIndex } from "../support/big-session.js"

/** The index of `file`, read-only, counting its calls; `generation` is added to each session row's (a changed session). */
const counting = (file: string, calls: { streams: number; around: number }, bump: { generation: number }) =>
  Layer.effect(
    Index,
    Effect.map(Index, (shape): IndexShape => ({
      ...shape,
      findSessions: (id) =>
        Effect.map(shape.findSessions(id), (rows) => rows.map((r) => ({ ...r, generation: r.generation + bump.generation }))),
      eventsStream: (uid, pageSize) => {
        calls.streams++
        return shape.eventsStream(uid, pageSize)
      },
      eventsAround: (uid, id, before, after) => {
        calls.around++
        return shape.eventsAround(uid, id, before, after)
      }
    }))
  ).pipe(Layer.provide(IndexSqlite.layerReadonly(file)), Layer.merge(Redaction.layer))

describe("search_sessions with redaction: what it reads", () => {
  it("context of at most limit hits; the session's secrets gathered once while it is unchanged", async () => {
    // 400 events, the 200 user ones each saying "invoice": every search below has 200 candidate hits
    const { index } = bigSessionIndex(400)
    const calls = { streams: 0, around: 0 }
    const bump = { generation: 0 }
    const [first, second, third] = await Effect.runPromise(Effect.gen(function*() {
      const first = yield* searchSessions({ query: "invoice", limit: 10 })
      const afterFirst = { ...calls }
      const second = yield* searchSessions({ query: "invoice", limit: 10 })
      const afterSecond = { ...calls }
      bump.generation = 1
      const third = yield* searchSessions({ query: "invoice", limit: 10 })
      return [{ answer: first, calls: afterFirst }, { answer: second, calls: afterSecond }, { answer: third, calls: { ...calls } }]
    }).pipe(Effect.provide(counting(index, calls, bump))))
    expect(first.answer.count).toBe(10)
    // one context read per hit answered, none for the oversample's other hits
    expect(first.calls.around).toBe(10)
    expect(first.calls.streams).toBe(1)
    // the same answer, the session's secrets kept
    expect(second.answer).toEqual(first.answer)
    expect(second.calls.streams).toBe(1)
    expect(second.calls.around).toBe(20)
    // the session changed (another generation): read anew
    expect(third.answer).toEqual(first.answer)
    expect(third.calls.streams).toBe(2)
  })
})
