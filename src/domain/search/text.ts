/**
 * What search reads of an event (issue 14), and the snippet of a hit. Pure.
 *
 * @module
 */
import type { SessionEvent } from "../model.js"
import { findMatches, ftsFold, lexemeOf, type QueryNode, quoteLexeme, searchWords } from "./query.js"

/**
 * Characters of one searchable field kept for the index: a tool output of
 * megabytes is searched in its first 256 Ki characters.
 */
export const MAX_FIELD_CHARS = 256 * 1024

/** The two searched fields of an event. */
export interface SearchableText {
  /**
   * `text`: the message, thinking, tool result, runtime fact summary or
   * compaction summary the event carries (its `text`).
   */
  readonly text: string
  /** `input`: the tool's name and every string leaf of the typed `toolInput` (commands, file paths, edit strings), one a line. */
  readonly input: string
}

/** Every string leaf of a JSON value, depth first, in key order. */
const stringLeaves = (v: unknown, out: Array<string>, depth = 0): void => {
  if (typeof v === "string") out.push(v)
  else if (depth > 64 || v === null || typeof v !== "object") return
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out, depth + 1)
  else for (const x of Object.values(v as Record<string, unknown>)) stringLeaves(x, out, depth + 1)
}

/**
 * Terminal escape sequences: CSI (`ESC [ … final` or its C1 form `U+009B
 * …`), read as a space (a coloured tool output's `ESC[31merror` would
 * otherwise be the word `31merror`), and the introducer of an OSC (`ESC ]`),
 * read as a space too: the OSC's text stays searchable (`ESC]0;title BEL`
 * sets a terminal's window title; `ESC]8;;URL ESC\` a hyperlink), its
 * terminator (BEL, `ESC \\`) a control character like the others.
 */
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\]/g

const cap = (s: string) => {
  const t = s.length > MAX_FIELD_CHARS ? s.slice(0, MAX_FIELD_CHARS) : s
  return t.includes("\u001b") || t.includes("\u009b") ? t.replace(ESCAPES, " ") : t
}

/**
 * A searched field as SQLite's FTS5 is given it: {@link ftsFold}, the words
 * {@link searchWords} (PostgreSQL's words, snippets) makes of it, folded the
 * same way (case and accents in every script); control and format characters
 * (bidi isolates, zero-width spaces, BOM, C0 and C1 controls) separate words.
 * Pure ASCII text is given as it is. The text a snippet is cut from keeps
 * them (they are shown visibly).
 */
export const ftsText = (s: string): string => ftsFold(s)

/**
 * The searchable text of an event, from its typed fields only (contract
 * 1.1.0: `text`, `toolName`, `toolInput`; never a provider's `extensions`),
 * each field cut at {@link MAX_FIELD_CHARS}, terminal escape sequences
 * (colours of a tool's output) and an OSC's introducer read as spaces (the
 * OSC's text stays). SQLite's FTS5 is given {@link ftsText} of each field.
 */
export const searchableText = (e: SessionEvent): SearchableText => {
  const leaves: Array<string> = []
  if (e.toolName !== null) leaves.push(e.toolName)
  stringLeaves(e.toolInput, leaves)
  return { text: cap(e.text ?? ""), input: cap(leaves.join("\n")) }
}

/** A snippet of a hit: a window of one field's text, and where the query's words are in it. */
export interface Snippet {
  /** Which field it is from: the event's `text`, its tool `input`, or the session's `title`. */
  readonly field: "text" | "input" | "title"
  /** The window, white space runs shown as one space; `…` where it was cut. */
  readonly text: string
  /**
   * [start, end) offsets of the matches in `text`, in UTF-16 code units (as
   * JavaScript indexes a string: a character past U+FFFF, an emoji, counts
   * 2), not code points: `search --json`'s `marks` (docs/search.md, "Hits").
   */
  readonly marks: ReadonlyArray<readonly [number, number]>
}

/**
 * The snippet of a hit: the first field (in the order given) where the
 * query's words occur, a window of about `width` characters around the first
 * match, with every match in it marked. When no word is found (the index
 * matched what this finder does not see) the start of the first non-empty
 * field, unmarked.
 */
export const snippetOf = (
  tree: QueryNode,
  fields: ReadonlyArray<{ readonly field: Snippet["field"]; readonly text: string }>,
  width = 160
): Snippet => {
  for (const f of fields) {
    const flat = f.text.replace(/\s+/g, " ")
    const spans = findMatches(tree, flat)
    if (spans.length === 0) continue
    const [s0] = spans[0]
    let start = Math.max(0, s0 - Math.floor(width / 3))
    let end = Math.min(flat.length, start + width)
    start = Math.max(0, Math.min(start, end - width))
    // Do not cut words at the window's edges.
    while (start > 0 && start < s0 && /\S/.test(flat[start - 1])) start++
    while (end < flat.length && end > spans[0][1] && /\S/.test(flat[end])) end--
    const head = start > 0 ? "…" : ""
    const tail = end < flat.length ? "…" : ""
    const marks = spans
      .filter(([a, b]) => a >= start && b <= end)
      .map(([a, b]) => [a - start + head.length, b - start + head.length] as const)
    return { field: f.field, text: head + flat.slice(start, end) + tail, marks }
  }
  const first = fields.find((f) => f.text.trim().length > 0) ?? fields[0] ?? { field: "text" as const, text: "" }
  const flat = first.text.replace(/\s+/g, " ").trim()
  return { field: first.field, text: flat.length > width ? flat.slice(0, width) + "…" : flat, marks: [] }
}

/** Highest word position a PostgreSQL `tsvector` holds: later words are all at it (found, but not as phrases). */
export const MAX_TS_POSITION = 16383
/** Positions PostgreSQL keeps per lexeme. */
const MAX_TS_POSITIONS = 256
/** Bytes of lexemes and positions a document's `tsvector` holds at most (PostgreSQL's limit is 1 MiB): words past it are not indexed. */
const MAX_TS_BYTES = 900 * 1024

/**
 * The PostgreSQL `tsvector` input of a search document: the words of each
 * field ({@link searchWords}, the words FTS5 makes of them, each a
 * {@link lexemeOf}) with their positions, counted across the fields with a
 * gap between two fields (a phrase never spans them); positions past
 * {@link MAX_TS_POSITION} are that one, 256 kept per word, and a document's
 * distinct words are kept up to about 900 KiB. Bound as a parameter and cast
 * (`::tsvector`), never parsed again by PostgreSQL's text search parser.
 */
export const tsvectorOf = (fields: ReadonlyArray<string>): string => {
  const positions = new Map<string, Array<number>>()
  let pos = 0
  let bytes = 0
  for (const field of fields) {
    if (pos > 0) pos++
    for (const { w } of searchWords(field)) {
      pos = Math.min(pos + 1, MAX_TS_POSITION)
      const lexeme = lexemeOf(w)
      if (lexeme.length === 0) continue
      let at = positions.get(lexeme)
      if (at === undefined) {
        const size = lexeme.length * 3 + 8 // at least its UTF-8 bytes, plus its entry
        if (bytes + size > MAX_TS_BYTES) continue
        bytes += size
        positions.set(lexeme, at = [])
      }
      if (at.length < MAX_TS_POSITIONS && at[at.length - 1] !== pos) {
        at.push(pos)
        bytes += 2
      }
    }
  }
  const out: Array<string> = []
  for (const [lexeme, at] of positions) out.push(`${quoteLexeme(lexeme)}:${at.join(",")}`)
  return out.join(" ")
}
