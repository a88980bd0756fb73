/**
 * A schema error told in one bounded line, for the messages of typed errors
 * (`MalformedSource`, `InvalidArgument`) that name what a source or a file
 * got wrong.
 *
 * Effect's `ArrayFormatter` gives one issue per failed check, and each
 * issue's message states the value it read (`Expected null, actual {...}`):
 * a record of 2 MB stated whole made a 2 MB error line, printed on every
 * import and kept in the index (tester36a F2). And a union (a record, a gap
 * marker, a retained frame) gives one issue per branch, the branch that
 * does not apply first. So:
 * - the deepest issues come first (the branch that got furthest names the
 *   real problem: `events.0.envelope.sequence` before `events.0.envelope`),
 *   in their order otherwise;
 * - at most `max` issues (3 unless given);
 * - each message its first line ({@link issueMessage}): the value it
 *   states (`actual ...`) clipped to {@link ISSUE_MAX_CHARS} characters
 *   with the count of what was cut.
 *
 * Source: DESIGN.md "Errors" (a message that says what to do, one line).
 */
import * as ParseResult from "effect/ParseResult"

/** The most characters of the value an issue's message states (`actual ...`) that {@link issueMessage} keeps. */
export const ISSUE_MAX_CHARS = 160

/** The most characters of what an issue's message expects (written by the schema, not read from the source). */
const EXPECTED_MAX_CHARS = 400

/** One issue of a schema error: its path (dot-joined) and message. */
export interface SchemaIssue {
  readonly path: string
  readonly message: string
}

/** `text` on one line (runs of white space as one space), clipped to `max` characters with the count of the rest. */
export const clipped = (text: string, max: number = ISSUE_MAX_CHARS): string => {
  const line = text.replace(/\s+/g, " ").trim()
  if (line.length <= max) return line
  return `${line.slice(0, max)}... (${line.length - max} more characters)`
}

/**
 * An issue's message on one line: what it expects (the schema's words, up to 400 characters) and the value it read
 * (`actual ...`, from the source) clipped to {@link ISSUE_MAX_CHARS} characters ({@link clipped}).
 */
export const issueMessage = (message: string): string => {
  const line = message.split("\n")[0]
  const at = line.indexOf(", actual ")
  if (at < 0) return clipped(line, EXPECTED_MAX_CHARS)
  return `${clipped(line.slice(0, at), EXPECTED_MAX_CHARS)}, actual ${clipped(line.slice(at + ", actual ".length))}`
}

/**
 * The issues of `error`, deepest first, at most `max`, each message one clipped line
 * ({@link clipped}); `keep` drops the issues it answers false for (unless it would drop them all).
 */
export const schemaIssueList = (
  error: ParseResult.ParseError,
  max = 3,
  keep: (issue: ParseResult.ArrayFormatterIssue) => boolean = () => true
): ReadonlyArray<SchemaIssue> => {
  const all = ParseResult.ArrayFormatter.formatErrorSync(error)
  const kept = all.filter(keep)
  const issues = kept.length > 0 ? kept : all
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) => b.issue.path.length - a.issue.path.length || a.order - b.order)
    .slice(0, max)
    .map(({ issue }) => ({ path: issue.path.map(String).join("."), message: issueMessage(issue.message) }))
}

/**
 * {@link schemaIssueList} as one line: `path: message` joined by `; ` (`(root)` for an issue of the value itself).
 */
export const schemaIssues = (
  error: ParseResult.ParseError,
  max = 3,
  keep?: (issue: ParseResult.ArrayFormatterIssue) => boolean
): string => schemaIssueList(error, max, keep).map((i) => `${i.path === "" ? "(root)" : i.path}: ${i.message}`).join("; ")
