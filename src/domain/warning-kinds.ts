/**
 * Parse-warning kinds shared by several providers, as plain data (the CLI's
 * report names them without loading the domain's modules). Each provider's
 * own kinds (`malformed-json`, `invalid-record`, `duplicate-header`, …) are
 * in its records module; a warning is `{kind, count, firstLine}` in a
 * source's `parseWarnings`.
 *
 * @module
 */

/**
 * The warning kind a provider counts (in its source's `parseWarnings`) for a
 * record whose usage it dropped: a token count that is not a non-negative
 * safe integer (`1e308`, `-5`, `1.5`, a string), or a stated cost that is not
 * a finite non-negative number. The record's event is kept, without usage
 * (docs/usage-and-cost.md, "Token counts that are not valid").
 */
export const USAGE_NOT_VALID = "usage-not-valid"

/**
 * The warning kind a provider counts for a record or line whose time is not valid (a timestamp that is no date,
 * out of range, negative, not a number): its events are kept with `occurredAt` null (issue 7). Claude Code's and
 * Muse agents' records modules name it too; AgentMux counts it for a receive time (`output.tsidx` `ms`) that is
 * no date.
 */
export const TIMESTAMP_NOT_VALID = "timestamp-not-valid"

/**
 * The warning kind counted for a record whose time reads as a date it cannot be: before 2000 or from 2100 on (`../domain/timestamps.ts`, `checkSourceTimestamp`); its events are kept with `occurredAt` null (F8).
 */
export const IMPLAUSIBLE_TIMESTAMP = "implausible-timestamp"

/**
 * The warning kind counted for a line kept whose bytes are not valid UTF-8 (read with U+FFFD in their place):
 * Claude Code and Muse agents (docs/providers.md "Claude Code: nothing dropped without a trace"). A line skipped for
 * another reason counts once, for why it was skipped.
 */
export const INVALID_UTF8 = "invalid-utf8"

/**
 * The diagnostic code of a parse warning given as a diagnostic (`inspect`'s
 * diagnostics; `StreamOptions.onWarning` of a provider whose discovery reads
 * no lines, AgentMux): `details` is the warning, `{kind, count, firstLine}`.
 * The importer lists these in its report's `parseWarnings`, not as a
 * provider's diagnostics, and they do not make coverage partial.
 */
export const PARSE_WARNING = "PARSE_WARNING"

/**
 * The parse-warning kinds whose lines are KEPT (their events are in the
 * stream and the index; only a part of the line is dropped or replaced), with
 * what happened to them, as the reports say it: every other kind's lines are
 * skipped. Shared by every provider's `inspect` and the import report, so a
 * kept line is never called skipped.
 * - `usage-not-valid`: a token count or cost not valid, the usage dropped;
 * - `invalid-utf8`: bytes not valid UTF-8, read as U+FFFD (Claude Code, Muse agents);
 * - `unknown-block`: content not understood, kept raw as a `meta` event (Claude Code);
 * - `timestamp-not-valid`: a time not valid, the events' `occurredAt` null (Claude Code, Muse agents, AgentMux);
 * - `implausible-timestamp`: a time read as a date before 2000 or from 2100 on (an epoch 0, 1.5, 1e14),
 *   the events' `occurredAt` null (Claude Code, Muse agents, AgentMux);
 * - `progress-record`: a `progress` record, kept raw as a `meta` event (Claude Code);
 * - `subagent-meta-not-valid`: a subagent's `agent-<id>.meta.json` not valid, its events kept (Claude Code).
 */
