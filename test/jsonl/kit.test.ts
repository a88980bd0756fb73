/**
 * The JSONL source kit (src/layers/jsonl): line offsets under any read step
 * (CRLF, empty lines, no final newline, a line or a multi-byte character
 * split across reads, a BOM), the one resume rule (a cursor's span is its
 * line, `\r` included, plus its `\n`: at most maxRecordBytes + 1), a cursor
 * at the last line, on an unterminated line, past the end, and shrink
 * detection. Sources are in memory (a SourceAccess test double), so the
 * reads the kit makes are seen.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { decodeCursor } from "../../src/domain/cursor.js"
import {
  type Line,
  type LineBinding,
  maxCursorSpan,
  openJsonl,
  readLines,
  spanIsValid
} from "../../src/layers/jsonl/index.js"
import { HAND_ON_BYTES, handOnParts } from "../../src/layers/jsonl/lines.js"
import type { AuthorizedFile, OpenSource, SourceAccessShape } from "../../src/services/SourceAccess.js"

/** A file in memory: its bytes can be replaced between reads; every read is logged. */
const memFile = (initial: Buffer) => {
  const state = { data: initial, reads: [] as Array<[number, number]> }
  const file: AuthorizedFile = {
    path: "/mem/session.jsonl",
    root: "/mem",
    stat: { size: initial.length, mtimeMs: 0, birthtimeMs: 0, ctimeMs: 0, dev: 1, ino: 1 }
  }
  const statNow = Effect.sync(() => ({ ...file.stat, size: state.data.length }))
  const open: OpenSource = {
    file,
    read: (offset, length) =>
      Effect.sync(() => {
        state.reads.push([offset, length])
        return Uint8Array.prototype.slice.call(state.data, offset, offset + length)
      }),
    stat: statNow
  }
  const access = { open: () => Effect.succeed(open) } as unknown as SourceAccessShape
  return { state, file, open, access }
}

/** What splitting `text` must give: each line's [start, end), bytes (no `\n`) and terminated flag. */
const expected = (buf: Buffer) => {
  const out: Array<{ start: number; end: number; bytes: string; terminated: boolean }> = []
  let i = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0
  while (i < buf.length) {
    const nl = buf.indexOf(10, i)
    if (nl === -1) {
      out.push({ start: i, end: buf.length, bytes: buf.subarray(i).toString("hex"), terminated: false })
      break
    }
    out.push({ start: i, end: nl + 1, bytes: buf.subarray(i, nl).toString("hex"), terminated: true })
    i = nl + 1
  }
  return out
}

const linesOf = (buf: Buffer, stepBytes: number, from = 0, maxLineBytes = 1 << 20) =>
  Stream.runCollect(readLines(memFile(buf).open, { from, stepBytes, maxLineBytes })).pipe(
    Effect.map((c) =>
      [...c].map((l: Line) => ({ start: l.start, end: l.end, bytes: l.bytes.toString("hex"), terminated: l.terminated }))
    )
  )

describe("line reading with byte offsets", () => {
  it.effect("CRLF, empty lines, no final newline, a multi-byte character split by a 1-byte step", () =>
    Effect.gen(function*() {
      const text = Buffer.from("{\"a\":\"é😀\"}\r\n\n\r\n{\"b\":1}\n{\"c\":\"ü\"}", "utf8")
      for (const step of [1, 2, 3, 5, 4096]) {
        const got = yield* linesOf(text, step)
        expect(got).toEqual(expected(text))
      }
      const got = yield* linesOf(text, 2)
      expect(got.map((l) => Buffer.from(l.bytes, "hex").toString("utf8"))).toEqual([
        "{\"a\":\"é😀\"}\r",
        "",
        "\r",
        "{\"b\":1}",
        "{\"c\":\"ü\"}"
      ])
      expect(got.map((l) => l.terminated)).toEqual([true, true, true, true, false])
      expect(got[1]).toMatchObject({ start: 16, end: 17 })
    }))

  it.effect("any text, any read step, with or without BOM and final newline: offsets and bytes as split whole", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.string({ unit: fc.constantFrom("a", "\r", "é", "😀", "\u2028", "{", "\"", " ") , maxLength: 12 }), { maxLength: 12 }),
          fc.boolean(),
          fc.boolean(),
          fc.integer({ min: 1, max: 9 }),
          (lines, bom, finalNewline, step) => {
            const text = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "")
            const buf = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, "utf8")])
            return Effect.runPromise(linesOf(buf, step)).then((got) => {
              expect(got).toEqual(expected(buf))
            })
          }
        ),
        { numRuns: 200 }
      )
    ))

  it.effect("reading from a line's offset gives the same lines as reading from the start", () =>
    Effect.gen(function*() {
      const text = Buffer.from("one\r\ntwo😀\n\nthree", "utf8")
      const all = expected(text)
      for (const l of all) expect(yield* linesOf(text, 3, l.start)).toEqual(all.filter((x) => x.start >= l.start))
    }))

  it.effect("a line longer than the limit is reported oversized, its bytes not held", () =>
    Effect.gen(function*() {
      const text = Buffer.from("short\n" + "x".repeat(50) + "\nend\n")
      const got = yield* Stream.runCollect(readLines(memFile(text).open, { stepBytes: 7, maxLineBytes: 10 }))
      expect([...got].map((l) => [l.start, l.end, l.oversized, l.bytes.length])).toEqual([[0, 6, false, 5], [6, 57, true, 0], [57, 61, false, 3]])
    }))
})

