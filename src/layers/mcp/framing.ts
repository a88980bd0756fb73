/**
 * The MCP server's stdio framing: `@effect/rpc`'s newline-delimited
 * JSON-RPC serialization (`RpcSerialization.ndJsonRpc`), with a tolerant
 * line reader in front of it and plain JSON-RPC errors behind it.
 *
 * In front (what the client sends, one JSON-RPC message or batch a line):
 * - a line that is not JSON is answered `-32700` (Parse error, id null);
 * - a JSON value that is not a request (not an object, no `jsonrpc: "2.0"`,
 *   a method that is not a string, an id that is not a string or a number,
 *   params that are neither object nor array, an empty batch) is answered
 *   `-32600` (Invalid Request; its id when it has a usable one, else null);
 * - a request for a method MCP's client side does not define is answered
 *   `-32601` (Method not found) with its id; a notification of an unknown
 *   method, and a response (the server sends no requests), are dropped;
 * - request ids may be any JSON-RPC id (strings, 0, negative numbers): ids
 *   that `@effect/rpc` cannot carry (it holds ids as positive integers) are
 *   carried under a stand-in number and answered with the client's own id;
 * - a `tools/call` without `arguments` (optional in MCP) gets `{}`, so an
 *   unknown tool is the `-32602` "not found" error and not a schema dump.
 * - a message nested deeper than {@link maxNesting} levels is `-32600`
 *   before it is parsed (its top-level id when {@link shallowId} reads it, else null); a `tools/call` with more than
 *   {@link maxArguments} arguments is `-32602`.
 * Each refusal writes one line on stderr (`session-ingest mcp: …`) and the
 * server carries on with the next line: the reader never throws (a line it
 * fails on is refused alone, the lines around it are served).
 *
 * A refusal's answer goes out through the server like any answer: the line
 * is handed to the server as an rpc `Ping`, and the `Pong` it sends back is
 * encoded as the refusal (in order, on the one output channel).
 *
 * Behind (what the server sends): a failed request is a plain JSON-RPC
 * error `{code, message, data?}` (see {@link plainError}); a request the
 * server could not decode (params its schema refuses) is `-32602` with a
 * one-line message; anything else that is no single failure is `-32603`
 * with a one-line message, never an internal dump. Every line written holds
 * no raw C1 control or bidirectional override: they are written as `\uHHHH`
 * escapes (`escapeJsonControls`), the same JSON value for the client, but a
 * session's hostile text cannot act on a terminal that shows the exchange.
 * No line is longer than {@link maxLineBytes}: a longer answer is the
 * `-32602` `RESOURCE_LIMIT_EXCEEDED` error for its id. A request interrupted
 * before its answer is `-32603` saying so, unless the client cancelled it
 * (`notifications/cancelled`): a cancelled request gets no answer at all. The `list_changed` notifications
 * of the tools' registration are not sent (the lists are fixed), and the
 * answer to `initialize` does not advertise them (`listChanged: false`).
 *
 * @module
 */
import { ClientNotificationRpcs, ClientRequestRpcs } from "@effect/ai/McpSchema"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { clippedEchoes } from "../../domain/echo.js"
import { type IngestError, InvalidArgument, ResourceLimitExceeded } from "../../domain/errors.js"
import { escapeJsonControls, visibleControls } from "../../domain/render.js"

/** JSON-RPC 2.0's error codes used by the framing. */
export const JsonRpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603
} as const

/** The longest line read (characters); a longer one is refused (`-32600`) without being held. */
export const maxLineChars = 16 * 1024 * 1024

/**
 * The deepest nesting of arrays and objects a message may have; a deeper
 * line is refused (`-32600`, the id {@link shallowId} reads, else null) before it is parsed, so no recursive
 * step (a `JSON.stringify`, a schema's walk, an error's echo) meets it.
 * MCP's messages nest a few levels; this server's tool arguments are flat.
 */
export const maxNesting = 100

/**
 * The longest line the server writes (bytes, its newline included): an
 * answer that would be longer is refused `-32602` `RESOURCE_LIMIT_EXCEEDED`
 * naming this bound, for the request's id. MCP clients drop the connection
 * on a longer line (the official SDK's stdio transport buffers at most
 * 10 MiB), so an answer past it would end the session instead of answering.
 */
export const maxLineBytes = 8 * 1024 * 1024

