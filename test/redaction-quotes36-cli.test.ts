/**
 * tester35a F10, tester35c F1 and F3 through the CLI (the domain tests: test/domain/redaction-quotes36.test.ts): a
 * session whose prompt, Bash command, tool result and answer hold quoted secrets with an escaped or doubled quote
 * inside, a JSON `null,` under a secret's name on the next line, and a quoted value over more than 4 line breaks;
 * `export --format ndjson` (whose tool-call `text` is the input as one line of JSON) and `show --format markdown`
 * show none of the secrets' pieces, and keep the text around them.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeEchoLog, importedClaudeIndex } from "./support/claude-import.js"

const SID = "36363636-0000-4000-8000-00000000000a"
const j = (...p: Array<string>) => p.join("")
// built at run time so that no secret scanner flags this file
const P1 = j("Qz7", "vW")
const P2 = j("K2mX", "9pL")
const P3 = j("Zk4n", "W8qP")
// [the text, the pieces no output may show]
const TEXTS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [`export DB_PASSWORD="${P1}\\"${P2}" && run`, [P1, P2]],
  [`export DB_PASSWORD='${P1}'\\''${P2}' && run`, [P1, P2]],
  [`mytool --password "${P1}\\"${P2}" x`, [P1, P2]],
  [`echo '{"password": "${P1}\\"${P2}\\"${P3}"}' > c.json`, [P1, P2, P3]],
  [`cat > c.yml <<'EOF'\npassword: '${P1}''${P2}'\nEOF`, [P1, P2]],
  [`python3 -c "cfg = {'password': '${P1}\\'${P2}'}"`, [P1, P2]],
  [`echo '{"args": "{\\"password\\": \\"${P1}\\\\\\"${P2}\\"}"}'`, [P1, P2]],
  [`API_KEY="${P3}\nab\ncd\nef\ngh\nij" run`, [P3]]
]
const KEPT = `{\n  "password":\n    null,\n  "token":\n    true,\n  "x": 1\n}`

let index: string
let run: (args: ReadonlyArray<string>) => string

beforeAll(() => {
  ;({ index, run } = importedClaudeIndex("si-quotes36-cli-", { [SID]: claudeEchoLog(SID, [...TEXTS.map(([t]) => t), `cat c.json\n${KEPT}`]) }))
}, 120_000)

describe("tester35a F10, tester35c F1 and F3 in the CLI's redacted outputs", () => {
  it("export --format ndjson and show --format markdown show no piece of the secrets, and keep the text around them", () => {
    for (const args of [["export", SID, "--format", "ndjson"], ["show", SID, "--format", "markdown"]]) {
      const out = run([...args, "--index", index])
      for (const [text, pieces] of TEXTS) for (const p of pieces) expect(out, `${args.join(" ")}: ${text.slice(0, 40)}`).not.toContain(p)
      for (const keep of ["[REDACTED:secret-assignment]", "[REDACTED:cli-secret-option]", "[REDACTED:secret-field]", "&& run", "ab"]) {
        expect(out, `${args.join(" ")} keeps ${keep}`).toContain(keep)
      }
    }
    // the JSON `null,` and `true,` under secret names stay (the NDJSON export's text holds them as `\n` escapes)
    expect(run(["export", SID, "--format", "ndjson", "--index", index])).toContain(JSON.stringify(KEPT).slice(1, -1))
    expect(run(["show", SID, "--format", "markdown", "--index", index])).toContain("\"password\":\n    null,")
  })
})
