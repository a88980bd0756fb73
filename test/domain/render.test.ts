/** The renderings for people: control characters shown visibly, times with their zone. */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { escapeJsonControls, humanTime, visibleControls } from "../../src/domain/render.js"

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
const JSON_RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/
/** Strings rich in the characters that matter. */
const hostile = fc.array(
  fc.oneof(
    fc.integer({ min: 0, max: 0x9f }).map((n) => String.fromCharCode(n)),
    fc.integer({ min: 0x202a, max: 0x202e }).map((n) => String.fromCharCode(n)),
    fc.integer({ min: 0x2066, max: 0x2069 }).map((n) => String.fromCharCode(n)),
    fc.string()
  )
).map((parts) => parts.join(""))

describe("visibleControls", () => {
  it.prop("leaves no character a terminal acts on, keeps line feeds and tabs, and is idempotent", [hostile], ([s]) => {
    const v = visibleControls(s)
    expect(RAW.test(v)).toBe(false)
    expect(visibleControls(v)).toBe(v)
    expect(v.split("\n").length).toBe(s.replace(/\r\n/g, "\n").split("\n").length)
    expect(v.split("\t").length).toBe(s.split("\t").length)
  })

  it("writes each control as an escape one can read", () => {
    expect(visibleControls("a\u001b]0;pwned\u0007b\u001b[2Jc\u009b31md\re\bf\u202eg\u007fh\r\n"))
      .toBe("a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9b31md\\x0de\\x08f\\u202eg\\x7fh\n")
  })
})

describe("escapeJsonControls", () => {
  it.prop("is the same JSON value, without raw C1 or bidi controls", [hostile], ([s]) => {
    const json = escapeJsonControls(JSON.stringify({ s }))
    expect(JSON_RAW.test(json)).toBe(false)
    expect(JSON.parse(json)).toEqual({ s })
  })
})

describe("humanTime", () => {
  it("is UTC with Z by default, the local zone with its offset under local", () => {
    const before = process.env.TZ
    try {
      process.env.TZ = "Asia/Kathmandu"
      expect(humanTime("2026-10-01T12:00:01.250375Z")).toBe("2026-10-01T12:00:01.250375Z")
      expect(humanTime("2026-10-01T12:00:01.250375Z", { seconds: true })).toBe("2026-10-01T12:00:01Z")
      expect(humanTime("2026-10-01T12:00:01.250375Z", { local: true })).toBe("2026-10-01T17:45:01.250375+05:45")
      expect(humanTime("2026-10-01T20:00:00+02:00", { local: true, seconds: true })).toBe("2026-10-01T23:45:00+05:45")
      process.env.TZ = "Pacific/Pago_Pago"
      expect(humanTime("2026-10-01T05:00:00Z", { local: true, seconds: true })).toBe("2026-09-30T18:00:00-11:00")
      expect(humanTime("not a time", { local: true })).toBe("not a time")
    } finally {
      if (before === undefined) delete process.env.TZ
      else process.env.TZ = before
    }
  })
})
