/**
 * Session 25 (tester25a F9, F3, F11): a secret-named `name = value` assignment after a line's decoration (a Read
 * tool's gutter `     5→`, `cat -n`'s `     5<TAB>`, a diff's `+`/`-`, `grep -n`'s `path:12:`), after a string's
 * opening quote (`echo "db_password = …" >> app.ini`, `{"stdout": "db_password = …\n"}`), and a JSON key whose words
 * are spaced (`{"Db Password": "…"}`). Values are made up; the expected text is what docs/redaction.md says stays.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const LINE = marker("secret-line")
const FIELD = marker("secret-field")
const SPACED = marker("secret-spaced-key")

describe("a bare `name = value` after a line's decoration (tester25a F9)", () => {
  it.each([
    ["     5\u2192db_password = GutterPw0rd77", `     5\u2192db_password = ${LINE}`],
    ["     5\tdb_password = CatNPassw0rd6", `     5\tdb_password = ${LINE}`],
    ["+db_password = D1ffPlusPw99", `+db_password = ${LINE}`],
    ["config.ini:12:db_password = GrepNPassw0rd11", `config.ini:12:db_password = ${LINE}`],
    ["src/app/.env:3:API_KEY = GrepApiK3y0001", `src/app/.env:3:API_KEY = ${LINE}`],
    ["C:\\srv\\app.ini:7:secret = WinGrepS3cret", `C:\\srv\\app.ini:7:secret = ${LINE}`],
    ["app.ini:7:3:token = RgColT0ken55", `app.ini:7:3:token = ${LINE}`],
    ["12:passwd = GrepNoFile9x", `12:passwd = ${LINE}`],
    ["    10\u2192api_key = GutApiK3y42\r\n    11\u2192debug = true", `    10\u2192api_key = ${LINE}\r\n    11\u2192debug = true`],
    ["[db]\n     6\u2192host = db\n     7\u2192  password = IndGut7Pw # old", `[db]\n     6\u2192host = db\n     7\u2192  password = ${LINE} # old`],
    // in JSON text: a gutter after a `\n` escape, `cat -n`'s tab as `\t`, the arrow as `\u2192`
    ['{"content": "     1\\u2192[db]\\n     2\\u2192password = JsonGut2Pw\\n"}', `{"content": "     1\\u2192[db]\\n     2\\u2192password = ${LINE}\\n"}`],
    ['{"stdout": "     4\\tsecret = CatNJs0nS3c\\n"}', `{"stdout": "     4\\tsecret = ${LINE}\\n"}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("a diff's removed line (tester25a F9)", () => {
  // `-name` at a line's start also reads as a command-line option: a lone `=` after a space is no option's value
  it.each([
    ["-db_password = D1ffMinusPw98", `-db_password = ${LINE}`],
    ["@@ -1,2 +1,2 @@\n-token = OldT0ken111\n+token = NewT0ken222\n", `@@ -1,2 +1,2 @@\n-token = ${LINE}\n+token = ${LINE}\n`],
    ["-secret = 'DiffOldS3cret8'", `-secret = '${FIELD}'`],
    ["     3\u2192-api_key = GutD1ffK3y", `     3\u2192-api_key = ${LINE}`],
    ["p.diff:4:+passwd = GrepD1ffPw", `p.diff:4:+passwd = ${LINE}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("a quoted `name = value` after a line's decoration (tester25a F9)", () => {
  it.each([
    ['     5\u2192DB_PASSWORD = "GutPyQuot3d1"', `     5\u2192DB_PASSWORD = "${FIELD}"`],
    ["     7\u2192db_password = 'GutPyLow3rQ2'", `     7\u2192db_password = '${FIELD}'`],
    ['    10\u2192api_token = "GutT0mlT0ken4"', `    10\u2192api_token = "${FIELD}"`],
    ['+DB_PASSWORD = "DiffPyQuot3d7"', `+DB_PASSWORD = "${FIELD}"`],
    ['settings.py:22:API_KEY = "GrepPyK3y123"', `settings.py:22:API_KEY = "${FIELD}"`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("`name = value` inside a string, after its opening quote (tester25a F3, F9)", () => {
  it.each([
    ['echo "db_password = DbPwMidL1ne!" >> app.ini', `echo "db_password = ${LINE}" >> app.ini`],
    ['echo "api_token = Ap1T0kenMidLine99"', `echo "api_token = ${LINE}"`],
    ["echo 'passwd = EchoSq1Pw' | tee -a db.conf", `echo 'passwd = ${LINE}' | tee -a db.conf`],
    ['printf "[db]\\nsecret = PrintfS3c9\\n" > x.ini', `printf "[db]\\nsecret = ${LINE}\\n" > x.ini`],
    ['{"stdout": "db_password = JsonFirstPw2\\n"}', `{"stdout": "db_password = ${LINE}\\n"}`],
    ['{"stdout": "api_key = JsonFirstK3y"}', `{"stdout": "api_key = ${LINE}"}`],
    ['{"result": "     5\\u2192token = JsonGutT0k5"}', `{"result": "     5\\u2192token = ${LINE}"}`],
    // JSON text held in a string: the quotes and the `\n` are escaped once more
    ['{\\"stdout\\": \\"secret = TwiceEsc4pe1\\\\n\\"}', `{\\"stdout\\": \\"secret = ${LINE}\\\\n\\"}`],
    ['echo "db_password = CrLfEcho7Pw"\r\nnext', `echo "db_password = ${LINE}"\r\nnext`],
    // a tab around `=` written `\t` in JSON text (a tool call's input as NDJSON export writes it)
    ['{"command":"password\\t=\\tT4bPassw0rd55"}', `{"command":"password\\t=\\t${LINE}"}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("a secret-named JSON key written with spaces (tester25a F11)", () => {
  it.each([
    ['{"Db Password": "SpacedNameJsonPw1"}', `{"Db Password": "${SPACED}"}`],
    ['{"API Key": "SpacedApiK3y9"}', `{"API Key": "${SPACED}"}`],
    ['{"client secret": "SpacedCl1entSec"}', `{"client secret": "${SPACED}"}`],
    ["{'Access Token': 'SpacedAcc3ssTok'}", `{'Access Token': '${SPACED}'}`],
    ['{\\"Admin Password\\": \\"EscSpacedPw77\\"}', `{\\"Admin Password\\": \\"${SPACED}\\"}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})

describe("innocents of the new places stay (tester25a F9, F3, F11)", () => {
  it.each([
    "+x = 1",
    "file.py:12: count = 3",
    "     5\u2192timeout = 30",
    "     5\ttimeout = 30",
    "-retries = 3",
    "config.ini:12:db_password = ${DB_PASSWORD}",
    "     5\u2192db_password = None",
    "+api_key = os.environ.get",
    "+password = 1234 + offset",
    "app.py:9:    token = get_token()",
    "     3\u2192secret = self.config.secret",
    'echo "db_password = $DB_PASSWORD" >> app.ini',
    'print("password = " + pw)',
    "log('token = %s' % tok)",
    'msg = "token = {}".format(t)',
    'echo "max_tokens = 4096"',
    '{"stdout": "next_page_token = \\n"}',
    '{"Token Count": "12"}',
    '{"Primary Key": "user_id"}',
    '{"Password Hint": "your pet"}',
    '{"Db Password": "${DB_PASSWORD}"}',
    '{"Db Password": ""}'
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})
