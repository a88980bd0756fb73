/**
 * The Claude Code projects root (`fixtures/claude-code/README.md`, "Where the
 * files are"): `--claude-root`, else `$CLAUDE_CONFIG_DIR/projects`, else
 * `~/.claude/projects`. Pure: the environment and home folder are passed in.
 *
 * @module
 */
import * as nodePath from "node:path"

/** Where the root came from. */
export type ClaudeRootOrigin = "option" | "env" | "default"

/** The resolved root (absolute, `~` expanded) and its origin. */
export interface ClaudeRoot {
  readonly path: string
  readonly origin: ClaudeRootOrigin
}

const expandHome = (p: string, home: string): string =>
  p === "~" ? home : p.startsWith("~/") ? nodePath.join(home, p.slice(2)) : p

/** Resolve the root: the option, else a non-empty `$CLAUDE_CONFIG_DIR` + `/projects`, else `~/.claude/projects`. */
export const resolveClaudeRoot = (
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: string
): ClaudeRoot => {
  if (option !== undefined && option.length > 0) return { path: nodePath.resolve(expandHome(option, home)), origin: "option" }
  const dir = env.CLAUDE_CONFIG_DIR
  if (dir !== undefined && dir.length > 0) {
    return { path: nodePath.join(nodePath.resolve(expandHome(dir, home)), "projects"), origin: "env" }
  }
  return { path: nodePath.join(home, ".claude", "projects"), origin: "default" }
}

/** A session log's file name: `<session-uuid>.jsonl`, not a flat-layout subagent file `agent-<id>.jsonl`. */
export const isSessionFileName = (name: string): boolean => name.endsWith(".jsonl") && !name.startsWith("agent-") && name.length > 6

/** The session id of a session log: its file stem. */
export const sessionIdOfFile = (name: string): string => name.slice(0, -".jsonl".length)

/** The agent id of a nested subagent file `agent-<agentId>.jsonl`, or null. */
export const agentIdOfFile = (name: string): string | null => {
  const m = /^agent-(.+)\.jsonl$/.exec(name)
  return m === null ? null : m[1]
}

/** The folder of a session's nested subagent files: `<dir>/<session-uuid>/subagents`. */
export const subagentsDirOf = (sessionPath: string): string =>
  nodePath.join(nodePath.dirname(sessionPath), sessionIdOfFile(nodePath.basename(sessionPath)), "subagents")

/**
 * Whether a folder name is one Claude Code gives a project folder: the project's absolute path with every character
 * other than a letter or digit made `-` (`/home/me/app` -> `-home-me-app`, `C:\Users\me` -> `C--Users-me`). A folder
 * under the root named otherwise (`src`, `node_modules`) is a sign that the root is not the projects root.
 */
export const isEncodedCwdName = (name: string): boolean => name.startsWith("-") || /^[A-Za-z]--/.test(name)
