/**
 * Stable source ids: `sha256:<64 hex>` of provider, locator class and the
 * canonical locator (DESIGN.md, "Normalized model").
 *
 * @module
 */
import { createHash } from "node:crypto"

/** sha256 of a string or bytes, as 64 lowercase hex digits. */
export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex")

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
  const base = path.split(/[\\/]/).filter((s) => s.length > 0).pop() ?? ""
  return `${sourceId.slice(7, 19)}…/${base}`
}
