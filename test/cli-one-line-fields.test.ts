/**
 * tester19 F5: a value that is one line by nature (a session id, a file's
 * path in a diagnostic, a title in a heading) holding a line feed must not
 * add lines to what people read: docs/cli-output.md "Text for people … never hands
 * session content's control characters to the terminal". A Muse agents
 * session id holding `\n` forged a row of `sessions`; a Claude Code file
 * name holding `\n` forged a line of the import report. Such breaks are
 * shown as `\n` (and `\r`, `\t`, `\u2028`, `\u2029` likewise); JSON output
 * carries the value as it is.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { oneLineField } from "../src/domain/render.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const FORGED = "2099-01-01T00:00:00Z claude-code    999 $999.00    FORGED-ROW"
const ID = `evil\n${FORGED}`

describe("one-line fields in text output", () => {
  it("oneLineField writes line breaks and tabs visibly, and leaves everything else as it is", () => {
    expect(oneLineField("a\nb\r\nc\td\u2028e\u2029f")).toBe("a\\nb\\r\\nc\\td\\u2028e\\u2029f")
    expect(oneLineField("plain id-1 with spaces")).toBe("plain id-1 with spaces")
    expect(oneLineField("")).toBe("")
  })

  it("a session id holding a line feed: sessions, search, show (transcript, Markdown) and the import report add no line of it", () => {
    const dir = tempDir("si-one-line-")
    const sessions = path.join(dir, "maid", "a1", "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    fs.writeFileSync(
      path.join(sessions, "a1.jsonl"),
      [
        { type: "session_header", session_id: ID, agent_id: "a1", created_at: "2026-05-01T00:00:00Z" },
        { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hello there" }, created_at: "2026-05-01T00:00:01Z" }
      ].map((r) => JSON.stringify(r) + "\n").join("")
    )
    const claude = path.join(dir, "cc", "-home-n")
    fs.mkdirSync(claude, { recursive: true })
    // A file name with a line feed (a folder in a log's place: a diagnostic naming its path).
    fs.mkdirSync(path.join(claude, "3f3f3f3f-0000-4000-8000-000000000000\n  - claude-code: everything else is fine.jsonl"))
    const index = path.join(dir, "i.db")
    const env = { NO_COLOR: "1" }
    const imported = cli(["import", "--index", index, "--agents-root", path.join(dir, "maid"), "--claude-root", path.join(dir, "cc")], { env })
    expect([0, 8], imported.stderr).toContain(imported.code)
    const report = imported.stdout + imported.stderr
    expect(report).not.toMatch(/^\s*- claude-code: everything else is fine\.jsonl/m)
    expect(report).toContain("\\n  - claude-code: everything else is fine.jsonl")

    const listed = cli(["sessions", "--index", index], { env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).not.toMatch(/^2099-01-01/m)
    expect(listed.stdout).toContain(`evil\\n${FORGED}`)

    const found = cli(["search", "hello", "--index", index], { env })
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).not.toMatch(/^2099-01-01/m)
    expect(found.stdout).toContain("evil\\n2099")
    // the hint runs as printed: an id a shell cannot take as it is shown is named by its uid (tester32a F12)
    expect(found.stdout).toMatch(/in context: session-ingest show ses_[0-9a-f]+ --around line-2\n/)

    const md = cli(["show", "evil", "--index", index, "--format", "markdown"], { env })
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain(`- session: \`evil\\n${FORGED}\``)
    expect(md.stdout).not.toMatch(/^2099-01-01/m)

    const text = cli(["show", "evil", "--index", index, "--format", "transcript"], { env })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.split("\n")[0]).toContain(`[evil\\n${FORGED}]`)

    // JSON carries the id as it is.
    const json = cli(["sessions", "--index", index, "--json"], { env })
    expect(JSON.parse(json.stdout.trim().split("\n").pop()!).data.map((r: { sessionId: string }) => r.sessionId)).toContain(ID)
  })
})
