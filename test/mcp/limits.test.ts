/**
 * `session-ingest mcp` at its limits (tester 10, findings 9 and 11): an
 * answer larger than a line an MCP client reads (the official SDK's stdio
 * transport drops the connection past 10 MiB) is refused `-32602`
 * (`RESOURCE_LIMIT_EXCEEDED`, naming the bound) and the server keeps
 * serving; a hostile line (nested thousands deep, hundreds of thousands of
 * keys, a string of megabytes, inside a valid request's `arguments` too) is
 * answered or refused line by line, with one stderr line and no stack
 * trace, and the next line is served; a client that writes its requests and
 * closes stdin gets every request it wrote answered before the server
 * exits 0.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { connect } from "./helpers.js"

/** A Claude Code session of `events` events with one-word texts: a few characters of text, about 300 bytes of metadata each in get_events. */
const SESSION = "9a1b2c3d-0000-4000-8000-0000000000c2"
const EVENTS = 20_000
/** The longest line the server writes (docs/mcp.md, "The MCP server"). */
const MAX_LINE_BYTES = 8 * 1024 * 1024

let index: string
let env: Record<string, string>

beforeAll(() => {
  const dir = tempDir("si-mcp-limits-")
  const root = path.join(dir, "projects")
  fs.mkdirSync(path.join(root, "-home-u-proj"), { recursive: true })
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  const t0 = Date.parse("2025-12-03T09:00:00.000Z")
  const lines: Array<string> = []
  let parent: string | null = null
  for (let i = 0; i < EVENTS; i++) {
    const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`
    const base = { parentUuid: parent, isSidechain: false, userType: "external", cwd: "/home/u/proj", sessionId: SESSION, version: "2.0.76", uuid, timestamp: new Date(t0 + i * 1000).toISOString() }
    lines.push(JSON.stringify(
      i % 2 === 0
        ? { ...base, type: "user", message: { role: "user", content: `q${i}` } }
        : { ...base, type: "assistant", message: { model: "claude-sonnet-4-5-20250929", id: `msg_${i}`, type: "message", role: "assistant", content: [{ type: "text", text: `a${i}` }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }
    ))
    parent = uuid
  }
  fs.writeFileSync(path.join(root, "-home-u-proj", `${SESSION}.jsonl`), lines.join("\n") + "\n")
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "agents"), "--json"], { env })
  expect(r.code, r.stderr).toBe(0)
}, 120_000)

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "limits-tests", version: "0" } }
}) + "\n"
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"
const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n"
const call = (id: unknown, name: string, args: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }) + "\n"

interface Run {
  readonly lines: Array<string>
  readonly responses: Array<any>
  readonly stderr: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/**
 * Spawn the server, write `writes` (each in one write, in order), then close
 * stdin at once (`closeAtOnce`) or once `expected` lines are read; resolve
 * at its exit. A server that neither answers nor exits within 20 s is killed
 * (the test then fails on what it answered).
 */
const run = (writes: ReadonlyArray<string>, options: { readonly expected?: number }): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", "--index", index], {
      cwd: repoRoot,
      env: { ...process.env, ...env }
    })
    const out: Array<Buffer> = []
    let stderr = ""
    let seen = 0
    let ended = false
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    const end = () => {
      if (!ended) {
        ended = true
        child.stdin.end()
      }
    }
    child.stdout.on("data", (d: Buffer) => {
      out.push(d)
      for (const b of d) if (b === 10) seen++
      if (options.expected !== undefined && seen >= options.expected) setTimeout(end, 200)
    })
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    child.stdin.on("error", () => {})
    child.on("error", reject)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      const lines = Buffer.concat(out).toString("utf8").split("\n").filter((l) => l.length > 0)
      try {
        resolve({ lines, responses: lines.map((l) => JSON.parse(l)), stderr, code, signal })
      } catch (e) {
        reject(new Error(`a line on stdout is not JSON: ${String(e)}`))
      }
    })
    let i = 0
    const writeNext = () => {
      if (i >= writes.length) {
        if (options.expected === undefined) end()
        return
      }
      child.stdin.write(writes[i++], () => writeNext())
    }
    writeNext()
  })

const byId = (r: Run, id: unknown) => r.responses.filter((x) => x.id === id)

/** No stack trace, no "(a bug)", no internal dump, on either stream. */
const expectNoTrace = (r: Run) => {
  expect(r.stderr).not.toMatch(/\n\s+at |\\n\s+at |RangeError|Maximum call stack|a bug|_tag/)
  for (const x of r.responses) if (x.error !== undefined) expect(x.error.message).not.toMatch(/\n|_tag|a bug/)
}

describe("mcp: an answer larger than a line may hold", () => {
  it("is refused -32602 RESOURCE_LIMIT_EXCEEDED naming the bound, and the server keeps serving (official client)", async () => {
    const server = await connect(["--index", index], env)
    try {
      for (const args of [{ id: SESSION.slice(0, 8), limit: 100_000, maxChars: 1_000_000 }, { id: SESSION, limit: 100_000, maxChars: 1_000_000 }]) {
        let error: unknown
        try {
          await server.client.callTool({ name: "get_events", arguments: args }, undefined, { timeout: 60_000 })
        } catch (e) {
          error = e
        }
        expect(error).toBeInstanceOf(McpError)
        expect((error as McpError).code).toBe(-32602)
        expect((error as McpError).message).toContain("RESOURCE_LIMIT_EXCEEDED")
        expect((error as McpError).message).toContain("8388608 bytes")
        expect((error as McpError).message).not.toMatch(/\n|_tag|a bug/)
        expect((error as McpError & { data?: { code?: string } }).data?.code).toBe("RESOURCE_LIMIT_EXCEEDED")
      }
      // Served on: a page of the same session, and another tool.
      const page = await server.client.callTool({ name: "get_events", arguments: { id: SESSION, limit: 1000, maxChars: 100_000 } })
      expect((page.structuredContent as { events: Array<unknown> }).events).toHaveLength(1000)
      const listed = await server.client.callTool({ name: "list_sessions", arguments: { limit: 1 } })
      expect((listed.structuredContent as { sessions: Array<unknown> }).sessions).toHaveLength(1)
      expect(server.transportErrors).toEqual([])
      expect(server.stderr()).not.toMatch(/\n\s+at |OUTPUT_WRITE_FAILED|a bug/)
    } finally {
      await server.close()
    }
  })

  it("every line written stays within the bound: a whole-transcript page and a resource read of a big session", async () => {
    const r = await run([
      initialize,
      initialized,
      call(2, "get_session", { id: SESSION, maxChars: 1_000_000 }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: `session://${SESSION}` } }) + "\n",
      call(4, "get_events", { id: SESSION, limit: 100_000, maxChars: 1_000_000 }),
      ping(5)
    ], { expected: 5 })
    expect(r.code, r.stderr).toBe(0)
    for (const l of r.lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(MAX_LINE_BYTES)
    for (const id of [2, 3, 4]) {
      const [x] = byId(r, id)
      expect(x === undefined ? "no answer" : x.error === undefined ? "result" : String(x.error.code), String(id)).toMatch(/^(result|-32602)$/)
    }
    expect(byId(r, 4)[0].error.code).toBe(-32602)
    expect(byId(r, 5)).toEqual([{ jsonrpc: "2.0", id: 5, result: {} }])
    expectNoTrace(r)
  })
})

