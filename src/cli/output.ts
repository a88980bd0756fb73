/**
 * CLI output: the JSON envelope of DESIGN.md, plain text, NDJSON on stdout
 * with backpressure, one-line errors on stderr, and how a command can end
 * ({@link CommandError}; `./main.ts` turns that into the printed error and
 * the exit code).
 *
 * @module
 */
import * as fs from "node:fs"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { errorToJson } from "../domain/error-codes.js"
import { CANONICAL_PAYLOAD, CANONICAL_TEXT, type CanonicalText, isRecord, type VerbatimText } from "../domain/json.js"
import type { IngestError, OutputWriteFailed, StoreUnavailable } from "../domain/errors.js"
import { CONTRACT_VERSION } from "../domain/model.js"
import { classify, describe, isStorageError } from "../layers/store-failure.js"
import { errors } from "./lazy.js"
import { escapeJsonControls, visibleControls } from "../domain/render.js"
import { jsonParts } from "./json-parts.js"

/**
 * Exit code of a run that finished with partial coverage (DESIGN.md: an
 * `import`; `discover` follows it, so a daily job sees the same answer):
 * the report is printed, with what made it partial.
 */
export const PARTIAL_EXIT = 8

/** Raised when stdout's reader went away (`| head`): stop quietly (exit 0, or 7 when stdout failed, see {@link stdoutWriteFailure}). */
export class StdoutClosed extends Data.TaggedError("StdoutClosed")<{}> {}

/**
 * Not an error: the command printed its report, and that report's coverage
 * is partial (`import`, `discover`). The run ends with {@link PARTIAL_EXIT}
 * and nothing more is printed.
 */
export class PartialCoverage extends Data.TaggedError("PartialCoverage")<{}> {}

/** How a command's effect can fail: an error of the family, stdout gone away, or partial coverage. */
export type CommandError = IngestError | StdoutClosed | PartialCoverage

let stdoutClosed = false
/** A write to stdout that failed for another reason than its reader going away (a full disk, an I/O error). */
let stdoutFailure: NodeJS.ErrnoException | undefined
const stdoutError = (e: NodeJS.ErrnoException) => {
  stdoutClosed = true
  if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") stdoutFailure ??= e
}
process.stdout.on("error", stdoutError)

/**
 * `JSON.stringify` of a value for stdout, with C1 controls and bidi overrides
 * written as `\uHHHH` (the same JSON value; see `escapeJsonControls`).
 */
export const jsonText = (value: object): string => escapeJsonControls(JSON.stringify(value))

/** From this many UTF-8 bytes (at most 3 per character) a `--json` envelope is checked for raw controls as bytes. */
const LARGE_JSON_CHARS = 64 * 1024

/**
 * Up to this many UTF-16 units, {@link jsonOut} encodes a text into a buffer
 * of 3 bytes a unit (the most UTF-8 takes for one: a surrogate pair's 4 bytes
 * are 2 a unit, a lone surrogate's U+FFFD 3), so no pass of its own measures
 * its UTF-8 length first. 16 Mi units: at most 48 MiB asked for, of which the
 * pages never written are never touched (an uninitialized buffer).
 */
const ENCODE_UNMEASURED_MAX_CHARS = 16 * 1024 * 1024

/**
 * {@link jsonText} of a value plus a line break, as the bytes stdout gets.
 * A large text is encoded once and looked at as bytes ({@link holdsRawControl}:
 * `indexOf`, memchr): without a raw control, as nearly every envelope is,
 * those bytes are the answer (no regular-expression pass over megabytes of
 * text, no second encoding by the write); with one, the escaped text. A
 * small one is {@link jsonText}'s text. The UTF-8 length of a large text is
 * not measured first (up to {@link ENCODE_UNMEASURED_MAX_CHARS}): that pass
 * cost ~45 ms of the ~100 ms that printing `discover`'s 10 MB report of
 * 10,000 sources took (bench figure c), whose text is two bytes a character
 * (each receipt's redacted locator holds a `…`).
 */
