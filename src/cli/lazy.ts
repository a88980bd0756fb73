/**
 * Lazy loading for the CLI: command definitions load at start-up, what they
 * run loads when they run (esbuild wraps it in the bundle as a module that is
 * evaluated on its first import).
 *
 * @module
 */
import * as Effect from "effect/Effect"

/** The command runtime (`./runtime.ts`), loaded on first use. */
export const runtime = Effect.promise(() => import("./runtime.js"))

/** What `import` runs with (`./runtime-import.ts`: the importer and the index, not the query commands' modules), loaded on first use. */
export const importRuntime = Effect.promise(() => import("./runtime-import.js"))

/**
 * The error classes (`../domain/errors.ts`), loaded on first use: building
 * their schemas is a noticeable part of start-up, and `--help` needs none.
 */
export const errors = Effect.promise(() => import("../domain/errors.js"))
