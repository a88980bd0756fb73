/**
 * Text a session holds that PostgreSQL cannot store as it is, and how the
 * team index keeps it losslessly (issue 17: "same guarantees as SQLite").
 *
 * PostgreSQL's `text` cannot hold U+0000 (`22021: invalid byte sequence for
 * encoding "UTF8": 0x00`), nor can `json`/`jsonb` (they refuse the `\u0000`
 * escape), and `json`/`jsonb` refuse a lone UTF-16 surrogate's escape
 * (`\ud800`); the driver writes a lone surrogate of a plain string as UTF-8's
 * replacement character (U+FFFD), losing it. Tool output and terminal text
 * hold NULs often; a SQLite index keeps them all.
 *
 * How each kind of column keeps them:
 * - **JSON text** (`event_json`, `locator_json`, `summary_json`,
 *   `overview_json`, `parts_json`, `diagnostics_json`, `attempt_json`) is
 *   written by `JSON.stringify`, which escapes U+0000 (`\u0000`) and lone
 *   surrogates (`\ud800`): the column is `TEXT`, never `json`/`jsonb`, so
 *   the escapes are kept as written and `JSON.parse` gives the very string
 *   back. No SQL of the layer casts it to `json`/`jsonb` (which would refuse
 *   them); what it needs from an event (its native id, for `eventsAround`)
 *   it computes in JavaScript.
 * - **Plain text** from a session (titles, workspaces, native session and
 *   source ids, models, response keys, cursors, prefixes, error messages)
 *   goes through {@link toPg} when written and {@link fromPg} when read: a
 *   reversible escape, `ESC` being U+FFFF (a Unicode noncharacter, which
 *   text from a session practically never holds): U+0000 is `ESC 0`, `ESC`
 *   itself `ESC ESC`, a lone surrogate `ESC u` and its four hex digits.
 *   Text with none of these is stored as it is (every value an index held
 *   before stays valid; no migration), and the escape maps each character
 *   to a fixed string, so equality and prefixes are kept: a filter's value
 *   (a session id, a workspace) is escaped the same way and compared in SQL
 *   as before. Words for search are made of letters, digits and marks only
 *   (`tsvectorOf`), so a document never holds any of these characters: the
 *   words around a NUL are found as on SQLite.
 *
 * @module
 */

/** The escape character: U+FFFF, a noncharacter. */
const ESC = "\uffff"

/** Whether a string holds anything {@link toPg} changes. */
const NEEDS = /[\u0000\uffff\ud800-\udfff]/

/**
 * `s` as a PostgreSQL `text` value can hold it (see the module's comment):
 * U+0000 as `ESC 0`, U+FFFF as `ESC ESC`, a lone surrogate as `ESC u` and
 * four hex digits; every other character as it is. `null` stays `null`.
 */
export const toPg = <S extends string | null | undefined>(s: S): S => {
  if (typeof s !== "string" || !NEEDS.test(s)) return s
  let out = ""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0) out += `${ESC}0`
    else if (c === 0xffff) out += `${ESC}${ESC}`
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += s[i] + s[i + 1]
      i++
    } else if (c >= 0xd800 && c <= 0xdfff) out += `${ESC}u${c.toString(16).padStart(4, "0")}`
    else out += s[i]
  }
  return out as S
}

/** The string {@link toPg} made `s` of (an `ESC` not followed by one of its codes is kept as it is). `null` stays `null`. */
export const fromPg = <S extends string | null | undefined>(s: S): S => {
  if (typeof s !== "string" || !s.includes(ESC)) return s
  let out = ""
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== ESC || i + 1 >= s.length) {
      out += s[i]
      continue
    }
    const next = s[i + 1]
    if (next === "0") {
      out += "\u0000"
      i++
    } else if (next === ESC) {
      out += ESC
      i++
    } else if (next === "u" && /^[0-9a-f]{4}$/.test(s.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16))
      i += 5
    } else out += s[i]
  }
  return out as S
}

/**
 * Whether PostgreSQL's `text` can take `s` as a parameter as it is: no U+0000 and no lone surrogate (`22021`
 * otherwise, a failure of the query, not an empty answer). A value a filter names that holds one cannot equal a value
 * stored as it is (a machine name, which push refuses such characters in: docs/index.md).
 */
export const pgHolds = (s: string): boolean => !/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)
