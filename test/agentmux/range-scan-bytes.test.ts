/**
 * A long range of a zone (a first scan) is classified over its bytes, a short
 * one (a rescan's append) over its latin1 text (issue 13, `range-scan.ts`):
 * both ways must give the very same scan (seed 002, `scan_line`,
 * `line_session_id`, `init_cwd`): the same groups of lines, session ids,
 * working directories, counts of unreadable, oversized and missing-part
 * lines, stopping point, bytes read and missing ranges. Checked over hostile
 * generated zones: lines cut by part and step boundaries, invalid UTF-8,
 * non-delta lines inside runs of deltas, malformed lines that start like a
 * delta, ids that are escaped, empty, unterminated or not ASCII, lines longer
 * than the record limit, missing parts and an unterminated last line; on the
 * text path, runs of one session's deltas are taken by one pattern matched line after line
 * (`cachedDeltaLine`), checked against lines that only look like the run's.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { PART_SIZE } from "../../src/domain/agentmux/record.js"
import { type RangeScan, scanRange } from "../../src/layers/agentmux/range-scan.js"
import { chunksFromParts, readFromParts, type StoreConnection, type StoreFile } from "../../src/layers/agentmux/TranscriptStore.js"
import { assistant, delta, echo, init, result } from "./fixture.js"

const ZONE = "agent:u7:current"

/** An in-memory connection over `bytes` (parts in `missingParts` left out, as a damaged store). */
const memory = (
  bytes: Buffer,
  missingParts: ReadonlyArray<number> = [],
  chunks = true,
  shortParts: ReadonlyArray<number> = []
): { conn: StoreConnection; file: StoreFile } => {
  // a short part (a damaged store) holds only its first half
  const part = (idx: number) =>
    missingParts.includes(idx)
      ? undefined
      : bytes.subarray(idx * PART_SIZE, Math.min((idx + 1) * PART_SIZE, idx * PART_SIZE + (shortParts.includes(idx) ? PART_SIZE / 2 : PART_SIZE)))
  const file: StoreFile = { zoneId: ZONE, name: "output", size: bytes.length, createdTs: null, modTs: null, generation: null }
  const conn: StoreConnection = {
    path: "/memory/filestore.db",
    mode: "memory",
    listFiles: () => Effect.succeed([file]),
    read: (f, offset, length, into) => Effect.sync(() => readFromParts(f, offset, length, part, into)),
    ...(chunks ? { readChunks: (f, offset, length) => Effect.sync(() => chunksFromParts(f, offset, length, part)) } : {})
  }
  return { conn, file }
}

/**
 * The range scanned over its latin1 text (`bytesPathMin` never reached, the
 * step read into one buffer), and over its bytes (always), read in chunks
 * (`readChunks`, as the live store reads) and, `bytesOneBuffer`, without.
 */
const bothWays = (
  bytes: Buffer,
  opts: {
    missingParts?: ReadonlyArray<number>
    shortParts?: ReadonlyArray<number>
    start?: number
    maxLineBytes?: number
    stepBytes?: number
  } = {}
): { text: RangeScan; bytes: RangeScan; bytesOneBuffer: RangeScan } => {
  const scan = (bytesPathMin: number, chunks: boolean) => {
    const { conn, file } = memory(bytes, opts.missingParts, chunks, opts.shortParts)
    return Effect.runSync(
      scanRange(conn, file, opts.start ?? 0, file.size, opts.maxLineBytes ?? 1 << 20, { bytesPathMin, stepBytes: opts.stepBytes })
    )
  }
  return { text: scan(Number.MAX_SAFE_INTEGER, true), bytes: scan(0, true), bytesOneBuffer: scan(0, false) }
}

const b = (s: string) => Buffer.from(s, "utf8")
const PREFIX = "{\"type\":\"stream_event\""

