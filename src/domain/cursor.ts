/**
 * Resume cursors. A cursor is an opaque token naming the position right after
 * one emitted event, bound to its source (source id) and to the bytes it was
 * taken from (a digest), so a cursor of another source, or of a source that was
 * replaced or rewritten under it, is refused with `INVALID_CURSOR` instead of
 * resuming at a wrong place.
 *
 * Token (`c2`): `c2.<tag>.<seq>.<off>.<ls>.<sub>.<h>.<hd>.<x>`, fields
 * separated by dots, an absent field empty: `tag` is {@link sourceTag} of the
 * source id, numbers are base 36, `h` and `hd` are digests as the source
 * wrote them, `x` is base64url(JSON). About 110 characters for a line
 * source, a third of the `c1` token (`c1.` + base64url(JSON of the state)),
 * which is still accepted. Every event carries one, so its size and cost
 * count (bench figure (a)).
 *
 * @module
 */
import { crc32 } from "node:zlib"
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
 * - `hd`: head binding of a line source (see {@link headBinding}): a rewritten prefix is noticed even when the cursor's own line is intact;
 *   for an export, the check of the cursor's own event ({@link eventCheck}).
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

const V1 = "c1."
const V2 = "c2."
// The decoders are made on first use, not when the module loads: making one compiles its
// parser, a cost every command that loads a provider paid even when it read no cursor (issue 13).
let v1Decoder: ((u: unknown) => Either.Either<CursorState, unknown>) | undefined
const decodeV1State = (u: unknown) => (v1Decoder ??= Schema.decodeUnknownEither(Schema.parseJson(CursorState)))(u)

/**
 * The tag a `c2` token names its source by: the first 16 hex digits of the
 * sha256 of the source id (64 bits: no two sources a user streams share one).
 */
export const sourceTag = (sourceId: string): string => sha256Hex(sourceId).slice(0, 16)

/** Digest characters a token carries as they are (`h`, `hd`). */
const DIGEST = /^[A-Za-z0-9:_-]*$/
const B64URL = /^[A-Za-z0-9_-]*$/

/** A cursor state without the fields a {@link cursorEncoder} fixes (`v`, `src`). */
export type CursorPosition = Omit<CursorState, "v" | "src">

const num = (n: number | undefined) => (n === undefined ? "" : n.toString(36))

/**
 * Encode the cursors of one source: `src` is tagged once, and the base64 of
 * `x` is reused while `x` stays the same (it mostly does along a stream).
 * `h` and `hd` must be digests (`[A-Za-z0-9:_-]`); anything else is carried
 * in `x` by the caller.
 */
export const cursorEncoder = (src: string): ((position: CursorPosition) => string) => {
  const head = V2 + sourceTag(src) + "."
  let lastX: string | undefined
  let lastX64 = ""
  return (p) => {
    let x64 = ""
    if (p.x !== undefined) {
      const xs = JSON.stringify(p.x)
      if (xs !== lastX) {
        lastX = xs
        lastX64 = Buffer.from(xs, "utf8").toString("base64url")
      }
      x64 = lastX64
    }
    return head + num(p.seq) + "." + num(p.off) + "." + num(p.ls) + "." + num(p.sub) + "." + (p.h ?? "") + "." +
      (p.hd ?? "") + "." + x64
  }
}

/** Encode a cursor state as a token (see {@link cursorEncoder} for many of one source). */
export const encodeCursor = (state: CursorState): string => {
  const { src, v: _v, ...position } = state
  return cursorEncoder(src)(position)
}

const invalid = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass a cursor printed by `stream` for this same source, or stream without --cursor to start over."
  })

const malformed = () => invalid("The cursor token is malformed.")

/** A base-36 field: empty is absent; anything but the canonical spelling of a safe integer is malformed. */
const parseNum = (f: string): number | undefined | null => {
  if (f === "") return undefined
  const n = parseInt(f, 36)
  return Number.isSafeInteger(n) && n.toString(36) === f ? n : null
}

