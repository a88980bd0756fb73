/**
 * The rows both index layers (SQLite and PostgreSQL) read back, and how they
 * become the service's shapes: a source's checkpoint and a session. One
 * table layout, so one mapping.
 *
 * @module
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { legacySourceSummary, upgradeEvent } from "../../domain/contract-upgrade.js"
import { CANONICAL_PAYLOAD, type CanonicalText } from "../../domain/json.js"
import { CONTRACT_VERSION, type Diagnostic, type Locator, type ProviderId, SessionEvent, type SourceSummary } from "../../domain/model.js"
import { toolInputText } from "../../domain/tool-input-text.js"
import { compareTimestamps, sortKey } from "../../domain/timestamps.js"
import type { QueryNode } from "../../domain/search/query.js"
import { searchableText, snippetOf } from "../../domain/search/text.js"
import { workspaceFolder } from "../../domain/search/workspace.js"
import type { Mutable } from "effect/Types"
import { type Checkpoint, type CheckpointedSource, type SearchFilter, type SearchHit, type SessionRow, type SessionStatus, sessionStatusOf, type SourceCheckpoint } from "../../services/Index.js"

/** A stored source's typed summary: its `overview_json`, else (imported before contract 1.1.0) what its provider summary said. */
export const overviewOf = (overviewJson: string | null, summaryJson: string): SourceSummary =>
  overviewJson !== null
    ? JSON.parse(overviewJson) as SourceSummary
    : legacySourceSummary(JSON.parse(summaryJson) as Record<string, unknown>)

/** The checkpoint columns; `overview` is the `overview_json` column, or NULL in an index read before migration 0003. */
export const checkpointColumns = (overview: string) =>
  `source_key, provider, generation, cursor, fingerprint, status, event_count, locator_json, summary_json, ${overview}, source_id, prefix, parts_json, diagnostics_json, attempt_json`

/** The columns of every checkpoint an import reads (`IndexShape.checkpoints`): the checkpoint columns without `overview_json`. */
export const sourceCheckpointColumns =
  "source_key, provider, generation, cursor, fingerprint, status, event_count, locator_json, summary_json, source_id, prefix, parts_json, diagnostics_json, attempt_json"

/** A `sources` row as the checkpoint queries select it. */
export interface CheckpointRow {
  readonly source_key: string
  readonly provider: string
  readonly generation: number
  readonly cursor: string | null
  readonly fingerprint: string | null
  readonly status: string
  readonly event_count: number
  readonly locator_json: string
  readonly summary_json: string
  readonly overview_json: string | null
  readonly source_id: string | null
  readonly prefix: string | null
  readonly parts_json: string | null
  readonly diagnostics_json: string | null
  /** The attempt in progress (see {@link NextGeneration}); absent: none read. */
  readonly attempt_json?: string | null | undefined
}

/** A checkpoint row as the service gives it. */
export const toCheckpoint = (r: CheckpointRow): CheckpointedSource => {
  const c = toSourceCheckpoint(r) as Mutable<SourceCheckpoint> & { overview?: SourceSummary }
  // Parsed when read: an import reads every checkpoint and, for unchanged sources, never this.
  Object.defineProperty(c, "overview", {
    get() {
      const overview = overviewOf(r.overview_json, r.summary_json)
      Object.defineProperty(c, "overview", { value: overview, enumerable: true })
      return overview
    },
    enumerable: true,
    configurable: true
  })
  return c as CheckpointedSource
}

/**
 * The columns of every checkpoint an import reads from a SQLite index it
 * writes: those of {@link sourceCheckpointColumns} without `summary_json`
 * (the largest column by far: read all at once only when a summary is first
 * asked for, see {@link toLeanCheckpointOfValues}), then `overview` (the
 * `overview_json` column, or NULL in an index read before migration 0003).
 */
export const leanCheckpointColumns = (overview: string) =>
  `source_key, provider, generation, cursor, fingerprint, status, event_count, locator_json, source_id, prefix, parts_json, diagnostics_json, ${overview}, attempt_json`

/**
 * A checkpoint row fetched with {@link leanCheckpointColumns} as an array of
 * values: its `summary` is `summaryOf(sourceKey)`, asked when first read
 * (an import of unchanged sources whose discovery needs no summary never
 * reads any), its `keptOverview` the `overview_json` column, parsed when
 * first read.
 */
export const toLeanCheckpointOfValues = (
  v: ReadonlyArray<unknown>,
  summaryOf: (sourceKey: string) => Record<string, unknown>
): SourceCheckpoint =>
  checkpointOf(
    v[0] as string,
    v[1] as string,
    v[2] as number,
    v[3] as string | null,
    v[4] as string | null,
    v[5] as string,
    v[6] as number,
    v[7] as string,
    summaryOf,
    v[8] as string | null,
    v[9] as string | null,
    v[10] as string | null,
    v[11] as string | null,
    v[12] as string | null,
    v[13] as string | null
  )

/** A checkpoint row, fetched with {@link sourceCheckpointColumns} (no `overview_json`), as `IndexShape.checkpoints` gives it. */
export const toSourceCheckpoint = (r: Omit<CheckpointRow, "overview_json">): SourceCheckpoint =>
  checkpointOf(
    r.source_key,
    r.provider,
    r.generation,
    r.cursor,
    r.fingerprint,
    r.status,
    r.event_count,
    r.locator_json,
    r.summary_json,
    r.source_id,
    r.prefix,
    r.parts_json,
    r.diagnostics_json,
    undefined,
    r.attempt_json
  )

/**
 * A checkpoint row fetched as an array of values (a driver's raw mode), in
 * the order of {@link sourceCheckpointColumns}: as {@link toSourceCheckpoint}
 * makes it, without an object per row first (an import reads every row).
 */
export const toSourceCheckpointOfValues = (v: ReadonlyArray<unknown>): SourceCheckpoint =>
  checkpointOf(
    v[0] as string,
    v[1] as string,
    v[2] as number,
    v[3] as string | null,
    v[4] as string | null,
    v[5] as string,
    v[6] as number,
    v[7] as string,
    v[8] as string,
    v[9] as string | null,
    v[10] as string | null,
    v[11] as string | null,
    v[12] as string | null,
    undefined,
    v[13] as string | null
  )

/**
 * A checkpoint as read from a row. A class, not an object literal with
 * getters: an import makes one per source it holds (10,000 on a daily
 * re-import), and V8 builds a literal with accessors through its slow path
 * (several microseconds each, then a dictionary-mode object once a getter
 * replaced itself with a value), where an instance with prototype getters
 * costs a plain allocation. The columns parsed when first read (`summary`,
 * `keptOverview`, `parts`) stay as text in private fields until then: a
 * discovery that lists an unchanged source from what it needs never parses
 * the rest. Its own enumerable fields are the plain ones; the lazy ones are
 * read through their getters (as the interface says), not spread.
 */
class StoredCheckpoint implements SourceCheckpoint {
  readonly provider: ProviderId
  readonly status: Checkpoint["status"]
  readonly locator: Locator
  readonly diagnostics: ReadonlyArray<Diagnostic>
  #summary: Record<string, unknown> | undefined
  #summaryJson: string | ((sourceKey: string) => Record<string, unknown>)
  #overviewJson: string | null | undefined
  #overview: SourceSummary | undefined | null = null
  #partsJson: string | null
  #parts: Readonly<Record<string, string>> | undefined
  /** See `Checkpoint.shownGeneration` (set on the few checkpoints of a new generation in progress: no field otherwise). */
  declare readonly shownGeneration?: number | undefined

  constructor(
    readonly sourceKey: string,
    provider: string,
    readonly generation: number,
    readonly cursor: string | null,
    readonly fingerprint: string | null,
    status: string,
    readonly eventCount: number,
    locatorJson: string,
    summaryJson: string | ((sourceKey: string) => Record<string, unknown>),
    readonly sourceId: string | null,
    readonly prefix: string | null,
    partsJson: string | null,
    diagnosticsJson: string | null,
    overviewJson: string | null | undefined
  ) {
    this.provider = provider as ProviderId
    this.status = status as Checkpoint["status"]
    this.locator = JSON.parse(locatorJson) as Locator
    // Most sources have none: one shared empty list, no allocation per row.
    this.diagnostics = diagnosticsJson === null ? NO_DIAGNOSTICS : JSON.parse(diagnosticsJson) as ReadonlyArray<Diagnostic>
    this.#summaryJson = summaryJson
    this.#overviewJson = overviewJson
    this.#partsJson = partsJson
  }

  /** The provider's summary: the `summary_json` column parsed, or asked for by source key, when first read. */
  get summary(): Record<string, unknown> {
    if (this.#summary === undefined) {
      const json = this.#summaryJson
      this.#summary = typeof json === "string" ? JSON.parse(json) as Record<string, unknown> : json(this.sourceKey)
    }
    return this.#summary
  }

  /** The kept overview (`overview_json`) parsed when first read; undefined when the index kept none or the query read none. */
  get keptOverview(): SourceSummary | undefined {
    if (this.#overview === null) {
      const json = this.#overviewJson
      this.#overview = json === undefined || json === null ? undefined : JSON.parse(json) as SourceSummary
    }
    return this.#overview
  }

  /** The nested logs' bindings parsed when first read: only a changed source's prefix check reads them. */
  get parts(): Readonly<Record<string, string>> {
    return this.#parts ??= this.#partsJson === null ? {} : JSON.parse(this.#partsJson) as Record<string, string>
  }

  /** As a plain checkpoint serializes (the lazy fields parsed). */
  toJSON(): SourceCheckpoint {
    return { ...this, summary: this.summary, keptOverview: this.keptOverview, parts: this.parts }
  }
}

