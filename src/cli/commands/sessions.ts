/**
 * `session-ingest sessions`: the sessions in the index, latest activity
 * first, with their tokens and cost where known (blank where the source
 * reports none, never 0; `--json`: `usage` on every row), and a `*` with a
 * note where responses of a session count in another session. On a team index
 * whose rows come from several machines, a `machine` column says whose each
 * is (`--json`: `machine` on every row, null on a SQLite index). A session
 * not imported whole yet (`status` `incomplete` in `--json`) has a `!` after
 * its event count and a note under the listing.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { costNotes, counted, countedElsewhereText, humanTime, humanTokens, humanUsd, oneLineField, shownName, visibleControls } from "../../domain/render.js"
import { incompleteNote } from "../../domain/incomplete.js"
import type { CountedElsewhere, UsageSummary } from "../../domain/usage.js"
import type { SessionRow } from "../../services/Index.js"
import { errors, queryRuntime } from "../lazy.js"
import * as O from "../options.js"
import { printResult } from "../output.js"
import { timeRange, workspaceOption } from "../filters.js"


/**
 * `text` as a table cell shows it (its controls as {@link visibleControls} escapes), at most `max` characters of that
 * shown form: cut between whole code points and whole escapes, never inside a surrogate pair or an escape.
 */
const shownCut = (text: string, max: number): string => {
  let out = ""
  for (const c of text) {
    const shown = visibleControls(c)
    if (out.length + shown.length > max) break
    out += shown
  }
  return out
}
/** At most this many `*` notes under the listing (the rest: `sessions --json`). */
const MAX_ELSEWHERE_NOTES = 10

/**
 * Tokens of a session for the listing: all four counts together; blank when its source reports none; with a `*`
 * when some of its responses count in another session (`elsewhere`), so a session whose every response does is
 * never a blank.
 */
const tokensCell = (u: UsageSummary | undefined, elsewhere: ReadonlyArray<CountedElsewhere> | undefined): string =>
  `${ownTokensCell(u)}${elsewhere !== undefined && elsewhere.length > 0 ? "*" : ""}`

const ownTokensCell = (u: UsageSummary | undefined): string => {
  if (u === undefined) return ""
  if (u.notExact.length > 0) return "?"
  const counts = [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]
  if (counts.every((n) => n === null)) return ""
  const sum = counts.reduce<number>((a, n) => a + (n ?? 0), 0)
  // The four together past 2^53 - 1 would be a rounded number: unknown, as each count past it is.
  return Number.isSafeInteger(sum) ? humanTokens(sum) : "?"
}

/** Cost of a session for the listing: blank when its source reports no usage, `?` when a model of it has no price. */
const costCell = (u: UsageSummary | undefined): string => (u === undefined ? "" : u.costUsd === null ? "?" : humanUsd(u.costUsd))

