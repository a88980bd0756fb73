/**
 * Reading a zone's files out of the store: the complete lines of `output` in
 * a byte range, in 4 MiB steps, and receive times from `output.tsidx` looked
 * up a part at a time (seed 002, `for_each_line`, `line_stamps`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { PART_SIZE, parseStampRecord, READ_CHUNK, readStampRecordAt, type StampRecord } from "../../domain/agentmux/record.js"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { StoreConnection, StoreFile, StoreRead } from "./TranscriptStore.js"

/** One complete (`\n`-terminated) line: bytes `[start, end)` (`end` past the `\n`). */
export interface ZoneLine {
  readonly start: number
  readonly end: number
  /** The line without its `\n`; null when it could not be read (see `problem`). */
  readonly bytes: Buffer | null
  /** `missing-part`: a part under it is missing from the store; `oversized`: longer than the record limit. */
  readonly problem: "missing-part" | "oversized" | null
}

/** What {@link forEachLine} read. */
export interface LinesRead {
  /** Offset just past the last complete line: where the next scan starts. */
  readonly readTo: number
  /** Bytes fetched from the store (including a trailing unterminated line). */
  readonly bytesRead: number
  /** Byte ranges whose parts are missing. */
  readonly missing: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

/**
 * Receives one complete line: `buf[from, to)` is the line without its `\n`
 * (`buf` null when it could not be read, see `problem`), `[start, end)` its
 * place in the file (`end` past the `\n`). `buf` is valid during the call only.
 * `text`, when asked for, is `buf` decoded as latin1 (one character per
 * byte, the same offsets), for searches by the engine's string built-ins.
 */
export type LineSink = (
  buf: Buffer | null,
  from: number,
  to: number,
  start: number,
  end: number,
  problem: ZoneLine["problem"],
  text: string | undefined
) => void

/**
 * Takes complete lines in bulk (with text, see {@link eachLine}): called at
 * the start of a line, `text[from]`, that begins in the step (the file's
 * bytes from `base` as latin1), when the step is on no missing part and no
 * line in it can be over the record limit; answers the index just past the
 * `\n` of the last line it took (each line it took is one the sink needs
 * not see: the taker has done with it what the sink would), `from` when none.
 */
export type LineTaker = (text: string, from: number, base: number) => number

/**
 * Where a read of `file` goes on after a step that ended at `pos` on bytes
 * not in the store (`missing`, the step's missing ranges, the last ending at
 * `pos`): at the first part present after them (`StoreConnection.nextPart`),
 * or `stop` when none is, the bytes crossed added to `missingAll` (merged
 * with the range before when adjacent). A missing part reads as zeros, which
 * hold no `\n`, so the line under it goes on across them as if each were
 * read: the same lines and the same ranges, in one query instead of a read
 * per 4 MiB (a `db_wave_file.size` of terabytes over a few parts; issue 7:
 * bad input never hangs us). `pos` itself when the step did not end on a
 * missing part, a part is present at `pos`, or the connection cannot say.
 */
const crossMissing = (
  conn: StoreConnection,
  file: StoreFile,
  missing: StoreRead["missing"],
  pos: number,
  stop: number,
  missingAll: Array<{ start: number; end: number }>
): Effect.Effect<number, StoreUnavailable> => {
  const last = missing[missing.length - 1]
  if (last === undefined || last.end !== pos || pos >= stop || conn.nextPart === undefined) return Effect.succeed(pos)
  return Effect.map(conn.nextPart(file, Math.floor(pos / PART_SIZE)), (next) => {
    const to = next === null ? stop : Math.min(stop, Math.max(pos, next * PART_SIZE))
    if (to > pos) {
      const tail = missingAll[missingAll.length - 1]
      if (tail !== undefined && tail.end === pos) tail.end = to
      else missingAll.push({ start: pos, end: to })
    }
    return to
  })
}

/**
 * Hand every complete line of `file` in `[start, end)` to `sink`, reading
 * `stepBytes` (default 4 MiB) per step. Lines are cut at `\n` bytes, which
 * never occur inside a multibyte UTF-8 character, and a line cut by a part or
 * step boundary is reassembled before it is handed on, so no character is
 * mangled. A trailing unterminated line is not handed on (an append in
 * progress): `readTo` stops before it. A line under a missing part, or longer
 * than `maxLineBytes`, is handed on with `buf` null. No allocation per line;
 * with `reuse`, one step buffer serves every step (`buf` is then only valid
 * during the call). With `withText`, each step is also decoded as latin1 once
 * (a copy of the step) and lines are cut, and handed on, in that text too;
 * `take` (with text only) may then take lines before the sink sees them.
 */
export const eachLine = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  end: number,
  maxLineBytes: number,
  sink: LineSink,
  stepBytes: number = READ_CHUNK,
  reuse = false,
  onStepEnd?: () => void,
  withText = false,
  take?: LineTaker
): Effect.Effect<LinesRead, StoreUnavailable> =>
  Effect.gen(function*() {
    const stop = Math.min(end, file.size)
    const into = reuse ? Buffer.allocUnsafe(Math.min(stepBytes, Math.max(0, stop - start))) : undefined
    let pos = start
    let carry: Array<Buffer> = []
    let carryLen = 0
    let carryStart = start
    let carryBad: ZoneLine["problem"] = null
    let bytesRead = 0
    const missingAll: Array<{ start: number; end: number }> = []
    while (pos < stop) {
      const r = yield* conn.read(file, pos, Math.min(stepBytes, stop - pos), into)
      const buf = r.bytes
      if (buf.length === 0) break
      bytesRead += buf.length
      for (const m of r.missing) {
        const last = missingAll[missingAll.length - 1]
        if (last !== undefined && last.end === m.start) last.end = m.end
        else missingAll.push({ start: m.start, end: m.end })
      }
      const base = pos
      const missing = r.missing
      const anyMissing = missing.length > 0
      const overlaps = (s: number, e: number) => missing.some((m) => m.start < e && m.end > s)
      const text = withText ? buf.toString("latin1") : undefined
      // Lines taken in bulk: none of them can be oversized (the step is no longer than the limit) or on a missing part.
      const taker = text !== undefined && !anyMissing && buf.length <= maxLineBytes ? take : undefined
      let i = 0
      for (;;) {
        if (taker !== undefined && carry.length === 0 && carryBad === null && i < buf.length) {
          const j = taker(text!, i, base)
          if (j > i) {
            carryStart = base + j
            i = j
            continue
          }
        }
        const nl = text !== undefined ? text.indexOf("\n", i) : buf.indexOf(10, i)
        if (nl === -1) {
          if (i < buf.length) {
            if (carryBad === null && anyMissing && overlaps(base + i, base + buf.length)) carryBad = "missing-part"
            if (carryBad === null && carryLen + buf.length - i > maxLineBytes) carryBad = "oversized"
            if (carryBad === null) {
              carry.push(Buffer.from(buf.subarray(i)))
              carryLen += buf.length - i
            } else {
              carry = []
              carryLen = 0
            }
          }
          break
        }
        let bad = carryBad
        if (bad === null && anyMissing && overlaps(base + i, base + nl + 1)) bad = "missing-part"
        if (bad === null && carryLen + nl - i > maxLineBytes) bad = "oversized"
        if (bad !== null) sink(null, 0, 0, carryStart, base + nl + 1, bad, undefined)
        else if (carry.length === 0) sink(buf, i, nl, carryStart, base + nl + 1, null, text)
        else {
          const whole = Buffer.concat([...carry, buf.subarray(i, nl)])
          sink(whole, 0, whole.length, carryStart, base + nl + 1, null, withText ? whole.toString("latin1") : undefined)
        }
        carry = []
        carryLen = 0
        carryBad = null
        carryStart = base + nl + 1
        i = nl + 1
      }
      pos += buf.length
      onStepEnd?.()
      pos = yield* crossMissing(conn, file, r.missing, pos, stop, missingAll)
    }
    return { readTo: carryStart, bytesRead, missing: missingAll }
  })

