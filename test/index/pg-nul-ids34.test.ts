/**
 * tester34b F1: on a team index, an MCP `get_session` / `get_events` / `search_sessions` `session` argument (or a
 * `session://` uri) holding U+0000 was a store failure (`-32603 STORE_UNAVAILABLE ... invalid byte sequence`, "run the
 * same command again") where a SQLite index answers "no such session" (`SOURCE_NOT_FOUND`): PostgreSQL's text cannot
 * take a U+0000 parameter, and the resolver passed the given id as it is where it compared uids. A session id that
 * holds U+0000 is stored escaped (src/layers/index/pg-text.ts) and found by that id; an id no session has is not
 * found; an event id holding U+0000 is no event; a machine filter holding one names no machine. Same on both engines.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { findSession, searchSessionFilter } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const NUL_ID = "sess-\u0000-nul"

const source: SourceInfo = {
  sourceKey: "src-nul",
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-nul" },
  summary: {},
  overview: { ...emptySourceSummary(), title: "Nul", workspace: "/w" }
}

const events = (): Array<SessionEvent> => {
  const e = mk("muse-agents", NUL_ID)
  return [e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: "please look at the quarterly report" })]
}

const tagOf = <A, E>(exit: Exit.Exit<A, E>): string | undefined =>
  Exit.isFailure(exit) ? (exit.cause as { error?: { _tag?: string } }).error?._tag : undefined

describe.each(engines)("ids holding U+0000 ($engine)", ({ newIndex }) => {
  it.effect("an id no session has is SourceNotFound, never a store failure; the session whose id holds U+0000 is found", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-nul34-"))
      yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.beginGeneration(source, 1, "test")
        yield* index.commitBatch({ source, generation: 1, events: events() }, () => Effect.void)
        yield* index.completeSource(source, null)

        for (const id of ["\u0000", "ses_\u0000", "nope\u0000x", "\ud800lone"]) {
          expect(tagOf(yield* Effect.exit(findSession(id))), JSON.stringify(id)).toBe("SourceNotFound")
          expect(tagOf(yield* Effect.exit(searchSessionFilter(id))), JSON.stringify(id)).toBe("SourceNotFound")
        }

        const found = yield* findSession(NUL_ID)
        expect(found.session.sessionId).toBe(NUL_ID)

        // a machine filter holding U+0000 or a lone surrogate names no machine (a team index names machines)
        if (index.namesMachines) {
          expect(yield* index.sessions({ machine: "m\u0000" })).toEqual([])
          expect(yield* index.sessions({ machine: "m\udc00" })).toEqual([])
        }

        // an event id holding U+0000 is no event of the session
        expect(Option.isNone(yield* index.eventsAround(found.session.sessionUid, "ev\u0000", 1, 1))).toBe(true)
      }).pipe(Effect.provide(indexLayer(target)))
    }), 120_000)
})
