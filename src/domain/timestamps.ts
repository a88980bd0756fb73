/**
 * Timestamp normalization: every provider's times leave as RFC 3339 in UTC.
 *
 * Inputs seen in the sources: RFC 3339 strings (`recorded_at` of exports,
 * `created_at` of Muse agents), epoch microseconds (Muse Code 1.4.0, seed 001),
 * epoch milliseconds (AgentMux `output.tsidx`, seed 002) and epoch seconds.
 * Numbers are told apart by magnitude: seconds below 1e12, milliseconds below
 * 1e15, microseconds below 1e18, nanoseconds above. Every date from
 * 2001-09-09 to 9999-12-31 is then read in the right unit whatever the unit,
 * and a date past 9999 in any unit is `out-of-range` rather than misread as
 * an earlier one (the price: milliseconds before 2001 are read as seconds).
 * Sub-millisecond digits are kept.
 *
 * @module
 */
import { IMPLAUSIBLE_TIMESTAMP } from "./warning-kinds.js"

/** Why a value is not a usable timestamp. */
export type TimestampProblem = "not-a-timestamp" | "no-timezone" | "out-of-range"

/** Result of {@link normalizeTimestamp}: an RFC 3339 UTC string, or the problem. */
export type NormalizedTimestamp =
  | { readonly _tag: "ok"; readonly value: string; readonly epochMs: number }
  | { readonly _tag: "invalid"; readonly problem: TimestampProblem }

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/
const LOCAL = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/

/** Largest epoch ms whose year still has four digits (9999-12-31T23:59:59.999Z). */
const MAX_EPOCH_MS = 253402300799999

const pad = (n: number, w: number) => String(n).padStart(w, "0")

// `toISOString` spells years 0000-9999 with four digits; the fraction replaces its milliseconds.
// Events come in time order, many in the same minute: the last minute's text (`YYYY-MM-DDTHH:MM:`) is kept and
// the second's two digits appended (an epoch has no leap second: a minute's seconds are 00-59, as `toISOString`
// spells them), so a new second costs no `Date` (issue 13, first import).
let lastMinute = Number.NaN
let lastMinuteText = ""
const SECONDS = Array.from({ length: 60 }, (_, s) => String(s).padStart(2, "0"))
const formatUtc = (epochMs: number, fraction: string): string => {
  const second = epochMs - (((epochMs % 1000) + 1000) % 1000)
  const minute = second - (((second % 60_000) + 60_000) % 60_000)
  if (minute !== lastMinute) {
    lastMinute = minute
    lastMinuteText = new Date(minute).toISOString().slice(0, 17)
  }
  return lastMinuteText + SECONDS[(second - minute) / 1000] + "." + fraction + "Z"
}

const invalid = (problem: TimestampProblem): NormalizedTimestamp => ({ _tag: "invalid", problem })

const fromEpoch = (n: number): NormalizedTimestamp => {
  if (!Number.isFinite(n) || n < 0) return invalid("out-of-range")
  let wholeMs: number
  let fraction: string
  if (n < 1e12) {
    // seconds, possibly fractional
    wholeMs = Math.floor(n * 1000)
    fraction = pad(wholeMs % 1000, 3)
  } else if (n < 1e15) {
    wholeMs = Math.floor(n)
    fraction = pad(wholeMs % 1000, 3)
  } else if (n < 1e18) {
    const us = Math.floor(n)
    wholeMs = Math.floor(us / 1000)
    fraction = pad(us % 1_000_000, 6)
  } else {
    // nanoseconds: beyond 2^53 the digits are already lost; keep microseconds
    const us = Math.floor(n / 1000)
    wholeMs = Math.floor(us / 1000)
    fraction = pad(us % 1_000_000, 6)
  }
  if (wholeMs > MAX_EPOCH_MS) return invalid("out-of-range")
  return { _tag: "ok", value: formatUtc(wholeMs - (wholeMs % 1000), fraction), epochMs: wholeMs }
}

