/**
 * The index over line-oriented providers and every provider at once:
 * appends import only the new events, a rewritten prefix is a new generation,
 * coverage of a run with one rejected and one not-checked source, the whole
 * job from an Effect program, and a real SIGKILL of the CLI mid-import.
 */
import { spawn } from "node:child_process"
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AtifTrajectory, toAtif } from "../../src/domain/atif.js"
import * as Schema from "effect/Schema"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { loadTrajectory } from "../../src/layers/index/queries.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { Importer } from "../../src/services/Importer.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { dumpIndex, importerLayer, importOnce } from "../support/index.js"

const item = (seq: number, text: string) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T10:00:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

/** An agents root with one transcript of `n` user messages. */
const agentsRoot = (n: number) => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  const sessions = path.join(root, "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "a1.jsonl")
  let text = JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"
  for (let i = 1; i <= n; i++) text += item(i, `message number ${i}`)
  fs.writeFileSync(file, text)
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: root }
  return { dir, root, file, policy, plan: planFromPolicy(policy, { batchSize: 2 }), index: path.join(dir, "index.db") }
}

const sessionEvents = (index: string, id: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const [s] = yield* i.findSessions(id)
    return { session: s, events: yield* i.events(s.sessionUid) }
  }).pipe(Effect.provide(IndexSqlite.layer(index)))

