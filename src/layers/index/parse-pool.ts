/**
 * Worker threads that read and parse new small sources for a first import
 * (`import --jobs N`, issue 13), through `@effect/platform`'s `Worker` pool
 * on Node's worker threads (`@effect/platform-node` `NodeWorker`). The main
 * thread keeps every write: a worker only reads a source (its nested-log
 * listing, its stat, the whole file), parses and maps its lines to events,
 * and binds each batch's prefix digest, exactly as the importer does in
 * process; the main thread writes the answer through `Index.importWhole`, in
 * the order of the run. What a worker cannot answer whole (a large source,
 * nested logs, any failure) is answered `fallback`, and the main thread
 * imports that source itself, as with `--jobs 1`: same errors, same rows.
 *
 * The worker's entry is `./parse-worker.ts`: bundled by `npm run build` as
 * `dist/parse-worker.cjs` beside `dist/cli.cjs`; from the sources (tsx,
 * vitest) it is started through `./parse-worker-boot.mjs`, which registers
 * tsx first.
 *
 * @module
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Worker from "@effect/platform/Worker"
import type { WorkerError } from "@effect/platform/WorkerError"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Diagnostic, Locator, ProviderId } from "../../domain/model.js"
import type { EventHead, PreparedRow } from "../../services/Index.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import type { ImportLimitsShape } from "../../services/ImportLimits.js"
import { probeWorker } from "../worker-probe.js"

/**
 * What a worker is asked: read each new source of `sources` whole (in turn),
 * its events cut in batches of `batchSize`. Several sources per request: a
 * message, a pool checkout and a fiber per source cost the writing thread
 * more than the write of a small source (issue 13, first import).
 */
export interface ParseRequest {
  readonly sources: ReadonlyArray<{ readonly provider: ProviderId; readonly locator: Locator }>
  readonly batchSize: number
}

/** How many sources one {@link ParseRequest} asks for (at most). */
export const SOURCES_PER_REQUEST = 16

/**
 * A batch's {@link PreparedRow}s as they cross from a worker to the main
 * thread (structured clone), by column: each event's uid in one buffer (16
 * bytes an event, in order), its shape as an index into the request's shape
 * table ({@link ShapeTable}; -1: stored whole), and its body, search words
 * and usage row. A lean shape's JSON (about 0.8 KB) is shared by many events:
 * one copy per message instead of one per event, and one `ArrayBuffer` per
 * batch instead of one per uid, is what the main thread, which writes every
 * row, saves in deserializing and collecting (issue 13, first import).
 * {@link preparedRowsOf} makes the rows again.
 */
export interface PreparedColumns {
  readonly uids: Uint8Array
  readonly shapes: Int32Array
  readonly bodies: ReadonlyArray<string>
  readonly texts: ReadonlyArray<string>
  readonly inputs: ReadonlyArray<string>
  readonly usages: ReadonlyArray<PreparedRow["usage"]>
}

/**
 * Strings of a request's answers, each once (their index is what a column
 * holds): one array shared by every answer of a request, so the message holds
 * it once (structured clone keeps an object that several answers refer to as
 * one). {@link ShapeTable} holds the lean shapes; the heads' repeated words
 * (provider, source and session ids, kind, role) have a table of their own.
 */
export class StringTable {
  readonly defs: Array<string> = []
  private readonly ids = new Map<string, number>()

  /** The index of `def` (added on first use); -1 for null. */
  idOf(def: string | null): number {
    if (def === null) return -1
    let id = this.ids.get(def)
    if (id === undefined) {
      id = this.defs.length
      this.defs.push(def)
      this.ids.set(def, id)
    }
    return id
  }
}

/** The lean shapes of a request's answers, each once: the index a {@link PreparedColumns} refers to (see {@link StringTable}). */
export class ShapeTable extends StringTable {}

/** How many words of {@link HeadColumns.words} each event has: provider, sourceId, sessionId, kind, role. */
const HEAD_WORDS = 5

/**
 * A batch's {@link EventHead}s as they cross from a worker to the main
 * thread (structured clone), by column: per event, its provider, source id,
 * session id, kind and role as indices into the request's word table
 * ({@link StringTable}; -1: a null role), 5 an event in one `Int32Array`;
 * its sequence in a `Float64Array` (integers, exact); its event id,
 * time and cursor in arrays. A head as an object costs the clone its 9 keys
 * and its repeated ids (the source id alone is 71 characters) at every event,
 * on both threads (issue 13, first import). {@link headsOf} makes the heads again.
 */
export interface HeadColumns {
  readonly words: Int32Array
  readonly sequences: Float64Array
  readonly eventIds: ReadonlyArray<string>
  readonly occurredAts: ReadonlyArray<string | null>
  readonly cursors: ReadonlyArray<string>
}

