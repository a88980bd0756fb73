/**
 * `sessions` with a filter (tester28a F4): the `? cost unknown` notes under
 * the table are about the sessions it lists, never about sessions a
 * `--workspace` or `--until` filter left out (the usage of every session was
 * read for the notes when no `--limit` was given).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeProject, claudeUserLine, importClaude } from "./support/claude-import.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
let dir = ""
let db = ""

/** A session of one prompt and one response of `model`, in `cwd`, at `day` (YYYY-MM-DD). */
const session = (sid: string, cwd: string, day: string, model: string) => {
  const user = { ...claudeUserLine(sid, "u1", null, `${day}T10:00:00.000Z`, "hello"), cwd }
  const reply = claudeAssistantLine(sid, "a1", "u1", `${day}T10:00:01.000Z`, [{ type: "text", text: "hi" }])
  return [user, { ...reply, cwd, message: { ...reply.message, model } }]
}

beforeAll(() => {
  dir = tempDir("si-sessions-notes-")
  const { root, write } = claudeProject(dir)
  write("aaaaaaaa-0000-4000-8000-000000000001", session("aaaaaaaa-0000-4000-8000-000000000001", "/srv/unpriced", "2026-03-10", "claude-unknown-9"))
  write("bbbbbbbb-0000-4000-8000-000000000002", session("bbbbbbbb-0000-4000-8000-000000000002", "/work/priced", "2026-03-01", "claude-haiku-4-5"))
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  db = path.join(dir, "i.db")
  importClaude(db, root, agents, env)
}, 120_000)

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const UNKNOWN_NOTE = "? cost unknown: claude-unknown-9 (1 response) not in the price table"

describe("sessions: notes about the listed sessions only", () => {
  it("unfiltered: the unpriced session is listed with ? and its note", () => {
    const r = cli(["sessions", "--index", db], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("aaaaaaaa-0000-4000-8000-000000000001")
    expect(r.stdout).toContain(UNKNOWN_NOTE)
  })

  it.each([["--workspace", "/work/priced"], ["--until", "2026-03-05"]])("%s %s lists the priced session only, and no note about the other", (option, value) => {
    const r = cli(["sessions", "--index", db, option, value], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("bbbbbbbb-0000-4000-8000-000000000002")
    expect(r.stdout).not.toContain("aaaaaaaa-0000-4000-8000-000000000001")
    expect(r.stdout).not.toContain("cost unknown")
    expect(r.stdout).not.toContain("?")
  })

  it("--workspace of the unpriced session keeps its note", () => {
    const r = cli(["sessions", "--index", db, "--workspace", "/srv/unpriced"], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(UNKNOWN_NOTE)
  })
})
