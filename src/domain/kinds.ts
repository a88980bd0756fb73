/**
 * Event kinds as a filter names them (`search --kind`, issue 14; a fresh
 * user's finding: `--kind tool_result` silently found nothing).
 *
 * The rule: a kind is provider-defined and matched exactly. The conversation
 * providers share {@link COMMON_KINDS} (`message`, `thinking`, `tool-call`,
 * `tool-result`, `summary`, `result`, and Claude Code's `meta`); Muse Code's
 * kinds are the source's own (seed 001: `payload.event.kind`, else
 * `payload_type`: `side_effect_intent`, `subagent.control.spawn_accepted`,
 * `approval_wait.effect.started`, …), an open set. So a filter value is
 * refused only when no provider can mean it: when it is not of a kind's form
 * (lower-case words joined by `-`, `_` or `.`), or when it is another
 * spelling of a common kind (`tool_result`, `Tool-Result`, `toolresult`,
 * `messages`, and the native names `tool_use`, `text`, `compaction`), which
 * the refusal names. Pure.
 *
 * @module
 */

/** The kinds the conversation providers share, in the order help lists them. */
export const COMMON_KINDS: ReadonlyArray<string> = ["message", "thinking", "tool-call", "tool-result", "summary", "result", "meta"]

/** A kind's form: lower-case words (letters, digits) joined by `-`, `_` or `.`. */
const KIND_FORM = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/

/** Other spellings of the common kinds (case, separators and a plural `s` left out), and native names for them. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ...COMMON_KINDS.map((k) => [squash(k), k] as const),
  ["tooluse", "tool-call"],
  ["functioncall", "tool-call"],
  ["tooloutput", "tool-result"],
  ["functionresult", "tool-result"],
  ["text", "message"],
  ["thought", "thinking"],
  ["reasoning", "thinking"],
  ["compaction", "summary"],
  ["compact", "summary"]
])

/** A kind reduced for comparison: lower case, without separators or white space, without a plural `s`. */
function squash(kind: string): string {
  const s = kind.toLowerCase().replace(/[\s._-]+/g, "")
  return s.length > 3 && s.endsWith("s") ? s.slice(0, -1) : s
}

/** What {@link checkKind} says of a filter value: fine, or why not (and the common kind it may mean). */
export type KindCheck =
  | { readonly _tag: "ok" }
  | { readonly _tag: "refused"; readonly problem: string; readonly meant: string | undefined }

/**
 * Check a kind filter value by the rule of this module: `ok` for a common
 * kind and for any other value of a kind's form that is no other spelling
 * of a common kind; `refused` otherwise, with the common kind meant when
 * there is one.
 */
export const checkKind = (kind: string): KindCheck => {
  if (COMMON_KINDS.includes(kind)) return { _tag: "ok" }
  const meant = ALIASES.get(squash(kind))
  if (meant !== undefined) return { _tag: "refused", problem: `${JSON.stringify(kind)} is not how the kind is spelt: did you mean ${meant}?`, meant }
  if (!KIND_FORM.test(kind)) {
    return { _tag: "refused", problem: `${JSON.stringify(kind)} is not a kind: a kind is lower-case words joined by -, _ or . (e.g. tool-result).`, meant: undefined }
  }
  return { _tag: "ok" }
}

/** The remedy of a refused kind: the common kinds, and how providers' own kinds are named. */
export const KIND_REMEDY = `Pass one of ${COMMON_KINDS.join(", ")}, or a provider's own kind exactly as its events carry it ` +
  "(Muse Code: e.g. side_effect_intent, subagent.control.spawn_accepted; `stream` or `show --format events --json` shows each event's kind)."
