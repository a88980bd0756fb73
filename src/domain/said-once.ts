/**
 * Diagnostic codes an import says once, in the run that raised them, and
 * never stores with the source's checkpoint (so no later run says them
 * again): `import --watch` prints each in the round that raised it, even
 * when an earlier round of the watch printed the same line (docs/import.md,
 * "Sources rewritten after a prefix of what was imported"). Light on
 * purpose: the CLI's `import` command reads it at start-up.
 *
 * @module
 */

/** The report's code for a source read again as a new generation that no longer holds imported events (`layers/index/rewritten.ts`). */
export const SOURCE_REWRITTEN = "SOURCE_REWRITTEN" as const

/** The codes said once (see the module's comment). */
export const SAID_ONCE: ReadonlySet<string> = new Set([SOURCE_REWRITTEN])
