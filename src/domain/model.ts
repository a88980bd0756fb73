/**
 * The normalized model (contract version `1.3.0`): what every provider's
 * adapter hands on, whatever its native format. Source: `../shared/DESIGN.md`,
 * "Normalized model".
 *
 * @module
 */
import * as Schema from "effect/Schema"
import type { FingerprintStat } from "./fingerprint.js"
import type { RegisteredLocatorClass, RegisteredProviderId } from "../layers/registry.js"

/** The version of the normalized contract carried by every event and CLI envelope. */
export const CONTRACT_VERSION = "1.3.0" as const

/**
 * Provider ids, one per agent store family (DESIGN.md, "Providers"): the ids
 * of the modules in the registry (`src/layers/registry.ts`), derived from
 * it, so adding a provider touches no list here.
 *
 * Why a literal union derived type-only from the registry, and not a branded
 * string: code keeps exhaustive, typo-proof ids (`provider: "muse-code"`,
 * `switch` over them, a policy keyed by them), library users see the closed
 * set in their editor, and the domain still imports nothing at run time from
 * the registry (a type import is erased; the domain stays free of I/O and of
 * adapters). At run time the domain cannot know the registry's values, so its
 * Schema checks the form of an id (lower-case words joined by `-`); ids that
 * come from outside (CLI arguments, config, index rows) are checked against
 * the registry where they come in (the CLI's choices, `SessionSources.get`).
 */
export type ProviderId = RegisteredProviderId

/** Schema of a {@link ProviderId}: a well-formed id (see there for why not the registry's literals). */
export const ProviderId: Schema.Schema<ProviderId> = Schema.String.pipe(
  Schema.pattern(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/),
  Schema.annotations({ identifier: "ProviderId" })
) as unknown as Schema.Schema<ProviderId>

/**
 * Locator classes: how a source was acquired; each provider module lists
 * its own (derived from the registry as {@link ProviderId} is), e.g.
 * - `manual-export`: a `muse export` trajectory JSON given explicitly (seed 001).
 * - `muse-native-session-log`: `<muse-root>/YYYY/MM/DD/<id>/session.jsonl` (seed 001).
 * - `muse-agent-transcript`: `<agents-root>/<agentId>/sessions/<agentId>.jsonl` (seed 000).
 * - `agentmux-agent-record`: an agent's zones in AgentMux's `filestore.db` (seed 002).
 */
export type LocatorClass = RegisteredLocatorClass

/** Schema of a {@link LocatorClass}: a well-formed class name (checked against the registry at the edges). */
export const LocatorClass: Schema.Schema<LocatorClass> = Schema.String.pipe(
  Schema.pattern(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/),
  Schema.annotations({ identifier: "LocatorClass" })
) as unknown as Schema.Schema<LocatorClass>

/**
 * Where a source is: a locator class, a path (a file, or the store for
 * `agentmux-agent-record`) and, for stores that hold many sessions, the agent
 * and session that select one.
 */
export const Locator = Schema.Struct({
  locatorClass: LocatorClass,
  path: Schema.String,
  agentId: Schema.optional(Schema.String),
  sessionId: Schema.optional(Schema.String)
})
export type Locator = typeof Locator.Type

/** Where in the source an event came from: the raw event index and/or the byte offset of its line. */
export const RawReference = Schema.Struct({
  locatorClass: LocatorClass,
  sequence: Schema.optional(Schema.Number),
  offset: Schema.optional(Schema.Number),
  childIndex: Schema.optional(Schema.Number)
})
export type RawReference = typeof RawReference.Type

/** Role of a message-like event. */
export const Role = Schema.NullOr(Schema.Literal("user", "assistant", "system"))
export type Role = typeof Role.Type

/**
 * Token usage of one model response, as its source reports it (issue 12):
 * counts of tokens, each null when the source does not say. `cacheWriteTokens`
 * is Anthropic's `cache_creation_input_tokens`, `cacheReadTokens` its
 * `cache_read_input_tokens`; `inputTokens` excludes both (as Anthropic's
 * `input_tokens` does).
 *
 * `cacheWrite1hTokens` (contract 1.3.0): the part of `cacheWriteTokens`
 * written to the 1-hour prompt cache (Anthropic's
 * `cache_creation.ephemeral_1h_input_tokens`), which costs more than the
 * 5-minute rest (Anthropic's pricing: 2x the input price, 5 minutes 1.25x);
 * never more than `cacheWriteTokens`; null when the source does not say
 * (every cache write is then priced at the 5-minute rate).
 *
 * `speed` (optional, additive: an event without it decodes as before): the
 * speed the response ran at as the source wrote it (Claude's `usage.speed`,
 * `"standard"` or `"fast"`, since Claude Code 2.1.36's `/fast`); a `"fast"`
 * response is billed at the model's fast-mode rates (`ModelPrice.fast`),
 * never the standard ones. Absent when the source does not say (every
 * import before session 33 dropped it: such a response is priced at the
 * standard rates until its source is imported again).
 */
