/**
 * claude-code: discovery lists a session the importer already holds, and
 * that is unchanged since, from its kept summary without reading it (README
 * "Re-import of unchanged sources"): the same sources as a discovery that
 * reads every file; a session that changed, that has a subagent file (nested,
 * a symlinked one too, or flat) or an inline sidechain is read again. The
 * project folder's listing of flat agent files, kept between sessions, is
 * listed again once an entry is added.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fingerprintOfStat } from "../../src/domain/fingerprint.js"
import type { DiscoveredSource } from "../../src/domain/model.js"
import { makeWith } from "../../src/layers/claude-code/adapter.js"
import { subagentPaths } from "../../src/layers/claude-code/source.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { AccessPolicy } from "../../src/services/AccessPolicy.js"
import { ImportLimits } from "../../src/services/ImportLimits.js"
import type { KnownSource } from "../../src/services/SessionSource.js"
import { SourceAccess, type SourceAccessShape } from "../../src/services/SourceAccess.js"
import { copyFixtures } from "./helpers.js"

const tinyId = (i: number) => `${String(i).padStart(8, "0")}-0000-4000-8000-00000000000${i}`
const tiny = (i: number, extra = "") =>
  JSON.stringify({
    type: "user",
    sessionId: tinyId(i),
    cwd: "/tmp/t",
    uuid: `u${i}`,
    parentUuid: null,
    timestamp: `2026-09-03T00:00:0${i}Z`,
    message: { role: "user", content: `tiny ${i}${extra}` }
  }) + "\n"

/** The fixtures plus a project of four one-line sessions. */
const setup = () => {
  const root = copyFixtures()
  const project = nodePath.join(root, "-tmp-t")
  fs.mkdirSync(project)
  for (let i = 1; i <= 4; i++) fs.writeFileSync(nodePath.join(project, `${tinyId(i)}.jsonl`), tiny(i))
  return { root: fs.realpathSync(root), project: fs.realpathSync(project) }
}

/** The Node layer, counting the files opened or read from their head, by path. */
const counting = () => {
  const opened = new Set<string>()
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    open: (f) => Effect.suspend(() => (opened.add(f.path), sourceAccessNode.open(f))),
    readHead: (f, n, scratch) => Effect.suspend(() => (opened.add(f.path), sourceAccessNode.readHead(f, n, scratch)))
  }
  return { access, opened }
}

const discover = (root: string, known?: ReadonlyMap<string, KnownSource>, access: SourceAccessShape = sourceAccessNode) =>
  Effect.flatMap(makeWith({ env: {}, home: "/nonexistent-home" }), (a) => a.discover({ known })).pipe(
    Effect.provide(AccessPolicy.layer({ claudeRoot: root })),
    Effect.provideService(SourceAccess, access),
    Effect.provide(ImportLimits.layer({}))
  )

/** What the importer would hand back: each listed source's fingerprint now and its summary. */
const knownOf = (sources: ReadonlyArray<DiscoveredSource>) =>
  new Map(sources.map((s) => [s.locator.path, { fingerprint: fingerprintOfStat(fs.lstatSync(s.locator.path)), summary: s.summary }]))

/** As {@link knownOf}, with the overview the index keeps of each (what the importer hands back from a SQLite index). */
const knownWithOverviewOf = (sources: ReadonlyArray<DiscoveredSource>) =>
  new Map(sources.map((s) => [s.locator.path, { fingerprint: fingerprintOfStat(fs.lstatSync(s.locator.path)), summary: s.summary, overview: s.overview }]))

/** The sources as they serialize (a source listed unread may read its id and summary through getters), without parts and stat. */
const plain = (sources: ReadonlyArray<DiscoveredSource>) =>
  (JSON.parse(JSON.stringify(sources)) as Array<Record<string, unknown>>).map(({ parts: _p, stat: _s, ...rest }) => rest)

