/**
 * Shown ids: the ids a redacted output gives a source and a session in place of the index's own (tester23c F3;
 * docs/redaction.md, "Cursors and offsets").
 *
 * The index's ids are unkeyed digests of the path on disk (`sourceId` = `sha256:` of provider, locator class and
 * the real path: `./source-id.ts`; a session's `ses_...` uid and a stream cursor's source tag are digests of that
 * id): whoever holds a redacted output, where the home folder is `~`, could build candidate paths (user names),
 * hash them and compare. A redacted output shows keyed digests instead: HMAC-SHA256 under a secret of the index
 * (32 random bytes made once per index, kept in it), so they cannot be computed without the index, differ between
 * two indexes of the same files, and stay the same across runs on one index (an output can be shared and diffed).
 *
 * Forms (a prefix no real id has, so a shown id is never taken for one):
 * - a source id: `hmac:<64 hex>` (a real one is `sha256:<64 hex>`), HMAC of `source\0<sourceId>`;
 * - a session uid: `hses_<32 hex>` (a real one is `ses_<32 hex>`), the first 16 bytes of the HMAC of `session\0<uid>`;
 * - a shown cursor's source tag (`./shown-cursor.ts`): 16 hex, the first 8 bytes of the HMAC of `tag\0<tag>` where
 *   `<tag>` is the stream cursor's ({@link sourceTag}), so it is made from a stream cursor alone too.
 *
 * @module
 */
import { createHmac, randomBytes } from "node:crypto"
import { sourceTag } from "./cursor.js"

/** The prefix of a shown source id (`hmac:<64 hex>`). */
export const SHOWN_SOURCE_PREFIX = "hmac:"
/** The prefix of a shown session uid (`hses_<32 hex>`). */
export const SHOWN_SESSION_PREFIX = "hses_"
/** Bytes of a shown-id key. */
export const SHOWN_KEY_BYTES = 32

/** How a redacted output names a source and a session (see the module). */
export interface ShownIds {
  /** The shown form of a source id (`hmac:<64 hex>`); a shown one stays as it is. */
  readonly sourceId: (sourceId: string) => string
  /** The shown form of a session uid (`hses_<32 hex>`); a shown one stays as it is. */
  readonly sessionUid: (uid: string) => string
  /** The shown source tag (16 hex) of a stream cursor's source tag ({@link sourceTag} of a source id). */
  readonly tag: (streamTag: string) => string
  /** The shown source tag of a source id: `tag(sourceTag(sourceId))`. */
  readonly sourceTag: (sourceId: string) => string
}

/** The real ids unchanged: what unredacted outputs show. */
export const realIds: ShownIds = { sourceId: (s) => s, sessionUid: (u) => u, tag: (t) => t, sourceTag }

/**
 * The shown ids under `key` (an index's secret, {@link SHOWN_KEY_BYTES} bytes): HMAC-SHA256 (see the module).
 * Each digest is cached per id (an output names one source thousands of times).
 */
export const keyedIds = (key: Uint8Array): ShownIds => {
  const mac = (what: string, id: string) => createHmac("sha256", key).update(`${what}\u0000${id}`).digest("hex")
  const cached = (f: (id: string) => string) => {
    const memo = new Map<string, string>()
    return (id: string) => {
      let v = memo.get(id)
      if (v === undefined) {
        if (memo.size >= 4096) memo.clear()
        v = f(id)
        memo.set(id, v)
      }
      return v
    }
  }
  const tag = cached((t) => mac("tag", t).slice(0, 16))
  return {
    sourceId: cached((s) => (s.startsWith(SHOWN_SOURCE_PREFIX) ? s : SHOWN_SOURCE_PREFIX + mac("source", s))),
    sessionUid: cached((u) => (u.startsWith(SHOWN_SESSION_PREFIX) ? u : SHOWN_SESSION_PREFIX + mac("session", u).slice(0, 32))),
    tag,
    sourceTag: (s) => tag(sourceTag(s))
  }
}

/**
 * Shown ids under a key made for this run only: for a redacted output made with no index's key at hand (an index
 * from before the key, read without migrating it). They cannot be guessed either, but differ on every run.
 */
export const runIds = (): ShownIds => keyedIds(randomBytes(SHOWN_KEY_BYTES))

/** A new random key for an index ({@link SHOWN_KEY_BYTES} bytes). */
export const newShownKey = (): Buffer => randomBytes(SHOWN_KEY_BYTES)

/** The name an index keeps its shown-id key under (its `meta` table: SQLite migration 0011, PostgreSQL 0010). */
export const SHOWN_KEY_NAME = "shown-id-key"
