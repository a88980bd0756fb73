/**
 * The incremental scan of an agent's record (seed 002, `scan_zone`,
 * `zone_stamps`): list the agent's own zones, read what was appended to each
 * since the state database last saw it, give lines to sessions, date each
 * run from the timestamp sidecar, and save how far each zone was read.
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import {
  beginScan,
  closeArchive,
  emptyScan,
  endScan,
  OUTPUT_FILE,
  type OwnZone,
  ownZone,
  type Run,
  TSIDX_FILE,
  type ZoneScan,
  zoneRank
} from "../../domain/agentmux/record.js"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { Diagnostic } from "../../domain/model.js"
import type { ScanStateShape, StoredScans } from "./ScanState.js"
import type { StoreConnection, StoreFile } from "./TranscriptStore.js"
import { scanRanges } from "./parallel-scan.js"
import { applyRange, mergeMissing } from "./range-scan.js"
import { makeStamps, type Stamps } from "./zone-reader.js"

/** Bytes at the start of a zone whose digest tells a rewritten zone from a grown one. */
const HEAD_BYTES = 4096

/** One of the agent's zones, as scanned now. */
export interface ScannedZone {
  /** The store that holds it (its real path) and its open connection. */
  readonly store: string
  readonly connection: StoreConnection
  readonly zone: OwnZone
  readonly output: StoreFile
  readonly tsidx: StoreFile | undefined
  readonly scan: ZoneScan
  readonly stamps: Stamps
  /** The sessions of the runs this scan created or extended (every run's, when the zone was read from the start). */
  readonly changed: ReadonlySet<string>
}

/**
 * Why a zone was read again from the start: the zone changed under the
 * stored scan (`shrunk`, `recreated`, `generation-changed`, `rewritten`), or
 * the stored scan itself could not be trusted (`state-untrusted`: it does not
 * decode, or its numbers do not hold together).
 */
export type ResetReason = "shrunk" | "recreated" | "generation-changed" | "rewritten" | "state-untrusted"

