/**
 * A native log names each record of a session by its `sequence` (event id
 * `muse-seq-<n>`), as an export does (docs/providers.md "Providers"): a record repeated
 * as it is is kept once and counted (`REPEATED_RECORDS_SKIPPED`); another
 * record under a sequence its session already has is `MALFORMED_SOURCE`
 * naming both places (two records under one id would lose one in the index).
 * The same in inspect, stream and import (tester16 finding 2), for a log read
 * whole and one streamed a step at a time, for retained children, and for a
 * pass resumed from a cursor (an import of a grown log): the names before the
 * resume point count too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Diagnostic, SessionEvent } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { adapterWith, end, frame, metadata, record, tempDir, writeLog } from "./native-helpers.js"

const ID = "55555555-5555-4555-8555-555555555555"
const OTHER = "66666666-6666-4666-8666-666666666666"
const WS = "/workspace/demo"
const prompt = (seq: number, text: string, session = ID) =>
  record(seq, "runtime.session", { kind: "run", event: { kind: "started", prompt: text } }, session)

/** The log's text and each line's byte offset. */
const textOf = (lines: ReadonlyArray<Record<string, unknown>>, at = 0): { text: string; offsets: Array<number> } => {
  const texts = lines.map((l) => JSON.stringify(l))
  const offsets: Array<number> = []
  for (const t of texts) {
    offsets.push(at)
    at += Buffer.byteLength(t) + 1
  }
  return { text: texts.join("\n") + "\n", offsets }
}

const logOf = (root: string, lines: ReadonlyArray<Record<string, unknown>>): { log: string; offsets: Array<number> } => {
  const { offsets, text } = textOf(lines)
  return { log: writeLog(root, "2026/09/26", ID, text), offsets }
}

/** Append lines to a log: their offsets. */
const append = (log: string, lines: ReadonlyArray<Record<string, unknown>>): Array<number> => {
  const { offsets, text } = textOf(lines, fs.statSync(log).size)
  fs.appendFileSync(log, text)
  return offsets
}

const native = (log: string) => ({ locatorClass: "muse-native-session-log" as const, path: log })

/** Read whole (the default for a small log), and streamed a step at a time (no whole read). */
const modes = [["read whole", {}], ["streamed", { wholeReadBytes: 0 }]] as const

const streamed = (
  adapter: Effect.Effect.Success<ReturnType<typeof adapterWith>>,
  log: string,
  cursor?: string
) =>
  Effect.gen(function*() {
    const warnings: Array<Diagnostic> = []
    const events: Array<SessionEvent> = Chunk.toArray(
      yield* Stream.runCollect(adapter.stream(native(log), { onWarning: (w) => warnings.push(w), ...(cursor !== undefined ? { cursor } : {}) }))
    )
    return { events, repeated: warnings.filter((w) => w.code === "REPEATED_RECORDS_SKIPPED").map((w) => w.details?.count) }
  })

