/**
 * The redacted `search_sessions` is no oracle through negation (tester15
 * finding 1): a negated term (`-word`, `NOT word`, `-prefix*`, a negated
 * phrase, a negated group) is checked against the redacted text of each hit,
 * as positive terms are, so two indexes that differ only in a secret's value
 * answer every query alike. On both engines (the MCP server serves a SQLite
 * file or a `postgres://` team index).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { searchSessions } from "../../src/layers/mcp/answers.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const source = (title: string): SourceInfo => ({
  sourceKey: "src-n",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-n" },
  summary: {},
  overview: { ...emptySourceSummary(), title, workspace: "/srv/team/app" }
})

/** One session whose messages and title hold a secret (a URL password, a GitHub token); the rest is the same. */
const events = (password: string): Array<SessionEvent> => {
  const e = mk("claude-code", "sess-n")
  return [
    e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: `connect with postgres://admin:${password}@db.example.com/prod` }),
    e("message", { role: "assistant", occurredAt: "2026-03-01T10:00:01.000Z", text: `postgres answered for admin after DB_PASSWORD=${password} on prod` }),
    e("message", { role: "user", occurredAt: "2026-03-01T10:00:02.000Z", text: "postgres is up again, thanks" })
  ]
}

const PASSWORDS = ["S3cr3tP4ss", "Zz9xWq7LkM"] as const
const TOKENS = ["ghp_" + "S3c".repeat(12), "ghp_" + "Zq7".repeat(12)] as const

/** Negated queries, each naming the first index's secret (or a part of it), the second's, or neither. */
const QUERIES = [
  "postgres -S3cr3tP4ss", "postgres -Zz9xWq7LkM", "postgres -WrongGuess",
  "postgres NOT S3cr3tP4ss", "postgres NOT Zz9xWq7LkM",
  "postgres -S3*", "postgres -Zz*", "postgres -S*", "postgres -Q*",
  "postgres -\"admin S3cr3tP4ss\"", "postgres -\"admin Zz9xWq7LkM\"", "postgres -\"admin S3\"*",
  "postgres -(S3* OR nothingelse)", "postgres -(admin Zz*)", "(postgres OR prod) -(admin AND S3cr3t*)",
  "(postgres -S3*) OR thanks", "postgres AND NOT (S3* OR Zz*)",
  "deploy -ghp_*", "deploy -ghp_S3c*", "deploy -ghp_Zq7*", "deploy NOT \"ghp_S3cS3c\"*"
]

describe.each(engines)("search_sessions with redaction on: a negation reads no secret back ($engine)", ({ newIndex }) => {
  const build = (i: 0 | 1) =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-negation-"))
      yield* Effect.gen(function*() {
        const index = yield* Index
        const src = source(`deploy with token ${TOKENS[i]} today`)
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({ source: src, generation: 1, events: events(PASSWORDS[i]) }, () => Effect.void)
        yield* index.completeSource(src, null)
      }).pipe(Effect.provide(indexLayer(target)))
      return target
    })
  const answer = (target: string, query: string, limit?: number) =>
    searchSessions({ query, limit }).pipe(
      Effect.map((a) => a.hits.map((h) => `${h.sessionId}:${h.eventId ?? "title"}:${h.field}:${h.snippet}`)),
      Effect.provide(Layer.merge(indexLayer(target), Redaction.layer))
    )

  it.effect("two indexes differing only in the secret's value answer every negated query alike", () =>
    Effect.gen(function*() {
      const a = yield* build(0)
      const b = yield* build(1)
      for (const q of QUERIES) {
        for (const limit of [undefined, 1, 2]) {
          expect(yield* answer(a, q, limit), `${q} (limit ${limit})`).toEqual(yield* answer(b, q, limit))
        }
      }
    }))

  it.effect("a negated secret excludes nothing: the redacted text does not hold it", () =>
    Effect.gen(function*() {
      const a = yield* build(0)
      // Every postgres event: the password is redacted in each, so `-S3*` and `-"admin S3cr3tP4ss"` exclude none.
      for (const q of ["postgres -S3cr3tP4ss", "postgres -S3*", "postgres -\"admin S3cr3tP4ss\"", "postgres -(S3* OR nothingelse)"]) {
        expect((yield* answer(a, q)).length, q).toBe(3)
      }
      // A word that is shown still excludes: the third message says thanks, the first two do not.
      expect((yield* answer(a, "postgres -thanks")).length).toBe(2)
      expect((yield* answer(a, "postgres -admin")).length).toBe(1)
      // The title's token is redacted: the title is found by deploy whatever its token begins with.
      expect(yield* answer(a, "deploy -ghp_S3c*")).toHaveLength(1)
    }))

  it.effect("hits the index ranks first but the negation drops are made up from the rest of the ranking window", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-negation-"))
      const e = mk("claude-code", "sess-r")
      const many = Array.from({ length: 12 }, (_, k) =>
        e("message", { role: "user", occurredAt: `2026-03-01T10:00:${String(10 + k)}.000Z`, text: "postgres postgres postgres thanks" }))
      const last = e("message", { role: "user", occurredAt: "2026-03-01T10:01:00.000Z", text: "postgres started once more on the prod host today" })
      yield* Effect.gen(function*() {
        const index = yield* Index
        const src = source("rounds")
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({ source: src, generation: 1, events: [...many, last] }, () => Effect.void)
        yield* index.completeSource(src, null)
      }).pipe(Effect.provide(indexLayer(target)))
      expect(yield* answer(target, "postgres -thanks", 1)).toEqual([`sess-r:${last.eventId}:text:postgres started once more on the prod host today`])
    }))
})
