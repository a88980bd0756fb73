/**
 * The AgentMux reads' SQLite connections (the store, or its private copy, and
 * the scan state) on better-sqlite3 itself, the driver `@effect/sql-sqlite-node`
 * wraps, each opened for a scope and closed with it.
 *
 * Why not `@effect/sql` here (issue 13): a rescan after an append runs about
 * twenty short statements over two connections in a process that has just
 * started, and through `@effect/sql` (a Reactivity service, a statement cache
 * with a clock, a semaphore, a fiber and a span per statement) opening the
 * two connections and running those statements cost about 10-15 ms of CPU
 * more than the driver alone, a quarter of the rescan's 60 ms budget. The
 * statements are few, fixed and local to these two files, so nothing is lost
 * in composition; what the driver throws is turned into the callers' typed
 * errors as before (`StoreUnavailable`, through `../store-failure.ts`).
 *
 * @module
 */
import Sqlite from "better-sqlite3"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** The part of a better-sqlite3 prepared statement used here (the package ships no typings). */
export interface DriverStatement {
  run(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): Array<unknown>
}

/** The part of a better-sqlite3 database handle used here. */
export interface Driver {
  prepare(sql: string): DriverStatement
  exec(sql: string): unknown
  pragma(sql: string, options?: { readonly simple?: boolean }): unknown
  close(): void
}

/**
 * better-sqlite3 loads its native addon on the first `new Database` (a
 * search of its build folders, then `dlopen`: about 2-3 ms), which put it
 * inside an AgentMux rescan (issue 13: the rescan's < 60 ms). It is loaded
 * with this module instead (module loading is start-up: the AgentMux
 * adapter's modules are loaded when the provider is first used, never for
 * `--help`), by opening and closing an in-memory database. A failure here is
 * left to the first real open, which reports it as the caller's typed error.
 */
const preload = () => {
  try {
    new Sqlite(":memory:").close()
  } catch {
    // reported by the first open (openDriver)
  }
}
preload()

const closeQuietly = (db: Driver) => {
  try {
    db.close()
  } catch {
    // closing a connection whose file went away: nothing left to release
  }
}

/**
 * Open `filename` for the scope (closed when it ends). `timeout`: how long a
 * statement waits for another connection's lock, in ms (SQLite's busy
 * timeout). `closeAfter`: when the scope ends, the connection is closed on
 * the next turn of the event loop (`setImmediate`) rather than before the
 * scope's result is handed on; for a WAL database written with
 * `synchronous = NORMAL`, whose commits are already as durable as they will
 * be, and whose close only checkpoints (two fsyncs: 3-25 ms measured on this
 * machine kind, the largest wait of an AgentMux rescan). A process that
 * exits first (`process.exit`) leaves the `-wal` and `-shm` beside the file,
 * which the next open reads back, as after a crash (WAL mode survives one).
 * Fails with what `onError` makes of what the driver threw.
 */
export const openDriver = <E>(
  filename: string,
  options: {
    readonly readonly: boolean
    readonly timeout: number
    readonly fileMustExist?: boolean
    readonly closeAfter?: boolean
    /** Run on the connection just before it is closed (its throw ignored). */
    readonly beforeClose?: (db: Driver) => void
  },
  onError: (cause: unknown) => E
): Effect.Effect<Driver, E, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const settings = { readonly: options.readonly, timeout: options.timeout, fileMustExist: options.fileMustExist ?? false }
        return new Sqlite(filename, settings) as unknown as Driver
      },
      catch: onError
    }),
    (db) =>
      Effect.sync(() => {
        const close = () => {
          try {
            options.beforeClose?.(db)
          } catch {
            // closed all the same
          }
          closeQuietly(db)
        }
        if (options.closeAfter === true) setImmediate(close)
        else close()
      })
  )

/** Run `f` on the driver, its throw turned into `onError`'s failure. */
export const attempt = <A, E>(f: () => A, onError: (cause: unknown) => E): Effect.Effect<A, E> =>
  Effect.try({ try: f, catch: onError })
