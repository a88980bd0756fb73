/**
 * `session-ingest mcp` on lines a client should not send (JSON-RPC 2.0 and
 * MCP): raw writes to the spawned CLI, then the official MCP client. A line
 * that is not JSON is a -32700 Parse error (id null), a JSON value that is
 * not a request -32600 Invalid Request, an unknown method -32601, an unknown
 * tool -32602 with a one-line message; every later request is still
 * answered; stdout holds only JSON-RPC responses, and no stack trace is
 * written anywhere.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { connect } from "./helpers.js"

let index: string
let env: Record<string, string>

beforeAll(() => {
  const dir = tempDir("si-mcp-framing-")
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--json"], { env })
  expect([0, 8], r.stderr).toContain(r.code)
}, 120_000)

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "framing-tests", version: "0" } }
}
const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })

interface Exchange {
  /** Every line the server wrote on stdout, parsed (the test fails on a line that is not JSON). */
  readonly responses: Array<any>
  readonly stdout: string
  readonly stderr: string
  readonly code: number | null
}

/**
 * Spawn the server, write `initialize`, then each write of `writes` (a
 * string written as is, in one write), wait for `expected` responses in all
 * (initialize's included), close stdin and wait for the exit.
 */
const exchange = (writes: ReadonlyArray<string>, expected: number): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", "--index", index], {
      cwd: repoRoot,
      env: { ...process.env, ...env }
    })
    let stdout = ""
    let stderr = ""
    let ended = false
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`timed out; stdout:\n${stdout}\nstderr:\n${stderr}`))
    }, 20_000)
    const lines = () => stdout.split("\n").filter((l) => l.length > 0)
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8")
      if (!ended && lines().length >= expected) {
        ended = true
        // Let anything written after the expected answers arrive too.
        setTimeout(() => child.stdin.end(), 300)
      }
    })
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    child.on("error", reject)
    child.on("exit", (code) => {
      clearTimeout(timer)
      try {
        resolve({ responses: lines().map((l) => JSON.parse(l)), stdout, stderr, code })
      } catch (e) {
        reject(new Error(`a line on stdout is not JSON: ${String(e)}\n${stdout}`))
      }
    })
    child.stdin.write(JSON.stringify(initialize) + "\n")
    let i = 0
    const writeNext = () => {
      if (i >= writes.length) return
      child.stdin.write(writes[i++], () => setTimeout(writeNext, 20))
    }
    writeNext()
  })

/** Every response is a JSON-RPC 2.0 response (a result or an error {code, message}), none a stack trace. */
const expectOnlyResponses = (x: Exchange) => {
  for (const r of x.responses) {
    expect(r.jsonrpc).toBe("2.0")
    expect(Object.hasOwn(r, "id")).toBe(true)
    expect(Object.hasOwn(r, "result") !== Object.hasOwn(r, "error")).toBe(true)
    if (r.error !== undefined) {
      expect(typeof r.error.code).toBe("number")
      expect(typeof r.error.message).toBe("string")
      expect(r.error.message).not.toContain("\n")
      expect(r.error.message).not.toContain("_tag")
    }
  }
  expect(x.stdout).not.toMatch(/\n\s+at /)
  expect(x.stderr).not.toMatch(/\n\s+at |\\n\s+at /)
  expect(x.stderr).not.toMatch(/SyntaxError|BigInt/)
  expect(x.code).toBe(0)
}

const byId = (x: Exchange, id: unknown) => x.responses.filter((r) => r.id === id)
const errorsWithNullId = (x: Exchange) => x.responses.filter((r) => r.id === null).map((r) => r.error.code)

