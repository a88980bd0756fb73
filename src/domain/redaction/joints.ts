/**
 * A secret cut in two across adjacent assistant text events of one response
 * (Claude Code writes each content block of a streamed response as a line of
 * its own: a token can end one text block and go on in the next). Redaction
 * runs per string, so neither half matches; here each joint of two such
 * events is redacted as one window (the end of the first text and the start
 * of the second, joined as they were streamed), and what the window's
 * redaction changed across the joint is mapped back: the marker ends the
 * first text, the rest of the second text follows in the second event. Every
 * byte the window's redaction did not change stays in its own event. Pure.
 *
 * @module
 */
import type { SessionEvent, Transcript } from "../model.js"
import { MARKER_AT_END } from "./clipped.js"

/**
 * The start of a text that goes on with a word cut at the joint: token characters (a `.` only between two of
 * them), up to white space or other punctuation.
 */
const WORD_GOES_ON = /^(?:[A-Za-z0-9_\-+/=~%]|\.(?=[A-Za-z0-9_\-+/=~%]))+/

/** How far on each side of a joint the window reaches (characters): a secret's rules read at most a line or so around it. */
export const JOINT_WINDOW = 1024

/**
 * Whether `a` then `b` are parts of one response's text: both assistant messages with text, of the same session
 * and the same response (`responseId`, not null: Claude Code's `message.id` and `requestId`).
 */
export const sameResponseText = (a: SessionEvent, b: SessionEvent): boolean =>
  a.kind === "message" && b.kind === "message" && a.role === "assistant" && b.role === "assistant" &&
  typeof a.text === "string" && typeof b.text === "string" && a.text.length > 0 && b.text.length > 0 &&
  a.responseId != null && a.responseId === b.responseId && a.sessionId === b.sessionId

/**
 * The texts `a` and `b` (each already redacted by `redact`) with their joint redacted as one: the window of the
 * last {@link JOINT_WINDOW} characters of `a` and the first of `b` (from a line's start to a line's end, else
 * between white space) is redacted; when that changes text on both
 * sides of the joint (a secret cut in two), the changed span (from its first changed character to its last)
 * becomes the end of `a` and `b` keeps what follows it. A change on one side only (the other side's text gave it
 * context: "the password is " + "hunter2") is applied on that side. When `a` already ends with a marker (its own
 * redaction took the first half of a secret) and `b` goes on with the same word, that word's rest goes too.
 * Unchanged: answered as given (same strings).
 */
export const redactJoint = (redact: (s: string) => string, a: string, b0: string): readonly [string, string] => {
  // A first text that ends with a marker (its own redaction took a secret that reached its end: `export
  // API_TOKEN=ghp_…`, `your token is ghp_…`) and a second that goes on with the same word: the word's rest is the
  // secret's rest (joined, the rule would have taken it), so it goes with it.
  const goesOn = MARKER_AT_END.test(a) ? WORD_GOES_ON.exec(b0) : null
  const b = goesOn === null ? b0 : b0.slice(goesOn[0].length)
  // The window starts at a line's start (else after white space) and ends at a line's end (else before white space):
  // a rule never sees a word cut by the window's own edge.
  let from = Math.max(0, a.length - JOINT_WINDOW)
  if (from > 0) {
    const nl = a.indexOf("\n", from)
    const ws = a.slice(from).search(/\s/)
    from = nl >= 0 ? nl + 1 : ws >= 0 ? from + ws + 1 : a.length
  }
  let to = Math.min(b.length, JOINT_WINDOW)
  if (to < b.length) {
    const nl = b.lastIndexOf("\n", to - 1)
    let ws = to - 1
    while (ws >= 0 && !/\s/.test(b[ws])) ws--
    to = nl >= 0 ? nl : Math.max(0, ws)
  }
  const tail = a.slice(from)
  const head = b.slice(0, to)
  const window = tail + head
  const out = redact(window)
  if (out === window) return [a, b]
  // the changed span: window[p, window.length - q) became out[p, out.length - q)
  let p = 0
  const max = Math.min(window.length, out.length)
  while (p < max && window.charCodeAt(p) === out.charCodeAt(p)) p++
  let q = 0
  while (q < max - p && window.charCodeAt(window.length - 1 - q) === out.charCodeAt(out.length - 1 - q)) q++
  const cut = tail.length
  const end = window.length - q
  const keptA = a.slice(0, a.length - tail.length + Math.min(p, cut))
  if (end <= cut) {
    // within a's tail only
    return [keptA + out.slice(p, out.length - q) + tail.slice(end), b]
  }
  if (p >= cut) {
    // within b's head only
    return [a, head.slice(0, p - cut) + out.slice(p, out.length - q) + b.slice(end - cut)]
  }
  // across the joint: the replacement ends a, b goes on after the span
  return [keptA + out.slice(p, out.length - q), b.slice(end - cut)]
}

/**
 * `events` (each already redacted by `redact`, in their order) with each joint of two events of one response's
 * text ({@link sameResponseText}) redacted as one ({@link redactJoint}); a run of three or more is done joint by
 * joint, in order. Events whose text did not change are the same objects.
 */
export const redactJoints = (redact: (s: string) => string, events: ReadonlyArray<SessionEvent>): Array<SessionEvent> => {
  const out = events.slice()
  for (let i = 0; i + 1 < out.length; i++) {
    const a = out[i], b = out[i + 1]
    if (!sameResponseText(a, b)) continue
    const [x, y] = redactJoint(redact, a.text!, b.text!)
    if (x !== a.text) out[i] = { ...a, text: x }
    if (y !== b.text) out[i + 1] = { ...b, text: y }
  }
  return out
}

/**
 * A transcript (already redacted by `redact`) with each joint of two adjacent `text` blocks of an assistant turn
 * redacted as one ({@link redactJoint}): a turn's text blocks are its responses' text blocks, in order (a
 * transcript keeps no response id; two blocks shown one after the other are read as one text at their joint).
 * Unchanged turns are the same objects; unchanged: the same transcript.
 */
export const redactTranscriptJoints = (redact: (s: string) => string, t: Transcript): Transcript => {
  let changed = false
  const turns = t.turns.map((turn) => {
    if (turn.role !== "assistant" || turn.blocks.length < 2) return turn
    const blocks = turn.blocks.slice()
    let touched = false
    for (let i = 0; i + 1 < blocks.length; i++) {
      const a = blocks[i], b = blocks[i + 1]
      if (a.type !== "text" || b.type !== "text" || a.text.length === 0 || b.text.length === 0) continue
      const [x, y] = redactJoint(redact, a.text, b.text)
      if (x !== a.text) blocks[i] = { ...a, text: x }
      if (y !== b.text) blocks[i + 1] = { ...b, text: y }
      touched ||= x !== a.text || y !== b.text
    }
    if (!touched) return turn
    changed = true
    return { ...turn, blocks }
  })
  return changed ? { ...t, turns } : t
}
