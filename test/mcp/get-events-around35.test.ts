/**
 * Session 35: MCP `get_events` around an `eventId` reads the session from a few events before it (the event's
 * `sequence`, found by one index lookup: `Index.eventsAround`), not from the session's first event, as `get_events`
 * after a cursor does since session 31. The rule kept: the window around each event (every event of the session, with
 * contexts 0, 1, 5 and 40) is the slice of one read of the whole session, redaction included (a secret an earlier tool
 * call decided on restated late, a secret-printing call's output, a token cut across two blocks of one long response
 * whose run the window's edge cuts), on SQLite and PostgreSQL, redaction on and off; and a window late in a long
 * session reads a bounded number of the session's rows (counted through the Index service, not timed).
 */
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { encodeCursor } from "../../src/domain/cursor.js"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { getEvents } from "../../src/layers/mcp/answers.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape, type SourceInfo } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { tempDir } from "../support/paths.js"
import { migratedDatabase } from "../support/pg.js"

const SESSION = "sess-around35"
const SOURCE_ID = `sha256:${SESSION}`
const GHP = "ghp_" + "Zq7".repeat(12)

const source: SourceInfo = {
  sourceKey: "src-around35",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-around35" },
  summary: {},
  overview: { ...emptySourceSummary(), title: "deploy the release", workspace: "/srv/app" }
}

/** A session of `n` turns or more with secrets decided early and restated late, a printing call, and a long response. */
const session = (n: number): Array<SessionEvent> => {
  const make = mk("claude-code", SESSION)
  const e = (kind: string, fields: Partial<SessionEvent> = {}) => {
    const x = make(kind, fields)
    return { ...x, cursor: encodeCursor({ v: 1, src: SOURCE_ID, seq: x.sequence }) }
  }
  const turn = (i: number) => [
    e("message", { role: "user", text: `question ${i}: how do the totals round?` }),
    e("message", { role: "assistant", text: `answer ${i}: per line, then the sum` })
  ]
  const out: Array<SessionEvent> = [
    e("message", { role: "user", text: "deploy the release" }),
    e("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "t1", toolInput: { command: "deploy", env: { API_TOKEN: "tok-abcdef123456" } } }),
    e("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "t2", toolInput: { command: "export DB_PASSWORD=hunter2hunter && npm run migrate" } }),
    e("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "t3", toolInput: { command: "doppler secrets get STRIPE_KEY --plain" } })
  ]
  for (let i = 0; i < 20; i++) out.push(...turn(i))
  // the printing call's output, pages after it
  out.push(e("tool-result", { role: "user", toolCallId: "t3", text: "sk_printed_value_0123456789\nsecond line", isError: false }))
  for (let i = 20; i < 30; i++) out.push(...turn(i))
  // one response of 30 blocks (a run), a token cut across two of them
  for (let k = 0; k < 30; k++) {
    const text = k === 14 ? `block ${k} use ${GHP.slice(0, 20)}` : k === 15 ? `${GHP.slice(20)} for the push, block ${k}` : `block ${k} of the long answer`
    out.push(e("message", { role: "assistant", text }))
  }
  let i = 30
  while (out.length < n) out.push(...turn(i++))
  out.push(e("message", { role: "assistant", text: "restating tok-abcdef123456 hunter2hunter sk_printed_value_0123456789" }))
  for (let j = 0; j < 5; j++) out.push(...turn(i++))
  return out
}

const write = (events: ReadonlyArray<SessionEvent>) =>
  Effect.gen(function*() {
    const index = yield* Index
    yield* index.beginGeneration(source, 1, "test")
    yield* index.commitBatch({ source, generation: 1, events }, () => Effect.void)
    yield* index.completeSource(source, null)
  })

/** The engines: a new index of each holding `events`, and a reader layer of it. */
const engines = [
  {
    engine: "sqlite",
    index: async (events: ReadonlyArray<SessionEvent>) => {
      const file = nodePath.join(tempDir("si-around35-"), "index.db")
      await Effect.runPromise(Effect.provide(write(events), IndexSqlite.layer(file)))
      return IndexSqlite.layerReadonly(file)
    }
  },
  {
    engine: "postgres",
    index: async (events: ReadonlyArray<SessionEvent>) => {
      const url = await Effect.runPromise(migratedDatabase)
      const layer = IndexPostgres.layer({ url, machine: "laptop-35" })
      await Effect.runPromise(Effect.provide(write(events), layer))
      return layer
    }
  }
] as const

/** The Index of `base` with every session row it reads counted (`eventsStream` and `forEachStoredEvent`). */
const counted = (base: Layer.Layer<Index, unknown>, counter: { rows: number }) =>
  Layer.provide(
    Layer.effect(
      Index,
      Effect.map(Index, (i): IndexShape => ({
        ...i,
        eventsStream: (uid, size, from) =>
          Stream.mapChunks(i.eventsStream(uid, size, from), (c) => {
            counter.rows += c.length
            return c
          }),
        forEachStoredEvent: i.forEachStoredEvent === undefined ? undefined : (uid, f, size, kept) =>
          i.forEachStoredEvent!(uid, (x) => {
            counter.rows++
            f(x)
          }, size, kept)
      }))
    ),
    base
  )

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
