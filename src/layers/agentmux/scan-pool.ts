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
import { probeWorker, type WorkerProbe } from "../worker-probe.js"
import { ScanRangeRequest } from "./scan-protocol.js"
import type { StoreFile } from "./TranscriptStore.js"

/**
 * Scan `pieces` (`[start, end)` byte ranges of `file`, cut at line
 * boundaries, in record order) of the read copy `copy` with at most
 * `workers` workers started from `entry`; the last piece runs to `end` (a
 * trailing unterminated line is left there). The pool's workers are started
 * side by side and waited for first (`probeWorker`, at most `readyTimeoutMs`;
 * they become the pool's): one that cannot load (a truncated bundle, a
 * top level that throws) answers `undefined` (the caller scans here), where
 * the pool would start it again every second, for ever. Fails with the
 * reason as text when a worker cannot read the copy, or with the pool's own
 * error (`WorkerError`, a failed decode) when a worker dies.
 */
export const scanPieces = (
  entry: string,
  copy: string,
  file: StoreFile,
  pieces: ReadonlyArray<readonly [number, number]>,
  end: number,
  maxLineBytes: number,
  workers: number,
  readyTimeoutMs?: number,
  /** Workers of `entry` started ahead (`StoreConnection.workersAhead`), taken instead of starting the pool's. */
  ahead?: Effect.Effect<WorkerProbe>
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const size = Math.min(workers, pieces.length)
      // The pool's workers started side by side (not the first alone, then the others once it is ready).
      const probe = yield* (ahead ?? probeWorker(entry, {}, readyTimeoutMs, size))
      if (probe._tag === "failed") return undefined
      const pool = yield* Worker.makePoolSerialized<ScanRangeRequest>({ size }).pipe(
        Effect.provide(NodeWorker.layer(probe.spawn))
      )
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
  )
