/**
 * `session-ingest show <session-id>`: one session from the index, as events
 * (NDJSON), a transcript, or Markdown. `--json` (events) carries the
 * session's `usage` (tokens and cost, each null where unknown); the text and
 * Markdown transcripts end with a usage line where the source reports any.
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Option from "effect/Option"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { renderTranscriptMarkdown, renderTranscriptText, usageLine } from "../../domain/render.js"
import { runtime } from "../lazy.js"
import * as O from "../options.js"
import { ndjson, printResult, writeHuman, writeStderr, writeStdout } from "../output.js"

/** Tell on stderr which of several sessions of one id is shown. */
const noteOthers = (id: string, shown: string, others: ReadonlyArray<{ readonly sessionUid: string }>) => {
  if (others.length === 0) return
  writeStderr(
    `note: ${others.length + 1} sources hold session ${id}; showing ${shown} (use a ses_… uid to pick another: ${
      others.map((s) => s.sessionUid).join(", ")
    })\n`
  )
}

/** The command. */
export const show = Command.make(
  "show",
  {
    id: Args.text({ name: "session-id" }).pipe(O.plainArg, Args.withDescription("A session id (native, or the index's ses_… uid), or a prefix of one that names one session.")),
    format: Options.choice("format", ["events", "transcript", "markdown"]).pipe(
      Options.withDefault("events" as const),
      Options.withDescription("events (NDJSON, default), transcript (text; JSON with --json) or markdown.")
    ),
    json: O.json,
    local: O.local,
    index: O.index,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* runtime
      const file = yield* rt.existingIndex(o.index, o.config)
      const indexLayer = rt.IndexSqlite.layerReadonly(file)
      if (o.format === "events" && !o.json) {
        // NDJSON a page at a time: a session of any length in bounded memory.
        return yield* Effect.gen(function*() {
          const { others, session } = yield* rt.findSession(o.id)
          noteOthers(o.id, session.sessionUid, others)
          const index = yield* rt.Index
          yield* index.eventsStream(session.sessionUid).pipe(
            Stream.mapChunks((c) => Chunk.of(ndjson(c))),
            Stream.runForEach(writeStdout)
          )
        }).pipe(Effect.provide(indexLayer))
      }
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      const { events, others, session, usage } = yield* Effect.gen(function*() {
        const loaded = yield* rt.loadSession(o.id)
        const usage = rt.usageView((yield* rt.usageBySession(prices, [loaded.session.sessionUid])).get(loaded.session.sessionUid))
        return { ...loaded, usage }
      }).pipe(Effect.provide(indexLayer))
      noteOthers(o.id, session.sessionUid, others)
      if (o.format === "events") return yield* printResult("show", true, { session: { ...session, usage }, events }, () => "")
      const line = usageLine(usage)
      const withUsage = (text: string) => (line === null ? text : `${text}${text.endsWith("\n") ? "" : "\n"}\n${line}\n`)
      const t = rt.sessionTranscript({ session, events })
      if (t.turns.length === 0 && events.length > 0) {
        writeStderr(
          `note: session ${session.sessionId} holds no conversation events (${session.provider} records runtime facts); use --format events.\n`
        )
      }
      if (o.format === "markdown" && !o.json) return yield* writeHuman(withUsage(renderTranscriptMarkdown(t, { local: o.local })))
      yield* printResult("show", o.json, t, () => withUsage(renderTranscriptText(t, { local: o.local })))
    })
).pipe(Command.withDescription("Show one session from the index: its events (NDJSON), transcript or Markdown."))
