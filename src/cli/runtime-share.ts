/**
 * What a shareable output runs with (issue 15): the Redaction layer of a
 * command line (`--no-redact`, the config file's patterns) and the output
 * boundary of `../layers/share.ts`. Loaded when a command writes one
 * (`./lazy.ts`): building the redaction rules is a noticeable part of a
 * start-up, and a command that prints the raw record needs none of it.
 *
 * @module
 */
export { loadRedactionPatterns } from "./config.js"
export { fileRedactionLayer, outsideRuns, redactionLayer, shareableEvents, shareableTrajectory, shareableTranscript, shareableWindow, shareableWindowTranscript, shownIds, shownText } from "../layers/share.js"