/** What one zone's scan did, for receipts and tests (bytes). */
export interface ZoneReceipt {
  readonly zone: string
  readonly size: number
  readonly readFrom: number
  readonly readTo: number
  readonly bytesRead: number
  readonly reset: ResetReason | null
  /** Byte ranges of `output` read in this scan whose parts are missing from the store. */
  readonly missing: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

/** A run with its store (real path) and zone, as discovery reports it. */
export interface SessionRun extends Run {
  readonly store: string
  readonly zone: OwnZone
}

/** A session as the agent's record holds it (seed 002, `RecordSession`). */
export interface RecordSession {
  readonly sessionId: string
  readonly cwd: string | null
  readonly firstMs: number | null
  readonly lastMs: number | null
  readonly lines: number
  /** Runs in record order (zone by zone in time, a channel's store before the global one, then by offset). */
  readonly runs: ReadonlyArray<SessionRun>
}

/**
 * What a scan derives from each session for its caller's report (the
 * discovery entry of a session), kept with the scan state so that a rescan
 * derives it again only for the sessions whose runs it changed (issue 13).
 * `save` gives what is kept of a session (JSON data: what costs to make,
 * such as ids and times); `entry` makes the entry from it, or null when it is
 * not what `save` gives (the kept report is then not used). `version` names
 * the shape of what `save` gives: a kept report of another version is not used.
 */
export interface ReportSpec {
  readonly version: string
  readonly save: (session: RecordSession) => unknown
  readonly entry: (sessionId: string, saved: unknown) => unknown | null
}

/** The result of scanning an agent's record. */
export interface AgentScan {
  readonly zones: ReadonlyArray<ScannedZone>
  /** Sessions, latest activity first (grouped when first asked for). */
  readonly sessions: ReadonlyArray<RecordSession>
  /** With a {@link ReportSpec}: `entry` of each session, in the order of `sessions`. */
  readonly entries?: ReadonlyArray<unknown>
  readonly receipts: ReadonlyArray<ZoneReceipt>
  readonly ignoredZones: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

const digest = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")

const headOf = (conn: StoreConnection, file: StoreFile, length: number) =>
  Effect.map(conn.read(file, 0, length), (r) => ({ length: r.bytes.length, digest: digest(r.bytes) }))

const resetReason = (
  conn: StoreConnection,
  file: StoreFile,
  prev: ZoneScan
): Effect.Effect<ResetReason | null, StoreUnavailable> =>
  Effect.gen(function*() {
    if (prev.readTo === 0 && prev.headLength === 0) return null
    if (file.size < prev.readTo) return "shrunk"
    if (prev.createdTs !== null && file.createdTs !== null && prev.createdTs !== file.createdTs) return "recreated"
    if (prev.generation !== null && file.generation !== null && prev.generation !== file.generation) {
      return "generation-changed"
    }
    if (prev.headLength > 0) {
      const head = yield* headOf(conn, file, prev.headLength)
      if (head.length !== prev.headLength || head.digest !== prev.headDigest) return "rewritten"
    }
    return null
  })

/** Scan one zone from where `prev` stopped (or from 0 after a reset). */
const scanZone = (
  conn: StoreConnection,
  zone: OwnZone,
  output: StoreFile,
  tsidx: StoreFile | undefined,
  prev: ZoneScan,
  maxLineBytes: number,
  untrusted: boolean
): Effect.Effect<{ scanned: ScannedZone; receipt: ZoneReceipt }, StoreUnavailable> =>
  Effect.gen(function*() {
    const reset = untrusted ? "state-untrusted" : yield* resetReason(conn, output, prev)
    const base = reset === null ? prev : emptyScan
    const acc = beginScan(base)
    // Read in ranges (by worker threads for a long range of a private copy, `parallel-scan.ts`), folded in order.
    const ranges = yield* scanRanges(conn, output, base.readTo, output.size, maxLineBytes)
    for (const r of ranges) applyRange(acc, r)
    const read = {
      readTo: ranges[ranges.length - 1].readTo,
      bytesRead: ranges.reduce((n, r) => n + r.bytesRead, 0),
      missing: mergeMissing(ranges.map((r) => r.missing))
    }
    if (zone._tag === "archive") closeArchive(acc, read.readTo)
    const stamps = makeStamps(conn, tsidx)
    for (const i of acc.touched) {
      const run = acc.runs[i]
      run.firstMs = yield* stamps.at(run.start)
      run.lastMs = yield* stamps.at(run.end - 1)
    }
    let headLength = base.headLength
    let headDigest = base.headDigest
    const wanted = Math.min(read.readTo, HEAD_BYTES)
    if (wanted > headLength) {
      const head = yield* headOf(conn, output, wanted)
      headLength = head.length
      headDigest = head.digest
    }
    const scan = endScan(acc, {
      readTo: read.readTo,
      createdTs: output.createdTs,
      generation: output.generation,
      headLength,
      headDigest
    })
    const changed = new Set<string>()
    for (const i of acc.touched) changed.add(scan.runs[i].sessionId)
    return {
      scanned: { store: conn.path, connection: conn, zone, output, tsidx, scan, stamps, changed },
      receipt: {
        zone: zone.zoneId,
        size: output.size,
        readFrom: base.readTo,
        readTo: read.readTo,
        bytesRead: read.bytesRead,
        reset,
        missing: read.missing
      }
    }
  })

const later = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b))
const earlier = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b))

/** Sessions, latest activity first (ties: later in the record first). */
const byActivity = (storeRank: (store: string) => number) => (a: RecordSession, b: RecordSession): number => {
  if (a.lastMs !== b.lastMs) {
    if (a.lastMs === null) return 1
    if (b.lastMs === null) return -1
    return b.lastMs - a.lastMs
  }
  const position = (s: RecordSession) => {
    const r = s.runs[s.runs.length - 1]
    return [zoneRank(r.zone), storeRank(r.store), r.end] as const
  }
  const [za, sa, ea] = position(a)
  const [zb, sb, eb] = position(b)
  return zb !== za ? zb - za : sb !== sa ? sb - sa : eb - ea
}

/** A session from its runs (in record order): its times and line count are its runs'. */
const sessionOf = (sessionId: string, cwd: string | null, runs: ReadonlyArray<SessionRun>): RecordSession => ({
  sessionId,
  cwd,
  firstMs: runs.reduce<number | null>((m, r) => earlier(m, r.firstMs), null),
  lastMs: runs.reduce<number | null>((m, r) => later(m, r.lastMs), null),
  lines: runs.reduce((n, r) => n + r.lines, 0),
  runs
})

