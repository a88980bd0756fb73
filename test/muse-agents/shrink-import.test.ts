/**
 * muse-agents: a transcript truncated in place while an import runs is never
 * reported imported and complete (the Claude Code case's variant, same
 * importer path: `src/layers/index/source-drift.ts`). The truncation is
 * injected through a SourceAccess double: at the start of discovery's read
 * (its scan ends short of the size at open), and between discovery and the
 * importer's stat (the summary would describe another version of the file).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { ImportPlan } from "../../src/services/Importer.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { importOnce, sessionIds } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"

const plan: ImportPlan = { discover: [{ provider: "muse-agents", request: {}, configured: true }], explicit: [], skipped: [] }

const setup = () => {
  const dir = tempDir("si-agents-shrink-")
  const root = nodePath.join(dir, "agents")
  fs.cpSync(nodePath.join(fixturesDir, "muse-agents", "agents", "cron-first"), nodePath.join(root, "cron-first"), { recursive: true })
  const file = fs.realpathSync(nodePath.join(root, "cron-first", "sessions", "cron-first.jsonl"))
  return { root, file, index: nodePath.join(dir, "index.db"), policy: { agentsRoot: root, museRoots: [], workspaceRoots: [dir] } }
}

/** Truncate `file` to its first `keep` lines once: at the first read of the `open`-th open, or at the importer's first stat. */
const truncating = (file: string, at: { readonly open: number } | "probe", keep: number) => {
  const cut = { done: false }
  let opens = 0
  const doCut = () => {
    if (cut.done) return
    cut.done = true
    const lines = fs.readFileSync(file, "utf8").split("\n")
    fs.truncateSync(file, Buffer.byteLength(lines.slice(0, keep).join("\n") + "\n"))
  }
  const mine = (p: string) => nodePath.resolve(p) === file
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    probe: (p) => Effect.suspend(() => (at === "probe" && mine(p) && doCut(), sourceAccessNode.probe(p))),
    open: (f) =>
      !mine(f.path) ? sourceAccessNode.open(f) : Effect.suspend(() => {
        const k = ++opens
        return Effect.map(sourceAccessNode.open(f), (o) => ({
          ...o,
          read: (offset: number, length: number) => Effect.suspend(() => (at !== "probe" && k === at.open && doCut(), o.read(offset, length)))
        }))
      })
  }
  return { access, cut }
}

describe("muse-agents: a transcript truncated while an import runs", () => {
  for (const [name, at] of [["at the start of discovery's read", { open: 1 }], ["between discovery and the importer's stat", "probe"]] as const) {
    it.effect(`truncated ${name}: MALFORMED_SOURCE, partial, nothing indexed; the next run imports it`, () =>
      Effect.gen(function*() {
        const c = setup()
        const { access, cut } = truncating(c.file, at, 8)
        const r = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
        expect(cut.done).toBe(true)
        expect([r.coverage, r.sources.accepted, r.eventsAdded]).toEqual(["partial", 0, 0])
        expect(JSON.stringify({ rejected: r.sources.rejectedByCode, causes: r.causes, providers: r.providers.map((p) => p.diagnostics) })).toContain(
          "MALFORMED_SOURCE"
        )
        expect(yield* sessionIds(c.index)).toEqual([])
        const again = yield* importOnce(c.policy, c.index, plan)
        expect([again.sources.accepted, again.sources.rejected]).toEqual([1, 0])
      }))
  }
})
