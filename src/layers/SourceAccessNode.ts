/**
 * The Node filesystem layer of {@link SourceAccess}: `lstat` / `realpath`
 * checks, then read-only `O_NOFOLLOW` opens verified by device and inode.
 * Metadata calls are synchronous: they take microseconds, and a threadpool
 * round trip each (about nine per source) dominated importing many small logs.
 * `@effect/platform`'s FileSystem has no `lstat` and no no-follow open, which
 * these rules need, so this layer uses `node:fs` directly.
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  ResourceLimitExceeded,
  SourceNotAuthorized,
  SourceNotFound,
  SourceNotRegularFile,
  SourceOutsideAllowedRoot,
  type SourceAccessError,
  SourceSymlink
} from "../domain/errors.js"
import {
  type AuthorizedFile,
  type DirEntry,
  type FileStat,
  type Head,
  type ListedHead,
  type ListedHeadsAhead,
  type ListedPath,
  type OpenSource,
  SourceAccess,
  type SourceAccessShape
} from "../services/SourceAccess.js"
import { replacedDetails, unreadableDetails } from "../domain/unreadable.js"
import { isNotAFolder, notAFolderDetails } from "../domain/not-a-folder.js"
import { raiseLimitRemedy } from "../domain/limit-remedy.js"
import {
  CLAIM,
  CONSUMED,
  type HeadReaderData,
  headReaderBytes,
  headReaderViews,
  META_BIRTHTIME,
  META_CTIME,
  META_DEV,
  META_ENDED,
  META_FIELDS,
  META_GOT,
  META_INO,
  META_MTIME,
  META_SIZE,
  META_STATUS,
  STATUS_HEAD,
  STOP
} from "./head-reader-protocol.js"

const errnoOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined

/**
 * Map a filesystem error on `path` to the access error family. A file or
 * folder that is there but cannot be read (`EACCES`, `EPERM`, an I/O error
 * such as `EIO`, any other errno) is a `SourceNotAuthorized` whose `details`
 * are the `UnreadableDetails` of `../domain/unreadable.ts`:
 * what tells "could not be read" apart from "is not what was authorized".
 * Exported for tests that inject such a failure.
 */
export const fsError = (path: string, e: unknown): SourceAccessError => {
  switch (errnoOf(e)) {
    case "ENOENT":
      return new SourceNotFound({
        message: `No such file or folder: ${path}`,
        remediation:
          "Check the path (relative paths on the command line are read from the working directory; in a config file, from the config file's folder)."
      })
    case "ENOTDIR": {
      // Which part: the nearest folder on the way that is there (an error path: a few `lstat`s, no more).
      const part = fileOnTheWay(path)
      return new SourceNotRegularFile({
        message: part === undefined
          ? `A part of ${path} is not a folder.`
          : `${part} ${isNotAFolder(notAFolderDetails(part, "file"))}${part === nodePath.resolve(path) ? "" : ` (on the way to ${path})`}.`,
        remediation: "Pass the path of a regular file inside a folder.",
        ...(part !== undefined ? { details: notAFolderDetails(part, "file") } : {})
      })
    }
    case "ELOOP":
      return new SourceSymlink({
        message: `${path} is a symlink (or a symlink loop); session-ingest does not follow symlinks.`,
        remediation: "Pass the real path of the file."
      })
    case "EACCES":
    case "EPERM":
      return new SourceNotAuthorized({
        message: `${path} is not readable: permission denied (${errnoOf(e)}).`,
        remediation: "Grant read permission (e.g. chmod u+r on the file, u+rx on its folders) or choose another source.",
        details: unreadableDetails(path, errnoOf(e)!)
      })
    case "EISDIR":
      return new SourceNotRegularFile({
        message: `${path} is a folder, not a file.`,
        remediation: "Pass the path of a regular file."
      })
    default:
      return new SourceNotAuthorized({
        message: `${path} cannot be read (${errnoOf(e) ?? String(e)}).`,
        remediation: "Check the path and its permissions.",
        details: unreadableDetails(path, errnoOf(e) ?? "unknown")
      })
  }
}

/**
 * The part of `path` (itself, when listed as a folder, or one of the folders
 * above it) that is a regular file, whence `ENOTDIR`: the nearest one there,
 * if it is a file; else undefined.
 */
const fileOnTheWay = (path: string): string | undefined => {
  let p = nodePath.resolve(path)
  for (;;) {
    try {
      return fs.lstatSync(p).isFile() ? p : undefined
    } catch {
      const up = nodePath.dirname(p)
      if (up === p) return undefined
      p = up
    }
  }
}

/** Run a synchronous filesystem call, mapping its error to the access family. */
const attemptSync = <A>(path: string, f: () => A): Effect.Effect<A, SourceAccessError> =>
  Effect.try({ try: f, catch: (e) => fsError(path, e) })

const toStat = (s: fs.Stats): FileStat => ({
  size: s.size,
  mtimeMs: s.mtimeMs,
  birthtimeMs: s.birthtimeMs,
  ctimeMs: s.ctimeMs,
  dev: s.dev,
  ino: s.ino
})

