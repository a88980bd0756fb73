/**
 * The {@link SessionSources} layer: the adapters of the registered provider
 * modules (`./registry.ts`), each loaded on first use and built from the
 * access services in context.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessPolicy } from "../services/AccessPolicy.js"
import type { ImportLimits } from "../services/ImportLimits.js"
import { SessionSources } from "../services/SessionSource.js"
import type { SourceAccess } from "../services/SourceAccess.js"
import type { AnyModule } from "./provider.js"
import { providers } from "./registry.js"

/** Layer: the {@link SessionSources} of the given modules, in their order. */
export const layerOf = (
  modules: ReadonlyArray<AnyModule>
): Layer.Layer<SessionSources, never, SourceAccess | ImportLimits | AccessPolicy> =>
  Layer.effect(
    SessionSources,
    Effect.map(
      Effect.forEach(modules, (m) => Effect.flatMap(Effect.promise(() => m.load()), (make) => make)),
      SessionSources.make
    )
  )

/** Layer: the registry of every provider, built from the access services in context. */
export const layer: Layer.Layer<SessionSources, never, SourceAccess | ImportLimits | AccessPolicy> = layerOf(providers)
