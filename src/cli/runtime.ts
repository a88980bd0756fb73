/**
 * What the commands run with: the library's layers, the index and its
 * queries. Loaded when a command runs (see {@link runtime}), so `--help` and
 * start-up parse only the command definitions.
 *
 * @module
 */
export { toAtif } from "../domain/atif.js"
export { compileQuery } from "../domain/search/query.js"
export * as IndexSqlite from "../layers/index/sqlite.js"
export { findSession, loadSession, loadTrajectory, sessionTranscript, usageBySession, usageElsewhereBySession, usageReport } from "../layers/index/queries.js"
export { usageView } from "../domain/usage.js"
export { describePrices } from "../domain/prices.js"
export { loadPriceTable } from "./config.js"
export { replayHtml } from "../layers/index/replay.js"
export { Importer } from "../services/Importer.js"
export { Index } from "../services/Index.js"
export { SessionSources } from "../services/SessionSource.js"
export { appLayer, withSource } from "./context.js"
export { checkNewFile, newFileSink } from "./out-file.js"
export { checkedIndex, chosenIndex, existingIndex, importLayer, importSetup, machineOf, migrateIndex, pushIndex, readIndexLayer, watchLayer, withConfigRemedies, withMissingWorkspaces } from "./index-context.js"
export { readLimitsLayer } from "./index-read.js"
export { sessionOutputLayer } from "./session-output.js"
export { watch } from "../layers/index/watch.js"
export { isPostgresUrl, shownIndex } from "../layers/index/pg-target.js"
export { loadRedactionPatterns } from "./config.js"
export { redactionLayer, shareableEvents, shareableTrajectory, shareableTranscript } from "../layers/share.js"
