/**
 * Queries over the index that the CLI and embedding applications share:
 * one session with its events, and its subagent sessions.
 *
 * @module
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AtifInput } from "../../domain/atif.js"
import { transcriptFromEvents } from "../../domain/conversation.js"
import { InvalidArgument, ResourceLimitExceeded, SourceNotFound, StoreUnavailable } from "../../domain/errors.js"
import { incompleteRefusal, incompleteRemedy } from "../../domain/incomplete.js"
import { emptySourceSummary, type SessionEvent, type Transcript } from "../../domain/model.js"
import type { PriceTable } from "../../domain/prices.js"
import { compareTimestamps } from "../../domain/timestamps.js"
import { type CountedElsewhere, summarizeGroups, type TokenCountName, type UsageGroup, usageRows, type UsageSummary, usageView, type UsageView } from "../../domain/usage.js"
import { defaultImportLimits, ImportLimits } from "../../services/ImportLimits.js"
import { Index, type IndexShape, type SessionRow, type UsageBy, type UsageFilter } from "../../services/Index.js"
import { keyedIds, realIds, SHOWN_SESSION_PREFIX, type ShownIds } from "../../domain/shown-ids.js"

/** A session of the index with its events, in source order. */
export interface LoadedSession {
  readonly session: SessionRow
  readonly events: ReadonlyArray<SessionEvent>
  /** Other sessions the same id names (other sources), latest first. */
  readonly others: ReadonlyArray<SessionRow>
}

/**
 * The session `id` names: an index uid (`ses_…`) or a native session id (the
 * latest when several sources hold it), with all its events. `SourceNotFound`
 * when none does; `ResourceLimitExceeded` when its events (the bytes of
 * their JSON, `Index.sessionBytes`) are more than `maxBytes` (default: the
 * `maxDocumentBytes` of the `ImportLimits` in context, which the CLI makes of
 * the config file's `limits`, else 256 MiB), as a document read whole would
 * be (stream them with `Index.eventsStream` instead).
 */
export const loadSession = (
  id: string,
  maxBytes?: number,
  ids?: ShownIds
): Effect.Effect<LoadedSession, SourceNotFound | InvalidArgument | StoreUnavailable | ResourceLimitExceeded, Index> =>
  Effect.gen(function*() {
    const limit = maxBytes ?? Option.match(yield* Effect.serviceOption(ImportLimits), {
      onNone: () => defaultImportLimits.maxDocumentBytes,
      onSome: (l) => l.maxDocumentBytes
    })
    const { others, session } = yield* findSession(id, ids)
    const index = yield* Index
    const bytes = yield* index.sessionBytes(session.sessionUid)
    if (bytes > limit) {
      return yield* new ResourceLimitExceeded({
        message: `Session ${session.sessionId} holds ${Math.round(bytes)} bytes of events; loading it whole is limited to ${limit} (maxDocumentBytes).`,
        remediation: "Use `show --format events` or `export --format ndjson`, which stream it a page at a time; or raise the limit: " +
          `{"limits": {"maxDocumentBytes": N}} in the config file (--config FILE), N at least ${Math.ceil(bytes)}.`,
        details: { limit: "maxDocumentBytes", max: limit, size: bytes }
      })
    }
    const events = yield* index.events(session.sessionUid)
    return { session, events, others }
  })

/** Two last activities are the same instant (both absent, or equal as instants). */
const sameInstant = (a: string | null, b: string | null) => a === null || b === null ? a === b : compareTimestamps(a, b) === 0

/**
 * Sessions of one id, as `findSessions` orders them (latest activity first, then uid: the order of `sessions`), with
 * each run of equal last activity reordered so that a copy whose source is still on disk comes before one whose
 * source is gone (a folder renamed: the index keeps the old copy as an archive, tester36a F5). Whether a source is
 * there is known only for a session of this machine (a SQLite index: `machine` null); a team index's rows keep their
 * order. Stable: the uid order stays within the present and within the gone copies.
 */
const presentFirstOnTies = (rows: ReadonlyArray<SessionRow>): Array<SessionRow> => {
  const gone = (s: SessionRow) => s.machine === null && !fs.existsSync(s.locator.path)
  const out: Array<SessionRow> = []
  for (let i = 0; i < rows.length;) {
    let j = i + 1
    while (j < rows.length && sameInstant(rows[j].lastAt, rows[i].lastAt)) j++
    const run = rows.slice(i, j)
    if (run.length === 1) out.push(run[0])
    else {
      const isGone = run.map(gone)
      out.push(...run.filter((_, k) => !isGone[k]), ...run.filter((_, k) => isGone[k]))
    }
    i = j
  }
  return out
}

