/**
 * What a parse worker (`./parse-worker.ts`) does for one source of a request,
 * without starting the worker: {@link parseWhole}, also run in one thread by
 * `bench/probes/parse-worker-cpu.ts`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { Diagnostic } from "../../domain/model.js"
import type { SessionSourcesShape } from "../../services/SessionSource.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"
import { batchEnds, batchesOf, bindBatch, fingerprintOf } from "./importer.js"
import type { SessionEvent } from "../../domain/model.js"
import { eventUidInto } from "../../domain/index/ids.js"
import { ftsText, searchableText } from "../../domain/search/text.js"
import { usageRowOf } from "../../domain/usage.js"
import { headColumnsOf, type ParseAnswer, type ParseRequest, type PreparedColumns, type ReadTitle, ShapeTable, StringTable } from "./parse-pool.js"
import { PrefixDigests } from "./prefix.js"
import { INDEX_LEAN, leanEvent } from "./rows.js"

const FALLBACK: ParseAnswer = { _tag: "fallback" }

/**
 * The {@link PreparedColumns} of `events`, their shapes entered into
 * `table`: what `preparedColumnsOf(events.map(preparedRowOf), table)` gives
 * (the same functions, in the same order: `leanEvent`, the event uid,
 * `searchableText`, `ftsText`, `usageRowOf`), written into the columns
 * directly, without a `PreparedRow` and a uid `Buffer` per event (issue 13,
 * first import; `test/index/parse-columns.test.ts` compares the two).
 */
export const preparedColumnsOfEvents = (events: ReadonlyArray<SessionEvent>, table: ShapeTable): PreparedColumns => {
  const n = events.length
  const uids = new Uint8Array(n * 16)
  const shapes = new Int32Array(n)
  const bodies = new Array<string>(n)
  const texts = new Array<string>(n)
  const inputs = new Array<string>(n)
  const usages = new Array<PreparedColumns["usages"][number]>(n)
  for (let i = 0; i < n; i++) {
    const e = events[i]
    const lean = leanEvent(e, INDEX_LEAN)
    const t = searchableText(e)
    eventUidInto(uids, i * 16, e.provider, e.sourceId, e.sessionId, e.eventId)
    shapes[i] = table.idOf(lean === null ? null : lean.shape)
    bodies[i] = lean === null ? JSON.stringify(e) : lean.body
    texts[i] = ftsText(t.text)
    inputs[i] = ftsText(t.input)
    usages[i] = usageRowOf(e)
  }
  return { uids, shapes, bodies, texts, inputs, usages }
}

/**
 * What the importer does in process for a new small source before it writes
 * it (`importSource`, the `importWhole` path), for one request: list its
 * nested logs, take its fingerprint, read it at once
 * (`SessionSourceAdapter.streamAtOnce`) with its prefix digest, and bind each
 * batch (its heads and rows by column, their words in `words` and their
 * shapes in `shapes`, the request's tables shared by its answers), with the
 * title the read reports (a Muse Code session's first prompt), as the
 * importer writes it. `fallback` when the source has nested logs, is not read at once,
 * or anything fails: the main thread then imports it itself (with the same
 * outcome as without workers).
 */
export const parseWhole = (
  registry: SessionSourcesShape,
  access: SourceAccessShape,
  request: ParseRequest["sources"][number] & { readonly batchSize: number },
  shapes: ShapeTable = new ShapeTable(),
  words: StringTable = new StringTable()
): Effect.Effect<ParseAnswer> =>
  Effect.gen(function*() {
    const adapter = yield* registry.get(request.provider)
    const locator = request.locator
    if (adapter.streamAtOnce === undefined) return FALLBACK
    const parts = adapter.parts !== undefined ? yield* adapter.parts(locator) : []
    if (parts.length > 0) return FALLBACK
    const fingerprint = yield* fingerprintOf(access, locator, parts, { wal: adapter.noWal !== true })
    const digests = new PrefixDigests(access)
    const diagnostics: Array<Diagnostic> = []
    let title: ReadTitle | null = null
    const whole = yield* adapter.streamAtOnce(locator, {
      cursor: undefined,
      includeSubagents: true,
      onDiagnostic: (d) => diagnostics.push(d),
      onWarning: (d) => diagnostics.push(d),
      // Carried by the answer (the importer writes it as it writes a title its own read reports).
      onTitle: (t, sessionId) => {
        title = { title: t, sessionId: sessionId ?? null }
      },
      onRead: digests.onRead
    })
    if (whole === undefined || whole.then !== undefined) return FALLBACK
    const own = whole.events.length === 0 ? null : whole.events[0].sourceId
    const partBindings = new Map<string, string | undefined>()
    const batches: Array<Extract<ParseAnswer, { _tag: "whole" }>["batches"][number]> = []
    for (const events of batchesOf(whole.events, request.batchSize)) {
      const { resumeCursor, resumeAt, nested } = batchEnds(own!, events)
      const prefix = yield* bindBatch(digests, own!, resumeAt, nested, partBindings)
      // The writer's per-event work is done here too: it gets each event's head and rows, not the event.
      batches.push({
        // The heads' columns straight from the events (no head object made per event).
        events: headColumnsOf(events, words),
        resumeCursor,
        prefix,
        prepared: preparedColumnsOfEvents(events, shapes)
      })
    }
    // Events of nested logs (none are expected without parts): the main thread binds those.
    if (partBindings.size > 0) return FALLBACK
    return { _tag: "whole", fingerprint, batches, shapes: shapes.defs, words: words.defs, diagnostics, title } as const
  }).pipe(Effect.catchAllCause(() => Effect.succeed(FALLBACK)))

