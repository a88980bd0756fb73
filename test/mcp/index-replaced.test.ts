/**
 * A running `session-ingest mcp` whose SQLite index is deleted or replaced
 * under it (the README's "rm the file, import"; tester18 F8): it served the
 * unlinked old file, silently, for as long as it ran. Now each later tool
 * call and resource read is `STORE_UNAVAILABLE`, naming the change and
 * saying to restart the server; a fresh server reads the new index. An
 * import into the same file (no replacement) is still read live.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect } from "./helpers.js"

const native = path.join(fixturesDir, "muse-code", "native")
const claude = path.join(fixturesDir, "claude-code", "projects")

/** An index of the Claude Code fixtures (`claude`) and, with `withNative`, the Muse Code native logs too. */
const importInto = (index: string, env: Record<string, string>, withNative: boolean) => {
  const dir = path.dirname(index)
  const r = cli([
    "import", "--index", index, "--claude-root", claude, "--agents-root", path.join(dir, "no-agents"),
    ...(withNative ? ["--muse-root", native, "--workspace", "/workspace/demo"] : []), "--json"
  ], { env })
  expect([0, 8], r.stderr).toContain(r.code)
}

const servers: Array<{ close: () => Promise<void> }> = []

/** A new index of the Claude Code fixtures in a folder of its own, and a server started on it. */
const served = async () => {
  const dir = tempDir("si-mcp-replaced-")
  fs.mkdirSync(path.join(dir, "no-agents"))
  const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const index = path.join(dir, "index.db")
  importInto(index, env, false)
  const server = await connect(["--index", index], env)
  servers.push(server)
  return { dir, env, index, server }
}
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

const failureOf = async (p: Promise<unknown>): Promise<McpError> => {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(McpError)
    return e as McpError
  }
  throw new Error("expected the call to fail")
}

describe("mcp: the index file deleted or replaced while the server runs", () => {
  for (const how of ["deleted and imported again", "replaced by a rename"] as const) {
    it(`${how}: each later call is STORE_UNAVAILABLE (not the old file's answers); a new server reads the new index`, async () => {
      const { dir, env, index, server } = await served()
      const before = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 100 } }))
      expect(before.sessions.length).toBeGreaterThan(0)
      expect(before.sessions.every((s: { provider: string }) => s.provider === "claude-code")).toBe(true)

      if (how === "deleted and imported again") {
        for (const f of fs.readdirSync(dir).filter((f) => f.startsWith("index.db"))) fs.rmSync(path.join(dir, f))
        importInto(index, env, true)
      } else {
        const other = path.join(dir, "other.db")
        importInto(other, env, true)
        fs.renameSync(other, index)
      }
      for (const call of [
        () => server.client.callTool({ name: "list_sessions", arguments: {} }),
        () => server.client.callTool({ name: "search_sessions", arguments: { query: "rounding" } }),
        () => server.client.readResource({ uri: `session://${before.sessions[0].sessionUid}` }),
        // tester28a F2: the resource list is not the old file's either
        () => server.client.listResources()
      ]) {
        const e = await failureOf(call())
        expect(e.message).toContain("STORE_UNAVAILABLE")
        // a new file at the path (made again, or renamed over it) is a replacement
        expect(e.message).toContain("was replaced")
        expect(e.message).toContain("Restart the MCP server")
      }

      const fresh = await connect(["--index", index], env)
      servers.push(fresh)
      const after = answerOf(await fresh.client.callTool({ name: "list_sessions", arguments: { limit: 100 } }))
      expect(new Set(after.sessions.map((s: { provider: string }) => s.provider))).toEqual(new Set(["claude-code", "muse-code"]))
    })
  }

  it("deleted and not made again: STORE_UNAVAILABLE saying it was deleted", async () => {
    const { env, index, server } = await served()
    answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} }))
    fs.rmSync(index)
    const e = await failureOf(server.client.callTool({ name: "list_sessions", arguments: {} }))
    expect(e.message).toContain("STORE_UNAVAILABLE")
    expect(e.message).toContain("was deleted")
  })

  it("an import into the same file while the server runs is read live (no error)", async () => {
    const { env, index, server } = await served()
    const before = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 100 } }))
    importInto(index, env, true)
    const after = answerOf(await server.client.callTool({ name: "list_sessions", arguments: { limit: 100 } }))
    expect(after.sessions.length).toBeGreaterThan(before.sessions.length)
    expect(after.sessions.some((s: { provider: string }) => s.provider === "muse-code")).toBe(true)
  })
})
