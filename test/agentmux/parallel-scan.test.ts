/**
 * A zone scanned in pieces by worker threads (issue 13: the first scan of a
 * long record split across cores) gives the scan one pass gives: the same
 * runs, pending lines, working directories, counts of unreadable, oversized
 * and missing-part lines, the same missing ranges, bytes read and stopping
 * point (a trailing unterminated line left). Pieces are cut at `\n`s only, so
 * a line longer than a piece, a line over a missing part, a piece boundary
 * inside a run or between an echo and its owner change nothing. And the
 * fold of groups of lines (`scanGroup`) is the fold of the lines one by one.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { beginScan, emptyScan, endScan, scanGroup, scanLine, type ScannedLine } from "../../src/domain/agentmux/record.js"
import * as App from "../../src/layers/app.js"
import { parallelSettings, scanRanges } from "../../src/layers/agentmux/parallel-scan.js"
import { applyRange, mergeMissing } from "../../src/layers/agentmux/range-scan.js"
import { openStore } from "../../src/layers/agentmux/transcript-store-sqlite.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { repoRoot } from "../support/paths.js"
import { assistant, delta, echo, init, result } from "./fixture.js"
import { createStore, fingerprint, PART, tsidxRecord } from "./store-helper.js"

const UID = "u9"
const CURRENT = `agent:${UID}:current`

let dir: string
let store: string
beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-parallel-"))
  fs.mkdirSync(nodePath.join(dir, "store"))
  store = nodePath.join(dir, "store", "filestore.db")
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

type Kind = "delta" | "assistant" | "echo" | "init" | "result" | "unreadable" | "blank" | "long"
const lineOf = (kind: Kind, sid: number, size: number, i: number): string => {
  const s = `S-${sid}`
  const pad = "q".repeat(size)
  switch (kind) {
    case "delta":
      return delta(s, `${pad}${i}`)
    case "assistant":
      return assistant(s, `m${i}`, [{ type: "text", text: `${pad}é${i}` }])
    case "echo":
      return echo(`typed ${pad}${i}`)
    case "init":
      return init(s, `/home/dev/${s}-${i % 4}`)
    case "result":
      return result(s, `done ${i}`)
    case "unreadable":
      return `{"type":"assistant","message":${pad}`
    case "blank":
      return "   "
    case "long":
      // longer than a part (and than the limit the test passes): oversized, and across piece cuts
      return delta(s, "L".repeat(PART + size * 40))
  }
}

const arbLine = fc.record({
  kind: fc.constantFrom<Kind>("delta", "delta", "delta", "delta", "assistant", "echo", "init", "result", "unreadable", "blank", "long"),
  sid: fc.integer({ min: 0, max: 3 }),
  size: fc.integer({ min: 0, max: 2500 }),
  run: fc.integer({ min: 1, max: 40 })
})
const arbZone = fc.record({
  lines: fc.array(arbLine, { minLength: 1, maxLength: 60 }),
  // parts left out of the store (a damaged store), as fractions of the zone (in its first half: the zone is cut in its second)
  missing: fc.array(fc.double({ min: 0, max: 0.49, noNaN: true }), { maxLength: 2 }),
  // an unterminated last line (an append in progress)
  tail: fc.boolean()
})

const zoneBytes = (z: typeof arbZone extends fc.Arbitrary<infer T> ? T : never) => {
  const out: Array<string> = []
  let i = 0
  for (const l of z.lines) for (let k = 0; k < l.run; k++) out.push(`${lineOf(l.kind, l.sid, l.size, i++)}\n`)
  // short lines to end with (a few parts): `\n`s past the middle, whatever came before (so the zone is always cut)
  for (let k = 0; k < 3000; k++) out.push(`${lineOf("delta", k % 2, 0, i++)}\n`)
  if (z.tail) out.push(delta("S-9", "half a line"))
  return Buffer.from(out.join(""), "utf8")
}

/** The scan of the whole zone folded from `scanRanges`' answer (with the settings given). */
const scanWith = (workers: number, maxLineBytes: number, entry?: string) =>
  Effect.scoped(
    Effect.gen(function*() {
      const opened = yield* openStore(sourceAccessNode, store, nodePath.join(dir, "cache"))
      if (opened._tag !== "open") throw new Error("no store")
      const conn = opened.connection
      const output = (yield* conn.listFiles(CURRENT)).find((f) => f.name === "output")!
      const ranges = yield* scanRanges(conn, output, 0, output.size, maxLineBytes, { workers, minBytes: 1, entry })
      const acc = beginScan(emptyScan)
      for (const r of ranges) applyRange(acc, r)
      const scan = endScan(acc, { readTo: ranges[ranges.length - 1].readTo, createdTs: null, generation: null, headLength: 0, headDigest: "" })
      return {
        pieces: ranges.length,
        scan,
        bytesRead: ranges.reduce((n, r) => n + r.bytesRead, 0),
        missing: mergeMissing(ranges.map((r) => r.missing))
      }
    })
  )

