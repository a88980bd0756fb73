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
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { exitCodeOf } from "../domain/error-codes.js"
import { shellWord } from "../domain/shell-word.js"
import { timeSliced } from "./scheduler.js"
import type { IngestError } from "../domain/errors.js"
import { discover } from "./commands/discover.js"
import { exportCommand } from "./commands/export.js"
import { importCommand } from "./commands/import.js"
import { indexCommand } from "./commands/index-admin.js"
import { pushCommand } from "./commands/push.js"
import { inspect } from "./commands/inspect.js"
import { providers } from "./commands/providers.js"
import { search } from "./commands/search.js"
import { replay } from "./commands/replay.js"
import { sessions } from "./commands/sessions.js"
import { show } from "./commands/show.js"
import { stream } from "./commands/stream.js"
import { transcript } from "./commands/transcript.js"
import { usage } from "./commands/usage.js"
import { mcp } from "./commands/mcp.js"
import { VERSION } from "./version.js"
import * as Registry from "../layers/registry.js"
import * as Help from "./help.js"
import { errors } from "./lazy.js"
import { EMPTY_VALUE } from "./options.js"
import {
  type CommandError,
  envelope,
  flushStdout,
  jsonText,
  PARTIAL_EXIT,
  renderError,
  stdoutWriteFailure,
  storageDefectsAsErrors,
  writeStderr,
  writeStdout
} from "./output.js"

const PROGRAM = "session-ingest"
const DESCRIPTION = `Discover, inspect and stream AI coding-agent sessions (${
  Registry.providers.map((m) => m.about.displayName).join(", ")
}) as one normalized, typed, resumable record.`

/** The commands, by the name a command line gives them. */
const commands = [
  ["providers", providers],
  ["discover", discover],
  ["inspect", inspect],
  ["stream", stream],
  ["transcript", transcript],
  ["import", importCommand],
  ["sessions", sessions],
  ["search", search],
  ["show", show],
  ["export", exportCommand],
  ["index", indexCommand],
  ["push", pushCommand],
  ["usage", usage],
  ["mcp", mcp],
  ["replay", replay]
] as const

/** How a command answers: its name (the envelope's `command`) and whether in JSON. */
interface Reply {
  readonly command: string
  readonly json: boolean
}

/** A run that failed: how it failed, and how its command answers (from the parsed options, else the command line). */
class Failed extends Data.TaggedError("Failed")<{ readonly reply: Reply; readonly error: CommandError }> {}

/**
 * A command whose failures carry its {@link Reply}, taken from its parsed
 * options (`--json`; `json` for a command with more ways to ask for JSON),
 * and whose storage defects are `StoreUnavailable` errors: what the top
 * ({@link conclude}) needs to print the failure and pick the exit code.
 */
const answering = <Name extends string, R, E extends CommandError, A>(
  name: Name,
  command: Command.Command<Name, R, E, A>,
  json: (o: A) => boolean = (o) => (o as { readonly json?: boolean }).json === true
) =>
  Command.transformHandler(command, (effect, o) =>
    effect.pipe(
      storageDefectsAsErrors,
      Effect.mapError((error) => new Failed({ reply: { command: name, json: json(o) }, error }))
    ))

const root = Command.make(PROGRAM).pipe(
  Command.withDescription(DESCRIPTION),
  Command.withSubcommands([
    answering("providers", providers),
    answering("discover", discover),
    answering("inspect", inspect),
    answering("stream", stream),
    answering("transcript", transcript, (o) => o.json || o.format === "json"),
    answering("import", importCommand),
    answering("sessions", sessions),
    answering("search", search),
    answering("show", show),
    answering("export", exportCommand),
    answering("index", indexCommand),
    answering("push", pushCommand),
    answering("usage", usage),
    answering("mcp", mcp, () => false),
    answering("replay", replay)
  ])
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
  if (text === EMPTY_VALUE) return `${emptyValueOwner(argv) ?? "A value"}: ${text}`
  const cases = /^Expected one of the following cases: (.+)$/.exec(text)
  if (cases !== null) return choiceProblem(argv, cases[1].split(", ")) ?? text
  const bad = /^'(.*)' is not an? (\w+)$/.exec(text)
  if (bad === null) return text
  const at = optionPart(argv).findIndex((a, i) => i > 0 && a === bad[1] && argv[i - 1].startsWith("-"))
  const kind = /^[aeiou]/.test(bad[2]) ? `an ${bad[2]}` : `a ${bad[2]}`
  return `${at > 0 ? `${argv[at - 1]}: ` : ""}'${bad[1]}' is not ${kind}.`
}

