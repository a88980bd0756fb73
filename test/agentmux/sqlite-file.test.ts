/**
 * The WAL store reader (src/layers/agentmux/sqlite-file.ts, wal-connection.ts):
 * what it reads is what was committed, as the SQLite file format defines it —
 * the main file overlaid with the `-wal`'s committed frames — checked against
 * the bytes the test wrote, for several page sizes, overflow chains, parts
 * replaced in the WAL, and a transaction not yet committed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { StoreUnavailable } from "../../src/domain/errors.js"
import { columnsOf, openSqliteFile, type SqliteFile, SqliteFileUnsupported } from "../../src/layers/agentmux/sqlite-file.js"
import { walConnection } from "../../src/layers/agentmux/wal-connection.js"
import type { StoreConnection } from "../../src/services/TranscriptStore.js"
import { appendBytes, fingerprint, PART, writeFile } from "./store-helper.js"

const SCHEMA = `
CREATE TABLE db_wave_file (zoneid varchar(36) NOT NULL, name varchar(200) NOT NULL, size bigint NOT NULL,
  createdts bigint NOT NULL, modts bigint NOT NULL, opts json NOT NULL, meta json NOT NULL, PRIMARY KEY (zoneid, name));
CREATE TABLE db_file_data (zoneid varchar(36) NOT NULL, name varchar(200) NOT NULL, partidx int NOT NULL,
  data blob NOT NULL, PRIMARY KEY (zoneid, name, partidx));`

let dir: string
let store: string
const opened: Array<SqliteFile> = []
beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-wal-"))
  store = nodePath.join(dir, "filestore.db")
})
afterEach(() => {
  for (const f of opened.splice(0)) f.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Bytes 0..n-1 of a pattern that differs in every part. */
const bytesOf = (n: number, seed: number) => {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 16)) & 0xff
  return b
}

/** A WAL-mode store written with `pageSize`; the writer is left open, autocheckpoint off. */
const walStore = (pageSize: number) => {
  const db = new Database(store)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma("journal_mode = WAL")
  db.pragma("wal_autocheckpoint = 0")
  db.exec(SCHEMA)
  return db
}

const connect = (): StoreConnection => {
  const f = openSqliteFile(store)
  opened.push(f)
  return walConnection(store, f, (what) => new StoreUnavailable({ message: what }))
}

const readAll = (conn: StoreConnection, zoneId: string, name: string) =>
  Effect.gen(function*() {
    const file = (yield* conn.listFiles(zoneId)).find((f) => f.zoneId === zoneId && f.name === name)!
    return yield* conn.read(file, 0, file.size)
  })

