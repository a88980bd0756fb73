/**
 * The shared memory between the main thread and the head reader worker
 * (`./head-reader-worker.ts`, bundled as `dist/head-reader-worker.cjs`):
 * discovery of many listed logs (bench figure c, issue 13 item 6: 10,000
 * native sessions in < 1 s) has a second thread do each log's system calls
 * (open, `fstat`, read, close: about 40 % of the heads' time) while the main
 * thread scans the heads read before, in order.
 *
 * One `SharedArrayBuffer`, in four parts:
 * - control (`Int32Array`, {@link CONTROL_INTS}): {@link CLAIM}, the next log
 *   nobody took yet (main and worker take logs with a compare-exchange of it,
 *   in order); {@link CONSUMED}, the logs the main thread is done with (their
 *   slots may be written again); {@link STOP}, 1 when the worker must stop;
 * - ready (`Int32Array`, one per slot): `i + 1` once log `i`'s answer is in
 *   its slot (`i % slots`), written last (`Atomics.store`, then `notify`);
 * - meta (`Float64Array`, {@link META_FIELDS} per slot): the answer's status
 *   and the descriptor's stat;
 * - data (`Uint8Array`, `maxBytes` per slot): the head's bytes.
 *
 * The worker only answers a regular file whose head it read
 * ({@link STATUS_HEAD}); anything else (an open, `fstat` or read that failed,
 * a folder, fifo, socket or device) is {@link STATUS_AGAIN}: the main thread
 * opens and reads that path itself, with the layer's own rules and errors.
 *
 * @module
 */

/** Index of the next log not taken yet, in control. */
export const CLAIM = 0
/** Index up to which (excluded) the main thread is done with the logs, in control. */
export const CONSUMED = 1
/** 1: the worker stops (the main thread reads the rest itself), in control. */
export const STOP = 2
/** Ints of the control part. */
export const CONTROL_INTS = 4

/** Meta fields of a slot: the status, the bytes read, whether the read reached the end of the file, then the stat. */
export const META_STATUS = 0
export const META_GOT = 1
export const META_ENDED = 2
export const META_SIZE = 3
export const META_MTIME = 4
export const META_BIRTHTIME = 5
export const META_CTIME = 6
export const META_DEV = 7
export const META_INO = 8
/** Float64 fields per slot. */
export const META_FIELDS = 9

/** A regular file, its head in the slot. */
export const STATUS_HEAD = 1
/** Not answered here: the main thread opens and reads the path itself. */
export const STATUS_AGAIN = 2

/** What the worker is given (`workerData`). */
export interface HeadReaderData {
  readonly paths: ReadonlyArray<string>
  readonly shared: SharedArrayBuffer
  readonly slots: number
  readonly maxBytes: number
}

/** The views of {@link HeadReaderData.shared}, and its byte length for `slots` slots of `maxBytes`. */
export const headReaderViews = (shared: SharedArrayBuffer, slots: number, maxBytes: number) => {
  const control = new Int32Array(shared, 0, CONTROL_INTS)
  const ready = new Int32Array(shared, CONTROL_INTS * 4, slots)
  const metaAt = CONTROL_INTS * 4 + slots * 4
  const metaStart = metaAt + (metaAt % 8 === 0 ? 0 : 8 - (metaAt % 8))
  const meta = new Float64Array(shared, metaStart, slots * META_FIELDS)
  const data = new Uint8Array(shared, metaStart + slots * META_FIELDS * 8, slots * maxBytes)
  return { control, ready, meta, data }
}

/** Bytes of the shared buffer for `slots` slots of `maxBytes` (see {@link headReaderViews}). */
export const headReaderBytes = (slots: number, maxBytes: number): number => {
  const metaAt = CONTROL_INTS * 4 + slots * 4
  const metaStart = metaAt + (metaAt % 8 === 0 ? 0 : 8 - (metaAt % 8))
  return metaStart + slots * META_FIELDS * 8 + slots * maxBytes
}