/** Kinds of hostile lines, each as bytes (no `\n`). */
const hostile = (kind: number, sid: number, pad: number, i: number): Buffer => {
  const s = `S-${sid}`
  const q = "q".repeat(pad)
  switch (kind) {
    case 0: // an ordinary delta
      return b(delta(s, `${q}${i}`))
    case 1: // a delta whose payload holds the escaped bytes of a key (the real key is the last)
      return b(delta(s, `say "session_id":"FAKE-${i}" ${q}`))
    case 2: // a delta whose id is not ASCII
      return b(delta(`S-é${sid}`, q))
    case 3: // a delta whose id holds an escape: no session
      return b(`${PREFIX},"event":{},"session_id":"S-\\u0031","uuid":"x"}`)
    case 4: // a delta with an empty id
      return b(`${PREFIX},"event":{},"session_id":"","uuid":"x${q}"}`)
    case 5: // a delta cut before its id ends (unterminated): no session
      return b(`${PREFIX},"event":{"t":"${q}"},"session_id":"${s}`)
    case 6: // malformed JSON that looks like a delta (classified by its first bytes, never parsed)
      return b(`${PREFIX},"event":{"t":"${q}","session_id":"${s}",,,`)
    case 7: // the delta prefix alone, and one byte short of it
      return b(i % 2 === 0 ? PREFIX : PREFIX.slice(0, -1))
    case 8: // invalid UTF-8 inside a delta's payload and id
      return Buffer.concat([b(`${PREFIX},"event":{"t":"`), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]), b(`${q}"},"session_id":"${s}`), Buffer.from([0xc3]), b(`","uuid":"u"}`)])
    case 9: // invalid UTF-8 in a line that is not a delta (unreadable when not JSON, else parsed)
      return i % 2 === 0
        ? Buffer.concat([b(`{"type":"assistant","session_id":"${s}","t":"`), Buffer.from([0xff, 0xfe]), b(`${q}"}`)])
        : Buffer.concat([b(`{"type":"assistant","session_id":"${s}",`), Buffer.from([0xff]), b(`}`)])
    case 10: // a message line (a non-ASCII character in it)
      return b(assistant(s, `m${i}`, [{ type: "text", text: `${q}é${i}` }]))
    case 11: // an echoed user line: no session
      return b(echo(`typed ${q}${i}`))
    case 12: // an init line with its working directory (one not ASCII)
      return b(init(s, i % 3 === 0 ? `/home/dév/${s}` : `/home/dev/${s}-${i % 4}`))
    case 13: // an outcome line
      return b(result(s, `done ${i}`))
    case 14: // not JSON at all
      return b(`{"type":"assistant","message":${q}`)
    case 15: // blanks: spaces, a tab, CR, and the latin1 no-break space byte (0xA0, not UTF-8 by itself)
      return i % 3 === 0 ? b("   \t\r") : i % 3 === 1 ? Buffer.from([0x20, 0xa0, 0x20]) : Buffer.alloc(0)
    case 16: // a delta ending in CR (CRLF line)
      return b(`${delta(s, q)}\r`)
    case 17: // a huge delta (longer than a part, and than the tests' smaller limits)
      return b(delta(s, "L".repeat(PART_SIZE + pad * 30)))
    case 18: // a delta whose key is the line's last bytes (no value), after a real key
      return b(`${PREFIX},"session_id":"${s}","x":"session_id":"`)
    // Runs of one session's deltas are taken by one pattern a line on the text path (`cachedDeltaLine`): lines that
    // look like the run's next delta but whose last key is another, or whose id only matches as a pattern.
    case 20: // the key at the prefix's closing quote, with the run's id and with another
      return b(i % 3 === 0 ? delta(s, q) : `${PREFIX}session_id":"${s}${i % 3 === 1 ? "" : "-p"}"}`)
    case 21: // the id "session_id", then a line whose last key starts at that value's opening quote
      return b(i % 2 === 0 ? delta("session_id", q) : `${PREFIX},"session_id":"session_id":"${s}"}`)
    case 22: // a key that starts at the closing quote of the run's id
      return b(i % 2 === 0 ? delta(s, q) : `${PREFIX},"session_id":"${s}"session_id":"S-other"}`)
    case 23: // ids holding a pattern's special characters, and one they would match as a pattern
      return b(delta(i % 3 === 0 ? `S.${sid}[a]` : i % 3 === 1 ? `S.${sid}[a]` : `Sx${sid}a`, q))
    default: // a delta of another session whose id looks like the last one's with more after it
      return b(delta(`${s}-longer`, q))
  }
}

