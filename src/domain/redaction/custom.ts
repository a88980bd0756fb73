/**
 * Custom redaction rules from the config file (`redaction.patterns`, a list
 * of `{id, pattern}`): checked and compiled into {@link RedactionRule}s, or
 * refused with `InvalidArgument`. Pure: no I/O. A redactor matches them on
 * the original text and merges them with the built-in rules' redaction
 * (`./union.ts`: a custom pattern only ever redacts more).
 *
 * **Engine: RE2 (the `re2js` package), not V8's RegExp.** A custom pattern
 * is text nobody here has checked, run on every string of every shareable
 * output; on V8's backtracking engine a static check of its shape is a
 * blacklist that always misses a shape (bounded nested repeats
 * `(?:a{1,30}){1,30}$`, `.*a.*a.*a…`, overlapping adjacent quantifiers,
 * backreferences, lookarounds), and one miss hangs the command. RE2 (here
 * the pure-JavaScript port of Google's engine, MIT, no native build) runs a
 * search in time linear in the text (times the pattern's compiled size,
 * which is capped: {@link MAX_PROGRAM_SIZE}), whatever the pattern; it has
 * no lookarounds and no backreferences, which are refused with a remedy. Its
 * matcher reads a JavaScript string by code points and reports UTF-16
 * offsets, so `.` and classes take a whole astral character, and a lone
 * surrogate is a character like another. JavaScript escapes are translated
 * first (`\uXXXX`, `\u{…}`, `(?<name>…)`, `[^]`, `\cX`: `RE2JS.translateRegExp`);
 * RE2's own syntax works too (`(?i)`, `\x{…}`, `\pL`). `\d`, `\w`, `\s`
 * and `\b` are ASCII, as in RE2. Measured here: 0.1–0.6 s per MB for
 * ordinary patterns, about 6 s per MB for the worst accepted shapes
 * (`.*a.*a.*a…`), where V8 did not finish. The built-in rules stay on V8
 * (`./rules.ts`: hand-checked shapes, a hundred times faster). The shape
 * check of V8's days is kept ({@link hasNestedQuantifier}): those shapes are
 * mistakes on any backtracking engine a config may also be given to.
 *
 * What stays super-linear: finding ALL the matches of a string is, on any
 * engine with leftmost-first semantics (RE2's, Go's, Rust's), quadratic in
 * the worst case, when each match is followed by a long stretch a longer
 * match could still take (`a(?:.*b)?` on a line of `a`s and no `b`): each
 * search is linear, but there are as many searches as matches.
 *
 * @module
 */
import * as Either from "effect/Either"
import { RE2JS } from "re2js"
import { InvalidArgument } from "../errors.js"
import { builtinRuleIds, marker, type RedactionRule } from "./rules.js"

/** One custom pattern as the config file gives it: an id (named by the replacement) and a regular expression (RE2 syntax, JavaScript escapes accepted). */
export interface CustomPattern {
  readonly id: string
  readonly pattern: string
}

/** The most custom patterns a config file may give, and the longest pattern. */
export const MAX_CUSTOM_PATTERNS = 100
export const MAX_PATTERN_LENGTH = 1000
/**
 * The largest compiled RE2 program a custom pattern may have (RE2's
 * `programSize()`, instructions): a search's cost per character grows with
 * it. Ordinary patterns are 10–200 (`ACME-[0-9]{8}` 15, `[A-Za-z0-9]{40}`
 * 42); a nest of bounded repeats is thousands (`(?:a{1,30}){1,30}` 1,801).
 */
export const MAX_PROGRAM_SIZE = 1000

const ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

/**
 * The index of the `]` that closes the character class opening at `open` in
 * a pattern's text (its own escapes, a leading `^` and a leading `]`
 * skipped), or the text's length when it never closes.
 */
const classEnd = (source: string, open: number): number => {
  let i = open + 1
  if (source[i] === "^") i++
  if (source[i] === "]") i++
  while (i < source.length && source[i] !== "]") {
    if (source[i] === "\\") i++
    i++
  }
  return i
}

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
      i = classEnd(source, i)
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
      // `{n}` and `{n,m}` repeat when their most is 2 or more (`(?:.*a){20}`; `{0,1}`, `{1}` do not).
      const bounded = /^\{(\d+)(?:,(\d+))?\}/.exec(source.slice(i + 1))
      const repeats = q > 0 || (bounded !== null && Number(bounded[2] ?? bounded[1]) > 1)
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
 * {@link PROBE} (a word boundary alone, `(?:)`): it would put a marker
 * between characters all over every output.
 */
const matchesEmptySomewhere = (re: RE2JS): boolean => {
  if (re.matcher("").find()) return true
  const m = re.matcher(PROBE)
  let from = 0
  while (from <= PROBE.length && m.find(from)) {
    if (m.end() === m.start()) return true
    from = m.end()
  }
  return false
}

