/**
 * A zone's range scanned by several worker threads (issue 13: the first scan
 * of a long record). The range is cut at line boundaries into pieces, each
 * scanned by a worker (`scan-worker.ts`, through @effect/platform's Worker
 * pool on Node worker threads) from the connection's private read copy, and
 * the pieces come back in record order, to be folded by `applyRange`: the
 * same scan as one pass over the range (a line never straddles two pieces,
 * and each piece starts as a pass would after a `\n`: no carried bytes).
 *
 * Only a private copy is read this way (a WAL store's read copy or snapshot:
 * session-ingest's own file, `StoreConnection.readCopy`); a store read in
 * place, an in-memory store, a short range, or no worker entry to start (a
 * bundle without it) is scanned in this thread.
 *
 * Settings (environment): `SESSION_INGEST_SCAN_WORKERS`, the number of
 * workers (0: none; default: the available parallelism, at most 4), and
 * `SESSION_INGEST_SCAN_PARALLEL_BYTES`, the shortest range worth them
 * (default 64 MiB: a worker's start-up, ~0.1 s, is repaid above it).
 *
 * @module
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { PART_SIZE } from "../../domain/agentmux/record.js"
import { StoreUnavailable } from "../../domain/errors.js"
import { type RangeScan, scanRange } from "./range-scan.js"
import type { StoreConnection, StoreFile } from "./TranscriptStore.js"

/** Pieces per worker: a worker that finishes early takes another (a busy core shares its load). */
const PIECES_PER_WORKER = 2

/**
 * The worker pool's module (`./scan-pool.ts`), loaded on first use: a
 * rescan of a short append never starts a worker, and loading the pool's
 * modules (@effect/platform's Worker, the request's schema) costs a rescan
 * their start-up and the garbage of it (issue 13: the rescan's < 60 ms).
 */
const pool = Effect.promise(() => import("./scan-pool.js"))

/** The parallel scan's settings (see the module doc). */
export interface ParallelSettings {
  readonly workers: number
  readonly minBytes: number
  /** The worker entry to start (default: {@link workerEntry}'s; tests give a broken one). */
  readonly entry?: string | undefined
}

const defaultWorkers = () => Math.min(4, os.availableParallelism())
const DEFAULT_MIN_BYTES = 64 * 1024 * 1024
/** The settings when one is not an integer: no worker. */
const NO_WORKERS: ParallelSettings = { workers: 0, minBytes: Number.MAX_SAFE_INTEGER }

const clamp = (s: ParallelSettings): ParallelSettings => ({ workers: Math.max(0, s.workers), minBytes: Math.max(1, s.minBytes) })

/** {@link ParallelSettings} through Effect's `Config`, from the `ConfigProvider` in force, with their defaults. */
const viaConfig: Effect.Effect<ParallelSettings> = Effect.suspend(() =>
  Effect.all({
    workers: Config.integer("SESSION_INGEST_SCAN_WORKERS").pipe(Config.withDefault(defaultWorkers())),
    minBytes: Config.integer("SESSION_INGEST_SCAN_PARALLEL_BYTES").pipe(Config.withDefault(DEFAULT_MIN_BYTES))
  })
).pipe(
  Effect.map(clamp),
  Effect.orElseSucceed(() => NO_WORKERS)
)

/**
 * {@link ParallelSettings} from `env` as `Config.integer` reads them from
 * the default `ConfigProvider` (`ConfigProvider.fromEnv`): a variable that
 * is not set takes its default; one that is set is read by `Number` (blanks
 * around it ignored, `""` is 0) and must be an integer, else no worker.
 */
export const settingsFromEnv = (env: Readonly<Record<string, string | undefined>>): ParallelSettings => {
  const int = (name: string, fallback: () => number): number | null => {
    if (!(name in env)) return fallback()
    const n = Number(env[name])
    return Number.isInteger(n) ? n : null
  }
  const workers = int("SESSION_INGEST_SCAN_WORKERS", defaultWorkers)
  const minBytes = int("SESSION_INGEST_SCAN_PARALLEL_BYTES", () => DEFAULT_MIN_BYTES)
  return workers === null || minBytes === null ? NO_WORKERS : clamp({ workers, minBytes })
}

