/**
 * The note a command that reads one session by id (`show`, `export`,
 * `replay`) writes on stderr when the id names sessions of several sources
 * (a log copied to a second place, a resumed session, a team index's copies
 * on several machines): which one it read, and the uids of the others to
 * pick another (tester19 F6: `export` and `replay` picked one silently).
 *
 * @module
 */
import { incompleteLine } from "../domain/incomplete.js"
import { oneLineField, shownName } from "../domain/render.js"
import type { SessionStatus } from "../services/Index.js"
import { writeStderr } from "./output.js"

/** A session as the note names it: its uid, and on a team index its machine (`ses_… on ci-runner-7`). */
export interface NamedSession {
  readonly sessionUid: string
  readonly machine: string | null
}

const named = (s: NamedSession) => (s.machine !== null ? `${s.sessionUid} on ${shownName(s.machine)}` : s.sessionUid)

/**
 * `note: N sources hold session <id>; showing <uid> (use a ses_… uid to pick
 * another: <uid>, …)` on stderr, when `others` is not empty; `verb`: what
 * the command does with the one it took (`showing`, `exporting`, `replaying`).
 * `<id>` is the session's own id (as `shownName` shows a name, whole), not what was typed: a prefix
 * of it names it too (tester32a F10).
 */
export const noteOtherSources = (shown: NamedSession & { readonly sessionId: string }, others: ReadonlyArray<NamedSession>, verb = "showing"): void => {
  if (others.length === 0) return
  writeStderr(
    `note: ${others.length + 1} sources hold session ${shownName(shown.sessionId, Infinity)}; ${verb} ${named(shown)} (use a ses_… uid to pick another: ${
      others.map(named).join(", ")
    })\n`
  )
}

/** A session as {@link noteIncomplete} names it (`SessionRow`'s fields). */
export interface ShownSession extends NamedSession {
  readonly sessionId: string
  readonly eventCount: number
  readonly status: SessionStatus
}

/**
 * `note: incomplete: N events of session <id> imported so far; …` on stderr when `session` is incomplete (its
 * import or push stopped part-way or is running; see `incompleteLine` in `src/domain/incomplete.ts`): what `show`
 * says before a part of a session, so it is never read as the whole (tester28a F3).
 */
export const noteIncomplete = (session: ShownSession): void => {
  if (session.status !== "incomplete") return
  writeStderr(`note: ${incompleteLine({
    sessionId: oneLineField(session.sessionId),
    eventCount: session.eventCount,
    machine: session.machine === null ? null : shownName(session.machine)
  })}\n`)
}