/**
 * The option or argument given an empty value (`--agent ""`, `--index=`,
 * an empty `<file>`), walking the command line as @effect/cli reads it;
 * `undefined` when none is found.
 */
const emptyValueOwner = (argv: ReadonlyArray<string>): string | undefined => {
  const named = commandNamed(argv)
  if (named === undefined) return undefined
  const parameters = Help.parametersOf(named[1])
  const positionals = parameters.filter((p) => p.positional)
  const words = optionPart(argv)
  for (let i = words.indexOf(named[0]) + 1, k = 0; i < words.length; i++) {
    const w = words[i]
    if (w.startsWith("-") && w !== "-") {
      const [name, inline] = w.includes("=") ? [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)] : [w, undefined]
      const p = parameters.find((q) => q.name === name)
      if (inline !== undefined) {
        if (inline === "") return name
      } else if (p?.takesValue === true) {
        if (words[i + 1] === "") return name
        i++
      } else if (p !== undefined && FLAG_VALUES.has(words[i + 1] ?? "")) i++
    } else {
      const p = positionals[Math.min(k++, positionals.length - 1)]
      if (w === "" && p !== undefined) return p.name
    }
  }
  return undefined
}

/** The words @effect/cli takes as the value of a flag (`--json false`). */
const FLAG_VALUES = new Set(["true", "false", "yes", "no", "on", "off", "1", "0", "y", "n"])

/**
 * A value outside the choices of an option or argument, said with its name,
 * the value given and the values it takes (`--format: 'html' is not one of
 * text, markdown, json.`): the parameter is the command's one whose choices
 * these are, the value found by walking the command line as @effect/cli
 * reads it. `undefined` when the command line names no such parameter.
 */
const choiceProblem = (argv: ReadonlyArray<string>, values: ReadonlyArray<string>): string | undefined => {
  const named = commandNamed(argv)
  if (named === undefined) return undefined
  const parameters = Help.parametersOf(named[1])
  const key = [...values].sort().join("\n")
  const owner = parameters.find((p) => p.choices !== undefined && [...p.choices].sort().join("\n") === key)
  if (owner === undefined) return undefined
  const words = optionPart(argv)
  const positionals = parameters.filter((p) => p.positional)
  let given: string | undefined
  for (let i = words.indexOf(named[0]) + 1, k = 0; i < words.length && given === undefined; i++) {
    const w = words[i]
    if (w.startsWith("-")) {
      const [name, inline] = w.includes("=") ? [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)] : [w, undefined]
      const p = parameters.find((q) => q.name === name)
      if (inline !== undefined) {
        if (p === owner) given = inline
      } else if (p?.takesValue === true) {
        if (p === owner) given = words[i + 1]
        i++
      } else if (p !== undefined && FLAG_VALUES.has(words[i + 1] ?? "")) i++
    } else if (positionals[k++] === owner) given = w
  }
  return `${owner.name}: ${given !== undefined ? `'${given}' is` : "the value is"} not one of ${values.join(", ")}.`
}

/**
 * A command line @effect/cli could not parse (its own printing of the problem
 * is silenced, see {@link run}): an `INVALID_ARGUMENT` whose remedy is the
 * command's `--help`, answered as {@link conclude} answers any error (on
 * stderr as `session-ingest: INVALID_ARGUMENT: <problem>` and
 * `  remedy: Run \`session-ingest <command> --help\`.`, or with `--json` as
 * the one envelope on stdout). Exit 2.
 */
const invalidCommandLine = (argv: ReadonlyArray<string>) => (e: ValidationError.ValidationError) =>
  refuseCommandLine(argv, problemOf(argv, e))

