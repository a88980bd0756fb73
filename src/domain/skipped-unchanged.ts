/**
 * A line log skipped whole by discovery (every line over `maxRecordBytes`:
 * `RESOURCE_LIMIT_EXCEEDED`; no line reads as JSON: `SOURCE_GARBLED`, see
 * `./garbled.ts`) is remembered by its stat, so that it is not read again
 * while it is unchanged: such a file may be gigabytes (a sparse file of
 * zeroes), read whole to learn that it holds no line, at every run and every
 * full round of `import --watch` (fix39e report, "Left"). It is still
 * reported each time, with the same code and counts (fail closed), and the
 * diagnostic says it was not read again ({@link skippedAgain}).
 *
 * What "unchanged" means is the importer's rule for a source it holds
 * (`src/domain/fingerprint.ts`): the same device and inode (not replaced),
 * size (no append, no truncation), modification time and change time (any
 * write or `touch`; a change time cannot be set back), and birth time; plus
 * the limit the file was held to (a raised `maxRecordBytes` reads it again).
 *
 * @module
 */
import type { Diagnostic } from "./model.js"

/**
 * What a discovery remembers of a log it skipped: its {@link skipFingerprintOf} and the diagnostic it was skipped
 * with; null for one the index holds (the importer says it: `SOURCE_GARBLED`, kept as it was), skipped in silence.
 */
export interface SkippedSource {
  readonly fingerprint: string
  readonly diagnostic: Diagnostic | null
}

/**
 * Skipped logs by real path (mutable: a discovery adds what it skips and drops what changed). The importer keeps one
 * per provider for as long as it lives (a process: every round of a watch, every run of a library user's importer).
 */
export type SkippedSources = Map<string, SkippedSource>

/** The codes of a skip that is remembered: the whole file was read and none of its lines could be. */
export const REMEMBERED_SKIP_CODES: ReadonlySet<string> = new Set(["RESOURCE_LIMIT_EXCEEDED", "SOURCE_GARBLED"])

/** The stat fields a skip fingerprint is made of (bytes; epoch ms with sub-ms digits, as Node's `Stats`). */
export interface SkipStat {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly birthtimeMs: number
}

/** `dev:ino:size:mtimeMs:ctimeMs:birthtimeMs@maxRecordBytes`: a file's stat and the record limit (bytes) it was read with. */
export const skipFingerprintOf = (s: SkipStat, maxRecordBytes: number): string =>
  `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.birthtimeMs}@${maxRecordBytes}`

/** The note added to a skip's message when the file was not read again. */
export const NOT_READ_AGAIN = "It was not read again: the file is unchanged since it was skipped (same device, inode, size, modification and change time)."

/**
 * A remembered skip said again without reading the file: the same code and details, `notReadAgain:
 * "unchanged-since-skipped"` added to the details and {@link NOT_READ_AGAIN} to the message.
 */
export const skippedAgain = (d: Diagnostic): Diagnostic => ({
  ...d,
  message: `${d.message} ${NOT_READ_AGAIN}`,
  details: { ...d.details, notReadAgain: "unchanged-since-skipped" }
})
