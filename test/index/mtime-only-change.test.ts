/**
 * A `touch` of an imported source (the same bytes, a new mtime; tester27b F6):
 * the next import counts it unchanged, not "1 imported, 0 events", for the
 * line-log providers (Claude Code, Muse Code native, Muse agents), and writes
 * nothing to the index (docs/import.md "Re-import of unchanged sources").
 * A Muse Code export (one JSON document) too, since session 28: the digest of
 * the whole document its import stored (in its checkpoint's cursor) is
 * compared with the file's (it was read again: "1 imported, 0 events").
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { agentsFixtureCopy, claudeFixtureCopy, museNativeRoot } from "../support/source-roots.js"
import { nativeSessionPath } from "../../bench/generate/native.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const sha = (f: string) => createHash("sha256").update(fs.readFileSync(f)).digest("hex")

interface Case {
  readonly name: string
  /** The source file to touch, and the import arguments besides `--index` (every other root empty). */
  readonly make: () => { readonly file: string; readonly args: ReadonlyArray<string> }
}

const none = (dir: string) => {
  const p = nodePath.join(dir, "empty")
  fs.mkdirSync(p, { recursive: true })
  return p
}

const cases: ReadonlyArray<Case> = [
  {
    name: "Claude Code",
    make: () => {
      const c = claudeFixtureCopy()
      const root = nodePath.dirname(nodePath.dirname(c.file))
      return { file: c.file, args: ["--claude-root", root, "--agents-root", none(c.dir), "--muse-root", none(c.dir), "--workspace", c.dir] }
    }
  },
  {
    name: "Muse Code native",
    make: () => {
      const m = museNativeRoot(1)
      const file = nativeSessionPath(m.root, 0)
      return { file, args: ["--muse-root", m.root, "--agents-root", none(m.dir), "--claude-root", none(m.dir), "--workspace", m.ws] }
    }
  },
  {
    name: "Muse Code export",
    make: () => {
      const dir = tempDir()
      const ws = nodePath.join(dir, "ws")
      fs.mkdirSync(ws)
      const file = nodePath.join(ws, "orderly.json")
      fs.copyFileSync(nodePath.join(fixturesDir, "muse-code/export/orderly.json"), file)
      return { file, args: ["--agents-root", none(dir), "--claude-root", none(dir), "--workspace", ws, file] }
    }
  },
  {
    name: "Muse agents",
    make: () => {
      const a = agentsFixtureCopy()
      return { file: a.file, args: ["--agents-root", a.root, "--muse-root", none(a.dir), "--claude-root", none(a.dir), "--workspace", a.dir] }
    }
  }
]

/** A new index with `args` imported once (every source accepted); `run` imports again and answers the counts. */
const importedOnce = (args: ReadonlyArray<string>) => {
  const index = nodePath.join(tempDir(), "idx.db")
  const run = () => {
    const out = cli(["import", "--index", index, "--json", ...args], { env })
    expect([0, 8]).toContain(out.code)
    const data = JSON.parse(out.stdout).data
    return { ...data.sources, events: data.eventsAdded } as { discovered: number; accepted: number; unchanged: number; rejected: number; events: number }
  }
  const first = run()
  expect(first.discovered).toBeGreaterThan(0)
  expect(first).toMatchObject({ accepted: first.discovered, unchanged: 0, rejected: 0 })
  return { index, run, first }
}

describe.each(cases)("a touch of an imported $name source", ({ make }) => {
  it("is counted unchanged and writes nothing", () => {
    const { file, args } = make()
    const { index, run, first } = importedOnce(args)
    expect(first.events).toBeGreaterThan(0)
    const before = sha(index)
    const st = fs.statSync(file)
    const later = new Date(st.mtimeMs + 5_000)
    fs.utimesSync(file, later, later)
    expect(fs.statSync(file).mtimeMs).not.toBe(st.mtimeMs)
    expect(run()).toMatchObject({ accepted: 0, unchanged: first.discovered, rejected: 0, events: 0 })
    expect(sha(index)).toBe(before)
  })
})

describe.each(cases)("an imported $name source put in place anew with the same bytes (tester39 F9)", ({ make }) => {
  it("(a copy moved over it: a new inode) is counted unchanged and writes nothing; the same size with other bytes is read again", () => {
    const { file, args } = make()
    const { index, run, first } = importedOnce(args)
    const before = sha(index)
    const ino = fs.statSync(file).ino
    const copy = `${file}.copy`
    fs.copyFileSync(file, copy)
    fs.renameSync(copy, file)
    expect(fs.statSync(file).ino).not.toBe(ino)
    expect(run()).toMatchObject({ accepted: 0, unchanged: first.discovered, rejected: 0, events: 0 })
    expect(sha(index)).toBe(before)
    // the same size, one byte other (a letter of the text for another), put in place anew: read again
    const bytes = fs.readFileSync(file)
    const at = bytes.lastIndexOf(0x65) // an "e" of the last record
    expect(at).toBeGreaterThan(0)
    bytes[at] = 0x61
    fs.writeFileSync(copy, bytes)
    fs.renameSync(copy, file)
    expect(run().unchanged).toBe(first.discovered - 1)
  })
})

describe("a Muse Code export whose bytes changed, size and inode kept", () => {
  it("is read again (its digest differs): not counted unchanged", () => {
    const dir = tempDir()
    const ws = nodePath.join(dir, "ws")
    fs.mkdirSync(ws)
    const file = nodePath.join(ws, "orderly.json")
    fs.copyFileSync(nodePath.join(fixturesDir, "muse-code/export/orderly.json"), file)
    const args = ["--agents-root", none(dir), "--claude-root", none(dir), "--workspace", ws, file]
    const index = nodePath.join(tempDir(), "idx.db")
    const run = () => {
      const out = cli(["import", "--index", index, "--json", ...args], { env })
      expect([0, 8]).toContain(out.code)
      return JSON.parse(out.stdout).data.sources as { accepted: number; unchanged: number }
    }
    expect(run()).toMatchObject({ accepted: 1, unchanged: 0 })
    // One byte of white space changed in place (a space for a newline, or back): same size, same inode, other bytes.
    const bytes = fs.readFileSync(file)
    const at = bytes.indexOf(0x0a)
    expect(at).toBeGreaterThan(0)
    bytes[at] = 0x20
    const fd = fs.openSync(file, "r+")
    fs.writeSync(fd, bytes, 0, bytes.length, 0)
    fs.closeSync(fd)
    expect(run()).toMatchObject({ accepted: 1, unchanged: 0 })
  })
})
