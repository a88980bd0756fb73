/**
 * Prefix bindings: what tells the importer that the part of a file it already
 * imported is still the same, byte for byte. A binding is `<n>:<sha256 hex>`
 * of the file's first `n` bytes, `n` being where the import resumes (the
 * checkpoint cursor's offset) or, for a nested log, the end of its last
 * imported line.
 *
 * - While a source streams, {@link PrefixDigests} receives the bytes of every
 *   read (`StreamOptions.onRead`) and answers the binding at any offset the
 *   importer commits, so a first import reads each file once.
 * - Before a changed source resumes, {@link verifyPrefix} hashes its imported
 *   prefix again and compares: a change anywhere in it (same size or not,
 *   followed by an append or not) makes the source a new generation. The
 *   hash state it ends with seeds the stream's digest, so the check is the
 *   only extra read, and only of a source whose stat changed.
 *
 * Source: issue 11 ("a JSONL source rewritten in the middle"), docs/index.md "Generations".
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import type { SourceAccessError } from "../../domain/errors.js"
import { unreadableOf } from "../../domain/unreadable.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"

/** Bytes per read of {@link hashFile}. */
const STEP = 1024 * 1024

/** Pending bytes a {@link PrefixDigests} file keeps for offsets not yet asked for; past it, older ones are folded. */
const MAX_PENDING = 64 * 1024 * 1024

/** `<n>:<hex>`. */
const format = (n: number, hash: Hash): string => `${n}:${hash.digest("hex")}`

/** The byte count of a binding; -1 when it is not one. */
export const bindingLength = (binding: string): number => {
  const m = /^(\d+):[0-9a-f]{64}$/.exec(binding)
  const n = m === null ? -1 : Number(m[1])
  return Number.isSafeInteger(n) ? n : -1
}

/**
 * Continue `hash` over bytes `[from, to)` of the source file `path`, read a
 * step at a time through `SourceAccess` (the file authorized in its own
 * folder: a regular file reached without a symlink, its identity checked at
 * open; its root was checked when it was streamed). False when the file is
 * shorter, or is not what can be read as the source (gone, a symlink, not a
 * regular file, replaced while open). Fails when the file is there but its
 * bytes cannot be had (permission denied, an I/O error: an access error with
 * `UnreadableDetails`): that says nothing of its content.
 */
const hashRangeOrUnreadable = (
  access: SourceAccessShape,
  path: string,
  hash: Hash,
  from: number,
  to: number
): Effect.Effect<boolean, SourceAccessError> =>
  to <= from ? Effect.succeed(true) : Effect.scoped(
    Effect.gen(function*() {
      const src = yield* access.open(yield* access.authorizeFile(path, [nodePath.dirname(path)]))
      for (let at = from; at < to;) {
        const bytes = yield* src.read(at, Math.min(STEP, to - at))
        if (bytes.length === 0) return false
        hash.update(bytes)
        at += bytes.length
      }
      return true
    })
  ).pipe(Effect.catchAll((e) => (unreadableOf(e) !== undefined ? Effect.fail(e) : Effect.succeed(false))))

/** {@link hashRangeOrUnreadable}, false also when the file cannot be read (a binding that cannot be had is simply not given). */
const hashRange = (access: SourceAccessShape, path: string, hash: Hash, from: number, to: number): Effect.Effect<boolean> =>
  Effect.orElseSucceed(hashRangeOrUnreadable(access, path, hash, from, to), () => false)

/**
 * Check a binding against the file as it is now: hashes its first `n` bytes
 * (one sequential read, through `access`). Answers the hash state at `n` (to
 * continue from) when they match, or null when the file is shorter, differs,
 * or is no longer what can be read as the source (a symlink, not a regular
 * file). Fails, with the access error (its `details` are `UnreadableDetails`,
 * `../../domain/unreadable.ts`), when the file is there but cannot be read
 * (permission denied, an I/O error mid-file): a read that failed is never
 * taken as a changed prefix.
 */
