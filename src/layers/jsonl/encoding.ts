/**
 * The refusal of a JSONL source that is not UTF-8 (`../../domain/text-encoding.ts`),
 * as the typed error every line-based provider fails with: the one check
 * made on a file's first read at offset 0 by {@link readLines} (every
 * streamed or scanned read from the start), {@link readJsonlWhole} and
 * Muse Code's native discovery.
 *
 * @module
 */
import { MalformedSource } from "../../domain/errors.js"
import { foreignEncodingOf, notUtf8Problem } from "../../domain/text-encoding.js"

/**
 * The `MalformedSource` of the file at `path` whose first bytes (`head`, read
 * at offset 0) are in another encoding than UTF-8 (UTF-16 or UTF-32, with or
 * without a byte order mark), naming it and the conversion to make; else
 * undefined (UTF-8, with or without its BOM).
 */
export const notUtf8Source = (path: string, head: Uint8Array): MalformedSource | undefined => {
  const enc = foreignEncodingOf(head)
  return enc === undefined ? undefined : new MalformedSource(notUtf8Problem(path, enc))
}