const fromString = (s: string): NormalizedTimestamp => {
  const m = RFC3339.exec(s)
  if (m === null) return invalid(LOCAL.test(s) ? "no-timezone" : "not-a-timestamp")
  const [, y, mo, d, h, mi, se, frac, zone] = m
  const month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(se)
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return invalid("not-a-timestamp")
  }
  let offsetMin = 0
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1
    const zh = Number(zone.slice(1, 3)), zm = Number(zone.slice(4, 6))
    // RFC 3339 time-numoffset: time-hour (00-23) ":" time-minute (00-59).
    if (zh > 23 || zm > 59) return invalid("not-a-timestamp")
    offsetMin = sign * (zh * 60 + zm)
  }
  // Not Date.UTC: it reads years 0-99 as 1900-1999.
  // A leap second (RFC 3339 allows :60): the last instant of that minute (…:59.999999999), so it stays in that
  // minute, after every earlier instant and before the next minute (never a jump to the next day).
  const leap = second === 60
  const date = new Date(0)
  date.setUTCFullYear(Number(y), month - 1, day)
  date.setUTCHours(hour, minute, leap ? 59 : second, 0)
  const base = date.getTime()
  if (Number.isNaN(base)) return invalid("not-a-timestamp")
  // Dates roll 2026-02-30 over into March: a day the month does not have is refused.
  if (date.getUTCDate() !== day) return invalid("not-a-timestamp")
  const wholeSecondMs = base - offsetMin * 60_000
  if (wholeSecondMs < -62135596800000 || wholeSecondMs > MAX_EPOCH_MS) return invalid("out-of-range")
  const fraction = leap ? "999999999" : frac === undefined ? "000" : frac.length < 3 ? frac.padEnd(3, "0") : frac
  return { _tag: "ok", value: formatUtc(wholeSecondMs, fraction), epochMs: wholeSecondMs + Number(fraction.slice(0, 3)) }
}

/**
 * Normalize a native timestamp (RFC 3339 string with a zone, or epoch
 * seconds / milliseconds / microseconds / nanoseconds as a number or a string
 * of digits) to an RFC 3339 UTC string. A string without a zone is refused
 * (`no-timezone`): guessing the zone would alter the record. Years past 9999
 * are `out-of-range`.
 */
export const normalizeTimestamp = (value: unknown): NormalizedTimestamp => {
  if (typeof value === "number") return fromEpoch(value)
  if (typeof value === "string") {
    if (/^\d{9,19}$/.test(value)) return fromEpoch(Number(value))
    return fromString(value)
  }
  return invalid("not-a-timestamp")
}

/**
 * The first instant a source's timestamp is trusted at: 2000-01-01T00:00:00Z,
 * in epoch ms (no AI agent's session log is older; an epoch 0, 1.5 or a
 * small number read as seconds lands in 1970).
 */
export const PLAUSIBLE_FROM_MS = 946684800000

/**
 * The first instant a source's timestamp is no longer trusted at:
 * 2100-01-01T00:00:00Z, in epoch ms (`1e14` read as ms is the year 5138,
 * 9999-12-31 a sentinel). A fixed bound, not the clock: the same source reads
 * the same whenever it is read.
 */
export const PLAUSIBLE_UNTIL_MS = 4102444800000

/**
 * A source record's time, checked: `ok` with the RFC 3339 UTC string;
 * `not-valid` when it is no timestamp (`normalizeTimestamp`'s problems);
 * `implausible` when it reads as an instant before 2000
 * ({@link PLAUSIBLE_FROM_MS}) or from 2100 on ({@link PLAUSIBLE_UNTIL_MS}):
 * `0`, `1.5`, `1e14`. Numbers and strings of digits are epoch seconds / ms /
 * µs by magnitude, as `normalizeTimestamp` reads them.
 */
export const checkSourceTimestamp = (value: unknown): CheckedTimestamp => {
  // The providers ask twice of each record's time (`timestampOrNull`, then `timestampWarningOf`): the second is answered
  // from the first (a pure function of a primitive value; objects are never kept).
  if (value === lastValue && (typeof value === "string" || typeof value === "number")) return lastChecked
  const r = normalizeTimestamp(value)
  const checked = r._tag === "invalid"
    ? NOT_VALID
    : r.epochMs < PLAUSIBLE_FROM_MS || r.epochMs >= PLAUSIBLE_UNTIL_MS
    ? IMPLAUSIBLE
    : r
  lastValue = value
  lastChecked = checked
  return checked
}
/** What {@link checkSourceTimestamp} answers. */
export type CheckedTimestamp = { readonly _tag: "ok"; readonly value: string } | { readonly _tag: "not-valid" | "implausible" }
let lastValue: unknown = undefined
let lastChecked: CheckedTimestamp = { _tag: "not-valid" }
const IMPLAUSIBLE = { _tag: "implausible" } as const
const NOT_VALID = { _tag: "not-valid" } as const

