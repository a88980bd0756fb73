/**
 * What the commands that read the index (`sessions`, `search`, `show`,
 * `usage`, `mcp`) run with: the index a command names, the layer that reads
 * it, its queries and the price table. Not the importer, the watch, the
 * redaction rules, ATIF or the replay, which `./runtime.ts` brings (`show`
 * loads `./runtime-share.ts` for Markdown only). Loaded when such a command
 * runs (`./lazy.ts`).
 *
 * @module
 */
export { compileQuery, searchFoldNote } from "../domain/search/query.js"
export { findSession, loadSession, machineFilter, requireComplete, searchSessionFilter, sessionTranscript, shownUsageReport, usageBySession, usageElsewhereBySession, usageReport } from "../layers/index/queries.js"
export { usageView } from "../domain/usage.js"
export { describePrices } from "../domain/prices.js"
export { loadPriceTable, loadRedactionPatterns } from "./config.js"
export { Index } from "../services/Index.js"
export { existingIndex, readIndexLayer, readLimitsLayer } from "./index-read.js"
export { isPostgresUrl } from "../layers/index/pg-target.js"
