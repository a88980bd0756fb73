/**
 * Redaction of whole values: a string, any JSON-like value (deep), a
 * normalized event and a transcript, given the rules
 * (`./rules.ts`). Object keys are redacted like strings (a JSON object
 * keyed by a token, a path or an email); two keys that redact alike are told
 * apart by ` #2`, ` #3`, … after the later ones. What stays as it is:
 * numbers, booleans, the keys of the model's own fields, and
 * the structural fields of an event and a transcript that readers and
 * links need (ids, kinds, roles, cursors). Everything else is walked, so a
 * field added to the model later is redacted without being named here.
 * Unchanged subtrees are returned as they are (no copy). Pure: no I/O.
 *
 * Structure says what text must guess: a value under a secret-named key
 * (`{"env": {"DB_PASSWORD": "…"}}`, {@link secretKeyKind}) is the secret
 * whole, so it becomes `[REDACTED:secret-field]` (the marker the
 * `secret-field` rule leaves in JSON text) whatever its characters, where the
 * text rules would only see an ordinary word (see {@link secretValue}); and
 * in an array of strings (a command's arguments), the element after a secret
 * option (`"--password"`, `"--api-key"`) becomes `[REDACTED:cli-secret-option]`.
 *
 * @module
 */
import type { SessionEvent, Transcript } from "../model.js"
import { isShownCursor, shownCursor } from "../shown-cursor.js"
import { realIds, type ShownIds } from "../shown-ids.js"
import {
  headerValue,
  hiddenUserName,
  homeUserNames,
  leafSecret,
  marker,
  notAValue,
  opaqueSignature,
  pairSecret,
  redactCollapsedKeys,
  type RedactionRule,
  schemaLike,
  secretKeyKind,
  type SecretKeyKind,
  secretValue,
  signatureKey,
  textRedaction,
  underKind
} from "./rules.js"
import { toolInputText } from "../tool-input-text.js"
import { EVENT_TEXT_MAX, isClipped, isTitleSource, redactClipped, TITLE_MAX_CHARS, titleOfRedacted, titleSourceIn } from "./clipped.js"
import { customMerger, hiddenSpans, isCustomRule, unionHidden, unionHiddenSteps } from "./union.js"
import { COMMAND_OUTPUT_MARK, commandOf, printsSecret, redactCommandOutput } from "./command-output.js"
import { throughView, VIEW_CHARS } from "./views.js"
import { joinContinuations, throughContinuations } from "./continuations.js"
import { scanThroughJoints, throughJoints } from "./line-breaks.js"
import { needleScanner } from "./needles.js"
import { hasEncoded, redactDecoded, throughDecoded } from "./decoded-views.js"
import { again, finish, HUGE, Kept, stepped } from "./pausable.js"

/**
 * A title's text (`titleOf`: each white space run one space) with each `\\ ` (a backslash, then the space a line break
 * may have become) a backslash and a line break again: the shell's line continuation the rules read
 * (`wrapped-key`'s key cut by one, a name's value after one: docs/redaction.md, "Line continuations"), so that a title
 * is redacted as its first prompt is (tester33a F6). A `\\ ` that was a backslash and a space is read as a
 * continuation too: at worst more of the title is hidden. {@link refoldContinuations} makes the breaks spaces again.
 */
const unfoldContinuations = (x: string): string => (x.includes("\\ ") ? x.replace(/\\ /g, "\\\n") : x)

/** A redacted title's line breaks (only {@link unfoldContinuations} made them: a title holds none) one space each again. */
const refoldContinuations = (x: string): string => (x.includes("\n") ? x.replace(/\n/g, " ") : x)

/** The redaction of each kind of value, by one set of rules (see `RedactionShape` in `src/services/Redaction.ts`). */
export interface Redactor {
  readonly text: (s: string) => string
  /**
   * An id copied from the source as a redacted output shows it (a `toolCallId`, a `responseId`, a link's ids, a
   * compaction's id, a session id such as Claude Code's `sidechain-<uuid>`: tester38 F2): kept when id-shaped
   * ({@link ID_SHAPED}) and the built-in rules find nothing in it, else redacted (the text rules when it is not
   * id-shaped; the built-in rules alone when it is: a custom pattern never renames an id). The same id alike everywhere.
   */
  readonly id: (s: string) => string
  readonly value: <A>(v: A) => A
  readonly event: (e: SessionEvent) => SessionEvent
  /**
   * An event as {@link Redactor.event} redacts it, and each secret of `known` (a value an earlier event's
   * structure decided on, with its marker: {@link Redactor.eventNoting}) where the event restates it as a word.
   */
  readonly eventIn: (e: SessionEvent, known: ReadonlyMap<string, string>) => SessionEvent
  /**
   * An event as {@link Redactor.event} redacts it, each secret it decided on (by its structure or by a text rule
   * that caught a value: {@link caughtValues}) that a session's other events are searched for
   * ({@link restatable} with {@link SESSION_RESTATED_MIN}) added to `into` with its marker.
   */
  readonly eventNoting: (e: SessionEvent, into: Map<string, string>) => SessionEvent
  /**
   * A prefilter of {@link Redactor.eventNoting} over an event's stored JSON (session 30): given a JSON text (as
   * `JSON.stringify` writes it), false only when no string of an event that stands whole in that text (a key or a
   * value) can make `eventNoting` note a secret, nor make a session redactor take the event for a call that prints
   * a secret bare ({@link printsSecret}): the text holds none of the text rules' needles, JSON-escaped, nor a
   * character that sends a text through a view ({@link VIEW_CHARS}), nor a word of a secret's name (any case: `pass`,
   * `pwd`, `pw`, `secret`, `token`, `key`, `cred`, `bearer`, `cookie`, `auth`, `pin`, `otp`, `cvv`, `cvc`, `sig`:
   * {@link NOTING_NAME_WORDS}) or of a secret-printing command (`doppler`, `vault`). An event every text of which is
   * false notes nothing ({@link notingPrefilter}). Undefined with custom rules (they run on every text) and with no
   * rules.
   */
  readonly mayNote?: (json: string) => boolean
  /**
   * An event already redacted, with each secret of `known` replaced where it restates it as a token
   * ({@link restateText}); structural fields kept. With `original`, the event as read: a secret is found there and
   * hidden whole even where a rule's marker took all of it but a part ({@link restateFrom}).
   */
  readonly restated: (e: SessionEvent, known: ReadonlyMap<string, string>, original?: SessionEvent) => SessionEvent
  /**
   * A transcript redacted; each secret a turn decided on (and each of `known`, a session's: `sessionRedactor`) is
   * looked for in every turn and in the title, earlier turns too.
   */
  readonly transcript: (t: Transcript, known?: ReadonlyMap<string, string>) => Transcript
  /**
   * A session's title (see {@link Redactor.title} in `RedactionShape`): redacted as text, then each secret of
   * `known` restated ({@link restateText}); a title cut short ({@link isClipped} to {@link TITLE_MAX_CHARS}) loses
   * what the cut may have left of a secret ({@link redactClipped}). With `source`, the text the title was cut
   * from ({@link isTitleSource}: its first prompt, whole): that text redacted whole, then cut
   * ({@link titleOfRedacted}), so the title does not depend on a hidden value's length (tester22c F1); a
   * `source` it was not cut from is ignored. Without one, a key wrapped over the prompt's lines, whose breaks became
   * spaces in the title, is found too ({@link redactCollapsedKeys}; with the source, the wrapped key is found in it).
   */
  readonly title: (s: string, known?: ReadonlyMap<string, string>, source?: string) => string
}

/**
 * The fields of a {@link SessionEvent} that are kept as they are: the
 * contract's identity and order (`contractVersion`, `provider`, `sourceId`,
 * `sessionId`, `eventId`, `sequence`, `kind`, `role`, `cursor`) and
 * `toolCallId` (it pairs calls with results), and the typed values that are
 * no content: `occurredAt` (RFC 3339), `responseId`, `isError`, `compaction`,
 * `parent` and `child` (ids), `usage` and `costUsd` (numbers). `rawReference`
 * keeps its `locatorClass` (its other fields are numbers). Kept from the walk
 * of content only: the ids copied from the source (`toolCallId`, `responseId`,
 * `parent`, `child`) are then redacted as link ids, and a `compaction`'s trigger
 * through the text rules (tester38 F1), by the redactor's `event`.
 */
export const EVENT_STRUCTURAL_FIELDS: ReadonlyArray<string> = [
  "contractVersion",
  "provider",
  "sourceId",
  "sessionId",
  "eventId",
  "sequence",
  "kind",
  "role",
  "cursor",
  "toolCallId",
  // session 21 (tester21b F6): the record's time, ids, links, outcome and counts, which a custom pattern
  // (`2026`, `\d{4}`) must not turn into something else than their documented shape
  "occurredAt",
  "responseId",
  "isError",
  "compaction",
  "parent",
  "child",
  "usage",
  "costUsd"
]

/**
 * The shape of an id kept as it is when the built-in rules find nothing in it (`toolu_01…`, a UUID, `call-1`,
 * `agent-a7c3…`): a letter or digit, then letters, digits and `._:@/#+-`, at most 256 characters; no white space,
 * no `=`, no quote. An id field holding anything else goes through the text rules.
 */
