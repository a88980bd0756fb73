/**
 * The `session-ingest` CLI entry: a thin `@effect/cli` shell over the library.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { discover } from "./commands/discover.js"
import { exportCommand } from "./commands/export.js"
import { importCommand } from "./commands/import.js"
import { inspect } from "./commands/inspect.js"
import { providers } from "./commands/providers.js"
import { sessions } from "./commands/sessions.js"
import { show } from "./commands/show.js"
import { stream } from "./commands/stream.js"
import { transcript } from "./commands/transcript.js"
import { errors } from "./lazy.js"
import { envelope, getExitCode, setExitCode } from "./output.js"

const VERSION = "0.1.0"

const root = Command.make("session-ingest").pipe(
  Command.withDescription(
    "Discover, inspect and stream AI coding-agent sessions (Muse Code, Muse agents, AgentMux) as one normalized, typed, resumable record."
  ),
  Command.withSubcommands([providers, discover, inspect, stream, transcript, importCommand, sessions, show, exportCommand])
)

const cli = Command.run(root, { name: "session-ingest", version: VERSION })

/** Exit code of an interrupted run (SIGINT / SIGTERM), as shells report a signal. */
const INTERRUPTED_EXIT = 130

/**
 * A command line @effect/cli could not parse: it has printed the problem on
 * stderr; with `--json` the envelope says it too, so stdout stays one JSON
 * document. Exit 2 (`INVALID_ARGUMENT`).
 */
const invalidCommandLine = (e: ValidationError.ValidationError) =>
  Effect.suspend(() => {
    setExitCode(2)
    if (!(process.argv.includes("--json") && !ValidationError.isHelpRequested(e) && "error" in e)) return Effect.void
    const message = HelpDoc.toAnsiText(e.error).replace(/\u001b\[[0-9;]*m/g, "").trim()
    const command = process.argv.slice(2).find((a) => !a.startsWith("-")) ?? "session-ingest"
    return Effect.map(errors, ({ InvalidArgument }) => {
      process.stdout.write(
        JSON.stringify(envelope(command, null, new InvalidArgument({ message, remediation: "See --help." }))) + "\n"
      )
    })
  })

/** True when `argv` asks for help (`--help` / `-h` before any `--`). */
const asksForHelp = (argv: ReadonlyArray<string>): boolean => {
  const end = argv.indexOf("--")
  const options = end < 0 ? argv : argv.slice(0, end)
  return options.includes("--help") || options.includes("-h")
}

/**
 * The command line @effect/cli parses: asked for help, it gets no `--json`
 * (whose envelope has no help in it), so `stream --json --help` shows the
 * help as `stream --help` does.
 */
const commandLine = (argv: ReadonlyArray<string>): Array<string> => {
  if (!asksForHelp(argv)) return [...argv]
  const end = argv.indexOf("--")
  return argv.filter((a, i) => !(a === "--json" && (end < 0 || i < end)))
}

/**
 * Help goes out without colour codes when stdout is not a terminal or
 * `NO_COLOR` is set (@effect/cli always colours it). Only for a help
 * request: other output is left exactly as written.
 */
const plainHelp = (argv: ReadonlyArray<string>): void => {
  if (!asksForHelp(argv)) return
  if (process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === "") return
  const write = process.stdout.write.bind(process.stdout) as (chunk: unknown, ...rest: Array<unknown>) => boolean
  process.stdout.write = ((chunk: unknown, ...rest: Array<unknown>) =>
    write(typeof chunk === "string" ? chunk.replace(/\u001b\[[0-9;]*m/g, "") : chunk, ...rest)) as typeof process.stdout.write
}

const program = Effect.suspend(() => {
  plainHelp(process.argv)
  return cli(commandLine(process.argv))
}).pipe(
  Effect.catchIf(ValidationError.isValidationError, invalidCommandLine),
  // What @effect/cli needs (FileSystem, Path, Terminal), not all of NodeContext: a faster start.
  Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer))
)

/**
 * Exit with `code` once stdout and stderr have handed over what was written to
 * them (at once where writes are synchronous: files, and pipes on Linux). The
 * program is done here, every scope closed; left to end by itself, Node would
 * first wait for V8's background compile jobs and free the heap (~30 ms of
 * `--help`).
 */
const exitWhenFlushed = (code: number) => {
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0)
  let left = pending.length
  if (left === 0) process.exit(code)
  for (const s of pending) s.write("", () => --left === 0 && process.exit(code))
}

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  teardown: (exit, onExit) => {
    if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
      process.stderr.write(
        "session-ingest: interrupted. Whatever was committed is consistent; run the same command again to finish.\n"
      )
      return onExit(INTERRUPTED_EXIT)
    }
    exitWhenFlushed(Exit.isSuccess(exit) ? getExitCode() : getExitCode() || 1)
  }
})