const jsonOut = (value: object): string | Uint8Array => {
  // In parts (`jsonParts`: the same text), so that one character above U+00FF does not make the whole text two
  // bytes a character, copied whole before it is encoded (~100 ms of CPU for figure c's 10 MB report).
  const parts = jsonParts(value) ?? [JSON.stringify(value)]
  let chars = 0
  for (const p of parts) chars += p.length
  if (chars < LARGE_JSON_CHARS) return escapeJsonControls(parts.join("")) + "\n"
  let room = chars * 3
  if (chars > ENCODE_UNMEASURED_MAX_CHARS) {
    room = 0
    for (const p of parts) room += Buffer.byteLength(p, "utf8")
  }
  const buffer = Buffer.allocUnsafe(room + 1)
  let n = 0
  for (const p of parts) n += buffer.write(p, n, "utf8")
  buffer[n] = 0x0a
  return holdsRawControl(buffer.subarray(0, n)) ? escapeJsonControls(parts.join("")) + "\n" : buffer.subarray(0, n + 1)
}

/**
 * True when UTF-8 `bytes` hold a C1 control (U+0080–U+009F: `C2 80`–`C2 9F`)
 * or a bidi override or isolate (U+202A–U+202E: `E2 80 AA`–`AE`;
 * U+2066–U+2069: `E2 81 A6`–`A9`). Found with `indexOf` (memchr), so the
 * common line without one costs almost nothing.
 */
const holdsRawControl = (bytes: Uint8Array): boolean => {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = b.indexOf(0xc2); i >= 0; i = b.indexOf(0xc2, i + 1)) if (b[i + 1] >= 0x80 && b[i + 1] <= 0x9f) return true
  for (let i = b.indexOf(0xe2); i >= 0; i = b.indexOf(0xe2, i + 1)) {
    const c = b[i + 1], d = b[i + 2]
    if ((c === 0x80 && d >= 0xaa && d <= 0xae) || (c === 0x81 && d >= 0xa6 && d <= 0xa9)) return true
  }
  return false
}

/**
 * NDJSON bytes of some values: `JSON.stringify` of each, one a line, UTF-8,
 * written straight into one buffer. Joining the strings first and encoding
 * the joined text costs several times more (bench figure (a)). Values that
 * stringify to `undefined` are left out. A line holding a C1 control or a
 * bidi override is written again with them as `\uHHHH` escapes (the same
 * JSON value; see {@link jsonText}). The bytes are a buffer of their own
 * (exact size); {@link writeNdjson} writes the same bytes without that copy.
 */
export const ndjson = (values: Iterable<unknown>): Uint8Array => {
  const lease = encodeNdjson(values)
  const out = Buffer.allocUnsafe(lease.bytes.length)
  out.set(lease.bytes)
  lease.release()
  return out
}

/**
 * What {@link encodeNdjson} answers: the NDJSON `bytes`, a view of a pooled
 * buffer that stays theirs until `release` is called (once: then the buffer
 * may hold the next chunk's bytes).
 */
export interface NdjsonLease {
  readonly bytes: Uint8Array
  readonly release: () => void
}

/** Ends a line in the parts of {@link linePartsOf}. */
const NEWLINE = 0
/** A piece of a line: a text (UTF-8 encoded when written), or bytes copied as they are (a source's own bytes of a text). */
type Part = string | Uint8Array | typeof NEWLINE

/**
 * The parts of the NDJSON lines of some values (each line ended by
 * {@link NEWLINE}) and the most bytes they can take (3 a UTF-16 unit of a
 * text, the length of bytes, 1 a newline): the JSON text of each value, or,
 * for an event that carries texts of its own (see {@link splicedParts}), the
 * text around them and each one's text or source bytes, never joined into
 * one string.
 */
