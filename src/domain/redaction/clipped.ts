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

/** Longest `title`, in UTF-16 code units (longer ones end in {@link ELLIPSIS}): the cut of `titleOf`. */
export const TITLE_MAX_CHARS = 80

/**
 * Longest `text` of an event where a provider cuts it (a tool call's input as one-line JSON: Claude Code's and
 * Muse agents' `TOOL_INPUT_TEXT_MAX`; Muse Code's and AgentMux's one-line texts), in UTF-16 code units; a cut
 * one ends in {@link ELLIPSIS}.
 */
export const EVENT_TEXT_MAX = 1000

/**
 * `s` cut to `max` UTF-16 code units: its first `max - 1` and {@link ELLIPSIS}
 * when it is longer, else `s`. The truncation of titles and first prompts.
 */
export const clipText = (s: string, max: number): string => (s.length > max ? s.slice(0, max - 1) + ELLIPSIS : s)

/** Whether `s` may be a cut of {@link clipText} to `max`: `max` code units, the last {@link ELLIPSIS}. */
export const isClipped = (s: string, max: number): boolean => s.length === max && s.charCodeAt(max - 1) === 0x2026

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