const checkpointOf = (
  sourceKey: string,
  provider: string,
  generation: number,
  cursor: string | null,
  fingerprint: string | null,
  status: string,
  eventCount: number,
  locatorJson: string,
  /** The `summary_json` column, or where to ask for the summary (by source key) when it is first read. */
  summaryJson: string | ((sourceKey: string) => Record<string, unknown>),
  sourceId: string | null,
  prefix: string | null,
  partsJson: string | null,
  diagnosticsJson: string | null,
  /** The `overview_json` column when the query read it (null: the index kept none); undefined: not read. */
  overviewJson?: string | null,
  /** The `attempt_json` column (null or undefined: no attempt in progress). */
  attemptJson?: string | null
): SourceCheckpoint => {
  const next = attemptJson == null ? undefined : nextGenerationOf(attemptJson, generation)
  if (next === undefined) {
    return new StoredCheckpoint(
      sourceKey, provider, generation, cursor, fingerprint, status, eventCount, locatorJson, summaryJson, sourceId, prefix, partsJson,
      diagnosticsJson, overviewJson
    )
  }
  // A new generation in progress over the complete one the row holds: the checkpoint is the new one's (the import
  // resumes it), as the row would say had the new generation been begun on it, and names the one shown meanwhile.
  const c = new StoredCheckpoint(
    sourceKey, provider, next.generation, next.cursor, null, "importing", next.eventCount, locatorJson, summaryJson, next.sourceId,
    next.prefix, partsJson, diagnosticsJson, overviewJson
  ) as Mutable<StoredCheckpoint>
  c.shownGeneration = generation
  return c
}

/**
 * A new generation of a source begun over its complete one (the source's
 * imported prefix changed), not read to its end yet: kept in the attempt in
 * progress (`sources.attempt_json`, field `next`) while the source's row
 * stays the complete generation's, which every reader keeps showing (they
 * join `sources.generation`). Its checkpoint is here, as the row holds a
 * current generation's: the cursor and prefix binding of its last committed
 * batch (`cursorSeq`: the cursor's event sequence, PostgreSQL's
 * `cursor_seq`), its source id and events; `reason` is what the old
 * generation is superseded with when the new one completes (the switch, in
 * the transaction of its completion). Rolled back with the attempt
 * (a rejection), discarded when the source is gone. Source: docs/index.md,
 * "Generations" and "Crash-safe" (tester20a F2).
 */
export interface NextGeneration {
  readonly generation: number
  readonly reason: string
  readonly cursor: string | null
  readonly cursorSeq: number | null
  readonly prefix: string | null
  readonly sourceId: string | null
  readonly eventCount: number
}

/** The new generation in progress an `attempt_json` holds over a row of current generation `generation`, if any. */
export const nextGenerationOf = (attemptJson: string | null, generation: number): NextGeneration | undefined => {
  if (attemptJson === null) return undefined
  const next = (JSON.parse(attemptJson) as { readonly next?: NextGeneration }).next
  return next !== undefined && next.generation > generation ? next : undefined
}

/**
 * {@link NextGeneration} moved past a committed batch, as a current
 * generation's row is: the cursor (null keeps it; not backwards, by
 * `cursorSeq`, when both are known), the first source id, the prefix binding
 * (undefined keeps it), and the events the batch inserted.
 */
export const nextAfterBatch = (
  next: NextGeneration,
  batch: {
    readonly cursor: string | null
    readonly cursorSeq: number | null
    readonly sourceId: string
    readonly prefix: string | null | undefined
    readonly added: number
  }
): NextGeneration => {
  const notBack = next.cursorSeq === null || batch.cursorSeq === null || batch.cursorSeq >= next.cursorSeq
  const forward = batch.cursor !== null && notBack
  return {
    ...next,
    cursor: forward ? batch.cursor : next.cursor,
    cursorSeq: forward ? batch.cursorSeq : next.cursorSeq,
    prefix: batch.prefix === undefined || !notBack ? next.prefix : batch.prefix,
    sourceId: next.sourceId ?? batch.sourceId,
    eventCount: next.eventCount + batch.added
  }
}

/** The diagnostics of a checkpoint that has none (shared, frozen). */
const NO_DIAGNOSTICS: ReadonlyArray<Diagnostic> = Object.freeze([])

/** A `sessions` row joined with its source, as the session queries select it. */
export interface SessionDbRow {
  readonly session_uid: string
  readonly provider: string
  readonly session_id: string
  readonly source_id: string
  readonly source_key: string
  /** The source's machine (PostgreSQL's `sources.machine`); absent on SQLite, which names none. */
  readonly machine?: string | null | undefined
  readonly locator_json: string
  readonly summary_json: string
  readonly overview_json: string | null
  readonly generation: number
  readonly title: string | null
  readonly workspace: string | null
  readonly first_at: string | null
  readonly last_at: string | null
  readonly event_count: number
  /** The source's `sources.status` (at the generation joined): what {@link SessionRow.status} is made of. */
  readonly source_status: string
}

/** A session row as the service gives it. */
export const toSessionRow = (r: SessionDbRow): SessionRow => ({
  sessionUid: r.session_uid,
  provider: r.provider as ProviderId,
  sessionId: r.session_id,
  sourceId: r.source_id,
  sourceKey: r.source_key,
  machine: r.machine ?? null,
  locator: JSON.parse(r.locator_json) as Locator,
  summary: JSON.parse(r.summary_json) as Record<string, unknown>,
  // Parsed when read: an import reads every checkpoint and, for unchanged sources, never this.
  get overview() {
    const overview = overviewOf(r.overview_json, r.summary_json)
    Object.defineProperty(this, "overview", { value: overview, enumerable: true })
    return overview
  },
  generation: r.generation,
  title: r.title,
  workspace: r.workspace,
  firstAt: r.first_at,
  lastAt: r.last_at,
  eventCount: r.event_count,
  status: sessionStatusOf(r.source_status)
})

/**
 * A search hit from its stored row, on either engine: the session's facts
 * (`base`), and the event it matched (its uid and stored JSON, upgraded to
 * the current contract), with the snippet of the first field that holds the
 * query's words; a hit on the session's title (no event) has null event
 * fields and the title's snippet.
 */
export const searchHitOf = (
  tree: QueryNode,
  base: Pick<SearchHit, "sessionUid" | "sessionId" | "title" | "provider" | "workspace" | "machine" | "score" | "sessionStatus">,
  eventUid: string | null,
  eventJson: string | null
): SearchHit => {
  if (eventUid === null || eventJson === null) {
    return {
      ...base,
      eventUid: null,
      eventId: null,
      kind: null,
      role: null,
      occurredAt: null,
      sequence: null,
      cursor: null,
      snippet: snippetOf(tree, [{ field: "title", text: base.title ?? "" }])
    }
  }
  return searchHitOfEvent(tree, base, eventUid, upgradeEvent(JSON.parse(eventJson) as SessionEvent))
}

/** {@link searchHitOf} of an event already read (`eventOfRow`); a title hit has null `eventUid` and `e`. */
export const searchHitOfEvent = (
  tree: QueryNode,
  base: Pick<SearchHit, "sessionUid" | "sessionId" | "title" | "provider" | "workspace" | "machine" | "score" | "sessionStatus">,
  eventUid: string | null,
  e: SessionEvent | null
): SearchHit => {
  if (eventUid === null || e === null) return searchHitOf(tree, base, null, null)
  const t = searchableText(e)
  return {
    ...base,
    eventUid,
    eventId: e.eventId,
    kind: e.kind,
    role: e.role,
    occurredAt: e.occurredAt,
    sequence: e.sequence,
    cursor: e.cursor,
    snippet: snippetOf(tree, [{ field: "text", text: t.text }, { field: "input", text: t.input }])
  }
}

// ---------------------------------------------------------------- the lean record (issue 13, item 2)

/**
 * What the SQLite index keeps once per stream (a session of a source
 * generation), not per event: the ids every event of the session restates.
 */
export interface StreamFacts {
  readonly provider: string
  readonly sourceId: string
  readonly sessionId: string
}

/** The columns an event row keeps besides its body (what the queries filter and order on). */
export interface EventColumns {
  readonly sequence: number
  readonly kind: string
  readonly occurredAt: string | null
}

/**
 * The shape of a lean body: what the event's JSON restated that the body
 * leaves out, and where its values go back. One shape serves many events
 * (it is stored once in the `shapes` table, by id):
 * - `c`: the contract version; `k`: the event's keys, in their order;
 * - `n`: the keys whose value is null (not in the body);
 * - `o`: top-level objects kept as an array of their values, with their keys;
 * - `x`: `extensions` kept as one entry per namespace, in order: a namespace
 *   with its keys has an array of values, one with null its value as it is;
 *   a key given as `[key, value]` (in `o` and `x`) has that value in the
 *   shape, not in the body: a value of a few kinds that many events share
 *   (null, a boolean, a short word such as `durable` or `tool-call`);
 * - `v`: top-level fields whose value is in the shape likewise (`role`,
 *   `toolName`, `isError`, ...);
 * - `r`: typed fields that restate a value of the provider's own record in
 *   `extensions` (the raw payload): the path there, and how the field is
 *   made from it (`=`: the same value; `~`: the text on one line, whitespace
 *   runs made one space, cut to 1000 characters with an ellipsis; `j`, in the
 *   index only: a tool call's text, {@link toolInputText} of the value, see
 *   {@link LeanOptions}; the lean stream's `lean-1` has `=` and `~` only).
 *
 * The ids of the stream (`provider`, `sourceId`, `sessionId`) and the row's
 * columns (`sequence`, `kind`, `occurredAt`) are never in the body.
 */
