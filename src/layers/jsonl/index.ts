/**
 * The JSONL source kit, shared by every line-oriented provider (muse-agents
 * transcripts, native Muse Code logs): line reading with byte offsets
 * (`lines.ts`), shrink detection (`shrink.ts`), the one cursor resume rule and
 * head check (`resume.ts`), and an open source that ties them together with
 * cursor encoding (`reader.ts`, {@link openJsonl}). A provider built on it
 * writes its record mapping only.
 *
 * @module
 */
export { HAND_ON_BYTES, handOnPartStart, handOnParts, isValidUtf8, type Line, LineSplitter, READ_STEP_BYTES, readLines, type ReadLinesOptions, readSize } from "./lines.js"
export { type JsonlOptions, type JsonlSource, type JsonlWhole, openJsonl, readJsonlWhole } from "./reader.js"
export {
  checkResume,
  headMatches,
  headOf,
  type LineBinding,
  marksUnterminated,
  maxCursorSpan,
  type ResumePoint,
  spanIsValid,
  unterminatedExtras
} from "./resume.js"
export { notUtf8Source } from "./encoding.js"
export { failIfShrank, hasBom } from "./shrink.js"
