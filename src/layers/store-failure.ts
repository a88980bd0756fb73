/**
 * What went wrong with a file session-ingest keeps (the index, the scan
 * state) or writes (an export), told from the error SQLite or the file system
 * raised: a full disk, a read-only file or folder, a lock held by another
 * process, a damaged file, an I/O error. The index and the scan state turn it
 * into a `StoreUnavailable` with one line naming the problem and one with the
 * remedy, so no SQL or file-system error reaches the user as a stack trace.
 *
 * Error codes read: better-sqlite3's `SqliteError.code` (`SQLITE_FULL`,
 * `SQLITE_READONLY_*`, `SQLITE_CANTOPEN`, `SQLITE_BUSY`, `SQLITE_LOCKED`,
 * `SQLITE_CORRUPT`, `SQLITE_NOTADB`, `SQLITE_IOERR_*`, …), Node's errno codes
 * (`ENOSPC`, `EDQUOT`, `EROFS`, `EACCES`, `EPERM`, `EIO`, …), found on the
 * error or along its `cause` chain (an `@effect/sql` `SqlError` carries the
 * `SqliteError` as its cause).
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { isMainThread } from "node:worker_threads"
import * as Effect from "effect/Effect"

/** The kind of a storage failure. */
export type FailureKind = "disk-full" | "read-only" | "locked" | "damaged" | "io" | "other"

/** A storage failure: its kind, the low-level code (`SQLITE_FULL`, `ENOSPC`, …) and message. */
export interface StorageFailure {
  readonly kind: FailureKind
  readonly code: string | undefined
  readonly detail: string
}

const codeOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && "code" in u && typeof (u as { code: unknown }).code === "string"
    ? (u as { code: string }).code
    : undefined

const messageOf = (u: unknown): string =>
  u instanceof Error
    ? u.message
    : typeof u === "object" && u !== null && "message" in u
    ? String((u as { message: unknown }).message)
    : String(u)

/** The errors along `u`'s `cause` chain, outermost first (at most 8). */
const chain = (u: unknown): Array<unknown> => {
  const out: Array<unknown> = []
  for (let e = u, i = 0; e !== undefined && e !== null && i < 8; i++) {
    out.push(e)
    e = typeof e === "object" && "cause" in e ? (e as { cause: unknown }).cause : undefined
  }
  return out
}

const SQLITE = /^SQLITE_/
const ERRNO = /^E[A-Z0-9]+$/

/**
 * True when `u` is (or wraps) an error of SQLite or of the file system: an
 * `@effect/sql` `SqlError`, a better-sqlite3 `SqliteError`, or a Node errno
 * error. Used to turn such errors into typed errors where they would
 * otherwise escape as defects.
 */
export const isStorageError = (u: unknown): boolean =>
  chain(u).some((e) => {
    const code = codeOf(e)
    return (code !== undefined && (SQLITE.test(code) || ERRNO.test(code))) ||
      (typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "SqlError")
  })

/** Whether the folder of `file` (or the file itself) refuses writes: read-only mount or no permission. */
const notWritable = (file: string | undefined): boolean => {
  if (file === undefined) return false
  for (const p of [file, nodePath.dirname(file)]) {
    try {
      fs.accessSync(p, fs.constants.W_OK)
    } catch (e) {
      const c = codeOf(e)
      if (c === "EROFS" || c === "EACCES" || c === "EPERM") return true
    }
  }
  return false
}

/**
 * This process's file-size limit (`ulimit -f`, RLIMIT_FSIZE's soft value) in
 * bytes, from `/proc/self/limits` (Linux); undefined when unlimited or not
 * known.
 */
export const fileSizeLimit = (): number | undefined => {
  try {
    const line = fs.readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max file size"))
    const soft = line?.slice("Max file size".length).trim().split(/\s+/)[0]
    return soft === undefined || soft === "unlimited" || !/^\d+$/.test(soft) ? undefined : Number(soft)
  } catch {
    return undefined
  }
}

