/**
 * Large outputs written a part at a time (so that Ctrl-C lands between two)
 * are the bytes written whole before: the ATIF document a slice of steps at
 * a time (src/cli/json-chunks.ts) is `JSON.stringify(doc, null, 2)` with C1
 * controls and bidi overrides escaped, plus a newline, for any document.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { prettyJsonChunks } from "../src/cli/json-chunks.js"
import { escapeJsonControls } from "../src/domain/render.js"

const whole = (doc: object): Buffer => Buffer.from(escapeJsonControls(JSON.stringify(doc, null, 2)) + "\n", "utf8")

const parts = (doc: object): Array<Uint8Array> => Effect.runSync(Stream.runCollect(prettyJsonChunks(doc, "steps")).pipe(Effect.map(Chunk.toArray)))

const text = fc.array(fc.oneof(fc.constantFrom("\n", "\r", "\u0085", "\u202e", "\u2066", "\u0000", "\"", "\\", "é", "🎉", "  "), fc.string({ maxLength: 6 })), { maxLength: 8 })
  .map((a) => a.join(""))
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double(),
    fc.constantFrom(null, true, false),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(text, tie("v"), { maxKeys: 3 })
  )
})).v

describe("prettyJsonChunks", () => {
  it("joined, the chunks are the whole document's bytes, whatever it holds and however many steps", () => {
    fc.assert(
      fc.property(
        fc.dictionary(text, value, { maxKeys: 4 }),
        fc.array(value, { maxLength: 450 }),
        fc.boolean(),
        (rest, steps, stepsFirst) => {
          const doc = stepsFirst ? { steps, ...rest, schema_version: "ATIF-v1.7" } : { schema_version: "ATIF-v1.7", ...rest, steps }
          const got = parts(doc)
          expect(Buffer.concat(got).equals(whole(doc))).toBe(true)
          // Written a part at a time: a slice of 200 steps per chunk, plus the document's head and tail.
          if (Array.isArray(doc.steps) && doc.steps.length > 0) expect(got.length).toBe(2 + Math.ceil(doc.steps.length / 200))
        }
      ),
      { numRuns: 150 }
    )
  })

  it("a document that holds the mark's own text, or no steps, is written whole", () => {
    const marked = { title: "\u0000session-ingest:items\u0000", steps: [{ a: 1 }, { b: "\u0000session-ingest:items\u0000" }] }
    expect(Buffer.concat(parts(marked)).equals(whole(marked))).toBe(true)
    expect(parts(marked)).toHaveLength(1)
    for (const doc of [{ steps: [] }, { other: [1, 2] }, { steps: "x" }]) {
      expect(parts(doc)).toHaveLength(1)
      expect(Buffer.concat(parts(doc)).equals(whole(doc))).toBe(true)
    }
  })
})