describe("index: line-oriented sources", () => {
  it.effect("an appended transcript imports only the new events", () =>
    Effect.gen(function*() {
      const a = agentsRoot(5)
      const first = yield* importOnce(a.policy, a.index, a.plan)
      expect(first.eventsAdded).toBe(5)
      fs.appendFileSync(a.file, item(6, "sixth") + item(7, "seventh"))
      const second = yield* importOnce(a.policy, a.index, a.plan)
      expect(second.sources).toMatchObject({ accepted: 1, unchanged: 0, newGenerations: 0 })
      expect(second.eventsAdded).toBe(2)
      const { events, session } = yield* sessionEvents(a.index, "s-1")
      expect(session.generation).toBe(1)
      expect(events.map((e) => e.text)).toEqual([1, 2, 3, 4, 5].map((i) => `message number ${i}`).concat(["sixth", "seventh"]))
      const third = yield* importOnce(a.policy, a.index, a.plan)
      expect(third.sources.unchanged).toBe(1)
      expect(third.eventsAdded).toBe(0)
    }))

  it.effect("eventsStream pages through a session's events in the order events() gives them", () =>
    Effect.gen(function*() {
      const a = agentsRoot(7)
      yield* importOnce(a.policy, a.index, a.plan)
      const all = yield* sessionEvents(a.index, "s-1")
      expect(all.events.length).toBe(7)
      for (const pageSize of [1, 2, 3, 7, 100]) {
        const paged = yield* Effect.flatMap(Index, (i) => Stream.runCollect(i.eventsStream(all.session.sessionUid, pageSize))).pipe(
          Effect.provide(IndexSqlite.layer(a.index))
        )
        expect([...paged].map((e) => e.eventId)).toEqual(all.events.map((e) => e.eventId))
      }
    }))

  it.effect("loadSession refuses a session whose events are over maxBytes (stream it instead)", () =>
    Effect.gen(function*() {
      const a = agentsRoot(3)
      yield* importOnce(a.policy, a.index, a.plan)
      const { loadSession } = yield* Effect.promise(() => import("../../src/layers/index/queries.js"))
      const bytes = yield* Effect.flatMap(Index, (i) => Effect.flatMap(i.findSessions("s-1"), ([s]) => i.sessionBytes(s.sessionUid))).pipe(
        Effect.provide(IndexSqlite.layer(a.index))
      )
      expect(bytes).toBeGreaterThan(0)
      const refused = yield* Effect.flip(loadSession("s-1", bytes - 1)).pipe(Effect.provide(IndexSqlite.layer(a.index)))
      expect(refused.code).toBe("RESOURCE_LIMIT_EXCEEDED")
      const loaded = yield* loadSession("s-1", bytes).pipe(Effect.provide(IndexSqlite.layer(a.index)))
      expect(loaded.events.length).toBe(3)
    }))

  it.effect("a transcript whose imported prefix was rewritten is a new generation; the old one is superseded", () =>
    Effect.gen(function*() {
      const a = agentsRoot(5)
      yield* importOnce(a.policy, a.index, a.plan)
      // Same length, different bytes, in the first message: the last imported line is intact.
      const text = fs.readFileSync(a.file, "utf8").replace("message number 1", "MESSAGE NUMBER 1")
      fs.writeFileSync(a.file, text + item(6, "sixth"))
      const r = yield* importOnce(a.policy, a.index, a.plan)
      expect(r.sources.newGenerations).toBe(1)
      expect(r.eventsAdded).toBe(6)
      const { events, session } = yield* sessionEvents(a.index, "s-1")
      expect(session.generation).toBe(2)
      expect(events.length).toBe(6)
      expect(events[0].text).toBe("MESSAGE NUMBER 1")
      const dump = yield* dumpIndex(a.index)
      expect((dump.generations as Array<any>).map((g) => [g.generation, g.superseded])).toEqual([[1, 1], [2, 0]])
    }))

  it.effect("coverage: one rejected and one not-checked source make the run partial, with a remediation for each", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      fs.copyFileSync(path.join(fixturesDir, "muse-code/export/orderly.json"), path.join(ws, "orderly.json"))
      fs.writeFileSync(path.join(ws, "broken.json"), "{\"export_schema_version\": 1,")
      // a native log with no workspace evidence: inconclusive, so muse-code is not-checked
      const logDir = path.join(dir, "muse", "2026", "10", "01", "0a0a0a0a-0000-4000-8000-000000000001")
      fs.mkdirSync(logDir, { recursive: true })
      fs.writeFileSync(
        path.join(logDir, "session.jsonl"),
        JSON.stringify({
          schema_version: 1,
          id: "e1",
          stream: { kind: "session", id: "0a0a0a0a-0000-4000-8000-000000000001" },
          sequence: 1,
          recorded_at: 1790856000000000,
          record_type: "event",
          durability: "durable",
          causation_id: null,
          payload_type: "session.opened.observed",
          payload: { kind: "session_opened", record: { session_id: "0a0a0a0a-0000-4000-8000-000000000001" } }
        }) + "\n"
      )
      const agents = path.join(dir, "agents")
      fs.mkdirSync(path.join(agents, "no-transcript"), { recursive: true }) // a named root without any agent folder would be partial
      const policy = { workspaceRoots: [ws], museRoots: [path.join(dir, "muse")], agentsRoot: agents }
      const plan = planFromPolicy(policy, { exports: [path.join(ws, "orderly.json"), path.join(ws, "broken.json")] })
      const r = yield* importOnce(policy, path.join(dir, "index.db"), plan)
      expect(r.coverage).toBe("partial")
      expect(r.sources).toMatchObject({ discovered: 2, accepted: 1, unchanged: 0, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      // native discovery selected nothing and was inconclusive; the two exports count as its sources
      expect(r.providers.find((p) => p.provider === "muse-code")).toMatchObject({
        status: "not-checked",
        coverage: "partial",
        sourceCount: 2,
        reasonCode: "MUSE_INSPECTION_INCONCLUSIVE"
      })
      expect(r.providers.find((p) => p.provider === "muse-code")!.diagnostics.map((d) => d.code)).toEqual(["MUSE_SOURCE_INCONCLUSIVE"])
      expect(r.providers.find((p) => p.provider === "muse-agents")).toMatchObject({ status: "checked", coverage: "complete" })
      expect(r.sessionsAdded).toBe(2)
      expect(r.eventsAdded).toBe(8)
      expect(r.remediations.length).toBe(2)
      expect(r.remediations.some((l) => l.startsWith("muse-code: MUSE_INSPECTION_INCONCLUSIVE"))).toBe(true)
      expect(r.notIncluded.map((n) => n.provider)).toEqual(["agentmux"])
      expect(r.remediations.some((l) => l.includes("broken.json: MALFORMED_SOURCE"))).toBe(true)
    }))
})

