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
 * Source: issue 11 ("a JSONL source rewritten in the middle"), README "Generations".
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"

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
 * Continue `hash` over bytes `[from, to)` of `path` (opened without
 * following a symlink), a step at a time. False when the file is shorter or
 * cannot be read.
 */
const hashRange = (path: string, hash: Hash, from: number, to: number): boolean => {
  if (to <= from) return true
  let fd: number | undefined
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    const buf = Buffer.allocUnsafe(Math.min(STEP, to - from))
    for (let at = from; at < to;) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - at), at)
      if (n === 0) return false
      hash.update(buf.subarray(0, n))
      at += n
    }
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * Check a binding against the file as it is now: hashes its first `n` bytes
 * (one sequential read). Answers the hash state at `n` (to continue from)
 * when they match, or null when the file is shorter, unreadable, or differs.
 */
export const verifyPrefix = (path: string, binding: string): Hash | null => {
  const n = bindingLength(binding)
  if (n < 0) return null
  const hash = createHash("sha256")
  if (!hashRange(path, hash, 0, n)) return null
  return `${n}:${hash.copy().digest("hex")}` === binding ? hash : null
}

/** The running digest of one file's reads. */
class FileDigest {
  /** Hash of `[0, end)`. */
  private end = 0
  private readonly hash: Hash
  /** Bytes read past `end`, contiguous from `pendingStart` (a gap `[end, pendingStart)` is read from the file when needed). */
  private pending: Array<Uint8Array> = []
  private pendingStart = -1
  private pendingLen = 0
  private last: { n: number; binding: string } | undefined
  /** The file could not be read to fill a gap: no binding can be had. */
  private broken = false

  constructor(readonly path: string, seed?: { readonly n: number; readonly hash: Hash }) {
    this.hash = seed?.hash ?? createHash("sha256")
    this.end = seed?.n ?? 0
  }

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
    // Far ahead of any offset asked for (a long stretch without events): fold the oldest in.
    try {
      while (this.pendingLen > MAX_PENDING && this.pending.length > 1) this.advance()
    } catch {
      this.broken = true
      this.pending = []
      this.pendingLen = 0
    }
  }

  /** Hash the gap before the pending reads, if any, from the file. */
  private fillGap() {
    if (this.pendingStart > this.end) {
      if (!hashRange(this.path, this.hash, this.end, this.pendingStart)) throw new Error("gap")
      this.end = this.pendingStart
    }
  }

  /** Hash the gap, if any, and the first pending read into `hash`. */
  private advance() {
    this.fillGap()
    const first = this.pending.shift()!
    this.hash.update(first)
    this.pendingStart += first.length
    this.pendingLen -= first.length
    this.end = this.pendingStart
  }

  /** The binding of `[0, n)`; undefined when it cannot be had (the file changed under the gap, or `n` lies past what was read). */
  at(n: number): string | undefined {
    if (this.last?.n === n) return this.last.binding
    if (this.broken) return undefined
    let binding: string | undefined
    try {
      if (n < this.end) {
        // Asked behind what was folded (rare): hash the file from its start.
        const h = createHash("sha256")
        binding = hashRange(this.path, h, 0, n) ? format(n, h) : undefined
      } else if (this.pendingStart < 0 || n <= this.pendingStart) {
        const h = this.hash.copy()
        binding = hashRange(this.path, h, this.end, n) ? format(n, h) : undefined
      } else {
        if (n > this.pendingStart + this.pendingLen) return undefined
        this.fillGap()
        while (this.pending.length > 0 && this.pendingStart + this.pending[0].length <= n) this.advance()
        const h = this.hash.copy()
        if (n > this.end) h.update(this.pending[0].subarray(0, n - this.end))
        binding = format(n, h)
      }
    } catch {
      this.broken = true
      binding = undefined
    }
    if (binding !== undefined) this.last = { n, binding }
    return binding
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

  /** Start `sourceId`'s digest from a verified prefix (its hash state at `n`) instead of from byte 0. */
  seed(sourceId: string, path: string, n: number, hash: Hash): void {
    this.files.set(sourceId, new FileDigest(path, { n, hash }))
  }

  /** A read of a stream: `bytes` of the file `path` (source `sourceId`) at `offset`. */
  readonly onRead = (read: { readonly sourceId: string; readonly path: string; readonly offset: number; readonly bytes: Uint8Array }): void => {
    let f = this.files.get(read.sourceId)
    if (f === undefined) this.files.set(read.sourceId, f = new FileDigest(read.path))
    f.feed(read.offset, read.bytes)
  }

  /** The binding of the first `n` bytes of `sourceId`'s file; undefined when the source was not read or it cannot be had. */
  at(sourceId: string, n: number): string | undefined {
    return this.files.get(sourceId)?.at(n)
  }

  /** The path `sourceId`'s reads came from. */
  pathOf(sourceId: string): string | undefined {
    return this.files.get(sourceId)?.path
  }
}
