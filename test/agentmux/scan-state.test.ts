/**
 * The scan state (issue 13): scans are stored in a compact format 2; a state
 * written by an earlier build (format 1, one object per run) keeps working and
 * is rewritten as format 2 by the next commit; a stored scan that cannot be
 * trusted is never used: its zone is read again from the start, and the
 * report says why (`ZONE_READ_AGAIN`, reason `state-untrusted`). A commit
 * rewrites only the zones whose scan changed.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import {
  beginScan,
  decodeStoredZoneScan,
  emptyScan,
  encodeZoneScan,
  endScan,
  isConsistentScan,
  scanGroup,
  type ZoneScan
} from "../../src/domain/agentmux/record.js"
import type { DiscoveryReport } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { ARCHIVE, CURRENT, currentLines, storeFiles, T0, UID } from "./fixture.js"
import { appendBytes, createStore, tsidxRecord, withStore } from "./store-helper.js"

let dir: string
let store: string
let state: string
beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-scan-state-"))
  fs.mkdirSync(nodePath.join(dir, "store"))
  store = nodePath.join(dir, "store", "filestore.db")
  state = nodePath.join(dir, "state", "state.db")
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const discover = () =>
  Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
    Effect.flatMap((a) => a.discover({ agentId: UID })),
    Effect.provide(App.layer({ agentmuxStore: store, stateFile: state }))
  )

type Receipt = { zone: string; readFrom: number; readTo: number; bytesRead: number; reset: string | null }
const receipt = (r: DiscoveryReport, zone: string) => (r.receipts.zones as ReadonlyArray<Receipt>).find((z) => z.zone === zone)!
const readAgain = (r: DiscoveryReport) => r.diagnostics.filter((d) => d.code === "ZONE_READ_AGAIN").map((d) => d.details)

/** The state's rows: zone → [scan text, updated_ms]. */
const rows = () => {
  const db = new Database(state, { readonly: true })
  try {
    return new Map(
      (db.prepare("SELECT zone, scan, updated_ms FROM agentmux_zone_scan").all() as Array<{ zone: string; scan: string; updated_ms: number }>)
        .map((r) => [r.zone, [r.scan, r.updated_ms] as const])
    )
  } finally {
    db.close()
  }
}
const setScan = (zone: string, text: string) => {
  const db = new Database(state)
  try {
    db.prepare("UPDATE agentmux_zone_scan SET scan = ? WHERE zone = ?").run(text, zone)
  } finally {
    db.close()
  }
}
/** A scan as the earlier build stored it: format 1, `{"v":1, …fields}` with an object per run. */
const asFormat1 = (s: ZoneScan) => JSON.stringify({ v: 1, ...s })
/** What a report says of the sessions, without the receipts (which tell how they were read). */
const sessionsOf = (r: DiscoveryReport) => r.sources.map((s) => s.summary)

/** The fixture's half-written line completed, then a new session's init line, as AgentMux appends them. */
const append = () =>
  withStore(store, (db) => {
    const rest = `,"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}]},"session_id":"S-B"}\n`
    const more = Buffer.from(`${rest}${JSON.stringify({ type: "system", subtype: "init", session_id: "S-N", cwd: "/n" })}\n`)
    appendBytes(db, CURRENT, "output", more)
    appendBytes(db, CURRENT, "output.tsidx", Buffer.from(`\n${tsidxRecord(currentLines.lines.at(-1)!.end, T0 + 50_000, "")}`))
  })

