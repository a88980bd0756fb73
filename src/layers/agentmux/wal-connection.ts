/**
 * A {@link StoreConnection} over an AgentMux store in WAL mode, read with
 * {@link openSqliteFile} (plain reads of `filestore.db` and its `-wal`, no
 * SQLite, nothing written or created anywhere): `db_wave_file` is read when
 * the connection opens, and `db_file_data` is indexed (zone, name, part →
 * where its row's payload is) by one walk of its table b-tree on the first
 * read. A part's blob is then read from its leaf page and overflow chain, in
 * large reads when the chain is laid out in order.
 *
 * Every read checks that the snapshot still holds (no checkpoint or WAL
 * restart since the open); when it does not, the read fails
 * `STORE_UNAVAILABLE` with `details.retry = true`, and the caller starts over.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { PART_SIZE } from "../../domain/agentmux/record.js"
import { StoreUnavailable } from "../../domain/errors.js"
import type { StoreConnection, StoreFile } from "../../services/TranscriptStore.js"
import {
  type Payload,
  type SqliteFile,
  SqliteFileError,
  SqliteFileUnsupported,
  type SqliteIndex,
  type SqliteValue
} from "./sqlite-file.js"

/** Where a part's blob lives. */
interface PartRef {
  readonly leaf: number
  /** The leaf page itself when it was read for this part alone. */
  readonly page?: Buffer
  readonly size: number
  readonly localStart: number
  readonly localLength: number
  readonly overflow: number
  readonly dataOffset: number
  /** Blob (or text) length in bytes; -1 when the value is not bytes (read as a missing part). */
  readonly dataLength: number
}

const num = (v: SqliteValue): number | null =>
  typeof v === "number" ? v : typeof v === "string" && v !== "" ? Number(v) : null

/** SQLite's order of values of different kinds: NULL, numbers, text, blobs. */
const rank = (v: SqliteValue) => (v === null ? 0 : typeof v === "number" ? 1 : typeof v === "string" ? 2 : 3)

/** Compare a stored value with a wanted one in SQLite's default (BINARY) order. */
const compareValue = (v: SqliteValue, w: string | number): number => {
  const d = rank(v) - rank(w)
  if (d !== 0) return d
  if (typeof v === "number") return v - (w as number)
  if (typeof v === "string") {
    // UTF-16 units order text as UTF-8 bytes do, but for a surrogate against U+E000–U+FFFF.
    const n = Math.min(v.length, (w as string).length)
    for (let i = 0; i < n; i++) {
      const a = v.charCodeAt(i)
      const b = (w as string).charCodeAt(i)
      if (a === b) continue
      if ((a >= 0xd800) === (b >= 0xd800) && (a >= 0xe000) === (b >= 0xe000)) return a - b
      return Buffer.compare(Buffer.from(v, "utf8"), Buffer.from(w as string, "utf8"))
    }
    return v.length - (w as string).length
  }
  return Buffer.compare(v as Buffer, Buffer.from(w as string, "utf8"))
}

