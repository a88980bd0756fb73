/**
 * A line log none of whose lines reads as JSON (every non-blank line torn,
 * garbage, zeroed, UTF-16: {@link NOT_JSON_KINDS}) is damage, not a session
 * "left out by the provider's spec" (tester37 F2: such a Claude Code log was
 * `no-conversation`, coverage complete, exit 0, and its lines were no parse
 * warnings of the report). Discovery skips it with {@link SOURCE_GARBLED}, so
 * coverage is partial (import exit 8) and the report says what its lines were.
 * The tolerant providers' rule (Claude Code session logs, Muse agents
 * transcripts): each skips and counts a bad line (seeds 000/001), which says
 * nothing of a file that holds nothing else. A file that is empty, or blank
 * lines only, holds no line at all: it stays what the provider's spec says.
 * A line longer than the import limit (`maxRecordBytes`, an `oversized-line`)
 * could not be read either: a file whose lines are all of those, or of those
 * and lines that are not JSON, is skipped too (tester39 F4: one zeroed or
 * garbage line over 32 MiB was `no-conversation`, complete, exit 0), with the
 * limit's own code ({@link RESOURCE_LIMIT_EXCEEDED}) when every line was over it.
 *
 * @module
 */
import type { Diagnostic } from "./model.js"

/** The code of a discovery's skip of a line log none of whose lines could be read. */
export const SOURCE_GARBLED = "SOURCE_GARBLED"

/** The code of a discovery's skip of a line log every line of which is longer than the import limit `maxRecordBytes`. */
export const RESOURCE_LIMIT_EXCEEDED = "RESOURCE_LIMIT_EXCEEDED"

/** The parse warning of a line longer than the import limit `maxRecordBytes` (its bytes skipped, never held). */
export const OVERSIZED_LINE = "oversized-line"

/** One kind of parse warning and its count, as a scan's tally gives them (`{kind, count, firstLine}`). */
export interface GarbledLines {
  readonly kind: string
  readonly count: number
  readonly firstLine: number | null
}

/**
 * The parse warnings of a line that does not read as JSON: what damage leaves (a torn line, garbage, a zeroed
 * block, text in UTF-16). A line of JSON skipped for what it holds (`non-object`, `too-deep`, `invalid-record`) is
 * content: a file of them is what its provider's spec says of it. A line over the limit ({@link OVERSIZED_LINE}) is
 * neither: it was not read, and is counted apart ({@link isGarbled}'s `oversized`). The same rule
 * as the importer's for a source imported before (`garbledSource`, `src/layers/index/emptied.ts`: no line reads as
 * JSON), so a log is garbled for both or for neither.
 */
export const NOT_JSON_KINDS: ReadonlySet<string> = new Set(["malformed-json", "truncated-line", "zeroed-bytes", "not-utf8"])

/**
 * Whether a scan of a line log says it is garbled: `read` (non-blank lines that read as JSON) none, and lines that
 * could not be read: `notJson` lines that do not read as JSON ({@link NOT_JSON_KINDS}) or `oversized` lines longer
 * than the import limit `maxRecordBytes` ({@link OVERSIZED_LINE}), at least one of them.
 */
export const isGarbled = (read: number, notJson: number, oversized = 0): boolean => read === 0 && notJson + oversized > 0

/**
 * The skip diagnostic of a garbled line log: `label` names it as the
 * provider's other diagnostics do (`-home-me-app/<uuid>.jsonl`,
 * `<agent>/sessions/<agent>.jsonl`); `warnings` the kinds of its lines
 * (every one skipped); `details` the provider's own keys (project and file,
 * agent), to which `lines`, `byKind` (kind to count) and `firstLine` are
 * added; `maxRecordBytes` the import limit a line was held to (bytes). Code
 * {@link SOURCE_GARBLED}, or {@link RESOURCE_LIMIT_EXCEEDED} when every line was
 * over the limit (then `limit: "maxRecordBytes"` and `max` are added: it may be a
 * session whose records are larger than the limit, not damage). Its remedy is
 * the skip remedy's (`src/domain/skip-remedy.ts`).
 */
export const garbledDiagnostic = (
  label: string,
  warnings: ReadonlyArray<GarbledLines>,
  details: Record<string, unknown>,
  maxRecordBytes?: number
): Diagnostic => {
  let lines = 0
  let firstLine: number | null = null
  const byKind: Record<string, number> = {}
  for (const w of warnings) {
    lines += w.count
    byKind[w.kind] = (byKind[w.kind] ?? 0) + w.count
    if (w.firstLine !== null && (firstLine === null || w.firstLine < firstLine)) firstLine = w.firstLine
  }
  const kinds = Object.entries(byKind).map(([k, n]) => `${k} ${n}`).join(", ")
  const oversized = byKind[OVERSIZED_LINE] ?? 0
  const limit = maxRecordBytes !== undefined ? `the import limit maxRecordBytes (${maxRecordBytes} bytes)` : "the import limit maxRecordBytes"
  if (oversized > 0 && oversized === lines) {
    return {
      code: RESOURCE_LIMIT_EXCEEDED,
      message: `${label}: none of its ${lines} line${lines === 1 ? " could be read: it is" : "s could be read: each is"} longer than ${limit}; it was not read (a damaged file, zeroed or overwritten, or a session whose records are larger than the limit).`,
      details: { ...details, lines, byKind, firstLine, limit: "maxRecordBytes", ...(maxRecordBytes !== undefined ? { max: maxRecordBytes } : {}) }
    }
  }
  if (oversized > 0) {
    return {
      code: SOURCE_GARBLED,
      message: `${label}: none of its ${lines} lines reads as JSON or is within ${limit} (${kinds}): a damaged file (torn, zeroed or overwritten), not a session left out by the provider's spec; it was not read.`,
      details: { ...details, lines, byKind, firstLine }
    }
  }
  return {
    code: SOURCE_GARBLED,
    message: `${label}: none of its ${lines} line${lines === 1 ? "" : "s"} reads as JSON (${kinds}): a damaged file (torn, zeroed or overwritten), not a session left out by the provider's spec; it was not read.`,
    details: { ...details, lines, byKind, firstLine }
  }
}
