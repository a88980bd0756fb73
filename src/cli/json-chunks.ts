/**
 * A large JSON document written a part at a time: the bytes of
 * `JSON.stringify(doc, null, 2)` (C1 controls and bidi overrides as `\uHHHH`,
 * see `escapeJsonControls`), plus a newline, as a stream of chunks, the
 * elements of one big top-level array (an ATIF trajectory's `steps`)
 * stringified {@link ITEMS_PER_CHUNK} at a time. Each chunk is one short
 * synchronous step, so that an interruption (Ctrl-C) lands between two and
 * the whole text is never held at once.
 *
 * @module
 */
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { escapeJsonControls } from "../domain/render.js"

/** Elements of the big array stringified per chunk. */
const ITEMS_PER_CHUNK = 200

/** Stands for the big array while the rest of the document is written (a string no other member holds in practice; checked). */
const MARK = "\u0000session-ingest:items\u0000"

const bytes = (text: string): Uint8Array => Buffer.from(escapeJsonControls(text), "utf8")

/**
 * The UTF-8 bytes of `JSON.stringify(doc, null, 2) + "\n"` (escaped as
 * `jsonText` does), in chunks; `key`: the top-level member holding the big
 * array. The document is written whole (one chunk) when that member is no
 * non-empty array or its mark is not found exactly once.
 */
export const prettyJsonChunks = (doc: object, key: string): Stream.Stream<Uint8Array> =>
  Stream.suspend(() => {
    const items = (doc as Record<string, unknown>)[key]
    const whole = () => Stream.succeed(bytes(JSON.stringify(doc, null, 2) + "\n"))
    if (!Array.isArray(items) || items.length === 0) return whole()
    const head = JSON.stringify({ ...doc, [key]: MARK }, null, 2)
    const markJson = JSON.stringify(MARK)
    const at = head.indexOf(markJson)
    if (at < 0 || head.indexOf(markJson, at + markJson.length) >= 0) return whole()
    // Members of the document are indented by 2; the array's elements by 4 (every line of each one).
    const piece = (from: number): string => {
      let s = ""
      for (let i = from; i < Math.min(items.length, from + ITEMS_PER_CHUNK); i++) {
        s += (i > 0 ? "," : "") + "\n    " + JSON.stringify(items[i], null, 2).replace(/\n/g, "\n    ")
      }
      return s
    }
    return Stream.succeed(bytes(head.slice(0, at) + "[")).pipe(
      Stream.concat(Stream.unfold(0, (from) => (from < items.length ? Option.some([bytes(piece(from)), from + ITEMS_PER_CHUNK] as const) : Option.none()))),
      Stream.concat(Stream.succeed(bytes("\n  ]" + head.slice(at + markJson.length) + "\n")))
    )
  })
