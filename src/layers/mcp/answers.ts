/**
 * What the MCP server answers (issue 16), as library calls over the
 * {@link Index} (opened read-only by the server) and the {@link Redaction}
 * service: every string an answer carries from a session (titles,
 * workspaces, event texts, the transcript) is redacted here, before it is
 * paged or clipped, so no secret is split across two answers. Ids and
 * cursors are kept as they are, so a hit can be cited (event id) and
 * resumed (cursor). The tool table (`./server.ts`) decodes the arguments
 * with the schemas below and calls these.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { cursorIsFor, eventCheck, peekCursor } from "../../domain/cursor.js"
import { cursorNames, isShownCursor, peekShownCursor, shownCursor, shownCursorIsFor } from "../../domain/shown-cursor.js"
import { checkKind, KIND_REMEDY } from "../../domain/kinds.js"
import { InvalidArgument, InvalidCursor, ResourceLimitExceeded, SourceNotFound, type StoreUnavailable } from "../../domain/errors.js"
import type { SessionEvent } from "../../domain/model.js"
import { rangeBound } from "../../domain/timestamps.js"
import { eventMarkdown, markdownCode, markdownField, markdownTitle, visibleControls } from "../../domain/render.js"
import {
  clipLength,
  decodePageCursor,
  encodePageCursor,
  pageAt,
  peekPageCursor,
  textDigest,
  type TranscriptText,
  transcriptText
} from "../../domain/transcript-pages.js"
import { Index, type IndexShape, type SearchFilter, type SearchHit, type SessionRow, type SessionStatus } from "../../services/Index.js"
import { compileQuery, positiveQuery, type QueryNode, searchFoldNote } from "../../domain/search/query.js"
import { RANK_WINDOW } from "../../domain/search/limits.js"
import { visibleMatches, visibleScores, type VisibleDoc, visibleWords } from "../../domain/search/visible.js"
import { searchableText, snippetOf } from "../../domain/search/text.js"
import * as Option from "effect/Option"
import { Redaction, type RedactionShape } from "../../services/Redaction.js"
import { redactJoints, sameResponseText } from "../../domain/redaction/joints.js"
import { mapYielding, redactJointsYielding, redactYielding, responseRuns, runSteps } from "../share.js"
import { attempt, Reruns } from "../../domain/redaction/pausable.js"
import { EVENT_STRUCTURAL_FIELDS, restatable, SESSION_RESTATED_MIN, sessionRedactor, type SessionRedactorStart } from "../../domain/redaction/redact.js"
import type { ShownIds } from "../../domain/shown-ids.js"
import { isClipped, TITLE_MAX_CHARS, titleSourceIn } from "../../domain/redaction/clipped.js"
import { findCompleteSession, loadSession, machineFilter, searchSessionFilter } from "../index/queries.js"
import { incompleteNote } from "../../domain/incomplete.js"
import * as Registry from "../registry.js"
import { workspacePath } from "../workspace-path.js"
import { inWorkspaceFolder, workspaceFolder } from "../../domain/search/workspace.js"

/** The URI of a session's resource: `session://<uid>`. */
export const sessionUri = (uid: string): string => `session://${uid}`

// ---------------------------------------------------------------- arguments

const PositiveInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/**
 * The largest `maxChars` of `get_session` and `get_events` (characters of transcript or event text): a page of
 * this many characters of ordinary text (UTF-8 up to 3 bytes a character) fits the 8 MiB line an answer may be
 * (`maxLineBytes` of `./framing.ts`) though the answer holds its text twice (as text content and structured
 * content). A larger budget is refused `-32602` as an argument error, named in the tools' input schemas
 * (`maximum`). Within it an answer may still be too long (`-32602` `RESOURCE_LIMIT_EXCEEDED`, naming the line's
 * bound): text dense in escapes, or `get_events`' fields of each event besides its text (ids, cursors) for many events.
 */
export const MAX_CHARS_LIMIT = 1_000_000
/** A `maxChars` argument: an integer from 1 to {@link MAX_CHARS_LIMIT}. */
const MaxChars = PositiveInt.pipe(Schema.lessThanOrEqualTo(MAX_CHARS_LIMIT))

/** What the `machine` argument of `list_sessions` and `search_sessions` is (`sessions --machine`, `search --machine`). */
const MACHINE_ARGUMENT =
  "Only sessions from this machine, named as answers show it (the machine they were imported or pushed from; exact; with redaction on, the name as shown, e.g. ~/laptop, matches every machine shown so). A local SQLite index names no machines: INVALID_ARGUMENT there."

/** Arguments of `list_sessions`. */
export const ListSessionsParams = Schema.Struct({
  provider: Schema.optional(Schema.Literal(...Registry.providerIds).annotations({ description: "Only sessions of this provider." })),
  since: Schema.optional(Schema.String.annotations({ description: "Only sessions active at or after this time: RFC 3339, or a date YYYY-MM-DD (UTC)." })),
  until: Schema.optional(Schema.String.annotations({ description: "Only sessions started at or before this time: RFC 3339, or a date YYYY-MM-DD (UTC, the whole day)." })),
  workspace: Schema.optional(Schema.String.annotations({ description: "Only sessions whose workspace / working directory is this folder or below it (a leading ~ is the home folder)." })),
  machine: Schema.optional(Schema.NonEmptyString.annotations({ description: MACHINE_ARGUMENT })),
  limit: Schema.optional(PositiveInt.pipe(Schema.lessThanOrEqualTo(10_000)).annotations({ description: "At most this many sessions, the latest first (default 50, at most 10000)." }))
})

/** Arguments of `search_sessions`: the query syntax and filters of `session-ingest search`. */
export const SearchSessionsParams = Schema.Struct({
  query: Schema.NonEmptyString.annotations({
    description: "Words, \"exact phrases\", prefix*, AND / OR / NOT (or -word), parentheses. Identifiers (file paths, function names, error codes, UUIDs, SHAs) are found as written."
  }),
  provider: Schema.optional(Schema.Literal(...Registry.providerIds).annotations({ description: "Only events of this provider's sessions." })),
  since: Schema.optional(Schema.String.annotations({ description: "Only events at or after this time: RFC 3339, or a date YYYY-MM-DD (UTC)." })),
  until: Schema.optional(Schema.String.annotations({ description: "Only events at or before this time: RFC 3339, or a date YYYY-MM-DD (UTC, the whole day)." })),
  session: Schema.optional(Schema.NonEmptyString.annotations({ description: "Only this session (its id, or its uid as answers give it: hses_…, or ses_… on a server run with --no-redact)." })),
  workspace: Schema.optional(Schema.String.annotations({ description: "Only sessions whose workspace is this folder or below it (a leading ~ is the home folder)." })),
  role: Schema.optional(Schema.Literal("user", "assistant", "system").annotations({ description: "Only events of this role." })),
  kind: Schema.optional(Schema.NonEmptyString.annotations({ description: "Only events of this kind: message, thinking, tool-call, tool-result, summary, …" })),
  machine: Schema.optional(Schema.NonEmptyString.annotations({ description: MACHINE_ARGUMENT })),
  limit: Schema.optional(PositiveInt.pipe(Schema.lessThanOrEqualTo(1000)).annotations({ description: "At most this many hits, best first (default 20)." }))
})

/** Arguments of `get_session`. */
export const GetSessionParams = Schema.Struct({
  id: Schema.NonEmptyString.annotations({ description: "The session: its id, its uid as answers give it (hses_…, or ses_… on a server run with --no-redact), or a prefix of either that names one session." }),
  maxChars: Schema.optional(MaxChars.annotations({ description: "The page's budget in characters (UTF-16 code units) of transcript text (default 20000, at most 1000000); a page never ends inside a character or a redaction marker, and passes the budget only to hold one character (an emoji, a letter with its marks), or one marker, whole." })),
  cursor: Schema.optional(Schema.NonEmptyString.annotations({ description: "The nextCursor of the previous get_session answer: the next page. Absent: the first page." }))
})

/** Arguments of `get_events`. */
export const GetEventsParams = Schema.Struct({
  id: Schema.NonEmptyString.annotations({ description: "The session: its id, its uid as answers give it (hses_…, or ses_… on a server run with --no-redact), or a prefix of either that names one session." }),
  eventId: Schema.optional(Schema.NonEmptyString.annotations({ description: "Answer the events around this event (with `context` events on each side)." })),
  context: Schema.optional(Schema.Int.pipe(Schema.between(0, 1000)).annotations({ description: "With eventId: how many events before and after it (default 5)." })),
  cursor: Schema.optional(Schema.NonEmptyString.annotations({ description: "Answer the events after the event this cursor belongs to (an event's `cursor`, or a nextCursor)." })),
  limit: Schema.optional(PositiveInt.pipe(Schema.lessThanOrEqualTo(100_000)).annotations({ description: "Without eventId: at most this many events (default 50)." })),
  maxChars: Schema.optional(MaxChars.annotations({ description: "Budget in characters (UTF-16 code units) of event text for the whole answer (default 20000, at most 1000000); a longer text is clipped (truncated: true), never inside a character or a redaction marker." }))
})

const DEFAULT_LIST_LIMIT = 50
const DEFAULT_MAX_CHARS = 20_000
const DEFAULT_CONTEXT = 5
const DEFAULT_EVENT_LIMIT = 50

// ---------------------------------------------------------------- answers

/** A session as answers list it (strings from the session redacted). */
export interface SessionBrief {
  /** The native session id. */
  readonly id: string
  /** The index's uid (`ses_…`): unique even when several sources hold one native id. */
  readonly uid: string
  /** `session://<uid>`: the session's resource. */
  readonly uri: string
  readonly provider: string
  readonly title: string | null
  readonly workspace: string | null
  /** The machine the session's source is on, in a team (PostgreSQL) index; null in a local (SQLite) one. */
  readonly machine: string | null
  /** RFC 3339 or null. */
  readonly firstAt: string | null
  readonly lastAt: string | null
  readonly eventCount: number
  /**
   * `incomplete` when the session is not imported whole yet (its source's import or push stopped part-way or is
   * running: `eventCount` events are a part of it; `get_session` and `get_events` refuse it), else `complete`.
   */
  readonly status: SessionStatus
}

/**
 * Whether a session's title is withheld (shown as null, never a search hit) under `r`: with redaction on, the title of
 * a session not imported whole yet (`incomplete`). Its title is stored with the session's row before the events that
 * decide its redaction (its first prompt, a later tool call naming a value as a password) may be imported, so no
 * redaction of it can be decided until the import completes it (session 33, tester33a F2).
 */
const titleWithheld = (r: RedactionShape, status: SessionStatus): boolean => r.enabled && status === "incomplete"

/**
 * A title as every answer gives it (list_sessions, resources/list, get_session, the `session://` resource, search
 * hits): its control characters and bidirectional controls written visibly (`visibleControls`, as the CLI's
 * `sessions`, `show` and the replay show them: `\u202e`, `\x1b`), so a client that renders the value cannot be made
 * to reverse or recolour the rest of its line (tester33c F6). The wire's `escapeJsonControls` (framing.ts) escapes
 * them in the JSON text only: a client's JSON parser gives them back raw. Idempotent.
 */
