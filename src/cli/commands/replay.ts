/**
 * `session-ingest replay <session-id> [--out FILE]`: one session from the
 * index as a self-contained HTML page (issue 15) that works offline.
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { runtime } from "../lazy.js"
import * as O from "../options.js"
import { printResult, writeStderr, writeStdout } from "../output.js"

/** The command. */
export const replay = Command.make(
  "replay",
  {
    id: Args.text({ name: "session-id" }).pipe(O.plainArg, Args.withDescription("A session id (native, or the index's ses_… uid), or a prefix of one that names one session.")),
    out: O.out("the page"),
    json: O.json,
    noRedact: O.noRedact("the replay page"),
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
      // Redacted unless --no-redact (the output boundary, layers/share.ts); the header's cost priced with the config's prices.
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      // Several sources holding the id: which one is replayed is said on stderr (as `show` says it).
      const layers = yield* rt.sessionOutputLayer(file, !o.noRedact, Option.getOrUndefined(o.config), o.id, "replaying")
      const html = yield* rt.replayHtml(o.id, prices).pipe(Effect.provide(layers))
      const bytes = Buffer.from(html, "utf8")
      if (out !== undefined) {
        yield* Stream.run(Stream.make(bytes), rt.newFileSink(out))
        // said once the file is written (a write that fails leaves no file to warn of: tester31c F3)
        if (o.noRedact) writeStderr(O.unredactedNote(out))
        if (o.json) yield* printResult("replay", true, { out, bytes: bytes.length }, () => "")
        else writeStderr(`wrote ${out} (${bytes.length} bytes)\n`)
        return
      }
      if (o.noRedact) writeStderr(O.unredactedNote("the page"))
      if (o.json) return yield* printResult("replay", true, { bytes: bytes.length, html }, () => "")
      yield* writeStdout(bytes)
    })
).pipe(Command.withDescription("Replay one session from the index as a self-contained, offline HTML page (stdout, or --out FILE), redacted unless --no-redact."))
