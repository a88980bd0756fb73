/**
 * The redaction rules (issue 15): what a shareable output (Markdown, ATIF,
 * NDJSON export, the HTML replay, MCP answers) must not carry, as a table of
 * rules with ids, and {@link redactText}, which applies them to one string.
 * Each match becomes `[REDACTED:<rule-id>]`, except home paths, which become
 * `~`, and the rules that keep a name in front of the secret
 * (`url-credentials` keeps the scheme and user, `secret-assignment` the name
 * and its `=`, `url-query-secret` the parameter's name and `=`,
 * `secret-field` the key and its `:`). The rules compose: none matches inside
 * the marker an earlier one left. Pure: no I/O.
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
}

/** The text that replaces a match of the rule `id`. */
export const marker = (id: string): string => `[REDACTED:${id}]`

/** What a home path (`/home/<user>`, `/Users/<user>`, `C:\Users\<user>`) becomes. */
export const HOME = "~"

/** Characters of a token's body (base64url-ish). */
const TOKEN = "[A-Za-z0-9_-]"

/**
 * Where a token may start: not right after a character of the class `cls`
 * (inside a longer word), or right after a `\n`, `\r` or `\t` escape (JSON
 * text inside text, where the `n` of `\n` would otherwise hide a key).
 */
const start = (cls: string) => String.raw`(?:(?<![${cls}])|(?<=\\[nrt]))`

/**
 * A literal-led token: `prefix` (a pattern of literals), then the check that
 * it starts a token (as {@link start}) as a lookbehind over it. Leading with
 * the literal lets the engine skip to candidates instead of testing a
 * lookbehind at every position.
 */
const lead = (prefix: string, cls: string) => String.raw`(?:${prefix})(?<=(?:^|[^${cls}]|\\[nrt])(?:${prefix}))`

/** A global pattern from its source. */
const re = (source: string, flags = "g") => new RegExp(source, flags)

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
const optionOf = (command: string, option: string, before = String.raw`(?:^|[\s/;&|("'${"`"}]|\\[nrt])`) =>
  String.raw`(?:${option})(?<=${before === "" ? String.raw`\b` : before}${command}[ \t](?:[^\n;&|]{0,300}[ \t])?(?:${option}))`

/**
 * The value of an option: `"…"`, `'…'`, `\"…\"` (JSON text inside text), or
 * a bare word (up to white space, a quote, a backslash or a shell operator;
 * not a `$VAR` reference). A quoted value runs to the same quote that opened
 * it (`"it's"` whole), so `quoteGroup` is the number of its quote's group in
 * the whole pattern. Groups: the quote, the quoted value, the bare value.
 */
const optionValue = (quoteGroup: number, same = `\\${quoteGroup}`) =>
  String.raw`(?!\[REDACTED:)(?:(\\?["'])(?![$])((?:(?!${same})[^\n]){1,512}?)${same}|(?![$"'\\-])([^\s"'${"`"};&|<>()\\]{1,512}))`

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

/** The query-string names whose value is a credential (`url-query-secret`), as a pattern. */
const QUERY_SECRET_NAMES = [
  "access_token", "refresh_token", "id_token", "auth_token", "token", "api_key", "apikey", "api-key", "client_secret",
  "password", "passwd", "secret", "sig", "signature", "X-Amz-Signature", "X-Amz-Security-Token", "X-Goog-Signature"
].join("|")

/** Final words of a secret's name that name a secret alone (`token`, `Password`, `SECRET`, …). */
const FIELD_WORDS = ["token", "secret", "password", "passwd", "passphrase"]
/** Final words that name a secret only after another word (`api_key`, `apiKey`, `DB_PASS`; `key` alone is not). */
const FIELD_AFTER_WORDS = ["key", "pass", "pwd"]
const cases = (ws: ReadonlyArray<string>) => ws.flatMap((w) => [w, w[0].toUpperCase() + w.slice(1), w.toUpperCase()])

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
  // password, passwd, passphrase: the end of the word (`pass` itself is one of the words)
  .concat(cases(["password", "passwd", "passphrase"]).flatMap((w) => FIELD_SEPS.map((sep) => w.slice(4) + sep)))
  // the name, then more than one space or a tab before `=` or `:` (aligned code: `token   = "…"`)
  .concat(["  =", "\t=", "  :", "\t:"]))]

/** A word (letters and digits) then `_` or `-`: the words before a name's last. */
const NAME_WORD = "(?:[A-Za-z0-9]{1,40}[_-])"
/** Names that are a secret's alone (their last word is token, secret, password, passwd or passphrase; `max_tokens` is not). */
const NAMES_ALONE = `_{0,2}${NAME_WORD}{0,6}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(FIELD_WORDS).join("|")})`
/**
 * Names that are a secret's when the value looks like one: `key`, `pass`, `pwd` after another word (`api_key`,
 * `X-Api-Key`, `DB_PASS`; camelCase takes the capitalized or upper-case word only: `monkey` is no `mon` + `key`),
 * and `pass` / `pwd` alone.
 */
