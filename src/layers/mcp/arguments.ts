/**
 * What was wrong with a tool call's arguments, in words: for each argument
 * at fault, what it must be (read from the tool's JSON Schema, the one
 * `tools/list` shows: an integer's bounds, a string's non-emptiness, the
 * values of an enumeration) and what was given. Effect's own parse messages
 * quote a field's `description` annotation where the constraint should be
 * ("Expected The page's budget in characters…, actual -5"): they are not
 * used.
 *
 * @module
 */
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"

/** The part of a JSON Schema read here. */
interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly $defs?: Record<string, JsonSchema>
}

/** The most arguments at fault an answer names (a call with 200,000 unknown arguments names 20, then how many more). */
const maxProblems = 20

/** A value as a client wrote it, short: a JSON text, cut at 60 characters. */
const shown = (value: unknown): string => {
  if (value === undefined) return "nothing"
  if (typeof value === "number") return String(value)
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 59)}…` : text
}

/**
 * What a value of `schema` must be, in words: `an integer from 1 to 1000`,
 * `an integer, at least 1`, `a non-empty string`, `one of "user", "assistant"`.
 * `$ref`s into `defs` are followed (Effect puts `Int` there).
 */
export const allowedText = (schema: JsonSchema, defs: Record<string, JsonSchema> = {}): string => {
  const ref = schema.$ref !== undefined ? defs[schema.$ref.replace(/^#\/\$defs\//, "")] : undefined
  const s: JsonSchema = { ...ref, ...schema }
  if (s.enum !== undefined) return s.enum.length === 1 ? JSON.stringify(s.enum[0]) : `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`
  const bounds = (what: string) =>
    s.minimum !== undefined && s.maximum !== undefined
      ? `${what} from ${s.minimum} to ${s.maximum}`
      : s.minimum !== undefined
      ? `${what}, at least ${s.minimum}`
      : s.maximum !== undefined
      ? `${what}, at most ${s.maximum}`
      : what
  switch (s.type) {
    case "integer":
      return bounds("an integer")
    case "number":
      return bounds("a number")
    case "string":
      return s.minLength !== undefined && s.minLength > 0
        ? s.maxLength !== undefined ? `a string of ${s.minLength} to ${s.maxLength} characters` : s.minLength === 1 ? "a non-empty string" : `a string of at least ${s.minLength} characters`
        : s.maxLength !== undefined ? `a string of at most ${s.maxLength} characters` : "a string"
    case "boolean":
      return "true or false"
    case "array":
      return "an array"
    case "object":
      return "an object"
    default:
      return "a value of the type tools/list gives"
  }
}

/**
 * The problems of `payload` (a tool call's arguments) against `parameters`
 * (the tool's `Schema.Struct`), from the failed decoding `error`: one line
 * per argument at fault, `name: expected <what is allowed>, got <value>`
 * (`name: missing, expected …`, `name: not an argument of this tool (it
 * takes …)`), in the order the decoding found them; arguments that are not
 * an object are said to be so. At most {@link maxProblems} arguments are
 * named, then `and N more arguments at fault`.
 */
export const argumentProblems = (parameters: Schema.Schema.Any, payload: unknown, error: ParseResult.ParseError): Array<string> => {
  const root = JSONSchema.make(parameters) as unknown as JsonSchema
  const properties = root.properties ?? {}
  const names = Object.keys(properties)
  const takes = names.length > 0 ? names.join(", ") : "no arguments"
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return [`the arguments must be an object (of ${takes}), got ${shown(payload)}`]
  }
  const given = payload as Record<string, unknown>
  const keys = new Set<string>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : undefined
    if (key !== undefined) keys.add(key)
  }
  if (keys.size === 0) return [`the arguments must be an object of ${takes}`]
  const listed = [...keys].slice(0, maxProblems)
  const more = keys.size - listed.length
  return listed.map((key) => {
    // Own members only: `constructor` or `toString` is not a parameter because Object.prototype has one.
    const schema = Object.hasOwn(properties, key) ? properties[key] : undefined
    if (schema === undefined) return `${key}: not an argument of this tool (it takes ${takes})`
    const allowed = allowedText(schema, root.$defs)
    return Object.prototype.hasOwnProperty.call(given, key) && given[key] !== undefined
      ? `${key}: expected ${allowed}, got ${shown(given[key])}`
      : `${key}: missing, expected ${allowed}`
  }).concat(more > 0 ? [`and ${more} more argument${more === 1 ? "" : "s"} at fault`] : [])
}
