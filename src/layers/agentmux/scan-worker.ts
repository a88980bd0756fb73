/**
 * Entry point of a scan worker (issue 13, a worker thread started by
 * `parallel-scan.ts` through @effect/platform's Worker): answers
 * {@link ScanRangeRequest}s by opening the named read copy read-only with
 * better-sqlite3 and scanning the range (`range-scan.ts`). Bundled by
 * `npm run build` as `dist/agentmux-scan-worker.cjs`; run from `src/`
 * through `scan-worker-tsx.mjs`.
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { StoreUnavailable } from "../../domain/errors.js"
import { partChunkReader, partFinder, partReader } from "./part-reader.js"
import { scanRange } from "./range-scan.js"
import { ScanRangeRequest } from "./scan-protocol.js"
import { attempt, openDriver } from "./sqlite-driver.js"
import type { StoreConnection, StoreFile } from "./TranscriptStore.js"

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))

const unreadable = (cause: unknown) =>
  new StoreUnavailable({ message: `The store's read copy cannot be read (${message(cause)}).`, remediation: "Retry." })

const handle = (req: ScanRangeRequest): Effect.Effect<typeof ScanRangeRequest.success.Type, string> =>
  Effect.scoped(
    Effect.gen(function*() {
      const db = yield* openDriver(req.filename, { readonly: true, timeout: 1000, fileMustExist: true }, unreadable)
      const read = partReader(db)
      const readChunks = partChunkReader(db)
      const finder = partFinder(db)
      const conn: StoreConnection = {
        path: req.filename,
        mode: "snapshot",
        listFiles: () => Effect.succeed([]),
        read: (file, offset, length, into) => attempt(() => read(file, offset, length, into), unreadable),
        readChunks: (file, offset, length) => attempt(() => readChunks(file, offset, length), unreadable),
        nextPart: (file, index) => attempt(() => finder.nextPart(file, index), unreadable),
        lastPart: (file) => attempt(() => finder.lastPart(file), unreadable)
      }
      const file: StoreFile = { zoneId: req.zoneId, name: req.name, size: req.size, createdTs: null, modTs: null, generation: null }
      return yield* scanRange(conn, file, req.start, req.end, req.maxLineBytes)
    })
  ).pipe(Effect.mapError((e) => e.message))

WorkerRunner.layerSerialized(ScanRangeRequest, { ScanRange: handle }).pipe(
  Layer.provide(NodeWorkerRunner.layer),
  WorkerRunner.launch,
  NodeRuntime.runMain({ disableErrorReporting: true })
)
