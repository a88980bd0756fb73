/**
 * Bounds of a search (issue 14), as plain data: the CLI checks `--limit`
 * against them at start-up without loading the index's modules.
 *
 * @module
 */

/** The most hits one search gives (`SearchFilter.limit` is cut to it; the CLI refuses a larger `--limit`). */
export const MAX_SEARCH_LIMIT = 10_000
