/**
 * `import --jobs N` (issue 13, first import): new small sources are read,
 * parsed and prepared by N worker threads while the main thread writes. What
 * must hold:
 * - the index is the one `--jobs 1` writes, row by row (every table of the
 *   dump), and the report is the same;
 * - workers did read the sources they can answer whole; a log with nested
 *   logs, and a malformed one, are imported by the main thread (the
 *   malformed one rejected with its code, as with `--jobs 1`);
 * - killed at any commit point, the next run reaches the same content; a real
 *   SIGKILL of the built CLI (the bundled worker entry) mid-import too.
 *
 * The library's workers here run the bundled worker entry (dist/parse-worker.cjs,
 * built from these sources by the global setup) instead of the tsx bootstrap:
 * each tsx worker compiled the library again (two workers per import with
 * `jobs: 2` and 64 or more new sources: 7 to 13 such imports here), ~2/3 of
 * this file's processor time. The bootstrap itself is still started by
 * import-jobs-title.test.ts.
 */
import { spawn, spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { DEFAULT_COMMIT_EVENTS, planFromPolicy } from "../../src/layers/index/importer.js"
import { MIN_SOURCES_FOR_WORKERS, workerStats } from "../../src/layers/index/parse-pool.js"
import { bound, end, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { crashAt, dumpIndex, importOnce } from "../support/index.js"
import { museWorkspace } from "../support/source-roots.js"
import { repoRoot } from "../support/paths.js"
import { cli } from "../support/run.js"

vi.mock("../../src/layers/index/parse-pool.js", async (original) => ({
  ...(await original<typeof import("../../src/layers/index/parse-pool.js")>()),
  parseWorkerEntry: () => path.join(repoRoot, "dist", "parse-worker.cjs")
}))

const idOf = (k: number) => `0e0e0e0e-0000-4000-8000-${String(k).padStart(12, "0")}`

/**
 * A muse root of `count` small native logs (log `k` has 3 + (k * 7) % 11 events, some runs, text of its own),
 * log 5 binding a nested subagent log of 3 events, log 9 malformed when `malformed`. `events`: all of them.
 */
const root = (count: number, batchSize: number, malformed = true, extra = 0) => {
  const { dir, ws, root: muse, policy } = museWorkspace()
  const logs: Array<string> = []
  let events = 0
  for (let k = 0; k < count; k++) {
    const id = idOf(k)
    const p = path.join(muse, "2026", "11", String(1 + (k % 5)).padStart(2, "0"), id, "session.jsonl")
    fs.mkdirSync(path.dirname(p), { recursive: true })
    const n = 3 + ((k * 7) % 11) + extra
    const body = Array.from({ length: n - 2 }, (_, i) =>
      i % 3 === 1
        ? record(2 + i, "runtime.session", { event: { kind: "started", prompt: `log ${k} step ${i} \u00e9 ${"x".repeat(k % 13)}` }, kind: "run" }, id)
        : record(2 + i, "runtime.session", { event: { kind: "started", prompt: `log ${k} step ${i}` } }, id))
    if (k === 5) body[0] = bound(2, "child-a", "sub-1", id)
    fs.writeFileSync(p, jsonl([metadata(1, ws, id), ...body, end(n, id)]))
    if (k === 5) {
      const child = path.join(path.dirname(p), "subagent", "child-a", "session.jsonl")
      fs.mkdirSync(path.dirname(child), { recursive: true })
      fs.writeFileSync(child, jsonl([metadata(1, ws, "child-a"), record(2, "runtime.session", { event: { kind: "started", prompt: "child" } }, "child-a"), end(3, "child-a")]))
    }
    if (k === 9 && malformed) fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace(/\n/, "\n{not json\n"))
    logs.push(p)
    events += n + (k === 5 ? 3 : 0)
  }
  return { dir, muse, ws, policy, logs, events, plan: planFromPolicy(policy, { batchSize }), index: path.join(dir, "index.db"), reference: path.join(dir, "reference.db") }
}

type Dump = Record<string, Array<unknown>>

/** A dump as short comparable text: each table's row count and the sha256 of its rows (a diff of huge values hangs vitest). */
const digestOf = (d: Dump): Record<string, string> =>
  Object.fromEntries(
    Object.entries(d).map(([table, rows]) => [table, `${rows.length} ${crypto.createHash("sha256").update(JSON.stringify(rows)).digest("hex")}`])
  )

/** The first row where two tables differ (for the failure message). */
const firstDifference = (a: Dump, b: Dump): string => {
  for (const table of Object.keys(a)) {
    const x = a[table], y = b[table] ?? []
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      const u = JSON.stringify(x[i]), v = JSON.stringify(y[i])
      if (u !== v) return `${table}[${i}]: ${u?.slice(0, 400)} vs ${v?.slice(0, 400)}`
    }
  }
  return "none"
}

