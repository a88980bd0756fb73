/**
 * A root option naming a regular file (one session log, most often) instead
 * of the folder meant (tester23a F3): every root option (`--claude-root`,
 * `--agents-root`, `--muse-root`, `--agentmux-root`, `--workspace`) says the
 * path is a file, not a folder, and its remedy names the folder to pass
 * (docs/providers.md "Root options that name a file"); never "cannot be read".
 * Coverage partial, exit 8, as for any named root that cannot be used.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const setup = () => {
  const dir = tempDir("si-root-file-")
  const file = nodePath.join(dir, "11ce5dd2-b45e-41f0-b139-d32c93cd59bf.jsonl")
  fs.writeFileSync(file, JSON.stringify({ type: "user", sessionId: "11ce5dd2-b45e-41f0-b139-d32c93cd59bf", message: { role: "user", content: "hi" } }) + "\n")
  return { dir, file }
}
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }

describe("a root option that names a file", () => {
  it("discover claude-code --claude-root FILE: 'is a file, not a folder', the remedy names ~/.claude/projects (exit 8)", () => {
    const { file } = setup()
    const r = cli(["discover", "claude-code", "--claude-root", file], { env })
    expect(r.code).toBe(8)
    expect(r.stdout).toContain(`The Claude Code projects root ${file} is a file, not a folder`)
    expect(r.stdout).not.toContain("cannot be read")
    expect(r.stdout).toMatch(/remedy: Pass the projects folder itself as --claude-root \(e\.g\. ~\/\.claude\/projects/)
  })

  it("import with every root option naming the file: each says it is a file, not a folder, and names the folder to pass", () => {
    const { dir, file } = setup()
    const r = cli([
      "import", "--index", nodePath.join(dir, "i.db"), "--json",
      "--claude-root", file, "--agents-root", file, "--muse-root", file, "--agentmux-root", file, "--agent", "a1", "--workspace", file
    ], { env })
    expect(r.code).toBe(8)
    const data = JSON.parse(r.stdout).data
    expect(data.coverage).toBe("partial")
    const causes = data.causes as Array<{ provider: string; code: string; problem: string; remedy: string | null }>
    const of = (provider: string, code?: string) => causes.find((c) => c.provider === provider && (code === undefined || c.code === code))!
    expect(of("claude-code").problem).toBe(`The Claude Code projects root ${file} is a file, not a folder; no sessions listed.`)
    expect(of("claude-code").remedy).toContain("~/.claude/projects")
    expect(of("muse-agents").problem).toBe(`The agents root ${file} is a file, not a folder; no sessions listed.`)
    expect(of("muse-agents").remedy).toContain("Pass the Muse agents folder itself as --agents-root (e.g. ~/agents")
    expect(of("muse-code", "SOURCE_NOT_REGULAR_FILE").problem).toBe(`The Muse Code sessions root ${file} (--muse-root) is a file, not a folder.`)
    expect(of("muse-code", "SOURCE_NOT_REGULAR_FILE").remedy).toContain("--muse-root (e.g. ~/.local/share/muse/sessions")
    expect(of("agentmux").problem).toBe(`The AgentMux home ${file} (--agentmux-root) is a file, not a folder.`)
    expect(of("agentmux").remedy).toContain("--agentmux-root (e.g. ~/.agentmux")
    expect(of("muse-code", "WORKSPACE_NOT_FOUND").problem).toContain(`The workspace ${file} is a file, not a folder`)
    for (const c of causes) expect(c.problem).not.toMatch(/cannot be read|A part of/)
  })
})
