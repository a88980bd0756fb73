/**
 * The transcript text `get_session` pages (issue 16, "token-budgeted: a
 * maxChars argument, with a cursor for the next page"): for any events and
 * any budget, the pages are within the budget, non-empty, consecutive, and
 * concatenated are the whole text; a page ends at an entry boundary when
 * one lies within the budget, and never inside a grapheme (a surrogate
 * pair, an emoji sequence, a letter and its combining marks) nor between
 * the halves of a surrogate pair, whatever the budget (tester18 F12: a
 * budget of 1 split an emoji); page cursors are bound to their
 * session, generation and text.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import type { SessionEvent } from "../../src/domain/model.js"
import {
  clipLength,
  decodePageCursor,
  encodePageCursor,
  eventEntry,
  GRAPHEME_WINDOW,
  pageAt,
  textDigest,
  transcriptText
} from "../../src/domain/transcript-pages.js"

const event = (i: number, text: string | null, extra: Partial<SessionEvent> = {}): SessionEvent => ({
  contractVersion: "1.1.0",
  provider: "claude-code",
  sourceId: "sha256:" + "0".repeat(64),
  sessionId: "s",
  eventId: `line-${i}`,
  sequence: i,
  kind: "message",
  role: "user",
  toolName: null,
  toolCallId: null,
  model: null,
  occurredAt: null,
  text,
  cursor: `c-${i}`,
  rawReference: { locatorClass: "claude-code-session-log" },
  extensions: {},
  toolInput: null,
  isError: null,
  compaction: null,
  parent: null,
  child: null,
  usage: null,
  responseId: null,
  ...extra
} as SessionEvent)

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: "grapheme" })
const graphemes = (s: string): Array<string> => [...SEGMENTER.segment(s)].map((g) => g.segment)
/** The offsets of `s` where a grapheme starts, and its end. */
const edges = (s: string): Set<number> => new Set([...[...SEGMENTER.segment(s)].map((g) => g.index), s.length])

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const texts = fc.array(fc.option(fc.string({ unit: "grapheme", maxLength: 300 }), { nil: null }), { maxLength: 30 })

const allPages = (events: ReadonlyArray<SessionEvent>, maxChars: number) => {
  const t = transcriptText(events)
  const out: Array<{ from: number; to: number }> = []
  let from = 0
  while (from < t.text.length) {
    const p = pageAt(t, from, maxChars)
    out.push(p)
    from = p.to
    if (out.length > t.text.length + 1) throw new Error("no progress")
  }
  return { t, out }
}

