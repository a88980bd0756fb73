/**
 * `JSON.stringify` of a value as a list of texts whose concatenation is
 * exactly `JSON.stringify(value)`: the value's first levels of plain objects
 * and arrays are walked here (punctuation and keys as texts of their own),
 * and each value below them is stringified on its own.
 *
 * Why (issue 13, bench figure c): V8 builds `JSON.stringify`'s result one
 * byte a character until it meets a character above U+00FF, and two bytes a
 * character from there on, as one string made of both parts; encoding it to
 * UTF-8 first copies the whole of it into one flat string of two bytes a
 * character. `discover`'s report of 10,000 native sessions is 10 MB, and
 * each of its receipts' redacted locators holds a U+2026 (an ellipsis): the copy and the
 * encoding of two-byte text cost ~100 ms of CPU. In parts, the sources stay
 * one byte a character and only the parts holding such a character are two.
 *
 * @module
 */

/**
 * The levels of plain objects and arrays walked by default: an envelope and
 * its `data`; each field of `data` is stringified whole. (Each of 10,000
 * sources stringified on its own cost more than the copy it saves.)
 */
const DEFAULT_LEVELS = 2

/** A value `JSON.stringify` would call `toJSON` on. */
const hasToJSON = (value: unknown): value is { toJSON: (key: string) => unknown } =>
  value !== null && (typeof value === "object" || typeof value === "bigint") &&
  typeof (value as { toJSON?: unknown }).toJSON === "function"

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Thrown when a part cannot be told apart from what `JSON.stringify` would do with it (the caller stringifies whole). */
class Unsplittable {}

/**
 * Push the JSON text of `value` under `key` (as `SerializeJSONProperty` of
 * ECMA-262 does: `toJSON` called with the key, then the value serialized),
 * walking `levels` more levels of plain objects and arrays. False when the
 * value has no JSON text (`undefined`, a function or a symbol): a property
 * then is left out, an array element is `null`.
 */
const push = (value: unknown, key: string, levels: number, out: Array<string>): boolean => {
  if (hasToJSON(value)) {
    value = value.toJSON(key)
    // `JSON.stringify(value)` below would call a `toJSON` of the result with the key "", not `key`.
    if (hasToJSON(value)) throw new Unsplittable()
  }
  if (levels > 0 && value !== null && typeof value === "object") {
    if (Array.isArray(value)) {
      out.push("[")
      const n = value.length
      for (let i = 0; i < n; i++) {
        if (i > 0) out.push(",")
        if (!push(value[i], String(i), levels - 1, out)) out.push("null")
      }
      out.push("]")
      return true
    }
    if (isPlainObject(value)) {
      out.push("{")
      let first = true
      const record = value as Record<string, unknown>
      for (const k of Object.keys(record)) {
        const mark = out.length
        out.push(`${first ? "" : ","}${JSON.stringify(k)}:`)
        if (push(record[k], k, levels - 1, out)) first = false
        else out.length = mark
      }
      out.push("}")
      return true
    }
  }
  const text = JSON.stringify(value)
  if (text === undefined) return false
  out.push(text)
  return true
}

/**
 * The texts whose concatenation is `JSON.stringify(value)` (see the module
 * doc), walking `levels` levels of plain objects and arrays (default 2).
 * Undefined when `value` has no JSON text, or holds, on a walked level, a
 * `toJSON` whose result has a `toJSON` of its own, or when walking it threw
 * (a cycle, a BigInt, a throwing getter or `toJSON`): the caller then calls
 * `JSON.stringify(value)` itself, which gives that answer or throws that
 * error. Getters and `toJSON` methods are called in `JSON.stringify`'s order.
 */
export const jsonParts = (value: unknown, levels: number = DEFAULT_LEVELS): Array<string> | undefined => {
  const out: Array<string> = []
  try {
    return push(value, "", levels, out) ? out : undefined
  } catch {
    return undefined
  }
}
