/**
 * session-ingest: AI coding-agent sessions as one normalized, typed,
 * resumable record. The public API of the library.
 *
 * @module
 */
export * from "./domain/errors.js"
export * from "./domain/model.js"
export { decodeCursor, encodeCursor, type CursorState } from "./domain/cursor.js"
export { normalizeTimestamp } from "./domain/timestamps.js"
export { renderTranscriptMarkdown, renderTranscriptText } from "./domain/render.js"
export { AccessPolicy, type AccessPolicyShape } from "./services/AccessPolicy.js"
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
