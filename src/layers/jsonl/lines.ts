/**
 * Line reading for JSONL sources: the shared hot path of every line-oriented
 * provider. Reads an open source in fixed steps from a byte offset, splits on
 * `\n` with `Buffer.indexOf` (a newline byte never occurs inside a multibyte
 * UTF-8 sequence, so a character cut by a step boundary is never mangled), and
 * hands on each step's lines in parts of about {@link HAND_ON_BYTES} (a chunk
 * per part). Never holds more than one step plus one line in memory; a line
 * longer than the record limit is reported, not held.
 *
 * @module
 */
import { isUtf8 } from "node:buffer"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { MalformedSource, SourceAccessError } from "../../domain/errors.js"
import { SNIFF_BYTES } from "../../domain/text-encoding.js"
import type { OpenSource } from "../../services/SourceAccess.js"
import { notUtf8Source } from "./encoding.js"

/** One physical line of a source. Offsets are bytes from the start of the file. */
export interface Line {
  /** Offset of the line's first byte (after a UTF-8 BOM at offset 0). */
  readonly start: number
  /** Offset just past the line's `\n` (or the end of file for an unterminated last line). */
  readonly end: number
  /** 1-based physical line number counted from the read's starting offset's line (1 when reading from 0). */
  readonly lineNumber: number
  /** The line's bytes without its `\n` (a trailing `\r` is kept; JSON ignores it). Empty when `oversized`. */
  readonly bytes: Buffer
  /** False for a last line with no `\n`: possibly an append in progress. */
  readonly terminated: boolean
  /** True when the line was longer than `maxLineBytes`; its bytes were skipped, not held. */
  readonly oversized: boolean
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Offset to start at (the start of a line). Default 0. */
  readonly from?: number
  /** Bytes per read step. Default 256 KiB (fewer events alive at once: lower peak memory, same speed). */
  readonly stepBytes?: number
  /** Longest line held, in bytes; longer lines are reported as `oversized`. */
  readonly maxLineBytes: number
  /** Called with each read's bytes and offset, before its lines are handed on. */
  readonly onRead?: ((offset: number, bytes: Uint8Array) => void) | undefined
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** The default bytes per read step of {@link readLines}: 256 KiB. */
export const READ_STEP_BYTES = 256 * 1024

/**
 * The line splitting of {@link readLines}, synchronous, one read at a time:
 * hand it each read's bytes in file order with {@link LineSplitter.push}, and
 * call {@link LineSplitter.finish} at the end of the file. For callers that
 * read and decide in plain code (discovery settles most logs with one read);
 * {@link readLines} streams through it.
 */
export class LineSplitter {
  /** Next read offset: just past the bytes pushed so far. */
  private pos: number
  /**
   * Bytes of the current incomplete line, one piece per read, joined once
   * when the line ends: joining at every read would copy a long line once per
   * read (quadratic: a 32 MiB line read in 1 MiB steps copied ~512 MiB).
   */
  private carry: Array<Buffer> = []
  private carryLen = 0
  /** Offset of carry[0] (or of the oversized line being skipped). */
  private carryStart: number
  /** Inside an oversized line. */
  private skipping = false
  private lineNumber = 1
  /** The read {@link begin} was given (after a BOM at offset 0), until {@link next} has taken all its lines. */
  private buf: Buffer | undefined = undefined
  /** Offset in the file of `buf`'s first byte. */
  private bufStart = 0
  /** Where in `buf` the next line starts. */
  private at = 0
  /** Bytes of that read (its BOM included). */
  private rawLength = 0

  /** `maxLineBytes`: longest line held (longer: `oversized`); `from`: the offset of the first push (a line start). */
  constructor(private readonly maxLineBytes: number, from = 0) {
    this.pos = from
    this.carryStart = from
  }

  /** The offset just past the bytes pushed so far: where the next read starts. */
  get offset(): number {
    return this.pos
  }

  /** Split the bytes of the next read (non-empty, read at {@link offset}); appends the lines it completes to `out`. */
  push(raw: Uint8Array, out: Array<Line> = []): Array<Line> {
    for (const line of this.split(raw)) out.push(line)
    return out
  }

  /**
   * The lines that the bytes of the next read (non-empty, read at
   * {@link offset}) complete, split one at a time as they are taken: a caller
   * that has its answer stops taking them and the rest is never split (it is
   * then done with this splitter, whose state stays partway). As
   * {@link begin} and {@link next}.
   */
  *split(raw: Uint8Array): Generator<Line, void> {
    this.begin(raw)
    for (let line = this.next(); line !== undefined; line = this.next()) yield line
  }

