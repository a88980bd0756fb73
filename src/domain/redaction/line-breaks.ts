/**
 * Redaction through a view of the text with the line breaks a format's grammar lets stand for a space folded into
 * one (session 40): where JSON, YAML, an HTTP header, INI/TOML/.env, code, SQL or XML allows a line break (with
 * indentation, blank lines, CRLF, or their escapes in JSON text) between a secret's name (or its keyword) and its
 * value, a formatter, an editor or a person may put one there, and the rules, written for one line, missed the value
 * while a title and a search snippet (their white space folded) hid it. The joints folded:
 *
 * - after a `:` that ends a line, unless the next line starts a key of its own (`key:`): JSON's `"password":` then
 *   the value, YAML's `password:` then an indented value or a block scalar's `|` / `>`, a header's `Cookie:` then the
 *   cookie, Kotlin's `val password:` then `String = "…"`;
 * - before a `:` that starts a line after a quoted name (JSON's `"password"` then `: "…"`);
 * - after an `=`, `:=` or `=>` that ends a line, and before one that starts a line (`password` then `= "…"`;
 *   `==`, `!=`, `<=`, `>=` are comparisons and no joint);
 * - after an HTTP authentication scheme (`Bearer`, `Basic`, `SSWS`; `token`, `Digest` after `Authorization:`);
 * - SQL's `IDENTIFIED` then `BY`/`WITH`, and `IDENTIFIED BY` then the password;
 * - between an XML/HTML tag's attributes (`key="ApiKey"` then `value="…"` on the next line).
 *
 * The rules run on the text as written and, when it holds such a joint, on the view of the lines around each (the
 * line before the joint's and the one after it: a window, as `./continuations.ts` reads its views); each span they
 * hide in the view is hidden in the text too, with what they hid as written (the union, `./union.ts`), so the view
 * only ever hides more. The line break and the indentation stay, outside the value's marker, unless a rule's span
 * took in the words on both sides of it. A shell command's plain line break ends the command and is no joint (its
 * line continuation, `\` then a line break, is `./continuations.ts`'s). Pure.
 *
 * @module
 */
import { hiddenSpans, unionHidden } from "./union.js"
import { lineEnd, lineStart } from "./continuations.js"

/** A line break as written or as an escape in JSON text (`\n`, `\r\n`), one or two levels deep (`\\n`). */
const NL = String.raw`(?:\r?\n|(?<!\\)\\{1,2}(?:r\\{1,2})?n)`
/** Blanks: spaces, tabs, a tab's escape. */
const BL = String.raw`(?:[ \t]|(?<!\\)\\{1,2}t)*`
/** A joint's white space: blanks, then one to three line breaks, each with the blanks after it. */
const BREAK = `${BL}(?:${NL}${BL}){1,3}`

/** What starts a joint's next line: no white space; a backslash only as an escape's (`\"`, `\\\"`, `\u0022`), not a line break's. */
const NEXT = String.raw`(?=[^\s\\]|\\{1,3}[^\s\\nrt])`

/**
 * The start of a line that is a key of its own (YAML's next `key:`, an `.env` line's `KEY=`): no value of the line
 * before, so no joint there.
 */
const KEY_LINE = String.raw`[\w"'.\-]{1,128}(?::(?:[ \t]|$|\\|\r?\n)|=[^=])`

/**
 * What a `:` that ends a line follows when it ends a key (no prose's `Enter the password:`): a key's name alone, quoted
 * (JSON, Python; maybe with escaped quotes in JSON text) or a word (YAML, `.`, `-`, `$`, `@` in it), after the line's
 * or the text's start and indentation, a `- ` list item's dash, `{`, `[`, `(`, `,`, a string's opening quote (YAML held
 * in a JSON string), or a declaration's keyword
 * (`val`, `var`, `let`, `const`, …: Kotlin's `val password:` then the type).
 */
const KEY_HEAD = String.raw`(?:^|\\n|\\t|[\n{\[(,\-"']|(?:^|[\s{(,])(?:val|var|let|const|private|public|protected|readonly|static|final|export|lateinit))[ \t]*(?:\\{0,3}"[^"\n]{1,128}"|'[^'\n]{1,128}'|[\w.$@\-]{1,128})[ \t]*`

