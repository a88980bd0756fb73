/**
 * tester33c F1, F2 through the CLI: a Claude Code session whose first prompt holds a GitHub token cut by two shell
 * line continuations (pieces 16/16/8), and one whose prompt holds a secret's value cut by two (`DB_PASSWORD=…\`), are
 * imported; `show --format markdown` (heading and body) and `replay` hold no piece of either secret.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const S1 = "34343434-0000-4000-8000-000000000001"
const S2 = "34343434-0000-4000-8000-000000000002"
// built at run time so that no secret scanner flags this file: the pieces as the prompt cuts them
const TOKEN = ["ghp_A1b2C3d4E5f6", "G7h8I9j0K1l2M3n4", "O5p6Q7r8"]
const PASSWORD = ["Hunter2Se", "cretPass9", "9xTail"]

let imported: ReturnType<typeof importedClaudeIndex>

beforeAll(() => {
  const session = (sid: string, prompt: string) => [
    claudeUserLine(sid, "u0", null, "2026-12-01T00:00:00Z", prompt),
    claudeAssistantLine(sid, "a0", "u0", "2026-12-01T00:00:01Z", [{ type: "text", text: "Done." }])
  ]
  imported = importedClaudeIndex("si-continuation34-", {
    [S1]: session(S1, `export GITHUB_TOKEN=${TOKEN.join("\\\n")} deploy`),
    [S2]: session(S2, `export DB_PASSWORD=${PASSWORD.join("\\\n")} deploy`)
  })
}, 120_000)

const run = (args: ReadonlyArray<string>) => imported.run([...args, "--index", imported.index])

describe("tester33c F1, F2: a secret cut by two shell line continuations, in show --format markdown and replay", () => {
  for (const [sid, pieces, name, mark] of [
    [S1, TOKEN, "GITHUB_TOKEN", "[REDACTED:github-token]"],
    [S2, PASSWORD, "DB_PASSWORD", "[REDACTED:secret-assignment]"]
  ] as const) {
    it(name, () => {
      const md = run(["show", sid, "--format", "markdown"])
      const html = run(["replay", sid])
      for (const out of [md, html]) {
        for (const piece of pieces) expect(out).not.toContain(piece)
      }
      // the heading (the title) and the prompt: the whole value one marker, the words around it kept
      expect(md).toContain(`# export ${name}=${mark} deploy`)
      expect(md.split(`export ${name}=${mark} deploy`).length).toBeGreaterThanOrEqual(3)
      expect(html).toContain(`export ${name}=${mark} deploy`)
    })
  }
})
