/**
 * `session-ingest import`: bring every authorized source into the index, and
 * print the coverage report. Exit 8 when coverage is partial. With
 * `--watch`: stay running and import what changes, a line (or a JSON
 * envelope) per round, until Ctrl-C / SIGTERM (exit 130, the index
 * consistent); see `../../layers/index/watch.ts`.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import { counted, oneLineField } from "../../domain/render.js"
import { SAID_ONCE } from "../../domain/said-once.js"
import { isVanished } from "../../domain/vanished.js"
import type { ImportReport } from "../../services/Importer.js"
import type { WatchRound } from "../../layers/index/watch.js"
import { importRuntime } from "../lazy.js"
import * as O from "../options.js"
import { PARTIAL_EXIT, PartialCoverage, printResult } from "../output.js"
import { parseWarningLines } from "../parse-warnings.js"

/** Exit code of an import whose coverage is partial (DESIGN.md). */
export { PARTIAL_EXIT }

/** Diagnostics printed in the text report (all of them are in `--json`). */
const MAX_DIAGNOSTICS = 20

/**
 * A report's diagnostics as the text output lists them, `provider: CODE:
 * message`, with their codes; a diagnostic said word for word as a cause
 * (the coverage's), with the cause's path in its words when the cause has one,
 * is not said again (tester16 finding 8, tester38b F3).
 */
const reportDiagnostics = (r: ImportReport): Array<{ readonly code: string; readonly line: string }> => {
  // A cause with a path is said with it (`provider: path: CODE: problem`): its diagnostic, the same problem, says
  // nothing more when the problem names that path itself (a kept source's `SOURCE_GARBLED`, `SOURCE_EMPTIED`, …:
  // tester38b F3, printed twice), and is not said again; one whose problem does not (a subagent file named from its
  // project) is still listed, where a remedy's "see diagnostics" points.
  const said = new Set(
    r.causes.filter((c) => c.path === null || c.problem.includes(c.path)).map((c) => `${c.provider}: ${c.code}: ${c.problem}`)
  )
  return r.providers.flatMap((p) => p.diagnostics.map((d) => ({ code: d.code, line: `${p.provider}: ${d.code}: ${d.message}` })))
    .filter((d) => !said.has(d.line))
}

/** The `  diagnostics:` lines of the text output (at most {@link MAX_DIAGNOSTICS}; `--json` lists them all). */
const diagnosticLines = (diagnostics: ReadonlyArray<{ readonly line: string }>): Array<string> =>
  diagnostics.length === 0 ? [] : [
    "  diagnostics:",
    ...diagnostics.slice(0, MAX_DIAGNOSTICS).map((d) => `    - ${oneLineField(d.line)}`),
    ...(diagnostics.length > MAX_DIAGNOSTICS ? [`    \u2026 and ${diagnostics.length - MAX_DIAGNOSTICS} more (--json lists them all)`] : [])
  ]

/** Sessions named on the `no longer shown:` line of the text report (`--json` lists them all). */
const MAX_GONE_SESSIONS = 5

/**
 * The `  no longer shown:` line of the text report: the sessions of rewritten sources whose files no longer name
 * them ({@link ImportReport.sessionsNoLongerShown}), each with its events; the `SOURCE_REWRITTEN` diagnostic says why.
 */
const noLongerShownLines = (r: ImportReport): Array<string> => {
  const gone = r.sessionsNoLongerShown
  if (gone.length === 0) return []
  const named = gone.slice(0, MAX_GONE_SESSIONS).map((g) => `${g.sessionId} (${counted(g.events, "event")}, ${g.provider} ${oneLineField(g.path)})`)
  return [
    `  no longer shown: ${counted(gone.length, "session")}, left out of ${gone.length === 1 ? "its" : "their"} rewritten file${gone.length === 1 ? "" : "s"}: ${named.join("; ")}${
      gone.length > MAX_GONE_SESSIONS ? `; and ${gone.length - MAX_GONE_SESSIONS} more (--json lists them all)` : ""
    }; kept only in the superseded generation, which no command shows (see SOURCE_REWRITTEN below)`
  ]
}

