/**
 * Whether a source's file, changed in its imported part, still begins with
 * the events imported from it and then no longer holds some of them: an
 * append-only log cut back and then written on (a backup restored or a sync
 * rolled back, after which the agent went on; tester25a F6), or an imported
 * line edited. Such a file is read again as a new generation, as any change
 * is (docs/index.md, "Generations"), but the imported events it no longer
 * holds (with their usage, cost and the title they gave) leave every view
 * with the old generation: the importer reports that as `SOURCE_REWRITTEN`,
 * a diagnostic listed in the report, never silently; coverage stays
 * complete (exit 0), since the file itself was read whole (docs/import.md,
 * "Sources rewritten after a prefix of what was imported").
 *
 * How it is told: the file is read through its provider, to its end, and its events are compared with the stored
 * ones as `./truncated.ts` compares them (a page of stored events at once, the same event at the same place with the
 * same checks), to count the leading events it still holds as they were (`kept`; 0 for a document whose bytes
 * changed, a Muse Code export, whose cursors bind the whole document, and for a log whose first bytes changed where
 * no event is). Past the first event that differs, the file's events are noted by session, event id and content
 * (every field but those of its place: the cursor, the raw reference's offset and sequence, which moved when a line
 * before it changed length or a record before it was left out), and each stored event of the source's shown
 * generation after the kept ones that the file does not hold so is counted `missing`: over every session of the
 * source (one query, `Index.sessions({ sourceKey })`), those the file no longer names at all included, each named
 * with its events (`sessionsNoLongerShown`: with the new generation they leave every view; tester38b F1, where a
 * session left out of an export vanished unsaid and the count was over the named sessions only). What the first
 * event is (`first`) picks the message's words: the imported one (perhaps bound to other bytes), another event of the
 * same session (its first prompt edited: tester36a F4), or one of a session the source does not hold.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import type { StoreUnavailable } from "../../domain/errors.js"
import type { Diagnostic, Locator, SessionEvent } from "../../domain/model.js"
import type { IndexShape } from "../../services/Index.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { SOURCE_REWRITTEN } from "../../domain/said-once.js"
import { ReadFailed, sameEvent, storedPager } from "./truncated.js"

/** The report's code for a source read again as a new generation that no longer holds imported events. */
export { SOURCE_REWRITTEN }

/** A session of a rewritten source that its file no longer names: no longer shown, with the events imported of it. */
export interface SessionNoLongerShown {
  readonly sessionId: string
  /** The session's imported events of the source's own source id (each counted in {@link RewrittenEvents.missing}). */
  readonly events: number
}

/**
 * What a rewritten source's file holds of what was imported, in events of its own source id, over every session of
 * the source's shown generation: `kept`, the leading events it still holds as they were (at the same place, bound to
 * the same bytes: 0 for a document whose bytes changed, such as a Muse Code export, since its cursors bind the
 * document); `missing`, the imported events after those that it no longer holds (not anywhere in the file, or not
 * with the same content), those of the sessions it no longer names included; `imported`, the events imported from it
 * (`kept` + those compared after them); `first`, what its first event is: `same`, the imported first event (in
 * content; perhaps at another place or bound to other bytes), `changed`, another event of the same session (its first
 * prompt edited), `other`, an event of a session the source does not hold (or none at all); `sessionsNoLongerShown`,
 * the sessions of the source the file no longer names at all (no event of any source id of the file is of them), in
 * the order the index lists them: with the new generation they leave every view.
 */
export interface RewrittenEvents {
  readonly kept: number
  readonly missing: number
  readonly imported: number
  readonly first: "same" | "changed" | "other"
  readonly sessionsNoLongerShown: ReadonlyArray<SessionNoLongerShown>
}

