/**
 * A SQLite database in WAL mode read with plain `pread`s of the main file and
 * its `-wal`, without SQLite, so that nothing is written to the store or
 * beside it and nothing is copied (issue 7, figure b). SQLite itself cannot
 * do this here: a read-only open of a WAL database creates or writes `-shm`
 * (and `-wal`), and this better-sqlite3 build has URI filenames
 * (`immutable=1`, `readonly_shm`) compiled out.
 *
 * What is read follows the SQLite file format (sqlite.org/fileformat2.html):
 * - the `-wal` is indexed as SQLite's own recovery does (§4): its header
 *   checksum, then frames whose salts match the header and whose cumulative
 *   checksums hold, up to the last commit frame; a page's newest committed
 *   frame wins over the main file;
 * - table b-trees (§1.6) are walked from their root page, cells' payloads
 *   reassembled from overflow chains (§1.7), and records decoded (§2.1).
 *
 * Only what the AgentMux store needs is supported: UTF-8 text, tables with
 * rowids whose columns are named in their `CREATE TABLE`. Anything else
 * throws {@link SqliteFileUnsupported} at open, and the caller reads the
 * store another way. A snapshot is the WAL's last commit when it was opened;
 * a checkpoint or WAL restart by a writer afterwards is detected (the main
 * file's times or size change, or a frame's salts no longer match) and
 * reported by {@link SqliteFile.changed}, since pages read after it may be
 * newer than the snapshot.
 *
 * @module
 */
import * as fs from "node:fs"

/** The database is not one this reader handles (text encoding, table shape, WAL version). Read it another way. */
export class SqliteFileUnsupported extends Error {}

/** The file is not a consistent SQLite database (or changed under the read); `changed` says which. */
export class SqliteFileError extends Error {
  constructor(message: string, readonly changed: boolean = false) {
    super(message)
  }
}

const WAL_MAGIC = 0x377f0682
const WAL_VERSION = 3007000
const WAL_HEADER = 32
const FRAME_HEADER = 24

/** A row of a table: its rowid and column values (`Buffer` for blobs, `string` for text). */
export type SqliteValue = null | number | string | Buffer

/** Where a cell's payload lives: its local bytes on a leaf page and the first overflow page (0: none). */
export interface Payload {
  /** Payload size in bytes. */
  readonly size: number
  /** The leaf page's number, its bytes, and where the local bytes start on it. */
  readonly pageNo: number
  readonly page: Buffer
  readonly localStart: number
  readonly localLength: number
  readonly overflow: number
}

/** The columns of a record: serial types and where each value starts in the payload (bytes). */
export interface RecordLayout {
  readonly types: ReadonlyArray<number>
  readonly offsets: ReadonlyArray<number>
}

/** A table of the schema: its root page and column names in order. */
export interface SqliteTable {
  readonly name: string
  readonly rootPage: number
  readonly columns: ReadonlyArray<string>
  /** Its `CREATE TABLE` text. */
  readonly sql: string
}

/** An index of the schema: its table, root page, and `CREATE INDEX` text (null for an automatic one). */
export interface SqliteIndex {
  readonly name: string
  readonly table: string
  readonly rootPage: number
  readonly sql: string | null
}

