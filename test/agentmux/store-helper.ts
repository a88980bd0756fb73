/**
 * Test helper: AgentMux transcript stores built with the real schema
 * (`db_wave_file`, `db_file_data`) and 65,536-byte parts (DESIGN.md, AgentMux
 * store facts), written with better-sqlite3 directly; plus a byte-level
 * fingerprint of a folder to prove reads leave the store untouched.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import Database from "better-sqlite3"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Diagnostic, Locator } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { type SessionSourceAdapter, SessionSources } from "../../src/services/SessionSource.js"

export const PART = 65_536

const SCHEMA = `
CREATE TABLE db_wave_file (
  zoneid varchar(36) NOT NULL,
  name varchar(200) NOT NULL,
  size bigint NOT NULL,
  createdts bigint NOT NULL,
  modts bigint NOT NULL,
  opts json NOT NULL,
  meta json NOT NULL,
  PRIMARY KEY (zoneid, name)
);
CREATE TABLE db_file_data (
  zoneid varchar(36) NOT NULL,
  name varchar(200) NOT NULL,
  partidx int NOT NULL,
  data blob NOT NULL,
  PRIMARY KEY (zoneid, name, partidx)
);`

export interface StoreFileSpec {
  readonly zoneId: string
  readonly name: string
  readonly bytes: Uint8Array
  readonly createdTs?: number
  /** Parts to leave out (a damaged store). */
  readonly missingParts?: ReadonlyArray<number>
}

/** Create a store at `path` holding `files`; `wal`: leave it in WAL mode (checkpointed, no -wal/-shm). */
export const createStore = (path: string, files: ReadonlyArray<StoreFileSpec>, opts: { wal?: boolean } = {}) => {
  const db = new Database(path)
  db.pragma(opts.wal === true ? "journal_mode = WAL" : "journal_mode = DELETE")
  db.exec(SCHEMA)
  for (const f of files) writeFile(db, f)
  db.close()
}

/** Write (replace) one file into an open store, cut into 64 KiB parts. */
export const writeFile = (db: Database.Database, f: StoreFileSpec) => {
  const bytes = Buffer.from(f.bytes)
  db.prepare("DELETE FROM db_wave_file WHERE zoneid = ? AND name = ?").run(f.zoneId, f.name)
  db.prepare("DELETE FROM db_file_data WHERE zoneid = ? AND name = ?").run(f.zoneId, f.name)
  const ts = f.createdTs ?? 1_700_000_000_000
  db.prepare("INSERT INTO db_wave_file VALUES (?, ?, ?, ?, ?, '{}', '{}')").run(f.zoneId, f.name, bytes.length, ts, ts)
  const ins = db.prepare("INSERT INTO db_file_data VALUES (?, ?, ?, ?)")
  for (let idx = 0; idx * PART < bytes.length; idx++) {
    if ((f.missingParts ?? []).includes(idx)) continue
    ins.run(f.zoneId, f.name, idx, bytes.subarray(idx * PART, (idx + 1) * PART))
  }
}

/** Append bytes to a file of an open store, as AgentMux does: fill the last part, then new parts. */
export const appendBytes = (db: Database.Database, zoneId: string, name: string, more: Uint8Array) => {
  const row = db.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = ?").get(zoneId, name) as
    | { size: number }
    | undefined
  if (row === undefined) {
    writeFile(db, { zoneId, name, bytes: more })
    return
  }
  let size = row.size
  let rest = Buffer.from(more)
  const get = db.prepare("SELECT data FROM db_file_data WHERE zoneid = ? AND name = ? AND partidx = ?")
  const put = db.prepare("INSERT OR REPLACE INTO db_file_data VALUES (?, ?, ?, ?)")
  while (rest.length > 0) {
    const idx = Math.floor(size / PART)
    const within = size % PART
    const old = (get.get(zoneId, name, idx) as { data: Buffer } | undefined)?.data ?? Buffer.alloc(0)
    const take = Math.min(PART - within, rest.length)
    put.run(zoneId, name, idx, Buffer.concat([old.subarray(0, within), rest.subarray(0, take)]))
    rest = rest.subarray(take)
    size += take
  }
  db.prepare("UPDATE db_wave_file SET size = ?, modts = ? WHERE zoneid = ? AND name = ?").run(size, Date.now(), zoneId, name)
}

/** Open a store for writing (tests that append, archive or clear). */
export const withStore = <A>(path: string, f: (db: Database.Database) => A): A => {
  const db = new Database(path)
  try {
    return db.transaction(() => f(db))()
  } finally {
    db.close()
  }
}

/** sha256 of every entry of a folder, by name: a fingerprint to compare before/after a read. */
export const fingerprint = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of fs.readdirSync(dir).sort()) {
    const p = nodePath.join(dir, name)
    const st = fs.lstatSync(p)
    out[name] = st.isFile() ? createHash("sha256").update(fs.readFileSync(p)).digest("hex") : `<${st.mode}>`
  }
  return out
}

/** A tsidx record line. */
export const tsidxRecord = (off: number, ms: number, eol: "\n" | "\r\n" | "" = "\n") =>
  `{"off":${off},"ms":${ms}}${eol}`

/** `f` with the AgentMux adapter of the app's layer over `store` (its scan state in `state`). */
export const agentmuxAdapter = <A, E>(s: { readonly store: string; readonly state: string }, f: (a: SessionSourceAdapter) => Effect.Effect<A, E>) =>
  Effect.flatMap(SessionSources, (ss) => ss.get("agentmux")).pipe(
    Effect.flatMap(f),
    Effect.provide(App.layer({ agentmuxStore: s.store, stateFile: s.state }))
  )

/** The events `stream` gives of the session at `loc`, and the warnings it hands on after them. */
export const streamedSession = (s: { readonly store: string; readonly state: string }, loc: Locator) =>
  agentmuxAdapter(s, (a) =>
    Effect.gen(function*() {
      const warnings: Array<Diagnostic> = []
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(a.stream(loc, { onWarning: (d) => warnings.push(d) })))
      return { events, warnings }
    }))
