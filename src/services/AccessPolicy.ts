/**
 * What the operator authorized session-ingest to read. Nothing outside these
 * roots is opened; providers without an authorized root refuse to discover
 * (seed 001: no default Muse root, never `~/.muse`, no home-directory scans).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { type ProviderAccess, settings } from "../layers/registry.js"

/**
 * Authorized roots, as the operator gave them (absolute or relative to the
 * working directory): the workspace roots, shared by every provider, and
 * each provider's own fields, declared by its module (its `settings` whose
 * target is `access`) and derived from the registry, e.g.
 * - `museRoots` (muse-code, `--muse-root`; empty: native discovery is unsupported),
 * - `agentsRoot` (muse-agents, `--agents-root`; undefined: `$MUSE_AGENTS_DIR`, else `~/agents`, seed 000),
 * - `agentmuxStore` (agentmux, `--store`; undefined: the default store, seed 002),
 * - `agentmuxRoot` (agentmux, `--agentmux-root`: the AgentMux home whose channels' stores are read too; undefined: `~/.agentmux` unless `--store` is given, issue 18),
 * - `stateFile` (agentmux, `--state`: session-ingest's scan state; undefined: under the user's data directory).
 *
 * The fields are flat, each one owned by exactly one provider module (the
 * registry refuses two modules claiming one key), so a policy written for
 * one provider reads as before when another is added.
 */
export type AccessPolicyShape =
  & {
    /**
     * Workspace roots (`--workspace`, default the working directory): explicit
     * files (e.g. `manual-export` trajectories) must lie under one, and native
     * Muse discovery selects logs whose evidence names one.
     */
    readonly workspaceRoots: ReadonlyArray<string>
  }
  & { readonly [K in keyof ProviderAccess]: ProviderAccess[K] }

/** An access policy as given: any field may be left out (lists default to `[]`, `workspaceRoots` to the working directory). */
export type AccessPolicyInput = { readonly [K in keyof AccessPolicyShape]?: AccessPolicyShape[K] | undefined }

/** The list fields of the registered providers' policy parts. */
const LIST_FIELDS = settings.filter((s) => s.target === "access" && s.many).map((s) => s.key)

/** The access policy in force. */
export class AccessPolicy extends Context.Tag("session-ingest/AccessPolicy")<AccessPolicy, AccessPolicyShape>() {
  /** A policy with the given roots; `workspaceRoots` defaults to the working directory, every list to `[]`. */
  static layer = (policy: AccessPolicyInput = {}): Layer.Layer<AccessPolicy> =>
    Layer.succeed(AccessPolicy, withDefaults(policy))
}

/**
 * A policy with its defaults filled in: `workspaceRoots` the working
 * directory, every list field of a provider `[]` (which fields are lists:
 * their modules' settings, `listFields`).
 */
export const withDefaults = (policy: AccessPolicyInput, listFields: ReadonlyArray<string> = LIST_FIELDS): AccessPolicyShape => {
  const out: Record<string, unknown> = { ...policy, workspaceRoots: policy.workspaceRoots ?? [process.cwd()] }
  for (const k of listFields) out[k] = (policy as Record<string, unknown>)[k] ?? []
  return out as AccessPolicyShape
}
