/**
 * claude-code: the re-import of unchanged sessions costs one stat per session
 * (docs/import.md "Re-import of unchanged sources", figure e-claude): discovery takes
 * one `lstat` of each session log the index holds, tells from its project
 * folder's listing (taken once) that the session has no subagents folder and
 * no flat agent file, and hands the importer the parts it found (none), so
 * nothing else is asked of the file system per session (one with an inline
 * sidechain too: its overview is the one the index kept): no authorization
 * walk, no probe of `<session>/subagents`, no probe of the project folder, no
 * open, no read. What must still be read again: a log appended, touched,
 * rewritten in place (same size, mtime set back), truncated, replaced (a new
 * inode: hashed, and counted unchanged when its bytes are those imported, as a
 * touched one is), or given a new subagent file (nested or flat); the stored summary
 * then says what was read.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ImportPlan } from "../../src/services/Importer.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"

const N = 10
const sid = (i: number) => `${String(i).padStart(8, "0")}-0000-4000-8000-${String(i).padStart(12, "0")}`
const line = (i: number, text = `tiny ${i}`, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "user",
    sessionId: sid(i),
    cwd: "/tmp/t",
    uuid: `u${i}-${text.length}`,
    parentUuid: null,
    timestamp: "2026-09-03T00:00:00Z",
    message: { role: "user", content: text },
    ...extra
  }) + "\n"

const plan: ImportPlan = { discover: [{ provider: "claude-code", request: {}, configured: true }], explicit: [], skipped: [] }

/** A root of `N` one-line sessions in one project folder. */
const setup = () => {
  const dir = tempDir("si-claude-reimport-")
  const root = nodePath.join(dir, "projects")
  const project = nodePath.join(root, "-tmp-t")
  fs.mkdirSync(project, { recursive: true })
  for (let i = 0; i < N; i++) fs.writeFileSync(nodePath.join(project, `${sid(i)}.jsonl`), line(i))
  // Session 8 holds an inline sidechain (older Claude Code wrote a Task's conversation into the session file).
  fs.appendFileSync(nodePath.join(project, `${sid(8)}.jsonl`), line(8, "side prompt", { isSidechain: true, uuid: "side-8", parentUuid: null }))
  const real = fs.realpathSync(project)
  return { root, project: real, index: nodePath.join(dir, "index.db"), policy: { claudeRoot: root }, log: (i: number) => nodePath.join(real, `${sid(i)}.jsonl`) }
}

/** The Node layer, recording every path it is asked about, and how. */
const recording = () => {
  const looks: Array<{ readonly how: string; readonly path: string }> = []
  const note = (how: string, p: string) => looks.push({ how, path: p })
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    authorizeFile: (p, ...rest) => (note("authorizeFile", p), sourceAccessNode.authorizeFile(p, ...rest)),
    listDirectory: (p) => (note("listDirectory", p), sourceAccessNode.listDirectory(p)),
    probe: (p) => (note("probe", p), sourceAccessNode.probe(p)),
    open: (f) => (note("open", f.path), sourceAccessNode.open(f)),
    readHead: (f, ...rest) => (note("readHead", f.path), sourceAccessNode.readHead(f, ...rest)),
    readWhole: (f, ...rest) => (note("readWhole", f.path), sourceAccessNode.readWhole(f, ...rest))
  }
  return { access, looks }
}

/** The stored summary of each source, by its locator path. */
const storedSummaries = (index: string): Map<string, Record<string, unknown>> => {
  const db = new Database(index, { readonly: true })
  try {
    const rows = db.prepare("SELECT summary_json FROM sources").all() as Array<{ summary_json: string }>
    return new Map(rows.map((r) => {
      const s = JSON.parse(r.summary_json) as Record<string, unknown>
      return [s.locator as string, s]
    }))
  } finally {
    db.close()
  }
}

