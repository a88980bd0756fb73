/**
 * The MCP server's stdio framing (`src/layers/mcp/framing.ts`) in process:
 * a refused line is handed on as a Ping whose Pong is encoded as the
 * JSON-RPC error; UTF-8 split across reads; a line over the limit refused
 * without being held; ids the server cannot carry answered as the client's.
 */
import { describe, expect, it } from "@effect/vitest"
import { maxLineChars, maxNesting, mcpSerialization, nestedDeeper, plainError, shallowId } from "../../src/layers/mcp/framing.js"

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

describe("mcp framing: terminal controls never reach a terminal raw", () => {
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

  it("an answer holding C1 controls and bidirectional overrides is written with them escaped: the same JSON value", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(`{"jsonrpc":"2.0","id":5,"method":"ping"}\n`)) as Array<any>
    const value = { text: "a\u202eb\u009bc\u2066d\u0085e \u00e9 \ud83d\ude00", n: 1 }
    const answer = parser.encode({ _tag: "Exit", requestId: out[0].id, exit: { _tag: "Success", value } }) as string
    expect(answer).not.toMatch(raw)
    expect(answer).toContain("\\u202e")
    expect(answer).toContain("\\u009b")
    // The client reads back exactly what the server answered.
    expect(JSON.parse(answer)).toEqual({ jsonrpc: "2.0", id: 5, result: value })
  })

  it("a refused line's echo on stderr shows its ESC, C1 and bidi characters as escapes", () => {
    const parser = mcpSerialization.unsafeMake()
    const written: Array<string> = []
    const original = process.stderr.write.bind(process.stderr)
    ;(process.stderr as any).write = (chunk: unknown) => {
      written.push(String(chunk))
      return true
    }
    try {
      parser.decode(bytes(`\u001b]0;owned\u0007\u001b[2J not json \u202e \u009b\n`))
    } finally {
      ;(process.stderr as any).write = original
    }
    expect(written).toHaveLength(1)
    expect(written[0]).toMatch(/^session-ingest mcp: Parse error/)
    expect(written[0].slice(0, -1)).not.toMatch(raw)
    expect(written[0]).toContain("\\x1b]0;owned\\x07\\x1b[2J")
    expect(written[0]).toContain("\\u202e")
  })

  it("a request interrupted before its answer (the server stopping) is -32603 saying so, not a bug with its cause dumped", () => {
    const interrupt = { _tag: "Interrupt", fiberId: { _tag: "Runtime", id: 7, startTimeMillis: 0 } }
    for (const cause of [interrupt, { _tag: "Sequential", left: { _tag: "Empty" }, right: interrupt }, { _tag: "Parallel", left: interrupt, right: interrupt }]) {
      const e = plainError({ _tag: "Cause", code: 0, message: "x", data: cause }) as { code: number; message: string }
      expect(e.code).toBe(-32603)
      expect(e.message).toContain("interrupted")
      expect(e.message).not.toMatch(/a bug|_tag/)
    }
    // A defect with it is still a bug.
    const mixed = plainError({ _tag: "Cause", code: 0, message: "x", data: { _tag: "Sequential", left: interrupt, right: { _tag: "Die", defect: 1 } } }) as { message: string }
    expect(mixed.message).toContain("a bug")
  })

  it("nesting is measured without parsing, strings skipped", () => {
    expect(nestedDeeper("[".repeat(101) + "]".repeat(101), 100)).toBe(true)
    expect(nestedDeeper("[".repeat(100) + "]".repeat(100), 100)).toBe(false)
    expect(nestedDeeper(`{"a":"${"[".repeat(500)}\\","b":[1]}`, 100)).toBe(false)
    expect(nestedDeeper(`{"a":"\\\"${"{".repeat(500)}"}`, 100)).toBe(false)
  })
})

