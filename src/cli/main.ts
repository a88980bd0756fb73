/**
 * The `session-ingest` CLI entry: a thin `@effect/cli` shell over the library.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
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
import * as Help from "./help.js"
import { errors } from "./lazy.js"
import { envelope, getExitCode, jsonText, renderError, setExitCode, writeStderr, writeStdout } from "./output.js"

const VERSION = "0.1.0"
const PROGRAM = "session-ingest"
const DESCRIPTION =
  "Discover, inspect and stream AI coding-agent sessions (Muse Code, Muse agents, AgentMux) as one normalized, typed, resumable record."

/** The commands, by the name a command line gives them. */
const commands = [
  ["providers", providers],
  ["discover", discover],
  ["inspect", inspect],
  ["stream", stream],
  ["transcript", transcript],
  ["import", importCommand],
  ["sessions", sessions],
  ["show", show],
  ["export", exportCommand]
] as const

const root = Command.make(PROGRAM).pipe(
  Command.withDescription(DESCRIPTION),
  Command.withSubcommands([providers, discover, inspect, stream, transcript, importCommand, sessions, show, exportCommand])
)

const cli = Command.run(root, { name: PROGRAM, version: VERSION })

/** Exit code of an interrupted run (SIGINT / SIGTERM), as shells report a signal. */
const INTERRUPTED_EXIT = 130

/** The arguments before `--` (after it everything is a value). */
const optionPart = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const end = argv.indexOf("--")
  return end < 0 ? argv : argv.slice(0, end)
}

/** The command a command line names (its first word that is a command's name), if any. */
const commandNamed = (argv: ReadonlyArray<string>) => {
  const name = optionPart(argv).find((a) => !a.startsWith("-"))
  return commands.find(([n]) => n === name)
}

/** True when `argv` asks for help (`--help` / `-h` before any `--`). */
const asksForHelp = (argv: ReadonlyArray<string>): boolean => {
  const options = optionPart(argv)
  return options.includes("--help") || options.includes("-h")
}

/**
 * The help a command line asks for (`--help` / `-h`, or no arguments at
 * all): the named command's, else the program's; `undefined` when it asks
 * for none. Rendered by `./help.ts` (brackets for optional options, wrapped
 * to the terminal, colour only on a terminal without `NO_COLOR`), never as
 * a `--json` envelope, which has no help in it.
 */
const helpFor = (argv: ReadonlyArray<string>): string | undefined => {
  if (argv.length > 0 && !asksForHelp(argv)) return undefined
  const style = Help.stdoutStyle()
  const named = commandNamed(argv)
  return named === undefined
    ? Help.rootHelp(PROGRAM, VERSION, DESCRIPTION, commands.map(([, c]) => c), style)
    : Help.commandHelp(PROGRAM, named[1], style)
}

/**
 * @effect/cli's problem text, as one line: its paragraphs joined, and a bad
 * value named with its option (`--limit: 'abc' is not an integer.`).
 */
const problemOf = (argv: ReadonlyArray<string>, e: ValidationError.ValidationError): string => {
  const text = "error" in e ? Help.docText(e.error) : "The command line does not parse."
  const bad = /^'(.*)' is not an? (\w+)$/.exec(text)
  if (bad === null) return text
  const at = optionPart(argv).findIndex((a, i) => i > 0 && a === bad[1] && argv[i - 1].startsWith("-"))
  const kind = /^[aeiou]/.test(bad[2]) ? `an ${bad[2]}` : `a ${bad[2]}`
  return `${at > 0 ? `${argv[at - 1]}: ` : ""}'${bad[1]}' is not ${kind}.`
}

/**
 * A command line @effect/cli could not parse (its own printing of the problem
 * is silenced, see {@link program}): one error in the README's format, on
 * stderr as `session-ingest: INVALID_ARGUMENT: <problem>` and
 * `  remedy: Run \`session-ingest <command> --help\`.`, or with `--json` as
 * the one envelope on stdout. Exit 2.
 */
const invalidCommandLine = (argv: ReadonlyArray<string>) => (e: ValidationError.ValidationError) =>
  refuseCommandLine(argv, problemOf(argv, e))

/** {@link invalidCommandLine} for a problem we name ourselves. */
const refuseCommandLine = (argv: ReadonlyArray<string>, message: string) =>
  Effect.suspend(() => {
    setExitCode(2)
    const named = commandNamed(argv)
    const remediation = `Run \`${PROGRAM}${named !== undefined ? ` ${named[0]}` : ""} --help\`.`
    return Effect.map(errors, ({ InvalidArgument }) => {
      const error = new InvalidArgument({ message, remediation })
      if (optionPart(argv).includes("--json")) {
        process.stdout.write(jsonText(envelope(named?.[0] ?? PROGRAM, null, error)) + "\n")
      } else {
        writeStderr(renderError(error))
      }
    })
  })

const program = Effect.suspend(() => {
  const argv = process.argv.slice(2)
  const help = helpFor(argv)
  if (help !== undefined) return writeStdout(help).pipe(Effect.ignore)
  // @effect/cli's interactive wizard is not part of this CLI: on a pipe or in CI it would print colour codes and fail.
  if (optionPart(argv).includes("--wizard")) {
    return refuseCommandLine(argv, "Received unknown argument: '--wizard' (session-ingest has no wizard mode).")
  }
  // @effect/cli prints a command line's problem itself (Console.error), in its own words: ours replace them.
  return Effect.consoleWith((console) =>
    cli(process.argv).pipe(
      Effect.withConsole({ ...console, error: () => Effect.void }),
      Effect.catchIf(ValidationError.isValidationError, invalidCommandLine(argv))
    )
  )
}).pipe(
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
