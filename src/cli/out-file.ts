/**
 * `--out FILE`: a new file, written whole or not at all. The bytes go to a
 * temporary file in the same folder (`.<name>.<pid>-<random>.tmp`), which is
 * flushed to disk and then published under the name with a hard link, which
 * fails rather than replace a file that appeared meanwhile (a rename would
 * replace it). On any failure (a full disk, an I/O error) or interruption
 * (Ctrl-C), the temporary file is removed: nothing is left at the path, and
 * running the command again works.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
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

/**
 * Refuse an `--out` path that already exists (`InvalidArgument`), before
 * anything is read or written.
 */
export const checkNewFile = (out: string): Effect.Effect<void, InvalidArgument> =>
  Effect.suspend(() => fs.lstatSync(out, { throwIfNoEntry: false }) !== undefined ? Effect.fail(exists(out)) : Effect.void)

const writeAll = (fd: number, bytes: Uint8Array) => {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at)
}

/**
 * Write `chunks` to the new file `out` (see the module doc). Fails with
 * `InvalidArgument` when `out` exists (before or, raced, at the end),
 * `OutputWriteFailed` when a write fails, or the stream's own error; in every
 * case, and when interrupted, nothing is left at `out` nor beside it.
 */
export const writeNewFile = <E, R>(
  out: string,
  chunks: Stream.Stream<Uint8Array, E, R>
): Effect.Effect<void, E | InvalidArgument | OutputWriteFailed, R> =>
  Effect.gen(function*() {
    yield* checkNewFile(out)
    const tmp = nodePath.join(
      nodePath.dirname(out),
      `.${nodePath.basename(out)}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`
    )
    yield* Effect.scoped(Effect.gen(function*() {
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
      yield* Stream.runForEach(
        chunks,
        (bytes) => Effect.try({ try: () => writeAll(fd, bytes), catch: (e) => writeFailed(out, e) })
      )
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
    }))
  })