const arbZone = fc.record({
  lines: fc.array(
    fc.record({
      // mostly ordinary deltas, as a real zone
      kind: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 5, arbitrary: fc.integer({ min: 1, max: 23 }) }),
      sid: fc.integer({ min: 0, max: 3 }),
      pad: fc.integer({ min: 0, max: 3000 }),
      run: fc.integer({ min: 1, max: 30 })
    }),
    { minLength: 1, maxLength: 50 }
  ),
  missing: fc.array(fc.double({ min: 0, max: 0.99, noNaN: true }), { maxLength: 2 }),
  short: fc.array(fc.double({ min: 0, max: 0.99, noNaN: true }), { maxLength: 1 }),
  tail: fc.constantFrom("none", "delta", "cut-prefix"),
  maxLineBytes: fc.constantFrom(1 << 20, PART_SIZE + 500, 4000),
  stepBytes: fc.constantFrom(4 * 1024 * 1024, PART_SIZE, 10_007, 300)
})

const zoneOf = (z: typeof arbZone extends fc.Arbitrary<infer T> ? T : never): Buffer => {
  const out: Array<Buffer> = []
  let i = 0
  for (const l of z.lines) for (let k = 0; k < l.run; k++) out.push(hostile(l.kind, l.sid, l.pad, i++), Buffer.from("\n"))
  if (z.tail === "delta") out.push(b(delta("S-9", "half a line")))
  if (z.tail === "cut-prefix") out.push(b(PREFIX.slice(0, 9)))
  return Buffer.concat(out)
}


/** Lines laid out one after another, each with its line break: the bytes, and where each line ends (past its break). */
const laidOut = (lines: ReadonlyArray<Buffer>): { readonly bytes: Buffer; readonly ends: ReadonlyArray<number> } => {
  const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")]))
  const ends: Array<number> = []
  let at = 0
  for (const l of lines) ends.push(at += l.length + 1)
  return { bytes, ends }
}

describe("a range scanned over its bytes is the range scanned over its latin1 text", () => {
  it("generated hostile zones (part and step boundaries, missing parts, limits, a start inside the zone)", () => {
    fc.assert(
      fc.property(arbZone, fc.double({ min: 0, max: 0.9, noNaN: true }), (z, from) => {
        const bytes = zoneOf(z)
        const parts = Math.ceil(bytes.length / PART_SIZE)
        const missingParts = [...new Set(z.missing.map((f) => Math.floor(f * parts)))]
        const shortParts = z.short.map((f) => Math.floor(f * parts))
        // a rescan starts just past a `\n` (where the last scan stopped)
        const nl = bytes.indexOf(10, Math.floor(from * bytes.length))
        const start = nl < 0 ? 0 : nl + 1
        for (const at of [0, start]) {
          const r = bothWays(bytes, { missingParts, shortParts, start: at, maxLineBytes: z.maxLineBytes, stepBytes: z.stepBytes })
          expect(r.bytes).toStrictEqual(r.text)
          expect(r.bytesOneBuffer).toStrictEqual(r.text)
        }
      }),
      { numRuns: 150, seed: 1313 }
    )
  }, 120_000)

  it("a zone over several 4 MiB steps (lines cut by step boundaries), as a first scan reads it", () => {
    const lines: Array<Buffer> = []
    let n = 0
    let i = 0
    while (n < 9 * 1024 * 1024) {
      const l = hostile(i % 7 === 0 ? (i * 13) % 20 : 0, (i >> 6) % 3, (i * 37) % 900, i)
      lines.push(l, Buffer.from("\n"))
      n += l.length + 1
      i++
    }
    const bytes = Buffer.concat(lines)
    const r = bothWays(bytes, { missingParts: [40, 41, 100], shortParts: [7] })
    expect(r.bytes).toStrictEqual(r.text)
    expect(r.bytesOneBuffer).toStrictEqual(r.text)
    expect(r.bytes.readTo).toBe(bytes.length)
  })

  it("answers what the rules give for a hand-laid zone", () => {
    const lines = [
      b(delta("S-1", "a")), // 0: S-1
      b(`${PREFIX},"event":{"t":"x","session_id":"S-1",,,`), // 1: malformed, looks like a delta: its last key's id, S-1
      b(echo("hi")), // 2: unowned
      b(delta("S-1", "say \"session_id\":\"FAKE\"")), // 3: S-1 (the escaped key is not the last)
      Buffer.concat([b(`${PREFIX},"x":"`), Buffer.from([0xff]), b(`","session_id":"S-2","u":1}`)]), // 4: S-2, invalid UTF-8 before the key
      b(`${PREFIX},"session_id":"S-\\u0032"}`), // 5: an escaped id: no session
      b(init("S-2", "/w/é")), // 6: S-2, cwd /w/é
      b("{not json"), // 7: unreadable, unowned
      Buffer.from([0x20, 0xa0]), // 8: blank to JavaScript's trim (not counted unreadable), unowned
      b(delta("S-é", "b")) // 9: S-é
    ]
    const { bytes, ends } = laidOut(lines)
    const r = bothWays(bytes)
    expect(r.bytes).toStrictEqual(r.text)
    expect(r.bytes.ids).toStrictEqual(["S-1", "S-2", "S-é"])
    expect(r.bytes.cwds).toStrictEqual(["/w/é"])
    expect(r.bytes.groups).toStrictEqual([
      0, 0, ends[1], 2, -1, // lines 0-1
      -1, ends[1], ends[2], 1, -1, // line 2
      0, ends[2], ends[3], 1, -1, // line 3
      1, ends[3], ends[4], 1, -1, // line 4
      -1, ends[4], ends[5], 1, -1, // line 5
      1, ends[5], ends[6], 1, 0, // line 6
      -1, ends[6], ends[8], 2, -1, // lines 7-8
      2, ends[8], ends[9], 1, -1 // line 9
    ])
    expect(r.bytes.unreadable).toBe(1)
    expect(r.bytes.readTo).toBe(bytes.length)
  })
})

