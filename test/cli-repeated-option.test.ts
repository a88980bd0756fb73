/**
 * An option given twice where it takes one value (tester32a F2, F3): for
 * every command, `INVALID_ARGUMENT` (exit 2) naming the option and the values
 * it was given, never its text searched for (`search the --limit 3 --limit 5`
 * searched for "the --limit 5"), never an option after it swallowed (`search
 * --limit 3 --limit 5 the --index D` ran on the default index), never
 * "unknown argument" about an option the command has. An option that is
 * repeatable (`--muse-root`, `--agent`) stays repeatable.
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const run = (args: ReadonlyArray<string>, home: string) => {
  const r = cli(args, { env: { ...env, HOME: home, XDG_DATA_HOME: path.join(home, "data") } })
  const last = r.stdout.trim().split("\n").pop() ?? ""
  const json = last.startsWith("{") ? JSON.parse(last) as { status: string; data: any; error: any } : undefined
  return { code: r.code, stderr: r.stderr, json }
}

describe("an option given twice (tester32a F2, F3)", () => {
  it("search: refused naming the option, never searched for, never swallowing the options after it", () => {
    const home = tempDir("si-repeat-")
    const index = path.join(home, "i.db")
    for (
      const [args, option, values] of [
        [["search", "the", "--index", index, "--provider", "claude-code", "--provider", "muse-code", "--json"], "--provider", [
          "claude-code",
          "muse-code"
        ]],
        [["search", "the", "--index", index, "--limit", "3", "--limit", "5", "--json"], "--limit", ["3", "5"]],
        [["search", "the", "--index", index, "--index", index, "--json"], "--index", [index, index]],
        [["search", "--limit", "3", "--limit", "5", "the", "--index", index, "--json"], "--limit", ["3", "5"]],
        [["search", "--json", "the", "--limit=3", "--index", index, "--limit", "5"], "--limit", ["3", "5"]],
        [["search", "--json", "the", "--index", index, "--json"], "--json", []]
      ] as const
    ) {
      const r = run(args, home)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.json?.status, args.join(" ")).toBe("error")
      expect(r.json?.error.code).toBe("INVALID_ARGUMENT")
      expect(r.json?.error.message).toContain(`${option} is given 2 times`)
      for (const v of values) expect(r.json?.error.message).toContain(v)
      expect(r.json?.error.message).not.toMatch(/unknown argument/)
      expect(r.json?.error.remediation).toContain(`Give ${option} once`)
    }
  })

  it("sessions, usage, show: the same refusal, never 'unknown argument'; without --json on stderr", () => {
    const home = tempDir("si-repeat-")
    const index = path.join(home, "i.db")
    for (
      const [args, option] of [
        [["sessions", "--index", index, "--provider", "claude-code", "--provider", "muse-agents"], "--provider"],
        [["usage", "--index", index, "--by", "day", "--by", "model"], "--by"],
        [["show", "x", "--index", index, "--format", "markdown", "--format", "transcript"], "--format"],
        [["import", "--index", index, "--jobs", "2", "--jobs", "3"], "--jobs"],
        [["import", "--index", index, "--claude-root", home, "--claude-root", home], "--claude-root"]
      ] as const
    ) {
      const r = run(args, home)
      expect(r.code, args.join(" ")).toBe(2)
      const lines = r.stderr.trim().split("\n")
      expect(lines[0], args.join(" ")).toMatch(new RegExp(`^session-ingest: INVALID_ARGUMENT: ${option} is given 2 times \\(`))
      expect(lines[1]).toMatch(new RegExp(`^  remedy: Give ${option} once`))
      expect(r.stderr).not.toMatch(/unknown argument/)
    }
  })

  it("a repeatable option is still taken as many times as it is given", () => {
    const home = tempDir("si-repeat-")
    const r = run(["discover", "muse-code", "--muse-root", path.join(home, "a"), "--muse-root", path.join(home, "b"), "--json"], home)
    expect(r.json?.error?.message ?? "").not.toMatch(/given 2 times/)
    expect(r.code).not.toBe(2)
  })
})
