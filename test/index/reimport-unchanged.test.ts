/**
 * Re-import of unchanged sources (issue 13, figure e; issue 17, g-reimport):
 * an unchanged source costs the stat that discovery takes of it and nothing
 * more. The importer's unchanged check fingerprints discovery's stat (no
 * second stat of the log), looks for no `-wal` beside a JSONL log (no
 * provider of JSONL logs reads SQLite), and never opens or reads the log.
 * The guarantee stays: a log rewritten in place with the same size and the
 * same mtime is still seen as changed (its ctime and the prefix digest).
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { appendRootTurn, nativeSessionPath, writeNativeRoot } from "../../bench/generate/native.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import * as Sources from "../../src/layers/sources.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { fingerprintOfStat } from "../../src/domain/fingerprint.js"
import { AccessPolicy } from "../../src/services/AccessPolicy.js"
import { type KnownSource, SessionSources } from "../../src/services/SessionSource.js"
import { ImportFaults, Importer, ImportProgress } from "../../src/services/Importer.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import { SourceAccess, type SourceAccessShape } from "../../src/services/SourceAccess.js"
import { isResolvedPath } from "../../src/layers/index/importer.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"

/** `n` native Muse Code sessions as the benchmark writes them, bound to one workspace; `n` Muse agents transcripts. */
const corpus = (n: number) => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const museRoot = path.join(dir, "muse")
  writeNativeRoot(museRoot, n, ws, 5)
  const agents = path.join(dir, "agents")
  for (let i = 0; i < n; i++) {
    const sessions = path.join(agents, `a${i}`, "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    fs.writeFileSync(
      path.join(sessions, `a${i}.jsonl`),
      JSON.stringify({ type: "session_header", session_id: `s-${i}`, agent_id: `a${i}`, created_at: "2025-04-01T10:00:00Z" }) + "\n" +
        JSON.stringify({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: `hi ${i}` }, created_at: "2025-04-01T10:00:01Z" }) + "\n"
    )
  }
  const policy = { workspaceRoots: [ws, agents], museRoots: [museRoot], agentsRoot: agents }
  const logs = (dir: string): Array<string> =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? logs(path.join(dir, e.name)) : e.name === "session.jsonl" ? [path.join(dir, e.name)] : []
    )
  return { dir, museRoot, policy, plan: planFromPolicy(policy, { batchSize: 50 }), index: path.join(dir, "index.db"), native: logs(museRoot) }
}

/** The index file's bytes (hex digest) and modification time, and the files SQLite leaves beside it. */
const fileState = (index: string) => ({
  digest: createHash("sha256").update(fs.readFileSync(index)).digest("hex"),
  mtimeMs: fs.statSync(index).mtimeMs,
  beside: fs.readdirSync(path.dirname(index)).filter((f) => f.startsWith(path.basename(index)) && f !== path.basename(index))
})

/** Whether the SQLite file's header says WAL mode (its read and write format versions, bytes 18 and 19, are 2). */
const walHeader = (file: string): boolean => {
  const h = fs.readFileSync(file).subarray(0, 20)
  return h[18] === 2 && h[19] === 2
}

/** One import through a `SourceAccess` that records every path it is asked about, and how. */
const recordedImport = (c: ReturnType<typeof corpus>) => {
  const looks: Array<{ readonly how: string; readonly path: string }> = []
  const note = (how: string, p: string) => looks.push({ how, path: p })
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    probe: (p) => (note("probe", p), sourceAccessNode.probe(p)),
    open: (f) => (note("open", f.path), sourceAccessNode.open(f)),
    readHead: (f, ...rest) => (note("readHead", f.path), sourceAccessNode.readHead(f, ...rest)),
    readWhole: (f, ...rest) => (note("readWhole", f.path), sourceAccessNode.readWhole(f, ...rest))
  }
  const base = Layer.mergeAll(AccessPolicy.layer(c.policy), ImportLimits.layer({}), Layer.succeed(SourceAccess, access))
  const app = Layer.provideMerge(Sources.layer, base)
  const layer = ImporterLayer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(app, IndexSqlite.layer(c.index), ImportFaults.none, ImportProgress.silent))
  )
  return Effect.flatMap(Importer, (i) => i.run(c.plan)).pipe(Effect.provide(layer), Effect.map((report) => ({ report, looks })))
}

