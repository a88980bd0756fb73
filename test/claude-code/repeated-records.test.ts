/**
 * claude-code: one record per uuid, per file (docs/providers.md "Claude Code:
 * one record per uuid"; tester29a F4). A line repeating an earlier line's
 * record as it is (the same uuid, the same JSON value) is kept once and
 * counted (`REPEATED_RECORDS_SKIPPED`), in `inspect`, `stream`, `transcript`
 * and `import` alike, so every reader agrees with usage (which counts the
 * response once). A record under an earlier record's uuid with other content
 * is kept and counted (`RECORD_UUID_REUSED`, naming both lines). A stream
 * resumed from a cursor, and an import resuming a grown log, check the records
 * after the cursor against those before it. Subagent files each have their own
 * uuids. Fixtures are built here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { RecordIds } from "../../src/domain/claude-code/record-ids.js"
import type { Diagnostic, Locator, SessionEvent } from "../../src/domain/model.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import { importOnce, indexView } from "../support/index.js"
import { cli } from "../support/run.js"
import { collect, tempDir, withAdapter } from "./helpers.js"

const SID = "0c0c0c0c-1111-4222-8333-444455556666"
const CWD = "/home/bob/rep"
const U = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, "0")}`
const at = (n: number) => `2026-09-03T00:00:${String(n).padStart(2, "0")}.000Z`

const user = (n: number, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "user",
    sessionId: SID,
    cwd: CWD,
    uuid: U(n),
    parentUuid: n > 1 ? U(n - 1) : null,
    timestamp: at(n),
    message: { role: "user", content: text },
    ...extra
  })

const assistant = (n: number, text: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "assistant",
    sessionId: SID,
    cwd: CWD,
    uuid: U(n),
    parentUuid: U(n - 1),
    timestamp: at(n),
    requestId: `req_${n}`,
    message: {
      id: `msg_${n}`,
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text }],
      usage: { input_tokens: 100, output_tokens: 10 }
    },
    ...extra
  })

/** A root holding the session file `lines`, and subagent files `agent-<id>.jsonl` of `agents`. */
const setup = (lines: ReadonlyArray<string>, agents: Record<string, ReadonlyArray<string>> = {}) => {
  const dir = tempDir("si-claude-repeat-")
  const root = nodePath.join(dir, "projects")
  const project = nodePath.join(root, "-home-bob-rep")
  fs.mkdirSync(project, { recursive: true })
  const file = nodePath.join(project, `${SID}.jsonl`)
  fs.writeFileSync(file, lines.map((l) => l + "\n").join(""))
  for (const [id, ls] of Object.entries(agents)) {
    const sub = nodePath.join(project, SID, "subagents")
    fs.mkdirSync(sub, { recursive: true })
    fs.writeFileSync(nodePath.join(sub, `agent-${id}.jsonl`), ls.map((l) => l + "\n").join(""))
  }
  const locator: Locator = { locatorClass: "claude-code-session-log", path: file }
  return { dir, root, file, locator }
}

const ids = (events: ReadonlyArray<SessionEvent>) => events.map((e) => `${e.sessionId === SID ? "" : e.sessionId + ":"}${e.eventId}`)
const codes = (ds: ReadonlyArray<Diagnostic>) => ds.map((d) => d.code).filter((c) => c === "REPEATED_RECORDS_SKIPPED" || c === "RECORD_UUID_REUSED")
const byCode = (ds: ReadonlyArray<Diagnostic>, code: string) => ds.filter((d) => d.code === code)

/** Line 3 repeats line 2 byte for byte; line 5 reuses line 4's uuid with other text. */
const MIX = [
  user(1, "first prompt"),
  assistant(2, "answer 1"),
  assistant(2, "answer 1"),
  user(3, "second prompt"),
  user(3, "other text under the same uuid", { timestamp: at(9) })
]

