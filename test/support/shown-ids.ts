/**
 * The shown ids of a SQLite index (`src/domain/shown-ids.ts`): keyed by the secret its migration 0011 keeps in its
 * `meta` table, read here as any reader of the file could (a test works out what a redacted output shows).
 */
import Database from "better-sqlite3"
import { keyedIds, SHOWN_KEY_NAME, type ShownIds } from "../../src/domain/shown-ids.js"

/** The shown ids of the SQLite index `file` (its `meta` row must be there). */
export const shownIdsOf = (file: string): ShownIds => {
  const db = new Database(file, { readonly: true })
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(SHOWN_KEY_NAME) as { value: Buffer } | undefined
    if (row === undefined) throw new Error(`no shown-id key in ${file}`)
    return keyedIds(row.value)
  } finally {
    db.close()
  }
}

/**
 * Give the SQLite index `to` the shown-id key of `from`, as if they were one index: for tests that compare the
 * redacted answers of two indexes made apart from variants of one session (which must then show the same ids).
 */
export const copyShownKey = (from: string, to: string): void => {
  const src = new Database(from, { readonly: true })
  const row = src.prepare("SELECT value FROM meta WHERE key = ?").get(SHOWN_KEY_NAME) as { value: Buffer } | undefined
  src.close()
  if (row === undefined) throw new Error(`no shown-id key in ${from}`)
  const dst = new Database(to)
  try {
    dst.prepare("UPDATE meta SET value = ? WHERE key = ?").run(row.value, SHOWN_KEY_NAME)
  } finally {
    dst.close()
  }
}
