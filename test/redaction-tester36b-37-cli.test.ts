/**
 * tester36b F3, F7, F8, F11 and F4 through the CLI (the domain tests: test/domain/redaction-tester36b-37.test.ts): a
 * session whose prompt, Bash command, tool result and answer hold a quoted value after `--password=\` and an indented
 * line, curl's `-u` with an escaped quote in its quoted `user:password`, Python's triple-quoted and concatenated
 * values, a value on the line after its opening quote, a JSON value with a blank before it and a scheme-less
 * `user:password@host` whose password holds `#`; `export --format ndjson` (whose tool-call `text` is the input as one
 * line of JSON) and `show --format markdown` show none of the secrets' pieces and keep the text around them.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeEchoLog, importedClaudeIndex } from "./support/claude-import.js"

const SID = "37373737-0000-4000-8000-00000000000a"
const j = (...p: Array<string>) => p.join("")
// built at run time so that no secret scanner flags this file
const P1 = j("Qz7", "vW")
const P2 = j("K2mX", "9pL")
const P3 = j("Zk4n", "W8qP")
// [the text, the pieces no output may show]
const TEXTS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [`mysql --password=\\\n\t"${P1}${P2}" -h db`, [P1, P2]],
  [`mysql --password=\\\r\n    '${P3}${P2}' -h db`, [P3, P2]],
  [`curl -u "deploy:ab\\"${P1}${P3}" https://api.internal/x`, [P1, P3]],
  [`curl -u 'deploy:ab'\\''${P2}${P3}' https://api.internal/x`, [P2, P3]],
  [`cat > s.py <<'EOF'\npassword = """${P1}${P2}"""\napi_key = '''\n    ${P3}${P1}abc\n'''\nsecret = ("${P2}" "${P3}")\nEOF`, [P1, P2, P3]],
  [`cat > c.yml <<'EOF'\npassword: "\n  ${P3}${P1}"\nEOF`, [P3, P1]],
  [`echo '{"password": " ${P2}${P1}"}' > c.json`, [P2, P1]],
  [`lftp -e 'open deploy:${P1}#${P2}@db.internal'`, [P1, P2]]
]

let index: string
let run: (args: ReadonlyArray<string>) => string

beforeAll(() => {
  ;({ index, run } = importedClaudeIndex("si-tester36b-37-cli-", { [SID]: claudeEchoLog(SID, TEXTS.map(([t]) => t)) }))
}, 120_000)

describe("tester36b F3, F7, F8, F11, F4 in the CLI's redacted outputs", () => {
  it("export --format ndjson and show --format markdown show no piece of the secrets, and keep the text around them", () => {
    for (const args of [["export", SID, "--format", "ndjson"], ["show", SID, "--format", "markdown"]]) {
      const out = run([...args, "--index", index])
      for (const [text, pieces] of TEXTS) for (const p of pieces) expect(out, `${args.join(" ")}: ${text.slice(0, 40)}`).not.toContain(p)
      for (const keep of ["[REDACTED:cli-secret-option]", "[REDACTED:cli-password]", "[REDACTED:secret-field]", "[REDACTED:url-credentials]", "-h db", "deploy:", "@db.internal", "https://api.internal/x"]) {
        expect(out, `${args.join(" ")} keeps ${keep}`).toContain(keep)
      }
    }
  })
})
