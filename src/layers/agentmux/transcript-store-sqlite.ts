/**
 * The live {@link TranscriptStore}: AgentMux's `filestore.db` through
 * better-sqlite3 (`./sqlite-driver.ts` says why not `@effect/sql`), never written and with no file created beside it.
 *
 * How (measured on this machine kind, better-sqlite3 12, issue 5 / DESIGN.md
 * "Dependencies"):
 * - A store in rollback-journal mode (header bytes 18–19 = 1) is opened
 *   directly, `readonly: true, disableWAL: true`: SQLite takes a shared lock
 *   and creates nothing.
 * - A rollback-journal store left with a hot journal (a `-journal` beside it
 *   from a write of AgentMux's that was interrupted: the process killed, the
 *   machine down) cannot be read in place: SQLite must roll the journal back
 *   before any read, which a read-only connection refuses
 *   (`SQLITE_READONLY_ROLLBACK`, tester24b F1). The store and its journal are
 *   then copied byte for byte into a private temporary folder (as a WAL store
 *   without a cache, below) and the copy opened read-write there, where SQLite
 *   rolls the journal back in the copy: the last committed state is read, and
 *   the store and its journal are left as they are (AgentMux rolls the journal
 *   back itself when it next opens the store).
 * - A store in WAL mode (header bytes = 2, or a `-wal` file beside it) is not
 *   opened in place: a read-only open of a WAL database creates `-shm` and
 *   `-wal` beside it when absent and leaves them, and writes read marks into
 *   an existing `-shm`; this build has URI filenames (`immutable=1`) compiled
 *   out, and SQLite's backup API would need that same in-place open as its
 *   source. So it is read through SQLite from a private copy: the main file
 *   is kept copied in session-ingest's own cache (`agentmux-cache/` beside the
 *   scan state, see `store-cache.ts`) while its identity, size and mtime stay
 *   the same, and each read copies only the `-wal` beside it, checks the copy
 *   consistent (the main file unchanged across it, i.e. no checkpoint ran; the
 *   `-wal` not restarted; WAL frames appended meanwhile are cut by SQLite's
 *   own recovery at the last committed, checksummed frame) and opens it
 *   read-only. Without a usable cache folder (unwritable, or inside the
 *   store's folder), the main file and its `-wal` are copied byte for byte
 *   into a private temporary folder, checked the same way, and the copy read.
 *   Read folders are removed when the scope closes.
 *
 * Why a WAL store's main file is copied (once per checkpoint) rather than
 * read in place through a read transaction, which would give the same
 * consistent snapshot without the copy (issue 13 asked; measured on this
 * build, better-sqlite3 12, 2026-12):
 * - A read-only connection on the store writes into the store's `-shm`:
 *   beginning a read transaction sets a read mark there whenever none
 *   matches the WAL's end (after every commit of AgentMux's), and it creates
 *   `-wal` and `-shm` beside a store that has none. Both break the rule that
 *   a source is never written and nothing is created beside it; without URI
 *   filenames there is no `readonly_shm`/`immutable` to ask otherwise.
 * - Reading the store's own main file through a hard link in a private
 *   folder (a private `-wal` copy and `-shm`, every statement checked
 *   against a checkpoint writing the main file meanwhile) was built and
 *   dropped: SQLite keys a process's shared-memory index by the file's inode,
 *   not its name, so a connection on the link attaches to the `-shm` of any
 *   other connection of the same process to the store (the tests' writer;
 *   a program embedding this library), writing read marks into it, and a
 *   connection opened on the store while the link is read attaches to the
 *   private index of a copied `-wal` and would write the store's `-wal` by
 *   it. Two reads of one store in one process share it the same way.
 * A read without the copy would need SQLite kept off the store's inode in
 * this process: the store's pages read by this layer itself (b-tree pages
 * from the main file, newer ones from a copy of the `-wal`), or a child
 * process with no other connection to it.
 *
 * @module
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { PART_SIZE } from "../../domain/agentmux/record.js"
import { type SourceAccessError, StoreUnavailable } from "../../domain/errors.js"
import { unreadableOf } from "../../domain/unreadable.js"
import { type AuthorizedFile, SourceAccess, type SourceAccessShape } from "../../services/SourceAccess.js"
import {
  type ChannelStores,
  type StoreConnection,
  type StoreFile,
  type StoreOpen,
  TranscriptStore,
  type TranscriptStoreShape
} from "./TranscriptStore.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { checkOwnedSqlite, SQLITE_MAGIC, STATE_APPLICATION_ID } from "../owned-sqlite.js"
import { fileSizeLimit } from "../store-failure.js"
import { defaultStateFile } from "./scan-state-sqlite.js"
import { num, partChunkReader, partFinder, partReader } from "./part-reader.js"
import { attempt, openDriver } from "./sqlite-driver.js"
import { cacheDirOf, readCopy, removeQuietly, same, statOrNull } from "./store-cache.js"
import { parallelSettings, workerEntry } from "./parallel-scan.js"
import { probeWorker } from "../worker-probe.js"

/**
 * How long a read of a store in rollback-journal mode waits for a writer's
 * lock, in ms, before it fails `STORE_UNAVAILABLE` ("retry"). AgentMux's
 * writes are short transactions; a lock held longer is a stuck or long
 * writer, and waiting more would only make every command hang (issue 7: no
 * input may hang us). better-sqlite3 waits synchronously, so this also bounds
 * how long the event loop is blocked. (Was 5000.)
 */
