/**
 * A line source that got shorter while it was read: truncated or rewritten
 * in place (an append-only log never shrinks). Its events so far may mix two
 * versions of the file, so the stream fails instead of ending as if at EOF.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { MalformedSource } from "../../domain/errors.js"

/**
 * A stream that ends once `lines` ends, then fails with `MalformedSource`
 * when the read stopped (`reached()`, bytes) before the size the file had
 * when it was opened (`sizeAtOpen`, bytes). `what` names the source in the
 * message; `sizeNow`, when given, the file's size once the read ended
 * (bytes; the read may have stopped past it, or before, as the file was
 * being rewritten), said too. A stream cut short by its consumer (`take`)
 * never gets here.
 */
export const failIfShrank = <A, E, R>(
  lines: Stream.Stream<A, E, R>,
  sizeAtOpen: number,
  reached: () => number,
  what: string,
  sizeNow?: Effect.Effect<number, unknown>
): Stream.Stream<A, E | MalformedSource, R> =>
  Stream.concat(
    lines,
    Stream.fromEffect(Effect.suspend(() => {
      const end = reached()
      if (end >= sizeAtOpen) return Effect.void
      const now = sizeNow === undefined ? Effect.succeed(undefined) : Effect.orElseSucceed(sizeNow, () => undefined)
      return Effect.flatMap(now, (size) =>
        Effect.fail(
          new MalformedSource({
            message: `${what} shrank while it was read (${sizeAtOpen} bytes when opened, it ended at byte ${end}${
              size !== undefined ? `; the file is now ${size} bytes` : ""
            }): it was truncated or rewritten in place.`,
            remediation: "Read it again once its writer is done; the events read so far may mix two versions of the file.",
            details: { sizeAtOpen, endedAt: end, ...(size !== undefined ? { sizeNow: size } : {}) }
          })
        ))
    })).pipe(Stream.drain)
  )

/** True when `head` (a file's first bytes) starts with a UTF-8 BOM, which line reading skips. */
export const hasBom = (head: Uint8Array): boolean => head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf
