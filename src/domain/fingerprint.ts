/**
 * Source fingerprints: what says "this file is the same as last time" for a
 * stat's cost. Size, modification time, inode and birth time: an append
 * changes size and mtime, a replacement changes inode or birth time.
 *
 * @module
 */

/** The stat fields a fingerprint is made of (bytes, epoch ms with sub-ms digits). */
export interface FingerprintStat {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
  readonly birthtimeMs: number
}

/** `size:mtimeMs:ino:birthtimeMs`. */
export const fingerprintOfStat = (s: FingerprintStat): string => `${s.size}:${s.mtimeMs}:${s.ino}:${s.birthtimeMs}`
