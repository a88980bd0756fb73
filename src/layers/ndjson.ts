/**
 * NDJSON encoding of events for `stream` (the CLI's writer of stdout,
 * `src/cli/output.ts`): each value's JSON text (or its parts,
 * a source's own bytes of a text copied as they are) UTF-8 encoded straight
 * into one buffer, C1 controls and bidi overrides written as `\uHHHH`. Pure:
 * nothing here writes; `src/cli/output.ts` writes these bytes to stdout.
 *
 * @module
 */
import { CANONICAL_PAYLOAD, CANONICAL_TEXT, type CanonicalText, isRecord, type VerbatimText } from "../domain/json.js"
import { escapeJsonControls } from "../domain/render.js"

/**
 * True when UTF-8 `bytes` hold a C1 control (U+0080–U+009F: `C2 80`–`C2 9F`)
 * or a bidi override or isolate (U+202A–U+202E: `E2 80 AA`–`AE`;
 * U+2066–U+2069: `E2 81 A6`–`A9`). Found with `indexOf` (memchr), so the
 * common line without one costs almost nothing.
 */
export const holdsRawControl = (bytes: Uint8Array): boolean => {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = b.indexOf(0xc2); i >= 0; i = b.indexOf(0xc2, i + 1)) if (b[i + 1] >= 0x80 && b[i + 1] <= 0x9f) return true
  for (let i = b.indexOf(0xe2); i >= 0; i = b.indexOf(0xe2, i + 1)) {
    const c = b[i + 1], d = b[i + 2]
    if ((c === 0x80 && d >= 0xaa && d <= 0xae) || (c === 0x81 && d >= 0xa6 && d <= 0xa9)) return true
  }
  return false
}

/**
 * NDJSON bytes of some values: `JSON.stringify` of each, one a line, UTF-8,
 * written straight into one buffer. Joining the strings first and encoding
 * the joined text costs several times more (bench figure (a)). Values that
 * stringify to `undefined` are left out. A line holding a C1 control or a
 * bidi override is written again with them as `\uHHHH` escapes (the same
 * JSON value; see {@link jsonText}). The bytes are a buffer of their own
 * (exact size); `writeNdjson` (`src/cli/output.ts`) writes the same bytes without that copy.
 */
export const ndjson = (values: Iterable<unknown>): Uint8Array => {
  const lease = encodeNdjson(values)
  const out = Buffer.allocUnsafe(lease.bytes.length)
  out.set(lease.bytes)
  lease.release()
  return out
}

/**
 * What {@link encodeNdjson} answers: the NDJSON `bytes`, a view of a pooled
 * buffer that stays theirs until `release` is called (once: then the buffer
 * may hold the next chunk's bytes).
 */
export interface NdjsonLease {
  readonly bytes: Uint8Array
  readonly release: () => void
}

/** Ends a line in the parts of {@link linePartsOf}. */
const NEWLINE = 0
/** A piece of a line: a text (UTF-8 encoded when written), or bytes copied as they are (a source's own bytes of a text). */
type Part = string | Uint8Array | typeof NEWLINE

/**
 * The parts of the NDJSON lines of some values (each line ended by
 * {@link NEWLINE}) and the most bytes they can take (3 a UTF-16 unit of a
 * text, the length of bytes, 1 a newline): the JSON text of each value, or,
 * for an event that carries texts of its own (see {@link splicedParts}), the
 * text around them and each one's text or source bytes, never joined into
 * one string.
 */
const linePartsOf = (values: Iterable<unknown>): { readonly parts: Array<Part>; readonly room: number } => {
  const parts: Array<Part> = []
  let room = 0
  for (const v of values) {
    if (typeof v === "object" && v !== null && (CANONICAL_PAYLOAD in v || CANONICAL_TEXT in v)) {
      const spliced = splicedParts(v)
      if (spliced !== undefined) {
        for (const p of spliced) {
          parts.push(p)
          room += typeof p === "string" ? p.length * 3 : p.length
        }
        parts.push(NEWLINE)
        room += 1
        continue
      }
    }
    const s: string | undefined = JSON.stringify(v)
    if (s === undefined) continue
    parts.push(s, NEWLINE)
    room += s.length * 3 + 1
  }
  return { parts, room }
}

/**
 * Buffers that NDJSON was encoded into, free to take again: one or two in a
 * stream (the chunk being written and the next). A buffer is taken for a
 * chunk and given back when its bytes were written (`fs.writeSync` returned,
 * or `process.stdout` called back), so it is never written over while a
 * write may still read it; a fresh buffer for every chunk cost its page
 * faults and its garbage collection (bench figure (a)).
 */
