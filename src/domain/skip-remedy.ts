/**
 * The remedy of a discovery whose coverage is partial because candidates were
 * skipped, derived from the codes of the diagnostics that skipped them (so
 * the user is told what to do about what did happen, not a fixed sentence
 * naming causes that may not be present). Pure.
 *
 * @module
 */

/** One sentence per skip cause, by diagnostic code. */
const BY_CODE: Readonly<Record<string, string>> = {
  SYMLINK_SKIPPED:
    "Symlinked folders or files are not followed: pass the real folder as the root, or replace the link with what it points to.",
  SOURCE_SYMLINK:
    "Symlinked folders or files are not followed: pass the real folder as the root, or replace the link with what it points to.",
  SOURCE_OUTSIDE_ALLOWED_ROOT:
    "Symlinked folders or files are not followed: pass the real folder as the root, or replace the link with what it points to.",
  SOURCE_NOT_REGULAR_FILE: "A session file is a folder, fifo, socket or device: it is not read; put the real file back.",
  NOT_A_FILE: "A session file is a folder, fifo, socket or device: it is not read; put the real file back.",
  SOURCE_NOT_UTF8:
    "A session file is encoded as UTF-16 or UTF-32 (re-saved by Windows PowerShell's > or Out-File, say), not UTF-8: it is not read; convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8, then put that in its place; its diagnostic names the command) and import again.",
  SOURCE_GARBLED:
    "A session file holds lines none of which could be read (torn, zeroed or overwritten): it is not read; restore it from a backup (or remove it if it is no session) and import again.",
  RESOURCE_LIMIT_EXCEEDED:
    "A session file's lines are all longer than the import limit maxRecordBytes: it is not read; if it is a session you trust, raise limits.maxRecordBytes in the config file (`{\"limits\": {\"maxRecordBytes\": N}}`, passed with --config), else restore it from a backup (or remove it if it is no session), and import again.",
  CLAUDE_LOG_IN_PROJECTS_ROOT:
    "A session log lies in the projects root itself, where Claude Code never writes one: it is not read; move it into its project's folder (<encoded-cwd>/<session-uuid>.jsonl) and import again.",
  CLAUDE_SUBAGENT_UNLINKED:
    "Flat subagent files (agent-*.jsonl) name no session file of their project folder (the session was deleted or moved): they are not read; restore the session file, or remove the stray subagent files if the session is gone."
}

/**
 * The remedy for the skip causes `codes` (diagnostic codes, in the order
 * met; repeats allowed): one sentence per distinct cause, then one for every
 * other code (an access error: permissions), naming those codes. Starts with
 * "See diagnostics:".
 */
export const remedyOfSkips = (codes: Iterable<string>): string => {
  const sentences: Array<string> = []
  const other: Array<string> = []
  for (const code of codes) {
    const s = BY_CODE[code]
    if (s !== undefined) {
      if (!sentences.includes(s)) sentences.push(s)
    } else if (!other.includes(code)) {
      other.push(code)
    }
  }
  if (other.length > 0) {
    sentences.push(`Some folders or files could not be read (${other.join(", ")}): check that they exist and that the user running session-ingest may read them.`)
  }
  return `See diagnostics: ${sentences.join(" ")}`
}