const isInside = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(nodePath.sep) ? parent : parent + nodePath.sep)

/** A failure of a synchronous step of an authorization, carried out of it by `throw` (see {@link authorizeFile}). */
class Refused {
  constructor(readonly error: SourceAccessError) {}
}

/** Run a synchronous filesystem call inside an authorization: its error, mapped to the access family, is thrown as {@link Refused}. */
const must = <A>(path: string, f: () => A): A => {
  try {
    return f()
  } catch (e) {
    throw new Refused(fsError(path, e))
  }
}

/**
 * A path's real path: libc's `realpath(3)` (`fs.realpathSync.native`), one
 * call in C, where Node's JavaScript `fs.realpathSync` makes an `lstat` per
 * folder of the path from JavaScript (issue 13, first import: the parse
 * workers authorize every source, and that walk was about 1.5 s of their
 * 10,000-source profile). Same answers and errors on Linux (`ENOENT`,
 * `ENOTDIR`, `ELOOP`, `EACCES`).
 */
const realpathOf = (abs: string): string => fs.realpathSync.native(abs)

/** {@link authorizeRoot} as one synchronous step (throws {@link Refused}). */
const authorizeRootSync = (root: string): string => {
  const abs = nodePath.resolve(root)
  const real = must(abs, () => realpathOf(abs))
  const st = must(real, () => fs.statSync(real))
  if (!st.isDirectory()) {
    // What it is (a session log named as the root, most often), for the provider to say and name the folder to pass.
    const details = notAFolderDetails(abs, st.isFile() ? "file" : "other")
    throw new Refused(
      new SourceNotRegularFile({
        message: `The root ${abs} ${isNotAFolder(details)}.`,
        remediation: "Pass a folder as the root.",
        details
      })
    )
  }
  return real
}

/**
 * The first symlink among the folders of `abs` below a root it is named under (by the root's path as given or its
 * real path), else undefined. An error path only (a file whose real path left every root): an `lstat` a folder.
 */
const symlinkOnTheWay = (abs: string, roots: ReadonlyArray<{ readonly lexical: string; readonly real: string }>): string | undefined => {
  for (const root of roots) {
    const base = isInside(abs, root.lexical) ? root.lexical : isInside(abs, root.real) ? root.real : undefined
    if (base === undefined) continue
    let cur = base
    for (const part of nodePath.relative(base, nodePath.dirname(abs)).split(nodePath.sep).filter((p) => p.length > 0)) {
      cur = nodePath.join(cur, part)
      try {
        if (fs.lstatSync(cur).isSymbolicLink()) return cur
      } catch {
        break
      }
    }
  }
  return undefined
}

/** Run a synchronous authorization in one effect: a thrown {@link Refused} is its failure, anything else a defect. */
const refusable = <A>(f: () => A): Effect.Effect<A, SourceAccessError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(f())
    } catch (e) {
      if (e instanceof Refused) return Effect.fail(e.error)
      throw e
    }
  })

const authorizeRoot = (root: string): Effect.Effect<string, SourceAccessError> => refusable(() => authorizeRootSync(root))

/**
 * Authorize a file under `roots`. One synchronous step (an import
 * authorizes every source: no effect per system call). A file whose real
 * path is its path as named, under a root whose real path is its own, has no
 * symlink on the way (`realpath` would have replaced it; a link to its own
 * path is a loop, which `realpath` refuses): the walk of its components is
 * then left out, as it could find none.
 */