/**
 * {@link eachLine} without text, each step read as the connection's chunks
 * (`StoreConnection.readChunks`, when it has it, else `read`: each part's
 * bytes as the store gave them, not copied into one step buffer; issue 13,
 * a first scan) and its lines cut chunk by chunk, a line across chunks
 * reassembled as one across steps: the same lines, handed on the same way
 * (`buf` valid during the call only). Kept apart from {@link eachLine}, whose
 * loop a rescan's short read runs, so that it stays as it is.
 */
export const eachLineInChunks = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  end: number,
  maxLineBytes: number,
  sink: LineSink,
  stepBytes: number = READ_CHUNK
): Effect.Effect<LinesRead, StoreUnavailable> =>
  Effect.gen(function*() {
    const stop = Math.min(end, file.size)
    let pos = start
    let carry: Array<Buffer> = []
    let carryLen = 0
    let carryStart = start
    let carryBad: ZoneLine["problem"] = null
    let bytesRead = 0
    const missingAll: Array<{ start: number; end: number }> = []
    /** The lines of `buf`, bytes `[base, base + buf.length)` of the file (`missing`: the step's missing ranges). */
    const take = (buf: Buffer, base: number, missing: StoreRead["missing"]) => {
      const anyMissing = missing.length > 0
      const overlaps = (s: number, e: number) => missing.some((m) => m.start < e && m.end > s)
      let i = 0
      for (;;) {
        const nl = buf.indexOf(10, i)
        if (nl === -1) {
          if (i < buf.length) {
            if (carryBad === null && anyMissing && overlaps(base + i, base + buf.length)) carryBad = "missing-part"
            if (carryBad === null && carryLen + buf.length - i > maxLineBytes) carryBad = "oversized"
            if (carryBad === null) {
              carry.push(Buffer.from(buf.subarray(i)))
              carryLen += buf.length - i
            } else {
              carry = []
              carryLen = 0
            }
          }
          break
        }
        let bad = carryBad
        if (bad === null && anyMissing && overlaps(base + i, base + nl + 1)) bad = "missing-part"
        if (bad === null && carryLen + nl - i > maxLineBytes) bad = "oversized"
        if (bad !== null) sink(null, 0, 0, carryStart, base + nl + 1, bad, undefined)
        else if (carry.length === 0) sink(buf, i, nl, carryStart, base + nl + 1, null, undefined)
        else {
          const whole = Buffer.concat([...carry, buf.subarray(i, nl)])
          sink(whole, 0, whole.length, carryStart, base + nl + 1, null, undefined)
        }
        carry = []
        carryLen = 0
        carryBad = null
        carryStart = base + nl + 1
        i = nl + 1
      }
    }
    const readChunks = conn.readChunks
    while (pos < stop) {
      const length = Math.min(stepBytes, stop - pos)
      let r: { readonly missing: StoreRead["missing"] }
      let chunks: ReadonlyArray<Buffer>
      if (readChunks !== undefined) {
        const c = yield* readChunks(file, pos, length)
        r = c
        chunks = c.chunks
      } else {
        const one = yield* conn.read(file, pos, length)
        r = one
        chunks = [one.bytes]
      }
      let stepLength = 0
      for (const c of chunks) stepLength += c.length
      if (stepLength === 0) break
      bytesRead += stepLength
      for (const m of r.missing) {
        const last = missingAll[missingAll.length - 1]
        if (last !== undefined && last.end === m.start) last.end = m.end
        else missingAll.push({ start: m.start, end: m.end })
      }
      let base = pos
      for (const c of chunks) {
        take(c, base, r.missing)
        base += c.length
      }
      pos += stepLength
      pos = yield* crossMissing(conn, file, r.missing, pos, stop, missingAll)
    }
    return { readTo: carryStart, bytesRead, missing: missingAll }
  })