const peekV2 = (body: string): Either.Either<CursorState, InvalidCursor> => {
  const f = body.split(".")
  if (f.length !== 8) return Either.left(malformed())
  const [tag, seqF, offF, lsF, subF, h, hd, x64] = f
  if (!/^[0-9a-f]{16}$/.test(tag) || !DIGEST.test(h) || !DIGEST.test(hd) || !B64URL.test(x64)) return Either.left(malformed())
  const seq = parseNum(seqF)
  const off = parseNum(offF)
  const ls = parseNum(lsF)
  const sub = parseNum(subF)
  if (seq === undefined || seq === null || off === null || ls === null || sub === null) return Either.left(malformed())
  // CursorState's rules, checked here (every field is parsed above; `x` is any JSON), not by Schema's decoder: a
  // first import peeks a token per batch, and each parse worker compiled that decoder's parser once (issue 13).
  if ((off !== undefined && off < 0) || (ls !== undefined && ls < 0) || (sub !== undefined && sub < 0)) return Either.left(malformed())
  let x: unknown
  if (x64 !== "") {
    try {
      x = JSON.parse(Buffer.from(x64, "base64url").toString("utf8"))
    } catch {
      return Either.left(malformed())
    }
  }
  const state: Record<string, unknown> = { v: 1, src: `tag:${tag}`, seq }
  if (off !== undefined) state.off = off
  if (ls !== undefined) state.ls = ls
  if (sub !== undefined) state.sub = sub
  if (h !== "") state.h = h
  if (hd !== "") state.hd = hd
  if (x !== undefined) state.x = x
  return Either.right(state as CursorState)
}

const SHOWN_FORM = /^s1\.([0-9a-f]{16})\.(0|[1-9a-z][0-9a-z]*)\.([0-9a-f]{8})$/

/**
 * The fields of a well-formed shown cursor token (`s1.<tag>.<seq>.<check>`, `./shown-cursor.ts`): its source tag (16
 * hex), its sequence (a safe integer, written in base 36) and its check (8 hex); null when `token` is not one. Here,
 * not in `./shown-cursor.ts`, so that {@link peekCursor} tells a shown cursor from a malformed token without importing it.
 */
export const shownCursorForm = (token: string): { readonly tag: string; readonly seq: number; readonly check: string } | null => {
  const m = SHOWN_FORM.exec(token)
  if (m === null) return null
  const seq = parseInt(m[2], 36)
  return Number.isSafeInteger(seq) ? { tag: m[1], seq, check: m[3] } : null
}

/**
 * Decode a token without binding it to a source yet: its state, whose `src`
 * is the source id of a `c1` token or `tag:<tag>` of a `c2` token (check it
 * with {@link cursorIsFor}). Fails with `InvalidCursor` when malformed.
 */
export const peekCursor = (token: string): Either.Either<CursorState, InvalidCursor> => {
  if (token.startsWith(V2)) return peekV2(token.slice(V2.length))
  if (token.startsWith("s1.")) {
    // a shown cursor (./shown-cursor.ts): a redacted output's, which names an event but holds no place in the source's
    // bytes; a token that only starts like one is malformed, as any other (tester31c F5)
    if (shownCursorForm(token) === null) return Either.left(malformed())
    return Either.left(
      new InvalidCursor({
        message: "The cursor is a redacted output's (s1.): it names an event for get_events, not a place in the source to resume reading at.",
        remediation: "Take the cursor from an unredacted output (`stream`, `search`, `show --format events`), or stream without --cursor to start over."
      })
    )
  }
  if (!token.startsWith(V1)) return Either.left(invalid("The cursor token is malformed: it is not a session-ingest cursor."))
  const body = token.slice(V1.length)
  if (!B64URL.test(body)) return Either.left(invalid("The cursor token is not base64url."))
  const decoded = decodeV1State(Buffer.from(body, "base64url").toString("utf8"))
  return Either.isLeft(decoded) ? Either.left(malformed()) : Either.right(decoded.right)
}

/** True when a peeked cursor state belongs to `sourceId`. */
export const cursorIsFor = (state: CursorState, sourceId: string): boolean =>
  state.src.startsWith("tag:") ? state.src.slice(4) === sourceTag(sourceId) : state.src === sourceId

/**
 * Decode a token and check it belongs to `sourceId`; the state answered has
 * `src` = `sourceId`. Fails with `InvalidCursor` when the token is malformed
 * or of another source.
 */
export const decodeCursor = (token: string, sourceId: string): Either.Either<CursorState, InvalidCursor> => {
  const peeked = peekCursor(token)
  if (Either.isLeft(peeked)) return peeked
  if (!cursorIsFor(peeked.right, sourceId)) return Either.left(invalid("The cursor belongs to another source."))
  return Either.right({ ...peeked.right, src: sourceId })
}

/**
 * CRC-32 of a line's bytes, continued over a `\n` when `newline`: the first
 * half of a cursor's `h` (see {@link placeCheck}).
 */
