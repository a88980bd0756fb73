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

/** Characters a JSON string writes escaped, or that need a look (surrogates): strings without any take the fast path. */
const NEEDS_LOOK = /["\\\u0000-\u001f\ud800-\udfff]/

/** UTF-8 bytes of `JSON.stringify(s)`: the quotes, the escapes, a lone surrogate as `\uXXXX`. */
const jsonStringBytes = (s: string): number => {
  let n = Buffer.byteLength(s, "utf8") + 2
  if (!NEEDS_LOOK.test(s)) return n
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22 || c === 0x5c) n += 1 // \" and \\
    else if (c < 0x20) n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 1 : 5 // \n, or \u00XX
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++ // a pair: 4 bytes either way
    else if (c >= 0xd800 && c <= 0xdfff) n += 3 // lone: \uXXXX (6 bytes) where byteLength counted U+FFFD (3)
  }
  return n
}

/**
 * UTF-8 bytes of `JSON.stringify(value)` for a value `JSON.parse` returned (plain objects and arrays, strings,
 * numbers, booleans, null), without building that text: a size check of a large record (an export's event against
 * `maxRecordBytes`) costs a walk, not a second copy of the record. A non-finite number counts as `null`, as JSON
 * writes it. Recursion is bounded by the value's depth (parsed under `maxDepth` first).
 */
export const compactJsonBytes = (value: unknown): number => {
  switch (typeof value) {
    case "string":
      return jsonStringBytes(value)
    case "number":
      return Number.isFinite(value) ? String(value).length : 4
    case "boolean":
      return value ? 4 : 5
    case "object": {
      if (value === null) return 4
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1)
        for (let i = 0; i < value.length; i++) n += compactJsonBytes(value[i])
        return n
      }
      const keys = Object.keys(value)
      let n = 2 + Math.max(0, keys.length - 1)
      for (const k of keys) n += jsonStringBytes(k) + 1 + compactJsonBytes((value as Record<string, unknown>)[k])
      return n
    }
    default:
      return 0
  }
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

/**
 * A nested field by path (one to three keys), or undefined. Keys as
 * parameters, not a rest array: a Muse Code line reads a dozen paths, and
 * the array of each call was a measurable part of a first import (issue 13).
 */
export const at = (o: unknown, k1: string, k2?: string, k3?: string): unknown => {
  if (!isRecord(o)) return undefined
  const v1 = o[k1]
  if (k2 === undefined) return v1
  if (!isRecord(v1)) return undefined
  const v2 = v1[k2]
  if (k3 === undefined) return v2
  return isRecord(v2) ? v2[k3] : undefined
}

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
 * True when the JSON number token `text[start, end)` may not write back as
 * the same value, so {@link numberNotExact} must look at it: a `-0` prefix,
 * an exponent, a run of 17 or more digits and points, or 16 from a `9`. Any
 * other token has at most 16 digits and no exponent: a decimal of at most 15
 * significant digits (the point takes the 16th place) or an integer below
 * 9e15 < 2^53, both exact. A superset of the tokens {@link numberNotExact}
 * accepts (property test: `test/muse-code/native-numbers.test.ts`).
 */
const mayBeInexact = (text: string, start: number, end: number, exponent: boolean): boolean => {
  if (exponent) return true
  let i = start
  if (text.charCodeAt(i) === 45) {
    if (text.charCodeAt(i + 1) === 48) return true
    i++
  }
  const run = end - i
  return run >= 17 || (run === 16 && text.charCodeAt(i) === 57)
}

/**
 * The numbers of a valid JSON text whose parsed value does not write back as
 * the same value ({@link numberNotExact}), or undefined (the common case).
 * One pass of the text without a regular expression: strings are skipped
 * with `indexOf` to their closing quote (one not escaped by an odd run of
 * backslashes); each number token outside them is delimited by its
 * characters, and only one that {@link mayBeInexact} (a `-0`, an exponent,
 * 16 or more digits) is given to {@link numberNotExact}. The source text
 * keeps the exact number: providers report a `NUMBER_NOT_EXACT` diagnostic
 * (see {@link numberNotExactDiagnostic}).
 */