const PATTERN = Buffer.from(Array.from({ length: 5 * PART_SIZE }, (_, i) => (i * 7 + 3) & 0xff))

describe("a rescan's runs of one session's deltas (taken by one pattern a line on the text path)", () => {
  it("go on while each line's last key names the run's session, and stop at a line whose last key names another", () => {
    const lines = [
      b(delta("S-1", "a")), // 0: S-1
      b(delta("S-1", "b")), // 1: S-1
      b(`${PREFIX}session_id":"S-1"}`), // 2: S-1 (its key starts at the prefix's closing quote)
      b(delta("S-1", "say \"session_id\":\"S-1\"")), // 3: S-1
      b(`${PREFIX},"session_id":"S-1"session_id":"S-3"}`), // 4: S-3 (the last key starts at S-1's closing quote)
      b(delta("session_id", "c")), // 5: session_id
      b(`${PREFIX},"session_id":"session_id":"S-2"}`), // 6: S-2 (the last key starts at the value's opening quote)
      b(delta("S.1[a]", "d")), // 7: S.1[a]
      b(delta("S.1[a]", "e")), // 8: S.1[a]
      b(delta("Sx1a", "f")) // 9: Sx1a (what S.1[a] would match as a pattern)
    ]
    const { bytes, ends } = laidOut(lines)
    const r = bothWays(bytes)
    expect(r.text).toStrictEqual(r.bytes)
    expect(r.text.ids).toStrictEqual(["S-1", "S-3", "session_id", "S-2", "S.1[a]", "Sx1a"])
    expect(r.text.groups).toStrictEqual([
      0, 0, ends[3], 4, -1, // lines 0-3
      1, ends[3], ends[4], 1, -1, // line 4
      2, ends[4], ends[5], 1, -1, // line 5
      3, ends[5], ends[6], 1, -1, // line 6
      4, ends[6], ends[8], 2, -1, // lines 7-8
      5, ends[8], ends[9], 1, -1 // line 9
    ])
    expect(r.text.readTo).toBe(bytes.length)
  })
})

describe("chunksFromParts", () => {
  it("gives readFromParts' bytes and missing ranges, in chunks of at most a part, views of whole parts", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 * PART_SIZE }),
        fc.integer({ min: 0, max: 6 * PART_SIZE }),
        fc.integer({ min: 0, max: 6 * PART_SIZE }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 2 }),
        (size, offset, length, missingParts, shortParts) => {
          const bytes = PATTERN.subarray(0, size)
          const part = (idx: number) =>
            missingParts.includes(idx)
              ? undefined
              : bytes.subarray(idx * PART_SIZE, Math.min(size, idx * PART_SIZE + (shortParts.includes(idx) ? 100 : PART_SIZE)))
          const file: StoreFile = { zoneId: ZONE, name: "output", size, createdTs: null, modTs: null, generation: null }
          const one = readFromParts(file, offset, length, part)
          const c = chunksFromParts(file, offset, length, part)
          expect(Buffer.concat(c.chunks).equals(one.bytes)).toBe(true)
          expect(c.missing).toStrictEqual(one.missing)
          for (const chunk of c.chunks) expect(chunk.length).toBeLessThanOrEqual(PART_SIZE)
        }
      ),
      { numRuns: 200 }
    )
  })
})
