/**
 * Stable source ids: `sha256:<64 hex>` of provider, locator class and the
 * canonical locator (DESIGN.md, "Normalized model").
 *
 * @module
 */
import { hash } from "node:crypto"

/**
 * sha256 of a string (its UTF-8 bytes) or bytes, as 64 lowercase hex digits.
 * Node's one-shot `crypto.hash` (Node >= 20.12): about 4x faster than a
 * `createHash` object for the short inputs of ids (discovery makes one per log).
 */
export const sha256Hex = (data: string | Uint8Array): string => hash("sha256", data, "hex")

/** sha256 of a string (its UTF-8 bytes) or bytes, as its 32 bytes ({@link sha256Hex} without the hex text). */
export const sha256Bytes = (data: string | Uint8Array): Buffer => hash("sha256", data, "buffer") as unknown as Buffer

/**
 * The source id of a locator. `canonical` is the real path of the file (or
 * `store#agent#session` for stores); the parts are joined with NUL so no two
 * locators collide.
 */
export const makeSourceId = (provider: string, locatorClass: string, canonical: string): string =>
  `sha256:${sha256Hex(`${provider}\u0000${locatorClass}\u0000${canonical}`)}`

/**
 * A locator safe to print in content-free receipts: the source id's first 12
 * hex digits plus the file's base name, never the folders above it.
 */
export const redactLocator = (sourceId: string, path: string): string => {
  // The last non-empty segment between `/` or `\\` (no split: discovery makes one per candidate).
  let end = path.length
  while (end > 0 && (path[end - 1] === "/" || path[end - 1] === "\\")) end--
  let start = end
  while (start > 0 && path[start - 1] !== "/" && path[start - 1] !== "\\") start--
  const base = path.slice(start, end)
  return `${sourceId.slice(7, 19)}…/${base}`
}