const authorizeFile = (
  path: string,
  roots: ReadonlyArray<string>,
  rootOption = "--workspace DIR"
): Effect.Effect<AuthorizedFile, SourceAccessError> =>
  refusable(() => {
    if (roots.length === 0) {
      throw new Refused(
        new SourceNotAuthorized({
          message: `No authorized root covers ${path}.`,
          remediation: `Authorize the folder that holds it (${rootOption}).`
        })
      )
    }
    const abs = nodePath.resolve(path)
    const lst = must(abs, () => fs.lstatSync(abs))
    if (lst.isSymbolicLink()) {
      throw new Refused(
        new SourceSymlink({
          message: `${abs} is a symlink; session-ingest does not follow symlinks.`,
          remediation: "Pass the real path of the file."
        })
      )
    }
    if (!lst.isFile()) {
      throw new Refused(
        new SourceNotRegularFile({
          message: `${abs} is not a regular file.`,
          remediation: "Pass the path of a regular file (not a folder, device or fifo)."
        })
      )
    }
    const real = must(abs, () => realpathOf(abs))
    const realRoots: Array<{ lexical: string; real: string }> = []
    for (const r of roots) {
      const lexical = nodePath.resolve(r)
      try {
        realRoots.push({ lexical, real: authorizeRootSync(r) })
      } catch (e) {
        if (!(e instanceof Refused)) throw e
      }
    }
    const covering = realRoots.filter((r) => isInside(real, r.real))
    if (covering.length === 0) {
      // Named under a root but led out of it by a symlinked folder on the way (a session folder linked elsewhere):
      // still outside the root (the file's real place; session-ingest's first rule, test/source-access.test.ts), the
      // message and remedy naming that link rather than asking to move the file (tester35b F5).
      const link = symlinkOnTheWay(abs, realRoots)
      throw new Refused(
        new SourceOutsideAllowedRoot({
          message: link === undefined
            ? `${abs} lies outside every authorized root (${roots.map((r) => nodePath.resolve(r)).join(", ")}).`
            : `${abs} lies outside every authorized root (${roots.map((r) => nodePath.resolve(r)).join(", ")}): ${link} on the way to it is a symlink to a folder outside the root, and session-ingest does not follow symlinks.`,
          remediation: link === undefined
            ? `Move the file under an authorized root, or authorize its folder (${rootOption}).`
            : `Put the real folder under the root in place of the link, or authorize the folder the link points to (${rootOption}).`
        })
      )
    }
    // The path as named must reach the file without a symlink below the root:
    // named through the root's lexical or real form, then every component is no symlink.
    for (const root of covering) {
      const base = isInside(abs, root.lexical) ? root.lexical : isInside(abs, root.real) ? root.real : undefined
      if (base === undefined) continue
      if (real === abs && root.lexical === root.real) return { path: real, root: root.real, stat: toStat(lst) }
      const parts = nodePath.relative(base, abs).split(nodePath.sep).filter((p) => p.length > 0)
      let cur = root.real
      let symlink: string | undefined
      for (const part of parts) {
        cur = nodePath.join(cur, part)
        const at = cur
        const st = must(at, () => fs.lstatSync(at))
        if (st.isSymbolicLink()) {
          symlink = cur
          break
        }
      }
      if (symlink === undefined) return { path: real, root: root.real, stat: toStat(lst) }
      throw new Refused(
        new SourceSymlink({
          message: `${symlink} on the way to ${abs} is a symlink; session-ingest does not follow symlinks.`,
          remediation: "Pass the real path of the file."
        })
      )
    }
    throw new Refused(
      new SourceSymlink({
        message: `${abs} is reached through a symlink outside the authorized root.`,
        remediation: "Pass the real path of the file, under the authorized root."
      })
    )
  })

/** Same file: device, inode and birth time (an inode number can be reused by a replacement). */
const sameFile = (a: FileStat, b: fs.Stats) => a.dev === b.dev && a.ino === b.ino && a.birthtimeMs === b.birthtimeMs

const replaced = (file: AuthorizedFile) =>
  new SourceNotAuthorized({
    message: `${file.path} was replaced after it was authorized.`,
    remediation: "Retry; if the file keeps changing, copy it somewhere stable first.",
    details: replacedDetails(file.path)
  })

/**
 * Read up to `length` bytes at `offset` of an open file descriptor (fewer at
 * the end of the file), into `into` when it is given and large enough.
 * `sizeAtOpen` (the descriptor's `fstat` size, when known): a short read that
 * reaches it is the end of the file, so no further read is spent to be told
 * so by a 0-byte one (discovery and the small-file import read each log's
 * head once, not twice). A file that grew since goes on being read.
 */
const readFully = (fd: number, offset: number, length: number, into?: Uint8Array, sizeAtOpen = Infinity): Buffer => {
  // `into` itself when it is a buffer of that length (discovery's scratch buffer, at every head read): no view made.
  const buf = into !== undefined && into.length >= length
    ? into.length === length && Buffer.isBuffer(into) ? into : Buffer.from(into.buffer, into.byteOffset, length)
    : Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const asked = length - got
    const n = fs.readSync(fd, buf, got, asked, offset + got)
    if (n === 0) break
    got += n
    if (n < asked && offset + got >= sizeAtOpen) break
  }
  return got === length ? buf : buf.subarray(0, got)
}


const readSync = (path: string, fd: number, offset: number, length: number): Effect.Effect<Uint8Array, SourceAccessError> =>
  attemptSync(path, () => readFully(fd, offset, length))

/**
 * A file's reads: the first one synchronous, the rest through the event loop
 * (each full step's next one read ahead, see {@link ReadAhead}).
 * Discovery settles most logs with their first read, and a threadpool round
 * trip per file doubled its time; a long stream, though, must return to the
 * event loop between reads, or V8's incremental garbage collection starves
 * (measured: 1 GB RSS streaming a 200 MB log with synchronous reads only,
 * 154 MB with these).
 */
