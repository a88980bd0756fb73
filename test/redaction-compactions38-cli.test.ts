/**
 * tester38 F1 through the CLI: a Claude Code `compact_boundary` whose `compactMetadata.trigger` holds a GitHub token,
 * an email, a home path and a password, and whose uuid (the compaction's id) is no id's shape (white space, a token).
 * With redaction on, `export --format atif` / `--format ndjson`, `show --format markdown` (also `--json`),
 * `transcript claude-code <file> --format markdown` and `replay` show none of them (they were written verbatim: the
 * trigger was taken for a structural value), the trigger's ordinary words stay, and the MCP server's rule (the
 * event's text through the text rules: `context compaction (manual [REDACTED:github-token] …)`) is the one used.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"
import { cli } from "./support/run.js"

const SID = "38383838-0000-4000-8000-00000000000f"
const j = (...p: Array<string>) => p.join("")
// built at run time so that no secret scanner flags this file
const TOKEN = j("ghp", "_", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2")
const EMAIL = j("erin", "@", "corp.example")
const PASSWORD = j("Hunter2", "Zq8vN3pL")
const TRIGGER = `manual ${TOKEN} ${EMAIL} /home/dan/.ssh password=${PASSWORD}`
// the compaction's id is the line's uuid: here none of an id's shape
const CID = `cb 1 ${EMAIL}`
const LEAKS = [TOKEN, EMAIL, PASSWORD, "/home/dan", "Z9y8X7w6V5u4"]

let index: string
let dir: string
let logFile: string
let run: (args: ReadonlyArray<string>) => string
let env: Record<string, string>

beforeAll(() => {
  const boundary = {
    type: "system", subtype: "compact_boundary", content: "Conversation compacted", parentUuid: "a0", isSidechain: false, cwd: "/srv",
    sessionId: SID, uuid: CID, timestamp: "2026-12-01T00:00:02Z", compactMetadata: { trigger: TRIGGER, preTokens: 100 }
  }
  const lines = [
    claudeUserLine(SID, "u0", null, "2026-12-01T00:00:00Z", "hello there"),
    claudeAssistantLine(SID, "a0", "u0", "2026-12-01T00:00:01Z", [{ type: "text", text: "hi" }]),
    boundary,
    claudeUserLine(SID, "u1", CID, "2026-12-01T00:00:03Z", "go on")
  ]
  ;({ index, dir, run, env } = importedClaudeIndex("si-compactions38-cli-", { [SID]: lines }))
  logFile = path.join(dir, "claude", "-home-u-t", `${SID}.jsonl`)
}, 120_000)

describe("tester38 F1: a compaction's trigger and a non-id-shaped compaction id are redacted in every redacted CLI output", () => {
  it("export (ATIF, NDJSON), show/transcript --format markdown and replay hide them; the trigger's words stay", () => {
    const outs: Record<string, string> = {
      atif: run(["export", SID, "--format", "atif", "--index", index]),
      ndjson: run(["export", SID, "--format", "ndjson", "--index", index]),
      markdown: run(["show", SID, "--format", "markdown", "--index", index]),
      markdownJson: run(["show", SID, "--format", "markdown", "--json", "--index", index]),
      transcript: run(["transcript", "claude-code", logFile, "--claude-root", path.join(dir, "claude"), "--format", "markdown"])
    }
    const page = path.join(dir, "page.html")
    run(["replay", SID, "--index", index, "--out", page])
    outs.replay = fs.readFileSync(page, "utf8")
    for (const [name, out] of Object.entries(outs)) {
      for (const leak of LEAKS) expect(out, `${name} shows ${leak}`).not.toContain(leak)
      expect(out, `${name} keeps the trigger's own word`).toContain("manual [REDACTED:github-token]")
    }
    // the trigger as the text rules redact it (the same value MCP's event text shows), in each structured output
    const trigger = "manual [REDACTED:github-token] [REDACTED:email] ~/.ssh password=[REDACTED:secret-assignment]"
    const atif = JSON.parse(outs.atif) as { steps: Array<{ message?: string; extra?: { context_management?: { trigger: string; compaction_id: string } } }> }
    const step = atif.steps.find((s) => s.extra?.context_management !== undefined)!
    expect(step.message).toBe(`context compaction (${trigger})`)
    expect(step.extra!.context_management!.trigger).toBe(trigger)
    expect(step.extra!.context_management!.compaction_id).toBe("cb 1 [REDACTED:email]")
    const summary = outs.ndjson.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; compaction: unknown }).find((e) => e.kind === "summary")!
    expect(summary.compaction).toEqual({ id: "cb 1 [REDACTED:email]", trigger })
    expect(outs.markdown).toContain(`- \`cb 1 [REDACTED:email]\` (${trigger})`)
  })

  it("--no-redact still writes the trigger as stored", () => {
    const r = cli(["show", SID, "--format", "markdown", "--no-redact", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(TRIGGER)
  })
})