describe("a read step's lines are handed on in parts (fewer events alive at once)", () => {
  it("handOnParts: parts of at most the byte budget (a longer line alone), in order, nothing lost", () => {
    const line = (n: number, i: number): Line => ({ start: i, end: i + n + 1, lineNumber: i + 1, bytes: Buffer.alloc(n), terminated: true, oversized: false })
    const sizes = [10, 20, 5, 100, 3, 3, 3, 40]
    const lines = sizes.map(line)
    // Each line counts its bytes plus its newline: 11, 21, 6 | 101 | 4, 4, 4 | 41 with a budget of 40.
    const parts = handOnParts(Chunk.unsafeFromArray(lines), 40).map((p) => [...p].map((l) => l.bytes.length))
    expect(parts).toEqual([[10, 20, 5], [100], [3, 3, 3], [40]])
    expect(handOnParts(Chunk.unsafeFromArray(lines), 1 << 20).map((p) => p.length)).toEqual([8])
    expect(handOnParts(Chunk.empty<Line>(), 40).map((p) => p.length)).toEqual([0])
  })

  it.effect("readLines: one 256 KiB step of 1 KiB lines goes on in parts of at most HAND_ON_BYTES, each part through the whole pipeline before the next", () =>
    Effect.gen(function*() {
      const text = Buffer.from(("x".repeat(1023) + "\n").repeat(256))
      const log: Array<string> = []
      let reads = 0
      let mapped = 0
      let written = 0
      yield* readLines(memFile(text).open, { stepBytes: 256 * 1024 + 1, maxLineBytes: 1 << 20, onRead: () => reads++ }).pipe(
        // A consumer's per-chunk work (as an adapter parsing lines into events), then its sink (as the CLI writing them).
        Stream.mapChunks((c) => (log.push(`map ${mapped++}:${c.length}`), c)),
        Stream.runForEachChunk((c) => Effect.sync(() => log.push(`write ${written++}:${c.length}`)))
      )
      expect(reads).toBe(1)
      const perPart = Math.floor(HAND_ON_BYTES / 1024)
      const parts = Array.from({ length: Math.ceil(256 / perPart) }, (_, i) => Math.min(perPart, 256 - i * perPart))
      expect(log).toEqual(parts.flatMap((n, i) => [`map ${i}:${n}`, `write ${i}:${n}`]))
    }))
})

const SOURCE = "test:jsonl:kit"
const NATIVE: LineBinding = { checkNewline: false, unterminated: false, headRequired: true }
const TOLERANT: LineBinding = { checkNewline: true, unterminated: true, headRequired: false }

/** Open `mem` with the kit, stream its lines from `from` with their cursors. */
const cursorsOf = (mem: ReturnType<typeof memFile>, binding: LineBinding, maxRecordBytes: number) =>
  Effect.scoped(Effect.gen(function*() {
    const src = yield* openJsonl(mem.access, mem.file, { sourceId: SOURCE, binding, maxRecordBytes, what: "The log" })
    const lines = yield* Stream.runCollect(src.lines(0))
    return [...lines].filter((l) => !l.oversized && (binding.unterminated || l.terminated)).map((l, i) => ({
      line: l,
      cursor: src.cursor(l, i + 1)
    }))
  }))

/** Resume `token` against `mem`: the resume point and the lines after it, or the error code. */
const resumeFrom = (mem: ReturnType<typeof memFile>, binding: LineBinding, maxRecordBytes: number, token: string) =>
  Effect.scoped(Effect.gen(function*() {
    const src = yield* openJsonl(mem.access, mem.file, { sourceId: SOURCE, binding, maxRecordBytes, what: "The log" })
    const state = decodeCursor(token, SOURCE)
    if (Either.isLeft(state)) return yield* state.left
    const at = yield* src.resume(state.right)
    const rest = yield* Stream.runCollect(src.lines(at.next))
    return { at, rest: [...rest].map((l) => l.bytes.toString("utf8")) }
  })).pipe(Effect.catchAll((e) => Effect.succeed(e.code)))

