/**
 * A session's transcript as text read a page at a time, each page within a
 * character budget (the MCP server's `get_session`, issue 16). Pure.
 *
 * The transcript text is one entry per event, in source order, each headed
 * by its event id so a passage can be cited and looked up again
 * (`get_events` around that id):
 *
 * ```
 * [<eventId>] <occurredAt | -> <role | -> <kind>[ <toolName>][ (error)]
 * <text, when the event has one>
 * <blank line>
 * ```
 *
 * Pages are consecutive slices of that text: concatenated they are the text.
 * A page ends at the last entry boundary within the budget, or mid-entry
 * (at the edge of a grapheme: never inside an emoji, a surrogate pair or a
 * letter with its combining marks) when one entry alone is longer than the
 * budget; never inside a redaction marker (`[REDACTED:<rule>]`): before it,
 * or after it when it starts the page and alone is longer than the budget.
 * Offsets and lengths are UTF-16 code units (JavaScript string
 * indices), as `fromChar`, `toChar` and `totalChars` of `get_session` are.
 * A page cursor names where the next page starts and is bound to the session
 * (uid, generation) and to a digest of the whole text, so a cursor of
 * another session, or of a transcript that changed since, is refused with `INVALID_CURSOR`
 * saying which ({@link decodePageCursor}).
 *
 * @module
 */
import * as Either from "effect/Either"
import { peekCursor, shownCursorForm } from "./cursor.js"
import { InvalidCursor } from "./errors.js"
import type { SessionEvent } from "./model.js"
import { oneLineField } from "./render.js"
import { SESSION_UID_PREFIX } from "./index/ids.js"
import { SHOWN_SESSION_PREFIX } from "./shown-ids.js"
import { sha256Hex } from "./source-id.js"

/** The transcript text of a session and where each event's entry starts in it (UTF-16 code units). */
export interface TranscriptText {
  readonly text: string
  /** `starts[i]`: offset of event `i`'s entry; ascending. */
  readonly starts: ReadonlyArray<number>
  /** The event ids, in the same order as `starts`. */
  readonly eventIds: ReadonlyArray<string>
}

/** One event's entry (see the module's doc): the header's values on one line ({@link oneLineField}). */
export const eventEntry = (e: SessionEvent): string => {
  // one line whatever the source wrote (tester27a F3): a tool name's line breaks shown as `\n`, so no value of the
  // header starts a line that passes for another event's entry
  const head = `[${oneLineField(e.eventId)}] ${oneLineField(e.occurredAt ?? "-")} ${e.role ?? "-"} ${oneLineField(e.kind)}${
    e.toolName !== null ? ` ${oneLineField(e.toolName)}` : ""
  }${
    e.isError === true ? " (error)" : ""
  }`
  return e.text !== null && e.text !== "" ? `${head}\n${e.text}\n\n` : `${head}\n\n`
}

/** The transcript text of `events` (already redacted when it is to be shared). */
export const transcriptText = (events: ReadonlyArray<SessionEvent>): TranscriptText => {
  const parts: Array<string> = []
  const starts: Array<number> = []
  let at = 0
  for (const e of events) {
    const entry = eventEntry(e)
    starts.push(at)
    parts.push(entry)
    at += entry.length
  }
  return { text: parts.join(""), starts, eventIds: events.map((e) => e.eventId) }
}

/** A page: `[from, to)` of the text, and the events whose entries it covers (a part of). */
export interface Page {
  readonly from: number
  readonly to: number
  /** Index (in `starts`) of the first and last event the page covers; -1 when the text is empty. */
  readonly firstEvent: number
  readonly lastEvent: number
}

/** Index of the last entry starting at or before `offset` (binary search); -1 when none. */
const entryAt = (starts: ReadonlyArray<number>, offset: number): number => {
  let lo = 0
  let hi = starts.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (starts[mid] <= offset) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/**
 * How far (UTF-16 code units) a cut looks around its budget for the edge of
 * a grapheme, and by how much at most a page holding one grapheme longer
 * than its budget passes that budget.
 */
export const GRAPHEME_WINDOW = 64

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** Whether offset `at` of `text` falls between the two halves of a surrogate pair. */
const splitsPair = (text: string, at: number): boolean =>
  at > 0 && at < text.length && isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))

