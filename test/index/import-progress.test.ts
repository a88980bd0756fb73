/**
 * Import progress weighted by bytes (issue 13, item 7): a display that asks
 * for it gets how far the run is through its sources' bytes, so one big
 * source moves it while it is read (it used to sit at "0 of N sources" until
 * the big source was done). The fraction never goes back and ends at 1. The
 * CLI draws its bar on a terminal only.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { bar } from "../../src/cli/progress.js"
import * as App from "../../src/layers/app.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import {
  ImportFaults,
  Importer,
  ImportProgress,
  type ImportProgressUpdate,
  progressFraction
} from "../../src/services/Importer.js"
import { repoRoot, tempDir } from "../support/paths.js"

const item = (seq: number, text: string) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T10:00:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

/** A transcript of `n` user messages for agent `agent` under `root`; answers its path. */
const transcript = (root: string, agent: string, n: number, pad = 0): string => {
  const sessions = path.join(root, agent, "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, `${agent}.jsonl`)
  const parts = [JSON.stringify({ type: "session_header", session_id: `s-${agent}`, agent_id: agent, created_at: "2025-04-01T10:00:00Z" }) + "\n"]
  for (let i = 1; i <= n; i++) parts.push(item(i, `message ${i} of ${agent} ${"x".repeat(pad)}`))
  fs.writeFileSync(file, parts.join(""))
  return file
}

/** Agents `sizes` (messages each, `pad` bytes more per message) under a fresh root. */
const corpus = (agents: Record<string, readonly [number, number]>) => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  const files = Object.entries(agents).map(([agent, [n, pad]]) => transcript(root, agent, n, pad))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: root }
  return { files, policy, index: path.join(dir, "index.db") }
}

/** A progress service that records what it is told. */
const capture = (weighsBytes: boolean) => {
  const starts: Array<readonly [number, number | undefined]> = []
  const updates: Array<ImportProgressUpdate> = []
  const layer = Layer.succeed(ImportProgress, {
    weighsBytes,
    start: (n, b) => Effect.sync(() => void starts.push([n, b])),
    update: (p) => Effect.sync(() => void updates.push(p)),
    end: Effect.void
  })
  return { starts, updates, layer }
}

const runImport = (c: ReturnType<typeof corpus>, progress: Layer.Layer<ImportProgress>, batchSize: number) =>
  Effect.flatMap(Importer, (i) => i.run(planFromPolicy(c.policy, { batchSize }))).pipe(
    Effect.provide(
      ImporterLayer.layer.pipe(
        Layer.provideMerge(Layer.mergeAll(App.layer(c.policy), IndexSqlite.layer(c.index), ImportFaults.none, progress))
      )
    )
  )

const sizeOf = (files: ReadonlyArray<string>) => files.reduce((n, f) => n + fs.statSync(f).size, 0)

const expectMonotonicToOne = (updates: ReadonlyArray<ImportProgressUpdate>) => {
  const fractions = updates.map(progressFraction)
  for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1])
  expect(fractions.every((f) => f >= 0 && f <= 1)).toBe(true)
  expect(fractions.at(-1)).toBe(1)
}

