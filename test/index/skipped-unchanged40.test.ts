/**
 * A line log discovery skips whole (every line over `maxRecordBytes`: RESOURCE_LIMIT_EXCEEDED; no line that reads as
 * JSON: SOURCE_GARBLED) is not read again while it is unchanged (its device, inode, size, mtime and ctime): before,
 * every run of an importer and every full round of `import --watch` read it whole again (fix39e "Left": a minute of
 * CPU per round for a 20 GB sparse file). It is still reported each time with the same code, counts and coverage,
 * and the diagnostic says it was not read again (`details.notReadAgain`). Any change (append, truncate, replace,
 * touch) reads it again, and a file that became a valid session is imported. Bytes read are counted per file through
 * a `SourceAccess` layer that counts (every provider reads through it).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { memoryLayer, watch, type WatchRound } from "../../src/layers/index/watch.js"
import * as Sources from "../../src/layers/sources.js"
import * as SourceAccessNode from "../../src/layers/SourceAccessNode.js"
import type { Diagnostic } from "../../src/domain/model.js"
import { AccessPolicy, type AccessPolicyInput } from "../../src/services/AccessPolicy.js"
import { ImportFaults, Importer, type ImportPlan, ImportProgress, type ImportReport } from "../../src/services/Importer.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import { SourceAccess } from "../../src/services/SourceAccess.js"
import { claudeTurnsLog } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"

const LIMIT = 4096
const PROJECT = "-home-me-skipped"
const OVERSIZED = "40404040-0000-4000-8000-000000000001"
const GOOD = "40404040-0000-4000-8000-000000000002"
/** The oversized log's size: one line of zeroes (a sparse file, as `truncate -s` makes), 64 times the limit. */
const BIG = 64 * LIMIT

/** Bytes read from each source file (by path) through `SourceAccess`. */
const readBytes = new Map<string, number>()
const count = (p: string, n: number) => readBytes.set(p, (readBytes.get(p) ?? 0) + n)
const bytesOf = (p: string) => readBytes.get(p) ?? 0
const countingAccess = Layer.effect(
  SourceAccess,
  Effect.map(SourceAccess, (a) => ({
    ...a,
    open: (f: Parameters<typeof a.open>[0]) =>
      Effect.map(a.open(f), (src) => ({
        ...src,
        read: (offset: number, length: number) => Effect.tap(src.read(offset, length), (b) => Effect.sync(() => count(f.path, b.length)))
      })),
    readHead: (f: Parameters<typeof a.readHead>[0], length: number) => Effect.tap(a.readHead(f, length), (r) => Effect.sync(() => count(f.path, r.bytes.length))),
    readWhole: (f: Parameters<typeof a.readWhole>[0], max: number) => Effect.tap(a.readWhole(f, max), (b) => Effect.sync(() => count(f.path, b.length)))
  }))
).pipe(Layer.provide(SourceAccessNode.layer))

/** A Claude Code root with one valid session and one log of a single zeroed line over the limit; an agents root with a garbled transcript. */
const setUp = () => {
  const dir = tempDir("si-skipped40-")
  const claude = path.join(dir, "claude")
  const project = path.join(claude, PROJECT)
  fs.mkdirSync(project, { recursive: true })
  const oversized = path.join(project, `${OVERSIZED}.jsonl`)
  fs.writeFileSync(oversized, "")
  fs.truncateSync(oversized, BIG)
  fs.writeFileSync(path.join(project, `${GOOD}.jsonl`), claudeTurnsLog(GOOD, [["user", "hello"], ["assistant", "hi"]], "2026-01-02T10:00:00Z"))
  const agents = path.join(dir, "agents")
  const sessions = path.join(agents, "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const garbled = path.join(sessions, "a1.jsonl")
  fs.writeFileSync(garbled, `{"type":"session_hea\n${"not json at all\n".repeat(2000)}`)
  const policy: AccessPolicyInput = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents, claudeRoot: claude }
  const plan: ImportPlan = ImporterLayer.planFromPolicy(policy, { batchSize: 100 })
  return { dir, claude, oversized, garbled, policy, plan, index: path.join(dir, "index.db") }
}