export const TokenUsage = Schema.Struct({
  inputTokens: Schema.NullOr(Schema.NonNegativeInt),
  outputTokens: Schema.NullOr(Schema.NonNegativeInt),
  cacheReadTokens: Schema.NullOr(Schema.NonNegativeInt),
  cacheWriteTokens: Schema.NullOr(Schema.NonNegativeInt),
  cacheWrite1hTokens: Schema.NullOr(Schema.NonNegativeInt),
  speed: Schema.optional(Schema.String)
})
export type TokenUsage = typeof TokenUsage.Type

/**
 * The session that spawned the one an event belongs to (a subagent's event):
 * the parent's native session id, and, when the source names them, the
 * parent's tool call that spawned it, the parent's event that bound it
 * (Muse Code `child_session_bound`) and the subagent's spawn handle.
 */
export const ParentLink = Schema.Struct({
  sessionId: Schema.String,
  toolCallId: Schema.NullOr(Schema.String),
  eventId: Schema.NullOr(Schema.String),
  subagentId: Schema.NullOr(Schema.String)
})
export type ParentLink = typeof ParentLink.Type

/**
 * The child session an event of the parent spawns or binds (Muse Code
 * `subagent.control.*`: `child_session_id` / `subagent_session_id`, and the
 * spawn handle `subagent_id`; seed 001 keeps them distinct). Either may be
 * null when the event names only the other.
 */
export const ChildLink = Schema.Struct({
  sessionId: Schema.NullOr(Schema.String),
  subagentId: Schema.NullOr(Schema.String)
})
export type ChildLink = typeof ChildLink.Type

/** A context compaction an event of kind `summary` records: its id and trigger (`manual`, `auto`, …) when the source names one. */
export const CompactionMark = Schema.Struct({
  id: Schema.String,
  trigger: Schema.NullOr(Schema.String)
})
export type CompactionMark = typeof CompactionMark.Type

/**
 * One normalized event, one NDJSON line of `stream`.
 *
 * - `sourceId`: `sha256:<64 hex>` of provider, locator class and canonical locator.
 * - `sequence`: integer position in the source (exports: raw event index, markers counted).
 * - `occurredAt`: RFC 3339 (UTC, `Z`) or null; epoch µs/ms/s inputs are converted.
 * - `cursor`: opaque; `stream --cursor <token>` resumes right after this event. In a redacted output it is a shown
 *   cursor (`s1.`, `./shown-cursor.ts`): it names the event (`get_events` goes on after it) but holds no check of
 *   its bytes as imported, so `stream` cannot resume from it.
 * - `extensions`: `{"native.<provider>": {...}}` provenance, never dropped.
 *   Read only by the provider that wrote it: every fact another module needs
 *   is one of the typed fields below (contract 1.1.0).
 * - `toolInput`: a `tool-call`'s input (canonical for `Bash`, `Edit`,
 *   `Write`, `Read`), else null.
 * - `isError`: a `tool-result`'s outcome (true: the tool failed, false: it
 *   succeeded), or a `result`'s (the run failed), null when the source does
 *   not say or the event is no result.
 * - `compaction`: a `summary` event's compaction (id, trigger), else null.
 * - `parent`: the spawning session of a subagent's event ({@link ParentLink}).
 * - `child`: the child session a parent's event spawns or binds ({@link ChildLink}).
 * - `usage`: the token usage a record reports ({@link TokenUsage}), on the
 *   last event of that record, null where the source reports none.
 * - `responseId`: the model response an assistant event belongs to, when the
 *   source names it (Claude: `message.id` + `requestId`). A response
 *   streamed as several records repeats its usage on each, growing: count
 *   each `responseId` once, with its last usage (`usageTotals`).
 * - `costUsd`: the cost in US dollars the source itself states for this
 *   event's usage, null where it states none (contract 1.2.0): a response's
 *   cost on the event carrying its usage (Claude Code's `costUSD`, repeated
 *   on each partial: last wins like the usage), or a run's total on a
 *   `result` event.
 *
 * An event of kind `result` ends a run (AgentMux: a Claude stream-json
 * `result` line): its `usage` and `costUsd` are the run's totals (`usage`,
 * `total_cost_usd`), covering the responses of its run: since its
 * `system/init` line (a new Claude process; the line's place is kept in the
 * event's provenance as `runFrom`) and since the session's previous
 * `result`; they are not another response, so totals never add its tokens
 * to theirs (`usageTotals`, `usageRows`). Its `model` is the run's model
 * (the `system`/`init` line's), `isError` the run's `is_error`.
 *
 * Contract 1.1.0 added the seven typed fields, 1.2.0 `costUsd` and the
 * `result` kind, 1.3.0 `usage.cacheWrite1hTokens`; an event of an earlier
 * contract read from an older index is upgraded on read (`upgradeEvent`).
 */
