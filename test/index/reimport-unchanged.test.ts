/**
 * Re-import of unchanged sources (issue 13, figure e; issue 17, g-reimport):
 * an unchanged source costs the stat that discovery takes of it and nothing
 * more. The importer's unchanged check fingerprints discovery's stat (no
 * second stat of the log), looks for no `-wal` beside a JSONL log (no
 * provider of JSONL logs reads SQLite), and never opens or reads the log.
 * The guarantee stays: a log rewritten in place with the same size and the
 * same mtime is still seen as changed (its ctime and the prefix digest).
 */
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

  it.effect("a log that changed by size, by mtime alone, or by a nested log that appeared beside it is not unchanged; the others are", () =>
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
      expect(report.sources.unchanged).toBe(7)
      expect(report.sources.discovered).toBe(10)
      // Each changed log is opened again (its prefix checked, then read on); no unchanged one is.
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
