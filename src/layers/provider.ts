/**
 * What a provider is, as one module: its id and locator classes, what
 * `providers` says about it, the settings it owns (each one a CLI option, a
 * config-file key and a field of the access policy or of the import plan's
 * input), its import-plan entries, and its adapter, loaded when first used.
 *
 * A provider lives in `src/layers/<id>/provider.ts` (plus its adapter and
 * `src/domain/<id>/`); `./registry.ts` lists the modules, one line each, and
 * every list that names providers, locator classes, their options, config
 * keys or policy fields is derived from that list by the functions here.
 *
 * A module is data plus one lazy import: loading it (as the CLI does at
 * start, for its option definitions and help) loads no adapter and no
 * record Schema.
 *
 * @module
 */
import * as nodePath from "node:path"
import type * as Effect from "effect/Effect"
import type { Operation, ProviderDescriptor } from "../domain/model.js"
import type { AccessPolicy } from "../services/AccessPolicy.js"
import type { ImportLimits } from "../services/ImportLimits.js"
import type { DiscoverRequest, SessionSourceAdapter } from "../services/SessionSource.js"
import type { SourceAccess } from "../services/SourceAccess.js"

/**
 * One setting a provider owns. It is, at once:
 * - a CLI option `--<flag> <pseudo>` (or, with `positional`, the repeated
 *   argument `<flag>`), on every command that takes roots (`on: "roots"`:
 *   discover, inspect, stream, transcript, import) or on `import` only;
 * - the config-file key `configKey` (lists add to the option's values, a
 *   single value is overridden by the option);
 * - a field of the access policy (`target: "access"`, read by the adapter)
 *   or of the import plan's input (`target: "plan"`, read by the module's
 *   {@link ProviderModule.plan}), named by the setting's key.
 *
 * `many`: repeatable, a list (default `[]`); else one value (default
 * `undefined`: the provider's own default applies). `path`: a file or
 * folder; given to `import` it is made absolute (options: from the working
 * directory; config: from the config file's folder, `~` expanded).
 */
export interface Setting {
  readonly target: "access" | "plan"
  readonly many: boolean
  readonly path: boolean
  readonly flag: string
  readonly positional?: boolean | undefined
  readonly pseudo: string
  readonly description: string
  readonly on: "roots" | "import"
  readonly configKey: string
}

/** The value of a setting: a list for a repeatable one, else one value or undefined. */
export type SettingValue<S> = S extends { readonly many: true } ? ReadonlyArray<string> : string | undefined

/** The values of a module's settings, by key. */
export type SettingValues<S extends Record<string, Setting>> = { readonly [K in keyof S]: SettingValue<S[K]> }

/**
 * The part of an import plan one provider contributes (see `ImportPlan`).
 * (Its locators are spelled out, not `Locator`: the model's types are
 * derived from the modules, which must not depend on them.)
 */
export interface PlanPart<Id extends string = string, Class extends string = string> {
  readonly discover: ReadonlyArray<{
    readonly provider: Id
    readonly request: DiscoverRequest
    readonly configured?: boolean | undefined
    readonly expectSources?: boolean | undefined
  }>
  readonly explicit: ReadonlyArray<{
    readonly provider: Id
    readonly locator: {
      readonly locatorClass: Class
      readonly path: string
      readonly agentId?: string
      readonly sessionId?: string
    }
  }>
  readonly skipped: ReadonlyArray<{ readonly provider: Id; readonly remediation: string }>
}

/** How an adapter is built: from the access services in context. */
export type AdapterMake = Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy>

/**
 * A provider module (see the module doc).
 *
 * - `id`, `locatorClasses`: the provider's id and the classes its locators
 *   carry (the first is the default for a file).
 * - `about`: what `providers` prints besides those.
 * - `settings`: its options / config keys / policy and plan fields, by key.
 * - `plan`: its import-plan entries, from its settings' values (defaults
 *   filled in); what `discover` requests to run, which explicit sources, and
 *   what is skipped with a remedy.
 * - `load`: its adapter, loaded on first use.
 */
export interface ProviderModule<
  Id extends string = string,
  Class extends string = string,
  S extends Record<string, Setting> = Record<string, Setting>
> {
  readonly id: Id
  readonly locatorClasses: readonly [Class, ...Array<Class>]
  readonly about: {
    readonly displayName: string
    readonly disposition: string
    readonly operations: ReadonlyArray<Operation>
    readonly spec: string
  }
  readonly settings: S
  readonly plan: (values: SettingValues<S>) => PlanPart<Id, Class>
  readonly load: () => Promise<AdapterMake>
}

/** Define a provider module (infers its id, classes and settings as literals). */
export const define = <const Id extends string, const Class extends string, const S extends Record<string, Setting>>(
  module: ProviderModule<Id, Class, S>
): ProviderModule<Id, Class, S> => module

