/**
 * tester20b F1 through the MCP server: a token right after an ANSI colour code was kept by the rules, so
 * `search_sessions` answered a prefix query with hits for the right prefix and none for a wrong one (an oracle), and a
 * tool call's snippet showed the token whole. With the colour code a boundary, the token is redacted: two indexes that
 * differ only in the token's value answer alike, and no snippet holds it.
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
import * as path from "node:path"

const source: SourceInfo = {
  sourceKey: "src-ansi",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-ansi" },
  summary: {},
  overview: { ...emptySourceSummary(), title: "coloured output", workspace: "/srv/team/app" }
}

// built at run time so that no secret scanner flags this file
const TOKENS = [["sk_", "live_", "yVaQXekW9LctXb03rEMU64yT"].join(""), ["sk_", "live_", "Zq7mPn2RtW8xLk4sBv6cDe9F"].join("")] as const

/** A session whose tool call prints a token in colour, in its input (ESC as JSON writes it) and in the assistant's text. */
const events = (token: string): Array<SessionEvent> => {
  const e = mk("claude-code", "sess-ansi")
  return [
    e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: "show the stripe key in green" }),
    e("tool_call", { role: "assistant", occurredAt: "2026-03-01T10:00:01.000Z", toolName: "Bash", toolInput: { command: `echo a2: \x1b[32m${token}\x1b[0m` } }),
    e("message", { role: "assistant", occurredAt: "2026-03-01T10:00:02.000Z", text: `printed a2: \x1b[32m${token}\x1b[0m in green` })
  ]
}

const build = (i: 0 | 1) =>
  Effect.gen(function*() {
    const target = path.join(tempDir("si-ansi-"), "index.db")
    yield* Effect.gen(function*() {
      const index = yield* Index
      yield* index.beginGeneration(source, 1, "test")
      yield* index.commitBatch({ source, generation: 1, events: events(TOKENS[i]) }, () => Effect.void)
      yield* index.completeSource(source, null)
    }).pipe(Effect.provide(indexLayer(target)))
    return target
  })

const answer = (target: string, query: string) =>
  searchSessions({ query }).pipe(
    Effect.map((a) => a.hits.map((h) => `${h.eventId ?? "title"}:${h.field}:${h.snippet}`)),
    Effect.provide(Layer.merge(indexLayer(target), Redaction.layer))
  )

describe("tester20b F1: search_sessions reads no coloured token back", () => {
  it.effect("a prefix of the token finds nothing, whatever the token; a hit's snippet holds the marker", () =>
    Effect.gen(function*() {
      const a = yield* build(0)
      const b = yield* build(1)
      for (const q of ["sk_live_yVaQ*", "sk_live_Zq7m*", "sk_live_*", TOKENS[0].slice(8), TOKENS[1].slice(8), "a2 sk_live_yVaQ*"]) {
        expect(yield* answer(a, q), q).toEqual([])
        expect(yield* answer(a, q), q).toEqual(yield* answer(b, q))
      }
      for (const q of ["echo", "green", "printed"]) {
        const hits = yield* answer(a, q)
        expect(hits.length, q).toBeGreaterThan(0)
        expect(hits, q).toEqual(yield* answer(b, q))
        for (const h of hits) for (const t of TOKENS) expect(h, q).not.toContain(t.slice(8, 14))
      }
      expect((yield* answer(a, "echo")).join("\n")).toContain("[REDACTED:stripe-key]")
    }))
})
