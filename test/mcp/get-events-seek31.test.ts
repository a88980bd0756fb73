/**
 * Session 31 (tester30c F5): MCP `get_events` after a cursor reads the session from the cursor's event (its
 * `sequence`: `Index.eventsStream` from there), not from its first event: a late page of a long session costs what
 * an early one does. The rule kept: the pages, cursor after cursor, partition the session (no event twice, none
 * missed, each as one read of the whole session answers it, redaction included: a secret an earlier page's tool call
 * decided on, a secret-printing call's output on a later page, a token cut across two blocks of one response that
 * spans pages), on SQLite and PostgreSQL, redaction on and off. And a late page reads a bounded number of the session's
 * rows (counted through the Index service, not timed).
 */
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { getEvents } from "../../src/layers/mcp/answers.js"
import { Redaction } from "../../src/services/Redaction.js"
import { GHP, longSessionFixture } from "./long-session-fixture.js"

const { SESSION, session, engines, counted } = longSessionFixture("seek31")

type Answer = Effect.Effect.Success<ReturnType<typeof getEvents>>

/** Every page of the session, cursor after cursor (`limit`, `maxChars`): the events in the order answered. */
const allPages = (limit: number, maxChars: number) =>
  Effect.gen(function*() {
    const events: Array<Answer["events"][number]> = []
    let cursor: string | undefined
    for (let pages = 0; pages < 2000; pages++) {
      const a: Answer = yield* getEvents({ id: SESSION, limit, maxChars, ...(cursor === undefined ? {} : { cursor }) })
      events.push(...a.events)
      if (a.done) {
        expect(a.nextCursor).toBeNull()
        return events
      }
      expect(a.events.length).toBeGreaterThan(0)
      cursor = a.nextCursor!
    }
    throw new Error("no last page")
  })

describe("get_events pages resume at their cursor's event (tester30c F5)", () => {
  for (const { engine, index } of engines) {
    it(`${engine}: the pages partition the session as one read answers it, redaction on and off`, async () => {
      const events = session(200)
      const layer = await index(events)
      for (const redaction of [Redaction.layer, Redaction.off]) {
        const got = await Effect.runPromise(Effect.provide(
          Effect.gen(function*() {
            const one: Answer = yield* getEvents({ id: SESSION, limit: 100_000, maxChars: 1_000_000 })
            const paged: Record<string, ReadonlyArray<unknown>> = {}
            for (const [limit, maxChars] of [[1, 1_000_000], [3, 1_000_000], [7, 1_000_000], [50, 1_000_000], [100, 200]] as const) {
              paged[`${limit}/${maxChars}`] = yield* allPages(limit, maxChars)
            }
            return { one, paged }
          }),
          Layer.merge(layer, redaction)
        ))
        expect(got.one.done).toBe(true)
        expect(got.one.events.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId))
        for (const [name, pages] of Object.entries(got.paged)) expect(pages, name).toEqual(got.one.events)
        const text = JSON.stringify(got.one.events)
        if (redaction === Redaction.layer) {
          // decided on early, restated late; printed bare by a call pages before; cut across two blocks of one response
          for (const secret of ["tok-abcdef123456", "hunter2hunter", "sk_printed_value", "second line", GHP.slice(0, 12), GHP.slice(24)]) {
            expect(text).not.toContain(secret)
          }
          expect(got.one.events.at(-11)!.text).toMatch(/^restating \[REDACTED:[^\]]+\] \[REDACTED:[^\]]+\] \[REDACTED:/)
        } else {
          expect(text).toContain("sk_printed_value_0123456789")
        }
      }
    }, 240_000)

    it(`${engine}: a late page reads about the page's rows, not the session up to it`, async () => {
      const events = session(3000)
      const base = await index(events)
      for (const redaction of [Redaction.layer, Redaction.off]) {
        const counter = { rows: 0 }
        const got = await Effect.runPromise(Effect.provide(
          Effect.gen(function*() {
            // the first page (with redaction on, the session's secrets are gathered once: a read of every row)
            yield* getEvents({ id: SESSION, limit: 50 })
            // a cursor near the end: the one of the event 50 before the last, as an answer gave it
            const around: Answer = yield* getEvents({ id: SESSION, eventId: events.at(-60)!.eventId, context: 0 })
            counter.rows = 0
            const late: Answer = yield* getEvents({ id: SESSION, cursor: around.events[0].cursor, limit: 50 })
            return { late, rows: counter.rows }
          }),
          Layer.merge(counted(base, counter), redaction)
        ))
        expect(got.late.events.map((e) => e.eventId)).toEqual(events.slice(-59, -9).map((e) => e.eventId))
        // 50 answered, the few before the cursor read for its run, and one page of rows ahead: far fewer than the
        // ~2,990 rows before the cursor that a read from the session's first event takes
        expect(got.rows).toBeLessThanOrEqual(150)
      }
    }, 240_000)
  }
})
