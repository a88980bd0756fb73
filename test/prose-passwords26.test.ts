/**
 * tester25a F1, F13, F5 through the CLI: a session whose prompts give passwords in prose (German's "lautet", Russian,
 * Japanese, Chinese, Italian, Polish; "… is the password for prod", "use … as the password", `pw: …`, "creds are
 * admin / …", `Password — …`; `sshpass -f <(echo '…')`, an email written with `[at]`) is redacted in every redacted
 * output: `export --format ndjson`, `export --format atif` and `show --format markdown`, the title included.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const SID = "26262626-0000-4000-8000-000000000001"
// built at run time so that no secret scanner flags this file: [the text, its secret]
const SAID: ReadonlyArray<readonly [string, string]> = [
  ["Das Passwort lautet %s f\u00fcr den Server.", ["Geheimnis", "4711Xy"].join("")],
  ["\u041f\u0430\u0440\u043e\u043b\u044c: %s \u0434\u043b\u044f \u0432\u0445\u043e\u0434\u0430", ["Qwerty", "987Rr"].join("")],
  ["\u30d1\u30b9\u30ef\u30fc\u30c9\u306f %s \u3067\u3059", ["JpPassw0rd", "55"].join("")],
  ["\u5bc6\u7801\u662f %s", ["ZhMima", "123456Ab"].join("")],
  ["la password \u00e8 %s", ["Itali4", "Pw99"].join("")],
  ["has\u0142o: %s", ["P0lskie", "Haslo1"].join("")],
  ["%s is the password for prod", ["Rev1s", "Passw0rd!"].join("")],
  ["use %s as the password", ["AsTh3", "Passw0rd!"].join("")],
  ["Password \u2014 %s", ["Em3Dash", "Pw99"].join("")],
  ["pw: %s", ["Abbr3v", "Pw77"].join("")],
  ["my pwd is %s", ["Pwd1s", "Pr0se"].join("")],
  ["creds are admin / %s", ["Cr3ds", "SlashPw"].join("")],
  ["sshpass -f <(echo '%s') ssh host", ["H3reStr1", "ngPw"].join("")],
  ["write to %s [at] corp-example.com", ["bob.hidden", ".user"].join("")]
]

let index: string
let run: ReturnType<typeof importedClaudeIndex>["run"]

beforeAll(() => {
  // a prompt stating each secret, and an answer after it (the Claude Code line builders the CLI backprop tests share)
  ;({ index, run } = importedClaudeIndex("si-prose26-cli-", {
    [SID]: SAID.flatMap(([text, secret], i) => [
      claudeUserLine(SID, `u${i}`, i === 0 ? null : `a${i - 1}`, `2026-11-01T00:00:${String(2 * i).padStart(2, "0")}Z`, text.replace("%s", secret)),
      claudeAssistantLine(SID, `a${i}`, `u${i}`, `2026-11-01T00:00:${String(2 * i + 1).padStart(2, "0")}Z`, [{ type: "text", text: "Noted." }])
    ])
  }))
}, 120_000)

describe("tester25a F1, F13, F5: passwords in prose, in every redacted CLI output", () => {
  it("export (ndjson, atif) and show --format markdown hold none of them, and the words around them", () => {
    for (const args of [["export", SID, "--format", "ndjson"], ["export", SID, "--format", "atif"], ["show", SID, "--format", "markdown"]]) {
      const out = run([...args, "--index", index])
      for (const [text, secret] of SAID) {
        expect(out, `${args.join(" ")}: ${text}`).not.toContain(secret)
      }
      expect(out).toContain("[REDACTED:password-prose-intl]")
      expect(out).toContain("[REDACTED:password-prose] is the password for prod")
      expect(out).toContain("sshpass -f <(echo '[REDACTED:substituted-password]') ssh host")
    }
    // the title is the first prompt
    const md = run(["show", SID, "--format", "markdown", "--json", "--index", index])
    expect(JSON.parse(md).data.title).toBe("Das Passwort lautet [REDACTED:password-prose-intl] f\u00fcr den Server.")
  })
})