const linePartsOf = (values: Iterable<unknown>): { readonly parts: Array<Part>; readonly room: number } => {
  const parts: Array<Part> = []
  let room = 0
  for (const v of values) {
    if (typeof v === "object" && v !== null && (CANONICAL_PAYLOAD in v || CANONICAL_TEXT in v)) {
      const spliced = splicedParts(v)
      if (spliced !== undefined) {
        for (const p of spliced) {
          parts.push(p)
          room += typeof p === "string" ? p.length * 3 : p.length
        }
        parts.push(NEWLINE)
        room += 1
        continue
      }
    }
    const s: string | undefined = JSON.stringify(v)
    if (s === undefined) continue
    parts.push(s, NEWLINE)
    room += s.length * 3 + 1
  }
  return { parts, room }
}

/**
 * Buffers that NDJSON was encoded into, free to take again: one or two in a
 * stream (the chunk being written and the next). A buffer is taken for a
 * chunk and given back when its bytes were written (`fs.writeSync` returned,
 * or `process.stdout` called back), so it is never written over while a
 * write may still read it; a fresh buffer for every chunk cost its page
 * faults and its garbage collection (bench figure (a)).
 */
const encodePool: Array<Buffer> = []
/** Buffers kept in {@link encodePool}, and the largest kept (a huge line's is let go). */
const POOL_KEEP = 4
const SCRATCH_KEEP = 32 * 1024 * 1024

const takeBuffer = (bytes: number): Buffer => {
  for (let i = encodePool.length - 1; i >= 0; i--) {
    if (encodePool[i].length >= bytes) return encodePool.splice(i, 1)[0]
  }
  if (encodePool.length > 0 && bytes <= SCRATCH_KEEP) encodePool.pop()
  return Buffer.allocUnsafeSlow(Math.max(bytes, 1024 * 1024))
}

const giveBack = (buf: Buffer): void => {
  if (buf.length <= SCRATCH_KEEP && encodePool.length < POOL_KEEP && !encodePool.includes(buf)) encodePool.push(buf)
}

/** A lease of a buffer of the pool that holds nothing. */
const EMPTY_LEASE: NdjsonLease = { bytes: new Uint8Array(0), release: () => {} }

/**
 * The bytes of {@link ndjson} in a pooled buffer: each value's text (or its
 * parts) UTF-8 encoded straight into it, looked at once for a raw C1 control
 * or bidi character (a chunk holding one is written again a line at a time,
 * each line holding one escaped, into a buffer of its own). Call `release`
 * when the bytes were written.
 */
export const encodeNdjson = (values: Iterable<unknown>): NdjsonLease => {
  const { parts, room } = linePartsOf(values)
  return encodeParts(parts, room)
}

/** The lines of `parts` (see {@link linePartsOf}; `room` the most bytes they take), encoded as {@link encodeNdjson} says. */
const encodeParts = (parts: ReadonlyArray<Part>, room: number): NdjsonLease => {
  if (room === 0) return EMPTY_LEASE
  const buf = takeBuffer(room)
  let n = 0
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]
    if (p === NEWLINE) buf[n++] = 10
    else if (typeof p === "string") n += buf.write(p, n, "utf8")
    else {
      buf.set(p, n)
      n += p.length
    }
  }
  if (holdsRawControl(buf.subarray(0, n))) {
    giveBack(buf)
    const texts: Array<string> = []
    let line = ""
    for (const p of parts) {
      if (p === NEWLINE) {
        texts.push(line)
        line = ""
      } else line += typeof p === "string" ? p : Buffer.from(p.buffer, p.byteOffset, p.length).toString("utf8")
    }
    let units = 0
    for (const t of texts) units += t.length + 1
    return { bytes: escapedLines(texts, units), release: () => {} }
  }
  let released = false
  return {
    bytes: buf.subarray(0, n),
    release: () => {
      if (released) return
      released = true
      giveBack(buf)
    }
  }
}

