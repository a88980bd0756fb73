/**
 * claude-code: a session log truncated in place while an import runs is never
 * reported imported and complete (docs/providers.md "Sources that change while read").
 * The truncation is injected at a chosen point through a SourceAccess double
 * (no timing): in the middle of discovery's read, before the importer's stat,
 * at the start of the import's read, in its middle, to 0 or to a cut inside a
 * line. Each time the run ends with the source rejected or skipped as
 * `MALFORMED_SOURCE` (coverage partial) and nothing of it in the index; the
 * next run, with the file stable, imports it with a summary of the file as it is.
 * A log that only grew between discovery and the read is imported, and the
 * next run takes it again, so its summary ends up the file's.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { Index } from "../../src/services/Index.js"
import type { ImportPlan } from "../../src/services/Importer.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { importOnce, indexLayer, sessionIds } from "../support/index.js"
import { tempDir } from "../support/paths.js"

const SID = "0b0b0b0b-1111-4222-8333-444455556666"

const line = (i: number) =>
  JSON.stringify({
    type: "user",
    sessionId: SID,
    cwd: "/home/bob/big",
    uuid: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`,
    parentUuid: null,
    timestamp: `2026-09-03T00:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`,
    message: { role: "user", content: `prompt number ${i} ${"x".repeat(200)}` }
  }) + "\n"

/** A root with one session of `n` lines (about 300 bytes each: several read steps). */
const setup = (n = 3000) => {
  const dir = tempDir("si-claude-shrink-")
  const root = nodePath.join(dir, "projects")
  fs.mkdirSync(nodePath.join(root, "-home-bob-big"), { recursive: true })
  const file = nodePath.join(root, "-home-bob-big", `${SID}.jsonl`)
  fs.writeFileSync(file, Array.from({ length: n }, (_, i) => line(i + 1)).join(""))
  return { dir, root, file: fs.realpathSync(file), index: nodePath.join(dir, "index.db"), policy: { claudeRoot: root } }
}

const plan: ImportPlan = { discover: [{ provider: "claude-code", request: {}, configured: true }], explicit: [], skipped: [] }

/** Where the file is truncated: the `n`-th open's first read at or past `at` (1: discovery, 2: the import), or the importer's first stat. */
type Point = { readonly kind: "read"; readonly open: number; readonly at: number } | { readonly kind: "probe" }

/** The Node layer, truncating `file` to `to` bytes once, at `point` (`cut.done` says it happened). */
const truncating = (file: string, point: Point, to: number | ((size: number) => number)) => {
  const cut = { done: false }
  let opens = 0
  const doCut = () => {
    if (cut.done) return
    cut.done = true
    const size = fs.statSync(file).size
    fs.truncateSync(file, typeof to === "number" ? to : to(size))
  }
  const mine = (p: string) => nodePath.resolve(p) === file
  const access: SourceAccessShape = {
    ...sourceAccessNode,
    probe: (p) =>
      Effect.suspend(() => {
        if (point.kind === "probe" && mine(p)) doCut()
        return sourceAccessNode.probe(p)
      }),
    open: (f) =>
      !mine(f.path) ? sourceAccessNode.open(f) : Effect.suspend(() => {
        const k = ++opens
        return Effect.map(sourceAccessNode.open(f), (o) => ({
          ...o,
          read: (offset: number, length: number) =>
            Effect.suspend(() => {
              if (point.kind === "read" && k === point.open && offset >= point.at) doCut()
              return o.read(offset, length)
            })
        }))
      })
  }
  return { access, cut }
}

const summaryOf = (index: string) =>
  Effect.map(Effect.flatMap(Index, (i) => i.checkpoints), (cs) => [...cs.values()].map((c) => ({ status: c.status, summary: c.summary, locator: c.locator }))).pipe(
    Effect.provide(indexLayer(index))
  )

const linesOf = (file: string) => fs.readFileSync(file, "utf8").split("\n").length - 1

const cases: ReadonlyArray<readonly [string, Point, number | ((size: number) => number)]> = [
  ["in the middle of discovery's read, to a cut inside a line", { kind: "read", open: 1, at: 300_000 }, 100_001],
  ["in the middle of discovery's read, to 0", { kind: "read", open: 1, at: 300_000 }, 0],
  ["between discovery and the importer's stat, to a line's end", { kind: "probe" }, line(1).length * 40],
  ["between discovery and the importer's stat, to 0", { kind: "probe" }, 0],
  ["at the start of the import's read, to a cut inside a line", { kind: "read", open: 2, at: 0 }, 123_457],
  ["at the start of the import's read, to 0", { kind: "read", open: 2, at: 0 }, 0],
  ["in the middle of the import's read, to a cut inside a line", { kind: "read", open: 2, at: 300_000 }, 100_001],
  ["in the middle of the import's read, by one byte", { kind: "read", open: 2, at: 300_000 }, (size) => size - 1]
]

