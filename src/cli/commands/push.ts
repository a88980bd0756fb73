/**
 * `session-ingest push --from FILE --to postgres://…`: bring this machine's
 * local SQLite index into a team's PostgreSQL index, incrementally by the
 * checkpoints (see `src/layers/index/push.ts`).
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { counted, oneLineField } from "../../domain/render.js"
import type { PushReport } from "../../layers/index/push.js"
import { errors, runtime } from "../lazy.js"
import * as O from "../options.js"
import { PartialCoverage, printResult } from "../output.js"

const render = (r: PushReport): string => {
  const s = r.sources
  return [
    `push ${oneLineField(r.from)} → ${r.to}  (machine ${oneLineField(r.machine)})`,
    `  sources: ${s.local} local, ${s.pushed} pushed${s.newGenerations > 0 ? ` (${s.newGenerations} as a new generation)` : ""}, ${s.unchanged} unchanged` +
    (s.superseded > 0 ? `, ${s.superseded} superseded` : "") +
    (s.inProgress > 0 ? `, ${s.inProgress} being imported (left for the next push)` : "") +
    (s.stopped > 0 ? `, ${s.stopped} not pushed (local import stopped part-way)` : "") +
    (s.rejected > 0 ? `, ${s.rejected} rejected (nothing to push)` : ""),
    `  added:   ${counted(r.sessionsAdded, "session")}, ${counted(r.eventsAdded, "event")}`,
    ...(s.stopped > 0
      ? [
        `  note: ${counted(s.stopped, "source")} of the local index ${s.stopped === 1 ? "is" : "are"} incomplete: ${
          s.stopped === 1 ? "its" : "their"
        } import stopped part-way (killed or crashed) and no import is running, so the team index does not have ${
          s.stopped === 1 ? "it" : "them"
        }. Run \`session-ingest import\` again (it resumes where it stopped), then push.`
      ]
      : [])
  ].join("\n") + "\n"
}

/** The command. */
export const pushCommand = Command.make(
  "push",
  {
    json: O.json,
    from: Options.text("from").pipe(
      O.plainValue,
      Options.withPseudoName("FILE"),
      Options.optional,
      Options.withDescription("The local SQLite index (default: the config file's index, else $XDG_DATA_HOME/session-ingest/index.db).")
    ),
    to: Options.text("to").pipe(
      O.plainValue,
      Options.withPseudoName("URL"),
      Options.withDescription("The team's PostgreSQL index, postgres://user:password@host:port/database (migrated: see `index migrate`).")
    ),
    machine: O.machine,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* runtime
      yield* rt.checkedIndex(o.to, "--to")
      if (!rt.isPostgresUrl(o.to)) {
        const { InvalidArgument } = yield* errors
        return yield* new InvalidArgument({
          // A value with ":" or "@" may be a URL without its scheme, password included: not echoed.
          message: `--to ${/[:@]/.test(o.to) ? "(not shown)" : o.to} is not a postgres:// URL.`,
          remediation: "Pass --to postgres://user:password@host:port/database (a team's PostgreSQL index)."
        })
      }
      const from = yield* rt.existingIndex(o.from, o.config, "--from")
      if (rt.isPostgresUrl(from)) {
        const { InvalidArgument } = yield* errors
        return yield* new InvalidArgument({
          message: `--from ${rt.shownIndex(from)} is a PostgreSQL index; push reads a local SQLite index.`,
          remediation: "Pass --from FILE with this machine's SQLite index."
        })
      }
      const report = yield* rt.pushIndex(from, o.to, rt.machineOf(o.machine))
      yield* printResult("push", o.json, report, () => render(report))
      // A source the team index cannot get until the local import is run again: partial, as an import's coverage
      // (exit 8), so a daily push job sees it (tester33b F5).
      if (report.sources.stopped > 0) return yield* new PartialCoverage()
    })
).pipe(Command.withDescription(
  "Push this machine's local SQLite index into a team's PostgreSQL index: only the sources whose checkpoints changed, only their new events; supersessions propagate; exit 8 when a source's local import stopped part-way (run import again)."
))