const shownTitle = (title: string | null): string | null => (title === null ? null : visibleControls(title))

/**
 * A session as answers list it (its title null while {@link titleWithheld}); its title cut from `titleSource` when given (the text it was cut from, whole:
 * redacted before it is cut, tester22c F1), with each of `known` (the secrets its events decide on:
 * `sessionRedactor`) hidden (tester25a F12).
 */
const brief = (r: RedactionShape, s: SessionRow, titleSource?: string, known?: ReadonlyMap<string, string>): SessionBrief => ({
  // a session id copied from the source (`sidechain-<uuid>`) as every redacted output shows it (tester38 F2)
  id: r.id(s.sessionId),
  uid: r.ids.sessionUid(s.sessionUid),
  uri: sessionUri(r.ids.sessionUid(s.sessionUid)),
  provider: s.provider,
  title: s.title === null || titleWithheld(r, s.status) ? null : shownTitle(r.title(s.title, known, titleSource)),
  workspace: s.workspace === null ? null : r.text(s.workspace),
  machine: s.machine === null ? null : r.text(s.machine),
  firstAt: s.firstAt,
  lastAt: s.lastAt,
  eventCount: s.eventCount,
  status: s.status
})

/** How many of a session's first events are read for the text its title was cut from (its first prompt). */
const TITLE_SOURCE_EVENTS = 50
/** How many events a page {@link titleSourceRead} reads them by. */
const TITLE_SOURCE_PAGE = 5

/**
 * The text the session's title was cut from (`titleSourceIn`: its first prompt, whole), looked for among its
 * first {@link TITLE_SOURCE_EVENTS} events; undefined when its title was not cut, redaction is off, or none of
 * them is it (a title from a summary or a `/rename`).
 */
const titleSourceRead = (r: RedactionShape, index: IndexShape, s: SessionRow): Effect.Effect<string | undefined, StoreUnavailable> =>
  !r.enabled || s.title === null || !isClipped(s.title, TITLE_MAX_CHARS)
    ? Effect.succeed(undefined)
    : Effect.map(
      // a few events a page: the first prompt is most often among a session's first events
      Stream.runHead(Stream.filterMap(Stream.take(index.eventsStream(s.sessionUid, TITLE_SOURCE_PAGE), TITLE_SOURCE_EVENTS), (e) =>
        Option.fromNullable(titleSourceIn(s.title, [e.text])))),
      Option.getOrUndefined
    )

/**
 * Whether a title may state a secret a session's events decide on: such a secret (`sessionRedactor`'s known ones)
 * has a secret's shape ({@link restatable}, {@link SESSION_RESTATED_MIN} characters or more), and a text holds a
 * part with that shape only when it has it whole (its kinds of characters are the part's or more), or when it holds a
 * marker (a form of a secret custom patterns redact a piece of) or is too long to tell. A title without (`fix the login
 * page`) is shown without reading its session.
 */
const titleMayHoldSecret = (title: string): boolean =>
  title.length > 512 || title.includes("[REDACTED:") || restatable(title, SESSION_RESTATED_MIN)

/** The most titles {@link shownTitles} keeps for one index and redaction (then it starts again). */
const SHOWN_TITLES_MAX = 20_000

/**
 * The titles as {@link briefs} shows them, by session state (`keyOf`: a session an import changed is read anew),
 * per index and redaction: reading a title's source costs a query (~1 ms a session), so `list_sessions` and the
 * resource list, asked again, read only the sessions they have not shown yet.
 */
const shownTitles = new WeakMap<IndexShape, WeakMap<RedactionShape, Map<string, string | null>>>()

/**
 * {@link brief} of each of `rows`, each title cut from its source when it was cut ({@link titleSourceRead}), and with
 * redaction on, each secret its session's events decide on hidden in it (tester25a F12: a value the first prompt states
 * and a later tool call names as a password): the session's events are read once for them ({@link sessionSecretsKept})
 * when the title may state one ({@link titleMayHoldSecret}), once per session state ({@link shownTitles}).
 */
const briefs = (r: RedactionShape, index: IndexShape, rows: ReadonlyArray<SessionRow>) =>
  Effect.gen(function*() {
    let byRedaction = shownTitles.get(index)
    if (byRedaction === undefined) shownTitles.set(index, byRedaction = new WeakMap())
    let kept = byRedaction.get(r)
    if (kept === undefined) byRedaction.set(r, kept = new Map())
    const titles = kept
    return yield* Effect.forEach(rows, (s) => {
      const key = keyOf(s)
      const title = titles.get(key)
      if (title !== undefined) return Effect.succeed({ ...brief(r, s), title })
      if (titleWithheld(r, s.status)) return Effect.succeed(brief(r, s))
      const read: Effect.Effect<{ readonly source: string | undefined; readonly known?: ReadonlyMap<string, string> }, StoreUnavailable> =
        r.enabled && s.title !== null && titleMayHoldSecret(s.title)
          ? Effect.map(sessionSecretsKept(r, index, s.sessionUid), (k) => ({ source: k.titleSource, known: k.secrets }))
          : Effect.map(titleSourceRead(r, index, s), (source) => ({ source }))
      // (a title cut from a huge first prompt redacts it whole: pausing, `redactYielding`)
      return Effect.flatMap(read, ({ known, source }) =>
        Effect.map(redactYielding(() => brief(r, s, source, known)), (b) => {
          if (titles.size >= SHOWN_TITLES_MAX) titles.clear()
          titles.set(key, b.title)
          return b
        }))
    })
  })

/** `since` / `until`: RFC 3339, or a date (UTC; `until` takes the whole day). */
const bound = (name: string, value: string | undefined, endOfDay: boolean): Either.Either<string | undefined, InvalidArgument> => {
  if (value === undefined) return Either.right(undefined)
  const r = rangeBound(value, endOfDay)
  if (r._tag === "ok") return Either.right(r.value)
  return Either.left(
    new InvalidArgument({
      message: `${name} ${JSON.stringify(value)} is not a date (${r.problem}).`,
      remediation: "Use YYYY-MM-DD or an RFC 3339 time with a zone, e.g. 2026-10-01T12:00:00Z."
    })
  )
}

/**
 * With redaction on, whether a workspace lies in the folder a client filters by, so that the filter never tells
 * what redaction hides: a folder that redaction changes (`/home/bob`, `~`: a user's home) is matched against the
 * workspace as shown (`/home/bob` and `/home/alice` are both `~`, and match the same sessions); a folder shown as
 * itself (`/`, `/home`, `/srv/app`: nothing in it hidden) matches the workspaces that are it or below it, as the
 * index's filter does, and those shown below it. Null when redaction is off or no workspace is given (the index
 * filters by the real path).
 */
const shownWorkspaceFilter = (r: RedactionShape, workspace: string | undefined): ((w: string | null) => boolean) | null => {
  if (!r.enabled || workspace === undefined) return null
  const real = workspacePath(workspace)
  const shownReal = r.text(real)
  // `~/…` as written is also the shown form of any home folder's `…`; expanded, the server's own home.
  const folders = [...new Set([shownReal, ...(workspace === "~" || workspace.startsWith("~/") ? [workspace] : [])])].map(workspaceFolder)
  const plain = shownReal === real ? workspaceFolder(real) : null
  return (w) => {
    if (w === null) return false
    if (plain !== null && inWorkspaceFolder(plain, w)) return true
    const shown = r.text(w)
    return folders.some((f) => inWorkspaceFolder(f, shown))
  }
}

/**
 * The machines a `machine` argument names (tester28a F14), as the index filter takes them: with redaction on, the
 * index's machines whose name as shown is the argument (the name answers give, `~/laptop` or `[REDACTED:email]`:
 * every machine shown so), and never one by its name as imported when redaction changes it, which names no machine
 * as a name no machine has does: the filter cannot confirm a guess of what redaction hides. With redaction off, or
 * no argument, the argument as it is (the index matches it exactly). Checked first by {@link machineFilter} (a
 * SQLite index names no machines).
 */
const shownMachineFilter = (
  p: { readonly machine?: string | undefined }
): Effect.Effect<string | ReadonlyArray<string> | undefined, InvalidArgument | StoreUnavailable, Index | Redaction> =>
  Effect.gen(function*() {
    const machine = yield* machineFilter(p.machine, "machine")
    const r = yield* Redaction
    if (machine === undefined || !r.enabled) return machine
    const machines = yield* (yield* Index).machines
    return machines.filter((m) => r.text(m) === machine)
  })

/** What `list_sessions` answers: the sessions (latest activity first), how many, and whether the limit left some out. */
export interface ListSessionsAnswer {
  readonly sessions: ReadonlyArray<SessionBrief>
  readonly count: number
  /** True when more sessions match than `limit` let through. */
  readonly more: boolean
  /** How many of `sessions` are incomplete (`status`), and a note saying what that means and what completes them (null: none). */
  readonly incomplete: number
  readonly note: string | null
}

/**
 * `list_sessions`: the sessions of the index matching the filters, latest
 * activity first, at most `limit` (default 50). `InvalidArgument` for a
 * date that does not parse or `since` after `until`.
 */
export const listSessions = (
  p: typeof ListSessionsParams.Type
): Effect.Effect<ListSessionsAnswer, InvalidArgument | StoreUnavailable, Index | Redaction> =>
  Effect.gen(function*() {
    const since = yield* bound("since", p.since, false)
    const until = yield* bound("until", p.until, true)
    if (since !== undefined && until !== undefined && Date.parse(since) > Date.parse(until)) {
      return yield* new InvalidArgument({
        message: `since ${p.since} is after until ${p.until}: a range must run forward.`,
        remediation: "Swap the two dates."
      })
    }
    const limit = p.limit ?? DEFAULT_LIST_LIMIT
    const machine = yield* shownMachineFilter(p)
    const index = yield* Index
    const r = yield* Redaction
    const shown = shownWorkspaceFilter(r, p.workspace)
    const rows = shown === null
      ? yield* index.sessions({
        provider: p.provider,
        machine,
        since,
        until,
        workspace: p.workspace === undefined ? undefined : workspacePath(p.workspace),
        limit: limit + 1
      })
      : (yield* index.sessions({ provider: p.provider, machine, since, until })).filter((s) => shown(s.workspace))
    const listed = rows.slice(0, limit)
    const sessions = yield* briefs(r, index, listed)
    const incomplete = listed.filter((s) => s.status === "incomplete")
    return {
      sessions,
      count: sessions.length,
      more: rows.length > limit,
      incomplete: incomplete.length,
      // the machines it names as the answers show them (redacted)
      note: incomplete.length === 0 ? null : incompleteNote(incomplete.map((s) => ({ ...s, machine: s.machine === null ? null : r.text(s.machine) })), "")
    }
  })

