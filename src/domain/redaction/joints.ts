/**
 * A secret cut across consecutive assistant text and thinking events of one
 * response (Claude Code writes each content block of a streamed response as a
 * line of its own: a token can end one block and go on in the next, or in the
 * next two). Redaction runs per string, so no part matches; here the blocks of
 * such a run are read as the one text they were streamed as, joint by joint
 * (a window of the text on each side of a joint, reaching over the blocks
 * after it while they are one word each: the middle of a token cut twice),
 * and what a window's redaction changed is mapped back: the marker
 * ends the block the secret began in, the blocks it wholly covered are left
 * empty, the rest of the block it ended in follows in that block. Every byte
 * the redaction did not change stays in its own block. The text blocks of one
 * user message (a prompt a client sent as several blocks, each an event) are
 * read as one text the same way ({@link sameResponseText}). Pure.
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

/**
 * Whether a word the next text starts with looks like the rest of a token cut at the joint, not a word of its own: it
 * holds a digit or token punctuation (`_-+/=~%.`), a capital after a small letter, three capitals or more, or twenty
 * letters or more. An ordinary word ("Done", "thanks", "OK", "exactly") is the next text's own (session 28, tester28a
 * F1: an assistant message ending in an email, then one starting "Done now", lost "Done" in every redacted output).
 */
const TOKEN_REST = /[0-9_\-+/=~%.]|[a-z][A-Z]|(?:[^A-Z]*[A-Z]){3}|^[A-Za-z]{20}/

/** How far on each side of a joint the window reaches (characters): a secret's rules read at most a line or so around it. */
export const JOINT_WINDOW = 1024

/** An assistant's text or thinking event with text: a block a run of one response's text may hold. */
const runBlock = (e: SessionEvent): boolean =>
  (e.kind === "message" || e.kind === "thinking") && e.role === "assistant" && typeof e.text === "string" && e.text.length > 0

/** A user's message event with text: a block of one user message's text (a prompt a client sent as several blocks). */
const userBlock = (e: SessionEvent): boolean =>
  e.kind === "message" && e.role === "user" && typeof e.text === "string" && e.text.length > 0

/**
 * Whether `a` and `b` are text blocks of one user message: both user `message` events with text, of the same
 * session, from the same native record (the same `sourceId`, `rawReference.locatorClass` and
 * `rawReference.sequence`: a Claude Code line whose `content` is several text blocks, an AgentMux `user` line of
 * typed prompt blocks). This is the transcript's own notion of one user turn (`transcriptFromEvents`, AgentMux's
 * builder): two user messages in a row, two records, are never one text (session 33, tester33a F1).
 */
export const sameUserMessage = (a: SessionEvent, b: SessionEvent): boolean =>
  userBlock(a) && userBlock(b) && a.sessionId === b.sessionId && a.sourceId === b.sourceId &&
  a.rawReference.sequence !== undefined && a.rawReference.sequence === b.rawReference.sequence &&
  a.rawReference.locatorClass === b.rawReference.locatorClass

/**
 * Whether `b` goes on `a`'s text, so that a secret cut at their joint is read whole: both assistant text or thinking
 * events with text (`kind` `message` or `thinking`, in any order), of the same session, whatever their responses
 * (session 23, tester23c F5: the Markdown transcript reads a turn's adjacent text and thinking blocks as one text,
 * whose blocks are its responses' blocks; so every output reads consecutive events as it does, and a secret cut
 * across two responses is hidden in each, not shown in the events and hidden in the Markdown); or both text blocks
 * of one user message ({@link sameUserMessage}: session 33, tester33a F1, a token cut across a prompt's blocks).
 * Consecutive events each of which goes on the one before make a run, read as one text ({@link redactJoints}). Every
 * output that redacts reads its runs by this one rule.
 */
export const sameResponseText = (a: SessionEvent, b: SessionEvent): boolean =>
  (runBlock(a) && runBlock(b) && a.sessionId === b.sessionId) || sameUserMessage(a, b)

/**
 * The texts `a` and `b` (each already redacted by `redact`) with their joint redacted as one: the window of the
 * last {@link JOINT_WINDOW} characters of `a` and the first of `b` (from a line's start to a line's end, else
 * between white space) is redacted; when that changes text on both
 * sides of the joint (a secret cut in two), the changed span (from its first changed character to its last)
 * becomes the end of `a` and `b` keeps what follows it. A change on one side only (the other side's text gave it
 * context: "the password is " + "hunter2") is applied on that side. When `a` already ends with a marker (its own
 * redaction took the first half of a secret) and `b` goes on with the same word, that word's rest goes too, when it
 * looks like a token's rest ({@link TOKEN_REST}); an ordinary word stays.
 * Unchanged: answered as given (same strings).
 */
