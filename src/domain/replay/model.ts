/**
 * What an HTML replay shows (issue 15): one session, its header and its
 * entries in order, with its subagent sessions nested under the call (or the
 * runtime fact) that spawned them. Plain data, every string a session's
 * content or metadata: the one value a redaction step turns into its
 * shareable form before {@link renderReplay} writes it out.
 *
 * @module
 */
import type { ParseWarning, ProviderId, TranscriptDiagnostic } from "../model.js"
import type { CostCaveats } from "../render.js"
import type { CountedElsewhere, UsageTotals } from "../usage.js"

/** Counts of a replayed session (its own events; its subagents' are in theirs). */
export interface ReplayCounts {
  /** Normalized events of the session. */
  readonly events: number
  /** Transcript turns (user, assistant, system). */
  readonly turns: number
  /** Tool calls, and how many of them failed (`isError`). */
  readonly toolCalls: number
  readonly toolErrors: number
  /** Context compactions (`summary` events). */
  readonly compactions: number
  /** Events that are not conversation (runtime facts such as Muse Code's `subagent.control.*`). */
  readonly runtimeEvents: number
  /** Subagent sessions nested in this one (direct children). */
  readonly subagents: number
}

/**
 * The header of a replayed session.
 *
 * - `startedAt` / `endedAt`: RFC 3339 or null; `durationMs` the span between
 *   them in milliseconds, null when either is unknown.
 * - `tokens`: the session's token usage (the index's counting when the
 *   source gives it, `ReplaySource.usage`; else `usageTotals` of its
 *   events), null where the source reports none.
 * - `costUsd`: the session's cost in US dollars, null when not known (the
 *   replay builder leaves it null; a pricing step fills it in).
 * - `parseWarnings`: the source's lines skipped as unreadable (by kind, with
 *   a count and the first 1-based line; e.g. `too-deep`, `malformed-json`),
 *   as the index's discovery summary of the session has them; `diagnostics`:
 *   what else was left out or shown apart (e.g. `orphan-tool-output`: tool
 *   results whose call was not read, shown as blocks of their own), as
 *   `show --format markdown` lists them. Empty when there are none.
 * - `costCaveats`: what the cost leaves out or sets aside (models without a
 *   price or a long-context price, AgentMux runs whose stated total is set
 *   aside), as `usage` notes them; `countedElsewhere`: the sessions some of
 *   its responses count in instead (docs/usage-and-cost.md "Copies of a
 *   response"). A pricing step fills them in, as `costUsd` (empty when
 *   there are none); until then they are absent, and a null cost is not
 *   shown (once priced, it shows as unknown).
 */
export interface ReplayHeader {
  readonly sessionId: string
  readonly provider: ProviderId
  readonly title: string | null
  readonly model: string | null
  readonly workspace: string | null
  readonly startedAt: string | null
  readonly endedAt: string | null
  readonly durationMs: number | null
  readonly counts: ReplayCounts
  readonly tokens: UsageTotals | null
  readonly costUsd: number | null
  readonly costCaveats?: CostCaveats
  readonly countedElsewhere?: ReadonlyArray<CountedElsewhere>
  readonly parseWarnings: ReadonlyArray<ParseWarning>
  readonly diagnostics: ReadonlyArray<TranscriptDiagnostic>
  /**
   * Whether the page's text was redacted (`redacted`) or is the session as stored (`none`: `replay --no-redact`),
   * said in the header (tester31b F1: an unredacted page looked like a redacted one); absent: not said (the
   * domain's builder does not know; `replayHtml` sets it).
   */
  readonly redaction?: "redacted" | "none"
}

/** A runtime fact (an event of a kind that is not conversation): its kind, time and one-line text. */
export interface ReplayFact {
  readonly kind: string
  readonly at: string | null
  readonly text: string | null
  /** Subagent sessions this fact spawned or bound (Muse Code `child_session_bound`). */
  readonly subagents: ReadonlyArray<ReplaySession>
}

/**
 * A block of a turn, or a marker between turns.
 *
 * - `text` / `thinking`: a message's or the reasoning's text;
 * - `tool`: a call with its input (canonical for Bash, Edit, Write, Read),
 *   its result (null when none came) and `isError` (true: it failed; null:
 *   the source does not say), and the subagent sessions it spawned;
 * - `compaction`: a context compaction (metadata only, its summary is never
 *   replayed, seed 000);
 * - `facts`: consecutive runtime facts;
 * - `orphan`: a tool result whose call is not among the session's events
 *   (its line was skipped: too deep, torn; diagnostic `orphan-tool-output`):
 *   its call id (null when the result names none), its text and `isError`,
 *   shown as a block of its own where it came; `linesSkipped`: whether the
 *   session's source skipped lines (`parseWarningTally`), so the call may
 *   have been one of them; else no call with its id was ever in the session.
 *
 * `at` is the RFC 3339 time of the event the block comes from, or null.
 */
export type ReplayBlock =
  | { readonly type: "text"; readonly at: string | null; readonly text: string }
  | { readonly type: "thinking"; readonly at: string | null; readonly text: string }
  | {
    readonly type: "tool"
    readonly at: string | null
    readonly id: string
    readonly name: string
    readonly input: unknown
    readonly result: string | null
    readonly isError: boolean | null
    readonly subagents: ReadonlyArray<ReplaySession>
  }
  | { readonly type: "compaction"; readonly at: string | null; readonly id: string; readonly trigger: string | null }
  | { readonly type: "facts"; readonly at: string | null; readonly facts: ReadonlyArray<ReplayFact> }
  | {
    readonly type: "orphan"
    readonly at: string | null
    readonly id: string | null
    readonly result: string
    readonly isError: boolean | null
    readonly linesSkipped: boolean
  }

/** A turn: consecutive blocks of one role (the transcript's turns), at the time of its first block. */
export interface ReplayTurn {
  readonly type: "turn"
  readonly role: "user" | "assistant" | "system"
  readonly at: string | null
  readonly blocks: ReadonlyArray<ReplayBlock>
}

/** An entry of a replayed session: a turn, or a compaction, runtime facts or an orphan tool result between turns. */
export type ReplayEntry = ReplayTurn | Extract<ReplayBlock, { readonly type: "compaction" | "facts" | "orphan" }>

/**
 * One replayed session: its header, its entries in order, and the subagent
 * sessions whose spawning call or event is not in it (`unplaced`, shown at
 * its end).
 */
export interface ReplaySession {
  readonly header: ReplayHeader
  readonly entries: ReadonlyArray<ReplayEntry>
  readonly unplaced: ReadonlyArray<ReplaySession>
}

/** The input of {@link renderReplay}: the session to replay. */
export interface ReplayInput {
  readonly session: ReplaySession
}
