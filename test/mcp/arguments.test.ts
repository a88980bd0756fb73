/**
 * A tool call with a bad argument is answered `-32602` `INVALID_ARGUMENT`
 * saying what the argument must be and what was given
 * (`maxChars: expected an integer, at least 1, got -5`), never the field's
 * description where the constraint should be. Every parameter of every tool
 * `tools/list` gives is tried, through the official MCP client over stdio.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { emptyClaudeRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { connect, type Connected } from "./helpers.js"

interface Prop {
  readonly $ref?: string
  readonly type?: string
  readonly enum?: ReadonlyArray<string>
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly description?: string
}

let dir = ""
let server: Connected
let listed: Array<{ name: string; inputSchema: { properties?: Record<string, Prop>; required?: Array<string>; $defs?: Record<string, Prop> } }> = []

beforeAll(async () => {
  dir = tempDir("si-mcp-args-")
  const sessions = path.join(dir, "agents", "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(
    path.join(sessions, "a1.jsonl"),
    [
      { type: "session_header", session_id: "sess-args", agent_id: "a1", created_at: "2025-04-01T08:00:00Z" },
      { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hello" }, created_at: "2025-04-01T08:00:01Z" }
    ].map((l) => JSON.stringify(l)).join("\n") + "\n"
  )
  const index = path.join(dir, "idx.db")
  const r = cli(["import", "--agents-root", path.join(dir, "agents"), "--claude-root", emptyClaudeRoot(dir), "--index", index])
  expect(r.code, r.stderr).toBe(0)
  server = await connect(["--index", index])
  listed = (await server.client.listTools()).tools as typeof listed
}, 120_000)

afterAll(async () => {
  await server?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** The MCP error a call fails with (it must fail). */
const failure = async (name: string, args: Record<string, unknown>): Promise<McpError> => {
  try {
    const r = await server.client.callTool({ name, arguments: args })
    throw new Error(`expected an MCP error, got ${JSON.stringify(r).slice(0, 300)}`)
  } catch (e) {
    if (!(e instanceof McpError)) throw e
    return e
  }
}

/** Valid values of a tool's required arguments (so that only the one tried is wrong). */
const validRequired = (required: ReadonlyArray<string>): Record<string, unknown> =>
  Object.fromEntries(required.map((k) => [k, k === "query" ? "hello" : "sess-args"]))

/** Wrong values for a parameter, and the words the message must hold for what is allowed. */
const wrongValues = (p: Prop, defs: Record<string, Prop>): Array<{ value: unknown; allowed: ReadonlyArray<string> }> => {
  const s = { ...(p.$ref !== undefined ? defs[p.$ref.replace("#/$defs/", "")] : {}), ...p }
  if (s.enum !== undefined) return [{ value: "no-such-value", allowed: s.enum.map((v) => JSON.stringify(v)) }, { value: 3, allowed: s.enum.map((v) => JSON.stringify(v)) }]
  if (s.type === "integer") {
    const bounds = [String(s.minimum ?? ""), ...(s.maximum !== undefined ? [String(s.maximum)] : [])].filter((b) => b !== "")
    return [
      ...(s.minimum !== undefined ? [{ value: s.minimum - 6, allowed: ["an integer", ...bounds] }] : []),
      ...(s.maximum !== undefined ? [{ value: s.maximum * 1000, allowed: ["an integer", ...bounds] }] : []),
      { value: 2.5, allowed: ["an integer", ...bounds] },
      { value: "ten", allowed: ["an integer", ...bounds] }
    ]
  }
  if (s.type === "string") {
    return [
      { value: 42, allowed: [s.minLength === 1 ? "a non-empty string" : "a string"] },
      ...(s.minLength === 1 ? [{ value: "", allowed: ["a non-empty string"] }] : [])
    ]
  }
  throw new Error(`a parameter type this test does not know: ${JSON.stringify(p)}`)
}