describe("mcp framing: a request the client cancelled gets no answer (MCP cancellation: the receiver SHOULD NOT respond)", () => {
  const interrupted = { _tag: "Failure", cause: { _tag: "Interrupt", fiberId: { _tag: "Runtime", id: 7, startTimeMillis: 0 } } }
  const call = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}\n`
  const cancel = (id: string) => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id},"reason":"user"}}\n`

  it("a cancelled request's interruption writes nothing; another request's interruption is still -32603", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(call("9") + call("10") + cancel("9"))) as Array<any>
    expect(out.map((m) => m.tag)).toEqual(["tools/call", "tools/call", "notifications/cancelled"])
    // The server is told to interrupt the request it carries.
    expect(String(out[2].payload.requestId)).toBe(out[0].id)
    expect(parser.encode({ _tag: "Exit", requestId: out[0].id, exit: interrupted })).toBeUndefined()
    const other = JSON.parse(parser.encode({ _tag: "Exit", requestId: out[1].id, exit: interrupted }) as string)
    expect(other.id).toBe(10)
    expect(other.error.code).toBe(-32603)
  })

  it("a cancelled request that completes anyway writes nothing either", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(call("3") + cancel("3"))) as Array<any>
    expect(parser.encode({ _tag: "Exit", requestId: out[0].id, exit: { _tag: "Success", value: { content: [] } } })).toBeUndefined()
  })

  it("ids the server carries under a stand-in (a string, 0, a negative number) are cancelled by the client's own id", () => {
    for (const id of [`"job-1"`, "0", "-4", "2.5"]) {
      const parser = mcpSerialization.unsafeMake()
      const out = parser.decode(bytes(call(id) + cancel(id))) as Array<any>
      expect(out).toHaveLength(2)
      expect(String(out[1].payload.requestId)).toBe(out[0].id)
      expect(parser.encode({ _tag: "Exit", requestId: out[0].id, exit: interrupted })).toBeUndefined()
    }
  })

  it("a cancellation of no request in flight (unknown, or already answered) is ignored: nothing interrupted, the same id answered later", () => {
    const parser = mcpSerialization.unsafeMake()
    const first = parser.decode(bytes(call("5"))) as Array<any>
    const answered = JSON.parse(parser.encode({ _tag: "Exit", requestId: first[0].id, exit: { _tag: "Success", value: { content: [] } } }) as string)
    expect(answered).toEqual({ jsonrpc: "2.0", id: 5, result: { content: [] } })
    expect(parser.decode(bytes(cancel("5") + cancel(`"never"`)))).toEqual([])
    // A later request reusing the id (its own id space is the client's) is answered.
    const again = parser.decode(bytes(call("5"))) as Array<any>
    expect(JSON.parse(parser.encode({ _tag: "Exit", requestId: again[0].id, exit: interrupted }) as string).error.code).toBe(-32603)
  })

  it("a cancelled request inside a batch answer is left out of it; the rest of the batch is answered", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(`[${call("1").trim()},${call("2").trim()}]\n` + cancel("1"))) as Array<any>
    const ids = out.filter((m) => m.tag === "tools/call").map((m) => m.id)
    // The server answers a batch's requests one by one; the batch is written when its last answer is in.
    expect(parser.encode({ _tag: "Exit", requestId: ids[0], exit: interrupted })).toBeUndefined()
    const text = parser.encode({ _tag: "Exit", requestId: ids[1], exit: { _tag: "Success", value: { content: [] } } }) as string
    const lines = text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))
    expect(lines.flat()).toEqual([{ jsonrpc: "2.0", id: 2, result: { content: [] } }])
  })
})

