/**
 * The names of a Muse Code source's records: a session names each of its
 * records by its `sequence` (event id `muse-seq-<n>`), in an export
 * (`envelope.sequence`) and in a native log (a line's or a retained child's
 * `sequence`) alike (docs/providers.md "Providers"). A second record under a name
 * already taken is the same record repeated (kept once, counted:
 * `REPEATED_RECORDS_SKIPPED`) or another record (the source cannot be
 * trusted: `MALFORMED_SOURCE` naming both places; two records under one id
 * would lose one in the index). The pieces both sources share: the set of
 * names taken ({@link RecordNames}), the test of "the same record"
 * ({@link sameRecord}) and the diagnostic ({@link repeatedRecordsDiagnostic}).
 *
 * @module
 */
import type { Diagnostic } from "../model.js"

/**
 * Sequences below this take a bit each (at most 2 MiB a session); a larger
 * one (a log does not hold 16 million records) goes into a set.
 */
const NEAR = 1 << 24

/** The names taken in one session. */
interface SessionNames {
  /** Bit `seq` set: `seq` is taken (sequences below {@link NEAR}); grows by doubling. */
  bits: Uint32Array
  /** Taken sequences of {@link NEAR} and above. */
  far: Set<number> | undefined
  /** When places are kept: the first place of each taken sequence below {@link NEAR}, plus one (0: none). */
  places: Float64Array | undefined
  /** When places are kept: the first place of each taken sequence of {@link NEAR} and above. */
  farPlaces: Map<number, number> | undefined
}

/**
 * The `(session, sequence)` names a pass over a source has taken so far.
 * Small on the hot path: one bit per sequence below 2^24 a session (a few
 * far larger ones in a set); with {@link RecordNames.keepPlaces}, also the
 * first place of each (a number, 8 bytes a sequence), for a source that has
 * shown a repeat or that is held whole anyway (an export). Places are the
 * caller's (a native log's line offsets; an export's event index).
 */
export class RecordNames {
  private readonly sessions = new Map<string, SessionNames>()
  /** The session looked up last (a log is mostly one session): no map look-up per record. */
  private lastId: string | undefined
  private last: SessionNames | undefined
  private places = false

  /** `places`: keep the first place of each name from the start. */
  constructor(places = false) {
    this.places = places
  }

  /** Whether the first places of names are kept (see {@link keepPlaces}). */
  get keepsPlaces(): boolean {
    return this.places
  }

  /** Forget every name and keep places from now on: the caller adds again, in source order, the names taken so far. */
  keepPlaces(): void {
    this.sessions.clear()
    this.lastId = undefined
    this.last = undefined
    this.places = true
  }

  private session(id: string, create: boolean): SessionNames | undefined {
    if (id === this.lastId) return this.last
    let s = this.sessions.get(id)
    if (s === undefined) {
      if (!create) return undefined
      s = { bits: new Uint32Array(64), far: undefined, places: undefined, farPlaces: undefined }
      this.sessions.set(id, s)
    }
    this.lastId = id
    this.last = s
    return s
  }

  /** Whether session `id` has taken `seq` (a non-negative safe integer). */
  has(id: string, seq: number): boolean {
    const s = this.session(id, false)
    if (s === undefined) return false
    if (seq >= NEAR) return s.far?.has(seq) ?? false
    const w = seq >>> 5
    return w < s.bits.length && (s.bits[w] & (1 << (seq & 31))) !== 0
  }

  /** Session `id` takes `seq` first at `place` (kept only when places are kept). Call only when {@link has} is false. */
  add(id: string, seq: number, place: number): void {
    const s = this.session(id, true)!
    if (seq >= NEAR) {
      ;(s.far ??= new Set()).add(seq)
      if (this.places) (s.farPlaces ??= new Map()).set(seq, place)
      return
    }
    const w = seq >>> 5
    if (w >= s.bits.length) {
      let n = s.bits.length * 2
      while (n <= w) n *= 2
      const grown = new Uint32Array(n)
      grown.set(s.bits)
      s.bits = grown
    }
    s.bits[w] |= 1 << (seq & 31)
    if (this.places) {
      if (s.places === undefined || seq >= s.places.length) {
        let n = Math.max(s.places?.length ?? 0, 1024)
        while (n <= seq) n *= 2
        const grown = new Float64Array(Math.min(n, NEAR))
        if (s.places !== undefined) grown.set(s.places)
        s.places = grown
      }
      s.places[seq] = place + 1
    }
  }

  /** The first place of session `id`'s `seq`, when taken while places were kept; else undefined. */
  placeOf(id: string, seq: number): number | undefined {
    const s = this.session(id, false)
    if (s === undefined) return undefined
    if (seq >= NEAR) return s.farPlaces?.get(seq)
    const p = s.places !== undefined && seq < s.places.length ? s.places[seq] : 0
    return p === 0 ? undefined : p - 1
  }
}

/**
 * Whether two records under one name are the same record repeated: the same
 * JSON value, members in the same order (whitespace between tokens aside).
 */
export const sameRecord = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

/** The code of a diagnostic of records repeated as they are, kept once (Muse Code; Claude Code uses it too). */
export const REPEATED_RECORDS_SKIPPED = "REPEATED_RECORDS_SKIPPED"

/**
 * The `REPEATED_RECORDS_SKIPPED` diagnostic of a source whose `count` records
 * (> 0) were skipped as repeats; `field` names the sequence as the source
 * spells it (`envelope.sequence` in an export, `sequence` in a native log).
 */
export const repeatedRecordsDiagnostic = (count: number, field: string): Diagnostic => ({
  code: REPEATED_RECORDS_SKIPPED,
  message: `${count} record(s) repeated as they are (the same session and ${field}, the same content) skipped; each is kept once.`,
  details: { count }
})

/** The code of an export whose `envelope.sequence` runs backwards within a session ({@link sequenceDecreasesDiagnostic}). */
export const SEQUENCE_DECREASES = "SEQUENCE_DECREASES"

/** Where an export's `envelope.sequence` first ran backwards: the event, its sequence, and the larger one before it. */
export interface SequenceDecrease {
  readonly event: number
  readonly sessionId: string
  readonly sequence: number
  readonly after: number
}

/**
 * The `SEQUENCE_DECREASES` diagnostic of an export whose `count` records
 * (> 0) carry an `envelope.sequence` lower than an earlier record of their
 * session: seed 001 says an export's `events` are ordered, so a damaged or
 * hand-made document. The events are kept, in document order (not
 * reordered); `first` names the first such record. Out-of-order
 * `recorded_at` is legitimate and not counted (the peer native fixture has it).
 */
export const sequenceDecreasesDiagnostic = (count: number, first: SequenceDecrease): Diagnostic => ({
  code: SEQUENCE_DECREASES,
  message: `${count} record(s) carry an envelope.sequence lower than an earlier record of their session (first: events[${first.event}], sequence ${first.sequence} after ${first.after}, session ${first.sessionId}); an export's events are ordered, so the document may be damaged or hand-made. The events are kept in document order, not reordered.`,
  details: { count, firstEvent: first.event, sessionId: first.sessionId, sequence: first.sequence, after: first.after }
})
