/**
 * A {@link ReplayInput} → one self-contained HTML page (issue 15). Pure.
 *
 * - Offline: the stylesheet and the script are inline, nothing is loaded
 *   (no URL, font or image), and a Content-Security-Policy meta forbids
 *   every load (`default-src 'none'`); the inline style and script are
 *   allowed by their sha256 hashes, so the same input gives the same bytes.
 * - Session content is never markup: the header is written escaped
 *   ({@link escapeHtml}); the session goes into a `<script
 *   type="application/json">` block with `<`, `>`, `&`, U+2028 and U+2029
 *   escaped ({@link jsonForScript}), so no text can end it; the script builds
 *   the DOM from it with `textContent`.
 * - Large sessions render progressively (a time slice per task), so the top
 *   of the page shows at once.
 *
 * @module
 */
import { createHash } from "node:crypto"
import { costNoteLines, costText, costUnknownSaid, countedElsewhereNote } from "../render.js"
import { type ParseWarningEffect, parseWarningEffect, parseWarningTally } from "../warning-kinds.js"
import { REPLAY_CSS, REPLAY_JS } from "./client.js"
import { longRunPieces } from "./wrap.js"
import type { ReplayBlock, ReplayEntry, ReplayHeader, ReplayInput, ReplaySession } from "./model.js"

/** `text` escaped for HTML text and quoted attribute values (`& < > " '`). */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"))

/**
 * `value` as JSON that can sit inside a `<script>` element: `<`, `>` and `&`
 * as `\u003c`, `\u003e`, `\u0026` (no `</script>` nor `<!--` can appear), and
 * U+2028 / U+2029 as escapes. `JSON.parse` of the element's text gives
 * `value` back.
 */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** `text` as HTML text ({@link escapeHtml}) with `<wbr>` cutting its long unbroken runs (`./wrap.ts`: so that laying it out is linear). */
export const escapeHtmlBreakable = (text: string): string => longRunPieces(text).map(escapeHtml).join("<wbr>")

