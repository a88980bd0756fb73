/**
 * `stream`'s bytes stay what they were (issue 13, item 3: the speed work of
 * session 7): the NDJSON writer (one buffer per chunk, looked at once for raw
 * C1 controls and bidi characters) against the line-at-a-time reference
 * (`JSON.stringify` + `escapeJsonControls` of each value, UTF-8), and the
 * Muse Code one-line text against the `/\s+/g` replace it skips when the text
 * is already one line. Property tests over generated hostile values.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { ndjson, ndjsonOfTexts } from "../src/cli/output.js"
import { oneLine } from "../src/domain/muse-code/records.js"
import { escapeJsonControls } from "../src/domain/render.js"

/** What `stream` wrote a line at a time: each value's JSON text escaped and encoded on its own. */
const reference = (values: ReadonlyArray<unknown>): Buffer =>
  Buffer.concat(values.flatMap((v) => {
    const s = JSON.stringify(v) as string | undefined
    return s === undefined ? [] : [Buffer.from(escapeJsonControls(s) + "\n", "utf8")]
  }))

/** Characters that stress the writer: C1 controls, bidi overrides and isolates, their UTF-8 neighbours (U+2028, U+2060, “”), lone surrogates, astral. */
const hostileChar = fc.constantFrom(
  "\u0080", "\u0085", "\u009f", "\u00a0", "\u00c2", "\u202a", "\u202e", "\u202f", "\u2066", "\u2069", "\u206a", "\u2028", "\u2029",
  "\u201c", "\u201d", "\u2060", "\ud800", "\udfff", "🎉", "é", "日", "\u0000", "\n", "\"", "\\", " ", "a", "1"
)
const hostileString = fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 4, unit: "binary" })), { maxLength: 40 }).map((a) => a.join(""))
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.double(),
    fc.constantFrom(null, true, false, -0, 1e21, 5e-324),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 })
  )
})).value

describe("stream's NDJSON writer (property)", () => {
  it("writes, for any chunk of hostile values, what the line-at-a-time reference wrote, chunk after chunk", () => {
    fc.assert(
      fc.property(fc.array(fc.array(hostileValue, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), (chunks) => {
        const outs = chunks.map((c) => Buffer.from(ndjson(c)))
        // each chunk's bytes are its own (a later call does not change an earlier answer)
        chunks.forEach((c, i) => expect(outs[i].equals(reference(c))).toBe(true))
      }),
      { numRuns: 1500 }
    )
  })

  it("ndjsonOfTexts: a chunk with and without a raw C1 or bidi character, of any size", () => {
    fc.assert(
      fc.property(fc.array(hostileString, { maxLength: 30 }), fc.integer({ min: 0, max: 200_000 }), (strings, pad) => {
        const texts = [...strings.map((s) => JSON.stringify(s)), JSON.stringify("x".repeat(pad))]
        expect(Buffer.from(ndjsonOfTexts(texts)).equals(reference([...strings, "x".repeat(pad)]))).toBe(true)
      }),
      { numRuns: 300 }
    )
    expect(ndjsonOfTexts([]).length).toBe(0)
  })
})

/** `oneLine` before its shortcut: whitespace runs made one space, trimmed, cut to 1,000 with an ellipsis. */
const oneLineReference = (s: string): string => {
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > 1000 ? flat.slice(0, 999) + "…" : flat
}

describe("Muse Code's one-line text (property)", () => {
  it("is the whitespace-flattened, trimmed, cut text, whatever the text", () => {
    const ws = fc.constantFrom(" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u3000", "\ufeff", " \u00a0", "\v")
    fc.assert(
      fc.property(fc.array(fc.oneof(ws, fc.string({ maxLength: 8 })), { maxLength: 60 }), fc.integer({ min: 0, max: 1100 }), (parts, pad) => {
        const s = parts.join("")
        expect(oneLine(s)).toBe(oneLineReference(s))
        const long = "word ".repeat(pad) + s
        expect(oneLine(long)).toBe(oneLineReference(long))
      }),
      { numRuns: 3000 }
    )
  })
})
