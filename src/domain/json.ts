/**
 * Bounded JSON parsing: `JSON.parse` plus a nesting-depth limit, returning a
 * result instead of throwing. Every provider parses through here so the
 * depth rule (64 levels, seed 001) holds everywhere.
 *
 * @module
 */

/** Why a text was not accepted as JSON. */
export type JsonProblem =
  | { readonly _tag: "syntax"; readonly message: string }
  | { readonly _tag: "depth"; readonly limit: number }

/** Result of {@link parseJson}. */
export type JsonResult =
  | { readonly _tag: "ok"; readonly value: unknown }
  | { readonly _tag: "error"; readonly problem: JsonProblem }

/**
 * Nesting depth of a parsed value, counting objects and arrays (`{}` is 1, a
 * scalar 0); stops descending once `limit` is passed, so its own recursion is
 * bounded by `limit + 1` frames.
 */
export const exceedsDepth = (value: unknown, limit: number): boolean => {
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v !== "object" || v === null) return false
    if (depth + 1 > limit) return true
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (walk(v[i], depth + 1)) return true
      return false
    }
    for (const k in v) if (walk((v as Record<string, unknown>)[k], depth + 1)) return true
    return false
  }
  return walk(value, 0)
}

/**
 * False when `text` cannot nest deeper than `limit`: every level opens with
 * its own `{` or `[`, so a text with at most `limit` of them (inside strings
 * or not) is shallow enough. Counts with native `indexOf` and stops at
 * `limit + 1`, so most records skip the walk of {@link exceedsDepth}.
 */
const mayExceedDepth = (text: string, limit: number): boolean => {
  let n = 0
  for (let i = text.indexOf("{"); i >= 0; i = text.indexOf("{", i + 1)) if (++n > limit) return true
  for (let i = text.indexOf("["); i >= 0; i = text.indexOf("[", i + 1)) if (++n > limit) return true
  return false
}

/**
 * Parse a JSON text. Fails with `syntax` on invalid JSON (including an empty
 * text) and `depth` when objects/arrays nest deeper than `maxDepth` levels.
 */
export const parseJson = (text: string, maxDepth: number): JsonResult => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { _tag: "error", problem: { _tag: "syntax", message: e instanceof Error ? e.message : String(e) } }
  }
  if (mayExceedDepth(text, maxDepth) && exceedsDepth(value, maxDepth)) {
    return { _tag: "error", problem: { _tag: "depth", limit: maxDepth } }
  }
  return { _tag: "ok", value }
}

/** True for a plain JSON object (not null, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A string field of a record, or undefined. */
export const str = (o: unknown, key: string): string | undefined => {
  if (!isRecord(o)) return undefined
  const v = o[key]
  return typeof v === "string" ? v : undefined
}

/** A nested field by path, or undefined. */
export const at = (o: unknown, ...path: ReadonlyArray<string>): unknown => {
  let cur: unknown = o
  for (const k of path) {
    if (!isRecord(cur)) return undefined
    cur = cur[k]
  }
  return cur
}

/**
 * A number token that may not survive `JSON.parse` (cheap test of a line's
 * text, run on every line): after `:`, `,` or `[`, a `-0`, a
 * run of 17 or more digits and points, 16 digits from 9 (any decimal of 15
 * significant digits is exact, and so is an integer below 9e15 < 2^53: epoch
 * microseconds are 16 digits from 1), or an exponent. Strings may match too;
 * {@link inexactNumbers} then looks closer.
 */
// (the lookahead after the structural character lets most `:` and `,` fail at once: two to three times faster)
const MAYBE_INEXACT = /[:,[](?=[\s\d-])\s*(?:-0|-?[\d.]{17}|-?9\d{15}|-?\d[\d.]*[eE])/

/** A number token, at a position (sticky). */
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** A decimal's digits without leading or trailing zeros and its power of ten (`"0"` for zero): the same for two texts of the same value. */
const decimalKey = (token: string): string => {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)
  if (m === null) return token
  let digits = m[1] + (m[2] ?? "")
  let exp = Number(m[3] ?? 0) - (m[2]?.length ?? 0)
  digits = digits.replace(/^0+/, "")
  if (digits.length === 0) return "0"
  const trimmed = digits.replace(/0+$/, "")
  exp += digits.length - trimmed.length
  return `${token.startsWith("-") ? "-" : ""}${trimmed}e${exp}`
}

/**
 * True when a JSON number token's parsed value writes back (`JSON.stringify`)
 * as another value: beyond a double (`1e400`: `null`), `-0` (written `0`),
 * too small (`1e-400`: `0`), or more digits than a double keeps
 * (`123456789012345678901234567890`: `1.2345678901234568e+29`).
 */
export const numberNotExact = (token: string): boolean => {
  const v = Number(token)
  if (!Number.isFinite(v) || Object.is(v, -0)) return true
  return decimalKey(String(v)) !== decimalKey(token)
}

/** What {@link inexactNumbers} found: how many numbers of a text JSON does not carry exactly, and the first (its source text). */
export interface InexactNumbers {
  readonly count: number
  readonly first: string
}

/**
 * The numbers of a valid JSON text whose parsed value does not write back as
 * the same value ({@link numberNotExact}), or undefined (the common case,
 * found by one regex test of the text: only a text with a `-0`, a run of 16
 * or more digits or an exponent after `:`, `,` or `[` is scanned, strings
 * skipped). The source text keeps the exact number: providers report a
 * `NUMBER_NOT_EXACT` diagnostic (see {@link numberNotExactDiagnostic}).
 */
export const inexactNumbers = (text: string): InexactNumbers | undefined => {
  if (!MAYBE_INEXACT.test(text)) return undefined
  let count = 0
  let first = ""
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // a string: to its closing quote (one not escaped by an odd run of backslashes)
      let j = text.indexOf("\"", i + 1)
      for (;;) {
        if (j < 0) return count > 0 ? { count, first } : undefined
        let b = 0
        while (text.charCodeAt(j - 1 - b) === 92) b++
        if (b % 2 === 0) break
        j = text.indexOf("\"", j + 1)
      }
      i = j + 1
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER_TOKEN.lastIndex = i
      const m = NUMBER_TOKEN.exec(text)
      if (m === null) {
        i++
        continue
      }
      if (numberNotExact(m[0])) {
        if (count === 0) first = m[0]
        count++
      }
      i += m[0].length
    } else i++
  }
  return count > 0 ? { count, first } : undefined
}

/** Diagnostic code of {@link numberNotExactDiagnostic}. */
export const NUMBER_NOT_EXACT = "NUMBER_NOT_EXACT" as const

/**
 * The one diagnostic of a source whose numbers JSON cannot carry exactly
 * (counted by {@link inexactNumbers}): `count` numbers, the first `first`
 * (its source text) on the line `where` names, in the source `source`.
 */
export const numberNotExactDiagnostic = (source: string, count: number, first: string, where: string) => ({
  code: NUMBER_NOT_EXACT,
  message:
    `${count} number(s) of ${source} are not carried exactly by the events (JSON numbers are doubles: beyond ±1.8e308 they become null, -0 becomes 0, below 5e-324 they become 0, past about 16 significant digits they are rounded); the first: ${first.length > 40 ? first.slice(0, 40) + "…" : first} on the ${where}.`,
  remediation: "The exact text is in the source: read it at the event's rawReference (its line or byte offset).",
  details: { count, first: first.length > 40 ? first.slice(0, 40) + "…" : first, where }
})
