/**
 * A worker thread's entry tried before `@effect/platform`'s worker pool is
 * built on it. The pool starts a worker that dies before it is ready (an
 * entry that cannot load: a truncated bundle, a top level that throws) again
 * every second, for ever, while building the pool waits uninterruptibly for
 * it: an import (`import --jobs N`, `./index/parse-pool.ts`) or an AgentMux
 * scan (`./agentmux/scan-pool.ts`) would hang and ignore SIGTERM. So one
 * worker is started first and waited for (its runner's ready message, with a
 * time limit): ready, it becomes the pool's first worker (no second start);
 * else the caller reads in its own thread, and the entry is not tried again
 * in this process.
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

/**
 * Start one worker of `entry` (with `options`) and wait for its first
 * message (the `@effect/platform` runner's ready message), at most
 * `timeoutMs`. A worker that errs, exits or does not answer in time is
 * terminated, and `failed` is answered (the entry is remembered: the next
 * probe of it fails at once, with the same problem). A ready worker is
 * handed to the pool by `spawn` (its ready message is given again to the
 * pool's listener); one never handed over is terminated when `Scope` closes.
 */
export const probeWorker = (
  entry: string | URL,
  options: WorkerThreads.WorkerOptions,
  timeoutMs: number = WORKER_READY_TIMEOUT_MS
): Effect.Effect<WorkerProbe, never, Scope.Scope> =>
  Effect.gen(function*() {
    const key = String(entry)
    const known = failedEntries.get(key)
    if (known !== undefined) return { _tag: "failed" as const, problem: known }
    const started = yield* Effect.async<
      { readonly ok: true; readonly worker: WorkerThreads.Worker; readonly ready: unknown } | { readonly ok: false; readonly problem: string }
    >((resume) => {
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
    if (!started.ok) {
      failedEntries.set(key, started.problem)
      return { _tag: "failed" as const, problem: started.problem }
    }
    let first: WorkerThreads.Worker | undefined = started.worker
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        if (first !== undefined) await first.terminate()
      })
    )
    const spawn = (): WorkerThreads.Worker => {
      if (first === undefined) return new WorkerThreads.Worker(entry, options)
      const worker = first
      first = undefined
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
