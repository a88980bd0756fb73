/**
 * A generated Claude Code session of any size (one project folder under a
 * fresh `~/.claude/projects` root), user and assistant turns alternating,
 * each event chained to the one before: for the tests of large outputs
 * (stdout write failures, interruption during a long export).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { tempDir } from "./paths.js"
import { cli } from "./run.js"

/** The generated session's id (a UUID, as Claude Code names its logs). */
export const BIG_SESSION_ID = "9a1b2c3d-0000-4000-8000-0000000000b1"

/** The text of the user event `i` (every even one) unless a test gives its own. */
const defaultUserText = (i: number): string => `question ${i} about the invoice totals and the rounding of line items`

/** Write a session of `events` events under a new root (`userText(i)`: the text of user event `i`); answers the root and the log's path. */
export const writeBigSession = (events: number, userText: (i: number) => string = defaultUserText): { readonly root: string; readonly file: string } => {
  const root = path.join(tempDir("si-big-"), "projects")
  const dir = path.join(root, "-home-u-proj")
  fs.mkdirSync(dir, { recursive: true })
  const t0 = Date.parse("2025-12-03T09:00:00.000Z")
  const lines: Array<string> = []
  let parent: string | null = null
  for (let i = 0; i < events; i++) {
    const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`
    const base = {
      parentUuid: parent, isSidechain: false, userType: "external", cwd: "/home/u/proj", sessionId: BIG_SESSION_ID,
      version: "2.0.76", gitBranch: "main", uuid, timestamp: new Date(t0 + i * 1000).toISOString()
    }
    lines.push(JSON.stringify(
      i % 2 === 0
        ? { ...base, type: "user", message: { role: "user", content: userText(i) } }
        : {
          ...base, type: "assistant",
          message: {
            model: "claude-sonnet-4-5-20250929", id: `msg_${i}`, type: "message", role: "assistant",
            content: [{ type: "text", text: `answer ${i}: the rounding happens per line before the sum; sum first, then round.` }],
            stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 20 }
          }
        }
    ))
    parent = uuid
  }
  const file = path.join(dir, `${BIG_SESSION_ID}.jsonl`)
  fs.writeFileSync(file, lines.join("\n") + "\n")
  return { root, file }
}

/** A new index holding a generated session of `events` events (imported by the CLI); answers the index, the root and the log. */
export const bigSessionIndex = (
  events: number,
  userText?: (i: number) => string
): { readonly index: string; readonly root: string; readonly file: string } => {
  const { root, file } = writeBigSession(events, userText)
  const dir = tempDir("si-big-idx-")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  const index = path.join(dir, "index.db")
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"])
  if (r.code !== 0) throw new Error(`import of the generated session failed (${r.code}): ${r.stderr}`)
  return { index, root, file }
}

/** True when this process may mount a tmpfs (root, and `mount` works). */
export const canMount = (): boolean => {
  if (process.getuid?.() !== 0) return false
  return spawnSync("mount", ["--version"], { stdio: "ignore" }).status === 0
}
