import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { IngestError } from "../../src/domain/errors.js"
import type { DiscoveryReport, SessionEvent } from "../../src/domain/model.js"
import { cacheDirOf, isInside } from "../../src/layers/agentmux/store-cache.js"
import * as App from "../../src/layers/app.js"
import { type SessionSourceAdapter, SessionSources } from "../../src/services/SessionSource.js"
import {
  A0,
  ARCHIVE,
  archiveLines,
  assistant,
  bigText,
  CURRENT,
  currentLines,
  echo,
  init,
  layout,
  storeFiles,
  T0,
  UID
} from "./fixture.js"
import { appendBytes, createStore, fingerprint, tsidxRecord, withStore, writeFile } from "./store-helper.js"

const iso = (ms: number) => new Date(ms).toISOString()
/** A turn of the event loop: what a read leaves to remove after its answer is removed by then. */
const nextTurn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

let storeDir: string
let stateDir: string
let store: string
let state: string
let guard: Record<string, string> | null

beforeEach(() => {
  storeDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-store-"))
  stateDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-state-"))
  store = nodePath.join(storeDir, "filestore.db")
  state = nodePath.join(stateDir, "state.db")
  guard = null
})
afterEach(() => {
  // The store's files are byte-identical after every read, with no new files beside them.
  if (guard !== null) expect(fingerprint(storeDir)).toEqual(guard)
  fs.rmSync(storeDir, { recursive: true, force: true })
  fs.rmSync(stateDir, { recursive: true, force: true })
})

/** Run `f` on the agentmux adapter over the store, proving the store folder unchanged by it. */
const withAdapter = <A>(f: (a: SessionSourceAdapter) => Effect.Effect<A, IngestError>, storePath = store) =>
  Effect.gen(function*() {
    const before = fingerprint(storeDir)
    const a = yield* Effect.flip(
      Effect.flip(
        Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
          Effect.flatMap(f),
          Effect.provide(App.layer({ agentmuxStore: storePath, stateFile: state }))
        )
      )
    )
    expect(fingerprint(storeDir)).toEqual(before)
    guard = before
    return a
  })

const discover = (agentId = UID) => withAdapter((a) => a.discover({ agentId }))
const locator = (sessionId: string) => ({ locatorClass: "agentmux-agent-record" as const, path: "", agentId: UID, sessionId })
const transcript = (sid: string) => withAdapter((a) => a.transcript(locator(sid)))
const events = (sid: string, cursor?: string) =>
  withAdapter((a) => Effect.map(Stream.runCollect(a.stream(locator(sid), { cursor })), Chunk.toReadonlyArray))

const sessionsOf = (r: DiscoveryReport) => r.sources.map((s) => s.summary)
const receipt = (r: DiscoveryReport, zone: string) =>
  (r.receipts.zones as ReadonlyArray<{ zone: string; readFrom: number; readTo: number; bytesRead: number; reset: string | null }>)
    .find((z) => z.zone === zone)!

const C = currentLines.lines
const L = archiveLines.lines
/** Session S-B's two runs, S-C's run and S-A's run, from the seed's rules over the fixture. */
const expected = {
  "S-B": {
    sessionId: "S-B",
    cwd: "/home/dev/beta",
    firstReceivedAt: iso(T0),
    lastReceivedAt: iso(T0 + 10_000),
    lineCount: 8,
    runs: [
      // C0 (echo) … C6; C3 (a provider line without session_id) and C4 (unreadable) wait for C5
      { zone: CURRENT, start: 0, end: C[6].end, lines: 7, firstReceivedAt: iso(T0), lastReceivedAt: iso(T0 + 5000) },
      { zone: CURRENT, start: C[10].start, end: C[10].end, lines: 1, firstReceivedAt: iso(T0 + 10_000), lastReceivedAt: iso(T0 + 10_000) }
    ]
  },
  "S-C": {
    sessionId: "S-C",
    cwd: "/home/dev/gamma",
    firstReceivedAt: iso(T0 + 7000),
    // its last byte lies past the record at C9+3
    lastReceivedAt: iso(T0 + 9000),
    lineCount: 3,
    runs: [{ zone: CURRENT, start: C[7].start, end: C[9].end, lines: 3, firstReceivedAt: iso(T0 + 7000), lastReceivedAt: iso(T0 + 9000) }]
  },
  "S-A": {
    sessionId: "S-A",
    cwd: "/home/dev/alpha",
    firstReceivedAt: iso(A0),
    lastReceivedAt: iso(A0 + 8000),
    lineCount: 9,
    // the trailing outcome line of the archive joins the last run
    runs: [{ zone: ARCHIVE, start: 0, end: L[8].end, lines: 9, firstReceivedAt: iso(A0), lastReceivedAt: iso(A0 + 8000) }]
  }
}

