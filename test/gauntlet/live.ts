/**
 * Writers that change a source while it is read: the "grows while streamed"
 * and "replaced while streamed" cases of the gauntlet, for file providers.
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { snapshotDir } from "./harness.js"

/** Sleep on the real clock (`it.effect` runs under a TestClock, whose `Effect.sleep` never wakes by itself). */
export const realSleep = (ms: number): Effect.Effect<void> =>
  Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/**
 * An appender: writes `pieces` to the end of `path` one at a time through its
 * own `O_APPEND` descriptor (as an agent does), never closing the line early.
 */
export class Appender {
  private fd: number
  private next = 0
  constructor(readonly path: string, readonly pieces: ReadonlyArray<Buffer>) {
    this.fd = fs.openSync(path, "a")
  }
  /** Append the next piece, if any; true when one was written. */
  step(): boolean {
    if (this.next >= this.pieces.length) return false
    fs.writeSync(this.fd, this.pieces[this.next++])
    return true
  }
  /** Append everything left and close the descriptor. */
  finish(): void {
    while (this.step()) {
      // write every remaining piece
    }
    this.close()
  }
  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd)
    this.fd = -1
  }
}

/** Run `self` while a fiber appends one piece every `everyMs`, then append the rest (joined before answering). */
export const whileAppending = <A, E, R>(appender: Appender, self: Effect.Effect<A, E, R>, everyMs = 1) =>
  Effect.gen(function*() {
    const writer = yield* Effect.fork(Effect.gen(function*() {
      while (appender.step()) yield* realSleep(everyMs)
    }))
    return yield* Effect.ensuring(self, Effect.zipRight(Fiber.interrupt(writer), Effect.sync(() => appender.finish())))
  })

/** Run `self` while, after `afterMs`, `replacement` is renamed over `path` (an atomic replace, as editors and log rotators do). */
export const whileReplacing = <A, E, R>(path: string, replacement: string, self: Effect.Effect<A, E, R>, afterMs = 2) =>
  Effect.gen(function*() {
    const writer = yield* Effect.fork(Effect.zipRight(realSleep(afterMs), Effect.sync(() => fs.renameSync(replacement, path))))
    return yield* Effect.ensuring(self, Fiber.join(writer))
  })

/** The snapshot `dir` must have after the case: as `before`, with the entries of `files` (absolute path → expected bytes). */
export const expectedWith = (dir: string, before: Record<string, string>, files: ReadonlyArray<readonly [string, Buffer]>) => {
  const out = { ...before }
  for (const [p, bytes] of files) {
    out[nodePath.relative(dir, p)] = `file:${bytes.length}:${createHash("sha256").update(bytes).digest("hex")}`
  }
  return out
}

export { snapshotDir }