/**
 * {@link eachLine}, a step's lines at a time as {@link ZoneLine}s (each line's
 * bytes a view of the step's buffer, valid after the call).
 */
export const forEachLine = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  end: number,
  maxLineBytes: number,
  onLines: (lines: ReadonlyArray<ZoneLine>) => void,
  stepBytes: number = READ_CHUNK
): Effect.Effect<LinesRead, StoreUnavailable> => {
  let out: Array<ZoneLine> = []
  return eachLine(conn, file, start, end, maxLineBytes, (buf, from, to, s, e, problem) => {
    out.push({ start: s, end: e, bytes: buf === null ? null : buf.subarray(from, to), problem })
  }, stepBytes, false, () => {
    if (out.length > 0) onLines(out)
    out = []
  })
}

/** Receive-time lookups over one zone's `output.tsidx`. */
export interface Stamps {
  /** Receive time (unix ms) of byte `offset` of `output`; null without a record at or before it. */
  readonly at: (offset: number) => Effect.Effect<number | null, StoreUnavailable>
  /**
   * Lines of the sidecar read so far that are no record (not
   * `{"off":N,"ms":M}`, N and M non-negative safe integers; a line on a
   * missing part is not counted here, see `missingParts`).
   */
  readonly unreadable: () => number
  /** Parts (64 KiB) of the sidecar met so far that are missing from the store, or not bytes (an INTEGER, NULL). */
  readonly missingParts: () => number
  /** Parts of the sidecar read so far. */
  readonly partsRead: () => number
}

const byOffThenMs = (a: StampRecord, b: StampRecord) => a.off - b.off || a.ms - b.ms

