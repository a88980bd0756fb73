/**
 * What an error message echoes of its caller's input, held to a size that does not grow with that input: a session id
 * of 100 kB given to `show`, a 5 MB argument sent to the MCP server (tester36b F12). Pure.
 *
 * @module
 */

/** The bounds of {@link clippedEchoes}, in UTF-16 code units (characters). */
export interface EchoBounds {
  /** The longest run of non-space characters kept whole (an id, a path, a query). */
  readonly maxRun: number
  /** How much of a longer run is kept (its start). */
  readonly keep: number
  /** The longest text kept whole; a longer one keeps its first `maxText - 100` characters. */
  readonly maxText: number
}

/** Whether a UTF-16 unit is white space (as `\s` in a regular expression). */
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)))

/**
 * `text` with every run of more than `maxRun` non-space characters cut to its first `keep`, followed by
 * `…[+N characters]` (N: how many were left out), and the whole held to `maxText` characters the same way. Text
 * within the bounds is returned as it is.
 */
export const clippedEchoes = (text: string, bounds: EchoBounds): string => {
  // A scan, not a regular expression: a run of megabytes overflows the regular expression engine's stack.
  const pieces: Array<string> = []
  let kept = 0
  let runStart = -1
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isSpace(text.charCodeAt(i))) {
      if (runStart < 0) runStart = i
      continue
    }
    if (runStart >= 0 && i - runStart > bounds.maxRun) {
      pieces.push(text.slice(kept, runStart + bounds.keep), `…[+${i - runStart - bounds.keep} characters]`)
      kept = i
    }
    runStart = -1
  }
  pieces.push(text.slice(kept))
  const runs = pieces.join("")
  const cut = bounds.maxText - 100
  return runs.length > bounds.maxText ? `${runs.slice(0, cut)}…[+${runs.length - cut} characters]` : runs
}