/** A token naming `[ls, off)` with a given seq (the check need not match: the span is refused first). */
const forged = (ls: number, off: number) => {
  const state = { v: 1, src: SOURCE, seq: 1, ls, off, h: "00000000", hd: "0:e3b0c44298fc1c149afbf4c8996fb924" }
  return "c1." + Buffer.from(JSON.stringify(state)).toString("base64url")
}

describe("the resume rule: a cursor's span is its line (\\r counted) plus its \\n, at most maxRecordBytes + 1", () => {
  it("spanIsValid: 1 ..= maxRecordBytes + 1", () => {
    expect(maxCursorSpan(100)).toBe(101)
    expect(spanIsValid(10, 10, 100)).toBe(false)
    expect(spanIsValid(10, 11, 100)).toBe(true)
    expect(spanIsValid(10, 111, 100)).toBe(true)
    expect(spanIsValid(10, 112, 100)).toBe(false)
    expect(spanIsValid(10, 9, 100)).toBe(false)
  })

  for (const [name, binding] of [["native (fail closed)", NATIVE], ["tolerant", TOLERANT]] as const) {
    it.effect(`${name}: a CRLF line of exactly maxRecordBytes (its \\r included) has a cursor that resumes`, () =>
      Effect.gen(function*() {
        const max = 40
        const long = "{\"k\":\"" + "v".repeat(max - 9) + "\"}\r" // max bytes with its \r
        expect(Buffer.byteLength(long)).toBe(max)
        const mem = memFile(Buffer.from(`{"a":1}\r\n${long}\n{"b":2}\r\n`))
        const cs = yield* cursorsOf(mem, binding, max)
        expect(cs.map((c) => c.line.end - c.line.start)).toEqual([9, max + 1, 9])
        const r = yield* resumeFrom(mem, binding, max, cs[1].cursor)
        expect(r).toMatchObject({ at: { ls: 9, off: 9 + max + 1, next: 9 + max + 1, continues: false }, rest: ["{\"b\":2}\r"] })
        // One byte more and the line is oversized: it never has a cursor.
        const over = memFile(Buffer.from(`{"a":1}\r\n${long.replace("\r", " \r")}\n`))
        expect((yield* cursorsOf(over, binding, max)).length).toBe(1)
      }))

    it.effect(`${name}: a span over maxRecordBytes + 1 (or empty) is refused before the source is read`, () =>
      Effect.gen(function*() {
        const max = 40
        const mem = memFile(Buffer.from("x\n".repeat(100)))
        for (const [ls, off] of [[10, 10 + max + 2], [10, 10], [12, 11]]) {
          mem.state.reads.length = 0
          expect(yield* resumeFrom(mem, binding, max, forged(ls, off))).toBe("INVALID_CURSOR")
          expect(mem.state.reads.filter(([o]) => o === ls)).toEqual([])
        }
      }))

    it.effect(`${name}: a cursor at the last line resumes to nothing, then to what is appended`, () =>
      Effect.gen(function*() {
        const mem = memFile(Buffer.from("{\"a\":1}\n{\"b\":2}\n"))
        const cs = yield* cursorsOf(mem, binding, 100)
        const last = cs[cs.length - 1].cursor
        expect(yield* resumeFrom(mem, binding, 100, last)).toMatchObject({ rest: [] })
        mem.state.data = Buffer.concat([mem.state.data, Buffer.from("{\"c\":3}\n")])
        expect(yield* resumeFrom(mem, binding, 100, last)).toMatchObject({ at: { next: 16, continues: false }, rest: ["{\"c\":3}"] })
      }))

    it.effect(`${name}: a cursor past the end of the source (truncated since) is INVALID_CURSOR`, () =>
      Effect.gen(function*() {
        const mem = memFile(Buffer.from("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"))
        const cs = yield* cursorsOf(mem, binding, 100)
        mem.state.data = mem.state.data.subarray(0, 20)
        expect(yield* resumeFrom(mem, binding, 100, cs[2].cursor)).toBe("INVALID_CURSOR")
        expect(yield* resumeFrom(mem, binding, 100, cs[1].cursor)).toMatchObject({ rest: ["{\"c\""] })
      }))

    it.effect(`${name}: a changed line or a rewritten head is INVALID_CURSOR`, () =>
      Effect.gen(function*() {
        const mem = memFile(Buffer.from("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"))
        const cs = yield* cursorsOf(mem, binding, 100)
        const original = mem.state.data
        mem.state.data = Buffer.from(original.toString().replace("\"b\":2", "\"b\":5"))
        expect(yield* resumeFrom(mem, binding, 100, cs[1].cursor)).toBe("INVALID_CURSOR")
        mem.state.data = Buffer.from(original.toString().replace("\"a\":1", "\"a\":7"))
        expect(yield* resumeFrom(mem, binding, 100, cs[1].cursor)).toBe("INVALID_CURSOR")
        mem.state.data = original
        expect(yield* resumeFrom(mem, binding, 100, cs[1].cursor)).toMatchObject({ rest: ["{\"c\":3}"] })
      }))
  }

  it.effect("tolerant: a cursor on a line without a trailing newline resumes after the \\n appended since, or continues the line", () =>
    Effect.gen(function*() {
      const mem = memFile(Buffer.from("{\"a\":1}\n{\"b\":2}"))
      const cs = yield* cursorsOf(mem, TOLERANT, 100)
      expect(cs.map((c) => c.line.terminated)).toEqual([true, false])
      const torn = cs[1].cursor
      expect(decodeCursor(torn, SOURCE)).toMatchObject({ right: { x: 1, ls: 8, off: 15 } })
      expect(yield* resumeFrom(mem, TOLERANT, 100, torn)).toMatchObject({ at: { next: 15, continues: true }, rest: [] })
      mem.state.data = Buffer.from("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n")
      expect(yield* resumeFrom(mem, TOLERANT, 100, torn)).toMatchObject({ at: { next: 16, continues: false }, rest: ["{\"c\":3}"] })
      // A fail-closed provider never resumes after an unterminated line.
      expect(yield* resumeFrom(mem, NATIVE, 100, torn)).toBe("INVALID_CURSOR")
    }))

  it.effect("native: a token without a head binding is refused; tolerant: accepted (early tokens had none)", () =>
    Effect.gen(function*() {
      const mem = memFile(Buffer.from("{\"a\":1}\n{\"b\":2}\n"))
      const cs = yield* cursorsOf(mem, NATIVE, 100)
      const state = decodeCursor(cs[0].cursor, SOURCE)
      if (Either.isLeft(state)) throw new Error("undecodable")
      const { hd: _hd, ...noHead } = state.right
      const token = "c1." + Buffer.from(JSON.stringify(noHead)).toString("base64url")
      expect(yield* resumeFrom(mem, NATIVE, 100, token)).toBe("INVALID_CURSOR")
      const tolerant = yield* cursorsOf(mem, TOLERANT, 100)
      const ts = decodeCursor(tolerant[0].cursor, SOURCE)
      if (Either.isLeft(ts)) throw new Error("undecodable")
      const { hd: _h2, ...tNoHead } = ts.right
      const tToken = "c1." + Buffer.from(JSON.stringify(tNoHead)).toString("base64url")
      expect(yield* resumeFrom(mem, TOLERANT, 100, tToken)).toMatchObject({ rest: ["{\"b\":2}"] })
    }))
})

