/**
 * Redaction through a decoded view of the text (session 26, tester25a F2, F10, tester25b F5): HTML character
 * references (`&quot;`, `&amp;`, `&lt;`, `&gt;`, `&apos;`, `&#39;`, `&#x27;`, any `&#NN;` / `&#xHH;` of the BMP, a
 * few named ones of URLs and tokens) and percent-encoded ASCII bytes (`%22`, `%3D`, `%2F`, `%2D`: a URL-encoded URL in
 * a `next=` or `redirect_uri=` parameter) read as the characters they stand for. A page's config JSON in a `data-`
 * attribute (`&quot;password&quot;: &quot;…&quot;`) or a token in a nested URL (`next=%2Fcb%3Faccess_token%3D…`)
 * hid the secret's name from every rule, while a browser or the server reads it plainly.
 *
 * Unlike the views of `./views.ts` (each view character one character of the text), a character of a decoded view
 * stands for a span of the text (`&quot;`: 6 characters, `%3D`: 3). A redaction runs on the text, then, when the text
 * holds a reference or an escape ({@link hasEncoded}), on its decoded view: each span it hides there is hidden in the
 * text whole (every reference and escape inside it), with what it hid in the text as written (the union of both),
 * so neither the secret nor its encoded characters stay; what it keeps stays as written (`&amp;` in ordinary text,
 * `%20` in a URL). The rules never run on their own output. A text without `&` and `%` is given back after two
 * `indexOf` (no view is built). Up to {@link DECODE_LEVELS} levels of encoding are read (`%253D` is `=` in the
 * view, session 27); a valid percent-encoded UTF-8 sequence of two to four bytes is read as its character (session
 * 27; four bytes, a character past the BMP: session 28), any other percent-encoded byte above `%7F` stays as written. The view
 * is read in windows: the lines around each reference or escape (session 27; {@link redactDecoded}). Pure.
 *
 * @module
 */
import { hiddenSpans, render, unionHidden } from "./union.js"

/**
 * The named references a decoded view reads (HTML's, case as HTML writes them): the escapes of markup and of
 * attribute values, and those of the characters a URL, a key or a token is made of.
 */
const NAMED: Readonly<Record<string, string>> = {
  quot: "\"",
  QUOT: "\"",
  amp: "&",
  AMP: "&",
  lt: "<",
  LT: "<",
  gt: ">",
  GT: ">",
  apos: "'",
  sol: "/",
  colon: ":",
  equals: "=",
  lowbar: "_",
  num: "#",
  quest: "?",
  percnt: "%",
  commat: "@",
  plus: "+",
  period: ".",
  comma: ",",
  semi: ";",
  excl: "!",
  dollar: "$",
  hyphen: "-",
  dash: "-"
}

/**
 * HTML5's names of the Latin-1 characters U+00A0..U+00FF in code order (session 27, tester27b F8: `f&uuml;r`,
 * `&nbsp;`, `caf&eacute;`): each name's character is its index plus 0xA0.
 */
const LATIN1_NAMES = "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml".split(" ")

/** {@link NAMED} with the Latin-1 names ({@link LATIN1_NAMES}). */
const NAMED_ALL: Readonly<Record<string, string>> = {
  ...Object.fromEntries(LATIN1_NAMES.map((n, i) => [n, String.fromCharCode(0xa0 + i)])),
  ...NAMED
}

/**
 * The space characters other than U+0020 a view reads as a plain space (session 27, tester27b F8): no-break space
 * U+00A0, the spaces U+2000..U+200A, narrow no-break U+202F, medium mathematical U+205F, ideographic U+3000. The
 * rules' patterns take a space or a tab where a phrase has a blank; a page's `&nbsp;` or a pasted no-break space
 * is one to its reader.
 */
const UNICODE_SPACE = "\u00a0\u2000-\u200a\u202f\u205f\u3000"
/** Whether a text holds one of {@link UNICODE_SPACE}. */
const HAS_UNICODE_SPACE = new RegExp(`[${UNICODE_SPACE}]`)
/** One of {@link UNICODE_SPACE} alone. */
const IS_UNICODE_SPACE = new RegExp(`^[${UNICODE_SPACE}]$`)