/**
 * Write the NDJSON of some values (the bytes of {@link ndjson}) to stdout, as
 * {@link writeStdout} does, from the buffer they were encoded into: no copy,
 * and the buffer is taken again for a later chunk once this write is done.
 * The values are encoded when this is called (give it as the callback of
 * `Stream.runForEachChunk`); the effect writes them. Encoding inside an
 * `Effect.suspend` instead made every scavenge of the young generation
 * several times slower (measured with `--trace-gc`: 1.0 s against 5.6 s
 * over a 100 MB native log).
 */
export const writeNdjson = (values: Iterable<unknown>): Effect.Effect<void, StdoutClosed> => writeLease(encodeNdjson(values))

/** Write a lease's bytes to stdout (as {@link writeStdout}), then release it: after the last `fs.writeSync`, or when `process.stdout` called back. */
const writeLease = (lease: NdjsonLease): Effect.Effect<void, StdoutClosed> => {
  if (lease.bytes.length === 0 || stdoutClosed) {
    lease.release()
    return lease.bytes.length === 0 ? Effect.void : Effect.fail(new StdoutClosed())
  }
  return stdoutTarget() === "file"
    ? Effect.ensuring(writeFileStdout(lease.bytes), Effect.sync(lease.release))
    : writeStreamStdout(lease.bytes, lease.release)
}

/**
 * Stand for the payload and the text while the rest of an event is written
 * (see {@link splicedParts}): one character each, which `JSON.stringify`
 * writes as it is (DEL and the C1 control U+0081), so that each is found
 * with a search for one character. Content may hold them too: a mark is used
 * only when its character is in the event's JSON exactly once (then it is the
 * mark's).
 */
const PAYLOAD_MARK = "\u007f"
const TEXT_MARK = "\u0081"

/** Where the JSON of the one-character `mark` (`"` `mark` `"`) is in `s`, when the character is there exactly once; else -1. */
const onceAt = (s: string, mark: string): number => {
  const at = s.indexOf(mark)
  return at < 1 || s.indexOf(mark, at + 1) >= 0 || s.charCodeAt(at - 1) !== 34 || s.charCodeAt(at + 1) !== 34 ? -1 : at - 1
}
/** The length of a mark's JSON. */
const MARK_JSON_LENGTH = 3

/**
 * `JSON.stringify` of an event that carries texts of its own values, in
 * parts, without writing those values again: the payload's text under
 * `CANONICAL_PAYLOAD` (a Muse Code native record, see `canonicalMember`) and
 * the `text`'s under `CANONICAL_TEXT` (a Muse agents item, see
 * `verbatimString`), each `JSON.stringify` of its value, as the source's
 * bytes when it carries them. The event is written with a mark in each one's
 * place, and the parts are the text around the marks and, in each mark's
 * place, its text (or bytes): the same bytes as writing the value. Undefined
 * (so the event is written whole) when neither value is the one carried any
 * more, or a mark is not found exactly once (content that holds a mark's own
 * text).
 */
const splicedParts = (v: object): Array<string | Uint8Array> | undefined => {
  const c = (v as { [CANONICAL_PAYLOAD]?: CanonicalText })[CANONICAL_PAYLOAD]
  const t = (v as { [CANONICAL_TEXT]?: VerbatimText })[CANONICAL_TEXT]
  const ext = (v as { extensions?: unknown }).extensions
  const ns = c !== undefined && isRecord(ext) ? ext["native.muse"] : undefined
  const payload = isRecord(ns) && ns.payload === c!.value ? ns : undefined
  const holder = t !== undefined && (v as { text?: unknown }).text === t.value ? (v as { text: unknown }) : undefined
  if (payload === undefined && holder === undefined) return undefined
  if (payload !== undefined) payload.payload = PAYLOAD_MARK
  if (holder !== undefined) holder.text = TEXT_MARK
  let s: string
  try {
    s = JSON.stringify(v)
  } finally {
    if (payload !== undefined) payload.payload = c!.value
    if (holder !== undefined) holder.text = t!.value
  }
  const p = payload !== undefined ? onceAt(s, PAYLOAD_MARK) : -1
  const x = holder !== undefined ? onceAt(s, TEXT_MARK) : -1
  if ((payload !== undefined && p < 0) || (holder !== undefined && x < 0)) return undefined
  const pPart = payload !== undefined ? c!.bytes ?? c!.text : undefined
  if (holder === undefined) return [s.slice(0, p), pPart!, s.slice(p + MARK_JSON_LENGTH)]
  if (payload === undefined) return [s.slice(0, x), t!.bytes, s.slice(x + MARK_JSON_LENGTH)]
  const [first, firstPart, second, secondPart] = p < x ? [p, pPart!, x, t!.bytes] : [x, t!.bytes, p, pPart!]
  return [s.slice(0, first), firstPart, s.slice(first + MARK_JSON_LENGTH, second), secondPart, s.slice(second + MARK_JSON_LENGTH)]
}

