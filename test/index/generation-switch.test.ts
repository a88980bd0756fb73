/**
 * A source imported before whose imported prefix changed is imported again
 * as a new generation (README "Generations"), in batches. Until the new
 * generation is read to its end, every reader keeps the old complete one:
 * the switch (old superseded, new current) is committed with the new one's
 * completion. An import killed after some of the new generation's batches
 * were committed leaves the old generation shown whole (sessions, events,
 * usage, search), the batches kept as work in progress that the next run
 * completes; when the file is gone before the next run, the old generation
 * stays (an archive, README `sources.gone`) and the work in progress goes.
 * Both engines (tester20a F2).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { usageBySession } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { crashAt, dumpIndex, importOnce, indexLayer, indexView, rewriteInPlace } from "../support/index.js"
import { engines, migratedDatabase } from "../support/pg.js"
import { claudeUsageLog } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"

const SID = "7a7a7a7a-0000-4000-8000-000000000020"
const TURNS = 40

/** A Claude Code log of {@link TURNS} turns (a user line, then an assistant response with its usage); turn 0's prompt says `word`. */
const log = (word: string) =>
  claudeUsageLog(SID, TURNS, word, (i, half) => `2025-02-01T10:${String(i).padStart(2, "0")}:${half === 0 ? "00" : "30"}Z`)

const setup = () => {
  const dir = tempDir("si-gen-switch-")
  const claudeRoot = path.join(dir, "claude")
  const file = path.join(claudeRoot, "-home-dev-proj", `${SID}.jsonl`)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  fs.writeFileSync(file, log("oldword"))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot }
  // Batches of 10 events: the log's 80 events are 8 batches, each committed on its own.
  return { dir, file, policy, plan: planFromPolicy(policy, { batchSize: 10 }) }
}

/** What the readers show: each session's event count, the usage of all sessions, and the hits of two words. */
const shown = (index: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const sessions = yield* i.sessions({})
    const usage = [...(yield* usageBySession(bundledPrices)).values()]
    const events = sessions.length === 0 ? [] : yield* i.events(sessions[0].sessionUid)
    return {
      sessions: sessions.map((s) => [s.sessionId, s.eventCount]),
      events: events.length,
      input: usage.reduce((n, u) => n + (u.inputTokens ?? 0), 0),
      responses: usage.reduce((n, u) => n + u.responses, 0),
      cost: usage.reduce((n, u) => n + (u.costUsd ?? 0), 0),
      oldword: (yield* i.search("oldword", {})).length,
      newword: (yield* i.search("newword", {})).length
    }
  }).pipe(Effect.provide(indexLayer(index)))