export const SessionEvent = Schema.Struct({
  contractVersion: Schema.Literal(CONTRACT_VERSION),
  provider: ProviderId,
  sourceId: Schema.String,
  sessionId: Schema.String,
  eventId: Schema.String,
  sequence: Schema.Int,
  kind: Schema.String,
  role: Role,
  toolName: Schema.NullOr(Schema.String),
  toolCallId: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  occurredAt: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  cursor: Schema.String,
  rawReference: RawReference,
  extensions: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  toolInput: Schema.Unknown,
  isError: Schema.NullOr(Schema.Boolean),
  compaction: Schema.NullOr(CompactionMark),
  parent: Schema.NullOr(ParentLink),
  child: Schema.NullOr(ChildLink),
  usage: Schema.NullOr(TokenUsage),
  responseId: Schema.NullOr(Schema.String),
  costUsd: Schema.NullOr(Schema.NonNegative)
})
export type SessionEvent = typeof SessionEvent.Type

/** A content block of a transcript turn (DESIGN.md, "Normalized model"). */
export const TranscriptBlock = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking"), text: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("tool_use"),
    id: Schema.String,
    name: Schema.String,
    input: Schema.Unknown,
    result: Schema.optional(Schema.String),
    isError: Schema.optional(Schema.Boolean)
  })
)
export type TranscriptBlock = typeof TranscriptBlock.Type

/**
 * A `tool_use` block while a transcript is being built: its `result` and
 * `isError` are filled in when the tool's output is paired onto it by id.
 */
export type ToolUseDraft = { -readonly [K in keyof Extract<TranscriptBlock, { type: "tool_use" }>]: Extract<TranscriptBlock, { type: "tool_use" }>[K] }

/** One turn: consecutive blocks of one role. `timestamp` is RFC 3339 or null. */
export const TranscriptTurn = Schema.Struct({
  role: Schema.Literal("user", "assistant", "system"),
  timestamp: Schema.NullOr(Schema.String),
  blocks: Schema.Array(TranscriptBlock)
})
export type TranscriptTurn = typeof TranscriptTurn.Type

/** A context compaction: metadata only, its summary is never replayed (seed 000). */
export const Compaction = Schema.Struct({
  id: Schema.String,
  trigger: Schema.NullOr(Schema.String),
  timestamp: Schema.NullOr(Schema.String)
})
export type Compaction = typeof Compaction.Type

/** Counted warnings of a tolerant provider: how many, of which kind, first line (1-based). */
export const ParseWarning = Schema.Struct({
  kind: Schema.String,
  count: Schema.Int,
  firstLine: Schema.NullOr(Schema.Int)
})
export type ParseWarning = typeof ParseWarning.Type

/**
 * Something counted about a conversation that is not a bad line: well-formed
 * records the transcript leaves out or sources it ignores, by kind, with the
 * first (1-based) line concerned or null. Kinds: `orphan-tool-output` (a tool
 * result no call claims; every conversation provider), `sessions-index-*`
 * (Muse agents: `sessions.json` ignored; seed 000 tolerates it, no line).
 * Seed 000: only lines that are not JSON objects are parse warnings.
 */
export const TranscriptDiagnostic = Schema.Struct({
  kind: Schema.String,
  count: Schema.Int,
  firstLine: Schema.NullOr(Schema.Int)
})
export type TranscriptDiagnostic = typeof TranscriptDiagnostic.Type

