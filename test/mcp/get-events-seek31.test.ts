/**
 * Session 31 (tester30c F5): MCP `get_events` after a cursor reads the session from the cursor's event (its
 * `sequence`: `Index.eventsStream` from there), not from its first event: a late page of a long session costs what
 * an early one does. The rule kept: the pages, cursor after cursor, partition the session (no event twice, none
 * missed, each as one read of the whole session answers it, redaction included: a secret an earlier page's tool call
 * decided on, a secret-printing call's output on a later page, a token cut across two blocks of one response that
 * spans pages), on SQLite and PostgreSQL, redaction on and off. And a late page reads a bounded number of the session's
 * rows (counted through the Index service, not timed).
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

const SESSION = "sess-seek31"
const SOURCE_ID = `sha256:${SESSION}`
const GHP = "ghp_" + "Zq7".repeat(12)

const source: SourceInfo = {
  sourceKey: "src-seek31",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-seek31" },
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
      const file = nodePath.join(tempDir("si-seek31-"), "index.db")
      await Effect.runPromise(Effect.provide(write(events), IndexSqlite.layer(file)))
      return IndexSqlite.layerReadonly(file)
    }
  },
  {
    engine: "postgres",
    index: async (events: ReadonlyArray<SessionEvent>) => {
      const url = await Effect.runPromise(migratedDatabase)
      const layer = IndexPostgres.layer({ url, machine: "laptop-31" })
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