const BUSY_TIMEOUT_MS = 1000

const isBusy = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause &&
  /^SQLITE_(BUSY|LOCKED)/.test(String((cause as { code: unknown }).code))

/** SQLite's answer to a read-only connection on a store with a hot rollback journal (it would have to roll it back). */
const isHotJournal = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause &&
  String((cause as { code: unknown }).code) === "SQLITE_READONLY_ROLLBACK"

/**
 * The store `path` has a hot rollback journal (`path-journal`): a write of
 * AgentMux's was interrupted before it committed. Answered when the store
 * cannot be read from a private copy either (`details.reason`: `hot-journal`).
 */
const hotJournal = (path: string, cause?: unknown) =>
  new StoreUnavailable({
    message: `The AgentMux store ${path} has a hot rollback journal (${path}-journal): a write of AgentMux's was interrupted before it committed, ` +
      `and SQLite must roll it back before the store can be read${cause !== undefined ? ` (${cause instanceof Error ? cause.message : String(cause)})` : ""}. The store itself was not changed.`,
    remediation: "Start AgentMux (it rolls the journal back when it next opens the store), then run the same command again.",
    details: { store: path, journal: `${path}-journal`, reason: "hot-journal" }
  })

/** Whether `e` is {@link hotJournal}'s error. */
const isHotJournalError = (e: unknown): boolean =>
  e instanceof StoreUnavailable && (e.details as { reason?: unknown } | undefined)?.reason === "hot-journal"

/** How many times a WAL snapshot is retried when a checkpoint changed the store during the copy. */
const SNAPSHOT_ATTEMPTS = 5

/** The store connection's page cache, in KiB (`PRAGMA cache_size`; see `connect`). */
export const PAGE_CACHE_KIB = 256

const unavailable = (path: string, what: string, cause?: unknown, reason?: "locked") =>
  new StoreUnavailable({
    message: `The AgentMux store ${path} ${what}${
      cause !== undefined ? ` (${cause instanceof Error ? cause.message : String(cause)})` : ""
    }.`,
    remediation: "Pass --store with AgentMux's transcripts/filestore.db, or retry if AgentMux was busy writing it.",
    // The store's path, for a report's cause (tester34a F3: it was only in the message).
    details: reason === undefined ? { store: path } : { store: path, reason }
  })

/**
 * The SQLite header of the store: its first 100 bytes, read through
 * `SourceAccess` (no symlink followed, the authorized file's identity
 * checked), or why it is not a database.
 */
const readHeader = (access: SourceAccessShape, file: AuthorizedFile): Effect.Effect<Buffer, StoreUnavailable> =>
  access.readHead(file, 100).pipe(
    Effect.map(({ bytes }) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)),
    Effect.mapError((e) => unavailable(file.path, "cannot be read", e.message)),
    Effect.filterOrFail(
      (b) => b.length === 100 && b.subarray(0, 16).equals(SQLITE_MAGIC),
      () => unavailable(file.path, "is not a SQLite database (no SQLite header)")
    )
  )

