import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import {
  beginScan,
  checkAgentId,
  closeArchive,
  emptyScan,
  isStreamEvent,
  lineFacts,
  lineFactsAt,
  lineFactsText,
  isStreamEventText,
  makeSessionIdCache,
  ownZone,
  parseStampRecord,
  readStampRecordAt,
  scanLine,
  stampOf
} from "../../src/domain/agentmux/record.js"
import { type StoreConnection, TranscriptStore } from "../../src/layers/agentmux/TranscriptStore.js"
import { forEachLine, latestAtOrBefore, makeStamps } from "../../src/layers/agentmux/zone-reader.js"
import { bigText, currentBytes, currentLines, delta, init, T0 } from "./fixture.js"
import { PART, tsidxRecord } from "./store-helper.js"

describe("zones (seed 002, is_agents_own_zone)", () => {
  it("reads only agent:<uid>:current and agent:<uid>:archive:<digits>", () => {
    expect(ownZone("u1", "agent:u1:current")).toEqual({ _tag: "current", zoneId: "agent:u1:current" })
    expect(ownZone("u1", "agent:u1:archive:1700000000000")).toEqual({
      _tag: "archive",
      zoneId: "agent:u1:archive:1700000000000",
      archivedAtMs: 1700000000000
    })
    for (const z of ["agent:u2:current", "agent:u1x:current", "agent:u1:archive:", "agent:u1:archive:12a", "agent:u1:current:old", "template:u1:shared", "agent:u1:archive:1:2"]) {
      expect(ownZone("u1", z)).toBeNull()
    }
  })
  it("checks the UID", () => {
    expect(Either.isRight(checkAgentId("a-B_9"))).toBe(true)
    for (const bad of [undefined, "", "u1:current", "u%", "u 1", "../x"]) {
      const r = checkAgentId(bad)
      expect(Either.isLeft(r) && r.left.code).toBe("INVALID_ARGUMENT")
    }
  })
})