export const verifyPrefix = (access: SourceAccessShape, path: string, binding: string): Effect.Effect<Hash | null, SourceAccessError> =>
  Effect.suspend(() => {
    const n = bindingLength(binding)
    if (n < 0) return Effect.succeed(null)
    const hash = createHash("sha256")
    return Effect.map(
      hashRangeOrUnreadable(access, path, hash, 0, n),
      (ok) => ok && `${n}:${hash.copy().digest("hex")}` === binding ? hash : null
    )
  })

/** The running digest of one file's reads. */
class FileDigest {
  /** Hash of `[0, end)`. */
  private end = 0
  private readonly hash: Hash
  /** Bytes read past `end`, contiguous from `pendingStart` (a gap `[end, pendingStart)` is read from the file when a binding is asked for). */
  private pending: Array<Uint8Array> = []
  private pendingStart = -1
  private pendingLen = 0
  /** The last binding answered, with the hash state at its `n` (for {@link PrefixDigests.stateAt}). */
  private last: { n: number; binding: string; state: Hash } | undefined
  /** The file could not be read to fill a gap, or a gap's pending reads outgrew their bound: no binding can be had. */
  private broken = false

  constructor(
    private readonly access: SourceAccessShape,
    readonly path: string,
    seed?: { readonly n: number; readonly hash: Hash }
  ) {
    this.hash = seed?.hash ?? createHash("sha256")
    this.end = seed?.n ?? 0
  }

  /** A read of the stream (synchronous: it never reads the file). */
  feed(offset: number, bytes: Uint8Array): void {
    if (this.broken) return
    if (this.pendingStart < 0) {
      // The first read may start before `end` (a resume re-reads the cursor's line) or after it.
      if (offset + bytes.length <= this.end) return
      const skip = Math.max(0, this.end - offset)
      this.pendingStart = offset + skip
      this.push(skip === 0 ? bytes : bytes.subarray(skip))
      return
    }
    const have = this.pendingStart + this.pendingLen
    if (offset > have || offset + bytes.length <= have) return // not contiguous (a second pass), or seen
    this.push(offset === have ? bytes : bytes.subarray(have - offset))
  }

  private push(bytes: Uint8Array) {
    this.pending.push(bytes)
    this.pendingLen += bytes.length
    // Far ahead of any offset asked for (a long stretch without events): fold the oldest in. Folding
    // past a gap would read the file here, inside the stream's read: instead, such a digest (a
    // resume with no verified prefix, then 64 MiB without an event) gives up its bindings.
    if (this.pendingLen <= MAX_PENDING || this.pending.length <= 1) return
    if (this.pendingStart > this.end) {
      this.broken = true
      this.pending = []
      this.pendingLen = 0
      return
    }
    while (this.pendingLen > MAX_PENDING && this.pending.length > 1) this.advance()
  }

  /** Hash the gap before the pending reads, if any, from the file. False when it cannot be read. */
  private fillGap(): Effect.Effect<boolean> {
    if (this.pendingStart <= this.end) return Effect.succeed(true)
    return Effect.map(hashRange(this.access, this.path, this.hash, this.end, this.pendingStart), (ok) => {
      if (ok) this.end = this.pendingStart
      return ok
    })
  }

  /** Hash the first pending read into `hash` (no gap before it). */
  private advance() {
    const first = this.pending.shift()!
    this.hash.update(first)
    this.pendingStart += first.length
    this.pendingLen -= first.length
    this.end = this.pendingStart
  }

  /** The sha256 state at `n` (a copy), once {@link FileDigest.at} answered `n`'s binding; undefined otherwise. */
  stateAt(n: number): Effect.Effect<Hash | undefined> {
    return Effect.map(this.at(n), (binding) => (binding !== undefined && this.last?.n === n ? this.last.state.copy() : undefined))
  }

