/**
 * Redaction of display strings cut short (tester17 F1): a title is a prompt
 * cut to {@link TITLE_MAX_CHARS} characters, the last one `\u2026`, when
 * it is read (`titleOf`), and the index stores it so; an event's `text` may
 * be cut to {@link EVENT_TEXT_MAX} the same way (a tool call's input as
 * one-line JSON). The text rules cannot
 * see a secret the cut went through (`ghp_` and 35 of its 36 characters, an
 * email's `bob.s`): they need it whole. So a cut string is redacted without
 * its ellipsis, and then what the cut may have left of a secret at its end
 * (the last word, back to white space, a quote, a bracket or one of
 * `, ; = | < > ( )`) goes too, unless the redacted text ends with a marker
 * (the secret there went whole). No cut ever falls inside a marker: the
 * string is never cut again after its redaction. Pure.
 *
 * @module
 */

/** The character a cut string ends with. */
export const ELLIPSIS = "\u2026"

/** Longest `title`, in UTF-16 code units (longer ones end in {@link ELLIPSIS}, cut on a grapheme's edge): the cut of `titleOf`. */
export const TITLE_MAX_CHARS = 80

/**
 * Longest `text` of an event where a provider cuts it (a tool call's input as one-line JSON: Claude Code's and
 * Muse agents' `TOOL_INPUT_TEXT_MAX`; Muse Code's and AgentMux's one-line texts), in UTF-16 code units; a cut
 * one ends in {@link ELLIPSIS}.
 */
export const EVENT_TEXT_MAX = 1000

/**
 * How many UTF-16 code units at most a cut ({@link clipText}) gives up to end on the edge of a grapheme: a cut whose
 * grapheme edge lies further back (a grapheme longer than this: a long ZWJ emoji sequence, a letter under many
 * combining marks) is made at the budget instead, never between the halves of a surrogate pair. So a cut string is
 * `max - CLIP_SLACK` to `max` units long ({@link isClipped}).
 */
export const CLIP_SLACK = 16

let graphemes: Intl.Segmenter | undefined

/**
 * Where `s` (longer than `budget`) is cut to keep at most `budget` UTF-16 code units: the last edge of a grapheme
 * (Unicode extended grapheme cluster, `Intl.Segmenter`: an emoji with its modifiers and joiners, a letter with its
 * combining marks) at or before `budget`, when it is at most {@link CLIP_SLACK} units back; else `budget`, one unit
 * back when that would split a surrogate pair (tester33a F4: the cut split an emoji into U+FFFD, and a letter from
 * its accent). Two characters below U+0300 astride the cut need no segmenting (about 1.9 us a title, as before);
 * else the text is segmented from a sure edge a little before the slack (or from its start) up to `budget + 2`
 * units (an edge depends on the characters up to it): 15-25 us a title with an emoji or marks at the cut.
 */
export const clipAt = (s: string, budget: number): number => {
  if (s.length <= budget) return s.length
  // Two characters below U+0300 (no mark, joiner, surrogate, Hangul or Indic letter among them) have a grapheme edge
  // between them but for CR LF (UAX #29, GB3-GB5, GB999): the common case needs no segmenting.
  const before = s.charCodeAt(budget - 1)
  const after = s.charCodeAt(budget)
  if (before < 0x300 && after < 0x300 && !(before === 13 && after === 10)) return budget
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })
  // Segmenting starts at an edge as sure as the one above, looked for a few units before the slack (else at 0).
  let from = 0
  for (let i = budget - CLIP_SLACK; i > 0 && i > budget - CLIP_SLACK - 32; i--) {
    const a = s.charCodeAt(i - 1)
    const b = s.charCodeAt(i)
    if (a < 0x300 && b < 0x300 && !(a === 13 && b === 10)) {
      from = i
      break
    }
  }
  let edge = from
  for (const g of graphemes.segment(s.slice(from, budget + 2))) {
    if (from + g.index > budget) break
    edge = from + g.index
  }
  if (edge > 0 && budget - edge <= CLIP_SLACK) return edge
  const c = s.charCodeAt(budget)
  const p = s.charCodeAt(budget - 1)
  return budget > 1 && p >= 0xd800 && p <= 0xdbff && c >= 0xdc00 && c <= 0xdfff ? budget - 1 : budget
}

/**
 * `s` cut to at most `max` UTF-16 code units: its first graphemes that fit in `max - 1` ({@link clipAt}) and
 * {@link ELLIPSIS} when it is longer, else `s`. The truncation of titles and first prompts.
 */
export const clipText = (s: string, max: number): string => (s.length > max ? s.slice(0, clipAt(s, max - 1)) + ELLIPSIS : s)

/**
 * Whether `s` may be a cut of {@link clipText} to `max`: `max - CLIP_SLACK` to `max` code units
 * ({@link CLIP_SLACK}: a cut on a grapheme's edge may be shorter than `max`), the last {@link ELLIPSIS}. A text of
 * that length that ends in an ellipsis of its own is taken for a cut too: its redaction then leaves out its last
 * word ({@link redactClipped}), the safe side.
 */
export const isClipped = (s: string, max: number): boolean =>
  s.length <= max && s.length >= max - CLIP_SLACK && s.charCodeAt(s.length - 1) === 0x2026

