/**
 * A `--json` envelope carries no raw C1 control or bidi override, small or
 * large (a large one is checked as the bytes written): they are written as
 * `\uHHHH`, the same JSON value. Guards the large-envelope path of
 * `printResult` (session 15: discover's 10 MB envelope is no longer passed
 * through a regular expression when it holds none).
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

const jl = (o: unknown) => JSON.stringify(o) + "\n"

/** A Muse agents root with `agents` sessions, each with its own prompt: the first one's is `text`, the others' plain. */
const agentsRoot = (text: string, agents: number) => {
  const dir = tempDir()
  temps.push(dir)
  const root = path.join(dir, "agents")
  for (let i = 0; i < agents; i++) {
    const sessions = path.join(root, `a${i}`, "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    fs.writeFileSync(
      path.join(sessions, `a${i}.jsonl`),
      jl({ type: "session_header", session_id: `s${i}`, created_at: "2025-01-01T00:00:00Z" }) +
        jl({ type: "item", source: "runtime", created_at: "2025-01-01T00:00:01Z", item: { type: "message", role: "user", text: i === 0 ? text : `plain prompt ${i} ${"x".repeat(400)}` } })
    )
  }
  return root
}

const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/

/** The first prompt of session `s0` in a discover envelope. */
const firstPromptOf = (stdout: string): string =>
  (JSON.parse(stdout).data.sources as Array<{ sessionId: string; summary: { firstPrompt: string } }>).find((s) => s.sessionId === "s0")!.summary.firstPrompt

describe("--json envelopes hold no raw control, small or large", () => {
  // 1 session: a few KiB; 200 sessions: over 100 KiB, the large path.
  for (const agents of [1, 200]) {
    it(`${agents} session(s), one prompt with a C1 control and a bidi override: escaped, the same value`, () => {
      const text = "see \u0085 next \u202e evil \u009b2J é 🎉"
      const r = cli(["discover", "muse-agents", "--agents-root", agentsRoot(text, agents), "--json"], { env: { NO_COLOR: "1" } })
      expect(r.code).toBe(0)
      expect(r.stdout.length).toBeGreaterThan(agents === 1 ? 0 : 100 * 1024)
      expect(RAW.test(r.stdout)).toBe(false)
      expect(r.stdout).toContain("see \\u0085 next \\u202e evil \\u009b2J é 🎉")
      expect(r.stdout.endsWith("}\n")).toBe(true)
      expect(firstPromptOf(r.stdout)).toBe(text)
    })
    it(`${agents} session(s) without one: written as it is, one line`, () => {
      const text = "plain é 🎉 text"
      const r = cli(["discover", "muse-agents", "--agents-root", agentsRoot(text, agents), "--json"], { env: { NO_COLOR: "1" } })
      expect(r.code).toBe(0)
      expect(r.stdout.endsWith("}\n")).toBe(true)
      expect(r.stdout.split("\n").length).toBe(2)
      expect(firstPromptOf(r.stdout)).toBe(text)
    })
  }
})
