/**
 * The Muse agents root and layout (seed `000_…`, first section):
 * `<agentsRoot>/<agentId>/sessions/<agentId>.jsonl` plus the best-effort
 * `<agentsRoot>/<agentId>/sessions/sessions.json`. Pure: the environment and
 * home folder are passed in.
 *
 * @module
 */
import * as nodePath from "node:path"

/** Where the root came from: `--agents-root`, `$MUSE_AGENTS_DIR`, or the `~/agents` default. */
export type AgentsRootOrigin = "option" | "env" | "default"

/** The resolved root (an absolute path, `~` expanded) and its origin. */
export interface AgentsRoot {
  readonly path: string
  readonly origin: AgentsRootOrigin
}

const expandHome = (p: string, home: string): string =>
  p === "~" ? home : p.startsWith("~/") || p.startsWith("~\\") ? nodePath.join(home, p.slice(2)) : p

/**
 * Resolve the agents root (seed 000; issue 4): the `--agents-root` option,
 * else a non-empty `$MUSE_AGENTS_DIR`, else `~/agents`. A leading `~` is
 * expanded against `home`; relative paths resolve against the working directory.
 */
export const resolveAgentsRoot = (
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: string
): AgentsRoot => {
  if (option !== undefined && option.length > 0) {
    return { path: nodePath.resolve(expandHome(option, home)), origin: "option" }
  }
  const fromEnv = env.MUSE_AGENTS_DIR
  if (fromEnv !== undefined && fromEnv.length > 0) {
    return { path: nodePath.resolve(expandHome(fromEnv, home)), origin: "env" }
  }
  return { path: nodePath.join(home, "agents"), origin: "default" }
}

/** The transcript file name of an agent: `<agentId>.jsonl`. */
export const transcriptFileName = (agentId: string): string => `${agentId}.jsonl`

/** The runtime index file name beside a transcript. */
export const SESSIONS_INDEX_FILE = "sessions.json"

/** The folder under an agent folder that holds its transcript. */
export const SESSIONS_DIR = "sessions"