const reader = (path: string, fd: number) => {
  let first = true
  let ahead: ReadAhead | undefined
  /** Closed by the scope: the descriptor is closed once no read of it is in flight (see {@link ReadAhead}). */
  let closed = false
  const settle = (r: ReadAhead) => {
    r.done = true
    if (closed) closeQuietly(fd)
    else for (const w of r.waiters.splice(0)) w()
  }
  const readAhead = (offset: number, length: number) => {
    const r: ReadAhead = { offset, length, done: false, waiters: [], bytes: undefined, error: undefined }
    ahead = r
    const buf = Buffer.allocUnsafe(length)
    const step = (got: number) => {
      fs.read(fd, buf, got, length - got, offset + got, (err, n) => {
        if (err) r.error = err
        else if (n > 0 && got + n < length) return step(got + n)
        else r.bytes = got + n === length ? buf : buf.subarray(0, got + n)
        settle(r)
      })
    }
    step(0)
  }
  const read = (offset: number, length: number): Effect.Effect<Uint8Array, SourceAccessError> =>
    Effect.suspend(() => {
      if (first) {
        first = false
        return readSync(path, fd, offset, length)
      }
      const r = ahead !== undefined && ahead.offset === offset && ahead.length === length ? ahead : undefined
      if (r === undefined) {
        if (ahead === undefined || ahead.done) readAhead(offset, length)
        else return Effect.zipRight(waitFor(ahead), read(offset, length))
        return read(offset, length)
      }
      return Effect.flatMap(waitFor(r), () => {
        ahead = undefined
        if (r.error !== undefined) return Effect.fail(fsError(path, r.error))
        const bytes = r.bytes!
        // A full read: the file goes on, and its next step is read while this one is worked on.
        if (bytes.length === length) readAhead(offset + length, length)
        return Effect.succeed(bytes)
      })
    })
  return {
    read,
    close: () => {
      if (closed) return
      closed = true
      if (ahead === undefined || ahead.done) closeQuietly(fd)
    }
  }
}

/**
 * The read of a file's next step, started as soon as the step before it was
 * handed over, so that it comes from the threadpool while the caller works on
 * that one (a stream would otherwise wait for each read: on a busy 2-core
 * machine ~0.8 ms a 256 KiB step, bench figure (a)). Taken when the caller
 * then asks for exactly that range, else left to finish and dropped. The
 * descriptor is closed only once it finished: a read in flight never lands on
 * a descriptor number reused by another open.
 */
interface ReadAhead {
  readonly offset: number
  readonly length: number
  done: boolean
  readonly waiters: Array<() => void>
  bytes: Buffer | undefined
  error: NodeJS.ErrnoException | undefined
}

/** Wait until `r` finished (looked at when the effect runs: it may finish between making the effect and running it). */
const waitFor = (r: ReadAhead): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (r.done) resume(Effect.void)
    else r.waiters.push(() => resume(Effect.void))
  })

const closeQuietly = (fd: number) => {
  try {
    fs.closeSync(fd)
  } catch {
    // already closed
  }
}

/**
 * The one place a source file is opened: read-only, `O_NOFOLLOW` (a symlink
 * put in its place is refused), `O_NONBLOCK` (a fifo put in its place never
 * blocks; `SourceNotRegularFile`), then `fstat` through the descriptor must show
 * the regular file that was authorized (device, inode, birth time). Answers
 * the open descriptor and its stat, or the error (the descriptor closed).
 */
const openChecked = (file: AuthorizedFile): { readonly fd: number; readonly stat: fs.Stats } | { readonly error: SourceAccessError } => {
  let fd: number
  try {
    // O_NONBLOCK: a fifo put in the file's place must not block the open (it waits for a writer otherwise);
    // it changes nothing for a regular file's reads.
    fd = fs.openSync(file.path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  } catch (e) {
    return { error: fsError(file.path, e) }
  }
  try {
    const st = fs.fstatSync(fd)
    if (st.isFile() && sameFile(file.stat, st)) return { fd, stat: st }
    if (!st.isFile()) {
      closeQuietly(fd)
      return {
        error: new SourceNotRegularFile({
          message: `${file.path} was replaced by a ${st.isDirectory() ? "folder" : st.isFIFO() ? "fifo" : st.isSocket() ? "socket" : "device"} after it was authorized; it was not read.`,
          remediation: "Put the regular file back, or leave it out of the roots."
        })
      }
    }
    closeQuietly(fd)
    return { error: replaced(file) }
  } catch (e) {
    closeQuietly(fd)
    return { error: fsError(file.path, e) }
  }
}

/**
 * Open read-only with `O_NOFOLLOW` and check identity. Open, fstat and close
 * are synchronous calls (microseconds each): `fs/promises` FileHandles cost
 * more in bookkeeping than the syscalls themselves (measured: discovery of
 * 2,000 logs spent most of its time in FileHandle open / fstat / read / close).
 */
const open = (file: AuthorizedFile): Effect.Effect<OpenSource, SourceAccessError, import("effect/Scope").Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const opened = openChecked(file)
      return "fd" in opened ? Effect.succeed({ fd: opened.fd, reads: reader(file.path, opened.fd) }) : Effect.fail(opened.error)
    }),
    ({ reads }) => Effect.sync(() => reads.close())
  ).pipe(
    Effect.map(({ fd, reads }): OpenSource => ({
      file,
      read: reads.read,
      stat: attemptSync(file.path, () => toStat(fs.fstatSync(fd)))
    }))
  )

/** Open, check identity, read the head (into `scratch` when given) and close, in plain code: the head or the error. */
const headNow = (file: AuthorizedFile, length: number, scratch?: Uint8Array): Either.Either<Head, SourceAccessError> => {
  const opened = openChecked(file)
  if (!("fd" in opened)) return Either.left(opened.error)
  try {
    return Either.right({ bytes: readFully(opened.fd, 0, length, scratch, opened.stat.size), statAtOpen: toStat(opened.stat) })
  } catch (e) {
    return Either.left(fsError(file.path, e))
  } finally {
    closeQuietly(opened.fd)
  }
}

