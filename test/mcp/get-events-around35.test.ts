/**
 * Session 35: MCP `get_events` around an `eventId` reads the session from a few events before it (the event's
 * `sequence`, found by one index lookup: `Index.eventsAround`), not from the session's first event, as `get_events`
 * after a cursor does since session 31. The rule kept: the window around each event (every event of the session, with
 * contexts 0, 1, 5 and 40) is the slice of one read of the whole session, redaction included (a secret an earlier tool
 * call decided on restated late, a secret-printing call's output, a token cut across two blocks of one long response
 * whose run the window's edge cuts), on SQLite and PostgreSQL, redaction on and off; and a window late in a long
 * session reads a bounded number of the session's rows (counted through the Index service, not timed).
 */
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { getEvents } from "../../src/layers/mcp/answers.js"
import { Redaction } from "../../src/services/Redaction.js"
import { GHP, longSessionFixture } from "./long-session-fixture.js"

const { SESSION, session, engines, counted } = longSessionFixture("around35")

type Answer = Effect.Effect.Success<ReturnType<typeof getEvents>>

describe("get_events around an eventId reads from near the event (session 35)", () => {
  for (const { engine, index } of engines) {
    it(`${engine}: each window is the slice of one read of the session, redaction on and off`, async () => {
      const events = session(200)
      const layer = await index(events)
      for (const redaction of [Redaction.layer, Redaction.off]) {
        const got = await Effect.runPromise(Effect.provide(
          Effect.gen(function*() {
            const one: Answer = yield* getEvents({ id: SESSION, limit: 100_000, maxChars: 10_000_000 })
            const windows: Array<{ readonly at: number; readonly context: number; readonly answer: Answer }> = []
            for (const context of [0, 1, 5, 40]) {
              for (let at = 0; at < events.length; at += context === 0 ? 1 : context === 40 ? 7 : 3) {
                windows.push({ at, context, answer: yield* getEvents({ id: SESSION, eventId: events[at].eventId, context, maxChars: 10_000_000 }) })
              }
            }
            return { one, windows }
          }),
          Layer.merge(layer, redaction)
        ))
        expect(got.one.events.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId))
        for (const { answer, at, context } of got.windows) {
          const expected = got.one.events.slice(Math.max(0, at - context), at + context + 1)
          const more = at + context + 1 < events.length
          expect({ at, context, events: answer.events, done: answer.done, nextCursor: answer.nextCursor }).toEqual({
            at, context, events: expected, done: !more, nextCursor: more ? expected.at(-1)!.cursor : null
          })
        }
        if (redaction === Redaction.layer) {
          const text = JSON.stringify(got.windows.map((w) => w.answer.events))
          for (const secret of ["tok-abcdef123456", "hunter2hunter", "sk_printed_value", "second line", GHP.slice(0, 12), GHP.slice(24)]) {
            expect(text).not.toContain(secret)
          }
        }
      }
    }, 240_000)

    it(`${engine}: a window late in a long session reads about the window's rows, not the session up to it`, async () => {
      const events = session(3000)
      const base = await index(events)
      for (const redaction of [Redaction.layer, Redaction.off]) {
        const counter = { rows: 0 }
        const got = await Effect.runPromise(Effect.provide(
          Effect.gen(function*() {
            // a first call (with redaction on, the session's secrets are gathered once: a read of every row)
            yield* getEvents({ id: SESSION, limit: 5 })
            counter.rows = 0
            const late: Answer = yield* getEvents({ id: SESSION, eventId: events.at(-60)!.eventId, context: 5 })
            return { late, rows: counter.rows }
          }),
          Layer.merge(counted(base, counter), redaction)
        ))
        expect(got.late.events.map((e) => e.eventId)).toEqual(events.slice(-65, -54).map((e) => e.eventId))
        // the window's 11 events and the few before it read for their runs, and one page of rows ahead: far fewer than
        // the ~2,990 rows before the event that a read from the session's first event takes
        expect(got.rows).toBeLessThanOrEqual(150)
      }
    }, 240_000)
  }
})
