/**
 * The CLI's fiber scheduler: Effect's default one, time-sliced so that Node's
 * event loop gets a turn at least every {@link SLICE_MS} milliseconds of work.
 *
 * Effect's default scheduler (`MixedScheduler(2048)`) resumes a yielding
 * fiber in a microtask 2,048 times before it takes one macrotask
 * (`setTimeout`); a fiber that yields every 2,048 operations thus runs for
 * millions of operations, seconds of a large export, without the event loop
 * running once, so a SIGINT / SIGTERM handler (runMain's interruption) waits
 * for the end of the work (docs/cli-output.md: exit 130 "at any moment"). Here a batch of
 * fiber tasks runs in a microtask while less than {@link SLICE_MS} ms passed
 * since the event loop last had a turn, else in a `setImmediate` (after
 * pending I/O and signal callbacks). A fiber also yields once
 * {@link SLICE_MS} ms passed, however few operations it ran (`shouldYield`).
 * The work itself is unchanged; one `setImmediate` per slice costs
 * microseconds.
 *
 * What this cannot cut: one synchronous step that takes long by itself (a
 * `JSON.stringify` of a whole document, a loop over all events in one
 * function); those are written to work a part at a time with a yield between
 * parts (`mapYielding` in `../layers/share.ts`, `./json-chunks.ts`,
 * `transcriptMarkdownParts` in `../domain/render.ts`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Scheduler from "effect/Scheduler"

/** The most the CLI's fibers run (ms) before Node's event loop (signals, I/O) gets a turn. */
export const SLICE_MS = 25

let lastTurn = performance.now()

/** Operations of a fiber between two looks at the clock (a look costs tens of nanoseconds). */
const CLOCK_EVERY_OPS = 16

/**
 * Whether a running fiber yields now: Effect's own rule (after 2,048
 * operations), or, looked at every {@link CLOCK_EVERY_OPS} operations, when
 * {@link SLICE_MS} ms passed since the event loop last had a turn. Counting
 * operations alone is not enough: a stream of few, heavy steps (an export's
 * page of rows read, decoded, encoded and written in one synchronous step)
 * made a few hundred operations in seconds, never yielded, and a SIGINT
 * waited for the whole export (tester16 F1: `export --format ndjson --out`).
 */
const shouldYield = (fiber: Parameters<typeof Scheduler.defaultShouldYield>[0]): number | false => {
  const byOps = Scheduler.defaultShouldYield(fiber)
  if (byOps !== false) return byOps
  return fiber.currentOpCount % CLOCK_EVERY_OPS === 0 && performance.now() - lastTurn >= SLICE_MS
    ? fiber.getFiberRef(FiberRef.currentSchedulingPriority)
    : false
}

/** The time-sliced scheduler (see the module doc). */
export const cliScheduler: Scheduler.Scheduler = Scheduler.makeBatched((runBatch) => {
  if (performance.now() - lastTurn < SLICE_MS) {
    queueMicrotask(runBatch)
  } else {
    setImmediate(() => {
      lastTurn = performance.now()
      runBatch()
    })
  }
}, shouldYield)

/** `effect` and the fibers it forks run on {@link cliScheduler}. */
export const timeSliced = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.withScheduler(effect, cliScheduler)
