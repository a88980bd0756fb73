/**
 * `LineSplitter.begin` / `next` (issue 13, bench figure c: discovery takes a
 * line or two of each log's head without a generator): over any text cut into
 * reads at any places, the lines taken are the text's lines as the spec of a
 * JSONL line says them (the bytes between newlines, offsets in the file, a
 * BOM at offset 0 skipped, a line longer than the limit `oversized` with no
 * bytes, an unterminated last line only at `finish`); a caller that stops
 * after its first lines gets exactly those, and the splitter is not moved past
 * the read (its offset), as `split`'s generator left it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { type Line, LineSplitter } from "../../src/layers/jsonl/lines.js"

/** The lines of `buf` as a JSONL file's, worked out whole: what any way of reading it must give. */
const expected = (buf: Buffer, max: number): Array<Omit<Line, "bytes"> & { readonly bytes: string }> => {
  const from = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0
  const out: Array<Omit<Line, "bytes"> & { readonly bytes: string }> = []
  let start = from
  let lineNumber = 1
  for (let i = from; i < buf.length; i++) {
    if (buf[i] !== 10) continue
    const oversized = i - start > max
    out.push({ start, end: i + 1, lineNumber: lineNumber++, bytes: oversized ? "" : buf.subarray(start, i).toString("latin1"), terminated: true, oversized })
    start = i + 1
  }
  if (start < buf.length) {
    const oversized = buf.length - start > max
    out.push({ start, end: buf.length, lineNumber, bytes: oversized ? "" : buf.subarray(start).toString("latin1"), terminated: false, oversized })
  }
  return out
}

const shown = (l: Line) => ({ start: l.start, end: l.end, lineNumber: l.lineNumber, bytes: l.bytes.toString("latin1"), terminated: l.terminated, oversized: l.oversized })

/**
 * `buf` cut at `cuts` (offsets, any order), read in those steps with `begin` / `next`, then `finish`. The first read
 * holds at least 3 bytes (a BOM whole), as every first read at offset 0 does (`readSize`: at least 16).
 */
const taken = (buf: Buffer, cuts: ReadonlyArray<number>, max: number) => {
  const ends = [...new Set(cuts.map((c) => c % (buf.length + 1)))].filter((c) => c >= 3 && c < buf.length).sort((a, b) => a - b)
  const splitter = new LineSplitter(max)
  const out: Array<Line> = []
  let at = 0
  for (const e of [...ends, buf.length]) {
    if (e === at) continue
    expect(splitter.offset).toBe(at)
    splitter.begin(buf.subarray(at, e))
    for (let line = splitter.next(); line !== undefined; line = splitter.next()) out.push(line)
    // Taken to its end: no more lines from this read.
    expect(splitter.next()).toBeUndefined()
    at = e
  }
  expect(splitter.offset).toBe(buf.length)
  return [...out, ...splitter.finish()].map(shown)
}

const textOf = fc.tuple(
  fc.array(fc.string({ unit: fc.constantFrom("a", "\r", "\u00e9", "\u{1f600}", "{", "\"", " ", "\n"), maxLength: 14 }), { maxLength: 10 }),
  fc.boolean()
).map(([parts, bom]) => Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(parts.join("\n"), "utf8")]))

describe("LineSplitter.begin / next", () => {
  it("any text, read in any steps: its lines as worked out whole (offsets, numbers, oversized, the torn last one)", () => {
    fc.assert(
      fc.property(textOf, fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 0, max: 12 }), (buf, cuts, max) => {
        expect(taken(buf, cuts, max)).toEqual(expected(buf, max))
      }),
      { numRuns: 400 }
    )
  })

  it("a caller that stops after its first lines of a read gets exactly those, and the offset stays before that read", () => {
    fc.assert(
      fc.property(textOf, fc.nat({ max: 6 }), (buf, want) => {
        fc.pre(buf.length > 0)
        const splitter = new LineSplitter(1 << 20)
        splitter.begin(buf)
        const got: Array<Line> = []
        let ended = false
        while (got.length < want) {
          const line = splitter.next()
          if (line === undefined) {
            ended = true
            break
          }
          got.push(line)
        }
        const whole = expected(buf, 1 << 20).filter((l) => l.terminated)
        expect(got.map(shown)).toEqual(whole.slice(0, Math.min(want, whole.length)))
        // The offset moves past the read only once all its lines were taken.
        expect(splitter.offset).toBe(ended ? buf.length : 0)
      }),
      { numRuns: 300 }
    )
  })

  it("split, the generator, gives the same lines as begin / next", () => {
    fc.assert(
      fc.property(textOf, fc.integer({ min: 0, max: 12 }), (buf, max) => {
        fc.pre(buf.length > 0)
        const viaGenerator = [...new LineSplitter(max).split(buf)].map(shown)
        const expectedTerminated = expected(buf, max).filter((l) => l.terminated)
        expect(viaGenerator).toEqual(expectedTerminated)
      }),
      { numRuns: 200 }
    )
  })
})