/** Candidates an ambiguous prefix lists at most (in the message; `details.candidates` holds them too). */
const MAX_CANDIDATES = 20

/**
 * {@link loadSession} without its events: the session and the others the id
 * names. Its events then come a page at a time from `Index.eventsStream`.
 *
 * `id` is a session's uid (`ses_…`) or native id, or a unique prefix of one
 * (as `git` takes an abbreviated hash): an exact match wins; otherwise the
 * sessions whose uid or native id starts with `id`. Several sessions of one
 * native id (from several sources) are one match, the latest shown and the
 * rest in `others`. `SourceNotFound` when nothing matches; `InvalidArgument`
 * when the prefix names more than one session, with the candidate ids in the
 * message and in `details.candidates` (at most 20).
 *
 * A shown uid (`hses_…`, or a unique prefix of one: what a redacted output gave
 * as a session's uid, `src/domain/shown-ids.ts`) names the session whose uid
 * `ids` shows so (default: the index's own shown ids, by its `shownIdKey`).
 */
export const findSession = (
  given: string,
  ids?: ShownIds
): Effect.Effect<Omit<LoadedSession, "events">, SourceNotFound | InvalidArgument | StoreUnavailable, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    let id = given
    if (given.toLowerCase().startsWith(SHOWN_SESSION_PREFIX)) {
      const shownIds = ids ?? Option.getOrUndefined(Option.map(Option.fromNullable(yield* index.shownIdKey), keyedIds))
      const named = yield* unshownUids(index, given.toLowerCase(), shownIds)
      if (named.length > 0) {
        // The shown uids are one namespace with the native ids (a Muse agents session id is free text): a native id
        // the given names too (exactly or as a prefix) makes it name several sessions (tester25a F7). The candidates
        // are named as redacted outputs name them (never a real uid: an MCP client reads this message).
        const natives = (yield* index.findSessionsByPrefix(given, MAX_CANDIDATES + 1)).filter((s) => s.sessionId.startsWith(given))
        if (named.length === 1 && natives.length === 0) id = named[0]
        else {
          const show = shownIds!.sessionUid
          const candidates = [
            ...named.map((uid) => show(uid)),
            ...natives.map((s) => `${s.sessionId} (a native session id, of the session shown as ${show(s.sessionUid)})`)
          ]
          const listed = candidates.slice(0, MAX_CANDIDATES)
          return yield* new InvalidArgument({
            message: `The session id ${given} is ambiguous: it names ${listed.join(", ")}${candidates.length > listed.length ? " and more" : ""}.`,
            remediation: "Pass more of the shown uid, the shown uid of the session you mean, or its real uid (ses_…, as `session-ingest sessions` lists it).",
            details: { prefix: given, candidates: [...named, ...natives.map((s) => s.sessionUid)].slice(0, MAX_CANDIDATES).map(show) }
          })
        }
      }
    }
    // Given shown ids (a redacted answer's: an MCP server with redaction on), a real uid (`ses_…`, an unkeyed digest
    // of the path on disk) is never resolved, nor a prefix of one: only native ids and shown uids, so no answer
    // tells whether a guessed real uid exists, and none lists one (tester25a F16).
    const redacted = ids !== undefined && ids.sessionUid !== realIds.sessionUid
    const nativeOnly = (rows: ReadonlyArray<SessionRow>, exactly: boolean) =>
      !redacted || id !== given ? rows : rows.filter((s) => (exactly ? s.sessionId === id : s.sessionId.startsWith(id)))
    const exact = nativeOnly(yield* index.findSessions(id), true)
    // A uid names its own session, never one whose native id is that string (free text: a Muse agents or AgentMux
    // session id can be another session's uid, tester32a F9); picked so, no other session is offered.
    const byUid = exact.find((s) => s.sessionUid === id)
    if (byUid !== undefined) return { session: byUid, others: [] }
    if (exact.length > 0) {
      const [session, ...others] = presentFirstOnTies(exact)
      return { session, others }
    }
    const found = nativeOnly(yield* index.findSessionsByPrefix(id, 1000), false)
    if (found.length === 0) {
      return yield* new SourceNotFound({
        message: `No session ${id} in the index.`,
        // an id as a redacted output shows it (a secret was in it: `Redaction.id`) names no session: its uid does
        remediation: id.includes("[REDACTED:")
          ? "That id is as a redacted output shows it (a secret was in it), and a redacted id names no session: " + (redacted
            ? "pass the session's uid (hses_…) as the same answer gave it."
            : "pass the session's uid as that output gave it (hses_…), or its id or ses_… uid as `session-ingest sessions` lists it.")
          : redacted
          ? "List the sessions with list_sessions; pass a session's id or its uid (hses_…) as an answer gave it."
          : id.toLowerCase().startsWith(SHOWN_SESSION_PREFIX)
          ? "List the sessions with `session-ingest sessions`; a shown uid (hses_…) is that of one index: pass it to the index whose redacted output gave it, or pass a session id or its ses_… uid."
          : "List the sessions with `session-ingest sessions`; pass a session id or its ses_… uid."
      })
    }
    // What the prefix matched of each session: its native id when that starts with the prefix, else its uid. A uid
    // and a native id that are the same string are two candidates (tester32a F9), the native one named with its uid.
    const keyOf = (s: SessionRow) => (s.sessionId.startsWith(id) ? `id:${s.sessionId}` : `uid:${s.sessionUid}`)
    const keys = [...new Set(found.map(keyOf))]
    const uidKeys = new Set(keys.filter((k) => k.startsWith("uid:")).map((k) => k.slice(4)))
    const candidates = keys.map((k) => {
      if (k.startsWith("uid:")) return k.slice(4)
      const native = k.slice(3)
      return uidKeys.has(native) ? `${native} (a native session id, of session ${found.find((s) => s.sessionId === native)!.sessionUid})` : native
    })
    if (candidates.length > 1) {
      const shown = candidates.slice(0, MAX_CANDIDATES)
      const more = candidates.length > shown.length
        ? (found.length >= 1000 ? " and more" : ` and ${candidates.length - shown.length} more`)
        : ""
      return yield* new InvalidArgument({
        message: `The session id prefix ${id} is ambiguous: it matches ${shown.join(", ")}${more}.`,
        remediation: "Pass more of the id, enough to match one session.",
        details: { prefix: id, candidates: shown }
      })
    }
    return { session: found[0], others: found.slice(1) }
  })

