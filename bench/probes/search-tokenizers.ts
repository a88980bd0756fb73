/**
 * The tokenizer choice of search (docs/search.md), measured: the same
 * documents (`N` events of the figure (g) corpus, default 100,000) indexed
 * by FTS5 `unicode61` (with the query rewriting of `src/domain/search/query.ts`)
 * and by `trigram`; bytes, build time, and the identifier cases of issue 14
 * (found or not, and how long). Not part of `npm run bench`:
 * `npx tsx bench/probes/search-tokenizers.ts [N]`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import Database from "better-sqlite3"
import * as Either from "effect/Either"
import { compileQuery } from "../../src/domain/search/query.js"
import { searchableText } from "../../src/domain/search/text.js"
import { corpusEvent, SESSION_EVENTS } from "../generate/search-corpus.js"

const n = Number(process.argv[2] ?? "100000")
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "si-tok-"))
const docs: Array<{ text: string; input: string }> = []
for (let i = 0; i < n; i++) docs.push(searchableText(corpusEvent(Math.floor(i / SESSION_EVENTS), i % SESSION_EVENTS)))
// The identifier cases, planted once each at the end.
const planted = [
  "Edit src/layers/index/sqlite.ts now",
  "call parseConfig(path) here",
  "Error: ENOENT: no such file",
  "magic 0x53496931 found",
  "request 6f1d2c3b-9a8e-4f70-b1c2-d3e4f5a6b7c8 failed",
  "commit 9c1e5d2a7b3f4e6d8c0a1b2c3d4e5f6a7b8c9d0e on main",
  "set retry_backoff_seconds to 5",
  "read app.settings.json first"
]
for (const p of planted) docs.push({ text: p, input: "" })
const cases: Array<[string, string]> = [
  ["path", "src/layers/index/sqlite.ts"], ["camelCase", "parseConfig"], ["word inside camelCase", "Config"], ["errno", "ENOENT"],
  ["hex", "0x53496931"], ["UUID", "6f1d2c3b-9a8e-4f70-b1c2-d3e4f5a6b7c8"], ["git SHA", "9c1e5d2a7b3f4e6d8c0a1b2c3d4e5f6a7b8c9d0e"],
  ["abbreviated SHA", "9c1e5d2"], ["word inside snake_case", "backoff"], ["word inside dotted name", "settings"], ["common word", "error"]
]
const results: Record<string, unknown> = {}
for (const [name, tokenizer] of [["unicode61", "unicode61 remove_diacritics 2"], ["trigram", "trigram"]] as const) {
  const file = path.join(dir, `${name}.db`)
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.exec(`CREATE VIRTUAL TABLE s USING fts5(text, input, tokenize = '${tokenizer}', content = '', contentless_delete = 1)`)
  const ins = db.prepare("INSERT INTO s (rowid, text, input) VALUES (?, ?, ?)")
  const t0 = performance.now()
  db.transaction(() => docs.forEach((d, i) => ins.run(i + 1, d.text, d.input)))()
  const buildMs = performance.now() - t0
  db.pragma("wal_checkpoint(TRUNCATE)")
  const bytes = fs.statSync(file).size
  const found: Record<string, unknown> = {}
  for (const [label, q] of cases) {
    // unicode61: the query language's expression; trigram: the text as one quoted substring.
    const match = name === "unicode61" ? Either.getOrThrow(compileQuery(q)).match : `"${q.replace(/"/g, "\"\"")}"`
    const st = db.prepare("SELECT rowid FROM s WHERE s MATCH ? ORDER BY rowid DESC LIMIT 20")
    const t1 = performance.now()
    const rows = st.all(match) as Array<{ rowid: number }>
    found[label] = { hits: rows.length, planted: rows.some((r) => r.rowid > n), ms: Number((performance.now() - t1).toFixed(2)) }
  }
  results[name] = { buildMs: Math.round(buildMs), bytes, bytesPerDoc: Math.round(bytes / docs.length), found }
  db.close()
}
fs.rmSync(dir, { recursive: true, force: true })
process.stdout.write(JSON.stringify({ docs: docs.length, results }, null, 1) + "\n")
