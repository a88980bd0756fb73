/**
 * The ids of a Claude Code file's records: each `user` / `assistant` /
 * `system` / `attachment` / `queue-operation` / `progress` line names itself
 * by its `uuid`. The rule (docs/providers.md "Claude Code: one record per
 * uuid"), per file (a session file with its inline sidechains, or one
 * subagent file; a resumed session's new file that copies the history it
 * resumed is another file, and keeps its copies):
 *
 * - a line repeating an earlier line's record as it is (the same `uuid`,
 *   the same JSON value) is kept once and counted
 *   (`REPEATED_RECORDS_SKIPPED`, the shape of Muse Code's);
 * - a record under a `uuid` an earlier record of the file has, with other
 *   content, is kept (both are) and counted (`RECORD_UUID_REUSED`, naming
 *   both lines). Not `MALFORMED_SOURCE` as in Muse Code: Claude Code itself
 *   writes such records. Its writer means a uuid once a session (its
 *   `appendEntry` skips a uuid already logged: jeremedia/claude-code-log-format
 *   `source-docs/JSONL_LOGGING.md`), yet real logs break it:
 *   `saved_hook_context` entries all written under one uuid with their own
 *   content (anthropics/claude-code#22178, 2.1.27), a reopened VS Code
 *   session replaying its entries under their uuids with another `cwd`
 *   (anthropics/claude-code#56196), compactions rewriting history under the
 *   same uuids (anthropics/claude-code#66947). Those are real records (or
 *   real copies that differ): a tolerant reader keeps them and says so.
 *
 * What a pass keeps: a compact table of the uuids seen (a canonical
 * lower-case uuid as 16 bytes, any other id string in a map) with the first
 * line's number, byte offset and length (about 40 bytes a record); the
 * content of a first record is read again only when its uuid repeats.
 *
 * @module
 */
import type { Diagnostic } from "../model.js"

/** A lower-case hex digit's value, else -1. */
const nibble = (ch: number): number => (ch >= 48 && ch <= 57 ? ch - 48 : ch >= 97 && ch <= 102 ? ch - 87 : -1)

/** The 16 bits of the 4 lower-case hex digits of `s` at `i`, else -1. */
const hex16 = (s: string, i: number): number => {
  let v = 0
  for (let k = 0; k < 4; k++) {
    const n = nibble(s.charCodeAt(i + k))
    if (n < 0) return -1
    v = (v << 4) | n
  }
  return v
}

/** Whether `s` (36 characters) has a canonical uuid's hyphens: 8-4-4-4-12. */
const hyphens = (s: string): boolean =>
  s.charCodeAt(8) === 45 && s.charCodeAt(13) === 45 && s.charCodeAt(18) === 45 && s.charCodeAt(23) === 45

/** The place of a record's first line in its file. */
export interface FirstPlace {
  /** 1-based line number. */
  readonly lineNumber: number
  /** Byte offset of the line's start. */
  readonly offset: number
  /** The line's length in bytes (without its `\n`). */
  readonly length: number
}

/**
 * The uuids one file's pass has seen, each with its first line's place.
 * Memory: 16 bytes a canonical uuid, 16 for its place, and a slot of the
 * open-addressing table (4 bytes, at most half full).
 */
export class RecordIds {
  private count = 0
  private keys = new Uint32Array(4 * 256)
  private lines = new Uint32Array(256)
  private offsets = new Float64Array(256)
  private lengths = new Uint32Array(256)
  /** Open addressing: record index + 1, 0 empty; its size a power of two. */
  private table = new Uint32Array(512)
  /** Ids not in canonical uuid form: id → record index. */
  private other: Map<string, number> | undefined

  /** How many distinct ids were taken. */
  get size(): number {
    return this.count
  }

  /**
   * Take `uuid` for the line `lineNumber` at byte `offset`, `length` bytes
   * long, when it is new (returns undefined); when it was taken already,
   * return its first line's place (the table is unchanged: a record is
   * always compared with the first of its id).
   */
  take(uuid: string, lineNumber: number, offset: number, length: number): FirstPlace | undefined {
    // A canonical uuid (lower-case hex, 8-4-4-4-12) as four 32-bit words; any other id in the map.
    const canonical = uuid.length === 36 && hyphens(uuid)
    const a0 = canonical ? hex16(uuid, 0) : -1, a1 = hex16(uuid, 4)
    const b0 = hex16(uuid, 9), b1 = hex16(uuid, 14)
    const c0 = hex16(uuid, 19), c1 = hex16(uuid, 24)
    const d0 = hex16(uuid, 28), d1 = hex16(uuid, 32)
    if (!canonical || (a0 | a1 | b0 | b1 | c0 | c1 | d0 | d1) < 0) {
      const other = (this.other ??= new Map())
      const i = other.get(uuid)
      if (i !== undefined) return this.placeOf(i)
      other.set(uuid, this.append(0, 0, 0, 0, lineNumber, offset, length))
      return undefined
    }
    const a = ((a0 << 16) | a1) >>> 0
    const b = ((b0 << 16) | b1) >>> 0
    const c = ((c0 << 16) | c1) >>> 0
    const d = ((d0 << 16) | d1) >>> 0
    const mask = this.table.length - 1
    let h = (Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(c ^ (d >>> 7), 0xc2b2ae35) ^ d) & mask
    for (;;) {
      const slot = this.table[h]
      if (slot === 0) break
      const k = 4 * (slot - 1)
      if (this.keys[k] === a && this.keys[k + 1] === b && this.keys[k + 2] === c && this.keys[k + 3] === d) return this.placeOf(slot - 1)
      h = (h + 1) & mask
    }
    const i = this.append(a, b, c, d, lineNumber, offset, length)
    this.table[h] = i + 1
    if (2 * this.count > this.table.length) this.rehash()
    return undefined
  }

