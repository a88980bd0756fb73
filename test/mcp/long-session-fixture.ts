/**
 * The long session the MCP `get_events` paging tests read (session 31's cursor pages, session 35's windows around an
 * eventId): turns with secrets decided early and restated late, a secret-printing call, one long response (a run) with
 * a token cut across two of its blocks; written to a new index of each engine (SQLite, PostgreSQL); and an Index
 * whose session rows read are counted. `tag` names the session, its source and its temp folders.
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { encodeCursor } from "../../src/domain/cursor.js"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { tempDir } from "../support/paths.js"
import { migratedDatabase } from "../support/pg.js"

/** The GitHub token the long response cuts across two blocks. */
export const GHP = "ghp_" + "Zq7".repeat(12)

/** The fixture of session `sess-<tag>`: its source, `session(n)`, the engines and `counted`. */
export const longSessionFixture = (tag: string) => {
  const SESSION = `sess-${tag}`
  const SOURCE_ID = `sha256:${SESSION}`

  const source: SourceInfo = {
    sourceKey: `src-${tag}`,
    provider: "claude-code",
    locator: { locatorClass: "muse-agent-transcript", path: `/x/src-${tag}` },
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
        const file = nodePath.join(tempDir(`si-${tag}-`), "index.db")
        await Effect.runPromise(Effect.provide(write(events), IndexSqlite.layer(file)))
        return IndexSqlite.layerReadonly(file)
      }
    },
    {
      engine: "postgres",
      index: async (events: ReadonlyArray<SessionEvent>) => {
        const url = await Effect.runPromise(migratedDatabase)
        const layer = IndexPostgres.layer({ url, machine: `laptop-${tag}` })
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

  return { SESSION, SOURCE_ID, source, session, write, engines, counted }
}
