/**
 * The MCP server (issue 16): the index served over the Model Context
 * Protocol on stdio, with `@effect/ai`'s `McpServer` (JSON-RPC framing,
 * initialize, tools/list, tools/call, resources/list, resources/read).
 *
 * - Tools: one entry each in {@link tools} (name, description, argument
 *   schema, answer); adding a tool is adding an entry. Every tool is
 *   read-only (`readOnlyHint`), its answer is JSON (as text content and as
 *   structured content).
 * - Resources: `session://<uid>`, one per session of the index when the
 *   server started; `session://<id>` also reads a session named by its
 *   native id or a unique prefix.
 * - Every answer is made by `./answers.ts`, through the `Redaction` in force.
 * - A bad argument, an unknown session or a bad cursor is a JSON-RPC error
 *   (`-32602` invalid params; `-32603` for a store failure) whose message
 *   starts with the product's error code (`SOURCE_NOT_FOUND: …`) and whose
 *   `data` holds `{code, message, remediation, details}`; the server keeps
 *   serving. Nothing but protocol is written on stdout; logs go to stderr.
 * - A line that is not a request (not JSON, not JSON-RPC, an unknown method,
 *   nested too deep) is answered with the JSON-RPC error for it by the
 *   framing (`./framing.ts`), and the server reads on; an answer longer than
 *   a line may be is refused there too.
 * - At the end of stdin the requests already read are answered, then the
 *   server ends (`./stdio.ts`).
 * - Every request runs in a fiber of its own, `resources/list` included
 *   ({@link listingInItsFiber}): the fiber reading stdin never does a
 *   request's work, so a ping, a cancellation or the end of input is read
 *   while a long request runs.
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import { InternalError, InvalidParams, ListResourcesResult, Resource, ResourceTemplate, Tool as McpTool, ToolAnnotations, CallToolResult } from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Deferred from "effect/Deferred"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import * as JSONSchema from "effect/JSONSchema"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidArgument, type IngestError, isIngestError, SourceNotFound, StoreUnavailable } from "../../domain/errors.js"
import { indexFileCheck } from "../index/file-identity.js"
import { counted, oneLineField, visibleControls } from "../../domain/render.js"
import { Index } from "../../services/Index.js"
import type { Redaction } from "../../services/Redaction.js"
import {
  getEvents,
  GetEventsParams,
  getSession,
  GetSessionParams,
  listSessions,
  ListSessionsParams,
  SearchSessionsParams,
  searchSessions,
  readSession,
  resourceSessions,
  type SessionBrief
} from "./answers.js"
import { argumentProblems } from "./arguments.js"
import { makeStdioProtocol } from "./stdio.js"

/** One tool of the server: what a client sees (name, title, description, argument schema) and how it answers. */
export interface ToolEntry<P> {
  readonly name: string
  readonly title: string
  readonly description: string
  /** The arguments (a `Schema.Struct`): their JSON Schema is the tool's `inputSchema`, and calls are decoded with it. */
  readonly parameters: Schema.Schema<P, any>
  /** The answer (a JSON value), or an error of the family. */
  readonly answer: (params: P) => Effect.Effect<unknown, IngestError, Index | Redaction>
}

/** A {@link ToolEntry}, typed by its schema. */
export const toolEntry = <P>(entry: ToolEntry<P>): ToolEntry<any> => entry

/** The tools, in the order `tools/list` gives them. */
export const tools: ReadonlyArray<ToolEntry<any>> = [
  toolEntry({
    name: "search_sessions",
    title: "Search sessions",
    description:
      "Full-text search over every indexed event: messages, thinking, tool inputs (commands, file paths, edit strings) and results, compaction and runtime summaries, session titles. Query syntax: words, \"exact phrases\", prefix*, AND / OR / NOT (or -word), parentheses; identifiers are found as written. Filters: provider, since / until, session, workspace, role, kind, machine (a team index); limit (default 20). Each hit carries its session, its machine (a team index; null in a local one), event id and cursor: get_events with eventId shows its context, with cursor continues after it.",
    parameters: SearchSessionsParams,
    answer: searchSessions
  }),
  toolEntry({
    name: "list_sessions",
    title: "List sessions",
    description:
      "List the AI coding-agent sessions in the session-ingest index, latest activity first: id, uid, provider, machine (the machine it came from, in a team index; null in a local one), title, workspace, first and last activity, event count, and the session's resource uri. Filters: provider, since / until (dates), workspace (folder), machine (a team index); limit (default 50). `more` says whether the limit left sessions out.",
    parameters: ListSessionsParams,
    answer: listSessions
  }),
  toolEntry({
    name: "get_session",
    title: "Get a session and a page of its transcript",
    description:
      "One session's metadata and a page of its transcript: one entry per event, headed `[<eventId>] <time> <role> <kind> [tool]`, then its text. The page holds at most maxChars characters (default 20000); pass the answer's nextCursor back (same id) for the next page, until done is true. Cite a passage by its event id; get_events shows the events around it.",
    parameters: GetSessionParams,
    answer: getSession
  }),
  toolEntry({
    name: "get_events",
    title: "Get events of a session",
    description:
      "Events of one session with their ids, times, roles, kinds, tool names, texts and cursors: around an eventId (context events on each side, default 5), or after a cursor (an event's cursor or a nextCursor; from the start without one), at most limit events (default 50). Texts are held within maxChars for the answer (default 20000). nextCursor resumes after the last event answered; done is true at the session's end.",
    parameters: GetEventsParams,
    answer: getEvents
  })
]