describe.each(engines)("($engine) a source imported again as a new generation, the import killed part-way", ({ newIndex }) => {
  const whole = { sessions: [[SID, 2 * TURNS]], events: 2 * TURNS, input: 100 * TURNS, responses: TURNS }

  it.effect("readers keep the old generation whole until the new one is complete; the next run completes it", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      yield* importOnce(s.policy, index, s.plan)
      const before = yield* shown(index)
      // The word is in turn 0's prompt and in the session title made of it: two hits.
      expect(before).toMatchObject({ ...whole, oldword: 2, newword: 0 })
      expect(before.cost).toBeGreaterThan(0)

      // A line changed (not an append): a new generation, killed after its first batch was committed.
      rewriteInPlace(s.file, (t) => t.replace("oldword", "newword"))
      const killed = yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      expect(yield* shown(index)).toEqual(before)

      // Killed again, further on (the second batch of the resumed run): still the old one.
      const again = yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 2)))
      expect(again._tag).toBe("Failure")
      expect(yield* shown(index)).toEqual(before)

      const report = yield* importOnce(s.policy, index, s.plan)
      expect(report.coverage).toBe("complete")
      expect(yield* shown(index)).toEqual({ ...before, oldword: 0, newword: 2 })
    }))

  it.effect("changed again before the next run: the unfinished generation is superseded unseen, the old one shown until a newer one completes", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      yield* importOnce(s.policy, index, s.plan)
      const before = yield* shown(index)
      rewriteInPlace(s.file, (t) => t.replace("oldword", "newword"))
      expect((yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 2))))._tag).toBe("Failure")
      // Another change in what the unfinished generation read: it cannot be resumed, a third generation begins.
      rewriteInPlace(s.file, (t) => t.replace("question 1\"", "question one\""))
      expect((yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1))))._tag).toBe("Failure")
      expect(yield* shown(index)).toEqual(before)
      yield* importOnce(s.policy, index, s.plan)
      expect(yield* shown(index)).toEqual({ ...before, oldword: 0, newword: 2 })
      // What a fresh import of the file makes, and the generations: the first and the unfinished second superseded.
      const fresh = yield* newIndex(s.dir)
      yield* importOnce(s.policy, fresh, s.plan)
      expect(yield* indexView(index)).toEqual(yield* indexView(fresh))
      const generations = (yield* dumpIndex(index)).generations as ReadonlyArray<{ generation: number; superseded: unknown }>
      expect(generations.map((g) => [g.generation, Boolean(g.superseded)])).toEqual([[1, true], [2, true], [3, false]])
    }))

  it.effect("the file gone before the next run: the old generation stays whole, the work in progress is discarded", () =>
    Effect.gen(function*() {
      const s = setup()
      const index = yield* newIndex(s.dir)
      yield* importOnce(s.policy, index, s.plan)
      const before = yield* shown(index)
      const counts = yield* Effect.flatMap(Index, (i) => i.counts).pipe(Effect.provide(indexLayer(index)))

      rewriteInPlace(s.file, (t) => t.replace("oldword", "newword"))
      const killed = yield* Effect.exit(importOnce(s.policy, index, s.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")

      // Claude Code deleted the log (cleanupPeriodDays) before the next run.
      fs.rmSync(s.file)
      const report = yield* importOnce(s.policy, index, s.plan)
      expect(report.sources.gone).toBe(1)
      expect(yield* shown(index)).toEqual(before)
      // Nothing of the unfinished generation is left behind.
      expect(yield* Effect.flatMap(Index, (i) => i.counts).pipe(Effect.provide(indexLayer(index)))).toEqual(counts)

      // The file back as it was changed: imported as the new generation, complete.
      fs.writeFileSync(s.file, log("newword"))
      yield* importOnce(s.policy, index, s.plan)
      expect(yield* shown(index)).toEqual({ ...before, oldword: 0, newword: 2 })
    }))
})

describe("a push while a new generation is imported locally", () => {
  it.effect("carries none of it: the team index keeps the old generation whole until the local one is complete", () =>
    Effect.gen(function*() {
      const s = setup()
      const local = path.join(s.dir, "local.db")
      const url = yield* migratedDatabase
      yield* importOnce(s.policy, local, s.plan)
      yield* push(local, url, "m1")
      const before = yield* shown(url)
      expect(before).toEqual(yield* shown(local))

      rewriteInPlace(s.file, (t) => t.replace("oldword", "newword"))
      const killed = yield* Effect.exit(importOnce(s.policy, local, s.plan, crashAt("after-commit", 1)))
      expect(killed._tag).toBe("Failure")
      // the import was killed (no live import holds the index's lock): `stopped`, not `inProgress` (tester33b F5)
      const p = yield* push(local, url, "m1")
      expect([p.sources.stopped, p.sources.inProgress, p.sources.pushed, p.eventsAdded]).toEqual([1, 0, 0, 0])
      expect(yield* shown(url)).toEqual(before)

      yield* importOnce(s.policy, local, s.plan)
      const done = yield* push(local, url, "m1")
      expect([done.sources.pushed, done.sources.newGenerations]).toEqual([1, 1])
      expect(yield* shown(url)).toEqual({ ...before, oldword: 0, newword: 2 })
    }))
})
