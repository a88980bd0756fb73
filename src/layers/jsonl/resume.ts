/**
 * Cursors of JSONL sources: what a cursor binds (its line's check, the
 * file's head) and the one rule by which a cursor resumes. Shared by every
 * line-oriented provider (muse-agents transcripts, native Muse Code logs);
 * the token format itself is `src/domain/cursor.ts` (`c2`, and `c1` of
 * earlier builds, still read).
 *
 * The resume rule. A cursor names the span `[ls, off)` of the line its event
 * came from: the line's bytes and, when the line had one, its `\n`. Line
 * reading ({@link LineSplitter}) holds a line of at most `maxRecordBytes`
 * bytes, counting a trailing `\r` as one of them (a CRLF line's `\r` is part
 * of the line; only the `\n` ends it), and reports a longer one as
 * oversized, for which no cursor is ever printed. So a span is at least 1
 * byte (an empty line is its `\n`) and at most `maxRecordBytes + 1`
 * ({@link maxCursorSpan}); anything else is refused before the source is
 * read. (An earlier copy of this check allowed `+ 2`, as if the `\r` of a
 * CRLF ending were not counted in the line: it is.) Then: the span must
 * still be in the file, end in `\n` (unless the cursor marks its line as
 * unterminated), match the line check `h` for the cursor's place, and the
 * file's head must match `hd`; else `INVALID_CURSOR` (the source was
 * replaced or rewritten). A cursor on an unterminated last line resumes
 * after the `\n` appended to that line since, or, with none, right where the
 * line stopped (what follows continues the same line).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  type CursorState,
  cursorSourceChanged,
  HEAD_BYTES,
  headBinding,
  headBindingLength,
  lineMatches
} from "../../domain/cursor.js"
import { InvalidCursor, type SourceAccessError } from "../../domain/errors.js"
import { isRecord } from "../../domain/json.js"
import { sha256Hex } from "../../domain/source-id.js"
import type { OpenSource } from "../../services/SourceAccess.js"

/**
 * How a provider binds cursors to lines. Fixed per provider: tokens it has
 * already printed must keep resuming.
 */
export interface LineBinding {
  /**
   * The line check `h` covers the line's `\n` (muse-agents transcripts) or
   * only the line's bytes (native Muse Code logs). A new provider: `false`.
   */
  readonly checkNewline: boolean
  /**
   * A cursor may follow an unterminated last line (tolerant providers, whose
   * stream hands such a line on); its token marks it (`x` = `1`, or `x.u` =
   * `1` beside provider extras). Fail-closed providers never print one, and
   * refuse a token that claims one.
   */
  readonly unterminated: boolean
  /**
   * A token without a head binding (`hd`) is refused. `false` only for a
   * provider whose early tokens had none (muse-agents before head binding).
   */
  readonly headRequired: boolean
}

/**
 * The longest span `[ls, off)` a cursor can name, in bytes: a line of at
 * most `maxRecordBytes` (its `\r`, if any, counted) plus its `\n`.
 */
export const maxCursorSpan = (maxRecordBytes: number): number => maxRecordBytes + 1

/** True when `[ls, off)` can be the span of a line a cursor was printed for (see the module's rule). */
export const spanIsValid = (ls: number, off: number, maxRecordBytes: number): boolean =>
  off - ls >= 1 && off - ls <= maxCursorSpan(maxRecordBytes)

/** The mark an unterminated line's cursor carries in `x`: `1` alone, or `u: 1` beside the provider's extras. */
export const unterminatedExtras = (extras: Record<string, unknown> | undefined): unknown =>
  extras === undefined ? 1 : { ...extras, u: 1 }

/** True when a cursor state marks its line as unterminated (see {@link unterminatedExtras}). */
export const marksUnterminated = (state: CursorState): boolean =>
  state.x === 1 || (isRecord(state.x) && state.x.u === 1)

