/**
 * The rows both index layers (SQLite and PostgreSQL) read back, and how they
 * become the service's shapes: a source's checkpoint and a session. One
 * table layout, so one mapping.
 *
 * @module
 */
import { legacySourceSummary, upgradeEvent } from "../../domain/contract-upgrade.js"
import type { Diagnostic, Locator, ProviderId, SessionEvent, SourceSummary } from "../../domain/model.js"
import type { QueryNode } from "../../domain/search/query.js"
import { searchableText, snippetOf } from "../../domain/search/text.js"
import type { Checkpoint, CheckpointedSource, SearchHit, SessionRow } from "../../services/Index.js"

/** A stored source's typed summary: its `overview_json`, else (imported before contract 1.1.0) what its provider summary said. */
export const overviewOf = (overviewJson: string | null, summaryJson: string): SourceSummary =>
  overviewJson !== null
    ? JSON.parse(overviewJson) as SourceSummary
    : legacySourceSummary(JSON.parse(summaryJson) as Record<string, unknown>)

/** The checkpoint columns; `overview` is the `overview_json` column, or NULL in an index read before migration 0003. */
export const checkpointColumns = (overview: string) =>
  `source_key, provider, generation, cursor, fingerprint, status, event_count, locator_json, summary_json, ${overview}, source_id, prefix, parts_json, diagnostics_json`

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
}

/** A checkpoint row as the service gives it. */
export const toCheckpoint = (r: CheckpointRow): CheckpointedSource => ({
  sourceKey: r.source_key,
  provider: r.provider as ProviderId,
  generation: r.generation,
  cursor: r.cursor,
  fingerprint: r.fingerprint,
  status: r.status as Checkpoint["status"],
  eventCount: r.event_count,
  locator: JSON.parse(r.locator_json) as Locator,
  summary: JSON.parse(r.summary_json) as Record<string, unknown>,
  overview: overviewOf(r.overview_json, r.summary_json),
  sourceId: r.source_id,
  prefix: r.prefix,
  parts: r.parts_json === null ? {} : JSON.parse(r.parts_json) as Record<string, string>,
  diagnostics: r.diagnostics_json === null ? [] : JSON.parse(r.diagnostics_json) as ReadonlyArray<Diagnostic>
})

/** A `sessions` row joined with its source, as the session queries select it. */
export interface SessionDbRow {
  readonly session_uid: string
  readonly provider: string
  readonly session_id: string
  readonly source_id: string
  readonly source_key: string
  readonly locator_json: string
  readonly summary_json: string
  readonly overview_json: string | null
  readonly generation: number
  readonly title: string | null
  readonly workspace: string | null
  readonly first_at: string | null
  readonly last_at: string | null
  readonly event_count: number
}

/** A session row as the service gives it. */
export const toSessionRow = (r: SessionDbRow): SessionRow => ({
  sessionUid: r.session_uid,
  provider: r.provider as ProviderId,
  sessionId: r.session_id,
  sourceId: r.source_id,
  sourceKey: r.source_key,
  locator: JSON.parse(r.locator_json) as Locator,
  summary: JSON.parse(r.summary_json) as Record<string, unknown>,
  overview: overviewOf(r.overview_json, r.summary_json),
  generation: r.generation,
  title: r.title,
  workspace: r.workspace,
  firstAt: r.first_at,
  lastAt: r.last_at,
  eventCount: r.event_count
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
  base: Pick<SearchHit, "sessionUid" | "sessionId" | "title" | "provider" | "workspace" | "score">,
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
  const e = upgradeEvent(JSON.parse(eventJson) as SessionEvent)
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
