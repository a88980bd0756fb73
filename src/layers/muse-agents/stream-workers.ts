/**
 * `stream` of a large Muse agents transcript on stream workers
 * (`../stream-pool.ts`, issue 13): the main thread reads and splits the
 * transcript a step at a time ({@link openTranscript}: the same header,
 * cursor and shrink checks as {@link streamTranscript}), a worker makes each
 * part's events ({@link transcriptLineEvents}, the same code) and encodes
 * them (`encodeNdjson`, the same encoder), and the main thread hands the
 * bytes on in file order. The bytes, the warnings after them and the errors
 * are those of `streamTranscript`'s events encoded in the main thread: each
 * line's event depends only on the line (its number, offset and bytes, the
 * header's ids and the file's head), and the counters are added up in order.
 *
 * @module
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { type IngestError, ResourceLimitExceeded } from "../../domain/errors.js"
import { InexactTally } from "../../domain/inexact-tally.js"
import type { Locator } from "../../domain/model.js"
import { ZeroedLines } from "../../domain/warning-kinds.js"
import type { StreamOptions } from "../../services/SessionSource.js"
import { cursorOfHead } from "../jsonl/index.js"
import { encodeNdjson, type NdjsonLease } from "../ndjson.js"
import {
  type BatchAnswer,
  bufferOf,
  makeStreamPool,
  packLines,
  STREAM_WORKER_MIN_BYTES,
  type TranscriptBatch,
  unpackLines
} from "../stream-pool.js"
import { type AgentsDeps, authorizeTranscript, openTranscript, transcriptJsonlOptions, transcriptLineEvents } from "./source.js"

/**
 * A batch's answer (see `BatchAnswer`): its lines' events made as
 * {@link streamTranscript} makes them, encoded as `stream` encodes them, in
 * a buffer of their own (`batch.spare` when it is large enough). What a
 * stream worker runs (`../stream-worker.ts`).
 */
export const answerTranscriptBatch = (batch: TranscriptBatch): BatchAnswer => {
  const tally = batch.warnings ? new InexactTally() : undefined
  const zeroed = batch.warnings ? new ZeroedLines() : undefined
  const events = transcriptLineEvents({
    sourceId: batch.sourceId,
    sessionId: batch.sessionId,
    agentId: batch.agentId,
    lineBase: batch.lineBase,
    maxDepth: batch.maxDepth,
    textBytes: batch.textBytes,
    cursor: cursorOfHead(transcriptJsonlOptions(batch.sourceId, batch.maxRecordBytes), batch.head),
    tally,
    zeroed
  }, unpackLines(batch.lines))
  const lease = encodeNdjson(events)
  // A buffer of its own (not the encoder's pooled one, nor a slab Node shares), the spare one when it is large
  // enough: it is moved to the main thread.
  const bytes = new Uint8Array(bufferOf(lease.bytes.length, batch.spare ?? undefined), 0, lease.bytes.length)
  bytes.set(lease.bytes)
  lease.release()
  return {
    bytes,
    input: batch.lines.bytes.buffer as ArrayBuffer,
    inexact: { count: tally?.count ?? 0, first: tally?.first },
    zeroed: { count: zeroed?.count ?? 0, firstLine: zeroed?.firstLine ?? null }
  }
}

/** Parts of `readLines` (about 128 KiB of lines each, `HAND_ON_BYTES`) in one batch sent to a worker. */
const PARTS_PER_BATCH = Number(process.env.SESSION_INGEST_STREAM_BATCH_PARTS ?? 8)

/** Buffers kept to be used again ({@link packLines}, {@link answerTranscriptBatch}): a few per worker. */
const SPARES_KEPT = 8

/**
 * The NDJSON of {@link streamTranscript}'s events (what `stream muse-agents`
 * writes, `textBytes` set), made by `workers` stream workers, as leases of
 * their bytes in order; the warnings (`options.onWarning`) after them, as
 * `streamTranscript` says them. `undefined` (stream it in this thread) when
 * `workers` is 0 or the transcript is smaller than `minBytes` (default
 * `STREAM_WORKER_MIN_BYTES`). When the workers cannot start, or the bytes
 * left after a cursor are fewer than that, its events are encoded in this
 * thread, part by part. Fails as `streamTranscript` fails (authorization
 * fails here, before any stream).
 */
