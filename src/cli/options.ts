/**
 * Options shared by the CLI's commands (`@effect/cli`). Only parsing: what an
 * option means is the library's business.
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"

/** `--json`: print one JSON envelope (DESIGN.md) instead of text. */
export const json = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON envelope {contractVersion, command, status, data, error} on stdout.")
)

/** `--workspace DIR` (repeatable; default: the working directory). */
export const workspace = Options.text("workspace").pipe(
  Options.withPseudoName("DIR"),
  Options.repeated,
  Options.withDescription(
    "Authorized workspace root (repeatable; default: the working directory). Explicit files must lie under one; native Muse discovery selects logs whose evidence names one."
  )
)

/** `--muse-root DIR`: the authorized Muse Code native sessions root. */
export const museRoot = Options.text("muse-root").pipe(
  Options.withPseudoName("DIR"),
  Options.repeated,
  Options.withDescription(
    "Authorized Muse Code sessions root, e.g. ~/.local/share/muse/sessions (repeatable). Native discovery and native logs need it; there is no default."
  )
)

/** `--agents-root DIR`: the Muse agents root. */
export const agentsRoot = Options.text("agents-root").pipe(
  Options.withPseudoName("DIR"),
  Options.optional,
  Options.withDescription("Muse agents root (default: $MUSE_AGENTS_DIR, else ~/agents).")
)

/** `--store FILE`: AgentMux's transcript store. */
export const store = Options.text("store").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("AgentMux filestore.db (default: ~/.agentmux/shared/agents/transcripts/filestore.db).")
)

/** `--state FILE`: session-ingest's own state database. */
export const state = Options.text("state").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("session-ingest's state database for incremental scans (default: under the user's data directory).")
)

/** `--agent UID`. */
export const agent = Options.text("agent").pipe(
  Options.withPseudoName("UID"),
  Options.optional,
  Options.withDescription("AgentMux agent UID whose own zones are read.")
)

/** `--session SID`. */
export const session = Options.text("session").pipe(
  Options.withPseudoName("SID"),
  Options.optional,
  Options.withDescription("Session id to select inside a store that holds many (AgentMux).")
)

/** `--locator-class CLASS`. */
export const locatorClass = Options.text("locator-class").pipe(
  Options.withPseudoName("CLASS"),
  Options.optional,
  Options.withDescription(
    "How the file was acquired: manual-export (default for muse-code), muse-native-session-log, muse-agent-transcript."
  )
)

/** `--cursor TOKEN`. */
export const cursor = Options.text("cursor").pipe(
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

/** `<provider>` argument. */
export const provider = Args.text({ name: "provider" }).pipe(
  Args.withDescription("Provider id: muse-code, muse-agents or agentmux (see `session-ingest providers`).")
)

/** `[file]` argument (optional: store-based providers select by --agent/--session). */
export const file = Args.text({ name: "file" }).pipe(
  Args.optional,
  Args.withDescription("The source file (a muse export, a session.jsonl, a transcript .jsonl).")
)

/** `--index FILE`: the index database. */
export const index = Options.text("index").pipe(
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
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("JSON config (default: $XDG_CONFIG_HOME/session-ingest/config.json when present).")
)
