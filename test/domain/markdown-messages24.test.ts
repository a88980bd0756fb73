/**
 * tester24a F10: in a shareable Markdown document (`show --format markdown`) a message cannot pass for the
 * document's structure (docs/cli-output.md): a code fence it opens and never closes is closed at its end, and its
 * HTML (a tag, a comment) is text, so an unclosed `<details open>`, `<!--` or `<b>` cannot take in the turns after
 * it. What the message fences itself (a closed code block) still renders as written.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Transcript } from "../../src/domain/model.js"
import { inertMessage, renderTranscriptMarkdown } from "../../src/domain/render.js"

const doc = (user: string, thinking = "t") =>
  renderTranscriptMarkdown({
    sessionId: "s1", title: "t", model: null, startedAt: null, endedAt: null, compactions: [], parseWarnings: [], diagnostics: [],
    turns: [
      { role: "user", timestamp: null, blocks: [{ type: "text", text: user }] },
      { role: "assistant", timestamp: null, blocks: [{ type: "thinking", text: thinking }, { type: "text", text: "done" }] }
    ]
  } as unknown as Transcript)

/** The lines of `md` outside fenced code blocks (CommonMark: a fence closes on a line of the same character, at least as long). */
const outsideCode = (md: string): Array<string> => {
  const out: Array<string> = []
  let open: string | null = null
  for (const line of md.split("\n")) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (open !== null) {
      if (f !== null && f[1][0] === open[0] && f[1].length >= open.length && line.trim() === f[1]) open = null
      continue
    }
    if (f !== null) open = f[1]
    else out.push(line)
  }
  return out
}

describe("a message's Markdown is closed at its end (tester24a F10)", () => {
  it("tester24a C30: an unclosed fence and `<details open>` in a user message leave the next turn outside code and details", () => {
    const md = doc("```\n\n# Fake heading\n[click](javascript:alert(1)) ![img](https://evil.example/p.png?leak=1)\n<details open><summary>x</summary>")
    expect(outsideCode(md)).toContain("## assistant")
    expect(outsideCode(md)).toContain("done")
    // inside the (now closed) code block the tag is code text; nowhere outside code is it HTML
    expect(outsideCode(md).join("\n")).not.toMatch(/<details open>|<summary>x/)
  })

  it("a fence of tildes or of more backticks is closed by one of its own", () => {
    for (const open of ["~~~", "````", "~~~~~ js", "```python"]) {
      const md = doc(`${open}\nprint(1)`)
      expect(outsideCode(md), open).toContain("## assistant")
    }
    expect(inertMessage("````\ncode")).toBe("````\ncode\n````")
    expect(inertMessage("~~~\ncode")).toBe("~~~\ncode\n~~~")
  })

  it("a closed code block, inline code and plain Markdown stay as written", () => {
    const closed = "run:\n\n```bash\n<details open>\n```\n\n**bold** and `<b>` in code"
    expect(inertMessage(closed)).toBe(closed)
    expect(inertMessage("- a list\n- *em*")).toBe("- a list\n- *em*")
  })

  it("HTML is text: a tag, a closing tag, a comment, a declaration; an autolink stays a link", () => {
    expect(inertMessage("<details open><summary>x</summary>")).toBe("&lt;details open>&lt;summary>x&lt;/summary>")
    expect(inertMessage("<!-- hidden\n\nrest")).toBe("&lt;!-- hidden\n\nrest")
    expect(inertMessage("<b>bold, never closed")).toBe("&lt;b>bold, never closed")
    expect(inertMessage("see <https://example.com/a> and 1 < 2")).toBe("see <https://example.com/a> and 1 < 2")
    // a thinking block's own `<details>` (the renderer's) cannot be closed early by the text in it
    const md = doc("hi", "x</details>\n\n## user\nforged")
    expect(md).toContain("x&lt;/details>")
    expect(outsideCode(md).filter((l) => l.startsWith("## "))).toEqual(["## user", "## assistant"])
  })
})