export interface Shape {
  readonly c: string
  readonly k: ReadonlyArray<string>
  readonly n?: ReadonlyArray<string>
  readonly o?: Readonly<Record<string, ReadonlyArray<ShapeKey>>>
  readonly x?: ReadonlyArray<readonly [string, ReadonlyArray<ShapeKey> | null]>
  readonly v?: Readonly<Record<string, unknown>>
  readonly r?: Readonly<Record<string, ReadonlyArray<string | number>>>
}

/** A key of a kept object: its value is in the body, or (`[key, value]`) in the shape. */
export type ShapeKey = string | readonly [string, unknown]

/** A lean event: its shape (as the JSON text the `shapes` table keys it by) and its body (a JSON array of values). */
export interface LeanEvent {
  readonly shape: string
  readonly body: string
}

const STREAM_KEYS = new Set(["provider", "sourceId", "sessionId"])
const COLUMN_KEYS = new Set(["sequence", "kind", "occurredAt"])
/** Top-level objects of fixed keys, kept as value arrays (not `toolInput`: a tool's own arguments). */
const OBJECT_KEYS = new Set(["rawReference", "compaction", "parent", "child", "usage"])
/** Typed fields that may restate the provider's record in `extensions`. */
const REF_KEYS = ["text", "toolInput"] as const
/** A string shorter than this is kept as it is: a reference would not be smaller. */
const REF_MIN_CHARS = 24
const ONE_LINE_MAX = 1000
/** Top-level fields whose word-like value goes into the shape (never the text or a tool's input: those are content). */
const SHAPE_VALUE_KEYS = new Set(["role", "toolName", "isError"])
const ROLE_SKIP = 1
const ROLE_EXTENSIONS = 2
const ROLE_OBJECT = 3
const ROLE_WORD = 4
/**
 * What {@link leanEvent} does with a top-level key, by key (absent: its value goes into the body as it is): one map
 * lookup per key of every event instead of a test of each set in turn (issue 13, first import).
 */
const KEY_ROLES: ReadonlyMap<string, number> = new Map([
  ["contractVersion", ROLE_SKIP],
  ...[...STREAM_KEYS, ...COLUMN_KEYS].map((k) => [k, ROLE_SKIP] as const),
  ["extensions", ROLE_EXTENSIONS],
  ...[...OBJECT_KEYS].map((k) => [k, ROLE_OBJECT] as const),
  ...[...SHAPE_VALUE_KEYS].map((k) => [k, ROLE_WORD] as const)
])
/**
 * Whether each character of `s` is a word's (`/^[A-Za-z_.:-]*$/`): a loop over its characters, not a regex run at
 * every string value of every event (issue 13, first import).
 */
const isWordText = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // A-Z, a-z, then _ . : -
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 58 || c === 45)) return false
  }
  return true
}

/**
 * Whether a value is one many events share, kept in the shape: null, a boolean, or a short word without digits or
 * slashes (`/^[A-Za-z_.:-]{0,32}$/`).
 */
const isWord = (v: unknown): boolean => v === null || typeof v === "boolean" || (typeof v === "string" && v.length <= 32 && isWordText(v))

/** An object's keys as the shape keeps them (word values inside), and the values left for the body. */
const split = (o: Record<string, unknown>, keys: ReadonlyArray<string>): [Array<ShapeKey>, Array<unknown>] => {
  const shapeKeys: Array<ShapeKey> = []
  const values: Array<unknown> = []
  for (const k of keys) {
    const v = o[k]
    if (isWord(v)) shapeKeys.push([k, v])
    else {
      shapeKeys.push(k)
      values.push(v)
    }
  }
  return [shapeKeys, values]
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** The keys of `o` with a value (JSON leaves out undefined), or null when one cannot be rebuilt by assignment. */
const keysOf = (o: Record<string, unknown>): Array<string> | null => {
  // Object.keys: the own enumerable string keys, in for…in's order (V8 answers it from the object's map's cache);
  // a new array only when a key has no value.
  const all = Object.keys(o)
  let ks: Array<string> | undefined
  for (let i = 0; i < all.length; i++) {
    const k = all[i]
    if (o[k] === undefined) {
      ks ??= all.slice(0, i)
      continue
    }
    if (k === "__proto__") return null
    if (ks !== undefined) ks.push(k)
  }
  return ks ?? all
}

/** An object's keys with a value and those values, in the same order (see {@link entriesOf}). */
interface Entries {
  readonly keys: Array<string>
  readonly values: Array<unknown>
}

/**
 * {@link keysOf} of `o` with the values of those keys (the same order): `Object.keys` and `Object.values` (one
 * enumeration each, in the same order), instead of a keyed load per key, twice (to test it, then to read it), which
 * a first import pays at every key of every event (issue 13).
 */
const entriesOf = (o: Record<string, unknown>): Entries | null => {
  const all = Object.keys(o)
  const vs = Object.values(o)
  let ks: Array<string> | undefined
  let kept: Array<unknown> | undefined
  for (let i = 0; i < all.length; i++) {
    const k = all[i]
    if (vs[i] === undefined) {
      if (ks === undefined) {
        ks = all.slice(0, i)
        kept = vs.slice(0, i)
      }
      continue
    }
    if (k === "__proto__") return null
    if (ks !== undefined) {
      ks.push(k)
      kept!.push(vs[i])
    }
  }
  return ks !== undefined ? { keys: ks, values: kept! } : { keys: all, values: vs }
}

/** Muse Code's one-line text: whitespace runs made one space, trimmed, cut to 1000 characters with an ellipsis. */
const oneLine = (s: string): string => {
  if (s.length > ONE_LINE_MAX * 4) {
    const head = s.slice(0, ONE_LINE_MAX * 4).replace(/\s+/g, " ").trimStart()
    if (head.length > ONE_LINE_MAX + 1) return head.slice(0, ONE_LINE_MAX - 1) + "…"
  }
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > ONE_LINE_MAX ? flat.slice(0, ONE_LINE_MAX - 1) + "…" : flat
}

/** Whether `s`, made one line, may be `text` (its first word matches): a cheap test before the real one. */
const mayFlattenTo = (s: string, text: string): boolean => {
  let i = 0
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 9 || s.charCodeAt(i) === 13)) i++
  const n = Math.min(8, text.length)
  for (let j = 0; j < n; j++) {
    const a = s.charCodeAt(i + j)
    const b = text.charCodeAt(j)
    if (a !== b && !(b === 32 && (a === 10 || a === 9 || a === 13 || a === 32))) return false
  }
  return true
}

/**
 * Whether `target` may be {@link toolInputText} of `v` (an object or array): a
 * check of its first characters, before the text is written to compare.
 */
const mayBeInputText = (v: object, target: string): boolean => {
  if (Array.isArray(v)) return target.charCodeAt(0) === 91 // [
  if (target.charCodeAt(0) !== 123) return false // {
  for (const k in v) {
    const key = JSON.stringify(k)
    return target.startsWith(key, 1) && target.charCodeAt(1 + key.length) === 58 // :
  }
  return target === "{}"
}

/**
 * Where in `ext` a value sits that `target` restates: the path and how (see
 * {@link Shape.r}); null when none. With `inputText`, a string `target` may
 * also be {@link toolInputText} of an object or array there (mode `j`).
 */
const findRef = (ext: Record<string, unknown>, target: unknown, inputText: boolean): Array<string | number> | null => {
  const path: Array<string | number> = []
  let jsonOfTarget: string | undefined
  const targetKeys = isPlain(target) ? Object.keys(target).length : -1
  const visit = (v: unknown, depth: number): string | null => {
    if (typeof v === "string") {
      if (typeof target !== "string" || v.length < REF_MIN_CHARS) return null
      if (v === target) return "="
      return v.length + 1 >= Math.min(target.length, ONE_LINE_MAX) && mayFlattenTo(v, target) && oneLine(v) === target ? "~" : null
    }
    if (typeof v !== "object" || v === null) return null
    if (inputText && typeof target === "string" && (Array.isArray(v) || isPlain(v)) && mayBeInputText(v, target) && toolInputText(v) === target) return "j"
    if (typeof target === "object" && target !== null) {
      if (v === target) return "="
      if (isPlain(v) && Object.keys(v).length === targetKeys && JSON.stringify(v) === (jsonOfTarget ??= JSON.stringify(target))) return "="
    }
    if (depth >= 6) return null
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i)
        const m = visit(v[i], depth + 1)
        if (m !== null) return m
        path.pop()
      }
    } else if (isPlain(v)) {
      for (const k in v) {
        if (k === "__proto__") continue
        path.push(k)
        const m = visit(v[k], depth + 1)
        if (m !== null) return m
        path.pop()
      }
    }
    return null
  }
  for (const k in ext) {
    if (k === "__proto__") continue
    path.push(k)
    const m = visit(ext[k], 1)
    if (m !== null) return [m, ...path]
    path.pop()
  }
  return null
}

/**
 * The shapes already made, as a trie of their signatures: each event walks
 * it token by token as its body is made (a token is a tag and a string: a
 * key, a namespace, a word…; see {@link leanEvent}), and the node it ends on
 * holds its shape's JSON. The same walk as a signature string's, without
 * building, flattening and hashing that string for every event (most of
 * `leanEvent`'s own time before): the strings are the event's own keys and
 * words, whose hashes V8 keeps. Cleared when it holds {@link SHAPE_CACHE_MAX}
 * shapes or {@link TRIE_NODES_MAX} nodes (a cache: what it answers is what
 * `JSON.stringify` of the shape's definition gives).
 */