  /**
   * Start on the bytes of the next read (non-empty, read at {@link offset}):
   * its lines are then taken one at a time with {@link next}, split as they
   * are taken ({@link split} without a generator: discovery takes a line or
   * two of each of thousands of heads). A caller that stops taking them is
   * done with this splitter.
   */
  begin(raw: Uint8Array): void {
    let buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length)
    let bufStart = this.pos
    if (bufStart === 0 && buf.length >= 3 && buf[0] === BOM[0] && buf[1] === BOM[1] && buf[2] === BOM[2]) {
      buf = buf.subarray(3)
      bufStart = 3
    }
    if (this.carryLen === 0 && !this.skipping) this.carryStart = bufStart
    this.buf = buf
    this.bufStart = bufStart
    this.at = 0
    this.rawLength = raw.length
  }

  /**
   * The next line the read given to {@link begin} completes, or undefined
   * when it completes no more: its remainder is then kept (copied) for the
   * next read, and {@link offset} is past it.
   */
  next(): Line | undefined {
    const buf = this.buf
    if (buf === undefined) return undefined
    const i = this.at
    const nl = buf.indexOf(10, i)
    if (nl === -1) {
      const rest = buf.subarray(i)
      if (!this.skipping) {
        if (this.carryLen + rest.length > this.maxLineBytes) {
          this.skipping = true
          this.carry = []
          this.carryLen = 0
        } else if (rest.length > 0) {
          // A copy: a view would pin the whole read buffer for a short remainder.
          this.carry.push(Buffer.from(rest))
          this.carryLen += rest.length
        }
      }
      this.buf = undefined
      this.pos += this.rawLength
      return undefined
    }
    const end = this.bufStart + nl + 1
    const start = this.carryStart
    const lineNumber = this.lineNumber
    let line: Line
    if (this.skipping) {
      line = { start, end, lineNumber, bytes: Buffer.alloc(0), terminated: true, oversized: true }
    } else {
      const piece = buf.subarray(i, nl)
      const total = this.carryLen + piece.length
      if (total > this.maxLineBytes) {
        line = { start, end, lineNumber, bytes: Buffer.alloc(0), terminated: true, oversized: true }
      } else {
        const bytes = this.carry.length === 0 ? piece : Buffer.concat([...this.carry, piece], total)
        line = { start, end, lineNumber, bytes, terminated: true, oversized: false }
      }
    }
    this.lineNumber++
    if (this.carry.length !== 0) this.carry = []
    this.carryLen = 0
    this.skipping = false
    this.carryStart = end
    this.at = nl + 1
    return line
  }

  /** At the end of the file: appends the unterminated remainder, if any, to `out` as a last line. */
  finish(out: Array<Line> = []): Array<Line> {
    if (this.skipping || this.carryLen > 0) {
      out.push({
        start: this.carryStart,
        end: this.pos,
        lineNumber: this.lineNumber,
        bytes: this.skipping ? Buffer.alloc(0) : this.carry.length === 1 ? this.carry[0] : Buffer.concat(this.carry, this.carryLen),
        terminated: false,
        oversized: this.skipping
      })
      this.carry = []
      this.carryLen = 0
      this.skipping = false
    }
    return out
  }
}

/**
 * The size of the read at `offset`: a full step, except the first read, which
 * is sized to what the file held when it was opened (plus one byte, so that an
 * unchanged file ends with a short read): a small log costs one small buffer,
 * not a full step. A first read at offset 0 is at least {@link SNIFF_BYTES}
 * (16) bytes, so a UTF-8 BOM is seen whole, and a file in UTF-16 or UTF-32
 * told apart (`foreignEncodingOf`), however small the step.
 */
export const readSize = (offset: number, from: number, step: number, sizeAtOpen: number): number =>
  offset === from ? Math.max(from === 0 ? SNIFF_BYTES : 1, Math.min(step, Math.max(4096, sizeAtOpen - from + 1))) : step

/**
 * Stream the lines of `source` from `options.from` to its end of file (as the
 * file is when each step reads it: a read shorter than a step ends the
 * stream). Each step's lines go on in parts ({@link handOnParts}), all of a
 * step's before the next read (and its `onRead`). Fails with source access
 * errors, and with `MalformedSource` (`./encoding.ts`) when the read at
 * offset 0 shows a file in UTF-16 or UTF-32, not UTF-8: nothing of it is
 * handed on (its lines would be NUL bytes and halves of characters).
 */