/** One hit of `search_sessions`: where (session, event, cursor) and the matching text, redacted. */
export interface SearchHitAnswer {
  readonly sessionId: string
  readonly sessionUid: string
  readonly provider: string
  /** The machine the session's source is on, in a team (PostgreSQL) index; null in a local (SQLite) one. */
  readonly machine: string | null
  readonly title: string | null
  /** Null for a hit on the session's title. */
  readonly eventId: string | null
  readonly kind: string | null
  readonly role: string | null
  readonly occurredAt: string | null
  /**
   * `get_events` with this cursor continues right after the event; with `eventId` it shows its context. With redaction
   * on, a shown cursor (as {@link EventBrief}'s); null for a title hit.
   */
  readonly cursor: string | null
  /** Which field matched (`text`, `input`, `title`) and a window of it around the match (its text alone: no match offsets, unlike `search --json`'s `marks`). */
  readonly field: string
  readonly snippet: string
  /**
   * BM25, lower is better: with redaction on, computed over the redacted texts of the hits ranked together
   * (`visibleScores`), else the index's own (`search`'s).
   */
  readonly score: number
  /** The hit's session's status, as `list_sessions` gives it: `incomplete` marks a hit of a session not imported whole yet. */
  readonly sessionStatus: SessionStatus
}

/** A candidate of a redacted search: the index's hit, its redacted fields, and its words as {@link visibleWords} reads them. */
interface Visible {
  readonly hit: SearchHit
  readonly title: string | null
  readonly fields: ReadonlyArray<{ readonly field: "text" | "input" | "title"; readonly text: string }>
  readonly doc: VisibleDoc
}

/** How many hits a redacted search reads and redacts between two yields to the scheduler ({@link visibleHits}). */
const HITS_SLICE = 50

/**
 * Each of the index's hits read as a client sees it: its event (or title) redacted with its session's secrets and
 * its neighbours (a secret cut in two across two consecutive assistant text events is redacted at their joint), and the
 * words of that redacted text ({@link visibleWords}); the hits whose redacted text does not satisfy the query are
 * left out. The index searches the text as imported, and a match that lay only inside a secret, an email or a home
 * path would otherwise tell a client, one prefix query at a time, what the redacted answer hides.
 */
const visibleHits = (r: RedactionShape, index: IndexShape, tree: QueryNode, hits: ReadonlyArray<SearchHit>, titles: boolean) =>
  Effect.gen(function*() {
    const kept: Array<Visible> = []
    // the index's fold: an index read without migrating matched the query in an older one (tester30c F7)
    const fold = index.searchFold
    let done = 0
    const secretsBySession = new Map<string, SessionSecrets>()
    const bySession = new Map<string, Array<SearchHit>>()
    for (const h of hits) {
      const same = bySession.get(h.sessionUid)
      if (same === undefined) bySession.set(h.sessionUid, [h])
      else same.push(h)
    }
    for (const [sessionUid, sessionHits] of bySession) {
      const { secrets, titleSource } = yield* sessionSecrets(r, index, secretsBySession, sessionUid)
      const contexts = yield* hitContexts(index, sessionUid, sessionHits)
      // each run of the session's hits redacted (its events, then its joints), by the run (`hitContexts` shares one
      // array between the hits of a run)
      const redactedRuns = new Map<ReadonlyArray<SessionEvent>, ReadonlyArray<SessionEvent>>()
      // The title with its session's secrets (those of its events, as the hit's event below): the first prompt's,
      // redacted whole before it is cut when the title was cut from it (tester22c F1).
      const titles = new Map<string, string>()
      const titleOf = (t: string): Effect.Effect<string> => {
        const v = titles.get(t)
        return v !== undefined ? Effect.succeed(v) : Effect.tap(redactYielding(() => r.title(t, secrets, titleSource)), (x) => titles.set(t, x))
      }
      // whether the session's title is among the candidates (the index's title hit, or one made below)
      let titled = sessionHits.some((h) => h.eventUid === null && h.eventId === null)
      for (const h of sessionHits) {
        // a yield every HITS_SLICE hits (tester30b F1): the server answers a ping and a cancel lands meanwhile
        if (++done % HITS_SLICE === 0) yield* Effect.yieldNow()
        // an incomplete session's title is withheld: neither shown nor matched (`titleWithheld`)
        const title = h.title === null || titleWithheld(r, h.sessionStatus) ? null : yield* titleOf(h.title)
        if (h.eventUid === null && h.eventId === null) {
          if (title === null) continue
          const doc = [visibleWords(title, fold)]
          if (visibleMatches(tree, doc, fold)) kept.push({ hit: h, title, fields: [{ field: "title", text: title }], doc })
          continue
        }
        const around = contexts.get(h)
        if (around === undefined) continue
        // With the run of consecutive assistant text and thinking it is in (`around.events`: a secret cut across its
        // blocks is redacted as one text), redacted once for all its hits (tester32a F13: each hit of a run of 22,000
        // assistant texts redacted the whole run again, quadratic: 80 s of processor time for a run of 3,000).
        let shown = redactedRuns.get(around.events)
        if (shown === undefined) {
          const seen = yield* mapYielding(around.events, (e) => (secrets.size === 0 ? r.event(e) : r.eventIn(e, secrets)))
          shown = around.events.length < 2 ? seen : yield* redactJointsYielding(r.text, seen)
          redactedRuns.set(around.events, shown)
        }
        const t = searchableText(shown[around.at])
        const doc = [visibleWords(t.text, fold), visibleWords(t.input, fold)]
        if (visibleMatches(tree, doc, fold)) {
          kept.push({ hit: h, title, fields: [{ field: "text", text: t.text }, { field: "input", text: t.input }], doc })
        }
        // The title as a hit of its own when the index found its source (the first prompt) but not the title: the
        // title is cut from the redacted source, so it may hold words past the cut of the title as imported (a
        // secret longer than its marker) that the index's title does not (tester22c F1).
        if (title !== null && !titled && titleSource !== undefined && around.events[around.at].text === titleSource) {
          titled = true
          const titleDoc = [visibleWords(title, fold)]
          if (visibleMatches(tree, titleDoc, fold)) {
            kept.push({
              hit: { ...h, eventUid: null, eventId: null, kind: null, role: null, occurredAt: null, sequence: null, cursor: null },
              title,
              fields: [{ field: "title", text: title }],
              doc: titleDoc
            })
          }
        }
      }
    }
    return kept
  })

/**
 * How far apart (in sequence) two hits of a session may lie to be read in one slice of its events: the events between
 * them cost less read in the same query than a query of their own (four, for a hit read alone).
 */
const HIT_GAP = 8

/** The most events one slice of hits asks for (past its first hit); the next hits start a slice of their own. */
const SLICE_MAX = 1000

/** Events read before a slice's first hit and past its last: enough for the run of a hit's response, most often. */
const SLICE_EDGE = 4

/**
 * The event of each hit of one session with the run of consecutive assistant text and thinking it is in (`responseRuns`:
 * itself alone when it is in none), read in slices of the session's events around its hits (`eventsAround`), in
 * sequence: a slice starts at the first hit not read yet and runs on through each next hit that lies within
 * {@link HIT_GAP} of the one before (at most {@link SLICE_MAX} events), read wider until its first hit's run is whole.
 * So the events read are bounded by the hits (the ranking window), whatever the session's size (tester29b F4: the
 * 5,000 hits of a 120,000-event session read one by one cost four queries each, 20,000 in all: 10-15 s on SQLite,
 * over a minute on PostgreSQL; reading the whole session once instead costs what the session costs).
 */
const hitContexts = (index: IndexShape, sessionUid: string, hits: ReadonlyArray<SearchHit>) =>
  Effect.gen(function*() {
    const out = new Map<SearchHit, { readonly events: ReadonlyArray<SessionEvent>; readonly at: number }>()
    // in sequence (hits without one last, each read alone)
    const pending = hits
      .filter((h) => h.eventUid !== null || h.eventId !== null)
      .sort((a, b) => (a.sequence ?? Number.MAX_SAFE_INTEGER) - (b.sequence ?? Number.MAX_SAFE_INTEGER))
    const byCursor = new Map<string, Array<SearchHit>>()
    for (const h of pending) {
      if (h.cursor === null) continue
      const same = byCursor.get(h.cursor)
      if (same === undefined) byCursor.set(h.cursor, [h])
      else same.push(h)
    }
    for (let i = 0; i < pending.length; i++) {
      const h = pending[i]
      if (out.has(h)) continue
      // how far the slice runs: through each next hit within HIT_GAP of the one before
      let last = h.sequence
      if (h.sequence !== null) {
        for (let j = i + 1; j < pending.length; j++) {
          const next = pending[j].sequence
          if (next === null || next - last! > HIT_GAP || next - h.sequence > SLICE_MAX) break
          last = next
        }
      }
      const reach = last === null || h.sequence === null ? 0 : last - h.sequence
      // read wider until the run of the first hit's response is whole in the slice (or the slice is the session's edge)
      for (let before = SLICE_EDGE, after = reach + SLICE_EDGE;; before *= 4, after *= 4) {
        const around = yield* index.eventsAround(sessionUid, h.eventUid ?? h.eventId!, before, after)
        if (Option.isNone(around)) break
        const { at, events } = around.value
        const fromStart = at < before
        const toEnd = events.length - at - 1 < after
        const isWhole = (run: { readonly from: number; readonly to: number }) =>
          (run.from > 0 || fromStart) && (run.to < events.length || toEnd)
        if (!isWhole(runAround(events, at))) continue
        // The slice's hits (by their cursor; the first hit's among them) whose run is whole in it, each run's bounds
        // found once in one pass over the slice and its events copied once, the one array every hit in it shares
        // (tester32a F13: a run of 22,000 events was walked and copied for each of its 10,000 hits: quadratic, 1 GB).
        for (let from = 0, to = 1; from < events.length; from = to, to = from + 1) {
          while (to < events.length && sameResponseText(events[to - 1], events[to])) to++
          if (!isWhole({ from, to })) continue
          let run: ReadonlyArray<SessionEvent> | undefined
          for (let x = from; x < to; x++) {
            const hitsHere = byCursor.get(events[x].cursor)
            if (hitsHere === undefined && x !== at) continue
            if (run === undefined) run = events.slice(from, to)
            const context = { events: run, at: x - from }
            if (x === at && !out.has(h)) out.set(h, context)
            for (const g of hitsHere ?? []) if (!out.has(g)) out.set(g, context)
          }
        }
        break
      }
    }
    return out
  })

/** The run of consecutive assistant text and thinking (`sameResponseText`) `events[at]` is in: its first index and its end. */
const runAround = (events: ReadonlyArray<SessionEvent>, at: number): { readonly from: number; readonly to: number } => {
  let from = at
  while (from > 0 && sameResponseText(events[from - 1], events[from])) from--
  let to = at + 1
  while (to < events.length && sameResponseText(events[to - 1], events[to])) to++
  return { from, to }
}

