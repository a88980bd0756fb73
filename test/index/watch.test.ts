/**
 * `import --watch` in process (`src/layers/index/watch.ts`): a growth is
 * imported from the cursor (the prefix is not read again), a new transcript
 * is found, and a truncation, a replacement or a rewrite of the imported
 * lines is a new generation, never an append; the index then equals a fresh
 * import of the same files.
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
import { ImportFaults, ImportProgress } from "../../src/services/Importer.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import { Index } from "../../src/services/Index.js"
import { SourceAccess } from "../../src/services/SourceAccess.js"
import { dumpIndex, importOnce, indexView } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { nativeSessionPath, writeNativeRoot } from "../../bench/generate/native.js"
import { uuidOf } from "../../bench/generate/common.js"

const item = (seq: number, text: string) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T10:${String(Math.floor(seq / 60) % 60).padStart(2, "0")}:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

const header = (session: string, agent: string) =>
  JSON.stringify({ type: "session_header", session_id: session, agent_id: agent, created_at: "2025-04-01T10:00:00Z" }) + "\n"

/** An agents root with one transcript of `n` user messages (about 150 bytes each). */
const agentsRoot = (n: number) => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  const sessions = path.join(root, "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "a1.jsonl")
  let text = header("s-1", "a1")
  for (let i = 1; i <= n; i++) text += item(i, `message number ${i}`)
  fs.writeFileSync(file, text)
  const policy: AccessPolicyInput = { workspaceRoots: [dir], museRoots: [], agentsRoot: root }
  return { dir, root, file, policy, plan: ImporterLayer.planFromPolicy(policy, { batchSize: 100 }), index: path.join(dir, "index.db") }
}

/** Bytes read from source files through `SourceAccess` (every provider reads through it). */
const counter = { bytes: 0 }
/** Files that cannot be read now (as `chmod 000` makes them for a user other than root): opening or reading one fails EACCES. */
const blocked = new Set<string>()
const refusedRead = (p: string) => Effect.fail(SourceAccessNode.fsError(p, Object.assign(new Error("EACCES"), { code: "EACCES" })))
const countingAccess = Layer.effect(
  SourceAccess,
  Effect.map(SourceAccess, (a) => ({
    ...a,
    open: (f: Parameters<typeof a.open>[0]) =>
      blocked.has(f.path) ? refusedRead(f.path) : Effect.map(a.open(f), (src) => ({
        ...src,
        read: (offset: number, length: number) => Effect.tap(src.read(offset, length), (b) => Effect.sync(() => counter.bytes += b.length))
      })),
    readHead: (f: Parameters<typeof a.readHead>[0], length: number) =>
      blocked.has(f.path) ? refusedRead(f.path) : Effect.tap(a.readHead(f, length), (r) => Effect.sync(() => counter.bytes += r.bytes.length)),
    readWhole: (f: Parameters<typeof a.readWhole>[0], max: number) =>
      blocked.has(f.path) ? refusedRead(f.path) : Effect.tap(a.readWhole(f, max), (b) => Effect.sync(() => counter.bytes += b.length))
  }))
).pipe(Layer.provide(SourceAccessNode.layer))

/** The watch's layer as the CLI builds it (`watchLayer`), with reads counted. */
const watchLayer = (policy: AccessPolicyInput, index: string, options: WatchOptions) => {
  const base0 = Layer.mergeAll(AccessPolicy.layer(policy), ImportLimits.layer({}), countingAccess)
  const app = Layer.merge(Sources.layer.pipe(Layer.provide(base0)), base0)
  const base = Layer.mergeAll(app, IndexSqlite.layer(index), ImportFaults.none, ImportProgress.silent)
  return ImporterLayer.layer.pipe(Layer.provideMerge(memoryLayer(options).pipe(Layer.provideMerge(base))))
}