export const lineCrc = (bytes: Uint8Array, newline = false): number => {
  const c = crc32(bytes)
  return newline ? crc32(NEWLINE, c) : c
}

/**
 * The `h` of a cursor: the CRC-32 of its line ({@link lineCrc}) continued
 * over the cursor's place in the stream (`seq`, and `sub` for an event
 * inside a line), 8 hex digits. A line that changed under the cursor, or a
 * token whose `seq` / `sub` was edited, no longer matches (INVALID_CURSOR);
 * the cursor's offsets, the line's length and the head binding must match
 * too. It tells accidents, not forgeries: a cursor is the user's own token.
 * A fraction of a sha256's cost per event (bench figure (a)).
 */
export const placeCheck = (lineCrc: number, seq: number, sub?: number): string => {
  let c = crcDigits(~lineCrc, seq)
  if (sub !== undefined) c = crcDigits(CRC_TABLE[(c ^ 0x2f) & 0xff] ^ (c >>> 8), sub) // "/"
  return hex8(~c)
}

/** Two hex digits of each byte value. */
const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/**
 * `(v >>> 0).toString(16).padStart(8, "0")` from a table: a value of 2^31 or more is a heap number, which
 * `toString(16)` converts through its slow path (about 1.5 µs, at every event of a first import: issue 13).
 */
const hex8 = (v: number): string =>
  HEX_BYTES[(v >>> 24) & 0xff] + HEX_BYTES[(v >>> 16) & 0xff] + HEX_BYTES[(v >>> 8) & 0xff] + HEX_BYTES[v & 0xff]

/**
 * The CRC-32 table (zlib's polynomial, reflected): `placeCheck` continues `lineCrc` over the few ASCII
 * digits of the place here, as `zlib.crc32(text, lineCrc)` would (the same value: a test compares them), without
 * a call into zlib and a string per event (issue 13, first import).
 */
const CRC_TABLE = (() => {
  const t = new Int32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  return t
})()

/** A running (inverted) CRC-32 state continued over the decimal digits of `n` (a non-negative integer, as `String(n)` writes it). */
const crcDigits = (state: number, n: number): number => {
  if (!Number.isSafeInteger(n) || n < 0) {
    // Not plain digits (never for a place): through zlib, on the text `String` gives.
    return ~crc32(String(n), ~state >>> 0)
  }
  let c = state
  const d = String(n)
  for (let i = 0; i < d.length; i++) c = CRC_TABLE[(c ^ d.charCodeAt(i)) & 0xff] ^ (c >>> 8)
  return c
}
const NEWLINE = new Uint8Array([10])

/**
 * The check of a document source's event (an export's `hd`): the CRC-32 of
 * its identity (session id and event id) continued over its place (`seq`),
 * as {@link placeCheck}, 8 hex digits. With the document digest (`h`) it
 * binds a cursor to the event it came from: a token whose `seq` was edited
 * (past the end, onto a gap marker or retained frame, onto another event)
 * no longer matches.
 */
export const eventCheck = (event: { readonly sessionId: string; readonly eventId: string }, seq: number): string =>
  placeCheck(crc32(`${event.sessionId}\u0000${event.eventId}`), seq)

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
 * distinct covered length (every offset past the head shares one binding; the
 * events of one line inside the head, asked in a row, share the last one).
 */
export const headBinder = (head: Uint8Array): ((upTo: number) => string) => {
  const full = Math.min(HEAD_BYTES, head.length)
  let fullBinding: string | undefined
  let lastUpTo = -1
  let lastBinding = ""
  return (upTo) => {
    if (upTo >= full) return (fullBinding ??= headBinding(head, full))
    if (upTo !== lastUpTo) {
      lastBinding = headBinding(head, upTo)
      lastUpTo = upTo
    }
    return lastBinding
  }
}

/**
 * Whether a cursor's `h` still matches its line: {@link placeCheck} of the
 * bytes for the event's place; for an `h` of 32 hex digits (a `c1` token of
 * an earlier build), the first 128 bits of the sha256 of the bytes, as that
 * build bound it, so its cursors keep resuming. `bytes`: what the source
 * bound (a native line without its `\n`; a transcript line with it).
 */
export const lineMatches = (h: string, bytes: Uint8Array, seq: number, sub?: number): boolean =>
  /^[0-9a-f]{32}$/.test(h) ? sha256Hex(bytes).slice(0, 32) === h : placeCheck(lineCrc(bytes), seq, sub) === h