/** The columns of `events` (see {@link HeadColumns}), their words entered into `table`. */
export const headColumnsOf = (events: ReadonlyArray<EventHead>, table: StringTable): HeadColumns => {
  const n = events.length
  const words = new Int32Array(n * HEAD_WORDS)
  const sequences = new Float64Array(n)
  const eventIds = new Array<string>(n)
  const occurredAts = new Array<string | null>(n)
  const cursors = new Array<string>(n)
  // A source's events share their provider, source id and session id (most often the same strings): looked up
  // again only when one changes.
  let provider = "", providerId = -1, sourceId = "", sourceIdId = -1, sessionId = "", sessionIdId = -1
  for (let i = 0; i < n; i++) {
    const e = events[i]
    const w = i * HEAD_WORDS
    if (providerId < 0 || e.provider !== provider) providerId = table.idOf(provider = e.provider)
    if (sourceIdId < 0 || e.sourceId !== sourceId) sourceIdId = table.idOf(sourceId = e.sourceId)
    if (sessionIdId < 0 || e.sessionId !== sessionId) sessionIdId = table.idOf(sessionId = e.sessionId)
    words[w] = providerId
    words[w + 1] = sourceIdId
    words[w + 2] = sessionIdId
    words[w + 3] = table.idOf(e.kind)
    words[w + 4] = table.idOf(e.role)
    sequences[i] = e.sequence
    eventIds[i] = e.eventId
    occurredAts[i] = e.occurredAt
    cursors[i] = e.cursor
  }
  return { words, sequences, eventIds, occurredAts, cursors }
}

/** The {@link EventHead}s of `columns` again, each word the string of `words` (the request's word table). */
export const headsOf = (columns: HeadColumns, words: ReadonlyArray<string>): Array<EventHead> => {
  const { cursors, eventIds, occurredAts, sequences } = columns
  const w = columns.words
  const heads = new Array<EventHead>(eventIds.length)
  for (let i = 0; i < heads.length; i++) {
    const at = i * HEAD_WORDS
    const role = w[at + 4]
    heads[i] = {
      provider: words[w[at]] as EventHead["provider"],
      sourceId: words[w[at + 1]],
      sessionId: words[w[at + 2]],
      eventId: eventIds[i],
      sequence: sequences[i],
      kind: words[w[at + 3]],
      role: role < 0 ? null : words[role] as EventHead["role"],
      occurredAt: occurredAts[i],
      cursor: cursors[i]
    }
  }
  return heads
}

/** The columns of `rows` (see {@link PreparedColumns}), their shapes entered into `table`. */
export const preparedColumnsOf = (rows: ReadonlyArray<PreparedRow>, table: ShapeTable): PreparedColumns => {
  const uids = new Uint8Array(rows.length * 16)
  const shapes = new Int32Array(rows.length)
  const bodies = new Array<string>(rows.length)
  const texts = new Array<string>(rows.length)
  const inputs = new Array<string>(rows.length)
  const usages = new Array<PreparedRow["usage"]>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]
    if (r.uid.byteLength !== 16) throw new Error(`an event uid of ${r.uid.byteLength} bytes (16 expected)`)
    uids.set(r.uid, i * 16)
    shapes[i] = table.idOf(r.shape)
    bodies[i] = r.body
    texts[i] = r.text
    inputs[i] = r.input
    usages[i] = r.usage
  }
  return { uids, shapes, bodies, texts, inputs, usages }
}

/** The {@link PreparedRow}s of `columns` again, each shape the string of `defs` (the request's {@link ShapeTable}). */
export const preparedRowsOf = (columns: PreparedColumns, defs: ReadonlyArray<string>): Array<PreparedRow> => {
  const { bodies, inputs, shapes, texts, uids, usages } = columns
  const rows = new Array<PreparedRow>(bodies.length)
  for (let i = 0; i < bodies.length; i++) {
    const s = shapes[i]
    rows[i] = {
      // A Buffer over the batch's bytes (no copy): what the writer binds as it is (`IndexWriter.prepare`).
      uid: Buffer.from(uids.buffer, uids.byteOffset + i * 16, 16),
      shape: s < 0 ? null : defs[s],
      body: bodies[i],
      text: texts[i],
      input: inputs[i],
      usage: usages[i]
    }
  }
  return rows
}

