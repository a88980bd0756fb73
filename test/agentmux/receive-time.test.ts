/**
 * A receive time that is no date (session 12 leftover, issue 7's rule for every provider): the sidecar's `ms` of a
 * line past what a date can hold (after 9999-12-31 in its unit: milliseconds, or microseconds by magnitude, as
 * every provider's epoch numbers are read), negative, NaN or infinite is a counted `timestamp-not-valid` warning (a kind whose lines are kept), and the
 * line's events are kept without a time. A valid receive time gives the event its time and no warning.
 */
import { describe, expect, it } from "@effect/vitest"
import { mapSession, type SessionLine } from "../../src/domain/agentmux/transcript.js"
import { isKeptWarningKind } from "../../src/domain/warning-kinds.js"

const j = (v: unknown) => JSON.stringify(v)
const user = (text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: "S" })
const lines = (times: ReadonlyArray<number | null>): Array<SessionLine> => {
  let offset = 0
  return times.map((receivedMs, i) => {
    const t = user(`message ${i}`)
    const line = { zoneId: "agent:u1:current", offset, bytes: Buffer.from(t), receivedMs }
    offset += Buffer.byteLength(t) + 1
    return line
  })
}
const map = (times: ReadonlyArray<number | null>) => mapSession(lines(times), { sourceId: "sha256:s", sessionId: "S" })

describe("AgentMux: a receive time that is no date", () => {
  // 2023-11-14T22:13:20.000Z
  const OK = 1_700_000_000_000
  const BAD = [
    253_402_300_800_000, // the year 10000 in milliseconds
    253_402_300_800_000_000, // the year 10000 in microseconds
    -5,
    Number.NaN,
    Number.POSITIVE_INFINITY
  ]

  it("each is counted as timestamp-not-valid (first at its line), its event kept without a time", () => {
    for (const bad of BAD) {
      const mapped = map([OK, bad, OK + 2000])
      const events = mapped.events.map((m) => m.event)
      expect(events.map((e) => e.text), String(bad)).toEqual(["message 0", "message 1", "message 2"])
      expect(events.map((e) => e.occurredAt), String(bad)).toEqual(["2023-11-14T22:13:20.000Z", null, "2023-11-14T22:13:22.000Z"])
      expect(mapped.transcript.parseWarnings, String(bad)).toEqual([{ kind: "timestamp-not-valid", count: 1, firstLine: 2 }])
    }
    expect(isKeptWarningKind("timestamp-not-valid")).toBe(true)
  })

  it("several bad lines are one warning with their count; no receive time (null) and valid times are no warning", () => {
    expect(map([OK, -1, Number.NaN, 253_402_300_800_000]).transcript.parseWarnings).toEqual([{ kind: "timestamp-not-valid", count: 3, firstLine: 2 }])
    // Epoch microseconds are a time (sub-millisecond digits kept), as for every provider.
    const fine = map([null, OK, 1_790_349_213_894_901])
    expect(fine.transcript.parseWarnings).toEqual([])
    expect(fine.events.map((m) => m.event.occurredAt)).toEqual([null, "2023-11-14T22:13:20.000Z", "2026-09-25T15:13:33.894901Z"])
    // 9999-12-31 is a date, but not one a line was received at: implausible-timestamp (test/implausible-timestamp.test.ts).
    expect(map([OK, 253_402_300_799_999]).transcript.parseWarnings).toEqual([{ kind: "implausible-timestamp", count: 1, firstLine: 2 }])
  })
})

describe("AgentMux: a receive time a session cannot have (F8: before 2000 or from 2100 on)", () => {
  it("receive times 0, 1.5 and 1e14: events kept without a time, counted implausible-timestamp (first at line 2)", () => {
    const OK = 1_735_689_600_000 // 2025-01-01T00:00:00Z
    const mapped = map([OK, 0, 1.5, 1e14, OK + 1000])
    expect(mapped.events.map((m) => m.event.text)).toEqual([0, 1, 2, 3, 4].map((i) => `message ${i}`))
    expect(mapped.events.map((m) => m.event.occurredAt)).toEqual(["2025-01-01T00:00:00.000Z", null, null, null, "2025-01-01T00:00:01.000Z"])
    expect(mapped.transcript.parseWarnings).toEqual([{ kind: "implausible-timestamp", count: 3, firstLine: 2 }])
    expect(mapped.transcript.startedAt).toBe("2025-01-01T00:00:00.000Z")
  })
})

describe("AgentMux: inspect/stream say lines of a kept kind kept, never skipped (tester16 finding 4b)", () => {
  it("implausible and not-valid receive times: the PARSE_WARNING says the events are kept without a time", async () => {
    const { parseWarningDiagnostics } = await import("../../src/layers/agentmux/adapter.js")
    const mapped = mapSession(lines([1_700_000_000_000, 0, -5, 1_700_000_002_000]), { sourceId: "sha256:s", sessionId: "S" })
    const ds = parseWarningDiagnostics(mapped.transcript)
    expect(ds.map((d) => d.details)).toEqual([
      { kind: "implausible-timestamp", count: 1, firstLine: 2 },
      { kind: "timestamp-not-valid", count: 1, firstLine: 3 }
    ])
    for (const d of ds) {
      expect(d.message).not.toContain("skipped")
      expect(d.message).toContain("kept without a time")
    }
  })
})
