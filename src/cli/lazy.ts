/**
 * Lazy loading for the CLI: command definitions load at start-up, what they
 * run loads when they run (esbuild splits it into its own chunk).
 *
 * @module
 */
import * as Effect from "effect/Effect"

/** The command runtime (`./runtime.ts`), loaded on first use. */
export const runtime = Effect.promise(() => import("./runtime.js"))
