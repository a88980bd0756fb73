/**
 * What the index's search finds for each of `queries` (no filter): each hit as `<field>:<snippet text>`, sorted, by
 * query. Needs the `Index` service.
 */
import * as Effect from "effect/Effect"
import { Index } from "../../src/services/Index.js"

export const searchHits = (queries: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const index = yield* Index
    const out: Record<string, ReadonlyArray<string>> = {}
    for (const q of queries) out[q] = (yield* index.search(q, {})).map((h) => `${h.snippet.field}:${h.snippet.text}`).sort()
    return out
  })