/**
 * Run a watch over `a` while `body` acts on the files; `next(pred)` waits
 * (at most 10 s) for a round that satisfies `pred`. The watch is interrupted at the end.
 */
const withWatch = <A>(
  a: ReturnType<typeof agentsRoot>,
  body: (
    next: (pred: (r: WatchRound) => boolean, seconds?: number) => Effect.Effect<WatchRound>,
    quiet: Effect.Effect<void>
  ) => Effect.Effect<A, unknown, Index>,
  options: WatchOptions = {}
) =>
  Effect.gen(function*() {
    const rounds = yield* Queue.unbounded<WatchRound>()
    const all: Array<WatchRound> = []
    const fiber = yield* Effect.fork(watch(a.plan, (r) => Effect.zipRight(Effect.sync(() => all.push(r)), rounds.offer(r)), { settle: "5 millis", refresh: "200 millis", ...options }))
    const next = (pred: (r: WatchRound) => boolean, seconds = 10): Effect.Effect<WatchRound> =>
      rounds.take.pipe(
        Effect.repeat({ until: pred }),
        Effect.timeoutFail({ duration: Duration.seconds(seconds), onTimeout: () => new Error(`no such round; rounds: ${JSON.stringify(all.map((r) => [r.scope, r.trigger, r.report.eventsAdded, r.report.sources]))}`) }),
        Effect.orDie
      )
    yield* next((r) => r.round === 1, 120)
    /** Until no round came for 1.5 s (a change written in two steps may take two rounds). */
    const quiet = rounds.take.pipe(Effect.timeout(Duration.millis(1500)), Effect.option, Effect.repeat({ until: (o) => o._tag === "None" }), Effect.asVoid)
    yield* quiet // the full round that follows the first, once its folders are watched
    const out = yield* body(next, quiet)
    yield* Fiber.interrupt(fiber)
    return out
  }).pipe(Effect.provide(watchLayer(a.policy, a.index, options)))

const eventCount = Effect.flatMap(Index, (i) => Effect.map(i.sessions({}), (ss) => ss.reduce((n, s) => n + s.eventCount, 0)))

/** The index equals a fresh import of the same files (sessions and events), and holds no event twice. */
const expectFresh = (a: ReturnType<typeof agentsRoot>) =>
  Effect.gen(function*() {
    const fresh = path.join(a.dir, `fresh-${Date.now()}.db`)
    yield* importOnce(a.policy, fresh, a.plan)
    expect(yield* indexView(a.index)).toEqual(yield* indexView(fresh))
    const dump = yield* dumpIndex(a.index)
    const ids = (dump.events as ReadonlyArray<Record<string, unknown>>).map((e) => JSON.stringify([e.eventUid ?? e.event_uid ?? e.id, e.generation]))
    expect(new Set(ids).size).toBe(ids.length)
  })

