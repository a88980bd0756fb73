/**
 * A root option (`--claude-root`, `--agents-root`, `--muse-root`,
 * `--agentmux-root`, `--workspace`) that names something other than a
 * folder: most often one session log or transcript in the folder meant
 * (tester23a F3). The access layer marks such failures (a
 * `SOURCE_NOT_REGULAR_FILE` whose `details` are {@link NotAFolderDetails}),
 * so each provider says what it is ("is a file, not a folder") and names the
 * folder to pass, never that it "cannot be read". Pure.
 *
 * @module
 */

/** The `details` of an access error for a path that had to be a folder and is not. */
export interface NotAFolderDetails {
  /** The path that is not a folder (the root as named, or a part of a path on the way). */
  readonly notAFolder: string
  /** `file`: a regular file; `other`: a fifo, socket or device. */
  readonly kind: "file" | "other"
}

/** The {@link NotAFolderDetails} of `path`, of `kind`. */
export const notAFolderDetails = (path: string, kind: NotAFolderDetails["kind"]): NotAFolderDetails => ({ notAFolder: path, kind })

/** The not-a-folder details of an error, if it is an access error for a path that is not a folder; else undefined. */
export const notAFolderOf = (e: unknown): NotAFolderDetails | undefined => {
  if (typeof e !== "object" || e === null || !("details" in e)) return undefined
  const d = (e as { details: unknown }).details
  return typeof d === "object" && d !== null && typeof (d as { notAFolder?: unknown }).notAFolder === "string" &&
      ((d as { kind?: unknown }).kind === "file" || (d as { kind?: unknown }).kind === "other")
    ? d as NotAFolderDetails
    : undefined
}

/** What `path` is, said after its name: `is a file, not a folder` / `is not a folder (a fifo, socket or device)`. */
export const isNotAFolder = (d: NotAFolderDetails): string =>
  d.kind === "file" ? "is a file, not a folder" : "is not a folder (a fifo, socket or device)"
