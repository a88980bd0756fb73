/**
 * One SQLite connection (better-sqlite3, the driver `@effect/sql-sqlite-node`
 * uses) seen two ways: as an `@effect/sql` client, which the index's
 * migrations and queries go through, and as the driver's own handle, which
 * the import's hot insert path uses with prepared statements
 * (`./sqlite-writer.ts`).
 *
 * Why the hot path leaves `@effect/sql`: an import of 10,000 small sources
 * runs a few hundred thousand statements, and each one through `@effect/sql`
 * (statement compilation, the prepared-statement cache, a fiber per call)
 * costs several times what better-sqlite3 itself spends on it (issue 13: about
 * 7-8 s of a 40 s import). Migrations and queries are few and stay on
 * `@effect/sql`, where they are typed and composable. Both share one
 * connection, so they see the same transaction; the client's permit
 * ({@link OwnedConnection.exclusive}) keeps them from interleaving.
 *
 * The client is made as `SqliteClient.make` makes it (same compiler, same
 * statement cache and transactions), but over a handle this module keeps.
 *
 * @module
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import Sqlite from "better-sqlite3"
import * as Cache from "effect/Cache"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { watchFileSizeLimit } from "../store-failure.js"

/** The part of a better-sqlite3 prepared statement used here (the package ships no typings). */
export interface DriverStatement {
  readonly reader: boolean
  run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  get(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): Array<unknown>
  iterate(...params: ReadonlyArray<unknown>): IterableIterator<unknown>
  raw(on: boolean): this
  safeIntegers(on: boolean): this
}

/** The part of a better-sqlite3 database handle used here. */
export interface Driver {
  prepare(sql: string): DriverStatement
  exec(sql: string): this
  readonly inTransaction: boolean
  close(): void
}

/** A connection as a client and as the driver's handle. */
export interface OwnedConnection {
  readonly client: Client.SqlClient
  readonly db: Driver
  /** Run `effect` holding the connection (no `@effect/sql` statement or transaction of another fiber runs meanwhile). */
  readonly exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Set what runs before each statement of `client` (in its fiber, its throw the statement's `SqlError`): the index's
   * writer writes there what it has kept back of the open transaction (`IndexWriter.settle`), so a query sees every
   * write made before it.
   */
  readonly beforeStatements: (before: () => void) => void
}

/**
 * Open `filename` (read-only or not) for the scope. What the driver throws
 * on open is a defect (the caller turns it into its typed error).
 */
export const openConnection = (filename: string, readonly: boolean): Effect.Effect<OwnedConnection, never, Scope.Scope> =>
  Effect.gen(function*() {
    // A write the file-size limit refuses is then told as such (see `../store-failure.ts`).
    if (!readonly) watchFileSizeLimit()
    const db = new Sqlite(filename, { readonly }) as unknown as Driver
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    // A read-only connection keeps SQLite's temporary data (the sorter of an
    // ORDER BY no index serves, DISTINCT / GROUP BY b-trees, materialized
    // subqueries) in memory rather than in files in SQLITE_TMPDIR / TMPDIR /
    // /var/tmp: a query command then writes nothing anywhere, and a full or
    // size-limited temporary folder cannot fail it. The memory this costs is
    // bounded by the rows one statement sorts or materializes, mostly the
    // rows it answers (every statement here is read whole, `all()`, into
    // JavaScript), so at most about as much again as the answer itself; the
    // one statement that would spill (a session's events with a 20 MB
    // message, say) holds those rows in memory either way. The
    // writing connection (an import) keeps the default: its sorts and
    // indexes can be larger than memory.
    if (readonly) db.exec("PRAGMA temp_store = MEMORY")
    let before = () => {}
    const prepareCache = yield* Cache.make({
      capacity: 200,
      timeToLive: Duration.minutes(10),
      lookup: (sql: string) =>
        Effect.try({ try: () => db.prepare(sql), catch: (cause) => new SqlError({ cause, message: "Failed to prepare statement " }) })
    })
    const runStatement = (statement: DriverStatement, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.withFiberRuntime<unknown, SqlError>((fiber) => {
        if (Context.get(fiber.currentContext, Client.SafeIntegers)) statement.safeIntegers(true)
        try {
          before()
          if (statement.reader) return Effect.succeed(statement.all(...params))
          const result = statement.run(...params)
          return Effect.succeed(raw ? result : [])
        } catch (cause) {
          return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
        }
      })
    const run = (sql: string, params: ReadonlyArray<unknown>, raw = false) =>
      Effect.flatMap(prepareCache.get(sql), (s) => runStatement(s, params, raw))
    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        (transformRows ? Effect.map(run(sql, params), (r) => transformRows(r as ReadonlyArray<any>)) : run(sql, params)) as Effect.Effect<
          ReadonlyArray<any>,
          SqlError
        >,
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: (sql, params) =>
        Effect.acquireUseRelease(
          prepareCache.get(sql),
          (statement) =>
            Effect.try({
              try: () => {
                before()
                if (statement.reader) {
                  statement.raw(true)
                  return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
                }
                statement.run(...params)
                return []
              },
              catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
            }),
          (statement) => Effect.sync(() => statement.reader && statement.raw(false))
        ),
      executeUnprepared: (sql, params, transformRows) => {
        const effect = Effect.suspend(() => runStatement(db.prepare(sql), params ?? [], false)) as Effect.Effect<ReadonlyArray<any>, SqlError>
        return transformRows ? Effect.map(effect, transformRows) : effect
      },
      executeStream: () => Effect.dieMessage("executeStream not implemented") as never
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        connection
      )
    )
    const client = yield* Client.make({
      acquirer,
      compiler: Statement.makeCompilerSqlite(),
      transactionAcquirer,
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provide(Reactivity.layer))
    return {
      client,
      db,
      exclusive: semaphore.withPermits(1),
      beforeStatements: (f) => {
        before = f
      }
    }
  })