/**
 * NDJSON bytes of JSON texts (each `JSON.stringify`'s, one a line), as
 * {@link ndjson} writes them: UTF-8, C1 controls and bidi overrides as
 * `\uHHHH`. The bytes answered are a buffer of their own (exact size, not
 * shared with a later call); {@link writeNdjsonTexts} writes them without
 * that copy.
 */
export const ndjsonOfTexts = (texts: ReadonlyArray<string>): Uint8Array => {
  const lease = encodeNdjsonTexts(texts)
  const out = Buffer.allocUnsafe(lease.bytes.length)
  out.set(lease.bytes)
  lease.release()
  return out
}

/** The bytes of {@link ndjsonOfTexts} in a pooled buffer (see {@link encodeNdjson}). */
export const encodeNdjsonTexts = (texts: ReadonlyArray<string>): NdjsonLease => {
  const parts: Array<Part> = []
  let room = 0
  for (const s of texts) {
    parts.push(s, NEWLINE)
    room += s.length * 3 + 1
  }
  return encodeParts(parts, room)
}

/**
 * {@link encodeNdjsonTexts} of lines each given whole (a JSON text) or in
 * parts (texts, and UTF-8 bytes copied as they are: a source's own bytes of
 * a text, as `stream --lean` gives a payload's): the same bytes as the
 * texts joined, in a pooled buffer (see {@link encodeNdjson}).
 */
export const encodeNdjsonLines = (lines: ReadonlyArray<string | ReadonlyArray<string | Uint8Array>>): NdjsonLease => {
  const parts: Array<Part> = []
  let room = 0
  for (const l of lines) {
    if (typeof l === "string") {
      parts.push(l)
      room += l.length * 3
    } else {
      for (const p of l) {
        parts.push(p)
        room += typeof p === "string" ? p.length * 3 : p.length
      }
    }
    parts.push(NEWLINE)
    room += 1
  }
  return encodeParts(parts, room)
}

/** {@link writeNdjson} of lines whole or in parts: the bytes of {@link encodeNdjsonLines}, written from their pooled buffer. */
export const writeNdjsonLines = (lines: ReadonlyArray<string | ReadonlyArray<string | Uint8Array>>): Effect.Effect<void, StdoutClosed> =>
  writeLease(encodeNdjsonLines(lines))

/** {@link writeNdjson} of JSON texts: the bytes of {@link ndjsonOfTexts}, written from their pooled buffer. */
export const writeNdjsonTexts = (texts: ReadonlyArray<string>): Effect.Effect<void, StdoutClosed> => writeLease(encodeNdjsonTexts(texts))