/** An open database file (see the module doc). Methods throw {@link SqliteFileError}. */
export interface SqliteFile {
  readonly pageSize: number
  /** Tables by name, from `sqlite_master`. */
  readonly tables: ReadonlyMap<string, SqliteTable>
  /** Indexes of the tables in {@link SqliteFile.tables}, from `sqlite_master`. */
  readonly indexes: ReadonlyArray<SqliteIndex>
  /**
   * Walk the index b-tree rooted at `root` in key order from the first entry
   * for which `below` is false (`below(p)`: the entry sorts before the wanted
   * range), calling `f` with each entry until it answers false.
   */
  readonly seekIndex: (root: number, below: (p: Payload) => boolean, f: (p: Payload) => boolean) => void
  /** The row with `rowid` in the table rooted at `root`, else null (its page stays valid). */
  readonly findRow: (root: number, rowid: number) => Payload | null
  /** Page `n` of the snapshot (a fresh buffer of `pageSize` bytes). */
  readonly page: (n: number) => Buffer
  /**
   * Call `f` with the payload of every row of the table rooted at `root`, in
   * rowid order. The payload's `page` is only valid during the call.
   */
  readonly scanTable: (root: number, f: (p: Payload) => void) => void
  /** Read payload bytes `[from, to)` into `out` at `at`; answers the bytes written. */
  readonly readPayload: (p: Payload, from: number, to: number, out: Buffer, at: number) => number
  /** The record layout of a payload. */
  readonly layout: (p: Payload) => RecordLayout
  /** The value of column `i` (null past the record's end: a column added later). */
  readonly value: (p: Payload, l: RecordLayout, i: number) => SqliteValue
  /** Why the snapshot may be stale (a checkpoint or WAL restart since it was opened), else null. */
  readonly changed: () => string | null
  /** Pages read from the `-wal` (committed frames in the snapshot) rather than the main file. */
  readonly walFrames: number
  readonly close: () => void
}

/** Byte length of a value of serial type `t` (§2.1). */
const serialLength = (t: number): number =>
  t >= 12 ? (t - 12) >> 1 : t <= 4 ? (t === 0 ? 0 : t) : t === 5 ? 6 : t === 6 || t === 7 ? 8 : 0

/**
 * The WAL checksum (§4.1) of `buf[from, to)` (a multiple of 8 bytes) seeded
 * with `s`, words read big-endian when `bigEndian`. Answers the new pair in `s`.
 */
export const walChecksum = (buf: Buffer, from: number, to: number, bigEndian: boolean, s: Uint32Array): void => {
  let s0 = s[0]
  let s1 = s[1]
  if (bigEndian) {
    for (let i = from; i < to; i += 8) {
      s0 = (s0 + buf.readUInt32BE(i) + s1) >>> 0
      s1 = (s1 + buf.readUInt32BE(i + 4) + s0) >>> 0
    }
  } else {
    for (let i = from; i < to; i += 8) {
      s0 = (s0 + buf.readUInt32LE(i) + s1) >>> 0
      s1 = (s1 + buf.readUInt32LE(i + 4) + s0) >>> 0
    }
  }
  s[0] = s0
  s[1] = s1
}

interface WalIndex {
  /** Page number → byte offset of its newest committed frame (header) in the `-wal`. */
  readonly frames: Map<number, number>
  /** Database size in pages at the last commit; null without one. */
  readonly dbPages: number | null
  readonly salt1: number
  readonly salt2: number
}