describe("mcp framing: a line nested too deep is answered with its top-level id when a shallow scan reads it", () => {
  const deep = (d: number) => "[".repeat(d) + "]".repeat(d)
  const refusalOf = (line: string) => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(line + "\n")) as Array<any>
    expect(out.map((m) => m._tag)).toEqual(["Ping"])
    return JSON.parse(parser.encode({ _tag: "Pong" }) as string)
  }

  it("a number or a string id before or after the deep part: -32600 with that id", () => {
    const D = deep(maxNesting + 50)
    const cases: Array<[string, string | number]> = [
      [`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":${D}}}}`, 7],
      [`{"jsonrpc":"2.0","method":"ping","params":{"x":${D}},"id":"req-8"}`, "req-8"],
      [` { "id" : -2.5e3 , "params" : ${D} , "method":"ping","jsonrpc":"2.0"}`, -2500],
      [`{"jsonrpc":"2.0","id":"a\\"b\\u00e9","params":[${D}]}`, "a\"b\u00e9"],
      // strings holding brackets and quotes are skipped, not counted as structure
      [`{"x":"]}{[\\"","params":${D},"id":9}`, 9]
    ]
    for (const [line, id] of cases) {
      expect(refusalOf(line), line.slice(0, 60)).toEqual({
        jsonrpc: "2.0",
        id,
        error: { code: -32600, message: `Invalid Request: a message nested deeper than ${maxNesting} levels (arrays and objects)` }
      })
    }
  })

  it("no usable top-level id: null (an id only inside params, an object or null id, a batch, a line that is no object)", () => {
    const D = deep(maxNesting + 50)
    for (
      const line of [
        `{"jsonrpc":"2.0","method":"ping","params":{"id":5,"x":${D}}}`,
        `{"jsonrpc":"2.0","id":{"a":1},"params":${D}}`,
        `{"jsonrpc":"2.0","id":null,"params":${D}}`,
        `{"jsonrpc":"2.0","id":true,"params":${D}}`,
        `[{"jsonrpc":"2.0","id":3,"method":"ping","params":${D}}]`,
        D,
        `{"jsonrpc":"2.0","id":4 4,"params":${D}}`
      ]
    ) expect(refusalOf(line).id, line.slice(0, 60)).toBeNull()
  })

  it("the scan reads the top level only: the last top-level id wins (as JSON.parse), the deep part is not parsed", () => {
    expect(shallowId(`{"id":1,"params":${deep(10)},"id":"two"}`)).toBe("two")
    expect(shallowId(`{"params":{"id":1},"id":2}`)).toBe(2)
    expect(shallowId(`{"params":{"id":1}}`)).toBeNull()
    expect(shallowId(`{"id":1,"params":${deep(200_000)}}`)).toBe(1)
    expect(shallowId(`{"id":1,"params":"unterminated`)).toBeNull()
    expect(shallowId(`{"id":1,"params":[[1]}`)).toBeNull()
    expect(shallowId(`{"id":1} x`)).toBeNull()
    expect(shallowId(`{"id":"x`)).toBeNull()
    expect(shallowId(`{"id":01}`)).toBeNull()
    expect(shallowId(`{"id":1e999}`)).toBeNull()
  })
})

describe("mcp framing: what the client sent is not echoed whole (tester15 finding 6)", () => {
  const stderrOf = (f: () => void): string => {
    const written: Array<string> = []
    const original = process.stderr.write.bind(process.stderr)
    ;(process.stderr as any).write = (chunk: unknown) => {
      written.push(String(chunk))
      return true
    }
    try {
      f()
    } finally {
      ;(process.stderr as any).write = original
    }
    return written.join("")
  }

  it("the stderr line of a line over the limit shows its start, in one read or across reads", () => {
    const long = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" + "y".repeat(maxLineChars + 10) + "\"}"
    const whole = stderrOf(() => mcpSerialization.unsafeMake().decode(long + "\n"))
    expect(whole).toContain("(line: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"yyy")
    const parser = mcpSerialization.unsafeMake()
    const split = stderrOf(() => {
      parser.decode(long.slice(0, maxLineChars / 2))
      parser.decode(long.slice(maxLineChars / 2))
      parser.decode("\n")
    })
    expect(split).toContain("(line: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"yyy")
    expect(split.length).toBeLessThan(400)
  })

  it("a failure of the MCP library naming what was sent (an unknown tool) is clipped: 100 of a long run, 2,000 characters in all", () => {
    const name = "x".repeat(3_000_000)
    const e = plainError({ _tag: "Cause", code: -32603, message: "", data: { _tag: "Fail", error: { code: -32602, message: `Tool '${name}' not found` } } }) as { code: number; message: string }
    expect(e.code).toBe(-32602)
    expect(e.message.length).toBeLessThanOrEqual(2000)
    // The run is the quoted name (its quotes with it): its first 100 characters kept.
    expect(e.message).toBe(`Tool '${"x".repeat(99)}…[+${3_000_002 - 100} characters] not found`)
  })
})

describe("mcp framing: methods of capabilities not advertised (tester15 finding 9)", () => {
  it("logging/setLevel is -32601 Method not found (logging is not advertised), with its id", () => {
    const parser = mcpSerialization.unsafeMake()
    const out = parser.decode(bytes(`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}\n`)) as Array<any>
    expect(out.map((m) => m._tag)).toEqual(["Ping"])
    const answer = JSON.parse(parser.encode({ _tag: "Pong" }) as string)
    expect(answer.id).toBe(9)
    expect(answer.error.code).toBe(-32601)
  })
})