/**
 * A conversation as a replay reads it (conversation providers only).
 * `parseWarnings` counts lines skipped as unreadable; `diagnostics` counts
 * the rest that was left out (see {@link TranscriptDiagnostic}).
 */
export const Transcript = Schema.Struct({
  sessionId: Schema.String,
  title: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  startedAt: Schema.NullOr(Schema.String),
  endedAt: Schema.NullOr(Schema.String),
  turns: Schema.Array(TranscriptTurn),
  compactions: Schema.Array(Compaction),
  parseWarnings: Schema.Array(ParseWarning),
  diagnostics: Schema.Array(TranscriptDiagnostic)
})
export type Transcript = typeof Transcript.Type

/**
 * A diagnostic: a machine code and a sentence for people, with what to do
 * about it when there is something (`remediation`, which `import` reports
 * with a partial coverage it causes). Content-free.
 */
export interface Diagnostic {
  readonly code: string
  readonly message: string
  readonly remediation?: string | undefined
  readonly details?: Record<string, unknown>
}

/**
 * Completeness of a source: `complete` when it recorded an orderly end,
 * `provisional` when it may still grow or ended abnormally (seed 001).
 */
export type InspectionStatus = "complete" | "provisional"

/**
 * What `inspect` answers about one source: its identity, completeness, the
 * sessions it holds, how many events it yields, and provider-specific
 * provenance and diagnostics. Content-free apart from ids and counts.
 */
export interface Inspection {
  readonly provider: ProviderId
  readonly locatorClass: LocatorClass
  readonly sourceId: string
  readonly locator: string
  readonly status: InspectionStatus
  readonly sessions: ReadonlyArray<{ readonly sessionId: string; readonly [k: string]: unknown }>
  readonly eventCount: number
  readonly firstEventAt: string | null
  readonly lastEventAt: string | null
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly provenance: Record<string, unknown>
}

/** Discovery status of one provider (DESIGN.md; seed 001 "not-checked"). */
export type ProviderStatus = "checked" | "not-checked" | "unavailable"

/**
 * What discovery knows about a source, typed, the same for every provider
 * (contract 1.1.0, issue 12): the one part of a discovery that other modules
 * (the index, `sessions`, `show`, `discover`'s listing) read.
 *
 * - `sessionId`: the session these facts are about (a source may hold
 *   others), null when discovery did not read one (an explicit file).
 * - `title`: the provider's title (Muse agents and Claude Code: the title or
 *   first real prompt), null when it has none.
 * - `workspace`: the working folder (Claude Code and AgentMux `cwd`; Muse
 *   Code: the workspace path that selected the log), null when unknown.
 * - `firstActivityAt` / `lastActivityAt`: RFC 3339, the first and last
 *   activity discovery saw (a header's time counts), null when unknown.
 * - `model`: the session's model, null when the source does not say.
 * - `counts`: prompts, tool calls, runs (AgentMux) and lines read; each
 *   null when the provider does not count it.
 * - `parseWarnings` / `diagnostics`: the lines skipped and what else was
 *   left out (see {@link ParseWarning}, {@link TranscriptDiagnostic}).
 */