const baseLayer = (policy: AccessPolicyInput, index: string) => {
  const base0 = Layer.mergeAll(AccessPolicy.layer(policy), ImportLimits.layer({ maxRecordBytes: LIMIT }), countingAccess)
  const app = Layer.merge(Sources.layer.pipe(Layer.provide(base0)), base0)
  return Layer.mergeAll(app, IndexSqlite.layer(index), ImportFaults.none, ImportProgress.silent)
}

/** One importer for every run (as a library user holds one). */
const importerLayer = (policy: AccessPolicyInput, index: string) => ImporterLayer.layer.pipe(Layer.provide(baseLayer(policy, index)))

/** The watch's layer as the CLI builds it, with reads counted. */
const watchLayer = (policy: AccessPolicyInput, index: string) =>
  ImporterLayer.layer.pipe(Layer.provideMerge(memoryLayer({}).pipe(Layer.provideMerge(baseLayer(policy, index)))))

const diagnosticsOf = (report: ImportReport, provider: string, code: string): ReadonlyArray<Diagnostic> =>
  report.providers.find((p) => p.provider === provider)!.diagnostics.filter((d) => d.code === code)

/** What must not change between a run that read the skipped files and one that did not: codes, counts, coverage. */
const shapeOf = (r: ImportReport) => ({
  coverage: r.coverage,
  sources: r.sources,
  providers: r.providers.map((p) => ({ provider: p.provider, coverage: p.coverage, reasonCode: p.reasonCode, sourceCount: p.sourceCount, codes: p.diagnostics.map((d) => d.code).sort() }))
})

/** Both skips, read (no note) or not read again (the note), with their own details otherwise unchanged. */
const expectSkips = (r: ImportReport, a: ReturnType<typeof setUp>, readAgain: boolean) => {
  const limited = diagnosticsOf(r, "claude-code", "RESOURCE_LIMIT_EXCEEDED")
  const garbled = diagnosticsOf(r, "muse-agents", "SOURCE_GARBLED")
  expect(limited).toHaveLength(1)
  expect(garbled).toHaveLength(1)
  const note = readAgain ? {} : { notReadAgain: "unchanged-since-skipped" }
  expect(limited[0].details).toEqual({
    project: PROJECT, file: `${OVERSIZED}.jsonl`, path: a.oversized, lines: 1, byKind: { "oversized-line": 1 }, firstLine: 1, limit: "maxRecordBytes", max: LIMIT, ...note
  })
  expect(garbled[0].details).toMatchObject({ agentId: "a1", path: a.garbled, ...note })
  for (const d of [limited[0], garbled[0]]) {
    if (readAgain) expect(d.message).not.toContain("not read again")
    else expect(d.message).toMatch(/It was not read again: the file is unchanged since it was skipped/)
  }
  expect(r.coverage).toBe("partial")
}