const KEY_COLUMNS = /^\s*\(\s*("?)zoneid\1\s*,\s*("?)name\2\s*,\s*("?)partidx\3\s*(ASC\s*)?[,)]/i

/**
 * The index that orders `db_file_data` by (zoneid, name, partidx) in SQLite's
 * default order (BINARY text, ascending, not partial), so that a file's parts
 * are found by a seek instead of a walk of the whole table: the automatic
 * index of the table's only key, `PRIMARY KEY (zoneid, name, partidx)` (as
 * AgentMux declares it), or a `CREATE INDEX` on those columns. Null when
 * there is none, or any collation is declared.
 */
const partIndex = (db: SqliteFile, table: string, sql: string): SqliteIndex | null => {
  if (/\bCOLLATE\b/i.test(sql)) return null
  for (const i of db.indexes) {
    if (i.table !== table) continue
    if (i.sql === null) {
      const keys = sql.match(/\b(PRIMARY\s+KEY|UNIQUE)\b/gi) ?? []
      const pk = /\bPRIMARY\s+KEY\s*(\([^)]*\))/i.exec(sql)
      if (i.name === `sqlite_autoindex_${table}_1` && keys.length === 1 && pk !== null && KEY_COLUMNS.test(pk[1])) return i
    } else if (!/\b(WHERE|COLLATE|DESC)\b/i.test(i.sql)) {
      const on = /\bON\s+("?)db_file_data\1\s*(\(.*)$/is.exec(i.sql)
      if (on !== null && KEY_COLUMNS.test(on[2])) return i
    }
  }
  return null
}

const columnIndex = (columns: ReadonlyArray<string>, name: string) =>
  columns.findIndex((c) => c.toLowerCase() === name.toLowerCase())

/**
 * Build the connection (synchronously; throws {@link SqliteFileUnsupported}
 * when the schema is not AgentMux's, {@link SqliteFileError} when the file is
 * inconsistent). `fail(what, cause)` makes the `StoreUnavailable` of a read.
 */
export const walConnection = (
  path: string,
  db: SqliteFile,
  fail: (what: string, cause?: unknown) => StoreUnavailable
): StoreConnection => {
  const waveFile = db.tables.get("db_wave_file")
  const fileData = db.tables.get("db_file_data")
  if (waveFile === undefined || fileData === undefined) {
    throw new SqliteFileUnsupported("no db_wave_file / db_file_data tables")
  }
  const wc = (n: string) => columnIndex(waveFile.columns, n)
  const [wZone, wName, wSize, wCreated, wMod] = [wc("zoneid"), wc("name"), wc("size"), wc("createdts"), wc("modts")]
  const wGen = ["gen", "generation", "rev"].map(wc).find((i) => i >= 0) ?? -1
  const dc = (n: string) => columnIndex(fileData.columns, n)
  const [dZone, dName, dPart, dData] = [dc("zoneid"), dc("name"), dc("partidx"), dc("data")]
  if (wZone < 0 || wName < 0 || wSize < 0 || dZone < 0 || dName < 0 || dPart < 0 || dData < 0) {
    throw new SqliteFileUnsupported("db_wave_file / db_file_data lack AgentMux's columns")
  }

  const files: Array<StoreFile & { readonly key: Buffer }> = []
  db.scanTable(waveFile.rootPage, (p) => {
    const l = db.layout(p)
    const at = (i: number) => (i < 0 ? null : db.value(p, l, i))
    const zone = at(wZone)
    const name = at(wName)
    if (typeof zone !== "string" || typeof name !== "string") return
    const gen = at(wGen)
    files.push({
      zoneId: zone,
      name,
      size: Math.max(0, num(at(wSize)) ?? 0),
      createdTs: num(at(wCreated)),
      modTs: num(at(wMod)),
      generation: gen === null ? null : Buffer.isBuffer(gen) ? gen.toString("utf8") : String(gen),
      key: Buffer.from(`${zone}\u0000${name}`, "utf8")
    })
  })
  // SQLite's BINARY collation: bytes of UTF-8.
  files.sort((a, b) => Buffer.compare(a.key, b.key))

  const prefixes = new Set<string>()
  let parts: Map<string, Map<number, PartRef>> | null = null
  let indexed: Array<string> = []
  /** Where each part of the files of zones starting with one of `wanted` lives. */
  const index = (wanted: ReadonlyArray<string>): Map<string, Map<number, PartRef>> => {
    const out = new Map<string, Map<number, PartRef>>()
    // Rows of one file follow each other: while a row's zone and name bytes
    // are the last row's, its file (or that it is not wanted) is known without decoding them.
    let last: { zone: Buffer; name: Buffer; parts: Map<number, PartRef> | null } | null = null
    const same = (p: Payload, off: number, t: number, bytes: Buffer) => {
      const len = (t - 13) >> 1
      return t >= 13 && (t & 1) === 1 && len === bytes.length && off + len <= p.localLength &&
        p.page.compare(bytes, 0, len, p.localStart + off, p.localStart + off + len) === 0
    }
    db.scanTable(fileData.rootPage, (p) => {
      const l = db.layout(p)
      let parts: Map<number, PartRef> | null
      if (
        last !== null && same(p, l.offsets[dZone], l.types[dZone] ?? 0, last.zone) &&
        same(p, l.offsets[dName], l.types[dName] ?? 0, last.name)
      ) {
        parts = last.parts
      } else {
        const zone = db.value(p, l, dZone)
        const name = db.value(p, l, dName)
        if (typeof zone !== "string" || typeof name !== "string") return
        const key = `${zone}\u0000${name}`
        parts = wanted.some((w) => zone.startsWith(w)) ? out.get(key) ?? null : null
        if (parts === null && wanted.some((w) => zone.startsWith(w))) out.set(key, parts = new Map())
        last = { zone: Buffer.from(zone, "utf8"), name: Buffer.from(name, "utf8"), parts }
      }
      if (parts === null) return
      const idx = num(db.value(p, l, dPart))
      if (idx === null || !Number.isSafeInteger(idx)) return
      parts.set(idx, refOf(p, undefined, l))
    })
    return out
  }

  const byIndex = partIndex(db, "db_file_data", fileData.sql)
  let seekable = byIndex !== null
  const refOf = (p: Payload, page: Buffer | undefined, l = db.layout(p)): PartRef => {
    const t = l.types[dData] ?? 0
    return {
      leaf: p.pageNo,
      page,
      size: p.size,
      localStart: p.localStart,
      localLength: p.localLength,
      overflow: p.overflow,
      dataOffset: l.offsets[dData] ?? 0,
      dataLength: t >= 12 ? (t - 12) >> 1 : -1
    }
  }
  const seeks = new Map<string, Map<number, PartRef | null>>()
  /**
   * Parts `[first, last]` of a file through the index: entries from
   * (zone, name, first) to (zone, name, last), each row found by its rowid
   * and checked to be that part. Throws `SqliteFileError` when a row is not
   * what its entry says (the index is then not used again).
   */
  const seekParts = (zone: string, name: string, first: number, last: number): Map<number, PartRef | null> => {
    const key = `${zone}\u0000${name}`
    let known = seeks.get(key)
    if (known === undefined) seeks.set(key, known = new Map())
    let missingFrom = first
    while (missingFrom <= last && known.has(missingFrom)) missingFrom++
    if (missingFrom > last) return known
    const found: Array<{ idx: number; rowid: number }> = []
    const entry = (p: Payload) => {
      const l = db.layout(p)
      const c = compareValue(db.value(p, l, 0), zone) || compareValue(db.value(p, l, 1), name)
      return { c, idx: db.value(p, l, 2), rowid: db.value(p, l, l.types.length - 1) }
    }
    db.seekIndex(byIndex!.rootPage, (p) => {
      const e = entry(p)
      return e.c < 0 || (e.c === 0 && compareValue(e.idx, missingFrom) < 0)
    }, (p) => {
      const e = entry(p)
      if (e.c > 0 || compareValue(e.idx, last) > 0) return false
      if (typeof e.idx === "number" && typeof e.rowid === "number") found.push({ idx: e.idx, rowid: e.rowid })
      return true
    })
    for (let i = missingFrom; i <= last; i++) known.set(i, null)
    for (const { idx, rowid } of found) {
      const p = db.findRow(fileData.rootPage, rowid)
      if (p === null) throw new SqliteFileError(`db_file_data has no row ${rowid} for an entry of ${byIndex!.name}`)
      const l = db.layout(p)
      if (db.value(p, l, dZone) !== zone || db.value(p, l, dName) !== name || num(db.value(p, l, dPart)) !== idx) {
        throw new SqliteFileError(`row ${rowid} of db_file_data is not what ${byIndex!.name} says`)
      }
      known.set(idx, refOf(p, p.page, l))
    }
    return known
  }

  const leaves = new Map<number, Buffer>()
  const leaf = (n: number): Buffer => {
    let b = leaves.get(n)
    if (b === undefined) {
      b = db.page(n)
      if (leaves.size >= 16) leaves.delete(leaves.keys().next().value!)
      leaves.set(n, b)
    }
    return b
  }

  const guard = <A>(what: string, f: () => A): Effect.Effect<A, StoreUnavailable> =>
    Effect.suspend(() => {
      try {
        const a = f()
        const why = db.changed()
        return why === null ? Effect.succeed(a) : Effect.fail(retry(why))
      } catch (e) {
        if (e instanceof SqliteFileError && e.changed) return Effect.fail(retry(e.message))
        return Effect.fail(fail(what, e))
      }
    })
  const retry = (why: string) => {
    const e = fail(why)
    return new StoreUnavailable({ message: e.message, remediation: e.remediation, details: { retry: true } })
  }

  return {
    path,
    mode: "snapshot",
    listFiles: (prefix) =>
      Effect.sync(() => {
        prefixes.add(prefix)
        return files.filter((f) => f.zoneId.startsWith(prefix)).map(({ key: _key, ...f }) => f)
      }),
    read: (file, offset, length, into) =>
      guard("cannot be read", () => {
        const start = Math.max(0, Math.min(offset, file.size))
        const end = Math.max(start, Math.min(offset + length, file.size))
        // Every byte is written below: read, or zero where missing.
        const out = into !== undefined && into.length >= end - start ? into.subarray(0, end - start) : Buffer.allocUnsafe(end - start)
        const missing: Array<{ start: number; end: number }> = []
        if (end === start) return { bytes: out, missing }
        const firstPart = Math.floor(start / PART_SIZE)
        const lastPart = Math.floor((end - 1) / PART_SIZE)
        let byPart: ReadonlyMap<number, PartRef | null> | undefined
        if (seekable) {
          try {
            byPart = seekParts(file.zoneId, file.name, firstPart, lastPart)
          } catch (e) {
            if (!(e instanceof SqliteFileError) || e.changed) throw e
            seekable = false // an index not as declared: walk the table instead
          }
        }
        if (byPart === undefined) {
          if (parts === null || !indexed.some((w) => file.zoneId.startsWith(w))) {
            prefixes.add(file.zoneId)
            indexed = [...prefixes]
            parts = index(indexed)
          }
          byPart = parts.get(`${file.zoneId}\u0000${file.name}`)
        }
        for (let idx = Math.floor(start / PART_SIZE); idx * PART_SIZE < end; idx++) {
          const partStart = idx * PART_SIZE
          const from = Math.max(start, partStart)
          const to = Math.min(end, partStart + PART_SIZE)
          const ref = byPart?.get(idx) ?? undefined
          const have = ref === undefined || ref.dataLength < 0 ? 0 : Math.min(ref.dataLength, PART_SIZE)
          const availTo = Math.min(to, partStart + have)
          if (ref !== undefined && availTo > from) {
            const p: Payload = { ...ref, pageNo: ref.leaf, page: ref.page ?? leaf(ref.leaf) }
            db.readPayload(p, ref.dataOffset + (from - partStart), ref.dataOffset + (availTo - partStart), out, from - start)
          }
          if (availTo < to) {
            const s = Math.max(from, availTo)
            out.fill(0, s - start, to - start)
            const last = missing[missing.length - 1]
            if (last !== undefined && last.end === s) last.end = to
            else missing.push({ start: s, end: to })
          }
        }
        return { bytes: out, missing }
      })
  }
}