class SigNode {
  /** The shape's JSON, once an event ended here. */
  shape: string | undefined = undefined
  /** Children by tag (an index of {@link T}), then by the token's string. */
  readonly kids: Array<Map<string, SigNode> | undefined> = []
  /** The child last stepped to, and its token: most nodes have one child, found here without hashing. */
  lastTag = -1
  lastString = ""
  last: SigNode | undefined = undefined
}

/**
 * Token tags (each its own kind of token, so two different signatures never
 * walk the same path). An object `extensions` has a token of its own: the
 * signature string before had none, so an `extensions` of no namespace (`{}`,
 * shape `x: []`) and one that is not an object (a body value) could share a
 * cached shape (events of the contract always have an object).
 */
const T = {
  ref: 0,
  refPath: 1,
  key: 2,
  /** A top-level key whose value is null (one token, not a key's then a null's). */
  keyNull: 3,
  extensions: 4,
  ns: 5,
  raw: 6,
  keys: 7,
  keyOf: 8,
  wordKeyOf: 9,
  object: 10,
  word: 11,
  wNull: 12,
  wTrue: 13,
  wFalse: 14,
  wString: 15,
  /** The top-level keys whose value is null, as a bit mask (an event of {@link EVENT_KEYS}, {@link leanTop}). */
  nullMask: 16,
  /** A word key's word (an event of {@link EVENT_KEYS}: the key is the token's string). */
  wordOf: 17,
  /** An object key's kept object (an event of {@link EVENT_KEYS}: the key is the token's string). */
  objectOf: 18
} as const

let trie = new Map<string, SigNode>()
let trieShapes = 0
let trieNodes = 0
/** Nodes before the trie starts again (a node with its maps is a few hundred bytes: some MB at most). */
const TRIE_NODES_MAX = 50_000

/** The child of `node` for the token (`tag`, `s`), made when missing. */
const step = (node: SigNode, tag: number, s: string): SigNode => {
  if (node.lastTag === tag && node.lastString === s) return node.last!
  let m = node.kids[tag]
  if (m === undefined) {
    m = new Map()
    node.kids[tag] = m
  }
  let next = m.get(s)
  if (next === undefined) {
    next = new SigNode()
    trieNodes++
    m.set(s, next)
  }
  node.lastTag = tag
  node.lastString = s
  node.last = next
  return next
}

/** The root of a contract version's signatures (the trie starts again when full). */
const rootOf = (contract: string): SigNode => {
  if (trieShapes >= SHAPE_CACHE_MAX || trieNodes >= TRIE_NODES_MAX) {
    trie = new Map()
    trieShapes = 0
    trieNodes = 0
  }
  let r = trie.get(contract)
  if (r === undefined) {
    r = new SigNode()
    trie.set(contract, r)
  }
  return r
}

/** A word's token (words hold no control characters; null and booleans are tags of their own). */
const wordStep = (node: SigNode, v: unknown): SigNode =>
  v === null ? step(node, T.wNull, "") : v === true ? step(node, T.wTrue, "") : v === false ? step(node, T.wFalse, "") : step(node, T.wString, v as string)

/** Stands for a Muse Code payload in a body while the body is written (see {@link bodyText}). */
const PAYLOAD_MARK = "\u0000session-ingest:payload\u0000"
const PAYLOAD_MARK_JSON = JSON.stringify(PAYLOAD_MARK)

/**
 * `JSON.stringify(body)`, where `body`'s value at `at` (`[i, j]`: the
 * `extensions` values and the namespace's values) is the payload whose text
 * `c` carries: the body is written with a mark in its place and the mark
 * replaced by the text (the same bytes: that text is `JSON.stringify` of the
 * payload, see `canonicalMember`), so the payload is not written again. When
 * the mark is not found exactly once (content that holds the mark's own
 * text), the body is written whole.
 */
const bodyText = (body: Array<unknown>, at: readonly [number, number] | undefined, c: CanonicalText | undefined): string => {
  const parts = bodySplit(body, at, c)
  return parts.payload === undefined ? parts.head : parts.head + parts.payload.text + parts.tail
}

/**
 * {@link bodyText} in parts: the text before the payload, the payload's
 * {@link CanonicalText} and the text after it (`head + payload.text + tail`
 * is `bodyText`'s answer), so that a writer copies the payload's source bytes
 * (`payload.bytes`) instead of joining and encoding its text again; the whole
 * body in `head` (no payload, `tail` empty) when `bodyText` writes it whole.
 */
const bodySplit = (body: Array<unknown>, at: readonly [number, number] | undefined, c: CanonicalText | undefined): LeanBodyParts => {
  if (at === undefined || c === undefined) return { head: JSON.stringify(body), payload: undefined, tail: "" }
  const values = (body[at[0]] as Array<Array<unknown>>)[at[1]]
  const i = values.indexOf(c.value)
  if (i < 0) return { head: JSON.stringify(body), payload: undefined, tail: "" }
  values[i] = PAYLOAD_MARK
  const s = JSON.stringify(body)
  values[i] = c.value
  const m = s.indexOf(PAYLOAD_MARK_JSON)
  if (m < 0 || s.indexOf(PAYLOAD_MARK_JSON, m + PAYLOAD_MARK_JSON.length) >= 0) return { head: JSON.stringify(body), payload: undefined, tail: "" }
  return { head: s.slice(0, m), payload: c, tail: s.slice(m + PAYLOAD_MARK_JSON.length) }
}

/**
 * A lean body in parts (see {@link leanEventParts}): `head`, then the
 * payload's text (when `payload` is there), then `tail`, joined, is the
 * body's JSON text ({@link LeanEvent}'s `body`).
 */
export interface LeanBodyParts {
  readonly head: string
  readonly payload: CanonicalText | undefined
  readonly tail: string
}

/**
 * The values of `o`'s keys for the body (those that are not words), pushed
 * onto `values`, and the trie walked with the object's keys (see
 * the same tokens as `split`'s shape keys stand for), without
 * making the shape keys themselves (made only for a new shape, by
 * {@link shapeOf}).
 */
const splitStep = (node: SigNode, entries: Entries, values: Array<unknown>): SigNode => {
  let n = step(node, T.keys, "")
  const { keys, values: vs } = entries
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]
    const v = vs[i]
    if (isWord(v)) n = wordStep(step(n, T.wordKeyOf, k), v)
    else {
      n = step(n, T.keyOf, k)
      values.push(v)
    }
  }
  return n
}

/**
 * What {@link leanEvent} may leave out beyond the lean stream's contract
 * (`lean-1`, which keeps its shapes as they are): `inputText`, a tool call's
 * `text` that is {@link toolInputText} of an object or array in `extensions`
 * (Claude Code's and Muse agents' tool calls: their input, kept there as
 * provenance) is a reference of mode `j` (the index's record, issue 13 item 2).
 */
export interface LeanOptions {
  readonly inputText?: boolean
}

/** What the index's record leaves out (see {@link LeanOptions}). */
export const INDEX_LEAN: LeanOptions = { inputText: true }

/**
 * The lean form of an event (see {@link Shape}), or null when it must be
 * kept whole (a key the contract does not have, a value of a type the
 * columns cannot hold): {@link eventOfRow} then reads the full JSON.
 * A Muse Code native event that carries its payload's text (under
 * `CANONICAL_PAYLOAD`, see `../../domain/json.ts`) has that text copied into
 * its body instead of the payload written again (the same bytes). The
 * output is, byte for byte, what the writer before session 9 gave
 * (`test/index/lean-event-speed.test.ts` compares them).
 */
export const leanEvent = (e: SessionEvent, options?: LeanOptions): LeanEvent | null => {
  const l = leanCore(e, options)
  return l === null ? null : { shape: l.shape, body: bodyText(l.body, l.payloadAt, l.canonical) }
}

/**
 * {@link leanEvent} without its shorter walk for an event of the contract's
 * key layout (`leanTop`): every event walked key by key. The same answer as
 * `leanEvent`; for the tests that compare the two walks
 * (`test/index/lean-top.test.ts`).
 */
export const leanEventByKeys = (e: SessionEvent, options?: LeanOptions): LeanEvent | null => {
  const l = leanCore(e, options, true)
  return l === null ? null : { shape: l.shape, body: bodyText(l.body, l.payloadAt, l.canonical) }
}

/**
 * {@link leanEvent} (without options: the lean stream's `lean-1`) with its
 * body in parts ({@link LeanBodyParts}): the same shape, and the parts
 * joined are the same body text. The lean stream's writer copies the
 * payload's source bytes from them (`stream --lean` of a Muse Code native
 * log: the payload was otherwise joined into one string and encoded again,
 * which made `--lean` slower than the full stream, bench figure
 * a-native-lean). Null as `leanEvent`.
 */
export const leanEventParts = (e: SessionEvent): { readonly shape: string; readonly body: LeanBodyParts } | null => {
  const l = leanCore(e, undefined)
  return l === null ? null : { shape: l.shape, body: bodySplit(l.body, l.payloadAt, l.canonical) }
}

/**
 * The contract's keys in the order every provider's mapper writes them (the
 * `SessionEvent` schema's order). An event with exactly these keys, in this
 * order, each with a value, is leaned by {@link leanTop}.
 */
const EVENT_KEYS: ReadonlyArray<string> = Object.keys(SessionEvent.fields)
/** {@link KEY_ROLES} of each of {@link EVENT_KEYS} (0: its value goes into the body). */
const EVENT_ROLES: ReadonlyArray<number> = EVENT_KEYS.map((k) => KEY_ROLES.get(k) ?? 0)
/** The root of the signatures {@link leanTop} walks, by contract version (apart from `leanCore`'s: other tokens). */
const TOP_ROOT = "\u0000top\u0000"