/** Index a `-wal` as SQLite's recovery does (§4.3): valid frames up to the last commit frame. */
const indexWal = (fd: number, size: number, pageSize: number): WalIndex => {
  const empty: WalIndex = { frames: new Map(), dbPages: null, salt1: 0, salt2: 0 }
  if (size < WAL_HEADER) return empty
  const hdr = Buffer.alloc(WAL_HEADER)
  if (fs.readSync(fd, hdr, 0, WAL_HEADER, 0) < WAL_HEADER) return empty
  const magic = hdr.readUInt32BE(0)
  if ((magic & 0xfffffffe) !== WAL_MAGIC) return empty
  const bigEndian = (magic & 1) === 1
  const s = new Uint32Array(2)
  walChecksum(hdr, 0, 24, bigEndian, s)
  if (s[0] !== hdr.readUInt32BE(24) || s[1] !== hdr.readUInt32BE(28)) return empty
  if (hdr.readUInt32BE(4) !== WAL_VERSION) throw new SqliteFileUnsupported(`WAL format ${hdr.readUInt32BE(4)}`)
  const walPage = hdr.readUInt32BE(8)
  if (walPage !== pageSize) throw new SqliteFileUnsupported(`WAL page size ${walPage} differs from ${pageSize}`)
  const salt1 = hdr.readUInt32BE(16)
  const salt2 = hdr.readUInt32BE(20)
  const frameSize = FRAME_HEADER + pageSize
  const perStep = Math.max(1, Math.floor((4 << 20) / frameSize))
  const buf = Buffer.allocUnsafe(perStep * frameSize)
  const frames = new Map<number, number>()
  const pending: Array<number> = []
  let dbPages: number | null = null
  let off = WAL_HEADER
  for (;;) {
    const want = Math.min(perStep, Math.floor((size - off) / frameSize)) * frameSize
    if (want <= 0) break
    const got = fs.readSync(fd, buf, 0, want, off)
    let ok = true
    for (let i = 0; i + frameSize <= got; i += frameSize) {
      const pgno = buf.readUInt32BE(i)
      if (pgno === 0 || buf.readUInt32BE(i + 8) !== salt1 || buf.readUInt32BE(i + 12) !== salt2) {
        ok = false
        break
      }
      walChecksum(buf, i, i + 8, bigEndian, s)
      walChecksum(buf, i + FRAME_HEADER, i + frameSize, bigEndian, s)
      if (s[0] !== buf.readUInt32BE(i + 16) || s[1] !== buf.readUInt32BE(i + 20)) {
        ok = false
        break
      }
      pending.push(pgno, off + i)
      const commit = buf.readUInt32BE(i + 4)
      if (commit !== 0) {
        for (let j = 0; j < pending.length; j += 2) frames.set(pending[j], pending[j + 1])
        pending.length = 0
        dbPages = commit
      }
    }
    if (!ok || got < want) break
    off += got
  }
  return { frames, dbPages, salt1, salt2 }
}

/** Split a `CREATE TABLE` body into its definitions (commas at depth 0, outside quotes). */
const definitions = (body: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let from = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    if (c === "'" || c === "\"" || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c
      let j = i + 1
      for (; j < body.length; j++) {
        if (body[j] === close) {
          if (close !== "]" && body[j + 1] === close) j++
          else break
        }
      }
      i = j
    } else if (c === "(") depth++
    else if (c === ")") depth--
    else if (c === "," && depth === 0) {
      out.push(body.slice(from, i))
      from = i + 1
    }
  }
  out.push(body.slice(from))
  return out.map((d) => d.trim()).filter((d) => d.length > 0)
}

const CONSTRAINT = /^(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i

/**
 * The column names of a `CREATE TABLE` statement, in order; throws
 * {@link SqliteFileUnsupported} for a table this reader cannot decode
 * (`WITHOUT ROWID`, an `INTEGER PRIMARY KEY` column, which lives in the rowid).
 */
export const columnsOf = (sql: string): Array<string> => {
  const open = sql.indexOf("(")
  const close = sql.lastIndexOf(")")
  if (open < 0 || close < open) throw new SqliteFileUnsupported(`table definition not understood: ${sql.slice(0, 80)}`)
  if (/\bWITHOUT\s+ROWID\b/i.test(sql.slice(close))) throw new SqliteFileUnsupported("WITHOUT ROWID table")
  const columns: Array<string> = []
  for (const d of definitions(sql.slice(open + 1, close))) {
    if (CONSTRAINT.test(d)) continue
    const m = /^(?:"((?:[^"]|"")*)"|`((?:[^`]|``)*)`|\[([^\]]*)\]|'((?:[^']|'')*)'|([^\s(]+))\s*(.*)$/s.exec(d)
    if (m === null) throw new SqliteFileUnsupported(`column definition not understood: ${d.slice(0, 80)}`)
    const name = m[1]?.replace(/""/g, "\"") ?? m[2]?.replace(/``/g, "`") ?? m[3] ?? m[4]?.replace(/''/g, "'") ?? m[5]
    if (/^INTEGER\s+PRIMARY\s+KEY\b/i.test(m[6])) throw new SqliteFileUnsupported(`rowid alias column ${name}`)
    columns.push(name)
  }
  return columns
}

/**
 * Open the database at `path` (a regular file, not followed if a symlink)
 * with its `-wal`, read-only. Throws {@link SqliteFileUnsupported} when it is
 * not a database this reader handles, {@link SqliteFileError} when it is
 * inconsistent, and the `fs` error when it cannot be read.
 */
