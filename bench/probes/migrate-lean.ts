/**
 * Probe and floor of figure (m), migration 0006 (the lean record) on a large
 * index: `node --import tsx migrate-lean.ts legacy|migrate|floor FILE`.
 * - `legacy`: rewrite the current-layout index FILE into the layout before
 *   0006 (every event a row of `events` with its whole JSON; search and usage
 *   as migrations 0004-0005 made them), with `test/support/legacy-index.ts`,
 *   the tests' own rewrite;
 * - `migrate`: run the migrations after 0005 on FILE (what the next import
 *   of a user's old index does), timed;
 * - `floor`: copy the same `events` rows into a new table with one
 *   `INSERT … SELECT` in one transaction (raw better-sqlite3), timed.
 *
 * Prints `{ms, maxRssKiB, stepMs, events}`: `stepMs` the timed step, `events`
 * the rows of `events` before it.
 */
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { toLegacyLayout } from "../../test/support/legacy-index.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [mode, file] = process.argv.slice(2)
if (file === undefined || !["legacy", "migrate", "floor"].includes(mode)) {
  process.stderr.write("usage: migrate-lean.ts legacy|migrate|floor FILE\n")
  process.exit(2)
}

const countEvents = (f: string): number => {
  const db = new Database(f, { readonly: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n
  } finally {
    db.close()
  }
}

const legacy = Effect.gen(function*() {
  const events = yield* toLegacyLayout(file)
  const db = new Database(file)
  db.exec("VACUUM")
  db.close()
  return events
})

const main = async () => {
  if (mode === "legacy") {
    const events = await Effect.runPromise(legacy)
    report(t0, { stepMs: performance.now() - t0, events })
    return
  }
  const events = countEvents(file)
  const s = performance.now()
  if (mode === "migrate") await Effect.runPromise(IndexSqlite.migrateThrough(file, 99))
  else {
    const db = new Database(file)
    db.transaction(() => {
      db.exec("CREATE TABLE events_copy AS SELECT * FROM events WHERE 0")
      db.exec("INSERT INTO events_copy SELECT * FROM events")
    })()
    db.close()
  }
  report(t0, { stepMs: performance.now() - s, events })
}
main().catch((e) => {
  process.stderr.write(`${String(e)}\n`)
  process.exit(1)
})
