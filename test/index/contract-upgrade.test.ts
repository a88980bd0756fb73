/**
 * An index imported under contract 1.0.0 reads as 1.1.0 (issue 12, item 2):
 * its stored events, which kept the conversation facts only in their
 * provenance, come back with the typed fields filled (`upgradeEvent`), equal
 * to what a fresh import gives, without re-reading any source.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Chunk from "effect/Chunk"
import { upgradeEvent } from "../../src/domain/contract-upgrade.js"
import { CONTRACT_VERSION, type SessionEvent } from "../../src/domain/model.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { copyFixtures as copyClaude } from "../claude-code/helpers.js"
import { copyFixtures as copyAgents } from "../muse-agents/helpers.js"
import { importOnce } from "../support/index.js"
import { mk } from "../support/events.js"
import { toLegacyLayout } from "../support/legacy-index.js"

const TYPED = ["toolInput", "isError", "compaction", "parent", "child", "usage", "responseId"] as const

/** Every session's events, as the index gives them. */
const allEvents = (file: string, readonly = false) =>
  Effect.gen(function*() {
    const index = yield* Index
    const out: Array<SessionEvent> = []
    for (const s of yield* index.sessions({})) out.push(...(yield* index.events(s.sessionUid)))
    return out
  }).pipe(Effect.provide(readonly ? IndexSqlite.layerReadonly(file) : IndexSqlite.layer(file)))

/** The sessions the index lists, with their sources' typed summaries. */
const sessionsOf = (file: string, readonly = false) =>
  Effect.flatMap(Index, (i) => i.sessions({})).pipe(
    Effect.provide(readonly ? IndexSqlite.layerReadonly(file) : IndexSqlite.layer(file))
  )

/** Rewrite every stored event as contract 1.0.0 wrote it: no typed fields, the old version. */
const downgrade = (file: string) => {
  const db = new Database(file)
  const rows = db.prepare("SELECT rowid, event_json FROM events").all() as Array<{ rowid: number; event_json: string }>
  const update = db.prepare("UPDATE events SET event_json = ? WHERE rowid = ?")
  db.transaction(() => {
    for (const r of rows) {
      const e = JSON.parse(r.event_json) as Record<string, unknown>
      for (const k of TYPED) delete e[k]
      e.contractVersion = "1.0.0"
      update.run(JSON.stringify(e), r.rowid)
    }
  })()
  db.close()
  return rows.length
}

