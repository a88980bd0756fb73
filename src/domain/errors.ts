/**
 * The tagged error family of session-ingest.
 *
 * Every failure a user can cause (bad option, missing file, malformed source, …)
 * is one of these classes: a `Schema.TaggedError` with a literal `code`, a
 * `message` that says what went wrong, an optional `remediation` that says what
 * to do instead, and optional JSON-safe `details`. A defect is reserved for a
 * real bug. Codes and CLI exit codes: `../shared/DESIGN.md`, "Errors".
 *
 * @module
 */
import * as Schema from "effect/Schema"

const fields = {
  message: Schema.String,
  remediation: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Unknown)
}

/** `INVALID_ARGUMENT` (exit 2): a bad option value or an unknown provider. */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", fields) {
  readonly code = "INVALID_ARGUMENT" as const
}

/**
 * `UNSUPPORTED_OPERATION` (exit 3): an operation or locator class the provider
 * does not support, or discovery without an authorized root (seed 001).
 */
export class UnsupportedOperation extends Schema.TaggedError<UnsupportedOperation>()("UnsupportedOperation", fields) {
  readonly code = "UNSUPPORTED_OPERATION" as const
}

/** `SOURCE_NOT_FOUND` (exit 4): the file or root does not exist. */
export class SourceNotFound extends Schema.TaggedError<SourceNotFound>()("SourceNotFound", fields) {
  readonly code = "SOURCE_NOT_FOUND" as const
}

/** `SOURCE_NOT_AUTHORIZED` (exit 4): no authorized root covers the request, or it is unreadable. */
export class SourceNotAuthorized extends Schema.TaggedError<SourceNotAuthorized>()("SourceNotAuthorized", fields) {
  readonly code = "SOURCE_NOT_AUTHORIZED" as const
}

/** `SOURCE_OUTSIDE_ALLOWED_ROOT` (exit 4): the real path lies outside every authorized root. */
export class SourceOutsideAllowedRoot
  extends Schema.TaggedError<SourceOutsideAllowedRoot>()("SourceOutsideAllowedRoot", fields)
{
  readonly code = "SOURCE_OUTSIDE_ALLOWED_ROOT" as const
}

/** `SOURCE_SYMLINK` (exit 4): the source, or a folder on its way below the root, is a symlink. */
export class SourceSymlink extends Schema.TaggedError<SourceSymlink>()("SourceSymlink", fields) {
  readonly code = "SOURCE_SYMLINK" as const
}

/** `SOURCE_NOT_REGULAR_FILE` (exit 4): a folder, device or fifo where a file was expected. */
export class SourceNotRegularFile extends Schema.TaggedError<SourceNotRegularFile>()("SourceNotRegularFile", fields) {
  readonly code = "SOURCE_NOT_REGULAR_FILE" as const
}

/** `MALFORMED_SOURCE` (exit 5): not JSON, the wrong shape, or a bad line under a fail-closed policy. */
export class MalformedSource extends Schema.TaggedError<MalformedSource>()("MalformedSource", fields) {
  readonly code = "MALFORMED_SOURCE" as const
}

/** `UNKNOWN_SCHEMA_MAJOR` (exit 5): an integer schema major this build does not know (seed 001). */
export class UnknownSchemaMajor extends Schema.TaggedError<UnknownSchemaMajor>()("UnknownSchemaMajor", fields) {
  readonly code = "UNKNOWN_SCHEMA_MAJOR" as const
}

/** `RESOURCE_LIMIT_EXCEEDED` (exit 5): an import limit (bytes, nesting depth, record size) was passed. */
export class ResourceLimitExceeded extends Schema.TaggedError<ResourceLimitExceeded>()("ResourceLimitExceeded", fields) {
  readonly code = "RESOURCE_LIMIT_EXCEEDED" as const
}

/** `INVALID_CURSOR` (exit 5): a malformed cursor, or one of another or a rewritten source. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", fields) {
  readonly code = "INVALID_CURSOR" as const
}

/** `STORE_UNAVAILABLE` (exit 6): a SQLite store or index that cannot be opened or is not a database. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", fields) {
  readonly code = "STORE_UNAVAILABLE" as const
}

/**
 * `OUTPUT_WRITE_FAILED` (exit 7): a file session-ingest was asked to write
 * (`export --out FILE`) could not be written: a full disk, a read-only or
 * missing folder, an I/O error. `details`: `{path, code, reason}` (`code` the
 * errno, e.g. `ENOSPC`). Nothing is left at the path.
 */
export class OutputWriteFailed extends Schema.TaggedError<OutputWriteFailed>()("OutputWriteFailed", fields) {
  readonly code = "OUTPUT_WRITE_FAILED" as const
}

/** Errors of authorized source access (all exit 4). */
export type SourceAccessError =
  | SourceNotFound
  | SourceNotAuthorized
  | SourceOutsideAllowedRoot
  | SourceSymlink
  | SourceNotRegularFile

/** Errors of reading a source's content (all exit 5). */
export type SourceContentError = MalformedSource | UnknownSchemaMajor | ResourceLimitExceeded

/** Every error of the family. */
export type IngestError =
  | InvalidArgument
  | UnsupportedOperation
  | SourceAccessError
  | SourceContentError
  | InvalidCursor
  | StoreUnavailable
  | OutputWriteFailed

/** The literal codes of the family. */
export type ErrorCode = IngestError["code"]

export { errorToJson, exitCodeOf, isIngestError } from "./error-codes.js"
