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