/** JSON text of `value` with the keys of every object in sorted order (undefined fields left out). */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonical(v))).join(",")}]`
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * An event's session, id and a digest of its content: every field but those that give its place in the file, its
 * cursor and its raw reference's `offset` (both moved when a line before it changed length; tester26a F7), its
 * `sequence` and its raw reference's `sequence` (its place among the source's events: moved when an event before it
 * is no longer there, as in a Muse Code export with records left out; tester38 F7). Event ids do not derive from
 * those (Claude Code, Muse agents: `line-<n>`; Muse Code: the record's envelope `sequence`; AgentMux: the record's
 * index), nor do the other fields, so an event only moved keeps its key.
 */
const contentKey = (e: SessionEvent): string => {
  const content = { ...e, cursor: "", sequence: 0, rawReference: { ...e.rawReference, offset: undefined, sequence: undefined } }
  return `${e.sessionId}\u0000${e.eventId}\u0000${createHash("sha256").update(canonical(content)).digest("hex")}`
}

/**
 * What the file `locator.path` of the source `sourceKey` (own events of
 * source id `checkpoint.sourceId`), found changed in its imported part, holds
 * of the events imported from it (see the module doc): undefined when it
 * holds every imported event, or when it cannot be read (the importer then
 * reads it as usual and reports what it finds). Reads the file through
 * `adapter` (once, to its end), the source's sessions through `index` (one
 * query, `sessions({ sourceKey })`) and their stored events a page at a time;
 * holds one key (a few dozen bytes) per event of the file past the kept ones.
 * Fails with the store's error.
 */
export const rewrittenSource = (
  adapter: SessionSourceAdapter,
  index: IndexShape,
  sourceKey: string,
  checkpoint: { readonly sourceId: string | null },
  locator: Locator
): Effect.Effect<RewrittenEvents | undefined, StoreUnavailable> =>
  Effect.scoped(Effect.gen(function*() {
    const own = checkpoint.sourceId
    if (own === null) return undefined
    const pagers = new Map<string, Effect.Effect<SessionEvent | undefined, StoreUnavailable>>()
    const pagerOf = (sessionId: string) =>
      Effect.suspend(() => {
        const known = pagers.get(sessionId)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(storedPager(index, sourceKey, own, sessionId), (p) => Effect.sync(() => pagers.set(sessionId, p)))
      })
    /** Stored events taken to compare and not the file's at their place. */
    const unmatched: Array<SessionEvent> = []
    /** The file's events past the kept ones, by {@link contentKey}. */
    const held = new Set<string>()
    /** The sessions the file names, by events of any of its source ids (a nested log's too). */
    const named = new Set<string>()
    let first: RewrittenEvents["first"] = "other"
    const read = Stream.filter(
      Stream.mapError(adapter.stream(locator), () => new ReadFailed()),
      (e) => {
        named.add(e.sessionId)
        return e.sourceId === own
      }
    )
    const folded = yield* Effect.either(Stream.runFoldEffect(
      read,
      { kept: 0, same: true },
      (s, e) =>
        Effect.gen(function*() {
          if (s.same) {
            const stored = yield* Effect.flatten(pagerOf(e.sessionId))
            if (sameEvent(e, stored, -1)) {
              if (s.kept === 0) first = "same"
              return { kept: s.kept + 1, same: true }
            }
            if (s.kept === 0 && stored !== undefined) first = contentKey(e) === contentKey(stored) ? "same" : "changed"
            if (stored !== undefined) unmatched.push(stored)
            held.add(contentKey(e))
            return { kept: s.kept, same: false }
          }
          held.add(contentKey(e))
          return s
        })
    ))
    if (folded._tag === "Left") {
      if (folded.left instanceof ReadFailed) return undefined
      return yield* folded.left
    }
    const kept = folded.right.kept
    let missing = 0
    let compared = 0
    const count = (e: SessionEvent) => {
      compared++
      if (!held.has(contentKey(e))) missing++
    }
    unmatched.forEach(count)
    // The rest of the stored events of every session of the source: past the last one of its session the file
    // holds when every event of the file is the stored one at its place (an older Muse Code export restored over a
    // newer one; tester38 F7), and every event of a session the file no longer names (a session left out of a
    // document, or the file now another session's: tester38b F1).
    const sessionsNoLongerShown: Array<SessionNoLongerShown> = []
    for (const row of yield* index.sessions({ sourceKey })) {
      const next = yield* pagerOf(row.sessionId)
      let events = 0
      for (let e = yield* next; e !== undefined; e = yield* next) {
        count(e)
        events++
      }
      if (!named.has(row.sessionId)) sessionsNoLongerShown.push({ sessionId: row.sessionId, events })
    }
    return missing === 0 ? undefined : { kept, missing, imported: kept + compared, first, sessionsNoLongerShown }
  }))

/** At most this many sessions no longer shown are named in a `SOURCE_REWRITTEN` message (its details list them all). */
const NAMED_SESSIONS = 10

/** `n` and `word`, plural when `n` is not 1. */
const countOf = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The sessions no longer shown, as a message names them: `2 whole sessions the file no longer names: a (1 event), b (3 events)`. */
const sessionsLine = (gone: ReadonlyArray<SessionNoLongerShown>): string =>
  `${gone.length === 1 ? "1 whole session" : `${gone.length} whole sessions`} the file no longer names: ${
    gone.slice(0, NAMED_SESSIONS).map((g) => `${g.sessionId} (${countOf(g.events, "event")})`).join(", ")
  }${gone.length > NAMED_SESSIONS ? `, and ${gone.length - NAMED_SESSIONS} more (listed in the details)` : ""}`

/** The problem and remedy of a `SOURCE_REWRITTEN` diagnostic for the file `path` ({@link RewrittenEvents}). */
export const rewrittenCause = (path: string, r: RewrittenEvents): { readonly problem: string; readonly remedy: string } => {
  const lost = `it no longer holds ${r.missing} of the ${r.imported} events imported from it`
  const what = r.kept > 0
    ? `it begins with ${r.kept} of the ${r.imported} events imported from it, then no longer holds ${r.missing} of them`
    : r.first === "changed"
    ? `its first event is no longer the one imported from it (the imported prefix changed), and ${lost}`
    : r.first === "other"
    ? `it no longer begins with an event of a session imported from it, and ${lost}`
    : lost
  const gone = r.sessionsNoLongerShown
  const events = r.missing === 1 ? "that imported event, with its usage and cost, is" : `those ${r.missing} imported events, with their usage and cost, are`
  return {
    problem: `${path} was rewritten: ${what} (a log cut back and written on, a backup or an older export restored, a sync rolled back, or an imported record left out or edited). It was read again as a new generation, so ${events} no longer shown${
      gone.length === 0 ? "" : `, among them every event of ${sessionsLine(gone)}, which no longer ${gone.length === 1 ? "shows" : "show"} in sessions, show, search or usage`
    } (the index keeps them in the superseded generation, which no command shows).`,
    remedy: `If the file was rolled back by mistake, restore it from a backup that holds the imported ${
      gone.length === 0 ? "lines" : "lines and sessions"
    } (with what was written since after them) and import again: a new generation then holds them. Otherwise nothing is to be done: this is said once, in the run that read the rewritten file.`
  }
}

/**
 * The `SOURCE_REWRITTEN` diagnostic of the file at `path` ({@link rewrittenCause}'s problem and remedy; details `path`,
 * `kept`, `missing`, `imported` and `sessionsNoLongerShown`, `[{sessionId, events}]`), listed in the run's report: it
 * leaves coverage complete (the file was read whole) and is not stored with the source's checkpoint (docs/import.md,
 * "Sources rewritten after a prefix of what was imported").
 */
export const rewrittenDiagnostic = (path: string, r: RewrittenEvents): Diagnostic => {
  const cause = rewrittenCause(path, r)
  return {
    code: SOURCE_REWRITTEN,
    message: cause.problem,
    remediation: cause.remedy,
    details: { path, kept: r.kept, missing: r.missing, imported: r.imported, sessionsNoLongerShown: r.sessionsNoLongerShown }
  }
}
