/**
 * The {@link SessionSources} layer: the adapters of the registered provider
 * modules (`./registry.ts`), each loaded and built from the access services
 * in context on its first `get`, once (issue 13: building the layer loads no
 * adapter, so a command that reads one provider does not start the others).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessPolicy } from "../services/AccessPolicy.js"
import type { ImportLimits } from "../services/ImportLimits.js"
import { SessionSources, type SessionSourceAdapter, type SessionSourcesShape } from "../services/SessionSource.js"
import type { SourceAccess } from "../services/SourceAccess.js"
import { type AdapterMake, type AnyModule, descriptorOf } from "./provider.js"
import { providers } from "./registry.js"

/** The services an adapter is made from. */
export type AdapterServices = SourceAccess | ImportLimits | AccessPolicy

/**
 * Each module's adapter code, loaded once per process and shared by every
 * registry: registries made side by side (imports running at once in one
 * process, as the team index's tests do) start their first `get`s at once.
 * One `load` for all of them, not one each: a module runner may hand a
 * second import of a module still being evaluated its exports as they are so
 * far (vitest's does), and a `make` not yet defined there made the import
 * die ("Not a valid effect: undefined").
 */
const loads = new WeakMap<AnyModule, Promise<AdapterMake>>()
const loadOnce = (m: AnyModule): Promise<AdapterMake> => {
  let p = loads.get(m)
  if (p === undefined) {
    p = m.load()
    loads.set(m, p)
    // A failed load is not kept: the next `get` tries again.
    p.catch(() => loads.delete(m))
  }
  return p
}

/**
 * The {@link SessionSources} of `modules` (in their order) over the services
 * in `context`. Descriptors come from the modules; an adapter is loaded
 * (`module.load`) and made on the first `get` of its provider, then shared by
 * every later `get` (made once, as before, from `context`).
 */
export const registryOf = (
  modules: ReadonlyArray<AnyModule>,
  context: Context.Context<AdapterServices>
): SessionSourcesShape => {
  const made = new Map<string, Effect.Effect<SessionSourceAdapter>>()
  const adapter = (m: AnyModule): Effect.Effect<SessionSourceAdapter> =>
    Effect.suspend(() => {
      const hit = made.get(m.id)
      if (hit !== undefined) return hit
      const build = Effect.flatMap(Effect.promise(() => loadOnce(m)), (make) => make).pipe(Effect.provide(context))
      return Effect.flatMap(Effect.cached(build), (once) => {
        // Two first calls may both get here: the first one stored is the one every caller runs.
        const first = made.get(m.id) ?? once
        made.set(m.id, first)
        return first
      })
    })
  return SessionSources.lazy(modules.map(descriptorOf), new Map(modules.map((m) => [m.id, adapter(m)])))
}

/** Layer: the {@link SessionSources} of the given modules, in their order (see {@link registryOf}). */
export const layerOf = (modules: ReadonlyArray<AnyModule>): Layer.Layer<SessionSources, never, AdapterServices> =>
  Layer.effect(SessionSources, Effect.map(Effect.context<AdapterServices>(), (ctx) => registryOf(modules, ctx)))

/** Layer: the registry of every provider, built from the access services in context. */
export const layer: Layer.Layer<SessionSources, never, AdapterServices> = layerOf(providers)