describe("claude-code: one record per uuid", () => {
  it.effect("inspect skips a repeat as it is and counts it; a reused uuid with other content is kept and counted", () =>
    Effect.gen(function*() {
      const mix = setup(MIX)
      const without = setup([MIX[0], MIX[1], MIX[3], MIX[4]])
      const i = yield* withAdapter(mix.root, (a) => a.inspect(mix.locator))
      const j = yield* withAdapter(without.root, (a) => a.inspect(without.locator))
      expect(i.eventCount).toBe(j.eventCount)
      expect(i.sessions[0]).toEqual(j.sessions[0])
      expect(i.status).toBe("complete")
      expect(byCode(i.diagnostics, "REPEATED_RECORDS_SKIPPED").map((d) => d.details)).toEqual([{ count: 1 }])
      expect(byCode(i.diagnostics, "RECORD_UUID_REUSED").map((d) => d.details)).toEqual([
        { count: 1, uuid: U(3), line: 5, firstLine: 4 }
      ])
    }))

  it.effect("stream yields the repeat's line once and reports both counts to onWarning", () =>
    Effect.gen(function*() {
      const mix = setup(MIX)
      const warnings: Array<Diagnostic> = []
      const events = yield* withAdapter(mix.root, (a) => collect(a.stream(mix.locator, { onWarning: (d) => warnings.push(d) })))
      expect(ids(events)).toEqual(["line-1", "line-2", "line-4", "line-5"])
      expect(codes(warnings)).toEqual(["REPEATED_RECORDS_SKIPPED", "RECORD_UUID_REUSED"])
    }))

  it.effect("transcript shows the answer once and notes the skipped repeat and the reused uuid", () =>
    Effect.gen(function*() {
      const mix = setup(MIX)
      const t = yield* withAdapter(mix.root, (a) => a.transcript!(mix.locator))
      const texts = t.turns.flatMap((turn) => turn.blocks.map((b) => JSON.stringify(b)))
      expect(texts.filter((x) => x.includes("answer 1"))).toHaveLength(1)
      expect(texts.filter((x) => x.includes("other text under the same uuid"))).toHaveLength(1)
      expect(t.diagnostics).toContainEqual({ kind: "repeated-records-skipped", count: 1, firstLine: null })
      expect(t.diagnostics).toContainEqual({ kind: "record-uuid-reused", count: 1, firstLine: 5 })
    }))

  it.effect("the same JSON value written with other whitespace is the same record", () =>
    Effect.gen(function*() {
      const spaced = JSON.stringify(JSON.parse(MIX[1]), null, 1).replace(/\n/g, "")
      expect(spaced).not.toBe(MIX[1])
      const s = setup([MIX[0], MIX[1], spaced])
      const warnings: Array<Diagnostic> = []
      const events = yield* withAdapter(s.root, (a) => collect(a.stream(s.locator, { onWarning: (d) => warnings.push(d) })))
      expect(ids(events)).toEqual(["line-1", "line-2"])
      expect(warnings.map((d) => [d.code, d.details])).toEqual([["REPEATED_RECORDS_SKIPPED", { count: 1 }]])
    }))

  it.effect("a stream resumed from any cursor checks the records after it against those before it", () =>
    Effect.gen(function*() {
      // Line 4 repeats line 2 and line 5 reuses line 1's uuid: both after the early cursors.
      const s = setup([MIX[0], MIX[1], user(3, "second prompt"), MIX[1], user(1, "reused first uuid")])
      const all = yield* withAdapter(s.root, (a) => collect(a.stream(s.locator)))
      expect(ids(all)).toEqual(["line-1", "line-2", "line-3", "line-5"])
      for (let k = 0; k < all.length; k++) {
        const warnings: Array<Diagnostic> = []
        const rest = yield* withAdapter(s.root, (a) => collect(a.stream(s.locator, { cursor: all[k].cursor, onWarning: (d) => warnings.push(d) })))
        expect(ids(rest)).toEqual(ids(all.slice(k + 1)))
        expect(codes(warnings)).toEqual(["REPEATED_RECORDS_SKIPPED", "RECORD_UUID_REUSED"])
        expect(byCode(warnings, "RECORD_UUID_REUSED")[0].details).toEqual({ count: 1, uuid: U(1), line: 5, firstLine: 1 })
      }
    }))

  it.effect("subagent files: the rule holds per file (a uuid of the session file is no repeat in a subagent file), resumed too", () =>
    Effect.gen(function*() {
      const sa = (n: number, text: string) => user(n, text, { isSidechain: true, agentId: "a1b2c3", uuid: U(100 + n) })
      const s = setup([MIX[0], MIX[1]], {
        a1b2c3: [sa(1, "sub prompt"), sa(2, "more"), sa(1, "sub prompt"), user(1, "first prompt", { isSidechain: true, agentId: "a1b2c3" })]
      })
      const warnings: Array<Diagnostic> = []
      const all = yield* withAdapter(s.root, (a) => collect(a.stream(s.locator, { includeSubagents: true, onWarning: (d) => warnings.push(d) })))
      expect(ids(all)).toEqual(["line-1", "line-2", "agent-a1b2c3:line-1", "agent-a1b2c3:line-2", "agent-a1b2c3:line-4"])
      expect(warnings.map((d) => [d.code, d.details])).toEqual([["REPEATED_RECORDS_SKIPPED", { count: 1 }]])
      // Resumed after the subagent's line 2: its line 3 repeats line 1, before the cursor.
      const rest = yield* withAdapter(s.root, (a) => collect(a.stream(s.locator, { includeSubagents: true, cursor: all[3].cursor })))
      expect(ids(rest)).toEqual(["agent-a1b2c3:line-4"])
      const i = yield* withAdapter(s.root, (a) => a.inspect(s.locator))
      expect(codes(i.diagnostics)).toEqual(["REPEATED_RECORDS_SKIPPED"])
      expect(byCode(i.diagnostics, "REPEATED_RECORDS_SKIPPED")[0].message).toContain("agent-a1b2c3.jsonl")
    }))

  it.effect("an import that resumes a grown log skips a repeat of a record it imported before the cursor", () =>
    Effect.gen(function*() {
      const s = setup([MIX[0], MIX[1]])
      const policy = { claudeRoot: s.root }
      const plan = ImporterLayer.planFromPolicy(policy, { batchSize: 3 })
      const index = nodePath.join(s.dir, "index.db")
      yield* importOnce(policy, index, plan)
      // Line 3 repeats line 1: before the checkpoint's cursor (line 2's event).
      fs.appendFileSync(s.file, MIX[0] + "\n" + user(3, "second prompt") + "\n")
      yield* importOnce(policy, index, plan)
      const view = (yield* indexView(index)) as Array<{ readonly events: ReadonlyArray<SessionEvent> }>
      expect(view.flatMap((v) => ids(v.events))).toEqual(["line-1", "line-2", "line-4"])
      const fresh = nodePath.join(s.dir, "fresh.db")
      yield* importOnce(policy, fresh, plan)
      expect(yield* indexView(fresh)).toEqual(view)
    }))
})

