/**
 * session-ingest's own SQLite files (the index, the scan state) carry a
 * SQLite `application_id` of their own. Before opening one for writing, its
 * header is read with plain file reads (never through SQLite, which could
 * create `-wal`/`-shm` files beside a foreign database): a missing or empty
 * file is new, a file with our id is ours, and anything else (a provider's
 * store, another program's database, a non-database) is refused with
 * `STORE_UNAVAILABLE`, so a mistyped `--index` or `--state` can never write
 * into a source.
 *
 * @module
 */
import * as fs from "node:fs"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { StoreUnavailable } from "../domain/errors.js"
import { isStorageError, type StoreRole, storeFailureFields } from "./store-failure.js"

/** `application_id` of a session-ingest index ("SIi1"). */
export const INDEX_APPLICATION_ID = 0x53496931
/** `application_id` of a session-ingest scan-state database ("SIs1"). */
export const STATE_APPLICATION_ID = 0x53497331

/** session-ingest's own kinds of SQLite file, by `application_id`. */
const OWN_FILES: ReadonlyArray<{ readonly id: number; readonly what: string }> = [
  { id: INDEX_APPLICATION_ID, what: "index" },
  { id: STATE_APPLICATION_ID, what: "scan state" }
]

/** The first 16 bytes of every SQLite database file. */
export const SQLITE_MAGIC = Buffer.from("SQLite format 3\u0000", "latin1")

/** What a file is to the caller: new (absent or empty) or already one of its own. */
export type Ownership = "new" | "owned"

/**
 * Check `file` before it is opened as `what` (e.g. "index"), for writing or,
 * with `read`, for reading only. Fails with `StoreUnavailable` when it is not
 * a SQLite database, or one that `applicationId` does not mark as ours; the
 * remedy names `option` (`--index FILE`, `--from FILE`): a new file for a
 * write, the file session-ingest made for a read. The folder is not created here.
 */
export const checkOwnedSqlite = (
  file: string,
  applicationId: number,
  what: string,
  option: string,
  read = false
): Effect.Effect<Ownership, StoreUnavailable> =>
  Effect.try({
    try: (): Ownership | string => {
      const st = fs.statSync(file, { throwIfNoEntry: false })
      if (st === undefined) return "new"
      if (!st.isFile()) return `${file} is not a regular file`
      if (st.size === 0) return "new"
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      try {
        const header = Buffer.alloc(100)
        const n = fs.readSync(fd, header, 0, 100, 0)
        if (n < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return `${file} is not a SQLite database`
        const id = header.readUInt32BE(68)
        if (id !== applicationId) {
          const other = OWN_FILES.find((f) => f.id === id)
          return other !== undefined
            ? `${file} is session-ingest's ${other.what}, not its ${what}`
            : `${file} is a SQLite database that session-ingest did not create (a provider's store or another program's file)`
        }
        return "owned"
      } finally {
        fs.closeSync(fd)
      }
    },
    catch: (e) => e
  }).pipe(
    Effect.catchAll((e) => Effect.succeed(`${file} cannot be read (${e instanceof Error ? e.message : String(e)})`)),
    Effect.flatMap((r) =>
      r === "new" || r === "owned" ? Effect.succeed(r) : Effect.fail(
        new StoreUnavailable({
          message: `Refusing to use ${file} as session-ingest's ${what}: it ${r.slice(file.length + 1)}.`,
          remediation: read
            ? `Pass ${option} with session-ingest's ${what} (the file \`session-ingest import\` wrote); session-ingest never reads other files as its ${what}.`
            : `Pass ${option} with a new file (or one session-ingest created); session-ingest never writes into other files.`
        })
      )
    )
  )

/**
 * Map the SQL failures of `effect` (`@effect/sql`'s `SqlError`), and every
 * defect that is a SQLite or file-system error (`@effect/sql` turns a failed
 * `COMMIT` or `ROLLBACK`, as on a full disk, into a defect), to the
 * `StoreUnavailable` of `role` (see `./store-failure.ts`): one line naming
 * the problem, one with the remedy. Other failures pass through; other
 * defects (real bugs, injected crashes) stay defects.
 */
export const guardStore = (role: StoreRole) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, R> =>
  effect.pipe(
    Effect.catchIf(
      (e): e is Extract<E, SqlError> => e instanceof SqlError,
      (e) => Effect.fail(new StoreUnavailable(storeFailureFields(role, e)))
    ),
    Effect.catchSomeDefect((d) =>
      isStorageError(d) ? Option.some(Effect.fail(new StoreUnavailable(storeFailureFields(role, d)))) : Option.none()
    )
  ) as Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, R>
