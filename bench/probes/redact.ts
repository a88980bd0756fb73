/**
 * Probe and floor of the redaction figure (issue 15): `node redact.mjs FILE
 * redact|floor`. Reads a JSONL transcript a line at a time (bounded memory),
 * parses each line, and times only the step under test, summed over the
 * lines:
 * - `redact`: the Redaction service's default rules over the whole record
 *   (`value`: every string leaf, deep), the work each shareable output does;
 * - `floor`: a single pass over the same string leaves (`indexOf` of a
 *   character that never occurs), the least a scan of those bytes costs.
 *
 * Prints `{ms, maxRssKiB, bytes, stepMs, leaves, changed}`: `bytes` of the
 * file, `stepMs` the summed time of the step, `leaves` the string leaves of
 * the parsed records (both modes, counted outside the timed step), `changed` the records the
 * step altered (redact: those holding something redactable).
 */
import * as fs from "node:fs"
import { StringDecoder } from "node:string_decoder"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [file, mode] = process.argv.slice(2)
if (file === undefined || (mode !== "redact" && mode !== "floor")) {
  process.stderr.write("usage: redact.mjs FILE redact|floor\n")
  process.exit(2)
}

let leaves = 0
let sink = 0
const scan = (v: unknown): void => {
  if (typeof v === "string") sink += v.indexOf("\u0000")
  else if (Array.isArray(v)) for (const x of v) scan(x)
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) scan(x)
}
/** The string leaves of a record, counted in both modes outside the timed step (the note quotes them). */
const countLeaves = (v: unknown): number => {
  if (typeof v === "string") return 1
  let n = 0
  if (Array.isArray(v)) for (const x of v) n += countLeaves(x)
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) n += countLeaves(x)
  return n
}

const fd = fs.openSync(file, "r")
const chunk = Buffer.alloc(4 * 1024 * 1024)
const decoder = new StringDecoder("utf8")
let carry = ""
let bytes = 0
let stepMs = 0
let changed = 0
const step = (line: string) => {
  if (line.length === 0) return
  const value: unknown = JSON.parse(line)
  const s = performance.now()
  if (mode === "redact") {
    if (defaultRedaction.value(value) !== value) changed++
  } else scan(value)
  stepMs += performance.now() - s
  leaves += countLeaves(value)
}
for (;;) {
  const n = fs.readSync(fd, chunk, 0, chunk.length, null)
  if (n === 0) break
  bytes += n
  const text = carry + decoder.write(chunk.subarray(0, n))
  const lines = text.split("\n")
  carry = lines.pop()!
  for (const line of lines) step(line)
}
step(carry)
fs.closeSync(fd)
report(t0, { bytes, stepMs, leaves, changed, sink: sink < 0 ? 0 : sink })
