/**
 * Session 24 (tester24a F13, F14): a token split by what a reader does not see. A terminal colour code inside a
 * token (`grep --color=always ghp_ .env` prints `GITHUB_TOKEN=ESC[01;31mESC[Kghp_ESC[mESC[KAbc…`; ls and jq colours)
 * or an invisible character (zero-width space, soft hyphen, …) hid it from every rule, while a terminal or a browser
 * shows the token whole. The rules now match on a view without them: the token goes with the codes inside it, in the
 * text, in every shareable output of an event and in the session's title; codes outside a token stay.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { j, sharedEventTexts, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction

/** ANSI control sequences a terminal's output holds: SGR colours, erase-in-line, C1 CSI, an OSC 8 hyperlink's end. */
const CODES = ["\x1b[m\x1b[K", "\x1b[01;31m\x1b[K", "\x1b[0m", "\x1b[38;5;208m", "\x9b1m", "\x1b]8;;\x07", "\x1b]0;title\x1b\\"]

/** `text` with no ANSI control sequence: what a terminal shows. */
const shown = (text: string) => text.replace(/(?:\x1b\[|\x9b)[0-?]*[ -\/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)/g, "")

/** Every cut of `key` into two, with `code` between (a piece of at least 4 characters on each side). */
const cuts = (key: string, code: string) => {
  const out: Array<string> = []
  for (let k = 4; k <= key.length - 4; k += Math.max(1, Math.floor(key.length / 4))) out.push(key.slice(0, k) + code + key.slice(k))
  return out
}

/** No piece of `key` of 8 characters or more in what a reader of `out` sees. */
const noPiece = (out: string, key: string, context: string) => {
  const seen = shown(out)
  for (let i = 0; i + 8 <= key.length; i++) expect(seen, context).not.toContain(key.slice(i, i + 8))
}

const GHP = j("ghp_", "AnsiTok0123456789abcdefghijklmnopqrs")

describe("F13: a token split by a terminal colour code", () => {
  it("the tester's cases: the token goes with the codes inside it, the codes before it stay", () => {
    expect(r.text(`GITHUB_TOKEN=\x1b[01;31m\x1b[K${GHP.slice(0, 4)}\x1b[m\x1b[K${GHP.slice(4)}`)).toBe(
      `GITHUB_TOKEN=\x1b[01;31m\x1b[K${marker("github-token")}`
    )
    expect(r.text(`\x1b[32m${GHP.slice(0, 4)}\x1b[0m${GHP.slice(4)} done`)).toBe(`\x1b[32m${marker("github-token")} done`)
    expect(r.text(`a \x1b[1m${GHP.slice(0, 10)}\x1b[0m${GHP.slice(10)}\x1b[0m b`)).toBe(`a \x1b[1m${marker("github-token")}\x1b[0m b`)
  })

  it("every key shape, cut anywhere by each kind of code, goes whole", () => {
    for (const [id, samples] of Object.entries(secretSamples())) {
      if (id === "private-key") continue
      for (const key of samples) {
        if (r.text(`x ${key} y`) === `x ${key} y`) continue
        for (const code of CODES) {
          for (const text of cuts(key, code)) {
            const out = r.text(`x ${text} y`)
            noPiece(out, key, JSON.stringify(text))
            expect(out, JSON.stringify(text)).toContain("[REDACTED:")
          }
        }
      }
    }
  })

  it("an OSC hyperlink's URL is still redacted, coloured text that is no secret stays as it is", () => {
    expect(r.text("see \x1b]8;;https://bob:Hunter2Secret9@ex.com/\x07link\x1b]8;;\x07 \x1b[1m")).not.toContain("Hunter2Secret9")
    for (const t of ["\x1b[32mPASS\x1b[0m test/a.test.ts (12 tests)", "\x1b[01;31m\x1b[Kerror\x1b[m\x1b[K: x", "\x1b[1;31mghp_\x1b[0m is a prefix"]) stays(t)
  })

  it.effect("in every shareable output of an event and in the session's title", () =>
    Effect.gen(function*() {
      const text = `grep says GITHUB_TOKEN=\x1b[01;31m\x1b[K${GHP.slice(0, 4)}\x1b[m\x1b[K${GHP.slice(4)}`
      const e = mk("claude-code", "s-24")
      const session = () => [e("message", { role: "user", text }), e("tool_result", { text: `out: \x1b[32m${GHP.slice(0, 9)}\x1b[0m${GHP.slice(9)}` })]
      const { atif, ...texts } = yield* sharedEventTexts(session)
      for (const out of [...texts.export, ...texts.exportOneByOne, ...texts.replay, atif]) noPiece(String(out), GHP, String(out))
      noPiece(r.title(text), GHP, "title")
      noPiece(r.title(text, new Map(), text), GHP, "title with its source")
    }).pipe(Effect.provide(Redaction.layer)))
})

describe("F14: a token with an invisible character inside", () => {
  const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
  it("the tester's cases: a zero-width space in a GitHub token, a soft hyphen in an Anthropic key", () => {
    expect(r.text(`token ${GHP.slice(0, 4)}\u200b${GHP.slice(4)} x`)).toBe(`token ${marker("github-token")} x`)
    const ant = j("sk-ant-api03-", "ShyTok0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqr-AAAAAAAA")
    expect(r.text(`${ant.slice(0, 13)}\u00ad${ant.slice(13)}`)).toBe(marker("anthropic-key"))
  })

  it("every key shape, cut anywhere by each invisible character, goes whole; prose with them stays", () => {
    for (const [id, samples] of Object.entries(secretSamples())) {
      if (id === "private-key") continue
      for (const key of samples) {
        if (r.text(`x ${key} y`) === `x ${key} y`) continue
        for (const c of INVISIBLE) {
          for (const text of cuts(key, c)) {
            const out = r.text(`x ${text} y`)
            noPiece(out.replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, ""), key, JSON.stringify(text))
            expect(out, JSON.stringify(text)).toContain("[REDACTED:")
          }
        }
      }
    }
    for (const t of ["\ufeffhello world", "co\u00adop\u00aderate", "a\u200bb", "\ud83d\udc68\u200d\ud83d\udc69 family"]) stays(t)
  })
})
