/**
 * The AgentMux record, pure part: which zones are an agent's own, what session
 * a line belongs to, and the incremental scan of a zone's `output` as a fold
 * over its complete lines (seed `002_…`; store facts: `../shared/DESIGN.md`,
 * "Providers").
 *
 * No I/O here: the effectful reading (parts, 4 MiB steps, the timestamp
 * sidecar, the state database) is in `src/layers/agentmux/`.
 *
 * @module
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidArgument } from "../errors.js"

/** Bytes per part of a store file: `partidx = offset / 65536` (DESIGN.md, AgentMux store facts). */
export const PART_SIZE = 65_536

/** How much of a zone's `output` is read per step, in bytes (seed 002, `READ_CHUNK`): 4 MiB. */
export const READ_CHUNK = 4 * 1024 * 1024

/** The store file holding the provider's raw stream-json NDJSON. */
export const OUTPUT_FILE = "output"

/** The sidecar of receive times: NDJSON `{"off":<byte offset in output>,"ms":<unix ms>}`. */
export const TSIDX_FILE = "output.tsidx"

const UID = /^[A-Za-z0-9_-]+$/

/**
 * Check an agent UID (`[A-Za-z0-9_-]+`, seed 002 / issue 5) before it is put
 * into a zone id. Fails with `InvalidArgument`.
 */
export const checkAgentId = (uid: string | undefined): Either.Either<string, InvalidArgument> =>
  uid !== undefined && UID.test(uid)
    ? Either.right(uid)
    : Either.left(
      new InvalidArgument({
        message: uid === undefined
          ? "AgentMux needs the agent whose record is read."
          : `"${uid}" is not an AgentMux agent UID (letters, digits, "_" and "-" only).`,
        remediation: "Pass --agent UID (the agent's db_agents.id)."
      })
    )

/** A zone of the agent's own: its live conversation, or one archived by "New conversation" at `archivedAtMs`. */
export type OwnZone =
  | { readonly _tag: "current"; readonly zoneId: string }
  | { readonly _tag: "archive"; readonly zoneId: string; readonly archivedAtMs: number }

/**
 * `agent:<uid>:current` and `agent:<uid>:archive:<ms>` (ms: digits) are the
 * agent's own zones; anything else (another id's zone, a template's shared
 * zone, a malformed suffix) is `null` and never read (seed 002,
 * `is_agents_own_zone`).
 */
export const ownZone = (uid: string, zoneId: string): OwnZone | null => {
  const prefix = `agent:${uid}:`
  if (!zoneId.startsWith(prefix)) return null
  const rest = zoneId.slice(prefix.length)
  if (rest === "current") return { _tag: "current", zoneId }
  const m = /^archive:(\d+)$/.exec(rest)
  return m !== null ? { _tag: "archive", zoneId, archivedAtMs: Number(m[1]) } : null
}

/**
 * Order of zones in time: archives by their archive ms, the current zone
 * last. Used to order runs and to break ties between sessions.
 */
export const zoneRank = (z: OwnZone): number => (z._tag === "current" ? Number.MAX_SAFE_INTEGER : z.archivedAtMs)

const STREAM_EVENT_PREFIX = Buffer.from("{\"type\":\"stream_event\"", "latin1")
const SESSION_KEY = Buffer.from("\"session_id\":\"", "latin1")
const SESSION_KEY_LENGTH = SESSION_KEY.length

/** `b`'s bytes as little-endian words: the words of the first `n` bytes at 4-byte steps (the last word may be short, left out). */
const wordsOf = (b: Uint8Array, n: number): Array<number> => {
  const v = new DataView(b.buffer, b.byteOffset, b.length)
  return Array.from({ length: n >> 2 }, (_, i) => v.getUint32(4 * i, true))
}

const [PREFIX_W0, PREFIX_W1, PREFIX_W2, PREFIX_W3, PREFIX_W4] = wordsOf(STREAM_EVENT_PREFIX, STREAM_EVENT_PREFIX.length)
/** The prefix's last 2 bytes (it is 22 long: 5 words and a half). */
const PREFIX_TAIL = STREAM_EVENT_PREFIX.readUInt16LE(20)
const [KEY_W0, KEY_W1, KEY_W2] = wordsOf(SESSION_KEY, SESSION_KEY_LENGTH)
/** The key's last 2 bytes (it is 14 long: 3 words and a half). */
const KEY_TAIL = SESSION_KEY.readUInt16LE(12)

/**
 * The `DataView` of `b` that the loops read words through (4 bytes a
 * comparison rather than 1: a first scan's delta is classified in about a
 * third of the time, issue 13), kept in `cache` while `b` is the buffer read.
 */