/**
 * The most arguments a `tools/call` may hold (a tool of this server takes
 * fewer than 20): more is refused `-32602` before any schema checks them one
 * by one (200,000 unknown arguments would take seconds).
 */
export const maxArguments = 100

/**
 * The methods of the capabilities this server does not advertise: `logging`,
 * `prompts` (it has none), `completions` (nothing to complete: a session id
 * is an index's, not a closed list), resource subscriptions. Such a method is
 * `-32601` Method not found (MCP: "of a capability the server does not
 * advertise"), not the library's `-32603` "Not implemented" nor an empty
 * answer (tester20 F11: `prompts/list` was answered, `completion/complete`
 * advertised and always empty).
 */
const unadvertised: ReadonlySet<string> = new Set([
  "logging/setLevel", "prompts/list", "prompts/get", "completion/complete", "resources/subscribe", "resources/unsubscribe"
])
/** The capabilities `@effect/ai`'s McpServer advertises that this server does not serve (see {@link unadvertised}). */
const unadvertisedCapabilities: ReadonlyArray<string> = ["completions", "prompts", "logging"]
/** The methods a client may call (MCP requests), less those of {@link unadvertised} capabilities. */
const requestMethods: ReadonlySet<string> = new Set([...ClientRequestRpcs.requests.keys()].filter((m) => !unadvertised.has(m)))
/**
 * The list methods: this server answers each whole, in one page, never with a `nextCursor`; so no cursor is one
 * of its own, and one sent is `-32602` (MCP pagination: "Invalid cursors SHOULD result in an error with code
 * -32602"), not ignored (tester20 F11).
 */
const listMethods: ReadonlySet<string> = new Set(["resources/list", "resources/templates/list", "tools/list"])
/**
 * The request methods that take `params` (their schema refuses a request without): one sent without is `-32602`
 * in words (tester21b F7), not the schema's text.
 */
const paramsRequired: ReadonlySet<string> = new Set(
  [...requestMethods].filter((m) => Option.isNone(Schema.decodeUnknownOption(ClientRequestRpcs.requests.get(m)!.payloadSchema as Schema.Schema<unknown, unknown, never>)(undefined)))
)
/** The notifications a client may send. */
const notificationMethods: ReadonlySet<string> = new Set(ClientNotificationRpcs.requests.keys())

/** The first id of the stand-ins (numbers the server carries exactly, above any id a client counts up to). */
const standInBase = 2 ** 52

/**
 * One line on stderr (stdout carries only the protocol). A client's line is
 * echoed in it: its terminal controls (ESC, C1, bidirectional overrides) are
 * shown as escapes (`visibleControls`), so a client cannot drive the
 * terminal the server's log is read on.
 */
const diagnose = (message: string): void => {
  process.stderr.write(`session-ingest mcp: ${visibleControls(message)}\n`)
}

/**
 * An MCP error's text as answered: a run of more than 200 non-space characters (a client's argument echoed back: an
 * id of 5 MB) keeps its first 100 and says how many follow (`…[+N characters]`), and the whole text is held to 2,000
 * characters the same way ({@link clippedEchoes}), so an answer's size does not grow with what the client sent.
 */
export const clipEchoes = (text: string): string => clippedEchoes(text, MCP_ECHOES)

/** What an MCP error answer echoes whole (characters). */
const MCP_ECHOES = { maxRun: 200, keep: 100, maxText: 2000 } as const

/** Text of at most 80 characters, on one line, for a diagnostic. */
const excerpt = (s: string): string => {
  const one = s.replace(/\s+/g, " ")
  return one.length > 80 ? `${one.slice(0, 77)}...` : one
}

/**
 * Whether a JSON text nests arrays and objects deeper than `limit` (a
 * linear scan that skips strings; it stops at the first level past the
 * limit). `JSON.parse` itself is not recursive, but most of what handles a
 * parsed value is.
 */
export const nestedDeeper = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) {
      inString = true
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) {
      depth--
    }
  }
  return false
}

type JsonId = string | number

/** A JSON number, whole (sticky: tried at one position). */
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y

/**
 * The top-level `"id"` of a JSON text that is one object, read without parsing its values: each member's key is
 * read, the value of `"id"` taken when it is a string or a finite number, every other value skipped (strings to
 * their closing quote, arrays and objects by counting brackets outside strings, literals to the next `,` or `}`).
 * Linear, never recursive: for a line nested too deep to parse, whose refusal should still carry the request's id.
 * The last top-level `"id"` wins (as `JSON.parse`). `null` when the text is not an object at its top level (a
 * batch, a scalar, a member or a string left open, anything after the object's `}`), or its id is none of these.
 */