describe("claude-code: a log truncated while an import runs (MALFORMED_SOURCE, never complete)", () => {
  for (const [name, point, to] of cases) {
    it.effect(`truncated ${name}: rejected or skipped, nothing indexed; the next run imports the file as it is`, () =>
      Effect.gen(function*() {
        const c = setup()
        const { access, cut } = truncating(c.file, point, to)
        const r = yield* importOnce(c.policy, c.index, plan, undefined, undefined, access)
        expect(cut.done, "the truncation was injected").toBe(true)
        expect(r.coverage).toBe("partial")
        expect(r.sources.accepted).toBe(0)
        const said = JSON.stringify({ rejected: r.sources.rejectedByCode, causes: r.causes, providers: r.providers.map((p) => p.diagnostics) })
        expect(said).toContain("MALFORMED_SOURCE")
        // Truncated in the middle of the import's read: the message says where the read ended and the file's size now.
        if (point.kind === "read" && point.open === 2 && point.at > 0 && typeof to === "number") {
          expect(JSON.stringify(r.rejected)).toContain(`the file is now ${to} bytes`)
        }
        expect(r.eventsAdded).toBe(0)
        expect(yield* sessionIds(c.index)).toEqual([])
        // Stable now: imported, its summary is the file's as it is.
        const again = yield* importOnce(c.policy, c.index, plan)
        const text = fs.readFileSync(c.file, "utf8")
        const pieces = text.split("\n").filter((l) => l.length > 0)
        const parses = (l: string) => {
          try {
            JSON.parse(l)
            return true
          } catch {
            return false
          }
        }
        // A last line without its newline is kept when it is whole JSON (tolerant), else a parse warning.
        const good = pieces.filter(parses).length
        expect(again.sources.rejected).toBe(0)
        if (text.length === 0) return
        expect([again.sources.accepted, again.eventsAdded]).toEqual([1, good])
        const [s] = yield* summaryOf(c.index)
        expect(s.status).toBe("complete")
        expect([s.summary.lineCount, s.summary.sizeBytes, s.summary.promptCount, s.summary.parseWarningCount]).toEqual([
          pieces.length,
          fs.statSync(c.file).size,
          good,
          pieces.length - good
        ])
      }))
  }

  it.effect("grown between discovery and the read: imported; the next run takes it again and stores the file's summary", () =>
    Effect.gen(function*() {
      const c = setup(500)
      const grow: SourceAccessShape = {
        ...sourceAccessNode,
        probe: (p) =>
          Effect.suspend(() => {
            if (nodePath.resolve(p) === c.file && linesOf(c.file) === 500) fs.appendFileSync(c.file, line(501) + line(502))
            return sourceAccessNode.probe(p)
          })
      }
      const r = yield* importOnce(c.policy, c.index, plan, undefined, undefined, grow)
      expect([r.coverage, r.sources.accepted, r.eventsAdded]).toEqual(["complete", 1, 502])
      // Taken again for its summary only (the file as that run read it): reported unchanged, its summary stored.
      const next = yield* importOnce(c.policy, c.index, plan)
      expect([next.sources.accepted, next.sources.unchanged, next.eventsAdded]).toEqual([0, 1, 0])
      const [s] = yield* summaryOf(c.index)
      expect([s.summary.lineCount, s.summary.promptCount, s.summary.sizeBytes]).toEqual([502, 502, fs.statSync(c.file).size])
      const third = yield* importOnce(c.policy, c.index, plan)
      expect(third.sources.unchanged).toBe(1)
    }))

  it.effect("imported by a watch's targeted round, then no full round (the watch stopped): the next import stores the file's summary and reports it unchanged (tester18 F14)", () =>
    Effect.gen(function*() {
      const c = setup(50)
      const first = yield* importOnce(c.policy, c.index, plan)
      expect([first.sources.accepted, first.eventsAdded]).toEqual([1, 50])
      const [earlier] = yield* summaryOf(c.index)
      fs.appendFileSync(c.file, line(51) + line(52))
      // What a targeted round imports: the source alone, with the summary an earlier discovery gave (watch.ts).
      const targeted: ImportPlan = {
        discover: [],
        explicit: [{ provider: "claude-code", locator: earlier.locator, summary: earlier.summary }],
        skipped: []
      }
      const round = yield* importOnce(c.policy, c.index, targeted)
      expect([round.sources.accepted, round.eventsAdded]).toEqual([1, 2])
      expect((yield* summaryOf(c.index))[0].summary.lineCount).toBe(50)
      // Nothing changed since: unchanged, not "1 imported, 0 events"; the summary is the file's now.
      const next = yield* importOnce(c.policy, c.index, plan)
      expect([next.sources.accepted, next.sources.unchanged, next.eventsAdded, next.coverage]).toEqual([0, 1, 0, "complete"])
      const [s] = yield* summaryOf(c.index)
      expect([s.summary.lineCount, s.summary.promptCount, s.summary.sizeBytes]).toEqual([52, 52, fs.statSync(c.file).size])
      const third = yield* importOnce(c.policy, c.index, plan)
      expect([third.sources.accepted, third.sources.unchanged]).toEqual([0, 1])
      // A growth after the targeted round is imported as ever.
      fs.appendFileSync(c.file, line(53))
      const grown = yield* importOnce(c.policy, c.index, targeted)
      expect([grown.sources.accepted, grown.eventsAdded]).toEqual([1, 1])
      fs.appendFileSync(c.file, line(54))
      const after = yield* importOnce(c.policy, c.index, plan)
      expect([after.sources.accepted, after.eventsAdded]).toEqual([1, 1])
      expect((yield* summaryOf(c.index))[0].summary.lineCount).toBe(54)
    }))
})
