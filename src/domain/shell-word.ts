/**
 * A word as a POSIX shell reads it back, for commands the messages suggest.
 * Pure.
 *
 * @module
 */

/**
 * `w` as one POSIX shell word: as it is when it holds only characters a shell
 * takes literally (letters, digits, `_@%+=:,./-`), else in single quotes
 * (a `'` written `'\''`).
 */
export const shellWord = (w: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)