const expectSameIndex = (got: Dump, want: Dump) => {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort())
  const same = JSON.stringify(digestOf(got)) === JSON.stringify(digestOf(want))
  expect(same, firstDifference(got, want)).toBe(true)
}

describe("import --jobs: worker threads read and parse, the main thread writes", () => {
  const count = MIN_SOURCES_FOR_WORKERS + 6

  it.effect("--jobs 2 writes the index --jobs 1 writes, row by row; workers read every log they can answer whole", () =>
    Effect.gen(function*() {
      const s = root(count, 8)
      const before = { ...workerStats }
      const one = yield* importOnce(s.policy, s.reference, { ...s.plan, jobs: 1 })
      expect(workerStats).toEqual(before) // no worker with one job
      const two = yield* importOnce(s.policy, s.index, { ...s.plan, jobs: 2 })
      // log 5 (nested logs) and log 9 (malformed) are left to the main thread
      expect(workerStats.whole - before.whole).toBe(count - 2)
      expect(workerStats.fallback - before.fallback).toBe(2)
      expect(two).toEqual(one)
      expect(two.sources).toMatchObject({ discovered: count, accepted: count - 1, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      // every event but the malformed log's (the nested log's 3 are in)
      expect(two.eventsAdded).toBe(s.events - (3 + ((9 * 7) % 11)))
      const want = (yield* dumpIndex(s.reference)) as Dump
      const got = (yield* dumpIndex(s.index)) as Dump
      expectSameIndex(got, want)
      // and a second run finds every source unchanged, as after --jobs 1
      const again = yield* importOnce(s.policy, s.index, { ...s.plan, jobs: 2 })
      expect(again.sources).toMatchObject({ unchanged: count - 1, accepted: 0, rejected: 1 })
      expect(again.eventsAdded).toBe(0)
    }))

  it.effect("with fewer new sources than MIN_SOURCES_FOR_WORKERS, no worker is started", () =>
    Effect.gen(function*() {
      const s = root(MIN_SOURCES_FOR_WORKERS - 1, 8, false)
      const before = { ...workerStats }
      const r = yield* importOnce(s.policy, s.index, { ...s.plan, jobs: 2 })
      expect(r.sources.accepted).toBe(MIN_SOURCES_FOR_WORKERS - 1)
      expect(workerStats).toEqual(before)
    }))

  /**
   * The crash cases' corpus and its clean `--jobs 1` import, made once for them all: each case imports the same
   * (unchanged) sources into an index of its own.
   */
  let clean: { readonly s: ReturnType<typeof root>; readonly want: Dump } | undefined
  const cleanImport = Effect.suspend(() =>
    clean !== undefined ? Effect.succeed(clean) : Effect.gen(function*() {
      const s = root(count, 8, false)
      yield* importOnce(s.policy, s.reference, { ...s.plan, jobs: 1 })
      clean = { s, want: (yield* dumpIndex(s.reference)) as Dump }
      return clean
    })
  )

  for (const point of ["mid-batch", "before-commit", "after-commit"] as const) {
    for (const n of [1, 7]) {
      it.effect(`killed at ${point} #${n} with --jobs 2: the next run reaches the content of a clean import`, () =>
        Effect.gen(function*() {
          const { s: corpus, want } = yield* cleanImport
          const s = { ...corpus, index: path.join(corpus.dir, `crashed-${point}-${n}.db`) }
          const crashed = yield* Effect.exit(importOnce(s.policy, s.index, { ...s.plan, jobs: 2 }, crashAt(point, n)))
          expect(Exit.isFailure(crashed)).toBe(true)
          const mid = (yield* dumpIndex(s.index)) as Dump
          expect(mid.events.length).toBeLessThan(s.events)
          for (const src of mid.sources as Array<{ source_key: string; generation: number; event_count: number }>) {
            expect(src.event_count).toBe((mid.events as Array<{ source_key: string; generation: number }>).filter((e) =>
              e.source_key === src.source_key && e.generation === src.generation
            ).length)
          }
          const resumed = yield* importOnce(s.policy, s.index, { ...s.plan, jobs: 2 })
          expect(resumed.sources.rejected).toBe(0)
          expect(resumed.eventsAdded).toBe(s.events - mid.events.length)
          expectSameIndex((yield* dumpIndex(s.index)) as Dump, want)
        }), 60_000) // two imports with two worker threads each (and the first case's clean import): over 30 s on a busy 2-core machine
    }
  }
})

describe("import --jobs: the built CLI", () => {
  const args = (s: ReturnType<typeof root>, index: string, jobs: number) => [
    "import", "--index", index, "--workspace", s.ws, "--muse-root", s.muse, "--agents-root", s.policy.agentsRoot, "--json", "--jobs", String(jobs)
  ]

  it("--jobs 0 is refused as a usage error", () => {
    const s = root(3, 8, false)
    const r = cli(args(s, s.index, 0))
    expect(r.code).toBe(2)
    expect(r.stderr + r.stdout).toContain("--jobs takes a whole number of threads, 1 to 64")
    expect(fs.existsSync(s.index)).toBe(false)
  })

  it.live("a SIGKILL mid-import with --jobs 2 (the bundled worker) leaves a consistent index; the next run reaches --jobs 1's content", () =>
    Effect.gen(function*() {
      // 600 logs of 15 to 25 events, 12,000 in all: more than two transactions of the CLI's 5,000 events
      // (`DEFAULT_COMMIT_EVENTS`), so a kill after the first commit comes before the end.
      const s = root(600, 500, false, 12)
      expect(s.events).toBeGreaterThan(2 * DEFAULT_COMMIT_EVENTS)
      const run = (index: string, jobs: number, killMidway = false) =>
        Effect.async<number | null>((resume) => {
          const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args(s, index, jobs)], { stdio: "ignore" })
          // Killed once some of its records are committed (read through a reader of our own: a WAL's size alone can
          // be the migrations' or an uncommitted transaction's pages, which made "mid-import" a matter of timing).
          let reader: Database.Database | undefined
          const committed = (): number => {
            try {
              if (reader === undefined) {
                if (!fs.existsSync(`${index}-wal`)) return 0
                reader = new Database(index, { readonly: true, fileMustExist: true })
              }
              return (reader.prepare("SELECT count(*) AS n FROM records").get() as { n: number }).n
            } catch {
              return 0
            }
          }
          const poll = killMidway
            ? setInterval(() => {
              if (committed() > 0) child.kill("SIGKILL")
            }, 5)
            : undefined
          child.on("exit", (code) => {
            if (poll !== undefined) clearInterval(poll)
            reader?.close()
            resume(Effect.succeed(code))
          })
        })
      expect(yield* run(s.reference, 1)).toBe(0)
      expect(yield* run(s.index, 2, true)).toBeNull()
      const mid = (yield* dumpIndex(s.index)) as Dump
      expect(mid.events.length).toBeGreaterThan(0)
      expect(mid.events.length).toBeLessThan(s.events)
      expect(yield* run(s.index, 2)).toBe(0)
      expectSameIndex((yield* dumpIndex(s.index)) as Dump, (yield* dumpIndex(s.reference)) as Dump)
      // and a clean --jobs 2 run of the CLI writes the same index
      const clean = path.join(s.dir, "clean.db")
      expect(yield* run(clean, 2)).toBe(0)
      expectSameIndex((yield* dumpIndex(clean)) as Dump, (yield* dumpIndex(s.reference)) as Dump)
    }), 120_000)
})