describe("index: native Muse Code logs", () => {
  const nativeLog = (workspace: string, id: string, extra = "") =>
    [
      { sequence: 1, payload_type: "runtime.session.metadata", payload: { kind: "metadata", record: { workspace_root: workspace } } },
      { sequence: 2, payload_type: "proposed", payload: { event: { kind: "proposed", task: `task of ${id}` } } }
    ].map((r) =>
      JSON.stringify({
        schema_version: 1,
        id: `${id}-${r.sequence}`,
        stream: { kind: "session", id },
        recorded_at: 1790856000000000 + r.sequence,
        record_type: "event",
        durability: "durable",
        causation_id: null,
        ...r
      }) + "\n"
    ).join("") + extra

  it.effect("a re-import selects unchanged logs without reading them again, and re-reads a log that grew", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      const ids = ["0b0b0b0b-0000-4000-8000-000000000001", "0b0b0b0b-0000-4000-8000-000000000002"]
      const logs = ids.map((id) => {
        const d = path.join(dir, "muse", "2026", "10", "02", id)
        fs.mkdirSync(d, { recursive: true })
        fs.writeFileSync(path.join(d, "session.jsonl"), nativeLog(ws, id))
        return path.join(d, "session.jsonl")
      })
      const policy = { workspaceRoots: [ws], museRoots: [path.join(dir, "muse")], agentsRoot: path.join(dir, "none") }
      const plan = planFromPolicy(policy, {})
      const index = path.join(dir, "index.db")
      const first = yield* importOnce(policy, index, plan)
      expect(first.sources).toMatchObject({ discovered: 2, accepted: 2 })
      expect(first.eventsAdded).toBe(4)
      fs.appendFileSync(logs[1], JSON.stringify({
        schema_version: 1,
        id: "late",
        stream: { kind: "session", id: ids[1] },
        sequence: 3,
        recorded_at: 1790856000000003,
        record_type: "event",
        durability: "durable",
        causation_id: null,
        payload_type: "completed",
        payload: { event: { kind: "completed" } }
      }) + "\n")
      const report = yield* Effect.flatMap(Importer, (i) => i.run(plan)).pipe(Effect.provide(importerLayer(policy, index)))
      expect(report.sources).toMatchObject({ discovered: 2, accepted: 1, unchanged: 1 })
      expect(report.eventsAdded).toBe(1)
      // The receipts of a discovery given the index's knowledge: the unchanged log was not read.
      const { SessionSources } = yield* Effect.promise(() => import("../../src/services/SessionSource.js"))
      const known = new Map(
        [...(yield* Effect.flatMap(Index, (i) => i.checkpoints).pipe(Effect.provide(IndexSqlite.layer(index)))).values()].map((c) => [
          c.locator.path,
          { fingerprint: c.fingerprint!, summary: c.summary }
        ])
      )
      const discovered = yield* Effect.flatMap(SessionSources, (r) => r.get("muse-code")).pipe(
        Effect.flatMap((a) => a.discover({ known })),
        Effect.provide(importerLayer(policy, index))
      )
      const receipts = (discovered.receipts as any).museSourceInspections as Array<any>
      expect(receipts.map((r) => [r.outcome, r.unchangedSinceLastInspection === true, r.bytesInspected > 0])).toEqual([
        ["matched", true, false],
        ["matched", true, false]
      ])
    }))
})

