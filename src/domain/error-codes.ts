/**
 * The codes of the error family as plain data: the CLI exit code of each, a
 * membership test, and the JSON form of an error (DESIGN.md, "Errors"). Kept
 * apart from the error classes (`./errors.ts`, which re-exports them) so that
 * the CLI's start-up, which needs only these, does not build the classes'
 * schemas.
 *
 * @module
 */
import type { ErrorCode, IngestError } from "./errors.js"

/** CLI exit code per error code (DESIGN.md, "Errors"). */
export const exitCodeOf: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 2,
  INVALID_SEARCH_QUERY: 2,
  UNSUPPORTED_OPERATION: 3,
  SOURCE_NOT_FOUND: 4,
  SOURCE_NOT_AUTHORIZED: 4,
  SOURCE_OUTSIDE_ALLOWED_ROOT: 4,
  SOURCE_SYMLINK: 4,
  SOURCE_NOT_REGULAR_FILE: 4,
  MALFORMED_SOURCE: 5,
  UNKNOWN_SCHEMA_MAJOR: 5,
  RESOURCE_LIMIT_EXCEEDED: 5,
  INVALID_CURSOR: 5,
  STORE_UNAVAILABLE: 6,
  OUTPUT_WRITE_FAILED: 7
}

/** True for any member of the error family (used at the CLI boundary). */
export const isIngestError = (u: unknown): u is IngestError =>
  typeof u === "object" && u !== null && "code" in u && typeof (u as { code: unknown }).code === "string" &&
  (u as { code: string }).code in exitCodeOf

/** The JSON shape of an error in the CLI envelope: `{code, message, details?}`. */
export const errorToJson = (e: IngestError): { code: ErrorCode; message: string; remediation?: string; details?: unknown } => ({
  code: e.code,
  message: e.message,
  ...(e.remediation !== undefined ? { remediation: e.remediation } : {}),
  ...(e.details !== undefined ? { details: e.details } : {})
})