/** {@link invalidCommandLine} for a problem we name ourselves. */
const refuseCommandLine = (argv: ReadonlyArray<string>, message: string, remedy?: string): Effect.Effect<never, Failed> =>
  Effect.flatMap(errors, ({ InvalidArgument }) => {
    const named = commandNamed(argv)
    const remediation = remedy ?? `Run \`${PROGRAM}${named !== undefined ? ` ${named[0]}` : ""} --help\`.`
    return Effect.fail(new Failed({ reply: replyOf(argv), error: new InvalidArgument({ message, remediation }) }))
  })

/**
 * An option that takes a value but is given none: last on the command line
 * (`import --agent $EMPTY`), or followed by another option (`--muse-root
 * --json`). @effect/cli reads a repeated one as given zero times, and a daily
 * job would then run without what it names. `undefined` when every such
 * option has its value. A negative number (`--limit -1`) is a value.
 */
const valuelessOption = (argv: ReadonlyArray<string>): string | undefined => {
  const named = commandNamed(argv)
  if (named === undefined) return undefined
  const takesValue = new Set(Help.parametersOf(named[1]).filter((p) => !p.positional && p.takesValue).map((p) => p.name))
  const words = optionPart(argv)
  for (let i = 0; i < words.length; i++) {
    if (!takesValue.has(words[i])) continue
    const next = words[i + 1]
    if (next === undefined || (next.startsWith("-") && next !== "-" && !/^-\d/.test(next))) return words[i]
    i++
  }
  return undefined
}

/**
 * An option given more than once where it takes one value (or, a flag, is
 * given once at most), said as the problem and its remedy; `undefined` when
 * there is none. @effect/cli reads the second one as no option of the command:
 * from there on every word would be an argument (`search the --limit 3
 * --limit 5` searched for "the --limit 5", and `search --limit 3 --limit 5
 * the --index D` dropped `--index`), or, for a command without arguments,
 * refused it as an "unknown argument". So it is refused, for every command,
 * before @effect/cli reads the line: no value is chosen for the user, a
 * search never runs on an index or a provider it was not asked for
 * (tester32a F2, F3). Only the words before `--` are options; a repeatable
 * option (`--muse-root`, `--agent`) may be given any number of times.
 */
const repeatedOption = (argv: ReadonlyArray<string>): { readonly problem: string; readonly remedy: string } | undefined => {
  const named = commandNamed(argv)
  if (named === undefined) return undefined
  const parameters = Help.parametersOf(named[1]).filter((p) => !p.positional)
  const words = optionPart(argv)
  const given = new Map<Help.Parameter, Array<string | undefined>>()
  for (let i = words.indexOf(named[0]) + 1; i < words.length; i++) {
    const w = words[i]
    const eq = w.startsWith("--") ? w.indexOf("=") : -1
    const p = parameters.find((q) => q.name === (eq > 0 ? w.slice(0, eq) : w))
    if (p === undefined) continue
    const next = words[i + 1]
    const value = eq > 0
      ? w.slice(eq + 1)
      : next !== undefined && (p.takesValue || FLAG_VALUES.has(next))
      ? words[++i]
      : undefined
    const values = given.get(p) ?? []
    values.push(value)
    given.set(p, values)
    if (values.length < 2 || p.repeatable) continue
    // Count them all, so the problem names every value given.
    for (let j = i + 1; j < words.length; j++) {
      const e = words[j].startsWith("--") ? words[j].indexOf("=") : -1
      if ((e > 0 ? words[j].slice(0, e) : words[j]) !== p.name) continue
      values.push(e > 0 ? words[j].slice(e + 1) : p.takesValue || FLAG_VALUES.has(words[j + 1] ?? "") ? words[++j] : undefined)
    }
    const shown = values.filter((v): v is string => v !== undefined).map(shellWord)
    const help = `see \`${PROGRAM} ${named[0]} --help\``
    return p.takesValue
      ? {
        problem: `${p.name} is given ${values.length} times (${shown.join(", ")}), and it takes one value: none of them is chosen.`,
        remedy: `Give ${p.name} once, with the value you mean (an alias or a script that already sets it counts; ${help}).`
      }
      : {
        problem: `${p.name} is given ${values.length} times${shown.length > 0 ? ` (${shown.join(", ")})` : ""}, and it is a switch given at most once.`,
        remedy: `Give ${p.name} once (an alias or a script that already sets it counts; ${help}).`
      }
  }
  return undefined
}

