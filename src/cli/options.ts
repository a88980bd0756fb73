/**
 * Options shared by the CLI's commands (`@effect/cli`). Only parsing: what an
 * option means is the library's business.
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ProviderId } from "../domain/model.js"
import type { Setting } from "../layers/provider.js"
import * as Registry from "../layers/registry.js"

/**
 * The problem of an empty value, as `@effect/cli` reports it (the CLI's
 * error names the option or argument it was given to:
 * `--agent: the value is empty.`).
 */
export const EMPTY_VALUE = "the value is empty."

/**
 * The problem of a value that is empty or starts with `--`. In an option's
 * value, an option before it lacks its value or is given twice; where a
 * positional argument is expected (`positional`), it is more often an
 * option the command does not have (tester40 F5: `inspect --config` was told
 * "an option before it lacks its value"), which `@effect/cli` hands to the
 * argument as a value.
 */
const optionLike = (v: string, positional = false): HelpDoc.HelpDoc | undefined =>
  v.length === 0
    ? HelpDoc.p(EMPTY_VALUE)
    : v.startsWith("--")
    ? HelpDoc.p(
      positional
        ? `"${v}" looks like an option, not a value: this command has no such option (see its --help), or an option before it lacks its value.`
        : `"${v}" looks like an option, not a value: an option before it lacks its value, or is given twice where it is not repeatable.`
    )
    : undefined

/**
 * A text option whose value may be neither empty nor start with `--`: every
 * text option names a path, an id, a token or a date, and `--agent ""` or
 * `--agents-root "$UNSET"` read as "nothing there" (or as the working
 * directory) would make a daily job run on something else than it names;
 * `--agent --index x` would take `--index` as the agent, and the words after
 * it as files. (A path that starts with `--` can be written `./--name`.)
 */
export const plainValue = (self: Options.Options<string>): Options.Options<string> =>
  Options.mapEffect(self, (v) => {
    const problem = optionLike(v)
    return problem === undefined ? Effect.succeed(v) : Effect.fail(ValidationError.invalidValue(problem))
  })

/** {@link plainValue} for a repeated option (`Options.repeated` needs the plain option under it). */
export const plainValues = (self: Options.Options<Array<string>>): Options.Options<Array<string>> =>
  Options.mapEffect(self, (vs) => {
    const problem = vs.map((v) => optionLike(v)).find((p) => p !== undefined)
    return problem === undefined ? Effect.succeed(vs) : Effect.fail(ValidationError.invalidValue(problem))
  })

/** {@link plainValue} for a positional argument (not empty, not option-like). */
export const plainArg = (self: Args.Args<string>): Args.Args<string> =>
  Args.mapEffect(self, (v) => {
    const problem = optionLike(v, true)
    return problem === undefined ? Effect.succeed(v) : Effect.fail(problem)
  })

/** `--json`: print one JSON envelope (DESIGN.md) instead of text. */
export const json = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON envelope {contractVersion, command, status, data, error} on stdout.")
)

/** `--local`: times for people in the local zone (`TZ`) with their offset, instead of UTC with `Z`. */
export const local = Options.boolean("local").pipe(
  Options.withDescription("Show times in the local zone (TZ) with their offset, instead of UTC (Z). JSON is always UTC.")
)

/** `--workspace DIR` (repeatable; default: the working directory). */
export const workspace = Options.text("workspace").pipe(
  Options.withPseudoName("DIR"),
  Options.repeated,
  plainValues,
  Options.withDescription(
    "Authorized workspace root (repeatable; default: the working directory). Explicit files must lie under one; native Muse discovery selects logs whose evidence names one."
  )
)

/** `--agent UID`. */
export const agent = Options.text("agent").pipe(
  plainValue,
  Options.withPseudoName("UID"),
  Options.optional,
  Options.withDescription("AgentMux agent UID whose own zones are read.")
)

/** `--session SID`. */
export const session = Options.text("session").pipe(
  plainValue,
  Options.withPseudoName("SID"),
  Options.optional,
  Options.withDescription("Session id to select inside a store that holds many (AgentMux).")
)

/** `--locator-class CLASS`: one of the registered providers' locator classes (a choice: any other value does not parse). */
export const locatorClass = Options.choice("locator-class", Registry.locatorClasses).pipe(
  Options.optional,
  Options.withDescription(
    `How the file was acquired: ${Registry.locatorClasses.join(", ")} (default: what the provider reads that file as, e.g. muse-code: muse-native-session-log for a session.jsonl, else manual-export).`
  )
)

