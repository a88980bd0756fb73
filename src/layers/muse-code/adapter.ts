/**
 * The Muse Code adapter (provider `muse-code`): `manual-export` trajectories
 * given explicitly, and native `session.jsonl` logs under an authorized
 * `--muse-root` (seed `001_…`). Policy: fail closed.
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UnsupportedOperation } from "../../domain/errors.js"
import type { Locator, ProviderDescriptor } from "../../domain/model.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ImportLimits } from "../../services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { descriptorOf } from "../provider.js"
import { provider } from "./provider.js"
import { DiscoveryBudget, defaultDiscoveryBudget } from "../../services/DiscoveryBudget.js"
import { SourceAccess } from "../../services/SourceAccess.js"
import { discoverNative } from "./discovery.js"
import { exportUnchangedSince, inspectExport, streamExport } from "./export-source.js"
import { SESSION_LOG_NAME } from "../../domain/muse-code/native.js"
import { inspectNative, NATIVE_CLASS, nestedLogPaths, streamNative, streamNativeAtOnce } from "./native-source.js"

/** The descriptor of `muse-code`, from its provider module (`./provider.ts`). */
export const descriptor: ProviderDescriptor = descriptorOf(provider)

const unsupportedClass = (locator: Locator) =>
  new UnsupportedOperation({
    message: `Muse Code does not read locator class "${locator.locatorClass}".`,
    remediation: "Use --locator-class manual-export for a `muse export` file, or muse-native-session-log for a session.jsonl under --muse-root."
  })

/**
 * Build the adapter from the access services in context. The discovery
 * budget is read from {@link DiscoveryBudget} when a layer provides it, else
 * the seed's defaults ({@link defaultDiscoveryBudget}).
 */
export const make: Effect.Effect<SessionSourceAdapter, never, SourceAccess | ImportLimits | AccessPolicy> = Effect.gen(
  function*() {
    const deps = { access: yield* SourceAccess, limits: yield* ImportLimits, policy: yield* AccessPolicy }
    const budget = Option.getOrElse(yield* Effect.serviceOption(DiscoveryBudget), () => defaultDiscoveryBudget)
    return {
      descriptor,
      discover: (request) =>
        deps.policy.museRoots.length === 0
          ? Effect.fail(
            new UnsupportedOperation({
              message: "Muse Code discovery needs an explicitly authorized sessions root; there is no default root.",
              remediation:
                "Select an export file explicitly (inspect/stream muse-code FILE), or pass --muse-root DIR (e.g. ~/.local/share/muse/sessions)."
            })
          )
          : discoverNative({ ...deps, budget }, request.known),
      inspect: (locator) =>
        locator.locatorClass === "manual-export"
          ? inspectExport(deps, locator.path)
          : locator.locatorClass === "muse-native-session-log"
          ? inspectNative(deps, locator.path)
          : Effect.fail(unsupportedClass(locator)),
      stream: (locator, options) =>
        locator.locatorClass === "manual-export"
          ? streamExport(deps, locator.path, options?.cursor, options?.onTitle)
          : locator.locatorClass === "muse-native-session-log"
          ? streamNative(deps, locator.path, {
            cursor: options?.cursor,
            includeSubagents: options?.includeSubagents,
            onDiagnostic: options?.onDiagnostic,
            onWarning: options?.onWarning,
            onRead: options?.onRead,
            onTitle: options?.onTitle
          })
          : Stream.fail(unsupportedClass(locator)),
      streamAtOnce: (locator, options) =>
        locator.locatorClass === "muse-native-session-log"
          ? streamNativeAtOnce(deps, locator.path, {
            cursor: options?.cursor,
            includeSubagents: options?.includeSubagents,
            onDiagnostic: options?.onDiagnostic,
            onWarning: options?.onWarning,
            onRead: options?.onRead,
            onTitle: options?.onTitle
          })
          : Effect.succeed(undefined),
      transcript: () =>
        Effect.fail(
          new UnsupportedOperation({
            message: "Muse Code sources are runtime event logs, not conversations; there is no transcript.",
            remediation: "Use `stream muse-code FILE` for the normalized events."
          })
        ),
      locatorClassOf: (path) => (nodePath.basename(path) === SESSION_LOG_NAME ? NATIVE_CLASS : "manual-export"),
      parts: (locator) =>
        locator.locatorClass === "muse-native-session-log" ? nestedLogPaths(deps.access, locator.path) : Effect.succeed([]),
      // An export (one JSON document, no imported prefix): its cursor binds a digest of the whole document.
      unchangedSince: (locator, cursor) =>
        locator.locatorClass === "manual-export" ? exportUnchangedSince(deps, locator.path, cursor) : Effect.succeed(false),
      sourcePerFile: true,
      noWal: true
    }
  }
)
