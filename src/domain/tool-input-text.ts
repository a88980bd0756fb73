/**
 * The `text` of a tool-call event of Claude Code and Muse agents: its input
 * as one line of JSON, cut to {@link TOOL_INPUT_TEXT_MAX} UTF-16 code units
 * with an ellipsis (DESIGN.md, "Normalized model": a tool call's text is a
 * readable line of its input; seed `000_…` for Muse agents' `arguments`).
 * Shared by both providers, and by the index's lean record, which keeps the
 * input once and makes this text of it again (`rows.ts`, reference mode `j`).
 * Pure.
 *
 * @module
 */

/** Longest `text` of a tool-call event (one-line JSON of its input), in UTF-16 code units. */
export const TOOL_INPUT_TEXT_MAX = 1000

/**
 * `JSON.stringify(input)` (`"null"` for a value JSON has no text for; a value it
 * cannot write, such as one with a cycle, as `String(input)`), cut to
 * {@link TOOL_INPUT_TEXT_MAX} characters, the last one an ellipsis.
 */
export const toolInputText = (input: unknown): string => {
  let s: string
  try {
    s = JSON.stringify(input) ?? "null"
  } catch {
    s = String(input)
  }
  return s.length > TOOL_INPUT_TEXT_MAX ? s.slice(0, TOOL_INPUT_TEXT_MAX - 1) + "…" : s
}