/**
 * An option that @effect/cli would read as an argument, said as the
 * problem and its remedy; `undefined` when there is none. @effect/cli reads
 * a command's options wherever they are on the line, until it meets an
 * argument that starts with `-` and is no option of the command (a bare
 * `-` included): from there on, every word is an argument (`search -foo
 * --limit 5` would search for `-foo --limit 5`, `search - foo --json` for
 * `- foo --json`). And after `--` every word is an argument (the POSIX
 * rule). So an option of the command after such a word, or after `--`, is
 * refused, never searched for or read as a file, with the command line that
 * does what was meant: the options first, then `--`, then the arguments.
 */
const optionAmongArguments = (argv: ReadonlyArray<string>): { readonly problem: string; readonly remedy: string } | undefined => {
  const named = commandNamed(argv)
  if (named === undefined) return undefined
  const all = Help.parametersOf(named[1])
  // Without arguments a stray word is an unknown option or argument, which @effect/cli refuses itself.
  if (!all.some((p) => p.positional)) return undefined
  const parameters = all.filter((p) => !p.positional)
  const optionOf = (w: string) => parameters.find((p) => p.name === (w.startsWith("--") && w.includes("=") ? w.slice(0, w.indexOf("=")) : w))
  const dash = argv.indexOf("--")
  const words = optionPart(argv)
  const start = words.indexOf(named[0]) + 1
  // Walk the line as @effect/cli does: options (with their values) until the first argument.
  const options: Array<string> = []
  const args: Array<string> = []
  let stray: string | undefined
  let misplaced: string | undefined
  for (let i = start; i < words.length; i++) {
    const w = words[i]
    const p = optionOf(w)
    if (p !== undefined) {
      if (stray !== undefined) misplaced ??= w
      options.push(w)
      const next = words[i + 1]
      if (!w.includes("=") && next !== undefined && (p.takesValue || FLAG_VALUES.has(next))) options.push(words[++i])
      continue
    }
    // A bare `-` too: @effect/cli reads every word after it as an argument, as after `-word` (tester12 F7).
    if (args.length === 0 && w.startsWith("-")) stray = w
    args.push(w)
  }
  const after = dash < 0 ? [] : argv.slice(dash + 1)
  const late = after.find((w) => optionOf(w) !== undefined)
  if (misplaced === undefined && late === undefined) return undefined
  // What was meant: every option of the command, then `--`, then the other words.
  for (let i = 0; i < after.length; i++) {
    const p = optionOf(after[i])
    if (p === undefined) {
      args.push(after[i])
      continue
    }
    options.push(after[i])
    if (!after[i].includes("=") && p.takesValue && i + 1 < after.length) options.push(after[++i])
  }
  const meant = [PROGRAM, named[0], ...options, "--", ...args].map(shellWord).join(" ")
  return misplaced !== undefined
    ? {
      problem: `${misplaced} comes after ${stray}, an argument that starts with "-", so it would be read as an argument, not as an option.`,
      remedy: `Put the options first and the arguments after \`--\`: \`${meant}\` (see \`${PROGRAM} ${named[0]} --help\`).`
    }
    : {
      problem: `${late} comes after \`--\`, so it would be read as an argument, not as an option.`,
      remedy: `Put the options before \`--\`: \`${meant}\` (a word that is one of them, quoted, is an argument: '"${late}"'; see \`${PROGRAM} ${named[0]} --help\`).`
    }
}

/**
 * The {@link Reply} the command line asks for, when its options were not
 * parsed: the command it names, and `--json` among its options.
 */
const replyOf = (argv: ReadonlyArray<string>): Reply => {
  const command = commandNamed(argv)?.[0] ?? PROGRAM
  // `mcp`'s stdout carries only the protocol, and it has no --json: its refusals go to stderr (tester19 F13).
  return { command, json: command !== "mcp" && optionPart(argv).includes("--json") }
}

