/**
 * The whole library as one layer: authorized Node source access, import
 * limits, and the registry of every provider, under one access policy.
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { AccessPolicy, type AccessPolicyInput, withDefaults } from "../services/AccessPolicy.js"
import { defaultImportLimits, ImportLimits, type ImportLimitsShape } from "../services/ImportLimits.js"
import { SessionSources } from "../services/SessionSource.js"
import { SourceAccess, type SourceAccessShape } from "../services/SourceAccess.js"
import { providers } from "./registry.js"
import { sourceAccessNode } from "./SourceAccessNode.js"
import { registryOf } from "./sources.js"

/** Everything {@link layer} provides. */
export type SessionIngestServices = SessionSources | SourceAccess | ImportLimits | AccessPolicy

/**
 * Layer: the provider registry on the Node filesystem, for the given access
 * policy (`workspaceRoots` default: the working directory) and import limits
 * (default: {@link ImportLimits} defaults). One context built at once, not a
 * composition of four layers: the same services as `AccessPolicy.layer`,
 * `ImportLimits.layer`, `SourceAccessNode.layer` and `Sources.layer`, at a
 * fraction of the start-up (issue 13: layer machinery was most of a rescan's
 * start-up). Adapters are made on first use (see `./sources.ts`).
 */
export const layer = (
  policy: AccessPolicyInput = {},
  limits: Partial<ImportLimitsShape> = {},
  /** The source access the providers read through (default: the Node layer; tests inject failures with their own). */
  access: SourceAccessShape = sourceAccessNode
): Layer.Layer<SessionIngestServices> => {
  const base = Context.make(AccessPolicy, withDefaults(policy)).pipe(
    Context.add(ImportLimits, { ...defaultImportLimits, ...limits }),
    Context.add(SourceAccess, access)
  )
  return Layer.succeedContext(Context.add(base, SessionSources, registryOf(providers, base)))
}