/**
 * Writes the file-size limit refused in this process, as the kernel tells
 * them: a write past `RLIMIT_FSIZE` fails with `EFBIG` and raises `SIGXFSZ`
 * (Node ignores it, so the process lives on). SQLite reports `EFBIG` only as
 * `SQLITE_IOERR_WRITE` (or, once it rolled the transaction back itself, as
 * the `ROLLBACK` that follows failing: "cannot rollback - no transaction is
 * active"), and the file it was writing may be gone by the time the failure
 * is told (a statement journal in SQLite's temporary folder, the index's
 * `.new-…` file, a rollback journal deleted by the rollback): the signal is
 * what says it was the limit (tester31c F1, F2).
 */
let refusedByLimit = 0
/** Whether `SIGXFSZ` is listened to ({@link watchFileSizeLimit}). */
let listening = false
let watched = false

/**
 * Listen for `SIGXFSZ` ({@link refusedByLimit}) when a file-size limit is
 * set: called before a store is written. Nothing is done without a limit (or
 * off the main thread, where a process's signals are not delivered to
 * JavaScript); the listener does not keep the process alive.
 */
export const watchFileSizeLimit = (): void => {
  if (watched) return
  watched = true
  if (!isMainThread || fileSizeLimit() === undefined) return
  process.on("SIGXFSZ", () => {
    refusedByLimit++
  })
  listening = true
}

/** Codes SQLite (or the file system) gives a write the file-size limit refused. */
const REFUSED_WRITE = /^SQLITE_IOERR|^SQLITE_FULL|^EFBIG$/

/** Whether `cause` may be a write the file-size limit refused: a write I/O error, a full disk, or SQLite's ROLLBACK after it rolled such a write back. */
const mayBeRefusedWrite = (cause: unknown): boolean => {
  const coded = chain(cause).find((e) => {
    const c = codeOf(e)
    return c !== undefined && (SQLITE.test(c) || ERRNO.test(c))
  })
  const code = codeOf(coded)
  return code !== undefined && (REFUSED_WRITE.test(code) || (code === "SQLITE_ERROR" && isRollbackAfterFailure(coded)))
}

/** The file-size limit, when a write was refused by it in this process ({@link refusedByLimit}). */
const limitThatRefused = (): { readonly why: "file-size-limit"; readonly limit: number } | undefined => {
  if (refusedByLimit === 0) return undefined
  const limit = fileSizeLimit()
  return limit === undefined ? undefined : { why: "file-size-limit", limit }
}

/** How long a failure waits for its `SIGXFSZ` to reach the listener, at most, in ms (when none comes: a failure of another kind). */
const SETTLE_MS = 100

/**
 * Before a storage failure `cause` is told: when a file-size limit is set
 * and `cause` may be a write it refused, wait for the `SIGXFSZ` of that write
 * to reach its listener (the kernel raised it during the write; Node hands
 * it to JavaScript on a later turn of the event loop, the second one here),
 * at most {@link SETTLE_MS} ms, so that {@link storeFailureFields} names the
 * limit. Immediate otherwise: without a limit, once the signal was seen, or
 * for any other failure.
 */
export const settleWriteFailure = (cause: unknown): Effect.Effect<void> =>
  Effect.suspend(() =>
    !listening || refusedByLimit > 0 || !mayBeRefusedWrite(cause)
      ? Effect.void
      : Effect.async<void>((resume) => {
        const until = Date.now() + SETTLE_MS
        let turns = 0
        let timer: ReturnType<typeof setTimeout> | undefined
        let immediate: ReturnType<typeof setImmediate> | undefined
        const turn = () => {
          if (refusedByLimit > 0 || Date.now() >= until) return resume(Effect.void)
          // The first turns at once (the signal is already waiting); then every few ms, not spinning.
          if (++turns < 8) immediate = setImmediate(turn)
          else timer = setTimeout(turn, 5)
        }
        immediate = setImmediate(turn)
        return Effect.sync(() => {
          if (immediate !== undefined) clearImmediate(immediate)
          if (timer !== undefined) clearTimeout(timer)
        })
      })
  )

/**
 * `f()`; what it throws fails the effect with `onError` of it, told once
 * {@link settleWriteFailure} has let a refusal by the file-size limit be seen.
 */
