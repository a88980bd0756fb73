/**
 * Whether a source's file now holds nothing where it held what was imported:
 * no byte but NUL and white space (an empty file, one zeroed in place, blank
 * lines), or a run of NUL bytes in its imported part (a zeroed tail or
 * block). A source imported before whose file is like this is a damaged file
 * (a power loss or a crashed writer leaves one: the same size, its last
 * blocks or all of it NUL bytes), not a new version of its session: the
 * importer keeps what it imported from it as it was and reports `SOURCE_EMPTIED` (coverage partial), as it keeps an
 * unreadable source (docs/import.md, "Sources emptied or zeroed on disk").
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import type { SourceAccessError } from "../../domain/errors.js"
import { partNameOf } from "../../domain/fingerprint.js"
import { ZEROED_RUN } from "../../domain/jsonl-line.js"
import { bindingLength } from "./prefix.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"
import { type ForeignEncoding, foreignEncodingOf, notUtf8Problem, SOURCE_NOT_UTF8 } from "../../domain/text-encoding.js"
import { SOURCE_GARBLED } from "../../domain/garbled.js"
import { SOURCE_TRUNCATED } from "./truncated.js"

/** The report's code for a source kept because its file now holds nothing. */
export const SOURCE_EMPTIED = "SOURCE_EMPTIED"

/** Bytes read per step while looking for a byte that is something. */
const STEP = 1024 * 1024

/** NUL, tab, line feed, carriage return, space. */
const blank = (b: number) => b === 0 || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/** The shortest run of NUL bytes, not at the file's end nor begun at a sector's start, taken as a zeroed block (a sector; see {@link lostBytes}). */
export { ZEROED_RUN }

/**
 * Whether a NUL run of `length` bytes from byte `from`, with other bytes
 * after it, is what a disk loses: at least a sector long, or begun at a
 * sector's start (a block's first bytes, any length: a file whose last block
 * was cut by a power loss, read as NUL bytes from the block's start to the
 * size the file had, then appended to by its writer).
 */
const lostRun = (from: number, length: number): boolean => length >= ZEROED_RUN || from % ZEROED_RUN === 0

/**
 * What a source's file holds where it held what was imported (its bytes
 * `[0, imported)`) when that part changed, when this is damage and not a new
 * version of its session (docs/import.md, "Sources emptied or zeroed on disk"):
 * - `nothing`: no byte but NUL and white space (an empty file, one zeroed in
 *   place whole, blank lines);
 * - `zeroed`: a run of NUL bytes (`from`, `length`, in bytes) that begins in
 *   the imported part and either runs to the file's end (a zeroed tail), is
 *   at least {@link ZEROED_RUN} bytes long (a zeroed block), or begins at a
 *   sector's start (a multiple of {@link ZEROED_RUN}: a block's first bytes).
 *
 * Why a NUL run is damage: these sources are JSON lines, and JSON text never
 * holds a NUL byte (RFC 8259: a control character in a string is escaped,
 * and only space, tab, LF and CR come between tokens), so NUL bytes are never
 * what an agent wrote. A file system loses data in whole blocks: after a
 * power loss, ext4's delayed allocation leaves a file its size with its last
 * blocks unwritten, read as NUL bytes from a block's start to the file's end
 * (so a zeroed tail can be any length: the last block is cut at the file's
 * size); a block lost in the middle is at least a sector. A zeroed tail the
 * writer appended to afterwards (an agent going on after the power loss) is a
 * NUL run from a block's start, of any length, with content after it. A
 * shorter NUL run begun off a sector's start and followed by other bytes is
 * not what a disk loses (a writer's bug, an edit): the file is changed as any
 * other, read again as a new generation. NUL bytes
 * only past the imported part are not checked here: the imported part did not
 * change, and the import resumes after it (the reader warns of the NULs).
 *
 * - `not-utf8`: the file now starts as UTF-16 or UTF-32 text does
 *   ({@link foreignEncodingOf}: a log re-saved by Windows PowerShell's `>` or
 *   `Out-File`; tester23a F2). Its lines are read as UTF-8 only (they are not
 *   decoded: provenance is byte offsets into the file as written), so nothing
 *   of it can be read; it is the same session in other bytes, not a new
 *   version of it, and what was imported is kept until it is converted back
 *   (reported `SOURCE_NOT_UTF8` with the iconv command).
 * - `truncated`: the file is now `size` bytes, shorter than the `imported`
 *   bytes imported from it, and what it holds is a prefix of them, as far
 *   as its events tell: their first `matched` bytes (the end of its last
 *   event's line; bytes after it, a partial last line, are not compared;
 *   undefined when the cursors name no line end): cut back
 *   (a backup restored, a sync rolled back, `head`, `truncate`), not a new
 *   version; told by `truncatedSource` (`./truncated.ts`), not by
 *   {@link lostBytes}; reported `SOURCE_TRUNCATED`.
 */
export type LostBytes =
  | { readonly _tag: "nothing"; readonly size: number }
  | { readonly _tag: "truncated"; readonly size: number; readonly imported: number; readonly matched: number | undefined }
  | { readonly _tag: "zeroed"; readonly size: number; readonly from: number; readonly length: number }
  | { readonly _tag: "not-utf8"; readonly size: number; readonly encoding: ForeignEncoding }
  | { readonly _tag: "garbled"; readonly size: number; readonly lines: number }

