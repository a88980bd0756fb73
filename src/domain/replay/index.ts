/**
 * The HTML replay of a session (issue 15): {@link replayInput} builds what it
 * shows from normalized events, {@link renderReplay} writes the page.
 *
 * @module
 */
export { replayInput, replaySession, type ReplaySource } from "./build.js"
export type * from "./model.js"
export { escapeHtml, formatDuration, headerRows, jsonForScript, renderReplay, replayCsp } from "./render.js"
