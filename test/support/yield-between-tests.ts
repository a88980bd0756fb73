/**
 * Setup file (vitest.config.ts `setupFiles`): after every test, let the worker's event loop take one turn through
 * I/O before the next test starts. vitest's runner goes from one test to the next on promise callbacks only, so a
 * run of synchronous tests (`spawnSync` of the CLI, `execFileSync`, better-sqlite3) is one long block of the event
 * loop; when it passes 60 s, the worker's RPC to the main process ("onTaskUpdate") times out and the run fails with
 * an unhandled error although every test passed. Two `setImmediate` turns hold one poll phase between them, where
 * the main process's answers are read. (A single test that blocks for a minute is still too long: await its child
 * processes, see `cliAsync` in ./run.ts.)
 */
import { afterEach } from "@effect/vitest"

/** The real `setImmediate`, taken before any test could install fake timers. */
const realSetImmediate = globalThis.setImmediate

afterEach(() => new Promise<void>((resolve) => realSetImmediate(() => realSetImmediate(() => resolve()))))