/**
 * The values of an event's keys when it has exactly {@link EVENT_KEYS}, in
 * that order, each with a value (what every mapper makes); else undefined.
 */
const eventLayoutValues = (ev: Record<string, unknown>): Array<unknown> | undefined => {
  const all = Object.keys(ev)
  if (all.length !== EVENT_KEYS.length) return undefined
  for (let i = 0; i < all.length; i++) if (all[i] !== EVENT_KEYS[i]) return undefined
  const vs = Object.values(ev)
  for (let i = 0; i < vs.length; i++) if (vs[i] === undefined) return undefined
  return vs
}

type LeanParts = { shape: string; body: Array<unknown>; payloadAt: readonly [number, number] | undefined; canonical: CanonicalText | undefined }

/**
 * The references of `e`'s typed fields that restate a value of its
 * `extensions` (see {@link findRef}), the trie walked with them from `node`
 * (`[refs, node]`).
 */
const refsOf = (
  e: SessionEvent,
  ev: Record<string, unknown>,
  node: SigNode,
  options: LeanOptions | undefined
): [Record<string, ReadonlyArray<string | number>> | undefined, SigNode] => {
  let refs: Record<string, ReadonlyArray<string | number>> | undefined
  if (isPlain(e.extensions)) {
    for (const k of REF_KEYS) {
      const v = ev[k]
      if (v === null || v === undefined || (typeof v === "string" ? v.length < REF_MIN_CHARS : typeof v !== "object")) continue
      // The first place in `extensions` that restates it, in key order: the event alone decides (never the events
      // leaned before it), so an event has one shape whichever thread or run leans it (`import --jobs N`).
      const ref = findRef(e.extensions, v, options?.inputText === true && k === "text")
      if (ref !== null) {
        ;(refs ??= {})[k] = ref
        node = step(step(node, T.ref, k), T.refPath, JSON.stringify(ref))
      }
    }
  }
  return [refs, node]
}

/**
 * The values of `extensions` (an object) for the body, pushed onto `body` as
 * one array, and the trie walked with its namespaces and keys from `node`;
 * `at.payloadAt` set where a Muse Code payload whose text `canonical` carries
 * is. Undefined when a namespace cannot be rebuilt (`__proto__`): the event
 * is then kept whole.
 */
const extensionsStep = (
  node: SigNode,
  v: Record<string, unknown>,
  body: Array<unknown>,
  canonical: CanonicalText | undefined,
  at: { payloadAt: readonly [number, number] | undefined }
): SigNode | undefined => {
  const spaces = entriesOf(v)
  if (spaces === null) return undefined
  node = step(node, T.extensions, "")
  const values: Array<unknown> = []
  for (let j = 0; j < spaces.keys.length; j++) {
    const ns = spaces.keys[j]
    const inner = spaces.values[j]
    const innerEntries = isPlain(inner) ? entriesOf(inner) : null
    node = step(node, T.ns, ns)
    if (innerEntries === null) {
      values.push(inner)
      node = step(node, T.raw, "")
    } else {
      if (canonical !== undefined && at.payloadAt === undefined && ns === "native.muse" && (inner as Record<string, unknown>).payload === canonical.value) {
        at.payloadAt = [body.length, values.length]
      }
      const innerValues: Array<unknown> = []
      node = splitStep(node, innerEntries, innerValues)
      values.push(innerValues)
    }
  }
  body.push(values)
  return node
}

/**
 * {@link leanCore} of an event of {@link EVENT_KEYS} (`vs`: its values, in
 * that order): the same body, and the same shape, from a shorter walk. The
 * key layout is known, so the trie (its own root, {@link TOP_ROOT}) is walked
 * with the top-level null keys as one bit mask instead of a token per key, and
 * a token per word or object key named by its key; every other decision is
 * `leanCore`'s own, in the same order. Each signature of this walk stands for
 * exactly one of `leanCore`'s (the layout is fixed), and a new one has its
 * shape made by the same {@link shapeOf}, so the shapes are the same (issue
 * 13, first import: about a quarter of `leanEvent`'s steps were the key of
 * each top-level field; `test/index/lean-top.test.ts` compares the two).
 */
const leanTop = (e: SessionEvent, ev: Record<string, unknown>, vs: ReadonlyArray<unknown>, options: LeanOptions | undefined): LeanParts | null => {
  const [refs, start] = refsOf(e, ev, rootOf(TOP_ROOT + e.contractVersion), options)
  let mask = 0
  for (let i = 0; i < vs.length; i++) if (vs[i] === null && EVENT_ROLES[i] !== ROLE_SKIP) mask |= 1 << i
  let node = step(start, T.nullMask, "" + mask)
  const body: Array<unknown> = []
  const canonical = (e as { [CANONICAL_PAYLOAD]?: CanonicalText })[CANONICAL_PAYLOAD]
  const at: { payloadAt: readonly [number, number] | undefined } = { payloadAt: undefined }
  for (let i = 0; i < vs.length; i++) {
    const role = EVENT_ROLES[i]
    const v = vs[i]
    if (role === ROLE_SKIP || v === null) continue
    const k = EVENT_KEYS[i]
    if (refs !== undefined && refs[k] !== undefined) continue
    if (role === ROLE_EXTENSIONS && isPlain(v)) {
      const next = extensionsStep(node, v, body, canonical, at)
      if (next === undefined) return null
      node = next
      continue
    }
    if (role === ROLE_OBJECT && isPlain(v)) {
      const ks = entriesOf(v)
      if (ks !== null) {
        const values: Array<unknown> = []
        node = splitStep(step(node, T.objectOf, k), ks, values)
        body.push(values)
        continue
      }
    }
    if (role === ROLE_WORD && isWord(v)) {
      node = wordStep(step(node, T.wordOf, k), v)
      continue
    }
    body.push(v)
  }
  let shape = node.shape
  if (shape === undefined) {
    shape = shapeOf(e, EVENT_KEYS, refs)
    node.shape = shape
    trieShapes++
  }
  return { shape, body, payloadAt: at.payloadAt, canonical }
}

/** What {@link leanEvent} works out before its body is written: the shape, the body's values, and where the payload of a carried text is. */
const leanCore = (e: SessionEvent, options: LeanOptions | undefined, generic?: boolean): LeanParts | null => {
  const ev = e as unknown as Record<string, unknown>
  const top = generic === true ? undefined : eventLayoutValues(ev)
  const entries = top !== undefined ? undefined : entriesOf(ev)
  if (entries === null) return null
  if (
    typeof e.contractVersion !== "string" || typeof e.provider !== "string" || typeof e.sourceId !== "string" ||
    typeof e.sessionId !== "string" || !Number.isSafeInteger(e.sequence) || typeof e.kind !== "string" ||
    (e.occurredAt !== null && typeof e.occurredAt !== "string")
  ) return null
  if (top !== undefined) return leanTop(e, ev, top, options)
  const { keys, values: evValues } = entries!
  // The shape is found by walking the trie of signatures as the body is made; its definition is made
  // (by shapeOf, the same decisions again) only the first time a signature is seen.
  let node = rootOf(e.contractVersion)
  const body: Array<unknown> = []
  let refs: Record<string, ReadonlyArray<string | number>> | undefined
  const canonical = (e as { [CANONICAL_PAYLOAD]?: CanonicalText })[CANONICAL_PAYLOAD]
  const at: { payloadAt: readonly [number, number] | undefined } = { payloadAt: undefined }
  if (isPlain(e.extensions)) {
    for (const k of REF_KEYS) {
      const v = ev[k]
      if (v === null || v === undefined || (typeof v === "string" ? v.length < REF_MIN_CHARS : typeof v !== "object")) continue
      // The first place in `extensions` that restates it, in key order: the event alone decides (never the events
      // leaned before it), so an event has one shape whichever thread or run leans it (`import --jobs N`).
      const ref = findRef(e.extensions, v, options?.inputText === true && k === "text")
      if (ref !== null) {
        ;(refs ??= {})[k] = ref
        node = step(step(node, T.ref, k), T.refPath, JSON.stringify(ref))
      }
    }
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]
    // One lookup for what a key is (a stream or column key, `extensions`, an object key, a word key), not one per set.
    const role = KEY_ROLES.get(k)
    const v = evValues[i]
    // A null value's key is one token (`keyNull`: a key, then null), not two: a dozen fewer steps an event.
    if (v === null && role !== ROLE_SKIP) {
      node = step(node, T.keyNull, k)
      continue
    }
    node = step(node, T.key, k)
    if (role === ROLE_SKIP) continue
    if (refs !== undefined && refs[k] !== undefined) continue
    if (role === ROLE_EXTENSIONS && isPlain(v)) {
      const next = extensionsStep(node, v, body, canonical, at)
      if (next === undefined) return null
      node = next
      continue
    }
    if (role === ROLE_OBJECT && isPlain(v)) {
      const ks = entriesOf(v)
      if (ks !== null) {
        const values: Array<unknown> = []
        node = splitStep(step(node, T.object, ""), ks, values)
        body.push(values)
        continue
      }
    }
    if (role === ROLE_WORD && isWord(v)) {
      node = wordStep(step(node, T.word, ""), v)
      continue
    }
    body.push(v)
  }
  let shape = node.shape
  if (shape === undefined) {
    shape = shapeOf(e, keys, refs)
    node.shape = shape
    trieShapes++
  }
  return { shape, body, payloadAt: at.payloadAt, canonical }
}

