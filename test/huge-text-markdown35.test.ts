/**
 * tester35c F2 (session 35): once a text's redaction could pause (a text of 256 Ki characters or more: `HUGE` in
 * src/domain/redaction/pausable.ts), the Markdown transcript of a session whose one message is a text over that size
 * holding a secret never ended (each attempt paused on the same step again: 100 % processor, minutes), where the
 * build before answered in about a second. The rule: `show --format markdown` and `transcript --format markdown`
 * of such a session answer (within the CLI helper's 60 s), the secret hidden, the text around it kept; and so do
 * the other redacted outputs (`export --format atif|ndjson`, `replay`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const SID = "35353535-0000-4000-8000-0000000000f2"
// built at run time so that no secret scanner flags this file
const PW = ["Ab1", "cd9Zq"].join("")
// one password line, then 300,000 characters (over the 262,144 of HUGE), and a word at the end
const TEXT = `password=${PW}\n` + "hello world line\n".repeat(18_000) + "the end of the log"

let index: string
let dir: string
let project: ReturnType<typeof importedClaudeIndex>["project"]
let run: ReturnType<typeof importedClaudeIndex>["run"]

beforeAll(() => {
  ;({ dir, index, project, run } = importedClaudeIndex("si-huge-md35-", {
    [SID]: [
      claudeUserLine(SID, "u0", null, "2026-12-01T00:00:00Z", TEXT),
      claudeAssistantLine(SID, "a0", "u0", "2026-12-01T00:00:01Z", [{ type: "text", text: "noted" }])
    ]
  }))
}, 120_000)

describe("tester35c F2: a text over 256 Ki characters holding a secret, in every redacted output", () => {
  it("show --format markdown and transcript --format markdown answer, the password hidden, the text kept", () => {
    for (const args of [
      ["show", SID, "--index", index, "--format", "markdown"],
      ["transcript", "claude-code", project.file(SID), "--claude-root", project.root, "--format", "markdown"]
    ]) {
      const out = run(args)
      expect(out).not.toContain(PW)
      expect(out).toContain("the end of the log")
      // every line of the text (the title may restate its first ones)
      expect(out.split("hello world line").length - 1).toBeGreaterThanOrEqual(18_000)
    }
  })

  it("export --format atif and ndjson, and replay, answer with the password hidden", () => {
    for (const args of [["export", SID, "--format", "atif"], ["export", SID, "--format", "ndjson"]]) {
      const out = run([...args, "--index", index])
      expect(out).not.toContain(PW)
      expect(out).toContain("the end of the log")
    }
    const html = path.join(dir, "replay.html")
    run(["replay", SID, "--index", index, "--out", html])
    const page = fs.readFileSync(html, "utf8")
    expect(page).not.toContain(PW)
    expect(page).toContain("the end of the log")
  })
})
