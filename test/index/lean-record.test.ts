/**
 * The lean record (issue 13, item 2): the index stores each event without
 * what its session restates (provenance ids, contract version), without its
 * columns, nulls and keys, and without typed fields that restate the
 * provider's own record, and rebuilds the very same event on every read.
 * An index made before (whole rows) reads, and migrates, to the same events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as App from "../../src/layers/app.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { eventOfRow, leanEvent, shapePlan } from "../../src/layers/index/rows.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { eventUid } from "../../src/domain/index/ids.js"
import type { SessionEvent } from "../../src/domain/model.js"
import { Index } from "../../src/services/Index.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { copyFixtures as copyClaude } from "../claude-code/helpers.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { importOnce } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { writeNativeRoot } from "../../bench/generate/native.js"

/** Every provider's bundled fixtures, under one policy, and a plan that imports them all. */
const allProviders = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  for (const f of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(fixturesDir, "muse-code/export", f), path.join(ws, f))
  const claudeRoot = copyClaude()
  // Native Muse Code sessions as the benchmark makes them: prompts and outputs of many lines, which the events' text restates.
  const generated = path.join(dir, "muse-generated")
  writeNativeRoot(generated, 4, ws)
  const policy = {
    workspaceRoots: [ws, "/workspace/demo"],
    museRoots: [path.join(fixturesDir, "muse-code/native"), generated],
    agentsRoot: path.join(fixturesDir, "muse-agents/agents"),
    agentmuxStore: path.join(fixturesDir, "agentmux/filestore.db"),
    stateFile: path.join(dir, "state.db"),
    claudeRoot
  }
  const plan = planFromPolicy(policy, { agents: ["u1"], exports: [path.join(ws, "orderly.json"), path.join(ws, "abnormal.json")], batchSize: 5 })
  return { dir, policy, plan, index: path.join(dir, "index.db") }
}

/** An event as JSON keeps it (what an index can hold): undefined fields gone. */
const asJson = (e: SessionEvent): SessionEvent => JSON.parse(JSON.stringify(e))

/** The index's order of a session's events: by sequence, then uid. */
const byIndexOrder = (es: ReadonlyArray<SessionEvent>) =>
  [...es].map((e) => ({ e, k: eventUid(e.provider, e.sourceId, e.sessionId, e.eventId) }))
    .sort((a, b) => a.e.sequence - b.e.sequence || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.e)

/** What the adapters stream for every source the index holds, by session (`provider sourceId sessionId`). */
const streamed = (policy: ReturnType<typeof allProviders>["policy"], file: string) =>
  Effect.gen(function*() {
    const checkpoints = yield* Effect.flatMap(Index, (i) => i.checkpoints).pipe(Effect.provide(IndexSqlite.layer(file)))
    const out = new Map<string, Array<SessionEvent>>()
    yield* Effect.gen(function*() {
      const registry = yield* SessionSources
      for (const c of checkpoints.values()) {
        if (c.status !== "complete") continue
        const adapter = yield* registry.get(c.provider)
        const events = Chunk.toArray(yield* Stream.runCollect(adapter.stream(c.locator, { includeSubagents: true })))
        for (const e of events) {
          const k = `${e.provider} ${e.sourceId} ${e.sessionId}`
          out.set(k, [...(out.get(k) ?? []), asJson(e)])
        }
      }
    }).pipe(Effect.provide(App.layer(policy)))
    return out
  })

/** Every session's events as the index gives them, by session (`provider sourceId sessionId`). */
const indexed = (file: string, readonly = false) =>
  Effect.gen(function*() {
    const i = yield* Index
    const out = new Map<string, ReadonlyArray<SessionEvent>>()
    for (const s of yield* i.sessions({})) out.set(`${s.provider} ${s.sourceId} ${s.sessionId}`, yield* i.events(s.sessionUid))
    return out
  }).pipe(Effect.provide(readonly ? IndexSqlite.layerReadonly(file) : IndexSqlite.layer(file)))

/** The JSON text of each event, key order included. */
const texts = (m: ReadonlyMap<string, ReadonlyArray<SessionEvent>>) =>
  new Map([...m].map(([k, es]) => [k, es.map((e) => JSON.stringify(e))]))