/** The JSON of an event's shape definition (see {@link Shape}): the decisions {@link leanEvent} made for its body, made again. */
const shapeOf = (e: SessionEvent, keys: ReadonlyArray<string>, refs: Record<string, ReadonlyArray<string | number>> | undefined): string => {
  const ev = e as unknown as Record<string, unknown>
  const nulls: Array<string> = []
  let objects: Record<string, ReadonlyArray<ShapeKey>> | undefined
  let ext: Array<readonly [string, ReadonlyArray<ShapeKey> | null]> | undefined
  let words: Record<string, unknown> | undefined
  for (const k of keys) {
    if (k === "contractVersion" || STREAM_KEYS.has(k) || COLUMN_KEYS.has(k)) continue
    const v = ev[k]
    if (v === null) {
      nulls.push(k)
      continue
    }
    if (refs !== undefined && refs[k] !== undefined) continue
    if (k === "extensions" && isPlain(v)) {
      ext = []
      for (const ns of keysOf(v)!) {
        const inner = v[ns]
        const innerKeys = isPlain(inner) ? keysOf(inner) : null
        ext.push([ns, innerKeys === null ? null : split(inner as Record<string, unknown>, innerKeys)[0]])
      }
      continue
    }
    if (OBJECT_KEYS.has(k) && isPlain(v)) {
      const ks = keysOf(v)
      if (ks !== null) {
        ;(objects ??= {})[k] = split(v, ks)[0]
        continue
      }
    }
    if (SHAPE_VALUE_KEYS.has(k) && isWord(v)) (words ??= {})[k] = v
  }
  const def: Shape = {
    c: e.contractVersion,
    k: keys,
    ...(nulls.length > 0 ? { n: nulls } : {}),
    ...(objects !== undefined ? { o: objects } : {}),
    ...(ext !== undefined ? { x: ext } : {}),
    ...(refs !== undefined ? { r: refs } : {}),
    ...(words !== undefined ? { v: words } : {})
  }
  return JSON.stringify(def)
}

/** At most this many shapes are kept in the trie (it starts again when full). */
const SHAPE_CACHE_MAX = 4096

/** How a shape's event is put back together: one step per key, in order (made once per shape). */
type Step =
  | { readonly key: string; readonly from: "contract" | "null" | "ref" | "body" }
  | { readonly key: string; readonly from: "word"; readonly value: unknown }
  | { readonly key: string; readonly from: "stream"; readonly field: keyof StreamFacts }
  | { readonly key: string; readonly from: "column"; readonly field: keyof EventColumns }
  | { readonly key: string; readonly from: "object"; readonly keys: ReadonlyArray<ShapeKey> }
  | { readonly key: string; readonly from: "extensions"; readonly spaces: ReadonlyArray<readonly [string, ReadonlyArray<ShapeKey> | null]> }

/** A shape made ready to rebuild events: its steps and its references. */
export interface ShapePlan {
  readonly contract: string
  readonly steps: ReadonlyArray<Step>
  readonly refs: ReadonlyArray<readonly [string, string, ReadonlyArray<string | number>]>
}

/** The plan of a shape's JSON text (as {@link leanEvent} made it and the `shapes` table keeps it). */
export const shapePlan = (shapeJson: string): ShapePlan => {
  const s = JSON.parse(shapeJson) as Shape
  const nulls = new Set(s.n ?? [])
  const refs = s.r ?? {}
  const steps: Array<Step> = s.k.map((key): Step => {
    if (key === "contractVersion") return { key, from: "contract" }
    if (STREAM_KEYS.has(key)) return { key, from: "stream", field: key as keyof StreamFacts }
    if (COLUMN_KEYS.has(key)) return { key, from: "column", field: key as keyof EventColumns }
    if (nulls.has(key)) return { key, from: "null" }
    if (refs[key] !== undefined) return { key, from: "ref" }
    if (s.v !== undefined && Object.hasOwn(s.v, key)) return { key, from: "word", value: s.v[key] }
    if (key === "extensions" && s.x !== undefined) return { key, from: "extensions", spaces: s.x }
    if (s.o?.[key] !== undefined) return { key, from: "object", keys: s.o[key] }
    return { key, from: "body" }
  })
  return {
    contract: s.c,
    steps,
    refs: Object.entries(refs).map(([key, [mode, ...path]]) => [key, mode as string, path] as const)
  }
}

const zip = (keys: ReadonlyArray<ShapeKey>, values: ReadonlyArray<unknown>): Record<string, unknown> => {
  const o: Record<string, unknown> = {}
  let j = 0
  for (const k of keys) {
    if (typeof k === "string") o[k] = values[j++]
    else o[k[0]] = k[1]
  }
  return o
}

/**
 * The one place a stored event becomes the contract's event, for every
 * reader (events, paging, search hits, usage, export, push, replay, MCP):
 * - a row kept whole (`plan` null: every index before the lean record, and
 *   what {@link leanEvent} declines) is its JSON, upgraded to the current
 *   contract (`upgradeEvent`);
 * - a lean row is rebuilt from its shape's plan, the stream's facts, the
 *   row's columns and its body, then upgraded likewise.
 * The event is equal, key order included, to what was imported.
 */
export const eventOfRow = (
  plan: ShapePlan | null,
  body: string,
  stream: StreamFacts | null,
  columns: EventColumns
): SessionEvent => {
  if (plan === null || stream === null) return upgradeEvent(JSON.parse(body) as SessionEvent)
  const values = JSON.parse(body) as ReadonlyArray<unknown>
  const out: Record<string, unknown> = {}
  let i = 0
  for (const step of plan.steps) {
    switch (step.from) {
      case "contract":
        out[step.key] = plan.contract
        break
      case "stream":
        out[step.key] = stream[step.field]
        break
      case "column":
        out[step.key] = columns[step.field]
        break
      case "null":
      case "ref":
        out[step.key] = null
        break
      case "word":
        out[step.key] = step.value
        break
      case "object":
        out[step.key] = zip(step.keys, values[i++] as ReadonlyArray<unknown>)
        break
      case "extensions": {
        const got = values[i++] as ReadonlyArray<unknown>
        const ext: Record<string, unknown> = {}
        step.spaces.forEach(([ns, keys], j) => {
          ext[ns] = keys === null ? got[j] : zip(keys, got[j] as ReadonlyArray<unknown>)
        })
        out[step.key] = ext
        break
      }
      default:
        out[step.key] = values[i++]
    }
  }
  for (const [key, mode, path] of plan.refs) {
    let v: unknown = out.extensions
    for (const p of path) v = (v as Record<string | number, unknown>)[p]
    out[key] = mode === "~" ? oneLine(v as string) : mode === "j" ? toolInputText(v) : v
  }
  const e = out as unknown as SessionEvent
  return plan.contract === CONTRACT_VERSION ? e : upgradeEvent(e)
}

/**
 * `AND (<column> = folder OR <column> LIKE 'folder/%')`: a workspace and the folders under it, a path component at
 * a time ({@link workspaceFolder}: `/` holds every absolute workspace, a trailing `/` is dropped; `%`, `_` and
 * backslash escaped), the same SQL on both engines. Source: the filters of docs/search.md.
 */
export const workspaceSql = (sql: SqlClient.SqlClient, column: string, workspace: string) => {
  const { folder, under } = workspaceFolder(workspace)
  return sql`AND (${sql.unsafe(column)} = ${folder} OR ${sql.unsafe(column)} LIKE ${under.replace(/[\\%_]/g, "\\$&") + "%"} ESCAPE '\\')`
}

/**
 * The SQL expression (SQLite and PostgreSQL alike) of {@link sortKey} for a
 * column holding times as `normalizeTimestamp` writes them
 * (`YYYY-MM-DDTHH:MM:SS.` then 3 to 9 fraction digits, then `Z`): the same
 * text with the `Z` dropped and the fraction padded to 9 digits, so that the
 * keys of two instants compare as the instants do, and compare with a
 * bound's `sortKey`. Null for a null column. Stored times of several
 * precisions do not compare as text (`…59.999Z` > `…59.999999Z`, as `Z` > `9`:
 * tester23a F1).
 */
export const sortKeySql = (column: string): string => `substr(replace(${column}, 'Z', '') || '000000000', 1, 29)`

/**
 * The SQL expression (SQLite and PostgreSQL alike) of the earlier
 * (`earliest`) or the later (`latest`) of two times `a` and `b` as
 * `normalizeTimestamp` writes them, by instant ({@link sortKeySql}; as text
 * `min`/`max`, `LEAST`/`GREATEST` pick `…59.999Z` over `…59.999999Z` as the later); the other when one is
 * null. What a session's `first_at` / `last_at` keep as batches add events.
 */
export const extremeTimeSql = (a: string, b: string, which: "earliest" | "latest"): string =>
  `CASE WHEN ${a} IS NULL THEN ${b} WHEN ${b} IS NULL THEN ${a} WHEN ${sortKeySql(b)} ${which === "earliest" ? "<" : ">"} ${sortKeySql(a)} THEN ${b} ELSE ${a} END`

/**
 * The `AND …` clause of a `SessionFilter.status` over the joined source `s` (a session is `incomplete` while
 * the source of its shown generation is `importing`: {@link sessionStatusOf}), for either engine; empty when absent.
 */
export const statusSql = (sql: SqlClient.SqlClient, status: SessionStatus | undefined) =>
  status === undefined ? sql`` : status === "incomplete" ? sql`AND s.status = 'importing'` : sql`AND s.status <> 'importing'`

