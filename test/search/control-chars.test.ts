/**
 * Words touching control and format characters (found by a fresh user,
 * session 9): bidi isolates and marks (`\u2066word\u2069`), an OSC escape's
 * text (`ESC ]0;title BEL`: a terminal's window title), BEL, NUL, zero-width
 * characters separate words on both engines (SQLite FTS5 and PostgreSQL),
 * as grep would find them; the words of the search document are those of
 * {@link searchableText}.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { searchWords } from "../../src/domain/search/query.js"
import { searchableText } from "../../src/domain/search/text.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const TEXTS: ReadonlyArray<readonly [string, string]> = [
  ["wordone", "plain wordone here"],
  ["wordtwo", "bell wordtwo\x07 here"],
  ["wordthree", "isolate \u2066wordthree\u2069 here"],
  ["wordfour", "zwsp wordfour\u200b here"],
  ["wordfive", "esc \x1b]0;wordfive\x07 here"],
  ["wordsix", "nul wordsix\x00 here"],
  ["wordseven", "rtl \u2067wordseven\u2069 and \u202ewordeight\u202c"],
  ["wordnine", "lrm\u200ewordnine\u200f done"],
  ["wordten", "osc8 \x1b]8;;https://x.example/wordten\x1b\\link\x1b]8;;\x1b\\ done"],
  ["wordeleven", "bom\ufeffwordeleven\u2060joined"],
  ["wordtwelve", "c1\u0085wordtwelve\u009c end"]
]

describe("searchableText: control and format characters separate words", () => {
  it("each word is a word of its own in the searched text", () => {
    for (const [w, text] of TEXTS) {
      const e = mk("claude-code", "s")("message", { role: "user", text })
      const words = searchWords(searchableText(e).text).map((x) => x.w)
      expect(words, JSON.stringify(text)).toContain(w)
    }
  })

  it("colours still read as spaces (no `31merror`)", () => {
    const e = mk("claude-code", "s")("message", { role: "user", text: "\x1b[31merror\x1b[0m done" })
    expect(searchWords(searchableText(e).text).map((x) => x.w)).toEqual(["error", "done"])
  })

  it("a Persian word with a zero-width non-joiner, a flag's tag characters: no crash, the letters stay searchable", () => {
    const e = mk("claude-code", "s")("message", { role: "user", text: "می\u200cخواهم ok" })
    expect(searchWords(searchableText(e).text).map((x) => x.w)).toContain("ok")
  })
})

const src: SourceInfo = {
  sourceKey: "src-ctrl",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-ctrl" },
  summary: {},
  overview: { ...emptySourceSummary(), title: "control \u2066titleword\u2069", workspace: null }
}

describe.each(engines)("Index.search finds words beside control characters ($engine)", ({ newIndex }) => {
  it.effect("every word, and the title's", () =>
    Effect.gen(function*() {
      const target = yield* newIndex(tempDir("si-ctrl-"))
      const e = mk("claude-code", "sess-c")
      const events: Array<SessionEvent> = TEXTS.map(([, text], i) =>
        e("message", { role: "user", occurredAt: `2026-09-01T00:00:${String(i).padStart(2, "0")}.000Z`, text }))
      events.push(e("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "t1", toolInput: { command: "printf '\x1b]0;inputword\x07'" } }))
      const found = yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.beginGeneration(src, 1, "test")
        yield* index.commitBatch({ source: src, generation: 1, events }, () => Effect.void)
        yield* index.completeSource(src, null)
        const out: Record<string, number> = {}
        for (const w of [...TEXTS.map(([w]) => w), "wordeight", "inputword", "titleword"]) out[w] = (yield* index.search(w, {})).length
        return out
      }).pipe(Effect.provide(indexLayer(target)))
      for (const [w, n] of Object.entries(found)) expect(n, w).toBeGreaterThan(0)
    }))
})