// ---------------------------------------------------------------- errors

/** Codes that name a problem with what the client asked (JSON-RPC "invalid params"); the rest are server-side. */
const CLIENT_CODES = new Set(["INVALID_ARGUMENT", "INVALID_SEARCH_QUERY", "INVALID_CURSOR", "SOURCE_NOT_FOUND", "RESOURCE_LIMIT_EXCEEDED"])

/** A JSON value with every string clipped ({@link clipEchoes}). */
const clipValue = (u: unknown): unknown =>
  typeof u === "string"
    ? clipEchoes(u)
    : Array.isArray(u)
    ? u.slice(0, 100).map(clipValue)
    : typeof u === "object" && u !== null
    ? Object.fromEntries(Object.entries(u).slice(0, 100).map(([k, v]) => [clipEchoes(k), clipValue(v)]))
    : u

/**
 * An error of the family as an MCP (JSON-RPC) error: the code first in the
 * message, the whole error in `data`; what it echoes of the client's
 * arguments is clipped ({@link clipEchoes}), and its message and remedy show
 * their control characters as escapes (`visibleControls`).
 */
export const mcpError = (e: IngestError): InvalidParams | InternalError => {
  // The texts for people show their control characters as escapes (an id holding U+0000 or ESC, echoed back: tester36b
  // F12), as the CLI's errors do; `details` keeps the facts as they are (JSON escapes them).
  const remediation = e.remediation !== undefined ? visibleControls(e.remediation) : undefined
  const text = visibleControls(e.message)
  const data = clipValue({ code: e.code, message: text, remediation, details: e.details })
  const message = clipEchoes(`${e.code}: ${text}${remediation !== undefined ? ` Remedy: ${remediation}` : ""}`)
  return CLIENT_CODES.has(e.code) ? new InvalidParams({ message, data }) : new InternalError({ message, data })
}

/** Any failure of an answer as an MCP error; a defect (a bug) is logged on stderr and answered as an internal error. */
const answerErrors = <A, R>(effect: Effect.Effect<A, IngestError, R>): Effect.Effect<A, InvalidParams | InternalError, R> =>
  Effect.catchAllCause(effect, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) return Effect.fail(mcpError(failure.value))
    const defect = Cause.squash(cause)
    if (isIngestError(defect)) return Effect.fail(mcpError(defect as IngestError))
    return Effect.zipRight(
      Effect.logError("session-ingest mcp: an unexpected failure", Cause.pretty(cause)),
      Effect.fail(new InternalError({ message: "INTERNAL: the server failed to answer (a bug); it keeps serving. See its stderr." }))
    )
  })

/** `INVALID_ARGUMENT` for a call whose arguments do not decode: each argument at fault, what it must be and what was given (see `./arguments.ts`). */
const badArguments = (tool: string, parameters: Schema.Schema.Any, payload: unknown, e: ParseResult.ParseError): InvalidArgument =>
  new InvalidArgument({
    message: `${tool}: ${argumentProblems(parameters, payload, e).join("; ")}`,
    remediation: `Pass the arguments the tool's inputSchema names (tools/list).`
  })

// ---------------------------------------------------------------- framing

/** The stdio framing (tolerant line reader, plain JSON-RPC errors): see `./framing.ts`. */
export { mcpSerialization } from "./framing.js"
import { clipEchoes, mcpSerialization } from "./framing.js"

// ---------------------------------------------------------------- registration

