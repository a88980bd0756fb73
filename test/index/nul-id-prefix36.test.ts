/**
 * A session id holding U+0000 found by a prefix (session 36). A Muse agents session id is the header's `session_id`,
 * any non-empty string (src/layers/muse-agents/source.ts), so a source can give one holding U+0000; its exact id was
 * found (test/index/pg-nul-ids34.test.ts), but on a SQLite index a prefix holding the U+0000 found nothing:
 * SQLite's `length()` of text stops at the first NUL, so the lookup compared a cut prefix with the whole one. The rule
 * (docs/index.md, `findSession`: "a unique prefix of one, as `git` takes an abbreviated hash"): a prefix that holds
 * a U+0000 finds the sessions whose id starts with it, and only those (one: that session; several: ambiguous, each
 * named; none: not found); a prefix ending before the U+0000 does too. Same on both engines.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { emptySourceSummary } from "../../src/domain/model.js"
import { findSession, searchSessionFilter } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer, writeSource } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const NUL_A = "sess-\u0000-alpha"
const NUL_B = "sess-\u0000-beta"
const NUL_C = "sess-\u0000\u0000c"
const PLAIN = "sess-plain"

const sourceOf = (sid: string): SourceInfo => ({
  sourceKey: `src-${JSON.stringify(sid)}`,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${encodeURIComponent(sid)}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: "Nul", workspace: "/w" }
})

const errorOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? (exit.cause as { error?: { _tag?: string; details?: { candidates?: ReadonlyArray<string> } } }).error : undefined

describe.each(engines)("a session id holding U+0000, found by a prefix ($engine)", ({ newIndex }) => {
  it.effect("a prefix holding or preceding the U+0000 names the sessions whose id starts with it", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-nul-prefix36-"))
      yield* Effect.gen(function*() {
        const index = yield* Index
        for (const [i, sid] of [NUL_A, NUL_B, NUL_C, PLAIN].entries()) {
          const e = mk("muse-agents", sid)
          yield* writeSource(sourceOf(sid), [e("message", { role: "user", occurredAt: `2026-03-0${i + 1}T10:00:00.000Z`, text: "hello" })])
        }
        const ids = (rows: ReadonlyArray<{ sessionId: string }>) => rows.map((r) => r.sessionId).sort()

        // the lookup itself: every session whose id starts with the prefix, and no other
        expect(ids(yield* index.findSessionsByPrefix("sess-\u0000", 10))).toEqual([NUL_A, NUL_B, NUL_C].sort())
        expect(ids(yield* index.findSessionsByPrefix("sess-\u0000-", 10))).toEqual([NUL_A, NUL_B])
        expect(ids(yield* index.findSessionsByPrefix("sess-\u0000\u0000", 10))).toEqual([NUL_C])
        expect(ids(yield* index.findSessionsByPrefix("sess-", 10))).toEqual([NUL_A, NUL_B, NUL_C, PLAIN].sort())
        expect(ids(yield* index.findSessionsByPrefix("sess-\u0000-x", 10))).toEqual([])
        expect(ids(yield* index.findSessionsByPrefix("\u0000", 10))).toEqual([])

        // a unique prefix holding the U+0000 names its session (show, MCP get_session, search --session)
        for (const [prefix, sid] of [["sess-\u0000-a", NUL_A], ["sess-\u0000-b", NUL_B], ["sess-\u0000\u0000", NUL_C], ["sess-p", PLAIN]] as const) {
          expect((yield* findSession(prefix)).session.sessionId, JSON.stringify(prefix)).toBe(sid)
          const filter = yield* searchSessionFilter(prefix)
          expect(filter.sessionUids).toHaveLength(1)
        }
        // a uid's prefix still names its session
        const a = (yield* findSession(NUL_A)).session
        expect((yield* findSession(a.sessionUid.slice(0, 20))).session.sessionId).toBe(NUL_A)
        // several: ambiguous, each named; none: not found
        const several = errorOf(yield* Effect.exit(findSession("sess-\u0000-")))
        expect(several?._tag).toBe("InvalidArgument")
        expect([...(several?.details?.candidates ?? [])].sort()).toEqual([NUL_A, NUL_B])
        expect(errorOf(yield* Effect.exit(findSession("sess-\u0000-gamma")))?._tag).toBe("SourceNotFound")
      }).pipe(Effect.provide(indexLayer(target)))
    }), 120_000)
})
