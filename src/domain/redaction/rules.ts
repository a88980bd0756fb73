/**
 * The redaction rules (issue 15): what a shareable output (Markdown, ATIF,
 * NDJSON export, the HTML replay, MCP answers) must not carry, as a table of
 * rules with ids, and {@link redactText}, which applies them to one string.
 * Each match becomes `[REDACTED:<rule-id>]`, except home paths, which become
 * `~`, and the rules that keep a name in front of the secret
 * (`url-credentials` keeps the scheme and user, `secret-assignment` the name
 * and its `=`, `url-query-secret` the parameter's name and `=`,
 * `secret-field` the key and its `:`, `secret-spaced-key`, `secret-pair`, `secret-line`,
 * `secret-pin`, `authorization` the name, `secret-nested` the keys and brackets,
 * `secret-block` the key line). Every rule has an id of its own. The rules
 * compose: none matches inside the marker an earlier one left. Pure: no I/O.
 *
 * Every pattern runs in linear time on any input: each starts at a literal
 * prefix or at the start of a run of its characters (a lookbehind), and
 * no quantified group holds another unbounded quantifier, so a match
 * attempt scans at most one run, and a run is tried from one place only
 * (`test/domain/redaction.test.ts` feeds each rule 100k-character near
 * misses). A rule also names `hints`: substrings without which it cannot
 * match, checked first so most strings skip most rules (all rules' hints are
 * found in one pass over a string: {@link textRedactor}, `./needles.ts`).
 *
 * @module
 */
import { needleScanner } from "./needles.js"
import { HUGE, Kept, stepped } from "./pausable.js"

/** A redaction rule: its id (named by the replacement), a global pattern, and how a match is replaced. */
export interface RedactionRule {
  /** Lower-case words joined by `-`, e.g. `github-token`; the replacement is `[REDACTED:<id>]`. */
  readonly id: string
  /** A global (`g`) pattern. */
  readonly pattern: RegExp
  /** Substrings one of which every match holds (case-sensitive); empty: always tried. */
  readonly hints: ReadonlyArray<string>
  /**
   * Substrings one of which every match also holds (non-empty when given), looked for by the one-pass
   * prefilter of {@link textRedactor} in place of `hints` because they hold rarer characters (`-p` rather
   * than `mysql`): the prefilter reads every character, and stops at each that anchors one of its needles.
   * When the gate is there, `hints` are then checked too (one pass of their own) before the pattern runs.
   */
  readonly gate?: ReadonlyArray<string>
  /** The replacement of one match (default: `[REDACTED:<id>]`), given the match and its groups. */
  readonly replace?: (match: string, ...groups: Array<string>) => string
  /**
   * The whole step on one string, when it is done faster by hand than by
   * `pattern` (same result as replacing its matches; `pattern` documents it).
   */
  readonly apply?: (s: string) => string
  /**
   * true when `apply` does more than `pattern` can say (it reads a structure: brackets, indentation), so
   * `pattern` documents only where a match starts; the reference of the differential test applies `apply`.
   */
  readonly byHand?: boolean
  /**
   * A custom rule's matches in a string (`./custom.ts`), as flat `[start, end, start, end, …]` UTF-16 offsets, left
   * to right, none empty. A redactor with such rules finds their matches on the original text and hides them with
   * what the other rules hide there (`./union.ts`: a custom pattern never makes a built-in rule miss); `apply`
   * applies the rule alone.
   */
  readonly spans?: (s: string) => ReadonlyArray<number>
}

/** The text that replaces a match of the rule `id`. */
export const marker = (id: string): string => `[REDACTED:${id}]`

/** What a home path (`/home/<user>`, `/Users/<user>`, `C:\Users\<user>`) becomes. */
export const HOME = "~"

/** Characters of a token's body (base64url-ish). */
const TOKEN = "[A-Za-z0-9_-]"

/**
 * The final bytes of the control sequences a tool's output holds before a word (a class): SGR's `m` (colours), `K`
 * and `J` (erase), `A`-`D`, `G`, `H`, `f` (cursor moves), `h`, `l` (modes). Fewer than ECMA-48's `@`-`~`: every rule's
 * boundary looks behind for one, and a letter that can end no sequence ends the look at once.
 */
const CSI_FINALS = "ABCDGHJKfhlm"
/** Whether `c` is one of {@link CSI_FINALS}. */
const isCsiFinal = (c: number) => c === 109 || c === 75 || (c >= 65 && c <= 68) || c === 71 || c === 72 || c === 74 || c === 102 || c === 104 || c === 108
/** The introducer of an ANSI control sequence ({@link ANSI_CSI}), as a pattern. */
const CSI_INTRO = String.raw`(?:\x1b|\\(?:u001[bB]|x1[bB]|033|[eE])|\^\[)\[|\x9b`
/**
 * The introducer of an SGR (colour) or erase sequence whose ESC was stripped, as a pattern: the `[` of `[32m`,
 * `[1;33m`, `[0K` (a CI log, a copy of a terminal's text, a tool that drops control characters leave them so;
 * tester22b F5: `[32msk_live_…[0m`), when one or more digits and `;`, then `m` or `K` follow it: such a sequence is a
 * boundary before a token as a whole one is ({@link ANSI_CSI}). (An introducer, not a sequence of its own: a
 * lookbehind meets it only at a `[`, so the boundary costs no more than before.)
 */
const STRIPPED_CSI_INTRO = String.raw`\[(?=[0-9;]{1,32}[mK])`
/**
 * An ANSI control sequence (ECMA-48 CSI: the introducer, parameter bytes `0-9:;<=>?`, at most two intermediate bytes
 * ` `-`/`, a final byte of {@link CSI_FINALS}), as a pattern: terminal output colours a token (`grep --color=always`, `gh`, test
 * runners: `ESC[32msk_live_…ESC[0m`), and the final byte (`m`) would otherwise read as the first character of a longer
 * word and hide the token after it (tester20b F1). The introducer is the ESC character then `[` (or the one-character
 * C1 CSI, U+009B), or ESC written as an escape: JSON's `\u001b` (`\\u001b` in JSON text held in a string), `\x1b`,
 * the shell's `\033`, `\e`, `\E` (`echo -e`, `printf`), or `^[` (caret notation: `cat -v`, `less`). A part of
 * {@link ESCAPE_BEFORE}, so a boundary in every rule; {@link csiEndsAt} is its hand-written form.
 */
const ANSI_CSI = String.raw`(?:${CSI_INTRO}|${STRIPPED_CSI_INTRO})[0-9:;<=>?]{0,32}[ -\/]{0,2}[${CSI_FINALS}]`
/** An ANSI control sequence's introducer and parameters so far ({@link ANSI_CSI} less its final byte), as a pattern. */
const CSI_PARAMS = String.raw`(?:${CSI_INTRO})[0-9:;<=>?]{0,32}`
const CSI_PARAMS_AT_END = new RegExp(`${CSI_PARAMS}$`)
/**
 * Whether position `p` of `s` lies in an ANSI control sequence's parameters (right after its introducer, or after
 * some of its parameter bytes): a rule whose match may begin with a digit (an email's local part) begins after the
 * sequence, not inside it (`ESC[1;33mbob@…` keeps `ESC[1;33m`).
 */
const inCsiParams = (s: string, p: number): boolean => {
  const c = s.charCodeAt(p - 1)
  return (c === 91 || c === 0x9b || (c >= 48 && c <= 63)) && CSI_PARAMS_AT_END.test(s.slice(Math.max(0, p - 40), p))
}
/**
 * A backslash escape that may end right before a token or a name, as a pattern: JSON's `\n`, `\r`, `\t`, `\b`,
 * `\f` and `\uXXXX` (Go's encoding/json writes `<`, `>`, `&` as `\u003c`, `\u003e`, `\u0026`; .NET's
 * System.Text.Json also `"`, `'`, `+` as `\u0022`, `\u0027`, `\u002B`; Rails' `to_json` `<`, `>`, `&`), and C's,
 * Python's and JavaScript's `\xXX`. Each ends in a letter or a hex digit, which would otherwise read as the first
 * character of a longer word and hide the token after it (`\u0027sk-ant-…`, `\u003cghp_…`; tester19 F2). One place
 * for every rule: {@link start}, {@link lead}, the names' lookbehinds, and by hand {@link escapeEndsAt}.
 */
const ESCAPE_BEFORE = String.raw`(?:\\(?:[nrtbf]|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2})|${ANSI_CSI})`
/**
 * An escape of a quote, `<`, `>` or `&` (`\u0022`, `\u0027`, `\u003c`, `\u003e`, `\u0026`, `\x22`, …), less the
 * backslash: where a bare value that runs over backslashes ends (a .NET or Go JSON string's escaped quote closes it).
 */
const QUOTE_ESCAPE = String.raw`u00(?:2[267]|3[cCeE])|x(?:2[267]|3[cCeE])`
/**
 * A quote written as an escape, as a pattern: JSON's `\u0022` and `\u0027` (.NET's System.Text.Json writes `"` and
 * `'` so; `\\u0022` in JSON text held in a string) and C's, Python's and JavaScript's `\x22`, `\x27`. Where the
 * rules that read a name and a quoted value (`secret-field`, `secret-assignment`) take a quote, this is one too
 * (session 20: `\u0022password\u0022: \u0022…\u0022` as `"password": "…"`), and it closes what it opened.
 */
const ESC_QUOTE = String.raw`\\{1,2}u00(?:22|27)|\\x2[27]`
/**
 * An `=` written as an escape (Gson, Google's Java JSON library, writes `=` as `\u003d` by default; `\u003D`,
 * `\x3d`), as a pattern: an assignment's `=` to `secret-field`, `secret-assignment` and `secret-line` (session 20).
 */
const ESC_EQ = String.raw`\\{1,2}u003[dD]|\\x3[dD]`
/** Where a text may hold an {@link ESC_EQ}: hints of the rules that read it. */
/**
 * A shell's line continuation between a credential's name or scheme and its value (session 24, tester24a F5: `-H
 * 'Authorization: Bearer \` then the token on the next line): blanks, `\` then a line break (`\\` then an escaped
 * one in JSON text: a tool call's input as JSON), then the next line's indentation; as a pattern. Session 36
 * (tester35a F8, F4): blanks between the `\` and the break too (`Bearer \` then two spaces, as a terminal's copy pads
 * a line: strictly no continuation, but a title, read on one line, hides the next line's token, so the bodies do as
 * well: fail closed), and in JSON text a tab of the indentation written `\t`. Session 37: also two JSON levels deep
 * (`\\\\\\n`, JSON text held in a JSON string: the `\` written `\\\\`, the line break `\\n`, a tab `\\t`).
 */
const NAME_CONT = String.raw`[ \t]{0,8}(?:\\[ \t]{0,8}\r?\n[ \t]{0,40}|\\\\[ \t]{0,8}(?:\\r)?\\n(?:[ \t]|\\t){0,40}|\\{4}[ \t]{0,8}(?:\\{2}r)?\\{2}n(?:[ \t]|\\{2}t){0,40})`
/**
 * A shell's line continuation inside a bare value (`\` then LF or CRLF; `\\` then `\n` or `\r\n` in JSON text), when
 * the next line goes on with a value's character right away (no indentation: the shell reads an indented line as a
 * word of its own), as a pattern (session 34, tester33c F2: `AWS_SECRET_ACCESS_KEY=wJalr…\` then the value's rest).
 */
const CONTINUATION = String.raw`(?:\\\r?\n|\\\\\\n|\\\\\\r\\n)`
/**
 * A run of shell line continuations (one or more: an empty continuation line, `\` alone on its line, goes on with the
 * word too; tester34c F4) right before a character of `cls` (a pattern of one character), as a pattern: where a value
 * made of `cls`'s characters runs on over continuations, as a shell reads it (`\` and a line break are taken out
 * before words are split). The one step that `secret-assignment`'s, `bearer-token`'s, `authorization`'s and the
 * option values' ({@link optionValue}) bare values take over continuations (session 34, tester34c F1).
 */
const continuedInto = (cls: string) => String.raw`${CONTINUATION}+(?=${cls})`
/** A character of `cls` (a pattern of one character) or a run of continuations before one ({@link continuedInto}). */
const runsOn = (cls: string) => String.raw`(?:${cls}|${continuedInto(cls)})`
/**
 * The further lines of a quoted value (a line break inside the quotes: `API_KEY='abc` then `def'`; tester34c F2),
 * each of at most 200 of `char`'s characters (a pattern of one character), at most 4 of them, as a pattern: a value
 * runs to its closing quote, and an unbalanced quote does not take the text after it. A line break may be written
 * as its escape (`\n`, `\r\n`: JSON text, where a rule's characters hold no backslash; session 35).
 */
const QUOTED_LINES = (char: string) => String.raw`(?:(?:\r?\n|\\r\\n|\\n)${char}{0,200}){0,4}`
/**
 * A quoted value's text, as a pattern: `count` of `char` (a pattern of one character: no line break, not the closing
 * quote) on the opening quote's line, then its further lines ({@link QUOTED_LINES}). The one step every rule that
 * reads a quoted value takes (session 35: `secret-assignment`'s since tester34c F2; `secret-field`,
 * `secret-spaced-key`, `secret-pair`, `authorization`, `credential-prose`'s quoted forms and every option's value,
 * {@link optionValue}: `--password "two` then `words"`, `{"api_key": "…` then `…"}`).
 */
const quotedText = (char: string, count = "{1,512}") => `${char}${count}${QUOTED_LINES(char)}`
/** A character of a quoted value closed by the quote of group `g` (a backreference): no line break, not that quote. */
const notClosing = (g: number | string) => `(?:(?!\\${g})[^\\n])`
/**
 * A character of a value in `q` quotes (`"`) opened by `n` backslashes and the quote (0: plain text;
 * 1, 3, 7: JSON text held in a string, once, twice, three times), as a pattern (session 36, tester35a F10): a
 * backslash run and what it escapes are one character, so the value's own escaped quote (`\"`; `\\\"` one JSON
 * level deeper: 2n+1 backslashes) is no closing quote, and an escaped backslash (2n+2 backslashes) before the
 * closing quote (`"a\\"`) leaves it closing. No closing quote is read inside a run.
 */
const quotedChar = (q: string, n: number) => {
  const esc = 2 * n + 2
  return String.raw`(?:[^${q}\\\n]|\\+[^${q}\\\n]|(?:\\{${esc}})*\\{${esc - 1}}${q}|(?:\\{${esc}})+(?=\\{${n}}${q}))`
}
/**
 * A quote `q` (one JSON does not escape: `'`, a backtick) after a backslash run, in a value it quotes, as a pattern: an
 * odd run escapes it (`\'`); an even run escapes it when a value's character follows (`\\'K2…`: Python's `\'` in JSON
 * text) and else is an escaped backslash before the closing quote (`'a\\', 'b'`), which closes the value unless no
 * later quote does.
 */
const escapedAfterRun = (q: string) => String.raw`\\(?:\\\\)*${q}|(?:\\\\)+${q}(?![\s,;:)}\]]|$)|(?:\\\\)+(?=${q})`
/**
 * A character of a value in plain single quotes, as a pattern (session 36, tester35a F10): as {@link quotedChar}, and
 * a quote escaped by a backslash run ({@link escapedAfterRun}: Python's `'a\'b'`; `\\'` when that text is held in a JSON string),
 * the shell's `'\''` idiom (`'\\''` in JSON text) and YAML's (and SQL's) doubled `''` are the value's own.
 */
const SINGLE_QUOTED_CHAR = String.raw`(?:[^'\\\n]|\\+[^'\\\n]|'\\+''|''|${escapedAfterRun("'")})`
/** A character of a value in plain backticks (a template literal), as a pattern: {@link SINGLE_QUOTED_CHAR}'s escapes, no doubling. */
const BACKTICK_QUOTED_CHAR = String.raw`(?:[^${"`"}\\\n]|\\+[^${"`"}\\\n]|${escapedAfterRun("`")})`
/** Where a value's opening quote `q` has exactly `n` backslashes before it, as a lookbehind. */
const openedBy = (q: string, n: number) => String.raw`(?<=(?<!\\)${n === 0 ? "" : String.raw`\\{${n}}`}${q})`
/** The openings {@link quotedValue} reads escapes in: `"`, `'` and a backtick plain, `"` in JSON text (1, 3, 7 backslashes). */
const ESCAPING_OPENINGS: ReadonlyArray<readonly [string, number]> = [['"', 0], ["'", 0], ["`", 0], ['"', 1], ['"', 3], ['"', 7]]
/**
 * A quoted value's text closed by the quote of group `g` (a backreference: the quote, maybe escaped), as a pattern:
 * {@link quotedText} of the characters the opening quote calls for (session 36, tester35a F10: an escaped or doubled
 * quote is the value's own, {@link quotedChar}, {@link SINGLE_QUOTED_CHAR}); of {@link notClosing}'s after any other
 * opening (`\u0022`, whose value has no escaped quote: .NET writes every `"` so; `\'`). One step for every rule
 * that reads a value in the quote of a group.
 */
const quotedValue = (g: number | string, count = "{1,512}", open = false) => {
  const text = (char: string) => open ? openQuoted(char, `\\${g}`, count) : quotedText(char, count)
  const known = ESCAPING_OPENINGS.map(([q, n]) => `${openedBy(q, n)}${text(q === "'" ? SINGLE_QUOTED_CHAR : q === "`" ? BACKTICK_QUOTED_CHAR : quotedChar(q, n))}`)
  const other = String.raw`(?<!(?<!\\)(?:\\{7}|\\{3}|\\)?"|(?<!\\)['${"`"}])${text(notClosing(g))}`
  return `(?:${[...known, other].join("|")})`
}
/** A line break, or its escape in JSON text (`\n`, `\r\n`), as a pattern. */
const LINE_BREAK = String.raw`(?:\r?\n|\\r\\n|\\n)`
/**
 * A quoted value alone on the line after its opening quote, closed by the quote of group `g` (session 37, tester36b
 * F8: `password: "` then `Zq8v…"`, `"""` then the value's line then `"""`, `--password "` then `Zq8v…"`), as a
 * pattern: a line break (or its escape), indentation, one word that looks like a secret (a letter and a digit, or 16
 * characters; no blank, quote or backslash) alone on that line, maybe a line break and indentation before the closing
 * quote. Bounded: linear.
 */
const breakLedValue = (g: number | string, close = `\\${g}`): string => {
  const t = String.raw`[^\s"'${"`"}\\]`
  return String.raw`${LINE_BREAK}[ \t]{0,40}(?:(?=${t}{0,63}[0-9])(?=${t}{0,63}[A-Za-z])|(?=${t}{16}))${t}{1,512}(?:${LINE_BREAK}[ \t]{0,40})?(?=${close})`
}
/** Python's triple quotes (`"""`, `'''`), also in JSON text and one level deeper (`\"\"\"`, `\\\"\\\"\\\"`), as a pattern. */
const TRIPLE_QUOTE = String.raw`"""|\\"\\"\\"|\\{3}"\\{3}"\\{3}"|'''`
/** Where the first line of a quoted value whose closing quote is out of reach ends: a line break, its escape, the text's end. */
const QUOTE_LINE_END = String.raw`(?=\r?\n|\\r\\n|\\n|$)`
/**
 * A quoted value's text ({@link quotedText} of `char`) before its closing quote `close` (a pattern), or, when that
 * quote is farther than the value may reach (more than {@link QUOTED_LINES}' line breaks away) or missing, the
 * value's part on the opening quote's line (session 36, tester35c F3: fail closed, as a value with no quote would go
 * to its line's end; a title, whose lines are joined, hides the whole value). The rule closes it with
 * {@link closedOrOpen}.
 */
const openQuoted = (char: string, close: string, count = "{1,512}") =>
  String.raw`(?:${quotedText(char, count)}(?=${close})|${OPEN_LOOKS}(?:(?!\r\n|\\r\\n|\\n)${char})${count}${QUOTE_LINE_END})`
/**
 * An {@link openQuoted} value's first line looks like a secret: a letter and a digit among its first 64 characters, or
 * 16 characters without a blank, or a passphrase of three words or more (`correct horse battery staple`: tester36b F2)
 * (`input('Password: ')` keeps its `)`: a quote that closed a string opens nothing).
 */
const OPEN_LOOKS = String.raw`(?:(?=[^\r\n]{0,63}[0-9])(?=[^\r\n]{0,63}[A-Za-z])|(?=[^\s"'\\]{16})|(?=[A-Za-z]{2,32}(?:[ \t][A-Za-z]{2,32}){2}))`
/** The closing quote `close` (a pattern) of an {@link openQuoted} value, or nothing at its first line's end. */
const closedOrOpen = (close: string) => `(?:${close}|${QUOTE_LINE_END})`
/** {@link CONTINUATION}, every one in a text. */
const CONTINUATIONS = new RegExp(CONTINUATION, "g")
/** A character of a bare `authorization` value, or continuations before one ({@link runsOn}). */
const AUTH_BARE = runsOn(String.raw`[^\s"'\\]`)
const VALUE_CONT = continuedInto(String.raw`[^\s"'${"`"};&|<>),\\]`)
const ESC_EQ_HINTS = ["\\u003d", "\\u003D", "\\x3d", "\\x3D"]

/**
 * An email's address literal (RFC 5321: `user@[10.0.0.1]`, `user@[IPv6:2001:db8::1]`; tester23b F7), as a pattern:
 * the domain of an `email` may be one.
 */
const EMAIL_LITERAL = String.raw`\[(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|IPv6:[0-9A-Fa-f:.]{2,45})\]`

/** {@link ESCAPE_BEFORE}, or a percent-encoded byte (`%20`, `%3D`, `%2F`: a URL-encoded separator ends in a hex digit). */
const BOUNDARY_ESCAPE = String.raw`${ESCAPE_BEFORE}|%[0-9A-Fa-f]{2}`

/**
 * Where a token may start: not right after a character of the class `cls`
 * (inside a longer word), or right after an escape ({@link BOUNDARY_ESCAPE}:
 * JSON text inside text, where the `n` of `\n` or the `7` of `\u0027` would
 * otherwise hide a key; a percent-encoded byte; gitleaks puts no boundary
 * before a prefix).
 */
const start = (cls: string) => String.raw`(?:(?<![${cls}])|(?<=${BOUNDARY_ESCAPE}))`

/**
 * A literal-led token: `prefix` (a pattern of literals), then the check that
 * it starts a token (as {@link start}) as a lookbehind over it. Leading with
 * the literal lets the engine skip to candidates instead of testing a
 * lookbehind at every position.
 */
const lead = (prefix: string, cls: string) => String.raw`(?:${prefix})(?<=(?:^|[^${cls}]|${BOUNDARY_ESCAPE})(?:${prefix}))`

/** {@link ANSI_CSI} at the end of a text (what {@link csiEndsAt} tests on the text before a position). */
const CSI_AT_END = new RegExp(`${ANSI_CSI}$`)
/**
 * Whether an ANSI control sequence ({@link ANSI_CSI}: `ESC[32m`, `\u001b[1;33m`, `\033[0m`, …) ends right before
 * position `p` of `s`: a final byte ({@link CSI_FINALS}) there, and the sequence's start at most 36 characters back.
 */
const csiEndsAt = (s: string, p: number): boolean => {
  const c = s.charCodeAt(p - 1)
  if (p < 2 || !isCsiFinal(c)) return false
  // the introducer's `[` (or U+009B) within the bytes a sequence may hold before its final byte: bounded, no scan back
  for (let q = p - 2; q >= 0 && q >= p - 36; q--) {
    const b = s.charCodeAt(q)
    if (b === 91 || b === 0x9b) return CSI_AT_END.test(s.slice(Math.max(0, q - 7), p))
    if (b < 32 || b > 63) return false
  }
  return false
}
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
/**
 * Whether an escape of {@link ESCAPE_BEFORE} ends right before position `p` of `s` (`\n`, `\r`, `\t`, `\b`, `\f`,
 * `\uXXXX`, `\xXX`): the hand-written rules' form of the same boundary.
 */
export const escapeEndsAt = (s: string, p: number): boolean => {
  if (csiEndsAt(s, p)) return true
  if (p >= 2 && s.charCodeAt(p - 2) === 92) {
    const c = s.charCodeAt(p - 1)
    if (c === 110 || c === 114 || c === 116 || c === 98 || c === 102) return true
  }
  if (p >= 4 && s.charCodeAt(p - 4) === 92 && s.charCodeAt(p - 3) === 120 && isHex(s.charCodeAt(p - 2)) && isHex(s.charCodeAt(p - 1))) return true
  return p >= 6 && s.charCodeAt(p - 6) === 92 && s.charCodeAt(p - 5) === 117 &&
    isHex(s.charCodeAt(p - 4)) && isHex(s.charCodeAt(p - 3)) && isHex(s.charCodeAt(p - 2)) && isHex(s.charCodeAt(p - 1))
}

/**
 * A lookahead: the run of the class `cls` that starts here is not made of lower-case letters only, nor of upper-case
 * letters only (`extra`: other characters both may hold, such as `_`). A random token of letters and digits holds a
 * digit or both cases; a placeholder (`xai-xxxx…`) or a word (`gsk_somethinglong`) does not. Bounded: linear.
 */
const notOneCase = (cls: string, extra: string) =>
  `(?![a-z${extra}]{1,1024}(?![${cls}]))(?![A-Z${extra}]{1,1024}(?![${cls}]))`

/** A global pattern from its source. */
const re = (source: string, flags = "g") => new RegExp(source, flags)

/**
 * An escape of one of a token's characters (a letter, a digit, `_`, `.`, `-`): JSON's `\u0073` (maybe `\\u0073`,
 * JSON text in a string), C's, Python's and JavaScript's `\x5f` (session 23, tester23b F7), JavaScript's and Rust's
 * `\u{5f}`, Python's `\U0000005f`, a URL's `%5F`, `%73` (percent-encoding), HTML's numeric references `&#95;`,
 * `&#x5f;` (any case, with leading zeros: `&#095;`, `&#x005F;`, as HTML reads them) and named `&lowbar;`,
 * `&UnderBar;`, `&period;` (`escaped-token`).
 */
const WORD_ESCAPE = (() => {
  const hex = "2[dDeE]|3[0-9]|[46][1-9a-fA-F]|5[0-9aAfF]|7[0-9aA]"
  return String.raw`\\{1,2}(?:u00|x|U000000)(?:${hex})|\\{1,2}u\{0{0,6}(?:${hex})\}|%(?:${hex})|&#(?:[xX]0{0,8}(?:${hex})|0{0,8}(?:4[5689]|5[0-7]|6[5-9]|[78][0-9]|9[057-9]|1[01][0-9]|12[0-2]));|&(?:lowbar|UnderBar|period);`
})()

/** A word with its {@link WORD_ESCAPE}s decoded. */
const decodeWordEscapes = (w: string): string =>
  w.replace(/\\{1,2}(?:u00|x|U000000)([0-9a-fA-F]{2})|\\{1,2}u\{0{0,6}([0-9a-fA-F]{2})\}|%([0-9a-fA-F]{2})|&#[xX]0{0,8}([0-9a-fA-F]{2});|&#0{0,8}([0-9]{2,3});|&(lowbar|UnderBar|period);/g,
    (_m, u, b, p, x, d, named) =>
      named === "period" ? "." : named !== undefined ? "_" : String.fromCharCode(parseInt(u ?? b ?? p ?? x ?? d, d === undefined ? 16 : 10)))

/**
 * The ids of the vendor tokens known by a fixed prefix (session 19, tester19 F1; their formats as gitleaks'
 * config/gitleaks.toml and trufflehog's detectors state them, see each rule).
 */
const VENDOR_TOKEN_RULES: ReadonlyArray<string> = [
  "groq-key", "xai-key", "vault-token", "google-oauth-secret", "google-oauth-token", "digitalocean-token", "shopify-token",
  "sentry-token", "discord-bot-token", "telegram-bot-token", "linear-api-key", "postman-api-key", "grafana-token", "databricks-token"
]

/**
 * More vendor tokens known by a fixed prefix (session 20, tester20b F3), one rule each, their shapes as gitleaks'
 * config/gitleaks.toml gives them (the rule named in each comment; gitleaks commit b58d3f1, 2026-07-22). Each is a
 * word of its own: not inside a longer word (an escape or an ANSI colour code before it is a boundary, as in every
 * rule), and a body longer than the shape stays. Left out: shapes gitleaks only takes next to the vendor's name
 * (Okta's `00…`, Mailgun's `key-…`, Adafruit's, Contentful's), Square's `EAAA…` (a base64 word may start so), and
 * prefixes gitleaks has no rule for (`r8_`, `lsv2_pt_`, `sbp_`, `dckr_pat_`, `CFPAT-`, `aio_`, Doppler's `dp.st.`).
 */
const VENDOR_TOKEN_TABLE_20: ReadonlyArray<RedactionRule> = [
  // Perplexity `pplx-` and 48 letters and digits (perplexity-api-key)
  { id: "perplexity-key", pattern: re(`${lead("pplx-", "A-Za-z0-9_-")}[A-Za-z0-9]{48}(?![A-Za-z0-9_-])`), hints: ["pplx-"] },
  // Notion integration token `ntn_`, 11 digits, 35 letters and digits (notion-api-token)
  { id: "notion-token", pattern: re(`${lead("ntn_", "A-Za-z0-9_")}[0-9]{11}[A-Za-z0-9]{35}(?![A-Za-z0-9_])`), hints: ["ntn_"] },
  // Atlassian API token `ATATT3` and 186 characters of `A-Za-z0-9_=-` (atlassian-api-token, its second form); 180 to
  // 256 go (its tail, `=` and a checksum of 8 hex digits, may vary)
  { id: "atlassian-token", pattern: re(`${lead("ATATT3", "A-Za-z0-9_-")}[A-Za-z0-9_=-]{180,256}(?![A-Za-z0-9_=-])`), hints: ["ATATT3"] },
  // Doppler tokens: `dp.pt.` (personal), `dp.st.` (service, maybe with its config's name: `dp.st.prd.`), `dp.ct.`
  // (CLI), `dp.sa.` (service account), `dp.scim.`, `dp.audit.`, then 40 to 44 letters and digits (gitleaks'
  // doppler-api-token gives `dp.pt.` and 43; trufflehog's doppler detector the other prefixes and 40 to 44; session 21)
  {
    id: "doppler-token",
    pattern: re(`${lead(String.raw`dp\.(?:pt|st(?:\.[a-z0-9_-]{2,35})?|ct|sa|scim|audit)\.`, "A-Za-z0-9_.-")}[A-Za-z0-9]{40,44}(?![A-Za-z0-9_])`),
    hints: ["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."]
  },
  // Pulumi access token `pul-` and 40 lower-case hex digits (pulumi-api-token)
  { id: "pulumi-token", pattern: re(`${lead("pul-", "A-Za-z0-9_-")}[a-f0-9]{40}(?![A-Za-z0-9_-])`), hints: ["pul-"] },
  // Terraform Cloud / HCP Terraform token: 14 letters and digits, `.atlasv1.`, 60 to 70 of `A-Za-z0-9_=-` (hashicorp-tf-api-token)
  {
    id: "terraform-cloud-token",
    pattern: re(String.raw`${start("A-Za-z0-9_.-")}[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])`),
    hints: [".atlasv1."]
  },
  // New Relic user API key `NRAK-` and 27 letters and digits (new-relic-user-api-key), insert key `NRII-` and 32 of
  // `a-z0-9-` (new-relic-insert-key)
  {
    id: "newrelic-key",
    pattern: re(`${lead("NRAK-", "A-Za-z0-9_-")}[A-Za-z0-9]{27}(?![A-Za-z0-9_-])|${lead("NRII-", "A-Za-z0-9_-")}[A-Za-z0-9-]{32}(?![A-Za-z0-9_-])`),
    hints: ["NRAK-", "NRII-"]
  },
  // Dynatrace API token `dt0c01.`, 24 letters and digits, `.`, 64 letters and digits (dynatrace-api-token)
  {
    id: "dynatrace-token",
    pattern: re(String.raw`${lead(String.raw`dt0c01\.`, "A-Za-z0-9_.-")}[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}(?![A-Za-z0-9_])`),
    hints: ["dt0c01."]
  },
  // Fly.io `fo1_` and 43 of `A-Za-z0-9_-`, macaroons `fm1a_`, `fm1r_`, `fm2_` and 100 or more base64 characters (flyio-access-token)
  {
    id: "flyio-token",
    pattern: re(`${lead("fo1_", "A-Za-z0-9_-")}[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])|${lead("fm(?:1[ar]|2)_", "A-Za-z0-9_")}[A-Za-z0-9+/]{100,8192}={0,3}(?![A-Za-z0-9+/=_])`),
    hints: ["fo1_", "fm1a_", "fm1r_", "fm2_"]
  },
  // Square access token `sq0atp-` and 22 to 60 of `A-Za-z0-9_-` (square-access-token; its `EAAA` form is left out)
  { id: "square-token", pattern: re(`${lead("sq0atp-", "A-Za-z0-9_-")}[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_-])`), hints: ["sq0atp-"] },
  // Mailchimp API key: 32 lower-case hex digits, `-us` and the data center's number (mailchimp-api-key)
  { id: "mailchimp-key", pattern: re(String.raw`${start("A-Za-z0-9_-")}[a-f0-9]{32}-us[0-9]{1,2}(?![A-Za-z0-9_-])`), hints: ["-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9"] },
  // Heroku API key `HRKU-` and 60 of `A-Za-z0-9_-` (heroku-api-key-v2: `HRKU-AA` and 58; the `AA` is taken as any two)
  { id: "heroku-key", pattern: re(`${lead("HRKU-", "A-Za-z0-9_-")}[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])`), hints: ["HRKU-"] },
  // PlanetScale `pscale_tkn_`, `pscale_oauth_`, `pscale_pw_` and 32 to 64 of `A-Za-z0-9_=.-` (planetscale-api-token,
  // planetscale-oauth-token, planetscale-password)
  {
    id: "planetscale-token",
    pattern: re(`${lead("pscale_(?:tkn|oauth|pw)_", "A-Za-z0-9_")}[A-Za-z0-9_=.-]{32,64}(?![A-Za-z0-9_=.-])`),
    hints: ["pscale_"]
  },
  // Shippo `shippo_live_` / `shippo_test_` and 40 hex digits (shippo-api-token)
  { id: "shippo-token", pattern: re(`${lead("shippo_(?:live|test)_", "A-Za-z0-9_")}[a-fA-F0-9]{40}(?![A-Za-z0-9_])`), hints: ["shippo_"] },
  // Cloudflare Origin CA key `v1.0-`, 24 hex digits, `-`, 146 hex digits (cloudflare-origin-ca-key)
  {
    id: "cloudflare-origin-key",
    pattern: re(`${lead(String.raw`v1\.0-`, "A-Za-z0-9_.-")}[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9_-])`),
    hints: ["v1.0-"]
  }
]

/** Mailgun's older keys: `key-` (private) or `pubkey-` (public validation) and 32 lower-case hex digits, a digit and a letter among them. */
const MAILGUN_OLDER = re(`${lead("(?:pub)?key-", "A-Za-z0-9_-")}(?=[a-f]{0,31}[0-9])(?=[0-9]{0,31}[a-f])[a-f0-9]{32}(?![A-Za-z0-9_-])`)
/** Mailgun's newer keys: 32 lower-case hex digits, `-`, 8, `-`, 8, as a word of its own. */
const MAILGUN_NEWER_SOURCE = `[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}(?![A-Za-z0-9_-])`
/** `mailgun-key`'s pattern: {@link MAILGUN_OLDER} or a newer key (what its `apply` replaces). */
const MAILGUN_KEY = re(`${MAILGUN_OLDER.source}|${start("A-Za-z0-9_-")}${MAILGUN_NEWER_SOURCE}`)
/**
 * A newer Mailgun key found from its first `-` (a literal the engine skips to): the match is `-…` to the key's end,
 * and the lookbehind checks the 32 hex digits before it start a word. The key starts 32 characters before the match.
 */
const MAILGUN_NEWER = re(String.raw`-[a-f0-9]{8}-[a-f0-9]{8}(?![A-Za-z0-9_-])(?<=(?:^|[^A-Za-z0-9_-]|${BOUNDARY_ESCAPE})${MAILGUN_NEWER_SOURCE.replace("(?![A-Za-z0-9_-])", "")})`)

/**
 * Session 21: vendor tokens the tables above left out, their shapes as the scanners cited in each comment give them
 * (format facts only). Each is a word of its own, as in {@link VENDOR_TOKEN_TABLE_20}; a run of letters of one case
 * only stays (a placeholder, an identifier). `CFPAT-` is no Cloudflare format: Cloudflare's scannable tokens are
 * `cfk_`, `cfut_`, `cfat_`; its older API tokens have no prefix (left to the named rules: `CF_API_TOKEN=…`).
 */
const VENDOR_TOKEN_TABLE_21: ReadonlyArray<RedactionRule> = [
  // Replicate API token `r8_` and 37 of `A-Za-z0-9_-` (trufflehog's replicate detector); 32 to 64 go
  { id: "replicate-token", pattern: re(`${lead("r8_", "A-Za-z0-9_-")}${notOneCase("A-Za-z0-9_-", "_-")}[A-Za-z0-9_-]{32,64}(?![A-Za-z0-9_-])`), hints: ["r8_"] },
  // LangSmith personal token `lsv2_pt_` and service key `lsv2_sk_`: 32 hex digits, `_`, 10 hex digits (trufflehog's
  // langsmith detector)
  { id: "langsmith-key", pattern: re(`${lead("lsv2_(?:pt|sk)_", "A-Za-z0-9_")}[a-f0-9]{32}_[a-f0-9]{10}(?![A-Za-z0-9_])`), hints: ["lsv2_pt_", "lsv2_sk_"] },
  // Supabase personal access token `sbp_` (and `sbp_oauth_`) and 40 lower-case hex digits (trufflehog's supabasetoken
  // detector, kingfisher's supabase rule)
  { id: "supabase-token", pattern: re(`${lead("sbp_(?:oauth_)?", "A-Za-z0-9_")}[a-f0-9]{40}(?![A-Za-z0-9_])`), hints: ["sbp_"] },
  // Docker Hub personal access token `dckr_pat_` and 27 of `A-Za-z0-9_-` (Sonar's docker-hub-personal-access-token
  // rule), and an organization access token `dckr_oat_`; 20 to 60 go
  { id: "docker-hub-token", pattern: re(`${lead("dckr_(?:pat|oat)_", "A-Za-z0-9_-")}${notOneCase("A-Za-z0-9_-", "_-")}[A-Za-z0-9_-]{20,60}(?![A-Za-z0-9_-])`), hints: ["dckr_pat_", "dckr_oat_"] },
  // Cloudflare's scannable credentials: `cfk_` (Global API Key), `cfut_` (user API token), `cfat_` (account API token),
  // then 40 characters and a checksum (developers.cloudflare.com, "Token formats"); 40 to 80 letters, digits, `_`, `-`
  { id: "cloudflare-token", pattern: re(`${lead("cf(?:k|ut|at)_", "A-Za-z0-9_-")}${notOneCase("A-Za-z0-9_-", "_-")}[A-Za-z0-9_-]{40,80}(?![A-Za-z0-9_-])`), hints: ["cfk_", "cfut_", "cfat_"] },
  // Adafruit IO key `aio_` and 28 letters and digits (trufflehog's adafruitio detector)
  { id: "adafruit-key", pattern: re(`${lead("aio_", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{28}(?![A-Za-z0-9_])`), hints: ["aio_"] },
  // Okta API token: `00` and 40 of `A-Za-z0-9_=-` (gitleaks' okta-access-token, which takes it only next to the word
  // okta), after the scheme `SSWS` (Okta's `Authorization: SSWS <token>`, also in code) or a name holding `okta`
  // (`okta_api_token: …`, `OKTA_TOKEN=…`, `oktaToken = "…"`); the scheme and the name stay
  {
    id: "okta-token",
    pattern: re(
      String.raw`((?:SSWS[ \t]{1,8}|(?:okta|Okta|OKTA)[A-Za-z0-9_.-]{0,40}(?:\{0,7}["'])?[ \t]{0,8}(?::=|=>|[:=])[ \t]{0,8}(?:\{0,7}["'])?))` +
        String.raw`00[A-Za-z0-9_=-]{40}(?![A-Za-z0-9_=-])`
    ),
    hints: ["SSWS", "okta", "Okta", "OKTA"],
    replace: (_m: string, head: string) => `${head}${marker("okta-token")}`
  },
  // Mailgun private API key `key-` and 32 lower-case hex digits (gitleaks' mailgun-private-api-token), its public
  // validation key `pubkey-` and 32 (mailgun-pub-key), and the newer keys (and webhook signing keys): 32 hex digits,
  // `-`, 8, `-`, 8 (mailgun-signing-key; trufflehog's mailgun detector), in a text that names Mailgun (both scanners
  // take them only so: the shape has no prefix). Not after `-` or a word (`cache-key-<md5>`)
  {
    id: "mailgun-key",
    pattern: MAILGUN_KEY,
    // the newer form has no literal of its own: it is looked for only in a text that names Mailgun (as gitleaks'
    // and trufflehog's rules take it only next to the vendor's name), from its first `-` (MAILGUN_NEWER)
    hints: ["key-", "ailgun", "AILGUN"],
    apply: (s) => {
      MAILGUN_OLDER.lastIndex = 0
      let out = s.includes("key-") ? s.replace(MAILGUN_OLDER, marker("mailgun-key")) : s
      if (!s.includes("ailgun") && !s.includes("AILGUN")) return out
      MAILGUN_NEWER.lastIndex = 0
      let acc = ""
      let done = 0
      let m: RegExpExecArray | null
      while ((m = MAILGUN_NEWER.exec(out)) !== null) {
        const at = m.index - 32
        if (at < done) continue
        acc += out.slice(done, at) + marker("mailgun-key")
        done = m.index + m[0].length
      }
      if (done > 0) out = acc + out.slice(done)
      return out
    },
    // (the newer form depends on the whole text naming Mailgun, which the pattern cannot say)
    byHand: true
  },
  // Square OAuth application secret `sq0csp-` and 43 of `A-Za-z0-9_-` (gitleaks' square-secret), and an access token
  // `EAAA` and 22 to 60 of `A-Za-z0-9_-` (gitleaks' square-access-token; the `sq0atp-` form is square-token's): a
  // digit and both cases in it, not inside base64 (no `+` or `/` before it, no `+`, `/` or `=` padding after it)
  { id: "square-secret", pattern: re(`${lead("sq0csp-", "A-Za-z0-9_-")}[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])`), hints: ["sq0csp-"] },
  {
    id: "square-access-token",
    pattern: re(`${lead("EAAA", "A-Za-z0-9_+/-")}(?=[A-Za-z_-]{0,59}[0-9])(?=[A-Z0-9_-]{0,59}[a-z])[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_+/=-])`),
    hints: ["EAAA"]
  }
]

/**
 * What after a `;` shows it separates a bare value from what follows: a connection string's next `name=` (its name may
 * hold spaces: `Data Source=`), or a shell command's word (two or more lowercase letters, then white space, a shell
 * operator or the end: `;make`, `;npm run`; a value's piece holds a digit or a capital: `;K2mX9pL`, `;b2`).
 */
const NEXT_AFTER_SEMICOLON = String.raw`[A-Za-z_][A-Za-z0-9_. -]{0,63}=|[a-z][a-z_-]{1,31}(?:[\s;&|<>)]|$)`

/**
 * A `;` inside a bare `secret-assignment` value (tester35a F11): an INI, `.env` or properties line's value runs to
 * the line's end (`password=Qz7v;K2mX9pL`), so a `;` with a value's character right after it is part of the value.
 * It ends the value where it separates: before white space, the text's end, another `;`, a shell operator, a quote or
 * a backslash (a shell's `PASSWORD=x; run`, `x;` at a line's end, `\n` in JSON text), and before a connection
 * string's next `name=` (`Password=x;Host=y`, `Pwd=x;Database=y`, `Password=x;Data Source=db`: tester35c F5), and
 * before a shell command's word (lowercase, then white space, a shell operator or the end: `API_TOKEN=x;make`).
 */
const VALUE_SEMICOLON = String.raw`;(?![\s;&|<>)"'${"`"}\\]|$|${NEXT_AFTER_SEMICOLON})`

/**
 * Session 35 (tester35a F9): long-lived credentials of gitleaks' rules (config/gitleaks.toml, the rule named in each
 * comment) that had none here, each known by a prefix or a fixed infix of its own, so ordinary text does not hold it;
 * and Google's OAuth refresh token (`1//0…`, GitHub secret scanning's and trufflehog's shape). Each is a word of its
 * own (as {@link VENDOR_TOKEN_TABLE_20}); a body takes the whole run of its characters from a floor under the
 * scanner's length to a ceiling over it, and a run of letters of one case only stays where the body is letters and
 * digits. The rules gitleaks takes only next to a vendor's name (a bare hex or base64 run) stay out: see
 * docs/redaction.md.
 */
const VENDOR_TOKEN_TABLE_35: ReadonlyArray<RedactionRule> = [
  // Azure AD (Entra ID) client secret: 3 characters, a digit, `Q~`, 31 to 34 (azure-ad-client-secret:
  // `[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}`); here 2 to 8 before the digit and 28 to 40 after `Q~`; never from
  // inside a terminal colour code (`\x1b[32m` then the secret: it starts after the `m`)
  {
    id: "azure-ad-client-secret",
    pattern: re(String.raw`${start("A-Za-z0-9_~.\\\\-")}(?<!${CSI_PARAMS})[A-Za-z0-9_~.]{2,8}[0-9]Q~[A-Za-z0-9_~.-]{28,40}(?![A-Za-z0-9_~.-])`),
    hints: ["Q~"]
  },
  // Google OAuth refresh token: `1//0` then base64url characters (GitHub secret scanning's google_oauth_refresh_token,
  // trufflehog's googleoauth2 detector: `1//0[0-9A-Za-z_-]{40,}`); here 30 to 512, slashes maybe JSON-escaped (`1\/\/0…`)
  {
    id: "google-refresh-token",
    pattern: re(String.raw`${lead(String.raw`1(?:\\{0,3}/){2}0`, "A-Za-z0-9_.\\\\-")}${notOneCase("A-Za-z0-9_-", "_-")}[A-Za-z0-9_-]{30,512}(?![A-Za-z0-9_-])`),
    hints: ["1//0", "1\\/\\/0"]
  },
  // 1Password service account token `ops_eyJ` and 250 or more base64 characters (1password-service-account-token; here
  // 200 to 8192), and a 1Password account's Secret Key `A3-XXXXXX-…` (1password-secret-key)
  {
    id: "onepassword-secret",
    pattern: re(
      `${lead("ops_eyJ", "A-Za-z0-9_")}[A-Za-z0-9+/]{200,8192}={0,3}(?![A-Za-z0-9+/=])|` +
        `${lead("A3-", "A-Za-z0-9_-")}[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9_-])`
    ),
    hints: ["ops_eyJ", "A3-"]
  },
  // Artifactory API key `AKCp` and 69 letters and digits (artifactory-api-key); here 60 to 80
  { id: "artifactory-key", pattern: re(`${lead("AKCp", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{60,80}(?![A-Za-z0-9_])`), hints: ["AKCp"] },
  // Clojars `CLOJARS_` and 60 letters and digits (clojars-api-token); here 50 to 80
  { id: "clojars-token", pattern: re(`${lead("CLOJARS_", "A-Za-z0-9_")}[A-Za-z0-9]{50,80}(?![A-Za-z0-9_])`), hints: ["CLOJARS_"] },
  // Duffel `duffel_test_` / `duffel_live_` and 43 of `A-Za-z0-9_=-` (duffel-api-token); here 36 to 64
  { id: "duffel-token", pattern: re(`${lead("duffel_(?:test|live)_", "A-Za-z0-9_")}[A-Za-z0-9_=-]{36,64}(?![A-Za-z0-9_=-])`), hints: ["duffel_"] },
  // EasyPost `EZAK` (and test `EZTK`) and 54 letters and digits (easypost-api-token, easypost-test-api-token); here 48 to 64
  { id: "easypost-token", pattern: re(`${lead("EZ[AT]K", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{48,64}(?![A-Za-z0-9_])`), hints: ["EZAK", "EZTK"] },
  // Frame.io `fio-u-` and 64 of `A-Za-z0-9_=-` (frameio-api-token); here 56 to 80
  { id: "frameio-token", pattern: re(`${lead("fio-u-", "A-Za-z0-9_-")}[A-Za-z0-9_=-]{56,80}(?![A-Za-z0-9_=-])`), hints: ["fio-u-"] },
  // Infracost `ico-` and 32 letters and digits (infracost-api-token)
  { id: "infracost-token", pattern: re(`${lead("ico-", "A-Za-z0-9_-")}(?![a-f0-9]{32}(?![A-Za-z0-9_-]))${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{32}(?![A-Za-z0-9_-])`), hints: ["ico-"] },
  // 42 School (Intra) client secret `s-s4t2ud-` / `s-s4t2af-` and 64 hex digits (intra42-client-secret)
  { id: "intra42-secret", pattern: re(`${lead("s-s4t2(?:ud|af)-", "A-Za-z0-9_-")}[a-fA-F0-9]{64}(?![A-Za-z0-9_-])`), hints: ["s-s4t2"] },
  // OpenShift user token `sha256~` and 43 of `A-Za-z0-9_-` (openshift-user-token); here 40 to 64; a run of hex digits
  // alone is a digest (session 36, tester35c F4: `/var/cache/sha256~<64 hex>`) and stays
  { id: "openshift-token", pattern: re(`${lead("sha256~", "A-Za-z0-9_-")}(?![a-fA-F0-9]{40,64}(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{40,64}(?![A-Za-z0-9_-])`), hints: ["sha256~"] },
  // Prefect `pnu_` and 36 letters and digits (prefect-api-token); here 32 to 48
  { id: "prefect-token", pattern: re(`${lead("pnu_", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{32,48}(?![A-Za-z0-9_])`), hints: ["pnu_"] },
  // ReadMe `rdme_` and 70 lower-case letters and digits (readme-api-token); here 64 to 80
  { id: "readme-token", pattern: re(`${lead("rdme_", "A-Za-z0-9_")}[a-z0-9]{64,80}(?![A-Za-z0-9_])`), hints: ["rdme_"] },
  // RubyGems `rubygems_` and 48 hex digits (rubygems-api-token); here 40 to 64
  { id: "rubygem-api-token", pattern: re(`${lead("rubygems_", "A-Za-z0-9_")}[a-f0-9]{40,64}(?![A-Za-z0-9_])`), hints: ["rubygems_"] },
  // Scalingo `tk-us-` and 48 of `A-Za-z0-9_-` (scalingo-api-token); here 40 to 64
  { id: "scalingo-token", pattern: re(`${lead("tk-us-", "A-Za-z0-9_-")}[A-Za-z0-9_-]{40,64}(?![A-Za-z0-9_-])`), hints: ["tk-us-"] },
  // Sendinblue (Brevo) `xkeysib-`, 64 hex digits, `-`, 16 letters and digits (sendinblue-api-token)
  { id: "sendinblue-key", pattern: re(`${lead("xkeysib-", "A-Za-z0-9_-")}[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9_-])`), hints: ["xkeysib-"] },
  // Sourcegraph `sgp_`, maybe 16 hex digits or `local` and `_`, then 40 hex digits (sourcegraph-access-token)
  { id: "sourcegraph-token", pattern: re(`${lead("sgp_", "A-Za-z0-9_")}(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}(?![A-Za-z0-9_])`), hints: ["sgp_"] },
  // Harness personal or service account token `pat.` / `sat.`, 22, `.`, 24, `.`, 20 (harness-api-key)
  {
    id: "harness-token",
    pattern: re(String.raw`${lead(String.raw`[ps]at\.`, "A-Za-z0-9_.-")}[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}(?![A-Za-z0-9_.-])`),
    hints: ["pat.", "sat."]
  },
  // Alibaba Cloud AccessKey ID `LTAI` and 20 letters and digits (alibaba-access-key-id); here 17 to 24; capitalized
  // words of letters (session 36, tester35c F4: `LTAIGeneralPurposeConfigX`, a name) stay
  { id: "alibaba-access-key", pattern: re(`${lead("LTAI", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}(?!(?:[A-Z][a-z]{2,}){2,}[A-Z]?(?![A-Za-z0-9_]))[A-Za-z0-9]{17,24}(?![A-Za-z0-9_])`), hints: ["LTAI"] },
  // Facebook page access token `EAAM` / `EAAC` and 100 or more letters and digits (facebook-page-access-token); up to 512
  { id: "facebook-token", pattern: re(`${lead("EAA[MC]", "A-Za-z0-9_+")}[A-Za-z0-9]{100,512}(?![A-Za-z0-9_+/=])`), hints: ["EAAM", "EAAC"] },
  // Adobe client secret `p8e-` and 32 letters and digits (adobe-client-secret)
  { id: "adobe-client-secret", pattern: re(`${lead("p8e-", "A-Za-z0-9_-")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{32}(?![A-Za-z0-9_-])`), hints: ["p8e-"] },
  // MaxMind license key: 6 letters and digits, `_`, 29, `_mmk` (maxmind-license-key)
  { id: "maxmind-key", pattern: re(`${start("A-Za-z0-9_\\\\")}[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9_])`), hints: ["_mmk"] },
  // SettleMint `sm_aat_`, `sm_pat_`, `sm_sat_` and 16 letters and digits (settlemint-*-access-token)
  { id: "settlemint-token", pattern: re(`${lead("sm_[aps]at_", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9", "")}[A-Za-z0-9]{16}(?![A-Za-z0-9_])`), hints: ["sm_aat_", "sm_pat_", "sm_sat_"] }
]

/** The rules `escaped-token` runs on a decoded word: the tokens known by their shape alone. */
const ESCAPED_TOKEN_RULES: ReadonlySet<string> = new Set([
  "jwt", "anthropic-key", "openai-key", "github-token", "aws-access-key", "google-api-key", "slack-token", "stripe-key",
  "sendgrid-key", "age-secret-key", "npm-token", "gitlab-token", "huggingface-token", "pypi-token", "twilio-api-key",
  ...VENDOR_TOKEN_RULES, ...VENDOR_TOKEN_TABLE_20.map((rule) => rule.id), ...VENDOR_TOKEN_TABLE_21.map((rule) => rule.id),
  ...VENDOR_TOKEN_TABLE_35.map((rule) => rule.id)
])

/**
 * Whether `w`, the first part of a Discord bot token, is the base64 of a Discord id (a snowflake: 17 to 20 decimal
 * digits), as every bot token's is: tells a token from other dotted base64 words.
 */
const discordId = (w: string): boolean => /^[0-9]{17,20}$/.test(Buffer.from(w, "base64url").toString("latin1"))

/** A word of token characters holding a {@link WORD_ESCAPE} (the pattern of `escaped-token`). */
const ESCAPED_WORD = re(String.raw`(?:(?<![A-Za-z0-9_.\-\\])|(?<=${ESCAPE_BEFORE}))[A-Za-z0-9_.-]*(?:${WORD_ESCAPE})(?:[A-Za-z0-9_.-]|${WORD_ESCAPE})*`)
/** A {@link WORD_ESCAPE} alone (where `escaped-token`'s search starts). */
const ESCAPE_AT = re(WORD_ESCAPE)
/** 1 for the char codes of a token's characters (letters, digits, `_`, `.`, `-`). */
const WORD_CODE = Uint8Array.from({ length: 65536 }, (_, c) => (/[A-Za-z0-9_.-]/.test(String.fromCharCode(c)) ? 1 : 0))

/** The replacement of an `escaped-token` match: the marker when the decoded word holds a token, else the word. */
const escapedWordReplace = (m: string): string => {
  const decoded = decodeWordEscapes(m)
  return escapedTokenText()(decoded) === decoded ? m : marker("escaped-token")
}

let escapedTokenRedactor: ((s: string) => string) | undefined
/** The redaction of a decoded word by {@link ESCAPED_TOKEN_RULES} (made on first use: the rule table is defined below). */
const escapedTokenText = (): (s: string) => string =>
  (escapedTokenRedactor ??= textRedactor(builtinRules.filter((rule) => ESCAPED_TOKEN_RULES.has(rule.id))))

/**
 * A command-line option (`option`, a pattern) in the context of `command`
 * (a pattern): the command as a word earlier in the same shell command, then
 * anything but a newline, `;`, `&` or `|` (at most 300 characters), then
 * white space and the option. The option leads and the context is a
 * lookbehind over it (as {@link lead}), so only the option's occurrences
 * look back, a bounded way: linear. `before` is what may precede the
 * command (the start of a command, a path such as `/usr/bin/`, a quote of
 * JSON text); empty: a word boundary.
 */
const optionOf = (command: string, option: string, before = String.raw`(?:^|[\s/;&|("'${"`"}]|${ESCAPE_BEFORE})`) =>
  String.raw`(?:${option})(?<=${before === "" ? String.raw`\b` : before}${command}[ \t](?:[^\n;&|]{0,300}[ \t])?(?:${option}))`

/**
 * The value of an option: `"…"`, `'…'`, `\"…\"` (JSON text inside text; `\\\"…\\\"`, JSON text held in a string: session 23;
 * session 37, tester36b F8: `"""…"""`, `'''…'''`, which a shell reads as the value between empty strings, and a value alone on
 * the line after its opening quote, {@link breakLedValue}), or
 * a bare word (up to white space, a quote, a backslash or a shell operator;
 * not a `$VAR` reference). A quoted value runs to the same quote that opened
 * it (`"it's"` whole), so `quoteGroup` is the number of its quote's group in
 * the whole pattern. Groups: the quote, the quoted value, the bare value.
 */
const optionValue = (quoteGroup: number, same = `\\${quoteGroup}`) =>
  String.raw`(?!\[REDACTED:)(?:(${TRIPLE_QUOTE}|\\{0,3}["'])(?![$])(${breakLedValue(quoteGroup)}|${quotedValue(quoteGroup, undefined, true)})${closedOrOpen(same)}|(?![$"'\\-])(${runsOn(String.raw`[^\s"'${"`"};&|<>()\\]`)}{1,512}))`

/**
 * The replacement of an option-value rule whose pattern is `heads.length`
 * alternatives, each `(head)` then {@link optionValue}: the head and the
 * quotes stay, the value becomes the marker.
 */
const optionValueReplace = (id: string, alternatives: number) => (_m: string, ...groups: Array<string>): string => {
  for (let a = 0; a < alternatives; a++) {
    const [head, q, quoted, bare] = groups.slice(a * 4, a * 4 + 4)
    if (head === undefined) continue
    if (quoted !== undefined) return `${head}${q}${marker(id)}${q}`
    if (bare !== undefined) return `${head}${marker(id)}`
  }
  return marker(id)
}

/** `word` as a pattern that matches it in any case (`Token`, `TOKEN`, `token`): a JavaScript RegExp has no `(?i:…)` on Node 20. */
const caseless = (word: string) => word.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).replace(/-/g, "\\-")

/**
 * The query-string names whose value is a credential (`url-query-secret`), as a pattern, in any case (query names
 * are the server's: CloudFront's `Signature=`, `Token=`; `apiKey`, `accessToken`), snake_case and camelCase alike.
 * Sources: OAuth 2.0 (RFC 6749/6750: `access_token`, `refresh_token`, `id_token`, `client_secret`), GitLab's
 * `private_token`, AWS SigV4 (`X-Amz-Signature`, `X-Amz-Security-Token`), CloudFront signed URLs (`Signature`),
 * GCS (`X-Goog-Signature`), Azure SAS (`sig`), and common API keys (`api_key`, `apikey`, `secret_key`,
 * `session_token`, `jwt`); a fresh-user test of session 20 (F4) found the capitalised and camelCase ones kept.
 */
const QUERY_SECRET_NAMES = [
  "access_token", "accesstoken", "refresh_token", "refreshtoken", "id_token", "idtoken", "auth_token", "authtoken",
  "session_token", "sessiontoken", "private_token", "privatetoken", "token", "api_key", "apikey", "api-key",
  "client_secret", "clientsecret", "secret_key", "secretkey", "password", "passwd", "secret", "sig", "signature",
  "X-Amz-Signature", "X-Amz-Security-Token", "X-Goog-Signature", "jwt"
].map(caseless).join("|")

/**
 * The names that count after a `;` too (a legacy query separator) as they are written: lower case, the names of
 * before session 20. (`;Password=` in any case is a connection string's, `secret-assignment`'s: its `;` stays.)
 */
const QUERY_SECRET_NAMES_AFTER_SEMICOLON = [
  "access_token", "refresh_token", "id_token", "auth_token", "token", "api_key", "apikey", "api-key", "client_secret",
  "password", "passwd", "secret", "sig", "signature", "X-Amz-Signature", "X-Amz-Security-Token", "X-Goog-Signature"
].join("|")

/** Query names whose value is a credential only when it looks like one (16 characters or more, a digit among them, no UUID). */
const QUERY_KEY_NAMES = ["key", "auth"].map(caseless).join("|")
/**
 * A canonical UUID (8-4-4-4-12 hex digits) as a whole query value: under `key=` or `auth=` an idempotency key, an
 * object's or a record's id, which the docs promise stay (tester22b F6: `?key=550e8400-e29b-41d4-a716-446655440000`);
 * under a credential's name (`api_key=`, `token=`) it goes as any value.
 */
const QUERY_UUID_VALUE = String.raw`[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![^&#\s"'${"`"}<>\\)\]])`

/**
 * Final words of a secret's name that name a secret alone (`token`, `Password`, `SECRET`, …), plurals too
 * (`tokens`, `secrets`, `passwords`: a list or a map of them; plurals first, the longer word tried first).
 */
const FIELD_WORDS = ["tokens", "secrets", "passwords", "passphrases", "token", "secret", "password", "passwd", "passphrase"]
/** Final words that name a secret only after another word (`api_key`, `apiKey`, `api_keys`, `DB_PASS`; `key` alone is not). */
const FIELD_AFTER_WORDS = ["keys", "key", "pass", "pwd"]

/**
 * A plural token name that counts tokens (a model's usage, a limit, a tokenizer's list), as `fieldName` gives it
 * (lower case, `_`/`-` dropped): `input_tokens`, `maxOutputTokens`, `cache_read_input_tokens`, `special_tokens`,
 * `stop_tokens`. No secret: its value stays (`access_tokens`, `refresh_tokens` are secrets).
 */
export const COUNT_TOKENS = /(?:max|min|input|output|total|num|prompt|completion|cached|cache|reasoning|thinking|remaining|used|context|new|special|stop|added|generated|audio|text|image|billed|estimated|accepted|rejected|predicted|candidates|response|request|read|creation|write|eos|bos|pad|unk|sampled)tokens$/
/**
 * A name whose last word is `key(s)` after a word that says it keys data, not a lock (as `fieldName` gives it: lower
 * case, `_`/`-` dropped): a database's (`primary_key`, `foreign_key`, `partition_key`, `sort_key`), a cache's, a
 * queue's (`routing_key`), an HTTP request's `Idempotency-Key`, a list's or a map's, and a public key
 * (`public_key`, `pubKey`: published, no secret). Its value stays (`private_key`, `api_key`, `secret_key` go).
 */
export const DATA_KEY = /(?:primary|foreign|unique|composite|compound|surrogate|natural|candidate|sort|partition|range|shard|sharding|cluster|clustering|cache|idempotency|dedup|dedupe|deduplication|lookup|routing|object|cursor|group|grouping|order|index|row|map|dict|join|translation|i18n|public|pub|react|list|item|hotkey|shortcut|keyboard)keys?$/
const cases = (ws: ReadonlyArray<string>) => ws.flatMap((w) => [w, w[0].toUpperCase() + w.slice(1), w.toUpperCase()])

/**
 * The final words of a PIN's, a one-time code's or a card verification value's name (`pin`, `PIN`, `pincode`,
 * `pin_code`, `otp`, `totp`, `cvv`, `cvv2`, `cvc`, `passcode`), in any case; after other words too (`card_pin`,
 * `cardPin`, `sms_otp`).
 */
export const PIN_WORDS: ReadonlyArray<string> = [
  ...cases(["pincode", "pin_code", "passcode", "otp_code", "pin", "totp", "otp", "cvv2", "cvv", "cvc"]), "pinCode", "PinCode", "otpCode", "OtpCode"
]
/** `pass` and `pwd` alone as a name (any case): a secret's name when its value looks like one (not a path, a letter in it). */
const ALONE_WORDS = ["pass", "pwd"]
/** Separators after a name's final word: `:` (also after spaces), the key's closing quote, `=`, an index's `]`. */
const FIELD_SEPS = [":", " :", "\"", "'", "\\", "=", " =", "]"]

/**
 * Every match of `secret-field` holds its name's final word (of `password`, `passwd`, `passphrase` the
 * part after `pass`), then `:` (maybe after a space), `=` or the key's closing quote (`"`, `'`, or the
 * backslash of an escaped one), or else two spaces or a tab before its `=` or `:`.
 */
const SECRET_FIELD_HINTS: ReadonlyArray<string> = [...new Set(cases([...FIELD_WORDS.filter((w) => !w.startsWith("pass")), ...FIELD_AFTER_WORDS])
  .flatMap((word) => FIELD_SEPS.map((sep) => word + sep))
  // password, passwd, passphrase (and plurals): the end of the word (`pass` itself is one of the words)
  .concat(cases(FIELD_WORDS.filter((w) => w.startsWith("pass"))).flatMap((w) => FIELD_SEPS.map((sep) => w.slice(4) + sep)))
  // the name, then more than one space or a tab before `=` or `:` (aligned code: `token   = "…"`)
  .concat(["  =", "\t=", "  :", "\t:"])
  // an `=` written as an escape after a space (`password \u003d \u0022…\u0022`)
  .concat(ESC_EQ_HINTS)
  // Go's declared type before its `=` (session 23: `var password string = "…"`, `[]byte`, `*string`)
  .concat(["string =", "string=", "byte =", "byte="]))]

/** A word (letters and digits) then `_` or `-`: the words before a name's last. */
const NAME_WORD = "(?:[A-Za-z0-9]{1,40}[_-])"
/** Names that are a secret's alone (their last word is token, secret, password, passwd or passphrase; `max_tokens` is not). */
const NAMES_ALONE = `_{0,2}${NAME_WORD}{0,6}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(FIELD_WORDS).join("|")})|[Xx]-${NAME_WORD}{0,6}(?:[Kk]eys?|KEYS?)`
/**
 * `api` and `key` written as one word (`apikey`, `Apikey`, `APIKEY`: Supabase's header, many REST APIs' parameter;
 * `url-query-secret` knows the spelling): a name of {@link NAMES_AFTER} alone, and of a structured key (tester20b F2).
 */
const ONE_WORD_KEYS = ["apikeys", "apikey"]
/**
 * Names that are a secret's when the value looks like one: `key`, `pass`, `pwd` after another word (`api_key`,
 * `X-Api-Key`, `DB_PASS`; camelCase takes the capitalized or upper-case word only: `monkey` is no `mon` + `key`),
 * `pass` / `pwd` alone, and `apikey` ({@link ONE_WORD_KEYS}).
 */
const NAMES_AFTER = `_{0,2}${NAME_WORD}{1,6}(?:${cases(FIELD_AFTER_WORDS).join("|")})|_{0,2}${NAME_WORD}{0,6}[A-Za-z][A-Za-z0-9]{0,40}(?:${
  cases(FIELD_AFTER_WORDS).filter((w) => w[0] !== w[0].toLowerCase()).join("|")
})|_{0,2}(?:${cases(ALONE_WORDS).join("|")})|_{0,2}${NAME_WORD}{0,6}(?:${cases(ONE_WORD_KEYS).join("|")})`
/**
 * A number (a PIN, a numeric password) as a value: digits, maybe a sign and a fraction, then the value's end (not an
 * operator after it: an expression; `//` is a comment, no division).
 */
const NUMBER = String.raw`-?[0-9]{1,64}(?:\.[0-9]{1,64})?`
const NUMBER_END = String.raw`(?=[\s,;)}\]\\"']|$)(?![ \t]+(?:[-+*%?]|\/(?!\/)|==|if\b|else\b|and\b|or\b))`
/** After `=`, a number is a literal only when the statement ends there (`password = 1234 + x` is an expression). */
const NUMBER_EQ_END = String.raw`(?=[ \t]*(?:[,;)}\]\r\n#]|\\[nrt]|//|$))`
const NUMBER_VALUE = `(${NUMBER})${NUMBER_END}`

/** After a letters-only value: the line's end (maybe after white space and a `#` comment; a `\n`/`\r` escape too). */
const WORD_END = String.raw`(?=[ \t]*(?:#[^\n]*)?(?:\r?\n|\\[nr]|$))`

/** Words that under a secret's name are a type, a keyword, a placeholder or prose, not the secret (lower case). */
const NOT_A_SECRET_WORD = new Set([
  "string", "str", "text", "number", "int", "integer", "float", "double", "bool", "boolean", "bytes", "byte", "char", "varchar",
  "any", "unknown", "object", "array", "list", "dict", "map", "void", "never", "none", "null", "nil", "true", "false", "undefined",
  "yes", "no", "on", "off", "required", "optional", "hidden", "masked", "redacted", "secret", "secrets", "password", "passwords",
  "passwd", "passphrase", "empty", "blank", "unset", "set", "missing", "invalid", "wrong", "incorrect", "changed", "same",
  "default", "see", "here", "there", "below", "above", "ok", "sensitive", "omitted", "removed", "todo", "tbd", "na", "env"
])

/**
 * Whether a value of letters only (no digit: `hunter`), the whole rest of its line, is the secret of a name
 * (lower case, `_`/`-` dropped, as {@link fieldName}): the name's last word is password, passwd, passphrase or secret
 * (or their plurals; not a token's or a key's name: `token: abcdef` is too often a word), and the value is not a
 * type, keyword, placeholder or prose word ({@link NOT_A_SECRET_WORD}, `xxx`), nor capitalized (`String`,
 * `SecretStr`: a type).
 */
export const wordSecret = (name: string, v: string): boolean =>
  /(?:password|passwd|passphrase|secret)s?$/.test(name) && !/^[A-Z]/.test(v) && !/^x+$/i.test(v) && !NOT_A_SECRET_WORD.has(v.toLowerCase())

/**
 * The `secret-field` pattern: two alternatives (names that are secrets alone; names that need a word
 * before, or `pass`/`pwd` alone), each `(head)(?:(q)(quoted)q|(number)|(bare)|(word))` with the key's quote as a
 * group of the head: seven groups each (`word`: letters only, the rest of the line, where `bare` takes no value that
 * does not look like a secret; see {@link wordSecret}). A name (maybe after one or two `_`: `self._api_key`) starts at a line's
 * start, after white space, `{`, `,`, `(`, `[`, `;`, `.` (a member: `self.password = "…"`), `$`, `@`, `#`, `>`
 * (`$password`, `@password`, `this.#password`, `$this->password`), `:` (a Ruby symbol) or a `\n`/`\r`/`\t`
 * escape; its quotes may be escaped (`\"`, `\\\"`: JSON text in JSON text, at most 7 backslashes) and it
 * may be closed by `]` (an index: `env["DB_PASSWORD"] = …`); `:` may follow spaces (`"password" : …`); after
 * `=` or `=>` (PHP, Ruby, Perl) comes a quoted value or a number (`==` is a comparison);
 * its words are bounded (at most 6 words of 40 characters before the last), so each start is tried in constant
 * time, and values are bounded (512 characters): linear. Which numbers and words go is {@link fieldReplace}'s call.
 */
/**
 * `secret-spaced-key`'s pattern (session 25, tester25a F11): a quoted key of two to six words joined by single spaces,
 * the last a secret's (`secret-field`'s final words, in any case: `"Db Password"`, `"API Key"`), `:`, and a quoted
 * value (at most 512 characters, on one line) that looks like a secret. Groups: the key's quote, the key, the value's
 * quote, the value. Bounded words: linear.
 */
const SPACED_KEY = (() => {
  const unit = String.raw`[^\n"'\\]`
  return String.raw`(?:^|(?<=[\s{,\[]))(\\{0,3}["'])((?:[A-Za-z0-9]{1,40} ){1,5}(?:${cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS]).join("|")}))\1[ \t]{0,8}:[ \t]{0,8}` +
    String.raw`(\\{0,3}["'])(?![$\{\s]|\[REDACTED:)(?:(?=${unit}{0,63}[0-9])(?=${unit}{0,63}[^0-9\s"'\\])|(?=${unit}{16}))(${quotedValue(3)})\3`
})()
/** Every match of `secret-spaced-key` holds a space, its key's final word, then the key's closing quote (or its escape's backslash). */
const SPACED_KEY_HINTS: ReadonlyArray<string> = cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS]).flatMap((w) => ["\"", "'", "\\"].map((q) => ` ${w}${q}`))

/**
 * A line's decoration right before a `secret-field` name (session 25, tester25a F9), as the end of a lookbehind: a
 * Read tool's gutter arrow (`     5→DB_PASSWORD = "…"`), a diff's `+`/`-` at a line's start (`+api_key = '…'`),
 * also after a Markdown quote's `> ` (session 26, tester25b F4: `> +api_key = '…'`).
 */
const FIELD_DECOR = String.raw`[0-9]\u2192|(?:^|\n|\\[nr])(?:>[ \t]{0,8}){0,4}[+-]`
/**
 * A name's `:` then its value on a later line (tester35a F2: `{"password":` then `    "…"}`, as Prettier,
 * black, jq or an editor wrap a long value): white space, then one to three line breaks (LF, CRLF, or their escapes
 * in JSON text: `\n`, `\r\n`, also `\\n` in JSON text held in a string), each maybe followed by indentation (spaces,
 * tabs, `\t` escapes; at most 128). Session 36 (tester35a F2's code forms, tester35c): the same after `=`, `:=` or
 * `=>` (`const apiKey =`, Python's `api_key =` and a keyword argument's `api_key=`, Go's `password :=`, PHP's
 * `'password' =>`), and, after a quoted key, the breaks before its `:` or `=>` (`{"password"` then `    : "…"}`).
 * Only before a quoted value (see {@link fieldAlternatives}). Bounded: linear.
 */
const FIELD_BREAKS = String.raw`(?:(?:\r?\n|\\{1,2}r\\{1,2}n|\\{1,2}n)(?:[ \t]|\\{1,2}t){0,128}){1,3}`
const FIELD_GAP = String.raw`[ \t]{0,8}(?:(?::=|=>|:|=)[ \t]{0,8}${FIELD_BREAKS}|(?<=["'][ \t]{0,8})${FIELD_BREAKS}(?:=>|:)[ \t]{0,8}(?:${FIELD_BREAKS})?)`
/**
 * An INI name's `=` (maybe a `#` or `;` comment after it) then its value alone on the next, indented line (session
 * 37, tester36b F6: `password = # set below` then `    Zq8…`; Python's configparser reads an indented line as the
 * value's continuation), as a pattern: the `=` and the line break (LF, CRLF, or their escapes in JSON text) and the
 * indentation, before one word that looks like a secret (a letter and a digit, or 16 characters) and ends its line.
 * No `.`, `(`, `[`, `;`, `,` or quote in the word: code (`const password =` then `  getPassword();`,
 * `  settings.API_KEY2`) stays. Bounded: linear.
 */
const NEXT_LINE_VALUE = (() => {
  const t = String.raw`[^\s"'${"`"}\\,;(){}<>\[\].$]`
  return String.raw`[ \t]{0,8}=[ \t]{0,8}(?:[#;][^\n\\]{0,200})?(?:\r?\n|\\{1,2}r\\{1,2}n|\\{1,2}n)(?:[ \t]|\\{1,2}t){1,40}` +
    String.raw`(?=(?:(?=${t}{0,63}[0-9])(?=${t}{0,63}[A-Za-z])|(?=${t}{16}))${t}{1,512}[ \t]*(?:\r?\n|\\{1,2}[rn]|\\{0,7}"|$))`
})()
const fieldAlternatives = (): string => {
  const bareClass = String.raw`[^\s"'${"`"}\\,;(){}<>\[\]]`
  const quotedClass = String.raw`[^\n"'${"`"}\\]`
  // a quoted value's character, or a JSON `\uXXXX` escape as one (`\\uXXXX` in JSON text held in a string; session 16:
  // `{"api_key": "\u0073k-proj-…"}`)
  // (and a quote or backslash the value escapes or doubles, its own, as one: the look reads past it; tester36b F1:
  // `api_key = 'abc\'def-9988-…'` was told from `abc` alone and shown whole)
  // (session 37, tester36b F11: and a JSON escape of a line break, a tab or a slash, `"private_key": "\nMII…"`)
  const quotedUnit = String.raw`(?:${quotedClass}|\\{1,2}u[0-9A-Fa-f]{4}|\\{1,7}["'${"`"}]|\\\\|''|\\{1,3}[nrt/])`
  // looks like a secret: a digit and another character among the first 64, or 16 characters or more
  const looks = (v: string) => String.raw`(?:(?=${v}{0,63}[0-9])(?=${v}{0,63}[^0-9\s"'\\])|(?=${v}{16}))`
  // (F11: a value that starts with blanks after a quoted key and `:`, `{"password": " Qz7…"}`: JSON's and Python's
  // dict; after an unquoted name the quote may close a prompt, `"password: " + pw`, and the blanks start no value)
  const blankLed = String.raw`(?<=["'][ \t]{0,8}:[ \t]{0,8}\\{0,7}["'])(?=[ \t]{1,8}[^\s"'\\$\{])`
  // (F11: a value may start with `{` unless it is a placeholder or a template, `{name}`, `{0}`, `{{ … }}`, `{}`, or
  // JSON in the string, `{"k": …}`)
  const start = String.raw`(?:(?![$\s]|\[REDACTED:|\{(?:[{}\s]|\\{0,7}["']|[A-Za-z0-9_.:\[\]-]{0,64}\}))|${blankLed})`
  // (F8: Python's implicit concatenation, `("Zq8v" "N3pLx2")`, and `+` between literals: the literals that follow
  // the value, in its quotes, on its line or the next lines, go with it)
  const joined = (g: number) => String.raw`(?:${"\\"}${g}(?:[ \t]{0,8}\+)?[ \t]{0,8}(?:${LINE_BREAK}[ \t]{0,40}){0,3}${"\\"}${g}${quotedValue(g)}){0,8}`
  return [NAMES_ALONE, NAMES_AFTER].map((name, a) => {
    const g = a * 7
    // (an unquoted name's value on a later line, FIELD_GAP, only when it looks like a secret: "Enter the password:"
    // then a quoted line is prose)
    const head = String.raw`((?:^|(?<=[\s{,(\[;.$@#>:"'*]|${ESCAPE_BEFORE}|${FIELD_DECOR}))((?:\\{0,7}["']|${ESC_QUOTE})?)(?:${name})${"\\"}${g + 2}\]?(?:${NEXT_LINE_VALUE}|[ \t]{0,8}:[ \t]*(?!${TYPE_THEN_VALUE})|(?<=["'])${FIELD_GAP}(?=\\{0,7}["'])|(?<!["'])${FIELD_GAP}(?=\\{0,7}["'${"`"}]${looks(quotedUnit)})|(?:[ \t]*:=|${DECLARED_TYPE}|[ \t]*(?:=>?|(?:${ESC_EQ})(?:\\{1,2}u003[eE])?))(?:${NAME_CONT}(?=\\{0,7}["'${"`"}]|${ESC_QUOTE})|[ \t]*\((?:[ \t]{1,8}|[ \t]{0,8}${LINE_BREAK}[ \t]{0,40}){0,2}(?=\\{0,7}["'${"`"}])|[ \t]*(?=\\{0,7}["'${"`"}]|${ESC_QUOTE}|${NUMBER}${NUMBER_EQ_END}))))`
    const quoted = String.raw`(${TRIPLE_QUOTE}|\\{0,7}["'${"`"}]|${ESC_QUOTE})(?!${"\\"}${g + 3})(?!\[REDACTED:)(${breakLedValue(g + 3)}|${start}${a === 1 ? looks(quotedUnit) : ""}${quotedValue(g + 3, undefined, true)}${joined(g + 3)})${closedOrOpen(`\\${g + 3}`)}`
    const bare = String.raw`(?![$\{"'\\])(?!process\.env\.|import\.meta\.env\.|os\.environ)(?![0-9]+(?![^\s,;)}\]]))${looks(bareClass)}(${bareClass}{1,512}(?:;(?!${NEXT_AFTER_SEMICOLON})${bareClass}{1,256}){0,8})`
    // one word of letters that is the rest of the line (a comment may follow): which names and words go is fieldReplace's call
    const word = String.raw`([A-Za-z]{1,64})${WORD_END}`
    return String.raw`${head}(?!\[REDACTED:)(?:${quoted}|${NUMBER_VALUE}|${bare}|${word})`
  }).join("|")
}

/** One type of a declaration (see {@link DECLARED_TYPE}): a word, maybe generic (`Option<String>`), after Rust's `&`, `&'static `. */
const TYPE_WORD = String.raw`(?:&(?:'[a-z]{1,16}[ \t]{1,4})?)?[A-Za-z_][A-Za-z0-9_.<>\[\]?,]{0,64}`
/** A TypeScript union's further types (`| null`, `|undefined`), at most four. */
const TYPE_UNION = String.raw`(?:[ \t]{0,4}\|[ \t]{0,4}${TYPE_WORD}){0,4}`
/**
 * Go's type after a name (session 23: `var password string = "…"`, `const apiKey string = "…"`, a `var ( … )`
 * block's `password string = "…"`, `[]byte`, `*string`): the types a secret is declared with, as `secret-field`'s
 * hints name them (`string =`, `byte =`), as a pattern.
 */
const GO_TYPE = String.raw`[ \t]{1,8}(?:\*|\[\])?(?:string|byte)[ \t]{0,8}=(?![=>~])`
/**
 * A declaration's type between a name and its `=` (tester22b F5): `: String =` (Kotlin, Swift, TypeScript, Python's
 * hints: `password: str = "…"`), `: &str =`, `: &'static str =` (Rust), `: Option<String> =`; a type of at most 64
 * characters, one word (maybe generic), as a pattern; and (session 23) a TypeScript union (`: string | null =`) and
 * Go's type ({@link GO_TYPE}). With Go's `:=`, what `secret-field` reads after a name before a quoted value.
 */
const DECLARED_TYPE = String.raw`(?:[ \t]{0,8}:[ \t]{0,8}${TYPE_WORD}${TYPE_UNION}[ \t]{0,8}=(?![=>~])|${GO_TYPE})`
/**
 * After a name's `:`, a declaration's type, `=` and a quoted value (`password: string | undefined = "…"`,
 * `apiKey: Secret1 = "…"`): not the name's value (the type), but {@link DECLARED_TYPE}'s declaration, as a pattern.
 */
const TYPE_THEN_VALUE = String.raw`${TYPE_WORD}${TYPE_UNION}[ \t]{0,8}=(?![=>~])[ \t]{0,8}(?:\\{0,7}["'${"`"}]|${ESC_QUOTE})`

/** The names of a pair's name (see {@link pairSecret}): `secret-field`'s, and the headers of a credential. */
const PAIR_NAMES = `${NAMES_ALONE}|${NAMES_AFTER}|(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)|(?:[Ss]et-|SET-)?(?:[Cc]ookie|COOKIE)`

/** Every match of the pair pass holds its name's final word then the name's closing quote (or its escape's backslash). */
const SECRET_PAIR_HINTS: ReadonlyArray<string> = [...new Set(
  [...cases([...FIELD_WORDS.filter((w) => !w.startsWith("pass")), ...FIELD_AFTER_WORDS]), ...cases(["password", "passwd", "passphrase"]).map((w) => w.slice(4)), "uthorization", "UTHORIZATION", "ookie", "OOKIE"]
    .flatMap((w) => ["\"", "'", "\\", "\n", "\r"].map((q) => w + q))
    // AWS SSM's decrypted parameter (`"Type": "SecureString"`)
    .concat(["SecureString"])
)]

/**
 * The pair pass's pattern: three alternatives, each `(head)…(value)` with the value's quote a group of the head:
 * `[name, value]` / `(name, value)` (groups 1 to 5: head, name's quote, name, value's quote, value; the close
 * `]`/`)` looked for after it), `{name: …, value: …}` (6 to 12: head, quotes, name, quotes, value) and `{value: …,
 * name: …}` (13 to 19: head, quotes, value, then the name in a lookahead), and YAML's `name: …` then `value: …`
 * on the next line (20 to 25: head, the name's quote, name, the value's quote, quoted value, bare value: the
 * rest of its line, at most 512 characters). Quotes are `"` or `'`, maybe escaped
 * (at most 7 backslashes); a value runs to its quote, at most 512 characters on one line; between an object's
 * members, at most 80 characters of white space or `\n`/`\r`/`\t` escapes. Each start is tried in bounded
 * time: linear.
 */
const pairAlternatives = (): string => {
  // a quote, maybe escaped (at most 7 backslashes: JSON text in JSON text, and again), or written `\u0022`, `\x27`
  // (session 21: .NET's and Go's encoders; a tool's output JSON-escaped again)
  const Q = String.raw`(?:\\{0,7}["']|${ESC_QUOTE})`
  // white space, or a line break's or a tab's escape (`\n`, and `\\n` in JSON text held in a string: pretty JSON
  // printed by a tool, then escaped twice; session 21)
  const SP = String.raw`(?:\s|\\{1,7}[nrt]){0,80}`
  const NAME_KEYS = "(?:name|key|header|Name|Key|Header)"
  const VALUE_KEYS = "(?:value|Value)"
  const b = (g: number) => `\\${g}`
  const value = (g: number) => String.raw`(?![$\{\s]|\[REDACTED:|${b(g)})(${quotedValue(g)})${b(g)}`
  // each alternative starts by consuming a quote (or a YAML key), then looks back for what must precede it: a
  // run of white space is then passed over at one step a character, not looked back over from each of them
  const member = `(?<=(?:^|[{,])${SP}${Q})`
  // an SSM parameter's path before its name (`/prod/app/db_password`), and the members an object may hold between
  // its name and its value (SSM's `"Type": "SecureString"`; session 23): at most 6 short strings, numbers, literals
  const PATH = String.raw`(?:\/?[A-Za-z0-9_.-]{1,64}\/){0,8}`
  const BETWEEN = String.raw`(?:[ \t]{0,8},${SP}${Q}[A-Za-z]{1,32}${Q}[ \t]{0,8}:[ \t]{0,8}(?:${Q}[^"'\n\\]{0,128}${Q}|[0-9]{1,20}|true|false|null)){0,6}`
  return [
    String.raw`((${Q})(?<=[\[(]${SP}${Q})(${PAIR_NAMES})\2[ \t]{0,8},${SP}(${Q}))${value(4)}(?=${SP}[\])])`,
    String.raw`((${Q})${member}${NAME_KEYS}\7[ \t]{0,8}:[ \t]{0,8}(${Q})${PATH}(${PAIR_NAMES})\8${BETWEEN}[ \t]{0,8},${SP}(${Q})${VALUE_KEYS}\10[ \t]{0,8}:[ \t]{0,8}(${Q}))${value(11)}`,
    String.raw`((${Q})${member}${VALUE_KEYS}\14[ \t]{0,8}:[ \t]{0,8}(${Q}))${value(15)}(?=[ \t]{0,8},${SP}(${Q})${NAME_KEYS}\17[ \t]{0,8}:[ \t]{0,8}(${Q})(${PAIR_NAMES})\18)`,
    // YAML: `- name: DB_PASSWORD` then, on the next line, `value: …` (quoted, or the rest of the line)
    String.raw`(${NAME_KEYS}(?<=(?:^|\n|\\n)[ \t]{0,40}(?:-[ \t]{1,8})?${NAME_KEYS}):[ \t]{1,8}((?:${Q})?)(${PAIR_NAMES})\21(?:\r?\n|(?:\\{1,7}r)?\\{1,7}n)[ \t]{0,40}${VALUE_KEYS}:[ \t]{1,8})` +
      // (a block scalar, `value: |`, is `secret-block`'s)
      String.raw`(?:(${Q})${value(23)}|(?![$\{"'\\#\s|>]|\[REDACTED:)([^\n\\]{0,511}[^\s\\]))`,
    // XML attributes (.NET appSettings): `<add key="ApiKey" value="…"/>`, the key maybe a path (`Stripe:SecretKey`)
    String.raw`((?:key|name|Key|Name)=(${Q})(?<=(?:^|[\s<])(?:key|name|Key|Name)=${Q})((?:[A-Za-z0-9_.-]{1,64}[:.]){0,8})(${PAIR_NAMES})\27[ \t]{1,8}(?:value|Value)=(${Q}))${value(30)}`,
    // AWS SSM's `get-parameter --with-decryption`: `"Type": "SecureString"` then `"Value": "…"` (session 23, tester23c
    // F9): a decrypted SecureString's value is a secret whatever the parameter's name
    String.raw`((${Q})${member}Type\33[ \t]{0,8}:[ \t]{0,8}\33SecureString\33[ \t]{0,8},${SP}(${Q})Value\34[ \t]{0,8}:[ \t]{0,8}(${Q}))${value(35)}`
  ].join("|")
}

/** The replacement of a pair: the value becomes the marker when {@link pairSecret} says so, else the match stays. */
const pairReplace = (m: string, ...g: Array<string>): string => {
  const F = marker("secret-pair")
  if (g[0] !== undefined) return pairSecret(g[2], g[4], true) ? `${g[0]}${F}${g[3]}` : m
  if (g[5] !== undefined) return pairSecret(g[8], g[11], false) ? `${g[5]}${F}${g[10]}` : m
  if (g[12] !== undefined) return pairSecret(g[18], g[15], false) ? `${g[12]}${F}${g[14]}` : m
  if (g[19] !== undefined) {
    const quoted = g[23] !== undefined
    return pairSecret(g[21], quoted ? g[23] : g[24], false) ? (quoted ? `${g[19]}${g[22]}${F}${g[22]}` : `${g[19]}${F}`) : m
  }
  if (g[25] !== undefined) return pairSecret(g[28], g[30], false) ? `${g[25]}${F}${g[29]}` : m
  if (g[31] !== undefined) return g[35].length > 0 && !notAValue(g[35]) ? `${g[31]}${F}${g[34]}` : m
  return m
}


/** The words of a name in prose whose value `token-prose` looks at: one word (`token`, `secret`, `PIN`, `OTP`, `passcode`). */
const PROSE_ONE = String.raw`[Tt]oken|TOKEN|[Ss]ecret|SECRET|PIN|[Pp]in|OTP|[Pp]asscode|PASSCODE|CVV2?|[Cc]vv2?|CVC|[Cc]vc`
/** Two words (`API key`, `access token`, `secret key`, `auth token`, …; joined by a space: `api_key` is a name, `secret-field`'s). */
const PROSE_TWO = String.raw`(?:[Aa][Pp][Ii]|[Aa]ccess|ACCESS|[Ss]ecret|SECRET|[Aa]uth|AUTH|[Bb]earer|[Rr]efresh|[Ss]ession)(?:\s|\\{1,3}[nrt]){1,8}(?:[Kk]ey|KEY|[Tt]oken|TOKEN)`

/**
 * Whether a word told in prose after a credential's name is a credential (`token-prose`): under a PIN's, a
 * one-time code's or a passcode's name, 4 to 12 digits; else 6 characters or more holding a digit and a letter,
 * no version (`v1.2.3`), and, under 20 characters, no word of 4 lower-case letters or more between `-`, `.`,
 * `_` or `/` (`base64-encoded`, `sha256-based` are words). "the token is abc123def456" goes; "the token is
 * invalid", "is 401", "is base64-encoded" stay.
 */
export const proseCredential = (v: string, pin: boolean): boolean => {
  if (pin) return /^[0-9]{4,12}$/.test(v)
  if (v.length < 6 || !/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return false
  if (/^v?[0-9]+(?:\.[0-9]+)+/.test(v)) return false
  return v.length >= 20 || !/(?:^|[-._/])[a-z]{4,}(?:$|[-._/])/.test(v)
}

/** The schemes of an `Authorization` header whose credentials follow them (the scheme stays). */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|Bot|Key|ApiKey|Api-Key|OAuth|SharedKey|SSWS|Hawk|GoogleLogin|AWS4-HMAC-SHA256|Splunk|Kerberos|MAC)$/i

/**
 * The value of an `Authorization` / `Proxy-Authorization` header redacted (`authorization`): `Scheme <credentials>`
 * keeps the scheme (`Basic [REDACTED:authorization]`), anything else goes whole. Left as it is: an empty value, a
 * reference (`$TOKEN`, `${AUTH}`, `{{ token }}`), a value another rule has redacted (`Bearer
 * [REDACTED:bearer-token]`). A value written bare in text (`quoted` false) goes only when it is a credential's
 * shape: a scheme then one token of 6 characters or more, or one token of 8 or more holding a digit and a letter
 * ("Authorization: required" stays).
 */
export const authorizationValue = (v: string, quoted: boolean): string => {
  if (v.length === 0 || notAValue(v) || v.includes("[REDACTED:")) return v
  const m = /^([A-Za-z][A-Za-z0-9-]{0,30})([ \t]+)(\S[^]*)$/.exec(v)
  // (a bare value's shape as a shell reads it: its line continuations taken out)
  if (m !== null && AUTH_SCHEME.test(m[1])) {
    if (notAValue(m[3]) || (!quoted && !/^[A-Za-z0-9._~+/=-]{6,}$/.test(m[3].replace(CONTINUATIONS, "")))) return v
    return `${m[1]}${m[2]}${marker("authorization")}`
  }
  const w = quoted ? v : v.replace(CONTINUATIONS, "")
  if (!quoted && !(/^[A-Za-z0-9._~+/=:-]{8,}$/.test(w) && /[0-9]/.test(w) && /[A-Za-z]/.test(w))) return v
  return marker("authorization")
}

/**
 * The value of a header map's entry keyed by a credential's header (`{"Authorization": "…"}`, `{"Cookie": "…"}`):
 * `Authorization`/`Proxy-Authorization` as {@link authorizationValue}; `Cookie`/`Set-Cookie` each cookie's value
 * (as the `cookie` rule), or the whole value when it holds no `name=value` (not empty, no reference, no marker).
 */
export const headerValue = (name: string, v: string): string => {
  if (/cookie$/i.test(name)) {
    const c = cookieValues(v, /^set-/i.test(name))
    if (c !== v || v.length === 0 || notAValue(v) || v.includes("[REDACTED:")) return c
    return marker("cookie")
  }
  return authorizationValue(v, true)
}

/** The values of a JSON Schema's `type`. */
const SCHEMA_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
/** The keys that make an object a JSON Schema (besides `type`). */
const SCHEMA_KEYS = new Set(["$ref", "anyOf", "oneOf", "allOf"])

/**
 * Whether an object under a secret's name is a JSON Schema, not a value (a tool's input schema:
 * `{"password": {"type": "string", "minLength": 8}}`): it has a `type` among the schema's types (or a list of
 * them), or `$ref`, `anyOf`, `oneOf`, `allOf`. Walked as usual, not redacted whole.
 */
export const schemaLike = (o: Record<string, unknown>): boolean => {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(o, k)
  const t = has("type") ? o.type : undefined
  if (typeof t === "string" && SCHEMA_TYPES.has(t)) return true
  if (Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === "string" && SCHEMA_TYPES.has(x))) return true
  for (const k of SCHEMA_KEYS) if (has(k)) return true
  return false
}

/**
 * The kind that says which leaves go under an object or an array held by a key of kind `kind` named `name`
 * (`secret-nested`): the key's own kind, except `credential(s)`, whose object is a bag of secrets (every leaf).
 */
export const underKind = (kind: SecretKeyKind, name: string): SecretKeyKind => (kind === "key" && /credentials?$/i.test(name) ? "secret" : kind)

/**
 * Whether a leaf (a string or a number) inside an object or an array under a secret's name of kind `kind`
 * ({@link underKind}) is a secret (`secret-nested`): under a `secret` name (password, secret, passphrase, and
 * plurals, credentials) every string and number; under a `token` name or a header every string (a number is a
 * count: `"tokens": {"input": 1200}` stays); under `key`/`pass`/`pwd` names a string that looks like a secret
 * (`"sort_keys": ["name"]` stays) and, under `pass`, a number of 4 digits or more; under a PIN's name a PIN.
 * Never: empty strings, references (`$VAR`, `${VAR}`, `{{ … }}`), markers, booleans, null.
 */
export const leafSecret = (kind: SecretKeyKind, v: unknown): boolean => {
  if (kind === "none") return false
  if (typeof v === "string") {
    if (v.length === 0 || notAValue(v)) return false
    if (kind === "secret" || kind === "token" || kind === "header") return true
    if (kind === "pin") return pinValue(v)
    return LOOKS_SECRET.test(v) && (kind !== "pwd" || aloneSecret(v))
  }
  if (typeof v !== "number" || !Number.isFinite(v)) return false
  return kind === "secret" || (kind === "pin" && pinValue(v)) || (kind === "pass" && Math.abs(Math.trunc(v)) >= 1000)
}

/** The final words of a name whose value may be an object or an array of secrets (`secret-nested`). */
const NESTED_WORDS = [...new Set(cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS, "credentials", "credential"]))].sort((a, b) => b.length - a.length)
/** Where a `secret-nested` name ends: a final word, maybe its closing quote, `:`, then `[` or `{`. */
const NESTED_END = new RegExp(`(?:${NESTED_WORDS.join("|")})(?=\\\\{0,7}["']?[ \\t]{0,8}:[ \\t]{0,8}[\\[{])`, "g")
/** How far a structure under a secret's name is read (characters); what lies beyond is left to the other rules. */
const NESTED_LIMIT = 65536
const isNameChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45
/** A number in JSON text, from its first character (sticky). */
const NESTED_NUMBER = /-?[0-9]{1,64}(?:\.[0-9]{1,64})?(?:[eE][-+]?[0-9]{1,4})?(?![A-Za-z0-9_.])/y

/**
 * The structure (an object or an array in JSON, Python or JavaScript text) that opens at `open`, its strings
 * quoted by `level` backslashes then `"` or `'` (0: plain text; 1: JSON text in a JSON string), with each leaf
 * that is a secret under `kind` ({@link leafSecret}) replaced: a string's text by the marker, a number by the
 * marker quoted with `quote`. Keys stay (a string followed by `:`). Read to its close, a raw newline inside a
 * string, or {@link NESTED_LIMIT} characters (a structure cut short: what was read). `text` undefined: nothing
 * to change, or a JSON Schema (an object holding `type` with a schema's type, `$ref`, `anyOf`, `oneOf`, `allOf`).
 */
const nestedScan = (s: string, open: number, level: number, quote: string, kind: SecretKeyKind): { readonly end: number; readonly text: string | undefined } => {
  const N = marker("secret-nested")
  const limit = Math.min(s.length, open + NESTED_LIMIT)
  const stack: Array<number> = []
  let p = open
  let pieces = ""
  let last = open
  let changed = false
  let schema = false
  let lastKey: string | undefined
  let valueNext = false
  while (p < limit) {
    const c = s.charCodeAt(p)
    if (c === 123 || c === 91) {
      stack.push(c)
      valueNext = true
      p++
      continue
    }
    if (c === 125 || c === 93) {
      stack.pop()
      p++
      if (stack.length === 0) break
      valueNext = false
      continue
    }
    if (c === 58 || c === 44) {
      valueNext = true
      p++
      continue
    }
    if (c === 92 || c === 34 || c === 39) {
      let b = p
      while (b < limit && s.charCodeAt(b) === 92) b++
      const q = s.charCodeAt(b)
      if (b - p !== level || (q !== 34 && q !== 39)) {
        // an escape outside a string (`\n` of JSON text held in a string), or a quote of another level
        p = b + 1
        continue
      }
      const start = b + 1
      let e = start
      let closed = false
      while (e < limit) {
        const ch = s.charCodeAt(e)
        if (ch === 10) break
        if (ch === q) {
          let k = e
          while (k > start && s.charCodeAt(k - 1) === 92) k--
          // a delimiter: `level` backslashes after pairs of escaped ones (`\\"` ends a plain string, `\\\"` of level 1 does not)
          if ((e - k) % (2 * (level + 1)) === level) {
            closed = true
            break
          }
        }
        e++
      }
      const contentEnd = closed ? e - level : e
      const content = s.slice(start, contentEnd)
      let after = closed ? e + 1 : e
      let k2 = after
      while (k2 < limit && (s.charCodeAt(k2) === 32 || s.charCodeAt(k2) === 9)) k2++
      const top = stack.length === 1 && stack[0] === 123
      if (closed && s.charCodeAt(k2) === 58) {
        if (top) {
          lastKey = content
          if (SCHEMA_KEYS.has(content)) schema = true
        }
      } else {
        if (top && lastKey === "type" && SCHEMA_TYPES.has(content)) schema = true
        if (leafSecret(kind, content)) {
          pieces += s.slice(last, start) + N
          last = contentEnd
          changed = true
        }
      }
      if (schema) {
        // read on to the structure's end, so that its inner names are not read again
        after = skipStructure(s, after, limit, stack.length)
        return { end: after, text: undefined }
      }
      valueNext = false
      p = after
      continue
    }
    if (valueNext && (c === 45 || (c >= 48 && c <= 57))) {
      NESTED_NUMBER.lastIndex = p
      const m = NESTED_NUMBER.exec(s)
      if (m !== null && NESTED_NUMBER.lastIndex <= limit) {
        if (leafSecret(kind, Number(m[0]))) {
          pieces += s.slice(last, p) + quote + N + quote
          last = NESTED_NUMBER.lastIndex
          changed = true
        }
        p = NESTED_NUMBER.lastIndex
        valueNext = false
        continue
      }
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) valueNext = false
    p++
  }
  return { end: p, text: changed ? pieces + s.slice(last, p) : undefined }
}

/** From `p` (inside a structure `depth` deep), the position after the structure closes (brackets counted, strings not read): bounded by `limit`. */
const skipStructure = (s: string, p: number, limit: number, depth: number): number => {
  let d = depth
  while (p < limit && d > 0) {
    const c = s.charCodeAt(p++)
    if (c === 123 || c === 91) d++
    else if (c === 125 || c === 93) d--
  }
  return p
}

/**
 * The `secret-nested` rule by hand: from each place where a secret's name ends then `:` and `[` or `{`
 * ({@link NESTED_END}), back over the name (at most 300 characters) and its quote (maybe escaped: its
 * backslashes are the level of the strings inside); the name's kind ({@link secretKeyKind}, {@link underKind})
 * says which leaves go ({@link nestedScan}). The name must start a token (the string's start, white space, `{`,
 * `,`, `(`, `[`, `;`, or a `\n`/`\r`/`\t` escape). Linear: each structure is read once, and no name inside a
 * structure already read is looked at again.
 */
const redactNested = (s: string): string => {
  let out = ""
  let done = 0
  NESTED_END.lastIndex = 0
  let w: RegExpExecArray | null
  while ((w = NESTED_END.exec(s)) !== null) {
    const wordEnd = w.index + w[0].length
    let from = w.index
    while (from > done && w.index - from < 300 && isNameChar(s.charCodeAt(from - 1))) from--
    const name = s.slice(from, wordEnd)
    let level = 0
    let quote = ""
    let begin = from
    const before = from > 0 ? s.charCodeAt(from - 1) : -1
    if (before === 34 || before === 39) {
      quote = String.fromCharCode(before)
      begin = from - 1
      while (begin > done && s.charCodeAt(begin - 1) === 92 && level < 7) {
        begin--
        level++
      }
    }
    const b = begin > 0 ? s.charCodeAt(begin - 1) : -1
    const escaped = escapeEndsAt(s, begin)
    if (!(b < 0 || b === 32 || b === 9 || b === 10 || b === 13 || b === 123 || b === 44 || b === 40 || b === 91 || b === 59 || escaped)) continue
    let p = wordEnd
    if (quote !== "") {
      for (let k = 0; k < level; k++) if (s.charCodeAt(p + k) !== 92) p = -1
      if (p < 0 || s.charCodeAt(p + level) !== quote.charCodeAt(0)) continue
      p += level + 1
    }
    while (s.charCodeAt(p) === 32 || s.charCodeAt(p) === 9) p++
    if (s.charCodeAt(p) !== 58) continue
    p++
    while (s.charCodeAt(p) === 32 || s.charCodeAt(p) === 9) p++
    const kind = underKind(secretKeyKind(name.replace(/^_{1,2}/, "")), name)
    if (kind === "none") continue
    const r = nestedScan(s, p, level, "\\".repeat(level) + (quote === "" ? "\"" : quote), kind)
    if (r.text !== undefined) {
      out += s.slice(done, p) + r.text
      done = r.end
    }
    if (NESTED_END.lastIndex < r.end) NESTED_END.lastIndex = r.end
  }
  return done === 0 ? s : out + s.slice(done)
}

/**
 * A YAML block scalar's head after a key: `:`, white space, `|` or `>` (maybe `-`, `+`, an indent), a comment, the
 * line's end: a newline, or (YAML held in a JSON string) a `\n` escape.
 */
const BLOCK_HEAD = /:[ \t]+[|>][-+1-9]{0,2}[ \t]*(?:#[^\n\\]*)?\r?\n/g
const BLOCK_HEAD_ESCAPED = /:[ \t]+[|>][-+1-9]{0,2}[ \t]*(?:#[^\n\\]*)?(?:\\r)?\\n/g
/** The key line of a block scalar, up to its `:`: indentation, maybe `- `, the key (maybe quoted). */
const BLOCK_KEY = /^([ \t]*)(-[ \t]+)?(["']?)([A-Za-z0-9_.-]{1,300})\3$/
/** The line before `value: |` in a list of named values: `- name: DB_PASSWORD` (or `key:`). */
const BLOCK_PAIR_NAME = /^[ \t]*(?:-[ \t]+)?(?:name|key|Name|Key)[ \t]*:[ \t]*(["']?)([^\s"']{1,300})\1[ \t]*\r?$/

/**
 * The `secret-block` rule by hand: a YAML block scalar (`key: |`, `key: >-`, …) under a secret's name (the
 * last part of a dotted key; {@link secretKeyKind}), or under `value:` on the line after `- name: <secret's name>`
 * (a Kubernetes env entry): its lines (those indented more than the key, blank lines between them) become one
 * line, the first's indentation then the marker, when the text is a secret for the name's kind
 * ({@link leafSecret}). The key line and what follows the block stay. Each block is read at most 64k characters.
 */
const redactBlocks = (s: string): string => {
  const once = redactBlocksBy(s, BLOCK_HEAD, "\n", "\r")
  return once.includes("\\n") ? redactBlocksBy(once, BLOCK_HEAD_ESCAPED, "\\n", "\\r") : once
}

/** {@link redactBlocks} with lines ended by `nl` (a newline, or a `\n` escape), maybe after `cr`, their heads found by `heads`. */
const redactBlocksBy = (s: string, heads: RegExp, nl: string, cr: string): string => {
  const B = marker("secret-block")
  let out = ""
  let done = 0
  heads.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = heads.exec(s)) !== null) {
    const colon = m.index
    if (colon < done) continue
    const nlBefore = s.lastIndexOf(nl, colon - 1)
    const lineStart = nlBefore < 0 ? 0 : nlBefore + nl.length
    const k = BLOCK_KEY.exec(s.slice(lineStart, colon))
    if (k === null) continue
    const name = k[4].slice(k[4].lastIndexOf(".") + 1)
    let kind = secretKeyKind(name)
    if (kind === "none" && (name === "value" || name === "Value") && lineStart > nl.length) {
      const prevEnd = lineStart - nl.length
      const before = s.lastIndexOf(nl, prevEnd - 1)
      const prevStart = before < 0 ? 0 : before + nl.length
      const prev = s.slice(prevStart, prevEnd)
      const pn = BLOCK_PAIR_NAME.exec(prev.endsWith(cr) ? prev.slice(0, -cr.length) : prev)
      if (pn !== null && (HEADER_SECRET.test(pn[2]) || secretKeyKind(pn[2]) !== "none")) kind = "secret"
    }
    if (kind === "none") continue
    const keyCol = k[1].length + (k[2]?.length ?? 0)
    const first = colon + m[0].length
    const limit = Math.min(s.length, first + 65536)
    let p = first
    let contentStart = -1
    let contentEnd = -1
    while (p < limit) {
      let e = s.indexOf(nl, p)
      if (e < 0 || e > limit) e = limit
      let ind = p
      while (ind < e && (s.charCodeAt(ind) === 32 || s.charCodeAt(ind) === 9)) ind++
      const lineEnd = s.startsWith(cr, e - cr.length) && e - cr.length >= ind ? e - cr.length : e
      if (ind < lineEnd) {
        if (ind - p <= keyCol) break
        if (contentStart < 0) contentStart = p
        contentEnd = lineEnd
      }
      p = e + nl.length
    }
    if (contentStart < 0) continue
    const text = s.slice(contentStart, contentEnd).trim()
    if (!leafSecret(kind, text)) continue
    let indentEnd = contentStart
    while (s.charCodeAt(indentEnd) === 32 || s.charCodeAt(indentEnd) === 9) indentEnd++
    out += s.slice(done, indentEnd) + B
    done = contentEnd
    if (heads.lastIndex < done) heads.lastIndex = done
  }
  return done === 0 ? s : out + s.slice(done)
}

/** The final words of a `secret-mapping` key: those of `secret-nested`, and `auth` (any case), longest first. */
const MAPPING_WORDS = [...new Set([...NESTED_WORDS, "auth", "Auth", "AUTH"])].sort((a, b) => b.length - a.length)
/** Where a `secret-mapping` key line may end: a final word, maybe its closing quote, `:`, maybe a comment, the line's end. */
const MAPPING_HEAD = new RegExp(`(?:${MAPPING_WORDS.join("|")})["']?:[ \\t]*(?:#[^\\n\\\\]*)?\\r?\\n`, "g")
const MAPPING_HEAD_ESCAPED = new RegExp(`(?:${MAPPING_WORDS.join("|")})(?:\\\\?["'])?:[ \\t]*(?:#[^\\n\\\\]*)?(?:\\\\r)?\\\\n`, "g")
/** A key line whose value is the mapping below it: indentation, maybe `- `, the key (maybe quoted), `:`, maybe a comment. */
const MAPPING_KEY = /^([ \t]*)(-[ \t]+)?(\\?["']?)([A-Za-z0-9_.-]{1,300})\3[ \t]*:[ \t]*(?:#.*)?$/
/**
 * A line of the mapping: indentation, maybe `- `, maybe a key and `:`, then the value (quoted, or plain: no `"` or
 * backslash in it, so a JSON string that ends on the line is no value) and maybe a comment.
 */
const MAPPING_LINE = /^([ \t]*(?:-[ \t]+)?(?:(?:\\?["'])?[A-Za-z0-9_.$@\/-]{1,300}(?:\\?["'])?[ \t]*:[ \t]+)?)(?:(\\?["'])(.*?)\2|([^\s#"'\\|>\[{&*!%@`][^#"\\]*?))([ \t]+#.*)?[ \t]*$/
/** Plain YAML scalars that are no string: booleans and null. */
const YAML_NOT_STRING = /^(?:true|false|True|False|TRUE|FALSE|yes|no|Yes|No|YES|NO|on|off|On|Off|ON|OFF|null|Null|NULL|~)$/

/**
 * The `secret-mapping` rule by hand: a YAML mapping under a secret's name (`credentials:`, `secrets:`, `auth:`,
 * `db_password:`, ... then the line's end: the key's value is the block below it), its lines those indented more
 * than the key (blank lines between them). Each line's value (after `key:` or `- `, quoted or plain, a comment after
 * it staying) goes when it is a secret for the name's kind ({@link leafSecret}; `auth` and `credentials` as a
 * password's: every string and number); keys, nested keys, booleans, null, references and empty values stay. A
 * block is read at most 64k characters. Lines ended by a newline, or (YAML held in a JSON string) by a `\n` escape.
 */
const redactMappings = (s: string): string => {
  const once = redactMappingsBy(s, MAPPING_HEAD, "\n", "\r")
  return once.includes("\\n") ? redactMappingsBy(once, MAPPING_HEAD_ESCAPED, "\\n", "\\r") : once
}

/** Where an unescaped `"` (a JSON string's closing quote) is in `s` from `from` to `to`, or -1. */
const jsonStringEnd = (s: string, from: number, to: number): number => {
  for (let i = s.indexOf("\"", from); i >= 0 && i < to; i = s.indexOf("\"", i + 1)) {
    let b = 0
    while (i - b - 1 >= from && s.charCodeAt(i - b - 1) === 92) b++
    if (b % 2 === 0) return i
  }
  return -1
}

/** {@link redactMappings} with lines ended by `nl` (a newline, or a `\n` escape), maybe after `cr`, their key lines found by `heads`. */
const redactMappingsBy = (s: string, heads: RegExp, nl: string, cr: string): string => {
  const M = marker("secret-mapping")
  let out = ""
  let done = 0
  heads.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = heads.exec(s)) !== null) {
    const headEnd = m.index + m[0].length
    if (m.index < done) continue
    const lineEnd = headEnd - nl.length
    const nlBefore = s.lastIndexOf(nl, m.index)
    const lineStart = nlBefore < 0 ? 0 : nlBefore + nl.length
    let line = s.slice(lineStart, lineEnd)
    if (line.endsWith(cr)) line = line.slice(0, -cr.length)
    // YAML held in a JSON string: its first line starts after the string's opening quote
    const q = nl === "\n" || nlBefore >= 0 ? -1 : line.lastIndexOf("\"")
    const k = MAPPING_KEY.exec(q < 0 ? line : line.slice(q + 1))
    if (k === null) continue
    const name = k[4].slice(k[4].lastIndexOf(".") + 1)
    const kind = /^auth$/i.test(name) ? "secret" : underKind(secretKeyKind(name), name)
    if (kind === "none" || kind === "header") continue
    const keyCol = k[1].length + (k[2]?.length ?? 0)
    const limit = Math.min(s.length, headEnd + 65536)
    let p = headEnd
    let end = headEnd
    let pieces = ""
    let last = headEnd
    while (p < limit) {
      let e = s.indexOf(nl, p)
      if (e < 0 || e > limit) e = limit
      let ind = p
      while (ind < e && (s.charCodeAt(ind) === 32 || s.charCodeAt(ind) === 9)) ind++
      let contentEnd = cr.length > 0 && s.startsWith(cr, e - cr.length) && e - cr.length >= ind ? e - cr.length : e
      // YAML held in a JSON string (session 37, tester36b F6): its last line ends at the string's closing quote (`  …"}`)
      const closing = nl === "\n" ? -1 : jsonStringEnd(s, ind, contentEnd)
      if (closing >= 0) contentEnd = closing
      if (ind < contentEnd) {
        if (ind - p <= keyCol) break
        const v = MAPPING_LINE.exec(s.slice(p, contentEnd))
        if (v !== null) {
          const quoted = v[3] !== undefined
          // a JSON (or JavaScript) member's literal before its comma (`null,`, `true,`, `84736251,`): the comma is the
          // member's end, no part of the value (tester35c F1: `"password":` then `null,` stays, comma and all)
          const text = quoted ? v[3] : /^(?:null|true|false|-?[0-9]{1,15}(?:\.[0-9]{1,15})?),$/.test(v[4]) ? v[4].slice(0, -1) : v[4]
          const value: unknown = !quoted && /^-?[0-9]{1,15}(?:\.[0-9]{1,15})?$/.test(text) ? Number(text) : text
          // (a plain value ending in `:` or holding `: ` is a key the line pattern did not read: a nested key's line)
          const plainKey = !quoted && (text.endsWith(":") || /:[ \t]/.test(text))
          // (a value that holds a marker was redacted already: `- [REDACTED:…]` is no sequence's item `[…]`; session 37)
          if (!plainKey && (quoted || !YAML_NOT_STRING.test(text)) && text.length > 0 && !text.includes("[REDACTED:") && leafSecret(kind, value)) {
            const at = p + v[1].length + (quoted ? v[2].length : 0)
            pieces += s.slice(last, at) + M
            last = at + text.length
          }
        }
        end = contentEnd
      }
      if (closing >= 0) break
      p = e + nl.length
    }
    if (last > headEnd) {
      out += s.slice(done, headEnd) + pieces
      done = last
    }
    if (heads.lastIndex < end) heads.lastIndex = end
  }
  return done === 0 ? s : out + s.slice(done)
}

/** Where a `secret-flow` list may start: a final word of `secret-nested`'s names, maybe its closing quote, `:`, `[`. */
const FLOW_HEAD = new RegExp(`(?:${NESTED_WORDS.join("|")})["']?[ \\t]{0,8}:[ \\t]{0,8}\\[`, "g")
/** How far a `secret-flow` list is read (characters); a longer one is left as it is. */
const FLOW_LIMIT = 4096
/** A plain YAML number. */
const YAML_NUMBER = /^-?[0-9]{1,15}(?:\.[0-9]{1,15})?$/

/**
 * The `secret-flow` rule by hand: a YAML flow sequence under a secret's name (`api_keys: [a, b]`, `secrets:
 * ["…", '…']`, in a flow mapping too: `{passwords: [a, b]}`), on one line. The name (`secret-nested`'s, after the
 * line's start, white space, `{`, `,` or a quote) decides which elements go ({@link leafSecret}); a plain (bare)
 * element goes only when it also looks like a secret ({@link LOOKS_SECRET}: `secrets: [db, cache]` stays) or is a
 * number under a password's name (a PIN); booleans, null, references, markers and empty elements stay. The name,
 * the brackets, the quotes, the commas and the spaces stay. A list holding a nested `[`/`{`, a backslash, or no
 * `]` on its line within {@link FLOW_LIMIT} characters is left as it is.
 */
const redactFlowLists = (s: string): string => {
  const M = marker("secret-flow")
  let out = ""
  let done = 0
  FLOW_HEAD.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = FLOW_HEAD.exec(s)) !== null) {
    if (m.index < done) continue
    // the name: back from its final word over name characters (at most 300), maybe after a quote
    let nameStart = m.index
    while (nameStart > 0 && m.index - nameStart < 300 && isNameChar(s.charCodeAt(nameStart - 1))) nameStart--
    const before = nameStart === 0 ? 32 : s.charCodeAt(nameStart - 1)
    // the line's start, white space, `{`, `,`, a quote
    if (!(before === 32 || before === 9 || before === 10 || before === 13 || before === 123 || before === 44 || before === 34 || before === 39)) continue
    let nameEnd = m.index
    while (nameEnd < s.length && isNameChar(s.charCodeAt(nameEnd))) nameEnd++
    const name = s.slice(nameStart, nameEnd)
    const kind = underKind(secretKeyKind(name), name)
    if (kind === "none" || kind === "header") continue
    const listStart = m.index + m[0].length
    // a marker an earlier rule left (`password: [REDACTED:secret-field]`) is no list
    if (s.startsWith("REDACTED:", listStart)) continue
    const limit = Math.min(s.length, listStart + FLOW_LIMIT)
    const pieces: Array<readonly [number, number]> = []
    let p = listStart
    let closed = -1
    for (;;) {
      while (p < limit && (s.charCodeAt(p) === 32 || s.charCodeAt(p) === 9)) p++
      if (p >= limit) break
      const c = s.charCodeAt(p)
      // `]` where an element would start: an empty list, or a trailing comma
      if (c === 93) {
        closed = p
        break
      }
      let textStart: number, textEnd: number, quoted = false
      if (c === 34 || c === 39) {
        const q = s.indexOf(s[p], p + 1)
        if (q < 0 || q >= limit) break
        const inner = s.slice(p + 1, q)
        if (inner.includes("\n") || inner.includes("\\")) break
        textStart = p + 1
        textEnd = q
        quoted = true
        p = q + 1
      } else if (s.startsWith("[REDACTED:", p)) {
        const e = s.indexOf("]", p)
        if (e < 0 || e >= limit) break
        textStart = textEnd = p
        p = e + 1
      } else {
        textStart = p
        while (p < limit) {
          const d = s.charCodeAt(p)
          // a plain scalar ends at `,` or `]`; a nested structure, a quote, a backslash or a newline ends the reading
          if (d === 44 || d === 93 || d === 91 || d === 123 || d === 125 || d === 10 || d === 13 || d === 92 || d === 34 || d === 39) break
          p++
        }
        textEnd = p
        while (textEnd > textStart && (s.charCodeAt(textEnd - 1) === 32 || s.charCodeAt(textEnd - 1) === 9)) textEnd--
      }
      while (p < limit && (s.charCodeAt(p) === 32 || s.charCodeAt(p) === 9)) p++
      const text = s.slice(textStart, textEnd)
      if (textEnd > textStart) {
        const value: unknown = !quoted && YAML_NUMBER.test(text) ? Number(text) : text
        const secret = quoted
          ? leafSecret(kind, text)
          : !YAML_NOT_STRING.test(text) && leafSecret(kind, value) && (typeof value === "number" || LOOKS_SECRET.test(text))
        if (secret) pieces.push([textStart, textEnd])
      }
      const sep = p < limit ? s.charCodeAt(p) : -1
      if (sep === 44) {
        p++
        continue
      }
      if (sep === 93) closed = p
      break
    }
    if (closed < 0) continue
    if (pieces.length > 0) {
      for (const [a, b] of pieces) {
        out += s.slice(done, a) + M
        done = b
      }
    }
    if (FLOW_HEAD.lastIndex < closed) FLOW_HEAD.lastIndex = closed
  }
  return done === 0 ? s : out + s.slice(done)
}

/** A Markdown table's delimiter row: cells of `-` (maybe `:` at either end), joined by `|`. */
const TABLE_DELIMITER = /^[ \t]{0,40}\|?(?:[ \t]{0,40}:?-{1,200}:?[ \t]{0,40}\|){0,200}[ \t]{0,40}:?-{1,200}:?[ \t]{0,40}\|?[ \t]{0,40}$/
/** The cells of a table row `line` as `[start, end)` of their trimmed text (an escaped `\|` is no separator). */
const tableCells = (line: string): Array<[number, number]> => {
  const cells: Array<[number, number]> = []
  let i = 0
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++
  let start = line.charCodeAt(i) === 124 || line.charCodeAt(i) === 0x2502 ? i + 1 : i
  const close = (end: number) => {
    let a = start, b = end
    while (a < b && (line.charCodeAt(a) === 32 || line.charCodeAt(a) === 9)) a++
    while (b > a && (line.charCodeAt(b - 1) === 32 || line.charCodeAt(b - 1) === 9 || line.charCodeAt(b - 1) === 13)) b--
    cells.push([a, b])
  }
  for (let k = start; k < line.length; k++) {
    if (line.charCodeAt(k) === 92) k++
    else if (line.charCodeAt(k) === 124 || line.charCodeAt(k) === 0x2502) {
      close(k)
      start = k + 1
    }
  }
  // the text after the last `|` is a cell unless it is blank (a row's closing `|`)
  if (line.slice(start).trim().length > 0) close(line.length)
  return cells
}
/**
 * What every `secret-table` match's text holds: a delimiter row's `|` next to `-` or `:` (a table has one; a row
 * alone, without its table's delimiter row, is not read). Not `|` alone nor a secret name then `|`: shell pipes and
 * `||` hold those, and the prefilter would let most strings through (or compare hundreds of needles at each ` |`).
 */
const TABLE_HINTS: ReadonlyArray<string> = ["|-", "-|", "|:", ":|", "- |", "| -", "-\t|", "|\t-", "-+-", "+-", "---  ", "-[ RECORD ", ". row **", " VALUE ", " row)", " rows)"]
/**
 * A query client's or a CLI's delimiter row under a table's header (session 23, tester23c F7/F9): psql's `----+----`,
 * mysql's border `+----+----+`, a box's `├────┼────┤` (sqlite3 `-box`, Doppler), Vault's `---   -----` (`Key` `Value`).
 */
const OUTPUT_DELIMITER = /^[ \t]{0,40}(?:\+?-{1,200}(?:\+-{1,200}){1,200}\+?|\+-{1,200}\+|[\u251c\u255e][\u2500\u2550]{1,200}(?:[\u253c\u256a][\u2500\u2550]{1,200}){0,200}[\u2524\u2561])[ \t]{0,40}\r?$/
/** Vault's `Key  Value` header's delimiter row: `---` then `-----`, white space between. */
const VAULT_DELIMITER = /^-{3}[ \t]{2,200}-{5}[ \t]*\r?$/
/** A record's head: psql's expanded `-[ RECORD 1 ]----`, mysql's `\G` `*** 1. row ***`. */
const RECORD_HEAD = /-\[ RECORD [0-9]{1,12} \]-*|\*{3,100} [0-9]{1,12}\. row \*{3,100}/
/** A mysql `\G` record's line: `   password: value`. */
const RECORD_COLON = /^([ \t]{0,64})([A-Za-z0-9_$-]{1,64}): (.*?)[ \t]*\r?$/
/** A Vault table's row: the name, white space, the value (the rest of the line). */
const VAULT_ROW = /^([A-Za-z0-9_.\/-]{1,128})([ \t]{2,200})(.*?)[ \t]*\r?$/
/**
 * psql's one-column table (session 24): its header, one name (centred: white space around it), the line's start
 * or a quote before it (the first line of a JSON text's string: `{"output":"  password  \n`).
 */
const PSQL_ONE_HEADER = /(?:^|["'])[ \t]{0,200}([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]{0,200}\r?$/
/** psql's one-column table: the rule under its header, `-` alone (no `+`: one column). */
const PSQL_ONE_RULE = /^-{1,512}\r?$/
/** psql's footer: `(1 row)`, `(12 rows)`. */
const PSQL_FOOTER = /^\([0-9]{1,12} rows?\)(?![A-Za-z0-9])/
/** A row of psql's one-column table: a space, the value, its padding (a wrapped value's `+`: white space kept). */
const PSQL_ONE_ROW = /^( )(.*?)([ \t]*\+?\r?)$/
/**
 * psql's one-column table at line `i` of `lines` (session 24): a header naming a secret ({@link cellKind}), a rule
 * of `-` at least as wide, rows that each start with a space, then the footer `(N rows)`: each row's value that is
 * a secret of the header's name ({@link outputSecret}) becomes `mark` (the rows changed in place). Without the
 * footer it is no psql table (a name over `---` is a Markdown heading too) and nothing changes. Returns the index of
 * the footer (`last`), or `i` when line `i` starts no such table.
 */
const psqlOneColumn = (lines: Array<string>, i: number, mark: string): { readonly last: number; readonly changed: boolean } => {
  const no = { last: i, changed: false }
  const rule = lines[i + 1]
  if (rule === undefined || !PSQL_ONE_RULE.test(rule)) return no
  const h = PSQL_ONE_HEADER.exec(lines[i])
  if (h === null || rule.trimEnd().length < h[1].length) return no
  const kind = cellKind(h[1])
  if (kind === "none" || kind === "header") return no
  let j = i + 2
  while (j < lines.length && lines[j].charCodeAt(0) === 32) j++
  // (no footer: line i starts nothing; the rows scanned stop at the next rule, so no line is scanned twice over)
  if (j >= lines.length || !PSQL_FOOTER.test(lines[j])) return no
  let changed = false
  for (let k = i + 2; k < j; k++) {
    const m = PSQL_ONE_ROW.exec(lines[k])
    if (m !== null && outputSecret(kind, m[2])) {
      lines[k] = m[1] + mark + m[3]
      changed = true
    }
  }
  return { last: j, changed }
}
/** A word every secret's name ends in (any case), looked for before a cell is read as a name. */
const CELL_NAME_HINT = /pass|token|secret|key|pwd|pin|otp|cvv|cvc|credential/i
/** Whether `line` may be a delimiter row: its first character past white space is `|`, `-` or `:`, and it holds a `-`. */
const mayBeDelimiter = (line: string): boolean => {
  let i = 0
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++
  const c = line.charCodeAt(i)
  return ((c === 124 || c === 45 || c === 58) && line.includes("-") && TABLE_DELIMITER.test(line)) || ((c === 45 || c === 43 || c === 0x251c || c === 0x255e) && OUTPUT_DELIMITER.test(line))
}
/** A table cell as a name: its emphasis and code marks dropped, spaces joined by `_` (`API key` gives `API_key`). */
const cellKind = (cell: string): SecretKeyKind => {
  // most cells name no secret: a cheap look for a secret name's last word first
  if (!CELL_NAME_HINT.test(cell)) return "none"
  const name = cell.replace(/^[*_`]{1,3}|[*_`]{1,3}$/g, "").replace(/[ \t]+/g, "_")
  if (name.length > 60 || !/^[A-Za-z0-9_-]+$/.test(name)) return "none"
  return underKind(secretKeyKind(name), name)
}
/**
 * Whether a table cell's value (its backticks dropped) is the secret of a name of kind `kind`: one word (no white
 * space), not a reference nor a marker; digits only: under a PIN's name a PIN, under a password's (or `pass`)
 * name 4 digits or more (`| password | 64 |` is a length); else it looks like a secret ({@link LOOKS_SECRET}) and
 * is one for the name ({@link leafSecret}), holding a letter unless it has 16 characters or more (`1.5`, `12/64`
 * stay).
 */
const tableSecret = (kind: SecretKeyKind, v: string): boolean => {
  if (v.length === 0 || v.length > 512 || /\s/.test(v) || notAValue(v) || v.includes("[REDACTED:")) return false
  if (/^[0-9]+$/.test(v)) return kind === "pin" ? pinValue(v) : (kind === "secret" || kind === "pass") && v.length >= 4
  if (kind === "pin") return false
  if (!/[A-Za-z]/.test(v) && v.length < 16) return false
  return LOOKS_SECRET.test(v) && leafSecret(kind, v)
}

/**
 * The `secret-table` rule by hand: a Markdown table that holds a secret. A row (starting with `|`) whose first
 * cell is a secret's name (`| password | … |`, `| **API key** | … |`; {@link secretKeyKind}, spaces read as `_`)
 * loses its second cell's value; and under a header row whose cell is a secret's name (followed by a delimiter
 * row: `|---|:-:|`), each later row's cell in that column loses its value, to the table's end (a line without `|`).
 * A value goes when it looks like a secret ({@link tableSecret}): a description, a type, `********`, a reference,
 * a length stay. The cell's backticks and the rest of the row stay. Lines are read once: linear.
 */
const redactTables = (s: string): string => {
  // one line: no table (a table has a delimiter row under its header); lines broken by `\n` escapes are read too
  // (JSON text, and JSON text held in a string: a tool's output escaped)
  let out = s.includes("\n") ? tableLines(s.split("\n"), "\n") : s
  if (out.includes("\\n")) {
    const parts = out.split(/(\\{1,7}n)/)
    const lines = parts.filter((_, k) => k % 2 === 0)
    const joined = tableLines(lines, null)
    if (joined !== null) out = lines.map((l, k) => (k === 0 ? l : parts[2 * k - 1] + l)).join("")
  }
  return out
}
/**
 * Whether a value in a query's or a secret manager's output (a cell of psql's, mysql's, a box's table, a record's
 * value, a Vault row's) under a name of kind `kind` is a secret: the output is data, so as a structured value's
 * leaf ({@link leafSecret}), not as a Markdown table's cell (where `required` or a description is prose); digits
 * only as {@link tableSecret} reads them (`1200` under `tokens` is a count). Never `NULL`, empty, a reference, a marker.
 */
const outputSecret = (kind: SecretKeyKind, v: string): boolean => {
  if (v.length === 0 || v.length > 512 || notAValue(v) || v.includes("[REDACTED:") || /^(?:NULL|null|\(null\)|<nil>)$/.test(v)) return false
  if (/^[0-9.]+$/.test(v)) return tableSecret(kind, v)
  return kind !== "header" && leafSecret(kind, v)
}
/** {@link redactTables} on `lines` (changed in place); with `nl` their text joined by it, else `null` when nothing changed ("" when something did). */
function tableLines(lines: Array<string>, nl: string): string
function tableLines(lines: Array<string>, nl: null): string | null
function tableLines(lines: Array<string>, nl: string | null): string | null {
  const M = marker("secret-table")
  let changed = false
  let columns: Array<SecretKeyKind> | null = null
  // a Markdown table's, or a query output's (psql's, mysql's, a box's: its cells are data, see outputSecret)
  let output = false
  // in a record (psql's `\x`, mysql's `\G`) or a Vault table: each line a name and its value
  let record: "psql" | "mysql" | "vault" | null = null
  // under a query output's header, to the table's end: psql's rows start with a cell, not `|` (` api_token | … `)
  let inOutput = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (record === null && columns === null && !line.includes("|")) {
      const one = psqlOneColumn(lines, i, M)
      if (one.changed) changed = true
      if (one.last !== i) {
        i = one.last
        continue
      }
    }
    if (RECORD_HEAD.test(line)) {
      record = line.includes("RECORD") ? "psql" : "mysql"
      columns = null
      continue
    }
    if (VAULT_DELIMITER.test(line) && i > 0 && /(?:^|[^A-Za-z0-9_])Key[ \t]{1,200}Value[ \t]*\r?$/.test(lines[i - 1])) {
      record = "vault"
      columns = null
      continue
    }
    if (record !== null) {
      const m = record === "psql" ? null : (record === "mysql" ? RECORD_COLON : VAULT_ROW).exec(line)
      if (record === "psql" && line.includes("|")) {
        const cells = tableCells(line)
        if (cells.length >= 2) {
          const kind = cellKind(line.slice(cells[0][0], cells[0][1]))
          const [a, b] = cells[1]
          if (kind !== "none" && outputSecret(kind, line.slice(a, b))) {
            lines[i] = line.slice(0, a) + M + line.slice(b)
            changed = true
          }
        }
        continue
      }
      if (m !== null) {
        // mysql: indent, name, value; Vault: name, white space, value
        const head = record === "mysql" ? `${m[1]}${m[2]}: ` : `${m[1]}${m[2]}`
        const kind = cellKind(record === "mysql" ? m[2] : m[1])
        if (kind !== "none" && kind !== "header" && outputSecret(kind, m[3])) {
          lines[i] = head + M + line.slice(head.length + m[3].length)
          changed = true
        }
        continue
      }
      record = null
    }
    if (!line.includes("|") && !line.includes("\u2502")) {
      columns = null
      inOutput = false
      continue
    }
    const next = lines[i + 1]
    // (in a query's output, a row then a border is the table's last row: mysql's `+----+` closes it)
    if (next !== undefined && !(output && columns !== null) && mayBeDelimiter(next)) {
      // a header row: the columns headed by a secret's name
      const kinds = tableCells(line).map(([a, b]) => cellKind(line.slice(a, b)))
      columns = kinds.some((k) => k !== "none" && k !== "header") ? kinds : null
      output = !TABLE_DELIMITER.test(next)
      inOutput = output
      i++
      continue
    }
    const first = line.trimStart().charCodeAt(0)
    // a name/value row: a Markdown or box row, or (session 24, tester24a F2) a row of psql's aligned output under a
    // header that names no secret (`name | value`, `key | value`: a settings table)
    const rowStart = first === 124 || first === 0x2502 || inOutput
    if (!rowStart && columns === null) continue
    const cells = tableCells(line)
    const hits = new Set<number>()
    const secret = (l: string, cell: readonly [number, number], kind: SecretKeyKind) =>
      output || first === 0x2502 ? outputSecret(kind, l.slice(cell[0], cell[1])) : cellSecret(l, cell, kind)
    if (rowStart && cells.length >= 2) {
      const kind = cellKind(line.slice(cells[0][0], cells[0][1]))
      if (kind !== "none" && kind !== "header") hits.add(1)
      if (hits.has(1) && !secret(line, cells[1], kind)) hits.delete(1)
    }
    if (columns !== null) {
      for (let c = 0; c < Math.min(columns.length, cells.length); c++) {
        const kind = columns[c]
        if (kind !== "none" && kind !== "header" && secret(line, cells[c], kind)) hits.add(c)
      }
    }
    if (hits.size === 0) continue
    let out = ""
    let done = 0
    for (const c of [...hits].sort((a, b) => a - b)) {
      let [a, b] = cells[c]
      if (line.charCodeAt(a) === 96 && line.charCodeAt(b - 1) === 96 && b - a >= 2) {
        a++
        b--
      }
      out += line.slice(done, a) + M
      done = b
    }
    lines[i] = out + line.slice(done)
    changed = true
  }
  if (nl === null) return changed ? "" : null
  return lines.join(nl)
}
/** Whether the cell `[a, b)` of `line` holds a secret of a name of kind `kind` (its backticks dropped; {@link tableSecret}). */
const cellSecret = (line: string, [a, b]: readonly [number, number], kind: SecretKeyKind): boolean => {
  let v = line.slice(a, b)
  if (v.length >= 2 && v.startsWith("`") && v.endsWith("`")) v = v.slice(1, -1)
  return tableSecret(kind, v)
}

/** A value character of an INI/properties line (`secret-line`): not white space, not a `\n`/`\r`/`\t` escape. */
const LV = String.raw`(?:[^\s\\]|\\(?![nrt]))`
/** The final words of `secret-line`'s names, then `=` (maybe after white space); a `\t` escape then `=` (JSON text). */
const SECRET_LINE_HINTS: ReadonlyArray<string> = [...new Set(
  cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS]).flatMap((w) => [w + "=", w + " =", w + "\t="]).concat(["  =", "\t=", "\\t="], ESC_EQ_HINTS)
)]

/**
 * The replacement of a `secret-line` match: the head (indentation, dotted prefix, name, `=`) stays, the value
 * becomes the marker; left as they are: a page cursor's and a count's names (`next_page_token`, `max_tokens`), and
 * under `pass`/`pwd` alone a value that is no password ({@link aloneSecret}).
 */
const lineReplace = (m: string, lead: string, head: string, value: string): string => {
  const name = head.replace(/[ \t]*=[ \t]*$/, "").trim()
  const joined = name.slice(name.lastIndexOf(".") + 1).replace(/^\\[nr]/, "").replace(/[_-]/g, "").toLowerCase()
  if (PAGE_CURSOR_NAME.test(joined) || COUNT_TOKENS.test(joined) || DATA_KEY.test(joined)) return m
  if ((joined === "pass" || joined === "pwd") && !aloneSecret(value)) return m
  // letters only (no digit, under 16 characters): only under a password's or a secret's name, and no type or keyword
  if (/^[A-Za-z]{1,15}$/.test(value) && !wordSecret(joined, value)) return m
  return `${lead}${head}${marker("secret-line")}`
}

/**
 * The `//` after a URL's scheme, also with JSON-escaped slashes (session 24, tester24a F3: `postgres:\/\/…`, as PHP's
 * json_encode and Java encoders write it; `\\\/` in JSON text held in a string).
 */
const SLASHES = String.raw`(?://|\\{1,3}/\\{1,3}/)`
/** A `/` in a URL, also JSON-escaped (`\/`, `\\\/`): see {@link SLASHES}. */
const SLASH = String.raw`(?:/|\\{1,3}/)`
/** Whether `s` may hold a URL's `scheme://` (with escaped slashes too: {@link SLASHES}). */
const mayHoldUrl = (s: string): boolean => s.includes("://") || s.includes(":\\/") || s.includes(":\\\\")
/** `url-credentials`' pattern: group 1 the kept head (`scheme://user:`), group 2 the password. */
/**
 * A URL password holding a raw `/`, `?` or `#` (tester35a F3: `amqp://u:Zk4n/W8qP@mq:5672/`; a `/` JSON-escaped too), read when no `@`
 * ends the user info before the first of them: the password runs to the first `@` after which a host ends the word
 * (lazy). Not so when what follows the `:` up to that character reads as a port (`host:8080/…@…`, an empty one
 * `host:/…`, a list `host1:27017,host2:…`), a placeholder (`$PORT`, `${PORT}`, `{{port}}`, `<port>`, `%s`, a word
 * of letters alone: `host:port/…`), nor when the run holds a query's parameter (`?email=bob@…`, `&to=a@…`): there
 * the authority ends at the `/`, `?` or `#`, as RFC 3986 reads it.
 */
const URL_PASSWORD_CROSSING = String.raw`(?![0-9]{0,5}(?:[,?#]|${SLASH}|$)|[$\{<%]|[A-Za-z]{1,64}(?:[?#]|${SLASH}))(?:(?![?&][A-Za-z0-9_.\[\]-]{0,64}=)[^\s"'${"`"}<>\\]|\\{1,3}/){1,512}?`
/**
 * A `'` inside a URL password (session 36, tester35a F3: `mysql://u:Qz7v'K2mX9pL@db/app`, a raw password pasted into a
 * connection string): between two of the password's characters, so the quote around a URL (`'mysql://u:p@db'`,
 * `'…@a','…@b'`) is never taken in.
 */
const URL_PASSWORD_QUOTE = String.raw`(?<=[^\s/?#"'${"`"}<>\\:])'(?=[^\s/?#"'${"`"}<>\\,;)\]])`
const URL_CREDENTIALS_SOURCE = String.raw`${start("A-Za-z0-9+.-")}([A-Za-z][A-Za-z0-9+.-]{0,30}:${SLASHES}[^\s:/?#"'${"`"}<>\\[\]]{0,256}:)(?!\[REDACTED:[a-z0-9-]{1,64}\]@)((?:[^\s/?#"'${"`"}<>\\]|${URL_PASSWORD_QUOTE}){1,512}|${URL_PASSWORD_CROSSING})(?=@[^\s/?#@"'${"`"}<>\\]*(?:[\s/?#"'${"`"}<>\\]|$))`
const URL_CREDENTIALS = re(URL_CREDENTIALS_SOURCE)
/** A character of {@link HOST_PASSWORD_SOURCE}'s password: no white space, quote, bracket, `:`, `/`, `@` or backslash. */
const HOST_PW = String.raw`[^\s:/?#@"'${"`"}<>\\()\[\]{},;]`
/**
 * `user:password@host` with no scheme, or after `//` (a scheme-relative URL; session 36, tester35a F6), as a pattern:
 * group 1 the `:`, group 2 the password, group 3 the `@` (led by the `:`, the user read behind it: the engine skips to
 * each `:`, where a pattern led by the user would be tried at every word). The user starts a word with a
 * letter (a time, `10:30@…`, is none) and holds no `:`/`/` (a URL's, a path's, an image reference's part is none);
 * the password has a secret's shape: 6 characters or more with a letter and a digit, or 12 or more with upper- and
 * lower-case letters, and no version (`a:b@c`, `localhost:8080@x`, `npm:some-package@1.0`, `app:v2@latest`,
 * `app:1.2.0-rc1@x` stay); the host is a name or an address up to the
 * word's end, a port or a path, and no digest (`img:v1.2@sha256:…` stays). Bounded: linear.
 */
/**
 * A password and a host that the `email` rule (later in the table) takes as an email, as a pattern: an email's
 * characters, `@`, a dotted domain ending in 2 to 24 letters (no image's extension: `icon@2x.png`). Left to that rule,
 * which hides the address whole (`mailto:bob2@example.com`).
 */
const HOST_EMAIL = String.raw`[A-Za-z0-9._%+-]{1,128}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.(?!(?:png|jpe?g|gif|svg|webp|ico|bmp|avif)(?![A-Za-z]))[A-Za-z]{2,24}(?![A-Za-z0-9(\[-])`
/**
 * A character of {@link HOST_PASSWORD_SOURCE}'s password, or a `#`, `?`, `/` or `@` between two of them (session 37,
 * tester36b F4: `deploy:Zq8#vN3p@db.internal`, `deploy:Zq8@vN3p@db.internal`: the user info ends at the last `@`
 * before the host, as `url-credentials` reads a URL's; the `email` rule took the tail and the head showed).
 */
const HOST_PW_IN = String.raw`(?:${HOST_PW}|[#?/@](?=${HOST_PW}))`
const HOST_PASSWORD_SOURCE = String.raw`(:)(?=${HOST_PW}${HOST_PW_IN}{5,127}@)(?<=(?:^|[^A-Za-z0-9._~%+:/@\\-]|${BOUNDARY_ESCAPE})(?:${SLASHES})?[A-Za-z_][A-Za-z0-9._-]{0,63}:)(?![vV]?[0-9]{1,6}\.[0-9])(?!${HOST_EMAIL})(?:(?=${HOST_PW_IN}{0,127}[0-9])(?=${HOST_PW_IN}{0,127}[A-Za-z])|(?=${HOST_PW_IN}{0,127}[A-Z])(?=${HOST_PW_IN}{0,127}[a-z])(?=${HOST_PW}{12}))(${HOST_PW}${HOST_PW_IN}{5,127})(@)(?!sha(?:1|224|256|384|512):)(?=[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,10}[.,;!?]?(?:[\s:/"'${"`"}<>)\]\\]|$))`

/** A version after an `@` (`1.2.3`, `v20`): a package's, not a host (when the password holds a `/`, `?`, `#` or `@`). */
const VERSION_AFTER = /^[vV]?[0-9]{1,6}(?:\.[0-9]{1,6}){0,2}(?![0-9A-Za-z.])/
/**
 * A machine's or a worker's name as the part between `:` and `@` (session 37, tester36b F10: `worker:node01@cluster`,
 * `job:gpu3@rack2`, a scheduler's label): a word of these, maybe `-` or `_`, and a number of at most 4 digits.
 */
const HOST_LABEL = /^(?:node|host|worker|server|srv|vm|pod|gpu|cpu|rack|shard|replica|instance|machine|box|rank|slot|core|executor|runner|agent)[-_]?[0-9]{1,4}$/
/**
 * A {@link HOST_PASSWORD_SOURCE} password's shape, read on the password itself (the pattern's look may read on past an
 * `@` the password holds, into the host): a letter and a digit, or 12 characters or more with both cases.
 */
const hostPasswordShape = (pw: string): boolean =>
  (/[0-9]/.test(pw) && /[A-Za-z]/.test(pw)) || (/[A-Z]/.test(pw) && /[a-z]/.test(pw) && pw.length >= 12)
/**
 * Whether `pw`, a {@link HOST_PASSWORD_SOURCE} password holding a `/`, `?`, `#` or `@`, is one (`after`: the text after
 * its `@`): no port then a path (`h2:27017/db?user=me@corp.com`), no word of letters then one
 * (`host:port/…`), no query's parameter (`?user=me@…`, `&to=a@…`), and no package's path before a version
 * (`npm:lodash/fp2@4.17.21`), as `url-credentials` reads a URL's password across them (URL_PASSWORD_CROSSING).
 */
const crossingPassword = (pw: string, after: string): boolean =>
  !/^(?:[0-9]{0,5}|[A-Za-z]{1,64})[/?#,]/.test(pw) && !/[?&][A-Za-z0-9_.\[\]-]{0,64}=/.test(pw) && !VERSION_AFTER.test(after)
/** {@link HOST_PASSWORD_SOURCE}, global. */
const HOST_PASSWORD = re(HOST_PASSWORD_SOURCE)
/**
 * The `url-credentials` rule: the password of each `scheme://user:password@host` (when `s` may hold one), then of each
 * `user:password@host` with no scheme or after `//` (when `s` holds an `@`; {@link HOST_PASSWORD_SOURCE}); the scheme,
 * the user, the `@` and the host stay. An email is the `email` rule's, later in the table: `user:pw@example.com` is
 * left to it ({@link HOST_EMAIL}).
 */
const redactUrlCredentials = (s: string): string => {
  let out = s
  if (mayHoldUrl(out)) {
    URL_CREDENTIALS.lastIndex = 0
    out = out.replace(URL_CREDENTIALS, (_m, head: string) => `${head}${marker("url-credentials")}`)
  }
  if (out.includes("@")) {
    HOST_PASSWORD.lastIndex = 0
    out = out.replace(HOST_PASSWORD, (m: string, colon: string, pw: string, at: string, offset: number, all: string) =>
      // a package's path and version (`npm:lodash/fp2@4.17.21`) or a label (`worker:node01@cluster`) is no password
      !hostPasswordShape(pw) || (/[/?#@]/.test(pw) && !crossingPassword(pw, all.slice(offset + m.length, offset + m.length + 40))) || HOST_LABEL.test(pw)
        ? m
        : `${colon}${marker("url-credentials")}${at}`)
  }
  return out
}

/**
 * The passwords `url-credentials` redacts in `s` (`scheme://user:PASSWORD@host`), in order; none when `s` holds
 * no `://`. `$VAR`/`${VAR}` references and markers of other rules are left out. Used to look for the same
 * password where a later event of the session restates it.
 */
export const urlPasswords = (s: string): Array<string> => {
  if (!mayHoldUrl(s)) return []
  const out: Array<string> = []
  URL_CREDENTIALS.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = URL_CREDENTIALS.exec(s)) !== null) {
    const pw = m[2]
    if (pw.charCodeAt(0) !== 36 && !pw.includes("[REDACTED:")) out.push(pw)
  }
  return out
}

/** A line-number gutter before a `.pgpass` line (see GUTTER): `     1→`, `   1 │ `, `   1 | `, `     1\t`, `1:`, `.pgpass:1:`. */
const PGPASS_GUTTER = String.raw`(?:[^\s:]{1,200}:)?[0-9]{1,9}(?:\u2192[ \t]?|[ \t]{1,4}[\u2502|][ \t]?|\t|:)`

/**
 * `pgpass-password`'s pattern: three alternatives, each `(head)(password)`. A `.pgpass` line alone on its line (maybe
 * after a line-number gutter, {@link PGPASS_GUTTER}), ended by the line's end; one that is a whole quoted string
 * (session 26, tester25a F4: `echo 'db:5432:app:app:…' > ~/.pgpass`, `printf "…\n" >> ~/.pgpass`, a quote maybe
 * escaped as in JSON text), ended by its closing quote (maybe after a `\n`); and one that is the bare word after
 * `echo`/`printf`, ended by white space or a shell operator. The host holds a letter or is `*`, the port is digits
 * or `*`; the password holds a digit or a symbol and is no `$VAR`. Bounded parts: linear.
 */
const PGPASS_SOURCE = (() => {
  const fields = (c: string) => String.raw`(?=[A-Za-z0-9.*_-]{0,253}[A-Za-z*])[A-Za-z0-9.*_-]{1,253}:(?:[0-9]{1,5}|\*):${c}{1,64}:${c}{1,64}:`
  // `c`: the inside of a negated class, a password's characters (`^\s\\`); one of them that is no letter must be among them
  // libpq's escapes `\:` and `\\` are part of it (a password holding `:` or `\` is written so; tester26a F3): one
  // unit is a character of `c` or a backslash then `:` or `\` (unambiguous, so linear); an escape counts as a symbol
  // (`\\` before `n`, `r`, `t` is JSON text's escaped `\n`, no part of it)
  const unit = (c: string) => String.raw`(?:[${c}]|\\(?::|\\(?![nrt])))`
  const password = (c: string) =>
    String.raw`(?![$\{]|[${c}]{0,255}\[REDACTED:)(?=[${c}]{0,255}(?:[^A-Za-z${c.slice(1)}]|\\[:\\]))(${unit(c)}{1,256})`
  const line = String.raw`((?:^|(?<=\\[nr]))[ \t]{0,8}(?:${PGPASS_GUTTER})?${fields(String.raw`[^\s:\\]`)})${password(String.raw`^\s\\`)}(?=[ \t]*(?:\r?$|\\[nr]))`
  const quoted = String.raw`((?<=(?:^|[\s(=,\[{]|\\[nrt])\\{0,3}["'])${fields(String.raw`[^\s:\\"']`)})${password(String.raw`^\s\\"'`)}(?=(?:\\{1,2}n)?\\{0,3}["'])`
  const word = String.raw`((?<=(?:^|[\s;&|(]|\\[nr])(?:echo|printf)[ \t]{1,8}(?:-[neE]{1,3}[ \t]{1,8})?)${fields(String.raw`[^\s:\\"']`)})` +
    String.raw`${password(String.raw`^\s\\"';&|<>()`)}(?=[ \t;&|>)]|\\[nrt]|$)`
  return [line, quoted, word].join("|")
})()
/** The replacement of a `pgpass-password` match: its head (whichever alternative matched), then the marker. */
const pgpassReplace = (_m: string, h1?: string, _p1?: string, h2?: string, _p2?: string, h3?: string): string =>
  `${h1 ?? h2 ?? h3}${marker("pgpass-password")}`

/** A password hash's character (crypt's base64 alphabet). */
const HASH_CHAR = "[./0-9A-Za-z]"
/**
 * `password-hash`'s pattern (session 26, tester25a F4): a crypt(3) password hash as `/etc/shadow`, an htpasswd file or
 * a database holds it: MD5-crypt `$1$salt$hash` and Apache's `$apr1$…`, SHA-crypt `$5$`/`$6$` (maybe `rounds=N$`),
 * bcrypt `$2a$`/`$2b$`/`$2x$`/`$2y$` with its cost (`$2b$12$…`), yescrypt `$y$`, gost-yescrypt `$gy$`, scrypt `$7$`,
 * Argon2 `$argon2id$v=19$m=…,t=…,p=…$salt$hash` and Django's `pbkdf2_sha256$iterations$salt$hash`; each `$`
 * maybe escaped by one or two backslashes (shell, JSON text). The hash part is 16 to 128 characters of its alphabet
 * (256 for Argon2's and Django's base64) and ends there. Session 27: PostgreSQL's `md5` + 32 hex digits and
 * `SCRAM-SHA-256$…` verifiers. Bounded runs separated by `$`: linear.
 */
const PASSWORD_HASH_SOURCE = (() => {
  const H = HASH_CHAR
  const d = String.raw`\1\$`
  const crypt = String.raw`(\\{0,2})\$(?:(?:1|5|6|apr1)${d}(?:rounds=[0-9]{1,9}${d})?${H}{0,64}|2[abxy]?${d}[0-9]{2}|(?:y|gy|7)${d}${H}{1,128}(?:${d}${H}{0,128})?)${d}${H}{16,128}(?!${H})`
  const b64 = "[A-Za-z0-9+/]"
  const e = String.raw`\2\$`
  const argon = String.raw`(\\{0,2})\$argon2(?:id|i|d)${e}(?:v=[0-9]{1,4}${e})?m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,4}${e}${b64}{4,128}${e}${b64}{16,256}(?!${b64})`
  // Django's `pbkdf2_sha256$<iterations>$<salt>$<base64 hash>` (also `pbkdf2_sha1`; tester26a F5): no leading `$`,
  // so it starts at a word's start
  const f = String.raw`\3\$`
  const django = String.raw`(?<![A-Za-z0-9_])pbkdf2_sha(?:1|256|512)(\\{0,2})\$[0-9]{1,10}${f}[A-Za-z0-9./+]{1,128}${f}${b64}{16,256}={0,2}(?![A-Za-z0-9+/=])`
  // PostgreSQL's stored passwords (session 27): `md5` + the 32 hex digits of md5(password + user) as `pg_authid`'s
  // `rolpassword` and `pg_shadow`'s `passwd` hold them (a word of its own), and a SCRAM-SHA-256 verifier
  // `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64)
  const pgMd5 = String.raw`(?<![A-Za-z0-9_])md5[0-9a-f]{32}(?![A-Za-z0-9_])`
  const pgScram = String.raw`(?<![A-Za-z0-9_])SCRAM-SHA-256\\{0,2}\$[0-9]{1,10}:${b64}{4,128}={0,2}\\{0,2}\$${b64}{16,128}={0,2}:${b64}{16,128}={0,2}(?![A-Za-z0-9+/=])`
  return `${crypt}|${argon}|${django}|${pgMd5}|${pgScram}`
})()
/** Every match of `password-hash` holds `$`, the scheme's id, then `$` or the backslash of an escaped `$`. */
const PASSWORD_HASH_HINTS: ReadonlyArray<string> = ["1", "5", "6", "apr1", "2", "2a", "2b", "2x", "2y", "y", "gy", "7"]
  .flatMap((id) => [`$${id}$`, `$${id}\\`]).concat(["$argon2", "pbkdf2_sha", "md5", "SCRAM-SHA-256"])

/**
 * A PEM private key (or PGP's armored `PRIVATE KEY BLOCK`): BEGIN line, base64 body (headers such as Proc-Type/DEK-Info,
 * escaped \n, a line-number gutter's `→`, `│`, `|`, `file_name:12:`), maybe its END line.
 */
const PEM_BLOCK = /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=:,.\s\\_\u2192\u2502|]|-(?!----))*(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g
/** A private key's END line (one a whole block did not take). */
const PEM_END = /-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g
/** A base64 body line of a PEM block: 16 to 1024 base64 characters, any width (OpenSSH's are 70, PEM's 64, `fold` any; session 21), or the last one, shorter. */
const PEM_LINE = /^[ \t]*[A-Za-z0-9+/]{16,1024}={0,2}[ \t]*$/
const PEM_LAST_LINE = /^[ \t]*[A-Za-z0-9+/]{1,1024}={0,2}[ \t]*$/

/** A private key's BEGIN line (PEM, PKCS#8, OpenSSH, PGP's armored `PRIVATE KEY BLOCK`): where {@link redactDecoratedPem} starts. */
const PEM_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g
/**
 * A line-number gutter a tool puts before each line it shows: Claude Code's Read tool (`     12→`), bat (`  12 │ `,
 * `  12 | `), `cat -n`/`nl` (`    12\t`), `12: `, `less -N` (`     12 `), grep -n (`file:12:`, a context line's
 * `file-12-`, without a file `12:`).
 */
const GUTTER = String.raw`(?:[^\s:]{1,200}[:-])?[0-9]{1,9}(?:\u2192|[ \t]{0,4}[\u2502|:]|-|[ \t])`
/**
 * A line's decoration after its indentation: a line-number gutter ({@link GUTTER}), then a Markdown quote, `#`,
 * ` * `, `//`, `;`, `--`, `%`, `!` (repeated: `> > `), or those marks alone; one of them at least.
 */
const LINE_DECOR = String.raw`(?:${GUTTER}[ \t]{0,8}(?:(?:>|#{1,3}|\*|\/\/|;|--(?!-)|%|!)[ \t]{0,8}){0,8}|(?:(?:>|#{1,3}|\*|\/\/|;|--(?!-)|%|!)[ \t]{0,8}){1,8})`
/**
 * What a quoted, commented or numbered key's line starts with: a line-number gutter ({@link GUTTER}), then a
 * Markdown quote, `#`, ` * `, `//`, `;`, `--`, `%`, `!` (repeated: `> > `); one of them at least (indentation alone
 * is the block pattern's), as a pattern at a line's start (shared with `wrapped-key`: {@link WRAP_DECOR}).
 */
const PEM_DECOR = new RegExp(String.raw`^[ \t]{0,40}${LINE_DECOR}`)
/** A body line's content once its decoration is off: base64 (maybe empty: PGP's blank line, `=abcd` its checksum) or a header (`Proc-Type: …`, `Version: …`). */
const PEM_BODY = /^(?:[A-Za-z0-9+/=]{0,1024}|[A-Za-z][A-Za-z0-9-]{0,40}:[^\n]{0,200})[ \t]*$/
/** A private key's END line at a body line's start (after its decoration). */
const PEM_END_AT = /^-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/
/** A string piece of a key built in code (`'MIIE…\n' +`, `"MIIE…\n"`): the quote, the base64 or the END line, maybe a `\n` escape, the same quote, `+`/`,`. */
const PEM_PIECE = /^[ \t]{0,40}[+,]?[ \t]{0,8}(["'`])(?:(-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)((?:\\r)?(?:\\n)?)\1|([A-Za-z0-9+/=]{0,1024})((?:\\r)?(?:\\n)?)\1[ \t]*[+,]?[ \t]*\\?\r?$)/
/** A BEGIN line's tail as a string piece: a `\n` escape, the closing quote, then `+`, `,`, a line continuation or nothing. */
const PEM_PIECE_HEAD = /^(?:\\r)?(?:\\n)?(["'`])[ \t]*[+,]?[ \t]*\\?\r?$/
/** How many lines past a BEGIN line are read for its body and END line. */
const PEM_LINES_MAX = 400

/**
 * Private keys whose lines carry something before the key's text, so the block pattern stops after the BEGIN
 * line: each line decorated (a Markdown quote `> `, `# ` or ` * ` comments: `PEM_DECOR`), or each line a string
 * piece of code (`'-----BEGIN …-----\n' +` then `'MIIE…\n' +` lines, JavaScript, Python, C). From the BEGIN line
 * to the END line (or to the last body line when none follows) becomes one marker; the first line's decoration
 * (or the code before its opening quote) and what follows the END line (the closing quote, `;`) stay. A BEGIN
 * line followed by no body line is left to the block pattern. Each line is read once.
 */
const redactDecoratedPem = (s: string): string => {
  let out = ""
  let done = 0
  PEM_BEGIN.lastIndex = 0
  let m: RegExpExecArray | null
  // the newlines around the last BEGIN line looked at (kept, so a long line of BEGINs is read once: linear)
  let prevNl = -1
  let nextNl = -1
  while ((m = PEM_BEGIN.exec(s)) !== null) {
    const at = m.index
    if (at < done) continue
    const headEnd = at + m[0].length
    if (nextNl < at) {
      if (nextNl >= 0 && nextNl < s.length) prevNl = nextNl
      for (;;) {
        const k = s.indexOf("\n", prevNl + 1)
        if (k < 0 || k >= at) {
          nextNl = k < 0 ? s.length : k
          break
        }
        prevNl = k
      }
    }
    const lineStart = prevNl + 1
    if (at - lineStart > 200) continue
    const prefix = s.slice(lineStart, at)
    let eol = nextNl
    if (eol >= s.length || eol - headEnd > 40) continue
    const quote = prefix.length > 0 ? prefix.charCodeAt(prefix.length - 1) : -1
    const pieces = (quote === 39 || quote === 34 || quote === 96) && PEM_PIECE_HEAD.test(s.slice(headEnd, eol))
    const decorated = !pieces && prefix.length > 0 && PEM_DECOR.exec(prefix)?.[0].length === prefix.length && /[^ \t]/.test(prefix)
    if (!pieces && !decorated) continue
    // the end of what goes: the last body line's end, or the END line's `-----` (and a piece's `\n` escape)
    let cut = -1
    let lines = 0
    for (let n = 0; n < PEM_LINES_MAX && eol >= 0; n++) {
      const start = eol + 1
      const next = s.indexOf("\n", start)
      const lineEnd = next < 0 ? s.length : next
      if (lineEnd - start > 1200) break
      const line = s.slice(start, lineEnd)
      if (pieces) {
        const p = PEM_PIECE.exec(line)
        if (p === null) break
        if (p[2] !== undefined) {
          cut = start + line.indexOf(p[2]) + p[2].length + p[3].length
          break
        }
        lines++
        cut = start + line.indexOf(p[1]) + 1 + p[4].length + p[5].length
      } else {
        const d = PEM_DECOR.exec(line)
        if (d === null) break
        const rest = line.slice(d[0].length).replace(/\r$/, "")
        const end = PEM_END_AT.exec(rest)
        if (end !== null) {
          cut = start + d[0].length + end[0].length
          break
        }
        if (!PEM_BODY.test(rest)) break
        lines++
        cut = start + d[0].length + rest.length
      }
      eol = next
    }
    if (lines === 0 || cut < 0) continue
    out += s.slice(done, at) + marker("private-key")
    done = cut
    PEM_BEGIN.lastIndex = cut
  }
  return done === 0 ? s : out + s.slice(done)
}

/**
 * A decorated key's lines joined on one line (a session's title, a quote whose newlines became spaces):
 * `-----BEGIN … PRIVATE KEY----- > MIIE… > … > -----END …-----`, each base64 run whole (no backtracking).
 */
const PEM_INLINE = /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[ \t]{0,8}(?:>|#{1,3}|\*|\/\/)[ \t]{0,8}[A-Za-z0-9+/=]{16,1024}(?![A-Za-z0-9+/=]))+(?:[ \t]{0,8}(?:>|#{1,3}|\*|\/\/)?[ \t]{0,8}-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g

/** A PuTTY key file's private lines: `Private-Lines: N` then its base64 lines (the header, the public lines and `Private-MAC` stay). */
const PUTTY_PRIVATE = /(Private-Lines:[ \t]{0,8}[0-9]{1,4}[ \t]*(?:\r?\n|\\r?\\n))[A-Za-z0-9+/]{1,128}={0,2}(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/]{1,128}={0,2}(?![A-Za-z0-9+/=-]))*/g

/**
 * The tails of private keys whose BEGIN line is elsewhere (an earlier message, a `tail` of the file): each END line
 * the block pattern left, and the base64 body lines right before it (lines ended by a newline or a `\n` escape of
 * JSON text; the line just before END may be short, the ones above it are 16 to 1024 characters, any width; the text's
 * first line, cut anywhere, when it holds a digit, `+` or `/`), become one marker. An END line with no body line
 * before it stays (a lone END line names no key). Each line is read once: linear.
 */
const redactPemTails = (s: string): string => {
  if (!s.includes("-----END")) return s
  let out = ""
  let done = 0
  PEM_END.lastIndex = 0
  let m: RegExpExecArray | null
  while ((m = PEM_END.exec(s)) !== null) {
    let start = m.index
    let lines = 0
    // the end of the line before `start`: a newline (maybe after \r) or a `\n` escape
    for (;;) {
      let lineEnd: number
      if (start > done && s.charCodeAt(start - 1) === 10) lineEnd = start - 1
      else if (start - 1 > done && s.charCodeAt(start - 1) === 110 && s.charCodeAt(start - 2) === 92) lineEnd = start - 2
      else break
      if (lineEnd > done && s.charCodeAt(lineEnd - 1) === 13) lineEnd--
      else if (lineEnd - 1 > done && s.charCodeAt(lineEnd - 1) === 114 && s.charCodeAt(lineEnd - 2) === 92) lineEnd -= 2
      const nl = s.lastIndexOf("\n", lineEnd - 1)
      const esc = s.lastIndexOf("\\n", lineEnd - 1)
      let lineStart = Math.max(nl + 1, esc >= 0 ? esc + 2 : 0, done)
      if (lineEnd - lineStart > 1100) break
      const line = s.slice(lineStart, lineEnd)
      const ok = lines === 0 ? PEM_LAST_LINE.test(line) : PEM_LINE.test(line) || (lineStart === 0 && PEM_LAST_LINE.test(line) && /[0-9+/]/.test(line))
      if (!ok) break
      while (s.charCodeAt(lineStart) === 32 || s.charCodeAt(lineStart) === 9) lineStart++
      start = lineStart
      lines++
    }
    if (lines === 0) continue
    out += s.slice(done, start) + marker("private-key")
    done = m.index + m[0].length
  }
  return done === 0 ? s : out + s.slice(done)
}


/**
 * How a private key's base64 body starts, whatever its BEGIN line (session 24, tester24a F4: a body printed without
 * it, `sed -n 2,4p id_rsa`): OpenSSH's `openssh-key-v1\0` (`b3BlbnNzaC1rZXktdjE`), and the DER of PKCS#1 RSA
 * (`MIIEowIBAAK…`: a sequence, version 0, the modulus), PKCS#8 (`MIIEvQIBADAN…`, `MIGHAgEAMBMG…`, `MC4CAQAw…`: version
 * 0 then the algorithm), SEC1 EC (`MHcCAQEE…`, `MIGkAgEBBD…`: version 1 then the key) and encrypted PKCS#8 (PBES2,
 * `MIIFLTBXBgkqhkiG9w0BBQ0w…`). A certificate (`MIIDXTCCAkWg…`), a CSR (`MIICijCCAXICAQAw…`) and a public key
 * (`MIIBIjANBgkq…`, `AAAAC3NzaC1lZDI1NTE5…`) start otherwise and stay.
 */
const KEY_BODY_MAGIC = String.raw`b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{3}IBA(?:AK|DA)|MI[GH][A-Za-z0-9+/]AgE(?:AM|BB)|M[A-Za-z0-9+/]{2}CAQ(?:Aw|EE)|MII[A-Za-z0-9+/]{5}BgkqhkiG9w0BBQ0w`
/**
 * A private key's body without its BEGIN line (see {@link KEY_BODY_MAGIC}): the base64 line that starts with a
 * key's magic (not inside a longer base64 word) and the base64 lines after it (16 to 1024 characters each, any
 * width: 64, 70, 76…; lines ended by a newline or a `\n` escape of JSON text, maybe indented), and a last shorter
 * one that holds a digit, `+`, `/` or `=` (a word such as `done` on the next line stays). A key in one line
 * (`base64 -w0`) goes whole too.
 */
const KEY_BODY = new RegExp(
  String.raw`(?<![A-Za-z0-9+/=])(?:${KEY_BODY_MAGIC})[A-Za-z0-9+/]{0,1024}={0,2}(?![A-Za-z0-9+/=])` +
    String.raw`(?:(?:\\r)?(?:\r?\n|\\n)[ \t]{0,40}[A-Za-z0-9+/]{16,1024}={0,2}(?![A-Za-z0-9+/=]))*` +
    String.raw`(?:(?:\\r)?(?:\r?\n|\\n)[ \t]{0,40}(?=[A-Za-z0-9+/]{0,15}[0-9+/=])[A-Za-z0-9+/]{1,15}={0,2}(?![A-Za-z0-9+/=]))?`,
  "g"
)
/** The substrings one of which every {@link KEY_BODY} holds (its magics' fixed parts). */
const KEY_BODY_HINTS: ReadonlyArray<string> = ["b3BlbnNzaC1rZXktdjE", "IBAAK", "IBADA", "AgEAM", "AgEBB", "CAQAw", "CAQEE", "BgkqhkiG9w0BBQ0w"]
const KEY_BODY_AT = /b3BlbnNzaC1rZXktdjE|M[A-Za-z0-9+/]{2,7}(?:IBA(?:AK|DA)|AgE(?:AM|BB)|CAQ(?:Aw|EE)|BgkqhkiG9w0BBQ0w)/

/**
 * The key rules whose tokens `wrapped-key` finds wrapped over lines: each rule's id, the characters of its token's body
 * (what a continuation line may hold) and the prefix its tokens start with. Keys of a fixed short length (AWS key ids)
 * and hex tokens are left out.
 */
const WRAPPED_KEY_RULES: ReadonlyArray<readonly [id: string, body: string, prefix: string]> = [
  ["jwt", "A-Za-z0-9_.-", "eyJ"], ["anthropic-key", "A-Za-z0-9_-", "sk-ant-"], ["openai-key", "A-Za-z0-9_-", "sk-"],
  ["github-token", "A-Za-z0-9_", "gh[pousr]_|github_pat_"], ["slack-token", "A-Za-z0-9-", "xox[abeoprs]|xapp-"],
  ["stripe-key", "A-Za-z0-9_", "[srp]k_(?:live|test)_|whsec_"], ["gitlab-token", "A-Za-z0-9_.-", "gl(?:pat|ptt|dt|rt|ft|oas)-"],
  ["huggingface-token", "A-Za-z0-9_", "hf_"], ["pypi-token", "A-Za-z0-9_-", "pypi-"], ["groq-key", "A-Za-z0-9_", "gsk_"],
  ["xai-key", "A-Za-z0-9_-", "xai-"], ["vault-token", "A-Za-z0-9_.-", "hv[sbr]\\."], ["google-oauth-token", "A-Za-z0-9_.-", "ya29\\."]
]
/**
 * The narrowest width a key's first line may be wrapped at (its key part or the whole line) for the lines after it to
 * be read as the key's rest: any width from 16 (session 21; the tools' and terminals' widths are no list: `fold -w
 * 40`, `base64 -w 64`, RFC 2045's 76, a terminal's 80, a pane's 57 or 133). What tells a wrap is that the lines after
 * agree with it ({@link wrappedKeyParts}); narrower lines are too often a short word and the next line's.
 */
const WRAP_MIN = 16

/** The length of the line break at `p` of `s` (`\n`, `\r\n`, or their escapes `\\n`, `\\r\\n` in JSON text), else 0. */
const lineBreakAt = (s: string, p: number): number => {
  const c = s.charCodeAt(p)
  if (c === 10) return 1
  if (c === 13) return s.charCodeAt(p + 1) === 10 ? 2 : 0
  if (c !== 92) return 0
  const d = s.charCodeAt(p + 1)
  if (d === 110) return 2
  return d === 114 && s.charCodeAt(p + 2) === 92 && s.charCodeAt(p + 3) === 110 ? 4 : 0
}

/**
 * The most characters of a key's rest over the lines after its first that are read (more than any key of
 * {@link WRAPPED_KEY_RULES} holds): so that many lines of one width are read a bounded number of times.
 */
const WRAP_REST_MAX = 8192

const isBlank = (c: number) => c === 32 || c === 9
const isDigit = (c: number) => c >= 48 && c <= 57

/** Past the blanks a line may carry before its break (a terminal's or tmux's padding when a pane is copied; session 23). */
const blanksEnd = (s: string, p: number): number => {
  while (isBlank(s.charCodeAt(p))) p++
  return p
}

/**
 * What a wrapped key's lines may start with (session 23, tester23b F1): indentation (spaces, tabs), then maybe a
 * decoration ({@link LINE_DECOR}: a Markdown quote `> `, a comment's `# `, `//`, a line-number gutter such as
 * Claude Code's Read tool's `     1→`), as the private key's lines do ({@link PEM_DECOR}), maybe after a quote or a
 * comment (a quoted gutter: `> 1→`); maybe empty.
 */
const WRAP_DECOR = new RegExp(String.raw`^[ \t]{0,40}(?:(?:>|#{1,3}|\/\/)[ \t]{0,8}){0,8}(?:${LINE_DECOR})?`)

/**
 * What the lines after a wrapped key's first line start with (see {@link wrapWays}): the first line's decoration
 * (`decor`: the same text, but any line number where it has one, as a gutter counts on: `     9→`, `    10→`), or
 * `indent` spaces (a hanging indent, then no space).
 */
type WrapCont = { readonly decor: string } | { readonly indent: number }

/** Where the start `cont` says a line after a key's first line has ends, that line starting at `p` of `s`; else -1. */
const contEnd = (s: string, p: number, cont: WrapCont): number => {
  if ("indent" in cont) {
    for (let n = 0; n < cont.indent; n++) if (s.charCodeAt(p + n) !== 32) return -1
    return s.charCodeAt(p + cont.indent) === 32 ? -1 : p + cont.indent
  }
  const d = cont.decor
  for (let k = 0; k < d.length;) {
    // a line number (and the blanks that align it): any line number, aligned by any blanks
    let n = k
    while (n < d.length && isBlank(d.charCodeAt(n))) n++
    if (n < d.length && isDigit(d.charCodeAt(n))) {
      while (n < d.length && isDigit(d.charCodeAt(n))) n++
      let q = p
      while (q - p < 40 && isBlank(s.charCodeAt(q))) q++
      if (!isDigit(s.charCodeAt(q))) return -1
      while (q - p < 60 && isDigit(s.charCodeAt(q))) q++
      p = q
      k = n
      continue
    }
    if (s.charCodeAt(p) !== d.charCodeAt(k)) return -1
    p++
    k++
  }
  return p
}

/** What follows a word that is a name being given a value: `=` or `:` (maybe after blanks), or a name then `=`. */
const ASSIGNS = /[ \t]*[=:]|[ \t]+[A-Za-z_][A-Za-z0-9_]{0,200}[ \t]*=/y
/** A log line's time at a line's start: `2026-11-20T10:00`, `2026-11-20 10:00`, `10:00:01` (sticky). */
const LOG_TIME = /[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2})?|[0-9]{2}:[0-9]{2}:[0-9]{2}/y
/** A key's prefix of any rule of {@link WRAPPED_KEY_RULES}, at a line's start (sticky). */
const KEY_START = /sk-|gh[pousr]_|github_pat_|xox[abeoprs]|xapp-|[srp]k_(?:live|test)_|whsec_|gl(?:pat|ptt|dt|rt|ft|oas)-|hf_|pypi-|gsk_|xai-|hv[sbr]\.|ya29\./y

/**
 * Whether the line whose key characters run from `p` to `q` of `s` (text following them on the line) starts a
 * statement of its own, so is no wrapped key's rest (session 23, tester23c F1): a name given a value (`NAME=`,
 * `NAME:`, `NAME =`, `export NAME=`: none of {@link WRAPPED_KEY_RULES}' bodies holds `=` or `:`, and a key's rest
 * followed by them is a name's shape, not a wrap's), a log line's time (`2026-11-20T10:00:01 INFO`), or a key of a
 * prefixed rule (`ghp_…` under an `sk-…` line). `textAfter`: text follows the key characters on their line.
 */
const startsStatement = (s: string, p: number, q: number, textAfter: boolean): boolean => {
  KEY_START.lastIndex = p
  if (KEY_START.test(s)) return true
  if (!textAfter) return false
  ASSIGNS.lastIndex = q
  if (ASSIGNS.test(s)) return true
  LOG_TIME.lastIndex = p
  return LOG_TIME.test(s)
}

/**
 * The parts of a key wrapped over lines, its first line's from `i` to `e` of `s` (the key's characters, then maybe
 * blanks and a line break): as flat `[start, end, start, end, …]` offsets of `s`, one pair a line, else undefined.
 * `width` is the width the key was wrapped at (see {@link WRAP_MIN}); `cont` says what the lines after the first start
 * with ({@link WrapCont}), or undefined when they start right away.
 * The lines after are made of exactly `width` of the key's characters (`tok`), maybe blanks, then a line break; the
 * last starts with 1 to `width` of them. The rest must be 16 characters or more, or hold a digit (so a word such as
 * "Thanks" on the next line stays). When the first line is a whole key of the rule already (`whole`) and the lines
 * carry a prefix, a last line under 16 characters is no rest when text follows it on its line (an indented
 * `key2: value` under a YAML line's token), nor when the next line, of the same prefix, is such a short run too (a
 * list of short hex digests under a key). A line
 * that starts with the rule's prefix (`start`) starts a key of its own (two tokens, one a line), but a JWT's `eyJ`
 * part after its `.` when the first line is no whole key. At most {@link WRAP_REST_MAX} characters are read.
 */
const wrappedKeyParts = (
  s: string, i: number, e: number, tok: Uint8Array, width: number, cont: WrapCont | undefined, start: RegExp, whole: boolean,
  collapsed = false
): Array<number> | undefined => {
  const run = (p: number) => {
    while (p < s.length && tok[s.charCodeAt(p)] === 1) p++
    return p
  }
  // where the next line starts after a line's text ending at `q` (its blanks, its break), else -1; in a collapsed
  // text ({@link redactCollapsedKeys}), the one space a break became
  const next = (q: number): number => {
    if (collapsed) return s.charCodeAt(q) === 32 ? q + 1 : -1
    const a = blanksEnd(s, q)
    const b = lineBreakAt(s, a)
    return b === 0 ? -1 : a + b
  }
  const parts = [i, e]
  let p = next(e)
  if (p < 0) return undefined
  let rest = 0
  let digit = false
  for (;;) {
    if (cont !== undefined) {
      p = contEnd(s, p, cont)
      if (p < 0) break
    }
    // a line that starts with the rule's prefix starts a key of its own (but a JWT's `eyJ` part after its `.`)
    start.lastIndex = p
    if (start.test(s) && (whole || s.charCodeAt(parts[parts.length - 1] - 1) !== 46)) break
    const q = run(p)
    const n = q - p
    const after = next(q)
    // a line that starts a statement of its own (tester23c F1: `NAME=`, `NAME:`, `export NAME=` in a `.env` dump, YAML,
    // a log line's time) or a key of another prefixed rule is no key's rest
    if (n > 0 && startsStatement(s, p, q, after < 0)) break
    const last = n !== width || after < 0
    if (last && (n === 0 || n > width)) break
    // after a whole key, a short prefixed line that goes on (an indented `key2: value`) is no rest of it
    if (last && whole && cont !== undefined && n < 16 && after < 0 && blanksEnd(s, q) < s.length) break
    parts.push(p, q)
    rest += n
    for (let c = p; c < q && !digit; c++) digit = isDigit(s.charCodeAt(c))
    if (last || rest > WRAP_REST_MAX) break
    p = after
  }
  if (parts.length === 2 || (rest < 16 && !digit)) return undefined
  // after a whole key, a short rest followed by another such line of the same prefix is a list (hex digests), no rest
  if (whole && cont !== undefined && rest < 16) {
    const b = next(parts[parts.length - 1])
    const line = b < 0 ? -1 : contEnd(s, b, cont)
    const r = line < 0 ? -1 : run(line)
    if (r > line && (blanksEnd(s, r) === s.length || next(r) >= 0)) return undefined
  }
  return parts
}

/** The text of a key's `parts` ({@link wrappedKeyParts}) joined, and the offset in `s` of each of its characters. */
const joinParts = (s: string, parts: ReadonlyArray<number>): { readonly joined: string; readonly at: Array<number> } => {
  let joined = ""
  const at: Array<number> = []
  for (let n = 0; n < parts.length; n += 2) {
    joined += s.slice(parts[n], parts[n + 1])
    for (let p = parts[n]; p < parts[n + 1]; p++) at.push(p)
  }
  return { joined, at }
}

/**
 * The ways a key's first line (from `i` to `e` of `s`) may go on over the next lines, most telling first, each as
 * [width, what the next lines start with] ({@link wrappedKeyParts}): with the first line's decoration (indentation,
 * `> `, a gutter: {@link WRAP_DECOR}; in JSON text, what follows a string's opening quote) on each line, at the key's
 * width or the line's past its decoration; the next
 * lines indented to the key's column (a hanging indent); the next lines right at their start (a terminal wraps the
 * whole line), at the key's width or the line's. Widths under {@link WRAP_MIN} are no wrap.
 */
const wrapWays = (s: string, i: number, e: number): Array<readonly [number, WrapCont | undefined]> => {
  const esc = s.lastIndexOf("\\n", i - 1)
  const lineStart = Math.max(s.lastIndexOf("\n", i - 1) + 1, esc < 0 ? 0 : esc + 2)
  const ways: Array<readonly [number, WrapCont | undefined]> = []
  const decor = i > lineStart ? WRAP_DECOR.exec(s.slice(lineStart, Math.min(i, lineStart + 300)))![0] : ""
  if (decor.length > 0) {
    ways.push([e - i, { decor }])
    if (i > lineStart + decor.length) ways.push([e - lineStart - decor.length, { decor }])
  } else if (i > lineStart) {
    // a string of JSON text whose lines carry a prefix: its first line starts at the string's opening quote
    const q = s.lastIndexOf('"', i - 1)
    const inner = q >= lineStart && i - q <= 300 ? WRAP_DECOR.exec(s.slice(q + 1, i))![0] : ""
    if (inner.length > 0 && q + 1 + inner.length === i) ways.push([e - i, { decor: inner }])
  }
  if (i - lineStart > decor.length && i - lineStart <= 120) ways.push([e - i, { indent: i - lineStart }])
  ways.push([e - i, undefined])
  if (i > lineStart) ways.push([e - lineStart, undefined])
  return ways.filter(([w]) => w >= WRAP_MIN)
}

/** A shell's line continuation: `\` then a line break (`\\` then an escaped one in JSON text). */
const SHELL_CONTINUATION = /\\\r?\n|\\\\\\n|\\\\\\r\\n/g
/** Characters of any wrapped key's body (`A-Z a-z 0-9 _ . -`): the parts of a word around a continuation. */
const isKeyChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45

interface WrappedPlan {
  readonly id: string
  /** The rule's pattern (a copy: its own `lastIndex`). */
  readonly pattern: RegExp
  readonly hints: ReadonlyArray<string>
  /** Which character codes (below 128) are of the token's body. */
  readonly tok: Uint8Array
  /** The token's prefix, at a word's start, then its body's characters up to blanks and a line break. */
  readonly head: RegExp
  /** The token's prefix (sticky): a line that starts with it starts a token of its own. */
  readonly start: RegExp
  /** The token's prefix, at a word's start, then its body's characters up to a space ({@link redactCollapsedKeys}). */
  readonly spaced: RegExp
}
/**
 * The key rules whose keys are found cut by a shell's line continuations only ({@link redactContinuedKeys}), not
 * wrapped: the `\` says the word goes on, so a key of a fixed short length (an AWS key id, 20 characters) may be
 * joined there, where a line's end alone tells too little.
 */
const CONTINUED_ONLY_RULES: ReadonlyArray<readonly [id: string, body: string, prefix: string]> = [
  ["aws-access-key", "A-Z0-9", "A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA)"]
]
const planOf = ([id, body, prefix]: readonly [string, string, string]): WrappedPlan => {
  const rule = builtinRules.find((r) => r.id === id)!
  const tok = new Uint8Array(128)
  const cls = new RegExp(`[${body}]`)
  for (let c = 0; c < 128; c++) if (cls.test(String.fromCharCode(c))) tok[c] = 1
  const at = String.raw`(?:${prefix})(?<=(?:^|[^A-Za-z0-9]|${BOUNDARY_ESCAPE})(?:${prefix}))`
  const head = new RegExp(String.raw`${at}[${body}]{0,1024}(?=[ \t]*(?:\r?\n|\\n|\\r\\n))`, "g")
  const spaced = new RegExp(String.raw`${at}[${body}]{0,1024}(?= )`, "g")
  return { id, pattern: new RegExp(rule.pattern.source, "g"), hints: rule.hints, tok, head, start: new RegExp(`(?:${prefix})`, "y"), spaced }
}
let wrappedKeyPlans: ReadonlyArray<WrappedPlan> | undefined
const wrappedPlans = (): ReadonlyArray<WrappedPlan> => (wrappedKeyPlans ??= WRAPPED_KEY_RULES.map(planOf))
let continuedKeyPlans: ReadonlyArray<WrappedPlan> | undefined
/** The plans {@link redactContinuedKeys} reads: {@link WRAPPED_KEY_RULES}' then {@link CONTINUED_ONLY_RULES}'. */
const continuedPlans = (): ReadonlyArray<WrappedPlan> =>
  (continuedKeyPlans ??= [...wrappedPlans(), ...CONTINUED_ONLY_RULES.map(planOf)])
/** The first match of `plan`'s rule in `word` that starts before `cut` and ends after it, as [start, end], else undefined. */
const keyAcross = (plan: WrappedPlan, word: string, cut: number): readonly [number, number] | undefined => {
  plan.pattern.lastIndex = 0
  let k: RegExpExecArray | null
  while ((k = plan.pattern.exec(word)) !== null) {
    if (k[0].length === 0) {
      plan.pattern.lastIndex++
      continue
    }
    if (k.index >= cut) return undefined
    if (k.index + k[0].length > cut) return [k.index, k.index + k[0].length]
  }
  return undefined
}

/** Whether `word` is a whole key of `plan`'s rule (its match from its start to its end). */
const wholeKey = (plan: WrappedPlan, word: string): boolean => {
  plan.pattern.lastIndex = 0
  const w = plan.pattern.exec(word)
  return w !== null && w.index === 0 && w[0].length === word.length
}

/**
 * A key of {@link WRAPPED_KEY_RULES} wrapped over lines, in a text whose white space runs became one space (session
 * 23, tester23b F1: a session's title, its first prompt through `titleOf`: `ghp_… …`, `> ghp_… > …`, `1→ghp_… 2→…`).
 * A first part of 16 characters or more that ends at a space and is no whole key of its rule, and after the space its
 * rest, as the lines of a wrapped key go on ({@link wrappedKeyParts}: a space for a line break), maybe after the
 * decoration the first part has before it (a quote's `> `, a gutter's `1→`: {@link WRAP_DECOR}, from a space or the
 * text's start): when its rule finds a key across the first space in the joined parts, the key (the spaces and
 * decorations in it with it) becomes the rule's marker. Only where the text's line breaks are known to be gone: a
 * key's first part and the next word of prose are not joined elsewhere.
 */
export const redactCollapsedKeys = (s: string): string => {
  if (!s.includes(" ")) return s
  let out = s
  for (const plan of wrappedPlans()) {
    if (!plan.hints.some((h) => out.includes(h))) continue
    let acc = ""
    let done = 0
    plan.spaced.lastIndex = 0
    let m: RegExpExecArray | null
    while ((m = plan.spaced.exec(out)) !== null) {
      const i = m.index
      const e = i + m[0].length
      if (e - i < WRAP_MIN || wholeKey(plan, m[0])) continue
      // the decoration before the first part: the longest from a space (or the text's start) up to it
      let decor = ""
      for (let j = i - 1; j >= 0 && i - j <= 60; j--) {
        if (j > 0 && out.charCodeAt(j - 1) !== 32) continue
        const d = WRAP_DECOR.exec(out.slice(j, i))![0]
        if (d.length === i - j && d.trim().length > 0) decor = d
      }
      let k: readonly [number, number] | undefined
      let at: Array<number> = []
      for (const cont of decor.length > 0 ? [{ decor }, undefined] : [undefined]) {
        const parts = wrappedKeyParts(out, i, e, plan.tok, e - i, cont, plan.start, false, true)
        if (parts === undefined) continue
        const j = joinParts(out, parts)
        at = j.at
        k = keyAcross(plan, j.joined, e - i)
        if (k !== undefined) break
      }
      if (k === undefined) continue
      acc += out.slice(done, at[k[0]]) + marker(plan.id)
      done = at[k[1] - 1] + 1
      plan.spaced.lastIndex = done
    }
    if (done > 0) out = acc + out.slice(done)
  }
  return out
}

/**
 * The length of a shell's line continuation at `p` of `s` ({@link SHELL_CONTINUATION}: `\` then LF or CRLF; in JSON
 * text `\\` then `\n` or `\r\n`), else 0.
 */
const continuationAt = (s: string, p: number): number => {
  if (s.charCodeAt(p) !== 92) return 0
  const d = s.charCodeAt(p + 1)
  if (d === 10) return 2
  if (d === 13) return s.charCodeAt(p + 2) === 10 ? 3 : 0
  if (d !== 92 || s.charCodeAt(p + 2) !== 92) return 0
  const b = lineBreakAt(s, p + 2)
  return b >= 2 ? 2 + b : 0
}

/** The most characters of a word's parts joined by continuations that are read as one ({@link redactContinuedKeys}). */
const CHAIN_MAX = 16384
/** How many characters at the end of a chain cut at {@link CHAIN_MAX} are read again as the next chain's start. */
const CHAIN_OVERLAP = 2048

/** Whether a part after a joint looks like a key's rest, not a word of its own: a digit in it, and no option (`-v`, `--flag`). */
const looksLikeRest = (part: string): boolean => /[0-9]/.test(part) && !/^-[A-Za-z-]/.test(part)

/**
 * The matches of `plan`'s rule in `word` that cross one of `joints` (where each part after the first starts in a word
 * joined by continuations), as [start, end] pairs in order. A match that is a whole key of the rule before the joint of
 * an indented part (`indented[n]`: part n's line was indented) ends there: the shell reads an indented line as a word of
 * its own, and the rule finds the key on its line. One pass over `word` and `joints`.
 */
const keysAcrossJoints = (
  plan: WrappedPlan, word: string, joints: ReadonlyArray<number>, indented: ReadonlyArray<boolean>
): Array<readonly [number, number]> => {
  const found: Array<readonly [number, number]> = []
  plan.pattern.lastIndex = 0
  let j = 0
  let k: RegExpExecArray | null
  while ((k = plan.pattern.exec(word)) !== null) {
    if (k[0].length === 0) {
      plan.pattern.lastIndex++
      continue
    }
    const a = k.index
    const b = a + k[0].length
    while (j < joints.length && joints[j] <= a) j++
    if (j === joints.length) break
    if (joints[j] >= b) continue
    if (indented[j + 1] && !looksLikeRest(word.slice(joints[j], j + 1 < joints.length ? joints[j + 1] : word.length))) {
      // (wholeKey runs the rule's pattern from the start: where this pass was is kept)
      const whole = wholeKey(plan, word.slice(a, joints[j]))
      plan.pattern.lastIndex = b
      if (whole) continue
    }
    found.push([a, b])
  }
  return found
}

/**
 * Keys cut by shell line continuations (tester19 F7: `export ANTHROPIC_API_KEY=sk-ant-…\` then the rest on the next
 * line; session 34, tester33c F1: cut twice or more, `ghp_…\`, `…\`, `…`). A word's parts (key characters,
 * {@link isKeyChar}: back from a `\` and line break, and after it, past the next line's indentation), any number of
 * them joined by continuations in a row (LF, CRLF, or their escapes in JSON text), are read as one word, and where a
 * rule of {@link WRAPPED_KEY_RULES} finds a key across a joint in it, the key's parts (the continuations and
 * indentation between them with them) become its marker; a part may be of any length (no {@link WRAP_MIN}: the `\`
 * says the word goes on). Where two rules find a key at one place, the first rule in order takes it. Parts that hold
 * no key across a joint stay. Each continuation is read once (a chain of more than {@link CHAIN_MAX} characters, as
 * several with an overlap): linear in the text's length.
 */
const redactContinuedKeys = (s: string): string => {
  let out = ""
  let done = 0
  const plans = continuedPlans()
  SHELL_CONTINUATION.lastIndex = 0
  let c: RegExpExecArray | null
  while ((c = SHELL_CONTINUATION.exec(s)) !== null) {
    // the word's first part: back from the `\` over key characters (at most 1024); maybe empty (`NAME=\`)
    let from = c.index
    while (from > done && c.index - from < 1024 && isKeyChar(s.charCodeAt(from - 1))) from--
    // the parts after: past a continuation and the next line's indentation, a run of key characters; on while
    // another continuation follows the run right away
    const parts = [from, c.index]
    const indented = [false]
    let length = c.index - from
    let cut = c.index + c[0].length
    let capped = false
    // an empty continuation line (`\` alone on its line: tester34c F4) goes on with the chain, as a shell reads it
    let wasIndented = false
    // (in JSON text, the continuation `\\` then `\n`, a tab of the next line's indentation is written `\t`: session 36,
    // tester35a F4)
    let json = c[0].length >= 4
    for (;;) {
      let p = cut
      for (;;) {
        if (p - cut >= 40) break
        if (isBlank(s.charCodeAt(p))) p++
        else if (json && s.charCodeAt(p) === 92 && s.charCodeAt(p + 1) === 116) p += 2
        else break
      }
      let q = p
      while (q < s.length && q - p < 1024 && isKeyChar(s.charCodeAt(q))) q++
      if (q === p) {
        const e = continuationAt(s, p)
        if (e === 0 || p - c.index > CHAIN_MAX) break
        wasIndented ||= p > cut
        json = e >= 4
        cut = p + e
        continue
      }
      parts.push(p, q)
      indented.push(p > cut || wasIndented)
      wasIndented = false
      length += q - p
      const b = continuationAt(s, q)
      if (b === 0) break
      if (length >= CHAIN_MAX) {
        capped = true
        break
      }
      json = b >= 4
      cut = q + b
    }
    if (parts.length > 2) {
      const { joined, at } = joinParts(s, parts)
      const joints: Array<number> = []
      for (let n = 2, o = parts[1] - parts[0]; n < parts.length; o += parts[n + 1] - parts[n], n += 2) joints.push(o)
      // every rule's keys across a joint, by where they start (the first rule in order first), taken while they
      // do not overlap one taken before
      const keys: Array<readonly [number, number, number]> = []
      plans.forEach((plan, r) => {
        if (plan.hints.some((h) => joined.includes(h))) {
          for (const [a, b] of keysAcrossJoints(plan, joined, joints, indented)) keys.push([a, b, r])
        }
      })
      keys.sort((x, y) => x[0] - y[0] || x[2] - y[2])
      let pos = 0
      for (const [a, b, r] of keys) {
        if (a < pos) continue
        out += s.slice(done, at[a]) + marker(plans[r].id)
        done = at[b - 1] + 1
        pos = b
      }
    }
    // the next continuation after the chain; a chain cut at its most characters: its end is read again
    let resume = parts[parts.length - 1]
    if (capped) {
      let n = parts.length - 2
      for (let back = 0; n > 2 && back < CHAIN_OVERLAP; n -= 2) back += parts[n + 1] - parts[n]
      resume = Math.max(parts[n], done)
    }
    // (the empty continuation lines walked over start no chain of their own: read once)
    SHELL_CONTINUATION.lastIndex = Math.max(resume, c.index + c[0].length, capped ? 0 : cut)
  }
  return done === 0 ? s : out + s.slice(done)
}

/** The index in `at` (from `from`, before `to`) where the last line of a key joined over lines starts (after its last break). */
const lastLineOf = (at: ReadonlyArray<number>, from: number, to: number): number => {
  let m = to - 1
  while (m > from && at[m - 1] === at[m] - 1) m--
  return m
}

/**
 * The prefixes of {@link WRAPPED_KEY_RULES}' keys: one in the last word of a line is where the part of the line
 * {@link afterWrappedKey} redacts stops, so that a key starting a wrap of its own there is left to this step.
 */
const WRAP_START = /sk-|gh[pousr]_|github_pat_|eyJ|xox[abeoprs]|xapp-|[srp]k_(?:live|test)_|whsec_|gl(?:pat|ptt|dt|rt|ft|oas)-|hf_|pypi-|gsk_|xai-|hv[sbr]\.|ya29\./
/** A line break, or its escape in JSON text (`\n`, `\r`). */
const ANY_BREAK = /\r|\n|\\[nr]/g

/**
 * Where the text that follows a wrapped key on its last line (from `p` of `s`) ends: at the line's break (or its
 * escape), or before a key that starts a wrap of its own at the line's end; `p` when the key ends its line.
 */
const restOfLineEnd = (s: string, p: number): number => {
  if (p >= s.length || lineBreakAt(s, p) > 0) return p
  ANY_BREAK.lastIndex = p
  const b = ANY_BREAK.exec(s)
  const end = b === null ? s.length : b.index
  if (b === null) return end
  // the line's last word (its key characters back from the break), and a key's prefix in it
  let w = end
  while (w > p && end - w < 1100 && isKeyChar(s.charCodeAt(w - 1))) w--
  const next = WRAP_START.exec(s.slice(w, end))
  return next === null ? end : w + next.index
}

let lineRedactor: ((s: string) => string) | undefined
/**
 * What follows a wrapped key on its last line (session 23): the key's rest (`tail`: the start of `line`, which the
 * key's marker stands for) may be a word of the line (`ghp_…` at a line's end, then `7z a -pSecret123 out.7z` on
 * the next: the token's characters run on into `7z`), and the rules after this step no longer see that word as the
 * context of what follows it (7-Zip's `-p` password). So the line is redacted whole, as the rules redact it without
 * the wrap (every built-in rule but this one), and what that leaves after the tail follows the key's marker: both
 * are hidden, the key and what another rule hides there.
 */
const afterWrappedKey = (tail: string, line: string): string => {
  const redacted = (lineRedactor ??= textRedactor(builtinRules.filter((r) => r.id !== "wrapped-key")))(line)
  // the part of the line's redaction that the tail does not explain (a marker over the tail: from where they differ)
  let n = 0
  while (n < tail.length && tail.charCodeAt(n) === redacted.charCodeAt(n)) n++
  return redacted.slice(n)
}

/**
 * The `wrapped-key` step: a key of {@link WRAPPED_KEY_RULES} whose first line ends at a line break (maybe after
 * blanks) and whose rest is on the next lines ({@link wrapWays}, {@link wrappedKeyParts}: maybe after a prefix each)
 * is joined, and when its rule finds a key across the first line break in the joined text, the key (its lines, the
 * breaks and the next lines' prefixes between them) becomes the rule's marker; the first line's prefix and what
 * follows the key on its last line stay. Then keys cut by a shell's `\` ({@link redactContinuedKeys}). Runs before those rules; a key on
 * one line is left to its rule.
 */
const redactWrappedKeys = (s: string): string => {
  if (!s.includes("\n") && !s.includes("\\n")) return s
  let out = s.includes("\\\n") || s.includes("\\\r\n") || s.includes("\\\\\\") ? redactContinuedKeys(s) : s
  for (const plan of wrappedPlans()) {
    if (!plan.hints.some((h) => out.includes(h))) continue
    let acc = ""
    let done = 0
    plan.head.lastIndex = 0
    let m: RegExpExecArray | null
    while ((m = plan.head.exec(out)) !== null) {
      const i = m.index
      const e = i + m[0].length
      const whole = wholeKey(plan, m[0])
      // the first way the lines go on that makes a key across the first line's end (each position of the joined
      // key maps back to one of `out`: `at`)
      let at: Array<number> = []
      let k: readonly [number, number] | undefined
      for (const [width, cont] of wrapWays(out, i, e)) {
        const parts = wrappedKeyParts(out, i, e, plan.tok, width, cont, plan.start, whole)
        if (parts === undefined) continue
        const j = joinParts(out, parts)
        at = j.at
        k = keyAcross(plan, j.joined, e - i)
        if (k !== undefined) break
      }
      if (k === undefined) continue
      acc += out.slice(done, at[k[0]]) + marker(plan.id)
      done = at[k[1] - 1] + 1
      // the key's last line goes on after it: that line is redacted as it would be without the wrap
      // ({@link afterWrappedKey}), so a word the key took from its start takes no secret's context with it
      const lastStart = at[lastLineOf(at, k[0], k[1])]
      const lineEnd = restOfLineEnd(out, done)
      if (lineEnd > done) {
        acc += afterWrappedKey(out.slice(lastStart, done), out.slice(lastStart, lineEnd))
        done = lineEnd
      }
      plan.head.lastIndex = done
    }
    if (done > 0) out = acc + out.slice(done)
  }
  return out
}

/**
 * The built-in rules, in the order they apply: PEM blocks first (they span
 * lines and hold base64), then the key shapes with a fixed prefix (the most
 * specific before the more general: `sk-ant-` before `sk-`), then
 * credentials in URLs and assignments, emails, and home paths last.
 */
/**
 * A home path's user folder (`home-path`, tester20b F4): the user name's characters, an apostrophe inside the name
 * (`dave.o'neil`), and a display name's further words (`John Smith`: Windows makes the profile folder from it; at most
 * three more, each after one space and starting with a capital) when a path separator, a quote, a line's end or the
 * text's end follows them; else the first word alone (`/home/alice is where`, `/Users/bob and/or` keep their prose).
 */
const userFolder = (chars: string) =>
  String.raw`${chars}+(?:'${chars}+)*(?:(?: [A-Z]${chars}*(?:'${chars}+)*){1,3}(?=[\\/"'${"`"}\r\n]|$))?`
const HOME_USER = userFolder("[A-Za-z0-9._-]")
const WINDOWS_USER = userFolder(String.raw`[^\\/\s"'<>|:*?]`)
/**
 * The start of a home in a remote URI, as a pattern: VS Code's `vscode-remote://<authority>/home/` (and
 * `/Users/`), `sftp://` and `ssh://` (tester23b F7: the home follows a host, not a word's start).
 */
const REMOTE_HOME = String.raw`/(?:home|Users)/(?<=(?:vscode-remote|sftp|ssh|file)://[^/\s"'<>]{1,255}/(?:home|Users)/)`
/**
 * macOS's `/Users/<user>` written in lower case (its file system ignores case; tester23b F7), as a pattern: only
 * where it is clearly a home, as `/users/` is also a web route (`GET /users/bob`, `api/users/42`): after `file://`
 * or a shell's `cd `, or at a path's start with a macOS home folder after the user (`Desktop`, `Documents`,
 * `Downloads`, `Library`, `Applications`, `Movies`, `Music`, `Pictures`, `Public`) or a dot folder (`.ssh`, `.config`).
 */
const MAC_LOWER_HOME = String.raw`/users/(?<=(?:file://(?:localhost)?|(?<![^\s;&|(${"`"}])cd[ \t]{1,8})/users/)[A-Za-z0-9._-]+` +
  String.raw`|${lead("/users/", "A-Za-z0-9_.-")}[A-Za-z0-9._-]+(?=/(?:(?:[Dd]esktop|[Dd]ocuments|[Dd]ownloads|[Ll]ibrary|[Aa]pplications|[Mm]ovies|[Mm]usic|[Pp]ictures|[Pp]ublic)(?![A-Za-z0-9_-])|\.[A-Za-z]))`
/**
 * A user's home written `~user` (session 24, tester24a F9: the shell's tilde expansion, `~bob/x`, `cd ~bob/proj`):
 * `~`, a user name (a letter or `_` first), then a `/`; not after a word's character, `/`, `~` or `.` (a web
 * server's `/~bob/`, `PROGRA~1`, `~~strike~~`). `~user` alone, with no `/` after it, stays (prose: `~half`).
 */
const TILDE_HOME = String.raw`${lead("~", "A-Za-z0-9_.~/-")}[A-Za-z_][A-Za-z0-9_.-]{0,31}(?=/|\\/)`
/** Windows XP's profiles folder (`C:\Documents and Settings\<user>`), in the cases a path is written in. */
const WINDOWS_XP_PROFILES = "Documents and Settings|documents and settings|DOCUMENTS AND SETTINGS"
/**
 * The `home-path` rule's pattern of every form but those {@link OTHER_HOMES} finds (the by-hand rule uses it alone
 * for a text that holds none of them: each branch is tried at each `/`).
 */
const HOME_BASE = String.raw`(?:${lead("/(?:home|Users)/", "A-Za-z0-9_.-")}|${lead("/(?:var|data|usr|export)/home/", "A-Za-z0-9_.-")})${HOME_USER}|${TILDE_HOME}|${lead("%2[Ff](?:home|Users)%2[Ff]", "A-Za-z0-9_.%-")}[A-Za-z0-9._-]+|${lead("[A-Za-z]:", "A-Za-z0-9_.-")}(?:\\+|/)(?:Users|users|USERS|${WINDOWS_XP_PROFILES})(?:\\+|/)${WINDOWS_USER}` +
  String.raw`|/mnt/[a-z]/(?:Users|users)/${WINDOWS_USER}|\\{2,8}wsl(?:\$|\.localhost)\\{1,4}[^\\/\s"'<>|:*?]{1,64}\\{1,4}home\\{1,4}[^\\/\s"'<>|:*?]+` +
  String.raw`|(?<=/|^|[\s"'${"`"}(=]|${ESCAPE_BEFORE})-(?:home|Users)-[A-Za-z0-9._]+(?=-|/|$)`
/** The `home-path` rule's pattern of the forms {@link OTHER_HOMES} finds (tester23b F5, F7). */
const HOME_OTHER = String.raw`${lead(String.raw`\\/(?:home|Users)\\/`, "A-Za-z0-9_.-")}${HOME_USER}|${REMOTE_HOME}${HOME_USER}|${MAC_LOWER_HOME}`
/** Where a text may hold a home only the pattern finds (escaped slashes, a remote URI, lower-case `/users/`). */
const OTHER_HOMES = /\\\/(?:home|Users)\\\/|(?:vscode-remote|sftp|ssh|file):\/\/[^/\s"'<>]{1,255}\/(?:home|Users)\/|\/users\//

/** The final words of `secret-argument`'s names (lower case), longest first. */
const ARGUMENT_WORDS = ["passwords", "passphrase", "password", "passwd", "secrets", "tokens", "secret", "token", "pass", "keys", "pwd", "key"]
/** `secret-argument`'s hints: `_` then a final word then `=`. */
const ARGUMENT_HINTS: ReadonlyArray<string> = ARGUMENT_WORDS.map((w) => `_${w}=`)
/**
 * `secret-argument`'s pattern: group 1 the name's final word, group 2 its first words (after white space, a quote, a
 * backtick, the line's start or an escape), group 3 the bare value (at most 512 characters). Led by the literal `_`
 * (the engine skips to it), the name looked behind.
 */
const ARGUMENT_ASSIGNMENT = re(
  String.raw`_(${ARGUMENT_WORDS.join("|")})=(?<=(?:^|[\s"'${"`"}]|${ESCAPE_BEFORE})(?:[A-Z][A-Z0-9]{0,15}_){0,3}([a-z0-9]{1,40}(?:_[a-z0-9]{1,40}){0,5})_\1=)` +
    // the value taken whole (a lookahead's capture, then the same text: no backtracking into it), then its end
    String.raw`(?![$\{\[(<]|\[REDACTED:)(?=([^\s"'${"`"};|&<>\\,()\[\]{}]{1,512}))\3(?=[\s"'${"`"};|&\\]|$)`,
  "gm"
)
/** A member or a call's name (`self.config.token`, `os.environ.get`), a keyword: code, not a value. */
const ARGUMENT_CODE = /^(?:[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+|[A-Za-z_$]+|None|null|nil|true|false|True|False|undefined|NULL)$/
/**
 * `secret-argument`'s replacement: the value goes when the name is no count, cursor or data key (`max_tokens=`,
 * `next_page_token=`, `sort_key=`) and the value looks like a secret (a digit and another character, or 16
 * characters or more), is no code ({@link ARGUMENT_CODE}: an identifier of letters and `_`, a member) and no path
 * (`ssh_key=~/.ssh/id_ed25519`).
 */
const argumentReplace = (m: string, name: string, word: string, value: string): string => {
  const joined = `${name}${word}`.replace(/_/g, "")
  if (PAGE_CURSOR_NAME.test(joined) || COUNT_TOKENS.test(joined) || DATA_KEY.test(joined)) return m
  if (argumentWord(joined, value)) return `_${word}=${marker("secret-argument")}`
  if (!LOOKS_SECRET.test(value) || ARGUMENT_CODE.test(value) || PATH_LIKE.test(value) || /^[0-9]+$/.test(value)) return m
  return `_${word}=${marker("secret-argument")}`
}

/**
 * The shortest letters-only value `secret-argument` takes (session 21): 4, as {@link RESTATED_MIN} in `./redact.ts`.
 * A command line's `db_password=hunter` is the password whatever its characters; shorter words there are mostly
 * abbreviations a call passes on (`password=pw`, `password=pwd` as the last argument of a call over lines).
 */
const ARGUMENT_WORD_MIN = 4
/**
 * Whether a value of lower-case letters only (`hunter`, `swordfish`) is the secret of a `secret-argument` name
 * (`joined`: its words, `_` dropped): 4 to 64 letters, under a password's, a passphrase's or a secret's name
 * ({@link wordSecret}: not a token's or a key's, where a word is too often an identifier: `api_key=key`), and no
 * placeholder or keyword (`password=password`, `secret=none`, `xxxx`). Capitals (`Config.PASSWORD`, `dbPass`) are
 * code: an identifier, a constant, a type.
 */
const argumentWord = (joined: string, value: string): boolean =>
  value.length >= ARGUMENT_WORD_MIN && value.length <= 64 && /^[a-z]+$/.test(value) && wordSecret(joined, value)

/**
 * Words that stand for a password in a command's example rather than being one (lower case): `sqlplus
 * user/pass@db`, `htpasswd -b file user pwd` (besides {@link NOT_A_SECRET_WORD}'s `password`, `secret`, …).
 */
const PLACEHOLDER_WORDS: ReadonlySet<string> = new Set(["pass", "pwd", "pw", "passwd", "mypassword", "yourpassword", "newpassword", "oldpassword", "pass123"])
/**
 * Whether `v`, where a command or a statement takes a password, stands for one rather than being one: a reference
 * (`$VAR`, `${VAR}`, `{{ … }}`: {@link notAValue}), cmd's `%VAR%`, a placeholder (`<password>`, `***`, `xxx`, `...`), a
 * word of {@link NOT_A_SECRET_WORD} or {@link PLACEHOLDER_WORDS} (`password`, `pass`).
 */
const placeholderValue = (v: string): boolean =>
  v.length === 0 || notAValue(v) || /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v) || /^<[^<>]{1,64}>$/.test(v) || /^(?:\*+|x+|X+|\.{3,}|\u2026)$/.test(v) ||
  NOT_A_SECRET_WORD.has(v.toLowerCase()) || PLACEHOLDER_WORDS.has(v.toLowerCase())

/** `word` in lower case, capitalized and upper case, as a pattern (SQL and cmd keywords: `identified`, `Identified`, `IDENTIFIED`). */
const threeCases = (word: string) => cases([word]).join("|")

/** A password in SQL after its keyword: a quoted literal (`'…'`, `"…"`, `\"…\"` in JSON text, `\\\"…\\\"` in JSON text held in a string), groups: the quote, the text. */
const sqlQuoted = (quoteGroup: number) => String.raw`(\\{0,3}["'])(?!\[REDACTED:)((?:(?!${"\\"}${quoteGroup})[^\n]){1,256}?)${"\\"}${quoteGroup}`

/**
 * `sql-password`'s pattern (tester22b F5): MySQL's, MariaDB's and Oracle's `IDENTIFIED BY '…'` (`CREATE USER`, `ALTER
 * USER`, `GRANT … IDENTIFIED BY`; also `IDENTIFIED WITH <plugin> BY|AS '…'`, `BY PASSWORD '…'` and Oracle's `BY
 * VALUES '…'`, hashes), Oracle's unquoted `IDENTIFIED BY <word>`, `SET PASSWORD [FOR <user>] = '…'`, and MySQL's
 * `PASSWORD('…')` / `OLD_PASSWORD('…')` (a word of its own: `hash_password('…')`, `input_password('Password: ')` are code). Keywords in lower case, capitalized or upper case; one space after `IDENTIFIED`, and the quote right after
 * `PASSWORD(`, so that its hints ({@link SQL_PASSWORD_HINTS}) are anchored at rare pairs of characters. Groups: the first
 * alternative's head, quote, quoted value, bare value; then head, quote, value of each other alternative.
 */
const SQL_PASSWORD = re(
  String.raw`((?:${threeCases("identified")}) (?:(?:${threeCases("with")})[ \t]{1,8}\\?["'${"`"}]?[A-Za-z0-9_]{1,64}\\?["'${"`"}]?[ \t]{1,8})?(?:${threeCases("by")}|${threeCases("as")})[ \t]{1,8}(?:(?:${threeCases("password")}|${threeCases("values")})[ \t]{1,8})?)` +
    String.raw`(?:${sqlQuoted(2)}|(?![$&:%<{"'\\(\[])([^\s;'"\\(),]{1,128}))` +
    String.raw`|((?:${threeCases("set")}) (?:${threeCases("password")})(?:[ \t]{1,8}(?:${threeCases("for")})[ \t]{1,8}[^=\n;]{1,200}?)?[ \t]{0,8}=[ \t]{0,8})${sqlQuoted(6)}` +
    String.raw`|((?<![A-Za-z0-9_$.])(?:(?:OLD|old)_)?(?:${threeCases("password")})\()${sqlQuoted(9)}(?=[ \t]{0,8}\))`
)

/**
 * `sql-password`'s hints: `IDENTIFIED BY`, `IDENTIFIED WITH`, `SET PASSWORD`, `PASSWORD('` (and `"`, `\`) in each
 * case of each word: every match holds one, and none is anchored at a pair of common characters (`identified` alone
 * would be, at `if`: the one-pass prefilter stops at each of its anchors).
 */
const SQL_PASSWORD_HINTS: ReadonlyArray<string> = [
  ...cases(["identified"]).flatMap((i) => cases(["by", "with"]).map((w) => `${i} ${w}`)),
  ...cases(["password"]).flatMap((p) => [`${p}('`, `${p}("`, `${p}(\\`, ...cases(["set"]).map((w) => `${w} ${p}`)])
]

/** The end of a statement or a command right after a match: `;`, `&`, `|`, `)`, the line's end (or a `\n` escape), the text's end. */
const ENDS_HERE = /^[ \t]*(?:[;&|)\r\n]|\\[nr]|$)/
/** Whether {@link ENDS_HERE} holds after the match of a replacement given its offset and the whole text (their last two arguments). */
const endsAfter = (m: string, args: ReadonlyArray<unknown>): boolean => {
  const offset = args[args.length - 2]
  const text = args[args.length - 1]
  return typeof offset === "number" && typeof text === "string" && ENDS_HERE.test(text.slice(offset + m.length, offset + m.length + 16))
}

/**
 * The replacement of a `sql-password` match ({@link SQL_PASSWORD}'s groups, then the match's offset and the text): the
 * keywords and quotes stay, the value goes.
 */
const sqlPasswordReplace = (m: string, ...args: Array<unknown>): string => {
  const [h1, q1, v1, bare, h2, q2, v2, h3, q3, v3] = args as Array<string | undefined>
  const M = marker("sql-password")
  const head = h1 ?? h2 ?? h3 ?? ""
  const quoted = v1 ?? v2 ?? v3
  if (quoted !== undefined) return placeholderValue(quoted) ? m : `${head}${q1 ?? q2 ?? q3}${M}${q1 ?? q2 ?? q3}`
  if (bare === undefined || placeholderValue(bare)) return m
  // Oracle's unquoted password: a word ending the statement (`IDENTIFIED BY tiger;`), or one with a digit and another
  // character (`IDENTIFIED BY Welc0me_1 ACCOUNT UNLOCK`); a word in prose ("IDENTIFIED BY to set it", "BY clause.") stays
  const statementEnds = /^[A-Za-z0-9_$#]+$/.test(bare) && endsAfter(m, args)
  return statementEnds || (/[0-9]/.test(bare) && /[^0-9]/.test(bare) && /[A-Za-z]/.test(bare)) ? `${head}${M}` : m
}

/**
 * The value `echo` or `printf` writes into a pipe whose command reads a password from standard input (tester22b F5):
 * `echo "…" | docker login -u bob --password-stdin` (any command's `--password-stdin`: podman, helm registry, oras,
 * skopeo), `printf '%s' '…' | …`, and gpg's `--passphrase-fd 0`. The command runs to the option in the same shell
 * command (at most 300 characters: no `;`, `&`, `|` or newline between). Groups: the head (`echo`, its `-n`, or
 * `printf` and a `%s` format), the quote, the quoted value, the bare value, the pipe to the option.
 */
const PIPED_STDIN_PASSWORD = String.raw`(${lead("echo|printf", "A-Za-z0-9_-")}[ \t]{1,8}(?:-[neE]{1,3}[ \t]{1,8})?(?:(?<=printf[ \t]{1,8})(?:--[ \t]{1,8})?(\\?["']?)%s(?:\\{1,2}n)?\6[ \t]{1,8})?)` +
  String.raw`(?!\[REDACTED:)(?:(\\{0,3}["'])(?![$])((?:(?!\7)[^\n]){1,256}?)\7|(?![$"'\\])([^\s"'|\\;&<>()]{1,256}))` +
  String.raw`([ \t]{0,8}\|[ \t]{0,8}[^\n;&|]{0,300}?(?:--password-stdin|--passphrase-fd[ \t]{1,8}0(?![0-9])))`

/**
 * `command-password`'s heads (tester22b F5; session 23): a password a command takes as an option the command names:
 * keytool's and jarsigner's `-storepass`, `-keypass` (`-srcstorepass`, `-deststorepass`, `-srckeypass`,
 * `-destkeypass`; `-storepass:env VAR` and `:file` name no value), ssh-keygen's `-N` (new passphrase) and `-P` (old),
 * zip's, unzip's and zipcloak's `-P` and `--password`, 7-Zip's `-p<password>` (attached: `-p` alone prompts), the
 * OpenLDAP tools' `-w` (`-W` prompts), FreeRDP's `/p:`, `net use … /user:<user> <password>`, and (session 23) RAR's
 * `-p<password>` and `-hp<password>` (attached; `-p-` asks for none), OpenSSL's pass phrase `pass:<password>` after
 * `-pass`, `-passin`, `-passout`, `-password` (`env:`, `file:`, `fd:`, `stdin` name no value) and `openssl enc`'s
 * `-k <password>`, `net use \\host\share <password>` (the password before `/user:`), `net user <name> <password>`,
 * `cmdkey`'s and `wmic`'s `/pass:`, `/password:`, `schtasks`' `/rp` (Samba's `-U user%<password>` is `user-password`'s).
 * Windows' commands and options in lower case, capitalized or upper case. The command is looked for earlier in the
 * same shell command ({@link optionOf}). Each head's kind says which values go ({@link commandPasswordReplace}).
 */
const COMMAND_PASSWORD_HEADS: ReadonlyArray<readonly [head: string, kind: "option" | "last" | "command" | "attached" | "pass"]> = [
  [String.raw`(${optionOf("(?:keytool|jarsigner)", "-(?:src|dest)?(?:storepass|keypass)")}[ \t]{1,8})`, "option"],
  [String.raw`(${optionOf("ssh-keygen", "-[NP]")}[ \t]{0,8})`, "option"],
  [String.raw`(${optionOf("(?:zip|unzip|zipcloak)", "-P|--password")}[ \t]{1,8})`, "option"],
  // (7-Zip's and RAR's attached passwords: one head, so that a `-p` is looked back from once)
  [String.raw`(${optionOf(String.raw`(?:7z(?:[arz]|\.exe)?|(?:rar|unrar|[Ww]in[Rr][Aa][Rr]|RAR|UNRAR)(?:\.exe)?)`, "-h?p")})(?=[^\s-])`, "attached"],
  [String.raw`(${optionOf("ldap[a-z]{2,12}", "-w")}[ \t]{1,8})`, "option"],
  [String.raw`(${optionOf("(?:[xw]l?freerdp3?|sdl-freerdp3?|freerdp)", "/p:")})`, "attached"],
  [String.raw`(${optionOf(`(?:${threeCases("net")})[ \t]{1,8}(?:${threeCases("use")})`, String.raw`/(?:${threeCases("user")}|u|U):[^\s]{1,256}`)}[ \t]{1,8})`, "last"],
  [String.raw`(${optionOf("openssl", "-pass(?:in|out|word)?")}[ \t]{1,8}pass:)`, "attached"],
  // (the pass phrase argument quoted whole: `-passin 'pass:my secret'`; the value is the quoted text after its `pass:`)
  [String.raw`(${optionOf("openssl", "-pass(?:in|out|word)?")}[ \t]{1,8})(?=\\{0,3}["']pass:)`, "pass"],
  [String.raw`(${optionOf("openssl", "-k")}[ \t]{1,8})`, "option"],
  [String.raw`(${optionOf(`(?:${threeCases("net")})[ \t](?:${threeCases("use")})`, String.raw`\\{2,8}[^\s\\/"'<>|]{1,256}(?:\\{1,4}[^\s\\"'<>|]{1,256}){1,8}`)}[ \t]{1,8})(?![/*])`, "attached"],
  [String.raw`((?:${threeCases("net")})(?<![A-Za-z0-9_.-](?:net|Net|NET))[ \t](?:${threeCases("user")})[ \t]{1,8}(?:\\{0,3}"[^"\n\\]{1,64}\\{0,3}"|[^\s/"'\\*]{1,64})[ \t]{1,8})(?![/*])`, "command"],
  [String.raw`(${optionOf(`(?:${threeCases("cmdkey")}|${threeCases("wmic")})(?:\.exe)?`, String.raw`/(?:${threeCases("pass")}|${threeCases("password")}):`)})`, "attached"],
  [String.raw`(${optionOf(`(?:${threeCases("schtasks")})(?:\\.exe)?`, "/(?:rp|RP|Rp)")}[ \t]{1,8})(?!\*)`, "attached"]
]

/**
 * Whether `v`, the value of an option that takes a password, stands for one: empty, a reference (`$VAR`, `${VAR}`,
 * `{{ … }}`), cmd's `%VAR%`, `<password>`, `***`, `...`. Narrower than {@link placeholderValue}: after an option that
 * is a password's (`-pSecret`, `pass:secret`, `/pass:pw`) any word is the password, `secret` and `pw` too.
 */
const optionPlaceholder = (v: string): boolean =>
  v.length === 0 || notAValue(v) || /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v) || /^<[^<>]{1,64}>$/.test(v) || /^(?:\*+|\.{3,}|\u2026)$/.test(v)

/**
 * What follows an option's letters-only value in a command rather than in prose (session 23): another option (`-r`,
 * `--out`, `/add`), or a file (`out.zip`, `./dir`, `~/x`, `C:\x`, `*.txt`). "zip -P is insecure", "the keytool
 * -storepass option is", "the zip -P flag" stay.
 */
const OPERAND_AFTER = /^[ \t]+(?:-{1,2}[A-Za-z]|\/[A-Za-z]|[^\s]*[A-Za-z0-9_]\.[A-Za-z0-9]|[^\s]*[\/\\~*]|[A-Za-z]:)/

/**
 * A command's start before a match (its last 40 characters): the text's or a line's start (a `\n` escape too), a shell
 * operator, a quote or a bracket, a prompt's `>` or `$`, then white space: where `net user <name> <word>` is a command
 * rather than prose ("We use .NET user accounts here").
 */
const COMMAND_STARTS = /(?:^|[\n;&|("'`>$]|\\n)[ \t]*$/
/** A command's end after a word: {@link ENDS_HERE}, or the quote that closes the command (a JSON string's, `"`, `\"`). */
const COMMAND_ENDS = /^[ \t]*(?:[;&|)\r\n"'`]|\\[nr"']|$)/

/**
 * The replacement of a `command-password` match (its groups, then its offset and the text): the option (and the
 * command before it) and the quotes stay, the value goes, unless it stands for one ({@link optionPlaceholder}), is
 * `*` (`net use` prompts) or an option (`/persistent:no`). A bare word of letters only goes after an attached option
 * (`-pSecret`, `pass:secret`, `/pass:pw`); after an option and a space, it and a word that stands for a password
 * elsewhere ({@link placeholderValue}: `pw`, `secret`) only when an option or a file follows it ({@link OPERAND_AFTER}:
 * `zip -P hunter out.zip f`, `net user bob hunter /add`), or the command's end where the password is the command's
 * last word (`net use … /user:bob hunter`; `net user bob hunter` where `net` starts a command: {@link COMMAND_STARTS}),
 * not in prose about the command ("zip -P is insecure", "the ssh-keygen -N flag", "We use .NET user accounts here").
 */
const commandPasswordReplace = (m: string, ...args: Array<unknown>): string => {
  const groups = args as Array<string | undefined>
  for (let a = 0; a < COMMAND_PASSWORD_HEADS.length; a++) {
    const [head, q, quoted, bare] = groups.slice(a * 4, a * 4 + 4)
    if (head === undefined) continue
    const kind = COMMAND_PASSWORD_HEADS[a][1]
    const v = kind === "pass" ? quoted?.slice(5) : quoted ?? bare
    if (v === undefined || optionPlaceholder(v) || v === "*" || v.startsWith("/")) return m
    if (kind === "pass") return `${head}${q}pass:${marker("command-password")}${q}`
    if (bare !== undefined && kind !== "attached") {
      if (/^[A-Za-z]+$/.test(bare) || placeholderValue(bare)) {
        const offset = args[args.length - 2]
        const text = args[args.length - 1]
        if (typeof offset !== "number" || typeof text !== "string") return m
        const after = text.slice(offset + m.length, offset + m.length + 80)
        const ends = (kind === "last" || (kind === "command" && COMMAND_STARTS.test(text.slice(Math.max(0, offset - 40), offset)))) && COMMAND_ENDS.test(after)
        if (!OPERAND_AFTER.test(after) && !ends) return m
      }
    }
    return quoted !== undefined ? `${head}${q}${marker("command-password")}${q}` : `${head}${marker("command-password")}`
  }
  return m
}

/**
 * `connect-password`'s pattern (tester22b F5): Oracle's `sqlplus user/password[@connect]` (its options before,
 * `-s`, `-L`, `-R 2`; a proxy user `app[proxy]/…`; the whole maybe quoted), the password bare up to `@`, white space
 * or a quote, or in double quotes (`app/"p@ss"@db`). Groups: the head (command, options, user and `/`), the user's
 * quote, the password's quote, the quoted password, the bare password.
 */
const CONNECT_PASSWORD = re(
  String.raw`(${lead("sqlplus", "A-Za-z0-9_-")}(?:[ \t]{1,8}-[A-Za-z]{1,12}(?:[ \t]{1,8}[0-9]{1,2}(?![^\s]))?){0,6}[ \t]{1,8}(\\?["']?)[A-Za-z0-9_$#.-]{1,128}(?:\[[A-Za-z0-9_$#.-]{1,128}\])?/)` +
    String.raw`(?:(\\?")(?!\[REDACTED:)([^"\n\\]{1,128})\3|(?![$%<{&:"'\\]|\[REDACTED:)([^\s/@"'\\;&|<>()]{1,128}))(?=@|[\s"'\\;&|)]|$)`
)

/**
 * `htpasswd-password`'s pattern (tester22b F5): Apache's `htpasswd -b[c|m|B|…] file user password` and `htpasswd
 * -nb user password` (`-b`: the password on the command line): its options (`-C 10` with its cost), then up to three
 * words. Which word is the password is the replacement's call ({@link htpasswdReplace}). Groups: the head (command
 * and options), the options, the words.
 */
const HTPASSWD_PASSWORD = re(
  String.raw`(${lead("htpasswd", "A-Za-z0-9_-")}((?:[ \t]{1,8}-[A-Za-z]{1,8}(?:[ \t]{1,8}[0-9]{1,3}(?![^\s]))?){1,8}))` +
    String.raw`((?:[ \t]{1,8}(?:\\?["'][^"'\n\\]{1,256}\\?["']|[^\s"'\\;&|<>()]{1,256})){1,3})`
)
/** One word of an `htpasswd` command line: white space, then a quoted or bare word. */
const HTPASSWD_WORD = /([ \t]{1,8})(?:(\\?["'])([^"'\n\\]{1,256})\2|([^\s"'\\;&|<>()]{1,256}))/g

/**
 * The replacement of an `htpasswd-password` match: with `-b` among the options, the password is the third word (the
 * second with `-n`: no file); it goes unless it stands for one ({@link placeholderValue}) or is a word of letters only
 * that does not end the command (prose: "htpasswd -b to set a password"). The rest stays.
 */
const htpasswdReplace = (m: string, head: string, options: string, words: string, ends: boolean): string => {
  const letters = options.replace(/[^A-Za-z]/g, "")
  if (!letters.includes("b")) return m
  const at = letters.includes("n") ? 1 : 2
  const parts = [...words.matchAll(HTPASSWD_WORD)]
  if (parts.length <= at) return m
  const [, space, q, quoted, bare] = parts[at]
  const v = quoted ?? bare
  if (placeholderValue(v) || (bare !== undefined && /^[A-Za-z]+$/.test(bare) && !(ends && parts.length === at + 1))) return m
  const before = parts.slice(0, at).map((p) => p[0]).join("")
  const after = parts.slice(at + 1).map((p) => p[0]).join("")
  return `${head}${before}${space}${quoted !== undefined ? `${q}${marker("htpasswd-password")}${q}` : marker("htpasswd-password")}${after}`
}

/**
 * `securestring-password`'s pattern (tester22b F5): PowerShell's `ConvertTo-SecureString "…" -AsPlainText -Force`
 * (`-String "…"`; `-AsPlainText` before or after the literal, in the same statement): the literal is a password in
 * clear. Groups: the head (the cmdlet, its switches), the quote, the quoted value, the bare value, the statement's rest.
 */
const SECURESTRING_PASSWORD = re(
  String.raw`((?:ConvertTo-SecureString|convertto-securestring|Convertto-SecureString|CONVERTTO-SECURESTRING)(?:[ \t]{1,8}-(?:AsPlainText|asplaintext|Force|force|String|string)(?![A-Za-z]))*[ \t]{1,8})` +
    String.raw`(?!\[REDACTED:)(?:(\\{0,3}["'])(?![$])((?:(?!\2)[^\n]){1,256}?)\2|(?![$"'\\(\-])([^\s"'|\\;&<>()]{1,256}))(?=([^\n;|]{0,300}))`
)

/**
 * What may stand right before a command at a line's start, besides the start itself, as the last characters of a
 * lookbehind (tester23b F8): a shell's prompt (`$ `, `# `, `% `, `user@host:~$ `), a Windows prompt's `>` (`C:\> `,
 * `C:\src>`, `PS C:\> `), a Markdown quote (`> `), a list item's mark (`- `, `* `, `+ `, `1. `, `2) `), a label in
 * brackets (`[setx] `) or before a colon (`Run: `), a backtick (inline code), a quote, a shell operator or a `\n`
 * escape. (`secret-setting` reads it before its command; `redis-password` after a line's start.)
 */
const COMMAND_LEAD = String.raw`[\n;&|(${"`"}"'>]|\\[nr]|[$#%\]:*+-][ \t]|[0-9][.)][ \t]|RUN `

/**
 * What may stand before a setting's name at a line's start in `secret-line` (tester23b F8), as a pattern: a Markdown
 * quote's `>` (nested: `> > `), a list item's mark (`- `, `* `, `+ `, `1. `), at most two of them, then maybe a
 * backtick (``- `aws_secret_access_key = …` ``: the closing backtick stays).
 */
const SETTING_LEAD = String.raw`(?:(?:>[ \t]{0,8}){1,4}|[-*+][ \t]{1,8}|[0-9]{1,3}[.)][ \t]{1,8}){0,2}${"`"}?`

/**
 * A line's decoration before a setting's name in `secret-line` (session 25, tester25a F9), as a pattern: a file
 * viewer's line number (Claude Code's Read gutter `     5→`, `cat -n`'s `     5` and a tab; in JSON text the arrow as
 * `\u2192` and the tab as `\t`) or `grep -n`'s `path:12:` (also without a path, `12:`, a Windows path
 * `C:\src\app.ini:12:`, and ripgrep's column `path:12:5:`), or bat's gutter `  12 │ ` and a numbered `  12 | `
 * (session 26, tester25b F4; in JSON text the bar maybe as `\u2502`), also with a heavy bar `  12 ┃ `, a spaced colon
 * `  12 : ` or a bar without a number `│ `/`┃ ` (a box-drawn listing; tester26a F6), then maybe a diff's `+` or `-` (an added or a
 * removed line), maybe after a Markdown quote's `> ` (a quoted diff: `> +NAME = value`). Each part is bounded.
 */
const LINE_MARGIN = String.raw`(?:[ \t]{0,12}[0-9]{1,9}(?:\u2192|\t|\\{1,2}(?:u2192|t)|[ \t]{1,4}(?:[\u2502\u2503|:]|\\{1,2}u250[23])[ \t]?)|[ \t]{0,12}(?:[\u2502\u2503]|\\{1,2}u250[23])[ \t]?|(?:(?:[A-Za-z]:)?[^\s:"'${"`"}]{1,256}:)?[0-9]{1,9}:(?:[0-9]{1,9}:)?)?(?:(?:>[ \t]{0,8}){0,4}[+-])?`

/**
 * `secret-line`'s pattern: three alternatives, each of three groups (the lead, which stays; the head: indentation,
 * dotted prefix, name, `=`, which stays; the value). The first at a line's start (also after a `\n` escape), maybe
 * after a line's decoration ({@link LINE_MARGIN}), its value the line's rest. The second and third after a string's
 * opening quote, `"` or `'` (maybe escaped: JSON text; session 25, tester25a F3/F9: `echo "db_password = …" >>
 * app.ini`, `{"stdout": "db_password = …\n"}`), at a line's start or after white space or `:`, `=`, `(`, `[`,
 * `{`, `,`, maybe then a decoration, with white space around its `=`: the value holds no such quote and runs to the
 * closing quote or the line's end.
 */
const lineAlternatives = (): string => {
  const name = String.raw`[ \t]{0,40}${SETTING_LEAD}(?:[A-Za-z0-9_-]{1,64}\.){0,8}(?:${NAMES_ALONE}|${NAMES_AFTER})[ \t]{0,40}(?:=|${ESC_EQ})(?![=>~])[ \t]{0,40}`
  // in a string, white space before or after the `=` (a command's `NAME=value` word is `secret-argument`'s)
  // (a tab maybe written `\t`: JSON text, `{"command":"password\t=\t…"}`)
  const blank = String.raw`(?:[ \t]|\\{1,2}t)`
  const spaced = String.raw`[ \t]{0,40}(?:[A-Za-z0-9_-]{1,64}\.){0,8}(?:${NAMES_ALONE}|${NAMES_AFTER})(?:${blank}{1,40}(?:=|${ESC_EQ})|(?:=|${ESC_EQ})(?=${blank}))(?![=>~])${blank}{0,40}`
  // the value's checks, then the value, of `unit` characters (a value's last character is no backtick nor backslash)
  const value = (unit: string, last: string) =>
    String.raw`(?![$\{"'${"`"}\[(<]|\[REDACTED:|${ESC_QUOTE})(?![A-Za-z]{1,2}["'])(?!(?:None|null|nil|true|false|True|False|undefined|NULL)(?!${unit}))` +
    String.raw`(?![A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+(?!${unit}))(?![A-Za-z0-9_$.]*[\[(])(?![A-Za-z$]*_[A-Za-z_$]*(?!${unit}))(?![a-z]+(?:[A-Z][a-z]*)+(?!${unit}))` +
    String.raw`(?:(?=${unit}{0,63}[0-9])(?=${unit}{0,63}[^0-9\s\\])|(?=${unit}{16})|(?=[A-Za-z]{1,64}(?!${unit})))(${unit}{0,511}${last})`
  const lineEnd = String.raw`${"`"}?[ \t]*(?:[#;][^\n]*)?(?:\r?\n|\\[nr]|$)`
  const atLine = String.raw`(?:^|(?<=\\[nr]))((?:${LINE_MARGIN})?)(${name})${value(LV, String.raw`(?:[^\s\\${"`"}]|\\(?![nrt]))`)}(?=${lineEnd})`
  const inQuote = (q: string) => {
    const unit = String.raw`(?:[^\s\\${q}]|\\(?![nrt${q}\\]))`
    return String.raw`(?:^|(?<=[\s:=(\[{,]))(\\{0,3}${q}(?:${LINE_MARGIN})?)(${spaced})${value(unit, String.raw`(?:[^\s\\${"`"}${q}]|\\(?![nrt${q}\\]))`)}` +
      String.raw`(?=\\{0,3}${q}|${"`"}?[ \t]*(?:[#;][^\n${q}]*)?(?:\r?\n|\\{1,3}[nr]|$))`
  }
  return [atLine, inQuote('"'), inQuote("'")].join("|")
}

/**
 * sudo's options then `-S` (`--stdin`: it reads the password from standard input; sudo(8)), as `sudo-password` reads
 * them: options that take an argument (`-u root`, `-g wheel`, `-p ""`, …), flags, long options.
 */
const SUDO_STDIN = String.raw`sudo(?:[ \t]{1,8}(?:-[A-Za-z]{0,7}[ughpCDrtTU][ \t]{1,8}(?!-)[^\s|;&<>]{1,64}|-[A-Za-z]{1,8}|--[a-z][a-z-]{1,31}(?:=[^\s|;&<>]{1,64})?)){0,8}?[ \t]{1,8}(?:-[A-Za-z]{0,8}S|--stdin)(?![A-Za-z-])`

/**
 * A command that reads a password (or a secret) from standard input, as the first word of a piped command (after
 * `sudo`/`doas` and their options, maybe as `/usr/sbin/…`; tester23b F2): a `…passwd` tool (`chpasswd`,
 * `chgpasswd`, `passwd --stdin`, `vncpasswd -f`, `smbpasswd -s`, `htpasswd -i`, `mkpasswd --stdin`, `openssl
 * passwd -stdin`), `kinit`, `cryptsetup`, `secret-tool`.
 */
const STDIN_READER = String.raw`(?:(?:sudo|doas)(?:[ \t]{1,8}(?:-[ughpCDrtTU][ \t]{1,8}(?!-)[^\s|;&<>]{1,64}|-[^\s|;&<>]{1,64})){0,8}[ \t]{1,8})?(?:/(?:usr/(?:local/)?)?s?bin/)?` +
  String.raw`(?:[a-z0-9]{0,16}passwd|kinit|cryptsetup|secret-tool|openssl[ \t]{1,8}passwd)(?![A-Za-z0-9_.-])`
/**
 * An option or a subcommand after which a command reads a secret from standard input (tester23b F2): `gh auth login
 * --with-token`, `gh secret set NAME` (no `--body`), `wrangler secret put NAME`, `docker secret create NAME -`,
 * `vault login -`, `gcloud secrets … --data-file=-`, `kubectl … --from-file=key=/dev/stdin`, openssl's `-passin stdin`.
 */
const STDIN_OPTION = String.raw`--with-token(?![A-Za-z0-9-])|secrets?[ \t]{1,8}(?:set|put|create)(?![A-Za-z0-9-])|login[ \t]{1,8}-(?![^\s;&|)])|(?:--data-file|--from-file)=(?:[A-Za-z0-9._-]{1,64}=)?(?:-|/dev/stdin)(?![^\s;&|)])|-pass(?:in)?[ \t]{1,8}(?:stdin|fd:0)(?![A-Za-z0-9])`

/**
 * `piped-password`'s pattern (tester23b F2): a value written by `echo`, `printf` (maybe after a `%s` format) or `yes`
 * into a pipe whose command reads a password from standard input ({@link STDIN_READER}, {@link STDIN_OPTION}, or
 * `sudo -S` after `printf`/`yes`: the quoted `echo` is `sudo-password`'s), and a here-string given to such a
 * command (`chpasswd <<< 'bob:…'`, `sudo -S … <<< '…'`, `gh secret set NAME <<< '…'`). Groups: the head, the
 * format's quote, the value's quote, the quoted value, the bare value, the pipe to the reader; then the here-string's
 * head, quote, quoted value, bare value.
 */
const PIPED_PASSWORD = re(
  String.raw`(${lead("echo|printf|yes", "A-Za-z0-9_-")}[ \t]{1,8}(?:-[neE]{1,3}[ \t]{1,8})?(?:(?<=printf[ \t]{1,8})(?:--[ \t]{1,8})?(\\?["']?)%s(?:\\{1,2}n)?\2[ \t]{1,8})?)` +
    String.raw`(?!\[REDACTED:)(?:(\\{0,3}["'])(?![$])((?:(?!\3)[^\n]){1,256}?)\3|(?![$"'\\])([^\s"'|\\;&<>()${"`"}]{1,256}))` +
    String.raw`([ \t]{0,8}\|[ \t]{0,8}(?:${SUDO_STDIN}|${STDIN_READER}|[^\n;&|]{0,300}?[ \t](?:${STDIN_OPTION})))` +
    String.raw`|(<<<(?<=(?:^|[^A-Za-z0-9_.-])(?:[a-z0-9]{0,16}passwd|kinit|cryptsetup|secret-tool|sudo|gh|wrangler)(?![A-Za-z0-9_.-])[^\n;&|<]{0,300}<<<)[ \t]{0,8})${optionValue(8)}`
)
/** The here-string's command line before `<<<`, to tell `sudo -S` from `sudo`, `gh secret set` from `gh` (see {@link PIPED_PASSWORD}). */
const HERE_READER = new RegExp(String.raw`(?:^|[^A-Za-z0-9_.-])(?:(?:[a-z0-9]{0,16}passwd|kinit|cryptsetup|secret-tool)(?![A-Za-z0-9_.-])|sudo[^\n]{0,300}[ \t](?:-[A-Za-z]{0,8}S|--stdin)(?![A-Za-z-])|(?:gh|wrangler)[ \t][^\n]{0,300}secrets?[ \t]{1,8}(?:set|put)(?![A-Za-z0-9-]))[^\n]*$`)

/**
 * The replacement of a `piped-password` match ({@link PIPED_PASSWORD}'s groups, then the match's offset and the text):
 * the value goes, unless it stands for one ({@link placeholderValue}) or is printf's format (`printf '%s\n' "$PW"`), or
 * a here-string goes to a command that reads no password (`sudo` without `-S`, `gh` without `secret set`); for
 * `chpasswd`/`chgpasswd` (`user:password` lines) the user and `:` stay. echo, printf, the quotes, the pipe and the
 * command stay.
 */
const pipedPasswordReplace = (m: string, ...args: Array<unknown>): string => {
  const g = args as Array<string | undefined>
  const [head, , q, quoted, bare, tail, hHead, hq, hQuoted, hBare] = g
  const piped = head !== undefined
  const v = piped ? (quoted ?? bare) : (hQuoted ?? hBare)
  if (v === undefined || placeholderValue(v)) return m
  if (piped && head.startsWith("printf") && /%[sdb]/.test(v)) return m
  let reader = tail ?? ""
  if (!piped) {
    const offset = args[args.length - 2]
    const text = args[args.length - 1]
    if (typeof offset !== "number" || typeof text !== "string") return m
    const line = text.slice(Math.max(0, offset - 400), offset)
    if (!HERE_READER.test(line)) return m
    reader = line
  }
  const user = /chg?passwd/.test(reader) ? (/^[^:\s]{1,64}:/.exec(v)?.[0] ?? "") : ""
  const hidden = `${user}${marker("piped-password")}`
  if (piped) return `${head}${quoted !== undefined ? `${q}${hidden}${q}` : hidden}${tail}`
  return `${hHead}${hQuoted !== undefined ? `${hq}${hidden}${hq}` : hidden}`
}

/**
 * A command (`command`, a pattern: a literal first, so a scan stops only at it) then, later in the same shell command
 * (no newline, `;`, `&`, `|`; at most 300 characters), one of its options (`option`, a pattern) after white space: the
 * forward form of {@link optionOf}, for options common elsewhere (`-p`, `-o`, `-b`) of rare commands.
 */
const commandThen = (command: string, option: string) =>
  String.raw`${lead(command, "A-Za-z0-9_.:-")}[ \t](?:[^\n;&|]{0,300}?[ \t])??(?:${option})`

/** HTTPie's `http|https -a|--auth user:password` (session 24, tester24a F15), as curl's `-u` (`cli-password`). */
const HTTPIE_AUTH = optionOf("(?:http|https)", "-a|--auth")

/** The settings of `nmcli` that hold a password (nm-settings-nmcli(5)), and `password` of `nmcli device wifi connect`. */
const NMCLI_SECRETS = String.raw`password|wifi-sec\.psk|wifi-sec\.wep-key[0-3]|wifi-sec\.leap-password|802-1x\.password|802-1x\.private-key-password|pppoe\.password|gsm\.password|cdma\.password|vpn\.secrets`

/**
 * `command-secret`'s heads (tester23b F2): a secret set by a command that says what it sets, as a subcommand's argument
 * or an option: `gh secret set NAME --body|-b …`, `rabbitmqctl add_user|change_password|authenticate_user USER …`,
 * macOS `security add-generic-password|add-internet-password … -w …` (and `unlock-keychain`, `create-keychain`,
 * `set-keychain-password`'s `-p`/`-o`, `set-…-partition-list`'s `-k`), `wpa_passphrase SSID …`, `nmcli … password …`
 * ({@link NMCLI_SECRETS}), `dotnet user-secrets set KEY …`, `kubectl|oc create secret … --from-literal=KEY=…`, `aws
 * secretsmanager … --secret-string|--secret-binary …`, `az keyvault secret set … --value …` (`eas secret:create`),
 * and `… secrets set NAME=…` (fly, supabase, doppler, dokku). The command is looked for earlier in the same shell
 * command ({@link optionOf}); each head is followed by {@link optionValue}.
 */
const COMMAND_SECRET_HEADS: ReadonlyArray<string> = [
  String.raw`(${commandThen("secrets?[ \t]{1,8}set", "--body|-b")}(?:[ \t]{1,8}|=))`,
  String.raw`(${commandThen("rabbitmqctl(?:\\.bat)?", "add_user|change_password|authenticate_user")}[ \t]{1,8}(?:\\?["'][^"'\n\\]{1,128}\\?["']|[^\s"'\\;&|<>()-][^\s"'\\;&|<>()]{0,127})[ \t]{1,8})`,
  String.raw`(${commandThen("security[ \t]{1,8}add-(?:generic|internet)-password", "-w")}[ \t]{1,8})`,
  String.raw`(${commandThen("security[ \t]{1,8}(?:unlock-keychain|create-keychain|set-keychain-password|set-(?:generic-password|internet-password|key)-partition-list)", "-p|-o|-k")}[ \t]{1,8})`,
  String.raw`(${lead("wpa_passphrase", "A-Za-z0-9_-")}[ \t]{1,8}(?:\\?["'][^"'\n\\]{1,64}\\?["']|[^\s"'\\;&|<>()-][^\s"'\\;&|<>()]{0,63})[ \t]{1,8})`,
  String.raw`(${commandThen("nmcli", NMCLI_SECRETS)}[ \t]{1,8})`,
  String.raw`(${lead("user-secrets", "A-Za-z0-9_-")}[ \t]{1,8}set[ \t]{1,8}(?:\\?["'][^"'\n\\]{1,256}\\?["']|[^\s"'\\;&|<>()-][^\s"'\\;&|<>()]{0,255})[ \t]{1,8})`,
  String.raw`(${commandThen("secret", "--from-literal")}(?:=|[ \t]{1,8})(?:\\?["'])?[A-Za-z0-9._-]{1,253}=)`,
  String.raw`(${commandThen("secretsmanager", "--secret-string|--secret-binary")}(?:[ \t]{1,8}|=))`,
  String.raw`(${commandThen("keyvault[ \t]{1,8}secret[ \t]{1,8}set|secret:create|secret:push", "--value")}(?:[ \t]{1,8}|=))`,
  // session 24 (tester24a F15): `rclone config create|update NAME TYPE secret_access_key …` (a setting's name and
  // value as two words: `pass`, `password`, `client_secret`, `token`, `…_key`), Helm's `--set|--set-string
  // a.b.rootPassword=…` (a secret's name, any case or camelCase, as the path's last part; `--set-file` is a file)
  String.raw`(${optionOf(String.raw`rclone[ \t]{1,8}config[ \t]{1,8}(?:create|update)`, String.raw`(?:[a-z0-9]{1,20}_){0,4}(?:pass|password|secret|token|key)`)}[ \t]{1,8})`,
  String.raw`(${optionOf("helm", "--set|--set-string")}(?:[ \t]{1,8}|=)(?:[A-Za-z0-9_\[\]-]{1,64}\.){0,8}[A-Za-z0-9_-]{0,40}(?:[Pp]ass(?:word|wd)?|PASS(?:WORD|WD)?|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[-_]?[Kk]ey|API[-_]?KEY)=)`
]
/**
 * `… secrets set NAME=… NAME=…` (fly, flyctl, supabase, doppler; `secrets:set`), after {@link COMMAND_SECRET_HEADS}: the
 * command and its options (head), then every pair (group 3 of its own four; two empty groups keep the layout).
 */
const SECRETS_SET = String.raw`(${lead("secrets?", "A-Za-z0-9_.:-")}(?:[ \t]{1,8}|:)set(?:[ \t]{1,8}-{1,2}[A-Za-z][A-Za-z-]{0,31}(?:=[^\s"'\\]{1,256})?){0,4})()()((?:[ \t]{1,8}[A-Za-z_][A-Za-z0-9_.-]{0,127}=(?:\\?"[^"\n\\]{0,512}\\?"|'[^'\n]{0,512}'|[^\s"'${"`"};&|<>()\\]{0,512})){1,16})`
/** One `NAME=value` pair of {@link SECRETS_SET}: the name and `=`, the quote, the value in quotes, the bare value. */
const SECRETS_SET_PAIR = /([ \t]{1,8}[A-Za-z_][A-Za-z0-9_.-]{0,127}=)(?:(\\?"|')([^"'\n\\]{0,512})\2|([^\s"'`;&|<>()\\]{0,512}))/g

/**
 * The replacement of a `command-secret` match: the command, the option and the quotes stay, the value goes, unless it
 * stands for one ({@link placeholderValue}) or is a bare word of letters only under 16 characters (prose: "wpa_passphrase
 * takes the SSID and the passphrase").
 */
const commandSecretReplace = (m: string, ...groups: Array<string>): string => {
  for (let a = 0; a < COMMAND_SECRET_HEADS.length; a++) {
    const [head, q, quoted, bare] = groups.slice(a * 4, a * 4 + 4)
    if (head === undefined) continue
    const v = quoted ?? bare
    // (a JSON object is a value: `--secret-string '{"password": "…"}'`)
    if (v === undefined || (placeholderValue(v) && !/^\{\\?"/.test(v)) || (bare !== undefined && /^[A-Za-z]{1,15}$/.test(bare))) return m
    return quoted !== undefined ? `${head}${q}${marker("command-secret")}${q}` : `${head}${marker("command-secret")}`
  }
  const [head, , , pairs] = groups.slice(COMMAND_SECRET_HEADS.length * 4, COMMAND_SECRET_HEADS.length * 4 + 4)
  if (head === undefined || pairs === undefined) return m
  return head + pairs.replace(SECRETS_SET_PAIR, (p: string, name: string, q?: string, quoted?: string, bare?: string) => {
    const v = quoted ?? bare ?? ""
    if (placeholderValue(v)) return p
    return quoted !== undefined ? `${name}${q}${marker("command-secret")}${q}` : `${name}${marker("command-secret")}`
  })
}

/**
 * `config-secret`'s pattern (tester23b F2): a secret set by a tool's `config [set]` subcommand, the setting's name then
 * its value as two words: `npm config set //registry.npmjs.org/:_authToken …` (`npm set`, `pnpm`), `yarn config set
 * npmAuthToken …`, `git config --global github.token …`, `glab config set token …`, `poetry config pypi-token.pypi …`,
 * `poetry config http-basic.repo user …` and `composer config http-basic.host user …` (the second word), `composer
 * config github-oauth.github.com …`; and Bundler's `bundle config [set] [--global] HOST user:…`. Options may stand
 * before the name (`--global`, `-g`, `--location=user`). Which names are a secret's is {@link configSecretReplace}'s
 * call. Groups: bundle's head, quote, quoted value, bare value; then the head, the name's quote, the name, the value's
 * quote, quoted value, bare value, and a second word's quote, quoted value, bare value.
 */
const CONFIG_SECRET = re(
  String.raw`(${lead("bundle", "A-Za-z0-9_-")}[ \t]{1,8}config(?:[ \t]{1,8}set)?(?:[ \t]{1,8}--(?:global|local))?[ \t]{1,8}[^\s"'\\-][^\s"'\\]{0,255}[ \t]{1,8}(?:\\?["'])?[^\s:"'\\]{1,128}:)` +
    String.raw`(?!\[REDACTED:)(?:(\\?["'])(?![$])((?:(?!\2)[^\n]){1,512}?)\2|(?![$"'\\])([^\s"'${"`"};&|<>()\\]{1,512}))` +
    String.raw`|(${lead("config|configure|p?npm set", "A-Za-z0-9_-")}(?:[ \t]{1,8}set)?(?:[ \t]{1,8}-{1,2}[A-Za-z][A-Za-z-]{0,30}(?:=[^\s"'\\]{1,256})?){0,4}[ \t]{1,8}(\\?["']?)([^\s"'\\=-][^\s"'\\=]{0,255})\6[ \t]{1,8})` +
    `${optionValue(8)}` +
    String.raw`(?:[ \t]{1,8}(?:(\\?["'])(?![$])((?:(?!\11)[^\n]){1,512}?)\11|(?![$"'\\-])([^\s"'${"`"};&|<>()\\]{1,512})))?`
)
/** The name prefixes of a setting whose value (one word, or the second of two: `user password`) is a credential: Composer's and Poetry's auth settings. */
const CONFIG_AUTH_PREFIX = /^(?:(http-basic|bitbucket-oauth)|github-oauth|gitlab-oauth|gitlab-token|bearer|pypi-token)\./

/**
 * The replacement of a `config-secret` match: the value goes when the setting's name is a credential's: its last part
 * (after `.`, `/` or `:`, leading `_` dropped) a secret's name ({@link secretKeyKind}, not `pwd`; `_auth`, npm's
 * `user:password` in base64) and the value one under it ({@link secretValue}), or a Composer/Poetry auth setting
 * ({@link CONFIG_AUTH_PREFIX}: with `http-basic.…` the second word, the password). `npm config set registry https://…`
 * stays; so do references and placeholders.
 */
const configSecretReplace = (m: string, ...g: Array<string | undefined>): string => {
  const M = marker("config-secret")
  const [bHead, bq, bQuoted, bBare, head, , name, q, quoted, bare, q2, quoted2, bare2] = g
  if (bHead !== undefined) {
    const v = bQuoted ?? bBare ?? ""
    if (placeholderValue(v)) return m
    return `${bHead}${bQuoted !== undefined ? `${bq}${M}${bq}` : M}`
  }
  if (head === undefined || name === undefined) return m
  const v = quoted ?? bare ?? ""
  const first = quoted !== undefined ? `${q}${quoted}${q}` : (bare ?? "")
  const second = quoted2 ?? bare2
  const secondText = quoted2 !== undefined ? `${q2}${quoted2}${q2}` : (bare2 ?? "")
  // what follows the value: the white space and the second word, if any
  const after = m.slice(head.length + first.length)
  const hide = (w: string, wq: string | undefined, wQuoted: string | undefined) => (placeholderValue(w) ? null : wQuoted !== undefined ? `${wq}${M}${wq}` : M)
  const auth = CONFIG_AUTH_PREFIX.exec(name)
  if (auth !== null) {
    if (auth[1] !== undefined) {
      if (second === undefined) return m
      const h = hide(second, q2, quoted2)
      return h === null ? m : `${head}${first}${after.slice(0, after.length - secondText.length)}${h}`
    }
    const h = hide(v, q, quoted)
    return h === null ? m : `${head}${h}${after}`
  }
  const last = name.replace(/^.*[./:]/, "").replace(/^_+/, "")
  const kind = last === "auth" ? "secret" : secretKeyKind(last)
  if (kind === "none" || kind === "header" || kind === "pwd" || !secretValue(kind, v)) return m
  const h = hide(v, q, quoted)
  return h === null ? m : `${head}${h}${after}`
}

/**
 * `user-password`'s pattern (tester23b F2): Samba's `user%password` after `-U`, `--user`, `--username` (smbclient,
 * rpcclient, smbcacls, smbget, `net … -U`; also `DOMAIN\user%…`, quoted or not), and smbclient's password given after
 * the service (`smbclient //srv/share <password> -U bob`). Groups: the quoted form's head, quote, value; the bare
 * form's head, value; smbclient's head, its service's quote, the value.
 */
const USER_PASSWORD = re(
  String.raw`((?:^|(?<=[\s=]|${ESCAPE_BEFORE}))(?:-U|--user(?:name)?)(?:=|[ \t]{1,8})(\\?["'])[^\s%"']{1,256}%)(?![$]|\[REDACTED:)((?:(?!\2)[^\n]){1,256}?)\2` +
    String.raw`|((?:^|(?<=[\s=]|${ESCAPE_BEFORE}))(?:-U|--user(?:name)?)(?:=|[ \t]{1,8})[^\s%"'${"`"}]{1,256}%)(?![$"'\\]|\[REDACTED:)([^\s"'${"`"}\\;&|<>()]{1,256})` +
    String.raw`|(${lead("smbclient", "A-Za-z0-9_-")}[ \t]{1,8}(\\?["']?)(?://|\\{2,8})[^\s"']{1,256}\7[ \t]{1,8})(?![-$<|%"'\\]|\[REDACTED:)([^\s"'${"`"}\\;&|<>()]{1,256})`
)

/** The replacement of a `user-password` match: the option, the user and `%` stay; smbclient's positional password goes unless a placeholder or a word of letters only. */
const userPasswordReplace = (m: string, h1?: string, q?: string, v1?: string, h2?: string, v2?: string, h3?: string, _sq?: string, v3?: string): string => {
  const M = marker("user-password")
  if (h1 !== undefined && v1 !== undefined) return placeholderValue(v1) ? m : `${h1}${M}${q}`
  if (h2 !== undefined && v2 !== undefined) return placeholderValue(v2) ? m : `${h2}${M}`
  if (h3 !== undefined && v3 !== undefined) return placeholderValue(v3) || /^[A-Za-z]{1,15}$/.test(v3) ? m : `${h3}${M}`
  return m
}

/** Where a Redis command starts at a line: its start, maybe after a prompt (`redis> `, `> `). */
const REDIS_LINE = String.raw`(?:^|\n|\\[nr])[ \t]{0,16}(?:[^\n>]{0,64}>[ \t]{0,4})?`
/** Where a Redis command starts for sure: a `host:port> ` prompt (`127.0.0.1:6379> `, anywhere), an argument of `redis-cli`. */
const REDIS_CLI = String.raw`(?:(?:[0-9.]{1,64}|localhost):[0-9]{1,5}>[ \t]{0,4}|redis-cli[^\n;&|]{0,300}[ \t])`
/** `AUTH`'s user, a word that may be followed by its password (not ending in `,` or `.`: then it ends a sentence). */
const REDIS_USER = String.raw`(?:(?!\[REDACTED:)[^\s"'\\]{0,127}[^\s"'\\,.][ \t]{1,8})?`

/**
 * `redis-password`'s pattern (tester23b F2): Redis' `AUTH [user] <password>` as a command (upper case at a line's start,
 * maybe after a prompt, the command ending after the password; any case after a `host:port>` prompt or `redis-cli`),
 * `CONFIG SET requirepass|masterauth …`, redis.conf's `requirepass …`/`masterauth …` lines and `redis-server
 * --requirepass …`, and `ACL SETUSER name … >password`. Groups: each form's head then {@link optionValue}'s three (ACL:
 * the head and the value).
 */
const REDIS_PASSWORD = re(
  String.raw`(AUTH(?<=${REDIS_LINE}AUTH)[ \t]{1,8}${REDIS_USER})${optionValue(2)}(?=[ \t]*(?:$|[\r\n;&|)"'${"`"}\\]|[,.](?:\s|$)))` +
    String.raw`|((?:AUTH|auth|Auth)(?<=${REDIS_CLI}(?:AUTH|auth|Auth))[ \t]{1,8}${REDIS_USER})${optionValue(6)}` +
    String.raw`|((?:requirepass|masterauth)(?<=(?:${REDIS_LINE}|${REDIS_CLI}|(?:CONFIG|config)[ \t]{1,8}(?:SET|set)[ \t]{1,8}|--)(?:requirepass|masterauth))[ \t]{1,8})${optionValue(10)}` +
    String.raw`|((?:SETUSER|setuser)(?<=(?:ACL|acl)[ \t]{1,8}(?:SETUSER|setuser))[ \t][^\n>]{0,300}?[ \t]>)(?!\[REDACTED:)([^\s"'${"`"}\\;&|<>()]{1,256})`
)

/**
 * The replacement of a `redis-password` match: `AUTH`'s password goes when it looks like one (a digit and another
 * character, or 16 characters or more: "AUTH failed" stays), and so does its first word when that looks like one (after
 * a prompt, `AUTH <password> <more text>` reads as two words); the others unless a placeholder.
 */
const redisPasswordReplace = (m: string, ...g: Array<string | undefined>): string => {
  const M = marker("redis-password")
  const secret = (w: string) => LOOKS_SECRET.test(w) && !placeholderValue(w) && !w.includes("[REDACTED:")
  for (let a = 0; a < 3; a++) {
    const [head, q, quoted, bare] = g.slice(a * 4, a * 4 + 4)
    if (head === undefined) continue
    const v = quoted ?? bare ?? ""
    if (a === 2) {
      if (placeholderValue(v)) return m
      return quoted !== undefined ? `${head}${q}${M}${q}` : `${head}${M}`
    }
    const two = /^([A-Za-z]{4}[ \t]{1,8})([^\s"'\\]{1,128})([ \t]{1,8})$/.exec(head)
    const userGoes = two !== null && secret(two[2])
    const valueGoes = secret(v)
    if (!userGoes && !valueGoes) return m
    const lead = userGoes ? `${two[1]}${M}${two[3]}` : head
    if (!valueGoes) return `${lead}${quoted !== undefined ? `${q}${quoted}${q}` : v}`
    // (a sentence's `,` or `.` after a bare password stays)
    const end = quoted === undefined ? (/[,.]$/.exec(v)?.[0] ?? "") : ""
    return quoted !== undefined ? `${lead}${q}${M}${q}` : `${lead}${M}${end}`
  }
  const [head, v] = g.slice(12, 14)
  return head === undefined || v === undefined || placeholderValue(v) ? m : `${head}${M}`
}

/**
 * `terraform-variable`'s pattern (tester23b F4): a Terraform/OpenTofu `variable "NAME" { … default = … }` block (on one
 * line or several; its `"` maybe escaped in JSON text; one space or tab at most before `{`, as `terraform fmt` writes it), up to its default, and the block's rest after it (to its next
 * brace), and an `output "NAME" { … value = … }`. Groups: the head (to `=`), the block's word, the name, the value's
 * quote, the quoted value, a bare value (a number), the block's rest.
 */
const TERRAFORM_VARIABLE = re(
  String.raw`((${lead("variable|output", "A-Za-z0-9_-")})[ \t]{1,8}\\?"([A-Za-z0-9_-]{1,128})\\?"[ \t]?\{[^{}]{0,2000}?(?<![A-Za-z0-9_])(?:default|value)[ \t]{0,8}=[ \t]{0,8})` +
    String.raw`(?:(\\?")(?![$]|\[REDACTED:)((?:(?!\4)[^\n]){1,512}?)\4|([0-9][A-Za-z0-9._-]{0,127}))(?=([^{}]{0,2000}))`
)

/**
 * The replacement of a `terraform-variable` match: the default goes when the variable's name is a secret's and the value
 * one under it (see secretValue: `db_password`, `api_token`; a key's when it looks like a secret), or when the block
 * says `sensitive = true` (any value, also an output's literal `value`); the block and the quotes stay.
 */
const terraformVariableReplace = (m: string, head: string, word: string, name: string, q?: string, quoted?: string, bare?: string, rest?: string): string => {
  const v = quoted ?? bare ?? ""
  const field = /(default|value)[ \t]{0,8}=[ \t]{0,8}$/.exec(head)?.[1]
  if (v.length === 0 || notAValue(v) || (word === "variable") !== (field === "default")) return m
  const sensitive = /(?<![A-Za-z0-9_])sensitive[ \t]{0,8}=[ \t]{0,8}true(?![A-Za-z0-9_])/.test(`${head}${rest ?? ""}`)
  const kind = secretKeyKind(name)
  const named = word === "variable" && kind !== "none" && kind !== "header" && kind !== "pwd" && secretValue(kind, v)
  if (!sensitive && !named) return m
  return quoted !== undefined ? `${head}${q}${marker("terraform-variable")}${q}` : `${head}${marker("terraform-variable")}`
}

/**
 * What `password-prose` reads after a value told before the words (session 26, tester25a F13): `is`, `was` or `as`,
 * maybe `the`/`my`/`our`/`your`/`a` and one or two of a few adjectives (`new`, `root`, `admin`, \u2026), the word (`password`,
 * `passphrase`, `passwd`), and then the noun phrase's end: the text's or the line's end, punctuation, a backslash
 * (an escape of JSON text) or a word that starts something else (`for`, `to`, `here`, `and`, `you`, \u2026). So "\u2026 is the
 * password for prod" and "use \u2026 as the password" go; "\u2026 is the password manager", "\u2026 as the password hash" stay.
 * Also an appositive after a comma, with `the`/`my`/`our`/`your` (tester26a F4): "I set it to \u2026, the root password".
 */
const PASSWORD_AFTER_VALUE = String.raw`(?:(?:\s|\\{1,3}[nrt]){1,8}(?:is|was|as|IS|WAS|AS)(?:\s|\\{1,3}[nrt]){1,8}(?:(?:the|my|our|your|a|THE|MY|OUR|YOUR)(?:\s|\\{1,3}[nrt]){1,8})?|,(?:\s|\\{1,3}[nrt]){1,8}(?:the|my|our|your|THE|MY|OUR|YOUR)(?:\s|\\{1,3}[nrt]){1,8})` +
  String.raw`(?:(?:new|old|current|root|admin|default|initial|temporary|real|actual|same|NEW|ROOT|ADMIN)(?:\s|\\{1,3}[nrt]){1,8}){0,2}(?:[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD))` +
  String.raw`(?=(?:\s|\\{1,3}[nrt])*(?:[.,;:!?)"'${"`"}\n\\]|$)|(?:\s|\\{1,3}[nrt]){1,8}(?:for|of|on|at|in|to|here|now|and|but|so|you|we|I|if|then|that|which|from|FOR|OF|ON|AT|IN|TO)(?![A-Za-z0-9_]))`
/**
 * `password-prose`'s value told before the words ({@link PASSWORD_AFTER_VALUE}), in its own groups: a token at a
 * token's start (after white space, a quote, `(`, `[` or the text's start; 4 to 128 characters up to white space, a
 * quote, a bracket or a backslash, holding a digit or one of `@#$%^&*+=~_`: `Rev1sPassw0rd!`), or a quoted phrase
 * holding a digit or a symbol (the quotes stay, escaped too in JSON text). The match is the value alone; the words after it stay.
 */
const PASSWORD_VALUE_FIRST = String.raw`(?:^|(?<=[\s"'${"`"}(\[]))(?![$\{]|\[REDACTED:)(?=[^\s"'${"`"}<>\\()]{0,127}[0-9@#$%^&*+=~_])[^\s"'${"`"}<>\\()]{4,128}(?=${PASSWORD_AFTER_VALUE})` +
  String.raw`|(?<=(?<valueQuote>["'${"`"}]))(?![\s$\{]|\[REDACTED:)(?=[^"'${"`"}\n\\]{0,127}[0-9@#$%^&*+=~_!])[^"'${"`"}\n\\]{1,128}(?=\\{0,3}\k<valueQuote>${PASSWORD_AFTER_VALUE})`

/**
 * What a German password is for, between the word and its verb (session 27): "Das Passwort f\u00fcr den Server lautet
 * \u2026", "fuer den Server", "Das Kennwort zum Router ist \u2026", "von der Datenbank", "f\u00fcr meinen Account": a preposition,
 * maybe an article or a possessive, then one word (at most 64 characters). Optional.
 */
const GERMAN_OBJECT = String.raw`(?:\s{1,8}(?:f(?:ue|\u00fc)r|F(?:ue|\u00fc)r|zum|zur|vom|von|beim|bei|auf|im|am|an|mit|des|der|den|dem|meines|deines|unseres|seines|ihres` +
  // session 27 (tester27b F1, F2): a complement in French, Spanish, Italian, Portuguese ("Le mot de passe du serveur est
  // \u2026", "La contrase\u00f1a del servidor es \u2026", "A senha do servidor \u00e9 \u2026"): a preposition, then one to three words
  String.raw`|de|du|d'|d\u2019|del|della|dello|delle|dei|degli|di|do|da|dos|das|per|para|pour|sur|su|en|no|na|au|aux|al|pro)` +
  String.raw`(?:\s{0,8}[A-Za-z0-9_.:/@'\u2019\u00c0-\u024f-]{1,40}){1,3}?)?`
/**
 * An adverb after the verb of `password-prose-intl` (session 27, tester27b F1): "Das Passwort ist jetzt \u2026", "lautet nun
 * \u2026", "ist ab sofort \u2026", "est maintenant \u2026", "es ahora \u2026", "\u00e8 ora \u2026", "\u00e9 agora \u2026". Optional.
 */
const INTL_ADVERB = String.raw`(?:\s{1,8}(?:jetzt|nun|neu|wieder|weiterhin|derzeit|aktuell|momentan|noch|immer\s{1,8}noch|ab\s{1,8}sofort|seit\s{1,8}heute|` +
  String.raw`maintenant|d\u00e9sormais|toujours|actuellement|ahora|todav\u00eda|ya|actualmente|ora|adesso|ancora|attualmente|agora|ainda|atualmente))?`
/**
 * Whether a token is a word written with percent-encoded UTF-8 letters or HTML references (session 27, tester27b F7:
 * `f%C3%BCr`, `f&uuml;r`): letters, escapes and references alone, one of them a letter's. The decoded view reads it
 * as the word it is; the token is no password.
 */
const encodedWord = (v: string): boolean =>
  /^(?:[A-Za-z\u00c0-\u024f]|%[0-9A-Fa-f]{2}|&[A-Za-z][A-Za-z0-9]{1,7};)+$/.test(v) && /%[C-Fc-f][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|&[A-Za-z][A-Za-z0-9]{1,7};/.test(v)
/** The words for a password in other languages than English (`password-prose-intl`), each as written, capitalized and in upper case. */
const PASSWORD_WORDS_INTL = [
  "mot de passe", "Mot de passe", "MOT DE PASSE", "passwort", "Passwort", "PASSWORT", "kennwort", "Kennwort", "KENNWORT",
  "contrase\u00f1a", "Contrase\u00f1a", "CONTRASE\u00d1A", "contrasena", "Contrasena", "CONTRASENA", "senha", "Senha", "SENHA",
  "wachtwoord", "Wachtwoord", "WACHTWOORD", "l\u00f6senord", "L\u00f6senord", "L\u00d6SENORD",
  "passord", "Passord", "PASSORD", "adgangskode", "Adgangskode", "ADGANGSKODE", "heslo", "Heslo", "HESLO",
  "\u015fifre", "\u015eifre", "\u015eIFRE",
  // session 26 (tester25a F1): Polish (`has\u0142o`, and written without its letter), Russian and Ukrainian (`\u043f\u0430\u0440\u043e\u043b\u044c`)
  "has\u0142o", "Has\u0142o", "HAS\u0141O", "haslo", "Haslo", "HASLO",
  "\u043f\u0430\u0440\u043e\u043b\u044c", "\u041f\u0430\u0440\u043e\u043b\u044c", "\u041f\u0410\u0420\u041e\u041b\u042c"
].join("|")
/**
 * The words for a password in Japanese (`\u30d1\u30b9\u30ef\u30fc\u30c9`), Chinese (`\u5bc6\u7801`, `\u5bc6\u78bc`, `\u53e3\u4ee4`) and Korean
 * (`\ube44\ubc00\ubc88\ud638`), written without spaces around them: `password-prose-intl` reads them before their
 * particle or verb for "is" ({@link PASSWORD_IS_CJK}) or a colon (session 26, tester25a F1).
 */
const PASSWORD_WORDS_CJK = "\u30d1\u30b9\u30ef\u30fc\u30c9|\u5bc6\u7801|\u5bc6\u78bc|\u53e3\u4ee4|\ube44\ubc00\ubc88\ud638"
/** "is" after {@link PASSWORD_WORDS_CJK}: Japanese `\u306f`, Chinese `\u662f`, `\u4e3a`, `\u70ba`, Korean `\ub294`; or a colon (`:`, a full-width `\uff1a`) or `=`. */
const PASSWORD_IS_CJK = "[:=\uff1a]|\u306f|\u662f|\u4e3a|\u70ba|\ub294"
/**
 * The characters a token `password-prose-intl` takes does not hold (they end it): white space, quotes, `<`, `>`, a
 * backslash, and the letters and punctuation of Chinese, Japanese and Korean (`\u3000`..`\u9fff`, Hangul syllables,
 * full-width forms): "\u30d1\u30b9\u30ef\u30fc\u30c9\u306fJpPw55\u3067\u3059" loses `JpPw55` alone.
 */
const INTL_TOKEN_END = String.raw`\s"'${"`"}<>\\\u3000-\u9fff\uac00-\ud7af\uff00-\uffef`
/** What `password-prose-intl` looks for before it runs (a part of each word, any of its cases). */
const PASSWORD_HINTS_INTL: ReadonlyArray<string> = [
  "de passe", "DE PASSE", "asswort", "ASSWORT", "ennwort", "ENNWORT", "ontrase", "ONTRASE", "enha", "ENHA", "achtwoord", "ACHTWOORD",
  "senord", "SENORD", "assord", "ASSORD", "dgangskode", "DGANGSKODE", "eslo", "ESLO", "ifre", "IFRE",
  // (session 26: characters outside ASCII too, needles.ts)
  "as\u0142o", "AS\u0141O", "aslo", "ASLO", "\u0430\u0440\u043e\u043b\u044c", "\u0410\u0420\u041e\u041b\u042c", "\u30d1\u30b9\u30ef\u30fc\u30c9", "\u5bc6\u7801", "\u5bc6\u78bc",
  "\u53e3\u4ee4", "\ube44\ubc00\ubc88\ud638",
  // Italian's `password \u00e8 \u2026` (the English word, the Italian "is")
  "\u00e8", "\u00c8"
]

/** How many `(head)` then {@link optionValue} alternatives `cli-password`'s pattern has (its quoted `user:password` ones follow). */
const CLI_PASSWORD_HEADS = 11

export const builtinRules: ReadonlyArray<RedactionRule> = [
  {
    // A PEM private key: BEGIN line, base64 body (headers such as Proc-Type/DEK-Info, escaped \n), END line.
    // A block cut short (no END) is redacted to where its body ends; a block's tail without its BEGIN line (the
    // key printed in two pieces, `tail -n 3 key.pem`) from its first base64 body line to its END line (see
    // redactPemTails). A key whose lines carry a prefix (a Markdown quote, `# ` comments, string pieces of code)
    // goes whole too (redactDecoratedPem), and so do PGP's armored private key block and a PuTTY key file's
    // private lines. Read by hand after the pattern (lines): the pattern says where a whole block's match starts.
    // Session 24 (tester24a F4): a body with neither its BEGIN nor its END line, known by its start (KEY_BODY).
    id: "private-key",
    pattern: PEM_BLOCK,
    hints: ["PRIVATE KEY-----", "PRIVATE KEY BLOCK-----", "Private-Lines:", ...KEY_BODY_HINTS],
    apply: (s) => {
      let out = s.includes("-----BEGIN") ? redactDecoratedPem(s) : s
      if (out.includes("-----BEGIN")) {
        PEM_INLINE.lastIndex = 0
        out = out.replace(PEM_INLINE, marker("private-key"))
      }
      PEM_BLOCK.lastIndex = 0
      out = redactPemTails(out.replace(PEM_BLOCK, marker("private-key")))
      if (out.includes("Private-Lines:")) {
        PUTTY_PRIVATE.lastIndex = 0
        out = out.replace(PUTTY_PRIVATE, (_m, head: string) => `${head}${marker("private-key")}`)
      }
      // a body without its BEGIN line, known by how a key's DER or OpenSSH's format starts (session 24, tester24a F4)
      if (KEY_BODY_AT.test(out)) {
        KEY_BODY.lastIndex = 0
        out = out.replace(KEY_BODY, marker("private-key"))
      }
      return out
    },
    byHand: true
  },
  {
    // A key wrapped over lines (tester19 F7): printed by a tool at any width from 16 columns (40, 64, 76…), or wrapped by a terminal, or
    // continued with a shell's `\` (`export KEY=sk-ant-…\` then the rest on the next line). The key's first line is
    // found by its own rule ({@link WRAPPED_KEY_RULES}), the lines after it are its rest when they are made of its
    // characters and the widths agree ({@link wrappedKeyParts}), also when each line carries a prefix (session 23:
    // indentation, a Markdown quote `> `, a line-number gutter: {@link wrapWays}) or blanks before its break (a
    // terminal's padding): the whole becomes that rule's marker, the first line's prefix stays. Read by hand
    // (lines): the pattern says where a match starts (a key right before a line break).
    id: "wrapped-key",
    // (session 34, tester33c F1: a key cut by continuations two times or more, any piece short; an AWS key id too)
    pattern: re(
      String.raw`(?:sk-|gh[pousr]_|github_pat_|eyJ|xox|[srp]k_(?:live|test)_|gl(?:pat|ptt|dt|rt|ft|oas)-|hf_|pypi-|gsk_|xai-|hv[sbr]\.|ya29\.)[A-Za-z0-9_.-]{8,}(?=[ \t]*\\?(?:\r?\n|\\n))` +
        String.raw`|(?:sk-|gh[pousr]_|github_pat_|eyJ|xox|[srp]k_(?:live|test)_|gl(?:pat|ptt|dt|rt|ft|oas)-|hf_|pypi-|gsk_|xai-|hv[sbr]\.|ya29\.|A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA))[A-Za-z0-9_.-]*(?=\\(?:\r?\n|\\\\n|\\\\r\\n))`
    ),
    // (the hints of the rules it reads, once the table exists)
    get hints() {
      return continuedPlans().flatMap((p) => p.hints)
    },
    apply: (s) => redactWrappedKeys(s),
    byHand: true
  },
  {
    // A JSON Web Token: base64url header and payload (both JSON objects: `eyJ`), signature (empty for alg none).
    id: "jwt",
    pattern: re(String.raw`${lead("eyJ", "A-Za-z0-9_-")}[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
    hints: ["eyJ"]
  },
  {
    // Anthropic: sk-ant-api03-…, sk-ant-admin01-…, sk-ant-oat01-…
    // Glued to a word before it (tester19 F7: `tokensk-ant-api03-…`, `1sk-ant-…`, `_sk-ant-…`), a key too when its
    // kind and version follow (`api03-`, `admin01-`, `oat01-`): that shape is no word's tail. Without them `sk-ant-`
    // must start a word (`task-ant-colony-…` is prose).
    id: "anthropic-key",
    pattern: re(`(?:${lead("sk-ant-", "A-Za-z0-9_-")}|sk-ant-(?=(?:api|admin|oat)[0-9]{2}-))${TOKEN}{20,}`),
    hints: ["sk-ant-"]
  },
  {
    // OpenAI: sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk-<48>; a digit somewhere (kebab-case words are not keys).
    id: "openai-key",
    pattern: re(`${lead("sk-", "A-Za-z0-9_-")}(?!ant-)(?=${TOKEN}*[0-9])${TOKEN}{20,}`),
    hints: ["sk-"]
  },
  {
    // GitHub: classic PAT ghp_, OAuth gho_, user-to-server ghu_, server-to-server ghs_, refresh ghr_; fine-grained github_pat_.
    // Glued to a word on either side (tester19 F7: `tokenghp_…`, `1ghp_…`, `_ghp_…`, `ghp_…_old`): still a token.
    // `gh?_` then 36 or more letters and digits (GitHub's own format: 36, its last 6 a CRC32 checksum) and
    // `github_pat_` then 22 or more are no word's part, so no boundary is asked before them; after a `gh?_` token a
    // `_` ends it (`_old` stays), a letter or a digit does not (a longer run is no token).
    id: "github-token",
    pattern: re(`(?:gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])|github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_]))`),
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]
  },
  {
    // AWS access key ids: AKIA (long-term), ASIA (temporary), and the other documented prefixes.
    // Glued to a word (tester19 F7: `idAKIA…`, `key_AKIA…`, `AKIA…x`): a key id too, as its 20 upper-case letters
    // and digits are told from the word around them by case; inside a longer run of upper-case letters and
    // digits (base32, an upper-case hex dump) it is not one, so only those may not touch it.
    id: "aws-access-key",
    pattern: re(`${lead("A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA)", "A-Z0-9")}[A-Z0-9]{16}(?![A-Z0-9])`),
    hints: ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"]
  },
  {
    id: "google-api-key",
    pattern: re(`${lead("AIza", "A-Za-z0-9_-")}[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])`),
    hints: ["AIza"]
  },
  {
    // Slack: bot/user/app/refresh tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-…), app-level xapp-, incoming webhooks.
    // Glued to a word (tester19 F7: `prefix_xoxb-…`) a token too when two runs of digits follow (`xoxb-<team>-<bot>-…`,
    // no word's shape); otherwise `xox?` must start a word.
    id: "slack-token",
    pattern: re(
      String.raw`(?:${lead("xox[abeoprs]", "A-Za-z0-9_-")}|xox[abeoprs](?=-[0-9]{6,}-[0-9]{6,}-))(?:\.[a-z]+)?-[A-Za-z0-9-]{10,}|${lead("xapp-", "A-Za-z0-9_-")}[0-9]-[A-Za-z0-9-]{10,}|https:${SLASHES}hooks\.slack\.com${SLASH}(?:services|workflows|triggers)${SLASH}(?:[A-Za-z0-9_-]|${SLASH}){10,}`
    ),
    hints: ["xox", "xapp-", "hooks.slack.com"]
  },
  {
    // Stripe: secret sk_live_/sk_test_, restricted rk_, publishable pk_, webhook secrets whsec_.
    id: "stripe-key",
    pattern: re(`${lead("[srp]k_(?:live|test)_", "A-Za-z0-9_")}[A-Za-z0-9]{16,}|${lead("whsec_", "A-Za-z0-9_")}[A-Za-z0-9]{24,}`),
    hints: ["_live_", "_test_", "whsec_"]
  },
  {
    // SendGrid API keys: `SG.` then 22 and 43 base64url characters.
    id: "sendgrid-key",
    pattern: re(`${lead("SG\\.", "A-Za-z0-9_.-")}[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])`),
    hints: ["SG."]
  },
  {
    // age (file encryption) identities: `AGE-SECRET-KEY-1` then Bech32 upper case.
    id: "age-secret-key",
    pattern: re(`AGE-SECRET-KEY-1[0-9A-Z]{50,}`),
    hints: ["AGE-SECRET-KEY-1"]
  },
  {
    // A kubeconfig's `client-key-data:` (a base64 PEM private key; YAML or JSON, quotes maybe escaped): the value
    // goes, the name stays (`client-certificate-data`, a certificate, stays).
    id: "kubeconfig-key",
    pattern: re(String.raw`(client-key-data\\?["']?:[ \t]*\\?["']?)[A-Za-z0-9+/]{20,}={0,2}`),
    hints: ["client-key-data"],
    replace: (_m, head) => `${head}${marker("kubeconfig-key")}`
  },
  {
    // Rails' `SECRET_KEY_BASE` (`=` in an environment, `:` in YAML, quoted or not): a value of 30 or more
    // letters and digits goes, the name stays (`$(rails secret)`, `${VAR}` stay).
    id: "secret-key-base",
    pattern: re(String.raw`((?:SECRET_KEY_BASE|secret_key_base)\\?["']?[ \t]*[=:][ \t]*\\?["']?)[A-Za-z0-9]{30,}`),
    hints: ["SECRET_KEY_BASE", "secret_key_base"],
    replace: (_m, head) => `${head}${marker("secret-key-base")}`
  },
  {
    // A password piped to `sudo -S` (`--stdin`: it reads one from stdin) by `echo`: `echo 'pw' | sudo -S …`,
    // `echo pw | sudo -k -S`, `sudo -Sv`, `echo -n "pw" | sudo --stdin`; `echo` starts a word (also after a `\n`
    // escape of JSON text). The match runs to the `-S`, so it holds `sudo` (the hint); echo, the quotes, the pipe and
    // sudo's options stay, also those before `-S` that take an argument (`-u root`, `-g wheel`, `-p ""`, `-h`, `-C`,
    // `-D`, `-r`, `-t`, `-T`, `-U`: sudo(8)) and long ones (`--user=root`). A `-S` after a word that is no option's
    // argument is the command's own (`sudo -u root pacman -S vim`): not matched. `$VAR` references and markers stay.
    id: "sudo-password",
    pattern: re(
      String.raw`(${lead("echo", "A-Za-z0-9_-")}[ \t]{1,8}(?:-[neE]{1,3}[ \t]{1,8})?)(?!\[REDACTED:)(?:(\\?["'])(?![$])([^"'\n\\]{1,128})\2|(?![$"'\\])([^\s"'|\\;&<>()]{1,128}))` +
        String.raw`([ \t]{0,8}\|[ \t]{0,8}sudo(?:[ \t]{1,8}(?:-[A-Za-z]{0,7}[ughpCDrtTU][ \t]{1,8}(?!-)[^\s|;&<>]{1,64}|-[A-Za-z]{1,8}|--[a-z][a-z-]{1,31}(?:=[^\s|;&<>]{1,64})?)){0,8}?[ \t]{1,8}(?:-[A-Za-z]{0,8}S|--stdin))`
    ),
    hints: ["sudo"],
    replace: (_m, head, q, quoted, _bare, tail) => `${head}${quoted !== undefined ? `${q}${marker("sudo-password")}${q}` : marker("sudo-password")}${tail}`
  },
  {
    // PyPI API tokens: `pypi-` then a macaroon in base64url (`AgE…` for pypi.org and test.pypi.org; 60 or more).
    id: "pypi-token",
    pattern: re(`${lead("pypi-", "A-Za-z0-9_-")}Ag[A-Za-z0-9_-]{60,}`),
    hints: ["pypi-Ag"]
  },
  // Vendor tokens known by a fixed prefix (session 19, tester19 F1). Formats from gitleaks' rules
  // (github.com/gitleaks/gitleaks, cmd/generate/config/rules/<vendor>.go) where it has a rule, else trufflehog's
  // detectors (github.com/trufflesecurity/trufflehog, pkg/detectors/<vendor>/<vendor>.go), else as noted; each a word
  // of its own (`lead`: not inside a longer word, an escape before it being a boundary) and ended where its
  // characters end. The scanners pin a body's length, and disagree (Groq: gitleaks 48, trufflehog 52): a vendor's
  // tokens change length across versions, so each rule here takes the whole run of its characters after the prefix
  // (session 20), from a floor well under the scanners' length (so `xai-based`, `gsk_test` stay) to a bounded
  // ceiling, and a run of mixed letters and digits must not be letters of one case only ({@link notOneCase}: a
  // placeholder `xai-xxxx…`, a word).
  {
    // Groq API keys: `gsk_` then letters and digits: 52 (trufflehog pkg/detectors/groq: `\bgsk_[a-zA-Z0-9]{52}\b`), 48
    // (gitleaks groq-api-key: `gsk_[a-zA-Z0-9]{48}`); here 40 to 255.
    id: "groq-key",
    pattern: re(`${lead("gsk_", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9_", "")}[A-Za-z0-9]{40,255}(?![A-Za-z0-9_])`),
    hints: ["gsk_"]
  },
  {
    // xAI (Grok) API keys: `xai-` then 80 letters and digits (gitleaks xai-api-key: `xai-[A-Za-z0-9]{80}`; trufflehog
    // pkg/detectors/xai: `\bxai-[0-9a-zA-Z_]{80}\b`); here 40 to 255 (and `_`).
    id: "xai-key",
    pattern: re(`${lead("xai-", "A-Za-z0-9_-")}${notOneCase("A-Za-z0-9_-", "_")}[A-Za-z0-9_]{40,255}(?![A-Za-z0-9_-])`),
    hints: ["xai-"]
  },
  {
    // HashiCorp Vault tokens: service `hvs.` (gitleaks vault-service-token: `hvs\.[\w-]{90,120}`, its sample "longer
    // than 100 chars") and batch `hvb.` (gitleaks vault-batch-token: `hvb\.[\w-]{138,300}`); a recovery token `hvr.`
    // has the service token's shape (Vault's token docs: the prefixes hvs, hvb, hvr). Here 60 to 1024 after `hvs.`/`hvr.`,
    // 100 to 1024 after `hvb.`. The legacy `s.` + 24 is too short a prefix to tell from words.
    id: "vault-token",
    pattern: re(`${lead("hv[sr]\\.", "A-Za-z0-9_.-")}[A-Za-z0-9_-]{60,1024}(?![A-Za-z0-9_-])|${lead("hvb\\.", "A-Za-z0-9_.-")}[A-Za-z0-9_-]{100,1024}(?![A-Za-z0-9_-])`),
    hints: ["hvs.", "hvr.", "hvb."]
  },
  {
    // A Google OAuth client secret: `GOCSPX-` then 28 base64url characters (client_secret.json since 2021; GitHub
    // secret scanning's `GOCSPX-[A-Za-z0-9_-]{28}`; neither gitleaks nor trufflehog has a rule of its own); here 24 to 64.
    id: "google-oauth-secret",
    pattern: re(`${lead("GOCSPX-", "A-Za-z0-9_-")}[A-Za-z0-9_-]{24,64}(?![A-Za-z0-9_-])`),
    hints: ["GOCSPX-"]
  },
  {
    // A Google OAuth access token: `ya29.` then base64url (and `.`) characters, 20 or more (the common
    // `ya29\.[0-9A-Za-z_-]+` of secret scanners; gitleaks and trufflehog have no bare rule for it).
    id: "google-oauth-token",
    pattern: re(`${lead("ya29\\.", "A-Za-z0-9_.-")}[A-Za-z0-9_-]{20}[A-Za-z0-9_.-]{0,2048}`),
    hints: ["ya29."]
  },
  {
    // DigitalOcean: personal access token `dop_v1_`, OAuth access token `doo_v1_`, refresh token `dor_v1_`, each
    // then 64 lower-case hex digits (gitleaks digitalocean-pat / -access-token / -refresh-token: `dop_v1_[a-f0-9]{64}`);
    // here 40 to 128.
    id: "digitalocean-token",
    pattern: re(`${lead("do[opr]_v1_", "A-Za-z0-9_")}[a-f0-9]{40,128}(?![A-Za-z0-9_])`),
    hints: ["dop_v1_", "doo_v1_", "dor_v1_"]
  },
  {
    // Shopify: access token `shpat_`, custom app `shpca_`, private app `shppa_`, shared secret `shpss_`, each then
    // 32 hex digits (gitleaks shopify-access-token, -custom-access-token, -private-app-access-token, -shared-secret:
    // `shpat_[a-fA-F0-9]{32}`); here 24 to 64.
    id: "shopify-token",
    pattern: re(`${lead("shp(?:at|ca|pa|ss)_", "A-Za-z0-9_")}[a-fA-F0-9]{24,64}(?![A-Za-z0-9_])`),
    hints: ["shpat_", "shpca_", "shppa_", "shpss_"]
  },
  {
    // Sentry: user auth token `sntryu_` then 64 hex digits (gitleaks sentry-user-token: `sntryu_[a-f0-9]{64}`; here 40
    // to 128); organization token `sntrys_eyJ…` (a base64 JSON payload), `_`, then 43 base64 characters (gitleaks
    // sentry-org-token: `sntrys_eyJpYXQiO…={0,2}_[a-zA-Z0-9+/]{43}`; Sentry's RFC 0091): `sntrys_eyJ` is no word's
    // start, so the payload and whatever run of base64 follows its `_` go (none too: a token cut after its payload).
    id: "sentry-token",
    pattern: re(`${lead("sntryu_", "A-Za-z0-9_")}[a-f0-9]{40,128}(?![A-Za-z0-9_])|${lead("sntrys_", "A-Za-z0-9_")}eyJ[A-Za-z0-9+/]{10,1000}={0,2}(?:_[A-Za-z0-9+/]{1,256}={0,2})?(?![A-Za-z0-9+/=_])`),
    hints: ["sntryu_", "sntrys_eyJ"]
  },
  {
    // A Discord bot token: the bot's id in base64 (`MTE…`: a snowflake of 17 to 20 digits, so it starts with `M`,
    // `N` or `O` and its second character is one of `D`, `T`, `j`, `z`), `.`, 6 base64url characters (a time),
    // `.`, 27 to 64 (an HMAC) (trufflehog pkg/detectors/discordbottoken: `[A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}`
    // after a `discord` name; bare here, so the first part must decode to an id (discordId): other dotted base64
    // words stay; 23 to 27 characters, as ids of 17 to 20 digits give, and a longer HMAC, as newer tokens carry,
    // up to 64).
    id: "discord-bot-token",
    pattern: re(`${start("A-Za-z0-9_.-")}([MNO][DTjz][A-Za-z0-9_-]{21,25})\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,64}(?![A-Za-z0-9_.-])`),
    hints: ["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"],
    replace: (m: string, id: string) => (discordId(id) ? marker("discord-bot-token") : m)
  },
  {
    // A Telegram bot token: the bot's id (5 to 16 digits), `:`, then `AA` and 32 or 33 base64url characters (gitleaks
    // telegram-bot-api-token: `[0-9]{5,16}:A[a-z0-9_\-]{34}`, case-insensitive, after a `telegram` name; bare here,
    // so the id is a run of digits of its own and the secret starts with `AA`, as every bot token's does).
    id: "telegram-bot-token",
    // (also in the Bot API's URL: `https://api.telegram.org/bot<token>/getMe`)
    // (33 after `AA`; 32 too: the Bot API's own documented example, `110201543:AAHdqTcv…`, has 34 characters after `:`;
    // here 28 to 64, the whole run)
    pattern: re(`(?:${start("A-Za-z0-9_:.-")}|(?<=/bot))[0-9]{5,16}:AA[A-Za-z0-9_-]{28,64}(?![A-Za-z0-9_-])`),
    hints: [":AA"]
  },
  {
    // Linear API keys: `lin_api_` then 40 letters and digits (gitleaks linear-api-key: `lin_api_(?i)[a-z0-9]{40}`); here
    // 32 to 128.
    id: "linear-api-key",
    pattern: re(`${lead("lin_api_", "A-Za-z0-9_")}${notOneCase("A-Za-z0-9_", "")}[A-Za-z0-9]{32,128}(?![A-Za-z0-9_])`),
    hints: ["lin_api_"]
  },
  {
    // Postman API keys: `PMAK-`, 24 hex digits, `-`, 34 hex digits (gitleaks postman-api-token:
    // `PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34}`); here 20 to 48, `-`, 28 to 64.
    id: "postman-api-key",
    pattern: re(`${lead("PMAK-", "A-Za-z0-9_-")}[a-fA-F0-9]{20,48}-[a-fA-F0-9]{28,64}(?![A-Za-z0-9_-])`),
    hints: ["PMAK-"]
  },
  {
    // Grafana: service account token `glsa_`, 32 letters and digits, `_`, 8 hex digits (gitleaks
    // grafana-service-account-token: `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`; here 24 to 64, `_`, 6 to 16); Grafana
    // Cloud token `glc_` then 32 to 400 base64 characters (gitleaks grafana-cloud-api-token).
    id: "grafana-token",
    pattern: re(`${lead("glsa_", "A-Za-z0-9_")}[A-Za-z0-9]{24,64}_[A-Fa-f0-9]{6,16}(?![A-Za-z0-9_])|${lead("glc_", "A-Za-z0-9_")}[A-Za-z0-9+/]{32,400}={0,3}(?![A-Za-z0-9+/=_])`),
    hints: ["glsa_", "glc_"]
  },
  {
    // Databricks personal access tokens: `dapi` then 32 lower-case hex digits, maybe `-` and a digit (gitleaks
    // databricks-api-token: `dapi[a-f0-9]{32}(?:-\d)?`); here 28 to 64.
    id: "databricks-token",
    pattern: re(`${lead("dapi", "A-Za-z0-9_")}[a-f0-9]{28,64}(?:-[0-9])?(?![A-Za-z0-9_-])`),
    hints: ["dapi"]
  },
  {
    // A token whose characters are written as escapes: JSON's `\u0073k-proj-…` (one or two backslashes: JSON text
    // in a string) and HTML's `ghp&#95;…`, `&#x5f;`, `&lowbar;`. A word of token characters (letters, digits, `_`,
    // `.`, `-`) holding such an escape of one of them is decoded, and when a token rule above
    // ({@link ESCAPED_TOKEN_RULES}) finds a token in the decoded word, the whole word goes; else it stays as
    // written (`caf\u00e9`, `snake&#95;case`, `\u0073k-short`).
    id: "escaped-token",
    pattern: ESCAPED_WORD,
    hints: ["\\u00", "\\x", "\\u{", "\\U000000", "%", "&#", "&lowbar;", "&UnderBar;", "&period;"],
    replace: escapedWordReplace,
    // The pattern's matches, found from each escape (a literal-led search) rather than by trying the pattern's
    // lookbehind at every character of a long text that holds one `\u00e9`.
    apply: (s) => {
      ESCAPE_AT.lastIndex = 0
      ESCAPED_WORD.lastIndex = 0
      let out = ""
      let pos = 0
      for (;;) {
        ESCAPE_AT.lastIndex = pos
        const e = ESCAPE_AT.exec(s)
        if (e === null) break
        // no match starts before the word around the first escape (see the rule's test: the same as the pattern)
        let st = e.index
        while (st > pos && WORD_CODE[s.charCodeAt(st - 1)] === 1) st--
        ESCAPED_WORD.lastIndex = st
        const m = ESCAPED_WORD.exec(s)
        if (m === null) break
        out += s.slice(pos, m.index) + escapedWordReplace(m[0])
        pos = m.index + m[0].length
      }
      return pos === 0 ? s : out + s.slice(pos)
    }
  },
  // session 20 (tester20b F3): more vendor tokens known by a prefix (see the table)
  ...VENDOR_TOKEN_TABLE_20,
  // session 21: the vendor tokens session 20 left out (see the table)
  ...VENDOR_TOKEN_TABLE_21,
  // session 35 (tester35a F9): gitleaks' prefixed rules still missing, and Google's refresh token (see the table)
  ...VENDOR_TOKEN_TABLE_35,
  {
    // npm: granular/automation tokens npm_…, and `_authToken=` / `_auth=` / `_password=` lines of an .npmrc.
    id: "npm-token",
    pattern: re(
      String.raw`${lead("npm_", "A-Za-z0-9_")}[A-Za-z0-9]{36}(?![A-Za-z0-9])|(?<=(?:^|[\s:]|${ESCAPE_BEFORE})_(?:authToken|auth|password)=)(?![$\\])[^\s"'${"`"}\\]+`,
      "gm"
    ),
    hints: ["npm_", "_auth", "_password"]
  },
  {
    // GitLab: personal/project/group access tokens glpat-, pipeline trigger glptt-, deploy gldt-, runner glrt-,
    // feed glft-, OAuth application secrets gloas- (20 or more token characters; a routable token's `.01.…` tail too).
    id: "gitlab-token",
    pattern: re(`${lead("gl(?:pat|ptt|dt|rt|ft|oas)-", "A-Za-z0-9_-")}${TOKEN}{20,255}(?:\\.[0-9a-z]{2}\\.[0-9a-z]{6,12})?(?![A-Za-z0-9_-])`),
    hints: ["glpat-", "glptt-", "gldt-", "glrt-", "glft-", "gloas-"]
  },
  {
    // Hugging Face user access tokens: hf_ and 30 or more letters and digits, an upper-case letter or a digit
    // among them (snake_case names such as hf_model_name hold `_`, and runs of lower-case letters alone are words).
    id: "huggingface-token",
    pattern: re(`${lead("hf_", "A-Za-z0-9_")}(?=[a-z0-9]{0,255}[A-Z]|[a-z]{0,255}[0-9])[A-Za-z0-9]{30,255}(?![A-Za-z0-9_])`),
    hints: ["hf_"]
  },
  {
    // A credential in a URL's query string (or fragment, its first parameter too: `#id_token=…`, or a form
    // body): `?access_token=…`, `&token=…`,
    // the names of QUERY_SECRET_NAMES in any case, and `key` and `auth` (Firebase) when the value looks like a
    // secret (16 characters or more, a digit among them, not a UUID: QUERY_UUID_VALUE); a lower-case `access_token=` anywhere. The name and `=` stay; the value goes,
    // up to `&`, `#`, white space, a quote, a backslash, or a `)` or `]` (a Markdown link's or a bracket's close:
    // query values are percent-encoded, so these close the text around the URL, not the secret). `$VAR` references and markers of earlier rules stay.
    id: "url-query-secret",
    pattern: re(
      String.raw`((?:[?&#]|\\u0026)(?:${QUERY_SECRET_NAMES})(?:=|${ESC_EQ})|;(?:${QUERY_SECRET_NAMES_AFTER_SEMICOLON})(?:=|${ESC_EQ})|(?:[?&;#]|\\u0026)(?:${QUERY_KEY_NAMES})(?:=|${ESC_EQ})(?!${QUERY_UUID_VALUE})(?=(?:[^&#\s"'${"`"}<>\\)\]]|\\{1,3}/){16})(?=[^&#\s"'${"`"}<>\\)\]0-9]{0,63}[0-9])|${lead("access_token=", "A-Za-z0-9_")})(?!\[REDACTED:)(?![$\{])(?:[^&#\s"'${"`"}<>\\)\]]|\\{1,3}/){1,2048}`
    ),
    // (the names' last letters and `=`, as they are written: lower case, capitalised, upper case; and the escaped `=`)
    hints: ["ken=", "Ken=", "KEN=", "key=", "Key=", "KEY=", "ret=", "RET=", "wd=", "WD=", "ord=", "ORD=", "sig=", "Sig=", "SIG=", "ure=", "URE=", "jwt=", "JWT=", "uth=", "UTH=", ...ESC_EQ_HINTS],
    replace: (_m, head) => `${head}${marker("url-query-secret")}`
  },
  {
    // The password of scheme://user:password@host (databases, brokers, HTTP basic auth); scheme and user stay.
    // The same password restated by a later event of its session goes too (urlPasswords, noted by the walk: Redactor.eventNoting).
    // The user info ends at the authority's last "@" (as browsers and libpq read it), so a password holding
    // "@" goes whole; the authority ends at "/", "?", "#" or a space, so `host:443/@scope` is no password.
    // Session 36 (tester35a F6): also `user:password@host` with no scheme (`deploy:…@10.0.0.5`, as lftp, rsync's
    // daemon and many CLIs take it) and a scheme-relative URL (`//user:…@host/path`), only where the password has a
    // secret's shape (HOST_PASSWORD_SOURCE), after the `scheme://` ones (redactUrlCredentials: two passes, each where its
    // hints are; the pattern says where a match starts). git's `git@github.com:org/repo`, `user@host`, `a:b@c`,
    // `localhost:8080@x`, a time (`10:30@place`) and an image's digest (`node:20@sha256:…`) stay.
    id: "url-credentials",
    pattern: re(`${URL_CREDENTIALS_SOURCE}|${HOST_PASSWORD_SOURCE}`),
    hints: ["://", ":\\/", ":\\\\", "@"],
    apply: (s) => redactUrlCredentials(s),
    byHand: true
  },
  {
    // A password given to a command as one of its short options, where the command says what the option is:
    // mysql/mariadb `-pSECRET` (attached; `-p` alone prompts, and `-p db` names a database), `sshpass -p`, PsExec's and PAExec's `-p` (session 23),
    // `<tool> login … -p` (docker, podman, helm, oc, cf, az), `redis-cli -a`, `sqlcmd`/`bcp -P`, the mongo tools'
    // `-p`, and curl's `-u`/`--user`/`-U`/`--proxy-user user:SECRET` (the user stays; `-u user` alone is no secret; a user holds no `[`, so a marker after `-U` is never read as one: `-U alice%[REDACTED:user-password]`).
    // The command is looked for earlier in the same shell command (no newline, `;`, `&`, `|` between), at most
    // 300 characters back. The option, the user and any quotes stay.
    id: "cli-password",
    pattern: re(
      [
        String.raw`(${optionOf("(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)", "-p")})(?=[^\s-])`,
        String.raw`(${optionOf(String.raw`(?:sshpass|psexec|PsExec|PSEXEC|paexec|PAExec|PAEXEC)(?:64)?(?:\.exe)?`, "-p")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("login", "-p", "")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("redis-cli", "-a")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("(?:sqlcmd|bcp|osql)", "-P")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop)", "-p")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`((?:${optionOf("curl", "-u|--user|-U|--proxy-user")}|${HTTPIE_AUTH})(?:[ \t]+|=)?(?![$])[^\s:"'\\[]{0,256}:)`,
        // session 24 (tester24a F6): lftp's `-u user,password` (`lftp -e 'open -u user,password host'` too), PuTTY's
        // `-pw` (plink, pscp, psftp), mosquitto's `-P`, ncftp's `-p`, rdesktop's `-p` (`-p -` prompts: no value)
        String.raw`(${optionOf("lftp", "-u|--user")}(?:[ \t]+|=)?(?![$])[^\s,"'\\[]{0,256},)`,
        String.raw`(${optionOf(String.raw`(?:plink|pscp|psftp|PLINK|PSCP|PSFTP)(?:\.exe)?`, "-pw")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("(?:mosquitto_pub|mosquitto_sub|mosquitto_rr)", "-P")}(?:${NAME_CONT}|[ \t]*))`,
        String.raw`(${optionOf("(?:ncftp|ncftpget|ncftpput|ncftpls|rdesktop)", "-p")}(?:${NAME_CONT}|[ \t]*))`
      ].map((head, a) => `${head}${optionValue(a * 4 + 2)}`).join("|") +
        // curl's (and HTTPie's `-a`) `"user:password"` and lftp's `"user,password"` quoted whole (also `\"…\"` in JSON text): the
        // quote and the user stay, the whole password goes (spaces and all) up to the closing quote.
        // (session 37, tester36b F7: the user is read in a lookahead and the value group holds user and password, so the
        // value starts right after its opening quote and reads that quote's escapes, quotedValue: `"user:ab\"cd"`,
        // `'user:ab'\''cd'` go whole; a shell continuation may come before the quote, as before a bare one)
        String.raw`|((?:${optionOf("curl", "-u|--user|-U|--proxy-user")}|${HTTPIE_AUTH})(?:${NAME_CONT}|[ \t]+|=)?)(\\{0,3}["'])(?![$])(?=([^\s:"'\\]{0,256}:))(${quotedValue(CLI_PASSWORD_HEADS * 4 + 2)})${"\\"}${CLI_PASSWORD_HEADS * 4 + 2}` +
        String.raw`|(${optionOf("lftp", "-u|--user")}(?:${NAME_CONT}|[ \t]+|=)?)(\\{0,3}["'])(?![$])(?=([^\s,"'\\]{0,256},))(${quotedValue(CLI_PASSWORD_HEADS * 4 + 6)})${"\\"}${CLI_PASSWORD_HEADS * 4 + 6}`
    ),
    hints: [
      "mysql", "mariadb", "sshpass", "psexec", "PsExec", "PSEXEC", "paexec", "PAExec", "PAEXEC", "login", "redis-cli", "sqlcmd", "bcp", "osql", "mongo", "curl", "http",
      "lftp", "plink", "pscp", "psftp", "PLINK", "PSCP", "PSFTP", "mosquitto_", "ncftp", "rdesktop"
    ],
    // Every option above: -p, -a, -P, -u, --user, -U, --proxy-user, -pw.
    gate: ["-p", "-a", "-P", "-u", "-U"],
    replace: (m: string, ...groups: Array<string>): string => {
      for (const at of [CLI_PASSWORD_HEADS, CLI_PASSWORD_HEADS + 1]) {
        // (the value holds the user, its lookahead's group, then the password)
        const [head, q, user, value] = groups.slice(at * 4, at * 4 + 4)
        if (head !== undefined && value !== undefined) return value.length > user.length ? `${head}${q}${user}${marker("cli-password")}${q}` : m
      }
      return optionValueReplace("cli-password", CLI_PASSWORD_HEADS)(m, ...groups)
    }
  },
  {
    // A secret given as a named option, whatever the command: `--password`, `--passwd`, `--pass`, `--pwd`,
    // `--token`, `--secret`, `--api-key`, `--access-key`, `--secret-key`, `--auth-token`, `--client-secret`,
    // also with words before (`--http-password`, `--npm-token`) and with one dash (`-token=`, go-style flags).
    // `=VALUE` takes any value; a value after a space must look like a secret (a digit or punctuation in it,
    // or 16 characters or more, or any quoted value: `--password "two words here"`, taken whole),
    // so prose ("use the --token flag") stays; a letters-only word followed by sentence punctuation
    // ("the --token flag, then", "--password option.", "--secret value;") is prose too, as without it. `$VAR` references, a following
    // option and `--password-stdin` / `--token-file` / `--no-password` are not values. An argument array's next
    // element (`"--password", "…"`, JSON or Python text: `["mysql", "--password", "x"]`) is the value too. A lone
    // `=` after a space is no value (session 25: `-db_password = …`, a diff's removed line, is `secret-line`'s).
    // `=` then a continuation and an indented value that looks like a secret (session 36, tester35a F8: `--token=\`
    // then a tab and the token; a shell reads the value as a word of its own, a title on one line as the option's)
    // goes too: fail closed. Session 37 (tester36b F3): so does a quoted value there (`--password=\` then a tab or
    // blanks and `"…"`, or no indentation: the shell joins it to the `=`), whatever it holds, as a quoted value after a space.
    id: "cli-secret-option",
    pattern: re(
      String.raw`(?<=^|[\s"'(;&|=]|${ESCAPE_BEFORE})(--?(?!no-)(?:[A-Za-z0-9]{1,40}[-_]){0,6}(?:password|passwd|pass|pwd|token|secret|api[-_]?key|apikey|access[-_]?key|secret[-_]?key|auth[-_]?token|client[-_]?secret)(?:=(?:${NAME_CONT}(?:(?<=[ \t]|\\t)(?=[^\s"'\\$-][^\s"'\\]*[0-9.,:;!@#%^&*+=/~_]|[^\s"'\\$-][^\s"'\\]{15})|(?=\\{0,3}["'](?![$\s"'\\]))))?|\\?["'][ \t]*,[ \t]*(?=\\?["'](?![$\s"'\\-]))|(?:${NAME_CONT}|[ \t]+)(?!=[ \t\r\n])(?=(?![A-Za-z]{1,15}[.,:;!?]{1,8}(?:[\s"'\\)\]]|$))(?:\\?["'])?[^\s"'\\]*[0-9.,:;!@#%^&*+=/~_-]|(?:\\?["'])?[^\s"'\\]{16}|\\?["'](?![$\s"'\\])${quotedText(String.raw`[^"'\\\n]`)}\\?["']|"""(?![$\s"'\\])|'''(?![$\s"'\\])|\\?["']${LINE_BREAK}[ \t]{0,40}[^\s"'\\$])))${optionValue(2)}`
    ),
    hints: ["pass", "pwd", "token", "secret", "key"],
    // The key word always follows the option's `-` or a `-`/`_` between its words (`--password`, `--npm-token`, `--api_key`).
    gate: ["-pass", "_pass", "-pwd", "_pwd", "-token", "_token", "-secret", "_secret", "-api", "_api", "-access", "_access", "-auth", "_auth", "-client", "_client"],
    replace: optionValueReplace("cli-secret-option", 1)
  },
  {
    // A password in SQL (tester22b F5): `CREATE USER|ALTER USER|GRANT … IDENTIFIED BY '…'` (MySQL, MariaDB, Oracle;
    // `IDENTIFIED WITH <plugin> BY '…'`, `BY PASSWORD '<hash>'`), Oracle's unquoted `IDENTIFIED BY <word>` (a word
    // that ends the statement, or holds a digit), `SET PASSWORD [FOR …] = '…'`, `PASSWORD('…')`. PostgreSQL's `WITH
    // PASSWORD '…'` is `credential-prose`'s. The keywords and quotes stay; prose ("use IDENTIFIED BY to set it"), bind
    // variables (`:pw`, `&pw`), `$VAR`, `%VAR%` and placeholders (`'<password>'`, `'password'`) stay. See SQL_PASSWORD.
    id: "sql-password",
    pattern: SQL_PASSWORD,
    hints: SQL_PASSWORD_HINTS,
    // (few needles for the one-pass prefilter, each rule's needles being checked for every text it passes; the hints
    // are then confirmed by a pass of their own)
    gate: cases(["identified", "password"]),
    replace: (m: string, ...g: Array<string>) => sqlPasswordReplace(m, ...g)
  },
  {
    // A password a command takes as an option it names (tester22b F5): keytool's and jarsigner's `-storepass`,
    // `-keypass`, ssh-keygen's `-N`/`-P`, zip's and unzip's `-P`, 7-Zip's `-p…`, the OpenLDAP tools' `-w`, FreeRDP's
    // `/p:`, `net use … /user:<user> <password>`; session 23: RAR's `-p…`/`-hp…`, OpenSSL's `pass:…` and `-k`,
    // `net use \\host\share <password>`, `net user <name> <password>`, `cmdkey /pass:`, `wmic /password:`, `schtasks /rp`,
    // (Samba's `-U user%…` is user-password's; see COMMAND_PASSWORD_HEADS). The command, the option and the quotes stay; a bare word of
    // letters only where prose could hold it ("zip -P is insecure": no option or file after it), `$VAR`, `%VAR%`,
    // `<password>` and `*` stay (see commandPasswordReplace).
    id: "command-password",
    pattern: re(COMMAND_PASSWORD_HEADS.map(([head], a) => `${head}${optionValue(a * 4 + 2)}`).join("|")),
    hints: [
      "keytool", "jarsigner", "ssh-keygen", "zip", "7z", "ldap", "freerdp", ...cases(["net"]), "rar", "RAR", "Rar", "openssl",
      ...cases(["cmdkey", "wmic", "schtasks"])
    ],
    // every option above: -storepass, -keypass (and their -src, -dest forms), -N, -P, -p, -w, /p:, /user: (any case), /u:,
    // --password, -hp, -pass (-passin, -passout), -k, `net`, a space or a tab and `u` (its cases: `net use \\host\share …`,
    // `net user`; not the UNC path's `\\`, common in JSON text, nor `net ` alone, anchored at the common pair `ne`), /pass:,
    // /password:, /rp, -U, --user
    gate: [
      "storepass", "keypass", "-N", "-P", "-p", "-w", "/p:", ...cases(["user"]).map((u) => `/${u}:`), "/u:", "/U:", "-hp", "-k",
      ...cases(["net"]).flatMap((n) => [" ", "\t"].flatMap((sp) => [`${n}${sp}u`, `${n}${sp}U`])), ...cases(["pass", "password"]).map((w) => `/${w}:`), "/rp", "/RP", "/Rp", "-U", "--user"
    ],
    replace: (m: string, ...args: Array<unknown>) => commandPasswordReplace(m, ...args)
  },
  {
    // Oracle's `sqlplus user/password[@connect]` (tester22b F5; `sqlplus -s app/…@//db:1521/orcl`, `app/"p@ss"@db`):
    // the password goes, the command, the user and the connect identifier stay; `sqlplus / as sysdba`, `sqlplus
    // @script.sql`, `$VAR`, `%VAR%`, `<password>` and `user/password` (a placeholder word) stay. See CONNECT_PASSWORD.
    id: "connect-password",
    pattern: CONNECT_PASSWORD,
    hints: ["sqlplus"],
    replace: (m: string, head: string, _uq: string, q?: string, quoted?: string, bare?: string) => {
      const v = quoted ?? bare ?? ""
      if (placeholderValue(v)) return m
      return quoted !== undefined ? `${head}${q}${marker("connect-password")}${q}` : `${head}${marker("connect-password")}`
    }
  },
  {
    // A crypt(3) password hash (session 26, tester25a F4: a `/etc/shadow` line `root:$6$salt$hash:19000:…`, an
    // htpasswd file's `bob:$apr1$…`, a bcrypt `$2b$12$…` in a database row, Argon2): offline-crackable, so the whole
    // hash goes; the user name and the other fields stay. A `$6` or `$5` alone (a shell variable, a price) stays. See
    // PASSWORD_HASH_SOURCE.
    id: "password-hash",
    pattern: re(PASSWORD_HASH_SOURCE),
    hints: PASSWORD_HASH_HINTS
  },
  {
    // Apache's `htpasswd -b [-c] file user password`, `htpasswd -nb user password` (tester22b F5): the password goes,
    // the options, the file and the user stay; without `-b` (the password prompted) nothing is a password. See
    // HTPASSWD_PASSWORD and htpasswdReplace.
    id: "htpasswd-password",
    pattern: HTPASSWD_PASSWORD,
    hints: ["htpasswd"],
    replace: (m: string, head: string, options: string, words: string, ...rest: Array<unknown>) => htpasswdReplace(m, head, options, words, endsAfter(m, rest))
  },
  {
    // PowerShell's `ConvertTo-SecureString "…" -AsPlainText -Force` (tester22b F5): the literal is a password in
    // clear; it goes when `-AsPlainText` is in the same statement. The cmdlet, its switches and the quotes stay; a
    // variable (`$plain`), a sub-expression and a placeholder stay. See SECURESTRING_PASSWORD.
    id: "securestring-password",
    pattern: SECURESTRING_PASSWORD,
    hints: ["ConvertTo-SecureString", "convertto-securestring", "Convertto-SecureString", "CONVERTTO-SECURESTRING"],
    replace: (m: string, head: string, q?: string, quoted?: string, bare?: string, rest?: string) => {
      const v = quoted ?? bare ?? ""
      if (!/-asplaintext/i.test(`${head}${rest ?? ""}`) || placeholderValue(v)) return m
      return quoted !== undefined ? `${head}${q}${marker("securestring-password")}${q}` : `${head}${marker("securestring-password")}`
    }
  },
  {
    // NAME_KEY=…, NAME_TOKEN=…, NAME_SECRET=…, [NAME]PASSWORD=… / Password=… (env files, shells, connection
    // strings), plurals too (`API_KEYS=`, `ACCESS_TOKENS=`; a count such as `MAX_TOKENS=4096` stays), and in a
    // connection string `PWD=` after `;` or a quote (ODBC; a shell's `PWD=/srv` stays) and `Password = …` with
    // spaces around `=` after `;`: the value goes, the name and `=` (and quotes) stay. Shell references ($X, ${X}) are not secrets.
    // Also the variables a tool documents as its password (session 24, tester24a F6): `SSHPASS=` (`sshpass -e`) and
    // `REDISCLI_AUTH=` (redis-cli); `PGPASSWORD=`, `MYSQL_PWD=`, `RSYNC_PASSWORD=`, `LFTP_PASSWORD=` are names above.
    // An unquoted value runs to white space, a quote, `;`, `|`, `<`, `>`, `)`, `,` or a backslash escape; an `&`
    // ends it only as a shell operator (before white space, another `&` or the end: `X=1 && make`, `X=1& job`)
    // or before the next parameter of a form body (`&name=`): inside a word it is the password's own character
    // (`PASSWORD=Tr0ub4dor&3…` goes whole; cut at the `&`, the password's tail would stay in clear).
    id: "secret-assignment",
    pattern: re(
      String.raw`${start("A-Za-z0-9_")}((?:[A-Z0-9_]*_)?(?:KEYS|KEY|TOKENS|TOKEN|SECRETS|SECRET)|[A-Z0-9_]*(?:PASSWORDS|PASSWORD|PASSWD|PASSPHRASE)|[A-Z0-9_]*_(?:PWD|PASS)|SSHPASS|REDISCLI_AUTH|[Pp]asswords?|[Pp]asswd|[Pp]wd|(?<=[;"'][ \t]{0,8})PWD)(=(?:${NAME_CONT}(?=\\?["'](?![$[])))?|${ESC_EQ}|(?<=;[ \t]{0,8}(?:[Pp]assword|PASSWORD|[Pp]wd|PWD))[ \t]{1,8}=[ \t]{0,8})` +
        // "value" (also \"value\" in JSON text), 'value' (a quoted value runs to its closing quote over up to
        // QUOTED_LINES' line breaks: tester34c F2), or a bare value up to a space, quote or shell operator
        // (a bare value runs on over a shell's line continuation inside it or right after the `=`, when the next line
        // goes on with the value's characters: `\` and a line break are no word's end to a shell; session 34, F2)
        // (session 37, tester36b F3: a continuation and indentation after the `=` before a quoted value, which a shell
        // reads as a word of its own: fail closed, as `secret-field` and `cli-secret-option` do)
        String.raw`(?:(\\?")(?![$[])(${breakLedValue(3)}|${quotedValue(3, "+", true)})${closedOrOpen(String.raw`\3`)}|'(?![$[])(${breakLedValue(0, "'")}|${openQuoted(SINGLE_QUOTED_CHAR, "'", "+")})${closedOrOpen("'")}|(?:(?=${VALUE_CONT}(?![$["'\\]))|(?![$["'\\]))((?:[^\s"'${"`"};&|<>),\\]|&(?![\s&]|$|[A-Za-z0-9_.-]{1,64}=)|${VALUE_SEMICOLON}|${VALUE_CONT}|\\(?![nrt"]|${QUOTE_ESCAPE}))+)` +
        // a value in escaped quotes (session 20: `PASSWORD\u003d\u0022…\u0022`, .NET's and Gson's JSON)
        String.raw`|(${ESC_QUOTE})(?![$[])((?:(?!\7)[^\n]){1,512})\7)`
    ),
    hints: [...ESC_EQ_HINTS, "KEY=", "TOKEN=", "SECRET=", "KEYS=", "TOKENS=", "SECRETS=", "PASSWORD=", "PASSWORDS=", "PASSWD=", "PASSPHRASE=", "_PWD=", "_PASS=", "SSHPASS=", "REDISCLI_AUTH=", "assword=", "asswords=", "asswd=", "wd=", "PWD=", "assword ", "ASSWORD ", "wd ", "WD "],
    // a count of tokens is no secret: `MAX_TOKENS=4096`, `TOKENS=1200`
    replace: (m, name, eq, q, dq, sq, bare, eq7, eqv) =>
      DATA_KEY.test(name.replace(/_/g, "").toLowerCase()) ? m : name.endsWith("TOKENS") && (COUNT_TOKENS.test(name.replace(/_/g, "").toLowerCase()) || /^[0-9]+$/.test(bare ?? dq ?? sq ?? eqv ?? "")) ? m : `${name}${eq}${
        dq !== undefined ? `${q}${marker("secret-assignment")}${q}` : sq !== undefined ? `'${marker("secret-assignment")}'` : eqv !== undefined ? `${eq7}${marker("secret-assignment")}${eq7}` : marker("secret-assignment")
      }`
  },
  {
    // An HTTP credential in a header (curl -H, logs): `Bearer <token>` / `Basic <credentials>`; the scheme stays.
    // The token holds a digit (so prose such as "Bearer tokens" or "Basic authentication" stays). GitHub's
    // `Authorization: token <token>` too (the header's name, then `token`).
    id: "bearer-token",
    pattern: re(String.raw`(\b(?:Bearer|Basic)(?: |${NAME_CONT})|(?<=[Aa]uthorization\\?["']?:(?:[ \t]{0,8}|${NAME_CONT}))[Tt]oken(?: |${NAME_CONT}))(?=${runsOn("[A-Za-z0-9._~+/=-]")}*[0-9])${runsOn("[A-Za-z0-9._~+/-]")}{8,}=*`),
    hints: ["Bearer ", "Basic ", "uthorization"],
    replace: (_m, scheme) => `${scheme}${marker("bearer-token")}`
  },
  {
    // Azure connection strings (storage, Service Bus, Event Hubs): the base64 value of `AccountKey=` /
    // `SharedAccessKey=` (16 characters or more; `SharedAccessKeyName=` is a name, not a key), and a SAS whose
    // first parameter is `sig=` (`SharedAccessSignature=sig=…`; a later `&sig=` is `url-query-secret`'s). The
    // name and `=` stay; `$VAR` references, placeholders (`<your key>`) and short words stay.
    id: "azure-storage-key",
    pattern: re(
      String.raw`(${lead("(?:AccountKey|SharedAccessKey)=", "A-Za-z0-9_")})[A-Za-z0-9+/]{16,1024}={0,2}(?![A-Za-z0-9+/=])|(${lead("SharedAccessSignature=sig=", "A-Za-z0-9_")})(?!\[REDACTED:)[^&;\s"'${"`"}<>\\]{1,2048}`
    ),
    hints: ["AccountKey=", "SharedAccessKey=", "SharedAccessSignature=sig="],
    replace: (_m, a, b) => `${a ?? b}${marker("azure-storage-key")}`
  },
  {
    // A Twilio API key SID: `SK` then exactly 32 lower-case hex digits, a digit and a letter among them, as a
    // word of its own (`TASK…`, 31 or 33 digits, upper-case hex, a SHA stay). Told from other hex by the
    // prefix, the exact length and the case together: a hex digest is not written after `SK`.
    id: "twilio-api-key",
    pattern: re(`${lead("SK", "A-Za-z0-9_")}(?=[a-f]{0,31}[0-9])(?=[0-9]{0,31}[a-f])[0-9a-f]{32}(?![A-Za-z0-9_])`),
    hints: ["SK"]
  },
  {
    // A .netrc entry's password: `machine <host> [login <user>] [account …] [port …] password <secret>` (on one
    // line or over several, also in JSON text with `\n` escapes) and `default login … password …` at a line's
    // start. The machine, the login and the word `password` stay; a `$VAR` reference stays. "the machine learning
    // model has a password field" stays (after `machine` and its word comes no entry's keyword).
    id: "netrc-password",
    pattern: re(
      String.raw`((?:${lead("machine", "A-Za-z0-9_-")}[ \t]+[^\s\\]{1,256}|(?:^|(?<=\n|\\n))[ \t]{0,40}default)(?:(?:\s|\\[nrt]){1,40}(?:login|account|port|protocol)[ \t]+[^\s\\]{1,256}){0,4}(?:\s|\\[nrt]){1,40}password[ \t]+)(?![$]|\[REDACTED:)([^\s\\]{1,512})`,
      "gm"
    ),
    hints: ["password ", "password\t"],
    gate: ["machine", "default"],
    replace: (_m, head) => `${head}${marker("netrc-password")}`
  },
  {
    // A password told in prose: `password is <token>` / `passphrase is: <token>` / `password was …` /
    // `password for prod is …` (`for`, `of`, `on`, `to`, `at`, `in`, maybe `the`/`my`/…, and one word) (any of
    // `Password`, `PASSWORD`), when the token (4 to 128 characters up to white space, sentence punctuation after
    // it staying) holds a digit or a symbol (`@#$%^&*+=~_`): "my password is hunter2" loses `hunter2`; "the
    // password is wrong", "is: see the vault", "is at least 8 characters", "is well-known" stay (prose). The token
    // ends at a backslash too (a `\n` escape of JSON text held in a string).
    // Session 26 (tester25a F13): a dash after the word (`Password \u2014 \u2026`, `\u2013`, ` - `, ` -- `), and the value
    // before the words (PASSWORD_VALUE_FIRST): "\u2026 is the password for prod", "use \u2026 as the password".
    // Session 39 (tester39 F1): between the words and before the value any white space run (a line break, CRLF,
    // several, a tab) or a line break or tab escaped in JSON text (`\n`, `\\n`, `\t`), as one space: a title and a
    // search snippet fold white space into spaces, and every redacted output must hide what they hide.
    id: "password-prose",
    pattern: re(
      String.raw`(${lead("[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD)", "A-Za-z0-9_")}(?:(?:(?:\s|\\{1,3}[nrt])+(?:for|of|on|to|at|in|FOR|OF|ON|TO|AT|IN)(?:(?:\s|\\{1,3}[nrt])+(?:the|THE|my|our|your))?(?:\s|\\{1,3}[nrt])+[A-Za-z0-9_.:/@-]{1,64})?(?:\s|\\{1,3}[nrt])+(?:is|IS|was|WAS)(?:(?:\s|\\{1,3}[nrt])*:(?:\s|\\{1,3}[nrt])*|(?:\s|\\{1,3}[nrt])+)` +
        // "change the password to X", "set the passphrase as X" (not a path: "write the password to /tmp/pw1"); "the
        // password was changed to X", "password reset to X" (tester26a F4)
        String.raw`|(?:(?:\s|\\{1,3}[nrt])+(?:is|was|has(?:\s|\\{1,3}[nrt])+been|had(?:\s|\\{1,3}[nrt])+been|IS|WAS))?(?:(?:\s|\\{1,3}[nrt])+(?:changed|set|reset|updated|rotated|CHANGED|SET|RESET))?` +
        String.raw`(?:\s|\\{1,3}[nrt])+(?:to|TO|as|AS)(?:\s|\\{1,3}[nrt])+(?![/~.])(?![^\s"'${"`"}]{0,128}/)` +
        // "Password \u2014 X", "password - X"
        String.raw`|(?:\s|\\{1,3}[nrt])*[\u2014\u2013](?:\s|\\{1,3}[nrt])*|(?:\s|\\{1,3}[nrt])+--?(?:\s|\\{1,3}[nrt])+)(["'${"`"}]?))(?![$\{]|\[REDACTED:)` +
        // a quoted phrase (spaces and all) holding a digit or a symbol: `is "open sesame 7"`
        String.raw`(?:(?<=["'${"`"}])(?![\s])(?=[^"'${"`"}\n\\]{0,127}[0-9@#$%^&*+=~_!])([^"'${"`"}\n\\]{1,128})(?=\2)` +
        String.raw`|(?=[^\s"'${"`"}<>\\]{0,127}[0-9@#$%^&*+=~_])[^\s"'${"`"}<>\\]{4,128}?(?=[.,;:!?)]*(?:[\s"'${"`"}<>\\]|$)))` +
        `|${PASSWORD_VALUE_FIRST}`
    ),
    hints: ["assword", "assphrase", "asswd", "ASSWORD", "ASSPHRASE", "ASSWD"],
    replace: (_m, head) => (head === undefined ? marker("password-prose") : `${head}${marker("password-prose")}`)
  },
  {
    // (session 24, tester24a F8) A password told in another language: the word for a password in French
    // (`mot de passe`), German (`Passwort`, `Kennwort`), Spanish (`contrase\u00f1a`, `contrasena`), Portuguese
    // (`senha`), Dutch (`wachtwoord`), Swedish (`l\u00f6senord`), Norwegian (`passord`),
    // Danish (`adgangskode`), Czech (`heslo`), Turkish (`\u015fifre`) (a word
    // with an ASCII part: the prefilter's hints are ASCII, so Polish `has\u0142o` and Russian are not covered), then `:` or `=` or the language's "is" (`est`, `ist`, `es`, `\u00e9`, `is`, `je`, `\u00e4r`, `er`, `jest`), then
    // a token as `password-prose` takes it (4 to 128 characters holding a digit or a symbol, sentence punctuation
    // after it staying): "Passwort: PwDe8812yy" loses the token; "mot de passe oubli\u00e9", "Passwort: falsch" stay.
    // Session 26 (tester25a F1): German's `lautet` ("Das Passwort lautet \u2026"), Polish (`has\u0142o: \u2026`, `to`,
    // `brzmi`), Russian (`\u041f\u0430\u0440\u043e\u043b\u044c: \u2026`, `\u044d\u0442\u043e`), a dash (`\u2014`, `\u2013`, ` - `) as the separator, Italian's
    // `la password \u00e8 \u2026` (`password del server \u00e8`), and Japanese, Chinese and Korean words before their "is"
    // or a colon (`\u30d1\u30b9\u30ef\u30fc\u30c9\u306f \u2026`, `\u5bc6\u7801\u662f\u2026`; {@link PASSWORD_WORDS_CJK}), where the token also ends at those
    // scripts' letters and punctuation ({@link INTL_TOKEN_END}) and may open with `\u300c`.
    id: "password-prose-intl",
    pattern: re(
      String.raw`((?:${lead(PASSWORD_WORDS_INTL, "A-Za-z0-9_\u00c0-\u024f\u0400-\u04ff")}${GERMAN_OBJECT}(?:\s{0,8}(?:[:=\uff1a\u2014\u2013])\s{0,8}|\s{1,8}-\s{1,8}|\s{1,8}(?:est|ist|lautet|war|hei(?:ss|\u00df)t|lautete|es|era|\u00e9tait|\u00e9|is|je|\u00e4r|er|jest|to|brzmi|\u044d\u0442\u043e|\u00e8)${INTL_ADVERB}\s{0,8}(?::\s{0,8})?)` +
        String.raw`|${lead("[Pp]assword|PASSWORD", "A-Za-z0-9_")}${GERMAN_OBJECT}\s{1,8}(?:\u00e8|\u00c8)${INTL_ADVERB}\s{0,8}(?::\s{0,8})?` +
        String.raw`|(?:${PASSWORD_WORDS_CJK})\s{0,8}(?:${PASSWORD_IS_CJK})\s{0,8}(?:[:\uff1a]\s{0,8})?)(["'${"`"}\u300c]?))(?![$\{]|\[REDACTED:)` +
        String.raw`(?=[^${INTL_TOKEN_END}]{0,127}[0-9@#$%^&*+=~_])[^${INTL_TOKEN_END}]{4,128}?(?=[.,;:!?)]*(?:[${INTL_TOKEN_END}]|$))` +
        // the word then the value after white space alone, as English `password Xyz123` (credential-prose): groups 3, 4
        String.raw`|(${lead(PASSWORD_WORDS_INTL, "A-Za-z0-9_\u00c0-\u024f\u0400-\u04ff")}\s{1,8})(?![$\{]|\[REDACTED:)([^${INTL_TOKEN_END}=]{6,128}?)(?=[.,;:!?)]*(?:[${INTL_TOKEN_END}]|$))` +
        // (session 27, tester27b F4) the word, a question mark, up to two short words, the value: "Passwort? Gx7\u2026",
        // "mot de passe ? \u2026", "\u00bfLa contrase\u00f1a? Es \u2026": groups 5, 6, checked as `bare` is
        String.raw`|(${lead(PASSWORD_WORDS_INTL, "A-Za-z0-9_\u00c0-\u024f\u0400-\u04ff")}\s{0,2}[?\uff1f](?:\s{1,8}[A-Za-z'\u2019\u00c0-\u024f]{1,10}[:,]?){0,2}\s{1,8})(?![$\{]|\[REDACTED:)([^${INTL_TOKEN_END}=]{6,128}?)(?=[.,;:!?)]*(?:[${INTL_TOKEN_END}]|$))`
    ),
    hints: PASSWORD_HINTS_INTL,
    // a placeholder (`******`, `<password>`) or a reference is no password
    replace: (m: string, head?: string, _q?: string, bareHead?: string, bare?: string, askHead?: string, asked?: string) => {
      // the value after white space alone (tester26a F4: `\u043f\u0430\u0440\u043e\u043b\u044c Xyz123`, `Passwort Xyz123`): a credential's shape, as English's;
      // a word with encoded letters is a word (tester27b F7: "Passwort f%C3%BCr den Server lautet \u2026")
      if (bareHead !== undefined) return bare !== undefined && proseCredential(bare, false) && !encodedWord(bare) ? `${bareHead}${marker("password-prose-intl")}` : m
      if (askHead !== undefined) return asked !== undefined && proseCredential(asked, false) && !encodedWord(asked) ? `${askHead}${marker("password-prose-intl")}` : m
      const h = head ?? ""
      return notAValue(m.slice(h.length)) || /^\*+$/.test(m.slice(h.length)) || encodedWord(m.slice(h.length)) ? m : `${h}${marker("password-prose-intl")}`
    }
  },
  {
    // A secret told in prose under another name than a password's: `the token is <credential>`, `the API key was
    // "…"`, `my secret is …`, `the access key for prod is …`, `API key: …` / `Access token: …` (two-word names
    // with `:`), `my PIN is 4821`, `the OTP is 552913`, when the word is a credential's shape (see
    // proseCredential: 6 characters or more with a digit and a letter, no version, no dashed English word; a PIN 4
    // to 12 digits): "the token is invalid", "the token is 401", "the secret is base64-encoded", "my PIN is wrong"
    // stay. The name and what was said stay. Session 39 (tester39 F1): the words and the value apart by any white
    // space run or an escaped line break, as `password-prose`.
    id: "token-prose",
    pattern: re(
      String.raw`(?:(${lead(`${PROSE_TWO}|${PROSE_ONE}`, "A-Za-z0-9_")}(?:(?:\s|\\{1,3}[nrt])+(?:for|of|on|to|at|in|FOR|OF|ON|TO|AT|IN)(?:(?:\s|\\{1,3}[nrt])+(?:the|THE|my|our|your))?(?:\s|\\{1,3}[nrt])+[A-Za-z0-9_.:/@-]{1,64})?(?:\s|\\{1,3}[nrt])+(?:is|IS|was|WAS)(?:(?:\s|\\{1,3}[nrt])*:(?:\s|\\{1,3}[nrt])*|(?:\s|\\{1,3}[nrt])+)(["'${"`"}]?))` +
        // (session 26, tester25a F13) `PIN code 482917`, `PIN number: 4821`, "the PIN code is 4821": digits as a PIN's
        String.raw`|((?:${lead(PROSE_TWO, "A-Za-z0-9_")}(?:\s|\\{1,3}[nrt])*:(?:\s|\\{1,3}[nrt])*|${lead("(?:PIN|[Pp]in)\\s+(?:code|number|CODE|NUMBER)", "A-Za-z0-9_")}(?:(?:\s|\\{1,3}[nrt])+(?:is|was|IS|WAS))?(?:(?:\s|\\{1,3}[nrt])*:(?:\s|\\{1,3}[nrt])*|(?:\s|\\{1,3}[nrt])+))(["'${"`"}]?)))(?![$\{]|\[REDACTED:)([A-Za-z0-9._~+/=-]{3,256}?)(?=[.,;:!?)]*(?:[\s"'${"`"}<>\\]|$))`
    ),
    hints: ["oken", "OKEN", "ecret", "ECRET", "PIN", "pin", "Pin", "OTP", "asscode", "ASSCODE", "key", "Key", "KEY", "CVV", "Cvv", "cvv", "CVC", "Cvc", "cvc"],
    replace: (m: string, h1: string | undefined, q1: string | undefined, h2: string | undefined, q2: string | undefined, v: string) => {
      const head = h1 ?? h2 ?? ""
      // a card verification value: 3 or 4 digits
      if (/^cv[vc]/i.test(head)) return /^[0-9]{3,4}$/.test(v) ? `${head}${marker("token-prose")}` : m
      return proseCredential(v, /^(?:pin|otp|passcode)/i.test(head)) ? `${head}${marker("token-prose")}` : m
    }
  },
  {
    // An AWS secret access key where it is named (~/.aws/credentials `aws_secret_access_key = …`, YAML
    // `AWS_SECRET_ACCESS_KEY: …`, JSON `"SecretAccessKey": "…"`): the 40-character value goes, the name stays.
    id: "aws-secret-key",
    // Also after a space (`aws configure set aws_secret_access_key …`, `set -x AWS_SECRET_ACCESS_KEY …`) and in
    // `aws configure`'s prompt (`AWS Secret Access Key [None]: …`).
    // And (session 16) a bare one told next to its key id ("AKIA… and secret wJalr…", the console's CSV
    // `AKIA…,wJalr…`, the id on one line and the secret on the next): 40 characters of base64 (an upper-case
    // letter, a lower-case letter and a digit among them; not part of a longer run) within 200 characters after
    // the key id (`aws-access-key` has made it its marker by then); the id and what lies between stay. A git SHA
    // (lower-case hex), a path, a longer base64 run, and such a word with no key id before it stay.
    pattern: re(
      String.raw`((?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)\\?["']?(?:[ \t]*[:=][ \t]*|[ \t]+)\\?["']?|AWS Secret Access Key \[[^\]\n]{0,64}\]:[ \t]*)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])` +
        String.raw`|((?:\[REDACTED:aws-access-key\]|${lead("A(?:KIA|SIA)", "A-Za-z0-9")}[A-Z0-9]{16})[\s\S]{0,200}?(?:(?<![A-Za-z0-9/+\\])|(?<=${ESCAPE_BEFORE})))` +
        String.raw`(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`
    ),
    hints: ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey", "AWS Secret Access Key", "[REDACTED:aws-access-key]", "AKIA", "ASIA"],
    replace: (_m, name, idHead) => `${name ?? idHead}${marker("aws-secret-key")}`
  },  {
    // A secret set by a command that takes the variable's name and its value as two words: fish's `set -x NAME v`
    // (`-gx`, `-Ux`, `--export`, …), a Dockerfile's `ENV NAME v`, Windows' `setx NAME "v"`, and
    // `aws configure set [profile.x.]name v`. The name is one of `secret-field`'s; the value goes when it is a
    // secret under that name (see secretValue: any string under a password's, a secret's or a token's name, one
    // that looks like a secret under a key's; a count such as `MAX_TOKENS 4096` stays); a quoted value goes whole.
    // The command starts a line or a shell command (after `;`, `&&`, `|`, `(`, a quote, `$ `, `RUN `), so prose
    // ("we export PASS …") stays. The command, the name and the quotes stay; `$VAR` references, a name alone stay.
    id: "secret-setting",
    pattern: re(
      // the command's word first (a literal to scan for), then whether a line or a shell command starts before it
      String.raw`((?:setx|set|ENV|aws)(?<=(?:^|${COMMAND_LEAD})[ \t]{0,16}(?:setx|set|ENV|aws))` +
        String.raw`(?:(?<=setx|ENV)|(?<=set)(?:[ \t]+(?:-[gxUlu]{1,4}|--(?:export|global|universal)))+|(?<=aws)[ \t]+configure[ \t]+set(?:[ \t]+--profile[ \t]+[^\s\\]{1,64})?)[ \t]+(?:[A-Za-z0-9_-]{1,64}\.){0,4}(${NAMES_ALONE}|${NAMES_AFTER})[ \t]+)` +
        String.raw`(?:(\\?["'])(?![$\{]|\[REDACTED:)((?:(?!\3)[^\n\\]){1,512})\3|(?![$"'\\]|\[REDACTED:)([^\s"'\\;&|<>]{1,512}))`
    ),
    hints: ["set -", "set\t-", "set --", "setx ", "setx\t", "ENV ", "ENV\t", "configure set"],
    replace: (m: string, head: string, name: string, q: string | undefined, quoted: string | undefined, bare: string | undefined): string => {
      const kind = secretKeyKind(name)
      const value = quoted ?? bare ?? ""
      // `pass`/`pwd` alone name no variable one sets this way (`export PASS  test/app.test.ts` is a test's output)
      if (kind === "none" || kind === "header" || kind === "pwd" || !secretValue(kind, value)) return m
      return quoted !== undefined ? `${head}${q}${marker("secret-setting")}${q}` : `${head}${marker("secret-setting")}`
    }
  },

  {
    // An object or an array under a secret's name, in JSON, Python or JavaScript text (also JSON text held in a
    // JSON string, its quotes escaped): `{"password": {"value": "…"}}`, `{"tokens": ["…", "…"]}`, `{"credentials":
    // {"user": "…", "pass": "…"}}`. Each leaf that is a secret for the name (see leafSecret: every string and
    // number under a password's, a secret's or `credentials`; every string under a token's name, a count staying;
    // a string that looks like a secret under a key's) becomes the marker (a number, the marker quoted); the keys,
    // the brackets and the other leaves stay. A JSON Schema under the name (`{"password": {"type": "string"}}`) stays.
    // Read by hand (brackets, quotes and their escapes): the pattern says where a match starts.
    id: "secret-nested",
    pattern: re(String.raw`((?:\\{0,7}["'])?)(?:${NAMES_ALONE}|${NAMES_AFTER}|[Cc]redentials?|CREDENTIALS?)\1[ \t]{0,8}:[ \t]{0,8}[\[{]`),
    // every match holds its name's final word then its closing quote (or an escape's backslash), `:` or a space
    hints: [...new Set(NESTED_WORDS.flatMap((w) => [w + "\"", w + "'", w + "\\", w + ":", w + " ", w + "\t"]))],
    // every match holds `:` then at most 8 spaces or tabs then `[` or `{`: the last characters before the bracket
    gate: [":[", ":{", ": [", ": {", ":\t[", ":\t{", "  [", "  {", "\t[", "\t{", "\t [", "\t {"],
    apply: (s) => redactNested(s),
    byHand: true
  },
  {
    // A YAML mapping under a secret's name: `credentials:`, `secrets:`, `auth:` (and the names of `secret-nested`)
    // ending their line, then indented `key: value` (and `- value`) lines: the values that are secrets for the name
    // (see leafSecret: every string and number under credentials, secrets, auth and a password's name) go, the keys
    // and comments stay; booleans, null, references stay, and so does an ordinary mapping (`database:`). Read by hand
    // (indentation): the pattern says where a match starts.
    id: "secret-mapping",
    pattern: re(String.raw`(?:${NAMES_ALONE}|${NAMES_AFTER}|[Cc]redentials?|CREDENTIALS?|[Aa]uth|AUTH)["']?:[ \t]*(?:#[^\n]*)?\r?\n`),
    // every match holds a final word then `:` (maybe after its quote or an escaped quote)
    hints: [...new Set(MAPPING_WORDS.flatMap((w) => [w + ":", w + "\":", w + "':", w + "\\\":"]))],
    apply: (s) => redactMappings(s),
    byHand: true
  },
  {
    // A secret under its name in structured text: JSON `"api_key": "…"` (also `\"…\"` in JSON text held in a
    // string, and `'…'`), YAML and the like `password: hunter2…`. The names are those of `secret-assignment` in
    // any case and style: words joined by `_`/`-` or camelCase ending in token, secret, password, passwd,
    // passphrase (alone too), or key, pass, pwd (after another word: `api_key`, `apiKey`, `DB_PASS`; not `key`).
    // A quoted value goes whole (under a key/pass/pwd name only when it looks like a secret); a bare value only
    // when it looks like a secret: a digit and another character, or 16 characters or more. `name = "…"` (TOML,
    // INI, Python, JavaScript: a quoted value after `=`) too; a bare value after `=` is `secret-assignment`'s,
    // and `==` is a comparison. Left alone: types
    // (`password: string`), `$VAR`/`${VAR}`/`{{ … }}` references, `process.env.X`, empty values, prose.
    // A member or an index assigned (`self.password = "…"`, `env["DB_PASSWORD"] = "…"`) is a name too, and a
    // number under a password's name (`"password": 84736251`, a PIN) goes, in the key's quotes (see fieldReplace).
    id: "secret-field",
    pattern: re(fieldAlternatives()),
    hints: SECRET_FIELD_HINTS,
    replace: (m: string, ...groups: Array<string>): string => fieldReplace(m, ...groups),
    apply: (s) => redactFields(s)
  },
  {
    // A JSON (or Python) key of words written with spaces whose last word is a secret's (session 25, tester25a F11:
    // `{"Db Password": "…"}`, `"API Key"`, `'Access Token'`, `\"Admin Password\"` in JSON text held in a string),
    // then `:` and a quoted value that looks like a secret (a digit and another character, or 16 characters or
    // more). A count's, a cursor's or a data key's name (`"Input Tokens"`, `"Next Page Token"`, `"Primary Key"`)
    // stays, as under `secret-field`. The key and the quotes stay.
    id: "secret-spaced-key",
    pattern: re(SPACED_KEY),
    hints: SPACED_KEY_HINTS,
    replace: (m: string, _kq: string, name: string, vq: string, value: string): string => {
      const joined = name.replace(/ /g, "").toLowerCase()
      if (PAGE_CURSOR_NAME.test(joined) || COUNT_TOKENS.test(joined) || DATA_KEY.test(joined)) return m
      return `${m.slice(0, m.length - value.length - vq.length)}${marker("secret-spaced-key")}${vq}`
    }
  },
  {
    // A secret's JSON key written with escapes inside its name (session 24, tester24a F7: `"pass\u0077ord": "…"`,
    // `"api\u005fkey": "…"`, read by a JSON parser as `password`, `api_key`): the name decoded, its value goes as
    // `secret-field` takes it under the decoded name; the name stays as written. Read by hand
    // (redactEscapedNames): the pattern says where a match starts (an escape in a name).
    id: "escaped-name",
    pattern: re(String.raw`\\{1,3}u[0-9A-Fa-f]{4}`),
    hints: ["\\u"],
    apply: (s) => redactEscapedNames(s),
    byHand: true
  },
  {
    // A secret given as a name/value pair (after the key-shaped rules such as `bearer-token` have run): a header
    // as `["X-Api-Key", "…"]` / `("Cookie", "…")` (an array or a tuple of two, in JSON, Python or JavaScript text,
    // its quotes maybe escaped), `{"name": "X-Api-Key", "value": "…"}` (HAR; `key`, `header` too; `value` first
    // too; members maybe on lines of their own), a YAML env entry (`- name: DB_PASSWORD` then `value: …`) and XML
    // attributes (.NET `<add key="ApiKey" value="…"/>`). Which pairs are secrets is `pairSecret`'s call (a secret's name or a credential's header: any
    // value under `Authorization`, `Cookie` or `X-…`; in an array, one that looks like a secret). The name, the
    // quotes and the value's key stay.
    id: "secret-pair",
    pattern: re(pairAlternatives()),
    hints: SECRET_PAIR_HINTS,
    replace: (m: string, ...g: Array<string>): string => pairReplace(m, ...g)
  },
  {
    // An INI, properties, TOML or .env line: a secret's name (the names of `secret-field`, maybe after a dotted
    // prefix: `db.password`, `spring.datasource.password`) at the start of a line (maybe indented; also after a
    // `\n` escape), `=`, and a bare value that is the rest of the line (a comment after white space and `#` or `;`
    // may follow): `password = hunter2`, `[db]` sections too. The value must look like a secret (a digit and
    // another character, or 16 characters or more) and be no code: not a reference (`$X`, `${X}`), a quote, a
    // list, a keyword (`None`, `null`, `true`), a call (`getpass()`), a member (`self.config.password`), an
    // identifier without digits (`user_password`, `defaultSecretValue`), nor part of an expression (`password = 1234
    // + x`: the value is not the line's rest). `==` is a comparison. The name and `=` stay. A word of letters only
    // (`password = hunter`) goes under a password's or a secret's name when it is no type or keyword (wordSecret).
    id: "secret-line",
    pattern: re(lineAlternatives(), "gm"),
    hints: SECRET_LINE_HINTS,
    replace: (m: string, ...g: Array<string>) => {
      // three alternatives of three groups each (see lineAlternatives): the lead, the head, the value
      for (let a = 0; a < 9; a += 3) if (g[a + 1] !== undefined) return lineReplace(m, g[a], g[a + 1], g[a + 2])
      return m
    }
  },
  {
    // A YAML block scalar under a secret's name: `password: |` (or `>`, `|-`, `>+`, …) then its indented lines,
    // and `value: |` on the line after `- name: DB_PASSWORD` (a Kubernetes env entry). The lines become one, the
    // marker at the first line's indentation; the key line and what follows the block stay. Read by hand
    // (indentation): the pattern says where a match starts.
    id: "secret-block",
    pattern: re(String.raw`(?:${NAMES_ALONE}|${NAMES_AFTER}|value|Value)["']?:[ \t]+[|>][-+1-9]{0,2}[ \t]*(?:#[^\n]*)?\r?\n`),
    hints: [": |", ": >", ":\t|", ":\t>"],
    apply: (s) => redactBlocks(s),
    byHand: true
  },
  {
    // A YAML flow sequence under a secret's name, on one line: `api_keys: [a, b]`, `secrets: ["…", '…']`,
    // `{passwords: [a, b]}`. Each element that is a secret for the name (see leafSecret; a plain element only when
    // it also looks like a secret, or is a number under a password's name) goes; the name, the brackets, the quotes
    // and the commas stay. Read by hand (brackets, quotes): the pattern says where a match starts.
    id: "secret-flow",
    pattern: re(String.raw`(?:${NESTED_WORDS.join("|")})["']?[ \t]{0,8}:[ \t]{0,8}\[`),
    hints: [":[", ": [", ":\t[", "  [", "\t[", "\t ["],
    apply: (s) => redactFlowLists(s),
    byHand: true
  },
  {
    // A Markdown table that holds a secret: a row whose first cell is a secret's name (`| password | hunter2 |`),
    // its second cell; a column headed by a secret's name (`| user | password |` then `|---|---|`), its cells. A
    // value goes when it looks like a secret (see tableSecret); descriptions, types, lengths, references stay.
    // Read by hand (rows and cells): the pattern finds a delimiter row's `|` next to `-` or `:` (the table's mark).
    id: "secret-table",
    pattern: re(TABLE_HINTS.map((h) => h.replace(/[|+*.[()]/g, "\\$&").replace(/\t/g, "\\t")).join("|")),
    // every match is in a text that holds a table's delimiter row (`|-`, `-|`, `|:`, `:|`, `- |`, `| -`)
    hints: TABLE_HINTS,
    apply: (s) => redactTables(s),
    byHand: true
  },
  {
    // A PIN, a one-time code or a card verification value under its name: `pin`, `PIN`, `pincode`, `pin_code`,
    // `pinCode`, `otp`, `otp_code`, `totp`, `cvv`, `cvv2`, `cvc`, `passcode` (any case, after other words too:
    // `card_pin`, `cardPin`) then `:` or `=` (`=>`), and 3 to 12 digits, quoted or not: `{"pin": "1234"}`, `PIN: 4821`,
    // `otp=552913`. A bare number in JSON becomes the marker in the key's quotes. Left alone: fewer digits
    // (`pin: 13`, a GPIO pin), versions (`"pin": "^1.2.3"`), words (`spin`, `pinned`, `pins`), expressions
    // (`pin = 1234 + offset`), comparisons (`==`).
    id: "secret-pin",
    pattern: re(
      String.raw`((?:${PIN_WORDS.join("|")})(?<=(?:^|[\s{,(\[;.$@#>:]|${ESCAPE_BEFORE})((?:\\{0,7}["'])?)(?:[A-Za-z0-9]{1,40}[_-]){0,6}(?:[a-z][A-Za-z0-9]{0,40}(?=[A-Z]))?(?:${PIN_WORDS.join("|")}))\2\]?(?:[ \t]{0,8}:[ \t]*|[ \t]*=(?![=~])>?[ \t]*))` +
        String.raw`(\\{0,7}["']|)([0-9]{3,12})\3(?![0-9A-Za-z._-])(?![ \t]*(?:[-+*%?]|\/(?!\/)|==|if\b|else\b|and\b|or\b))`
    ),
    hints: [...new Set(PIN_WORDS.flatMap((w) => [":", "\"", "'", "=", " ", "\\", "]"].map((sep) => w + sep)))],
    replace: (_m: string, head: string, kq: string, vq: string) =>
      vq !== "" ? `${head}${vq}${marker("secret-pin")}${vq}` : `${head}${kq}${marker("secret-pin")}${kq}`
  },
  {
    // The value of an `Authorization` or `Proxy-Authorization` header keyed by its name: a header map in JSON,
    // Python or YAML (`{"Authorization": "raw-token"}`, `authorization: "Basic …"`, its quotes maybe escaped) and a
    // header line (`Authorization: <credentials>`). A scheme stays (`Basic [REDACTED:authorization]`), anything else
    // goes whole (see authorizationValue); a value `bearer-token` has redacted, a reference, an empty value and a
    // bare word that is no credential's shape ("Authorization: required") stay.
    id: "authorization",
    pattern: re(
      String.raw`((?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)(?<=(?:^|[^A-Za-z0-9_-]|${ESCAPE_BEFORE})(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION))(?:\\{0,7}["']|${ESC_QUOTE})?[ \t]{0,8}(?::|=(?!=))(?:${NAME_CONT}|[ \t]{0,8}))` +
        String.raw`(?:(\\{0,7}["']|${ESC_QUOTE})(${quotedValue(2, "{1,1024}", true)})${closedOrOpen(String.raw`\2`)}|(?![$\{"'\\]|\[REDACTED:)(${AUTH_BARE}{1,1024}(?:[ \t]+${AUTH_BARE}{1,1024})?))`
    ),
    hints: ["uthorization", "UTHORIZATION"],
    replace: (_m: string, head: string, q: string | undefined, quoted: string | undefined, bare: string | undefined) =>
      quoted !== undefined ? `${head}${q}${authorizationValue(quoted, true)}${q}` : `${head}${authorizationValue(bare ?? "", false)}`
  },
  {
    // A secret as an XML element's text: `<password>…</password>`, `<DbPassword>`, `<client_secret>`, `<apiKey>`,
    // `<access_token>`, `<privateKey>` (the element's name ends in password, passwd, passphrase, secret, token,
    // api key or private key, or a plural of these: `<ApiKeys>`, `<Secrets>`; attributes kept: `<password type="text">`),
    // the value up to its closing tag on the same line. The tags stay.
    // Left alone: a page cursor's element (`<NextToken>`, `<nextPageToken>`), numbers (`<max_token>100</…>`),
    // empty elements, `$VAR`/`${VAR}` references, nested elements (a `<` in the value).
    id: "secret-element",
    pattern: re(
      String.raw`<([A-Za-z0-9_:.-]{0,60}?(?:[Pp]asswords?|PASSWORDS?|[Pp]asswd|PASSWD|[Pp]assphrases?|PASSPHRASES?|[Ss]ecrets?|SECRETS?|[Tt]okens?|TOKENS?|[Aa]pi[_-]?[Kk]eys?|API_?KEYS?|[Pp]rivate[_-]?[Kk]ey|PRIVATE_?KEY))((?:[ \t][^<>\n]{0,256})?)(?<!/)>(?:<!\[CDATA\[(?![$\{\s]|\[REDACTED:)([^\]\n]{1,512})\]\]>|(?![$\{\s<]|\[REDACTED:|[0-9]+<)([^<\n]{1,512}))</\1>` +
        // an element keyed by a secret's name in an attribute (Java properties XML, Maven, Spring):
        // `<entry key="db.password">…</entry>`, `<property name="apiToken">…</property>` (the name's last dotted part decides)
        String.raw`|<([A-Za-z][A-Za-z0-9_:.-]{0,60})((?:[ \t][^<>\n]{0,256}?)?[ \t](?:key|name|Key|Name)=(["'])(?:[A-Za-z0-9_-]{1,64}[.:]){0,8}([A-Za-z0-9_-]{1,64})\7[^<>\n]{0,256}?)(?<!/)>(?:<!\[CDATA\[(?![$\{\s]|\[REDACTED:)([^\]\n]{1,512})\]\]>|(?![$\{\s<]|\[REDACTED:)([^<\n]{1,512}))</\5>`
    ),
    // every match holds its closing tag
    hints: ["key=\"", "name=\"", "Key=\"", "Name=\"", "key='", "name='", "Key='", "Name='", "assword>", "ASSWORD>", "asswords>", "ASSWORDS>", "asswd>", "ASSWD>", "assphrase>", "ASSPHRASE>", "assphrases>", "ASSPHRASES>", "ecret>", "ECRET>", "ecrets>", "ECRETS>", "oken>", "OKEN>", "okens>", "OKENS>", "Key>", "key>", "KEY>", "Keys>", "keys>", "KEYS>"],
    replace: (m: string, name: string | undefined, attrs: string, cdata: string | undefined, _text: string, tag: string | undefined, tagAttrs: string, _q: string, key: string, cdata2: string | undefined, text2: string | undefined): string => {
      const E = marker("secret-element")
      if (name === undefined) {
        // keyed by an attribute: as a value under a key of that name
        const kind = secretKeyKind(key)
        const value = cdata2 ?? text2 ?? ""
        if (kind === "none" || !(secretValue(kind, value) || (kind === "header" && value.length > 0))) return m
        return `<${tag}${tagAttrs}>${cdata2 !== undefined ? `<![CDATA[${E}]]>` : E}</${tag}>`
      }
      const joined = name.replace(/[_:.-]/g, "").toLowerCase()
      if (PAGE_CURSOR_NAME.test(joined) || COUNT_TOKENS.test(joined)) return m
      return `<${name}${attrs}>${cdata !== undefined ? `<![CDATA[${E}]]>` : E}</${name}>`
    }
  },
  {
    // An HTTP cookie in a header (curl -H, logs, a proxy's dump): `Cookie: name=value; other=value` (every
    // cookie's value) and `Set-Cookie: name=value; Path=/; HttpOnly` (the cookie's value, its attributes stay).
    // The names, the `=` and the `; ` stay; a value ends at `;`, white space, a quote or a backslash, and the
    // header where white space follows other than after a `;`. A header map's entry too: `{"Cookie": "…"}` (the
    // name's closing quote and the value's opening quote, maybe escaped, stay).
    id: "cookie",
    // (an `=` written `\u003d`, as Gson writes it, is an `=`: `Cookie: session\u003d…`)
    pattern: re(String.raw`(\b(?:[Ss]et-[Cc]ookie|SET-COOKIE|[Cc]ookie|COOKIE)(?:\\{0,7}["'])?:[ \t]{0,8}(?:\\{0,7}["'])?)((?:[^\s"'\\;]|${ESC_EQ}){1,4096}(?:;[ \t]*(?:[^\s"'\\;]|${ESC_EQ}){1,4096}){0,64})`),
    hints: ["ookie:", "OOKIE:", "ookie\":", "OOKIE\":", "ookie':", "ookie\\\":"],
    replace: (_m: string, head: string, value: string) => `${head}${cookieValues(value, /^set-/i.test(head))}`
  },
  {
    // A Discord webhook's URL: `https://discord.com/api/webhooks/<id>/<token>` (also `discordapp.com`, `ptb.`,
    // `canary.`): the token goes, the URL and the webhook's id stay.
    id: "discord-webhook",
    pattern: re(String.raw`(https:${SLASHES}(?:ptb\.|canary\.)?discord(?:app)?\.com${SLASH}api${SLASH}webhooks${SLASH}[0-9]{5,30}${SLASH})[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])`),
    hints: ["/api/webhooks/", "webhooks\\"],
    replace: (_m, head) => `${head}${marker("discord-webhook")}`
  },
  {
    // A Docker `config.json` credential: `"auth": "<base64 of user:password>"` (under `auths`), its quotes maybe
    // escaped; only a value that decodes to `user:password` (printable, a `:` in it) goes: `"auth": "none"` stays.
    id: "docker-auth",
    pattern: re(String.raw`((\\{0,7}")auth\2[ \t]{0,8}:[ \t]{0,8}\2)([A-Za-z0-9+/]{8,1024}={0,2})(?=\2)`),
    hints: ["auth\"", "auth\\\""],
    replace: (m: string, head: string, q: string, value: string): string => {
      const decoded = Buffer.from(value, "base64").toString("latin1")
      return /^[\x21-\x7e]{1,256}:[\x20-\x7e]{1,512}$/.test(decoded) ? `${head}${marker("docker-auth")}${q}`.slice(0, -q.length) : m
    }
  },
  {
    // A `.pgpass` line, `host:port:database:user:password` alone on its line (maybe after a line-number gutter:
    // the Read tool's `     1→`, bat's `   1 │ `, `cat -n`, grep -n's `.pgpass:1:`), a whole quoted string or the
    // word after `echo`/`printf` (session 26: `echo '…' > ~/.pgpass`; see PGPASS_SOURCE) (the host holds a letter or
    // is `*`, the port is digits or `*`): the password goes when it looks like one (a digit or a symbol in it:
    // `password` itself, a template's word, stays); times and other colon-separated numbers stay.
    id: "pgpass-password",
    pattern: re(PGPASS_SOURCE, "gm"),
    hints: [":"],
    gate: [":*:", ":0", ":1", ":2", ":3", ":4", ":5", ":6", ":7", ":8", ":9"],
    replace: pgpassReplace,
    // a quick look for `:port:db:user:` first (a literal `:` to scan for), then the line-anchored pattern
    apply: (s) => {
      if (!PGPASS_QUICK.test(s)) return s
      const rule = builtinRules.find((r) => r.id === "pgpass-password")!
      rule.pattern.lastIndex = 0
      return s.replace(rule.pattern, pgpassReplace)
    }
  },
  {
    // HTTP basic auth given as a pair in code: `auth=("bob", "pw")` (Python requests/httpx, a tuple or a list),
    // `HTTPBasicAuth("bob", "pw")`, `HTTPDigestAuth(…)`, `BasicAuth(…)`: the password goes, the user stays; a
    // variable (`auth=("bob", password)`), an empty string and a `$VAR` reference stay.
    id: "auth-tuple",
    pattern: re(
      String.raw`((?:\bauth[ \t]*=[ \t]*[(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|BasicAuth|DigestAuth)\()[ \t]*(\\?["'])[^"'\n\\]{1,128}\2[ \t]*,[ \t]*(\\?["']))(?![$\{]|\[REDACTED:)((?:(?!\3)[^\n\\]){1,256})\3`
    ),
    hints: ["auth=", "auth =", "Auth("],
    replace: (_m, head, _q, q2) => `${head}${marker("auth-tuple")}${q2}`
  },
  {
    // A password given on standard input: by a here-string, `docker login -u bob --password-stdin <<< '…'` (any
    // command's `--password-stdin`), or written into a pipe by `echo` or `printf` (tester22b F5: `echo "…" | docker
    // login -u bob --password-stdin`, `printf '%s' '…' | helm registry login … --password-stdin`, gpg's
    // `--passphrase-fd 0`; see PIPED_STDIN_PASSWORD). A redirection from a file (`< pw.txt`, `cat pw.txt |`), a `$VAR`
    // reference and a placeholder (`<password>`, `%PW%`) stay; echo, printf, the quotes and the command stay.
    id: "stdin-password",
    pattern: re(String.raw`(--password-stdin[ \t]*<<<[ \t]*)(?:(\\?["'])(?![$])((?:(?!\2)[^\n\\]){1,256})\2|(?![$"'\\])([^\s\\]{1,256}))|${PIPED_STDIN_PASSWORD}`),
    hints: ["--password-stdin", "--passphrase-fd"],
    replace: (m: string, head?: string, q?: string, quoted?: string, bare?: string, pipeHead?: string, _fq?: string, pq?: string, pquoted?: string, pbare?: string, tail?: string) => {
      const M = marker("stdin-password")
      if (head !== undefined) return quoted !== undefined ? `${head}${q}${M}${q}` : `${head}${M}`
      const v = pquoted ?? pbare
      // (`printf '%s\n' "$PW"`: the format read as the value once the reference is not one)
      if (v === undefined || placeholderValue(v) || (pipeHead?.startsWith("printf") === true && /%[sdb]/.test(v))) return m
      return `${pipeHead}${pquoted !== undefined ? `${pq}${M}${pq}` : M}${tail}`
    }
  },
  {
    // Credentials told in prose or on one line, other than `password-prose`'s `password is …`: `credentials:
    // admin/<pw>`, `log in as admin / <pw>` (`sign in with …`), `the password <pw>` (a credential's shape after
    // the word: a digit and a letter, 6 characters or more, no version), `password = <pw>` mid-line, a quoted
    // phrase after the word (`passphrase "…"`, a digit or a symbol in it), `user=admin pass=<pw>` (`pwd=`,
    // `pw=`), `{"pw": "…"}`, and a one-time password's seed after `2FA secret`, `TOTP secret`, `OTP secret`, `MFA
    // secret` (base32, 16 characters or more), an auth-named header's value (`X-Custom-Auth: …`, `X-Auth-User-…`
    // not: the name ends in `Auth`). Session 26 (tester25a F13): "creds are admin / <pw>", and `pw`/`pwd` alone as the
    // name (`pw: <pw>`, "my pwd is <pw>"; CRED_PW_ABBREV). The user and the words stay; "the password field is required",
    // "log in as admin / root", "password = getpass()", `{"pw": "ok"}`, `pass=3` stay. Read by hand (several
    // patterns in turn, see credentialProse): the pattern says where a match starts.
    id: "credential-prose",
    pattern: re(
      String.raw`(?:[Cc]redentials?|CREDENTIALS?|[Cc]reds|CREDS|(?:[Pp]wd?|PWD?)(?:[ \t]+(?:is|was|IS|WAS)|[ \t]*[:=\u2014\u2013])|[Ll]og(?:ged)?[ -]?[Ii]n|[Ss]ign(?:ed)?[ -]?[Ii]n|[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD)|(?:[Uu]ser(?:name)?|USER(?:NAME)?)[ \t]+[A-Za-z0-9._@-]{1,64}(?:[ \t]*[,&]|[ \t]+(?:and|AND)) (?:[Pp]ass|PASS|[Pp]wd?|PWD?)|(?:user|username|login|USER)=[^\s&;]{1,64}[ \t&;]+(?:pass|pwd|pw)=|\\{0,7}["'](?:pw|PW)\\{0,7}["']|(?:2FA|TOTP|OTP|MFA|[Tt]otp|[Oo]tp|[Mm]fa) (?:[Ss]ecret|[Ss]eed)|[Xx]-(?:[A-Za-z0-9]{1,40}-){0,6}(?:[Aa]uth|AUTH))`
    ),
    hints: ["redential", "REDENTIAL", "reds", "REDS", "pw", "PW", "Pw", "og in", "ogin", "og-in", "ogged", "ign in", "ign-in", "igned", "ignin", "assword", "ASSWORD", "assphrase", "ASSPHRASE", "asswd", "ASSWD", ",pass", ",Pass", ",PASS", ", pass", ", Pass", ", PASS", "&pass", "&Pass", "&PASS", "& pass", "& Pass", "& PASS", "d pass", "d Pass", "d PASS", "D pass", "D Pass", "D PASS", "pass=", "pwd=", "pw=", "pw\"", "pw'", "PW\"", "PW'", "pw\\", "PW\\", " secret", " Secret", " seed", " Seed", "-Auth", "-AUTH", "-auth"],
    apply: (s) => credentialProse(s),
    byHand: true
  },
  {
    // A lower-case `name_password=value` word of a command line, after white space or a quote: terraform's
    // `-var db_password=…`, `-var "db_password=…"`, ansible's `-e ansible_become_pass=…`, `make api_token=…`,
    // `client_secret=…` (tester20b F8; the upper-case `DB_PASSWORD=` is `secret-assignment`'s, a line's start
    // `secret-line`'s). The name is lower-case words joined by `_` ending in a secret's word (password, passwd,
    // passphrase, pass, pwd, token, secret, key, plurals); the value is a bare word that ends at white space, a quote,
    // `;`, `|`, `&` or a backslash (so a call's keyword argument, `f(a, api_key=key1)`, stays) and looks like a secret
    // (see {@link argumentReplace}). The name and `=` stay.
    id: "secret-argument",
    pattern: ARGUMENT_ASSIGNMENT,
    hints: ARGUMENT_HINTS,
    replace: (m: string, word: string, name: string, value: string) => argumentReplace(m, name, word, value)
  },
  {
    // A value piped into a command that reads a password from standard input (tester23b F2): `echo 'bob:…' | chpasswd`,
    // `echo … | vncpasswd -f`, `printf '%s\n' … | sudo -S …`, `echo … | passwd --stdin bob`, `echo … | gh auth login
    // --with-token`, `echo … | gh secret set NAME`, `yes … | …`, and a here-string (`chpasswd <<< 'bob:…'`). See
    // PIPED_PASSWORD. echo, printf, the quotes, the pipe and the command stay; chpasswd's user stays; `$VAR`, a
    // placeholder and a file (`cat pw.txt | chpasswd`, `< pw.txt`) stay.
    id: "piped-password",
    pattern: PIPED_PASSWORD,
    hints: ["echo", "printf", "yes", "<<<"],
    // every match holds the pipe or the here-string's `<<<` (rarer characters than the words' for the prefilter)
    gate: ["|", "<<<"],
    replace: pipedPasswordReplace
  },
  {
    // (session 26, tester25a F5) A password given as a file that a process substitution writes: `sshpass -f <(echo
    // '\u2026') ssh host`, and any command's `--password-file`, `--passwd-file`, `--passphrase-file`, `--pass-file` (`=` or a
    // space) before `<(echo \u2026)` or `<(printf '%s' \u2026)`. The command, echo, the quotes and the brackets stay; a `$VAR`
    // reference and a placeholder stay; `<(cat pw.txt)` is a file.
    id: "substituted-password",
    pattern: re(
      String.raw`((?:${lead("sshpass", "A-Za-z0-9_.-")}(?:[ \t]{1,8}-[A-Za-eg-z][^\s;&|]{0,64}){0,4}[ \t]{1,8}-f|--(?:password|passwd|passphrase|pass)-file(?:=|[ \t]{1,8}))[ \t]{0,8}<\([ \t]{0,8}` +
        String.raw`(?:echo|printf)[ \t]{1,8}(?:-[neE]{1,3}[ \t]{1,8})?(?:(?<=printf[ \t]{1,8})(\\?["']?)%s(?:\\{1,2}n)?\2[ \t]{1,8})?)` +
        String.raw`(?!\[REDACTED:)(?:(\\{0,3}["'])(?![$])((?:(?!\3)[^\n]){1,256}?)\3|(?![$"'\\])([^\s"'|\\;&<>()${"`"}]{1,256}))(?=[ \t]{0,8}\))`
    ),
    hints: ["echo", "printf"],
    // every match holds the process substitution's `<(` (rarer characters than the words')
    gate: ["<("],
    replace: (m: string, head: string, _f: string | undefined, q: string | undefined, quoted: string | undefined, bare: string | undefined) => {
      const v = quoted ?? bare ?? ""
      if (placeholderValue(v)) return m
      return quoted !== undefined ? `${head}${q}${marker("substituted-password")}${q}` : `${head}${marker("substituted-password")}`
    }
  },
  {
    // A secret set by a command that says what it sets (tester23b F2): `gh secret set NAME --body …`, `rabbitmqctl
    // add_user bob …`, `security add-generic-password … -w …`, `wpa_passphrase SSID …`, `nmcli … password …`,
    // `dotnet user-secrets set KEY …`, `kubectl create secret … --from-literal=KEY=…`, `aws secretsmanager …
    // --secret-string …`, `fly secrets set NAME=…` (see COMMAND_SECRET_HEADS). The command, the option and the quotes
    // stay; a placeholder, `$VAR` and a bare word of letters only under 16 characters stay.
    id: "command-secret",
    pattern: re([...COMMAND_SECRET_HEADS.map((head, a) => `${head}${optionValue(a * 4 + 2)}`), SECRETS_SET].join("|")),
    hints: ["secret", "rabbitmqctl", "security", "wpa_passphrase", "nmcli", "user-secrets", "rclone", "helm"],
    replace: commandSecretReplace
  },
  {
    // A credential set by a tool's `config [set] <name> <value>` (tester23b F2): `npm config set
    // //registry.npmjs.org/:_authToken …`, `yarn config set npmAuthToken …`, `git config github.token …`, `poetry config
    // http-basic.repo user …`, `composer config github-oauth.github.com …`, `bundle config HOST user:…` (see
    // CONFIG_SECRET). The command, the name and the quotes stay; `npm config set registry https://…` stays.
    id: "config-secret",
    pattern: CONFIG_SECRET,
    hints: ["config", "npm set", "pnpm set"],
    replace: configSecretReplace
  },
  {
    // Samba's `user%password` (tester23b F2): `smbclient //srv/share -U alice%…`, `rpcclient -U 'DOM\\bob%…'`, `net ads
    // join -U admin%…`, and smbclient's password after the service (`smbclient //srv/share … -U bob`). The option, the
    // user and `%` stay. See USER_PASSWORD.
    id: "user-password",
    pattern: USER_PASSWORD,
    hints: ["%", "smbclient"],
    gate: ["-U", "--user", "smbclient"],
    replace: userPasswordReplace
  },
  {
    // Redis' passwords (tester23b F2): `AUTH [user] <password>` (at a line's start, after a `host:port>` prompt or
    // `redis-cli`), `CONFIG SET requirepass …`, redis.conf's `requirepass …`, `masterauth …`, `ACL SETUSER bob on >…`.
    // "AUTH failed", "the AUTH command" stay. See REDIS_PASSWORD.
    id: "redis-password",
    pattern: REDIS_PASSWORD,
    hints: ["AUTH", "> auth", ">auth", "> Auth", ">Auth", "redis-cli", "requirepass", "masterauth", "SETUSER", "setuser"],
    replace: redisPasswordReplace
  },
  {
    // A Terraform/OpenTofu variable's default (tester23b F4): `variable "db_password" { default = "…" }` (on several
    // lines too), and any variable's or output's literal in a block that says `sensitive = true`. See TERRAFORM_VARIABLE.
    id: "terraform-variable",
    pattern: TERRAFORM_VARIABLE,
    hints: ["variable", "output"],
    // every match holds the name's closing quote then (maybe after white space) `{`: rarer than the words
    gate: ["\" {", "\"{", "\"\t{"],
    replace: terraformVariableReplace
  },
  {
    // user@domain.tld; not `git@host:` remotes, not image names such as icon@2x.png. Also with the `@` written `%40`
    // or `\u0040`, and letters of any script (tester20b F5), and an address literal (`user@[10.0.0.1]`,
    // `user@[IPv6:2001:db8::1]`, RFC 5321; tester23b F7). By hand (redactEmails), as the pattern.
    id: "email",
    pattern: re(
      String.raw`${start("\\p{L}\\p{N}\\p{M}._%+\\\\-")}(?<!${CSI_PARAMS})(?!git(?:@|%40|\\u0040))[\p{L}\p{N}\p{M}._%+-]{1,64}(?:@|%40|\\u0040)` +
        String.raw`(?:[\p{L}\p{N}\p{M}-]{1,63}(?:\.[\p{L}\p{N}\p{M}-]{1,63}){0,8}\.(?!(?:png|jpe?g|gif|svg|webp|ico|bmp|avif)(?![A-Za-z]))[\p{L}\p{M}]{2,24}(?![\p{L}\p{N}\p{M}(\[-])|${EMAIL_LITERAL})`,
      "gu"
    ),
    hints: ["@", "%40", "\\u0040"],
    apply: (s) => redactEmails(s)
  },
  {
    // (session 26, tester25a F5) An email written to dodge scrapers: `bob.hidden.user [at] corp-example.com`, `(at)`,
    // `{at}` (any case of `at`), and the domain's dots maybe written `[dot]`, `(dot)` or `{dot}`. The local part is a
    // run of an email's characters (not after another), the domain two labels or more, the last one letters. "meet
    // [at] noon" (no local part before it) and "we [at] home" (no dotted domain after it) stay.
    id: "email-obfuscated",
    pattern: re(
      String.raw`${start("A-Za-z0-9._%+\\\\-")}[A-Za-z0-9._%+-]{1,64}[ \t]{0,4}(?:\[(?:at|AT|At)\]|\((?:at|AT|At)\)|\{(?:at|AT|At)\})[ \t]{0,4}[A-Za-z0-9-]{1,63}` +
        String.raw`(?:(?:\.|[ \t]{0,4}(?:\[(?:dot|DOT|Dot)\]|\((?:dot|DOT|Dot)\)|\{(?:dot|DOT|Dot)\})[ \t]{0,4})[A-Za-z0-9-]{1,63}){0,7}(?:\.|[ \t]{0,4}(?:\[(?:dot|DOT|Dot)\]|\((?:dot|DOT|Dot)\)|\{(?:dot|DOT|Dot)\})[ \t]{0,4})[A-Za-z]{2,24}(?![A-Za-z0-9-])`
    ),
    hints: ["[at]", "(at)", "{at}", "[AT]", "(AT)", "{AT}", "[At]", "(At)", "{At}"]
  },
  {
    // /home/<user>, /Users/<user>, C:\Users\<user> (also C:\\Users\\ as in JSON or code, and C:/Users/): the user's home becomes ~.
    // Also WSL's views of a home: `/mnt/c/Users/<user>`, `\\wsl$\<distro>\home\<user>` (and `wsl.localhost`),
    // and a Claude Code project folder's encoded path after a `/` or alone as a word: `projects/-home-<user>-app`,
    // `-Users-<user>-…` (the user is the word after `home`/`Users`, up to the next `-`); `/var/home/<user>` and
    // `/data/home/<user>` (Fedora Atomic, NAS homes) and a URL-encoded home (`%2Fhome%2F<user>`). Also (tester23b
    // F5, F7) a home in JSON with escaped slashes (`\/home\/<user>`: PHP's json_encode, some Java encoders), in a
    // remote URI (`vscode-remote://ssh-remote+host/home/<user>`, `sftp://host/home/<user>`), and macOS's `/users/`
    // in lower case where it is clearly a home ({@link MAC_LOWER_HOME}). Session 24 (tester24a F9): FreeBSD's
    // `/usr/home/<user>`, Solaris' `/export/home/<user>`, `~<user>/`, `file://<host>/home/<user>` (`file://localhost/…`)
    // and Windows XP's `C:\Documents and Settings\<user>`.
    id: "home-path",
    pattern: re(`${HOME_BASE}|${HOME_OTHER}`    ),
    hints: ["/home/", "/Users/", "\\/home\\/", "/users/", "Users\\", ":/Users/", "\\Users/", "users\\", ":/users/", "\\users/", "USERS\\", ":/USERS/", "/mnt/c/users/", "wsl$", "~", "and Settings", "and settings", "AND SETTINGS", "wsl.localhost", "-home-", "-Users-", "%2Fhome%2F", "%2fhome%2f", "%2FUsers%2F", "%2fUsers%2f"],
    replace: () => HOME,
    apply: (s) => redactHomePaths(s)
  }
]

/**
 * The names of an API listing's page cursor (`next_page_token`, `nextPageToken`, AWS `NextToken`,
 * `continuation_token`, …), their words joined: a cursor, not a credential, so its value stays.
 */
const PAGE_CURSOR_NAME = /^(?:(?:next)?page|next|continuation|pagination)token$/

/**
 * How the key of a structured value names a secret (see {@link secretKeyKind}): `none`; `secret` (its last
 * word is password, passwd, passphrase or secret: any string, and a number, is the secret); `token` (its last
 * word is token, not a page cursor: any string is, a number is a count); `key` (its last word is key after
 * another word, or credential(s): a string that looks like a secret is); `pass` (`pass` or `pwd` after another
 * word, `DB_PASS`, `mysql_pwd`: as `key`, and a number of 4 digits or more, a PIN); `pwd` (`pass` or `pwd` alone:
 * as `key`, when it holds a letter and is no path: `pass: "3/3"` is a test's result, `pwd: "/srv/app"` the
 * working directory); `pin` (a PIN's, a one-time code's, a card verification value's name: 3 to 12 digits, see
 * {@link pinValue}); `header` (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`: its value after the
 * text rules, see {@link headerValue}). Plurals are of their singular's kind (`tokens`: token; `passwords`:
 * secret; `api_keys`: key), and an `X-…-Key` header's name is of kind `token` (any string).
 */
export type SecretKeyKind = "none" | "secret" | "token" | "key" | "pass" | "pwd" | "pin" | "header"

/** Words before a name's last word (as `secret-field`'s names: at most 6 words joined by `_`/`-`, then maybe a camelCase head). */
const KEY_HEAD = "(?:[A-Za-z0-9]{1,40}[_-]){0,6}"
const KEY_SECRET = new RegExp(`^${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["passwords", "passphrases", "secrets", "password", "passwd", "passphrase", "secret"]).join("|")})$`)
const KEY_TOKEN = new RegExp(`^${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["tokens", "token"]).join("|")})$`)
/** An HTTP header's name whose value goes whatever its shape: `X-Api-Key`, `x-api-keys` (an `X-…` header ending in key). */
const KEY_X_KEY = new RegExp(`^[Xx]-${KEY_HEAD}(?:${cases(["keys", "key"]).join("|")})$`)
const KEY_PIN = new RegExp(`^(?:${KEY_HEAD}(?:${PIN_WORDS.join("|")})|${KEY_HEAD}[a-z][A-Za-z0-9]{0,40}(?:${PIN_WORDS.filter((w) => /^[A-Z]/.test(w)).join("|")}))$`)
/** The value under a PIN's name that is one: 3 to 12 digits (a number, or a string of digits). */
export const pinValue = (v: unknown): boolean =>
  typeof v === "number" ? Number.isInteger(v) && v >= 100 && v < 1e12 : typeof v === "string" && /^[0-9]{3,12}$/.test(v)
/** A name whose last word is `words` after another word: `_`/`-` joined (any case), or camelCase (the word capitalized or upper case). */
const afterWord = (words: ReadonlyArray<string>) =>
  `(?:[A-Za-z0-9]{1,40}[_-]){1,6}(?:${cases(words).join("|")})` +
  `|${KEY_HEAD}[A-Za-z][A-Za-z0-9]{0,40}(?:${cases(words).filter((w) => w[0] !== w[0].toLowerCase()).join("|")})`
const KEY_KEY = new RegExp(`^(?:${afterWord(["keys", "key"])}|${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["credential", "credentials"]).join("|")}))$`)
/**
 * More names of a `key` kind (tester20b F2): `apikey` as one word ({@link ONE_WORD_KEYS}), `creds` (credentials
 * shortened), `bearer` (a bearer token under the scheme's name) and a cookie's value under a name ending in `cookie`
 * after another word (`session_cookie`, `authCookie`; `Cookie` alone is the header's).
 */
/** The last characters of {@link KEY_KEY_MORE}'s names (`y`, `s`, `r`, `e` in either case): most keys skip its test. */
const KEY_KEY_MORE_LAST: ReadonlySet<number> = new Set([..."ysreYSRE"].map((c) => c.charCodeAt(0)))
const KEY_KEY_MORE = new RegExp(
  `^(?:${KEY_HEAD}(?:${cases([...ONE_WORD_KEYS, "creds", "bearer"]).join("|")})|${afterWord(["cookies", "cookie"])})$`
)
const KEY_PASS = new RegExp(`^(?:${afterWord(ALONE_WORDS)})$`)
const KEY_ALONE = new RegExp(`^(?:${cases(ALONE_WORDS).join("|")})$`)
/** `pw` alone as a name (any case): a password's when its value looks like one, as `pass` alone (`credential-prose`'s `{"pw": "…"}`). */
const KEY_PW = /^(?:pw|Pw|PW)$/
/**
 * An auth-named HTTP header (session 24, tester24a F1): `X-Custom-Auth`, `X-Auth`, `x-client-auth-v2` (an `X-…`
 * name whose last word, or the one before it, is `auth`), as `credential-prose` reads `X-Custom-Auth: …` in text;
 * a header map's value under it goes when it looks like a secret (kind `key`).
 */
const KEY_X_AUTH = new RegExp(`^[Xx]-${KEY_HEAD}(?:${cases(["auth"]).join("|")})(?:-[A-Za-z0-9]{1,40})?$`)

/**
 * A structured key naming a signature (session 21): `signature`, `sig`, and names whose last word is one
 * (`x_amz_signature`, `webhookSignature`, `X-Goog-Signature`, `X-Hub-Signature-256`, `request_sig`), any case. Not a
 * secret's name to the text rules (`secretKeyKind` gives none: `signature_version`, `signatureMethod` and a text's
 * `"signature": …` are theirs to leave); the walk of a structured value sends a value under it to the marker when it
 * is an opaque blob ({@link opaqueSignature}).
 */
const SIGNATURE_KEY = new RegExp(
  `^(?:${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["signature"]).join("|")})(?:-(?:256|512))?|(?:[A-Za-z0-9]{1,40}[_-]){0,6}(?:sig|Sig|SIG))$`
)
/** Whether `k`, a structured key, names a signature ({@link SIGNATURE_KEY}; the last character checked first: most keys skip the test). */
export const signatureKey = (k: string): boolean => {
  const c = k.charCodeAt(k.length - 1) | 32
  return (c === 101 || c === 103 || c === 54 || c === 50) && k.length <= 300 && SIGNATURE_KEY.test(k)
}
/**
 * The shortest opaque signature that goes: 24 characters (an HMAC-SHA1 in base64, AWS's SigV2, is 28; HMAC-SHA256 in
 * hex 64, in base64 44; Anthropic's thinking signatures run to kilobytes). Shorter values under the name are names
 * (`"signature": "HMAC-SHA256"`, `"sig": "v1"`).
 */
const SIGNATURE_MIN = 24
/** An opaque blob: base64, base64url or hex (`+`, `/`, `_`, `.`, `-`, `=` padding), maybe after a scheme's `sha256=`/`v1=`, a digit and a letter among it. */
const SIGNATURE_VALUE = /^(?:[A-Za-z0-9]{1,16}=)?[A-Za-z0-9+/_.=-]+$/
/**
 * Whether `v`, under a signature's name ({@link signatureKey}), is an opaque signature that goes whole (session 21):
 * a string of {@link SIGNATURE_MIN} characters or more of {@link SIGNATURE_VALUE}, holding a digit and a letter. A
 * signature is not always a secret (an HMAC of a webhook's body, Anthropic's signature of a thinking block, which
 * holds the full thinking encrypted: Amazon Bedrock's Claude docs, "Thinking encryption"), but it may be a capability (a presigned upload's or URL's signature), and no
 * reader of a shared session reads one. What stays: prose (an e-mail's signature, `"Best regards, Bob"`), code (a
 * function's signature, `"(a: string) => void"`), short names (`"HMAC-SHA256"`), booleans and numbers.
 */
export const opaqueSignature = (v: unknown): boolean =>
  typeof v === "string" && v.length >= SIGNATURE_MIN && SIGNATURE_VALUE.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v)

/**
 * Names of a secret whose last word names none (session 16): Rails' `SECRET_KEY_BASE` (`secret_key_base`,
 * `secretKeyBase`) and a kubeconfig's `client-key-data` (a base64 PEM private key); any string under them goes.
 */
const NAMED_SECRET_KEY = /^(?:secret[-_]?key[-_]?base|client[-_]?key[-_]?data)$/i

/**
 * How the key `k` of a structured value (a tool call's input, a provider's `extensions`) names a secret: the
 * names of `secret-field` (words joined by `_`/`-` or camelCase, any case: `DB_PASSWORD`, `db-password`,
 * `dbPassword`, `clientSecret`, `secretKey`, `API_KEY`, `GITHUB_TOKEN`, `private_key`), and `credentials`, and
 * `pass`/`pwd`/`pw` alone, and an auth-named header (`X-Custom-Auth`: kind `key`, session 24). The last word decides: a name whose last word is another (`password_policy`,
 * `token_count`, `max_tokens`, `input_tokens`, `secret_santa`, `tokenizer`, `passwordless`) is none, and so is
 * a page cursor (`next_page_token`, `nextPageToken`, `NextToken`: a listing's position, not a credential). The
 * kind says which values are secrets ({@link SecretKeyKind}). Keys of other characters, or longer than 300, are none.
 */
export const secretKeyKind = (k: string): SecretKeyKind => {
  if (k.length > 300 || k.length < 3) return k.length === 2 && KEY_PW.test(k) ? "pwd" : "none"
  if (HEADER_SECRET.test(k)) return "header"
  if (NAMED_SECRET_KEY.test(k)) return "secret"
  if (DATA_KEY.test(k.replace(/[_-]/g, "").toLowerCase())) return "none"
  if (KEY_X_KEY.test(k)) return "token"
  if (KEY_SECRET.test(k)) return "secret"
  if (KEY_TOKEN.test(k)) {
    const joined = k.replace(/[_-]/g, "").toLowerCase()
    return PAGE_CURSOR_NAME.test(joined) || COUNT_TOKENS.test(joined) ? "none" : "token"
  }
  if (KEY_PIN.test(k)) return "pin"
  if (KEY_KEY.test(k) || (KEY_KEY_MORE_LAST.has(k.charCodeAt(k.length - 1)) && KEY_KEY_MORE.test(k))) return "key"
  if (KEY_PASS.test(k)) return "pass"
  if (KEY_ALONE.test(k)) return "pwd"
  if (k.charCodeAt(1) === 45 && KEY_X_AUTH.test(k)) return "key"
  return "none"
}

/** A string that is a reference or a placeholder, not a value (`$VAR`, `${VAR}`, `{{ … }}`), white space first, or a marker already. */
export const notAValue = (v: string): boolean => {
  const c = v.charCodeAt(0)
  return c === 36 || c === 123 || c === 32 || c === 9 || c === 10 || c === 13 || v.startsWith("[REDACTED:")
}

/** Looks like a secret (as `secret-field` asks of a value under a key/pass/pwd name): a digit and another character among its first 64 (no newline before them), or 16 characters or more. */
export const LOOKS_SECRET = /^(?:(?=[^\n]{0,63}[0-9])(?=[^\n]{0,63}[^0-9\s])|(?=[^\n]{16}))/

/**
 * Whether `v`, under a key of kind `kind` ({@link secretKeyKind}), is the secret itself and goes whole:
 * - a string, not empty, not a reference (`$VAR`, `${VAR}`, `{{ … }}`, `{name}`) nor blanks alone (blanks before it are passed over):
 *   under a `secret` or `token` name always (the key says what it is: `"password": "hunter"`, a short word or
 *   a passphrase with spaces is still the password); under a `key`/`pass`/`pwd` name (`sort_key`,
 *   `shortcutKey`, `partition_key` name no secret) when it looks like one (`LOOKS_SECRET`, the test of
 *   `secret-field`); under `pass`/`pwd` alone when it also holds a letter and is no path ({@link aloneSecret});
 * - a number under a `secret` name (`"password": 123456`): a PIN; under a `pass` name (`DB_PASS`) one of 4
 *   digits or more; under a `token` or `key` name or `pass` alone a number is a count or an id
 *   (`max_token: 100`, `pass: 3`) and stays;
 * - anything else (booleans, null, objects, arrays) is walked as usual.
 */
/** Blanks and line breaks at a string's start. */
const LEADING_BLANKS = /^[ \t\r\n]+/
/**
 * A `{` that starts a template or a placeholder, not a value (`{{ … }}`, `{name}`, `{0}`, `{}`, `{ … }`), or JSON
 * held in the string (`{"k": …}`).
 */
const PLACEHOLDER_START = /^\{(?:[{}\s]|\\{0,7}["']|[A-Za-z0-9_.:\[\]-]{0,64}\})/
export const secretValue = (kind: SecretKeyKind, v: unknown): boolean => {
  if (kind === "pin") return pinValue(v)
  // a header's value: after the text rules (see `headerValue`)
  if (kind === "header") return false
  if (typeof v === "string") {
    // (session 37, tester36b F11: blanks or line breaks before the value are no reference, `" Qz7…"`, `"\nZq8…"`: the
    // value after them is read; so is a `{` that starts no placeholder or template, `"{Zq8…"`)
    const t = v.replace(LEADING_BLANKS, "")
    if (t.length === 0 || (t.charCodeAt(0) === 123 ? PLACEHOLDER_START.test(t) : notAValue(t))) return false
    if (kind === "secret" || kind === "token") return true
    if (!LOOKS_SECRET.test(t)) return false
    return kind !== "pwd" || aloneSecret(t)
  }
  if (typeof v !== "number") return false
  return kind === "secret" || (kind === "pass" && Math.abs(Math.trunc(v)) >= 1000)
}

/** The names of HTTP headers whose value is a credential whatever its shape (besides the names of {@link secretKeyKind}). */
const HEADER_SECRET = /^(?:(?:proxy-)?authorization|(?:set-)?cookie)$/i

/**
 * Whether `value` is a secret given as a name/value pair with `name`: a header as `[name, value]`
 * (`[["X-Api-Key", "…"]]`, `("Cookie", "…")`; `array`), or `{"name"|"key"|"header": name, "value": value}`
 * (HAR, Postman, a Kubernetes env entry). The name is secret-named ({@link secretKeyKind}) or a credential's
 * header (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`). The value is a string, not empty,
 * not a reference, holding no marker (`Bearer [REDACTED:bearer-token]` stays as the text rules left it); it
 * goes whole under a credential's header or an `X-…` header's name; else, in an object, as under a key of that
 * name ({@link secretValue}), and in an array only when it also looks like a secret (`["password", "email"]` is a
 * list of names).
 */
export const pairSecret = (name: unknown, value: unknown, array: boolean): boolean => {
  if (typeof name !== "string" || typeof value !== "string") return false
  if (value.length === 0 || notAValue(value) || value.includes("[REDACTED:")) return false
  if (HEADER_SECRET.test(name)) return true
  const kind = secretKeyKind(name)
  if (kind === "none") return false
  if (name.charCodeAt(1) === 45 && (name.charCodeAt(0) | 32) === 120) return true
  if (array && !LOOKS_SECRET.test(value)) return false
  return secretValue(kind, value)
}

/**
 * The `cookie` rule's replacement of a header's value: each `name=value` pair's value becomes the marker (only the
 * first, the cookie itself, for `Set-Cookie`, whose later pairs are attributes: `Path=/`, `Expires=…`); the names,
 * `=`, `;` and what is no pair (`HttpOnly`) stay. A `$VAR` reference stays.
 */
const cookieValues = (value: string, setCookie: boolean): string => {
  let n = 0
  return value.replace(/(^|;[ \t]*)([^=;\s\\]{1,256})(=|\\{1,2}u003[dD]|\\x3[dD])([^;\s]{1,4096})/g, (m: string, sep: string, name: string, eq: string, v: string) =>
    (setCookie && n++ > 0) || v.startsWith("$") || v.startsWith("[REDACTED:") ? m : `${sep}${name}${eq}${marker("cookie")}`)
}

/** The name a `secret-field` head holds, lower case, its `_` and `-` dropped (`"next_page_token": ` gives `nextpagetoken`). */
const fieldName = (head: string): string => head.replace(/\\{1,2}(?:u00[0-9A-Fa-f]{2}|x[0-9A-Fa-f]{2})/g, "").replace(/[\\"'`:\s=>\]]/g, "").replace(/[_-]/g, "").toLowerCase()

/** A path (the working directory `pwd` names): `/…`, `~…`, `.…`, `C:\…`, `C:/…`. */
export const PATH_LIKE = /^(?:[\/~.]|[A-Za-z]:[\\/])/

/**
 * Whether `v`, under `pass` or `pwd` alone, is a password: it holds a letter (`pass: 3/3`, `pass: 100%` are
 * test results) and is no path (`pwd: /srv/app`, the working directory).
 */
export const aloneSecret = (v: string): boolean => /[A-Za-z]/.test(v) && !PATH_LIKE.test(v)

/**
 * Whether a number under the name `name` (lower case, `_` and `-` dropped, as {@link fieldName}) is a secret:
 * under a name whose last word is password, passwd, passphrase or secret, any number (a PIN); under `pass` or
 * `pwd` after another word (`DB_PASS`, `mysql_pwd`), one of 4 digits or more; else none (`max_token: 100`,
 * `api_key: 12345`, `pass: 3`).
 */
const numberSecret = (name: string, n: string): boolean => {
  if (/(?:password|passwd|passphrase|secret)$/.test(name)) return true
  return name.length > 4 && /(?:pass|pwd)$/.test(name) && /^-?[0-9]{4}/.test(n)
}

/**
 * The replacement of a `secret-field` match: the head (name, quotes, `:`) and the value's quotes stay; a number
 * that goes ({@link numberSecret}) becomes the marker in the key's quotes (`{"password": "[REDACTED:…]"}` stays
 * JSON). Left as they are: a page cursor's field ({@link PAGE_CURSOR_NAME}), a number that is no secret, and a
 * value under `pass`/`pwd` alone that is no password ({@link aloneSecret}).
 */
const fieldReplace = (m: string, ...groups: Array<string>): string => {
  for (let a = 0; a < 2; a++) {
    const [head, keyQuote, q, quoted, num, bare, word] = groups.slice(a * 7, a * 7 + 7)
    if (head === undefined) continue
    const name = fieldName(head)
    if (word !== undefined) return head.includes("=") || !wordSecret(name, word) ? m : `${head}${marker("secret-field")}`
    if (a === 0 && (PAGE_CURSOR_NAME.test(name) || COUNT_TOKENS.test(name))) return m
    if (DATA_KEY.test(name)) return m
    if (num !== undefined) return numberSecret(name, num) ? `${head}${keyQuote}${marker("secret-field")}${keyQuote}` : m
    const alone = a === 1 && (name === "pass" || name === "pwd")
    if (quoted !== undefined) return alone && !aloneSecret(quoted) ? m : `${head}${q}${marker("secret-field")}${q}`
    if (bare !== undefined) return alone && !aloneSecret(bare) ? m : `${head}${marker("secret-field")}`
  }
  return marker("secret-field")
}

/**
 * A final word of a `secret-field` name followed by `:` (maybe after spaces), `=`, or a closing quote (and maybe
 * an index's `]`) then one of them: where a match's name ends.
 */
const FIELD_END = new RegExp(`(?:${cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS]).join("|")})(?=(?:\\\\{0,7}["']|${ESC_QUOTE})?\\]?(?:[ \\t]{0,8}:|[ \\t]*(?:=|${ESC_EQ})|${GO_TYPE})|\\\\{0,7}["'][ \\t]{0,8}(?:\\r?\\n|\\\\{1,2}[rn]))`, "g")
/** The `secret-field` pattern, sticky: tried at given positions. */
const FIELD_AT = new RegExp(fieldAlternatives(), "y")

/**
 * The `secret-field` rule: the same matches as its pattern, found faster. Its pattern has no literal to lead
 * with, so the engine would try it at every position of a text; here each place where a name can end (a final
 * word then `:`, {@link FIELD_END}) is found first, and the pattern is tried (sticky) only at the positions
 * from which a name can reach it: back over name characters (at most 300, longer than a name may be) and a
 * quote with up to 7 backslashes. Linear: each position is tried for at most one such place.
 */
const redactFields = (s: string): string => {
  let out = ""
  let done = 0
  FIELD_END.lastIndex = 0
  let w: RegExpExecArray | null
  while ((w = FIELD_END.exec(s)) !== null) {
    const at = w.index
    let from = at
    while (from > done && at - from < 300 && isUserChar(s.charCodeAt(from - 1)) && s.charCodeAt(from - 1) !== 46) from--
    if (from > done && (s.charCodeAt(from - 1) === 34 || s.charCodeAt(from - 1) === 39)) {
      from--
      for (let k = 0; k < 7 && from > done && s.charCodeAt(from - 1) === 92; k++) from--
    } else if (from > done && s.charCodeAt(from - 1) === 92) {
      // the name's opening quote an escape (`\u0022password`, ESC_QUOTE): its backslashes too (the scan stopped there)
      for (let k = 0; k < 2 && from > done && s.charCodeAt(from - 1) === 92; k++) from--
    }
    for (let p = from; p <= at; p++) {
      FIELD_AT.lastIndex = p
      const m = FIELD_AT.exec(s)
      if (m === null) continue
      out += s.slice(done, p) + fieldReplace(m[0], ...(m.slice(1) as Array<string>))
      done = p + m[0].length
      if (FIELD_END.lastIndex < done) FIELD_END.lastIndex = done
      break
    }
  }
  return done === 0 ? s : out + s.slice(done)
}

/** A JSON `\uXXXX` escape (one to three backslashes: JSON text held in a string, maybe twice): what {@link escapedNameAt} decodes in a name. */
const NAME_ESCAPE = /\\{1,3}u[0-9A-Fa-f]{4}/g
/** Characters of a name that {@link redactEscapedNames} reads: letters, digits, `_`, `-`, `.`. */
const isEscapedNameChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46

/**
 * The quoted name around the escape at `at` in `s` (a JSON key such as `"pass\u0077ord"` or `\"api\\u005fkey\"`),
 * decoded, with where its quoted form ends (after the closing quote) and the quote it is written with; undefined
 * when the escape is in no such name, or the name decodes to characters a name is not made of.
 */
const escapedNameAt = (s: string, at: number): { start: number; end: number; quote: string; decoded: string } | undefined => {
  const step = (p: number, dir: 1 | -1): number => {
    // past name characters and escapes, at most 300 characters
    let q = p
    for (let n = 0; n < 300; n++) {
      if (dir === 1) {
        if (q < s.length && isEscapedNameChar(s.charCodeAt(q))) q++
        else {
          NAME_ESCAPE.lastIndex = q
          const m = NAME_ESCAPE.exec(s)
          if (m === null || m.index !== q) break
          q += m[0].length
        }
      } else {
        if (q > 0 && isEscapedNameChar(s.charCodeAt(q - 1))) q--
        else {
          const m = /\\{1,3}u[0-9A-Fa-f]{4}$/.exec(s.slice(Math.max(0, q - 9), q))
          if (m === null) break
          q -= m[0].length
        }
      }
    }
    return q
  }
  const from = step(at, -1)
  const to = step(at, 1)
  // the quotes: the same quote (maybe escaped) on both sides
  const open = /(\\{0,7})(["'])$/.exec(s.slice(Math.max(0, from - 8), from))
  if (open === null) return undefined
  const quote = open[1] + open[2]
  if (!s.startsWith(quote, to)) return undefined
  let decoded = s.slice(from, to)
  // the name's backslashes before `u` all go (`\\u0077` in JSON text held in a string is `w` too)
  decoded = decoded.replace(NAME_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(-4), 16)))
  if (!/^[A-Za-z0-9_.-]{1,300}$/.test(decoded)) return undefined
  return { start: from - quote.length, end: to + quote.length, quote, decoded }
}

/**
 * `secret-field` for JSON keys written with escapes inside the name (session 24, tester24a F7): a JSON parser reads
 * `"pass\u0077ord"` as `password` and `"api\u005fkey"` as `api_key`. Each quoted name holding a `\uXXXX` escape is
 * decoded; the value after it (to its line's end, at most {@link ESCAPED_NAME_REACH} characters) is redacted as
 * `secret-field` would under the decoded name ({@link redactFields}), as `[REDACTED:escaped-name]`, and the name
 * stays as it is written.
 */
const redactEscapedNames = (s: string): string => {
  if (!s.includes("\\u") && !s.includes("\\\\u")) return s
  let out = s
  NAME_ESCAPE.lastIndex = 0
  for (let at = 0; ; ) {
    NAME_ESCAPE.lastIndex = at
    const e = NAME_ESCAPE.exec(out)
    if (e === null) break
    at = e.index + e[0].length
    const name = escapedNameAt(out, e.index)
    if (name === undefined) continue
    at = Math.max(at, name.end)
    const sep = /^[ \t]{0,8}(?::|=)[ \t]{0,8}/.exec(out.slice(name.end, name.end + 20))
    if (sep === null) continue
    const head = `${name.quote}${name.decoded}${name.quote}${sep[0]}`
    const valueAt = name.end + sep[0].length
    let stop = out.indexOf("\n", valueAt)
    if (stop < 0 || stop > valueAt + ESCAPED_NAME_REACH) stop = Math.min(out.length, valueAt + ESCAPED_NAME_REACH)
    const rest = out.slice(valueAt, stop)
    const r = redactFields(head + rest)
    if (r === head + rest || !r.startsWith(head)) continue
    // the value's marker names this rule (its first: the value starts the rest, whose later fields are redacted already)
    out = out.slice(0, valueAt) + r.slice(head.length).replace(marker("secret-field"), marker("escaped-name")) + out.slice(stop)
    at = valueAt
  }
  return out
}
/** How far after an escaped name {@link redactEscapedNames} reads its value. */
const ESCAPED_NAME_REACH = 4096

/** What every `.pgpass` line holds: `:port:database:user:` (the `pgpass-password` rule's quick look). */
const PGPASS_QUICK = /:(?:[0-9]{1,5}|\*):[^\s:\\]{1,64}:[^\s:\\]{1,64}:/

/** `credential-prose`'s patterns (see the rule): each has the kept head in group 1 and the value in group 2 (or a quote in 2 and the value in 3). */
const CRED_USER_PW = /((?:\b[Cc]redentials?|\bCREDENTIALS?|\b[Cc]reds|\bCREDS)(?:\s+(?:are|is|were|was|ARE|IS))?\s*[:=]?\s+[A-Za-z0-9._@-]{1,64}\s*\/\s*|\b(?:[Ll]og(?:ged)?[ -]?[Ii]n|[Ss]ign(?:ed)?[ -]?[Ii]n)\s+(?:as|with)\s+[A-Za-z0-9._@-]{1,64}\s*\/\s*)(?![$\{]|\[REDACTED:)([^\s"'`\\]{4,128}?)(?=[.,;:!?)]*(?:[\s"'`\\]|$))/g
const CRED_PASSWORD_WORD = /(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))\s+)(?!(?:is|was|for|of|to|as|IS|WAS)\b)(?![$\{]|\[REDACTED:)([^\s"'`\\=]{6,128}?)(?=[.,;:!?)]*(?:[\s"'`\\]|$))/g
const CRED_PASSWORD_EQ = /(\b(?:[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD))\s+=\s+)(?![$\{]|\[REDACTED:)([^\s"'`\\(),;]{6,128}?)(?=[.,;:!?]*(?:[\s"'`\\]|$))(?![ \t]+(?:[-+*/%?]|==|if\b|else\b|and\b|or\b))/g
const CRED_PASSWORD_QUOTED = new RegExp(String.raw`(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))\s+(["'${"`"}]))(?![\s$\{]|\[REDACTED:)(?=[^"'${"`"}\n\\]{0,127}[0-9@#$%^&*+=~_!])(${quotedValue(2, "{1,128}")})\2`, "g")
/**
 * A user and a password told together in prose (tester26a F4): "login with user admin and pass X", "user bob,
 * password: X", "username alice & pw X": head in group 1 (the user's word, the user, `and`/`,`/`&`, the password's
 * word and its `:`/`=`/`is`), value in group 2 (a credential's shape: a digit or a symbol and a letter). One space
 * before the password's word, so the rule's hints can name the joint (`d pass`, `, pass`, `& pass`): a hint of
 * ` pass` alone ran the rule on every text that says "tests passed" and doubled the redaction step's time.
 */
const CRED_USER_AND_PASS = /(\b(?:[Uu]ser(?:name)?|USER(?:NAME)?)\s+[A-Za-z0-9._@-]{1,64}(?:\s*[,&]|\s+(?:and|AND))\s{1,8}(?:[Pp]ass(?:word)?|PASS(?:WORD)?|[Pp]wd?|PWD?)(?:\s*[:=]\s*|\s+(?:is\s+)?))(?![$\{]|\[REDACTED:)([^\s"'`\\]{4,128}?)(?=[.,;:!?)]*(?:[\s"'`\\]|$))/g
const CRED_USER_PASS = /((?:^|(?<=[\s;&?]))(?:user|username|login|USER|USERNAME)=[^\s&;]{1,64}[ \t&;]+(?:pass|pwd|pw|PASS|PWD|PW)=)(?![$\{]|\[REDACTED:)([^\s&;"'\\]{1,256})/g
const CRED_PW_FIELD = new RegExp(String.raw`((\\{0,7}["'])(?:pw|PW)\2\s{0,8}:\s{0,8}(\\{0,7}["']))(?![$\{]|\[REDACTED:)(${quotedValue(3, "{1,256}")})\3`, "g")
const CRED_AUTH_HEADER = /((?:^|(?<=[\s"'{,]|\\[nrt]))[Xx]-(?:[A-Za-z0-9]{1,40}-){0,6}(?:[Aa]uth|AUTH)(?:-[A-Za-z0-9]{1,40})?(\\?["']?)\s*:\s*(\\?["']?))(?![$\{]|\[REDACTED:)([^\s"'\\]{6,512})/g
/**
 * `pw` or `pwd` alone as a password's name in prose (session 26, tester25a F13: `pw: \u2026`, "my pwd is \u2026", `pw = \u2026`,
 * `pwd \u2014 \u2026`): head in group 1 (its quote in 2), value in 3; the value goes when it is a credential's shape and no path
 * ({@link pwAbbrevValue}: `pwd: /home/bob/app2` is the working directory).
 */
const CRED_PW_ABBREV = /(\b(?:[Pp]wd?|PWD?)(?:\s+(?:is|was|IS|WAS)(?:\s*:)?\s+|\s*[:=\u2014\u2013]\s*)(["'`]?))(?![$\{]|\[REDACTED:)([^\s"'`\\]{6,128}?)(?=[.,;:!?)]*(?:[\s"'`\\]|$))/g
/** Whether a value after `pw`/`pwd` ({@link CRED_PW_ABBREV}) is a password: a credential's shape ({@link proseCredential}), no `/`, not `~` or `.` first. */
const pwAbbrevValue = (v: string): boolean => proseCredential(v, false) && !v.includes("/") && !/^[~.]/.test(v)
const CRED_OTP_SEED = /(\b(?:2FA|TOTP|OTP|MFA|[Tt]otp|[Oo]tp|[Mm]fa)\s{1,8}(?:[Ss]ecret|[Ss]eed)(?:\s+(?:is|was))?\s*[:=]?\s*)([A-Z2-7]{16,128}={0,6})(?![A-Za-z0-9])/g

/**
 * A value right after a password's word and a question mark (session 27: "and the password? X"): head in group 1,
 * value in group 2; it goes when it is a credential's shape ({@link proseCredential}: "What is the password? I forgot" stays).
 */
const CRED_PASSWORD_QUESTION = /(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))\s{0,2}\?(?:\s{1,8}[A-Za-z'\u2019]{1,10}[:,]?){0,2}\s{1,8})(?![$\{]|\[REDACTED:)([^\s"'`\\]{6,128}?)(?=[.,;:!?)]*(?:[\s"'`\\]|$))/g
/**
 * A phrase after a password's word, up to four words and a colon (session 27: "The passphrase I chose: correct horse
 * QZbattery9", "my password for the NAS: \u2026"): head in group 1, the phrase in group 2, to the line's end, the
 * sentence's (`.`, `!`, `?`, `;` then white space) or a quote's (JSON text). It goes whole when one of its words is a credential's shape
 * ({@link phraseCredential}): "Password policy: at least 8 characters" stays.
 */
const CRED_PASSPHRASE = /(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))(?:[ \t]{1,4}[A-Za-z']{1,20}){0,4}[ \t]{0,4}:[ \t]{1,8})(?![$\{]|\[REDACTED:)([^\s"'`\\][^\r\n"'`\\]{0,127}?)(?=[.!?;,]?[ \t]*(?:\r?\n|\\[nr]|\\{0,3}["'`]|$)|[.!?;][ \t])/g
/**
 * Whether a phrase {@link CRED_PASSPHRASE} found is a password: a word of it a credential's shape (not a date or a
 * time stamp: "Password changed: 2026-01-02T10:00:00Z by bob"), no URL, no marker.
 */
const phraseCredential = (v: string): boolean =>
  !v.includes("://") && !v.includes("[REDACTED:") &&
  v.split(/[ \t]+/).some((w) => !/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(w) && proseCredential(w.replace(/[.,;:!?)]+$/, ""), false))

/**
 * A quoted value after a password's word, up to four words, and `is`/`was` (session 27, tester27b F3: "the password
 * with spaces is \"open sesame 42\""): head in group 1 (its quote, escaped too in JSON text, in 2), the value in 3; it goes whole
 * when it holds a digit or a symbol, as `password-prose`'s quoted phrase (`is "required"` stays).
 */
const CRED_PASSWORD_IS_QUOTED = /(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))(?:\s{1,4}[A-Za-z']{1,20}){0,4}\s{1,8}(?:is|was|IS|WAS)(?:\s*:)?\s{1,8}(\\{0,3}["'`]))(?![$\{]|\[REDACTED:)([^"'`\\\n]{1,128})(?=\2)/g
/**
 * An unquoted phrase of two to six words right after `password is` (session 27, tester27b F3: "my password is correct
 * horse battery 7staple"), to the line's, the sentence's or a quote's end: head in group 1, the phrase in 2. It goes
 * whole when a word of it is a credential's shape ({@link phraseCredential}): "the password is stored in the vault" stays.
 */
const CRED_PASSWORD_IS_PHRASE = /(\b(?:[Pp]ass(?:word|phrase)|PASS(?:WORD|PHRASE))[ \t]{1,8}(?:is|was|IS|WAS)(?:[ \t]*:)?[ \t]{1,8})(?![$\{]|\[REDACTED:)([A-Za-z0-9](?:[^\s"'`\\]{0,40}[^\s"'`\\.!?;,])?(?:[ \t]{1,4}[^\s"'`\\.!?;,](?:[^\s"'`\\]{0,40}[^\s"'`\\.!?;,])?){1,5}?)(?=[.!?;,]?[ \t]*(?:\r?\n|\\[nr]|\\{0,3}["'`]|$)|[.!?;,][ \t])/g

/**
 * A phrase after `password is` that is English prose about the password, not a passphrase ({@link CRED_PASSWORD_IS_PHRASE}):
 * its first word a participle or an adverb (`hashed`, `set`, `stored`, `reset`, `now`, `still`, \u2026), or a word of it an
 * article, a preposition or a conjunction ("the password is hashed with sha256 first", "set via the env var DB_PASS2").
 */
const PROSE_PHRASE = /^(?:[A-Za-z]+ed|set|kept|sent|shown|written|given|now|still|also|only|just|not|never|always|being|too|very)(?![^ \t])|(?:^|[ \t])(?:the|a|an|in|on|at|by|via|with|from|for|of|to|and|or|but|than|when|if|into|as|THE|IN|ON|BY|VIA|WITH|FROM|FOR|OF|TO|AND|OR)(?![^ \t])/i

/** The `credential-prose` rule: its patterns in turn, each value checked for a credential's shape where the words alone do not say so. */
const credentialProse = (s: string): string => {
  const M = marker("credential-prose")
  let out = s
  out = out.replace(CRED_USER_PW, (m, head: string, v: string) => (/[0-9@#$%^&*+=~_!]/.test(v) && /[A-Za-z]/.test(v) ? `${head}${M}` : m))
  out = out.replace(CRED_PASSWORD_WORD, (m, head: string, v: string) => (proseCredential(v, false) ? `${head}${M}` : m))
  out = out.replace(CRED_PASSWORD_EQ, (m, head: string, v: string) => (proseCredential(v, false) ? `${head}${M}` : m))
  // in backticks (inline code) a bare identifier or an option (`db_password`, `--password-stdin`) is no password
  out = out.replace(CRED_PASSWORD_QUOTED, (m, head: string, q: string, v: string) => (q === "`" && /^[A-Za-z_.-]+$/.test(v) ? m : `${head}${M}${q}`))
  out = out.replace(CRED_USER_AND_PASS, (m, head: string, v: string) => (/[0-9@#$%^&*+=~_!]/.test(v) && /[A-Za-z]/.test(v) ? `${head}${M}` : m))
  out = out.replace(CRED_USER_PASS, (m, head: string, v: string) => (/[0-9]/.test(v) && /[^0-9]/.test(v) && v.length >= 4 ? `${head}${M}` : m))
  out = out.replace(CRED_PW_FIELD, (m, head: string, _q: string, q: string, v: string) => (aloneSecret(v) && LOOKS_SECRET.test(v) ? `${head}${M}${q}` : m))
  out = out.replace(CRED_AUTH_HEADER, (m, head: string, _k: string, _q: string, v: string) => (LOOKS_SECRET.test(v) ? `${head}${M}` : m))
  out = out.replace(CRED_OTP_SEED, (_m, head: string) => `${head}${M}`)
  out = out.replace(CRED_PW_ABBREV, (m, head: string, _q: string, v: string) => (pwAbbrevValue(v) ? `${head}${M}` : m))
  out = out.replace(CRED_PASSWORD_QUESTION, (m, head: string, v: string) => (proseCredential(v, false) ? `${head}${M}` : m))
  out = out.replace(CRED_PASSWORD_IS_QUOTED, (m, head: string, _q: string, v: string) => (v.trim().length >= 4 && /[0-9@#$%^&*+=~_!]/.test(v) && !notAValue(v) && !/^\*+$/.test(v) ? `${head}${M}` : m))
  out = out.replace(CRED_PASSWORD_IS_PHRASE, (m, head: string, v: string) => (phraseCredential(v) && !PROSE_PHRASE.test(v) ? `${head}${M}` : m))
  if (out.includes(":")) out = out.replace(CRED_PASSPHRASE, (m, head: string, v: string) => (phraseCredential(v) ? `${head}${M}` : m))
  return out
}

/** Characters of a user name in `/home/<user>` (and of the word a home path may not follow): `A-Z a-z 0-9 . _ -`. */
const isUserChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 45

/**
 * One of the strings {@link redactHomePaths} tests for before it takes the whole pattern (`\/`, `Users`, `users`,
 * `USERS`, `-home-`, `wsl`, `home%2`, the other systems' `/var/home/` and the like, `~`, `Settings`): a text without any (most
 * texts with a `/home/`) is read once by this pattern instead of once by each test.
 */
const HOME_PATH_OTHER = /\\\/|[Uu]sers|USERS|-home-|wsl|home%2|\/(?:var|data|usr|export)\/home\/|~|[Ss]ettings|SETTINGS/

/**
 * The `home-path` rule: by hand for a string without `Users` (then only its
 * `/home/<user>` branch can match, most strings), else its pattern. From each
 * `/home/` at the start of a token (the string's start, a character outside
 * `A-Z a-z 0-9 . _ -`, or a `\n`/`\r`/`\t` escape before it), the user
 * name (at least one of those characters) becomes `~`. Linear: each `/home/`
 * is read once and each name once.
 */
const redactHomePaths = (s: string): string => {
  // (escaped slashes and lower-case `/users/` by the whole pattern; a remote URI's `/home/` by hand below)
  // a text without any of the tests' strings (the most common) skips them all: one pass ({@link HOME_PATH_OTHER})
  const hinted = HOME_PATH_OTHER.test(s)
  const other = hinted && (s.includes("\\/") || s.includes("/users/")) && OTHER_HOMES.test(s)
  if (other || (hinted && (s.includes("Users") || ((s.includes("users") || s.includes("USERS")) && LOWER_USERS.test(s)) || s.includes("-home-") || s.includes("wsl") || s.includes("home%2") || s.includes("/var/home/") || s.includes("/data/home/") ||
    s.includes("/usr/home/") || s.includes("/export/home/") || (s.includes("~") && TILDE_AT.test(s)) || /[Ss]ettings|SETTINGS/.test(s)))) {
    const pattern = other || s.includes("://") ? HOME_PATH : HOME_PATH_BASE
    pattern.lastIndex = 0
    return s.replace(pattern, HOME)
  }
  let out = ""
  let done = 0
  let at = s.indexOf("/home/")
  while (at >= 0) {
    const before = at === 0 ? -1 : s.charCodeAt(at - 1)
    // (as the pattern's `lead`: after an escape, or a percent-encoded byte: `%20/home/…`)
    const starts = before < 0 || !isUserChar(before) || escapeEndsAt(s, at) ||
      (at >= 3 && s.charCodeAt(at - 3) === 37 && isHex(s.charCodeAt(at - 2)) && isHex(before)) || remoteHomeAt(s, at)
    if (starts) {
      let end = at + 6
      while (end < s.length && isUserChar(s.charCodeAt(end))) end++
      if (end > at + 6) end = userFolderEnd(s, end)
      if (end > at + 6) {
        out += s.slice(done, at) + HOME
        done = end
        at = s.indexOf("/home/", end)
        continue
      }
    }
    at = s.indexOf("/home/", at + 1)
  }
  return done === 0 ? s : out + s.slice(done)
}

/**
 * {@link REMOTE_HOME} by hand: whether the `/home/` at `at` follows a remote URI's authority (`vscode-remote://`,
 * `sftp://` or `ssh://`, then 1 to 255 characters other than `/`, white space, quotes, `<` and `>`).
 */
const remoteHomeAt = (s: string, at: number): boolean => {
  let p = at
  const lo = Math.max(0, at - 255)
  while (p > lo && !AUTHORITY_END.test(s[p - 1])) p--
  return p < at && p >= 3 && s.charCodeAt(p - 1) === 47 && s.charCodeAt(p - 2) === 47 && s.charCodeAt(p - 3) === 58 && REMOTE_SCHEME.test(s.slice(Math.max(0, p - 16), p - 3))
}
/** A character that ends a remote URI's authority, read backward ({@link remoteHomeAt}). */
const AUTHORITY_END = /[/\s"'<>]/
/** The schemes of {@link REMOTE_HOME}, at a text's end. */
const REMOTE_SCHEME = /(?:vscode-remote|sftp|ssh|file)$/
/** A run of user-name characters from `p` (maybe none), and the apostrophes joining more of them (`o'neil`); its end. */
const userRunEnd = (s: string, p: number): number => {
  let e = p
  while (e < s.length && isUserChar(s.charCodeAt(e))) e++
  while (s.charCodeAt(e) === 39 && e + 1 < s.length && isUserChar(s.charCodeAt(e + 1))) {
    e++
    while (e < s.length && isUserChar(s.charCodeAt(e))) e++
  }
  return e
}
/**
 * {@link HOME_USER} by hand: where the user folder whose first run of name characters ends at `end` ends (its
 * apostrophes, then up to three capitalized words after one space each when a `/`, a backslash, a quote, a line
 * break or the text's end follows them, or else up to the last apostrophe among the words, as the pattern gives
 * back: `/home/e Y'S:` is `e Y`).
 */
const userFolderEnd = (s: string, end: number): number => {
  const e = userRunEnd(s, end)
  let w = e
  for (let k = 0; k < 3; k++) {
    const c = s.charCodeAt(w + 1)
    if (s.charCodeAt(w) !== 32 || !(c >= 65 && c <= 90)) break
    w = userRunEnd(s, w + 2)
  }
  const sep = s.charCodeAt(w)
  if (w === e || w === s.length || sep === 47 || sep === 92 || sep === 34 || sep === 39 || sep === 96 || sep === 13 || sep === 10) return w
  // as the pattern backtracks: the words end before the last apostrophe among them (a quote follows there), if any
  const apostrophe = s.lastIndexOf("'", w - 1)
  return apostrophe > e ? apostrophe : e
}

/** A Windows home written in lower or upper case (`c:/users/`, `C:\\USERS\\`, `/mnt/c/users/`): the pattern's case. */
/** Where a text may hold {@link TILDE_HOME}. */
const TILDE_AT = /~[A-Za-z_]/
const LOWER_USERS = /(?:[A-Za-z]:(?:\\+|\/)|\/mnt\/[a-z]\/)(?:users|USERS)(?:\\+|\/)/
/** The `home-path` rule's pattern. */
const HOME_PATH = builtinRules.find((r) => r.id === "home-path")!.pattern
/** {@link HOME_BASE} as a pattern: the `home-path` rule's for a text with no form of {@link OTHER_HOMES}. */
const HOME_PATH_BASE = re(HOME_BASE)

/** A letter, a digit or a combining mark of any script (an internationalized address's, RFC 6531: `björn`, `用户`). */
const WORD_LETTER = /[\p{L}\p{N}\p{M}]/u
/** Local-part characters of an email address: `A-Z a-z 0-9 . _ % + -`, and letters and digits of any script. */
const isLocal = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 ||
  (c >= 0x80 && WORD_LETTER.test(String.fromCharCode(c)))
/** The length of the local-part character that ends right before `p` (a letter beyond U+FFFF is two): 0 when none. */
const localBefore = (s: string, p: number): number => {
  if (p <= 0) return 0
  const c = s.charCodeAt(p - 1)
  if (c >= 0xdc00 && c <= 0xdfff) {
    const h = s.charCodeAt(p - 2)
    return p >= 2 && h >= 0xd800 && h <= 0xdbff && WORD_LETTER.test(s.slice(p - 2, p)) ? 2 : 0
  }
  return isLocal(c) ? 1 : 0
}

/**
 * The domain of an email address, after its `@` (a sticky pattern: tried at one position): labels of letters, digits
 * and `-` (of any script: an internationalized domain, `exämple.de`, `例子.中国`), a top-level domain of letters.
 */
const EMAIL_DOMAIN = /[\p{L}\p{N}\p{M}-]{1,63}(?:\.[\p{L}\p{N}\p{M}-]{1,63}){0,8}\.(?!(?:png|jpe?g|gif|svg|webp|ico|bmp|avif)(?![A-Za-z]))[\p{L}\p{M}]{2,24}(?![\p{L}\p{N}\p{M}(\[-])/uy
/** {@link EMAIL_LITERAL}, a sticky pattern: an address literal right after an `@`. */
const EMAIL_LITERAL_AT = new RegExp(EMAIL_LITERAL, "y")
/**
 * An email's `@` as written (tester20b F5): itself, percent-encoded (`carol%40example.com`: a URL's query, a form
 * body) or as JSON's `\u0040` (`judy\u0040example.com`).
 */
const EMAIL_AT = /@|%40|\\u0040/g

/**
 * The `email` rule by hand: from each `@`, the local part back to where a
 * token may start (the start of its run, not after a backslash, or right
 * after a `\n`/`\r`/`\t` escape; at most 64 characters; not `git`), the
 * domain forward with a sticky pattern. Linear: each `@` looks back at most
 * 66 characters.
 */
const redactEmails = (s: string): string => {
  let out = ""
  let done = 0
  /** The next `@` (or its encoding, {@link EMAIL_AT}) from `p`, and its length; -1 when none. */
  let atLength = 1
  // (a text without an encoded `@` is searched by indexOf: one pass, no pattern)
  const encoded = s.includes("%40") || s.includes("\\u0040")
  const nextAt = (p: number): number => {
    if (!encoded) return s.indexOf("@", p)
    EMAIL_AT.lastIndex = p
    const m = EMAIL_AT.exec(s)
    if (m === null) return -1
    atLength = m[0].length
    return m.index
  }
  let at = nextAt(0)
  while (at >= 0) {
    // the local part's run back from the `@`, at most 65 characters looked at (a letter beyond U+FFFF is one)
    let b = at
    let n = 0
    for (let w = localBefore(s, b); w > 0 && n <= 64; w = localBefore(s, b)) {
      b -= w
      n++
    }
    // The leftmost start in [b, at): the run's start (not after a backslash), else after a \n, \r or \t escape.
    let from = -1
    const runStart = localBefore(s, b) === 0
    if (runStart && n <= 64 && (b === 0 || s.charCodeAt(b - 1) !== 92) && !inCsiParams(s, b)) from = b
    else {
      for (let p = Math.max(b, 2); p < at; p++) {
        if (escapeEndsAt(s, p)) {
          from = p
          break
        }
      }
    }
    if (from >= done && from < at && s.slice(from, at) !== "git") {
      const domain = s.charCodeAt(at + atLength) === 91 ? EMAIL_LITERAL_AT : EMAIL_DOMAIN
      domain.lastIndex = at + atLength
      if (domain.test(s)) {
        out += s.slice(done, from) + marker("email")
        done = domain.lastIndex
        at = nextAt(done)
        continue
      }
    }
    at = nextAt(at + 1)
  }
  return done === 0 ? s : out + s.slice(done)
}

/** The ids of the built-in rules, in order. */
export const builtinRuleIds: ReadonlyArray<string> = builtinRules.map((r) => r.id)

/**
 * Whether a string holds one of a rule's hints, as one pattern: one pass over a long string, where testing
 * each hint with `includes` took one pass per hint (most of the redact figure's time on long text).
 */
const hintPatterns = new WeakMap<RedactionRule, RegExp>()
const hintsOf = (rule: RedactionRule): RegExp => {
  let p = hintPatterns.get(rule)
  if (p === undefined) {
    p = new RegExp(rule.hints.map(escapeRegExp).join("|"))
    hintPatterns.set(rule, p)
  }
  return p
}

/** One rule applied to one string (by hand when it has `apply`, else its pattern). */
const applyRule = (rule: RedactionRule, s: string): string => {
  if (rule.apply !== undefined) return rule.apply(s)
  rule.pattern.lastIndex = 0
  return rule.replace === undefined
    ? s.replace(rule.pattern, marker(rule.id))
    : s.replace(rule.pattern, rule.replace as (m: string, ...g: Array<string>) => string)
}

/** The characters of a huge text a rule's pass reads between two pauses ({@link applyRuleSteps}). */
const RULE_CHARS_PER_STEP = 1 << 19

/**
 * {@link applyRule} on a huge text (`./pausable.ts`), pausing after each {@link RULE_CHARS_PER_STEP} characters the
 * pattern's search went past: its matches found one at a time (`exec` from where the last one ended, as `replace`
 * finds them: the same matches, the whole text seen by lookbehinds) and each replaced as `replace` replaces it (the
 * function given the match, its groups, its offset and the text, and the named groups when the pattern has some).
 * A rule done by hand (`apply`) runs whole.
 */
function* applyRuleSteps(rule: RedactionRule, s: string): Generator<void, string, void> {
  if (rule.apply !== undefined) return rule.apply(s)
  const re = rule.pattern
  const mark = marker(rule.id)
  const fn = rule.replace as ((...args: Array<unknown>) => string) | undefined
  const parts: Array<string> = []
  let done = 0
  let paused = 0
  re.lastIndex = 0
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const at = m.index
    parts.push(s.slice(done, at))
    if (fn === undefined) parts.push(mark)
    else {
      const args: Array<unknown> = [...m, at, s]
      if (m.groups !== undefined) args.push(m.groups)
      parts.push(String(fn(...args)))
    }
    done = at + m[0].length
    // an empty match: on past it (by a code point with the `u` flag), as `replace` does
    if (m[0].length === 0) re.lastIndex = at + (re.unicode && at + 1 < s.length && (s.charCodeAt(at) & 0xfc00) === 0xd800 && (s.charCodeAt(at + 1) & 0xfc00) === 0xdc00 ? 2 : 1)
    if (re.lastIndex - paused >= RULE_CHARS_PER_STEP) {
      paused = re.lastIndex
      const from = re.lastIndex
      yield
      // (another text may have been redacted by this rule meanwhile: its pattern's place is this text's again)
      re.lastIndex = from
    }
  }
  re.lastIndex = 0
  if (parts.length === 0) return s
  parts.push(s.slice(done))
  return parts.join("")
}

/**
 * One string with every rule applied, in order (a later rule sees the
 * replacements of earlier ones; none of them matches a replacement).
 */
export const redactText = (rules: ReadonlyArray<RedactionRule>, s: string): string => {
  let out = s
  for (const rule of rules) {
    if (rule.hints.length > 0 && !hintsOf(rule).test(out)) continue
    out = applyRule(rule, out)
  }
  return out
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * {@link redactText} by `rules`, with a prefilter: one pass over the string
 * finds which of the rules' hints it holds (a rule's `gate` in place of its
 * hints when it has one; `./needles.ts`), a string that holds none is
 * returned as it is (most strings), and a rule runs only when one of its
 * hints (its gate, then its hints) is in the text it is given. Once a rule
 * has changed the text, the later rules look for their gate and hints with
 * patterns that stop at the first hit (no second pass of the scanner). Rules
 * without hints (custom rules) are always tried, and then no string is
 * returned early. Same result as {@link redactText} (a rule whose gate is
 * absent cannot match: test/domain/redaction-differential.test.ts).
 */
export const textRedactor = (rules: ReadonlyArray<RedactionRule>): (s: string) => string => textRedaction(rules).redact

/** {@link textRedactor}'s redaction with its prefilter's scan given apart ({@link textRedaction}). */
export interface TextRedaction {
  /** A string redacted by the rules (as {@link textRedactor}). */
  readonly redact: (s: string) => string
  /**
   * One pass of the prefilter over `s`: bit 1 set when a rule may change `s` (it holds a rule's gate or hints, or
   * some rule has no hints), else `redact(s)` is `s`; bit 2 set when `s` holds one of the `flagged` characters. A
   * `redact` of the same string next reuses the pass.
   */
  readonly scan: (s: string) => number
  /**
   * The literal needles of the prefilter (every rule's gate, else its hints) and whether it filters at all (false
   * when a rule has no hints: then every string is tried): a string holding none of them (and none of the `flagged`
   * characters) is one `redact` returns as it is.
   */
  readonly needles: ReadonlyArray<string>
  readonly prefiltered: boolean
}

/**
 * {@link textRedactor} with its prefilter's pass available apart ({@link TextRedaction.scan}), that pass also
 * looking for the `flagged` characters (the view's, `./views.ts`: one pass over a string that holds neither a hint
 * nor one of them, the most common). Same redaction as {@link textRedactor}.
 */
export const textRedaction = (rules: ReadonlyArray<RedactionRule>, flagged = ""): TextRedaction => {
  const needles: Array<string> = []
  const indexOf = new Map<string, number>()
  const needle = (n: string): number => {
    let i = indexOf.get(n)
    if (i === undefined) {
      i = needles.length
      needles.push(n)
      indexOf.set(n, i)
    }
    return i
  }
  const plans = rules.map((rule) => ({
    rule,
    always: rule.hints.length === 0,
    // one of these must be in the text: the gate, else the hints
    scanned: Int32Array.from((rule.gate ?? rule.hints).map(needle)),
    // with a gate, the hints are then checked by one pass of their own
    confirm: rule.gate !== undefined && rule.hints.length > 0 ? hintsOf(rule) : undefined
  }))
  const scanner = needleScanner(needles, flagged)
  const prefilter = plans.every((p) => !p.always)
  // the rules each needle is scanned for: after a scan, the rules one of whose needles the text holds are marked
  // (ruleMark[r] === marked), from the few needles found rather than by asking for every rule's needles
  const rulesOf: Array<Array<number>> = needles.map(() => [])
  plans.forEach((p, r) => p.scanned.forEach((k) => {
    if (!rulesOf[k].includes(r)) rulesOf[k].push(r)
  }))
  const rulesOfNeedle = rulesOf.map((rs) => Int32Array.from(rs))
  const ruleMark = new Int32Array(plans.length).fill(-1)
  let marked = 0
  // the string of the last scan (its answers: `anyNeedle`, `flag`, the rules marked), undefined before one
  let last: string | undefined
  let anyNeedle = false
  let flag = false
  const scanOf = (s: string): void => {
    if (s === last) return
    anyNeedle = scanner.scan(s)
    flag = scanner.flagged()
    if (marked === 0x7fffffff) {
      ruleMark.fill(-1)
      marked = 0
    }
    const m = ++marked
    for (let j = 0, n = scanner.foundCount(); j < n; j++) {
      const rs = rulesOfNeedle[scanner.foundAt(j)]
      for (let i = 0; i < rs.length; i++) ruleMark[rs[i]] = m
    }
    last = s
  }
  // after a rule changed the text: one pattern of each rule's gate (the hints' own pattern is `hintsOf`)
  const gates = plans.map((p) => (p.rule.gate !== undefined && p.rule.gate.length > 0 ? new RegExp(p.rule.gate.map(escapeRegExp).join("|")) : undefined))
  /**
   * Whether rule `r` runs on `out` (the text as the rules before it left it) of `s`: always when it has no hints;
   * on `s` itself, when the scan of `s` marked it (`found(r)`) and its hints confirm it; on a changed text, when its
   * gate and its hints are there.
   */
  const runs = (r: number, s: string, out: string, found: (r: number) => boolean): boolean => {
    const p = plans[r]
    if (p.always) return true
    if (out === s) return found(r) && (p.confirm === undefined || p.confirm.test(out))
    // The text changed: a pattern of the rule's gate and one of its hints, each of which stops at the
    // first hit, rather than another whole pass of the scanner per change (a long text with many secrets
    // was scanned again after each rule that redacted something).
    const gate = gates[r]
    return (gate === undefined || gate.test(out)) && hintsOf(p.rule).test(out)
  }
  const isMarked = (r: number) => ruleMark[r] === marked
  /**
   * {@link redact} of a huge text (`./pausable.ts`), pausing after the scan and after each rule that ran: the
   * scan's answers are its own (another text may be redacted during a pause).
   */
  function* redactSteps(s: string): Generator<void, string, void> {
    scanOf(s)
    const any = anyNeedle
    const found = Uint8Array.from(plans, (_, r) => (isMarked(r) ? 1 : 0))
    if (prefilter && !any) return s
    yield
    let out = s
    for (let r = 0; r < plans.length; r++) {
      if (!runs(r, s, out, (k) => found[k] === 1)) continue
      out = yield* applyRuleSteps(plans[r].rule, out)
      yield
    }
    return out
  }
  const huge = new Kept<undefined, string>(() => true)
  const redact = (s: string): string => {
    if (s.length >= HUGE) {
      const kept = huge.get(s, undefined)
      return kept !== undefined ? kept : stepped(redactSteps(s), (out) => huge.set(s, undefined, out))
    }
    // whether `s` has been scanned (the answers are about `s`, not about a text a rule has changed)
    let scanned = false
    if (prefilter) {
      scanOf(s)
      if (!anyNeedle) return s
      scanned = true
    }
    let out = s
    for (let r = 0; r < plans.length; r++) {
      if (!plans[r].always && out === s && !scanned) {
        scanOf(s)
        scanned = true
      }
      if (!runs(r, s, out, isMarked)) continue
      out = applyRule(plans[r].rule, out)
    }
    return out
  }
  const scan = (s: string): number => {
    scanOf(s)
    return (anyNeedle || !prefilter ? 1 : 0) | (flag ? 2 : 0)
  }
  return { redact, scan, needles, prefiltered: prefilter }
}

/**
 * Account names that are no one's own (session 24, tester24a F9): a system's, a cloud image's or a CI runner's
 * default user, a shared profile (`/Users/Shared`, `C:\Users\Public`), and generic words. A home under one of these
 * is still `~`, but the name is not looked for elsewhere ({@link hiddenUserName}): it would take that word from prose
 * and commands (`sudo -u root`, `node app.js`, `docker run`).
 */
const COMMON_ACCOUNTS: ReadonlySet<string> = new Set([
  "root", "admin", "administrator", "user", "users", "username", "ubuntu", "debian", "centos", "fedora", "alpine",
  "ec2-user", "azureuser", "opc", "core", "node", "runner", "vagrant", "docker", "jenkins", "gitlab-runner", "circleci",
  "travis", "buildbot", "build", "builder", "deploy", "deployer", "git", "www-data", "nobody", "guest", "test", "tester",
  "testuser", "dev", "developer", "demo", "pi", "app", "appuser", "service", "default", "defaultuser", "public", "shared",
  "student", "codespace", "codespaces", "vscode", "coder", "gitpod", "worker", "home", "ansible", "postgres", "mysql",
  "oracle", "sysadmin", "operator", "support", "ops", "linuxbrew", "local", "localuser", "all users", "default user",
  "wdagutilityaccount", "me", "you", "someone", "john", "jane", "alice", "bob", "example", "name", "your-name", "yourname",
  "your_username", "your-username", "<user>", "$user", "${user}", "%username%"
])

/** The shortest user name looked for where its session restates it ({@link hiddenUserName}). */
export const USER_NAME_MIN = 4

/**
 * Whether `name`, the user folder of a home path a session shows (`/home/<name>`, `/Users/<name>`,
 * `C:\Users\<name>`), is hidden wherever else the session states it as a word of its own (session 24, tester24a F9:
 * `whoami`'s output, a prompt's `name@host:~$`, `https://name:…@github.com`): {@link USER_NAME_MIN} characters or
 * more of a user name's (letters, digits, `.`, `_`, `-`; a letter first), and no common account's name
 * ({@link COMMON_ACCOUNTS}, any case).
 */
export const hiddenUserName = (name: string): boolean =>
  name.length >= USER_NAME_MIN && name.length <= 64 && /^[A-Za-z][A-Za-z0-9._-]*$/.test(name) && !COMMON_ACCOUNTS.has(name.toLowerCase())

/**
 * The user names of the home paths in `s` (as `home-path` finds them: the folder after `/home/`, `/Users/`,
 * `C:\Users\`, `~`, `-home-`, `%2Fhome%2F`, …), each once, in order; a display name with spaces is left out.
 */
export const homeUserNames = (s: string): Array<string> => {
  const out: Array<string> = []
  HOME_PATH.lastIndex = 0
  for (const m of s.matchAll(HOME_PATH)) {
    const name = m[0].replace(/^[^]*(?:[/\\~]|%2[Ff]|-(?:home|Users)-)/, "")
    // in JSON text (`C:\\Users\\\npypi`: separators doubled), an odd run of 3 backslashes or more before the name
    // escapes its first letter (a `\n`): no user name there
    let k = (m.index ?? 0) + m[0].length - name.length
    let run = 0
    while (k > 0 && s.charCodeAt(k - 1) === 92) {
      run++
      k--
    }
    if (run >= 3 && run % 2 === 1) continue
    if (name.length > 0 && !name.includes(" ") && !out.includes(name)) out.push(name)
  }
  return out
}
