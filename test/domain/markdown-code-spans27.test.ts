/**
 * Every inline code span the Markdown writer builds from a value a source wrote (a session id, a tool name, a
 * compaction id) is safe (tester27a F1): fenced by a run of backticks longer than any inside it (CommonMark 6.1), so
 * the value's own backtick cannot close the span and put `<img onerror>` outside it, and on one line (line breaks
 * shown as `\n`, docs/cli-output.md), so no value forges a heading. The writer is the same for every provider: a
 * Claude Code tool name and a Muse agents session id are both values of a {@link Transcript}.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Transcript } from "../../src/domain/model.js"
import { markdownCode, renderTranscriptMarkdown } from "../../src/domain/render.js"

const HOSTILE_TOOL = "x` <img src=x onerror=alert(1)> `y\n# Injected H1\n<script>alert(8)</script>"
const HOSTILE_SESSION = "s` <img src=x onerror=alert(11)> `\n# H1 injected\n<script>alert(12)</script>"

const transcript = (sessionId: string, toolName: string): Transcript => ({
  sessionId, title: "hello", model: null, startedAt: null, endedAt: null, parseWarnings: [], diagnostics: [],
  compactions: [{ id: "c`1 <img src=x onerror=alert(3)>\n# c", trigger: "auto\n## t <img src=y>", timestamp: null }],
  turns: [{ role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "t1", name: toolName, input: {} }] }]
} as unknown as Transcript)

describe("markdownCode (tester27a F1)", () => {
  it("fences a value by one backtick more than its longest run, padded when it starts or ends with a backtick or space", () => {
    expect(markdownCode("Bash")).toBe("`Bash`")
    expect(markdownCode("a`b")).toBe("``a`b``")
    expect(markdownCode("a``b`c")).toBe("```a``b`c```")
    expect(markdownCode("`x")).toBe("`` `x ``")
    expect(markdownCode("x ")).toBe("` x  `")
    expect(markdownCode("")).toBe("` `")
  })

  it("writes line breaks as \\n", () => {
    expect(markdownCode("a\nb\r\tc")).toBe("`a\\nb\\r\\tc`")
  })
})

describe("renderTranscriptMarkdown: source values in code spans cannot break out (tester27a F1)", () => {
  const md = renderTranscriptMarkdown(transcript(HOSTILE_SESSION, HOSTILE_TOOL))
  const lines = md.split("\n")

  it("a tool name holding a backtick, HTML and line breaks stays inside its code span", () => {
    expect(lines).toContain("**tool** ``x` <img src=x onerror=alert(1)> `y\\n# Injected H1\\n<script>alert(8)</script>``")
  })

  it("a session id holding a backtick, HTML and line breaks stays inside its code span", () => {
    expect(lines).toContain("- session: ``s` <img src=x onerror=alert(11)> `\\n# H1 injected\\n<script>alert(12)</script>``")
  })

  it("a compaction's id is a code span and its trigger is one inert line", () => {
    expect(lines).toContain("- ``c`1 <img src=x onerror=alert(3)>\\n# c`` (auto\\n## t &lt;img src=y>) ")
  })

  it("no line of the document is a heading the writer did not write", () => {
    expect(lines.filter((l) => /^ {0,3}#/.test(l))).toEqual(["# hello", "## assistant", "## compactions"])
  })
})
