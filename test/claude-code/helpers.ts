/**
 * Shared helpers of the claude-code tests: the fixture root, the adapter
 * under a given root or process facts, fixture paths and locators.
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import type { IngestError } from "../../src/domain/errors.js"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { makeWith } from "../../src/layers/claude-code/adapter.js"
import * as SourceAccessNode from "../../src/layers/SourceAccessNode.js"
import { AccessPolicy } from "../../src/services/AccessPolicy.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import { SessionSources, type SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { fixturesDir, tempDir } from "../support/paths.js"

/** The committed fixture root (a `~/.claude/projects`). */
export const FIXTURE_ROOT = nodePath.join(fixturesDir, "claude-code", "projects")

export const BILLING = "-home-alice-code-billing-api"
export const WEBAPP = "-home-alice-src-web-app-v2"

/** The six fixture sessions: id → project folder. */
export const S = {
  S1: "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37",
  S2: "8d41f0a2-5c3e-4b7a-a9d2-6e1f3c7b9054",
  S3: "c6e9a7d3-1f82-4d5b-8e3a-9b0c4f6d2e18",
  S4: "5b7e2d94-0c6a-4f13-b8e5-71a9d3c2f680",
  S5: "e2a8c5f1-94b7-4d3e-a6f0-3c1d8b7e5a29",
  S6: "71c4e0b8-3d29-4a6f-8e17-b5f2a9c06d43"
} as const

/** The path of a fixture session under `root`. */
export const sessionPath = (id: string, root = FIXTURE_ROOT): string =>
  nodePath.join(root, id === S.S6 ? WEBAPP : BILLING, `${id}.jsonl`)

/** The locator of a fixture session under `root`. */
export const locatorOf = (id: string, root = FIXTURE_ROOT): Locator => ({ locatorClass: "claude-code-session-log", path: sessionPath(id, root) })

/** Run `f` with the registry's claude-code adapter under `claudeRoot`. */
export const withAdapter = <A, E>(
  claudeRoot: string,
  f: (adapter: SessionSourceAdapter) => Effect.Effect<A, E>
): Effect.Effect<A, E | IngestError> =>
  Effect.gen(function*() {
    const adapter = yield* (yield* SessionSources).get("claude-code")
    return yield* f(adapter)
  }).pipe(Effect.provide(App.layer({ claudeRoot })))

/** Run `f` with an adapter built on explicit process facts (env, home) and no `--claude-root`. */
export const withProcessAdapter = <A, E>(
  proc: { readonly env: Record<string, string | undefined>; readonly home: string },
  f: (adapter: SessionSourceAdapter) => Effect.Effect<A, E>,
  claudeRoot?: string
): Effect.Effect<A, E> =>
  Effect.flatMap(makeWith(proc), f).pipe(
    Effect.provide(AccessPolicy.layer(claudeRoot !== undefined ? { claudeRoot } : {})),
    Effect.provide(ImportLimits.layer()),
    Effect.provide(SourceAccessNode.layer)
  )

/** Copy the fixture root to a temporary folder; returns the new root. */
export const copyFixtures = (): string => {
  const root = nodePath.join(tempDir("si-claude-"), "projects")
  fs.cpSync(FIXTURE_ROOT, root, { recursive: true })
  return root
}

/** The native provenance of an event. */
export const nat = (e: SessionEvent): Record<string, any> => e.extensions["native.claude-code"] as Record<string, any>

export { collect } from "../support/run.js"
export { tempDir }