export const tryStore = <A, E>(f: () => A, onError: (cause: unknown) => E): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(f())
    } catch (e) {
      return failStore(e, onError)
    }
  })

/** Fail with `onError(cause)`, told once {@link settleWriteFailure} has let a refusal by the file-size limit be seen. */
export const failStore = <E>(cause: unknown, onError: (cause: unknown) => E): Effect.Effect<never, E> =>
  Effect.zipRight(settleWriteFailure(cause), Effect.failSync(() => onError(cause)))

/** Bytes a write may need beyond a file's size: SQLite grows a file by pages (64 KiB covers a page and a journal header). */
const GROWTH_MARGIN = 64 * 1024

/**
 * Why `file` (a SQLite database, with its `-journal` / `-wal` beside it)
 * cannot grow, when it is so: the file-size limit, when it refused a write
 * of this process (`SIGXFSZ` seen, see {@link watchFileSizeLimit}) or one of
 * them has reached it (EFBIG, which SQLite reports as `SQLITE_IOERR_WRITE`
 * or `SQLITE_FULL`), or its disk without room (`statfs`); else undefined.
 */
export const cannotGrow = (file: string | undefined): { readonly why: "file-size-limit"; readonly limit: number } | { readonly why: "disk-full" } | undefined => {
  const refused = limitThatRefused()
  if (refused !== undefined) return refused
  if (file === undefined) return undefined
  const limit = fileSizeLimit()
  if (limit !== undefined) {
    for (const f of [file, `${file}-journal`, `${file}-wal`]) {
      try {
        if (fs.statSync(f).size + GROWTH_MARGIN >= limit) return { why: "file-size-limit", limit }
      } catch {
        // not there
      }
    }
  }
  try {
    const st = fs.statfsSync(nodePath.dirname(file))
    if (st.bavail * st.bsize < GROWTH_MARGIN) return { why: "disk-full" }
  } catch {
    // not known
  }
  return undefined
}

/**
 * Classify `cause` (any error, possibly wrapped). `file`: the file concerned,
 * consulted when SQLite says only that it cannot open it (`SQLITE_CANTOPEN`
 * in a read-only folder is a read-only failure), and when a write failed with
 * an I/O error that may be the file's growth refused ({@link cannotGrow}: the
 * file-size limit reached, the disk full), which is `disk-full`.
 */
export const classify = (cause: unknown, file?: string): StorageFailure => {
  const errors = chain(cause)
  const coded = errors.find((e) => {
    const c = codeOf(e)
    return c !== undefined && (SQLITE.test(c) || ERRNO.test(c))
  })
  const code = codeOf(coded)
  const detail = messageOf(coded ?? errors[errors.length - 1] ?? cause)
  const kind: FailureKind = code === undefined
    ? "other"
    : /^SQLITE_FULL|^ENOSPC$|^EDQUOT$|^EFBIG$/.test(code)
    ? "disk-full"
    : /^SQLITE_READONLY|^SQLITE_PERM|^SQLITE_AUTH|^EROFS$|^EACCES$|^EPERM$/.test(code)
    ? "read-only"
    : /^SQLITE_CANTOPEN/.test(code) || code === "SQLITE_IOERR_SHMOPEN"
    ? (notWritable(file) ? "read-only" : "other")
    : /^SQLITE_BUSY|^SQLITE_LOCKED|^EAGAIN$|^EWOULDBLOCK$/.test(code)
    ? "locked"
    : /^SQLITE_CORRUPT|^SQLITE_NOTADB/.test(code)
    ? "damaged"
    : (/^SQLITE_IOERR_(WRITE|FSYNC|TRUNCATE|SHORT_READ)$|^SQLITE_IOERR$/.test(code) || (code === "SQLITE_ERROR" && isRollbackAfterFailure(coded))) &&
        cannotGrow(file) !== undefined
    ? "disk-full"
    : REFUSED_WRITE.test(code) && limitThatRefused() !== undefined
    ? "disk-full"
    : /^SQLITE_IOERR|^EIO$/.test(code)
    ? "io"
    : "other"
  return { kind, code, detail }
}