/** Later first (by time, then position in the session), so that equal scores are ordered by what the client sees. */
const newerFirst = (a: SearchHit, b: SearchHit): number =>
  (b.occurredAt ?? "").localeCompare(a.occurredAt ?? "") ||
  a.sessionUid.localeCompare(b.sessionUid) ||
  (b.sequence ?? -1) - (a.sequence ?? -1) ||
  (a.eventId ?? "").localeCompare(b.eventId ?? "")

/**
 * The secrets the tool inputs of the session `sessionUid` decide on (`sessionRedactor`), gathered once per search
 * (`known`, by session uid) and kept across searches for the session's state ({@link sessionSecretsKept}); none
 * when redaction is off.
 */
const sessionSecrets = (r: RedactionShape, index: IndexShape, known: Map<string, SessionSecrets>, sessionUid: string) =>
  Effect.gen(function*() {
    if (!r.enabled) return { secrets: new Map<string, string>(), titleSource: undefined, notedAt: [], printing: [] } as SessionSecrets
    let secrets = known.get(sessionUid)
    if (secrets === undefined) {
      secrets = yield* sessionSecretsKept(r, index, sessionUid)
      known.set(sessionUid, secrets)
    }
    return secrets
  })

/**
 * Computations of one index (the service instance a server uses) and redaction, by key: each started once, in a
 * fiber of its own that every caller joins, so calls that arrive together on the same session share the one
 * computation (tester22b F4: five parallel searches of a 60,000-event session each gathered its secrets, ~10 s each
 * against ~2 s alone). A computation in flight is always kept (tester39 F3: with the latest 2 transcripts kept, calls
 * over 3 sessions at once dropped each other's renderings in flight and every call rendered its session again: 20
 * calls 20.8 s against 0.9 s over 2 sessions). Of those done, the latest `max` keys used are kept, within `budget`
 * (the sum of `weigh` of those done; the latest one kept whatever it weighs); one that failed is dropped, so the next
 * call tries again. At most `permits` computations of a store run at once, the others waiting their turn (each holds a
 * whole session while it runs: 200 calls over 36 sessions held 2 GB). A caller interrupted (a cancelled request) stops
 * waiting; the computation goes on for the others and is kept.
 */
interface SharedStore<A, E> {
  readonly max: number
  readonly budget: number
  readonly weigh: (a: A) => number
  readonly permits: Effect.Semaphore
  readonly byIndex: WeakMap<IndexShape, WeakMap<RedactionShape, Array<SharedEntry<A, E>>>>
}

/** A computation of a {@link SharedStore}: `weight` is set (to `weigh` of its result) once it is done. */
interface SharedEntry<A, E> {
  readonly key: string
  readonly fiber: Fiber.RuntimeFiber<A, E>
  weight: number | undefined
}

/** A {@link SharedStore} keeping `max` results within `budget` (as `weigh` weighs them), `permits` computed at once. */
const sharedStore = <A, E>(options: { readonly max: number; readonly budget?: number; readonly weigh?: (a: A) => number; readonly permits: number }): SharedStore<A, E> => ({
  max: options.max,
  budget: options.budget ?? Infinity,
  weigh: options.weigh ?? (() => 0),
  permits: Effect.unsafeMakeSemaphore(options.permits),
  byIndex: new WeakMap()
})

/** Drops the oldest results done of `list` while more than `max` are listed or those done weigh more than `budget`. */
const evictShared = <A, E>(store: SharedStore<A, E>, list: Array<SharedEntry<A, E>>): void => {
  let weight = list.reduce((n, k) => n + (k.weight ?? 0), 0)
  for (let i = 0; i < list.length - 1 && (list.length > store.max || weight > store.budget);) {
    const k = list[i]
    if (k.weight === undefined) i++
    else {
      list.splice(i, 1)
      weight -= k.weight
    }
  }
}