/** Any provider module. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyModule = ProviderModule<string, string, any>

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

type Simplify<T> = { [K in keyof T]: T[K] } & {}

/** A module's fields for one target: lists required, single values optional (undefined: the provider's default). */
type FieldsOf<M, Target> = M extends ProviderModule<string, string, infer S> ?
    & { readonly [K in keyof S as S[K]["target"] extends Target ? S[K]["many"] extends true ? K : never : never]: ReadonlyArray<string> }
    & { readonly [K in keyof S as S[K]["target"] extends Target ? S[K]["many"] extends true ? never : K : never]?: string | undefined }
  : never

/** The access-policy fields the modules own (each one by exactly one module), by key. */
export type AccessFieldsOf<Ms extends ReadonlyArray<AnyModule>> = Simplify<UnionToIntersection<FieldsOf<Ms[number], "access">>>

/** The import plan's inputs the modules own, by key. */
export type PlanFieldsOf<Ms extends ReadonlyArray<AnyModule>> = Simplify<UnionToIntersection<FieldsOf<Ms[number], "plan">>>

/** A setting with its key and the provider that owns it. */
export interface OwnedSetting extends Setting {
  readonly key: string
  readonly provider: string
}

/**
 * Every setting of the modules, in registry order. Throws (at load: a
 * programming error) when two modules claim the same key, flag or config
 * key, or a key the shared settings use.
 */
export const settingsOf = (modules: ReadonlyArray<AnyModule>): ReadonlyArray<OwnedSetting> => {
  const all = modules.flatMap((m) =>
    Object.entries(m.settings as Record<string, Setting>).map(([key, s]): OwnedSetting => ({ ...s, key, provider: m.id }))
  )
  const seen = new Map<string, string>([
    ["key:workspaceRoots", "shared"],
    ["flag:workspace", "shared"],
    ["config:workspaces", "shared"],
    ["config:index", "shared"]
  ])
  for (const s of all) {
    for (const k of [`key:${s.key}`, `flag:${s.flag}`, `config:${s.configKey}`]) {
      const owner = seen.get(k)
      if (owner !== undefined) throw new Error(`Provider ${s.provider}: ${k} is already ${owner}'s.`)
      seen.set(k, s.provider)
    }
  }
  return all
}

/** The value of a setting when nothing gives it. */
export const emptyValue = (s: Setting): ReadonlyArray<string> | undefined => (s.many ? [] : undefined)

/** A module's values, read from an object holding its keys (a policy, plan options), defaults filled in. */
export const valuesOf = (module: AnyModule, from: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(module.settings as Record<string, Setting>).map(([k, s]) => [k, from[k] ?? emptyValue(s)])
  )

/** The descriptor `providers` prints for a module. */
export const descriptorOf = (module: AnyModule): ProviderDescriptor => ({
  provider: module.id as ProviderDescriptor["provider"],
  displayName: module.about.displayName,
  disposition: module.about.disposition,
  operations: module.about.operations,
  locatorClasses: module.locatorClasses as unknown as ProviderDescriptor["locatorClasses"],
  spec: module.about.spec
})

/** The access-policy defaults the modules imply (`[]` for lists, absent for single values). */
export const accessDefaultsOf = (modules: ReadonlyArray<AnyModule>): Record<string, ReadonlyArray<string>> =>
  Object.fromEntries(settingsOf(modules).filter((s) => s.target === "access" && s.many).map((s) => [s.key, []]))

/**
 * The import plan the modules imply for a policy and the plan inputs
 * (`options`, by setting key): each module's {@link ProviderModule.plan}
 * from its own values, in registry order.
 */
export const planOf = (
  modules: ReadonlyArray<AnyModule>,
  policy: Readonly<Record<string, unknown>>,
  options: Readonly<Record<string, unknown>>
): PlanPart => {
  const parts = modules.map((m) => {
    const from: Record<string, unknown> = {}
    for (const [k, s] of Object.entries(m.settings as Record<string, Setting>)) from[k] = (s.target === "access" ? policy : options)[k]
    return m.plan(valuesOf(m, from) as never)
  })
  return {
    discover: parts.flatMap((p) => p.discover),
    explicit: parts.flatMap((p) => p.explicit),
    skipped: parts.flatMap((p) => p.skipped)
  }
}

/**
 * A path as `import` takes it: `~` expanded, relative to `base` (the working
 * directory for options, the config file's folder for config values).
 */
export const absolutePath = (p: string, base: string, home: string): string =>
  nodePath.resolve(base, p === "~" ? home : p.startsWith("~/") ? nodePath.join(home, p.slice(2)) : p)
