/**
 * `import --watch` through the CLI bundle, as users run it: one JSON envelope
 * per round, memory that does not grow with the number of appends, and a
 * SIGTERM in the middle of a round that leaves an index a plain `import`
 * completes to the content of a fresh import (nothing twice).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { dumpIndex } from "../support/index.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

describe("import --watch (CLI)", () => {
  it.live("a named workspace that is not a folder: every round partial, WORKSPACE_NOT_FOUND, as the plain import (tester22a F1)", () =>
    Effect.gen(function*() {
      const s = setup(3)
      const missing = path.join(s.dir, "no-such-workspace")
      const args = [...s.args(s.index), "--workspace", missing]
      const w = startWatch(args)
      yield* until(() => w.rounds.length >= 1)
      fs.appendFileSync(s.file, item(4, "appended"))
      yield* until(() => w.rounds.reduce((n, r) => n + r.eventsAdded, 0) >= 4)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      expect(w.rounds.length).toBeGreaterThanOrEqual(2)
      for (const r of w.rounds) {
        expect(r.coverage).toBe("partial")
        expect(r.causes).toContain("WORKSPACE_NOT_FOUND")
      }
      // Its text line says so too.
      const t = startWatch(args.filter((a) => a !== "--json"))
      yield* until(() => /round 1 .*partial \([^)]*WORKSPACE_NOT_FOUND/.test(t.stdout()))
      expect(yield* stop(t.child, t.exited)).toBe(130)
    }), 60_000)

  it.live("memory does not grow with the appends: thousands of appends, RSS compared after a warm-up and at the end", () =>
    Effect.gen(function*() {
      const s = setup(10)
      // A 64 MiB old space: V8 collects instead of growing its heap lazily, so what grows is what is kept.
      const w = startWatch(s.args(s.index), { NODE_OPTIONS: "--max-old-space-size=64" })
      yield* until(() => w.rounds.length >= 1)
      const total = (k: number) => w.rounds.reduce((n, r) => n + r.eventsAdded, 0) >= k
      let seq = 10
      /** `n` times: 25 appends (one line each), then wait until the index has them (a round each, or a few). */
      const burst = (n: number) =>
        Effect.gen(function*() {
          for (let b = 0; b < n; b++) {
            for (let i = 0; i < 25; i++) fs.appendFileSync(s.file, item(++seq, `appended ${seq} ${"x".repeat(200)}`))
            yield* until(() => total(seq))
          }
        })
      yield* burst(30) // 750 appends: warm-up
      const warm = w.rounds[w.rounds.length - 1].rssBytes
      const warmRounds = w.rounds.length
      yield* burst(120) // 3,000 more
      const end = w.rounds[w.rounds.length - 1].rssBytes
      expect(w.rounds.length - warmRounds).toBeGreaterThan(20) // many rounds, not one
      process.stderr.write(`watch RSS: ${(warm / 2 ** 20).toFixed(1)} MiB after ${warmRounds} rounds, ${(end / 2 ** 20).toFixed(1)} MiB after ${w.rounds.length}\n`)
      expect(end - warm).toBeLessThan(16 * 1024 * 1024)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const dump = yield* dumpIndex(s.index)
      expect(dump.events.length).toBe(seq)
    }), 120_000)

  it.live("SIGTERM in the middle of a round: the index is consistent, a plain import completes it, nothing twice", () =>
    Effect.gen(function*() {
      const s = setup(10)
      const w = startWatch(s.args(s.index))
      yield* until(() => w.rounds.length >= 1)
      yield* Effect.sleep("700 millis") // the follow-up round once the folders are watched
      const walBefore = fs.statSync(`${s.index}-wal`, { throwIfNoEntry: false })?.size ?? 0
      let text = ""
      for (let i = 11; i <= 40_010; i++) text += item(i, `appended ${i}`)
      fs.appendFileSync(s.file, text)
      // Mid-round: once the index has taken part of the append.
      yield* until(() => (fs.statSync(`${s.index}-wal`, { throwIfNoEntry: false })?.size ?? 0) > walBefore + 1024 * 1024, 60_000)
      expect(yield* stop(w.child, w.exited, "SIGTERM")).toBe(130)
      const mid = yield* dumpIndex(s.index)
      expect(mid.events.length).toBeLessThan(40_010)
      // Exit 8: the empty Claude Code root named makes coverage partial (CLAUDE_ROOT_EMPTY); nothing is rejected.
      expect(cli(s.args(s.index)).code).toBe(8)
      const fresh = path.join(s.dir, "fresh.db")
      expect(cli(s.args(fresh)).code).toBe(8)
      const got = yield* dumpIndex(s.index)
      const want = yield* dumpIndex(fresh)
      expect(got.events.length).toBe(40_010)
      expect(got.events).toEqual(want.events)
      expect(got.sessions).toEqual(want.sessions)
    }), 180_000)

  it.live("SIGHUP (the terminal closed): interrupted as by SIGTERM, exit 130, its lock removed, the index a plain import completes (tester39 F12)", () =>
    Effect.gen(function*() {
      const s = setup(3)
      const w = startWatch(s.args(s.index))
      yield* until(() => w.rounds.length >= 1)
      expect(yield* stop(w.child, w.exited, "SIGHUP")).toBe(130)
      expect(w.stderr()).toContain("session-ingest: INTERRUPTED: Interrupted; whatever was committed is consistent.")
      expect(fs.existsSync(`${s.index}.lock`)).toBe(false)
      fs.appendFileSync(s.file, item(4, "after the hangup"))
      expect(cli(s.args(s.index)).code).toBe(8)
      expect((yield* dumpIndex(s.index)).events.length).toBe(4)
    }), 60_000)

  it.live("a log imported before deleted under the watch: the text round line says it is gone, as --json does (tester39 F10)", () =>
    Effect.gen(function*() {
      const s = setup(3)
      // a second agent's transcript (a transcript's file is named after its agent)
      fs.mkdirSync(path.join(s.root, "a2", "sessions"), { recursive: true })
      const second = path.join(s.root, "a2", "sessions", "a2.jsonl")
      fs.writeFileSync(second, JSON.stringify({ type: "session_header", session_id: "s-2", agent_id: "a2", created_at: "2025-04-01T10:00:00Z" }) + "\n" + item(1, "second"))
      const w = startWatch(s.args(s.index).filter((a) => a !== "--json"))
      yield* until(() => /^round 1 [^\n]*\+2 sessions/m.test(w.stdout()))
      yield* Effect.sleep("700 millis") // the follow-up round once the folders are watched
      fs.unlinkSync(second)
      yield* until(() => / 1 gone \(kept in the index\)/.test(w.stdout()), 60_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const line = w.stdout().split("\n").find((l) => l.includes(" gone "))!
      expect(line).toMatch(/^round \d+ \w+ \([^)]*\): \+0 sessions, \+0 events; 0 imported, 1 unchanged, 1 gone \(kept in the index\); /)
    }), 90_000)

  it.live("the index deleted under the watch: exit 6, STORE_UNAVAILABLE naming the index", () =>
    Effect.gen(function*() {
      const s = setup(3)
      const w = startWatch(s.args(s.index))
      yield* until(() => w.rounds.length >= 1)
      yield* Effect.sleep("700 millis")
      fs.unlinkSync(s.index)
      fs.appendFileSync(s.file, item(4, "after the index went"))
      const code = yield* Effect.promise(() => w.exited).pipe(Effect.timeout("10 seconds"))
      expect(code).toBe(6)
      expect(w.errors.map((e) => e.code)).toEqual(["STORE_UNAVAILABLE"])
      expect(w.errors[0].message).toContain(s.index)
    }), 60_000)

  it.live("a named Claude Code root that does not exist yet: unwatched, polled every 2 s, its session imported once created", () =>
    Effect.gen(function*() {
      const s = setup(3)
      const claude = path.join(s.dir, "claude-later")
      const args = ["import", "--index", s.index, "--agents-root", s.root, "--claude-root", claude, "--workspace", s.dir, "--json"]
      const w = startWatch(args)
      yield* until(() => w.rounds.length >= 1)
      expect(w.rounds[0].unwatched).toBeGreaterThan(0)
      const id = "11111111-2222-3333-4444-555555555555"
      fs.mkdirSync(path.join(claude, "-p"), { recursive: true })
      fs.writeFileSync(
        path.join(claude, "-p", `${id}.jsonl`),
        JSON.stringify({ type: "user", sessionId: id, uuid: "u1", timestamp: "2025-04-01T10:00:00Z", message: { role: "user", content: "prompt 1" } }) + "\n"
      )
      const n = w.rounds.length
      yield* until(() => w.rounds.slice(n).some((r) => r.eventsAdded > 0), 5_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 60_000)
})

describe("import --watch (CLI): named AgentMux paths", () => {
  for (const which of ["--agentmux-root", "--store"] as const) {
    it.live(`a missing ${which} counts as unwatched, is said in the round line, and is polled`, () =>
      Effect.gen(function*() {
        const s = setup(3)
        const missing = which === "--store" ? path.join(s.dir, "am-later", "filestore.db") : path.join(s.dir, "am-home-later")
        const args = ["import", "--index", s.index, "--agents-root", s.root, "--workspace", s.dir, which, missing, "--agent", "u1", "--json"]
        const w = startWatch(args)
        yield* until(() => w.rounds.length >= 1)
        expect(w.rounds[0].unwatched).toBeGreaterThan(0)
        // Polled every 2 s while missing: more full rounds come without any event.
        const n = w.rounds.length
        yield* until(() => w.rounds.length >= n + 2, 8_000)
        expect(yield* stop(w.child, w.exited)).toBe(130)
        const human = spawnSync(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args.filter((a) => a !== "--json"), "--watch"], {
          encoding: "utf8",
          timeout: 4_000
        })
        expect(human.stdout).toMatch(/polled, not watched/)
      }), 60_000)
  }
})