const encodePool: Array<Buffer> = []
/** Buffers kept in {@link encodePool}, and the largest kept (a huge line's is let go). */
const POOL_KEEP = 4
const SCRATCH_KEEP = 32 * 1024 * 1024

const takeBuffer = (bytes: number): Buffer => {
  for (let i = encodePool.length - 1; i >= 0; i--) {
    if (encodePool[i].length >= bytes) return encodePool.splice(i, 1)[0]
  }
  if (encodePool.length > 0 && bytes <= SCRATCH_KEEP) encodePool.pop()
  return Buffer.allocUnsafeSlow(Math.max(bytes, 1024 * 1024))
}

const giveBack = (buf: Buffer): void => {
  if (buf.length <= SCRATCH_KEEP && encodePool.length < POOL_KEEP && !encodePool.includes(buf)) encodePool.push(buf)
}

/** A lease of a buffer of the pool that holds nothing. */
const EMPTY_LEASE: NdjsonLease = { bytes: new Uint8Array(0), release: () => {} }

/**
 * The bytes of {@link ndjson} in a pooled buffer: each value's text (or its
 * parts) UTF-8 encoded straight into it, looked at once for a raw C1 control
 * or bidi character (a chunk holding one is written again a line at a time,
 * each line holding one escaped, into a buffer of its own). Call `release`
 * when the bytes were written.
 */
export const encodeNdjson = (values: Iterable<unknown>): NdjsonLease => {
  const { parts, room } = linePartsOf(values)
  return encodeParts(parts, room)
}

/** The lines of `parts` (see {@link linePartsOf}; `room` the most bytes they take), encoded as {@link encodeNdjson} says. */
const encodeParts = (parts: ReadonlyArray<Part>, room: number): NdjsonLease => {
  if (room === 0) return EMPTY_LEASE
  const buf = takeBuffer(room)
  let n = 0
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]
    if (p === NEWLINE) buf[n++] = 10
    else if (typeof p === "string") n += buf.write(p, n, "utf8")
    else {
      buf.set(p, n)
      n += p.length
    }
  }
  if (holdsRawControl(buf.subarray(0, n))) {
    giveBack(buf)
    const texts: Array<string> = []
    let line = ""
    for (const p of parts) {
      if (p === NEWLINE) {
        texts.push(line)
        line = ""
      } else line += typeof p === "string" ? p : Buffer.from(p.buffer, p.byteOffset, p.length).toString("utf8")
    }
    let units = 0
    for (const t of texts) units += t.length + 1
    return { bytes: escapedLines(texts, units), release: () => {} }
  }
  let released = false
  return {
    bytes: buf.subarray(0, n),
    release: () => {
      if (released) return
      released = true
      giveBack(buf)
    }
  }
}

/**
 * Stand for the payload and the text while the rest of an event is written
 * (see {@link splicedParts}): one character each, which `JSON.stringify`
 * writes as it is (DEL and the C1 control U+0081), so that each is found
 * with a search for one character. Content may hold them too: a mark is used
 * only when its character is in the event's JSON exactly once (then it is the
 * mark's).
 */
const PAYLOAD_MARK = "\u007f"
const TEXT_MARK = "\u0081"

/** Where the JSON of the one-character `mark` (`"` `mark` `"`) is in `s`, when the character is there exactly once; else -1. */
const onceAt = (s: string, mark: string): number => {
  const at = s.indexOf(mark)
  return at < 1 || s.indexOf(mark, at + 1) >= 0 || s.charCodeAt(at - 1) !== 34 || s.charCodeAt(at + 1) !== 34 ? -1 : at - 1
}
/** The length of a mark's JSON. */
const MARK_JSON_LENGTH = 3

/**
 * `JSON.stringify` of an event that carries texts of its own values, in
 * parts, without writing those values again: the payload's text under
 * `CANONICAL_PAYLOAD` (a Muse Code native record, see `canonicalMember`) and
 * the `text`'s under `CANONICAL_TEXT` (a Muse agents item, see
 * `verbatimString`), each `JSON.stringify` of its value, as the source's
 * bytes when it carries them. The event is written with a mark in each one's
 * place, and the parts are the text around the marks and, in each mark's
 * place, its text (or bytes): the same bytes as writing the value. Undefined
 * (so the event is written whole) when neither value is the one carried any
 * more, or a mark is not found exactly once (content that holds a mark's own
 * text).
 */
