/**
 * The MCP server's stdio transport: an `@effect/rpc` server `Protocol` that
 * reads newline-delimited messages from stdin and writes the answers, one
 * after the other, through a write function given by the caller (the CLI's
 * one path to stdout, which waits for the pipe to drain and tells a reader
 * gone from a failed write).
 *
 * It differs from `RpcServer.makeProtocolStdio` at the end of input: there,
 * stdin's end interrupts the server at once, so a request still running is
 * answered as an interruption and stdout is ended under a pending write.
 * Here, stdin's end is the client's `Eof`: the last line (even without its
 * newline) is read, every request already read is answered, then the server
 * ends its client (`ClientEnd`) and {@link StdioProtocol.done} completes once
 * the answers before are written. Answers are written one at a time, in the
 * order sent, by the fiber that sends them (so a client that does not read
 * holds the server back instead of filling its memory). A failed write (the
 * client stopped reading) completes `done` too. The serialization's parser
 * (`./framing.ts`) never throws; a failure of the reader is written as one
 * line on stderr and taken as the end of input.
 *
 * @module
 */
import * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { visibleControls } from "../../domain/render.js"

/** The transport's ends: what the client writes, and how an answer is written. */
export interface StdioOptions {
  /** The client's bytes (stdin). */
  readonly stdin: Stream.Stream<Uint8Array | string, unknown>
  /** Write one encoded answer (one or more whole lines); a failure (the reader gone) ends the serving. */
  readonly write: (text: string) => Effect.Effect<void, unknown>
}

/** The protocol, and when the serving is over. */
export interface StdioProtocol {
  readonly protocol: RpcServer.Protocol["Type"]
  /**
   * Completes once the client's input ended and every answer is written
   * (or a write failed: the client stopped reading).
   */
  readonly done: Deferred.Deferred<void>
}

/** Build the transport (see the module's description); its reader and writer run in the scope. */
export const makeStdioProtocol = (
  options: StdioOptions
): Effect.Effect<StdioProtocol, never, RpcSerialization.RpcSerialization | Scope.Scope> =>
  Effect.gen(function*() {
    const serialization = yield* RpcSerialization.RpcSerialization
    const done = yield* Deferred.make<void>()
    const protocol = yield* RpcServer.Protocol.make((writeRequest) =>
      Effect.gen(function*() {
        const parser = serialization.unsafeMake()
        // One answer at a time, in the order sent; once the output is over (the client ended, or a write failed) nothing more is written.
        const writing = yield* Effect.makeSemaphore(1)
        let over = false
        const finish = Effect.suspend(() => {
          over = true
          return Deferred.succeed(done, undefined)
        })
        const deliver = (data: Uint8Array | string) =>
          Effect.suspend(() => Effect.forEach(parser.decode(data), (message) => writeRequest(0, message as RpcMessage.FromClientEncoded), { discard: true }))
        yield* options.stdin.pipe(
          Stream.runForEach(deliver),
          Effect.catchAllCause((cause) =>
            Effect.sync(() => {
              if (!Cause.isInterruptedOnly(cause)) {
                process.stderr.write(`session-ingest mcp: the input could not be read (${visibleControls(String(Cause.squash(cause)).split("\n")[0] ?? "")}); ending\n`)
              }
            })
          ),
          // The last line may lack its newline.
          Effect.zipRight(deliver("\n")),
          // Suspended: `writeRequest` is the server's only once it runs (before, it buffers).
          Effect.zipRight(Effect.suspend(() => writeRequest(0, RpcMessage.constEof))),
          Effect.forkScoped,
          Effect.interruptible
        )
        return {
          disconnects: yield* Mailbox.make<number>(),
          send: (_clientId, response) =>
            writing.withPermits(1)(Effect.suspend(() => {
              if (over) return Effect.void
              const encoded = parser.encode(response)
              if (encoded === undefined) return Effect.void
              return options.write(typeof encoded === "string" ? encoded : new TextDecoder().decode(encoded)).pipe(
                Effect.catchAllCause(() => finish)
              )
            })),
          // The server ended the client (its input is over and every request is answered): done once the answers before are written.
          end: (_clientId) => writing.withPermits(1)(finish),
          clientIds: Effect.succeed(new Set([0])),
          initialMessage: Effect.succeedNone,
          supportsAck: true,
          supportsTransferables: false,
          supportsSpanPropagation: true
        }
      })
    )
    return { protocol, done }
  })
