/**
 * Incomplete sessions: what the readers of the index say of a session whose
 * source's generation shown is not read to its end yet (`SessionRow.status`
 * `incomplete`: an `import` or `push` killed, stopped part-way or still
 * running on that source's first generation). Pure texts, shared by the
 * listing notes (`sessions`, `search`, `usage`, MCP) and the error that
 * exports, replays and MCP session reads fail with (docs/index.md,
 * "Incomplete sessions"; tester28a F3).
 *
 * @module
 */

/** The facts of an incomplete session the texts name: its native id, events imported so far and machine (team index). */
export interface IncompleteSession {
  readonly sessionId: string
  readonly eventCount: number
  /** The machine its source is on (a team index, PostgreSQL); null on a SQLite index. */
  readonly machine: string | null
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * What completes incomplete sessions: on a local (SQLite) index, the same `import` run again (it resumes where it
 * stopped), or waiting for the one running; on a team index, `push` (or the `import --index postgres://…` that fills
 * it) run again on each machine named in `machines` (their sources' machines, each once).
 */
export const incompleteRemedy = (machines: ReadonlyArray<string | null>): string => {
  const named = [...new Set(machines.filter((m): m is string => m !== null))]
  if (named.length === 0) {
    return "Run the same `session-ingest import` again (it resumes where it stopped), or wait for the import that is running to finish."
  }
  return `On ${named.length === 1 ? "machine" : "machines"} ${named.join(", ")}, run \`session-ingest push\` again ` +
    "(or the `import --index postgres://...` that fills this team index): it completes the sessions it was stopped in; " +
    "or wait for the push that is running to finish."
}

/**
 * The note under a listing that holds incomplete sessions (`n` of them, `marker` the mark their rows carry, e.g.
 * `!`): how many, what it means, what their counts leave out, and the remedy.
 */
export const incompleteNote = (sessions: ReadonlyArray<IncompleteSession>, marker: string): string =>
  `${marker === "" ? "" : `${marker} `}${plural(sessions.length, "session")} incomplete: ${sessions.length === 1 ? "its" : "their"} import stopped part-way ` +
  `or is running, so ${sessions.length === 1 ? "its events are" : "their events are"} a part of the session only ` +
  `(not counted in tokens, cost or usage; export, replay and MCP reads refuse ${sessions.length === 1 ? "it" : "them"}). ` +
  incompleteRemedy(sessions.map((s) => s.machine))

/** The line `show` prints about an incomplete session: how many events are in so far and why. */
export const incompleteLine = (s: IncompleteSession): string =>
  `incomplete: ${plural(s.eventCount, "event")} of session ${s.sessionId} imported so far; its import stopped part-way or is running, ` +
  `so this is a part of the session only (its tokens and cost are not counted). ${incompleteRemedy([s.machine])}`

/**
 * The message and remedy of the error an output of a whole session (export, replay, MCP `get_session` /
 * `get_events`) fails with for an incomplete session: a part of it must not be shared as the whole.
 */
export const incompleteRefusal = (s: IncompleteSession): { readonly message: string; readonly remediation: string } => ({
  message: `Session ${s.sessionId} is incomplete in the index: ${plural(s.eventCount, "event")} imported so far, its import ` +
    "stopped part-way or is running; a part of a session is not given out as the whole session.",
  remediation: incompleteRemedy([s.machine])
})

/**
 * The note of a usage report that left out incomplete sessions (`sessions` of them, `events` imported of them so
 * far): their usage is in no row and not in the total, so no part of a session is priced as the session.
 */
export const incompleteUsageNote = (sessions: number, events: number, remediation: string): string =>
  `${plural(sessions, "session")} incomplete (${plural(events, "event")} imported so far; the import stopped part-way or is running): ` +
  `left out of these rows and the total, so a part of a session is not priced as the session. ${remediation}`