const splicedParts = (v: object): Array<string | Uint8Array> | undefined => {
  const c = (v as { [CANONICAL_PAYLOAD]?: CanonicalText })[CANONICAL_PAYLOAD]
  const t = (v as { [CANONICAL_TEXT]?: VerbatimText })[CANONICAL_TEXT]
  const ext = (v as { extensions?: unknown }).extensions
  const ns = c !== undefined && isRecord(ext) ? ext["native.muse"] : undefined
  const payload = isRecord(ns) && ns.payload === c!.value ? ns : undefined
  const holder = t !== undefined && (v as { text?: unknown }).text === t.value ? (v as { text: unknown }) : undefined
  if (payload === undefined && holder === undefined) return undefined
  if (payload !== undefined) payload.payload = PAYLOAD_MARK
  if (holder !== undefined) holder.text = TEXT_MARK
  let s: string
  try {
    s = JSON.stringify(v)
  } finally {
    if (payload !== undefined) payload.payload = c!.value
    if (holder !== undefined) holder.text = t!.value
  }
  const p = payload !== undefined ? onceAt(s, PAYLOAD_MARK) : -1
  const x = holder !== undefined ? onceAt(s, TEXT_MARK) : -1
  if ((payload !== undefined && p < 0) || (holder !== undefined && x < 0)) return undefined
  const pPart = payload !== undefined ? c!.bytes ?? c!.text : undefined
  if (holder === undefined) return [s.slice(0, p), pPart!, s.slice(p + MARK_JSON_LENGTH)]
  if (payload === undefined) return [s.slice(0, x), t!.bytes, s.slice(x + MARK_JSON_LENGTH)]
  const [first, firstPart, second, secondPart] = p < x ? [p, pPart!, x, t!.bytes] : [x, t!.bytes, p, pPart!]
  return [s.slice(0, first), firstPart, s.slice(first + MARK_JSON_LENGTH, second), secondPart, s.slice(second + MARK_JSON_LENGTH)]
}

/**
 * NDJSON bytes of JSON texts (each `JSON.stringify`'s, one a line), as
 * {@link ndjson} writes them: UTF-8, C1 controls and bidi overrides as
 * `\uHHHH`. The bytes answered are a buffer of their own (exact size, not
 * shared with a later call); `writeNdjsonTexts` writes them without
 * that copy.
 */
export const ndjsonOfTexts = (texts: ReadonlyArray<string>): Uint8Array => {
  const lease = encodeNdjsonTexts(texts)
  const out = Buffer.allocUnsafe(lease.bytes.length)
  out.set(lease.bytes)
  lease.release()
  return out
}

/** The bytes of {@link ndjsonOfTexts} in a pooled buffer (see {@link encodeNdjson}). */
export const encodeNdjsonTexts = (texts: ReadonlyArray<string>): NdjsonLease => {
  const parts: Array<Part> = []
  let room = 0
  for (const s of texts) {
    parts.push(s, NEWLINE)
    room += s.length * 3 + 1
  }
  return encodeParts(parts, room)
}

/**
 * {@link encodeNdjsonTexts} of lines each given whole (a JSON text) or in
 * parts (texts, and UTF-8 bytes copied as they are: a source's own bytes of
 * a text, as `stream --lean` gives a payload's): the same bytes as the
 * texts joined, in a pooled buffer (see {@link encodeNdjson}).
 */
export const encodeNdjsonLines = (lines: ReadonlyArray<string | ReadonlyArray<string | Uint8Array>>): NdjsonLease => {
  const parts: Array<Part> = []
  let room = 0
  for (const l of lines) {
    if (typeof l === "string") {
      parts.push(l)
      room += l.length * 3
    } else {
      for (const p of l) {
        parts.push(p)
        room += typeof p === "string" ? p.length * 3 : p.length
      }
    }
    parts.push(NEWLINE)
    room += 1
  }
  return encodeParts(parts, room)
}

/** {@link ndjsonOfTexts} of a chunk that holds a raw C1 control or bidi character: a line at a time, each line holding one written with `escapeJsonControls`. */
const escapedLines = (texts: ReadonlyArray<string>, units: number): Uint8Array => {
  let buf = Buffer.allocUnsafe(units * 3)
  let n = 0
  let left = units
  for (const s of texts) {
    left -= s.length + 1
    const start = n
    n += buf.write(s, n, "utf8")
    if (holdsRawControl(buf.subarray(start, n))) {
      const escaped = escapeJsonControls(s)
      n = start
      const need = n + (escaped.length + 1 + left) * 3
      if (need > buf.length) {
        const bigger = Buffer.allocUnsafe(need)
        buf.copy(bigger, 0, 0, n)
        buf = bigger
      }
      n += buf.write(escaped, n, "utf8")
    }
    buf[n++] = 10
  }
  return buf.subarray(0, n)
}