/** `--cursor TOKEN`. */
export const cursor = Options.text("cursor").pipe(
  plainValue,
  Options.withPseudoName("TOKEN"),
  Options.optional,
  Options.withDescription("Resume right after the event that carried this cursor.")
)

/**
 * An option whose value is a whole number written in decimal digits, with
 * an optional minus sign (so a range check after it can say what it takes):
 * `0x2`, `0b11`, `0o7`, `1e3`, `1.5`, `+2`, ` 3`, `1_0` are refused, which
 * `Options.integer` (JavaScript's `Number`) would read as 2, 3, 7, 1000…
 * (tester19 F3: `--limit 1e3` silently meant 1000). `INVALID_ARGUMENT`
 * (exit 2) naming the option and the value given; `what` names the unit
 * ("events", "sessions"…).
 */
export const decimalInteger = (name: string, what: string) =>
  Options.text(name).pipe(
    Options.withSchema(
      Schema.compose(Schema.String.pipe(Schema.filter((s) => /^-?[0-9]{1,15}$/.test(s))), Schema.NumberFromString).annotations({
        message: (issue) => ({ message: `--${name} takes a whole number of ${what} in decimal digits (got ${JSON.stringify(issue.actual)})`, override: true })
      })
    )
  )

/** `--limit N`. */
export const limit = decimalInteger("limit", "events").pipe(
  Options.withPseudoName("N"),
  Options.filterMap((n) => (n >= 0 ? Option.some(n) : Option.none()), "--limit takes a whole number of events, 0 or more"),
  Options.optional,
  Options.withDescription("Stop after N events.")
)

/** `--include-subagents`. */
export const includeSubagents = Options.boolean("include-subagents").pipe(
  Options.withDescription("Muse Code native: also stream nested subagent/<child>/session.jsonl logs.")
)

/** The registered provider ids, as `[name, value]` choices. */
const providerChoices = Registry.providerIds.map((p): [string, ProviderId] => [p, p])

/** `<provider>` argument: one of the registered provider ids (a choice: any other value does not parse). */
export const provider = Args.choice(providerChoices, { name: "provider" }).pipe(
  Args.withDescription(`Provider id: ${Registry.providerIds.join(", ")} (see \`session-ingest providers\`).`)
)

/** `--provider P`: only this provider (a choice of the registered provider ids). */
export const providerFilter = Options.choice("provider", Registry.providerIds).pipe(
  Options.optional,
  Options.withDescription("Only this provider.")
)

/** `[file]` argument (optional: store-based providers select by --agent/--session). */
export const file = Args.text({ name: "file" }).pipe(
  plainArg,
  Args.optional,
  Args.withDescription("The source file (a muse export, a session.jsonl, a transcript .jsonl).")
)

/** `--index FILE|URL`: the index: a SQLite file, or a team's PostgreSQL index (`postgres://…`). */
export const index = Options.text("index").pipe(
  plainValue,
  Options.withPseudoName("FILE|URL"),
  Options.optional,
  Options.withDescription(
    "The index: a SQLite file (default: $XDG_DATA_HOME/session-ingest/index.db), or a team's PostgreSQL index, postgres://user:password@host:port/database."
  )
)

/**
 * What a machine name may not hold (tester33b F6, tester33c F5), by Unicode property rather than a hand list:
 * control characters (`\p{Cc}`: C0 with tab and line feed, DEL, C1), the line and paragraph separators (`\p{Zl}`,
 * `\p{Zp}`), format characters (`\p{Cf}`: the bidirectional overrides, isolates and marks U+202A-U+202E,
 * U+2066-U+2069, U+200E, U+200F, U+061C, the zero-width U+200B-U+200D, U+FEFF, U+00AD, ...), spaces other than U+0020
 * (`\p{Zs}`: U+00A0, U+2000-U+200A, U+202F, U+3000, ...) and the other default-ignorable code points (Hangul fillers,
 * variation selectors, tags). The name is written into a shared index, where every teammate's `sessions`, `search` and
 * MCP answers show it: such a character hides, or makes one name look like another.
 */
const MACHINE_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u

/** The longest machine name, in characters: a DNS host name's 253, rounded up. */
const MACHINE_NAME_MAX = 255

const MACHINE_RULE = `it is written into the team index for everyone to read. Use a name such as a host name (letters, digits, '.', '-', '_').`