/**
 * Open, check identity, read the head (into `scratch` when given) and close,
 * all synchronous (one `Effect` for the four calls): discovery settles most
 * logs with their head.
 */
const readHead = (file: AuthorizedFile, length: number, scratch?: Uint8Array): Effect.Effect<Head, SourceAccessError> =>
  Effect.suspend(() => {
    const head = headNow(file, length, scratch)
    return head._tag === "Right" ? Effect.succeed(head.right) : Effect.fail(head.left)
  })

/**
 * `SourceAccessShape.readHeads`: {@link headNow} per file in one effect, no effect per file. Called on a layer made of
 * this one with another `readHead` (a spread with its own, as a test's recording layer is), each head is read through
 * that `readHead`, so what it records or changes still holds.
 */
function readHeads(
  this: SourceAccessShape | undefined,
  from: number,
  until: number,
  at: (i: number) => { readonly file: AuthorizedFile; readonly length: number },
  scratch: Uint8Array,
  onHead: (i: number, head: Either.Either<Head, SourceAccessError>) => boolean
): Effect.Effect<number> {
  const own = this === undefined || this === null || this.readHead === readHead
  if (!own) {
    const other = this.readHead
    return Effect.gen(function*() {
      for (let i = from; i < until; i++) {
        const { file, length } = at(i)
        if (!onHead(i, yield* Effect.either(other(file, length, scratch)))) return i + 1
      }
      return until
    })
  }
  return Effect.sync(() => {
    for (let i = from; i < until; i++) {
      const { file, length } = at(i)
      if (!onHead(i, headNow(file, length, scratch))) return i + 1
    }
    return until
  })
}

/**
 * How {@link headListedNow} opens a listed path: read-only, no symlink follow (a symlink fails with `ELOOP`), no
 * blocking (a fifo opens at once, and is then closed unread), and never made the controlling terminal (a tty).
 */
const LISTED_OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK | (fs.constants.O_NOCTTY ?? 0)

/** What an `lstat` of a listed path says, after its open failed (see {@link headListedNow}); `openError`: the open's. */
const listedAfterOpenError = (path: string, openError: unknown): Either.Either<ListedHead, SourceAccessError> => {
  const probed = probeNow(path)
  if (probed._tag === "Left") return Either.right({ _tag: "Unlistable", error: probed.left })
  if (Option.isNone(probed.right)) return Either.right({ _tag: "None" })
  const kind = probed.right.value.kind
  // A regular file there: the open's own error (permission denied, an I/O error) is the file's.
  return kind === "file" ? Either.left(fsError(path, openError)) : Either.right({ _tag: "NotFile", kind })
}

/**
 * Open a listed path (see {@link LISTED_OPEN_FLAGS}), `fstat` it, and read the head of a regular file (into `scratch`
 * when given), in plain code: no `lstat` before (what is there is told by the descriptor's stat, and by an `lstat`
 * only when the open fails). Anything but a regular file is closed unread.
 */
const headListedNow = (listed: ListedPath, scratch?: Uint8Array): Either.Either<ListedHead, SourceAccessError> => {
  const path = listed.path
  let fd: number
  try {
    fd = fs.openSync(path, LISTED_OPEN_FLAGS)
  } catch (e) {
    return listedAfterOpenError(path, e)
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) return Either.right({ _tag: "NotFile", kind: st.isDirectory() ? "directory" : "other" })
    const stat = toStat(st)
    const bytes = readFully(fd, 0, listed.length(st.size), scratch, st.size)
    return Either.right({ _tag: "Head", file: { path, root: listed.root, stat }, head: { bytes, statAtOpen: stat } })
  } catch (e) {
    return Either.left(fsError(path, e))
  } finally {
    closeQuietly(fd)
  }
}

/**
 * `SourceAccessShape.readListedHeads`: {@link headListedNow} per path in one effect. Called on a layer made of this
 * one with another `probe` or `readHead` (a test's recording layer), each path is probed, then its head read, through
 * them, as discovery did before it read listed paths without a probe.
 */
function readListedHeads(
  this: SourceAccessShape | undefined,
  from: number,
  until: number,
  at: (i: number) => ListedPath,
  scratch: Uint8Array,
  onHead: (i: number, head: Either.Either<ListedHead, SourceAccessError>) => boolean,
  ahead?: ListedHeadsAhead
): Effect.Effect<number> {
  const own = this === undefined || this === null || (this.readHead === readHead && this.probe === probe)
  if (own && ahead instanceof HeadsAhead) {
    return Effect.sync(() => {
      for (let i = from; i < until; i++) if (!onHead(i, ahead.headAt(i, at(i), scratch))) return i + 1
      return until
    })
  }
  if (!own) {
    const self = this
    return Effect.gen(function*() {
      for (let i = from; i < until; i++) {
        const listed = at(i)
        const probed = yield* Effect.either(self.probe(listed.path))
        let answer: Either.Either<ListedHead, SourceAccessError>
        if (probed._tag === "Left") answer = Either.right({ _tag: "Unlistable", error: probed.left })
        else if (Option.isNone(probed.right)) answer = Either.right({ _tag: "None" })
        else if (probed.right.value.kind !== "file") {
          answer = Either.right({ _tag: "NotFile", kind: probed.right.value.kind as "symlink" | "directory" | "other" })
        } else {
          const file: AuthorizedFile = { path: listed.path, root: listed.root, stat: probed.right.value.stat }
          const head = yield* Effect.either(self.readHead(file, listed.length(file.stat.size), scratch))
          answer = Either.map(head, (h): ListedHead => ({ _tag: "Head", file, head: h }))
        }
        if (!onHead(i, answer)) return i + 1
      }
      return until
    })
  }
  return Effect.sync(() => {
    for (let i = from; i < until; i++) if (!onHead(i, headListedNow(at(i), scratch))) return i + 1
    return until
  })
}