/** The text report of an import run (`index`: the index as shown); `--json` prints the report itself. */
export const renderImportReport = (r: ImportReport, index: string): string => {
  const s = r.sources
  const lines = [
    `import ${r.coverage}  (index ${index})`,
    `  sources:  ${s.discovered} discovered, ${s.accepted} imported, ${s.unchanged} unchanged, ${s.rejected} rejected` +
    (s.unreadable > 0 ? `, ${s.unreadable} unreadable` : "") +
    (s.newGenerations > 0 ? `, ${s.newGenerations} re-imported as a new generation` : ""),
    `  added:    ${counted(r.sessionsAdded, "session")}, ${counted(r.eventsAdded - r.eventsReimported, "event")}` +
    (r.eventsReimported > 0 ? `; re-imported: ${counted(r.eventsReimported, "event")} (read again whole into ${counted(s.newGenerations, "new generation")})` : ""),
    ...noLongerShownLines(r),
    ...(s.omitted > 0
      ? [`  omitted:  ${s.omitted} left out by the providers' specs (${Object.entries(s.omittedByReason).map(([k, v]) => `${k} ${v}`).join(", ")}); see \`discover\``]
      : []),
    ...(s.superseded > 0
      ? [`  superseded: ${s.superseded} imported before, now changed (no longer what was imported): ${r.superseded.slice(0, 3).map((x) => `${x.path}: ${x.reason}`).join("; ")}${r.superseded.length > 3 ? "; …" : ""}`]
      : []),
    ...(s.gone > 0 ? [`  gone:     ${s.gone} imported before whose file is gone (kept in the index)`] : []),
    ...(s.unreadable > 0
      ? [`  unreadable: ${s.unreadable} could not be read (what was imported from them before is kept in the index as it was; see SOURCE_UNREADABLE below)`]
      : []),
    ...parseWarningLines(r.parseWarnings, "  "),
    ...(r.parseWorkers !== undefined
      ? [
        `  warning:  ${r.parseWorkers.code}: the parse workers could not start (${r.parseWorkers.problem}); ${
          counted(r.parseWorkers.sources, "source")
        } read in one thread instead (as --jobs 1; the index is the same). Rebuild or reinstall session-ingest.`
      ]
      : []),
    "  providers:",
    ...r.providers.map((p) =>
      `    ${p.provider.padEnd(12)} ${p.status.padEnd(12)} ${p.coverage.padEnd(9)} ${counted(p.sourceCount, "source")}${p.reasonCode !== null ? `  (${p.reasonCode})` : ""}`
    )
  ]
  if (Object.keys(s.rejectedByCode).length > 0) {
    lines.push(`  rejected by code: ${Object.entries(s.rejectedByCode).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  }
  if (r.causes.length > 0) {
    // Discovered sources gone before they were read: one line per provider with their count (--json lists each).
    const vanished = new Map<string, number>()
    for (const c of r.causes) if (isVanished(c)) vanished.set(c.provider, (vanished.get(c.provider) ?? 0) + 1)
    const grouped = new Set<string>()
    lines.push(
      "  to reach complete coverage:",
      ...r.causes.flatMap((c) => {
        const n = vanished.get(c.provider) ?? 0
        if (n > 1 && isVanished(c)) {
          if (grouped.has(c.provider)) return []
          grouped.add(c.provider)
          return [
            `    - ${c.provider}: ${c.code}: ${n} sources discovery listed were gone when they were read (deleted or moved during the import; --json lists each)`,
            `      remedy: run the import again.`
          ]
        }
        return [
          `    - ${c.provider}: ${c.path !== null ? `${oneLineField(c.path)}: ` : ""}${c.code}: ${oneLineField(c.problem)}`,
          ...(c.remedy !== null ? [`      remedy: ${oneLineField(c.remedy)}`] : [])
        ]
      })
    )
  }
  lines.push(...diagnosticLines(reportDiagnostics(r)))
  const notes = r.providers.flatMap((p) => (p.notes ?? []).map((n) => `${p.provider}: ${n}`))
  if (notes.length > 0) lines.push("  notes:", ...notes.map((l) => `    - ${l}`))
  if (r.notIncluded.length > 0) lines.push("  not included:", ...r.notIncluded.map((p) => `    - ${p.remediation}`))
  return lines.join("\n") + "\n"
}

/** `--watch`: keep running and import what changes (`import`'s options otherwise). */
const watchOption = Options.boolean("watch").pipe(
  Options.withDescription(
    "Stay running: import what is appended or added under the authorized roots as it is written, a line per round (a JSON envelope per round with --json); Ctrl-C stops (exit 130)."
  )
)

/** The most `--jobs` says it takes (a bound on memory: each worker thread loads the library, ~35 MB). */
export const MAX_JOBS = 64

/**
 * `--jobs`'s value: decimal digits only, a whole number 1 to {@link MAX_JOBS}
 * (`0x2`, `1e1`, `1.5`, `+2`, ` 2` refused, which `Number` would read).
 */
export const JobsValue = Schema.compose(
  Schema.String.pipe(Schema.filter((s) => /^[0-9]{1,3}$/.test(s) && Number(s) >= 1 && Number(s) <= MAX_JOBS)),
  Schema.NumberFromString
).annotations({
  message: (issue) => ({
    message: `--jobs takes a whole number of threads, 1 to ${MAX_JOBS}, in decimal digits (got ${JSON.stringify(issue.actual)})`,
    override: true
  })
})

/** `--jobs N`: threads that read and parse new sources (docs/import.md, "Parallel first import"). */
const jobsOption = Options.text("jobs").pipe(
  Options.withPseudoName("N"),
  Options.withSchema(JobsValue),
  Options.optional,
  Options.withDescription(
    `Threads that read and parse new sources while the main one writes the index (default: the machine's cores, at most 4; 1: no worker thread; more than the cores: the cores, said on stderr).`
  )
)

/**
 * The parse threads a run uses for `--jobs requested` on a machine of
 * `cores` (`os.availableParallelism()`): at most the cores (more threads than
 * cores only contend with the writing thread and cost memory), with the note
 * that says so on stderr (null: as asked).
 */
export const jobsFor = (requested: number, cores: number): { readonly jobs: number; readonly note: string | null } =>
  requested <= cores
    ? { jobs: requested, note: null }
    : {
      jobs: Math.max(1, cores),
      note: `session-ingest: --jobs ${requested}: this machine has ${cores} core${cores === 1 ? "" : "s"}; using ${Math.max(1, cores)} parse thread${cores === 1 ? "" : "s"}.`
    }

/** A round of `--watch` on one line: `round N scope (trigger): +S sessions, +E events; sources …; coverage; ms`. */
export const roundLine = (r: WatchRound): string => {
  const s = r.report.sources
  const counts = [`${s.accepted} imported`, `${s.unchanged} unchanged`]
  if (s.rejected > 0) counts.push(`${s.rejected} rejected`)
  if (s.newGenerations > 0) counts.push(`${s.newGenerations} new generation${s.newGenerations === 1 ? "" : "s"}`)
  if (s.superseded > 0) counts.push(`${s.superseded} superseded`)
  if (s.unreadable > 0) counts.push(`${s.unreadable} unreadable`)
  // as the plain import's `gone:` line (tester39 F10: only --json said it)
  if (s.gone > 0) counts.push(`${s.gone} gone (kept in the index)`)
  const causes = r.report.causes.length > 0 ? ` (${[...new Set(r.report.causes.map((c) => c.code))].join(", ")})` : ""
  return `round ${r.round} ${r.scope} (${r.trigger}${r.changedPaths > 0 ? `, ${r.changedPaths} changed` : ""}): ` +
    `+${counted(r.report.sessionsAdded, "session")}, +${counted(r.report.eventsAdded, "event")}; ${counts.join(", ")}; ` +
    `${r.report.coverage}${causes}; ${r.ms.toFixed(0)} ms` +
    (r.watching.unwatched > 0 ? `; ${r.watching.unwatched} folder(s) or file(s) polled, not watched (missing or unwatchable)` : "") + "\n"
}

/**
 * A round of `--watch` as text: its {@link roundLine}, then the diagnostics
 * the round raised as a plain import lists them (`  diagnostics:`), each once
 * per watch: a line an earlier round printed (`printed`, which this adds to)
 * is not printed again (a source's stored diagnostics come with every full
 * round), except a code said once ({@link SAID_ONCE}: `SOURCE_REWRITTEN`, in
 * the round that read the rewritten file and in no later run; tester32a F1).
 * Its parse warnings come between, as a plain import prints them (`  parse
 * warnings: …`, the round's sources with theirs), when a source's warnings
 * are not those an earlier round printed: the round that read a bad line
 * appended says it (a targeted round's are its sources'), and a full round
 * that counts what was said already says nothing (tester36a F1).
 */
export const roundText = (r: WatchRound, printed: Set<string>): string => {
  const fresh = reportDiagnostics(r.report).filter((d) => SAID_ONCE.has(d.code) || !printed.has(d.line))
  for (const d of fresh) printed.add(d.line)
  const lines = diagnosticLines(fresh)
  // A source's warnings as one key (its kinds, counts and first lines): printed again only once they changed.
  const bySource = new Map<string, Array<string>>()
  for (const i of r.report.parseWarnings.items) {
    const k = `${i.provider}\u0000${i.path}`
    bySource.set(k, [...(bySource.get(k) ?? []), `${i.kind}\u0000${i.count}\u0000${i.firstLine}`])
  }
  let warned = false
  for (const [k, ws] of bySource) {
    const key = `parse-warnings\u0000${k}\u0000${ws.join("\u0001")}`
    if (printed.has(key)) continue
    printed.add(key)
    warned = true
  }
  const warnings = warned ? parseWarningLines(r.report.parseWarnings, "  ") : []
  return roundLine(r) + [...warnings, ...lines].map((l) => l + "\n").join("")
}

/** The command. */
export const importCommand = Command.make(
  "import",
  {
    json: O.json,
    config: O.config,
    index: O.index,
    machine: O.machine,
    ...O.roots,
    ...O.importInputs,
    watch: watchOption,
    jobs: jobsOption
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* importRuntime
      const setup = yield* rt.importSetup(o)
      const { config, index, limits, policy, workspaces } = setup
      const jobs = Option.map(o.jobs, (n) => jobsFor(n, os.availableParallelism()))
      if (Option.isSome(jobs) && jobs.value.note !== null) process.stderr.write(jobs.value.note + "\n")
      const plan = Option.isSome(jobs) ? { ...setup.plan, jobs: jobs.value.jobs } : setup.plan
      const machine = rt.machineOf(o.machine)
      const shownIndex = rt.shownIndex(index)
      if (o.watch) {
        const team = rt.isPostgresUrl(index) ? { machine } : {}
        // A round's report as a plain import's: a named workspace that is not a folder makes it partial (tester22a F1:
        // every round read `complete` where the same import reads partial, WORKSPACE_NOT_FOUND).
        /** The diagnostic lines this watch has printed (`roundText`). */
        const printed = new Set<string>()
        const onRound = (r: WatchRound) => {
          const round = { ...r, report: rt.withConfigRemedies(rt.withMissingWorkspaces(r.report, workspaces), config) }
          return printResult("import", o.json, { index: shownIndex, ...team, watch: true, ...round }, () => roundText(round, printed))
        }
        // Changes to the index itself (under a watched root) are no reason for a round.
        const ignore = rt.isPostgresUrl(index) ? [] : [index]
        // The roots the operator named are watched (polled while missing); the index file must stay the one opened.
        const named = policy as {
          readonly claudeRoot?: string | undefined
          readonly agentsRoot?: string | undefined
          readonly museRoots?: ReadonlyArray<string> | undefined
          readonly agentmuxRoot?: string | undefined
          readonly agentmuxStore?: string | undefined
        }
        const given = (xs: ReadonlyArray<string | undefined>) => xs.filter((r): r is string => typeof r === "string" && r !== "")
        const roots = given([named.claudeRoot, named.agentsRoot, ...(named.museRoots ?? []), named.agentmuxRoot])
        const files = given([named.agentmuxStore])
        // A server that cannot be reached (a team index's outage) is waited out: told on stderr, the round tried again.
        const onOutage = (o: { readonly failure: { readonly message: string }; readonly since: number }) =>
          Effect.sync(() => {
            const minutes = Math.floor((Date.now() - o.since) / 60_000)
            process.stderr.write(
              `session-ingest: STORE_UNAVAILABLE: ${o.failure.message} The watch goes on${minutes > 0 ? ` (down for ${minutes} min)` : ""}: ` +
                "it tries the round again every 5 s at most until the server answers (Ctrl-C to stop).\n"
            )
          })
        return yield* rt.watch(plan, onRound, { ignore, roots, files, onOutage, index: rt.isPostgresUrl(index) ? undefined : index }).pipe(Effect.provide(rt.watchLayer(policy, index, machine, limits)))
      }
      const report = rt.withConfigRemedies(
        rt.withMissingWorkspaces(
          yield* Effect.flatMap(rt.Importer, (i) => i.run(plan)).pipe(Effect.provide(rt.importLayer(policy, index, machine, limits))),
          workspaces
        ),
        config
      )
      // A PostgreSQL index is shown without its password, with the machine its sources are keyed by.
      const shown = shownIndex
      const team = rt.isPostgresUrl(index) ? { machine } : {}
      yield* printResult("import", o.json, { index: shown, ...team, ...report }, () => renderImportReport(report, rt.isPostgresUrl(index) ? `${shown}, machine ${machine}` : shown))
      if (report.coverage === "partial") return yield* new PartialCoverage()
    })
).pipe(Command.withDescription(
  "Import every authorized source into the index (resumable, idempotent) and print the coverage report; exit 8 when coverage is partial."
))
