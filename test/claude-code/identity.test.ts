/**
 * claude-code in the index when what a session file is changes in place
 * (docs/index.md "Generations"): one file is one source (`sourcePerFile`), and a
 * checkpointed session discovery under the root no longer lists, whose
 * imported prefix changed, is superseded. Each time the index equals a
 * fresh import (import times and generation numbers aside).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { expectEqualsFresh, importOnce, indexView, rewriteInPlace, sessionIds } from "../support/index.js"
import { copyFixtures, S, sessionPath, withAdapter } from "./helpers.js"

const claude = () => {
  const root = copyFixtures()
  const dir = path.dirname(root)
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "no-agents"), claudeRoot: root }
  return { dir, root, policy, index: path.join(dir, "index.db") }
}

describe("claude-code: one file is one source", () => {
  it.effect("the adapter declares sourcePerFile and its discovery names the root it went through", () =>
    Effect.gen(function*() {
      const c = claude()
      const r = yield* withAdapter(c.root, (a) => Effect.map(a.discover({}), (d) => ({ d, perFile: a.sourcePerFile })))
      expect(r.perFile).toBe(true)
      expect(r.d.roots).toEqual([fs.realpathSync(c.root)])
    }))

  for (const [name, next] of [["same size", "e2a8c5f1-94b7-4d3e-a6f0-3c1d8b7e5a2a"], ["another size", "e2a8c5f1-renamed"]] as const) {
    it.effect(`a session file whose records' sessionId changed in place (${name}): index equals a fresh import`, () =>
      Effect.gen(function*() {
        const c = claude()
        const file = sessionPath(S.S5, c.root)
        yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize: 3 }))
        const first = yield* indexView(c.index)
        expect(yield* sessionIds(c.index)).toContain(S.S5)
        rewriteInPlace(file, (s) => s.replaceAll(`"sessionId":"${S.S5}"`, `"sessionId":"${next}"`))
        const report = yield* expectEqualsFresh(c.policy, c.index, c.dir)
        expect(report.sources.newGenerations + report.sources.superseded).toBeGreaterThan(0)
        // Changed back: the index is again what it first was.
        rewriteInPlace(file, (s) => s.replaceAll(`"sessionId":"${next}"`, `"sessionId":"${S.S5}"`))
        yield* expectEqualsFresh(c.policy, c.index, c.dir)
        expect(yield* indexView(c.index)).toHaveLength((first as Array<unknown>).length)
        const again = yield* expectEqualsFresh(c.policy, c.index, c.dir)
        expect(again.sources.unchanged).toBe(again.sources.discovered)
      }))
  }

  it.effect("a session file rewritten so that discovery no longer lists it (summaries only) is superseded", () =>
    Effect.gen(function*() {
      const c = claude()
      const file = sessionPath(S.S5, c.root)
      yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize: 3 }))
      expect(yield* sessionIds(c.index)).toContain(S.S5)
      rewriteInPlace(file, () => JSON.stringify({ type: "summary", summary: "Only a title", leafUuid: "x" }) + "\n")
      const report = yield* expectEqualsFresh(c.policy, c.index, c.dir)
      expect(yield* sessionIds(c.index)).not.toContain(S.S5)
      expect(report.sources.superseded).toBe(1)
      expect(report.superseded[0]).toMatchObject({ provider: "claude-code", path: fs.realpathSync(file) })
      const again = yield* expectEqualsFresh(c.policy, c.index, c.dir)
      expect(again.sources.superseded).toBe(0)
    }))

  it.effect("a session file whose file is gone stays in the index (an archive)", () =>
    Effect.gen(function*() {
      const c = claude()
      yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize: 3 }))
      const before = yield* indexView(c.index)
      fs.rmSync(sessionPath(S.S5, c.root))
      const report = yield* importOnce(c.policy, c.index, planFromPolicy(c.policy, { batchSize: 3 }))
      expect(yield* indexView(c.index)).toEqual(before)
      expect(report.sources.gone).toBe(1)
    }))
})