/**
 * Of records sorted by (off, ms), the newest at or before `offset`: the
 * greatest `off <= offset`, ties the greatest `ms` (the rule of `stampOf` in record.ts),
 * found by a binary search; null when none.
 */
export const latestAtOrBefore = (sorted: ReadonlyArray<StampRecord>, offset: number): StampRecord | null => {
  let lo = 0
  let hi = sorted.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid].off <= offset) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found < 0 ? null : sorted[found]
}

/** The most parts (64 KiB) a sidecar's size may state before its last part present is asked for (4 MiB). */
const PRESENT_CHECK_PARTS = 64

/** Longest sidecar record looked for past a part's end, in bytes. */
const RECORD_SLACK = 4096

/** Bytes read at a part's start for its key during the binary search (its first records). */
const HEAD_WINDOW = 512

const isStampRecord = (u: unknown): u is StampRecord => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const { ms, off } = u as Record<string, unknown>
  return typeof off === "number" && typeof ms === "number" && Number.isSafeInteger(off) && Number.isSafeInteger(ms) &&
    off >= 0 && ms >= 0
}

/**
 * The records of the sidecar lines that start in `text[start, limit)` (a
 * part's lines, `text` its bytes as latin1 with the slack after it) read in
 * one `JSON.parse` of them as an array, when every such line is one JSON
 * object that `parseStampRecord` takes (the usual case): the records it
 * would give, in order. `undefined` when any is not (a blank, damaged or
 * cut line, a line of two values, a character JSON does not take...): the
 * caller then reads the lines one by one, as before. The last line must end
 * in `\n`, or at the file's end (`atEnd`). A part's ~2,000 records cost a
 * rescan 2-6 ms of CPU through a regular expression a line (issue 13).
 */
const recordsAtOnce = (text: string, start: number, limit: number, atEnd: boolean): Array<StampRecord> | undefined => {
  if (start >= limit || start >= text.length) return []
  // the last line that starts before `limit`, and where it ends
  const last = Math.max(start, (limit >= 2 ? text.lastIndexOf("\n", limit - 2) : -1) + 1)
  let end = text.indexOf("\n", last)
  if (end === -1) {
    if (!atEnd) return undefined
    end = text.length
  }
  const lines = text.slice(start, end)
  // Lines all of AgentMux's own shape are records `isStampRecord` takes (integers under 10^15 are safe), each one
  // JSON object: checked in one pass of a regular expression rather than a call a record (a loop over a part's
  // ~2,000 records got hot enough for the optimizing compiler, whose work on another thread cost a rescan more than
  // the loop; issue 13), and then neither counted nor checked again (a number with a leading zero still fails the parse).
  const usual = isUsualRecords(lines)
  let parsed: unknown
  try {
    parsed = JSON.parse(`[${lines.replaceAll("\n", ",")}]`)
  } catch {
    return undefined
  }
  if (usual) return parsed as Array<StampRecord>
  let count = 1
  for (let nl = text.indexOf("\n", start); nl !== -1 && nl < end; nl = text.indexOf("\n", nl + 1)) count++
  if (!Array.isArray(parsed) || parsed.length !== count) return undefined
  for (const u of parsed) if (!isStampRecord(u)) return undefined
  return parsed as Array<StampRecord>
}

/** One sidecar record of AgentMux's own shape, `{"off":N,"ms":M}` (N and M of 1 to 15 digits), maybe ending in CR, with its `\n` or at the text's end. */
const USUAL_RECORD = /\{"off":\d{1,15},"ms":\d{1,15}\}\r?(?:\n|$)/g

/**
 * Whether `lines` is sidecar lines each `{"off":N,"ms":M}` (N and M of 1 to
 * 15 digits, maybe ending in CR), joined by `\n`, the last without one: the
 * text matched by `^(?:R\r?\n)*R\r?$`, R such a record. Told by removing
 * every record with its line end (one global replace): nothing is left only
 * when the records follow each other with nothing between them. Issue 13: the
 * single match of that pattern over a part's ~2,000 records cost a rescan
 * 2-3 ms of CPU (its backtracking state grows a step a digit); the replace
 * ~0.2 ms.
 */
export const isUsualRecords = (lines: string): boolean =>
  lines.length > 0 && !lines.endsWith("\n") && lines.replace(USUAL_RECORD, "") === ""


