/**
 * The one-record-per-uuid rule of a Claude Code file's pass
 * (`src/domain/claude-code/record-ids.ts`, docs/providers.md "Claude Code:
 * one record per uuid"), applied a chunk of lines at a time by every reader
 * (`inspect`, `transcript`, discovery's summary, `stream`, `import`): a line
 * whose record repeats an earlier one as it is is skipped, one reusing an
 * earlier record's uuid with other content is kept; both are counted. The
 * hot path is a look-up of the line's uuid (already parsed by the
 * classifier); bytes are compared, and the first line read again from the
 * file, only when a uuid repeats.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { Classified } from "../../domain/claude-code/records.js"
import { emptyRepeatCounts, RecordIds, type RepeatCounts, sameRecordBytes } from "../../domain/claude-code/record-ids.js"
import type { Line } from "../jsonl/index.js"

/** One classified line of a chunk, with its line number in the file. */
export interface ScreenItem {
  readonly c: Classified
  readonly line: Line
  readonly lineNumber: number
}

/** The rule's state over one file's pass: the uuids seen and the counts. */
export class RepeatScreen {
  private readonly ids = new RecordIds()
  readonly counts: RepeatCounts = emptyRepeatCounts()
  /** The first line read again last (records under one uuid many times read it once). */
  private cached: { readonly offset: number; readonly bytes: Uint8Array } | undefined

  /**
   * Screen `items` (a chunk's lines, in file order, after every line
   * screened before): undefined when none is skipped, else a flag per item
   * (1: a repeat, skip it). `read(offset, length)` reads a first line again
   * when it is not in the chunk.
   */
  screen<E>(
    items: ReadonlyArray<ScreenItem>,
    read: (offset: number, length: number) => Effect.Effect<Uint8Array, E>
  ): Effect.Effect<Uint8Array | undefined, E> {
    let pending: Array<readonly [number, number, number, number, string]> | undefined
    for (let i = 0; i < items.length; i++) {
      const it = items[i]
      const c = it.c
      if (c._tag !== "Entry" || c.uuid === null) continue
      const first = this.ids.take(c.uuid, it.lineNumber, it.line.start, it.line.bytes.length)
      if (first !== undefined) (pending ??= []).push([i, first.lineNumber, first.offset, first.length, c.uuid])
    }
    if (pending === undefined) return Effect.succeed(undefined)
    const todo = pending
    const self = this
    return Effect.gen(function*() {
      const skip = new Uint8Array(items.length)
      for (const [i, firstLine, offset, length, uuid] of todo) {
        const it = items[i]
        const local = items.find((x) => x.line.start === offset)
        let bytes: Uint8Array
        if (local !== undefined) bytes = local.line.bytes
        else if (self.cached !== undefined && self.cached.offset === offset) bytes = self.cached.bytes
        else {
          bytes = yield* read(offset, length)
          self.cached = { offset, bytes }
        }
        if (sameRecordBytes(bytes, it.line.bytes)) {
          skip[i] = 1
          self.counts.repeated++
        } else {
          self.counts.reused++
          self.counts.firstReuse ??= { lineNumber: it.lineNumber, firstLineNumber: firstLine, uuid }
        }
      }
      return skip
    })
  }
}

/** What a skipped repeat is to a scan: a line that yields nothing (not a warning). */
export const repeatLine = (c: Classified): Classified => ({ _tag: "Ignored", type: c._tag === "Entry" ? c.type : "repeat" })
