/**
 * One JSONL source open for a stream: its lines with byte offsets (from the
 * start or from a resume point), shrink detection, the head its cursors bind,
 * the resume check and cursor encoding, all in one place so a line-oriented
 * provider writes only its record mapping. Reads go through `SourceAccess`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import {
  cursorEncoder,
  type CursorState,
  HEAD_BYTES,
  headBinder,
  lineCrc,
  placeCheck
} from "../../domain/cursor.js"
import type { InvalidCursor, MalformedSource, SourceAccessError } from "../../domain/errors.js"
import type { SourceRead } from "../../services/SessionSource.js"
import type { AuthorizedFile, OpenSource, SourceAccessShape } from "../../services/SourceAccess.js"
import { type Line, readLines } from "./lines.js"
import { checkResume, type LineBinding, type ResumePoint, unterminatedExtras } from "./resume.js"
import { failIfShrank, hasBom } from "./shrink.js"

/** What a {@link openJsonl} source is opened with. */
export interface JsonlOptions {
  readonly sourceId: string
  /** How this provider binds cursors (fixed per provider). */
  readonly binding: LineBinding
  /** Longest line held, in bytes (`ImportLimits.maxRecordBytes`); longer lines are `oversized`. */
  readonly maxRecordBytes: number
  /** The source as messages name it ("The transcript", "The native log"). */
  readonly what: string
}

/** An open JSONL source (see {@link openJsonl}). Owned by one stream. */
export interface JsonlSource {
  readonly open: OpenSource
  /** Size of the file when it was opened, bytes. */
  readonly sizeAtOpen: number
  /**
   * Check a cursor (decoded, known to be this source's) by the one resume
   * rule (`./resume.ts`): where it resumes, or `InvalidCursor`.
   */
  readonly resume: (state: CursorState) => Effect.Effect<ResumePoint, InvalidCursor | SourceAccessError>
  /**
   * The lines from `from` (a line start; 0: the start, after a BOM) to the
   * end of the file, a chunk per read step; fails `MalformedSource` when the
   * file ends before the size it had when opened (truncated or rewritten in
   * place). Keeps the head binding up to date for lines past a head that was
   * short when opened (a file that grew). `onRead` receives each read.
   */
  readonly lines: (
    from: number,
    onRead?: ((read: SourceRead) => void) | undefined
  ) => Stream.Stream<Line, SourceAccessError | MalformedSource>
  /**
   * The cursor token of an event on `line`: `seq` its sequence, `sub` its
   * index inside the line (when a line yields several), `extras` the
   * provider's own (JSON, in `x`). An unterminated line's token is marked as such.
   */
  readonly cursor: (line: Line, seq: number, sub?: number, extras?: Record<string, unknown>) => string
}

/**
 * Open an authorized JSONL file for one stream (read-only, in the scope) and
 * read its head. Fails with access errors.
 */
export const openJsonl = (
  access: SourceAccessShape,
  file: AuthorizedFile,
  options: JsonlOptions
): Effect.Effect<JsonlSource, SourceAccessError, Scope.Scope> =>
  Effect.gen(function*() {
    const open = yield* access.open(file)
    let head = Buffer.from(yield* open.read(0, HEAD_BYTES))
    let bindHead = headBinder(head)
    const sizeAtOpen = (yield* open.stat).size
    const encode = cursorEncoder(options.sourceId)
    const checkNewline = options.binding.checkNewline
    // A line's events are consecutive: remember the CRC of the last line only.
    let checkedLine: Line | undefined
    let crcOfLine = 0

    const lines = (from: number, onRead?: ((read: SourceRead) => void) | undefined) =>
      Stream.suspend(() => {
        let reached = from === 0 && hasBom(head) ? 3 : from
        const read = readLines(open, {
          from,
          maxLineBytes: options.maxRecordBytes,
          onRead: onRead === undefined
            ? undefined
            : (offset, bytes) => onRead({ sourceId: options.sourceId, path: file.path, offset, bytes })
        }).pipe(
          Stream.mapChunksEffect((chunk) =>
            Effect.gen(function*() {
              let end = reached
              for (const l of chunk) end = l.end
              reached = end
              if (head.length < HEAD_BYTES && head.length < end) {
                head = Buffer.from(yield* open.read(0, HEAD_BYTES))
                bindHead = headBinder(head)
              }
              return chunk
            })
          )
        )
        return failIfShrank(read, sizeAtOpen, () => reached, options.what)
      })

    const cursor = (line: Line, seq: number, sub?: number, extras?: Record<string, unknown>): string => {
      if (line !== checkedLine) {
        checkedLine = line
        crcOfLine = lineCrc(line.bytes, checkNewline && line.terminated)
      }
      const x = line.terminated ? extras : unterminatedExtras(extras)
      return encode({
        seq,
        off: line.end,
        ls: line.start,
        ...(sub !== undefined ? { sub } : {}),
        h: placeCheck(crcOfLine, seq, sub),
        hd: bindHead(line.end),
        ...(x !== undefined ? { x } : {})
      })
    }

    return {
      open,
      sizeAtOpen,
      resume: (state) => checkResume(open, head, state, options),
      lines,
      cursor
    }
  })
