/**
 * Human wording: each command's `--no-redact` help names that command's own
 * redacted output (not another command's), and counts in human output are
 * pluralised (`1 event`, `2 events`), in every renderer that prints one.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { counted } from "../src/domain/render.js"
import { emptyClaudeRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** The help paragraph of `--no-redact` of `command` (its lines after the option's own line, joined). */
const noRedactHelp = (command: string): string => {
  const r = cli([command, "--help"])
  expect(r.code, r.stderr).toBe(0)
  const lines = r.stdout.split("\n")
  const at = lines.findIndex((l) => /^\s+--no-redact\s*$/.test(l))
  expect(at, `${command} --help lists --no-redact`).toBeGreaterThan(0)
  const para: Array<string> = []
  for (const l of lines.slice(at + 1)) {
    if (l.trim() === "") break
    para.push(l.trim())
  }
  return para.join(" ")
}

/** The commands with `--no-redact`, read from the top-level help (so a new one is checked too). */
const commandsWithNoRedact = (): Array<string> => {
  const r = cli(["--help"])
  return [...new Set([...r.stdout.matchAll(/\$ session-ingest (\S+)((?:.|\n {10,})*?)\n {6}\S/g)].filter((m) => m[2].includes("--no-redact")).map((m) => m[1]))]
}

describe("--no-redact help names the command's own output", () => {
  const own: Record<string, RegExp> = {
    replay: /replay page/,
    export: /the export/,
    show: /Markdown \(--format markdown\)/,
    transcript: /Markdown \(--format markdown\)/,
    mcp: /answers/,
    // session 35 (tester35a F12): usage's workspace rows
    usage: /workspaces of `--by\s+workspace`/
  }

  it("every command with --no-redact is known here, and its help says what it turns off there", () => {
    const commands = commandsWithNoRedact()
    expect(commands.sort()).toEqual(Object.keys(own).sort())
    for (const command of commands) {
      const text = noRedactHelp(command)
      expect(text, command).toMatch(own[command])
      // Not another command's output.
      expect(text, command).not.toMatch(/export and Markdown/)
      for (const [other, words] of Object.entries(own)) {
        if (!words.test(text) || own[command].source === words.source) continue
        throw new Error(`${command} --no-redact help names ${other}'s output: ${text}`)
      }
    }
  }, 60_000)
})

describe("counts are pluralised in human output", () => {
  it("counted: 0, 1, 2 and irregular plurals", () => {
    expect(counted(0, "event")).toBe("0 events")
    expect(counted(1, "event")).toBe("1 event")
    expect(counted(2, "event")).toBe("2 events")
    expect(counted(1, "tool call")).toBe("1 tool call")
    expect(counted(1, "subagent trajectory", "subagent trajectories")).toBe("1 subagent trajectory")
    expect(counted(3, "subagent trajectory", "subagent trajectories")).toBe("3 subagent trajectories")
  })

  it("import, inspect and discover of one session with one event say 1 session, 1 event, 1 source, 1 prompt", () => {
    const dir = tempDir("si-wording-")
    const sessions = path.join(dir, "agents", "a1", "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    const file = path.join(sessions, "a1.jsonl")
    fs.writeFileSync(
      file,
      [
        { type: "session_header", session_id: "sess-one", agent_id: "a1", created_at: "2025-04-01T08:00:00Z" },
        { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hello" }, created_at: "2025-04-01T08:00:01Z" }
      ].map((l) => JSON.stringify(l)).join("\n") + "\n"
    )
    const roots = ["--agents-root", path.join(dir, "agents")]
    const index = path.join(dir, "idx.db")
    const imported = cli(["import", ...roots, "--claude-root", emptyClaudeRoot(dir), "--index", index])
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(/added: +1 session, 1 event\n/)
    expect(imported.stdout).toMatch(/muse-agents +\S+ +\S+ +1 source\b(?!s)/)
    const inspected = cli(["inspect", "muse-agents", file, ...roots])
    expect(inspected.code, inspected.stderr).toBe(0)
    expect(inspected.stdout).toMatch(/sessions: +1\n/)
    const discovered = cli(["discover", "muse-agents", ...roots])
    expect([0, 8], discovered.stderr).toContain(discovered.code)
    expect(discovered.stdout).toContain("(1 prompt, 0 tool calls, 2 lines)")
    for (const out of [imported.stdout, inspected.stdout, discovered.stdout]) {
      expect(out).not.toMatch(/(?<![\d.,])1 (events|sessions|sources|prompts|tool calls|runs|lines)\b/)
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }, 60_000)
})