/**
 * A reference or an escape a decoded view reads: a numeric reference (decimal, at most 7 digits; hexadecimal, at
 * most 6, `x` or `X`; leading zeros allowed, as HTML reads them), a named one of {@link NAMED} (`;` required), a
 * percent-encoded UTF-8 sequence of two, three or four bytes, or a percent-encoded ASCII byte (`%00`..`%7F`,
 * hexadecimal digits of any case). Bounded: each alternative reads at most 12 characters, so a scan is linear.
 */
const ENCODED = new RegExp(
  String.raw`&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};|&[A-Za-z][A-Za-z0-9]{1,7};` +
    // a UTF-8 sequence of two or three bytes (session 27, tester27b F7: `f%C3%BCr`), of four (session 28: a
    // character past the BMP, `%F0%9F%94%91`; lead bytes F0..F4), then an ASCII byte
    String.raw`|%[CcDd][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]|%[Ee][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]` +
    String.raw`|%[Ff][0-4]%[89AaBb][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]|%[0-7][0-9A-Fa-f]` +
    `|[${UNICODE_SPACE}]`,
  "g"
)

/** The test of {@link ENCODED} without its state (a text tested, not scanned). */
const ENCODED_TEST = new RegExp(ENCODED.source)

/**
 * What a match of {@link ENCODED} stands for; undefined when it is not one a decoded view reads (`&foo;`, `&#0;`, a
 * surrogate, an overlong UTF-8 form, a code point past U+10FFFF). A character past the BMP is two UTF-16 units.
 */
const decode = (m: string): string | undefined => {
  if (m.length === 1) return " "
  if (m.charCodeAt(0) === 37) {
    if (m.length === 3) return String.fromCharCode(parseInt(m.slice(1), 16))
    // UTF-8: the lead byte's bits then 6 bits of each continuation byte; no overlong form, no surrogate, none past U+10FFFF
    const b = [1, 4, 7, 10].filter((i) => i < m.length).map((i) => parseInt(m.slice(i, i + 2), 16))
    const code = b.length === 2
      ? ((b[0] & 0x1f) << 6) | (b[1] & 0x3f)
      : b.length === 3
      ? ((b[0] & 0x0f) << 12) | ((b[1] & 0x3f) << 6) | (b[2] & 0x3f)
      : ((b[0] & 0x07) << 18) | ((b[1] & 0x3f) << 12) | ((b[2] & 0x3f) << 6) | (b[3] & 0x3f)
    if (
      (b.length === 2 && code < 0x80) ||
      (b.length === 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) ||
      (b.length === 4 && (code < 0x10000 || code > 0x10ffff))
    ) return undefined
    return spaced(String.fromCodePoint(code))
  }
  if (m.charCodeAt(1) === 35) {
    const hex = m.charCodeAt(2) === 120 || m.charCodeAt(2) === 88
    const code = hex ? parseInt(m.slice(3, -1), 16) : parseInt(m.slice(2, -1), 10)
    // no NUL, no lone surrogate, none past U+10FFFF (past the BMP: two UTF-16 units, session 28)
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined
    return spaced(String.fromCodePoint(code))
  }
  const name = m.slice(1, -1)
  return Object.prototype.hasOwnProperty.call(NAMED_ALL, name) ? spaced(NAMED_ALL[name]) : undefined
}

/** A decoded character as a view reads it: one of {@link UNICODE_SPACE} as a plain space. */
const spaced = (c: string): string => (IS_UNICODE_SPACE.test(c) ? " " : c)

/**
 * Whether `s` holds a reference or an escape a decoded view reads: two `indexOf` (`&`, `%`) for a text that holds
 * neither (the most common: no view's cost), then one test of {@link ENCODED}.
 */
export const hasEncoded = (s: string): boolean =>
  ((s.indexOf("%") >= 0 || s.indexOf("&") >= 0) && ENCODED_TEST.test(s)) || HAS_UNICODE_SPACE.test(s)

/** A decoded view of a text: its references and escapes read, and where each view character's span starts. */
interface DecodedView {
  readonly text: string
  /** `at[i]`: the offset in the text where the span of the view's `i`-th character starts; `at[n]` is the text's length. */
  readonly at: Int32Array
}

