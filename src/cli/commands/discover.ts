/**
 * `session-ingest discover <provider>`: the sources a provider finds under the authorized roots.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { DiscoveryReport } from "../../domain/model.js"
import { SessionSources } from "../../services/SessionSource.js"
import { appLayer } from "../context.js"
import * as O from "../options.js"
import { printResult, reporting } from "../output.js"

const render = (r: DiscoveryReport): string => {
  const lines = [
    `provider: ${r.provider}  status: ${r.status}  coverage: ${r.coverage}  sources: ${r.sourceCount}`,
    ...(r.reasonCode !== null ? [`reason: ${r.reasonCode}`] : []),
    ...(r.remediation !== null ? [`remedy: ${r.remediation}`] : []),
    ...r.sources.map((s) => {
      const title = typeof s.summary.title === "string" ? `  ${s.summary.title}` : ""
      return `  ${s.sessionId ?? "-"}  ${s.locator.path}${title}`
    })
  ]
  if (r.diagnostics.length > 0) lines.push("diagnostics:", ...r.diagnostics.map((d) => `  - ${d.code}: ${d.message}`))
  return lines.join("\n") + "\n"
}

/** The command. */
export const discover = Command.make(
  "discover",
  {
    provider: O.provider,
    json: O.json,
    workspace: O.workspace,
    museRoot: O.museRoot,
    agentsRoot: O.agentsRoot,
    store: O.store,
    state: O.state,
    agent: O.agent
  },
  (o) =>
    reporting(
      "discover",
      o.json,
      Effect.gen(function*() {
        const adapter = yield* (yield* SessionSources).get(o.provider)
        const report = yield* adapter.discover({ agentId: Option.getOrUndefined(o.agent) })
        yield* printResult("discover", o.json, report, () => render(report))
      }).pipe(Effect.provide(appLayer(o)))
    )
).pipe(Command.withDescription("Discover a provider's sessions under the roots you authorize (--muse-root, --agents-root, --store/--agent)."))
