/** Timestamp normalization: every provider's times leave as RFC 3339 UTC. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import Database from "better-sqlite3"
import { compareTimestamps, earliestOf, latestOf, normalizeTimestamp, rangeBound, sortKey } from "../src/domain/timestamps.js"
import { sortKeySql } from "../src/layers/index/rows.js"

const ok = (v: unknown) => {
  const r = normalizeTimestamp(v)
  return r._tag === "ok" ? r.value : `invalid:${r.problem}`
}

describe("normalizeTimestamp", () => {
  it("epoch seconds, milliseconds, microseconds, nanoseconds", () => {
    // 1790349213 s = 2026-09-25T15:13:33Z (day 20721 since 1970 + 54813 s)
    expect(ok(1790349213)).toBe("2026-09-25T15:13:33.000Z")
    expect(ok(1790349213.5)).toBe("2026-09-25T15:13:33.500Z")
    expect(ok(1790349213957)).toBe("2026-09-25T15:13:33.957Z")
    expect(ok(1790349213957005)).toBe("2026-09-25T15:13:33.957005Z")
    expect(ok(1790349213957005123)).toMatch(/^2026-09-25T15:13:33\.957\d{3}Z$/)
    expect(ok(0)).toBe("1970-01-01T00:00:00.000Z")
    expect(ok("1790349213957")).toBe("2026-09-25T15:13:33.957Z")
  })
  it("RFC 3339 with a zone is converted to UTC, fractional digits kept", () => {
    expect(ok("2026-10-01T14:00:02.5+02:00")).toBe("2026-10-01T12:00:02.500Z")
    expect(ok("2026-10-01T12:00:00Z")).toBe("2026-10-01T12:00:00.000Z")
    expect(ok("2026-10-01T12:00:00.123456789Z")).toBe("2026-10-01T12:00:00.123456789Z")
    expect(ok("2026-01-01T00:30:00-01:00")).toBe("2026-01-01T01:30:00.000Z")
    expect(ok("2026-01-01T00:30:00+01:00")).toBe("2025-12-31T23:30:00.000Z")
    // The ends of four-digit years
    expect(ok("0001-01-01T00:00:00Z")).toBe("0001-01-01T00:00:00.000Z")
    expect(ok("9999-12-31T23:59:59.999999Z")).toBe("9999-12-31T23:59:59.999999Z")
    expect(ok(253402300799999)).toBe("9999-12-31T23:59:59.999Z")
  })
  it("refuses what it cannot place", () => {
    expect(ok("2026-10-01T12:00:00")).toBe("invalid:no-timezone")
    expect(ok("2026-10-01 12:00")).toBe("invalid:no-timezone")
    expect(ok("yesterday")).toBe("invalid:not-a-timestamp")
    expect(ok("2026-13-01T00:00:00Z")).toBe("invalid:not-a-timestamp")
    expect(ok("2026-02-30T00:00:00Z")).toBe("invalid:not-a-timestamp")
    expect(ok("2024-02-29T00:00:00Z")).toBe("2024-02-29T00:00:00.000Z")
    expect(ok("10000-01-01T00:00:00Z")).toBe("invalid:not-a-timestamp")
    // 253402300800000 ms is 10000-01-01T00:00:00Z
    expect(ok(253402300800000)).toBe("invalid:out-of-range")
    expect(ok(253402300800000000)).toBe("invalid:out-of-range")
    expect(ok(-1)).toBe("invalid:out-of-range")
    expect(ok(Number.NaN)).toBe("invalid:out-of-range")
    expect(ok(null)).toBe("invalid:not-a-timestamp")
  })
  it("a zone offset is an RFC 3339 one: hours 00-23, minutes 00-59 (found by a fresh user: +99:99 was taken)", () => {
    for (const z of ["+99:99", "+24:00", "-24:00", "+05:60", "+23:99"]) expect(ok(`2026-01-01T00:00:00${z}`), z).toBe("invalid:not-a-timestamp")
    expect(ok("2026-01-01T00:00:00+23:59")).toBe("2025-12-31T00:01:00.000Z")
    expect(ok("2026-01-01T00:00:00-00:00")).toBe("2026-01-01T00:00:00.000Z")
    expect(ok("2026-01-01T12:00:00+14:00")).toBe("2025-12-31T22:00:00.000Z")
  })

  it("an epoch's UTC text is what toISOString spells, to the second, however the times follow each other", () => {
    // The text of the last minute is reused (issue 13, first import): times in order, back and forth, and across
    // minutes, hours, days and years give the same text as Date.
    // (A number from 1e12 up is read as milliseconds.)
    const iso = (ms: number) => new Date(ms).toISOString()
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1e12, max: 253402300799999 }), { minLength: 1, maxLength: 30 }), fc.nat({ max: 200_000 }), (starts, step) => {
        for (const start of starts) {
          for (const ms of [start, start + step, start + 2 * step, start - step, start]) {
            if (ms < 1e12 || ms > 253402300799999) continue
            expect(ok(ms)).toBe(iso(ms))
          }
        }
      }),
      { numRuns: 2000 }
    )
    // Before 1970 (a string with a zone): the second and the minute below zero.
    expect(ok("1969-12-31T23:59:59.5Z")).toBe("1969-12-31T23:59:59.500Z")
    expect(ok("1969-12-31T23:58:00Z")).toBe("1969-12-31T23:58:00.000Z")
    expect(ok("0001-01-01T00:00:01Z")).toBe("0001-01-01T00:00:01.000Z")
  })
})

describe("compareTimestamps (issue 11, item 11)", () => {
  it("orders by instant, whatever the fraction's length or the zone", () => {
    expect(compareTimestamps("2026-09-14T21:21:35.000Z", "2026-09-14T21:21:35.000123Z")).toBeLessThan(0)
    expect(compareTimestamps("2026-09-14T21:21:35.0005Z", "2026-09-14T21:21:35.000500Z")).toBe(0)
    expect(compareTimestamps("2026-09-14T21:21:35Z", "2026-09-14T21:21:35.000Z")).toBe(0)
    expect(compareTimestamps("2026-09-14T23:21:35+02:00", "2026-09-14T21:21:35.000Z")).toBe(0)
    expect(compareTimestamps("2026-09-15T00:00:00.000Z", "2026-09-14T23:59:59.999999Z")).toBeGreaterThan(0)
    expect(earliestOf(null, "2026-01-01T00:00:00.000Z")).toBe("2026-01-01T00:00:00.000Z")
    expect(latestOf("2026-01-01T00:00:00.000001Z", "2026-01-01T00:00:00.000Z")).toBe("2026-01-01T00:00:00.000001Z")
    expect(latestOf(null, null)).toBeNull()
  })
})

describe("time ranges compare instants (tester23a F1)", () => {
  /**
   * An instant (ns since the epoch) written as normalizeTimestamp writes a source's time with 3 to 9 fraction digits;
   * seconds and fractions drawn near each other and near a second's edges, so that equal and adjacent instants meet.
   */
  const written = fc.record({
    second: fc.oneof(fc.integer({ min: 1794355198, max: 1794355201 }), fc.integer({ min: 946684800, max: 4102444799 })),
    fraction: fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(0, 1, 1000, 100_000, 999_000_000, 999_500_000, 999_999_000, 999_999_999)),
    digits: fc.integer({ min: 3, max: 9 })
  }).map(({ digits, fraction, second }) => {
    const kept = Math.floor(fraction / 10 ** (9 - digits))
    const text = ok(`${new Date(second * 1000).toISOString().slice(0, 19)}.${String(kept).padStart(digits, "0")}Z`)
    return { ns: BigInt(second) * 1_000_000_000n + BigInt(kept * 10 ** (9 - digits)), text }
  })

  it("compareTimestamps, and the SQL sort key against a bound's sortKey, order as the instants do", () => {
    const db = new Database(":memory:")
    const stmt = db.prepare(`SELECT ${sortKeySql("?")} AS k`)
    const key = { get: (t: string) => (stmt.get(t) as { k: string }).k }
    fc.assert(fc.property(written, written, (a, b) => {
      const want = a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0
      expect(Math.sign(compareTimestamps(a.text, b.text))).toBe(want)
      expect(key.get(a.text)).toBe(sortKey(a.text))
      const ka = key.get(a.text) as string, kb = sortKey(b.text)
      expect(ka < kb ? -1 : ka > kb ? 1 : 0).toBe(want)
    }), { numRuns: 2000 })
    db.close()
  })

  it("a date bound: its first instant, or (until) its last one at the finest precision a stored time has", () => {
    const v = (value: string, end: boolean) => {
      const r = rangeBound(value, end)
      return r._tag === "ok" ? r.value : r.problem
    }
    expect(v("2026-11-10", true)).toBe("2026-11-10T23:59:59.999999999Z")
    expect(v("2026-11-11", false)).toBe("2026-11-11T00:00:00.000Z")
    expect(v("2026-11-11T01:00:00.0001+01:00", false)).toBe("2026-11-11T00:00:00.0001Z")
    expect(v("2026-11-31", false)).toBe("not-a-timestamp")
    expect(compareTimestamps(v("2026-11-10", true), "2026-11-10T23:59:59.999999999Z")).toBe(0)
    expect(compareTimestamps("2026-11-10T23:59:59.999Z", v("2026-11-10", true))).toBeLessThan(0)
    expect(compareTimestamps("2026-11-11T00:00:00.000001Z", v("2026-11-11", false))).toBeGreaterThan(0)
  })
})
