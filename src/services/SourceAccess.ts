/**
 * Authorized, read-only access to source files. Every provider opens files
 * through this service, so the access rules hold everywhere: a source must be
 * a regular file, reached without symlinks, whose real path lies inside an
 * authorized root; it is opened read-only and never written.
 *
 * @module
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { ResourceLimitExceeded, SourceAccessError } from "../domain/errors.js"

/** Identity and size of a file at one moment (bytes, epoch ms; `ctimeMs`: the last change of content or metadata). */
export interface FileStat {
  readonly size: number
  readonly mtimeMs: number
  readonly birthtimeMs: number
  readonly ctimeMs: number
  readonly dev: number
  readonly ino: number
}

/** A file that passed authorization. `path` is its real path; `root` the real path of the root that covers it. */
export interface AuthorizedFile {
  readonly path: string
  readonly root: string
  readonly stat: FileStat
}

/** What {@link SourceAccessShape.readHead} answers: a file's first bytes and its stat when it was opened. */
export interface Head {
  readonly bytes: Uint8Array
  readonly statAtOpen: FileStat
}

/**
 * What {@link SourceAccessShape.readListedHeads} found at a path that a
 * listing named (a log's place in a layout), without an `lstat` first:
 * - `Head`: a regular file, authorized by the listing (its stat is the one of
 *   the open descriptor), with its head;
 * - `NotFile`: a symlink, folder, fifo, socket or device there (never read);
 * - `None`: nothing there;
 * - `Unlistable`: what is there could not be looked at (the folder holding it
 *   cannot be searched), with the error.
 */
export type ListedHead =
  | { readonly _tag: "Head"; readonly file: AuthorizedFile; readonly head: Head }
  | { readonly _tag: "NotFile"; readonly kind: "symlink" | "directory" | "other" }
  | { readonly _tag: "None" }
  | { readonly _tag: "Unlistable"; readonly error: SourceAccessError }

/** A path named by a listing under an authorized real root, and how many head bytes to read of it given its size when opened. */
export interface ListedPath {
  readonly path: string
  readonly root: string
  readonly length: (sizeAtOpen: number) => number
}

/** Heads of listed paths read ahead on another thread (`SourceAccessShape.listedHeadsAhead`); opaque to callers. */
export interface ListedHeadsAhead {
  readonly _tag: "ListedHeadsAhead"
}

/** An open, read-only handle on an authorized file. */
export interface OpenSource {
  readonly file: AuthorizedFile
  /** Read up to `length` bytes at `offset`; shorter (possibly empty) at end of file. */
  readonly read: (offset: number, length: number) => Effect.Effect<Uint8Array, SourceAccessError>
  /** The file's current stat, through the open handle (sees growth and truncation). */
  readonly stat: Effect.Effect<FileStat, SourceAccessError>
}

/** A directory entry as the directory lists it: symlinks are reported, never followed. */
export interface DirEntry {
  readonly name: string
  readonly kind: "file" | "directory" | "symlink" | "other"
}