/**
 * A marker (`[REDACTED:<rule>]`, as `./rules.ts`'s `marker` writes it) at a text's very end: a rule's id is lower-case
 * words joined by `-`, as built-in and custom ids are. Here, in a module of no rules, for the domain's title cut.
 */
export const MARKER_AT_END = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]$/

/** Whether the code unit `c` ends the word a cut may have left of a secret. */
const endsPartial = (c: number): boolean =>
  c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 ||
  c === 61 || c === 124 || c === 60 || c === 62 || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125

/**
 * `s` redacted by `redact`; when it is a cut of {@link clipText} to `max`
 * ({@link isClipped}), the text before the ellipsis redacted, then its last
 * word left out (see the module doc; kept when the text ends with a marker),
 * white space before it trimmed, and the ellipsis put back:
 * `xxx ghp_Ab1Ab1\u2026` is `xxx\u2026`, `mail me at bob.s\u2026` is
 * `mail me at\u2026`, `use [REDACTED:github-token]\u2026` stays.
 */
export const redactClipped = (redact: (s: string) => string, s: string, max: number): string => {
  if (!isClipped(s, max)) return redact(s)
  const red = redact(s.slice(0, -1))
  if (MARKER_AT_END.test(red)) return red + ELLIPSIS
  let end = red.length
  while (end > 0 && !endsPartial(red.charCodeAt(end - 1))) end--
  return red.slice(0, end).trimEnd() + ELLIPSIS
}

/** A lone UTF-16 surrogate: a high one with no low one after it, or a low one with no high one before it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * `s` with each lone UTF-16 surrogate (a `\ud800` escape in a log's JSON, or a pair a cut went through) as one
 * U+FFFD, as the transcript and any UTF-8 output show it (tester24b F3: the SQLite driver wrote it as three bytes
 * that read back as three U+FFFD in a title). Same length as `s`. `String.prototype.toWellFormed` (ES2024).
 */
export const wellFormed = (s: string): string => s.replace(LONE_SURROGATE, "\ufffd")

/**
 * A first prompt as a summary keeps it (`summary.firstPrompt`, Muse agents' `firstPrompts`): `s` cut to `max`
 * ({@link clipText}), each lone surrogate one U+FFFD ({@link wellFormed}), as its title is (tester33a F4: `sessions
 * --json` wrote `\ud800` escapes that strict JSON parsers refuse).
 */
export const clipPrompt = (s: string, max: number): string => wellFormed(clipText(s, max))

/** A text as a title reads it: white space (newlines included) collapsed to one space, trimmed, each lone surrogate one U+FFFD ({@link wellFormed}). */
export const titleText = (s: string): string => wellFormed(s.replace(/\s+/g, " ").trim())

/** How much of a text {@link isTitleSource} collapses first (a longer text is read whole only when that is not enough). */
const SOURCE_PREFIX = 4096

/**
 * Whether `title`, a title cut short ({@link isClipped} to {@link TITLE_MAX_CHARS}), was cut from `source`: the
 * text of `source` as a title reads it ({@link titleText}) begins with the title's text before its ellipsis (at most
 * {@link TITLE_MAX_CHARS} - 1 characters: a cut on a grapheme's edge may keep fewer), and it is longer. A cheap look at the first word first: most texts are not the source.
 */
export const isTitleSource = (title: string, source: string): boolean => {
  if (!isClipped(title, TITLE_MAX_CHARS) || source.length < TITLE_MAX_CHARS) return false
  let i = 0
  while (i < source.length && /\s/.test(source[i])) i++
  const space = title.indexOf(" ")
  const head = title.slice(0, space < 0 ? title.length - 1 : space)
  if (!source.startsWith(head, i)) return false
  const prefix = source.length > SOURCE_PREFIX ? titleText(source.slice(0, SOURCE_PREFIX)) : ""
  const t = prefix.length > TITLE_MAX_CHARS ? prefix : titleText(source)
  return t.length > TITLE_MAX_CHARS && t.startsWith(title.slice(0, -1))
}

/**
 * The title of a text already redacted (the source of a title cut short, {@link isTitleSource}, redacted whole):
 * read as a title ({@link titleText}), cut to {@link TITLE_MAX_CHARS} with its last character {@link ELLIPSIS}, and
 * never inside a marker (a marker the cut would go through is left out whole, with the white space before it). Redacted before it is cut, so
 * neither what it shows nor where it is cut depends on the length of a value redaction hid (tester22c F1).
 */
export const titleOfRedacted = (redacted: string): string => {
  const t = titleText(redacted)
  if (t.length <= TITLE_MAX_CHARS) return t
  const at = clipAt(t, TITLE_MAX_CHARS - 1)
  let cut = at
  const open = t.lastIndexOf("[REDACTED:", cut - 1)
  if (open >= 0) {
    const close = t.indexOf("]", open)
    if (close < 0 || close >= cut) cut = open
  }
  return wellFormed(cut === at ? t.slice(0, cut) : t.slice(0, cut).trimEnd()) + ELLIPSIS
}

/** The first of `texts` that the cut title `title` was cut from ({@link isTitleSource}); undefined when none is (or the title is not cut). */
export const titleSourceIn = (title: string | null | undefined, texts: Iterable<string | null | undefined>): string | undefined => {
  if (title == null || !isClipped(title, TITLE_MAX_CHARS)) return undefined
  for (const t of texts) if (typeof t === "string" && isTitleSource(title, t)) return t
  return undefined
}