/**
 * Where `text` may be cut near `at`, for a piece that starts at `floor` (an
 * edge itself): `before`, the last edge of a grapheme (Unicode extended
 * grapheme cluster: an emoji with its modifiers and joiners, a letter with
 * its combining marks) in `(floor, at]`, looked for at most
 * {@link GRAPHEME_WINDOW} units back, else -1; `after`, the first edge in
 * `(at, at + GRAPHEME_WINDOW]`, else -1. `0 ≤ floor < at ≤ text.length`.
 * Reads about three windows of text around `at`, whatever its length.
 */
export const graphemeEdges = (text: string, floor: number, at: number): { readonly before: number; readonly after: number } => {
  if (at >= text.length) return { before: text.length, after: -1 }
  // Segmenting starts a window earlier than the edges it answers, so an edge is not made up by starting mid-grapheme.
  const start = Math.max(floor, at - 2 * GRAPHEME_WINDOW)
  const lowest = Math.max(floor, at - GRAPHEME_WINDOW)
  const end = Math.min(text.length, at + GRAPHEME_WINDOW + 1)
  let before = -1
  let after = -1
  for (const g of SEGMENTER.segment(text.slice(start, end))) {
    const edge = start + g.index
    if (edge > lowest && edge <= at) before = edge
    else if (edge > at && edge < end) {
      after = edge
      break
    }
  }
  if (after < 0 && end === text.length) after = text.length
  return { before, after }
}

/** Whether `from` is the edge of a grapheme of `text` (its start, or where one grapheme ends and the next begins). */
const startsGrapheme = (text: string, from: number): boolean =>
  from === 0 || graphemeEdges(text, Math.max(0, from - 2 * GRAPHEME_WINDOW), from).before === from

/** How a redaction marker starts (`[REDACTED:<rule>]`, as `./redaction/rules.ts`'s `marker` writes it). */
const MARKER_OPEN = "[REDACTED:"
/** A whole redaction marker where `lastIndex` is: a rule's id is lower-case words joined by `-` (built-in and custom ids alike). */
const MARKER_AT = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]/y

/**
 * The redaction marker (`[REDACTED:<rule>]`) of `text` that a cut at `at`
 * would split (it starts before `at` and ends after it), among those that
 * start at `floor` or later: its `start` and `end` (UTF-16 code units);
 * null when a cut at `at` splits none (tester23b F12: pages ended in
 * `…ord=[REDACTED:`). Text that only begins like a marker (`[REDACTED: x`)
 * is no marker. Reads `text` from `floor` to a few units past `at`.
 */
export const markerAround = (text: string, floor: number, at: number): { readonly start: number; readonly end: number } | null => {
  if (at <= floor || at >= text.length) return null
  // the last marker opening before `at` (the opening itself may be what `at` cuts); inside a marker is no `[`
  const i = text.slice(floor, Math.min(text.length, at + MARKER_OPEN.length - 1)).lastIndexOf(MARKER_OPEN, at - 1 - floor)
  if (i < 0) return null
  const start = floor + i
  MARKER_AT.lastIndex = start
  const m = MARKER_AT.exec(text)
  return m !== null && start + m[0].length > at ? { start, end: start + m[0].length } : null
}

/**
 * The length (UTF-16 code units, at most `budget`) to which a text is
 * clipped to fit `budget`: at the edge of a grapheme (see
 * {@link graphemeEdges}), else never between the halves of a surrogate pair;
 * never inside a redaction marker (before it: {@link markerAround}); 0 when
 * not even its first character, or the marker it starts with, fits.
 */
export const clipLength = (text: string, budget: number): number => {
  if (text.length <= budget) return text.length
  if (budget <= 0) return 0
  const { before } = graphemeEdges(text, 0, budget)
  const cut = before > 0 ? before : splitsPair(text, budget) ? budget - 1 : budget
  return markerAround(text, 0, cut)?.start ?? cut
}

/**
 * The page of `t` that starts at `from`, at most `maxChars` (≥ 1) UTF-16
 * code units long: up to the last entry boundary within the budget, else up
 * to the last edge of a grapheme within it (never inside an emoji, a
 * surrogate pair or a letter with its combining marks). When the budget
 * holds no whole grapheme, the page is that first grapheme whole if it ends
 * within {@link GRAPHEME_WINDOW} units past the budget and the page starts it
 * (not inside one longer than the window, cut before), else it is cut at
 * the budget, moved one unit rather than split a surrogate pair (back, or
 * forward when back leaves the page empty). A page never ends inside a
 * redaction marker (`[REDACTED:<rule>]`, {@link markerAround}): it ends
 * before the marker, or, when the marker starts the page and is longer than
 * the budget, right after it. So a page is never empty, and passes
 * `maxChars` only to hold one grapheme, or one marker, whole. `from` must be within
 * `[0, text.length]` and, but for the first page, the end of another page.
 */
