/**
 * Shown cursors: the cursor a redacted output gives an event (an MCP answer with redaction on, a redacted export,
 * Markdown or replay) in place of its stream cursor.
 *
 * A stream cursor (`./cursor.ts`) is bound to the bytes it was taken from: `h` is a CRC-32 of the event's line as
 * imported, `hd` the sha256 of the source's first 4 KiB, and its offsets are byte positions. In a redacted output
 * those are values of the hidden bytes: whoever holds the redacted text could test guesses of a secret offline
 * against them (a short password is confirmed by its line's CRC-32), and two sessions that differ only in a secret
 * had different cursors (docs/mcp.md, "A search over what is shown"; tester22c).
 *
 * A shown cursor names the event by its place and identity only, all of them values the output shows anyway:
 * `s1.<tag>.<seq>.<check>` — `tag` the shown tag of its source (`./shown-ids.ts`: keyed by the index's secret), `seq` the event's `sequence` in base 36,
 * `check` {@link eventCheck} of its session id and event id at that sequence (8 hex digits: an edited token, or one
 * whose event was imported again as another, no longer matches). `get_events` takes it as it takes a stream cursor:
 * the events after that event. `stream --cursor` does not (a shown cursor holds no place in the source's bytes): it
 * refuses one with `INVALID_CURSOR` saying so.
 *
 * @module
 */
import * as Either from "effect/Either"
import { eventCheck, peekCursor, shownCursorForm, sourceTag } from "./cursor.js"
import { InvalidCursor } from "./errors.js"
import { realIds, type ShownIds } from "./shown-ids.js"

/** The prefix of a shown cursor token. */
export const SHOWN_CURSOR_PREFIX = "s1."

/** What a shown cursor names (see the module's doc): the source's tag, the event's sequence, its check. */
export interface ShownPlace {
  readonly tag: string
  readonly seq: number
  readonly check: string
}

/** The fields of an event a shown cursor is made from. */
export interface ShownEvent {
  readonly sessionId: string
  readonly eventId: string
  readonly sequence: number
  /** The event's stream cursor: its source's tag is read from it when `sourceId` is not given. */
  readonly cursor?: string | null
  readonly sourceId?: string
}

/**
 * The shown source tag of an event under `ids`: of its `sourceId`, else of the tag its stream cursor carries (a `c2`
 * token's, a `c1` token's source id's); a shown cursor's as it is.
 */
const tagOf = (e: ShownEvent, ids: ShownIds): string => {
  if (e.sourceId !== undefined) return ids.sourceTag(e.sourceId)
  const c = e.cursor ?? ""
  if (c.startsWith(SHOWN_CURSOR_PREFIX)) return c.slice(3, 19)
  if (c.startsWith("c2.")) return ids.tag(c.slice(3, 19))
  const peeked = peekCursor(c)
  return ids.tag(Either.isRight(peeked) ? sourceTag(peeked.right.src) : sourceTag(c))
}

/**
 * The shown cursor of an event (`s1.<tag>.<seq>.<check>`, about 40 characters): from its source, sequence, session
 * id and event id only, never from its bytes as imported. `ids`: the shown ids of the output (`./shown-ids.ts`: the
 * tag is keyed by the index's secret, so it is no digest of the path); {@link realIds} by default (the unkeyed tag).
 */
export const shownCursor = (e: ShownEvent, ids: ShownIds = realIds): string =>
  SHOWN_CURSOR_PREFIX + tagOf(e, ids) + "." + e.sequence.toString(36) + "." + eventCheck(e, e.sequence)

/** Whether a token is a shown cursor (by its prefix; {@link peekShownCursor} checks the rest). */
export const isShownCursor = (token: string): boolean => token.startsWith(SHOWN_CURSOR_PREFIX)

/**
 * The place a shown cursor token names. Fails with `InvalidCursor` when the token is not a well-formed shown
 * cursor.
 */
export const peekShownCursor = (token: string): Either.Either<ShownPlace, InvalidCursor> => {
  const place = shownCursorForm(token)
  if (place === null) {
    return Either.left(
      new InvalidCursor({
        message: "The cursor token is malformed.",
        remediation: "Pass the cursor of an event as an answer gave it, or leave it out to start from the first event."
      })
    )
  }
  return Either.right(place)
}

/** Whether a shown cursor's place belongs to the source `sourceId` (its tag as `ids` show it). */
export const shownCursorIsFor = (place: ShownPlace, sourceId: string, ids: ShownIds = realIds): boolean => place.tag === ids.sourceTag(sourceId)

/** Whether `token` (a stream cursor or a shown cursor under `ids`) names the event `e`. */
export const cursorNames = (token: string, e: ShownEvent & { readonly cursor: string }, ids: ShownIds = realIds): boolean =>
  e.cursor === token || (isShownCursor(token) && shownCursor(e, ids) === token)
