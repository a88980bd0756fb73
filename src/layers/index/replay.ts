/**
 * The HTML replay of an indexed session (issue 15): the session, its events
 * and its subagent sessions from the index, built into a `ReplayInput` and
 * rendered as one self-contained page.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { InvalidArgument, ResourceLimitExceeded, SourceNotFound, StoreUnavailable } from "../../domain/errors.js"
import { emptySourceSummary, type SessionEvent } from "../../domain/model.js"
import { replayInput, type ReplaySource } from "../../domain/replay/build.js"
import type { ReplayInput } from "../../domain/replay/model.js"
import { renderReplay } from "../../domain/replay/render.js"
import { Index, type SessionRow } from "../../services/Index.js"
import { findCompleteSession, loadSession, sessionUsage, usageBySession, usageElsewhereBySession } from "./queries.js"
import { visibleControls } from "../../domain/render.js"
import { bundledPrices, type PriceTable } from "../../domain/prices.js"
import { Redaction } from "../../services/Redaction.js"
import { shareableReplaySource, shownIds, shownText } from "../share.js"

/** The errors of loading a session for its replay. */
export type ReplayError = SourceNotFound | InvalidArgument | StoreUnavailable | ResourceLimitExceeded

/** What the session row knows that no event carries (as `sessionTranscript` takes it). */
const sessionFacts = (s: SessionRow): ReplaySource["session"] => {
  const known = s.overview.sessionId === s.sessionId ? s.overview : emptySourceSummary()
  return {
    sessionId: s.sessionId,
    provider: s.provider,
    title: s.title,
    model: known.model,
    workspace: s.workspace ?? known.workspace,
    startedAt: known.firstActivityAt,
    parseWarnings: known.parseWarnings,
    diagnostics: known.diagnostics
  }
}

/**
 * The session `id` names (as `loadSession` finds it: uid, native id or a
 * unique prefix) with its events, and its subagent sessions nested: the
 * sessions imported from the same source whose events' typed `parent` link
 * names it (as `loadTrajectory` finds them), and theirs in turn. Fails as
 * `requireComplete` (`StoreUnavailable`, `session-incomplete`) for an
 * incomplete session: a part of one is never replayed as the session.
 */
export const loadReplaySource = (id: string): Effect.Effect<ReplaySource, ReplayError, Index> =>
  Effect.map(replaySourceOf(id), (r) => r.source)

/** {@link loadReplaySource}'s source, with the index's uid of its session. */
const replaySourceOf = (id: string): Effect.Effect<{ readonly source: ReplaySource; readonly sessionUid: string }, ReplayError, Index> =>
  Effect.gen(function*() {
    const index = yield* Index
    yield* findCompleteSession(id)
    const { events, session } = yield* loadSession(id)
    const siblings = (yield* index.sessions({})).filter(
      (s) => s.sourceKey === session.sourceKey && s.sessionUid !== session.sessionUid
    )
    const loaded: Array<{ readonly row: SessionRow; readonly events: ReadonlyArray<SessionEvent>; readonly parent: string | undefined }> = []
    for (const row of siblings) {
      const childEvents = yield* index.events(row.sessionUid)
      loaded.push({ row, events: childEvents, parent: childEvents.find((e) => e.parent !== null)?.parent?.sessionId })
    }
    // Each session's usage as the index counts it (what `show` says of it).
    const usage = yield* sessionUsage([{ sessionUid: session.sessionUid, events }, ...loaded.map((c) => ({ sessionUid: c.row.sessionUid, events: c.events }))])
    const seen = new Set<string>([session.sessionUid])
    const childrenOf = (sessionId: string): Array<ReplaySource> =>
      loaded
        .filter((c) => c.parent === sessionId && !seen.has(c.row.sessionUid))
        .map((c) => {
          seen.add(c.row.sessionUid)
          return c
        })
        .map((c) => ({ session: sessionFacts(c.row), events: c.events, usage: usage.get(c.row.sessionUid), subagents: childrenOf(c.row.sessionId) }))
    return {
      source: { session: sessionFacts(session), events, usage: usage.get(session.sessionUid), subagents: childrenOf(session.sessionId) },
      sessionUid: session.sessionUid
    }
  })

/** The {@link ReplayInput} of the session `id` names (see {@link loadReplaySource}); `costUsd` is null. */
export const loadReplayInput = (id: string): Effect.Effect<ReplayInput, ReplayError, Index> =>
  Effect.map(loadReplaySource(id), replayInput)

/**
 * Every string of a value with its control characters written visibly
 * (`visibleControls`, as the terminal outputs have them): a bidirectional
 * override in a title or a tool output cannot reorder what the page shows
 * (a "Trojan Source" spoof), and terminal escapes show as `\x1b[…`.
 */
const visibleStrings = <A>(v: A): A => {
  if (typeof v === "string") return visibleControls(v) as A
  if (Array.isArray(v)) return v.map(visibleStrings) as A
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = visibleStrings(x)
    return out as A
  }
  return v
}

/**
 * The HTML replay of an indexed session, as `session-ingest replay` writes
 * it: its source (with its subagents) passed through the Redaction service in
 * context (the one output boundary: `--no-redact` provides it off), built and
 * rendered; the header's cost is the session's own (the source's stated cost,
 * else `prices`; null when a model is not priced). Fails as
 * {@link loadReplaySource}.
 */
export const replayHtml = (
  id: string,
  prices: PriceTable | null = bundledPrices
): Effect.Effect<string, ReplayError, Index | Redaction> =>
  Effect.gen(function*() {
    const { source, sessionUid } = yield* replaySourceOf(id)
    const input = visibleStrings(replayInput(yield* shareableReplaySource(source)))
    // The session's cost as the index counts it (tester12 F6: a resumed session's copies counted again), by the one
    // computation `show`, `sessions` and `usage` make (tester30b F4: priced response by response, the sum of doubles
    // differed from theirs in the last digits).
    const summary = (yield* usageBySession(prices, [sessionUid])).get(sessionUid)
    const costUsd = summary?.costUsd ?? null
    // (tester31a F5) what the cost leaves out or sets aside, and where responses count instead, as `show` says them;
    // the models and uids named from the index shown as a shareable output shows them (redacted, keyed).
    const text = yield* shownText
    const ids = yield* shownIds
    const model = (m: string | null) => (m === null ? null : text(m))
    const costCaveats = {
      ...(summary !== undefined && summary.unpriced.length > 0 ? { unpriced: summary.unpriced.map((u) => ({ ...u, model: model(u.model) })) } : {}),
      ...(summary?.longContextUnpriced !== undefined ? { longContextUnpriced: summary.longContextUnpriced.map((u) => ({ ...u, model: model(u.model) })) } : {}),
      ...(summary?.fastUnpriced !== undefined ? { fastUnpriced: summary.fastUnpriced.map((u) => ({ ...u, model: model(u.model) })) } : {}),
      ...(summary?.runsSetAside !== undefined ? { runsSetAside: summary.runsSetAside } : {})
    }
    const countedElsewhere = ((yield* usageElsewhereBySession([sessionUid])).get(sessionUid) ?? []).map((c) => ({
      ...c,
      sessionId: visibleControls(c.sessionId),
      sessionUid: ids.sessionUid(c.sessionUid)
    }))
    const redaction = (yield* Redaction).enabled ? "redacted" as const : "none" as const
    return renderReplay({ ...input, session: { ...input.session, header: { ...input.session.header, costUsd, costCaveats, countedElsewhere, redaction } } })
  })
