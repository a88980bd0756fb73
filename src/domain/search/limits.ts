/**
 * Bounds of a search (issue 14), as plain data: the CLI checks `--limit`
 * against them at start-up without loading the index's modules.
 *
 * @module
 */

/** The most hits one search gives (`SearchFilter.limit` is cut to it; the CLI refuses a larger `--limit`). */
export const MAX_SEARCH_LIMIT = 10_000

/**
 * Matches a search ranks at most: the newest (last imported) this many that pass the filters (docs/search.md
 * "Ranking window"). Both engines rank their matches among them; the MCP server's redacted search decides and ranks
 * its hits among them too (`src/layers/mcp/answers.ts`).
 */
export const RANK_WINDOW = 5000
