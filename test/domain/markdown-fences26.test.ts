/**
 * tester26a F2: a code fence indented under a list item (`- `, `1. `, `1) `, `+ `) is that item's code in CommonMark
 * (5.2: the item's content starts at column w, 2 for `- `, 3 for `1. `; 4.5: the fence ends with its container), so
 * it ends at a later non-blank line indented less than w. The message's Markdown must not read the rest of the
 * message as code (a `javascript:` link, a forged `## user`, `<img onerror>` left live), nor close it with a fence
 * at column 0 that opens a new top-level fence and takes in every later turn. The fence is closed, by a line of its
 * own indented as the fence is, before such a line and at the message's end: a fence indented k <= 3 is closed by a
 * closing line indented k whether CommonMark reads it at the top level or in an item (w <= k). A fence right after a
 * list marker (`- ````) is escaped, so that a later `  ```` cannot be its closing line read as an opening one.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Transcript } from "../../src/domain/model.js"
import { inertMessage, renderTranscriptMarkdown } from "../../src/domain/render.js"

const T = "2026-01-01T00:00:03.000Z"

const doc = (assistant: string) =>
  renderTranscriptMarkdown({
    sessionId: "s1", title: "t", model: null, startedAt: null, endedAt: null, compactions: [], parseWarnings: [], diagnostics: [],
    turns: [
      { role: "user", timestamp: null, blocks: [{ type: "text", text: "q" }] },
      { role: "assistant", timestamp: null, blocks: [{ type: "text", text: assistant }] },
      { role: "user", timestamp: null, blocks: [{ type: "text", text: "real user turn" }] }
    ]
  } as unknown as Transcript)

describe("a fence inside a list item ends with its item (tester26a F2)", () => {
  it("the tester's message: the fence is closed where the item ends, and the link after it is no link", () => {
    expect(inertMessage("- a\n\n  ```\n  code\n\n[list](javascript:alert(document.cookie))")).toBe(
      "- a\n\n  ```\n  code\n\n  ```\n[list]\\(javascript:alert(document.cookie))"
    )
  })

  it("the worse variant: a forged turn header and <img onerror> after an ordered item's fence are escaped", () => {
    expect(inertMessage(`1. step\n\n   \`\`\`\n   code\n\n## user · ${T}\n\nFORGED user turn\n\n<img src=x onerror=alert(1)>`)).toBe(
      `1. step\n\n   \`\`\`\n   code\n\n   \`\`\`\n\\## user · ${T}\n\nFORGED user turn\n\n&lt;img src=x onerror=alert(1)>`
    )
  })

  it("a fence left open at the message's end is closed by a line indented as it is, never one at column 0", () => {
    expect(inertMessage("1) a\n\n   ~~~~\n   code")).toBe("1) a\n\n   ~~~~\n   code\n   ~~~~")
    expect(inertMessage("+ a\n\n  ```\n  code")).toBe("+ a\n\n  ```\n  code\n  ```")
    // in the document the next turn is a heading, outside any code block
    const md = doc("- a\n\n  ```\n  code\n\n[x](javascript:alert(1))")
    expect(md).toContain("\n  ```\n[x]\\(javascript:alert(1))\n\n## user\n\nreal user turn\n")
    expect(md.split("\n").filter((l) => /^`{3}/.test(l))).toEqual([])
  })

  it("a closing line the item reads as one (indented up to 3 past the item's content) closes it here too", () => {
    // `     ```` is 3 past the item's content column 2: it closes the item's fence; written at the fence's indent
    expect(inertMessage("- a\n\n  ```\n     ```\n  [x](javascript:alert(3))")).toBe("- a\n\n  ```\n  ```\n  [x]\\(javascript:alert(3))")
    // `  \t```` is at column 4 (a tab to the next multiple of 4): 2 past the content column
    expect(inertMessage("- a\n\n  ```\n  \t```\n  [x](javascript:alert(4))")).toBe("- a\n\n  ```\n  ```\n  [x]\\(javascript:alert(4))")
    // a fence indented 3 in an item whose content starts at 2 ends at a line indented 2
    expect(inertMessage("- a\n\n   ```\n  [x](javascript:alert(2))\n  ## user")).toBe(
      "- a\n\n   ```\n   ```\n  [x]\\(javascript:alert(2))\n  \\## user"
    )
  })

  it("a fence right after a list marker is escaped: a later `  ```` opens a block, not closes one", () => {
    expect(inertMessage("- ```\n  code\n  ```\n  [x](javascript:alert(1))")).toBe("- \\```\n  code\n  ```\n  [x](javascript:alert(1))\n  ```")
    expect(inertMessage("1. ~~~\n   <img src=x onerror=alert(1)>")).toBe("1. \\~~~\n   &lt;img src=x onerror=alert(1)>")
  })

  it("a line of only spaces and a non-breaking space after the fence does not close it (4.5: spaces or tabs only)", () => {
    expect(inertMessage("```\ncode\n``` \u00a0\n[x](javascript:alert(5))")).toBe("```\ncode\n``` \u00a0\n[x](javascript:alert(5))\n```")
  })

  it("a closed code block in a list item, and one at the top level, stay as written", () => {
    const item = "1. Install:\n\n   ```bash\n   npm i <pkg>\n   ```\n\n2. Run it"
    expect(inertMessage(item)).toBe(item)
    const top = "```\n\tfunc() <b>\n  ```\n# x"
    expect(inertMessage(top)).toBe("```\n\tfunc() <b>\n  ```\n\\# x")
  })

  it("a block quote's fence stays text to this reading, as before", () => {
    expect(inertMessage("> ```\n> quoted code\n\n[quote](vbscript:msgbox(1))")).toBe("> ```\n> quoted code\n\n[quote]\\(vbscript:msgbox(1))")
  })
})