/** The run of a command line: help, or the command it names; it fails with {@link Failed}. */
const run: Effect.Effect<void, Failed> = Effect.suspend(() => {
  const argv = process.argv.slice(2)
  const help = helpFor(argv)
  if (help !== undefined) return writeStdout(help).pipe(Effect.ignore)
  // @effect/cli's interactive wizard and its log level are not part of this CLI: the wizard would prompt, in colour, on a pipe.
  const builtIn = optionPart(argv).find((a) => a === "--wizard" || a === "--log-level" || a.startsWith("--log-level="))
  if (builtIn !== undefined) {
    return refuseCommandLine(argv, `Received unknown argument: '${builtIn.split("=")[0]}' (session-ingest has no such option).`)
  }
  const repeated = repeatedOption(argv)
  if (repeated !== undefined) return refuseCommandLine(argv, repeated.problem, repeated.remedy)
  const misplaced = optionAmongArguments(argv)
  if (misplaced !== undefined) return refuseCommandLine(argv, misplaced.problem, misplaced.remedy)
  const valueless = valuelessOption(argv)
  if (valueless !== undefined) return refuseCommandLine(argv, `Expected a value following option ${valueless}.`)
  // Every value names a path, an id, a token or a date: an empty one is refused, never read as "nothing
  // there" (@effect/cli drops an empty value of a repeated option; options.ts refuses the others too).
  const empty = emptyValueOwner(argv)
  if (empty !== undefined) return refuseCommandLine(argv, `${empty}: ${EMPTY_VALUE}`)
  // @effect/cli prints a command line's problem itself (Console.error), in its own words: ours replace them.
  return Effect.consoleWith((console) =>
    cli(process.argv).pipe(
      // Its own output (`--version`, `--completions`) takes the one stdout path, whose failures end as exit 7.
      Effect.withConsole({ ...console, log: (...args) => Effect.ignore(writeStdout(args.join(" ") + "\n")), error: () => Effect.void }),
      Effect.catchIf(ValidationError.isValidationError, invalidCommandLine(argv)),
      // Every command is `answering`, so its errors come as `Failed`; @effect/cli's types still name the
      // handlers' own errors, which would be answered as the command line asks.
      Effect.mapError((e) => e instanceof Failed ? e : new Failed({ reply: replyOf(argv), error: e }))
    )
  )
}).pipe(
  // What @effect/cli needs (FileSystem, Path, Terminal), not all of NodeContext: a faster start.
  Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer))
)

/** Print an error as its command answers: the envelope on stdout with `--json`, else two lines on stderr. */
const printError = (reply: Reply, error: IngestError): Effect.Effect<void> =>
  reply.json
    ? writeStdout(jsonText(envelope(reply.command, null, error)) + "\n").pipe(Effect.ignore)
    : Effect.sync(() => writeStderr(renderError(error)))

/**
 * The one place a run's end is turned into what the user sees and the exit
 * code (DESIGN.md, "Errors"): success 0; an error of the family printed
 * ({@link printError}) with its code's exit (2–7); partial coverage 8 (its
 * report is printed already); a reader of stdout that went away 0. Then,
 * when stdout itself could not be written, `OUTPUT_WRITE_FAILED` on stderr,
 * exit 7. An interruption (130, see the teardown) or a defect (a bug: 1)
 * passes through.
 */
const conclude = (exit: Exit.Exit<void, Failed>): Effect.Effect<number, never> =>
  Effect.gen(function*() {
    let code = 0
    if (Exit.isFailure(exit)) {
      const failure = Cause.failureOption(exit.cause)
      if (Option.isNone(failure)) {
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
        return yield* defect(exit.cause)
      }
      code = yield* answer(failure.value)
    }
    yield* flushStdout
    const stdoutFailed = code === exitCodeOf.OUTPUT_WRITE_FAILED ? undefined : yield* stdoutWriteFailure
    if (stdoutFailed === undefined) return code
    writeStderr(renderError(stdoutFailed))
    return exitCodeOf.OUTPUT_WRITE_FAILED
  })

/** The exit code of a run that ended on a defect (a bug of session-ingest, not of its input): README "Exit codes". */
const DEFECT_EXIT = 1

/**
 * A defect (a bug: an exception no typed error stands for) answered as every
 * error is (README "Exit codes": one line naming the problem with its code,
 * one with the remedy, never a stack trace; with `--json` the envelope, code
 * `INTERNAL_ERROR`), on stderr, exit 1, instead of Effect's logger printing
 * the stack trace to stdout (into the file or pipe that waited for ATIF or
 * HTML: tester20 F6). `SESSION_INGEST_DEBUG=1` adds the stack (stderr).
 */