/** Errors of writing a copy (its disk, not the store): no room, a quota, a file-size limit, a read-only file system. */
const WRITE_ERRNOS = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS"])

/** The errno of an error (a Node error's `code`, or an access error's `details.errno`), if any. */
const errnoOf = (e: unknown): string | undefined => {
  if (typeof e !== "object" || e === null) return undefined
  const code = (e as { code?: unknown }).code
  if (typeof code === "string" && code.startsWith("E")) return code
  return unreadableOf(e)?.errno
}

/**
 * The store's private copy could not be written (`to`, in `where`): the
 * disk that holds the copy is full or read-only, not the store unreadable
 * (tester19 F11: the message blamed the store and said to change --store);
 * or the file-size limit (`ulimit -f`, EFBIG) refused it, said with the
 * limit's bytes (`details.fileSizeLimit`) and the remedy to raise it: no
 * disk helps a copy as large as the store past the limit.
 */
const noRoomForCopy = (path: string, to: string, errno: string) => {
  const limit = errno === "EFBIG" ? fileSizeLimit() : undefined
  return limit !== undefined
    ? new StoreUnavailable({
      message: `The AgentMux store ${path} is read from a private copy, and the copy could not be written: ${to}: the file-size limit (\`ulimit -f\`, ${limit} bytes) was reached (${errno}). The store itself was not changed.`,
      remediation: `Raise the file-size limit (\`ulimit -f\`, now ${limit} bytes; the copy is as large as the store and its -wal, \`ulimit -f unlimited\` lifts it), then run the same command again.`,
      details: { store: path, copy: to, errno, fileSizeLimit: limit }
    })
    : new StoreUnavailable({
      message: `The AgentMux store ${path} is read from a private copy, and the copy could not be written: ${to} (${errno}). The store itself was not changed.`,
      remediation: `Free space on the disk that holds ${nodePath.dirname(to)} (a temporary folder: TMPDIR; the cached copy is kept in agentmux-cache/ beside the scan state, --state), ` +
        "or point TMPDIR and --state at a disk with room; then run the same command again.",
      details: { store: path, copy: to, errno }
    })
}

/** An error of making the store's copy at `to`: {@link noRoomForCopy} for a write error, else the store's `what`. */
const copyError = (path: string, to: string, what: string) => (e: unknown) => {
  const errno = errnoOf(e)
  return errno !== undefined && WRITE_ERRNOS.has(errno) ? noRoomForCopy(path, to, errno) : unavailable(path, what, e)
}

/** A snapshot attempt raced a checkpoint: tried again (internal, never escapes {@link snapshot}). */
class StoreChanged {
  readonly _tag = "StoreChanged"
}

/**
 * Copy the store (and its `-wal`, or with `side` = `-journal` its rollback
 * journal) into a fresh temporary folder, retrying while the main file or
 * that side file changes under the copy (a checkpoint; AgentMux rolling a
 * journal back). Answers the copy's path; the folder is removed with the
 * scope.
 */
