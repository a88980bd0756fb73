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

/**
 * True when `b[from, to)` starts with a streaming delta's first bytes
 * (`{"type":"stream_event"`), recognised without parsing it (seed 002,
 * `is_stream_event`): most of the record's bytes, and never a message.
 */
export const isStreamEventAt = (b: Buffer, from: number, to: number, cache?: SessionIdCache): boolean => {
  const n = STREAM_EVENT_PREFIX.length
  if (to - from < n) return false
  if (cache === undefined || cache.lines < cache.nativeLines) return b.compare(STREAM_EVENT_PREFIX, 0, n, from, from + n) === 0
  for (let i = 0; i < n; i++) if (b[from + i] !== STREAM_EVENT_PREFIX[i]) return false
  return true
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

/** Offset of the last `"session_id":"` in `b[from, to)`, else -1 (searched from the end: a delta's own key is near it). */
const lastSessionKey = (b: Uint8Array, from: number, to: number): number => {
  let i = to - SESSION_KEY_LENGTH
  while (i >= from) {
    const c = b[i]
    if (c === 0x22) {
      let j = 1
      while (j < SESSION_KEY_LENGTH && b[i + j] === SESSION_KEY[j]) j++
      if (j === SESSION_KEY_LENGTH) return i
    }
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
}

/** A fresh {@link SessionIdCache}. */
export const makeSessionIdCache = (nativeLines = 20_000): SessionIdCache => ({
  id: null,
  bytes: Buffer.alloc(256),
  length: 0,
  lines: 0,
  nativeLines
})

/**
 * The session id of a streaming delta `b[from, to)` from its last
 * `"session_id":"` key, found by a byte search (the delta's payload holds
 * only escaped strings, so the unescaped key bytes are the line's own).
 * `null` when absent, empty, unterminated or holding an escape.
 */
export const streamEventSessionIdAt = (b: Buffer, from: number, to: number, cache?: SessionIdCache): string | null => {
  const native = cache === undefined || cache.lines < cache.nativeLines
  const k = native ? b.lastIndexOf(SESSION_KEY, to - SESSION_KEY_LENGTH) : lastSessionKey(b, from, to)
  if (k < from) return null
  const s = k + SESSION_KEY_LENGTH
  if (cache !== undefined && cache.id !== null) {
    // The same id as the last line (it holds no quote or backslash) followed by its closing quote.
    const n = cache.length
    if (s + n < to && b[s + n] === 0x22) {
      if (native) {
        if (b.compare(cache.bytes, 0, n, s, s + n) === 0) return cache.id
      } else {
        let j = 0
        while (j < n && cache.bytes[j] === b[s + j]) j++
        if (j === n) return cache.id
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
  if (cache !== undefined && e - s <= cache.bytes.length) {
    b.copy(cache.bytes, 0, s, e)
    cache.length = e - s
    cache.id = id
  }
  return id
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
  // Parsed from a latin1 decoding (one byte, one character: no UTF-8 decoding,
  // and V8's fast path for one-byte strings). JSON's structure is ASCII and a
  // byte >= 0x80 is as invalid outside a string, and as valid inside one, in
  // either decoding, so the line is JSON exactly when its UTF-8 text is; the
  // strings kept are taken from a UTF-8 parse when they hold a non-ASCII character.
  let value = parseObject(b.toString("latin1", from, to))
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
 * as kept in session-ingest's state database between scans.
 *
 * - `readTo`: offset just past the last complete line read (bytes).
 * - `pending`: the first unowned line not yet given to a session (offset) and how many lines since.
 * - `cwd`: working directory per session, from its init line.
 * - `createdTs` / `generation`: identity of the file when it was read (a change means cleared).
 * - `headDigest` over `[0, headLength)`: the first bytes when read (a change means rewritten).
 */
export const ZoneScan = Schema.Struct({
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
export type ZoneScan = typeof ZoneScan.Type

/** Decoder of a stored {@link ZoneScan} (JSON text); a mismatch means "read again from the start". */
export const decodeZoneScan = Schema.decodeUnknownEither(Schema.parseJson(ZoneScan))

/** The scan of a zone never read. */
export const emptyScan: ZoneScan = {
  v: 1,
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

/** Start a working copy from a stored scan. */
export const beginScan = (s: ZoneScan): ScanAcc => ({
  runs: s.runs.map((r) => ({ ...r })),
  pending: s.pending === null ? null : { ...s.pending },
  cwd: { ...s.cwd },
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

/** Freeze a working copy into a stored scan. */
export const endScan = (
  acc: ScanAcc,
  fields: Pick<ZoneScan, "readTo" | "createdTs" | "generation" | "headLength" | "headDigest">
): ZoneScan => ({
  v: 1,
  ...fields,
  runs: acc.runs.map((r) => ({ ...r })),
  pending: acc.pending === null ? null : { ...acc.pending },
  cwd: { ...acc.cwd },
  unreadable: acc.unreadable,
  missingPartLines: acc.missingPartLines,
  oversized: acc.oversized
})

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
