/**
 * The watch's fallback scan (src/layers/index/dir-scan.ts): every entry that
 * appears under a root after its baseline is found by the next tick, in an
 * existing subfolder, in a new folder (and what is in it), or beside an
 * existing file; nothing already there is news; a tick's work is bounded.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { DirScan } from "../../src/layers/index/dir-scan.js"
import { tempDir } from "../support/paths.js"

const touch = (p: string, text = "{}\n") => {
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
}

describe("DirScan", () => {
  it("finds new entries anywhere under a root, and nothing of the baseline", () => {
    const root = path.join(tempDir(), "sessions")
    touch(path.join(root, "2026", "01", "02", "s1", "session.jsonl"))
    touch(path.join(root, "-proj", "a.jsonl"))
    touch(path.join(root, "-proj", "a", "subagents", "agent-1.jsonl"))
    const scan = new DirScan()
    scan.setRoots([root])
    expect(scan.tick()).toEqual([])
    // In an existing dated folder; in a new dated folder; a subagent log beside an existing one; a new session beside one.
    touch(path.join(root, "2026", "01", "02", "s2", "session.jsonl"))
    touch(path.join(root, "2026", "01", "03", "s3", "session.jsonl"))
    touch(path.join(root, "-proj", "a", "subagents", "agent-2.jsonl"))
    touch(path.join(root, "-proj", "b.jsonl"))
    const found = scan.tick()
    for (
      const p of [
        path.join(root, "2026", "01", "02", "s2", "session.jsonl"),
        path.join(root, "2026", "01", "03", "s3", "session.jsonl"),
        path.join(root, "-proj", "a", "subagents", "agent-2.jsonl"),
        path.join(root, "-proj", "b.jsonl")
      ]
    ) expect(found).toContain(p)
    expect(found).not.toContain(path.join(root, "-proj", "a.jsonl"))
    expect(scan.tick()).toEqual([])
    // A deleted folder is forgotten; created again, it is news again.
    fs.rmSync(path.join(root, "2026", "01", "03"), { recursive: true })
    expect(scan.tick()).toEqual([])
    touch(path.join(root, "2026", "01", "03", "s3", "session.jsonl"))
    expect(scan.tick()).toContain(path.join(root, "2026", "01", "03", "s3", "session.jsonl"))
  })

  it("a root added later is a baseline, not news; folders beyond the bound are not remembered", () => {
    const a = path.join(tempDir(), "a")
    touch(path.join(a, "x", "y", "old.jsonl"))
    const scan = new DirScan({ maxDirs: 3 })
    scan.setRoots([a])
    expect(scan.size).toBe(3)
    expect(scan.tick()).toEqual([])
  })

  it("a tick stats at most perTick cold folders, and a later tick reaches the rest", () => {
    const root = path.join(tempDir(), "r")
    const old = new Date(Date.now() - 3 * 24 * 3600_000)
    for (let i = 0; i < 10; i++) touch(path.join(root, "a", "b", `c${i}`, "f.jsonl"))
    for (let i = 0; i < 10; i++) fs.utimesSync(path.join(root, "a", "b", `c${i}`), old, old)
    const scan = new DirScan({ perTick: 3 + 4 })
    scan.setRoots([root])
    touch(path.join(root, "a", "b", "c7", "g.jsonl"))
    fs.utimesSync(path.join(root, "a", "b", "c7"), new Date(old.getTime() + 1000), new Date(old.getTime() + 1000))
    const seen: Array<string> = []
    for (let k = 0; k < 4 && !seen.includes(path.join(root, "a", "b", "c7", "g.jsonl")); k++) seen.push(...scan.tick())
    expect(seen).toContain(path.join(root, "a", "b", "c7", "g.jsonl"))
  })
})
