/**
 * `session-ingest export <session-id> --format atif|ndjson [--out FILE]`: one
 * session from the index as an ATIF trajectory (the interchange format
 * trajectory tools and evaluation harnesses read) or as normalized events.
 *
 * @module
 */
import * as fs from "node:fs"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { errors, runtime } from "../lazy.js"
import * as O from "../options.js"
import type { InvalidArgument } from "../../domain/errors.js"
import { escapeJsonControls } from "../../domain/render.js"
import { ndjson, printResult, reporting, type StdoutClosed, writeStderr, writeStdout } from "../output.js"

/** The command. */
export const exportCommand = Command.make(
  "export",
  {
    id: Args.text({ name: "session-id" }).pipe(O.plainArg, Args.withDescription("A session id (native, or the index's ses_… uid), or a prefix of one that names one session.")),
    format: Options.choice("format", ["atif", "ndjson"]).pipe(
      Options.withDefault("atif" as const),
      Options.withDescription("atif (an ATIF-v1.7 trajectory JSON, default) or ndjson (the normalized events).")
    ),
    out: Options.text("out").pipe(O.plainValue,
      Options.withPseudoName("FILE"),
      Options.optional,
      Options.withDescription("Write to FILE instead of stdout (never over an existing file).")
    ),
    json: O.json,
    index: O.index,
    config: O.config
  },
  (o) =>
    reporting(
      "export",
      o.json,
      Effect.gen(function*() {
        const rt = yield* runtime
        const file = yield* rt.existingIndex(o.index, o.config)
        const cannotWrite = (out: string, e: unknown) =>
          Effect.flatMap(errors, ({ InvalidArgument }) =>
            Effect.fail(
              new InvalidArgument({
                message: `Cannot write ${out} (${e instanceof Error ? e.message : String(e)}).`,
                remediation: "Pass --out with a new file in a writable folder (existing files are never overwritten)."
              })
            ))
        if (o.format === "ndjson" && !o.json) {
          // NDJSON a page at a time, to stdout or to a new file: bounded memory for any session.
          const out = Option.getOrUndefined(o.out)
          const fd = out === undefined
            ? undefined
            : yield* Effect.try({ try: () => fs.openSync(out, "wx"), catch: (e) => e }).pipe(
              Effect.catchAll((e) => cannotWrite(out, e))
            )
          const writeAll = (to: number, bytes: Uint8Array) => {
            for (let at = 0; at < bytes.length;) at += fs.writeSync(to, bytes, at)
          }
          const write = (bytes: Uint8Array): Effect.Effect<void, StdoutClosed | InvalidArgument> =>
            fd === undefined
              ? writeStdout(bytes)
              : Effect.try({ try: () => writeAll(fd, bytes), catch: (e) => e }).pipe(Effect.catchAll((e) => cannotWrite(out!, e)))
          return yield* Effect.gen(function*() {
            const { session } = yield* rt.findSession(o.id)
            const index = yield* rt.Index
            yield* index.eventsStream(session.sessionUid).pipe(
              Stream.mapChunks((c) => Chunk.of(ndjson(c))),
              Stream.runForEach(write)
            )
          }).pipe(
            Effect.provide(rt.IndexSqlite.layer(file)),
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (fd === undefined) return
                fs.closeSync(fd)
                // A file cut short by a failure or Ctrl-C is not left behind as if it were the export.
                if (exit._tag === "Failure") fs.rmSync(out!, { force: true })
                else writeStderr(`wrote ${out}\n`)
              })
            )
          )
        }
        const data = yield* (o.format === "atif"
          ? Effect.map(rt.loadTrajectory(o.id), (input): unknown => rt.toAtif(input))
          : Effect.map(rt.loadSession(o.id), ({ events }): unknown => events)).pipe(Effect.provide(rt.IndexSqlite.layer(file)))
        const text = o.format === "atif"
          ? escapeJsonControls(JSON.stringify(data, null, 2)) + "\n"
          : Buffer.from(ndjson(data as ReadonlyArray<unknown>)).toString("utf8")
        if (Option.isNone(o.out)) {
          return yield* (o.json ? printResult("export", true, { format: o.format, data }, () => "") : writeStdout(text))
        }
        const out = o.out.value
        const written = yield* Effect.either(Effect.try({ try: () => fs.writeFileSync(out, text, { flag: "wx" }), catch: (e) => e }))
        if (Either.isLeft(written)) return yield* cannotWrite(out, written.left)
        if (o.json) yield* printResult("export", true, { format: o.format, out }, () => "")
        else writeStderr(`wrote ${out}\n`)
      })
    )
).pipe(Command.withDescription("Export one session from the index as an ATIF-v1.7 trajectory or as NDJSON events."))
