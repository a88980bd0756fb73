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
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import Sqlite from "better-sqlite3"
import { StoreUnavailable } from "../domain/errors.js"
import { failStore, isStorageError, type StoreRole, storeFailureFields, watchFileSizeLimit } from "./store-failure.js"

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

/** What a file is to the caller: new (absent, or a creation of its own killed part-way) or already one of its own. */
export type Ownership = "new" | "owned"

/** The first 8 bytes of a SQLite rollback journal (SQLite file format, section 4.1). */
const JOURNAL_MAGIC = Buffer.from("d9d505f920a163d7", "hex")

/**
 * The rollback journal beside `file` (`<file>-journal`), read with plain
 * file reads: null when there is none in force (none, empty, or zeroed);
 * else whether the database was `empty` (0 pages) before the journaled
 * transaction, which SQLite's recovery then truncates it back to. A journal
 * is left "hot" by a process killed in a transaction (a `kill -9` while an
 * import created the index, tester19 F10): until SQLite rolls it back (at
 * the next read-write opening), the file's raw header may say what was
 * never committed, such as our stamp on a file that was empty. Source:
 * SQLite file format, section 4.1 (magic; initial size in pages at offset 16).
 */
export const journaledHeader = (file: string): { readonly empty: boolean } | null => {
  let fd: number
  try {
    fd = fs.openSync(`${file}-journal`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const head = Buffer.alloc(20)
    if (fs.readSync(fd, head, 0, 20, 0) < 20 || !head.subarray(0, 8).equals(JOURNAL_MAGIC)) return null
    return { empty: head.readUInt32BE(16) === 0 }
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

/** Why a SQLite file with `application_id` `id` is not the caller's `what` (e.g. "is session-ingest's index, not its scan state"). */
const notOurs = (id: number, what: string): string => {
  const other = OWN_FILES.find((f) => f.id === id)
  return other !== undefined
    ? `is session-ingest's ${other.what}, not its ${what}`
    : "is a SQLite database that session-ingest did not create (a provider's store or another program's file)"
}

/** Why a symbolic link is not opened as one of session-ingest's files: it is not followed; its target is named. */
const symlinkReason = (file: string): string => {
  let target: string | undefined
  try {
    target = fs.readlinkSync(file)
  } catch {
    target = undefined
  }
  return `is a symbolic link${target !== undefined ? ` (to ${target})` : ""}; session-ingest does not follow it: pass the file it points to`
}

/** Why an existing empty file is not ours (session-ingest makes its own files whole), for a read as for a write. */
const EMPTY_FILE = "is an empty file that session-ingest did not create (it makes its own files whole)"

/** The refusal of `file` as `what`, `why` it is not (e.g. "is not a regular file"). */
const refusal = (file: string, what: string, option: string, read: boolean, why: string) =>
  new StoreUnavailable({
    message: `Refusing to use ${file} as session-ingest's ${what}: it ${why}.`,
    remediation: read
      ? `Pass ${option} with session-ingest's ${what} (the file \`session-ingest import\` wrote); session-ingest never reads other files as its ${what}.`
      : `Pass ${option} with a new file (or one session-ingest created); session-ingest never writes into other files.`
  })

/**
 * Check `file` before it is opened as `what` (e.g. "index"), for writing or,
 * with `read`, for reading only. Fails with `StoreUnavailable` when it is not
 * a SQLite database (an existing empty file included: session-ingest makes
 * its own files whole), or one that `applicationId` does not mark as ours; the
 * remedy names `option` (`--index FILE`, `--from FILE`): a new file for a
 * write, the file session-ingest made for a read. The folder is not created here.
 * A file with our id whose journal says it was empty before the transaction
 * that stamped it ({@link journaledHeader}: a creation killed part-way) is new.
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
      // A symbolic link to nothing is no missing file: made through it, the index would land at the link's target
      // (tester30c F3); a link to a file is refused below (O_NOFOLLOW: ELOOP), as every command refuses it.
      if (st === undefined) return fs.lstatSync(file, { throwIfNoEntry: false }) === undefined ? "new" : "is a symbolic link to a missing file"
      // A link to a file: said as a link, naming its target (tester38 F5: the open's ELOOP read "too many symbolic
      // links encountered"); it is not followed, as discovery does not follow one (SYMLINK_SKIPPED).
      if (fs.lstatSync(file).isSymbolicLink()) return symlinkReason(file)
      if (!st.isFile()) return "is not a regular file"
      // session-ingest makes its files whole (`createOwnedSqlite`): an empty one is another program's (a session
      // log opened before its first line, tester19 F12), refused to read as to write (tester30a F1: a read
      // answering "no index yet, run import" sent the user into the import's refusal).
      if (st.size === 0) return EMPTY_FILE
      const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      try {
        const header = Buffer.alloc(100)
        const n = fs.readSync(fd, header, 0, 100, 0)
        if (n < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) return "is not a SQLite database"
        const id = header.readUInt32BE(68)
        if (id !== applicationId) return notOurs(id, what)
        // Our creation killed in its first transaction: the recovery empties the file, which the opening stamps
        // again (`ownershipWhenOpen` decides from what SQLite then reads).
        return journaledHeader(file)?.empty === true ? "new" : "owned"
      } finally {
        fs.closeSync(fd)
      }
    },
    catch: (e) =>
      (e as { code?: unknown } | null)?.code === "ELOOP" ? symlinkReason(file) : `cannot be read (${e instanceof Error ? e.message : String(e)})`
  }).pipe(
    Effect.merge,
    Effect.flatMap((r) => r === "new" || r === "owned" ? Effect.succeed(r) : Effect.fail(refusal(file, what, option, read, r)))
  )

/**
 * Make the missing `file` a new, empty SQLite database of ours: one page
 * (`pageSize` bytes, else SQLite's default) stamped `applicationId`, made
 * under a temporary name beside it and linked into place (atomic, and never
 * over a file that appeared meanwhile: then that one stands, to be checked
 * by the caller). So a file of ours is never seen empty or unstamped, and an
 * existing empty file is never taken for one (tester19 F12). Throws the
 * file system's or SQLite's error (a read-only folder, a full disk).
 * Where the file system cannot link, the page is copied into place
 * exclusively (`COPYFILE_EXCL`).
 */
export const createOwnedSqlite = (file: string, applicationId: number, pageSize?: number): void => {
  watchFileSizeLimit()
  const tmp = `${file}.new-${process.pid}-${randomBytes(4).toString("hex")}`
  try {
    const db = new Sqlite(tmp)
    try {
      if (pageSize !== undefined) db.pragma(`page_size = ${pageSize}`)
      db.pragma(`application_id = ${applicationId}`)
    } finally {
      db.close()
    }
    try {
      fs.linkSync(tmp, file)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      if (code === "EEXIST") return
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e
      try {
        fs.copyFileSync(tmp, file, fs.constants.COPYFILE_EXCL)
      } catch (e2) {
        if ((e2 as { code?: unknown }).code !== "EEXIST") throw e2
      }
    }
  } finally {
    fs.rmSync(tmp, { force: true })
    fs.rmSync(`${tmp}-journal`, { force: true })
  }
}

/**
 * What a file open for writing as `what` is, from SQLite's own answers once
 * it is open (a hot journal rolled back by then): `application_id` `id` and
 * `objects`, the count of its schema's objects. Our id: owned; no id and no
 * schema: new (to be stamped, in the same opening, before anything else is
 * written); else refused as {@link checkOwnedSqlite} refuses. The check
 * before opening reads the raw file; this one is what makes a creation
 * killed part-way (tester19 F10: a stamp rolled back with its journal) an
 * index again instead of a file refused forever.
 */
export const ownershipWhenOpen = (
  file: string,
  applicationId: number,
  what: string,
  option: string,
  found: { readonly id: number; readonly objects: number }
): Effect.Effect<Ownership, StoreUnavailable> =>
  found.id === applicationId
    ? Effect.succeed("owned")
    : found.id === 0 && found.objects === 0
    ? Effect.succeed("new")
    : Effect.fail(refusal(file, what, option, false, notOurs(found.id, what)))

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
      (e) => failStore(e, (c) => new StoreUnavailable(storeFailureFields(role, c)))
    ),
    Effect.catchSomeDefect((d) =>
      isStorageError(d) ? Option.some(failStore(d, (c) => new StoreUnavailable(storeFailureFields(role, c)))) : Option.none()
    )
  ) as Effect.Effect<A, Exclude<E, SqlError> | StoreUnavailable, R>