describe("stored scans", () => {
  it("format 2 holds exactly the scan (round trip), each session id once; format 1 still decodes to the same scan", () => {
    const scan: ZoneScan = {
      readTo: 900,
      createdTs: 17,
      generation: "g7",
      headLength: 64,
      headDigest: "ab".repeat(32),
      runs: [
        { sessionId: "S-1", start: 0, end: 100, lines: 3, firstMs: 5, lastMs: 9 },
        { sessionId: "S-é", start: 100, end: 400, lines: 1, firstMs: null, lastMs: null },
        { sessionId: "S-1", start: 450, end: 800, lines: 7, firstMs: 1.5, lastMs: 2 }
      ],
      pending: { start: 800, lines: 2 },
      // as JSON.parse makes them: "__proto__" an own key like any other session id
      cwd: JSON.parse("{\"S-1\":\"/a\",\"S-é\":\"/日本\",\"__proto__\":\"/p\"}"),
      unreadable: 1,
      missingPartLines: 2,
      oversized: 3
    }
    const text = encodeZoneScan(scan)
    expect(JSON.parse(text).v).toBe(2)
    expect(text.split("\"S-1\"").length - 1).toBe(1) // once, in ids: runs and cwd name it by index
    const back = decodeStoredZoneScan(text)!
    expect(back).toEqual(scan)
    expect(Object.getPrototypeOf(back.cwd)).toBe(Object.prototype)
    expect(Object.keys(back.cwd)).toEqual(["S-1", "S-é", "__proto__"])
    // format 1 as it was (its Schema record leaves out a "__proto__" key; format 2 keeps it)
    const plain = { ...scan, cwd: { "S-1": "/a", "S-é": "/日本" } }
    expect(decodeStoredZoneScan(asFormat1(plain))).toEqual(plain)
    expect(decodeStoredZoneScan(encodeZoneScan(emptyScan))).toEqual(emptyScan)
  })

  it("the working directories decoded and their working copy are ordinary objects holding every session id as an own key", () => {
    // Session ids that are Object.prototype's names, `__proto__`, and integer-like ids (listed first, ascending, as in
    // any object): each an own key with its directory, in decoded and copy alike (issue 13 builds both key by key).
    const ids = ["S-1", "__proto__", "10", "constructor", "2", "toString", "hasOwnProperty"]
    const cwd = JSON.parse(`{${ids.map((id, i) => `${JSON.stringify(id)}:"/w/${i}"`).join(",")}}`) as Record<string, string>
    const scan: ZoneScan = {
      ...emptyScan,
      readTo: 100 * ids.length,
      runs: ids.map((sessionId, i) => ({ sessionId, start: 100 * i, end: 100 * i + 50, lines: 1, firstMs: i, lastMs: i })),
      cwd
    }
    const text = encodeZoneScan(scan)
    const back = decodeStoredZoneScan(text)!
    const order = ["2", "10", "S-1", "__proto__", "constructor", "toString", "hasOwnProperty"]
    const acc = beginScan(back)
    for (const o of [back.cwd, acc.cwd]) {
      expect(Object.getPrototypeOf(o)).toBe(Object.prototype)
      expect(Object.keys(o)).toEqual(order)
      for (const id of ids) {
        expect(Object.hasOwn(o, id)).toBe(true)
        expect(o[id]).toBe(`/w/${ids.indexOf(id)}`)
      }
      expect(JSON.stringify(o)).toBe(JSON.stringify(cwd))
    }
    expect(acc.cwd).not.toBe(back.cwd)
    // The copy is the scan's own: what the scan adds or changes is not in the stored scan it began from.
    scanGroup(acc, "S-new", 800, 900, 1, "/w/new")
    scanGroup(acc, "__proto__", 900, 950, 1, "/w/again")
    expect(Object.hasOwn(back.cwd, "S-new")).toBe(false)
    expect(back.cwd.__proto__ === "/w/1" && Object.hasOwn(back.cwd, "__proto__")).toBe(true)
    expect(acc.cwd["S-new"]).toBe("/w/new")
    expect(Object.getOwnPropertyDescriptor(acc.cwd, "__proto__")?.value).toBe("/w/again")
    expect(encodeZoneScan(endScan(beginScan(back), back))).toBe(text)
    expect(decodeStoredZoneScan(encodeZoneScan(endScan(acc, { ...back, readTo: 950 })))!.cwd["S-new"]).toBe("/w/new")
  })

  it("anything else is untrusted: not JSON, another version, a wrong type anywhere, numbers that do not hold together", () => {
    const scan: ZoneScan = {
      ...emptyScan,
      readTo: 500,
      headLength: 10,
      headDigest: "x",
      runs: [{ sessionId: "S", start: 0, end: 200, lines: 2, firstMs: 1, lastMs: 2 }],
      pending: { start: 300, lines: 1 }
    }
    const o = JSON.parse(encodeZoneScan(scan)) as Record<string, unknown>
    const bad: Array<unknown> = [
      "not json",
      "[1,2]",
      "null",
      { ...o, v: 3 },
      { ...o, v: "2" },
      { ...o, readTo: -1 },
      { ...o, readTo: 1.5 },
      { ...o, readTo: "500" },
      { ...o, createdTs: "x" },
      { ...o, generation: 7 },
      { ...o, headLength: null },
      { ...o, headDigest: 1 },
      { ...o, pending: [300] },
      { ...o, pending: { start: 300, lines: 1 } },
      { ...o, unreadable: -2 },
      { ...o, missingPartLines: undefined },
      { ...o, oversized: 2 ** 60 },
      { ...o, ids: [""] },
      { ...o, ids: [7] },
      { ...o, ids: "S" },
      { ...o, runs: [0, 0, 200, 2, 1] },
      { ...o, runs: [1, 0, 200, 2, 1, 2] },
      { ...o, runs: [0, 0, 200, 2, "1", 2] },
      { ...o, cwd: [0] },
      { ...o, cwd: [5, "/x"] },
      { ...o, cwd: [0, 7] },
      // inconsistent: a run past readTo, an empty run, runs out of order, pending before the last run or at readTo, head past readTo
      { ...o, runs: [0, 0, 600, 2, 1, 2] },
      { ...o, runs: [0, 100, 100, 2, 1, 2] },
      { ...o, runs: [0, 100, 200, 1, 1, 2, 0, 0, 50, 1, 1, 2] },
      { ...o, pending: [100, 1] },
      { ...o, pending: [500, 1] },
      { ...o, headLength: 501 },
      // the same faults in format 1
      { ...JSON.parse(asFormat1(scan)), runs: [{ ...scan.runs[0], end: 900 }] },
      { ...JSON.parse(asFormat1(scan)), readTo: "500" }
    ]
    for (const b of bad) expect(decodeStoredZoneScan(typeof b === "string" ? b : JSON.stringify(b)), JSON.stringify(b)).toBeNull()
    expect(isConsistentScan(scan)).toBe(true)
  })
})

