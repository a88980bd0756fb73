/**
 * session-ingest: AI coding-agent sessions as one normalized, typed,
 * resumable record. The public API of the library.
 *
 * @module
 */
export * from "./domain/errors.js"
export * from "./domain/model.js"
export { decodeCursor, encodeCursor, type CursorState } from "./domain/cursor.js"
export { compareTimestamps, normalizeTimestamp } from "./domain/timestamps.js"
export { renderTranscriptMarkdown, renderTranscriptText } from "./domain/render.js"
export { AccessPolicy, type AccessPolicyInput, type AccessPolicyShape } from "./services/AccessPolicy.js"
/** The provider registry (`providers`, `providerIds`, `locatorClasses`, `settings`) and what a provider module is. */
export * as Registry from "./layers/registry.js"
export type { ProviderModule, Setting } from "./layers/provider.js"
export { ImportLimits, type ImportLimitsShape, defaultImportLimits } from "./services/ImportLimits.js"
export {
  type DiscoverRequest,
  SessionSources,
  type SessionSourceAdapter,
  type SessionSourcesShape,
  type StreamOptions
} from "./services/SessionSource.js"
export { SourceAccess, type SourceAccessShape } from "./services/SourceAccess.js"
/** The whole library as one layer: `SessionIngest.layer(policy, limits)`. */
export * as SessionIngest from "./layers/app.js"
/** The Node filesystem layer of SourceAccess. */
export * as SourceAccessNode from "./layers/SourceAccessNode.js"
export { DiscoveryBudget } from "./services/DiscoveryBudget.js"
export { Index, type IndexShape, type SessionRow, type SessionStatus, sessionStatusOf, type SessionFilter, type SearchFilter, type SearchHit, DEFAULT_SEARCH_LIMIT } from "./services/Index.js"
/** The search query language: `compileQuery` (to a safe FTS5 MATCH) and `parseQuery`; snippets: `snippetOf`. */
export { compileQuery, parseQuery, type QueryNode } from "./domain/search/query.js"
export { searchableText, snippetOf, type Snippet } from "./domain/search/text.js"
export {
  Importer,
  ImportFaults,
  ImportProgress,
  type ImportProgressShape,
  type ImportProgressUpdate,
  progressFraction,
  type ImportPlan,
  type ImportReport
} from "./services/Importer.js"
export { toAtif, AtifTrajectory } from "./domain/atif.js"
export { transcriptFromEvents } from "./domain/conversation.js"
export { usageTotals, type UsageTotals } from "./domain/usage.js"
export { legacySourceSummary, upgradeEvent } from "./domain/contract-upgrade.js"
/** The SQLite layer of the index: `IndexSqlite.layer(file)`. */
export * as IndexSqlite from "./layers/index/sqlite.js"
/** The PostgreSQL layer of the index (a team's, many machines): `IndexPostgres.layer({ url, machine })`, `IndexPostgres.migrate(url)`. */
export * as IndexPostgres from "./layers/index/postgres.js"
/** `push(from, to, machine)`: a local SQLite index into a PostgreSQL one, incrementally by checkpoints. */
export * as IndexPush from "./layers/index/push.js"
/** The import engine's layer and `planFromPolicy`. */
export * as ImporterLayer from "./layers/index/importer.js"
/** Index queries: `findSession`, `findCompleteSession`, `requireComplete`, `loadSession`, `loadTrajectory`, `sessionTranscript`. */
export * as IndexQueries from "./layers/index/queries.js"
/** The MCP server's answers over the index (list_sessions, get_session, get_events, session resources), redacted. */
export * as McpAnswers from "./layers/mcp/answers.js"
/**
 * The HTML replay (issue 15): `replayInput` (events → what the page shows),
 * `renderReplay` (→ one self-contained, offline HTML page) and its types.
 */
export * as Replay from "./domain/replay/index.js"
/**
 * The lean stream (`stream --lean`, contract lean-1): `leanWriter` (events →
 * lean lines; `leanPartsWriter` the same lines in parts, a payload's source
 * bytes copied), `expandLeanStream` / `leanExpander` (lean lines → the full
 * events, byte-identical to `stream`'s) and `LEAN_STREAM_VERSION`.
 */
export * as LeanStream from "./layers/lean-stream.js"
/** Replays of indexed sessions: `loadReplaySource`, `loadReplayInput`, `replayHtml(id)`. */
export * as IndexReplay from "./layers/index/replay.js"