/**
 * Lookups over a zone's sidecar without reading it whole: parts (64 KiB) are
 * binary-searched by their smallest offset, taken from the records at the
 * part's start only (its first `HEAD_WINDOW` bytes; the whole part when no
 * record there is whole, usual and on no missing part), and the answer is the newest
 * record at or before the offset among the found part and its neighbours,
 * each read whole (records may be slightly out of order). A record belongs to
 * the part its first byte is in; records may end in CRLF and the last may
 * lack a newline. Each part read whole keeps its records sorted by offset
 * (then time), looked up by a binary search. `file` undefined: every answer
 * is null.
 */
export const makeStamps = (conn: StoreConnection, file: StoreFile | undefined): Stamps => {
  if (file === undefined || file.size === 0) {
    return { at: () => Effect.succeed(null), unreadable: () => 0, missingParts: () => 0, partsRead: () => 0 }
  }
  /** The parts looked up: those the size states, cut at the last one present once that is asked (see `settled`). */
  let parts = Math.ceil(file.size / PART_SIZE)
  /** The parts the size states past the last one present: missing, never read (issue 7: a size of terabytes). */
  let pastParts = 0
  /**
   * Whether `parts` is settled: a sidecar of more than `PRESENT_CHECK_PARTS`
   * parts asks the store for its last part present once, before its first
   * lookup; a shorter one is looked up as its size says (a rescan's lookups
   * cost no query more).
   */
  let settled = parts <= PRESENT_CHECK_PARTS || conn.lastPart === undefined
  const cache = new Map<number, ReadonlyArray<StampRecord>>()
  /**
   * The key of each looked-at part (null: no record starts in it): its smallest
   * offset when read whole, else the smallest of the records at its start.
   */
  const keys = new Map<number, number | null>()
  let bad = 0
  /** The parts met missing (or short of their bytes), by index. */
  const missingSeen = new Set<number>()
  const noteMissing = (missing: StoreRead["missing"]) => {
    for (const m of missing) {
      for (let p = Math.floor(m.start / PART_SIZE); p * PART_SIZE < m.end && p < parts; p++) missingSeen.add(p)
    }
  }
  const part = (k: number): Effect.Effect<ReadonlyArray<StampRecord>, StoreUnavailable> => {
    const hit = cache.get(k)
    if (hit !== undefined) return Effect.succeed(hit)
    const from = k === 0 ? 0 : k * PART_SIZE - 1
    const partEnd = Math.min(file.size, (k + 1) * PART_SIZE)
    const to = Math.min(file.size, partEnd + RECORD_SLACK)
    return Effect.map(conn.read(file, from, to - from), (r) => {
      const buf = r.bytes
      if (r.missing.length > 0) noteMissing(r.missing)
      let i = 0
      if (k > 0) {
        const nl = buf.indexOf(10)
        i = nl === -1 ? buf.length : nl + 1
      }
      const text = buf.toString("latin1")
      const whole = r.missing.length === 0 ? recordsAtOnce(text, i, partEnd - from, from + buf.length >= file.size) : undefined
      const records: Array<StampRecord> = whole ?? []
      if (whole !== undefined) i = buf.length
      while (i < buf.length && from + i < partEnd) {
        if (r.missing.length === 0) {
          // The usual record, read by one regular expression (a record cut by the read's end is not).
          const quick = readStampRecordAt(text, i)
          if (quick !== undefined && (text.charCodeAt(quick.next - 1) === 10 || from + buf.length >= file.size)) {
            records.push(quick.record)
            i = quick.next
            continue
          }
        }
        const nl = buf.indexOf(10, i)
        const lineEnd = nl === -1 ? buf.length : nl
        // A line on a missing part is not read, nor counted as a bad line: the part is counted (`missingParts`).
        const overlapsMissing = r.missing.some((m) => m.start < from + lineEnd && m.end > from + i)
        if (nl === -1 && from + buf.length < file.size) {
          if (!overlapsMissing) bad++ // a record longer than the slack
          break
        }
        const line = overlapsMissing ? "" : buf.toString("utf8", i, lineEnd).trim()
        if (line.length > 0) {
          const rec = parseStampRecord(line)
          if (rec === null) bad++
          else records.push(rec)
        }
        i = lineEnd + 1
      }
      // Sorted by (off, ms), so the newest record at or before an offset is found by a binary search.
      let sorted = true
      for (let j = 1; j < records.length && sorted; j++) sorted = byOffThenMs(records[j - 1], records[j]) <= 0
      if (!sorted) records.sort(byOffThenMs)
      cache.set(k, records)
      keys.set(k, records.length === 0 ? null : records[0].off)
      return records
    })
  }
  /**
   * The key of part k: the smallest offset of the records that start in its
   * first `HEAD_WINDOW` bytes, read whole, in the usual shape and on no
   * missing part (they start where the part's first line starts); the part
   * read whole (its smallest offset) when there is none such.
   */
  const head = (k: number): Effect.Effect<number | null, StoreUnavailable> => {
    if (keys.has(k)) return Effect.succeed(keys.get(k)!)
    const from = k === 0 ? 0 : k * PART_SIZE - 1
    const partEnd = Math.min(file.size, (k + 1) * PART_SIZE)
    return Effect.flatMap(conn.read(file, from, Math.min(file.size, from + HEAD_WINDOW) - from), (r) => {
      const buf = r.bytes
      let i = 0
      if (k > 0) {
        const nl = buf.indexOf(10)
        i = nl === -1 ? buf.length : nl + 1
      }
      let min: number | null = null
      if (r.missing.length === 0) {
        const text = buf.toString("latin1")
        while (i < buf.length && from + i < partEnd) {
          const quick = readStampRecordAt(text, i)
          if (quick === undefined || (buf[quick.next - 1] !== 10 && from + quick.next < file.size)) break
          if (min === null || quick.record.off < min) min = quick.record.off
          i = quick.next
        }
      }
      if (min !== null) {
        keys.set(k, min)
        return Effect.succeed(min)
      }
      return Effect.map(part(k), () => keys.get(k)!)
    })
  }
  /** What {@link lookup} needs read first: the key of a part, or a part whole. */
  type Need = { readonly head: number } | { readonly part: number }
  /** The key of part k, else of the nearest part to its left where a record starts (null if none), from the keys read so far. */
  const keyOf = (k: number): number | null | Need => {
    for (let j = k; j >= 0; j--) {
      const m = keys.get(j)
      if (m === undefined) return { head: j }
      if (m !== null) return m
    }
    return null
  }
  /**
   * The answer of `at` from the keys and parts read so far, or the first
   * thing it needs read: part keys are binary-searched (the last part's
   * first: most lookups are of what was just appended), then the found part
   * and its neighbours are searched. Synchronous, so that the lookups a scan
   * makes in parts already read (a rescan's runs all lie in its append) cost
   * no effect.
   */
  const lookup = (offset: number): number | null | Need => {
    let lo = 0
    let hi = parts - 1
    let found = -1
    const lastKey = keyOf(parts - 1)
    if (lastKey !== null && typeof lastKey === "object") return lastKey
    if (lastKey !== null && lastKey <= offset) {
      found = parts - 1
      lo = parts
    }
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const key = keyOf(mid)
      if (key !== null && typeof key === "object") return key
      if (key !== null && key <= offset) {
        found = mid
        lo = mid + 1
      } else if (key === null) {
        lo = mid + 1
      } else {
        hi = mid - 1
      }
    }
    // The part whose key `found` has: itself, or the nearest one to its left where a record starts (the parts
    // between, read whole, hold none: missing from the store, or a size that says more parts than there are).
    let owner = found
    while (owner > 0 && keys.get(owner) === null) owner--
    let best: StampRecord | null = null
    for (let k = Math.max(0, owner - 1); k <= Math.min(parts - 1, Math.max(found, 0) + 1); k++) {
      const records = cache.get(k)
      if (records === undefined) return { part: k }
      const r = latestAtOrBefore(records, offset)
      if (r !== null && (best === null || byOffThenMs(best, r) < 0)) best = r
    }
    return best === null ? null : best.ms
  }
  /** {@link lookup}, reading what it needs (in the order it needs it) until it answers. */
  const search = (offset: number): Effect.Effect<number | null, StoreUnavailable> =>
    Effect.gen(function*() {
      if (!settled) {
        const last = yield* conn.lastPart!(file)
        const present = last === null ? 0 : Math.min(parts, last.index + 1)
        pastParts = parts - present
        parts = present
        settled = true
      }
      if (parts === 0) return null
      for (;;) {
        const answer = lookup(offset)
        if (answer === null || typeof answer === "number") return answer
        if ("head" in answer) yield* head(answer.head)
        else yield* part(answer.part)
      }
    })
  return {
    at: (offset) => {
      if (!settled) return search(offset)
      if (parts === 0) return Effect.succeed(null)
      const answer = lookup(offset)
      return answer === null || typeof answer === "number" ? Effect.succeed(answer) : search(offset)
    },
    unreadable: () => bad,
    missingParts: () => missingSeen.size + pastParts,
    partsRead: () => cache.size
  }
}
