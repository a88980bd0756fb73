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

/** Whether `errno` is a permission refusal (rather than an I/O error). */
export const isPermission = (errno: string): boolean => errno === "EACCES" || errno === "EPERM"

/** The code of the import report's cause for a source kept because it could not be read. */
export const SOURCE_UNREADABLE = "SOURCE_UNREADABLE"

/**
 * The problem and remedy of a `SOURCE_UNREADABLE` cause for `path` (the
 * source's file), given what failed.
 */
export const unreadableCause = (path: string, d: UnreadableDetails): { readonly problem: string; readonly remedy: string } =>
  isPermission(d.errno)
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
