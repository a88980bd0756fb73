/**
 * One I/O path (issue 12, item 4): what the importer and the providers learn
 * of a source's files beside reading them (the nested logs a source is read
 * from, and the stats its fingerprint is made of) comes through
 * `SourceAccess`, so a test layer sees and answers every such look. Here a
 * test layer shows files that are not on disk: the fingerprint and the
 * listings can only hold them if they asked it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { nestedLogPaths } from "../src/layers/muse-code/native-source.js"
import { subagentPaths } from "../src/layers/claude-code/source.js"
import { fingerprintOf } from "../src/layers/index/importer.js"
import { SYNC_COPY_MAX_BYTES, sourceAccessNode } from "../src/layers/SourceAccessNode.js"
import { type DirEntry, type FileStat, SourceAccess, type SourceAccessShape } from "../src/services/SourceAccess.js"
import Database from "better-sqlite3"
import * as Layer from "effect/Layer"
import * as Sources from "../src/layers/sources.js"
import { AccessPolicy } from "../src/services/AccessPolicy.js"
import { ImportLimits } from "../src/services/ImportLimits.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { CURRENT, storeFiles, UID } from "./agentmux/fixture.js"
import { appendBytes, createStore } from "./agentmux/store-helper.js"
import { tempDir } from "./support/paths.js"

const STAT: FileStat = { size: 7, mtimeMs: 1000, birthtimeMs: 900, ctimeMs: 1100, dev: 1, ino: 42 }

/** The Node layer, plus files and folders only this layer knows of; every look is recorded. */
const withVirtual = (files: ReadonlyArray<string>, dirs: Record<string, ReadonlyArray<DirEntry>>) => {
  const looked: Array<string> = []
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    probe: (p) => {
      looked.push(p)
      if (files.includes(p)) return Effect.succeed(Option.some({ kind: "file" as const, stat: STAT }))
      if (p in dirs) return Effect.succeed(Option.some({ kind: "directory" as const, stat: STAT }))
      return sourceAccessNode.probe(p)
    },
    listDirectory: (d) => {
      looked.push(d)
      return d in dirs ? Effect.succeed(dirs[d]) : sourceAccessNode.listDirectory(d)
    }
  }
  return { access, looked }
}

describe("one I/O path", () => {
  it.effect("Claude Code: a session's subagent files are listed through SourceAccess, and the fingerprint stats them there", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const log = path.join(dir, "s1.jsonl")
      fs.writeFileSync(log, "{}\n")
      const subagents = path.join(dir, "s1", "subagents")
      const agent = path.join(subagents, "agent-abc.jsonl")
      const { access, looked } = withVirtual([agent], {
        [subagents]: [{ name: "agent-abc.jsonl", kind: "file" }, { name: "notes.txt", kind: "file" }]
      })
      const parts = yield* subagentPaths(access, log)
      expect(parts).toEqual([agent])
      const fp = yield* fingerprintOf(access, { locatorClass: "claude-code-session-log", path: log }, parts)
      expect(fp).toMatch(/\+part:agent-abc\.jsonl=7:1000:42:900:1100$/)
      expect(looked).toContain(subagents)
      expect(looked).toContain(log)
    }))

  it.effect("Muse Code native: nested logs are found through SourceAccess; one that is gone is `gone` in the fingerprint", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const log = path.join(dir, "session.jsonl")
      fs.writeFileSync(log, "{}\n")
      const sub = path.join(dir, "subagent")
      const child = path.join(sub, "child-1", "session.jsonl")
      const { access } = withVirtual([child], {
        [sub]: [{ name: "child-1", kind: "directory" }, { name: "child-2", kind: "directory" }, { name: "x", kind: "file" }]
      })
      const parts = yield* nestedLogPaths(access, log)
      expect(parts).toEqual([child]) // child-2 has no session.jsonl
      const fp = yield* fingerprintOf(access, { locatorClass: "muse-native-session-log", path: log }, [child, path.join(sub, "child-3", "session.jsonl")])
      expect(fp).toMatch(/\+part:child-1=7:1000:42:900:1100\+part:child-3=gone$/)
    }))

  it.effect("a folder that cannot be listed gives no parts, never an error", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const log = path.join(dir, "s2.jsonl")
      expect(yield* subagentPaths(sourceAccessNode, log)).toEqual([])
      expect(yield* nestedLogPaths(sourceAccessNode, log)).toEqual([])
      expect(yield* fingerprintOf(sourceAccessNode, { locatorClass: "claude-code-session-log", path: log }, [])).toBeNull()
    }))
})