const readWhole = (
  file: AuthorizedFile,
  maxBytes: number
): Effect.Effect<Uint8Array, SourceAccessError | ResourceLimitExceeded> =>
  Effect.scoped(
    Effect.gen(function*() {
      const src = yield* open(file)
      const st = yield* src.stat
      if (st.size > maxBytes) {
        return yield* new ResourceLimitExceeded({
          message: `${file.path} is ${st.size} bytes, over the import limit of ${maxBytes} bytes per document.`,
          remediation: raiseLimitRemedy("maxDocumentBytes", "or split the source."),
          details: { limit: "maxDocumentBytes", bytes: st.size, max: maxBytes }
        })
      }
      // Read one byte past the size seen, to notice growth past the limit.
      const bytes = yield* src.read(0, Math.min(st.size + 1, maxBytes + 1))
      if (bytes.length > maxBytes) {
        return yield* new ResourceLimitExceeded({
          message: `${file.path} grew past the import limit of ${maxBytes} bytes per document.`,
          remediation: raiseLimitRemedy("maxDocumentBytes", "or split the source."),
          details: { limit: "maxDocumentBytes", max: maxBytes }
        })
      }
      return bytes
    })
  )

/** What a directory entry or an `lstat` is, never following a symlink. */
const kindOf = (s: fs.Stats | fs.Dirent): DirEntry["kind"] =>
  s.isSymbolicLink() ? "symlink" : s.isDirectory() ? "directory" : s.isFile() ? "file" : "other"

const listDirectory = (dir: string): Effect.Effect<ReadonlyArray<DirEntry>, SourceAccessError> =>
  attemptSync(dir, () => fs.readdirSync(dir, { withFileTypes: true })).pipe(
    Effect.map((entries) =>
      entries
        .map((d): DirEntry => ({ name: d.name, kind: kindOf(d) }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    )
  )

/** One `lstat`, in one effect: enumeration probes thousands of paths (a synchronous call: no threadpool round trip). */
const probe = (path: string): Effect.Effect<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: FileStat }>, SourceAccessError> =>
  Effect.suspend(() => {
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(path, { throwIfNoEntry: false })
    } catch (e) {
      return Effect.fail(fsError(path, e))
    }
    return Effect.succeed(st === undefined ? Option.none() : Option.some({ kind: kindOf(st), stat: toStat(st) }))
  })

/**
 * Files up to this size (bytes) are copied by `copyTo` in one synchronous call
 * (`copyFileSync`), longer ones on the thread pool (`fs.promises.copyFile`).
 * Issue 13: an AgentMux rescan copies the store's `-wal` (a few MiB at most
 * between AgentMux's checkpoints); the thread pool's first use in a process
 * and its round trip cost that rescan about 4 ms of CPU and up to 20 ms of
 * wall time on a loaded 2-core machine, the synchronous copy 2-4 ms. A copy of
 * this size blocks the event loop for a few ms at most; a whole store (the
 * first scan's copy, hundreds of MB) still goes to the thread pool.
 */
export const SYNC_COPY_MAX_BYTES = 8 * 1024 * 1024

const COPY_FLAGS = fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE

/** The answer of one {@link probe} made in plain code: its `lstat`, its kind and stat, or its error. */
const probeNow = (path: string): Either.Either<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: FileStat }>, SourceAccessError> => {
  let st: fs.Stats | undefined
  try {
    st = fs.lstatSync(path, { throwIfNoEntry: false })
  } catch (e) {
    return Either.left(fsError(path, e))
  }
  return Either.right(st === undefined ? Option.none() : Option.some({ kind: kindOf(st), stat: toStat(st) }))
}

/**
 * `SourceAccessShape.probeAll`: one `lstat` per path in one effect, no effect per path. Called on a layer made of
 * this one with another `probe` (a spread with its own, as a test's recording layer is), each path goes through that
 * `probe`, so what it records or changes still holds.
 */
function probeAll(
  this: SourceAccessShape | undefined,
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Either.Either<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: FileStat }>, SourceAccessError>>> {
  const own = this === undefined || this === null || this.probe === probe
  if (!own) {
    const other = this.probe
    return Effect.forEach(paths, (p) => Effect.either(other(p)))
  }
  return Effect.sync(() => paths.map(probeNow))
}

