/** The library's public entry point, used as an embedding Effect application would. */
import * as path from "node:path"
import { expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { SessionIngest, SessionSources } from "../src/index.js"
import { fixturesDir } from "./support/paths.js"

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