/**
 * Group the zones' runs into sessions, latest activity first (ties: later in
 * the record first). The zones may come from several stores (the global
 * store and channels' own stores, issue 18): a session id seen in any of
 * them is one session, with the runs of all. Record order: zones by time
 * (archives by their archive ms, current zones last), zones of equal rank by
 * `storeRank` (lower first), then by offset.
 */
export const sessionsOf = (
  zones: ReadonlyArray<ScannedZone>,
  storeRank: (store: string) => number = () => 0,
  /** Only these sessions (all when undefined). */
  only?: ReadonlySet<string>
): ReadonlyArray<RecordSession> => {
  const ordered = [...zones].sort((a, b) => zoneRank(a.zone) - zoneRank(b.zone) || storeRank(a.store) - storeRank(b.store))
  const byId = new Map<string, { runs: Array<SessionRun>; cwd: string | null }>()
  for (const z of ordered) {
    for (const r of z.scan.runs) {
      if (only !== undefined && !only.has(r.sessionId)) continue
      let s = byId.get(r.sessionId)
      if (s === undefined) byId.set(r.sessionId, s = { runs: [], cwd: null })
      // Spelled out: a spread of the stored run cost ~15 µs and ~1 KB a run (issue 13: a rescan's sessions of many runs).
      s.runs.push({
        sessionId: r.sessionId,
        start: r.start,
        end: r.end,
        lines: r.lines,
        firstMs: r.firstMs,
        lastMs: r.lastMs,
        store: z.store,
        zone: z.zone
      })
    }
    if (only !== undefined) {
      for (const sid of only) {
        const s = byId.get(sid)
        if (s !== undefined && Object.hasOwn(z.scan.cwd, sid)) s.cwd = z.scan.cwd[sid]
      }
      continue
    }
    for (const [sid, cwd] of Object.entries(z.scan.cwd)) {
      const s = byId.get(sid)
      if (s !== undefined) s.cwd = cwd
    }
  }
  return [...byId].map(([sessionId, s]) => sessionOf(sessionId, s.cwd, s.runs)).sort(byActivity(storeRank))
}

/**
 * Whether a session has runs in two or more of `zones` (only then can
 * {@link dropCopies} find a copy): one pass over the zones' runs.
 */
export const spansZones = (zones: ReadonlyArray<ScannedZone>): boolean => {
  const first = new Map<string, ScannedZone>()
  for (const z of zones) {
    for (const r of z.scan.runs) {
      const f = first.get(r.sessionId)
      if (f === undefined) first.set(r.sessionId, z)
      else if (f !== z) return true
    }
  }
  return false
}

/**
 * Drop the runs that are byte copies of another zone's run of the same
 * session: AgentMux archives by copying a zone's `output` into an archive
 * zone (of another store: `archive_global_current`, into a channel's; or of
 * the same store: `archive_session`) and then clearing the source; a crash
 * between the two leaves both ("current wins"). A run whose bytes equal the
 * first bytes of a run of the same session in another zone is that copy, and
 * is left out; of two equal runs the later in record order is kept. Only
 * sessions with runs in two or more zones are read (their runs' bytes,
 * compared by sha256). Runs of one zone are never copies of each other (each
 * is its own bytes of the zone's output). A fresh-user test of session 20
 * (F1) found the same-store copy counted twice (its results' costs too).
 */