describe("the state file across builds and damage", () => {
  it.effect("a state of the earlier build (format 1) keeps working: the rescan reads only the append, and is stored as format 2", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      for (const [zone, [text]] of rows()) setScan(zone, asFormat1(decodeStoredZoneScan(text)!))
      expect([...rows().values()].every(([t]) => JSON.parse(t).v === 1)).toBe(true)
      append()
      const second = yield* discover()
      expect(receipt(second, CURRENT)).toMatchObject({ readFrom: receipt(first, CURRENT).readTo, reset: null })
      expect(receipt(second, ARCHIVE).bytesRead).toBe(0)
      expect(readAgain(second)).toEqual([])
      expect(sessionsOf(second).map((s) => s.sessionId)).toContain("S-N")
      expect([...rows().values()].every(([t]) => JSON.parse(t).v === 2)).toBe(true)
      // the same answer as a scan from nothing
      fs.rmSync(nodePath.dirname(state), { recursive: true, force: true })
      expect(sessionsOf(yield* discover())).toEqual(sessionsOf(second))
    }))

  it.effect("a stored scan that cannot be trusted is read again from the start, counted with its reason, and the answer is right", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      const good = decodeStoredZoneScan(rows().get(CURRENT)![0])!
      // a run claimed past what was read: a state that would hide or invent lines
      setScan(CURRENT, encodeZoneScan({ ...good, runs: [{ ...good.runs[0], end: good.readTo + 1000 }, ...good.runs.slice(1)] }))
      setScan(ARCHIVE, "{\"v\":2,\"readTo\":")
      const second = yield* discover()
      expect(receipt(second, CURRENT)).toMatchObject({ readFrom: 0, reset: "state-untrusted" })
      expect(receipt(second, ARCHIVE)).toMatchObject({ readFrom: 0, reset: "state-untrusted" })
      expect(readAgain(second)).toEqual([
        { zone: ARCHIVE, reason: "state-untrusted" },
        { zone: CURRENT, reason: "state-untrusted" }
      ])
      expect(sessionsOf(second)).toEqual(sessionsOf(first))
      // repaired: the next rescan trusts it again
      const third = yield* discover()
      expect(readAgain(third)).toEqual([])
      expect(receipt(third, CURRENT)).toMatchObject({ readFrom: receipt(second, CURRENT).readTo, reset: null })
      expect(receipt(third, ARCHIVE).bytesRead).toBe(0)
    }))

  it.effect("a commit rewrites only the zones whose scan changed; zones gone from the store are forgotten", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const before = rows()
      const t = Date.now()
      while (Date.now() < t + 5) {
        // a later commit time than the first scan's
      }
      append()
      yield* discover()
      const after = rows()
      expect(after.get(ARCHIVE)).toEqual(before.get(ARCHIVE)) // the archive did not change: not written
      expect(after.get(CURRENT)![1]).toBeGreaterThan(before.get(CURRENT)![1])
      withStore(store, (db) => {
        db.prepare("DELETE FROM db_wave_file WHERE zoneid = ?").run(ARCHIVE)
        db.prepare("DELETE FROM db_file_data WHERE zoneid = ?").run(ARCHIVE)
      })
      yield* discover()
      expect([...rows().keys()]).toEqual([CURRENT])
    }))
  it.effect("when discover answers, its commit is in the state for any other connection; the state's connection is closed right after (its -wal checkpointed away)", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      // Another process's view, at once: the committed scans (read through the -wal if it is still there).
      const seen = rows()
      expect([...seen.keys()].sort()).toEqual([ARCHIVE, CURRENT].sort())
      expect(decodeStoredZoneScan(seen.get(CURRENT)![0])!.readTo).toBe(receipt(first, CURRENT).readTo)
      // A rescan at once (the earlier connection maybe not closed yet) reads nothing again.
      const again = yield* discover()
      expect(receipt(again, CURRENT).readFrom).toBe(receipt(first, CURRENT).readTo)
      expect(receipt(again, CURRENT).reset).toBeNull()
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(fs.readdirSync(nodePath.dirname(state)).filter((n) => n.startsWith("state.db")).sort()).toEqual(["state.db"])
    }))
})

