/**
 * A session's path (`cwd`) in `discover` and a tool's name in `transcript`
 * (text and Markdown) are one-line values: their line breaks and tabs are
 * shown as `\r`, `\n`, `\t`, `\u2028` (README, Commands: "A value that is one
 * line by nature … shows its line breaks and tabs … so that a source cannot
 * add a row to a listing or a report"). tester20 F7: a Claude Code record's
 * `cwd` and a `tool_use` name holding `\r\nFAKE ROW …` printed a row of their
 * own at column 0.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const SID = "55555555-6666-4777-8888-999999999999"
const BAD = "A\r\nFAKE ROW 2099-01-01 claude-code 999 events\u2028x\tT"
const SHOWN = "A\\r\\nFAKE ROW 2099-01-01 claude-code 999 events\\u2028x\\tT"

const corpus = () => {
  const root = path.join(tempDir("si-oneline-"), "projects")
  const folder = path.join(root, "-tmp-ctl")
  fs.mkdirSync(folder, { recursive: true })
  const records = [
    { type: "user", message: { role: "user", content: "hello" }, cwd: `/tmp/c${BAD}` },
    {
      type: "assistant", requestId: "r", cwd: "/tmp/c",
      message: { model: "m", id: "a", type: "message", role: "assistant", content: [{ type: "tool_use", id: "t1", name: `Bash${BAD}`, input: { command: "ls" } }] }
    },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }, cwd: "/tmp/c" }
  ]
  let parent: string | null = null
  const lines = records.map((r, i) => {
    const line = JSON.stringify({ ...r, parentUuid: parent, isSidechain: false, userType: "external", sessionId: SID, version: "2", uuid: `u${i}`, timestamp: `2025-12-03T09:00:0${i}.000Z` })
    parent = `u${i}`
    return line + "\n"
  })
  const file = path.join(folder, `${SID}.jsonl`)
  fs.writeFileSync(file, lines.join(""))
  return { root, file }
}

describe("one-line values in discover and transcript (tester20 F7)", () => {
  it("a path and a tool name with line breaks add no row: shown escaped", () => {
    const c = corpus()
    const outputs = {
      discover: cli(["discover", "claude-code", "--claude-root", c.root]),
      text: cli(["transcript", "claude-code", c.file, "--claude-root", c.root]),
      markdown: cli(["transcript", "claude-code", c.file, "--claude-root", c.root, "--format", "markdown"])
    }
    for (const [name, r] of Object.entries(outputs)) {
      expect({ name, code: r.code }).toEqual({ name, code: 0 })
      expect({ name, rows: r.stdout.split("\n").filter((l) => l.startsWith("FAKE")) }).toEqual({ name, rows: [] })
      expect({ name, raw: /[\r\t\u2028]/.test(r.stdout) }).toEqual({ name, raw: false })
      expect(r.stdout).toContain(SHOWN)
    }
  })
})
