/**
 * Floor of figure b-rescan-after-checkpoint: what a rescan right after a
 * checkpoint must do at least, in plain Node: copy the store's main file
 * once (`copyFile`, a reflink where the file system has one, as the product
 * copies it) and newline-scan the appended blobs (as `newline-scan.ts`).
 * `node copy-and-scan.mjs STORE ZONE FROM_BYTE DEST`; DEST is removed after.
 */
import * as fs from "node:fs"
import Database from "better-sqlite3"
import { report } from "./report.js"

const t0 = performance.now()
const [store, zone, fromArg, dest] = process.argv.slice(2)
fs.copyFileSync(store, dest, fs.constants.COPYFILE_FICLONE)
const PART = 65_536
const from = Number(fromArg)
const db = new Database(store, { fileMustExist: true })
const q = db.prepare("SELECT partidx, data FROM db_file_data WHERE zoneid = ? AND name = 'output' AND partidx >= ? AND partidx < ? ORDER BY partidx")
const last = (db.prepare("SELECT max(partidx) AS m FROM db_file_data WHERE zoneid = ? AND name = 'output'").get(zone) as { m: number }).m
let newlines = 0
for (let idx = Math.floor(from / PART); idx <= last; idx += 64) {
  for (const row of q.all(zone, idx, idx + 64) as Array<{ partidx: number; data: Buffer }>) {
    const d = row.data
    let at = row.partidx === Math.floor(from / PART) ? from % PART : 0
    for (;;) {
      const nl = d.indexOf(10, at)
      if (nl < 0) break
      newlines++
      at = nl + 1
    }
  }
}
db.close()
const copied = fs.statSync(dest).size
fs.rmSync(dest, { force: true })
report(t0, { copied, newlines })