export const redactJoint = (redact: (s: string) => string, a: string, b0: string): readonly [string, string] => {
  // A first text that ends with a marker (its own redaction took a secret that reached its end: `export
  // API_TOKEN=ghp_…`, `your token is ghp_…`) and a second that goes on with the same word: the word's rest is the
  // secret's rest (joined, the rule would have taken it), so it goes with it.
  const word = MARKER_AT_END.test(a) ? WORD_GOES_ON.exec(b0) : null
  const goesOn = word !== null && TOKEN_REST.test(word[0]) ? word : null
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
  // across the joint, from a plain word that ends `a` ("the password is" + "Hunter2xyz Later": read joined, the
  // rule took "isHunter2xyz"): when the two texts read with a blank between them hide something in `b` alone, that
  // is what goes, and the word stays (session 28, tester28b F3). A token's first half (digits, capitals inside,
  // token punctuation: `TOKEN_REST`) is never read so: its cut goes with it.
  const last = tail.slice(p, cut)
  if ((p === 0 || /\s/.test(window[p - 1])) && /^[A-Za-z]{1,40}$/.test(last) && !TOKEN_REST.test(last)) {
    const spaced = tail + " " + head
    const out2 = redact(spaced)
    let p2 = 0
    const max2 = Math.min(spaced.length, out2.length)
    while (p2 < max2 && spaced.charCodeAt(p2) === out2.charCodeAt(p2)) p2++
    if (p2 > cut && out2 !== spaced) {
      let q2 = 0
      while (q2 < max2 - p2 && spaced.charCodeAt(spaced.length - 1 - q2) === out2.charCodeAt(out2.length - 1 - q2)) q2++
      const end2 = spaced.length - q2
      return [a, head.slice(0, p2 - cut - 1) + out2.slice(p2, out2.length - q2) + b.slice(end2 - cut - 1)]
    }
  }
  // across the joint: the replacement ends a, b goes on after the span
  return [keptA + out.slice(p, out.length - q), b.slice(end - cut)]
}

/**
 * `old`, the concatenation of `t[from..to]`, became `now`: each block of it is given its part of `now` (the span
 * that changed, from the first changed character to the last, goes to the block it starts in; blocks the span
 * wholly covered become empty; the block it ends in keeps what follows it). The blocks then join to `now`.
 */
const spread = (t: Array<string>, from: number, to: number, old: string, now: string): void => {
  let p = 0
  const max = Math.min(old.length, now.length)
  while (p < max && old.charCodeAt(p) === now.charCodeAt(p)) p++
  let q = 0
  while (q < max - p && old.charCodeAt(old.length - 1 - q) === now.charCodeAt(now.length - 1 - q)) q++
  const end = old.length - q
  // the block the span starts in (an insertion at the very end: the last block), and the one it ends in
  let b = from, start = 0
  while (b < to && start + t[b].length <= p) start += t[b++].length
  let e = b, eStart = start
  while (e < to && eStart + t[e].length < end) eStart += t[e++].length
  const rep = now.slice(p, now.length - q)
  if (e === b) {
    t[b] = t[b].slice(0, p - start) + rep + t[b].slice(end - start)
    return
  }
  t[b] = t[b].slice(0, p - start) + rep
  for (let k = b + 1; k < e; k++) t[k] = ""
  t[e] = t[e].slice(end - eStart)
}

/**
 * The texts of a run of one response's blocks (`texts`, in order, each already redacted by `redact`) with each
 * joint redacted as one ({@link redactJoint}), joint by joint in order. The first text is the block before the
 * joint (the last with text, when a joint before emptied it); the second the block after it, and when that
 * changes nothing and the block is one word (no white space, as the middle of a token cut twice), the blocks after
 * it too, up to the first that holds white space or past the window (a secret cut across three blocks, or more).
 * What a joint's redaction changed is spread back over its blocks (the marker ends the block the secret began in,
 * a block the secret wholly covered becomes empty). Unchanged texts are the same strings; the answer has as many
 * texts as `texts`.
 */
export const redactRun = (redact: (s: string) => string, texts: ReadonlyArray<string>): Array<string> => finish(redactRunSteps(redact, texts))

/** Joints {@link redactRunSteps} and {@link redactJointsSteps} redact between two pauses: a few milliseconds of work. */
export const JOINTS_PER_STEP = 200

/** The answer of a generator of {@link redactRunSteps} or {@link redactJointsSteps} run to its end at once. */
const finish = <A>(g: Generator<void, A>): A => {
  for (;;) {
    const r = g.next()
    if (r.done === true) return r.value
  }
}