export const dropCopies = (
  sessions: ReadonlyArray<RecordSession>,
  zones: ReadonlyArray<ScannedZone>,
  storeRank: (store: string) => number = () => 0
): Effect.Effect<ReadonlyArray<RecordSession>, StoreUnavailable> =>
  Effect.gen(function*() {
    const zoneOf = new Map(zones.map((z) => [`${z.store}\u0000${z.zone.zoneId}`, z]))
    const digestOf = (r: SessionRun, length: number) => {
      const z = zoneOf.get(`${r.store}\u0000${r.zone.zoneId}`)!
      return Effect.map(z.connection.read(z.output, r.start, length), (b) => digest(b.bytes))
    }
    let changed = false
    const out: Array<RecordSession> = []
    for (const s of sessions) {
      const zoneKey = (r: SessionRun) => `${r.store}\u0000${r.zone.zoneId}`
      if (new Set(s.runs.map(zoneKey)).size < 2) {
        out.push(s)
        continue
      }
      const dropped = new Set<number>()
      for (const [i, a] of s.runs.entries()) {
        const lenA = a.end - a.start
        for (const [j, b] of s.runs.entries()) {
          if (i === j || dropped.has(j) || zoneKey(a) === zoneKey(b)) continue
          const lenB = b.end - b.start
          // equal runs: the earlier in record order is the copy
          if (lenB < lenA || (lenB === lenA && j < i)) continue
          if ((yield* digestOf(a, lenA)) === (yield* digestOf(b, lenA))) {
            dropped.add(i)
            break
          }
        }
      }
      if (dropped.size === 0) {
        out.push(s)
        continue
      }
      changed = true
      out.push(sessionOf(s.sessionId, s.cwd, s.runs.filter((_, i) => !dropped.has(i))))
    }
    return changed ? out.sort(byActivity(storeRank)) : sessions
  })

/**
 * Scan agent `uid`'s own zones incrementally and save the new state. Zones
 * whose id starts with `agent:<uid>:` but are not the agent's own (seed 002)
 * are listed in `ignoredZones` and never read.
 */
export const scanAgent = (
  conn: StoreConnection,
  states: ScanStateShape,
  uid: string,
  maxLineBytes: number,
  report?: ReportSpec
): Effect.Effect<AgentScan, StoreUnavailable> =>
  states.session((state) => scanWith(conn, state, uid, maxLineBytes, report))

/**
 * A saved report's item: a session's id, its sort position (last activity,
 * its last run's zone rank and end) and what `ReportSpec.save` kept of it.
 */
type ReportItem = readonly [sessionId: string, lastMs: number | null, rank: number, end: number, saved: unknown]

/** An item with its saved JSON text (null: derived now, not yet written) and its entry. */
export interface Kept {
  readonly item: ReportItem
  readonly text: string | null
  readonly entry: unknown
}

const itemOf = (spec: ReportSpec, s: RecordSession): Kept => {
  const last = s.runs[s.runs.length - 1]
  const saved = spec.save(s)
  return { item: [s.sessionId, s.lastMs, zoneRank(last.zone), last.end, saved], text: null, entry: spec.entry(s.sessionId, saved) }
}

/** {@link byActivity} of one store's sessions, by their items. */
const byItemActivity = ({ item: a }: Kept, { item: b }: Kept): number =>
  a[1] !== b[1] ? (a[1] === null ? 1 : b[1] === null ? -1 : b[1] - a[1]) : b[2] !== a[2] ? b[2] - a[2] : b[3] - a[3]

/**
 * A saved report's text: `{"v":<version>,"items":[`, then one item's JSON a
 * line (lines joined by `,\n`; JSON text never holds a raw newline), then
 * `]}`: one JSON document, whose item texts an unchanged item keeps (not
 * written again).
 */
const reportText = (version: string, items: ReadonlyArray<Kept>): string =>
  `${reportHead(version)}\n${items.map((k) => k.text ?? JSON.stringify(k.item)).join(",\n")}\n]}`

const reportHead = (version: string) => `{"v":${JSON.stringify(version)},"items":[`

/**
 * A saved report's items, or null when it is not one of the spec's version
 * with items of the right shape, each session once, each making an entry.
 */
const parseReport = (body: string, spec: ReportSpec): Array<Kept> | null => {
  const head = reportHead(spec.version)
  if (!body.startsWith(`${head}\n`) || !body.endsWith("\n]}")) return null
  let o: unknown
  try {
    o = JSON.parse(body)
  } catch {
    return null
  }
  const items = (o as { items?: unknown }).items
  if (!Array.isArray(items)) return null
  const inner = body.slice(head.length + 1, body.length - 3)
  const texts = inner.length === 0 ? [] : inner.split(",\n")
  if (texts.length !== items.length) return null
  const seen = new Set<string>()
  const out: Array<Kept> = []
  for (let i = 0; i < items.length; i++) {
    const it: unknown = items[i]
    if (
      !Array.isArray(it) || it.length !== 5 || typeof it[0] !== "string" || seen.has(it[0]) ||
      !(it[1] === null || typeof it[1] === "number") || typeof it[2] !== "number" || typeof it[3] !== "number"
    ) return null
    const entry = spec.entry(it[0], it[4])
    if (entry === null) return null
    seen.add(it[0])
    out.push({ item: it as unknown as ReportItem, text: texts[i], entry })
  }
  return out
}

