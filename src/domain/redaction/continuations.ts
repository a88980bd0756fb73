/**
 * Redaction through a view of the text as a shell reads it (session 35): each run of shell line continuations (`\`
 * then LF or CRLF, any number of them, empty continuation lines too; `\\` then a `\n` or `\r\n` escape in JSON text,
 * as a tool call's input is stored) taken out, as the shell takes them out before it splits words. A secret's value
 * cut by one (`api_key: abc123\` then `def456`, `"password": "Sup3r\` then `Secret9"`, `db.password = Sup3r\` then
 * `Secret9`) or a header's name cut from its value by one (`X-Api-Key: \` then `  <key>`) is one piece in the view,
 * so every rule reads it there as on one line, with no rule of its own for it (the class the rules' per-rule
 * continuation steps, `runsOn` in `./rules.ts`, closed for a few rules only: docs/redaction.md, "Line
 * continuations").
 *
 * The rules run on the text as written and, when it holds a continuation, on the view of the lines around each
 * (the line before and the line after each joined run: a window, as the decoded views of `./decoded-views.ts`
 * read theirs); each span they hide in the view is hidden in the text whole, the continuations inside it with it,
 * with what they hid as written (the union of both, `./union.ts`): the view only ever hides more. A span's
 * continuations at its edges stay outside it (the line break after a value stays). A home path's `~` found in the
 * view alone is not taken (a Windows path at a line's end, `C:\Users\bob\` then `Documents`, is no path the shell
 * joins). A text without a continuation costs four `indexOf`. Pure.
 *
 * @module
 */
import { hiddenSpans, unionHidden } from "./union.js"

/**
 * A run of shell line continuations (the same forms as `CONTINUATION` of `./rules.ts`), every one in a text. Not after
 * a backslash (session 37): `\\` before a line break is an escaped backslash, and in JSON text held in a JSON string
 * (`\\\\\\n`, a continuation two levels deep, which is one: `\\\\` and `\\n`, the `\` and the line break escaped twice) the
 * last three backslashes and the `n` are no continuation of one level: taking them out broke the JSON the text was.
 */
const CONTINUATION_RUN = /(?<!\\)(?:\\\r?\n|\\\\\\n|\\\\\\r\\n|\\{6}n|\\{6}r\\{2}n)+/g

/** Whether `s` holds a shell line continuation, as written or in JSON text: four `indexOf`. */
export const hasContinuation = (s: string): boolean =>
  s.indexOf("\\\n") >= 0 || s.indexOf("\\\r\n") >= 0 || s.indexOf("\\\\\\n") >= 0 || s.indexOf("\\\\\\r\\n") >= 0

/** `s` as a shell reads it: its runs of line continuations taken out (a value a rule caught over them, restated joined). */
export const joinContinuations = (s: string): string => (hasContinuation(s) ? s.replace(CONTINUATION_RUN, "") : s)

/** How many lines before and after a run of continuations (its first and its joined line) a window takes in. */
const WINDOW_LINES = 1

/** The start of the line `k` lines before the one that holds offset `p` (0: that line's start). Also `./line-breaks.ts`'s. */
export const lineStart = (s: string, p: number, k: number): number => {
  let at = p
  for (let i = 0; i <= k; i++) {
    const nl = s.lastIndexOf("\n", at - 1)
    if (nl < 0) return 0
    if (i === k) return nl + 1
    at = nl
  }
  return 0
}

/** The end (before its line break) of the line `k` lines after the one that holds offset `p`. Also `./line-breaks.ts`'s. */
export const lineEnd = (s: string, p: number, k: number): number => {
  let at = p
  for (let i = 0; i <= k; i++) {
    const nl = s.indexOf("\n", at)
    if (nl < 0) return s.length
    if (i === k) return nl
    at = nl + 1
  }
  return s.length
}

/**
 * The windows of `s` a view is read in: each run of continuations with the line it starts on, the line it joins,
 * and {@link WINDOW_LINES} lines before and after; windows that touch or overlap are one. `[start, end)` pairs.
 */
const windowsOf = (s: string): Array<number> => {
  const out: Array<number> = []
  CONTINUATION_RUN.lastIndex = 0
  for (let m = CONTINUATION_RUN.exec(s); m !== null; m = CONTINUATION_RUN.exec(s)) {
    const start = lineStart(s, m.index, WINDOW_LINES)
    const end = lineEnd(s, m.index + m[0].length, WINDOW_LINES)
    if (out.length > 0 && start <= out[out.length - 1] + 1) out[out.length - 1] = Math.max(out[out.length - 1], end)
    else out.push(start, end)
    if (CONTINUATION_RUN.lastIndex < end) CONTINUATION_RUN.lastIndex = end
  }
  return out
}

/** A view of a window: its characters without the runs of continuations, and the offset in the window of each. */
const viewOf = (w: string): { readonly text: string; readonly at: Int32Array } => {
  const at = new Int32Array(w.length)
  let text = ""
  let n = 0
  let done = 0
  const keep = (from: number, to: number) => {
    text += w.slice(from, to)
    for (let i = from; i < to; i++) at[n++] = i
  }
  CONTINUATION_RUN.lastIndex = 0
  for (let m = CONTINUATION_RUN.exec(w); m !== null; m = CONTINUATION_RUN.exec(w)) {
    keep(done, m.index)
    done = m.index + m[0].length
  }
  keep(done, w.length)
  return { text, at: at.subarray(0, n) }
}

/** A span of a text a redaction hides, with the marker(s) written in its place. */
type Span = { readonly start: number; readonly end: number; readonly mark: string }

/**
 * `redact` that also reads the text as a shell reads it (see the module's doc): `redact(s)`, then, when `s` holds a
 * continuation, `redact` on the view of each window around them, each span hidden there hidden in `s` too (the
 * union). When a view's redaction or the text's cannot be lined up (a guard, not seen), the view of the whole text
 * is redacted (its continuations gone: nothing of a span shows).
 */
export const throughContinuations = (redact: (s: string) => string) => (s: string): string => {
  const base = redact(s)
  if (!hasContinuation(s)) return base
  const w = windowsOf(s)
  const spans: Array<Span> = []
  for (let k = 0; k < w.length; k += 2) {
    const view = viewOf(s.slice(w[k], w[k + 1]))
    const out = redact(view.text)
    if (out === view.text) continue
    const hidden = hiddenSpans(view.text, out)
    if (hidden === undefined) return redact(viewOf(s).text)
    for (const h of hidden) {
      // a home path's `~` the view alone finds is a Windows path's end joined to the next line, no shell's word
      if (h.mark === "~") continue
      spans.push({ start: w[k] + view.at[h.start], end: w[k] + view.at[h.end - 1] + 1, mark: h.mark })
    }
  }
  if (spans.length === 0) return base
  return unionHidden(s, base, spans) ?? redact(viewOf(s).text)
}
