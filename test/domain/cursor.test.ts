/**
 * Cursor tokens (DESIGN.md "cursor"): `c1.` + base64url of the state's JSON.
 * The per-source encoder must print the very tokens `encodeCursor` prints, so
 * a token decodes back to its state and is refused for another source.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import { cursorEncoder, decodeCursor, encodeCursor } from "../../src/domain/cursor.js"

const position = fc.record(
  {
    seq: fc.integer({ min: 0, max: 2 ** 40 }),
    off: fc.nat(),
    ls: fc.nat(),
    sub: fc.nat({ max: 50 }),
    h: fc.hexaString({ minLength: 32, maxLength: 32 }),
    hd: fc.string(),
    x: fc.oneof(fc.constant(1), fc.record({ hd: fc.string(), end: fc.constant(true) }, { requiredKeys: ["hd"] }))
  },
  { requiredKeys: ["seq"] }
)

describe("cursorEncoder", () => {
  it("prints the tokens encodeCursor prints, for any source id (of any length, non-ASCII too)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.fullUnicodeString(), fc.hexaString().map((h) => `sha256:${h}`)), position, (src, pos) => {
        expect(cursorEncoder(src)(pos)).toBe(encodeCursor({ v: 1, src, ...pos }))
      }),
      { numRuns: 1000 }
    )
  })

  it("gives tokens that decode to their state for their source only", () => {
    const src = "sha256:" + "ab".repeat(32)
    const token = cursorEncoder(src)({ seq: 7, off: 120, ls: 80, h: "f".repeat(32), x: { hd: "4096:00" } })
    expect(token.startsWith("c1.")).toBe(true)
    expect(decodeCursor(token, src)).toEqual(
      Either.right({ v: 1, src, seq: 7, off: 120, ls: 80, h: "f".repeat(32), x: { hd: "4096:00" } })
    )
    const other = decodeCursor(token, "sha256:" + "cd".repeat(32))
    expect(Either.isLeft(other) && other.left.code).toBe("INVALID_CURSOR")
  })
})