export const openSqliteFile = (path: string): SqliteFile => {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
  let walFd: number | null = null
  const closeAll = () => {
    fs.closeSync(fd)
    if (walFd !== null) fs.closeSync(walFd)
    walFd = null
  }
  try {
    const st0 = fs.fstatSync(fd)
    const head = Buffer.alloc(100)
    if (fs.readSync(fd, head, 0, 100, 0) < 100) throw new SqliteFileError("not a SQLite database (short header)")
    const rawPage = head.readUInt16BE(16)
    const pageSize = rawPage === 1 ? 65536 : rawPage
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new SqliteFileError(`bad page size ${rawPage}`)
    const usable = pageSize - head[20]
    if (usable < 480) throw new SqliteFileError("bad reserved space")
    const encoding = head.readUInt32BE(56)
    if (encoding !== 0 && encoding !== 1) throw new SqliteFileUnsupported(`text encoding ${encoding}`)
    try {
      walFd = fs.openSync(`${path}-wal`, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
    }
    let wal: WalIndex = { frames: new Map(), dbPages: null, salt1: 0, salt2: 0 }
    if (walFd !== null) {
      const ws = fs.fstatSync(walFd)
      if (!ws.isFile()) throw new SqliteFileUnsupported(`${path}-wal is not a regular file`)
      wal = indexWal(walFd, ws.size, pageSize)
    }
    const headerPages = head.readUInt32BE(28)
    const dbPages = wal.dbPages ??
      (headerPages > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) ? headerPages : Math.floor(st0.size / pageSize))

    const frameBuf = Buffer.allocUnsafe(FRAME_HEADER + pageSize)
    let stale: string | null = null
    /** Read page `n` into `out` at `at` (pageSize bytes). */
    const readPage = (n: number, out: Buffer, at: number): void => {
      if (n < 1 || n > dbPages) throw new SqliteFileError(`page ${n} is outside the database (${dbPages} pages)`)
      const f = wal.frames.get(n)
      if (f !== undefined) {
        fs.readSync(walFd!, frameBuf, 0, FRAME_HEADER + pageSize, f)
        if (frameBuf.readUInt32BE(0) !== n || frameBuf.readUInt32BE(8) !== wal.salt1 || frameBuf.readUInt32BE(12) !== wal.salt2) {
          stale = "its -wal was restarted while it was read"
          throw new SqliteFileError(stale, true)
        }
        frameBuf.copy(out, at, FRAME_HEADER, FRAME_HEADER + pageSize)
        return
      }
      const got = fs.readSync(fd, out, at, pageSize, (n - 1) * pageSize)
      if (got < pageSize) throw new SqliteFileError(`page ${n} is past the end of the file`)
    }
    const page = (n: number): Buffer => {
      const b = Buffer.allocUnsafe(pageSize)
      readPage(n, b, 0)
      return b
    }

    // A window of consecutive main-file pages, for overflow chains laid out in order.
    const WINDOW_PAGES = Math.max(1, Math.floor((1 << 20) / pageSize))
    const win = Buffer.allocUnsafe(WINDOW_PAGES * pageSize)
    let winFirst = 0
    let winCount = 0
    /** Each window page's whole content (after its next-page field), as a view made once: copied without a new view. */
    const winContent = Array.from({ length: WINDOW_PAGES }, (_, k) => win.subarray(k * pageSize + 4, k * pageSize + usable))
    /** Where page `n` is in `win` (read with up to `remainingPages` - 1 pages after it when not there). */
    const overflowPage = (n: number, remainingPages: number): number => {
      const inWal = wal.frames.size > 0 && wal.frames.has(n)
      if (!inWal && n >= winFirst && n < winFirst + winCount) return (n - winFirst) * pageSize
      if (inWal) {
        winCount = 0
        readPage(n, win, 0)
        return 0
      }
      if (n < 1 || n > dbPages) throw new SqliteFileError(`page ${n} is outside the database (${dbPages} pages)`)
      const count = Math.max(1, Math.min(remainingPages, WINDOW_PAGES, dbPages - n + 1))
      const got = fs.readSync(fd, win, 0, count * pageSize, (n - 1) * pageSize)
      winFirst = n
      winCount = Math.floor(got / pageSize)
      if (winCount < 1) throw new SqliteFileError(`page ${n} is past the end of the file`)
      return 0
    }

    const varint = (b: Buffer, o: number, into: Float64Array): number => {
      let v = 0
      for (let i = 0; i < 8; i++) {
        const c = b[o + i]
        v = v * 128 + (c & 0x7f)
        if (c < 0x80) {
          into[0] = v
          return o + i + 1
        }
      }
      into[0] = v * 256 + b[o + 8]
      return o + 9
    }
    const vv = new Float64Array(1)
    const maxLocal = usable - 35
    const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23

    const scanTable = (root: number, f: (p: Payload) => void): void => {
      const stack: Array<number> = [root]
      let visited = 0
      const b = Buffer.allocUnsafe(pageSize) // every page of the walk in turn: a payload's page is valid during its call
      while (stack.length > 0) {
        const n = stack.pop()!
        if (++visited > dbPages) throw new SqliteFileError("a b-tree loops")
        readPage(n, b, 0)
        const h = n === 1 ? 100 : 0
        const type = b[h]
        const cells = b.readUInt16BE(h + 3)
        if (type === 0x05) {
          stack.push(b.readUInt32BE(h + 8))
          for (let i = cells - 1; i >= 0; i--) stack.push(b.readUInt32BE(b.readUInt16BE(h + 12 + 2 * i)))
        } else if (type === 0x0d) {
          for (let i = 0; i < cells; i++) {
            let o = b.readUInt16BE(h + 8 + 2 * i)
            o = varint(b, o, vv)
            const size = vv[0]
            o = varint(b, o, vv) // rowid
            let local = size
            if (size > maxLocal) {
              const k = minLocal + ((size - minLocal) % (usable - 4))
              local = k <= maxLocal ? k : minLocal
            }
            if (o + local + (local < size ? 4 : 0) > pageSize) throw new SqliteFileError(`cell past the end of page ${n}`)
            f({ size, pageNo: n, page: b, localStart: o, localLength: local, overflow: local < size ? b.readUInt32BE(o + local) : 0 })
          }
        } else {
          throw new SqliteFileError(`page ${n} is not a table b-tree page (type ${type})`)
        }
      }
    }

    const readPayload = (p: Payload, from: number, to: number, out: Buffer, at: number): number => {
      const end = Math.min(to, p.size)
      let written = 0
      if (from < p.localLength) {
        const n = Math.min(end, p.localLength) - from
        if (n > 0) {
          p.page.copy(out, at, p.localStart + from, p.localStart + from + n)
          written += n
        }
      }
      const per = usable - 4
      let pos = p.localLength
      let next = p.overflow
      let hops = 0
      while (pos < end && next !== 0) {
        if (++hops > dbPages) throw new SqliteFileError("an overflow chain loops")
        const o = overflowPage(next, Math.ceil((end - pos) / per))
        const buf = win
        const len = Math.min(per, p.size - pos)
        const a = Math.max(from, pos)
        const z = Math.min(end, pos + len)
        if (z > a) {
          if (a === pos && z - a === per) out.set(winContent[o / pageSize], at + (a - from))
          else buf.copy(out, at + (a - from), o + 4 + (a - pos), o + 4 + (z - pos))
          written += z - a
        }
        next = buf.readUInt32BE(o)
        pos += per
      }
      if (pos < end) throw new SqliteFileError("an overflow chain ends early")
      return written
    }

    const layout = (p: Payload): RecordLayout => {
      // The header is read where it lies on the leaf page when it is all there (the usual case).
      let hb = p.page
      let o = varint(hb, p.localStart, vv) - p.localStart
      let hdrLen = vv[0]
      let base = p.localStart
      if (!(hdrLen <= p.localLength && o <= p.localLength)) {
        hb = Buffer.alloc(Math.min(p.size, 256) + 9)
        readPayload(p, 0, hb.length - 9, hb, 0)
        o = varint(hb, 0, vv)
        hdrLen = vv[0]
        base = 0
        if (hdrLen > p.size || hdrLen < o) throw new SqliteFileError("a record header is malformed")
        if (hdrLen > hb.length - 9) {
          hb = Buffer.alloc(hdrLen + 9)
          readPayload(p, 0, hdrLen, hb, 0)
        }
      }
      if (hdrLen < o) throw new SqliteFileError("a record header is malformed")
      const types: Array<number> = []
      const offsets: Array<number> = []
      let body = hdrLen
      o += base
      hdrLen += base
      while (o < hdrLen) {
        o = varint(hb, o, vv)
        types.push(vv[0])
        offsets.push(body)
        body += serialLength(vv[0])
      }
      if (body > p.size) throw new SqliteFileError("a record is longer than its payload")
      return { types, offsets }
    }

    const value = (p: Payload, l: RecordLayout, i: number): SqliteValue => {
      if (i >= l.types.length) return null
      const t = l.types[i]
      if (t === 0) return null
      if (t === 8) return 0
      if (t === 9) return 1
      if (t === 10 || t === 11) throw new SqliteFileError("a record uses a reserved serial type")
      const len = serialLength(t)
      const off = l.offsets[i]
      let b: Buffer
      let at = 0
      if (off + len <= p.localLength) {
        b = p.page // on the leaf page: read in place
        at = p.localStart + off
      } else {
        b = Buffer.allocUnsafe(len)
        readPayload(p, off, off + len, b, 0)
      }
      if (t >= 13) return b.toString("utf8", at, at + len)
      if (t >= 12) return at === 0 && b.length === len ? b : Buffer.from(b.subarray(at, at + len))
      if (t === 7) return b.readDoubleBE(at)
      if (t === 6) return Number(b.readBigInt64BE(at))
      return b.readIntBE(at, len)
    }

    // Pages of seeks (interior pages are met again and again), kept while few.
    const seekPages = new Map<number, Buffer>()
    const seekPage = (n: number): Buffer => {
      let b = seekPages.get(n)
      if (b === undefined) {
        b = page(n)
        if (seekPages.size >= 256) seekPages.clear()
        seekPages.set(n, b)
      }
      return b
    }
    const maxIndexLocal = Math.floor(((usable - 12) * 64) / 255) - 23
    /** The payload of an index cell whose payload-size varint is at `o` of page `n`. */
    const indexPayload = (n: number, b: Buffer, o: number): Payload => {
      o = varint(b, o, vv)
      const size = vv[0]
      let local = size
      if (size > maxIndexLocal) {
        const k = minLocal + ((size - minLocal) % (usable - 4))
        local = k <= maxIndexLocal ? k : minLocal
      }
      if (o + local + (local < size ? 4 : 0) > pageSize) throw new SqliteFileError(`cell past the end of page ${n}`)
      return { size, pageNo: n, page: b, localStart: o, localLength: local, overflow: local < size ? b.readUInt32BE(o + local) : 0 }
    }
    const seekIndex = (root: number, below: (p: Payload) => boolean, f: (p: Payload) => boolean): void => {
      let visited = 0
      const visit = (n: number, depth: number): boolean => {
        if (++visited > dbPages || depth > 64) throw new SqliteFileError("an index b-tree loops")
        const b = seekPage(n)
        const h = n === 1 ? 100 : 0
        const type = b[h]
        const cells = b.readUInt16BE(h + 3)
        if (type !== 0x0a && type !== 0x02) throw new SqliteFileError(`page ${n} is not an index b-tree page (type ${type})`)
        const leaf = type === 0x0a
        const cellAt = (i: number) => b.readUInt16BE(h + (leaf ? 8 : 12) + 2 * i)
        const entry = (i: number) => indexPayload(n, b, cellAt(i) + (leaf ? 0 : 4))
        // The cells are in key order: the first one not below the range, by bisection.
        let lo = 0
        let hi = cells
        while (lo < hi) {
          const mid = (lo + hi) >> 1
          if (below(entry(mid))) lo = mid + 1
          else hi = mid
        }
        for (let i = lo; i < cells; i++) {
          // An interior cell's left child holds the keys just before its own (cells before `lo`: only smaller keys).
          if (!leaf && !visit(b.readUInt32BE(cellAt(i)), depth + 1)) return false
          if (!f(entry(i))) return false
        }
        return leaf || visit(b.readUInt32BE(h + 8), depth + 1)
      }
      visit(root, 0)
    }
    const findRow = (root: number, rowid: number): Payload | null => {
      let n = root
      for (let depth = 0; depth < 64; depth++) {
        const b = seekPage(n)
        const h = n === 1 ? 100 : 0
        const type = b[h]
        const cells = b.readUInt16BE(h + 3)
        if (type === 0x05) {
          let lo = 0
          let hi = cells // the first cell whose key is >= rowid
          while (lo < hi) {
            const mid = (lo + hi) >> 1
            varint(b, b.readUInt16BE(h + 12 + 2 * mid) + 4, vv)
            if (vv[0] < rowid) lo = mid + 1
            else hi = mid
          }
          n = lo < cells ? b.readUInt32BE(b.readUInt16BE(h + 12 + 2 * lo)) : b.readUInt32BE(h + 8)
          continue
        }
        if (type !== 0x0d) throw new SqliteFileError(`page ${n} is not a table b-tree page (type ${type})`)
        for (let i = 0; i < cells; i++) {
          let o = varint(b, b.readUInt16BE(h + 8 + 2 * i), vv)
          const size = vv[0]
          o = varint(b, o, vv)
          if (vv[0] !== rowid) continue
          let local = size
          if (size > maxLocal) {
            const k = minLocal + ((size - minLocal) % (usable - 4))
            local = k <= maxLocal ? k : minLocal
          }
          if (o + local + (local < size ? 4 : 0) > pageSize) throw new SqliteFileError(`cell past the end of page ${n}`)
          return { size, pageNo: n, page: b, localStart: o, localLength: local, overflow: local < size ? b.readUInt32BE(o + local) : 0 }
        }
        return null
      }
      throw new SqliteFileError("a table b-tree is too deep")
    }

    const tables = new Map<string, SqliteTable>()
    const indexes: Array<SqliteIndex> = []
    scanTable(1, (p) => {
      const l = layout(p)
      const kind = value(p, l, 0)
      if (kind === "index") {
        const name = value(p, l, 1)
        const table = value(p, l, 2)
        const root = value(p, l, 3)
        const sql = value(p, l, 4)
        if (typeof name === "string" && typeof table === "string" && typeof root === "number" && root > 0) {
          indexes.push({ name, table, rootPage: root, sql: typeof sql === "string" ? sql : null })
        }
        return
      }
      if (kind !== "table") return
      const name = value(p, l, 1)
      const root = value(p, l, 3)
      const sql = value(p, l, 4)
      if (typeof name !== "string" || typeof root !== "number" || typeof sql !== "string") return
      if (name === "db_wave_file" || name === "db_file_data") tables.set(name, { name, rootPage: root, columns: columnsOf(sql), sql })
    })

    const changed = (): string | null => {
      if (stale !== null) return stale
      const st = fs.fstatSync(fd)
      if (st.size !== st0.size || st.mtimeMs !== st0.mtimeMs || st.ctimeMs !== st0.ctimeMs) {
        stale = "was checkpointed while it was read"
      }
      return stale
    }
    return {
      pageSize,
      tables,
      indexes: indexes.filter((i) => tables.has(i.table)),
      seekIndex,
      findRow,
      page,
      scanTable,
      readPayload,
      layout,
      value,
      changed,
      walFrames: wal.frames.size,
      close: closeAll
    }
  } catch (e) {
    closeAll()
    throw e
  }
}
