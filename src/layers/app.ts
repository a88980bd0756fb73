/**
 * The whole library as one layer: authorized Node source access, import
 * limits, and the registry of every provider, under one access policy.
 *
 * @module
 */
import * as Layer from "effect/Layer"
import { AccessPolicy, type AccessPolicyInput } from "../services/AccessPolicy.js"
import { ImportLimits, type ImportLimitsShape } from "../services/ImportLimits.js"
import type { SessionSources } from "../services/SessionSource.js"
import type { SourceAccess } from "../services/SourceAccess.js"
import * as Sources from "./sources.js"
import * as SourceAccessNode from "./SourceAccessNode.js"

/** Everything {@link layer} provides. */
export type SessionIngestServices = SessionSources | SourceAccess | ImportLimits | AccessPolicy

/**
 * Layer: the provider registry on the Node filesystem, for the given access
 * policy (`workspaceRoots` default: the working directory) and import limits
 * (default: {@link ImportLimits} defaults).
 */
export const layer = (
  policy: AccessPolicyInput = {},
  limits: Partial<ImportLimitsShape> = {}
): Layer.Layer<SessionIngestServices> => {
  const base = Layer.mergeAll(AccessPolicy.layer(policy), ImportLimits.layer(limits), SourceAccessNode.layer)
  return Layer.merge(Sources.layer.pipe(Layer.provide(base)), base)
}
