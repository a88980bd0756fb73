/**
 * The import lock's "start again" path (`importRun`, `./src/layers/index/
 * sqlite.ts`): a run reads its checkpoints without the lock (an unchanged
 * run takes none); when another writer commits after that read and before
 * the run's first write, what the run read is stale, so at its first write
 * (the lock taken) the run starts again from the beginning, holding the
 * lock, and reads the other writer's rows. A run whose read is still current
 * runs once. Either way the lock is let go when the run ends. In process and
 * deterministic (the concurrent-processes test, `import-lock.test.ts`, goes
 * through this path only with the usual timing).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { emptySourceSummary } from "../../src/domain/model.js"
import { lockPathOf } from "../../src/layers/index/import-lock.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { tempDir } from "../support/paths.js"

const source = (key: string): SourceInfo => ({
  sourceKey: key,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${key}.jsonl` },
  summary: {},
  overview: emptySourceSummary(key)
})

/** A new index file with no source. */
const freshIndex = () =>
  Effect.gen(function*() {
    const file = path.join(tempDir("si-lock-restart-"), "i.db")
    yield* IndexSqlite.migrateFile(file)
    return file
  })

/** `rejectSource` of `key` through a second connection opened without the lock (another writer). */
const otherWriterCommits = (file: string, key: string) =>
  Effect.flatMap(Index, (other) => other.rejectSource(source(key), "MALFORMED_SOURCE", "from the other writer")).pipe(
    Effect.provide(IndexSqlite.layer(file))
  )

describe("import lock: a run that read before another writer's commit starts again", () => {
  it.effect("another writer commits between the run's read and its first write: the run runs twice, the second time seeing the other's row", () =>
    Effect.gen(function*() {
      const file = yield* freshIndex()
      const reads: Array<ReadonlyArray<string>> = []
      let attempts = 0
      let lockDuringSecond: boolean | undefined
      yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.importRun!(Effect.gen(function*() {
          attempts++
          const checkpoints = yield* index.importCheckpoints!
          reads.push([...checkpoints.keys()].sort())
          if (attempts === 1) yield* otherWriterCommits(file, "other")
          else lockDuringSecond = fs.existsSync(lockPathOf(file))
          // The run's first write: the lock is taken here; a stale read makes the run start again.
          yield* index.rejectSource(source("mine"), "MALFORMED_SOURCE", "from the run")
        }))
        expect(fs.existsSync(lockPathOf(file))).toBe(false)
        const after = yield* index.checkpoints
        expect([...after.keys()].sort()).toEqual(["mine", "other"])
      }).pipe(Effect.provide(IndexSqlite.layer(file, { lock: { wait: Duration.seconds(5) } })))
      expect(attempts).toBe(2)
      expect(reads).toEqual([[], ["other"]])
      // The second attempt read holding the lock (taken at the first attempt's write, kept for the new start).
      expect(lockDuringSecond).toBe(true)
    }))

  it.effect("nothing committed by another writer in between: the run runs once and lets the lock go", () =>
    Effect.gen(function*() {
      const file = yield* freshIndex()
      yield* otherWriterCommits(file, "earlier")
      let attempts = 0
      yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.importRun!(Effect.gen(function*() {
          attempts++
          const checkpoints = yield* index.importCheckpoints!
          expect([...checkpoints.keys()]).toEqual(["earlier"])
          expect(fs.existsSync(lockPathOf(file))).toBe(false)
          yield* index.rejectSource(source("mine"), "MALFORMED_SOURCE", "from the run")
          expect(fs.existsSync(lockPathOf(file))).toBe(true)
        }))
        expect(fs.existsSync(lockPathOf(file))).toBe(false)
      }).pipe(Effect.provide(IndexSqlite.layer(file, { lock: { wait: Duration.seconds(5) } })))
      expect(attempts).toBe(1)
    }))
})
