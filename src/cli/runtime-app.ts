/**
 * What the commands that read sources (`providers`, `discover`, `inspect`,
 * `stream`, `transcript`) run with: the library's layer and the source a
 * command line selects. None of the index, redaction or replay modules,
 * which `./runtime.ts` brings. Loaded when such a command runs (`./lazy.ts`).
 *
 * @module
 */
export { SessionSources } from "../services/SessionSource.js"
export { appLayer, withSource } from "./context.js"