describe("claude-code: an import of a log with a repeat and a reused uuid (session 29)", () => {
  it("is complete (exit 0): nothing is left out, the two diagnostics are listed, not causes of partial coverage", () => {
    const s = setup([...MIX])
    const index = nodePath.join(s.dir, "cli.db")
    // The other providers' default roots under an empty HOME: not there, not named, so not partial.
    const r = cli(["import", "--json", "--index", index, "--claude-root", s.root, "--workspace", s.dir], { env: { HOME: s.dir, MUSE_AGENTS_DIR: "" } })
    const report = JSON.parse(r.stdout) as {
      data: { coverage: string; eventsAdded: number; causes: Array<{ code: string }>; providers: Array<{ provider: string; coverage: string; diagnostics: Array<Diagnostic> }> }
    }
    const claude = report.data.providers.find((p) => p.provider === "claude-code")!
    expect(codes(claude.diagnostics).sort()).toEqual(["RECORD_UUID_REUSED", "REPEATED_RECORDS_SKIPPED"])
    expect(claude.coverage).toBe("complete")
    expect(report.data.causes.map((c) => c.code)).toEqual([])
    expect(report.data.coverage).toBe("complete")
    expect(r.code).toBe(0)
    // Lines 1, 2, 4 and 5: the repeat (line 3) is kept once, both records under the reused uuid are kept.
    expect(report.data.eventsAdded).toBe(4)
  })
})

describe("claude-code: discover says what reading a log counted (session 30)", () => {
  it("a source's line notes the repeat skipped and the reused uuid (first at line 5), as transcript does", () => {
    const s = setup([...MIX])
    const r = cli(["discover", "claude-code", "--claude-root", s.root])
    expect(r.code, r.stderr).toBe(0)
    const notes = r.stdout.split("\n").filter((l) => l.trim().startsWith("note:")).map((l) => l.trim())
    expect(notes).toEqual(["note: repeated-records-skipped \u00d7 1", "note: record-uuid-reused \u00d7 1 (first at line 5)"])
  })
})

describe("RecordIds", () => {
  it("keeps 150,000 uuids apart and gives each one's first place back", () => {
    const r = new RecordIds()
    const n = 150_000
    const uuid = (i: number) => `${(i * 2654435761 >>> 0).toString(16).padStart(8, "0")}-0000-4000-8000-${String(i).padStart(12, "0")}`
    let taken = 0
    for (let i = 0; i < n; i++) if (r.take(uuid(i), i + 1, i * 100, 99) !== undefined) taken++
    expect(taken).toBe(0)
    expect(r.size).toBe(n)
    const wrong: Array<number> = []
    for (let i = 0; i < n; i++) {
      const p = r.take(uuid(i), 0, 0, 0)
      if (p === undefined || p.lineNumber !== i + 1 || p.offset !== i * 100 || p.length !== 99) wrong.push(i)
    }
    expect(wrong).toEqual([])
    expect(r.size).toBe(n)
  })

  it("an id in another form is its own id (upper case is not the lower-case uuid)", () => {
    const r = new RecordIds()
    const low = "abcdef00-0000-4000-8000-000000000001"
    expect(r.take(low, 1, 0, 10)).toBeUndefined()
    expect(r.take(low.toUpperCase(), 2, 11, 10)).toBeUndefined()
    expect(r.take("a2", 3, 22, 10)).toBeUndefined()
    expect(r.take("a2", 4, 33, 10)).toEqual({ lineNumber: 3, offset: 22, length: 10 })
    expect(r.take(low.toUpperCase(), 5, 44, 10)).toEqual({ lineNumber: 2, offset: 11, length: 10 })
  })
})