/** One level of decoding of `s` (each reference and escape read once); undefined when nothing in it is read as another character. */
const decodeOnce = (s: string): DecodedView | undefined => {
  const at = new Int32Array(s.length + 1)
  let text = ""
  let n = 0
  let done = 0
  let changed = false
  ENCODED.lastIndex = 0
  for (let m = ENCODED.exec(s); m !== null; m = ENCODED.exec(s)) {
    const c = decode(m[0])
    if (c === undefined) {
      // not read: its first character kept, the rest looked at again (`&foo&amp;`)
      ENCODED.lastIndex = m.index + 1
      continue
    }
    text += s.slice(done, m.index) + c
    for (let i = done; i < m.index; i++) at[n++] = i
    // (a character past the BMP is two units of the view, both standing for the escape: a span of the view that
    // hides one of them alone, never seen, maps to the escape whole or to nothing of it)
    at[n++] = m.index
    if (c.length === 2) at[n++] = m.index
    done = m.index + m[0].length
    changed = true
  }
  if (!changed) return undefined
  text += s.slice(done)
  for (let i = done; i < s.length; i++) at[n++] = i
  at[n] = s.length
  return { text, at: at.subarray(0, n + 1) }
}

/**
 * How many times a decoded view reads its text's references and escapes (session 27): an escape encoded again
 * (`%253D`, `%25` being `%`: a URL-encoded URL inside a URL-encoded parameter; `&amp;quot;`) is read as the
 * character a server or a browser that decodes each level reads. Bounded, so a view costs at most this many passes.
 */
export const DECODE_LEVELS = 3

/** The decoded view of `s` ({@link DECODE_LEVELS} levels at most); undefined when nothing in it is read as another character. */
const decodedViewOf = (s: string): DecodedView | undefined => {
  let view = decodeOnce(s)
  if (view === undefined) return undefined
  for (let level = 1; level < DECODE_LEVELS && hasEncoded(view.text); level++) {
    const next = decodeOnce(view.text)
    if (next === undefined) break
    // each character of the new view stands for the span of `s` its span of the last view stands for
    const at = new Int32Array(next.at.length)
    for (let i = 0; i < at.length; i++) at[i] = view.at[next.at[i]]
    view = { text: next.text, at }
  }
  return view
}

/** A span of a text a redaction hides, with the marker(s) written in its place. */
type Span = { readonly start: number; readonly end: number; readonly mark: string }

/**
 * What `redact` hides in the decoded view of `s`: the spans of `s` (offset by `from`), or `out` (the view's
 * redaction) when it cannot be lined up with the view (a guard); undefined when the view reads nothing or `redact`
 * hides nothing there.
 */
const viewSpans = (s: string, from: number, redact: (s: string) => string): Array<Span> | { readonly out: string } | undefined => {
  const view = decodedViewOf(s)
  if (view === undefined) return undefined
  const out = redact(view.text)
  if (out === view.text) return undefined
  const hidden = hiddenSpans(view.text, out)
  if (hidden === undefined) return { out }
  const at = view.at
  const spans: Array<Span> = []
  for (const h of hidden) {
    // a `~` of the view's own text (a decoded `%7E`) is no home path's `~`: nothing was hidden there
    if (h.mark === "~" && h.end === h.start + 1 && view.text.charCodeAt(h.start) === 126) continue
    spans.push({ start: from + at[h.start], end: from + at[h.end], mark: h.mark })
  }
  return spans
}

/**
 * The decoded characters that stand between a secret's name and the secret, or around it ({@link trimmedBase}): a
 * blank (a space, a tab, a line break; a no-break or other Unicode space reads as a space), a quote, `:`, `=`, `,`,
 * `;`, `<` and `>`. Anything else (a letter, a digit, other punctuation) may be a secret's own character and is never
 * given back off a span's edge.
 */