describe("discover agentmux", () => {
  it.effect("lists exactly the sessions the record holds, latest activity first, with runs, cwd and receive times", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const r = yield* discover()
      expect(r.status).toBe("checked")
      expect(sessionsOf(r)).toEqual([expected["S-B"], expected["S-C"], expected["S-A"]])
      expect(r.sources.map((s) => s.locator)).toEqual(
        ["S-B", "S-C", "S-A"].map((sid) => ({ locatorClass: "agentmux-agent-record", path: fs.realpathSync(store), agentId: UID, sessionId: sid }))
      )
      // No session guessed from the escaped key inside a delta's payload.
      expect(r.sources.some((s) => s.sessionId === "FAKE")).toBe(false)
      const codes = r.diagnostics.map((d) => d.code)
      expect(codes).toContain("UNREADABLE_LINES")
      expect(r.diagnostics.find((d) => d.code === "UNREADABLE_LINES")!.details).toEqual({ zone: CURRENT, lines: 1 })
      // The half-written line waits; the echoed line before it waits for an owner.
      expect(r.diagnostics.find((d) => d.code === "PARTIAL_LINE")!.details).toEqual({ zone: CURRENT, offset: C[11].end })
      expect(r.diagnostics.find((d) => d.code === "UNOWNED_LINES")!.details).toEqual({ zone: CURRENT, lines: 1, offset: C[11].start })
      expect(receipt(r, CURRENT).readTo).toBe(C[11].end)
      expect(r.receipts.storeMode).toBe("direct")
    }))

  it.effect("only the agent's own zones: other ids, templates' shared zones and odd suffixes are never read", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const r = yield* discover()
      expect(r.sources.map((s) => s.sessionId).filter((s) => s!.startsWith("S-X"))).toEqual([])
      expect(r.receipts.ignoredZones).toEqual([`agent:${UID}:archive:latest`, `agent:${UID}:current:old`])
      expect((r.receipts.zones as ReadonlyArray<{ zone: string }>).map((z) => z.zone)).toEqual([ARCHIVE, CURRENT])
      const other = yield* discover("u2")
      expect(other.sources.map((s) => s.sessionId)).toEqual(["S-X1"])
      const bad = yield* Effect.flip(discover("u1:current"))
      expect(bad.code).toBe("INVALID_ARGUMENT")
    }))

  it.effect("a half-written line waits for the next scan, then is read once complete", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const first = yield* discover()
      const size = receipt(first, CURRENT).readTo
      const rest = `,"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}]},"session_id":"S-B"}\n`
      withStore(store, (db) => {
        appendBytes(db, CURRENT, "output", Buffer.from(rest))
        appendBytes(db, CURRENT, "output.tsidx", Buffer.from(`\n${tsidxRecord(C[11].end, T0 + 20_000, "")}`))
      })
      const second = yield* discover()
      const rc = receipt(second, CURRENT)
      expect([rc.readFrom, rc.reset]).toEqual([size, null])
      expect(rc.readTo).toBe(C[11].end + Buffer.byteLength(`{"type":"assistant","message":{"id":"mb9"` + rest))
      // The waiting echo (C11) and the completed line join S-B's second run.
      expect(sessionsOf(second)[0]).toMatchObject({
        sessionId: "S-B",
        lineCount: 10,
        lastReceivedAt: iso(T0 + 20_000),
        runs: [expected["S-B"].runs[0], { start: C[10].start, end: rc.readTo, lines: 3, lastReceivedAt: iso(T0 + 20_000) }]
      })
      expect(second.diagnostics.map((d) => d.code)).not.toContain("PARTIAL_LINE")
      // The archive was not read again.
      expect(receipt(second, ARCHIVE).bytesRead).toBe(0)
    }))

  it.effect("an archived conversation stays while the new one is read afresh", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      // "New conversation": current moves to an archive zone; a new, smaller current starts.
      const ARCHIVE2 = `agent:${UID}:archive:1700000100000`
      const fresh = layout([echo("new task"), init("S-D", "/home/dev/delta"), assistant("S-D", "md1", [{ type: "text", text: "Delta." }])])
      withStore(store, (db) => {
        db.prepare("UPDATE db_wave_file SET zoneid = ? WHERE zoneid = ?").run(ARCHIVE2, CURRENT)
        db.prepare("UPDATE db_file_data SET zoneid = ? WHERE zoneid = ?").run(ARCHIVE2, CURRENT)
        writeFile(db, { zoneId: CURRENT, name: "output", bytes: fresh.bytes, createdTs: 1_700_000_100_000 })
        writeFile(db, { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, T0 + 100_000)) })
      })
      const r = yield* discover()
      expect(r.sources.map((s) => s.sessionId)).toEqual(["S-D", "S-B", "S-C", "S-A"])
      expect(sessionsOf(r)[0]).toEqual({
        sessionId: "S-D",
        cwd: "/home/dev/delta",
        firstReceivedAt: iso(T0 + 100_000),
        lastReceivedAt: iso(T0 + 100_000),
        lineCount: 3,
        runs: [{ zone: CURRENT, start: 0, end: fresh.lines[2].end, lines: 3, firstReceivedAt: iso(T0 + 100_000), lastReceivedAt: iso(T0 + 100_000) }]
      })
      expect(receipt(r, CURRENT)).toMatchObject({ readFrom: 0, reset: "shrunk" })
      expect(receipt(r, ARCHIVE2)).toMatchObject({ readFrom: 0, reset: null })
      // In the archive the trailing unowned echo (C11) joins S-B's last run; the half line never completes.
      expect(sessionsOf(r)[1]).toEqual({
        ...expected["S-B"],
        lineCount: 9,
        runs: [
          { ...expected["S-B"].runs[0], zone: ARCHIVE2 },
          { ...expected["S-B"].runs[1], zone: ARCHIVE2, end: C[11].end, lines: 2 }
        ]
      })
      expect(sessionsOf(r)[3]).toEqual(expected["S-A"])
    }))

  it.effect("a zone cleared and regrown past the old offset is read again (creation time, else its first bytes)", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      yield* discover()
      const regrown = layout([
        init("S-E", "/home/dev/eps"),
        assistant("S-E", "me1", [{ type: "text", text: "e".repeat(C[11].end + 100) }])
      ])
      withStore(store, (db) => writeFile(db, { zoneId: CURRENT, name: "output", bytes: regrown.bytes, createdTs: 1_700_000_200_000 }))
      const r1 = yield* discover()
      expect(receipt(r1, CURRENT)).toMatchObject({ readFrom: 0, reset: "recreated" })
      expect(r1.sources.map((s) => s.sessionId)).toEqual(["S-E", "S-A"])
      // Same creation time, different first bytes.
      const again = layout([init("S-F", "/home/dev/phi"), assistant("S-F", "mf1", [{ type: "text", text: "f".repeat(regrown.bytes.length + 10) }])])
      withStore(store, (db) => writeFile(db, { zoneId: CURRENT, name: "output", bytes: again.bytes, createdTs: 1_700_000_200_000 }))
      const r2 = yield* discover()
      expect(receipt(r2, CURRENT)).toMatchObject({ readFrom: 0, reset: "rewritten" })
      expect(r2.sources.map((s) => s.sessionId)).toEqual(["S-F", "S-A"])
    }))

  it.effect("a missing part is a diagnostic, and the lines on it are not read", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 150 }, (_, i) =>
        assistant("S-M", `m${String(i).padStart(3, "0")}`, [{ type: "text", text: "m".repeat(900) }]))
      const z = layout([init("S-M", "/m"), ...lines])
      createStore(store, [{ zoneId: CURRENT, name: "output", bytes: z.bytes, missingParts: [1] }])
      const r = yield* discover()
      const d = r.diagnostics.find((x) => x.code === "MISSING_PART")!
      expect(d.details).toEqual({ zone: CURRENT, lines: 1, ranges: [{ start: 65_536, end: 131_072 }] })
      expect(r.coverage).toBe("partial")
      const t = yield* transcript("S-M")
      const texts = t.turns.flatMap((turn) => turn.blocks).length
      const survivors = z.lines.slice(1).filter((l) => l.end <= 65_536 || l.start >= 131_072).length
      expect(texts).toBe(survivors)
      expect(t.parseWarnings).toEqual([{ kind: "missing-part", count: 1, firstLine: z.lines.findIndex((l) => l.end > 65_536) + 1 }])
    }))
})

