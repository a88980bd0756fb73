/**
 * The tagged error family of session-ingest.
 *
 * Every failure a user can cause (bad option, missing file, malformed source, …)
 * is one of these classes: a `Schema.TaggedError` with a literal `code`, a
 * `message` that says what went wrong, an optional `remediation` that says what
 * to do instead, and optional JSON-safe `details`. The `code` is a field of
 * the schema, so an encoded error keeps it; {@link IngestError} is the family
 * as one `Schema.Union`. Handlers pick members by tag (`Effect.catchTag`). A
 * defect is reserved for a real bug. Codes and CLI exit codes:
 * `../shared/DESIGN.md`, "Errors".
 *
 * @module
 */
import * as Schema from "effect/Schema"

/**
 * The fields of a member: its literal `code` (a schema field, so that it is
 * encoded with the error and checked when decoding; constructors fill it in,
 * as `Schema.tag` does), the `message`, the optional `remediation` and
 * JSON-safe `details`.
 */
const fieldsOf = <Code extends string>(code: Code) => ({
  code: Schema.tag(code),
  message: Schema.String,
  remediation: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Unknown)
})

/** `INVALID_ARGUMENT` (exit 2): a bad option value or an unknown provider. */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", fieldsOf("INVALID_ARGUMENT")) {}

/**
 * `INVALID_SEARCH_QUERY` (exit 2): a search query that does not parse (an
 * unclosed phrase or group, an operator with nothing on one side, a query of
 * only negated words). `details`: `{query, position}`, `position` the
 * 0-based offset in the query of the problem (the message counts from 1);
 * `query` at most 2,000 characters (`MAX_QUERY_LENGTH`, a longer one cut,
 * ending in `\u2026`, with `queryLength` its length).
 * Source: issue 14 ("Search").
 */
export class InvalidSearchQuery extends Schema.TaggedError<InvalidSearchQuery>()("InvalidSearchQuery", fieldsOf("INVALID_SEARCH_QUERY")) {}

/**
 * `UNSUPPORTED_OPERATION` (exit 3): an operation or locator class the provider
 * does not support, or discovery without an authorized root (seed 001).
 */
export class UnsupportedOperation extends Schema.TaggedError<UnsupportedOperation>()("UnsupportedOperation", fieldsOf("UNSUPPORTED_OPERATION")) {}

/** `SOURCE_NOT_FOUND` (exit 4): the file or root does not exist. */
export class SourceNotFound extends Schema.TaggedError<SourceNotFound>()("SourceNotFound", fieldsOf("SOURCE_NOT_FOUND")) {}

/** `SOURCE_NOT_AUTHORIZED` (exit 4): no authorized root covers the request, or it is unreadable. */
export class SourceNotAuthorized extends Schema.TaggedError<SourceNotAuthorized>()("SourceNotAuthorized", fieldsOf("SOURCE_NOT_AUTHORIZED")) {}

/** `SOURCE_OUTSIDE_ALLOWED_ROOT` (exit 4): the real path lies outside every authorized root. */
export class SourceOutsideAllowedRoot
  extends Schema.TaggedError<SourceOutsideAllowedRoot>()("SourceOutsideAllowedRoot", fieldsOf("SOURCE_OUTSIDE_ALLOWED_ROOT"))
{}

/** `SOURCE_SYMLINK` (exit 4): the source, or a folder on its way below the root, is a symlink. */
export class SourceSymlink extends Schema.TaggedError<SourceSymlink>()("SourceSymlink", fieldsOf("SOURCE_SYMLINK")) {}

/** `SOURCE_NOT_REGULAR_FILE` (exit 4): a folder, device or fifo where a file was expected. */
export class SourceNotRegularFile extends Schema.TaggedError<SourceNotRegularFile>()("SourceNotRegularFile", fieldsOf("SOURCE_NOT_REGULAR_FILE")) {}

/** `MALFORMED_SOURCE` (exit 5): not JSON, the wrong shape, or a bad line under a fail-closed policy. */
export class MalformedSource extends Schema.TaggedError<MalformedSource>()("MalformedSource", fieldsOf("MALFORMED_SOURCE")) {}

/** `UNKNOWN_SCHEMA_MAJOR` (exit 5): an integer schema major this build does not know (seed 001). */
export class UnknownSchemaMajor extends Schema.TaggedError<UnknownSchemaMajor>()("UnknownSchemaMajor", fieldsOf("UNKNOWN_SCHEMA_MAJOR")) {}

/** `RESOURCE_LIMIT_EXCEEDED` (exit 5): an import limit (bytes, nesting depth, record size) was passed. */
export class ResourceLimitExceeded extends Schema.TaggedError<ResourceLimitExceeded>()("ResourceLimitExceeded", fieldsOf("RESOURCE_LIMIT_EXCEEDED")) {}

/** `INVALID_CURSOR` (exit 5): a malformed cursor, or one of another or a rewritten source. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", fieldsOf("INVALID_CURSOR")) {}

/** `STORE_UNAVAILABLE` (exit 6): a SQLite store or index that cannot be opened or is not a database. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", fieldsOf("STORE_UNAVAILABLE")) {}

/**
 * `OUTPUT_WRITE_FAILED` (exit 7): a file session-ingest was asked to write
 * (`export --out FILE`) could not be written: a full disk, a read-only or
 * missing folder, an I/O error. `details`: `{path, code, reason}` (`code` the
 * errno, e.g. `ENOSPC`). Nothing is left at the path.
 */
export class OutputWriteFailed extends Schema.TaggedError<OutputWriteFailed>()("OutputWriteFailed", fieldsOf("OUTPUT_WRITE_FAILED")) {}

/** Errors of authorized source access (all exit 4). */
export type SourceAccessError =
  | SourceNotFound
  | SourceNotAuthorized
  | SourceOutsideAllowedRoot
  | SourceSymlink
  | SourceNotRegularFile

/** Errors of reading a source's content (all exit 5). */
export type SourceContentError = MalformedSource | UnknownSchemaMajor | ResourceLimitExceeded

/**
 * The whole family as one schema (as `@effect/platform`'s `Error.ts` has
 * `PlatformError`): decodes any member from its encoded form
 * `{_tag, code, message, remediation?, details?}` (the tag picks the class,
 * the code must be that class's) and encodes any member with its code.
 */
export const IngestError = Schema.Union(
  InvalidArgument,
  InvalidSearchQuery,
  UnsupportedOperation,
  SourceNotFound,
  SourceNotAuthorized,
  SourceOutsideAllowedRoot,
  SourceSymlink,
  SourceNotRegularFile,
  MalformedSource,
  UnknownSchemaMajor,
  ResourceLimitExceeded,
  InvalidCursor,
  StoreUnavailable,
  OutputWriteFailed
)

/** Every error of the family. */
export type IngestError =
  | InvalidArgument
  | InvalidSearchQuery
  | UnsupportedOperation
  | SourceAccessError
  | SourceContentError
  | InvalidCursor
  | StoreUnavailable
  | OutputWriteFailed

/** The literal codes of the family. */
export type ErrorCode = IngestError["code"]

export { errorToJson, exitCodeOf, isIngestError } from "./error-codes.js"
