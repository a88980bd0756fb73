/**
 * A private, cached copy of a WAL store's main file, so that a read of the
 * store copies only its `-wal` (small: SQLite checkpoints it every ~1000
 * pages) instead of the whole store. SQLite still does all the decoding: the
 * caller opens the copy with better-sqlite3, read-only.
 *
 * Layout of a store's cache folder (`<root>/<sha256 of the store's path>/`,
 * owned by session-ingest, never inside the store's folder):
 * - `main-<dev>-<ino>-<size>-<mtimeNs>.db`: a byte copy of the store's main
 *   file as it was while its identity, size and mtime were those. Written
 *   under a temporary name (`tmp-<pid>-…`) and renamed into place, then made
 *   read-only and never written again; replaced (a new name) when the store's
 *   main file changes, i.e. when AgentMux checkpointed.
 * - `read-<pid>-…/`: one folder per read, holding `filestore.db` (a hard link
 *   to the cached main, so each read has its own `-wal` / `-shm` names), a
 *   fresh copy of the store's `-wal` as `filestore.db-wal`, and the `-shm`
 *   SQLite makes. Removed when the read ends; one left by a process that died
 *   is removed by the next read.
 *
 * Why it stays consistent:
 * - The copy is opened read-only, so SQLite never checkpoints the copied WAL
 *   into the cached main (a read-only connection cannot): the cached main
 *   stays the store's main file byte for byte, shared by every read.
 * - A read holds when the store's main file kept its identity, size and mtime
 *   from before the cached main was chosen until after the `-wal` was copied
 *   (no checkpoint wrote into it meanwhile), and the `-wal`'s header (its
 *   salts, changed by every WAL restart) and identity are the same after the
 *   copy as in the copy. Frames appended during the copy are cut by SQLite's
 *   own recovery at the last committed, checksummed frame. Otherwise the read
 *   is tried again (a changed main file is copied again).
 * - Concurrent processes share the cached main lock-free: it is only ever
 *   created by a rename and never modified; each read works in its own folder.
 *
 * @module
 */
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { SourceAccessError } from "../../domain/errors.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"

/** The header of a WAL file: magic, version, page size, checkpoint sequence, salts, checksum. */
const WAL_HEADER = 32

/** `lstat` (with ns times), or null when the path does not exist. */
export const statOrNull = (p: string): Promise<fs.BigIntStats | null> =>
  fsp.lstat(p, { bigint: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null
    throw e
  })

/** {@link statOrNull}, synchronously (a read copy's many small steps take no trip through the thread pool). */
export const statOrNullSync = (p: string): fs.BigIntStats | null => {
  try {
    return fs.lstatSync(p, { bigint: true })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null
    throw e
  }
}

/** Same file, same size and mtime (or both missing): nothing changed it between two stats. */
export const same = (a: fs.BigIntStats | null, b: fs.BigIntStats | null) =>
  a === null || b === null
    ? a === b
    : a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs

/** The first bytes of one of session-ingest's own files (fewer when it is shorter; none when it is gone). */
const head = (p: string, n: number): Buffer => {
  let fd: number
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0)
    throw e
  }
  try {
    const buf = Buffer.alloc(n)
    return buf.subarray(0, fs.readSync(fd, buf, 0, n, 0))
  } finally {
    fs.closeSync(fd)
  }
}

/** `p` with its existing ancestors' symlinks resolved (synchronous: a few `lstat`s of session-ingest's own folders). */
const realish = (p: string): string => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    const parent = nodePath.dirname(p)
    return parent === p ? p : nodePath.join(realish(parent), nodePath.basename(p))
  }
}

/** Whether `child` is `parent` or lies inside it. */
export const isInside = (child: string, parent: string): boolean => {
  const r = nodePath.relative(parent, child)
  return r === "" || (!r.startsWith("..") && !nodePath.isAbsolute(r))
}

/**
 * The cache folder of the store `store` (its real path) under `root`, or null
 * when that folder would lie inside the store's own folder (never written).
 */
export const cacheDirOf = async (root: string, store: string): Promise<string | null> => {
  const real = realish(nodePath.resolve(root))
  if (isInside(real, nodePath.dirname(store))) return null
  return nodePath.join(real, createHash("sha256").update(store).digest("hex").slice(0, 32))
}

const alive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Remove a folder or file of session-ingest's own, quietly (what is left is swept by a later read). */
export const removeQuietly = (p: string): void => {
  try {
    fs.rmSync(p, { recursive: true, force: true })
  } catch {
    // left for the next read's sweep
  }
}

/** Remove what dead processes left: their read folders and half-written copies. */
const sweep = (dir: string, names: ReadonlyArray<string>) => {
  for (const name of names) {
    const m = /^(?:read|tmp)-(\d+)-/.exec(name)
    if (m !== null && !alive(Number(m[1]))) removeQuietly(nodePath.join(dir, name))
  }
}

/** A read copy: `file` to open read-only; `readDir` to remove when the read ends. */
export interface ReadCopy {
  readonly file: string
  readonly readDir: string
  /** Whether the store's main file was copied for this read (not found in the cache). */
  readonly copiedMain: boolean
}

/** An attempt raced a change of the store (a checkpoint, a WAL restart, a cached main replaced): tried again. */
class Changing {
  readonly _tag = "Changing"
}

