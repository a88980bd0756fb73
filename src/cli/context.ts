/**
 * From parsed CLI options to the library's layer and locators. No provider
 * logic: defaults come from the providers' descriptors.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { InvalidArgument } from "../domain/errors.js"
import { type Locator, LocatorClass } from "../domain/model.js"
import * as App from "../layers/app.js"
import * as Registry from "../layers/registry.js"
import type { AccessPolicyInput } from "../services/AccessPolicy.js"
import { SessionSources, type SessionSourceAdapter } from "../services/SessionSource.js"

/**
 * Root options a command may carry: `--workspace`, and the registered
 * providers' root options by setting key (a list, or an optional value).
 */
export interface RootOptions {
  readonly workspace?: ReadonlyArray<string>
  readonly [setting: string]: ReadonlyArray<string> | Option.Option<string> | unknown
}

/** The value a command line gave a setting: a list as given, an `Option` as its value or undefined. */
export const givenValue = (v: unknown): ReadonlyArray<string> | string | undefined =>
  v === undefined ? undefined : Option.isOption(v) ? Option.getOrUndefined(v as Option.Option<string>) : (v as ReadonlyArray<string>)

/**
 * The access policy of these options (`workspaceRoots` default: the working
 * directory; each provider's fields from its root options, as given).
 */
export const policyOf = (o: RootOptions): AccessPolicyInput => {
  const policy: Record<string, unknown> = {
    workspaceRoots: o.workspace !== undefined && o.workspace.length > 0 ? o.workspace : [process.cwd()]
  }
  for (const s of Registry.settings) if (s.target === "access") policy[s.key] = givenValue(o[s.key])
  return policy as AccessPolicyInput
}

/** The library layer for these options. */
export const appLayer = (o: RootOptions) => App.layer(policyOf(o))

/** A registered locator class, else `Left` (the model's Schema checks only the form of one). */
const decodeClass = (cls: string): Either.Either<LocatorClass, string> =>
  (Registry.locatorClasses as ReadonlyArray<string>).includes(cls) ? Either.right(cls as LocatorClass) : Either.left(cls)

/**
 * The locator of a command: the given file (or, for store-based providers,
 * the store), the locator class (default: what the adapter reads that file
 * as, else the provider's first), and the
 * agent/session selectors. `InvalidArgument` for an unknown class or a
 * missing file.
 */
export const locatorOf = (
  adapter: SessionSourceAdapter,
  file: Option.Option<string>,
  locatorClass: Option.Option<string>,
  selectors: { readonly agent?: Option.Option<string>; readonly session?: Option.Option<string>; readonly store?: Option.Option<string> } = {}
): Effect.Effect<Locator, InvalidArgument> =>
  Effect.gen(function*() {
    const cls = Option.isSome(locatorClass)
      ? locatorClass.value
      : (Option.isSome(file) ? adapter.locatorClassOf?.(file.value) : undefined) ?? adapter.descriptor.locatorClasses[0]
    const decoded = decodeClass(cls)
    if (Either.isLeft(decoded)) {
      return yield* new InvalidArgument({
        message: `Unknown locator class "${cls}".`,
        remediation: `${adapter.descriptor.provider} reads: ${adapter.descriptor.locatorClasses.join(", ")}.`
      })
    }
    const path = Option.orElse(file, () => selectors.store ?? Option.none())
    const agentId = selectors.agent !== undefined ? Option.getOrUndefined(selectors.agent) : undefined
    const sessionId = selectors.session !== undefined ? Option.getOrUndefined(selectors.session) : undefined
    if (Option.isNone(path) && agentId === undefined) {
      return yield* new InvalidArgument({
        message: "No source given.",
        remediation: "Pass the source file as the argument after the provider."
      })
    }
    return {
      locatorClass: decoded.right,
      path: Option.getOrElse(path, () => ""),
      ...(agentId !== undefined ? { agentId } : {}),
      ...(sessionId !== undefined ? { sessionId } : {})
    }
  })

/** Parsed options of a command that selects one source. */
export interface SourceArgs extends RootOptions {
  readonly provider: string
  readonly file: Option.Option<string>
  readonly locatorClass: Option.Option<string>
  readonly agent: Option.Option<string>
  readonly session: Option.Option<string>
}

/** Run `f` with the adapter and locator the options select, under the layer of their roots. */
export const withSource = <A, E>(
  o: SourceArgs,
  f: (adapter: SessionSourceAdapter, locator: Locator) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const adapter = yield* (yield* SessionSources).get(o.provider)
    const locator = yield* locatorOf(adapter, o.file, o.locatorClass, o)
    return yield* f(adapter, locator)
  }).pipe(Effect.provide(appLayer(o)))
