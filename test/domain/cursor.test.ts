/**
 * Cursor tokens (DESIGN.md "cursor": an opaque token that resumes right after
 * its event; INVALID_CURSOR for one that is malformed or of another source).
 * `c2.<tag>.<seq>.<off>.<ls>.<sub>.<h>.<hd>.<x>` is printed; the older `c1.`
 * + base64url(JSON) is still read.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import { crc32 } from "node:zlib"
import { cursorEncoder, decodeCursor, encodeCursor, HEAD_BYTES, headBinder, headBinding, lineCrc, placeCheck, sourceTag } from "../../src/domain/cursor.js"

const digestChars = fc.stringMatching(/^[A-Za-z0-9:_-]{1,40}$/)
const position = fc.record(
  {
    seq: fc.integer({ min: -1, max: 2 ** 40 }),
    off: fc.nat(),
    ls: fc.nat(),
    sub: fc.nat({ max: 50 }),
    h: digestChars,
    hd: digestChars,
    x: fc.oneof(
      fc.constant(1),
      fc.record({ hd: fc.string(), end: fc.constant(true as const), parent: fc.record({ src: fc.string(), child: fc.string() }) }, {
        requiredKeys: ["hd"]
      })
    )
  },
  { requiredKeys: ["seq"] }
)
const SRC = "sha256:" + "ab".repeat(32)
const code = (e: Either.Either<unknown, { code: string }>) => (Either.isLeft(e) ? e.left.code : "ok")

describe("cursor tokens", () => {
  it("decode to the state they were made of, for their source only", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.fullUnicodeString(), fc.hexaString().map((h) => `sha256:${h}`)), position, (src, pos) => {
        const token = cursorEncoder(src)(pos)
        expect(token).toBe(encodeCursor({ v: 1, src, ...pos }))
        expect(decodeCursor(token, src)).toEqual(Either.right({ v: 1, src, ...pos }))
        expect(code(decodeCursor(token, src + "x"))).toBe("INVALID_CURSOR")
      }),
      { numRuns: 1000 }
    )
  })

  it("spell a native-log cursor in about a hundred characters", () => {
    const token = cursorEncoder(SRC)({ seq: 2, off: 1796, ls: 1259, h: "3c0efefd", x: { hd: "9bbbe788c839c9a8be7d249f8151d439" } })
    expect(token).toBe(`c2.${sourceTag(SRC)}.2.1dw.yz..3c0efefd..${Buffer.from('{"hd":"9bbbe788c839c9a8be7d249f8151d439"}').toString("base64url")}`)
    expect(token.length).toBeLessThan(110)
  })

  it("still read c1 tokens (base64url of the state's JSON)", () => {
    const state = { v: 1 as const, src: SRC, seq: 7, off: 120, ls: 80, h: "f".repeat(32) }
    const c1 = "c1." + Buffer.from(JSON.stringify(state)).toString("base64url")
    expect(decodeCursor(c1, SRC)).toEqual(Either.right(state))
    expect(code(decodeCursor(c1, "sha256:other"))).toBe("INVALID_CURSOR")
  })

  it.each([
    ["another prefix", "c3.abc"],
    ["too few fields", `c2.${sourceTag(SRC)}.1.2.3`],
    ["a tag that is not 16 hex digits", `c2.ABCDEF0123456789.1......`],
    ["a sequence with a leading zero", `c2.${sourceTag(SRC)}.01......`],
    ["no sequence", `c2.${sourceTag(SRC)}.......`],
    ["a dot-free digest with a quote", `c2.${sourceTag(SRC)}.1....a"b..`],
    ["x that is not base64url JSON", `c2.${sourceTag(SRC)}.1......e30!`],
    ["x that is base64url but not JSON", `c2.${sourceTag(SRC)}.1......${Buffer.from("{nope").toString("base64url")}`],
    ["a negative byte offset", `c2.${sourceTag(SRC)}.1.-1.....`],
    ["a negative line start", `c2.${sourceTag(SRC)}.1..-a....`],
    ["a negative nested part", `c2.${sourceTag(SRC)}.1...-2...`],
    ["a c1 token that is not base64url", "c1.!!!"],
    ["a c1 token of a non-state", "c1." + Buffer.from('{"v":2}').toString("base64url")]
  ])("refuse %s", (_, token) => {
    expect(code(decodeCursor(token, SRC))).toBe("INVALID_CURSOR")
  })
})

describe("lineCrc and placeCheck", () => {
  it("lineCrc is the CRC-32 of the line, continued over its newline", () => {
    // CRC-32 (ISO-HDLC) check value of "123456789" is cbf43926.
    expect(lineCrc(Buffer.from("123456789")).toString(16)).toBe("cbf43926")
    expect(lineCrc(Buffer.from("abc"), true)).toBe(lineCrc(Buffer.from("abc\n")))
    expect(lineCrc(Buffer.from(""))).toBe(0)
  })

  it("placeCheck binds the line to the event's place: another seq or sub, another check", () => {
    // The CRC of "12345" continued over "6789" is the CRC of "123456789".
    expect(placeCheck(lineCrc(Buffer.from("12345")), 6789)).toBe("cbf43926")
    const c = lineCrc(Buffer.from('{"a":1}'))
    const checks = [placeCheck(c, 7), placeCheck(c, -5), placeCheck(c, 8), placeCheck(c, 7, 0), placeCheck(c, 7, 1)]
    expect(new Set(checks).size).toBe(checks.length)
    expect(checks.every((h) => /^[0-9a-f]{8}$/.test(h))).toBe(true)
  })

  it("placeCheck is zlib's CRC-32 of the place's text (`seq` or `seq/sub`) continued from the line's CRC", () => {
    // The check cursors have always carried (tokens printed by earlier builds must still match): computed here
    // without zlib (issue 13, first import), so compared with it on any line CRC and place.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.oneof(fc.nat({ max: 1000 }), fc.maxSafeNat(), fc.integer({ min: -1000, max: -1 }), fc.double({ noNaN: true })),
        fc.option(fc.oneof(fc.nat({ max: 60 }), fc.maxSafeNat(), fc.integer({ min: -5, max: -1 })), { nil: undefined }),
        (line, seq, sub) => {
          const text = sub === undefined ? String(seq) : `${seq}/${sub}`
          expect(placeCheck(line, seq, sub)).toBe(crc32(text, line).toString(16).padStart(8, "0"))
        }
      ),
      { numRuns: 20_000 }
    )
  })
})

describe("headBinder", () => {
  it("answers headBinding for every offset, asked in any order and again", () => {
    const head = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 251))
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 6000 }), { maxLength: 40 }), (offsets) => {
        const bind = headBinder(head.subarray(0, HEAD_BYTES))
        for (const upTo of [...offsets, ...offsets]) expect(bind(upTo)).toBe(headBinding(head.subarray(0, HEAD_BYTES), upTo))
      }),
      { numRuns: 300 }
    )
  })
})
