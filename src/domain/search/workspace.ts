/**
 * The workspace filter of the query commands and MCP tools (`sessions --workspace DIR`, `search --workspace DIR`,
 * `usage --workspace DIR`, `list_sessions` / `search_sessions` `workspace`): a session matches when its workspace
 * is DIR or a folder below it, compared a path component at a time (docs/search.md: "the session's workspace is
 * DIR or below"): `/home` holds `/home/alice/app` but not `/homework`, and `/` holds every absolute workspace.
 *
 * @module
 */

/** A filter folder as it is compared: `folder` without trailing `/` (the root stays `/`), `under` the prefix of the folders below it. */
export interface WorkspaceFolder {
  readonly folder: string
  readonly under: string
}

/** The folder `dir` (an absolute path, as `path.resolve` gives; trailing `/` allowed) as the filter compares it. */
export const workspaceFolder = (dir: string): WorkspaceFolder => {
  const folder = dir.replace(/(.)\/+$/, "$1")
  return { folder, under: folder.endsWith("/") ? folder : folder + "/" }
}

/** Whether the workspace `w` is the folder `f` or below it (null: a session without workspace, never). */
export const inWorkspaceFolder = (f: WorkspaceFolder, w: string | null): boolean =>
  w !== null && (w === f.folder || w.startsWith(f.under))
