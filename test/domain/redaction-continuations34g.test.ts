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

describe("tester34c F1: a Bearer token, an Authorization value and a command's password run over continuations", () => {
  const BT = marker("bearer-token")
  const CP = marker("cli-password")
  it("a Bearer token cut by a continuation (1 and 2, LF and CRLF, an empty line between)", () => {
    for (const joint of ["\\\n", "\\\r\n", "\\\n\\\n", "\\\r\n\\\r\n"]) {
      const prompt = `curl -H 'Authorization: Bearer abcdefghij${joint}klmnop0123456789' https://x`
      const { body, title } = both(prompt)
      expect(body).toBe(`curl -H 'Authorization: Bearer ${BT}' https://x`)
      expect(title).toBe(`curl -H 'Authorization: Bearer ${BT}' https://x`)
    }
    // the digit only in the token's rest, `Basic`, GitHub's `Authorization: token`
    expect(r.text("Basic dXNlcjpw\\\nYXNzMTIzNDU2 ok")).toBe(`Basic ${BT} ok`)
    expect(r.text("Authorization: token abcdefgh\\\nij0123456789 ok")).toBe(`Authorization: token ${BT} ok`)
  })

  it("an Authorization value with no scheme, cut by a continuation", () => {
    expect(r.text("Authorization: abcdefghij\\\nklmnop0123\nnext")).toBe(`Authorization: ${marker("authorization")}\nnext`)
  })

  it("a mysql -p password and other command passwords cut by a continuation", () => {
    const { body, title } = both("mysql -pS3cr\\\netPass db")
    expect(body).toBe(`mysql -p${CP} db`)
    expect(title).toBe(`mysql -p${CP} db`)
    expect(r.text("mysql -pS3cr\\\nfet99x db")).toBe(`mysql -p${CP} db`)
    expect(r.text("mysql -pS3cr\\\r\n\\\r\netPass db")).toBe(`mysql -p${CP} db`)
    expect(r.text("sshpass -p S3cr\\\netPass ssh host")).toBe(`sshpass -p ${CP} ssh host`)
    expect(r.text("curl -u bob:S3cr\\\net99x https://x")).toBe(`curl -u bob:${CP} https://x`)
    // the option-value step is shared: a named option's value too
    expect(r.text("tool --password=S3cr\\\netPass99 next")).toBe(`tool --password=${marker("cli-secret-option")} next`)
  })

  it("in JSON text (a tool call's input)", () => {
    const json = JSON.stringify({ command: "curl -H 'Authorization: Bearer abcdefghij\\\nklmnopqrstuvwxyz0123456789' x && mysql -pS3cr\\\netPass db" })
    expect(r.text(json)).toBe(JSON.stringify({ command: `curl -H 'Authorization: Bearer ${BT}' x && mysql -p${CP} db` }))
  })

  it("what ends a value still ends it: a plain line break, a blank before the `\\`, an indented next line", () => {
    expect(r.text("Bearer abcdefgh12\nklmnop next")).toBe(`Bearer ${BT}\nklmnop next`)
    expect(r.text("mysql -pS3cr3t\nprose goes on")).toBe(`mysql -p${CP}\nprose goes on`)
    expect(r.text("mysql -pS3cr3t \\\n  --host db")).toBe(`mysql -p${CP} \\\n  --host db`)
    expect(r.text("curl -H 'Authorization: Bearer abcdefgh12' \\\n  https://x")).toBe(`curl -H 'Authorization: Bearer ${BT}' \\\n  https://x`)
    expect(r.text("Bearer abcdefgh12\\\n  --next")).toBe(`Bearer ${BT}\\\n  --next`)
  })
})

describe("tester34c F2: a quoted NAME= value with a line break inside its quotes goes to its closing quote", () => {
  const SA = marker("secret-assignment")
  it("single and double quotes, a line break inside (LF, CRLF), in the text and the title", () => {
    for (const [prompt, want] of [
      ["export API_KEY='Zx81kLmN0pQrS\ntUvW92yZaBcD3' && ./run", `export API_KEY='${SA}' && ./run`],
      ["export API_KEY='Zx81kLmN0pQrS\\\ntUvW92yZaBcD3' && ./run", `export API_KEY='${SA}' && ./run`],
      ["export DB_PASSWORD=\"correct horse\nbattery staple\" && x", `export DB_PASSWORD="${SA}" && x`],
      ["export API_KEY=\"Zx81kLmN0pQrS\r\ntUvW92yZaBcD3\" && ./run", `export API_KEY="${SA}" && ./run`],
      ["DB_PASSWORD='one\ntwo\nthree9' go", `DB_PASSWORD='${SA}' go`]
    ] as const) {
      const { body, title } = both(prompt)
      expect(body).toBe(want)
      expect(title).toBe(want)
    }
  })

  it("an unbalanced quote does not take the text after it: at most 4 line breaks, 200 characters a line", () => {
    const far = "export API_KEY='abc\n1\n2\n3\n4\n5 it's here"
    expect(r.text(far)).toBe(far)
    const long = `export API_KEY='abc\n${"w".repeat(201)}'`
    expect(r.text(long)).toBe(long)
    // a quoted value on one line as before; the next line's quote is another word's
    expect(r.text("API_KEY='abc9x'\nit's fine")).toBe(`API_KEY='${SA}'\nit's fine`)
  })
})