export const ID_SHAPED = /^[A-Za-z0-9][A-Za-z0-9._:@/#+-]{0,255}$/

/**
 * The fields of an event's `extensions` that hold the source's own JSON (Claude Code's raw block and tool input,
 * Muse Code's record payload and document, Muse agents' input): their keys are the source's, redacted as content
 * (a tool input keyed by a path or an email); the other fields' names, nested ones too, are the record's.
 */
export const SOURCE_JSON_FIELDS: ReadonlySet<string> = new Set(["input", "block", "payload", "document", "raw", "toolInput", "arguments"])

/** Set an own data property (also for a key such as `__proto__`, which plain assignment would not create). */
const setOwn = (o: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** What a secret under a secret-named key becomes (the `secret-field` rule's marker). */
export const FIELD_MARK = marker("secret-field")
/** What a secret given as a name/value pair becomes (the `secret-pair` rule's marker). */
export const PAIR_MARK = marker("secret-pair")
/** What a leaf of an object or an array under a secret's name becomes (the `secret-nested` rule's marker). */
export const NESTED_MARK = marker("secret-nested")
/** What a PIN, a one-time code or a card verification value under its name becomes (the `secret-pin` rule's marker). */
export const PIN_MARK = marker("secret-pin")
/** What a secret option's value as the next element of an array becomes (the `cli-secret-option` rule's marker). */
export const OPTION_MARK = marker("cli-secret-option")
/**
 * What the user name of a session's home path becomes where the session states it elsewhere as a word (`whoami`'s
 * output, a prompt's `name@host`): the `user-name` marker (session 24, tester24a F9; see `hiddenUserName` in `./rules.ts`).
 */
export const USER_MARK = marker("user-name")
/** What the password of `scheme://user:password@host` becomes (the `url-credentials` rule's marker). */
export const URL_MARK = marker("url-credentials")

/** Whether a value under a secret-named key is the secret (defined with the names, `./rules.ts`). */
export { secretValue }

/**
 * An option whose next argument is a secret (the names `cli-secret-option` knows): `--password`, `--pass`,
 * `--pwd`, `--token`, `--secret`, `--api-key`, `--access-key`, `--secret-key`, `--auth-token`,
 * `--client-secret`, with words before (`--db-password`) and one dash (`-token`); not `--no-…`, not
 * `--password-stdin`, `--token-file`, `--max-tokens`.
 */
const SECRET_OPTION = /^--?(?!no-)(?:[A-Za-z0-9]{1,40}[-_]){0,6}(?:password|passwd|pass|pwd|token|secret|api[-_]?key|apikey|access[-_]?key|secret[-_]?key|auth[-_]?token|client[-_]?secret)$/i

/** Whether the array element after the string `option` is a secret option's value: `next` a string, not empty, not an option, not a `$VAR` reference. */
export const optionValueAt = (option: unknown, next: unknown): boolean =>
  typeof option === "string" && option.charCodeAt(0) === 45 && typeof next === "string" && next.length > 0 &&
  next.charCodeAt(0) !== 45 && !notAValue(next) && SECRET_OPTION.test(option)

const own = (o: Record<string, unknown>, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined)

/** The keys of a name/value object that name its value (HAR, Postman, a Kubernetes env entry). */
const PAIR_NAME_KEYS = ["name", "key", "header", "Name", "Key", "Header"]

/**
 * The names an object gives its `value` (or `Value`) when it is a name/value pair: `{"name": "X-Api-Key",
 * "value": "…"}` (HAR, Postman's `key`, `header`), each string under `name`, `key`, `header` (or capitalized);
 * undefined when it holds no string `value` or no such name. Its value is then a secret when
 * {@link pairSecret} says so for one of them.
 */
export const pairNamesOf = (o: Record<string, unknown>): ReadonlyArray<string> | undefined => {
  if (typeof own(o, "value") !== "string" && typeof own(o, "Value") !== "string") return undefined
  let names: Array<string> | undefined
  for (const k of PAIR_NAME_KEYS) {
    const n = own(o, k)
    if (typeof n === "string") (names ??= []).push(n)
  }
  return names
}

/** Whether `k` is the key of a name/value object's value (`value`, `Value`). */
export const isPairValueKey = (k: string): boolean => k === "value" || k === "Value"

/** The shortest secret decided by structure that is looked for elsewhere in its event (shorter ones would hit ordinary words). */
export const RESTATED_MIN = 4
/** The shortest secret decided by structure that is looked for in the session's other events (a session is long: `test`, `admin` would hit prose). */
export const SESSION_RESTATED_MIN = 6

const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95
const isAlnum = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)
/** `.` and `-` join words into one token (`ftp.example.com`, `16-alpine`, `notes.txt`) when a letter or digit is on their other side. */
const isJoiner = (c: number) => c === 46 || c === 45

/** Whether `s[at, end)` is a token of its own: no word character next to it, nor a `.` or `-` that joins it to one (`x.` + it, it + `.com`). */
const tokenAt = (s: string, at: number, end: number): boolean => {
  if (at > 0) {
    const c = s.charCodeAt(at - 1)
    if (isWordChar(c) || (isJoiner(c) && at > 1 && isAlnum(s.charCodeAt(at - 2)))) return false
  }
  if (end < s.length) {
    const c = s.charCodeAt(end)
    if (isWordChar(c) || (isJoiner(c) && end + 1 < s.length && isAlnum(s.charCodeAt(end + 1)))) return false
  }
  return true
}

/** The longest value looked for elsewhere (a longer one is a document, not a secret restated as a word). */
export const RESTATED_MAX = 512

/**
 * Whether a value a rule or the structure caught (and redacted where it stands, whatever its shape) is also
 * looked for where it is restated elsewhere (the rest of its event, the session's other events: {@link restateText}):
 * `min` characters or more (and at most {@link RESTATED_MAX}), no marker in it, and the shape of a secret rather
 * than of a word: two kinds of characters or more among lower-case letters, upper-case letters (a capital that
 * starts it does not count: `Postgres`), digits and other symbols than `-`, `_`, `.`, `/` and white space
 * (`Wr1teEnvPw!`, `MsSqlPw#2024`, `hunter22`, `s3cr3t`). A word (`postgres`, `example`, `guest`, `Admin`,
 * `app_password`, `my-db.local`, `/srv/app`) or a number (`5432`, `84736251`) caught as a password stays redacted where it
 * was caught and nowhere else: a session-wide hunt for it would wipe that word from user names, hosts, images
 * and prose (tester21b F1).
 */
export const restatable = (v: string, min: number): boolean => {
  if (v.length < min || v.length > RESTATED_MAX) return false
  let kinds = 0
  for (let i = 0; i < v.length && kinds !== 15; i++) {
    const c = v.charCodeAt(i)
    if (c >= 97 && c <= 122) kinds |= 1
    else if (c >= 65 && c <= 90) {
      if (i > 0) kinds |= 2
    } else if (c >= 48 && c <= 57) kinds |= 4
    else if (c === 91 && v.startsWith("[REDACTED:", i)) return false
    else if (c !== 45 && c !== 95 && c !== 46 && c !== 47 && c !== 32 && c !== 9 && c !== 10 && c !== 13) kinds |= 8
  }
  return kinds !== 0 && (kinds & (kinds - 1)) !== 0
}

/**
 * `s` with each occurrence of a secret of `secrets` (and of its JSON-escaped form: the text of a tool call is its
 * input as JSON; and, read through the decoded view, HTML-escaped or percent-encoded: {@link redactDecoded}) replaced by its marker, where it is a token of its own ({@link tokenAt}: no letter, digit or `_`
 * right before or after it, nor a `.` or `-` joining it to one: `abc` inside `abcdef` and `ftp.abc.com` stays).
 * `redacted`, when given, says how the text redaction writes a secret (or its escaped form) where it does not
 * take it whole, undefined when it writes it as it is or takes it whole: a custom pattern that matches a piece of
 * it (`hunter[REDACTED:digits]`, tester22b F3); that form is replaced too. The same string when none occurs.
 * `secrets` only ever grows (entries are added, never removed: a session's known secrets): a map of 8 secrets or
 * more gets an index kept per map and extended as it grows ({@link SecretIndex}), so a string costs its length plus
 * the secrets in it.
 */
export const restateText = (s: string, secrets: ReadonlyMap<string, string>, redacted?: (secret: string) => string | undefined): string => {
  if (secrets.size === 0) return s
  const out = restateAsWritten(s, secrets, redacted)
  return hasEncoded(s) ? redactDecoded(s, out, (v) => restateAsWritten(v, secrets, redacted)) : out
}

/** {@link restateText} of `s` as written (no decoded view). */
const restateAsWritten = (s: string, secrets: ReadonlyMap<string, string>, redacted: RedactedForm): string =>
  secrets.size < PREFILTER_FROM ? restateEach(s, secrets, redacted) : restateIndexed(s, secrets, redacted)

/**
 * `united` (a redaction of `s`, its known secrets restated) with each secret of `secrets` also hidden where the decoded view of `s` states it
 * (`./decoded-views.ts`, session 26, tester25b F5: `Qx7pass%2DWord_88` for a known `Qx7pass-Word_88`, an HTML
 * page's `&quot;`-quoted value): the whole span of references and escapes it is written with goes. `united` as it
 * is when `s` holds no `&` and no `%` (two `indexOf`).
 */
const restateDecoded = (s: string, united: string, secrets: ReadonlyMap<string, string>, redacted: RedactedForm): string =>
  hasEncoded(s) ? redactDecoded(s, united, (v) => restateAsWritten(v, secrets, redacted)) : united

/** The forms a secret is looked for in: itself, its JSON-escaped form, and how the text redaction writes each ({@link restateText}'s `redacted`). */
const formsOf = (secret: string, redacted: ((secret: string) => string | undefined) | undefined): Array<string> => {
  const escaped = JSON.stringify(secret).slice(1, -1)
  const forms = escaped === secret ? [secret] : [secret, escaped]
  if (redacted !== undefined) {
    for (const f of forms.slice()) {
      const r = redacted(f)
      if (r !== undefined) forms.push(r)
    }
  }
  return forms
}

/** The fewest secrets worth an index ({@link indexOf}): below, a few `indexOf` (memchr) cost less than a pass over the string. */
const PREFILTER_FROM = 8

/** The length of the prefix a form is indexed by ({@link SecretIndex}); shorter forms are looked for by `includes`. */
const PREFIX = 6

/**
 * An index of a map of secrets (which only grows: entries appended), kept up to date as entries are added: the
 * secrets in the map's order with their marks and forms ({@link formsOf}), each form of {@link PREFIX} characters
 * or more under a rolling hash of its first {@link PREFIX} characters (a bit table, then the exact prefix), shorter
 * ones in a list. {@link occurrencesIn} finds, in one pass over a string, every occurrence of every form, so restating
 * costs the string's length plus the occurrences found, not one scan per secret (tester23c F2: a session with
 * thousands of caught passwords was quadratic; tester24a F11: so was one text with thousands of them).
 */
interface SecretIndex {
  readonly redacted: RedactedForm
  /** the map indexed: a secret's mark is read from it ({@link markOf}), so a mark changed since is current */
  readonly map: ReadonlyMap<string, string>
  readonly secrets: Array<string>
  readonly forms: Array<Array<string>>
  /**
   * by the exact prefix of a form: its forms by their length and then by the whole form (tester33a F7: a list of
   * the secrets under a prefix, each compared at every place the prefix stands, was quadratic when thousands of
   * secrets share their first {@link PREFIX} characters: `S3cr00001` ... `S3cr09999`)
   */
  readonly byPrefix: Map<string, PrefixBucket>
  /** bit h & MASK set when some form's prefix hashes to h */
  readonly bits: Uint8Array
  /** secrets with a form shorter than {@link PREFIX}, in the map's order */
  readonly short: Array<number>
  /**
   * The map's entries from the next one not indexed yet: a Map's iterator also yields the entries added after it
   * was made, as long as it was not run to its end, so the index takes only the new entries (not the whole map
   * each time it grew: a session's known secrets grow with each event).
   */
  readonly rest: Iterator<readonly [string, string]>
  /** the distinct marks of the map */
  readonly marksSeen: Set<string>
  /** by secret: whether a form of it could be made by a mark of the map ({@link markMade}) */
  readonly markMade: Array<boolean>
  /** how many secrets {@link SecretIndex.markMade} holds true for */
  markMadeCount: number
}

/**
 * The forms of a {@link SecretIndex} that start with one prefix: how many distinct forms it holds of each length,
 * and for each form its (secret index, form index) pairs, flat (`[k, f, k, f, ...]`), in the map's order. A place
 * in a text is looked up once per distinct length (at most the longest form's), not once per secret.
 */
interface PrefixBucket {
  readonly lengths: Map<number, number>
  readonly byForm: Map<string, Array<number>>
}

/**
 * Whether an occurrence of `form` could be made by putting a mark of `marks` in a text: it holds `[` or `]` (it
 * would span a mark's edge) or it is a piece of a mark. Only such a secret can be found after another was
 * replaced where it was not before (`[x] ok` once `Qz9!xy` became `[x]`).
 */
const markMade = (form: string, marks: Iterable<string>): boolean => {
  if (form.includes("[") || form.includes("]")) return true
  for (const m of marks) if (m.includes(form)) return true
  return false
}

const HASH_BITS = 20
const MASK = (1 << HASH_BITS) - 1
/** 31^PREFIX mod 2^32: what the character leaving the window weighs in the rolling hash */
const OUT_WEIGHT = (() => {
  let w = 1
  for (let i = 0; i < PREFIX; i++) w = Math.imul(w, 31)
  return w
})()

const hashPrefix = (s: string, from: number): number => {
  let h = 0
  for (let i = from; i < from + PREFIX; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}

/** The indexes of a map, one per `redacted` (restating asks with and without it: {@link restateFrom}). */
const indexes = new WeakMap<ReadonlyMap<string, string>, Map<RedactedForm, SecretIndex>>()

/** The index of `secrets` for `redacted`, with the entries added since its last use ({@link SecretIndex}). */
const indexOf = (secrets: ReadonlyMap<string, string>, redacted: RedactedForm): SecretIndex => {
  let byForm = indexes.get(secrets)
  if (byForm === undefined) indexes.set(secrets, byForm = new Map())
  let x = byForm.get(redacted)
  if (x === undefined || x.secrets.length > secrets.size) {
    x = { redacted, map: secrets, secrets: [], forms: [], byPrefix: new Map(), bits: new Uint8Array((MASK + 1) >> 3), short: [], rest: secrets.entries(), marksSeen: new Set(), markMade: [], markMadeCount: 0 }
    byForm.set(redacted, x)
  }
  // a turn's map may have given a secret indexed already a mark the index has not seen (TurnSecrets.set)
  if (secrets instanceof TurnSecrets && secrets.marksEver.size > x.marksSeen.size) {
    for (const mark of secrets.marksEver) if (!x.marksSeen.has(mark)) seeMark(x, mark)
  }
  // many new entries (a huge text's caught values): indexed a part at a time, pausing between parts (`./pausable.ts`)
  if (secrets.size - x.secrets.length > INDEX_PER_STEP) stepped(indexSteps(x, secrets), () => undefined)
  pull(x, secrets, secrets.size)
  return x
}

/** The most entries {@link indexOf} adds to an index between two pauses ({@link indexSteps}). */
const INDEX_PER_STEP = 1 << 15

/** {@link pull} all of `secrets`' new entries into `x`, a pause after each {@link INDEX_PER_STEP} of them. */
function* indexSteps(x: SecretIndex, secrets: ReadonlyMap<string, string>): Generator<void, void, void> {
  while (x.secrets.length < secrets.size) {
    const before = x.secrets.length
    pull(x, secrets, Math.min(secrets.size, x.secrets.length + INDEX_PER_STEP))
    if (x.secrets.length === before) return
    yield
  }
}

/** `x` ({@link indexOf}'s) with `secrets`' next entries added to it until it holds `upTo` of them (or all). */
const pull = (x: SecretIndex, secrets: ReadonlyMap<string, string>, upTo: number): void => {
  const redacted = x.redacted
  // pulled one entry at a time while some are new: the iterator is never run to its end, so it sees later entries
  while (x.secrets.length < upTo) {
    const next = x.rest.next()
    if (next.done === true) break
    const [secret, mark] = next.value
    restateWork.entries++
    const k = x.secrets.length
    const forms = formsOf(secret, redacted)
    // a new mark: the secrets before it looked at again
    if (!x.marksSeen.has(mark)) seeMark(x, mark)
    x.secrets.push(secret)
    x.forms.push(forms)
    x.markMade.push(forms.some((form) => markMade(form, x.marksSeen)))
    if (x.markMade[k]) x.markMadeCount++
    let short = false
    for (let f = 0; f < forms.length; f++) {
      const form = forms[f]
      if (form.length < PREFIX) {
        short = true
        continue
      }
      const key = form.slice(0, PREFIX)
      let bucket = x.byPrefix.get(key)
      if (bucket === undefined) x.byPrefix.set(key, bucket = { lengths: new Map(), byForm: new Map() })
      const list = bucket.byForm.get(form)
      if (list === undefined) {
        bucket.byForm.set(form, [k, f])
        bucket.lengths.set(form.length, (bucket.lengths.get(form.length) ?? 0) + 1)
      } else list.push(k, f)
      const h = hashPrefix(form, 0) & MASK
      x.bits[h >> 3] |= 1 << (h & 7)
    }
    if (short) x.short.push(k)
  }
}

/** A mark new to `x`: the secrets it indexed looked at again (a map has a few distinct marks). */
const seeMark = (x: SecretIndex, mark: string): void => {
  x.marksSeen.add(mark)
  for (let j = 0; j < x.secrets.length; j++) {
    if (!x.markMade[j] && x.forms[j].some((form) => markMade(form, [mark]))) {
      x.markMade[j] = true
      x.markMadeCount++
    }
  }
}

/** The mark of the `k`th secret of `x`, as its map holds it now. */
const markOf = (x: SecretIndex, k: number): string => x.map.get(x.secrets[k])!

/**
 * `x` cut back to its first `n` secrets (its map was: {@link TurnSecrets.cut}). The prefix bits stay (a bit set for no
 * form only costs a look in `byPrefix`), and so do the marks seen ({@link SecretIndex.markMade} may then hold for a
 * secret no mark of the map can make: restating then rescans, with the same result).
 */
const cutIndex = (x: SecretIndex, n: number): void => {
  while (x.secrets.length > n) {
    const k = x.secrets.length - 1
    for (const form of x.forms[k]) {
      if (form.length < PREFIX) continue
      const key = form.slice(0, PREFIX)
      const bucket = x.byPrefix.get(key)
      const list = bucket?.byForm.get(form)
      if (bucket === undefined || list === undefined) continue
      while (list.length > 0 && list[list.length - 2] === k) list.length -= 2
      if (list.length === 0) {
        bucket.byForm.delete(form)
        const left = bucket.lengths.get(form.length)! - 1
        if (left > 0) bucket.lengths.set(form.length, left)
        else bucket.lengths.delete(form.length)
        if (bucket.byForm.size === 0) x.byPrefix.delete(key)
      }
    }
    if (x.short.length > 0 && x.short[x.short.length - 1] === k) x.short.pop()
    if (x.markMade[k]) x.markMadeCount--
    x.markMade.pop()
    x.forms.pop()
    x.secrets.pop()
  }
}

/**
 * The secrets a transcript's turn is redacted with (`deciding` over a turn): its session's known so far, then those
 * the turn decides on, in that order (a value the turn decides on again keeps its place and takes the turn's mark).
 * One map for all the turns of a transcript, cut back after each to the session's known secrets
 * ({@link TurnSecrets.cut}), so its indexes ({@link indexOf}) are built once and kept in step, not one per turn over
 * every secret the session knows (tester30b F1: a copy of the session's secrets per turn, each indexed anew, made
 * the Markdown of a session with thousands of caught passwords quadratic: 15 s of processor time at 4,000 events).
 */
class TurnSecrets extends Map<string, string> {
  /** the keys the turn added, in order */
  private readonly added: Array<string> = []
  private readonly addedSet = new Set<string>()
  /** the keys of the session's whose mark the turn changed, with the mark before */
  private readonly before = new Map<string, string>()
  /** every mark the map ever held (only grows) */
  readonly marksEver = new Set<string>()

  constructor(from: Iterable<readonly [string, string]>) {
    super()
    for (const [k, v] of from) this.put(k, v)
  }

  private put(k: string, v: string): void {
    Map.prototype.set.call(this, k, v)
    this.marksEver.add(v)
  }

  override set(k: string, v: string): this {
    const old = super.get(k)
    if (old === undefined) {
      this.added.push(k)
      this.addedSet.add(k)
    } else if (old !== v && !this.addedSet.has(k) && !this.before.has(k)) {
      this.before.set(k, old)
    }
    this.put(k, v)
    return this
  }

  /** The keys the turn added, in order. */
  addedKeys(): ReadonlyArray<string> {
    return this.added
  }

  /**
   * Back to the session's secrets before the turn, then `appended` (what the session kept of the turn's: the
   * entries just added to it, in order): the map is again the session's, entry for entry. Its indexes are cut alike.
   */
  cut(appended: ReadonlyArray<readonly [string, string]>): void {
    for (const [k, v] of this.before) this.put(k, v)
    for (const k of this.added) this.delete(k)
    const n = this.size
    const byForm = indexes.get(this)
    if (byForm !== undefined) for (const x of byForm.values()) cutIndex(x, n)
    this.added.length = 0
    this.addedSet.clear()
    this.before.clear()
    for (const [k, v] of appended) this.put(k, v)
  }
}

/**
 * The work restating has done: the characters it read looking for secrets (a pass of the index over a string, an
 * `indexOf` of a form up to where it stopped), the entries of a map its indexes took (`entries`), and the forms
 * looked up where a text holds an indexed prefix (`lookups`: one per distinct length under the prefix, tester33a F7). For tests that
 * check it grows with the text and the secrets in it, not their product (tester24a F11), without timing anything.
 */
export const restateWork = { chars: 0, entries: 0, lookups: 0 }

/** One occurrence of a form of a secret of a {@link SecretIndex} in a string: secret `k`, its form `f`, at `at`. */
interface Occurrence {
  readonly k: number
  readonly f: number
  readonly at: number
  readonly end: number
}

/**
 * Every occurrence (overlapping ones too) in `s` of a form of a secret of `x`, in one pass over `s`: the forms of
 * {@link PREFIX} characters or more by the rolling hash of their prefix, the shorter ones by a set per length.
 * Unordered.
 */
const occurrencesIn = (x: SecretIndex, s: string): Array<Occurrence> => {
  if (s.length < HUGE) return finish(occurrenceSteps(x, s))
  const key = x.secrets.slice()
  const kept = keptOccurrences.get(s, { x, secrets: key })
  return (kept ?? stepped(occurrenceSteps(x, s), (found) => keptOccurrences.set(s, { x, secrets: key }, found))).slice()
}

/** The characters of a text {@link occurrenceSteps} reads between two pauses. */
const OCCURRENCES_PER_STEP = 1 << 20

/**
 * {@link occurrencesIn}'s answers for huge texts (`./pausable.ts`), by text and the index's secrets then (an index
 * grows, and a turn's is cut back: {@link cutIndex}); the same forms for the same secrets (one `redacted`).
 */
const keptOccurrences = new Kept<{ readonly x: SecretIndex; readonly secrets: ReadonlyArray<string> }, Array<Occurrence>>((a, b) =>
  a.x.redacted === b.x.redacted && a.secrets.length === b.secrets.length && a.secrets.every((v, i) => v === b.secrets[i])
)

/**
 * {@link occurrencesIn} a part at a time: a pause after each {@link OCCURRENCES_PER_STEP} characters of a pass (the
 * same occurrences in the same order; a pass over a string shorter than that does not pause).
 */
function* occurrenceSteps(x: SecretIndex, s: string): Generator<void, Array<Occurrence>, void> {
  const found: Array<Occurrence> = []
  const n = s.length
  restateWork.chars += n
  if (x.short.length > 0) {
    // the short forms (fewer than PREFIX characters) by their length: a window of each length slid over `s`
    const byLength = new Map<number, Map<string, Array<readonly [number, number]>>>()
    for (const k of x.short) {
      x.forms[k].forEach((form, f) => {
        if (form.length >= PREFIX || form.length === 0) return
        let m = byLength.get(form.length)
        if (m === undefined) byLength.set(form.length, m = new Map())
        const list = m.get(form)
        if (list === undefined) m.set(form, [[k, f]])
        else list.push([k, f])
      })
    }
    for (const [len, m] of byLength) {
      restateWork.chars += n
      for (let i = 0; i + len <= n; i++) {
        if ((i & (OCCURRENCES_PER_STEP - 1)) === 0 && i > 0) yield
        const list = m.get(s.slice(i, i + len))
        if (list !== undefined) for (const [k, f] of list) found.push({ k, f, at: i, end: i + len })
      }
    }
  }
  if (n >= PREFIX) {
    let h = hashPrefix(s, 0)
    for (let i = 0; ; i++) {
      if ((i & (OCCURRENCES_PER_STEP - 1)) === 0 && i > 0) yield
      const b = h & MASK
      if ((x.bits[b >> 3] & (1 << (b & 7))) !== 0) {
        const bucket = x.byPrefix.get(s.slice(i, i + PREFIX))
        if (bucket !== undefined) {
          const first = found.length
          for (const len of bucket.lengths.keys()) {
            if (i + len > n) continue
            restateWork.lookups++
            const list = bucket.byForm.get(len === PREFIX ? s.slice(i, i + PREFIX) : s.slice(i, i + len))
            if (list !== undefined) for (let p = 0; p < list.length; p += 2) found.push({ k: list[p], f: list[p + 1], at: i, end: i + len })
          }
          // the order of a list of the secrets under the prefix: the map's, then each secret's forms in order
          if (found.length - first > 1) {
            const here = found.splice(first).sort((a, b) => a.k - b.k || a.f - b.f)
            for (const o of here) found.push(o)
          }
        }
      }
      if (i + PREFIX >= n) break
      h = (Math.imul(h, 31) - Math.imul(s.charCodeAt(i), OUT_WEIGHT) + s.charCodeAt(i + PREFIX)) | 0
    }
  }
  return found
}

/**
 * How far a replacement changes what {@link tokenAt} reads of an occurrence: it reads the two characters on each
 * side (a `.` or `-` and the letter beyond it), so occurrences further apart than this are decided alone.
 */
const TOKEN_REACH = 2

/**
 * {@link restateEach} over the secrets of a large map in one pass over the string: every occurrence of a form of a
 * secret is found at once ({@link occurrencesIn}), and the string is rebuilt once. An occurrence with no other within
 * {@link TOKEN_REACH} characters is replaced when it is a token; a run of occurrences that overlap or touch (a secret
 * inside a longer one, `Pw1` and `Pw1!`) is restated as {@link restateEach} would, the map's order deciding, on that
 * run alone (with its context). The same answer as {@link restateEach}: a secret that only a mark put in the text
 * could make ({@link markMade}: `[x] ok` once `Qz9!xy` became `[x]`) sends the map to {@link restateRescanning}
 * instead, which looks again after each replacement. Linear in the string's length and the occurrences in it
 * (tester24a F11: one rescan per replaced secret made a tool output of 22k passwords take minutes).
 */
const restateIndexed = (s: string, secrets: ReadonlyMap<string, string>, redacted: RedactedForm): string => {
  const x = indexOf(secrets, redacted)
  const occ = occurrencesIn(x, s)
  if (occ.length === 0) return s
  if (x.markMadeCount > 0) return restateRescanning(s, x, occ)
  occ.sort((a, b) => a.at - b.at || a.k - b.k || a.f - b.f)
  let r = ""
  let done = 0
  for (let i = 0; i < occ.length;) {
    let j = i + 1
    let end = occ[i].end
    while (j < occ.length && occ[j].at < end + TOKEN_REACH) end = Math.max(end, occ[j++].end)
    const o = occ[i]
    if (j === i + 1) {
      if (tokenAt(s, o.at, o.end)) {
        r += s.slice(done, o.at) + markOf(x, o.k)
        done = o.end
      }
    } else {
      // a run: its secrets in the map's order on the run and the characters around it that `tokenAt` reads
      // (no occurrence starts in that context: an earlier one ends TOKEN_REACH characters or more before the run)
      const from = Math.max(0, o.at - TOKEN_REACH)
      const to = Math.min(s.length, end + TOKEN_REACH)
      const ks = [...new Set(occ.slice(i, j).map((q) => q.k))].sort((a, b) => a - b)
      let w = s.slice(from, to)
      for (const k of ks) w = restateOne(w, x.forms[k], markOf(x, k))
      r += s.slice(done, Math.max(done, from)) + w.slice(Math.max(0, done - from))
      done = to
    }
    i = j
  }
  return done === 0 ? s : r + s.slice(done)
}

/** The secrets (their indexes, ascending: the map's order) above `after` among `occ`. */
const secretsAmong = (occ: ReadonlyArray<Occurrence>, after: number): Array<number> =>
  [...new Set(occ.filter((o) => o.k > after).map((o) => o.k))].sort((a, b) => a - b)

/**
 * {@link restateEach} over the secrets of `x` found in `s` (`occ`: {@link occurrencesIn}); after a secret changed
 * it, those after it are found again in the new string. For a map with a secret that a mark could make
 * ({@link markMade}): one pass over the string per secret replaced, so kept to such maps.
 */
const restateRescanning = (s: string, x: SecretIndex, occ: ReadonlyArray<Occurrence>): string => {
  let out = s
  let todo = secretsAmong(occ, -1)
  for (let t = 0; t < todo.length; t++) {
    const k = todo[t]
    const next = restateOne(out, x.forms[k], markOf(x, k))
    if (next !== out) {
      out = next
      todo = secretsAmong(occurrencesIn(x, out), k)
      t = -1
    }
  }
  return out
}

/** `out` with each form of one secret, in turn, replaced by `mark` where it is a token ({@link tokenAt}). */
const restateOne = (s: string, forms: ReadonlyArray<string>, mark: string): string => {
  let out = s
  for (const form of forms) {
    let at = out.indexOf(form)
    if (at < 0) {
      restateWork.chars += out.length
      continue
    }
    let r = ""
    let done = 0
    while (at >= 0) {
      const end = at + form.length
      if (tokenAt(out, at, end)) {
        r += out.slice(done, at) + mark
        done = end
      }
      at = out.indexOf(form, end)
    }
    restateWork.chars += out.length
    if (done > 0) out = r + out.slice(done)
  }
  return out
}

/** {@link restateText} without its index: each secret, in the map's order, looked for in turn. */
const restateEach = (s: string, secrets: ReadonlyMap<string, string>, redacted: ((secret: string) => string | undefined) | undefined): string => {
  let out = s
  for (const [secret, mark] of secrets) out = restateOne(out, formsOf(secret, redacted), mark)
  return out
}

/** How the text redaction writes a secret it does not take whole (see {@link restateText}). */
type RedactedForm = ((secret: string) => string | undefined) | undefined

/**
 * The places in `original` where a secret of `secrets` (in one of its forms: itself, its JSON-escaped form) stands
 * as a token ({@link tokenAt}), each with its marker (a large map's secrets found by its index: {@link occurrencesIn}).
 */
const secretSpans = (original: string, secrets: ReadonlyMap<string, string>): Array<{ start: number; end: number; mark: string }> => {
  const out: Array<{ start: number; end: number; mark: string }> = []
  const spansOf = (forms: ReadonlyArray<string>, mark: string) => {
    for (const form of forms) {
      for (let at = original.indexOf(form); at >= 0; at = original.indexOf(form, at + 1)) {
        if (tokenAt(original, at, at + form.length)) out.push({ start: at, end: at + form.length, mark })
      }
      restateWork.chars += original.length
    }
  }
  if (secrets.size >= PREFILTER_FROM) {
    // every occurrence of every form in one pass (tester24a F11: one scan per secret found was quadratic)
    const x = indexOf(secrets, undefined)
    for (const o of occurrencesIn(x, original)) if (tokenAt(original, o.at, o.end)) out.push({ start: o.at, end: o.end, mark: markOf(x, o.k) })
  } else {
    for (const [secret, mark] of secrets) spansOf(formsOf(secret, undefined), mark)
  }
  return out
}

/**
 * `s`, the redaction of `original`, with each secret of `secrets` hidden where `original` states it as a token,
 * whole (tester22c F2): where a rule's marker took a secret but a part of it (`credential-prose` takes
 * `Xy9zQw12Ab` of a known `Xy9zQw12Ab!`, leaving `[REDACTED:credential-prose]!`), the hidden span is the union of
 * both, under one marker ({@link unionHidden}). When `original` and `s` cannot be lined up, or `original` holds no
 * secret, {@link restateText} of `s` alone.
 */
const restateFrom = (original: string, s: string, secrets: ReadonlyMap<string, string>, redacted: RedactedForm): string => {
  if (original === s) return restateText(s, secrets, redacted)
  const spans = secretSpans(original, secrets)
  const united = spans.length === 0 ? undefined : original.length < HUGE ? unionHidden(original, s, spans) : unitedHuge(original, s, secrets, spans)
  return united === undefined ? restateText(s, secrets, redacted) : restateDecoded(original, united, secrets, redacted)
}

/**
 * {@link unionHidden} of a huge text, pausing (`./pausable.ts`): its answer kept by the text, its redaction and the
 * map (the same map object, as large as it was then: a map is only added to) the spans are of.
 */
const unitedHuge = (original: string, s: string, secrets: ReadonlyMap<string, string>, spans: ReadonlyArray<{ start: number; end: number; mark: string }>): string | undefined => {
  const key = { s, secrets, size: secrets.size }
  const kept = keptUnions.get(original, key)
  if (kept !== undefined) return kept.united
  return stepped(unionHiddenSteps(original, s, spans), (united) => keptUnions.set(original, key, { united }))
}

/** {@link unitedHuge}'s answers. */
const keptUnions = new Kept<{ readonly s: string; readonly secrets: ReadonlyMap<string, string>; readonly size: number }, { readonly united: string | undefined }>((a, b) =>
  a.s === b.s && a.secrets === b.secrets && a.size === b.size
)

/**
 * `v` with every string restated ({@link restateText}); the same reference when nothing changed. With `original`,
 * the value `v` is the redaction of (walked alongside: the same key, the same index), a string is restated from it
 * ({@link restateFrom}).
 */
const restate = (v: unknown, secrets: ReadonlyMap<string, string>, redacted: RedactedForm, original?: unknown): unknown => {
  if (typeof v === "string") return typeof original === "string" ? restateFrom(original, v, secrets, redacted) : restateText(v, secrets, redacted)
  if (Array.isArray(v)) {
    const o = Array.isArray(original) && original.length === v.length ? original : undefined
    let out: Array<unknown> | undefined
    for (let i = 0; i < v.length; i++) {
      const r = restate(v[i], secrets, redacted, o?.[i])
      if (r !== v[i]) (out ??= v.slice())[i] = r
    }
    return out ?? v
  }
  if (isPlainObject(v)) return restateObject(v, secrets, undefined, redacted, original)
  return v
}

/** An object's values restated ({@link restate}), except those under the keys of `keep`; the same object when nothing changed. */
const restateObject = (
  o: Record<string, unknown>,
  secrets: ReadonlyMap<string, string>,
  keep: ReadonlySet<string> | undefined,
  redacted: RedactedForm,
  original?: unknown
): Record<string, unknown> => {
  const from = isPlainObject(original) ? original : undefined
  let out: Record<string, unknown> | undefined
  for (const k of Object.keys(o)) {
    if (keep !== undefined && keep.has(k)) continue
    const r = restate(o[k], secrets, redacted, from === undefined ? undefined : own(from, k))
    if (r !== o[k]) {
      out ??= { ...o }
      out[k] = r
    }
  }
  return out ?? o
}

const MARK_HEAD = "[REDACTED:"
/** Every marker in a text. */
const MARKS = /\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*\]/g

/** `v` without the quotes around it (`"…"`, `'…'`, a backtick's, `\"…\"`): a quoted value goes whole, quotes with it. */
const unquoted = (v: string): string => {
  if (v.length >= 4 && v.startsWith('\\"') && v.endsWith('\\"')) return v.slice(2, -2)
  const q = v.charCodeAt(0)
  return v.length >= 2 && (q === 34 || q === 39 || q === 96) && v.charCodeAt(v.length - 1) === q ? v.slice(1, -1) : v
}

/**
 * The values the text rules took from `before` to make `after` (`after` is `before` with spans replaced by
 * markers, and home paths by `~`), each with its marker, given to `found` in order: the text between two markers
 * of `after` is found again in `before` (around a `~`, the text on each side of it), and what it does not cover is
 * what a marker replaced. Nothing when the two cannot be lined up so (two markers touch): a value that cannot be
 * told apart is not looked for elsewhere (it stays redacted where it stands).
 */
export const caughtValues = (before: string, after: string, found: (value: string, mark: string) => void): void => {
  for (const [v, mark] of finish(caughtSteps(before, after))) found(unquoted(v), mark)
}

/** {@link caughtSteps}' answers for huge texts, by text and its redaction (`./pausable.ts`). */
const keptCaught = new Kept<string, Array<readonly [string, string]>>((a, b) => a === b)

/** The markers of `after` {@link caughtSteps} reads between two pauses. */
const CAUGHT_PER_STEP = 1 << 16

/**
 * {@link caughtValues}' values (as written: not {@link unquoted} yet) with their markers, a pause (`yield`) after each
 * {@link CAUGHT_PER_STEP} markers of a huge `after` (`./pausable.ts`).
 */
function* caughtSteps(before: string, after: string): Generator<void, Array<readonly [string, string]>, void> {
  const none: Array<readonly [string, string]> = []
  const huge = after.length >= HUGE
  let m = after.indexOf(MARK_HEAD)
  if (m < 0) return none
  const head = after.slice(0, m)
  const headTail = head.slice(head.lastIndexOf("~") + 1)
  let start: number
  if (headTail.length === head.length) {
    if (!before.startsWith(head)) return none
    start = head.length
  } else {
    const p = headTail.length === 0 ? -1 : before.indexOf(headTail)
    if (p < 0) return none
    start = p + headTail.length
  }
  const got: Array<readonly [string, string]> = []
  while (m >= 0) {
    if (huge && got.length > 0 && (got.length & (CAUGHT_PER_STEP - 1)) === 0) yield
    const close = after.indexOf("]", m + MARK_HEAD.length)
    if (close < 0) return none
    const mark = after.slice(m, close + 1)
    const next = after.indexOf(MARK_HEAD, close + 1)
    const kept = after.slice(close + 1, next < 0 ? after.length : next)
    const tilde = kept.indexOf("~")
    const lead = tilde < 0 ? kept : kept.slice(0, tilde)
    let to: number
    if (next < 0 && tilde < 0) {
      to = before.length - kept.length
      if (to <= start || !before.endsWith(kept)) return none
    } else {
      to = lead.length === 0 ? -1 : before.indexOf(lead, start + 1)
      if (to < 0) return none
    }
    got.push([before.slice(start, to), mark])
    if (next >= 0) {
      const last = kept.lastIndexOf("~")
      if (last < 0) start = to + kept.length
      else {
        const tail = kept.slice(last + 1)
        const p = tail.length === 0 ? -1 : before.indexOf(tail, to + lead.length)
        if (p < 0) return none
        start = p + tail.length
      }
    }
    m = next
  }
  return got
}

/**
 * The redaction of one session's events in order, each with the secrets its session decided on so far: a value
 * a tool call's input holds under a secret-named key (`{"env": {"API_TOKEN": "…"}}`, a `["X-Api-Key", "…"]`
 * pair), or that a text rule caught after its name (`DB_PASSWORD=…` in a Write's content, `Password=…;` in a
 * connection string, `--password …`, a URL's password), becomes the same marker where a later event (the tool's
 * result, the next assistant message) restates it as a token, when it has a secret's shape ({@link restatable}).
 * `see` notes an event's secrets (it redacts it to find them, and keeps the result for `event`: an event a page
 * skips, or the whole session first for ATIF and the replay); `event` notes and redacts. Every redacted output of
 * events (export, ATIF, the replay, MCP answers and search snippets) goes through one, so they agree with each
 * other and with the Markdown transcript.
 *
 * Provenance: `event` gives each event a shown cursor (`../shown-cursor.ts`) in place of its stream cursor, and drops
 * its `rawReference.offset` (see {@link shownProvenance}); used for redacted outputs only (with rules).
 */
export interface SessionRedactor {
  readonly see: (e: SessionEvent) => void
  /**
   * Whether `see` of an event stored as `texts` (its JSON texts, `StoredEvent` in `src/services/Index.ts`; null:
   * unknown) of kind `kind` may change {@link SessionRedactor.known} or what the redactor holds for later events
   * (session 30): false only when the redaction's {@link Redactor.mayNote} is false for every text and the event is
   * no result of a call that prints a secret bare. An event it is false for need not be seen (nor decoded) for
   * `known`: the session's secrets are the same. The answers for the texts before the last (a stored shape's, which
   * many events share) are kept.
   */
  readonly needs: (kind: string, texts: ReadonlyArray<string> | null) => boolean
  readonly event: (e: SessionEvent) => SessionEvent
  /** The secrets noted so far, with their markers. */
  readonly known: ReadonlyMap<string, string>
  /** The tool calls seen so far whose command prints a secret bare ({@link printsSecret}), by `toolCallId`, in the order seen. */
  readonly printing: ReadonlySet<string>
}

/**
 * What a {@link SessionRedactor} starts from (`sessionRedactor`): the state seeing a session's earlier events left,
 * its {@link SessionRedactor.known} secrets (in the order they were noted) and its {@link SessionRedactor.printing}
 * calls, so that a reader that resumes inside a session redacts as one that saw it from its first event.
 */
export interface SessionRedactorStart {
  readonly known: Iterable<readonly [string, string]>
  readonly printing: Iterable<string>
}

/**
 * An event as a redacted output names it: its stream cursor becomes a shown cursor, its `sourceId` its shown form
 * (`ids`: keyed by the index's secret, `../shown-ids.ts`), and its `rawReference.offset` (the byte offset of its line
 * in the source) goes. A stream cursor holds checks of the bytes as imported (its line's CRC-32, the sha256 of the
 * source's head up to it) against which a guess at a hidden value could be tested offline, offsets tell the lengths
 * of the hidden values before them (and of lines no event shows: a snapshot line, a skipped one), and the real source
 * id is a digest of the path on disk (the home folder's user name could be guessed from it). So two sessions that
 * differ only in secrets give the same redacted events.
 */
export const shownProvenance = (e: SessionEvent, ids: ShownIds = realIds): SessionEvent => {
  const cursor = typeof e.cursor === "string" && !isShownCursor(e.cursor) ? shownCursor(e, ids) : e.cursor
  const sourceId = typeof e.sourceId === "string" ? ids.sourceId(e.sourceId) : e.sourceId
  const ref = e.rawReference
  if (cursor === e.cursor && sourceId === e.sourceId && ref?.offset === undefined) return e
  if (ref?.offset === undefined) return { ...e, cursor, sourceId }
  const { offset: _, ...rest } = ref
  return { ...e, cursor, sourceId, rawReference: rest }
}

/**
 * The words one of which (any case, ASCII) every name a structured value's secret is decided by holds: a key
 * {@link secretKeyKind} gives a kind, a {@link signatureKey}, a credential header's name (`Authorization`, `Cookie`),
 * a secret option (`--password`, {@link optionValueAt}), a name/value pair's name ({@link pairSecret}); and the
 * words every command {@link printsSecret} holds (`doppler`, `vault`; `aws secretsmanager`, `kubectl get secret`:
 * `secret`). Pinned by test/domain/redaction-may-note.test.ts.
 */
export const NOTING_NAME_WORDS: ReadonlyArray<string> = [
  "pw", "pass", "secret", "token", "key", "cred", "bearer", "cookie", "auth", "pin", "otp", "cvv", "cvc", "sig", "doppler", "vault"
]

/**
 * {@link Redactor.mayNote} of the built-in text rules whose prefilter's needles are `needles` and view characters
 * `flagged` (`textRedaction`): each needle and character looked for as `JSON.stringify` writes it in a string (a
 * per-character escape, so a string holding one holds it escaped, and the stored JSON text too) and as it is (the
 * one line of JSON a tool call's input is also read as, which the stored JSON holds verbatim), in one pass
 * (`./needles.ts`), then the words of {@link NOTING_NAME_WORDS} (any ASCII case: the names' patterns fold no other).
 */
export const notingPrefilter = (needles: ReadonlyArray<string>, flagged: string): (json: string) => boolean => {
  const escaped = (s: string) => JSON.stringify(s).slice(1, -1)
  // escaped (a string's), and as they are: a tool call's input is noted as its one line of JSON too
  // (`noteInputLine`), which the stored JSON holds as it is, its quotes and backslashes unescaped
  const all = [...needles, ...flagged]
  const scanner = needleScanner([...new Set([...all, ...all.map(escaped)])])
  const names = new RegExp(NOTING_NAME_WORDS.join("|"), "i")
  return (json) => scanner.scan(json) || names.test(json)
}

/**
 * A {@link SessionRedactor} over `r` (a fresh one per session and output). The result of a tool call whose command
 * prints a secret bare (`doppler secrets get NAME --plain`: {@link printsSecret}, session 24) loses each line of its
 * text ({@link redactCommandOutput}), and each value of {@link SESSION_RESTATED_MIN} characters or more with a
 * secret's shape ({@link restatable}) is noted, so the session's later events lose it too. The call must come
 * before its result (a session's order); a result that says it failed (`isError`) is an error message and stays.
 * `start`: the state the session's events before the first one this redactor sees left (none: it starts at the first).
 */
export const sessionRedactor = (
  r: Pick<Redactor, "eventNoting" | "restated" | "mayNote"> & { readonly ids?: ShownIds },
  start?: SessionRedactorStart
): SessionRedactor => {
  const ids = r.ids ?? realIds
  const known = new Map<string, string>(start?.known)
  // the events seen, redacted (their secrets are in `known`): `event` restates them without redacting them again
  const seen = new WeakMap<SessionEvent, SessionEvent>()
  // the calls whose command prints a secret bare, by id; each result of one, its text's lines hidden
  const printing = new Set<string>(start?.printing)
  const prepared = new WeakMap<SessionEvent, SessionEvent>()
  const prepare = (e: SessionEvent): SessionEvent => {
    const done = prepared.get(e)
    if (done !== undefined) return done
    let out = e
    if (typeof e.toolCallId === "string") {
      if (e.kind === "tool-call") {
        const command = commandOf(e.toolInput)
        if (command !== undefined && printsSecret(command)) printing.add(e.toolCallId)
      } else if (e.kind === "tool-result" && printing.has(e.toolCallId) && e.isError !== true && typeof e.text === "string") {
        const text = redactCommandOutput(e.text, (v) => {
          if (!known.has(v) && restatable(v, SESSION_RESTATED_MIN)) known.set(v, COMMAND_OUTPUT_MARK)
        })
        if (text !== e.text) out = { ...e, text }
      }
    }
    prepared.set(e, out)
    return out
  }
  const see = (e: SessionEvent) => {
    if (!seen.has(e)) seen.set(e, r.eventNoting(prepare(e), known))
  }
  const mayNote = r.mayNote
  // the answers for the texts before an event's last (those many events share: a stored shape's), by text
  const sharedAnswers = new Map<string, boolean>()
  const needs = (kind: string, texts: ReadonlyArray<string> | null): boolean => {
    if (mayNote === undefined || texts === null || (printing.size > 0 && kind === "tool-result")) return true
    const last = texts.length - 1
    for (let i = 0; i < last; i++) {
      const t = texts[i]
      let may = sharedAnswers.get(t)
      if (may === undefined) {
        if (sharedAnswers.size >= 1024) sharedAnswers.clear()
        sharedAnswers.set(t, may = mayNote(t))
      }
      if (may) return true
    }
    return last >= 0 && mayNote(texts[last])
  }
  return {
    see,
    needs,
    event: (e) => {
      const p = prepare(e)
      return shownProvenance(r.restated(seen.get(e) ?? r.eventNoting(p, known), known, p), ids)
    },
    known,
    printing
  }
}

/**
 * The redaction of each kind of value by `rules` (applied in order; custom rules, those with `spans`, matched on the
 * original text and merged with the others' redaction: `./union.ts`). No rules: every function is the identity.
 */
export const makeRedactor = (rules: ReadonlyArray<RedactionRule>): Redactor => {
  if (rules.length === 0) {
    return { text: (s) => s, id: (s) => s, value: (v) => v, event: (e) => e, eventIn: (e) => e, eventNoting: (e) => e, restated: (e) => e, transcript: (t) => t, title: (s) => s }
  }
  // Custom rules (tester22b F3): matched on the original text and merged with what the built-in rules
  // (`base`) redact there, so a custom pattern that matches a piece of a secret never makes a built-in rule miss.
  const custom = rules.filter(isCustomRule)
  const baseRedaction = textRedaction(custom.length === 0 ? rules : rules.filter((r) => !isCustomRule(r)), VIEW_CHARS)
  // also read as a shell reads it, its line continuations taken out (session 35: a value or a header's name cut by
  // one: `./continuations.ts`), under the views below (a decoded view's text too)
  // and with the line breaks a format lets stand for a space between a secret's name and its value folded into one
  // (session 40: `"password":` then the value on the next line, `IDENTIFIED` then `BY '…'`: `./line-breaks.ts`)
  const base = throughContinuations(throughJoints(baseRedaction.redact))
  const merged = custom.length === 0 ? undefined : customMerger(custom)
  // (a text whose only hint a folded joint makes, `IDENTIFIED` then `BY`, is read too)
  const scanBase = scanThroughJoints(baseRedaction.scan)
  // The prefilter's one pass tells whether a text needs the view too; with custom rules it tells nothing of theirs
  // (they run on every text), so the view's test runs by itself there.
  const baseScan = merged === undefined ? scanBase : undefined
  // matched on a view without ANSI control sequences and invisible characters (tester24a F13, F14: `./views.ts`),
  // and the built-in rules also on its decoded view when it holds an HTML reference or a percent-encoded byte
  // (session 26, tester25a F2, F10: `./decoded-views.ts`)
  const decoded = throughDecoded(base)
  // custom patterns match on the text as written, merged as before, and on its decoded view too (session 27: a
  // custom pattern's match written with escapes, `EMP%2D123456`), each span they hide there hidden in the text
  const customOnly = merged === undefined ? undefined : (v: string) => merged(v, v)
  // (where what the custom patterns hide in the view cannot be lined up with the text: the view redacted by all the rules)
  const allOnView = merged === undefined ? undefined : (v: string) => merged(v, base(v))
  const withCustom = (s: string, b: string): string => {
    const o = merged!(s, b)
    return hasEncoded(s) ? redactDecoded(s, o, customOnly!, allOnView) : o
  }
  const text = throughView(merged === undefined ? decoded : (s: string) => withCustom(s, decoded(s)), baseScan)
  // the built-in rules alone, for an id-shaped link id (`linkId`): a custom pattern (`\d{4}`) never renames an id
  const builtInText = merged === undefined ? text : throughView(decoded, scanBase)
  /**
   * How `text` writes a secret it does not take whole when custom rules match a piece of it (a known secret is
   * then looked for in that form too: {@link restateText}); undefined without custom rules.
   */
  const formCache = new Map<string, string | undefined>()
  const redactedForm: RedactedForm = merged === undefined ? undefined : (secret) => {
    if (formCache.has(secret)) return formCache.get(secret)
    const f = text(secret)
    const r = f !== secret && f.replace(MARKS, "").length > 0 ? f : undefined
    if (formCache.size >= 4096) formCache.clear()
    formCache.set(secret, r)
    return r
  }
  // a title's white space runs are one space each (`titleOf`): a key wrapped over the prompt's lines is found so too
  // (session 23), with the built-in rules; the source itself keeps its line breaks, where `wrapped-key` finds it
  const collapsed = rules.some((r) => r.id === "wrapped-key") ? redactCollapsedKeys : (x: string) => x
  const title = (s: string, known?: ReadonlyMap<string, string>, source?: string): string => {
    const red = known === undefined || known.size === 0 ? text : (x: string) => restateFrom(x, text(x), known, redactedForm)
    if (source !== undefined && isTitleSource(s, source)) {
      return titleOfRedacted(isClipped(source, EVENT_TEXT_MAX) ? redactClipped(red, source, EVENT_TEXT_MAX) : red(source))
    }
    // a title not cut is its source whole: redacted, then cut as the redacted source would be (a marker is
    // longer than a short secret, so the redacted title may be longer than a title is)
    // the collapsed keys first too: a rule that takes a name's value (`GITHUB_TOKEN=…`, secret-assignment) would
    // otherwise take a wrapped key's first part only and leave its rest after the space (env23's leftover)
    // and a shell's line continuation the collapse made `\ ` is read as one again (tester33a F6: `GITHUB_TOKEN=ghp_…\`
    // then the key's rest on the next line was `ghp_…\ rest` in the title, where no rule sees a continuation), then
    // the break made one space again (a title holds none)
    const redTitle = (x: string) => refoldContinuations(collapsed(red(unfoldContinuations(collapsed(x)))))
    return isClipped(s, TITLE_MAX_CHARS) ? redactClipped(redTitle, s, TITLE_MAX_CHARS) : titleOfRedacted(redTitle(s))
  }

  /**
   * The secrets that structure decided (a value under a secret-named key, a secret option's next argument, a
   * pair's value, a leaf under a secret's name), each with its marker, while an event or a transcript's turn is
   * walked: undefined outside one. The same values wherever else they appear in the event (its `text` restating
   * the tool input as JSON, a note) then become the same marker ({@link restate}).
   */
  let decided: Map<string, string> | undefined
  /** The key of {@link again} (`./pausable.ts`) for an event's decided secrets. */
  const DECIDED = {}
  const note = (v: unknown, mark: string): void => {
    if (decided !== undefined && typeof v === "string" && restatable(v, RESTATED_MIN)) decided.set(v, mark)
  }
  /**
   * A value a text rule caught in a string of an event or a turn ({@link caughtValues}: `DB_PASSWORD=…`,
   * `Password=…;`, `--password …`, a URL's password, `Bearer …`), noted as structure's are, unless the rules find
   * it alone anyway (a vendor's token, an email: no need to look for it) or it has a word's shape ({@link restatable}).
   */
  const noteCaught = (value: string, mark: string): void => {
    // A reference (`$PGPASS`, `${DB_PW}`, `{{ … }}`) that a rule took with its place (a URL's password) is not a
    // secret: looked for elsewhere it would take `echo $PGPASS` too.
    // (the built-in rules alone: a custom pattern that matches a piece of the value changes nothing to what is noted)
    if (decided !== undefined && !decided.has(value) && !notAValue(value) && restatable(value, RESTATED_MIN) && base(value) === value) decided.set(value, mark)
    // a value caught over shell line continuations (session 35) is looked for elsewhere as the shell reads it too
    const joined = joinContinuations(value)
    if (joined !== value) noteCaught(joined, mark)
  }
  /**
   * A string redacted as text, the values the rules took from it noted ({@link noteCaught}) inside an event or a
   * turn: those the built-in rules took, read from their redaction alone (custom markers beside theirs would hide
   * where a value ends).
   */
  const textNoting = throughView((s: string): string => {
    const b = decoded(s)
    if (b !== s && decided !== undefined) {
      if (s.length < HUGE) caughtValues(s, b, noteCaught)
      else {
        // a huge text's caught values read a part at a time and once, whatever the attempts its redaction takes
        const caught = keptCaught.get(s, b) ?? stepped(caughtSteps(s, b), (got) => keptCaught.set(s, b, got))
        for (const [v, mark] of caught) noteCaught(unquoted(v), mark)
      }
      // the user name of a home path the text shows (session 24, tester24a F9): looked for as a word elsewhere
      if (b.includes("~")) for (const u of homeUserNames(s)) if (hiddenUserName(u) && !decided.has(u)) decided.set(u, USER_MARK)
    }
    return merged === undefined ? b : withCustom(s, b)
  }, baseScan)

  /**
   * A tool call's structured input (an object or an array) read as the one line of JSON an event's `text` carries
   * it as (`toolInputText`, whole here): the values the text rules catch there (`{"login": "bob", "pw": "…"}` by
   * `credential-prose`, a header's value beside its name) are noted ({@link noteCaught}), so they go wherever the
   * event or the turn holds them, its structured input included, whatever layout an output gives it (session 24,
   * tester24a F1: the Markdown's pretty-printed input kept what the one-line forms hid). `skip`: that line already
   * redacted as a text of the event (its `text`).
   */
  const noteInputLine = (input: unknown, skip?: unknown): void => {
    if (decided === undefined || typeof input !== "object" || input === null) return
    let line: string | undefined
    try {
      line = JSON.stringify(input)
    } catch {
      return
    }
    if (line !== undefined && line !== skip) textNoting(line)
  }

  /** `v` redacted; the same reference when nothing in it changed. */
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return textNoting(v)
    if (Array.isArray(v)) {
      let out: Array<unknown> | undefined
      for (let i = 0; i < v.length; i++) {
        let r = i > 0 && optionValueAt(v[i - 1], v[i]) ? OPTION_MARK : walk(v[i])
        // a header as a `[name, value]` pair: its value as the text rules left it, then whole when secret
        if (i === 1 && v.length === 2 && r !== OPTION_MARK && pairSecret(v[0], r, true)) r = PAIR_MARK
        if (r === OPTION_MARK || r === PAIR_MARK) note(v[i], r)
        if (r !== v[i]) {
          out ??= v.slice()
          out[i] = r
        }
      }
      return out ?? v
    }
    if (isPlainObject(v)) return walkObject(v, undefined, undefined)
    return v
  }

  /**
   * `v`, held (maybe deep) under a secret's name of kind `kind` ({@link underKind}): each leaf that is a secret
   * ({@link leafSecret}) becomes {@link NESTED_MARK}, other leaves and the keys are redacted as usual, and a JSON
   * Schema inside ({@link schemaLike}) is walked as usual.
   */
  const walkUnder = (kind: SecretKeyKind, v: unknown): unknown => {
    if (typeof v === "string" || typeof v === "number") {
      if (!leafSecret(kind, v)) return walk(v)
      note(v, NESTED_MARK)
      return NESTED_MARK
    }
    if (Array.isArray(v)) {
      let out: Array<unknown> | undefined
      for (let i = 0; i < v.length; i++) {
        const r = walkUnder(kind, v[i])
        if (r !== v[i]) {
          out ??= v.slice()
          out[i] = r
        }
      }
      return out ?? v
    }
    if (isPlainObject(v)) return schemaLike(v) ? walkObject(v, undefined, undefined) : walkObject(v, undefined, kind)
    return v
  }

  /** A key redacted, and the kind of secret it names (keys repeat: the last few thousand are remembered). */
  interface KeyInfo {
    readonly name: string
    readonly kind: SecretKeyKind
    /** The key names a signature ({@link signatureKey}): an opaque value under it goes (session 21). */
    readonly sig: boolean
  }
  const keyCache = new Map<string, KeyInfo>()
  const keyInfo = (k: string): KeyInfo => {
    let r = keyCache.get(k)
    if (r === undefined) {
      r = { name: text(k), kind: secretKeyKind(k), sig: signatureKey(k) }
      if (keyCache.size >= 4096) keyCache.clear()
      keyCache.set(k, r)
    }
    return r
  }
  /**
   * A field of the model's own objects (an event, its raw reference, a transcript's turn or block): its name is
   * the model's, never redacted (a custom pattern such as `te` would otherwise rename `text`, and the output would
   * lose the field: tester20 F6); the kind of secret it names still decides how its value is read.
   */
  const fieldCache = new Map<string, KeyInfo>()
  const fieldInfo = (k: string): KeyInfo => {
    let r = fieldCache.get(k)
    if (r === undefined) {
      r = { name: k, kind: secretKeyKind(k), sig: signatureKey(k) }
      if (fieldCache.size >= 4096) fieldCache.clear()
      fieldCache.set(k, r)
    }
    return r
  }
  /**
   * The value `v` of key `k` redacted: whole when the key names a secret and `v` is one ({@link secretValue}), else
   * walked; the value of a name/value object (`pair`: its names, {@link pairNamesOf}) walked, then whole when it
   * is a secret of one of the names ({@link pairSecret}).
   */
  const entry = (info: KeyInfo, k: string, v: unknown, pair: ReadonlyArray<string> | undefined, under: SecretKeyKind | undefined): unknown => {
    if (under !== undefined) return walkUnder(under, v)
    if (info.sig && info.kind === "none" && opaqueSignature(v)) {
      // a signature's opaque value (session 21: an HMAC, a presigned upload's, a thinking block's); the key stays
      note(v, FIELD_MARK)
      return FIELD_MARK
    }
    if (info.kind !== "none") {
      if (secretValue(info.kind, v)) {
        const mark = info.kind === "pin" ? PIN_MARK : FIELD_MARK
        note(v, mark)
        return mark
      }
      if (typeof v === "object" && v !== null && (Array.isArray(v) || (isPlainObject(v) && !schemaLike(v)))) return walkUnder(underKind(info.kind, k), v)
    }
    const r = walk(v)
    if (info.kind === "header" && typeof r === "string") return headerValue(k, r)
    if (pair !== undefined && isPairValueKey(k)) {
      for (const n of pair) {
        if (pairSecret(n, r, false)) {
          note(v, PAIR_MARK)
          return PAIR_MARK
        }
      }
    }
    return r
  }

  /**
   * An object with each key redacted and each value walked, except the
   * entries whose keys are in `keep` (kept whole). Order is kept; a key that
   * redacts to one already there gets ` #2`, ` #3`, …. The same object when
   * nothing changed; a copy with the changed values when no key changed
   * (most objects: nothing is allocated for the keys), else
   * {@link renameKeys}. `fields`: the object is one of the model's own
   * (an event, a transcript's turn…): its keys are its fields' names, kept
   * ({@link fieldInfo}); its values are walked as usual.
   */
  const walkObject = (
    o: Record<string, unknown>,
    keep: ReadonlySet<string> | undefined,
    under: SecretKeyKind | undefined,
    fields = false
  ): Record<string, unknown> => {
    let out: Record<string, unknown> | undefined
    const keys = Object.keys(o)
    const pair = pairNamesOf(o)
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      if (keep !== undefined && keep.has(k)) continue
      const info = fields ? fieldInfo(k) : keyInfo(k)
      if (info.name !== k) return renameKeys(o, keys, keep, under)
      const v0 = o[k]
      const v = entry(info, k, v0, pair, under)
      if (v !== v0) {
        out ??= { ...o }
        // the copy has k as an own data property already (also `__proto__`): plain assignment sets it
        out[k] = v
      }
    }
    return out ?? o
  }

  /** {@link walkObject} of an object some of whose keys redact: a new object, every entry in order. */
  const renameKeys = (o: Record<string, unknown>, keys: ReadonlyArray<string>, keep: ReadonlySet<string> | undefined, under: SecretKeyKind | undefined): Record<string, unknown> => {
    const values: Array<unknown> = new Array(keys.length)
    const names: Array<string> = new Array(keys.length)
    const pair = pairNamesOf(o)
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      const kept = keep !== undefined && keep.has(k)
      const info = kept ? undefined : keyInfo(k)
      names[i] = info === undefined ? k : info.name
      values[i] = info === undefined ? o[k] : entry(info, k, o[k], pair, under)
    }
    const result: Record<string, unknown> = {}
    const taken = new Set<string>()
    // Keys that did not change keep their names; a redacted key takes the next free ` #n`.
    for (let i = 0; i < keys.length; i++) if (names[i] === keys[i]) taken.add(keys[i])
    for (let i = 0; i < keys.length; i++) {
      let name = names[i]
      if (name !== keys[i]) {
        if (taken.has(name)) {
          let n = 2
          while (taken.has(`${name} #${n}`)) n++
          name = `${name} #${n}`
        }
        taken.add(name)
      }
      setOwn(result, name, values[i])
    }
    return result
  }

  const eventKeep = new Set([...EVENT_STRUCTURAL_FIELDS, "rawReference"])
  // walked apart: `extensions` (its namespaces' names and their fields' names are the record's: walkExtensions)
  const eventWalkKeep = new Set([...eventKeep, "extensions"])
  const rawKeep = new Set(["locatorClass"])
  /**
   * An event's `extensions`: the names of its namespaces (`native.claude-code`) and of their fields, nested ones
   * too (`lineNumber`, `blockIndex`, `usage.cacheWriteTokens`, `parent.sessionId`), are the record's own, kept as
   * an event's are (tester21b F6: custom patterns `line` and `Write` renamed `lineNumber` and `cacheWriteTokens`);
   * the values are walked as usual, and under a field that holds the source's own JSON
   * ({@link SOURCE_JSON_FIELDS}: a raw block, a tool's input, a record's payload) the keys are content too.
   */
  const walkExtensions = (x: Record<string, unknown>): Record<string, unknown> => {
    let out: Record<string, unknown> | undefined
    const pair = pairNamesOf(x)
    for (const k of Object.keys(x)) {
      const v = x[k]
      const r = isPlainObject(v) && !SOURCE_JSON_FIELDS.has(k) && secretKeyKind(k) === "none" ? walkExtensions(v) : entry(fieldInfo(k), k, v, pair, undefined)
      if (r !== v) {
        out ??= { ...x }
        setOwn(out, k, r)
      }
    }
    return out ?? x
  }
  /**
   * `f` run with a fresh {@link decided}, then its result with the secrets decided on restated ({@link restate});
   * those of {@link SESSION_RESTATED_MIN} characters or more are added to `sink` (a session's known secrets).
   * `original`: what `f` redacts (an event, a turn), each secret then hidden whole where it states it ({@link restateFrom}).
   */
  const deciding = <A>(f: () => A, keep: ReadonlySet<string>, original: unknown, sink?: Map<string, string>): A => {
    const outer = decided
    // (the same map when an attempt runs again after a pause, `./pausable.ts`: `f` adds the same entries to it in the
    // same order, and its index, kept by the map, is not built again)
    decided = again(DECIDED, () => new Map<string, string>())
    try {
      const out = f()
      if (sink !== undefined) for (const [v, mark] of decided) if (v.length >= SESSION_RESTATED_MIN && !sink.has(v)) sink.set(v, mark)
      return decided.size === 0 ? out : (restateObject(out as unknown as Record<string, unknown>, decided, keep, redactedForm, original) as unknown as A)
    } finally {
      decided = outer
    }
  }
  /**
   * {@link deciding} over a transcript's turn: `f` run with `turn` (which holds the session's known secrets, `sink`,
   * entry for entry) as {@link decided}, then its result with all of them restated; the secrets the turn added of
   * {@link SESSION_RESTATED_MIN} characters or more are added to `sink`, and `turn` is cut back to `sink`. So a turn
   * costs its own secrets, not a copy of the session's (tester30b F1).
   */
  const decidingTurn = <A>(f: () => A, keep: ReadonlySet<string>, original: unknown, turn: TurnSecrets, sink: Map<string, string>): A => {
    const outer = decided
    decided = turn
    const kept: Array<readonly [string, string]> = []
    try {
      const out = f()
      for (const v of turn.addedKeys()) {
        if (v.length >= SESSION_RESTATED_MIN && !sink.has(v)) {
          const mark = turn.get(v)!
          sink.set(v, mark)
          kept.push([v, mark])
        }
      }
      return turn.size === 0 ? out : (restateObject(out as unknown as Record<string, unknown>, turn, keep, redactedForm, original) as unknown as A)
    } finally {
      decided = outer
      turn.cut(kept)
    }
  }

  /**
   * An id that links things, copied from the source (a tool call's id, a subagent's `parent` and `child` links),
   * kept as it is when it is id-shaped ({@link ID_SHAPED}) and the built-in rules find nothing in it (a
   * `toolu_…`, a UUID), else redacted by the text rules (tester25a F18: a subagent `meta.json`'s `toolUseId`
   * holding `password=…` or a vendor token went into the ATIF's `spawn_tool_call_id` verbatim). The same id is
   * redacted alike wherever it stands, so a call and its result still pair.
   */
  const linkId = (v: string): string => (ID_SHAPED.test(v) ? builtInText(v) : text(v))
  /** `link` (an event's `parent` or `child`) with each of its string ids through {@link linkId}; itself when none changes. */
  const linkIds = (link: unknown): unknown => {
    if (!isPlainObject(link)) return link
    let out: Record<string, unknown> | undefined
    for (const k of Object.keys(link)) {
      const v = link[k]
      if (typeof v !== "string") continue
      const r = linkId(v)
      if (r !== v) setOwn(out ??= { ...link }, k, r)
    }
    return out ?? link
  }
  /**
   * A compaction (an event's `compaction`, a transcript's `compactions[]` entry: `{ id, trigger, timestamp }`) with
   * the free strings it copies from the source redacted (session 38, tester38 F1): its `trigger` (Claude Code's
   * `compactMetadata.trigger`, Muse agents' `compaction_checkpoint` trigger, AgentMux's `compact_metadata.trigger`)
   * through the text rules, as the event's text that states it (`context compaction (<trigger>)`) is, and its `id` as
   * a link id ({@link linkId}: kept when id-shaped and free of a vendor token). The same compaction is so redacted
   * alike in an event and in a transcript. Its `timestamp` (RFC 3339) and any non-string value stay; `c` itself when
   * nothing changes.
   */
  const compactionRedacted = (c: unknown): unknown => {
    if (!isPlainObject(c)) return c
    let out: Record<string, unknown> | undefined
    const id = c.id
    if (typeof id === "string") {
      const r = linkId(id)
      if (r !== id) setOwn(out ??= { ...c }, "id", r)
    }
    const trigger = c.trigger
    if (typeof trigger === "string") {
      const r = text(trigger)
      if (r !== trigger) setOwn(out ??= { ...c }, "trigger", r)
    }
    return out ?? c
  }
  /**
   * `out` (an event redacted) with its link ids ({@link linkId}: `sessionId`, `toolCallId`, `responseId`, `parent`, `child`)
   * redacted when not id-shaped, and an id-shaped one through the built-in rules (tester27a F2: a `ghp_...` token inside
   * a response's `message.id` or `requestId` stayed in NDJSON's `responseId`). Alike for the same id everywhere, so the
   * copies of one response still share their `responseId`. Its `compaction` as {@link compactionRedacted} redacts it.
   */
  const linksRedacted = (out: Record<string, unknown>): Record<string, unknown> => {
    let changed: Record<string, unknown> | undefined
    // the session id too (tester38 F2: Claude Code's flat sidechain is `sidechain-<a record's uuid>`)
    for (const k of ["sessionId", "toolCallId", "responseId", "parent", "child"] as const) {
      const v = out[k]
      const r = typeof v === "string" ? linkId(v) : linkIds(v)
      if (r !== v) setOwn(changed ??= { ...out }, k, r)
    }
    const c = out.compaction
    const rc = compactionRedacted(c)
    if (rc !== c) setOwn(changed ??= { ...out }, "compaction", rc)
    return changed ?? out
  }

  /**
   * `out` (the event `e` redacted) with its `text`, when that is its tool input as one line of JSON (`toolInputText`:
   * whole, or cut at {@link EVENT_TEXT_MAX}), hiding also every span the redacted structured input hides there
   * (tester35a F5): the text rules read that line with its line breaks as `\n` escapes, and a rule that reads lines
   * (a PEM key quoted with an uneven `> ` prefix, a YAML block scalar under a secret's name, a shell continuation
   * then a tab) may take less of it than of the string it escapes, which the structured walk reads as written. The
   * line of the redacted input is lined up with the line ({@link hiddenSpans}) and its hidden spans are joined to
   * the text rules' ({@link unionHidden}); where they cannot be lined up (a key renamed ` #2`), the text is the
   * text rules' redaction of the redacted input's line. `out` as it is when the input is no object or array, its
   * redaction changed nothing, or the text is no such line.
   */
  const inputTextAsInput = (e: SessionEvent, out: Record<string, unknown>): Record<string, unknown> => {
    const input = e.toolInput
    const shownInput = out.toolInput
    const t = e.text
    if (shownInput === input || typeof input !== "object" || input === null || typeof t !== "string" || typeof out.text !== "string") return out
    let line: string | undefined
    let shown: string | undefined
    try {
      line = JSON.stringify(input)
      shown = JSON.stringify(shownInput)
    } catch {
      return out
    }
    if (line === undefined || shown === undefined) return out
    const clipped = isClipped(t, EVENT_TEXT_MAX)
    const body = clipped ? t.slice(0, -1) : t
    if (clipped ? !line.startsWith(body) : line !== t) return out
    // (most often the text rules hid just what the structure did: nothing to join)
    if (!clipped && out.text === shown) return out
    const spans = hiddenSpans(line, shown)
    // a span the cut goes through: the text ends before it (as the cut word goes: `redactClipped`)
    let cut = body.length
    for (const h of spans ?? []) if (h.start < body.length && h.end > body.length) cut = Math.min(cut, h.start)
    const within = spans?.filter((h) => h.end <= cut)
    const joined = (x: string, b: string): string | undefined => (within === undefined ? undefined : unionHidden(x, b, within))
    let r: string
    if (clipped) {
      let lined = true
      const red = (x: string) => joined(x, text(x)) ?? ((lined = false), x)
      r = cut < body.length ? red(body.slice(0, cut)).trimEnd() + t.slice(-1) : redactClipped(red, t, EVENT_TEXT_MAX)
      if (!lined) r = redactClipped(text, toolInputText(shownInput), EVENT_TEXT_MAX)
    } else r = joined(t, out.text) ?? text(shown)
    return r === out.text ? out : { ...out, text: r }
  }

  /** An event redacted; the secrets it decided on added to `sink` when given. */
  const eventInto = (e: SessionEvent, sink: Map<string, string> | undefined): SessionEvent =>
    deciding(() => {
      noteInputLine(e.toolInput, e.text)
      let out = linksRedacted(walkObject(e as unknown as Record<string, unknown>, eventWalkKeep, undefined, true))
      if (isPlainObject(e.extensions)) {
        const ext = walkExtensions(e.extensions)
        if (ext !== e.extensions) out = { ...out, extensions: ext }
      } else if (e.extensions !== undefined) {
        const ext = walk(e.extensions)
        if (ext !== e.extensions) out = { ...out, extensions: ext }
      }
      // A text its provider cut short (a tool call's input as one-line JSON): no part of a secret at the cut stays.
      if (typeof e.text === "string" && isClipped(e.text, EVENT_TEXT_MAX)) out = { ...out, text: redactClipped(text, e.text, EVENT_TEXT_MAX) }
      // a tool call's text (its input as one line of JSON) hides what its redacted structured input hides too
      out = inputTextAsInput(e, out)
      const raw = e.rawReference as unknown
      const rawOut = isPlainObject(raw) ? walkObject(raw, rawKeep, undefined, true) : raw
      if (rawOut === raw) return out as unknown as SessionEvent
      return { ...(out as unknown as SessionEvent), rawReference: rawOut as SessionEvent["rawReference"] }
    }, eventKeep, e, sink)
  const event = (e: SessionEvent): SessionEvent => eventInto(e, undefined)
  const eventNoting = (e: SessionEvent, into: Map<string, string>): SessionEvent => eventInto(e, into)
  const restated = (e: SessionEvent, known: ReadonlyMap<string, string>, original?: SessionEvent): SessionEvent =>
    known.size === 0 ? e : (restateObject(e as unknown as Record<string, unknown>, known, eventKeep, redactedForm, original) as unknown as SessionEvent)
  // `known` itself restated, not a copy of it per event (tester30b F1: each copy was indexed anew, every secret the
  // session knows read again per event: a search of a session with thousands of caught passwords was quadratic)
  const eventIn = (e: SessionEvent, known: ReadonlyMap<string, string>): SessionEvent => restated(event(e), known, e)

  // the title apart: a title cut short is redacted as one (`title`)
  // the times and the counted warnings and diagnostics (kinds, counts, lines) are the record's, not content (tester21b F6)
  const transcriptKeep = new Set(["sessionId", "turns", "compactions", "title", "startedAt", "endedAt", "parseWarnings", "diagnostics"])
  const turnKeep = new Set(["role", "timestamp", "blocks"])
  // the secrets decided on in a turn's blocks are looked for in its blocks too
  const turnFieldsKeep = new Set(["role", "timestamp"])
  const blockKeep = new Set(["type", "id"])
  const compactionKeep = new Set(["id", "timestamp", "trigger"])
  /** A block's `text` its provider cut short (an event's text, {@link EVENT_TEXT_MAX}) redacted as one ({@link redactClipped}). */
  const clippedBlock = (b: unknown, out: Record<string, unknown>): Record<string, unknown> => {
    const t = (b as { readonly text?: unknown }).text
    return typeof t === "string" && isClipped(t, EVENT_TEXT_MAX) ? { ...out, text: redactClipped(text, t, EVENT_TEXT_MAX) } : out
  }
  /**
   * A `tool_use` block whose command prints a secret bare ({@link printsSecret}): its `result` with each line hidden
   * ({@link redactCommandOutput}), each value noted (looked for in the turn and the later turns); other blocks as they are.
   */
  const printedSecret = (b: Transcript["turns"][number]["blocks"][number]) => {
    if (b.type !== "tool_use" || typeof b.result !== "string" || b.isError === true) return b
    const command = commandOf(b.input)
    if (command === undefined || !printsSecret(command)) return b
    const result = redactCommandOutput(b.result, (v) => {
      if (decided !== undefined && restatable(v, SESSION_RESTATED_MIN)) decided.set(v, COMMAND_OUTPUT_MARK)
    })
    return result === b.result ? b : { ...b, result }
  }
  const transcript = (t: Transcript, given?: ReadonlyMap<string, string>): Transcript => {
    const top = walkObject(t as unknown as Record<string, unknown>, transcriptKeep, undefined, true)
    // the secrets decided on in any turn (and those `given`: the session's) are looked for in every turn and the
    // title (tester25a F12): a first pass over the turns notes them, the second redacts with all of them known
    const known = new Map<string, string>(given ?? [])
    // each turn's secrets over the session's: one map kept in step with `known` (decidingTurn)
    const scratch = new TurnSecrets(known)
    const turnOf = (turn: Transcript["turns"][number]) =>
      decidingTurn(() => {
        for (const b of turn.blocks) if (b.type === "tool_use") noteInputLine(b.input)
        const rest = walkObject(turn as unknown as Record<string, unknown>, turnKeep, undefined, true)
        return { ...(rest as unknown as typeof turn), blocks: turn.blocks.map((b) => clippedBlock(b, walkObject(printedSecret(b) as unknown as Record<string, unknown>, blockKeep, undefined, true)) as unknown as typeof b) }
      }, turnFieldsKeep, turn, scratch, known)
    for (const turn of t.turns) turnOf(turn)
    return {
      ...(top as unknown as Transcript),
      // a link id (tester38 F2), as an event's `sessionId`
      sessionId: linkId(t.sessionId),
      // cut from its first prompt when that is among the blocks: redacted whole, then cut (tester22c F1)
      title: t.title === null || t.title === undefined
        ? t.title
        : title(t.title, known, titleSourceIn(t.title, t.turns.flatMap((turn) => turn.blocks.map((b) => (b as { readonly text?: unknown }).text as string | undefined)))),
      turns: t.turns.map(turnOf),
      // its id and trigger as an event's `compaction` (tester38 F1: the trigger was kept as it is)
      compactions: t.compactions.map((c) => compactionRedacted(walkObject(c as unknown as Record<string, unknown>, compactionKeep, undefined, true)) as unknown as typeof c)
    }
  }

  // (custom rules run on every text, so no text can be passed over: no prefilter then)
  const mayNote = merged === undefined && baseRedaction.prefiltered ? notingPrefilter(baseRedaction.needles, VIEW_CHARS) : undefined
  return { text, id: linkId, value: <A>(v: A): A => walk(v) as A, event, eventIn, eventNoting, ...(mayNote === undefined ? {} : { mayNote }), restated, transcript, title }
}
