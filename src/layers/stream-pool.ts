/**
 * Stream workers (issue 13, `stream` at 0.55x of its floor): worker threads
 * that turn batches of a source's lines into the NDJSON bytes `stream`
 * writes, through `@effect/platform`'s `Worker` pool on Node's worker
 * threads (`@effect/platform-node` `NodeWorker`), as the import's parse
 * workers (`./index/parse-pool.ts`). The main thread keeps the reading and
 * splitting of the source (one step at a time, as always: the cursors, the
 * shrink check, `onRead`) and the writing of stdout, in order; a worker parses
 * and maps each line, and encodes its events, with the same code as the
 * main thread would (`transcriptLineEvents` and `encodeNdjson`), so the
 * bytes are the same. A batch's bytes come back as a transferred buffer (no
 * copy).
 *
 * The worker's entry is `./stream-worker.ts`: bundled by `npm run build` as
 * `dist/stream-worker.cjs` beside `dist/cli.cjs`; from the sources (tsx,
 * vitest) it is started through `./stream-worker-boot.mjs`.
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Transferable from "@effect/platform/Transferable"
import * as Worker from "@effect/platform/Worker"
import type { WorkerError } from "@effect/platform/WorkerError"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Line } from "./jsonl/index.js"
import { probeWorker } from "./worker-probe.js"

/**
 * A batch of lines as it crosses to a worker (structured clone): per line
 * 5 numbers in `meta` (start, end, line number, flags: 1 terminated, 2
 * oversized, and its byte length) and its bytes, one after the other, in
 * `bytes`.
 */
export interface PackedLines {
  readonly meta: Float64Array
  readonly bytes: Uint8Array
}

/** Numbers per line in {@link PackedLines.meta}. */
const META = 5

/** The least a buffer of packed lines or of a batch's bytes is made with: one is used again for many batches. */
const BATCH_BUFFER_BYTES = 512 * 1024

/** A buffer of at least `bytes` bytes: `spare` when it is large enough, else a new one. */
export const bufferOf = (bytes: number, spare: ArrayBuffer | undefined): ArrayBuffer =>
  spare !== undefined && spare.byteLength >= bytes ? spare : new ArrayBuffer(Math.max(bytes, BATCH_BUFFER_BYTES))

/**
 * `lines` packed for a worker ({@link PackedLines}): their bytes copied into
 * one buffer, `spare` when it is large enough (a buffer a worker gave back:
 * buffers that go to a worker and back are used again, as a new one for
 * every batch cost its page faults and the collection of its memory).
 */
export const packLines = (lines: ReadonlyArray<Line>, spare?: ArrayBuffer): PackedLines => {
  let total = 0
  for (const l of lines) total += l.bytes.length
  const meta = new Float64Array(lines.length * META)
  const bytes = new Uint8Array(bufferOf(total, spare), 0, total)
  let at = 0
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]
    const m = i * META
    meta[m] = l.start
    meta[m + 1] = l.end
    meta[m + 2] = l.lineNumber
    meta[m + 3] = (l.terminated ? 1 : 0) | (l.oversized ? 2 : 0)
    meta[m + 4] = l.bytes.length
    bytes.set(l.bytes, at)
    at += l.bytes.length
  }
  return { meta, bytes }
}

/** The lines of {@link packLines} again, each one's bytes a view of the batch's buffer. */
export const unpackLines = (packed: PackedLines): Array<Line> => {
  const { bytes, meta } = packed
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = meta.length / META
  const lines = new Array<Line>(n)
  let at = 0
  for (let i = 0; i < n; i++) {
    const m = i * META
    const length = meta[m + 4]
    lines[i] = {
      start: meta[m],
      end: meta[m + 1],
      lineNumber: meta[m + 2],
      bytes: all.subarray(at, at + length),
      terminated: (meta[m + 3] & 1) !== 0,
      oversized: (meta[m + 3] & 2) !== 0
    }
    at += length
  }
  return lines
}

/**
 * A batch of a Muse agents transcript's lines (`../muse-agents/stream-workers.ts`):
 * what its events are made with (`TranscriptLineContext` without the
 * counters and the cursor: the cursor tokens are made of `head`, the
 * file's head as the main thread's cursors bind it), and the lines.
 */
