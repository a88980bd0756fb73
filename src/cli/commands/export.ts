/**
 * `session-ingest export <session-id> --format atif|ndjson [--out FILE]`: one
 * session from the index as an ATIF trajectory (the interchange format
 * trajectory tools and evaluation harnesses read) or as normalized events,
 * redacted unless `--no-redact` (docs/redaction.md, "Redaction").
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { runtime } from "../lazy.js"
import * as O from "../options.js"
import type { IngestError } from "../../domain/errors.js"
import type { Redaction } from "../../services/Redaction.js"
import { prettyJsonChunks } from "../json-chunks.js"
import { ndjson, printResult, writeStderr, writeStdout } from "../output.js"

/** The command. */
export const exportCommand = Command.make(
  "export",
  {
    id: Args.text({ name: "session-id" }).pipe(O.plainArg, Args.withDescription("A session id (native, or the index's ses_… uid), or a prefix of one that names one session.")),
    format: Options.choice("format", ["atif", "ndjson"]).pipe(
      Options.withDefault("atif" as const),
      Options.withDescription("atif (an ATIF-v1.7 trajectory JSON, default) or ndjson (the normalized events).")
    ),
    out: O.out("the export"),
    json: O.json,
    noRedact: O.noRedact("the export"),
    index: O.index,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* runtime
      const out = Option.getOrUndefined(o.out)
      // An existing --out is refused before the index is even read.
      if (out !== undefined) yield* rt.checkNewFile(out)
      const file = yield* rt.existingIndex(o.index, o.config)
      // Redacted unless --no-redact: the events and the trajectory pass through the output boundary (layers/share.ts).
      // Several sources holding the id: which one is exported is said on stderr (as `show` says it).
      const indexLayer = yield* rt.sessionOutputLayer(file, !o.noRedact, Option.getOrUndefined(o.config), o.id, "exporting")
      // ATIF's metrics: costs the source does not state come from the price table (with the config's prices).
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      // NDJSON a page at a time (bounded memory for any session); ATIF whole (it is one JSON document).
      const bytes: Stream.Stream<Uint8Array, IngestError, never> = o.format === "ndjson"
        ? Stream.unwrap(Effect.gen(function*() {
          const { session } = yield* rt.findSession(o.id)
          const index = yield* rt.Index
          return rt.shareableEvents(index.eventsStream(session.sessionUid)).pipe(Stream.mapChunks((c) => Chunk.of(ndjson(c))))
        })).pipe(Stream.provideLayer(indexLayer))
        : Stream.unwrap(
          Effect.map(Effect.flatMap(rt.loadTrajectory(o.id), (input) => rt.shareableTrajectory({ ...input, prices })), (atif) => prettyJsonChunks(atif, "steps"))
            .pipe(Effect.provide(indexLayer))
        )
      if (out !== undefined) {
        // Through a sink that never overwrites, and leaves nothing on failure or Ctrl-C.
        yield* Stream.run(bytes, rt.newFileSink(out))
        // said once the file is written (a write that fails leaves no file to warn of: tester31c F3)
        if (o.noRedact) writeStderr(O.unredactedNote(out))
        if (o.json) yield* printResult("export", true, { format: o.format, out }, () => "")
        else writeStderr(`wrote ${out}\n`)
        return
      }
      if (o.noRedact) writeStderr(O.unredactedNote("the export"))
      if (!o.json) return yield* Stream.runForEach(bytes, writeStdout)
      const data = yield* (o.format === "atif"
        ? Effect.flatMap(rt.loadTrajectory(o.id), (input): Effect.Effect<unknown, never, Redaction> => rt.shareableTrajectory({ ...input, prices }))
        : Effect.flatMap(rt.loadSession(o.id), ({ events }) => rt.shareableEvents(Stream.fromIterable(events)).pipe(Stream.runCollect, Effect.map((c): unknown => Chunk.toArray(c))))).pipe(Effect.provide(indexLayer))
      yield* printResult("export", true, { format: o.format, data }, () => "")
    })
).pipe(Command.withDescription("Export one session from the index as an ATIF-v1.7 trajectory or as NDJSON events."))
