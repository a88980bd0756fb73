/**
 * tester33a F4: a title is a first prompt cut to 80 UTF-16 code units (79 and
 * `\u2026`); the cut went through whatever unit 79 was, so it split an emoji
 * into U+FFFD (a replacement character where the user typed a valid emoji) and
 * a letter from its combining mark; and `summary.firstPrompt` kept a lone
 * surrogate of the log as a `\ud800` escape in `sessions --json`. Now the cut
 * keeps the first graphemes that fit (Unicode extended grapheme clusters,
 * `Intl.Segmenter`), never more than 80 units, and never splits a surrogate
 * pair even where a grapheme is longer than the cut gives up (`CLIP_SLACK`);
 * firstPrompt's lone surrogates are U+FFFD as the title's are. A title cut
 * shorter than 80 units is still known as cut (`isClipped`), so its
 * redaction still leaves out what the cut may have left of a secret.
 *
 * The tester's shapes (/tmp/tester33a/work/uni): 78 `a` then two emoji; 79 `b`
 * then an emoji; 50 x `e` + U+0301; 77 `x` then a ZWJ family; `lone \ud800
 * surrogate and \udfff more`.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { CLIP_SLACK, clipText, isClipped, isTitleSource, TITLE_MAX_CHARS, titleOfRedacted } from "../../src/domain/redaction/clipped.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"

const E = "\u2026"
const GRIN = "\ud83d\ude00"
const FAMILY = "\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67"
const E_ACUTE = "e\u0301"
/** Whether `s` holds a UTF-16 surrogate without its other half, or U+FFFD. */
const broken = (s: string) => /\ufffd|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

describe("a title cut on a grapheme's edge (tester33a F4)", () => {
  it("78 `a` then two emoji: the emoji astride the cut is left out whole (79 units), no U+FFFD", () => {
    const t = titleOf("a".repeat(78) + GRIN + GRIN + " tail")
    expect(t).toBe("a".repeat(78) + E)
    expect(broken(t)).toBe(false)
  })

  it("79 `b` then an emoji: the cut is at 79 units, as before (80 in all)", () => {
    expect(titleOf("b".repeat(79) + GRIN + " tail")).toBe("b".repeat(79) + E)
  })

  it("an emoji that ends at unit 79 is kept whole", () => {
    expect(titleOf("c".repeat(77) + GRIN + GRIN + " tail")).toBe("c".repeat(77) + GRIN + E)
  })

  it("50 x e + U+0301: cut after an accent, never between a letter and its mark", () => {
    const t = titleOf(E_ACUTE.repeat(50))
    expect(t).toBe(E_ACUTE.repeat(39) + E)
    expect(t.length).toBe(79)
  })

  it("77 `x` then a ZWJ family (8 units): the family left out whole (78 units)", () => {
    expect(titleOf("x".repeat(77) + FAMILY + " family")).toBe("x".repeat(77) + E)
  })

  it("a grapheme longer than the slack (a letter under 30 marks) is cut at unit 79 (80 in all), a pair never split", () => {
    const marks = "z".repeat(60) + "e" + "\u0301".repeat(30) + " tail"
    expect(titleOf(marks)).toBe("z".repeat(60) + "e" + "\u0301".repeat(18) + E)
    expect(CLIP_SLACK).toBeLessThan(19)
    // a letter under 40 marks that are each a surrogate pair (U+1D165): no edge within the slack, and unit 79 is
    // the low half of a pair, so the cut goes one unit back (79 units in all), the pair whole or left out
    const pairsUnderMarks = "y".repeat(39) + "e" + "\ud834\udd65".repeat(40)
    const cut = clipText(pairsUnderMarks, TITLE_MAX_CHARS)
    expect(cut.length).toBe(79)
    expect(broken(cut)).toBe(false)
  })

  it("never longer than 80 units; each such cut is known as cut, and its source found", () => {
    const prompts = [
      "a".repeat(78) + GRIN + GRIN + " tail",
      E_ACUTE.repeat(50),
      "x".repeat(77) + FAMILY + " family",
      "z".repeat(60) + "e" + "\u0301".repeat(30) + " tail",
      "w".repeat(200)
    ]
    for (const p of prompts) {
      const t = titleOf(p)
      expect(t.length).toBeLessThanOrEqual(TITLE_MAX_CHARS)
      expect(isClipped(t, TITLE_MAX_CHARS), p).toBe(true)
      expect(isTitleSource(t, p), p).toBe(true)
    }
    // a short text is not a cut; a title of 80 units that is not cut either
    expect(isClipped("short" + E, TITLE_MAX_CHARS)).toBe(false)
    expect(isClipped("d".repeat(TITLE_MAX_CHARS), TITLE_MAX_CHARS)).toBe(false)
  })

  it("the redaction of a title cut shorter than 80: the partial word before the ellipsis still goes", () => {
    // An internationalized address (a letter with its mark in the local part, RFC 6531) that the cut goes through:
    // 72 units, then o + U+0308 pairs: the cut keeps 3 of them (79 units in all). No rule sees a partial address.
    const local = "o\u0308".repeat(10)
    const title = titleOf("x".repeat(66) + " mail " + local + "@example.com thanks")
    expect(title).toBe("x".repeat(66) + " mail " + "o\u0308".repeat(3) + E)
    expect(title.length).toBe(79)
    expect(defaultRedaction.title(title)).toBe("x".repeat(66) + " mail" + E)
  })

  it("a first prompt's CR LF is one grapheme: the cut does not fall between them", () => {
    expect(clipText("a".repeat(78) + "\r\nmore text", TITLE_MAX_CHARS)).toBe("a".repeat(78) + E)
  })

  it("titleOfRedacted cuts on a grapheme's edge too", () => {
    expect(titleOfRedacted("a".repeat(78) + GRIN + GRIN + " tail")).toBe("a".repeat(78) + E)
  })
})

