/**
 * tester25a F12 through the CLI: a value the first prompt states ("connect with … to the db") and a later tool
 * call's input names a password (`{"env": {"DB_PASSWORD": …}}`, `secret-field`) is hidden wherever the session states
 * it, in the title and the earlier events too, in every redacted output: `export --format ndjson` (and `--json`),
 * `show --format markdown` (whole, and a window: `--around`) and `transcript --format markdown`.
 */
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { importedClaudeIndex } from "./support/claude-import.js"

// built at run time so that no secret scanner flags this file
const V = ["Tt9Secret", "!", "Value2"].join("")
const F = "[REDACTED:secret-field]"
const SID = "14141414-0000-4000-8000-000000000001"
const SAID = `connect with ${F} to the db`

let dir: string
let index: string
let file: string
let run: ReturnType<typeof importedClaudeIndex>["run"]

const user = (uuid: string, parent: string | null, at: string, content: unknown) =>
  ({ type: "user", parentUuid: parent, isSidechain: false, cwd: "/srv", sessionId: SID, uuid, timestamp: at, message: { role: "user", content } })
const assistant = (uuid: string, parent: string, at: string, content: unknown) => ({
  type: "assistant", parentUuid: parent, isSidechain: false, cwd: "/srv", sessionId: SID, uuid, timestamp: at, requestId: `r-${uuid}`,
  message: { role: "assistant", model: "claude-haiku-4-5", id: `m-${uuid}`, content, usage: { input_tokens: 1, output_tokens: 1 } }
})

beforeAll(() => {
  const lines = [
    user("u", null, "2026-11-01T00:00:00Z", `connect with ${V} to the db`),
    assistant("a", "u", "2026-11-01T00:00:01Z", [{ type: "text", text: "Connecting now." }]),
    assistant("b", "a", "2026-11-01T00:00:02Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql -c 'select 1'", env: { DB_PASSWORD: V } } }]),
    user("u2", "b", "2026-11-01T00:00:03Z", [{ type: "tool_result", tool_use_id: "t1", content: "1 row" }])
  ]
  const imported = importedClaudeIndex("si-backprop25-cli-", { [SID]: lines })
  ;({ dir, index, run } = imported)
  file = imported.project.file(SID)
}, 120_000)

describe("tester25a F12: a value a later tool input names a password, in every redacted CLI output", () => {
  it("export --format ndjson: the first event hides it (stdout and --json)", () => {
    const out = run(["export", SID, "--format", "ndjson", "--index", index])
    expect(out).not.toContain("Tt9Secret")
    const first = JSON.parse(out.split("\n")[0])
    expect(first.text).toBe(SAID)
    const json = run(["export", SID, "--format", "ndjson", "--json", "--index", index])
    expect(json).not.toContain("Tt9Secret")
    expect(JSON.parse(json).data.data[0].text).toBe(SAID)
  })

  it("show --format markdown: the title and the user turn hide it", () => {
    const out = run(["show", SID, "--format", "markdown", "--index", index])
    expect(out).not.toContain("Tt9Secret")
    expect(out.split(SAID).length - 1).toBe(2)
    const json = run(["show", SID, "--format", "markdown", "--json", "--index", index])
    expect(json).not.toContain("Tt9Secret")
    expect(JSON.parse(json).data.title).toBe(SAID)
  })

  it("show --around the first event --format markdown: the window's title and its event hide it", () => {
    const events = run(["show", SID, "--index", index]).trim().split("\n").map((l) => JSON.parse(l))
    const out = run(["show", SID, "--around", events[0].eventId, "--context", "0", "--format", "markdown", "--json", "--index", index])
    expect(out).not.toContain("Tt9Secret")
    const t = JSON.parse(out).data
    expect(t.title).toBe(SAID)
    expect(JSON.stringify(t.turns)).toContain(SAID)
  })

  it("transcript --format markdown (a source file): the title and the user turn hide it", () => {
    const out = run(["transcript", "claude-code", file, "--claude-root", path.join(dir, "claude"), "--format", "markdown"])
    expect(out).not.toContain("Tt9Secret")
    expect(out.split(SAID).length - 1).toBe(2)
  })
})
