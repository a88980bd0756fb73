/**
 * Whether a source's file now holds nothing: no byte but NUL and white space
 * (an empty file, one zeroed in place, blank lines). A source imported
 * before whose file is like this is a damaged file (a power loss or a
 * crashed writer leaves one: the same size, all NUL bytes), not a new
 * version of its session: the importer keeps what it imported from it as it
 * was and reports `SOURCE_EMPTIED` (coverage partial), as it keeps an
 * unreadable source (docs/import.md, "Sources emptied or zeroed on disk").
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as nodePath from "node:path"
import type { SourceAccessError } from "../../domain/errors.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"

/** The report's code for a source kept because its file now holds nothing. */
export const SOURCE_EMPTIED = "SOURCE_EMPTIED"

/** Bytes read per step while looking for a byte that is something. */
const STEP = 1024 * 1024

/** NUL, tab, line feed, carriage return, space. */
const blank = (b: number) => b === 0 || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/**
 * Read `path` (the file of a source imported before, authorized in its own
 * folder, read-only) from its start until a byte that is not NUL or white
 * space: true when there is none (an empty file too). Reads a file of
 * something only up to its first such byte (its first step); a zeroed file
 * whole, a step at a time. Fails with the access error when it cannot be read.
 */
export const holdsNothing = (access: SourceAccessShape, path: string): Effect.Effect<boolean, SourceAccessError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const src = yield* access.open(yield* access.authorizeFile(path, [nodePath.dirname(path)]))
      for (let at = 0;;) {
        const bytes = yield* src.read(at, STEP)
        if (bytes.length === 0) return true
        for (let i = 0; i < bytes.length; i++) if (!blank(bytes[i])) return false
        at += bytes.length
      }
    })
  )

/** The problem and remedy of a `SOURCE_EMPTIED` cause for the file `path`. */
export const emptiedCause = (path: string, size: number): { readonly problem: string; readonly remedy: string } => ({
  problem: size === 0
    ? `${path} is now empty; what was imported from it is kept as it was (an emptied file is not a new version of its session).`
    : `${path} now holds nothing but NUL bytes and white space (${size} bytes: a file zeroed by a crash or a power loss); what was imported from it is kept as it was.`,
  remedy: "Restore the file from a backup (or let the agent write it again); the next import reads it as usual. The index keeps the session meanwhile."
})
