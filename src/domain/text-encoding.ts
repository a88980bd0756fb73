/**
 * Line-based sources that are not UTF-8: a Claude Code log, a Muse agents
 * transcript, a Muse Code `session.jsonl` or export re-saved as UTF-16 (what
 * Windows PowerShell's `>` and `Out-File` write) or UTF-32. Every such
 * provider reads its JSONL as UTF-8 bytes (`src/layers/jsonl`: lines split
 * on the byte `\n`, provenance as byte offsets into the file as it is), and
 * the adapter never alters a byte of its source (docs/providers.md,
 * "Sources in another encoding than UTF-8"), so such a file is not decoded:
 * it is refused whole, as a `MALFORMED_SOURCE` that names its encoding and
 * the conversion to make, never read as lines of NUL bytes (which read as
 * blocks zeroed by a power loss) nor left out as a session without a
 * conversation. Pure; no schema.
 *
 * @module
 */
import type { Diagnostic } from "./model.js"
import { shellWord } from "./shell-word.js"

/** An encoding told from a file's first bytes that is not UTF-8. */
export interface ForeignEncoding {
  /** The encoding, as iconv names it. */
  readonly encoding: "UTF-16LE" | "UTF-16BE" | "UTF-32LE" | "UTF-32BE"
  /** The byte order mark the file starts with, as hex bytes (`FF FE`), or null when it has none (told by its NUL bytes). */
  readonly byteOrderMark: string | null
}

/**
 * Bytes at the start of a file that {@link foreignEncodingOf} looks at: a
 * first read at offset 0 is at least this long (`readSize`), so a byte order
 * mark and the first eight UTF-16 code units are seen in it.
 */
export const SNIFF_BYTES = 16

/** The code units of UTF-16 looked at for a file without a byte order mark (at least 2 must be there). */
const SNIFF_UNITS = SNIFF_BYTES / 2

/**
 * The encoding of a file that starts with `head` (its first bytes, at
 * offset 0), when it is plainly not UTF-8; else undefined (UTF-8, with or
 * without its BOM `EF BB BF`, and anything not told apart: an empty file, a
 * zeroed one). Told by:
 * - a byte order mark: `FF FE 00 00` UTF-32LE, `00 00 FE FF` UTF-32BE,
 *   `FF FE` UTF-16LE, `FE FF` UTF-16BE (the bytes FE and FF never occur in
 *   UTF-8);
 * - without one, NUL bytes at every other place: each of the first (up to 8,
 *   at least 2) code units of the head a non-NUL byte then a NUL byte is
 *   UTF-16LE, a NUL byte then a non-NUL byte UTF-16BE (ASCII text in UTF-16:
 *   a JSONL line starts `{"`; JSON text never holds a NUL byte, and a block
 *   zeroed by a power loss is NUL bytes only).
 */
export const foreignEncodingOf = (head: Uint8Array): ForeignEncoding | undefined => {
  const b0 = head[0], b1 = head[1]
  if (head.length >= 4 && b0 === 0xff && b1 === 0xfe && head[2] === 0 && head[3] === 0) return { encoding: "UTF-32LE", byteOrderMark: "FF FE 00 00" }
  if (head.length >= 4 && b0 === 0 && b1 === 0 && head[2] === 0xfe && head[3] === 0xff) return { encoding: "UTF-32BE", byteOrderMark: "00 00 FE FF" }
  if (head.length >= 2 && b0 === 0xff && b1 === 0xfe) return { encoding: "UTF-16LE", byteOrderMark: "FF FE" }
  if (head.length >= 2 && b0 === 0xfe && b1 === 0xff) return { encoding: "UTF-16BE", byteOrderMark: "FE FF" }
  const units = Math.min(SNIFF_UNITS, head.length >> 1)
  if (units < 2) return undefined
  let le = true, be = true
  for (let i = 0; i < units && (le || be); i++) {
    const lo = head[2 * i], hi = head[2 * i + 1]
    le &&= lo !== 0 && hi === 0
    be &&= lo === 0 && hi !== 0
  }
  return le ? { encoding: "UTF-16LE", byteOrderMark: null } : be ? { encoding: "UTF-16BE", byteOrderMark: null } : undefined
}

/** The `details.reason` of a `MALFORMED_SOURCE` for a file in another encoding than UTF-8. */
export const NOT_UTF8 = "not-utf8"

/**
 * The diagnostic code under which discovery reports a source it skipped
 * because it is in another encoding than UTF-8 (the error itself is
 * `MALFORMED_SOURCE`, details {@link NotUtf8Details}): its remedy is the
 * conversion (`../domain/skip-remedy.ts`), not a permission to grant.
 */
export const SOURCE_NOT_UTF8 = "SOURCE_NOT_UTF8"

/** The `details` of a `MALFORMED_SOURCE` for a file in another encoding than UTF-8. */
export interface NotUtf8Details extends ForeignEncoding {
  readonly reason: typeof NOT_UTF8
  readonly path: string
}

/**
 * The message, remediation and details of the `MALFORMED_SOURCE` for the
 * file at `path` in encoding `enc`: says it is not UTF-8, that nothing of it
 * was read, and the iconv command that converts it (to a new file, to be
 * put in its place: session-ingest writes no source).
 */
export const notUtf8Problem = (
  path: string,
  enc: ForeignEncoding
): { readonly message: string; readonly remediation: string; readonly details: NotUtf8Details } => {
  // With a byte order mark iconv's UTF-16 / UTF-32 read it and drop it; without one, the byte order must be named.
  const from = enc.byteOrderMark !== null ? enc.encoding.slice(0, 6) : enc.encoding
  const how = enc.byteOrderMark !== null ? `byte order mark ${enc.byteOrderMark}` : "no byte order mark: every other byte of its start is NUL"
  return {
    message: `${path} is encoded as ${enc.encoding} (${how}), not UTF-8: it was not read (its lines are read as UTF-8 only).`,
    remediation: `Convert it to UTF-8 and put the converted file in its place, e.g. iconv -f ${from} -t UTF-8 ${shellWord(path)} > ${
      shellWord(`${path}.utf8`)
    } && mv ${shellWord(`${path}.utf8`)} ${shellWord(path)}; then import again.`,
    details: { reason: NOT_UTF8, path, ...enc }
  }
}

/** True when an error (or its details) is the refusal of a file in another encoding than UTF-8 ({@link notUtf8Problem}). */
export const isNotUtf8 = (e: unknown): boolean => {
  if (typeof e !== "object" || e === null || !("details" in e)) return false
  const d = (e as { details: unknown }).details
  return typeof d === "object" && d !== null && (d as { reason?: unknown }).reason === NOT_UTF8
}

/**
 * The diagnostic of a source discovery skipped for error `e`, said by
 * `message` with `details`: code {@link SOURCE_NOT_UTF8} for a file in
 * another encoding than UTF-8, with the error's remediation (the conversion)
 * and its `encoding` and `byteOrderMark` among the details; else the error's
 * own code, with `details` alone (the remedy of such skips is the
 * discovery's, by code: `./skip-remedy.ts`).
 */
export const skipDiagnosticOf = (
  e: { readonly code: string; readonly remediation?: string | undefined; readonly details?: unknown },
  message: string,
  details: Record<string, unknown>
): Diagnostic => {
  if (!isNotUtf8(e)) return { code: e.code, message, details }
  const d = e.details as NotUtf8Details
  return {
    code: SOURCE_NOT_UTF8,
    message,
    ...(e.remediation !== undefined ? { remediation: e.remediation } : {}),
    details: { ...details, encoding: d.encoding, byteOrderMark: d.byteOrderMark }
  }
}
