/**
 * Whether a source's file was cut back to a prefix of what was imported: now
 * shorter than its imported prefix, and its bytes, as far as the index can
 * tell, the first bytes of what was imported (a backup restored, a sync
 * rolled back, `head -n 10`, `truncate -s N` mid-line; tester24b F2). An
 * append-only log (a Claude Code session log, a Muse agents transcript, a
 * Muse Code native log) never shrinks as a new version of its session: this
 * is damage, and the importer keeps what it imported as it was and reports
 * `SOURCE_TRUNCATED` (coverage partial), as it keeps an emptied file
 * (`./emptied.ts`; docs/import.md, "Sources cut back to a prefix of what was
 * imported"). Grown back past the imported prefix with the same bytes, the
 * next import resumes from its checkpoint as usual (the prefix binding
 * matches again).
 *
 * How the prefix is checked: the index keeps no copy of the imported bytes,
 * only the binding (sha256) of the whole imported prefix, and each event's
 * resume cursor. The file is read again (through its provider, from its
 * start: at most the imported size), and every event it yields now must be
 * the stored event at its place: the same session, event id and sequence,
 * and a cursor at the same place bound to the same bytes (its line's check
 * `h`, over the line's bytes, and its head binding `hd`, over the file's
 * first bytes: what a resume checks, `INVALID_CURSOR` otherwise). A file
 * that yields no event of its own, or one event not so, is not taken as cut
 * back (it is a change, read as usual). Not checked: the bytes of a partial
 * last line (a cut mid-line; the index keeps no raw line to compare them
 * to): they are no event, and held back as an append in progress, so they
 * change nothing; when the file grows, the prefix binding decides.
 *
 * @module
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as nodePath from "node:path"
import { isDeepStrictEqual } from "node:util"
import { type CursorState, peekCursor } from "../../domain/cursor.js"
import type { SourceAccessError, StoreUnavailable } from "../../domain/errors.js"
import type { Locator, SessionEvent } from "../../domain/model.js"
import type { IndexShape } from "../../services/Index.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"
import type { SessionSourceAdapter } from "../../services/SessionSource.js"
import { bindingLength } from "./prefix.js"

/** The report's code for a source kept because its file was cut back to a prefix of what was imported. */
export const SOURCE_TRUNCATED = "SOURCE_TRUNCATED"

/** The size in bytes of the source file `path` now (authorized in its own folder, read-only). */
export const fileSize = (access: SourceAccessShape, path: string): Effect.Effect<number, SourceAccessError> =>
  Effect.scoped(
    Effect.flatMap(
      Effect.flatMap(access.authorizeFile(path, [nodePath.dirname(path)]), access.open),
      (src) => Effect.map(src.stat, (st) => st.size)
    )
  )

/**
 * The size of the source file `path` (imported up to `prefix`, a binding
 * `<n>:<hex>`) when it is now shorter than that; undefined when it is not
 * (or no binding says). Fails with the access error when it cannot be read.
 */
export const shorterThanImported = (
  access: SourceAccessShape,
  path: string,
  prefix: string | null
): Effect.Effect<{ readonly size: number; readonly imported: number } | undefined, SourceAccessError> =>
  Effect.suspend(() => {
    const imported = prefix === null ? -1 : bindingLength(prefix)
    if (imported <= 0) return Effect.succeed(undefined)
    return Effect.map(fileSize(access, path), (size) => (size < imported ? { size, imported } : undefined))
  })

/** A cursor's state, undefined when it cannot be read. */
const stateOf = (cursor: string): CursorState | undefined => {
  const state = peekCursor(cursor)
  return Either.isLeft(state) ? undefined : state.right
}

/** Whether two cursors name one place with the same checks binding it to the bytes (source id and provider extras left out). */
const samePlace = (n: CursorState, o: CursorState): boolean =>
  n.seq === o.seq && n.off === o.off && n.ls === o.ls && n.sub === o.sub && n.h === o.h && n.hd === o.hd

/**
 * Whether `now` (an event read from the file now, `size` bytes) is `stored` (the event the index holds at its
 * place): the same event at the same place with the same checks; or, for the file's last line, the same event on a
 * line that starts where the stored one starts and now ends at the end of the file, short of where the stored one
 * ended, and whose event is the stored one in every field but its cursor: the last line whole but for its `\n`
 * (what `truncate -s`, a sync rollback or a crash between a line and its newline leave; tester25a F15). A last line
 * rewritten shorter with other content parses to another event: a change, not a cut. A `size` of -1 leaves that last
 * case out (an event is then the stored one only at the same place with the same checks).
 */
export const sameEvent = (now: SessionEvent, stored: SessionEvent | undefined, size: number): boolean => {
  if (stored === undefined || now.eventId !== stored.eventId || now.sequence !== stored.sequence || now.kind !== stored.kind) return false
  const n = stateOf(now.cursor)
  const o = stateOf(stored.cursor)
  if (n === undefined || o === undefined) return false
  if (samePlace(n, o)) return true
  return n.off === size && o.off !== undefined && o.off > size && n.ls !== undefined && n.ls === o.ls && n.seq === o.seq &&
    (n.sub ?? 0) === (o.sub ?? 0) && isDeepStrictEqual({ ...now, cursor: "" }, { ...stored, cursor: "" })
}