export const inexactNumbers = (text: string): InexactNumbers | undefined => {
  let count = 0
  let first = ""
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // a string: to its closing quote (one not escaped by an odd run of backslashes)
      let j = text.indexOf("\"", i + 1)
      for (;;) {
        if (j < 0) return count > 0 ? { count, first } : undefined
        if (text.charCodeAt(j - 1) !== 92) break
        let b = 1
        while (text.charCodeAt(j - 1 - b) === 92) b++
        if (b % 2 === 0) break
        j = text.indexOf("\"", j + 1)
      }
      i = j + 1
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      // a number token: sign, digits and points, then an exponent's letter, sign and digits
      const start = i++
      let d = text.charCodeAt(i)
      while ((d >= 48 && d <= 57) || d === 46) d = text.charCodeAt(++i)
      let exponent = false
      if (d === 101 || d === 69) {
        exponent = true
        d = text.charCodeAt(++i)
        if (d === 43 || d === 45) d = text.charCodeAt(++i)
        while (d >= 48 && d <= 57) d = text.charCodeAt(++i)
      }
      if (mayBeInexact(text, start, i, exponent)) {
        const token = text.slice(start, i)
        if (numberNotExact(token)) {
          if (count === 0) first = token
          count++
        }
      }
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

/**
 * A member's value of a JSON object text, and its text when that text is,
 * character for character, `JSON.stringify` of the value (see
 * {@link canonicalMember}): a writer may copy `text` instead of writing the
 * value again. Carried on an event under {@link CANONICAL_PAYLOAD}.
 */
export interface CanonicalText {
  readonly value: unknown
  readonly text: string
  /** Where `text` starts in the JSON text it was found in (UTF-16 units). */
  readonly at: number
  /**
   * The source's UTF-8 bytes of `text` (what encoding `text` gives), when the
   * reader has them at hand ({@link withSourceBytes}): a writer copies them
   * instead of encoding `text`.
   */
  readonly bytes?: Uint8Array | undefined
}

/**
 * `c` with `bytes`: the bytes of `c.text` within `lineBytes`, the UTF-8 bytes
 * that `line` was decoded from. Only for a line that is valid UTF-8 (a
 * decoder put no U+FFFD in for bad bytes), so that each character of `line`
 * is its own bytes and the offsets carry over: the bytes before and after
 * `text` are measured (`Buffer.byteLength` of the text around it, which is
 * short in a record line), not the payload itself.
 */
export const withSourceBytes = (c: CanonicalText, line: string, lineBytes: Uint8Array): CanonicalText => {
  const before = Buffer.byteLength(line.slice(0, c.at), "utf8")
  const after = Buffer.byteLength(line.slice(c.at + c.text.length), "utf8")
  return { value: c.value, text: c.text, at: c.at, bytes: lineBytes.subarray(before, lineBytes.length - after) }
}

/**
 * Where an adapter leaves, on a `SessionEvent` (a symbol key, not enumerable: `JSON.stringify`, a spread,
 * `Object.keys` and `for…in` never see it), the {@link CanonicalText} of the
 * object at its `extensions["native.muse"].payload`. A writer uses the text
 * only while that payload is still the very `value` (the same object).
 */
export const CANONICAL_PAYLOAD: unique symbol = Symbol("session-ingest.canonicalPayload")

/** Own keys of a parsed JSON value, counted through its objects and arrays. */
const countKeys = (v: unknown): number => {
  if (typeof v !== "object" || v === null) return 0
  let n = 0
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += countKeys(v[i])
    return n
  }
  for (const k in v) n += 1 + countKeys((v as Record<string, unknown>)[k])
  return n
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13

/** True when a number token is written back by `JSON.stringify` as the same text. */
const canonicalNumber = (token: string): boolean => {
  let plain = token.length <= 15 && !(token.charCodeAt(0) === 45 && token.charCodeAt(1) === 48)
  for (let i = 0; plain && i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c === 46 || c === 101 || c === 69) plain = false
  }
  return plain || String(Number(token)) === token
}