/**
 * What an `=` that ends a line is followed by on the next line for a joint: a quoted value, or one word to the
 * line's end holding a digit, with no `.`, `(`, `[`, `;`, `,`, `$` or `#` (an INI or `.env` value); not a
 * comparison's `=`, not code (`getPassword();`, `settings.API_KEY2`, a reference) nor a plain word (`abc`), as
 * `secret-field` reads a value on the line after `=` (session 37).
 */
const ONE_VALUE = String.raw`(?=\\{0,3}["'${"`"}]|(?=[^\s.(\[;,$#=\\]{0,511}\d)[^\s.(\[;,$#=\\]{1,512}[ \t]*(?:\r?\n|$|\\{1,2}[rn]|\\{0,3}["']))`

/**
 * Every joint of a text (see the module's doc): the white space run a view folds into one space. Written as
 * lookbehinds and lookaheads around {@link BREAK}, so a match is the run alone.
 */
const JOINT = new RegExp(
  // (a joint's run first, at its blanks or its line break: the lookbehinds are tried only there)
  `(?=${BREAK})(?:` +
  [
    // `key:` then the value: a key's name alone before the `:`, not a key of its own or a list's item after it
    String.raw`(?<=${KEY_HEAD}:)${BREAK}(?!${KEY_LINE}|-[ \t])${NEXT}`,
    // a cookie header's name then its `name=value` pairs
    String.raw`(?<=[Cc]ookie:|COOKIE:)${BREAK}${NEXT}`,
    // a quoted name then `:` on the next line
    String.raw`(?<=["'])${BREAK}(?=:[^:=])`,
    // `=` after a blank, `:=`, `=>` that ends a line (`KEY=` then a line break is an empty value in `.env`, `f(key=` a
    // keyword argument that `secret-field` reads itself)
    String.raw`(?<=[ \t]=|=>|:=)${BREAK}(?!${KEY_LINE})${ONE_VALUE}`,
    // a name then `=`, `:=`, `=>` on the next line
    String.raw`(?<=[\w"'\])])${BREAK}(?==(?!=)|:=|=>)`,
    // an HTTP authentication scheme
    String.raw`(?<=\b(?:Bearer|Basic|SSWS)|[Aa]uthorization:[ \t]{0,8}(?:token|Token|Digest))${BREAK}(?=[A-Za-z0-9+/=_\-.~"'])`,
    // SQL: `IDENTIFIED` then `BY`/`WITH`, `IDENTIFIED BY` then the password
    String.raw`(?<=\b(?:IDENTIFIED|identified|Identified))${BREAK}(?=(?:BY|by|By|WITH|with|With)\b)`,
    String.raw`(?<=\b(?:IDENTIFIED|identified|Identified)\s{1,16}(?:BY|by|By))${BREAK}(?=\S)`,
    // an XML/HTML tag's next attribute
    String.raw`(?<=<[\w:.\-]{1,64}(?:\s{1,16}[\w:.\-]{1,64}=\\{0,3}(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'))*)${BREAK}(?=[\w:.\-]{1,64}=\\{0,3}["'])`
  ].join("|") + ")",
  "y"
)

/** Whether `s` holds a line break, as written or as an escape in JSON text: the first test of every look. */
const hasBreak = (s: string): boolean => s.indexOf("\n") >= 0 || s.indexOf("\\n") >= 0

/**
 * Where the run of blanks before the line break at `i` starts (spaces, tabs, a CR, and their escapes in JSON text, one
 * or two levels deep), the line break's own backslashes taken in.
 */
const runStart = (s: string, i: number): number => {
  let k = i
  // a line break's escape two levels deep (`\\n`): its first backslash
  if (s.charCodeAt(k) === 92 && s.charCodeAt(k - 1) === 92) k--
  for (;;) {
    const c = s.charCodeAt(k - 1)
    if (c === 32 || c === 9 || c === 13) k--
    else if ((c === 116 || c === 114) && s.charCodeAt(k - 2) === 92) k -= s.charCodeAt(k - 3) === 92 ? 3 : 2
    else return k
  }
}

