/**
 * tester32a F10: `usage --by session` rows of one session id held by several sources (two Claude Code logs of the
 * same id with responses of their own: a resumed log in another project folder, or AgentMux's record beside Claude
 * Code's) are told apart: a `uid` column (the `ses_…` handle `show` takes, as `--json` has `sessionUid`) when a key
 * repeats; none otherwise.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli, cliJson } from "./support/run.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const SID = "bbbbbbbb-0000-4000-8000-000000000002"

const log = (cwd: string, tag: string, tokens: number) => {
  const base = { isSidechain: false, cwd, sessionId: SID, version: "2.1.14", parentUuid: null }
  return [
    JSON.stringify({ ...base, type: "user", uuid: `u-${tag}`, timestamp: "2026-01-15T08:30:00.000Z", message: { role: "user", content: "hi" } }),
    JSON.stringify({
      ...base, type: "assistant", requestId: `req-${tag}`, uuid: `a-${tag}`, timestamp: "2026-01-15T08:30:01.000Z",
      message: { model: "claude-sonnet-4-5", id: `msg_${tag}`, type: "message", role: "assistant", content: [{ type: "text", text: "ok" }], usage: { input_tokens: tokens, output_tokens: tokens } }
    })
  ].join("\n") + "\n"
}

describe("usage --by session: one session id from two sources", () => {
  it("each row names its uid when a session id repeats", () => {
    const dir = tempDir("si-usage-uid-")
    const root = nodePath.join(dir, "projects")
    for (const [folder, tag, n] of [["-home-a-one", "one", 1000], ["-home-a-two", "two", 2000]] as const) {
      fs.mkdirSync(nodePath.join(root, folder), { recursive: true })
      fs.writeFileSync(nodePath.join(root, folder, `${SID}.jsonl`), log(`/home/a/${tag}`, tag, n))
    }
    const index = nodePath.join(dir, "idx.db")
    const imported = cli(["import", "--claude-root", root, "--agents-root", root, "--index", index], { env })
    expect(imported.code, imported.stderr).toBe(0)
    const json = cliJson(["usage", "--by", "session", "--index", index], env)
    const rows = json.data as { rows: Array<{ key: string; sessionUid: string; inputTokens: number }> }
    expect(rows.rows.map((x) => x.key)).toEqual([SID, SID])
    const r = cli(["usage", "--by", "session", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines.find((l) => l.startsWith("session ")), r.stdout).toMatch(/^session +uid +input/)
    for (const x of rows.rows) {
      const row = lines.find((l) => l.includes(` ${x.sessionUid} `))
      expect(row, r.stdout).toBeDefined()
      expect(row).toContain(x.inputTokens.toLocaleString("en-US"))
    }
  })

  it("no uid column when every session id is once", () => {
    const dir = tempDir("si-usage-uid1-")
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "-home-a-one"), { recursive: true })
    fs.writeFileSync(nodePath.join(root, "-home-a-one", `${SID}.jsonl`), log("/home/a/one", "one", 1000))
    const index = nodePath.join(dir, "idx.db")
    expect(cli(["import", "--claude-root", root, "--agents-root", root, "--index", index], { env }).code).toBe(0)
    const r = cli(["usage", "--by", "session", "--index", index], { env })
    expect(r.stdout.split("\n").find((l) => l.startsWith("session "))).toMatch(/^session +input/)
  })
})