  /** The binding of `[0, n)`; undefined when it cannot be had (the file changed under the gap, or `n` lies past what was read). */
  at(n: number): Effect.Effect<string | undefined> {
    return Effect.suspend(() => {
      if (this.last?.n === n) return Effect.succeed(this.last.binding)
      if (this.broken) return Effect.succeed(undefined)
      /** The binding of `h` (the state at `n`), remembered with a copy of that state. */
      const remember = (h: Hash | undefined) => {
        if (h === undefined) return undefined
        const state = h.copy()
        const binding = format(n, h)
        this.last = { n, binding, state }
        return binding
      }
      if (n < this.end) {
        // Asked behind what was folded (rare): hash the file from its start.
        const h = createHash("sha256")
        return Effect.map(hashRange(this.access, this.path, h, 0, n), (ok) => remember(ok ? h : undefined))
      }
      if (this.pendingStart < 0 || n <= this.pendingStart) {
        const h = this.hash.copy()
        return Effect.map(hashRange(this.access, this.path, h, this.end, n), (ok) => remember(ok ? h : undefined))
      }
      if (n > this.pendingStart + this.pendingLen) return Effect.succeed(undefined)
      return Effect.map(this.fillGap(), (ok) => {
        if (!ok) {
          // The file changed under the gap: the pending reads can no longer be placed.
          this.broken = true
          this.pending = []
          this.pendingLen = 0
          return undefined
        }
        while (this.pending.length > 0 && this.pendingStart + this.pending[0].length <= n) this.advance()
        const h = this.hash.copy()
        if (n > this.end) h.update(this.pending[0].subarray(0, n - this.end))
        return remember(h)
      })
    })
  }
}

/**
 * The running digests of the files one source's stream reads, keyed by
 * source id: hand {@link PrefixDigests.onRead} to the stream, ask
 * {@link PrefixDigests.at} for the binding at each offset committed (offsets
 * asked of one file only grow). Memory: the reads between two offsets asked
 * (at most 64 MiB a file; past that the binding is hashed from the file).
 */
export class PrefixDigests {
  private readonly files = new Map<string, FileDigest>()

  /** `access`: what the bytes a binding needs beyond the stream's reads are read with. */
  constructor(private readonly access: SourceAccessShape) {}

  /** Start `sourceId`'s digest from a verified prefix (its hash state at `n`) instead of from byte 0. */
  seed(sourceId: string, path: string, n: number, hash: Hash): void {
    this.files.set(sourceId, new FileDigest(this.access, path, { n, hash }))
  }

  /** A read of a stream: `bytes` of the file `path` (source `sourceId`) at `offset`. */
  readonly onRead = (read: { readonly sourceId: string; readonly path: string; readonly offset: number; readonly bytes: Uint8Array }): void => {
    let f = this.files.get(read.sourceId)
    if (f === undefined) this.files.set(read.sourceId, f = new FileDigest(this.access, read.path))
    f.feed(read.offset, read.bytes)
  }

  /**
   * The binding of the first `n` bytes of `sourceId`'s file; undefined when
   * the source was not read or it cannot be had. Reads the file (through
   * `SourceAccess`) only for bytes the stream's reads did not cover.
   */
  at(sourceId: string, n: number): Effect.Effect<string | undefined> {
    return this.files.get(sourceId)?.at(n) ?? Effect.succeed(undefined)
  }

  /**
   * The sha256 state over the first `n` bytes of `sourceId`'s file (a copy, to
   * continue from), as {@link PrefixDigests.at} computes it; undefined when
   * that binding cannot be had. What a watch keeps so that the next growth
   * needs no hash of the prefix (`./watch.ts`).
   */
  stateAt(sourceId: string, n: number): Effect.Effect<Hash | undefined> {
    return this.files.get(sourceId)?.stateAt(n) ?? Effect.succeed(undefined)
  }

  /** The path `sourceId`'s reads came from. */
  pathOf(sourceId: string): string | undefined {
    return this.files.get(sourceId)?.path
  }
}