const viewOf = (cache: SessionIdCache, b: Uint8Array): DataView => {
  if (cache.viewed !== b) {
    cache.viewed = b
    cache.view = new DataView(b.buffer, b.byteOffset, b.length)
  }
  return cache.view!
}

/**
 * True when `b[from, to)` starts with a streaming delta's first bytes
 * (`{"type":"stream_event"`), recognised without parsing it (seed 002,
 * `is_stream_event`): most of the record's bytes, and never a message.
 */
export const isStreamEventAt = (b: Buffer, from: number, to: number, cache?: SessionIdCache): boolean => {
  const n = STREAM_EVENT_PREFIX.length
  if (to - from < n) return false
  if (cache === undefined || cache.lines < cache.nativeLines) return b.compare(STREAM_EVENT_PREFIX, 0, n, from, from + n) === 0
  const v = viewOf(cache, b)
  return v.getUint32(from, true) === PREFIX_W0 && v.getUint32(from + 4, true) === PREFIX_W1 &&
    v.getUint32(from + 8, true) === PREFIX_W2 && v.getUint32(from + 12, true) === PREFIX_W3 &&
    v.getUint32(from + 16, true) === PREFIX_W4 && v.getUint16(from + 20, true) === PREFIX_TAIL
}

/** {@link isStreamEventAt} of a whole line. */
export const isStreamEvent = (line: Buffer): boolean => isStreamEventAt(line, 0, line.length)

/**
 * How far a backward search may move when the first byte of the window is
 * `c` (Horspool's rule, mirrored): the nearest position ≥ 1 of `c` in the key,
 * else the key's length.
 */
const SESSION_KEY_SHIFT = (() => {
  const t = new Uint8Array(256).fill(SESSION_KEY_LENGTH)
  for (let j = SESSION_KEY_LENGTH - 1; j >= 1; j--) t[SESSION_KEY[j]] = j
  return t
})()

/**
 * Offset of the last `"session_id":"` in `b[from, to)`, else -1 (searched
 * from the end: a delta's own key is near it); `v` is `b`'s view (the key
 * compared a word at a time where a quote is).
 */
const lastSessionKey = (b: Uint8Array, v: DataView, from: number, to: number): number => {
  let i = to - SESSION_KEY_LENGTH
  while (i >= from) {
    const c = b[i]
    if (
      c === 0x22 && v.getUint32(i, true) === KEY_W0 && v.getUint32(i + 4, true) === KEY_W1 &&
      v.getUint32(i + 8, true) === KEY_W2 && v.getUint16(i + 12, true) === KEY_TAIL
    ) return i
    i -= SESSION_KEY_SHIFT[c]
  }
  return -1
}

/**
 * The last session id decoded, so that consecutive lines naming the same
 * session share one string instead of decoding it again (a scan's working memory).
 */
export interface SessionIdCache {
  id: string | null
  readonly bytes: Buffer
  length: number
  /** Lines classified so far (the caller counts them). */
  lines: number
  /**
   * Lines classified with Node's native byte searches before this module's
   * own loops take over: the native ones cost the same from the first line,
   * the loops are faster once V8 has compiled them. A short scan (a rescan
   * of an append) stays cheap, a long one fast.
   */
  readonly nativeLines: number
  /** The last id as its bytes' latin1 text (the text functions' cache: {@link streamEventSessionIdText}). */
  raw: string | null
  /** The last id's bytes as little-endian words (`bytes`' first `length >> 2` words: the loops compare them). */
  readonly words: Uint32Array
  /** The buffer the loops read last, and its view (see `viewOf`). */
  viewed: Uint8Array | null
  view: DataView | null
}

/** A fresh {@link SessionIdCache}. */
export const makeSessionIdCache = (nativeLines = 20_000): SessionIdCache => ({
  id: null,
  bytes: Buffer.alloc(256),
  length: 0,
  lines: 0,
  nativeLines,
  raw: null,
  words: new Uint32Array(64),
  viewed: null,
  view: null
})

/**
 * The session id of a streaming delta `b[from, to)` from its last
 * `"session_id":"` key, found by a byte search (the delta's payload holds
 * only escaped strings, so the unescaped key bytes are the line's own).
 * `null` when absent, empty, unterminated or holding an escape.
 */
