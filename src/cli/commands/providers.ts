/**
 * `session-ingest providers`: each provider's disposition, operations and locator classes.
 *
 * @module
 */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { appRuntime } from "../lazy.js"
import * as O from "../options.js"
import { printResult } from "../output.js"

/** The command. */
export const providers = Command.make("providers", { json: O.json }, ({ json }) =>
  Effect.flatMap(appRuntime, (rt) => Effect.gen(function*() {
    const registry = yield* rt.SessionSources
    const data = registry.descriptors
    yield* printResult("providers", json, data, () =>
      data
        .map((d) =>
          [
            `${d.provider}  (${d.displayName})`,
            `  operations:     ${d.operations.join(", ")}`,
            `  locator classes: ${d.locatorClasses.join(", ")}`,
            `  disposition:    ${d.disposition}`,
            `  spec:           ${d.spec}`
          ].join("\n")
        )
        .join("\n\n") + "\n")
  }).pipe(Effect.provide(rt.appLayer({}))))).pipe(Command.withDescription("List the providers: disposition, supported operations, locator classes."))
