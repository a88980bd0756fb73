/**
 * Probe of MCP `get_events` paging a whole long session (session 31, tester30c F5), in process:
 * `node mcp-pages.mjs INDEX SESSION_ID [LIMIT]`: a redacted runtime (the default rules; `Redaction.layer`) over the
 * index opened read-only, then `get_events` of the session, page after page (`limit` LIMIT, default 500, the default
 * 20,000-character budget), cursor after cursor, to its end. The processor time of each page (`process.cpuUsage`,
 * every thread), reported as the first page's (which gathers the session's secrets), the median of the next 10, the
 * median of the last 10, and the total; with how many pages and events, and a digest of every page's events (two
 * builds must answer the same bytes).
 *
 * Prints `{ms, maxRssKiB, ...}` (`../floors/report.ts`).
 */
import * as crypto from "node:crypto"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { getEvents } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Redaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [file, id, limitArg] = process.argv.slice(2)
if (file === undefined || id === undefined) {
  process.stderr.write("usage: mcp-pages.mjs INDEX SESSION_ID [LIMIT]\n")
  process.exit(2)
}
const limit = Number(limitArg ?? 500)
const rt = ManagedRuntime.make(Layer.merge(IndexSqlite.layerReadonly(file), Redaction.layer))
const cpu: Array<number> = []
const hash = crypto.createHash("sha256")
let events = 0
let cursor: string | undefined
for (;;) {
  const c0 = process.cpuUsage()
  const a = await rt.runPromise(getEvents({ id, limit, ...(cursor === undefined ? {} : { cursor }) }))
  const c = process.cpuUsage(c0)
  cpu.push((c.user + c.system) / 1000)
  events += a.events.length
  // keyed by this process's shown-id key (the cursors): left out of the digest
  hash.update(JSON.stringify(a.events.map(({ cursor: _c, ...e }) => e)))
  if (a.done) break
  cursor = a.nextCursor!
}
await rt.dispose()
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
report(t0, {
  pages: cpu.length,
  events,
  firstPageCpuMs: Math.round(cpu[0]),
  early10MedianCpuMs: Math.round(median(cpu.slice(1, 11)) * 10) / 10,
  last10MedianCpuMs: Math.round(median(cpu.slice(-10)) * 10) / 10,
  totalCpuMs: Math.round(cpu.reduce((a, b) => a + b, 0)),
  digest: hash.digest("hex").slice(0, 16)
})