describe("mcp framing: lines that are not requests", () => {
  it("a line that is not JSON is a -32700 Parse error (id null), and the next lines are answered", async () => {
    // The tester's steps: ping and the bad line in one write, then more pings.
    const x = await exchange([`${ping(4)}\nnot json\n`, `${ping(5)}\n`, `${ping(6)}\n`, `${ping(7)}\n`], 6)
    expectOnlyResponses(x)
    expect(byId(x, 1)[0].result.serverInfo.name).toBe("session-ingest")
    for (const id of [4, 5, 6, 7]) expect(byId(x, id)).toEqual([{ jsonrpc: "2.0", id, result: {} }])
    expect(errorsWithNullId(x)).toEqual([-32700])
    expect(x.responses).toHaveLength(6)
    expect(x.stderr.trim().split("\n")).toHaveLength(1)
  })

  it("several bad lines, partial lines split across writes, and a truncated JSON value", async () => {
    const x = await exchange([
      "{\"jsonrpc\":\"2.0\",\n",
      "}{\n",
      `${ping(8).slice(0, 10)}`,
      `${ping(8).slice(10)}\n\n   \n`,
      "\u00e9\u00e9\u00e9 \ud83d\ude00\n",
      `${ping(9)}\r\n`
    ], 6)
    expectOnlyResponses(x)
    expect(errorsWithNullId(x)).toEqual([-32700, -32700, -32700])
    expect(byId(x, 8)).toHaveLength(1)
    expect(byId(x, 9)).toHaveLength(1)
  })

  it("a JSON value that is not a request is -32600 Invalid Request, with its id when it has one", async () => {
    const x = await exchange([
      "{}\n",
      "[]\n",
      "42\n",
      "\"ping\"\n",
      "null\n",
      `${JSON.stringify({ id: 20, method: "ping" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 21, method: 7 })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 22, method: "ping", params: "x" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 23 })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 25, method: "ping", params: null })}\n`,
      `${ping(24)}\n`
    ], 14)
    expectOnlyResponses(x)
    expect(errorsWithNullId(x)).toEqual([-32600, -32600, -32600, -32600, -32600, -32600, -32600])
    for (const id of [20, 21, 22, 23, 25]) expect(byId(x, id).map((r) => r.error?.code)).toEqual([-32600])
    expect(byId(x, 24)).toEqual([{ jsonrpc: "2.0", id: 24, result: {} }])
  })

  it("an unknown method is -32601 with its id; an unknown notification and a stray response get no answer", async () => {
    const x = await exchange([
      `${JSON.stringify({ jsonrpc: "2.0", id: 30, method: "foo/bar", params: {} })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: "q", method: "@effect/rpc/Ping" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/nothing" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", method: "ping" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} })}\n`,
      `${ping(31)}\n`
    ], 4)
    expectOnlyResponses(x)
    expect(byId(x, 30).map((r) => r.error.code)).toEqual([-32601])
    expect(byId(x, 30)[0].error.message).toContain("foo/bar")
    expect(byId(x, "q").map((r) => r.error.code)).toEqual([-32601])
    expect(byId(x, 31)).toHaveLength(1)
    expect(x.responses).toHaveLength(4)
  })

  it("what the server does not advertise is -32601; a list's cursor is -32602; initialize advertises only tools and resources (tester20 F11)", async () => {
    const request = (id: number, method: string, params: unknown = {}) => `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`
    const x = await exchange([
      request(50, "prompts/list"),
      request(51, "prompts/get", { name: "x" }),
      request(52, "completion/complete", { ref: { type: "ref/resource", uri: "session://{id}" }, argument: { name: "id", value: "3f" } }),
      request(53, "resources/subscribe", { uri: "session://x" }),
      request(54, "resources/list", { cursor: "not-a-cursor" }),
      request(55, "tools/list", { cursor: "x" }),
      request(56, "resources/templates/list", { cursor: "x" }),
      request(57, "resources/list"),
      request(58, "tools/list")
    ], 10)
    expectOnlyResponses(x)
    expect(Object.keys(byId(x, 1)[0].result.capabilities).sort()).toEqual(["resources", "tools"])
    for (const id of [50, 51, 52, 53]) expect({ id, code: byId(x, id)[0].error.code }).toEqual({ id, code: -32601 })
    for (const id of [54, 55, 56]) {
      expect({ id, code: byId(x, id)[0].error.code }).toEqual({ id, code: -32602 })
      expect(byId(x, id)[0].error.message).toContain("no cursor is valid")
    }
    expect(byId(x, 57)[0].result.resources.length).toBeGreaterThan(0)
    expect(byId(x, 57)[0].result.nextCursor).toBeUndefined()
    expect(byId(x, 58)[0].result.tools.length).toBeGreaterThan(0)
  })

  it("the session template names the uid as a redacting server's answers give it, hses_ (tester34b F2)", async () => {
    const x = await exchange([`${JSON.stringify({ jsonrpc: "2.0", id: 60, method: "resources/templates/list", params: {} })}\n`], 2)
    const t = byId(x, 60)[0].result.resourceTemplates.find((r: any) => r.uriTemplate === "session://{id}")
    expect(t.description).toContain("hses_\u2026 with redaction on, the default")
  })

  it("a refusal echoes a method name or an id with no raw C1 control or bidirectional override (\\uHHHH escapes, same JSON value)", async () => {
    const evil = "evil\u202eX\u009bY\u2066"
    const x = await exchange([
      `${JSON.stringify({ jsonrpc: "2.0", id: 40, method: evil, params: {} })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: `id${evil}`, method: "foo/bar" })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: evil, arguments: {} } })}\n`
    ], 4)
    expectOnlyResponses(x)
    expect(x.stdout).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(x.stdout).toContain("\\u202e")
    expect(byId(x, 40)[0].error).toMatchObject({ code: -32601, message: `Method not found: ${evil}` })
    expect(byId(x, `id${evil}`)[0].error.code).toBe(-32601)
    expect(byId(x, 41)[0].error.code).toBe(-32602)
  })

  it("ids as JSON-RPC allows them (strings, 0, negative, large) are answered with the same id", async () => {
    const ids = ["abc", "", 0, -3, 2 ** 53 - 1, 1.5, "7"]
    const x = await exchange([ids.map((id) => ping(id)).join("\n") + "\n", `${ping(40)}\n`], 1 + ids.length + 1)
    expectOnlyResponses(x)
    for (const id of ids) expect(byId(x, id), String(id)).toEqual([{ jsonrpc: "2.0", id, result: {} }])
    expect(byId(x, 40)).toHaveLength(1)
  })

  it("a request the client cancels gets no answer (MCP: the receiver SHOULD NOT respond); the others are answered", async () => {
    const call = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_sessions", arguments: { query: "the" } } })
    const cancel = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user pressed stop" } })
    // The cancellation is in the same write as its request: read before the request can end.
    const x = await exchange([`${call("c-1")}\n${call(11)}\n${cancel("c-1")}\n${call(12)}\n${cancel(12)}\n`, `${cancel("never-sent")}\n${ping(13)}\n`], 3)
    expectOnlyResponses(x)
    expect(byId(x, "c-1")).toEqual([])
    expect(byId(x, 12)).toEqual([])
    expect(byId(x, 11)).toHaveLength(1)
    expect(byId(x, 11)[0].result.isError).not.toBe(true)
    expect(byId(x, 13)).toEqual([{ jsonrpc: "2.0", id: 13, result: {} }])
    expect(x.responses).toHaveLength(3)
    // A cancellation naming no request in flight: ignored, said on stderr.
    expect(x.stderr).toContain("a cancellation of no request in flight, ignored")
  })

  it("an unknown tool, with or without arguments, and params the schema refuses are -32602 with a one-line message", async () => {
    const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }) + "\n"
    const x = await exchange([
      call(50, { name: "drop_everything" }),
      call(51, { name: "drop_everything", arguments: {} }),
      call(52, {}),
      call(53, { name: "list_sessions", arguments: [] }),
      call(54, { name: "list_sessions" }),
      `${ping(55)}\n`
    ], 7)
    expectOnlyResponses(x)
    for (const id of [50, 51, 52, 53]) expect(byId(x, id).map((r) => r.error?.code), String(id)).toEqual([-32602])
    expect(byId(x, 50)[0].error.message).toContain("drop_everything")
    expect(byId(x, 52)[0].error.message).toContain("name")
    // Without arguments (optional in MCP) the tool answers.
    expect(byId(x, 54)[0].result.structuredContent.sessions.length).toBeGreaterThan(0)
    expect(byId(x, 55)).toHaveLength(1)
  })

  it("tools/call arguments that are no object, and params the schema refuses: -32602 in the product's words, one stderr line each, no schema dump", async () => {
    const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }) + "\n"
    const x = await exchange([
      call(60, { name: "list_sessions", arguments: "aaaa" }),
      call(61, { name: "get_session", arguments: 7 }),
      call(62, { name: "list_sessions", arguments: null }),
      call(63, { name: 5, arguments: {} }),
      `${ping(64)}\n`
    ], 6)
    expectOnlyResponses(x)
    for (const id of [60, 61, 62]) {
      expect(byId(x, id).map((r) => r.error), String(id)).toEqual([{ code: -32602, message: `Invalid params: tools/call "arguments" must be an object of the tool's arguments` }])
    }
    expect(byId(x, 63).map((r) => r.error?.code)).toEqual([-32602])
    expect(byId(x, 63)[0].error.message).not.toMatch(/\n/)
    expect(byId(x, 64)).toHaveLength(1)
    // docs/mcp.md: "Each such line gets one line on stderr".
    const lines = x.stderr.trim().split("\n")
    expect(lines).toHaveLength(4)
    for (const l of lines) expect(l).toMatch(/^session-ingest mcp: Invalid params: /)
  })

  // tester21b F7: without params, tools/call and resources/read were answered with the schema's text ("Expected {
  // readonly _meta?: …"); a number too large for a double (1e400, read as Infinity) was said to be null.
  it("a request without the params its method takes, and a non-finite argument: -32602 in the product's words, one stderr line each", async () => {
    const x = await exchange([
      JSON.stringify({ jsonrpc: "2.0", id: 70, method: "tools/call" }) + "\n",
      JSON.stringify({ jsonrpc: "2.0", id: 71, method: "resources/read" }) + "\n",
      `{"jsonrpc":"2.0","id":72,"method":"tools/call","params":{"name":"get_session","arguments":{"id":"x","maxChars":1e400}}}\n`,
      `{"jsonrpc":"2.0","id":73,"method":"tools/call","params":{"name":"get_events","arguments":{"id":"x","context":-1e999}}}\n`,
      `${ping(74)}\n`
    ], 6)
    expectOnlyResponses(x)
    expect(byId(x, 70).map((r) => r.error)).toEqual([{ code: -32602, message: `Invalid params: tools/call takes "params" (an object), and the request has none` }])
    expect(byId(x, 71).map((r) => r.error)).toEqual([{ code: -32602, message: `Invalid params: resources/read takes "params" (an object), and the request has none` }])
    expect(byId(x, 72).map((r) => r.error)).toEqual([{ code: -32602, message: "Invalid params: maxChars: got a number too large to read (Infinity), expected a finite number" }])
    expect(byId(x, 73).map((r) => r.error)).toEqual([{ code: -32602, message: "Invalid params: context: got a number too large to read (-Infinity), expected a finite number" }])
    expect(byId(x, 74)).toHaveLength(1)
    const lines = x.stderr.trim().split("\n")
    expect(lines).toHaveLength(4)
    for (const l of lines) expect(l).toMatch(/^session-ingest mcp: Invalid params: .*\(line: /)
  })
})

describe("mcp framing: with the official client", () => {
  it("an unknown tool is -32602, one line, no internal dump; the client keeps being answered", async () => {
    const server = await connect(["--index", index], env)
    try {
      let error: unknown
      try {
        await server.client.callTool({ name: "drop_everything", arguments: {} })
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(McpError)
      expect((error as McpError).code).toBe(-32602)
      expect((error as McpError).message).toContain("drop_everything")
      expect((error as McpError).message).not.toMatch(/_tag|\n/)
      await server.client.ping()
      const listed = await server.client.callTool({ name: "list_sessions", arguments: { limit: 1 } })
      expect((listed.structuredContent as { sessions: Array<unknown> }).sessions).toHaveLength(1)
      expect(server.transportErrors).toEqual([])
      expect(server.stderr()).not.toMatch(/\n\s+at /)
    } finally {
      await server.close()
    }
  })
})