describe("claude-code re-import of unchanged sessions", () => {
  it.effect("each unchanged session costs one lstat of its log and nothing else; the project folder is listed once", () =>
    Effect.gen(function*() {
      const c = setup()
      // A session folder without subagents (Claude Code keeps tool results there) does not make its session changed.
      fs.mkdirSync(nodePath.join(c.project, sid(3), "tool-results"), { recursive: true })
      const first = yield* importOnce(c.policy, c.index, plan)
      expect(first.sources.accepted).toBe(N)
      expect(storedSummaries(c.index).get(c.log(8))!.sidechainLines).toBe(1)
      const { access, looks } = recording()
      const again = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
      expect([again.sources.unchanged, again.sources.accepted, again.coverage]).toEqual([N, 0, "complete"])
      for (let i = 0; i < N; i++) {
        expect(looks.filter((l) => l.path === c.log(i)), `session ${i}`).toEqual([{ how: "probe", path: c.log(i) }])
        if (i !== 3) expect(looks.filter((l) => l.path.startsWith(nodePath.join(c.project, sid(i)) + nodePath.sep)), `session ${i}`).toEqual([])
      }
      expect(looks.filter((l) => l.path === c.project)).toEqual([{ how: "listDirectory", path: c.project }])
      // Nothing is opened or read.
      expect(looks.filter((l) => l.how !== "probe" && l.how !== "listDirectory" && l.how !== "authorizeFile")).toEqual([])
    }))

  /** Sessions 6 (two nested subagent files), 7 (a flat agent file) and 9 (one of each), imported once. */
  const withSubagents = (c: ReturnType<typeof setup>) => {
    const nested = (i: number, id: string) => nodePath.join(c.project, sid(i), "subagents", `agent-${id}.jsonl`)
    for (const [i, id] of [[6, "a6"], [6, "b6"], [9, "a9"]] as const) {
      fs.mkdirSync(nodePath.dirname(nested(i, id)), { recursive: true })
      fs.writeFileSync(nested(i, id), line(i, `nested ${id}`, { isSidechain: true, agentId: id }))
    }
    const flat = (id: string) => nodePath.join(c.project, `agent-${id}.jsonl`)
    fs.writeFileSync(flat("f7"), line(7, "flat f7", { isSidechain: true, agentId: "f7" }))
    fs.writeFileSync(flat("f9"), line(9, "flat f9", { isSidechain: true, agentId: "f9" }))
    return { nested, flat }
  }

  it.effect("a session with subagent files (nested or flat), all unchanged, is not read again: its log and its subagent files are only stat-ed", () =>
    Effect.gen(function*() {
      const c = setup()
      const { flat, nested } = withSubagents(c)
      const first = yield* importOnce(c.policy, c.index, plan)
      expect(first.sources.accepted).toBe(N)
      expect([6, 7, 9].map((i) => storedSummaries(c.index).get(c.log(i))!.subagentCount)).toEqual([2, 1, 2])
      const { access, looks } = recording()
      const again = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
      expect([again.sources.unchanged, again.sources.accepted, again.coverage]).toEqual([N, 0, "complete"])
      const subagentFiles = [nested(6, "a6"), nested(6, "b6"), nested(9, "a9"), flat("f7"), flat("f9")]
      // Nothing is opened or read: neither a session log nor a subagent file.
      expect(looks.filter((l) => l.how === "open" || l.how === "readHead" || l.how === "readWhole")).toEqual([])
      for (const i of [6, 7, 9]) expect(looks.filter((l) => l.path === c.log(i) && l.how !== "probe"), `session ${i}`).toEqual([])
      // Each subagent file is stat-ed once, by discovery: the importer takes the fingerprint discovery made of those
      // stats (`DiscoveredSource.fingerprint`) and does not stat them again.
      for (const f of subagentFiles) expect(looks.filter((l) => l.path === f && l.how === "probe"), f).toEqual([{ how: "probe", path: f }])
    }))

  it.effect("a session whose subagent file is appended, added, removed or replaced by a symlink is read again; the others are not", () =>
    Effect.gen(function*() {
      const c = setup()
      const { flat, nested } = withSubagents(c)
      fs.mkdirSync(nodePath.join(c.project, sid(2), "subagents"), { recursive: true })
      fs.writeFileSync(nested(2, "a2"), line(2, "nested a2", { isSidechain: true, agentId: "a2" }))
      fs.mkdirSync(nodePath.join(c.project, sid(4), "subagents"), { recursive: true })
      fs.writeFileSync(nested(4, "a4"), line(4, "nested a4", { isSidechain: true, agentId: "a4" }))
      const first = yield* importOnce(c.policy, c.index, plan)
      expect(first.sources.accepted).toBe(N)
      fs.appendFileSync(nested(6, "b6"), line(6, "more b6", { isSidechain: true, agentId: "b6" })) // appended
      fs.appendFileSync(flat("f7"), line(7, "more f7", { isSidechain: true, agentId: "f7" })) // flat appended
      fs.writeFileSync(nested(9, "c9"), line(9, "nested c9", { isSidechain: true, agentId: "c9" })) // added
      fs.rmSync(nested(2, "a2")) // removed
      const target = nodePath.join(c.project, "elsewhere.txt")
      fs.renameSync(nested(4, "a4"), target)
      fs.symlinkSync(target, nested(4, "a4")) // replaced by a symlink
      const changed = [2, 4, 6, 7, 9]
      const { access, looks } = recording()
      const again = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
      expect([again.sources.unchanged, again.sources.discovered]).toEqual([N - changed.length, N])
      const read = new Set(looks.filter((l) => l.how === "open" || l.how === "readHead" || l.how === "readWhole").map((l) => l.path))
      for (let i = 0; i < N; i++) expect(read.has(c.log(i)), `session ${i}`).toBe(changed.includes(i))
      const stored = storedSummaries(c.index)
      expect([6, 7, 9].map((i) => stored.get(c.log(i))!.subagentCount)).toEqual([2, 1, 3])
      // The symlinked subagent file is reported, as a first discovery reports it.
      expect(JSON.stringify(again)).toContain("SYMLINK_SKIPPED")
    }))

  it.effect("a log appended, touched, rewritten in place, truncated, replaced, or given a nested or flat subagent file is read again; the rest are not", () =>
    Effect.gen(function*() {
      const c = setup()
      // whole seconds: what utimes sets back exactly
      const mtime = Math.floor(Date.now() / 1000) - 60
      for (let i = 0; i < N; i++) fs.utimesSync(c.log(i), mtime, mtime)
      const first = yield* importOnce(c.policy, c.index, plan)
      expect(first.sources.accepted).toBe(N)
      fs.appendFileSync(c.log(1), line(1, "appended"))
      fs.utimesSync(c.log(2), mtime + 5, mtime + 5)
      // 3: the same size, one letter changed, the mtime set back
      const text = fs.readFileSync(c.log(3), "utf8")
      fs.writeFileSync(c.log(3), text.replace("tiny 3", "tinx 3"))
      fs.utimesSync(c.log(3), mtime, mtime)
      expect(fs.statSync(c.log(3)).size).toBe(text.length)
      // 4: truncated to a shorter first line
      fs.writeFileSync(c.log(4), line(4, "t"))
      fs.utimesSync(c.log(4), mtime, mtime)
      // 5: replaced by a copy (a new inode), same bytes and mtime
      fs.writeFileSync(c.log(5) + ".new", fs.readFileSync(c.log(5)))
      fs.utimesSync(c.log(5) + ".new", mtime, mtime)
      fs.renameSync(c.log(5) + ".new", c.log(5))
      // 6: a nested subagent file; 7: a flat agent file naming it
      fs.mkdirSync(nodePath.join(c.project, sid(6), "subagents"), { recursive: true })
      fs.writeFileSync(nodePath.join(c.project, sid(6), "subagents", "agent-a6.jsonl"), line(6, "nested", { isSidechain: true, agentId: "a6" }))
      fs.writeFileSync(nodePath.join(c.project, "agent-f7.jsonl"), line(7, "flat", { isSidechain: true, agentId: "f7" }))
      const changed = [1, 2, 3, 4, 5, 6, 7]
      const { access, looks } = recording()
      const again = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
      // The touched log (2) and the one replaced by a copy of itself (5) are read (hashed), and their bytes are those
      // imported: counted unchanged (docs/import.md, a change of mtime alone, tester27b F6; a file put in place anew
      // at the same size, tester39 F9).
      expect([again.sources.unchanged, again.sources.accepted, again.sources.discovered]).toEqual([N - changed.length + 2, changed.length - 2, N])
      const read = new Set(looks.filter((l) => l.how === "open" || l.how === "readHead" || l.how === "readWhole").map((l) => l.path))
      for (let i = 0; i < N; i++) expect(read.has(c.log(i)), `session ${i}`).toBe(changed.includes(i))
      // What was read is what the index keeps: the stored summaries are the new ones.
      const stored = storedSummaries(c.index)
      expect([1, 3, 4, 6, 7].map((i) => [stored.get(c.log(i))!.lineCount, stored.get(c.log(i))!.title, stored.get(c.log(i))!.subagentCount]))
        .toEqual([[2, "tiny 1", 0], [1, "tinx 3", 0], [1, "t", 0], [1, "tiny 6", 1], [1, "tiny 7", 1]])
      // A third run finds every session unchanged, those with subagents included.
      const third = yield* importOnce(c.policy, c.index, plan)
      expect([third.sources.unchanged, third.sources.accepted]).toEqual([N, 0])
    }))
})
