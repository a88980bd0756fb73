/**
 * AgentMux's global transcript store (`filestore.db`), read-only: the files
 * of a zone and their bytes, reassembled from 64 KiB parts.
 *
 * Store facts (DESIGN.md, "Providers"): tables `db_wave_file(zoneid, name,
 * size, createdts, modts, …)` and `db_file_data(zoneid, name, partidx, data)`;
 * `partidx = offset / 65536`. Reading never writes to the store and never
 * creates a file beside it (issue 5). Live layer (SQLite through
 * better-sqlite3, see `./sqlite-driver.ts`): `src/layers/agentmux/transcript-store-sqlite.ts`;
 * in-memory test layer: {@link TranscriptStore.layerTest}.
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { PART_SIZE } from "../../domain/agentmux/record.js"
import type { SourceAccessError, StoreUnavailable } from "../../domain/errors.js"
import type { WorkerProbe } from "../worker-probe.js"

/** A file of the store as `db_wave_file` lists it. Sizes in bytes, times in unix ms. */
export interface StoreFile {
  readonly zoneId: string
  readonly name: string
  readonly size: number
  readonly createdTs: number | null
  readonly modTs: number | null
  /** A generation column (`gen`, `rev`) when the store has one, as text; else null. */
  readonly generation: string | null
  /**
   * The `db_wave_file.size` the store states, as text (its first 40
   * characters, any but printable ASCII as `?`), when it is no byte
   * count (negative, not an integer, past 2^53, not a number): not trusted,
   * `size` is then the bytes the file's parts hold (to the end of its last
   * part's data). Absent when the stated size is used.
   */
  readonly sizeNotValid?: string
}

/** The last part of a file present in the store (a row whose data is bytes): its index and its data's length (bytes). */
export interface LastPart {
  readonly index: number
  readonly length: number
}

/**
 * Bytes `[offset, offset + bytes.length)` of a file. Where a part is missing
 * (or shorter than it should be) the bytes are zero and the range is listed
 * in `missing`, so callers can drop what it touches instead of reading garbage.
 */
