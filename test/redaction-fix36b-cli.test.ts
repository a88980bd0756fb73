/**
 * Session 36 (fix36b) through the CLI (the domain tests: test/domain/redaction-fix36b.test.ts): a session whose
 * prompt, Bash command, tool result and answer hold a secret-named variable with its value on the next line in code
 * (tester35a F2), `--token=\` then a tab and the token and `Bearer \` + blanks then the token (F8), an option's value
 * after `\\\n\t` in JSON text held in a string (F4), `user:password@host` with no scheme (F6) and a `'` in a URL
 * password (F3); `export --format ndjson` (whose tool-call `text` is the input as one line of JSON) and `show --format
 * markdown` (title and bodies) show none of them, and keep a digest under `sha256~` and a `LTAI…` name (tester35c F4).
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeEchoLog, importedClaudeIndex } from "./support/claude-import.js"

const SID = "36363636-0000-4000-8000-0000000000b2"
const j = (...p: Array<string>) => p.join("")
// built at run time so that no secret scanner flags this file: [the text, the pieces no output may show]
const PW = j("Qz7vK2m", "XpL9w")
const KEY = j("Zk4nW8qPz2", "LmX7Hd0Jf7")
const TOK = j("Qz7vK2mXpL9w", "R4tY8nB3cF6hJ1")
const DIGEST = "0123456789abcdef".repeat(4)
const TEXTS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [`curl -H 'Authorization: Bearer \\  \n  ${TOK}' https://api.x.io`, [TOK.slice(0, 10), TOK.slice(10)]],
  [`cat > cfg.js <<'EOF'\nconst cfg = {\n  apiKey:\n    "${KEY}",\n};\nEOF`, [KEY.slice(0, 10), KEY.slice(10)]],
  [`cat > app.go <<'EOF'\npassword :=\n\t"${PW}"\nEOF`, [PW]],
  [`deploy --token=\\\n\t${TOK}`, [TOK.slice(0, 10), TOK.slice(10)]],
  [`echo '{"cmd": "mytool --password \\\\\\n\\t${PW} x"}' > job.json`, [PW]],
  [`ssh-copy deploy:${PW}@10.0.0.5 and mysql://u:${j("Qz7v'", "K2mX9pL")}@db/app`, [PW, "K2mX9pL"]],
  [`ls /var/cache/sha256~${DIGEST} && grep LTAIGeneralPurposeConfigX conf`, []]
]

let index: string
let run: (args: ReadonlyArray<string>) => string

beforeAll(() => {
  ;({ index, run } = importedClaudeIndex("si-fix36b-cli-", { [SID]: claudeEchoLog(SID, TEXTS.map(([text]) => text)) }))
}, 120_000)

describe("fix36b: tester35a F2 (code), F3, F4, F6, F8 and tester35c F4 in the CLI's redacted outputs", () => {
  it("export --format ndjson and show --format markdown show none of the secrets, and keep the text around them", () => {
    for (const args of [["export", SID, "--format", "ndjson"], ["show", SID, "--format", "markdown"]]) {
      const out = run([...args, "--index", index])
      for (const [text, pieces] of TEXTS) for (const p of pieces) expect(out, `${args.join(" ")}: ${text.slice(0, 40)}`).not.toContain(p)
      for (const keep of [
        "[REDACTED:secret-field]", "[REDACTED:cli-secret-option]", "[REDACTED:bearer-token]", "deploy:[REDACTED:url-credentials]@10.0.0.5",
        "mysql://u:[REDACTED:url-credentials]@db/app", `/var/cache/sha256~${DIGEST}`, "LTAIGeneralPurposeConfigX", "cfg.js", "app.go", "job.json"
      ]) {
        expect(out, `${args.join(" ")} keeps ${keep}`).toContain(keep)
      }
    }
  })

  it("the Markdown's title (the first prompt on one line) and its bodies agree: the token is hidden in both", () => {
    const md = run(["show", SID, "--format", "markdown", "--index", index])
    const title = md.split("\n").find((l) => l.startsWith("# "))!
    expect(title).toContain("Bearer [REDACTED:bearer-token]")
    expect(md.split("[REDACTED:bearer-token]").length - 1).toBeGreaterThanOrEqual(4)
  })
})