/**
 * A source record's time (for tolerant providers): the RFC 3339 UTC string,
 * or null when {@link checkSourceTimestamp} does not find it `ok` (not a
 * timestamp, or implausible). See {@link timestampWarningOf} for the count.
 */
export const timestampOrNull = (value: unknown): string | null => {
  const r = checkSourceTimestamp(value)
  return r._tag === "ok" ? r.value : null
}

/**
 * The parse-warning kind a record's time gives: null when it is absent
 * (undefined, null) or fine; `timestamp-not-valid` when it is no timestamp;
 * `implausible-timestamp` ({@link IMPLAUSIBLE_TIMESTAMP}) when it reads as a
 * date it cannot be. Either way the record's events are kept, `occurredAt` null.
 */
export const timestampWarningOf = (value: unknown): "timestamp-not-valid" | "implausible-timestamp" | null => {
  if (value === undefined || value === null) return null
  const r = checkSourceTimestamp(value)
  return r._tag === "ok" ? null : r._tag === "implausible" ? IMPLAUSIBLE_TIMESTAMP : "timestamp-not-valid"
}

const UTC_FORM = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/

/**
 * A key that sorts as the instant does: `YYYY-MM-DDTHH:MM:SS.fffffffff`
 * (fraction padded to nanoseconds); a string that is not a timestamp is its
 * own key. {@link compareTimestamps} compares these; a sort of many items
 * can make each one's key once.
 */
export const sortKey = (t: string): string => {
  let m = UTC_FORM.exec(t)
  if (m === null) {
    const n = normalizeTimestamp(t)
    if (n._tag === "invalid") return t
    m = UTC_FORM.exec(n.value)
    if (m === null) return t
  }
  return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}`
}

/**
 * Order of two RFC 3339 timestamps by the instant they name: negative when
 * `a` is earlier, 0 when the same instant, positive when later. Made for the
 * UTC strings {@link normalizeTimestamp} writes, whose fractions have 3 to 9
 * digits (`…:35.000Z` and `…:35.000123Z` do not sort as plain strings); any
 * other RFC 3339 string with a zone is normalized first. A string that is not
 * a timestamp sorts as its text.
 */
export const compareTimestamps = (a: string, b: string): number => {
  // Two UTC strings of one length have their fractions' digits in the same places (what most pairs are): as text.
  if (a.length === b.length && a.charCodeAt(a.length - 1) === 90 && b.charCodeAt(b.length - 1) === 90) return a < b ? -1 : a > b ? 1 : 0
  const ka = sortKey(a), kb = sortKey(b)
  return ka < kb ? -1 : ka > kb ? 1 : 0
}

/** The earlier of two timestamps (by {@link compareTimestamps}); null counts as absent. */
export const earliestOf = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : compareTimestamps(b, a) < 0 ? b : a

/** The later of two timestamps (by {@link compareTimestamps}); null counts as absent. */
export const latestOf = (a: string | null, b: string | null): string | null =>
  a === null ? b : b === null ? a : compareTimestamps(b, a) > 0 ? b : a

/**
 * A `--since` / `--until` value (the CLI's and the MCP tools' `since` /
 * `until`) as the instant it means, normalized: RFC 3339 with a zone (any
 * precision, any offset: its instant), or a date `YYYY-MM-DD` (UTC): its
 * first instant, or with `endOfDay` its last one (`23:59:59.999999999Z`, the
 * finest precision a stored time has, so that an `until` of a day takes all
 * of it). {@link normalizeTimestamp}'s problem when it is neither.
 */
export const rangeBound = (value: string, endOfDay: boolean): NormalizedTimestamp =>
  normalizeTimestamp(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${endOfDay ? "23:59:59.999999999" : "00:00:00"}Z` : value)