const defect = (cause: Cause.Cause<unknown>): Effect.Effect<number> =>
  Effect.sync(() => {
    const d = Cause.squash(cause)
    const what = d instanceof Error ? `${d.name}: ${d.message}` : String(d)
    const message = `session-ingest failed on a bug of its own (${what.replace(/\s+/g, " ").slice(0, 300)}); nothing was written to the sources.`
    const remediation = "Report it with the command line; run it again with SESSION_INGEST_DEBUG=1 to see where it failed."
    const reply = replyOf(process.argv.slice(2))
    if (reply.json) {
      process.stdout.write(JSON.stringify({ ...envelope(reply.command, null, null), status: "error", error: { code: "INTERNAL_ERROR", message, remediation } }) + "\n")
    }
    process.stderr.write(`session-ingest: INTERNAL_ERROR: ${message}\n  remedy: ${remediation}\n`)
    if (process.env.SESSION_INGEST_DEBUG === "1") process.stderr.write(Cause.pretty(cause) + "\n")
    return DEFECT_EXIT
  })

/** The exit code of a failed run, its error printed as its command answers. */
const answer = ({ error, reply }: Failed): Effect.Effect<number> =>
  Effect.fail(error).pipe(
    Effect.catchTags({
      // The report, partial, is printed already.
      PartialCoverage: () => Effect.succeed(PARTIAL_EXIT),
      // Its reader went away (`| head`): nothing to say.
      StdoutClosed: () => Effect.succeed(0)
    }),
    Effect.catchAll((e) => Effect.as(printError(reply, e), exitCodeOf[e.code]))
  )

/** What `bin/early-signals.mjs` remembers of a signal received before the runtime took over. */
interface EarlySignal {
  readonly signal: string | undefined
  readonly listener: (signal: string) => void
}
const earlySignal = (globalThis as Record<symbol, EarlySignal | undefined>)[Symbol.for("session-ingest.early-signal")]

/** A run signalled before it started ends as interrupted (exit 130, see the teardown), as one signalled later does. */
const program = Effect.suspend(() => earlySignal?.signal !== undefined ? Effect.interrupt : timeSliced(run)).pipe(
  Effect.exit,
  Effect.flatMap(conclude)
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
      const reply = replyOf(process.argv.slice(2))
      // The MCP server reads only and has nothing to finish (tester28a F11): it is started again, not run to its end.
      const message = reply.command === "mcp"
        ? "Interrupted; the MCP server stopped (it reads the index and writes nothing: the index is as it was)."
        : "Interrupted; whatever was committed is consistent."
      const remediation = reply.command === "mcp"
        ? "Nothing to finish: start the server again (your MCP client starts it when it reconnects) if it was not meant to stop."
        : "Run the same command again to finish."
      // With --json, stdout still answers with one envelope (code INTERRUPTED, exit 130).
      if (reply.json) {
        process.stdout.write(JSON.stringify({ ...envelope(reply.command, null, null), status: "error", error: { code: "INTERRUPTED", message, remediation } }) + "\n")
      }
      // The README's two lines of an error, on stderr with or without --json.
      process.stderr.write(`session-ingest: INTERRUPTED: ${message}\n  remedy: ${remediation}\n`)
      return onExit(INTERRUPTED_EXIT)
    }
    // A failure here is a defect (a bug), reported by runMain: exit 1.
    exitWhenFlushed(Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : 1)
  }
})
// runMain listens for SIGINT / SIGTERM now: the early listener steps aside (a second Ctrl-C
// during the teardown is Node's again). A signal it already remembered ends the run (`program`).
if (earlySignal !== undefined) {
  process.removeListener("SIGINT", earlySignal.listener)
  process.removeListener("SIGTERM", earlySignal.listener)
  process.removeListener("SIGHUP", earlySignal.listener)
}
// SIGHUP (the terminal closed, an SSH session dropped: what a watch left running in a terminal gets) ends a run as
// SIGTERM does, through runMain's own handler: interrupted, exit 130, its lock and temporary files removed (tester39
// F12: Node's default killed it at once, silent, leaving `<index>.lock` and an `--out` file's `.tmp`). The terminal may
// be gone: a failed write of the closing lines to it is let go.
process.once("SIGHUP", () => {
  process.stderr.on("error", () => {})
  process.kill(process.pid, "SIGTERM")
})
