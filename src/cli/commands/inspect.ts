/**
 * `session-ingest inspect <provider> <file>`: validate a source in full and describe it.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import type { Inspection } from "../../domain/model.js"
import { counted, humanTime, oneLineField } from "../../domain/render.js"
import { appRuntime } from "../lazy.js"
import * as O from "../options.js"
import { printResult } from "../output.js"

const render = (i: Inspection, local: boolean): string => {
  const lines = [
    `provider:   ${i.provider} (${i.locatorClass})`,
    `source:     ${i.sourceId}`,
    `status:     ${i.status}`,
    `events:     ${i.eventCount}`,
    `first:      ${i.firstEventAt !== null ? humanTime(i.firstEventAt, { local }) : "-"}`,
    `last:       ${i.lastEventAt !== null ? humanTime(i.lastEventAt, { local }) : "-"}`,
    `sessions:   ${i.sessions.length}`,
    ...i.sessions.map((s) => `  - ${s.sessionId}${typeof s.eventCount === "number" ? ` (${counted(s.eventCount, "event")})` : ""}`)
  ]
  if (i.diagnostics.length > 0) {
    lines.push("diagnostics:", ...i.diagnostics.map((d) => `  - ${d.code}: ${oneLineField(d.message)}`))
  }
  return lines.join("\n") + "\n"
}

/** The command. */
export const inspect = Command.make(
  "inspect",
  {
    ...O.source,
    local: O.local
  },
  (o) =>
    Effect.flatMap(appRuntime, (rt) => rt.withSource(o, (adapter, locator) =>
      Effect.gen(function*() {
        const inspection = yield* adapter.inspect(locator)
        yield* printResult("inspect", o.json, inspection, () => render(inspection, o.local))
      })))
).pipe(Command.withDescription("Validate one source in full and describe it: status (complete | provisional), sessions, event count, diagnostics."))
