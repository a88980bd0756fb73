/**
 * Receive times from `output.tsidx` (seed 002, `line_stamps`; issue 13, the
 * rescan's lookups): the binary search over the sidecar's 64 KiB parts reads
 * each probed part's first record only, and reads whole just the part found
 * and its neighbours; the answers are those of reading every record.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { parseStampRecord, stampOf, type StampRecord } from "../../src/domain/agentmux/record.js"
import { type StoreConnection, TranscriptStore } from "../../src/layers/agentmux/TranscriptStore.js"
import { makeStamps } from "../../src/layers/agentmux/zone-reader.js"
import { PART, tsidxRecord } from "./store-helper.js"

const T0 = 1_790_000_000_000

const memoryConnection = (
  files: Parameters<typeof TranscriptStore.layerTest>[0][string],
  stats = { bytesRead: new Map<string, number>() }
) =>
  Effect.scoped(
    Effect.flatMap(TranscriptStore, (s) => s.open("/mem")).pipe(
      Effect.provide(TranscriptStore.layerTest({ "/mem": files }, stats)),
      Effect.map((o) => (o._tag === "open" ? o.connection : (null as never as StoreConnection)))
    )
  )

/** A sidecar: records in offset order but slightly shuffled, with the odd CRLF, blank, unreadable and unusual line. */
const sidecar = (seed: number, n: number, unterminated: boolean, odd = true) => {
  let x = seed >>> 0 || 1
  const rnd = () => ((x = (x * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32)
  const recs: Array<StampRecord> = Array.from({ length: n }, (_, i) => ({ off: i * 97 + Math.floor(rnd() * 50), ms: T0 + i * 3 + Math.floor(rnd() * 2) }))
  for (let i = 0; i + 3 < n; i++) {
    if (rnd() < 0.2) {
      const j = i + 1 + Math.floor(rnd() * 3)
      ;[recs[i], recs[j]] = [recs[j], recs[i]]
    }
  }
  let text = ""
  for (const [k, r] of recs.entries()) {
    const u = rnd()
    if (odd && u < 0.01) text += "\n" // blank
    else if (odd && u < 0.02) text += "not a record\n"
    const last = k === n - 1
    const eol = last && unterminated ? "" : rnd() < 0.3 ? "\r\n" : "\n"
    text += odd && rnd() < 0.02 ? `{"off":${r.off},"ms":${r.ms},"extra":true}${eol}` : tsidxRecord(r.off, r.ms, eol as "\n" | "\r\n" | "")
  }
  return { recs, bytes: Buffer.from(text) }
}

describe("receive times: the binary search reads part heads", () => {
  it.effect("one lookup reads whole only the part found and its neighbours", () =>
    Effect.gen(function*() {
      const { bytes, recs } = sidecar(7, 120_000, false, false)
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes }])
      const [file] = yield* conn.listFiles("z")
      expect(file.size).toBeGreaterThan(40 * PART)
      for (const offset of [recs[500].off, recs[60_000].off + 1, recs[119_000].off]) {
        const stamps = makeStamps(conn, file)
        expect(yield* stamps.at(offset)).toBe(stampOf(recs, offset))
        expect(stamps.partsRead()).toBeLessThanOrEqual(3)
      }
    }))

  it.effect("the answers are those of reading every record (generated sidecars, any offset)", () =>
    Effect.gen(function*() {
      const cases = fc.sample(
        fc.record({
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          n: fc.integer({ min: 1, max: 12_000 }),
          unterminated: fc.boolean(),
          probes: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 25 })
        }),
        { numRuns: 25, seed: 13 }
      )
      for (const c of cases) {
        const { bytes, recs } = sidecar(c.seed, c.n, c.unterminated)
        const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes }])
        const [file] = yield* conn.listFiles("z")
        const max = recs.reduce((m, r) => Math.max(m, r.off), 0)
        const offsets = [-1, 0, max, max + 1, ...c.probes.map((p) => Math.floor(p * (max + 200)))]
        const stamps = makeStamps(conn, file)
        for (const offset of offsets) expect(yield* stamps.at(offset)).toBe(stampOf(recs, offset))
        // a fresh lookup per offset too (no part read before)
        for (const offset of offsets.slice(0, 6)) expect(yield* makeStamps(conn, file).at(offset)).toBe(stampOf(recs, offset))
      }
    }), 60_000)

  it.effect("a part whose first bytes are a missing part, or hold no whole record, is read whole", () =>
    Effect.gen(function*() {
      const { bytes, recs } = sidecar(11, 8000, false)
      // a record longer than the head window across the start of part 2
      const text = bytes.toString("latin1")
      const at = text.indexOf("\n", 2 * PART - 10) + 1
      const long = Buffer.from(`${text.slice(0, at)}{"off":${recs[recs.length - 1].off + 5},"ms":1,"pad":"${"x".repeat(700)}"}\n${text.slice(at)}`, "latin1")
      const conn = yield* memoryConnection([
        { zoneId: "z", name: "output.tsidx", bytes: long },
        { zoneId: "m", name: "output.tsidx", bytes, missingParts: [3] }
      ])
      const files = yield* conn.listFiles("")
      const withLong = files.find((f) => f.zoneId === "z")!
      const withGap = files.find((f) => f.zoneId === "m")!
      const all = [...recs, { off: recs[recs.length - 1].off + 5, ms: 1 }]
      for (let offset = 0; offset < all[all.length - 1].off + 10; offset += 7919) {
        expect(yield* makeStamps(conn, withLong).at(offset)).toBe(stampOf(all, offset))
      }
      // On the missing part, its records are unknown: the answers never come from it.
      const gap = { start: 3 * PART, end: 4 * PART }
      let starts = 0
      const lines = bytes.toString("latin1").split("\n")
      const known: Array<StampRecord> = []
      for (const line of lines) {
        const end = starts + line.length + 1
        const m = /^\{"off":(\d+),"ms":(\d+)/.exec(line)
        if (m !== null && (end <= gap.start || starts >= gap.end)) known.push({ off: Number(m[1]), ms: Number(m[2]) })
        starts = end
      }
      for (const offset of [0, recs[100].off, recs[recs.length - 1].off]) {
        expect(yield* makeStamps(conn, withGap).at(offset)).toBe(stampOf(known, offset))
      }
    }))

  it.effect("missing trailing parts (a db_wave_file.size past the parts, tester16 finding 8): the records before them still answer, each missing part counted once, none a bad line", () =>
    Effect.gen(function*() {
      const { bytes, recs } = sidecar(11, 20_000, false, false)
      const parts = Math.ceil(bytes.length / PART)
      expect(parts).toBeGreaterThan(6)
      // Parts 3.. are not in the store: the newest record wholly on parts 0-2 dates every later offset.
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes, missingParts: Array.from({ length: parts - 3 }, (_, i) => 3 + i) }])
      const [file] = yield* conn.listFiles("z")
      let starts = 0
      const known: Array<StampRecord> = []
      for (const line of bytes.toString("latin1").split("\n")) {
        const end = starts + line.length + 1
        const m = /^\{"off":(\d+),"ms":(\d+)/.exec(line)
        if (m !== null && end <= 3 * PART) known.push({ off: Number(m[1]), ms: Number(m[2]) })
        starts = end
      }
      const stamps = makeStamps(conn, file)
      for (const offset of [recs[recs.length - 1].off + 1, recs[10_000].off, recs[100].off]) {
        const want = stampOf(known, offset)
        expect(want).not.toBeNull()
        expect(yield* stamps.at(offset)).toBe(want)
      }
      expect(stamps.missingParts()).toBe(parts - 3)
      expect(stamps.unreadable()).toBe(0)
    }))

  it.effect("parts of usual records (read in one JSON.parse) and parts with an unusual line (read line by line) answer as every line parsed alone", () =>
    Effect.gen(function*() {
      // Lines each read alone as `parseStampRecord` reads a line; some are records only that way, some not at all.
      const unusual = (r: StampRecord, u: number): string => {
        const k = Math.floor(u * 12)
        return [
          `{"off":${r.off},"ms":${r.ms}},{"off":${r.off + 1},"ms":${r.ms + 1}}`, // two values on one line: not a record
          `{"off":00${r.off},"ms":${r.ms}}`, // leading zeros: a record read by the usual shape, not JSON
          `{"ms":${r.ms},"off":${r.off}}`, // keys swapped
          `\v{"off":${r.off},"ms":${r.ms}}`, // a blank JSON does not take
          `{"off":${r.off},"ms":${r.ms},"note":"d\u00e9j\u00e0 \u00e9t\u00e9"}`,
          `{"off":${r.off}.5,"ms":${r.ms}}`,
          `[{"off":${r.off},"ms":${r.ms}}]`,
          `   `,
          "null",
          `{"off":${r.off},"ms":${r.ms}} `,
          `{"off":9007199254740993,"ms":${r.ms}}`,
          `{"off":${r.off},"ms":-0}`
        ][k]
      }
      const cases = fc.sample(
        fc.record({
          seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          n: fc.integer({ min: 1, max: 9_000 }),
          rate: fc.constantFrom(0, 1 / 4000, 1 / 500),
          unterminated: fc.boolean(),
          probes: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 20 })
        }),
        { numRuns: 30, seed: 29 }
      )
      for (const c of cases) {
        const { recs } = sidecar(c.seed, c.n, false, false)
        let x = c.seed
        const rnd = () => ((x = (x * 69_069 + 1) >>> 0) / 2 ** 32)
        const odd: Array<number> = [] // the offsets of the unusual lines' records: probed too
        const lines = recs.map((r) => {
          if (rnd() >= c.rate) return tsidxRecord(r.off, r.ms, "")
          odd.push(r.off, r.off + 1)
          return unusual(r, rnd())
        })
        const text = lines.join("\n") + (c.unterminated ? "" : "\n")
        const bytes = Buffer.from(text, "utf8")
        const known = lines.flatMap((l) => {
          const rec = l.trim().length === 0 ? null : parseStampRecord(l.trim())
          return rec === null ? [] : [rec]
        })
        const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes }])
        const [file] = yield* conn.listFiles("z")
        const max = recs.reduce((m, r) => Math.max(m, r.off), 0)
        const offsets = [0, max, max + 1, ...odd, ...c.probes.map((p) => Math.floor(p * (max + 200)))]
        const stamps = makeStamps(conn, file)
        for (const offset of offsets) expect(yield* stamps.at(offset)).toBe(stampOf(known, offset))
      }
    }), 60_000)
  it.effect("a record of the usual shape whose numbers are past 2^53 is a line that is no record, counted, in a part read at once", () =>
    Effect.gen(function*() {
      // 15 digits are safe integers, 16 (9007199254740993) are not: the part is read line by line and the line counted.
      const lines = Array.from({ length: 400 }, (_, i) => tsidxRecord(i * 100, T0 + i, ""))
      lines[200] = tsidxRecord(999_999_999_999_999, T0 + 200, "")
      lines[300] = `{"off":${"9007199254740993"},"ms":${T0 + 300}}`
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes: Buffer.from(lines.join("\n") + "\n") }])
      const [file] = yield* conn.listFiles("z")
      const stamps = makeStamps(conn, file)
      expect(yield* stamps.at(30_050)).toBe(T0 + 299) // the record at 29,900, not the unsafe one
      expect(yield* stamps.at(20_050)).toBe(T0 + 199)
      expect(yield* stamps.at(999_999_999_999_999)).toBe(T0 + 200)
      expect(stamps.unreadable()).toBe(1)
    }))
})