export interface TranscriptBatch {
  readonly _tag: "transcript"
  readonly sourceId: string
  readonly sessionId: string
  readonly agentId: string | null
  readonly lineBase: number
  readonly maxDepth: number
  readonly maxRecordBytes: number
  readonly textBytes: boolean
  /** Count what `onWarning` hears (numbers not exact, zeroed lines). */
  readonly warnings: boolean
  readonly head: Uint8Array
  readonly lines: PackedLines
  /** A buffer to write the answer's bytes into when it is large enough (one the main thread is done with), or null. */
  readonly spare: ArrayBuffer | null
}

/** What a worker is asked. */
export type StreamBatch = TranscriptBatch

/**
 * A worker's answer for a batch: the NDJSON `bytes` of its events (a buffer
 * of their own, transferred), and what it counted for the warnings said
 * after the events: numbers not carried exactly (`inexact`: how many, and the
 * first), lines of zeroed bytes (`zeroed`).
 */
export interface BatchAnswer {
  readonly bytes: Uint8Array
  /** The buffer of the batch's packed lines, given back to be used again (`packLines`). */
  readonly input: ArrayBuffer
  readonly inexact: {
    readonly count: number
    readonly first: { readonly text: string; readonly line: number; readonly offset: number } | undefined
  }
  readonly zeroed: { readonly count: number; readonly firstLine: number | null }
}

/**
 * A source whose bytes left to stream are fewer than this is streamed in the
 * main thread: starting two workers and their code's warm-up cost about 0.8 s
 * of processor time (a 20 MB transcript: 1.8 s against 1.0 s in one thread,
 * session 28), more than they could save below it.
 */
export const STREAM_WORKER_MIN_BYTES = 64 * 1024 * 1024

/**
 * The worker's entry: beside the bundle (`dist/stream-worker.cjs`) when this
 * code runs from `dist/cli.cjs`, else the tsx bootstrap beside this file;
 * null when that file is not there (then no worker is started).
 */
export const streamWorkerEntry = (): string | URL | null => {
  const entry = typeof __filename === "string" && __filename.endsWith(".cjs")
    ? nodePath.join(nodePath.dirname(__filename), "stream-worker.cjs")
    : new URL("./stream-worker-boot.mjs", import.meta.url)
  return fs.existsSync(entry) ? entry : null
}

/** The pool of stream workers, or why there is none (see `../worker-probe.ts`). */
export type StreamPoolStart =
  | { readonly _tag: "ready"; readonly pool: Worker.WorkerPool<StreamBatch, BatchAnswer, never> }
  | { readonly _tag: "failed"; readonly problem: string }

/**
 * A pool of `size` stream workers for the scope, started side by side and
 * waited for (`probeWorker`): `failed` when the entry is not there or a
 * worker could not load (the caller streams in its own thread). Each
 * worker takes up to 2 batches at a time (the next one is queued while one is
 * worked on).
 */
export const makeStreamPool = (size: number, readyTimeoutMs?: number): Effect.Effect<StreamPoolStart, WorkerError, Scope.Scope> => {
  const entry = streamWorkerEntry()
  if (entry === null) return Effect.succeed({ _tag: "failed", problem: "the stream worker's entry is not there" })
  return Effect.flatMap(probeWorker(entry, {}, readyTimeoutMs, size), (probe): Effect.Effect<StreamPoolStart, WorkerError, Scope.Scope> =>
    probe._tag === "failed"
      ? Effect.succeed(probe)
      : Worker.makePool<StreamBatch, BatchAnswer, never>({
        size,
        concurrency: 2,
        // The batch's buffers are moved to the worker, not copied.
        encode: (batch) =>
          Effect.as(
            Transferable.addAll(batch.spare === null ? [batch.lines.bytes.buffer as ArrayBuffer] : [batch.lines.bytes.buffer as ArrayBuffer, batch.spare]),
            batch
          )
      }).pipe(
        Effect.provide(NodeWorker.layer(probe.spawn)),
        Effect.map((pool) => ({ _tag: "ready" as const, pool }))
      ))
}