export const streamEventSessionIdAt = (b: Buffer, from: number, to: number, cache?: SessionIdCache): string | null => {
  const native = cache === undefined || cache.lines < cache.nativeLines
  const v = native ? null : viewOf(cache, b)
  const k = v === null ? b.lastIndexOf(SESSION_KEY, to - SESSION_KEY_LENGTH) : lastSessionKey(b, v, from, to)
  if (k < from) return null
  const s = k + SESSION_KEY_LENGTH
  if (cache !== undefined && cache.id !== null) {
    // The same id as the last line (it holds no quote or backslash) followed by its closing quote.
    const n = cache.length
    if (s + n < to && b[s + n] === 0x22) {
      if (v === null) {
        if (b.compare(cache.bytes, 0, n, s, s + n) === 0) return cache.id
      } else {
        const words = cache.words
        let j = 0
        while (j + 4 <= n && v.getUint32(s + j, true) === words[j >> 2]) j += 4
        if (j + 4 > n) {
          while (j < n && cache.bytes[j] === b[s + j]) j++
          if (j === n) return cache.id
        }
      }
    }
  }
  let e = s
  while (e < to && b[e] !== 0x22) {
    if (b[e] === 0x5c) return null
    e++
  }
  if (e >= to || e === s) return null
  const id = b.toString("utf8", s, e)
  if (cache !== undefined && e - s <= cache.bytes.length) remember(cache, b, s, e, b.toString("latin1", s, e), id)
  return id
}

/** Make `b[s, e)` the cache's id: `id` (its UTF-8 text), `raw` (its latin1 text), its bytes and words. */
const remember = (cache: SessionIdCache, b: Buffer, s: number, e: number, raw: string, id: string): void => {
  b.copy(cache.bytes, 0, s, e)
  cache.length = e - s
  cache.raw = raw
  cache.id = id
  const v = new DataView(cache.bytes.buffer, cache.bytes.byteOffset, cache.bytes.length)
  for (let j = 0; j + 4 <= cache.length; j += 4) cache.words[j >> 2] = v.getUint32(j, true)
}

/** A streaming delta's first bytes (`{"type":"stream_event"`) as latin1 text (see {@link isStreamEventText}). */
export const STREAM_EVENT_PREFIX_TEXT = STREAM_EVENT_PREFIX.toString("latin1")
const SESSION_KEY_TEXT = SESSION_KEY.toString("latin1")

/**
 * {@link isStreamEventAt} over `text`, the latin1 decoding of the bytes (one
 * character per byte, `text.charCodeAt(i) === b[i]`): the scan's own path
 * (issue 13). String searches are engine built-ins, fast from a process's
 * first line, where `Buffer`'s offset searches spend microseconds a call
 * checking their arguments in JavaScript.
 */
export const isStreamEventText = (text: string, from: number, to: number): boolean =>
  to - from >= STREAM_EVENT_PREFIX_TEXT.length && text.startsWith(STREAM_EVENT_PREFIX_TEXT, from)

/**
 * {@link streamEventSessionIdAt} over `text`, the latin1 decoding of `b`
 * (see {@link isStreamEventText}), with the same answers: the value after the
 * last `"session_id":"` of `[from, to)`, up to the next quote; null when
 * absent, empty, unterminated or holding a backslash. An id with a byte
 * >= 0x80 is decoded from `b` as UTF-8.
 */
