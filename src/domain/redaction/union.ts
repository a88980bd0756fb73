/**
 * Custom rules merged with the built-in ones (tester22b F3): a custom rule's
 * matches are found on the ORIGINAL text, the built-in rules redact the
 * original text as they do without custom rules, and the output hides the
 * union of both. So a custom pattern that matches a piece of a secret
 * (`[0-9]{3,}` inside a private key's body, `[A-Z]{5,}` inside an AWS secret
 * key's name or a `github_pat_…`, `E[0-9]{6}` at the start of
 * `DB_PASSWORD=E123456-Secret!9`) can never end a built-in match early:
 * adding a pattern only ever redacts more. Every character the built-in
 * rules hide stays hidden behind their marker; a custom match's characters
 * the built-in rules leave become `[REDACTED:<custom id>]`; a custom match
 * that holds a built-in marker's whole span takes it in (one custom marker);
 * a custom match inside a built-in span adds nothing. Custom markers never
 * appear inside a built-in marker, and custom patterns never see a marker
 * (they run on the original text). Pure.
 *
 * How: the built-in output is the original with spans replaced by markers
 * (`[REDACTED:<id>]`, name-keeping rules keep their names as text) or `~`
 * (a home path), so its text between them is found again in the original, in
 * order ({@link align}: the leftmost and the rightmost placings, which agree
 * unless a piece of text also occurs inside a secret; where they do not, every
 * placing between them is taken into account, so nothing a custom pattern
 * matched shows). When the built-in output cannot be lined up so (not seen:
 * a guard), the custom rules run on its text between markers instead.
 *
 * @module
 */
import { marker, type RedactionRule } from "./rules.js"
import { finish, HUGE } from "./pausable.js"

/** A custom rule's match: `[start, end)` in UTF-16 offsets of the original text, and its marker. */
interface Hit {
  readonly start: number
  readonly end: number
  readonly mark: string
}

/** What the built-in rules leave in place of a span: a marker (`[REDACTED:<id>]`) or a home path's `~`. */
const HIDDEN = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]|~/g

/** The most placings of one piece of text looked at when the alignment is ambiguous (then the whole piece's range counts). */
const MAX_PLACINGS = 32

/**
 * The custom rules' matches in `s`, merged where they overlap (the first to start names them; the earlier rule
 * on a tie), left to right. Touching matches stay apart.
 */
const hitsOf = (rules: ReadonlyArray<RedactionRule>, s: string): Array<Hit> => {
  const all: Array<Hit & { readonly rule: number }> = []
  rules.forEach((rule, r) => {
    const sp = rule.spans!(s)
    for (let i = 0; i + 1 < sp.length; i += 2) all.push({ start: sp[i], end: sp[i + 1], mark: marker(rule.id), rule: r })
  })
  if (all.length === 0) return []
  all.sort((a, b) => a.start - b.start || a.rule - b.rule)
  const out: Array<Hit> = []
  let cur = { start: all[0].start, end: all[0].end, mark: all[0].mark }
  for (let i = 1; i < all.length; i++) {
    const h = all[i]
    if (h.start < cur.end) cur.end = Math.max(cur.end, h.end)
    else {
      out.push(cur)
      cur = { start: h.start, end: h.end, mark: h.mark }
    }
  }
  out.push(cur)
  return out
}

/** `s` with each span (`[start, end)`, in order, not overlapping) replaced by its marker (`mark`). Pure. */
export const render = (s: string, hits: ReadonlyArray<{ readonly start: number; readonly end: number; readonly mark: string }>): string => {
  let out = ""
  let done = 0
  for (const h of hits) {
    out += s.slice(done, h.start) + h.mark
    done = h.end
  }
  return out + s.slice(done)
}

/** The built-in output cut into its pieces of kept text and its runs of markers (each marker stands for one character or more). */
interface Pieces {
  /** The kept texts, in order; `texts[k]` follows the `k`-th run of markers (`texts[0]` may be empty: a run first). */
  readonly texts: Array<string>
  /** The runs of markers between them, as written (`runs[k]` follows `texts[k]`; the last may be empty). */
  readonly runs: Array<string>
  /** How many markers each run holds (each hides one character or more). */
  readonly counts: Array<number>
}

const piecesOf = (base: string): Pieces => {
  const texts: Array<string> = []
  const runs: Array<string> = []
  const counts: Array<number> = []
  let at = 0
  let text = ""
  let run = ""
  let count = 0
  /** The kept text and the run of markers after it, as one piece; then a new one. */
  const close = () => {
    texts.push(text)
    runs.push(run)
    counts.push(count)
    text = ""
    run = ""
    count = 0
  }
  HIDDEN.lastIndex = 0
  for (let m = HIDDEN.exec(base); m !== null; m = HIDDEN.exec(base)) {
    const between = base.slice(at, m.index)
    if (between.length > 0 && count > 0) close()
    text += between
    run += m[0]
    count++
    at = m.index + m[0].length
  }
  const tail = base.slice(at)
  if (tail.length > 0 && count > 0) close()
  text += tail
  close()
  return { texts, runs, counts }
}

