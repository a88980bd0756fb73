/**
 * Custom redaction rules from the config file (`redaction.patterns`, a list
 * of `{id, pattern}`): checked and compiled into {@link RedactionRule}s, or
 * refused with `InvalidArgument`. Pure: no I/O.
 *
 * @module
 */
import * as Either from "effect/Either"
import { InvalidArgument } from "../errors.js"
import { builtinRuleIds, type RedactionRule } from "./rules.js"

/** One custom pattern as the config file gives it: an id (named by the replacement) and a JavaScript regular expression. */
export interface CustomPattern {
  readonly id: string
  readonly pattern: string
}

/** The most custom patterns a config file may give, and the longest pattern. */
export const MAX_CUSTOM_PATTERNS = 100
export const MAX_PATTERN_LENGTH = 1000

const ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

/**
 * Whether `source` quantifies a group that itself holds an unbounded
 * quantifier or an alternation (`(a+)+`, `(\w*x)*`, `(?:a|b+){2,}`,
 * `(\w|\d)+`): the shape whose
 * backtracking is exponential or polynomial on a near miss. A scan of the
 * pattern's text (escapes and character classes skipped), conservative:
 * such a pattern is refused rather than risked on every output.
 */
export const hasNestedQuantifier = (source: string): boolean => {
  // One entry per open group: does it hold an unbounded quantifier?
  const stack: Array<boolean> = [false]
  const unboundedAt = (i: number): number => {
    // The length of an unbounded quantifier at i (`+`, `*`, `{n,}`), else 0.
    const c = source[i]
    if (c === "+" || c === "*") return 1
    if (c === "{") {
      const m = /^\{\d*,\}/.exec(source.slice(i))
      if (m !== null) return m[0].length
    }
    return 0
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c === "[") {
      // Skip the class (its own escapes and a leading `]`).
      i++
      if (source[i] === "^") i++
      if (source[i] === "]") i++
      while (i < source.length && source[i] !== "]") {
        if (source[i] === "\\") i++
        i++
      }
      continue
    }
    if (c === "(") {
      stack.push(false)
      continue
    }
    // An alternation makes a group's repetition ambiguous too (`(\w|\d)+`, `(a|aa)*`): treated as an unbounded quantifier.
    if (c === "|") {
      stack[stack.length - 1] = true
      continue
    }
    if (c === ")") {
      const inner = stack.length > 1 ? stack.pop()! : false
      const q = unboundedAt(i + 1)
      // An unbounded quantifier, or a bounded one that repeats (`{2,5}`), on a group holding one.
      const repeats = q > 0 || /^\{\d+,\d+\}/.test(source.slice(i + 1)) && !/^\{[01],[01]\}/.test(source.slice(i + 1))
      if (inner && repeats) return true
      if (inner || q > 0) stack[stack.length - 1] = true
      continue
    }
    if (unboundedAt(i) > 0) stack[stack.length - 1] = true
  }
  return false
}

/** Every printable ASCII character and a few others, each once: where a zero-width match (`(?=a)`, `\b`) shows. */
const PROBE = Array.from({ length: 0x7f - 0x20 }, (_, k) => String.fromCharCode(0x20 + k)).join("") + "\t\néß中\u{1F600}"

/**
 * Whether the pattern matches an empty string at some place in
 * {@link PROBE} (a lookaround or a word boundary alone): it would put a
 * marker between characters all over every output.
 */
const matchesEmptySomewhere = (source: string): boolean => {
  const re = new RegExp(source, "g")
  for (const m of PROBE.matchAll(re)) if (m[0].length === 0) return true
  return false
}

const refuse = (index: number, id: unknown, why: string) =>
  new InvalidArgument({
    message: `The config file's redaction.patterns[${index}]${typeof id === "string" && id !== "" ? ` (${id})` : ""} is not valid: ${why}.`,
    remediation:
      "Give each custom pattern an id (lower-case words joined by -, not a built-in rule's id) and a JavaScript regular expression that cannot match the empty string and quantifies no group that holds +, * or | (e.g. {\"id\": \"acme-key\", \"pattern\": \"ACME-[0-9]{8}\"})."
  })

/**
 * Compile custom patterns into rules (flag `g`; `[REDACTED:<id>]`), in the
 * order given. `InvalidArgument` naming the first bad one: an id that is not
 * lower-case words joined by `-` or repeats a built-in or another id, a
 * pattern that does not compile, is longer than {@link MAX_PATTERN_LENGTH},
 * matches the empty string or nests unbounded quantifiers
 * ({@link hasNestedQuantifier}); more than {@link MAX_CUSTOM_PATTERNS}.
 */
export const compileCustomPatterns = (
  patterns: ReadonlyArray<CustomPattern>
): Either.Either<ReadonlyArray<RedactionRule>, InvalidArgument> => {
  if (patterns.length > MAX_CUSTOM_PATTERNS) {
    return Either.left(refuse(MAX_CUSTOM_PATTERNS, undefined, `more than ${MAX_CUSTOM_PATTERNS} patterns`))
  }
  const seen = new Set(builtinRuleIds)
  const rules: Array<RedactionRule> = []
  for (const [i, p] of patterns.entries()) {
    if (!ID.test(p.id)) return Either.left(refuse(i, p.id, `the id ${JSON.stringify(p.id)} is not lower-case words joined by -`))
    if (seen.has(p.id)) return Either.left(refuse(i, p.id, `the id ${p.id} is already a ${builtinRuleIds.includes(p.id) ? "built-in rule's" : "pattern's"}`))
    seen.add(p.id)
    if (p.pattern.length === 0) return Either.left(refuse(i, p.id, "the pattern is empty"))
    if (p.pattern.length > MAX_PATTERN_LENGTH) return Either.left(refuse(i, p.id, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`))
    let re: RegExp
    try {
      re = new RegExp(p.pattern, "g")
    } catch (e) {
      return Either.left(refuse(i, p.id, `the pattern does not compile (${e instanceof Error ? e.message : String(e)})`))
    }
    if (new RegExp(re.source).test("") || matchesEmptySomewhere(re.source)) {
      return Either.left(refuse(i, p.id, "the pattern matches the empty string"))
    }
    if (hasNestedQuantifier(p.pattern)) {
      return Either.left(refuse(i, p.id, "the pattern quantifies a group that holds +, * or | (catastrophic backtracking)"))
    }
    rules.push({ id: p.id, pattern: re, hints: [] })
  }
  return Either.right(rules)
}