/** True for SQLite's answer to a ROLLBACK after it rolled the transaction back itself (a failed write: SQLITE_FULL, SQLITE_IOERR). */
const isRollbackAfterFailure = (u: unknown): boolean =>
  chain(u).some((e) => /cannot rollback|no transaction is active/i.test(messageOf(e)))

/**
 * The error that says what went wrong among a failure's errors (an Effect
 * `Cause`'s failures and defects, in order): the first storage error that is
 * not SQLite refusing a ROLLBACK after it rolled back itself (which would
 * hide the write that failed: a full disk, the file-size limit), else the
 * first error.
 */
export const primaryFailure = (errors: ReadonlyArray<unknown>): unknown =>
  errors.find((e) => isStorageError(e) && !isRollbackAfterFailure(e)) ??
    errors.find((e) => !isRollbackAfterFailure(e)) ?? errors[0]

/** `code: detail`, or the detail alone. */
export const describe = (f: StorageFailure): string =>
  f.code !== undefined && !f.detail.includes(f.code) ? `${f.code}: ${f.detail}` : f.detail

/** What session-ingest was doing with the file, for the problem and remedy lines. */
export interface StoreRole {
  /** The file. */
  readonly file: string
  /** How to name it: `the index`, `session-ingest's scan state`. */
  readonly label: string
  /** The option that picks another file: `--index FILE`, `--state FILE`. */
  readonly option: string
  /** What to say for a read-only file, when it must be written. */
  readonly readOnlyRemedy: string
  /**
   * The file is open read-only (a query command): SQLite writes nothing to
   * it, so a write failure (a full disk, the file-size limit, a write I/O
   * error) is of SQLite's temporary files, told as such (see
   * {@link sqliteTempDir}), never as the file's own disk.
   */
  readonly readsOnly?: boolean
}

/**
 * The folder where SQLite (unix VFS) puts its temporary files: the first of
 * `SQLITE_TMPDIR`, `TMPDIR`, `/var/tmp`, `/usr/tmp`, `/tmp` that is a folder
 * this process can write to and enter, else `.` — the order SQLite's
 * `unixTempFileDir` tries them in.
 */
export const sqliteTempDir = (env: NodeJS.ProcessEnv = process.env): string => {
  for (const dir of [env.SQLITE_TMPDIR, env.TMPDIR, "/var/tmp", "/usr/tmp", "/tmp"]) {
    if (dir === undefined || dir === "") continue
    try {
      if (fs.statSync(dir).isDirectory()) {
        fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK)
        return dir
      }
    } catch {
      // not this one
    }
  }
  return "."
}

/** Codes of a failed write (space, file-size limit, write I/O): on a read-only connection, only SQLite's temporary files are written. */
const WRITE_FAILURE = /^SQLITE_FULL|^SQLITE_IOERR_(WRITE|FSYNC|TRUNCATE|DIR_FSYNC|DELETE)$|^ENOSPC$|^EDQUOT$|^EFBIG$/

/**
 * The message and remediation of a `StoreUnavailable` for a failure of the
 * store `role` (one line each), with `details` `{file, reason, code}`.
 */
