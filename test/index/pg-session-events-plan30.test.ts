/**
 * A session's events read in order on PostgreSQL (`eventsStream`: show, export,
 * replay, MCP get_session/get_events; `eventsAround`: an event's neighbours)
 * are index range scans of `events_by_session`, never a sequential scan of
 * `events` nor a sort of the session's rows (session 30, fix30a: joined to
 * `sources` for the generation, PostgreSQL read every row of the session, or
 * the whole table, and sorted them for each page: ~0.6 s a page of a big
 * session). The plans are the ones the server ran for the layer's own queries
 * (`auto_explain` set on the test's database, its log read back), on an
 * analyzed index holding a superseded generation of the session; the events
 * are still those of the current generation only, in order.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { sessionUid } from "../../src/domain/index/ids.js"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index } from "../../src/services/Index.js"
import { eventsOf, importGeneration } from "../support/plan-corpus.js"
import { migratedDatabase, pgQuery } from "../support/pg.js"

const MACHINE = "laptop-30"
const BIG = 3000


interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** The plans `auto_explain` logged for queries whose text holds `marker` (the server's log, read by the server). */
const loggedPlans = async (url: string, marker: string): Promise<Array<{ query: string; plan: PlanNode }>> => {
  const [{ log }] = await pgQuery<{ log: string }>(url, "SELECT pg_read_file(current_setting('data_directory') || '/../server.log') AS log")
  const out: Array<{ query: string; plan: PlanNode }> = []
  for (const entry of log.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+ \[\d+\] )/)) {
    const at = entry.indexOf("plan:\n")
    if (at < 0) continue
    const body = JSON.parse(entry.slice(at + 6).replace(/^\t/gm, "")) as { "Query Text": string; Plan: PlanNode }
    if (body["Query Text"].includes(marker)) out.push({ query: body["Query Text"], plan: body.Plan })
  }
  return out
}

/** Nodes of `node` that scan `events`, and the sorts that read such a scan with no `Limit` between them. */
const eventsReads = (node: PlanNode, underSort = false): { scans: Array<PlanNode>; sortedScans: Array<PlanNode> } => {
  const scans: Array<PlanNode> = [], sortedScans: Array<PlanNode> = []
  if (node["Relation Name"] === "events") {
    scans.push(node)
    if (underSort) sortedScans.push(node)
  }
  const sort = node["Node Type"] === "Sort" || node["Node Type"] === "Incremental Sort" || (underSort && node["Node Type"] !== "Limit")
  for (const child of node.Plans ?? []) {
    const r = eventsReads(child, sort)
    scans.push(...r.scans)
    sortedScans.push(...r.sortedScans)
  }
  return { scans, sortedScans }
}

describe("a session's events in order on PostgreSQL (fix30a)", () => {
  it.effect("eventsStream and eventsAround read index ranges of events_by_session: no sequential scan, no sort of the session", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabase
      const layer = IndexPostgres.layer({ url, machine: MACHINE })
      const current = eventsOf(0, BIG, 2)
      yield* Effect.gen(function*() {
        for (let n = 1; n <= 30; n++) yield* importGeneration(n, 1, eventsOf(n, 100, 1))
        // The big session, then its source rewritten: generation 1 stays in `events`, superseded.
        yield* importGeneration(0, 1, eventsOf(0, BIG, 1))
        yield* importGeneration(0, 2, current)
      }).pipe(Effect.provide(layer))
      const db = new URL(url).pathname.slice(1)
      yield* Effect.promise(async () => {
        await pgQuery(url, "ANALYZE")
        await pgQuery(url, `ALTER DATABASE ${db} SET session_preload_libraries = 'auto_explain'`)
        await pgQuery(url, `ALTER DATABASE ${db} SET auto_explain.log_min_duration = 0`)
        await pgQuery(url, `ALTER DATABASE ${db} SET auto_explain.log_format = 'json'`)
      })
      const uid = sessionUid("muse-agents", "sha256:plan30-0", "plan30-0", MACHINE)

      // A new layer: its connections start with auto_explain loaded.
      const { around, from, read } = yield* Effect.gen(function*() {
        const index = yield* Index
        const read = Chunk.toArray(yield* Stream.runCollect(index.eventsStream(uid, 500)))
        const around = yield* index.eventsAround(uid, "line-1500", 3, 2)
        // session 31 (tester30c F5): from a sequence on, as MCP get_events resumes at its cursor's event
        const from = Chunk.toArray(yield* Stream.runCollect(index.eventsStream(uid, 7, { sequence: current[1500].sequence })))
        return { read, around, from }
      }).pipe(Effect.provide(IndexPostgres.layer({ url })))
      expect(from.map((e) => e.text)).toEqual(current.slice(1500).map((e) => e.text))

      // The current generation's events only, in order.
      expect(read.map((e) => e.text)).toEqual(current.map((e) => e.text))
      const a = Option.getOrThrow(around)
      expect(a.at).toBe(3)
      expect(a.events.map((e) => e.text)).toEqual(["g2 event 1496", "g2 event 1497", "g2 event 1498", "g2 event 1499", "g2 event 1500", "g2 event 1501"])

      const plans = yield* Effect.promise(() => loggedPlans(url, "ORDER BY e.sequence"))
      // Every page of the stream (3000 events, 500 a page, and the empty last one) and both neighbour reads.
      expect(plans.length).toBeGreaterThanOrEqual(8)
      for (const { query, plan } of plans) {
        const { scans, sortedScans } = eventsReads(plan)
        expect(scans.length, query).toBeGreaterThan(0)
        for (const s of scans) {
          expect(s["Node Type"], `${query}\n${JSON.stringify(plan)}`).toMatch(/^Index (Only )?Scan$/)
          expect(s["Index Name"], query).toBe("events_by_session")
        }
        expect(sortedScans, `${query}\n${JSON.stringify(plan)}`).toEqual([])
      }
    }), 120_000)
})
