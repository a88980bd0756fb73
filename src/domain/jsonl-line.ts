/**
 * The first step of reading a line of a tolerant JSONL source (Muse agents
 * transcripts, seed 000; Claude Code session logs): what every such provider
 * does before it looks at a record's type. Pure; never throws.
 *
 * @module
 */
import { isRecord, parseJson } from "./json.js"

/**
 * The parse warnings of a line that is not a JSON object (counted as
 * `{kind, count, firstLine}`; seed 000: only such lines are parse warnings):
 * - `malformed-json`: a terminated line that is not JSON;
 * - `truncated-line`: an unterminated last line that is not JSON (a write cut mid-line);
 * - `non-object`: JSON that is not an object (`null`, an array, a scalar);
 * - `too-deep`: JSON nested deeper than the import limit's `maxDepth`;
 * - `oversized-line`: a line longer than the import limit's `maxRecordBytes` (not held);
 * - `zeroed-bytes`: a line that is not JSON because it holds a zeroed run
 *   ({@link zeroedRunAt}): blocks a crash or a power loss left zeroed, not a
 *   write cut mid-line nor a bad record;
 * - `not-utf8`: a line that is not JSON because it is text in UTF-16 (session 24,
 *   {@link utf16Line}): lines appended to a UTF-8 file in another encoding
 *   (Windows PowerShell 5's `>>`), not blocks zeroed.
 */
export type BadLineKind = "malformed-json" | "truncated-line" | "non-object" | "too-deep" | "oversized-line" | "zeroed-bytes" | "not-utf8"

/**
 * Whether a line's text (its bytes read as UTF-8) is text in UTF-16 (session 24): past one NUL at its start (a
 * UTF-16BE character's high byte, or the NUL of the line feed before it in UTF-16LE) and one at its end, its first
 * (up to 8, at least 2) pairs of characters are each a character then a NUL (ASCII text in UTF-16, as
 * `foreignEncodingOf` tells a whole file: `src/domain/text-encoding.ts`). A zeroed block is NUL characters only,
 * and JSON text never holds a NUL.
 */
export const utf16Line = (text: string): boolean => {
  let from = text.charCodeAt(0) === 0 ? 1 : 0
  if (text.charCodeAt(from) === 0xfeff || (text.charCodeAt(from) === 0xfffd && text.charCodeAt(from + 1) === 0xfffd)) from += text.charCodeAt(from) === 0xfeff ? 1 : 2
  const pairs = Math.min(8, Math.floor((text.length - from) / 2))
  if (pairs < 2) return false
  for (let k = 0; k < pairs; k++) {
    const a = text.charCodeAt(from + 2 * k)
    if (a === 0 || text.charCodeAt(from + 2 * k + 1) !== 0) return false
  }
  return true
}

/**
 * The shortest run of NUL bytes inside a line taken as a zeroed block: 512
 * bytes, a disk sector, the smallest unit a disk writes (an ext4 block is
 * 4 KiB, eight sectors).
 */
export const ZEROED_RUN = 512

/**
 * Where the first zeroed run of a line's bytes or characters (`length`,
 * `code(i)`) begins, or -1: a run of NUL bytes that ends the line (its
 * tail zeroed: a file's last block is cut at its size, so any length) or is
 * at least {@link ZEROED_RUN} long. JSON text never holds a NUL byte (RFC
 * 8259 escapes control characters), and a file system loses data in whole
 * blocks: after a power loss ext4's delayed allocation leaves a file its size
 * with its last blocks read as NUL bytes. A shorter NUL run with more of the
 * line after it (a raw control character in a string) is a bad line, not
 * lost blocks.
 */
export const zeroedRunAt = (length: number, code: (i: number) => number): number => {
  let from = -1
  for (let i = 0; i < length; i++) {
    if (code(i) !== 0) from = -1
    else if (from < 0) from = i
    else if (i + 1 - from >= ZEROED_RUN) return from
  }
  return from
}

/** {@link zeroedRunAt} of a line's text (its NUL characters): -1 at once when it has none. */
export const zeroedRunInText = (text: string): number =>
  text.indexOf("\u0000") === -1 ? -1 : zeroedRunAt(text.length, (i) => text.charCodeAt(i))

/** {@link zeroedRunAt} of a line's bytes: -1 at once when it has no NUL byte. */
export const zeroedRunInBytes = (bytes: Uint8Array): number =>
  bytes.indexOf(0) === -1 ? -1 : zeroedRunAt(bytes.length, (i) => bytes[i])

/** One physical line as a classifier sees it (bytes already decoded as UTF-8, invalid bytes as U+FFFD). */
export interface RawLine {
  /** The line's text without its `\n` (a trailing `\r` is allowed). */
  readonly text: string
  /** 1-based physical line number in the file. */
  readonly lineNumber: number
  /** False for a last line with no `\n`. */
  readonly terminated: boolean
  /** True when the line passed the record-size limit and its bytes were not read. */
  readonly oversized?: boolean | undefined
}

/** What a line is before its record type is looked at. */
export type LineObject =
  | { readonly _tag: "Blank" }
  | { readonly _tag: "Bad"; readonly kind: BadLineKind }
  | { readonly _tag: "Object"; readonly value: Record<string, unknown> }

const BLANK: LineObject = { _tag: "Blank" }
const bad = (kind: BadLineKind): LineObject => ({ _tag: "Bad", kind })
const isWhitespace = (t: string): boolean => /^[\s\uFEFF]*$/.test(t)

/**
 * A line as a JSON object, or why it is not one: blank (whitespace only, no
 * warning), a {@link BadLineKind}, or the object. A `\uFEFF` at the start of a
 * line (a BOM left by concatenation) is dropped. `maxDepth`: the import limit
 * on JSON nesting. Lone-surrogate escapes and U+2028/U+2029 inside strings
 * are ordinary JSON and kept as they are.
 */
export const lineObject = (line: RawLine, maxDepth: number): LineObject => {
  if (line.oversized === true) return bad("oversized-line")
  const text = line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text
  // one NUL alone: the high byte of a UTF-16LE line's line feed, left after it (no block is zeroed a byte at a time)
  if (isWhitespace(text) || text === "\u0000") return BLANK
  const parsed = parseJson(text, maxDepth)
  if (parsed._tag === "error") {
    // Only a line JSON refuses is looked at for NUL bytes (JSON never holds one): nothing more for the others.
    return bad(
      parsed.problem._tag === "depth"
        ? "too-deep"
        : text.indexOf("\u0000") >= 0 && utf16Line(text)
        ? "not-utf8"
        : zeroedRunInText(text) >= 0
        ? "zeroed-bytes"
        : line.terminated
        ? "malformed-json"
        : "truncated-line"
    )
  }
  return isRecord(parsed.value) ? { _tag: "Object", value: parsed.value } : bad("non-object")
}