/** The service's operations. */
export interface SourceAccessShape {
  /**
   * Authorize `path` (absolute or relative to the working directory) against
   * `roots`. Fails: `SourceNotAuthorized` (no roots), `SourceNotFound`,
   * `SourceSymlink` (the file or a folder between the root and it),
   * `SourceNotRegularFile`, `SourceOutsideAllowedRoot`.
   */
  readonly authorizeFile: (
    path: string,
    roots: ReadonlyArray<string>,
    /** How the operator authorizes a root for this kind of source (e.g. `--agents-root DIR`), for remediations. */
    rootOption?: string
  ) => Effect.Effect<AuthorizedFile, SourceAccessError>
  /**
   * Authorize a root folder: it must exist and be a directory (a symlinked
   * root is resolved, as an operator may keep data behind one); answers its real path.
   */
  readonly authorizeRoot: (root: string) => Effect.Effect<string, SourceAccessError>
  /**
   * Open an authorized file read-only (no symlink follow), checking it is
   * still the same file (device and inode) that was authorized.
   */
  readonly open: (file: AuthorizedFile) => Effect.Effect<OpenSource, SourceAccessError, Scope.Scope>
  /**
   * Read the first bytes of an authorized file in one step: open it read-only
   * (no symlink follow), check it is still the same file, read up to `length`
   * bytes from offset 0, close it. Answers the bytes (fewer at the end of the
   * file) and the file's stat when it was opened. For callers that often need
   * only the head (discovery), without holding the file open in a scope.
   * `scratch` (optional, at least `length` bytes): read into it instead of a
   * new buffer; the answer's bytes are then a view of it, valid until the
   * caller reuses it (discovery reads thousands of heads into one buffer).
   */
  readonly readHead: (
    file: AuthorizedFile,
    length: number,
    scratch?: Uint8Array
  ) => Effect.Effect<Head, SourceAccessError>
  /**
   * {@link readHead} of many files one after another, in one effect, each
   * into `scratch` (at least as long as any `length`): for each index `i`
   * from `from` up to `until` (excluded), the head of `at(i).file` (up to
   * `at(i).length` bytes) or its error is handed to `onHead(i, head)` before
   * the next one is read (the bytes are a view of `scratch`, valid until
   * then); `onHead` answers whether to go on. Answers the index after the
   * last head read (`until` when all were). For discovery, which settles
   * most logs by their heads, without an effect per log (its round trip
   * through the fiber cost more than the four system calls of the read). A
   * layer made of another one with its own `readHead`
   * (`{ ...sourceAccessNode, readHead }`) has each head read through that
   * `readHead`.
   */
  readonly readHeads: (
    from: number,
    until: number,
    at: (i: number) => { readonly file: AuthorizedFile; readonly length: number },
    scratch: Uint8Array,
    onHead: (i: number, head: Either.Either<Head, SourceAccessError>) => boolean
  ) => Effect.Effect<number>
  /**
   * {@link readHeads} of paths that a listing named, without probing them
   * first (discovery of logs the index does not know: no `lstat` per log).
   * Each is opened read-only with no symlink follow and without blocking
   * (`O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`); the stat of the descriptor tells
   * what it is: a regular file has its head read (up to
   * `at(i).length(size)` bytes) and is handed on as a {@link ListedHead}
   * `Head`; anything else is closed unread (`NotFile`). An open that fails is
   * told apart by an `lstat` of the path (`None`, `NotFile`, `Unlistable`);
   * a regular file that cannot be opened or read is the error (`Left`). A
   * layer made of another one with its own `probe` or `readHead` has each
   * path probed, then read, through them.
   */
  readonly readListedHeads: (
    from: number,
    until: number,
    at: (i: number) => ListedPath,
    scratch: Uint8Array,
    onHead: (i: number, head: Either.Either<ListedHead, SourceAccessError>) => boolean,
    /** Heads read ahead by {@link listedHeadsAhead} for the same `at` (indices from 0, taken in order): used when given. */
    ahead?: ListedHeadsAhead
  ) => Effect.Effect<number>
  /**
   * Have the heads of the listed paths `at(0)` … `at(count - 1)` read ahead,
   * in order, on another thread, while the caller scans the ones before
   * (discovery of thousands of logs: their open, `fstat`, read and close are
   * about 40 % of the heads' time; issue 13 item 6). Answers the handle to
   * pass to {@link readListedHeads}, which must then be asked for these
   * indices in order, each once; or undefined when no thread is used (too few
   * paths, `SESSION_INGEST_HEAD_WORKER=0`, no worker entry, a layer made of
   * another with its own `probe` or `readHead`). The heads answered are the
   * same as without it: the other thread answers only regular files it read
   * whole up to `maxBytes` (at least as long as any `at(i).length`), and
   * {@link readListedHeads} opens anything else itself; when the thread cannot
   * start, is behind or stalls, the caller's thread reads those heads itself. The thread is
   * stopped when the `Scope` closes. Optional: a layer without it reads every
   * head in the caller's thread.
   */
  readonly listedHeadsAhead?: (
    count: number,
    at: (i: number) => ListedPath,
    maxBytes: number
  ) => Effect.Effect<ListedHeadsAhead | undefined, never, Scope.Scope>
  /** Read a whole authorized file; `ResourceLimitExceeded` past `maxBytes`. */
  readonly readWhole: (
    file: AuthorizedFile,
    maxBytes: number
  ) => Effect.Effect<Uint8Array, SourceAccessError | ResourceLimitExceeded>
  /** List a directory's entries without following symlinks (sorted by name). */
  readonly listDirectory: (dir: string) => Effect.Effect<ReadonlyArray<DirEntry>, SourceAccessError>
  /**
   * What is at `path`, without following a symlink: its kind and stat, or
   * none when nothing is there. A cheap probe for enumeration (one `lstat`).
   */
  readonly probe: (
    path: string
  ) => Effect.Effect<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: FileStat }>, SourceAccessError>
  /**
   * {@link probe} of every path of `paths`, in one effect: per path, in
   * order, its answer or its error (one path's error does not fail the
   * others). For enumeration of thousands of paths (a log per session,
   * the folder of its nested logs) without an effect per path. A layer made
   * of another one with its own `probe` (`{ ...sourceAccessNode, probe }`)
   * has each path asked through that `probe`.
   */
  readonly probeAll: (
    paths: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Either.Either<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: FileStat }>, SourceAccessError>>>
  /**
   * Copy the regular file at `path` (never a symlink or anything else) to
   * `dest`, a new file: refused when `dest` exists (it is never overwritten).
   * A reflink where the file system has one, else a byte copy. How a store
   * that may not be opened in place (an SQLite WAL store: opening it would
   * write its `-shm`) is read: from a private copy.
   */
  readonly copyTo: (path: string, dest: string) => Effect.Effect<void, SourceAccessError>
}

/** Authorized source access. Live layer: `src/layers/SourceAccessNode.ts`. */
export class SourceAccess extends Context.Tag("session-ingest/SourceAccess")<SourceAccess, SourceAccessShape>() {}
