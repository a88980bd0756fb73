/**
 * Redaction through a view of the text without what a reader does not see (session 24, tester24a F13, F14): ANSI
 * control sequences (a colour code of `grep --color=always`, `ls`, `jq`: CSI `ESC[01;31m`, `ESC[K`, C1 CSI U+009B;
 * OSC `ESC]…BEL`, U+009D) and invisible characters (zero-width space, non-joiner and joiner U+200B..U+200D, word
 * joiner U+2060, U+FEFF, soft hyphen U+00AD). Inside a token they hid it from every rule (`ghp_ESC[mESC[KAbc…`,
 * `ghp_\u200bAbc…`), while a terminal or a browser shows the token whole. The rules run on the view; each span they
 * hide there is hidden in the original, with the sequences and characters inside it (so neither the token nor the
 * codes within it stay); the sequences outside hidden spans stay where they were (an OSC sequence's own text is
 * redacted by itself: a hyperlink's URL). A text without ESC, U+009B, U+009D or an invisible character is given to
 * the rules as it is (the fast path: the rules' prefilter looks for those characters in its own pass, so such a text,
 * the most common, is read once, session 25). Pure.
 *
 * @module
 */

/**
 * The characters whose presence sends a text through a view (ESC, C1 CSI, C1 OSC, and the invisible characters of
 * {@link LEFT_OUT}), as a string: the prefilter's pass looks for them too (`textRedaction`'s `flagged` in `./rules.ts`).
 */
export const VIEW_CHARS = "\x1b\x9b\x9d\u00ad\u200b\u200c\u200d\u2060\ufeff"

/** Whether a text holds a character a view leaves out (the fast path's test, without a prefilter's scan). */
const HIDDEN_CHAR = new RegExp(`[${VIEW_CHARS}]`)

/**
 * What a view leaves out: an ANSI CSI (ESC `[` or U+009B, parameter bytes, at most two intermediate bytes, a final
 * byte; ECMA-48), an OSC (ESC `]` or U+009D, its text, ended by BEL, ST `ESC\` or U+009C; at most 2048 characters),
 * a lone ESC, and the invisible characters of {@link HIDDEN_CHAR}.
 */
const LEFT_OUT = /(?:\x1b\[|\x9b)[0-?]{0,32}[ -\/]{0,2}[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]{0,2048}(?:\x07|\x1b\\|\x9c)|\x1b|[\u00ad\u200b-\u200d\u2060\ufeff]/g

/** What the rules leave in place of a span: a marker (`[REDACTED:<id>]`) or a home path's `~`. */
const HIDDEN = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]|~/g

/** A view of a text: its characters left after {@link LEFT_OUT} went, and the original offset of each. */
interface View {
  readonly text: string
  /** `at[i]`: the offset in the original of the view's `i`-th character (UTF-16 units). */
  readonly at: Int32Array
}

const viewOf = (s: string): View => {
  const at = new Int32Array(s.length)
  let text = ""
  let n = 0
  let done = 0
  LEFT_OUT.lastIndex = 0
  const keep = (from: number, to: number) => {
    text += s.slice(from, to)
    for (let i = from; i < to; i++) at[n++] = i
  }
  for (let m = LEFT_OUT.exec(s); m !== null; m = LEFT_OUT.exec(s)) {
    keep(done, m.index)
    done = m.index + m[0].length
  }
  keep(done, s.length)
  return { text, at: at.subarray(0, n) }
}

/**
 * Where each kept text of `out` (the text between its markers) is in `v`: `[start, end)` pairs of view offsets, and
 * between two pairs a run of markers as written; undefined when `out` cannot be lined up with `v` in one way only.
 */