export const KEPT_WARNING_KINDS: Readonly<Record<string, { readonly kept: string; readonly why: string }>> = {
  [USAGE_NOT_VALID]: { kept: "kept without usage", why: "a token count or cost not valid" },
  [INVALID_UTF8]: { kept: "kept with invalid UTF-8", why: "their bad bytes read as U+FFFD" },
  "unknown-block": { kept: "kept with content not understood", why: "kept raw, as meta events" },
  [TIMESTAMP_NOT_VALID]: { kept: "kept without a time", why: "a timestamp not valid" },
  [IMPLAUSIBLE_TIMESTAMP]: { kept: "kept without a time", why: "a timestamp before 2000 or after 2099, not trusted" },
  "progress-record": { kept: "kept as progress", why: "a tool's or hook's progress, its data kept raw as meta events" },
  "subagent-meta-not-valid": {
    kept: "kept without their subagent's meta.json",
    why: "an agent-<id>.meta.json not valid: the subagent's events kept, without its type and description"
  }
}

/**
 * The parse warning (Claude Code, among a session's subagent warnings) of a
 * subagent file whose records name another agent than its file name
 * (`agent-A7C3….jsonl` holding `a7c3…`'s records: a copy, or a file
 * renamed): not read. Counts files, not lines ({@link FILE_WARNING_KINDS}).
 */
export const SUBAGENT_ID_MISMATCH = "subagent-id-mismatch"

/**
 * The parse warning (Claude Code) of a subagent file that holds nothing (0
 * bytes, or only NUL bytes and white space: zeroed by a crash): nothing to
 * read. Counts files, not lines ({@link FILE_WARNING_KINDS}).
 */
export const SUBAGENT_FILE_EMPTY = "subagent-file-empty"

/**
 * The parse-warning kind (AgentMux) of a part (64 KiB) of a zone's
 * `output.tsidx` missing from the store, or not bytes: counted once a part
 * ({@link FILE_WARNING_KINDS}). Named here for the reports; the AgentMux
 * records module re-exports it.
 */
export const TSIDX_PART_MISSING = "tsidx-part-missing"

/**
 * The parse-warning kinds that count whole FILES, or parts of a file, left
 * out, not lines (each with the noun of what it counts and what happened to
 * them, as the reports say it): Claude Code's subagent files that are not
 * their agent's transcript, AgentMux's `output.tsidx` parts missing. The
 * import report and `discover` count them apart (`parseWarnings.files`),
 * never among the lines (`parseWarnings.lines`).
 */
export const FILE_WARNING_KINDS: Readonly<Record<string, { readonly noun: readonly [string, string]; readonly what: string }>> = {
  [SUBAGENT_ID_MISMATCH]: { noun: ["subagent file", "subagent files"], what: "not read: their records name another agent (a copy or a renamed file)" },
  [SUBAGENT_FILE_EMPTY]: { noun: ["subagent file", "subagent files"], what: "holding nothing (0 bytes, or only NUL bytes and white space)" },
  [TSIDX_PART_MISSING]: { noun: ["output.tsidx part", "output.tsidx parts"], what: "missing from the store or not bytes: the receive times on them not read" }
}

/** True when a parse warning counts files left out, not lines ({@link FILE_WARNING_KINDS}). */
export const isFileWarningKind = (kind: string): boolean => Object.hasOwn(FILE_WARNING_KINDS, kind)

/** True when a parse warning's lines are kept, not skipped ({@link KEPT_WARNING_KINDS}). */
export const isKeptWarningKind = (kind: string): boolean => Object.hasOwn(KEPT_WARNING_KINDS, kind)

/**
 * A parse warning as one sentence: `3 line(s) kept without usage (…)
 * (first at line 4).` for a kind whose lines are kept, `1 subagent file(s)
 * files left out: subagent-file-empty (…).` for a kind counting files, `2 line(s)
 * skipped: malformed-json (first at line 4).` for the others. `firstLine`
 * null: `?`.
 */
export const parseWarningMessage = (w: { readonly kind: string; readonly count: number; readonly firstLine: number | null }): string =>
  isFileWarningKind(w.kind)
    ? `${w.count} ${FILE_WARNING_KINDS[w.kind]!.noun[1]} left out: ${w.kind} (${FILE_WARNING_KINDS[w.kind]!.what}).`
    : isKeptWarningKind(w.kind)
    ? `${w.count} line(s) ${KEPT_WARNING_KINDS[w.kind]!.kept} (${KEPT_WARNING_KINDS[w.kind]!.why}): ${w.kind} (first at line ${w.firstLine ?? "?"}).`
    : `${w.count} line(s) skipped: ${w.kind}${w.kind === ZEROED_BYTES ? ` (${ZEROED_WHY})` : w.kind === "not-utf8" ? ` (${NOT_UTF8_LINES_WHY})` : ""} (first at line ${w.firstLine ?? "?"}).`