/**
 * The `AND …` clauses of a time range (`since` / `until`: RFC 3339, inclusive;
 * either may be absent) over the time column `column`, for either engine:
 * the column's instant ({@link sortKeySql}) against each bound's
 * ({@link sortKey}), so that a bound means its instant however it is written
 * and a stored time of any precision is in or out as its instant is (never
 * the text: tester23a F1). A row without a time is out when a bound is given.
 * Empty when neither is.
 */
export const timeRangeSql = (
  sql: SqlClient.SqlClient,
  column: string,
  range: { readonly since?: string | undefined; readonly until?: string | undefined }
) =>
  sql`${range.since !== undefined ? sql`AND ${sql.unsafe(sortKeySql(column))} >= ${sortKey(range.since)}` : sql``}
    ${range.until !== undefined ? sql`AND ${sql.unsafe(sortKeySql(column))} <= ${sortKey(range.until)}` : sql``}`

/**
 * Whether a time (as `normalizeTimestamp` writes it, or null) lies in a
 * time range as {@link timeRangeSql} decides it (by instant; a null time is
 * out when a bound is given): for rows filtered in memory.
 */
export const inTimeRange = (
  at: string | null,
  range: { readonly since?: string | undefined; readonly until?: string | undefined }
): boolean =>
  (range.since === undefined && range.until === undefined) ||
  (at !== null && (range.since === undefined || compareTimestamps(at, range.since) >= 0) &&
    (range.until === undefined || compareTimestamps(at, range.until) <= 0))

/** The columns a search's filters test, as the query names them (`d.provider`, `st.session_uid`, ...). */
export interface SearchFilterColumns {
  readonly provider: string
  readonly kind: string
  readonly role: string
  readonly occurredAt: string
  readonly sessionUid: string
}

/**
 * The `AND …` clauses of a search's filters (provider, kind, role, since,
 * until, session by uid or id, sessions by uid, workspace and the folders under it), over the
 * columns `cols` names, for either engine (the same SQL on SQLite and
 * PostgreSQL). Empty when no filter is set. Source: issue 14 (search filters).
 */
export const searchFilterSql = (sql: SqlClient.SqlClient, filter: SearchFilter, cols: SearchFilterColumns) => {
  const c = (name: string) => sql.unsafe(name)
  const workspace = filter.workspace
  return sql`${filter.provider !== undefined ? sql`AND ${c(cols.provider)} = ${filter.provider}` : sql``}
    ${filter.kind !== undefined ? sql`AND ${c(cols.kind)} = ${filter.kind}` : sql``}
    ${filter.role !== undefined ? sql`AND ${c(cols.role)} = ${filter.role}` : sql``}
    ${timeRangeSql(sql, cols.occurredAt, filter)}
    ${
    filter.session !== undefined
      ? sql`AND ${c(cols.sessionUid)} IN (SELECT session_uid FROM sessions WHERE session_uid = ${filter.session} OR session_id = ${filter.session})`
      : sql``
  }
    ${
    filter.sessionUids !== undefined
      ? (filter.sessionUids.length === 0 ? sql`AND FALSE` : sql`AND ${c(cols.sessionUid)} IN ${sql.in(filter.sessionUids)}`)
      : sql``
  }
    ${
    workspace !== undefined
      ? sql`AND ${c(cols.sessionUid)} IN (SELECT session_uid FROM sessions WHERE TRUE ${workspaceSql(sql, "workspace", workspace)})`
      : sql``
  }`
}

/**
 * The condition on a `sources` row (`alias`) whose usage rows count (the same SQL on SQLite and PostgreSQL): not
 * rejected, and not `importing` at the generation readers are shown, an incomplete session's source
 * ({@link SessionRow.status}): a prefix of a session is never priced as the session, and a copy of one of its
 * responses counts in a complete session that holds it (docs/usage-and-cost.md, "Incomplete sessions").
 */
export const countedSource = (alias: string): string => `${alias}.status NOT IN ('rejected', 'importing')`

/**
 * Where a response that several sessions hold counts (docs/usage-and-cost.md "Tokens and
 * cost", "Copies of a response"): in the session that began first (its
 * `first_at`; a session without one last), then the one that ended first
 * (the one resumed ended before its resumption; a copy repeats the
 * conversation from its start, so both begin at the same time), then the
 * row's own time, then the lower session id, then the lower source id
 * (`sha256:` of the file's real path: two copies of one log differ in
 * nothing else), and last the source and session keys (only a team index
 * can get there: the same file read on two machines). Not the row's time
 * first: a row's time is its response's last line, and a copy may hold only
 * the response's first streamed lines, earlier than the original's last:
 * ordered by it, the copy took the original's cost. Not the source key before
 * the ids: it is a hash that a team index also makes of the machine, so
 * SQLite, PostgreSQL and a push credited different copies. Nothing here
 * depends on the order of imports. The times compare as instants
 * ({@link sortKeySql}; session 24: as text `…00.999Z` came after `…00.9995Z`, stored
 * times having 3 to 9 fraction digits), the ids as bytes on both engines
 * (SQLite's BINARY, PostgreSQL's columns `COLLATE "C"`). `fu`: the usage row,
 * `fss`: its session. `usageRowsFromEvents` (src/layers/index/sqlite.ts) orders alike in code.
 */
const FIRST_SEEN_ORDER = `fss.first_at IS NULL, ${sortKeySql("fss.first_at")}, fss.last_at IS NULL, ${sortKeySql("fss.last_at")},
        fu.occurred_at IS NULL, ${sortKeySql("fu.occurred_at")}, fss.session_id, fss.source_id, fu.source_key, fu.session_uid`

/**
 * The usage rows that may be copies of one response (see {@link firstSeenUsage}): a Claude Code response named by a
 * `message.id` (key `r:<message.id>:<requestId>`, or `r:<message.id>` without a `requestId`: the key that groups its
 * lines inside one log).
 */
const COPIED_RESPONSE = `fu.provider = 'claude-code' AND fu.kind = 'response' AND fu.response_key LIKE 'r:%'`

/** The window of the copies of one response (the same key and usage), in {@link FIRST_SEEN_ORDER}. */
const COPIES_WINDOW = `PARTITION BY fu.provider, fu.kind, fu.response_key, fu.input_tokens, fu.output_tokens, fu.cache_read_tokens,
        fu.cache_write_tokens, fu.cost_usd
      ORDER BY ${FIRST_SEEN_ORDER}`

/** The SQL dialect of a query that differs between the engines (a function name). */
export type UsageDialect = "sqlite" | "pg"

/**
 * The `message.id` in a response key (`r:<message.id>` or
 * `r:<message.id>:<requestId>`; an Anthropic message id holds no `:`).
 */
const MESSAGE_ID_OF: Record<UsageDialect, string> = {
  sqlite: `CASE WHEN instr(substr(fu.response_key, 3), ':') > 0
      THEN substr(fu.response_key, 3, instr(substr(fu.response_key, 3), ':') - 1) ELSE substr(fu.response_key, 3) END`,
  pg: `split_part(substr(fu.response_key, 3), ':', 1)`
}

/**
 * The usage rows that may be one Claude response in AgentMux's record and in
 * Claude Code's own log (see {@link firstSeenUsage}): responses of either
 * provider named by a message id.
 */
const MIRRORED_RESPONSE = `fu.kind = 'response' AND fu.provider IN ('claude-code', 'agentmux') AND fu.response_key LIKE 'r:%'`

/**
 * The window of the copies of one Claude response across AgentMux and Claude
 * Code: the same native session id and `message.id`; Claude Code's own log
 * first, then {@link FIRST_SEEN_ORDER}.
 */
const MIRROR_WINDOW = (dialect: UsageDialect) =>
  `PARTITION BY ${MIRRORED_RESPONSE}, fss.session_id, ${MESSAGE_ID_OF[dialect]}
      ORDER BY fu.provider = 'agentmux', ${FIRST_SEEN_ORDER}`

/**
 * The index's current usage rows (of sources not rejected, at their current
 * generation), each with `first_seen`: 1 where the row is counted, else its
 * rank among the copies of the same response. Two kinds of copies:
 *
 * - A Claude Code response named by its `message.id` and `requestId` (key
 *   `r:<message.id>:<requestId>`), or by its `message.id` alone when the line
 *   has no `requestId` or an empty one (key `r:<message.id>`: the key that
 *   groups its streamed lines inside one log), and found with the same
 *   usage (tokens and stated cost) in several sessions is one response
 *   copied (a resumed session's log repeats the earlier conversation's
 *   lines, ids and usage kept; a log copied to a second place repeats all of
 *   it; the same log pushed from several machines): it is counted once, where
 *   it was seen first ({@link FIRST_SEEN_ORDER}).
 *   Source: ccusage counts a response once across all files by
 *   `messageId:requestId`, `messageId` alone when there is no `requestId`
 *   (`createUniqueHash`; ccusage #976; fixtures/claude-code/README.md
 *   "Counting once"), reading the files oldest first by their earliest
 *   timestamp (`sortFilesByTimestamp`); a fresh-user test of session 8 found
 *   a resumed session counted twice, tester33b F2 a response without a
 *   `requestId` counted in every copy of its log.
 * - A Claude run that AgentMux drove is in AgentMux's record (Claude's
 *   stream-json, seed 002: "every agent's provider output"; no `requestId`
 *   there) and, while it lasts, in Claude Code's own log: an AgentMux
 *   response with the session id and `message.id` of a Claude Code response
 *   counts in the Claude Code session (the provider's own record, with its
 *   usage), and two AgentMux copies (a run archived in two stores) count once.
 *   An AgentMux run (its `result`, whose stated cost covers its responses)
 *   whose every response counts elsewhere counts elsewhere too: its cost is
 *   the Claude Code session's. A fresh-user test of session 19 (F6) found such
 *   a run counted twice. A run some of whose responses count in Claude Code's
 *   log (a log that lags the stream, or was cut) does not count either: its
 *   stated total overlaps them, so it is set aside (`run_set_aside` 1, on the
 *   run and on its responses) and its other responses are priced from the
 *   table, not covered by it (tester27a F8: the total was $0.25 + $0.018 for
 *   $0.054 of responses, and fell to $0.054 as the log caught up).
 *
 * Every other row is 1: a Claude Code line without a `message.id` (keyed by
 * its event), and other providers' responses, are counted per session. The
 * same SQL on SQLite and PostgreSQL but for one function (`dialect`):
 * `row_number()` over sorts of the rows. {@link firstSeenUsageOf} ranks
 * only the rows some sessions' rows need.
 *
 * Each row also carries what the callers filter and group on, so that they
 * never join the ranked rows back to `sessions` or `sources`:
 * `session_workspace` (its session's `workspace`) and, on PostgreSQL,
 * `source_machine` (its source's `machine`). PostgreSQL cannot estimate how
 * many ranked rows pass `first_seen = 1` (it guessed 4 where 62,000 did, on a
 * team index holding the same logs pushed from ten machines): joined back to
 * `sessions`, it chose a nested loop over every session times every ranked
 * row, 117 million rows compared, 65 s (tester40 F0).
 */
