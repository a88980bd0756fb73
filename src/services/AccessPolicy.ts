/**
 * What the operator authorized session-ingest to read. Nothing outside these
 * roots is opened; providers without an authorized root refuse to discover
 * (seed 001: no default Muse root, never `~/.muse`, no home-directory scans).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** Authorized roots, as the operator gave them (absolute or relative to the working directory). */
export interface AccessPolicyShape {
  /**
   * Workspace roots (`--workspace`, default the working directory): explicit
   * files (e.g. `manual-export` trajectories) must lie under one, and native
   * Muse discovery selects logs whose evidence names one.
   */
  readonly workspaceRoots: ReadonlyArray<string>
  /** Muse Code native session roots (`--muse-root`); empty: native discovery is unsupported. */
  readonly museRoots: ReadonlyArray<string>
  /** Muse agents root (`--agents-root`); undefined: the provider's own default (seed 000). */
  readonly agentsRoot?: string | undefined
  /** AgentMux `filestore.db` (`--store`); undefined: the provider's own default (seed 002). */
  readonly agentmuxStore?: string | undefined
  /** session-ingest's own state database (`--state`); undefined: under the user's data directory. */
  readonly stateFile?: string | undefined
}

/** The access policy in force. */
export class AccessPolicy extends Context.Tag("session-ingest/AccessPolicy")<AccessPolicy, AccessPolicyShape>() {
  /** A policy with the given roots; `workspaceRoots` defaults to the working directory. */
  static layer = (policy: Partial<AccessPolicyShape> = {}): Layer.Layer<AccessPolicy> =>
    Layer.succeed(AccessPolicy, {
      workspaceRoots: policy.workspaceRoots ?? [process.cwd()],
      museRoots: policy.museRoots ?? [],
      agentsRoot: policy.agentsRoot,
      agentmuxStore: policy.agentmuxStore,
      stateFile: policy.stateFile
    })
}