/**
 * Where each kept text of `p` starts in `s`: the leftmost placing (`left`) and the rightmost (`right`), or
 * undefined when `s` cannot give the built-in output so. The first text starts at 0, the last one (when no
 * markers end the output) ends at the end, and each run of `c` markers hides `c` characters or more.
 */
const align = (s: string, p: Pieces): { readonly left: Array<number>; readonly right: Array<number> } | undefined => {
  const n = p.texts.length
  const last = n - 1
  const endsKept = p.counts[last] === 0
  const left: Array<number> = new Array(n)
  if (!s.startsWith(p.texts[0])) return undefined
  left[0] = 0
  for (let k = 1; k < n; k++) {
    const from = left[k - 1] + p.texts[k - 1].length + p.counts[k - 1]
    const at = k === last && endsKept ? s.length - p.texts[k].length : s.indexOf(p.texts[k], from)
    if (at < from || (k === last && endsKept && !s.endsWith(p.texts[k]))) return undefined
    left[k] = at
  }
  if (!endsKept && s.length - (left[last] + p.texts[last].length) < p.counts[last]) return undefined
  const right: Array<number> = new Array(n)
  right[last] = endsKept ? s.length - p.texts[last].length : s.lastIndexOf(p.texts[last], s.length - p.counts[last] - p.texts[last].length)
  for (let k = last - 1; k >= 0; k--) {
    const to = right[k + 1] - p.counts[k] - p.texts[k].length
    right[k] = k === 0 ? 0 : s.lastIndexOf(p.texts[k], to)
    if (right[k] < left[k]) return undefined
  }
  right[0] = 0
  return { left, right }
}

/**
 * The redaction of `s` by the built-in rules (`base`, their output) and the custom rules' `hits` (on `s`): see
 * the module's doc. `undefined` when `base` cannot be lined up with `s`.
 */
const merge = (s: string, base: string, hits: ReadonlyArray<Hit>, baseLabels = false): string | undefined => finish(mergeSteps(s, base, hits, baseLabels))

/** The kept texts of `base` {@link mergeSteps} goes through between two pauses. */
const PIECES_PER_STEP = 1 << 16

/** {@link merge} with a pause (a `yield`) after lining the texts up and after each {@link PIECES_PER_STEP} kept texts. */
function* mergeSteps(s: string, base: string, hits: ReadonlyArray<Hit>, baseLabels: boolean): Generator<void, string | undefined, void> {
  const p = piecesOf(base)
  const where = align(s, p)
  if (where === undefined) return undefined
  const huge = s.length >= HUGE
  if (huge) yield
  // which hit (its index + 1) covers each character of `s`
  const cover = new Int32Array(s.length)
  hits.forEach((h, i) => cover.fill(i + 1, h.start, h.end))
  let out = ""
  // the hit whose marker was written last, while nothing else has been written since
  let open = 0
  const hide = (hit: number) => {
    if (hit !== open) out += hits[hit - 1].mark
    open = hit
  }
  const n = p.texts.length
  for (let k = 0; k < n; k++) {
    if (huge && k > 0 && (k & (PIECES_PER_STEP - 1)) === 0) yield
    const t = p.texts[k]
    const l = where.left[k]
    const r = where.right[k]
    // the hit over each character of this kept text, at any of its placings
    const over = new Int32Array(t.length)
    if (l === r) over.set(cover.subarray(l, l + t.length))
    else {
      let q = l
      let seen = 0
      while (q >= 0 && q <= r && seen < MAX_PLACINGS) {
        for (let j = 0; j < t.length; j++) if (over[j] === 0 && cover[q + j] !== 0) over[j] = cover[q + j]
        seen++
        q = s.indexOf(t, q + 1)
      }
      if (q >= 0 && q <= r) {
        // too many placings: any hit in their range hides the whole text
        let any = 0
        for (let i = l; i < r + t.length && any === 0; i++) any = cover[i]
        if (any !== 0) over.fill(any)
      }
    }
    for (let j = 0; j < t.length;) {
      if (over[j] !== 0) hide(over[j++])
      else {
        // a stretch of shown characters at once (tester33a F7: one at a time was seconds of a 13.8 MB text)
        const from = j
        while (j < t.length && over[j] === 0) j++
        out += from === 0 && j === t.length ? t : t.slice(from, j)
        open = 0
      }
    }
    const run = p.runs[k]
    if (run.length === 0) continue
    // the characters the run hides (exact when both placings agree): inside one hit, the run is that hit's
    const exact = l === r && (k + 1 === n || where.left[k + 1] === where.right[k + 1])
    const from = l + t.length
    const to = k + 1 < n ? where.left[k + 1] : s.length
    const hit = exact && to > from ? cover[from] : 0
    // with `baseLabels`, a hit that hides just what the run does leaves the run (its marker) as it is
    const same = baseLabels && hit !== 0 && hits[hit - 1].start === from && hits[hit - 1].end === to
    if (hit !== 0 && !same && hits[hit - 1].start <= from && hits[hit - 1].end >= to) hide(hit)
    else {
      out += run
      open = 0
    }
  }
  return out
}