describe("mcp: hostile lines are answered line by line", () => {
  it("lines nested thousands deep (arrays, objects, inside a request's arguments and params) are -32600; the lines around them are answered", async () => {
    const arrays = (d: number) => "[".repeat(d) + "]".repeat(d)
    const objects = (d: number) => "{\"a\":".repeat(d) + "1" + "}".repeat(d)
    const deepArgs = (id: number, d: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"get_session","arguments":{"id":${arrays(d)}}}}\n`
    const deepParams = (id: number, d: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":${objects(d)}}}\n`
    // The tester's chunk: initialize, ping and the deep line in one write.
    const r = await run([
      initialize + initialized + ping(2) + arrays(5000) + "\n" + ping(3),
      objects(5000) + "\n",
      ping(4),
      arrays(200_000) + "\n" + deepArgs(5, 5000) + deepParams(6, 5000) + "[" + objects(3000) + "]\n",
      ping(7)
    ], { expected: 10 })
    expect(r.code, r.stderr).toBe(0)
    expect(byId(r, 1)[0].result.serverInfo.name).toBe("session-ingest")
    for (const id of [2, 3, 4, 7]) expect(byId(r, id), String(id)).toEqual([{ jsonrpc: "2.0", id, result: {} }])
    // One answer a line (a refusal may come before the answer of a request read earlier: clients match answers by id).
    expect(r.responses.map((x) => x.error === undefined ? x.id : x.error.code).sort()).toEqual([-32600, -32600, -32600, -32600, -32600, -32600, 1, 2, 3, 4, 7])
    const refusals = r.responses.filter((x) => x.error !== undefined)
    for (const x of refusals) expect(x.error.message).toMatch(/^Invalid Request: .*nested deeper than \d+ levels/)
    // a request whose top-level id a shallow scan reads gets it (5, 6: their deep part is in params); the others null
    expect(refusals.map((x) => x.id).sort()).toEqual([5, 6, null, null, null, null])
    const lines = r.stderr.trim().split("\n")
    expect(lines).toHaveLength(6)
    for (const l of lines) expect(l).toMatch(/^session-ingest mcp: Invalid Request: /)
    expectNoTrace(r)
  })

  it("hundreds of thousands of keys, and strings of megabytes, in a request's arguments: -32602 with a short message; the next line is answered", async () => {
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]))
    const r = await run([
      initialize,
      call(2, "get_session", { id: SESSION, ...keys }),
      call(3, "get_session", { id: "x".repeat(8_000_000) }),
      call(4, "search_sessions", { query: "q".repeat(4_000_000) + " OR (" }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: keys }) + "\n",
      ping(6)
    ], { expected: 6 })
    expect(r.code, r.stderr).toBe(0)
    for (const id of [2, 3, 4]) {
      const [x] = byId(r, id)
      expect(x?.error?.code, String(id)).toBe(-32602)
      expect(JSON.stringify(x).length, String(id)).toBeLessThan(10_000)
    }
    expect(byId(r, 2)[0].error.message).toMatch(/arguments/)
    expect(byId(r, 3)[0].error.message).toContain("SOURCE_NOT_FOUND")
    expect(byId(r, 5)).toHaveLength(1)
    expect(byId(r, 6)).toEqual([{ jsonrpc: "2.0", id: 6, result: {} }])
    expectNoTrace(r)
    expect(r.stderr.length).toBeLessThan(10_000)
  })
})