export const SourceSummary = Schema.Struct({
  sessionId: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  workspace: Schema.NullOr(Schema.String),
  firstActivityAt: Schema.NullOr(Schema.String),
  lastActivityAt: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  counts: Schema.Struct({
    prompts: Schema.NullOr(Schema.Int),
    toolCalls: Schema.NullOr(Schema.Int),
    runs: Schema.NullOr(Schema.Int),
    lines: Schema.NullOr(Schema.Int)
  }),
  parseWarnings: Schema.Array(ParseWarning),
  diagnostics: Schema.Array(TranscriptDiagnostic),
  /**
   * Titles of the other sessions the source holds (Claude Code subagents:
   * the spawning Task call's description, else the subagent's first
   * prompt), by session id; absent when there are none.
   */
  sessionTitles: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
export type SourceSummary = typeof SourceSummary.Type

/**
 * The title a source's summary gives one of its sessions (what the index stores as the session's title): the
 * source's own session (or every session, when the summary names none) is titled by `title`, another one (a Claude
 * Code subagent) by its entry of `sessionTitles`; null when the summary gives it none.
 */
export const sessionTitleIn = (summary: Pick<SourceSummary, "sessionId" | "title" | "sessionTitles">, sessionId: string): string | null =>
  summary.sessionId === null || summary.sessionId === sessionId ? summary.title : summary.sessionTitles?.[sessionId] ?? null

/** A {@link SourceSummary} that knows nothing but, maybe, its session (an explicit source, before it is read). */
export const emptySourceSummary = (sessionId: string | null = null): SourceSummary => ({
  sessionId,
  title: null,
  workspace: null,
  firstActivityAt: null,
  lastActivityAt: null,
  model: null,
  counts: { prompts: null, toolCalls: null, runs: null, lines: null },
  parseWarnings: [],
  diagnostics: []
})

/**
 * One source found by discovery.
 *
 * - `overview`: the typed {@link SourceSummary}, what other modules read.
 * - `summary`: the provider's own fields as its spec names them (seed 000's
 *   `firstPrompt`, `promptCount`, …; AgentMux's `runs`), shown by `discover`
 *   and handed back to the provider's next discovery (`known`); never read
 *   by key outside the provider.
 */
export interface DiscoveredSource {
  readonly provider: ProviderId
  readonly sourceId: string
  readonly locator: Locator
  readonly sessionId: string | null
  readonly overview: SourceSummary
  readonly summary: Record<string, unknown>
  /**
   * The `lstat` of `locator.path` that discovery took to select the source
   * (bytes, ms since the epoch, inode), when it took one: the importer's
   * unchanged check fingerprints it instead of a stat of its own (see
   * `fingerprintOf` in the importer). Absent: the importer stats the file.
   */
  readonly stat?: FingerprintStat | undefined
  /**
   * The source's parts (nested logs, real paths), when discovery looked for
   * them as the adapter's `parts` would list them: the importer's unchanged
   * check takes these instead of listing them again. Absent: the importer
   * asks the adapter. A part added after discovery is found by the next run,
   * as a change after discovery's stat is.
   */
  readonly parts?: ReadonlyArray<string> | undefined
  /**
   * The fingerprint discovery made of the source from the stats it took (its
   * file's and each of `parts`', as the importer's `fingerprintOf` makes it
   * for a source with no `-wal`), when it made one to select the source
   * again unchanged: the importer's unchanged check compares it with the
   * checkpoint's instead of stat-ing the parts again (as `stat` spares the
   * file's). Absent: the importer fingerprints `stat` and `parts` itself.
   */
  readonly fingerprint?: string | undefined
}

/**
 * What `discover` answers for one provider: the selected sources, the
 * provider's status and coverage, a reason code and remediation when partial,
 * diagnostics, and provider receipts (e.g. `museSourceInspections`).
 */
export interface DiscoveryReport {
  readonly provider: ProviderId
  readonly status: ProviderStatus
  readonly coverage: "complete" | "partial"
  readonly sourceCount: number
  readonly reasonCode: string | null
  readonly remediation: string | null
  readonly sources: ReadonlyArray<DiscoveredSource>
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly receipts: Record<string, unknown>
  /**
   * The real paths of the roots this discovery went through (providers whose
   * sources are files under roots: Muse Code native, Muse agents). The
   * importer checks the sources it imported before from below them that were
   * not listed this time (their file changed: is what was imported still
   * there?). Absent: none (a store, explicit files).
   */
  readonly roots?: ReadonlyArray<string> | undefined
  /**
   * Candidates the provider's spec leaves out (not sessions by its rules), by
   * reason, e.g. Muse agents `{"no-session-header": 1,
   * "no-prompts-or-tool-calls": 2}` (seed 000). Nothing was missed, so they
   * do not make coverage partial; each also has a diagnostic naming it.
   * Absent or `{}`: none.
   */
  readonly omitted?: Readonly<Record<string, number>> | undefined
  /**
   * Sentences for people on what was left out without making coverage
   * partial, that a user should hear of even when all is complete (e.g.
   * Muse Code logs of another workspace: how many, and which workspaces).
   * `import` prints them; each is also a diagnostic. Absent: none.
   */
  readonly notes?: ReadonlyArray<string> | undefined
}

/** Operations a provider may support. */
export type Operation = "discover" | "inspect" | "stream" | "transcript"

/** What the registry reports about a provider. */
export interface ProviderDescriptor {
  readonly provider: ProviderId
  readonly displayName: string
  /** How sources are acquired and what the policy on bad input is. */
  readonly disposition: string
  readonly operations: ReadonlyArray<Operation>
  readonly locatorClasses: ReadonlyArray<LocatorClass>
  /** The spec it follows. */
  readonly spec: string
}