const render = (
  rows: ReadonlyArray<SessionRow>,
  usage: ReadonlyMap<string, UsageSummary>,
  elsewhere: ReadonlyMap<string, ReadonlyArray<CountedElsewhere>>,
  priceTable: string,
  local: boolean
): string => {
  if (rows.length === 0) return "no sessions\n"
  const times = rows.map((r) => (r.lastAt !== null ? humanTime(r.lastAt, { local, seconds: true }) : "-"))
  const width = Math.max("last activity".length, ...times.map((t) => t.length))
  const tokens = rows.map((r) => tokensCell(usage.get(r.sessionUid), elsewhere.get(r.sessionUid)))
  const costs = rows.map((r) => costCell(usage.get(r.sessionUid)))
  const tw = Math.max("tokens".length, ...tokens.map((t) => t.length))
  const cw = Math.max("cost".length, ...costs.map((t) => t.length))
  // A session without a title shows none (never its workspace in its place); the workspace is a column of its own.
  // Cut at 60 characters as shown (tester33a F5): each control counts as the escape it is shown as, so a title holding
  // ESC or a bidi override is no wider than another and the workspace column stays in line.
  const titles = rows.map((r) => shownCut((r.title ?? "").replace(/\s+/g, " "), 60))
  const titleWidth = Math.max("title".length, ...titles.map((t) => t.length))
  // The machine: only when the rows come from more than one (a team index), so a machine's own listing is as it was.
  const machines = new Set(rows.map((r) => r.machine).filter((m) => m !== null)).size > 1
    ? rows.map((r) => (r.machine ?? "").replace(/\s+/g, " ").slice(0, 30))
    : null
  const mw = machines === null ? 0 : Math.max("machine".length, ...machines.map((m) => m.length))
  // (tester31a F6) the session column as wide as its longest id (an inline sidechain's `sidechain-<uuid>` is 47), so
  // the title and workspace columns line up on every row; at least a UUID's 36, as it was
  const ids = rows.map((r) => oneLineField(r.sessionId))
  const sw = Math.max(36, ...ids.map((id) => id.length))
  const lines = rows.map((r, i) =>
    [
      times[i].padEnd(width),
      r.provider.padEnd(11),
      ...(machines === null ? [] : [machines[i].padEnd(mw)]),
      // `!`: an incomplete session (its import stopped part-way or is running), said in a note under the listing
      `${r.eventCount}${r.status === "incomplete" ? "!" : ""}`.padStart(6),
      tokens[i].padStart(tw),
      costs[i].padStart(cw),
      "  ",
      ids[i].padEnd(sw),
      "  ",
      titles[i].padEnd(titleWidth),
      "  ",
      (r.workspace ?? "").replace(/\s+/g, " ")
    ].join(" ").trimEnd()
  )
  // Notes about the listed sessions only (tester28a F4): `usage` may hold every session of the index (a filter other
  // than --limit reads the usage of all of them).
  const listed = rows.map((r) => usage.get(r.sessionUid)).filter((u): u is UsageSummary => u !== undefined)
  const unpriced = new Map<string | null, number>()
  for (const u of listed) for (const m of u.unpriced) unpriced.set(m.model, (unpriced.get(m.model) ?? 0) + m.responses)
  const longUnpriced = new Map<string | null, number>()
  for (const u of listed) for (const m of u.longContextUnpriced ?? []) longUnpriced.set(m.model, (longUnpriced.get(m.model) ?? 0) + m.responses)
  const fastUnpriced = new Map<string | null, number>()
  for (const u of listed) for (const m of u.fastUnpriced ?? []) fastUnpriced.set(m.model, (fastUnpriced.get(m.model) ?? 0) + m.responses)
  const responses = (n: number) => `${n} response${n === 1 ? "" : "s"}`
  let setAside = 0
  for (const u of usage.values()) setAside += u.runsSetAside ?? 0
  const named = [...unpriced].filter(([m]) => m !== null)
  const notes: Array<string> = [
    ...(named.length === 0 ? [] : [
      `? cost unknown: ${named.map(([m, n]) => `${shownName(m!)} (${responses(n)})`).join(", ")} not in the price table (${priceTable}); add it under "prices" in the config file.`
    ]),
    ...(longUnpriced.size === 0 ? [] : [
      `? cost unknown: ${[...longUnpriced].map(([m, n]) => `${m === null ? "(no model)" : shownName(m)} (${responses(n)})`).join(", ")} with a prompt over 200k tokens and no long-context price in the price table (${priceTable}); add "longContext" to its price under "prices" in the config file.`
    ]),
    ...(fastUnpriced.size === 0 ? [] : [
      `? cost unknown: ${[...fastUnpriced].map(([m, n]) => `${m === null ? "(no model)" : shownName(m)} (${responses(n)})`).join(", ")} in fast mode (usage speed "fast") and no fast-mode price in the price table (${priceTable}); add "fast" to its price under "prices" in the config file.`
    ]),
    ...(unpriced.has(null) ? [`? cost unknown: ${responses(unpriced.get(null)!)} with tokens but no model and no stated cost (no price applies without a model).`] : []),
    // AgentMux runs partly in Claude Code's log (session 28: said wherever a cost is shown, as `usage` says it)
    ...(setAside > 0 ? [`note: ${costNotes.setAside(setAside)}`] : [])
  ]
  if (tokens.some((t) => t.startsWith("?"))) notes.push(`? tokens unknown: the tokens of a session past 2^53 - 1 in all are not counted exactly, so not shown (sessions --json: notExact).`)
  if (listed.some((u) => u.costNotFinite)) notes.push(`? cost unknown: the sum of a session's costs is past the largest number a double holds.`)
  const copies = rows.filter((r) => (elsewhere.get(r.sessionUid)?.length ?? 0) > 0)
  if (copies.length > 0) {
    notes.push(
      `* responses that repeat another session's count once, not in these tokens: in the Claude Code session when AgentMux also recorded that Claude Code run (Claude Code's own record), else in the session that began first (a resumed, forked or copied log):`
    )
    for (const r of copies.slice(0, MAX_ELSEWHERE_NOTES)) notes.push(`* ${oneLineField(r.sessionId)}: ${countedElsewhereText(elsewhere.get(r.sessionUid)!, r)}`)
    if (copies.length > MAX_ELSEWHERE_NOTES) notes.push(`* and ${counted(copies.length - MAX_ELSEWHERE_NOTES, "more session", "more sessions")} (sessions --json: usage.countedElsewhere)`)
  }
  const incomplete = rows.filter((r) => r.status === "incomplete")
  if (incomplete.length > 0) {
    notes.push(incompleteNote(incomplete.map((r) => ({ sessionId: r.sessionId, eventCount: r.eventCount, machine: r.machine === null ? null : shownName(r.machine) })), "!"))
  }
  return [
    `${"last activity".padEnd(width)} ${"provider".padEnd(11)} ${machines === null ? "" : `${"machine".padEnd(mw)} `}${"events".padStart(6)} ${"tokens".padStart(tw)} ${"cost".padStart(cw)}    ${"session".padEnd(sw)}    ${"title".padEnd(titleWidth)}    workspace`,
    ...lines,
    ...notes
  ].join("\n") + "\n"
}