/**
 * The parse-warning kind of a line holding NUL bytes to its end or 512 in a
 * row (`src/domain/jsonl-line.ts`, `zeroedRunAt`): blocks a crash or a power
 * loss left zeroed.
 */
export const ZEROED_BYTES = "zeroed-bytes"

/**
 * What a `not-utf8` line is, for people (session 24, `utf16Line` in `src/domain/jsonl-line.ts`): text appended in
 * another encoding, as `SOURCE_NOT_UTF8` says of a whole file.
 */
const NOT_UTF8_LINES_WHY =
  "text in UTF-16, not UTF-8: lines appended in another encoding (Windows PowerShell 5's >>); convert them to UTF-8 (iconv -f UTF-16LE -t UTF-8) to read them"

/** What a {@link ZEROED_BYTES} line is, for people. */
const ZEROED_WHY = "NUL bytes, blocks zeroed by a crash or a power loss: restore the file from a backup to read them"

/**
 * Counts a stream's lines of {@link ZEROED_BYTES} (one file), for `stream`'s
 * `onWarning`: said once, after the events, as a `PARSE_WARNING` like
 * `inspect`'s (`details`: `{kind, count, firstLine}`), naming the file
 * (`label`, e.g. `the session file /path`).
 */
export class ZeroedLines {
  count = 0
  firstLine: number | null = null

  /** Count the line `lineNumber` (1-based). */
  add(lineNumber: number): void {
    this.count++
    this.firstLine ??= lineNumber
  }

  /** The warning, or undefined when no line was counted. */
  diagnostic(label: string): { readonly code: string; readonly message: string; readonly details: Record<string, unknown> } | undefined {
    if (this.count === 0) return undefined
    const w = { kind: ZEROED_BYTES, count: this.count, firstLine: this.firstLine }
    return { code: PARSE_WARNING, message: `${label}: ${parseWarningMessage(w)}`, details: w }
  }
}

/**
 * What a parse warning's kind did to what it counts: `skipped` (its lines are not in the stream: too deep, torn, not
 * JSON, ...), `kept` (its lines' events are kept, a part dropped or replaced: {@link KEPT_WARNING_KINDS}) or
 * `file-left-out` (it counts files or parts of a file, not lines: {@link FILE_WARNING_KINDS}).
 */
export type ParseWarningEffect = "skipped" | "kept" | "file-left-out"

/** The {@link ParseWarningEffect} of a parse-warning kind. */
export const parseWarningEffect = (kind: string): ParseWarningEffect =>
  isFileWarningKind(kind) ? "file-left-out" : isKeptWarningKind(kind) ? "kept" : "skipped"

/**
 * A source's (or session's) parse warnings summed by {@link ParseWarningEffect}: the lines skipped, the lines kept
 * (a part of each dropped or replaced) and the files left out. A kept line is never counted as skipped (tester31a F1:
 * the replay's header and ATIF's `skipped_lines` had summed every kind).
 */
export const parseWarningTally = (
  warnings: ReadonlyArray<{ readonly kind: string; readonly count: number }>
): { readonly skippedLines: number; readonly keptLines: number; readonly filesLeftOut: number } => {
  let skippedLines = 0
  let keptLines = 0
  let filesLeftOut = 0
  for (const w of warnings) {
    const effect = parseWarningEffect(w.kind)
    if (effect === "skipped") skippedLines += w.count
    else if (effect === "kept") keptLines += w.count
    else filesLeftOut += w.count
  }
  return { skippedLines, keptLines, filesLeftOut }
}
