/**
 * What folding the SQLite search words in the domain costs (docs/search.md "Case and accents, script by script";
 * issue 13, first-import speed): processor time (user + system, `process.cpuUsage`) of making the FTS5 text of each
 * searched field and of writing it to a contentless FTS5 table, the way before session 29 (control and format
 * characters a space, `unicode61 remove_diacritics 2`) against `ftsText` (`ftsFold`, FTS5 `ascii`), interleaved,
 * median of 5 rounds. Two corpora of `N` texts (default 100,000) of the bench's text pool
 * (`bench/generate/common.ts`, 40-2,000 words, most with a few non-ASCII characters): as generated, and with every
 * non-ASCII character written `x` (pure ASCII: the fast path). Not part of `npm run bench`:
 * `npx tsx bench/probes/fts-fold.ts [N]`.
 */
import Database from "better-sqlite3"
import { ftsText } from "../../src/domain/search/text.js"
import { asRead, cpuMs, median, mixedTexts } from "../lib/fold-corpus.js"

const n = Number(process.argv[2] ?? "100000")
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}]/u
const CONTROLS_ALL = new RegExp(CONTROLS.source, "gu")
/** `ftsText` before session 29. */
const spacedControls = (s: string): string => (CONTROLS.test(s) ? s.replace(CONTROLS_ALL, " ") : s)

const mixed = mixedTexts(n)
const ascii = mixed.map((t) => asRead(t.replace(/[^\u0000-\u007f]+/g, "x")))

const ways = [
  { name: "before (controls spaced, unicode61)", fold: spacedControls, tokenizer: "unicode61 remove_diacritics 2" },
  { name: "ftsText (folded, ascii)", fold: ftsText, tokenizer: "ascii" }
] as const
for (const [corpus, texts] of [["pure ASCII", ascii], ["as generated (mixed)", mixed]] as const) {
  const chars = texts.reduce((m, t) => m + t.length, 0)
  const fold: Record<string, Array<number>> = {}
  const write: Record<string, Array<number>> = {}
  for (let round = 0; round < 5; round++) {
    for (const w of ways) {
      ;(fold[w.name] ??= []).push(cpuMs(() => { for (const t of texts) w.fold(t) }))
      const db = new Database(":memory:")
      db.exec(`CREATE VIRTUAL TABLE s USING fts5(text, tokenize = '${w.tokenizer}', content = '', contentless_delete = 1)`)
      const put = db.prepare("INSERT INTO s (rowid, text) VALUES (?, ?)")
      ;(write[w.name] ??= []).push(cpuMs(() => db.transaction(() => texts.forEach((t, i) => put.run(i + 1, w.fold(t))))()))
      db.close()
    }
  }
  console.log(`${corpus}: ${texts.length} texts, ${(chars / 1e6).toFixed(1)} M characters`)
  for (const w of ways) {
    console.log(`  ${w.name}: text ${median(fold[w.name]).toFixed(0)} ms, text + FTS5 write ${median(write[w.name]).toFixed(0)} ms (CPU, median of 5)`)
  }
}