describe("an index of contract 1.0.0 reads as 1.1.0", () => {
  it.effect("Claude Code and Muse agents events get back every typed fact (inputs, outcomes, compactions, links, usage), sources their typed summary", () =>
    Effect.gen(function*() {
      const claudeRoot = copyClaude()
      const agentsRoot = copyAgents()
      const dir = path.dirname(claudeRoot)
      const policy = { workspaceRoots: [path.join(dir, "no-workspace")], museRoots: [], agentsRoot, claudeRoot }
      const file = path.join(dir, "index.db")
      yield* importOnce(policy, file, planFromPolicy(policy, {}))
      const fresh = yield* allEvents(file)
      // The fixtures hold every kind of typed fact, so the check below cannot pass vacuously.
      expect(fresh.some((e) => e.toolInput !== null)).toBe(true)
      expect(fresh.some((e) => e.isError === true)).toBe(true)
      expect(fresh.some((e) => e.compaction !== null)).toBe(true)
      expect(fresh.some((e) => e.parent !== null)).toBe(true)
      expect(fresh.some((e) => e.child !== null)).toBe(true)
      expect(fresh.some((e) => e.usage !== null)).toBe(true)
      const freshSessions = yield* sessionsOf(file)
      yield* toLegacyLayout(file) // the layout 1.0.0 indexes have: whole events in `events`
      expect(downgrade(file)).toBe(fresh.length)
      const db = new Database(file)
      db.prepare("UPDATE sources SET overview_json = NULL").run() // as an index imported before 1.1.0 has them
      db.close()
      const before = fs.readFileSync(file)
      const upgraded = yield* allEvents(file, true) // as sessions / show / export read it
      // Every typed fact but the 1-hour part of the cache writes (contract 1.3.0), which 1.0.0 did not keep: not said.
      expect(upgraded).toEqual(fresh.map((e) => e.usage === null ? e : { ...e, usage: { ...e.usage, cacheWrite1hTokens: null } }))
      expect(upgraded.every((e) => e.contractVersion === CONTRACT_VERSION)).toBe(true)
      expect(fs.readFileSync(file).equals(before)).toBe(true) // read, never rewritten
      // The typed summaries come back from the provider summaries: the same title, workspace, model, times, warnings.
      const legacy = yield* sessionsOf(file, true)
      expect(legacy.map((r) => [r.sessionId, r.title, r.workspace])).toEqual(freshSessions.map((r) => [r.sessionId, r.title, r.workspace]))
      for (const [i, r] of legacy.entries()) {
        const f = freshSessions[i].overview
        expect(r.overview).toMatchObject({
          sessionId: f.sessionId,
          title: f.title,
          workspace: f.workspace,
          firstActivityAt: f.firstActivityAt,
          lastActivityAt: f.lastActivityAt,
          model: f.model,
          parseWarnings: f.parseWarnings,
          diagnostics: f.diagnostics
        })
        expect(r.overview.counts).toMatchObject({ prompts: f.counts.prompts, toolCalls: f.counts.toolCalls, lines: f.counts.lines })
      }
      // An index from before migration 0003 (no overview column at all) reads the same, read-only, and migrates on import.
      const old = new Database(file)
      // (nor what later migrations added: the migrator runs those after the last one recorded)
      old.exec(`ALTER TABLE sources DROP COLUMN overview_json;
                DROP TRIGGER search_docs_gone; DROP TRIGGER events_search_gone; DROP TRIGGER sessions_search_gone;
                DROP TABLE search; DROP TABLE search_docs; DROP TABLE usage; DELETE FROM si_migrations WHERE migration_id >= 3`)
      old.close()
      expect((yield* sessionsOf(file, true)).map((r) => r.overview)).toEqual(legacy.map((r) => r.overview))
      expect((yield* sessionsOf(file)).map((r) => r.overview)).toEqual(legacy.map((r) => r.overview))
      const migrated = new Database(file, { readonly: true })
      expect(migrated.prepare("SELECT count(*) AS n FROM pragma_table_info('sources') WHERE name = 'overview_json'").get()).toEqual({ n: 1 })
      expect(migrated.prepare("SELECT count(*) AS n FROM usage").get()).not.toEqual({ n: 0 }) // 0005 rebuilt the usage rows from the events
      migrated.close()
    }))
})

describe("upgradeEvent", () => {
  it("leaves a current event as it is", () => {
    const e = mk("muse-agents", "s")("tool-call", { toolInput: { a: 1 } }, { input: { b: 2 } })
    expect(upgradeEvent(e)).toBe(e)
  })

  it("Muse Code 1.0.0: the parent join and the child a binding record names; AgentMux: the compaction's line", () => {
    const old = (e: SessionEvent) => {
      const r: Record<string, unknown> = { ...e, contractVersion: "1.0.0" }
      for (const k of TYPED) delete r[k]
      return r as unknown as SessionEvent
    }
    const child = mk("muse-code", "c")("proposed", {}, {
      parent: { sessionId: "p", sourceId: "sha256:p", subagentId: "sa", childSessionId: "c", bindingEventId: "muse-seq-6" }
    })
    expect(upgradeEvent(old(child)).parent).toEqual({ sessionId: "p", toolCallId: null, eventId: "muse-seq-6", subagentId: "sa" })
    const bound = mk("muse-code", "p")("subagent.control.child_session_bound", {}, { subagentId: "sa", childSessionId: "c" })
    expect(upgradeEvent(old(bound)).child).toEqual({ sessionId: "c", subagentId: "sa" })
    const cmp = mk("agentmux", "s")("summary", { eventId: "am-4-0" }, { line: 5 })
    expect(upgradeEvent(old(cmp)).compaction).toEqual({ id: "am-4", trigger: null })
    const res = mk("agentmux", "s")("tool-result", {}, { isError: true })
    expect(upgradeEvent(old(res))).toMatchObject({ isError: true, usage: null, responseId: null, contractVersion: CONTRACT_VERSION })
  })
})
