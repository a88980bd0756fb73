/**
 * Source fingerprints: what says "this file is the same as last time" for a
 * stat's cost. Size, modification time, inode, birth time and change time: an
 * append changes size and mtime, a replacement changes inode or birth time,
 * and any write changes the change time (ctime), which, unlike the mtime,
 * cannot be set back (a same-size rewrite that restores its mtime still
 * reads as changed). A fingerprint of an earlier build (without the change
 * time) differs from every new one: such a source reads as changed once (its
 * imported prefix is checked) and is then stored in the new form.
 *
 * @module
 */

/** The stat fields a fingerprint is made of (bytes, epoch ms with sub-ms digits). */
export interface FingerprintStat {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
  readonly birthtimeMs: number
  readonly ctimeMs: number
}

/** `size:mtimeMs:ino:birthtimeMs:ctimeMs`. */
export const fingerprintOfStat = (s: FingerprintStat): string =>
  `${s.size}:${s.mtimeMs}:${s.ino}:${s.birthtimeMs}:${s.ctimeMs}`