const DELIMITER = /^[\s"'`:=,;<>]$/

/**
 * `base` (the redaction of `s` by the rules as written) with the edges of its hidden spans given back where they
 * take in a reference or an escape that the decoded view reads as a blank or a delimiter ({@link DELIMITER}) and
 * does not hide (`viewHidden`: the spans of `s` the view's redaction hid). Session 28 (closing27's open
 * finding): read as written, `password:&#160;X` has its value begin at the reference (`&#160` taken as the value,
 * its `;` and the secret after it left), `password:%20X` and `password: &quot;X&quot;` take the escape or the
 * quote's reference in with the secret (`password:[REDACTED]`, `password: [REDACTED];`); the view reads the blank
 * or the quote as such and hides the secret alone. So a span's start inside or at such a reference moves past it,
 * and an end inside or at its end moves before it (again, for a run of them); a span left empty is dropped. Spans
 * of a home path (`~`) and overlapping spans (an ambiguous alignment) are left as they are. `base` itself when
 * nothing is trimmed or `base` cannot be lined up with `s`.
 */
/** A run of one or more redaction markers and nothing else. */
const ONLY_MARKERS = /^(?:\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\])+$/

const trimmedBase = (s: string, base: string, viewHidden: ReadonlyArray<Span>): string => {
  if (base === s) return base
  const spans = hiddenSpans(s, base)
  if (spans === undefined || spans.length === 0) return base
  // The references and escapes of `s` a view reads as a blank or a delimiter, and which the view did not hide.
  const starts: Array<number> = []
  const ends: Array<number> = []
  ENCODED.lastIndex = 0
  for (let m = ENCODED.exec(s); m !== null; m = ENCODED.exec(s)) {
    const c = decode(m[0])
    if (c === undefined) {
      ENCODED.lastIndex = m.index + 1
      continue
    }
    const start = m.index
    const end = start + m[0].length
    if (!DELIMITER.test(c) || viewHidden.some((h) => h.start < end && start < h.end)) continue
    starts.push(start)
    ends.push(end)
  }
  if (starts.length === 0) return base
  /** The index of the trimmable reference holding offset `p` (`start <= p < end`; `atEnd`: `start < p <= end`), or -1. */
  const holding = (p: number, atEnd: boolean): number => {
    for (let i = 0; i < starts.length; i++) {
      if (atEnd ? starts[i] < p && p <= ends[i] : starts[i] <= p && p < ends[i]) return i
      if (starts[i] > p) break
    }
    return -1
  }
  const out: Array<Span> = []
  let changed = false
  for (let k = 0; k < spans.length; k++) {
    const h = spans[k]
    if (h.mark === "~" || (k > 0 && spans[k - 1].end > h.start)) {
      out.push(h)
      continue
    }
    let start = h.start
    let end = h.end
    for (let i = holding(start, false); i >= 0 && start < end; i = holding(start, false)) start = ends[i]
    for (let i = holding(end, true); i >= 0 && start < end; i = holding(end, true)) end = starts[i]
    if (start === h.start && end === h.end) {
      out.push(h)
      continue
    }
    changed = true
    // what is left is markers already (a text redacted before: `password:%20[REDACTED:…]`, whose `%20` the rules as
    // written took for a value of its own): nothing new is hidden there, so it stays as it is, once (session 28,
    // tester28b F1: it became a run of two markers, and redacting again added one each time)
    if (start < end && !ONLY_MARKERS.test(s.slice(start, end))) out.push({ start, end, mark: h.mark })
  }
  return changed ? render(s, out) : base
}

/**
 * `base` with what `redact` hides in the whole decoded view of `s` hidden too: the reference that
 * {@link redactDecoded} (which reads windows of the view only) equals (the differential test of session 27).
 * `trim`: `base` is `redact` of `s` as written, its spans' edges given back where they take in a blank or a
 * delimiter the view reads and keeps ({@link trimmedBase}).
 */
export const redactDecodedWhole = (
  s: string,
  base: string,
  redact: (s: string) => string,
  unaligned: (v: string) => string = redact,
  trim = false
): string => {
  const found = viewSpans(s, 0, redact)
  if (found === undefined) return trim ? trimmedBase(s, base, []) : base
  if (!Array.isArray(found)) return unaligned === redact ? found.out : unaligned(decodedViewOf(s)!.text)
  const b = trim ? trimmedBase(s, base, found) : base
  if (found.length === 0) return b
  return unionHidden(s, b, found) ?? unaligned(decodedViewOf(s)!.text)
}

/** How many lines before and after a line holding a reference or an escape a window of {@link redactDecoded} takes in. */
const WINDOW_LINES = 1

