/**
 * The worker side of a parallel scan (`parallel-scan.ts`), in a module of its
 * own that the scan loads only when a range is long enough for workers: the
 * pieces of a range scanned by a pool of @effect/platform worker threads
 * (`scan-worker.ts`), answered in record order.
 *
 * @module
 */
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Worker from "@effect/platform/Worker"
import * as Effect from "effect/Effect"
import * as WorkerThreads from "node:worker_threads"
import { ScanRangeRequest } from "./scan-protocol.js"
import type { StoreFile } from "./TranscriptStore.js"

/**
 * Scan `pieces` (`[start, end)` byte ranges of `file`, cut at line
 * boundaries, in record order) of the read copy `copy` with at most
 * `workers` workers started from `entry`; the last piece runs to `end` (a
 * trailing unterminated line is left there). Fails with the reason as text
 * when a worker cannot read the copy, or with the pool's own error
 * (`WorkerError`, a failed decode) when a worker cannot start or dies.
 */
export const scanPieces = (
  entry: string,
  copy: string,
  file: StoreFile,
  pieces: ReadonlyArray<readonly [number, number]>,
  end: number,
  maxLineBytes: number,
  workers: number
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const pool = yield* Worker.makePoolSerialized<ScanRangeRequest>({ size: Math.min(workers, pieces.length) })
      return yield* Effect.forEach(
        pieces,
        ([s, e], i) =>
          pool.executeEffect(
            new ScanRangeRequest({
              filename: copy,
              zoneId: file.zoneId,
              name: file.name,
              size: file.size,
              start: s,
              end: i === pieces.length - 1 ? end : e,
              maxLineBytes
            })
          ),
        { concurrency: "unbounded" }
      )
    })
  ).pipe(Effect.provide(NodeWorker.layer(() => new WorkerThreads.Worker(entry))))