/** The command. */
export const sessions = Command.make(
  "sessions",
  {
    json: O.json,
    local: O.local,
    index: O.index,
    config: O.config,
    provider: O.providerFilter,
    machine: O.machineFilter,
    since: Options.text("since").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Active at or after DATE (a bare YYYY-MM-DD is a UTC day, also with --local; give a time with an offset for another zone).")),
    until: Options.text("until").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Started at or before DATE (a bare date: to the end of that UTC day).")),
    limit: O.decimalInteger("limit", "sessions").pipe(
      Options.withPseudoName("N"),
      Options.optional,
      Options.withDescription("Only the N latest sessions (N is 1 or more).")
    ),
    workspace: Options.text("workspace").pipe(O.plainValue,
      Options.withPseudoName("DIR"),
      Options.optional,
      Options.withDescription("Only sessions whose workspace / working directory is DIR or below it.")
    )
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* queryRuntime
      // The arguments first: a bad one is INVALID_ARGUMENT whether or not there is an index.
      const provider = Option.getOrUndefined(o.provider)
      const limit = Option.getOrUndefined(o.limit)
      if (limit !== undefined && limit < 1) {
        const { InvalidArgument } = yield* errors
        return yield* new InvalidArgument({
          message: `--limit ${limit}: the number of sessions to list must be 1 or more.`,
          remediation: "Pass --limit N with N of 1 or more, or leave it out to list every session."
        })
      }
      const { since, until } = yield* timeRange(o.since, o.until)
      const workspace = workspaceOption(o.workspace)
      const file = yield* rt.existingIndex(o.index, o.config)
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      const { elsewhere, rows, usage } = yield* Effect.gen(function*() {
        const machine = yield* rt.machineFilter(Option.getOrUndefined(o.machine), "--machine")
        const rows = yield* Effect.flatMap(rt.Index, (i) => i.sessions({ provider, machine, since, until, workspace, limit }))
        // Tokens and cost from the index's usage rows (kept at import): no scan of events.
        const named = limit !== undefined ? rows.map((r) => r.sessionUid) : undefined
        const usage = yield* rt.usageBySession(prices, named)
        const elsewhere = yield* rt.usageElsewhereBySession(named)
        return { elsewhere, rows, usage }
      }).pipe(Effect.provide(rt.readIndexLayer(file)))
      yield* printResult(
        "sessions",
        o.json,
        rows.map((r) => ({ ...r, usage: rt.usageView(usage.get(r.sessionUid), elsewhere.get(r.sessionUid)) })),
        () => render(rows, usage, elsewhere, rt.describePrices(prices), o.local)
      )
    })
).pipe(Command.withDescription("List the sessions in the index, latest activity first."))