describe("mcp: a client that writes its requests and closes stdin", () => {
  it("gets every request it wrote answered (those still running at the end included), then the server exits 0", async () => {
    const r = await run([
      initialize + initialized +
      call(2, "get_session", { id: SESSION, maxChars: 1_000_000 }) +
      call(3, "get_events", { id: SESSION, limit: 5000, maxChars: 200_000 }) +
      call("last", "list_sessions", {}) +
      // The last line without its newline: read at the end of input.
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" })
    ], {})
    expect(r.code, r.stderr).toBe(0)
    expect(r.signal).toBeNull()
    expect(byId(r, 1)[0].result.serverInfo.name).toBe("session-ingest")
    const page = byId(r, 2)[0]?.result?.structuredContent?.page
    expect(page?.text.length).toBeGreaterThan(100_000)
    expect(byId(r, 3)[0]?.result?.structuredContent?.events).toHaveLength(5000)
    expect(byId(r, "last")[0]?.result?.structuredContent?.sessions).toHaveLength(1)
    expect(byId(r, 4)).toEqual([{ jsonrpc: "2.0", id: 4, result: {} }])
    // Answers (notifications aside): one per request.
    expect(r.responses.filter((x) => Object.hasOwn(x, "id"))).toHaveLength(5)
    expect(r.stderr).toBe("")
  })
})
