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
import { LocatorClass, ProviderId } from "../domain/model.js"

const optionLike = (v: string): HelpDoc.HelpDoc | undefined =>
  v.startsWith("--")
    ? HelpDoc.p(`"${v}" looks like an option, not a value: an option before it lacks its value, or is given twice where it is not repeatable.`)
    : undefined

/**
 * A text option whose value may not start with `--`: `--agent --index x`
 * would otherwise take `--index` as the agent, and the words after it as
 * files. (A path that starts with `--` can be written `./--name`.)
 */
export const plainValue = (self: Options.Options<string>): Options.Options<string> =>
  Options.mapEffect(self, (v) => {
    const problem = optionLike(v)
    return problem === undefined ? Effect.succeed(v) : Effect.fail(ValidationError.invalidValue(problem))
  })

/** {@link plainValue} for a repeated option (`Options.repeated` needs the plain option under it). */
export const plainValues = (self: Options.Options<Array<string>>): Options.Options<Array<string>> =>
  Options.mapEffect(self, (vs) => {
    const problem = vs.map(optionLike).find((p) => p !== undefined)
    return problem === undefined ? Effect.succeed(vs) : Effect.fail(ValidationError.invalidValue(problem))
  })

/** {@link plainValue} for a positional argument. */
export const plainArg = (self: Args.Args<string>): Args.Args<string> =>
  Args.mapEffect(self, (v) => {
    const problem = optionLike(v)
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

/** `--muse-root DIR`: the authorized Muse Code native sessions root. */
export const museRoot = Options.text("muse-root").pipe(
  Options.withPseudoName("DIR"),
  Options.repeated,
  plainValues,
  Options.withDescription(
    "Authorized Muse Code sessions root, e.g. ~/.local/share/muse/sessions (repeatable). Native discovery and native logs need it; there is no default."
  )
)

/** `--agents-root DIR`: the Muse agents root. */
export const agentsRoot = Options.text("agents-root").pipe(
  plainValue,
  Options.withPseudoName("DIR"),
  Options.optional,
  Options.withDescription("Muse agents root (default: $MUSE_AGENTS_DIR, else ~/agents).")
)

/** `--store FILE`: AgentMux's transcript store. */
export const store = Options.text("store").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("AgentMux filestore.db (default: ~/.agentmux/shared/agents/transcripts/filestore.db).")
)

/** `--state FILE`: session-ingest's own state database. */
export const state = Options.text("state").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("session-ingest's state database for incremental scans (default: under the user's data directory).")
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

/** `--locator-class CLASS`: one of the model's locator classes (a choice: any other value does not parse). */
export const locatorClass = Options.choice("locator-class", LocatorClass.literals).pipe(
  Options.optional,
  Options.withDescription(
    `How the file was acquired: ${LocatorClass.literals.join(", ")} (default: what the provider reads that file as, e.g. muse-code: muse-native-session-log for a session.jsonl, else manual-export).`
  )
)

/** `--cursor TOKEN`. */
export const cursor = Options.text("cursor").pipe(
  plainValue,
  Options.withPseudoName("TOKEN"),
  Options.optional,
  Options.withDescription("Resume right after the event that carried this cursor.")
)

/** `--limit N`. */
export const limit = Options.integer("limit").pipe(
  Options.withPseudoName("N"),
  Options.filterMap((n) => (n >= 0 ? Option.some(n) : Option.none()), "--limit takes a whole number of events, 0 or more"),
  Options.optional,
  Options.withDescription("Stop after N events.")
)

/** `--include-subagents`. */
export const includeSubagents = Options.boolean("include-subagents").pipe(
  Options.withDescription("Muse Code native: also stream nested subagent/<child>/session.jsonl logs.")
)

/** The provider ids, as `[name, value]` choices. */
const providerChoices = ProviderId.literals.map((p): [string, ProviderId] => [p, p])

/** `<provider>` argument: one of the model's provider ids (a choice: any other value does not parse). */
export const provider = Args.choice(providerChoices, { name: "provider" }).pipe(
  Args.withDescription(`Provider id: ${ProviderId.literals.join(", ")} (see \`session-ingest providers\`).`)
)

/** `--provider P`: only this provider (a choice of the provider ids). */
export const providerFilter = Options.choice("provider", ProviderId.literals).pipe(
  Options.optional,
  Options.withDescription("Only this provider.")
)

/** `[file]` argument (optional: store-based providers select by --agent/--session). */
export const file = Args.text({ name: "file" }).pipe(
  plainArg,
  Args.optional,
  Args.withDescription("The source file (a muse export, a session.jsonl, a transcript .jsonl).")
)

/** `--index FILE`: the index database. */
export const index = Options.text("index").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("The index database (default: $XDG_DATA_HOME/session-ingest/index.db).")
)

/** The roots a command can be authorized with. */
export const roots = { workspace, museRoot, agentsRoot, store, state }

/** What selects one source: provider, file, roots and selectors, plus `--json`. */
export const source = { provider, file, json, ...roots, agent, session, locatorClass }

/** `--config FILE`: the JSON config (its `index` and roots). */
export const config = Options.text("config").pipe(
  plainValue,
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("JSON config (default: $XDG_CONFIG_HOME/session-ingest/config.json when present).")
)
