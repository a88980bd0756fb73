/**
 * The hot-path frame check (`isRetainedFrameLine`) must accept exactly what
 * the `RetainedFrameLine` Schema accepts (seed 001, "Native log root": a
 * retained transaction frame is `{retained_frame, children[]}` whose children
 * carry a string `record_json` and an optional non-negative integer
 * `child_index`, with optional frame fields of their documented types; extra
 * fields are allowed), and `classifyNativeLine` must tell frames as before.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { classifyNativeLine, isRetainedFrameLine, RetainedFrameLine } from "../../src/domain/muse-code/native.js"

const bySchema = (u: unknown) => Either.isRight(Schema.decodeUnknownEither(RetainedFrameLine, { onExcessProperty: "ignore" })(u))

const child = (i: number) => ({ child_index: i, record_json: JSON.stringify({ sequence: i + 1, payload_type: "x" }) })
const valid = {
  retained_frame: "session_permission_transaction",
  frame_schema_version: 1,
  outer_log_ordinal: 1,
  transaction_id: "t-1",
  content_sha256: "sha256:00",
  children: [child(0), child(1)]
}

describe("isRetainedFrameLine", () => {
  it("accepts a full frame, the minimal one, extra fields, and children without child_index", () => {
    for (const u of [valid, { retained_frame: "x", children: [] }, { ...valid, extra: [1] }, {
      retained_frame: "x",
      children: [{ record_json: "{}", note: 1 }]
    }]) {
      expect(isRetainedFrameLine(u)).toBe(true)
      expect(bySchema(u)).toBe(true)
    }
  })

  it.each([
    ["a number", 5],
    ["an array", [valid]],
    ["null", null],
    ["no retained_frame", { children: [] }],
    ["a numeric retained_frame", { ...valid, retained_frame: 1 }],
    ["no children", { retained_frame: "x" }],
    ["children that are an object", { ...valid, children: { 0: child(0) } }],
    ["a child that is a string", { ...valid, children: ["{}"] }],
    ["a child that is an array", { ...valid, children: [["{}"]] }],
    ["a child without record_json", { ...valid, children: [{ child_index: 0 }] }],
    ["a child whose record_json is an object", { ...valid, children: [{ child_index: 0, record_json: {} }] }],
    ["a negative child_index", { ...valid, children: [{ child_index: -1, record_json: "{}" }] }],
    ["a fractional child_index", { ...valid, children: [{ child_index: 0.5, record_json: "{}" }] }],
    ["a child_index past 2^53 - 1", { ...valid, children: [{ child_index: 2 ** 53, record_json: "{}" }] }],
    ["a string child_index", { ...valid, children: [{ child_index: "0", record_json: "{}" }] }],
    ["a null child_index", { ...valid, children: [{ child_index: null, record_json: "{}" }] }],
    ["a string frame_schema_version", { ...valid, frame_schema_version: "1" }],
    ["a null outer_log_ordinal", { ...valid, outer_log_ordinal: null }],
    ["a numeric transaction_id", { ...valid, transaction_id: 7 }],
    ["a null content_sha256", { ...valid, content_sha256: null }]
  ])("refuses %s", (_, u) => {
    expect(isRetainedFrameLine(u)).toBe(false)
    expect(bySchema(u)).toBe(false)
  })

  it("agrees with the Schema on arbitrary frame-like values", () => {
    const anyJson = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -3, max: 3 }),
      fc.double({ noNaN: true }),
      fc.constant(2 ** 53),
      fc.string({ maxLength: 3 }),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom("record_json", "child_index", "x"), fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), {
        maxKeys: 3
      })
    )
    const childLike = fc.oneof(
      fc.record({ child_index: fc.oneof(fc.nat(3), anyJson), record_json: fc.oneof(fc.constant("{}"), anyJson) }, { requiredKeys: [] }),
      anyJson
    )
    const fields: Record<string, fc.Arbitrary<unknown>> = {
      retained_frame: fc.oneof(fc.constant("t"), anyJson),
      frame_schema_version: fc.oneof(fc.constant(1), anyJson),
      outer_log_ordinal: fc.oneof(fc.constant(2), anyJson),
      transaction_id: fc.oneof(fc.constant("t-1"), anyJson),
      content_sha256: fc.oneof(fc.constant("sha256:00"), anyJson),
      children: fc.oneof(fc.array(childLike, { maxLength: 3 }), anyJson)
    }
    const frameLike = fc.record(fields, { requiredKeys: [] })
    fc.assert(
      fc.property(fc.oneof(frameLike, anyJson), (u) => {
        // JSON never carries `undefined`: drop such keys as a parse would.
        const parsed: unknown = u === undefined ? null : JSON.parse(JSON.stringify(u))
        expect(isRetainedFrameLine(parsed)).toBe(bySchema(parsed))
      }),
      { numRuns: 3000 }
    )
  })
})

describe("classifyNativeLine on frames", () => {
  it("a frame: its fields and children, as read", () => {
    const r = classifyNativeLine(valid)
    expect(Either.isRight(r) && r.right._tag === "frame" ? r.right.frame.children.map((c) => c.record_json) : null)
      .toEqual(valid.children.map((c) => c.record_json))
  })

  it("a frame of the wrong shape, or with children out of order, is refused", () => {
    expect(Either.isLeft(classifyNativeLine({ ...valid, children: [{ child_index: 0 }] }))).toBe(true)
    expect(Either.isLeft(classifyNativeLine({ ...valid, children: [child(1), child(0)] }))).toBe(true)
    expect(Either.isLeft(classifyNativeLine({ ...valid, children: [{ record_json: "{}" }, child(0)] }))).toBe(true)
  })
})
