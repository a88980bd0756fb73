/**
 * The entry of a stream worker thread (see `./stream-pool.ts`): it answers
 * each batch of a source's lines with the NDJSON bytes of its events
 * (`answerTranscriptBatch`), the bytes transferred to the main thread, not
 * copied. Nothing here reads a file or writes.
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as Transferable from "@effect/platform/Transferable"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { answerTranscriptBatch } from "./muse-agents/stream-workers.js"
import type { BatchAnswer, StreamBatch } from "./stream-pool.js"

WorkerRunner.layer((batch: StreamBatch) => Effect.sync(() => answerTranscriptBatch(batch)), {
  encodeOutput: (_batch: StreamBatch, answer: BatchAnswer) =>
    Effect.as(Transferable.addAll([answer.bytes.buffer as ArrayBuffer, answer.input]), answer)
}).pipe(
  Layer.provide(NodeWorkerRunner.layer),
  WorkerRunner.launch,
  NodeRuntime.runMain({ disableErrorReporting: true })
)