/** `base` redacted further by the custom rules on its text between markers (the guard of {@link merge}). */
const onKeptText = (rules: ReadonlyArray<RedactionRule>, base: string): string => {
  let out = ""
  let at = 0
  HIDDEN.lastIndex = 0
  for (let m = HIDDEN.exec(base); m !== null; m = HIDDEN.exec(base)) {
    const t = base.slice(at, m.index)
    out += render(t, hitsOf(rules, t)) + m[0]
    at = m.index + m[0].length
  }
  const t = base.slice(at)
  return out + render(t, hitsOf(rules, t))
}

/**
 * The text redaction by the custom rules `custom` (each with `spans`: its matches on a string) merged with
 * another's: given a string and `base`, its redaction by the built-in rules, the redaction of the module's doc:
 * every character `base` hides stays hidden, and every character a custom rule matches in the string is hidden too.
 */
export const customMerger = (custom: ReadonlyArray<RedactionRule>) => (s: string, base: string): string => {
  const hits = hitsOf(custom, s)
  if (hits.length === 0) return base
  if (base === s) return render(s, hits)
  return merge(s, base, hits) ?? onKeptText(custom, base)
}

/**
 * `base` (the redaction of `s`: `s` with spans replaced by markers, home paths by `~`) with every character of the
 * spans `spans` of `s` (`[start, end)`, UTF-16 offsets, each with its marker) hidden too: the union of both, as
 * {@link customMerger} merges a custom rule's matches (overlapping spans merged, the first to start names them). A
 * span that holds a marker's span and more takes it in (its marker for both: `[REDACTED:x]!` where the span is
 * `…!` is one marker); a span that hides just what a marker does keeps that marker. Undefined when `base` cannot
 * be lined up with `s` (then the caller does without). Pure. Used for a session's known secrets (tester22c F2:
 * a rule's match that takes a known secret but its last character must not leave that character shown).
 */
export const unionHidden = (s: string, base: string, spans: ReadonlyArray<{ readonly start: number; readonly end: number; readonly mark: string }>): string | undefined =>
  finish(unionHiddenSteps(s, base, spans))

/** {@link unionHidden} with pauses (`yield`) on a huge text ({@link mergeSteps}; `./pausable.ts`). */
export function* unionHiddenSteps(s: string, base: string, spans: ReadonlyArray<{ readonly start: number; readonly end: number; readonly mark: string }>): Generator<void, string | undefined, void> {
  if (spans.length === 0) return base
  const sorted = [...spans].sort((a, b) => a.start - b.start)
  const hits: Array<Hit> = []
  let cur = { ...sorted[0] }
  for (let i = 1; i < sorted.length; i++) {
    const h = sorted[i]
    if (h.start < cur.end) cur.end = Math.max(cur.end, h.end)
    else {
      hits.push(cur)
      cur = { ...h }
    }
  }
  hits.push(cur)
  if (base === s) return render(s, hits)
  return yield* mergeSteps(s, base, hits, true)
}

/**
 * The spans of `s` that `base` (its redaction: `s` with spans replaced by markers, home paths by `~`) hides:
 * `[start, end)` (UTF-16 offsets of `s`), each with the run of markers written in its place (`mark`), left to
 * right. Where a kept text of `base` could stand in more than one place of `s`, a span reaches from the leftmost
 * end of the text before it to the rightmost start of the text after it (it may then take in kept characters:
 * never fewer than `base` hid; spans may overlap). Undefined when `base` cannot be lined up with `s`. Used by the
 * decoded views (`./decoded-views.ts`: what the rules hid in a view, mapped back to the text).
 */
export const hiddenSpans = (s: string, base: string): Array<{ readonly start: number; readonly end: number; readonly mark: string }> | undefined => {
  const p = piecesOf(base)
  const where = align(s, p)
  if (where === undefined) return undefined
  const out: Array<{ readonly start: number; readonly end: number; readonly mark: string }> = []
  const n = p.texts.length
  for (let k = 0; k < n; k++) {
    if (p.runs[k].length === 0) continue
    out.push({ start: where.left[k] + p.texts[k].length, end: k + 1 < n ? where.right[k + 1] : s.length, mark: p.runs[k] })
  }
  return out
}

/** Whether `rule` is a custom one, merged by {@link customMerger} rather than applied in turn. */
export const isCustomRule = (rule: RedactionRule): boolean => rule.spans !== undefined
