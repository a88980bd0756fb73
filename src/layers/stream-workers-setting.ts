/**
 * The setting of `stream`'s workers (`./stream-pool.ts`), in a module of its
 * own: an adapter reads it at every `stream` without loading the worker pool
 * (`@effect/platform`'s `Worker`), which a command loads only when it starts
 * workers (issue 13, item 5: a command pays only for what it uses).
 *
 * @module
 */

/**
 * How many stream workers `stream` starts for a large source:
 * `SESSION_INGEST_STREAM_WORKERS` (at most 8); unset or 0: none, all in the
 * main thread. Off by default: on the 2-core machine of session 28, loaded
 * by other processes (load 8-15), two workers cost 1.7-1.9x the processor
 * time of one thread and twice its wall time (docs/benchmarks.md, session
 * 28); whether they pay on a quiet machine is not measured yet.
 */
export const streamWorkers = (env: Readonly<Record<string, string | undefined>> = process.env): number => {
  const set = env.SESSION_INGEST_STREAM_WORKERS
  return set !== undefined && /^[0-9]+$/.test(set) ? Math.min(8, Number(set)) : 0
}