describe("sessions --json: the title and summary.firstPrompt (tester33a F4)", () => {
  it("a lone surrogate is U+FFFD in both; an emoji at the cut is whole", () => {
    const root = tempDir("si-title-cut-")
    const dir = nodePath.join(root, "-srv-u")
    fs.mkdirSync(dir, { recursive: true })
    const sid = (n: number) => `99990000-0000-4000-8000-00000000000${n}`
    // JSON text with the escapes as the log writes them
    const line = (n: number, content: string) =>
      `{"type":"user","sessionId":"${sid(n)}","uuid":"u1","parentUuid":null,"cwd":"/srv/u","timestamp":"2026-11-20T10:00:01.000Z",` +
      `"message":{"role":"user","content":"${content}"}}\n`
    fs.writeFileSync(nodePath.join(dir, `${sid(1)}.jsonl`), line(1, "a".repeat(78) + "\\ud83d\\ude00\\ud83d\\ude00 tail"))
    fs.writeFileSync(nodePath.join(dir, `${sid(3)}.jsonl`), line(3, "lone \\ud800 surrogate and \\udfff more"))
    const out = tempDir()
    const index = nodePath.join(out, "idx.db")
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", TZ: "UTC" }
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(out, "none"), "--muse-root", nodePath.join(out, "none"), "--workspace", out], { env })
    expect([0, 8]).toContain(imp.code)
    const listed = cli(["sessions", "--index", index, "--json"], { env })
    expect(listed.code, listed.stderr).toBe(0)
    // the JSON text itself holds no `\ud800`-style escape (strict parsers refuse one)
    expect(listed.stdout).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i)
    const rows = JSON.parse(listed.stdout).data as Array<{ sessionId: string; title: string | null; summary: { firstPrompt?: string } }>
    const one = rows.find((r) => r.sessionId === sid(1))!
    expect(one.title).toBe("a".repeat(78) + E)
    expect(one.summary.firstPrompt).toBe("a".repeat(78) + GRIN + GRIN + " tail")
    const three = rows.find((r) => r.sessionId === sid(3))!
    expect(three.title).toBe("lone \ufffd surrogate and \ufffd more")
    expect(three.summary.firstPrompt).toBe("lone \ufffd surrogate and \ufffd more")
  })
})
