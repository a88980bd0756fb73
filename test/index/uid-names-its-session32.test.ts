/**
 * tester32a F9: a `ses_…` uid names the session with that uid, never a session whose native id equals that string
 * (a Muse agents or AgentMux session id is free text: a transcript can carry another session's uid as its id). The
 * one resolver (`findSession`, what show/export/replay and MCP get_session read with) and the search filter of a
 * session (`searchSessionFilter`: search --session, MCP search_sessions) take the uid's session only, on both
 * engines; a prefix that both a uid and such a native id start with is ambiguous (README `show`: "its id, its
 * `ses_…` uid or a unique prefix"), and the native id still names its own session.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { findSession, searchSessionFilter } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer, writeSource } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const source = (key: string, title: string): SourceInfo => ({
  sourceKey: key,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title, workspace: "/w" }
})

const events = (sessionId: string, word: string, at: string): Array<SessionEvent> => {
  const e = mk("muse-agents", sessionId)
  return [e("message", { role: "user", occurredAt: at, text: `please look at the ${word} report` })]
}

const put = writeSource

describe.each(engines)("a ses_… uid names its own session ($engine)", ({ newIndex }) => {
  it.effect("the uid's session wins over a later session whose native id is that uid; its prefix is ambiguous", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-uid32-"))
      yield* Effect.gen(function*() {
        const index = yield* Index
        yield* put(source("src-cron", "Cron"), events("sess-cron", "genuine", "2026-03-01T10:00:00.000Z"))
        const uid = (yield* index.sessions({})).find((s) => s.sessionId === "sess-cron")!.sessionUid
        expect(uid.startsWith("ses_")).toBe(true)
        // The impostor: a later session (so "the latest" of the id) whose native id is the uid.
        yield* put(source("src-evil", "Evil"), events(uid, "impostor", "2026-04-01T10:00:00.000Z"))
        const evilUid = (yield* index.sessions({})).find((s) => s.sessionId === uid)!.sessionUid
        expect(evilUid).not.toBe(uid)

        const found = yield* findSession(uid)
        expect(found.session.sessionUid).toBe(uid)
        expect(found.session.sessionId).toBe("sess-cron")
        // Picked by its uid: no other session is offered (never the uid just given).
        expect(found.others.map((o) => o.sessionUid)).toEqual([])

        // search --session <uid>: that session's hits only.
        const filter = yield* searchSessionFilter(uid)
        const hits = yield* index.search("report", { ...filter })
        expect(hits.map((h) => h.sessionUid)).toEqual([uid])

        // The native ids still name their own sessions.
        expect((yield* findSession("sess-cron")).session.sessionUid).toBe(uid)
        expect((yield* findSession(evilUid)).session.sessionUid).toBe(evilUid)

        // A prefix both the uid and the impostor's native id start with names two sessions: refused, both named.
        const prefix = uid.slice(0, 12)
        const exit = yield* Effect.exit(findSession(prefix))
        expect(Exit.isFailure(exit)).toBe(true)
        const error = Exit.isFailure(exit) ? (exit.cause as { error?: { _tag?: string; message?: string } }).error : undefined
        expect(error?._tag).toBe("InvalidArgument")
        expect(error?.message).toContain(`${uid} (a native session id, of session ${evilUid})`)
      }).pipe(Effect.provide(indexLayer(target)))
    }), 120_000)
})
