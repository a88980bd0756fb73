/**
 * Floor of figure (i), the first import of a native sessions root: the same
 * work in plain code. `node import-rows.mjs ROOT PRODUCT_INDEX SCRATCH_DB`.
 *
 * 1. Parse (timed): walk the root, read every `session.jsonl` whole, split
 *    its lines and `JSON.parse` each.
 * 2. (not timed) Read the rows the product's first import wrote into
 *    PRODUCT_INDEX: every table's rows, and each record's search text
 *    (`searchableText` of the event `eventOfRow` rebuilds), for the FTS5
 *    table whose words the product wrote.
 * 3. Insert (timed): the same rows into SCRATCH_DB, made with the product's
 *    schema and pragmas (page size, WAL, synchronous NORMAL), with prepared
 *    better-sqlite3 statements, 500 records (with their search words) per
 *    transaction, the small tables (sources, sessions, ...) likewise.
 *
 * Reports `ms` = parse + insert, each part, and the size of the index it made.
 */
import * as fs from "node:fs"
import BetterSqlite from "better-sqlite3"
import { searchableText } from "../../src/domain/search/text.js"
import { nativeLogsUnder } from "../lib/native-logs.js"
import { eventOfRow, type ShapePlan, shapePlan } from "../../src/layers/index/rows.js"

const [root, productIndex, scratch] = process.argv.slice(2)
/** better-sqlite3 (untyped here: the repository's typings cover only what the tests use). */
const Database = BetterSqlite as unknown as new(file: string, options?: { readonly?: boolean }) => any

// 1. parse
const t0 = performance.now()
const logs = nativeLogsUnder(root)
let lines = 0
let bytes = 0
for (const log of logs) {
  const buf = fs.readFileSync(log)
  bytes += buf.length
  let start = 0
  for (;;) {
    const nl = buf.indexOf(10, start)
    if (nl < 0) break
    if (nl > start) {
      JSON.parse(buf.toString("utf8", start, nl))
      lines++
    }
    start = nl + 1
  }
}
const parseMs = performance.now() - t0

// 2. the product's rows (not timed)
type Row = Record<string, unknown>
const product = new Database(productIndex, { readonly: true })
const schema = (product.prepare(
  `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
     AND name NOT IN ('search_data', 'search_idx', 'search_content', 'search_docsize', 'search_config') ORDER BY rowid`
).all() as Array<{ type: string; name: string; sql: string }>)
const tables = schema.filter((s) => s.type === "table" && s.name !== "search").map((s) => s.name)
const rowsOf = new Map<string, Array<Row>>()
for (const t of tables) rowsOf.set(t, product.prepare(`SELECT * FROM "${t}"`).all() as Array<Row>)
const plans = new Map<number, ShapePlan>()
for (const s of rowsOf.get("shapes") ?? []) plans.set(s.shape as number, shapePlan(s.def as string))
const streams = new Map<number, Row>()
for (const s of rowsOf.get("streams") ?? []) streams.set(s.stream as number, s)
const words = (rowsOf.get("records") ?? []).map((r) => {
  const st = streams.get(r.stream as number)!
  const e = eventOfRow(
    r.shape === null ? null : plans.get(r.shape as number)!,
    r.body as string,
    { provider: st.provider as string, sourceId: st.source_id as string, sessionId: st.session_id as string },
    { sequence: r.sequence as number, kind: r.kind as string, occurredAt: r.occurred_at as string | null }
  )
  return searchableText(e)
})
const titles = (product.prepare(
  `SELECT -st.stream AS rowid, ss.title FROM sessions ss JOIN streams st
     ON st.source_key = ss.source_key AND st.generation = ss.generation AND st.session_uid = ss.session_uid WHERE ss.title IS NOT NULL`
).all() as Array<{ rowid: number; title: string }>)
const pageSize = product.pragma("page_size", { simple: true }) as number
product.close()

// 3. insert (timed)
fs.rmSync(scratch, { force: true })
const t1 = performance.now()
const db = new Database(scratch)
db.pragma(`page_size = ${pageSize}`)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
for (const s of schema.filter((x) => x.type !== "trigger")) db.exec(s.sql)
const BATCH = 500
let inserted = 0
for (const t of tables) {
  const rows = rowsOf.get(t)!
  if (rows.length === 0) continue
  const cols = Object.keys(rows[0])
  const put = db.prepare(`INSERT INTO "${t}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`)
  const fts = t === "records" ? db.prepare("INSERT INTO search (rowid, text, input) VALUES (?, ?, ?)") : null
  const batch = db.transaction((from: number) => {
    for (let i = from; i < Math.min(from + BATCH, rows.length); i++) {
      const r = rows[i]
      put.run(...cols.map((c) => r[c]))
      if (fts !== null) fts.run(r.id, words[i].text, words[i].input)
    }
  })
  for (let i = 0; i < rows.length; i += BATCH) batch(i)
  inserted += rows.length
}
const putTitle = db.prepare("INSERT INTO search (rowid, text, input) VALUES (?, ?, '')")
db.transaction(() => {
  for (const t of titles) putTitle.run(t.rowid, t.title)
})()
db.pragma("journal_mode = DELETE")
db.close()
const insertMs = performance.now() - t1
const indexBytes = fs.statSync(scratch).size
fs.rmSync(scratch, { force: true })

process.stdout.write(JSON.stringify({ ms: parseMs + insertMs, maxRssKiB: process.resourceUsage().maxRSS, parseMs, insertMs, logs: logs.length, lines, bytes, rows: inserted, indexBytes }) + "\n")
