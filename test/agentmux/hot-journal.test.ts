/**
 * tester24b F1: an AgentMux store in rollback-journal mode left with a hot
 * journal (a writer killed mid-transaction) is read at its last committed
 * state, from a private copy rolled back there; the store and its journal are
 * never written.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { tempDir } from "../support/paths.js"
import { layout, init, storeFiles, UID } from "./fixture.js"
import { agentmuxAdapter, createStore, fingerprint } from "./store-helper.js"

/** Bytes, modification time (ns) and inode of every entry of `dir`. */
const snapshotOf = (dir: string) => {
  const hashes = fingerprint(dir)
  return Object.fromEntries(Object.entries(hashes).map(([name, hash]) => {
    const st = fs.lstatSync(nodePath.join(dir, name), { bigint: true })
    return [name, { hash, mtimeNs: st.mtimeNs, ino: st.ino, size: st.size }]
  }))
}

/** SQLite's rollback-journal header magic: a journal that begins with it is hot. */
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])

/**
 * Leave `store` with a hot journal: a child process begins a transaction in
 * `journal_mode=DELETE` with a one-page cache (so its changes spill into the
 * main file, their originals into the journal), zeroes every part and adds a
 * session, and is SIGKILLed before it commits.
 */
const killWriterMidTransaction = (store: string) => {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3")
  const script = `
    const Database = require(${JSON.stringify(driver)})
    const db = new Database(${JSON.stringify(store)})
    db.pragma("journal_mode = DELETE")
    db.pragma("cache_size = 1")
    db.exec("BEGIN")
    db.exec("UPDATE db_file_data SET data = zeroblob(length(data))")
    db.prepare("INSERT INTO db_wave_file VALUES (?, 'output', ?, 0, 0, '{}', '{}')").run("agent:${UID}:archive:1699990000001", ${
    JSON.stringify(layout([init("S-UNCOMMITTED", "/x")]).bytes.length)
  })
    db.prepare("INSERT INTO db_file_data VALUES (?, 'output', 0, ?)").run("agent:${UID}:archive:1699990000001", Buffer.from(${
    JSON.stringify(layout([init("S-UNCOMMITTED", "/x")]).bytes.toString("utf8"))
  }))
    process.kill(process.pid, "SIGKILL")
  `
  const r = spawnSync(process.execPath, ["-e", script], { stdio: "pipe" })
  expect(r.signal).toBe("SIGKILL")
}

describe("an AgentMux rollback-journal store with a hot journal (tester24b F1)", () => {
  it.effect("its committed sessions are read from a private copy; store and journal unchanged", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = nodePath.join(dir, "filestore.db")
      createStore(store, storeFiles())
      const committed = fs.readFileSync(store)
      killWriterMidTransaction(store)
      // A real hot journal: present, with a valid header, and uncommitted pages in the main file.
      const journal = `${store}-journal`
      expect(fs.existsSync(journal)).toBe(true)
      expect(fs.readFileSync(journal).subarray(0, 8).equals(JOURNAL_MAGIC)).toBe(true)
      expect(fs.readFileSync(store).equals(committed)).toBe(false)
      const before = snapshotOf(dir)

      const state = nodePath.join(tempDir(), "state.db")
      const r = yield* agentmuxAdapter({ store, state }, (a) => a.discover({ agentId: UID }))
      // The committed sessions of the agent (store.test.ts: S-B, S-C, S-A), not the uncommitted one.
      expect(r.sources.map((s) => s.sessionId).sort()).toEqual(["S-A", "S-B", "S-C"])
      expect(r.diagnostics.filter((d) => d.code === "STORE_UNAVAILABLE")).toEqual([])
      expect(r.receipts.storeMode).toBe("snapshot")

      // Nothing written: the store and its journal keep their bytes, mtimes and inodes; nothing new beside them.
      expect(snapshotOf(dir)).toEqual(before)
      expect(Object.keys(before).sort()).toEqual(["filestore.db", "filestore.db-journal"])
    }))
})
