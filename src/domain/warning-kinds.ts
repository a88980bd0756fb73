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
 * (README, "Token counts that are not valid").
 */
export const USAGE_NOT_VALID = "usage-not-valid"

/**
 * The diagnostic code of a parse warning given as a diagnostic (`inspect`'s
 * diagnostics; `StreamOptions.onWarning` of a provider whose discovery reads
 * no lines, AgentMux): `details` is the warning, `{kind, count, firstLine}`.
 * The importer lists these in its report's `parseWarnings`, not as a
 * provider's diagnostics, and they do not make coverage partial.
 */
export const PARSE_WARNING = "PARSE_WARNING"
