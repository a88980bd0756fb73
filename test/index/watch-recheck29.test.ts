/**
 * `import --watch`: a path a full round found to be no source is not looked
 * at again for a while (`WatchOptions.recheck`, 10 s), so that a noisy file
 * beside the sources cannot keep discovery running. Session 29 (tester29a F2,
 * F3): that window also swallowed the change that made the path a source:
 * - a new transcript created empty, then written (how writers create files):
 *   the round of the creation saw no session, and the write started no round;
 *   the session waited for the 60-second poll;
 * - a transcript replaced by a symlink (its round: skipped, gone), then put
 *   back and appended to: no round until the poll.
 * docs/import.md ("New folders under a watch"): a new session starts a round
 * within about a second; a file put back is watched again. The poll is 60 s,
 * so a limit of 30 s tells a change round from the poll even on 2 loaded cores.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

const header = (sid: string, agent: string) =>
  JSON.stringify({ type: "session_header", session_id: sid, agent_id: agent, created_at: "2025-04-01T10:00:00Z" }) + "\n"

/**
 * A watch over a transcript of two items, once its first import (both events) and that import's follow-up round
 * are past: the watch, its events added so far, and its rounds' count then.
 */
const watching = Effect.gen(function*() {
  const s = setup(2)
  const w = startWatch(s.args(s.index))
  const events = () => w.rounds.reduce((n, r) => n + r.eventsAdded, 0)
  yield* until(() => w.rounds.length >= 1 && events() === 2)
  yield* Effect.sleep("1500 millis") // past a first import's follow-up round
  return { s, w, events, before: w.rounds.length }
})

describe("import --watch: a path seen as no source, then made one (session 29)", () => {
  it.live("a transcript created empty and written right after is imported at its write, not at the poll (tester29a F2)", () =>
    Effect.gen(function*() {
      const { events, before, s, w } = yield* watching
      const dir = path.join(s.root, "a2", "sessions")
      fs.mkdirSync(dir, { recursive: true })
      const file = path.join(dir, "a2.jsonl")
      fs.writeFileSync(file, "")
      // The round of the empty file has run (or is running) before the write.
      yield* until(() => w.rounds.length > before, 30_000)
      fs.writeFileSync(file, header("s-2", "a2") + item(1, "the new session's first message"))
      yield* until(() => events() >= 3, 30_000)
      expect(events()).toBe(3)
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)

  it.live("a transcript replaced by a symlink, then put back and appended to, is imported at its change (tester29a F3)", () =>
    Effect.gen(function*() {
      const { events, before, s, w } = yield* watching
      const away = path.join(s.dir, "away.jsonl")
      fs.renameSync(s.file, away)
      fs.symlinkSync(away, s.file)
      // The symlink's round: the transcript is not read through it.
      yield* until(() => w.rounds.length > before, 30_000)
      const symlinkRounds = w.rounds.length
      yield* Effect.sleep("500 millis")
      fs.rmSync(s.file)
      fs.renameSync(away, s.file)
      fs.appendFileSync(s.file, item(3, "appended after it was put back"))
      yield* until(() => events() >= 3, 30_000)
      expect(events()).toBe(3)
      expect(w.rounds.length).toBeGreaterThan(symlinkRounds)
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)

  it.live("a transcript moved away, put back, and appended to after the round that saw it back, is imported at the append (tester29b F3)", () =>
    Effect.gen(function*() {
      const { events, before, s, w } = yield* watching
      const away = path.join(s.dir, "away.jsonl")
      fs.renameSync(s.file, away)
      // The round that finds it gone.
      yield* until(() => w.rounds.length > before, 30_000)
      yield* Effect.sleep("500 millis")
      const gone = w.rounds.length
      fs.renameSync(away, s.file)
      // The round that finds it back (unchanged: nothing to add), and its follow-up, if any.
      yield* until(() => w.rounds.length > gone, 30_000)
      yield* Effect.sleep("1500 millis")
      fs.appendFileSync(s.file, item(3, "appended once it was back"))
      yield* until(() => events() >= 3, 30_000)
      expect(events()).toBe(3)
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)
})