describe("no store, not a store", () => {
  it.effect("no store reads nothing: an empty answer with a diagnostic, and no file created", () =>
    Effect.gen(function*() {
      const report = yield* withAdapter((a) => a.discover({ agentId: UID }), nodePath.join(storeDir, "none", "filestore.db"))
      expect(report).toMatchObject({ status: "unavailable", sourceCount: 0, sources: [], reasonCode: "STORE_ABSENT" })
      expect(report.diagnostics.map((d) => d.code)).toEqual(["STORE_ABSENT"])
      expect(fs.readdirSync(storeDir)).toEqual([])
      const e = yield* Effect.flip(withAdapter((a) => a.transcript(locator("S-A")), nodePath.join(storeDir, "none.db")))
      expect(e.code).toBe("SOURCE_NOT_FOUND")
    }))

  it.effect("a file that is not a SQLite database, or not AgentMux's, is STORE_UNAVAILABLE; a symlink is refused", () =>
    Effect.gen(function*() {
      fs.writeFileSync(store, "{\"not\":\"a database\"}\n")
      expect((yield* Effect.flip(discover())).code).toBe("STORE_UNAVAILABLE")
      fs.writeFileSync(store, "")
      expect((yield* Effect.flip(discover())).code).toBe("STORE_UNAVAILABLE")
      fs.rmSync(store)
      const db = new Database(store)
      db.exec("CREATE TABLE other (x)")
      db.close()
      expect((yield* Effect.flip(discover())).code).toBe("STORE_UNAVAILABLE")
      const link = nodePath.join(storeDir, "link.db")
      fs.symlinkSync(store, link)
      expect((yield* Effect.flip(withAdapter((a) => a.discover({ agentId: UID }), link))).code).toBe("SOURCE_SYMLINK")
    }))
})