/** The words a joint may follow (an HTTP scheme, SQL's `IDENTIFIED` and `BY`). */
const JOINT_WORDS = new Set(["Bearer", "Basic", "SSWS", "token", "Token", "Digest", "IDENTIFIED", "identified", "Identified", "BY", "by", "By"])

/**
 * A quick look before {@link JOINT} is tried at a line break (at `i`, its run of blanks from `start`): what the run
 * follows is a `:`, `=`, `>`, a quote or one of {@link JOINT_WORDS}, or what starts the next line is an `=` or a `:`.
 */
const mayJoin = (s: string, start: number, i: number): boolean => {
  const c = s.charCodeAt(start - 1)
  // `:` `=` `>` `"` `'`
  if (c === 58 || c === 61 || c === 62 || c === 34 || c === 39) return true
  let k = i + (s.charCodeAt(i) === 92 ? (s.charCodeAt(i + 1) === 92 ? 3 : 2) : 1)
  while (k < s.length) {
    const d = s.charCodeAt(k)
    if (d === 32 || d === 9 || d === 13 || d === 10) k++
    else if (d === 92 && (s.charCodeAt(k + 1) === 116 || s.charCodeAt(k + 1) === 110 || s.charCodeAt(k + 1) === 114)) k += 2
    else break
  }
  const n = s.charCodeAt(k)
  if (n === 61 || n === 58) return true
  let w = start
  while (w > 0 && start - w < 12 && isLetter(s.charCodeAt(w - 1))) w--
  return w < start && JOINT_WORDS.has(s.slice(w, start))
}

/** Whether `c` is an ASCII letter. */
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/**
 * The joints of `s`, `[start, end)` pairs: at each line break (as written or as an escape), {@link JOINT} tried
 * once, from the blanks before it (the lookbehinds run there only, not at every character).
 */
const jointsOf = (s: string): Array<number> => {
  const out: Array<number> = []
  let nl = s.indexOf("\n")
  let esc = s.indexOf("\\n")
  let from = 0
  while (nl >= 0 || esc >= 0) {
    const i = esc < 0 || (nl >= 0 && nl < esc) ? nl : esc
    const start = runStart(s, i)
    let next = i + 1
    if (start >= from && mayJoin(s, start, i)) {
      JOINT.lastIndex = start
      const m = JOINT.exec(s)
      if (m !== null && m[0].length > 0) {
        out.push(start, start + m[0].length)
        next = start + m[0].length
        from = next
      }
    }
    if (nl >= 0 && nl < next) nl = s.indexOf("\n", next)
    if (esc >= 0 && esc < next) esc = s.indexOf("\\n", next)
  }
  return out
}

/** Whether `s` holds a joint (see the module's doc). */
export const hasJoint = (s: string): boolean => hasBreak(s) && jointsOf(s).length > 0

/** `s` with every joint folded into one space: the view a title or a search snippet reads (their white space folded too). */
export const foldJoints = (s: string): string => {
  if (!hasBreak(s)) return s
  const j = jointsOf(s)
  if (j.length === 0) return s
  let out = ""
  let done = 0
  for (let k = 0; k < j.length; k += 2) {
    out += s.slice(done, j[k]) + " "
    done = j[k + 1]
  }
  return out + s.slice(done)
}

/**
 * `scan` (a prefilter's one pass: bit 1 set when the rules may change `s`) that also tells the rules may change `s`
 * when they may change its view ({@link foldJoints}): so `IDENTIFIED` then `BY` on the next line is read even though
 * no hint (`IDENTIFIED BY`) is there as written.
 */
export const scanThroughJoints = (scan: (s: string) => number) => (s: string): number => {
  const bits = scan(s)
  if ((bits & 1) !== 0 || !hasBreak(s)) return bits
  const folded = foldJoints(s)
  return folded === s ? bits : bits | (scan(folded) & 1)
}

/** How many lines before a joint's line and after the line it joins a window takes in. */
const LINES_BEFORE = 1
const LINES_AFTER = 1

/** The joints of `s`, `[start, end)` pairs. */

/**
 * The windows a view is read in: each joint with the line it starts on and {@link LINES_BEFORE} before, the line it
 * joins and {@link LINES_AFTER} after; windows that touch or overlap are one. `[start, end)` pairs. (In JSON text,
 * one line: the window is the text.)
 */