/**
 * The windows of `s` the decoded view is read in ({@link redactDecoded}): each line holding a reference or an escape
 * that a view reads, with {@link WINDOW_LINES} lines before and after it; windows that touch or overlap are one.
 * `[start, end)` pairs, in order.
 */
const windowsOf = (s: string): Array<number> => {
  const out: Array<number> = []
  ENCODED.lastIndex = 0
  for (let m = ENCODED.exec(s); m !== null; m = ENCODED.exec(s)) {
    if (decode(m[0]) === undefined) {
      ENCODED.lastIndex = m.index + 1
      continue
    }
    let start = m.index
    for (let k = 0; k <= WINDOW_LINES && start > 0; k++) {
      const nl = s.lastIndexOf("\n", start - 1)
      start = nl < 0 ? 0 : k < WINDOW_LINES ? nl : nl + 1
    }
    let end = m.index + m[0].length
    let lineEnd = end
    for (let k = 0; k <= WINDOW_LINES && end < s.length; k++) {
      const nl = s.indexOf("\n", k === 0 ? end : end + 1)
      end = nl < 0 ? s.length : nl
      if (k === 0) lineEnd = end
    }
    // (two windows one line break apart are one)
    if (out.length > 0 && start <= out[out.length - 1] + 1) out[out.length - 1] = Math.max(out[out.length - 1], end)
    else out.push(start, end)
    // the rest of this line holds nothing new to open a window
    ENCODED.lastIndex = Math.max(ENCODED.lastIndex, lineEnd)
  }
  return out
}

/**
 * `base` (the redaction of `s` by `redact`) with each span that `redact` hides in the decoded view of `s` hidden
 * too: the whole span of `s` each hidden view character stands for (a reference with it), under the marker(s)
 * `redact` wrote there ({@link hiddenSpans}); the union of both, as a session's known secrets are merged
 * ({@link unionHidden}: a span that hides just what a marker of `base` does keeps that marker). `base` as it is
 * when the view reads nothing or `redact` hides nothing there. The rules run on `s` and on its view, never on their
 * own output. The view is read in windows only (session 27): the lines that hold a reference or an escape, with a
 * line before and after each ({@link windowsOf}); what the rules find elsewhere in the view they find in `s` too.
 * When the view's redaction cannot be lined up with the view, or `base` with `s` (guards), the whole view's
 * redaction is returned (decoded: nothing of a span shows): by `redact`, or by `unaligned` when given (a
 * redaction that does more than `redact`: `redact` then is a part of the rules, the custom patterns alone, and
 * `base` hides what the others hid, which the view's redaction must hide too).
 */
export const redactDecoded = (
  s: string,
  base: string,
  redact: (s: string) => string,
  unaligned: (v: string) => string = redact,
  trim = false
): string => {
  const w = windowsOf(s)
  if (w.length === 0) return base
  if (w.length === 2 && w[0] === 0 && w[1] === s.length) return redactDecodedWhole(s, base, redact, unaligned, trim)
  const spans: Array<Span> = []
  for (let k = 0; k < w.length; k += 2) {
    const found = viewSpans(s.slice(w[k], w[k + 1]), w[k], redact)
    if (found === undefined) continue
    if (!Array.isArray(found)) return redactDecodedWhole(s, base, redact, unaligned, trim)
    for (const h of found) spans.push(h)
  }
  const b = trim ? trimmedBase(s, base, spans) : base
  if (spans.length === 0) return b
  return unionHidden(s, b, spans) ?? redactDecodedWhole(s, base, redact, unaligned, trim)
}
/**
 * `redact` that also reads the decoded view of the text (see the module's doc): `redact(s)`, then, when `s` holds
 * a reference or an escape ({@link hasEncoded}), {@link redactDecoded}, the spans `redact` hid as written given back
 * where they take in a blank or a delimiter that the view reads and keeps ({@link trimmedBase}: `password:&#160;X`
 * keeps its `&#160;` as `password: X` keeps its space).
 */
export const throughDecoded = (redact: (s: string) => string) => (s: string): string => {
  const base = redact(s)
  return hasEncoded(s) ? redactDecoded(s, base, redact, redact, true) : base
}
