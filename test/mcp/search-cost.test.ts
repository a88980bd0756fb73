/**
 * What a redacted `search_sessions` reads. Counted here, not timed:
 * - a session's secrets (its events read whole) are gathered once, and not again by the next search while the
 *   session is as it was; a session changed since (another generation) is read anew (tester21b F2);
 * - searches that arrive together on a session share that one gathering (tester22b F4: five parallel searches of a
 *   60,000-event session each gathered it, ~10 s each against ~2 s alone), and so do `get_session` pages of one
 *   transcript (rendered once);
 * - the index is asked once, for its ranking window, also when every match lies inside a redacted value (tester22b
 *   F4b: it was asked again in rounds, 5x the limit then 4x more, each round's hits read again: 33-45 s on a
 *   20,000-event session, every time), and the hits' events are read in slices of the session around them, one a run of
 *   close hits: bounded by the hits, not the session's size (tester29b F4: 20,000 queries for 5,000 hits).
 * In process, over the SQLite index of a generated session, its Index counting the calls.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { getSession, searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { BIG_SESSION_ID, bigSessionIndex } from "../support/big-session.js"
import { RANK_WINDOW } from "../../src/domain/search/limits.js"

/** What the index was asked: event streams (a session read whole, a page at a time: `eventsStream`, `forEachStoredEvent`), contexts, searches (their limits), whole loads. */
interface Calls {
  streams: number
  around: number
  searches: Array<number>
  loads: number
}
const noCalls = (): Calls => ({ streams: 0, around: 0, searches: [], loads: 0 })

/** The index of `file`, read-only, counting its calls; `generation` is added to each session row's (a changed session). */
const counting = (file: string, calls: Calls, bump: { generation: number }) =>
  Layer.effect(
    Index,
    Effect.map(Index, (shape): IndexShape => ({
      ...shape,
      search: (query, filter) => {
        calls.searches.push(filter.limit ?? 0)
        return shape.search(query, filter)
      },
      events: (uid) => {
        calls.loads++
        return shape.events(uid)
      },
      findSessions: (id) =>
        Effect.map(shape.findSessions(id), (rows) => rows.map((r) => ({ ...r, generation: r.generation + bump.generation }))),
      eventsStream: (uid, pageSize) => {
        calls.streams++
        return shape.eventsStream(uid, pageSize)
      },
      // (session 30: a session's secrets are gathered through the stored events, SQLite's other read of a session whole)
      ...(shape.forEachStoredEvent === undefined ? {} : {
        forEachStoredEvent: (uid, f, pageSize, kept) => {
          calls.streams++
          return shape.forEachStoredEvent!(uid, f, pageSize, kept)
        }
      }),
      eventsAround: (uid, id, before, after) => {
        calls.around++
        return shape.eventsAround(uid, id, before, after)
      }
    }))
  ).pipe(Layer.provide(IndexSqlite.layerReadonly(file)), Layer.merge(Redaction.layer))

