/**
 * The head reader worker (see `./head-reader-protocol.ts`): takes the listed
 * logs in order, one at a time, and for each opens it as
 * `SourceAccessNode`'s `headListedNow` does (read-only, `O_NOFOLLOW`,
 * `O_NONBLOCK`, `O_NOCTTY`), `fstat`s the descriptor, reads up to
 * `maxBytes` from offset 0 of a regular file into the log's slot and
 * closes it. It answers nothing else (anything but a regular file read
 * whole up to `maxBytes`, or any error, is left to the main thread), writes
 * nothing but the shared memory, and stops when every log is taken or the
 * main thread says stop. Node built-ins only: a small bundle
 * (`dist/head-reader-worker.cjs`) that starts in a few ms beside the CLI.
 *
 * @module
 */
import * as fs from "node:fs"
import { workerData } from "node:worker_threads"
import {
  CLAIM,
  CONSUMED,
  type HeadReaderData,
  headReaderViews,
  META_BIRTHTIME,
  META_CTIME,
  META_DEV,
  META_ENDED,
  META_FIELDS,
  META_GOT,
  META_INO,
  META_MTIME,
  META_SIZE,
  META_STATUS,
  STATUS_AGAIN,
  STATUS_HEAD,
  STOP
} from "./head-reader-protocol.js"

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK | (fs.constants.O_NOCTTY ?? 0)

const { paths, shared, slots, maxBytes } = workerData as HeadReaderData
const { control, ready, meta, data } = headReaderViews(shared, slots, maxBytes)
const n = paths.length

/** Read the head of log `i` into its slot; its meta, then its ready mark. */
const readOne = (i: number): void => {
  const slot = i % slots
  const m = slot * META_FIELDS
  let status = STATUS_AGAIN
  let fd = -1
  try {
    fd = fs.openSync(paths[i], FLAGS)
    const st = fs.fstatSync(fd)
    if (st.isFile()) {
      // As `readFully(fd, 0, maxBytes, …, st.size)`: until `maxBytes`, the end of the file, or a short read past its size at open.
      const view = data.subarray(slot * maxBytes, slot * maxBytes + maxBytes)
      let got = 0
      let ended = false
      while (got < maxBytes) {
        const asked = maxBytes - got
        const r = fs.readSync(fd, view, got, asked, got)
        if (r === 0) {
          ended = true
          break
        }
        got += r
        if (r < asked && got >= st.size) {
          ended = true
          break
        }
      }
      meta[m + META_GOT] = got
      meta[m + META_ENDED] = ended ? 1 : 0
      meta[m + META_SIZE] = st.size
      meta[m + META_MTIME] = st.mtimeMs
      meta[m + META_BIRTHTIME] = st.birthtimeMs
      meta[m + META_CTIME] = st.ctimeMs
      meta[m + META_DEV] = st.dev
      meta[m + META_INO] = st.ino
      status = STATUS_HEAD
    }
  } catch {
    status = STATUS_AGAIN
  } finally {
    if (fd >= 0) {
      try {
        fs.closeSync(fd)
      } catch {
        // already closed
      }
    }
  }
  meta[m + META_STATUS] = status
  Atomics.store(ready, slot, i + 1)
  Atomics.notify(ready, slot)
}

for (;;) {
  if (Atomics.load(control, STOP) !== 0) break
  const i = Atomics.load(control, CLAIM)
  if (i >= n) break
  const consumed = Atomics.load(control, CONSUMED)
  // The ring is full: wait until the main thread is done with the oldest slot (or says stop).
  if (i - consumed >= slots) {
    Atomics.wait(control, CONSUMED, consumed, 50)
    continue
  }
  if (Atomics.compareExchange(control, CLAIM, i, i + 1) !== i) continue
  readOne(i)
}
