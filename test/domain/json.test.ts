/**
 * Bounded JSON parsing (seed 001: records nest at most 64 levels; every
 * provider parses through `parseJson`). Depth counts objects and arrays:
 * `{}` is 1, a scalar 0.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { compactJsonBytes, exceedsDepth, parseJson } from "../../src/domain/json.js"

const nested = (levels: number, open = "[", close = "]") => open.repeat(levels) + close.repeat(levels)

describe("parseJson", () => {
  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(parseJson(nested(64), 64)._tag).toBe("ok")
    expect(parseJson(nested(65), 64)).toEqual({ _tag: "error", problem: { _tag: "depth", limit: 64 } })
    expect(parseJson(`{"a":${nested(63)}}`, 64)._tag).toBe("ok")
    expect(parseJson(`{"a":${nested(64)}}`, 64)).toEqual({ _tag: "error", problem: { _tag: "depth", limit: 64 } })
  })

  it("is not fooled by brackets inside strings, or by many shallow brackets", () => {
    expect(parseJson(JSON.stringify({ s: nested(200) }), 2)._tag).toBe("ok")
    expect(parseJson(JSON.stringify(Array.from({ length: 300 }, () => ({ a: [1] }))), 3)._tag).toBe("ok")
    expect(parseJson(JSON.stringify(Array.from({ length: 300 }, () => ({ a: [[1]] }))), 3)._tag).toBe("error")
  })

  it("refuses invalid JSON and the empty text as syntax errors", () => {
    for (const text of ["", "{", "[1,]", "nul"]) {
      const r = parseJson(text, 64)
      expect(r._tag === "error" && r.problem._tag).toBe("syntax")
    }
  })

  it("agrees with the depth walk on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, limit) => {
        const r = parseJson(JSON.stringify(value), limit)
        expect(r._tag === "error").toBe(exceedsDepth(value, limit))
      }),
      { numRuns: 1000 }
    )
  })
})

describe("compactJsonBytes", () => {
  const want = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8")

  it("is the UTF-8 byte length of JSON.stringify for any parsed JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown
        expect(compactJsonBytes(parsed)).toBe(want(parsed))
      }),
      { numRuns: 200 }
    )
    fc.assert(
      fc.property(fc.fullUnicodeString({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 40 }), (a, b) => {
        expect(compactJsonBytes({ [a]: b, b: [a] })).toBe(want({ [a]: b, b: [a] }))
      }),
      { numRuns: 200 }
    )
  })

  it("counts escapes, control characters, lone and paired surrogates, numbers as JSON writes them", () => {
    const cases: Array<unknown> = [
      "a\"b\\c", "\b\f\n\r\t", "\u0000\u0001\u001f", "\ud83d\ude00", "\ud83d", "\ude00", "x\ud83dy", "\ude00\ud83d",
      "\u007f\u0080\u07ff\u0800\uffff", "\u2028\u2029", 1e21, 1e-7, -0, 123.456, Number.MAX_SAFE_INTEGER + 2, JSON.parse("1e400"),
      JSON.parse("-1e400"), JSON.parse('{"__proto__":{"a":1},"toJSON":2}'), [], {}, [null, true, false], { "": "" }
    ]
    for (const c of cases) expect(compactJsonBytes(c), JSON.stringify(c)).toBe(want(c))
  })
})
