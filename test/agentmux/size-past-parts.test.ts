/**
 * A `db_wave_file.size` far past a file's parts (a 2^50-byte `output` or
 * `output.tsidx` whose parts hold a few KiB), and a size that is no byte
 * count (negative, not an integer, past 2^53, text): reading never steps
 * through the parts that are not there (issue 7: bad input never hangs us).
 * Reading stops at the last part present; everything past it is one missing
 * range, said once (`MISSING_PART`, its range and the lines on it); the work
 * is that of the parts present, counted here as the store reads made. A size
 * that is no byte count is not trusted: the file is read as far as its parts
 * go, and `FILE_SIZE_NOT_VALID` says so. Expected values are worked out from
 * the bytes written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { beginScan, emptyScan } from "../../src/domain/agentmux/record.js"
import { scanRanges } from "../../src/layers/agentmux/parallel-scan.js"
import { applyRange, mergeMissing } from "../../src/layers/agentmux/range-scan.js"
import { type StoreConnection, TranscriptStore, type MemoryFile } from "../../src/layers/agentmux/TranscriptStore.js"
import { openStore } from "../../src/layers/agentmux/transcript-store-sqlite.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { forEachLine, makeStamps } from "../../src/layers/agentmux/zone-reader.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { assistant, CURRENT, init, layout, UID } from "./fixture.js"
import { agentmuxAdapter, createStore, PART, streamedSession, tsidxRecord, withStore } from "./store-helper.js"

const T = 1_735_689_600_000 // 2025-01-01T00:00:00Z
const iso = (ms: number) => new Date(ms).toISOString()
const SID = "S-Z"
const HUGE = 2 ** 50
const z = layout([init(SID, "/home/dev/z"), ...[1, 2, 3, 4].map((i) => assistant(SID, `m${i}`, [{ type: "text", text: `answer ${i}` }]))])
const tsidx = z.lines.map((l, i) => tsidxRecord(l.start, T + i * 1000)).join("")

/** An in-memory store's connection whose `read`s are counted. */
const counted = (files: ReadonlyArray<MemoryFile>) =>
  Effect.scoped(
    Effect.flatMap(TranscriptStore, (s) => s.open("/mem")).pipe(
      Effect.provide(TranscriptStore.layerTest({ "/mem": files })),
      Effect.map((o) => {
        if (o._tag !== "open") throw new Error("no store")
        const c = o.connection
        const stats = { reads: 0 }
        const conn: StoreConnection = { ...c, read: (f, off, len, into) => (stats.reads++, c.read(f, off, len, into)) }
        return { conn, stats }
      })
    )
  )