export const storeFailureFields = (role: StoreRole, cause: unknown) => {
  const f = classify(cause, role.file)
  const at = `${role.label} ${role.file}`
  // SQLite's "cannot rollback" after it rolled a refused write back itself says nothing of the write: not shown.
  const refused = f.kind === "disk-full" && isRollbackAfterFailure(cause) ? "a write was refused; SQLite rolled it back" : undefined
  if (role.readsOnly === true && f.code !== undefined && WRITE_FAILURE.test(f.code)) {
    const dir = sqliteTempDir()
    const why = refused ?? describe(f)
    return {
      message: `${at} was being read (nothing is written to it or beside it), but SQLite could not write its temporary files in ${dir}: the folder is full or the file-size limit was reached (${why}).`,
      remediation: `Free space in ${dir} (or raise the file-size limit, \`ulimit -f\`), or set SQLITE_TMPDIR (or TMPDIR) to a folder with room; then run the same command again.`,
      details: { file: role.file, reason: "temp-space", tempDir: dir, ...(f.code !== undefined ? { code: f.code } : {}) }
    }
  }
  const grow = f.kind === "disk-full" ? cannotGrow(role.file) : undefined
  // SQLite's own words for a write the file-size limit refused ("disk I/O error") would point at the disk: its code only.
  const why = refused ?? (grow?.why === "file-size-limit" && f.code !== undefined ? `a write was refused: ${f.code}` : describe(f))
  const [message, remediation] = f.kind === "disk-full"
    ? grow?.why === "file-size-limit"
      ? [
        `${at} could not grow: the file-size limit (\`ulimit -f\`, ${grow.limit} bytes) was reached (${why}).`,
        `Raise the file-size limit (\`ulimit -f\`, now ${grow.limit} bytes; \`ulimit -f unlimited\` lifts it), then run the same command again (what was committed is kept, the rest is completed).`
      ]
      : [
        `${at} could not grow: the disk is full (${why}).`,
        `Free space on the disk that holds ${nodePath.dirname(role.file)} or raise the file-size limit (\`ulimit -f\`), or pass ${role.option} on another disk; then run the same command again (what was committed is kept, the rest is completed).`
      ]
    : f.kind === "read-only"
    ? [`${at} cannot be written: it or its folder is read-only (${why}).`, role.readOnlyRemedy]
    : f.kind === "locked"
    ? [
      `${at} is locked by another process (${why}).`,
      "Wait for the other session-ingest run (an import?) to finish, then run the same command again."
    ]
    : f.kind === "damaged"
    ? [
      `${at} is damaged or not a SQLite database (${why}).`,
      `Move it aside and pass ${role.option} with a new file (session-ingest rebuilds it from the sources).`
    ]
    : f.kind === "io"
    ? [
      `${at} cannot be read or written: I/O error (${why}).`,
      `Check the disk that holds ${nodePath.dirname(role.file)} (and the kernel log), or pass ${role.option} on another disk; then run the same command again.`
    ]
    : [
      `${at} cannot be opened or used (${why}).`,
      `Check that ${role.option} points to a file session-ingest created (or a new one) in a folder you can write to.`
    ]
  return {
    message,
    remediation,
    details: {
      file: role.file,
      reason: f.kind,
      ...(f.code !== undefined ? { code: f.code } : {}),
      ...(grow?.why === "file-size-limit" ? { fileSizeLimit: grow.limit } : {})
    }
  }
}

/**
 * Whether a defect raised while decoding a store's rows says the stored data
 * is not what session-ingest wrote there: `JSON.parse` of a stored text that
 * is not JSON (`SyntaxError`), or a decoded value of the wrong shape read as
 * if it were right (`TypeError`, `RangeError`: e.g. a shape's key list that
 * is not an array, or nesting too deep to rebuild). Bit rot or a hand edit,
 * not a bug of the reader.
 */
export const isUndecodableData = (defect: unknown): boolean =>
  defect instanceof SyntaxError || defect instanceof TypeError || defect instanceof RangeError

/**
 * The message and remediation of a `StoreUnavailable` for a stored row of
 * `role`'s file that cannot be decoded ({@link isUndecodableData}): the file
 * is damaged (`details.reason` `damaged`, as SQLite's own `SQLITE_CORRUPT`),
 * and the remedy is the same, a new file rebuilt from the sources. The
 * defect's message (not its name or stack) is kept, cut to 200 characters.
 */
export const undecodableRowFields = (role: StoreRole, defect: unknown) => {
  const detail = messageOf(defect).replace(/\s+/g, " ")
  const why = detail.length > 200 ? detail.slice(0, 199) + "…" : detail
  return {
    message: `${role.label} ${role.file} is damaged: a stored record cannot be read back (${why}).`,
    remediation: `Move it aside and pass ${role.option} with a new file (session-ingest rebuilds it from the sources).`,
    details: { file: role.file, reason: "damaged" as const, decode: why }
  }
}
