/**
 * Floor of figure (b): a plain newline scan of an AgentMux zone's `output`
 * blobs. Reads `db_file_data` parts in `partidx` order, 64 parts (4 MiB) per
 * query, straight from the store with better-sqlite3, and counts newlines with
 * `Buffer.indexOf`. `node newline-scan.mjs STORE ZONE [FROM_BYTE]`.
 *
 * Opens the store read-write (and writes nothing) so that SQLite removes the
 * `-wal`/`-shm` files of a WAL store when the connection closes.
 */
import Database from "better-sqlite3"
import { report } from "./report.js"

const t0 = performance.now()
const [store, zone, fromArg] = process.argv.slice(2)
const PART = 65_536
const from = Number(fromArg ?? 0)
const db = new Database(store, { fileMustExist: true })
const q = db.prepare("SELECT partidx, data FROM db_file_data WHERE zoneid = ? AND name = 'output' AND partidx >= ? AND partidx < ? ORDER BY partidx")
const last = (db.prepare("SELECT max(partidx) AS m FROM db_file_data WHERE zoneid = ? AND name = 'output'").get(zone) as { m: number }).m
let newlines = 0
let bytes = 0
for (let idx = Math.floor(from / PART); idx <= last; idx += 64) {
  for (const row of q.all(zone, idx, idx + 64) as Array<{ partidx: number; data: Buffer }>) {
    const d = row.data
    let at = row.partidx === Math.floor(from / PART) ? from % PART : 0
    bytes += d.length - at
    for (;;) {
      const nl = d.indexOf(10, at)
      if (nl < 0) break
      newlines++
      at = nl + 1
    }
  }
}
db.close()
report(t0, { bytes, newlines })
