/**
 * The Claude Code adapter (provider `claude-code`): session logs
 * `<claude-root>/<encoded-cwd>/<session-uuid>.jsonl` (locator class
 * `claude-code-session-log`) with their nested subagent files, under
 * `--claude-root`, else `$CLAUDE_CONFIG_DIR/projects`, else
 * `~/.claude/projects` (`fixtures/claude-code/README.md`). Policy: tolerant,
 * a bad line is skipped and counted.
 *
 * @module
 */
import * as os from "node:os"
import * as Effect from "effect/Effect"
import type { ProviderDescriptor } from "../../domain/model.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { SourceAccess } from "../../services/SourceAccess.js"
import { descriptorOf } from "../provider.js"
import { discoverSessions } from "./discover.js"
import { provider } from "./provider.js"
import { type ClaudeDeps, inspectSession, streamSession, subagentPaths, transcriptOf } from "./source.js"

/** The descriptor of `claude-code`, from its provider module. */
export const descriptor: ProviderDescriptor = descriptorOf(provider)

/** Build the adapter with explicit process facts (environment for `CLAUDE_CONFIG_DIR`, home folder). */
export const makeWith = (
  process_: { readonly env: Readonly<Record<string, string | undefined>>; readonly home: string }
): Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> =>
  Effect.gen(function*() {
    const deps: ClaudeDeps = {
      access: yield* SourceAccess,
      limits: yield* ImportLimits,
      policy: yield* AccessPolicy,
      env: process_.env,
      home: process_.home
    }
    return {
      descriptor,
      discover: (request) => discoverSessions(deps, request.known, request.skipped),
      inspect: (locator) => inspectSession(deps, locator),
      stream: (locator, options) => streamSession(deps, locator, options),
      transcript: (locator) => transcriptOf(deps, locator),
      parts: (locator) => subagentPaths(deps.access, locator.path),
      // One session file is one source (its session id is its file stem); its subagent files are parts of it.
      sourcePerFile: true,
      noWal: true
    }
  })

/** Build the adapter from the access services in context and this process's environment and home folder. */
export const make: Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> = Effect
  .suspend(() => makeWith({ env: process.env, home: os.homedir() }))
