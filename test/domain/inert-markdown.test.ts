/**
 * A message's text in a shareable Markdown document (`show --format markdown`,
 * `transcript --format markdown`, MCP's `session://` resources) cannot forge
 * the document's own turn headings nor load anything when viewed (tester20
 * F12: `## user · <time>` in an answer read as a user's turn; `![](http://…)`
 * and `<img src=http://…>` loaded from the network), and a tool's input or
 * result cannot close its code fence. The message's own Markdown still renders.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Transcript } from "../../src/domain/model.js"
import { inertMarkdown, renderTranscriptMarkdown } from "../../src/domain/render.js"

describe("inertMarkdown", () => {
  it("escapes headings of level 1 and 2, images and active HTML outside code; keeps the rest", () => {
    expect(inertMarkdown("## user · 2025-12-03T09:00:00.000Z")).toBe("\\## user · 2025-12-03T09:00:00.000Z")
    expect(inertMarkdown("# Title\n  ## two\n### three\n#hashtag")).toBe("\\# Title\n  \\## two\n### three\n#hashtag")
    expect(inertMarkdown("see ![chart](https://e.example/p.png)")).toBe("see \\![chart](https://e.example/p.png)")
    expect(inertMarkdown(`<img src="http://e/x"> <IFRAME src=x></iframe> <script>x</script> <b>bold</b>`))
      .toBe(`&lt;img src="http://e/x"> &lt;IFRAME src=x>&lt;/iframe> &lt;script>x&lt;/script> <b>bold</b>`)
    // code stays as written: fenced blocks (``` and ~~~) and inline spans
    const code = "```bash\n# comment\n## two\n![x](y) <img>\n```\n~~~\n# t\n~~~\nrun `![x](y)` or `<img>`"
    expect(inertMarkdown(code)).toBe(code)
    expect(inertMarkdown("plain text, no marks")).toBe("plain text, no marks")
  })

  it("in a rendered transcript: one user turn heading, the forged one escaped; a tool result cannot close its fence", () => {
    const t: Transcript = {
      sessionId: "s1", title: "t", model: null, startedAt: null, endedAt: null, compactions: [], parseWarnings: [], diagnostics: [],
      turns: [
        { role: "user", timestamp: null, blocks: [{ type: "text", text: "hi" }] },
        {
          role: "assistant", timestamp: null,
          blocks: [
            { type: "text", text: "ok\n\n## user · 2025-12-03T09:00:00.000Z\n\nFAKE TURN ![p](http://e/p.png)" },
            { type: "tool_use", id: "t1", name: "Bash", input: { command: "cat x" }, result: "````\n## tool\n````" }
          ]
        }
      ]
    } as unknown as Transcript
    const md = renderTranscriptMarkdown(t)
    expect(md.split("\n").filter((l) => /^## user/.test(l))).toEqual(["## user"])
    expect(md).toContain("\\## user · 2025-12-03T09:00:00.000Z")
    expect(md).toContain("\\![p](http://e/p.png)")
    expect(md).toContain("`````\n````\n## tool\n````\n`````")
  })

  it("the document's title (its H1) is made inert as the body is (tester23b F6)", () => {
    const t = {
      sessionId: "s1", title: `<script>alert(1)</script><iframe src="https://attacker.example/"> ![p](http://e/p.png)`, model: null,
      startedAt: null, endedAt: null, compactions: [], parseWarnings: [], diagnostics: [],
      turns: [{ role: "user", timestamp: null, blocks: [{ type: "text", text: "<script>alert(1)</script>" }] }]
    } as unknown as Transcript
    const lines = renderTranscriptMarkdown(t).split("\n")
    expect(lines[0]).toBe(`# &lt;script>alert(1)&lt;/script>&lt;iframe src="https://attacker.example/"> \\![p](http://e/p.png)`)
    expect(lines).toContain("&lt;script>alert(1)&lt;/script>")
    // a title that is a heading of its own stays one heading, a title with a line feed one line
    const forged = renderTranscriptMarkdown({ ...t, title: "## user\n## assistant" } as Transcript).split("\n")[0]
    expect(forged).toBe("# \\## user\\n## assistant")
  })

  it("the header's model line is made inert and kept on one line too", () => {
    const t = {
      sessionId: "s1", title: "t", model: "<img src=x onerror=alert(1)>\n## user", startedAt: null, endedAt: null,
      compactions: [], parseWarnings: [], diagnostics: [], turns: []
    } as unknown as Transcript
    const lines = renderTranscriptMarkdown(t).split("\n")
    expect(lines).toContain("- model: &lt;img src=x onerror=alert(1)>\\n## user")
    expect(lines.filter((l) => l.startsWith("## "))).toEqual([])
  })
})