export const readLines = (
  source: OpenSource,
  options: ReadLinesOptions
): Stream.Stream<Line, SourceAccessError | MalformedSource> =>
  Stream.suspend(() => {
    const step = options.stepBytes ?? READ_STEP_BYTES
    const from = options.from ?? 0
    const splitter = new LineSplitter(options.maxLineBytes, from)
    /** The parts of the last read step not handed on yet, from `next`; `atEnd`: that step was the last. */
    let parts: ReadonlyArray<Chunk.Chunk<Line>> = []
    let next = 0
    let atEnd = false
    // One pull hands on one part: the parts of a step are taken from here before the next read. (Before, the
    // steps were a stream of their own, flattened with `Stream.flatMap`: an inner stream per step cost ~60 µs
    // per part, more than splitting the lines; bench figure (a), 3,687 parts of a 100 MiB log: 430 -> 250 ms.)
    return Stream.unfoldChunkEffect(undefined, () => {
      if (next < parts.length) return Effect.succeed(Option.some([parts[next++], undefined] as const))
      if (atEnd) return Effect.succeed(Option.none())
      const size = readSize(splitter.offset, from, step, source.file.stat.size)
      return source.read(splitter.offset, size).pipe(
        Effect.flatMap((raw) => {
          if (splitter.offset === 0 && raw.length > 0) {
            const notUtf8 = notUtf8Source(source.file.path, raw)
            if (notUtf8 !== undefined) return Effect.fail(notUtf8)
          }
          let out: Array<Line>
          if (raw.length === 0) {
            // End of file: an unterminated remainder is handed on as such.
            out = splitter.finish()
            atEnd = true
          } else {
            options.onRead?.(splitter.offset, raw)
            out = splitter.push(raw)
            // A short read is the end of the file as it is now: finish here rather than
            // spend one more read to learn it (most logs fit in their first step).
            atEnd = raw.length < size
            if (atEnd) splitter.finish(out)
          }
          parts = handOnParts(Chunk.unsafeFromArray(out), HAND_ON_BYTES)
          next = 1
          return Effect.succeed(Option.some([parts[0], undefined] as const))
        })
      )
    })
  })

/**
 * Bytes of lines handed on together by {@link readLines}: a read step's lines
 * go on in parts of about this many bytes (at least one line each), one part
 * at a time, so that only one part's events are alive at once downstream (a
 * whole step's events outlived V8's young-generation collections: 2 MB promoted
 * per collection when streaming a transcript, measured in session 13). 128 KiB
 * rather than 32 KiB (session 24): each part costs the stream's stages their
 * per-chunk work, and a 1 GiB log is 32,768 parts of 32 KiB; bench figure (a)
 * at scale 0.25 spent 6-14 % less CPU with 128 KiB parts (native log, full and
 * lean) and ~6 % less (transcript), with the same peak RSS.
 */
export const HAND_ON_BYTES = 128 * 1024

/** The lines of `chunk` in parts of at most `bytes` bytes of lines each (a longer line is a part alone), in order. */
export const handOnParts = (chunk: Chunk.Chunk<Line>, bytes: number): Array<Chunk.Chunk<Line>> => {
  const lines = Chunk.toReadonlyArray(chunk)
  const starts = partStarts(lines, 0, lines.length, bytes)
  if (starts.length <= 1) return [chunk]
  return starts.map((from, k) => Chunk.unsafeFromArray(lines.slice(from, k + 1 < starts.length ? starts[k + 1] : lines.length)))
}

/**
 * Where the parts of {@link handOnParts} start among `lines[from..to)`: a line
 * starts a new part when it would take the current one past `bytes` (each
 * line counts its bytes plus its newline; a part holds at least one line).
 */
const partStarts = (lines: ReadonlyArray<Line>, from: number, to: number, bytes: number): Array<number> => {
  const starts = [from]
  let size = 0
  for (let i = from; i < to; i++) {
    const n = lines[i].bytes.length + 1
    if (i > starts[starts.length - 1] && size + n > bytes) {
      starts.push(i)
      size = 0
    }
    size += n
  }
  return starts
}

/**
 * The index of the first line of the {@link handOnParts} part that holds line
 * `i`, of a read step whose lines start at `lines[stepFrom]`: for a caller that
 * reads a log whole and must hand on what {@link readLines} would before a
 * failing line (the parts before the failing line's part).
 */
export const handOnPartStart = (lines: ReadonlyArray<Line>, stepFrom: number, i: number, bytes: number): number => {
  const starts = partStarts(lines, stepFrom, i + 1, bytes)
  return starts[starts.length - 1]
}

/** True when `bytes` is valid UTF-8 (a fail-closed provider refuses anything else). */
export const isValidUtf8 = (bytes: Buffer): boolean => isUtf8(bytes)