describe("reading stops at the last part present (a db_wave_file.size past the parts)", () => {
  it.effect("forEachLine over a 2^50-byte output of one part: its lines, then one missing range, in a few reads", () =>
    Effect.gen(function*() {
      const { conn, stats } = yield* counted([{ zoneId: "z", name: "output", bytes: z.bytes, size: HUGE }])
      const [file] = yield* conn.listFiles("z")
      expect(file.size).toBe(HUGE)
      const starts: Array<number> = []
      const read = yield* forEachLine(conn, file, 0, file.size, 1 << 20, (ls) => {
        for (const l of ls) starts.push(l.start)
      })
      expect(starts).toEqual(z.lines.map((l) => l.start))
      expect(read.readTo).toBe(z.bytes.length)
      expect(read.missing).toEqual([{ start: z.bytes.length, end: HUGE }])
      expect(stats.reads).toBeLessThanOrEqual(2)
    }))

  it.effect("a gap of missing parts between present ones is crossed in a few reads, one missing range, the lines after it read", () =>
    Effect.gen(function*() {
      // part 0: the lines; parts 1 .. 511 missing (32 MiB: 8 steps of 4 MiB); part 512: one more line; the size says 2^50.
      const tail = Buffer.from(`${JSON.stringify({ type: "user", session_id: SID })}\n`)
      const far = 512
      const bytes = Buffer.alloc((far + 1) * PART)
      z.bytes.copy(bytes, 0)
      bytes.fill(0x61, z.bytes.length, PART) // an unterminated run of 'a' to the end of part 0
      tail.copy(bytes, far * PART)
      const missingParts = Array.from({ length: far - 1 }, (_, i) => i + 1)
      const { conn, stats } = yield* counted([{ zoneId: "z", name: "output", bytes, size: HUGE, missingParts }])
      const [file] = yield* conn.listFiles("z")
      const got: Array<[number, string | null]> = []
      const read = yield* forEachLine(conn, file, 0, file.size, 1 << 20, (ls) => {
        for (const l of ls) got.push([l.start, l.problem])
      })
      expect(got).toEqual([...z.lines.map((l): [number, null] => [l.start, null]), [z.bytes.length, "missing-part"]])
      expect(read.readTo).toBe(far * PART + tail.length)
      expect(read.missing).toEqual([{ start: PART, end: far * PART }, { start: far * PART + PART, end: HUGE }])
      expect(stats.reads).toBeLessThanOrEqual(5)
    }))

  it.effect("makeStamps over a 2^50-byte sidecar of one part: the lines' receive times, the missing parts counted, in a few reads", () =>
    Effect.gen(function*() {
      const { conn, stats } = yield* counted([{ zoneId: "z", name: "output.tsidx", bytes: Buffer.from(tsidx), size: HUGE }])
      const [file] = yield* conn.listFiles("z")
      const stamps = makeStamps(conn, file)
      for (const [i, l] of z.lines.entries()) expect(yield* stamps.at(l.start)).toBe(T + i * 1000)
      expect(yield* stamps.at(HUGE - 1)).toBe(T + 4000)
      expect(stamps.missingParts()).toBe(HUGE / PART) // part 0 short of its 64 KiB, and every part after it
      expect(stamps.unreadable()).toBe(0)
      expect(stats.reads).toBeLessThanOrEqual(4)
    }))
})

/** A store with session S-Z in the current zone and its sidecar; `size` set on both files' rows. */
const makeStore = (size: string | number | bigint, opts: { wal?: boolean } = {}) => {
  const dir = tempDir("si-am-size-")
  const store = nodePath.join(dir, "filestore.db")
  createStore(store, [
    { zoneId: CURRENT, name: "output", bytes: z.bytes },
    { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ], opts)
  withStore(store, (db) => {
    db.prepare("UPDATE db_wave_file SET size = ? WHERE zoneid = ?").run(size, CURRENT)
  })
  fs.mkdirSync(nodePath.join(dir, "agents"))
  return { dir, store, state: nodePath.join(dir, "state.db") }
}

const loc = { locatorClass: "agentmux-agent-record" as const, path: "", agentId: UID, sessionId: SID }

/** The session's events and the warnings `stream` hands on after them. */
const streamed = (s: { store: string; state: string }) => streamedSession(s, loc)

describe("AgentMux: a db_wave_file.size of 2^50 over parts of a few KiB (discover, stream, import)", () => {
  for (const wal of [false, true]) {
    it.effect(`${wal ? "a WAL store (read from a copy, by scan workers when long)" : "a store read in place"}: one MISSING_PART past the parts, the lines dated, the sidecar's missing parts counted`, () =>
      Effect.gen(function*() {
        const s = makeStore(HUGE, { wal })
        const d = yield* agentmuxAdapter(s, (a) => a.discover({ agentId: UID }))
        expect(d.diagnostics.map((x) => x.code)).toEqual(["MISSING_PART"])
        expect(d.diagnostics[0].details).toEqual({ zone: CURRENT, lines: 0, ranges: [{ start: z.bytes.length, end: HUGE }] })
        expect(d.sources.map((x) => [x.sessionId, x.overview.firstActivityAt, x.overview.lastActivityAt])).toEqual([[SID, iso(T), iso(T + 4000)]])
        const { events, warnings } = yield* streamed(s)
        expect(events.map((e) => e.occurredAt)).toEqual([1, 2, 3, 4].map((i) => iso(T + i * 1000)))
        expect(warnings.map((w) => w.details)).toEqual([{ kind: "tsidx-part-missing", count: HUGE / PART, firstLine: 1 }])
      }), 60_000)
  }

  it("import prints MISSING_PART once", () => {
    const s = makeStore(HUGE)
    const r = cli(["import", "--store", s.store, "--state", s.state, "--agent", UID, "--agents-root", nodePath.join(s.dir, "agents"), "--index", nodePath.join(s.dir, "i.db")], {
      env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }
    })
    expect(r.code).toBe(8)
    expect(r.stdout.split("MISSING_PART: ").length - 1).toBe(1)
    expect(r.stdout).not.toContain("PARTIAL_LINE")
  }, 60_000)
})

