/**
 * tester38 F3: `usage --by workspace` is a redacted output (a cost report is pasted into chats), and its rows'
 * `unpriced` models and its `model-not-priced` notes name models, strings copied from the source: a model's name
 * holding a token is shown as `export`, `replay` and MCP show it (`claude-[REDACTED:github-token]`), in the table's
 * note and in `--json`; `--no-redact` prints it as stored, and the other groupings print names as they are.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const SID = "38383838-0000-4000-8000-0000000000f3"
// built at run time so that no secret scanner flags this file
const TOKEN = ["ghp", "_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"].join("")
const MODEL = `claude-${TOKEN}`
const SHOWN = "claude-[REDACTED:github-token]"

let index: string
let run: (args: ReadonlyArray<string>) => string

beforeAll(() => {
  const answer = claudeAssistantLine(SID, "a0", "u0", "2026-12-01T00:00:01Z", [{ type: "text", text: "hi" }])
  const lines = [
    claudeUserLine(SID, "u0", null, "2026-12-01T00:00:00Z", "hello"),
    { ...answer, message: { ...answer.message, model: MODEL } }
  ]
  ;({ index, run } = importedClaudeIndex("si-usage-models38-", { [SID]: lines }))
}, 120_000)

describe("tester38 F3: usage --by workspace redacts the model names it states", () => {
  it("--json: rows[].unpriced and the notes name the model redacted; the table's note too", () => {
    const json = run(["usage", "--by", "workspace", "--json", "--index", index])
    expect(json).not.toContain(TOKEN)
    const data = (JSON.parse(json) as { data: { rows: Array<{ key: string; unpriced: Array<{ model: string; responses: number }> }>; notes: Array<{ kind: string; model?: string }> } }).data
    expect(data.rows).toHaveLength(1)
    expect(data.rows[0].unpriced).toEqual([{ model: SHOWN, responses: 1 }])
    expect(data.notes.filter((n) => n.kind === "model-not-priced").map((n) => n.model)).toEqual([SHOWN])
    const table = run(["usage", "--by", "workspace", "--index", index])
    expect(table).not.toContain(TOKEN)
    expect(table).toContain(SHOWN)
  })

  it("--no-redact and --by model print the name as stored", () => {
    expect(run(["usage", "--by", "workspace", "--no-redact", "--json", "--index", index])).toContain(MODEL)
    expect(run(["usage", "--by", "model", "--json", "--index", index])).toContain(MODEL)
  })
})