describe("WAL stores", () => {
  it.effect("a WAL store with no writer: read without creating -wal or -shm beside it", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles(), { wal: true })
      expect(fs.readdirSync(storeDir)).toEqual(["filestore.db"])
      expect(fs.readFileSync(store)[18]).toBe(2) // the header says WAL
      const r = yield* discover()
      expect(r.receipts.storeMode).toBe("snapshot")
      expect(sessionsOf(r)).toEqual([expected["S-B"], expected["S-C"], expected["S-A"]])
      expect(fs.readdirSync(storeDir)).toEqual(["filestore.db"])
    }))

  it.effect("a WAL store whose db_file_data is WITHOUT ROWID: read through SQLite like any other", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const db = new Database(store)
      db.exec(`CREATE TABLE x (zoneid text, name text, partidx int, data blob, PRIMARY KEY (zoneid, name, partidx)) WITHOUT ROWID;
        INSERT INTO x SELECT * FROM db_file_data; DROP TABLE db_file_data; ALTER TABLE x RENAME TO db_file_data;`)
      db.pragma("journal_mode = WAL")
      db.close()
      expect(fs.readdirSync(storeDir)).toEqual(["filestore.db"])
      const r = yield* discover()
      expect(r.receipts.storeMode).toBe("snapshot")
      expect(sessionsOf(r)).toEqual([expected["S-B"], expected["S-C"], expected["S-A"]])
      expect(fs.readdirSync(storeDir)).toEqual(["filestore.db"])
    }))

  it.effect("a WAL store another process is appending to: committed appends are read, nothing beside it changes", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles(), { wal: true })
      const writer = new Database(store)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        const more = `${assistant("S-B", "mb7", [{ type: "text", text: "appended" }])}\n`
        writer.transaction(() => {
          appendBytes(writer, CURRENT, "output", Buffer.from(`,"x":1}\n${more}`))
        })()
        expect(fs.readdirSync(storeDir).sort()).toEqual(["filestore.db", "filestore.db-shm", "filestore.db-wal"])
        const r = yield* discover()
        // The half line is completed by ',"x":1}' (a line without session_id), then S-B's line: both join S-B.
        expect(sessionsOf(r)[0]).toMatchObject({ sessionId: "S-B", lineCount: 11 })
        const t = yield* transcript("S-B")
        expect(t.turns[t.turns.length - 1].blocks).toEqual([{ type: "text", text: "appended" }])
      } finally {
        writer.close() // the writer's own close checkpoints; every read above was checked by withAdapter
        guard = null
      }
    }))
})

