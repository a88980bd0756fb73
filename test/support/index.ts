/** Layers and helpers for index tests. */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import type { SessionEvent } from "../../src/domain/model.js"
import { ImportFaults, Importer, ImportProgress, type ImportPlan, type ImportReport } from "../../src/services/Importer.js"
import * as App from "../../src/layers/app.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import type { CommitPoint } from "../../src/services/Index.js"

/** The machine the PostgreSQL layer writes for in tests, unless one is named. */
export const TEST_MACHINE = "test-machine"

/**
 * The index layer of `target`: a `postgres://` URL is the PostgreSQL layer
 * (writing for `machine`), anything else a SQLite file. How the engine-
 * parameterized tests run the same cases against both.
 */
export const indexLayer = (target: string, machine: string = TEST_MACHINE) =>
  IndexPostgres.isPostgresUrl(target) ? IndexPostgres.layer({ url: target, machine }) : IndexSqlite.layer(target)

/**
 * Write `events` as source `src`'s generation 1 into the index in context, committed in batches of `batch` (1,000
 * unless given), and complete the source: how the index tests put a few sessions in an index without an importer.
 */
export const writeSource = (src: SourceInfo, events: ReadonlyArray<SessionEvent>, batch = 1000) =>
  Effect.gen(function*() {
    const index = yield* Index
    yield* index.beginGeneration(src, 1, "test")
    for (let i = 0; i < events.length; i += batch) {
      yield* index.commitBatch({ source: src, generation: 1, events: events.slice(i, i + batch) }, () => Effect.void)
    }
    yield* index.completeSource(src, null)
  })

/** The library, an index in `file`, and the importer, with optional faults. */
export const importerLayer = (
  policy: Partial<AccessPolicyShape>,
  file: string,
  faults: Layer.Layer<ImportFaults> = ImportFaults.none,
  machine?: string,
  access?: SourceAccessShape
) => {
  const app = App.layer(policy, {}, access)
  const index = indexLayer(file, machine)
  return ImporterLayer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(app, index, faults, ImportProgress.silent))
  )
}

/** Run one import of `plan` against the index (file or URL), in its own scope (a fresh connection: like a new process). */
export const importOnce = (
  policy: Partial<AccessPolicyShape>,
  file: string,
  plan: ImportPlan,
  faults?: Layer.Layer<ImportFaults>,
  machine?: string,
  /** The source access to read through (default: the Node layer); see `./faulty-access.ts`. */
  access?: SourceAccessShape
) => Effect.flatMap(Importer, (i) => i.run(plan)).pipe(Effect.provide(importerLayer(policy, file, faults, machine, access)))

/** Everything in the index, for row-by-row comparison. */
export const dumpIndex = (file: string) => Effect.flatMap(Index, (i) => i.dump).pipe(Effect.provide(indexLayer(file)))

/** A fault layer that dies at the `n`-th time `point` is reached. */
export const crashAt = (point: CommitPoint, n = 1): Layer.Layer<ImportFaults> => {
  let hits = 0
  return Layer.succeed(ImportFaults, {
    at: (p) => (p === point && ++hits === n ? Effect.die(`injected crash at ${point} #${n}`) : Effect.void)
  })
}

/** The sessions (without their generation) and every session's events, as the query commands see them. */
export const indexView = (file: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const sessions = yield* i.sessions({})
    const out: Array<unknown> = []
    for (const s of [...sessions].sort((a, b) => a.sessionUid.localeCompare(b.sessionUid))) {
      const { generation: _g, ...row } = s
      out.push({ row, events: yield* i.events(s.sessionUid) })
    }
    return out
  }).pipe(Effect.provide(indexLayer(file)))

/** The native session ids the index lists, sorted. */
export const sessionIds = (file: string) =>
  Effect.map(Effect.flatMap(Index, (i) => i.sessions({})), (ss) => ss.map((s) => s.sessionId).sort()).pipe(
    Effect.provide(indexLayer(file))
  )

let freshRuns = 0

/** Import again into `index` and into a fresh index in `dir`: the two must show the same sessions and events. */
export const expectEqualsFresh = (policy: Partial<AccessPolicyShape>, index: string, dir: string) =>
  Effect.gen(function*() {
    const plan = ImporterLayer.planFromPolicy(policy, { batchSize: 3 })
    const report = yield* importOnce(policy, index, plan)
    const fresh = path.join(dir, `fresh-${freshRuns++}.db`)
    yield* importOnce(policy, fresh, plan)
    expect(yield* indexView(index)).toEqual(yield* indexView(fresh))
    return report
  })

/** A file rewritten in place (same inode) with `edit` applied to its text, its mtime moved past the file-time tick. */
export const rewriteInPlace = (file: string, edit: (s: string) => string) => {
  const before = fs.statSync(file)
  fs.writeFileSync(file, edit(fs.readFileSync(file, "utf8")))
  fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 5000))
}

/**
 * A damaged source (emptied, zeroed in place, zeroed in part) imported again: its import kept what was indexed and
 * reported it (`SOURCE_EMPTIED` of `provider` naming `file`, a restore remedy, the index as `view` with sessions `ids`);
 * again the same while the file stays so; then, `original` written back, read as usual (complete, nothing
 * superseded, the same index). `broken`: the damaged import's report (its own checks are the caller's).
 */
export const expectKeptThenRestored = async (o: {
  readonly provider: string
  readonly file: string
  readonly policy: Partial<AccessPolicyShape>
  readonly index: string
  readonly plan: ImportPlan
  readonly broken: ImportReport
  readonly ids: unknown
  readonly view: unknown
  readonly original: Buffer
  /** What the cause's problem says (e.g. where the zeroing starts). */
  readonly problem?: string
  /** The cause's code (default `SOURCE_EMPTIED`; a file cut back: `SOURCE_TRUNCATED`). */
  readonly code?: string
}): Promise<void> => {
  const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)
  const code = o.code ?? "SOURCE_EMPTIED"
  const cause = o.broken.causes.find((x) => x.code === code)
  expect(cause, JSON.stringify(o.broken.causes)).toBeDefined()
  expect(cause!.provider).toBe(o.provider)
  expect(cause!.path).toBe(o.file)
  if (o.problem !== undefined) expect(cause!.problem).toContain(o.problem)
  expect(cause!.remedy).toMatch(/backup|restore/i)
  expect(await run(sessionIds(o.index))).toEqual(o.ids)
  expect(await run(indexView(o.index))).toEqual(o.view)
  // Again: the same (nothing changes while the file stays as it is).
  const again = await run(importOnce(o.policy, o.index, o.plan))
  expect(again.causes.map((x) => x.code)).toContain(code)
  expect(await run(indexView(o.index))).toEqual(o.view)
  // Restored: read as usual, nothing new, complete.
  fs.writeFileSync(o.file, o.original)
  const restored = await run(importOnce(o.policy, o.index, o.plan))
  expect(restored.coverage, JSON.stringify(restored.causes)).toBe("complete")
  expect(restored.sources.superseded).toBe(0)
  expect(restored.sources.newGenerations).toBe(0)
  expect(await run(indexView(o.index))).toEqual(o.view)
}