describe("import --watch (library)", () => {
  it.live("an append is in the index from the cursor: the imported prefix is not read again", () => {
    // About 750 KB: a prefix read again would be more than twice the bound below.
    const a = agentsRoot(5_000)
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          expect(yield* eventCount).toBeGreaterThanOrEqual(5_000)
          const before = yield* eventCount
          for (let k = 1; k <= 3; k++) {
            counter.bytes = 0
            fs.appendFileSync(a.file, item(5_000 + k, `appended ${k}`))
            const r = yield* next((r) => r.report.eventsAdded > 0)
            expect(r.scope).toBe("targeted")
            expect(r.report.sources.newGenerations).toBe(0)
            // The cursor's line, the append, the 4 KiB before the cursor and the head (the watch's checks), and the
            // adapter's own 256 KiB head read at a stream's start: a constant, far below the 750 KB prefix.
            expect(counter.bytes).toBeLessThan(256 * 1024 + 64 * 1024)
            expect(yield* eventCount).toBe(before + k)
          }
          // The refresh round then stores the transcript's discovery summary (counts, last activity).
          yield* next((r) => r.scope === "full")
          yield* quiet
        }), { refresh: "5 seconds" })
      yield* expectFresh(a)
    })
  }, 60_000)

  it.live("a prefix trusted for no time is hashed again at each growth (the importer's own check)", () => {
    // About 750 KB: well above the adapter's own 256 KiB head read, so only hashing the prefix reads it whole.
    const a = agentsRoot(5_000)
    return Effect.gen(function*() {
      yield* withWatch(a, (next) =>
        Effect.gen(function*() {
          counter.bytes = 0
          fs.appendFileSync(a.file, item(5_001, "appended"))
          yield* next((r) => r.report.eventsAdded > 0)
          expect(counter.bytes).toBeGreaterThan(fs.statSync(a.file).size - 1024)
        }), { trustFor: 0 })
    })
  }, 60_000)

  it.live("a new transcript under the root is imported by a full round", () => {
    const a = agentsRoot(10)
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          const dir = path.join(a.root, "a2", "sessions")
          fs.mkdirSync(dir, { recursive: true })
          fs.writeFileSync(path.join(dir, "a2.jsonl"), header("s-2", "a2") + item(1, "hello") + item(2, "again"))
          const r = yield* next((r) => r.report.sessionsAdded > 0)
          expect(r.scope).toBe("full")
          const ids = yield* Effect.flatMap(Index, (i) => i.sessions({}))
          expect(ids.map((s) => s.sessionId).sort()).toEqual(["s-1", "s-2"])
          yield* quiet
        }))
      yield* expectFresh(a)
    })
  }, 60_000)

  const changes: ReadonlyArray<readonly [string, (file: string) => void]> = [
    ["the last imported line rewritten in place, then an append", (file) => {
      const text = fs.readFileSync(file, "utf8").replace("message number 300\"", "MESSAGE NUMBER 300\"")
      const fd = fs.openSync(file, "r+")
      fs.writeSync(fd, text)
      fs.closeSync(fd)
      fs.appendFileSync(file, item(301, "after the rewrite"))
    }],
    ["the file truncated to a shorter, different text", (file) => {
      fs.writeFileSync(file, header("s-1", "a1") + item(1, "a different first message"))
    }],
    ["the file replaced (renamed over) by a longer one with the same head", (file) => {
      const text = fs.readFileSync(file, "utf8").replace("message number 150\"", "message number CL\"") + item(301, "more")
      fs.writeFileSync(`${file}.tmp`, text)
      fs.renameSync(`${file}.tmp`, file)
    }],
    ["the session header rewritten in place, same size", (file) => {
      const text = fs.readFileSync(file, "utf8").replace("2025-04-01T10:00:00Z", "2025-04-02T10:00:00Z")
      const fd = fs.openSync(file, "r+")
      fs.writeSync(fd, text)
      fs.closeSync(fd)
      fs.appendFileSync(file, item(301, "after the rewrite"))
    }]
  ]
  for (const [what, change] of changes) {
    it.live(`${what}: a new generation, never an append`, () => {
      const a = agentsRoot(300)
      return Effect.gen(function*() {
        yield* withWatch(a, (next, quiet) =>
          Effect.gen(function*() {
            // One growth first, so the watch holds a verified prefix it could wrongly trust.
            fs.appendFileSync(a.file, item(300, "message number 300"))
            yield* next((r) => r.report.eventsAdded > 0)
            change(a.file)
            yield* next((r) => r.report.sources.newGenerations > 0)
            yield* quiet
          }))
        yield* expectFresh(a)
      })
    }, 60_000)
  }

  // Node 20's recursive fs.watch on Linux watches each file by its inode: a file replaced by a rename was no longer watched.
  it.live("a file replaced by a rename (an atomic save) is still watched: a later append is imported within seconds", () => {
    const a = agentsRoot(10)
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          for (let k = 1; k <= 2; k++) {
            fs.writeFileSync(`${a.file}.tmp`, fs.readFileSync(a.file, "utf8") + item(10 + 2 * k - 1, `saved ${k}`))
            fs.renameSync(`${a.file}.tmp`, a.file)
            yield* next((r) => r.report.eventsAdded > 0 || r.report.sources.newGenerations > 0, 5)
            yield* quiet
            const before = yield* eventCount
            fs.appendFileSync(a.file, item(10 + 2 * k, `appended ${k}`))
            yield* next((r) => r.report.eventsAdded > 0, 5) // the 60 s poll would be the only other way
            expect(yield* eventCount).toBe(before + 1)
            yield* quiet
          }
        }))
      yield* expectFresh(a)
    })
  }, 60_000)

  it.live("a named root that is missing, or deleted while watched, is unwatched and polled every 2 s", () => {
    const a = agentsRoot(3)
    fs.renameSync(a.root, `${a.root}.later`)
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          yield* next((r) => r.watching.unwatched > 0, 5)
          fs.renameSync(`${a.root}.later`, a.root)
          yield* next((r) => r.report.sessionsAdded > 0, 5)
          yield* quiet
          fs.rmSync(a.root, { recursive: true })
          yield* next((r) => r.watching.unwatched > 0, 5)
          const dir = path.join(a.root, "a2", "sessions")
          fs.mkdirSync(dir, { recursive: true })
          fs.writeFileSync(path.join(dir, "a2.jsonl"), header("s-2", "a2") + item(1, "hello"))
          yield* next((r) => r.report.sessionsAdded > 0, 5)
        }), { roots: [a.root] })
    })
  }, 60_000)

  it.live("the index deleted under a running watch: it stops with STORE_UNAVAILABLE naming the path, writing nothing more", () => {
    const a = agentsRoot(3)
    return Effect.gen(function*() {
      const rounds = yield* Queue.unbounded<WatchRound>()
      const fiber = yield* Effect.fork(watch(a.plan, (r) => rounds.offer(r), { settle: "5 millis", index: a.index }))
      yield* rounds.take
      yield* Effect.sleep("1 second")
      fs.unlinkSync(a.index)
      fs.appendFileSync(a.file, item(4, "after the index went"))
      const e = yield* Fiber.join(fiber).pipe(Effect.flip, Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("the watch kept running") }), Effect.orDie)
      expect(e._tag).toBe("StoreUnavailable")
      expect((e as { code: string }).code).toBe("STORE_UNAVAILABLE")
      expect((e as { message: string }).message).toContain(a.index)
      // Nothing at the path tells a delete from a rename away: both are said (tester34a F5).
      expect((e as { message: string }).message).toContain("was moved or deleted while the watch was running")
    }).pipe(Effect.provide(watchLayer(a.policy, a.index, {})))
  }, 60_000)
})