export const shallowId = (text: string): JsonId | null => {
  const n = text.length
  let i = 0
  const blank = () => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break
      i++
    }
  }
  /** From an opening quote at `i`: the position after its closing quote, or -1. */
  const stringEnd = (from: number): number => {
    for (let k = from + 1; k < n; k++) {
      const c = text.charCodeAt(k)
      if (c === 92) k++
      else if (c === 34) return k + 1
    }
    return -1
  }
  blank()
  if (text.charCodeAt(i) !== 123) return null
  i++
  blank()
  let id: JsonId | null = null
  if (text.charCodeAt(i) === 125) i++
  else {
    for (;;) {
      blank()
      if (text.charCodeAt(i) !== 34) return null
      const keyEnd = stringEnd(i)
      if (keyEnd < 0) return null
      let key: unknown
      try {
        key = JSON.parse(text.slice(i, keyEnd))
      } catch {
        return null
      }
      i = keyEnd
      blank()
      if (text.charCodeAt(i) !== 58) return null
      i++
      blank()
      const c = text.charCodeAt(i)
      const valueStart = i
      if (c === 34) {
        const e = stringEnd(i)
        if (e < 0) return null
        i = e
      } else if (c === 123 || c === 91) {
        let depth = 0
        while (i < n) {
          const d = text.charCodeAt(i)
          if (d === 34) {
            const e = stringEnd(i)
            if (e < 0) return null
            i = e
            continue
          }
          i++
          if (d === 123 || d === 91) depth++
          else if ((d === 125 || d === 93) && --depth === 0) break
        }
        if (depth !== 0) return null
      } else {
        while (i < n) {
          const d = text.charCodeAt(i)
          if (d === 44 || d === 125 || d === 32 || d === 9 || d === 10 || d === 13) break
          i++
        }
        if (i === valueStart) return null
      }
      if (key === "id") {
        if (c === 34) {
          try {
            id = JSON.parse(text.slice(valueStart, i)) as string
          } catch {
            return null
          }
        } else {
          JSON_NUMBER.lastIndex = valueStart
          const m = JSON_NUMBER.exec(text)
          const v = m !== null && JSON_NUMBER.lastIndex === i ? Number(m[0]) : Number.NaN
          id = Number.isFinite(v) ? v : null
        }
      }
      blank()
      const sep = text.charCodeAt(i)
      i++
      if (sep === 125) break
      if (sep !== 44) return null
    }
  }
  blank()
  return i === n ? id : null
}

const isId = (u: unknown): u is JsonId => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A refusal: the answer to send (an error response), or nothing (`code` undefined: a notification or a response, dropped). */
class Refusal {
  constructor(readonly id: JsonId | null, readonly code: number | undefined, readonly message: string, readonly data?: ProductErrorData) {}
}

/** The `data` of a product error as an MCP error holds it (docs/mcp.md, "Errors"). */
interface ProductErrorData {
  readonly code: string
  readonly message: string
  readonly remediation: string | undefined
  readonly details: unknown
}

/**
 * A product error as the JSON-RPC error docs/mcp.md promises: `-32602` (a problem with what the client sent), the
 * message `<CODE>: <message> Remedy: <remediation>`, `data` `{code, message, remediation, details}`.
 */
const productError = (e: IngestError): { readonly code: number; readonly message: string; readonly data: ProductErrorData } => ({
  code: JsonRpcCode.invalidParams,
  message: `${e.code}: ${e.message}${e.remediation !== undefined ? ` Remedy: ${e.remediation}` : ""}`,
  data: { code: e.code, message: e.message, remediation: e.remediation, details: e.details }
})

const isRefusal = (u: Record<string, unknown> | Refusal): u is Refusal => u instanceof Refusal

const refuse = (id: JsonId | null, code: number | undefined, message: string): Refusal => new Refusal(id, code, message)

