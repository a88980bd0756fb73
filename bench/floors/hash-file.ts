/**
 * Floor of figure (f): read a file once in 1 MiB steps and sha256 it, plain
 * Node: what checking that an imported prefix is unchanged costs at least.
 * `node hash-file.mjs FILE`.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { report } from "./report.js"

const t0 = performance.now()
const fd = fs.openSync(process.argv[2], "r")
const buf = Buffer.allocUnsafe(1024 * 1024)
const hash = createHash("sha256")
let bytes = 0
for (;;) {
  const n = fs.readSync(fd, buf, 0, buf.length, bytes)
  if (n === 0) break
  hash.update(buf.subarray(0, n))
  bytes += n
}
fs.closeSync(fd)
report(t0, { bytes, sha256: hash.digest("hex") })
