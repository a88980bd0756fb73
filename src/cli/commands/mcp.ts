/**
 * `session-ingest mcp`: serve the index to MCP clients over stdio (issue 16),
 * read-only and redacted (unless the server is started with `--no-redact`).
 * The server itself is `src/layers/mcp/server.ts`, loaded when the command
 * runs.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { queryRuntime, shareRuntime } from "../lazy.js"
import { writeStdout } from "../output.js"
import { VERSION } from "../version.js"
import * as O from "../options.js"

/** The MCP server module, loaded on first use (it brings @effect/ai and @effect/rpc). */
const mcpServer = Effect.promise(() => import("../../layers/mcp/server.js"))

/** The command. */
export const mcp = Command.make(
  "mcp",
  {
    index: O.index,
    config: O.config,
    noRedact: Options.boolean("no-redact").pipe(
      Options.withDescription("Serve answers without redacting secrets, emails and home paths (a server flag: clients cannot turn redaction off).")
    )
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* queryRuntime
      const share = yield* shareRuntime
      // Before serving: a missing index or a bad config is the CLI's error (stderr, exit code), not a protocol answer.
      const file = yield* rt.existingIndex(o.index, o.config)
      const layers = Layer.mergeAll(
        share.redactionLayer(!o.noRedact, share.loadRedactionPatterns(Option.getOrUndefined(o.config))),
        rt.readLimitsLayer(Option.getOrUndefined(o.config))
      ).pipe(Layer.provideMerge(rt.readIndexLayer(file)))
      const { serveStdio } = yield* mcpServer
      // Answers go to stdout through the CLI's one path to it (drain waited for; a reader gone ends the serving).
      // A SQLite index file deleted or replaced while the server runs: each later call says so (not served stale).
      yield* serveStdio({ name: "session-ingest", version: VERSION }, writeStdout, rt.isPostgresUrl(file) ? undefined : file).pipe(Effect.provide(layers))
    })
).pipe(Command.withDescription("Serve the index to MCP clients over stdio: read-only tools and session resources, redacted."))