export const pageAt = (t: TranscriptText, from: number, maxChars: number): Page => {
  const limit = Math.min(t.text.length, from + maxChars)
  let to = limit
  if (limit < t.text.length) {
    const k = entryAt(t.starts, limit)
    const boundary = k >= 0 ? t.starts[k] : 0
    if (boundary > from) to = boundary
    else {
      const { after, before } = graphemeEdges(t.text, from, limit)
      if (before > from) to = before
      // the budget holds no whole grapheme: the first one whole when it ends soon enough; not the rest of one the
      // page before cut (the page starts inside it: session 28, tester28a F8, a tail of up to the window past the budget)
      else if (limit - GRAPHEME_WINDOW <= from && after > 0 && startsGrapheme(t.text, from)) to = after
      else if (splitsPair(t.text, limit)) to = limit - 1 > from ? limit - 1 : limit + 1
    }
    // Never inside a redaction marker: before it, or after it when it starts the page (alone longer than the budget).
    const m = markerAround(t.text, from, to)
    if (m !== null) to = m.start > from ? m.start : m.end
  }
  if (t.text.length === 0) return { from: 0, to: 0, firstEvent: -1, lastEvent: -1 }
  return { from, to, firstEvent: entryAt(t.starts, from), lastEvent: entryAt(t.starts, Math.max(from, to - 1)) }
}

/** What a page cursor binds: the session, its generation, the next page's offset and the text's digest. */
export interface PageCursor {
  readonly sessionUid: string
  readonly generation: number
  readonly offset: number
  readonly digest: string
}

const PREFIX = "p1."

/** A digest of a transcript text (16 hex digits of its sha256): what a page cursor is bound to. */
export const textDigest = (text: string): string => sha256Hex(text).slice(0, 16)

/** The token of a page cursor: `p1.` + base64url(JSON). */
export const encodePageCursor = (c: PageCursor): string =>
  PREFIX + Buffer.from(JSON.stringify([c.sessionUid, c.generation, c.offset, c.digest]), "utf8").toString("base64url")

const invalid = (message: string) =>
  new InvalidCursor({
    message,
    remediation: "Pass the nextCursor of the last get_session answer for this same session, or leave the cursor out to start from the first page."
  })

/** The refusal of a token that is no page cursor at all. */
const malformed = (why: string) => invalid(`The cursor token is malformed: ${why}.`)

/**
 * The fields of a page cursor token (`p1.` + base64url of its JSON), not checked against a session yet.
 * `InvalidCursor` naming what it is when it is none (session 33, as `get_events` since tester31c F5): an event's
 * cursor (a shown cursor `s1.…` or a stream cursor `c2.…`/`c1.…`, well formed by `shownCursorForm` and
 * `peekCursor` of `./cursor.ts`: `get_events` takes it) is the other kind; anything else is malformed.
 */
export const peekPageCursor = (token: string): Either.Either<PageCursor, InvalidCursor> => {
  if (!token.startsWith(PREFIX)) {
    if (shownCursorForm(token) !== null || Either.isRight(peekCursor(token))) {
      return Either.left(invalid(
        "The cursor is an event's cursor (get_events takes it: the events after that event), not a get_session page cursor (p1.…, the nextCursor of a get_session answer)."
      ))
    }
    return Either.left(malformed("it is not a get_session page cursor (p1.…, the nextCursor of a get_session answer)"))
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(token.slice(PREFIX.length), "base64url").toString("utf8"))
  } catch {
    return Either.left(malformed("its body is not a page cursor's"))
  }
  if (
    !Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[0] !== "string" || !Number.isSafeInteger(parsed[1]) ||
    !Number.isSafeInteger(parsed[2]) || parsed[2] < 0 || typeof parsed[3] !== "string"
  ) return Either.left(malformed("its body is not a page cursor's"))
  const [sessionUid, generation, offset, digest] = parsed as [string, number, number, string]
  return Either.right({ sessionUid, generation, offset, digest })
}

/** The session a page cursor is checked against, as the server answers it. */
export interface PageCursorExpected {
  /** Its uid as the answers give it: `hses_…` with redaction on, its `ses_…` uid with `--no-redact`. */
  readonly sessionUid: string
  /** Its native id, naming it in a refusal (its uid when not given). */
  readonly sessionId?: string
  readonly generation: number
  /** {@link textDigest} of its transcript text, and that text's length. */
  readonly digest: string
  readonly length: number
  /** The text itself, when at hand: an offset must then be a place a page can start ({@link pageCanStartAt}). */
  readonly text?: string
}

