/**
 * A watch's targeted round reports the parse warnings of the lines it read
 * (tester36a F1): a bad line appended to a transcript or a session log during
 * `import --watch` is counted in the round that read it, at its line, added to
 * what the last full round's discovery counted; a round that reads it again
 * (the lines after the cursor's) or a later targeted round does not count it
 * twice or lose it; the next full round counts it once. A plain import run
 * twice (the second an append-only resume) counts an appended bad line once.
 * Muse agents and Claude Code (the providers that skip a bad line and count
 * it; Muse Code fails closed, AgentMux's sessions are never a targeted round's).
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
import * as Sources from "../../src/layers/sources.js"
import * as SourceAccessNode from "../../src/layers/SourceAccessNode.js"
import { memoryLayer, watch, type WatchOptions, type WatchRound } from "../../src/layers/index/watch.js"
import { AccessPolicy, type AccessPolicyInput } from "../../src/services/AccessPolicy.js"
import { ImportFaults, ImportProgress, type ImportReport } from "../../src/services/Importer.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

const SID = "7a7a7a7a-0000-4000-8000-000000000040"

/** One provider's fixture: a root with one source file, good and bad lines to append, a non-source file to touch. */
interface Case {
  readonly name: string
  readonly setup: () => { readonly dir: string; readonly file: string; readonly policy: AccessPolicyInput; readonly other: string }
  /** A good line (one event); `n` makes it unique. */
  readonly good: (n: number) => string
  /** A line whose record is kept without a valid time (`timestamp-not-valid`). */
  readonly badTime: (n: number) => string
}

const agents: Case = {
  name: "Muse agents",
  setup: () => {
    const dir = tempDir()
    const root = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "a1", "sessions"), { recursive: true })
    fs.mkdirSync(path.join(dir, "claude"))
    const file = path.join(root, "a1", "sessions", "a1.jsonl")
    return {
      dir,
      file,
      other: path.join(root, "a1", "notes.txt"),
      policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: root, claudeRoot: path.join(dir, "claude") }
    }
  },
  good: (n) => JSON.stringify({ type: "item", seq: n, source: "runtime", item: { type: "message", role: "user", text: `message ${n}` }, created_at: "2025-04-01T10:00:00Z" }) + "\n",
  badTime: (n) => JSON.stringify({ type: "item", seq: n, source: "runtime", item: { type: "message", role: "user", text: `message ${n}` }, created_at: "not a date" }) + "\n"
}

const claude: Case = {
  name: "Claude Code",
  setup: () => {
    const dir = tempDir()
    const root = path.join(dir, "claude")
    fs.mkdirSync(path.join(root, "-home-dev-proj"), { recursive: true })
    fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
    const file = path.join(root, "-home-dev-proj", `${SID}.jsonl`)
    return {
      dir,
      file,
      other: path.join(root, "-home-dev-proj", "notes.txt"),
      policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
    }
  },
  good: (n) =>
    JSON.stringify({
      type: "user",
      sessionId: SID,
      uuid: `u${n}`,
      parentUuid: n === 1 ? null : `u${n - 1}`,
      timestamp: "2025-02-01T10:00:00Z",
      cwd: "/home/dev/proj",
      message: { role: "user", content: `question ${n}` }
    }) + "\n",
  badTime: (n) =>
    JSON.stringify({
      type: "user",
      sessionId: SID,
      uuid: `u${n}`,
      parentUuid: `u${n - 1}`,
      timestamp: "not a date",
      cwd: "/home/dev/proj",
      message: { role: "user", content: `question ${n}` }
    }) + "\n"
}

/** Muse agents' transcript begins with its header line. */
const headerOf = (c: Case) =>
  c === agents ? JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n" : ""

/** The report's parse warnings of `file`, by kind: `[count, firstLine]`. */
const warningsOf = (report: ImportReport, file: string): Record<string, [number, number | null]> => {
  const out: Record<string, [number, number | null]> = {}
  for (const i of report.parseWarnings.items) if (i.path === file) out[i.kind] = [i.count, i.firstLine]
  return out
}

const watchLayer = (policy: AccessPolicyInput, index: string, options: WatchOptions) => {
  const base0 = Layer.mergeAll(AccessPolicy.layer(policy), ImportLimits.layer({}), SourceAccessNode.layer)
  const app = Layer.merge(Sources.layer.pipe(Layer.provide(base0)), base0)
  const base = Layer.mergeAll(app, IndexSqlite.layer(index), ImportFaults.none, ImportProgress.silent)
  return ImporterLayer.layer.pipe(Layer.provideMerge(memoryLayer(options).pipe(Layer.provideMerge(base))))
}

