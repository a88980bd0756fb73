/**
 * What became of a source's file between the moments an import looks at it:
 * discovery's stat (what its summary describes), the importer's stat (the
 * fingerprint the checkpoint keeps, taken before the read) and the file once
 * the read ended. An append-only log only grows; the same file (inode) that
 * got shorter was truncated or rewritten in place, and the events read may
 * mix two versions of it: the source is rejected as `MALFORMED_SOURCE`
 * (rejected means absent; the next run reads it again). A file that grew
 * since discovery, or was replaced by another one (an atomic rename: the read
 * is of one whole version, from the file opened), is read, but its summary
 * describes another state than was read: the checkpoint is marked so the
 * next run takes it again (see `+summary:earlier` in the importer).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { MalformedSource } from "../../domain/errors.js"
import type { FingerprintStat } from "../../domain/fingerprint.js"
import type { SourceAccessShape } from "../../services/SourceAccess.js"

/** The size and inode of a fingerprint's own file (`size:mtimeMs:ino:…`, before any `+wal:`/`+part:`), or null. */
const ownOf = (fingerprint: string | null): { readonly size: number; readonly ino: number; readonly main: string } | null => {
  if (fingerprint === null) return null
  const main = fingerprint.split("+")[0]
  const [size, , ino] = main.split(":")
  const s = Number(size), i = Number(ino)
  return Number.isFinite(s) && Number.isFinite(i) ? { size: s, ino: i, main } : null
}

const shrank = (what: string, before: number, now: number) =>
  new MalformedSource({
    message: `The source file shrank ${what} (${before} bytes, then ${now}): it was truncated or rewritten in place.`,
    remediation: "Import again once its writer is done; nothing of this read was kept (the events read could mix two versions of the file).",
    details: { sizeBefore: before, sizeNow: now }
  })

/**
 * Compare discovery's stat of a source's file (`discovered`, absent when
 * discovery took none) with the importer's fingerprint of it, taken later:
 * `"same"` (or nothing to compare), `"grew"` (changed, not shorter, or
 * replaced by another file: the summary describes another state), or a
 * `MalformedSource` when the same file (inode) got shorter.
 */
export const sinceDiscovery = (
  discovered: FingerprintStat | undefined,
  fingerprint: string | null
): "same" | "grew" | MalformedSource => {
  const now = ownOf(fingerprint)
  if (discovered === undefined || now === null) return "same"
  if (now.ino === discovered.ino && now.size < discovered.size) return shrank("between discovery and its read", discovered.size, now.size)
  return now.main === `${discovered.size}:${discovered.mtimeMs}:${discovered.ino}:${discovered.birthtimeMs}:${discovered.ctimeMs}`
    ? "same"
    : "grew"
}

/**
 * After a source was read: fail `MalformedSource` when its file (one stat)
 * is the same file (inode) as in `fingerprint` (the stat taken before the
 * read) and shorter. A file replaced (by another file, or by a fifo, folder
 * or symlink) or no longer there is left to the next
 * run (what was read came from the file opened), as is one that cannot be
 * stat-ed now.
 */
export const stillAsBefore = (
  access: SourceAccessShape,
  path: string,
  fingerprint: string | null
): Effect.Effect<void, MalformedSource> => {
  const before = ownOf(fingerprint)
  if (before === null) return Effect.void
  const probed = Effect.orElseSucceed(access.probe(path), () => Option.none())
  return Effect.flatMap(probed, (o) => {
    // No longer a regular file (a fifo put in its place may even get the freed inode number): replaced.
    if (Option.isNone(o) || o.value.kind !== "file") return Effect.void
    const st = o.value.stat
    return st.ino === before.ino && st.size < before.size ? Effect.fail(shrank("while it was read", before.size, st.size)) : Effect.void
  })
}
