/**
 * Ctrl-C on `mcp` (tester28a F11): the server reads only, so the interrupted
 * lines do not tell to "run the same command again to finish" (an import's
 * wording); they say it stopped with nothing to finish, and that it is
 * started again. Exit 130, as every interrupted command.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { importClaude } from "../support/claude-import.js"
import { repoRoot, tempDir } from "../support/paths.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

describe("mcp: SIGINT", () => {
  it("exit 130; the remedy says there is nothing to finish and to start the server again", async () => {
    const dir = tempDir("si-mcp-sigint-")
    const claude = path.join(dir, "claude")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(claude, "projects"), { recursive: true })
    fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
    const index = path.join(dir, "i.db")
    importClaude(index, claude, agents, env)
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", "--index", index], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    const answered = new Promise<void>((resolve) =>
      child.stdout.on("data", (d) => {
        stdout += d
        if (stdout.includes("\n")) resolve()
      }))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) + "\n")
    await answered
    child.kill("SIGINT")
    const code = await exited
    fs.rmSync(dir, { recursive: true, force: true })
    expect(code).toBe(130)
    expect(stderr).toContain("session-ingest: INTERRUPTED: Interrupted; the MCP server stopped")
    expect(stderr).toContain("  remedy: Nothing to finish: start the server again")
    expect(stderr).not.toContain("Run the same command again to finish")
  }, 60_000)
})