describe("search_sessions with redaction: what it reads", () => {
  it("the session's secrets gathered once while it is unchanged; the hits' events in one slice where they are dense", async () => {
    // 400 events, the 200 user ones each saying "invoice": every search below has 200 candidate hits
    const { index } = bigSessionIndex(400)
    const calls = noCalls()
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
    // the secrets gathered (one stream); the 200 hits' events read in slices, one a run of close hits (here one: the
    // hits are every other event), not 200 contexts
    expect(first.calls.streams).toBe(1)
    expect(first.calls.around).toBe(1)
    // the same answer, the session's secrets kept: the hits' slice only
    expect(second.answer).toEqual(first.answer)
    expect(second.calls.streams).toBe(1)
    expect(second.calls.around).toBe(2)
    // the session changed (another generation): its secrets gathered anew
    expect(third.answer).toEqual(first.answer)
    expect(third.calls.streams).toBe(2)
  })

  it("searches and get_session pages that arrive together on a session share one gathering, one rendering", async () => {
    const { index } = bigSessionIndex(400)
    const calls = noCalls()
    const answers = await Effect.runPromise(
      Effect.all(
        // one hit each (a context read alone, no pass over the session): the only stream is the secrets' gathering
        Array.from({ length: 5 }, (_, i) => searchSessions({ query: `"question ${2 * i + 2} about"`, limit: 5 })),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(counting(index, calls, { generation: 0 })))
    )
    expect(answers.map((a) => a.count)).toEqual([1, 1, 1, 1, 1])
    expect(calls.streams).toBe(1)
    const pages = await Effect.runPromise(
      Effect.all(Array.from({ length: 5 }, () => getSession({ id: BIG_SESSION_ID, maxChars: 1000 })), { concurrency: "unbounded" })
        .pipe(Effect.provide(counting(index, calls, { generation: 0 })))
    )
    expect(new Set(pages.map((p) => p.page.text)).size).toBe(1)
    expect(calls.loads).toBe(1)
  })

  it("the hits' events read are bounded by the hits, not the session's size (tester29b F4)", async () => {
    // 4,000 events; the 300 user events among the last 600 say "invoice" (every other event), the 300 among the
    // first 600 say "ledger" (every other one), two pairs say both, far apart (each 1,000 events from the next)
    const far = new Set([1000, 2000])
    const { index } = bigSessionIndex(4000, (i) =>
      i >= 3400 ? `question ${i} about the invoice totals` : i < 600 ? `ledger line ${i}` : far.has(i) ? `invoice ${i} ledger` : `question ${i}`)
    const calls = noCalls()
    // the events the index's slices answered (`counting` counts the slices)
    const read = { events: 0 }
    const layer = Layer.effect(
      Index,
      Effect.map(Index, (shape): IndexShape => ({
        ...shape,
        eventsAround: (uid, id, before, after) =>
          Effect.tap(shape.eventsAround(uid, id, before, after), (o) =>
            Effect.sync(() => {
              if (Option.isSome(o)) read.events += o.value.events.length
            }))
      }))
    ).pipe(Layer.provide(counting(index, calls, { generation: 0 })), Layer.merge(Redaction.layer))
    const answer = await Effect.runPromise(
      Effect.gen(function*() {
        // a first search gathers the session's secrets (its events read whole: not what is counted here)
        const first = yield* searchSessions({ query: "ledger", limit: 5 })
        expect(first.count).toBe(5)
        const before = { streams: calls.streams }
        calls.around = 0
        read.events = 0
        const answer = yield* searchSessions({ query: "invoice", limit: 400 })
        // the secrets kept from the first search: no stream of the session for this one
        expect(calls.streams).toBe(before.streams)
        return answer
      }).pipe(Effect.provide(layer))
    )
    // every "invoice" event a hit: the 300 of the last 600 and the two far ones
    expect(answer.count).toBe(302)
    // the close hits in one slice, each far one in its own: 3 queries of the index's events, not 302 (one a hit,
    // as for a session 10 times the hits' number), nor a pass over its 4,000 events
    expect(calls.around).toBe(3)
    // what those slices read: the 600 events the close hits span, the far ones with their edges (4 events each side)
    expect(read.events).toBeLessThanOrEqual(600 + 2 * 9 + 8)
  })

  it("a search whose every match lies inside a redacted value asks the index once, for its ranking window", async () => {
    // 300 events holding "ghp" only inside a GitHub token (redacted)
    const { index } = bigSessionIndex(300, (i) => `note ${i}: token ghp_${"Rr9".repeat(11)}${String(i).padStart(3, "0")} stored`)
    const calls = noCalls()
    const answer = await Effect.runPromise(
      searchSessions({ query: "ghp", limit: 5 }).pipe(Effect.provide(counting(index, calls, { generation: 0 })))
    )
    expect(answer.count).toBe(0)
    expect(calls.searches).toEqual([RANK_WINDOW])
  })
})