describe("a zone scanned in pieces by workers is the zone scanned in one pass", () => {
  it("generated zones of a WAL store (read copy): 1 and 3 workers against none", async () => {
    const zones = fc.sample(arbZone, { numRuns: 4, seed: 13 })
    for (const [n, z] of zones.entries()) {
      const bytes = zoneBytes(z)
      const parts = Math.ceil(bytes.length / PART)
      const missingParts = [...new Set(z.missing.map((f) => Math.min(parts - 1, Math.floor(f * parts))))]
      for (const name of fs.readdirSync(nodePath.dirname(store))) fs.rmSync(nodePath.join(nodePath.dirname(store), name))
      createStore(store, [
        { zoneId: CURRENT, name: "output", bytes, missingParts },
        { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, 1_700_000_000_000)) }
      ], { wal: true })
      const before = fingerprint(nodePath.dirname(store))
      const limit = PART + 1000
      const one = await Effect.runPromise(scanWith(0, limit))
      expect(one.pieces).toBe(1)
      for (const workers of [1, 3]) {
        const split = await Effect.runPromise(scanWith(workers, limit))
        // the zone was cut into pieces, each scanned by a worker (bytes.length is far above a piece's minimum)
        expect(split.pieces, `zone ${n}, ${workers} worker(s)`).toBeGreaterThan(1)
        expect(JSON.stringify(split.scan), `zone ${n}, ${workers} worker(s)`).toBe(JSON.stringify(one.scan))
        expect(split.bytesRead).toBe(one.bytesRead)
        expect(split.missing).toStrictEqual(one.missing)
      }
      expect(fingerprint(nodePath.dirname(store))).toEqual(before)
    }
  }, 240_000)

  it("discovery with workers (any range, the environment's settings) answers what discovery without them answers", async () => {
    const z = fc.sample(arbZone, { numRuns: 1, seed: 77 })[0]
    createStore(store, [
      { zoneId: CURRENT, name: "output", bytes: zoneBytes({ ...z, missing: [] }) },
      { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, 1_700_000_000_000)) }
    ], { wal: true })
    const discover = (state: string, workers: string) =>
      Effect.runPromise(
        Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
          Effect.flatMap((a) => a.discover({ agentId: UID })),
          Effect.provide(App.layer({ agentmuxStore: store, stateFile: state })),
          Effect.withConfigProvider(
            ConfigProvider.fromMap(
              new Map([["SESSION_INGEST_SCAN_WORKERS", workers], ["SESSION_INGEST_SCAN_PARALLEL_BYTES", "1"]])
            )
          )
        )
      )
    const none = await discover(nodePath.join(dir, "a", "state.db"), "0")
    const two = await discover(nodePath.join(dir, "b", "state.db"), "2")
    const strip = (r: typeof none) => JSON.stringify({ ...r, receipts: { ...(r.receipts as object), stateFile: null } })
    expect(strip(two)).toBe(strip(none))
  }, 120_000)
})

describe("scan workers started while a store's main file is first copied (StoreConnection.workersAhead)", () => {
  it("a WAL store's first read into a cache starts them, and the scan takes them; not with the main file cached, nor without workers, nor without a usable cache", async () => {
    const z = fc.sample(arbZone, { numRuns: 1, seed: 21 })[0]
    createStore(store, [{ zoneId: CURRENT, name: "output", bytes: zoneBytes({ ...z, missing: [] }) }], { wal: true })
    const limit = PART + 1000
    const open = (cache: string, workers: string) =>
      Effect.runPromise(
        Effect.scoped(Effect.gen(function*() {
          const opened = yield* openStore(sourceAccessNode, store, nodePath.join(dir, cache))
          if (opened._tag !== "open") throw new Error("no store")
          const conn = opened.connection
          const ahead = conn.workersAhead
          if (ahead === undefined) return "none"
          const probe = yield* ahead.probe
          const output = (yield* conn.listFiles(CURRENT)).find((f) => f.name === "output")!
          const ranges = yield* scanRanges(conn, output, 0, output.size, limit, { workers: 2, minBytes: 1 })
          return { probe: probe._tag, scannedInPieces: ranges.length > 1 }
        })).pipe(
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["SESSION_INGEST_SCAN_WORKERS", workers], ["SESSION_INGEST_SCAN_PARALLEL_BYTES", "1"]]))
          )
        )
      )
    expect(await open("cache-a", "0")).toBe("none") // no workers wanted
    expect(await open("cache-b", "2")).toEqual({ probe: "ready", scannedInPieces: true }) // the store's first read there
    expect(await open("cache-b", "2")).toBe("none") // its main file is cached: a rescan
    // a cache root that cannot be a folder: every read copies the whole store (a rescan too), no workers ahead
    fs.writeFileSync(nodePath.join(dir, "cache-c"), "")
    expect(await open("cache-c", "2")).toBe("none")
  }, 120_000)
})

