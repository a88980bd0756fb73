/**
 * `sessions`: a session without a title shows no title (tester report after
 * session 10: it showed its workspace path as its title); the workspace is
 * its own column, for every session; `--json` keeps `title: null` and the
 * workspace in its own field.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "./support/run.js"
import { tempDir } from "./support/paths.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "", TZ: "UTC" }
const TITLED = "7a7a7a7a-0000-4000-8000-00000000007a"
const UNTITLED = "7b7b7b7b-0000-4000-8000-00000000007b"

describe("sessions: a session without a title", () => {
  it("shows no title, and its workspace in the workspace column", () => {
    const root = tempDir("si-sessions-title-")
    const dir = nodePath.join(root, "-x")
    fs.mkdirSync(dir, { recursive: true })
    // a session with a prompt (titled by it), and one whose only line is a response (no title)
    fs.writeFileSync(nodePath.join(dir, `${TITLED}.jsonl`), JSON.stringify({
      type: "user", sessionId: TITLED, uuid: "u1", cwd: "/work/titledws", timestamp: "2026-03-01T00:00:00Z", message: { role: "user", content: "fix the parser" }
    }) + "\n")
    fs.writeFileSync(nodePath.join(dir, `${UNTITLED}.jsonl`), JSON.stringify({
      type: "assistant", sessionId: UNTITLED, uuid: "a1", cwd: "/work/untitledws", timestamp: "2026-03-02T00:00:00Z", requestId: "r1",
      message: { id: "m1", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "done" }], usage: { input_tokens: 1, output_tokens: 1 } }
    }) + "\n")
    const out = tempDir()
    const index = nodePath.join(out, "idx.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(out, "none"), "--muse-root", nodePath.join(out, "none"), "--workspace", out], { env })
    expect([0, 8]).toContain(imp.code)
    const json = cli(["sessions", "--index", index, "--json"], { env })
    expect(json.code).toBe(0)
    const rows = JSON.parse(json.stdout).data as Array<{ sessionId: string; title: string | null; workspace: string | null }>
    const byId = Object.fromEntries(rows.map((r) => [r.sessionId, r]))
    expect([byId[UNTITLED].title, byId[UNTITLED].workspace]).toEqual([null, "/work/untitledws"])
    expect([byId[TITLED].title, byId[TITLED].workspace]).toEqual(["fix the parser", "/work/titledws"])

    const text = cli(["sessions", "--index", index], { env })
    expect(text.code).toBe(0)
    const lines = text.stdout.trimEnd().split("\n")
    const header = lines[0]
    expect(header).toMatch(/\btitle\b/)
    expect(header).toMatch(/\bworkspace\b/)
    const titleAt = header.indexOf("title"), wsAt = header.indexOf("workspace")
    const line = (sid: string) => lines.find((l) => l.includes(sid))!
    // the untitled session: nothing in the title column, its workspace in the workspace column
    const untitled = line(UNTITLED)
    const cell = (l: string, from: number, to: number) => l.slice(from, to === -1 ? undefined : to).trim()
    const [titleCol, wsCol] = titleAt < wsAt ? [[titleAt, wsAt], [wsAt, -1]] : [[titleAt, -1], [wsAt, titleAt]]
    expect(cell(untitled, titleCol[0], titleCol[1])).toBe("")
    expect(cell(untitled, wsCol[0], wsCol[1])).toBe("/work/untitledws")
    const titled = line(TITLED)
    expect(cell(titled, titleCol[0], titleCol[1])).toBe("fix the parser")
    expect(cell(titled, wsCol[0], wsCol[1])).toBe("/work/titledws")
  })
})

describe("sessions: a title holding control characters (tester33a F5)", () => {
  it("is cut at 60 characters as shown (each control as its escape), so the workspace column stays in line", () => {
    const root = tempDir("si-sessions-ctl-")
    const dir = nodePath.join(root, "-x")
    fs.mkdirSync(dir, { recursive: true })
    const ESC = "\u001b", RLO = "\u202e"
    const prompts = [
      ["7c7c7c7c-0000-4000-8000-00000000007c", "a plain title that is long enough to be cut at sixty characters for sure"],
      ["7d7d7d7d-0000-4000-8000-00000000007d", `${ESC}]8;;${"\u0007"} ${ESC}[2J${ESC}[H title next ${RLO}abc and more words to pass sixty characters`],
      ["7e7e7e7e-0000-4000-8000-00000000007e", "short"]
    ]
    for (const [id, text] of prompts) {
      fs.writeFileSync(nodePath.join(dir, `${id}.jsonl`), JSON.stringify({
        type: "user", sessionId: id, uuid: "u1", cwd: "/work/ws", timestamp: "2026-03-01T00:00:00Z", message: { role: "user", content: text }
      }) + "\n")
    }
    const out = tempDir()
    const index = nodePath.join(out, "idx.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(out, "none"), "--muse-root", nodePath.join(out, "none"), "--workspace", out], { env })
    expect([0, 8]).toContain(imp.code)
    const table = cli(["sessions", "--index", index], { env })
    expect(table.code).toBe(0)
    const rows = table.stdout.split("\n").filter((l) => l.includes("/work/ws"))
    expect(rows).toHaveLength(3)
    // every row's workspace starts at the same column, and nothing a terminal acts on is printed
    expect(new Set(rows.map((l) => l.indexOf("/work/ws"))).size).toBe(1)
    expect(table.stdout).not.toMatch(/[\u001b\u0007\u202e]/)
    const ctl = rows.find((l) => l.includes("7d7d7d7d"))!
    // the shown title: the escapes whole, cut at 60 characters of that shown form
    const shown = "\\x1b]8;;\\x07 \\x1b[2J\\x1b[H title next \\u202eabc and more words to pass sixty characters"
    expect(ctl).toContain(shown.slice(0, 60) + " ")
    expect(ctl).not.toContain(shown.slice(0, 61))
  })
})