const NAMES_AFTER = `_{0,2}${NAME_WORD}{1,6}(?:${cases(FIELD_AFTER_WORDS).join("|")})|_{0,2}${NAME_WORD}{0,6}[A-Za-z][A-Za-z0-9]{0,40}(?:${
  cases(FIELD_AFTER_WORDS).filter((w) => w[0] !== w[0].toLowerCase()).join("|")
})|_{0,2}(?:${cases(ALONE_WORDS).join("|")})`
/** A number (a PIN, a numeric password) as a value: digits, maybe a sign and a fraction, then the value's end. */
const NUMBER = String.raw`-?[0-9]{1,64}(?:\.[0-9]{1,64})?`
const NUMBER_END = String.raw`(?=[\s,;)}\]\\"']|$)`
const NUMBER_VALUE = `(${NUMBER})${NUMBER_END}`

/**
 * The `secret-field` pattern: two alternatives (names that are secrets alone; names that need a word
 * before, or `pass`/`pwd` alone), each `(head)(?:(q)(quoted)q|(number)|(bare))` with the key's quote as a
 * group of the head: six groups each. A name (maybe after one or two `_`: `self._api_key`) starts at a line's
 * start, after white space, `{`, `,`, `(`, `[`, `;`, `.` (a member: `self.password = "…"`), `$`, `@`, `#`, `>`
 * (`$password`, `@password`, `this.#password`, `$this->password`), `:` (a Ruby symbol) or a `\n`/`\r`/`\t`
 * escape; its quotes may be escaped (`\"`, `\\\"`: JSON text in JSON text, at most 7 backslashes) and it
 * may be closed by `]` (an index: `env["DB_PASSWORD"] = …`); `:` may follow spaces (`"password" : …`); after
 * `=` or `=>` (PHP, Ruby, Perl) comes a quoted value or a number (`==` is a comparison);
 * its words are bounded (at most 6 words of 40 characters before the last), so each start is tried in constant
 * time, and values are bounded (512 characters): linear. Which numbers go is {@link fieldReplace}'s call.
 */
const fieldAlternatives = (): string => {
  const bareClass = String.raw`[^\s"'${"`"}\\,;(){}<>\[\]]`
  const quotedClass = String.raw`[^\n"'\\]`
  // looks like a secret: a digit and another character among the first 64, or 16 characters or more
  const looks = (v: string) => String.raw`(?:(?=${v}{0,63}[0-9])(?=${v}{0,63}[^0-9\s"'\\])|(?=${v}{16}))`
  return [NAMES_ALONE, NAMES_AFTER].map((name, a) => {
    const g = a * 6
    const head = String.raw`((?:^|(?<=[\s{,(\[;.$@#>:]|\\[nrt]))((?:\\{0,7}["'])?)(?:${name})${"\\"}${g + 2}\]?(?:[ \t]{0,8}:[ \t]*|[ \t]*=>?[ \t]*(?=\\{0,7}["']|${NUMBER}${NUMBER_END})))`
    const quoted = String.raw`(\\{0,7}["'])(?!${"\\"}${g + 3})(?![$\{\s]|\[REDACTED:)${a === 1 ? looks(quotedClass) : ""}([^\n]{1,512}?)${"\\"}${g + 3}`
    const bare = String.raw`(?![$\{"'\\])(?!process\.env\.|import\.meta\.env\.|os\.environ)(?![0-9]+(?![^\s,;)}\]]))${looks(bareClass)}(${bareClass}{1,512})`
    return String.raw`${head}(?!\[REDACTED:)(?:${quoted}|${NUMBER_VALUE}|${bare})`
  }).join("|")
}

/** The names of a pair's name (see {@link pairSecret}): `secret-field`'s, and the headers of a credential. */
const PAIR_NAMES = `${NAMES_ALONE}|${NAMES_AFTER}|(?:[Pp]roxy-|PROXY-)?(?:[Aa]uthorization|AUTHORIZATION)|(?:[Ss]et-|SET-)?(?:[Cc]ookie|COOKIE)`