/** {@link ndjsonOfTexts} of a chunk that holds a raw C1 control or bidi character: a line at a time, each line holding one written with `escapeJsonControls`. */
const escapedLines = (texts: ReadonlyArray<string>, units: number): Uint8Array => {
  let buf = Buffer.allocUnsafe(units * 3)
  let n = 0
  let left = units
  for (const s of texts) {
    left -= s.length + 1
    const start = n
    n += buf.write(s, n, "utf8")
    if (holdsRawControl(buf.subarray(start, n))) {
      const escaped = escapeJsonControls(s)
      n = start
      const need = n + (escaped.length + 1 + left) * 3
      if (need > buf.length) {
        const bigger = Buffer.allocUnsafe(need)
        buf.copy(bigger, 0, 0, n)
        buf = bigger
      }
      n += buf.write(escaped, n, "utf8")
    }
    buf[n++] = 10
  }
  return buf.subarray(0, n)
}

/**
 * What stdout is, decided at its first write: `"file"` a regular file or a
 * device (`> out.json`, `> /dev/full`), which Node's `process.stdout`
 * (a `SyncWriteStream`) writes with one `fs.writeSync` whose count it does
 * not look at, so a short write (a disk that fills, the file-size limit of
 * `ulimit -f`) would be lost unseen: such a stdout is written here, a write
 * at a time, each one's count and errno checked; `"stream"` a pipe, socket
 * or terminal, written through `process.stdout` (its 'error' event and
 * write callbacks watched).
 *
 * A closed stdout (`>&-`) is not told apart: Node puts `/dev/null`, opened
 * read-write, on a closed fd 1 before any of this runs, which is exactly
 * what a parent's `stdio: "ignore"` or Python's `subprocess.DEVNULL` give,
 * and those runs must keep their exit code.
 */
type StdoutTarget = "file" | "stream"
let target: StdoutTarget | undefined
const stdoutTarget = (): StdoutTarget => {
  if (target !== undefined) return target
  target = "stream"
  try {
    if (process.stdout.isTTY === true) return target
    const st = fs.fstatSync(1)
    if (st.isFile() || st.isCharacterDevice() || st.isBlockDevice()) target = "file"
  } catch {
    // not known: left to process.stdout
  }
  return target
}

/** The most a `"file"` stdout takes in one `fs.writeSync`: between two, the fiber yields (an interruption lands). */
const FILE_WRITE_SLICE = 1024 * 1024

/**
 * Write `bytes` to a `"file"` stdout (see {@link stdoutTarget}): every byte
 * or a failure (its errno kept for {@link stdoutWriteFailure}); a short
 * write is continued, so the error behind it (`ENOSPC`, `EFBIG`) is seen.
 */
const writeFileStdout = (bytes: Uint8Array): Effect.Effect<void, StdoutClosed> =>
  Effect.gen(function*() {
    let at = 0
    while (at < bytes.length) {
      try {
        at += fs.writeSync(1, bytes, at, Math.min(bytes.length - at, FILE_WRITE_SLICE))
      } catch (e) {
        const err = e as NodeJS.ErrnoException
        // A device opened non-blocking that is busy: again, a little later.
        if (err.code === "EAGAIN") {
          yield* Effect.sleep(5)
          continue
        }
        stdoutError(err)
        return yield* Effect.fail(new StdoutClosed())
      }
      if (at < bytes.length) yield* Effect.yieldNow()
    }
  })

/**
 * Write text or bytes to stdout: the one path every output of every command
 * takes to stdout. A file is written here, each write's count and errno
 * checked (see {@link stdoutTarget}); a pipe or terminal through
 * `process.stdout`, waiting for it to drain when its buffer is full. A
 * failed write fails with {@link StdoutClosed}: stdout's reader gone (`EPIPE`,
 * exit 0) or, any other errno, the `OUTPUT_WRITE_FAILED` of
 * {@link stdoutWriteFailure} (exit 7).
 */
export const writeStdout = (text: string | Uint8Array): Effect.Effect<void, StdoutClosed> =>
  Effect.suspend(() => {
    if (stdoutClosed) return Effect.fail(new StdoutClosed())
    return stdoutTarget() === "file"
      ? writeFileStdout(typeof text === "string" ? Buffer.from(text, "utf8") : text)
      : writeStreamStdout(text)
  })