describe("a log skipped whole is not read again while unchanged (fix39e Left)", () => {
  it.live("runs of one importer: read once, said again unread; append, touch, truncate and replace read it again; a fixed file imports", () => {
    const a = setUp()
    return Effect.gen(function*() {
      const importer = yield* Importer
      readBytes.clear()
      const first = yield* importer.run(a.plan)
      expect(bytesOf(a.oversized)).toBeGreaterThanOrEqual(BIG)
      expect(bytesOf(a.garbled)).toBeGreaterThanOrEqual(fs.statSync(a.garbled).size)
      expectSkips(first, a, true)
      expect(first.sessionsAdded).toBe(1)

      for (let run = 0; run < 2; run++) {
        readBytes.clear()
        const again = yield* importer.run(a.plan)
        expect(bytesOf(a.oversized)).toBe(0)
        expect(bytesOf(a.garbled)).toBe(0)
        expectSkips(again, a, false)
        // Same codes, counts and coverage as the run that read them.
        expect(shapeOf(again)).toEqual({ ...shapeOf(first), sources: { ...first.sources, accepted: 0, unchanged: first.sources.accepted } })
      }

      // Each change of the fingerprint reads the file again (and it is still skipped, without the note).
      const changes: ReadonlyArray<readonly [string, () => void]> = [
        ["append", () => fs.appendFileSync(a.oversized, Buffer.alloc(10))],
        ["touch", () => fs.utimesSync(a.oversized, new Date(), new Date(Date.now() + 5000))],
        ["truncate", () => fs.truncateSync(a.oversized, BIG - 100)],
        ["replace", () => {
          const tmp = `${a.oversized}.tmp`
          fs.writeFileSync(tmp, "")
          fs.truncateSync(tmp, BIG - 100)
          fs.renameSync(tmp, a.oversized)
        }]
      ]
      for (const [what, change] of changes) {
        change()
        readBytes.clear()
        const r = yield* importer.run(a.plan)
        expect(bytesOf(a.oversized), what).toBeGreaterThanOrEqual(BIG - 100)
        expect(bytesOf(a.garbled), what).toBe(0)
        expect(diagnosticsOf(r, "claude-code", "RESOURCE_LIMIT_EXCEEDED")[0].details, what).not.toHaveProperty("notReadAgain")
        expect(diagnosticsOf(r, "muse-agents", "SOURCE_GARBLED")[0].details, what).toHaveProperty("notReadAgain", "unchanged-since-skipped")
        // And unchanged after it: not read again.
        readBytes.clear()
        const still = yield* importer.run(a.plan)
        expect(bytesOf(a.oversized), what).toBe(0)
        expect(diagnosticsOf(still, "claude-code", "RESOURCE_LIMIT_EXCEEDED")[0].details, what).toHaveProperty("notReadAgain", "unchanged-since-skipped")
      }

      // Both files become valid sessions: read and imported, no skip left.
      fs.writeFileSync(a.oversized, claudeTurnsLog(OVERSIZED, [["user", "fixed"], ["assistant", "ok"]], "2026-01-03T10:00:00Z"))
      fs.writeFileSync(
        a.garbled,
        JSON.stringify({ type: "session_header", session_id: "s-a1", agent_id: "a1", created_at: "2026-01-03T10:00:00Z" }) + "\n" +
          JSON.stringify({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "fixed" }, created_at: "2026-01-03T10:00:01Z" }) + "\n"
      )
      readBytes.clear()
      const fixed = yield* importer.run(a.plan)
      expect(bytesOf(a.oversized)).toBeGreaterThan(0)
      expect(fixed.sessionsAdded).toBe(2)
      expect(diagnosticsOf(fixed, "claude-code", "RESOURCE_LIMIT_EXCEEDED")).toEqual([])
      expect(diagnosticsOf(fixed, "muse-agents", "SOURCE_GARBLED")).toEqual([])
    }).pipe(Effect.provide(importerLayer(a.policy, a.index)))
  }, 120_000)

  it.live("a log imported before and garbled since (kept as it was, SOURCE_GARBLED): not read again while unchanged", () => {
    const a = setUp()
    const held = path.join(a.claude, PROJECT, `${GOOD}.jsonl`)
    return Effect.gen(function*() {
      const importer = yield* Importer
      const first = yield* importer.run(a.plan)
      expect(first.sessionsAdded).toBe(1)
      // Overwritten in place with lines none of which is JSON: damage, kept as it was (the importer's `garbledSource`).
      fs.writeFileSync(held, "not json at all\n".repeat(20_000))
      const size = fs.statSync(held).size
      readBytes.clear()
      const read = yield* importer.run(a.plan)
      expect(bytesOf(held)).toBeGreaterThanOrEqual(size)
      const said = diagnosticsOf(read, "claude-code", "SOURCE_GARBLED")
      expect(said.map((d) => d.details?.path)).toEqual([held])
      expect(said[0].details).not.toHaveProperty("notReadAgain")
      for (let run = 0; run < 2; run++) {
        readBytes.clear()
        const again = yield* importer.run(a.plan)
        expect(bytesOf(held)).toBe(0)
        const kept = diagnosticsOf(again, "claude-code", "SOURCE_GARBLED")
        expect(kept).toHaveLength(1)
        expect(kept[0].details).toEqual({ ...said[0].details, notReadAgain: "unchanged-since-skipped" })
        expect(kept[0].message).toBe(`${said[0].message} It was not read again: the file is unchanged since it was skipped (same device, inode, size, modification and change time).`)
        expect(shapeOf(again)).toEqual(shapeOf(read))
      }
      // Put back as it was imported, and one more turn: read again, imported (no SOURCE_GARBLED left).
      fs.writeFileSync(held, claudeTurnsLog(GOOD, [["user", "hello"], ["assistant", "hi"], ["user", "more"]], "2026-01-02T10:00:00Z"))
      readBytes.clear()
      const fixed = yield* importer.run(a.plan)
      expect(bytesOf(held)).toBeGreaterThan(0)
      expect(diagnosticsOf(fixed, "claude-code", "SOURCE_GARBLED")).toEqual([])
      expect(fixed.eventsAdded).toBeGreaterThan(0)
    }).pipe(Effect.provide(importerLayer(a.policy, a.index)))
  }, 120_000)

  it.live("import --watch: full rounds do not read it again while unchanged; an append reads it again; a fixed file is imported", () => {
    const a = setUp()
    return Effect.gen(function*() {
      const rounds = yield* Queue.unbounded<WatchRound>()
      const all: Array<WatchRound> = []
      readBytes.clear()
      const fiber = yield* Effect.fork(
        watch(a.plan, (r) => Effect.zipRight(Effect.sync(() => all.push(r)), rounds.offer(r)), { settle: "5 millis", poll: "300 millis", refresh: "200 millis" })
      )
      const next = (pred: (r: WatchRound) => boolean): Effect.Effect<WatchRound> =>
        rounds.take.pipe(
          Effect.repeat({ until: pred }),
          Effect.timeoutFail({
            duration: Duration.seconds(30),
            onTimeout: () => new Error(`no such round; rounds: ${JSON.stringify(all.map((r) => [r.round, r.scope, r.trigger, r.report.sources]))}`)
          }),
          Effect.orDie
        )
      const first = yield* next((r) => r.round === 1)
      expectSkips(first.report, a, true)
      expect(bytesOf(a.oversized)).toBeGreaterThanOrEqual(BIG)
      // Two more full rounds (the poll's, every 300 ms, or the follow-up of the first): neither file read again.
      readBytes.clear()
      for (let k = 0; k < 2; k++) {
        const r = yield* next((r) => r.scope === "full")
        expectSkips(r.report, a, false)
      }
      expect(bytesOf(a.oversized)).toBe(0)
      expect(bytesOf(a.garbled)).toBe(0)
      // An append: read again at the next full round, still skipped.
      fs.appendFileSync(a.oversized, Buffer.alloc(10))
      const appended = yield* next((r) => r.scope === "full" && diagnosticsOf(r.report, "claude-code", "RESOURCE_LIMIT_EXCEEDED")[0]?.details?.notReadAgain === undefined)
      expect(diagnosticsOf(appended.report, "claude-code", "RESOURCE_LIMIT_EXCEEDED")).toHaveLength(1)
      expect(bytesOf(a.oversized)).toBeGreaterThanOrEqual(BIG + 10)
      // Made a valid session: imported by a round.
      fs.writeFileSync(a.oversized, claudeTurnsLog(OVERSIZED, [["user", "fixed"], ["assistant", "ok"]], "2026-01-03T10:00:00Z"))
      const fixed = yield* next((r) => r.report.sessionsAdded > 0)
      expect(fixed.report.sessionsAdded).toBe(1)
      expect(diagnosticsOf(fixed.report, "claude-code", "RESOURCE_LIMIT_EXCEEDED")).toEqual([])
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(watchLayer(a.policy, a.index)))
  }, 120_000)
})