export const firstSeenUsage = (dialect: UsageDialect) => `
  WITH ranked AS (
    SELECT fu.*, fss.workspace AS session_workspace${dialect === "pg" ? ", fs.machine AS source_machine" : ""}, CASE
      WHEN ${COPIED_RESPONSE} THEN row_number() OVER (${COPIES_WINDOW})
      WHEN fu.provider = 'agentmux' AND ${MIRRORED_RESPONSE} THEN row_number() OVER (${MIRROR_WINDOW(dialect)})
      ELSE 1 END AS response_rank,
      CASE WHEN fu.provider = 'agentmux' AND ${MIRRORED_RESPONSE} THEN first_value(fu.provider) OVER (${MIRROR_WINDOW(dialect)})
      ELSE NULL END AS mirror_first
    FROM usage fu
      JOIN sources fs ON fs.source_key = fu.source_key AND fs.generation = fu.generation
      JOIN sessions fss ON fss.session_uid = fu.session_uid AND fss.generation = fu.generation
    WHERE ${countedSource("fs")} ${SCOPE_MARK}),
  mirrored_runs AS (
    SELECT source_key, generation, session_uid, run_seq, min(response_rank) AS best,
      max(CASE WHEN response_rank > 1 AND mirror_first = 'claude-code' THEN 1 ELSE 0 END) AS in_claude
    FROM ranked WHERE provider = 'agentmux' AND kind = 'response' AND run_seq IS NOT NULL
    GROUP BY source_key, generation, session_uid, run_seq)
  SELECT r.*, CASE WHEN r.kind = 'run' AND r.provider = 'agentmux' AND (m.best > 1 OR m.in_claude = 1) THEN 2 ELSE r.response_rank END AS first_seen,
    CASE WHEN r.provider = 'agentmux' AND m.in_claude = 1 THEN 1 ELSE 0 END AS run_set_aside
  FROM ranked r LEFT JOIN mirrored_runs m ON m.source_key = r.source_key AND m.generation = r.generation
    AND m.session_uid = r.session_uid AND m.run_seq = CASE WHEN r.kind = 'run' THEN r.sequence ELSE r.run_seq END`

/** Where {@link firstSeenUsage}'s ranking takes {@link firstSeenUsageOf}'s condition (an SQL comment). */
const SCOPE_MARK = "/* scope */"

/**
 * {@link firstSeenUsage} as a statement fragment; with `sessionUids`, its
 * ranking keeps only the usage rows whose rank the rows of those sessions
 * need: their own rows, every copy of their Claude Code responses (the rows
 * of the same response key: the whole window of each), and every response
 * named by a message id in a session of their native ids (the whole window
 * of each AgentMux/Claude Code mirror). A listing of a few sessions then
 * ranks their responses' copies, not every response of the index (tester40
 * F0: one machine's six sessions listed by sorting 220,000 usage rows). The
 * ranks of the rows of `sessionUids` are those of the whole index; other
 * rows kept may rank otherwise, so the caller keeps only the rows of
 * `sessionUids`. The same SQL on SQLite and PostgreSQL but for `dialect`.
 */
export const firstSeenUsageOf = (sql: SqlClient.SqlClient, dialect: UsageDialect, sessionUids: ReadonlyArray<string> | undefined) => {
  const [head, tail] = firstSeenUsage(dialect).split(SCOPE_MARK)
  if (sessionUids === undefined) return sql`${sql.unsafe(head)}${sql.unsafe(tail)}`
  return sql`${sql.unsafe(head)}AND (fu.session_uid IN ${sql.in(sessionUids)}
      OR (${sql.unsafe(COPIED_RESPONSE)} AND fu.response_key IN (
        SELECT k.response_key FROM usage k WHERE k.session_uid IN ${sql.in(sessionUids)}
          AND k.provider = 'claude-code' AND k.kind = 'response' AND k.response_key LIKE 'r:%'))
      OR (${sql.unsafe(MIRRORED_RESPONSE)} AND fss.session_id IN (SELECT k.session_id FROM sessions k WHERE k.session_uid IN ${sql.in(sessionUids)})))${sql.unsafe(tail)}`
}

/**
 * The model a usage row is reported under by `usage --by model` (`u`: the
 * row): a response's own; a run's (an AgentMux `result`: its stated total)
 * where its responses are: its own model (its `system/init` line's) when a
 * response of the run has it, else its latest response's, else its own (a
 * run without responses). The same as `bookedModelOf` in `src/domain/usage.ts`
 * (docs/usage-and-cost.md; tester22a F3: init model "x", response
 * "unknown-model-x" gave a row `x` with no tokens and the run's $0.05). The
 * same SQL on SQLite and PostgreSQL but for one comparison (`dialect`).
 */
export const bookedModel = (dialect: UsageDialect) => `CASE WHEN u.kind = 'run' THEN coalesce((
      SELECT bm.model FROM usage bm
      WHERE bm.session_uid = u.session_uid AND bm.generation = u.generation AND bm.source_key = u.source_key
        AND bm.kind = 'response' AND bm.run_seq = u.sequence
      ORDER BY bm.model ${dialect === "pg" ? "IS NOT DISTINCT FROM" : "IS"} u.model DESC, bm.sequence DESC LIMIT 1), u.model)
    ELSE u.model END`

/**
 * The select of {@link countedElsewhereUsage}'s two halves up to its `WHERE`: each current usage row (of a source
 * not rejected) with its rank in window `w`, the first row's session uid, native session id and provider, and what the
 * filters read; the caller's conditions follow `AND`.
 */
const copiesOf = (w: string) => `SELECT fu.session_uid, fu.provider, fu.occurred_at, fss.workspace AS session_workspace,
      row_number() OVER ${w} AS first_seen, first_value(fu.session_uid) OVER ${w} AS counted_in, first_value(fss.session_id) OVER ${w} AS counted_in_id,
      first_value(fu.provider) OVER ${w} AS counted_in_provider
    FROM usage fu
      JOIN sources fs ON fs.source_key = fu.source_key AND fs.generation = fu.generation
      JOIN sessions fss ON fss.session_uid = fu.session_uid AND fss.generation = fu.generation
    WHERE ${countedSource("fs")}`

/**
 * The responses that do not count ({@link firstSeenUsage}'s responses with
 * `first_seen` above 1), each with the session it counts in: `counted_in`
 * (its uid), `counted_in_id` (its native session id) and
 * `counted_in_provider`, and the copy's
 * `session_uid`, `provider`, `occurred_at` and `session_workspace` for the
 * filters. Only the rows that can have a copy are sorted: the Claude Code
 * responses whose key is in several usage rows, and the Claude responses of
 * a session id that AgentMux holds (of `sessionUids` only, when given: the
 * whole partitions of those sessions' keys and ids), so a listing does not
 * sort every response of the index again. The same SQL on SQLite and
 * PostgreSQL but for one function (`dialect`).
 */
export const countedElsewhereUsage = (sql: SqlClient.SqlClient, dialect: UsageDialect, sessionUids: ReadonlyArray<string> | undefined) =>
  sql`SELECT * FROM (
    ${sql.unsafe(copiesOf("w"))} AND ${sql.unsafe(COPIED_RESPONSE)}
      AND fu.response_key IN (
        SELECT k.response_key FROM usage k WHERE k.provider = 'claude-code' AND k.kind = 'response' AND k.response_key LIKE 'r:%'
        ${
    sessionUids !== undefined
      ? sql`AND k.session_uid IN ${sql.in(sessionUids)}`
      : sql`GROUP BY k.response_key HAVING count(*) > 1`
  })
    WINDOW w AS (${sql.unsafe(COPIES_WINDOW)})) c
  WHERE c.first_seen > 1
  UNION ALL
  SELECT * FROM (
    ${sql.unsafe(copiesOf("m"))} AND ${sql.unsafe(MIRRORED_RESPONSE)}
      AND fss.session_id IN (
        SELECT k.session_id FROM sessions k WHERE k.provider = 'agentmux'
        ${sessionUids !== undefined ? sql`AND k.session_uid IN ${sql.in(sessionUids)}` : sql``})
    WINDOW m AS (${sql.unsafe(MIRROR_WINDOW(dialect))})) c
  WHERE c.first_seen > 1 AND c.provider = 'agentmux'`