/**
 * The text of the member `key` of a JSON object text (`text` is valid JSON,
 * well-formed UTF-16 as decoded from UTF-8, and `value` is what `JSON.parse`
 * made of that member), when it is exactly `JSON.stringify(value)`; otherwise
 * undefined. Proven in one pass of the text, conservatively: the text starts
 * with `{`, its top-level keys hold no escape and `key` is one of them once;
 * the member's text holds no whitespace outside strings, no escape but
 * `\"`, `\\`, `\b`, `\f`, `\n`, `\r` and `\t`, no key starting with a digit
 * (`JSON.parse` puts integer-like keys first), every number as
 * `JSON.stringify` writes it, and as many keys as `value` has (no duplicate
 * key). Property test: `test/stream-output.test.ts`.
 */
export const canonicalMember = (text: string, key: string, value: unknown): CanonicalText | undefined =>
  scanMember(text, key, value, false)?.canonical

/** What {@link canonicalMemberAndNumbers} found in a JSON object text: its member's {@link CanonicalText} and its {@link inexactNumbers}. */
export interface MemberScan {
  readonly canonical: CanonicalText | undefined
  readonly inexact: InexactNumbers | undefined
}

/**
 * {@link canonicalMember} and {@link inexactNumbers} of the same text (valid
 * JSON, as `canonicalMember` takes it), in one pass: the number tokens are
 * looked at where the member's scan delimits them (the same tokens as
 * `inexactNumbers`' in valid JSON). When that scan stops early (the member is
 * not proven canonical before the end of the text), the numbers are counted
 * by `inexactNumbers` after all. A Muse Code native record line needs both
 * (stream figure (a), issue 13): one pass of the line instead of two.
 */
export const canonicalMemberAndNumbers = (text: string, key: string, value: unknown): MemberScan =>
  scanMember(text, key, value, true) ?? { canonical: undefined, inexact: inexactNumbers(text) }

/**
 * The scan of {@link canonicalMember}; with `numbers`, each number token is
 * also checked as {@link inexactNumbers} checks it. Undefined when the scan
 * stopped before the end of the text (then the numbers were not all seen).
 */
const scanMember = (text: string, key: string, value: unknown, numbers: boolean): MemberScan | undefined => {
  if (text.charCodeAt(0) !== 123) return undefined
  let count = 0
  let first = ""
  const n = text.length
  let depth = 0
  let start = -1
  let end = -1
  let keys = 0
  let backslash = text.indexOf("\\")
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    const inside = start >= 0 && end < 0
    if (c === 34) {
      // a string: to its closing quote (one not escaped by an odd run of backslashes)
      let j = text.indexOf("\"", i + 1)
      for (;;) {
        if (j < 0) return undefined
        if (text.charCodeAt(j - 1) !== 92) break
        let b = 1
        while (text.charCodeAt(j - 1 - b) === 92) b++
        if (b % 2 === 0) break
        j = text.indexOf("\"", j + 1)
      }
      // a key is followed by `:`; at the top level (where the text may be spaced) after any whitespace
      let colon = j + 1
      if (depth === 1) while (isSpace(text.charCodeAt(colon))) colon++
      const isKey = text.charCodeAt(colon) === 58
      while (backslash >= 0 && backslash < i) backslash = text.indexOf("\\", backslash + 1)
      const escaped = backslash >= 0 && backslash < j
      if (isKey && depth === 1) {
        if (escaped) return undefined
        if (j - i - 1 === key.length && text.startsWith(key, i + 1)) {
          if (start >= 0 || colon !== j + 1) return undefined
          start = j + 2
        }
      } else if (inside) {
        if (escaped) {
          for (let b = backslash; b >= 0 && b < j; b = text.indexOf("\\", b + 2)) {
            const e = text.charCodeAt(b + 1)
            if (e !== 34 && e !== 92 && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116) return undefined
            backslash = b
          }
        }
        if (isKey) {
          const f = text.charCodeAt(i + 1)
          if (f >= 48 && f <= 57) return undefined
          keys++
        }
      }
      i = j + 1
    } else if (c === 123 || c === 91) {
      depth++
      i++
    } else if (c === 125 || c === 93) {
      depth--
      i++
    } else if (c === 44 && depth === 1 && inside) {
      end = i
      i++
    } else if ((inside || numbers) && (c === 45 || (c >= 48 && c <= 57))) {
      const s = i++
      let d = text.charCodeAt(i)
      let exponent = false
      while ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) {
        if (d === 101 || d === 69) exponent = true
        d = text.charCodeAt(++i)
      }
      if (inside && !canonicalNumber(text.slice(s, i))) return undefined
      if (numbers && mayBeInexact(text, s, i, exponent)) {
        const token = text.slice(s, i)
        if (numberNotExact(token)) {
          if (count === 0) first = token
          count++
        }
      }
    } else {
      if (inside && isSpace(c)) return undefined
      i++
    }
    if (depth === 0 && start >= 0 && end < 0) end = i - 1
  }
  const inexact = count > 0 ? { count, first } : undefined
  if (start < 0 || end < 0 || countKeys(value) !== keys) return { canonical: undefined, inexact }
  return { canonical: { value, text: text.slice(start, end), at: start }, inexact }
}

