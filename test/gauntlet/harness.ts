/**
 * The gauntlet's harness (issue 7, "The gauntlet"): run one entry point of one
 * provider through the library's registry (`App.layer(policy)`) or the
 * importer, and check the three rules every case shares:
 *
 * - no defect: the effect is run with `Effect.exit`; its exit must be a
 *   success or a `Fail` whose error carries a `code` of the error family
 *   (`exitCodeOf`); a `Die` or an interruption fails the test with a short
 *   message (never a huge value: vitest's printer can hang on those);
 * - no hang: each case runs under a 2 s vitest timeout ({@link GAUNTLET_TIMEOUT})
 *   and its elapsed time is asserted too (a blocked event loop can starve a timer);
 *   "a single 64 MiB line" under {@link BIG_LINE_HANG_LIMIT} ({@link limitOf}):
 *   reading 64 MiB takes ~1 s alone and several at load 6+ on two cores, so
 *   there the limit guards against a hang (an endless loop, a wait that never
 *   ends, reading the line over and over), not speed (the bench measures that);
 * - sources untouched: every watched folder is digested before and after
 *   (every file's sha256, every symlink's target, every folder), so a byte
 *   written or a file created beside a source fails the case.
 *
 * @module
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, expect } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type ErrorCode, exitCodeOf, type IngestError, isIngestError } from "../../src/domain/errors.js"
import type { DiscoveryReport, Inspection, Locator, ProviderId, SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import type { ImportReport } from "../../src/services/Importer.js"
import { type DiscoverRequest, SessionSources, type StreamOptions } from "../../src/services/SessionSource.js"
import { importOnce } from "../support/index.js"
import { snapshotTree } from "../support/paths.js"

/** Per-case time limit, ms (issue 7: "no hang (each under 2 s)"). */
export const GAUNTLET_TIMEOUT = 2000

/**
 * Limit of the "a single 64 MiB line" cases, ms: a hang guard that a loaded
 * machine does not trip (a case reading the line a few times over, or
 * never finishing, still fails it).
 */
export const BIG_LINE_HANG_LIMIT = 60_000

/** The time limit of case `id`, ms: {@link BIG_LINE_HANG_LIMIT} for `line-64mib`, else {@link GAUNTLET_TIMEOUT}. */
export const limitOf = (id: string): number => (id === "line-64mib" ? BIG_LINE_HANG_LIMIT : GAUNTLET_TIMEOUT)

/** The four entry points of the gauntlet. */
export type EntryPoint = "inspect" | "stream" | "discover" | "import"

// ---------------------------------------------------------------------------
// Outcomes

/** A settled run: a value, or a typed failure with its code. Defects never settle (they fail the test). */
export type Outcome<A> =
  | { readonly _tag: "ok"; readonly value: A }
  | { readonly _tag: "fail"; readonly code: ErrorCode; readonly error: IngestError }

const short = (s: string, n = 1500) => (s.length > n ? s.slice(0, n) + "…" : s)

/**
 * Run `self` to an {@link Outcome}. A `Die`, an interruption, or a failure
 * outside the error family is a defect: the returned effect fails the test
 * with a short `Error`.
 */
export const settle = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Outcome<A>, never, R> =>
  Effect.flatMap(Effect.exit(self), (exit): Effect.Effect<Outcome<A>> => {
    if (Exit.isSuccess(exit)) return Effect.succeed({ _tag: "ok", value: exit.value } as const)
    const cause = exit.cause
    if (Cause.isDie(cause) || Cause.isInterrupted(cause)) {
      return Effect.die(new Error(`defect (not a typed failure): ${short(Cause.pretty(cause))}`))
    }
    const failure = Cause.failureOption(cause)
    if (Option.isNone(failure)) return Effect.die(new Error(`no failure in the cause: ${short(Cause.pretty(cause))}`))
    const e = failure.value as unknown
    if (!isIngestError(e) || !(e.code in exitCodeOf)) {
      return Effect.die(new Error(`a failure outside the error family: ${short(String(e))}`))
    }
    return Effect.succeed({ _tag: "fail", code: e.code, error: e } as const)
  })

/** A readable one-line summary of an outcome, for assertion messages. */
export const describeOutcome = (o: Outcome<unknown>): string =>
  o._tag === "ok" ? "ok" : `${o.code}: ${short(o.error.message, 300)}`

/** Expect a typed failure with `code`. */
export const expectFail = (o: Outcome<unknown>, code: ErrorCode): void => {
  expect(o._tag === "fail" ? o.code : `succeeded`, describeOutcome(o)).toBe(code)
}

/** Expect a success and answer its value. */
export const expectOk = <A>(o: Outcome<A>): A => {
  if (o._tag !== "ok") expect.fail(`expected success, got ${describeOutcome(o)}`)
  return (o as { value: A }).value
}

// ---------------------------------------------------------------------------
// Temporary folders and digests

const made: Array<string> = []
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** A fresh temporary folder (real path), removed after the current test. */
export const caseDir = (prefix = "gauntlet-"): string => {
  const d = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))
  made.push(d)
  return d
}

/** A temporary folder kept for the whole file (big generated inputs); the caller removes it. */
export const fileDir = (prefix = "gauntlet-big-"): string =>
  fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))

