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