/**
 * {@link redactRun} a part at a time: the generator pauses after each {@link JOINTS_PER_STEP} joints (`step` counts
 * the joints of the caller's whole work, shared across runs) and returns what {@link redactRun} answers, so a caller
 * can let other work run meanwhile (a long run of one response's blocks: thousands of joints, seconds; tester32a F13).
 */
export function* redactRunSteps(
  redact: (s: string) => string,
  texts: ReadonlyArray<string>,
  step: { n: number } = { n: 0 }
): Generator<void, Array<string>> {
  const t = texts.slice()
  for (let k = 0; k + 1 < t.length; k++) {
    if (++step.n % JOINTS_PER_STEP === 0) yield
    // (a block the joint before emptied: the last one with text, whose end the joint goes on from)
    let i = k
    while (i > 0 && t[i].length === 0) i--
    const left = t.slice(i, k + 1).join("")
    let j = k + 1
    let right = t[j]
    let [x, y] = redactJoint(redact, left, right)
    if (x === left && y === right && j + 1 < t.length && right.length <= JOINT_WINDOW && !/\s/.test(right)) {
      while (j + 1 < t.length && right.length <= JOINT_WINDOW && !/\s/.test(t[j])) right += t[++j]
      ;[x, y] = redactJoint(redact, left, right)
    }
    if (x !== left) spread(t, i, k, left, x)
    if (y !== right) spread(t, k + 1, j, right, y)
  }
  return t
}

/**
 * `events` (each already redacted by `redact`, in their order) with each run of one response's text and thinking
 * ({@link sameResponseText}: consecutive events, any number) redacted as one text ({@link redactRun}). Events
 * whose text did not change are the same objects.
 */
export const redactJoints = (redact: (s: string) => string, events: ReadonlyArray<SessionEvent>): Array<SessionEvent> =>
  finish(redactJointsSteps(redact, events))

/**
 * {@link redactJoints} a part at a time: the generator pauses after each {@link JOINTS_PER_STEP} joints (as
 * {@link redactRunSteps}) and returns what {@link redactJoints} answers.
 */
export function* redactJointsSteps(redact: (s: string) => string, events: ReadonlyArray<SessionEvent>): Generator<void, Array<SessionEvent>> {
  const out = events.slice()
  const step = { n: 0 }
  for (let i = 0; i + 1 < out.length;) {
    let j = i + 1
    while (j < out.length && sameResponseText(out[j - 1], out[j])) j++
    if (j - i >= 2) {
      const texts = yield* redactRunSteps(redact, out.slice(i, j).map((e) => e.text!), step)
      for (let k = i; k < j; k++) if (texts[k - i] !== out[k].text) out[k] = { ...out[k], text: texts[k - i] }
    }
    i = j
  }
  return out
}

/**
 * A transcript (already redacted by `redact`) with each run of adjacent `text` and `thinking` blocks (with text) of
 * an assistant turn redacted as one text ({@link redactRun}): a turn's blocks are its responses' blocks, in order
 * (a transcript keeps no response id; blocks shown one after the other are read as one text at their joints); and
 * so are the adjacent `text` blocks of a user turn, which is one user message (one native record: every
 * provider's transcript starts a new user turn at each record; {@link sameUserMessage}).
 * Unchanged turns are the same objects; unchanged: the same transcript.
 */
export const redactTranscriptJoints = (redact: (s: string) => string, t: Transcript): Transcript => {
  let changed = false
  const isText = (b: Transcript["turns"][number]["blocks"][number]) => (b.type === "text" || b.type === "thinking") && b.text.length > 0
  const turns = t.turns.map((turn) => {
    if (turn.role === "system" || turn.blocks.length < 2) return turn
    const blocks = turn.blocks.slice()
    let touched = false
    for (let i = 0; i + 1 < blocks.length;) {
      if (!isText(blocks[i])) {
        i++
        continue
      }
      let j = i + 1
      while (j < blocks.length && isText(blocks[j])) j++
      if (j - i >= 2) {
        const run = blocks.slice(i, j) as Array<{ type: "text" | "thinking"; text: string }>
        const texts = redactRun(redact, run.map((b) => b.text))
        for (let k = i; k < j; k++) {
          if (texts[k - i] === run[k - i].text) continue
          blocks[k] = { ...run[k - i], text: texts[k - i] }
          touched = true
        }
      }
      i = j
    }
    if (!touched) return turn
    changed = true
    return { ...turn, blocks }
  })
  return changed ? { ...t, turns } : t
}
