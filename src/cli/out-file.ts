/**
 * `--out FILE`: a new file, written whole or not at all, through a `Sink`
 * ({@link newFileSink}). The bytes go to a
 * temporary file in the same folder (`.<name>.<pid>-<random>.tmp`), which is
 * flushed to disk and then published under the name with a hard link, which
 * fails rather than replace a file that appeared meanwhile (a rename would
 * replace it). On any failure (a full disk, an I/O error) or interruption
 * (Ctrl-C), the temporary file is removed: nothing is left at the path, and
 * running the command again works. A process killed outright (`kill -9`)
 * cannot clean up: the next `--out` write to the same folder removes such
 * leftovers ({@link removeLeftovers}).
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { InvalidArgument, OutputWriteFailed } from "../domain/errors.js"
import { classify, describe } from "../layers/store-failure.js"

/** The `OutputWriteFailed` of a failed write of `out`: the errno, the path, and a remedy fitting the cause. */
export const writeFailed = (out: string, cause: unknown): OutputWriteFailed => {
  const f = classify(cause, out)
  const dir = nodePath.dirname(out)
  const [problem, remediation] = f.code === "ENOENT"
    ? [`its folder ${dir} does not exist`, `Create ${dir}, or pass --out with a file in an existing folder.`]
    : f.code === "EISDIR"
    ? ["it is a folder", "Pass --out with a file name, not a folder."]
    : f.code === "ENOTDIR"
    ? [`its folder path ${dir} goes through a file, not a folder`, `Pass --out with a file in an existing folder (a part of ${dir} is a file).`]
    : f.code === "EFBIG"
    ? ["the file-size limit was reached", `Raise the file-size limit (\`ulimit -f\`), or pass --out with a file on a disk it allows; then run the same command again.`]
    : f.kind === "disk-full"
    ? [
      "the disk is full",
      `Free space on the disk that holds ${dir}, or pass --out with a file on another disk; then run the same command again.`
    ]
    : f.kind === "read-only"
    ? ["its folder is read-only or not writable by you", "Pass --out with a file in a folder you can write to."]
    : f.kind === "io"
    ? ["I/O error", `Check the disk that holds ${dir}, or pass --out with a file on another disk; then run the same command again.`]
    : ["the write failed", "Pass --out with a new file in a folder you can write to, then run the same command again."]
  return new OutputWriteFailed({
    message: `Cannot write ${out}: ${problem} (${describe(f)}); nothing was left at that path.`,
    remediation,
    details: { path: out, reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}) }
  })
}

const exists = (out: string) =>
  new InvalidArgument({
    message: `${out} already exists; --out never overwrites a file.`,
    remediation: "Pass --out with a new file name (or move the existing file away first)."
  })

/** `--out` names an existing folder (tester23c F6): it takes a file's path, not a folder to write into. */
const isFolder = (out: string) =>
  new InvalidArgument({
    message: `${out} is a folder; --out takes a file path (a new file), not a folder.`,
    remediation: `Pass --out with the path of a new file, e.g. ${nodePath.join(out, "<file name>")}.`
  })

/**
 * Refuse an `--out` path that already exists (`InvalidArgument`: a file is never
 * overwritten; a folder is named as one), before anything is read or written;
 * a path that cannot even be looked at (a part of its folder path is a file:
 * `ENOTDIR`; a folder you may not enter: `EACCES`) is `OutputWriteFailed`
 * naming the path and the errno, as a failed write is (tester40 F1: it was a
 * STORE_UNAVAILABLE, exit 6, whose remedy named --index and --state).
 */
export const checkNewFile = (out: string): Effect.Effect<void, InvalidArgument | OutputWriteFailed> =>
  Effect.suspend((): Effect.Effect<void, InvalidArgument | OutputWriteFailed> => {
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(out, { throwIfNoEntry: false })
    } catch (e) {
      return Effect.fail(writeFailed(out, e))
    }
    return st === undefined ? Effect.void : Effect.fail(st.isDirectory() ? isFolder(out) : exists(out))
  })

/** The temporary file's name for `name`, written by process `pid`: `.<name>.<pid>-<12 hex>.tmp`. */
const tempName = (name: string, pid: number, random: string): string => `.${name}.${pid}-${random}.tmp`

/** A name {@link tempName} gives (and no other): its pid. */
const TEMP_NAME = /^\..+\.([1-9][0-9]{0,9})-[0-9a-f]{12}\.tmp$/