export const streamEventSessionIdText = (
  text: string,
  b: Buffer,
  from: number,
  to: number,
  cache?: SessionIdCache
): string | null => {
  const k = text.lastIndexOf(SESSION_KEY_TEXT, to - SESSION_KEY_LENGTH)
  if (k < from) return null
  const s = k + SESSION_KEY_LENGTH
  const raw = cache?.raw ?? null
  if (raw !== null) {
    const n = raw.length
    if (s + n < to && text.charCodeAt(s + n) === 0x22 && text.startsWith(raw, s)) return cache!.id
  }
  const e = text.indexOf("\"", s)
  if (e < 0 || e >= to || e === s) return null
  const value = text.slice(s, e)
  if (value.includes("\\")) return null
  const id = isAscii(value) ? value : b.toString("utf8", s, e)
  // Both forms of the cache name the same id, whichever function reads it next.
  if (cache !== undefined && e - s <= cache.bytes.length) remember(cache, b, s, e, value, id)
  return id
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/**
 * A sticky pattern over latin1 text (see {@link isStreamEventText}) that
 * matches, from where it is set, one whole line (with its `\n`) that is a
 * streaming delta whose session id {@link streamEventSessionIdText} answers
 * from a cache whose last id's text is `raw`: a line that starts with the
 * delta's first bytes, whose last `"session_id":"` key (none starts after it,
 * nor at its value's opening quote) is followed by `raw` and a quote. A
 * rescan's run of one session's deltas is taken by matching it line after
 * line, without the per-line functions (issue 13).
 */
export const cachedDeltaLine = (raw: string): RegExp => {
  const key = escapeRegExp(SESSION_KEY_TEXT)
  const prefix = escapeRegExp(STREAM_EVENT_PREFIX_TEXT.slice(0, -1))
  // The key may start at the prefix's closing quote (`(?=")`), as `lastIndexOf` finds it there.
  return new RegExp(
    `${prefix}(?=")[^\\n]*${escapeRegExp(SESSION_KEY_TEXT.slice(0, -1))}(?!${key})"${escapeRegExp(raw)}(?=")(?:(?!${key})[^\\n])*\\n`,
    "y"
  )
}

/**
 * {@link lineFactsAt} over `text`, the latin1 decoding of `b` (see
 * {@link isStreamEventText}), with the same answers.
 */
export const lineFactsText = (text: string, b: Buffer, from: number, to: number, cache?: SessionIdCache): LineFacts => {
  if (isStreamEventText(text, from, to)) return { _tag: "delta", sessionId: streamEventSessionIdText(text, b, from, to, cache) }
  return factsOfLine(text.slice(from, to), b, from, to)
}

/** {@link streamEventSessionIdAt} of a whole line. */
export const streamEventSessionId = (line: Buffer): string | null => streamEventSessionIdAt(line, 0, line.length)

/** What one line of `output` tells the scan. */
export type LineFacts =
  | { readonly _tag: "delta"; readonly sessionId: string | null }
  | { readonly _tag: "parsed"; readonly sessionId: string | null; readonly cwd: string | null }
  | { readonly _tag: "unreadable" }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The working directory an init line (`{"type":"system","subtype":"init","cwd":…}`)
 * reports, else `null` (seed 002, `init_cwd`).
 */
export const initCwd = (value: unknown): string | null =>
  isObject(value) && value.type === "system" && value.subtype === "init" && typeof value.cwd === "string" &&
    value.cwd.length > 0
    ? value.cwd
    : null

/**
 * Classify the line `b[from, to)` (without its `\n`): a delta by its first
 * bytes, with its session id from the last key; anything else is parsed, and
 * its top-level string `session_id` (non-empty) is its session (seed 002,
 * `line_session_id`). A line that is not a JSON object is `unreadable`.
 */
export const lineFactsAt = (b: Buffer, from: number, to: number, cache?: SessionIdCache): LineFacts => {
  if (isStreamEventAt(b, from, to, cache)) return { _tag: "delta", sessionId: streamEventSessionIdAt(b, from, to, cache) }
  return factsOfLine(b.toString("latin1", from, to), b, from, to)
}

/**
 * The facts of a line that is not a delta (parsed: {@link lineFactsAt}'s
 * answer for it), from `latin1`, its bytes `b[from, to)` decoded as latin1.
 */
export const factsOfLine = (latin1: string, b: Buffer, from: number, to: number): LineFacts => {
  // Parsed from a latin1 decoding (one byte, one character: no UTF-8 decoding,
  // and V8's fast path for one-byte strings). JSON's structure is ASCII and a
  // byte >= 0x80 is as invalid outside a string, and as valid inside one, in
  // either decoding, so the line is JSON exactly when its UTF-8 text is; the
  // strings kept are taken from a UTF-8 parse when they hold a non-ASCII character.
  let value = parseObject(latin1)
  if (value === null) return { _tag: "unreadable" }
  let facts = factsOf(value)
  if (!isAscii(facts.sessionId) || !isAscii(facts.cwd)) {
    value = parseObject(b.toString("utf8", from, to))
    if (value === null) return { _tag: "unreadable" }
    facts = factsOf(value)
  }
  return facts
}

const parseObject = (text: string): Record<string, unknown> | null => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  return isObject(value) ? value : null
}

const factsOf = (value: Record<string, unknown>): LineFacts & { readonly _tag: "parsed" } => {
  const sid = value.session_id
  return { _tag: "parsed", sessionId: typeof sid === "string" && sid.length > 0 ? sid : null, cwd: initCwd(value) }
}

const isAscii = (s: string | null): boolean => {
  if (s === null) return true
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false
  return true
}

/** {@link lineFactsAt} of a whole line. */
export const lineFacts = (line: Buffer): LineFacts => lineFactsAt(line, 0, line.length)

/** Consecutive lines of one session in one zone: bytes `[start, end)` of `output`, `lines` lines. */
export const Run = Schema.Struct({
  sessionId: Schema.String,
  start: Schema.NonNegativeInt,
  end: Schema.NonNegativeInt,
  lines: Schema.NonNegativeInt,
  /** Receive time (unix ms) of the run's first line; null without a sidecar record at or before it. */
  firstMs: Schema.NullOr(Schema.Number),
  /** Receive time (unix ms) of the line holding the run's last byte. */
  lastMs: Schema.NullOr(Schema.Number)
})
export type Run = typeof Run.Type