describe("SourceAccess.copyTo", () => {
  it.effect("copies a regular file to a new file; never over an existing one, never a symlink or a folder", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const src = path.join(dir, "store.db")
      fs.writeFileSync(src, "bytes of a store")
      const dest = path.join(dir, "copy.db")
      yield* sourceAccessNode.copyTo(src, dest)
      expect(fs.readFileSync(dest, "utf8")).toBe("bytes of a store")
      fs.writeFileSync(dest, "mine")
      const over = yield* Effect.flip(sourceAccessNode.copyTo(src, dest))
      expect(over.code).toBeDefined()
      expect(fs.readFileSync(dest, "utf8")).toBe("mine") // never overwritten
      fs.symlinkSync(src, path.join(dir, "link.db"))
      expect((yield* Effect.flip(sourceAccessNode.copyTo(path.join(dir, "link.db"), path.join(dir, "c2.db")))).code).toBe("SOURCE_SYMLINK")
      expect((yield* Effect.flip(sourceAccessNode.copyTo(dir, path.join(dir, "c3.db")))).code).toBe("SOURCE_NOT_REGULAR_FILE")
      expect(fs.existsSync(path.join(dir, "c2.db")) || fs.existsSync(path.join(dir, "c3.db"))).toBe(false)
    }))

  it("copies a file up to SYNC_COPY_MAX_BYTES in one synchronous step (no thread-pool round trip: a rescan's -wal), a longer one as before", () => {
    const dir = tempDir()
    const small = path.join(dir, "small.db-wal")
    const big = path.join(dir, "big.db")
    const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff))
    fs.writeFileSync(small, bytes(SYNC_COPY_MAX_BYTES, 1))
    fs.writeFileSync(big, bytes(SYNC_COPY_MAX_BYTES + 1, 2))
    // runSync throws on an effect that waits for a promise (the thread-pool copy).
    Effect.runSync(sourceAccessNode.copyTo(small, path.join(dir, "small-copy")))
    expect(fs.readFileSync(path.join(dir, "small-copy")).equals(fs.readFileSync(small))).toBe(true)
    fs.writeFileSync(path.join(dir, "taken"), "mine")
    const over = Effect.runSync(Effect.flip(sourceAccessNode.copyTo(small, path.join(dir, "taken"))))
    expect(over.code).toBe("SOURCE_NOT_AUTHORIZED") // as the thread-pool copy answers EEXIST
    expect(fs.readFileSync(path.join(dir, "taken"), "utf8")).toBe("mine") // never overwritten
    expect(() => Effect.runSync(sourceAccessNode.copyTo(big, path.join(dir, "big-copy")))).toThrow()
    return Effect.runPromise(sourceAccessNode.copyTo(big, path.join(dir, "big-copy2"))).then(() => {
      expect(fs.readFileSync(path.join(dir, "big-copy2")).equals(fs.readFileSync(big))).toBe(true)
    })
  })

  it.effect("AgentMux reads a WAL store from a private copy made through SourceAccess (its store and its -wal)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = path.join(dir, "store", "filestore.db")
      fs.mkdirSync(path.dirname(store))
      createStore(store, storeFiles(), { wal: true })
      const writer = new Database(store)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        appendBytes(writer, CURRENT, "output", Buffer.from(""))
        const copied: Array<string> = []
        const access: SourceAccessShape = {
          ...sourceAccessNode,
          copyTo: (from, to) => {
            copied.push(from)
            return sourceAccessNode.copyTo(from, to)
          }
        }
        const base = Layer.mergeAll(
          AccessPolicy.layer({ agentmuxStore: store, stateFile: path.join(dir, "state.db") }),
          ImportLimits.layer({}),
          Layer.succeed(SourceAccess, access)
        )
        const r = yield* Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
          Effect.flatMap((a) => a.discover({ agentId: UID })),
          Effect.provide(Sources.layer.pipe(Layer.provide(base)))
        )
        expect(r.sources.length).toBeGreaterThan(0)
        expect(copied).toContain(store)
        expect(copied).toContain(`${store}-wal`)
      } finally {
        writer.close()
      }
    }))
})