export interface StoreRead {
  readonly bytes: Buffer
  readonly missing: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

/**
 * Bytes `[offset, offset + length)` of a file as consecutive chunks (each a
 * part's bytes, or the part of them in the range), not copied into one
 * buffer: a part present whole is a view of its data, a missing or short one
 * a buffer of its own, zero where bytes are missing (listed in `missing`,
 * as {@link StoreRead} lists them).
 */
export interface StoreChunks {
  readonly chunks: ReadonlyArray<Buffer>
  readonly missing: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

/** An open store. */
export interface StoreConnection {
  /** The store's real path. */
  readonly path: string
  /** `direct`: the store itself, read-only (rollback journal); `snapshot`: a WAL store as of its last commit, read from a private copy. */
  readonly mode: "direct" | "snapshot" | "memory"
  /**
   * The private copy this connection reads (a WAL store's read copy or
   * snapshot, session-ingest's own file), which another thread may open
   * read-only to read the same bytes (`parallel-scan.ts`); absent when the
   * store itself (or memory) is read.
   */
  readonly readCopy?: string
  /**
   * Scan workers of `entry` started while this read copy's main file was
   * first copied into the cache (a store never read through it before: its
   * first scan is coming), so that they load beside the copy (issue 13);
   * `probe` answers them (`probeWorker`'s answer), for the parallel scan
   * to take instead of starting its own. Absent otherwise.
   */
  readonly workersAhead?: { readonly entry: string; readonly probe: Effect.Effect<WorkerProbe> }
  /** The files of every zone whose id starts with `zonePrefix`. */
  readonly listFiles: (zonePrefix: string) => Effect.Effect<ReadonlyArray<StoreFile>, StoreUnavailable>
  /**
   * Read `length` bytes of `file` at `offset` (clipped to `file.size`), from
   * its parts. With `into` (at least that long), the bytes are written into it
   * and `bytes` is a view of it, so a caller reading step after step can reuse
   * one buffer (the view is valid until its next read into it).
   */
  readonly read: (file: StoreFile, offset: number, length: number, into?: Buffer) => Effect.Effect<StoreRead, StoreUnavailable>
  /**
   * The same bytes as {@link read}, as chunks ({@link StoreChunks}: no copy
   * of the parts into one buffer; issue 13, a first scan's reads). Absent
   * when the connection has no such read (callers then use `read`).
   */
  readonly readChunks?: (file: StoreFile, offset: number, length: number) => Effect.Effect<StoreChunks, StoreUnavailable>
  /**
   * The index of the first part of `file` present in the store (a row whose
   * data is bytes) at or after part `index`; null when there is none. Lets
   * a reader cross parts that are not there (a `db_wave_file.size` past the
   * parts, a gap) in one step instead of one read per part (issue 7: no
   * input may hang us). Absent: callers read through them.
   */
  readonly nextPart?: (file: StoreFile, index: number) => Effect.Effect<number | null, StoreUnavailable>
  /** The last part of `file` present in the store ({@link LastPart}); null when it has none. Absent: not known. */
  readonly lastPart?: (file: StoreFile) => Effect.Effect<LastPart | null, StoreUnavailable>
}

/** What opening a store finds: no file there (`absent`: reads nothing), or an open store. */
export type StoreOpen =
  | { readonly _tag: "absent"; readonly path: string }
  | { readonly _tag: "open"; readonly connection: StoreConnection }

/** The service's operations. */
export interface TranscriptStoreShape {
  /**
   * Open the store at `path` for the scope. Absent → `{_tag: "absent"}`.
   * Fails: `SourceSymlink` / `SourceNotRegularFile` / `SourceNotAuthorized`
   * (a symlink, folder or unreadable file), `StoreUnavailable` (not a SQLite
   * database, not AgentMux's schema, or it cannot be opened).
   */
  readonly open: (path: string) => Effect.Effect<StoreOpen, StoreUnavailable | SourceAccessError, Scope.Scope>
  /**
   * The channels' own stores under the AgentMux home `root` (issue 18; see
   * {@link isChannelStorePath}), by real path, sorted: each reached from
   * `root` through folders only (no symlink followed), a regular file or
   * anything else but a symlink in a store's place (a folder, a fifo, a
   * device: `open` refuses it, and discovery says the channel's store could
   * not be read). A root that does not exist, or a folder that cannot be
   * listed, has none.
   */
  readonly channelStores: (root: string) => Effect.Effect<ChannelStores>
}

/**
 * The channels' stores found under an AgentMux home (`stores`, sorted), and
 * the symlinks found where a store or a folder on its path would be
 * (`symlinks`, sorted paths): not followed, so what is behind them was not
 * read (discovery's `SYMLINK_SKIPPED`).
 */
export interface ChannelStores {
  readonly stores: ReadonlyArray<string>
  readonly symlinks: ReadonlyArray<string>
}

/**
 * Whether `rel` (a path relative to an AgentMux home, `/`-separated) is where
 * a channel keeps its own transcript store: `channels/<ch>/versions/<v>/data/db/filestore.db`,
 * `dev/<branch>/data/db/filestore.db` or `dev/<branch>/<sub>/data/db/filestore.db`
 * (AgentMux: a channel's data dir, `transcript_backfill::collect_data_dirs`,
 * holding `db/filestore.db`, where `agent_session::archive::archive_session`
 * writes the archives of "New conversation").
 */
export const isChannelStorePath = (rel: string): boolean => {
  const p = rel.split("/")
  const tail = (n: number) => p.length === n + 3 && p[n] === "data" && p[n + 1] === "db" && p[n + 2] === "filestore.db"
  const named = (xs: ReadonlyArray<string>) => xs.every((x) => x.length > 0 && x !== "." && x !== "..")
  if (p[0] === "channels") return tail(4) && p[2] === "versions" && named([p[1], p[3]])
  if (p[0] === "dev") return (tail(2) && named([p[1]])) || (tail(3) && named([p[1], p[2]]))
  return false
}

/** One file of an in-memory store. `missingParts`: part indices to leave out (a damaged store). */
export interface MemoryFile {
  readonly zoneId: string
  readonly name: string
  readonly bytes: Uint8Array
  readonly createdTs?: number
  readonly generation?: string
  readonly missingParts?: ReadonlyArray<number>
  /** The size `db_wave_file` states, in bytes (default: `bytes.length`): a store whose size says more than its parts. */
  readonly size?: number
}

/** Counters of an in-memory store: how many bytes each file had read from it. */
export interface MemoryStoreStats {
  readonly bytesRead: Map<string, number>
}

/** Read from parts held in memory: the same reassembly rules as the live store. */
export const readFromParts = (
  file: StoreFile,
  offset: number,
  length: number,
  part: (idx: number) => Uint8Array | undefined,
  into?: Buffer
): StoreRead => {
  const start = Math.max(0, Math.min(offset, file.size))
  const end = Math.max(start, Math.min(offset + length, file.size))
  // A reused buffer is not zeroed first: every byte is either copied from a part or zeroed as missing below.
  const out = into !== undefined && into.length >= end - start ? into.subarray(0, end - start) : Buffer.alloc(end - start)
  const missing: Array<{ start: number; end: number }> = []
  const addMissing = (s: number, e: number) => {
    const last = missing[missing.length - 1]
    if (last !== undefined && last.end === s) missing[missing.length - 1] = { start: last.start, end: e }
    else missing.push({ start: s, end: e })
  }
  for (let idx = Math.floor(start / PART_SIZE); idx * PART_SIZE < end; idx++) {
    const partStart = idx * PART_SIZE
    const from = Math.max(start, partStart)
    const to = Math.min(end, partStart + PART_SIZE)
    const data = part(idx)
    const have = data === undefined ? 0 : Math.min(data.length, PART_SIZE)
    const availTo = Math.min(to, partStart + have)
    if (data !== undefined && availTo > from) {
      out.set(data.subarray(from - partStart, availTo - partStart), from - start)
    }
    if (availTo < to) {
      addMissing(Math.max(from, availTo), to)
      out.fill(0, Math.max(from, availTo) - start, to - start)
    }
  }
  return { bytes: out, missing }
}

/**
 * {@link readFromParts} as chunks ({@link StoreChunks}): the same bytes and
 * missing ranges, a part present whole handed on as a view of its data.
 */
export const chunksFromParts = (
  file: StoreFile,
  offset: number,
  length: number,
  part: (idx: number) => Uint8Array | undefined
): StoreChunks => {
  const start = Math.max(0, Math.min(offset, file.size))
  const end = Math.max(start, Math.min(offset + length, file.size))
  const chunks: Array<Buffer> = []
  const missing: Array<{ start: number; end: number }> = []
  for (let idx = Math.floor(start / PART_SIZE); idx * PART_SIZE < end; idx++) {
    const partStart = idx * PART_SIZE
    const from = Math.max(start, partStart)
    const to = Math.min(end, partStart + PART_SIZE)
    const data = part(idx)
    if (data !== undefined && Math.min(data.length, PART_SIZE) >= to - partStart) {
      chunks.push(Buffer.from(data.buffer, data.byteOffset + from - partStart, to - from))
      continue
    }
    const r = readFromParts(file, from, to - from, part)
    chunks.push(r.bytes)
    for (const m of r.missing) {
      const last = missing[missing.length - 1]
      if (last !== undefined && last.end === m.start) missing[missing.length - 1] = { start: last.start, end: m.end }
      else missing.push({ start: m.start, end: m.end })
    }
  }
  return { chunks, missing }
}

/** The AgentMux transcript store. */
export class TranscriptStore extends Context.Tag("session-ingest/TranscriptStore")<TranscriptStore, TranscriptStoreShape>() {
  /**
   * Test layer: stores held in memory, by path (any other path is absent;
   * the channel stores under a root are the paths {@link isChannelStorePath} accepts).
   * Files are cut into 64 KiB parts as the live store cuts them; `stats`
   * counts the bytes read per `zoneId/name`.
   */
  static layerTest = (
    stores: Record<string, ReadonlyArray<MemoryFile>>,
    stats: MemoryStoreStats = { bytesRead: new Map() }
  ): Layer.Layer<TranscriptStore> =>
    Layer.succeed(TranscriptStore, {
      channelStores: (root) =>
        Effect.sync(() => ({
          stores: Object.keys(stores).filter((p) => p.startsWith(`${root}/`) && isChannelStorePath(p.slice(root.length + 1))).sort(),
          symlinks: []
        })),
      open: (path) =>
        Effect.sync((): StoreOpen => {
          const files = stores[path]
          if (files === undefined) return { _tag: "absent", path }
          const connection: StoreConnection = {
            path,
            mode: "memory",
            listFiles: (prefix) =>
              Effect.succeed(
                files.filter((f) => f.zoneId.startsWith(prefix)).map((f) => ({
                  zoneId: f.zoneId,
                  name: f.name,
                  size: f.size ?? f.bytes.length,
                  createdTs: f.createdTs ?? null,
                  modTs: null,
                  generation: f.generation ?? null
                }))
              ),
            read: (file, offset, length, into) =>
              Effect.sync(() => {
                const f = files.find((x) => x.zoneId === file.zoneId && x.name === file.name)
                const key = `${file.zoneId}/${file.name}`
                const r = readFromParts(file, offset, length, (idx) =>
                  f === undefined || (f.missingParts ?? []).includes(idx)
                    ? undefined
                    : f.bytes.subarray(idx * PART_SIZE, (idx + 1) * PART_SIZE), into)
                stats.bytesRead.set(key, (stats.bytesRead.get(key) ?? 0) + r.bytes.length)
                return r
              }),
            nextPart: (file, index) =>
              Effect.sync(() => {
                const f = files.find((x) => x.zoneId === file.zoneId && x.name === file.name)
                if (f === undefined) return null
                const count = Math.ceil(f.bytes.length / PART_SIZE)
                for (let idx = Math.max(0, index); idx < count; idx++) if (!(f.missingParts ?? []).includes(idx)) return idx
                return null
              }),
            lastPart: (file) =>
              Effect.sync(() => {
                const f = files.find((x) => x.zoneId === file.zoneId && x.name === file.name)
                if (f === undefined) return null
                for (let idx = Math.ceil(f.bytes.length / PART_SIZE) - 1; idx >= 0; idx--) {
                  if (!(f.missingParts ?? []).includes(idx)) return { index: idx, length: Math.min(PART_SIZE, f.bytes.length - idx * PART_SIZE) }
                }
                return null
              })
          }
          return { _tag: "open", connection }
        })
    })
}