/** Every match of the pair pass holds its name's final word then the name's closing quote (or its escape's backslash). */
const SECRET_PAIR_HINTS: ReadonlyArray<string> = [...new Set(
  [...cases([...FIELD_WORDS.filter((w) => !w.startsWith("pass")), ...FIELD_AFTER_WORDS]), ...cases(["password", "passwd", "passphrase"]).map((w) => w.slice(4)), "uthorization", "UTHORIZATION", "ookie", "OOKIE"]
    .flatMap((w) => ["\"", "'", "\\", "\n", "\r"].map((q) => w + q))
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
  const Q = String.raw`\\{0,7}["']`
  const SP = String.raw`(?:\s|\\[nrt]){0,80}`
  const NAME_KEYS = "(?:name|key|header|Name|Key|Header)"
  const VALUE_KEYS = "(?:value|Value)"
  const b = (g: number) => `\\${g}`
  const value = (g: number) => String.raw`(?![$\{\s]|\[REDACTED:|${b(g)})((?:(?!${b(g)})[^\n]){1,512})${b(g)}`
  // each alternative starts by consuming a quote (or a YAML key), then looks back for what must precede it: a
  // run of white space is then passed over at one step a character, not looked back over from each of them
  const member = `(?<=(?:^|[{,])${SP}${Q})`
  return [
    String.raw`((${Q})(?<=[\[(][ \t]{0,8}${Q})(${PAIR_NAMES})\2[ \t]{0,8},[ \t]{0,8}(${Q}))${value(4)}(?=[ \t]{0,8}[\])])`,
    String.raw`((${Q})${member}${NAME_KEYS}\7[ \t]{0,8}:[ \t]{0,8}(${Q})(${PAIR_NAMES})\8[ \t]{0,8},${SP}(${Q})${VALUE_KEYS}\10[ \t]{0,8}:[ \t]{0,8}(${Q}))${value(11)}`,
    String.raw`((${Q})${member}${VALUE_KEYS}\14[ \t]{0,8}:[ \t]{0,8}(${Q}))${value(15)}(?=[ \t]{0,8},${SP}(${Q})${NAME_KEYS}\17[ \t]{0,8}:[ \t]{0,8}(${Q})(${PAIR_NAMES})\18)`,
    // YAML: `- name: DB_PASSWORD` then, on the next line, `value: …` (quoted, or the rest of the line)
    String.raw`(${NAME_KEYS}(?<=(?:^|\n|\\n)[ \t]{0,40}(?:-[ \t]{1,8})?${NAME_KEYS}):[ \t]{1,8}((?:${Q})?)(${PAIR_NAMES})\21(?:\r?\n|(?:\\r)?\\n)[ \t]{0,40}${VALUE_KEYS}:[ \t]{1,8})` +
      String.raw`(?:(${Q})${value(23)}|(?![$\{"'\\#\s]|\[REDACTED:)([^\n\\]{0,511}[^\s\\]))`
  ].join("|")
}

/** The replacement of a pair: the value becomes the marker when {@link pairSecret} says so, else the match stays. */
const pairReplace = (m: string, ...g: Array<string>): string => {
  const F = marker("secret-field")
  if (g[0] !== undefined) return pairSecret(g[2], g[4], true) ? `${g[0]}${F}${g[3]}` : m
  if (g[5] !== undefined) return pairSecret(g[8], g[11], false) ? `${g[5]}${F}${g[10]}` : m
  if (g[12] !== undefined) return pairSecret(g[18], g[15], false) ? `${g[12]}${F}${g[14]}` : m
  if (g[19] !== undefined) {
    const quoted = g[23] !== undefined
    return pairSecret(g[21], quoted ? g[23] : g[24], false) ? (quoted ? `${g[19]}${g[22]}${F}${g[22]}` : `${g[19]}${F}`) : m
  }
  return m
}

/**
 * The built-in rules, in the order they apply: PEM blocks first (they span
 * lines and hold base64), then the key shapes with a fixed prefix (the most
 * specific before the more general: `sk-ant-` before `sk-`), then
 * credentials in URLs and assignments, emails, and home paths last.
 */
export const builtinRules: ReadonlyArray<RedactionRule> = [
  {
    // A PEM private key: BEGIN line, base64 body (headers such as Proc-Type/DEK-Info, escaped \n), END line.
    // A block cut short (no END) is redacted to where its body ends.
    id: "private-key",
    pattern: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=:,.\s\\]|-(?!----))*(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----)?/g,
    hints: ["PRIVATE KEY-----"]
  },
  {
    // A JSON Web Token: base64url header and payload (both JSON objects: `eyJ`), signature (empty for alg none).
    id: "jwt",
    pattern: re(String.raw`${lead("eyJ", "A-Za-z0-9_-")}[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
    hints: ["eyJ"]
  },
  {
    // Anthropic: sk-ant-api03-…, sk-ant-admin01-…, sk-ant-oat01-…
    id: "anthropic-key",
    pattern: re(`${lead("sk-ant-", "A-Za-z0-9_-")}${TOKEN}{20,}`),
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
    id: "github-token",
    pattern: re(`(?:${lead("gh[pousr]_", "A-Za-z0-9_")}[A-Za-z0-9]{36,255}|${lead("github_pat_", "A-Za-z0-9_")}[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])`),
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]
  },
  {
    // AWS access key ids: AKIA (long-term), ASIA (temporary), and the other documented prefixes.
    id: "aws-access-key",
    pattern: re(`${lead("A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA)", "A-Za-z0-9")}[A-Z0-9]{16}(?![A-Za-z0-9])`),
    hints: ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"]
  },
  {
    id: "google-api-key",
    pattern: re(`${lead("AIza", "A-Za-z0-9_-")}[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])`),
    hints: ["AIza"]
  },
  {
    // Slack: bot/user/app/refresh tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-…), app-level xapp-, incoming webhooks.
    id: "slack-token",
    pattern: re(
      String.raw`${lead("xox[abeoprs]", "A-Za-z0-9_-")}(?:\.[a-z]+)?-[A-Za-z0-9-]{10,}|${lead("xapp-", "A-Za-z0-9_-")}[0-9]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{10,}`
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
    // npm: granular/automation tokens npm_…, and `_authToken=` / `_auth=` / `_password=` lines of an .npmrc.
    id: "npm-token",
    pattern: re(
      String.raw`${lead("npm_", "A-Za-z0-9_")}[A-Za-z0-9]{36}(?![A-Za-z0-9])|(?<=(?:^|[\s:]|\\[nrt])_(?:authToken|auth|password)=)(?![$\\])[^\s"'${"`"}\\]+`,
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
    // `api_key`, `apikey`, `client_secret`, `password`, `sig`, `signature`, `X-Amz-Signature`,
    // `X-Amz-Security-Token`, `X-Goog-Signature`, and `key` when its value looks like a secret (16 characters
    // or more, a digit among them); a lower-case `access_token=` anywhere. The name and `=` stay; the value goes,
    // up to `&`, `#`, white space, a quote, a backslash, or a `)` or `]` (a Markdown link's or a bracket's close:
    // query values are percent-encoded, so these close the text around the URL, not the secret). `$VAR` references and markers of earlier rules stay.
    id: "url-query-secret",
    pattern: re(
      String.raw`([?&;#](?:${QUERY_SECRET_NAMES})=|[?&;#]key=(?=[^&#\s"'${"`"}<>\\)\]]{16})(?=[^&#\s"'${"`"}<>\\)\]0-9]{0,63}[0-9])|${lead("access_token=", "A-Za-z0-9_")})(?!\[REDACTED:)(?![$\{])[^&#\s"'${"`"}<>\\)\]]{1,2048}`
    ),
    hints: ["token=", "key=", "secret=", "password=", "passwd=", "sig=", "signature=", "Signature=", "Security-Token="],
    replace: (_m, head) => `${head}${marker("url-query-secret")}`
  },
  {
    // The password of scheme://user:password@host (databases, brokers, HTTP basic auth); scheme and user stay.
    // The user info ends at the authority's last "@" (as browsers and libpq read it), so a password holding
    // "@" goes whole; the authority ends at "/", "?", "#" or a space, so `host:443/@scope` is no password.
    id: "url-credentials",
    pattern: re(
      String.raw`${start("A-Za-z0-9+.-")}([A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#"'${"`"}<>\\[\]]{0,256}:)(?!\[REDACTED:[a-z0-9-]{1,64}\]@)([^\s/?#"'${"`"}<>\\]{1,512})(?=@[^\s/?#@"'${"`"}<>\\]*(?:[\s/?#"'${"`"}<>\\]|$))`
    ),
    hints: ["://"],
    replace: (_m, head) => `${head}${marker("url-credentials")}`
  },
  {
    // A password given to a command as one of its short options, where the command says what the option is:
    // mysql/mariadb `-pSECRET` (attached; `-p` alone prompts, and `-p db` names a database), `sshpass -p`,
    // `<tool> login … -p` (docker, podman, helm, oc, cf, az), `redis-cli -a`, `sqlcmd`/`bcp -P`, the mongo tools'
    // `-p`, and curl's `-u`/`--user`/`-U`/`--proxy-user user:SECRET` (the user stays; `-u user` alone is no secret).
    // The command is looked for earlier in the same shell command (no newline, `;`, `&`, `|` between), at most
    // 300 characters back. The option, the user and any quotes stay.
    id: "cli-password",
    pattern: re(
      [
        String.raw`(${optionOf("(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)", "-p")})(?=[^\s-])`,
        String.raw`(${optionOf("sshpass", "-p")}[ \t]*)`,
        String.raw`(${optionOf("login", "-p", "")}[ \t]*)`,
        String.raw`(${optionOf("redis-cli", "-a")}[ \t]*)`,
        String.raw`(${optionOf("(?:sqlcmd|bcp|osql)", "-P")}[ \t]*)`,
        String.raw`(${optionOf("(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop)", "-p")}[ \t]*)`,
        String.raw`(${optionOf("curl", "-u|--user|-U|--proxy-user")}(?:[ \t]+|=)?(?![$])[^\s:"'\\]{0,256}:)`
      ].map((head, a) => `${head}${optionValue(a * 4 + 2)}`).join("|") +
        // curl's `"user:password"` quoted whole (also `\"…\"` in JSON text): the quote and the user stay, the
        // whole password goes (spaces and all) up to the closing quote.
        String.raw`|(${optionOf("curl", "-u|--user|-U|--proxy-user")}(?:[ \t]+|=)?)(\\?["'])(?![$])([^\s:"'\\]{0,256}:)((?:(?!\30)[^\n]){1,512}?)\30`
    ),
    hints: ["mysql", "mariadb", "sshpass", "login", "redis-cli", "sqlcmd", "bcp", "osql", "mongo", "curl"],
    // Every option above: -p, -a, -P, -u, --user, -U, --proxy-user.
    gate: ["-p", "-a", "-P", "-u", "-U"],
    replace: (m: string, ...groups: Array<string>): string => {
      const [head, q, user, password] = groups.slice(7 * 4, 7 * 4 + 4)
      if (head !== undefined && password !== undefined) return `${head}${q}${user}${marker("cli-password")}${q}`
      return optionValueReplace("cli-password", 7)(m, ...groups)
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
    // element (`"--password", "…"`, JSON or Python text: `["mysql", "--password", "x"]`) is the value too.
    id: "cli-secret-option",
    pattern: re(
      String.raw`(?<=^|[\s"'(;&|=]|\\[nrt])(--?(?!no-)(?:[A-Za-z0-9]{1,40}[-_]){0,6}(?:password|passwd|pass|pwd|token|secret|api[-_]?key|apikey|access[-_]?key|secret[-_]?key|auth[-_]?token|client[-_]?secret)(?:=|\\?["'][ \t]*,[ \t]*(?=\\?["'](?![$\s"'\\-]))|[ \t]+(?=(?![A-Za-z]{1,15}[.,:;!?]{1,8}(?:[\s"'\\)\]]|$))(?:\\?["'])?[^\s"'\\]*[0-9.,:;!@#%^&*+=/~_-]|(?:\\?["'])?[^\s"'\\]{16}|\\?["'](?![$\s"'\\])[^"'\\\n]{1,512}\\?["'])))${optionValue(2)}`
    ),
    hints: ["pass", "pwd", "token", "secret", "key"],
    // The key word always follows the option's `-` or a `-`/`_` between its words (`--password`, `--npm-token`, `--api_key`).
    gate: ["-pass", "_pass", "-pwd", "_pwd", "-token", "_token", "-secret", "_secret", "-api", "_api", "-access", "_access", "-auth", "_auth", "-client", "_client"],
    replace: optionValueReplace("cli-secret-option", 1)
  },
  {
    // NAME_KEY=…, NAME_TOKEN=…, NAME_SECRET=…, [NAME]PASSWORD=… / Password=… (env files, shells, connection
    // strings): the value goes, the name and `=` (and quotes) stay. Shell references ($X, ${X}) are not secrets.
    // An unquoted value runs to white space, a quote, `;`, `|`, `<`, `>`, `)`, `,` or a backslash escape; an `&`
    // ends it only as a shell operator (before white space, another `&` or the end: `X=1 && make`, `X=1& job`)
    // or before the next parameter of a form body (`&name=`): inside a word it is the password's own character
    // (`PASSWORD=Tr0ub4dor&3…` goes whole; cut at the `&`, the password's tail would stay in clear).
    id: "secret-assignment",
    pattern: re(
      String.raw`${start("A-Za-z0-9_")}((?:[A-Z0-9_]*_)?(?:KEY|TOKEN|SECRET)|[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE)|[A-Z0-9_]*_(?:PWD|PASS)|[Pp]assword|[Pp]asswd|[Pp]wd)(=)` +
        // "value" (also \"value\" in JSON text), 'value', or a bare value up to a space, quote or shell operator
        String.raw`(?:(\\?")(?![$[])((?:[^"\\\n]|\\[^"])+)\\?"|'(?![$[])([^'\n]+)'|(?![$["'\\])((?:[^\s"'${"`"};&|<>),\\]|&(?![\s&]|$|[A-Za-z0-9_.-]{1,64}=)|\\(?![nrt"]))+))`
    ),
    hints: ["KEY=", "TOKEN=", "SECRET=", "PASSWORD=", "PASSWD=", "PASSPHRASE=", "_PWD=", "_PASS=", "assword=", "asswd=", "wd="],
    replace: (_m, name, eq, q, dq, sq) =>
      `${name}${eq}${
        dq !== undefined ? `${q}${marker("secret-assignment")}${q}` : sq !== undefined ? `'${marker("secret-assignment")}'` : marker("secret-assignment")
      }`
  },
  {
    // An HTTP credential in a header (curl -H, logs): `Bearer <token>` / `Basic <credentials>`; the scheme stays.
    // The token holds a digit (so prose such as "Bearer tokens" or "Basic authentication" stays). GitHub's
    // `Authorization: token <token>` too (the header's name, then `token`).
    id: "bearer-token",
    pattern: re(String.raw`(\b(?:Bearer|Basic) |(?<=[Aa]uthorization\\?["']?:[ \t]{0,8})[Tt]oken )(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/-]{8,}=*`),
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
    // A password told in prose: `password is <token>` / `passphrase is: <token>` / `password was …` /
    // `password for prod is …` (`for`, `of`, `on`, `to`, `at`, `in`, maybe `the`/`my`/…, and one word) (any of
    // `Password`, `PASSWORD`), when the token (4 to 128 characters up to white space, sentence punctuation after
    // it staying) holds a digit or a symbol (`@#$%^&*+=~_`): "my password is hunter2" loses `hunter2`; "the
    // password is wrong", "is: see the vault", "is at least 8 characters", "is well-known" stay (prose). The token
    // ends at a backslash too (a `\n` escape of JSON text held in a string).
    id: "password-prose",
    pattern: re(
      String.raw`(${lead("[Pp]ass(?:word|phrase|wd)|PASS(?:WORD|PHRASE|WD)", "A-Za-z0-9_")}(?:[ \t]+(?:for|of|on|to|at|in|FOR|OF|ON|TO|AT|IN)(?:[ \t]+(?:the|THE|my|our|your))?[ \t]+[A-Za-z0-9_.:/@-]{1,64})?[ \t]+(?:is|IS|was|WAS)(?:[ \t]*:[ \t]*|[ \t]+)(["'${"`"}]?))(?![$\{]|\[REDACTED:)(?=[^\s"'${"`"}<>\\]{0,127}[0-9@#$%^&*+=~_])[^\s"'${"`"}<>\\]{4,128}?(?=[.,;:!?)]*(?:[\s"'${"`"}<>\\]|$))`
    ),
    hints: ["assword", "assphrase", "asswd", "ASSWORD", "ASSPHRASE", "ASSWD"],
    replace: (_m, head) => `${head}${marker("password-prose")}`
  },
  {
    // An AWS secret access key where it is named (~/.aws/credentials `aws_secret_access_key = …`, YAML
    // `AWS_SECRET_ACCESS_KEY: …`, JSON `"SecretAccessKey": "…"`): the 40-character value goes, the name stays.
    id: "aws-secret-key",
    pattern: re(String.raw`((?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)\\?["']?[ \t]*[:=][ \t]*\\?["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])`),
    hints: ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey"],
    replace: (_m, name) => `${name}${marker("aws-secret-key")}`
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
    // The same marker for a secret given as a name/value pair (a second pass of `secret-field`, after the
    // key-shaped rules such as `bearer-token` have run): a header as `["X-Api-Key", "…"]` / `("Cookie", "…")`
    // (an array or a tuple of two, in JSON, Python or JavaScript text, its quotes maybe escaped) and
    // `{"name": "X-Api-Key", "value": "…"}` (HAR; `key`, `header` too; `value` first too; members maybe on lines of
    // their own). Which pairs are secrets is `pairSecret`'s call (a secret's name or a credential's header: any
    // value under `Authorization`, `Cookie` or `X-…`; in an array, one that looks like a secret). The name, the
    // quotes and the value's key stay.
    id: "secret-field",
    pattern: re(pairAlternatives()),
    hints: SECRET_PAIR_HINTS,
    replace: (m: string, ...g: Array<string>): string => pairReplace(m, ...g)
  },
  {
    // A secret as an XML element's text: `<password>…</password>`, `<DbPassword>`, `<client_secret>`, `<apiKey>`,
    // `<access_token>`, `<privateKey>` (the element's name ends in password, passwd, passphrase, secret, token,
    // api key or private key; no attributes), the value up to its closing tag on the same line. The tags stay.
    // Left alone: a page cursor's element (`<NextToken>`, `<nextPageToken>`), numbers (`<max_token>100</…>`),
    // empty elements, `$VAR`/`${VAR}` references, nested elements (a `<` in the value).
    id: "secret-element",
    pattern: re(
      String.raw`<([A-Za-z0-9_:.-]{0,60}?(?:[Pp]assword|PASSWORD|[Pp]asswd|PASSWD|[Pp]assphrase|PASSPHRASE|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[_-]?[Kk]ey|API_?KEY|[Pp]rivate[_-]?[Kk]ey|PRIVATE_?KEY))>(?![$\{\s<]|\[REDACTED:|[0-9]+<)([^<\n]{1,512})</\1>`
    ),
    hints: ["assword>", "ASSWORD>", "asswd>", "ASSWD>", "assphrase>", "ASSPHRASE>", "ecret>", "ECRET>", "oken>", "OKEN>", "Key>", "key>", "KEY>"],
    replace: (m: string, name: string) => (PAGE_CURSOR_NAME.test(name.replace(/[_:.-]/g, "").toLowerCase()) ? m : `<${name}>${marker("secret-element")}</${name}>`)
  },
  {
    // An HTTP cookie in a header (curl -H, logs, a proxy's dump): `Cookie: name=value; other=value` (every
    // cookie's value) and `Set-Cookie: name=value; Path=/; HttpOnly` (the cookie's value, its attributes stay).
    // The names, the `=` and the `; ` stay; a value ends at `;`, white space, a quote or a backslash, and the
    // header where white space follows other than after a `;`.
    id: "cookie",
    pattern: re(String.raw`(\b(?:[Ss]et-[Cc]ookie|SET-COOKIE|[Cc]ookie|COOKIE):[ \t]{0,8})([^\s"'\\;]{1,4096}(?:;[ \t]*[^\s"'\\;]{1,4096}){0,64})`),
    hints: ["ookie:", "OOKIE:"],
    replace: (_m: string, head: string, value: string) => `${head}${cookieValues(value, /^set-/i.test(head))}`
  },
  {
    // user@domain.tld; not `git@host:` remotes, not image names such as icon@2x.png.
    id: "email",
    pattern: re(
      String.raw`${start("A-Za-z0-9._%+\\\\-")}(?!git@)[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.(?!(?:png|jpe?g|gif|svg|webp|ico|bmp|avif)(?![A-Za-z]))[A-Za-z]{2,24}(?![A-Za-z0-9-])`
    ),
    hints: ["@"],
    apply: (s) => redactEmails(s)
  },
  {
    // /home/<user>, /Users/<user>, C:\Users\<user> (also C:\\Users\\ as in JSON or code, and C:/Users/): the user's home becomes ~.
    id: "home-path",
    pattern: re(String.raw`${lead("/(?:home|Users)/", "A-Za-z0-9_.-")}[A-Za-z0-9._-]+|${lead("[A-Za-z]:", "A-Za-z0-9_.-")}(?:\\+|/)Users(?:\\+|/)[^\\/\s"'<>|:*?]+`),
    hints: ["/home/", "/Users/", "Users\\", ":/Users/", "\\Users/"],
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
 * working directory).
 */
export type SecretKeyKind = "none" | "secret" | "token" | "key" | "pass" | "pwd"

/** Words before a name's last word (as `secret-field`'s names: at most 6 words joined by `_`/`-`, then maybe a camelCase head). */
const KEY_HEAD = "(?:[A-Za-z0-9]{1,40}[_-]){0,6}"
const KEY_SECRET = new RegExp(`^${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["password", "passwd", "passphrase", "secret"]).join("|")})$`)
const KEY_TOKEN = new RegExp(`^${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["token"]).join("|")})$`)
/** A name whose last word is `words` after another word: `_`/`-` joined (any case), or camelCase (the word capitalized or upper case). */
const afterWord = (words: ReadonlyArray<string>) =>
  `(?:[A-Za-z0-9]{1,40}[_-]){1,6}(?:${cases(words).join("|")})` +
  `|${KEY_HEAD}[A-Za-z][A-Za-z0-9]{0,40}(?:${cases(words).filter((w) => w[0] !== w[0].toLowerCase()).join("|")})`
const KEY_KEY = new RegExp(`^(?:${afterWord(["key"])}|${KEY_HEAD}(?:[A-Za-z][A-Za-z0-9]{0,40})?(?:${cases(["credential", "credentials"]).join("|")}))$`)
const KEY_PASS = new RegExp(`^(?:${afterWord(ALONE_WORDS)})$`)
const KEY_ALONE = new RegExp(`^(?:${cases(ALONE_WORDS).join("|")})$`)

/**
 * How the key `k` of a structured value (a tool call's input, a provider's `extensions`) names a secret: the
 * names of `secret-field` (words joined by `_`/`-` or camelCase, any case: `DB_PASSWORD`, `db-password`,
 * `dbPassword`, `clientSecret`, `secretKey`, `API_KEY`, `GITHUB_TOKEN`, `private_key`), and `credentials`, and
 * `pass`/`pwd` alone. The last word decides: a name whose last word is another (`password_policy`,
 * `token_count`, `max_tokens`, `input_tokens`, `secret_santa`, `tokenizer`, `passwordless`) is none, and so is
 * a page cursor (`next_page_token`, `nextPageToken`, `NextToken`: a listing's position, not a credential). The
 * kind says which values are secrets ({@link SecretKeyKind}). Keys of other characters, or longer than 300, are none.
 */
export const secretKeyKind = (k: string): SecretKeyKind => {
  if (k.length > 300 || k.length < 3) return "none"
  if (KEY_SECRET.test(k)) return "secret"
  if (KEY_TOKEN.test(k)) return PAGE_CURSOR_NAME.test(k.replace(/[_-]/g, "").toLowerCase()) ? "none" : "token"
  if (KEY_KEY.test(k)) return "key"
  if (KEY_PASS.test(k)) return "pass"
  if (KEY_ALONE.test(k)) return "pwd"
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
 * - a string, not empty, not a reference (`$VAR`, `${VAR}`, `{{ … }}`) and not starting with white space:
 *   under a `secret` or `token` name always (the key says what it is: `"password": "hunter"`, a short word or
 *   a passphrase with spaces is still the password); under a `key`/`pass`/`pwd` name (`sort_key`,
 *   `shortcutKey`, `partition_key` name no secret) when it looks like one (`LOOKS_SECRET`, the test of
 *   `secret-field`); under `pass`/`pwd` alone when it also holds a letter and is no path ({@link aloneSecret});
 * - a number under a `secret` name (`"password": 123456`): a PIN; under a `pass` name (`DB_PASS`) one of 4
 *   digits or more; under a `token` or `key` name or `pass` alone a number is a count or an id
 *   (`max_token: 100`, `pass: 3`) and stays;
 * - anything else (booleans, null, objects, arrays) is walked as usual.
 */
export const secretValue = (kind: SecretKeyKind, v: unknown): boolean => {
  if (typeof v === "string") {
    if (v.length === 0 || notAValue(v)) return false
    if (kind === "secret" || kind === "token") return true
    if (!LOOKS_SECRET.test(v)) return false
    return kind !== "pwd" || aloneSecret(v)
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
  return value.replace(/(^|;[ \t]*)([^=;\s]{1,256})=([^;\s]{1,4096})/g, (m: string, sep: string, name: string, v: string) =>
    (setCookie && n++ > 0) || v.startsWith("$") || v.startsWith("[REDACTED:") ? m : `${sep}${name}=${marker("cookie")}`)
}

/** The name a `secret-field` head holds, lower case, its `_` and `-` dropped (`"next_page_token": ` gives `nextpagetoken`). */
const fieldName = (head: string): string => head.replace(/[\\"':\s=\]]/g, "").replace(/[_-]/g, "").toLowerCase()

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
    const [head, keyQuote, q, quoted, num, bare] = groups.slice(a * 6, a * 6 + 6)
    if (head === undefined) continue
    const name = fieldName(head)
    if (a === 0 && PAGE_CURSOR_NAME.test(name)) return m
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
const FIELD_END = new RegExp(`(?:${cases([...FIELD_WORDS, ...FIELD_AFTER_WORDS]).join("|")})(?=\\\\{0,7}["']?\\]?(?:[ \\t]{0,8}:|[ \\t]*=))`, "g")
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

/** Characters of a user name in `/home/<user>` (and of the word a home path may not follow): `A-Z a-z 0-9 . _ -`. */
const isUserChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 45

/**
 * The `home-path` rule: by hand for a string without `Users` (then only its
 * `/home/<user>` branch can match, most strings), else its pattern. From each
 * `/home/` at the start of a token (the string's start, a character outside
 * `A-Z a-z 0-9 . _ -`, or a `\n`/`\r`/`\t` escape before it), the user
 * name (at least one of those characters) becomes `~`. Linear: each `/home/`
 * is read once and each name once.
 */
const redactHomePaths = (s: string): string => {
  if (s.includes("Users")) {
    HOME_PATH.lastIndex = 0
    return s.replace(HOME_PATH, HOME)
  }
  let out = ""
  let done = 0
  let at = s.indexOf("/home/")
  while (at >= 0) {
    const before = at === 0 ? -1 : s.charCodeAt(at - 1)
    const starts = before < 0 || !isUserChar(before) ||
      (at >= 2 && s.charCodeAt(at - 2) === 92 && (before === 110 || before === 114 || before === 116))
    if (starts) {
      let end = at + 6
      while (end < s.length && isUserChar(s.charCodeAt(end))) end++
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

/** The `home-path` rule's pattern. */
const HOME_PATH = builtinRules.find((r) => r.id === "home-path")!.pattern

/** Local-part characters of an email address: `A-Z a-z 0-9 . _ % + -`. */
const isLocal = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45

/** The domain of an email address, from its `@` (a sticky pattern: tried at one position). */
const EMAIL_DOMAIN = /@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.(?!(?:png|jpe?g|gif|svg|webp|ico|bmp|avif)(?![A-Za-z]))[A-Za-z]{2,24}(?![A-Za-z0-9-])/y

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
  let at = s.indexOf("@")
  while (at >= 0) {
    let b = at
    while (b > 0 && at - b <= 64 && isLocal(s.charCodeAt(b - 1))) b--
    // The leftmost start in [b, at): the run's start (not after a backslash), else after a \n, \r or \t escape.
    let from = -1
    const runStart = b === 0 || !isLocal(s.charCodeAt(b - 1))
    if (runStart && at - b <= 64 && (b === 0 || s.charCodeAt(b - 1) !== 92)) from = b
    else {
      for (let p = Math.max(b, 2); p < at; p++) {
        const c = s.charCodeAt(p - 1)
        if (s.charCodeAt(p - 2) === 92 && (c === 110 || c === 114 || c === 116)) {
          from = p
          break
        }
      }
    }
    if (from >= done && from < at && s.slice(from, at) !== "git") {
      EMAIL_DOMAIN.lastIndex = at
      if (EMAIL_DOMAIN.test(s)) {
        out += s.slice(done, from) + marker("email")
        done = EMAIL_DOMAIN.lastIndex
        at = s.indexOf("@", done)
        continue
      }
    }
    at = s.indexOf("@", at + 1)
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
export const textRedactor = (rules: ReadonlyArray<RedactionRule>): (s: string) => string => {
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
  const scanner = needleScanner(needles)
  const prefilter = plans.every((p) => !p.always)
  const holdsOne = (scanned: Int32Array): boolean => {
    for (let i = 0; i < scanned.length; i++) if (scanner.has(scanned[i])) return true
    return false
  }
  // after a rule changed the text: one pattern of each rule's gate (the hints' own pattern is `hintsOf`)
  const gates = plans.map((p) => (p.rule.gate !== undefined && p.rule.gate.length > 0 ? new RegExp(p.rule.gate.map(escapeRegExp).join("|")) : undefined))
  return (s) => {
    // whether the scanner has scanned `s` (its answers are about `s`, not about a text a rule has changed)
    let scanned = false
    if (prefilter) {
      if (!scanner.scan(s)) return s
      scanned = true
    }
    let out = s
    for (let r = 0; r < plans.length; r++) {
      const p = plans[r]
      if (!p.always) {
        if (out === s) {
          if (!scanned) {
            scanner.scan(s)
            scanned = true
          }
          if (!holdsOne(p.scanned)) continue
          if (p.confirm !== undefined && !p.confirm.test(out)) continue
        } else {
          // The text changed: a pattern of the rule's gate and one of its hints, each of which stops at the
          // first hit, rather than another whole pass of the scanner per change (a long text with many secrets
          // was scanned again after each rule that redacted something).
          const gate = gates[r]
          if (gate !== undefined && !gate.test(out)) continue
          if (!hintsOf(p.rule).test(out)) continue
        }
      }
      out = applyRule(p.rule, out)
    }
    return out
  }
}
