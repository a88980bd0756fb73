/**
 * tester34a F2 (session 34): two `import --watch` on one index, a log appended to every fraction of a second. Each
 * watch's targeted round imports the growth it saw; a round that waited for the index's lock while the other watch
 * imported the same lines found nothing to add, and said `1 imported, +0 events`. docs/import.md: "each source is
 * reported imported by one of them; the other finds it `unchanged`". The rule, as a second writer between the rounds
 * (each `importOnce` a run of its own, as each watch is a process of its own): a targeted round (the source alone,
 * with the summary of an earlier discovery) over a file another round already imported as it is now reports it
 * unchanged, adds nothing; a growth past what the other imported is still imported; the next full round stores the
 * file's summary as ever.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Index } from "../../src/services/Index.js"
import type { ImportPlan } from "../../src/services/Importer.js"
import { claudeUserLine } from "../support/claude-import.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"

const SID = "36363636-1111-4222-8333-0000000000f2"

/** The log's `i`-th line: a prompt. */
const line = (i: number) =>
  JSON.stringify(claudeUserLine(SID, `u${i}`, null, `2026-12-06T00:00:${String(i % 60).padStart(2, "0")}.000Z`, `prompt number ${i}`)) + "\n"

const checkpointsOf = (index: string) =>
  Effect.map(Effect.flatMap(Index, (i) => i.checkpoints), (cs) => [...cs.values()]).pipe(Effect.provide(indexLayer(index)))

describe("two watches on one index: a targeted round the other watch overtook (tester34a F2)", () => {
  it.effect("reports the source unchanged with nothing added; a later growth is imported; a full round stores the summary", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-watch-overtaken36-")
      const root = nodePath.join(dir, "projects")
      fs.mkdirSync(nodePath.join(root, "-home-bob-two"), { recursive: true })
      const file = nodePath.join(root, "-home-bob-two", `${SID}.jsonl`)
      fs.writeFileSync(file, Array.from({ length: 10 }, (_, i) => line(i + 1)).join(""))
      const index = nodePath.join(dir, "index.db")
      const policy = { claudeRoot: root }
      const full: ImportPlan = { discover: [{ provider: "claude-code", request: {}, configured: true }], explicit: [], skipped: [] }
      const first = yield* importOnce(policy, index, full)
      expect([first.sources.accepted, first.eventsAdded]).toEqual([1, 10])
      const [earlier] = yield* checkpointsOf(index)
      // What each watch's targeted round imports: the source alone, with the summary its last full round found.
      const targeted: ImportPlan = {
        discover: [],
        explicit: [{ provider: "claude-code", locator: earlier.locator, summary: earlier.summary }],
        skipped: []
      }

      fs.appendFileSync(file, line(11) + line(12))
      // Both watches see the growth; one takes the lock and imports it...
      const one = yield* importOnce(policy, index, targeted)
      expect([one.sources.accepted, one.sources.unchanged, one.eventsAdded]).toEqual([1, 0, 2])
      // ...the other, its turn come, finds the file as the first one imported it: unchanged, nothing added.
      const other = yield* importOnce(policy, index, targeted)
      expect([other.sources.accepted, other.sources.unchanged, other.eventsAdded, other.coverage]).toEqual([0, 1, 0, "complete"])

      // A growth past what the other watch imported is this watch's to import.
      fs.appendFileSync(file, line(13))
      const again = yield* importOnce(policy, index, targeted)
      expect([again.sources.accepted, again.eventsAdded]).toEqual([1, 1])
      fs.appendFileSync(file, line(14))
      const mine = yield* importOnce(policy, index, targeted)
      expect([mine.sources.accepted, mine.sources.unchanged, mine.eventsAdded]).toEqual([1, 0, 1])

      // Each event once; the next full round stores the file's summary and reports the source unchanged.
      const round = yield* importOnce(policy, index, full)
      expect([round.sources.accepted, round.sources.unchanged, round.eventsAdded]).toEqual([0, 1, 0])
      const [now] = yield* checkpointsOf(index)
      expect([now.summary.lineCount, now.summary.sizeBytes]).toEqual([14, fs.statSync(file).size])
    }))
})
