/**
 * Resume cursors. A cursor is an opaque token naming the position right after
 * one emitted event, bound to its source (source id) and to the bytes it was
 * taken from (a digest), so a cursor of another source, or of a source that was
 * replaced or rewritten under it, is refused with `INVALID_CURSOR` instead of
 * resuming at a wrong place.
 *
 * Token: `c1.` + base64url(JSON of {@link CursorState}).
 *
 * @module
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidCursor } from "./errors.js"
import { sha256Hex } from "./source-id.js"

/**
 * What a cursor remembers.
 * - `src`: the source id it belongs to.
 * - `seq`: the `sequence` of the event it follows.
 * - `off`: byte offset to resume reading at (line-oriented sources: the end of the event's line).
 * - `ls`: byte offset where the event's line starts (line-oriented sources).
 * - `sub`: index of the event inside its line (a retained frame's child), when a line yields several.
 * - `h`: digest binding the cursor to content: bytes `[ls, off)` of a line source, the whole document of an export.
 * - `hd`: head binding of a line source (see {@link headBinding}): a rewritten prefix is noticed even when the cursor's own line is intact.
 * - `x`: provider-specific extras (JSON).
 */
export const CursorState = Schema.Struct({
  v: Schema.Literal(1),
  src: Schema.String,
  seq: Schema.Int,
  off: Schema.optional(Schema.NonNegativeInt),
  ls: Schema.optional(Schema.NonNegativeInt),
  sub: Schema.optional(Schema.NonNegativeInt),
  h: Schema.optional(Schema.String),
  hd: Schema.optional(Schema.String),
  x: Schema.optional(Schema.Unknown)
})
export type CursorState = typeof CursorState.Type

const PREFIX = "c1."
const decodeState = Schema.decodeUnknownEither(Schema.parseJson(CursorState))

/** Encode a cursor state as a token. */
export const encodeCursor = (state: CursorState): string =>
  PREFIX + Buffer.from(JSON.stringify(state), "utf8").toString("base64url")

/** A cursor state without the fields a {@link cursorEncoder} fixes (`v`, `src`). */
export type CursorPosition = Omit<CursorState, "v" | "src">

/**
 * {@link encodeCursor} for many cursors of one source: the same tokens, with
 * the base64 of the constant head (`{"v":1,"src":…,`) computed once. Base64
 * maps every 3 bytes to 4 characters, so a head cut at a multiple of 3 bytes
 * encodes on its own and the rest is appended (bench figure (a): a token per
 * event). Key order of `position` is kept, as `encodeCursor` keeps it.
 */
export const cursorEncoder = (src: string): ((position: CursorPosition) => string) => {
  const head = Buffer.from(`{"v":1,"src":${JSON.stringify(src)},`, "utf8")
  const cut = head.length - (head.length % 3)
  const ascii = head.every((b) => b < 0x80)
  const head64 = PREFIX + head.subarray(0, ascii ? cut : 0).toString("base64url")
  const carry = head.subarray(ascii ? cut : 0).toString("utf8")
  return (position) => head64 + Buffer.from(carry + JSON.stringify(position).slice(1), "utf8").toString("base64url")
}

const invalid = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass a cursor printed by `stream` for this same source, or stream without --cursor to start over."
  })

/**
 * Decode a token and check it belongs to `sourceId`.
 * Fails with `InvalidCursor` when the token is malformed or of another source.
 */
export const decodeCursor = (token: string, sourceId: string): Either.Either<CursorState, InvalidCursor> => {
  if (!token.startsWith(PREFIX)) return Either.left(invalid("The cursor is not a session-ingest cursor token."))
  const body = token.slice(PREFIX.length)
  if (!/^[A-Za-z0-9_-]*$/.test(body)) return Either.left(invalid("The cursor token is not base64url."))
  const decoded = decodeState(Buffer.from(body, "base64url").toString("utf8"))
  if (Either.isLeft(decoded)) return Either.left(invalid("The cursor token is malformed."))
  if (decoded.right.src !== sourceId) {
    return Either.left(invalid("The cursor belongs to another source."))
  }
  return Either.right(decoded.right)
}

/** The `INVALID_CURSOR` error for a source that changed under a cursor. */
export const cursorSourceChanged = (what: string): InvalidCursor =>
  invalid(`The source was replaced or rewritten since the cursor was taken (${what}).`)

/** Bytes at the head of a line source that a cursor binds (`hd`). */
export const HEAD_BYTES = 4096

/**
 * The head binding of a cursor at offset `upTo`: `<n>:<digest>` of the first
 * `n = min(HEAD_BYTES, upTo, head.length)` bytes of the source. `head` is the
 * source's first bytes as read when the stream started.
 */
export const headBinding = (head: Uint8Array, upTo: number): string => {
  const n = Math.min(HEAD_BYTES, upTo, head.length)
  return `${n}:${sha256Hex(head.subarray(0, n)).slice(0, 32)}`
}

/** How many head bytes a binding covers (what to re-read to check it); -1 when malformed. */
export const headBindingLength = (binding: string): number => {
  const n = Number(binding.slice(0, binding.indexOf(":")))
  return Number.isSafeInteger(n) && n >= 0 && n <= HEAD_BYTES ? n : -1
}

/**
 * {@link headBinding} for many offsets of one source: hashes the head once per
 * distinct covered length (every offset past the head shares one binding).
 */
export const headBinder = (head: Uint8Array): ((upTo: number) => string) => {
  const full = Math.min(HEAD_BYTES, head.length)
  let fullBinding: string | undefined
  return (upTo) => {
    if (upTo < full) return headBinding(head, upTo)
    return (fullBinding ??= headBinding(head, full))
  }
}