export const streamTranscriptNdjson = (
  deps: AgentsDeps,
  locator: Locator,
  options: StreamOptions,
  workers: number,
  minBytes: number = STREAM_WORKER_MIN_BYTES
): Effect.Effect<Stream.Stream<NdjsonLease, IngestError> | undefined, IngestError> =>
  // No workers: nothing more is done (no second authorization) and the caller streams in its thread.
  workers < 1 ? Effect.succeed(undefined) : Effect.map(authorizeTranscript(deps, locator), (file) =>
    file.stat.size < minBytes
      ? undefined
      : Stream.unwrapScoped(Effect.gen(function*() {
        const t = yield* openTranscript(deps, locator, { ...options, textBytes: true })
        const ctx = t.context
        const inThread = (): Stream.Stream<NdjsonLease, IngestError> =>
          t.source.lines(t.from, options.onRead).pipe(
            Stream.mapChunks((chunk) => Chunk.of(encodeNdjson(transcriptLineEvents(ctx, chunk))))
          )
        const start = t.source.sizeAtOpen - t.from < minBytes ? undefined : yield* Effect.catchAll(makeStreamPool(workers), (e) => Effect.succeed({ _tag: "failed" as const, problem: e.message }))
        let leases: Stream.Stream<NdjsonLease, IngestError>
        if (start === undefined || start._tag === "failed") leases = inThread()
        else {
          const pool = start.pool
          // Buffers back from the workers (packed lines) and written to stdout (answers), used again.
          const inputs: Array<ArrayBuffer> = []
          const outputs: Array<ArrayBuffer> = []
          const keep = (list: Array<ArrayBuffer>, b: ArrayBuffer) => {
            if (list.length < SPARES_KEPT && b.byteLength > 0) list.push(b)
          }
          const batchOf = (lines: ReadonlyArray<import("../jsonl/index.js").Line>): TranscriptBatch => ({
            _tag: "transcript",
            sourceId: ctx.sourceId,
            sessionId: ctx.sessionId,
            agentId: ctx.agentId,
            lineBase: ctx.lineBase,
            maxDepth: ctx.maxDepth,
            maxRecordBytes: deps.limits.maxRecordBytes,
            textBytes: ctx.textBytes,
            warnings: ctx.tally !== undefined,
            head: t.source.head(),
            lines: packLines(lines, inputs.pop()),
            spare: outputs.pop() ?? null
          })
          // A worker that stopped (its batch's buffers went with it): the stream fails, saying so, after the bytes before.
          const answer = (batch: TranscriptBatch): Effect.Effect<BatchAnswer, ResourceLimitExceeded> =>
            Effect.mapError(pool.executeEffect(batch), (e) =>
              new ResourceLimitExceeded({
                message: `A stream worker stopped (${e.message.split("\n")[0]}); the output is incomplete.`,
                remediation: "Run the same command again; with SESSION_INGEST_STREAM_WORKERS=0 the source is streamed in one thread.",
                details: { limit: "streamWorker" }
              }))
          leases = t.source.lines(t.from, options.onRead).pipe(
            // Parts of a read step (about 128 KiB of lines each) go in batches of several: a message costs both
            // threads about the same whatever its size (the protocol's fibers, the clone, the collection of its objects).
            Stream.chunks,
            Stream.grouped(PARTS_PER_BATCH),
            Stream.map((parts) => batchOf(Chunk.toReadonlyArray(Chunk.flatten(parts)))),
            // A read that fails ends the batches with its error, handed on after the answers of the batches before it.
            Stream.either,
            Stream.mapEffect(
              (b): Effect.Effect<Either.Either<BatchAnswer, IngestError>, ResourceLimitExceeded> =>
                Either.isLeft(b) ? Effect.succeed(Either.left(b.left)) : Effect.map(answer(b.right), Either.right),
              { concurrency: workers * 2 }
            ),
            Stream.mapEffect((a) => Either.isLeft(a) ? Effect.fail(a.left) : Effect.succeed(a.right)),
            Stream.map((a): NdjsonLease => {
              if (ctx.tally !== undefined) {
                ctx.tally.count += a.inexact.count
                ctx.tally.first ??= a.inexact.first
              }
              if (ctx.zeroed !== undefined) {
                ctx.zeroed.count += a.zeroed.count
                ctx.zeroed.firstLine ??= a.zeroed.firstLine
              }
              keep(inputs, a.input)
              let released = false
              return {
                bytes: a.bytes,
                release: () => {
                  if (released) return
                  released = true
                  keep(outputs, a.bytes.buffer as ArrayBuffer)
                }
              }
            })
          )
        }
        return options.onWarning === undefined ? leases : Stream.concat(leases, Stream.execute(Effect.sync(t.report)))
      })))