/**
 * A copy of the built CLI beside a parse worker entry of `worker`'s text (`null`: none), better-sqlite3 found through
 * the node_modules beside it; `run` imports `s` with it into `index` (`--json` unless `json` is false), killed
 * (SIGKILL) if it is not done in 60 s.
 */
const cliCopy = (s: ReturnType<typeof root>, worker: string | null) => {
  const copy = path.join(s.dir, "copy")
  fs.mkdirSync(copy)
  fs.copyFileSync(path.join(repoRoot, "dist", "cli.cjs"), path.join(copy, "cli.cjs"))
  if (worker !== null) fs.writeFileSync(path.join(copy, "parse-worker.cjs"), worker)
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"))
  return (index: string, jobs: number, json = true) =>
    spawnSync(process.execPath, [
      path.join(copy, "cli.cjs"), "import", "--index", index, "--workspace", s.ws, "--muse-root", s.muse, "--agents-root", s.policy.agentsRoot,
      ...(json ? ["--json"] : []), "--jobs", String(jobs)
    ], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" })
}

describe("import --jobs: a parse worker entry that cannot load", () => {
  const built = () => fs.readFileSync(path.join(repoRoot, "dist", "parse-worker.cjs"), "utf8")
  const cases: ReadonlyArray<readonly [string, () => string, RegExp]> = [
    // a build cut short: the bundle ends mid-module (a SyntaxError while loading). Cut at half, then a line that
    // cannot end a module wherever the cut fell (in code, a string, a template or a comment): a bare half could end
    // between two statements and load (it did, once the bundle grew: "exited with code 0 while loading").
    ["truncated", () => built().slice(0, Math.floor(built().length / 2)) + "\n})(", /failed while loading \(SyntaxError/],
    // a top level that throws
    ["throwing at its top level", () => `"use strict";\nthrow new Error("broken build");\n`, /failed while loading \(Error: broken build\)/]
  ]
  for (const [name, text, problem] of cases) {
    it(`${name}: the import reads every source in one thread, exits 0, writes --jobs 1's index and says why`, () => {
      const s = root(MIN_SOURCES_FOR_WORKERS + 16, 500, false)
      const run = cliCopy(s, text())
      // without a probe, @effect/platform's pool starts the worker again every second, for ever: killed at 60 s
      const r = run(s.index, 2)
      expect(r.signal).toBeNull()
      expect(r.status).toBe(0)
      const report = JSON.parse(r.stdout.trim().split("\n").pop()!).data
      expect(report.coverage).toBe("complete")
      expect(report.sources.accepted).toBe(MIN_SOURCES_FOR_WORKERS + 16)
      expect(report.eventsAdded).toBe(s.events)
      expect(report.parseWorkers).toMatchObject({ code: "PARSE_WORKERS_UNAVAILABLE", sources: MIN_SOURCES_FOR_WORKERS + 16 })
      expect(report.parseWorkers.problem).toMatch(problem)
      const one = run(s.reference, 1)
      expect(one.status).toBe(0)
      expect(JSON.parse(one.stdout.trim().split("\n").pop()!).data.parseWorkers).toBeUndefined()
      return Effect.runPromise(Effect.gen(function*() {
        expectSameIndex((yield* dumpIndex(s.index)) as Dump, (yield* dumpIndex(s.reference)) as Dump)
      }))
    }, 150_000)
  }

  it("the text report says the workers could not start and the sources were read in one thread", () => {
    const s = root(MIN_SOURCES_FOR_WORKERS, 500, false)
    const r = cliCopy(s, `throw new Error("broken build")\n`)(s.index, 2, false)
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`PARSE_WORKERS_UNAVAILABLE: the parse workers could not start (the worker failed while loading (Error: broken build)); ${MIN_SOURCES_FOR_WORKERS} sources read in one thread instead`)
  }, 120_000)
})

describe("import --jobs: a bundle without its parse worker", () => {
  it("imports every source in one thread (no hang, no retry loop) and writes --jobs 1's index", () => {
    const s = root(MIN_SOURCES_FOR_WORKERS + 16, 500, false)
    // The built CLI alone, as a copy that lost `parse-worker.cjs`.
    const run = cliCopy(s, null)
    const r = run(s.index, 2)
    expect(r.signal).toBeNull()
    expect(r.status).toBe(0)
    const report = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    expect(report.sources.accepted).toBe(MIN_SOURCES_FOR_WORKERS + 16)
    expect(report.eventsAdded).toBe(s.events)
    expect(run(s.reference, 1).status).toBe(0)
    return Effect.runPromise(Effect.gen(function*() {
      expectSameIndex((yield* dumpIndex(s.index)) as Dump, (yield* dumpIndex(s.reference)) as Dump)
    }))
  }, 120_000)
})