/**
 * A worker's answer for one source of a request (a request is answered with
 * one per source, in its order). `whole`: the source's fingerprint (taken before the
 * read, as the importer takes it), its events in batches with each batch's
 * resume cursor and prefix binding (`WholeSource.batches`), each event as
 * its head (`EventHead`, by column: {@link HeadColumns}, with `words`, the
 * request's word table) with the rows the writer computes of it
 * (`PreparedRow`, by column: {@link PreparedColumns}, with `shapes`, the
 * request's shape table), the diagnostics of the read, and the title it reported (`StreamOptions.onTitle`: a Muse
 * Code session's first prompt) or null. `fallback`: the main thread imports the source itself.
 */
export type ParseAnswer =
  | {
    readonly _tag: "whole"
    readonly fingerprint: string | null
    readonly batches: ReadonlyArray<{
      readonly events: HeadColumns
      readonly resumeCursor: string | null
      readonly prefix: string | null | undefined
      readonly prepared: PreparedColumns
    }>
    readonly shapes: ReadonlyArray<string>
    readonly words: ReadonlyArray<string>
    readonly diagnostics: ReadonlyArray<Diagnostic>
    readonly title: ReadTitle | null
  }
  | { readonly _tag: "fallback" }

/** A title a source's read reported (`StreamOptions.onTitle`), with the session it titles when the read said it. */
export interface ReadTitle {
  readonly title: string
  readonly sessionId: string | null
}

/** What every worker is started with (`workerData`): the run's access policy and import limits, to build the same providers. */
export interface ParseWorkerConfig {
  readonly policy: AccessPolicyShape
  readonly limits: ImportLimitsShape
}

/**
 * The default of `import --jobs`: the machine's cores
 * (`os.availableParallelism`), at most 4. With N ≥ 2, N workers parse while
 * the main thread writes (the write is about half of a first import's CPU,
 * so the main thread is busy too); 1: no worker, all in the main thread.
 */
export const defaultJobs = (): number => Math.max(1, Math.min(4, os.availableParallelism()))

/**
 * Fewer new small sources than this in a run: no worker is started (starting
 * one, which loads the library, costs more than it saves).
 */
export const MIN_SOURCES_FOR_WORKERS = 64

/** Counters of the answers of workers in this process (tests and the bench read them to see that workers did the reading). */
export const workerStats = { whole: 0, fallback: 0 }

/**
 * The worker's entry and how to start it: beside the bundle
 * (`dist/parse-worker.cjs`) when this code runs from `dist/cli.cjs`, else the
 * tsx bootstrap beside this file; null when that file is not there (a bundle
 * copied without it, a build cut short). Without an entry no worker is
 * started: `@effect/platform`'s pool starts a worker that cannot load its
 * entry again every second, for ever, and the first import would hang.
 */
export const parseWorkerEntry = (): string | URL | null => {
  const entry = typeof __filename === "string" && __filename.endsWith(".cjs")
    ? nodePath.join(nodePath.dirname(__filename), "parse-worker.cjs")
    : new URL("./parse-worker-boot.mjs", import.meta.url)
  return fs.existsSync(entry) ? entry : null
}

/**
 * What starting the parse workers answered: `ready`, the pool; `failed`,
 * no pool: the worker entry exists but a worker of it could not load (a
 * truncated bundle, a top level that throws) or did not say it was ready in
 * time (`problem`, one line; see `../worker-probe.ts`).
 */
export type ParsePoolStart =
  | { readonly _tag: "ready"; readonly pool: Worker.WorkerPool<ParseRequest, ReadonlyArray<ParseAnswer>, never> }
  | { readonly _tag: "failed"; readonly problem: string }

/**
 * A pool of `jobs` parse workers for the scope, once one worker of `entry`
 * has loaded and said it is ready (`probeWorker`, at most `readyTimeoutMs`;
 * that worker is the pool's first): else `failed`, and no pool (the pool
 * would start a worker that cannot load again every second, for ever).
 * Each worker answers up to 2 requests at a time (the next sources are read
 * while an answer is posted). A worker that dies later fails its request
 * with a `WorkerError`.
 */
export const makeParsePool = (
  jobs: number,
  config: ParseWorkerConfig,
  entry: string | URL,
  readyTimeoutMs?: number
): Effect.Effect<ParsePoolStart, WorkerError, Scope.Scope> =>
  Effect.flatMap(probeWorker(entry, { workerData: config }, readyTimeoutMs), (probe): Effect.Effect<ParsePoolStart, WorkerError, Scope.Scope> =>
    probe._tag === "failed"
      ? Effect.succeed(probe)
      : Worker.makePool<ParseRequest, ReadonlyArray<ParseAnswer>, never>({ size: jobs, concurrency: 2 }).pipe(
        Effect.provide(NodeWorker.layer(probe.spawn)),
        Effect.map((pool) => ({ _tag: "ready" as const, pool }))
      ))
