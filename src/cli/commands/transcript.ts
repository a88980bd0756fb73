/**
 * `session-ingest transcript <provider> [file]`: a conversation source as a Transcript
 * (JSON with `--json`, Markdown with `--format markdown`, text otherwise).
 * Markdown is redacted unless `--no-redact` (docs/redaction.md, "Redaction"); `--config`
 * gives its custom redaction patterns.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { renderTranscriptText, transcriptMarkdownParts } from "../../domain/render.js"
import * as Registry from "../../layers/registry.js"
import { appRuntime, shareRuntime } from "../lazy.js"
import * as O from "../options.js"
import { printResult, writeHumanParts } from "../output.js"

const format = Options.choice("format", ["text", "markdown", "json"]).pipe(
  Options.withDefault("text" as const),
  Options.withDescription("Output format: text (default), markdown, or json (same as --json).")
)

/** The command. */
export const transcript = Command.make(
  "transcript",
  {
    ...O.source,
    local: O.local,
    format,
    noRedact: O.noRedact("Markdown (--format markdown)"),
    config: O.redactionConfig
  },
  (o) =>
    Effect.flatMap(appRuntime, (rt) => rt.withSource(o, (adapter, locator) =>
      Effect.gen(function*() {
        const t = yield* adapter.transcript(locator)
        if (o.format === "markdown") {
          // Markdown is shareable: redacted unless --no-redact (the output boundary, layers/share.ts).
          const share = yield* shareRuntime
          const shared = yield* share.shareableTranscript(t).pipe(
            Effect.provide(share.fileRedactionLayer(!o.noRedact, share.loadRedactionPatterns(Option.getOrUndefined(o.config))))
          )
          if (!o.json) return yield* writeHumanParts(transcriptMarkdownParts(shared, { local: o.local }))
          return yield* printResult("transcript", true, shared, () => "")
        }
        yield* printResult("transcript", o.json || o.format === "json", t, () => renderTranscriptText(t, { local: o.local }))
      })))
).pipe(Command.withDescription(
  `Render a conversation source (${
    Registry.providers.filter((m) => m.about.operations.includes("transcript")).map((m) => m.id).join(", ")
  }) as a transcript: turns, tool calls with their results, compactions.`
))
