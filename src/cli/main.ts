/**
 * The `session-ingest` CLI entry: a thin `@effect/cli` shell over the library.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { discover } from "./commands/discover.js"
import { exportCommand } from "./commands/export.js"
import { importCommand } from "./commands/import.js"
import { inspect } from "./commands/inspect.js"
import { providers } from "./commands/providers.js"
import { sessions } from "./commands/sessions.js"
import { show } from "./commands/show.js"
import { stream } from "./commands/stream.js"
import { transcript } from "./commands/transcript.js"
import { getExitCode, setExitCode } from "./output.js"

const VERSION = "0.1.0"

const root = Command.make("session-ingest").pipe(
  Command.withDescription(
    "Discover, inspect and stream AI coding-agent sessions (Muse Code, Muse agents, AgentMux) as one normalized, typed, resumable record."
  ),
  Command.withSubcommands([providers, discover, inspect, stream, transcript, importCommand, sessions, show, exportCommand])
)

const cli = Command.run(root, { name: "session-ingest", version: VERSION })

const program = Effect.suspend(() => cli(process.argv)).pipe(
  Effect.catchIf(ValidationError.isValidationError, () => Effect.sync(() => setExitCode(2))),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? getExitCode() : getExitCode() || 1)
})