const snapshot = (
  access: SourceAccessShape,
  path: string,
  side: "-wal" | "-journal" = "-wal"
): Effect.Effect<string, StoreUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => fsp.mkdtemp(nodePath.join(os.tmpdir(), "session-ingest-agentmux-")),
        catch: copyError(path, nodePath.join(os.tmpdir(), "session-ingest-agentmux-"), "cannot be snapshotted (no temporary folder)")
      }),
      (d) => Effect.promise(() => fsp.rm(d, { recursive: true, force: true }).catch(() => undefined))
    )
    const copy = nodePath.join(dir, "filestore.db")
    const wal = `${path}${side}`
    const changed = new StoreChanged()
    // One copy; fails `StoreChanged` when a checkpoint changed the main file under it.
    const io = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => unavailable(path, "cannot be snapshotted", e) })
    const attempt = Effect.gen(function*() {
      yield* io(async () => {
        await fsp.rm(copy, { force: true })
        await fsp.rm(`${copy}${side}`, { force: true })
      })
      const before = yield* io(() => statOrNull(path))
      const walBefore = yield* io(() => statOrNull(wal))
      if (walBefore !== null && !walBefore.isFile()) {
        return yield* Effect.fail(unavailable(path, "cannot be snapshotted", new Error(`${wal} is not a regular file`)))
      }
      // The bytes are read through SourceAccess (a private copy: the store is never opened in place).
      const copyOf = (from: string, to: string) =>
        access.copyTo(from, to).pipe(Effect.mapError(copyError(path, to, "cannot be snapshotted")))
      yield* copyOf(path, copy)
      if (walBefore !== null) yield* copyOf(wal, `${copy}${side}`)
      return same(before, yield* io(() => statOrNull(path))) && same(walBefore, yield* io(() => statOrNull(wal)))
    }).pipe(Effect.filterOrFail((ok) => ok, (): StoreUnavailable | StoreChanged => changed))
    return yield* attempt.pipe(
      Effect.retry({ schedule: Schedule.recurs(SNAPSHOT_ATTEMPTS - 1), while: (e) => e === changed }),
      Effect.as(copy),
      Effect.catchIf(
        (e): e is StoreChanged => e === changed,
        () => unavailable(path, `kept changing during ${SNAPSHOT_ATTEMPTS} snapshot attempts`)
      )
    )
  })

/**
 * Open `filename` as the store `real`: `direct` (the store itself, read-only,
 * waiting for a writer's lock), `cached` (a read copy whose main file is the
 * shared cached copy: read-only, so SQLite never checkpoints into it), or
 * `snapshot` (a private whole copy). Through better-sqlite3 itself
 * (`./sqlite-driver.ts` says why); what it throws is `StoreUnavailable`.
 */