describe("line facts (seed 002, is_stream_event / line_session_id)", () => {
  it("takes a delta's session from its last key by bytes, not from an escaped key in its payload", () => {
    const line = Buffer.from(delta("S-1", "say \"session_id\":\"FAKE\" now"))
    expect(isStreamEvent(line)).toBe(true)
    expect(lineFacts(line)).toEqual({ _tag: "delta", sessionId: "S-1" })
  })
  it("finds the last key wherever it is: every cut of the key, near the ends, after decoys; line after line", () => {
    const key = "\"session_id\":\""
    const pieces = [key, key.slice(0, 5), key.slice(3), "\"", ":", "s", "id", "x", "\\", "日", "S-1\"", "AB\""]
    const tails = ["\",\"uuid\":\"u-1\"}", "\",\"uuid\":\"u-22\"}", `",${key}S-2"}`, `"${key}`, "\"", "", `\"${key.slice(1)}X"}`]
    const r = (n: number) => Math.floor(Math.abs(Math.sin(n * 9301 + 49297)) * 1e6)
    const native = makeSessionIdCache() // Node's byte searches (the first lines of a scan)
    const loops = makeSessionIdCache(0) // this module's own loops
    const strings = makeSessionIdCache() // string built-ins over the latin1 text (lineFactsText)
    for (let t = 0; t < 5000; t++) {
      const head = Array.from({ length: r(t) % 6 }, (_, i) => pieces[r(t * 31 + i) % pieces.length]).join("")
      const own = r(t * 7) % 10 < 8 ? `${key}${["S-1", "S-1", "S-10", "S-é", "S\\1"][r(t * 11) % 5]}` : ""
      const tail = r(t * 13) % 4 < 3 ? tails[0] : tails[r(t * 17) % tails.length]
      const line = Buffer.from(`{"type":"stream_event"${head}${own}${tail}`)
      // The rule, as first written: the last key by lastIndexOf, its value up to the next quote, no escapes.
      const k = line.lastIndexOf(key)
      const end = k < 0 ? -1 : line.indexOf("\"", k + key.length)
      const id = k < 0 || end <= k + key.length ? null : line.toString("utf8", k + key.length, end)
      const expected = id === null || id.includes("\\") ? null : id
      expect(lineFacts(line)).toEqual({ _tag: "delta", sessionId: expected })
      // The same inside a longer buffer, with what the last line taught the cache.
      const before = Buffer.from("xx\"session_id\":\"Z\"\n")
      const within = Buffer.concat([before, line, Buffer.from("\n\"session_id\":\"Y\"")])
      for (const ids of [native, loops]) {
        expect(lineFactsAt(within, before.length, before.length + line.length, ids)).toEqual({ _tag: "delta", sessionId: expected })
      }
      // The scan's own path: the same over the bytes' latin1 text, with its own cache.
      const text = within.toString("latin1")
      expect(lineFactsText(text, within, before.length, before.length + line.length, strings)).toEqual({ _tag: "delta", sessionId: expected })
      expect(isStreamEventText(text, before.length, before.length + line.length)).toBe(true)
    }
  })
  it("the loops compare the cached id a word (4 bytes) at a time: ids of 1 to 40 bytes, changed at any byte, cut or lengthened", () => {
    const loops = makeSessionIdCache(0) // this module's own loops (the first scan's)
    const native = makeSessionIdCache() // Node's byte searches
    const base = "0123456789abcdef-ghijklmnopqrstuvwxyzABCD"
    let at = 0
    const lines: Array<{ line: Buffer; id: string }> = []
    for (let n = 1; n <= 40; n++) {
      const id = base.slice(0, n)
      const variants = [id, id.slice(0, -1), `${id}Z`, `${id.slice(0, -1)}é`]
      for (let p = 0; p < n; p++) variants.push(`${id.slice(0, p)}${id[p] === "Q" ? "R" : "Q"}${id.slice(p + 1)}`)
      // each variant right after the id itself (the cache holds it), in a buffer of many lines
      for (const v of variants) lines.push({ line: Buffer.from(delta(id, `t${n}`)), id }, { line: Buffer.from(delta(v, "x")), id: v })
    }
    const buf = Buffer.concat(lines.flatMap(({ line }) => [line, Buffer.from("\n")]))
    for (const { line, id } of lines) {
      const expected = { _tag: "delta", sessionId: id === "" ? null : id }
      expect(lineFactsAt(buf, at, at + line.length, loops)).toEqual(expected)
      expect(lineFactsAt(buf, at, at + line.length, native)).toEqual(expected)
      at += line.length + 1
    }
  })
  it("non-ASCII session ids and cwds are read as UTF-8 (the line is parsed from latin1 first)", () => {
    const f = lineFacts(Buffer.from(init("S-é", "/home/dév/日本")))
    expect(f._tag === "parsed" && [f.sessionId, f.cwd]).toEqual(["S-é", "/home/dév/日本"])
    const g = lineFacts(Buffer.from("{\"session_id\":\"S-\\u00e9\",\"text\":\"naïve\"}"))
    expect(g._tag === "parsed" && g.sessionId).toBe("S-é")
    expect(lineFacts(Buffer.from("{\"session_id\":\"S\",\"x\":\u00e9}"))).toEqual({ _tag: "unreadable" })
    expect(lineFacts(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]))._tag).toBe("parsed") // bad UTF-8 inside a string
    expect(lineFacts(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xc3, 0xa9, 0x7d]))).toEqual({ _tag: "unreadable" }) // é outside a string
  })
  it("the latin1-text path answers as the byte path on every kind of line, in a buffer of many", () => {
    const lines = [
      delta("S-1", "a"),
      delta("S-1", "b"),
      delta("S-é", "c"),
      delta("S-é", "c"),
      delta("S-1", "d"),
      init("S-日", "/home/dév"),
      "{\"session_id\":\"S-\\u00e9\",\"text\":\"naïve\"}",
      "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}",
      "{\"type\":",
      "[1,2]",
      "{\"type\":\"stream_event\"",
      "{\"type\":\"stream_event\",\"session_id\":\"\"}",
      "{\"type\":\"stream_event\",\"session_id\":\"S\\\"x\"}",
      delta("S-2", "\"session_id\":\"FAKE\"")
    ]
    const buf = Buffer.from(lines.join("\n") + "\n")
    const text = buf.toString("latin1")
    const bytes = makeSessionIdCache(0)
    const strings = makeSessionIdCache()
    let at = 0
    for (const l of lines) {
      const to = at + Buffer.byteLength(l)
      expect(lineFactsText(text, buf, at, to, strings)).toEqual(lineFactsAt(buf, at, to, bytes))
      expect(lineFactsText(text, buf, at, to)).toEqual(lineFacts(Buffer.from(l)))
      expect(isStreamEventText(text, at, to)).toBe(isStreamEvent(Buffer.from(l)))
      at = to + 1
    }
  })
  it("parses anything else: top-level session_id, init cwd, none, unreadable", () => {
    const f = lineFacts(Buffer.from(init("S-2", "/w")))
    expect(f._tag === "parsed" && [f.sessionId, f.cwd]).toEqual(["S-2", "/w"])
    const e = lineFacts(Buffer.from("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}"))
    expect(e._tag === "parsed" && e.sessionId).toBeNull()
    expect(lineFacts(Buffer.from("{\"type\":"))).toEqual({ _tag: "unreadable" })
    expect(lineFacts(Buffer.from("[1,2]"))).toEqual({ _tag: "unreadable" })
  })
})