/** The tool's JSON Schema, as MCP's `inputSchema` (an object schema, without `$schema`). */
const inputSchema = (parameters: Schema.Schema.Any): Record<string, unknown> => {
  const { $schema: _s, ...rest } = JSONSchema.make(parameters) as unknown as Record<string, unknown>
  return rest
}

/** Register {@link tools} with the server; `indexCheck` runs before each call (see {@link serveStdio}). */
const registerTools = (indexCheck: Effect.Effect<void, StoreUnavailable>) => Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const context = yield* Effect.context<Index | Redaction>()
  for (const entry of tools) {
    const decode = Schema.decodeUnknownEither(entry.parameters, { onExcessProperty: "error", errors: "all" })
    yield* server.addTool({
      tool: new McpTool({
        name: entry.name,
        title: entry.title,
        description: entry.description,
        inputSchema: inputSchema(entry.parameters),
        annotations: new ToolAnnotations({ title: entry.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
      }),
      handle: (payload: unknown) =>
        Effect.suspend(() => {
          const decoded = decode(payload ?? {})
          if (Either.isLeft(decoded)) return Effect.fail(badArguments(entry.name, entry.parameters, payload ?? {}, decoded.left))
          return Effect.zipRight(indexCheck, entry.answer(decoded.right))
        }).pipe(
          Effect.map((answer) =>
            new CallToolResult({
              content: [{ type: "text", text: JSON.stringify(answer) }],
              structuredContent: answer
            })
          ),
          answerErrors,
          Effect.provide(context)
          // The MCP server's type for a handler has no error channel, but its
          // `tools/call` answers a handler's InvalidParams / InternalError as the
          // JSON-RPC error (as it does for an unknown tool).
        ) as unknown as Effect.Effect<CallToolResult>
    })
  }
})

/** A percent-encoded id decoded; as given when it is not valid percent-encoding. */
const uriDecoded = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Read a `session://<id>` resource: its session's metadata and transcript (Markdown, redacted), or its error answered. */
const readSessionResource = (context: Context.Context<Index | Redaction>, indexCheck: Effect.Effect<void, StoreUnavailable>) => (uri: string, id: string) =>
  Effect.zipRight(indexCheck, readSession(id)).pipe(
    Effect.map((text) => ({ contents: [{ uri, mimeType: "text/markdown", text }] })),
    answerErrors,
    Effect.provide(context)
  )

/**
 * Register the `session://{id}` template (what `resources/templates/list`
 * shows). Reads do not go through its route: see {@link registryLayer}.
 */
const registerResourceTemplate = (indexCheck: Effect.Effect<void, StoreUnavailable>) => Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  const read = readSessionResource(yield* Effect.context<Index | Redaction>(), indexCheck)
  yield* server.addResourceTemplate({
    template: new ResourceTemplate({
      uriTemplate: "session://{id}",
      name: "session",
      title: "A session of the index",
      // tester34b F2: a redacting server (the default) resolves no ses_ uid; say the uid as answers give it.
      description: "A session by its uid as an answer gave it (hses_\u2026 with redaction on, the default; ses_\u2026 with it off), native id, or a unique prefix of either: its metadata and whole transcript (Markdown, redacted).",
      mimeType: "text/markdown"
    }),
    // find-my-way syntax: `::` is a literal colon, `:0` the id.
    routerPath: "session:://:0",
    completions: {},
    handle: (uri, params) => read(uri, uriDecoded(params[0] ?? ""))
  })
})