describe("the cached copy of a WAL store's main file", () => {
  const cacheRoot = () => nodePath.join(stateDir, "agentmux-cache")
  /** The entries of the store's cache folder (one folder per store under the cache root). */
  const cacheEntries = () => {
    const subs = fs.readdirSync(cacheRoot())
    expect(subs).toHaveLength(1)
    return fs.readdirSync(nodePath.join(cacheRoot(), subs[0])).sort()
  }
  const mainOf = () => {
    const mains = cacheEntries().filter((n) => n.startsWith("main-"))
    expect(mains).toHaveLength(1)
    const subs = fs.readdirSync(cacheRoot())
    return { name: mains[0], ino: fs.statSync(nodePath.join(cacheRoot(), subs[0], mains[0])).ino }
  }
  /** Append one S-B line of `text` (after completing the fixture's half line when `first`). */
  const appendLine = (writer: Database.Database, id: string, text: string, first: boolean) =>
    writer.transaction(() => {
      const more = `${assistant("S-B", id, [{ type: "text", text }])}\n`
      appendBytes(writer, CURRENT, "output", Buffer.from(first ? `,"x":1}\n${more}` : more))
    })()
  const lastText = (t: { turns: ReadonlyArray<{ blocks: ReadonlyArray<unknown> }> }) => t.turns[t.turns.length - 1].blocks

  it.effect("a rescan after an append reuses the cached main file, copies only the -wal, and sees the new parts", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles(), { wal: true })
      const writer = new Database(store)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        const first = yield* discover()
        expect(sessionsOf(first)[0]).toMatchObject({ sessionId: "S-B", lineCount: 8 })
        const main = mainOf()
        yield* nextTurn
        expect(cacheEntries()).toEqual([main.name]) // the read's folder is gone (removed on the next turn)
        const big = "appended ".repeat(16_000) // over two 64 KiB parts
        appendLine(writer, "mb7", big, true)
        const r = yield* discover()
        expect(sessionsOf(r)[0]).toMatchObject({ sessionId: "S-B", lineCount: 11 })
        expect(receipt(r, CURRENT).readFrom).toBe(receipt(first, CURRENT).readTo)
        expect(lastText(yield* transcript("S-B"))).toEqual([{ type: "text", text: big }])
        expect(mainOf()).toEqual(main) // not copied again
        yield* nextTurn
        expect(cacheEntries()).toEqual([main.name])
      } finally {
        writer.close()
        guard = null
      }
    }))

  it.effect("a checkpoint of the store changes its main file: the next read copies it again and reads it right", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles(), { wal: true })
      const writer = new Database(store)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        appendLine(writer, "mb7", "one", true)
        const r1 = yield* discover()
        expect(sessionsOf(r1)[0]).toMatchObject({ sessionId: "S-B", lineCount: 11 })
        const main = mainOf()
        writer.pragma("wal_checkpoint(TRUNCATE)")
        appendLine(writer, "mb8", "two", false)
        const r2 = yield* discover()
        expect(sessionsOf(r2)[0]).toMatchObject({ sessionId: "S-B", lineCount: 12 })
        // mb7 and mb8 follow each other: one turn, "one" then "two"
        expect(lastText(yield* transcript("S-B"))).toEqual([{ type: "text", text: "one" }, { type: "text", text: "two" }])
        expect(mainOf().name).not.toBe(main.name) // the old copy replaced, not kept beside it
        // A fresh scan (new state) of the same store through the same cache agrees.
        fs.rmSync(state)
        expect(sessionsOf(yield* discover())).toEqual(sessionsOf(r2))
      } finally {
        writer.close()
        guard = null
      }
    }))

  it.effect("the cache lies beside the state, never in the store's folder; without a usable cache each read copies the store whole", () =>
    Effect.gen(function*() {
      const real = fs.realpathSync(store.replace(/filestore\.db$/, ""))
      const realStore = nodePath.join(real, "filestore.db")
      expect(yield* Effect.promise(() => cacheDirOf(nodePath.join(storeDir, "cache"), realStore))).toBeNull()
      expect(yield* Effect.promise(() => cacheDirOf(storeDir, realStore))).toBeNull()
      const dir = yield* Effect.promise(() => cacheDirOf(cacheRoot(), realStore))
      expect(isInside(dir!, fs.realpathSync(stateDir))).toBe(true)
      expect(isInside(dir!, real)).toBe(false)

      createStore(store, storeFiles(), { wal: true })
      const r = yield* discover()
      expect(sessionsOf(r)).toEqual([expected["S-B"], expected["S-C"], expected["S-A"]])
      expect(fs.readdirSync(cacheRoot())).toEqual([nodePath.basename(dir!)])
      // A read folder left by a process that died is swept by the next read.
      const stale = nodePath.join(dir!, "read-2147483646-x")
      fs.mkdirSync(stale)
      yield* discover()
      expect(fs.existsSync(stale)).toBe(false)
      // The cache root unusable (a file in its place): every read copies the store whole, still right.
      fs.rmSync(cacheRoot(), { recursive: true })
      fs.writeFileSync(cacheRoot(), "")
      fs.rmSync(state)
      const again = yield* discover()
      expect(again.receipts.storeMode).toBe("snapshot")
      expect(sessionsOf(again)).toEqual(sessionsOf(r))
    }))

  it.effect("two reads at once share the cache", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles(), { wal: true })
      const [a, b] = yield* Effect.all([transcript("S-B"), transcript("S-A")], { concurrency: 2 })
      expect(a.sessionId).toBe("S-B")
      expect(b.sessionId).toBe("S-A")
      yield* nextTurn
      expect(cacheEntries().filter((n) => !n.startsWith("main-"))).toEqual([])
    }))
})

