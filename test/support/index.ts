/** Layers and helpers for index tests. */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { Index } from "../../src/services/Index.js"
import { ImportFaults, Importer, ImportProgress, type ImportPlan } from "../../src/services/Importer.js"
import * as App from "../../src/layers/app.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import type { CommitPoint } from "../../src/services/Index.js"

/** The library, an index in `file`, and the importer, with optional faults. */
export const importerLayer = (
  policy: Partial<AccessPolicyShape>,
  file: string,
  faults: Layer.Layer<ImportFaults> = ImportFaults.none
) => {
  const app = App.layer(policy)
  const index = IndexSqlite.layer(file)
  return ImporterLayer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(app, index, faults, ImportProgress.silent))
  )
}

/** Run one import of `plan` against the index file, in its own scope (a fresh connection: like a new process). */
export const importOnce = (
  policy: Partial<AccessPolicyShape>,
  file: string,
  plan: ImportPlan,
  faults?: Layer.Layer<ImportFaults>
) => Effect.flatMap(Importer, (i) => i.run(plan)).pipe(Effect.provide(importerLayer(policy, file, faults)))

/** Everything in the index, for row-by-row comparison. */
export const dumpIndex = (file: string) => Effect.flatMap(Index, (i) => i.dump).pipe(Effect.provide(IndexSqlite.layer(file)))

/** A fault layer that dies at the `n`-th time `point` is reached. */
export const crashAt = (point: CommitPoint, n = 1): Layer.Layer<ImportFaults> => {
  let hits = 0
  return Layer.succeed(ImportFaults, {
    at: (p) => (p === point && ++hits === n ? Effect.die(`injected crash at ${point} #${n}`) : Effect.void)
  })
}
