/**
 * The HTML replay of a session (issue 15): {@link replayInput} builds what it
 * shows from normalized events, {@link renderReplay} writes the page.
 *
 * @module
 */
export { replayInput, replaySession, type ReplaySource } from "./build.js"
export type * from "./model.js"
export { escapeHtml, escapeHtmlBreakable, formatDuration, headerRows, jsonForScript, renderReplay, replayCsp } from "./render.js"
export { LONG_RUN, longRunPieces, RUN_PIECE } from "./wrap.js"