describe("transcript and stream agentmux", () => {
  it.effect("Claude stream-json as turns: text, thinking, tool_use paired with its result, dated by receive time", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const b = yield* transcript("S-B")
      expect(b).toEqual({
        sessionId: "S-B",
        // its first prompt's (tester31a F4: docs/providers.md, "AgentMux session titles")
        title: "hi again",
        model: "claude-sonnet-4-5",
        startedAt: iso(T0),
        endedAt: iso(T0 + 10_000),
        turns: [
          { role: "user", timestamp: iso(T0), blocks: [{ type: "text", text: "hi again" }] },
          {
            role: "assistant",
            // C2 starts before the record at C2+100: the record at C1 dates it
            timestamp: iso(T0 + 1000),
            blocks: [
              { type: "thinking", text: "Say hello." },
              { type: "text", text: bigText }, // "日" across the part boundary, intact
              { type: "tool_use", id: "toolu_b1", name: "Read", input: { file_path: "/etc/hosts" }, result: "denied", isError: true }
            ]
          }
        ],
        compactions: [],
        // C4 is S-B's fifth line
        parseWarnings: [{ kind: "unreadable-line", count: 1, firstLine: 5 }],
        diagnostics: []
      })
      const a = yield* transcript("S-A")
      expect(a.turns).toEqual([
        { role: "user", timestamp: iso(A0), blocks: [{ type: "text", text: "list the files" }] },
        {
          role: "assistant",
          timestamp: iso(A0 + 3000),
          blocks: [
            { type: "text", text: "I'll run ls." },
            { type: "tool_use", id: "toolu_a1", name: "Bash", input: { command: "ls" }, result: "a.txt\nb.txt" },
            { type: "text", text: "Two files." }
          ]
        }
      ])
      expect(a.parseWarnings).toEqual([])
      expect((yield* Effect.flip(transcript("S-NOPE"))).code).toBe("SOURCE_NOT_FOUND")
    }))

  it.effect("SessionEvents with a resumable cursor", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const all: ReadonlyArray<SessionEvent> = yield* events("S-A")
      expect(all.map((e) => [e.kind, e.role, e.toolName, e.toolCallId, e.occurredAt, e.rawReference.offset])).toEqual([
        ["message", "user", null, null, iso(A0), L[0].start],
        ["message", "assistant", null, null, iso(A0 + 3000), L[3].start],
        ["tool-call", "assistant", "Bash", "toolu_a1", iso(A0 + 3000), L[4].start],
        ["tool-result", "user", "Bash", "toolu_a1", iso(A0 + 3000), L[5].start],
        ["message", "assistant", null, null, iso(A0 + 3000), L[6].start],
        // The run's result line (contract 1.2.0): an event of kind result.
        ["result", "system", null, null, iso(A0 + 3000), L[7].start]
      ])
      expect(all.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5])
      expect(all.every((e) => e.provider === "agentmux" && e.sessionId === "S-A")).toBe(true)
      const rest = yield* events("S-A", all[1].cursor)
      expect(rest.map((e) => e.eventId)).toEqual(all.slice(2).map((e) => e.eventId))
      expect((yield* Effect.flip(events("S-A", "c1.bogus"))).code).toBe("INVALID_CURSOR")
      expect((yield* Effect.flip(events("S-B", all[1].cursor))).code).toBe("INVALID_CURSOR")
    }))

  it.effect("inspect: a session still in the current zone is provisional, an archived one complete", () =>
    Effect.gen(function*() {
      createStore(store, storeFiles())
      const b = yield* withAdapter((a) => a.inspect(locator("S-B")))
      expect([b.status, b.eventCount, b.firstEventAt, b.lastEventAt]).toEqual(["provisional", 6, iso(T0), iso(T0 + 10_000)]) // C0 message, C2 thinking + text, C5 tool-call, C6 tool-result, C10 result
      expect(b.sessions).toEqual([expected["S-B"]])
      const a = yield* withAdapter((ad) => ad.inspect(locator("S-A")))
      expect([a.status, a.eventCount]).toEqual(["complete", 6])
    }))
})