/**
 * {@link writeStdout} to a pipe or terminal: through `process.stdout`, waiting for it to drain when its buffer is full;
 * `written` is called once `process.stdout` is done with the bytes (its write's callback).
 */
const writeStreamStdout = (text: string | Uint8Array, written?: () => void): Effect.Effect<void, StdoutClosed> =>
  Effect.async<void, StdoutClosed>((resume) => {
    if (stdoutClosed) {
      written?.()
      return resume(Effect.fail(new StdoutClosed()))
    }
    const ok = process.stdout.write(text, (err) => {
      if (err) stdoutError(err)
      written?.()
    })
    if (ok) return resume(Effect.void)
    const onDrain = () => {
      process.stdout.off("error", onError)
      resume(Effect.void)
    }
    const onError = () => {
      process.stdout.off("drain", onDrain)
      resume(Effect.fail(new StdoutClosed()))
    }
    process.stdout.once("drain", onDrain)
    process.stdout.once("error", onError)
  })

/** Wait until what was written to stdout is handed over (or failed). */
export const flushStdout: Effect.Effect<void> = Effect.async<void>((resume) => {
  if (stdoutClosed || process.stdout.writableLength === 0) return resume(Effect.void)
  process.stdout.write("", (err) => {
    if (err) stdoutError(err)
    resume(Effect.void)
  })
})

/**
 * When stdout could not be written (`> /dev/full`, a redirect to a full
 * disk, the file-size limit, a stdout opened read-only): the `OUTPUT_WRITE_FAILED` to
 * report (on stderr: stdout is what failed; exit 7), naming the errno;
 * `undefined` when stdout took everything.
 */
export const stdoutWriteFailure: Effect.Effect<OutputWriteFailed | undefined> = Effect.suspend(() => {
  const e = stdoutFailure
  if (e === undefined) return Effect.succeed(undefined)
  return Effect.map(errors, ({ OutputWriteFailed }) => {
    const f = classify(e)
    const [problem, remediation] = f.code === "EFBIG"
      ? ["the file-size limit was reached", "Raise the file-size limit (`ulimit -f`) or redirect stdout to a file it allows, then run the same command again."]
      : f.code === "EBADF"
      ? ["standard output is not open for writing", "Run the command with stdout open for writing (redirect it with `>` to a file or a pipe, or pass --out FILE where the command takes it)."]
      : f.kind === "disk-full"
      ? ["the disk is full", "Free space on the disk stdout is redirected to (or redirect it elsewhere), then run the same command again."]
      : ["the write failed", "Redirect stdout to a file or pipe that can be written, then run the same command again."]
    return new OutputWriteFailed({
      message: `Cannot write to standard output: ${problem} (${describe(f)}); the output is incomplete.`,
      remediation,
      details: { path: "-", reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}) }
    })
  })
})

/** The `--json` envelope. */
export const envelope = (command: string, data: unknown, error: IngestError | null) => ({
  contractVersion: CONTRACT_VERSION,
  command,
  status: error === null ? "ok" : "error",
  data,
  error: error === null ? null : errorToJson(error)
})

/**
 * Write text for people (a listing, a transcript, Markdown) to stdout: every
 * control character it holds shown visibly (`visibleControls`), so that
 * session content cannot act on the terminal. The one way human text reaches
 * stdout.
 */
export const writeHuman = (text: string): Effect.Effect<void, StdoutClosed> => writeStdout(visibleControls(text))

/**
 * Write human text made of parts (`transcriptMarkdownParts`) to stdout, as
 * {@link writeHuman} writes their concatenation, yielding between parts (an
 * interruption lands between two); `last`: what becomes of the text's end
 * (a line added after it), applied to the last part.
 */
export const writeHumanParts = (
  parts: Iterable<string>,
  last: (text: string) => string = (text) => text
): Effect.Effect<void, StdoutClosed> =>
  Effect.gen(function*() {
    let held: string | undefined
    for (const part of parts) {
      if (held !== undefined) {
        yield* writeHuman(held)
        yield* Effect.yieldNow()
      }
      held = part
    }
    yield* writeHuman(last(held ?? ""))
  })

