/**
 * A native log names each record of a session by its `sequence` (event id
 * `muse-seq-<n>`), as an export does (README "Providers"): a record repeated
 * as it is is kept once and counted (`REPEATED_RECORDS_SKIPPED`); another
 * record under a sequence its session already has is `MALFORMED_SOURCE`
 * naming both places (two records under one id would lose one in the index).
 * The same in inspect, stream and import (tester16 finding 2).
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Diagnostic } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { adapterWith, end, metadata, record, tempDir, writeLog } from "./native-helpers.js"

const ID = "55555555-5555-4555-8555-555555555555"
const WS = "/workspace/demo"
const prompt = (seq: number, text: string) => record(seq, "runtime.session", { kind: "run", event: { kind: "started", prompt: text } }, ID)

const logOf = (root: string, lines: ReadonlyArray<Record<string, unknown>>): { log: string; offsets: Array<number> } => {
  const texts = lines.map((l) => JSON.stringify(l))
  const offsets: Array<number> = []
  let at = 0
  for (const t of texts) {
    offsets.push(at)
    at += Buffer.byteLength(t) + 1
  }
  return { log: writeLog(root, "2026/09/26", ID, texts.join("\n") + "\n"), offsets }
}

describe("a native log with two records under one sequence", () => {
  it.effect("another record under a taken sequence: inspect and stream fail MALFORMED_SOURCE naming both lines", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const { log, offsets } = logOf(root, [metadata(1, WS, ID), prompt(2, "dup one"), prompt(2, "dup two"), end(3, ID)])
      const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] } })
      const locator = { locatorClass: "muse-native-session-log" as const, path: log }
      const i = yield* Effect.flip(adapter.inspect(locator))
      expect(i._tag).toBe("MalformedSource")
      expect(i.message).toContain(`byte ${offsets[2]}`)
      expect(i.message).toContain(`byte ${offsets[1]}`)
      const s = yield* Effect.flip(Stream.runCollect(adapter.stream(locator)))
      expect(s._tag).toBe("MalformedSource")
      expect(s.message).toContain(`byte ${offsets[1]}`)
    }))

  it.effect("the same record repeated: kept once, counted as REPEATED_RECORDS_SKIPPED in inspect and stream", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const { log } = logOf(root, [metadata(1, WS, ID), prompt(2, "once"), prompt(2, "once"), prompt(3, "three"), end(4, ID)])
      const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: [WS] } })
      const locator = { locatorClass: "muse-native-session-log" as const, path: log }
      const i = yield* adapter.inspect(locator)
      expect(i.eventCount).toBe(4)
      expect(i.diagnostics.filter((d) => d.code === "REPEATED_RECORDS_SKIPPED").map((d) => d.details?.count)).toEqual([1])
      const warnings: Array<Diagnostic> = []
      const events = Chunk.toArray(yield* Stream.runCollect(adapter.stream(locator, { onWarning: (w) => warnings.push(w) })))
      expect(events.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-3", "muse-seq-4"])
      expect(warnings.filter((w) => w.code === "REPEATED_RECORDS_SKIPPED").map((w) => w.details?.count)).toEqual([1])
    }))

  it("import: a repeat is reported as REPEATED_RECORDS_SKIPPED", () => {
    const root = tempDir()
    logOf(root, [metadata(1, WS, ID), prompt(2, "once"), prompt(2, "once"), end(3, ID)])
    const index = path.join(tempDir(), "index.db")
    const imp = cli(["import", "--json", "--index", index, "--muse-root", root, "--workspace", WS, "--state", path.join(tempDir(), "state.db")])
    const report = JSON.parse(imp.stdout) as { data: { eventsAdded: number; providers: Array<{ provider: string; diagnostics: Array<Diagnostic> }> } }
    expect(report.data.eventsAdded).toBe(3)
    const d = report.data.providers.flatMap((p) => p.diagnostics).filter((x) => x.code === "REPEATED_RECORDS_SKIPPED")
    expect(d.map((x) => x.details?.count)).toEqual([1])
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