describe("a native log with two records under one sequence", () => {
  for (const [mode, limits] of modes) {
    describe(mode, () => {
      it.effect("another record under a taken sequence: inspect and stream fail MALFORMED_SOURCE naming both lines", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const { log, offsets } = logOf(root, [metadata(1, WS, ID), prompt(2, "dup one"), prompt(2, "dup two"), end(3, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const i = yield* Effect.flip(adapter.inspect(native(log)))
          const s = yield* Effect.flip(Stream.runCollect(adapter.stream(native(log))))
          for (const e of [i, s]) {
            expect(e._tag).toBe("MalformedSource")
            expect(e.message).toContain(`line at byte ${offsets[2]}: sequence 2 of session ${ID} is already the line at byte ${offsets[1]}'s`)
            expect(e.details).toEqual({ offset: offsets[2], firstOffset: offsets[1] })
          }
        }))

      it.effect("the same record repeated: kept once, counted as REPEATED_RECORDS_SKIPPED in inspect and stream", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const { log } = logOf(root, [metadata(1, WS, ID), prompt(2, "once"), prompt(2, "once"), prompt(3, "three"), end(4, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const i = yield* adapter.inspect(native(log))
          expect(i.eventCount).toBe(4)
          expect(i.diagnostics.filter((d) => d.code === "REPEATED_RECORDS_SKIPPED").map((d) => d.details?.count)).toEqual([1])
          const { events, repeated } = yield* streamed(adapter, log)
          expect(events.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-3", "muse-seq-4"])
          // The skipped record keeps its place: the events after it are numbered as if it were there.
          expect(events.map((e) => e.sequence)).toEqual([0, 1, 3, 4])
          expect(repeated).toEqual([1])
        }))

      it.effect("a log written twice over: every record kept once, all the repeats counted", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const body = [metadata(1, WS, ID), ...Array.from({ length: 300 }, (_, k) => prompt(k + 2, `prompt ${k}`))]
          const { log } = logOf(root, [...body, ...body, end(302, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const { events, repeated } = yield* streamed(adapter, log)
          expect(events.map((e) => e.eventId)).toEqual(Array.from({ length: 302 }, (_, k) => `muse-seq-${k + 1}`))
          expect(repeated).toEqual([301])
        }))

      it.effect("a retained child under a record line's sequence, with other content: both places named", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const { log, offsets } = logOf(root, [metadata(1, WS, ID), prompt(2, "line"), frame([prompt(3, "child"), prompt(2, "other")]), end(4, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const e = yield* Effect.flip(Stream.runCollect(adapter.stream(native(log))))
          expect(e._tag).toBe("MalformedSource")
          expect(e.message).toContain(`line at byte ${offsets[2]}, retained child 1: sequence 2 of session ${ID} is already the line at byte ${offsets[1]}'s`)
          expect(e.details).toEqual({ offset: offsets[2], childIndex: 1, firstOffset: offsets[1] })
        }))

      it.effect("two children of one frame: the same record kept once; another record names the first child", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const same = logOf(root, [metadata(1, WS, ID), frame([prompt(2, "a"), prompt(2, "a"), prompt(3, "b")]), end(4, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const { events, repeated } = yield* streamed(adapter, same.log)
          expect(events.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-3", "muse-seq-4"])
          expect(repeated).toEqual([1])
          const root2 = tempDir()
          const other = logOf(root2, [metadata(1, WS, ID), frame([prompt(2, "a"), prompt(2, "b")]), end(3, ID)])
          const adapter2 = yield* adapterWith({ policy: { museRoots: [root2], workspaceRoots: [WS] }, limits })
          const e = yield* Effect.flip(adapter2.inspect(native(other.log)))
          expect(e.message).toContain(`retained child 1: sequence 2 of session ${ID} is already the line at byte ${other.offsets[1]}, retained child 0's`)
          expect(e.details).toEqual({ offset: other.offsets[1], childIndex: 1, firstOffset: other.offsets[1], firstChildIndex: 0 })
        }))

      it.effect("one sequence in two sessions names two records: both kept, nothing counted", () =>
        Effect.gen(function*() {
          const root = tempDir()
          const { log } = logOf(root, [metadata(1, WS, ID), prompt(2, "mine"), prompt(2, "theirs", OTHER), end(3, ID)])
          const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] }, limits })
          const { events, repeated } = yield* streamed(adapter, log)
          expect(events.map((e) => [e.sessionId, e.eventId])).toEqual([
            [ID, "muse-seq-1"],
            [ID, "muse-seq-2"],
            [OTHER, "muse-seq-2"],
            [ID, "muse-seq-3"]
          ])
          expect(repeated).toEqual([])
        }))
    })
  }

  describe("a pass resumed from a cursor sees the sequences before it", () => {
    /** A log of `lines` streamed whole, then `appended`, then streamed from the cursor of its last event before. */
    const resumedAfter = (lines: ReadonlyArray<Record<string, unknown>>, appended: ReadonlyArray<Record<string, unknown>>) =>
      Effect.gen(function*() {
        const root = tempDir()
        const { log, offsets } = logOf(root, lines)
        const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] } })
        const first = yield* streamed(adapter, log)
        const added = append(log, appended)
        const rest = yield* Effect.either(streamed(adapter, log, first.events[first.events.length - 1].cursor))
        return { offsets, added, rest }
      })

    // In order before the cursor; and out of order: the cursor's own record (3) is not the largest before it (5),
    // which the cursor carries.
    const taken = [
      ["in order", [prompt(2, "two"), prompt(3, "three")], 2],
      ["out of order, the largest carried in the cursor", [prompt(5, "five"), prompt(3, "three")], 5]
    ] as const
    for (const [name, before, sequence] of taken) {
      it.effect(`another record under a sequence taken before the cursor (${name}): MALFORMED_SOURCE naming the line before`, () =>
        Effect.gen(function*() {
          const { added, offsets, rest } = yield* resumedAfter([metadata(1, WS, ID), ...before], [prompt(sequence, "other"), end(6, ID)])
          const e = Either.getLeft(rest).pipe(Option.getOrThrow)
          expect(e._tag).toBe("MalformedSource")
          expect(e.message).toContain(`line at byte ${added[0]}: sequence ${sequence} of session ${ID} is already the line at byte ${offsets[1]}'s`)
        }))
    }

    it.effect("the same record again after the cursor: skipped and counted", () =>
      Effect.gen(function*() {
        const { rest } = yield* resumedAfter([metadata(1, WS, ID), prompt(2, "two"), prompt(3, "three")], [prompt(2, "two"), end(4, ID)])
        const r = Either.getOrThrow(rest)
        expect(r.events.map((e) => e.eventId)).toEqual(["muse-seq-4"])
        expect(r.repeated).toEqual([1])
      }))

    it.effect("resumed inside a retained frame: its children before the cursor count", () =>
      Effect.gen(function*() {
        const root = tempDir()
        const { log } = logOf(root, [metadata(1, WS, ID), frame([prompt(2, "a"), prompt(3, "b"), prompt(2, "a")]), end(4, ID)])
        const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] } })
        const all = yield* streamed(adapter, log)
        expect(all.events.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-3", "muse-seq-4"])
        expect(all.repeated).toEqual([1])
        // From child 1's cursor: child 2 repeats child 0, which is before the resume point.
        const rest = yield* streamed(adapter, log, all.events[2].cursor)
        expect(rest.events.map((e) => e.eventId)).toEqual(["muse-seq-4"])
        expect(rest.repeated).toEqual([1])
      }))

    it("import of a grown log: a differing record under an earlier sequence is refused; the same one counted", () => {
      const root = tempDir()
      const state = path.join(tempDir(), "state.db")
      const index = path.join(tempDir(), "index.db")
      const { log } = logOf(root, [metadata(1, WS, ID), prompt(2, "two"), prompt(3, "three")])
      const run = () => {
        const imp = cli(["import", "--json", "--index", index, "--muse-root", root, "--workspace", WS, "--state", state])
        return JSON.parse(imp.stdout) as {
          data: {
            eventsAdded: number
            rejected: Array<{ code: string; message: string }>
            providers: Array<{ provider: string; coverage: string; diagnostics: Array<Diagnostic> }>
          }
        }
      }
      expect(run().data.eventsAdded).toBe(3)
      append(log, [prompt(2, "two"), prompt(4, "four")])
      const same = run().data
      expect(same.eventsAdded).toBe(1)
      expect(same.providers.flatMap((p) => p.diagnostics).filter((d) => d.code === "REPEATED_RECORDS_SKIPPED").map((d) => d.details?.count))
        .toEqual([1])
      append(log, [prompt(3, "three, other")])
      const other = run().data
      expect(other.rejected.map((r) => r.code)).toEqual(["MALFORMED_SOURCE"])
      expect(other.rejected[0].message).toContain("sequence 3")
      expect(other.providers.find((p) => p.provider === "muse-code")?.coverage).toBe("partial")
    })
  })

  it("import: a repeat is reported as REPEATED_RECORDS_SKIPPED", () => {
    const root = tempDir()
    logOf(root, [metadata(1, WS, ID), prompt(2, "once"), prompt(2, "once"), end(3, ID)])
    const index = path.join(tempDir(), "index.db")
    const imp = cli(["import", "--json", "--index", index, "--muse-root", root, "--workspace", WS, "--state", path.join(tempDir(), "state.db")])
    const report = JSON.parse(imp.stdout) as { data: { eventsAdded: number; providers: Array<{ provider: string; coverage: string; diagnostics: Array<Diagnostic> }> } }
    expect(report.data.eventsAdded).toBe(3)
    const d = report.data.providers.flatMap((p) => p.diagnostics).filter((x) => x.code === "REPEATED_RECORDS_SKIPPED")
    expect(d.map((x) => x.details?.count)).toEqual([1])
    // Nothing is left out (session 29): listed, not a cause of partial coverage.
    expect(report.data.providers.find((p) => p.provider === "muse-code")?.coverage).toBe("complete")
  })

  it("import: the differing record is reported, never imported as complete with one lost", () => {
    const root = tempDir()
    logOf(root, [metadata(1, WS, ID), prompt(2, "dup one"), prompt(2, "dup two"), end(3, ID)])
    const index = path.join(tempDir(), "index.db")
    const imp = cli(["import", "--json", "--index", index, "--muse-root", root, "--workspace", WS, "--state", path.join(tempDir(), "state.db")])
    const report = JSON.parse(imp.stdout) as {
      data: { providers: Array<{ provider: string; coverage: string }>; rejected: Array<{ code: string; message: string }> }
    }
    expect(report.data.providers.find((p) => p.provider === "muse-code")?.coverage).toBe("partial")
    expect(report.data.rejected.map((r) => r.code)).toEqual(["MALFORMED_SOURCE"])
    expect(report.data.rejected[0].message).toContain("sequence 2")
  })
})
