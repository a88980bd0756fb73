/**
 * `session-ingest discover <provider>`: the sources a provider finds under the
 * authorized roots. Exit 8 when its coverage is partial, as `import` (the
 * report is printed, saying why).
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { DiscoveredSource, DiscoveryReport } from "../../domain/model.js"
import { counted, diagnosticNote, humanTime, oneLineField } from "../../domain/render.js"
import * as Registry from "../../layers/registry.js"
import { appRuntime } from "../lazy.js"
import * as O from "../options.js"
import { PartialCoverage, printResult } from "../output.js"
import { parseWarningLines, parseWarningsOfSources } from "../parse-warnings.js"

/** One line per source: id, time range, where, title and counts, from its typed summary. */
const sourceLine = (s: DiscoveredSource, local: boolean): string => {
  const o = s.overview
  const time = (t: string | null) => (t !== null ? humanTime(t, { local, seconds: true }) : "?")
  const when = o.firstActivityAt !== null || o.lastActivityAt !== null ? `${time(o.firstActivityAt)} → ${time(o.lastActivityAt)}` : ""
  const where = o.workspace ?? s.locator.path
  const counts = [
    o.counts.prompts !== null ? counted(o.counts.prompts, "prompt") : undefined,
    o.counts.toolCalls !== null ? counted(o.counts.toolCalls, "tool call") : undefined,
    o.counts.runs !== null ? counted(o.counts.runs, "run") : undefined,
    o.counts.lines !== null ? counted(o.counts.lines, "line") : undefined
  ].filter((x) => x !== undefined)
  const title = o.title !== null && o.title.length > 0 ? o.title : undefined
  return [
    `  ${oneLineField(s.sessionId ?? "-")}  ${when}`,
    `      ${oneLineField(where)}${counts.length > 0 ? `  (${counts.join(", ")})` : ""}`,
    ...(title !== undefined ? [`      ${title.replace(/\s+/g, " ").slice(0, 100)}`] : []),
    // What else reading the source counted (Claude Code's repeated or reused record uuids, subagent files' warnings),
    // said as `transcript` says it: `--json` has them in `overview.diagnostics`.
    ...o.diagnostics.map((d) => `      ${diagnosticNote(d)}`)
  ].join("\n")
}

const render = (r: DiscoveryReport, local: boolean): string => {
  const lines = [
    `provider: ${r.provider}  status: ${r.status}  coverage: ${r.coverage}  sources: ${r.sourceCount}`,
    ...(r.reasonCode !== null ? [`reason: ${r.reasonCode}`] : []),
    ...(r.remediation !== null ? [`remedy: ${r.remediation}`] : []),
    ...(r.omitted !== undefined && Object.keys(r.omitted).length > 0
      ? [`omitted (left out by the provider's spec): ${Object.entries(r.omitted).map(([k, v]) => `${k} ${v}`).join(", ")}`]
      : []),
    // Counted as --json counts them (each source's overview.parseWarnings), said as the import report says them.
    ...parseWarningLines(parseWarningsOfSources(r.sources), ""),
    ...r.sources.map((s) => sourceLine(s, local))
  ]
  if (r.diagnostics.length > 0) lines.push("diagnostics:", ...r.diagnostics.map((d) => `  - ${d.code}: ${oneLineField(d.message)}`))
  return lines.join("\n") + "\n"
}

/** The command. */
export const discover = Command.make(
  "discover",
  {
    provider: O.provider,
    json: O.json,
    local: O.local,
    ...O.roots,
    agent: O.agent
  },
  (o) =>
    Effect.flatMap(appRuntime, (rt) => Effect.gen(function*() {
      const adapter = yield* (yield* rt.SessionSources).get(o.provider)
      const report = yield* adapter.discover({ agentId: Option.getOrUndefined(o.agent) })
      yield* printResult("discover", o.json, report, () => render(report, o.local))
      if (report.coverage === "partial") return yield* new PartialCoverage()
    }).pipe(Effect.provide(rt.appLayer(o))))
).pipe(Command.withDescription(
  `Discover a provider's sessions under the roots you authorize (${
    Registry.settings.filter((s) => s.on === "roots" && s.target === "access").map((s) => `--${s.flag}`).join(", ")
  }, --agent); exit 8 when coverage is partial.`
))