/** Append `text` to `file`, then wait for the round that read it (`scope`). */
const appendAnd = (
  file: string,
  text: string,
  next: (pred: (r: WatchRound) => boolean) => Effect.Effect<WatchRound>,
  scope: "targeted" | "full" = "targeted"
) =>
  Effect.gen(function*() {
    fs.appendFileSync(file, text)
    return yield* next((r) => r.scope === scope && r.report.sources.accepted > 0)
  })

describe("a watch's targeted round counts the parse warnings of the lines it read (tester36a F1)", () => {
  for (const c of [agents, claude]) {
    it.live(`${c.name}: counted in the round that read them, at their lines, once, and once at the next full round`, () =>
      Effect.gen(function*() {
        const s = c.setup()
        const h = headerOf(c)
        const base = h === "" ? 0 : 1
        // Lines: [header], good 1, bad (not JSON) at base + 2, good 2..4.
        fs.writeFileSync(s.file, h + c.good(1) + "{not json\n" + c.good(2) + c.good(3) + c.good(4))
        const index = path.join(s.dir, "index.db")
        const plan = ImporterLayer.planFromPolicy(s.policy, { batchSize: 100 })
        const options: WatchOptions = { settle: "5 millis", refresh: "10 minutes", poll: "10 minutes" }
        const body = Effect.gen(function*() {
          const rounds = yield* Queue.unbounded<WatchRound>()
          const all: Array<WatchRound> = []
          const fiber = yield* Effect.fork(watch(plan, (r) => Effect.zipRight(Effect.sync(() => all.push(r)), rounds.offer(r)), options))
          const next = (pred: (r: WatchRound) => boolean): Effect.Effect<WatchRound> =>
            rounds.take.pipe(
              Effect.repeat({ until: pred }),
              Effect.timeoutFail({
                duration: Duration.seconds(30),
                onTimeout: () => new Error(`no such round; rounds: ${JSON.stringify(all.map((r) => [r.scope, r.trigger, r.report.sources.accepted]))}`)
              }),
              Effect.orDie
            )
          const first = yield* next((r) => r.round === 1)
          expect(warningsOf(first.report, s.file)).toEqual({ "malformed-json": [1, base + 2] })
          // The full round that follows the first once its folders are watched.
          yield* rounds.take.pipe(Effect.timeout(Duration.millis(1500)), Effect.option, Effect.repeat({ until: (o) => o._tag === "None" }))

          // A bad line alone (no event after it): the round read it, and says so.
          const a = yield* appendAnd(s.file, "[1, 2]\n", next)
          expect(warningsOf(a.report, s.file)).toEqual({ "malformed-json": [1, base + 2], "non-object": [1, base + 6] })
          expect(a.report.parseWarnings.lines).toBe(2)
          // A good line after it: read from the cursor, the bad line is read again, and not counted again.
          const b = yield* appendAnd(s.file, c.good(5), next)
          expect(warningsOf(b.report, s.file)).toEqual({ "malformed-json": [1, base + 2], "non-object": [1, base + 6] })
          // Another of each kind, and a line kept without its time: summed, the first line the first one's.
          const d = yield* appendAnd(s.file, "{\"torn\": \n" + c.badTime(6) + "[3]\n" + c.good(7), next)
          expect(warningsOf(d.report, s.file)).toEqual({
            "malformed-json": [2, base + 2],
            "non-object": [2, base + 6],
            "timestamp-not-valid": [1, base + 9]
          })
          expect(d.report.parseWarnings.lines).toBe(5)
          // A later round that reads none of them keeps them (the last full round's overview counts none of them); its
          // last line is kept without its time, and is its cursor's line.
          const e = yield* appendAnd(s.file, c.badTime(8), next)
          const now = { "malformed-json": [2, base + 2], "non-object": [2, base + 6], "timestamp-not-valid": [2, base + 9] }
          expect(warningsOf(e.report, s.file)).toEqual(now)
          // The next round reads from that cursor: its line is not counted again.
          const f = yield* appendAnd(s.file, c.good(9), next)
          expect(warningsOf(f.report, s.file)).toEqual(now)
          // The next full round (a new file beside the source): counted once, as its discovery counts them.
          fs.writeFileSync(s.other, "not a source\n")
          const full = yield* next((r) => r.scope === "full")
          expect(warningsOf(full.report, s.file)).toEqual(now)
          yield* Fiber.interrupt(fiber)
        })
        yield* body.pipe(Effect.provide(watchLayer(s.policy, index, options)))
      }), 120_000)

    it.live(`${c.name}: a plain import run again after an append counts the appended bad line once`, () =>
      Effect.gen(function*() {
        const s = c.setup()
        const h = headerOf(c)
        const base = h === "" ? 0 : 1
        fs.writeFileSync(s.file, h + c.good(1) + "{not json\n" + c.good(2))
        const index = path.join(s.dir, "index.db")
        const plan = ImporterLayer.planFromPolicy(s.policy, { batchSize: 100 })
        const first = yield* importOnce(s.policy, index, plan)
        expect(warningsOf(first, s.file)).toEqual({ "malformed-json": [1, base + 2] })
        fs.appendFileSync(s.file, "{still not json\n" + c.good(3))
        const second = yield* importOnce(s.policy, index, plan)
        expect(second.sources.accepted).toBe(1)
        expect(warningsOf(second, s.file)).toEqual({ "malformed-json": [2, base + 2] })
        expect(second.parseWarnings.lines).toBe(2)
        // Unchanged since: the same count.
        const third = yield* importOnce(s.policy, index, plan)
        expect(third.sources.unchanged).toBe(1)
        expect(warningsOf(third, s.file)).toEqual({ "malformed-json": [2, base + 2] })
      }), 60_000)
  }
})