describe("a scan worker entry that cannot load", () => {
  const built = () => fs.readFileSync(nodePath.join(repoRoot, "dist", "agentmux-scan-worker.cjs"), "utf8")
  const cases: ReadonlyArray<readonly [string, () => string]> = [
    ["truncated (a build cut short)", () => built().slice(0, Math.floor(built().length / 2))],
    ["throwing at its top level", () => `"use strict";\nthrow new Error("broken build");\n`]
  ]
  for (const [name, text] of cases) {
    it(`${name}: the range is scanned in this thread, as without workers (no retry loop, no hang)`, async () => {
      const z = fc.sample(arbZone, { numRuns: 1, seed: 5 })[0]
      createStore(store, [
        { zoneId: CURRENT, name: "output", bytes: zoneBytes({ ...z, missing: [] }) },
        { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, 1_700_000_000_000)) }
      ], { wal: true })
      const entry = nodePath.join(dir, "agentmux-scan-worker.cjs")
      fs.writeFileSync(entry, text())
      const limit = PART + 1000
      const one = await Effect.runPromise(scanWith(0, limit))
      // without the probe, building the pool waits uninterruptibly for a worker started again every second: given up at 20 s
      let timer: NodeJS.Timeout | undefined
      const broken = await Promise.race([
        Effect.runPromise(scanWith(2, limit, entry)),
        new Promise<"hung">((resolve) => {
          timer = setTimeout(() => resolve("hung"), 20_000)
        })
      ])
      clearTimeout(timer)
      expect(broken).not.toBe("hung")
      if (broken === "hung") return
      expect(broken.pieces).toBe(1)
      expect(JSON.stringify(broken.scan)).toBe(JSON.stringify(one.scan))
      expect(broken.bytesRead).toBe(one.bytesRead)
      expect(broken.missing).toStrictEqual(one.missing)
    }, 60_000)
  }
})

describe("parallelSettings", () => {
  const NAMES = ["SESSION_INGEST_SCAN_WORKERS", "SESSION_INGEST_SCAN_PARALLEL_BYTES"] as const
  it("under the default ConfigProvider (the environment read at once) answers what Config.integer through ConfigProvider.fromEnv answers", () => {
    const kept = NAMES.map((n) => [n, process.env[n]] as const)
    const value = fc.option(
      fc.oneof(
        fc.constantFrom("", " ", "0", "1", "3", " 2 ", "-1", "2.5", "0x10", "1e3", "abc", "4workers", "1,2", "Infinity", "\t7\n"),
        fc.integer({ min: -5, max: 1 << 30 }).map(String)
      ),
      { nil: undefined }
    )
    try {
      fc.assert(
        fc.property(value, value, (workers, bytes) => {
          for (const [n, v] of [[NAMES[0], workers], [NAMES[1], bytes]] as const) {
            if (v === undefined) delete process.env[n]
            else process.env[n] = v
          }
          const atOnce = Effect.runSync(parallelSettings)
          // a provider of its own (not the default one): read through Config
          const viaConfig = Effect.runSync(parallelSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromEnv())))
          expect(atOnce).toStrictEqual(viaConfig)
        }),
        { numRuns: 300 }
      )
      delete process.env[NAMES[0]]
      process.env[NAMES[1]] = "5"
      expect(Effect.runSync(parallelSettings).minBytes).toBe(5)
      // a provider given is honoured
      const given = Effect.runSync(parallelSettings.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([[NAMES[0], "3"], [NAMES[1], "7"]])))
      ))
      expect(given).toStrictEqual({ workers: 3, minBytes: 7 })
    } finally {
      for (const [n, v] of kept) {
        if (v === undefined) delete process.env[n]
        else process.env[n] = v
      }
    }
  })
})

describe("scanGroup", () => {
  it("folding groups of consecutive lines of one owner is folding the lines one by one", () => {
    const arbGroups = fc.array(
      fc.record({ sid: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }), lines: fc.integer({ min: 1, max: 4 }), cwd: fc.option(fc.constantFrom("/a", "/b"), { nil: null }) }),
      { maxLength: 20 }
    )
    fc.assert(
      fc.property(arbGroups, fc.integer({ min: 0, max: 3 }), (groups, prior) => {
        // a stored scan to continue from: some runs and pending lines
        const from = beginScan(emptyScan)
        let at = 0
        for (let i = 0; i < prior; i++) {
          scanLine(from, { start: at, end: at + 10, sessionId: i % 2 === 0 ? "S-0" : null, cwd: null })
          at += 10
        }
        const base = endScan(from, { readTo: at, createdTs: null, generation: null, headLength: 0, headDigest: "" })
        const byLine = beginScan(base)
        const byGroup = beginScan(base)
        let pos = at
        for (const g of groups) {
          const sid = g.sid === null ? null : `S-${g.sid}`
          const start = pos
          for (let k = 0; k < g.lines; k++) {
            const line: ScannedLine = { start: pos, end: pos + 7, sessionId: sid, cwd: k === g.lines - 1 && sid !== null ? g.cwd : null }
            scanLine(byLine, line)
            pos += 7
          }
          scanGroup(byGroup, sid, start, pos, g.lines, sid !== null ? g.cwd : null)
        }
        expect(JSON.stringify({ ...byGroup, touched: [...byGroup.touched] })).toBe(
          JSON.stringify({ ...byLine, touched: [...byLine.touched] })
        )
      })
    )
  })
})