/**
 * Read `path` (the file of a source imported before, authorized in its own
 * folder, read-only) for {@link LostBytes}: `imported` is the byte count
 * imported from it (the checkpoint's binding; `Infinity` when unknown: the
 * whole file). Reads the imported part, and a NUL run begun in it to its end;
 * a file of something that has no NUL byte only up to `imported`. Undefined:
 * the file holds something else there (a change, read as usual). Fails with
 * the access error when it cannot be read.
 */
export const lostBytes = (
  access: SourceAccessShape,
  path: string,
  imported: number
): Effect.Effect<LostBytes | undefined, SourceAccessError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const src = yield* access.open(yield* access.authorizeFile(path, [nodePath.dirname(path)]))
      let something = false
      /** The NUL run being read: its first byte's offset (-1: none). */
      let runFrom = -1
      let found: { readonly from: number; readonly length: number } | undefined
      for (let at = 0;;) {
        const bytes = yield* src.read(at, STEP)
        const foreign = at === 0 ? foreignEncodingOf(bytes) : undefined
        if (foreign !== undefined) return { _tag: "not-utf8", size: (yield* src.stat).size, encoding: foreign } as const
        if (bytes.length === 0) {
          const size = at
          if (!something) return { _tag: "nothing", size } as const
          if (found === undefined && runFrom >= 0 && runFrom < imported) found = { from: runFrom, length: size - runFrom }
          return found === undefined ? undefined : { _tag: "zeroed", size, ...found } as const
        }
        for (let i = 0; i < bytes.length; i++) {
          const b = bytes[i]
          if (b === 0) {
            if (runFrom < 0) runFrom = at + i
            continue
          }
          if (runFrom >= 0) {
            if (found === undefined && runFrom < imported && lostRun(runFrom, at + i - runFrom)) found = { from: runFrom, length: at + i - runFrom }
            runFrom = -1
          }
          if (!blank(b)) something = true
          if (!something) continue
          // Something read and no NUL run open: on to the next NUL byte (memchr, not a byte at a time). Past the
          // imported part before it (or with none left in this step past it), the answer is known.
          const next = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(0, i + 1)
          const last = next < 0 ? bytes.length - 1 : next - 1
          if (at + last >= imported) {
            return found === undefined ? undefined : { _tag: "zeroed", size: (yield* src.stat).size, ...found } as const
          }
          i = last
        }
        at += bytes.length
      }
    })
  )

/** A file of a source found damaged ({@link LostBytes}): its path (the source's own file, or one of its nested logs). */
export interface Damaged {
  readonly path: string
  readonly lost: LostBytes
}

/**
 * Whether a source imported before is damaged where it changed: its own file
 * `path` (imported up to its checkpoint's `prefix` binding, the whole file
 * when it has none), then each of its nested logs `parts` (paths) the
 * checkpoint binds (a Muse Code native log's subagent logs), checked by
 * {@link lostBytes} in that order: the first damaged one, or undefined.
 */
export const damagedSource = (
  access: SourceAccessShape,
  path: string,
  checkpoint: { readonly prefix: string | null; readonly parts: Readonly<Record<string, string>> },
  parts: ReadonlyArray<string>
): Effect.Effect<Damaged | undefined, SourceAccessError> =>
  Effect.gen(function*() {
    const files: Array<readonly [string, number]> = [[path, importedBytes(checkpoint.prefix)]]
    for (const part of parts) {
      const binding = checkpoint.parts[partNameOf(part)]
      if (binding !== undefined) files.push([part, importedBytes(binding)])
    }
    for (const [file, imported] of files) {
      const lost = yield* lostBytes(access, file, imported)
      if (lost !== undefined) return { path: file, lost }
    }
    return undefined
  })

/**
 * Whether a line log imported before (its file `path`, imported up to its checkpoint's `prefix` binding, the whole
 * file when it has none) now holds, where it held what was imported, lines none of which reads as JSON: its bytes
 * overwritten in place (garbage, random bytes, a disk's or a tool's damage), not a new version of its session, which
 * would be lines of JSON (tester37 F1: such a Claude Code log was no longer listed, as it held no conversation, and
 * its session was superseded: gone from `sessions`, `usage` and `show`). Reads the imported part line by line and
 * stops at the first line that parses; `garbled` with the count of non-blank lines read when none did, else
 * undefined (a file of blank lines is {@link lostBytes}' `nothing`). Fails with the access error when it cannot be
 * read.
 */