/**
 * How far a zone has been read and what was found (seed 002, `ZoneScan`),
 * as session-ingest first kept it in its state database (stored format 1, a
 * JSON object with `"v":1`; still read, see {@link decodeStoredZoneScan}).
 *
 * - `readTo`: offset just past the last complete line read (bytes).
 * - `pending`: the first unowned line not yet given to a session (offset) and how many lines since.
 * - `cwd`: working directory per session, from its init line.
 * - `createdTs` / `generation`: identity of the file when it was read (a change means cleared).
 * - `headDigest` over `[0, headLength)`: the first bytes when read (a change means rewritten).
 */
export const ZoneScanV1 = Schema.Struct({
  v: Schema.Literal(1),
  readTo: Schema.NonNegativeInt,
  createdTs: Schema.NullOr(Schema.Number),
  generation: Schema.NullOr(Schema.String),
  headLength: Schema.NonNegativeInt,
  headDigest: Schema.String,
  runs: Schema.Array(Run),
  pending: Schema.NullOr(Schema.Struct({ start: Schema.NonNegativeInt, lines: Schema.NonNegativeInt })),
  cwd: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** Lines counted so far: unreadable (not JSON), dropped because a part was missing, oversized. */
  unreadable: Schema.NonNegativeInt,
  missingPartLines: Schema.NonNegativeInt,
  oversized: Schema.NonNegativeInt
})

/** How far a zone has been read and what was found, in memory (the fields of {@link ZoneScanV1}). */
export type ZoneScan = Omit<typeof ZoneScanV1.Type, "v">

/** The decoder of format 1, made when a row of that format is first read (a state of an earlier build). */
let decodeV1: ((u: unknown) => Either.Either<typeof ZoneScanV1.Type, unknown>) | undefined

/** The scan of a zone never read. */
export const emptyScan: ZoneScan = {
  readTo: 0,
  createdTs: null,
  generation: null,
  headLength: 0,
  headDigest: "",
  runs: [],
  pending: null,
  cwd: {},
  unreadable: 0,
  missingPartLines: 0,
  oversized: 0
}

/** The version of the stored scans written now (see {@link encodeZoneScan}). */
export const STORED_SCAN_VERSION = 2

/**
 * A scan as stored (format 2, issue 13): JSON text of
 * `{"v":2, readTo, createdTs, generation, headLength, headDigest, pending, unreadable, missingPartLines, oversized, ids, runs, cwd}`
 * where `ids` lists the zone's session ids once each, `runs` is flat, six
 * values a run (`id index, start, end, lines, firstMs, lastMs`, the times
 * null when unknown), `cwd` flat pairs `id index, cwd`, and `pending`
 * `[start, lines]` or null. Each session id is written once, not once per
 * run, and reading it back is one `JSON.parse` plus a check of the values in
 * flat arrays, where format 1 went through a Schema decode of an object per
 * run (most of a rescan's decoding time).
 */
export const encodeZoneScan = (s: ZoneScan): string => {
  const index = new Map<string, number>()
  const ids: Array<string> = []
  const idOf = (sid: string) => {
    let i = index.get(sid)
    if (i === undefined) {
      index.set(sid, i = ids.length)
      ids.push(sid)
    }
    return i
  }
  const runs: Array<number | null> = []
  for (const r of s.runs) runs.push(idOf(r.sessionId), r.start, r.end, r.lines, r.firstMs, r.lastMs)
  const cwd: Array<number | string> = []
  for (const sid of Object.keys(s.cwd)) cwd.push(idOf(sid), s.cwd[sid])
  return JSON.stringify({
    v: STORED_SCAN_VERSION,
    readTo: s.readTo,
    createdTs: s.createdTs,
    generation: s.generation,
    headLength: s.headLength,
    headDigest: s.headDigest,
    pending: s.pending === null ? null : [s.pending.start, s.pending.lines],
    unreadable: s.unreadable,
    missingPartLines: s.missingPartLines,
    oversized: s.oversized,
    ids,
    runs,
    cwd
  })
}

const isCount = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0
const isTime = (u: unknown): u is number | null => u === null || (typeof u === "number" && Number.isFinite(u))

/**
 * An empty object without a prototype, for a record of session ids filled key by key (issue 13, a rescan's cold
 * path): V8 keeps such an object a hash table from its first key, and a key named `__proto__` is an own key like any
 * other (no setter on the way). Given `Object.prototype` once filled (`Object.setPrototypeOf`, which keeps it a hash
 * table), it is an ordinary object with the own keys, values and order that `Object.defineProperty` key by key made.
 * `Object.defineProperty` key by key kept the object in fast mode, one hidden class per key: the bench store's stored
 * scan (~350 sessions) decoded, copied ({@link beginScan}) and encoded again took 15.0 ms of CPU in a fresh process,
 * 8.1 ms this way (medians of 20 processes each, alternated); inside a cold rescan, where part of that code has run
 * already, the state's load took ~1.2 ms less (7.98 / 6.74 ms, medians of 15, session 38).
 */
