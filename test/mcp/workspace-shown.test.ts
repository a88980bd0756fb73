/**
 * The MCP workspace filter with redaction on (tester15 finding 8): a
 * `workspace` is matched against the workspace as shown (a home folder's
 * user name is `~`), so `list_sessions` and `search_sessions` answer
 * `/home/bob` and `/home/alice` alike: the filter does not tell the user
 * name redaction hides.
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
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const source = (key: string, workspace: string): SourceInfo => ({
  sourceKey: key,
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: `work in ${key}`, workspace }
})

describe.each(engines)("MCP workspace filter ($engine)", ({ newIndex }) => {
  const build = Effect.gen(function*() {
    const target = yield* newIndex(tempDir("si-wsshown-"))
    yield* Effect.gen(function*() {
      const index = yield* Index
      for (const [key, ws] of [["evil", "/home/bob/evil"], ["team", "/srv/team/app"], ["hw", "/homework/notes"]] as const) {
        const src = source(key, ws)
        const e = mk("claude-code", `sess-${key}`)
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({ source: src, generation: 1, events: [e("message", { role: "user", occurredAt: "2026-03-01T10:00:00.000Z", text: "deploy the service" })] }, () => Effect.void)
        yield* index.completeSource(src, null)
      }
    }).pipe(Effect.provide(indexLayer(target)))
    return target
  })
  const layers = (target: string, redact = true) => Layer.merge(indexLayer(target), redact ? Redaction.layer : Redaction.off)
  const listed = (target: string, workspace: string, redact = true) =>
    listSessions({ workspace }).pipe(Effect.map((a) => a.sessions.map((s) => `${s.id} ${s.workspace}`).sort()), Effect.provide(layers(target, redact)))
  const searched = (target: string, workspace: string, redact = true) =>
    searchSessions({ query: "deploy", workspace }).pipe(Effect.map((a) => a.hits.map((h) => h.sessionId).sort()), Effect.provide(layers(target, redact)))

  it.effect("a home folder matches by what is shown (~), whatever user name the filter guesses", () =>
    Effect.gen(function*() {
      const target = yield* build
      for (const guess of ["/home/bob", "/home/alice", "/home/zz"]) {
        expect(yield* listed(target, guess), guess).toEqual(["sess-evil ~/evil"])
        expect(yield* searched(target, guess), guess).toEqual(["sess-evil"])
      }
      for (const guess of ["/home/bob/evil", "/home/alice/evil", "~/evil"]) {
        expect(yield* listed(target, guess), guess).toEqual(["sess-evil ~/evil"])
      }
      expect(yield* listed(target, "~/evil/")).toEqual(["sess-evil ~/evil"])
      expect(yield* listed(target, "/home/bob/other")).toEqual([])
      expect(yield* searched(target, "/home/bob/other")).toEqual([])
      // A folder redaction keeps is filtered as before.
      expect(yield* listed(target, "/srv/team")).toEqual(["sess-team /srv/team/app"])
      expect(yield* searched(target, "/srv/team")).toEqual(["sess-team"])
      expect(yield* listed(target, "/srv/tea")).toEqual([])
    }))

  // tester21b F8: `/` and `/home` (folders above the workspaces) matched nothing, `/home/` neither.
  it.effect.each([true, false])("a folder holds the workspaces at it and below it, a path component at a time (redaction %s)", (redact) =>
    Effect.gen(function*() {
      const target = yield* build
      const ids = (xs: ReadonlyArray<string>) => xs.map((x) => x.split(" ")[0])
      for (const all of ["/", "//"]) {
        expect(ids(yield* listed(target, all, redact)), all).toEqual(["sess-evil", "sess-hw", "sess-team"])
        expect(yield* searched(target, all, redact), all).toEqual(["sess-evil", "sess-hw", "sess-team"])
      }
      for (const home of ["/home", "/home/", "/home//"]) {
        expect(ids(yield* listed(target, home, redact)), home).toEqual(["sess-evil"])
        expect(yield* searched(target, home, redact), home).toEqual(["sess-evil"])
      }
      expect(ids(yield* listed(target, "/homework", redact))).toEqual(["sess-hw"])
      expect(yield* searched(target, "/homework", redact)).toEqual(["sess-hw"])
      expect(ids(yield* listed(target, "/srv/team/", redact))).toEqual(["sess-team"])
      // not a component: nothing
      for (const none of ["/hom", "/srv/tea", "/nonexistent-si-f8", "home"]) {
        expect(yield* listed(target, none, redact), none).toEqual([])
        expect(yield* searched(target, none, redact), none).toEqual([])
      }
    }))
})
