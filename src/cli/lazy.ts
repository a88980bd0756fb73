/**
 * Lazy loading for the CLI: command definitions load at start-up, what they
 * run loads when they run (esbuild wraps it in the bundle as a module that is
 * evaluated on its first import).
 *
 * @module
 */
import * as Effect from "effect/Effect"

/** The command runtime (`./runtime.ts`: everything the commands run with), loaded on first use by the commands without a narrower one below. */
export const runtime = Effect.promise(() => import("./runtime.js"))

/** What the commands that read sources run with (`./runtime-app.ts`: the library's layer, no index), loaded on first use. */
export const appRuntime = Effect.promise(() => import("./runtime-app.js"))

/** What the commands that read the index run with (`./runtime-query.ts`: the index and its queries), loaded on first use. */
export const queryRuntime = Effect.promise(() => import("./runtime-query.js"))

/** What a shareable output runs with (`./runtime-share.ts`: the redaction layer and the output boundary), loaded on first use. */
export const shareRuntime = Effect.promise(() => import("./runtime-share.js"))

/** What `import` runs with (`./runtime-import.ts`: the importer and the index, not the query commands' modules), loaded on first use. */
export const importRuntime = Effect.promise(() => import("./runtime-import.js"))

/**
 * The error classes (`../domain/errors.ts`), loaded on first use: building
 * their schemas is a noticeable part of start-up, and `--help` needs none.
 */
export const errors = Effect.promise(() => import("../domain/errors.js"))
