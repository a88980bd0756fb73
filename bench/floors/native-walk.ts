/**
 * Floors of figures (c) and (e) over a native sessions root
 * `<root>/YYYY/MM/DD/<id>/session.jsonl`:
 * - `evidence ROOT WORKSPACE`: walk the root, read the first 64 KiB of each
 *   log, `JSON.parse` its lines until one carries `payload.record.workspace_root`
 *   or `cwd`, and compare it with the workspace;
 * - `stat ROOT`: walk the root and stat each log (what "unchanged" costs at least).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { report } from "./report.js"

const t0 = performance.now()
const [mode, root, workspace] = process.argv.slice(2)
const logs: Array<string> = []
for (const y of fs.readdirSync(root)) {
  for (const m of fs.readdirSync(nodePath.join(root, y))) {
    for (const d of fs.readdirSync(nodePath.join(root, y, m))) {
      for (const id of fs.readdirSync(nodePath.join(root, y, m, d))) logs.push(nodePath.join(root, y, m, d, id, "session.jsonl"))
    }
  }
}
let matched = 0
let bytes = 0
const buf = Buffer.alloc(64 * 1024)
for (const log of logs) {
  if (mode === "stat") {
    bytes += fs.statSync(log).size
    continue
  }
  const fd = fs.openSync(log, "r")
  const n = fs.readSync(fd, buf, 0, buf.length, 0)
  fs.closeSync(fd)
  bytes += n
  let start = 0
  for (;;) {
    const nl = buf.indexOf(10, start)
    if (nl < 0 || nl >= n) break
    const v = JSON.parse(buf.toString("utf8", start, nl))
    start = nl + 1
    const rec = v?.payload?.record
    const ev = rec?.workspace_root ?? rec?.cwd
    if (typeof ev === "string") {
      if (ev === workspace) matched++
      break
    }
  }
}
report(t0, { logs: logs.length, matched, bytes })