/** True when stdout may be coloured: a terminal, and `NO_COLOR` unset or empty (as the help decides). */
export const stdoutColor = (): boolean => process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""

/** A piece of human text; `mark`: a search match, highlighted on a terminal. */
export interface TextPiece {
  readonly text: string
  readonly mark?: boolean | undefined
}

/**
 * Human text made of pieces, some of them marked: each piece's control
 * characters shown visibly (`visibleControls`, as {@link writeHuman}), and,
 * when `color`, the marked ones highlighted (bold yellow, SGR `1;33`) by
 * escapes of ours added after that, so that content can never bring its own.
 * Without `color` the text is plain.
 */
export const markedText = (pieces: ReadonlyArray<TextPiece>, color: boolean): string =>
  pieces.map((p) => {
    const t = visibleControls(p.text)
    return color && p.mark === true && t.length > 0 ? `\u001b[1;33m${t}\u001b[0m` : t
  }).join("")

/** Write {@link markedText} to stdout (its pieces already shown safe; nothing is escaped again). */
export const writeMarked = (pieces: ReadonlyArray<TextPiece>, color: boolean): Effect.Effect<void, StdoutClosed> =>
  writeStdout(markedText(pieces, color))

/**
 * Write text for people to stderr (errors, notes), its control characters
 * shown visibly as {@link writeHuman} does. The one way text reaches stderr.
 */
export const writeStderr = (text: string): void => {
  process.stderr.write(visibleControls(text))
}

/** Print a success: the envelope with `--json`, else the rendered text (through {@link writeHuman}). */
export const printResult = (
  command: string,
  json: boolean,
  data: unknown,
  render: () => string
): Effect.Effect<void, StdoutClosed> =>
  json ? writeStdout(jsonOut(envelope(command, data, null))) : writeHuman(render())

/** Text on one line: its line breaks (LF, CR, U+2028, U+2029, NEL) written as escapes (`\n`, `\r`, `\u2028`, …). */
const oneLine = (text: string): string =>
  text.replace(/[\n\r\u2028\u2029\u0085]/g, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))

/**
 * One line for people: `session-ingest: CODE: message` plus a line with the
 * remedy; a line break inside either (a path that holds one) is written as
 * an escape, so the error stays on its two lines.
 */
export const renderError = (e: IngestError): string =>
  `session-ingest: ${e.code}: ${oneLine(e.message)}${e.remediation !== undefined ? `\n  remedy: ${oneLine(e.remediation)}` : ""}\n`

/** A SQLite or file-system error no layer named the file of, as a `StoreUnavailable`. */
const storageDefect = (StoreUnavailable: typeof import("../domain/errors.js").StoreUnavailable, d: unknown) => {
  const f = classify(d)
  return new StoreUnavailable({
    message: `A file session-ingest uses cannot be ${f.kind === "disk-full" ? "written: the disk is full" : f.kind === "read-only" ? "written: it is read-only" : "used"} (${describe(f)}).`,
    remediation: f.kind === "disk-full"
      ? "Free space on the disk (or pass --index / --state / --out on another disk), then run the same command again."
      : "Check that --index, --state and --out name files in folders you can write to, then run the same command again.",
    details: { reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}) }
  })
}

/**
 * The last guard of "never a stack trace": a SQLite or file-system error
 * that escaped `effect` as a defect fails it as a `StoreUnavailable`
 * instead. Other defects (real bugs) stay defects.
 */
export const storageDefectsAsErrors = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
  Effect.catchSomeDefect(effect, (d) =>
    isStorageError(d)
      ? Option.some(Effect.flatMap(errors, ({ StoreUnavailable }) => Effect.fail(storageDefect(StoreUnavailable, d))))
      : Option.none())