const copyTo = (path: string, dest: string): Effect.Effect<void, SourceAccessError> =>
  Effect.flatMap(
    attemptSync(path, () => fs.lstatSync(path)),
    (st) =>
      st.isFile()
        ? st.size <= SYNC_COPY_MAX_BYTES
          ? attemptSync(path, () => fs.copyFileSync(path, dest, COPY_FLAGS))
          : Effect.tryPromise({
            try: () => fs.promises.copyFile(path, dest, COPY_FLAGS),
            catch: (e) => fsError(path, e)
          })
        : Effect.fail(
          st.isSymbolicLink()
            ? fsError(path, Object.assign(new Error("symlink"), { code: "ELOOP" }))
            : new SourceNotRegularFile({ message: `${path} is not a regular file.`, remediation: "Pass the path of a regular file." })
        )
  )

/** Slots of the ring the head reader worker fills ahead of the main thread (each `maxBytes`: 8 KiB for discovery). */
const HEAD_SLOTS = 64

/** The fewest listed paths worth a head reader worker (its start costs ~10-20 ms of processor time on its own thread). */
export const MIN_LISTED_FOR_HEAD_WORKER = 256

/**
 * How long the main thread waits for a head the worker took and has not answered yet (ms) before it reads that log
 * itself (the worker's answer is then not used): a worker that runs answers within tens of microseconds; one that
 * the system has paused (a busy machine), or that hangs, would otherwise hold the main thread.
 */
const HEAD_WAIT_MS = 0.2

/** Heads answered by the head reader worker and read again by the main thread, in this process (tests read them). */
export const headWorkerStats = { fromWorker: 0, inThread: 0, started: 0 }

/**
 * The fewest listed paths for which {@link listedHeadsAhead} starts its
 * worker: `SESSION_INGEST_HEAD_WORKER` unset, {@link MIN_LISTED_FOR_HEAD_WORKER};
 * `0` (or anything not a positive integer), never; `N`, from `N` paths.
 */
export const headWorkerMinimum = (env: Readonly<Record<string, string | undefined>>): number => {
  const v = env.SESSION_INGEST_HEAD_WORKER
  if (v === undefined) return MIN_LISTED_FOR_HEAD_WORKER
  const n = Number(v)
  return Number.isInteger(n) && n > 0 ? n : Infinity
}

/**
 * The head reader worker's entry: `head-reader-worker.cjs` beside the CLI
 * bundle (`dist/`), else the TypeScript entry's tsx shim beside this module
 * when it runs from `src/`; null when there is none (a bundle copied without
 * it, or bundled elsewhere: the heads are then read in the main thread).
 */
export const headWorkerEntry = (): string | null => {
  const candidates: Array<string> = []
  if (typeof __filename === "string" && __filename.endsWith(".cjs")) {
    candidates.push(nodePath.join(nodePath.dirname(__filename), "head-reader-worker.cjs"))
  } else {
    try {
      candidates.push(nodePath.join(nodePath.dirname(fileURLToPath(import.meta.url)), "head-reader-worker-tsx.mjs"))
    } catch {
      // no module URL (a CommonJS bundle)
    }
  }
  return candidates.find((c) => fs.existsSync(c)) ?? null
}

/**
 * Heads of `paths` (listed paths, in order) read ahead by the head reader
 * worker started from `entry`, up to `maxBytes` each (see
 * `./head-reader-protocol.ts`); made by {@link listedHeadsAhead}, exported for
 * tests (a worker that cannot load, or stalls). The main thread asks for them in order
 * ({@link headAt}); each is taken by whoever reaches it first: the worker
 * (ahead of the main thread, a ring of {@link HEAD_SLOTS}), or the main
 * thread itself, which then reads it in its own thread as without a worker
 * (while the worker starts, when it is behind, or once it was stopped); a log
 * the worker took but has not answered within {@link HEAD_WAIT_MS} is read by
 * the main thread too (the worker's later answer lands in a slot no one reads
 * for that log).
 */
export class HeadsAhead implements ListedHeadsAhead {
  readonly _tag = "ListedHeadsAhead" as const
  readonly #views: ReturnType<typeof headReaderViews>
  readonly #shared: SharedArrayBuffer
  readonly #dataOffset: number
  #worker: Worker | undefined
  #stopped = false

