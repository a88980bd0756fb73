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

/**
 * The name a nested log (a source's part) is known by in its source's
 * fingerprint and checkpoint: its file name, or its folder's name for a
 * `session.jsonl` (Muse Code's nested sessions).
 */
export const partNameOf = (path: string): string => {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"))
  const base = path.slice(slash + 1)
  if (base !== "session.jsonl") return base
  const dir = path.slice(0, slash)
  return dir.slice(Math.max(dir.lastIndexOf("/"), dir.lastIndexOf("\\")) + 1)
}

/**
 * A part's entry in its source's fingerprint, appended to the source's own
 * (`<own>+part:<name>=<stat fingerprint>`, `gone` when the part is not
 * there): an append to a nested log changes the source's fingerprint.
 */
export const partEntry = (path: string, stat: string | null): string => `+part:${partNameOf(path)}=${stat ?? "gone"}`