describe("runs (seed 002, scan_line)", () => {
  const L = (start: number, sessionId: string | null) => ({ start, end: start + 10, sessionId, cwd: null })
  it("unowned lines go to the next owned line; a provider line without session_id never starts a session", () => {
    const acc = beginScan(emptyScan)
    for (const l of [L(0, null), L(10, "A"), L(20, "A"), L(30, null), L(40, "B"), L(50, "A"), L(60, null)]) scanLine(acc, l)
    expect(acc.runs.map((r) => [r.sessionId, r.start, r.end, r.lines])).toEqual([
      ["A", 0, 30, 3],
      ["B", 30, 50, 2],
      ["A", 50, 60, 1]
    ])
    expect(acc.pending).toEqual({ start: 60, lines: 1 })
    // In an archive, trailing unowned lines join the last run.
    closeArchive(acc, 70)
    expect(acc.runs[2]).toMatchObject({ sessionId: "A", start: 50, end: 70, lines: 2 })
    expect(acc.pending).toBeNull()
  })
  it("a zone of lines without session_id has no session", () => {
    const acc = beginScan(emptyScan)
    for (const l of [L(0, null), L(10, null)]) scanLine(acc, l)
    closeArchive(acc, 20)
    expect(acc.runs).toEqual([])
  })
})

describe("receive times (output.tsidx)", () => {
  it("a binary search over records sorted by (off, ms) answers as the rule does, ties and all", () => {
    const r = (n: number) => Math.floor(Math.abs(Math.sin(n * 7919 + 104729)) * 1e6)
    for (let t = 0; t < 300; t++) {
      const recs = Array.from({ length: r(t) % 40 }, (_, i) => ({ off: r(t * 53 + i) % 50, ms: r(t * 59 + i) % 7 }))
      const sorted = [...recs].sort((a, b) => a.off - b.off || a.ms - b.ms)
      for (let off = -1; off <= 51; off++) expect(latestAtOrBefore(sorted, off)?.ms ?? null).toBe(stampOf(recs, off))
    }
  })
  it("newest record at or before the offset, whatever the record order; CRLF and no final newline", () => {
    const recs = [{ off: 50, ms: 5 }, { off: 0, ms: 1 }, { off: 20, ms: 2 }]
    expect([stampOf(recs, 0), stampOf(recs, 19), stampOf(recs, 20), stampOf(recs, 49), stampOf(recs, 999)]).toEqual([1, 1, 2, 2, 5])
    expect(stampOf([{ off: 10, ms: 1 }], 9)).toBeNull()
    expect(parseStampRecord("{\"off\":3,\"ms\":4}\r")).toEqual({ off: 3, ms: 4 })
    expect(parseStampRecord("{\"ms\":4,\"off\":3,\"x\":1}")).toEqual({ off: 3, ms: 4 })
    expect(parseStampRecord("{\"off\":-3,\"ms\":4}")).toBeNull()
    expect(parseStampRecord("{\"off\":3,")).toBeNull()
  })
  it("records read by the regular expression: the same as parsed as text, or left to the text parse", () => {
    const cases = [
      "{\"off\":3,\"ms\":4}", " {\"off\":0,\"ms\":17}\r", "{\"off\":123456789012345,\"ms\":1}", "{\"off\":1234567890123456,\"ms\":1}",
      "{\"off\":3,\"ms\":4,\"x\":1}", "{\"ms\":4,\"off\":3}", "{\"off\":-3,\"ms\":4}", "{\"off\":3,\"ms\":4}}", "{\"off\":,\"ms\":4}",
      "{\"off\":3,\"ms\":}", "{\"off\": 3,\"ms\":4}", "\u00a0{\"off\":3,\"ms\":4}", "{\"off\":3.5,\"ms\":4}", "{\"off\":3,\"ms\":4"
    ]
    let quick = 0
    for (const c of cases) {
      const text = Buffer.from(`x\n${c}\ny`).toString("latin1")
      const r = readStampRecordAt(text, 2)
      if (r === undefined) continue
      quick++
      expect(r.record).toEqual(parseStampRecord(c.trim()))
      expect(r.next).toBe(text.length - 1)
    }
    expect(quick).toBe(3)
    expect(readStampRecordAt("{\"off\":3,\"ms\":4}\r", 0)).toEqual({ record: { off: 3, ms: 4 }, next: 17 })
  })
})

/** A connection over in-memory files, through the test layer. */
const memoryConnection = (files: Parameters<typeof TranscriptStore.layerTest>[0][string], stats = { bytesRead: new Map<string, number>() }) =>
  Effect.scoped(
    Effect.flatMap(TranscriptStore, (s) => s.open("/mem")).pipe(
      Effect.provide(TranscriptStore.layerTest({ "/mem": files }, stats)),
      Effect.map((o) => (o._tag === "open" ? o.connection : (null as never as StoreConnection)))
    )
  )