describe("re-import of unchanged sources", () => {
  it.effect("each native log is stat-ed once (by discovery), never opened or read, and no -wal is looked for beside a JSONL log", () =>
    Effect.gen(function*() {
      const c = corpus(6)
      const first = yield* importOnce(c.policy, c.index, c.plan)
      expect(first.sources.accepted).toBe(12)
      const { report, looks } = yield* recordedImport(c)
      expect(report.sources.unchanged).toBe(12)
      expect(report.sources.accepted).toBe(0)
      expect(report.coverage).toBe("complete")
      for (const log of c.native) {
        expect(looks.filter((l) => l.path === log)).toEqual([{ how: "probe", path: log }])
        // Its nested logs' folder is looked for through the same layer (one I/O path), once.
        const sub = path.join(path.dirname(log), "subagent")
        expect(looks.filter((l) => l.path === sub)).toEqual([{ how: "probe", path: sub }])
      }
      expect(looks.filter((l) => l.path.endsWith("-wal"))).toEqual([])
    }))

  it.effect("an import that finds every source unchanged writes nothing to the index: its bytes and mtime stay, no -wal, -shm or -journal is left", () =>
    Effect.gen(function*() {
      const c = corpus(4)
      const first = yield* importOnce(c.policy, c.index, c.plan)
      expect(first.sources.accepted).toBe(8)
      const before = fileState(c.index)
      // A finished import leaves a rollback-journal file with nothing beside it.
      expect(walHeader(c.index)).toBe(false)
      expect(before.beside).toEqual([])
      // mtime of a write in the same clock tick would not show: wait past the file system's granularity.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 30)))
      const again = yield* importOnce(c.policy, c.index, c.plan)
      expect(again.sources.unchanged).toBe(8)
      expect(again.sources.accepted).toBe(0)
      expect(fileState(c.index)).toEqual(before)
    }))

  it.effect("an import that finds a source changed writes it in WAL mode (switched before its first write) and leaves the file in rollback-journal mode", () =>
    Effect.gen(function*() {
      const c = corpus(3)
      yield* importOnce(c.policy, c.index, c.plan)
      expect(walHeader(c.index)).toBe(false)
      appendRootTurn(c.museRoot, 0)
      // At each commit point of the re-import's writes, the file is in WAL mode.
      const seen: Array<boolean> = []
      const faults = Layer.succeed(ImportFaults, { at: () => Effect.sync(() => void seen.push(walHeader(c.index))) })
      const again = yield* importOnce(c.policy, c.index, c.plan, faults)
      expect(again.sources.accepted).toBe(1)
      expect(again.sources.unchanged).toBe(5)
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((w) => w)).toBe(true)
      expect(walHeader(c.index)).toBe(false)
      expect(fileState(c.index).beside).toEqual([])
      const third = yield* importOnce(c.policy, c.index, c.plan)
      expect(third.sources.unchanged).toBe(6)
    }))

  it("a locator path is kept as it is only when it is what nodePath.resolve makes of it", () => {
    const paths = [
      "/", "/a", "/a/b/session.jsonl", "/a/b/", "/a//b", "/a/./b", "/a/../b", "/a/b/.", "/a/b/..", "/.", "/..", "//a",
      "/a/.b/c", "/a/..b/c", "/a/b../c", "/a/b./c", "/a/...", "a/b", "./a", "../a", "", "/a\\b", "/ä/ö/session.jsonl", "/a/b/.hidden"
    ]
    for (const p of paths) {
      if (isResolvedPath(p)) expect(path.resolve(p)).toBe(p)
    }
    // Discovery's real paths (absolute, normalized) are kept as they are.
    for (const p of ["/a", "/a/b/session.jsonl", "/a/.b/c", "/a/..b/c", "/a/b../c", "/a/...", "/ä/ö/session.jsonl", "/a/b/.hidden"]) {
      expect(isResolvedPath(p)).toBe(path.sep === "/")
    }
  })

  it.effect("a log that changed by size or by a nested log that appeared beside it is not unchanged; one touched (mtime alone, same bytes) is opened and hashed, then unchanged; the others are", () =>
    Effect.gen(function*() {
      const c = corpus(5)
      expect(new Set([nativeSessionPath(c.museRoot, 0), c.native[1], c.native[2]]).size).toBe(3)
      const first = yield* importOnce(c.policy, c.index, c.plan)
      expect(first.sources.accepted).toBe(10)
      // session 0: appended to; the logs listed 1: touched (same bytes, later mtime); 2: a nested log's folder appeared beside it.
      const appended = nativeSessionPath(c.museRoot, 0)
      appendRootTurn(c.museRoot, 0)
      const later = fs.statSync(c.native[1]).mtimeMs / 1000 + 5
      fs.utimesSync(c.native[1], later, later)
      fs.mkdirSync(path.join(path.dirname(c.native[2]), "subagent", "child-1"), { recursive: true })
      fs.writeFileSync(path.join(path.dirname(c.native[2]), "subagent", "child-1", "session.jsonl"), "")
      const { report, looks } = yield* recordedImport(c)
      // 7 untouched + the touched log, whose bytes are hashed and match what was imported (docs/import.md: a change
      // of mtime or ctime alone with the same inode, size and bytes is unchanged; tester27b F6).
      expect(report.sources.unchanged).toBe(8)
      expect(report.sources.discovered).toBe(10)
      // Each changed or touched log is opened again (its prefix checked, then read on or hashed); no untouched one is.
      const opened = new Set(looks.filter((l) => l.how !== "probe").map((l) => l.path))
      for (const p of [appended, c.native[1], c.native[2]]) expect(opened.has(p)).toBe(true)
      expect(c.native.filter((p) => opened.has(p)).length).toBe(3)
      // And a third run finds everything unchanged again.
      const third = yield* importOnce(c.policy, c.index, c.plan)
      expect(third.sources.unchanged).toBe(10)
    }))


  it.effect("a log rewritten in place with the same size and the same mtime is still imported again as a new generation", () =>
    Effect.gen(function*() {
      const c = corpus(3)
      const log = c.native[1]
      // a whole second: what utimes sets again exactly
      const mtime = Math.floor(fs.statSync(log).mtimeMs / 1000) - 60
      fs.utimesSync(log, mtime, mtime)
      yield* importOnce(c.policy, c.index, c.plan)
      const before = fs.statSync(log)
      const text = fs.readFileSync(log, "utf8")
      // the same bytes but one: a letter of the first prompt's text changed, same length
      const at = text.indexOf("\"text\":\"") + 8
      expect(text[at]).toMatch(/^[a-z]$/i)
      const other = text[at] === "x" ? "y" : "x"
      fs.writeFileSync(log, text.slice(0, at) + other + text.slice(at + 1))
      fs.utimesSync(log, mtime, mtime)
      expect(fs.statSync(log).size).toBe(before.size)
      expect(fs.statSync(log).mtimeMs).toBe(before.mtimeMs)
      const again = yield* importOnce(c.policy, c.index, c.plan)
      expect(again.sources.unchanged).toBe(5)
      expect(again.sources.accepted).toBe(1)
      expect(again.sources.newGenerations).toBe(1)
    }))
  it.effect("native discovery hands the importer each unchanged log's nested logs (none for most, those listed beside one); a nested log added to an unchanged session is imported", () =>
    Effect.gen(function*() {
      const c = corpus(3)
      // Log 0 has a nested log before the first import; the others have none (nor a `subagent` folder).
      const nested = (i: number, child: string) => path.join(path.dirname(c.native[i]), "subagent", child, "session.jsonl")
      fs.mkdirSync(path.dirname(nested(0, "child-1")), { recursive: true })
      fs.writeFileSync(nested(0, "child-1"), "")
      const first = yield* importOnce(c.policy, c.index, c.plan)
      expect(first.sources.accepted).toBe(6)
      // What the importer hands discovery: each checkpointed log's fingerprint and summary, by path.
      const db = new Database(c.index, { readonly: true })
      const rows = db.prepare("SELECT locator_json, summary_json FROM sources WHERE provider = 'muse-code'").all() as Array<{ locator_json: string; summary_json: string }>
      db.close()
      const known = new Map<string, KnownSource>(rows.map((r) => {
        const p = (JSON.parse(r.locator_json) as { path: string }).path
        // The log's own stat: the part of the fingerprint discovery compares.
        return [p, { fingerprint: fingerprintOfStat(fs.lstatSync(p)), summary: JSON.parse(r.summary_json) as Record<string, unknown> }]
      }))
      expect(known.size).toBe(3)
      const base = Layer.mergeAll(AccessPolicy.layer(c.policy), ImportLimits.layer({}), Layer.succeed(SourceAccess, sourceAccessNode))
      const report = yield* Effect.flatMap(SessionSources, (r) => r.get("muse-code")).pipe(
        Effect.flatMap((adapter) => adapter.discover({ known })),
        Effect.provide(Layer.provideMerge(Sources.layer, base))
      )
      const partsOf = new Map(report.sources.map((s) => [s.locator.path, s.parts]))
      expect(partsOf.size).toBe(3)
      expect(partsOf.get(c.native[0])).toEqual([nested(0, "child-1")])
      expect(partsOf.get(c.native[1])).toEqual([])
      expect(partsOf.get(c.native[2])).toEqual([])
      // Unchanged, all of them; then a nested log added beside log 0 (which had one) and beside log 1 (which had none).
      const second = yield* importOnce(c.policy, c.index, c.plan)
      expect(second.sources.unchanged).toBe(6)
      fs.mkdirSync(path.dirname(nested(0, "child-2")), { recursive: true })
      fs.writeFileSync(nested(0, "child-2"), "")
      fs.mkdirSync(path.dirname(nested(1, "child-1")), { recursive: true })
      fs.writeFileSync(nested(1, "child-1"), "")
      const third = yield* importOnce(c.policy, c.index, c.plan)
      expect(third.sources.unchanged).toBe(4)
      expect(third.sources.discovered).toBe(6)
      const fourth = yield* importOnce(c.policy, c.index, c.plan)
      expect(fourth.sources.unchanged).toBe(6)
    }))
})