const keptSpans = (v: string, out: string): { readonly kept: Array<number>; readonly runs: Array<string> } | undefined => {
  const texts: Array<string> = []
  const runs: Array<string> = []
  let at = 0
  let run = ""
  let text = ""
  HIDDEN.lastIndex = 0
  for (let m = HIDDEN.exec(out); m !== null; m = HIDDEN.exec(out)) {
    const between = out.slice(at, m.index)
    if (between.length > 0 && run.length > 0) {
      texts.push(text)
      runs.push(run)
      text = ""
      run = ""
    }
    text += between
    run += m[0]
    at = m.index + m[0].length
  }
  const tail = out.slice(at)
  if (tail.length > 0 && run.length > 0) {
    texts.push(text)
    runs.push(run)
    text = ""
    run = ""
  }
  texts.push(text + tail)
  runs.push(run)
  // each kept text placed leftmost and rightmost (each run hides one character or more): they must agree, else
  // which characters a run hid is not known
  const n = texts.length
  const last = n - 1
  const endsKept = runs[last].length === 0
  const left: Array<number> = new Array(n)
  if (!v.startsWith(texts[0])) return undefined
  left[0] = 0
  for (let k = 1; k < n; k++) {
    const from = left[k - 1] + texts[k - 1].length + 1
    const p = k === last && endsKept ? v.length - texts[k].length : v.indexOf(texts[k], from)
    if (p < from || (k === last && endsKept && !v.endsWith(texts[k]))) return undefined
    left[k] = p
  }
  if (endsKept ? left[last] + texts[last].length !== v.length : v.length - (left[last] + texts[last].length) < 1) return undefined
  let right = left[last]
  if (!endsKept && last > 0 && v.lastIndexOf(texts[last], v.length - 1 - texts[last].length) !== right) return undefined
  for (let k = last - 1; k >= 1; k--) {
    right = v.lastIndexOf(texts[k], right - 1 - texts[k].length)
    if (right !== left[k]) return undefined
  }
  const kept: Array<number> = []
  for (let k = 0; k < n; k++) kept.push(left[k], left[k] + texts[k].length)
  return { kept, runs }
}

/**
 * `redact` run on the view of `s` without its ANSI control sequences and invisible characters (see the module's
 * doc); `s` given to `redact` as it is when it holds none. When the view's redaction cannot be lined up with the
 * view (not seen: a guard), it is returned as it is (the sequences and invisible characters dropped: nothing of a
 * span shows). `scan`: one pass that tells both whether `redact` may change `s` (bit 1; without it `redact(s)` must
 * be `s`) and whether `s` holds one of {@link VIEW_CHARS} (bit 2): `textRedaction`'s (`./rules.ts`), so a text
 * that holds neither is read once; without it, a test of its own for those characters.
 */
export const throughView = (redact: (s: string) => string, scan?: (s: string) => number) => (s: string): string => {
  if (scan !== undefined) {
    const bits = scan(s)
    if ((bits & 2) === 0) return (bits & 1) === 0 ? s : redact(s)
  } else if (!HIDDEN_CHAR.test(s)) return redact(s)
  const view = viewOf(s)
  const out = redact(view.text)
  if (out === view.text) return redactLeftOut(s, 0, s.length, redact)
  const where = keptSpans(view.text, out)
  if (where === undefined) return out
  const { kept, runs } = where
  const at = view.at
  const vn = view.text.length
  let o = ""
  for (let k = 0; k * 2 < kept.length; k++) {
    const a = kept[2 * k]
    const e = kept[2 * k + 1]
    // the original from after the last hidden character before this kept text to the next hidden one after it
    const start = a === 0 ? 0 : at[a - 1] + 1
    const end = e === vn ? s.length : at[e]
    o += redactLeftOut(s, start, end, redact) + runs[k]
  }
  // a run last: what follows the last hidden character
  if (runs[runs.length - 1].length > 0 && vn > 0) o += redactLeftOut(s, at[vn - 1] + 1, s.length, redact)
  return o
}

/** `s[from, to)` with the text of each OSC sequence in it redacted by itself (a hyperlink's URL); the rest as it is. */
const redactLeftOut = (s: string, from: number, to: number, redact: (s: string) => string): string => {
  const part = s.slice(from, to)
  if (part.indexOf("\x1b]") < 0 && part.indexOf("\x9d") < 0) return part
  return part.replace(/(\x1b\]|\x9d)([^\x07\x1b\x9c]{0,2048})(\x07|\x1b\\|\x9c)/g, (_m, a: string, t: string, b: string) => a + redact(t) + b)
}