/**
 * The real uids of the sessions whose shown uid (`hses_…`, `src/domain/shown-ids.ts`: what a redacted output gave
 * as a session's `uid`) is `id` or starts with it (lower case: the shown uid's hex), found by showing each
 * session's uid with `ids` (one pass over the sessions). None without shown ids (an index without a key, or the
 * real ids): `id` is then taken as a native id or uid.
 */
const unshownUids = (index: IndexShape, id: string, ids: ShownIds | undefined): Effect.Effect<ReadonlyArray<string>, StoreUnavailable> =>
  ids === undefined || ids.sessionUid === realIds.sessionUid
    ? Effect.succeed([])
    : Effect.map(index.sessions({}), (rows) => [...new Set(rows.filter((s) => ids.sessionUid(s.sessionUid).startsWith(id)).map((s) => s.sessionUid))])

/**
 * The session filter of a search (`search --session`, MCP
 * `search_sessions`' `session`) for what the user named (see
 * {@link findSession}): `SearchFilter.sessionUids`, the uids of the sessions
 * it names: a uid (or a prefix of one) its session only; a native id (or a
 * prefix of one) held by several sources all of them. A native id equal to
 * another session's uid never widens a uid's search (tester32a F9). Fails as
 * {@link findSession}: an unknown session is `SourceNotFound`, not a search
 * without hits.
 */
export const searchSessionFilter = (
  given: string,
  ids?: ShownIds
): Effect.Effect<{ readonly sessionUids: ReadonlyArray<string> }, SourceNotFound | InvalidArgument | StoreUnavailable, Index> =>
  Effect.map(findSession(given, ids), ({ others, session }) => ({ sessionUids: [session.sessionUid, ...others.map((o) => o.sessionUid)] }))

/**
 * How {@link requireComplete} names what it says in its error: a session's uid (a redacted output's shown uid,
 * `ShownIds.sessionUid`) and a machine's name (a redacted output's, `Redaction.text`). Default: as the index has them.
 */
export interface ShownNames {
  readonly sessionUid?: ((uid: string) => string) | undefined
  readonly machine?: ((name: string) => string) | undefined
}

/**
 * Fails when `session` is incomplete ({@link SessionRow.status}: its source's generation shown is still `importing`,
 * an import or push killed, stopped part-way or running): `StoreUnavailable` (exit 6, as an index an import was
 * stopped while creating: the index is not ready for it, and the remedy is to run the import again) with `details`
 * `{reason: "session-incomplete", sessionId, sessionUid, eventCount, machine}` and the remedy (`import` / `push`
 * again, on the machine named). What every output of a whole session checks (`export`, `replay`, `show --format
 * markdown`, MCP `get_session` / `get_events` / `session://`): a part of a session is never given out as the session
 * (docs/index.md, "Incomplete sessions"; tester28a F3). `others`: the other sessions of the same native id
 * (`findSession`'s): the complete ones are named in the remedy. `shown`: how uids and machines are named (a
 * redacted output never names a real uid or an unredacted machine).
 */
