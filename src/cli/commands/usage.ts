/**
 * `session-ingest usage [--by day|session|model|provider|workspace|machine]
 * [--since D] [--until D] [--provider P] [--workspace DIR] [--machine NAME]`: tokens and cost from the index (the report
 * ccusage made popular), grouped as asked, with the price table named and a
 * note for each model it lacks. What counts and where each number comes
 * from: `domain/usage.ts`; the query: `usageReport` in
 * `layers/index/queries.ts`.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { incompleteUsageNote } from "../../domain/incomplete.js"
import { costNotes, humanTokens, humanUsd, NAME_CELL_MAX, notExactText, shownName } from "../../domain/render.js"
import type { TokenCountName } from "../../domain/usage.js"
import type { UsageReport } from "../../layers/index/queries.js"
import { queryRuntime, shareRuntime } from "../lazy.js"
import * as O from "../options.js"
import { printResult } from "../output.js"
import { timeRange, workspaceOption } from "../filters.js"

const TOKEN_COUNT_NAMES: ReadonlyArray<TokenCountName> = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"]
const BY = ["day", "session", "model", "provider", "workspace", "machine"] as const

const cell = (n: number | null, name: TokenCountName, notExact: ReadonlyArray<TokenCountName> | undefined) =>
  n !== null ? humanTokens(n) : notExact?.includes(name) === true ? "?" : ""
const usd = (x: number | null, hasTokens: boolean) => (x !== null ? humanUsd(x) : hasTokens ? "?" : "")

/** The report as a table for people: one row per key, the total, the price table and the notes; `filters` names the filters given, as given (`--since 2030-01-01`), for the line that says none matched. */
const render = (r: UsageReport, priceTable: string, filters: ReadonlyArray<string>): string => {
  const head = [r.by, "input", "output", "cache read", "cache write", "cost"]
  const line = (key: string, u: UsageReport["rows"][number] | UsageReport["total"]) => {
    const counts = [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]
    return [key, ...counts.map((c, i) => cell(c, TOKEN_COUNT_NAMES[i], u.notExact)), usd(u.costUsd, counts.some((c) => c !== null) || (u.notExact?.length ?? 0) > 0)]
  }
  // a name as written shown so that it reads as what it is and keeps the table narrow (JSON: whole); a workspace and
  // a session id keep their end, which tells them apart (tester31a F6: `sidechain-<uuid>` ids share their start)
  const key = (k: string | null) => (k === null ? (r.by === "day" ? "(no time)" : `(no ${r.by})`) : shownName(k, NAME_CELL_MAX, r.by === "workspace" || r.by === "session" ? "end" : "start"))
  // Rows of one session id (several sources: a copied log, AgentMux's record and Claude Code's own) are told apart
  // by a uid column, the handle `show` takes (tester32a F10); the column is there only when a key repeats.
  const keys = r.rows.map((x) => key(x.key))
  const uids = r.by === "session" && new Set(keys).size < keys.length
  const withUid = (row: Array<string>, uid: string) => (uids ? [row[0], uid, ...row.slice(1)] : row)
  if (uids) head.splice(1, 0, "uid")
  const body = r.rows.map((x, i) => withUid(line(keys[i], x), x.sessionUid ?? ""))
  const total = [withUid(line("total", r.total), "")]
  const table = [head, ...body, ...total]
  const widths = head.map((_, i) => Math.max(...table.map((row) => row[i].length)))
  const fmt = (row: ReadonlyArray<string>) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd()
  const bounds = r.since !== null || r.until !== null ? ` from ${r.since ?? "the start"} to ${r.until ?? "now"}` : ""
  const out = [
    `usage by ${r.by}${bounds}; cost as the source states it, else priced with ${priceTable}`,
    "",
    ...(r.empty === "no-usage-in-index"
      ? ["no usage in the index"]
      : r.empty === "no-usage-in-complete-sessions"
      ? ["no usage in sessions imported whole (the incomplete ones are left out: see the note)"]
      : r.empty === "no-usage-matches-filters"
      ? [`no usage matches these filters (${filters.join(", ")})`]
      : [fmt(head), ...body.map(fmt), ...total.map(fmt)])
  ]
  for (const n of r.notes) {
    out.push(
      n.kind === "model-not-priced"
        ? `note: ${costNotes.unpriced(n.model, n.responses)}`
        : n.kind === "long-context-not-priced"
        ? `note: ${costNotes.longContext(n.model, n.responses)}`
        : n.kind === "fast-not-priced"
        ? `note: ${costNotes.fast(n.model, n.responses)}`
        : n.kind === "run-total-set-aside"
        ? `note: ${costNotes.setAside(n.runs)}`
        : n.kind === "tokens-not-exact"
        ? `note: ? ${notExactText(n.counts)}.`
        : n.kind === "counted-elsewhere"
        ? `note: ${humanTokens(n.responses)} response${n.responses === 1 ? "" : "s"} of ${humanTokens(n.sessions)} session${n.sessions === 1 ? "" : "s"} counted in another session: the same response in several sessions counts once: in the Claude Code session when AgentMux also recorded that Claude Code run (Claude Code's own record), else in the session that began first (a resumed, forked or copied log) (sessions --json: usage.countedElsewhere).`
        : n.kind === "no-time-left-out"
        ? `note: ${humanTokens(n.responses)} response${n.responses === 1 ? "" : "s"} without a time (the line's timestamp was not valid) ${n.responses === 1 ? "is" : "are"} outside every --since / --until range, so not in these rows (usage without --since / --until counts ${n.responses === 1 ? "it" : "them"} under "(no time)").`
        : n.kind === "sessions-incomplete"
        ? `note: ${incompleteUsageNote(n.sessions, n.events, n.remediation)}`
        : `note: ? cost unknown: the sum of the costs is past the largest number a double holds (check the prices in the config file and the stated costs).`
    )
  }
  return out.join("\n") + "\n"
}

