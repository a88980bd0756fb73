import { afterAll } from "vitest"
/**
 * Shared helpers of the muse-agents tests: the fixture root, the adapter under
 * a given agents root, temporary roots, and file digests (to prove sources are
 * never written).
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type { IngestError } from "../../src/domain/errors.js"
import type { Locator } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { makeWith } from "../../src/layers/muse-agents/adapter.js"
import { AccessPolicy } from "../../src/services/AccessPolicy.js"
import { ImportLimits, type ImportLimitsShape } from "../../src/services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import * as SourceAccessNode from "../../src/layers/SourceAccessNode.js"
import { tempDir } from "../support/paths.js"

const here = nodePath.dirname(fileURLToPath(import.meta.url))

/** The committed fixture agents root. */
export const FIXTURE_ROOT = nodePath.resolve(here, "../../fixtures/muse-agents/agents")

/** The transcript path of a fixture agent under `root`. */
export const transcriptPath = (agent: string, root = FIXTURE_ROOT): string =>
  nodePath.join(root, agent, "sessions", `${agent}.jsonl`)

/** The locator of a fixture agent's transcript. */
export const locatorOf = (agent: string, root = FIXTURE_ROOT): Locator => ({
  locatorClass: "muse-agent-transcript",
  path: transcriptPath(agent, root)
})

/** Run `f` with the registry's muse-agents adapter under `agentsRoot`. */
export const withAdapter = <A, E>(
  agentsRoot: string,
  f: (adapter: SessionSourceAdapter) => Effect.Effect<A, E>,
  limits: Partial<ImportLimitsShape> = {}
): Effect.Effect<A, E | IngestError> =>
  Effect.gen(function*() {
    const adapter = yield* (yield* SessionSources).get("muse-agents")
    return yield* f(adapter)
  }).pipe(Effect.provide(App.layer({ agentsRoot }, limits)))

/** Run `f` with an adapter built on explicit process facts (env, home) and no `--agents-root`. */
export const withProcessAdapter = <A, E>(
  proc: { readonly env: Record<string, string | undefined>; readonly home: string },
  f: (adapter: SessionSourceAdapter) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.flatMap(makeWith(proc), f).pipe(
    Effect.provide(AccessPolicy.layer({})),
    Effect.provide(ImportLimits.layer()),
    Effect.provide(SourceAccessNode.layer)
  )

/** Collect a stream: the shared helper. */
export { collect } from "../support/run.js"

/** A fresh temporary folder (removed at exit, or earlier by {@link removeDir}): the shared helper. */
export { tempDir }

/** Remove a temporary folder. */
export const removeDir = (dir: string): void => fs.rmSync(dir, { recursive: true, force: true })

/** Copy the fixture root to a temporary root; returns the new root. */
export const copyFixtures = (): string => {
  const dir = tempDir()
  const root = nodePath.join(dir, "agents")
  fs.cpSync(FIXTURE_ROOT, root, { recursive: true })
  return root
}

/** Write a transcript `<root>/<agent>/sessions/<agent>.jsonl` with the given bytes. */
export const writeTranscript = (root: string, agent: string, content: string | Buffer): string => {
  const p = transcriptPath(agent, root)
  fs.mkdirSync(nodePath.dirname(p), { recursive: true })
  fs.writeFileSync(p, content)
  return p
}

/** Every entry under `dir` as a comparable snapshot: the shared helper. */
export { snapshotTree as digestTree } from "../support/paths.js"

/** One JSON line. */
export const jl = (o: unknown): string => JSON.stringify(o) + "\n"

/**
 * The error code an effect fails with, or `"succeeded"`. Tests assert on this
 * string rather than `Effect.flip`: a flipped success would fail the test with
 * a large non-Error value, which vitest's reporter can take very long to print.
 */
export const failureCode = <A, E>(self: Effect.Effect<A, E>): Effect.Effect<string> =>
  Effect.map(Effect.either(self), (r) => {
    if (r._tag === "Right") return "succeeded"
    const e = r.left as unknown
    return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : String(e)
  })

/** A maker of temporary folders for one test file, each removed after its tests (`afterAll`). */
export const freshDirs = (): (() => string) => {
  const temps: Array<string> = []
  afterAll(() => temps.forEach(removeDir))
  return () => {
    const dir = tempDir()
    temps.push(dir)
    return dir
  }
}