export const requireComplete = (
  session: SessionRow,
  others: ReadonlyArray<SessionRow> = [],
  shown: ShownNames = {}
): Effect.Effect<SessionRow, StoreUnavailable> => {
  if (session.status !== "incomplete") return Effect.succeed(session)
  const uid = shown.sessionUid ?? ((u: string) => u)
  const machine = session.machine === null ? null : (shown.machine ?? ((m: string) => m))(session.machine)
  const refusal = incompleteRefusal({ sessionId: session.sessionId, eventCount: session.eventCount, machine })
  // Other sources holding the same native id whose copy is complete: one of them can be named by its uid.
  const whole = others.filter((o) => o.status === "complete").map((o) => uid(o.sessionUid))
  return Effect.fail(
    new StoreUnavailable({
      message: refusal.message,
      remediation: whole.length === 0 ? refusal.remediation : `${refusal.remediation} Or name a complete copy by its uid: ${whole.join(", ")}.`,
      details: {
        reason: "session-incomplete",
        sessionId: session.sessionId,
        sessionUid: uid(session.sessionUid),
        eventCount: session.eventCount,
        machine
      }
    })
  )
}

/**
 * {@link findSession} for an output of the whole session: fails as {@link requireComplete} when the session the id
 * names is incomplete (uids named as `ids` shows them; machines as `shown.machine` does).
 */
export const findCompleteSession = (
  given: string,
  ids?: ShownIds,
  shown: Pick<ShownNames, "machine"> = {}
): Effect.Effect<Omit<LoadedSession, "events">, SourceNotFound | InvalidArgument | StoreUnavailable, Index> =>
  Effect.tap(findSession(given, ids), ({ others, session }) => requireComplete(session, others, { sessionUid: ids?.sessionUid, machine: shown.machine }))

/**
 * A `machine` filter (`--machine` of `sessions` and `search`, the `machine`
 * argument of the MCP tools `list_sessions` and `search_sessions`), checked
 * against the index it filters: as given on a team index (PostgreSQL, whose
 * rows name their machine); `InvalidArgument` on an index that names no
 * machines (SQLite: one machine's sessions, `machine` null on every row),
 * where it could only match nothing. `option` is how the caller names the
 * filter in the message (`--machine`, `machine`). Undefined passes.
 */
export const machineFilter = (
  machine: string | undefined,
  option: string
): Effect.Effect<string | undefined, InvalidArgument, Index> =>
  Effect.gen(function*() {
    if (machine === undefined) return undefined
    const index = yield* Index
    if (index.namesMachines) return machine
    return yield* new InvalidArgument({
      message: `${option} ${machine}: a local (SQLite) index holds one machine's sessions and names no machines; only a team index (postgres://…) has machine names to filter by.`,
      remediation: `Leave out ${option}, or pass --index postgres://… to read a team index.`,
      details: { option, machine }
    })
  })

/** The parent session id an event's typed `parent` link names, if any. */
const parentSessionOf = (e: SessionEvent): string | undefined => e.parent?.sessionId

/**
 * The input of an ATIF export of `id`: the session, its events, and the
 * subagent sessions imported from the same source whose events name it as
 * their parent. Fails as {@link requireComplete} for an incomplete session.
 */
export const loadTrajectory = (
  id: string
): Effect.Effect<AtifInput, SourceNotFound | InvalidArgument | StoreUnavailable | ResourceLimitExceeded, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    // A part of a session is never exported as the session (fails before its events are read).
    yield* findCompleteSession(id)
    const { events, session } = yield* loadSession(id)
    const siblings = (yield* index.sessions({})).filter(
      (s) => s.sourceKey === session.sourceKey && s.sessionUid !== session.sessionUid
    )
    const subagents: Array<AtifInput["subagents"][number]> = []
    const subagentUids: Array<string> = []
    for (const s of siblings) {
      const childEvents = yield* index.events(s.sessionUid)
      if (childEvents.some((e) => parentSessionOf(e) === session.sessionId)) {
        subagents.push({ session: describe(s, childEvents), events: childEvents })
        subagentUids.push(s.sessionUid)
      }
    }
    // Each session's usage as the index counts it (what `show` says of it).
    const usage = yield* sessionUsage([{ sessionUid: session.sessionUid, events }, ...subagentUids.map((uid, k) => ({ sessionUid: uid, events: subagents[k].events }))])
    return {
      session: describe(session, events),
      events,
      usage: usage.get(session.sessionUid),
      subagents: subagents.map((sub, k) => ({ ...sub, usage: usage.get(subagentUids[k]) }))
    }
  })

