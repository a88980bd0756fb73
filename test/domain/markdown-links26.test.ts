/**
 * tester25b F2: in a shareable Markdown document an inline link or image whose destination is not plainly
 * `http(s)://`, `mailto:` or relative cannot be live. CommonMark 6.3 (inline links): `[text](dest "title")` with
 * `]` directly followed by `(`; the destination may be in `<…>`, may follow spaces or one line ending, and
 * undergoes entity/numeric-character reference decoding (`&#106;` is `j`, `&#58;` is `:`) and backslash-escape
 * removal (`\:` is `:`), so `[x](&#106;avascript:alert(1))` is a `javascript:` link. Such a link has its `(`
 * escaped (`]\(`): CommonMark renders `\(` as `(`, so the text reads as written and is no link. Ordinary https,
 * mailto and relative links, code spans and fences stay as written.
 */
import { describe, expect, it } from "@effect/vitest"
import { inertMessage, markdownTitle } from "../../src/domain/render.js"

describe("inline links with a dangerous destination in a message (tester25b F2)", () => {
  it("a javascript:, vbscript: or data: destination, in any spelling CommonMark decodes, is no link", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["[click](javascript:alert(1))", "[click]\\(javascript:alert(1))"],
      ["[w](JAVASCRIPT:alert(3))", "[w]\\(JAVASCRIPT:alert(3))"],
      ["[x](&#106;avascript:alert(8))", "[x]\\(&#106;avascript:alert(8))"],
      ["[x](&#x6A;avascript:alert(8))", "[x]\\(&#x6A;avascript:alert(8))"],
      ["[z](javascript&#58;alert(2))", "[z]\\(javascript&#58;alert(2))"],
      ["[z](javascript&colon;alert(2))", "[z]\\(javascript&colon;alert(2))"],
      ["[b](javascript\\:alert(1))", "[b]\\(javascript\\:alert(1))"],
      ["[v](vbscript:msgbox(1))", "[v]\\(vbscript:msgbox(1))"],
      ["[d](data:text/html;base64,PHNjcmlwdD4=)", "[d]\\(data:text/html;base64,PHNjcmlwdD4=)"],
      ["[s](   javascript:alert(1))", "[s]\\(   javascript:alert(1))"],
      ["[t](\tjavascript:alert(1))", "[t]\\(\tjavascript:alert(1))"],
      ["[c](<\u0001javascript:alert(1)>)", "[c]\\(<\u0001javascript:alert(1)>)".replace("<", "<")],
      ["[q](javascript:alert(1) \"a title\")", "[q]\\(javascript:alert(1) \"a title\")"],
      ["[a [b] c](javascript:x)", "[a [b] c]\\(javascript:x)"],
      ["[a [b](javascript:x) c](https://ok.example)", "[a [b]\\(javascript:x) c](https://ok.example)"],
      ["![i](javascript:x)", "\\![i]\\(javascript:x)"],
      ["see [here](javascript:a()) and [there](https://ok.example)", "see [here]\\(javascript:a()) and [there](https://ok.example)"]
    ]
    for (const [input, want] of cases) expect(inertMessage(input), JSON.stringify(input)).toBe(want)
  })

  it("a <…> destination: the link is escaped, and its < is text in a message body", () => {
    expect(inertMessage("[a](<javascript:alert(1)>)")).toBe("[a]\\(&lt;javascript:alert(1)>)")
    // the title writes any HTML as text too, as the body does (session 28, tester28a F5)
    expect(markdownTitle("[a](<javascript:alert(1)>)")).toBe("# [a]\\(&lt;javascript:alert(1)>)")
  })

  it("a destination on the next line (CommonMark allows one line ending after `(`) is escaped", () => {
    expect(inertMessage("[n](\njavascript:alert(1))")).toBe("[n]\\(\njavascript:alert(1))")
    expect(inertMessage("[n](  \n<javascript:alert(1)>)")).toBe("[n]\\(  \n&lt;javascript:alert(1)>)")
  })

  it("inside a block quote or a list item too", () => {
    const got = inertMessage("> [q](javascript:alert(1))\n- [l](javascript:x)\n1. see [o](vbscript:y)\n> > [d](data:,x)")
    expect(got.split("\n")).toEqual(["> [q]\\(javascript:alert(1))", "- [l]\\(javascript:x)", "1. see [o]\\(vbscript:y)", "> > [d]\\(data:,x)"])
  })

  it("the title line and a header field are made inert the same way", () => {
    expect(markdownTitle("open [me](javascript:alert(1))")).toBe("# open [me]\\(javascript:alert(1))")
    expect(markdownTitle("read [the docs](https://example.com/docs)")).toBe("# read [the docs](https://example.com/docs)")
  })

  it("ordinary links stay as written: http(s) in any case, mailto, relative, anchors, empty, <…>, with a title", () => {
    const kept = [
      "[docs](https://example.com/a?b=c&d=e#f)", "[H](HTTPS://EXAMPLE.COM)", "[old](http://example.com)", "[m](mailto:a@b.example)",
      "[r](../README.md#usage)", "[p](src/app.ts \"the app\")", "[h](#anchor)", "[q](?page=2)", "[e]()", "[u](<https://example.com/a b>)",
      "[ws]( https://example.com )", "[t](https://example.com 'title with javascript:x')", "a[0](x) in prose", "[link](https://example.com) text"
    ].join("\n")
    expect(inertMessage(kept)).toBe(kept)
  })

  it("a code span is one only as CommonMark 6.1 reads it: a run of backticks closed by a run as long", () => {
    // ``  then ` is no code span: the link between is live in CommonMark, so it is escaped
    expect(inertMessage("``[x](javascript:alert(1))`")).toBe("``[x]\\(javascript:alert(1))`")
    expect(inertMessage("`a`` ![i](http://e.example/t.png)")).toBe("`a`` \\![i](http://e.example/t.png)")
    // an escaped backtick opens nothing; the run after it is one shorter
    expect(inertMessage("\\`[x](javascript:y)`")).toBe("\\`[x]\\(javascript:y)`")
    expect(inertMessage("\\``[x](javascript:y)`")).toBe("\\``[x](javascript:y)`")
    // a span holding shorter or longer runs of backticks stays whole
    for (const code of ["``a` [x](javascript:y) `b``", "`a`` ![i](x.png) ``b`", "see ```a `` <img src=x> ``` here"]) expect(inertMessage(code)).toBe(code)
  })

  it("a line of backticks with a backtick after them is no fence (CommonMark 4.5): the lines after it are made inert", () => {
    // in CommonMark the first line is a paragraph's text, the <img> in it raw HTML, the link live
    expect(inertMessage("```x`\n<img src=x onerror=alert(1)>\n[c](javascript:alert(1))")).toBe("```x`\n&lt;img src=x onerror=alert(1)>\n[c]\\(javascript:alert(1))")
  })

  it("code spans and fenced code stay as written", () => {
    const code = "use `[x](javascript:y)` here\n```\n[x](javascript:alert(1))\n```\n~~~md\n[y](data:,z)\n~~~"
    expect(inertMessage(code)).toBe(code)
  })
})