const windowsOf = (s: string, joints: ReadonlyArray<number>): Array<number> => {
  const out: Array<number> = []
  for (let k = 0; k < joints.length; k += 2) {
    const start = lineStart(s, joints[k], LINES_BEFORE)
    const end = lineEnd(s, joints[k + 1], LINES_AFTER)
    if (out.length > 0 && start <= out[out.length - 1] + 1) out[out.length - 1] = Math.max(out[out.length - 1], end)
    else out.push(start, end)
  }
  return out
}

/**
 * A view of `s[from, to)`: its characters with each joint inside it one space, and for each the offsets in `s` it
 * stands for (`at`: where it starts; `end`: where it ends, a joint's whole run for its space).
 */
const viewOf = (s: string, from: number, to: number, joints: ReadonlyArray<number>) => {
  const at = new Int32Array(to - from)
  const end = new Int32Array(to - from)
  let text = ""
  let n = 0
  let done = from
  const keep = (a: number, b: number) => {
    text += s.slice(a, b)
    for (let i = a; i < b; i++) {
      at[n] = i
      end[n++] = i + 1
    }
  }
  for (let k = 0; k < joints.length; k += 2) {
    const a = joints[k]
    const b = joints[k + 1]
    if (a < from || b > to) continue
    keep(done, a)
    text += " "
    at[n] = a
    end[n++] = b
    done = b
  }
  keep(done, to)
  return { text, at: at.subarray(0, n), end: end.subarray(0, n) }
}

/** A marker in quotes: a number under a secret's name in JSON text becomes one (`"password": "[REDACTED:secret-field]"`). */
const QUOTED_MARK = /"\[REDACTED:([a-z0-9]+(?:-[a-z0-9]+)*)\]"/g
/** A quoted marker's stand-in while the spans are lined up (no rule's id ends so). */
const QUOTED_ID = "-quoted40"

/**
 * The spans of `view` its redaction `out` hides ({@link hiddenSpans}); where a rule wrote quotes around its marker
 * that the view did not hold (a number made a JSON string), the quotes go with the marker: the span is the value
 * (with its quotes if it had them), its mark the quoted marker.
 */
const spansOf = (view: string, out: string) => {
  const hidden = hiddenSpans(view, out)
  if (hidden !== undefined || out.indexOf("\"[REDACTED:") < 0) return hidden
  const bare = hiddenSpans(view, out.replace(QUOTED_MARK, `[REDACTED:$1${QUOTED_ID}]`))
  if (bare === undefined) return undefined
  const quoted = new RegExp(`\\[REDACTED:([a-z0-9-]+)${QUOTED_ID}\\]`, "g")
  return bare.map((h) => ({ ...h, mark: h.mark.replace(quoted, "\"[REDACTED:$1]\"") }))
}

/** A span of a text a redaction hides, with the marker(s) written in its place. */
type Span = { readonly start: number; readonly end: number; readonly mark: string }

/**
 * `redact` that also reads the text with its joints folded (see the module's doc): `redact(s)`, then, when `s`
 * holds a joint, `redact` on the view of each window around them, each span hidden there hidden in `s` too (the
 * union). When a view's redaction or the text's cannot be lined up (a guard, not seen), the whole text's view is
 * redacted (its joints one space each: nothing of a span shows).
 */
export const throughJoints = (redact: (s: string) => string) => (s: string): string => {
  const base = redact(s)
  if (!hasBreak(s)) return base
  const joints = jointsOf(s)
  if (joints.length === 0) return base
  const w = windowsOf(s, joints)
  const spans: Array<Span> = []
  for (let k = 0; k < w.length; k += 2) {
    const view = viewOf(s, w[k], w[k + 1], joints)
    const out = redact(view.text)
    if (out === view.text) continue
    const hidden = spansOf(view.text, out)
    if (hidden === undefined) return redact(foldJoints(s))
    for (const h of hidden) {
      if (h.end <= h.start) continue
      spans.push({ start: view.at[h.start], end: view.end[h.end - 1], mark: h.mark })
    }
  }
  if (spans.length === 0) return base
  return unionHidden(s, base, spans) ?? redact(foldJoints(s))
}
