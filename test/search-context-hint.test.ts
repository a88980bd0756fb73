/**
 * tester32a F12: `search`'s closing hint (`in context: session-ingest show <session> --around <event>`) runs as
 * printed, pasted into a POSIX shell, whatever the session's and the event's ids are: a session id that reads as an
 * option (`-rf`) or needs quoting or holds control characters is named by its `ses_…` uid (the index's own handle,
 * always a plain word), and the hint never carries a raw control character.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }

/** A Muse agents root with one transcript of session id `sessionId` whose one user message says `text`. */
const agentsRoot = (dir: string, agent: string, sessionId: string, text: string) => {
  const sessions = path.join(dir, "agents", agent, "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(path.join(sessions, `${agent}.jsonl`), [
    JSON.stringify({ type: "session_header", session_id: sessionId, agent_id: agent, created_at: "2025-04-01T00:00:00Z" }),
    JSON.stringify({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2025-04-01T00:00:01Z" })
  ].join("\n") + "\n")
}

describe("search's in-context hint runs as printed", () => {
  for (const [name, sessionId] of [["an id that reads as an option", "-rf"], ["an id with a newline and an escape", "evil\nid\u001b[31m"], ["an id with a space", "my session"]] as const) {
    it(name, () => {
      const dir = tempDir("si-hint-")
      agentsRoot(dir, "x", sessionId, "hello hint")
      const index = path.join(dir, "idx.db")
      expect(cli(["import", "--agents-root", path.join(dir, "agents"), "--index", index], { env }).code).toBe(0)
      const r = cli(["search", "hello", "--index", index], { env })
      expect(r.code, r.stderr).toBe(0)
      const hint = /in context: (session-ingest show [^\n]*)\n/.exec(r.stdout)?.[1]
      expect(hint, r.stdout).toBeDefined()
      expect(hint).toMatch(/^session-ingest show ses_[0-9a-z]+ --around /)
      expect(hint).not.toMatch(/[\u0000-\u001f\u007f]/)
      // pasted into a shell, with the index named: the session's event in context
      const cmd = hint!.replace(/^session-ingest/, `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(repoRoot, "bin", "session-ingest.mjs"))}`)
      const run = spawnSync("sh", ["-c", `${cmd} --index ${JSON.stringify(index)}`], { encoding: "utf8", env: { ...process.env, ...env } })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain("hello hint")
    })
  }

  it("a plain session id stays as it is", () => {
    const dir = tempDir("si-hint-plain-")
    agentsRoot(dir, "x", "sess-plain", "hello hint")
    const index = path.join(dir, "idx.db")
    expect(cli(["import", "--agents-root", path.join(dir, "agents"), "--index", index], { env }).code).toBe(0)
    const r = cli(["search", "hello", "--index", index], { env })
    expect(r.stdout).toMatch(/in context: session-ingest show sess-plain --around \S+\n/)
  })
})