describe("claude-code discovery of sessions the importer holds", () => {
  it.effect("unchanged sessions without subagents or sidechains are listed from their summary, unread; the rest are read", () =>
    Effect.gen(function*() {
      const c = setup()
      const first = yield* discover(c.root)
      const { access, opened } = counting()
      const again = yield* discover(c.root, knownOf(first.sources), access)
      expect(plain(again.sources)).toEqual(plain(first.sources))
      expect([again.coverage, again.diagnostics]).toEqual([first.coverage, first.diagnostics])
      const tinyPaths = [1, 2, 3, 4].map((i) => nodePath.join(c.project, `${tinyId(i)}.jsonl`))
      for (const p of tinyPaths) expect(opened.has(p), p).toBe(false)
      // Listed unread, with their parts looked for (none): the importer does not list them again.
      for (const p of tinyPaths) expect(again.sources.find((s) => s.locator.path === p)?.parts, p).toEqual([])
      // The fixture sessions with subagents or sidechains are read again.
      const withParts = first.sources.filter((s) => (s.summary.subagentCount as number) > 0 || (s.summary.sidechainLines as number) > 0)
      expect(withParts.length).toBeGreaterThan(0)
      for (const s of withParts) expect(opened.has(s.locator.path), s.locator.path).toBe(true)
      expect(again.receipts).toMatchObject({ unchangedNotRead: first.sources.length - withParts.length })
    }))

  it.effect("with the kept overview, sessions with inline sidechains are listed unread too (their sidechain titles kept); those with subagent files are read", () =>
    Effect.gen(function*() {
      const c = setup()
      const first = yield* discover(c.root)
      const { access, opened } = counting()
      const again = yield* discover(c.root, knownWithOverviewOf(first.sources), access)
      expect(plain(again.sources)).toEqual(plain(first.sources))
      expect([again.coverage, again.diagnostics]).toEqual([first.coverage, first.diagnostics])
      const sidechainOnly = first.sources.filter((s) => (s.summary.subagentCount as number) === 0 && (s.summary.sidechainLines as number) > 0)
      const withSubagents = first.sources.filter((s) => (s.summary.subagentCount as number) > 0)
      expect([sidechainOnly.length > 0, withSubagents.length > 0]).toEqual([true, true])
      // The fixture's sidechain titles are in the overview listed unread.
      expect(sidechainOnly.some((s) => Object.keys(s.overview.sessionTitles ?? {}).length > 0)).toBe(true)
      for (const s of sidechainOnly) expect(opened.has(s.locator.path), s.locator.path).toBe(false)
      for (const s of withSubagents) expect(opened.has(s.locator.path), s.locator.path).toBe(true)
      expect(again.receipts).toMatchObject({ unchangedNotRead: first.sources.length - withSubagents.length })
    }))

  it.effect("a session appended to, given a nested (or symlinked) subagent or a flat agent file naming it, is read again", () =>
    Effect.gen(function*() {
      const c = setup()
      const first = yield* discover(c.root)
      const known = knownOf(first.sources)
      const path = (i: number) => nodePath.join(c.project, `${tinyId(i)}.jsonl`)
      fs.appendFileSync(path(1), tiny(1, " again"))
      fs.mkdirSync(nodePath.join(c.project, tinyId(2), "subagents"), { recursive: true })
      fs.writeFileSync(nodePath.join(c.project, tinyId(2), "subagents", "agent-a2.jsonl"), tiny(2, " sub").replace("\"user\"", "\"user\"").replace("}\n", ",\"isSidechain\":true,\"agentId\":\"a2\"}\n"))
      fs.mkdirSync(nodePath.join(c.project, tinyId(3), "subagents"), { recursive: true })
      fs.symlinkSync("/etc/hostname", nodePath.join(c.project, tinyId(3), "subagents", "agent-a3.jsonl"))
      fs.writeFileSync(nodePath.join(c.project, "agent-f4.jsonl"), tiny(4, " flat").replace("}\n", ",\"isSidechain\":true,\"agentId\":\"f4\"}\n"))
      const { access, opened } = counting()
      const again = yield* discover(c.root, known, access)
      const fresh = yield* discover(c.root)
      expect(plain(again.sources)).toEqual(plain(fresh.sources))
      expect(again.diagnostics).toEqual(fresh.diagnostics)
      expect(again.coverage).toBe("partial") // the symlinked subagent file is said
      for (const i of [1, 2, 3, 4]) expect(opened.has(path(i)), `session ${i}`).toBe(true)
      const by = (i: number) => again.sources.find((s) => s.sessionId === tinyId(i))!.summary
      expect([by(1).lineCount, by(2).subagentCount, by(4).subagentCount]).toEqual([2, 1, 1])
    }))

  it.effect("a project folder's flat agent files are listed again once one is added (its listing is kept while the folder is unchanged)", () =>
    Effect.gen(function*() {
      const c = setup()
      const session = nodePath.join(c.project, `${tinyId(1)}.jsonl`)
      // Settled folder: its listing is kept.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2_200)))
      expect(yield* subagentPaths(sourceAccessNode, session)).toEqual([])
      expect(yield* subagentPaths(sourceAccessNode, session)).toEqual([])
      fs.writeFileSync(nodePath.join(c.project, "agent-f1.jsonl"), tiny(1, " flat").replace("}\n", ",\"isSidechain\":true,\"agentId\":\"f1\"}\n"))
      expect(yield* subagentPaths(sourceAccessNode, session)).toEqual([nodePath.join(c.project, "agent-f1.jsonl")])
    }), 20_000)
})

