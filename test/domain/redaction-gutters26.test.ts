/**
 * Session 26 (tester25b F4): a secret-named `name = value` after bat's gutter (`  12 │ `, `bat --style=plain,numbers`
 * or `nl`-like `  12 | `) and after a Markdown quote before a diff's marker (`> +NAME = value`, a diff quoted in an
 * answer). docs/redaction.md lists these gutters; values are made up; the expected text is what it says stays.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const LINE = marker("secret-line")
const FIELD = marker("secret-field")

describe("`name = value` after bat's gutter or a quoted diff marker (tester25b F4)", () => {
  it.each([
    ["  12 \u2502 DB_PASSWORD = Bat5ecretH8", `  12 \u2502 DB_PASSWORD = ${LINE}`],
    ["   5 | DB_PASSWORD = Pipe5ecretT0", `   5 | DB_PASSWORD = ${LINE}`],
    ["> +DB_PASSWORD = Quote5ecretL2", `> +DB_PASSWORD = ${LINE}`],
    ["> -api_key = QuoteMinusK3y9", `> -api_key = ${LINE}`],
    ["> > +token = NestedQuot3T0k", `> > +token = ${LINE}`],
    ["  12 \u2502 +secret = BatD1ffS3cret", `  12 \u2502 +secret = ${LINE}`],
    ["   1 \u2502 [db]\n   2 \u2502 password = BatIni7Pw\n   3 \u2502 port = 5432", `   1 \u2502 [db]\n   2 \u2502 password = ${LINE}\n   3 \u2502 port = 5432`],
    // in JSON text: the bar raw (JSON.stringify keeps it) or as `\u2502`, after a `\n` escape
    ['{"stdout": "  11 \u2502 x = 1\\n  12 \u2502 DB_PASSWORD = JsonBat5ec1\\n"}', `{"stdout": "  11 \u2502 x = 1\\n  12 \u2502 DB_PASSWORD = ${LINE}\\n"}`],
    ['{"stdout": "  12 \\u2502 DB_PASSWORD = JsonBatEsc2"}', `{"stdout": "  12 \\u2502 DB_PASSWORD = ${LINE}"}`],
    // quoted values after the same decorations are secret-field's
    ['  12 \u2502 DB_PASSWORD = "BatQuot3dPw1"', `  12 \u2502 DB_PASSWORD = "${FIELD}"`],
    ['> +DB_PASSWORD = "QuotD1ffQuot3d"', `> +DB_PASSWORD = "${FIELD}"`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("innocents after the same decorations stay (tester25b F4)", () => {
  it.each([
    "  12 \u2502 count = 3",
    "  12 \u2502 timeout = 30",
    "   5 | retries = 3",
    "> +count = 3",
    "> -timeout = 30",
    "  12 \u2502 DB_PASSWORD = ${DB_PASSWORD}",
    "  12 \u2502 password = None",
    "> +api_key = os.environ.get",
    "   5 | token = get_token()"
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})