/** What a line's message is: a request or notification to pass on (its id made one the server carries), or a refusal. */
const screen = (
  value: unknown,
  carry: (id: JsonId) => number
): Record<string, unknown> | Refusal => {
  if (!isObject(value)) return refuse(null, JsonRpcCode.invalidRequest, "Invalid Request: a JSON-RPC message is an object")
  const hasId = Object.hasOwn(value, "id")
  const id = hasId && isId(value.id) ? value.id : null
  if (value.jsonrpc !== "2.0") return refuse(id, JsonRpcCode.invalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
  if (!Object.hasOwn(value, "method")) {
    if (hasId && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) {
      return refuse(id, undefined, `a response (id ${JSON.stringify(value.id)}) to no request of the server, ignored`)
    }
    return refuse(id, JsonRpcCode.invalidRequest, `Invalid Request: no "method"`)
  }
  const method = value.method
  if (typeof method !== "string") return refuse(id, JsonRpcCode.invalidRequest, `Invalid Request: "method" must be a string`)
  if (Object.hasOwn(value, "params") && (typeof value.params !== "object" || value.params === null)) {
    return refuse(id, JsonRpcCode.invalidRequest, `Invalid Request: "params" must be an object or an array`)
  }
  if (!hasId) {
    if (notificationMethods.has(method)) return value
    return refuse(
      null,
      undefined,
      requestMethods.has(method)
        ? `a request without an id (a notification, which gets no answer), ignored: ${excerpt(method)}`
        : `a notification of an unknown method, ignored: ${excerpt(method)}`
    )
  }
  // MCP: a request's id is a string or a number, never null.
  if (id === null) return refuse(null, JsonRpcCode.invalidRequest, "Invalid Request: an id is a string or a number")
  if (!requestMethods.has(method)) return refuse(id, JsonRpcCode.methodNotFound, `Method not found: ${excerpt(method)}`)
  let params = value.params
  if (params === undefined && paramsRequired.has(method)) {
    return refuse(id, JsonRpcCode.invalidParams, `Invalid params: ${method} takes "params" (an object), and the request has none`)
  }
  if (listMethods.has(method) && isObject(params) && params.cursor !== undefined) {
    return refuse(id, JsonRpcCode.invalidParams, `Invalid params: no cursor is valid for ${method}: this server answers the whole list at once, with no nextCursor`)
  }
  // MCP's `arguments` is optional; the server's schema requires it.
  if (method === "tools/call" && isObject(params) && !Object.hasOwn(params, "arguments")) params = { ...params, arguments: {} }
  if (method === "tools/call" && isObject(params) && !isObject(params.arguments)) {
    return refuse(id, JsonRpcCode.invalidParams, `Invalid params: tools/call "arguments" must be an object of the tool's arguments`)
  }
  if (method === "tools/call" && isObject(params) && isObject(params.arguments)) {
    let count = 0
    for (const _ in params.arguments) if (++count > maxArguments) break
    if (count > maxArguments) {
      return refuse(id, JsonRpcCode.invalidParams, `Invalid params: tools/call "arguments" holds more than ${maxArguments} arguments; a tool of this server takes at most ${maxArguments}`)
    }
    // `JSON.parse` keeps a `__proto__` member as an argument, but the server's schema copies arguments by assignment,
    // which turns it into the object's prototype (or drops it): the call would run as if it had not been sent, where
    // every other unknown argument is refused. Refused here, where it is still an argument.
    // As the product's other argument errors (tester22b F7: this one alone had no code, remedy nor data).
    if (Object.hasOwn(params.arguments, "__proto__")) {
      const tool = typeof params.name === "string" ? excerpt(params.name) : "tools/call"
      const e = productError(new InvalidArgument({
        message: `${tool}: __proto__: not an argument of this tool (no tool of this server takes it)`,
        remediation: "Pass the arguments the tool's inputSchema names (tools/list)."
      }))
      return new Refusal(id, e.code, e.message, e.data)
    }
    // A number literal too large for a double (`1e400`) is read as Infinity, which the answer's JSON writes as null:
    // named here, while it is still the value sent (tester21b F7).
    for (const [key, v] of Object.entries(params.arguments)) {
      if (typeof v === "number" && !Number.isFinite(v)) {
        return refuse(id, JsonRpcCode.invalidParams, `Invalid params: ${excerpt(key)}: got a number too large to read (${v}), expected a finite number`)
      }
    }
  }
  return { ...value, id: carry(id), params }
}

/** The answer to a refusal, as an encoded line (JSON-RPC error response). */
const refusalLine = (r: Refusal): string =>
  // As every answer: no raw C1 control or bidirectional override (a method name or an id echoed back).
  escapeJsonControls(JSON.stringify({ jsonrpc: "2.0", id: r.id, error: r.data === undefined ? { code: r.code, message: r.message } : { code: r.code, message: r.message, data: r.data } })) + "\n"

// ---------------------------------------------------------------- errors out

/** A one-line text of a schema error (`TreeFormatter`'s tree, without the type it was checked against). */
const oneLine = (text: string): string => {
  const lines = text.split("\n")
  const body = lines.length > 1 ? lines.slice(1) : lines
  return body.map((l) => l.replace(/^[\s\u2514\u251C\u2502\u2500]+/u, "").trim()).filter((l) => l.length > 0).join(" ")
}

/**
 * A JSON-RPC error as `@effect/rpc` frames a failed request
 * (`{_tag: "Cause", code, message, data: <the encoded Cause>}`) made the
 * error MCP and docs/mcp.md promise: `{code, message, data}` with `data` the
 * failure's own `data` (the product's `{code, message, remediation,
 * details}`). A request whose params the server's schema refused (a `Die`
 * holding the schema's message) is `-32602` with that message on one line;
 * any other cause is `-32603` with a one-line message.
 */
export const plainError = (error: unknown): unknown => {
  if (typeof error !== "object" || error === null || (error as { _tag?: unknown })._tag !== "Cause") return error
  const e = error as { code: unknown; message: unknown; data?: unknown }
  const cause = e.data as { _tag?: unknown; error?: unknown; defect?: unknown } | undefined
  if (cause !== undefined && cause !== null && cause._tag === "Fail" && typeof cause.error === "object" && cause.error !== null) {
    const failure = cause.error as { code?: unknown; message?: unknown; data?: unknown }
    const code = typeof failure.code === "number" ? failure.code : JsonRpcCode.internalError
    // A failure of the MCP library's own (`Tool '<name>' not found`) holds what was sent: clipped as ours are.
    const message = clipEchoes(typeof failure.message === "string" ? failure.message : String(e.message))
    return failure.data === undefined ? { code, message } : { code, message, data: failure.data }
  }
  if (cause !== undefined && cause !== null && cause._tag === "Die" && typeof cause.defect === "string") {
    const message = clipEchoes(`Invalid params: ${oneLine(cause.defect)}`)
    diagnose(message)
    return { code: JsonRpcCode.invalidParams, message }
  }
  if (interruptedOnly(cause)) {
    diagnose("a request was interrupted before its answer (the server is stopping, or the client cancelled it)")
    return { code: JsonRpcCode.internalError, message: "Internal error: the request was interrupted before its answer (the server is stopping, or the request was cancelled)." }
  }
  diagnose(`a request failed without an error of its own: ${excerpt(JSON.stringify(cause ?? null))}`)
  return { code: JsonRpcCode.internalError, message: "Internal error: the server failed to answer (a bug); it keeps serving. See its stderr." }
}

/** Whether an encoded `Cause` holds interruptions only (`Interrupt`, in `Sequential` / `Parallel` with `Empty`): no failure, no defect. */
const interruptedOnly = (cause: unknown): boolean => {
  let interrupts = 0
  const walk = (c: unknown, depth: number): boolean => {
    if (!isObject(c) || depth > maxNesting) return false
    switch (c._tag) {
      case "Interrupt":
        interrupts++
        return true
      case "Empty":
        return true
      case "Sequential":
      case "Parallel":
        return walk(c.left, depth + 1) && walk(c.right, depth + 1)
      default:
        return false
    }
  }
  return walk(cause, 0) && interrupts > 0
}

/** A JSON-RPC message (or batch) with its error, if any, made plain by {@link plainError}, and its id the client's. */
const plainMessage = (message: unknown, restore: (id: unknown) => unknown): unknown => {
  if (Array.isArray(message)) return message.map((m) => plainMessage(m, restore))
  if (!isObject(message)) return message
  const out: Record<string, unknown> = Object.hasOwn(message, "id") ? { ...message, id: restore(message.id) } : { ...message }
  if (out.error !== undefined) out.error = plainError(out.error)
  return out
}

/** Whether an outgoing rpc message (or batch) holds a failed request. */
const holdsFailure = (response: unknown): boolean =>
  Array.isArray(response)
    ? response.some(holdsFailure)
    : isObject(response) && response._tag === "Exit" && (response.exit as { _tag?: unknown } | undefined)?._tag === "Failure"

// ---------------------------------------------------------------- the serialization

/**
 * `@effect/rpc`'s newline-delimited JSON-RPC framing for the MCP server,
 * tolerant of any line a client writes (see the module's description):
 * give it to `RpcServer.makeProtocolStdio` as the `RpcSerialization`.
 * One parser (`unsafeMake`) serves one connection: it holds the partial
 * line, the refusals to answer and the ids carried under stand-ins.
 */
export const mcpSerialization: RpcSerialization.RpcSerialization["Type"] = (() => {
  const base = RpcSerialization.ndJsonRpc({ maxBufferSize: "unbounded" })
  return RpcSerialization.RpcSerialization.of({
    ...base,
    unsafeMake: () => {
      const parser = base.unsafeMake()
      const decoder = new TextDecoder()
      let buffer = ""
      /** The start of the line being skipped (over {@link maxLineChars}), for its stderr line. */
      let skippedHead = ""
      /** Skipping the rest of a line longer than {@link maxLineChars}. */
      let skipping = false
      /** Refusals to answer, in order; each was handed to the server as a Ping. */
      const refusals: Array<Refusal> = []
      /** Stand-in id (as the server writes it) -> the client's id. */
      const carried = new Map<number, JsonId>()
      let next = standInBase
      /** The requests in flight: the client's id (as {@link idKey}) -> the id the server carries it under. */
      const inFlight = new Map<string, number>()
      /** The carried ids of requests in flight the client cancelled: their answers are not written. */
      const cancelled = new Set<number>()
      const carry = (id: JsonId): number => {
        const carriedId = typeof id === "number" && Number.isSafeInteger(id) && id > 0 && id < standInBase ? id : next++
        if (carriedId !== id) carried.set(carriedId, id)
        inFlight.set(idKey(id), carriedId)
        return carriedId
      }
      /** The carried ids of cancelled requests whose answers the server gave: left out of the line that holds them. */
      const unanswered = new Set<number>()
      /**
       * Each answer (`Exit`) of an outgoing message or batch: its request is no longer in flight; a cancelled one's
       * answer is marked to be left out. (It still goes through the rpc serialization: a batch is written when all
       * its answers are in, so each must reach it.)
       */
      const settleAnswers = (response: unknown): void => {
        for (const m of Array.isArray(response) ? response : [response]) {
          if (!isObject(m) || m._tag !== "Exit") continue
          const carriedId = Number(m.requestId)
          const original = carried.get(carriedId) ?? carriedId
          if (inFlight.get(idKey(original)) === carriedId) inFlight.delete(idKey(original))
          if (cancelled.delete(carriedId)) unanswered.add(carriedId)
        }
      }
      /** Encoded lines without the answers of cancelled requests (a batch keeps its other answers); `undefined` when none is left. */
      const withoutCancelled = (text: string): string | undefined => {
        const drop = (m: unknown): boolean => {
          if (!isObject(m) || typeof m.id !== "number" || !unanswered.delete(m.id)) return false
          carried.delete(m.id)
          diagnose("a request the client cancelled ended; its answer is not sent (MCP cancellation)")
          return true
        }
        const lines: Array<string> = []
        for (const line of text.split("\n")) {
          if (line.length === 0) continue
          const message = JSON.parse(line) as unknown
          if (Array.isArray(message)) {
            const left = message.filter((m) => !drop(m))
            if (left.length === message.length) lines.push(line)
            else if (left.length > 0) lines.push(JSON.stringify(left))
          } else if (!drop(message)) {
            lines.push(line)
          }
        }
        return lines.length === 0 ? undefined : lines.join("\n") + "\n"
      }
      /**
       * `notifications/cancelled` (MCP cancellation): a request in flight is interrupted under the id the server
       * carries it by, and its answer, whether it ends interrupted or done, is not written ("the receiver SHOULD NOT
       * send a response for the cancelled request"). A cancellation of no request in flight (unknown, or already
       * answered: "the notification MAY arrive after the request has completed") is ignored ("Invalid
       * cancellation notifications SHOULD be ignored").
       */
      const cancellation = (value: Record<string, unknown>): Record<string, unknown> | Refusal => {
        const params = isObject(value.params) ? value.params : {}
        const target = isId(params.requestId) ? inFlight.get(idKey(params.requestId)) : undefined
        if (target === undefined) {
          return refuse(null, undefined, `a cancellation of no request in flight, ignored: ${excerpt(JSON.stringify(params.requestId ?? null))}`)
        }
        cancelled.add(target)
        return { ...value, params: { ...params, requestId: target } }
      }
      const restore = (id: unknown): unknown => {
        if (typeof id !== "number" || !carried.has(id)) return id
        const original = carried.get(id)
        carried.delete(id)
        return original
      }

      const readLine = (line: string, out: Array<unknown>): void => {
        const text = line.endsWith("\r") ? line.slice(0, -1) : line
        if (text.trim().length === 0) return
        if (nestedDeeper(text, maxNesting)) {
          // Answered with the request's top-level id when a shallow scan reads it (the deep part is not parsed).
          return refused(refuse(shallowId(text), JsonRpcCode.invalidRequest, `Invalid Request: a message nested deeper than ${maxNesting} levels (arrays and objects)`), text, out)
        }
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch {
          return refused(refuse(null, JsonRpcCode.parseError, "Parse error: the line is not JSON"), text, out)
        }
        if (Array.isArray(value)) {
          if (value.length === 0) return refused(refuse(null, JsonRpcCode.invalidRequest, "Invalid Request: an empty batch"), text, out)
          const passed: Array<Record<string, unknown>> = []
          for (const item of value) {
            const screened = screen(item, carry)
            const s = !isRefusal(screened) && screened.method === "notifications/cancelled" && !Object.hasOwn(screened, "id") ? cancellation(screened) : screened
            if (isRefusal(s)) refused(s, JSON.stringify(item), out)
            else passed.push(s)
          }
          if (passed.length > 0) out.push(...parser.decode(JSON.stringify(passed) + "\n"))
          return
        }
        const screened = screen(value, carry)
        const s = !isRefusal(screened) && screened.method === "notifications/cancelled" && !Object.hasOwn(screened, "id") ? cancellation(screened) : screened
        if (isRefusal(s)) return refused(s, text, out)
        out.push(...parser.decode(JSON.stringify(s) + "\n"))
      }

      const refused = (r: Refusal, text: string, out: Array<unknown>): void => {
        diagnose(`${r.message} (line: ${excerpt(text)})`)
        if (r.code === undefined) return
        refusals.push(r)
        out.push({ _tag: "Ping" })
      }

      return {
        decode: (bytes) => {
          buffer += typeof bytes === "string" ? bytes : decoder.decode(bytes, { stream: true })
          const out: Array<unknown> = []
          let position = 0
          let nl = buffer.indexOf("\n")
          while (nl !== -1) {
            if (skipping) {
              skipping = false
              refused(refuse(null, JsonRpcCode.invalidRequest, `Invalid Request: a line longer than ${maxLineChars} characters`), skippedHead, out)
            } else if (nl - position > maxLineChars) {
              refused(refuse(null, JsonRpcCode.invalidRequest, `Invalid Request: a line longer than ${maxLineChars} characters`), buffer.slice(position, position + 200), out)
            } else {
              const line = buffer.slice(position, nl)
              // The reader never throws: a line it fails on is refused on its own, the lines around it are served.
              const before = out.length
              const refusalsBefore = refusals.length
              try {
                readLine(line, out)
              } catch (e) {
                out.length = before
                refusals.length = refusalsBefore
                refused(refuse(null, JsonRpcCode.invalidRequest, `Invalid Request: the line could not be read (${errorName(e)})`), line, out)
              }
            }
            position = nl + 1
            nl = buffer.indexOf("\n", position)
          }
          buffer = buffer.slice(position)
          if (buffer.length > maxLineChars) {
            // Only its head is kept, for the stderr line that names it.
            skippedHead = buffer.slice(0, 200)
            buffer = ""
            skipping = true
          } else if (skipping) {
            buffer = ""
          }
          return out
        },
        encode: (response) => {
          let text: string | undefined
          try {
            text = encodeResponse(response)
          } catch (e) {
            diagnose(`an answer could not be written (${errorName(e)})`)
            const id = isObject(response) && typeof response.requestId === "string" ? restore(Number(response.requestId)) : null
            return refusalLine(refuse(isId(id) ? id : null, JsonRpcCode.internalError, `Internal error: the answer could not be written (${errorName(e)}); the server keeps serving.`))
          }
          return text === undefined ? undefined : withinLineBound(text)
        }
      }

      /** A response as the line(s) to write (see the module's description). */
      function encodeResponse(response: unknown): string | undefined {
        // The tools and resources are fixed while the server serves: the list_changed notifications of their registration are not sent.
        if (isObject(response) && response._tag === "Request" && typeof response.tag === "string" && response.tag.endsWith("/list_changed")) return undefined
        if (isObject(response) && response._tag === "Pong") {
          const r = refusals.shift()
          return r === undefined ? undefined : refusalLine(r)
        }
        if (isObject(response) && response._tag === "Defect") {
          diagnose(`the server reported a defect: ${excerpt(JSON.stringify(response.defect ?? null))}`)
          return refusalLine(refuse(null, JsonRpcCode.internalError, "Internal error: the server failed to read a message (a bug); it keeps serving."))
        }
        settleAnswers(response)
        const encoded = parser.encode(withoutListChanged(response))
        if (encoded === undefined) return encoded
        const whole = typeof encoded === "string" ? encoded : new TextDecoder().decode(encoded)
        const text = unanswered.size === 0 ? whole : withoutCancelled(whole)
        if (text === undefined) return undefined
        const stoodIn = carried.size > 0 && (Array.isArray(response) || (isObject(response) && carried.has(Number(response.requestId))))
        if (!stoodIn && !holdsFailure(response)) return escapeJsonControls(text)
        return escapeJsonControls(
          text.split("\n").filter((l) => l.length > 0).map((l) => JSON.stringify(plainMessage(JSON.parse(l), restore)) + "\n").join("")
        )
      }
    }
  })
})()

/** A client's request id as a map key: a string id and a number id that print alike are different ids. */
const idKey = (id: JsonId): string => `${typeof id}:${id}`

/**
 * The answer to `initialize` with `listChanged: false` in its capabilities:
 * `@effect/ai`'s McpServer (0.37) advertises `listChanged: true` for tools,
 * resources and prompts and has no option for it, while this server's lists
 * are fixed and their `list_changed` notifications are not sent (above);
 * and without the capabilities it does not serve ({@link unadvertised}).
 * Any other response unchanged.
 */
const withoutListChanged = (response: unknown): unknown => {
  if (!isObject(response) || response._tag !== "Exit" || !isObject(response.exit) || response.exit._tag !== "Success") return response
  const value = response.exit.value
  if (!isObject(value) || !isObject(value.capabilities) || !("serverInfo" in value) || !("protocolVersion" in value)) return response
  const capabilities: Record<string, unknown> = { ...value.capabilities }
  for (const k of unadvertisedCapabilities) delete capabilities[k]
  for (const k of ["tools", "resources", "prompts"]) {
    const c = capabilities[k]
    if (isObject(c) && "listChanged" in c) capabilities[k] = { ...c, listChanged: false }
  }
  return { ...response, exit: { ...response.exit, value: { ...value, capabilities } } }
}

/** An error's name for a diagnostic (`RangeError`), never its stack. */
const errorName = (e: unknown): string => e instanceof Error ? e.name : typeof e

/**
 * Lines to write, each held to {@link maxLineBytes}: a longer one (an
 * answer) is replaced by the `-32602` `RESOURCE_LIMIT_EXCEEDED` error for
 * its id, naming its size and the bound, with one line on stderr.
 */
const withinLineBound = (text: string): string => {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most answers are below the bound without counting.
  if (text.length * 3 < maxLineBytes) return text
  const lines = text.split("\n").filter((l) => l.length > 0)
  return lines.map((line) => {
    const bytes = Buffer.byteLength(line) + 1
    if (bytes <= maxLineBytes) return line + "\n"
    const parsed = JSON.parse(line) as unknown
    const id = isObject(parsed) && isId(parsed.id) ? parsed.id : null
    const e = new ResourceLimitExceeded({
      message: `The answer is ${bytes} bytes, over the ${maxLineBytes} bytes a line of this server holds (MCP clients drop the connection on a longer line).`,
      remediation:
        "Ask for less in one call: a smaller maxChars or limit (get_session and get_events go on with nextCursor); a session too large to read as a resource is read in pages with get_session.",
      details: { bytes, maxBytes: maxLineBytes }
    })
    diagnose(`an answer of ${bytes} bytes refused (over ${maxLineBytes}) for id ${excerpt(JSON.stringify(id))}`)
    return JSON.stringify({ jsonrpc: "2.0", id, error: productError(e) }) + "\n"
  }).join("")
}
