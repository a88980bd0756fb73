/**
 * Session 28 (tester28a F5, MED): a Markdown document's title and header values (`show`/`transcript --format
 * markdown`, MCP `session://` resources) escaped only the HTML tags that load something (`<img`, `<script`, …), so a
 * first prompt `<div onmouseover=alert(1)>` or `<a href="javascript:…">` kept a live tag with an event handler or a
 * script link in the document's `#` line, where the body escapes any HTML. Now the title and header values are as
 * inert as message text: any tag, closing tag, comment or declaration is written as text (`&lt;div …`); an autolink
 * and text without HTML stay as written.
 */
import { describe, expect, it } from "vitest"
import { markdownField, markdownTitle, renderTranscriptMarkdown } from "../../src/domain/render.js"
import type { Transcript } from "../../src/domain/model.js"

const HOSTILE = [
  "<div onmouseover=alert(1)>hover</div>",
  '<b onclick="alert(1)">x</b>',
  'see <a href="javascript:alert(1)">x</a>',
  "<math><a xlink:href=javascript:alert(1)>x",
  "<details open><summary>x</summary>",
  "<!-- hidden --> shown",
  "</p><p style=x>",
  "<svg/onload=alert(1)>"
]

describe("session 28 (tester28a F5): no live HTML in a Markdown title or header value", () => {
  it("markdownTitle / markdownField write every tag as text", () => {
    for (const t of HOSTILE) {
      for (const out of [markdownTitle(t), markdownField(t)]) {
        expect(out, t).not.toMatch(/<[A-Za-z/!?]/)
        // what is written is the title with each `<` as `&lt;`
        expect(out.replace(/^# /, ""), t).toBe(t.replace(/</g, "&lt;"))
      }
    }
  })

  it("text without HTML, an autolink and a less-than sign in prose stay as written", () => {
    for (const t of ["Fix the build", "see <https://example.com/a>", "a < b and c > d", "mail <mailto:x@example.com>"]) {
      expect(markdownTitle(t)).toBe(`# ${t}`)
    }
  })

  it("the whole document: its # line holds no tag of the first prompt", () => {
    for (const t of HOSTILE) {
      const doc = renderTranscriptMarkdown({
        sessionId: "s1",
        title: t,
        model: null,
        startedAt: null,
        endedAt: null,
        turns: [{ role: "user", timestamp: null, blocks: [{ type: "text", text: t }] }],
        compactions: [],
        parseWarnings: [],
        diagnostics: []
      } satisfies Transcript)
      const first = doc.split("\n")[0]
      expect(first, t).toBe(`# ${t.replace(/</g, "&lt;")}`)
    }
  })
})
