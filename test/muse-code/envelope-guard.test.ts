/**
 * The hot-path envelope check (`isRecordEnvelope`) must accept exactly what
 * the `RecordEnvelope` Schema accepts (seed 001, "Trajectory shape"): a record
 * envelope is `{sequence, payload_type, ...}` with the optional fields of
 * their documented types; extra fields are allowed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import { isRecordEnvelope, mapRecordEnvelope, RecordEnvelope } from "../../src/domain/muse-code/records.js"

const bySchema = (u: unknown) => Either.isRight(Schema.decodeUnknownEither(RecordEnvelope, { onExcessProperty: "ignore" })(u))

const valid = {
  sequence: 3,
  id: "00000003",
  causation_id: null,
  stream: { kind: "session", id: "s-1" },
  recorded_at: 1790349214936524,
  record_type: "event",
  durability: "durable",
  payload_type: "runtime.session.metadata",
  payload: { kind: "metadata" },
  schema_version: 1,
  payload_schema_version: 1
}

describe("isRecordEnvelope", () => {
  it("accepts a full envelope and the minimal one", () => {
    expect(isRecordEnvelope(valid)).toBe(true)
    expect(isRecordEnvelope({ sequence: 0, payload_type: "x" })).toBe(true)
    expect(isRecordEnvelope({ ...valid, extra: [1, 2] })).toBe(true)
  })

  it.each([
    ["a number", 5],
    ["an array", [valid]],
    ["null", null],
    ["no sequence", { payload_type: "x" }],
    ["a negative sequence", { ...valid, sequence: -1 }],
    ["a fractional sequence", { ...valid, sequence: 1.5 }],
    ["a sequence past 2^53 - 1", { ...valid, sequence: 2 ** 53 }],
    ["a string sequence", { ...valid, sequence: "3" }],
    ["no payload_type", { sequence: 1 }],
    ["a numeric causation_id", { ...valid, causation_id: 7 }],
    ["a stream without id", { ...valid, stream: { kind: "session" } }],
    ["a stream that is an array", { ...valid, stream: ["s-1"] }],
    ["a boolean recorded_at", { ...valid, recorded_at: true }],
    ["a payload that is an array", { ...valid, payload: [] }],
    ["a payload that is null", { ...valid, payload: null }],
    ["a string schema_version", { ...valid, schema_version: "1" }]
  ])("refuses %s", (_, u) => {
    expect(isRecordEnvelope(u)).toBe(false)
    expect(bySchema(u)).toBe(false)
  })

  it("agrees with the Schema on arbitrary envelope-like values", () => {
    const anyJson = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -5, max: 5 }),
      fc.double({ noNaN: true }),
      fc.constant(2 ** 53),
      fc.string({ maxLength: 3 }),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom("id", "kind", "x"), fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), { maxKeys: 3 })
    )
    const keys = Object.keys(valid)
    const envelopeLike = fc.record(
      Object.fromEntries(keys.map((k) => [k, fc.oneof(fc.constant((valid as Record<string, unknown>)[k]), anyJson)])),
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(fc.oneof(envelopeLike, anyJson), (u) => {
        // JSON never carries `undefined`: drop such keys as a parse would.
        const parsed: unknown = u === undefined ? null : JSON.parse(JSON.stringify(u))
        expect(isRecordEnvelope(parsed)).toBe(bySchema(parsed))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("event text of a record", () => {
  // seed 001 / DESIGN "text": a one-line summary, whitespace runs made one space, at most 1000 characters.
  const reference = (s: string) => {
    const flat = s.replace(/\s+/g, " ").trim()
    return flat.length > 1000 ? flat.slice(0, 999) + "…" : flat
  }
  const textOf = (prompt: string) => {
    const ev = mapRecordEnvelope({ sequence: 1, payload_type: "turn.prompt", payload: { event: { prompt } } }, {
      sourceId: "s",
      locatorClass: "manual-export",
      fallbackSessionId: "f",
      sequence: 0,
      cursor: "c",
      spawns: new Map(),
      provenance: {}
    }, "here")
    return Either.isRight(ev) ? ev.right.text : "refused"
  }

  it("is the prompt on one line, cut at 1000 characters, however long the prompt and its whitespace", () => {
    const piece = fc.oneof(fc.constantFrom(" ", "\n\n", "\t ", " ".repeat(3000), "x"), fc.string({ maxLength: 30 }))
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (parts) => {
        const prompt = parts.join("")
        expect(textOf(prompt)).toBe(prompt === "" ? null : reference(prompt))
      }),
      { numRuns: 300 }
    )
    expect(textOf("a".repeat(1000) + " ".repeat(5000))).toBe("a".repeat(1000))
    expect(textOf(" ".repeat(5000) + "b".repeat(5000))).toBe("b".repeat(999) + "…")
  })
})