/** A character as the refusal names it: `\xHH` below U+0100, else `\uHHHH` (`\u{HHHHH}` past the BMP). */
const escapedChar = (ch: string): string => {
  const code = ch.codePointAt(0)!
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : code < 0x10000
    ? `\\u${code.toString(16).padStart(4, "0")}`
    : `\\u{${code.toString(16)}}`
}

/**
 * The problem of a machine name (`import --machine`, `push --machine`), or undefined when it is one: no character of
 * {@link MACHINE_FORBIDDEN}, not blank, no space at either end (`"m1 "` would list as another machine that reads as
 * `m1`), in Unicode's composed form (NFC), at most {@link MACHINE_NAME_MAX} characters. Letters of another script
 * that look like Latin ones (Cyrillic `а` for `a`) are not told apart: no confusables table is kept. The message names the first such character, escaped, and where it is (in characters, from 1).
 */
export const machineNameProblem = (name: string): string | undefined => {
  const m = MACHINE_FORBIDDEN.exec(name)
  if (m !== null) {
    const at = [...name.slice(0, m.index)].length + 1
    return `a machine name may not hold control characters, line breaks or bidirectional controls, nor invisible characters or spaces other than U+0020 (${
      escapedChar(m[0])
    } at character ${at}): ${MACHINE_RULE}`
  }
  if (name.length > 0 && name.trim() === "") return `a machine name may not be blank (only spaces): ${MACHINE_RULE}`
  // `café` written composed (U+00E9) and decomposed (e + U+0301) read the same and would be two machines
  // (tester34c F6): the name is taken in Unicode's composed form (NFC) only, never changed silently.
  if (name.normalize("NFC") !== name) {
    return `a machine name must be written in Unicode's composed form (NFC): it holds a decomposed character (a letter and its combining mark, such as e + U+0301, where one composed character reads the same): ${MACHINE_RULE}`
  }
  if ([...name].length > MACHINE_NAME_MAX) {
    return `a machine name may be at most ${MACHINE_NAME_MAX} characters (a host name's length), not ${[...name].length}: ${MACHINE_RULE}`
  }
  if (name.startsWith(" ")) return `a machine name may not begin with a space (character 1): ${MACHINE_RULE}`
  if (name.endsWith(" ")) return `a machine name may not end with a space (character ${[...name].length}): ${MACHINE_RULE}`
  return undefined
}

/** `--machine NAME`: the machine an import's sources are keyed by in a PostgreSQL index (default: the host name). */
export const machine = Options.text("machine").pipe(
  plainValue,
  Options.mapEffect((v) => {
    const problem = machineNameProblem(v)
    return problem === undefined ? Effect.succeed(v) : Effect.fail(ValidationError.invalidValue(HelpDoc.p(problem)))
  }),
  Options.withPseudoName("NAME"),
  Options.optional,
  Options.withDescription(
    "The machine the sources are on, in a PostgreSQL index shared by several (default: this host's name): the same path on two machines is two sources. A SQLite index is one machine's and ignores it. The name is shown to every teammate: no control, format or invisible characters, no space other than U+0020 and none at either end, composed (NFC), at most 255 characters."
  )
)

/**
 * `--machine NAME` of `sessions` and `search`: only the sessions of that machine's sources in a team index
 * (the name `import --machine` / `push --machine` wrote them as; exact). Not `import`'s {@link machine}, which
 * names the machine to write as. A SQLite index names no machines: `INVALID_ARGUMENT` there (`machineFilter`).
 */
export const machineFilter = Options.text("machine").pipe(
  plainValue,
  Options.withPseudoName("NAME"),
  Options.optional,
  Options.withDescription(
    "Only sessions from this machine, as a team's PostgreSQL index names it (the --machine they were imported or pushed with; exact). A SQLite index is one machine's and names none."
  )
)

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/** The CLI parameter of one setting: a repeated option (list), an optional one (single value), or a repeated argument. */
type ParameterOf<S extends Setting> = S["positional"] extends true ? Args.Args<Array<string>>
  : S["many"] extends true ? Options.Options<Array<string>>
  : Options.Options<Option.Option<string>>

/** The parameters of the registered providers' settings that go on commands of kind `On`, by setting key. */
export type ProviderParameters<On extends Setting["on"]> = UnionToIntersection<
  (typeof Registry.providers)[number] extends infer M ? M extends { readonly settings: infer S extends Record<string, Setting> } ? {
        readonly [K in keyof S as S[K]["on"] extends On ? K : never]: ParameterOf<S[K]>
      }
    : never
    : never
