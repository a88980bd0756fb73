/**
 * A worker thread's entry tried before `@effect/platform`'s worker pool is
 * built on it. The pool starts a worker that dies before it is ready (an
 * entry that cannot load: a truncated bundle, a top level that throws) again
 * every second, for ever, while building the pool waits uninterruptibly for
 * it: an import (`import --jobs N`, `./index/parse-pool.ts`) or an AgentMux
 * scan (`./agentmux/scan-pool.ts`) would hang and ignore SIGTERM. So one
 * worker (or the pool's first few, side by side) is started first and waited
 * for (its runner's ready message, with a time limit): ready, it becomes one
 * of the pool's workers (no second start); else the caller reads in its own
 * thread, and the entry is not tried again in this process.
 *
 * @module
 */
import * as WorkerThreads from "node:worker_threads"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** How long a worker may take to load its entry and say it is ready (ms) before it is given up. */
export const WORKER_READY_TIMEOUT_MS = 20_000

/**
 * What trying an entry answered: `ready`, with `spawn` to hand the pool
 * (`NodeWorker.layer(spawn)`: its first call answers the worker already
 * started, the others start new ones); `failed`, with what went wrong
 * (`problem`, one line: the worker's error, its exit code, or the time
 * limit).
 */
export type WorkerProbe =
  | { readonly _tag: "ready"; readonly spawn: (id: number) => WorkerThreads.Worker }
  | { readonly _tag: "failed"; readonly problem: string }

/** Entries that failed in this process (by path), with their problem: not tried again. */
const failedEntries = new Map<string, string>()

const firstLine = (u: unknown): string =>
  (u instanceof Error ? `${u.name}: ${u.message}` : String(u)).split("\n")[0] ?? ""

type Started =
  | { readonly ok: true; readonly worker: WorkerThreads.Worker; readonly ready: unknown }
  | { readonly ok: false; readonly problem: string }

/** Start one worker of `entry` and wait for its first message (at most `timeoutMs`); terminated when it fails or is interrupted. */
const startOne = (entry: string | URL, options: WorkerThreads.WorkerOptions, timeoutMs: number) =>
  Effect.async<Started>((resume) => {
    let worker: WorkerThreads.Worker
    try {
      worker = new WorkerThreads.Worker(entry, options)
    } catch (e) {
      resume(Effect.succeed({ ok: false, problem: `the worker could not be started (${firstLine(e)})` }))
      return
    }
    const done = () => {
      clearTimeout(timer)
      worker.off("message", onMessage)
      worker.off("error", onError)
      worker.off("exit", onExit)
    }
    const fail = (problem: string) => {
      done()
      void worker.terminate()
      resume(Effect.succeed({ ok: false, problem }))
    }
    const onMessage = (ready: unknown) => {
      done()
      resume(Effect.succeed({ ok: true, worker, ready }))
    }
    const onError = (e: unknown) => fail(`the worker failed while loading (${firstLine(e)})`)
    const onExit = (code: number) => fail(`the worker exited with code ${code} while loading`)
    const timer = setTimeout(() => fail(`the worker did not start within ${timeoutMs / 1000} s`), timeoutMs)
    worker.on("message", onMessage)
    worker.on("error", onError)
    worker.on("exit", onExit)
    return Effect.sync(() => {
      done()
      void worker.terminate()
    })
  })

/**
 * Start `count` workers of `entry` (with `options`) at once, so that they
 * load side by side (issue 13: a pool of two scan workers started one after
 * the other cost an AgentMux first scan the first one's load, ~0.1-0.15 s, in
 * wall time), and wait for each one's first message (the `@effect/platform`
 * runner's ready message), at most `timeoutMs`. When any errs, exits or
 * does not answer in time, all are terminated and `failed` is answered (the
 * entry is remembered: the next probe of it fails at once, with the same
 * problem). Ready workers are handed to the pool by `spawn`, in order (each
 * one's ready message given again to the pool's listener), then new ones are
 * started; one never handed over is terminated when `Scope` closes.
 */
export const probeWorker = (
  entry: string | URL,
  options: WorkerThreads.WorkerOptions,
  timeoutMs: number = WORKER_READY_TIMEOUT_MS,
  count = 1
): Effect.Effect<WorkerProbe, never, Scope.Scope> =>
  Effect.gen(function*() {
    const key = String(entry)
    const known = failedEntries.get(key)
    if (known !== undefined) return { _tag: "failed" as const, problem: known }
    const all = yield* Effect.all(Array.from({ length: Math.max(1, count) }, () => startOne(entry, options, timeoutMs)), {
      concurrency: "unbounded"
    })
    const failure = all.find((s) => !s.ok)
    if (failure !== undefined && !failure.ok) {
      for (const s of all) if (s.ok) void s.worker.terminate()
      failedEntries.set(key, failure.problem)
      return { _tag: "failed" as const, problem: failure.problem }
    }
    const waiting = all.flatMap((s) => (s.ok ? [s] : []))
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        await Promise.all(waiting.splice(0).map((s) => s.worker.terminate()))
      })
    )
    const spawn = (): WorkerThreads.Worker => {
      const started = waiting.shift()
      if (started === undefined) return new WorkerThreads.Worker(entry, options)
      const worker = started.worker
      // The pool listens for the ready message the probe took: given again once its listener is on.
      const onListener = (event: string | symbol) => {
        if (event !== "message") return
        worker.off("newListener", onListener)
        process.nextTick(() => worker.emit("message", started.ready))
      }
      worker.on("newListener", onListener)
      return worker
    }
    return { _tag: "ready" as const, spawn }
  })