  constructor(readonly paths: ReadonlyArray<string>, readonly maxBytes: number, entry: string) {
    this.#shared = new SharedArrayBuffer(headReaderBytes(HEAD_SLOTS, maxBytes))
    this.#views = headReaderViews(this.#shared, HEAD_SLOTS, maxBytes)
    this.#dataOffset = this.#views.data.byteOffset
    const data: HeadReaderData = { paths, shared: this.#shared, slots: HEAD_SLOTS, maxBytes }
    try {
      const worker = new Worker(entry, { workerData: data })
      // A worker that cannot load (or fails) takes nothing more: the main thread reads what is left.
      worker.on("error", () => this.stop())
      worker.unref()
      this.#worker = worker
      headWorkerStats.started++
    } catch {
      this.#stopped = true
    }
  }

  /** How many paths are taken (by the worker or the main thread): the worker takes up to {@link HEAD_SLOTS} ahead. */
  taken(): number {
    return Atomics.load(this.#views.control, CLAIM)
  }

  /** Stop the worker (it takes no more paths); the main thread reads the rest. */
  stop(): void {
    if (this.#worker === undefined && this.#stopped) return
    this.#stopped = true
    Atomics.store(this.#views.control, STOP, 1)
    Atomics.notify(this.#views.control, CONSUMED)
    const worker = this.#worker
    this.#worker = undefined
    if (worker !== undefined) void worker.terminate().catch(() => undefined)
  }

  /**
   * The head of listed path `i` (`listed`), the heads before it being done
   * with (their slots may be written again): the worker's answer when it took
   * it and read a regular file, else read here as {@link headListedNow} does.
   */
  headAt(i: number, listed: ListedPath, scratch: Uint8Array): Either.Either<ListedHead, SourceAccessError> {
    const { control, ready } = this.#views
    Atomics.store(control, CONSUMED, i)
    Atomics.notify(control, CONSUMED)
    if (!this.#stopped) {
      // Not taken yet (the worker is starting, or behind): read here.
      if (Atomics.load(control, CLAIM) === i && Atomics.compareExchange(control, CLAIM, i, i + 1) === i) {
        headWorkerStats.inThread++
        return headListedNow(listed, scratch)
      }
      const slot = i % HEAD_SLOTS
      const deadline = performance.now() + HEAD_WAIT_MS
      for (;;) {
        const mark = Atomics.load(ready, slot)
        if (mark === i + 1) break
        const left = deadline - performance.now()
        if (left <= 0) break
        Atomics.wait(ready, slot, mark, left)
      }
      if (Atomics.load(ready, slot) === i + 1) {
        const head = this.#fromSlot(slot, listed)
        if (head !== undefined) {
          headWorkerStats.fromWorker++
          return head
        }
      }
    }
    headWorkerStats.inThread++
    return headListedNow(listed, scratch)
  }

  /**
   * The worker's answer in `slot` as {@link headListedNow} answers it: a
   * regular file's head of `listed.length(size)` bytes (or all it read when
   * that reached the end of the file); undefined when it is to be read here.
   */
  #fromSlot(slot: number, listed: ListedPath): Either.Either<ListedHead, SourceAccessError> | undefined {
    const meta = this.#views.meta
    const m = slot * META_FIELDS
    if (meta[m + META_STATUS] !== STATUS_HEAD) return undefined
    const size = meta[m + META_SIZE]
    const got = meta[m + META_GOT]
    const length = listed.length(size)
    const take = length <= got ? length : meta[m + META_ENDED] === 1 ? got : -1
    if (take < 0) return undefined
    // The same fields, in the same order, as `toStat` of the descriptor's stat.
    const stat: FileStat = {
      size,
      mtimeMs: meta[m + META_MTIME],
      birthtimeMs: meta[m + META_BIRTHTIME],
      ctimeMs: meta[m + META_CTIME],
      dev: meta[m + META_DEV],
      ino: meta[m + META_INO]
    }
    const bytes = Buffer.from(this.#shared, this.#dataOffset + slot * this.maxBytes, take)
    return Either.right({ _tag: "Head", file: { path: listed.path, root: listed.root, stat }, head: { bytes, statAtOpen: stat } })
  }
}

/**
 * `SourceAccessShape.listedHeadsAhead`: a {@link HeadsAhead} of the `count`
 * paths when there are at least {@link headWorkerMinimum} of them and a
 * worker entry; stopped when the scope closes. Undefined on a layer made of
 * this one with its own `readHead` or `probe` (their reads must be theirs).
 */
function listedHeadsAhead(
  this: SourceAccessShape | undefined,
  count: number,
  at: (i: number) => ListedPath,
  maxBytes: number
): Effect.Effect<ListedHeadsAhead | undefined, never, import("effect/Scope").Scope> {
  const own = this === undefined || this === null || (this.readHead === readHead && this.probe === probe)
  if (!own || count < headWorkerMinimum(process.env)) return Effect.succeed(undefined)
  return Effect.suspend(() => {
    const entry = headWorkerEntry()
    if (entry === null) return Effect.succeed(undefined)
    return Effect.acquireRelease(
      Effect.sync(() => {
        const paths = new Array<string>(count)
        for (let i = 0; i < count; i++) paths[i] = at(i).path
        return new HeadsAhead(paths, maxBytes, entry)
      }),
      (h) => Effect.sync(() => h.stop())
    )
  })
}

/** The Node implementation of the service's operations. */
export const sourceAccessNode: SourceAccessShape = {
  authorizeFile,
  authorizeRoot,
  open,
  readHead,
  readHeads,
  readListedHeads,
  listedHeadsAhead,
  readWhole,
  listDirectory,
  probe,
  probeAll,
  copyTo
}

/** Layer: {@link SourceAccess} on the Node filesystem. */
export const layer: Layer.Layer<SourceAccess> = Layer.succeed(SourceAccess, sourceAccessNode)
