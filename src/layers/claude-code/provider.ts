/**
 * The `claude-code` provider module: Claude Code session logs
 * `<claude-root>/<encoded-cwd>/<session-uuid>.jsonl` (`claude-code-session-log`)
 * with their nested subagent files, under `--claude-root`, else
 * `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. Format:
 * `fixtures/claude-code/README.md`. Adapter: `./adapter.ts`, loaded on first use.
 *
 * @module
 */
import { type AdapterMake, define } from "../provider.js"

/** The module (see `../provider.ts`). */
export const provider = define({
  id: "claude-code",
  locatorClasses: ["claude-code-session-log"],
  about: {
    displayName: "Claude Code",
    disposition:
      "Session logs <claude-root>/<encoded-cwd>/<session-uuid>.jsonl with their subagents (<session-uuid>/subagents/agent-<id>.jsonl, and older inline sidechains) under --claude-root, else $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects. Tolerant: a bad line is skipped and counted as a parse warning, never fatal.",
    operations: ["discover", "inspect", "stream", "transcript"],
    spec: "fixtures/claude-code/README.md"
  },
  settings: {
    /** The projects root; undefined: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
    claudeRoot: {
      target: "access",
      many: false,
      path: true,
      flag: "claude-root",
      pseudo: "DIR",
      description: "Claude Code projects root (default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects).",
      on: "roots",
      configKey: "claudeRoot"
    }
  },
  // Always discovered (the root has a default); a root the operator named (option, config or environment) must be there.
  plan: ({ claudeRoot }) => ({
    discover: [{
      provider: "claude-code",
      request: {},
      configured: claudeRoot !== undefined || (process.env.CLAUDE_CONFIG_DIR ?? "") !== ""
    }],
    explicit: [],
    skipped: []
  }),
  load: (): Promise<AdapterMake> => import("./adapter.js").then((m) => m.make)
})