/**
 * The usage of sessions as the index counts it, for an output that shows it
 * on the sessions' events (the ATIF export, the replay): the groups
 * `Index.usage` reads for `sessions`, `show` and `usage` (a Claude Code
 * response copied into a resumed session counts only in the session where it
 * was seen first), one per counted response, each keyed (`group`) by the id
 * of the event of `events` its usage is on, the one `usageRows` names. By
 * session uid; a session without usage, or whose every response counts
 * elsewhere, has an empty list.
 */
export const sessionUsage = (
  sessions: ReadonlyArray<{ readonly sessionUid: string; readonly events: ReadonlyArray<SessionEvent> }>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<UsageGroup>>, StoreUnavailable, Index> =>
  Effect.gen(function*() {
    const out = new Map<string, Array<UsageGroup>>(sessions.map((s) => [s.sessionUid, []]))
    if (sessions.length === 0) return out
    const index = yield* Index
    const groups = yield* index.usage({ by: "response", sessionUids: sessions.map((s) => s.sessionUid) })
    const eventOf = new Map(sessions.map((s) => [s.sessionUid, new Map(usageRows(s.events).map((r) => [r.key, r.eventId]))]))
    for (const g of groups) {
      // The group key is `<session uid> <response key>` (a uid holds no space).
      const at = g.group === null ? -1 : g.group.indexOf(" ")
      if (at < 0) continue
      const uid = g.group!.slice(0, at)
      const key = g.group!.slice(at + 1)
      out.get(uid)?.push({ ...g, group: eventOf.get(uid)?.get(key) ?? key })
    }
    return out
  })

const describe = (s: SessionRow, events: ReadonlyArray<SessionEvent>) => ({
  sessionId: s.sessionId,
  provider: s.provider,
  title: s.title,
  model: events.find((e) => e.model !== null)?.model ?? null,
  // the lines its source skipped (the discovery summary's, when it is this session's)
  parseWarnings: s.overview.sessionId === s.sessionId ? s.overview.parseWarnings : []
})


/**
 * The transcript of an indexed session, as the `transcript` command gives it
 * for its source: turns, tool calls and compactions built from the events
 * (`transcriptFromEvents`), plus what the source's discovery summary knew and
 * no event carries: the model, the header's time, the parse warnings of the
 * lines that were skipped, and the diagnostics other than those the events
 * show themselves (e.g. an ignored `sessions.json`). A summary of another
 * session of the same source, or one without these facts, adds nothing.
 */
export const sessionTranscript = ({ events, session }: Pick<LoadedSession, "session" | "events">): Transcript => {
  const known = session.overview.sessionId === session.sessionId ? session.overview : emptySourceSummary()
  const t = transcriptFromEvents({
    sessionId: session.sessionId,
    title: session.title,
    model: known.model,
    startedAt: known.firstActivityAt
  }, events)
  const own = new Set(t.diagnostics.map((d) => d.kind))
  return {
    ...t,
    parseWarnings: t.parseWarnings.length > 0 ? t.parseWarnings : known.parseWarnings,
    diagnostics: [...t.diagnostics, ...known.diagnostics.filter((d) => !own.has(d.kind))]
  }
}

/** More sessions than this are read whole rather than named in the query (SQLite's bound-parameter limit). */
const MAX_NAMED_SESSIONS = 10_000

/**
 * Tokens and cost of sessions from the index's usage rows (no scan of
 * events), priced with `prices` (null: every cost not stated by the source
 * is unknown): by session uid; a session whose source reports no usage has
 * no entry. `sessionUids`: only these (all when absent). The one cost of a
 * session that `sessions`, `show`, `usage --by session` and the replay's
 * header print.
 */
export const usageBySession = (
  prices: PriceTable | null,
  sessionUids?: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, UsageSummary>, StoreUnavailable, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    const named = sessionUids !== undefined && sessionUids.length <= MAX_NAMED_SESSIONS ? sessionUids : undefined
    const groups = yield* index.usage({ by: "session", sessionUids: named })
    const out = new Map<string, UsageSummary>()
    for (const [uid, s] of summarizeGroups(groups, prices)) if (uid !== null) out.set(uid, s)
    return out
  })

/**
 * Where the responses of sessions that repeat responses of other sessions
 * count (`Index.usageElsewhere`): by session uid, the sessions they count in
 * with how many; a session without such copies has no entry. `sessionUids`:
 * only these (all when absent).
 */
export const usageElsewhereBySession = (
  sessionUids?: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<CountedElsewhere>>, StoreUnavailable, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    const named = sessionUids !== undefined && sessionUids.length <= MAX_NAMED_SESSIONS ? sessionUids : undefined
    const out = new Map<string, Array<CountedElsewhere>>()
    for (const e of yield* index.usageElsewhere({ sessionUids: named })) {
      const list = out.get(e.sessionUid) ?? []
      list.push({ provider: e.countedInProvider, sessionId: e.countedInId, sessionUid: e.countedInUid, responses: e.responses })
      out.set(e.sessionUid, list)
    }
    return out
  })