describe("transcript pages", () => {
  it.prop("pages are within the budget, non-empty, consecutive, and concatenated are the text", [texts, fc.integer({ min: 1, max: 2000 })], ([ts, maxChars]) => {
    const events = ts.map((x, i) => event(i, x))
    const { out, t } = allPages(events, maxChars)
    for (const p of out) {
      expect(p.to - p.from).toBeGreaterThan(0)
      // past the budget only to hold one grapheme whole
      if (p.to - p.from > maxChars) expect(graphemes(t.text.slice(p.from, p.to))).toHaveLength(1)
    }
    expect(out.map((p) => t.text.slice(p.from, p.to)).join("")).toBe(t.text)
    // A page that holds an entry boundary past its start within the budget ends at an entry boundary.
    const bounds = new Set([...t.starts, t.text.length])
    for (const p of out) {
      const within = t.starts.some((s) => s > p.from && s <= p.from + maxChars)
      if (within || p.to === t.text.length) expect(bounds.has(p.to)).toBe(true)
    }
  })

  it.prop("a page never ends between the halves of a surrogate pair (budget over 1)", [fc.array(fc.string({ unit: "grapheme-composite", minLength: 5, maxLength: 80 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 2, max: 40 })], ([ts, maxChars]) => {
    const events = ts.map((x, i) => event(i, `😀${x}😀😀`))
    const { out, t } = allPages(events, maxChars)
    for (const p of out.slice(0, -1)) {
      const c = t.text.charCodeAt(p.to - 1)
      expect(c >= 0xd800 && c <= 0xdbff).toBe(false)
    }
  })

  it.prop("a page never ends inside a grapheme, whatever the budget (1 included)", [fc.array(fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 80 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 40 })], ([ts, maxChars]) => {
    const events = ts.map((x, i) => event(i, `😀${x}👨‍👩‍👧e\u0301🇯🇵`))
    const { out, t } = allPages(events, maxChars)
    const at = edges(t.text)
    for (const p of out) {
      expect(at.has(p.to), JSON.stringify(t.text.slice(p.from, p.to + 2))).toBe(true)
      const c = t.text.charCodeAt(p.to - 1)
      expect(c >= 0xd800 && c <= 0xdbff).toBe(false)
    }
  })

  it("a budget of one character: an emoji, a flag, a letter and its accent each come whole (tester18 F12)", () => {
    const t = transcriptText([event(0, "a🎉b🇯🇵e\u0301\u0302c")])
    const head = eventEntry(event(0, null)).length - 1 // the header line and its newline
    const { out } = allPages([event(0, "a🎉b🇯🇵e\u0301\u0302c")], 1)
    const texts = out.map((p) => t.text.slice(p.from, p.to))
    expect(texts.join("")).toBe(t.text)
    expect(texts.slice(head, head + 5)).toEqual(["a", "🎉", "b", "🇯🇵", "e\u0301\u0302"])
    // every page is valid Unicode on its own: no lone surrogate
    for (const x of texts) expect(LONE_SURROGATE.test(x), JSON.stringify(x)).toBe(false)
  })

  it("a grapheme longer than the budget by more than the window is cut at the budget, never inside a surrogate pair", () => {
    const zalgo = "x" + "\u0301".repeat(3 * GRAPHEME_WINDOW)
    const t = transcriptText([event(0, zalgo + "🎉".repeat(3))])
    const start = t.text.indexOf("x")
    expect(pageAt(t, start, 10).to).toBe(start + 10)
    const emojiRun = transcriptText([event(0, "🎉".repeat(50))])
    const e = emojiRun.text.indexOf("🎉")
    expect(pageAt(emojiRun, e, 3).to).toBe(e + 2)
    expect(pageAt(emojiRun, e, 1).to).toBe(e + 2)
  })

  // session 28 (tester28a F8): the tail of a grapheme cut at the budget came as one page of up to the window past it
  // (maxChars 11: pages of 11, 11, 11, then 68): a page that starts inside a grapheme is no whole grapheme.
  it("pages through a grapheme longer than the window: every page within the budget until one ends it", () => {
    for (const marks of [70, 100, 3 * GRAPHEME_WINDOW]) {
      const t = transcriptText([event(0, "xy a" + "\u0301".repeat(marks) + " end")])
      const a = t.text.indexOf(" a\u0301") + 1
      for (const maxChars of [1, 5, 11, 13, 23, 40]) {
        let from = 0
        const lengths: Array<number> = []
        while (from < t.text.length) {
          const p = pageAt(t, from, maxChars)
          if (p.from > a && p.from < a + 1 + marks) lengths.push(p.to - p.from)
          from = p.to
        }
        // each page that starts inside the long grapheme holds at most maxChars
        for (const n of lengths) expect(n, `${marks} marks, maxChars ${maxChars}: ${lengths}`).toBeLessThanOrEqual(maxChars)
      }
    }
  })

  it("a clipped text ends at the edge of a grapheme", () => {
    expect(clipLength("abc", 5)).toBe(3)
    expect(clipLength("a🎉b", 2)).toBe(1)
    expect(clipLength("🎉b", 1)).toBe(0)
    expect(clipLength("ae\u0301x", 2)).toBe(1)
    expect(clipLength("a👨‍👩‍👧", 4)).toBe(1)
    expect(clipLength("x" + "\u0301".repeat(3 * GRAPHEME_WINDOW), 100)).toBe(100)
  })

  // tester23b F12: pages ended inside `[REDACTED:…]` (`…ord=[REDACTED:`, `[REDACT`), the next page starting with its rest.
  const MARKER = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]/g
  /** [start, end) of each marker of `s`. */
  const markers = (s: string) => [...s.matchAll(MARKER)].map((m) => [m.index, m.index + m[0].length] as const)
  const ids = fc.constantFrom("github-token", "secret-assignment", "email", "a", "acme-key", "x".repeat(80), "custom-id-2")
  const piece = fc.oneof(fc.string({ unit: "grapheme", maxLength: 12 }), ids.map((id) => `[REDACTED:${id}]`), fc.constantFrom(" ", "=", "[", "[REDACTED:", "~"))
  const marked = fc.array(fc.array(piece, { maxLength: 12 }).map((xs) => xs.join("")), { minLength: 1, maxLength: 6 })

  it.prop("a page never ends inside a redaction marker; one longer than the budget at the page's start is held whole (tester23b F12)", [marked, fc.integer({ min: 1, max: 120 })], ([ts, maxChars]) => {
    const { out, t } = allPages(ts.map((x, i) => event(i, x)), maxChars)
    expect(out.map((p) => t.text.slice(p.from, p.to)).join("")).toBe(t.text)
    const ms = markers(t.text)
    for (const p of out) {
      for (const [a, b] of ms) expect(p.to > a && p.to < b, `${JSON.stringify(t.text.slice(p.from, p.to))} cuts ${t.text.slice(a, b)}`).toBe(false)
      // past the budget only to hold one grapheme, or one marker, whole
      if (p.to - p.from > maxChars) {
        const page = t.text.slice(p.from, p.to)
        expect(graphemes(page).length === 1 || (ms.some(([a, b]) => a === p.from && b === p.to)), JSON.stringify(page)).toBe(true)
      }
    }
  })

  it("a page ends before a marker the budget cuts; a marker longer than the budget comes whole, alone (tester23b F12)", () => {
    const text = "password=[REDACTED:secret-assignment] and [REDACTED:github-token]"
    const t = transcriptText([event(0, text)])
    const at = t.text.indexOf(text)
    const m1 = at + text.indexOf("[REDACTED:secret")
    // budgets that end inside the first marker: the page ends before it
    for (const cut of [1, 5, 10, 20, 27]) expect(pageAt(t, at, m1 - at + cut).to).toBe(m1)
    // the marker starts the page and is longer than the budget: the page is the marker
    const p = pageAt(t, m1, 7)
    expect(t.text.slice(p.from, p.to)).toBe("[REDACTED:secret-assignment]")
    // a text that only looks like a marker's start is cut as text
    const u = transcriptText([event(0, "[REDACTED: not a marker")])
    const v = u.text.indexOf("[")
    expect(pageAt(u, v, 5).to).toBe(v + 5)
  })

  it("a clipped text ends before a marker that does not fit whole (tester23b F12)", () => {
    expect(clipLength("use [REDACTED:github-token] now", 10)).toBe(4)
    expect(clipLength("use [REDACTED:github-token] now", 4)).toBe(4)
    expect(clipLength("use [REDACTED:github-token] now", 27)).toBe(27)
    expect(clipLength("[REDACTED:github-token] now", 5)).toBe(0)
    expect(clipLength("[REDACTED:bad id] now", 5)).toBe(5)
  })

  it("each entry is headed by its event id, time, role, kind and tool", () => {
    expect(eventEntry(event(3, "hello", { occurredAt: "2026-01-01T00:00:00Z", kind: "tool-call", role: "assistant", toolName: "Bash" })))
      .toBe("[line-3] 2026-01-01T00:00:00Z assistant tool-call Bash\nhello\n\n")
    expect(eventEntry(event(4, null, { role: null, kind: "tool-result", isError: true }))).toBe("[line-4] - - tool-result (error)\n\n")
    const t = transcriptText([event(0, "a"), event(1, "bb")])
    expect(t.starts).toEqual([0, eventEntry(event(0, "a")).length])
    const p = pageAt(t, 0, t.text.length)
    expect([p.firstEvent, p.lastEvent]).toEqual([0, 1])
    expect(pageAt(transcriptText([]), 0, 10)).toEqual({ from: 0, to: 0, firstEvent: -1, lastEvent: -1 })
  })

  it("a page cursor resumes only its own session, generation and text", () => {
    const text = "x".repeat(100)
    const digest = textDigest(text)
    const token = encodePageCursor({ sessionUid: "ses_a", generation: 2, offset: 40, digest })
    const expected = { sessionUid: "ses_a", generation: 2, digest, length: 100 }
    expect(decodePageCursor(token, expected)).toEqual(Either.right(40))
    const code = (r: Either.Either<number, { code: string }>) => (Either.isLeft(r) ? r.left.code : "ok")
    expect(code(decodePageCursor(token, { ...expected, sessionUid: "ses_b" }))).toBe("INVALID_CURSOR")
    expect(code(decodePageCursor(token, { ...expected, generation: 3 }))).toBe("INVALID_CURSOR")
    expect(code(decodePageCursor(token, { ...expected, digest: textDigest("y") }))).toBe("INVALID_CURSOR")
    expect(code(decodePageCursor(token, { ...expected, length: 39 }))).toBe("INVALID_CURSOR")
    for (const bad of ["", "p1.", "p1.!!!", "p1." + Buffer.from("[1,2]").toString("base64url"), "c2.abc", "p1." + Buffer.from(JSON.stringify(["ses_a", 2, -1, digest])).toString("base64url")]) {
      expect(code(decodePageCursor(bad, expected)), bad).toBe("INVALID_CURSOR")
    }
  })
})