/**
 * An event's `text` and the source's UTF-8 bytes of `JSON.stringify` of it
 * (see {@link verbatimString}), carried on the event under
 * {@link CANONICAL_TEXT}: a writer copies the bytes instead of writing the
 * text again, while the event's `text` is still `value`.
 */
export interface VerbatimText {
  readonly value: string
  readonly bytes: Uint8Array
}

/**
 * Where an adapter leaves, on a `SessionEvent` (a symbol key, not enumerable,
 * as {@link CANONICAL_PAYLOAD}), the {@link VerbatimText} of its `text`.
 */
export const CANONICAL_TEXT: unique symbol = Symbol("session-ingest.canonicalText")

/**
 * The UTF-8 bytes, within `lineBytes`, of the string token of the JSON text
 * `line` (decoded from `lineBytes`, which are valid UTF-8, and accepted by
 * `JSON.parse`) that is, byte for byte, `JSON.stringify(value)`; undefined
 * when that is not proven. `value` must be the string value of a member
 * named `key` (letters only) that the parsed line has, at any depth. Proven
 * without comparing the token with `value`: the key is spelled
 * `"key"` once in the whole line and no `\u` escape is in it (the only way
 * to spell a key's letters otherwise), so that spelling is the member's key;
 * it is followed by `:"`, so its value is a string token, which ends at the
 * first quote not escaped (an even run of backslashes before it); that token
 * holds no `\/` and no `\u`, so its escapes are only `\"`, `\\`, `\b`,
 * `\f`, `\n`, `\r` and `\t`: what `JSON.stringify` writes for those
 * characters (a raw character of a string in valid JSON is never one it
 * escapes, and valid UTF-8 decodes to no lone surrogate). Property test:
 * `test/stream-output.test.ts`.
 */
export const verbatimString = (line: string, lineBytes: Uint8Array, key: string, value: string): Uint8Array | undefined => {
  if (value.length === 0) return undefined
  const quoted = `"${key}"`
  const at = line.indexOf(quoted)
  const open = at + quoted.length + 1
  if (at < 0 || line.charCodeAt(open - 1) !== 58 || line.charCodeAt(open) !== 34) return undefined
  if (line.indexOf(quoted, at + 1) >= 0 || line.indexOf("\\u") >= 0) return undefined
  let close = line.indexOf("\"", open + 1)
  for (;;) {
    if (close < 0) return undefined
    let b = 0
    while (line.charCodeAt(close - 1 - b) === 92) b++
    if (b % 2 === 0) break
    close = line.indexOf("\"", close + 1)
  }
  const slash = line.indexOf("\\/", open)
  if (slash >= 0 && slash < close) return undefined
  const before = Buffer.byteLength(line.slice(0, open), "utf8")
  const after = Buffer.byteLength(line.slice(close + 1), "utf8")
  return lineBytes.subarray(before, lineBytes.length - after)
}
