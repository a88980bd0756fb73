/**
 * From parsed CLI options to the library's layer and locators. No provider
 * logic: defaults come from the providers' descriptors.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { InvalidArgument } from "../domain/errors.js"
import { type Locator, LocatorClass } from "../domain/model.js"
import * as App from "../layers/app.js"
import { SessionSources, type SessionSourceAdapter } from "../services/SessionSource.js"

/** Root options a command may carry. */
export interface RootOptions {
  readonly workspace?: ReadonlyArray<string>
  readonly museRoot?: ReadonlyArray<string>
  readonly agentsRoot?: Option.Option<string>
  readonly store?: Option.Option<string>
  readonly state?: Option.Option<string>
}

/** The library layer for these options. */
export const appLayer = (o: RootOptions) =>
  App.layer({
    workspaceRoots: o.workspace !== undefined && o.workspace.length > 0 ? o.workspace : [process.cwd()],
    museRoots: o.museRoot ?? [],
    agentsRoot: o.agentsRoot !== undefined ? Option.getOrUndefined(o.agentsRoot) : undefined,
    agentmuxStore: o.store !== undefined ? Option.getOrUndefined(o.store) : undefined,
    stateFile: o.state !== undefined ? Option.getOrUndefined(o.state) : undefined
  })

const decodeClass = Schema.decodeUnknownEither(LocatorClass)

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
