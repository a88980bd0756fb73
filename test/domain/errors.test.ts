/**
 * The error family (src/domain/errors.ts, DESIGN.md "Errors"): an error's
 * `code` is part of its schema, so it survives encoding and is checked on
 * decoding, and the family is one `Schema.Union`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Errors from "../../src/domain/errors.js"
import { errorToJson, exitCodeOf } from "../../src/domain/error-codes.js"

const encode = Schema.encodeUnknownEither(Errors.IngestError)
const decode = Schema.decodeUnknownEither(Errors.IngestError)

/** One instance of every member of the union, with and without the optional fields. */
const samples = Errors.IngestError.members.flatMap((E) => [
  new E({ message: "m" }),
  new E({ message: "the problem", remediation: "the remedy", details: { path: "/x", n: 3, list: ["a"] } })
])

describe("the error family as one Schema.Union", () => {
  it("has one member per code of DESIGN.md's table, each constructed without its code", () => {
    const codes = Errors.IngestError.members.map((E) => new E({ message: "m" }).code)
    expect([...codes].sort()).toEqual(Object.keys(exitCodeOf).sort())
    expect(new Set(Errors.IngestError.members.map((E) => new E({ message: "m" })._tag)).size).toBe(codes.length)
  })

  it("encodes every error with its tag and code, and decodes it back to the same class and fields", () => {
    for (const e of samples) {
      const encoded = encode(e)
      expect(Either.isRight(encoded), e._tag).toBe(true)
      const plain = Either.getOrThrow(encoded) as Record<string, unknown>
      expect(plain).toMatchObject({ _tag: e._tag, code: e.code, message: e.message })
      // The encoded form is plain JSON: it survives a round trip through text.
      const decoded = decode(JSON.parse(JSON.stringify(plain)))
      expect(Either.isRight(decoded), e._tag).toBe(true)
      const back = Either.getOrThrow(decoded)
      expect(back).toBeInstanceOf(e.constructor)
      expect(back.code).toBe(e.code)
      expect(errorToJson(back)).toEqual(errorToJson(e))
    }
  })

  it("refuses to decode an error whose code is missing or belongs to another member", () => {
    const plain = Either.getOrThrow(encode(new Errors.SourceNotFound({ message: "gone" }))) as Record<string, unknown>
    expect(Either.isLeft(decode({ ...plain, code: "INVALID_ARGUMENT" }))).toBe(true)
    const { code: _, ...withoutCode } = plain
    expect(Either.isLeft(decode(withoutCode))).toBe(true)
  })

  it("the JSON envelope's error keeps exactly {code, message, remediation?, details?}", () => {
    expect(Object.keys(errorToJson(new Errors.InvalidCursor({ message: "m" })))).toEqual(["code", "message"])
    expect(Object.keys(errorToJson(samples[1]))).toEqual(["code", "message", "remediation", "details"])
  })
})
