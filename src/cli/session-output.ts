/**
 * What `export` and `replay` (a session's shareable output) read a session
 * with: the index, the redaction (off with `--no-redact`; the config's own
 * patterns), the config's limits (`maxDocumentBytes` for a session loaded
 * whole), and the note on stderr when the id names sessions of several
 * sources (`noteOtherSources`: which one is `verb`ed, the others' uids).
 * Fails as `findSession` does (`SourceNotFound`, an ambiguous prefix), and as
 * `requireComplete` for an incomplete session (`STORE_UNAVAILABLE`
 * `session-incomplete`): a part of a session is never exported or replayed.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { findCompleteSession } from "../layers/index/queries.js"
import { redactionLayer } from "../layers/share.js"
import { loadRedactionPatterns } from "./config.js"
import { readIndexLayer, readLimitsLayer } from "./index-read.js"
import { noteOtherSources } from "./session-note.js"

/** The layer of a session's shareable output, after the several-sources note for `id` (see the module). */
export const sessionOutputLayer = (file: string, redact: boolean, config: string | undefined, id: string, verb: string) => {
  const layer = Layer.mergeAll(redactionLayer(redact, loadRedactionPatterns(config)), readLimitsLayer(config)).pipe(Layer.provideMerge(readIndexLayer(file)))
  return Effect.as(
    Effect.tap(findCompleteSession(id).pipe(Effect.provide(layer)), (found) => Effect.sync(() => noteOtherSources(found.session, found.others, verb))),
    layer
  )
}
