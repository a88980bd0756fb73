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

/** The rule's state over one file's pass: the uuids seen and the counts. */
export class RepeatScreen {
  private readonly ids = new RecordIds()
  readonly counts: RepeatCounts = emptyRepeatCounts()
  /** The first line read again last (records under one uuid many times read it once). */
  private cached: { readonly offset: number; readonly bytes: Uint8Array } | undefined

  /**
   * Screen a chunk's `lines` (in file order, after every line screened
   * before), one at a time, holding nothing of a line once it is handed on:
   * `prepare` classifies a line (`classified` and `lineNumberOf` read what
   * it gives), `emit` takes it with `repeat` true for a repeat as it is (to
   * skip). Synchronous unless a uuid repeats whose first line is not in the
   * chunk: that line is read again with `read(offset, length)`.
   */
  each<T, E>(
    lines: ReadonlyArray<Line>,
    prepare: (line: Line) => T,
    classified: (t: T) => Classified,
    lineNumberOf: (t: T) => number,
    emit: (t: T, repeat: boolean) => void,
    read: (offset: number, length: number) => Effect.Effect<Uint8Array, E>
  ): Effect.Effect<void, E> {
    const loop = (from: number): Effect.Effect<void, E> => {
      for (let i = from; i < lines.length; i++) {
        const line = lines[i]
        const t = prepare(line)
        const c = classified(t)
        if (c._tag === "Entry" && c.uuid !== null) {
          const lineNumber = lineNumberOf(t)
          const first = this.ids.take(c.uuid, lineNumber, line.start, line.bytes.length)
          if (first !== undefined) {
            const uuid = c.uuid
            const local = lineAt(lines, i, first.offset)
            const known = local !== undefined
              ? local.bytes
              : this.cached !== undefined && this.cached.offset === first.offset
              ? this.cached.bytes
              : undefined
            if (known === undefined) {
              return Effect.flatMap(read(first.offset, first.length), (bytes) => {
                this.cached = { offset: first.offset, bytes }
                emit(t, this.judge(bytes, line, lineNumber, first.lineNumber, uuid))
                return loop(i + 1)
              })
            }
            emit(t, this.judge(known, line, lineNumber, first.lineNumber, uuid))
            continue
          }
        }
        emit(t, false)
      }
      return Effect.void
    }
    return loop(0)
  }

  /** Count a record under a taken uuid: true when it repeats the first as it is. */
  private judge(first: Uint8Array, line: Line, lineNumber: number, firstLineNumber: number, uuid: string): boolean {
    if (sameRecordBytes(first, line.bytes)) {
      this.counts.repeated++
      return true
    }
    this.counts.reused++
    this.counts.firstReuse ??= { lineNumber, firstLineNumber, uuid }
    return false
  }
}

/** The line of `lines[0, before)` that starts at `offset` (their starts ascend), if any. */
const lineAt = (lines: ReadonlyArray<Line>, before: number, offset: number): Line | undefined => {
  let lo = 0
  let hi = before - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const s = lines[mid].start
    if (s === offset) return lines[mid]
    if (s < offset) lo = mid + 1
    else hi = mid - 1
  }
  return undefined
}

/** What a skipped repeat is to a scan: a line that yields nothing (not a warning). */
export const repeatLine = (c: Classified): Classified => ({ _tag: "Ignored", type: c._tag === "Entry" ? c.type : "repeat" })