/** The `ConfigProvider` Effect runs with unless one is given (`ConfigProvider.fromEnv()`, in `DefaultServices`). */
const defaultProvider = Context.get(DefaultServices.liveServices, ConfigProvider.ConfigProvider)

/**
 * {@link ParallelSettings} from the environment, with their defaults:
 * through Effect's `Config` (a `ConfigProvider` given with
 * `Effect.withConfigProvider` is honoured), except under the default
 * provider, whose environment is read at once ({@link settingsFromEnv}, the
 * same answers): `Config`'s first use in a process cost an AgentMux rescan
 * 2-4 ms of CPU for two variables (issue 13: the rescan's < 60 ms).
 */
export const parallelSettings: Effect.Effect<ParallelSettings> = Effect.configProviderWith((provider) =>
  provider === defaultProvider ? Effect.sync(() => settingsFromEnv(process.env)) : viaConfig
)

/**
 * The worker's entry point beside this code: `agentmux-scan-worker.cjs`
 * beside the CLI bundle (`dist/`), or the TypeScript entry's shim beside this
 * module when it runs from `src/` (through tsx); null when there is none (a
 * bundle built without it).
 */
export const workerEntry = (): string | null => {
  const candidates: Array<string> = []
  if (typeof __filename === "string") candidates.push(nodePath.join(nodePath.dirname(__filename), "agentmux-scan-worker.cjs"))
  try {
    const here = fileURLToPath(import.meta.url)
    candidates.push(nodePath.join(nodePath.dirname(here), "scan-worker-tsx.mjs"))
    candidates.push(nodePath.join(nodePath.dirname(here), "agentmux-scan-worker.cjs"))
  } catch {
    // no module URL (the CommonJS bundle)
  }
  return candidates.find((c) => fs.existsSync(c)) ?? null
}

/**
 * Where the pieces of `[start, stop)` begin: for each of `pieces - 1` even
 * cuts, the first offset at or after it that follows a `\n` of the file (a
 * missing part reads as zeros and holds none), looked for up to the next cut;
 * a cut with no `\n` up to there is dropped (a line longer than a piece).
 */
const cuts = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  stop: number,
  pieces: number
): Effect.Effect<Array<number>, StoreUnavailable> =>
  Effect.gen(function*() {
    const out = [start]
    for (let k = 1; k < pieces; k++) {
      const nominal = start + Math.floor(((stop - start) * k) / pieces)
      const limit = start + Math.floor(((stop - start) * (k + 1)) / pieces)
      let at = Math.max(nominal, out[out.length - 1] + 1) - 1
      let found = -1
      while (found < 0 && at < limit) {
        const r = yield* conn.read(file, at, Math.min(PART_SIZE, limit - at))
        if (r.bytes.length === 0) break
        const nl = r.bytes.indexOf(10)
        if (nl >= 0) found = at + nl + 1
        else at += r.bytes.length
        // Parts missing from the store hold no `\n`: crossed in one query, not read one by one (issue 7).
        const gap = r.missing[r.missing.length - 1]
        if (found < 0 && gap !== undefined && gap.end === at && at < limit && conn.nextPart !== undefined) {
          const next = yield* conn.nextPart(file, Math.floor(at / PART_SIZE))
          at = next === null ? limit : Math.max(at, next * PART_SIZE)
        }
      }
      if (found > out[out.length - 1] && found < stop) out.push(found)
    }
    out.push(stop)
    return out
  })

/**
 * The longest range read without first asking where the file's last part is
 * (`presentEnd`): a rescan's append is shorter, and a read through missing
 * parts up to this long costs a few steps.
 */
const PRESENT_CHECK_BYTES = 64 * 1024 * 1024

/**
 * The end of the last part of `file` present in the store (a part's whole
 * 64 KiB: a short last part's missing bytes are the reader's to find);
 * `file.size` when the connection cannot say.
 */
