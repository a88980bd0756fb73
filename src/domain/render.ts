/**
 * Plain-text and Markdown renderings of a {@link Transcript}, for people.
 *
 * @module
 */
import type { SessionEvent, Transcript, TranscriptBlock } from "./model.js"
import { normalizeTimestamp } from "./timestamps.js"

/** How times are shown to people: UTC with `Z` (the default), or the local zone (`TZ`) with its offset. */
export interface TimeStyle {
  /** Local time with its offset (`+05:30`) instead of UTC. */
  readonly local?: boolean | undefined
  /** Whole seconds only (listings); otherwise the sub-second digits the time has. */
  readonly seconds?: boolean | undefined
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0")

/**
 * A time for people: RFC 3339 always with its zone, `2026-10-01T12:00:01Z`
 * in UTC (the default), or with `local` the same instant in the process's
 * zone (`TZ`) with its offset, `2026-10-01T17:30:01+05:30`. Sub-second
 * digits are kept unless `seconds`. A value that is not a time is shown as
 * it is.
 */
export const humanTime = (value: string, style: TimeStyle = {}): string => {
  const r = normalizeTimestamp(value)
  if (r._tag !== "ok") return value
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?Z$/.exec(r.value)
  if (m === null) return value
  const fraction = style.seconds === true ? "" : (m[2] ?? "")
  if (style.local !== true) return `${m[1]}${fraction}Z`
  const d = new Date(r.epochMs)
  const offset = -d.getTimezoneOffset()
  const year = d.getFullYear()
  const date = `${year < 0 ? "-" : ""}${pad(year, 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  const zone = `${offset < 0 ? "-" : "+"}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  return `${date}T${time}${fraction}${zone}`
}

/**
 * Characters a terminal may act on instead of showing: C0 controls but tab
 * and line feed (U+0000–U+0008, U+000B–U+001F, so ESC, BEL, CR and BS among
 * them), DEL (U+007F), C1 controls (U+0080–U+009F, CSI U+009B and OSC U+009D
 * among them), and the bidirectional overrides and isolates that reorder how
 * text reads (U+202A–U+202E, U+2066–U+2069).
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * Text for people, safe to print on a terminal: every character of
 * {@link CONTROLS} written visibly as an escape, `\xHH` below U+0100 (ESC is
 * `\x1b`, CSI `\x9b`, CR `\x0d`) and `\uHHHH` above (`\u202e`), so that
 * session content (a prompt, title, path or tool output) can neither retitle
 * the terminal, clear it, move the cursor nor disguise text. A CR LF line end
 * is shown as the line end it is. Tabs and line feeds stay. Idempotent: its
 * output holds no such character.
 */
export const visibleControls = (text: string): string =>
  text.replace(/\r\n/g, "\n").replace(
    CONTROLS,
    (c) => {
      const n = c.charCodeAt(0)
      return n < 0x100 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`
    }
  )

/** Line breaks and tabs: what {@link visibleControls} leaves as they are. */
const BREAKS = /[\n\r\t\u2028\u2029]/g
const BREAK_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u2028": "\\u2028", "\u2029": "\\u2029" }

/**
 * A field that is one line by nature (a session id, a path, a diagnostic's
 * message, a title in a heading) as text for people shows it: its line
 * feeds, carriage returns, tabs and Unicode line and paragraph separators
 * written as `\n`, `\r`, `\t`, `\u2028`, `\u2029`, so that a source's
 * value cannot add lines of its own to a listing, a report or a Markdown
 * header (tester19 F5: a session id holding a line feed forged a row of
 * `sessions`). Other controls are left to {@link visibleControls}, which
 * every text output passes through.
 */
export const oneLineField = (s: string): string => (/[\n\r\t\u2028\u2029]/.test(s) ? s.replace(BREAKS, (c) => BREAK_ESCAPES[c]) : s)

/**
 * Characters JSON leaves raw that a terminal may act on or that reorder text
 * (C1 controls, bidirectional overrides and isolates); `JSON.stringify`
 * already escapes C0.
 */
const JSON_RAW_CONTROLS = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/g
const HAS_JSON_RAW_CONTROL = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/

/**
 * JSON text with {@link JSON_RAW_CONTROLS} written as `\uHHHH` escapes: the
 * same JSON value (a parser reads it back unchanged), but a `--json` envelope
 * or an NDJSON line shown on a terminal carries no raw C1 control.
 */
export const escapeJsonControls = (json: string): string =>
  HAS_JSON_RAW_CONTROL.test(json)
    ? json.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    : json

/** A code fence around `s`: one backtick longer than its longest run of backticks (at least three), so nothing in it closes the fence. */
const fence = (s: string): string => {
  let longest = 0
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length)
  const ticks = "`".repeat(Math.max(3, longest + 1))
  return `${ticks}\n${s}\n${ticks}`
}

/**
 * A value a source wrote (a session id, a tool name, a path) as an inline code span of a Markdown document
 * (CommonMark 6.1), on one line ({@link oneLineField}: its line breaks shown as `\n`): fenced by a run of backticks
 * one longer than the longest run inside it, so nothing in it closes the span, and padded by a space on each side
 * when it starts or ends with a backtick or a space (the one space CommonMark strips at each side). Inside a code
 * span HTML, links and emphasis are text: `` x` <img src=x> `` is written ``` ``x` <img src=x>`` ```. An empty value is
 * `` ` ` ``. Pure.
 */
export const markdownCode = (value: string): string => {
  const s = oneLineField(value)
  if (s === "") return "` `"
  let longest = 0
  for (const m of s.matchAll(/`+/g)) longest = Math.max(longest, m[0].length)
  const ticks = "`".repeat(longest + 1)
  const pad = /^[` ]|[` ]$/.test(s) ? " " : ""
  return `${ticks}${pad}${s}${pad}${ticks}`
}

/** HTML tags that load something or run something when Markdown is viewed (rendered as text instead). */
const ACTIVE_TAG = /<(?=\/?(?:img|iframe|frame|video|audio|source|track|object|embed|link|script|style|picture|svg|image|input|form|body|meta|base)\b)/gi

/**
 * A session's message text as a shareable Markdown document carries it: still Markdown (an answer's lists,
 * emphasis, code and headings of level 3 and below render as written), but it cannot pass for the document's
 * own structure or reach the network when the document is viewed (tester20 F12): outside the message's code
 * (fenced blocks, inline code spans) a heading of level 1 or 2 (the document's title and turn headings) is
 * escaped (`\#`), an image (`![…](…)`) is shown as a link (`\![…](…)`), and an HTML tag that loads or runs
 * something (`<img`, `<iframe`, `<script`, …) is written as text (`&lt;img`). Pure.
 */
export const inertMarkdown = (text: string): string => (/[#!<]|\]\(/.test(text) ? inertLines(text, ACTIVE_TAG).text : text)

/**
 * Any HTML outside code (session 24, tester24a F10): a tag or a closing tag (`<details`, `</div`, `<b`), a comment
 * (`<!--`), a declaration or a processing instruction (`<!X`, `<?`); not an autolink (`<https://…>`, `<mailto:…>`).
 */
const ANY_HTML = /<(?=[A-Za-z/!?])(?!(?:https?|mailto):)/g

/**
 * A line as its block containers leave it: the block quote markers and list item markers it starts with (`> `,
 * `- `, `1. `), then the rest, where a heading, a setext underline or a link reference definition starts as it
 * would at a line's start (tester25b F1, F3: `> [j]: javascript:...`, `- ## user`).
 */
const CONTAINED_BLOCK = /^((?: {0,3}(?:>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+))*)(.*)$/s

/**
 * The `](` of an inline link or image whose destination is not plainly `http(s)://`, `mailto:` or a relative
 * reference (tester25b F2): after `(` (spaces, tabs, a `<`) the destination must start with `http://`, `https://`
 * or `mailto:` (any case), or with a run of `A-Z a-z 0-9 _ . ~ % + -` that ends in `/ ? # ) >` (or, not empty, in a
 * space): a relative path, `#anchor`, `()`. Anything else (`javascript:`, `vbscript:`, `data:`, an entity `&#106;`, a
 * backslash escape, a control character, a destination on the next line) has its `(` escaped (`]\(`), so the
 * text renders as written and is no link. Linear: each lookahead stops at the next `(`, `]` or blank.
 */
const UNSAFE_LINK = /\](?=\()(?!\([ \t]*<?(?:https?:\/\/|mailto:|[\w.~%+-]+ |[\w.~%+-]*[/?#)>]))/gi

/**
 * `line` split at its inline code spans as CommonMark (6.1) reads them: text, code span, text, …, a code span at each
 * odd index. A span opens at a run of n backticks and closes at the next run of exactly n; a run with no such
 * closer is text (``` ``a` ``` holds no code), and so is a backtick escaped by a backslash outside code (the run
 * after it one shorter). Inside a span a backslash is literal. Linear: each length's runs are read once, in order.
 */
const codeSpanParts = (line: string): Array<string> => {
  if (!line.includes("`")) return [line]
  const runs = new Map<number, Array<number>>() // a run's length -> its starts, in order
  for (const m of line.matchAll(/`+/g)) {
    const at = runs.get(m[0].length)
    if (at === undefined) runs.set(m[0].length, [m.index])
    else at.push(m.index)
  }
  const seen = new Map<number, number>() // a length -> how many of its runs lie before the scan
  const closer = (n: number, after: number): number => {
    const at = runs.get(n)
    if (at === undefined) return -1
    let k = seen.get(n) ?? 0
    while (k < at.length && at[k] < after) k++
    seen.set(n, k)
    return k < at.length ? at[k] : -1
  }
  const parts: Array<string> = []
  let from = 0 // the start of the text part being read
  let i = 0
  while (i < line.length) {
    const c = line[i]
    if (c === "\\") {
      i += 2 // an escaped character (or a backslash before a letter: literal either way) is text
      continue
    }
    if (c !== "`") {
      i++
      continue
    }
    let j = i
    while (j < line.length && line[j] === "`") j++
    // the run from i (after an escaped backtick, the rest of its run) opens a span if a run as long follows
    const close = closer(j - i, j)
    if (close < 0) {
      i = j
      continue
    }
    parts.push(line.slice(from, i), line.slice(i, close + (j - i)))
    from = i = close + (j - i)
  }
  parts.push(line.slice(from))
  return parts
}

/**
 * A fence's closing line as CommonMark (4.5) reads it, its indentation aside: the fence's character, at least as
 * many as the opening fence, then only spaces or tabs.
 */
const closesFence = (rest: string, fence: string): boolean => {
  let n = 0
  while (n < rest.length && rest[n] === fence[0]) n++
  return n >= fence.length && /^[ \t]*$/.test(rest.slice(n))
}

/** The column of `line`'s first character that is not a space or a tab (a tab advances to the next multiple of 4), and the rest from it. */
const indentOf = (line: string): { readonly column: number; readonly rest: string } => {
  let column = 0
  let i = 0
  for (; i < line.length && (line[i] === " " || line[i] === "\t"); i++) column = line[i] === "\t" ? column + 4 - (column % 4) : column + 1
  return { column, rest: line.slice(i) }
}

/**
 * {@link inertMarkdown}'s work on `text`'s lines, with `html` the tags made text: the text made inert outside its
 * code, and the line that closes the code block still open at its end (null when none). A fence counts as code only
 * where every reading CommonMark may give it agrees (session 26, tester26a F2): a fence indented by k spaces (0-3)
 * is read either at the top level or inside a list item whose content starts at a column w <= k (`- `, `1. `: the
 * item ends, and its fence with it, at a later line indented less than w). So lines count as its code while they
 * are blank or indented by k or more. A closing line (`closesFence`) indented k to k + 3 closes it; one indented
 * past 3 (or by a tab) is written indented by k, so that it closes it in both readings. Before a line indented less
 * than k, and at the message's end, a closing line of its own indented by k is added (k <= 3: it closes a top-level
 * fence, and an item's fence since k >= w; it never opens one, as it comes only where a fence is open in both
 * readings). A fence right after a list item marker (`` - ``` ``) is escaped (`` - \``` ``): a later line
 * `` ``` `` indented under it would be its closing line, read here as an opening one.
 */
const inertLines = (text: string, html: RegExp): { readonly text: string; readonly open: string | null } => {
  const lines = text.split("\n")
  const out: Array<string> = []
  let open: { readonly fence: string; readonly indent: number } | null = null // the code block we are in
  for (let line of lines) {
    if (open !== null) {
      const { column, rest } = indentOf(line)
      if (rest === "") {
        out.push(line)
        continue
      }
      if (closesFence(rest, open.fence) && column >= open.indent && column <= open.indent + 3) {
        out.push(/^ {0,3}[`~]/.test(line) ? line : " ".repeat(open.indent) + rest.trimEnd()) // closes in both readings as it is
        open = null
        continue
      }
      if (column >= open.indent) {
        out.push(line)
        continue
      }
      out.push(" ".repeat(open.indent) + open.fence) // the list item it may be in ends here: close it in both readings
      open = null
    }
    // a fence (CommonMark 4.5): a backtick fence's info string holds no backtick (```` ```a` ```` is a paragraph's text)
    const f = /^( {0,3})(`{3,}(?=[^`]*$)|~{3,})/.exec(line)
    if (f !== null) {
      open = { fence: f[2], indent: f[1].length }
      out.push(line)
      continue
    }
    const item = /^((?: {0,3}(?:>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+))*?(?: {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+))(?=`{3}|~{3})/.exec(line)
    if (item !== null) line = `${item[1]}\\${line.slice(item[1].length)}`
    // inline code spans kept as they are: the text between them made inert
    out.push(codeSpanParts(line).map((part, k) =>
      k % 2 === 1 ? part : part.replace(UNSAFE_LINK, "]\\").replace(/!\[/g, "\\![").replace(html, "&lt;")
    ).join("").replace(CONTAINED_BLOCK, (_, container: string, rest: string) =>
      container + rest
        .replace(/^( {0,3})(#{1,2})(?=[ \t]|$)/, "$1\\$2")
        // a setext underline (`---`, `===` under a line: a heading as the document's own turn headers; tester25a
        // F14) and a link reference definition (`[j]: javascript:...`, which would make `[x][j]` anywhere a live link)
        .replace(/^( {0,3})(=+|-+)([ \t]*)$/, "$1\\$2$3")
        .replace(/^( {0,3})\[(?=[^\]]*\]:)/, "$1\\["))
    )
  }
  return { text: out.join("\n"), open: open === null ? null : " ".repeat(open.indent) + open.fence }
}

/**
 * A message's text (a prompt, an answer, a thinking block) as a shareable Markdown document's body carries it
 * (`show`/`transcript --format markdown`): as {@link inertMarkdown} makes it, and closed at its end so that it
 * cannot take in the document after it (session 24, tester24a F10): a code fence it opens and never closes is
 * closed by a fence of its own (the same character, as long), and any HTML outside its code ({@link ANY_HTML}: an
 * unclosed `<details open>`, `<!--`, `<b>`) is written as text (`&lt;details open>`). Pure.
 */
export const inertMessage = (text: string): string => {
  if (!/[#!<`~=[-]/.test(text)) return text
  const r = inertLines(text, ANY_HTML)
  return r.open === null ? r.text : `${r.text}\n${r.open}`
}

/**
 * A shareable Markdown document's title line (`show`/`transcript --format markdown`, MCP's `session://`
 * resources): `# ` and the title on one line ({@link oneLineField}), made inert as the document's message text is
 * ({@link inertMessage}: no HTML at all, written as text (`&lt;div onmouseover=…`), no image, no unsafe link, no
 * heading of its own), so that a renderer that passes HTML through runs nothing from a session's first prompt
 * (tester23b F6; session 28, tester28a F5: a tag with an event handler or a `javascript:` href was kept). Pure.
 */
export const markdownTitle = (title: string): string => `# ${markdownField(title)}`

/**
 * A value of a shareable Markdown document's header list (`- model: …`, `- workspace: …`, `- machine: …`): on one line
 * ({@link oneLineField}) and inert as {@link markdownTitle} makes the title (a model name or a workspace is text a
 * session's source wrote). Pure.
 */
export const markdownField = (value: string): string => {
  const s = oneLineField(value)
  return /[#!<]|\]\(/.test(s) ? inertLines(s, ANY_HTML).text : s
}

const blockMarkdown = (b: TranscriptBlock): string => {
  switch (b.type) {
    case "text":
      return inertMessage(b.text)
    case "thinking":
      return `<details><summary>thinking</summary>\n\n${inertMessage(b.text)}\n\n</details>`
    case "tool_use": {
      const head = `**tool** ${markdownCode(b.name)}${b.isError === true ? " (error)" : ""}`
      const input = fence(JSON.stringify(b.input, null, 2))
      const result = b.result !== undefined ? `\n\nresult:\n\n${fence(b.result)}` : ""
      return `${head}\n\n${input}${result}`
    }
  }
}

/** Event kinds whose text is code or a program's output (a tool call's input, a tool's result): fenced, never rendered. */
const CODE_KINDS: ReadonlySet<string> = new Set(["tool-call", "tool-result"])

/**
 * One event as a shareable Markdown document of events carries it (MCP's `session://` resources, F3 of tester27a):
 * a level-2 heading `` ## `[<eventId>]` <occurredAt | -> <role | -> <kind>[ `<toolName>`][ (error)] `` (ids and the tool
 * name as {@link markdownCode} writes them, the rest as {@link markdownField}: one line, inert), a blank line, and the
 * event's text, when it has one: a tool call's or a tool result's in a code fence longer than any inside it, any
 * other as {@link inertMessage} makes a message (no heading of level 1 or 2, so no text passes for another event's
 * entry; no HTML, image or unsafe link). Ends with a blank line. Pure.
 */
export const eventMarkdown = (e: SessionEvent): string => {
  // the heading's values (a source's) with their controls written visibly (tester39 F6); the text as it is
  const head = `## ${markdownCode(visibleControls(`[${e.eventId}]`))} ${markdownField(visibleControls(`${e.occurredAt ?? "-"} ${e.role ?? "-"} ${e.kind}`))}${
    e.toolName !== null ? ` ${markdownCode(visibleControls(e.toolName))}` : ""
  }${e.isError === true ? " (error)" : ""}`
  if (e.text === null || e.text === "") return `${head}\n\n`
  return `${head}\n\n${CODE_KINDS.has(e.kind) ? fence(e.text) : inertMessage(e.text)}\n\n`
}

/** Markdown: a heading per turn (role and time), blocks below it; compactions, parse warnings and diagnostics at the end. Times as {@link humanTime} shows them. */
export const renderTranscriptMarkdown = (t: Transcript, style: TimeStyle = {}): string => [...transcriptMarkdownParts(t, style)].join("")

/** Turns of a transcript written per part by {@link transcriptMarkdownParts}. */
const TURNS_PER_PART = 200

/**
 * {@link renderTranscriptMarkdown} a part at a time ({@link TURNS_PER_PART}
 * turns per part): the parts joined are its text, byte for byte (each part
 * but the last ends with the newline between two lines). For a writer that
 * yields between parts (an interruption lands between two) and never holds
 * the whole text.
 */
export function* transcriptMarkdownParts(t: Transcript, style: TimeStyle = {}): Generator<string> {
  // a time a source wrote that is no time is shown as written: one line, inert
  const time = (v: string) => markdownField(humanTime(v, style))
  let out: Array<string> = [markdownTitle(t.title ?? t.sessionId), ""]
  out.push(`- session: ${markdownCode(t.sessionId)}`)
  if (t.model !== null) out.push(`- model: ${markdownField(t.model)}`)
  if (t.startedAt !== null) out.push(`- started: ${time(t.startedAt)}`)
  if (t.endedAt !== null) out.push(`- ended: ${time(t.endedAt)}`)
  out.push("")
  for (let i = 0; i < t.turns.length; i++) {
    if (i > 0 && i % TURNS_PER_PART === 0) {
      yield visibleControls(out.join("\n") + "\n")
      out = []
    }
    const turn = t.turns[i]
    out.push(`## ${turn.role}${turn.timestamp !== null ? ` · ${time(turn.timestamp)}` : ""}`, "")
    for (const b of turn.blocks) out.push(blockMarkdown(b), "")
  }
  if (t.compactions.length > 0) {
    out.push("## compactions", "", ...t.compactions.map((c) => `- ${markdownCode(c.id)} (${c.trigger !== null ? markdownField(c.trigger) : "?"}) ${c.timestamp !== null ? time(c.timestamp) : ""}`), "")
  }
  if (t.parseWarnings.length > 0) {
    out.push("## parse warnings", "", ...t.parseWarnings.map((w) => `- ${w.kind}: ${w.count} (first at line ${w.firstLine ?? "?"})`), "")
  }
  if (t.diagnostics.length > 0) {
    out.push("## diagnostics", "", ...t.diagnostics.map((d) => `- ${d.kind}: ${d.count}${d.firstLine !== null ? ` (first at line ${d.firstLine})` : ""}`), "")
  }
  yield visibleControls(out.join("\n"))
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s)

/**
 * A transcript's diagnostic (what reading its source counted besides the lines skipped: `TranscriptDiagnostic`,
 * src/domain/model.ts) as `transcript` and `discover` print it: `note: <kind> × <count>` and the first line when known.
 */
export const diagnosticNote = (d: { readonly kind: string; readonly count: number; readonly firstLine: number | null }): string =>
  `note: ${d.kind} × ${d.count}${d.firstLine !== null ? ` (first at line ${d.firstLine})` : ""}`

/** Plain text: one paragraph per turn, tool calls on one line each. Times as {@link humanTime} shows them. */
export const renderTranscriptText = (t: Transcript, style: TimeStyle = {}): string => {
  const out: Array<string> = [`${oneLineField(t.title ?? t.sessionId)}  [${oneLineField(t.sessionId)}]`]
  for (const turn of t.turns) {
    out.push("", `${turn.role}${turn.timestamp !== null ? ` @ ${humanTime(turn.timestamp, style)}` : ""}:`)
    for (const b of turn.blocks) {
      if (b.type === "text") out.push(`  ${b.text.replace(/\n/g, "\n  ")}`)
      else if (b.type === "thinking") out.push(`  (thinking) ${clip(b.text.replace(/\s+/g, " "), 200)}`)
      else {
        out.push(`  [${oneLineField(b.name)}] ${clip(JSON.stringify(b.input), 200)}${b.isError === true ? "  ✗ error" : ""}`)
        if (b.result !== undefined) out.push(`    → ${clip(b.result.replace(/\s+/g, " "), 200)}`)
      }
    }
  }
  if (t.compactions.length > 0) out.push("", `compactions: ${t.compactions.length}`)
  for (const w of t.parseWarnings) out.push(`warning: ${w.kind} × ${w.count} (first at line ${w.firstLine ?? "?"})`)
  for (const d of t.diagnostics) out.push(diagnosticNote(d))
  return visibleControls(out.join("\n") + "\n")
}

/**
 * A count with its noun, singular for exactly one: `counted(1, "event")` is
 * `1 event`, `counted(3, "event")` `3 events`, `counted(0, "tool call")`
 * `0 tool calls`; `plural` for a noun not made with an `s`
 * (`counted(2, "subagent trajectory", "subagent trajectories")`). For human
 * output; JSON carries the numbers.
 */
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`

/** A token count for people: digits grouped by thousands (`45,781`). */
export const humanTokens = (n: number): string => n.toLocaleString("en-US")

/**
 * US dollars for people: `$0.0230` (4 decimals; 2 from $100; below a cent up
 * to 6 decimals, trailing zeros dropped down to 4, so $0.00105 is not shown
 * as $0.0010); `?` (unknown) for a value that is not a finite number.
 */
export const humanUsd = (x: number): string => {
  if (!Number.isFinite(x)) return "?"
  if (x >= 100) return `$${fixedHalfUp(x, 2)}`
  if (x <= 0 || x >= 0.01) return `$${fixedHalfUp(x, 4)}`
  return `$${fixedHalfUp(x, 6).replace(/(\.\d{4}\d*?)0+$/, "$1")}`
}

/** Decimals a cost is first rounded to by {@link fixedHalfUp}. */
const COST_DECIMALS = 9

/**
 * `x` with `decimals` (0-9) digits after the point, rounded half up (away
 * from zero) on its decimal value: `181.575` gives `181.58` where
 * `toFixed(2)` gives `181.57` (the double nearest 181.575 is
 * 181.57499999999998863…). A cost is a sum of token counts times prices in
 * binary doubles: its error is far below 1e-9 of a dollar, so `x` is first
 * rounded to 9 decimals (`toFixed(9)`: the exact decimal of the double,
 * rounded there), then that decimal is rounded to `decimals` in integers
 * (BigInt), never in doubles. `|x|` of 1e21 or more: `toFixed` as it is.
 */
export const fixedHalfUp = (x: number, decimals: number): string => {
  if (!(Math.abs(x) < 1e21)) return x.toFixed(decimals)
  const scaled = BigInt(Math.abs(x).toFixed(COST_DECIMALS).replace(".", ""))
  const unit = 10n ** BigInt(COST_DECIMALS - decimals)
  const digits = ((scaled + unit / 2n) / unit).toString().padStart(decimals + 1, "0")
  const sign = x < 0 && /[1-9]/.test(digits) ? "-" : ""
  return decimals === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

/**
 * One line of a session's usage for people, or null when its source reports
 * none: `tokens: 13 in, 413 out, 81,818 cache read, 10,035 cache write ·
 * cost $0.1140` (a count not reported is left out; the cost says "unknown"
 * when a model of it has no price, or when the sum overflows; a count whose
 * sum is past 2^53 - 1 is `? in` and said so). Responses that count in
 * another session (`countedElsewhere`: copies of them, counted there by the
 * rule of docs/usage-and-cost.md "Copies of a response") are named after it,
 * or alone when none counts here: `tokens: 2 responses counted in session
 * <id> (the same responses, counted once, there)`, never nothing. `own`: the
 * session's own provider and id ({@link countedElsewhereText}).
 */
export const usageLine = (u: {
  readonly inputTokens: number | null
  readonly outputTokens: number | null
  readonly cacheReadTokens: number | null
  readonly cacheWriteTokens: number | null
  readonly costUsd: number | null
  readonly notExact?: ReadonlyArray<"inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">
  readonly countedElsewhere?: ReadonlyArray<{ readonly sessionId: string; readonly sessionUid: string; readonly responses: number }>
} & CostCaveats, own?: OwnSession): string | null => {
  const notExact = u.notExact ?? []
  const elsewhere = u.countedElsewhere ?? []
  const there = countedElsewhereNote(elsewhere, own)
  const parts = ([[u.inputTokens, "in", "inputTokens"], [u.outputTokens, "out", "outputTokens"], [u.cacheReadTokens, "cache read", "cacheReadTokens"], [
    u.cacheWriteTokens,
    "cache write",
    "cacheWriteTokens"
  ]] as const)
    .flatMap(([n, what, name]) => (n !== null ? [`${humanTokens(n)} ${what}`] : notExact.includes(name) ? [`? ${what}`] : []))
  if (parts.length === 0 && u.costUsd === null) return there === "" ? null : `tokens: ${there}`
  if (notExact.length > 0) parts.push(`? = ${notExactText(notExact)}`)
  // What the cost leaves out or sets aside, named as `usage` names it (session 28).
  const caveats = costNoteLines(u)
  const known = costUnknownSaid(u)
  return `tokens: ${parts.length > 0 ? parts.join(", ") : "not reported"} · cost ${costText(u.costUsd, known)}${there === "" ? "" : ` · and ${there}`}${caveats.map((c) => ` · note: ${c}`).join("")}`
}

/**
 * A session's cost for people ({@link usageLine}, the replay's header): {@link humanUsd} of `costUsd`; when null,
 * `unknown`, with the reasons it can have when no {@link costNotes} sentence (`said`: some is given) names it.
 */
export const costText = (costUsd: number | null, said: boolean): string =>
  costUsd !== null
    ? humanUsd(costUsd)
    : said
    ? "unknown"
    : "unknown (a model without a price, a prompt over 200k tokens without a long-context price, a fast-mode response without a fast-mode price, or a sum too large to be a cost)"

/** Whether {@link costNoteLines} of `c` names why its cost is unknown (a model without a price or a long-context price). */
export const costUnknownSaid = (c: CostCaveats): boolean =>
  (c.unpriced?.length ?? 0) + (c.longContextUnpriced?.length ?? 0) + (c.fastUnpriced?.length ?? 0) > 0

/**
 * Where a session's copies of responses count, with the remark that they are counted once there (`show`'s usage line
 * after `and`, the replay's header): {@link countedElsewhereText} with `(the same responses, counted once, there)`,
 * folded into its own parenthesis when it ends with one; empty for none.
 */
export const countedElsewhereNote = (
  elsewhere: ReadonlyArray<{ readonly provider?: string | undefined; readonly sessionId: string; readonly sessionUid: string; readonly responses: number }>,
  own?: OwnSession
): string => {
  const text = elsewhere.length === 0 ? "" : countedElsewhereText(elsewhere, own)
  // One parenthesis: a text that ends with one (what the session is) takes the remark in it.
  return text === "" ? "" : text.endsWith(")") ? `${text.slice(0, -1)}; the same responses, counted once, there)` : `${text} (the same responses, counted once, there)`
}

/**
 * What a cost leaves out or sets aside, as one sentence each (docs/usage-and-cost.md): a model without a price
 * (`model` null: tokens but no model), a model without long-context rates for a prompt over 200k tokens, and AgentMux
 * runs whose stated total is set aside because some of their responses count in Claude Code's own log. The same
 * sentences wherever a cost is shown: `usage`'s `note:` lines, `show`'s usage line, an ATIF export's `notes`.
 * `name`: how a model's name is written (default {@link shownName}).
 */
/**
 * What the cost notes' remedies add to "add … to its price under "prices" in the config file": a configured price
 * replaces the bundled one whole, so a user who adds one rate must copy the others (tester37 F6: following the note,
 * a user lost the bundled fast rates). docs/usage-and-cost.md says the same.
 */
export const WHOLE_PRICE_ENTRY = `(a price there replaces the bundled one whole: copy its other rates into it, "fast" and "longContext" included)`

export const costNotes = {
  /** `responses` of `model` (null: no model) without a price: tokens without a cost. */
  unpriced: (model: string | null, responses: number, name: (m: string) => string = shownName): string =>
    model === null
      ? `(no model): ${responses} response${responses === 1 ? "" : "s"} with tokens but no model and no stated cost: tokens without a cost (no price applies without a model).`
      : `${name(model)}: ${responses} response${responses === 1 ? "" : "s"} without a price (not in the price table): tokens without a cost; add it under "prices" in the config file.`,
  /** `responses` of `model` with a prompt over 200k tokens and no long-context price: cost unknown. */
  longContext: (model: string | null, responses: number, name: (m: string) => string = shownName): string =>
    `${model === null ? "(no model)" : name(model)}: ${responses} response${
      responses === 1 ? "" : "s"
    } with a prompt over 200k tokens (input + cache read + cache write) and no long-context price in the price table: cost unknown, not priced at the standard rates; add "longContext" to its price under "prices" in the config file ${WHOLE_PRICE_ENTRY}.`,
  /** `responses` of `model` that ran in fast mode (usage `speed: "fast"`) and no fast-mode price: cost unknown. */
  fast: (model: string | null, responses: number, name: (m: string) => string = shownName): string =>
    `${model === null ? "(no model)" : name(model)}: ${responses} response${
      responses === 1 ? "" : "s"
    } in fast mode (usage speed "fast") and no fast-mode price in the price table: cost unknown, not priced at the standard rates; add "fast" to its price under "prices" in the config file ${WHOLE_PRICE_ENTRY}.`,
  /** `runs` AgentMux runs whose stated total is set aside. */
  setAside: (runs: number): string =>
    `${humanTokens(runs)} AgentMux run${
      runs === 1 ? "" : "s"
    } with responses also in Claude Code's own log: the run's stated total_cost_usd overlaps them, so it is not used; those responses count in the Claude Code session and the run's others are priced from the table.`
}

/** What a usage summary's cost leaves out or sets aside (the fields of `UsageSummary` that say it). */
export interface CostCaveats {
  readonly unpriced?: ReadonlyArray<{ readonly model: string | null; readonly responses: number }>
  readonly longContextUnpriced?: ReadonlyArray<{ readonly model: string | null; readonly responses: number }> | undefined
  readonly fastUnpriced?: ReadonlyArray<{ readonly model: string | null; readonly responses: number }> | undefined
  readonly runsSetAside?: number | undefined
}

/** The {@link costNotes} sentences of `c`, in the order `usage` gives its notes (none when it has none). */
export const costNoteLines = (c: CostCaveats, name: (m: string) => string = shownName): Array<string> => [
  ...(c.unpriced ?? []).map((u) => costNotes.unpriced(u.model, u.responses, name)),
  ...(c.longContextUnpriced ?? []).map((u) => costNotes.longContext(u.model, u.responses, name)),
  ...(c.fastUnpriced ?? []).map((u) => costNotes.fast(u.model, u.responses, name)),
  ...((c.runsSetAside ?? 0) > 0 ? [costNotes.setAside(c.runsSetAside!)] : [])
]

/** The session whose copies {@link countedElsewhereText} names: its provider and native session id. */
export interface OwnSession {
  readonly provider: string
  readonly sessionId: string
}

/**
 * Where a session's copies of responses count, for people (`show`'s usage
 * line, the `sessions` note), as the index decides it (docs/usage-and-cost.md
 * "Copies of a response"; `firstSeenUsage` in `src/layers/index/rows.ts`):
 * - an AgentMux session's copies of a Claude Code run count in the Claude
 *   Code session, whatever was recorded first: `2 responses counted in the
 *   Claude Code session <id> (Claude Code's own record of this run)`;
 * - two AgentMux copies of one run (two stores): `… in the AgentMux session
 *   <id> (another AgentMux copy of this run: ses_…)`;
 * - two copies of one Claude Code log (the same native id): `… in session
 *   <id> (another copy of the same log: ses_…)`, the uid telling them apart;
 * - else (a resumed or forked log: the session that began first):
 *   `2 responses counted in session <id>`.
 * `own`: the session that holds the copies (absent: the last form for all).
 */
export const countedElsewhereText = (
  elsewhere: ReadonlyArray<{ readonly provider?: string | undefined; readonly sessionId: string; readonly sessionUid: string; readonly responses: number }>,
  own?: OwnSession
): string =>
  elsewhere.map((e) => {
    const n = `${e.responses} response${e.responses === 1 ? "" : "s"} counted in`
    const id = oneLineField(e.sessionId)
    if (own?.provider === "agentmux" && e.provider === "claude-code") return `${n} the Claude Code session ${id} (Claude Code's own record of this run)`
    if (own?.provider === "agentmux" && e.provider === "agentmux") return `${n} the AgentMux session ${id} (another AgentMux copy of this run: ${e.sessionUid})`
    return `${n} session ${id}${e.sessionId === own?.sessionId ? ` (another copy of the same log: ${e.sessionUid})` : ""}`
  }).join(", ")

/** What people read for counts past 2^53 - 1 (the `usage` note, the `sessions` note, `show`'s usage line). */
export const notExactText = (names: ReadonlyArray<"inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">): string =>
  `${names.map((n) => ({ inputTokens: "input", outputTokens: "output", cacheReadTokens: "cache read", cacheWriteTokens: "cache write" })[n]).join(", ")} tokens past 2^53 - 1 in all: not counted exactly, so not shown (unknown)`

/** How many characters a name takes at most in a table's first column (`usage`): longer ones end with `…`. */
export const NAME_CELL_MAX = 40

/** A name that reads as it is: no whitespace at either end, none but single spaces inside, no zero-width character, not empty. */
const PLAIN_NAME = /^[^\s\u200b-\u200d\u2060]+(?: [^\s\u200b-\u200d\u2060]+)*$/
/** What a quoted name writes as `\uHHHH`: whitespace but the space, and zero-width characters. */
const UNSEEN = /[^\S ]|[\u200b-\u200d\u2060]/g

/**
 * The places a quoted name (`JSON.stringify`'s, with {@link visibleControls}'s escapes) can be cut without splitting
 * an escape (`\n`, `\"`, `\uHHHH`, `\xHH`) or a surrogate pair: the index of each of its characters as read, from
 * the first after the opening quote, in order.
 */
const escapeEdges = (quoted: string): Array<number> => {
  const edges: Array<number> = []
  for (let i = 1; i < quoted.length;) {
    edges.push(i)
    const c = quoted.charCodeAt(i)
    if (quoted[i] === "\\") i += quoted[i + 1] === "u" ? 6 : quoted[i + 1] === "x" ? 4 : 2
    else i += c >= 0xd800 && c <= 0xdbff ? 2 : 1
  }
  return edges
}

/** A redaction marker as a redacted value holds it (`[REDACTED:rule]`). */
const MARKER = /\[REDACTED:[^\]\s]*\]/g

/**
 * `at`, a place to cut `shown`, moved out of the redaction marker it falls inside (tester39 F11: half a marker,
 * `…CTED:github-token]`, read as content): to the marker's end when the cut keeps what follows (`"forward"`), to its
 * start when it keeps what comes before (`"back"`); `at` itself when it is at no marker's inside.
 */
const outsideMarker = (shown: string, at: number, keep: "forward" | "back"): number => {
  if (!shown.includes("[REDACTED:")) return at
  for (const m of shown.matchAll(MARKER)) {
    const start = m.index!
    const end = start + m[0].length
    if (start < at && at < end) return keep === "forward" ? end : start
    if (start >= at) break
  }
  return at
}

/**
 * A name (a model, provider, session id or workspace, as a source wrote it)
 * as a table cell or a note shows it to people:
 * - quoted as JSON writes it when it is empty, starts or ends with
 *   whitespace, or holds whitespace other than single spaces, or a zero-width character
 *   (`"m "`, so a model named with a trailing space is not mistaken for the
 *   real one); such a character (but U+0020) is then written `\uHHHH`;
 * - its control characters shown visibly ({@link visibleControls});
 * - at most `max` UTF-16 code units: a longer one is cut, never inside a
 *   surrogate pair, and marked `…` at its end, or, with `keep: "end"` (a
 *   folder, whose end says most), at its start; a quoted one stays quoted,
 *   `"head…` or `"…tail"`, cut between its escapes (tester32a F5); never
 *   inside a redaction marker, which is kept whole or left out (tester39 F11).
 * JSON output carries the name whole, as written.
 */
export const shownName = (name: string, max = NAME_CELL_MAX, keep: "start" | "end" = "start"): string => {
  const plain = PLAIN_NAME.test(name)
  const shown = visibleControls(
    plain
      ? name
      : JSON.stringify(name).replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  )
  if (shown.length <= max) return shown
  // A quoted name stays quoted when clipped (tester32a F5: a `cwd` cut to its end lost its opening quote, and its
  // chosen tail read as the table's numbers): `"…tail"` or `"head…`, cut between escapes, never inside one.
  if (!plain) {
    const edges = escapeEdges(shown)
    if (keep === "end") {
      const from = edges.find((i) => i >= shown.length - (max - 2)) ?? shown.length - 1
      return "\"…" + shown.slice(outsideMarker(shown, from, "forward"))
    }
    let to = 1
    for (const i of edges) if (i <= max - 1) to = i
    return shown.slice(0, Math.max(1, outsideMarker(shown, to, "back"))) + "…"
  }
  if (keep === "end") {
    let from = shown.length - (max - 1)
    const c = shown.charCodeAt(from)
    if (c >= 0xdc00 && c <= 0xdfff) from++
    return "…" + shown.slice(outsideMarker(shown, from, "forward"))
  }
  let to = max - 1
  const c = shown.charCodeAt(to - 1)
  if (c >= 0xd800 && c <= 0xdbff) to--
  return shown.slice(0, outsideMarker(shown, to, "back")) + "…"
}