/** The form of this server's resource URIs: `session://` and an id (no `/`, `?` or `#`: a path is no session). */
const SESSION_URI = /^session:\/\/[^/?#]+$/
const SESSION_SCHEME = "session://"

/** `SOURCE_NOT_FOUND` for a `resources/read` of a URI this server has no resource at. */
const noSuchResource = (uri: string) =>
  new SourceNotFound({
    message: `No resource at ${JSON.stringify(uri.slice(0, 200))}: this server's resources are session://<id> (a session's uid, native id, or a unique prefix of either).`,
    remediation: "List them with resources/list (or the list_sessions tool) and read one by its uri."
  })

/**
 * A session's resource as `resources/list` lists it: its uri, title, and a description of its counts (values on one
 * line). An incomplete session's (`status`) says so first: its events are a part of it and reading it fails until
 * its import or push completes it (tester29b F1).
 */
export const resourceOf = (s: SessionBrief): Resource =>
  new Resource({
    uri: s.uri,
    name: oneLineField(s.title ?? s.id),
    title: oneLineField(s.title ?? s.id),
    // one line whatever the source wrote (tester27a F3: a session id's line breaks shown as `\n`)
    description: `${
      s.status === "incomplete"
        ? `incomplete: ${counted(s.eventCount, "event")} imported so far, not readable until its import or push completes it (run it again); `
        : ""
    }${s.provider} session ${oneLineField(s.id)}, ${counted(s.eventCount, "event")}${s.lastAt !== null ? `, last active ${oneLineField(s.lastAt)}` : ""}${
      s.workspace !== null ? `, in ${oneLineField(s.workspace)}` : ""
    }`,
    mimeType: "text/markdown"
  }, true)

/**
 * The URI a `resources/list` request is carried under, as a `resources/read` ({@link listingInItsFiber}); its random
 * part is this server's own, so no client's `resources/read` names it.
 */
const LISTING_URI = `session-ingest-internal:listing:${randomUUID()}`
/** The `_meta` key of that read's answer that holds the list's answer (`ListResourcesResult`, encoded). */
const LISTING_META = "session-ingest/listing"

const encodeListing = Schema.encodeSync(ListResourcesResult)

/**
 * The answer to `resources/list`, read from the index now (`resourceSessions`: one query, and a title's source or
 * its session's secrets only for a session not shown yet in its state, by uid, generation, event count and last
 * time), so that a running server lists what an import changed since it started: the count and last time of a
 * session appended to, and a title that states a value a later event named a secret, redacted as `list_sessions`
 * shows it (tester25b F6). The index no longer at its path (`indexCheck`) or not answering: that `resources/list`
 * fails with the error as the tools do, never answering a list read before (tester28a F2). One listing at a time
 * (a second waits, then finds the titles the first read kept); carried in the answer of a `resources/read` of
 * {@link LISTING_URI} ({@link listingInItsFiber}).
 */
const listResources = (indexCheck: Effect.Effect<void, StoreUnavailable>, one: Effect.Semaphore) =>
  one.withPermits(1)(Effect.zipRight(indexCheck, resourceSessions)).pipe(
    Effect.map((briefs) => ({
      contents: [],
      _meta: { [LISTING_META]: encodeListing(new ListResourcesResult({ resources: briefs.map(resourceOf) })) }
    })),
    answerErrors
  )

/**
 * `protocol` with each `resources/list` request answered in its own fiber, as every other request is (session 35):
 * `@effect/ai`'s McpServer answers the list from its registry's `resources` at once, without an effect, so the list
 * read from the index (up to a minute on an index of 240,000 events, the first time) had to run before the request
 * reached the server, in the fiber that reads stdin: meanwhile no ping, cancellation nor end of input was read. Here
 * the request is handed to the server as a `resources/read` of {@link LISTING_URI}, whose answer
 * ({@link listResources}, run in the request's fiber: cancellable, interrupted at the end of input like any request)
 * carries the list's, and the list's answer is sent for it, under its id.
 */
const listingInItsFiber = (protocol: RpcServer.Protocol["Type"]): RpcServer.Protocol["Type"] => {
  /** The ids of the `resources/list` requests in flight. */
  const listings = new Set<string>()
  return {
    ...protocol,
    run: (f) =>
      protocol.run((clientId, data) => {
        if (data._tag !== "Request" || data.tag !== "resources/list") return f(clientId, data)
        listings.add(String(data.id))
        return f(clientId, { ...data, tag: "resources/read", payload: { uri: LISTING_URI } })
      }),
    send: (clientId, response, transferables) => {
      if (response._tag !== "Exit" || !listings.delete(String(response.requestId)) || response.exit._tag !== "Success") {
        return protocol.send(clientId, response, transferables)
      }
      const value = response.exit.value as { readonly _meta?: Record<string, unknown> } | undefined
      return protocol.send(clientId, { ...response, exit: { ...response.exit, value: value?._meta?.[LISTING_META] } }, transferables)
    }
  }
}

/**
 * The server's registry (`@effect/ai`'s `McpServer`), its `resources/list` answered by {@link listResources} (see
 * {@link listingInItsFiber}): the sessions' resources are read from the index at each list, not registered one by
 * one (each registration sends a list-changed notification and adds a route; at 1,000 sessions that cost about a
 * second of start-up). A `resources/read` of a `session://<id>` reads the session by its id directly, not through
 * the template's route: the router (find-my-way) matches no id longer than 100 characters nor one with a malformed
 * percent escape (`session://c%`), and the library answers an unmatched URI with empty contents, a success (tester18
 * F6); here it is read as any id (an unknown one: `SOURCE_NOT_FOUND`).
 */
const registryLayer = (indexCheck: Effect.Effect<void, StoreUnavailable>) =>
  Layer.scoped(
    McpServer.McpServer,
    Effect.gen(function*() {
      const base = yield* McpServer.McpServer.make
      const context = yield* Effect.context<Index | Redaction>()
      const read = readSessionResource(context, indexCheck)
      const list = Effect.provide(listResources(indexCheck, yield* Effect.makeSemaphore(1)), context)
      return McpServer.McpServer.of({
        ...base,
        // A URI that is not `session://<id>` names no resource of this server: an error, not empty contents.
        findResource: (uri) =>
          (uri === LISTING_URI
            ? list
            : SESSION_URI.test(uri)
            ? read(uri, uriDecoded(uri.slice(SESSION_SCHEME.length)))
            : Effect.fail(mcpError(noSuchResource(uri)))) as unknown as ReturnType<typeof base.findResource>
      })
    })
  )

/** A logger that writes one line per message on stderr (stdout carries only protocol), its terminal controls shown as escapes. */
const stderrLogger = Logger.map(Logger.logfmtLogger, (line) => {
  process.stderr.write(visibleControls(line) + "\n")
})

/**
 * Serve the index over stdio until the client closes stdin, then answer the
 * requests already read and succeed (see `./stdio.ts`).
 * `info`: the server's `serverInfo` (`name`, `version`). `write`: how an
 * answer (one or more whole lines) reaches stdout; the CLI passes its one
 * path to stdout, which waits for the pipe to drain; a failed write (the
 * client stopped reading) ends the serving. Requires the index (open it
 * read-only: `IndexSqlite.layerReadonly`) and the redaction in force. Fails
 * with `StoreUnavailable` only before serving (one query of the index: nothing that grows with it is read before
 * `initialize` is answered; the resources are listed at each `resources/list`).
 * `indexFile`: the SQLite index's path (undefined: a team index, or none to
 * check); the file there is recorded before serving and looked at again
 * (`indexFileCheck`, one stat) before each tool call and resource read, so
 * a file deleted or replaced under a running server is that call's answer
 * (`STORE_UNAVAILABLE`), not served stale from the unlinked file (tester18 F8).
 */
export const serveStdio = (
  info: { readonly name: string; readonly version: string },
  write: (text: string) => Effect.Effect<void, unknown> = writeProcessStdout,
  indexFile?: string | undefined
): Effect.Effect<void, StoreUnavailable, Index | Redaction> =>
  Effect.gen(function*() {
    const indexCheck = indexFileCheck(indexFile, (change) =>
      new StoreUnavailable({
        message: `The index ${indexFile} was ${change} after this MCP server opened it; the server does not answer from a file no longer at that path.`,
        remediation: "Restart the MCP server (reconnect it in your MCP client): it opens the index now at that path.",
        details: { path: indexFile, reason: change }
      }))
    yield* indexCheck
    // Before serving, one query that the index answers (a store it cannot read is the CLI's error, exit 6), and
    // nothing that grows with the index: the sessions listed as resources (their titles, and for a title that may
    // state a secret the session's events read whole for its secrets) are read at each resources/list, the first
    // included, in its own fiber ({@link listingInItsFiber}), never before `initialize` is answered (tester34b F4: ~100 s on a team
    // index of 510,000 events, past the official client's 60 s, and not stopped by the end of input).
    yield* (yield* Index).sessions({ limit: 1 })
    yield* Effect.gen(function*() {
      yield* registerTools(indexCheck)
      yield* registerResourceTemplate(indexCheck)
      const { done, protocol } = yield* makeStdioProtocol({ stdin: NodeStream.stdin, write }).pipe(
        Effect.provideService(RpcSerialization.RpcSerialization, mcpSerialization)
      )
      // The server runs until the transport is done: the input ended and every answer is written.
      yield* Effect.raceFirst(
        McpServer.run(info).pipe(Effect.provideService(RpcServer.Protocol, listingInItsFiber(protocol))),
        Deferred.await(done)
      )
    }).pipe(
      Effect.scoped,
      Effect.provide(registryLayer(indexCheck))
    )
  }).pipe(
    // Only this logger: not the CLI runtime's pretty logger, which writes on stdout.
    Effect.locally(FiberRef.currentLoggers, HashSet.make(stderrLogger))
  )

/** Write to `process.stdout`, done once the text is handed to the system; fails when the write fails. */
const writeProcessStdout = (text: string): Effect.Effect<void, Error> =>
  Effect.async<void, Error>((resume) => {
    process.stdout.write(text, (err) => resume(err ? Effect.fail(err) : Effect.void))
  })