describe("index: a native log with a nested subagent log", () => {
  const PARENT = "0c0c0c0c-0000-4000-8000-000000000001"
  const CHILD = "0c0c0c0c-0000-4000-8000-000000000002"
  const rec = (session: string, sequence: number, payload_type: string, payload: Record<string, unknown>) =>
    JSON.stringify({
      schema_version: 1,
      id: `${session}-${sequence}`,
      stream: { kind: "session", id: session },
      sequence,
      recorded_at: 1790856000000000 + sequence,
      record_type: "event",
      durability: "durable",
      causation_id: null,
      payload_type,
      payload
    }) + "\n"

  /** A muse root with the parent log (metadata + the binding) and the child log (one record), and its import plan. */
  const family = () => {
    const dir = tempDir()
    const ws = path.join(dir, "ws")
    fs.mkdirSync(ws)
    const folder = path.join(dir, "muse", "2026", "10", "03", PARENT)
    fs.mkdirSync(path.join(folder, "subagent", CHILD), { recursive: true })
    const parentLog = path.join(folder, "session.jsonl")
    const childLog = path.join(folder, "subagent", CHILD, "session.jsonl")
    fs.writeFileSync(
      parentLog,
      rec(PARENT, 1, "runtime.session.metadata", { kind: "metadata", record: { workspace_root: ws } }) +
        rec(PARENT, 2, "subagent.control.child_session_bound", { record: { child_session_id: CHILD, subagent_id: "sub-1" } })
    )
    fs.writeFileSync(childLog, rec(CHILD, 1, "proposed", { event: { kind: "proposed", task: "first task" } }))
    const policy = { workspaceRoots: [ws], museRoots: [path.join(dir, "muse")], agentsRoot: path.join(dir, "none") }
    const index = path.join(dir, "index.db")
    const plan = planFromPolicy(policy, { batchSize: 2 })
    return {
      parentLog,
      childLog,
      index,
      run: () => importOnce(policy, index, plan),
      countOf: (id: string) => Effect.map(sessionEvents(index, id), (s) => s.events.length)
    }
  }

  it.effect("an append to the nested log alone, then to the parent, each imports exactly the new events", () =>
    Effect.gen(function*() {
      const f = family()
      const first = yield* f.run()
      expect(first.eventsAdded).toBe(3) // parent 2 + child 1
      // 1. Only the nested log grows: the parent's own file is unchanged.
      fs.appendFileSync(f.childLog, rec(CHILD, 2, "completed", { event: { kind: "completed" } }))
      const second = yield* f.run()
      expect(second.sources).toMatchObject({ accepted: 1, unchanged: 0, newGenerations: 0 })
      expect(second.eventsAdded).toBe(1)
      expect(yield* f.countOf(CHILD)).toBe(2)
      // 2. Now the parent grows, after its nested log was imported last.
      fs.appendFileSync(f.parentLog, rec(PARENT, 3, "completed", { event: { kind: "completed" } }))
      const third = yield* f.run()
      expect(third.sources).toMatchObject({ accepted: 1, newGenerations: 0 })
      expect(third.eventsAdded).toBe(1)
      expect(yield* f.countOf(PARENT)).toBe(3)
      expect(yield* f.countOf(CHILD)).toBe(2)
      // 3. Nothing changed: nothing is read.
      const fourth = yield* f.run()
      expect(fourth.sources).toMatchObject({ accepted: 0, unchanged: 1 })
      expect(fourth.eventsAdded).toBe(0)
    }))

  it.effect("a nested log rewritten in place is re-imported as a new generation, not kept stale; a later append is not", () =>
    Effect.gen(function*() {
      const f = family()
      yield* f.run()
      // The nested log is replaced by another version (same sequence numbers, other content).
      fs.writeFileSync(f.childLog, rec(CHILD, 1, "completed", { event: { kind: "completed", task: "OTHER task" } }))
      const second = yield* f.run()
      expect(second.sources).toMatchObject({ accepted: 1, newGenerations: 1 })
      const { events } = yield* sessionEvents(f.index, CHILD)
      expect(events.map((e) => e.kind)).toEqual(["completed"])
      fs.appendFileSync(f.childLog, rec(CHILD, 2, "completed", { event: { kind: "completed" } }))
      const third = yield* f.run()
      expect(third.sources).toMatchObject({ accepted: 1, newGenerations: 0 })
      expect(third.eventsAdded).toBe(1)
    }))
})

