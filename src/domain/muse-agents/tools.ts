/**
 * Tool-name and argument normalization of Muse agents transcripts (seed
 * `000_…`, "Decisions"): built-in tools are renamed to the canonical names of
 * DESIGN.md ("Canonical tool names") so replays render terminal output and
 * diffs and edit analytics count them; namespaced agent tools
 * (`memory_search`, `subagent.spawn`, …) and every other name pass through
 * unchanged.
 *
 * @module
 */
import { isRecord } from "../json.js"

/** Native built-in name → canonical name (seed 000: `exec`→`Bash`, `edit`→`Edit`, `write`→`Write`, `read`→`Read`). */
export const CANONICAL_TOOL_NAMES: Readonly<Record<string, string>> = {
  exec: "Bash",
  edit: "Edit",
  write: "Write",
  read: "Read"
}

/**
 * Native argument key → canonical key, per native tool. `edit` is the seed's
 * rule (`path`/`old_text`/`new_text` → `file_path`/`old_string`/`new_string`);
 * `path` → `file_path` for `write` and `read` follows the canonical shapes
 * `Write {file_path, content}` and `Read {file_path}` of DESIGN.md (the seed is
 * silent on their argument names).
 */
export const CANONICAL_ARGUMENT_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  edit: { path: "file_path", old_text: "old_string", new_text: "new_string" },
  write: { path: "file_path" },
  read: { path: "file_path" }
}

/** Canonical names of file-editing tools, counted as `editCount` by discovery (issue 4). */
export const EDIT_TOOL_NAMES: ReadonlySet<string> = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit", "Delete"])

/** The canonical name of a native tool name (unchanged when it is not a built-in). */
export const canonicalToolName = (nativeName: string): string =>
  Object.prototype.hasOwnProperty.call(CANONICAL_TOOL_NAMES, nativeName) ? CANONICAL_TOOL_NAMES[nativeName] : nativeName

/**
 * Normalize one tool call: the canonical name, and the input with native
 * argument keys renamed (key order kept; a canonical key already present is
 * never overwritten, and the native key is then kept as it is). A non-object
 * input is returned unchanged.
 */
export const normalizeToolCall = (
  nativeName: string,
  input: unknown
): { readonly name: string; readonly input: unknown } => {
  const name = canonicalToolName(nativeName)
  const renames = Object.prototype.hasOwnProperty.call(CANONICAL_ARGUMENT_KEYS, nativeName)
    ? CANONICAL_ARGUMENT_KEYS[nativeName]
    : undefined
  if (renames === undefined || !isRecord(input)) return { name, input }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) {
    const target = Object.prototype.hasOwnProperty.call(renames, k) ? renames[k] : undefined
    // defineProperty, not assignment: a parsed key "__proto__" must stay a plain own key.
    const key = target !== undefined && !Object.prototype.hasOwnProperty.call(input, target) ? target : k
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
  }
  return { name, input: out }
}

/** True when a canonical tool name edits files (issue 4's `editCount`). */
export const isEditTool = (canonicalName: string): boolean => EDIT_TOOL_NAMES.has(canonicalName)