describe("the discovery entries saved with the scans (issue 13: a rescan derives again only the sessions it changed)", () => {
  const reportRow = () => {
    const db = new Database(state, { readonly: true })
    try {
      return db.prepare("SELECT store, prefix, scans, body, body_digest FROM agentmux_report").all() as Array<
        { store: string; prefix: string; scans: string; body: string; body_digest: string }
      >
    } finally {
      db.close()
    }
  }
  const setReport = (fields: { scans?: string; body?: string; body_digest?: string }) => {
    const db = new Database(state)
    try {
      for (const [k, v] of Object.entries(fields)) db.prepare(`UPDATE agentmux_report SET ${k} = ?`).run(v)
    } finally {
      db.close()
    }
  }
  /** The answer of a scan from nothing (a new state): what every rescan must answer. */
  const fresh = () =>
    Effect.gen(function*() {
      const kept = state
      state = nodePath.join(dir, `fresh-${Math.random().toString(36).slice(2)}`, "state.db")
      try {
        return (yield* discover()).sources
      } finally {
        state = kept
      }
    })
  /** A line of session `sid` appended to the current zone (after the fixture's half line is completed by `append`). */
  const appendLine = (sid: string, text: string) =>
    withStore(store, (db) => {
      appendBytes(db, CURRENT, "output", Buffer.from(`${JSON.stringify({ type: "result", subtype: "success", result: text, session_id: sid })}\n`))
    })

  it.effect("saved in the commit's transaction, one row per store and agent, naming the scans it was derived from", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      const [row, ...more] = reportRow()
      expect(more).toEqual([])
      expect(row).toMatchObject({ store: fs.realpathSync(store), prefix: `agent:${UID}:` })
      // each session's id, then what is kept of it: its source id first
      expect(JSON.parse(row.body).items.map((it: Array<Array<unknown>>) => [it[0], it[4][0]])).toEqual(
        first.sources.map((s) => [s.sessionId, s.sourceId])
      )
      expect(row.body_digest).toMatch(/^[0-9a-f]{64}$/)
    }))

  it.effect("entries saved from other scans than the stored ones (another build committed since) are not kept", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const stale = reportRow()[0]
      append() // S-B's half line completed, S-N begins
      yield* discover()
      // as if a build that keeps no entries had committed the last scan: the entries are those of the first scan
      setReport({ scans: stale.scans, body: stale.body, body_digest: stale.body_digest })
      appendLine("S-N", "more") // S-N only: S-B's entry would be the first scan's if the stale entries were kept
      const r = yield* discover()
      expect(r.sources).toStrictEqual(yield* fresh())
      expect(r.sources.find((s) => s.sessionId === "S-B")).toStrictEqual((yield* fresh()).find((s) => s.sessionId === "S-B"))
    }))

  it.effect("entries whose text does not match its digest (damaged, edited) are not used; entries of another shape version neither", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const row = reportRow()[0]
      // S-A's entry (the archive's session: no rescan below changes it)
      // its line count, after its source id, cwd and two times
      const editA = (body: string) =>
        body.replace(/(\["S-A",[^\n]*?\["sha256:[0-9a-f]+",(?:"[^"]*"|null),(?:"[^"]*"|null),(?:"[^"]*"|null),)(\d+)/, (_, k, n) => `${k}${Number(n) + 100}`)
      const edited = editA(row.body)
      expect(edited).not.toBe(row.body)
      setReport({ body: edited }) // the digest is the original text's
      append()
      expect((yield* discover()).sources).toStrictEqual(yield* fresh())
      // a body of another version, its digest right: derived again as well
      const saved = reportRow()[0].body
      expect(JSON.parse(saved).v).toBe("agentmux-source-2")
      const other = editA(saved.replace(/^\{"v":"agentmux-source-2"/, "{\"v\":\"agentmux-source-0\""))
      expect(JSON.parse(other).v).toBe("agentmux-source-0")
      setReport({ body: other, body_digest: createHash("sha256").update(other).digest("hex") })
      appendLine("S-N", "again")
      expect((yield* discover()).sources).toStrictEqual(yield* fresh())
    }))

  it.effect("a session read between two discoveries scans the append without the entries: the next discovery derives them again, right", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const saved = reportRow()[0]
      append()
      appendLine("S-A", "late") // S-A's last activity and lines change
      const t = yield* Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
        Effect.flatMap((a) => a.transcript({ locatorClass: "agentmux-agent-record", path: "", agentId: UID, sessionId: "S-B" })),
        Effect.provide(App.layer({ agentmuxStore: store, stateFile: state }))
      )
      expect(t.sessionId).toBe("S-B")
      expect(reportRow()[0]).toEqual(saved) // left as it was, its scans no longer the stored ones
      const r = yield* discover()
      expect(receipt(r, CURRENT).bytesRead).toBe(0) // the append was read by the session's read
      expect(r.sources).toStrictEqual(yield* fresh())
    }))

  it.effect("the entries made from what is kept are, byte for byte, those made from the sessions (a channel's store read too)", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      append()
      const kept = yield* discover()
      const again = yield* discover() // from the kept entries only
      // The same store with a channel's store under an AgentMux home: entries made from the merged sessions.
      const home = nodePath.join(dir, "home")
      const channel = nodePath.join(home, "channels", "c1", "versions", "v1", "data", "db", "filestore.db")
      fs.mkdirSync(nodePath.dirname(channel), { recursive: true })
      createStore(channel, [])
      const merged = yield* Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
        Effect.flatMap((a) => a.discover({ agentId: UID })),
        Effect.provide(App.layer({ agentmuxStore: store, agentmuxRoot: home, stateFile: nodePath.join(dir, "other", "state.db") }))
      )
      expect(merged.receipts.channelStores).toHaveLength(1)
      expect(JSON.stringify(kept.sources)).toBe(JSON.stringify(merged.sources))
      expect(JSON.stringify(again.sources)).toBe(JSON.stringify(merged.sources))
    }))

  it.effect("a discovery that changed nothing does not write the saved entries again", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const db = new Database(state)
      db.prepare("UPDATE agentmux_report SET updated_ms = 1").run()
      db.close()
      yield* discover()
      const after = new Database(state, { readonly: true })
      try {
        expect(after.prepare("SELECT updated_ms FROM agentmux_report").get()).toEqual({ updated_ms: 1 })
      } finally {
        after.close()
      }
    }))

  it.effect("a rescan that changed no session answers the saved entries; one that changed one session keeps the others' entries", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      const again = yield* discover()
      expect(again.sources).toStrictEqual(first.sources)
      append()
      appendLine("S-C", "late")
      const r = yield* discover()
      expect(r.sources).toStrictEqual(yield* fresh())
      expect(r.sources[0].sessionId).toBe("S-C") // the touched session moves first (its last activity, then its place)
    }))
})