const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** The page's Content-Security-Policy: nothing may load; only the page's own inline style and script run. */
export const replayCsp = (): string =>
  [
    "default-src 'none'",
    `script-src ${hash(REPLAY_JS)}`,
    `style-src ${hash(REPLAY_CSS)}`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join("; ")

const number = (n: number) => n.toLocaleString("en-US")
const count = (n: number, one: string, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`

/** A duration in milliseconds for people: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export const formatDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
  const m = Math.round(s / 60)
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`
}

/** The header of a session as label / value rows (what the page shows above it). */
export const headerRows = (h: ReplayHeader): Array<readonly [string, string]> => {
  const rows: Array<readonly [string, string]> = [["Provider", h.provider], ["Session", h.sessionId]]
  // (tester31b F1) whether the page holds the session's secrets: an unredacted page must not look like a shared one.
  if (h.redaction === "redacted") rows.push(["Redaction", "redacted: secrets, emails and home paths replaced by markers"])
  else if (h.redaction === "none") rows.push(["Redaction", "none (--no-redact): the session as stored, secrets, emails and home paths included; not for sharing"])
  if (h.model !== null) rows.push(["Model", h.model])
  if (h.workspace !== null) rows.push(["Workspace", h.workspace])
  if (h.startedAt !== null) rows.push(["Started", h.startedAt])
  if (h.endedAt !== null) rows.push(["Ended", h.endedAt])
  if (h.durationMs !== null) rows.push(["Duration", formatDuration(h.durationMs)])
  const c = h.counts
  const counts = [
    count(c.turns, "turn"),
    `${count(c.toolCalls, "tool call")}${c.toolErrors > 0 ? ` (${number(c.toolErrors)} failed)` : ""}`,
    count(c.events, "event")
  ]
  if (c.compactions > 0) counts.push(count(c.compactions, "compaction"))
  if (c.runtimeEvents > 0) counts.push(count(c.runtimeEvents, "runtime event"))
  if (c.subagents > 0) counts.push(count(c.subagents, "subagent session"))
  rows.push(["Counts", counts.join(" · ")])
  if (h.tokens !== null) {
    const t = h.tokens
    const parts = [
      t.inputTokens !== null ? `input ${number(t.inputTokens)}` : null,
      t.outputTokens !== null ? `output ${number(t.outputTokens)}` : null,
      t.cacheReadTokens !== null ? `cache read ${number(t.cacheReadTokens)}` : null,
      t.cacheWriteTokens !== null ? `cache write ${number(t.cacheWriteTokens)}` : null
    ].filter((p): p is string => p !== null)
    rows.push(["Tokens", `${parts.join(" · ")} (${count(t.responses, "response")})`])
  }
  // The one cost formatter of every output (docs/usage-and-cost.md "Costs as people read them"), and (tester31a F5) the
  // notes every other cost display carries, in the same words (`show`'s usage line: render.ts): why a cost is unknown
  // or set aside, and where responses count instead.
  const caveats = h.costCaveats ?? {}
  const notes = costNoteLines(caveats)
  const elsewhere = countedElsewhereNote(h.countedElsewhere ?? [], { provider: h.provider, sessionId: h.sessionId })
  if (h.costUsd !== null && Number.isFinite(h.costUsd)) rows.push(["Cost", `${costText(h.costUsd, true)} (USD)`])
  // priced (the caveats are there) and still null: unknown, and why when a note says it
  else if (h.costCaveats !== undefined && (h.tokens !== null || notes.length > 0)) rows.push(["Cost", costText(null, costUnknownSaid(caveats))])
  if (elsewhere !== "") rows.push(["Counted elsewhere", elsewhere])
  for (const n of notes) rows.push(["Cost note", n])
  // What the source left out, as Markdown lists it (tester30b F3: a shared page said nothing of a skipped line).
  const line = (n: number | null) => (n !== null ? ` (first at line ${number(n)})` : "")
  // (tester31a F1) by what each kind did: the lines skipped, the lines kept with a part replaced (never called
  // skipped: docs/index.md "Parse warnings"), the subagent files left out.
  if (h.parseWarnings.length > 0) {
    const kinds = (effect: ParseWarningEffect) =>
      h.parseWarnings.filter((w) => parseWarningEffect(w.kind) === effect).map((w) => `${w.kind} ${number(w.count)}${line(w.firstLine)}`).join(" · ")
    const t = parseWarningTally(h.parseWarnings)
    rows.push([
      "Parse warnings",
      [
        t.skippedLines > 0 ? `${count(t.skippedLines, "line")} skipped: ${kinds("skipped")}` : null,
        t.keptLines > 0 ? `${count(t.keptLines, "line")} kept, a part of each dropped or replaced: ${kinds("kept")}` : null,
        t.filesLeftOut > 0 ? `${count(t.filesLeftOut, "file")} left out: ${kinds("file-left-out")}` : null
      ].filter((c): c is string => c !== null).join("; ")
    ])
  }
  if (h.diagnostics.length > 0) {
    rows.push(["Diagnostics", h.diagnostics.map((d) => `${d.kind} ${number(d.count)}${line(d.firstLine)}`).join(" · ")])
  }
  return rows
}

/** The JSON the page's script reads: the session with the header rows of every (sub)session added. */
interface PayloadSession extends ReplaySession {
  readonly rows: ReadonlyArray<readonly [string, string]>
}

const withSubs = <B extends ReplayBlock | ReplayEntry>(b: B): B => {
  if (b.type === "tool" && b.subagents.length > 0) return { ...b, subagents: b.subagents.map(payloadOf) }
  if (b.type === "facts" && b.facts.some((f) => f.subagents.length > 0)) {
    return { ...b, facts: b.facts.map((f) => (f.subagents.length > 0 ? { ...f, subagents: f.subagents.map(payloadOf) } : f)) }
  }
  if (b.type === "turn" && b.blocks.some((x) => x.type === "tool" || x.type === "facts")) return { ...b, blocks: b.blocks.map(withSubs) }
  return b
}

/** Entries in the first JSON block (read before the page's first paint), and in each block after it. */
const FIRST_ENTRIES = 100
const CHUNK_ENTRIES = 1000

const payloadOf = (s: ReplaySession): PayloadSession => ({
  header: s.header,
  rows: headerRows(s.header),
  entries: s.entries.map(withSubs),
  unplaced: s.unplaced.map(payloadOf)
})

/**
 * The replay page of `input` (see the module doc): the header (title,
 * provider, model, workspace, times, duration, counts, tokens, and cost when
 * known), a find box, and the session's turns in order, thinking collapsed,
 * tool calls with their input and result (Bash as a terminal, Edit and
 * Write as diffs), failures and compactions marked, a tool result whose call
 * was not read as a block of its own, the parse warnings and diagnostics in
 * the header, subagent sessions nested under their call. Keys: `j`/`k` or arrows move between turns, `/` finds,
 * Enter / Shift+Enter or `n`/`N` go to the next / previous match.
 */
export const renderReplay = (input: ReplayInput): string => {
  const h = input.session.header
  const title = h.title !== null && h.title.trim().length > 0 ? h.title : `Session ${h.sessionId}`
  const rows = headerRows(h)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtmlBreakable(v)}</dd>`)
    .join("")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(replayCsp())}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="session-ingest replay">
<title>${escapeHtml(title)} · session-ingest replay</title>
<style>${REPLAY_CSS}</style>
</head>
<body>
<header id="top"><h1>${escapeHtmlBreakable(title)}</h1><dl class="facts">${rows}</dl></header>
<nav id="bar"><input id="find" type="search" maxlength="1000" placeholder="Find in session  ( / )" aria-label="Find in session" autocomplete="off" spellcheck="false"><button id="prev" type="button" title="Previous match (Shift+Enter)">&#8593;</button><button id="next" type="button" title="Next match (Enter)">&#8595;</button><span id="count" class="status" aria-live="polite"></span><span id="pos" class="status"></span><span id="progress" class="status"></span><span class="status">j / k: next / previous turn</span></nav>
<main id="entries"></main>
<noscript><p>This replay shows the session's turns with its inline script (it loads nothing).</p></noscript>
${dataBlocks(input.session)}<div id="replay-end" hidden></div>
</body>
</html>
`
}

/**
 * The session as JSON blocks for the page's script, in order: the header and
 * the first entries (`#replay-data`), the script itself (so the page paints
 * its top while the parser still reads the rest), then the other entries a
 * block of {@link CHUNK_ENTRIES} at a time (`#replay-chunk-1`, …).
 */
const dataBlocks = (session: ReplaySession): string => {
  const { entries, ...rest } = payloadOf(session)
  const parts = [
    `<script type="application/json" id="replay-data">${
      jsonForScript({ ...rest, total: entries.length, entries: entries.slice(0, FIRST_ENTRIES) })
    }</script>\n<script>${REPLAY_JS}</script>\n`
  ]
  for (let at = FIRST_ENTRIES, k = 1; at < entries.length; at += CHUNK_ENTRIES, k++) {
    parts.push(`<script type="application/json" id="replay-chunk-${k}">${jsonForScript(entries.slice(at, at + CHUNK_ENTRIES))}</script>\n`)
  }
  return parts.join("")
}