/** The head binding a state carries: `hd`, or `x.hd` in `c1` tokens of an earlier native build. */
export const headOf = (state: CursorState): string | undefined => {
  if (state.hd !== undefined) return state.hd
  return isRecord(state.x) && typeof state.x.hd === "string" ? state.x.hd : undefined
}

/** Where a checked cursor resumes. Offsets in bytes from the start of the file. */
export interface ResumePoint {
  /** The `sequence` of the cursor's event. */
  readonly seq: number
  /** The cursor's event inside its line (a retained frame's child), if any. */
  readonly sub: number | undefined
  /** Start of the cursor's line. */
  readonly ls: number
  /** End of the cursor's span as printed. */
  readonly off: number
  /** Where the line after the cursor's starts: `off`, or `off + 1` when the cursor's unterminated line got its `\n` since. */
  readonly next: number
  /** The cursor's line had no `\n` and still has none: the bytes at `next` continue that same line. */
  readonly continues: boolean
}

const invalid = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass a cursor printed by `stream` for this same source, or stream without --cursor to start over."
  })

/**
 * Whether `hd` still matches the source's head: `head` is its first
 * {@link HEAD_BYTES} bytes (fewer for a short file). `n:digest` bindings
 * ({@link headBinding}); a 32-hex digest of a `c1` token of an earlier build
 * covered the first `min(HEAD_BYTES, off)` bytes.
 */
export const headMatches = (head: Uint8Array, hd: string, off: number): boolean => {
  if (hd.includes(":")) {
    const n = headBindingLength(hd)
    return n >= 0 && headBinding(head, n) === hd
  }
  return /^[0-9a-f]{32}$/.test(hd) && sha256Hex(head.subarray(0, Math.min(HEAD_BYTES, off))).slice(0, 32) === hd
}

/**
 * Check a cursor (already decoded and known to belong to this source)
 * against the open source, by the module's rule: answers where it resumes.
 * `head` is the source's first {@link HEAD_BYTES} bytes. Reads the cursor's
 * span (at most `maxRecordBytes + 1` bytes) and, for an unterminated line,
 * one byte after it. Fails: `InvalidCursor` (names no line, a span no line
 * can have, a line or head that changed, a source shorter than the cursor),
 * access errors.
 */
export const checkResume = (
  src: OpenSource,
  head: Uint8Array,
  state: CursorState,
  rule: { readonly binding: LineBinding; readonly maxRecordBytes: number }
): Effect.Effect<ResumePoint, InvalidCursor | SourceAccessError> =>
  Effect.gen(function*() {
    const { ls, off, h } = state
    const hd = headOf(state)
    if (off === undefined || ls === undefined || h === undefined || (hd === undefined && rule.binding.headRequired)) {
      return yield* invalid("The cursor names no line of a line source.")
    }
    if (!spanIsValid(ls, off, rule.maxRecordBytes)) return yield* invalid("The cursor's line span is not valid.")
    const unterminated = marksUnterminated(state)
    if (unterminated && !rule.binding.unterminated) return yield* invalid("The cursor names a line this source never resumes after.")
    const span = off - ls
    const bytes = yield* src.read(ls, span)
    if (bytes.length !== span) return yield* cursorSourceChanged("the source is shorter than the cursor's offset")
    const bound = unterminated
      ? bytes
      : bytes[span - 1] !== 10
      ? undefined
      : rule.binding.checkNewline
      ? bytes
      : bytes.subarray(0, span - 1)
    if (bound === undefined || !lineMatches(h, bound, state.seq, state.sub)) {
      return yield* cursorSourceChanged("the line the cursor follows is no longer there")
    }
    if (hd !== undefined && !headMatches(head, hd, off)) {
      return yield* cursorSourceChanged("the source's first lines were rewritten")
    }
    let next = off
    let continues = false
    if (unterminated) {
      // The cursor's line had no `\n` then; if one was appended since, it ends that same line.
      const after = yield* src.read(off, 1)
      if (after.length === 1 && after[0] === 10) next = off + 1
      else continues = true
    }
    return { seq: state.seq, sub: state.sub, ls, off, next, continues }
  })
