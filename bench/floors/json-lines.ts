/**
 * Floor of figure (a): a plain Node reader of a JSONL file. Reads the file in
 * 1 MiB steps, splits lines with `Buffer.indexOf`, and runs `JSON.parse` and
 * `JSON.stringify` on each line. `node json-lines.mjs FILE`.
 */
import * as fs from "node:fs"
import { report } from "./report.js"

const t0 = performance.now()
const file = process.argv[2]
const fd = fs.openSync(file, "r")
const step = 1024 * 1024
let buf = Buffer.alloc(step * 2)
let have = 0
let pos = 0
let lines = 0
let outBytes = 0
for (;;) {
  if (buf.length - have < step) {
    const bigger = Buffer.alloc(buf.length * 2)
    buf.copy(bigger, 0, 0, have)
    buf = bigger
  }
  const n = fs.readSync(fd, buf, have, step, pos)
  pos += n
  have += n
  let start = 0
  for (;;) {
    const nl = buf.indexOf(10, start)
    if (nl < 0 || nl >= have) break
    if (nl > start) {
      outBytes += JSON.stringify(JSON.parse(buf.toString("utf8", start, nl))).length
      lines++
    }
    start = nl + 1
  }
  buf.copy(buf, 0, start, have)
  have -= start
  if (n === 0) break
}
fs.closeSync(fd)
report(t0, { bytes: pos, lines, outBytes })
