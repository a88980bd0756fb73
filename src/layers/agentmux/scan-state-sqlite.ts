/**
 * The live {@link ScanState}: an embedded SQLite database owned by
 * session-ingest (`--state FILE`; default `$XDG_DATA_HOME/session-ingest/state.db`,
 * else `~/.local/share/session-ingest/state.db`), through
 * `@effect/sql-sqlite-node`. It is opened only when a scan needs it, so
 * commands of other providers never create it.
 *
 * Table: `agentmux_zone_scan(store TEXT, zone TEXT, scan TEXT /* ZoneScan JSON *\/,
 * updated_ms INTEGER, PRIMARY KEY (store, zone))`.
 *
 * @module
 */
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { decodeZoneScan, type ZoneScan } from "../../domain/agentmux/record.js"
import { StoreUnavailable } from "../../domain/errors.js"
import { checkOwnedSqlite, guardStore, STATE_APPLICATION_ID } from "../owned-sqlite.js"
import { type StoreRole, storeFailureFields } from "../store-failure.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ScanState, type ScanStateShape } from "./ScanState.js"
import { dataDir } from "../data-dir.js"

/** The default state file: `<session-ingest's data folder>/state.db` (see `src/layers/data-dir.ts`). */
export const defaultStateFile = (env: NodeJS.ProcessEnv = process.env): string => nodePath.join(dataDir(env), "state.db")

/** The scan state as a store whose failures are told to the user (see `../store-failure.ts`). */
const stateRole = (path: string): StoreRole => ({
  file: path,
  label: "session-ingest's scan state",
  option: "--state FILE",
  readOnlyRemedy: "Pass --state FILE in a folder you can write to (the scan state is written on every AgentMux scan)."
})

const unavailable = (path: string, cause: unknown) => new StoreUnavailable(storeFailureFields(stateRole(path), cause))

const SCHEMA = `CREATE TABLE IF NOT EXISTS agentmux_zone_scan (
  store TEXT NOT NULL,
  zone TEXT NOT NULL,
  scan TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (store, zone)
)`

const open = (path: string): Effect.Effect<SqliteClient.SqliteClient, StoreUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const ownership = yield* checkOwnedSqlite(path, STATE_APPLICATION_ID, "scan state", "--state FILE")
    yield* Effect.tryPromise({
      try: () => fsp.mkdir(nodePath.dirname(path), { recursive: true }),
      catch: (e) => unavailable(path, e)
    })
    const sql = yield* SqliteClient.make({ filename: path, disableWAL: true }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.catchAllCause((c) => Effect.fail(unavailable(path, Cause.squash(c))))
    )
    yield* sql.unsafe("PRAGMA busy_timeout = 5000").pipe(guardStore(stateRole(path)))
    if (ownership === "new") {
      yield* sql.unsafe(`PRAGMA application_id = ${STATE_APPLICATION_ID}`).pipe(guardStore(stateRole(path)))
    }
    // WAL after the id is set, so the id lands in the main file's header.
    yield* sql.unsafe("PRAGMA journal_mode = WAL").pipe(guardStore(stateRole(path)))
    // A commit survives the process crashing, not the machine: a scan lost with
    // the machine is only read again (no fsync per commit).
    yield* sql.unsafe("PRAGMA synchronous = NORMAL").pipe(guardStore(stateRole(path)))
    yield* sql.unsafe(SCHEMA).pipe(guardStore(stateRole(path)))
    return sql
  })

/** Load and commit over the connection `withSql` lends. */
const operations = (
  path: string,
  withSql: <A>(f: (sql: SqliteClient.SqliteClient) => Effect.Effect<A, StoreUnavailable>) => Effect.Effect<A, StoreUnavailable>
): Pick<ScanStateShape, "load" | "commit"> => ({
  load: (store, prefix) =>
    withSql((sql) =>
      Effect.gen(function*() {
        const rows = yield* sql.unsafe<{ zone: string; scan: string }>(
          "SELECT zone, scan FROM agentmux_zone_scan WHERE store = ? AND substr(zone, 1, ?) = ?",
          [store, prefix.length, prefix]
        ).pipe(guardStore(stateRole(path)))
        const out = new Map<string, ZoneScan>()
        for (const r of rows) {
          const d = decodeZoneScan(r.scan)
          if (Either.isRight(d)) out.set(r.zone, d.right)
        }
        return out as ReadonlyMap<string, ZoneScan>
      })
    ),
  commit: (store, prefix, scans) =>
    withSql((sql) => {
      const now = Date.now()
      return sql.withTransaction(
        Effect.gen(function*() {
          yield* sql.unsafe("DELETE FROM agentmux_zone_scan WHERE store = ? AND substr(zone, 1, ?) = ?", [
            store,
            prefix.length,
            prefix
          ])
          for (const [zone, scan] of scans) {
            yield* sql.unsafe("INSERT INTO agentmux_zone_scan (store, zone, scan, updated_ms) VALUES (?, ?, ?, ?)", [
              store,
              zone,
              JSON.stringify(scan),
              now
            ])
          }
        })
      ).pipe(guardStore(stateRole(path)))
    })
})

/**
 * Layer: the live scan state at the access policy's `stateFile` (or the
 * default). `load` and `commit` each open the database; inside `session`,
 * it is opened once, on first use, for both.
 */
export const layer: Layer.Layer<ScanState, never, AccessPolicy> = Layer.effect(
  ScanState,
  Effect.map(AccessPolicy, (policy) => {
    const path = nodePath.resolve(policy.stateFile ?? defaultStateFile())
    const shape: ScanStateShape = {
      location: path,
      ...operations(path, (f) => Effect.scoped(Effect.flatMap(open(path), f))),
      session: (f) =>
        Effect.scoped(
          Effect.gen(function*() {
            const scope = yield* Effect.scope
            const sql = yield* Effect.cached(Scope.extend(open(path), scope))
            return yield* f({ ...shape, ...operations(path, (g) => Effect.flatMap(sql, g)) })
          })
        )
    }
    return shape
  })
)
