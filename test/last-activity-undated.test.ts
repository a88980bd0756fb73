/**
 * A session none of whose records carries a time has no known last activity
 * (tester finding, session 15): a session's last activity is an event time,
 * and a file's mtime is not one. `discover` (its typed `overview` and its
 * text listing) and `sessions` (the index: event times only) agree on that:
 * no time. The provider's own `summary.updatedAt` keeps issue 4's fallback
 * (muse-agents: `sessions.json` `updated_at`, else the last record's time,
 * else the file's mtime), labelled by `updatedAtFrom: "file-mtime"`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const temps: Array<string> = []
afterAll(() => {
  for (const t of temps) fs.rmSync(t, { recursive: true, force: true })
})

const MTIME = new Date("2024-06-01T12:00:00.000Z")
const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", TZ: "UTC" }
const jl = (o: unknown) => JSON.stringify(o) + "\n"

/** A Claude Code root with one session whose records carry no timestamp, its file's mtime set to {@link MTIME}. */
const claudeRoot = () => {
  const dir = tempDir()
  temps.push(dir)
  const root = path.join(dir, "projects")
  const project = path.join(root, "-tmp-undated")
  fs.mkdirSync(project, { recursive: true })
  const sessionId = "0b6f7a52-3c1d-4e2f-9a8b-7c6d5e4f3a21"
  const file = path.join(project, `${sessionId}.jsonl`)
  fs.writeFileSync(
    file,
    jl({ parentUuid: null, isSidechain: false, type: "user", cwd: "/tmp/undated", sessionId, uuid: "u1", message: { role: "user", content: "hello there" } }) +
      jl({
        parentUuid: "u1",
        isSidechain: false,
        type: "assistant",
        cwd: "/tmp/undated",
        sessionId,
        uuid: "a1",
        message: { role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "hi" }] }
      })
  )
  fs.utimesSync(file, MTIME, MTIME)
  return { dir, root, sessionId }
}

/** A Muse agents root with one session whose records carry no time, its transcript's mtime set to {@link MTIME}. */
const agentsRoot = () => {
  const dir = tempDir()
  temps.push(dir)
  const root = path.join(dir, "agents")
  const sessions = path.join(root, "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "a1.jsonl")
  fs.writeFileSync(
    file,
    jl({ type: "session_header", session_id: "s1" }) + jl({ type: "item", source: "runtime", item: { type: "message", role: "user", text: "hi" } })
  )
  fs.utimesSync(file, MTIME, MTIME)
  return { dir, root }
}

describe("an undated session has no last activity, in discover and in sessions alike", () => {
  it("claude-code: discover's overview and listing show no time; sessions shows none either", () => {
    const { dir, root, sessionId } = claudeRoot()
    const d = cli(["discover", "claude-code", "--claude-root", root, "--json"], { env })
    expect(d.code).toBe(0)
    const src = JSON.parse(d.stdout).data.sources[0]
    expect(src.sessionId).toBe(sessionId)
    expect(src.overview.firstActivityAt).toBeNull()
    expect(src.overview.lastActivityAt).toBeNull()
    // The provider's own field keeps its labelled fallback.
    expect(src.summary).toMatchObject({ updatedAt: MTIME.toISOString(), updatedAtFrom: "file-mtime" })
    const text = cli(["discover", "claude-code", "--claude-root", root], { env })
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(sessionId)
    expect(text.stdout).not.toContain("2024-06-01")
    const index = path.join(dir, "index.db")
    // Exit 8: coverage partial (no Muse agents root here); the Claude Code session is imported.
    const imported = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "no-agents"), "--json"], { env })
    expect(imported.code).toBe(8)
    expect(JSON.parse(imported.stdout).data.sources.accepted).toBe(1)
    const s = cli(["sessions", "--index", index, "--json"], { env })
    expect(s.code).toBe(0)
    const rows = JSON.parse(s.stdout).data as Array<{ sessionId: string; lastAt: string | null; overview: { lastActivityAt: string | null } }>
    const row = rows.find((r) => r.sessionId === sessionId)
    expect(row).toBeDefined()
    expect(row!.lastAt).toBeNull()
    // The overview the index keeps (discovery's) says the same.
    expect(row!.overview.lastActivityAt).toBeNull()
  })

  it("muse-agents: discover's overview shows no time; summary.updatedAt is the labelled mtime (issue 4)", () => {
    const { root } = agentsRoot()
    const d = cli(["discover", "muse-agents", "--agents-root", root, "--json"], { env })
    expect(d.code).toBe(0)
    const src = JSON.parse(d.stdout).data.sources[0]
    expect(src.overview.firstActivityAt).toBeNull()
    expect(src.overview.lastActivityAt).toBeNull()
    expect(src.summary).toMatchObject({ startedAt: null, updatedAt: MTIME.toISOString(), updatedAtFrom: "file-mtime" })
    const text = cli(["discover", "muse-agents", "--agents-root", root], { env })
    expect(text.code).toBe(0)
    expect(text.stdout).not.toContain("2024-06-01")
  })
})