/**
 * The report's items after this scan: the saved items of the sessions this
 * scan did not change, when the saved report was derived from the very scans
 * this one started from (its digest), every zone was scanned on from them
 * (none read again, none new, none gone) and it parses; the changed sessions'
 * items derived again. Else every item derived again.
 */
const reportItems = (
  spec: ReportSpec,
  stored: StoredScans,
  zones: ReadonlyArray<ScannedZone>,
  receipts: ReadonlyArray<ZoneReceipt>
): Array<Kept> => {
  const saved = stored.report !== null && stored.report.scans === stored.digest && stored.untrusted.size === 0 &&
      zones.length === stored.scans.size && zones.every((z) => stored.scans.has(z.zone.zoneId)) &&
      receipts.every((r) => r.reset === null)
    ? parseReport(stored.report.body, spec)
    : null
  if (saved === null) return sessionsOf(zones).map((s) => itemOf(spec, s))
  const changed = new Set<string>()
  for (const z of zones) for (const sid of z.changed) changed.add(sid)
  if (changed.size === 0) return saved
  const items = saved.filter((k) => !changed.has(k.item[0]))
  const derived = sessionsOf(zones, undefined, changed).map((s) => itemOf(spec, s))
  return withItems(items, derived)
}

/**
 * `kept` and `added` in {@link byItemActivity}'s order, as `[...kept, ...added].sort(byItemActivity)` (a stable
 * sort) orders them: when `kept` is already in that order (a saved report is written sorted), each added item is
 * put after the last item that does not sort after it (a binary search), so a rescan that changed a few sessions
 * compares a few items rather than sorting the ~350 again; else the whole sort.
 */
export const withItems = (kept: Array<Kept>, added: ReadonlyArray<Kept>): Array<Kept> => {
  for (let i = 1; i < kept.length; i++) {
    if (byItemActivity(kept[i - 1], kept[i]) > 0) return [...kept, ...added].sort(byItemActivity)
  }
  // `added` sorted among itself first (stably), so that equal added items keep their order, after equal kept ones.
  const out = kept
  let from = 0
  for (const k of [...added].sort(byItemActivity)) {
    let lo = from
    let hi = out.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (byItemActivity(out[mid], k) <= 0) lo = mid + 1
      else hi = mid
    }
    out.splice(lo, 0, k)
    from = lo + 1
  }
  return out
}