describe("import progress by bytes", () => {
  it.effect("one big source among small ones moves the fraction while it is read; it never goes back and ends at 1", () =>
    Effect.gen(function*() {
      // ~2.4 MB: about ten reads of 256 KiB, and a batch committed every 200 events
      const c = corpus({ a0: [5, 0], a1: [8000, 200], a2: [5, 0] })
      const p = capture(true)
      const report = yield* runImport(c, p.layer, 200)
      expect(report.sources.accepted).toBe(3)
      const total = sizeOf(c.files)
      expect(p.starts).toEqual([[3, total]])
      expect(p.updates.every((u) => u.bytesTotal === total)).toBe(true)
      expectMonotonicToOne(p.updates)
      expect(p.updates.at(-1)).toMatchObject({ sourcesDone: 3, totalSources: 3, bytesDone: total })
      // While the big source is read (the sources done unchanged), the fraction takes many values in (0, 1),
      // across most of the big source's weight; the small ones each move it once.
      const big = fs.statSync(c.files[1]).size
      const bySourcesDone = new Map<number, Set<number>>()
      for (const u of p.updates) bySourcesDone.set(u.sourcesDone, (bySourcesDone.get(u.sourcesDone) ?? new Set()).add(u.bytesDone))
      const moving = [...bySourcesDone.entries()].filter(([, b]) => b.size >= 5)
      expect(moving.map(([done]) => done)).toEqual([1])
      const seen = [...moving[0][1]]
      expect(seen.map((b) => b / total).filter((f) => f > 0 && f < 1).length).toBeGreaterThanOrEqual(5)
      expect(Math.max(...seen) - Math.min(...seen)).toBeGreaterThan(big / 2)
    }), 60_000)

  it.effect("a second run over unchanged sources: sources count whole as they are found unchanged, ending at 1", () =>
    Effect.gen(function*() {
      const c = corpus({ a0: [5, 0], a1: [300, 100], a2: [5, 0] })
      yield* runImport(c, ImportProgress.silent, 100)
      const p = capture(true)
      const report = yield* runImport(c, p.layer, 100)
      expect(report.sources.unchanged).toBe(3)
      expectMonotonicToOne(p.updates)
      expect(p.updates.map((u) => u.bytesDone)).toEqual(
        c.files.map((_, i) => sizeOf(c.files.slice(0, i + 1)))
      )
    }), 60_000)

  it.effect("an appended source resumes where it was: its progress starts from the part already imported", () =>
    Effect.gen(function*() {
      const c = corpus({ a1: [2000, 200] })
      yield* runImport(c, ImportProgress.silent, 100)
      const before = fs.statSync(c.files[0]).size
      fs.appendFileSync(c.files[0], item(2001, "one more") + item(2002, "and another"))
      const p = capture(true)
      const report = yield* runImport(c, p.layer, 1)
      expect(report.eventsAdded).toBe(2)
      expectMonotonicToOne(p.updates)
      // the first batch of the run: already past the imported prefix
      const first = p.updates.find((u) => u.events > 0)!
      expect(first.bytesDone).toBeGreaterThanOrEqual(before)
    }), 60_000)

  it.effect("a display that does not weigh bytes: no byte counts, the fraction by sources", () =>
    Effect.gen(function*() {
      const c = corpus({ a0: [5, 0], a1: [50, 0] })
      const p = capture(false)
      yield* runImport(c, p.layer, 10)
      expect(p.starts).toEqual([[2, 0]])
      expect(p.updates.every((u) => u.bytesTotal === 0 && u.bytesDone === 0)).toBe(true)
      expect(p.updates.map(progressFraction).at(-1)).toBe(1)
      expect(p.updates.filter((u) => u.sourcesDone === 1).map(progressFraction)).toContain(0.5)
    }), 60_000)
})

/** A stand-in terminal (or not) that keeps what is written to it. */
const stream = (isTTY: boolean) => {
  let written = ""
  const s = {
    isTTY,
    columns: 160,
    write: (chunk: string | Uint8Array) => {
      written += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()
      return true
    },
    on: () => s,
    once: () => s,
    removeListener: () => s
  }
  return { s: s as unknown as NodeJS.WritableStream, text: () => written }
}

describe("the CLI's progress bar", () => {
  const update = (bytesDone: number): ImportProgressUpdate => ({
    sourcesDone: 0,
    totalSources: 1,
    events: 10,
    bytes: 0,
    bytesDone,
    bytesTotal: 4 * 1024 * 1024
  })

  it.live("on a terminal: fills by bytes while the only source is read (0 of 1 sources done)", () =>
    Effect.gen(function*() {
      const t = stream(true)
      const b = bar(t.s)
      expect(b.weighsBytes).toBe(true)
      yield* b.start(1, 4 * 1024 * 1024)
      yield* Effect.sleep("250 millis")
      yield* b.update(update(1024 * 1024))
      yield* Effect.sleep("250 millis")
      yield* b.update(update(3 * 1024 * 1024))
      yield* Effect.sleep("250 millis")
      yield* b.end
      const text = t.text()
      expect(text).toContain("25% | 0/1 sources | 10 events | 1.0 MiB of 4.0 MiB")
      expect(text).toContain("75% | 0/1 sources | 10 events | 3.0 MiB of 4.0 MiB")
    }))

  it.live("elsewhere: nothing is written", () =>
    Effect.gen(function*() {
      const t = stream(false)
      const b = bar(t.s)
      yield* b.start(1, 4 * 1024 * 1024)
      yield* b.update(update(1024 * 1024))
      yield* Effect.sleep("250 millis")
      yield* b.end
      expect(t.text()).toBe("")
    }))

  it("import with stderr and stdout not terminals prints no progress", () => {
    const c = corpus({ a0: [5, 0], a1: [3000, 100] })
    const r = spawnSync(process.execPath, [
      path.join(repoRoot, "bin", "session-ingest.mjs"),
      "import",
      "--index",
      c.index,
      "--workspace",
      c.policy.workspaceRoots[0],
      "--agents-root",
      c.policy.agentsRoot
    ], { encoding: "utf8", env: { ...process.env, HOME: path.dirname(c.index), XDG_CONFIG_HOME: path.dirname(c.index) } })
    expect(r.status).toBe(0)
    expect(r.stderr).not.toContain("importing")
    expect(r.stderr).not.toContain("\x1b")
    expect(r.stdout).not.toContain("importing")
  }, 60_000)
})