/** The text of the round whose line begins `round N `, up to the next round line. */
const roundTextOf = (stdout: string, n: number): string => {
  const at = stdout.indexOf(`round ${n} `)
  if (at < 0) return ""
  const next = stdout.indexOf("\nround ", at + 1)
  return stdout.slice(at, next < 0 ? undefined : next + 1)
}

describe("import --watch prints and gives the parse warnings of the round that read them (tester36a F1)", () => {
  it.live("human: under the targeted round that read the bad line, once; not again at the next full round", () =>
    Effect.gen(function*() {
      const s = setup(3) // lines: header, 3 messages
      const w = startWatch(s.args(s.index).filter((a) => a !== "--json"))
      yield* until(() => /round 1 /.test(w.stdout()))
      // The follow-up full round once its folders are watched.
      yield* until(() => /round 2 /.test(w.stdout()), 20_000)
      fs.appendFileSync(s.file, "{not json\n" + item(4, "message 4"))
      yield* until(() => /round \d+ targeted[^\n]*\+1 event/.test(w.stdout()), 20_000)
      const n = Number(/round (\d+) targeted[^\n]*\+1 event/.exec(w.stdout())![1])
      // A full round after it (a file beside the transcript that is no source).
      fs.writeFileSync(path.join(s.root, "a1", "notes.txt"), "not a source\n")
      yield* until(() => new RegExp(`round (\\d+) full`).test(w.stdout().slice(w.stdout().indexOf(`round ${n} `))), 20_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const out = w.stdout()
      expect(roundTextOf(out, 1)).not.toContain("parse warnings")
      const text = roundTextOf(out, n)
      expect(text).toContain("\n  parse warnings: 1 line skipped in 1 source (malformed-json 1); the rest of each source was read\n")
      expect(text).toContain(`\n    - muse-agents ${s.file}: malformed-json 1 (first at line 5)\n`)
      // Said once: no later round says it again.
      for (let k = n + 1; roundTextOf(out, k) !== ""; k++) expect(roundTextOf(out, k)).not.toContain("parse warnings")
    }), 90_000)

  it.live("--json: the targeted round's report counts the bad line, at its line", () =>
    Effect.gen(function*() {
      const s = setup(3)
      const w = startWatch(s.args(s.index))
      yield* until(() => w.rounds.length >= 2, 20_000)
      fs.appendFileSync(s.file, item(4, "message 4") + "[1]\n" + item(5, "message 5"))
      yield* until(() => w.rounds.some((r) => r.scope === "targeted" && r.eventsAdded === 2), 20_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const envelopes = w.stdout().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
      const round = envelopes.find((e) => e.data?.scope === "targeted" && e.data.report.eventsAdded === 2)
      expect(round.data.report.parseWarnings).toEqual({
        lines: 1,
        files: 0,
        sources: 1,
        byKind: { "non-object": 1 },
        items: [{ provider: "muse-agents", path: s.file, kind: "non-object", count: 1, firstLine: 6 }]
      })
    }), 90_000)
})
