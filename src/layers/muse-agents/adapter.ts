/**
 * The Muse agents adapter (provider `muse-agents`): transcripts
 * `<agents-root>/<agentId>/sessions/<agentId>.jsonl` (locator class
 * `muse-agent-transcript`) under `--agents-root`, else `$MUSE_AGENTS_DIR`, else
 * `~/agents` (seed `000_…`). Policy: tolerant, a bad line is skipped and
 * counted as a parse warning, never fatal.
 *
 * @module
 */
import * as os from "node:os"
import * as Effect from "effect/Effect"
import type { ProviderDescriptor } from "../../domain/model.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { descriptorOf } from "../provider.js"
import { provider } from "./provider.js"
import { SourceAccess } from "../../services/SourceAccess.js"
import { discoverAgents } from "./discover.js"
import { type AgentsDeps, inspectTranscript, streamTranscript, transcriptOf } from "./source.js"

/** The descriptor of `muse-agents`, from its provider module (`./provider.ts`). */
export const descriptor: ProviderDescriptor = descriptorOf(provider)

/**
 * Build the adapter from the access services in context, with explicit
 * process facts (environment for `MUSE_AGENTS_DIR`, home folder for
 * `~/agents`); {@link make} uses the real process's.
 */
export const makeWith = (
  process_: { readonly env: Readonly<Record<string, string | undefined>>; readonly home: string }
): Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> =>
  Effect.gen(function*() {
    const deps: AgentsDeps = {
      access: yield* SourceAccess,
      limits: yield* ImportLimits,
      policy: yield* AccessPolicy,
      env: process_.env,
      home: process_.home
    }
    return {
      descriptor,
      discover: (request) => discoverAgents(deps, request.known, request.skipped),
      inspect: (locator) => inspectTranscript(deps, locator),
      stream: (locator, options) => streamTranscript(deps, locator, options),
      transcript: (locator) => transcriptOf(deps, locator),
      // One transcript file is one source; its key also carries the session id read from its header.
      sourcePerFile: true,
      noWal: true
    }
  })

/** Build the adapter from the access services in context and this process's environment and home folder. */
export const make: Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> = Effect
  .suspend(() => makeWith({ env: process.env, home: os.homedir() }))