/** How a report names its price table: the bundled file, its version and source, and the models the config file set. */
export interface PricesUsed {
  readonly file: "data/prices.json"
  readonly version: string
  readonly source: string
  readonly overridden: ReadonlyArray<string>
  readonly overrideFile: string | null
}

/**
 * A note of a usage report: a model the price table lacks, with how many
 * responses (their cost is unknown); a model without long-context rates,
 * with how many of its responses have a prompt over 200k tokens (their cost
 * is unknown: never the standard rates); AgentMux runs whose stated totals
 * were set aside (some of their responses count in Claude Code's log, so
 * their others are priced from the table); token counts whose sum is past
 * 2^53 - 1 (`counts`: shown as unknown, a double cannot hold them exactly);
 * a cost whose sum is past the largest double (shown as unknown); copies
 * of responses that count in other sessions (`responses` copies in
 * `sessions` sessions, within the report's filters: not in its rows, each
 * counted once where it was seen first); incomplete sessions
 * (`SessionRow.status`: `sessions` of them within the provider, workspace,
 * machine and time filters, `events` imported of them so far) left out of
 * the rows and the total, with the remedy that completes them; with `since`
 * or `until`, the `responses` without a time (their line's timestamp was not
 * valid, a `timestamp-not-valid` warning at import) that match the other
 * filters: no time range holds them, so they are outside the rows and the
 * total (tester32a F8).
 */
export type UsageNote =
  | { readonly kind: "model-not-priced"; readonly model: string | null; readonly responses: number }
  | { readonly kind: "long-context-not-priced"; readonly model: string | null; readonly responses: number }
  | { readonly kind: "fast-not-priced"; readonly model: string | null; readonly responses: number }
  | { readonly kind: "run-total-set-aside"; readonly runs: number }
  | { readonly kind: "tokens-not-exact"; readonly counts: ReadonlyArray<TokenCountName> }
  | { readonly kind: "cost-not-finite" }
  | { readonly kind: "counted-elsewhere"; readonly responses: number; readonly sessions: number }
  | { readonly kind: "no-time-left-out"; readonly responses: number }
  | {
    readonly kind: "sessions-incomplete"
    readonly sessions: number
    readonly events: number
    readonly remediation: string
  }

/**
 * One row of a usage report: its key (the day `YYYY-MM-DD`, the session's
 * native id, the model, provider or workspace; null when the rows have none,
 * e.g. no time), the usage ({@link UsageView}: tokens, `costUsd` null when a
 * model of it has no price), how many responses count, and the unpriced
 * models. A session row also names the session.
 */
export interface UsageReportRow extends UsageView {
  readonly key: string | null
  readonly responses: number
  readonly unpriced: UsageSummary["unpriced"]
  /**
   * Models the table prices without long-context rates, with how many of the row's responses have a prompt over
   * 200k tokens (their cost unknown, so `costUsd` is null): only when there are some (session 28, tester28a F6: such
   * a row said `costUsd: null, unpriced: []`, with no reason on the row).
   */
  readonly longContextUnpriced?: UsageSummary["longContextUnpriced"]
  /** Models the table prices without fast-mode rates, with how many of the row's responses ran in fast mode (their cost unknown): only when there are some (session 33, tester33b F1). */
  readonly fastUnpriced?: UsageSummary["fastUnpriced"]
  readonly sessionUid?: string
  readonly provider?: string
  readonly title?: string | null
  readonly workspace?: string | null
  readonly lastAt?: string | null
  /** A session row: only when some responses of the session count in another session (see {@link CountedElsewhere}). */
  readonly countedElsewhere?: ReadonlyArray<CountedElsewhere>
}

/**
 * The `usage` report: its grouping and bounds, the price table used, the
 * rows, their total (every count and the cost 0 when no response counts, the
 * same shape as a total of some) and notes. `empty` says why there are no
 * rows: `no-usage-in-index` (the index holds no usage at all, whatever the
 * filters), `no-usage-matches-filters` (it holds some, none within the
 * filters), `no-usage-in-complete-sessions` (what usage there is belongs to
 * sessions not imported whole, left out: the `sessions-incomplete` note);
 * `null` when there are rows.
 */