/** The adapter's read failed: the file is then read as usual, and the importer reports what it finds. */
export class ReadFailed {
  readonly _tag = "ReadFailed"
}

/**
 * The stored events of source id `own` in the session `sessionId` of
 * `sourceKey`, one at a time, a page of them held at once; `undefined` once
 * they are all taken, or when the index does not hold exactly one such session.
 */
export const storedPager = (
  index: IndexShape,
  sourceKey: string,
  own: string,
  sessionId: string
): Effect.Effect<Effect.Effect<SessionEvent | undefined, StoreUnavailable>, StoreUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const rows = (yield* index.findSessions(sessionId)).filter((r) => r.sourceKey === sourceKey && r.sessionId === sessionId)
    if (rows.length !== 1) return Effect.succeed(undefined)
    const pull = yield* Stream.toPull(Stream.filter(index.eventsStream(rows[0].sessionUid), (e) => e.sourceId === own))
    let page: ReadonlyArray<SessionEvent> = []
    let at = 0
    let done = false
    const next: Effect.Effect<SessionEvent | undefined, StoreUnavailable> = Effect.suspend(() => {
      if (at < page.length) return Effect.succeed(page[at++])
      if (done) return Effect.succeed(undefined)
      return Effect.matchEffect(pull, {
        onFailure: (e) => {
          if (Option.isSome(e)) return Effect.fail(e.value)
          done = true
          return Effect.succeed(undefined)
        },
        onSuccess: (chunk) => {
          page = Chunk.toReadonlyArray(chunk)
          at = 0
          return next
        }
      })
    })
    return next
  })

/**
 * A file cut back to a prefix of what was imported: its `size` now, the
 * `imported` size, and `matched`, the bytes its events were compared equal
 * in: the end of the line of the last event it yields (at most `size`; less
 * by a partial last line, which is not compared, tester26a F1), or undefined
 * when the provider's cursors name no line end.
 */
export interface TruncatedBytes {
  readonly size: number
  readonly imported: number
  readonly matched: number | undefined
}

/**
 * Whether the source `sourceKey` (own events of source id `sourceId`, its
 * file `locator.path` imported up to the binding `prefix`) was cut back to a
 * prefix of what was imported (see the module doc): its sizes
 * ({@link TruncatedBytes}), or undefined when it is not shorter or not a
 * prefix (a change). Reads the file through `adapter` and the stored events through
 * `index`, both as streams compared event by event: a page of each held at
 * once, and the first event that differs ends the reading. A read that fails
 * answers undefined (the importer reads it as usual and reports what it
 * finds). Fails with the access error when the file's size cannot be had,
 * and with the store's.
 */
export const truncatedSource = (
  access: SourceAccessShape,
  adapter: SessionSourceAdapter,
  index: IndexShape,
  sourceKey: string,
  checkpoint: { readonly prefix: string | null; readonly sourceId: string | null },
  locator: Locator
): Effect.Effect<TruncatedBytes | undefined, SourceAccessError | StoreUnavailable> =>
  Effect.gen(function*() {
    const own = checkpoint.sourceId
    if (own === null) return undefined
    const shorter = yield* shorterThanImported(access, locator.path, checkpoint.prefix)
    if (shorter === undefined || shorter.size === 0) return undefined
    const compared = Effect.scoped(Effect.gen(function*() {
      const pagers = new Map<string, Effect.Effect<SessionEvent | undefined, StoreUnavailable>>()
      const read = Stream.filter(Stream.mapError(adapter.stream(locator), () => new ReadFailed()), (e) => e.sourceId === own)
      // `seen`: events of its own the file yields now; `same`: every one of them so far is the stored event at its place;
      // `matched`: the end of the last one's line.
      return yield* Stream.runFoldWhileEffect(
        read,
        { seen: 0, same: true, matched: undefined as number | undefined },
        (s) => s.same,
        (s, e) =>
          Effect.gen(function*() {
            let pager = pagers.get(e.sessionId)
            if (pager === undefined) {
              pager = yield* storedPager(index, sourceKey, own, e.sessionId)
              pagers.set(e.sessionId, pager)
            }
            const off = stateOf(e.cursor)?.off
            const matched = off === undefined ? s.matched : Math.max(off, s.matched ?? 0)
            return { seen: s.seen + 1, same: sameEvent(e, yield* pager, shorter.size), matched }
          })
      )
    }))
    const outcome = yield* Effect.catchIf(compared, (e): e is ReadFailed => e instanceof ReadFailed, () => Effect.succeed(undefined))
    if (outcome === undefined || !outcome.same || outcome.seen === 0) return undefined
    return { ...shorter, matched: outcome.matched === undefined ? undefined : Math.min(outcome.matched, shorter.size) }
  })