const scanWith = (
  conn: StoreConnection,
  state: ScanStateShape,
  uid: string,
  maxLineBytes: number,
  report: ReportSpec | undefined
): Effect.Effect<AgentScan, StoreUnavailable> =>
  Effect.gen(function*() {
    const prefix = `agent:${uid}:`
    const files = yield* conn.listFiles(prefix)
    const zoneFiles = new Map<string, { output?: StoreFile; tsidx?: StoreFile }>()
    const ignored = new Set<string>()
    for (const f of files) {
      if (ownZone(uid, f.zoneId) === null) {
        ignored.add(f.zoneId)
        continue
      }
      const entry = zoneFiles.get(f.zoneId) ?? {}
      if (f.name === OUTPUT_FILE) entry.output = f
      else if (f.name === TSIDX_FILE) entry.tsidx = f
      zoneFiles.set(f.zoneId, entry)
    }
    const stored = yield* state.load(conn.path, prefix)
    const zones: Array<ScannedZone> = []
    const receipts: Array<ZoneReceipt> = []
    const own = [...zoneFiles]
      .map(([id, fs]) => ({ zone: ownZone(uid, id)!, ...fs }))
      .sort((a, b) => zoneRank(a.zone) - zoneRank(b.zone))
    for (const z of own) {
      if (z.output === undefined) continue
      const { receipt, scanned } = yield* scanZone(
        conn,
        z.zone,
        z.output,
        z.tsidx,
        stored.scans.get(z.zone.zoneId) ?? emptyScan,
        maxLineBytes,
        stored.untrusted.has(z.zone.zoneId)
      )
      zones.push(scanned)
      receipts.push(receipt)
    }
    const items = report === undefined ? undefined : reportItems(report, stored, zones, receipts)
    yield* state.commit(
      conn.path,
      prefix,
      new Map(zones.map((z) => [z.zone.zoneId, z.scan])),
      items === undefined ? undefined : reportText(report!.version, items)
    )
    const diagnostics: Array<Diagnostic> = []
    for (const [i, z] of zones.entries()) {
      const s = z.scan
      const missing = receipts[i].missing
      for (const f of [z.output, z.tsidx]) {
        if (f?.sizeNotValid === undefined) continue
        diagnostics.push({
          code: "FILE_SIZE_NOT_VALID",
          message: `${z.zone.zoneId}: the size the store states for ${f.name} (${f.sizeNotValid}) is no byte count; read as far as its parts go (${f.size} byte(s)).`,
          details: { zone: z.zone.zoneId, file: f.name, stated: f.sizeNotValid, readAs: f.size }
        })
      }
      if (s.missingPartLines > 0 || missing.length > 0) {
        diagnostics.push({
          code: "MISSING_PART",
          message: `${z.zone.zoneId}: parts of output are missing from the store; ${s.missingPartLines} line(s) on them were not read${
            missing.length > 0 && s.readTo < z.output.size ? " and reading stops at the gap" : ""
          }.`,
          details: { zone: z.zone.zoneId, lines: s.missingPartLines, ranges: missing }
        })
      }
      if (s.unreadable > 0) {
        diagnostics.push({
          code: "UNREADABLE_LINES",
          message: `${z.zone.zoneId}: ${s.unreadable} line(s) are not JSON and were skipped.`,
          details: { zone: z.zone.zoneId, lines: s.unreadable }
        })
      }
      if (s.oversized > 0) {
        diagnostics.push({
          code: "OVERSIZED_LINES",
          message: `${z.zone.zoneId}: ${s.oversized} line(s) exceed the record limit and were skipped.`,
          details: { zone: z.zone.zoneId, lines: s.oversized }
        })
      }
      if (s.pending !== null) {
        diagnostics.push({
          code: "UNOWNED_LINES",
          message: z.zone._tag === "current"
            ? `${z.zone.zoneId}: ${s.pending.lines} line(s) without a session_id wait for the next line that has one.`
            : `${z.zone.zoneId}: ${s.pending.lines} line(s) without a session_id belong to no session.`,
          details: { zone: z.zone.zoneId, lines: s.pending.lines, offset: s.pending.start }
        })
      }
      // Bytes past `readTo` on a missing part are not in the store: MISSING_PART says reading stops at the gap
      // (tester16 finding 8: a `db_wave_file.size` larger than the parts).
      if (s.readTo < z.output.size && !missing.some((m) => m.end > s.readTo)) {
        diagnostics.push({
          code: "PARTIAL_LINE",
          message: `${z.zone.zoneId}: the last ${
            z.output.size - s.readTo
          } byte(s) are an unterminated line; they are read when it is complete.`,
          details: { zone: z.zone.zoneId, offset: s.readTo }
        })
      }
    }
    for (const r of receipts) {
      if (r.reset !== null) {
        diagnostics.push({
          code: "ZONE_READ_AGAIN",
          message: `${r.zone}: read again from the start (${r.reset}).`,
          details: { zone: r.zone, reason: r.reset }
        })
      }
    }
    if (ignored.size > 0) {
      diagnostics.push({
        code: "ZONES_IGNORED",
        message: `${ignored.size} zone(s) named after the agent are not its own current or archive zone and were not read.`,
        details: { zones: [...ignored].sort() }
      })
    }
    let sessions: ReadonlyArray<RecordSession> | undefined
    return {
      zones,
      get sessions() {
        return sessions ??= sessionsOf(zones)
      },
      ...(items !== undefined ? { entries: items.map((k) => k.entry) } : {}),
      receipts,
      ignoredZones: [...ignored].sort(),
      diagnostics
    }
  })