const connect = (
  real: string,
  filename: string,
  mode: "direct" | "cached" | "snapshot",
  workersAhead?: StoreConnection["workersAhead"]
): Effect.Effect<StoreConnection, StoreUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const fail = (what: string) => (e: unknown) =>
      isBusy(e)
        ? unavailable(real, "is locked by a writer (AgentMux busy?)", e, "locked")
        : isHotJournal(e)
        ? hotJournal(real, e)
        : unavailable(real, what, e)
    const db = yield* openDriver(
      filename,
      { readonly: mode !== "snapshot", timeout: BUSY_TIMEOUT_MS, fileMustExist: true },
      fail("cannot be opened")
    )
    // A small page cache (256 KiB, against the 16 MB this build of better-sqlite3 sets by default): a rescan reads
    // its 1 MiB append once, as overflow pages that a WAL store's reads pass through the page cache, so a large
    // cache grows page by page into fresh memory, a page fault each (costly on a virtual machine); one that recycles
    // its pages after 256 KiB keeps the b-tree's few hot pages and takes a fraction of the faults (issue 13, a copy
    // of the bench's store after a 1 MiB append, 2 cores under load: that read took 9-34 ms and 470-1070 faults
    // with the default, 3.6-4.7 ms and 200-290 faults with this). The reads are single passes (a scan, a
    // session's runs): nothing is read again that a larger cache would keep. A setting of this connection only:
    // nothing is written to the store's files.
    yield* attempt(() => db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`), fail("cannot be opened"))
    const tables = yield* attempt(
      () =>
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('db_wave_file', 'db_file_data')")
          .all() as Array<{ name: string }>,
      fail("is not a readable SQLite database")
    )
    if (tables.length < 2) {
      return yield* unavailable(real, "is not AgentMux's transcript store (no db_wave_file / db_file_data tables)")
    }
    const columns = yield* attempt(
      () => db.prepare("PRAGMA table_info(db_wave_file)").all() as Array<{ name: string }>,
      fail("cannot be read")
    )
    const names = new Set(columns.map((c) => c.name))
    const genColumn = ["gen", "generation", "rev"].find((c) => names.has(c))
    const createdCol = names.has("createdts") ? "createdts" : "NULL"
    const modCol = names.has("modts") ? "modts" : "NULL"
    // A size that is no byte count (not an integer in [0, 2^53)) comes back null, with the stated text beside it.
    const listSql = `SELECT zoneid, name, CASE WHEN typeof(size) = 'integer' AND size BETWEEN 0 AND ${Number.MAX_SAFE_INTEGER} THEN size END AS size, CAST(size AS TEXT) AS stated, ${createdCol} AS createdts, ${modCol} AS modts, ${
      genColumn !== undefined ? `"${genColumn}"` : "NULL"
    } AS gen FROM db_wave_file WHERE substr(zoneid, 1, ?) = ? ORDER BY zoneid, name`
    const readParts = partReader(db)
    const readChunks = partChunkReader(db)
    const finder = partFinder(db)
    return {
      path: real,
      mode: mode === "direct" ? "direct" : "snapshot",
      // A private copy (ours): other threads may open it read-only too (`parallel-scan.ts`); never the store itself.
      ...(mode === "direct" ? {} : { readCopy: filename }),
      ...(workersAhead === undefined ? {} : { workersAhead }),
      listFiles: (prefix) =>
        attempt(
          () =>
            (db.prepare(listSql).all(prefix.length, prefix) as Array<Record<string, unknown>>).map((r): StoreFile => {
              const file: StoreFile = {
                zoneId: String(r.zoneid),
                name: String(r.name),
                size: num(r.size) ?? 0,
                createdTs: num(r.createdts),
                modTs: num(r.modts),
                generation: r.gen === null || r.gen === undefined ? null : String(r.gen)
              }
              if (r.size !== null && r.size !== undefined) return file
              // Not trusted: the file is as long as its parts go (issue 7: never a step per part a size makes up).
              const last = finder.lastPart(file)
              return { ...file, size: last === null ? 0 : last.index * PART_SIZE + last.length, sizeNotValid: String(r.stated).slice(0, 40).replace(/[^\x20-\x7e]/g, "?") }
            }),
          fail("cannot be read")
        ),
      read: (file, offset, length, into) => attempt(() => readParts(file, offset, length, into), fail("cannot be read")),
      readChunks: (file, offset, length) => attempt(() => readChunks(file, offset, length), fail("cannot be read")),
      nextPart: (file, index) => attempt(() => finder.nextPart(file, index), fail("cannot be read")),
      lastPart: (file) => attempt(() => finder.lastPart(file), fail("cannot be read"))
    }
  })

/**
 * A WAL store read through its cached copy in its cache folder `dir` (see
 * `store-cache.ts`): the cached main file and a fresh copy of the `-wal`, in
 * a read folder removed when the scope closes. Null when there is no usable
 * cache (no folder: no root, or it would lie in the store's folder; or a
 * file system error there): the caller then copies the whole store into a
 * temporary folder.
 */
const cachedSnapshot = (
  access: SourceAccessShape,
  path: string,
  dir: string | null
): Effect.Effect<string | null, StoreUnavailable, Scope.Scope> =>
  dir === null
    ? Effect.succeed(null)
    : Effect.acquireRelease(
      readCopy(access, path, dir, SNAPSHOT_ATTEMPTS).pipe(Effect.orElseSucceed(() => null)),
      // The read folder (its -wal copy: up to a few MiB to free) is removed on the next turn of the event
      // loop, after the answer (its connection is closed by then); one left by a process that exits first
      // is swept by the next read (see `store-cache.ts`).
      (r) =>
        r === null || r === "changing"
          ? Effect.void
          : Effect.sync(() => void setImmediate(() => removeQuietly(r.readDir)))
    ).pipe(
      Effect.flatMap((r) =>
        r === "changing"
          ? Effect.fail(unavailable(path, `kept changing during ${SNAPSHOT_ATTEMPTS} snapshot attempts`))
          : Effect.succeed(r?.file ?? null)
      )
    )

/**
 * Whether the cache folder `dir` is ready for a first copy of a store's main
 * file: made (as `readCopy` makes it) and writable, and holding no copy of a
 * main file yet (of any version: after a checkpoint, an older one is there).
 */
const readyForFirstCopy = (dir: string): boolean => {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    fs.accessSync(dir, fs.constants.W_OK)
    return !fs.readdirSync(dir).some((name) => name.startsWith("main-"))
  } catch {
    return false
  }
}

/**
 * The scan workers started ahead (`StoreConnection.workersAhead`) for the
 * store `file` about to be read through its cache folder `dir`: when `dir`
 * is usable and holds no copy of its main file yet (the store's first read
 * there, a first scan: its main file is copied whole now; an unusable folder
 * would make every read a whole copy, a rescan too), the store is at least as long
 * as a range worth the workers (`parallelSettings`), and there is a worker
 * entry; forked in the scope (the workers not taken are terminated when it
 * closes). Else undefined (a rescan, also one after a checkpoint: its append
 * is read in this thread).
 */
const startWorkersAhead = (
  file: AuthorizedFile,
  dir: string
): Effect.Effect<StoreConnection["workersAhead"], never, Scope.Scope> =>
  Effect.gen(function*() {
    if (!readyForFirstCopy(dir)) return undefined
    const settings = yield* parallelSettings
    if (settings.workers < 1 || file.stat.size < settings.minBytes) return undefined
    const entry = workerEntry()
    if (entry === null) return undefined
    const fiber = yield* Effect.forkScoped(probeWorker(entry, {}, undefined, settings.workers))
    return { entry, probe: Fiber.join(fiber) }
  })

/**
 * Open the store at `path` (see the module doc for how it is kept
 * untouched). `cacheRoot`: the folder under which WAL stores' main files are
 * cached; null: every read of a WAL store copies it whole.
 */
export const openStore = (
  access: SourceAccessShape,
  path: string,
  cacheRoot: string | null = null
): Effect.Effect<StoreOpen, StoreUnavailable | SourceAccessError, Scope.Scope> =>
  Effect.gen(function*() {
    const abs = nodePath.resolve(path)
    const file = yield* access.authorizeFile(abs, [nodePath.dirname(abs)]).pipe(
      Effect.catchTag("SourceNotFound", () => Effect.succeed(null))
    )
    if (file === null) return { _tag: "absent", path: abs } as const
    const authorized = file.path
    const header = yield* readHeader(access, file)
    // Anything at `-wal` means a WAL store (a probe that fails counts as nothing there, as before).
    const walBeside = yield* access.probe(`${authorized}-wal`).pipe(
      Effect.map(Option.isSome),
      Effect.orElseSucceed(() => false)
    )
    const isWal = header[18] === 2 || header[19] === 2 || walBeside
    if (!isWal) {
      // A hot journal (an interrupted write): the store and its journal are read from a private copy, rolled back there.
      const connection = yield* connect(authorized, authorized, "direct").pipe(
        Effect.catchIf(isHotJournalError, () =>
          snapshot(access, authorized, "-journal").pipe(
            Effect.flatMap((copy) => connect(authorized, copy, "snapshot")),
            // A copy with no room says so (its remedy is room, not AgentMux); any other failure names the journal.
            Effect.mapError((e) =>
              isHotJournalError(e) || (e.details as { copy?: unknown } | undefined)?.copy !== undefined
                ? e
                : hotJournal(authorized, e)
            )
          ))
      )
      return { _tag: "open", connection } as const
    }
    const dir = cacheRoot === null
      ? null
      : yield* Effect.tryPromise(() => cacheDirOf(cacheRoot, authorized)).pipe(Effect.orElseSucceed(() => null))
    // A first read into the cache copies the main file whole: the scan's workers load meanwhile.
    const ahead = dir === null ? undefined : yield* startWorkersAhead(file, dir)
    const cached = yield* cachedSnapshot(access, authorized, dir)
    const connection = cached !== null
      ? yield* connect(authorized, cached, "cached", ahead)
      : yield* connect(authorized, yield* snapshot(access, authorized), "snapshot", ahead)
    return { _tag: "open", connection } as const
  })

/**
 * The channels' own stores under the AgentMux home `root` (see
 * `TranscriptStore.channelStores`): `channels/*\/versions/*\/data`, `dev/*\/data`
 * and `dev/*\/*\/data`, each holding `db/filestore.db`, walked through
 * SourceAccess listing folders only (a symlink is never followed). A symlink
 * where a store or a folder on a store's path would be (`channels`, a
 * channel, `versions`, a version, `dev`, a dev build, `data`, `db`,
 * `filestore.db`) is answered in `symlinks` (by its path under the home), so
 * that discovery says what it did not read.
 */
export const channelStoresUnder = (access: SourceAccessShape, root: string): Effect.Effect<ChannelStores> =>
  Effect.gen(function*() {
    const real = yield* Effect.option(access.authorizeRoot(root))
    if (Option.isNone(real)) return { stores: [], symlinks: [] }
    const symlinks = new Set<string>()
    const kindOf = (p: string) =>
      access.probe(p).pipe(
        Effect.map((o) => (Option.isSome(o) ? o.value.kind : null)),
        Effect.orElseSucceed(() => null)
      )
    /** `dir`'s folders; its symlinks reported when `onStorePath` says their name is on a store's path. */
    const folders = (dir: string, onStorePath: (name: string) => boolean) =>
      Effect.flatMap(kindOf(dir), (kind) => {
        if (kind === "symlink") symlinks.add(dir)
        if (kind !== "directory") return Effect.succeed<ReadonlyArray<string>>([])
        return access.listDirectory(dir).pipe(
          Effect.map((es) => {
            for (const e of es) if (e.kind === "symlink" && onStorePath(e.name)) symlinks.add(nodePath.join(dir, e.name))
            return es.filter((e) => e.kind === "directory").map((e) => nodePath.join(dir, e.name))
          }),
          Effect.orElseSucceed((): ReadonlyArray<string> => [])
        )
      })
    const any = () => true
    const dataDirs: Array<string> = []
    for (const ch of yield* folders(nodePath.join(real.value, "channels"), any)) {
      for (const v of yield* folders(nodePath.join(ch, "versions"), any)) dataDirs.push(nodePath.join(v, "data"))
    }
    for (const br of yield* folders(nodePath.join(real.value, "dev"), any)) {
      // Under a dev build, only `data` is on a store's path for sure (`<sub>/data` is looked for inside real folders).
      for (const sub of yield* folders(br, (name) => name === "data")) {
        dataDirs.push(sub.endsWith(`${nodePath.sep}data`) ? sub : nodePath.join(sub, "data"))
      }
    }
    const stores: Array<string> = []
    for (const data of new Set(dataDirs)) {
      const db = nodePath.join(data, "db")
      const store = nodePath.join(db, "filestore.db")
      const kinds = [yield* kindOf(data)]
      if (kinds[0] === "directory") kinds.push(yield* kindOf(db))
      if (kinds[1] === "directory") kinds.push(yield* kindOf(store))
      const link = kinds.indexOf("symlink")
      if (link >= 0) symlinks.add([data, db, store][link])
      // A folder, fifo, socket or device in a store's place is answered too: opening it refuses it (not a regular
      // file, never read or waited on), so discovery says which channel's store it could not read (tester19 F8).
      else if (kinds[2] === "file" || kinds[2] === "directory" || kinds[2] === "other") stores.push(store)
    }
    return { stores: stores.sort(), symlinks: [...symlinks].sort() }
  })

/** Where WAL stores' main files are cached: `agentmux-cache/` beside the scan state (`--state`, or its default). */
export const cacheRootOf = (stateFile: string | undefined): string =>
  nodePath.join(nodePath.dirname(nodePath.resolve(stateFile ?? defaultStateFile())), "agentmux-cache")

/**
 * The live {@link TranscriptStore}, through authorized source access,
 * caching beside the scan state. The scan state file is checked first (plain
 * reads, see `../owned-sqlite.ts`): when `--state` names a file that is not
 * session-ingest's (another program's database), `open` fails with
 * `StoreUnavailable` before anything is created beside it.
 */
export const make: Effect.Effect<TranscriptStoreShape, never, SourceAccess | AccessPolicy> = Effect.gen(function*() {
    const access = yield* SourceAccess
    const stateFile = nodePath.resolve((yield* AccessPolicy).stateFile ?? defaultStateFile())
    const cacheRoot = cacheRootOf(stateFile)
    return {
      channelStores: (root: string) => channelStoresUnder(access, root),
      open: (path: string) =>
        Effect.zipRight(
          checkOwnedSqlite(stateFile, STATE_APPLICATION_ID, "scan state", "--state FILE"),
          openStore(access, path, cacheRoot)
        )
    }
  })

/** Layer: {@link make} as the {@link TranscriptStore}. */
export const layer: Layer.Layer<TranscriptStore, never, SourceAccess | AccessPolicy> = Layer.effect(TranscriptStore, make)
