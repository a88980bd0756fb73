/**
 * The provider registry: one line per provider module. Every list that
 * names providers or locator classes (the `ProviderId` and `LocatorClass`
 * types, the CLI's choices, options and help, the config file's keys, the
 * access policy's fields, the import plan) is derived from {@link providers}
 * (see `./provider.ts`). Loading this module loads no adapter, and no
 * Schema: the CLI reads it at start. The layer of the adapters is
 * `./sources.ts`.
 *
 * @module
 */
import * as AgentMux from "./agentmux/provider.js"
import * as ClaudeCode from "./claude-code/provider.js"
import * as MuseAgents from "./muse-agents/provider.js"
import * as MuseCode from "./muse-code/provider.js"
import { type AccessFieldsOf, type AnyModule, type PlanFieldsOf, settingsOf } from "./provider.js"

/** The provider modules, in the order they are listed, discovered and imported. */
export const providers = [
  MuseCode.provider,
  MuseAgents.provider,
  AgentMux.provider,
  ClaudeCode.provider
] as const satisfies ReadonlyArray<AnyModule>

/** The registered provider ids. */
export type RegisteredProviderId = (typeof providers)[number]["id"]

/** The registered locator classes. */
export type RegisteredLocatorClass = (typeof providers)[number]["locatorClasses"][number]

/** The access-policy fields the providers own (e.g. `museRoots`, `agentsRoot`), by key. */
export type ProviderAccess = AccessFieldsOf<typeof providers>

/** The import plan's inputs the providers own (e.g. `agents`, `exports`), by key. */
export type ProviderPlanInputs = PlanFieldsOf<typeof providers>

/** The provider ids, in registry order. */
export const providerIds = providers.map((m) => m.id) as ReadonlyArray<RegisteredProviderId>

/** Every locator class, in registry order. */
export const locatorClasses = providers.flatMap((m) => m.locatorClasses) as ReadonlyArray<RegisteredLocatorClass>

/** Every provider setting (option, config key, policy or plan field), in registry order; checked for clashes at load. */
export const settings = settingsOf(providers)