describe("MCP tool arguments: a bad one says what is allowed", () => {
  it("the four tools are listed, each with parameters", () => {
    expect(listed.map((t) => t.name).sort()).toEqual(["get_events", "get_session", "list_sessions", "search_sessions"])
    for (const t of listed) expect(Object.keys(t.inputSchema.properties ?? {}).length).toBeGreaterThan(0)
  })

  it("every parameter of every tool, with wrong values: -32602 INVALID_ARGUMENT, `name: expected <allowed>, got <value>`, no description", async () => {
    let tried = 0
    for (const tool of listed) {
      const required = tool.inputSchema.required ?? []
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        for (const { value, allowed } of wrongValues(prop, tool.inputSchema.$defs ?? {})) {
          const e = await failure(tool.name, { ...validRequired(required), [name]: value })
          const what = `${tool.name} ${name}=${JSON.stringify(value)}: ${e.message}`
          expect(e.code, what).toBe(-32602)
          const data = e.data as { code: string; message: string; remediation: string }
          expect(data.code, what).toBe("INVALID_ARGUMENT")
          expect(data.message, what).toContain(`${name}: expected `)
          expect(data.message, what).toContain(`, got ${typeof value === "number" ? String(value) : JSON.stringify(value)}`)
          for (const a of allowed) expect(data.message, what).toContain(a)
          expect(data.message, what).not.toContain(prop.description ?? "\u0000")
          expect(data.message, what).not.toMatch(/Expected |actual /)
          tried++
        }
      }
    }
    expect(tried).toBeGreaterThan(40)
  }, 120_000)

  it("the cases the tester met: get_session maxChars -5, get_events limit 100000000", async () => {
    const a = await failure("get_session", { id: "sess-args", maxChars: -5 })
    expect((a.data as any).message).toBe("get_session: maxChars: expected an integer from 1 to 1000000, got -5")
    const b = await failure("get_events", { id: "sess-args", limit: 100_000_000 })
    expect((b.data as any).message).toBe("get_events: limit: expected an integer from 1 to 100000, got 100000000")
  })

  it("maxChars has a maximum in the input schema (1000000: a page that fits the 8 MiB a line holds); above it is -32602", async () => {
    for (const name of ["get_session", "get_events"]) {
      const tool = listed.find((t) => t.name === name)!
      const p = tool.inputSchema.properties!.maxChars
      const prop = { ...(p.$ref !== undefined ? (tool.inputSchema.$defs ?? {})[p.$ref.replace("#/$defs/", "")] : {}), ...p }
      expect(prop.type, name).toBe("integer")
      expect([prop.minimum, prop.maximum], name).toEqual([1, 1_000_000])
      const e = await failure(name, { id: "sess-args", maxChars: 1_000_001 })
      expect(e.code, name).toBe(-32602)
      expect((e.data as any).message, name).toBe(`${name}: maxChars: expected an integer from 1 to 1000000, got 1000001`)
    }
    // the bound itself is a valid budget
    const ok = await server.client.callTool({ name: "get_session", arguments: { id: "sess-args", maxChars: 1_000_000 } })
    expect(ok.isError ?? false).toBe(false)
  })

  it("a missing required argument, an unknown one, several at once", async () => {
    for (const tool of listed) {
      for (const name of tool.inputSchema.required ?? []) {
        const e = await failure(tool.name, {})
        expect((e.data as any).message).toContain(`${name}: missing, expected a non-empty string`)
      }
      const u = await failure(tool.name, { ...validRequired(tool.inputSchema.required ?? []), bogus: 1 })
      expect((u.data as any).message).toContain("bogus: not an argument of this tool (it takes ")
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) expect((u.data as any).message).toContain(name)
    }
    const both = await failure("get_events", { id: "sess-args", limit: 0, context: -1 })
    expect((both.data as any).message).toContain("limit: expected an integer from 1 to 100000, got 0")
    expect((both.data as any).message).toContain("context: expected an integer from 0 to 1000, got -1")
    // The server keeps answering.
    const ok = await server.client.callTool({ name: "list_sessions", arguments: { limit: 1 } })
    expect(ok.isError ?? false).toBe(false)
  })
})