describe("index: every provider from an Effect program", () => {
  it.effect("imports the bundled fixtures of all three providers, lists sessions and exports ATIF", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      fs.copyFileSync(path.join(fixturesDir, "muse-code/export/orderly.json"), path.join(ws, "orderly.json"))
      const policy = {
        workspaceRoots: [ws],
        museRoots: [],
        agentsRoot: path.join(fixturesDir, "muse-agents/agents"),
        agentmuxStore: path.join(fixturesDir, "agentmux/filestore.db"),
        stateFile: path.join(dir, "state.db")
      }
      const plan = planFromPolicy(policy, { agents: ["u1"], exports: [path.join(ws, "orderly.json")] })
      const program = Effect.gen(function*() {
        const report = yield* Effect.flatMap(Importer, (i) => i.run(plan))
        const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
        const atif = toAtif(yield* loadTrajectory("sess-cron"))
        return { report, sessions, atif }
      })
      const { atif, report, sessions } = yield* program.pipe(Effect.provide(importerLayer(policy, path.join(dir, "index.db"))))
      expect(report.coverage).toBe("complete")
      // muse-agents: cron-first, delegate, messy (quiet and headless are not sessions); agentmux: S-A, S-B, S-C; export: 2 streams
      expect(new Set(sessions.map((s) => `${s.provider}:${s.sessionId}`))).toEqual(
        new Set([
          "muse-agents:sess-cron",
          "muse-agents:sess-delegate",
          "muse-agents:sess-messy",
          "agentmux:S-A",
          "agentmux:S-B",
          "agentmux:S-C",
          "muse-code:5f1e0c2a-0000-4000-8000-00000000aaaa",
          "muse-code:5f1e0c2a-0000-4000-8000-00000000bbbb"
        ])
      )
      const decoded = Schema.decodeUnknownSync(AtifTrajectory)(JSON.parse(JSON.stringify(atif)))
      expect(decoded.schema_version).toBe("ATIF-v1.7")
      expect(decoded.steps.map((s) => s.step_id)).toEqual(decoded.steps.map((_, i) => i + 1))
      const callIds = new Set(decoded.steps.flatMap((s) => (s.tool_calls ?? []).map((c) => c.tool_call_id)))
      for (const s of decoded.steps) {
        for (const r of s.observation?.results ?? []) if (r.source_call_id !== undefined && r.source_call_id !== null) expect(callIds.has(r.source_call_id)).toBe(true)
      }
    }))
})

describe("index: a real kill", () => {
  it.live("SIGKILL of the CLI mid-import leaves a consistent index; the next run reaches the clean import's content", () =>
    Effect.gen(function*() {
      const a = agentsRoot(40_000)
      const cliArgs = (index: string) => [
        path.join(repoRoot, "bin", "session-ingest.mjs"),
        "import",
        "--index",
        index,
        "--agents-root",
        a.root,
        "--workspace",
        a.dir,
        "--json"
      ]
      /**
       * Run the CLI; with `killMidway`, SIGKILL it once its index holds a committed batch of events, as a reader sees
       * it (the WAL's size alone also counts frames not yet committed: under load the kill could land before any).
       */
      const run = (index: string, killMidway = false) =>
        Effect.async<number | null>((resume) => {
          const child = spawn(process.execPath, cliArgs(index), { stdio: "ignore" })
          const committed = (): number => {
            if (!fs.existsSync(index)) return 0
            try {
              const db = new Database(index, { readonly: true, fileMustExist: true })
              try {
                return (db.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n
              } finally {
                db.close()
              }
            } catch {
              return 0 // not created or migrated yet, or busy: look again
            }
          }
          const poll = killMidway
            ? setInterval(() => {
              if (committed() > 0) child.kill("SIGKILL")
            }, 10)
            : undefined
          child.on("exit", (code) => {
            if (poll !== undefined) clearInterval(poll)
            resume(Effect.succeed(code))
          })
        })
      const reference = path.join(a.dir, "reference.db")
      expect(yield* run(reference)).toBe(0)
      const killed = path.join(a.dir, "killed.db")
      expect(yield* run(killed, true)).toBeNull() // killed by the signal
      const mid = yield* dumpIndex(killed)
      expect(mid.events.length).toBeGreaterThan(0)
      expect(mid.events.length).toBeLessThan(40_000)
      expect(mid.events.length % 500).toBe(0) // whole batches only
      expect(yield* run(killed)).toBe(0)
      const got = yield* dumpIndex(killed)
      const want = yield* dumpIndex(reference)
      expect(got.events.length).toBe(40_000)
      expect(got.events).toEqual(want.events)
      expect(got.sessions).toEqual(want.sessions)
      expect(got.sources).toEqual(want.sources)
    }), 120_000)
})
