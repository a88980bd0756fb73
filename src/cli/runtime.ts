/**
 * What the commands run with: the library's layers, the index and its
 * queries. Loaded when a command runs (see {@link runtime}), so `--help` and
 * start-up parse only the command definitions.
 *
 * @module
 */
export { toAtif } from "../domain/atif.js"
export * as IndexSqlite from "../layers/index/sqlite.js"
export { findSession, loadSession, loadTrajectory, sessionTranscript } from "../layers/index/queries.js"
export { replayHtml } from "../layers/index/replay.js"
export { Importer } from "../services/Importer.js"
export { Index } from "../services/Index.js"
export { SessionSources } from "../services/SessionSource.js"
export { appLayer, withSource } from "./context.js"
export { checkNewFile, newFileSink } from "./out-file.js"
export { existingIndex, importLayer, importSetup, withConfigRemedies } from "./index-context.js"