export interface UsageReport {
  readonly by: UsageBy
  readonly since: string | null
  readonly until: string | null
  readonly prices: PricesUsed
  readonly rows: ReadonlyArray<UsageReportRow>
  readonly total: UsageView & { readonly responses: number }
  readonly notes: ReadonlyArray<UsageNote>
  readonly empty: "no-usage-in-index" | "no-usage-matches-filters" | "no-usage-in-complete-sessions" | null
}

/**
 * `report` as `usage --by workspace` shows it with redaction on (a cost report is pasted into chats): each row's
 * workspace (its key, a path a source wrote: tester35a F12) and each model name the report states (the rows'
 * `unpriced`, `longContextUnpriced` and `fastUnpriced`, and the notes' `model`: session 38, tester38 F3, a
 * model's name is a string copied from the source, which `export`, `replay` and MCP redact) through `text` (the
 * Redaction service's text rules). Counts, costs, a null key or model and the other notes stay; `report` itself when
 * nothing changes.
 */
export const shownUsageReport = (report: UsageReport, text: (s: string) => string): UsageReport => {
  type Models = ReadonlyArray<{ readonly model: string | null; readonly responses: number }>
  const models = <L extends Models | undefined>(list: L): L =>
    (list === undefined || list.every((u) => u.model === null || text(u.model) === u.model)
      ? list
      : list.map((u) => (u.model === null ? u : { ...u, model: text(u.model) }))) as L
  const summary = <A extends { readonly unpriced?: Models; readonly longContextUnpriced?: Models; readonly fastUnpriced?: Models }>(x: A): A => {
    const unpriced = models(x.unpriced)
    const longContextUnpriced = models(x.longContextUnpriced)
    const fastUnpriced = models(x.fastUnpriced)
    return unpriced === x.unpriced && longContextUnpriced === x.longContextUnpriced && fastUnpriced === x.fastUnpriced
      ? x
      : {
        ...x,
        ...(x.unpriced === undefined ? {} : { unpriced }),
        ...(x.longContextUnpriced === undefined ? {} : { longContextUnpriced }),
        ...(x.fastUnpriced === undefined ? {} : { fastUnpriced })
      }
  }
  return {
    ...report,
    rows: report.rows.map((x) => summary(x.key === null ? x : { ...x, key: text(x.key) })),
    notes: report.notes.map((n) => ("model" in n && n.model !== null ? { ...n, model: text(n.model) } : n))
  }
}

/** The total of a report no response counts in: every count and the cost 0 (known: nothing was used). */
const zeroTotal: UsageReport["total"] = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  costUsd: 0,
  responses: 0
}

/**
 * The usage report (what ccusage made popular) from the index: usage rows
 * grouped by day, session, model, provider, workspace or machine (see
 * `domain/usage.ts` for what counts), filtered by time (`since` / `until`,
 * RFC 3339, a response's own time), provider, workspace and machine. Days and other
 * keys ascend; sessions come latest activity first. Fails with
 * `InvalidArgument` when grouped by machine on an index that names no
 * machines (SQLite: one machine's); a machine filter is checked by
 * {@link machineFilter} first.
 */