/** The command. */
export const usage = Command.make(
  "usage",
  {
    by: Options.choice("by", BY).pipe(
      Options.withDefault("day" as const),
      Options.withDescription("Group by day (UTC, default), session, model, provider, workspace or machine (a team index's machine names).")
    ),
    since: Options.text("since").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Usage at or after DATE (a bare YYYY-MM-DD is a UTC day; give a time with an offset for another zone).")),
    until: Options.text("until").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Usage at or before DATE (a bare date: all of that UTC day).")),
    provider: O.providerFilter,
    workspace: Options.text("workspace").pipe(O.plainValue,
      Options.withPseudoName("DIR"),
      Options.optional,
      Options.withDescription("Only sessions whose workspace is DIR or below it.")
    ),
    machine: O.machineFilter,
    noRedact: O.noRedact("the workspaces of `--by workspace`"),
    json: O.json,
    index: O.index,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* queryRuntime
      const { since, until } = yield* timeRange(o.since, o.until)
      const workspace = workspaceOption(o.workspace)
      const file = yield* rt.existingIndex(o.index, o.config)
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      const report = yield* Effect.flatMap(
        rt.machineFilter(Option.getOrUndefined(o.machine), "--machine"),
        (machine) => rt.usageReport({ by: o.by, since, until, provider: Option.getOrUndefined(o.provider), workspace, machine }, prices)
      ).pipe(Effect.provide(rt.readIndexLayer(file)))
      // A cost report is pasted into chats (tester35a F12): a workspace is a path a source wrote, redacted as a
      // shareable output redacts a session's workspace (a home folder, a token in a folder's name) unless --no-redact.
      const shown = o.by === "workspace" && !o.noRedact
        ? yield* Effect.flatMap(shareRuntime, (share) =>
          Effect.map(
            share.shownText.pipe(
              Effect.provide(share.redactionLayer(true, share.loadRedactionPatterns(Option.getOrUndefined(o.config))).pipe(Layer.provide(rt.readIndexLayer(file))))
            ),
            // its model names too (tester38 F3), as `export`, `replay` and MCP show them
            (text): UsageReport => rt.shownUsageReport(report, text)
          ))
        : report
      const filters = [
        ...Option.toArray(Option.map(o.since, (x) => `--since ${x}`)),
        ...Option.toArray(Option.map(o.until, (x) => `--until ${x}`)),
        ...Option.toArray(Option.map(o.provider, (x) => `--provider ${x}`)),
        ...Option.toArray(Option.map(o.workspace, (x) => `--workspace ${x}`)),
        ...Option.toArray(Option.map(o.machine, (x) => `--machine ${x}`))
      ]
      yield* printResult("usage", o.json, shown, () => render(shown, rt.describePrices(prices), filters))
    })
).pipe(Command.withDescription("Tokens and cost from the index, by day, session, model, provider, workspace or machine."))
