/**
 * `session-ingest stream <provider> <file>`: the normalized events as NDJSON on stdout.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { runtime } from "../lazy.js"
import * as O from "../options.js"
import { ndjson, writeStdout } from "../output.js"

/** The command. */
export const stream = Command.make(
  "stream",
  {
    ...O.source,
    cursor: O.cursor,
    limit: O.limit,
    includeSubagents: O.includeSubagents
  },
  (o) =>
    Effect.flatMap(runtime, (rt) => rt.withSource(o, (adapter, locator) =>
      Effect.gen(function*() {
        let events = adapter.stream(locator, {
          cursor: Option.getOrUndefined(o.cursor),
          includeSubagents: o.includeSubagents
        })
        if (Option.isSome(o.limit)) events = Stream.take(events, Math.max(0, o.limit.value))
        yield* events.pipe(
          Stream.mapChunks((c) => Chunk.of(ndjson(c))),
          Stream.filter((bytes) => bytes.length > 0),
          Stream.runForEach(writeStdout)
        )
      })))
).pipe(Command.withDescription("Stream a source's normalized SessionEvents as NDJSON (one event a line), resumable with --cursor."))
