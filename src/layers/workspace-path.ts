/**
 * A workspace filter's folder as given on this machine (`--workspace DIR`, the MCP tools' `workspace`) made the
 * path the index compares: a leading `~` is the home folder, a relative path is taken from the working directory,
 * and an existing folder is its real path (symbolic links resolved); a folder that does not exist here is kept as
 * written, absolute (a team index holds other machines' workspaces). Trailing `/` are dropped (the root stays `/`).
 *
 * @module
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"

/** The absolute, `~`-expanded, real (when it exists) path of the folder `dir`. */
export const workspacePath = (dir: string): string => {
  const expanded = dir === "~" ? os.homedir() : dir.startsWith("~/") ? nodePath.join(os.homedir(), dir.slice(2)) : dir
  const abs = nodePath.resolve(expanded)
  try {
    return fs.realpathSync(abs)
  } catch {
    return abs
  }
}
