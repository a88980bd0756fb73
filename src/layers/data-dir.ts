/**
 * Where session-ingest keeps its own files (the index, the scan state):
 * `$XDG_DATA_HOME/session-ingest`, else `~/.local/share/session-ingest`.
 * Never inside a provider's store.
 *
 * @module
 */
import * as os from "node:os"
import * as nodePath from "node:path"

/** session-ingest's data folder (not created here). */
export const dataDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env.XDG_DATA_HOME
  const base = xdg !== undefined && nodePath.isAbsolute(xdg) ? xdg : nodePath.join(os.homedir(), ".local", "share")
  return nodePath.join(base, "session-ingest")
}

/** The default index file: `<dataDir>/index.db`. */
export const defaultIndexFile = (env: NodeJS.ProcessEnv = process.env): string => nodePath.join(dataDir(env), "index.db")

/** The default config file: `$XDG_CONFIG_HOME/session-ingest/config.json`, else `~/.config/session-ingest/config.json`. */
export const defaultConfigFile = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg !== undefined && nodePath.isAbsolute(xdg) ? xdg : nodePath.join(os.homedir(), ".config")
  return nodePath.join(base, "session-ingest", "config.json")
}
