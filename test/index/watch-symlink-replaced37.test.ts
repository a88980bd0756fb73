/**
 * `import --watch` over a session log that is a symlink when the watch starts (skipped, not followed), then replaced
 * by the file itself under the same name: the file waited for the 60-second poll (tester36a F8), as neither Node 20's
 * recursive watcher nor the fallback scan (`DirScan`, which reported only new names) saw a change. The fallback scan
 * now reports an entry whose kind changed under the same name, so the file is imported at its change. The poll is
 * 60 s, so a limit of 30 s tells a change round from the poll even on 2 loaded cores (as watch-recheck29).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { DirScan } from "../../src/layers/index/dir-scan.js"
import { tempDir } from "../support/paths.js"
import { setup, startWatch, stop, until } from "../support/watch-cli.js"

describe("an entry replaced under the same name by another kind (tester36a F8)", () => {
  it("DirScan: a symlink replaced by a file, a file by a folder (and what is in it) are news; the same kind is not", () => {
    const root = path.join(tempDir("si-dirscan37-"), "projects")
    fs.mkdirSync(path.join(root, "-p"), { recursive: true })
    const target = path.join(root, "..", "target.jsonl")
    fs.writeFileSync(target, "{}\n")
    const log = path.join(root, "-p", "s.jsonl")
    const other = path.join(root, "-p", "t.jsonl")
    fs.symlinkSync(target, log)
    fs.writeFileSync(other, "{}\n")
    const scan = new DirScan()
    scan.setRoots([root])
    expect(scan.tick()).toEqual([])
    fs.rmSync(log)
    fs.copyFileSync(target, log)
    fs.rmSync(other)
    fs.mkdirSync(other)
    fs.writeFileSync(path.join(other, "inner.jsonl"), "{}\n")
    // The folder's mtime must move for the look: entries changed within the same millisecond are still seen by a
    // later tick once it does (set it forward).
    const later = new Date(Date.now() + 5_000)
    fs.utimesSync(path.join(root, "-p"), later, later)
    expect(scan.tick().sort()).toEqual([log, other, path.join(other, "inner.jsonl")].sort())
    // A file replaced by a file (same kind): no news from the scan (fs.watch sees that one).
    fs.rmSync(log)
    fs.writeFileSync(log, "{}\n")
    const later2 = new Date(Date.now() + 10_000)
    fs.utimesSync(path.join(root, "-p"), later2, later2)
    expect(scan.tick()).toEqual([])
  })

  it.live("import --watch: a transcript that is a symlink at the start, replaced by its file, is imported at its change", () =>
    Effect.gen(function*() {
      const s = setup(2)
      const away = path.join(s.dir, "away.jsonl")
      fs.renameSync(s.file, away)
      fs.symlinkSync(away, s.file)
      const w = startWatch(s.args(s.index))
      const events = () => w.rounds.reduce((n, r) => n + r.eventsAdded, 0)
      yield* until(() => w.rounds.length >= 1, 30_000)
      expect(w.rounds[0].coverage).toBe("partial")
      yield* Effect.sleep("1500 millis") // past a first import's follow-up round
      expect(events()).toBe(0)
      fs.rmSync(s.file)
      fs.copyFileSync(away, s.file)
      yield* until(() => events() >= 2, 30_000)
      expect(events()).toBe(2)
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)
})
