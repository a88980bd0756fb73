/**
 * One byte range of a zone's `output` scanned into groups of lines (issue
 * 13): the line classification of the incremental scan (seed 002,
 * `scan_line`, `line_session_id`, `init_cwd`), with consecutive lines of one
 * owner folded into one group, so that a zone read in several ranges (by
 * several workers, `./parallel-scan.ts`) is put back together by
 * {@link applyRange} group by group, the same as a scan of the whole range
 * line by line.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import {
  factsOfLine,
  cachedDeltaLine,
  isStreamEventAt,
  STREAM_EVENT_PREFIX_TEXT,
  lineFactsText,
  makeSessionIdCache,
  READ_CHUNK,
  type ScanAcc,
  scanGroup,
  streamEventSessionIdAt,
  streamEventSessionIdText
} from "../../domain/agentmux/record.js"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { StoreConnection, StoreFile } from "./TranscriptStore.js"
import { eachLine, eachLineInChunks } from "./zone-reader.js"

const STREAM_EVENT_PREFIX_LENGTH = STREAM_EVENT_PREFIX_TEXT.length

/** The shortest range classified over its bytes rather than its latin1 text (see {@link scanRange}). */
const BYTES_PATH_MIN = 16 * 1024 * 1024

/** Values per group in {@link RangeScan.groups}. */
export const GROUP_WIDTH = 5

/**
 * What a range's scan found, as plain data (it crosses a worker boundary):
 * - `groups`: flat, {@link GROUP_WIDTH} numbers a group of consecutive lines
 *   of one owner: `id` (an index into `ids`, -1: unowned lines), `start`,
 *   `end` (bytes of `output`, `end` past the last `\n`), `lines`, `cwd` (an
 *   index into `cwds`: the last working directory an init line among them
 *   reported, -1: none).
 * - `unreadable`, `missingPartLines`, `oversized`: lines counted as the scan counts them.
 * - `readTo`: just past the last complete line; `bytesRead`: bytes fetched;
 *   `missing`: byte ranges whose parts are missing (merged when adjacent).
 */
export const RangeScan = Schema.Struct({
  ids: Schema.Array(Schema.String),
  cwds: Schema.Array(Schema.String),
  groups: Schema.Array(Schema.Number),
  unreadable: Schema.Number,
  missingPartLines: Schema.Number,
  oversized: Schema.Number,
  readTo: Schema.Number,
  bytesRead: Schema.Number,
  missing: Schema.Array(Schema.Struct({ start: Schema.Number, end: Schema.Number }))
})
export type RangeScan = typeof RangeScan.Type

/** How {@link scanRange} reads (for tests: both ways give the same scan). */
export interface RangeScanOptions {
  /** The shortest range classified over its bytes (default 16 MiB); shorter ones over their latin1 text. */
  readonly bytesPathMin?: number
  /** Bytes read per step (default `READ_CHUNK`, 4 MiB). */
  readonly stepBytes?: number
}

/**
 * Scan the complete lines of `file` in `[start, end)` (see `eachLine`: a
 * trailing unterminated line is left, a line over a missing part or longer
 * than `maxLineBytes` is counted and unowned): a streaming delta by its
 * first bytes and its session from its last key, any other line parsed.
 * Two ways, with the same answers: a short range (a rescan's append) over
 * its step's latin1 text (string built-ins, fast from a process's first
 * line, see `isStreamEventText`); a long one (a first scan) over its bytes
 * with this module's loops (`isStreamEventAt`, `streamEventSessionIdAt`
 * with a cache that skips Node's native searches): no latin1 copy of each
 * 4 MiB step, which cost a first scan ~40% of its CPU (issue 13).
 */
