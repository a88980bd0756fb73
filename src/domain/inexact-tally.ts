/**
 * The count of numbers a line-oriented source's events do not carry exactly
 * (`inexactNumbers` in `./json.ts`), for the tolerant providers that read
 * numbered lines (Muse agents transcripts, Claude Code session and subagent
 * files): one tally per source file and pass, giving that file's one
 * `NUMBER_NOT_EXACT` diagnostic. Pure.
 *
 * @module
 */
import { type InexactNumbers, numberNotExactDiagnostic } from "./json.js"
import type { Diagnostic } from "./model.js"

/**
 * Numbers found on a file's lines (mutable, owned by one pass over one file):
 * how many, and the first with the 1-based line it is on and that line's
 * byte offset (where the event's `rawReference` points).
 */
export class InexactTally {
  count = 0
  first: { readonly text: string; readonly line: number; readonly offset: number } | undefined = undefined

  /** Add what {@link inexactNumbers} found in a text of line `line` (byte offset `offset`); undefined adds nothing. */
  add(found: InexactNumbers | undefined, line: number, offset: number): void {
    if (found === undefined) return
    this.count += found.count
    this.first ??= { text: found.first, line, offset }
  }

  /**
   * The file's `NUMBER_NOT_EXACT` diagnostic (`source` names it, e.g. `the
   * transcript /path`; the line as `line N (byte M)`), or undefined when every
   * number was exact.
   */
  diagnostic(source: string): Diagnostic | undefined {
    return this.first === undefined
      ? undefined
      : numberNotExactDiagnostic(source, this.count, this.first.text, `line ${this.first.line} (byte ${this.first.offset})`)
  }
}
