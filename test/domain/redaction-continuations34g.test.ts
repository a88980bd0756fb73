/**
 * Session 34 (tester34c F4, F1, F2): a secret cut by shell line continuations where the shell reads one word.
 * F4: an empty continuation line (`\` alone on its line) inside a cut secret goes on with the chain: a key and a
 * `NAME=` value cut with 1, 2, 3 empty continuation lines (LF, CRLF, JSON text) go whole.
 * (docs/redaction.md, "Line continuations")
 */
import { describe, expect, it } from "@effect/vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file
const GH1 = ["ghp_", "A1b2C3d4E5f6G7"].join("")
const GH2 = ["h8I9j0K1l2", "M3n4O5p6Q7r8"].join("")

/** The prompt's text and its title, redacted. */
const both = (prompt: string) => ({ body: r.text(prompt), title: r.title(titleOf(prompt)) })

describe("tester34c F4: an empty continuation line inside a cut secret goes on with the word", () => {
  for (const [label, cont] of [["LF", "\\\n"], ["CRLF", "\\\r\n"]] as const) {
    for (const empty of [1, 2, 3]) {
      const joint = cont.repeat(empty + 1)
      it(`a GitHub token, ${empty} empty line(s), ${label}`, () => {
        const { body, title } = both(`export GITHUB_TOKEN=${GH1}${joint}${GH2} && gh auth`)
        expect(body).toBe(`export GITHUB_TOKEN=${marker("github-token")} && gh auth`)
        expect(title).toBe(`export GITHUB_TOKEN=${marker("github-token")} && gh auth`)
        const bare = both(`x ${GH1}${joint}${GH2} ok`)
        expect(bare.body).toBe(`x ${marker("github-token")} ok`)
        expect(bare.title).toBe(`x ${marker("github-token")} ok`)
      })
      it(`a DB_PASSWORD value, ${empty} empty line(s), ${label}`, () => {
        const { body, title } = both(`export DB_PASSWORD=Sup3rS3cr3tV4lue${joint}Part2OfIt99 && run`)
        expect(body).toBe(`export DB_PASSWORD=${marker("secret-assignment")} && run`)
        expect(title).toBe(`export DB_PASSWORD=${marker("secret-assignment")} && run`)
        // the value on a later line after `NAME=\` and empty continuation lines
        expect(r.text(`DB_PASSWORD=${joint}Cd2Ef3Gh4 ./run`)).toBe(`DB_PASSWORD=${marker("secret-assignment")} ./run`)
      })
    }
  }

  it("in JSON text (a tool call's input)", () => {
    const json = JSON.stringify({ command: `export GITHUB_TOKEN=${GH1}\\\n\\\n${GH2} && x`, description: "DB_PASSWORD=Ab1\\\n\\\n\\\nCd2Ef3Gh4 ./run" })
    expect(r.text(json)).toBe(
      JSON.stringify({ command: `export GITHUB_TOKEN=${marker("github-token")} && x`, description: `DB_PASSWORD=${marker("secret-assignment")} ./run` })
    )
  })

  it("what is no secret's rest stays: words after empty continuation lines, a plain line break", () => {
    const words = "docker run \\\n\\\n  --rm \\\n\\\n\\\n  image:latest"
    expect(r.text(words)).toBe(words)
    expect(r.text("abc\\\n\\\ndef\\\n\\\nghi")).toBe("abc\\\n\\\ndef\\\n\\\nghi")
    expect(r.text(`export API_KEY=k3yV4lu3Zq9\n\\\nnext`)).toBe(`export API_KEY=${marker("secret-assignment")}\n\\\nnext`)
  })

  it("many empty continuation lines are read once (a long text stays as it is)", () => {
    const long = "\\\n".repeat(50_000) + "end"
    expect(r.text(long)).toBe(long)
  })
})