/** Every entry below `dir` as a comparable snapshot (shared with the other suites). */
export const snapshotDir = snapshotTree

/**
 * Run `self` with the rules of the module doc: settled (no defect), timed
 * (under `options.limit`, ms, default {@link GAUNTLET_TIMEOUT}), and with every folder of `watch`
 * byte-identical afterwards (or equal to `expectedAfter()` when the case
 * itself writes to the sources, e.g. a growing file).
 */
export const guarded = <A, E, R>(
  watch: ReadonlyArray<string>,
  self: Effect.Effect<A, E, R>,
  options: { readonly expectedAfter?: () => Record<string, Record<string, string>>; readonly limit?: number } = {}
): Effect.Effect<Outcome<A>, never, R> =>
  Effect.gen(function*() {
    const before: Record<string, Record<string, string>> = {}
    for (const w of watch) before[w] = snapshotDir(w)
    const t0 = Date.now()
    const outcome = yield* settle(self)
    const elapsed = Date.now() - t0
    expect(elapsed, `took ${elapsed} ms`).toBeLessThan(options.limit ?? GAUNTLET_TIMEOUT)
    const expected = options.expectedAfter?.() ?? before
    for (const w of watch) expect(snapshotDir(w), `sources under ${w} changed`).toEqual(expected[w])
    return outcome
  })

// ---------------------------------------------------------------------------
// Entry points, through the library

/**
 * The policy every case adds to its own: nothing read from the user's home
 * folder. The agents root holds one agent folder without a transcript (an
 * explicitly named root that is missing, or holds no agent folder at all,
 * would make an import partial).
 */
export const isolatedPolicy = (privateDir: string, policy: Partial<AccessPolicyShape>): Partial<AccessPolicyShape> => ({
  workspaceRoots: [nodePath.join(privateDir, "no-workspace")],
  museRoots: [],
  agentsRoot: nodePath.dirname(emptyFolder(nodePath.join(privateDir, "no-agents", "no-transcript"))),
  agentmuxStore: nodePath.join(privateDir, "no-store", "filestore.db"),
  stateFile: nodePath.join(privateDir, "state.db"),
  ...policy
})

const emptyFolder = (dir: string): string => {
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

const adapter = (provider: ProviderId) => Effect.flatMap(SessionSources, (s) => s.get(provider))

/** `inspect` of the registry's adapter under `policy`. */
export const inspect = (provider: ProviderId, policy: Partial<AccessPolicyShape>, locator: Locator) =>
  Effect.flatMap(adapter(provider), (a) => a.inspect(locator)).pipe(Effect.provide(App.layer(policy))) as Effect.Effect<
    Inspection,
    IngestError
  >

/** `stream` of the registry's adapter under `policy`, collected; `tap` runs after each event is pulled. */
export const stream = (
  provider: ProviderId,
  policy: Partial<AccessPolicyShape>,
  locator: Locator,
  options: StreamOptions & { readonly tap?: (e: SessionEvent, i: number) => void } = {}
): Effect.Effect<Array<SessionEvent>, IngestError> =>
  Effect.flatMap(adapter(provider), (a) => {
    let i = 0
    return Stream.runCollect(
      a.stream(locator, options).pipe(Stream.tap((e) => Effect.sync(() => options.tap?.(e, i++))))
    ).pipe(Effect.map(Chunk.toArray))
  }).pipe(Effect.provide(App.layer(policy)))

/** `discover` of the registry's adapter under `policy`. */
export const discover = (provider: ProviderId, policy: Partial<AccessPolicyShape>, request: DiscoverRequest = {}) =>
  Effect.flatMap(adapter(provider), (a) => a.discover(request)).pipe(Effect.provide(App.layer(policy))) as Effect.Effect<
    DiscoveryReport,
    IngestError
  >

/** One `import` (the importer over a fresh index file in `privateDir`) of the plan `policy` implies. */
export const importRun = (
  privateDir: string,
  policy: Partial<AccessPolicyShape>,
  options: { readonly agents?: ReadonlyArray<string>; readonly exports?: ReadonlyArray<string>; readonly index?: string } = {}
): Effect.Effect<ImportReport, IngestError> => {
  const full: AccessPolicyShape = {
    workspaceRoots: policy.workspaceRoots ?? [],
    museRoots: policy.museRoots ?? [],
    agentsRoot: policy.agentsRoot,
    agentmuxStore: policy.agentmuxStore,
    stateFile: policy.stateFile
  }
  const plan = planFromPolicy(full, { agents: options.agents, exports: options.exports, batchSize: 100 })
  return importOnce(policy, options.index ?? nodePath.join(privateDir, "index.db"), plan)
}

/** Per-code counts of rejected sources of an import report (empty object when none). */
export const rejectedCodes = (r: ImportReport): Record<string, number> => ({ ...r.sources.rejectedByCode })

/** Write `<root>/<rel>` (folders created); answers the path. */
export const put = (root: string, rel: string, bytes: string | Buffer): string => {
  const p = nodePath.join(root, rel)
  fs.mkdirSync(nodePath.dirname(p), { recursive: true })
  fs.writeFileSync(p, bytes)
  return p
}