describe("import --watch: new files anywhere under a root (the folder scan behind fs.watch)", () => {
  it.live("a new session in an existing dated folder, in a new dated folder, and a subagent log beside a session are imported", () => {
    const dir = tempDir()
    const claude = path.join(dir, "claude")
    fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), claude, { recursive: true })
    const staging = path.join(dir, "staging")
    const muse = path.join(dir, "muse")
    writeNativeRoot(staging, 301, dir)
    const place = (i: number) => {
      const to = nativeSessionPath(muse, i)
      fs.mkdirSync(path.dirname(to), { recursive: true })
      fs.writeFileSync(to, fs.readFileSync(nativeSessionPath(staging, i)))
    }
    place(0)
    const policy: AccessPolicyInput = { workspaceRoots: [dir], museRoots: [muse], claudeRoot: claude, agentsRoot: path.join(dir, "no-agents") }
    const a = { dir, root: claude, file: "", policy, plan: ImporterLayer.planFromPolicy(policy, { batchSize: 100 }), index: path.join(dir, "index.db") }
    const sessions = Effect.flatMap(Index, (i) => Effect.map(i.sessions({}), (ss) => ss.map((s) => s.sessionId)))
    return withWatch(a, (next, quiet) =>
      Effect.gen(function*() {
        // Same day as session 0 (2026-01-01): a new session folder in an existing dated folder.
        place(300)
        yield* next((r) => r.report.sessionsAdded > 0, 5)
        expect(yield* sessions).toContain(uuidOf(300, 0x5e5))
        yield* quiet
        // A new dated folder (2026-01-02).
        place(1)
        yield* next((r) => r.report.sessionsAdded > 0, 5)
        expect(yield* sessions).toContain(uuidOf(1, 0x5e5))
        yield* quiet
        // A subagent log beside an existing one.
        const subs = path.join(claude, "-home-alice-code-billing-api", "8d41f0a2-5c3e-4b7a-a9d2-6e1f3c7b9054", "subagents")
        const text = fs.readFileSync(path.join(subs, "agent-a7c3e9f1b2d4068e5.jsonl"), "utf8").replaceAll("a7c3e9f1b2d4068e5", "b00000000000000a1")
        fs.writeFileSync(path.join(subs, "agent-b00000000000000a1.jsonl"), text)
        yield* next((r) => r.report.eventsAdded > 0, 5)
      }), { poll: "1 hour", roots: [claude, muse] })
  }, 120_000)

  it.live("a transcript unreadable for a while: what was appended meanwhile is imported as soon as it is readable again (its attributes change), not at the next poll", () => {
    // tester16 F6: `chmod 000`, an append, `chmod 644`: the full round that found it unreadable took it for "no
    // source", and the chmod back (an attribute change, no write) was no reason for a round until the hourly poll.
    const a = agentsRoot(10)
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          blocked.add(a.file)
          fs.utimesSync(a.file, new Date(), new Date()) // what chmod 000 tells the watcher: an attribute change
          yield* next((r) => r.scope === "full" && r.report.coverage === "partial")
          yield* quiet
          fs.appendFileSync(a.file, item(11, "written while unreadable"))
          yield* quiet
          blocked.delete(a.file)
          fs.utimesSync(a.file, new Date(), new Date()) // chmod 644
          const r = yield* next((r) => r.report.eventsAdded > 0, 5)
          expect(r.report.coverage).toBe("complete")
          expect(yield* eventCount).toBe(11)
          yield* quiet
        }), { poll: "1 hour" })
      yield* expectFresh(a)
    }).pipe(Effect.ensuring(Effect.sync(() => blocked.clear())))
  }, 60_000)

  it.live("a targeted round while the tree is partial says so: its line never reads complete while a source is still unreadable", () => {
    // tester16 F7: a fifo in place of a session made a full round partial; the next targeted round (an append to
    // another source) printed "complete", which a user reads as "the tree is complete now".
    const a = agentsRoot(10)
    const other = path.join(a.root, "a2", "sessions", "a2.jsonl")
    fs.mkdirSync(path.dirname(other), { recursive: true })
    fs.writeFileSync(other, header("s-2", "a2") + item(1, "hello"))
    return Effect.gen(function*() {
      yield* withWatch(a, (next, quiet) =>
        Effect.gen(function*() {
          blocked.add(other)
          fs.utimesSync(other, new Date(), new Date())
          const full = yield* next((r) => r.scope === "full" && r.report.coverage === "partial")
          yield* quiet
          fs.appendFileSync(a.file, item(11, "appended"))
          const r = yield* next((r) => r.report.eventsAdded > 0)
          expect(r.scope).toBe("targeted")
          expect(r.report.coverage).toBe("partial")
          expect(r.report.causes.map((c) => [c.code, c.path])).toEqual(full.report.causes.map((c) => [c.code, c.path]))
          yield* quiet
          blocked.delete(other)
        }), { poll: "1 hour" })
    }).pipe(Effect.ensuring(Effect.sync(() => blocked.clear())))
  }, 60_000)
})
