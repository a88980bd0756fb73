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
import { type Payload, type SqliteFile, SqliteFileError, SqliteFileUnsupported, type SqliteValue } from "./sqlite-file.js"

/** Where a part's blob lives. */
interface PartRef {
  readonly leaf: number
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
    db.scanTable(fileData.rootPage, (p) => {
      const l = db.layout(p)
      const zone = db.value(p, l, dZone)
      if (typeof zone !== "string" || !wanted.some((w) => zone.startsWith(w))) return
      const name = db.value(p, l, dName)
      const idx = num(db.value(p, l, dPart))
      if (typeof name !== "string" || idx === null || !Number.isSafeInteger(idx)) return
      const key = `${zone}\u0000${name}`
      let m = out.get(key)
      if (m === undefined) out.set(key, m = new Map())
      const t = l.types[dData] ?? 0
      m.set(idx, {
        leaf: p.pageNo,
        size: p.size,
        localStart: p.localStart,
        localLength: p.localLength,
        overflow: p.overflow,
        dataOffset: l.offsets[dData] ?? 0,
        dataLength: t >= 12 ? (t - 12) >> 1 : -1
      })
    })
    return out
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
        if (parts === null || !indexed.some((w) => file.zoneId.startsWith(w))) {
          prefixes.add(file.zoneId)
          indexed = [...prefixes]
          parts = index(indexed)
        }
        const byPart = parts.get(`${file.zoneId}\u0000${file.name}`)
        for (let idx = Math.floor(start / PART_SIZE); idx * PART_SIZE < end; idx++) {
          const partStart = idx * PART_SIZE
          const from = Math.max(start, partStart)
          const to = Math.min(end, partStart + PART_SIZE)
          const ref = byPart?.get(idx)
          const have = ref === undefined || ref.dataLength < 0 ? 0 : Math.min(ref.dataLength, PART_SIZE)
          const availTo = Math.min(to, partStart + have)
          if (ref !== undefined && availTo > from) {
            const p: Payload = { ...ref, pageNo: ref.leaf, page: leaf(ref.leaf) }
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
