/**
 * What composing Hangul syllables again costs the search fold (session 31, tester30c F4; docs/search.md "Case and
 * accents, script by script"): processor time (user + system, `process.cpuUsage`) of `ftsFold` (session 31's fold)
 * against `ftsFold0013` (session 30's, which left them as jamo), interleaved, median of 5 rounds, over `N` texts
 * (default 100,000) of the bench's text pool (`bench/generate/common.ts`, as generated: most with a few non-ASCII
 * characters) and over the same texts with every non-ASCII run written as Korean (`\ud55c\uad6d\uc5b4`). Not part of
 * `npm run bench`: `npx tsx bench/probes/fold-hangul.ts [N]`.
 */
import { ftsFold, ftsFold0013 } from "../../src/domain/search/query.js"
import { asRead, cpuMs, median, mixedTexts } from "../lib/fold-corpus.js"

const n = Number(process.argv[2] ?? "100000")
const mixed = mixedTexts(n)
const korean = mixed.map((t) => asRead(t.replace(/[^\u0000-\u007f]+/g, "\ud55c\uad6d\uc5b4")))
const ways = [["ftsFold0013 (session 30)", ftsFold0013], ["ftsFold (syllables composed)", ftsFold]] as const
for (const [corpus, texts] of [["as generated (mixed)", mixed], ["non-ASCII runs Korean", korean]] as const) {
  const times: Record<string, Array<number>> = {}
  for (let round = 0; round < 5; round++) {
    for (const [name, fold] of ways) (times[name] ??= []).push(cpuMs(() => { for (const t of texts) fold(t) }))
  }
  console.log(`${corpus}: ${texts.length} texts, ${(texts.reduce((m, t) => m + t.length, 0) / 1e6).toFixed(1)} M characters`)
  for (const [name] of ways) console.log(`  ${name}: ${median(times[name]).toFixed(0)} ms CPU (median of 5)`)
}