const bareRecord = (): Record<string, string> => Object.create(null) as Record<string, string>

/** Format 2 (see {@link encodeZoneScan}) checked field by field; null when anything is off. */
const decodeV2 = (o: Record<string, unknown>): ZoneScan | null => {
  const { createdTs, generation, headDigest, headLength, ids, missingPartLines, oversized, pending, readTo, unreadable } = o
  if (
    !isCount(readTo) || !isTime(createdTs) || !(generation === null || typeof generation === "string") ||
    !isCount(headLength) || typeof headDigest !== "string" || !isCount(unreadable) || !isCount(missingPartLines) ||
    !isCount(oversized) || !Array.isArray(ids) || !Array.isArray(o.runs) || !Array.isArray(o.cwd)
  ) return null
  for (const id of ids) if (typeof id !== "string" || id.length === 0) return null
  let pend: ZoneScan["pending"] = null
  if (pending !== null) {
    if (!Array.isArray(pending) || pending.length !== 2 || !isCount(pending[0]) || !isCount(pending[1])) return null
    pend = { start: pending[0], lines: pending[1] }
  }
  const flat = o.runs as Array<unknown>
  if (flat.length % 6 !== 0) return null
  const runs: Array<Run> = []
  for (let i = 0; i < flat.length; i += 6) {
    const id = flat[i], start = flat[i + 1], end = flat[i + 2], lines = flat[i + 3], firstMs = flat[i + 4], lastMs = flat[i + 5]
    if (!isCount(id) || id >= ids.length || !isCount(start) || !isCount(end) || !isCount(lines)) return null
    if (!isTime(firstMs) || !isTime(lastMs)) return null
    runs.push({ sessionId: ids[id] as string, start, end, lines, firstMs, lastMs })
  }
  const pairs = o.cwd as Array<unknown>
  if (pairs.length % 2 !== 0) return null
  const cwd = bareRecord()
  for (let i = 0; i < pairs.length; i += 2) {
    const id = pairs[i], dir = pairs[i + 1]
    if (!isCount(id) || id >= ids.length || typeof dir !== "string") return null
    // an own property whatever the id is (`__proto__` included: the object has no prototype yet), as JSON.parse makes them
    cwd[ids[id] as string] = dir
  }
  Object.setPrototypeOf(cwd, Object.prototype)
  return { readTo, createdTs, generation, headLength, headDigest, runs, pending: pend, cwd, unreadable, missingPartLines, oversized }
}

/**
 * Whether a scan can be what a scan of a zone wrote: its runs non-empty,
 * in order and apart, within `readTo`; the pending lines after the last run
 * and before `readTo`; the head within what was read. A stored scan that is
 * not is never trusted (see {@link decodeStoredZoneScan}).
 */
export const isConsistentScan = (s: ZoneScan): boolean => {
  let at = 0
  for (const r of s.runs) {
    if (r.start < at || r.end <= r.start || r.lines < 1 || r.end > s.readTo) return false
    at = r.end
  }
  if (s.pending !== null && (s.pending.start < at || s.pending.start >= s.readTo || s.pending.lines < 1)) return false
  return s.headLength <= s.readTo
}

/**
 * A stored scan (JSON text) as a {@link ZoneScan}: format 2 (written since
 * issue 13) checked field by field, format 1 through the {@link ZoneScanV1}
 * Schema (a state file of an earlier build keeps working; the next commit
 * rewrites it as format 2). `null` when it is neither, or when its numbers do
 * not hold together ({@link isConsistentScan}): the caller reads that zone
 * again from the start and says so, never trusting a row it cannot check.
 */
