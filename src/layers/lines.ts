/**
 * Line reading for JSONL sources: the shared hot path of every line-oriented
 * provider. Reads an open source in fixed steps from a byte offset, splits on
 * `\n` with `Buffer.indexOf` (a newline byte never occurs inside a multibyte
 * UTF-8 sequence, so a character cut by a step boundary is never mangled), and
 * hands on lines a chunk per step. Never holds more than one step plus one
 * line in memory; a line longer than the record limit is reported, not held.
 *
 * @module
 */
import { isUtf8 } from "node:buffer"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { SourceAccessError } from "../domain/errors.js"
import type { OpenSource } from "../services/SourceAccess.js"

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
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

interface State {
  readonly pos: number // next read offset
  /**
   * Bytes of the current incomplete line, one piece per read step, joined once
   * when the line ends: joining at every step would copy a long line once per
   * step (quadratic: a 32 MiB line read in 1 MiB steps copied ~512 MiB).
   */
  readonly carry: ReadonlyArray<Buffer>
  readonly carryLen: number
  readonly carryStart: number // offset of carry[0]
  readonly skipping: boolean // inside an oversized line
  readonly lineNumber: number
  readonly done: boolean
}

/**
 * Stream the lines of `source` from `options.from` to its end of file (as the
 * file is when each step reads it: a read shorter than a step ends the
 * stream). Fails only with source access errors.
 */
export const readLines = (
  source: OpenSource,
  options: ReadLinesOptions
): Stream.Stream<Line, SourceAccessError> => {
  const step = options.stepBytes ?? 256 * 1024
  const max = options.maxLineBytes
  const from = options.from ?? 0
  const initial: State = {
    pos: from,
    carry: [],
    carryLen: 0,
    carryStart: from,
    skipping: false,
    lineNumber: 1,
    done: false
  }
  return Stream.unfoldChunkEffect(initial, (s) => {
    if (s.done) return Effect.succeed(Option.none())
    // The first read is sized to what the file held when it was opened (plus one byte, so that an
    // unchanged file ends with a short read): small logs cost one small buffer, not a full step.
    const size = s.pos === from ? Math.min(step, Math.max(4096, source.file.stat.size - from + 1)) : step
    return source.read(s.pos, size).pipe(
      Effect.map((raw) => {
        const out: Array<Line> = []
        let lineNumber = s.lineNumber
        if (raw.length === 0) {
          // End of file: an unterminated remainder is handed on as such.
          if (s.skipping) {
            out.push({
              start: s.carryStart,
              end: s.pos,
              lineNumber,
              bytes: Buffer.alloc(0),
              terminated: false,
              oversized: true
            })
          } else if (s.carryLen > 0) {
            out.push({
              start: s.carryStart,
              end: s.pos,
              lineNumber,
              bytes: s.carry.length === 1 ? s.carry[0] : Buffer.concat(s.carry, s.carryLen),
              terminated: false,
              oversized: false
            })
          }
          return Option.some([Chunk.unsafeFromArray(out), { ...s, done: true }] as const)
        }
        let buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length)
        let bufStart = s.pos
        if (bufStart === 0 && buf.length >= 3 && buf.subarray(0, 3).equals(BOM)) {
          buf = buf.subarray(3)
          bufStart = 3
        }
        let carry = s.carry
        let carryLen = s.carryLen
        let carryStart = s.carryLen === 0 && !s.skipping ? bufStart : s.carryStart
        let skipping = s.skipping
        let i = 0
        while (i <= buf.length) {
          const nl = buf.indexOf(10, i)
          if (nl === -1) {
            const rest = buf.subarray(i)
            if (!skipping) {
              if (carryLen + rest.length > max) {
                skipping = true
                carry = []
                carryLen = 0
              } else if (rest.length > 0) {
                // A copy: a view would pin the whole step buffer for a short remainder.
                carry = [...carry, Buffer.from(rest)]
                carryLen += rest.length
              }
            }
            break
          }
          const end = bufStart + nl + 1
          if (skipping) {
            out.push({ start: carryStart, end, lineNumber, bytes: Buffer.alloc(0), terminated: true, oversized: true })
          } else {
            const piece = buf.subarray(i, nl)
            const total = carryLen + piece.length
            if (total > max) {
              out.push({ start: carryStart, end, lineNumber, bytes: Buffer.alloc(0), terminated: true, oversized: true })
            } else {
              const bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece], total)
              out.push({ start: carryStart, end, lineNumber, bytes, terminated: true, oversized: false })
            }
          }
          lineNumber++
          carry = []
          carryLen = 0
          skipping = false
          carryStart = end
          i = nl + 1
        }
        const pos = s.pos + raw.length
        // A short read is the end of the file as it is now: finish here rather than
        // spend one more read to learn it (most logs fit in their first step).
        const atEnd = raw.length < size
        if (atEnd && (skipping || carryLen > 0)) {
          out.push({
            start: carryStart,
            end: pos,
            lineNumber,
            bytes: skipping ? Buffer.alloc(0) : carry.length === 1 ? carry[0] : Buffer.concat(carry, carryLen),
            terminated: false,
            oversized: skipping
          })
        }
        const next: State = { pos, carry, carryLen, carryStart, skipping, lineNumber, done: atEnd }
        return Option.some([Chunk.unsafeFromArray(out), next] as const)
      })
    )
  })
}

/** True when `bytes` is valid UTF-8 (a fail-closed provider refuses anything else). */
export const isValidUtf8 = (bytes: Buffer): boolean => isUtf8(bytes)
