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
 * - `zeroed-bytes`: a line that is not JSON because it holds NUL bytes: JSON
 *   text never holds one (RFC 8259 escapes control characters), so they are
 *   blocks a crash or a power loss left zeroed (ext4's delayed allocation
 *   leaves a file's last blocks so), not a write cut mid-line nor a bad record.
 */
export type BadLineKind = "malformed-json" | "truncated-line" | "non-object" | "too-deep" | "oversized-line" | "zeroed-bytes"

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
  if (isWhitespace(text)) return BLANK
  const parsed = parseJson(text, maxDepth)
  if (parsed._tag === "error") {
    // Only a line JSON refuses is looked at for NUL bytes (JSON never holds one): nothing more for the others.
    return bad(
      parsed.problem._tag === "depth"
        ? "too-deep"
        : text.indexOf("\u0000") !== -1
        ? "zeroed-bytes"
        : line.terminated
        ? "malformed-json"
        : "truncated-line"
    )
  }
  return isRecord(parsed.value) ? { _tag: "Object", value: parsed.value } : bad("non-object")
}
