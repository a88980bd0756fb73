/**
 * `session-ingest transcript <provider> [file]`: a conversation source as a Transcript
 * (JSON with `--json`, Markdown with `--format markdown`, text otherwise).
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { renderTranscriptMarkdown, renderTranscriptText } from "../../domain/render.js"
import { SessionSources } from "../../services/SessionSource.js"
import { appLayer, locatorOf } from "../context.js"
import * as O from "../options.js"
import { printResult, reporting, writeStdout } from "../output.js"

const format = Options.choice("format", ["text", "markdown", "json"]).pipe(
  Options.withDefault("text" as const),
  Options.withDescription("Output format: text (default), markdown, or json (same as --json).")
)

/** The command. */
export const transcript = Command.make(
  "transcript",
  {
    provider: O.provider,
    file: O.file,
    json: O.json,
    format,
    workspace: O.workspace,
    museRoot: O.museRoot,
    agentsRoot: O.agentsRoot,
    store: O.store,
    state: O.state,
    agent: O.agent,
    session: O.session,
    locatorClass: O.locatorClass
  },
  (o) =>
    reporting(
      "transcript",
      o.json || o.format === "json",
      Effect.gen(function*() {
        const adapter = yield* (yield* SessionSources).get(o.provider)
        const locator = yield* locatorOf(adapter, o.file, o.locatorClass, o)
        const t = yield* adapter.transcript(locator)
        if (o.format === "markdown" && !o.json) return yield* writeStdout(renderTranscriptMarkdown(t))
        yield* printResult("transcript", o.json || o.format === "json", t, () => renderTranscriptText(t))
      }).pipe(Effect.provide(appLayer(o)))
    )
).pipe(Command.withDescription("Render a conversation source (muse-agents, agentmux) as a transcript: turns, tool calls with their results, compactions."))