/** The result of `compute` for `key` in `store` (of `index` and `r`): joined when started already, else started now. */
const shared = <A, E>(store: SharedStore<A, E>, index: IndexShape, r: RedactionShape, key: string, compute: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  // In the caller's runtime (its logger, its services), not the default one (whose logger writes to stdout).
  Effect.flatMap(Effect.runtime<never>(), (runtime) => {
    let byRedaction = store.byIndex.get(index)
    if (byRedaction === undefined) store.byIndex.set(index, byRedaction = new WeakMap())
    let kept = byRedaction.get(r)
    if (kept === undefined) byRedaction.set(r, kept = [])
    const list = kept
    const at = list.findIndex((k) => k.key === key)
    if (at >= 0) {
      const hit = list[at]
      list.splice(at, 1)
      list.push(hit)
      return Fiber.join(hit.fiber)
    }
    // Started and listed in this one synchronous step: a call arriving meanwhile finds it.
    const entry: SharedEntry<A, E> = {
      key,
      weight: undefined,
      fiber: Runtime.runFork(runtime)(store.permits.withPermits(1)(compute).pipe(
        Effect.tap((a) =>
          Effect.sync(() => {
            entry.weight = store.weigh(a)
            evictShared(store, list)
          })
        ),
        Effect.tapErrorCause(() =>
          Effect.sync(() => {
            const i = list.indexOf(entry)
            if (i >= 0) list.splice(i, 1)
          })
        )
      ))
    }
    list.push(entry)
    evictShared(store, list)
    return Fiber.join(entry.fiber)
  })

/**
 * What a redacted search reads of a whole session: the secrets its events decide on (`sessionRedactor`), and the
 * text its title was cut from (`titleSourceIn`: its first prompt, whole), when the title was cut and that text is
 * one of its events'.
 */
interface SessionSecrets {
  readonly secrets: ReadonlyMap<string, string>
  readonly titleSource: string | undefined
  /** The `sequence` of the event that noted each of `secrets`, in their order (the session's order: never decreasing). */
  readonly notedAt: ReadonlyArray<number>
  /** The calls whose command prints a secret bare (`SessionRedactor.printing`), each with its event's `sequence`, in order. */
  readonly printing: ReadonlyArray<readonly [string, number]>
}

/**
 * The state of a `sessionRedactor` that has seen the session's events whose `sequence` is below `sequence` (and
 * none of the others): the secrets they noted, in the order noted, and the secret-printing calls among them. The
 * secrets are a first part of `s.secrets` (noted in the session's order).
 */
const redactorBefore = (s: SessionSecrets, sequence: number): SessionRedactorStart => {
  let n = 0
  while (n < s.notedAt.length && s.notedAt[n] < sequence) n++
  const known: Array<readonly [string, string]> = []
  for (const entry of s.secrets) {
    if (known.length >= n) break
    known.push(entry)
  }
  return { known, printing: s.printing.filter(([, at]) => at < sequence).map(([id]) => id) }
}

/** The fields whose values a redaction keeps as they are (never noted: {@link sessionSecretsKept} need not read them). */
const KEPT_FIELDS: ReadonlySet<string> = new Set([...EVENT_STRUCTURAL_FIELDS, "rawReference.locatorClass"])

/** The secrets of the latest 16 sessions used, per index and redaction (computed once per session state). */
const secretsStore = sharedStore<SessionSecrets, StoreUnavailable>({ max: 16, permits: 2 })

/**
 * The secrets of the session `sessionUid` (`sessionRedactor` over its events, read a page at a time), gathered
 * once per session state (its uid, generation, event count and last time, as {@link renderedSession} keys a
 * transcript: a session a later import changed is read anew) and kept for the next searches ({@link secretsStore}),
 * calls that arrive together sharing one gathering ({@link shared}): gathering reads and walks every event of the
 * session (~0.8 s CPU at 30,000 events), so a search of a large session paid it on each call.
 */
const sessionSecretsKept = (r: RedactionShape, index: IndexShape, sessionUid: string) =>
  Effect.gen(function*() {
    const row = (yield* index.findSessions(sessionUid)).find((s) => s.sessionUid === sessionUid)
    const gather = Effect.gen(function*() {
      const sr = sessionRedactor(r)
      const title = row?.title ?? null
      let titleSource: string | undefined
      // the title's source is looked for in each event until found (only a title cut short has one)
      let lookForTitle = titleSourceIn(title, [title ?? ""]) !== undefined || (title !== null && isClipped(title, TITLE_MAX_CHARS))
      const notedAt: Array<number> = []
      const printing: Array<readonly [string, number]> = []
      /** `x` seen; an Effect when its redaction pauses (a huge text: `redactYielding`), to run before the next event. */
      const seen = (x: SessionEvent): Effect.Effect<void> | undefined => {
        const known = sr.known.size
        const calls = sr.printing.size
        const runs = new Reruns()
        const first = attempt(() => sr.see(x), runs)
        return first.done ? noted(x, known, calls) : Effect.zipRight(runSteps(first.work), Effect.zipRight(redactYielding(() => sr.see(x), runs), Effect.sync(() => noted(x, known, calls))))
      }
      const noted = (x: SessionEvent, known: number, calls: number): undefined => {
        for (let i = known; i < sr.known.size; i++) notedAt.push(x.sequence)
        if (sr.printing.size > calls && typeof x.toolCallId === "string") printing.push([x.toolCallId, x.sequence])
        if (lookForTitle) {
          titleSource = titleSourceIn(title, [x.text])
          if (titleSource !== undefined) lookForTitle = false
        }
      }
      if (index.forEachStoredEvent !== undefined && r.mayNote !== undefined) {
        // session 30: only the events that may note a secret are decoded and seen (`sr.needs`, the redaction's
        // prefilter over their stored JSON): the same secrets as seeing every one (~9 s CPU at 120,000 events before)
        yield* index.forEachStoredEvent(sessionUid, (e) => {
          return lookForTitle || sr.needs(e.kind, e.texts) ? seen(e.event()) : undefined
        }, 500, KEPT_FIELDS)
      } else yield* Stream.runForEach(index.eventsStream(sessionUid, 500), (x) => Effect.suspend(() => seen(x) ?? Effect.void))
      return { secrets: sr.known, titleSource, notedAt, printing } satisfies SessionSecrets
    })
    return row === undefined ? yield* gather : yield* shared(secretsStore, index, r, keyOf(row), gather)
  })

/** A note as a sentence of the MCP answer's notes: its first letter in upper case. */
const sentence = (note: string) => note.charAt(0).toUpperCase() + note.slice(1)

/**
 * A search with redaction on: the hits whose redacted event (or title) satisfies the whole query, best first, at
 * most `limit`, decided and ranked on the redacted text alone (`src/domain/search/visible.ts`), so the answer (which
 * hits, their order, their scores, their snippets) is the same whatever a redacted value is:
 * - the index is asked once, with the query's positive part ({@link positiveQuery}), for its ranking window (the
 *   newest {@link RANK_WINDOW} matches, as `session-ingest search` ranks them): every event whose redacted text
 *   matches is among the index's matches (a word of the redacted text as {@link visibleWords} reads it is a word of
 *   the text as imported), and the negated words are tried on the redacted text only;
 * - each hit is kept when its redacted text satisfies the query ({@link visibleMatches}) and scored by BM25 over the
 *   redacted texts of the hits kept ({@link visibleScores}), equal scores the later first; the index's own score and
 *   order (over the text as imported, secrets included) are not used.
 * The cost is that of the window's hits, however many of them lie inside redacted values (no further rounds).
 * A `workspace` filter is matched against the workspace as shown ({@link shownWorkspaceFilter}).
 */
const redactedSearch = (
  r: RedactionShape,
  index: IndexShape,
  query: string,
  filter: Omit<SearchFilter, "limit" | "workspace">,
  inWorkspace: ((w: string | null) => boolean) | null,
  limit: number
) =>
  Effect.gen(function*() {
    const compiled = yield* Either.match(compileQuery(query), { onLeft: (e) => Effect.fail(e), onRight: (c) => Effect.succeed(c) })
    const positive = positiveQuery(compiled.tree)
    const asked = positive.hasNegation ? positive.query : query
    const found = yield* index.search(asked, { ...filter, limit: Math.max(RANK_WINDOW, limit) })
    // titles are searched as the index searches them: not with a time, role or kind filter
    const titles = filter.since === undefined && filter.until === undefined && filter.role === undefined && filter.kind === undefined
    const kept = yield* visibleHits(r, index, compiled.tree, inWorkspace === null ? found : found.filter((h) => inWorkspace(h.workspace)), titles)
    const scores = visibleScores(compiled.tree, kept.map((k) => k.doc), index.searchFold)
    return kept
      .map((k, i) => ({ k, score: scores[i] }))
      .sort((x, y) => x.score - y.score || newerFirst(x.k.hit, y.k.hit))
      .slice(0, limit)
      .map(({ k, score }): SearchHit => ({ ...k.hit, title: shownTitle(k.title), score, snippet: snippetOf(compiled.tree, k.fields) }))
  })

/**
 * `search_sessions`: the index's full-text search (the same query syntax,
 * filters and ranking as `session-ingest search`), each hit with its session,
 * event id and cursor, so it can be cited and resumed; titles and snippets
 * pass through the Redaction service. Fails with `INVALID_SEARCH_QUERY` for
 * bad syntax (with its position) and `INVALID_ARGUMENT` for a bad date or a
 * `kind` the rule of `src/domain/kinds.ts` refuses (`tool_result`: the kind
 * meant is named), as `search --kind` does.
 */
export const searchSessions = (
  p: typeof SearchSessionsParams.Type
) =>
  Effect.gen(function*() {
    const since = yield* bound("since", p.since, false)
    const until = yield* bound("until", p.until, true)
    if (p.kind !== undefined) {
      const check = checkKind(p.kind)
      if (check._tag === "refused") {
        return yield* new InvalidArgument({ message: `kind: ${check.problem}`, remediation: KIND_REMEDY })
      }
    }
    const machine = yield* shownMachineFilter(p)
    const index = yield* Index
    const r = yield* Redaction
    const limit = p.limit ?? 20
    const filter = {
      provider: p.provider,
      machine,
      since,
      until,
      // As `search --session`: an unknown session is SOURCE_NOT_FOUND, not a search without hits (tester18 F7).
      sessionUids: p.session === undefined ? undefined : (yield* searchSessionFilter(p.session, r.ids)).sessionUids,
      role: p.role,
      kind: p.kind
    }
    const hits = r.enabled
      ? yield* redactedSearch(r, index, p.query, filter, shownWorkspaceFilter(r, p.workspace), limit)
      : yield* index.search(p.query, { ...filter, workspace: p.workspace === undefined ? undefined : workspacePath(p.workspace), limit })
    const answers: Array<SearchHitAnswer> = hits.map((h) => ({
      // as list_sessions shows it (tester38 F2); the shown cursor below is made from it too, as get_events' are
      sessionId: r.id(h.sessionId),
      sessionUid: r.ids.sessionUid(h.sessionUid),
      provider: h.provider,
      machine: h.machine === null ? null : r.text(h.machine),
      // redacted already (with its session's secrets) by `redactedSearch`; as it is with redaction off
      title: shownTitle(h.title),
      eventId: h.eventId,
      kind: h.kind,
      role: h.role,
      occurredAt: h.occurredAt,
      // with redaction on, an event's shown cursor (no check of its bytes as imported: ../../domain/shown-cursor.ts)
      cursor: r.enabled && h.cursor !== null && h.eventId !== null && h.sequence !== null
        ? shownCursor({ sessionId: r.id(h.sessionId), eventId: h.eventId, sequence: h.sequence, cursor: h.cursor }, r.ids)
        : h.cursor,
      field: h.snippet.field,
      // With redaction on, a window of the very redacted text the hit was decided on (`redactedSearch` cuts it from
      // the fields `visibleHits` matched), not redacted again: a second redaction of the window, its white space
      // folded, could hide a value the hit was found by and every other output shows (tester39 F2: the snippet said
      // `[REDACTED:password-prose]` for the query's own word). With redaction off, the index's own window, as it is.
      // A title hit's window of the title, shown as the title is (tester33c F6).
      snippet: h.snippet.field === "title" ? visibleControls(h.snippet.text) : h.snippet.text,
      score: h.score,
      sessionStatus: h.sessionStatus
    }))
    const incomplete = [...new Map(hits.filter((h) => h.sessionStatus === "incomplete").map((h) => [h.sessionUid, h])).values()]
    const foldNote = searchFoldNote(index.searchFold)
    return {
      hits: answers,
      count: answers.length,
      // as list_sessions: how many of the hits' sessions are incomplete, and what that means
      incomplete: incomplete.length,
      note: [
        ...(incomplete.length === 0
          ? []
          : [incompleteNote(incomplete.map((h) => ({ sessionId: r.id(h.sessionId), eventCount: 0, machine: h.machine === null ? null : r.text(h.machine) })), "")]),
        // An index from before folded search words (read without migrating): what it misses (tester29b F2).
        ...(foldNote === null ? [] : [sentence(foldNote)])
      ].join(" ") || null
    }
  })

/** A session's metadata as `get_session` answers it. */
export interface SessionMetadata extends SessionBrief {
  /** The model the session's events name first (else its source's summary), or null. */
  readonly model: string | null
  /** Other sessions (uids) of the same native id, from other sources. */
  readonly otherSources: ReadonlyArray<string>
}

/** A page of a session's transcript text. */
export interface TranscriptPage {
  /** The page: whole event entries (`[<eventId>] <time> <role> <kind>…` then the text), unless one entry alone passes the budget. */
  readonly text: string
  /** Where the page lies in the whole transcript text, in UTF-16 code units (JavaScript string indices, not code points): `[fromChar, toChar)` of `totalChars`. */
  readonly fromChar: number
  readonly toChar: number
  readonly totalChars: number
  /** The first and last event the page shows (a part of); null for an empty transcript. */
  readonly firstEventId: string | null
  readonly lastEventId: string | null
  /** Pass it back (with the same id) for the next page; null on the last page. */
  readonly nextCursor: string | null
  readonly done: boolean
}

/** What `get_session` answers. */
export interface GetSessionAnswer {
  readonly session: SessionMetadata
  readonly page: TranscriptPage
}

/**
 * The metadata of session `s` from its events redacted (`events`) and as read (`raw`: its title is cut from its
 * first prompt, redacted whole, when it was cut: {@link brief}).
 */
const metadata = (
  r: RedactionShape,
  s: SessionRow,
  events: ReadonlyArray<SessionEvent>,
  raw: ReadonlyArray<SessionEvent>,
  others: ReadonlyArray<SessionRow>,
  known?: ReadonlyMap<string, string>
): SessionMetadata => {
  const model = events.find((e) => e.model !== null)?.model ??
    (s.overview.sessionId === s.sessionId ? s.overview.model : null)
  const source = r.enabled ? titleSourceIn(s.title, raw.map((e) => e.text)) : undefined
  return { ...brief(r, s, source, known), model: model === null ? null : r.text(model), otherSources: others.map((o) => r.ids.sessionUid(o.sessionUid)) }
}

/**
 * `loadSession` for an MCP answer: a session too large to hold whole
 * (`ResourceLimitExceeded`) says what a client can do, read its events a page
 * at a time with `get_events`, and what the server's operator can (the CLI's
 * remedies, `show`/`export`, are no use to a client). The session is named as
 * `showId` shows it (`Redaction.id`: an answer never holds a native id a secret
 * is in, as `list_sessions` shows it).
 */
const loadWhole = (id: string, showId: (s: string) => string, ids?: ShownIds, machine?: (name: string) => string) =>
  // a part of a session is never given out as the session (tester28a F3): an incomplete one fails as `requireComplete`,
  // checked before its events are read (as `export` does: a big incomplete session is refused, not read then refused)
  Effect.flatMap(findCompleteSession(id, ids, { machine }), ({ session }) =>
    loadSession(id, undefined, ids).pipe(Effect.catchTag("ResourceLimitExceeded", (e) =>
      Effect.fail(
        new ResourceLimitExceeded({
          message: e.message.split(session.sessionId).join(showId(session.sessionId)),
          remediation: "Read its events a page at a time with get_events (after a cursor, or around an event id); " +
            "the limit is the server's: limits.maxDocumentBytes in the config file it was started with (mcp --config FILE).",
          ...(e.details !== undefined ? { details: e.details } : {})
        })
      ))))

/**
 * `get_session`: the session `id` names (see `findSession`; an incomplete session fails as `requireComplete`, STORE_UNAVAILABLE `session-incomplete`) with a page of
 * its transcript text of at most `maxChars` (default 20000) characters,
 * from the start or from `cursor` (a previous answer's `nextCursor`).
 * Concatenated, the pages are the whole text. `SourceNotFound` for no such
 * session, `InvalidArgument` for an ambiguous prefix, `InvalidCursor` for a
 * cursor that is none, an event's, another session's or index's, or of a
 * transcript that changed since, saying which ({@link pageCursorOffset}),
 * `ResourceLimitExceeded` for a session too large to hold whole (see
 * `loadSession`).
 */
export const getSession = (
  p: typeof GetSessionParams.Type
): Effect.Effect<
  GetSessionAnswer,
  SourceNotFound | InvalidArgument | InvalidCursor | ResourceLimitExceeded | StoreUnavailable,
  Index | Redaction
> =>
  Effect.gen(function*() {
    const r = yield* Redaction
    const index = yield* Index
    // a part of a session is never given out as the session (tester28a F3)
    const { others, session } = yield* findCompleteSession(p.id, r.ids, { machine: r.text })
    const rendered = yield* renderedSession(index, r, session)
    const { digest, text: t } = rendered
    const from = p.cursor === undefined ? 0 : yield* pageCursorOffset(p.cursor, session, r, index, { digest, length: t.text.length, text: t.text })
    const page = pageAt(t, from, p.maxChars ?? DEFAULT_MAX_CHARS)
    const done = page.to >= t.text.length
    return {
      session: { ...brief(r, session), title: shownTitle(rendered.title), model: rendered.model, otherSources: others.map((o) => r.ids.sessionUid(o.sessionUid)) },
      page: {
        text: t.text.slice(page.from, page.to),
        fromChar: page.from,
        toChar: page.to,
        totalChars: t.text.length,
        firstEventId: page.firstEvent < 0 ? null : t.eventIds[page.firstEvent],
        lastEventId: page.lastEvent < 0 ? null : t.eventIds[page.lastEvent],
        nextCursor: done ? null : encodePageCursor({ sessionUid: r.ids.sessionUid(session.sessionUid), generation: session.generation, offset: page.to, digest }),
        done
      }
    }
  })

/**
 * The offset a `get_session` page cursor names in the transcript of `session` (`text`: its digest and length), or
 * `InvalidCursor` saying what is wrong with it (`decodePageCursor`; session 33, as `get_events`' {@link cursorSequence}):
 * the index's sessions are read only for a cursor that names another session uid, to tell one of another session of
 * this index (named) from one another index made.
 */
const pageCursorOffset = (
  cursor: string,
  session: SessionRow,
  r: RedactionShape,
  index: IndexShape,
  text: { readonly digest: string; readonly length: number; readonly text: string }
): Effect.Effect<number, InvalidCursor | StoreUnavailable> =>
  Effect.gen(function*() {
    const sessionUid = r.ids.sessionUid(session.sessionUid)
    const peeked = peekPageCursor(cursor)
    const others = Either.isRight(peeked) && peeked.right.sessionUid !== sessionUid ? yield* index.sessions({}) : []
    return yield* decodePageCursor(
      cursor,
      // the sessions named as answers show them (a native id a secret is in, redacted: session 39)
      { sessionUid, sessionId: r.id(session.sessionId), generation: session.generation, ...text },
      (uid) => {
        const holder = others.find((s) => r.ids.sessionUid(s.sessionUid) === uid)
        return holder === undefined ? undefined : r.id(holder.sessionId)
      }
    )
  })

/** A session's transcript as `get_session` pages it: the text of its redacted events, its digest, its model (redacted). */
interface RenderedSession {
  /** What it was rendered from: the session's uid, generation, event count and last time. */
  readonly key: string
  readonly text: TranscriptText
  readonly digest: string
  readonly model: string | null
  /** The session's title, redacted (cut from its first prompt redacted whole, when it was cut: {@link metadata}). */
  readonly title: string | null
}

/**
 * The characters of transcript text the rendered sessions kept hold at most in all (UTF-16: twice as many bytes),
 * besides the latest: 32 Mi, a few sessions of 20,000 events (tester39 F3: the 2 kept before thrashed with 3 sessions).
 */
const RENDERED_KEPT_CHARS = 32 * 1024 * 1024

/** What a rendered session was rendered from: the session's uid, generation, event count and last time. */
const keyOf = (s: SessionRow): string => JSON.stringify([s.sessionUid, s.generation, s.eventCount, s.lastAt])

/**
 * The rendered sessions of the latest 16 sessions used, per index and redaction (rendered once per session state),
 * within {@link RENDERED_KEPT_CHARS} characters of transcript in all (the latest one kept whatever its size); two
 * rendered at once.
 */
const renderedStore = sharedStore<RenderedSession, SourceNotFound | InvalidArgument | ResourceLimitExceeded | StoreUnavailable>({
  max: 16,
  budget: RENDERED_KEPT_CHARS,
  weigh: (s) => s.text.text.length,
  permits: 2
})

/**
 * The transcript text of `session` as `get_session` pages it, rendered once per session state (its uid,
 * generation, event count and last time: a session a later import appended to or replaced is rendered anew)
 * and kept for the next pages ({@link renderedStore}), calls that arrive together sharing one rendering
 * ({@link shared}): a page then costs the page (a slice and a digest check), not the whole transcript (its events
 * loaded, redacted, rendered and hashed: ~1 s at 20,000 events). The errors of `loadSession`
 * (`ResourceLimitExceeded` for a session too large).
 */
const renderedSession = (
  index: IndexShape,
  r: RedactionShape,
  session: SessionRow
): Effect.Effect<RenderedSession, SourceNotFound | InvalidArgument | ResourceLimitExceeded | StoreUnavailable, Index> =>
  Effect.gen(function*() {
    const render = Effect.gen(function*() {
      const { events, session: loaded } = yield* loadWhole(session.sessionUid, r.id)
      // a slice of events at a time with a yield between (tester23c F8): a long session's redaction lets the server
      // answer a ping, read a cancel and interrupt this call meanwhile
      const sr = yield* seenWhole(r, events)
      const redacted = r.enabled ? yield* redactJointsYielding(r.text, yield* mapYielding(events, sr.event)) : events
      const text = transcriptText(redacted)
      const m = metadata(r, loaded, redacted, events, [], sr.known)
      return { key: keyOf(loaded), text, digest: textDigest(text.text), model: m.model, title: m.title } satisfies RenderedSession
    }).pipe(Effect.provideService(Index, index))
    return yield* shared(renderedStore, index, r, keyOf(session), render)
  })

/**
 * A `sessionRedactor` that has seen every one of `events` (a session's, held whole), so that its `event` redacts each
 * with every secret the session decides on, in earlier events too, and its `known` are those secrets (tester25a F12:
 * the title hides them too); nothing seen when redaction is off.
 */
const seenWhole = (r: RedactionShape, events: ReadonlyArray<SessionEvent>) =>
  Effect.gen(function*() {
    const sr = sessionRedactor(r)
    if (r.enabled) yield* mapYielding(events, sr.see)
    return sr
  })

/** An event as `get_events` answers it (redacted; ids and cursor kept). */
export interface EventBrief {
  readonly eventId: string
  readonly sequence: number
  /** RFC 3339 or null. */
  readonly occurredAt: string | null
  readonly role: string | null
  readonly kind: string
  readonly toolName: string | null
  readonly toolCallId: string | null
  readonly isError: boolean | null
  readonly text: string | null
  /** True when `text` was clipped to the answer's budget, at the edge of a grapheme and outside a redaction marker (read it whole with get_session). */
  readonly truncated?: boolean
  /**
   * `get_events` with this cursor resumes right after this event. With redaction on, a shown cursor (`s1.`: no check of
   * the event's bytes as imported, ../../domain/shown-cursor.ts); with `--no-redact`, its stream cursor (`stream --cursor` takes it too).
   */
  readonly cursor: string
}

/** What `get_events` answers. */
export interface GetEventsAnswer {
  readonly session: { readonly id: string; readonly uid: string; readonly provider: string }
  /** With eventId: that event's id (it is among `events`). */
  readonly target?: string
  readonly events: ReadonlyArray<EventBrief>
  /** The cursor of the last event answered when more follow it (pass it back as `cursor`); null at the session's end. */
  readonly nextCursor: string | null
  readonly done: boolean
}

/**
 * `e` as answered, its text clipped to `budget`; with `shown` (the output's shown ids: redaction on), its shown cursor
 * in place of its stream cursor (the one `sessionRedactor` gave it already, if it did).
 */
const eventBrief = (e: AnsweredEvent, budget: number, shown: ShownIds | null): EventBrief => {
  const clipped = e.text !== null && e.text.length > budget
  return {
    eventId: e.eventId,
    sequence: e.sequence,
    occurredAt: e.occurredAt,
    role: e.role,
    kind: e.kind,
    toolName: e.toolName,
    toolCallId: e.toolCallId,
    isError: e.isError,
    text: clipped ? e.text!.slice(0, clipLength(e.text!, budget)) : e.text,
    ...(clipped ? { truncated: true } : {}),
    cursor: shown === null || e.cursor === null || isShownCursor(e.cursor) ? e.cursor : shownCursor(e, shown)
  }
}

/** The fields of an event `get_events` answers ({@link eventBrief}) and finds by its cursor (`cursorNames`). */
type AnsweredEvent = Pick<
  SessionEvent,
  "sourceId" | "sessionId" | "eventId" | "sequence" | "occurredAt" | "role" | "kind" | "toolName" | "toolCallId" | "isError" | "text" | "cursor"
>

/** A `get_events` page being filled: the events answered, the characters of text they hold, the run the last one is in. */
interface PageFill {
  readonly answered: Array<EventBrief>
  used: number
  run: ReadonlyArray<AnsweredEvent> | null
}

/**
 * A run of consecutive assistant text and thinking (`responseRuns`: whole, from its first event to its last) as
 * `get_events` redacted it (each event with the session's secrets, the joints as one text), before a page's budget
 * clipped it: what the next page, which starts inside it, answers from.
 */
interface KeptRun {
  /** The state of the session it was read in ({@link keyOf}): a session an import changed is read anew. */
  readonly session: string
  /** The `sequence` of its first and last events. */
  readonly first: number
  readonly last: number
  readonly events: ReadonlyArray<AnsweredEvent>
  /** About how many bytes it holds: its strings, 2 bytes a character, and {@link KEPT_EVENT_BYTES} an event. */
  readonly bytes: number
}

/** The shortest run {@link keepRun} keeps (events): a shorter one costs a page little to read and redact again. */
const RUN_KEPT_MIN = 64
/** The most runs kept per index and redaction (the latest used first to stay). */
const RUNS_KEPT = 4
/** The most bytes the runs kept per index and redaction hold together (about); a longer run alone is not kept. */
const RUNS_KEPT_BYTES = 64 * 1024 * 1024
/** What an event's object and its fields but its strings' characters take, about. */
const KEPT_EVENT_BYTES = 256

/**
 * The runs `get_events` kept (session 33), per index and redaction, the latest used last: each page of one long run of
 * assistant text (no user line between: 22,000 events) read and redacted the whole run again (its joints need it
 * whole), ~4 s of processor time a page, quadratic over the run's pages; a page that ends inside a run keeps it
 * ({@link keepRun}), and the next, whose cursor lies in it, answers from it ({@link keptRunAt}).
 */
const keptRuns = new WeakMap<IndexShape, WeakMap<RedactionShape, Array<KeptRun>>>()

const keptRunList = (index: IndexShape, r: RedactionShape): Array<KeptRun> => {
  let byRedaction = keptRuns.get(index)
  if (byRedaction === undefined) keptRuns.set(index, byRedaction = new WeakMap())
  let list = byRedaction.get(r)
  if (list === undefined) byRedaction.set(r, list = [])
  return list
}

/** The run kept for session state `session` whose events span `sequence`, now the latest used; undefined when none. */
const keptRunAt = (index: IndexShape, r: RedactionShape, session: string, sequence: number): KeptRun | undefined => {
  const list = keptRunList(index, r)
  const at = list.findIndex((k) => k.session === session && k.first <= sequence && sequence <= k.last)
  if (at < 0) return undefined
  const [hit] = list.splice(at, 1)
  list.push(hit)
  return hit
}

/**
 * Keeps `run` (whole, redacted as answered) of session state `session` for the next page, its events' answered fields
 * only, when it has {@link RUN_KEPT_MIN} events or more; the runs used longest ago go past {@link RUNS_KEPT} runs or
 * {@link RUNS_KEPT_BYTES} bytes.
 */
const keepRun = (index: IndexShape, r: RedactionShape, session: string, run: ReadonlyArray<AnsweredEvent>): void => {
  if (run.length < RUN_KEPT_MIN) return
  let bytes = 0
  const events = run.map((e): AnsweredEvent => {
    bytes += KEPT_EVENT_BYTES + 2 * (e.sourceId.length + e.sessionId.length + e.eventId.length + e.cursor.length + (e.text?.length ?? 0) +
      (e.occurredAt?.length ?? 0) + (e.toolName?.length ?? 0) + (e.toolCallId?.length ?? 0))
    return {
      sourceId: e.sourceId,
      sessionId: e.sessionId,
      eventId: e.eventId,
      sequence: e.sequence,
      occurredAt: e.occurredAt,
      role: e.role,
      kind: e.kind,
      toolName: e.toolName,
      toolCallId: e.toolCallId,
      isError: e.isError,
      text: e.text,
      cursor: e.cursor
    }
  })
  if (bytes > RUNS_KEPT_BYTES) return
  const list = keptRunList(index, r)
  const first = events[0].sequence
  const same = list.findIndex((k) => k.session === session && k.first === first)
  if (same >= 0) list.splice(same, 1)
  list.push({ session, first, last: events[events.length - 1].sequence, events, bytes })
  let total = list.reduce((n, k) => n + k.bytes, 0)
  while (list.length > RUNS_KEPT || total > RUNS_KEPT_BYTES) total -= list.shift()!.bytes
}

const CURSOR_REMEDY = "Pass the cursor of an event of this session as this server's get_session, get_events or search_sessions answer gave it (or the nextCursor of a get_events answer for it), or leave it out to start from the first event."

const refuseCursor = (message: string) => new InvalidCursor({ message, remediation: CURSOR_REMEDY })

/**
 * The sequence of the event a `get_events` cursor names, after the checks its form allows; `InvalidCursor` naming
 * what is wrong with it (tester31c F5), each refusal its own reason:
 * - a `get_session` page cursor (`p1.…`, well formed by `peekPageCursor`): the other tool's (session 33);
 * - not a cursor at all (neither a well-formed shown cursor `s1.…` nor a stream cursor `c2.…`/`c1.…`): malformed;
 * - a stream cursor on a redacting server, a shown cursor on a `--no-redact` one: the kind its answers give
 *   (docs/mcp.md); a stream cursor is never checked with redaction on (its CRC-32 and head digest would be an online
 *   oracle for a hidden value, tester25a F17);
 * - a stream cursor of another source (its tag is the unkeyed digest of the source id): another source;
 * - a shown cursor whose tag is not the session's source's under this index's key: one of another source of this
 *   index (its tag is one of theirs: told first, since a copy of the session's log at another path holds the same
 *   events; tester38 F4), a cursor of this session's event made by another index (its check, of the session id and
 *   event id at its sequence, names the event this session has there: keys differ between indexes), or else one this
 *   index cannot verify (another index's, of a session it does not hold).
 * A cursor of the right source that names no event of the session is refused later, when the page is read.
 */
const cursorSequence = (
  cursor: string,
  session: SessionRow,
  r: RedactionShape,
  index: IndexShape
): Effect.Effect<number, InvalidCursor | StoreUnavailable> =>
  Effect.gen(function*() {
    if (Either.isRight(peekPageCursor(cursor))) {
      return yield* refuseCursor(
        "The cursor is a get_session page cursor (p1.…), not an event's cursor: get_events takes an event's cursor as an answer gave it (an event's cursor, or a get_events nextCursor)."
      )
    }
    if (!isShownCursor(cursor)) {
      const peeked = peekCursor(cursor)
      if (Either.isLeft(peeked)) return yield* refuseCursor(`${peeked.left.message} (get_events takes an event's cursor as an answer gave it.)`)
      if (r.enabled) {
        return yield* refuseCursor("With redaction on, get_events takes the shown cursors (s1.…) its answers give, not a stream cursor (c2.…, what `stream` and unredacted outputs give).")
      }
      if (!cursorIsFor(peeked.right, session.sourceId)) return yield* refuseCursor(`The cursor belongs to another source than session ${r.id(session.sessionId)}'s.`)
      return peeked.right.seq
    }
    const peeked = peekShownCursor(cursor)
    if (Either.isLeft(peeked)) return yield* refuseCursor(`${peeked.left.message} (get_events takes an event's cursor as an answer gave it.)`)
    if (!r.enabled) {
      return yield* refuseCursor("With redaction off (--no-redact), get_events takes the stream cursors (c2.…) its answers give, not a shown cursor (s1.…, what a redacted answer or export gives).")
    }
    const place = peeked.right
    if (shownCursorIsFor(place, session.sourceId, r.ids)) return place.seq
    // Another source of this index first: a copy of the session's log at another path is a second source holding the
    // same events, so the check below would match and call this index's own cursor another index's (tester38 F4).
    const sessions = yield* index.sessions({})
    if (sessions.some((s) => s.sourceId !== session.sourceId && r.ids.sourceTag(s.sourceId) === place.tag)) {
      return yield* refuseCursor(`The cursor belongs to another source of this index than session ${r.id(session.sessionId)}'s.`)
    }
    // this session's event at the cursor's sequence, by its check: the cursor names it, under another index's key
    const at = yield* Stream.runHead(Stream.take(index.eventsStream(session.sessionUid, 1, { sequence: place.seq }), 1))
    // the check is of the ids as answers show them (a session id a secret is in, redacted: `shownProvenance`)
    if (Option.isSome(at) && at.value.sequence === place.seq && eventCheck({ sessionId: r.id(at.value.sessionId), eventId: at.value.eventId }, place.seq) === place.check) {
      return yield* refuseCursor(
        `The cursor names an event of session ${r.id(session.sessionId)}, but another index made it (its source tag is keyed by that index's secret, not this one's), so this index cannot verify it.`
      )
    }
    return yield* refuseCursor(
      "The cursor was not made by this index: its source tag names none of this index's sources (a cursor of another index, whose secret keys the tags otherwise), so this index cannot verify it."
    )
  })

/**
 * `get_events`: events of the session `id` names, a page at a time from the
 * index (a long session is never held whole):
 * - with `eventId`: that event and `context` (default 5) events on each side;
 * - else the events after `cursor` (an event's cursor; absent: from the
 *   start), at most `limit` (default 50).
 * Event texts are redacted, then held within `maxChars` (default 20000)
 * for the whole answer: after a cursor, events are answered while their
 * texts fit (the first always, clipped if it alone passes the budget);
 * around an event, each text is clipped to an equal share. `nextCursor`
 * resumes after the last event answered. `SourceNotFound` for no such
 * session or event id, `InvalidCursor` for a malformed cursor or one that
 * names no event of this session, `InvalidArgument` for both `eventId`
 * and `cursor`, or an ambiguous id prefix.
 */
export const getEvents = (
  p: typeof GetEventsParams.Type
): Effect.Effect<GetEventsAnswer, SourceNotFound | InvalidArgument | InvalidCursor | StoreUnavailable, Index | Redaction> =>
  Effect.gen(function*() {
    if (p.eventId !== undefined && p.cursor !== undefined) {
      return yield* new InvalidArgument({
        message: "get_events takes eventId (the events around it) or cursor (the events after it), not both.",
        remediation: "Pass one of eventId and cursor."
      })
    }
    if (p.eventId !== undefined && p.limit !== undefined) {
      return yield* new InvalidArgument({
        message: "get_events around an eventId takes context (events on each side), not limit.",
        remediation: "Pass context instead of limit, or a cursor with limit."
      })
    }
    const r = yield* Redaction
    const index = yield* Index
    // a part of a session is never given out as the session (tester28a F3)
    const { session } = yield* findCompleteSession(p.id, r.ids, { machine: r.text })
    const maxChars = p.maxChars ?? DEFAULT_MAX_CHARS
    const head = { id: r.id(session.sessionId), uid: r.ids.sessionUid(session.sessionUid), provider: session.provider }
    // An event as its shown cursor was made (`shownProvenance`: of the redacted event, whose session id is shown as
    // `head.id`): a session id a secret is in made the answers' cursors name no event read from the index (session 39).
    const shownSessionOf = (e: SessionEvent): SessionEvent =>
      !r.enabled ? e : e.sessionId === session.sessionId ? (head.id === e.sessionId ? e : { ...e, sessionId: head.id }) : { ...e, sessionId: r.id(e.sessionId) }
    // and every secret the whole session decides on, later events' too (tester25a F12), read once per session state
    const kept = r.enabled ? yield* sessionSecretsKept(r, index, session.sessionUid) : null
    const whole = kept?.secrets ?? new Map<string, string>()
    /**
     * The session's events from the first whose `sequence` is `from` or more (null: its first event), a page of
     * `pageSize` at a time, in runs (`responseRuns`), and the redaction of a run. Every event streamed past is seen, by a
     * redactor that starts as the events before `from` left it ({@link redactorBefore}), so a secret an earlier tool call
     * decided on is redacted where a later one restates it, as when the session is read from its first event.
     */
    const reading = (from: number | null, pageSize: number) => {
      const sr = sessionRedactor(r, kept !== null && from !== null ? redactorBefore(kept, from) : undefined)
      const stream = index.eventsStream(session.sessionUid, pageSize, from === null ? undefined : { sequence: from })
      const events = r.enabled ? Stream.tap(stream, (e) => redactYielding(() => sr.see(e))) : stream
      const shareEvent = (e: SessionEvent): SessionEvent => (whole.size === 0 ? sr.event(e) : r.restated(sr.event(e), whole, e))
      /** A run of consecutive assistant text and thinking (`responseRuns`) redacted as one text, as the whole session's. */
      const shareRun = (run: ReadonlyArray<SessionEvent>): ReadonlyArray<SessionEvent> =>
        r.enabled ? redactJoints(r.text, run.map(shareEvent)) : run
      return { runs: responseRuns(events), shareRun }
    }

    if (p.eventId !== undefined) {
      const eventId = p.eventId
      const context = p.context ?? DEFAULT_CONTEXT
      /**
       * The window read from the events whose `sequence` is `from` or more (null: the session's first): the `context`
       * events before the target, the target, then `context` after it (and one more, to know whether more follow),
       * read in whole runs of consecutive assistant text, so a secret cut across the window's edge, into blocks outside
       * it, is redacted as the whole session has it. `wider`: the window reaches into the first run read, which may
       * begin before `from` (or before it); `absent`: the target is not among the events read from `from` on up to
       * past its sequence `target`.
       */
      const windowFrom = (from: number | null, target: number | undefined) =>
        Effect.gen(function*() {
          // from near the target, pages of about the window's size
          const { runs, shareRun } = reading(from, from === null ? 500 : Math.min(500, 2 * context + 32))
          let firstRun: ReadonlyArray<SessionEvent> | undefined
          const scan = yield* Stream.runFoldWhile(
            runs,
            { runs: [] as Array<ReadonlyArray<SessionEvent>>, at: -1, count: 0, absent: false },
            (s) => !s.absent && !(s.at >= 0 && s.count - s.at - 1 > context),
            (s, run) => {
              firstRun ??= run
              s.runs.push(run)
              s.count += run.length
              if (s.at < 0) {
                const i = run.findIndex((e) => e.eventId === eventId)
                if (i >= 0) s.at = s.count - run.length + i
                else if (from !== null && target !== undefined && run[run.length - 1].sequence > target) s.absent = true
                else {
                  // the runs wholly before the window's first event are let go
                  while (s.runs.length > 1 && s.count - s.runs[0].length >= context) s.count -= s.runs.shift()!.length
                }
              }
              return s
            }
          )
          const stop = from === null
            ? null
            : scan.at < 0
            ? "absent" as const
            : scan.runs[0] === firstRun && scan.at - context < firstRun.length
            ? "wider" as const
            : null
          return { scan, stop, shareRun }
        })
      // The target's sequence (one index lookup), so that the window is read from a few events before it, not from
      // the session's first event (session 35: as get_events after a cursor, session 31); read from further back while
      // the window may reach the run the read began in; a target not found near its sequence is looked for from the
      // session's first event, as before (absent: SOURCE_NOT_FOUND).
      const around = yield* index.eventsAround(session.sessionUid, eventId, 0, 0)
      const target = Option.isSome(around) ? around.value.events[around.value.at]?.sequence : undefined
      let back = context + 4
      let from = target === undefined || target - back <= 0 ? null : target - back
      let read = yield* windowFrom(from, target)
      while (from !== null && read.stop !== null) {
        back = read.stop === "wider" ? back * 4 : Infinity
        from = target! - back <= 0 ? null : target! - back
        read = yield* windowFrom(from, target)
      }
      const { scan, shareRun } = read
      if (scan.at < 0) {
        return yield* new SourceNotFound({
          message: `No event ${eventId} in session ${r.id(session.sessionId)}.`,
          remediation: "Take an eventId from a get_session page or a get_events answer of this session."
        })
      }
      const all = scan.runs.flatMap(shareRun)
      const window = all.slice(Math.max(0, scan.at - context), scan.at + context + 1)
      const share = Math.max(1, Math.floor(maxChars / window.length))
      const kept = window.map((e) => eventBrief(e, share, r.enabled ? r.ids : null))
      const more = all.length > scan.at + context + 1
      return {
        session: head,
        target: eventId,
        events: kept,
        nextCursor: more ? kept[kept.length - 1].cursor : null,
        done: !more
      }
    }

    const cursor = p.cursor
    // the sequence of the cursor's event (the cursor says it); a cursor refused says why (tester31c F5)
    const seq = cursor === undefined ? undefined : yield* cursorSequence(cursor, session, r, index)
    const limit = p.limit ?? DEFAULT_EVENT_LIMIT
    // the rows a page needs (and a few for the run the cursor's event is in), not more
    const pageSize = Math.min(500, limit + 16)
    const shown = r.enabled ? r.ids : null
    /**
     * Answers the events of `run` from `start` on into `page` while they fit (`limit` events, `maxChars` characters of
     * text: the first always, clipped if it alone passes them); true when one did not (more follow).
     */
    const fill = (page: PageFill, run: ReadonlyArray<AnsweredEvent>, start: number): boolean => {
      for (let k = start; k < run.length; k++) {
        const size = run[k].text?.length ?? 0
        if (page.answered.length >= limit || (page.answered.length > 0 && page.used + size > maxChars)) return true
        page.answered.push(eventBrief(run[k], maxChars - page.used, shown))
        page.used += Math.min(size, maxChars - page.used)
        page.run = run
      }
      return false
    }
    /**
     * The page read from the events whose `sequence` is `from` or more (null: the session's first). `wider`: the
     * cursor's event is in the first run read, which may begin before `from`; `absent`: no event read from `from` on
     * is the cursor's (the events past its sequence are not read). `carried`: the page so far, the cursor's event
     * answered past already (`from` is the start of a run: the end of a kept run, {@link keptRunAt}).
     */
    const pageFrom = (from: number | null, carried?: PageFill) =>
      Effect.gen(function*() {
        const { runs, shareRun } = reading(from, pageSize)
        let first = true
        const page: PageFill = carried ?? { answered: [], used: 0, run: null }
        // A run of consecutive assistant text at a time, redacted as one (a secret cut across its blocks, before or after the
        // cursor, a page's end), then its events answered while they fit.
        const scan = yield* Stream.runFoldWhile(
          runs,
          { found: cursor === undefined || carried !== undefined, more: false, stop: null as "wider" | "absent" | null },
          (s) => !s.more && s.stop === null,
          (s, run) => {
            const firstRun = first
            first = false
            let start = 0
            if (!s.found) {
              const c = run.findIndex((e) => cursorNames(cursor!, shownSessionOf(e), r.ids))
              if (c < 0) return from !== null && run[run.length - 1].sequence > seq! ? { ...s, stop: "absent" as const } : s
              if (firstRun && from !== null) return { ...s, stop: "wider" as const }
              start = c + 1
            }
            return { found: true, more: fill(page, shareRun(run), start), stop: null }
          }
        )
        return { ...scan, page }
      })
    const sessionState = keyOf(session)
    // The run of consecutive assistant text the cursor's event is in, as a page before this one redacted it, when it
    // kept it (session 33: each page of a run of 22,000 events read and redacted the whole run again, ~4 s of
    // processor time a page): the page answers from it, and reads the session from the run's end only if it goes on.
    const keptRun = seq === undefined ? undefined : keptRunAt(index, r, sessionState, seq)
    const keptAt = keptRun === undefined ? -1 : keptRun.events.findIndex((e) => e.sequence === seq && cursorNames(cursor!, e, r.ids))
    let page: Effect.Effect.Success<ReturnType<typeof pageFrom>>
    if (keptRun !== undefined && keptAt >= 0) {
      const filled: PageFill = { answered: [], used: 0, run: null }
      page = fill(filled, keptRun.events, keptAt + 1)
        ? { found: true, more: true, stop: null, page: filled }
        : yield* pageFrom(keptRun.last + 1, filled)
    } else {
      // From the cursor's sequence (session 31, tester30c F5: each page read the session from its first event, ~1.3 s a
      // page late in a 20,000-event session), read from further back while the run of the cursor's event may begin
      // earlier; a cursor whose event is not found near its sequence is looked for from the session's first event, as
      // before (a cursor that names no event of the session: INVALID_CURSOR).
      let back = 4
      let at = seq === undefined || seq - back <= 0 ? null : seq - back
      page = yield* pageFrom(at)
      while (at !== null && (page.stop !== null || !page.found)) {
        back = page.stop === "wider" ? back * 4 : Infinity
        at = seq! - back <= 0 ? null : seq! - back
        page = yield* pageFrom(at)
      }
    }
    const answered = page.page.answered
    if (!page.found) {
      return yield* new InvalidCursor({
        message: `The cursor names no event of session ${r.id(session.sessionId)} (another session of its source, or the session was imported again since).`,
        remediation: "Pass the cursor of an event of this session (or the nextCursor of a get_events answer for it), or leave it out to start from the first event."
      })
    }
    // the run the next page starts in (its cursor's, the last event answered), kept for it when long
    if (page.more && page.page.run !== null && page.page.run !== keptRun?.events) keepRun(index, r, sessionState, page.page.run)
    return {
      session: head,
      events: answered,
      nextCursor: page.more && answered.length > 0 ? answered[answered.length - 1].cursor : null,
      done: !page.more
    }
  })

/**
 * The text of a session's resource (`session://<id>`): a Markdown header
 * (title, made inert as `markdownTitle` makes it; ids in code spans as `markdownCode` writes them, provider,
 * workspace, times, event count) and the whole transcript, an entry per event as `eventMarkdown` writes it
 * (values one line, text inert: tester27a F3), redacted. Errors as
 * {@link getSession}.
 */
export const readSession = (
  id: string
): Effect.Effect<string, SourceNotFound | InvalidArgument | ResourceLimitExceeded | StoreUnavailable, Index | Redaction> =>
  Effect.gen(function*() {
    const r = yield* Redaction
    const { events, others, session } = yield* loadWhole(id, r.id, r.ids, r.text)
    const sr = yield* seenWhole(r, events)
    const shared = r.enabled ? yield* redactJointsYielding(r.text, yield* mapYielding(events, sr.event)) : events
    const m = metadata(r, session, shared, events, others, sr.known)
    // The values a source wrote in the document's frame (ids, names, paths, times) with their controls written
    // visibly, as the title is (tester39 F6: an id's ESC and U+202E reached a client raw); the messages as they are.
    const code = (v: string) => markdownCode(visibleControls(v))
    const field = (v: string) => markdownField(visibleControls(v))
    const lines = [
      markdownTitle(m.title ?? m.id),
      "",
      `- session: ${code(m.id)}`,
      `- uid: ${code(m.uid)}`,
      `- provider: ${field(m.provider)}`,
      ...(m.machine !== null ? [`- machine: ${field(m.machine)}`] : []),
      ...(m.workspace !== null ? [`- workspace: ${field(m.workspace)}`] : []),
      ...(m.model !== null ? [`- model: ${field(m.model)}`] : []),
      `- first activity: ${field(m.firstAt ?? "-")}`,
      `- last activity: ${field(m.lastAt ?? "-")}`,
      `- events: ${m.eventCount}`,
      ...(m.otherSources.length > 0 ? [`- other sources of this id: ${m.otherSources.map(code).join(", ")}`] : []),
      "",
      ""
    ]
    return lines.join("\n") + shared.map(eventMarkdown).join("")
  })

/**
 * The most sessions `resources/list` lists (the latest ones): its answer is one JSON-RPC line, whole (MCP's
 * `resources/list` pages only with a cursor the client passes back, and `@effect/ai`'s McpServer answers the list
 * whole), so a team index of tens of thousands of sessions listed every one past the 8 MiB answer bound and no
 * resource could be listed at all (tester20 F10). About 250 bytes a session: well under the bound. Every session
 * stays readable by `session://<id>` (the template) and listed by `list_sessions` (filters, `limit`).
 */
export const MAX_LISTED_RESOURCES = 1000

/** The sessions listed as resources: the {@link MAX_LISTED_RESOURCES} latest of the index, latest first (redacted titles). */
export const resourceSessions: Effect.Effect<ReadonlyArray<SessionBrief>, StoreUnavailable, Index | Redaction> = Effect.gen(
  function*() {
    const index = yield* Index
    const r = yield* Redaction
    return yield* briefs(r, index, yield* index.sessions({ limit: MAX_LISTED_RESOURCES }))
  }
)