describe("MCP tool arguments: names of Object.prototype are arguments like any other", () => {
  // The tester's case (tester15 F9): `{"__proto__": {...}}` was accepted silently while every other unknown
  // argument is refused, and `constructor` was refused with "expected a value of the type tools/list gives"
  // (the message read Object.prototype.constructor as a parameter's schema).
  const inherited = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]

  it("each, given to every tool: -32602 `<name>: not an argument of this tool (it takes ...)`", async () => {
    for (const tool of listed) {
      for (const name of inherited) {
        // JSON.parse makes `__proto__` an own property, as a client's JSON text does.
        for (const value of [{ limit: 1 }, 1, null]) {
          const args = { ...validRequired(tool.inputSchema.required ?? []), ...JSON.parse(`{${JSON.stringify(name)}: ${JSON.stringify(value)}}`) }
          expect(Object.prototype.hasOwnProperty.call(args, name), name).toBe(true)
          const e = await failure(tool.name, args)
          const what = `${tool.name} ${name}=${JSON.stringify(value)}: ${e.message}`
          expect(e.code, what).toBe(-32602)
          if (name === "__proto__") {
            // Refused as the line is read (the library's schema would turn it into a prototype), in the product's
            // shape as every other argument error (tester22b F7: it had no code, remedy nor data).
            expect(e.message, what).toMatch(/INVALID_ARGUMENT: .*__proto__: not an argument of this tool .* Remedy: /)
            expect(e.data, what).toEqual({
              code: "INVALID_ARGUMENT",
              message: `${tool.name}: __proto__: not an argument of this tool (no tool of this server takes it)`,
              remediation: "Pass the arguments the tool's inputSchema names (tools/list)."
            })
            continue
          }
          expect((e.data as any).code, what).toBe("INVALID_ARGUMENT")
          expect((e.data as any).message, what).toContain(`${name}: not an argument of this tool (it takes `)
          expect((e.data as any).message, what).not.toContain("a value of the type tools/list gives")
        }
      }
    }
  }, 120_000)
})

describe("MCP: an answer never echoes a huge argument back", () => {
  /** The argument values of the tester's case: a few MB of one character, and of a repeated pair. */
  const huge = ["a".repeat(1_000_000), "/w".repeat(300_000), "é".repeat(300_000)]

  it("every string parameter of every tool, given MBs (a success or an error): the answer stays small, the value clipped", async () => {
    let errors = 0
    for (const tool of listed) {
      const required = tool.inputSchema.required ?? []
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        const s = { ...(prop.$ref !== undefined ? (tool.inputSchema.$defs ?? {})[prop.$ref.replace("#/$defs/", "")] : {}), ...prop }
        if (s.type !== "string" || s.enum !== undefined) continue
        for (const value of huge) {
          const args = { ...validRequired(required), [name]: value }
          try {
            const r = await server.client.callTool({ name: tool.name, arguments: args })
            expect({ tool: tool.name, name, size: JSON.stringify(r).length < 100_000 }).toEqual({ tool: tool.name, name, size: true })
          } catch (e) {
            if (!(e instanceof McpError)) throw e
            errors++
            const what = { tool: tool.name, name, message: e.message.length < 4000, data: JSON.stringify(e.data ?? null).length < 8000 }
            expect(what).toEqual({ tool: tool.name, name, message: true, data: true })
            // Not echoed whole: at most a clipped head, and then what was cut is said.
            expect({ tool: tool.name, name, echoed: e.message.includes(value.slice(0, 300)) }).toEqual({ tool: tool.name, name, echoed: false })
            if (e.message.includes(value.slice(0, 100))) expect(e.message).toMatch(/…\[\+\d+ characters\]/)
          }
        }
      }
    }
    expect(errors).toBeGreaterThan(3)
  }, 120_000)
})
