/**
 * Reading a store's file bytes over an open better-sqlite3 connection: the
 * parts of a byte range from `db_file_data`, reassembled (shared by the
 * store's connection, `transcript-store-sqlite.ts`, and the scan workers,
 * `scan-worker.ts`, which load this module alone).
 *
 * @module
 */
import { PART_SIZE } from "../../domain/agentmux/record.js"
import type { Driver, DriverStatement } from "./sqlite-driver.js"
import { chunksFromParts, readFromParts, type StoreChunks, type StoreFile, type StoreRead } from "./TranscriptStore.js"

const toBuffer = (data: unknown): Buffer | undefined =>
  Buffer.isBuffer(data)
    ? data
    : data instanceof Uint8Array
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : typeof data === "string"
    ? Buffer.from(data, "utf8")
    : undefined

const READ_SQL =
  "SELECT partidx, data FROM db_file_data WHERE zoneid = ? AND name = ? AND partidx >= ? AND partidx <= ? ORDER BY partidx"

export const num = (v: unknown): number | null =>
  typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : typeof v === "string" && v !== "" ? Number(v) : null

/**
 * Reads of a store's files over an open connection (`db_file_data`, the
 * parts of `[offset, offset + length)` in one query, reassembled by
 * `readFromParts`); throws what the driver throws. Shared by the store's
 * connection and the scan workers (`scan-worker.ts`).
 */
export const partReader = (db: Driver) => {
  const readSql = READ_SQL
  let readStatement: DriverStatement | undefined
  return (file: StoreFile, offset: number, length: number, into?: Buffer): StoreRead => {
    const start = Math.max(0, Math.min(offset, file.size))
    const end = Math.max(start, Math.min(offset + length, file.size))
    if (end === start) return { bytes: Buffer.alloc(0), missing: [] }
    const first = Math.floor(start / PART_SIZE)
    const last = Math.floor((end - 1) / PART_SIZE)
    readStatement ??= db.prepare(readSql)
    const rows = readStatement.all(file.zoneId, file.name, first, last) as Array<{ partidx: unknown; data: unknown }>
    const parts = new Map<number, Buffer>()
    for (const r of rows) {
      const idx = num(r.partidx)
      const data = toBuffer(r.data)
      if (idx !== null && data !== undefined) parts.set(idx, data)
    }
    return readFromParts(file, start, end - start, (idx) => parts.get(idx), into)
  }
}

/**
 * {@link partReader}'s reads as chunks (`chunksFromParts`: each part's
 * bytes as the driver gave them, not copied into one buffer); throws what
 * the driver throws.
 */
export const partChunkReader = (db: Driver) => {
  let readStatement: DriverStatement | undefined
  return (file: StoreFile, offset: number, length: number): StoreChunks => {
    const start = Math.max(0, Math.min(offset, file.size))
    const end = Math.max(start, Math.min(offset + length, file.size))
    if (end === start) return { chunks: [], missing: [] }
    const first = Math.floor(start / PART_SIZE)
    const last = Math.floor((end - 1) / PART_SIZE)
    readStatement ??= db.prepare(READ_SQL)
    const rows = readStatement.all(file.zoneId, file.name, first, last) as Array<{ partidx: unknown; data: unknown }>
    const parts = new Map<number, Buffer>()
    for (const r of rows) {
      const idx = num(r.partidx)
      const data = toBuffer(r.data)
      if (idx !== null && data !== undefined) parts.set(idx, data)
    }
    return chunksFromParts(file, start, end - start, (idx) => parts.get(idx))
  }
}


const NEXT_PART_SQL =
  "SELECT partidx FROM db_file_data WHERE zoneid = ? AND name = ? AND partidx >= ? AND typeof(data) IN ('blob', 'text') ORDER BY partidx LIMIT 1"
const LAST_PART_SQL =
  "SELECT partidx, length(CAST(data AS BLOB)) AS len FROM db_file_data WHERE zoneid = ? AND name = ? AND typeof(data) IN ('blob', 'text') ORDER BY partidx DESC LIMIT 1"

/**
 * Where a file's parts are, over an open connection (`StoreConnection.nextPart`
 * and `lastPart`): the first part present (a row whose data is bytes) at or
 * after an index, and the last part present with its data's length, each in
 * one query over `db_file_data`'s key; throws what the driver throws.
 */
export const partFinder = (db: Driver) => {
  let next: DriverStatement | undefined
  let last: DriverStatement | undefined
  return {
    nextPart: (file: StoreFile, index: number): number | null => {
      next ??= db.prepare(NEXT_PART_SQL)
      const rows = next.all(file.zoneId, file.name, Math.max(0, index)) as Array<{ partidx: unknown }>
      return rows.length === 0 ? null : num(rows[0].partidx)
    },
    lastPart: (file: StoreFile): { index: number; length: number } | null => {
      last ??= db.prepare(LAST_PART_SQL)
      const rows = last.all(file.zoneId, file.name) as Array<{ partidx: unknown; len: unknown }>
      const index = rows.length === 0 ? null : num(rows[0].partidx)
      return index === null || !Number.isSafeInteger(index) || index < 0
        ? null
        : { index, length: Math.min(PART_SIZE, num(rows[0].len) ?? 0) }
    }
  }
}