/**
 * Whether a page of `text` can start at `offset` (UTF-16 code units, within the text): not between the halves of a
 * surrogate pair, not inside a redaction marker ({@link markerAround}), as no page ends there ({@link pageAt}). An
 * edited page cursor's offset elsewhere would start a page with a lone surrogate or half a marker (tester39 F7).
 */
export const pageCanStartAt = (text: string, offset: number): boolean =>
  !splitsPair(text, offset) && markerAround(text, Math.max(0, offset - MARKER_LOOKBACK), offset) === null

/** How far before an offset a marker that spans it is looked for (`[REDACTED:` and a rule id: built-in ids are short). */
const MARKER_LOOKBACK = 256

/**
 * Decode a page cursor token and check it against the session it is used with (`expected`): the offset of the page
 * it names, or `InvalidCursor` saying what is wrong with it (session 33, as `get_events`' refusals since tester31c F5):
 * - not a page cursor: an event's cursor (the other kind: `get_events` takes it), else malformed ({@link peekPageCursor});
 * - a page cursor of the other kind of server: one naming its session by a `ses_…` uid (a `--no-redact` server's) on a
 *   redacting server, or by a shown `hses_…` uid on a `--no-redact` one;
 * - another session's: of this index (`holderOf` its uid is the native id of this index's session the server names
 *   so), else of this session made by another index (it names its session by that index's uid, keyed by that index's
 *   secret, and its digest is this transcript's: the same text), else of no session of this index (this index cannot verify it);
 * - this session's, whose transcript changed since: imported again (another generation), or another text in the same
 *   generation (events imported into it since, or the server redacts it with other rules);
 * - an offset past the end of the text it was made for (an edited token): malformed.
 */
export const decodePageCursor = (
  token: string,
  expected: PageCursorExpected,
  holderOf: (sessionUid: string) => string | undefined = () => undefined
): Either.Either<number, InvalidCursor> =>
  Either.flatMap(peekPageCursor(token), (c) => {
    const name = expected.sessionId ?? expected.sessionUid
    if (c.sessionUid !== expected.sessionUid) {
      const redacting = expected.sessionUid.startsWith(SHOWN_SESSION_PREFIX)
      if (redacting && c.sessionUid.startsWith(SESSION_UID_PREFIX)) {
        return Either.left(invalid(
          "With redaction on, get_session takes the page cursors its answers give (naming the session by its shown uid, hses_…), not one of a server run with --no-redact (ses_…)."
        ))
      }
      if (!redacting && c.sessionUid.startsWith(SHOWN_SESSION_PREFIX)) {
        return Either.left(invalid(
          "With redaction off (--no-redact), get_session takes the page cursors its answers give (naming the session by its ses_… uid), not a redacting server's (hses_…)."
        ))
      }
      const holder = holderOf(c.sessionUid)
      if (holder !== undefined) {
        return Either.left(invalid(`The page cursor belongs to another session of this index, ${holder} (${c.sessionUid}), not session ${name}.`))
      }
      if (c.digest === expected.digest) {
        return Either.left(invalid(
          `The page cursor is of a transcript the same as session ${name}'s, but another index made it (it names its session by that index's uid, keyed by that index's secret), so this index cannot verify it.`
        ))
      }
      return Either.left(invalid(
        "The page cursor was not made by this index: its session uid names none of this index's sessions (a cursor of another index, whose secret keys the uids otherwise), so this index cannot verify it."
      ))
    }
    if (c.generation !== expected.generation) {
      return Either.left(invalid(
        `The transcript of session ${name} changed since this cursor was given: it was imported again (the cursor is of generation ${c.generation}, the index holds generation ${expected.generation}).`
      ))
    }
    if (c.digest !== expected.digest) {
      return Either.left(invalid(
        `The transcript of session ${name} changed since this cursor was given: events were imported into it since, or the server redacts it with other rules (the same generation, another text).`
      ))
    }
    if (c.offset > expected.length) {
      return Either.left(malformed(`its offset (${c.offset}) lies past the end of session ${name}'s transcript (${expected.length} characters)`))
    }
    if (expected.text !== undefined && !pageCanStartAt(expected.text, c.offset)) {
      return Either.left(malformed(`its offset (${c.offset}) is no place a page of session ${name}'s transcript starts (inside a character or a redaction marker)`))
    }
    return Either.right(c.offset)
  })
