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
 * How it is told: the file is read through its provider and its events are
 * compared with the stored ones as `./truncated.ts` compares them (a page of
 * stored events at once, the same event at the same place with the same
 * checks), to count the leading events it still holds as they were
 * (`kept`). A file whose first event is of a session the source does not
 * hold is another file, not a rewritten one: the reading stops there and
 * nothing is reported; one whose first event differs from the imported first
 * event of the same session (its first prompt edited in place, then rolled
 * back: tester36a F4) is rewritten from its start (`kept` 0). Past the
 * first event that differs, the file's events are noted by session, event
 * id and content (every field but those of its byte place, the cursor and
 * the raw reference's offset, which moved when a line before it changed
 * length), and each
 * stored event after the kept ones that the file does not hold so is
 * counted `missing`; so is each stored event past the last one of its session the file holds, when every event of
 * the file is the stored one at its place (a Muse Code export replaced by an older one: its events a prefix of those
 * imported; tester38 F7). Stored sessions of the source that the file no longer names at all are not counted.
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

/**
 * What a rewritten source's file holds of what was imported, in events of its own source id:
 * `kept`, the leading events it still holds as they were; `missing`, the imported events after
 * those that it no longer holds (not anywhere in the file, or not with the same content);
 * `imported`, the events imported from it (`kept` + those compared after them).
 */
export interface RewrittenEvents {
  readonly kept: number
  readonly missing: number
  readonly imported: number
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
 * of the events imported from it (see the module doc): undefined when its
 * first event is of no session the source holds, when it holds every imported
 * event, or when it cannot be read (the importer then reads it as usual and
 * reports what it finds). Reads the file through `adapter` (once, to its end
 * unless its first event is of no session the source holds) and the stored events through `index`, a
 * page at a time; holds one key (a few dozen bytes) per event of the file
 * past the kept ones. Fails with the store's error.
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
    const sessions = new Set<string>()
    const read = Stream.filter(Stream.mapError(adapter.stream(locator), () => new ReadFailed()), (e) => e.sourceId === own)
    const folded = yield* Effect.either(Stream.runFoldWhileEffect(
      read,
      { kept: 0, same: true, ofSession: false },
      // Read on while the events are the stored ones, and past them to the end once at least one was, or when the
      // first event differs but is of a session the source holds (its first prompt edited in place; tester36a F4).
      (s) => s.same || s.kept > 0 || s.ofSession,
      (s, e) =>
        Effect.gen(function*() {
          sessions.add(e.sessionId)
          if (s.same) {
            const stored = yield* Effect.flatten(pagerOf(e.sessionId))
            if (sameEvent(e, stored, -1)) return { kept: s.kept + 1, same: true, ofSession: true }
            if (stored !== undefined) unmatched.push(stored)
            held.add(contentKey(e))
            return { kept: s.kept, same: false, ofSession: stored !== undefined }
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
    // Every event of the file the stored one at its place: it may still hold fewer of them than were imported (an
    // older Muse Code export restored over a newer one, the same document with its last records left out; a log
    // whose later lines were overwritten with no event): counted below, never dropped in silence (tester38 F7).
    if (kept === 0 && !folded.right.ofSession) return undefined
    let missing = 0
    let compared = 0
    const count = (e: SessionEvent) => {
      compared++
      if (!held.has(contentKey(e))) missing++
    }
    unmatched.forEach(count)
    // The rest of the stored events of every session the file names.
    for (const sessionId of sessions) {
      const next = yield* pagerOf(sessionId)
      for (let e = yield* next; e !== undefined; e = yield* next) count(e)
    }
    return missing === 0 ? undefined : { kept, missing, imported: kept + compared }
  }))

/** The problem and remedy of a `SOURCE_REWRITTEN` diagnostic for the file `path` ({@link RewrittenEvents}). */
export const rewrittenCause = (path: string, r: RewrittenEvents): { readonly problem: string; readonly remedy: string } => ({
  problem: `${path} was rewritten: ${
    r.kept === 0
      ? `its first event is no longer the one imported from it (the imported prefix changed), and it no longer holds ${r.missing} of the ${r.imported} events imported from it`
      : `it begins with ${r.kept} of the ${r.imported} events imported from it, then no longer holds ${r.missing} of them`
  } (a log cut back and written on, a backup restored or a sync rolled back, or an imported line edited). It was read again as a new generation, so ${r.missing === 1 ? "that imported event, with its usage and cost, is" : `those ${r.missing} imported events, with their usage and cost, are`} no longer shown (the index keeps them in the superseded generation).`,
  remedy: `If the file was rolled back by mistake, restore it from a backup that holds the imported lines (with what was written since after them) and import again: a new generation then holds them. Otherwise nothing is to be done: this is said once, in the run that read the rewritten file.`
})

/**
 * The `SOURCE_REWRITTEN` diagnostic of the file at `path` ({@link rewrittenCause}'s problem and remedy; details `path`,
 * `kept`, `missing`, `imported`), listed in the run's report: it leaves coverage complete (the file was read whole)
 * and is not stored with the source's checkpoint (docs/import.md, "Sources rewritten after a prefix of what was
 * imported").
 */
export const rewrittenDiagnostic = (path: string, r: RewrittenEvents): Diagnostic => {
  const cause = rewrittenCause(path, r)
  return { code: SOURCE_REWRITTEN, message: cause.problem, remediation: cause.remedy, details: { path, ...r } }
}
