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
import { notUtf8Source } from "./encoding.js"
import { type Line, LineSplitter, readLines } from "./lines.js"
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
   * end of the file, a chunk per part of a read step (`readLines`); fails `MalformedSource` when the
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
 * The cursor tokens of one source's lines (see {@link JsonlSource.cursor}):
 * `bindHead(upTo)` is the head binding of the bytes before `upTo`.
 */
const cursorMaker = (
  options: JsonlOptions,
  bindHead: (upTo: number) => string
): JsonlSource["cursor"] => {
  const encode = cursorEncoder(options.sourceId)
  const checkNewline = options.binding.checkNewline
  // A line's events are consecutive: remember the CRC of the last line only.
  let checkedLine: Line | undefined
  let crcOfLine = 0
  return (line, seq, sub, extras) => {
    if (line !== checkedLine) {
      checkedLine = line
      crcOfLine = lineCrc(line.bytes, checkNewline && line.terminated)
    }
    const x = line.terminated ? extras : unterminatedExtras(extras)
    // One literal of fixed fields (an absent `sub` or `x` is undefined, which `encode` writes as absent): no
    // spread of a temporary object per event (issue 13, first import).
    return encode({ seq, off: line.end, ls: line.start, sub, h: placeCheck(crcOfLine, seq, sub), hd: bindHead(line.end), x })
  }
}

/**
 * A small JSONL file read whole, in one read (see {@link readJsonlWhole}):
 * its lines from the start, with the same offsets, flags and cursor tokens
 * as {@link JsonlSource.lines} and {@link JsonlSource.cursor} give for the
 * file as it was read.
 */
export interface JsonlWhole {
  /** The file's bytes (its size when opened). */
  readonly bytes: Buffer
  /** Its lines from offset 0 (after a BOM), the last one unterminated when it has no `\n`. */
  readonly lines: ReadonlyArray<Line>
  /** The cursor token of an event on one of `lines` (as {@link JsonlSource.cursor}). */
  readonly cursor: JsonlSource["cursor"]
}

/** A turn of the event loop (a macrotask: `setImmediate`), not a fiber yield (a microtask). */
const eventLoopTurn = Effect.async<void>((resume) => {
  setImmediate(() => resume(Effect.void))
})

/**
 * Read an authorized JSONL file whole when it is small: when the size it was
 * authorized at is at most `maxBytes`, read it in one step
 * (`SourceAccessShape.readHead`: open, check it is the same file, read, close)
 * of that size plus one byte, and split it into lines at once. Answers
 * `undefined` (nothing handed on, so the caller streams it with
 * {@link openJsonl} instead) when the file is larger, when its size at open is
 * not at most the size it was authorized at, or when the read did not end
 * exactly at the size seen at open (it grew or shrank while opened: the
 * streaming path tells those apart as it always did). What one pays per
 * small source: one open, one `fstat`, one read (a synchronous one), one
 * event-loop turn, in one effect (no scope); no head read apart, no stream.
 * Fails with access errors, and `MalformedSource` for a file in UTF-16 or
 * UTF-32, not UTF-8 (as {@link JsonlSource.lines} does, `./encoding.ts`).
 */
export const readJsonlWhole = (
  access: SourceAccessShape,
  file: AuthorizedFile,
  options: JsonlOptions,
  maxBytes: number
): Effect.Effect<JsonlWhole | undefined, SourceAccessError | MalformedSource> =>
  (file.stat.size > maxBytes
    ? Effect.succeed(undefined)
    : Effect.flatMap(access.readHead(file, file.stat.size + 1), ({ bytes: raw, statAtOpen }): Effect.Effect<JsonlWhole | undefined, MalformedSource> => {
      const notUtf8 = raw.length > 0 ? notUtf8Source(file.path, raw) : undefined
      if (notUtf8 !== undefined) return Effect.fail(notUtf8)
      const size = statAtOpen.size
      // Read up to one byte past the authorized size: a file as large at open as that or larger is streamed (the
      // read could not tell whether it grew once opened), as is one whose read did not end at its size at open.
      if (size > maxBytes || size > file.stat.size || raw.length !== size) return Effect.succeed(undefined)
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length)
      const splitter = new LineSplitter(options.maxRecordBytes, 0)
      const lines = size === 0 ? [] : splitter.finish(splitter.push(bytes))
      const bindHead = headBinder(bytes.subarray(0, Math.min(HEAD_BYTES, size)))
      return Effect.succeed({ bytes, lines, cursor: cursorMaker(options, bindHead) })
    })).pipe(
      // One event-loop turn per file (once it is closed): V8's incremental GC runs its tasks there
      // (measured on 1,000 logs: peak RSS 155-159 MB with a turn per log, 183-185 MB with none; CPU the same within noise).
      Effect.zipLeft(eventLoopTurn)
    )

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
        return failIfShrank(read, sizeAtOpen, () => reached, options.what, Effect.map(open.stat, (s) => s.size))
      })

    const cursor = cursorMaker(options, (upTo) => bindHead(upTo))

    return {
      open,
      sizeAtOpen,
      resume: (state) => checkResume(open, head, state, options),
      lines,
      cursor
    }
  })