export const scanRange = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  end: number,
  maxLineBytes: number,
  options: RangeScanOptions = {}
): Effect.Effect<RangeScan, StoreUnavailable> =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    const idIndex = new Map<string, number>()
    const cwds: Array<string> = []
    const groups: Array<number> = []
    let unreadable = 0
    let missingPartLines = 0
    let oversized = 0
    // the open group: its owner (undefined: none open yet), where it starts and ends, lines, last cwd
    let gSid: string | null | undefined = undefined
    let gStart = 0
    let gEnd = 0
    let gLines = 0
    let gCwd: string | null = null
    const close = () => {
      if (gSid === undefined) return
      let id = -1
      if (gSid !== null) {
        const known = idIndex.get(gSid)
        if (known !== undefined) id = known
        else {
          id = ids.length
          idIndex.set(gSid, id)
          ids.push(gSid)
        }
      }
      let cwd = -1
      if (gCwd !== null) {
        cwd = cwds.length
        cwds.push(gCwd)
      }
      groups.push(id, gStart, gEnd, gLines, cwd)
    }
    const add = (sid: string | null, cwd: string | null, lineStart: number, lineEnd: number) => {
      if (sid === gSid && gEnd === lineStart) {
        gEnd = lineEnd
        gLines++
        if (cwd !== null) gCwd = cwd
      } else {
        close()
        gSid = sid
        gStart = lineStart
        gEnd = lineEnd
        gLines = 1
        gCwd = cwd
      }
    }
    const stepBytes = options.stepBytes ?? READ_CHUNK
    if (Math.min(end, file.size) - start >= (options.bytesPathMin ?? BYTES_PATH_MIN)) {
      // A long range (a first scan): each line classified over its bytes by the record's loops (no latin1 copy of each
      // step), read a part at a time as the store gives them (no copy of the parts into one step buffer).
      const bytesCache = makeSessionIdCache(0)
      const read = yield* eachLineInChunks(conn, file, start, end, maxLineBytes, (buf, from, to, lineStart, lineEnd, problem) => {
        let sid: string | null = null
        let cwd: string | null = null
        if (buf === null) {
          if (problem === "missing-part") missingPartLines++
          else oversized++
        } else if (isStreamEventAt(buf, from, to, bytesCache)) {
          sid = streamEventSessionIdAt(buf, from, to, bytesCache)
        } else {
          const latin1 = buf.toString("latin1", from, to)
          const facts = factsOfLine(latin1, buf, from, to)
          if (facts._tag === "unreadable") {
            if (latin1.trim().length > 0) unreadable++
          } else {
            sid = facts.sessionId
            if (facts._tag === "parsed") cwd = facts.cwd
          }
        }
        add(sid, cwd, lineStart, lineEnd)
      }, stepBytes)
      close()
      return { ids, cwds, groups, unreadable, missingPartLines, oversized, readTo: read.readTo, bytesRead: read.bytesRead, missing: read.missing }
    }
    const cache = makeSessionIdCache()
    const runs = new Map<string, RegExp>()
    const read = yield* eachLine(conn, file, start, end, maxLineBytes, (buf, from, to, lineStart, lineEnd, problem, text) => {
      let sid: string | null = null
      let cwd: string | null = null
      if (buf === null || text === undefined) {
        if (problem === "missing-part") missingPartLines++
        else oversized++
      } else if (to - from >= STREAM_EVENT_PREFIX_LENGTH && text.startsWith(STREAM_EVENT_PREFIX_TEXT, from)) {
        // (isStreamEventText, inlined: this runs once a line)
        sid = streamEventSessionIdText(text, buf, from, to, cache)
      } else {
        const facts = lineFactsText(text, buf, from, to, cache)
        if (facts._tag === "unreadable") {
          if (text.slice(from, to).trim().length > 0) unreadable++
        } else {
          sid = facts.sessionId
          if (facts._tag === "parsed") cwd = facts.cwd
        }
      }
      if (sid === gSid && gEnd === lineStart) {
        gEnd = lineEnd
        gLines++
        if (cwd !== null) gCwd = cwd
      } else {
        close()
        gSid = sid
        gStart = lineStart
        gEnd = lineEnd
        gLines = 1
        gCwd = cwd
      }
    }, stepBytes, true, undefined, true, (text, from, base) => {
      // The deltas that go on the open group (its session the cached id's, from the line right after it) are
      // taken by the sink's own test (`cachedDeltaLine`), one match a line, without a call of the sink a line
      // (issue 13: a rescan's append is runs of one session's deltas). A match a line rather than one match of the
      // whole run: that one's backtracking state grew a step a line, ~20% of this step's CPU over a 1 MiB append.
      const raw = cache.raw
      if (typeof gSid !== "string" || gSid !== cache.id || gEnd !== base + from || raw === null) return from
      let line = runs.get(raw)
      if (line === undefined) runs.set(raw, line = cachedDeltaLine(raw))
      let at = from
      let lines = 0
      line.lastIndex = at
      while (line.test(text)) {
        at = line.lastIndex
        lines++
      }
      if (lines === 0) return from
      gEnd = base + at
      gLines += lines
      return at
    })
    close()
    return {
      ids,
      cwds,
      groups,
      unreadable,
      missingPartLines,
      oversized,
      readTo: read.readTo,
      bytesRead: read.bytesRead,
      missing: read.missing
    }
  })

/**
 * Fold a range's scan into a scan's working copy, group by group
 * (`scanGroup`): the same as each of its lines given to `scanLine` in turn.
 * Ranges are applied in record order, each starting where the last ended.
 */
export const applyRange = (acc: ScanAcc, r: RangeScan): void => {
  const g = r.groups
  for (let i = 0; i < g.length; i += GROUP_WIDTH) {
    const id = g[i]
    const cwd = g[i + 4]
    scanGroup(acc, id < 0 ? null : r.ids[id], g[i + 1], g[i + 2], g[i + 3], cwd < 0 ? null : r.cwds[cwd])
  }
  acc.unreadable += r.unreadable
  acc.missingPartLines += r.missingPartLines
  acc.oversized += r.oversized
}

/** Byte ranges of several reads in order, adjacent ones merged. */
export const mergeMissing = (
  lists: ReadonlyArray<ReadonlyArray<{ readonly start: number; readonly end: number }>>
): Array<{ start: number; end: number }> => {
  const out: Array<{ start: number; end: number }> = []
  for (const list of lists) {
    for (const m of list) {
      const last = out[out.length - 1]
      if (last !== undefined && last.end === m.start) last.end = m.end
      else out.push({ start: m.start, end: m.end })
    }
  }
  return out
}
