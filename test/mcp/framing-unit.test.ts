/**
 * The MCP server's stdio framing (`src/layers/mcp/framing.ts`) in process:
 * a refused line is handed on as a Ping whose Pong is encoded as the
 * JSON-RPC error; UTF-8 split across reads; a line over the limit refused
 * without being held; ids the server cannot carry answered as the client's.
 */
import { describe, expect, it } from "@effect/vitest"
import { maxLineChars, mcpSerialization } from "../../src/layers/mcp/framing.js"

const bytes = (s: string) => new TextEncoder().encode(s)

describe("mcp framing (in process)", () => {
  it("a line that is not JSON becomes a Ping, answered -32700 with id null; the reader carries on", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(`not json\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n`)) as Array<any>
    expect(out.map((m) => m._tag)).toEqual(["Ping", "Request"])
    expect(out[1].id).toBe("3")
    expect(JSON.parse(parser.encode({ _tag: "Pong" }) as string)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the line is not JSON" }
    })
    // No refusal left: a further Pong writes nothing.
    expect(parser.encode({ _tag: "Pong" })).toBeUndefined()
  })

  it("a character split across two reads is read whole", () => {
    const parser = mcpSerialization.unsafeMake()
    const line = bytes(`{"jsonrpc":"2.0","id":"\u00e9\ud83d\ude00","method":"ping"}\n`)
    const cut = line.indexOf(0xf0) + 2
    expect(parser.decode(line.slice(0, cut))).toEqual([])
    const out = parser.decode(line.slice(cut)) as Array<any>
    expect(out.map((m) => m._tag)).toEqual(["Request"])
    const answer = parser.encode({ _tag: "Exit", requestId: out[0].id, exit: { _tag: "Success", value: {} } }) as string
    expect(JSON.parse(answer)).toEqual({ jsonrpc: "2.0", id: "\u00e9\ud83d\ude00", result: {} })
  })

  it("a line longer than the limit is refused (-32600) without being held, and the next line is read", () => {
    const parser = mcpSerialization.unsafeMake()
    const long = "x".repeat(maxLineChars + 10)
    expect(parser.decode(long.slice(0, maxLineChars / 2))).toEqual([])
    expect(parser.decode(long.slice(maxLineChars / 2))).toEqual([])
    const out = parser.decode(`tail\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n`) as Array<any>
    expect(out.map((m) => m._tag)).toEqual(["Ping", "Request"])
    expect(JSON.parse(parser.encode({ _tag: "Pong" }) as string).error.code).toBe(-32600)
  })
})
