/**
 * The MCP `machine` filter with redaction on (tester28a F14): answers show a
 * machine redacted (`alice@corp.example.com` as `[REDACTED:email]`,
 * `/home/carol/laptop` as `~/laptop`), and the filter matched the name as
 * imported, so a client could not filter by the name it was given, and a
 * guess of the hidden name was confirmed one call at a time. The filter now
 * matches the machine as shown, as `workspace` does; with redaction off, the
 * name as imported. A team (PostgreSQL) index: a SQLite one names no machines.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { emptySourceSummary } from "../../src/domain/model.js"
import { listSessions, searchSessions } from "../../src/layers/mcp/answers.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { migratedDatabase } from "../support/pg.js"

/** Each machine's one session (`sess-<key>`), imported as that machine. */
const MACHINES = [
  ["mail", "alice@corp.example.com"],
  ["carol", "/home/carol/laptop"],
  ["bob", "/home/bob/laptop"],
  ["ci", "ci-runner-7"]
] as const

const source = (key: string): SourceInfo => ({
  sourceKey: `src-${key}`,
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: `work of ${key}`, workspace: "/srv/app" }
})

const build = Effect.gen(function*() {
  const url = yield* migratedDatabase
  for (const [key, machine] of MACHINES) {
    yield* Effect.gen(function*() {
      const index = yield* Index
      const src = { ...source(key), sourceKey: index.sourceKey("claude-code", source(key).locator) }
      const e = mk("claude-code", `sess-${key}`)
      yield* index.beginGeneration(src, 1, "test")
      yield* index.commitBatch({ source: src, generation: 1, events: [e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: "deploy the service" })] }, () => Effect.void)
      yield* index.completeSource(src, null)
    }).pipe(Effect.provide(indexLayer(url, machine)))
  }
  return url
})

describe("MCP machine filter (team index)", () => {
  const layers = (url: string, redact: boolean) => Layer.merge(indexLayer(url, "reader"), redact ? Redaction.layer : Redaction.off)
  const listed = (url: string, machine: string, redact = true) =>
    listSessions({ machine }).pipe(Effect.map((a) => a.sessions.map((s) => `${s.id} ${s.machine}`).sort()), Effect.provide(layers(url, redact)))
  const searched = (url: string, machine: string, redact = true) =>
    searchSessions({ query: "deploy", machine }).pipe(Effect.map((a) => a.hits.map((h) => `${h.sessionId} ${h.machine}`).sort()), Effect.provide(layers(url, redact)))

  it.effect("with redaction on, a machine is matched by the name answers show, never by a hidden name", () =>
    Effect.gen(function*() {
      const url = yield* build
      // What the answers show, unfiltered.
      const all = yield* listSessions({}).pipe(Effect.provide(layers(url, true)))
      expect(all.sessions.map((s) => `${s.id} ${s.machine}`).sort()).toEqual([
        "sess-bob ~/laptop",
        "sess-carol ~/laptop",
        "sess-ci ci-runner-7",
        "sess-mail [REDACTED:email]"
      ])
      // The names shown filter: each matches the sessions shown with it.
      expect(yield* listed(url, "[REDACTED:email]")).toEqual(["sess-mail [REDACTED:email]"])
      expect(yield* searched(url, "[REDACTED:email]")).toEqual(["sess-mail [REDACTED:email]"])
      expect(yield* listed(url, "~/laptop")).toEqual(["sess-bob ~/laptop", "sess-carol ~/laptop"])
      expect(yield* searched(url, "~/laptop")).toEqual(["sess-bob ~/laptop", "sess-carol ~/laptop"])
      // A name redaction keeps is matched as before.
      expect(yield* listed(url, "ci-runner-7")).toEqual(["sess-ci ci-runner-7"])
      expect(yield* searched(url, "ci-runner-7")).toEqual(["sess-ci ci-runner-7"])
      // The hidden names, right or wrong guesses alike, match nothing: no oracle.
      for (const guess of ["alice@corp.example.com", "mallory@corp.example.com", "/home/carol/laptop", "/home/zed/laptop", "ci-runner"]) {
        expect(yield* listed(url, guess), guess).toEqual([])
        expect(yield* searched(url, guess), guess).toEqual([])
      }
    }))

  it.effect("with redaction off, a machine is matched by its name as imported", () =>
    Effect.gen(function*() {
      const url = yield* build
      expect(yield* listed(url, "alice@corp.example.com", false)).toEqual(["sess-mail alice@corp.example.com"])
      expect(yield* searched(url, "/home/carol/laptop", false)).toEqual(["sess-carol /home/carol/laptop"])
      expect(yield* listed(url, "~/laptop", false)).toEqual([])
      expect(yield* searched(url, "[REDACTED:email]", false)).toEqual([])
    }))
})