  private placeOf(i: number): FirstPlace {
    return { lineNumber: this.lines[i], offset: this.offsets[i], length: this.lengths[i] }
  }

  private append(a: number, b: number, c: number, d: number, lineNumber: number, offset: number, length: number): number {
    const i = this.count++
    if (i >= this.lines.length) {
      const n = this.lines.length * 2
      this.keys = grow(this.keys, 4 * n)
      this.lines = grow(this.lines, n)
      this.offsets = grow(this.offsets, n)
      this.lengths = grow(this.lengths, n)
    }
    this.keys[4 * i] = a
    this.keys[4 * i + 1] = b
    this.keys[4 * i + 2] = c
    this.keys[4 * i + 3] = d
    this.lines[i] = lineNumber
    this.offsets[i] = offset
    this.lengths[i] = length
    return i
  }

  /** Double the table and place every canonical uuid again (ids of the map have no slot). */
  private rehash(): void {
    const table = new Uint32Array(this.table.length * 2)
    const mask = table.length - 1
    const others = new Set(this.other?.values() ?? [])
    for (let i = 0; i < this.count; i++) {
      if (others.has(i)) continue
      const k = 4 * i
      const a = this.keys[k], b = this.keys[k + 1], c = this.keys[k + 2], d = this.keys[k + 3]
      let h = (Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(c ^ (d >>> 7), 0xc2b2ae35) ^ d) & mask
      while (table[h] !== 0) h = (h + 1) & mask
      table[h] = i + 1
    }
    this.table = table
  }
}

const grow = <T extends Uint32Array | Float64Array>(a: T, n: number): T => {
  const g = new (a.constructor as new(n: number) => T)(n)
  g.set(a)
  return g
}

/**
 * Whether two lines holding records under one uuid are the same record
 * repeated: the same bytes, else the same JSON value (members in the same
 * order, whitespace between tokens aside). Called only when a uuid repeats.
 */
export const sameRecordBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)) return true
  try {
    const td = new TextDecoder()
    return JSON.stringify(JSON.parse(td.decode(a))) === JSON.stringify(JSON.parse(td.decode(b)))
  } catch {
    return false
  }
}

/** What one file's pass found of repeated and reused uuids. */
export interface RepeatCounts {
  /** Lines skipped: a record repeated as it is. */
  repeated: number
  /** Lines kept that reuse an earlier record's uuid with other content. */
  reused: number
  /** The first reuse: its line, the first line of its uuid, and the uuid. */
  firstReuse: { readonly lineNumber: number; readonly firstLineNumber: number; readonly uuid: string } | undefined
}

/** No repeat and no reuse yet. */
export const emptyRepeatCounts = (): RepeatCounts => ({ repeated: 0, reused: 0, firstReuse: undefined })

/**
 * The `REPEATED_RECORDS_SKIPPED` diagnostic of a file whose `count` (> 0)
 * lines repeated an earlier line's record as it is (the same `uuid`, the
 * same content); `label` names the file. Details `{count}`, as Muse Code's.
 */
export const repeatedRecordsDiagnostic = (count: number, label: string): Diagnostic => ({
  code: "REPEATED_RECORDS_SKIPPED",
  message: `${count} record(s) of ${label} repeated as they are (the same uuid, the same content) skipped; each is kept once.`,
  details: { count }
})

/** The diagnostic code of records kept under a uuid an earlier record of their file has, with other content. */
export const RECORD_UUID_REUSED = "RECORD_UUID_REUSED"

/**
 * The `RECORD_UUID_REUSED` diagnostic of a file whose `count` (> 0) records
 * reuse an earlier record's uuid with other content, naming the first such
 * line and the line it reuses the uuid of (details `{count, uuid, line,
 * firstLine}`, 1-based line numbers). Both records are kept.
 */
export const reusedUuidDiagnostic = (
  count: number,
  first: NonNullable<RepeatCounts["firstReuse"]>,
  label: string
): Diagnostic => ({
  code: RECORD_UUID_REUSED,
  message: `${count} record(s) of ${label} reuse the uuid of an earlier record with other content; both are kept. ` +
    `First: line ${first.lineNumber} reuses uuid ${first.uuid} of line ${first.firstLineNumber}.`,
  details: { count, uuid: first.uuid, line: first.lineNumber, firstLine: first.firstLineNumber }
})

/** The diagnostics of one file's counts (none when it had no repeat and no reuse). */
export const repeatDiagnostics = (counts: RepeatCounts, label: string): Array<Diagnostic> => [
  ...(counts.repeated > 0 ? [repeatedRecordsDiagnostic(counts.repeated, label)] : []),
  ...(counts.reused > 0 && counts.firstReuse !== undefined ? [reusedUuidDiagnostic(counts.reused, counts.firstReuse, label)] : [])
]
