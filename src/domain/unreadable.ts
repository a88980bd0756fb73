/**
 * "Could not be read" as distinct from "changed": a source file or folder
 * that is there but whose bytes or entries cannot be had (permission denied,
 * an I/O error) says nothing about its content. The importer keeps such a
 * source as it is in the index (never superseded, never a new generation),
 * counts it as `unreadable` and reports a `SOURCE_UNREADABLE` cause that
 * makes coverage partial (docs/import.md "Unreadable sources").
 *
 * The access layer marks such failures: a `SourceNotAuthorized` whose
 * `details` are {@link UnreadableDetails}.
 *
 * @module
 */

/** The `details` of an access error for a path that is there but cannot be read. */
export interface UnreadableDetails {
  readonly unreadable: true
  /** The path the failed call was about. */
  readonly path: string
  /** The Node error code (`EACCES`, `EPERM`, `EIO`, …; `unknown` when there was none). */
  readonly errno: string
}

/** The {@link UnreadableDetails} of a failed call on `path` with `errno`. */
export const unreadableDetails = (path: string, errno: string): UnreadableDetails => ({ unreadable: true, path, errno })

/** The unreadable details of an error, if it is an access error for a path that could not be read; else undefined. */
export const unreadableOf = (e: unknown): UnreadableDetails | undefined => {
  if (typeof e !== "object" || e === null || !("details" in e)) return undefined
  const d = (e as { details: unknown }).details
  return typeof d === "object" && d !== null && (d as { unreadable?: unknown }).unreadable === true
    ? d as UnreadableDetails
    : undefined
}

/**
 * The `errno` of {@link UnreadableDetails} for a file that was replaced by
 * another one (another inode or birth time) between a look at it and its read
 * in the same run: what was read is not the file that was looked at, so
 * nothing is known of the source's content this run.
 */
export const REPLACED = "REPLACED"

/** The `details` of the access layer's error for a file replaced after it was authorized (`path`: the file). */
export interface ReplacedDetails {
  readonly replaced: true
  readonly path: string
}

/** The {@link ReplacedDetails} of `path`. */
export const replacedDetails = (path: string): ReplacedDetails => ({ replaced: true, path })

/** Whether an error is the access layer's "replaced after it was authorized" (its details are {@link ReplacedDetails}). */
export const isReplaced = (e: unknown): boolean => {
  if (typeof e !== "object" || e === null || !("details" in e)) return false
  const d = (e as { details: unknown }).details
  return typeof d === "object" && d !== null && (d as { replaced?: unknown }).replaced === true
}

/** Whether `errno` is a permission refusal (rather than an I/O error). */
export const isPermission = (errno: string): boolean => errno === "EACCES" || errno === "EPERM"

/** The code of the import report's cause for a source kept because it could not be read. */
export const SOURCE_UNREADABLE = "SOURCE_UNREADABLE"

/**
 * The problem and remedy of a `SOURCE_UNREADABLE` cause for `path` (the
 * source's file), given what failed.
 */
export const unreadableCause = (path: string, d: UnreadableDetails): { readonly problem: string; readonly remedy: string } =>
  d.errno === REPLACED
    ? {
      problem: `${path} was replaced by another file while this run read it (after discovery looked at it, before its read). ` +
        "What was imported from it before is kept as it was (not superseded); the file was not read this run.",
      remedy: "Import again: the next run reads the file as it is then (if it keeps being replaced, copy it somewhere stable first)."
    }
    : isPermission(d.errno)
    ? {
      problem: `${path} could not be read: permission denied (${d.errno}${d.path !== path ? ` on ${d.path}` : ""}). ` +
        "What was imported from it before, if anything, is kept as it was (not superseded).",
      remedy: `Grant read permission to the user running session-ingest (e.g. chmod u+r on the file, u+rx on its folders: ${d.path}) and import again.`
    }
    : {
      problem: `${path} could not be read (${d.errno}${d.path !== path ? ` on ${d.path}` : ""}). ` +
        "What was imported from it before, if anything, is kept as it was (not superseded).",
      remedy: "Check the disk or file system holding it, then import again."
    }