/** A lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) or a backreference (`\1`, `\k<name>`) in a pattern's text (escapes and classes skipped). */
const lookaroundOrBackreference = (source: string): string | undefined => {
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      const n = source[i + 1]
      if (n !== undefined && (/[1-9]/.test(n) || (n === "k" && source[i + 2] === "<"))) return "a backreference"
      i++
      continue
    }
    if (c === "[") {
      i = classEnd(source, i)
      continue
    }
    if (c === "(" && source[i + 1] === "?" && (/[=!]/.test(source[i + 2] ?? "") || (source[i + 2] === "<" && /[=!]/.test(source[i + 3] ?? "")))) {
      return "a lookaround"
    }
  }
  return undefined
}

const REMEDY =
  "Give each custom pattern an id (lower-case words joined by -, not a built-in rule's id) and a regular expression in RE2 syntax " +
  "(JavaScript escapes such as \\uXXXX are accepted; no lookarounds, no backreferences: match the text around a secret and it is redacted with it) " +
  "that cannot match the empty string and repeats no group that holds +, * or | (e.g. {\"id\": \"acme-key\", \"pattern\": \"ACME-[0-9]{8}\"})."

const refuse = (index: number, id: unknown, why: string) =>
  new InvalidArgument({
    message: `The config file's redaction.patterns[${index}]${typeof id === "string" && id !== "" ? ` (${id})` : ""} is not valid: ${why}.`,
    remediation: REMEDY
  })

/**
 * The `spans` of a custom rule: every RE2 match of `re` in `s`, left to right, as flat `[start, end, …]` UTF-16
 * offsets (RE2JS's matcher on a string). A match is never empty (refused at compile), so each search starts after
 * the last match: one search per match, each linear.
 */
const re2Spans = (re: RE2JS) => (s: string): ReadonlyArray<number> => {
  const m = re.matcher(s)
  const out: Array<number> = []
  let done = 0
  while (done < s.length && m.find(done)) {
    const start = m.start()
    const end = m.end()
    if (end <= start) break
    out.push(start, end)
    done = end
  }
  return out
}

/** The `apply` of a custom rule alone: every match of `spans` replaced by `[REDACTED:<id>]`. */
const re2Replace = (spans: (s: string) => ReadonlyArray<number>, id: string) => {
  const replacement = marker(id)
  return (s: string): string => {
    const sp = spans(s)
    if (sp.length === 0) return s
    let out = ""
    let done = 0
    for (let i = 0; i < sp.length; i += 2) {
      out += s.slice(done, sp[i]) + replacement
      done = sp[i + 1]
    }
    return out + s.slice(done)
  }
}

/** What a custom rule's `pattern` holds: never run (the rule's `apply` runs RE2); V8's reading of the pattern when it has one, else a pattern that matches nothing. */
const documentation = (source: string): RegExp => {
  for (const flags of ["gu", "g"]) {
    try {
      return new RegExp(source, flags)
    } catch {
      // RE2 syntax V8 does not read (`(?i)`, `\x{…}`): the next flags, then the pattern that matches nothing
    }
  }
  return /(?!)/g
}

/**
 * Compile custom patterns into rules (RE2; `[REDACTED:<id>]`; see the
 * module's doc), in the order given. `InvalidArgument` naming the first bad
 * one: an id that is not lower-case words joined by `-` or repeats a
 * built-in or another id, a pattern that is empty or longer than
 * {@link MAX_PATTERN_LENGTH}, does not compile as RE2 (a lookaround or a
 * backreference named as such), compiles to more than
 * {@link MAX_PROGRAM_SIZE} instructions, matches the empty string, or
 * repeats a group that holds a quantifier or an alternation
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
    const unsupported = lookaroundOrBackreference(p.pattern)
    if (unsupported !== undefined) {
      return Either.left(refuse(i, p.id, `the pattern uses ${unsupported}, which RE2 (the linear-time engine custom patterns run on) does not have`))
    }
    let re: RE2JS
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(p.pattern))
    } catch (e) {
      return Either.left(refuse(i, p.id, `the pattern does not compile as RE2 (${e instanceof Error ? e.message : String(e)})`))
    }
    if (re.programSize() > MAX_PROGRAM_SIZE) {
      return Either.left(
        refuse(i, p.id, `the pattern compiles to ${re.programSize()} RE2 instructions, more than ${MAX_PROGRAM_SIZE} (nested or long repeats: each costs time on every character of every output)`)
      )
    }
    if (matchesEmptySomewhere(re)) return Either.left(refuse(i, p.id, "the pattern matches the empty string"))
    if (hasNestedQuantifier(p.pattern)) {
      return Either.left(refuse(i, p.id, "the pattern repeats a group that holds +, * or | (catastrophic backtracking on other engines)"))
    }
    const spans = re2Spans(re)
    rules.push({ id: p.id, pattern: documentation(p.pattern), hints: [], apply: re2Replace(spans, p.id), spans })
  }
  return Either.right(rules)
}
