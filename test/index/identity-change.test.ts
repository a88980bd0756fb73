/**
 * The incremental index equals a fresh import when what a source IS changes,
 * not only its content (issue 11; docs/index.md "Generations"):
 * - a Muse agents transcript whose `session_id` is rewritten in place (its
 *   source key, which carries the session id, changes): the old key's
 *   generation is superseded;
 * - a checkpointed source discovery no longer selects (a native Muse Code
 *   log whose workspace evidence is rewritten, a transcript that lost its
 *   header) whose imported prefix changed: its generation is superseded; a
 *   source whose file is gone, or now holds nothing (truncated to 0 bytes:
 *   `SOURCE_EMPTIED`, see emptied-source.test.ts), is kept (archive);
 * - a same-size rewrite that restores the old mtime (the change time tells),
 *   and fingerprints of an earlier build (without the change time) read as
 *   changed once, then are stored in the new form.
 * Each compares the sessions and events of the index with a fresh import
 * (import times and generation numbers aside).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { expectEqualsFresh, importOnce, indexView, rewriteInPlace, sessionIds } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"

const agents = () => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), root, { recursive: true })
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: root }
  return { dir, root, policy, index: path.join(dir, "index.db"), cron: path.join(root, "cron-first", "sessions", "cron-first.jsonl") }
}

describe("a source read under another key supersedes the old key's generation", () => {
  for (const [name, next] of [["same size", "sess-cran"], ["another size", "sess-cron-renamed"]] as const) {
    it.effect(`a Muse agents transcript whose session_id changed in place (${name})`, () =>
      Effect.gen(function*() {
        const a = agents()
        yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { batchSize: 3 }))
        expect(yield* sessionIds(a.index)).toContain("sess-cron")
        rewriteInPlace(a.cron, (s) => s.replace(`"session_id":"sess-cron"`, `"session_id":"${next}"`))
        const report = yield* expectEqualsFresh(a.policy, a.index, a.dir)
        const ids = yield* sessionIds(a.index)
        expect(ids).toContain(next)
        expect(ids).not.toContain("sess-cron")
        expect(report.sources.superseded).toBe(1)
        expect(report.superseded[0]).toMatchObject({ provider: "muse-agents", path: a.cron })
        expect(report.superseded[0].reason).toMatch(/another key|session/)
        // Changed back: the first key is read again (a new generation), the second one superseded.
        rewriteInPlace(a.cron, (s) => s.replace(`"session_id":"${next}"`, `"session_id":"sess-cron"`))
        yield* expectEqualsFresh(a.policy, a.index, a.dir)
        expect(yield* sessionIds(a.index)).toContain("sess-cron")
        expect(yield* sessionIds(a.index)).not.toContain(next)
        const again = yield* expectEqualsFresh(a.policy, a.index, a.dir)
        expect(again.sources.unchanged).toBe(again.sources.discovered)
      }))
  }

  it.effect("a Muse agents transcript that lost its header (no longer discovered) is superseded", () =>
    Effect.gen(function*() {
      const a = agents()
      yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { batchSize: 3 }))
      rewriteInPlace(a.cron, (s) => s.replace(`"type":"session_header"`, `"type":"xession_header"`))
      const report = yield* expectEqualsFresh(a.policy, a.index, a.dir)
      expect(yield* sessionIds(a.index)).not.toContain("sess-cron")
      expect(report.sources.superseded).toBe(1)
    }))
})

const native = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  const muse = path.join(dir, "muse")
  fs.mkdirSync(ws, { recursive: true })
  fs.cpSync(path.join(fixturesDir, "muse-code", "native"), muse, { recursive: true })
  for (const f of fs.readdirSync(muse, { recursive: true, encoding: "utf8" })) {
    const p = path.join(muse, f)
    if (path.basename(p) === "session.jsonl") fs.writeFileSync(p, fs.readFileSync(p, "utf8").replaceAll("/workspace/demo", ws))
  }
  fs.rmSync(path.join(muse, "2026", "09", "26", "55555555-5555-4555-8555-555555555555"), { recursive: true })
  // Away from ~/agents: a named agents root with one agent folder and no transcript (an empty named root is partial).
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  const policy = { workspaceRoots: [ws], museRoots: [muse], agentsRoot: agents }
  const log = path.join(muse, "2026", "09", "25", "22222222-2222-4222-8222-222222222222", "session.jsonl")
  return { dir, ws, muse, policy, log, index: path.join(dir, "index.db") }
}

describe("a checkpointed source discovery no longer selects", () => {
  it.effect("a native log whose workspace evidence was rewritten is superseded, with its nested logs", () =>
    Effect.gen(function*() {
      const n = native()
      yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      const before = yield* sessionIds(n.index)
      expect(before.some((id) => id.startsWith("22222222"))).toBe(true)
      rewriteInPlace(n.log, (s) => s.replaceAll(n.ws, "/elsewhere/xyz"))
      const report = yield* expectEqualsFresh(n.policy, n.index, n.dir)
      const ids = yield* sessionIds(n.index)
      expect(ids.some((id) => id.startsWith("22222222") || id.startsWith("33333333"))).toBe(false)
      expect(report.sources.superseded).toBe(1)
      expect(report.superseded[0]).toMatchObject({ provider: "muse-code", path: n.log })
      expect(report.superseded[0].reason).toMatch(/prefix/)
      // Nothing changed since: not read again, nothing more superseded.
      const again = yield* expectEqualsFresh(n.policy, n.index, n.dir)
      expect(again.sources.superseded).toBe(0)
    }))

  it.effect("a native log truncated to 0 bytes is kept as it was (SOURCE_EMPTIED), as a gone one is: not superseded", () =>
    Effect.gen(function*() {
      const n = native()
      yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      const before = yield* indexView(n.index)
      rewriteInPlace(n.log, () => "")
      const report = yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      expect(yield* indexView(n.index)).toEqual(before)
      expect((yield* sessionIds(n.index)).some((id) => id.startsWith("22222222"))).toBe(true)
      expect(report.sources.superseded).toBe(0)
      expect(report.causes.map((c) => [c.code, c.path])).toContainEqual(["SOURCE_EMPTIED", n.log])
    }))

  it.effect("a native log whose file is gone stays in the index (an archive), counted as gone", () =>
    Effect.gen(function*() {
      const n = native()
      yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      const before = yield* indexView(n.index)
      fs.rmSync(path.dirname(n.log), { recursive: true })
      const report = yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      expect(yield* indexView(n.index)).toEqual(before)
      expect(report.sources.superseded).toBe(0)
      expect(report.sources.gone).toBe(1)
      expect(report.coverage).toBe("complete")
    }))

  it.effect("an unselected checkpoint whose file is unchanged stays as it was", () =>
    Effect.gen(function*() {
      const n = native()
      yield* importOnce(n.policy, n.index, planFromPolicy(n.policy, { batchSize: 3 }))
      const before = yield* indexView(n.index)
      // Another workspace: nothing is selected; nothing imported is touched.
      const other = path.join(n.dir, "other")
      fs.mkdirSync(other)
      const policy = { ...n.policy, workspaceRoots: [other] }
      const report = yield* importOnce(policy, n.index, planFromPolicy(policy, { batchSize: 3 }))
      expect(report.sources.superseded).toBe(0)
      expect(yield* indexView(n.index)).toEqual(before)
    }))
})

describe("the change time is part of the fingerprint (item 9)", () => {
  it.effect("a same-size rewrite that restores the old mtime is a new generation", () =>
    Effect.gen(function*() {
      const a = agents()
      // Whole seconds, so the restored mtime is the same to the last digit.
      const t = Math.floor(Date.now() / 1000) - 3600
      fs.utimesSync(a.cron, t, t)
      yield* importOnce(a.policy, a.index, planFromPolicy(a.policy, { batchSize: 3 }))
      const st = fs.statSync(a.cron)
      const text = fs.readFileSync(a.cron, "utf8")
      fs.writeFileSync(a.cron, text.replace("Run the nightly dependency audit", "Ran the nightly dependency audit"))
      fs.utimesSync(a.cron, t, t)
      expect(fs.statSync(a.cron).ino).toBe(st.ino)
      expect(fs.statSync(a.cron).size).toBe(st.size)
      expect(fs.statSync(a.cron).mtimeMs).toBe(st.mtimeMs)
      const report = yield* expectEqualsFresh(a.policy, a.index, a.dir)
      expect(report.sources.newGenerations).toBe(1)
    }))

  it.effect("fingerprints without the change time (an earlier build) read as changed once, then are stored anew", () =>
    Effect.gen(function*() {
      const a = agents()
      const plan = planFromPolicy(a.policy, { batchSize: 3 })
      yield* importOnce(a.policy, a.index, plan)
      const db = new Database(a.index)
      const rows = db.prepare("SELECT source_key, fingerprint FROM sources").all() as Array<{ source_key: string; fingerprint: string }>
      for (const r of rows) {
        // `size:mtime:ino:birthtime:ctime` → `size:mtime:ino:birthtime`, in every stat of the fingerprint.
        const old = r.fingerprint.replace(/(\d+:[\d.]+:\d+:[\d.]+):[\d.]+/g, "$1")
        expect(old).not.toBe(r.fingerprint)
        db.prepare("UPDATE sources SET fingerprint = ? WHERE source_key = ?").run(old, r.source_key)
      }
      db.close()
      const once = yield* expectEqualsFresh(a.policy, a.index, a.dir)
      expect(once.sources).toMatchObject({ accepted: rows.length, unchanged: 0, newGenerations: 0 })
      expect(once.eventsAdded).toBe(0)
      const twice = yield* expectEqualsFresh(a.policy, a.index, a.dir)
      expect(twice.sources).toMatchObject({ accepted: 0, unchanged: rows.length })
    }))
})
