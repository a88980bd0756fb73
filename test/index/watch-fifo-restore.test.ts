/**
 * `import --watch`: a Muse Code log replaced by a fifo, then put back as a
 * regular file (tester27b F10). The fifo's round reports it
 * (SOURCE_NOT_REGULAR_FILE); the file written back is a change like any other
 * and makes a round at once (docs/import.md: "a source a round could not read
 * is looked at again at its next change"), not at the 60-second poll.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { nativeSessionPath } from "../../bench/generate/native.js"
import { appendNextNativeRecord, museNativeRoot } from "../support/source-roots.js"
import { startWatch, stop, until } from "../support/watch-cli.js"

describe("import --watch: a log replaced by a fifo and put back", () => {
  it.live("the file put back is imported at its change, well before the poll", () =>
    Effect.gen(function*() {
      const m = museNativeRoot(1)
      const file = nativeSessionPath(m.root, 0)
      const saved = path.join(m.dir, "saved.jsonl")
      fs.copyFileSync(file, saved)
      appendNextNativeRecord(saved) // what is put back: one record more
      const empty = path.join(m.dir, "empty")
      fs.mkdirSync(empty)
      const args = ["import", "--index", path.join(m.dir, "idx.db"), "--muse-root", m.root, "--agents-root", empty, "--claude-root", empty, "--workspace", m.ws, "--json"]
      const w = startWatch(args)
      const events = () => w.rounds.reduce((n, r) => n + r.eventsAdded, 0)
      yield* until(() => w.rounds.length >= 1 && events() > 0)
      const imported = events()
      // Past the follow-up round of a first import, if any.
      yield* Effect.sleep("1500 millis")
      const before = w.rounds.length
      fs.rmSync(file)
      execFileSync("mkfifo", [file])
      yield* until(() => w.rounds.slice(before).some((r) => r.causes.includes("SOURCE_NOT_REGULAR_FILE")), 30_000)
      const fifoRounds = w.rounds.length
      fs.rmSync(file)
      fs.copyFileSync(saved, file)
      // The 60-second poll would be far later: 30 s is generous for a change round (spaced at least 500 ms) even on 2
      // loaded cores (10 s was missed once under the full suite), and still well short of the poll.
      yield* until(() => events() >= imported + 1, 30_000)
      expect(events()).toBe(imported + 1)
      expect(w.rounds.length).toBeGreaterThan(fifoRounds)
      expect(w.rounds[w.rounds.length - 1].causes).not.toContain("SOURCE_NOT_REGULAR_FILE")
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)
})
