/** The library's public entry point, used as an embedding Effect application would. */
import * as path from "node:path"
import { expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { SessionIngest, SessionSources } from "../src/index.js"
import { fixturesDir, tempDir } from "./support/paths.js"

it.effect("an Effect program streams an export through SessionIngest.layer and catches typed errors by tag", () =>
  Effect.gen(function*() {
    const museCode = yield* (yield* SessionSources).get("muse-code")
    const kinds = yield* museCode.stream({
      locatorClass: "manual-export",
      path: path.join(fixturesDir, "muse-code", "export", "abnormal.json")
    }).pipe(Stream.map((e) => e.kind), Stream.runCollect)
    expect([...kinds]).toEqual(["proposed", "tool_batch.effect.started"])
    const caught = yield* museCode.inspect({ locatorClass: "manual-export", path: path.join(fixturesDir, "nope.json") }).pipe(
      Effect.map(() => "found"),
      Effect.catchTag("SourceNotFound", (e) => Effect.succeed(e.code))
    )
    expect(caught).toBe("SOURCE_NOT_FOUND")
  }).pipe(Effect.provide(SessionIngest.layer({ workspaceRoots: [fixturesDir] }))))

it.effect("the README's import example works through the public entry point", () =>
  Effect.gen(function*() {
    const { Importer, ImporterLayer, ImportFaults, ImportProgress, Index, IndexSqlite, SessionIngest: SI } = yield* Effect.promise(
      () => import("../src/index.js")
    )
    const { Layer } = yield* Effect.promise(() => import("effect"))
    const dir = tempDir()
    const policy = { workspaceRoots: [fixturesDir], museRoots: [], agentsRoot: path.join(fixturesDir, "muse-agents", "agents") }
    const layer = ImporterLayer.layer.pipe(
      Layer.provideMerge(
        Layer.mergeAll(SI.layer(policy), IndexSqlite.layer(path.join(dir, "index.db")), ImportFaults.none, ImportProgress.silent)
      )
    )
    const { report, sessions } = yield* Effect.gen(function*() {
      const report = yield* Effect.flatMap(Importer, (i) => i.run(ImporterLayer.planFromPolicy(policy, {})))
      const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({ provider: "muse-agents" }))
      return { report, sessions }
    }).pipe(Effect.provide(layer))
    expect(report.coverage).toBe("complete")
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(["sess-cron", "sess-delegate", "sess-messy"])
  }))