describe("shrink detection", () => {
  it.effect("a source that only grows while it is read ends normally", () =>
    Effect.gen(function*() {
      const text = Buffer.from("{\"n\":0}\n".repeat(64))
      const run = (mutate: (mem: ReturnType<typeof memFile>) => void) =>
        Effect.scoped(Effect.gen(function*() {
          const mem = memFile(text)
          const src = yield* openJsonl(mem.access, mem.file, { sourceId: SOURCE, binding: NATIVE, maxRecordBytes: 100, what: "The log" })
          let first = true
          return yield* src.lines(0).pipe(
            Stream.tap(() => Effect.sync(() => {
              if (first) mutate(mem)
              first = false
            })),
            Stream.runCount
          )
        })).pipe(Effect.match({ onFailure: (e) => e.code, onSuccess: (n) => n }))
      expect(yield* run(() => {})).toBe(64)
      expect(yield* run((m) => void (m.state.data = Buffer.concat([m.state.data, Buffer.from("{\"n\":1}\n")])))).toBeGreaterThanOrEqual(64)
    }))

  it.effect("a shrink seen by a later read step fails MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      const text = Buffer.from(("{\"n\":" + "1".repeat(100) + "}\n").repeat(3000)) // ~320 KiB: two 256 KiB steps
      const mem = memFile(text)
      const code = yield* Effect.scoped(Effect.gen(function*() {
        const src = yield* openJsonl(mem.access, mem.file, { sourceId: SOURCE, binding: NATIVE, maxRecordBytes: 200, what: "The log" })
        let first = true
        return yield* src.lines(0).pipe(
          Stream.tap(() => Effect.sync(() => {
            if (first) mem.state.data = mem.state.data.subarray(0, 5000)
            first = false
          })),
          Stream.runCount
        )
      })).pipe(Effect.match({ onFailure: (e) => e.code, onSuccess: (n) => `ok:${n}` }))
      expect(code).toBe("MALFORMED_SOURCE")
    }))
})
