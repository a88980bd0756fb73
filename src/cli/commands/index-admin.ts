/**
 * `session-ingest index migrate`: bring the index's schema to this build's.
 * The only command that changes a PostgreSQL index's schema (imports check
 * it and stop with the remedy instead, so no import ever blocks readers with
 * DDL); a SQLite index is migrated when it is opened for an import, and this
 * command does just that (creating the file, and saying so, when it is
 * missing).
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { runtime } from "../lazy.js"
import * as O from "../options.js"
import { printResult } from "../output.js"

/** The command. */
export const indexCommand = Command.make(
  "index",
  {
    action: Args.choice([["migrate", "migrate"] as const], { name: "action" }).pipe(
      Args.withDescription("migrate: apply the schema migrations this session-ingest knows (PostgreSQL: run once per server upgrade, before imports).")
    ),
    json: O.json,
    index: O.index,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* runtime
      const index = yield* rt.chosenIndex(o.index, o.config)
      const r = yield* rt.migrateIndex(index)
      const shown = rt.shownIndex(index)
      const data = {
        index: shown,
        created: r.created,
        applied: r.applied.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`),
        version: r.version
      }
      yield* printResult("index", o.json, data, () =>
        data.created
          ? `created ${shown} at the current schema (schema version ${data.version}: applied ${data.applied.join(", ")})\n`
          : data.applied.length > 0
          ? `migrated ${shown}: applied ${data.applied.join(", ")}; schema version ${data.version}\n`
          : `${shown} is at the current schema (version ${data.version}); nothing to apply\n`)
    })
).pipe(Command.withDescription(
  "index migrate: apply the index's schema migrations (the only command that changes a PostgreSQL index's schema; imports never do)."
))
