/**
 * The watch's "no source" window (`WatchMemory.recentlyNoSource`, session 29):
 * a path a full round found to be no source makes no other full round for
 * `recheck`, unless it changed since the round took it; then one more, and
 * only one in that window, so a file written all the time (a `cli-*.log`
 * beside the logs) makes at most two full rounds a window (docs/import.md,
 * "Rounds").
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { pathStamp, WatchMemory } from "../../src/layers/index/watch.js"
import { tempDir } from "../support/paths.js"

const RECHECK = 10_000

describe("the watch's no-source window", () => {
  it("unchanged: quiet for the window; changed: one more round, then quiet again until the window ends", () => {
    const dir = tempDir()
    const noisy = path.join(dir, "cli-1.log")
    fs.writeFileSync(noisy, "a\n")
    const memory = new WatchMemory(undefined as never, 60_000)
    const t0 = 1_000_000
    memory.markNoSources(new Map([[noisy, pathStamp(noisy)]]), t0, new Set(), RECHECK)
    expect(memory.recentlyNoSource(noisy, t0 + 1, RECHECK)).toBe(true)
    fs.appendFileSync(noisy, "b\n")
    // Changed since the round took it: one more round.
    expect(memory.recentlyNoSource(noisy, t0 + 2, RECHECK)).toBe(false)
    // That round finds it no source again: the window goes on, and further writes are quiet.
    memory.markNoSources(new Map([[noisy, pathStamp(noisy)]]), t0 + 3, new Set(), RECHECK)
    fs.appendFileSync(noisy, "c\n")
    expect(memory.recentlyNoSource(noisy, t0 + 4, RECHECK)).toBe(true)
    expect(memory.recentlyNoSource(noisy, t0 + RECHECK - 1, RECHECK)).toBe(true)
    // The window over: a change makes a round as any.
    expect(memory.recentlyNoSource(noisy, t0 + RECHECK, RECHECK)).toBe(false)
    // A new window after that round.
    memory.markNoSources(new Map([[noisy, pathStamp(noisy)]]), t0 + RECHECK + 1, new Set(), RECHECK)
    expect(memory.recentlyNoSource(noisy, t0 + RECHECK + 2, RECHECK)).toBe(true)
  })

  it("a symlink put where the path was, or the path removed, is a change; a path never marked is not quiet", () => {
    const dir = tempDir()
    const p = path.join(dir, "s.jsonl")
    fs.writeFileSync(p, "")
    const memory = new WatchMemory(undefined as never, 60_000)
    memory.markNoSources(new Map([[p, pathStamp(p)]]), 5, new Set(), RECHECK)
    fs.rmSync(p)
    fs.symlinkSync(path.join(dir, "elsewhere"), p)
    expect(memory.recentlyNoSource(p, 6, RECHECK)).toBe(false)
    const q = path.join(dir, "gone.jsonl")
    fs.writeFileSync(q, "x")
    memory.markNoSources(new Map([[q, pathStamp(q)]]), 5, new Set(), RECHECK)
    fs.rmSync(q)
    expect(memory.recentlyNoSource(q, 6, RECHECK)).toBe(false)
    expect(memory.recentlyNoSource(path.join(dir, "never"), 6, RECHECK)).toBe(false)
    // A path the round named in a cause is never quiet.
    const named = path.join(dir, "fifo-here")
    memory.markNoSources(new Map([[named, "-"]]), 5, new Set([named]), RECHECK)
    expect(memory.recentlyNoSource(named, 6, RECHECK)).toBe(false)
  })
})
