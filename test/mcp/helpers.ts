/**
 * Helpers for the MCP server tests (issue 16): an index of the bundled
 * fixtures with secrets planted (the canary corpus of issue 15), and a real
 * MCP client (`@modelcontextprotocol/sdk`'s `Client` over stdio) that
 * launches `node bin/session-ingest.mjs mcp --index FILE` as MCP clients do.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { expect } from "@effect/vitest"
import { type Canary, canaries, canaryBlock, copyPlanted } from "../support/canary.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { shownIdsOf } from "../support/shown-ids.js"

/** The planted secrets (every redaction rule's samples and home paths). */
export const planted: ReadonlyArray<Canary> = canaries()

/** A GitHub token planted on its own, the canary the issue names. */
export const ghpCanary = "ghp_" + "Zq7".repeat(12)

/** An index of the fixtures: Claude Code and Muse agents copies with secrets planted, Muse Code exports and native logs, the AgentMux store. */
export interface Corpus {
  readonly dir: string
  /** The folder holding only the index file (to see that nothing is created beside it). */
  readonly indexDir: string
  readonly index: string
  readonly env: Record<string, string>
  /**
   * `sessions --json` rows, each with `shownUid`: its uid as a redacted answer shows it (`hses_…`, keyed by the
   * index's secret: src/domain/shown-ids.ts).
   */
  readonly sessions: ReadonlyArray<{ readonly sessionUid: string; readonly shownUid: string; readonly sessionId: string; readonly provider: string; readonly eventCount: number; readonly workspace: string | null }>
}

/** Build the corpus (one CLI import). */
export const buildCorpus = (): Corpus => {
  const dir = tempDir("si-mcp-")
  const block = canaryBlock(planted) + `token ${ghpCanary} here\n`
  const claude = path.join(dir, "claude", "projects")
  copyPlanted(path.join(fixturesDir, "claude-code", "projects"), claude, block)
  const agents = path.join(dir, "agents")
  copyPlanted(path.join(fixturesDir, "muse-agents", "agents"), agents, block)
  const workspace = path.join(dir, "workspace")
  fs.mkdirSync(workspace)
  for (const f of fs.readdirSync(path.join(fixturesDir, "muse-code", "export"))) {
    fs.copyFileSync(path.join(fixturesDir, "muse-code", "export", f), path.join(workspace, f))
  }
  const indexDir = path.join(dir, "index")
  fs.mkdirSync(indexDir)
  const index = path.join(indexDir, "index.db")
  const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli([
    "import", "--index", index, "--workspace", dir, "--workspace", "/workspace/demo",
    "--claude-root", claude, "--agents-root", agents,
    "--muse-root", path.join(fixturesDir, "muse-code", "native"),
    "--store", path.join(fixturesDir, "agentmux", "filestore.db"), "--agent", "u1", "--state", path.join(dir, "state.db"),
    ...fs.readdirSync(workspace).filter((f) => f.endsWith(".json")).map((f) => path.join(workspace, f)), "--json"
  ], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  const listed = cli(["sessions", "--index", index, "--json"], { env })
  expect(listed.code, listed.stderr).toBe(0)
  const ids = shownIdsOf(index)
  const sessions = JSON.parse(listed.stdout).data.map((s: { sessionUid: string }) => ({ ...s, shownUid: ids.sessionUid(s.sessionUid) }))
  expect(new Set(sessions.map((s: { provider: string }) => s.provider))).toEqual(new Set(["claude-code", "muse-agents", "muse-code", "agentmux"]))
  return { dir, indexDir, index, env, sessions }
}

/** A client connected to `session-ingest mcp ARGS`, and what the server wrote on stderr. */
export interface Connected {
  readonly client: Client
  readonly stderr: () => string
  /** Errors the client's transport saw (a line on stdout that is not protocol would be one). */
  readonly transportErrors: Array<Error>
  readonly close: () => Promise<void>
}

/** Launch the server as an MCP client does (a child process over stdio) and initialize. */
export const connect = async (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", ...args],
    env: { ...process.env as Record<string, string>, ...env },
    cwd: repoRoot,
    stderr: "pipe"
  })
  let err = ""
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")))
  const transportErrors: Array<Error> = []
  const client = new Client({ name: "session-ingest-tests", version: "0.0.0" })
  client.onerror = (e) => transportErrors.push(e)
  await client.connect(transport)
  return { client, stderr: () => err, transportErrors, close: () => client.close() }
}

/** The JSON answer of a tool call (its text content, which is JSON; the structured content must be the same). */
export const answerOf = (result: unknown): any => {
  const r = result as { content: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean }
  expect(r.isError ?? false).toBe(false)
  expect(r.content[0].type).toBe("text")
  const parsed = JSON.parse(r.content[0].text!)
  expect(r.structuredContent).toEqual(parsed)
  return parsed
}

/**
 * Import the Claude Code projects root `<dir>/claude` (as `claudeProject` in `../support/claude-import.ts` writes it)
 * into `<dir>/index.db` through the CLI (complete or partial), and connect a server (redaction on) to that index.
 */
export const serveClaudeRoot = async (dir: string): Promise<Connected> => {
  const index = path.join(dir, "index.db")
  const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "claude"), "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  return connect(["--index", index], env)
}

/** A tool's answer from `server`, with its raw result as JSON text (to look for a value anywhere in it). */
export const callRaw = async (server: Connected, name: string, args: Record<string, unknown>) => {
  const raw = await server.client.callTool({ name, arguments: args })
  return { raw: JSON.stringify(raw), answer: answerOf(raw) }
}