/** True when a process `pid` runs (or may: one of another user, `EPERM`). */
const running = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * Remove from `dir` the temporary files an `--out` write of an earlier run
 * left there because that process was killed with no chance to clean up
 * (`kill -9`, a power loss): regular files whose name is exactly one
 * {@link tempName} gives, and whose process is no longer running. Nothing
 * else is touched (another name, a symbolic link, a folder, the file of a
 * process still running). Best effort: a file that cannot be removed, or a
 * folder that cannot be read, is left as it is.
 */
export const removeLeftovers = (dir: string): void => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name)
    if (m === null || running(Number(m[1]))) continue
    const file = nodePath.join(dir, name)
    try {
      if (fs.lstatSync(file).isFile()) fs.unlinkSync(file)
    } catch {
      // gone already, or not ours to remove
    }
  }
}

const writeAll = (fd: number, bytes: Uint8Array) => {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at)
}

/**
 * A `Sink` of bytes into the new file `out` (see the module doc): it refuses
 * an `out` that exists (`InvalidArgument`) before it takes a byte, and again,
 * raced, when it publishes the file; a failed write is `OutputWriteFailed`
 * (errno, path). A stream that fails into it, or an interruption, leaves
 * nothing at `out` nor beside it.
 *
 * `FileSystem.sink(out, { flag: "wx" })` is the model, and this keeps its
 * promise (never over an existing file) and adds whole-or-nothing: "wx" on
 * `out` itself would leave a partial file there when the stream fails, the
 * disk fills or Ctrl-C comes midway, and the user's next run would then be
 * refused. So the bytes go to a temporary file, opened "wx" beside `out`,
 * which a hard link publishes when the stream has ended and the data is on
 * disk. Node's `fs` calls (not `FileSystem`) keep the errno that
 * `OutputWriteFailed` names (`ENOSPC`, `EROFS`, …).
 */
export const newFileSink = (out: string): Sink.Sink<void, Uint8Array, never, InvalidArgument | OutputWriteFailed> =>
  Sink.unwrapScoped(Effect.gen(function*() {
    yield* checkNewFile(out)
    removeLeftovers(nodePath.dirname(out))
    const tmp = nodePath.join(nodePath.dirname(out), tempName(nodePath.basename(out), process.pid, randomBytes(6).toString("hex")))
    // Released when the sink is done, whichever way: the temporary name goes (a published file keeps its link).
    const fd = yield* Effect.acquireRelease(
      Effect.try({ try: () => fs.openSync(tmp, "wx"), catch: (e) => writeFailed(out, e) }),
      (fd) =>
        Effect.sync(() => {
          try {
            fs.closeSync(fd)
          } catch {
            // closed already
          }
          fs.rmSync(tmp, { force: true })
        })
    )
    const write = Sink.forEachChunk((chunk: Chunk.Chunk<Uint8Array>) =>
      Effect.try({
        try: () => {
          for (const bytes of chunk) writeAll(fd, bytes)
        },
        catch: (e) => writeFailed(out, e)
      })
    )
    return Sink.mapEffect(write, () => publish(fd, tmp, out))
  }))

/** Flush the temporary file `tmp` to disk and link it as `out`, never over a file that appeared there meanwhile. */
const publish = (fd: number, tmp: string, out: string): Effect.Effect<void, InvalidArgument | OutputWriteFailed> =>
  Effect.gen(function*() {
    // A full disk may only show when the data is flushed (network and some local file systems).
    yield* Effect.try({ try: () => fs.fsyncSync(fd), catch: (e) => writeFailed(out, e) })
    yield* Effect.try({
      try: () => {
        try {
          fs.linkSync(tmp, out)
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code
          // No hard links here (some FUSE / FAT file systems): a rename, after a last check.
          if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e
          if (fs.lstatSync(out, { throwIfNoEntry: false }) !== undefined) throw Object.assign(new Error("exists"), { code: "EEXIST" })
          fs.renameSync(tmp, out)
        }
      },
      catch: (e) => (e as NodeJS.ErrnoException).code === "EEXIST" ? exists(out) : writeFailed(out, e)
    })
  })

/**
 * Write `chunks` to the new file `out`: the stream run into
 * {@link newFileSink}. Fails with `InvalidArgument` when `out` exists
 * (before or, raced, at the end), `OutputWriteFailed` when a write fails, or
 * the stream's own error; in every case, and when interrupted, nothing is
 * left at `out` nor beside it.
 */
export const writeNewFile = <E, R>(
  out: string,
  chunks: Stream.Stream<Uint8Array, E, R>
): Effect.Effect<void, E | InvalidArgument | OutputWriteFailed, R> => Stream.run(chunks, newFileSink(out))