const presentEnd = (conn: StoreConnection, file: StoreFile): Effect.Effect<number, StoreUnavailable> =>
  conn.lastPart === undefined
    ? Effect.succeed(file.size)
    : Effect.map(conn.lastPart(file), (last) => Math.min(file.size, last === null ? 0 : (last.index + 1) * PART_SIZE))

/** `ranges` (a scan up to `from`) with `[from, to)` missing added to the last one's missing ranges. */
const pastParts = (ranges: ReadonlyArray<RangeScan>, from: number, to: number): ReadonlyArray<RangeScan> => {
  const last = ranges[ranges.length - 1]
  const tail = last.missing[last.missing.length - 1]
  const missing = tail !== undefined && tail.end === from
    ? [...last.missing.slice(0, -1), { start: tail.start, end: to }]
    : [...last.missing, { start: from, end: to }]
  return [...ranges.slice(0, -1), { ...last, missing }]
}

const failed = (path: string, why: string) =>
  new StoreUnavailable({
    message: `The AgentMux store ${path} cannot be read (${why}).`,
    remediation: "Pass --store with AgentMux's transcripts/filestore.db, or retry if AgentMux was busy writing it."
  })

/**
 * Scan `[start, end)` of `file` (clipped to its size) as a list of range
 * scans in record order, to be folded by `applyRange` in turn (one range
 * when scanned here, one per piece when scanned by workers): by workers
 * when the settings, the connection and the range allow it (see the module
 * doc), else one range scanned here. A worker that cannot be started
 * (its entry does not load: tried once per process) or dies leaves the scan
 * to this thread; a read that fails in a worker fails
 * with `StoreUnavailable`, as it would here.
 */
export const scanRanges = (
  conn: StoreConnection,
  file: StoreFile,
  start: number,
  end: number,
  maxLineBytes: number,
  /** The settings to use (default: {@link parallelSettings}, from the environment). */
  given?: ParallelSettings
): Effect.Effect<ReadonlyArray<RangeScan>, StoreUnavailable> =>
  Effect.gen(function*() {
    const whole = Math.min(end, file.size)
    // Past the last part present nothing is in the store: read up to it, the rest one missing range (issue 7).
    const present = whole - start > PRESENT_CHECK_BYTES ? yield* presentEnd(conn, file) : whole
    if (present < whole) {
      const ranges = yield* scanRanges(conn, file, start, Math.max(start, present), maxLineBytes, given)
      return pastParts(ranges, Math.max(start, present), whole)
    }
    const here = Effect.map(scanRange(conn, file, start, end, maxLineBytes), (r) => [r])
    const stop = whole
    const copy = conn.readCopy
    const settings = given ?? (yield* parallelSettings)
    if (copy === undefined || settings.workers < 1 || stop - start < settings.minBytes) return yield* here
    const entry = settings.entry ?? workerEntry()
    if (entry === null) return yield* here
    const bounds = yield* cuts(conn, file, start, stop, settings.workers * PIECES_PER_WORKER)
    if (bounds.length < 3) return yield* here
    const pieces = bounds.slice(0, -1).map((s, i) => [s, bounds[i + 1]] as const)
    const { scanPieces } = yield* pool
    // Workers started while the store's main file was copied (`workersAhead`), when of the same entry.
    const ahead = conn.workersAhead?.entry === entry ? conn.workersAhead.probe : undefined
    const viaWorkers = scanPieces(entry, copy, file, pieces, end, maxLineBytes, settings.workers, undefined, ahead).pipe(
      Effect.catchIf((e): e is string => typeof e === "string", (why) => Effect.fail(failed(conn.path, why)))
    )
    const scanned = yield* viaWorkers.pipe(
      // a worker that died (WorkerError), or an answer that did not decode: scanned here instead
      Effect.catchIf((e): e is Exclude<typeof e, StoreUnavailable> => !(e instanceof StoreUnavailable), () => Effect.succeed(undefined))
    )
    // undefined: no worker of the entry could load (see `scanPieces`), or one died: scanned here instead
    return scanned ?? (yield* here)
  })