describe("the lean record", () => {
  it.effect("round trip over all four providers: every event read back is what the adapter streamed, key order included", () =>
    Effect.gen(function*() {
      const a = allProviders()
      const report = yield* importOnce(a.policy, a.index, a.plan)
      expect(report.eventsAdded).toBeGreaterThan(100)
      const got = yield* indexed(a.index)
      const want = yield* streamed(a.policy, a.index)
      expect(new Set([...got.keys()].map((k) => k.split(" ")[0]))).toEqual(new Set(["muse-code", "muse-agents", "agentmux", "claude-code"]))
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort())
      for (const [k, es] of want) expect(texts(new Map([[k, got.get(k)!]]))).toEqual(texts(new Map([[k, byIndexOrder(es)]])))
      // What loading a session whole costs is still told in bytes of its events' JSON, about.
      const ratios = yield* Effect.gen(function*() {
        const i = yield* Index
        const out: Array<number> = []
        for (const s of yield* i.sessions({})) {
          const json = (yield* i.events(s.sessionUid)).reduce((n, e) => n + JSON.stringify(e).length, 0)
          out.push((yield* i.sessionBytes(s.sessionUid)) / json)
        }
        return out
      }).pipe(Effect.provide(IndexSqlite.layerReadonly(a.index)))
      for (const r of ratios) expect(r).toBeGreaterThan(0.6)
      for (const r of ratios) expect(r).toBeLessThan(1.6)
    }))

  it.effect("an event's body leaves out its session's ids, its columns, its nulls and keys, and a text that restates its payload", () =>
    Effect.gen(function*() {
      const a = allProviders()
      yield* importOnce(a.policy, a.index, a.plan)
      const events = [...(yield* indexed(a.index)).values()].flat()
      let full = 0, lean = 0, restated = 0
      for (const e of events) {
        const l = leanEvent(e)
        expect(l).not.toBeNull()
        const back = eventOfRow(shapePlan(l!.shape), l!.body, e, e)
        expect(JSON.stringify(back)).toBe(JSON.stringify(e))
        // (a parent or child link names its session's source: that is the link, not a restated id)
        if (e.parent === null && e.child === null) expect(l!.body).not.toContain(e.sourceId)
        expect(l!.body).not.toContain(`"contractVersion"`)
        expect(l!.body).not.toContain(`"eventId"`)
        if (e.provider === "muse-code" && e.text !== null && e.text.length >= 24) {
          // Muse Code's text is its payload's, on one line: the payload keeps it once.
          const r = (JSON.parse(l!.shape) as { r?: Record<string, unknown> }).r
          if (r?.text !== undefined) {
            restated++
            // (the payload's own copies stay: none more)
            const count = (hay: string, needle: string) => hay.split(needle).length - 1
            expect(count(l!.body, JSON.stringify(e.text))).toBe(count(JSON.stringify(e.extensions), JSON.stringify(e.text)))
          }
        }
        full += JSON.stringify(e).length
        lean += l!.body.length
      }
      expect(restated).toBeGreaterThan(0)
      expect(lean).toBeLessThan(full * 0.6)
    }))

  it("a key order, a value or a key the contract does not have survives: whole when it cannot be lean, exact when it can", () => {
    const base = {
      contractVersion: "1.3.0",
      provider: "muse-code",
      sourceId: "sha256:x",
      sessionId: "s",
      eventId: "e1",
      sequence: 3,
      kind: "message",
      role: null,
      toolName: null,
      toolCallId: null,
      model: null,
      occurredAt: null,
      text: "hello   world, a text of more than twenty-four characters",
      cursor: "c",
      rawReference: { locatorClass: "manual-export", sequence: 3 },
      extensions: { "native.muse": { payload: { body: "hello   world, a text of more than twenty-four characters" }, n: [1, null, { a: "\u0000" }] } },
      toolInput: { z: 1, a: [1, 2] },
      isError: null,
      compaction: null,
      parent: null,
      child: null,
      usage: null,
      responseId: null,
      costUsd: null
    } as unknown as SessionEvent
    const reordered = Object.fromEntries(Object.entries(base).reverse()) as unknown as SessionEvent
    const odd = { ...base, extensions: { raw: [1, 2], "native.muse": "a string", other: { __proto__x: 1 } } } as unknown as SessionEvent
    for (const e of [base, reordered, odd]) {
      const l = leanEvent(e)!
      expect(JSON.stringify(eventOfRow(shapePlan(l.shape), l.body, e, e))).toBe(JSON.stringify(e))
    }
    expect(leanEvent({ ...base, sequence: 1.5 } as SessionEvent)).toBeNull()
    // A key named __proto__ cannot be put back by assignment: below a namespace it is kept as JSON, above it the event is whole.
    const inner = { ...base, extensions: { x: JSON.parse(`{"__proto__": 1, "a": 2}`) } } as unknown as SessionEvent
    const l = leanEvent(inner)!
    expect(JSON.stringify(eventOfRow(shapePlan(l.shape), l.body, inner, inner))).toBe(JSON.stringify(inner))
    expect(leanEvent({ ...base, extensions: JSON.parse(`{"__proto__": {"a": 1}}`) } as unknown as SessionEvent)).toBeNull()
  })

  it("an event's shape depends on the event alone, not on the events leaned before it (what makes --jobs N's index --jobs 1's)", () => {
    const text = "a text that the payload restates in two places, over twenty-four characters"
    const event = (eventId: string, payload: Record<string, unknown>) => ({
      contractVersion: "1.3.0", provider: "muse-code", sourceId: "sha256:x", sessionId: "s", eventId, sequence: 1,
      kind: "message-shape-history", role: null, toolName: null, toolCallId: null, model: null, occurredAt: null, text,
      cursor: "c", rawReference: { locatorClass: "manual-export", sequence: 1 },
      extensions: { "native.muse": { payload } }, toolInput: null, isError: null, compaction: null, parent: null,
      child: null, usage: null, responseId: null, costUsd: null
    } as unknown as SessionEvent)
    // Restated twice: in `body` (first in key order) and in `copy`.
    const twice = event("e1", { body: text, copy: text })
    // The same kind of event restating it only in `copy`.
    const once = event("e2", { body: "something else entirely, also long enough", copy: text })
    const alone = leanEvent(twice)!
    leanEvent(once)
    const after = leanEvent(twice)!
    expect(after.shape).toBe(alone.shape)
    expect(after.body).toBe(alone.body)
    // Either way the event reads back whole.
    expect(JSON.stringify(eventOfRow(shapePlan(after.shape), after.body, twice, twice))).toBe(JSON.stringify(twice))
  })

  it.effect("an index made before the lean record reads the same events read-only, and migrates to them (0006), with search and usage", () =>
    Effect.gen(function*() {
      const a = allProviders()
      yield* importOnce(a.policy, a.index, a.plan)
      const fresh = texts(yield* indexed(a.index))
      const search = (file: string, readonly: boolean) =>
        Effect.flatMap(Index, (i) => i.search("the OR a OR tool OR session OR read", { limit: 1000 })).pipe(
          Effect.map((hs) => hs.map((h) => `${h.sessionUid}:${h.eventUid}:${h.eventId}`).sort()),
          Effect.provide(readonly ? IndexSqlite.layerReadonly(file) : IndexSqlite.layer(file))
        )
      const usage = (file: string, readonly: boolean) =>
        Effect.flatMap(Index, (i) => i.usage({ by: "session" })).pipe(
          Effect.map((gs) => [...gs].map((g) => JSON.stringify(g)).sort()),
          Effect.provide(readonly ? IndexSqlite.layerReadonly(file) : IndexSqlite.layer(file))
        )
      const hits = yield* search(a.index, true)
      const used = yield* usage(a.index, true)
      expect(hits.length).toBeGreaterThan(10)
      yield* toLegacyLayout(a.index)
      const Database = (yield* Effect.promise(() => import("better-sqlite3"))).default
      const peek = new Database(a.index, { readonly: true })
      expect(peek.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'records'").get()).toEqual({ n: 0 })
      peek.close()
      expect(texts(yield* indexed(a.index, true))).toEqual(fresh)
      expect(yield* search(a.index, true)).toEqual(hits)
      // The usage of migrations 0001-0005 keeps no 1-hour part of the cache writes (0010 adds it, NULL: not said).
      const usedBefore1h = used.map((g) => JSON.stringify({ ...JSON.parse(g), cacheWrite1hTokens: null })).sort()
      expect(yield* usage(a.index, true)).toEqual(usedBefore1h)
      // Opened for an import: migrated to the lean record, the same events, search and usage; nothing is read again.
      expect(texts(yield* indexed(a.index))).toEqual(fresh)
      const after = new Database(a.index, { readonly: true })
      expect(after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'events'").get()).toEqual({ n: 0 })
      expect((after.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n).toBeGreaterThan(100)
      after.close()
      expect(yield* search(a.index, true)).toEqual(hits)
      expect(yield* usage(a.index, true)).toEqual(usedBefore1h)
      const again = yield* importOnce(a.policy, a.index, a.plan)
      expect(again.eventsAdded).toBe(0)
      expect(texts(yield* indexed(a.index))).toEqual(fresh)
    }))
})