describe("AgentMux: a db_wave_file.size that is no byte count is not trusted: the file read as far as its parts go", () => {
  const cases: ReadonlyArray<[string, string | number | bigint]> = [
    ["negative", -5],
    ["not an integer", 1234.5],
    ["past 2^53 (an integer)", 2n ** 60n],
    ["past 2^53 (a real)", 1e300],
    ["text", "lots"]
  ]
  for (const [what, size] of cases) {
    it.effect(`${what}: every line read and dated, FILE_SIZE_NOT_VALID for each file, nothing missing`, () =>
      Effect.gen(function*() {
        const s = makeStore(size)
        const d = yield* agentmuxAdapter(s, (a) => a.discover({ agentId: UID }))
        expect(d.diagnostics.map((x) => [x.code, (x.details as { file: string }).file])).toEqual([
          ["FILE_SIZE_NOT_VALID", "output"],
          ["FILE_SIZE_NOT_VALID", "output.tsidx"]
        ])
        expect(d.diagnostics.map((x) => (x.details as { readAs: number }).readAs)).toEqual([z.bytes.length, tsidx.length])
        expect(d.sources.map((x) => [x.sessionId, x.overview.firstActivityAt, x.overview.lastActivityAt])).toEqual([[SID, iso(T), iso(T + 4000)]])
        const { events, warnings } = yield* streamed(s)
        expect(events.map((e) => e.occurredAt)).toEqual([1, 2, 3, 4].map((i) => iso(T + i * 1000)))
        expect(warnings).toEqual([])
      }))
  }
})

describe("scan workers: a gap of 2^30 missing parts in a WAL store's output", () => {
  it.effect("the range is cut and scanned by workers across the gap in a few reads: the line over it counted, one missing range, the lines after it read", () =>
    Effect.scoped(
      Effect.gen(function*() {
        // part 0: the session's lines; parts 1 .. F - 1 not in the store; part F: the end of the line over the gap, then one more line.
        const F = 2 ** 30
        const far = Buffer.from(`junk\n${assistant(SID, "m5", [{ type: "text", text: "answer 5" }])}\n`)
        const dir = tempDir("si-am-gap-")
        const store = nodePath.join(dir, "filestore.db")
        createStore(store, [{ zoneId: CURRENT, name: "output", bytes: z.bytes }], { wal: true })
        withStore(store, (db) => {
          db.prepare("INSERT INTO db_file_data VALUES (?, 'output', ?, ?)").run(CURRENT, F, far)
          db.prepare("UPDATE db_wave_file SET size = ? WHERE zoneid = ?").run(F * PART + far.length, CURRENT)
        })
        const opened = yield* openStore(sourceAccessNode, store, nodePath.join(dir, "cache"))
        if (opened._tag !== "open") throw new Error("no store")
        const output = (yield* opened.connection.listFiles(CURRENT)).find((f) => f.name === "output")!
        expect(output.size).toBe(F * PART + far.length)
        const ranges = yield* scanRanges(opened.connection, output, 0, output.size, 1 << 20, { workers: 2, minBytes: 1 })
        expect(ranges.length).toBe(2) // cut after the gap's line: scanned by workers
        const acc = beginScan(emptyScan)
        for (const r of ranges) applyRange(acc, r)
        expect(acc.missingPartLines).toBe(1)
        expect(ranges[ranges.length - 1].readTo).toBe(output.size)
        expect(mergeMissing(ranges.map((r) => r.missing))).toEqual([{ start: z.bytes.length, end: F * PART }])
        // The line over the gap is owned by no session: it joins the run around it (the scan's rule), 5 + 1 + 1 lines.
        expect(acc.runs.map((r) => [r.sessionId, r.lines])).toEqual([[SID, 7]])
      })
    ), 60_000)
})