>

/**
 * The CLI parameter of a provider setting (see `Setting` in
 * `src/layers/provider.ts`): `--<flag> <pseudo>`, repeatable for a list,
 * optional for a single value; a positional setting is the repeated
 * argument `<flag>`. Values may not look like options.
 */
export const parameterOf = (s: Setting): Options.Options<Array<string>> | Options.Options<Option.Option<string>> | Args.Args<Array<string>> =>
  s.positional === true
    ? Args.text({ name: s.flag }).pipe(plainArg, Args.repeated, Args.withDescription(s.description))
    : s.many
    ? Options.text(s.flag).pipe(Options.withPseudoName(s.pseudo), Options.repeated, plainValues, Options.withDescription(s.description))
    : Options.text(s.flag).pipe(plainValue, Options.withPseudoName(s.pseudo), Options.optional, Options.withDescription(s.description))

/** The parameters of the given settings that go on commands of kind `on`, by key, in order. */
export const parametersOf = (settings: ReadonlyArray<Setting & { readonly key: string }>, on: Setting["on"]) =>
  Object.fromEntries(settings.filter((s) => s.on === on).map((s) => [s.key, parameterOf(s)]))

/**
 * The roots a command can be authorized with: `--workspace`, then each
 * registered provider's root options (`on: "roots"`), in registry order.
 */
export const roots = { workspace, ...(parametersOf(Registry.settings, "roots") as ProviderParameters<"roots">) }

/** What `import` takes besides the roots: each registered provider's import-only settings (`on: "import"`). */
export const importInputs = parametersOf(Registry.settings, "import") as ProviderParameters<"import">

/** What selects one source: provider, file, roots and selectors, plus `--json`. */
export const source = { provider, file, json, ...roots, agent, session, locatorClass }

/** `--config FILE`: the JSON config (its `index` and roots). */
export const config = Options.text("config").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("JSON config (default: $XDG_CONFIG_HOME/session-ingest/config.json when present).")
)

/**
 * `transcript`'s `--config FILE`: the same file, read only for its custom
 * redaction patterns (`redaction.patterns`, docs/redaction.md); the source
 * is authorized by the roots given as options, never the file's roots
 * (tester40 F4: the help said "JSON config" and a user expected its
 * `claudeRoot` to apply).
 */
export const redactionConfig = Options.text("config").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription(
    "JSON config, read only for its custom redaction patterns (redaction.patterns) of --format markdown; its roots are not used " +
      "(give --claude-root, --agents-root, --muse-root as options). Default: $XDG_CONFIG_HOME/session-ingest/config.json when present."
  )
)

/**
 * `--out FILE` of a command that writes one document (`what`: what is
 * written): a new file, never over an existing one (`out-file.ts`). `--out -`
 * is stdout, as the Unix convention has it (tester19 F13: it wrote a file
 * named `-`).
 */
export const out = (what: string) =>
  Options.text("out").pipe(
    plainValue,
    Options.withPseudoName("FILE"),
    Options.optional,
    Options.map(Option.filter((file) => file !== "-")),
    Options.withDescription(`Write ${what} to FILE instead of stdout (- is stdout): a new file (never over an existing one), written whole or not at all.`)
  )

/**
 * `--no-redact` of a command whose shareable output (`what`: `the export`,
 * `the replay page`, `Markdown (--format markdown)`) is redacted by default:
 * write it as it is, without the redaction of secrets, emails and home paths
 * (docs/redaction.md, "Redaction"). Its help names that command's output.
 */
/**
 * The stderr note of a `replay` or `export` run with `--no-redact` (tester31b F1): the file or stream it writes holds
 * the session as stored, and nothing else would tell a later reader so but the output's own mark (the replay's
 * "Redaction" row, ATIF's `extra.session_ingest.redaction`).
 */
export const unredactedNote = (what: string): string =>
  `note: --no-redact: ${what} holds the session as stored, secrets, emails and home paths included; do not share it.\n`

/** The `--no-redact` flag of a command whose output is shared (`what`: what it writes). */
export const noRedact = (what: string) =>
  Options.boolean("no-redact").pipe(
    Options.withDescription(`Do not redact secrets, emails and home paths in ${what} (redacted by default).`)
  )