/**
 * A file system call of a read copy (synchronous: small calls on
 * session-ingest's own cache folder); its error is the cause (the caller then
 * copies the whole store elsewhere).
 */
const io = <A>(f: () => A): Effect.Effect<A, unknown> => Effect.try({ try: f, catch: (e) => e })

/**
 * The `-wal` header of the store, read through `SourceAccess` (it is the
 * provider's file: no symlink followed, identity checked); empty when it is
 * gone.
 */
const walHeaderOf = (access: SourceAccessShape, wal: string): Effect.Effect<Buffer, SourceAccessError> =>
  access.authorizeFile(wal, [nodePath.dirname(wal)]).pipe(
    Effect.flatMap((file) => access.readHead(file, WAL_HEADER)),
    Effect.map(({ bytes }) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)),
    Effect.catchTag("SourceNotFound", () => Effect.succeed(Buffer.alloc(0)))
  )

/**
 * Make a read copy of the WAL store `store` in its cache folder `dir`: the
 * cached main file (copied first when absent or stale) and a fresh copy of
 * the `-wal`, retried (`attempts` tries in all, `Schedule.recurs`) while the
 * store changes under the copy. Answers `"changing"` when it kept changing.
 * Fails (with the file system or access error as is) on any other error:
 * the caller then copies the whole store elsewhere. Nothing is left behind
 * in `dir` but the cached main. The store's bytes are copied by path
 * (`copyFile`, a reflink where the file system has one), its identity, size
 * and mtime checked before and after; the `-wal`'s header is read through
 * `access`.
 */
export const readCopy = (
  access: SourceAccessShape,
  store: string,
  dir: string,
  attempts: number
): Effect.Effect<ReadCopy | "changing", unknown> =>
  Effect.gen(function*() {
    yield* io(() => fs.mkdirSync(dir, { recursive: true, mode: 0o700 }))
    yield* io(() => sweep(dir, fs.readdirSync(dir)))
    const wal = `${store}-wal`
    const tag = () => `${process.pid}-${randomBytes(6).toString("hex")}`
    const changing = new Changing()

    /** The cached main file for the store as it is now (copied when absent), or `changing`. */
    const cachedMain = Effect.gen(function*() {
      const before = yield* io(() => statOrNullSync(store))
      if (before === null || !before.isFile()) return yield* Effect.fail(new Error(`${store} is not a regular file`))
      const main = nodePath.join(dir, `main-${before.dev}-${before.ino}-${before.size}-${before.mtimeNs}.db`)
      if ((yield* io(() => statOrNullSync(main))) !== null) return { before, main, copiedMain: false }
      const tmp = nodePath.join(dir, `tmp-${tag()}`)
      const copied = yield* Effect.gen(function*() {
        yield* access.copyTo(store, tmp) // the store's bytes, read through SourceAccess
        return yield* io(() => {
          if (!same(before, statOrNullSync(store))) return false
          fs.chmodSync(tmp, 0o400)
          fs.renameSync(tmp, main)
          return true
        })
      }).pipe(Effect.ensuring(Effect.sync(() => removeQuietly(tmp))))
      if (!copied) return yield* Effect.fail(changing)
      yield* io(() => {
        for (const name of fs.readdirSync(dir)) {
          if (name.startsWith("main-") && nodePath.join(dir, name) !== main) fs.rmSync(nodePath.join(dir, name), { force: true })
        }
      })
      return { before, main, copiedMain: true }
    })

    /** One read copy in a fresh read folder (removed unless the copy holds), or `changing`. */
    const attempt = Effect.gen(function*() {
      const { before, copiedMain, main } = yield* cachedMain
      const readDir = yield* io(() => fs.mkdtempSync(nodePath.join(dir, `read-${process.pid}-`)))
      return yield* Effect.gen(function*() {
        const file = nodePath.join(readDir, "filestore.db")
        const linked = yield* io(() => {
          try {
            fs.linkSync(main, file)
            return true
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return false // replaced by another process meanwhile
            throw e
          }
        })
        if (!linked) return yield* Effect.fail(changing)
        const walBefore = yield* io(() => statOrNullSync(wal))
        if (walBefore !== null) {
          if (!walBefore.isFile()) return yield* Effect.fail(new Error(`${wal} is not a regular file`))
          yield* access.copyTo(wal, `${file}-wal`)
          const walAfter = yield* io(() => statOrNullSync(wal))
          // A WAL restart rewrites the header (new salts): frames copied across it may mix two WALs.
          const restarted = walAfter === null || walAfter.ino !== walBefore.ino || walAfter.dev !== walBefore.dev ||
            !(yield* walHeaderOf(access, wal)).equals(yield* io(() => head(`${file}-wal`, WAL_HEADER)))
          if (restarted) return yield* Effect.fail(changing)
        }
        if (!same(before, yield* io(() => statOrNullSync(store)))) return yield* Effect.fail(changing)
        return { file, readDir, copiedMain } satisfies ReadCopy
      }).pipe(
        Effect.onError(() => Effect.sync(() => removeQuietly(readDir)))
      )
    })

    return yield* attempt.pipe(
      Effect.retry({ schedule: Schedule.recurs(attempts - 1), while: (e) => e === changing }),
      Effect.catchIf((e) => e === changing, () => Effect.succeed("changing" as const))
    )
  })
