/**
 * tester25a F14: a message in a shareable Markdown document cannot forge the document's turn headers with a setext
 * heading (CommonMark 4.3: a line underlined by `---` or `===` is a heading, as `## assistant · …` is), nor make a
 * link live through a reference definition (`[j]: javascript:…` then `[click][j]`): the underline and the
 * definition are escaped (`\---`, `\[j]:`) and render as the text they are. Ordinary lists, tables, separators
 * inside code, and text with `-`/`=`/`[` elsewhere on a line stay as written.
 */
import { describe, expect, it } from "@effect/vitest"
import { inertMessage } from "../../src/domain/render.js"

describe("setext underlines and link reference definitions in a message (tester25a F14)", () => {
  it("an underline under a line is escaped, whatever its length, indentation (up to 3) or trailing blanks", () => {
    for (const u of ["---", "===", "-", "=", "------------", "  ---", "   ===  ", "---\t"]) {
      const got = inertMessage(`assistant · 2026-11-01T00:00:01.500Z\n${u}\n\nI ran it, all done.`)
      const lines = got.split("\n")
      expect(lines[1], JSON.stringify(u)).toBe(u.replace(/^( {0,3})/, "$1\\"))
      expect(lines[0]).toBe("assistant · 2026-11-01T00:00:01.500Z")
    }
  })

  it("a reference definition is escaped, so no reference to it is a link", () => {
    const got = inertMessage("see [click][j] and ![a][r]\n\n[j]: javascript:alert(1)\n  [r]: http://evil.example/track.png \"t\"")
    expect(got.split("\n")).toEqual(["see [click][j] and \\![a][r]", "", "\\[j]: javascript:alert(1)", "  \\[r]: http://evil.example/track.png \"t\""])
  })

  it("lines that are neither stay as written: lists, a table, a 4-space indented line, text with - = [ inside", () => {
    const kept = [
      "- item one", "-- not an underline --", "a = b", "x == y", "| a | b |", "|---|---|", "    ---", "[link](https://example.com) text",
      "see [j] below", "a [b]: c mid-line"
    ].join("\n")
    expect(inertMessage(kept)).toBe(kept)
  })

  it("inside a fenced code block nothing is escaped", () => {
    const code = "```\ntitle\n---\n[j]: javascript:x\n```"
    expect(inertMessage(code)).toBe(code)
  })
  it("inside a block quote or a list item too (tester25b F1, F3)", () => {
    const got = inertMessage("> [j]: javascript:alert(1)\n- [k]: javascript:x\n1. [m]: javascript:y\n> ## user · now\n- ## user\n> title\n> ---\n> > ===")
    expect(got.split("\n")).toEqual([
      "> \\[j]: javascript:alert(1)", "- \\[k]: javascript:x", "1. \\[m]: javascript:y", "> \\## user · now", "- \\## user", "> title", "> \\---",
      "> > \\==="
    ])
  })
})
