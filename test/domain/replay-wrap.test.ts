/**
 * Long unbroken runs cut for layout (src/domain/replay/wrap.ts): the header's
 * `longRunPieces` and the page script's `pieces` (run here from the script's
 * own text) cut alike, keep the text, cut only runs longer than LONG_RUN,
 * never inside a surrogate pair or before a combining mark, and look at each
 * code unit a bounded number of times (counted, not timed).
 */
import { describe, expect, it } from "@effect/vitest"
import { escapeHtmlBreakable, renderReplay } from "../../src/domain/replay/render.js"
import { replayInput } from "../../src/domain/replay/build.js"
import { LONG_RUN, longRunPieces, PIECES_JS, RUN_PIECE } from "../../src/domain/replay/wrap.js"
import { REPLAY_JS } from "../../src/domain/replay/client.js"

const MB = 1_000_000

/** The page's `pieces`, from its script's text; `charCodeAt` and `slice` calls counted. */
const pagePieces = () => {
  const make = new Function(`${PIECES_JS}; return pieces`) as () => (s: unknown) => Array<string>
  return make()
}

/** A string-like whose reads are counted: what the page's `pieces` asks of the text. */
const counted = (s: string) => {
  const reads = { n: 0 }
  const proxy = {
    get length() {
      return s.length
    },
    charCodeAt(i: number) {
      reads.n++
      return s.charCodeAt(i)
    },
    slice(a: number, b?: number) {
      reads.n += 1
      return s.slice(a, b)
    }
  }
  return { proxy, reads }
}

const PATHOLOGICAL: Record<string, string> = {
  word: "A".repeat(MB),
  stars: "*".repeat(MB),
  underscores: "_".repeat(MB),
  backticks: "`".repeat(MB),
  brackets: "[".repeat(MB),
  url: "http://" + "x/".repeat(MB / 2),
  noEnd: "http://" + "é".repeat(MB),
  emoji: "\u{1F600}".repeat(MB / 2),
  marks: ("e" + "\u0301".repeat(20)).repeat(MB / 21),
  zwj: "\u{1F468}\u200d\u{1F469}\u200d\u{1F467}".repeat(MB / 8),
  arabic: "\u0628".repeat(MB),
  mixed: ("word ".repeat(50) + "Z".repeat(5000) + "\n").repeat(150)
}

describe("long unbroken runs are cut for layout", () => {
  it("keeps the text, cuts runs longer than LONG_RUN into pieces of about RUN_PIECE, and the page's script cuts alike", () => {
    const page = pagePieces()
    for (const [name, text] of Object.entries(PATHOLOGICAL)) {
      const ps = longRunPieces(text)
      expect(ps.join(""), name).toBe(text)
      expect(ps.length, name).toBeGreaterThan(text.length / (RUN_PIECE + 10))
      // No piece holds a run longer than LONG_RUN; no cut inside a surrogate pair, before a combining mark
      // (unless a run of them is longer than 8) or after a ZWJ.
      const bad = ps.filter((p, k) =>
        Math.max(...p.split(/[ \n\t\r\f\u200b\u3000]/).map((r) => r.length)) > LONG_RUN ||
        (k > 0 && ((p.charCodeAt(0) >= 0xdc00 && p.charCodeAt(0) <= 0xdfff) || ps[k - 1].endsWith("\u200d") || (name !== "marks" && /^\p{M}/u.test(p))))
      )
      expect(bad.slice(0, 3), name).toEqual([])
      expect(page(text), name).toEqual(ps)
    }
  })

  it("leaves prose and runs up to LONG_RUN as one piece", () => {
    const prose = "The quick brown fox jumps over the lazy dog.\n".repeat(20_000)
    expect(longRunPieces(prose)).toEqual([prose])
    const edge = `${"a".repeat(LONG_RUN)} ${"b".repeat(LONG_RUN)}\n${"c".repeat(LONG_RUN)}`
    expect(longRunPieces(edge)).toEqual([edge])
    expect(longRunPieces("")).toEqual([""])
    expect(longRunPieces("a".repeat(LONG_RUN + 1)).length).toBeGreaterThan(1)
  })

  it("the page's script reads each code unit a bounded number of times, whatever the text", () => {
    const page = pagePieces()
    for (const [name, text] of Object.entries(PATHOLOGICAL)) {
      const { proxy, reads } = counted(text)
      const ps = page(proxy)
      expect(ps.join(""), name).toBe(text)
      expect(reads.n, name).toBeLessThan(4 * text.length + 100)
    }
  })

  it("the page's script and the header use it: messages through putText, the title and header values with <wbr>", () => {
    expect(REPLAY_JS).toContain("function pieces(s)")
    expect(REPLAY_JS).toContain("function putText(e, s)")
    expect(escapeHtmlBreakable("<".repeat(LONG_RUN + 1))).toMatch(/^(&lt;)+<wbr>(&lt;)+/)
    expect(escapeHtmlBreakable("a <b> c")).toBe("a &lt;b&gt; c")
    const title = "Q".repeat(MB)
    const html = renderReplay(replayInput({ session: { sessionId: "s", provider: "muse-agents", title, workspace: "/" + "w".repeat(MB) }, events: [], subagents: [] }))
    const h1 = /<h1>(.*?)<\/h1>/s.exec(html)![1]
    expect(h1.split("<wbr>").join("")).toBe(title)
    expect(h1.split("<wbr>").length).toBeGreaterThan(MB / (RUN_PIECE + 10))
    expect(/<dd>\/w{1,100}<wbr>/.test(html)).toBe(true)
    // The document's <title> is plain text, without <wbr>.
    expect(/<title>Q+ · session-ingest replay<\/title>/.test(html)).toBe(true)
  })
})