export const decodeStoredZoneScan = (text: string): ZoneScan | null => {
  let o: unknown
  try {
    o = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return null
  const v = (o as { v?: unknown }).v
  let scan: ZoneScan | null = null
  if (v === STORED_SCAN_VERSION) scan = decodeV2(o as Record<string, unknown>)
  else if (v === 1) {
    decodeV1 ??= Schema.decodeUnknownEither(ZoneScanV1)
    const d = decodeV1(o)
    if (Either.isRight(d)) {
      const { v: _v, ...rest } = d.right
      scan = rest
    }
  }
  return scan !== null && isConsistentScan(scan) ? scan : null
}

/** A mutable working copy of a scan, advanced a line at a time by {@link scanLine}. */
export interface ScanAcc {
  runs: Array<{ sessionId: string; start: number; end: number; lines: number; firstMs: number | null; lastMs: number | null }>
  pending: { start: number; lines: number } | null
  cwd: Record<string, string>
  unreadable: number
  missingPartLines: number
  oversized: number
  /** Indices of runs created or extended in this scan (their times must be (re)computed). */
  touched: Set<number>
  /** The run last put in `touched` (a run extended line after line is put there once). */
  lastTouched: number
}

/**
 * A copy of a scan's working directories (`ZoneScan.cwd`) made as {@link decodeV2} makes them: key by key into an
 * object without a prototype, then given `Object.prototype` (see {@link bareRecord}); the same own keys, values and
 * order as `{ ...from }`.
 */
const copyRecord = (from: Readonly<Record<string, string>>): Record<string, string> => {
  const out = bareRecord()
  for (const k of Object.keys(from)) out[k] = from[k]
  return Object.setPrototypeOf(out, Object.prototype)
}

/**
 * Start a working copy from a stored scan. Only the last run can change (a
 * scan extends it or adds runs after it: {@link scanLine}, {@link closeArchive}),
 * so it alone is copied; the others are the stored scan's own, never written.
 */
export const beginScan = (s: ZoneScan): ScanAcc => ({
  runs: s.runs.length === 0 ? [] : [...s.runs.slice(0, -1), { ...s.runs[s.runs.length - 1] }],
  pending: s.pending === null ? null : { ...s.pending },
  cwd: copyRecord(s.cwd),
  unreadable: s.unreadable,
  missingPartLines: s.missingPartLines,
  oversized: s.oversized,
  touched: new Set(),
  lastTouched: -1
})

/** One complete line as the scan sees it: its offsets, and its session (null: unowned). */
export interface ScannedLine {
  readonly start: number
  readonly end: number
  readonly sessionId: string | null
  readonly cwd: string | null
}

/**
 * Advance a scan by one complete line (seed 002, `scan_line`). A line without
 * a session waits as pending; the next owned line takes the pending lines
 * into its run. A run grows while lines stay in one session and are contiguous.
 */
export const scanLine = (acc: ScanAcc, line: ScannedLine): void => {
  if (line.sessionId === null) {
    if (acc.pending === null) acc.pending = { start: line.start, lines: 1 }
    else acc.pending.lines++
    return
  }
  const start = acc.pending?.start ?? line.start
  const lines = 1 + (acc.pending?.lines ?? 0)
  acc.pending = null
  const i = acc.runs.length - 1
  const last = acc.runs[i]
  if (last !== undefined && last.sessionId === line.sessionId && last.end === start) {
    last.end = line.end
    last.lines += lines
    if (acc.lastTouched !== i) acc.touched.add(acc.lastTouched = i)
  } else {
    acc.runs.push({ sessionId: line.sessionId, start, end: line.end, lines, firstMs: null, lastMs: null })
    acc.touched.add(acc.lastTouched = acc.runs.length - 1)
  }
  if (line.cwd !== null) acc.cwd[line.sessionId] = line.cwd
}

/**
 * Advance a scan by `lines` consecutive complete lines of one owner at once,
 * bytes `[start, end)` (`sessionId` null: unowned lines), with the last `cwd`
 * an init line among them reported (null: none): the same result as
 * {@link scanLine} applied to each of those lines in turn. A scan split into
 * ranges (issue 13: the first scan of a large zone, read by several workers)
 * is folded back group by group in record order.
 */
export const scanGroup = (
  acc: ScanAcc,
  sessionId: string | null,
  start: number,
  end: number,
  lines: number,
  cwd: string | null
): void => {
  if (sessionId === null) {
    if (acc.pending === null) acc.pending = { start, lines }
    else acc.pending.lines += lines
    return
  }
  const from = acc.pending?.start ?? start
  const n = lines + (acc.pending?.lines ?? 0)
  acc.pending = null
  const i = acc.runs.length - 1
  const last = acc.runs[i]
  if (last !== undefined && last.sessionId === sessionId && last.end === from) {
    last.end = end
    last.lines += n
    if (acc.lastTouched !== i) acc.touched.add(acc.lastTouched = i)
  } else {
    acc.runs.push({ sessionId, start: from, end, lines: n, firstMs: null, lastMs: null })
    acc.touched.add(acc.lastTouched = acc.runs.length - 1)
  }
  if (cwd !== null) acc.cwd[sessionId] = cwd
}

/**
 * End a scan of an archive zone: trailing unowned lines join the last run
 * (seed 002 / issue 5). An archive never grows, so they will never find a
 * later owner. In the current zone they stay pending.
 */
export const closeArchive = (acc: ScanAcc, readTo: number): void => {
  const i = acc.runs.length - 1
  const last = acc.runs[i]
  if (acc.pending !== null && last !== undefined && last.end === acc.pending.start) {
    last.end = readTo
    last.lines += acc.pending.lines
    acc.pending = null
    acc.touched.add(i)
  }
}

/**
 * Freeze a working copy into a stored scan (the working copy is not used
 * after: its runs, the untouched ones shared with the stored scan it began
 * from, and its working directories, a copy {@link beginScan} made, are the
 * new scan's).
 */
export const endScan = (
  acc: ScanAcc,
  fields: Pick<ZoneScan, "readTo" | "createdTs" | "generation" | "headLength" | "headDigest">
): ZoneScan => ({
  ...fields,
  runs: acc.runs,
  pending: acc.pending === null ? null : { ...acc.pending },
  cwd: acc.cwd,
  unreadable: acc.unreadable,
  missingPartLines: acc.missingPartLines,
  oversized: acc.oversized
})

/**
 * The parse-warning kind of a line of a zone's `output.tsidx` that is no
 * record (not `{"off":N,"ms":M}` with N and M non-negative safe integers):
 * skipped and counted, for the session whose lines the sidecar's part
 * holding it dates (tester16 finding 4c; docs/providers.md, "AgentMux: receive times a sidecar cannot give").
 */
export const UNREADABLE_TSIDX_LINE = "unreadable-tsidx-line"

/**
 * The parse-warning kind of a part (64 KiB) of a zone's `output.tsidx`
 * missing from the store, or not bytes (an INTEGER or NULL where the blob
 * should be): counted once a part, for the session whose lines it would date
 * (a kind that counts parts, not lines: `../warning-kinds.ts`).
 */
export { TSIDX_PART_MISSING } from "../warning-kinds.js"

/** One `output.tsidx` record: a batch appended at byte `off` of `output`, received at unix `ms`. */
export interface StampRecord {
  readonly off: number
  readonly ms: number
}

const TSIDX_FAST = /^\{"off":(\d{1,15}),"ms":(\d{1,15})\}\s*$/

const STAMP_LINE = /[ \t\r\v\f]*\{"off":(\d{1,15}),"ms":(\d{1,15})\}[ \t\r\v\f]*(?:\n|$)/y

/**
 * The sidecar record on the line starting at `at` of `text` (the sidecar's
 * bytes decoded as latin1), when it has the usual shape `{"off":N,"ms":M}`
 * with ASCII blanks around it: the record (as {@link parseStampRecord} reads
 * it) and where the next line starts. `undefined` when it has not: the line
 * must be parsed as text.
 */
export const readStampRecordAt = (text: string, at: number): { record: StampRecord; next: number } | undefined => {
  STAMP_LINE.lastIndex = at
  const m = STAMP_LINE.exec(text)
  return m === null ? undefined : { record: { off: Number(m[1]), ms: Number(m[2]) }, next: STAMP_LINE.lastIndex }
}

/**
 * Parse one sidecar record (a trailing `\r` tolerated). `null` when it is not
 * `{"off":<int ≥ 0>,"ms":<int ≥ 0>}` (extra fields are allowed).
 */
export const parseStampRecord = (text: string): StampRecord | null => {
  const m = TSIDX_FAST.exec(text)
  if (m !== null) return { off: Number(m[1]), ms: Number(m[2]) }
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  if (!isObject(v)) return null
  const { ms, off } = v
  return typeof off === "number" && typeof ms === "number" && Number.isSafeInteger(off) && Number.isSafeInteger(ms) &&
      off >= 0 && ms >= 0
    ? { off, ms }
    : null
}

/**
 * The receive time of byte `offset` from sidecar records: the newest record at
 * or before it, i.e. the greatest `off ≤ offset` (ties: the greatest `ms`), in
 * whatever order the records were written. `null` when none is at or before it.
 * `records` may come in several arrays (the sidecar's parts), taken together.
 */
export const stampOf = (
  records: ReadonlyArray<StampRecord> | ReadonlyArray<ReadonlyArray<StampRecord>>,
  offset: number
): number | null => {
  let best: StampRecord | null = null
  const groups = (records.length > 0 && Array.isArray(records[0]) ? records : [records]) as ReadonlyArray<
    ReadonlyArray<StampRecord>
  >
  for (const group of groups) {
    for (let i = 0; i < group.length; i++) {
      const r = group[i]
      if (r.off > offset) continue
      if (best === null || r.off > best.off || (r.off === best.off && r.ms > best.ms)) best = r
    }
  }
  return best === null ? null : best.ms
}