export const garbledSource = (
  access: SourceAccessShape,
  path: string,
  checkpoint: { readonly prefix: string | null }
): Effect.Effect<Damaged | undefined, SourceAccessError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const imported = importedBytes(checkpoint.prefix)
      const src = yield* access.open(yield* access.authorizeFile(path, [nodePath.dirname(path)]))
      let lines = 0
      let carry: Array<Buffer> = []
      /** One line's bytes: true when it reads as JSON (the answer is then known). */
      const parses = (parts: Array<Buffer>): boolean => {
        const text = Buffer.concat(parts).toString("utf8").trim()
        if (text === "") return false
        lines++
        try {
          JSON.parse(text)
          return true
        } catch {
          return false
        }
      }
      for (let at = 0; at < imported;) {
        const bytes = yield* src.read(at, Math.min(STEP, imported - at))
        if (bytes.length === 0) break
        const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
        let from = 0
        for (let nl = b.indexOf(0x0a); nl >= 0; nl = b.indexOf(0x0a, from)) {
          carry.push(b.subarray(from, nl))
          if (parses(carry)) return undefined
          carry = []
          from = nl + 1
        }
        if (from < b.length) carry.push(Buffer.from(b.subarray(from)))
        at += bytes.length
      }
      if (carry.length > 0 && parses(carry)) return undefined
      return lines === 0 ? undefined : { path, lost: { _tag: "garbled", size: (yield* src.stat).size, lines } as const }
    })
  )

/** The byte count a binding (`<n>:<hex>`) says was imported; Infinity without one (the whole file). */
const importedBytes = (binding: string | null): number => {
  const n = binding === null ? -1 : bindingLength(binding)
  return n < 0 ? Infinity : n
}

/**
 * The report's code for a damaged source ({@link LostBytes}): `SOURCE_NOT_UTF8` for one re-encoded,
 * `SOURCE_TRUNCATED` for one cut back to a prefix of what was imported, `SOURCE_GARBLED` for one whose lines none
 * reads as JSON (the code discovery gives such a log never imported: `src/domain/garbled.ts`; tester38b F3: a log of
 * torn lines is not "emptied"), else `SOURCE_EMPTIED` (nothing but NUL bytes and white space, or a zeroed block).
 */
export const damagedCode = (lost: LostBytes): string =>
  lost._tag === "not-utf8"
    ? SOURCE_NOT_UTF8
    : lost._tag === "truncated"
    ? SOURCE_TRUNCATED
    : lost._tag === "garbled"
    ? SOURCE_GARBLED
    : SOURCE_EMPTIED

/**
 * What a file cut back holds of the bytes imported, as its events tell (tester26a F1): their first `matched` bytes,
 * then the bytes after them that were not compared (a partial last line: a line cut mid-way, perhaps written on).
 */
const truncatedHolds = (lost: Extract<LostBytes, { _tag: "truncated" }>): string => {
  if (lost.matched === undefined) return "the events it holds are the first ones imported"
  const rest = lost.size - lost.matched
  return `holds their first ${lost.matched} bytes${rest > 0 ? `, then ${rest} bytes that hold no whole event (a line cut mid-way, perhaps written on after the cut; not compared)` : ""}`
}

/**
 * The problem and remedy of a `SOURCE_EMPTIED` (or, re-encoded, `SOURCE_NOT_UTF8`; cut back, `SOURCE_TRUNCATED`;
 * garbled, `SOURCE_GARBLED`: {@link damagedCode}) cause for the file `path`, by what it holds ({@link LostBytes}).
 */
export const emptiedCause = (path: string, lost: LostBytes): { readonly problem: string; readonly remedy: string } => {
  if (lost._tag === "truncated") {
    return {
      problem: `${path} is now ${lost.size} bytes, shorter than the ${lost.imported} bytes imported from it, and ${truncatedHolds(lost)}: a log cut back (a backup restored, a sync rolled back, head or truncate), not a new version of its session; what was imported from it is kept as it was (not superseded).`,
      remedy: `Restore the file from a backup (or let the agent write it again); the next import resumes once it holds the ${lost.imported} bytes imported again. The index keeps the session meanwhile.`
    }
  }
  if (lost._tag === "not-utf8") {
    const p = notUtf8Problem(path, lost.encoding)
    return { problem: `${p.message} What was imported from it before is kept as it was (not superseded).`, remedy: p.remediation }
  }
  if (lost._tag === "garbled") {
    return {
      problem: `${path} now holds ${lost.lines} line${lost.lines === 1 ? "" : "s"} where it held what was imported, none of which reads as JSON: bytes overwritten in place (a disk's or a tool's damage), not a new version of its session; what was imported from it is kept as it was (not superseded).`,
      remedy: "Restore the file from a backup (or let the agent write it again); the next import reads it as usual. The index keeps the session meanwhile."
    }
  }
  return {
    problem: lost._tag === "zeroed"
      ? `${path} holds ${lost.length} NUL bytes from byte ${lost.from}${lost.from + lost.length === lost.size ? " to its end" : ""} (of ${lost.size}) where it held what was imported: blocks zeroed by a crash or a power loss, not a new version of its session; what was imported from it is kept as it was.`
      : lost.size === 0
      ? `${path} is now empty; what was imported from it is kept as it was (an emptied file is not a new version of its session).`
      : `${path} now holds nothing but NUL bytes and white space (${lost.size} bytes: a file zeroed by a crash or a power loss); what was imported from it is kept as it was.`,
    remedy: "Restore the file from a backup (or let the agent write it again); the next import reads it as usual. The index keeps the session meanwhile."
  }
}