export const usageReport = (
  filter: Omit<UsageFilter, "sessionUids">,
  prices: PriceTable
): Effect.Effect<UsageReport, StoreUnavailable | InvalidArgument, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    if (filter.by === "machine" && !index.namesMachines) {
      return yield* new InvalidArgument({
        message: "--by machine: a local (SQLite) index holds one machine's sessions and names no machines; only a team index (postgres://…) groups by machine.",
        remediation: "Group by day, session, model, provider or workspace, or pass --index postgres://… to read a team index.",
        details: { option: "--by", value: "machine" }
      })
    }
    const groups = yield* index.usage(filter)
    // Sessions not imported whole yet: their usage is not in the groups (a prefix is never priced as the session). Only
    // those are read (filtered in the query), not every session of the index.
    const incomplete = yield* index.sessions({
      provider: filter.provider,
      workspace: filter.workspace,
      machine: filter.machine,
      since: filter.since,
      until: filter.until,
      status: "incomplete"
    })
    const byKey = summarizeGroups(groups, prices)
    const total = summarizeGroups(groups.map((g) => ({ ...g, group: null })), prices).get(null) ?? null
    const sessions = filter.by === "session" ? new Map((yield* index.sessions({})).map((s) => [s.sessionUid, s])) : new Map<string, SessionRow>()
    // Copies of responses counted in other sessions, within the same filters: a note, and (by session) on the rows.
    const copies = yield* index.usageElsewhere({ since: filter.since, until: filter.until, provider: filter.provider, workspace: filter.workspace, machine: filter.machine })
    const elsewhereOf = new Map<string, Array<CountedElsewhere>>()
    for (const e of copies) elsewhereOf.set(e.sessionUid, [...(elsewhereOf.get(e.sessionUid) ?? []), { provider: e.countedInProvider, sessionId: e.countedInId, sessionUid: e.countedInUid, responses: e.responses }])
    const rows: Array<UsageReportRow> = [...byKey].map(([key, s]) => {
      const longContext = {
        ...(s.longContextUnpriced !== undefined ? { longContextUnpriced: s.longContextUnpriced } : {}),
        ...(s.fastUnpriced !== undefined ? { fastUnpriced: s.fastUnpriced } : {})
      }
      if (filter.by !== "session") return { key, ...usageView(s), responses: s.responses, unpriced: s.unpriced, ...longContext }
      const ss = key === null ? undefined : sessions.get(key)
      const { countedElsewhere, ...view } = usageView(s, key === null ? [] : elsewhereOf.get(key))
      return {
        key: ss?.sessionId ?? key,
        ...view,
        responses: s.responses,
        unpriced: s.unpriced,
        ...longContext,
        sessionUid: key ?? "",
        provider: ss?.provider ?? "",
        title: ss?.title ?? null,
        workspace: ss?.workspace ?? null,
        lastAt: ss?.lastAt ?? null,
        ...(countedElsewhere !== undefined ? { countedElsewhere } : {})
      }
    })
    const asc = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1)
    // Sessions latest activity first, by instant (a time's text does not sort as its instant across precisions).
    const later = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : compareTimestamps(b, a))
    rows.sort((a, b) => (filter.by === "session" ? later(a.lastAt ?? null, b.lastAt ?? null) || asc(a.key, b.key) : asc(a.key, b.key)))
    // With a time range, the responses without a time (in no range) that the other filters keep: said, not silently out.
    const untimed = filter.since === undefined && filter.until === undefined
      ? 0
      : summarizeGroups(
        (yield* index.usage({ by: "day", provider: filter.provider, workspace: filter.workspace, machine: filter.machine })).filter((g) => g.group === null),
        prices
      ).get(null)?.responses ?? 0
    const filtered = filter.since !== undefined || filter.until !== undefined || filter.provider !== undefined || filter.workspace !== undefined ||
      filter.machine !== undefined
    const empty = rows.length > 0
      ? null
      : incomplete.length > 0
      ? "no-usage-in-complete-sessions" as const
      : filtered && (yield* index.usage({ by: "provider" })).length > 0
      ? "no-usage-matches-filters" as const
      : "no-usage-in-index" as const
    return {
      by: filter.by,
      since: filter.since ?? null,
      until: filter.until ?? null,
      prices: { file: "data/prices.json", version: prices.version, source: prices.source, overridden: prices.overridden, overrideFile: prices.overrideFile },
      rows,
      total: total === null ? zeroTotal : { ...usageView(total), responses: total.responses },
      notes: [
        ...(total?.unpriced ?? []).map((u): UsageNote => ({ kind: "model-not-priced", model: u.model, responses: u.responses })),
        // A prompt over 200k tokens of a model without long-context rates: unknown, never the standard rates (tester27a F6).
        ...(total?.longContextUnpriced ?? []).map((u): UsageNote => ({ kind: "long-context-not-priced", model: u.model, responses: u.responses })),
        // A fast-mode response of a model without fast-mode rates: unknown, never the standard rates (tester33b F1).
        ...(total?.fastUnpriced ?? []).map((u): UsageNote => ({ kind: "fast-not-priced", model: u.model, responses: u.responses })),
        // AgentMux runs partly in Claude Code's log: their stated totals overlap those responses (tester27a F8).
        ...(total !== null && (total.runsSetAside ?? 0) > 0 ? [{ kind: "run-total-set-aside" as const, runs: total.runsSetAside ?? 0 }] : []),
        // The total holds every row, so a count past 2^53 - 1 in a row is one in the total too (and a cost past the largest double).
        ...(total !== null && total.notExact.length > 0 ? [{ kind: "tokens-not-exact" as const, counts: total.notExact }] : []),
        ...(total?.costNotFinite === true ? [{ kind: "cost-not-finite" as const }] : []),
        ...(copies.length > 0
          ? [{ kind: "counted-elsewhere" as const, responses: copies.reduce((n, e) => n + e.responses, 0), sessions: new Set(copies.map((e) => e.sessionUid)).size }]
          : []),
        ...(untimed > 0 ? [{ kind: "no-time-left-out" as const, responses: untimed }] : []),
        ...(incomplete.length > 0
          ? [{
            kind: "sessions-incomplete" as const,
            sessions: incomplete.length,
            events: incomplete.reduce((n, s) => n + s.eventCount, 0),
            remediation: incompleteRemedy(incomplete.map((s) => s.machine))
          }]
          : [])
      ],
      empty
    }
  })