describe("a WAL store read without SQLite", () => {
  for (const pageSize of [512, 4096, 65536]) {
    it.effect(`page size ${pageSize}: the committed bytes of every file, main file and -wal together`, () =>
      Effect.gen(function*() {
        const db = walStore(pageSize)
        try {
          const a = bytesOf(5 * PART + 1234, 1)
          const b = bytesOf(70_000, 2)
          db.transaction(() => {
            writeFile(db, { zoneId: "agent:u:current", name: "output", bytes: a, createdTs: 5 })
            writeFile(db, { zoneId: "agent:v:current", name: "output", bytes: b })
          })()
          db.pragma("wal_checkpoint(TRUNCATE)") // these in the main file…
          const more = bytesOf(2 * PART, 3)
          db.transaction(() => appendBytes(db, "agent:u:current", "output", more))() // …the append in the -wal
          expect(fs.statSync(`${store}-wal`).size).toBeGreaterThan(0)
          const conn = connect()
          expect(conn.mode).toBe("snapshot")
          const files = yield* conn.listFiles("agent:u:")
          expect(files).toEqual([
            { zoneId: "agent:u:current", name: "output", size: a.length + more.length, createdTs: 5, modTs: expect.any(Number), generation: null }
          ])
          const r = yield* readAll(conn, "agent:u:current", "output")
          expect(r.missing).toEqual([])
          expect(r.bytes.equals(Buffer.concat([a, more]))).toBe(true)
          const mid = yield* conn.read(files[0], PART - 10, 3 * PART)
          expect(mid.bytes.equals(Buffer.concat([a, more]).subarray(PART - 10, 4 * PART - 10))).toBe(true)
          expect((yield* readAll(conn, "agent:v:current", "output")).bytes.equals(b)).toBe(true)
        } finally {
          db.close()
        }
      }))
  }

  it.effect("overflow chains out of order (pages reused from the freelist), all in the main file", () =>
    Effect.gen(function*() {
      const db = walStore(1024)
      try {
        const files = [0, 1, 2, 3].map((i) => ({ zoneId: `agent:u${i}:current`, name: "output", bytes: bytesOf(3 * PART + 100 * i, 10 + i) }))
        db.transaction(() => files.forEach((f) => writeFile(db, f)))()
        db.transaction(() => {
          db.prepare("DELETE FROM db_file_data WHERE zoneid IN ('agent:u0:current', 'agent:u2:current') AND partidx != 1").run()
          writeFile(db, { zoneId: "agent:w:current", name: "output", bytes: bytesOf(5 * PART + 7, 20) })
          writeFile(db, files[1])
        })()
        db.pragma("wal_checkpoint(TRUNCATE)")
        expect(fs.statSync(`${store}-wal`).size).toBe(0)
        const conn = connect()
        expect((yield* readAll(conn, "agent:w:current", "output")).bytes.equals(bytesOf(5 * PART + 7, 20))).toBe(true)
        expect((yield* readAll(conn, "agent:u1:current", "output")).bytes.equals(files[1].bytes)).toBe(true)
        expect((yield* readAll(conn, "agent:u3:current", "output")).bytes.equals(files[3].bytes)).toBe(true)
        const u2 = yield* readAll(conn, "agent:u2:current", "output")
        expect(u2.missing).toEqual([{ start: 0, end: PART }, { start: 2 * PART, end: u2.bytes.length }])
        expect(u2.bytes.subarray(PART, 2 * PART).equals(files[2].bytes.subarray(PART, 2 * PART))).toBe(true)
      } finally {
        db.close()
      }
    }))

  it.effect("a transaction not yet committed is not read, even where its pages already spilled into the -wal", () =>
    Effect.gen(function*() {
      const db = walStore(4096)
      try {
        const a = bytesOf(3 * PART, 4)
        db.transaction(() => writeFile(db, { zoneId: "agent:u:current", name: "output", bytes: a }))()
        db.pragma("cache_size = 2") // a small cache: an open transaction's pages go to the -wal before its commit
        db.exec("BEGIN")
        appendBytes(db, "agent:u:current", "output", bytesOf(20 * PART, 5))
        const walNow = fs.statSync(`${store}-wal`).size
        expect(walNow).toBeGreaterThan(20 * PART) // the uncommitted frames are in the file
        const r = yield* readAll(connect(), "agent:u:current", "output")
        expect(r.bytes.equals(a)).toBe(true)
        db.exec("ROLLBACK")
      } finally {
        db.close()
      }
    }))

  it.effect("missing parts, a part shorter than 64 KiB, a part stored as text: missing ranges, as through SQLite", () =>
    Effect.gen(function*() {
      const db = walStore(4096)
      try {
        const a = bytesOf(4 * PART, 6)
        db.transaction(() => {
          writeFile(db, { zoneId: "agent:u:current", name: "output", bytes: a, missingParts: [1] })
          db.prepare("UPDATE db_file_data SET data = substr(data, 1, 100) WHERE partidx = 2").run()
          db.prepare("UPDATE db_file_data SET data = CAST(? AS TEXT) WHERE partidx = 3").run(Buffer.alloc(PART, 0x41))
        })()
        const r = yield* readAll(connect(), "agent:u:current", "output")
        expect(r.missing).toEqual([{ start: PART, end: 2 * PART }, { start: 2 * PART + 100, end: 3 * PART }])
        expect(r.bytes.subarray(0, PART).equals(a.subarray(0, PART))).toBe(true)
        expect(r.bytes.subarray(PART, 2 * PART).every((x) => x === 0)).toBe(true)
        expect(r.bytes.subarray(2 * PART, 2 * PART + 100).equals(a.subarray(2 * PART, 2 * PART + 100))).toBe(true)
        expect(r.bytes.subarray(3 * PART).equals(Buffer.alloc(PART, 0x41))).toBe(true)
      } finally {
        db.close()
      }
    }))

  it.effect("columns found by name: other column orders, a generation column added later", () =>
    Effect.gen(function*() {
      const db = new Database(store)
      try {
        db.pragma("journal_mode = WAL")
        db.exec(`CREATE TABLE db_file_data (data blob, partidx int, zoneid text, name text, PRIMARY KEY (zoneid, name, partidx));
          CREATE TABLE "db_wave_file" ([name] text, "zoneid" text, size int, createdts int, modts int, PRIMARY KEY (zoneid, name));`)
        db.prepare("INSERT INTO db_wave_file VALUES ('output', 'agent:u:current', 3, 1, 2)").run()
        db.exec("ALTER TABLE db_wave_file ADD COLUMN gen integer")
        db.prepare("INSERT INTO db_wave_file VALUES ('output.tsidx', 'agent:u:current', 0, 1, 2, 7)").run()
        db.prepare("INSERT INTO db_file_data VALUES (?, 0, 'agent:u:current', 'output')").run(Buffer.from("abc"))
        const conn = connect()
        expect((yield* conn.listFiles("agent:u:")).map((f) => [f.name, f.size, f.generation])).toEqual([
          ["output", 3, null],
          ["output.tsidx", 0, "7"]
        ])
        expect((yield* readAll(conn, "agent:u:current", "output")).bytes.toString()).toBe("abc")
      } finally {
        db.close()
      }
    }))

  for (
    const [what, dataTable] of [
      ["no key: the table walked", "CREATE TABLE db_file_data (zoneid text, name text, partidx int, data blob)"],
      ["a collation: the table walked", "CREATE TABLE db_file_data (zoneid text COLLATE NOCASE, name text, partidx int, data blob, PRIMARY KEY (zoneid, name, partidx))"],
      ["an index of its own: sought", "CREATE TABLE db_file_data (zoneid text, name text, partidx int, data blob); CREATE INDEX fd ON db_file_data (zoneid, name, partidx)"]
    ] as const
  ) {
    it.effect(`parts found whatever indexes the table (${what}); parts of neighbouring files never mixed in`, () =>
      Effect.gen(function*() {
        const db = new Database(store)
        try {
          db.pragma("page_size = 1024")
          db.pragma("journal_mode = WAL")
          db.exec(`${dataTable}; ${SCHEMA.split(";")[0]};`)
          const files = ["agent:u:current", "agent:u:currentX", "agent:t:current", "agent:u:archive:5"].map((zoneId, i) => ({
            zoneId,
            name: "output",
            bytes: bytesOf(3 * PART + 10 * i, 30 + i)
          }))
          db.transaction(() => [...files].reverse().forEach((f) => writeFile(db, f)))()
          db.transaction(() => writeFile(db, { zoneId: "agent:u:current", name: "output.tsidx", bytes: bytesOf(PART + 1, 40) }))()
          const conn = connect()
          for (const f of files) {
            const r = yield* readAll(conn, f.zoneId, "output")
            expect(r.missing).toEqual([])
            expect(r.bytes.equals(Buffer.from(f.bytes))).toBe(true)
          }
          expect((yield* readAll(conn, "agent:u:current", "output.tsidx")).bytes.equals(bytesOf(PART + 1, 40))).toBe(true)
        } finally {
          db.close()
        }
      }))
  }

  it.effect("a deep index: zone ids of every kind of character (BINARY order), each file's parts and no other's", () =>
    Effect.gen(function*() {
      const db = walStore(512)
      try {
        const zones = Array.from({ length: 240 }, (_, i) =>
          `agent:${["a", "é", "日", "\u{1F600}", "\uE000", "\uFFFD", "Z", "-"][i % 8]}${i}:current`)
        db.transaction(() => zones.forEach((zoneId, i) => writeFile(db, { zoneId, name: "output", bytes: bytesOf(PART + 3 * i, i) })))()
        const conn = connect()
        for (const i of [0, 1, 3, 4, 5, 100, 117, 239]) {
          const r = yield* readAll(conn, zones[i], "output")
          expect(r.missing).toEqual([])
          expect(r.bytes.equals(bytesOf(PART + 3 * i, i))).toBe(true)
        }
      } finally {
        db.close()
      }
    }))

  it.effect("a checkpoint after the open: the read fails STORE_UNAVAILABLE with details.retry; the files stay untouched", () =>
    Effect.gen(function*() {
      const db = walStore(4096)
      try {
        db.transaction(() => writeFile(db, { zoneId: "agent:u:current", name: "output", bytes: bytesOf(PART, 7) }))()
        const before = fingerprint(dir)
        const conn = connect()
        const files = yield* conn.listFiles("agent:u:")
        expect(fingerprint(dir)).toEqual(before)
        db.pragma("wal_checkpoint(TRUNCATE)")
        const e = yield* Effect.flip(conn.read(files[0], 0, 10))
        expect(e).toBeInstanceOf(StoreUnavailable)
        expect(e.details).toEqual({ retry: true })
      } finally {
        db.close()
      }
    }))

  it("tables it does not decode are refused at open (the store is then read another way)", () => {
    expect(() => columnsOf("CREATE TABLE t (a text PRIMARY KEY, b) WITHOUT ROWID")).toThrow(SqliteFileUnsupported)
    expect(() => columnsOf("CREATE TABLE t (id INTEGER PRIMARY KEY, b)")).toThrow(SqliteFileUnsupported)
    expect(columnsOf("CREATE TABLE t (\"a,b\" text DEFAULT ('x,y'), b int CHECK (b > 0), CONSTRAINT pk PRIMARY KEY (b))"))
      .toEqual(["a,b", "b"])
  })
})
