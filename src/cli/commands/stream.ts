/**
 * `session-ingest stream <provider> <file>`: the normalized events as NDJSON on stdout.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Diagnostic } from "../../domain/model.js"
import { appRuntime } from "../lazy.js"
import * as O from "../options.js"
import { writeNdjson, writeNdjsonLines, writeStderr } from "../output.js"

/** The lean stream's writer (`../../layers/lean-stream.ts`), loaded for `--lean` only: it brings the index's row layout and the error schemas. */
const leanStream = Effect.promise(() => import("../../layers/lean-stream.js"))

/** The command. */
export const stream = Command.make(
  "stream",
  {
    ...O.source,
    cursor: O.cursor,
    limit: O.limit,
    includeSubagents: O.includeSubagents,
    lean: Options.boolean("lean").pipe(
      Options.withDescription(
        "Write the lean stream (contract lean-1, docs/stream-and-cursors.md): session ids and event layouts once, null fields and a restated payload left out; expandLeanStream gives back the full events."
      )
    )
  },
  (o) =>
    Effect.flatMap(appRuntime, (rt) => rt.withSource(o, (adapter, locator) =>
      Effect.gen(function*() {
        const options = {
          cursor: Option.getOrUndefined(o.cursor),
          includeSubagents: o.includeSubagents,
          // The full stream's writer copies the source's bytes of an event's text (the lean one does not).
          textBytes: !o.lean,
          // What the events carry changed (NUMBER_NOT_EXACT): one line on stderr per source file; stdout is unchanged.
          onWarning: (d: Diagnostic) => writeStderr(`warning: ${d.code}: ${d.message}${d.remediation !== undefined ? ` ${d.remediation}` : ""}\n`)
        }
        let events = adapter.stream(locator, options)
        if (Option.isSome(o.limit)) events = Stream.take(events, Math.max(0, o.limit.value))
        const lean = o.lean ? (yield* leanStream).leanPartsWriter() : undefined
        // Each chunk is encoded into a pooled buffer and written from it (no copy, one write per chunk).
        if (lean === undefined) return yield* Stream.runForEachChunk(events, (c) => writeNdjson(c))
        // A payload's source bytes are copied, not joined into its line and encoded again (see leanPartsWriter).
        yield* Stream.runForEachChunk(events, (c) => writeNdjsonLines(lean(c)))
        // A lean stream always starts with its first line, even of no event (`--limit 0`, an empty source):
        // the writer gives it on its first call, so a last call with no event gives it only if none came before.
        yield* writeNdjsonLines(lean([]))
      })))
).pipe(Command.withDescription("Stream a source's normalized SessionEvents as NDJSON (one event a line), resumable with --cursor."))