describe("lines of output (seed 002, for_each_line)", () => {
  it.effect("every complete line, whatever the step; the half-written tail waits; the CJK character across the part boundary intact", () =>
    Effect.gen(function*() {
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output", bytes: currentBytes }])
      const [file] = yield* conn.listFiles("z")
      // "日" starts at byte 65,535: its 3 bytes straddle parts 0 and 1.
      expect(currentBytes.subarray(PART - 1, PART + 2).toString("utf8")).toBe("日")
      for (const step of [7, 65_536, 4 * 1024 * 1024]) {
        const got: Array<{ start: number; end: number; text: string }> = []
        const r = yield* forEachLine(conn, file, 0, file.size, 1 << 20, (ls) => {
          for (const l of ls) got.push({ start: l.start, end: l.end, text: l.bytes!.toString("utf8") })
        }, step)
        expect(got).toEqual(currentLines.lines.map((l) => ({ start: l.start, end: l.end, text: l.text })))
        expect(r.readTo).toBe(currentLines.lines[currentLines.lines.length - 1].end)
      }
      expect(currentLines.lines[2].text).toContain(bigText)
    }))

  it.effect("a line on a missing part is dropped and reported, not read as garbage", () =>
    Effect.gen(function*() {
      const line = (i: number) => `{"n":"${String(i).padStart(3, "0")}","pad":"${"p".repeat(990)}"}`
      const lines = Array.from({ length: 200 }, (_, i) => line(i))
      const bytes = Buffer.from(lines.map((l) => l + "\n").join(""))
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output", bytes, missingParts: [1] }])
      const [file] = yield* conn.listFiles("z")
      const ok: Array<number> = []
      const bad: Array<{ start: number; end: number }> = []
      const r = yield* forEachLine(conn, file, 0, file.size, 1 << 20, (ls) => {
        for (const l of ls) l.bytes === null ? bad.push({ start: l.start, end: l.end }) : ok.push(Number(JSON.parse(l.bytes.toString()).n))
      }, 10_000)
      const len = line(0).length + 1 // every line has the same length
      const firstTouched = Math.floor(PART / len) // the line holding byte 65,536
      const lastTouched = Math.floor((2 * PART - 1) / len) // the line holding byte 131,071
      expect(bad).toEqual([{ start: firstTouched * len, end: (lastTouched + 1) * len }])
      expect(ok).toEqual(lines.map((_, i) => i).filter((i) => i < firstTouched || i > lastTouched))
      expect(r.missing).toEqual([{ start: PART, end: 2 * PART }])
      expect(r.readTo).toBe(bytes.length)
    }))
})

describe("forEachLine hands lines on a step at a time", () => {
  it.effect("onLines is called once per step, not once with the whole range", () =>
    Effect.gen(function*() {
      const bytes = Buffer.from(Array.from({ length: 100 }, (_, i) => `{"n":${i}}\n`).join(""))
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output", bytes }])
      const [file] = yield* conn.listFiles("z")
      const calls: Array<number> = []
      yield* forEachLine(conn, file, 0, file.size, 1 << 20, (ls) => {
        calls.push(ls.length)
      }, 100)
      expect(calls.reduce((a, b) => a + b, 0)).toBe(100)
      expect(calls.length).toBeGreaterThan(1)
    }))
})

describe("receive times without reading the sidecar whole", () => {
  it.effect("binary search over 64 KiB parts, out-of-order neighbours, CRLF records, an unterminated last record", () =>
    Effect.gen(function*() {
      const n = 200_000
      const order = Array.from({ length: n }, (_, i) => i)
      for (let i = 0; i + 1 < n; i += 2) [order[i], order[i + 1]] = [order[i + 1], order[i]] // slightly out of order
      const text = order.map((i, k) => tsidxRecord(i * 100, T0 + i, k === n - 1 ? "" : k % 3 === 0 ? "\r\n" : "\n")).join("")
      const stats = { bytesRead: new Map<string, number>() }
      const conn = yield* memoryConnection([{ zoneId: "z", name: "output.tsidx", bytes: Buffer.from(text) }], stats)
      const [file] = yield* conn.listFiles("z")
      expect(file.size).toBeGreaterThan(80 * PART)
      const stamps = makeStamps(conn, file)
      expect(yield* stamps.at(0)).toBe(T0)
      expect(yield* stamps.at(12_345)).toBe(T0 + 123)
      expect(yield* stamps.at(2_000_050)).toBe(T0 + 20_000)
      expect(yield* stamps.at(100 * 150_000 + 99)).toBe(T0 + 150_000)
      expect(yield* stamps.at((n - 1) * 100 + 7)).toBe(T0 + n - 1) // the unterminated last record
      expect(stamps.unreadable()).toBe(0)
      expect(stats.bytesRead.get("z/output.tsidx")!).toBeLessThan(file.size / 2)
      expect(stamps.partsRead()).toBeLessThan(40)
    }))
})
